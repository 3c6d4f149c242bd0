/* Benchmark: reading a 512^3 uint16 multi-page TIFF label stack.
 *
 * Ours (rve_map_read_tiff: checks, widening to uint32 labels) against the
 * peer, plain libtiff reading the same strips into a uint16 array (the floor
 * for any reader of this file). Each read runs in a child process so that its
 * peak resident memory (ru_maxrss) is its own. Prints the median time per
 * 100 MB of label data (2 bytes per voxel) and the peak memory relative to
 * the in-memory array (uint32 labels: 4 bytes per voxel, 512 MiB).
 * RVE_BENCH_N overrides the edge (default 512); RVE_BENCH_REPS the repeats (5). */
#include "config.h"
#define _DEFAULT_SOURCE
#include <rve/raster.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/time.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <tiffio.h>
#include <unistd.h>

static int write_stack(const char *path, int n, int deflate)
{
    TIFF *t = TIFFOpen(path, "w");
    if (!t)
        return 0;
    uint32_t rps = (uint32_t)(65536 / (2 * n));
    if (rps < 1)
        rps = 1;
    uint16_t *row = malloc((size_t)n * rps * sizeof *row);
    if (!row)
        return 0;
    uint64_t s = 1;
    for (int z = 0; z < n; z++) {
        TIFFSetField(t, TIFFTAG_IMAGEWIDTH, (uint32_t)n);
        TIFFSetField(t, TIFFTAG_IMAGELENGTH, (uint32_t)n);
        TIFFSetField(t, TIFFTAG_BITSPERSAMPLE, 16);
        TIFFSetField(t, TIFFTAG_SAMPLESPERPIXEL, 1);
        TIFFSetField(t, TIFFTAG_PHOTOMETRIC, PHOTOMETRIC_MINISBLACK);
        TIFFSetField(t, TIFFTAG_ROWSPERSTRIP, rps);
        TIFFSetField(t, TIFFTAG_COMPRESSION, deflate ? COMPRESSION_ADOBE_DEFLATE : COMPRESSION_NONE);
        if (deflate)
            TIFFSetField(t, TIFFTAG_PREDICTOR, PREDICTOR_HORIZONTAL);
        for (uint32_t y0 = 0; y0 < (uint32_t)n; y0 += rps) {
            uint32_t rows = (uint32_t)n - y0 < rps ? (uint32_t)n - y0 : rps;
            /* blocky labels, like grains of ~16 voxels, with some noise */
            for (uint32_t r = 0; r < rows; r++)
                for (int x = 0; x < n; x++) {
                    s = s * 6364136223846793005ull + 1442695040888963407ull;
                    uint32_t g = (uint32_t)(x / 16 + 32 * ((y0 + r) / 16) + 1024 * (z / 16));
                    row[(size_t)r * n + x] = (uint16_t)((s >> 60) == 0 ? (g * 7) % 65536 : g % 65536);
                }
            if (TIFFWriteEncodedStrip(t, TIFFComputeStrip(t, y0, 0), row, (tmsize_t)rows * n * 2) < 0)
                return 0;
        }
        TIFFWriteDirectory(t);
    }
    free(row);
    TIFFClose(t);
    return 1;
}

static double now(void)
{
    struct timeval tv;
    gettimeofday(&tv, NULL);
    return tv.tv_sec + 1e-6 * tv.tv_usec;
}

/* Plain libtiff into uint16. */
static int peer_read(const char *path)
{
    TIFF *t = TIFFOpen(path, "r");
    if (!t)
        return 0;
    uint32_t w, h;
    TIFFGetField(t, TIFFTAG_IMAGEWIDTH, &w);
    TIFFGetField(t, TIFFTAG_IMAGELENGTH, &h);
    tdir_t nd = TIFFNumberOfDirectories(t);
    uint16_t *a = malloc((size_t)w * h * nd * 2);
    if (!a)
        return 0;
    for (tdir_t d = 0; d < nd; d++) {
        if (d && !TIFFReadDirectory(t))
            return 0;
        tstrip_t ns = TIFFNumberOfStrips(t);
        unsigned char *p = (unsigned char *)(a + (size_t)d * w * h);
        size_t left = (size_t)w * h * 2;
        for (tstrip_t s = 0; s < ns; s++) {
            tmsize_t r = TIFFReadEncodedStrip(t, s, p, (tmsize_t)left);
            if (r < 0)
                return 0;
            p += r;
            left -= (size_t)r;
        }
    }
    volatile uint16_t sink = a[(size_t)w * h * nd / 2];
    (void)sink;
    free(a);
    TIFFClose(t);
    return 1;
}

