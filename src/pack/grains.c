/* Grains of a voxel map as pack bodies: convex hulls of their voxels, or a
 * convex decomposition by recursive principal-axis splits (compound bodies
 * of rve/dist.h). */
#include "config.h"
#include <rve/pack.h>
#include <rve/raster.h>
#include <rve/dist.h>
#include "pack/pack_internal.h"
#include "util/vec3.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void rve_pack_grain_opts_init(rve_pack_grain_opts *o)
{
    memset(o, 0, sizeof *o);
    o->tol = 0.25;
    o->max_depth = 5;
    o->min_voxels = 27;
    o->min_part = 8;
}

typedef struct {
    const rve_map *m;
    const rve_pack_grain_opts *o;
    rve_err *err;
    /* pieces of the grain being built: corner points of each, in map coordinates */
    double **pv;
    int *pn;
    int np, capp;
} gctx;

/* Corner points of the voxels of a part that touch its outside (the hull
 * of the part's cubes has only those as vertices), without repeats. */
static rve_status part_corners(const gctx *g, const int *vox, long n, double **out, int *nout)
{
    int lo[3] = {vox[0], vox[1], vox[2]}, hi[3] = {vox[0], vox[1], vox[2]};
    for (long v = 0; v < n; v++)
        for (int k = 0; k < 3; k++) {
            lo[k] = vox[3 * v + k] < lo[k] ? vox[3 * v + k] : lo[k];
            hi[k] = vox[3 * v + k] > hi[k] ? vox[3 * v + k] : hi[k];
        }
    long d[3] = {hi[0] - lo[0] + 3, hi[1] - lo[1] + 3, hi[2] - lo[2] + 3}; /* one-voxel frame */
    unsigned char *occ = calloc((size_t)(d[0] * d[1] * d[2]), 1);
    unsigned char *mark = calloc((size_t)(d[0] * d[1] * d[2]), 1); /* corners (i,j,k) of voxel (i,j,k) */
    if (!occ || !mark) {
        free(occ);
        free(mark);
        return rve_err_set(g->err, RVE_ENOMEM, NULL, "out of memory");
    }
#define AT(i, j, k) (((long)(k) * d[1] + (j)) * d[0] + (i))
    for (long v = 0; v < n; v++)
        occ[AT(vox[3 * v] - lo[0] + 1, vox[3 * v + 1] - lo[1] + 1, vox[3 * v + 2] - lo[2] + 1)] = 1;
    long cnt = 0;
    for (long v = 0; v < n; v++) {
        int i = vox[3 * v] - lo[0] + 1, j = vox[3 * v + 1] - lo[1] + 1, k = vox[3 * v + 2] - lo[2] + 1;
        if (occ[AT(i - 1, j, k)] && occ[AT(i + 1, j, k)] && occ[AT(i, j - 1, k)] && occ[AT(i, j + 1, k)] &&
            occ[AT(i, j, k - 1)] && occ[AT(i, j, k + 1)])
            continue; /* interior voxel: its corners are not hull vertices */
        for (int c = 0; c < 8; c++) {
            long id = AT(i + (c & 1), j + ((c >> 1) & 1), k + ((c >> 2) & 1));
            if (!mark[id]) {
                mark[id] = 1;
                cnt++;
            }
        }
    }
    double *p = malloc(sizeof(double) * 3 * (size_t)cnt + 1);
    if (!p) {
        free(occ);
        free(mark);
        return rve_err_set(g->err, RVE_ENOMEM, NULL, "out of memory");
    }
    long q = 0;
    for (long k = 0; k < d[2]; k++)
        for (long j = 0; j < d[1]; j++)
            for (long i = 0; i < d[0]; i++)
                if (mark[AT(i, j, k)]) {
                    /* corner of voxel (i,j,k) of the frame: map voxel i + lo - 1 */
                    long ijk[3] = {i + lo[0] - 1, j + lo[1] - 1, k + lo[2] - 1};
                    for (int a = 0; a < 3; a++)
                        p[3 * q + a] = g->m->origin[a] + (double)ijk[a] * g->m->h[a];
                    q++;
                }
#undef AT
    free(occ);
    free(mark);
    *out = p;
    *nout = (int)cnt;
    return RVE_OK;
}

