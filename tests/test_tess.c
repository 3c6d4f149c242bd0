/* test_tess.c - tessellation tests: exact oracles (brute-force power distance, closed forms). */
#define _POSIX_C_SOURCE 200809L
#include "config.h"
#include "testutil.h"
#include <rve/tess.h>
#include <math.h>
#include <stdint.h>
#include <unistd.h>

#include "test_rng.h"

/* Brute force: lowest index of smallest power distance. */
static int brute_owner(const double *s, int n, const double x[3])
{
    int best = 0;
    double bd = INFINITY;
    for (int i = 0; i < n; i++) {
        const double *p = s + 4 * i;
        double d = (x[0] - p[0]) * (x[0] - p[0]) + (x[1] - p[1]) * (x[1] - p[1]) +
                   (x[2] - p[2]) * (x[2] - p[2]) - p[3] * p[3];
        if (d < bd) {
            bd = d;
            best = i;
        }
    }
    return best;
}

START_TEST(test_rasterize_brute)
{
    /* random weighted seeds, some outside the map, non-cubic voxels, offset origin */
    for (int rep = 0; rep < 4; rep++) {
        int n = rep == 0 ? 1 : 50 + 150 * rep;
        double *s = malloc(sizeof(double) * 4 * n);
        for (int i = 0; i < n; i++) {
            s[4 * i] = -2 + 24 * urand();
            s[4 * i + 1] = 1 + 18 * urand();
            s[4 * i + 2] = -1 + 14 * urand();
            s[4 * i + 3] = (rep & 1) ? 3 * urand() : 0;
        }
        rve_map mm = {.nx = 23, .ny = 17, .nz = 12, .h = {1, 1, 1}}, *m = &mm;
        m->lab = calloc((size_t)23 * 17 * 12, sizeof *m->lab);
        m->h[0] = 0.9; m->h[1] = 1.1; m->h[2] = 1.0;
        m->origin[0] = -0.5; m->origin[1] = 1.0; m->origin[2] = 0.25;
        rve_err e;
        rve_err_clear(&e);
        ck_assert_int_eq(rve_tess_rasterize_seeds(s, n, NULL, m, &e), RVE_OK);
        for (int k = 0; k < m->nz; k++)
            for (int j = 0; j < m->ny; j++)
                for (int i = 0; i < m->nx; i++) {
                    double x[3];
                    rve_map_voxel_centre(m, i, j, k, x);
                    uint32_t want = (uint32_t)brute_owner(s, n, x) + 1;
                    ck_assert_uint_eq(m->lab[rve_map_index(m, i, j, k)], want);
                }
        free(m->lab);
        free(s);
    }
}
END_TEST


static double *random_seeds(int n, const double lo[3], const double hi[3], double wmax)
{
    double *s = malloc(sizeof(double) * 4 * n);
    for (int i = 0; i < n; i++) {
        for (int a = 0; a < 3; a++) s[4 * i + a] = lo[a] + (hi[a] - lo[a]) * urand();
        s[4 * i + 3] = wmax * urand();
    }
    return s;
}

static int cmp_i(const void *a, const void *b)
{
    int x = *(const int *)a, y = *(const int *)b;
    return (x > y) - (x < y);
}

static int count_unique(int *v, int m)
{
    qsort(v, m, sizeof(int), cmp_i);
    int u = 0;
    for (int k = 0; k < m; k++)
        if (k == 0 || v[k] != v[k - 1]) u++;
    return u;
}

