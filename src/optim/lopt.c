/* lopt.c - local incremental optimiser of Laguerre seeds (see lopt.h). */
#include "config.h"
#include "optim/lopt.h"
#include "util/vec3.h"
#include <gsl/gsl_errno.h>
#include <gsl/gsl_multimin.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#ifdef _OPENMP
#include <omp.h>
#endif

#define NB_MAX 120 /* neighbours per cell kept in the graph */

struct lopt {
    int n;
    double lo[3], hi[3];
    double *x;
    lopt_cost_fn cost;
    void *ctx;
    double *c;        /* cached cell costs */
    int *nbc;         /* neighbour counts */
    int *nb;          /* n * NB_MAX */
    int *cs, *cand;   /* candidate lists (CSR): 2-ring of the graph */
    int ncand_alloc;
    int nthreads;
    lopt_ws *ws;
    /* per-seed search results of a batch */
    double *best;     /* 4n */
    double *bestd;    /* n */
    int *color;
    /* adaptive effort: a seed whose last search found nothing is not searched
     * again while nothing it depends on has changed */
    int gen;          /* bumped when the cost or the search steps change */
    long tick;        /* batch commits so far */
    long *touched;    /* n: tick of the last commit that changed cell k */
    long *searched;   /* n: tick of seed i's last search */
    int *sgen;        /* n: gen of that search */
    unsigned char *fruitless; /* n: that search found no improvement */
    double *tsearch;  /* n: seconds of the last search (largest first in a batch) */
    long skipped;
};

static double now_s(void) { return rve_now(); }

lopt *lopt_alloc(int n, const double lo[3], const double hi[3], double *x, int nthreads, rve_err *err)
{
    lopt *L = calloc(1, sizeof *L);
    if (!L) {
        rve_err_set(err, RVE_ENOMEM, NULL, "out of memory");
        return NULL;
    }
    L->n = n;
    v3_copy(L->lo, lo);
    v3_copy(L->hi, hi);
    L->x = x;
    if (nthreads < 1)
        nthreads = 1;
    L->nthreads = nthreads;
    L->c = calloc((size_t)n, sizeof(double));
    L->nbc = calloc((size_t)n, sizeof(int));
    L->nb = malloc((size_t)n * NB_MAX * sizeof(int));
    L->cs = calloc((size_t)n + 1, sizeof(int));
    L->best = malloc((size_t)n * 4 * sizeof(double));
    L->bestd = malloc((size_t)n * sizeof(double));
    L->color = malloc((size_t)n * sizeof(int));
    L->ws = calloc((size_t)nthreads, sizeof(lopt_ws));
    L->touched = calloc((size_t)n, sizeof(long));
    L->searched = calloc((size_t)n, sizeof(long));
    L->sgen = calloc((size_t)n, sizeof(int));
    L->fruitless = calloc((size_t)n, 1);
    L->tsearch = calloc((size_t)n, sizeof(double));
    L->tick = 1;
    if (!L->c || !L->nbc || !L->nb || !L->cs || !L->best || !L->bestd || !L->color || !L->ws || !L->touched ||
        !L->searched || !L->sgen || !L->fruitless || !L->tsearch) {
        lopt_free(L);
        rve_err_set(err, RVE_ENOMEM, NULL, "out of memory");
        return NULL;
    }
    for (int t = 0; t < nthreads; t++) {
        L->ws[t].stamp = calloc((size_t)n, sizeof(int));
        L->ws[t].list = malloc((size_t)n * sizeof(int));
        L->ws[t].L = L;
        L->ws[t].n = n;
        L->ws[t].x = x;
        L->ws[t].ov_i = -1;
        L->ws[t].cache_i = -1;
        L->ws[t].cache_k = malloc(LOPT_NCACHE * sizeof(int));
        L->ws[t].cache = malloc(LOPT_NCACHE * sizeof(cpoly));
        L->ws[t].tmpc = malloc((size_t)n * sizeof(int));
        if (!L->ws[t].stamp || !L->ws[t].list || !L->ws[t].cache_k || !L->ws[t].cache || !L->ws[t].tmpc) {
            lopt_free(L);
            rve_err_set(err, RVE_ENOMEM, NULL, "out of memory");
            return NULL;
        }
    }
    return L;
}

void lopt_free(lopt *L)
{
    if (!L)
        return;
    if (L->ws)
        for (int t = 0; t < L->nthreads; t++) {
            free(L->ws[t].stamp);
            free(L->ws[t].list);
            free(L->ws[t].cache_k);
            free(L->ws[t].cache);
            free(L->ws[t].tmpc);
        }
    free(L->ws);
    free(L->c);
    free(L->nbc);
    free(L->nb);
    free(L->cs);
    free(L->cand);
    free(L->best);
    free(L->bestd);
    free(L->color);
    free(L->touched);
    free(L->searched);
    free(L->sgen);
    free(L->fruitless);
    free(L->tsearch);
    free(L);
}

void lopt_set_cost(lopt *L, lopt_cost_fn f, void *ctx)
{
    L->cost = f;
    L->ctx = ctx;
    L->gen++;
}

void lopt_invalidate(lopt *L) { L->gen++; }
long lopt_skipped(const lopt *L) { return L->skipped; }

