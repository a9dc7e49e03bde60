// sgemm_portable: C = alpha * op(A) * op(B) + beta * C in plain C++, for a build with no BLAS library
// (the web build's sgemm, tensor/gemm_web.cpp). Cache-blocked as BLAS libraries are: a block of
// op(B) (KC x NC) and one of op(A) (MC x KC) are copied into panels that the inner loop reads in
// order, and the inner loop keeps an MR x NR tile of C in vector registers across the whole K
// block: each row of the tile is NR / 4 four-float vectors (the compiler's vector extension,
// which GCC and clang both take and turn into SIMD128 with -msimd128, SSE natively: no
// intrinsics), updated by one number of op(A) times a row of op(B). Edges are padded with zeros in
// the panels, so every tile is computed whole and only its part inside C is written.
// Same contract as sgemm (tensor/gemm.hpp): row-major, transpose flags, and with beta = 0 C is
// only written, never read (a NaN in it does not leak). Sums run in float, in another order than
// OpenBLAS's: tests/test_gemm_portable.cpp holds it to cblas_sgemm within float summation's bound.
// Leaves out threads (the web build has one), fused multiply-add (SIMD128 has none), and kernels
// tuned per CPU: it is several times slower than OpenBLAS natively.
#include <algorithm>
#include <cstdint>
#include <vector>

#include "tensor/gemm.hpp"

