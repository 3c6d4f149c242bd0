/* reg_merge.c - one merge of vertices (an edge collapse, or a whole small
 * cell) with its checks and its least-squares placement (Montanari 2017,
 * Sec. 6.3.2, Eq. 6.6). */
#include "config.h"
#include "mesh/reg_state.h"
#include "util/vec3.h"
#include <gsl/gsl_linalg.h>
#include <gsl/gsl_matrix.h>
#include <gsl/gsl_vector.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Put x on the plane n.x = d; exactly for axis-aligned planes. */
void reg_snap_plane(const double *pl, double x[3])
{
    for (int ax = 0; ax < 3; ax++)
        if (fabs(pl[ax]) == 1 && pl[(ax + 1) % 3] == 0 && pl[(ax + 2) % 3] == 0) {
            x[ax] = pl[3] * pl[ax];
            return;
        }
    v3_axpy(x, x, pl[3] - v3_dot(pl, x), pl);
}

/* Domain planes whose vertices are frozen: the box faces of the periodic
 * axes of a periodic box complex.  Their polygons are exact translates of
 * the opposite ones; moving a vertex there (or collapsing an edge there)
 * would need the same move on every periodic copy, so those vertices stay
 * put: edges from the interior collapse onto them, edges between two of
 * them stay. */
unsigned reg_frozen_planes(const rve_cx *c)
{
    unsigned m = 0;
    for (int a = 0; c->fper && a < 3; a++)
        if (c->periodic[a])
            m |= 3u << (2 * a);
    return m;
}


double reg_elen(const reg *r, int a, int b)
{
    int lo = a < b ? a : b, hi = a < b ? b : a;
    return v3_dist(r->c->v + 3 * lo, r->c->v + 3 * hi);
}

static int face_has_edge(const reg *r, int f, int a, int b)
{
    int a0 = r->c->foff[f], n = r->flen[f];
    for (int i = 0; i < n; i++) {
        int p = r->c->fv[a0 + i], q = r->c->fv[a0 + (i + 1) % n];
        if ((p == a && q == b) || (p == b && q == a))
            return 1;
    }
    return 0;
}

int reg_edge_exists(const reg *r, int a, int b)
{
    const ilist *l = &r->vf[a];
    for (int i = 0; i < l->n; i++)
        if (r->flen[l->a[i]] >= 3 && face_has_edge(r, l->a[i], a, b))
            return 1;
    return 0;
}

/* Least-squares position (Eq. 6.6, weighted): minimise sum w_i (n_i.p - d_i)^2
 * over the initial planes of the faces in F that are not domain faces
 * (weights w_i of face_weights), with p on every domain plane of mask;
 * directions the planes do not determine keep the midpoint's value
 * (truncated SVD, minimum-norm correction).  (Iterating towards the L1
 * optimum, sum w_i |n_i.p - d_i|, which sits exactly on a few large faces,
 * lost about as much accuracy and bent the small faces more: worse meshes on
 * data/dct.) */
