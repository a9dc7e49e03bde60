// The cblas_sgemm wrapper behind the benchmark's matmul bookkeeping. With recording off it is one
// branch and the real call. Leaves out column-major calls: the engine makes only row-major ones.
#include "bench/gemm_recording.hpp"

#include <cblas.h>

#include <chrono>
#include <map>
#include <tuple>

extern "C" void __real_cblas_sgemm(CBLAS_ORDER order, CBLAS_TRANSPOSE trans_a, CBLAS_TRANSPOSE trans_b, blasint M,
                                   blasint N, blasint K, float alpha, const float* A, blasint lda, const float* B,
                                   blasint ldb, float beta, float* C, blasint ldc);

namespace wai::bench {

namespace {
bool recording = false;
std::map<std::tuple<bool, bool, int64_t, int64_t, int64_t>, GemmShapeStats> recorded;
}  // namespace

void set_gemm_recording(bool on) { recording = on; }
void clear_gemm_stats() { recorded.clear(); }
std::vector<GemmShapeStats> gemm_stats() {
    std::vector<GemmShapeStats> out;
    for (const auto& [key, stats] : recorded) out.push_back(stats);
    return out;
}

}  // namespace wai::bench

extern "C" void __wrap_cblas_sgemm(CBLAS_ORDER order, CBLAS_TRANSPOSE trans_a, CBLAS_TRANSPOSE trans_b, blasint M,
                                   blasint N, blasint K, float alpha, const float* A, blasint lda, const float* B,
                                   blasint ldb, float beta, float* C, blasint ldc) {
    using namespace wai::bench;
    if (!recording) {
        __real_cblas_sgemm(order, trans_a, trans_b, M, N, K, alpha, A, lda, B, ldb, beta, C, ldc);
        return;
    }
    const auto start = std::chrono::steady_clock::now();
    __real_cblas_sgemm(order, trans_a, trans_b, M, N, K, alpha, A, lda, B, ldb, beta, C, ldc);
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    const bool ta = trans_a == CblasTrans, tb = trans_b == CblasTrans;
    #pragma omp critical(gemm_recording)  // products may run on several threads at once
    {
        GemmShapeStats& stats = recorded[{ta, tb, M, N, K}];
        stats.trans_a = ta, stats.trans_b = tb, stats.M = M, stats.N = N, stats.K = K;
        ++stats.calls;
        stats.seconds += seconds;
    }
}