/* Seed i needs no search: its last search, with the same cost and steps,
 * found nothing and no cell of its 2-ring changed since; or its cell and its
 * neighbours' already cost exactly 0 (a sum of non-negative costs). */
static int can_skip(const lopt *L, int i)
{
    int zero = L->c[i] == 0;
    for (int q = 0; zero && q < L->nbc[i]; q++)
        zero = L->c[L->nb[(size_t)i * NB_MAX + q]] == 0;
    if (zero && L->nbc[i] > 0)
        return 1;
    if (!L->fruitless[i] || L->sgen[i] != L->gen || L->touched[i] >= L->searched[i])
        return 0;
    for (int q = L->cs[i]; q < L->cs[i + 1]; q++)
        if (L->touched[L->cand[q]] >= L->searched[i])
            return 0;
    return 1;
}

typedef struct {
    double t;
    int i;
} tsort_t;

static int cmp_tdesc(const void *a, const void *b)
{
    double x = ((const tsort_t *)a)->t, y = ((const tsort_t *)b)->t;
    return (x < y) - (x > y);
}

void lopt_set_user(lopt *L, void **user)
{
    for (int t = 0; t < L->nthreads; t++)
        L->ws[t].user = user ? user[t] : NULL;
}

int lopt_nthreads(const lopt *L) { return L->nthreads; }
double lopt_cell_cost(const lopt *L, int k) { return L->c[k]; }
const int *lopt_neighbours(const lopt *L, int k, int *count)
{
    *count = L->nbc[k];
    return L->nb + (size_t)k * NB_MAX;
}

double lopt_total(const lopt *L)
{
    double s = 0;
    for (int k = 0; k < L->n; k++)
        s += L->c[k];
    return s;
}

long lopt_evals(const lopt *L)
{
    long s = 0;
    for (int t = 0; t < L->nthreads; t++)
        s += L->ws[t].evals;
    return s;
}

long lopt_counter(const lopt *L)
{
    long s = 0;
    for (int t = 0; t < L->nthreads; t++)
        s += L->ws[t].gjk;
    return s;
}

static int thread_id(void)
{
#ifdef _OPENMP
    return omp_get_thread_num();
#else
    return 0;
#endif
}

/* ------------------------------------------------------------ full cells */
typedef struct {
    double d;
    int j;
} dist_j_t;

static int cmp_dj(const void *a, const void *b)
{
    double x = ((const dist_j_t *)a)->d, y = ((const dist_j_t *)b)->d;
    return (x > y) - (x < y);
}

/* Seeds binned on a uniform grid (about one seed per bin), for full cells
 * in O(seeds near the cell) instead of sorting all n seeds per cell. */
struct lopt_grid {
    int g[3];
    double lo[3], h[3], hmin, tmax;
    int *start; /* g0 g1 g2 + 1 */
    int *idx;   /* n */
};

static int grid_bin(const lopt_grid *G, const double *p, int a)
{
    int b = (int)floor((p[a] - G->lo[a]) / G->h[a]);
    return b < 0 ? 0 : (b >= G->g[a] ? G->g[a] - 1 : b);
}

lopt_grid *lopt_grid_build(int n, const double *x, const double lo[3], const double hi[3])
{
    lopt_grid *G = calloc(1, sizeof *G);
    if (!G || n < 1) {
        free(G);
        return NULL;
    }
    double ext[3], vol = 1;
    for (int a = 0; a < 3; a++) {
        ext[a] = hi[a] - lo[a] > 0 ? hi[a] - lo[a] : 1;
        vol *= ext[a];
    }
    double side = cbrt(vol / n); /* one seed per bin on average */
    size_t nb = 1;
    G->hmin = 1e300;
    for (int a = 0; a < 3; a++) {
        double g = floor(ext[a] / side);
        G->g[a] = g < 1 ? 1 : (g > 1024 ? 1024 : (int)g);
        G->lo[a] = lo[a];
        G->h[a] = ext[a] / G->g[a];
        G->hmin = G->h[a] < G->hmin ? G->h[a] : G->hmin;
        nb *= (size_t)G->g[a];
    }
    G->start = calloc(nb + 1, sizeof(int));
    G->idx = malloc((size_t)n * sizeof(int));
    int *bin = malloc((size_t)n * sizeof(int));
    if (!G->start || !G->idx || !bin) {
        free(bin);
        lopt_grid_free(G);
        return NULL;
    }
    G->tmax = -1e300;
    for (int j = 0; j < n; j++) {
        const double *p = x + 4 * (size_t)j;
        bin[j] = grid_bin(G, p, 0) + G->g[0] * (grid_bin(G, p, 1) + G->g[1] * grid_bin(G, p, 2));
        G->start[bin[j] + 1]++;
        if (p[3] > G->tmax)
            G->tmax = p[3];
    }
    for (size_t b = 0; b < nb; b++)
        G->start[b + 1] += G->start[b];
    int *fill = malloc(nb * sizeof(int));
    if (!fill) {
        free(bin);
        lopt_grid_free(G);
        return NULL;
    }
    memcpy(fill, G->start, nb * sizeof(int));
    for (int j = 0; j < n; j++)
        G->idx[fill[bin[j]]++] = j;
    free(fill);
    free(bin);
    return G;
}