int reg_ls_position(const reg *r, unsigned mask, const double mid[3], double p[3])
{
    const rve_cx *c = r->c;
    /* orthonormal basis of constrained directions (Gram-Schmidt) */
    double Q[3][3];
    int nq = 0;
    double x0[3];
    v3_copy(x0, mid);
    for (int k = 0; k < c->ndom; k++) {
        if (!(mask & (1u << k)))
            continue;
        const double *pl = c->dom + 4 * k;
        /* project x0 onto the plane along its normal, keeping earlier constraints:
         * for box domains the normals are orthogonal and this is exact. */
        double nn[3];
        v3_copy(nn, pl);
        for (int j = 0; j < nq; j++)
            v3_axpy(nn, nn, -v3_dot(nn, Q[j]), Q[j]);
        double len = v3_normalize(nn);
        if (len < 1e-9)
            continue;
        double s = (pl[3] - v3_dot(pl, x0)) / v3_dot(pl, nn);
        v3_axpy(x0, x0, s, nn);
        reg_snap_plane(pl, x0);
        v3_copy(Q[nq], nn);
        nq++;
    }
    if (nq >= 3) {
        v3_copy(p, x0);
        return 0;
    }
    /* free directions N (3 - nq) */
    double N[3][3];
    int nn_ = 0;
    for (int e = 0; e < 3 && nn_ < 3 - nq; e++) {
        double u[3] = {0, 0, 0};
        u[e] = 1;
        for (int j = 0; j < nq; j++)
            v3_axpy(u, u, -v3_dot(u, Q[j]), Q[j]);
        for (int j = 0; j < nn_; j++)
            v3_axpy(u, u, -v3_dot(u, N[j]), N[j]);
        if (v3_normalize(u) > 1e-6)
            v3_copy(N[nn_++], u);
    }
    int m = 0;
    for (int i = 0; i < r->F.n; i++)
        if (c->fdom[r->F.a[i]] < 0)
            m++;
    int rows = m > nn_ ? m : nn_;
    gsl_matrix *A = gsl_matrix_calloc((size_t)rows, (size_t)nn_);
    gsl_matrix *V = gsl_matrix_alloc((size_t)nn_, (size_t)nn_);
    gsl_vector *S = gsl_vector_alloc((size_t)nn_), *w = gsl_vector_alloc((size_t)nn_);
    gsl_vector *rhs = gsl_vector_calloc((size_t)rows), *y = gsl_vector_calloc((size_t)nn_);
    int ok = A && V && S && w && rhs && y;
    if (ok) {
        int k = 0;
        for (int i = 0; i < r->F.n; i++) {
            int f = r->F.a[i];
            if (c->fdom[f] >= 0)
                continue;
            const double *pl = r->plane0 + 4 * f;
            double sw = sqrt(r->fw[i]);
            for (int j = 0; j < nn_; j++)
                gsl_matrix_set(A, (size_t)k, (size_t)j, sw * v3_dot(pl, N[j]));
            gsl_vector_set(rhs, (size_t)k, sw * (pl[3] - v3_dot(pl, x0)));
            k++;
        }
        ok = gsl_linalg_SV_decomp(A, V, S, w) == 0;
    }
    if (ok) {
        double smax = gsl_vector_get(S, 0);
        for (size_t j = 0; j < (size_t)nn_; j++) {
            double s = gsl_vector_get(S, j);
            if (!(s > 0.05 * smax) || !(s > 0))
                continue;
            /* y += v_j (u_j . rhs) / s_j */
            double ur = 0;
            for (size_t i = 0; i < (size_t)rows; i++)
                ur += gsl_matrix_get(A, i, j) * gsl_vector_get(rhs, i);
            for (size_t i = 0; i < (size_t)nn_; i++)
                gsl_vector_set(y, i, gsl_vector_get(y, i) + gsl_matrix_get(V, i, j) * ur / s);
        }
        v3_copy(p, x0);
        for (int j = 0; j < nn_; j++)
            v3_axpy(p, p, gsl_vector_get(y, (size_t)j), N[j]);
    }
    gsl_matrix_free(A);
    gsl_matrix_free(V);
    gsl_vector_free(S);
    gsl_vector_free(w);
    gsl_vector_free(rhs);
    gsl_vector_free(y);
    return ok ? 0 : -1;
}

static const double *vpos(const reg *r, int v, int a, const double p[3])
{
    return v == a ? p : r->c->v + 3 * v;
}

/* v, or the vertex it merges into. */
static int merged(const reg *r, int v)
{
    for (int i = 1; i < r->mk; i++)
        if (r->mset[i] == v)
            return r->mset[0];
    return v;
}

/* Fan centre of face f with loop lp (vertex a at p): the vertex mean.
 * (Moving it onto the face's initial plane sweeps less volume when one
 * vertex was lifted, about 25 % less voxel accuracy lost on in100-a, but
 * tilts the two fan triangles at that vertex by the whole lift: the wedges
 * they make with the neighbouring faces tripled the share of elements with
 * q < 0.1 there, so the mean stays.) */
