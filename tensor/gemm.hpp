// Matrix products: C = alpha * op(A) * op(B) + beta * C, with op = identity or transpose.
// The fast path is OpenBLAS's cblas_sgemm (transpose flags, never transposed copies); the plain
// triple loop beside it is the reference a test holds it to. Batched products loop over the batch.
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
