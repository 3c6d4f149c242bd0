/* lopt_graph.c - neighbour graph and candidate lists (see lopt_int.h). */
#include "config.h"
#ifdef _OPENMP
#include <omp.h>
#endif
#include "optim/lopt_int.h"
#include "util/vec3.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void lopt_set_neighbours(lopt *L, int k, const cpoly *P)
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
void lopt_symmetrise(lopt *L)
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
rve_status lopt_build_candidates(lopt *L, rve_err *err)
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

