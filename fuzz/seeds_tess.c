/* Writes a small seed corpus for the .tess fuzz target with our own writer,
 * in the shapes of the files Neper writes (docs/formats.md): standard with
 * *id, *ori and *crysym; periodic (all axes, two axes); a 3.4 variant
 * (domain edges without type lines); a face with its edge list rotated.
 * Usage: seeds_tess DIR */
#define _POSIX_C_SOURCE 200809L
#include "config.h"
#include <rve/tess.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static rve_tess *make(int n, int px, int py, int pz, unsigned seed)
{
    double *s = malloc(sizeof(double) * 4 * (size_t)n), lo[3] = {0, 0, 0}, hi[3] = {1, 1, 1};
    int per[3] = {px, py, pz};
    for (int i = 0; i < 4 * n; i++) {
        seed = seed * 1103515245u + 12345u;
        s[i] = (i % 4 == 3) ? 0.02 * ((seed >> 8) % 5) : 0.05 + 0.9 * ((seed >> 8) / 16777216.0);
    }
    rve_tess *t = NULL;
    rve_err e;
    if (rve_tess_build(s, n, lo, hi, per, NULL, &t, &e) != RVE_OK) exit(1);
    free(s);
    t->ori_des = strdup("rodrigues:passive");
    t->crysym = strdup("cubic");
    t->ori_n = 3;
    t->ori = malloc(sizeof(double) * 3 * (size_t)n);
    for (int k = 0; k < 3 * n; k++) t->ori[k] = 0.01 * k - 0.3;
    return t;
}

/* Copy src to dst dropping the domain edges' "line" / "0" lines and
 * relabelling the format 3.4. */
static void to34(const char *src, const char *dst)
{
    FILE *in = fopen(src, "r"), *out = fopen(dst, "w");
    char line[4096], prev[4096] = "";
    int dom = 0;
    if (!in || !out) exit(1);
    while (fgets(line, sizeof line, in)) {
        if (strstr(line, "**domain")) dom = 1;
        if (strcmp(line, "   3.5\n") == 0) snprintf(line, sizeof line, "   3.4\n");
        int skip = dom && (strcmp(line, "     line\n") == 0 || (strcmp(prev, "     line\n") == 0 && strcmp(line, "     0\n") == 0));
        snprintf(prev, sizeof prev, "%s", line);
        if (!skip) fputs(line, out);
    }
    fclose(in);
    fclose(out);
}

int main(int argc, char **argv)
{
    if (argc != 2) return 2;
    char p[4096], q[4096];
    rve_err e;
    const int cfg[4][4] = {{6, 0, 0, 0}, {5, 1, 1, 1}, {5, 1, 1, 0}, {3, 0, 0, 0}};
    for (int k = 0; k < 4; k++) {
        rve_tess *t = make(cfg[k][0], cfg[k][1], cfg[k][2], cfg[k][3], 17u + (unsigned)k);
        int ids[8] = {3, 5, 7, 11, 13, 17, 19, 23};
        snprintf(p, sizeof p, "%s/tess/s%d.tess", argv[1], k);
        if (rve_tess_write_tess(t, p, k == 0 ? ids : NULL, &e) != RVE_OK) return 1;
        rve_tess_free(t);
    }
    snprintf(p, sizeof p, "%s/tess/s0.tess", argv[1]);
    snprintf(q, sizeof q, "%s/tess/v34.tess", argv[1]);
    to34(p, q);
    return 0;
}