void reg_fan_centre(const reg *r, int f, const int *lp, int n, int a, const double p[3],
                       double ctr[3])
{
    (void)f;
    ctr[0] = ctr[1] = ctr[2] = 0;
    for (int i = 0; i < n; i++)
        v3_add(ctr, ctr, vpos(r, lp[i], a, p));
    v3_scale(ctr, ctr, 1.0 / n);
}

/* Bend of face f's loop (vertex a at p), as a cosine: the face's mean normal
 * n and centre m (vertex mean), its equivalent radius r = sqrt(area / pi) and
 * the largest distance h of a vertex to the mean plane give the angle
 * atan(h / r): the tilt of a flat face lifted by h at its rim.  Unlike the
 * angles of the fan triangles themselves, this stays meaningful on thin faces
 * (a sliver face bent by a negligible amount has near-degenerate fan
 * triangles at large angles).  Returns -2 when the face turned over relative
 * to its initial normal or a fan triangle (around the fan centre, ctr on
 * return) folded over (its normal opposite to the mean normal). */
double reg_loop_min_cos(const reg *r, int f, const int *lp, int n, int a, const double p[3],
                           double ctr[3])
{
    const double *n0 = r->plane0 + 4 * f;
    double m[3] = {0, 0, 0};
    for (int i = 0; i < n; i++)
        v3_add(m, m, vpos(r, lp[i], a, p));
    v3_scale(m, m, 1.0 / n);
    reg_fan_centre(r, f, lp, n, a, p, ctr);
    /* vector area: independent of the centre for a closed loop */
    double tn[3] = {0, 0, 0};
    for (int i = 0; i < n; i++) {
        double u[3], w[3], x[3];
        v3_sub(u, vpos(r, lp[i], a, p), m);
        v3_sub(w, vpos(r, lp[(i + 1) % n], a, p), m);
        v3_cross(x, u, w);
        v3_add(tn, tn, x);
    }
    double area2 = v3_normalize(tn);
    if (!(area2 > 0) || v3_dot(tn, n0) <= 0)
        return -2;
    double h = 0;
    for (int i = 0; i < n; i++) {
        double u[3], w[3], x[3], um[3];
        v3_sub(u, vpos(r, lp[i], a, p), ctr);
        v3_sub(w, vpos(r, lp[(i + 1) % n], a, p), ctr);
        v3_cross(x, u, w);
        if (!(v3_dot(x, tn) > 0))
            return -2;
        v3_sub(um, vpos(r, lp[i], a, p), m);
        h = fmax(h, fabs(v3_dot(um, tn)));
    }
    double rad = sqrt(0.5 * area2 / PI);
    return rad / sqrt(rad * rad + h * h); /* cos(atan(h / r)) */
}

/* Cells around stay star-shaped from their vertex mean with a at p. */
static int cells_ok(const reg *r, int a, const double p[3])
{
    const rve_cx *c = r->c;
    /* cells stay star-shaped from their vertex mean */
    for (int i = 0; i < r->cells.n; i++) {
        int cell = r->cells.a[i];
        if (cell == r->dying)
            continue;
        double cc[3] = {0, 0, 0};
        int cnt = 0;
        for (int j = r->coff[cell]; j < r->coff[cell + 1]; j++) {
            int f = r->cfac[j];
            if (r->flen[f] < 3)
                continue;
            for (int t = 0; t < r->flen[f]; t++) {
                int v = merged(r, c->fv[c->foff[f] + t]);
                v3_add(cc, cc, vpos(r, v, a, p));
                cnt++;
            }
        }
        if (!cnt)
            return 0;
        v3_scale(cc, cc, 1.0 / cnt);
        for (int q = 0; q < r->F.n; q++) {
            int f = r->F.a[q], n = r->nloff[q + 1] - r->nloff[q];
            if (n < 3)
                continue;
            int s = c->fc[2 * f] == cell ? 1 : c->fc[2 * f + 1] == cell ? -1 : 0;
            if (!s)
                continue;
            const int *lp = r->newloop + r->nloff[q];
            double ctr[3];
            reg_fan_centre(r, f, lp, n, a, p, ctr);
            for (int j = 0; j < n; j++) {
                double u[3], w[3], z[3], x[3];
                v3_sub(u, vpos(r, lp[j], a, p), cc);
                v3_sub(w, vpos(r, lp[(j + 1) % n], a, p), cc);
                v3_sub(z, ctr, cc);
                v3_cross(x, u, w);
                double vol = s * v3_dot(z, x);
                double scale = v3_norm(u) * v3_norm(w) * v3_norm(z);
                if (!(vol > 1e-9 * scale))
                    return 0;
            }
        }
    }
    return 1;
}