/* Euler characteristic of every cell from the global topology; faces with their two cells. */
static void check_topology(const rve_tess *t)
{
    rve_err e;
    rve_err_clear(&e);
    ck_assert_msg(t->has_topo, "no topology");
    ck_assert_msg(rve_tess_check(t, &e) == RVE_OK, "%s", e.msg);
    int *vb = malloc(sizeof(int) * 4096), *eb = malloc(sizeof(int) * 4096);
    for (int c = 0; c < t->n; c++) {
        int nf = t->cell_foff[c + 1] - t->cell_foff[c];
        if (t->cells[c].nv == 0) {
            ck_assert_int_eq(nf, 0);
            continue;
        }
        int nv = 0, ne = 0;
        for (int k = t->cell_foff[c]; k < t->cell_foff[c + 1]; k++) {
            int g = t->cell_faces[k];
            for (int q = t->face_voff[g]; q < t->face_voff[g + 1]; q++) {
                ck_assert_int_lt(nv, 4096);
                vb[nv++] = t->face_ver[q];
                eb[ne++] = t->face_edge[q];
            }
            /* the face's cells include c */
            ck_assert(t->face_cell[2 * g] == c || t->face_cell[2 * g + 1] == c);
        }
        int V = count_unique(vb, nv), E = count_unique(eb, ne);
        if (!t->face_vimg) /* periodic cells may touch their own images */
            ck_assert_msg(V - E + nf == 2, "cell %d: V %d E %d F %d", c, V, E, nf);
        ck_assert_int_eq(V, t->cells[c].nv);
        ck_assert_int_eq(nf, t->cells[c].nf);
    }
    /* interior faces: exactly two distinct cells, each listing it once */
    for (int g = 0; g < t->nface; g++) {
        int c0 = t->face_cell[2 * g], c1 = t->face_cell[2 * g + 1];
        ck_assert_int_ge(c0, 0);
        if (c1 < 0) {
            ck_assert_int_ge(c1, -6);
            continue;
        }
        int n0 = 0, n1 = 0;
        for (int k = t->cell_foff[c0]; k < t->cell_foff[c0 + 1]; k++) n0 += t->cell_faces[k] == g;
        for (int k = t->cell_foff[c1]; k < t->cell_foff[c1 + 1]; k++) n1 += t->cell_faces[k] == g;
        if (c0 != c1) {
            ck_assert_int_eq(n0, 1);
            ck_assert_int_eq(n1, 1);
        } else
            ck_assert_int_eq(n0, 2);
    }
    free(vb);
    free(eb);
    /* face planes, areas and points (rve_tess_face_plane, _area, _point)
     * against the global vertices: the vertices lie on the plane, the loop
     * turns counter-clockwise about the unit normal, which points along the
     * seed-to-seed direction (the outward axis for a wall); the area is the
     * loop's Newell area, the point its vertex mean; a cell's face areas sum
     * to its area */
    double *asum = calloc((size_t)t->n, sizeof(double));
    for (int g = 0; g < t->nface; g++) {
        int c0 = t->face_cell[2 * g], c1 = t->face_cell[2 * g + 1];
        int m = t->face_voff[g + 1] - t->face_voff[g];
        double pl[4], pt[3], x[64][3], N[3] = {0, 0, 0}, mean[3] = {0, 0, 0};
        rve_tess_face_plane(t, g, pl);
        rve_tess_face_point(t, g, pt);
        double area = rve_tess_face_area(t, g);
        ck_assert_int_le(m, 64);
        for (int k = 0; k < m; k++) {
            rve_tess_face_vertex(t, g, k, c0, x[k]);
            for (int a = 0; a < 3; a++) mean[a] += x[k][a] / m;
        }
        for (int k = 0; k < m; k++) {
            const double *a = x[k], *b = x[(k + 1) % m];
            N[0] += (a[1] - b[1]) * (a[2] + b[2]);
            N[1] += (a[2] - b[2]) * (a[0] + b[0]);
            N[2] += (a[0] - b[0]) * (a[1] + b[1]);
            ck_assert(fabs(pl[0] * a[0] + pl[1] * a[1] + pl[2] * a[2] - pl[3]) <= 1e-10);
        }
        double nn = sqrt(N[0] * N[0] + N[1] * N[1] + N[2] * N[2]);
        ck_assert(fabs(pl[0] * pl[0] + pl[1] * pl[1] + pl[2] * pl[2] - 1) <= 1e-12);
        ck_assert(N[0] * pl[0] + N[1] * pl[1] + N[2] * pl[2] >= 0);
        ck_assert(fabs(area - 0.5 * nn) <= 1e-10);
        for (int a = 0; a < 3; a++) ck_assert(fabs(pt[a] - mean[a]) <= 1e-10);
        double D[3];
        if (c1 < 0) {
            int ax = (-c1 - 1) / 2;
            D[0] = D[1] = D[2] = 0;
            D[ax] = (-c1 - 1) % 2 ? 1 : -1;
        } else {
            int sh[3];
            rve_tess_img_unpack(t->face_img[g], sh);
            for (int a = 0; a < 3; a++)
                D[a] = t->seeds[4 * c1 + a] + sh[a] * (t->hi[a] - t->lo[a]) - t->seeds[4 * c0 + a];
        }
        double dn = sqrt(D[0] * D[0] + D[1] * D[1] + D[2] * D[2]);
        if (dn > 0)
            for (int a = 0; a < 3; a++) ck_assert(fabs(pl[a] - D[a] / dn) <= 1e-9);
        asum[c0] += area;
        if (c1 >= 0) asum[c1] += area;
    }
    for (int c = 0; c < t->n; c++) ck_assert(fabs(asum[c] - t->cells[c].area) <= 1e-10 * (1 + t->cells[c].area));
    free(asum);
}

/* Volumes (long double sum) against the domain volume. */
static void check_volumes(const rve_tess *t)
{
    long double sum = 0;
    for (int c = 0; c < t->n; c++) sum += t->cells[c].vol;
    double V = (t->hi[0] - t->lo[0]) * (t->hi[1] - t->lo[1]) * (t->hi[2] - t->lo[2]);
    ck_assert_msg(fabsl(sum - V) <= 1e-12L * V, "volume sum %.17Lg vs %.17g", sum, V);
}

/* Brute-force power distance (periodic: minimum image) */
static double pw(const rve_tess *t, int i, const double x[3])
{
    double d2 = 0;
    for (int a = 0; a < 3; a++) {
        double d = x[a] - t->seeds[4 * i + a];
        if (t->periodic[a]) {
            double P = t->hi[a] - t->lo[a];
            while (d > P / 2) d -= P;
            while (d < -P / 2) d += P;
        }
        d2 += d * d;
    }
    return d2 - t->seeds[4 * i + 3] * t->seeds[4 * i + 3];
}

/* Random points inside each cell are closest (power) to its own seed; random
 * points of the domain lie inside the cell of their closest seed. */
