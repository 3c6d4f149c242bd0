/* fit_quality.c - exact voxel accuracy of seeds and weights (see fit_int.h). */
#include "config.h"
#include "optim/fit_int.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------- quality */
rve_status rve_fit_quality(const rve_map *m, int n, const double *seed, const double *weight,
                           double *accuracy, double *iou_min, double *iou_median, int *empty,
                           int32_t *assign, rve_err *err)
{
    rve_status st = fit_check_map(m, err);
    if (st != RVE_OK)
        return st;
    size_t nvox = (size_t)m->nx * m->ny * m->nz;
    /* labels of the cells: the grains in increasing order */
    uint32_t maxl = 0;
    for (size_t v = 0; v < nvox; v++)
        if (m->lab[v] > maxl)
            maxl = m->lab[v];
    if (maxl > (1u << 28))
        return rve_err_set(err, RVE_EDATA, NULL, "labels above 2^28 are not supported");
    int32_t *cell_of = malloc(((size_t)maxl + 1) * sizeof(int32_t));
    char *present = calloc((size_t)maxl + 1, 1);
    double *sw = malloc((size_t)(n > 0 ? n : 1) * 4 * sizeof(double));
    rve_map *r = rve_map_alloc(m->nx, m->ny, m->nz);
    if (!cell_of || !present || !sw || !r) {
        free(cell_of);
        free(present);
        free(sw);
        rve_map_free(r);
        return rve_err_set(err, RVE_ENOMEM, NULL, "out of memory");
    }
    for (size_t v = 0; v < nvox; v++)
        present[m->lab[v]] = 1;
    int c = 0;
    for (uint32_t l = 1; l <= maxl; l++)
        cell_of[l] = present[l] ? c++ : -1;
    cell_of[0] = -1;
    free(present);
    if (c != n) {
        free(cell_of);
        free(sw);
        rve_map_free(r);
        return rve_err_set(err, RVE_EUSAGE, NULL, "%d seeds for %d grains", n, c);
    }
    for (int k = 0; k < n; k++) {
        memcpy(sw + 4 * k, seed + 3 * k, 3 * sizeof(double));
        sw[4 * k + 3] = weight[k];
    }
    for (int a = 0; a < 3; a++) {
        r->h[a] = m->h[a];
        r->origin[a] = m->origin[a];
    }
    st = rve_tess_rasterize_seeds(sw, n, NULL, r, err); /* lab = cell + 1 */
    free(sw);
    if (st != RVE_OK) {
        free(cell_of);
        rve_map_free(r);
        return st;
    }
    size_t *inter = calloc((size_t)n, sizeof(size_t));
    size_t *ng = calloc((size_t)n, sizeof(size_t));
    size_t *nc = calloc((size_t)n, sizeof(size_t));
    if (!inter || !ng || !nc) {
        free(inter);
        free(ng);
        free(nc);
        free(cell_of);
        rve_map_free(r);
        return rve_err_set(err, RVE_ENOMEM, NULL, "out of memory");
    }
    size_t good = 0, tot = 0;
    for (size_t v = 0; v < nvox; v++) {
        int a = (int)r->lab[v] - 1;
        if (assign)
            assign[v] = a;
        uint32_t l = m->lab[v];
        if (!l)
            continue;
        int g = cell_of[l];
        tot++;
        ng[g]++;
        nc[a]++;
        if (a == g) {
            good++;
            inter[g]++;
        }
    }
    double *iou = malloc((size_t)n * sizeof(double));
    int ne = 0;
    for (int k = 0; k < n; k++) {
        size_t u = ng[k] + nc[k] - inter[k];
        if (iou)
            iou[k] = u ? (double)inter[k] / (double)u : 0;
        if (nc[k] == 0)
            ne++;
    }
    if (accuracy)
        *accuracy = tot ? (double)good / (double)tot : 0;
    if (empty)
        *empty = ne;
    if (iou) {
        double mn = 1;
        for (int k = 0; k < n; k++)
            if (iou[k] < mn)
                mn = iou[k];
        /* median */
        for (int a = 1; a < n; a++) {
            double t = iou[a];
            int b = a - 1;
            while (b >= 0 && iou[b] > t) {
                iou[b + 1] = iou[b];
                b--;
            }
            iou[b + 1] = t;
        }
        if (iou_min)
            *iou_min = n ? mn : 0;
        if (iou_median)
            *iou_median = n ? (n % 2 ? iou[n / 2] : 0.5 * (iou[n / 2 - 1] + iou[n / 2])) : 0;
    }
    free(iou);
    free(inter);
    free(ng);
    free(nc);
    free(cell_of);
    rve_map_free(r);
    return RVE_OK;
}