/* Principal axis of the voxel centres (power iteration, 64 steps). */
static void principal_axis(const int *vox, long n, double mean[3], double ax[3])
{
    double c[3][3] = {{0}};
    v3_set(mean, 0, 0, 0);
    for (long v = 0; v < n; v++)
        for (int k = 0; k < 3; k++)
            mean[k] += vox[3 * v + k] / (double)n;
    for (long v = 0; v < n; v++) {
        double e[3] = {vox[3 * v] - mean[0], vox[3 * v + 1] - mean[1], vox[3 * v + 2] - mean[2]};
        for (int a = 0; a < 3; a++)
            for (int b = 0; b < 3; b++)
                c[a][b] += e[a] * e[b];
    }
    int best = c[1][1] > c[0][0] ? 1 : 0;
    best = c[2][2] > c[best][best] ? 2 : best;
    v3_set(ax, 0.1, 0.2, 0.3);
    ax[best] = 1;
    for (int it = 0; it < 64; it++) {
        double y[3];
        for (int a = 0; a < 3; a++)
            y[a] = c[a][0] * ax[0] + c[a][1] * ax[1] + c[a][2] * ax[2];
        if (v3_normalize(y) <= 0)
            break;
        v3_copy(ax, y);
    }
}

static rve_status add_piece(gctx *g, double *p, int n)
{
    if (g->np == g->capp) {
        int c = g->capp ? 2 * g->capp : 16;
        double **a = realloc(g->pv, sizeof(double *) * c);
        int *b = a ? realloc(g->pn, sizeof(int) * c) : NULL;
        if (a)
            g->pv = a;
        if (!b)
            return rve_err_set(g->err, RVE_ENOMEM, NULL, "out of memory");
        g->pn = b;
        g->capp = c;
    }
    g->pv[g->np] = p;
    g->pn[g->np++] = n;
    return RVE_OK;
}

/* Split a part until its hull is within tol of its voxel volume (depth
 * bounded by max_depth). */
static rve_status decompose(gctx *g, int *vox, long n, int depth)
{
    double *p = NULL;
    int np = 0;
    rve_status st = part_corners(g, vox, n, &p, &np);
    if (st != RVE_OK)
        return st;
    double vv = n * g->m->h[0] * g->m->h[1] * g->m->h[2];
    int leaf = g->o->hull || depth >= g->o->max_depth || n < g->o->min_part;
    if (!leaf) {
        rve_polyhedron *P = NULL;
        rve_err e;
        if (rve_polyhedron_alloc(&P, p, (size_t)np, &e) != RVE_OK)
            leaf = 1; /* flat part (one voxel thick is still 3D: should not happen) */
        else
            leaf = P->volume <= (1 + g->o->tol) * vv;
        rve_polyhedron_free(P);
    }
    if (!leaf) {
        double mean[3], ax[3];
        principal_axis(vox, n, mean, ax);
        long a = 0, b = n - 1;
        /* partition: voxels below the mean along the axis first */
        while (a <= b) {
            double t = (vox[3 * a] - mean[0]) * ax[0] + (vox[3 * a + 1] - mean[1]) * ax[1] +
                       (vox[3 * a + 2] - mean[2]) * ax[2];
            if (t < 0)
                a++;
            else {
                for (int k = 0; k < 3; k++) {
                    int x = vox[3 * a + k];
                    vox[3 * a + k] = vox[3 * b + k];
                    vox[3 * b + k] = x;
                }
                b--;
            }
        }
        if (a > 0 && a < n) {
            free(p);
            st = decompose(g, vox, a, depth + 1);
            if (st == RVE_OK)
                st = decompose(g, vox + 3 * a, n - a, depth + 1);
            return st;
        }
    }
    st = add_piece(g, p, np);
    if (st != RVE_OK)
        free(p);
    return st;
}

/* Volume of the union of the pieces: samples at the centres of a grid of
 * step hs over the box of the pieces (grains: 2x2x2 per voxel), each tested
 * against the face planes of every piece. */
