/* pack_sq_oracle.h - an overlap oracle for packed ellipsoids and
 * superquadrics that shares no code with the library: the surface of each
 * body is sampled from its parametric form (signed powers of cosines and
 * sines, in long double), placed by its pose (rotation matrix written here
 * from the unit quaternion (w, x, y, z), body frame to world), and every
 * sample must lie outside every other body by the implicit function
 *   F = (|x/a|^n2 + |y/b|^n2)^(n1/n2) + |z/c|^n1   (F < 1 inside)
 * and inside the walls.  A penetration deeper than the sample spacing
 * (about 2 pi a / NS) cannot hide. */
#ifndef RVE_TEST_PACK_SQ_ORACLE_H
#define RVE_TEST_PACK_SQ_ORACLE_H
#include <rve/pack.h>
#include <math.h>

#define PSQ_NS 48 /* samples along each surface parameter */

static void psq_rot(const double q[4], long double R[3][3])
{
    long double w = q[0], x = q[1], y = q[2], z = q[3], n = sqrtl(w * w + x * x + y * y + z * z);
    w /= n, x /= n, y /= n, z /= n;
    R[0][0] = 1 - 2 * (y * y + z * z), R[0][1] = 2 * (x * y - w * z), R[0][2] = 2 * (x * z + w * y);
    R[1][0] = 2 * (x * y + w * z), R[1][1] = 1 - 2 * (x * x + z * z), R[1][2] = 2 * (y * z - w * x);
    R[2][0] = 2 * (x * z - w * y), R[2][1] = 2 * (y * z + w * x), R[2][2] = 1 - 2 * (x * x + y * y);
}

static long double psq_spow(long double v, long double e) { return v < 0 ? -powl(-v, e) : powl(v, e); }

static void psq_exps(const rve_pack_body *b, long double *n1, long double *n2)
{
    *n1 = b->shape == RVE_PACK_SUPERQUADRIC ? b->n1 : 2;
    *n2 = b->shape == RVE_PACK_SUPERQUADRIC ? b->n2 : 2;
}

/* world point of body b at surface parameters (eta, omega) */
static void psq_surface(const rve_pack_body *b, long double eta, long double om, long double p[3])
{
    long double n1, n2, R[3][3];
    psq_exps(b, &n1, &n2);
    long double ce = cosl(eta), se = sinl(eta), f = powl(fabsl(ce), 2 / n1);
    long double u[3] = {b->a[0] * f * psq_spow(cosl(om), 2 / n2), b->a[1] * f * psq_spow(sinl(om), 2 / n2),
                        b->a[2] * psq_spow(se, 2 / n1)};
    psq_rot(b->q, R);
    for (int i = 0; i < 3; i++)
        p[i] = b->x[i] + R[i][0] * u[0] + R[i][1] * u[1] + R[i][2] * u[2];
}

/* implicit function of body b at world point p */
static long double psq_F(const rve_pack_body *b, const long double p[3])
{
    long double n1, n2, R[3][3], u[3];
    psq_exps(b, &n1, &n2);
    psq_rot(b->q, R);
    for (int i = 0; i < 3; i++) /* body coordinates: R^T (p - x) */
        u[i] = R[0][i] * (p[0] - b->x[0]) + R[1][i] * (p[1] - b->x[1]) + R[2][i] * (p[2] - b->x[2]);
    return powl(powl(fabsl(u[0] / b->a[0]), n2) + powl(fabsl(u[1] / b->a[1]), n2), n1 / n2) +
           powl(fabsl(u[2] / b->a[2]), n1);
}

/* Samples of body i inside body j (F < 1 - 1e-9) plus, when walls, samples
 * of body i outside [0, L] by more than 1e-9. */
static long psq_violations(const rve_pack_set *s, size_t i)
{
    const long double pi = 3.14159265358979323846L;
    long bad = 0;
    for (int a = 1; a < PSQ_NS; a++)
        for (int c = 0; c < 2 * PSQ_NS; c++) {
            long double p[3];
            psq_surface(&s->b[i], -pi / 2 + pi * a / PSQ_NS, pi * c / PSQ_NS, p);
            for (int k = 0; k < 3 && !s->periodic; k++)
                bad += p[k] < -1e-9L || p[k] > s->L[k] + 1e-9L;
            for (size_t j = 0; j < s->n; j++) {
                /* F < 1 needs |u_k| < a_k on every body axis: a point farther
                 * from the centre than the half-diagonal of the body's box
                 * cannot be inside (an exact prefilter, not a tolerance) */
                const rve_pack_body *o = &s->b[j];
                long double d2 = 0, r2 = 0;
                for (int k = 0; k < 3; k++) {
                    d2 += (p[k] - o->x[k]) * (p[k] - o->x[k]);
                    r2 += (long double)o->a[k] * o->a[k];
                }
                if (j != i && d2 < r2 && psq_F(o, p) < 1 - 1e-9L)
                    bad++;
            }
        }
    return bad;
}
#endif
