/* polish_voxels.c - exact, incremental voxel accounting of the polish: the
 * voxels a trial move can change, their new cells by winding numbers, and
 * the initial raster of the complex (see polish.c). */
#include "config.h"
#include "mesh/polish_state.h"
#include "util/vec3.h"
#include <limits.h>
#ifdef _OPENMP
#include <omp.h>
#endif
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>


/* ---------------------------------------------------------------- voxels */
static int star_slot(const pol *P, int k)
{
    for (int q = 0; q < P->nstar; q++)
        if (P->star[q] == k)
            return q;
    return -1;
}

static int cand_push(pol *P, size_t idx)
{
    if (P->ncand == P->capcand) {
        size_t cap = 2 * P->capcand + 256;
        size_t *a = realloc(P->cand, cap * sizeof *a);
        if (!a)
            return -1;
        P->cand = a;
        int32_t *b = realloc(P->cnew, cap * sizeof *b);
        if (!b)
            return -1;
        P->cnew = b;
        P->capcand = cap;
    }
    P->cand[P->ncand++] = idx;
    return 0;
}

static double det3(const double a[3], const double b[3], const double c[3])
{
    double x[3];
    v3_cross(x, b, c);
    return v3_dot(a, x);
}

static size_t seen_slot(const pol *P, size_t idx)
{
    return (size_t)(((uint64_t)idx * 0x9E3779B97F4A7C15ULL) >> 20) & (P->seen_cap - 1);
}

/* 1 if voxel idx was met already in this trial, else records it and returns
 * 0; -1 when out of memory. */
static int seen_insert(pol *P, size_t idx)
{
    if (2 * (P->seen_n + 1) > P->seen_cap) {
        size_t cap = P->seen_cap ? 2 * P->seen_cap : 1024;
        struct seen_ent *old = P->seen, *t = calloc(cap, sizeof *t);
        if (!t)
            return -1;
        size_t ocap = P->seen_cap;
        P->seen = t;
        P->seen_cap = cap;
        for (size_t i = 0; i < ocap; i++)
            if (old[i].gen == P->gen) {
                size_t h = seen_slot(P, old[i].idx);
                while (t[h].gen == P->gen)
                    h = (h + 1) & (cap - 1);
                t[h] = old[i];
            }
        free(old);
    }
    size_t h = seen_slot(P, idx);
    while (P->seen[h].gen == P->gen) {
        if (P->seen[h].idx == idx)
            return 1;
        h = (h + 1) & (P->seen_cap - 1);
    }
    P->seen[h].idx = idx;
    P->seen[h].gen = P->gen;
    P->seen_n++;
    return 0;
}

/* Voxels inside the tetrahedron (a, b, c, d) whose cell is around v join the
 * candidates.  Each row of voxels meets the tetrahedron in one interval,
 * cut out by its four face planes; the margin is generous since a spare
 * candidate costs time, never correctness. */