/* Project x onto the domain planes of mask (box domains: exact). */
static int project_domain(const reg *r, unsigned mask, const double x[3], double out[3])
{
    v3_copy(out, x);
    for (int k = 0; k < r->c->ndom; k++) {
        if (!(mask & (1u << k)))
            continue;
        reg_snap_plane(r->c->dom + 4 * k, out);
    }
    return 0;
}

/* Smallest fan cosine over the new loops of the faces around, with a at p. */
static double worst_cos(const reg *r, int a, const double p[3], double stop)
{
    double wmc = 1;
    for (int q = 0; q < r->F.n && wmc >= stop; q++) {
        int f = r->F.a[q], n = r->nloff[q + 1] - r->nloff[q];
        if (n < 3)
            continue;
        double ctr[3];
        double mc = reg_loop_min_cos(r, f, r->newloop + r->nloff[q], n, a, p, ctr);
        if (mc < wmc)
            wmc = mc;
    }
    return wmc;
}

/* Weight of each face plane in the placement of the merged vertex a: moving
 * a by h across its face sweeps about h (A1 + A2) / 3 + h A / (3 n) of volume
 * (A1, A2 the two fan triangles at a, A the face's area, n its vertex count:
 * the fan centre, the vertex mean, moves by h / n), so the distances are
 * weighted by A1 + A2 + A / n, evaluated with a at x.  Faces that vanish and
 * domain faces (hard constraints) get 0.  Eq. 6.6 weighs every face alike,
 * which lets a vanishing triangle or a tiny face pull the vertex off the
 * planes of the large faces around it. */
static int face_weights(reg *r, int a, const double x[3])
{
    const rve_cx *c = r->c;
    if (r->F.n > r->fw_cap) {
        int cap = 2 * r->F.n + 16;
        double *w = realloc(r->fw, (size_t)cap * sizeof(double));
        if (!w)
            return -1;
        r->fw = w;
        r->fw_cap = cap;
    }
    for (int q = 0; q < r->F.n; q++) {
        int f = r->F.a[q], n = r->nloff[q + 1] - r->nloff[q];
        r->fw[q] = 0;
        if (n < 3 || c->fdom[f] >= 0)
            continue;
        const int *lp = r->newloop + r->nloff[q];
        double ctr[3];
        reg_fan_centre(r, f, lp, n, a, x, ctr);
        double adj = 0, area = 0;
        for (int j = 0; j < n; j++) {
            double u[3], w[3], z[3];
            int p0 = lp[j], p1 = lp[(j + 1) % n];
            v3_sub(u, vpos(r, p0, a, x), ctr);
            v3_sub(w, vpos(r, p1, a, x), ctr);
            v3_cross(z, u, w);
            double t = 0.5 * v3_norm(z);
            area += t;
            if (p0 == a || p1 == a)
                adj += t;
        }
        r->fw[q] = adj + area / n;
    }
    return 0;
}

/* Volume swept by the faces in F with the merged vertex at x, about
 * sum w_q |distance of x to the initial plane of face q| (times 3). */
