# The tag that WebAssembly's exception handling throws C++ exceptions with: LLVM's libc++abi and
# libunwind refer to it, and a toolchain with C++ exceptions defines it; the page's exercise build
# (platform/exercise_web.mk) defines it here.
	.globl	__cpp_exception
	.tagtype	__cpp_exception i32
__cpp_exception:
