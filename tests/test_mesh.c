/* Tests of regularisation and meshing: topology and geometry oracles computed
 * here, independently of the module (face fans, winding numbers, tet faces). */
#include "config.h"
#define _POSIX_C_SOURCE 200809L
#include "testutil.h"
#include <rve/mesh.h>
#include <rve/tess.h>
#include <math.h>
#include <stdint.h>
#include <unistd.h>

#ifndef M_PI
#define M_PI 3.14159265358979323846
#endif

/* ------------------------------------------------------------ helpers */
static double rnd(unsigned *s)
{
    *s = *s * 1103515245u + 12345u;
    return ((*s >> 8) & 0xffffff) / 16777216.0;
}

static rve_tess *voronoi(int n, unsigned seed, double L, int weighted)
{
    double *s = malloc(sizeof(double) * 4 * (size_t)n);
    for (int i = 0; i < n; i++) {
        s[4 * i] = L * rnd(&seed);
        s[4 * i + 1] = L * rnd(&seed);
        s[4 * i + 2] = L * rnd(&seed);
        s[4 * i + 3] = weighted ? 0.3 * L / cbrt(n) * rnd(&seed) : 0;
    }
    double lo[3] = {0, 0, 0}, hi[3] = {L, L, L};
    rve_tess_opts o;
    rve_tess_opts_default(&o);
    o.keep_container = 0;
    rve_tess *t = NULL;
    rve_err e;
    ck_assert_int_eq(rve_tess_build(s, n, lo, hi, NULL, &o, &t, &e), RVE_OK);
    ck_assert(t->has_topo);
    free(s);
    return t;
}

static void dsub(double r[3], const double a[3], const double b[3])
{
    for (int i = 0; i < 3; i++)
        r[i] = a[i] - b[i];
}

static void dcross(double r[3], const double a[3], const double b[3])
{
    r[0] = a[1] * b[2] - a[2] * b[1];
    r[1] = a[2] * b[0] - a[0] * b[2];
    r[2] = a[0] * b[1] - a[1] * b[0];
}

static double ddot(const double a[3], const double b[3])
{
    return a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
}

/* Face point: the stored one of regularised faces, else the vertex mean. */
static void face_point(const rve_tess *t, int f, double p[3])
{
    if (t->face_state && t->face_state[f] && t->face_ptxyz) {
        memcpy(p, t->face_ptxyz + 3 * f, 3 * sizeof(double));
        return;
    }
    int a0 = t->face_voff[f], a1 = t->face_voff[f + 1];
    p[0] = p[1] = p[2] = 0;
    for (int i = a0; i < a1; i++)
        for (int k = 0; k < 3; k++)
            p[k] += t->ver[3 * t->face_ver[i] + k] / (a1 - a0);
}

/* Cell volume from the global faces' fans, in long double. */
static double cell_volume(const rve_tess *t, int c)
{
    long double v = 0;
    for (int j = t->cell_foff[c]; j < t->cell_foff[c + 1]; j++) {
        int f = t->cell_faces[j], s = t->cell_fsign[j];
        double o[3];
        face_point(t, f, o);
        int a0 = t->face_voff[f], a1 = t->face_voff[f + 1];
        for (int i = a0; i < a1; i++) {
            const double *p = t->ver + 3 * t->face_ver[i];
            const double *q = t->ver + 3 * t->face_ver[i + 1 < a1 ? i + 1 : a0];
            long double x = (long double)p[1] * q[2] - (long double)p[2] * q[1];
            long double y = (long double)p[2] * q[0] - (long double)p[0] * q[2];
            long double z = (long double)p[0] * q[1] - (long double)p[1] * q[0];
            v += s * (o[0] * x + o[1] * y + o[2] * z) / 6.0L;
        }
    }
    return (double)v;
}

/* Number of short edges and the shortest, straight from the edge list. */
static size_t count_short(const rve_tess *t, double thr, double *minlen)
{
    size_t n = 0;
    *minlen = INFINITY;
    for (int e = 0; e < t->nedge; e++) {
        double d[3];
        dsub(d, t->ver + 3 * t->edge_ver[2 * e], t->ver + 3 * t->edge_ver[2 * e + 1]);
        double L = sqrt(ddot(d, d));
        n += L < thr;
        if (L < *minlen)
            *minlen = L;
    }
    return n;
}

/* Short edges (length < thr) with a cell of volume < thr^3 around them,
 * recounted from the edge list and this file's fan volumes. */
static size_t count_short_tiny(const rve_tess *t, double thr)
{
    size_t n = 0;
    for (int e = 0; e < t->nedge; e++) {
        double d[3];
        dsub(d, t->ver + 3 * t->edge_ver[2 * e], t->ver + 3 * t->edge_ver[2 * e + 1]);
        if (!(sqrt(ddot(d, d)) < thr))
            continue;
        int tiny = 0;
        for (int i = t->edge_foff[e]; i < t->edge_foff[e + 1]; i++)
            for (int s = 0; s < 2; s++) {
                int c = t->face_cell[2 * t->edge_faces[i] + s];
                if (c >= 0 && cell_volume(t, c) < thr * thr * thr)
                    tiny = 1;
            }
        n += tiny;
    }
    return n;
}

/* Topology oracle: loops valid, every cell closed (each directed edge of a
 * cell met once each way), Euler V - E + F = 2 per cell and
 * V - E + F - C = 1 for the whole box, interior faces between two distinct
 * cells, wall faces on their wall plane. */
static void check_topology(const rve_tess *t, double tol)
{
    int V = 0, E = t->nedge, F = t->nface, C = 0;
    char *used = calloc((size_t)t->nver + 1, 1);
    for (int f = 0; f < t->nface; f++) {
        int a0 = t->face_voff[f], a1 = t->face_voff[f + 1];
        ck_assert_int_ge(a1 - a0, 3);
        for (int i = a0; i < a1; i++)
            used[t->face_ver[i]] = 1;
        int c0 = t->face_cell[2 * f], c1 = t->face_cell[2 * f + 1];
        ck_assert_int_ge(c0, 0);
        ck_assert_int_ne(c0, c1);
        if (c1 < 0) {
            int w = -c1 - 1, ax = w / 2;
            double plane = w % 2 ? t->hi[ax] : t->lo[ax];
            for (int i = a0; i < a1; i++)
                ck_assert(fabs(t->ver[3 * t->face_ver[i] + ax] - plane) <= tol);
        }
    }
    for (int v = 0; v < t->nver; v++)
        V += used[v];
    free(used);
    for (int c = 0; c < t->n; c++) {
        int nf = t->cell_foff[c + 1] - t->cell_foff[c];
        if (nf == 0)
            continue;
        C++;
        /* directed edges (a, b) as seen from outside the cell */
        int m = 0;
        for (int j = t->cell_foff[c]; j < t->cell_foff[c + 1]; j++) {
            int f = t->cell_faces[j];
            m += t->face_voff[f + 1] - t->face_voff[f];
        }
        int64_t *d = malloc(sizeof(int64_t) * (size_t)m), *r = malloc(sizeof(int64_t) * (size_t)m);
        int k = 0;
        int *vs = malloc(sizeof(int) * (size_t)m);
        int nvs = 0;
        for (int j = t->cell_foff[c]; j < t->cell_foff[c + 1]; j++) {
            int f = t->cell_faces[j], s = t->cell_fsign[j];
            ck_assert(t->face_cell[2 * f] == c || t->face_cell[2 * f + 1] == c);
            ck_assert_int_eq(s, t->face_cell[2 * f] == c ? 1 : -1);
            int a0 = t->face_voff[f], a1 = t->face_voff[f + 1];
            for (int i = a0; i < a1; i++) {
                int p = t->face_ver[i], q = t->face_ver[i + 1 < a1 ? i + 1 : a0];
                if (s < 0) {
                    int x = p;
                    p = q;
                    q = x;
                }
                d[k] = (int64_t)p * 4000000 + q;
                r[k] = (int64_t)q * 4000000 + p;
                k++;
                int seen = 0;
                for (int u = 0; u < nvs; u++)
                    seen |= vs[u] == p;
                if (!seen)
                    vs[nvs++] = p;
            }
        }
        /* every directed edge has its reverse exactly once, and is unique */
        for (int i = 0; i < k; i++) {
            int rev = 0, same = 0;
            for (int j = 0; j < k; j++) {
                rev += d[j] == r[i];
                same += d[j] == d[i];
            }
            ck_assert_msg(rev == 1 && same == 1, "cell %d not closed", c);
        }
        ck_assert_int_eq(nvs - k / 2 + nf, 2); /* Euler, per cell */
        free(d);
        free(r);
        free(vs);
    }
    ck_assert_int_eq(V - E + F - C, 1); /* the box is a ball */
}