static double plane_cost(const reg *r, const double x[3])
{
    double J = 0;
    for (int q = 0; q < r->F.n; q++) {
        if (r->fw[q] <= 0)
            continue;
        const double *pl = r->plane0 + 4 * r->F.a[q];
        J += r->fw[q] * fabs(v3_dot(pl, x) - pl[3]);
    }
    return J;
}

/* The merged loops of the faces around the merged vertices (r->F) into
 * r->newloop / r->nloff: 1, or 0 when a face would pinch (a twice), -1 on
 * memory. */
static int merge_loops(reg *r)
{
    rve_cx *c = r->c;
    int a = r->mset[0];
    int total = 0;
    for (int i = 0; i < r->F.n; i++)
        total += r->flen[r->F.a[i]];
    if (total + 1 > r->scratch_cap || r->F.n + 1 > r->scratch_cap) {
        int cap = 2 * (total > r->F.n ? total : r->F.n) + 16;
        int *nl = realloc(r->newloop, (size_t)cap * sizeof(int));
        if (!nl)
            return -1;
        r->newloop = nl;
        int *no = realloc(r->nloff, (size_t)(cap + 1) * sizeof(int));
        if (!no)
            return -1;
        r->nloff = no;
        r->scratch_cap = cap;
    }
    int k = 0;
    for (int i = 0; i < r->F.n; i++) {
        int f = r->F.a[i], a0 = c->foff[f], n = r->flen[f];
        r->nloff[i] = k;
        int start = k;
        for (int j = 0; j < n; j++) {
            int v = merged(r, c->fv[a0 + j]);
            if (k > start && r->newloop[k - 1] == v)
                continue;
            r->newloop[k++] = v;
        }
        if (k - start > 1 && r->newloop[k - 1] == r->newloop[start])
            k--;
        /* pinch: a twice */
        int na = 0;
        for (int j = start; j < k; j++)
            na += r->newloop[j] == a;
        if (na > 1)
            return 0;
    }
    r->nloff[r->F.n] = k;
    return 1;
}

/* Cell pairs of surviving faces stay distinct, every cell keeps >= 4 faces
 * (the dying one none), and each cell stays closed around a: 1, 0 refused,
 * -1 on memory. */
static int merge_topology_ok(reg *r)
{
    rve_cx *c = r->c;
    int a = r->mset[0];
    /* cell pairs of surviving faces must stay distinct; every cell keeps >= 4 faces */
    r->cells.n = 0;
    for (int i = 0; i < r->F.n; i++) {
        int f = r->F.a[i];
        for (int s = 0; s < 2; s++)
            if (c->fc[2 * f + s] >= 0 && !il_has(&r->cells, c->fc[2 * f + s]))
                if (il_push(&r->cells, c->fc[2 * f + s]))
                    return -1;
    }
    for (int i = 0; i < r->F.n; i++) {
        if (r->nloff[i + 1] - r->nloff[i] < 3)
            continue;
        int f = r->F.a[i];
        for (int j = i + 1; j < r->F.n; j++) {
            if (r->nloff[j + 1] - r->nloff[j] < 3)
                continue;
            int g = r->F.a[j];
            int x0 = c->fc[2 * f], x1 = c->fc[2 * f + 1], y0 = c->fc[2 * g], y1 = c->fc[2 * g + 1];
            if ((x0 == y0 && x1 == y1) || (x0 == y1 && x1 == y0)) {
                if (x1 >= 0 || c->fdom[f] == c->fdom[g])
                    return 0;
            }
        }
    }
    for (int i = 0; i < r->cells.n; i++) {
        int cell = r->cells.a[i], nfa = 0;
        for (int j = r->coff[cell]; j < r->coff[cell + 1]; j++) {
            int f = r->cfac[j];
            if (r->flen[f] < 3)
                continue;
            int idx = -1;
            for (int q = 0; q < r->F.n; q++)
                if (r->F.a[q] == f)
                    idx = q;
            if (idx >= 0 && r->nloff[idx + 1] - r->nloff[idx] < 3)
                continue;
            nfa++;
        }
        if (cell == r->dying ? nfa != 0 : nfa < 4)
            return 0;
    }
    /* closedness around a: in each cell, directed edges at a pair up */
    for (int i = 0; i < r->cells.n; i++) {
        int cell = r->cells.a[i];
        r->tmp.n = 0;
        for (int q = 0; q < r->F.n; q++) {
            int f = r->F.a[q], n = r->nloff[q + 1] - r->nloff[q];
            if (n < 3)
                continue;
            int s = c->fc[2 * f] == cell ? 1 : c->fc[2 * f + 1] == cell ? -1 : 0;
            if (!s)
                continue;
            const int *lp = r->newloop + r->nloff[q];
            for (int j = 0; j < n; j++) {
                int p0 = lp[j], p1 = lp[(j + 1) % n];
                if (s < 0) {
                    int t = p0;
                    p0 = p1;
                    p1 = t;
                }
                if (p0 == a) {
                    if (il_push(&r->tmp, p1 + 1))
                        return -1;
                } else if (p1 == a) {
                    if (il_push(&r->tmp, -(p0 + 1)))
                        return -1;
                }
            }
        }
        /* each outgoing x must match exactly one incoming x */
        for (int j = 0; j < r->tmp.n; j++) {
            int x = r->tmp.a[j], out = 0, in = 0;
            for (int q = 0; q < r->tmp.n; q++) {
                out += r->tmp.a[q] == abs(x);
                in += r->tmp.a[q] == -abs(x);
            }
            if (out != 1 || in != 1)
                return 0;
        }
    }
    return 1;
}