static int tet_candidates(pol *P, const double *a, const double *b, const double *c, const double *d)
{
    const rve_map *m = P->map;
    const double *pts[4] = {a, b, c, d};
    double e1[3], e2[3], e3[3];
    v3_sub(e1, b, a);
    v3_sub(e2, c, a);
    v3_sub(e3, d, a);
    double vol = det3(e1, e2, e3);
    double scale = v3_norm(e1) * v3_norm(e2) * v3_norm(e3);
    if (!(fabs(vol) > 1e-12 * scale))
        return 0; /* flat sweep: only centres exactly on the plane, measure zero */
    /* inward unit normals n_i and offsets: inside iff n_i . x >= o_i - tol */
    double n[4][3], o[4], diag = 0;
    for (int i = 0; i < 4; i++) {
        const double *p = pts[(i + 1) % 4], *q = pts[(i + 2) % 4], *r = pts[(i + 3) % 4];
        double u[3], w[3], t[3];
        v3_sub(u, q, p);
        v3_sub(w, r, p);
        v3_cross(n[i], u, w);
        v3_sub(t, pts[i], p);
        if (v3_dot(n[i], t) < 0)
            v3_scale(n[i], n[i], -1);
        v3_normalize(n[i]);
        o[i] = v3_dot(n[i], p);
        diag = fmax(diag, v3_norm(u));
    }
    double tol = 1e-7 * diag + 1e-9 * m->h[0];
    int i0[3], i1[3];
    double lo[3], hi[3];
    for (int k = 0; k < 3; k++) {
        lo[k] = INFINITY;
        hi[k] = -INFINITY;
        for (int q = 0; q < 4; q++) {
            lo[k] = fmin(lo[k], pts[q][k] - tol);
            hi[k] = fmax(hi[k], pts[q][k] + tol);
        }
    }
    rve_map_box_voxels(m, lo, hi, i0, i1);
    /* rows along the axis that leaves the fewest rows (thin sweeps lie
     * across few rows of their long axis) */
    int r = 0;
    double best = INFINITY;
    for (int ax = 0; ax < 3; ax++) {
        double rows = (double)(i1[(ax + 1) % 3] - i0[(ax + 1) % 3] + 1) *
                      (double)(i1[(ax + 2) % 3] - i0[(ax + 2) % 3] + 1);
        if (rows < best) {
            best = rows;
            r = ax;
        }
    }
    int p = (r + 1) % 3, q = (r + 2) % 3, ijk[3];
    for (ijk[q] = i0[q]; ijk[q] <= i1[q]; ijk[q]++)
        for (ijk[p] = i0[p]; ijk[p] <= i1[p]; ijk[p]++) {
            double xp = m->origin[p] + (ijk[p] + 0.5) * m->h[p];
            double xq = m->origin[q] + (ijk[q] + 0.5) * m->h[q];
            double rlo = -INFINITY, rhi = INFINITY;
            for (int i = 0; i < 4 && rlo <= rhi; i++) {
                double rest = o[i] - tol - n[i][p] * xp - n[i][q] * xq; /* need n_r x_r >= rest */
                if (n[i][r] > 0)
                    rlo = fmax(rlo, rest / n[i][r]);
                else if (n[i][r] < 0)
                    rhi = fmin(rhi, rest / n[i][r]);
                else if (rest > 0)
                    rlo = INFINITY;
            }
            if (!(rlo <= rhi))
                continue;
            int ia = (int)fmax(i0[r], ceil((rlo - m->origin[r]) / m->h[r] - 0.5));
            int ib = (int)fmin(i1[r], floor((rhi - m->origin[r]) / m->h[r] - 0.5));
            for (ijk[r] = ia; ijk[r] <= ib; ijk[r]++) {
                size_t idx = rve_map_index(m, ijk[0], ijk[1], ijk[2]);
                if (P->cur[idx] < 0)
                    continue;
                int met = seen_insert(P, idx);
                if (met < 0)
                    return -1;
                if (met)
                    continue;
                if (star_slot(P, P->cur[idx]) < 0)
                    continue;
                if (cand_push(P, idx))
                    return -1;
            }
        }
    return 0;
}

static void next_tick(pol *P)
{
    P->seen_n = 0;
    if (++P->gen == 0) {
        if (P->seen)
            memset(P->seen, 0, P->seen_cap * sizeof *P->seen);
        P->gen = 1;
    }
}

/* the rays' direction, unlikely to run along the faces of grids or lattices */
static const double ray_dir[3] = {0.5377380816, 0.3145192436, 0.7822325495};

/* Signed crossing of the ray x + s d (s > 0) with triangle (a, b, c):
 * +1 leaving through its right-hand side, -1 entering, 0 missing; 2 when the
 * ray grazes an edge or x lies on the triangle (then solid angles decide). */
static int ray_cross(const double x[3], const double d[3], const double a[3], const double b[3],
                     const double c[3])
{
    double e1[3], e2[3], pv[3], tv[3], qv[3];
    v3_sub(e1, b, a);
    v3_sub(e2, c, a);
    v3_cross(pv, d, e2);
    double det = v3_dot(e1, pv);
    double scale = v3_norm(e1) * v3_norm(e2);
    if (fabs(det) <= 1e-12 * scale)
        return 0; /* parallel: a ray in the triangle's plane is a grazing case handled below */
    double inv = 1 / det;
    v3_sub(tv, x, a);
    double u = v3_dot(tv, pv) * inv;
    if (u < -1e-9 || u > 1 + 1e-9)
        return 0;
    v3_cross(qv, tv, e1);
    double v = v3_dot(d, qv) * inv, t = v3_dot(e2, qv) * inv;
    if (v < -1e-9 || u + v > 1 + 1e-9 || t < -1e-9 * sqrt(scale))
        return 0;
    if (u < 1e-9 || v < 1e-9 || u + v > 1 - 1e-9 || t < 1e-9 * sqrt(scale))
        return 2;
    return det < 0 ? 1 : -1; /* det = -d . (e1 x e2) */
}

