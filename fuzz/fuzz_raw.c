/* libFuzzer target: the .raw reader with its options, and the .tesr reader
 * with its data in an external *file.
 *   first byte even: .raw.  Bytes 1-5 are the options: dimensions
 *     1 + b % 16 each, 1/2/4 bytes a voxel (b % 3), byte order (b & 4),
 *     offset b % 8; the rest is the file.  Oracle: the read succeeds exactly
 *     when the size is offset + voxels x bytes, and then every label is the
 *     value decoded here by hand and nlabels their maximum.
 *   first byte odd: .tesr with *file.  Bytes 1-2 give the length L of the
 *     external data (little-endian, clamped); L bytes of data follow, written
 *     to ext.raw in a private folder; the rest is the .tesr, read from memory
 *     with that folder as its own (a *file name holding '/' is skipped, so
 *     that the fuzzer does not read the machine's files).  Oracle: labels
 *     at most nlabels, and a read never takes more than the header allows.
 * A failure always says why. */
#define _POSIX_C_SOURCE 200809L
#include "config.h"
#include "raster/map_internal.h"
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static char dir[4096];

static int put_file(const char *name, const uint8_t *d, size_t n, char *path, size_t cap)
{
    if (!dir[0]) {
        const char *tmp = getenv("TMPDIR");
        snprintf(dir, sizeof dir, "%s/rve-fuzz-raw.XXXXXX", tmp && *tmp ? tmp : "/tmp");
        if (!mkdtemp(dir)) {
            dir[0] = 0;
            return 0;
        }
    }
    snprintf(path, cap, "%s/%s", dir, name);
    FILE *f = fopen(path, "wb");
    if (!f)
        return 0;
    int ok = fwrite(d, 1, n, f) == n;
    return fclose(f) == 0 && ok;
}

static void fuzz_raw(const uint8_t *d, size_t n)
{
    if (n < 5)
        return;
    rve_raw_opts o;
    memset(&o, 0, sizeof o);
    o.nx = 1 + d[0] % 16, o.ny = 1 + d[1] % 16, o.nz = 1 + d[2] % 16;
    o.bytes = d[3] % 3 == 0 ? 1 : d[3] % 3 == 1 ? 2 : 4;
    o.big_endian = (d[3] & 4) != 0;
    o.offset = d[4] % 8;
    char path[4200];
    if (!put_file("in.raw", d + 5, n - 5, path, sizeof path))
        return;
    const size_t nvox = (size_t)o.nx * o.ny * o.nz, body = n - 5;
    rve_map *m = NULL;
    rve_err e;
    rve_err_clear(&e);
    rve_status st = rve_map_read_raw(path, &o, &m, &e);
    int fits = body == o.offset + nvox * (size_t)o.bytes;
    if (st == RVE_OK) {
        if (!fits)
            __builtin_trap();
        const uint8_t *p = d + 5 + o.offset;
        uint32_t mx = 0;
        for (size_t v = 0; v < nvox; v++) {
            uint32_t x = 0;
            for (int b = 0; b < o.bytes; b++) {
                int k = o.big_endian ? b : o.bytes - 1 - b;
                x = x << 8 | p[v * (size_t)o.bytes + (size_t)k];
            }
            if (m->lab[v] != x)
                __builtin_trap();
            mx = x > mx ? x : mx;
        }
        if (m->nlabels != mx)
            __builtin_trap();
        rve_map_free(m);
    } else {
        /* a file of the right size fails only for labels above 2^31 - 1 */
        if (e.msg[0] == 0 || m != NULL || (fits && o.bytes < 4))
            __builtin_trap();
    }
}

static void fuzz_tesr_ext(const uint8_t *d, size_t n)
{
    if (n < 2)
        return;
    size_t L = (size_t)d[0] | (size_t)d[1] << 8;
    d += 2, n -= 2;
    if (L > n)
        L = n;
    char path[4200];
    if (!put_file("ext.raw", d, L, path, sizeof path))
        return;
    const char *t = (const char *)d + L;
    size_t tn = n - L;
    if (memchr(t, '/', tn)) /* *file names stay in the private folder */
        return;
    rve_map *m = NULL;
    rve_err e;
    rve_err_clear(&e);
    if (rve_map_read_tesr_mem_capped(t, tn, "fuzz.tesr", dir, (size_t)1 << 20, &m, &e) == RVE_OK) {
        size_t nv = rve_map_nvox(m);
        for (size_t v = 0; v < nv; v++)
            if (m->lab[v] > m->nlabels)
                __builtin_trap();
        for (int a = 0; a < 3; a++)
            if (!(m->h[a] > 0) || m->h[a] == 1.0 / 0.0)
                __builtin_trap();
        rve_map_free(m);
    } else if (m != NULL || e.msg[0] == 0) {
        __builtin_trap();
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1 || size > 65536)
        return 0;
    if (data[0] % 2 == 0)
        fuzz_raw(data + 1, size - 1);
    else
        fuzz_tesr_ext(data + 1, size - 1);
    return 0;
}
