// The embedding op: gather rows of a table by integer indices (tokens, or positions).
// Leaves out padding rows and max-norm renormalisation.
#include <algorithm>

#include "autograd/ops.hpp"

namespace wai {

namespace {  // each op type is private to its file

struct EmbeddingOp final : Op {
    std::vector<int> indices;  // saved: the backward scatters into these rows
    explicit EmbeddingOp(std::vector<int> i) : indices(std::move(i)) {}

    // y[n, :] = table[indices[n], :]: table (V, D), indices shaped index_shape -> (index_shape..., D)
    static Value forward(const Value& table, const std::vector<int>& indices, const Shape& index_shape) {
        if (table.value().rank() != 2) shape_error("embedding", table.shape().str(), "the table must be 2-D (rows, D)");
        if (index_shape.numel() != static_cast<int64_t>(indices.size()))
            shape_error("embedding", index_shape.str(), std::to_string(indices.size()) + " indices do not fill this shape");
        const int64_t rows = table.value().size(0), width = table.value().size(1);
        Tensor out(index_shape.append(width));
        for (size_t n = 0; n < indices.size(); ++n) {
            const int row = indices[n];
            if (row < 0 || row >= rows)
                shape_error("embedding", table.shape().str(),
                            "index " + std::to_string(row) + " is outside the table's rows 0.." + std::to_string(rows - 1));
            std::copy_n(table.value().data() + row * width, width, out.data() + n * width);
        }
        return record("embedding", std::move(out), {table}, std::make_unique<EmbeddingOp>(indices));
    }

    // dtable[indices[n], :] += g[n, :]: a scatter-add, so a row used twice gets both gradients
    void backward(Node& out) override {
        Value& table = out.parents[0];
        if (!table.requires_grad()) return;
        Tensor& dtable = table.grad_buffer();
        const int64_t width = dtable.size(1);
        for (size_t i = 0; i < indices.size(); ++i) {
            float* row = dtable.data() + indices[i] * width;
            const float* g = out.grad.data() + i * width;
            for (int64_t c = 0; c < width; ++c) row[c] += g[c];
        }
    }
};

}  // namespace

Value embedding(const Value& table, const std::vector<int>& indices, const Shape& index_shape) {
    return EmbeddingOp::forward(table, indices, index_shape);
}

}  // namespace wai
