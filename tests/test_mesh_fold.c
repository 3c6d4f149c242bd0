/* test_mesh_fold.c - the fold of folded face pairs (src/mesh/fold.c) refuses
 * a move whose new triangles cross, and the triangle test it uses
 * (mesh_tri_meet, src/mesh/fold_meet.c).
 *
 * The cell: a tetrahedron u, w, a, b whose edge a-b is bent through a fifth
 * vertex m, so that its faces are two bent quadrilaterals f = (u, a, m, b)
 * and g = (w, b, m, a) sharing the path a-m-b (a folded pair) and two
 * triangles (a, u, w), (u, b, w).  The coordinates (3 decimals) were found by
 * a random search in numpy (not part of the test) among the cells on which
 * every other guard of the fold passes (the fans' orientation, the wedge
 * opening at a-m and m-b, a positive volume after the move, a larger
 * smallest angle at the pair's edges): in CROSS the new triangles (u, a, m),
 * (u, m, b), (w, b, m), (w, m, a) cross each other or the triangles' fans, in
 * CLEAR they do not.  Which is which is checked here by an independent
 * oracle: each edge's meeting point with the other triangle's plane by its
 * line parameter and barycentric coordinates, in long double, with margins
 * (no sign-of-volume predicate as in rve).  Removing the intersection check
 * from the fold makes the CROSS case fold (checked by hand, 27 Nov). */
#include "config.h"
#include "testutil.h"
#include "mesh/mesh_internal.h"
#include "dist_rng.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>

enum { U, W, A, B, M };
static int fv_[14] = {U, A, M, B, W, B, M, A, A, U, W, U, B, W};
static int foff_[5] = {0, 4, 8, 11, 14};

static const double CROSS[5][3] = {{0.027, 1.136, -0.191},
                                   {-0.554, 1.1, -0.533},
                                   {-0.882, 0.38, -0.824},
                                   {1.127, 0.612, -0.149},
                                   {-0.405, 0.176, 0.127}};
static const double CLEAR[5][3] = {{0.173, 1.411, 0.465},
                                   {-0.652, 1.453, -0.077},
                                   {-1.268, 0.291, 0.182},
                                   {1.147, 0.014, 0.273},
                                   {-0.368, -0.281, -0.241}};

typedef long double ld;

static int is_vertex(const double *p, const double *const t[3])
{
    for (int i = 0; i < 3; i++)
        if (p[0] == t[i][0] && p[1] == t[i][1] && p[2] == t[i][2])
            return 1;
    return 0;
}

/* the open segment p-q crosses the open triangle t (margin eps), or -1 when
 * it is too close to call; an end of the segment that is a vertex of t is
 * where the line meets t's plane (a line meets a plane once), so nowhere
 * else */
static int oracle_seg_tri(const double *p, const double *q, const double *const t[3])
{
    if (is_vertex(p, t) || is_vertex(q, t))
        return 0;
    ld e1[3], e2[3], d[3], n[3], r[3];
    for (int i = 0; i < 3; i++) {
        e1[i] = (ld)t[1][i] - t[0][i];
        e2[i] = (ld)t[2][i] - t[0][i];
        d[i] = (ld)q[i] - p[i];
        r[i] = (ld)p[i] - t[0][i];
    }
    n[0] = e1[1] * e2[2] - e1[2] * e2[1];
    n[1] = e1[2] * e2[0] - e1[0] * e2[2];
    n[2] = e1[0] * e2[1] - e1[1] * e2[0];
    ld den = n[0] * d[0] + n[1] * d[1] + n[2] * d[2];
    if (fabsl(den) < 1e-12L)
        return -1;
    ld s = -(n[0] * r[0] + n[1] * r[1] + n[2] * r[2]) / den;
    ld x[3];
    for (int i = 0; i < 3; i++)
        x[i] = r[i] + s * d[i];
    /* barycentric (alpha, beta) of x in e1, e2 by the 2 x 2 normal equations */
    ld a11 = 0, a12 = 0, a22 = 0, b1 = 0, b2 = 0;
    for (int i = 0; i < 3; i++) {
        a11 += e1[i] * e1[i];
        a12 += e1[i] * e2[i];
        a22 += e2[i] * e2[i];
        b1 += e1[i] * x[i];
        b2 += e2[i] * x[i];
    }
    ld det = a11 * a22 - a12 * a12, al = (b1 * a22 - b2 * a12) / det, be = (a11 * b2 - a12 * b1) / det;
    ld m = fminl(fminl(s, 1 - s), fminl(fminl(al, be), 1 - al - be));
    const ld eps = 1e-9L;
    return m > eps ? 1 : m < -eps ? 0 : -1;
}

