/* polish.c - after regularisation, move vertices to open the small angles
 * that force flat tetrahedra and to win back voxel accuracy against the
 * grain map, keeping the topology.
 *
 * Collapsing edges moves vertices by up to half the threshold and leaves the
 * data behind; thin wedges where a grain boundary meets another face (or the
 * sample surface) at a few degrees survive it and cap the mesh quality: every
 * tetrahedron in such a wedge is flat.  The polish is a pattern search over
 * vertex positions: each vertex tries steps along the axes (within the domain
 * faces that hold it) with the face points fixed.
 *
 * Accuracy is counted exactly and incrementally.  Moving vertex v moves only
 * the fan triangles that hold v; a voxel centre can change cells only inside
 * the hull of such a triangle's old and new positions, and its new cell
 * follows from the change of the generalised winding numbers (solid angles)
 * of the cells around v, whose union does not change. */
#include "config.h"
#include "mesh/reg_internal.h"
#include "util/vec3.h"
#include <limits.h>
#ifdef _OPENMP
#include <omp.h>
#endif
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define PI 3.14159265358979323846
#define MAXS 48     /* cells around one vertex a move may touch */
#define MAXT 512    /* fan triangles of the faces around one vertex */
#define MAXF 64     /* faces around one vertex */

typedef struct {
    int f;          /* face */
    int a, b;       /* loop edge (a, b) in loop order; one of them is the moving vertex */
} ptri;

typedef struct {
    rve_cx *c;
    const rve_map *map;
    int32_t *truth;       /* per voxel: cell of its grain, -1 void or grain without a cell */
    int32_t *cur;         /* per voxel: cell holding its centre, -1 none */
    struct seen_ent {
        size_t idx;
        uint32_t gen;
    } *seen;              /* voxels met by this trial: open addressing, entries of older
                             trials (gen) count as empty; small, so it stays in cache */
    size_t seen_cap, seen_n;
    uint32_t gen;
    int *vfo, *vfl;       /* vertex -> faces */
    int *cfo, *cfl;       /* cell -> faces */
    unsigned *mask;       /* domain planes through each vertex */
    char *dirty;          /* vertices whose neighbourhood changed since they were last tried */
    uint32_t *vmark;      /* per vertex: vgen when met (distinct vertices of a cell) */
    uint32_t vgen;
    double thr;           /* short-edge threshold: no edge is made shorter than min(thr, its length) */
    double max_bend;      /* radians */
    double qang;          /* radians: angles below are opened */
    size_t *cand;
    int32_t *cnew;
    size_t ncand, capcand;
    long long good;       /* voxels inside the cell of their grain */
    size_t nvox;          /* non-void voxels */
    /* the move under study */
    int v;
    double p[3];
    ptri tri[MAXT];       /* every fan triangle of the faces around v */
    int ntri;
    int vf[MAXF];         /* faces around v and their face points (loop means) with v at p */
    double vfpt[MAXF][3];
    int nvf;
    int star[MAXS];
    int nstar;
    /* periodic box complexes: the box planes whose vertices have copies on
     * the opposite planes (frz) and the links to them (see cx.h) */
    unsigned frz;
    int *plink;
} pol;

/* ---------------------------------------------------------------- geometry */
static const double *pos(const pol *P, int w)
{
    return w == P->v ? P->p : P->c->v + 3 * w;
}

/* Face point of f (the vertex mean: it follows the move of v). */
static const double *fpos(const pol *P, int f)
{
    for (int j = 0; j < P->nvf; j++)
        if (P->vf[j] == f)
            return P->vfpt[j];
    return P->c->fpt + 3 * f;
}

static double tri_omega(const double x[3], const double o[3], const double a[3], const double b[3])
{
    double u[3], w[3], z[3];
    v3_sub(u, o, x);
    v3_sub(w, a, x);
    v3_sub(z, b, x);
    return v3_solid_angle(u, w, z);
}

/* Angle at q between q->a and q->b. */
static double corner(const double q[3], const double a[3], const double b[3])
{
    double u[3], w[3], x[3];
    v3_sub(u, a, q);
    v3_sub(w, b, q);
    v3_cross(x, u, w);
    return atan2(v3_norm(x), v3_dot(u, w));
}

static int loop_len(const rve_cx *c, int f)
{
    return c->foff[f + 1] - c->foff[f];
}

static int loop_at(const rve_cx *c, int f, int i)
{
    int n = loop_len(c, f);
    return c->fv[c->foff[f] + ((i % n) + n) % n];
}

static int loop_find(const rve_cx *c, int f, int v)
{
    for (int i = c->foff[f]; i < c->foff[f + 1]; i++)
        if (c->fv[i] == v)
            return i - c->foff[f];
    return -1;
}

/* Outward normal (not normalised) of face f's fan triangle on loop edge
 * (a, b), for cell k. */
static void fan_normal(const pol *P, int f, int a, int b, int k, double n[3])
{
    double u[3], w[3];
    const double *o = fpos(P, f);
    v3_sub(u, pos(P, a), o);
    v3_sub(w, pos(P, b), o);
    v3_cross(n, u, w);
    if (P->c->fc[2 * f] != k)
        v3_scale(n, n, -1);
}

/* Interior dihedral angle of cell k along edge (a, b): between the fan
 * triangles of its two faces on that edge (pi when not found). */
static double dihedral(const pol *P, int k, int a, int b)
{
    const rve_cx *c = P->c;
    double n[2][3];
    int found = 0;
    for (int j = P->vfo[a]; j < P->vfo[a + 1] && found < 2; j++) {
        int f = P->vfl[j];
        if (c->fc[2 * f] != k && c->fc[2 * f + 1] != k)
            continue;
        int i = loop_find(c, f, a);
        if (loop_at(c, f, i + 1) == b)
            fan_normal(P, f, a, b, k, n[found++]);
        else if (loop_at(c, f, i - 1) == b)
            fan_normal(P, f, b, a, k, n[found++]);
    }
    if (found < 2)
        return PI;
    double x[3];
    v3_cross(x, n[0], n[1]);
    return PI - atan2(v3_norm(x), v3_dot(n[0], n[1]));
}

/* Smallest angle that moving vertex v changes: face corners at v and at its
 * loop neighbours, dihedral angles of the cells along the edges at v. */
static double fan_min_angle(const pol *P, int f)
{
    const rve_cx *c = P->c;
    const double *o = fpos(P, f);
    double m = PI;
    for (int i = 0; i < loop_len(c, f); i++) {
        const double *a = pos(P, loop_at(c, f, i)), *b = pos(P, loop_at(c, f, i + 1));
        m = fmin(m, fmin(corner(o, a, b), fmin(corner(a, o, b), corner(b, a, o))));
    }
    return m;
}

/* The angles of the fan triangles count too where the face is meshed as its
 * fan: non-planar faces, and (moved = 1) every face at v once v moved. */
static double local_min_angle(const pol *P, int v, int moved)
{
    const rve_cx *c = P->c;
    double m = PI;
    for (int j = P->vfo[v]; j < P->vfo[v + 1]; j++) {
        int f = P->vfl[j], i = loop_find(c, f, v);
        if (c->fdom[f] < 0 && (moved || !c->fflat[f]))
            m = fmin(m, fan_min_angle(P, f));
        for (int d = -1; d <= 1; d++) {
            int q = loop_at(c, f, i + d);
            m = fmin(m, corner(pos(P, q), pos(P, loop_at(c, f, i + d - 1)),
                               pos(P, loop_at(c, f, i + d + 1))));
        }
        int u = loop_at(c, f, i + 1);
        for (int s = 0; s < 2; s++) {
            int k = c->fc[2 * f + s];
            if (k >= 0)
                m = fmin(m, dihedral(P, k, v, u));
        }
    }
    return m;
}

/* Quality of v's neighbourhood, 1 when it needs nothing: the smallest angle
 * over the minimum angle, and the shortest edge at v over the threshold. */
static double local_quality(const pol *P, int v, int moved)
{
    double q = P->qang > 0 ? local_min_angle(P, v, moved) / P->qang : 1;
    for (int t = 0; t < P->ntri; t++)
        if (P->tri[t].a == v || P->tri[t].b == v)
            q = fmin(q, v3_dist(pos(P, P->tri[t].a), pos(P, P->tri[t].b)) / P->thr);
    return fmin(q, 1);
}

/* ------------------------------------------------------------ validity */
/* Faces at v: no fan triangle folded over (normals along the face's vector
 * area, which keeps its side), bend atan(h / r) within the maximum (or not
 * worse than it was). */