void lopt_grid_free(lopt_grid *G)
{
    if (!G)
        return;
    free(G->start);
    free(G->idx);
    free(G);
}

static double cell_radius(const cpoly *P, const double *sk)
{
    double R = 0;
    for (int i = 0; i < P->nv; i++) {
        double r = v3_dist(P->v[i], sk);
        if (r > R)
            R = r;
    }
    return R;
}

/* clip P (in *pp, scratch *qq) by the plane of seed j; returns 1 when the
 * cell became empty */
static int clip_by(cpoly **pp, cpoly **qq, const double *x, const double *sk, int j, double D, double *R)
{
    const double *sj = x + 4 * (size_t)j;
    double nrm[3];
    v3_sub(nrm, sj, sk);
    double d = 0.5 * (v3_norm2(sj) - sj[3] - v3_norm2(sk) + sk[3]);
    if (D == 0) {
        if (sk[3] >= sj[3])
            return 0;
        (*pp)->nv = (*pp)->nf = (*pp)->ni = 0;
        return 1;
    }
    if ((d - v3_dot(nrm, sk)) >= *R * D)
        return 0;
    if (cpoly_clip(*pp, *qq, nrm, d, j)) {
        cpoly *tmp = *pp;
        *pp = *qq;
        *qq = tmp;
        if ((*pp)->nv == 0)
            return 1;
        *R = cell_radius(*pp, sk);
    }
    return 0;
}

const cpoly *lopt_full_cell(int n, const double *x, const double lo[3], const double hi[3], int k,
                            cpoly *w0, cpoly *w1, const lopt_grid *G, double *dist)
{
    dist_j_t *o = (dist_j_t *)dist; /* caller gives 2n doubles worth of scratch */
    const double *sk = x + 4 * (size_t)k;
    cpoly *P = w0, *Q = w1;
    cpoly_box(P, lo, hi);
    double R = cell_radius(P, sk);
    if (G) {
        /* rings of bins around the seed's bin, nearest seeds first within a
         * ring; a bin of ring r is at least (r - 1) hmin away, and a plane at
         * distance D misses the cell once 0.5 D + 0.5 (t_k - tmax) / D >= R
         * (increasing in D) */
        int c[3], gmax = 0;
        for (int a = 0; a < 3; a++) {
            c[a] = grid_bin(G, sk, a);
            int e = c[a] > G->g[a] - 1 - c[a] ? c[a] : G->g[a] - 1 - c[a];
            gmax = e > gmax ? e : gmax;
        }
        for (int r = 0; r <= gmax; r++) {
            double Dm = (r - 1) * G->hmin;
            if (Dm > 0 && 0.5 * Dm + 0.5 * (sk[3] - G->tmax) / Dm >= R)
                break;
            int m = 0;
            for (int kz = c[2] - r; kz <= c[2] + r; kz++) {
                if (kz < 0 || kz >= G->g[2])
                    continue;
                for (int ky = c[1] - r; ky <= c[1] + r; ky++) {
                    if (ky < 0 || ky >= G->g[1])
                        continue;
                    int onshell = abs(kz - c[2]) == r || abs(ky - c[1]) == r;
                    int step = onshell ? 1 : 2 * r;
                    for (int kx = c[0] - r; kx <= c[0] + r; kx += (step > 0 ? step : 1)) {
                        if (kx < 0 || kx >= G->g[0])
                            continue;
                        int b = kx + G->g[0] * (ky + G->g[1] * kz);
                        for (int q = G->start[b]; q < G->start[b + 1]; q++) {
                            int j = G->idx[q];
                            if (j == k)
                                continue;
                            o[m].d = v3_dist(sk, x + 4 * (size_t)j);
                            o[m].j = j;
                            m++;
                        }
                    }
                }
            }
            qsort(o, (size_t)m, sizeof *o, cmp_dj);
            for (int q = 0; q < m; q++)
                if (clip_by(&P, &Q, x, sk, o[q].j, o[q].d, &R))
                    return P;
        }
        return P;
    }
    double tmax = -1e300;
    int m = 0;
    for (int j = 0; j < n; j++) {
        if (x[4 * j + 3] > tmax)
            tmax = x[4 * j + 3];
        if (j == k)
            continue;
        o[m].d = v3_dist(sk, x + 4 * (size_t)j);
        o[m].j = j;
        m++;
    }
    qsort(o, (size_t)m, sizeof *o, cmp_dj);
    for (int c = 0; c < m; c++) {
        double D = o[c].d;
        if (D > 0 && 0.5 * D + 0.5 * (sk[3] - tmax) / D >= R)
            break; /* this and every farther plane miss the cell */
        if (clip_by(&P, &Q, x, sk, o[c].j, D, &R))
            return P;
    }
    return P;
}

static void set_neighbours(lopt *L, int k, const cpoly *P)
{
    int *nb = L->nb + (size_t)k * NB_MAX, c = 0;
    for (int f = 0; f < P->nf; f++) {
        int j = P->fid[f];
        if (j < 0)
            continue;
        int dup = 0;
        for (int q = 0; q < c; q++)
            if (nb[q] == j) {
                dup = 1;
                break;
            }
        if (!dup && c < NB_MAX)
            nb[c++] = j;
    }
    L->nbc[k] = c;
}

