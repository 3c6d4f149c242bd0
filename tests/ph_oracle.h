/* ph_oracle.h - independent answers for a convex polyhedron A (its vertices)
 * against an axis-aligned ellipsoid or sphere B (centre c, semi-axes e), for
 * the Peng-Hanley kernel's tests.  No code of the library: the support
 * function of the Minkowski difference A - B is a closed form,
 *   h(n) = max_i n.v_i - n.c + sqrt(sum_j e_j^2 n_j^2)        (long double),
 * and min over unit n of h is the negated signed distance (> 0: depth of the
 * overlap; < 0: minus the separation distance).  The minimum is found by
 * brute force: 4000 Fibonacci directions, then a compass search (8
 * directions turning after each failure, the step shrinking to 1e-15) from
 * the 8 best of them.  Any
 * direction gives an upper bound of the minimum, so the search can only err
 * high, by the compass search stalling; the tests allow 1e-6. */
#ifndef RVE_PH_ORACLE_H
#define RVE_PH_ORACLE_H

#include <math.h>
#include <stddef.h>

static long double pho_h(const double *v, size_t nv, const double c[3], const double e[3], const long double n[3])
{
    long double hp = -INFINITY;
    for (size_t i = 0; i < nv; i++) {
        long double d = n[0] * v[3 * i] + n[1] * v[3 * i + 1] + n[2] * v[3 * i + 2];
        if (d > hp)
            hp = d;
    }
    long double q = 0;
    for (int j = 0; j < 3; j++)
        q += (long double)e[j] * e[j] * n[j] * n[j];
    return hp - (n[0] * c[0] + n[1] * c[1] + n[2] * c[2]) + sqrtl(q);
}

static void pho_unit(long double n[3])
{
    long double l = sqrtl(n[0] * n[0] + n[1] * n[1] + n[2] * n[2]);
    for (int j = 0; j < 3; j++)
        n[j] /= l;
}

/* two unit tangents of the unit vector n */
static void pho_frame(const long double n[3], long double t1[3], long double t2[3])
{
    long double a[3] = {0, 0, 0};
    a[fabsl(n[0]) < 0.6L ? 0 : fabsl(n[1]) < 0.6L ? 1 : 2] = 1;
    t1[0] = n[1] * a[2] - n[2] * a[1], t1[1] = n[2] * a[0] - n[0] * a[2], t1[2] = n[0] * a[1] - n[1] * a[0];
    pho_unit(t1);
    t2[0] = n[1] * t1[2] - n[2] * t1[1], t2[1] = n[2] * t1[0] - n[0] * t1[2], t2[2] = n[0] * t1[1] - n[1] * t1[0];
}

static long double pho_refine(const double *v, size_t nv, const double c[3], const double e[3], long double n[3])
{
    /* the pattern turns by the golden angle after every failure, and the
     * step halves after 6 failures in a row: a ridge of h (where the
     * polyhedron's support changes vertex) cannot stall it */
    long double best = pho_h(v, nv, c, e, n), step = 0.05L, off = 0;
    int fails = 0;
    for (int it = 0; it < 20000 && step > 1e-15L; it++) {
        long double t1[3], t2[3];
        pho_frame(n, t1, t2);
        int moved = 0;
        for (int k = 0; k < 8 && !moved; k++) {
            long double a = off + k * 0.785398163397448309616L, m[3];
            for (int j = 0; j < 3; j++)
                m[j] = n[j] + step * (cosl(a) * t1[j] + sinl(a) * t2[j]);
            pho_unit(m);
            long double h = pho_h(v, nv, c, e, m);
            if (h < best) {
                best = h;
                for (int j = 0; j < 3; j++)
                    n[j] = m[j];
                moved = 1;
            }
        }
        if (moved) {
            fails = 0;
            step *= 1.5L; /* a ridge is followed faster */
        } else {
            off += 2.39996322972865332223L;
            if (++fails >= 6)
                step /= 4, fails = 0;
        }
    }
    return best;
}

/* min over unit n of h; its direction in nbest */
static long double pho_min(const double *v, size_t nv, const double c[3], const double e[3], long double nbest[3])
{
    enum { NDIR = 4000, NSTART = 8 };
    long double top[NSTART], topn[NSTART][3];
    for (int s = 0; s < NSTART; s++)
        top[s] = INFINITY;
    const long double ga = 3.14159265358979323846L * (3 - sqrtl(5));
    for (int i = 0; i < NDIR; i++) {
        long double z = 1 - (2 * i + 1) / (long double)NDIR, r = sqrtl(1 - z * z);
        long double n[3] = {r * cosl(ga * i), r * sinl(ga * i), z};
        long double h = pho_h(v, nv, c, e, n);
        int w = 0;
        for (int s = 1; s < NSTART; s++)
            if (top[s] > top[w])
                w = s;
        if (h < top[w]) {
            top[w] = h;
            for (int j = 0; j < 3; j++)
                topn[w][j] = n[j];
        }
    }
    long double best = INFINITY;
    for (int s = 0; s < NSTART; s++) {
        long double h = pho_refine(v, nv, c, e, topn[s]);
        if (h < best) {
            best = h;
            for (int j = 0; j < 3; j++)
                nbest[j] = topn[s][j];
        }
    }
    return best;
}

#endif
