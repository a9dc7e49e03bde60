// Matmul bookkeeping for the benchmark: while recording is on, every cblas_sgemm call the program
// makes (the library's included) has its sizes, count and time kept, grouped by shape. bench_step
// is linked with -Wl,--wrap=cblas_sgemm, so each call passes through here first; the library
// itself knows nothing of it. Leaves out other BLAS calls: the engine makes none.
#pragma once
#include <cstdint>
#include <vector>

namespace wai::bench {

struct GemmShapeStats {
    bool trans_a, trans_b;
    int64_t M, N, K;
    int64_t calls = 0;
    double seconds = 0.0;
};

void set_gemm_recording(bool on);
std::vector<GemmShapeStats> gemm_stats();  // one entry per distinct shape, since the last clear
void clear_gemm_stats();

}  // namespace wai::bench