/* Convexity within tolerance: no cell vertex above a fan triangle's plane by
 * more than tol times the cell's diameter. */
static double max_convexity_fault(const rve_tess *t)
{
    double worst = 0;
    for (int c = 0; c < t->n; c++) {
        const rve_tess_poly *p = &t->cells[c];
        if (p->nv == 0)
            continue;
        double diam = 0;
        for (int i = 0; i < p->nv; i++)
            for (int j = i + 1; j < p->nv; j++) {
                double d[3];
                dsub(d, p->v + 3 * i, p->v + 3 * j);
                diam = fmax(diam, sqrt(ddot(d, d)));
            }
        for (int j = t->cell_foff[c]; j < t->cell_foff[c + 1]; j++) {
            int f = t->cell_faces[j], s = t->cell_fsign[j];
            double o[3];
            face_point(t, f, o);
            int a0 = t->face_voff[f], a1 = t->face_voff[f + 1];
            for (int i = a0; i < a1; i++) {
                double u[3], w[3], nn[3];
                dsub(u, t->ver + 3 * t->face_ver[i], o);
                dsub(w, t->ver + 3 * t->face_ver[i + 1 < a1 ? i + 1 : a0], o);
                dcross(nn, u, w);
                double l = sqrt(ddot(nn, nn));
                if (!(l > 0))
                    continue;
                for (int k = 0; k < 3; k++)
                    nn[k] *= s / l;
                for (int q = 0; q < p->nv; q++) {
                    double x[3];
                    dsub(x, p->v + 3 * q, o);
                    worst = fmax(worst, ddot(x, nn) / diam);
                }
            }
        }
    }
    return worst;
}

/* Winding number of the closed fan surface of cell c around x (1 inside, 0 outside). */
static double winding(const rve_tess *t, int c, const double x[3])
{
    double w = 0;
    for (int j = t->cell_foff[c]; j < t->cell_foff[c + 1]; j++) {
        int f = t->cell_faces[j], s = t->cell_fsign[j];
        double o[3];
        face_point(t, f, o);
        int a0 = t->face_voff[f], a1 = t->face_voff[f + 1];
        for (int i = a0; i < a1; i++) {
            double a[3], b[3], cc[3], bc[3];
            dsub(a, o, x);
            dsub(b, t->ver + 3 * t->face_ver[i], x);
            dsub(cc, t->ver + 3 * t->face_ver[i + 1 < a1 ? i + 1 : a0], x);
            double la = sqrt(ddot(a, a)), lb = sqrt(ddot(b, b)), lc = sqrt(ddot(cc, cc));
            dcross(bc, b, cc);
            double num = ddot(a, bc);
            double den = la * lb * lc + ddot(a, b) * lc + ddot(a, cc) * lb + ddot(b, cc) * la;
            w += s * 2 * atan2(num, den);
        }
    }
    return w / (4 * M_PI);
}

/* Voxel accuracy of tessellation t (geometric cells, winding numbers) against
 * the labels of map (label = cell + 1). */
static double voxel_accuracy(const rve_tess *t, const rve_map *map)
{
    size_t good = 0, total = (size_t)map->nx * map->ny * map->nz;
    int *owner = malloc(sizeof(int) * total);
    for (size_t i = 0; i < total; i++)
        owner[i] = -1;
    for (int c = 0; c < t->n; c++) {
        const rve_tess_poly *p = &t->cells[c];
        if (p->nv == 0)
            continue;
        double lo[3] = {INFINITY, INFINITY, INFINITY}, hi[3] = {-INFINITY, -INFINITY, -INFINITY};
        for (int j = t->cell_foff[c]; j < t->cell_foff[c + 1]; j++) {
            int f = t->cell_faces[j];
            for (int i = t->face_voff[f]; i < t->face_voff[f + 1]; i++)
                for (int k = 0; k < 3; k++) {
                    lo[k] = fmin(lo[k], t->ver[3 * t->face_ver[i] + k]);
                    hi[k] = fmax(hi[k], t->ver[3 * t->face_ver[i] + k]);
                }
        }
        int i0[3], i1[3];
        int dims[3] = {map->nx, map->ny, map->nz};
        for (int k = 0; k < 3; k++) {
            i0[k] = (int)floor((lo[k] - map->origin[k]) / map->h[k] - 0.5);
            i1[k] = (int)ceil((hi[k] - map->origin[k]) / map->h[k] - 0.5);
            if (i0[k] < 0)
                i0[k] = 0;
            if (i1[k] > dims[k] - 1)
                i1[k] = dims[k] - 1;
        }
        for (int kz = i0[2]; kz <= i1[2]; kz++)
            for (int jy = i0[1]; jy <= i1[1]; jy++)
                for (int ix = i0[0]; ix <= i1[0]; ix++) {
                    double x[3];
                    rve_map_voxel_centre(map, ix, jy, kz, x);
                    if (winding(t, c, x) > 0.5)
                        owner[rve_map_index(map, ix, jy, kz)] = c;
                }
    }
    for (size_t i = 0; i < total; i++)
        good += owner[i] >= 0 && (uint32_t)(owner[i] + 1) == map->lab[i];
    free(owner);
    return (double)good / (double)total;
}

/* ------------------------------------------------------------ tests */
START_TEST(test_tet_quality_closed_forms)
{
    double a[3] = {0, 0, 0}, b[3] = {1, 0, 0}, c[3] = {0, 1, 0}, d[3] = {0, 0, 1};
    double g, q, v;
    rve_tet_quality(a, b, c, d, &g, &q, &v);
    ck_assert_double_eq_tol(v, 1.0 / 6.0, 1e-15);
    ck_assert_double_eq_tol(g, sqrt(3.0) - 1.0, 1e-14);           /* 3 r/R = 3 (1/(3+sqrt3)) / (sqrt3/2) */
    ck_assert_double_eq_tol(q, 6 * sqrt(2.0) / 6.0 / pow(1.5, 1.5), 1e-14); /* mean sq. edge 1.5 */
    /* regular tetrahedron: both 1 */
    double r0[3] = {1, 1, 1}, r1[3] = {1, -1, -1}, r2[3] = {-1, 1, -1}, r3[3] = {-1, -1, 1};
    rve_tet_quality(r0, r1, r2, r3, &g, &q, &v);
    ck_assert_double_eq_tol(fabs(g), 1.0, 1e-14);
    ck_assert_double_eq_tol(fabs(q), 1.0, 1e-14);
    /* inverted: negative volume, negative measures */
    rve_tet_quality(a, c, b, d, &g, &q, &v);
    ck_assert(v < 0 && g < 0 && q < 0);
    /* flat: zero */
    double e[3] = {1, 1, 0};
    rve_tet_quality(a, b, c, e, &g, &q, &v);
    ck_assert(v == 0 && g == 0 && q == 0);
}
END_TEST

