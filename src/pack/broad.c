/* Broad phase: uniform grid over bounding spheres with periodic images. */
#include "config.h"
#include <rve/pack.h>
#include "pack/pack_internal.h"
#include "util/vec3.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>

static int push_pair(rve_pack_pair **pairs, size_t *np, size_t *cap, int i, int j, const int sh[3])
{
    if (*np == *cap) {
        size_t c = *cap ? 2 * *cap : 1024;
        rve_pack_pair *p = realloc(*pairs, c * sizeof *p);
        if (!p)
            return -1;
        *pairs = p;
        *cap = c;
    }
    rve_pack_pair *q = &(*pairs)[(*np)++];
    q->i = i;
    q->j = j;
    memcpy(q->shift, sh, sizeof q->shift);
    return 0;
}

static int near_enough(const rve_pack_set *s, int i, int j, const int sh[3], double margin)
{
    double d[3];
    for (int k = 0; k < 3; k++)
        d[k] = s->b[j].x[k] + sh[k] * s->L[k] - s->b[i].x[k];
    double c = s->b[i].rbound + s->b[j].rbound + margin;
    return v3_norm2(d) <= c * c;
}

static rve_status brute(const rve_pack_set *s, double margin, double rmax, rve_pack_pair **pairs,
                        size_t *np, size_t *cap, rve_err *err)
{
    int m[3] = {0, 0, 0};
    if (s->periodic)
        for (int k = 0; k < 3; k++)
            m[k] = (int)ceil((2 * rmax + margin) / s->L[k]) + 1;
    int n = (int)s->n;
    for (int i = 0; i < n; i++)
        for (int j = i; j < n; j++)
            for (int a = -m[0]; a <= m[0]; a++)
                for (int b = -m[1]; b <= m[1]; b++)
                    for (int c = -m[2]; c <= m[2]; c++) {
                        int sh[3] = {a, b, c};
                        if (i == j) { /* one of each +/- image pair, never the body itself */
                            if (a < 0 || (a == 0 && b < 0) || (a == 0 && b == 0 && c <= 0))
                                continue;
                        }
                        if (near_enough(s, i, j, sh, margin) && push_pair(pairs, np, cap, i, j, sh) < 0)
                            return rve_err_set(err, RVE_ENOMEM, NULL, "out of memory");
                    }
    return RVE_OK;
}

rve_status rve_pack_broad_phase(const rve_pack_set *s, double margin, rve_pack_pair **pairs,
                                size_t *npairs, size_t *cap, rve_err *err)
{
    *npairs = 0;
    int n = (int)s->n;
    if (n == 0)
        return RVE_OK;
    double rmax = 0;
    for (int i = 0; i < n; i++)
        rmax = fmax(rmax, s->b[i].rbound);
    double cut = 2 * rmax + margin;
    int nc[3];
    int small = 0;
    for (int k = 0; k < 3; k++) {
        double c = floor(s->L[k] / cut);
        if (c > 256)
            c = 256;
        if (c < 1)
            c = 1;
        nc[k] = (int)c;
        if (s->periodic && nc[k] < 3)
            small = 1;
    }
    if (small || n < 16)
        return brute(s, margin, rmax, pairs, npairs, cap, err);
    size_t ncell = (size_t)nc[0] * nc[1] * nc[2];
    int *head = malloc(ncell * sizeof(int));
    int *next = malloc((size_t)n * sizeof(int));
    int *cell = malloc((size_t)n * 3 * sizeof(int));
    int *fl = malloc((size_t)n * 3 * sizeof(int));
    if (!head || !next || !cell || !fl) {
        free(head); free(next); free(cell); free(fl);
        return rve_err_set(err, RVE_ENOMEM, NULL, "out of memory");
    }
    for (size_t c = 0; c < ncell; c++)
        head[c] = -1;
    for (int i = 0; i < n; i++) {
        int ci[3];
        for (int k = 0; k < 3; k++) {
            double x = s->b[i].x[k];
            int f = 0;
            if (s->periodic) {
                f = (int)floor(x / s->L[k]);
                x -= f * s->L[k];
            }
            int c = (int)floor(x / s->L[k] * nc[k]);
            if (c < 0) c = 0;
            if (c >= nc[k]) c = nc[k] - 1;
            ci[k] = c;
            fl[3 * i + k] = f;
            cell[3 * i + k] = c;
        }
        size_t id = ((size_t)ci[2] * nc[1] + ci[1]) * nc[0] + ci[0];
        next[i] = head[id];
        head[id] = i;
    }
    rve_status st = RVE_OK;
    for (int i = 0; i < n && st == RVE_OK; i++) {
        for (int o = 0; o < 27 && st == RVE_OK; o++) {
            int off[3] = {o % 3 - 1, (o / 3) % 3 - 1, o / 9 - 1};
            int cc[3], wrap[3], skip = 0;
            for (int k = 0; k < 3; k++) {
                int c = cell[3 * i + k] + off[k];
                wrap[k] = 0;
                if (c < 0 || c >= nc[k]) {
                    if (!s->periodic) { skip = 1; break; }
                    wrap[k] = c < 0 ? -1 : 1;
                    c -= wrap[k] * nc[k];
                }
                cc[k] = c;
            }
            if (skip)
                continue;
            size_t id = ((size_t)cc[2] * nc[1] + cc[1]) * nc[0] + cc[0];
            for (int j = head[id]; j >= 0; j = next[j]) {
                if (j <= i)
                    continue;
                int sh[3];
                for (int k = 0; k < 3; k++)
                    sh[k] = wrap[k] - fl[3 * j + k] + fl[3 * i + k];
                if (near_enough(s, i, j, sh, margin) && push_pair(pairs, npairs, cap, i, j, sh) < 0) {
                    st = rve_err_set(err, RVE_ENOMEM, NULL, "out of memory");
                    break;
                }
            }
        }
    }
    free(head); free(next); free(cell); free(fl);
    return st;
}
