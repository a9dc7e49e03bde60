// The OpenMP functions whereami calls, for the web build, which is compiled without -fopenmp: its
// `#pragma omp` lines are then ignored and every loop runs on the one thread, so these say so
// (one thread, number 0). Built only by make web (platform/web.mk); it refuses to compile where
// OpenMP is on, so it can never stand in for the real library.
// Leaves out the rest of the OpenMP API: nothing here calls it.
#ifdef _OPENMP
#error "startup/openmp_web.cpp is for builds without OpenMP (-fopenmp is on)"
#endif

#include <omp.h>  // startup/web_include/omp.h: these four, declared as they are defined here

extern "C" {

int omp_get_max_threads(void) { return 1; }
int omp_get_num_threads(void) { return 1; }
int omp_get_thread_num(void) { return 0; }
void omp_set_num_threads(int) {}

}
