/* fold_meet.c - do two triangles of a complex meet anywhere but at the
 * vertices they share?  Used by the fold (fold.c) to refuse a face point move
 * whose new triangles cross a face of the pieces around it.
 *
 * Triangles carry vertex ids (face points get ids of their own), so shared
 * vertices are known exactly.  Closed tests with the signs of 3 x 3
 * determinants in double ("exact enough": a touch counts as a meeting, so a
 * doubtful case refuses the fold):
 * - sharing an edge, they meet only when folded onto each other: the angle at
 *   the edge is (below 1e-9 rad) zero;
 * - otherwise each edge of one that avoids the shared vertex is tested against
 *   the other (closed) triangle, and the other way round.  For triangles that
 *   are not coplanar, the meeting set is a segment whose far end lies on such
 *   an edge (an edge through the shared vertex lying in the other's plane has
 *   its far end on the other triangle's boundary, which is one of those
 *   edges or holds a vertex of the first); coplanar segments are tested in
 *   the plane of projection that keeps the triangle's normal's largest axis. */
#include "config.h"

#include "mesh/mesh_internal.h"
#include "util/vec3.h"
#include <math.h>

#define MEET_FLAT_RAD 1e-9

double mesh_orient3(const double *p, const double *q, const double *r, const double *s)
{
    double a[3], b[3], d[3], n[3];
    v3_sub(a, q, p);
    v3_sub(b, r, p);
    v3_sub(d, s, p);
    v3_cross(n, a, b);
    return v3_dot(n, d);
}

static double orient2(const double *p, const double *q, const double *r, int i, int j)
{
    return (q[i] - p[i]) * (r[j] - p[j]) - (q[j] - p[j]) * (r[i] - p[i]);
}

static int same_sign3(double x, double y, double z)
{
    return (x >= 0 && y >= 0 && z >= 0) || (x <= 0 && y <= 0 && z <= 0);
}

/* closed segments p-q and r-s in the plane (i, j) */
static int seg_seg2(const double *p, const double *q, const double *r, const double *s, int i, int j)
{
    double d1 = orient2(p, q, r, i, j), d2 = orient2(p, q, s, i, j);
    double d3 = orient2(r, s, p, i, j), d4 = orient2(r, s, q, i, j);
    if (d1 * d2 > 0 || d3 * d4 > 0)
        return 0;
    if (d1 != 0 || d2 != 0 || d3 != 0 || d4 != 0)
        return 1;
    /* collinear: overlap of the projections on the axis of larger extent */
    int k = fabs(q[i] - p[i]) + fabs(s[i] - r[i]) >= fabs(q[j] - p[j]) + fabs(s[j] - r[j]) ? i : j;
    return fmax(fmin(p[k], q[k]), fmin(r[k], s[k])) <= fmin(fmax(p[k], q[k]), fmax(r[k], s[k]));
}

/* closed segment p-q against the closed triangle t, all in one plane */
static int seg_tri2(const double *p, const double *q, const double *const t[3], const double n[3])
{
    int k = fabs(n[0]) >= fabs(n[1]) && fabs(n[0]) >= fabs(n[2]) ? 0 : fabs(n[1]) >= fabs(n[2]) ? 1 : 2;
    int i = (k + 1) % 3, j = (k + 2) % 3;
    for (int e = 0; e < 3; e++)
        if (seg_seg2(p, q, t[e], t[(e + 1) % 3], i, j))
            return 1;
    double o0 = orient2(t[0], t[1], p, i, j), o1 = orient2(t[1], t[2], p, i, j), o2 = orient2(t[2], t[0], p, i, j);
    return same_sign3(o0, o1, o2); /* p inside (then so is the segment) */
}

/* closed segment p-q against the closed triangle t */
static int seg_tri(const double *p, const double *q, const double *const t[3])
{
    double dp = mesh_orient3(t[0], t[1], t[2], p), dq = mesh_orient3(t[0], t[1], t[2], q);
    if (dp * dq > 0)
        return 0;
    if (dp == 0 && dq == 0) {
        double a[3], b[3], n[3];
        v3_sub(a, t[1], t[0]);
        v3_sub(b, t[2], t[0]);
        v3_cross(n, a, b);
        return seg_tri2(p, q, t, n);
    }
    return same_sign3(mesh_orient3(p, q, t[0], t[1]), mesh_orient3(p, q, t[1], t[2]), mesh_orient3(p, q, t[2], t[0]));
}

static int has(const int id[3], int x)
{
    return id[0] == x || id[1] == x || id[2] == x;
}

/* the edges of (ia, xa) that avoid the vertices shared with (ib, xb) meet
 * the triangle xb */
static int edges_meet(const int ia[3], const double *const xa[3], const int ib[3], const double *const xb[3])
{
    for (int e = 0; e < 3; e++) {
        int e1 = (e + 1) % 3;
        if (has(ib, ia[e]) || has(ib, ia[e1]))
            continue;
        if (seg_tri(xa[e], xa[e1], xb))
            return 1;
    }
    return 0;
}

int mesh_tri_meet(const int ia[3], const double *const xa[3], const int ib[3], const double *const xb[3])
{
    int sa[3], ns = 0;
    for (int e = 0; e < 3; e++)
        if (has(ib, ia[e]))
            sa[ns++] = e;
    if (ns == 3)
        return 1;
    if (ns == 2) {
        /* the edge p-r, the third vertices x (of a) and y (of b) */
        const double *p = xa[sa[0]], *r = xa[sa[1]], *x = xa[3 - sa[0] - sa[1]], *y = NULL;
        for (int e = 0; e < 3; e++)
            if (!has(ia, ib[e]))
                y = xb[e];
        return mesh_edge_angle(p, r, x, y) < MEET_FLAT_RAD;
    }
    return edges_meet(ia, xa, ib, xb) || edges_meet(ib, xb, ia, xa);
}

/* angle (radians, in [0, pi]) at the edge p-m between the half-planes
 * through x and y: atan2 of the sine and cosine, accurate at small angles */
double mesh_edge_angle(const double *p, const double *m, const double *x, const double *y)
{
    double e[3], u[3], w[3], t[3];
    v3_sub(e, m, p);
    if (!(v3_normalize(e) > 0))
        return 0;
    v3_sub(u, x, p);
    v3_scale(t, e, v3_dot(u, e));
    v3_sub(u, u, t);
    v3_sub(w, y, p);
    v3_scale(t, e, v3_dot(w, e));
    v3_sub(w, w, t);
    if (!(v3_norm2(u) > 0 && v3_norm2(w) > 0))
        return 0;
    v3_cross(t, u, w);
    return atan2(v3_norm(t), v3_dot(u, w));
}
