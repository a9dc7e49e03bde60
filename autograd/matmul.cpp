// The matmul op: y = op(a) . op(b), 2-D or batched, either operand transposed by a flag.
// Leaves out the products themselves (tensor/gemm.cpp); this file is only the calculus.
#include "autograd/ops.hpp"
#include "tensor/gemm.hpp"

namespace wai {

// An operand's share op(x) . op(y), for an operand of shape `target`: the product itself, or, when the
// operand was one matrix shared by every batch entry, the batch entries' products summed into it.
static Tensor product_share(const Shape& target, const Tensor& x, bool trans_x, const Tensor& y, bool trans_y) {
    const MatmulPlan p = plan_matmul(x.shape(), y.shape(), trans_x, trans_y);
    if (p.out_shape == target) return wai::matmul(x, y, trans_x, trans_y);
    Tensor share(target);
    for (int64_t i = 0; i < p.batch; ++i)
        sgemm(trans_x, trans_y, p.M, p.N, p.K, 1.0f, x.data() + (x.rank() > 2 ? i * p.M * p.K : 0),
              y.data() + (y.rank() > 2 ? i * p.K * p.N : 0), 1.0f, share.data());
    return share;
}

namespace {  // each op type is private to its file

struct Matmul final : Op {
    bool trans_a, trans_b;
    Matmul(bool ta, bool tb) : trans_a(ta), trans_b(tb) {}

    // Y = op(a) . op(b): (..., M, K) x (..., K, N) -> (..., M, N)
    static Value forward(const Value& a, const Value& b, bool trans_a, bool trans_b) {
        return record("matmul", wai::matmul(a.value(), b.value(), trans_a, trans_b), {a, b},
                      std::make_unique<Matmul>(trans_a, trans_b));
    }

    // With A = op(a), B = op(b) and G = dY: dA = G . B^T and dB = A^T . G; undoing op gives
    //   da += G . op(b)^T          (or, when a was transposed, op(b) . G^T)
    //   db += op(a)^T . G          (or, when b was transposed, G^T . op(a))
    void backward(Node& out) override {
        Value& a = out.parents[0];
        Value& b = out.parents[1];
        const Tensor& g = out.grad;
        if (a.requires_grad())
            a.accumulate_grad(!trans_a ? product_share(a.shape(), g, false, b.value(), !trans_b)
                                       : product_share(a.shape(), b.value(), trans_b, g, true));
        if (b.requires_grad())
            b.accumulate_grad(!trans_b ? product_share(b.shape(), a.value(), !trans_a, g, false)
                                       : product_share(b.shape(), g, true, a.value(), trans_a));
    }
};

}  // namespace

Value matmul(const Value& a, const Value& b, bool trans_a, bool trans_b) {
    return Matmul::forward(a, b, trans_a, trans_b);
}

}  // namespace wai