/* New cell of the centre x (now in cell old, a cell of the star) after the
 * move: the winding numbers of the star cells change only through the
 * moving triangles, by their signed ray crossings after minus before (an
 * integer), or, when the ray grazes one of them, their solid angles. */
static int winding_change(const pol *P, const double x[3], int slot[][2], int old)
{
    const rve_cx *c = P->c;
    int dw[MAXS] = {0}, graze = 0;
    for (int t = 0; t < P->ntri && !graze; t++) {
        const ptri *T = &P->tri[t];
        int k1 = ray_cross(x, ray_dir, pol_fpos(P, T->f), pol_pos(P, T->a), pol_pos(P, T->b));
        int k0 = ray_cross(x, ray_dir, c->fpt + 3 * T->f, c->v + 3 * T->a, c->v + 3 * T->b);
        if (k1 == 2 || k0 == 2) {
            graze = 1;
            break;
        }
        if (slot[t][0] >= 0)
            dw[slot[t][0]] += k1 - k0;
        if (slot[t][1] >= 0)
            dw[slot[t][1]] -= k1 - k0;
    }
    if (!graze) {
        for (int s = 0; s < P->nstar; s++)
            if (dw[s] + (P->star[s] == old) == 1)
                return P->star[s];
        return -1;
    }
    double w[MAXS] = {0};
    for (int t = 0; t < P->ntri; t++) {
        const ptri *T = &P->tri[t];
        double d = pol_tri_omega(x, pol_fpos(P, T->f), pol_pos(P, T->a), pol_pos(P, T->b)) -
                   pol_tri_omega(x, c->fpt + 3 * T->f, c->v + 3 * T->a, c->v + 3 * T->b);
        if (slot[t][0] >= 0)
            w[slot[t][0]] += d;
        if (slot[t][1] >= 0)
            w[slot[t][1]] -= d;
    }
    int best = -1;
    double wbest = 2 * PI;
    for (int s = 0; s < P->nstar; s++) {
        double ws = w[s] + (P->star[s] == old ? 4 * PI : 0);
        if (ws > wbest + 1e-9) {
            wbest = ws;
            best = P->star[s];
        }
    }
    return best;
}

/* Change of the count of voxels in their grain's cell when v moves to P->p;
 * the candidates' new cells are left in cnew.  -1 on allocation failure. */
int pol_count_gain(pol *P, long long *gain)
{
    const rve_cx *c = P->c;
    P->ncand = 0;
    next_tick(P);
    /* a centre that changes cells is inside the hull of some triangle's old
     * and new corners: 4 points, or 5 for the triangles at v, whose hull the
     * five tetrahedra of 4 of them cover (Caratheodory) */
    for (int t = 0; t < P->ntri; t++) {
        const ptri *T = &P->tri[t];
        const double *pts[5] = {c->fpt + 3 * T->f, pol_fpos(P, T->f), c->v + 3 * T->a, c->v + 3 * T->b, NULL};
        int np = 4;
        if (T->a == P->v || T->b == P->v)
            pts[np++] = P->p;
        if (np == 4) {
            if (tet_candidates(P, pts[0], pts[1], pts[2], pts[3]))
                return -1;
            continue;
        }
        for (int skip = 0; skip < 5; skip++) {
            const double *q[4];
            for (int i = 0, k = 0; i < 5; i++)
                if (i != skip)
                    q[k++] = pts[i];
            if (tet_candidates(P, q[0], q[1], q[2], q[3]))
                return -1;
        }
    }
    /* the two cells of each moving triangle, as slots of the star */
    int slot[MAXT][2];
    for (int t = 0; t < P->ntri; t++) {
        int f = P->tri[t].f;
        slot[t][0] = star_slot(P, c->fc[2 * f]);
        slot[t][1] = c->fc[2 * f + 1] >= 0 ? star_slot(P, c->fc[2 * f + 1]) : -1;
    }
    long long g = 0;
    for (size_t q = 0; q < P->ncand; q++) {
        size_t idx = P->cand[q];
        double x[3];
        int ix = (int)(idx % (size_t)P->map->nx);
        int jy = (int)((idx / (size_t)P->map->nx) % (size_t)P->map->ny);
        int kz = (int)(idx / ((size_t)P->map->nx * (size_t)P->map->ny));
        rve_map_voxel_centre(P->map, ix, jy, kz, x);
        int old = P->cur[idx], best = winding_change(P, x, slot, old);
        P->cnew[q] = best;
        int tr = P->truth[idx];
        g += (best == tr && tr >= 0) - (old == tr && tr >= 0);
    }
    *gain = g;
    return 0;
}