/* The position of the merged vertex into p (see below): 1, 0 when no
 * feasible point is found, -1 on memory. */
static int merge_position(reg *r, unsigned mu, double p[3])
{
    rve_cx *c = r->c;
    int a = r->mset[0];
    unsigned frz = reg_frozen_planes(c);
    /* Position.  The least-squares point (Eq. 6.6, weighted by the area each
     * face plane would sweep, see face_weights) is taken when it passes the
     * checks; otherwise the feasible point of a few candidates (points of the
     * edge, halfway to the least-squares point) with the smallest weighted
     * plane cost, then a pattern search that lowers that cost while staying
     * feasible.  Choosing by plane cost rather than by least bend keeps the
     * faces where the fit put them (voxel accuracy). */
    /* mid: the mean of the merged vertices; L: their largest distance */
    double mid[3] = {0, 0, 0}, cand[2 * RVE_REG_MAXSET + 12][3];
    int ncand = 0;
    double L = 0;
    for (int i = 0; i < r->mk; i++) {
        v3_add(mid, mid, c->v + 3 * r->mset[i]);
        for (int j = i + 1; j < r->mk; j++)
            L = fmax(L, v3_dist(c->v + 3 * r->mset[i], c->v + 3 * r->mset[j]));
    }
    v3_scale(mid, mid, 1.0 / r->mk);
    if (face_weights(r, a, mid) < 0)
        return -1;
    if (r->force) { /* a periodic copy: the translate of the first one's position */
        v3_copy(mid, r->fpos);
        L = 0;
    } else if ((r->mask[a] & frz) && !r->free_frozen) { /* frozen: stays where a is */
        v3_copy(mid, c->v + 3 * a);
        L = 0;
    }
    if (L > 0 && reg_ls_position(r, mu, mid, cand[ncand]) == 0)
        ncand++;
    if (ncand && !(v3_dist(cand[0], mid) <= 2 * L))
        ncand = 0;
    int have_ls = ncand;
    /* points of the edge (or the mean and the vertices of a cell), and
     * halfway between them and the least-squares point */
    static const double ts[5] = {0.5, 0.0, 1.0, 0.25, 0.75};
    int npts = L == 0 ? 0 : r->mk == 2 ? 5 : r->mk + 1;
    if (L == 0)
        v3_copy(cand[ncand++], mid);
    for (int i = 0; i < npts; i++) {
        double x[3];
        if (r->mk == 2) {
            v3_scale(x, c->v + 3 * a, 1 - ts[i]);
            v3_axpy(x, x, ts[i], c->v + 3 * r->mset[1]);
        } else {
            v3_copy(x, i == 0 ? mid : c->v + 3 * r->mset[i - 1]);
        }
        project_domain(r, mu, x, cand[ncand++]);
        if (have_ls) {
            v3_add(x, x, cand[0]);
            v3_scale(x, x, 0.5);
            project_domain(r, mu, x, cand[ncand++]);
        }
    }
    int found = -1;
    double foundJ = INFINITY, bestc = -3;
    int bestci = 0;
    for (int ci = 0; ci < ncand; ci++) {
        double wmc = worst_cos(r, a, cand[ci], -3);
        if (wmc > bestc) {
            bestc = wmc;
            bestci = ci;
        }
        if (wmc < r->cos_max)
            continue;
        double J = plane_cost(r, cand[ci]);
        if (J < foundJ && cells_ok(r, a, cand[ci])) {
            found = ci;
            foundJ = J;
            if (ci == 0 && have_ls)
                break; /* the least-squares point passes: it is the optimum */
        }
    }
    /* directions the domain leaves free, for the pattern searches */
    double dirs[6][3];
    int nd = 0;
    for (int e = 0; e < 3; e++) {
        double u[3] = {0, 0, 0};
        u[e] = 1;
        int free_dir = 1;
        for (int kd = 0; kd < c->ndom; kd++)
            if ((mu & (1u << kd)) && fabs(v3_dot(c->dom + 4 * kd, u)) > 1e-12)
                free_dir = 0;
        if (!free_dir)
            continue;
        v3_copy(dirs[nd++], u);
        v3_scale(dirs[nd++], u, -1);
    }
    if (found < 0 && bestc > -2 && L > 0) {
        /* pattern search for the point bending the faces least */
        double x[3];
        v3_copy(x, cand[bestci]);
        double step = 0.25 * L, fx = bestc;
        for (int it = 0; it < 40 && step > 0.01 * L && fx < r->cos_max; it++) {
            int improved = 0;
            for (int d = 0; d < nd; d++) {
                double y[3];
                v3_axpy(y, x, step, dirs[d]);
                double fy = worst_cos(r, a, y, -3);
                if (fy > fx) {
                    fx = fy;
                    v3_copy(x, y);
                    improved = 1;
                }
            }
            if (!improved)
                step *= 0.5;
        }
        if (fx >= r->cos_max && v3_dist(x, mid) <= 2 * L && cells_ok(r, a, x)) {
            v3_copy(cand[0], x);
            found = 0;
            foundJ = plane_cost(r, x);
            have_ls = 0;
        }
    }
    if (found < 0)
        return 0;
    v3_copy(p, cand[found]);
    if (!(found == 0 && have_ls)) {
        /* lower the plane cost among feasible points */
        double step = 0.25 * L;
        for (int it = 0; it < 60 && step > 0.02 * L && L > 0; it++) {
            int improved = 0;
            for (int d = 0; d < nd; d++) {
                double y[3];
                v3_axpy(y, p, step, dirs[d]);
                double J = plane_cost(r, y);
                if (J < foundJ && v3_dist(y, mid) <= 2 * L && worst_cos(r, a, y, r->cos_max) >= r->cos_max &&
                    cells_ok(r, a, y)) {
                    foundJ = J;
                    v3_copy(p, y);
                    improved = 1;
                }
            }
            if (!improved)
                step *= 0.5;
        }
    }
    return 1;
}

