// Matrix products: C = alpha * op(A) * op(B) + beta * C, with op = identity or transpose.
// The fast path, sgemm, is OpenBLAS's cblas_sgemm (transpose flags, never transposed copies;
// tensor/gemm_openblas.cpp), or in the web build, which has no BLAS library, sgemm_portable
// (tensor/gemm_portable.cpp, tensor/gemm_web.cpp): the Makefile picks one. The plain triple loop
// beside them is the reference the tests hold both to. Batched products loop over the batch.
// Leaves out broadcasting of batch dimensions beyond "one operand is a single matrix".
#pragma once
#include <cstdint>

#include "tensor/tensor.hpp"

namespace wai {

// Raw row-major products: op(A) is (M, K), op(B) is (K, N), C is (M, N).
void sgemm(bool trans_a, bool trans_b, int64_t M, int64_t N, int64_t K, float alpha, const float* A,
           const float* B, float beta, float* C);
void sgemm_reference(bool trans_a, bool trans_b, int64_t M, int64_t N, int64_t K, float alpha,
                     const float* A, const float* B, float beta, float* C);
// Cache-blocked plain C++ that the compiler vectorises; in every build (the native tests hold it to
// cblas_sgemm), and the web build's sgemm.
void sgemm_portable(bool trans_a, bool trans_b, int64_t M, int64_t N, int64_t K, float alpha,
                    const float* A, const float* B, float beta, float* C);

// How two tensors multiply: the batch count, the matrix sizes, and the result's shape.
// a is (..., M, K) or, transposed, (..., K, M); b likewise. The batch dimensions (all but the last
// two) must agree, or one operand is a plain 2-D matrix shared by every batch entry.
struct MatmulPlan {
    int64_t batch, M, N, K;
    int64_t a_stride, b_stride;  // elements between batch entries; 0 when shared
    bool fold_rows;              // a's batch folds into M: one big gemm instead of a loop
    Shape out_shape;
};
MatmulPlan plan_matmul(const Shape& a, const Shape& b, bool trans_a, bool trans_b);

// (..., M, N) = op(a) · op(b)
Tensor matmul(const Tensor& a, const Tensor& b, bool trans_a = false, bool trans_b = false);
Tensor matmul_reference(const Tensor& a, const Tensor& b, bool trans_a = false, bool trans_b = false);

}  // namespace wai
