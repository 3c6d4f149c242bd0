/* Threads, clock and path helpers. */
#include "config.h"
#define _POSIX_C_SOURCE 200809L
#include <rve/util.h>
#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#ifdef _OPENMP
#include <omp.h>
#endif

int rve_threads_setup(int requested)
{
    int n = requested;
    if (n <= 0) {
        const char *env = getenv("RVE_THREADS");
        long v;
        if (env && rve_parse_int_range(env, 1, 4096, &v) == RVE_OK)
            n = (int)v;
    }
#ifdef _OPENMP
    if (n <= 0)
        n = omp_get_num_procs();
    omp_set_num_threads(n);
#else
    n = 1;
#endif
    return n;
}

int rve_threads_get(void)
{
#ifdef _OPENMP
    return omp_get_max_threads();
#else
    return 1;
#endif
}

double rve_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

const char *rve_path_ext(const char *path)
{
    const char *slash = strrchr(path, '/');
    const char *base = slash ? slash + 1 : path;
    const char *dot = strrchr(base, '.');
    return (dot && dot != base) ? dot : path + strlen(path);
}

int rve_path_has_ext(const char *path, const char *ext)
{
    const char *e = rve_path_ext(path);
    if (strlen(e) != strlen(ext))
        return 0;
    for (; *e; e++, ext++)
        if (tolower((unsigned char)*e) != tolower((unsigned char)*ext))
            return 0;
    return 1;
}
