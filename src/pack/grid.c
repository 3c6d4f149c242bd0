/* The one uniform grid of the pack module: bodies are inserted and removed
 * one at a time (random insertion, Monte Carlo) or all at once (the pair
 * list of rve_pack_broad_phase).  Periodic positions need not be wrapped:
 * each body keeps the integer image offset floor(x / L) of its insertion, so
 * that candidate shifts stay exact for bodies that drifted out of the box
 * (the soft relaxation moves them freely). */
#include "config.h"
#include <rve/pack.h>
#include "pack/pack_internal.h"
#include "util/vec3.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>

void pack_grid_free(pack_grid *g)
{
    if (g->items)
        for (size_t c = 0; c < g->ncell; c++)
            free(g->items[c]);
    free(g->items);
    free(g->cnt);
    free(g->cap);
    free(g->cell_of);
    free(g->fl);
    free(g->inserted);
    memset(g, 0, sizeof *g);
}

int pack_grid_init(pack_grid *g, const rve_pack_set *s, double reach)
{
    memset(g, 0, sizeof *g);
    g->s = s;
    for (int k = 0; k < 3; k++) {
        /* 64 cells per axis bound the memory (262144 cells); beyond that the
         * cells just hold more bodies */
        double c = floor(s->L[k] / reach);
        if (c > 64)
            c = 64;
        if (c < 1)
            c = 1;
        g->nc[k] = (int)c;
        /* fewer than 3 cells on a periodic axis would visit a cell twice */
        if (s->periodic && g->nc[k] < 3)
            g->brute = 1;
        g->m[k] = s->periodic ? (int)ceil(reach / s->L[k]) : 0;
    }
    g->cell_of = malloc(s->n * sizeof(int) + 1);
    g->fl = calloc(3 * s->n + 1, sizeof(int));
    g->inserted = malloc(s->n * sizeof(int) + 1);
    if (!g->cell_of || !g->fl || !g->inserted)
        return -1;
    for (size_t i = 0; i < s->n; i++)
        g->cell_of[i] = -1;
    if (g->brute)
        return 0;
    g->ncell = (size_t)g->nc[0] * g->nc[1] * g->nc[2];
    g->items = calloc(g->ncell, sizeof(int *));
    g->cnt = calloc(g->ncell, sizeof(int));
    g->cap = calloc(g->ncell, sizeof(int));
    return (g->items && g->cnt && g->cap) ? 0 : -1;
}

/* Cell of x and, for periodic sets, its image offset floor(x / L). */
void pack_grid_cell(const pack_grid *g, const double x[3], int c[3], int f[3])
{
    for (int k = 0; k < 3; k++) {
        double y = x[k];
        int fk = 0;
        if (g->s->periodic) {
            fk = (int)floor(y / g->s->L[k]);
            y -= fk * g->s->L[k];
        }
        int v = (int)floor(y / g->s->L[k] * g->nc[k]);
        if (v < 0)
            v = 0;
        if (v >= g->nc[k])
            v = g->nc[k] - 1;
        c[k] = v;
        if (f)
            f[k] = fk;
    }
}

int pack_grid_insert(pack_grid *g, int i)
{
    int c[3];
    pack_grid_cell(g, g->s->b[i].x, c, g->fl + 3 * i);
    if (g->brute) {
        g->cell_of[i] = 0;
        g->inserted[g->ninserted++] = i;
        return 0;
    }
    size_t id = ((size_t)c[2] * g->nc[1] + c[1]) * g->nc[0] + c[0];
    if (g->cnt[id] == g->cap[id]) {
        int nc = g->cap[id] ? 2 * g->cap[id] : 8;
        int *p = realloc(g->items[id], sizeof(int) * nc);
        if (!p)
            return -1;
        g->items[id] = p;
        g->cap[id] = nc;
    }
    g->items[id][g->cnt[id]++] = i;
    g->cell_of[i] = (int)id;
    return 0;
}

int pack_grid_init_all(pack_grid *g, const rve_pack_set *s, double reach)
{
    if (pack_grid_init(g, s, reach) < 0)
        return -1;
    for (int i = 0; i < (int)s->n; i++)
        if (pack_grid_insert(g, i) < 0)
            return -1;
    return 0;
}

void pack_grid_remove(pack_grid *g, int i)
{
    int id = g->cell_of[i];
    if (id < 0 || g->brute)
        return;
    for (int k = 0; k < g->cnt[id]; k++)
        if (g->items[id][k] == i) {
            g->items[id][k] = g->items[id][--g->cnt[id]];
            break;
        }
    g->cell_of[i] = -1;
}

int pack_grid_moved(pack_grid *g, int i, const double old[3])
{
    if (g->cell_of[i] < 0)
        return 0;
    if (g->brute) {
        int c[3];
        pack_grid_cell(g, g->s->b[i].x, c, g->fl + 3 * i);
        return 0;
    }
    int co[3], cn[3], fo[3], fn[3];
    pack_grid_cell(g, old, co, fo);
    pack_grid_cell(g, g->s->b[i].x, cn, fn);
    if (co[0] == cn[0] && co[1] == cn[1] && co[2] == cn[2] && fo[0] == fn[0] && fo[1] == fn[1] &&
        fo[2] == fn[2])
        return 0;
    pack_grid_remove(g, i);
    return pack_grid_insert(g, i);
}

