// A wrong answer: the gradient passed through as it came, as if the rotation were the identity.
// expect: 1 | ^rope_backward: wrong answer: rope_backward of a random .*first differs at \(1, 0\) | hint: it returns the gradient unchanged | \[WRONG\] gradcheck
#include "lessons/exercises/rope_backward.hpp"

wai::Tensor rope_backward(const wai::Tensor& grad, const wai::Tensor& angles) {
    (void)angles;
    return grad;
}