static int faces_ok(const pol *P)
{
    const rve_cx *c = P->c;
    for (int j = P->vfo[P->v]; j < P->vfo[P->v + 1]; j++) {
        int f = P->vfl[j], n = loop_len(c, f);
        const double *o = fpos(P, f), *o0 = c->fpt + 3 * f;
        double N[3] = {0, 0, 0}, N0[3] = {0, 0, 0}, m[3] = {0, 0, 0};
        for (int i = 0; i < n; i++) {
            int a = loop_at(c, f, i), b = loop_at(c, f, i + 1);
            double u[3], w[3], x[3];
            v3_sub(u, pos(P, a), o);
            v3_sub(w, pos(P, b), o);
            v3_cross(x, u, w);
            v3_add(N, N, x);
            v3_sub(u, c->v + 3 * a, o0);
            v3_sub(w, c->v + 3 * b, o0);
            v3_cross(x, u, w);
            v3_add(N0, N0, x);
            v3_add(m, m, pos(P, a));
        }
        v3_scale(m, m, 1.0 / n);
        double area2 = v3_normalize(N);
        if (!(area2 > 0) || !(v3_dot(N, N0) > 0))
            return 0;
        double h = 0;
        for (int i = 0; i < n; i++) {
            int a = loop_at(c, f, i), b = loop_at(c, f, i + 1);
            double u[3], w[3], x[3], um[3];
            v3_sub(u, pos(P, a), o);
            v3_sub(w, pos(P, b), o);
            v3_cross(x, u, w);
            if (!(v3_dot(x, N) > 1e-12 * v3_norm2(u) + 1e-12 * v3_norm2(w)))
                return 0;
            v3_sub(um, pos(P, a), m);
            h = fmax(h, fabs(v3_dot(um, N)));
        }
        if (c->fdom[f] < 0 && atan2(h, sqrt(0.5 * area2 / PI)) > P->max_bend)
            return 0;
    }
    return 1;
}

/* Cells around v stay star-shaped from their vertex mean. */
static int cells_ok(const pol *P)
{
    const rve_cx *c = P->c;
    for (int s = 0; s < P->nstar; s++) {
        int k = P->star[s];
        double cc[3] = {0, 0, 0};
        int cnt = 0;
        for (int j = P->cfo[k]; j < P->cfo[k + 1]; j++) {
            int f = P->cfl[j];
            for (int i = c->foff[f]; i < c->foff[f + 1]; i++, cnt++)
                v3_add(cc, cc, pos(P, c->fv[i]));
        }
        v3_scale(cc, cc, 1.0 / cnt);
        for (int j = P->cfo[k]; j < P->cfo[k + 1]; j++) {
            int f = P->cfl[j], n = loop_len(c, f);
            double sg = c->fc[2 * f] == k ? 1 : -1, z[3];
            v3_sub(z, fpos(P, f), cc);
            for (int i = 0; i < n; i++) {
                double u[3], w[3], x[3];
                v3_sub(u, pos(P, loop_at(c, f, i)), cc);
                v3_sub(w, pos(P, loop_at(c, f, i + 1)), cc);
                v3_cross(x, u, w);
                if (!(sg * v3_dot(z, x) > 1e-9 * v3_norm(u) * v3_norm(w) * v3_norm(z)))
                    return 0;
            }
        }
    }
    return 1;
}

/* Cells around v stay convex within tolerance: no vertex of a cell rises
 * above the plane of one of its fan triangles by more than sin(max bend)
 * times the cell's diameter (what regularisation itself guarantees). */
static int convex_ok(pol *P)
{
    enum { MAXU = 1024 };
    const rve_cx *c = P->c;
    double lim = sin(P->max_bend), u[MAXU][3];
    for (int s = 0; s < P->nstar; s++) {
        int k = P->star[s], nu = 0;
        /* the cell's distinct vertices (each is on three or more of its faces) */
        if (++P->vgen == 0) {
            memset(P->vmark, 0, (size_t)c->nv * sizeof(uint32_t));
            P->vgen = 1;
        }
        for (int j = P->cfo[k]; j < P->cfo[k + 1]; j++)
            for (int i = c->foff[P->cfl[j]]; i < c->foff[P->cfl[j] + 1]; i++) {
                int w = c->fv[i];
                if (P->vmark[w] == P->vgen)
                    continue;
                if (nu == MAXU)
                    return 0; /* a cell beyond any real one: refuse the move */
                P->vmark[w] = P->vgen;
                v3_copy(u[nu++], pos(P, w));
            }
        double diam2 = 0;
        for (int a = 0; a < nu; a++)
            for (int b = a + 1; b < nu; b++)
                diam2 = fmax(diam2, v3_dist2(u[a], u[b]));
        double tol = lim * sqrt(diam2);
        for (int j = P->cfo[k]; j < P->cfo[k + 1]; j++) {
            int f = P->cfl[j], n = loop_len(c, f);
            const double *o = fpos(P, f);
            for (int i = 0; i < n; i++) {
                double nn[3];
                fan_normal(P, f, loop_at(c, f, i), loop_at(c, f, i + 1), k, nn);
                if (!(v3_normalize(nn) > 0))
                    continue;
                for (int a = 0; a < nu; a++) {
                    double x[3];
                    v3_sub(x, u[a], o);
                    if (v3_dot(x, nn) > tol)
                        return 0;
                }
            }
        }
    }
    return 1;
}