/* symmetric closure of the neighbour graph */
static void symmetrise(lopt *L)
{
    for (int k = 0; k < L->n; k++)
        for (int q = 0; q < L->nbc[k]; q++) {
            int j = L->nb[(size_t)k * NB_MAX + q];
            int *nj = L->nb + (size_t)j * NB_MAX, found = 0;
            for (int r = 0; r < L->nbc[j]; r++)
                if (nj[r] == k) {
                    found = 1;
                    break;
                }
            if (!found && L->nbc[j] < NB_MAX)
                nj[L->nbc[j]++] = k;
        }
}

/* seed with the smallest power distance to p among all but k */
static int host_of(const lopt *L, int k, const double p[3])
{
    int h = -1;
    double best = 1e300;
    for (int j = 0; j < L->n; j++) {
        if (j == k)
            continue;
        double d = v3_dist2(p, L->x + 4 * (size_t)j) - L->x[4 * (size_t)j + 3];
        if (d < best) {
            best = d;
            h = j;
        }
    }
    return h;
}

/* candidate lists: the 2-ring of each cell (for an empty cell: its host cell
 * at the seed and the host's 2-ring), sorted by distance to the seed */
static rve_status build_candidates(lopt *L, rve_err *err)
{
    int n = L->n;
    size_t total = 0;
    int *mark = calloc((size_t)n, sizeof(int));
    int *tmp = malloc((size_t)n * sizeof(int));
    if (!mark || !tmp) {
        free(mark);
        free(tmp);
        return rve_err_set(err, RVE_ENOMEM, NULL, "out of memory");
    }
    int *host = malloc((size_t)n * sizeof(int));
    if (!host) {
        free(mark);
        free(tmp);
        return rve_err_set(err, RVE_ENOMEM, NULL, "out of memory");
    }
    for (int k = 0; k < n; k++)
        host[k] = (L->nbc[k] == 0 && n > 1) ? host_of(L, k, L->x + 4 * (size_t)k) : -1;
    for (int pass = 0; pass < 2; pass++) {
        total = 0;
        for (int k = 0; k < n; k++) {
            int m = 0, stampv = pass * n + k + 1;
            mark[k] = stampv;
            /* breadth-first rings from k (or from its host) */
            int head = 0;
            if (host[k] >= 0) {
                mark[host[k]] = stampv;
                tmp[m++] = host[k];
            } else {
                for (int q = 0; q < L->nbc[k]; q++) {
                    int j = L->nb[(size_t)k * NB_MAX + q];
                    if (mark[j] != stampv) {
                        mark[j] = stampv;
                        tmp[m++] = j;
                    }
                }
            }
            int depth_end = m;
            for (int depth = 0; depth < (host[k] >= 0 ? 2 : 1); depth++) {
                for (; head < depth_end; head++) {
                    int j = tmp[head];
                    for (int r = 0; r < L->nbc[j]; r++) {
                        int l = L->nb[(size_t)j * NB_MAX + r];
                        if (mark[l] != stampv && m < n) {
                            mark[l] = stampv;
                            tmp[m++] = l;
                        }
                    }
                }
                depth_end = m;
            }
            if (m > 4096)
                m = 4096;
            if (pass == 1) {
                const double *sk = L->x + 4 * (size_t)k;
                /* insertion sort by distance (lists are short) */
                int *dst = L->cand + L->cs[k];
                double dd[4096];
                for (int a = 0; a < m; a++) {
                    double d = v3_dist2(sk, L->x + 4 * (size_t)tmp[a]);
                    int b = a - 1;
                    while (b >= 0 && dd[b] > d) {
                        dd[b + 1] = dd[b];
                        dst[b + 1] = dst[b];
                        b--;
                    }
                    dd[b + 1] = d;
                    dst[b + 1] = tmp[a];
                }
            } else
                L->cs[k] = (int)total;
            total += (size_t)m;
        }
        if (pass == 0) {
            L->cs[n] = (int)total;
            free(L->cand);
            L->cand = malloc((total ? total : 1) * sizeof(int));
            if (!L->cand) {
                free(mark);
                free(tmp);
                free(host);
                return rve_err_set(err, RVE_ENOMEM, NULL, "out of memory");
            }
        }
    }
    /* symmetry for empty cells: an empty cell k can reappear when any seed of
     * its candidate list moves, so k joins their lists */
    size_t extra = 0;
    for (int k = 0; k < n; k++)
        if (host[k] >= 0)
            extra += (size_t)(L->cs[k + 1] - L->cs[k]);
    if (extra) {
        int *add = calloc((size_t)n, sizeof(int));
        int *ncs = malloc(((size_t)n + 1) * sizeof(int));
        int *fill = malloc((size_t)n * sizeof(int));
        int *nc = malloc((total + extra) * sizeof(int));
        if (!add || !ncs || !fill || !nc) {
            free(add);
            free(ncs);
            free(fill);
            free(nc);
            free(mark);
            free(tmp);
            free(host);
            return rve_err_set(err, RVE_ENOMEM, NULL, "out of memory");
        }
        for (int k = 0; k < n; k++)
            if (host[k] >= 0)
                for (int q = L->cs[k]; q < L->cs[k + 1]; q++)
                    add[L->cand[q]]++;
        int pos = 0;
        for (int j = 0; j < n; j++) {
            int len = L->cs[j + 1] - L->cs[j];
            ncs[j] = pos;
            memcpy(nc + pos, L->cand + L->cs[j], (size_t)len * sizeof(int));
            fill[j] = pos + len;
            pos += len + add[j];
        }
        ncs[n] = pos;
        for (int k = 0; k < n; k++)
            if (host[k] >= 0)
                for (int q = L->cs[k]; q < L->cs[k + 1]; q++)
                    nc[fill[L->cand[q]]++] = k;
        memcpy(L->cs, ncs, ((size_t)n + 1) * sizeof(int));
        free(L->cand);
        L->cand = nc;
        free(add);
        free(ncs);
        free(fill);
    }
    free(mark);
    free(tmp);
    free(host);
    return RVE_OK;
}