static void check_points(const rve_tess *t, int per_cell)
{
    for (int c = 0; c < t->n; c++) {
        const rve_tess_poly *p = &t->cells[c];
        if (p->nv == 0) continue;
        double bl[3] = {INFINITY, INFINITY, INFINITY}, bh[3] = {-INFINITY, -INFINITY, -INFINITY};
        for (int k = 0; k < p->nv; k++)
            for (int a = 0; a < 3; a++) {
                bl[a] = fmin(bl[a], p->v[3 * k + a]);
                bh[a] = fmax(bh[a], p->v[3 * k + a]);
            }
        int got = 0;
        for (int tries = 0; tries < 200 * per_cell && got < per_cell; tries++) {
            double x[3];
            for (int a = 0; a < 3; a++) x[a] = bl[a] + (bh[a] - bl[a]) * urand();
            double d = rve_tess_cell_dist(t, c, x);
            if (d > -1e-9) continue;
            got++;
            double mine = pw(t, c, x);
            for (int j = 0; j < t->n; j++)
                ck_assert_msg(pw(t, j, x) >= mine - 1e-9, "point of cell %d is closer to seed %d", c, j);
        }
    }
    for (int r = 0; r < 20 * t->n; r++) {
        double x[3];
        for (int a = 0; a < 3; a++) x[a] = t->lo[a] + (t->hi[a] - t->lo[a]) * urand();
        int best = 0;
        double bd = INFINITY;
        for (int j = 0; j < t->n; j++)
            if (pw(t, j, x) < bd) {
                bd = pw(t, j, x);
                best = j;
            }
        /* periodic cells are around the seed: bring x into the seed's frame */
        double y[3];
        for (int a = 0; a < 3; a++) {
            y[a] = x[a];
            if (t->periodic[a]) {
                double P = t->hi[a] - t->lo[a], d = y[a] - t->seeds[4 * best + a];
                while (d > P / 2) { d -= P; y[a] -= P; }
                while (d < -P / 2) { d += P; y[a] += P; }
            }
        }
        ck_assert_msg(rve_tess_cell_dist(t, best, y) <= 1e-9, "point outside the cell of its seed");
    }
}

START_TEST(test_random_laguerre)
{
    double lo[3] = {0, -1, 0.5}, hi[3] = {2, 0, 2};
    for (int rep = 0; rep < (test_long() ? 6 : 3); rep++) {
        int n = (int)(150 + 150 * rep * test_scale());
        double *s = random_seeds(n, lo, hi, rep == 0 ? 0 : 0.15);
        rve_tess *t = NULL;
        rve_err e;
        rve_err_clear(&e);
        ck_assert_msg(rve_tess_build(s, n, lo, hi, NULL, NULL, &t, &e) == RVE_OK, "%s", e.msg);
        check_volumes(t);
        check_topology(t);
        check_points(t, 3);
        /* planes: every vertex of a cell satisfies all its planes */
        for (int c = 0; c < n; c++) {
            const rve_tess_poly *p = &t->cells[c];
            for (int k = 0; k < p->nv; k++)
                for (int f = 0; f < p->nf; f++) {
                    double pl[4];
                    rve_tess_cell_plane(t, c, f, pl);
                    ck_assert(pl[0] * p->v[3 * k] + pl[1] * p->v[3 * k + 1] + pl[2] * p->v[3 * k + 2] - pl[3] <= 1e-10);
                }
        }
        rve_tess_free(t);
        free(s);
    }
}
END_TEST

START_TEST(test_lattice)
{
    int nx = 4, ny = 3, nz = 2, n = nx * ny * nz;
    double *s = malloc(sizeof(double) * 4 * n);
    int m = 0;
    for (int k = 0; k < nz; k++)
        for (int j = 0; j < ny; j++)
            for (int i = 0; i < nx; i++) {
                s[4 * m] = i + 0.5; s[4 * m + 1] = j + 0.5; s[4 * m + 2] = k + 0.5; s[4 * m + 3] = 0.3;
                m++;
            }
    double lo[3] = {0, 0, 0}, hi[3] = {nx, ny, nz};
    rve_tess *t = NULL;
    rve_err e;
    rve_err_clear(&e);
    ck_assert_msg(rve_tess_build(s, n, lo, hi, NULL, NULL, &t, &e) == RVE_OK, "%s", e.msg);
    for (int c = 0; c < n; c++) {
        ck_assert_double_eq_tol(t->cells[c].vol, 1.0, 1e-12);
        ck_assert_double_eq_tol(t->cells[c].area, 6.0, 1e-12);
        ck_assert_int_eq(t->cells[c].nf, 6);
        ck_assert_int_eq(t->cells[c].nv, 8);
        ck_assert_double_eq_tol(t->cells[c].centroid[0], s[4 * c], 1e-12);
        ck_assert_double_eq_tol(t->cells[c].centroid[1], s[4 * c + 1], 1e-12);
        ck_assert_double_eq_tol(t->cells[c].centroid[2], s[4 * c + 2], 1e-12);
    }
    ck_assert_int_eq(t->nver, (nx + 1) * (ny + 1) * (nz + 1));
    ck_assert_int_eq(t->nedge, nx * (ny + 1) * (nz + 1) + (nx + 1) * ny * (nz + 1) + (nx + 1) * (ny + 1) * nz);
    ck_assert_int_eq(t->nface, (nx + 1) * ny * nz + nx * (ny + 1) * nz + nx * ny * (nz + 1));
    check_topology(t);
    /* every vertex: the cells meeting there are those of the lattice around it */
    int n8 = 0;
    for (int v = 0; v < t->nver; v++) {
        const double *x = t->ver + 3 * v;
        double fx = x[0], fy = x[1], fz = x[2];
        ck_assert_double_eq_tol(fx, nearbyint(fx), 1e-12);
        ck_assert_double_eq_tol(fy, nearbyint(fy), 1e-12);
        ck_assert_double_eq_tol(fz, nearbyint(fz), 1e-12);
        int i = (int)nearbyint(fx), j = (int)nearbyint(fy), k = (int)nearbyint(fz);
        int want = 0;
        for (int dk = -1; dk <= 0; dk++)
            for (int dj = -1; dj <= 0; dj++)
                for (int di = -1; di <= 0; di++)
                    if (i + di >= 0 && i + di < nx && j + dj >= 0 && j + dj < ny && k + dk >= 0 && k + dk < nz) want++;
        int cells = 0;
        for (int q = t->ver_coff[v]; q < t->ver_coff[v + 1]; q++) cells += t->ver_cells[q] >= 0;
        ck_assert_int_eq(cells, want);
        n8 += want == 8;
    }
    ck_assert_int_eq(n8, (nx - 1) * (ny - 1) * (nz - 1));
    for (int ed = 0; ed < t->nedge; ed++) ck_assert_double_eq_tol(rve_tess_edge_length(t, ed), 1.0, 1e-12);
    rve_tess_free(t);
    free(s);
}
END_TEST