static int ours_read(const char *path)
{
    rve_map *m;
    rve_err e;
    if (rve_map_read_tiff(path, &m, &e) != RVE_OK) {
        fprintf(stderr, "%s\n", e.msg);
        return 0;
    }
    rve_map_free(m);
    return 1;
}

/* Run fn in a child; returns seconds, *peak_kb the child's max RSS. */
static double run_child(int (*fn)(const char *), const char *path, long *peak_kb)
{
    int fd[2];
    if (pipe(fd) != 0)
        return -1;
    pid_t pid = fork();
    if (pid == 0) {
        close(fd[0]);
        double t0 = now();
        int ok = fn(path);
        double t = ok ? now() - t0 : -1;
        if (write(fd[1], &t, sizeof t) != sizeof t)
            _exit(1);
        _exit(ok ? 0 : 1);
    }
    close(fd[1]);
    double t = -1;
    if (read(fd[0], &t, sizeof t) != sizeof t)
        t = -1;
    close(fd[0]);
    int st;
    struct rusage ru;
    wait4(pid, &st, 0, &ru);
    *peak_kb = ru.ru_maxrss;
    return t;
}

static int cmp_d(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

int main(void)
{
    int n = getenv("RVE_BENCH_N") ? atoi(getenv("RVE_BENCH_N")) : 512;
    int reps = getenv("RVE_BENCH_REPS") ? atoi(getenv("RVE_BENCH_REPS")) : 5;
    if (n < 16 || reps < 1 || reps > 100)
        return 2;
    char path[2][256];
    snprintf(path[0], sizeof path[0], "/tmp/rve-bench-raster-%d-plain.tif", (int)getpid());
    snprintf(path[1], sizeof path[1], "/tmp/rve-bench-raster-%d-deflate.tif", (int)getpid());
    const double mb = (double)n * n * n * 2 / 1e6; /* label data, uint16 */
    const double arr_kb = (double)n * n * n * 4 / 1024;
    printf("reading a %d^3 uint16 TIFF (%.0f MB of labels; our array: uint32, %.0f MiB), median of %d\n",
           n, mb, arr_kb / 1024, reps);
    printf("%-9s %-8s %12s %12s %14s %14s\n", "file", "reader", "s/read", "s/100MB", "peak MiB", "peak/array");
    for (int c = 0; c < 2; c++) {
        if (!write_stack(path[c], n, c)) {
            fprintf(stderr, "cannot write %s\n", path[c]);
            return 1;
        }
        double med[2];
        for (int who = 0; who < 2; who++) {
            double t[100];
            long peak = 0, pk;
            for (int r = 0; r < reps; r++) {
                t[r] = run_child(who == 0 ? ours_read : peer_read, path[c], &pk);
                if (t[r] < 0) {
                    fprintf(stderr, "read failed\n");
                    return 1;
                }
                if (pk > peak)
                    peak = pk;
            }
            qsort(t, (size_t)reps, sizeof t[0], cmp_d);
            med[who] = t[reps / 2];
            printf("%-9s %-8s %12.3f %12.3f %14.1f %14.3f\n", c ? "deflate" : "plain",
                   who ? "libtiff" : "rve", med[who], med[who] / mb * 100, peak / 1024.0, peak / arr_kb);
        }
        printf("%-9s ratio rve/libtiff time: %.2f\n", c ? "deflate" : "plain", med[0] / med[1]);
        remove(path[c]);
    }
    return 0;
}