void pol_commit(pol *P)
{
    for (size_t q = 0; q < P->ncand; q++)
        P->cur[P->cand[q]] = P->cnew[q];
    v3_copy(P->c->v + 3 * P->v, P->p);
    for (int j = 0; j < P->nvf; j++) {
        v3_copy(P->c->fpt + 3 * P->vf[j], P->vfpt[j]);
        if (P->c->fdom[P->vf[j]] < 0)
            P->c->fflat[P->vf[j]] = 0; /* meshed as its fan from now on */
    }
}

/* Winding number of cell k around x. */
static double winding(const pol *P, int k, const double x[3])
{
    const rve_cx *c = P->c;
    double w = 0;
    for (int j = P->cfo[k]; j < P->cfo[k + 1]; j++) {
        int f = P->cfl[j], n = pol_loop_len(c, f);
        double s = c->fc[2 * f] == k ? 1 : -1;
        for (int i = 0; i < n; i++)
            w += s * pol_tri_omega(x, c->fpt + 3 * f, c->v + 3 * pol_loop_at(c, f, i),
                               c->v + 3 * pol_loop_at(c, f, i + 1));
    }
    return w;
}

/* Voxel index range of cell k's bounding box; 0 when the cell is empty. */
static int cell_box(const pol *P, int k, int i0[3], int i1[3])
{
    const rve_cx *c = P->c;
    const rve_map *m = P->map;
    if (P->cfo[k + 1] == P->cfo[k])
        return 0;
    double lo[3] = {INFINITY, INFINITY, INFINITY}, hi[3] = {-INFINITY, -INFINITY, -INFINITY};
    for (int j = P->cfo[k]; j < P->cfo[k + 1]; j++) {
        int f = P->cfl[j];
        for (int i = c->foff[f]; i < c->foff[f + 1]; i++)
            for (int a = 0; a < 3; a++) {
                lo[a] = fmin(lo[a], c->v[3 * c->fv[i] + a]);
                hi[a] = fmax(hi[a], c->v[3 * c->fv[i] + a]);
            }
    }
    rve_map_box_voxels(m, lo, hi, i0, i1);
    return 1;
}

/* x inside cell k: the signed crossings of a ray from x with the cell's fan
 * triangles sum to its winding number (no atan2: the solid angles cost 63 %
 * of a fine raster); a grazing ray falls back to the solid angles. */
static int inside_cell(const pol *P, int k, const double x[3])
{
    const rve_cx *c = P->c;
    int w = 0;
    for (int j = P->cfo[k]; j < P->cfo[k + 1]; j++) {
        int f = P->cfl[j], n = pol_loop_len(c, f), s = c->fc[2 * f] == k ? 1 : -1;
        for (int i = 0; i < n; i++) {
            int r = ray_cross(x, ray_dir, c->fpt + 3 * f, c->v + 3 * pol_loop_at(c, f, i),
                              c->v + 3 * pol_loop_at(c, f, i + 1));
            if (r == 2)
                return winding(P, k, x) > 2 * PI + 1e-9;
            w += s * r;
        }
    }
#ifdef POL_CHECK_CROSSINGS
    if ((w == 1) != (winding(P, k, x) > 2 * PI + 1e-9))
        abort();
#endif
    return w == 1;
}

/* cur for every voxel of a grain with a cell: tested against that cell first
 * (most are there), then against the cells next to it, then against every
 * cell whose box holds it.  Void voxels, and those of grains without a cell,
 * never count, so they are left at -1 (and never become candidates). */
