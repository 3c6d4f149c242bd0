/* pack_oracle.h - independent overlap oracles of the pack tests (shared by
 * tests/test_pack.c and tests/test_pack_grains.c): the exact sphere formula
 * in long double, and the separating axis test over a superset of the
 * candidate axes for polyhedra. */
#ifndef RVE_TEST_PACK_ORACLE_H
#define RVE_TEST_PACK_ORACLE_H
#include <rve/pack.h>
#include <math.h>
#include <stdlib.h>

/* ------------------------------------------------ independent overlap oracles */
/* Spheres: the largest overlap over all pairs and all images, long double. */
static inline long double sphere_max_overlap(const rve_pack_set *s)
{
    long double worst = 0;
    int m = s->periodic ? 1 : 0;
    for (size_t i = 0; i < s->n; i++)
        for (size_t j = i; j < s->n; j++)
            for (int a = -m; a <= m; a++)
                for (int b = -m; b <= m; b++)
                    for (int c = -m; c <= m; c++) {
                        if (i == j && a == 0 && b == 0 && c == 0)
                            continue;
                        int sh[3] = {a, b, c};
                        long double d2 = 0;
                        for (int k = 0; k < 3; k++) {
                            long double dk = (long double)s->b[j].x[k] + (long double)sh[k] * s->L[k] - s->b[i].x[k];
                            d2 += dk * dk;
                        }
                        long double ov = (long double)s->b[i].a[0] + s->b[j].a[0] - sqrtl(d2);
                        if (ov > worst)
                            worst = ov;
                    }
    if (!s->periodic)
        for (size_t i = 0; i < s->n; i++)
            for (int k = 0; k < 3; k++) {
                long double lo = (long double)s->b[i].a[0] - s->b[i].x[k];
                long double hi = (long double)s->b[i].x[k] + s->b[i].a[0] - s->L[k];
                if (lo > worst) worst = lo;
                if (hi > worst) worst = hi;
            }
    return worst;
}

/* Polyhedra: separating axis test over a superset of the candidate axes
 * (normals of all vertex triples of each body, cross products of all vertex
 * differences of A with those of B).  Returns the smallest overlap of the
 * projections over the axes: <= 0 means separated. */
static inline long double sat_overlap(const double *va, int na, const double *vb, int nb)
{
    long double best = INFINITY;
#define PROJ(AX)                                                                  \
    do {                                                                          \
        long double an = 0, ln = 0;                                               \
        for (int k_ = 0; k_ < 3; k_++)                                            \
            an += (long double)(AX)[k_] * (AX)[k_];                              \
        if (an < 1e-24L)                                                          \
            break;                                                                \
        an = sqrtl(an);                                                           \
        long double amin = INFINITY, amax = -INFINITY, bmin = INFINITY, bmax = -INFINITY; \
        for (int p_ = 0; p_ < na; p_++) {                                         \
            ln = ((long double)va[3 * p_] * (AX)[0] + (long double)va[3 * p_ + 1] * (AX)[1] + \
                  (long double)va[3 * p_ + 2] * (AX)[2]) / an;                    \
            if (ln < amin) amin = ln;                                             \
            if (ln > amax) amax = ln;                                             \
        }                                                                         \
        for (int p_ = 0; p_ < nb; p_++) {                                         \
            ln = ((long double)vb[3 * p_] * (AX)[0] + (long double)vb[3 * p_ + 1] * (AX)[1] + \
                  (long double)vb[3 * p_ + 2] * (AX)[2]) / an;                    \
            if (ln < bmin) bmin = ln;                                             \
            if (ln > bmax) bmax = ln;                                             \
        }                                                                         \
        long double o = fminl(amax - bmin, bmax - amin);                          \
        if (o < best) best = o;                                                   \
    } while (0)
    for (int body = 0; body < 2 && best > 0; body++) {
        const double *v = body ? vb : va;
        int n = body ? nb : na;
        for (int i = 0; i < n && best > 0; i++)
            for (int j = i + 1; j < n; j++)
                for (int k = j + 1; k < n; k++) {
                    long double e1[3], e2[3], ax[3];
                    for (int a = 0; a < 3; a++) {
                        e1[a] = (long double)v[3 * j + a] - v[3 * i + a];
                        e2[a] = (long double)v[3 * k + a] - v[3 * i + a];
                    }
                    ax[0] = e1[1] * e2[2] - e1[2] * e2[1];
                    ax[1] = e1[2] * e2[0] - e1[0] * e2[2];
                    ax[2] = e1[0] * e2[1] - e1[1] * e2[0];
                    PROJ(ax);
                }
    }
    for (int i = 0; i < na && best > 0; i++)
        for (int j = i + 1; j < na && best > 0; j++)
            for (int k = 0; k < nb; k++)
                for (int l = k + 1; l < nb; l++) {
                    long double e1[3], e2[3], ax[3];
                    for (int a = 0; a < 3; a++) {
                        e1[a] = (long double)va[3 * j + a] - va[3 * i + a];
                        e2[a] = (long double)vb[3 * l + a] - vb[3 * k + a];
                    }
                    ax[0] = e1[1] * e2[2] - e1[2] * e2[1];
                    ax[1] = e1[2] * e2[0] - e1[0] * e2[2];
                    ax[2] = e1[0] * e2[1] - e1[1] * e2[0];
                    PROJ(ax);
                }
#undef PROJ
    return best;
}