double lopt_gap(const lopt_ws *ws, int k, const double sk[4])
{
    double best = 1e300;
    for (int j = 0; j < ws->n; j++) { /* all seeds: exact, and empty cells are rare */
        if (j == k)
            continue;
        const double *sj = (j == ws->ov_i) ? ws->ov_p : ws->x + 4 * (size_t)j;
        double d = v3_dist2(sk, sj) - sj[3];
        if (d < best)
            best = d;
    }
    if (best >= 1e300)
        return 0;
    double g = -sk[3] - best;
    return g > 0 ? g : 0;
}

const cpoly *lopt_cell(lopt *L, int k, cpoly *w0, cpoly *w1)
{
    return cpoly_laguerre_cell(w0, w1, L->lo, L->hi, L->x, k, L->cand + L->cs[k],
                               L->cs[k + 1] - L->cs[k], -1, NULL);
}

rve_status lopt_rebuild(lopt *L, rve_err *err)
{
    int n = L->n;
    int fail = 0;
    lopt_grid *G = lopt_grid_build(n, L->x, L->lo, L->hi); /* NULL: sorted scan */
#pragma omp parallel num_threads(L->nthreads)
    {
        lopt_ws *ws = &L->ws[thread_id()];
        double *scratch = malloc((size_t)(n + 1) * sizeof(dist_j_t));
        if (!scratch) {
#pragma omp atomic write
            fail = 1;
        }
#pragma omp for schedule(dynamic, 4)
        for (int k = 0; k < n; k++) {
            if (!scratch)
                continue;
            const cpoly *P = lopt_full_cell(n, L->x, L->lo, L->hi, k, &ws->work[0], &ws->work[1],
                                            G, scratch);
            set_neighbours(L, k, P);
            ws->commit = 1;
            L->c[k] = L->cost(L->ctx, k, L->x + 4 * (size_t)k, P, ws);
            ws->commit = 0;
        }
        free(scratch);
    }
    lopt_grid_free(G);
    if (fail)
        return rve_err_set(err, RVE_ENOMEM, NULL, "out of memory");
    symmetrise(L);
    return build_candidates(L, err);
}

rve_status lopt_recost(lopt *L, rve_err *err)
{
    (void)err;
    L->gen++;
#pragma omp parallel for num_threads(L->nthreads) schedule(dynamic, 4)
    for (int k = 0; k < L->n; k++) {
        lopt_ws *ws = &L->ws[thread_id()];
        const cpoly *P = lopt_cell(L, k, &ws->work[0], &ws->work[1]);
        ws->commit = 1;
        L->c[k] = L->cost(L->ctx, k, L->x + 4 * (size_t)k, P, ws);
        ws->commit = 0;
    }
    return RVE_OK;
}

/* ------------------------------------------------------ local evaluation */
/* Fill ws's cache with the cells of i's neighbours without the plane of i. */
static void prepare_cache(lopt *L, lopt_ws *ws, int i)
{
    ws->cache_i = i;
    ws->ncache = 0;
    const int *nb = L->nb + (size_t)i * NB_MAX;
    for (int q = 0; q < L->nbc[i] && ws->ncache < LOPT_NCACHE; q++) {
        int k = nb[q], m = 0;
        for (int c = L->cs[k]; c < L->cs[k + 1]; c++)
            if (L->cand[c] != i)
                ws->tmpc[m++] = L->cand[c];
        cpoly *dst = &ws->cache[ws->ncache];
        const cpoly *P = cpoly_laguerre_cell(&ws->work[2], &ws->work[3], L->lo, L->hi, L->x, k, ws->tmpc, m, -1, NULL);
        memcpy(dst, P, sizeof *dst);
        ws->cache_k[ws->ncache++] = k;
    }
}

/* Cell k (a neighbour of the seed i under trial at p) from the cache: one
 * clip.  NULL when k is not cached or the planes coincide. */