/* Merge the vertices r->mset[0 .. mk-1] into a = mset[0] (an edge collapse
 * when mk = 2; a whole small cell, r->dying, when all its vertices are
 * merged).  Returns 1 if done, 0 if refused, -1 on memory. */
int reg_try_merge(reg *r)
{
    rve_cx *c = r->c;
    int a = r->mset[0];
    unsigned mu = 0;
    for (int i = 0; i < r->mk; i++)
        mu |= r->mask[r->mset[i]];
    if (mu != r->mask[a])
        return 0; /* the vertex kept must lie on every wall of the others */
    unsigned frz = reg_frozen_planes(c);
    for (int i = 1; i < r->mk && !r->allow_frozen; i++)
        if (r->mask[r->mset[i]] & frz)
            return 0; /* only the kept vertex may be frozen (periodic box faces) */
    /* faces around the merged vertices */
    r->F.n = 0;
    for (int s = 0; s < r->mk; s++) {
        const ilist *l = &r->vf[r->mset[s]];
        for (int i = 0; i < l->n; i++) {
            int f = l->a[i];
            if (r->flen[f] >= 3 && !il_has(&r->F, f))
                if (il_push(&r->F, f))
                    return -1;
        }
    }
    int res = merge_loops(r);
    if (res == 1)
        res = merge_topology_ok(r);
    double p[3];
    if (res == 1)
        res = merge_position(r, mu, p);
    if (res != 1)
        return res;
    if (r->dry) {
        v3_copy(r->dry_pos, p);
        return 1;
    }
    /* commit */
    v3_copy(c->v + 3 * a, p);
    for (int i = 1; i < r->mk; i++)
        r->valive[r->mset[i]] = 0;
    r->mask[a] = mu;
    for (int q = 0; q < r->F.n; q++) {
        int f = r->F.a[q], n = r->nloff[q + 1] - r->nloff[q];
        memcpy(c->fv + c->foff[f], r->newloop + r->nloff[q], (size_t)n * sizeof(int));
        r->flen[f] = n < 3 ? 0 : n;
        /* frozen box faces keep their loop, so they stay plane surfaces */
        if (!(c->fdom[f] >= 0 && (frz >> c->fdom[f] & 1u)))
            c->fflat[f] = 0;
        if (n >= 3 && !il_has(&r->vf[a], f))
            if (il_push(&r->vf[a], f))
                return -1;
    }
    for (int i = 1; i < r->mk; i++)
        r->vf[r->mset[i]].n = 0;
    /* compact vf[a] */
    int w = 0;
    for (int i = 0; i < r->vf[a].n; i++)
        if (r->flen[r->vf[a].a[i]] >= 3)
            r->vf[a].a[w++] = r->vf[a].a[i];
    r->vf[a].n = w;
    return 1;
}

