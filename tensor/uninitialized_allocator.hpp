// UninitializedAllocator: the allocator of a Tensor's numbers. It leaves new floats unset instead of
// zeroing them, so a result every element of which is about to be written (a product's output, say)
// costs no pass of zeros; Tensor(shape) still writes its zeros explicitly.
// Leaves out everything else an allocator could do: it is std::allocator otherwise.
#pragma once
#include <memory>
#include <utility>

namespace wai {

template <typename T>
struct UninitializedAllocator : std::allocator<T> {
    template <typename U>
    struct rebind {
        using other = UninitializedAllocator<U>;
    };
    template <typename U, typename... Args>
    void construct(U* p, Args&&... args) {
        if constexpr (sizeof...(Args) == 0) ::new (static_cast<void*>(p)) U;
        else ::new (static_cast<void*>(p)) U(std::forward<Args>(args)...);
    }
};

}  // namespace wai