static const cpoly *cached_cell(const lopt *L, lopt_ws *ws, int k, int i, const double p[4], cpoly *out)
{
    if (ws->cache_i != i)
        return NULL;
    for (int c = 0; c < ws->ncache; c++) {
        if (ws->cache_k[c] != k)
            continue;
        const cpoly *B = &ws->cache[c];
        if (B->nv == 0)
            return B;
        const double *sk = L->x + 4 * (size_t)k;
        double n[3];
        v3_sub(n, p, sk);
        if (v3_norm2(n) == 0)
            return NULL;
        double d = 0.5 * (v3_norm2(p) - p[3] - v3_norm2(sk) + sk[3]);
        return cpoly_clip(B, out, n, d, i) ? out : B;
    }
    return NULL;
}

/* Change of F when seed i takes the value p (others frozen).  The affected
 * cells are appended to ws->list (count returned in *na) when na != NULL. */
static double delta_eval(lopt *L, lopt_ws *ws, int i, const double p[4])
{
    ws->evals++;
    ws->ov_i = i;
    ws->ov_p = p;
    const int *ci = L->cand + L->cs[i];
    int nci = L->cs[i + 1] - L->cs[i];
    const cpoly *P = cpoly_laguerre_cell(&ws->work[0], &ws->work[1], L->lo, L->hi, L->x, i, ci, nci, i, p);
    if (++ws->stampv == 0x7fffffff) {
        memset(ws->stamp, 0, (size_t)L->n * sizeof(int));
        ws->stampv = 1;
    }
    int sv = ws->stampv, m = 0;
    ws->stamp[i] = sv;
    const int *nb = L->nb + (size_t)i * NB_MAX;
    /* The candidates (2-ring) make the new cell exact only while it stays
     * inside the old cells of i and its neighbours: every vertex of the
     * trial cell must belong (old diagram) to i or to a neighbour of i.
     * Larger moves are refused (the next sweep can continue them). */
    if (nci > 0) {
        const double *xo = L->x + 4 * (size_t)i;
        if (L->nbc[i] > 0) {
            for (int q = 0; q < L->nbc[i]; q++)
                ws->stamp[nb[q]] = sv;
        } else {
            /* empty cell: it may reappear inside its host and the host's neighbours */
            int h = ci[0];
            double bh = 1e300;
            for (int q = 0; q < nci; q++) {
                const double *sj = L->x + 4 * (size_t)ci[q];
                double dist_j = v3_dist2(xo, sj) - sj[3];
                if (dist_j < bh) {
                    bh = dist_j;
                    h = ci[q];
                }
            }
            ws->stamp[h] = sv;
            for (int q = 0; q < L->nbc[h]; q++)
                ws->stamp[L->nb[(size_t)h * NB_MAX + q]] = sv;
        }
        for (int a = 0; a < P->nv; a++) {
            const double *V = P->v[a];
            double best = v3_dist2(V, xo) - xo[3];
            int owner = i;
            for (int q = 0; q < nci; q++) {
                const double *sj = L->x + 4 * (size_t)ci[q];
                double dist_j = v3_dist2(V, sj) - sj[3];
                if (dist_j < best) {
                    best = dist_j;
                    owner = ci[q];
                }
            }
            if (owner != i && ws->stamp[owner] != sv) {
                ws->ov_i = -1;
                ws->ov_p = NULL;
                return 1e30;
            }
        }
        if (++ws->stampv == 0x7fffffff) {
            memset(ws->stamp, 0, (size_t)L->n * sizeof(int));
            ws->stampv = 1;
        }
        sv = ws->stampv;
        ws->stamp[i] = sv;
    }
    double d = L->cost(L->ctx, i, p, P, ws) - L->c[i];
    ws->cells++;
    /* affected: old neighbours and new neighbours */
    for (int q = 0; q < L->nbc[i]; q++)
        if (ws->stamp[nb[q]] != sv) {
            ws->stamp[nb[q]] = sv;
            ws->list[m++] = nb[q];
        }
    for (int f = 0; f < P->nf; f++) {
        int j = P->fid[f];
        if (j >= 0 && ws->stamp[j] != sv) {
            ws->stamp[j] = sv;
            ws->list[m++] = j;
        }
    }
    for (int a = 0; a < m; a++) {
        int k = ws->list[a];
        const int *ck = L->cand + L->cs[k];
        int nck = L->cs[k + 1] - L->cs[k];
        const cpoly *Pk = cached_cell(L, ws, k, i, p, &ws->work[2]);
        if (!Pk)
            Pk = cpoly_laguerre_cell(&ws->work[2], &ws->work[3], L->lo, L->hi, L->x, k, ck, nck, i, p);
        d += L->cost(L->ctx, k, L->x + 4 * (size_t)k, Pk, ws) - L->c[k];
        ws->cells++;
    }
    ws->ov_i = -1;
    ws->ov_p = NULL;
    return d;
}

typedef struct {
    lopt *L;
    lopt_ws *ws;
    int i;
    double x0[4], sc[4];
    double bestf, bestp[4];
    int nev;
} nm_ctx;

static double nm_f(const gsl_vector *y, void *par)
{
    nm_ctx *c = par;
    double p[4];
    for (int a = 0; a < 4; a++)
        p[a] = c->x0[a] + gsl_vector_get(y, a) * c->sc[a];
    for (int a = 0; a < 3; a++) { /* seeds stay strictly inside the box */
        double m = 1e-6 * (c->L->hi[a] - c->L->lo[a]);
        if (p[a] < c->L->lo[a] + m)
            p[a] = c->L->lo[a] + m;
        if (p[a] > c->L->hi[a] - m)
            p[a] = c->L->hi[a] - m;
    }
    double f = delta_eval(c->L, c->ws, c->i, p);
    c->nev++;
    if (f < c->bestf) {
        c->bestf = f;
        memcpy(c->bestp, p, sizeof c->bestp);
    }
    return f;
}