/* two triangles meet beyond their shared vertices (the same points), by the
 * oracle; -1 when too close to call.  Generic (not coplanar) triangles
 * only. */
static int oracle_meet(const double *const xa[3], const double *const xb[3])
{
    int res = 0;
    for (int k = 0; k < 2; k++) {
        const double *const *x1 = k ? xb : xa, *const *x2 = k ? xa : xb;
        for (int e = 0; e < 3; e++) {
            int r = oracle_seg_tri(x1[e], x1[(e + 1) % 3], x2);
            if (r < 0)
                return -1;
            res |= r;
        }
    }
    return res;
}

static rve_cx *cell(const double X[5][3])
{
    rve_cx *c = calloc(1, sizeof *c);
    ck_assert(c);
    c->nv = 5;
    c->v = malloc(15 * sizeof *c->v);
    memcpy(c->v, X, 15 * sizeof *c->v);
    c->nf = 4;
    c->foff = malloc(sizeof foff_);
    memcpy(c->foff, foff_, sizeof foff_);
    c->fv = malloc(sizeof fv_);
    memcpy(c->fv, fv_, sizeof fv_);
    c->fpt = malloc(12 * sizeof *c->fpt);
    c->fflat = calloc(4, sizeof *c->fflat);
    c->fc = malloc(8 * sizeof *c->fc);
    c->fdom = malloc(4 * sizeof *c->fdom);
    c->nc = 1;
    c->cid = calloc(1, sizeof *c->cid);
    ck_assert(c->v && c->foff && c->fv && c->fpt && c->fflat && c->fc && c->fdom && c->cid);
    for (int f = 0; f < 4; f++) {
        rve_cx_face_centre(c, f, c->fpt + 3 * f);
        c->fc[2 * f] = 0;
        c->fc[2 * f + 1] = -1;
        c->fdom[f] = -1;
    }
    return c;
}

/* the fold's new triangles cross (oracle): f's and g's diagonal splits
 * against each other and against the fans of the two triangles */
static int new_triangles_cross(const double X[5][3])
{
    static const int NT[4][3] = {{U, A, M}, {U, M, B}, {W, B, M}, {W, M, A}};
    double cen[2][3];
    for (int k = 0; k < 2; k++)
        for (int i = 0; i < 3; i++)
            cen[k][i] = (X[fv_[8 + 3 * k]][i] + X[fv_[9 + 3 * k]][i] + X[fv_[10 + 3 * k]][i]) / 3;
    int any = 0;
    for (int i = 0; i < 4; i++) {
        const double *xa[3] = {X[NT[i][0]], X[NT[i][1]], X[NT[i][2]]};
        for (int j = 2; j < 4 && i < 2; j++) {
            const double *xb[3] = {X[NT[j][0]], X[NT[j][1]], X[NT[j][2]]};
            int r = oracle_meet(xa, xb);
            ck_assert_int_ge(r, 0);
            any |= r;
        }
        for (int k = 0; k < 2; k++)
            for (int e = 0; e < 3; e++) {
                const double *xb[3] = {cen[k], X[fv_[8 + 3 * k + e]], X[fv_[8 + 3 * k + (e + 1) % 3]]};
                int r = oracle_meet(xa, xb);
                ck_assert_int_ge(r, 0);
                any |= r;
            }
    }
    return any;
}

START_TEST(fold_refused_when_crossing)
{
    ck_assert(new_triangles_cross(CROSS));
    rve_cx *c = cell(CROSS);
    ck_assert(rve_cx_cell_volume(c, 0) > 0);
    double before[12];
    memcpy(before, c->fpt, sizeof before);
    ck_assert_int_eq(rve_cx_fold_quads(c), 0);
    ck_assert(memcmp(before, c->fpt, sizeof before) == 0);
    rve_cx_free(c);
}
END_TEST

START_TEST(fold_kept_when_clear)
{
    ck_assert(!new_triangles_cross(CLEAR));
    rve_cx *c = cell(CLEAR);
    ck_assert(rve_cx_cell_volume(c, 0) > 0);
    ck_assert_int_eq(rve_cx_fold_quads(c), 2);
    for (int f = 0; f < 2; f++)
        ck_assert(memcmp(c->fpt + 3 * f, CLEAR[M], 3 * sizeof(double)) == 0);
    ck_assert(rve_cx_cell_volume(c, 0) > 0);
    rve_cx_free(c);
}
END_TEST

