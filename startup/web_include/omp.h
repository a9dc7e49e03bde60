/* The OpenMP header of the web build (platform/web.mk puts this folder first on em++'s include
   path): the four OpenMP functions whereami calls, which startup/openmp_web.cpp answers for one
   thread. Emscripten ships no OpenMP runtime, and from 3.1.69 (Debian 13) no omp.h either.
   Leaves out the rest of the OpenMP API: nothing in whereami calls it. */
#ifndef WHEREAMI_WEB_OMP_H
#define WHEREAMI_WEB_OMP_H
#ifdef __cplusplus
extern "C" {
#endif
int omp_get_max_threads(void);
int omp_get_num_threads(void);
int omp_get_thread_num(void);
void omp_set_num_threads(int);
#ifdef __cplusplus
}
#endif
#endif