/* Edges at v keep at least min(threshold, their length). */
static int edges_ok(const pol *P)
{
    for (int t = 0; t < P->ntri; t++) {
        if (P->tri[t].a != P->v)
            continue; /* each edge at v is the loop edge (v, u) of some face */
        int u = P->tri[t].b;
        double l1 = v3_dist(P->p, P->c->v + 3 * u), l0 = v3_dist(P->c->v + 3 * P->v, P->c->v + 3 * u);
        if (l1 < fmin(P->thr, l0))
            return 0;
    }
    return 1;
}

/* Set up the move of v: its fan triangles and the cells around it.  0 when
 * the vertex is beyond the fixed limits (then it is left alone). */
static int setup_vertex(pol *P, int v)
{
    const rve_cx *c = P->c;
    P->v = v;
    v3_copy(P->p, c->v + 3 * v);
    P->ntri = P->nstar = P->nvf = 0;
    for (int j = P->vfo[v]; j < P->vfo[v + 1]; j++) {
        int f = P->vfl[j], n = loop_len(c, f);
        if (P->ntri + n > MAXT || P->nvf == MAXF)
            return 0;
        P->vf[P->nvf] = f;
        v3_copy(P->vfpt[P->nvf++], c->fpt + 3 * f);
        for (int i = 0; i < n; i++)
            P->tri[P->ntri++] = (ptri){f, loop_at(c, f, i), loop_at(c, f, i + 1)};
        for (int s = 0; s < 2; s++) {
            int k = c->fc[2 * f + s], seen = 0;
            if (k < 0)
                continue;
            for (int q = 0; q < P->nstar; q++)
                seen |= P->star[q] == k;
            if (!seen) {
                if (P->nstar == MAXS)
                    return 0;
                P->star[P->nstar++] = k;
            }
        }
    }
    return P->ntri > 0;
}

