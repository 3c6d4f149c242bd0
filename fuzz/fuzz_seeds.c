/* libFuzzer target: the files of numbers that rve tess and rve gen read:
 * seed files ('x y z [w]' per line, rve_tess_read_seeds) when the first
 * byte is even, volume files (one positive number per line, rve gen
 * --volumes) when it is odd.  read_volumes is static in src/cli/cmd_gen.c:
 * scripts/fuzz copies it out of that file into read_volumes.inc, so the code
 * fuzzed is the code shipped.  The rest of the input is written to a file
 * (the readers take a path).  Semantic oracles: the count of values read
 * equals an independent count of the data lines; every value is finite (a
 * volume positive); a failure always says why. */
#define _POSIX_C_SOURCE 200809L
#include "config.h"
#include <rve/tess.h>
#include <rve/util.h>
#include <ctype.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "read_volumes.inc"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static char path[4096];

static int put_file(const uint8_t *d, size_t n)
{
    if (!path[0]) {
        const char *tmp = getenv("TMPDIR");
        snprintf(path, sizeof path, "%s/rve-fuzz-seeds.XXXXXX", tmp && *tmp ? tmp : "/tmp");
        int fd = mkstemp(path);
        if (fd < 0)
            return 0;
        close(fd);
    }
    FILE *f = fopen(path, "wb");
    if (!f)
        return 0;
    int ok = fwrite(d, 1, n, f) == n;
    return fclose(f) == 0 && ok;
}

/* Data lines: seeds drop what follows '#', volumes skip lines whose first
 * non-blank character is '#'; both skip blank lines.  A NUL ends the text
 * (the readers see a C string). */
static size_t count_lines(const uint8_t *d, size_t n, int seeds)
{
    size_t count = 0, i = 0;
    while (i < n && d[i]) {
        size_t j = i;
        while (j < n && d[j] && d[j] != '\n')
            j++;
        int data = 0;
        if (seeds) {
            for (size_t q = i; q < j && d[q] != '#' && !data; q++)
                data = !isspace(d[q]);
        } else {
            size_t q = i;
            while (q < j && (d[q] == ' ' || d[q] == '\t' || d[q] == '\r'))
                q++;
            data = q < j && d[q] != '#';
        }
        count += (size_t)data;
        if (j < n && d[j] == '\n')
            i = j + 1;
        else
            break;
    }
    return count;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1 || size > 65536)
        return 0;
    int seeds = data[0] % 2 == 0;
    if (!put_file(data + 1, size - 1))
        return 0;
    rve_err e;
    rve_err_clear(&e);
    size_t lines = count_lines(data + 1, size - 1, seeds);
    if (seeds) {
        double *s = NULL;
        int n = 0;
        if (rve_tess_read_seeds(path, &s, &n, &e) == RVE_OK) {
            if (n < 0 || (size_t)n != lines)
                __builtin_trap();
            for (size_t i = 0; i < 4 * (size_t)n; i++)
                if (!isfinite(s[i]))
                    __builtin_trap();
            free(s);
        } else if (e.msg[0] == 0 || s != NULL) {
            __builtin_trap();
        }
    } else {
        double *v = NULL;
        size_t n = 0;
        if (read_volumes(path, &v, &n, &e) == RVE_OK) {
            if (n != lines)
                __builtin_trap();
            for (size_t i = 0; i < n; i++)
                if (!isfinite(v[i]) || !(v[i] > 0))
                    __builtin_trap();
            free(v);
        } else if (e.msg[0] == 0) {
            __builtin_trap();
        }
    }
    return 0;
}
