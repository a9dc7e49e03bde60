// sgemm through OpenBLAS's cblas_sgemm: every native build's matrix products (the web build, with no
// BLAS library, has tensor/gemm_web.cpp instead; the Makefile picks).
// Leaves out our own blocked kernels here: OpenBLAS's are near the machine's peak (docs/performance.md,
// section 3); tensor/gemm_portable.cpp is the plain C++ one, for where there is no OpenBLAS.
#include <cblas.h>

#include <algorithm>

#include "tensor/gemm.hpp"

namespace wai {

void sgemm(bool trans_a, bool trans_b, int64_t M, int64_t N, int64_t K, float alpha, const float* A, const float* B,
           float beta, float* C) {
    if (M == 0 || N == 0) return;
    // Leading dimensions are the row lengths of A and B as they are stored, at least 1 as BLAS
    // requires even of an empty row (K = 0, when C becomes beta C).
    const int64_t lda = std::max<int64_t>(1, trans_a ? M : K);
    const int64_t ldb = std::max<int64_t>(1, trans_b ? K : N);
    cblas_sgemm(CblasRowMajor, trans_a ? CblasTrans : CblasNoTrans, trans_b ? CblasTrans : CblasNoTrans,
                static_cast<int>(M), static_cast<int>(N), static_cast<int>(K), alpha, A,
                static_cast<int>(lda), B, static_cast<int>(ldb), beta, C, static_cast<int>(N));
}

}  // namespace wai