/* Try v at p: the face points of its faces follow (vertex means). */
static void place(pol *P, const double p[3])
{
    const rve_cx *c = P->c;
    v3_copy(P->p, p);
    for (int j = 0; j < P->nvf; j++) {
        int f = P->vf[j], n = loop_len(c, f);
        double *m = P->vfpt[j];
        m[0] = m[1] = m[2] = 0;
        for (int i = 0; i < n; i++)
            v3_add(m, m, pos(P, loop_at(c, f, i)));
        v3_scale(m, m, 1.0 / n);
    }
}

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
    /* a direction unlikely to run along the faces of grids or lattices */
    static const double dir[3] = {0.5377380816, 0.3145192436, 0.7822325495};
    const rve_cx *c = P->c;
    int dw[MAXS] = {0}, graze = 0;
    for (int t = 0; t < P->ntri && !graze; t++) {
        const ptri *T = &P->tri[t];
        int k1 = ray_cross(x, dir, fpos(P, T->f), pos(P, T->a), pos(P, T->b));
        int k0 = ray_cross(x, dir, c->fpt + 3 * T->f, c->v + 3 * T->a, c->v + 3 * T->b);
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
        double d = tri_omega(x, fpos(P, T->f), pos(P, T->a), pos(P, T->b)) -
                   tri_omega(x, c->fpt + 3 * T->f, c->v + 3 * T->a, c->v + 3 * T->b);
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
static int count_gain(pol *P, long long *gain)
{
    const rve_cx *c = P->c;
    P->ncand = 0;
    next_tick(P);
    /* a centre that changes cells is inside the hull of some triangle's old
     * and new corners: 4 points, or 5 for the triangles at v, whose hull the
     * five tetrahedra of 4 of them cover (Caratheodory) */
    for (int t = 0; t < P->ntri; t++) {
        const ptri *T = &P->tri[t];
        const double *pts[5] = {c->fpt + 3 * T->f, fpos(P, T->f), c->v + 3 * T->a, c->v + 3 * T->b, NULL};
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

static void commit(pol *P)
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
        int f = P->cfl[j], n = loop_len(c, f);
        double s = c->fc[2 * f] == k ? 1 : -1;
        for (int i = 0; i < n; i++)
            w += s * tri_omega(x, c->fpt + 3 * f, c->v + 3 * loop_at(c, f, i),
                               c->v + 3 * loop_at(c, f, i + 1));
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

static int inside_cell(const pol *P, int k, const double x[3])
{
    return winding(P, k, x) > 2 * PI + 1e-9;
}

/* cur for every voxel of a grain with a cell: tested against that cell first
 * (most are there), then against the cells next to it, then against every
 * cell whose box holds it.  Void voxels, and those of grains without a cell,
 * never count, so they are left at -1 (and never become candidates). */
static rve_status rasterise(pol *P, rve_err *err)
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
static rve_status build_truth(pol *P, const int *ids, rve_err *err)
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

static rve_status build_incidence(pol *P, rve_err *err)
{
    const rve_cx *c = P->c;
    P->vfo = calloc((size_t)c->nv + 2, sizeof(int));
    P->cfo = calloc((size_t)c->nc + 2, sizeof(int));
    P->mask = calloc((size_t)c->nv + 1, sizeof(unsigned));
    P->dirty = calloc((size_t)c->nv + 1, 1);
    P->vmark = calloc((size_t)c->nv + 1, sizeof(uint32_t));
    int nfv = c->foff[c->nf];
    P->vfl = malloc(((size_t)nfv + 1) * sizeof(int));
    P->cfl = malloc(((size_t)c->nf * 2 + 1) * sizeof(int));
    if (!P->vfo || !P->cfo || !P->mask || !P->dirty || !P->vmark || !P->vfl || !P->cfl)
        return rve_err_set(err, RVE_ENOMEM, NULL, "out of memory");
    for (int f = 0; f < c->nf; f++) {
        for (int i = c->foff[f]; i < c->foff[f + 1]; i++) {
            P->vfo[c->fv[i] + 1]++;
            if (c->fdom[f] >= 0)
                P->mask[c->fv[i]] |= 1u << c->fdom[f];
        }
        for (int s = 0; s < 2; s++)
            if (c->fc[2 * f + s] >= 0)
                P->cfo[c->fc[2 * f + s] + 1]++;
    }
    for (int v = 0; v < c->nv; v++)
        P->vfo[v + 1] += P->vfo[v];
    for (int k = 0; k < c->nc; k++)
        P->cfo[k + 1] += P->cfo[k];
    int *pv = malloc(((size_t)c->nv + 1) * sizeof(int)), *pc = malloc(((size_t)c->nc + 1) * sizeof(int));
    if (!pv || !pc) {
        free(pv);
        free(pc);
        return rve_err_set(err, RVE_ENOMEM, NULL, "out of memory");
    }
    memcpy(pv, P->vfo, (size_t)c->nv * sizeof(int));
    memcpy(pc, P->cfo, (size_t)c->nc * sizeof(int));
    for (int f = 0; f < c->nf; f++) {
        for (int i = c->foff[f]; i < c->foff[f + 1]; i++)
            P->vfl[pv[c->fv[i]]++] = f;
        for (int s = 0; s < 2; s++)
            if (c->fc[2 * f + s] >= 0)
                P->cfl[pc[c->fc[2 * f + s]]++] = f;
    }
    free(pv);
    free(pc);
    return RVE_OK;
}

/* Unit step directions of v: the axes, projected on the domain planes
 * through v (box domains: the free axes).  Returns their count. */
static int directions(const pol *P, int v, double dir[6][3])
{
    const rve_cx *c = P->c;
    int nd = 0;
    for (int a = 0; a < 3; a++)
        for (int sg = -1; sg <= 1; sg += 2) {
            double d[3] = {0, 0, 0};
            d[a] = sg;
            for (int k = 0; k < c->ndom; k++)
                if (P->mask[v] & (1u << k)) {
                    const double *n = c->dom + 4 * k;
                    v3_axpy(d, d, -v3_dot(d, n), n);
                }
            if (v3_normalize(d) > 0.5)
                v3_copy(dir[nd++], d);
        }
    return nd;
}

static int inside_domain(const pol *P, const double p[3])
{
    for (int a = 0; a < 3; a++)
        if (p[a] < P->c->dom_lo[a] || p[a] > P->c->dom_hi[a])
            return 0;
    return 1;
}

/* Smallest face corner or dihedral angle of the complex (radians) and the
 * count of angles below qang. */
static void global_angles(pol *P, double *amin, size_t *below)
{
    const rve_cx *c = P->c;
    double m = PI;
    size_t nb = 0;
    P->v = -1;
    P->nvf = 0;
    for (int f = 0; f < c->nf; f++) {
        int n = loop_len(c, f);
        if (c->fdom[f] < 0 && !c->fflat[f]) /* each fan triangle: its smallest angle */
            for (int i = 0; i < n; i++) {
                const double *o = c->fpt + 3 * f, *a = c->v + 3 * loop_at(c, f, i),
                             *b = c->v + 3 * loop_at(c, f, i + 1);
                double fa = fmin(corner(o, a, b), fmin(corner(a, o, b), corner(b, a, o)));
                m = fmin(m, fa);
                nb += fa < P->qang;
            }
        for (int i = 0; i < n; i++) {
            int a = loop_at(c, f, i - 1), q = loop_at(c, f, i), b = loop_at(c, f, i + 1);
            double ang = corner(c->v + 3 * q, c->v + 3 * a, c->v + 3 * b);
            m = fmin(m, ang);
            nb += ang < P->qang;
        }
    }
    /* dihedral angles: every edge of every cell, once */
    for (int k = 0; k < c->nc; k++)
        for (int j = P->cfo[k]; j < P->cfo[k + 1]; j++) {
            int f = P->cfl[j], n = loop_len(c, f);
            for (int i = 0; i < n; i++) {
                int a = loop_at(c, f, i), b = loop_at(c, f, i + 1);
                if ((c->fc[2 * f] == k) != (a < b))
                    continue; /* the edge runs a -> b in one face of k, b -> a in the other */
                double d = dihedral(P, k, a, b);
                m = fmin(m, d);
                nb += d < P->qang;
            }
        }
    *amin = m;
    *below = nb;
}

/* One trial step of vertex v (set up in Q) along dir: whether it passes the
 * checks and the mode's rule, its local quality, gain and convexity. */
typedef struct {
    int pass, convex, fail;
    double m1, p[3];
    long long gain;
} step_result;

static void try_pos(pol *Q, int v, int mode, double m0, const double p[3], step_result *r)
{
    memset(r, 0, sizeof *r);
    v3_copy(r->p, p);
    place(Q, r->p);
    if (!inside_domain(Q, Q->p) || !edges_ok(Q) || !faces_ok(Q) || !cells_ok(Q))
        return;
    r->m1 = local_quality(Q, v, 1);
    if (mode == 0 ? !(r->m1 > m0 + 1e-9) : r->m1 < m0)
        return;
    if (count_gain(Q, &r->gain)) {
        r->fail = 1;
        return;
    }
    r->pass = 1;
    /* mode 1 takes only gains (> 0): no need to check the others' convexity */
    r->convex = (mode == 0 || r->gain > 0) && convex_ok(Q);
}

static void try_step(pol *Q, int v, int mode, double m0, const double v0[3], double step,
                     const double dir[3], step_result *r)
{
    double p[3];
    v3_axpy(p, v0, step, dir);
    try_pos(Q, v, mode, m0, p, r);
}

/* ------------------------------------------------- periodic (mirrored) moves */
/* The copies of box-face vertex v (v first) across every subset of the
 * periodic axes whose planes hold it; 0 when one is missing. */
static int copies_of(const pol *P, int v, int cp[8])
{
    int axes[3], na = 0, n = 0;
    for (int a = 0; a < 3; a++)
        if (P->mask[v] & P->frz & (3u << (2 * a)))
            axes[na++] = a;
    for (unsigned S = 0; S < (1u << na); S++) {
        int w = v;
        for (int i = 0; i < na && w >= 0; i++)
            if (S >> i & 1)
                w = P->plink[3 * w + axes[i]];
        if (w < 0)
            return 0;
        cp[n++] = w;
    }
    return n;
}

/* The copy of v on the lower planes (the one that moves the group), or -1. */
static int canonical(const pol *P, int v)
{
    for (int a = 0; a < 3 && v >= 0; a++)
        if ((P->mask[v] & P->frz & (3u << (2 * a))) && P->c->v[3 * v + a] != P->c->dom_lo[a])
            v = P->plink[3 * v + a];
    return v;
}

/* One pattern-search step of the vertex group of v (on the lower box planes)
 * and its periodic copies: every copy moves by the same step within its box
 * planes, so the copies stay exact translates (their tangential coordinates
 * are computed once).  Their cell stars must be disjoint, so that each copy's
 * checks and voxel gain hold when all move; the group's quality is its
 * worst copy's, its gain the sum.  Returns 1 if moved, 0 if not, -1 on
 * allocation failure. */
static int sweep_group(pol *P, int v, int mode, double step)
{
    const rve_cx *c = P->c;
    int cp[8], n = copies_of(P, v, cp);
    int stars[8][MAXS], ns[8];
    double m0 = 2;
    for (int i = 0; i < n; i++) {
        if (!setup_vertex(P, cp[i]))
            return 0;
        ns[i] = P->nstar;
        memcpy(stars[i], P->star, (size_t)P->nstar * sizeof(int));
        for (int j = 0; j < i; j++)
            for (int a = 0; a < ns[i]; a++)
                for (int b = 0; b < ns[j]; b++)
                    if (stars[i][a] == stars[j][b])
                        return 0;
        m0 = fmin(m0, local_quality(P, cp[i], 0));
    }
    if (n == 0 || (mode == 0 && m0 >= 1))
        return 0;
    double dir[6][3], v0[3], pos_i[8][3], best_pos[8][3];
    int nd = directions(P, v, dir), best = -1;
    long long best_gain = mode == 0 ? LLONG_MIN : 0;
    double best_m = m0;
    v3_copy(v0, c->v + 3 * v);
    for (int d = 0; d < nd; d++) {
        double base[3];
        v3_axpy(base, v0, step, dir[d]);
        long long gain = 0;
        double m1 = 2;
        int pass = 1, convex = 1;
        for (int i = 0; i < n && pass; i++) {
            for (int a = 0; a < 3; a++) /* tangential: the same bits; normal: its plane */
                pos_i[i][a] = (P->mask[cp[i]] & P->frz & (3u << (2 * a))) ? c->v[3 * cp[i] + a] : base[a];
            step_result r;
            setup_vertex(P, cp[i]);
            try_pos(P, cp[i], 1, -1, pos_i[i], &r);
            if (r.fail)
                return -1;
            pass = r.pass;
            gain += r.gain;
            m1 = fmin(m1, r.m1);
            convex = convex && convex_ok(P);
        }
        if (!pass || !convex || (mode == 0 ? !(m1 > m0 + 1e-9) : m1 < m0))
            continue;
        if (gain > best_gain || (mode == 0 && gain == best_gain && m1 > best_m)) {
            best_gain = gain;
            best_m = m1;
            best = d;
            memcpy(best_pos, pos_i, sizeof pos_i);
        }
    }
    if (best < 0)
        return 0;
    for (int i = 0; i < n; i++) {
        setup_vertex(P, cp[i]);
        place(P, best_pos[i]);
        long long g = 0;
        if (count_gain(P, &g))
            return -1;
        commit(P);
        P->good += g;
        for (int j = 0; j < P->nvf; j++)
            for (int q = c->foff[P->vf[j]]; q < c->foff[P->vf[j] + 1]; q++)
                P->dirty[c->fv[q]] = 1;
    }
    return 1;
}

/* One pattern-search sweep over the vertices in order.  Mode 0 mends the
 * neighbourhoods of quality below 1 (angles under qang, edges shorter than
 * the threshold): the best accuracy among the moves that raise the vertex's
 * local quality; mode 1 wins accuracy without lowering any local quality.
 * The steps of one vertex are tried by nw workers (copies of P with their
 * own trial buffers) at once; the choice is made in direction order, so the
 * result does not depend on the number of workers.  Returns the moves made,
 * -1 on allocation failure. */
static long sweep(pol *P, pol *W, int nw, int mode, double step, size_t *moves)
{
    rve_cx *c = P->c;
    long made = 0;
    for (int v = 0; v < c->nv; v++) {
        if (!P->dirty[v])
            continue;
        P->dirty[v] = 0; /* tried: again only once something around it moves */
        if (P->frz && (P->mask[v] & P->frz)) { /* a box-face vertex: with its copies */
            int w = canonical(P, v), res = 0;
            if (w >= 0 && w != v)
                P->dirty[w] = 1; /* moved by its lower copy */
            if (w == v && (res = sweep_group(P, v, mode, step)) < 0)
                return -1;
            made += res;
            *moves += (size_t)res;
            continue;
        }
        if (P->vfo[v + 1] == P->vfo[v] || !setup_vertex(P, v))
            continue;
        double dir[6][3];
        int nd = directions(P, v, dir);
        if (!nd)
            continue;
        double m0 = local_quality(P, v, 0);
        if (mode == 0 && m0 >= 1)
            continue;
        double v0[3];
        v3_copy(v0, c->v + 3 * v);
        step_result res[6];
        if (nw > 1) {
#pragma omp parallel num_threads(nw)
            {
#ifdef _OPENMP
                pol *Q = &W[omp_get_thread_num()];
#else
                pol *Q = &W[0];
#endif
                setup_vertex(Q, v);
#pragma omp for schedule(static)
                for (int d = 0; d < nd; d++)
                    try_step(Q, v, mode, m0, v0, step, dir[d], &res[d]);
            }
        } else {
            for (int d = 0; d < nd; d++)
                try_step(P, v, mode, m0, v0, step, dir[d], &res[d]);
        }
        long long best_gain = mode == 0 ? LLONG_MIN : 0;
        double best_m = m0;
        int best = -1;
        for (int d = 0; d < nd; d++) {
            if (res[d].fail)
                return -1;
            if (!res[d].pass)
                continue;
            int better = res[d].gain > best_gain || (mode == 0 && res[d].gain == best_gain && res[d].m1 > best_m);
            if (better && res[d].convex) {
                best_gain = res[d].gain;
                best_m = res[d].m1;
                best = d;
            }
        }
        if (best < 0)
            continue;
        /* recount on the master: the trial's candidate lists were overwritten
         * by later trials (one count per move against about six per vertex) */
        place(P, res[best].p);
        long long g = 0;
        if (count_gain(P, &g))
            return -1;
        commit(P);
        P->good += g;
        for (int j = 0; j < P->nvf; j++)
            for (int i = c->foff[P->vf[j]]; i < c->foff[P->vf[j] + 1]; i++)
                P->dirty[c->fv[i]] = 1;
        made++;
        (*moves)++;
    }
    return made;
}

rve_status rve_cx_polish(rve_cx *c, const rve_map *map, const int *ids, double threshold,
                         double max_angle, double min_angle, const rve_reg_opts *o,
                         rve_reg_report *rep, rve_err *err)
{
    pol P, *W = NULL; /* W: workers, see below */
    int nw = 1;
    memset(&P, 0, sizeof P);
    P.c = c;
    P.map = map;
    P.thr = threshold;
    P.max_bend = max_angle * PI / 180;
    P.qang = min_angle * PI / 180;
    if (!map)
        return rve_err_set(err, RVE_EUSAGE, NULL, "the polish needs a grain map");
    rve_status st = build_incidence(&P, err);
    for (int a = 0; c->fper && a < 3; a++)
        if (c->periodic[a])
            P.frz |= 3u << (2 * a);
    if (st == RVE_OK && P.frz && !(P.plink = rve_cx_periodic_links(c, P.mask, NULL, P.frz)))
        st = rve_err_set(err, RVE_ENOMEM, NULL, "out of memory");
    if (st == RVE_OK) {
        size_t nvox = rve_map_nvox(map);
        P.truth = malloc(nvox * sizeof(int32_t));
        P.cur = malloc(nvox * sizeof(int32_t));
        if (!P.truth || !P.cur)
            st = rve_err_set(err, RVE_ENOMEM, NULL, "out of memory");
        if (st == RVE_OK)
            st = build_truth(&P, ids, err);
        if (st == RVE_OK)
            st = rasterise(&P, err);
        if (st == RVE_OK) {
            rep->acc_reg = P.nvox ? (double)P.good / (double)P.nvox : 0;
        }
    }
    if (st != RVE_OK)
        goto out;
    global_angles(&P, &rep->angle_before, &rep->sharp_before);
    double h = fmin(map->h[0], fmin(map->h[1], map->h[2]));
    /* workers for the steps of one vertex: copies of P with their own trial
     * buffers (candidates, voxels met); at most one per direction */
#ifdef _OPENMP
    nw = omp_get_max_threads();
#endif
    if (nw > 6)
        nw = 6;
    if (nw > 1) {
        W = calloc((size_t)nw, sizeof *W);
        if (!W)
            nw = 1;
        for (int w = 0; w < nw && W; w++) {
            W[w] = P;
            W[w].cand = NULL;
            W[w].cnew = NULL;
            W[w].ncand = W[w].capcand = 0;
            W[w].seen = NULL;
            W[w].seen_cap = W[w].seen_n = 0;
            W[w].gen = 0;
            W[w].vmark = calloc((size_t)c->nv + 1, sizeof(uint32_t));
            W[w].vgen = 0;
            if (!W[w].vmark) {
                for (int x = 0; x < w; x++)
                    free(W[x].vmark);
                free(W);
                W = NULL;
                nw = 1; /* no room for the workers: one */
            }
        }
    }
    /* angles first (they need the room), then accuracy; coarse to fine */
    static const double steps[3] = {0.5, 0.25, 0.125};
    for (int mode = 0; mode < 2; mode++) {
        for (int s = 0; s < 3; s++) {
            memset(P.dirty, 1, (size_t)c->nv);
            for (int it = 0; it < 12; it++) {
                long made = sweep(&P, W, nw, mode, steps[s] * h, &rep->polish_moves);
                if (o && o->progress) /* stages of equal weight: 2 modes x 3 steps */
                    o->progress(o->progress_ctx, (mode * 3 + s + (it + 1) / 12.0) / 6.0,
                                rep->polish_moves, P.nvox ? (double)P.good / (double)P.nvox : 0);
                if (made < 0) {
                    st = rve_err_set(err, RVE_ENOMEM, NULL, "out of memory");
                    goto out;
                }
                if (made == 0)
                    break;
            }
        }
    }
    global_angles(&P, &rep->angle_after, &rep->sharp_after);
    rep->angle_before *= 180 / PI;
    rep->angle_after *= 180 / PI;
    rep->acc_polish = P.nvox ? (double)P.good / (double)P.nvox : 0;
out:
    if (W)
        for (int w = 0; w < nw; w++) {
            free(W[w].seen);
            free(W[w].vmark);
            free(W[w].cand);
            free(W[w].cnew);
        }
    free(W);
    free(P.vfo);
    free(P.vfl);
    free(P.cfo);
    free(P.cfl);
    free(P.mask);
    free(P.dirty);
    free(P.vmark);
    free(P.truth);
    free(P.cur);
    free(P.seen);
    free(P.cand);
    free(P.cnew);
    free(P.plink);
    return st;
}