static int push_cand(pack_cand **out, int *n, int *cap, int j, const int sh[3])
{
    if (*n == *cap) {
        int nc = *cap ? 2 * *cap : 64;
        pack_cand *p = realloc(*out, sizeof(pack_cand) * nc);
        if (!p)
            return -1;
        *out = p;
        *cap = nc;
    }
    (*out)[*n].j = j;
    memcpy((*out)[*n].shift, sh, sizeof(int) * 3);
    (*n)++;
    return 0;
}

static int near(const rve_pack_set *s, int j, const int sh[3], const double x[3], double R, double margin)
{
    double d[3];
    for (int k = 0; k < 3; k++)
        d[k] = s->b[j].x[k] + sh[k] * s->L[k] - x[k];
    double lim = R + s->b[j].rbound + margin;
    return v3_norm2(d) <= lim * lim;
}

/* Small periodic boxes: every inserted body with every image in range. */
static int query_brute(const pack_grid *g, const double x[3], const int fx[3], double R, double margin,
                       int self, pack_cand **out, int *n, int *cap)
{
    const rve_pack_set *s = g->s;
    for (int t = 0; t < g->ninserted; t++) {
        int j = g->inserted[t];
        int base[3];
        for (int k = 0; k < 3; k++)
            base[k] = fx[k] - g->fl[3 * j + k];
        for (int a = -g->m[0]; a <= g->m[0]; a++)
            for (int b = -g->m[1]; b <= g->m[1]; b++)
                for (int c = -g->m[2]; c <= g->m[2]; c++) {
                    int sh[3] = {base[0] + a, base[1] + b, base[2] + c};
                    if (j == self && sh[0] == 0 && sh[1] == 0 && sh[2] == 0)
                        continue;
                    if (near(s, j, sh, x, R, margin) && push_cand(out, n, cap, j, sh) < 0)
                        return -1;
                }
    }
    return 0;
}

int pack_grid_query(const pack_grid *g, const double x[3], double R, double margin, int self, pack_cand **out,
                    int *n, int *cap)
{
    const rve_pack_set *s = g->s;
    *n = 0;
    int c0[3], fx[3];
    pack_grid_cell(g, x, c0, fx);
    if (g->brute)
        return query_brute(g, x, fx, R, margin, self, out, n, cap);
    for (int o = 0; o < 27; o++) {
        int off[3] = {o % 3 - 1, (o / 3) % 3 - 1, o / 9 - 1};
        int cc[3], wrap[3], skip = 0;
        for (int k = 0; k < 3 && !skip; k++) {
            int c = c0[k] + off[k];
            wrap[k] = 0;
            if (c < 0 || c >= g->nc[k]) {
                if (!s->periodic)
                    skip = 1;
                wrap[k] = c < 0 ? -1 : 1;
                c -= wrap[k] * g->nc[k];
            }
            cc[k] = c;
        }
        if (skip)
            continue;
        size_t id = ((size_t)cc[2] * g->nc[1] + cc[1]) * g->nc[0] + cc[0];
        for (int t = 0; t < g->cnt[id]; t++) {
            int j = g->items[id][t];
            if (j == self)
                continue;
            int sh[3];
            for (int k = 0; k < 3; k++)
                sh[k] = wrap[k] + fx[k] - g->fl[3 * j + k];
            if (near(s, j, sh, x, R, margin) && push_cand(out, n, cap, j, sh) < 0)
                return -1;
        }
    }
    return 0;
}

/* ------------------------------------------------------------ pair list */
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
    pack_grid g;
    pack_cand *cd = NULL;
    int ncd = 0, capcd = 0;
    rve_status st = RVE_OK;
    if (pack_grid_init_all(&g, s, 2 * rmax + margin) < 0)
        st = rve_err_set(err, RVE_ENOMEM, NULL, "out of memory");
    for (int i = 0; i < n && st == RVE_OK; i++) {
        if (pack_grid_query(&g, s->b[i].x, s->b[i].rbound, margin, i, &cd, &ncd, &capcd) < 0) {
            st = rve_err_set(err, RVE_ENOMEM, NULL, "out of memory");
            break;
        }
        for (int k = 0; k < ncd; k++) {
            const int *sh = cd[k].shift;
            /* each pair once: j > i, and of a body's own images one of each +/- pair */
            if (cd[k].j < i)
                continue;
            if (cd[k].j == i && (sh[0] < 0 || (sh[0] == 0 && sh[1] < 0) || (sh[0] == 0 && sh[1] == 0 && sh[2] <= 0)))
                continue;
            if (push_pair(pairs, npairs, cap, i, cd[k].j, sh) < 0) {
                st = rve_err_set(err, RVE_ENOMEM, NULL, "out of memory");
                break;
            }
        }
    }
    pack_grid_free(&g);
    free(cd);
    return st;
}