static double union_volume(const double hs[3], rve_polyhedron *const *P, int np)
{
    double lo[3] = {INFINITY, INFINITY, INFINITY}, hi[3] = {-INFINITY, -INFINITY, -INFINITY};
    for (int k = 0; k < np; k++)
        for (size_t i = 0; i < P[k]->nv; i++)
            for (int a = 0; a < 3; a++) {
                lo[a] = fmin(lo[a], P[k]->v[3 * i + a]);
                hi[a] = fmax(hi[a], P[k]->v[3 * i + a]);
            }
    long ns[3];
    for (int a = 0; a < 3; a++)
        ns[a] = (long)ceil((hi[a] - lo[a]) / hs[a] - 1e-9);
    long inside = 0;
    for (long k = 0; k < ns[2]; k++)
        for (long j = 0; j < ns[1]; j++)
            for (long i = 0; i < ns[0]; i++) {
                double x[3] = {lo[0] + (i + 0.5) * hs[0], lo[1] + (j + 0.5) * hs[1], lo[2] + (k + 0.5) * hs[2]};
                int in = 0;
                for (int q = 0; q < np && !in; q++) {
                    in = 1;
                    for (size_t f = 0; f < P[q]->nf && in; f++)
                        in = v3_dot(P[q]->plane + 4 * f, x) <= P[q]->plane[4 * f + 3];
                }
                inside += in;
            }
    return inside * hs[0] * hs[1] * hs[2];
}

rve_status pack_body_compound(rve_pack_body *b, int np, double **pv, const int *pn, const double hs[3],
                              rve_err *err)
{
    if (np == 1)
        return rve_pack_body_poly(b, pn[0], pv[0], err);
    rve_polyhedron **P = NULL;
    rve_shape *sh = NULL;
    /* the hull of every piece vertex: the body frame (its centroid) and the
     * bounding hull of the compound */
    long tot = 0;
    for (int k = 0; k < np; k++)
        tot += pn[k];
    double *all = calloc(3 * (size_t)tot + 1, sizeof(double));
    P = calloc((size_t)np, sizeof *P);
    sh = malloc(sizeof *sh * (size_t)np);
    rve_status st = RVE_OK;
    if (!all || !P || !sh) {
        st = rve_err_set(err, RVE_ENOMEM, NULL, "out of memory");
        goto done;
    }
    tot = 0;
    for (int k = 0; k < np; k++) {
        memcpy(all + 3 * tot, pv[k], sizeof(double) * 3 * (size_t)pn[k]);
        tot += pn[k];
    }
    if ((st = rve_pack_body_poly(b, (int)tot, all, err)) != RVE_OK)
        goto done;
    double c[3];
    v3_copy(c, b->x);
    for (int k = 0; k < np; k++) {
        for (int i = 0; i < pn[k]; i++)
            v3_sub(pv[k] + 3 * i, pv[k] + 3 * i, c);
        if ((st = rve_polyhedron_alloc(&P[k], pv[k], (size_t)pn[k], err)) != RVE_OK)
            goto done;
        /* the piece as its hull vertices (fewer than the corners) */
        rve_shape_polytope(&sh[k], P[k]->v, (int)P[k]->nv, NULL);
    }
    b->shape = RVE_PACK_COMPOUND;
    b->pieces = calloc(1, sizeof *b->pieces);
    if (!b->pieces) {
        st = rve_err_set(err, RVE_ENOMEM, NULL, "out of memory");
        goto done;
    }
    b->pieces->refs = 1;
    if ((st = rve_compound_build(sh, (size_t)np, &b->pieces->cmp, err)) != RVE_OK)
        goto done;
    b->volume = union_volume(hs, P, np);
done:
    if (P)
        for (int k = 0; k < np; k++)
            rve_polyhedron_free(P[k]);
    free(P);
    free(sh);
    free(all);
    if (st != RVE_OK)
        rve_pack_body_free(b);
    return st;
}

/* One grain from its voxels (vox is reordered). */
static rve_status grain_body(gctx *g, int *vox, long n, rve_pack_body *b, rve_pack_grain_info *info)
{
    g->np = 0;
    rve_status st = decompose(g, vox, n, 0);
    if (st == RVE_OK) {
        double hs[3] = {0.5 * g->m->h[0], 0.5 * g->m->h[1], 0.5 * g->m->h[2]};
        st = pack_body_compound(b, g->np, g->pv, g->pn, hs, g->err);
    }
    info->vvox = n * g->m->h[0] * g->m->h[1] * g->m->h[2];
    info->pieces = g->np;
    info->volume = b->volume;
    for (int k = 0; k < g->np; k++)
        free(g->pv[k]);
    g->np = 0;
    info->voxels = n;
    info->verr = info->vvox > 0 ? info->volume / info->vvox - 1 : 0;
    return st;
}