START_TEST(test_periodic)
{
    double lo[3] = {0, 0, 0}, hi[3] = {1.5, 1, 1.2};
    int pers[3][3] = {{1, 1, 1}, {1, 0, 0}, {0, 1, 1}};
    for (int rep = 0; rep < 3; rep++) {
        int n = 120;
        double *s = random_seeds(n, lo, hi, rep == 1 ? 0.1 : 0);
        rve_tess *t = NULL;
        rve_err e;
        rve_err_clear(&e);
        ck_assert_msg(rve_tess_build(s, n, lo, hi, pers[rep], NULL, &t, &e) == RVE_OK, "%s", e.msg);
        check_volumes(t);
        check_topology(t);
        check_points(t, 2);
        /* no walls on periodic axes; every face seen from its second cell
         * matches one face of that cell's polyhedron (opposite faces match) */
        for (int g = 0; g < t->nface; g++) {
            int c1 = t->face_cell[2 * g + 1];
            if (c1 < 0) {
                int ax = (-c1 - 1) / 2;
                ck_assert(!pers[rep][ax]);
                continue;
            }
            int m = t->face_voff[g + 1] - t->face_voff[g];
            const rve_tess_poly *p = &t->cells[c1];
            int found = 0;
            for (int f = 0; f < p->nf && !found; f++) {
                if (p->foff[f + 1] - p->foff[f] != m) continue;
                int all = 1;
                for (int k = 0; k < m && all; k++) {
                    double x[3];
                    rve_tess_face_vertex(t, g, k, c1, x);
                    int hit = 0;
                    for (int q = p->foff[f]; q < p->foff[f + 1]; q++)
                        if (sqrt((x[0] - p->v[3 * p->floop[q]]) * (x[0] - p->v[3 * p->floop[q]]) +
                                 (x[1] - p->v[3 * p->floop[q] + 1]) * (x[1] - p->v[3 * p->floop[q] + 1]) +
                                 (x[2] - p->v[3 * p->floop[q] + 2]) * (x[2] - p->v[3 * p->floop[q] + 2])) < 1e-9)
                            hit = 1;
                    all = hit;
                }
                found = all;
            }
            ck_assert_msg(found, "face %d does not match a face of cell %d", g, c1);
        }
        rve_tess_free(t);
        free(s);
    }
}
END_TEST

START_TEST(test_empty_cell)
{
    double lo[3] = {0, 0, 0}, hi[3] = {1, 1, 1};
    double s[] = {0.5, 0.5, 0.5, 0.6, 0.55, 0.5, 0.5, 0.0, 0.1, 0.1, 0.1, 0, 0.9, 0.9, 0.9, 0};
    rve_tess *t = NULL;
    rve_err e;
    rve_err_clear(&e);
    ck_assert_msg(rve_tess_build(s, 4, lo, hi, NULL, NULL, &t, &e) == RVE_OK, "%s", e.msg);
    ck_assert_int_eq(t->nempty, 1);
    ck_assert_int_eq(t->cells[1].nv, 0);
    ck_assert_double_eq(t->cells[1].vol, 0);
    check_volumes(t);
    check_topology(t);
    check_points(t, 5);
    rve_tess_free(t);
}
END_TEST