static void reg_case(int n, unsigned seed, int weighted)
{
    double L = 10;
    rve_tess *t = voronoi(n, seed, L, weighted);
    rve_reg_opts o;
    rve_reg_opts_default(&o);
    o.remove_small_cells = 0; /* the collapses alone (the polish has its own test) */
    o.min_angle = 0;
    rve_reg_report rep;
    rve_tess *r = NULL;
    rve_err e;
    ck_assert_int_eq(rve_reg(t, &o, &r, &rep, &e), RVE_OK);
    double thr = 0.25 * cbrt(L * L * L / (t->n - t->nempty));
    ck_assert_double_eq_tol(rep.threshold, thr, 1e-12);
    double mn;
    size_t sb = count_short(t, thr, &mn), sa = count_short(r, thr, &mn);
    ck_assert_uint_eq(sb, rep.short_before);
    ck_assert_uint_eq(sa, rep.short_after); /* what is left is what is reported */
    ck_assert_uint_eq(count_short_tiny(r, thr), rep.short_tiny);
    ck_assert_double_eq(mn, rep.min_after);
    ck_assert_int_eq(r->nedge, (int)rep.edges_after);
    fprintf(stderr, "reg n=%d seed=%u: short edges %zu -> %zu (removed %zu), bend %.1f deg\n", n,
            seed, sb, sa, rep.removed, rep.max_bend);
    ck_assert(sb > 0);
    ck_assert(sa <= sb / 10); /* random Voronoi tessellations are the hard case */
    ck_assert(rep.max_bend <= o.max_angle + 1e-9);
    check_topology(t, 1e-12 * L);
    check_topology(r, 0); /* walls exactly flat after regularisation */
    ck_assert_int_eq(rve_tess_check(r, &e), RVE_OK);
    /* the .tess round trip keeps the regularised geometry and topology */
    {
        char path[] = "/tmp/rve-test-reg-XXXXXX";
        int fd = mkstemp(path);
        ck_assert_int_ge(fd, 0);
        close(fd);
        ck_assert_int_eq(rve_tess_write_tess(r, path, NULL, &e), RVE_OK);
        rve_tess *b = NULL;
        ck_assert_msg(rve_tess_read_tess(path, &b, NULL, &e) == RVE_OK, "%s", e.msg);
        unlink(path);
        ck_assert_int_eq(b->nver, r->nver);
        ck_assert_int_eq(b->nedge, r->nedge);
        ck_assert_int_eq(b->nface, r->nface);
        check_topology(b, 0);
        for (int c = 0; c < r->n; c++)
            ck_assert_double_eq_tol(cell_volume(b, c), cell_volume(r, c), 1e-12 * L * L * L);
        rve_tess_free(b);
    }
    /* volumes: every cell positive, total = box (walls stay flat) */
    long double tot = 0;
    for (int c = 0; c < r->n; c++) {
        double v = cell_volume(r, c);
        if (r->cell_foff[c + 1] > r->cell_foff[c])
            ck_assert(v > 0);
        tot += v;
        ck_assert_double_eq_tol(r->cells[c].vol, v, 1e-9 * L * L * L);
    }
    ck_assert_double_eq_tol((double)tot, L * L * L, 1e-9 * L * L * L);
    /* convex within tolerance (faces may bend by max_angle) */
    double fault = max_convexity_fault(r);
    ck_assert_double_le(max_convexity_fault(t), 1e-9);
    ck_assert_double_le(fault, sin(o.max_angle * M_PI / 180));
    /* voxel accuracy against the Laguerre raster of the input */
    int nv = (int)(24 * cbrt(test_scale()) + 0.5);
    if (nv < 10)
        nv = 10;
    rve_map *map = rve_map_alloc(nv, nv, nv);
    for (int k = 0; k < 3; k++)
        map->h[k] = L / nv;
    ck_assert_int_eq(rve_tess_rasterize(t, NULL, map, &e), RVE_OK);
    double acc0 = voxel_accuracy(t, map), acc1 = voxel_accuracy(r, map);
    /* the library's geometric rasteriser: equal to the power-distance raster
     * before regularisation, to this file's winding-number oracle after */
    {
        rve_map *g = rve_map_alloc(nv, nv, nv);
        for (int k = 0; k < 3; k++)
            g->h[k] = L / nv;
        ck_assert_int_eq(rve_mesh_rasterize(t, NULL, g, &e), RVE_OK);
        size_t same = 0, nvox = (size_t)nv * nv * nv;
        for (size_t i = 0; i < nvox; i++)
            same += g->lab[i] == map->lab[i];
        ck_assert_uint_eq(same, nvox);
        ck_assert_int_eq(rve_mesh_rasterize(r, NULL, g, &e), RVE_OK);
        same = 0;
        for (size_t i = 0; i < nvox; i++)
            same += g->lab[i] == map->lab[i];
        ck_assert_double_eq_tol((double)same / (double)nvox, acc1, 1e-9);
        rve_map_free(g);
    }
    fprintf(stderr, "  voxel accuracy %.2f%% -> %.2f%%\n", 100 * acc0, 100 * acc1);
    ck_assert_double_ge(acc0, 0.999);
    /* Against the tessellation's own raster every swept voxel counts as lost
     * (against a real grain map most of them were uncertain anyway: the
     * 0.5-point target is checked on a fit of real data in test_mesh_data).
     * Random Voronoi cells have ~3 short edges per cell: allow 1.5 points
     * per short edge per cell. */
    ck_assert_double_le(acc0 - acc1, 0.015 * (double)sb / (t->n - t->nempty));
    rve_map_free(map);
    rve_tess_free(t);
    rve_tess_free(r);
}

START_TEST(test_reg_voronoi)
{
    reg_case(60, 7u, 0);
}
END_TEST

START_TEST(test_reg_laguerre)
{
    reg_case(80, 11u, 1);
    /* with small cells removed: still a valid complex filling the box */
    rve_tess *t = voronoi(80, 11u, 10, 1), *r = NULL;
    rve_reg_opts o;
    rve_reg_opts_default(&o);
    o.remove_small_cells = 1;
    o.rsel = 2; /* threshold^3 8 times larger: some cells go */
    rve_reg_report rep;
    rve_err e;
    ck_assert_int_eq(rve_reg(t, &o, &r, &rep, &e), RVE_OK);
    ck_assert_uint_ge(rep.cells_removed, 1);
    double thr = rep.threshold, mn;
    ck_assert_uint_eq(count_short(r, thr, &mn), rep.short_after);
    ck_assert_uint_eq(count_short_tiny(r, thr), rep.short_tiny);
    check_topology(r, 0);
    long double tot = 0;
    int empty = 0;
    for (int c = 0; c < r->n; c++) {
        if (r->cell_foff[c + 1] == r->cell_foff[c]) {
            empty++;
            continue;
        }
        double v = cell_volume(r, c);
        ck_assert(v > 0);
        tot += v;
    }
    ck_assert_int_eq(empty, t->nempty + (int)rep.cells_removed);
    ck_assert_double_eq_tol((double)tot, 1000, 1e-9 * 1000);
    fprintf(stderr, "  remove small cells: %zu removed, short edges %zu -> %zu\n", rep.cells_removed,
            rep.short_before, rep.short_after);
    rve_tess_free(t);
    rve_tess_free(r);
}
END_TEST

/* Eight lattice cells of a 2^3 box around a ninth seed at the centre whose
 * smaller weight leaves it a tiny octahedron (faces at 0.05 from the centre,
 * vertices on the axes at 0.05 sqrt(3), edges 0.05 sqrt(6) = 0.12 < the
 * threshold 0.25 (8/9)^(1/3) = 0.24; volume 0.0009 < threshold^3 = 0.014).
 * Oracles: the only short edges are the octahedron's 12 before; every short
 * edge left is on that cell (it keeps at least 4 faces, so some stay), as the
 * report says and an independent recount confirms. */