/* distance-2 greedy colouring; returns the number of colours */
static int colour(lopt *L)
{
    int n = L->n, ncol = 0;
    int *forb = calloc((size_t)n + 1, sizeof(int));
    if (!forb) {
        for (int k = 0; k < n; k++)
            L->color[k] = k; /* sequential fallback */
        return n;
    }
    for (int k = 0; k < n; k++)
        L->color[k] = -1;
    for (int k = 0; k < n; k++) {
        int sv = k + 1;
        if (L->nbc[k] == 0 && n > 1)
            continue; /* empty cells: batches of their own, below */
        for (int q = L->cs[k]; q < L->cs[k + 1]; q++) {
            int j = L->cand[q];
            if (L->color[j] >= 0)
                forb[L->color[j]] = sv;
        }
        int c = 0;
        while (forb[c] == sv)
            c++;
        L->color[k] = c;
        if (c + 1 > ncol)
            ncol = c + 1;
    }
    /* an empty cell's candidates (its host's rings) are not symmetric: it
     * moves alone */
    for (int k = 0; k < n; k++)
        if (L->color[k] < 0)
            L->color[k] = ncol++;
    free(forb);
    return ncol;
}

rve_status lopt_sweep(lopt *L, const double *step, const double *tstep, int max_evals,
                      double deadline, int *moved, rve_err *err)
{
    int n = L->n;
    rve_status st = build_candidates(L, err);
    if (st != RVE_OK)
        return st;
    int ncol = colour(L);
#ifdef LOPT_DEBUG_COLOURS
    fprintf(stderr, "colours %d for %d seeds\n", ncol, n);
#endif
    int *batch = malloc((size_t)n * sizeof(int));
    int *bs = calloc((size_t)ncol + 1, sizeof(int));
    if (!batch || !bs) {
        free(batch);
        free(bs);
        return rve_err_set(err, RVE_ENOMEM, NULL, "out of memory");
    }
    for (int k = 0; k < n; k++)
        bs[L->color[k] + 1]++;
    for (int c = 0; c < ncol; c++)
        bs[c + 1] += bs[c];
    {
        int *pos = malloc((size_t)ncol * sizeof(int));
        if (!pos) {
            free(batch);
            free(bs);
            return rve_err_set(err, RVE_ENOMEM, NULL, "out of memory");
        }
        memcpy(pos, bs, (size_t)ncol * sizeof(int));
        for (int k = 0; k < n; k++)
            batch[pos[L->color[k]]++] = k;
        free(pos);
        /* longest searches first in each batch: the batch ends at a barrier,
         * and a long search started last leaves the other threads idle */
        tsort_t *ts = malloc((size_t)n * sizeof *ts);
        if (ts) {
            for (int c = 0; c < ncol; c++) {
                int len = bs[c + 1] - bs[c];
                for (int b = 0; b < len; b++) {
                    ts[b].i = batch[bs[c] + b];
                    ts[b].t = L->tsearch[ts[b].i];
                }
                qsort(ts, (size_t)len, sizeof *ts, cmp_tdesc);
                for (int b = 0; b < len; b++)
                    batch[bs[c] + b] = ts[b].i;
            }
            free(ts);
        }
    }
    int nmoved = 0;
    st = RVE_OK;
    gsl_error_handler_t *old = gsl_set_error_handler_off();
    for (int c = 0; c < ncol; c++) {
        if (deadline > 0 && now_s() > deadline) {
            st = RVE_ECAP;
            break;
        }
        int b0 = bs[c], b1 = bs[c + 1];
#pragma omp parallel num_threads(L->nthreads)
        {
            lopt_ws *ws = &L->ws[thread_id()];
            gsl_multimin_fminimizer *M = gsl_multimin_fminimizer_alloc(gsl_multimin_fminimizer_nmsimplex2, 4);
            gsl_vector *y = gsl_vector_alloc(4), *ss = gsl_vector_alloc(4);
#pragma omp for schedule(dynamic, 1)
            for (int b = b0; b < b1; b++) {
                int i = batch[b];
                L->bestd[i] = 0;
                if (!M || !y || !ss)
                    continue;
                if (can_skip(L, i)) {
#pragma omp atomic update
                    L->skipped++;
                    continue;
                }
                double ts0 = now_s();
                nm_ctx cx;
                cx.L = L;
                cx.ws = ws;
                cx.i = i;
                memcpy(cx.x0, L->x + 4 * (size_t)i, sizeof cx.x0);
                cx.sc[0] = cx.sc[1] = cx.sc[2] = step[i];
                cx.sc[3] = tstep[i];
                cx.bestf = 0;
                memcpy(cx.bestp, cx.x0, sizeof cx.bestp);
                cx.nev = 0;
                prepare_cache(L, ws, i);
                gsl_multimin_function fn = {nm_f, 4, &cx};
                gsl_vector_set_zero(y);
                gsl_vector_set_all(ss, 1.0);
                if (gsl_multimin_fminimizer_set(M, &fn, y, ss) == GSL_SUCCESS) {
                    for (int it = 0; it < 10 * max_evals && cx.nev < max_evals; it++) {
                        if (gsl_multimin_fminimizer_iterate(M) != GSL_SUCCESS)
                            break;
                        if (gsl_multimin_fminimizer_size(M) < 1e-3)
                            break;
                    }
                }
                ws->cache_i = -1;
                /* accept only a real improvement */
                double scale = 1e-12 * (1.0 + fabs(L->c[i]));
                if (cx.bestf < -scale) {
                    L->bestd[i] = cx.bestf;
                    memcpy(L->best + 4 * (size_t)i, cx.bestp, sizeof cx.bestp);
                }
                L->fruitless[i] = !(cx.bestf < -scale);
                L->searched[i] = L->tick;
                L->sgen[i] = L->gen;
                L->tsearch[i] = now_s() - ts0;
            }
            gsl_multimin_fminimizer_free(M);
            gsl_vector_free(y);
            gsl_vector_free(ss);
        }
        /* commit and recompute the affected cells */
        int m = 0;
        lopt_ws *w0 = &L->ws[0];
        if (++w0->stampv == 0x7fffffff) {
            memset(w0->stamp, 0, (size_t)n * sizeof(int));
            w0->stampv = 1;
        }
        int sv = w0->stampv;
        int *aff = malloc((size_t)n * sizeof(int));
        if (!aff) {
            st = rve_err_set(err, RVE_ENOMEM, NULL, "out of memory");
            break;
        }
        for (int b = b0; b < b1; b++) {
            int i = batch[b];
            if (L->bestd[i] >= 0)
                continue;
            nmoved++;
#ifdef LOPT_DEBUG
            {
                const double *a = L->x + 4 * (size_t)i, *bb = L->best + 4 * (size_t)i;
                fprintf(stderr, "  move %d (nbc %d, ncand %d): %.3f %.3f %.3f %.3f -> %.3f %.3f %.3f %.3f delta %g\n", i,
                        L->nbc[i], L->cs[i + 1] - L->cs[i], a[0], a[1], a[2], a[3], bb[0], bb[1], bb[2], bb[3], L->bestd[i]);
            }
#endif
            memcpy(L->x + 4 * (size_t)i, L->best + 4 * (size_t)i, 4 * sizeof(double));
            if (w0->stamp[i] != sv) {
                w0->stamp[i] = sv;
                aff[m++] = i;
            }
            for (int q = 0; q < L->nbc[i]; q++) {
                int j = L->nb[(size_t)i * NB_MAX + q];
                if (w0->stamp[j] != sv) {
                    w0->stamp[j] = sv;
                    aff[m++] = j;
                }
            }
        }
        /* cell i first (its new neighbours join the affected set) */
        for (int a = 0; a < m; a++) {
            int k = aff[a];
            if (L->bestd[k] >= 0 || L->color[k] != c)
                continue;
            const cpoly *P = lopt_cell(L, k, &w0->work[0], &w0->work[1]);
            for (int f = 0; f < P->nf; f++) {
                int j = P->fid[f];
                if (j >= 0 && w0->stamp[j] != sv) {
                    w0->stamp[j] = sv;
                    aff[m++] = j;
                }
            }
        }
#pragma omp parallel for num_threads(L->nthreads) schedule(dynamic, 2)
        for (int a = 0; a < m; a++) {
            int k = aff[a];
            lopt_ws *ws = &L->ws[thread_id()];
            const cpoly *P = lopt_cell(L, k, &ws->work[0], &ws->work[1]);
            set_neighbours(L, k, P);
            ws->commit = 1;
            L->c[k] = L->cost(L->ctx, k, L->x + 4 * (size_t)k, P, ws);
            ws->commit = 0;
            L->touched[k] = L->tick;
        }
        L->tick++;
        free(aff);
        symmetrise(L);
#ifdef LOPT_DEBUG
        {
            double inc = lopt_total(L), ex = 0;
            double *scr = malloc((size_t)(n + 1) * 2 * sizeof(double));
            for (int k = 0; k < n; k++) {
                const cpoly *P = lopt_full_cell(n, L->x, L->lo, L->hi, k, &w0->work[0], &w0->work[1], NULL, scr);
                double ck = L->cost(L->ctx, k, L->x + 4 * (size_t)k, P, w0);
                if (fabs(ck - L->c[k]) > 1e-6 * (1 + fabs(ck)))
                    fprintf(stderr, "  cell %d cached %g exact %g (nv %d, nbc %d)\n", k, L->c[k], ck, P->nv, L->nbc[k]);
                ex += ck;
            }
            free(scr);
            double pred = 0;
            for (int b = b0; b < b1; b++)
                if (L->bestd[batch[b]] < 0)
                    pred += L->bestd[batch[b]];
            fprintf(stderr, "batch %d: incremental %.6f exact %.6f predicted delta %.6f\n", c, inc, ex, pred);
        }
#endif
    }
    gsl_set_error_handler(old);
    free(batch);
    free(bs);
    if (moved)
        *moved = nmoved;
    return st;
}