rve_status pol_rasterise(pol *P, rve_err *err)
{
    const rve_cx *c = P->c;
    const rve_map *m = P->map;
    size_t nvox = rve_map_nvox(m);
    for (size_t i = 0; i < nvox; i++)
        P->cur[i] = -1;
#pragma omp parallel for schedule(dynamic, 1)
    for (int k = 0; k < c->nc; k++) {
        int i0[3], i1[3];
        if (!cell_box(P, k, i0, i1))
            continue;
        for (int kz = i0[2]; kz <= i1[2]; kz++)
            for (int jy = i0[1]; jy <= i1[1]; jy++)
                for (int ix = i0[0]; ix <= i1[0]; ix++) {
                    size_t idx = rve_map_index(m, ix, jy, kz);
                    double x[3];
                    if (P->truth[idx] != k)
                        continue;
                    rve_map_voxel_centre(m, ix, jy, kz, x);
                    if (inside_cell(P, k, x))
                        P->cur[idx] = k;
                }
    }
    /* the rest (misclassified voxels): a list, then one pass in parallel */
    size_t nrest = 0;
    for (size_t i = 0; i < nvox; i++)
        nrest += P->truth[i] >= 0 && P->cur[i] < 0;
    size_t *rest = malloc((nrest + 1) * sizeof(size_t));
    int *box = malloc(((size_t)c->nc * 6 + 1) * sizeof(int));
    if (!rest || !box) {
        free(rest);
        free(box);
        return rve_err_set(err, RVE_ENOMEM, NULL, "out of memory");
    }
    nrest = 0;
    for (size_t i = 0; i < nvox; i++)
        if (P->truth[i] >= 0 && P->cur[i] < 0)
            rest[nrest++] = i;
    for (int k = 0; k < c->nc; k++)
        if (!cell_box(P, k, box + 6 * k, box + 6 * k + 3))
            box[6 * k] = 1, box[6 * k + 3] = 0; /* empty box */
#pragma omp parallel for schedule(dynamic, 64)
    for (size_t q = 0; q < nrest; q++) {
        size_t idx = rest[q];
        int ix = (int)(idx % (size_t)m->nx), jy = (int)((idx / (size_t)m->nx) % (size_t)m->ny);
        int kz = (int)(idx / ((size_t)m->nx * (size_t)m->ny)), tk = P->truth[idx], found = -1;
        int ijk[3] = {ix, jy, kz};
        double x[3];
        rve_map_voxel_centre(m, ix, jy, kz, x);
        /* neighbours of its grain's cell first */
        for (int j = P->cfo[tk]; j < P->cfo[tk + 1] && found < 0; j++) {
            int f = P->cfl[j], o = c->fc[2 * f] == tk ? c->fc[2 * f + 1] : c->fc[2 * f];
            if (o >= 0 && inside_cell(P, o, x))
                found = o;
        }
        for (int k = 0; k < c->nc && found < 0; k++) {
            int in = 1;
            for (int a = 0; a < 3; a++)
                in &= ijk[a] >= box[6 * k + a] && ijk[a] <= box[6 * k + 3 + a];
            if (in && k != tk && inside_cell(P, k, x))
                found = k;
        }
        P->cur[idx] = found;
    }
    free(rest);
    free(box);
    P->good = 0;
    for (size_t i = 0; i < nvox; i++)
        P->good += P->truth[i] >= 0 && P->cur[i] == P->truth[i];
    return RVE_OK;
}

/* ------------------------------------------------------------------ setup */
static int cmp_pair(const void *x, const void *y)
{
    const long long *a = x, *b = y;
    return (a[0] > b[0]) - (a[0] < b[0]);
}

/* truth: the cell of each voxel's grain (ids[k] the grain of cell k). */
rve_status pol_build_truth(pol *P, const int *ids, rve_err *err)
{
    const rve_cx *c = P->c;
    const rve_map *m = P->map;
    long long *pr = malloc(((size_t)c->nc + 1) * 2 * sizeof(long long));
    int32_t *lab2cell = malloc(((size_t)m->nlabels + 1) * sizeof(int32_t));
    if (!pr || !lab2cell) {
        free(pr);
        free(lab2cell);
        return rve_err_set(err, RVE_ENOMEM, NULL, "out of memory");
    }
    for (int k = 0; k < c->nc; k++) {
        pr[2 * k] = ids ? ids[k] : k + 1;
        pr[2 * k + 1] = k;
    }
    qsort(pr, (size_t)c->nc, 2 * sizeof(long long), cmp_pair);
    for (uint32_t l = 0; l <= m->nlabels; l++) {
        long long key[2] = {rve_map_id(m, l), 0};
        const long long *hit = l ? bsearch(key, pr, (size_t)c->nc, 2 * sizeof(long long), cmp_pair) : NULL;
        lab2cell[l] = hit ? (int32_t)hit[1] : -1;
    }
    size_t nvox = rve_map_nvox(m);
    P->nvox = 0;
    for (size_t i = 0; i < nvox; i++) {
        uint32_t l = m->lab[i];
        P->truth[i] = l <= m->nlabels ? lab2cell[l] : -1;
        P->nvox += l != 0;
    }
    free(pr);
    free(lab2cell);
    return RVE_OK;
}