namespace wai {

namespace {

// The tile of C held in registers (MR x NR = 32 floats, 8 four-float vectors: with the two of
// op(B)'s row and the broadcast number, 11 of the 16 vector registers a browser's x86-64 code
// has; a 4 x 16 tile needs 21 and spills). Under node the step's products ran at 35-45 GFLOP/s
// with 4 x 8, 22-30 with 4 x 16 and 18-25 with 6 x 8 (docs/performance.md, section 12). The
// blocks: a KC x NC block of op(B) is 128 KiB, an MC x KC block of op(A) 64 KiB, sized for a
// core's caches.
constexpr int64_t MR = 4, NR = 8;
constexpr int64_t MC = 64, KC = 256, NC = 128;

// op(A)'s rows i0..i0+mc, columns p0..p0+kc as panels of MR rows: panel r holds, for each k, the MR
// numbers of column k (rows past M are zeros).
void pack_a(bool trans_a, int64_t M, int64_t K, const float* A, int64_t i0, int64_t mc, int64_t p0, int64_t kc, float* out) {
    for (int64_t ir = 0; ir < mc; ir += MR) {
        float* panel = out + ir * kc;
        const int64_t rows = std::min(MR, mc - ir);
        for (int64_t r = 0; r < MR; ++r) {
            const int64_t i = i0 + ir + r;
            if (r >= rows) {
                for (int64_t k = 0; k < kc; ++k) panel[k * MR + r] = 0.0f;
            } else if (trans_a) {
                for (int64_t k = 0; k < kc; ++k) panel[k * MR + r] = A[(p0 + k) * M + i];
            } else {
                const float* row = A + i * K + p0;
                for (int64_t k = 0; k < kc; ++k) panel[k * MR + r] = row[k];
            }
        }
    }
}

// op(B)'s rows p0..p0+kc, columns j0..j0+nc as panels of NR columns: panel c holds, for each k, the
// NR numbers of row k (columns past N are zeros).
void pack_b(bool trans_b, int64_t N, int64_t K, const float* B, int64_t p0, int64_t kc, int64_t j0, int64_t nc, float* out) {
    for (int64_t jr = 0; jr < nc; jr += NR) {
        float* panel = out + jr * kc;
        const int64_t columns = std::min(NR, nc - jr);
        for (int64_t k = 0; k < kc; ++k) {
            float* to = panel + k * NR;
            if (trans_b) {
                for (int64_t c = 0; c < columns; ++c) to[c] = B[(j0 + jr + c) * K + p0 + k];
            } else {
                const float* from = B + (p0 + k) * N + j0 + jr;
                for (int64_t c = 0; c < columns; ++c) to[c] = from[c];
            }
            for (int64_t c = columns; c < NR; ++c) to[c] = 0.0f;
        }
    }
}

// Four floats as one vector: + and * act on each lane.
typedef float Float4 __attribute__((vector_size(16)));
constexpr int64_t NV = NR / 4;  // vectors per row of the tile
inline Float4 load4(const float* p) {
    Float4 v;
    __builtin_memcpy(&v, p, sizeof v);  // any alignment
    return v;
}

inline void store4(float* p, Float4 v) { __builtin_memcpy(p, &v, sizeof v); }

// C's tile (rows x columns of it inside C, row stride ldc) += alpha * (an MR x kc panel of op(A)) *
// (a kc x NR panel of op(B)); with `overwrite`, = instead of += (C not read).
void tile(int64_t kc, const float* a, const float* b, float alpha, float* C, int64_t ldc, int64_t rows, int64_t columns,
          bool overwrite) {
    Float4 sum[MR][NV] = {};
    for (int64_t k = 0; k < kc; ++k) {
        Float4 bk[NV];  // row k of the op(B) panel
        for (int64_t v = 0; v < NV; ++v) bk[v] = load4(b + k * NR + 4 * v);
        for (int64_t r = 0; r < MR; ++r) {
            const float ar = a[k * MR + r];
            const Float4 ar4 = {ar, ar, ar, ar};
            for (int64_t v = 0; v < NV; ++v) sum[r][v] += ar4 * bk[v];
        }
    }
    if (rows == MR && columns == NR) {  // a whole tile: its rows as vectors
        const Float4 alpha4 = {alpha, alpha, alpha, alpha};
        for (int64_t r = 0; r < MR; ++r)
            for (int64_t v = 0; v < NV; ++v) {
                float* to = C + r * ldc + 4 * v;
                store4(to, overwrite ? alpha4 * sum[r][v] : load4(to) + alpha4 * sum[r][v]);
            }
        return;
    }
    float tile_sum[MR][NR];
    __builtin_memcpy(tile_sum, sum, sizeof tile_sum);
    for (int64_t r = 0; r < rows; ++r)
        for (int64_t c = 0; c < columns; ++c)
            C[r * ldc + c] = overwrite ? alpha * tile_sum[r][c] : C[r * ldc + c] + alpha * tile_sum[r][c];
}

}  // namespace

void sgemm_portable(bool trans_a, bool trans_b, int64_t M, int64_t N, int64_t K, float alpha, const float* A,
                    const float* B, float beta, float* C) {
    if (M == 0 || N == 0) return;
    // beta first, once: C = beta * C; the blocks then add to it. With beta 0 and a product to make,
    // the first block of K writes C instead (C is not read, whatever it held).
    const bool product = K != 0 && alpha != 0.0f;
    if (beta == 0.0f && !product) std::fill(C, C + M * N, 0.0f);
    else if (beta != 0.0f && beta != 1.0f)
        for (int64_t i = 0; i < M * N; ++i) C[i] *= beta;
    if (!product) return;

    // The panels, kept between calls (one set per thread), grown to the largest block seen.
    thread_local std::vector<float> a_panels, b_panels;
    const auto round_up = [](int64_t n, int64_t to) { return (n + to - 1) / to * to; };
    for (int64_t j0 = 0; j0 < N; j0 += NC) {
        const int64_t nc = std::min(NC, N - j0);
        for (int64_t p0 = 0; p0 < K; p0 += KC) {
            const int64_t kc = std::min(KC, K - p0);
            b_panels.resize(static_cast<size_t>(std::max<int64_t>(static_cast<int64_t>(b_panels.size()), round_up(nc, NR) * kc)));
            pack_b(trans_b, N, K, B, p0, kc, j0, nc, b_panels.data());
            for (int64_t i0 = 0; i0 < M; i0 += MC) {
                const int64_t mc = std::min(MC, M - i0);
                a_panels.resize(static_cast<size_t>(std::max<int64_t>(static_cast<int64_t>(a_panels.size()), round_up(mc, MR) * kc)));
                pack_a(trans_a, M, K, A, i0, mc, p0, kc, a_panels.data());
                for (int64_t jr = 0; jr < nc; jr += NR)
                    for (int64_t ir = 0; ir < mc; ir += MR)
                        tile(kc, a_panels.data() + ir * kc, b_panels.data() + jr * kc, alpha, C + (i0 + ir) * N + j0 + jr, N,
                             std::min(MR, mc - ir), std::min(NR, nc - jr), beta == 0.0f && p0 == 0);
            }
        }
    }
}

}  // namespace wai