START_TEST(test_bad_input)
{
    double lo[3] = {0, 0, 0}, hi[3] = {1, 1, 1};
    double s[] = {0.5, 0.5, 0.5, 0, 1.5, 0.5, 0.5, 0};
    rve_tess *t = NULL;
    rve_err e;
    rve_err_clear(&e);
    ck_assert_int_eq(rve_tess_build(s, 2, lo, hi, NULL, NULL, &t, &e), RVE_EDATA);
    ck_assert_ptr_null(t);
    s[4] = NAN;
    ck_assert_int_eq(rve_tess_build(s, 2, lo, hi, NULL, NULL, &t, &e), RVE_EDATA);
    double hi2[3] = {1, 0, 1};
    s[4] = 0.2;
    ck_assert_int_eq(rve_tess_build(s, 2, lo, hi2, NULL, NULL, &t, &e), RVE_EDATA);
    ck_assert_int_eq(rve_tess_build(s, 0, lo, hi, NULL, NULL, &t, &e), RVE_EDATA);
    /* coincident seeds of equal weight: an error, not a silent hole */
    double d[] = {0.2, 0.2, 0.2, 0, 0.5, 0.5, 0.5, 0.1, 0.5, 0.5, 0.5, 0.1};
    ck_assert_int_eq(rve_tess_build(d, 3, lo, hi, NULL, NULL, &t, &e), RVE_EDATA);
    ck_assert_ptr_null(t);
    ck_assert_msg(strstr(e.msg, "seeds 2 and 3 coincide") != NULL, "%s", e.msg);
    /* seeds on the box's faces and corners are fine */
    double c[] = {1, 1, 1, 0, 0, 0, 0, 0, 0.5, 1, 0, 0, 0.3, 0.3, 0.3, 0};
    ck_assert(rve_tess_build(c, 4, lo, hi, NULL, NULL, &t, &e) == RVE_OK);
    check_volumes(t);
    check_topology(t);
    rve_tess_free(t);
}
END_TEST

START_TEST(test_update)
{
    double lo[3] = {0, 0, 0}, hi[3] = {1, 1, 1};
    int pers[2][3] = {{0, 0, 0}, {1, 1, 1}};
    for (int rep = 0; rep < 2; rep++) {
        int n = 400;
        double *s = random_seeds(n, lo, hi, 0.05);
        rve_tess *t = NULL;
        rve_err e;
        rve_err_clear(&e);
        ck_assert_msg(rve_tess_build(s, n, lo, hi, pers[rep], NULL, &t, &e) == RVE_OK, "%s", e.msg);
        int *changed = malloc(sizeof(int) * n);
        double *old = malloc(sizeof(double) * n);
        for (int step = 0; step < 20; step++) {
            int ids[3];
            double ns[12];
            int nm = 1 + step % 3;
            for (int k = 0; k < nm; k++) {
                ids[k] = (int)(urand() * n);
                if (k > 0 && ids[k] == ids[0]) ids[k] = (ids[0] + 1) % n;
                for (int a = 0; a < 3; a++) ns[4 * k + a] = urand();
                ns[4 * k + 3] = 0.08 * urand();
                for (int a = 0; a < 4; a++) s[4 * ids[k] + a] = ns[4 * k + a];
            }
            for (int c = 0; c < n; c++) old[c] = t->cells[c].vol;
            int nc = 0;
            ck_assert_msg(rve_tess_update(t, nm, ids, ns, changed, &nc, &e) == RVE_OK, "%s", e.msg);
            ck_assert_int_eq(t->has_topo, 0);
            /* oracle: a fresh build of the same seeds */
            rve_tess *u = NULL;
            ck_assert(rve_tess_build(s, n, lo, hi, pers[rep], NULL, &u, &e) == RVE_OK);
            int empt = 0;
            for (int c = 0; c < n; c++) {
                ck_assert_double_eq_tol(t->cells[c].vol, u->cells[c].vol, 1e-12);
                ck_assert_int_eq(t->cells[c].nf, u->cells[c].nf);
                empt += u->cells[c].nv == 0;
                if (fabs(old[c] - u->cells[c].vol) > 1e-12) {
                    int in = 0;
                    for (int q = 0; q < nc; q++) in |= changed[q] == c;
                    ck_assert_msg(in, "cell %d changed but is not reported", c);
                }
            }
            ck_assert_int_eq(t->nempty, empt);
            ck_assert_int_lt(nc, n / 2);
            rve_tess_free(u);
        }
        check_volumes(t);
        ck_assert(rve_tess_topology(t, &e) == RVE_OK);
        check_topology(t);
        check_points(t, 1);
        free(changed);
        free(old);
        rve_tess_free(t);
        free(s);
    }
}
END_TEST

/* Undo: after an update and rve_tess_undo every cell is bit-for-bit the one
 * before (volume, area, counts, vertices), the seeds are back, and later
 * updates still agree with a fresh build (the container was restored too). */
