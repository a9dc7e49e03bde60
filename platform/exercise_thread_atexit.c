// __cxa_thread_atexit for the page's exercise build (platform/exercise_web.mk): how a thread_local with
// a destructor (the matrix product's panels, tensor/gemm_portable.cpp) has it run when its thread ends.
// The C++ runtime of the WebAssembly toolchain leaves it out; a WebAssembly program without threads
// has one thread, which ends with the program, so its destructors run at exit, as atexit's do.
int __cxa_atexit(void (*destructor)(void*), void* object, void* dso_handle);

int __cxa_thread_atexit(void (*destructor)(void*), void* object, void* dso_handle) {
    return __cxa_atexit(destructor, object, dso_handle);
}