static inline void world_vertices(const rve_pack_body *b, const double t[3], double *out)
{
    for (int k = 0; k < b->nv; k++) {
        rve_pack_body_vertex(b, k, out + 3 * k);
        for (int a = 0; a < 3; a++)
            out[3 * k + a] += t[a];
    }
}

/* Largest SAT overlap over all pairs of a polyhedral packing (all images). */
static inline long double poly_max_overlap(const rve_pack_set *s)
{
    long double worst = -INFINITY;
    int m = s->periodic ? 1 : 0;
    double *va = malloc(sizeof(double) * 3 * 4096), *vb = malloc(sizeof(double) * 3 * 4096);
    for (size_t i = 0; i < s->n; i++)
        for (size_t j = i; j < s->n; j++)
            for (int a = -m; a <= m; a++)
                for (int b = -m; b <= m; b++)
                    for (int c = -m; c <= m; c++) {
                        if (i == j && a == 0 && b == 0 && c == 0)
                            continue;
                        double t[3] = {a * s->L[0], b * s->L[1], c * s->L[2]}, z[3] = {0, 0, 0};
                        double d2 = 0;
                        for (int k = 0; k < 3; k++)
                            d2 += pow(s->b[j].x[k] + t[k] - s->b[i].x[k], 2);
                        /* farther than the vertex spans: certainly apart */
                        if (sqrt(d2) > s->b[i].rbound + s->b[j].rbound + 1e-9)
                            continue;
                        world_vertices(&s->b[i], z, va);
                        world_vertices(&s->b[j], t, vb);
                        long double o = sat_overlap(va, s->b[i].nv, vb, s->b[j].nv);
                        if (o > worst)
                            worst = o;
                    }
    if (!s->periodic)
        for (size_t i = 0; i < s->n; i++)
            for (int k = 0; k < s->b[i].nv; k++) {
                double w[3];
                rve_pack_body_vertex(&s->b[i], k, w);
                for (int a = 0; a < 3; a++) {
                    if (-w[a] > worst) worst = -w[a];
                    if (w[a] - s->L[a] > worst) worst = w[a] - s->L[a];
                }
            }
    free(va);
    free(vb);
    return worst;
}


static inline rve_pack_set *random_polys(int n, int periodic, uint64_t seed)
{
    rve_pack_set *s = rve_pack_set_alloc((size_t)n);
    s->periodic = periodic;
    rve_rng r;
    rve_rng_seed(&r, seed);
    rve_err e;
    for (int i = 0; i < n; i++) {
        int nv = 6 + (int)(rve_rng_uniform(&r) * 10);
        double pts[3 * 16];
        double sz = 0.6 + 0.8 * rve_rng_uniform(&r);
        for (int k = 0; k < nv; k++)
            for (int a = 0; a < 3; a++)
                pts[3 * k + a] = sz * (a == 2 ? 0.6 : 1.0) * rve_rng_normal(&r);
        ck_assert_int_eq(rve_pack_body_poly(&s->b[i], nv, pts, &e), RVE_OK);
    }
    return s;
}

#endif
