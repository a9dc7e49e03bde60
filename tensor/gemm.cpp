// Matrix products: the shapes of a product (plan_matmul), matmul through sgemm, and the reference
// loop sgemm is tested against. sgemm itself is tensor/gemm_openblas.cpp (cblas_sgemm), or in the
// web build tensor/gemm_web.cpp.
// Leaves out the kernels themselves.
#include "tensor/gemm.hpp"

namespace wai {

void sgemm_reference(bool trans_a, bool trans_b, int64_t M, int64_t N, int64_t K, float alpha,
                     const float* A, const float* B, float beta, float* C) {
    for (int64_t i = 0; i < M; ++i)
        for (int64_t j = 0; j < N; ++j) {
            double sum = 0.0;
            for (int64_t k = 0; k < K; ++k) {
                const float a = trans_a ? A[k * M + i] : A[i * K + k];
                const float b = trans_b ? B[j * K + k] : B[k * N + j];
                sum += static_cast<double>(a) * b;
            }
            float& c = C[i * N + j];
            c = static_cast<float>(alpha * sum + (beta == 0.0f ? 0.0 : beta * c));
        }
}

MatmulPlan plan_matmul(const Shape& a, const Shape& b, bool trans_a, bool trans_b) {
    auto shapes = [&] { return a.str() + (trans_a ? "T" : "") + " x " + b.str() + (trans_b ? "T" : ""); };
    if (a.rank() < 2 || b.rank() < 2) shape_error("matmul", shapes(), "both operands need rank 2 or more");
    const int64_t a_rows = a[a.rank() - 2], a_cols = a[a.rank() - 1];
    const int64_t b_rows = b[b.rank() - 2], b_cols = b[b.rank() - 1];
    MatmulPlan p{};
    p.M = trans_a ? a_cols : a_rows;
    const int64_t ka = trans_a ? a_rows : a_cols;
    const int64_t kb = trans_b ? b_cols : b_rows;
    p.N = trans_b ? b_rows : b_cols;
    if (ka != kb)
        shape_error("matmul", shapes(), "inner dimensions " + std::to_string(ka) + " and " + std::to_string(kb) + " differ");
    p.K = ka;

    // The batch dimensions come from whichever operand has them.
    const Shape& batched = a.rank() >= b.rank() ? a : b;
    if (a.rank() > 2 && b.rank() > 2 && a.rank() != b.rank())
        shape_error("matmul", shapes(), "batch dimensions differ");
    for (int i = 0; i + 2 < a.rank() && b.rank() > 2; ++i)
        if (a[i] != b[i]) shape_error("matmul", shapes(), "batch dimensions differ");
    p.batch = 1;
    for (int i = 0; i + 2 < batched.rank(); ++i) {
        p.batch *= batched[i];
        p.out_shape = p.out_shape.append(batched[i]);
    }
    p.out_shape = p.out_shape.append(p.M).append(p.N);
    p.a_stride = a.rank() > 2 ? p.M * p.K : 0;
    p.b_stride = b.rank() > 2 ? p.K * p.N : 0;
    // (batch, M, K) times one shared (K, N): the rows of all batch entries are one taller matrix.
    p.fold_rows = a.rank() > 2 && b.rank() == 2 && !trans_a;
    return p;
}

namespace {

using GemmFunction = void (*)(bool, bool, int64_t, int64_t, int64_t, float, const float*, const float*,
                              float, float*);

void run_plan(const MatmulPlan& p, GemmFunction gemm, const Tensor& a, const Tensor& b, bool trans_a,
              bool trans_b, Tensor& out) {
    if (p.fold_rows) {
        gemm(false, trans_b, p.batch * p.M, p.N, p.K, 1.0f, a.data(), b.data(), 0.0f, out.data());
        return;
    }
    for (int64_t i = 0; i < p.batch; ++i)
        gemm(trans_a, trans_b, p.M, p.N, p.K, 1.0f, a.data() + i * p.a_stride, b.data() + i * p.b_stride,
             0.0f, out.data() + i * p.M * p.N);
}

}  // namespace

Tensor matmul(const Tensor& a, const Tensor& b, bool trans_a, bool trans_b) {
    const MatmulPlan p = plan_matmul(a.shape(), b.shape(), trans_a, trans_b);
    Tensor out = Tensor::uninitialized(p.out_shape);
    run_plan(p, sgemm, a, b, trans_a, trans_b, out);
    return out;
}

Tensor matmul_reference(const Tensor& a, const Tensor& b, bool trans_a, bool trans_b) {
    const MatmulPlan p = plan_matmul(a.shape(), b.shape(), trans_a, trans_b);
    Tensor out(p.out_shape);
    run_plan(p, sgemm_reference, a, b, trans_a, trans_b, out);
    return out;
}

}  // namespace wai