/* mesh_tri_meet against the oracle on random triangles sharing 0, 1 or 2
 * vertices (the ones too close to call are counted and left out) */
START_TEST(tri_meet_random)
{
    rng_seed(16);
    int n = 0, met = 0, left = 0;
    for (int it = 0; it < 20000; it++) {
        double P[6][3];
        for (int i = 0; i < 6; i++)
            for (int k = 0; k < 3; k++)
                P[i][k] = urand();
        int ns = it % 3, ia[3] = {0, 1, 2}, ib[3] = {3, 4, 5};
        for (int s = 0; s < ns; s++)
            ib[s] = ia[s];
        const double *xa[3], *xb[3];
        for (int e = 0; e < 3; e++) {
            xa[e] = P[ia[e]];
            xb[e] = P[ib[e]];
        }
        int o = oracle_meet(xa, xb);
        if (o < 0) {
            left++;
            continue;
        }
        n++;
        met += o;
        ck_assert_msg(mesh_tri_meet(ia, xa, ib, xb) == o, "case %d (%d shared): rve %d, oracle %d", it,
                      ns, mesh_tri_meet(ia, xa, ib, xb), o);
    }
    ck_assert_int_gt(met, 500);
    ck_assert_int_gt(n - met, 500);
    ck_assert_int_lt(left, 200);
}
END_TEST

/* exact cases: coplanar triangles (a box plane) overlapping or not, a
 * triangle folded flat onto its neighbour, touching at a vertex */
START_TEST(tri_meet_exact)
{
    double p[8][3] = {{0, 0, 1}, {1, 0, 1}, {0, 1, 1}, {1, 1, 1}, {0.2, 0.2, 1}, {2, 2, 1}, {0.6, 0.6, 0.5}, {0.6, 0.6, 1.5}};
    const double *x[8];
    for (int i = 0; i < 8; i++)
        x[i] = p[i];
    int t012[3] = {0, 1, 2}, t123[3] = {1, 2, 3}, t045[3] = {0, 4, 5}, t124[3] = {1, 2, 4}, t356[3] = {3, 5, 6};
    const double *x012[3] = {x[0], x[1], x[2]}, *x123[3] = {x[1], x[2], x[3]}, *x045[3] = {x[0], x[4], x[5]},
                 *x124[3] = {x[1], x[2], x[4]}, *x356[3] = {x[3], x[5], x[6]};
    ck_assert_int_eq(mesh_tri_meet(t012, x012, t123, x123), 0); /* coplanar, sharing the edge 1-2, opposite sides */
    ck_assert_int_eq(mesh_tri_meet(t012, x012, t124, x124), 1); /* folded flat onto it */
    ck_assert_int_eq(mesh_tri_meet(t012, x012, t045, x045), 1); /* coplanar, sharing 0, overlapping */
    ck_assert_int_eq(mesh_tri_meet(t012, x012, t356, x356), 0); /* apart */
    int t367[3] = {3, 6, 7};
    const double *x367[3] = {x[3], x[6], x[7]};
    ck_assert_int_eq(mesh_tri_meet(t012, x012, t367, x367), 0); /* beside it: the plane x = y cuts 0-1-2 short of 3-6-7 */
    int t467[3] = {4, 6, 7};
    const double *x467[3] = {x[4], x[6], x[7]};
    ck_assert_int_eq(mesh_tri_meet(t012, x012, t467, x467), 1); /* vertex 4 on the triangle */
    ck_assert(fabs(mesh_edge_angle(x[1], x[2], x[0], x[3]) - 4 * atan(1.0)) < 1e-15);
    /* a small angle (acos of the cosine gives 0 or 1.5e-8 here) */
    double q[3] = {0, 0, 1 + 1e-9}, small = atan((q[2] - 1) / sqrt(0.5));
    ck_assert(fabs(mesh_edge_angle(x[1], x[2], x[0], q) - small) < 1e-6 * small);
}
END_TEST

static Suite *suite(void)
{
    Suite *s = suite_create("mesh_fold");
    TCase *tc = tcase_create("fold");
    tcase_add_test(tc, fold_refused_when_crossing);
    tcase_add_test(tc, fold_kept_when_clear);
    tcase_add_test(tc, tri_meet_random);
    tcase_add_test(tc, tri_meet_exact);
    suite_add_tcase(s, tc);
    return s;
}

int main(void) { return test_run_suite(suite()); }