/* Collapse edge (a, b) into a. */
int reg_try_collapse(reg *r, int a, int b)
{
    r->mset[0] = a;
    r->mset[1] = b;
    r->mk = 2;
    r->dying = -1;
    return reg_try_merge(r);
}

/* Delete cell k by merging all its vertices into one; the kept vertex is
 * one whose walls contain those of all the others.  *kept receives it. */
int reg_try_delete_cell(reg *r, int k, int *kept)
{
    const rve_cx *c = r->c;
    r->mk = 0;
    for (int j = r->coff[k]; j < r->coff[k + 1]; j++) {
        int f = r->cfac[j];
        for (int t = 0; t < r->flen[f]; t++) {
            int v = c->fv[c->foff[f] + t], seen = 0;
            for (int i = 0; i < r->mk; i++)
                seen |= r->mset[i] == v;
            if (seen)
                continue;
            if (r->mk == RVE_REG_MAXSET)
                return 0;
            r->mset[r->mk++] = v;
        }
    }
    if (r->mk < 4)
        return 0;
    unsigned mu = 0;
    for (int i = 0; i < r->mk; i++)
        mu |= r->mask[r->mset[i]];
    int best = -1;
    for (int i = 0; i < r->mk && best < 0; i++)
        if (r->mask[r->mset[i]] == mu)
            best = i;
    if (best < 0)
        return 0;
    int t = r->mset[0];
    r->mset[0] = r->mset[best];
    r->mset[best] = t;
    r->dying = k;
    *kept = r->mset[0];
    return reg_try_merge(r);
}
