// The web build's sgemm: the portable blocked loop (tensor/gemm_portable.cpp), since WebAssembly has
// no OpenBLAS. Built only by make web (platform/web.mk), in place of tensor/gemm_openblas.cpp.
// Leaves out threads: the web build runs on one.
#include "tensor/gemm.hpp"

namespace wai {

void sgemm(bool trans_a, bool trans_b, int64_t M, int64_t N, int64_t K, float alpha, const float* A, const float* B,
           float beta, float* C) {
    sgemm_portable(trans_a, trans_b, M, N, K, alpha, A, B, beta, C);
}

}  // namespace wai