START_TEST(test_update_undo)
{
    double lo[3] = {0, 0, 0}, hi[3] = {1, 1, 1};
    int pers[2][3] = {{0, 0, 0}, {1, 1, 1}};
    for (int rep = 0; rep < 2; rep++) {
        int n = 300;
        double *s = random_seeds(n, lo, hi, 0.05);
        rve_tess *t = NULL, *ref = NULL;
        rve_err e;
        rve_err_clear(&e);
        ck_assert_msg(rve_tess_build(s, n, lo, hi, pers[rep], NULL, &t, &e) == RVE_OK, "%s", e.msg);
        ck_assert_msg(rve_tess_build(s, n, lo, hi, pers[rep], NULL, &ref, &e) == RVE_OK, "%s", e.msg);
        ck_assert_int_eq(rve_tess_undo_enable(t, 1, &e), RVE_OK);
        ck_assert_int_eq(rve_tess_undo(t, &e), RVE_OK); /* nothing kept: no-op */
        for (int step = 0; step < 30; step++) {
            int ids[2] = {(int)(urand() * n), 0};
            int nm = 1 + step % 2;
            ids[1] = (ids[0] + 1 + (int)(urand() * (n - 1))) % n;
            double ns[8];
            for (int k = 0; k < nm; k++) {
                for (int a = 0; a < 3; a++) ns[4 * k + a] = urand();
                ns[4 * k + 3] = 0.08 * urand();
            }
            int nc = 0;
            ck_assert_msg(rve_tess_update(t, nm, ids, ns, NULL, &nc, &e) == RVE_OK, "%s", e.msg);
            ck_assert(nc > 0);
            if (step % 3 == 2) { /* keep: the oracle is a fresh build */
                for (int k = 0; k < nm; k++)
                    for (int a = 0; a < 4; a++) s[4 * ids[k] + a] = ns[4 * k + a];
                rve_tess_free(ref);
                ck_assert(rve_tess_build(s, n, lo, hi, pers[rep], NULL, &ref, &e) == RVE_OK);
                for (int c = 0; c < n; c++)
                    ck_assert_double_eq_tol(t->cells[c].vol, ref->cells[c].vol, 1e-12);
                continue;
            }
            /* reject: back to the previous state, exactly (ref is the build
             * of that state; t's own polyhedra before the update were equal
             * to it to 1e-12, and after undo they are those same polyhedra) */
            ck_assert_int_eq(rve_tess_undo(t, &e), RVE_OK);
            int empt = 0;
            for (int c = 0; c < n; c++) {
                const rve_tess_poly *p = &t->cells[c], *q = &ref->cells[c];
                ck_assert_double_eq_tol(p->vol, q->vol, 1e-12);
                ck_assert_double_eq_tol(p->area, q->area, 1e-11);
                ck_assert_int_eq(p->nf, q->nf);
                ck_assert_int_eq(p->nv, q->nv);
                empt += q->nv == 0;
            }
            ck_assert_int_eq(t->nempty, empt);
            for (int k = 0; k < nm; k++)
                for (int a = 0; a < 3; a++)
                    ck_assert_double_eq_tol(t->seeds[4 * ids[k] + a], ref->seeds[4 * ids[k] + a], 1e-15);
            ck_assert_int_eq(rve_tess_undo(t, &e), RVE_OK); /* a second undo does nothing */
            for (int c = 0; c < n; c++)
                ck_assert_double_eq_tol(t->cells[c].vol, ref->cells[c].vol, 1e-12);
        }
        ck_assert_int_eq(rve_tess_undo_enable(t, 0, &e), RVE_OK);
        check_volumes(t);
        ck_assert(rve_tess_topology(t, &e) == RVE_OK);
        check_topology(t);
        rve_tess_free(t);
        rve_tess_free(ref);
        free(s);
    }
    /* needs the container */
    double s1[4] = {0.5, 0.5, 0.5, 0};
    rve_tess_opts o;
    rve_tess_opts_default(&o);
    o.keep_container = 0;
    rve_tess *t = NULL;
    rve_err e;
    ck_assert(rve_tess_build(s1, 1, lo, hi, NULL, &o, &t, &e) == RVE_OK);
    ck_assert_int_eq(rve_tess_undo_enable(t, 1, &e), RVE_EUSAGE);
    ck_assert_int_eq(rve_tess_undo(t, &e), RVE_EUSAGE);
    rve_tess_free(t);
}
END_TEST

START_TEST(test_rasterize_tess)
{
    /* rasterised labels agree with the polyhedra: each voxel centre lies in its cell */
    double lo[3] = {0, 0, 0}, hi[3] = {10, 8, 6};
    int pers[2][3] = {{0, 0, 0}, {1, 1, 0}};
    for (int rep = 0; rep < 2; rep++) {
        double *s = random_seeds(60, lo, hi, 1.0);
        rve_tess *t = NULL;
        rve_err e;
        rve_err_clear(&e);
        ck_assert(rve_tess_build(s, 60, lo, hi, pers[rep], NULL, &t, &e) == RVE_OK);
        rve_map mm = {.nx = 20, .ny = 16, .nz = 12, .h = {0.5, 0.5, 0.5}};
        mm.lab = calloc((size_t)20 * 16 * 12, sizeof *mm.lab);
        ck_assert(rve_tess_rasterize(t, NULL, &mm, &e) == RVE_OK);
        for (int k = 0; k < mm.nz; k++)
            for (int j = 0; j < mm.ny; j++)
                for (int i = 0; i < mm.nx; i++) {
                    double x[3];
                    rve_map_voxel_centre(&mm, i, j, k, x);
                    int c = (int)mm.lab[rve_map_index(&mm, i, j, k)] - 1;
                    ck_assert_int_ge(c, 0);
                    double best = INFINITY;
                    for (int q = 0; q < t->n; q++) best = fmin(best, pw(t, q, x));
                    ck_assert(pw(t, c, x) <= best);
                }
        free(mm.lab);
        rve_tess_free(t);
        free(s);
    }
}
END_TEST