START_TEST(test_reg_tiny_cell)
{
    double s[9 * 4];
    int k = 0;
    double w = sqrt(0.75 - 2 * 0.05 * sqrt(0.75));
    for (int z = 0; z < 2; z++)
        for (int y = 0; y < 2; y++)
            for (int x = 0; x < 2; x++) {
                s[4 * k] = 0.5 + x;
                s[4 * k + 1] = 0.5 + y;
                s[4 * k + 2] = 0.5 + z;
                s[4 * k + 3] = w;
                k++;
            }
    s[32] = s[33] = s[34] = 1;
    s[35] = 0;
    double lo[3] = {0, 0, 0}, hi[3] = {2, 2, 2};
    rve_tess_opts to;
    rve_tess_opts_default(&to);
    rve_tess *t = NULL, *r = NULL;
    rve_err e;
    ck_assert_int_eq(rve_tess_build(s, 9, lo, hi, NULL, &to, &t, &e), RVE_OK);
    ck_assert_int_eq(t->nempty, 0);
    double thr = 0.25 * cbrt(8.0 / 9.0), mn;
    ck_assert_double_eq_tol(cell_volume(t, 8), 4.0 / 3.0 * pow(0.05 * sqrt(3), 3), 1e-12);
    ck_assert_uint_eq(count_short(t, thr, &mn), 12);
    ck_assert_double_eq_tol(mn, 0.05 * sqrt(6), 1e-12);
    rve_reg_report rep;
    rve_reg_opts ko;
    rve_reg_opts_default(&ko);
    ko.min_angle = 0; /* the collapses alone (the polish would lengthen the octahedron's edges) */
    ck_assert_int_eq(rve_reg(t, &ko, &r, &rep, &e), RVE_OK);
    ck_assert_uint_eq(rep.short_before, 12);
    ck_assert_uint_eq(rep.short_after, count_short(r, thr, &mn));
    ck_assert_uint_ge(rep.short_after, 1);
    ck_assert_uint_eq(rep.short_tiny, rep.short_after);
    ck_assert_uint_eq(count_short_tiny(r, thr), rep.short_after);
    ck_assert_int_ge(r->cell_foff[9] - r->cell_foff[8], 4);
    ck_assert_uint_eq(rep.cells_removed, 0);
    check_topology(r, 0);
    rve_tess_free(r);
    /* --remove-small-cells: the octahedron is merged into one vertex, by
     * symmetry at the centre, which gives back the 2 x 2 x 2 lattice of unit
     * cubes: 27 vertices, 54 edges, 36 faces, no short edge, cell 9 empty. */
    rve_reg_opts o;
    rve_reg_opts_default(&o);
    o.remove_small_cells = 1;
    o.min_angle = 0;
    ck_assert_int_eq(rve_reg(t, &o, &r, &rep, &e), RVE_OK);
    ck_assert_uint_eq(rep.cells_removed, 1);
    ck_assert_uint_eq(rep.short_after, 0);
    ck_assert_uint_eq(count_short(r, thr, &mn), 0);
    ck_assert_int_eq(r->cell_foff[9] - r->cell_foff[8], 0);
    ck_assert_int_eq(r->nver, 27);
    ck_assert_int_eq(r->nedge, 54);
    ck_assert_int_eq(r->nface, 36);
    for (int c = 0; c < 8; c++)
        ck_assert_double_eq_tol(cell_volume(r, c), 1, 1e-9);
    check_topology(r, 0);
    rve_tess_free(t);
    rve_tess_free(r);
}
END_TEST

START_TEST(test_reg_absolute_threshold_and_idempotence)
{
    rve_tess *t = voronoi(30, 3u, 10, 0);
    rve_reg_opts o;
    rve_reg_opts_default(&o);
    o.length = 1e-9; /* nothing that short: nothing changes */
    rve_reg_report rep;
    rve_tess *r = NULL;
    rve_err e;
    /* The collapses alone (min_angle 0), then, in make check-long, with the
     * default polish too: its raster of the input at threshold / 2 is at the
     * finest resolution it allows for a 1e-9 threshold (about 12 s). */
    double amin = o.min_angle;
    for (int polish = 0; polish <= test_long(); polish++) {
        o.min_angle = polish ? amin : 0;
        ck_assert_int_eq(rve_reg(t, &o, &r, &rep, &e), RVE_OK);
        ck_assert_uint_eq(rep.removed, 0);
        ck_assert_uint_eq(rep.polish_moves, 0);
        ck_assert_int_eq(r->nver, t->nver);
        ck_assert_int_eq(r->nface, t->nface);
        for (int i = 0; i < 3 * t->nver; i++) /* only wall vertices snapped onto their wall */
            ck_assert_double_eq_tol(r->ver[i], t->ver[i], 1e-12 * 10);
        rve_tess_free(r);
        r = NULL;
    }
    /* bad options */
    o.length = 0;
    o.max_angle = 95;
    ck_assert_int_eq(rve_reg(t, &o, &r, &rep, &e), RVE_EUSAGE);
    rve_tess_free(t);
}
END_TEST

START_TEST(test_reg_refuses_periodic)
{
    double s[8] = {0.2, 0.3, 0.4, 0, 0.7, 0.6, 0.5, 0};
    double lo[3] = {0, 0, 0}, hi[3] = {1, 1, 1};
    int per[3] = {1, 1, 1};
    rve_tess_opts o;
    rve_tess_opts_default(&o);
    rve_tess *t = NULL, *r = NULL;
    rve_err e;
    ck_assert_int_eq(rve_tess_build(s, 2, lo, hi, per, &o, &t, &e), RVE_OK);
    ck_assert_int_eq(rve_reg(t, NULL, &r, NULL, &e), RVE_EDATA);
    ck_assert_ptr_null(r);
    ck_assert(strstr(e.msg, "periodic") != NULL);
    rve_tess_free(t);
}
END_TEST

/* ----------------------------------------------------- periodic meshes */
/* Node lookup by exact coordinates: indices sorted lexicographically. */
static const double *g_xyz;
static int cmp_node(const void *x, const void *y)
{
    const double *a = g_xyz + 3 * *(const size_t *)x, *b = g_xyz + 3 * *(const size_t *)y;
    for (int k = 0; k < 3; k++)
        if (a[k] != b[k])
            return a[k] < b[k] ? -1 : 1;
    return 0;
}