rve_status rve_pack_grains_from_map(const rve_map *m, const rve_pack_grain_opts *o, rve_pack_body **bodies,
                                    rve_pack_grain_info **info, size_t *n, rve_err *err)
{
    rve_pack_grain_opts oo;
    rve_pack_grain_opts_init(&oo);
    if (o)
        oo = *o;
    if (!(oo.tol > 0) || !isfinite(oo.tol) || oo.max_depth < 0 || oo.max_depth > 12 || oo.min_voxels < 1 ||
        oo.min_part < 1)
        return rve_err_set(err, RVE_EUSAGE, NULL,
                           "grain options: tol > 0, max_depth 0 to 12, min_voxels and min_part >= 1");
    rve_pack_body *bl = NULL;
    rve_pack_grain_info *il = NULL;
    size_t nb = 0;
    size_t nl = (size_t)m->nlabels + 1, nvox = rve_map_nvox(m);
    long *cnt = calloc(nl + 1, sizeof(long));
    int *vox = malloc(sizeof(int) * 3 * nvox + 1);
    long *pos = malloc(sizeof(long) * (nl + 1));
    rve_status st = RVE_OK;
    if (!cnt || !vox || !pos) {
        st = rve_err_set(err, RVE_ENOMEM, NULL, "out of memory");
        goto done;
    }
    for (size_t v = 0; v < nvox; v++)
        cnt[m->lab[v] + 1]++;
    for (size_t l = 0; l < nl; l++)
        cnt[l + 1] += cnt[l];
    memcpy(pos, cnt, sizeof(long) * (nl + 1));
    for (int k = 0; k < m->nz; k++)
        for (int j = 0; j < m->ny; j++)
            for (int i = 0; i < m->nx; i++) {
                long at = pos[m->lab[rve_map_index(m, i, j, k)]]++;
                vox[3 * at] = i;
                vox[3 * at + 1] = j;
                vox[3 * at + 2] = k;
            }
    size_t ng = 0;
    for (size_t l = 1; l < nl; l++)
        ng += cnt[l + 1] - cnt[l] >= oo.min_voxels;
    bl = calloc(ng + 1, sizeof *bl);
    il = calloc(ng + 1, sizeof *il);
    if (!bl || !il) {
        st = rve_err_set(err, RVE_ENOMEM, NULL, "out of memory");
        goto done;
    }
    gctx g = {m, &oo, err, NULL, NULL, 0, 0};
    for (size_t l = 1; l < nl && st == RVE_OK; l++) {
        long nv = cnt[l + 1] - cnt[l];
        if (nv < oo.min_voxels)
            continue;
        il[nb].label = (uint32_t)l;
        st = grain_body(&g, vox + 3 * cnt[l], nv, &bl[nb], &il[nb]);
        bl[nb].grain = rve_map_id(m, (uint32_t)l);
        if (st == RVE_OK && m->ori && m->ori_n > 0) /* the crystal travels with the grain */
            bl[nb].has_ori = (st = rve_map_grain_quat(m, (uint32_t)l, bl[nb].ori, err)) == RVE_OK;
        if (st != RVE_OK && err) {
            char msg[sizeof err->msg];
            snprintf(msg, sizeof msg, "%s", err->msg);
            rve_err_set(err, st, NULL, "grain %u: %s", (unsigned)rve_map_id(m, (uint32_t)l), msg);
        }
        nb++;
    }
    free(g.pv);
    free(g.pn);
done:
    if (st != RVE_OK) {
        for (size_t i = 0; bl && i < nb; i++)
            rve_pack_body_free(&bl[i]);
        free(bl);
        free(il);
    } else {
        *bodies = bl;
        *info = il;
        *n = nb;
    }
    free(cnt);
    free(vox);
    free(pos);
    return st;
}