START_TEST(test_tess_roundtrip)
{
    double lo[3] = {0, 0, 0}, hi[3] = {1, 2, 1};
    for (int rep = 0; rep < 2; rep++) {
        int n = 80;
        double *s;
        if (rep == 0)
            s = random_seeds(n, lo, hi, 0.1);
        else { /* lattice: degenerate vertices */
            n = 2 * 4 * 2;
            s = malloc(sizeof(double) * 4 * n);
            for (int i = 0; i < n; i++) {
                s[4 * i] = 0.25 + 0.5 * (i % 2);
                s[4 * i + 1] = 0.25 + 0.5 * ((i / 2) % 4);
                s[4 * i + 2] = 0.25 + 0.5 * (i / 8);
                s[4 * i + 3] = 0;
            }
        }
        rve_tess *t = NULL, *u = NULL;
        rve_err e;
        rve_err_clear(&e);
        ck_assert(rve_tess_build(s, n, lo, hi, NULL, NULL, &t, &e) == RVE_OK);
        char path[] = "/tmp/rve_test_tess_XXXXXX";
        int fd = mkstemp(path);
        ck_assert_int_ge(fd, 0);
        close(fd);
        int *ids = malloc(sizeof(int) * n), *rids = NULL;
        for (int i = 0; i < n; i++) ids[i] = 1000 + 3 * i;
        ck_assert_msg(rve_tess_write_tess(t, path, ids, &e) == RVE_OK, "%s", e.msg);
        ck_assert_msg(rve_tess_read_tess(path, &u, &rids, &e) == RVE_OK, "%s", e.msg);
        ck_assert_int_eq(u->n, n);
        for (int i = 0; i < n; i++) ck_assert_int_eq(rids[i], ids[i]);
        for (int i = 0; i < 4 * n; i++) ck_assert(u->seeds[i] == t->seeds[i]);
        for (int a = 0; a < 3; a++) {
            ck_assert(u->lo[a] == lo[a]);
            ck_assert(u->hi[a] == hi[a]);
        }
        ck_assert_int_eq(u->nver, t->nver);
        ck_assert_int_eq(u->nedge, t->nedge);
        ck_assert_int_eq(u->nface, t->nface);
        for (int v = 0; v < 3 * t->nver; v++) ck_assert(u->ver[v] == t->ver[v]);
        for (int k = 0; k < 2 * t->nedge; k++) ck_assert_int_eq(u->edge_ver[k], t->edge_ver[k]);
        for (int g = 0; g <= t->nface; g++) ck_assert_int_eq(u->face_voff[g], t->face_voff[g]);
        for (int k = 0; k < t->face_voff[t->nface]; k++) {
            ck_assert_int_eq(u->face_ver[k], t->face_ver[k]);
            ck_assert_int_eq(u->face_edge[k], t->face_edge[k]);
            ck_assert_int_eq(u->face_esign[k], t->face_esign[k]);
        }
        for (int k = 0; k < 2 * t->nface; k++) ck_assert_int_eq(u->face_cell[k], t->face_cell[k]);
        for (int g = 0; g < t->nface; g++) {
            double pu[4], pt[4];
            rve_tess_face_plane(u, g, pu);
            rve_tess_face_plane(t, g, pt);
            for (int k = 0; k < 4; k++) ck_assert_double_eq_tol(pu[k], pt[k], 1e-15);
        }
        /* per-cell planes: from the file's planes in u, from the seeds in t */
        for (int c = 0; c < n; c++) {
            ck_assert_int_eq(u->cells[c].nf, t->cells[c].nf);
            for (int f = 0; f < t->cells[c].nf; f++) {
                double pu[4], pt[4];
                rve_tess_cell_plane(u, c, f, pu);
                rve_tess_cell_plane(t, c, f, pt);
                for (int k = 0; k < 4; k++) ck_assert_double_eq_tol(pu[k], pt[k], 1e-15);
            }
        }
        for (int c = 0; c <= n; c++) ck_assert_int_eq(u->cell_foff[c], t->cell_foff[c]);
        for (int k = 0; k < t->cell_foff[n]; k++) {
            ck_assert_int_eq(u->cell_faces[k], t->cell_faces[k]);
            ck_assert_int_eq(u->cell_fsign[k], t->cell_fsign[k]);
        }
        for (int c = 0; c < n; c++) {
            ck_assert_double_eq_tol(u->cells[c].vol, t->cells[c].vol, 1e-13);
            ck_assert_int_eq(u->cells[c].nv, t->cells[c].nv);
            for (int f = 0; f < u->cells[c].nf; f++) ck_assert_int_eq(u->cells[c].fnbr[f], t->cells[c].fnbr[f]);
        }
        check_topology(u);
        check_volumes(u);
        /* VTK: polyhedral cells with id and volume */
        ck_assert_msg(rve_tess_write_vtk(t, path, ids, &e) == RVE_OK, "%s", e.msg);
        FILE *fp = fopen(path, "r");
        char line[256];
        int cells = -1, types = 0;
        while (fgets(line, sizeof line, fp)) {
            if (sscanf(line, "CELLS %d", &cells) == 1) continue;
            if (strcmp(line, "42\n") == 0) types++;
        }
        fclose(fp);
        ck_assert_int_eq(cells, n);
        ck_assert_int_eq(types, n);
        remove(path);
        free(ids);
        free(rids);
        rve_tess_free(t);
        rve_tess_free(u);
        free(s);
    }
}
END_TEST