static size_t find_node(const size_t *ord, size_t n, const double x[3])
{
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        const double *p = g_xyz + 3 * ord[mid];
        int c = 0;
        for (int k = 0; k < 3 && !c; k++)
            c = p[k] < x[k] ? -1 : p[k] > x[k];
        if (c == 0)
            return ord[mid];
        if (c < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    return SIZE_MAX;
}

typedef struct {
    size_t v[3];
} tri3;

static int cmp_tri3(const void *x, const void *y)
{
    const tri3 *a = x, *b = y;
    for (int k = 0; k < 3; k++)
        if (a->v[k] != b->v[k])
            return a->v[k] < b->v[k] ? -1 : 1;
    return 0;
}

static void sort3z(size_t v[3])
{
    for (int i = 0; i < 3; i++)
        for (int j = i + 1; j < 3; j++)
            if (v[j] < v[i]) {
                size_t x = v[i];
                v[i] = v[j];
                v[j] = x;
            }
}

/* Oracles of a periodic mesh of t in the box [0, L]^3, from the nodes and
 * tetrahedra alone: volumes, exact translates of the box-face nodes and of
 * the free triangles, and the node pairs the mesh reports. */
static void check_periodic_mesh(const rve_tess *t, const rve_mesh *m, double L, int exact_grains)
{
    const int *per = t->periodic; /* walls elsewhere */
    size_t nn = m->nnodes;
    /* 1. total volume and per-grain volume = cell volume (sum of pieces) */
    double *gv = calloc((size_t)t->n + 1, sizeof *gv), tot = 0;
    for (size_t e = 0; e < m->ntets; e++) {
        const size_t *T = m->tets + 4 * e;
        double g, q, v;
        rve_tet_quality(m->xyz + 3 * T[0], m->xyz + 3 * T[1], m->xyz + 3 * T[2], m->xyz + 3 * T[3], &g, &q, &v);
        ck_assert(v > 0);
        ck_assert(m->tet_grain[e] >= 1 && m->tet_grain[e] <= t->n);
        gv[m->tet_grain[e]] += v;
        tot += v;
    }
    ck_assert_double_eq_tol(tot, L * L * L, 1e-12 * L * L * L);
    /* regularised: grains move by a fraction of the threshold */
    for (int k = 0; k < t->n; k++)
        ck_assert_msg(fabs(gv[k + 1] - t->cells[k].vol) <= (exact_grains ? 1e-9 : 0.5) * t->cells[k].vol,
                      "grain %d: meshed %.17g, cell %.17g", k + 1, gv[k + 1], t->cells[k].vol);
    free(gv);
    /* 2. nodes near a box face are on it exactly; each one on an upper face
     * has its translate, bit for bit, on the lower face */
    size_t *ord = malloc(nn * sizeof *ord);
    for (size_t i = 0; i < nn; i++)
        ord[i] = i;
    g_xyz = m->xyz;
    qsort(ord, nn, sizeof *ord, cmp_node);
    size_t upper = 0;
    for (size_t i = 0; i < nn; i++) {
        const double *x = m->xyz + 3 * i;
        for (int a = 0; a < 3; a++) {
            ck_assert(x[a] >= 0 && x[a] <= L);
            if (fabs(x[a]) < 1e-9 * L)
                ck_assert(x[a] == 0);
            if (fabs(x[a] - L) < 1e-9 * L)
                ck_assert(x[a] == L);
            if (x[a] == L && per[a]) {
                double y[3] = {x[0], x[1], x[2]};
                y[a] = x[a] - L;
                ck_assert_msg(find_node(ord, nn, y) != SIZE_MAX, "node %zu has no translate", i);
            }
            if (x[a] == 0 && per[a]) { /* and the other way */
                double y[3] = {x[0], x[1], x[2]};
                y[a] = x[a] + L;
                ck_assert_msg(find_node(ord, nn, y) != SIZE_MAX, "node %zu has no translate", i);
            }
        }
        upper += (per[0] && x[0] == L) || (per[1] && x[1] == L) || (per[2] && x[2] == L);
    }
    /* 3. the reported pairs: one per node on an upper face, at the period */
    ck_assert_uint_eq(m->npairs, upper);
    for (size_t p = 0; p < m->npairs; p++) {
        const double *s = m->xyz + 3 * m->pairs[2 * p], *q = m->xyz + 3 * m->pairs[2 * p + 1];
        for (int a = 0; a < 3; a++) {
            int sh = m->pair_mask[p] >> a & 1;
            ck_assert(sh ? (per[a] && s[a] == L && q[a] == 0) : (s[a] == q[a] && (!per[a] || q[a] != L)));
        }
    }
    /* 4. free triangles of the tets (box faces): the set on x = L is the
     * translate of the set on x = 0, and so on */
    tri3 *tr = malloc(4 * m->ntets * sizeof *tr);
    for (size_t e = 0; e < m->ntets; e++)
        for (int f = 0; f < 4; f++) {
            int k = 0;
            for (int j = 0; j < 4; j++)
                if (j != f)
                    tr[4 * e + (size_t)f].v[k++] = m->tets[4 * e + (size_t)j];
            sort3z(tr[4 * e + (size_t)f].v);
        }
    qsort(tr, 4 * m->ntets, sizeof *tr, cmp_tri3);
    size_t nfree = 0;
    for (size_t i = 0; i < 4 * m->ntets;) {
        size_t j = i;
        while (j < 4 * m->ntets && cmp_tri3(tr + i, tr + j) == 0)
            j++;
        ck_assert(j - i <= 2);
        if (j - i == 1)
            tr[nfree++] = tr[i];
        i = j;
    }
    size_t on_side[6] = {0};
    for (int a = 0; a < 3; a++) {
        tri3 *lo = malloc((nfree + 1) * sizeof *lo), *hi = malloc((nfree + 1) * sizeof *hi);
        size_t nlo = 0, nhi = 0;
        for (size_t i = 0; i < nfree; i++) {
            const size_t *v = tr[i].v;
            const double *p0 = m->xyz + 3 * v[0], *p1 = m->xyz + 3 * v[1], *p2 = m->xyz + 3 * v[2];
            if (p0[a] == 0 && p1[a] == 0 && p2[a] == 0)
                lo[nlo++] = tr[i];
            if (p0[a] == L && p1[a] == L && p2[a] == L && !per[a])
                hi[nhi++] = tr[i];
            else if (p0[a] == L && p1[a] == L && p2[a] == L) {
                tri3 x;
                for (int k = 0; k < 3; k++) {
                    double y[3];
                    memcpy(y, m->xyz + 3 * v[k], sizeof y);
                    y[a] -= L;
                    x.v[k] = find_node(ord, nn, y);
                }
                sort3z(x.v);
                hi[nhi++] = x;
            }
        }
        on_side[2 * a] = nlo;
        on_side[2 * a + 1] = nhi;
        ck_assert(nlo > 0);
        if (!per[a]) { /* walls: closed, not translates */
            ck_assert(nhi > 0);
            free(lo);
            free(hi);
            continue;
        }
        ck_assert_uint_eq(nlo, nhi);
        qsort(lo, nlo, sizeof *lo, cmp_tri3);
        qsort(hi, nhi, sizeof *hi, cmp_tri3);
        ck_assert(memcmp(lo, hi, nlo * sizeof *lo) == 0);
        free(lo);
        free(hi);
    }
    /* every free triangle lies on a box face: the grains are closed and conformal */
    ck_assert_uint_eq(nfree, on_side[0] + on_side[1] + on_side[2] + on_side[3] + on_side[4] + on_side[5]);
    free(tr);
    free(ord);
}

static int g_per[3] = {1, 1, 1};
static rve_tess *periodic_voronoi(int n, unsigned seed, double L)
{
    double *s = malloc(sizeof(double) * 4 * (size_t)n);
    for (int i = 0; i < n; i++) {
        for (int k = 0; k < 3; k++)
            s[4 * i + k] = L * rnd(&seed);
        s[4 * i + 3] = 0;
    }
    double lo[3] = {0, 0, 0}, hi[3] = {L, L, L};
    rve_tess_opts o;
    rve_tess_opts_default(&o);
    o.keep_container = 0;
    rve_tess *t = NULL;
    rve_err e;
    ck_assert_int_eq(rve_tess_build(s, n, lo, hi, g_per, &o, &t, &e), RVE_OK);
    free(s);
    return t;
}

static void periodic_case(int n, unsigned seed, double L, int order, int reg)
{
    rve_tess *t = periodic_voronoi(n, seed, L);
    rve_mesh_opts o;
    rve_mesh_opts_default(&o);
    o.order = order;
    rve_mesh *m = NULL;
    rve_err e;
    rve_reg_report rep;
    if (reg) {
        ck_assert_msg(rve_mesh_tess_reg(t, NULL, NULL, &rep, &o, NULL, &m, &e) == RVE_OK, "%s", e.msg);
        ck_assert(rep.removed > 0 && rep.short_after < rep.short_before);
        fprintf(stderr, "periodic reg n=%d: short edges %zu -> %zu, shortest %.3g -> %.3g\n", n,
                rep.short_before, rep.short_after, rep.min_before, rep.min_after);
    } else {
        ck_assert_msg(rve_mesh_tess(t, NULL, &o, NULL, &m, &e) == RVE_OK, "%s", e.msg);
    }
    for (int a = 0; a < 3; a++)
        ck_assert_int_eq(m->periodic[a], g_per[a]);
    if (order == 1)
        check_periodic_mesh(t, m, L, !reg);
    else { /* second order: the corner nodes as a linear mesh, then all nodes */
        rve_mesh lin = *m;
        size_t *c4 = malloc(4 * m->ntets * sizeof *c4);
        for (size_t e2 = 0; e2 < m->ntets; e2++)
            memcpy(c4 + 4 * e2, m->tets + 10 * e2, 4 * sizeof *c4);
        lin.tets = c4;
        check_periodic_mesh(t, &lin, L, !reg);
        free(c4);
    }
    fprintf(stderr, "periodic mesh n=%d order=%d: %zu tets, %zu nodes, %zu pairs\n", n, order,
            m->ntets, m->nnodes, m->npairs);
    rve_mesh_free(m);
    rve_tess_free(t);
}

START_TEST(test_mesh_periodic)
{
    periodic_case(30, 11u, 1, 1, 0);
    periodic_case(12, 3u, 2, 1, 0); /* fewer, larger cells: more pieces per grain */
    periodic_case(1, 5u, 1, 1, 0);  /* one cell: its own neighbour on every side */
    periodic_case(10, 8u, 1, 2, 0);
}
END_TEST

/* Regularised periodic meshes: still exact translates on the box faces. */
START_TEST(test_mesh_periodic_reg)
{
    periodic_case(25, 4u, 1, 1, 1);
    periodic_case(12, 6u, 1, 2, 1);
}
END_TEST

/* The per-grain table hook of the solver writers: every grain's row in its
 * own material (.inp) and as cell data (.vtk), read back as text. */
START_TEST(test_mesh_solver_table)
{
    rve_tess *t = periodic_voronoi(5, 2u, 1);
    rve_mesh_opts o;
    rve_mesh_opts_default(&o);
    o.rcl = 2;
    rve_mesh *m = NULL;
    rve_err e;
    ck_assert_int_eq(rve_mesh_tess(t, NULL, &o, NULL, &m, &e), RVE_OK);
    double vals[15];
    for (int i = 0; i < 15; i++)
        vals[i] = 0.25 * i + 0.125; /* exact in binary and in %.17g */
    const char *names[3] = {"phi1", "Phi", "phi2"};
    rve_grain_table gt = {5, 3, NULL, vals, names};
    char dir[64] = "/tmp/rve-test-solver-XXXXXX", pi[128], pv[128];
    ck_assert_ptr_nonnull(mkdtemp(dir));
    snprintf(pi, sizeof pi, "%s/m.inp", dir);
    snprintf(pv, sizeof pv, "%s/m.vtk", dir);
    ck_assert_int_eq(rve_mesh_write_solver(m, pi, RVE_SOLVER_ABAQUS, &gt, &e), RVE_OK);
    ck_assert_int_eq(rve_mesh_write_solver(m, pv, RVE_SOLVER_VTK, &gt, &e), RVE_OK);
    FILE *f = fopen(pi, "r");
    char line[512];
    int found = 0;
    while (fgets(line, sizeof line, f)) {
        int g;
        if (sscanf(line, "*Material, name=grain%d", &g) == 1) {
            ck_assert(fgets(line, sizeof line, f)); /* the names comment */
            ck_assert(fgets(line, sizeof line, f));
            ck_assert_str_eq(line, "*User Material, constants=3\n");
            double a, b, c;
            ck_assert(fgets(line, sizeof line, f));
            ck_assert_int_eq(sscanf(line, "%lf, %lf, %lf", &a, &b, &c), 3);
            ck_assert(a == vals[3 * (g - 1)] && b == vals[3 * (g - 1) + 1] && c == vals[3 * (g - 1) + 2]);
            found++;
        }
    }
    fclose(f);
    ck_assert_int_eq(found, 5);
    f = fopen(pv, "r");
    size_t nphi = 0;
    while (fgets(line, sizeof line, f))
        nphi += strcmp(line, "SCALARS Phi double 1\n") == 0;
    fclose(f);
    ck_assert_uint_eq(nphi, 1);
    /* FEPX: $Groups holds each grain's phase (1-based; below 1 written 1),
     * $ElsetOrientations its quaternion, one line per grain */
    double fv[5 * 5];
    int flab[5] = {5, 3, 1, 4, 2};
    for (int r = 0; r < 5; r++) {
        double row[5] = {r == 2 ? 0 : r % 2 + 1, 1, 0, 0, 0}; /* phase; q = identity */
        memcpy(fv + 5 * r, row, sizeof row);
    }
    const char *fn[5] = {"phase", "q0", "q1", "q2", "q3"};
    rve_grain_table ft = {5, 5, flab, fv, fn};
    char pf[128];
    snprintf(pf, sizeof pf, "%s/m-fepx.msh", dir);
    ck_assert_int_eq(rve_mesh_write_solver(m, pf, RVE_SOLVER_FEPX, &ft, &e), RVE_OK);
    f = fopen(pf, "r");
    int ingroups = 0, ngroup = 0, nori = 0, inori = 0;
    while (fgets(line, sizeof line, f)) {
        int g, ph;
        if (strcmp(line, "$Groups\n") == 0) {
            ck_assert(fgets(line, sizeof line, f));
            ck_assert_str_eq(line, "elset\n");
            ck_assert(fgets(line, sizeof line, f));
            ck_assert_str_eq(line, "5\n");
            ingroups = 1;
        } else if (strcmp(line, "$EndGroups\n") == 0) {
            ingroups = 0;
        } else if (ingroups) {
            ck_assert_int_eq(sscanf(line, "%d %d", &g, &ph), 2);
            int r = 0;
            while (flab[r] != g)
                r++;
            ck_assert_int_eq(ph, r == 2 ? 1 : r % 2 + 1);
            ngroup++;
        } else if (strcmp(line, "$ElsetOrientations\n") == 0) {
            ck_assert(fgets(line, sizeof line, f));
            ck_assert_str_eq(line, "5 quaternion:passive\n");
            inori = 1;
        } else if (strcmp(line, "$EndElsetOrientations\n") == 0) {
            inori = 0;
        } else if (inori) {
            nori++;
        }
    }
    fclose(f);
    ck_assert_int_eq(ngroup, 5);
    ck_assert_int_eq(nori, 5);
    unlink(pf);
    /* pairs of a non-periodic mesh are refused */
    rve_mesh np = *m;
    np.npairs = 0;
    ck_assert_int_eq(rve_mesh_write_solver(&np, pi, RVE_SOLVER_PAIRS, NULL, &e), RVE_EUSAGE);
    unlink(pi);
    unlink(pv);
    ck_assert_int_eq(rmdir(dir), 0);
    rve_mesh_free(m);
    rve_tess_free(t);
}
END_TEST

/* Periodic along x and z only: walls at y = 0 and y = L. */
START_TEST(test_mesh_periodic_partial)
{
    g_per[1] = 0;
    periodic_case(20, 9u, 1, 1, 0);
    periodic_case(20, 9u, 1, 1, 1);
    g_per[1] = 1;
}
END_TEST

/* Smallest angle the polish looks after, computed here from the output
 * alone: face corners, dihedral angles of each cell along each of its edges
 * (between the fan triangles on either side), and the angles of the fan
 * triangles of non-planar interior faces (meshed as their fans).  *below
 * counts the angles under lim (radians). */
static double tri_angle(const double q[3], const double a[3], const double b[3])
{
    double u[3], w[3], x[3];
    dsub(u, a, q);
    dsub(w, b, q);
    dcross(x, u, w);
    return atan2(sqrt(ddot(x, x)), ddot(u, w));
}

static double mesh_angles(const rve_tess *t, double lim, size_t *below)
{
    double m = M_PI;
    size_t nb = 0;
    for (int f = 0; f < t->nface; f++) {
        int a0 = t->face_voff[f], n = t->face_voff[f + 1] - a0;
        double o[3];
        face_point(t, f, o);
        int fan = t->face_state && t->face_state[f] && t->face_cell[2 * f + 1] >= 0;
        for (int i = 0; i < n; i++) {
            const double *p = t->ver + 3 * t->face_ver[a0 + (i + n - 1) % n];
            const double *q = t->ver + 3 * t->face_ver[a0 + i];
            const double *r = t->ver + 3 * t->face_ver[a0 + (i + 1) % n];
            double a = tri_angle(q, p, r);
            m = fmin(m, a);
            nb += a < lim;
            if (fan) {
                a = fmin(tri_angle(o, q, r), fmin(tri_angle(q, o, r), tri_angle(r, q, o)));
                m = fmin(m, a);
                nb += a < lim;
            }
        }
    }
    for (int c = 0; c < t->n; c++) {
        /* oriented loop edges of the cell with the outward normal of their fan triangle */
        int cap = 0;
        for (int j = t->cell_foff[c]; j < t->cell_foff[c + 1]; j++)
            cap += t->face_voff[t->cell_faces[j] + 1] - t->face_voff[t->cell_faces[j]];
        int *ea = malloc(sizeof(int) * (cap + 1)), *eb = malloc(sizeof(int) * (cap + 1)), ne = 0;
        double *en = malloc(sizeof(double) * 3 * (cap + 1));
        for (int j = t->cell_foff[c]; j < t->cell_foff[c + 1]; j++) {
            int f = t->cell_faces[j], s = t->cell_fsign[j], a0 = t->face_voff[f],
                n = t->face_voff[f + 1] - a0;
            double o[3];
            face_point(t, f, o);
            for (int i = 0; i < n; i++) {
                int a = t->face_ver[a0 + i], b = t->face_ver[a0 + (i + 1) % n];
                double u[3], w[3];
                dsub(u, t->ver + 3 * a, o);
                dsub(w, t->ver + 3 * b, o);
                dcross(en + 3 * ne, u, w);
                for (int k = 0; k < 3; k++)
                    en[3 * ne + k] *= s;
                ea[ne] = s > 0 ? a : b;
                eb[ne] = s > 0 ? b : a;
                ne++;
            }
        }
        for (int i = 0; i < ne; i++)
            for (int j = 0; j < ne; j++)
                if (ea[i] == eb[j] && eb[i] == ea[j] && ea[i] < eb[i]) {
                    double x[3];
                    dcross(x, en + 3 * i, en + 3 * j);
                    double d = M_PI - atan2(sqrt(ddot(x, x)), ddot(en + 3 * i, en + 3 * j));
                    m = fmin(m, d);
                    nb += d < lim;
                }
        free(ea);
        free(eb);
        free(en);
    }
    *below = nb;
    return m;
}

/* The polish, against the exact raster of the input (so every voxel it wins
 * back is one the collapses had lost).  Oracles: this file's winding-number
 * count equals the polish's incremental count before and after; moves that
 * only chase accuracy never lose any; the angle polish never narrows the
 * smallest angle below min(15 deg, what the collapses left) and leaves fewer
 * angles under 15 deg; topology, volumes and convexity as for the collapses;
 * no edge made shorter than the threshold. */
START_TEST(test_reg_polish)
{
    double L = 10;
    rve_tess *t = voronoi(60, 7u, L, 1), *r0 = NULL, *r1 = NULL, *r2 = NULL;
    /* a 30^3 map in make check-long, 20^3 in make check, 12^3 at the
     * sanitizer scale (there the collapses leave a cell 21.8 degrees out of
     * convex: see the convexity assertion below) */
    int nv = (int)(30 * cbrt(test_scale() * (test_long() ? 1 : 0.3)) + 0.5);
    if (nv < 12)
        nv = 12;
    rve_map *map = rve_map_alloc(nv, nv, nv);
    for (int k = 0; k < 3; k++)
        map->h[k] = L / nv;
    rve_err e;
    ck_assert_int_eq(rve_tess_rasterize(t, NULL, map, &e), RVE_OK);
    rve_reg_opts o;
    rve_reg_opts_default(&o);
    rve_reg_report rep0, rep1, rep2;
    /* collapses only */
    o.min_angle = 0;
    ck_assert_int_eq(rve_reg(t, &o, &r0, &rep0, &e), RVE_OK);
    ck_assert_uint_eq(rep0.polish_moves, 0);
    /* accuracy polish only */
    o.map = map;
    ck_assert_int_eq(rve_reg(t, &o, &r1, &rep1, &e), RVE_OK);
    /* both (the default with a map) */
    o.min_angle = 15;
    ck_assert_int_eq(rve_reg(t, &o, &r2, &rep2, &e), RVE_OK);
    /* the steps of a vertex are tried in parallel: the same result on one thread */
    {
        int nth = rve_threads_get();
        rve_threads_setup(1);
        rve_tess *r2s = NULL;
        rve_reg_report reps;
        ck_assert_int_eq(rve_reg(t, &o, &r2s, &reps, &e), RVE_OK);
        rve_threads_setup(nth);
        ck_assert_int_eq(r2s->nver, r2->nver);
        ck_assert_int_eq(r2s->nface, r2->nface);
        ck_assert_uint_eq(reps.polish_moves, rep2.polish_moves);
        ck_assert_int_eq(memcmp(r2s->ver, r2->ver, sizeof(double) * 3 * (size_t)r2->nver), 0);
        rve_tess_free(r2s);
    }
    double a0 = voxel_accuracy(r0, map), a1 = voxel_accuracy(r1, map), a2 = voxel_accuracy(r2, map);
    fprintf(stderr, "polish: accuracy %.3f%% after the collapses, %.3f%% polished (%zu moves), "
                    "%.3f%% with angles (%zu moves)\n",
            100 * a0, 100 * a1, rep1.polish_moves, 100 * a2, rep2.polish_moves);
    ck_assert_double_eq_tol(rep1.acc_reg, a0, 1e-12);
    ck_assert_double_eq_tol(rep1.acc_polish, a1, 1e-12);
    ck_assert_double_eq_tol(rep2.acc_polish, a2, 1e-12);
    ck_assert_uint_gt(rep1.polish_moves, 0);
    ck_assert_double_gt(a1, a0);
    size_t b0, b2;
    double m0 = mesh_angles(r0, 15 * M_PI / 180, &b0), m2 = mesh_angles(r2, 15 * M_PI / 180, &b2);
    fprintf(stderr, "  smallest angle %.2f -> %.2f deg, %zu -> %zu below 15 deg\n", m0 * 180 / M_PI,
            m2 * 180 / M_PI, b0, b2);
    ck_assert_double_ge(m2, fmin(15 * M_PI / 180, m0) - 1e-9);
    ck_assert_uint_lt(b2, b0);
    ck_assert_double_eq_tol(rep2.angle_after, m2 * 180 / M_PI, 1e-9);
    ck_assert_uint_eq(rep2.sharp_after, b2);
    /* convexity: the collapses bound each face's bend (atan(h / r) <= max_angle),
     * which does not bound this measure (a cell vertex above a fan triangle's
     * plane, over the cell's diameter): on the 12^3 map they leave 21.8 deg.
     * The polish refuses every step that leaves a cell of its star above
     * sin(max_angle), so it never makes the worst cell worse. */
    double fault0 = fmax(max_convexity_fault(r0), sin(o.max_angle * M_PI / 180));
    rve_tess *rs[2] = {r1, r2};
    for (int i = 0; i < 2; i++) {
        rve_tess *r = rs[i];
        check_topology(r, 0);
        ck_assert_int_eq(rve_tess_check(r, &e), RVE_OK);
        long double tot = 0;
        for (int c = 0; c < r->n; c++)
            tot += cell_volume(r, c);
        ck_assert_double_eq_tol((double)tot, L * L * L, 1e-9 * L * L * L);
        ck_assert_double_le(max_convexity_fault(r), fault0 + 1e-12);
        double mn;
        ck_assert_uint_le(count_short(r, rep0.threshold, &mn), rep0.short_after);
    }
    /* without a map the polish keeps to the input: measured against its raster */
    rve_tess *r3 = NULL;
    rve_reg_report rep3;
    rve_reg_opts_default(&o);
    o.min_angle = 15;
    ck_assert_int_eq(rve_reg(t, &o, &r3, &rep3, &e), RVE_OK);
    ck_assert_int_eq(rep3.acc_vs_input, 1);
    size_t b3;
    ck_assert_double_ge(mesh_angles(r3, 15 * M_PI / 180, &b3), fmin(15 * M_PI / 180, m0) - 1e-9);
    ck_assert_uint_lt(b3, b0);
    double a3 = voxel_accuracy(r3, map);
    fprintf(stderr, "  without a map: %.3f%% of the input raster, %zu below 15 deg\n", 100 * a3, b3);
    /* opening the ~100 sharp angles of a random Voronoi tessellation to 15
     * degrees costs a few percent of its exact raster (with or without map) */
    ck_assert_double_ge(a3, a0 - 0.05);
    ck_assert_double_ge(a3, a2 - 0.02);
    rve_map_free(map);
    rve_tess_free(t);
    rve_tess_free(r0);
    rve_tess_free(r1);
    rve_tess_free(r2);
    rve_tess_free(r3);
}
END_TEST

/* ------------------------------------------------------------ meshes */
typedef struct {
    size_t a, b, c;
    size_t tet;
} tface;

static int cmp_tface(const void *x, const void *y)
{
    const tface *p = x, *q = y;
    if (p->a != q->a)
        return p->a < q->a ? -1 : 1;
    if (p->b != q->b)
        return p->b < q->b ? -1 : 1;
    return p->c < q->c ? -1 : p->c > q->c;
}

static void sort3(size_t *v)
{
    for (int i = 0; i < 2; i++)
        for (int j = 0; j < 2 - i; j++)
            if (v[j] > v[j + 1]) {
                size_t x = v[j];
                v[j] = v[j + 1];
                v[j + 1] = x;
            }
}

static void check_mesh(const rve_tess *t, const rve_mesh *m)
{
    int tn = m->order == 2 ? 10 : 4;
    /* no inverted element; per-grain volume = cell volume */
    double *gv = calloc((size_t)t->n + 2, sizeof(double));
    for (size_t e = 0; e < m->ntets; e++) {
        const size_t *q = m->tets + e * (size_t)tn;
        for (int j = 0; j < tn; j++)
            ck_assert_uint_lt(q[j], m->nnodes);
        double g, s, v;
        rve_tet_quality(m->xyz + 3 * q[0], m->xyz + 3 * q[1], m->xyz + 3 * q[2], m->xyz + 3 * q[3],
                        &g, &s, &v);
        ck_assert_msg(v > 0, "inverted tet %zu", e);
        ck_assert(m->tet_grain[e] >= 1 && m->tet_grain[e] <= t->n);
        gv[m->tet_grain[e]] += v;
        if (tn == 10) {
            /* flat geometry: mid-edge nodes at the midpoints (gmsh order) */
            static const int ed[6][2] = {{0, 1}, {1, 2}, {2, 0}, {3, 0}, {3, 2}, {3, 1}};
            for (int k = 0; k < 6; k++)
                for (int x = 0; x < 3; x++)
                    ck_assert_double_eq_tol(m->xyz[3 * q[4 + k] + x],
                                            0.5 * (m->xyz[3 * q[ed[k][0]] + x] + m->xyz[3 * q[ed[k][1]] + x]),
                                            1e-9);
        }
    }
    for (int c = 0; c < t->n; c++) {
        double cv = cell_volume(t, c);
        if (cv == 0)
            continue;
        ck_assert_msg(fabs(gv[c + 1] - cv) <= 1e-9 * cv, "grain %d: tets %.17g, cell %.17g", c + 1,
                      gv[c + 1], cv);
    }
    free(gv);
    /* every tet face is shared by two tets, or lies on the domain boundary */
    tface *F = malloc(sizeof(tface) * 4 * m->ntets);
    static const int fo[4][3] = {{0, 1, 2}, {0, 1, 3}, {0, 2, 3}, {1, 2, 3}};
    for (size_t e = 0; e < m->ntets; e++)
        for (int k = 0; k < 4; k++) {
            size_t v[3] = {m->tets[e * (size_t)tn + (size_t)fo[k][0]],
                           m->tets[e * (size_t)tn + (size_t)fo[k][1]],
                           m->tets[e * (size_t)tn + (size_t)fo[k][2]]};
            sort3(v);
            F[4 * e + (size_t)k] = (tface){v[0], v[1], v[2], e};
        }
    qsort(F, 4 * m->ntets, sizeof(tface), cmp_tface);
    size_t nb = 0;
    for (size_t i = 0; i < 4 * m->ntets;) {
        size_t j = i;
        while (j < 4 * m->ntets && cmp_tface(&F[i], &F[j]) == 0)
            j++;
        ck_assert_uint_le(j - i, 2);
        if (j - i == 1) {
            /* on a domain face: the three nodes share a coordinate equal to lo or hi */
            int on = 0;
            for (int ax = 0; ax < 3 && !on; ax++)
                for (int side = 0; side < 2 && !on; side++) {
                    double pl = side ? t->hi[ax] : t->lo[ax];
                    on = fabs(m->xyz[3 * F[i].a + (size_t)ax] - pl) < 1e-12 &&
                         fabs(m->xyz[3 * F[i].b + (size_t)ax] - pl) < 1e-12 &&
                         fabs(m->xyz[3 * F[i].c + (size_t)ax] - pl) < 1e-12;
                }
            ck_assert_msg(on, "boundary triangle %zu %zu %zu inside the domain", F[i].a, F[i].b, F[i].c);
            nb++;
        }
        i = j;
    }
    /* the triangles gmsh put on the domain faces are exactly the free tet faces */
    size_t ndom = 0;
    for (size_t e = 0; e < m->ntris; e++)
        ndom += m->tri_tag[e] >= 11;
    ck_assert_uint_eq(ndom, nb);
    free(F);
}

static size_t count_after(const char *path, const char *marker, int mode)
{
    FILE *f = fopen(path, "r");
    ck_assert_ptr_nonnull(f);
    char line[512];
    size_t n = 0;
    int in = 0;
    while (fgets(line, sizeof line, f)) {
        if (mode == 0 && strncmp(line, marker, strlen(marker)) == 0) {
            /* count on the next line: msh 2.2 "N"; msh 4.1 "blocks N min max" */
            if (!fgets(line, sizeof line, f))
                break;
            size_t a, b;
            int k = sscanf(line, "%zu %zu", &a, &b);
            n = k == 2 ? b : a;
            break;
        }
        if (mode == 1) { /* inp: lines between *Node and the next keyword */
            if (line[0] == '*') {
                if (in)
                    break;
                in = strncmp(line, "*Node", 5) == 0;
                continue;
            }
            n += in;
        }
        if (mode == 2 && strncmp(line, marker, strlen(marker)) == 0) {
            sscanf(line + strlen(marker), "%zu", &n);
            break;
        }
    }
    fclose(f);
    return n;
}

static void mesh_case(int n, unsigned seed, int reg, int order)
{
    double L = 1;
    rve_tess *t = voronoi(n, seed, L, 0), *r = NULL;
    rve_err e;
    if (reg) {
        ck_assert_int_eq(rve_reg(t, NULL, &r, NULL, &e), RVE_OK);
        rve_tess_free(t);
        t = r;
    }
    char dir[64] = "/tmp/rve-test-mesh-XXXXXX";
    ck_assert_ptr_nonnull(mkdtemp(dir));
    char p[4][128];
    const char *outs[RVE_MESH_NFORMATS];
    static const char *names[4] = {"m41.msh", "m22.msh", "m.inp", "m.vtk"};
    for (int k = 0; k < 4; k++) {
        snprintf(p[k], sizeof p[k], "%s/%s", dir, names[k]);
        outs[k] = p[k];
    }
    rve_mesh_opts o;
    rve_mesh_opts_default(&o);
    o.order = order;
    o.rcl = 1.5;
    rve_mesh *m = NULL;
    ck_assert_int_eq(rve_mesh_tess(t, NULL, &o, outs, &m, &e), RVE_OK);
    check_mesh(t, m);
    ck_assert_uint_eq(count_after(p[0], "$Nodes", 0), m->nnodes);
    ck_assert_uint_eq(count_after(p[1], "$Nodes", 0), m->nnodes);
    ck_assert_uint_eq(count_after(p[2], "*Node", 1), m->nnodes);
    ck_assert_uint_eq(count_after(p[3], "POINTS ", 2), m->nnodes);
    /* element counts: msh 2.2 lists tets (type 4/11) among its elements */
    rve_mesh_quality q;
    rve_mesh_quality_compute(m, &q);
    ck_assert_uint_eq(q.inverted, 0);
    ck_assert(q.gamma_min > 0 && q.q_min > 0);
    fprintf(stderr, "mesh n=%d reg=%d order=%d: %zu tets, %zu nodes, min gamma %.3f, min q %.3f\n", n,
            reg, order, m->ntets, m->nnodes, q.gamma_min, q.q_min);
    for (int k = 0; k < 4; k++)
        unlink(p[k]);
    ck_assert_int_eq(rmdir(dir), 0); /* no temporary left behind */
    rve_mesh_free(m);
    rve_tess_free(t);
}

START_TEST(test_mesh_voronoi_linear)
{
    mesh_case(8, 5u, 0, 1);
}
END_TEST

START_TEST(test_mesh_regularised_quadratic)
{
    mesh_case(10, 9u, 1, 2);
}
END_TEST

START_TEST(test_mesh_bad_options)
{
    rve_tess *t = voronoi(4, 1u, 1, 0);
    rve_mesh_opts o;
    rve_mesh_opts_default(&o);
    rve_err e;
    o.order = 3;
    ck_assert_int_eq(rve_mesh_tess(t, NULL, &o, NULL, NULL, &e), RVE_EUSAGE);
    o.order = 1;
    o.cl = -1;
    o.rcl = 0;
    ck_assert_int_eq(rve_mesh_tess(t, NULL, &o, NULL, NULL, &e), RVE_EUSAGE);
    /* an unwritable output: error, nothing left behind */
    o.rcl = 2;
    o.cl = 0;
    const char *outs[RVE_MESH_NFORMATS] = {"/nonexistent-dir/x.msh", NULL, NULL, NULL};
    ck_assert_int_eq(rve_mesh_tess(t, NULL, &o, outs, NULL, &e), RVE_EIO);
    rve_tess_free(t);
}
END_TEST

static Suite *suite(void)
{
    Suite *s = suite_create("mesh");
    TCase *tc = tcase_create("core");
    tcase_set_timeout(tc, 300);
    tcase_add_test(tc, test_tet_quality_closed_forms);
    tcase_add_test(tc, test_reg_voronoi);
    tcase_add_test(tc, test_reg_laguerre);
    tcase_add_test(tc, test_reg_absolute_threshold_and_idempotence);
    tcase_add_test(tc, test_reg_tiny_cell);
    tcase_add_test(tc, test_reg_polish);
    tcase_add_test(tc, test_reg_refuses_periodic);
    tcase_add_test(tc, test_mesh_voronoi_linear);
    tcase_add_test(tc, test_mesh_regularised_quadratic);
    tcase_add_test(tc, test_mesh_bad_options);
    tcase_add_test(tc, test_mesh_periodic);
    tcase_add_test(tc, test_mesh_periodic_reg);
    tcase_add_test(tc, test_mesh_periodic_partial);
    tcase_add_test(tc, test_mesh_solver_table);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    return test_run_suite(suite());
}
