// exp over a run of floats, for softmax rows: a transcendental loop that would otherwise cost more
// than every matmul of a step. Compiled with -ffast-math so GCC calls glibc's vector math (libmvec);
// that also lets it assume no NaN or infinity exists, so no finiteness check may live here
// (elementwise.cpp has them; GELU's erf loops are in autograd/gelu.cpp, compiled the same way).
// Leaves out accuracy claims beyond libmvec's own (about 4 ulp); tests compare with scalar loops.
#include <cmath>

#include "tensor/elementwise.hpp"

namespace wai {

void exp_inplace(float* x, int64_t count) {
    #pragma omp simd
    for (int64_t i = 0; i < count; ++i) x[i] = expf(x[i]);
}

}  // namespace wai