START_TEST(test_read_bad)
{
    const char *bad[] = {
        "***tess\n **format\n 3.5\n **general\n 3 standard\n **cell\n 1\n",
        "hello",
        "***tess\n **format\n 3.5\n **general\n 3 standard\n **cell\n 2\n *seed\n 1 0 0 0 0\n 2 x 0 0 0\n***end\n",
        "***tess\n **format\n 3.5\n **general\n 3 standard\n **cell\n 1\n **vertex\n 1\n 1 0 0 0 0\n **edge\n 1\n 1 1 2 0\n***end\n",
    };
    for (int k = 0; k < 4; k++) {
        char path[] = "/tmp/rve_test_tess_XXXXXX";
        int fd = mkstemp(path);
        ck_assert_int_ge(fd, 0);
        ck_assert(write(fd, bad[k], strlen(bad[k])) == (ssize_t)strlen(bad[k]));
        close(fd);
        rve_tess *t = NULL;
        rve_err e;
        rve_err_clear(&e);
        ck_assert_int_eq(rve_tess_read_tess(path, &t, NULL, &e), RVE_EDATA);
        ck_assert_ptr_null(t);
        ck_assert(strlen(e.msg) > 0);
        remove(path);
    }
}
END_TEST

START_TEST(test_threads)
{
    /* the threaded build (one voro++ container per thread) gives the cells of
     * the serial build, and a valid tessellation */
    double lo[3] = {0, 0, 0}, hi[3] = {1, 1, 1};
    int n = 5000;
    double *s = random_seeds(n, lo, hi, 0.02);
    rve_tess_opts o;
    rve_tess_opts_default(&o);
    rve_tess *a = NULL, *b = NULL;
    rve_err e;
    rve_err_clear(&e);
    o.threads = 1;
    ck_assert(rve_tess_build(s, n, lo, hi, NULL, &o, &a, &e) == RVE_OK);
    o.threads = 2;
    ck_assert(rve_tess_build(s, n, lo, hi, NULL, &o, &b, &e) == RVE_OK);
    for (int c = 0; c < n; c++) {
        ck_assert(a->cells[c].vol == b->cells[c].vol);
        ck_assert_int_eq(a->cells[c].nf, b->cells[c].nf);
    }
    ck_assert_int_eq(a->nver, b->nver);
    ck_assert_int_eq(a->nface, b->nface);
    check_volumes(b);
    check_topology(b);
    rve_tess_free(a);
    rve_tess_free(b);
    free(s);
}
END_TEST

START_TEST(test_read_mutated)
{
    /* corrupt copies of a valid file: the reader returns RVE_OK or RVE_EDATA,
     * never crashes (the sanitizer build checks memory errors) */
    double lo[3] = {0, 0, 0}, hi[3] = {1, 1, 1};
    double *s = random_seeds(12, lo, hi, 0.05);
    rve_tess *t = NULL;
    rve_err e;
    rve_err_clear(&e);
    ck_assert(rve_tess_build(s, 12, lo, hi, NULL, NULL, &t, &e) == RVE_OK);
    char path[] = "/tmp/rve_test_tess_XXXXXX";
    int fd = mkstemp(path);
    ck_assert_int_ge(fd, 0);
    close(fd);
    ck_assert(rve_tess_write_tess(t, path, NULL, &e) == RVE_OK);
    rve_tess_free(t);
    free(s);
    FILE *fp = fopen(path, "rb");
    static char orig[1 << 20];
    size_t n = fread(orig, 1, sizeof orig - 1, fp);
    fclose(fp);
    static char buf[1 << 20];
    int iters = (int)(400 * test_scale() * (test_long() ? 10 : 1)), nok = 0;
    const char repl[] = "0123456789-+.e *x\n";
    for (int it = 0; it < iters; it++) {
        memcpy(buf, orig, n);
        size_t m = n;
        int kind = it % 4;
        if (kind == 0)
            m = (size_t)(urand() * n); /* truncation */
        else if (kind == 1 || kind == 2)
            for (int k = 0; k < 1 + it % 5; k++) buf[(size_t)(urand() * n)] = repl[(int)(urand() * (sizeof repl - 1))];
        else { /* drop a chunk */
            size_t a = (size_t)(urand() * n), b = a + (size_t)(urand() * 200);
            if (b > n) b = n;
            memmove(buf + a, buf + b, n - b);
            m = n - (b - a);
        }
        fp = fopen(path, "wb");
        fwrite(buf, 1, m, fp);
        fclose(fp);
        rve_tess *u = NULL;
        rve_err_clear(&e);
        rve_status st = rve_tess_read_tess(path, &u, NULL, &e);
        ck_assert_msg(st == RVE_OK || st == RVE_EDATA, "status %d: %s", st, e.msg);
        if (st == RVE_OK) {
            nok++;
            rve_tess_check(u, &e);
            rve_tess_free(u);
        } else
            ck_assert_ptr_null(u);
    }
    remove(path);
    ck_assert_int_lt(nok, iters);
}
END_TEST

static Suite *tess_suite(void)
{
    Suite *s = suite_create("tess");
    TCase *tc = tcase_create("core");
    tcase_set_timeout(tc, test_long() ? 1200 : 120);
    tcase_add_test(tc, test_rasterize_brute);
    tcase_add_test(tc, test_random_laguerre);
    tcase_add_test(tc, test_lattice);
    tcase_add_test(tc, test_periodic);
    tcase_add_test(tc, test_empty_cell);
    tcase_add_test(tc, test_bad_input);
    tcase_add_test(tc, test_update);
    tcase_add_test(tc, test_update_undo);
    tcase_add_test(tc, test_rasterize_tess);
    tcase_add_test(tc, test_tess_roundtrip);
    tcase_add_test(tc, test_read_bad);
    tcase_add_test(tc, test_threads);
    tcase_add_test(tc, test_read_mutated);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    return test_run_suite(tess_suite());
}
