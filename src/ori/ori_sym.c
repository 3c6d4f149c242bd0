/* ori_sym.c - Laue groups as proper-rotation quaternions, fundamental zone,
 * disorientation, mean orientation and spread, random sampling. */
#include <rve/ori.h>

#include <ctype.h>
#include <gsl/gsl_eigen.h>
#include <gsl/gsl_matrix.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define R2 0.70710678118654752440  /* cos 45 = sin 45 */
#define C30 0.86602540378443864676 /* cos 30 = sin 60 */

/* Each table: the identity first, then the rotations about the main axis,
 * then the 2-fold axes perpendicular to it (w >= 0 for every entry). */
static const double ops_tric[] = {1, 0, 0, 0};
static const double ops_mono[] = {1, 0, 0, 0, 0, 0, 1, 0};
static const double ops_orth[] = {1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1};
static const double ops_trig[] = {
    1, 0, 0, 0,   0.5, 0, 0, C30, 0.5, 0, 0, -C30, /* 120 degrees about z */
    0, 1, 0, 0,   0, 0.5, C30, 0, 0, -0.5, C30, 0,  /* 2-fold at 0, 60, 120 degrees */
};
static const double ops_tetr[] = {
    1, 0, 0, 0,  R2, 0, 0, R2,  0, 0, 0, 1,  R2, 0, 0, -R2, /* 90 degrees about z */
    0, 1, 0, 0,  0, R2, R2, 0,  0, 0, 1, 0,  0, -R2, R2, 0, /* 2-fold every 45 degrees */
};
static const double ops_hex[] = {
    1, 0, 0, 0,    C30, 0, 0, 0.5,  0.5, 0, 0, C30, /* 60 degrees about z */
    0, 0, 0, 1,    0.5, 0, 0, -C30, C30, 0, 0, -0.5,
    0, 1, 0, 0,    0, C30, 0.5, 0,  0, 0.5, C30, 0, /* 2-fold every 30 degrees */
    0, 0, 1, 0,    0, -0.5, C30, 0, 0, -C30, 0.5, 0,
};
static const double ops_cub[] = {
    1, 0, 0, 0,                                                  /* identity */
    0, 1, 0, 0,  0, 0, 1, 0,  0, 0, 0, 1,                        /* 180 about <100> */
    R2, R2, 0, 0,  R2, -R2, 0, 0,  R2, 0, R2, 0,                 /* 90 about <100> */
    R2, 0, -R2, 0,  R2, 0, 0, R2,  R2, 0, 0, -R2,
    0, R2, R2, 0,  0, R2, -R2, 0,  0, R2, 0, R2,                 /* 180 about <110> */
    0, R2, 0, -R2,  0, 0, R2, R2,  0, 0, R2, -R2,
    0.5, 0.5, 0.5, 0.5,  0.5, -0.5, -0.5, -0.5,                  /* 120 about <111> */
    0.5, 0.5, -0.5, 0.5,  0.5, -0.5, 0.5, -0.5,
    0.5, -0.5, 0.5, 0.5,  0.5, 0.5, -0.5, -0.5,
    0.5, 0.5, 0.5, -0.5,  0.5, -0.5, -0.5, 0.5,
};

static const struct {
    const double *ops;
    int n;
    const char *name, *hm;
} laue_tab[RVE_LAUE_N] = {
    {ops_tric, 1, "triclinic", "-1"},     {ops_mono, 2, "monoclinic", "2/m"},
    {ops_orth, 4, "orthorhombic", "mmm"}, {ops_trig, 6, "trigonal", "-3m"},
    {ops_tetr, 8, "tetragonal", "4/mmm"}, {ops_hex, 12, "hexagonal", "6/mmm"},
    {ops_cub, 24, "cubic", "m-3m"},
};

static rve_laue laue_ok(rve_laue g)
{
    return (unsigned)g < RVE_LAUE_N ? g : RVE_LAUE_TRICLINIC;
}

int rve_laue_nops(rve_laue g)
{
    return laue_tab[laue_ok(g)].n;
}

const double *rve_laue_ops(rve_laue g)
{
    return laue_tab[laue_ok(g)].ops;
}

const char *rve_laue_name(rve_laue g)
{
    return laue_tab[laue_ok(g)].name;
}

static int ci_eq(const char *a, const char *b)
{
    for (; *a && *b; a++, b++)
        if (tolower((unsigned char)*a) != tolower((unsigned char)*b))
            return 0;
    return *a == *b;
}

rve_status rve_laue_parse(const char *s, rve_laue *g)
{
    for (int i = 0; i < RVE_LAUE_N; i++)
        if (ci_eq(s, laue_tab[i].name) || ci_eq(s, laue_tab[i].hm)) {
            *g = (rve_laue)i;
            return RVE_OK;
        }
    return RVE_EUSAGE;
}

/* w component of a * b: what the angle of a product needs. */
static double qmul_w(const double a[4], const double b[4])
{
    return a[0] * b[0] - a[1] * b[1] - a[2] * b[2] - a[3] * b[3];
}

static double qdot(const double a[4], const double b[4])
{
    return a[0] * b[0] + a[1] * b[1] + a[2] * b[2] + a[3] * b[3];
}

void rve_ori_fz(const double q[4], rve_laue g, double out[4])
{
    const double *s = rve_laue_ops(g);
    int n = rve_laue_nops(g), best = 0;
    double bw = -1;
    for (int k = 0; k < n; k++) {
        double w = fabs(qmul_w(q, s + 4 * k));
        if (w > bw)
            bw = w, best = k;
    }
    double t[4];
    rve_ori_qmul(q, s + 4 * best, t);
    rve_ori_qnormalize(t, out);
}

/* Index of the operator whose equivalent q * s is nearest ref, and the sign
 * that puts it on ref's side. */
static int near_op(const double q[4], const double ref[4], rve_laue g, double *sign)
{
    const double *s = rve_laue_ops(g);
    int n = rve_laue_nops(g), best = 0;
    double bd = -1, bs = 1, t[4];
    for (int k = 0; k < n; k++) {
        rve_ori_qmul(q, s + 4 * k, t);
        double d = qdot(t, ref);
        if (fabs(d) > bd)
            bd = fabs(d), best = k, bs = d < 0 ? -1 : 1;
    }
    *sign = bs;
    return best;
}

void rve_ori_near(const double q[4], const double ref[4], rve_laue g, double out[4])
{
    double sg;
    int k = near_op(q, ref, g, &sg);
    rve_ori_qmul(q, rve_laue_ops(g) + 4 * k, out);
    for (int c = 0; c < 4; c++)
        out[c] *= sg;
}

void rve_ori_misori(const double a[4], const double b[4], double out[4])
{
    double ca[4];
    rve_ori_qconj(a, ca);
    rve_ori_qmul(ca, b, out);
}

double rve_ori_disori_angle(const double a[4], const double b[4], rve_laue g)
{
    /* angle(conj(s_i) D s_j) = angle(D s_j conj(s_i)) (conjugation keeps the
     * angle) and s_j conj(s_i) runs over the group: n products, not n^2. */
    double d[4], t[4];
    rve_ori_misori(a, b, d);
    const double *s = rve_laue_ops(g);
    int n = rve_laue_nops(g), best = 0;
    double bw = -1;
    for (int k = 0; k < n; k++) {
        double w = fabs(qmul_w(d, s + 4 * k));
        if (w > bw)
            bw = w, best = k;
    }
    rve_ori_qmul(d, s + 4 * best, t);
    return rve_ori_qangle(t);
}

/* Is axis u lexicographically larger than v (beyond rounding)? */
static int axis_larger(const double u[3], const double v[3])
{
    for (int i = 0; i < 3; i++) {
        if (u[i] > v[i] + 1e-12)
            return 1;
        if (u[i] < v[i] - 1e-12)
            return 0;
    }
    return 0;
}

void rve_ori_disori(const double a[4], const double b[4], rve_laue g, double *angle, double axis[3])
{
    double d[4], l[4], t[4], cs[4];
    rve_ori_misori(a, b, d);
    const double *s = rve_laue_ops(g);
    int n = rve_laue_nops(g);
    double bw = -1, bax[3] = {0, 0, 1}, bq[4] = {1, 0, 0, 0};
    for (int i = 0; i < n; i++) {
        rve_ori_qconj(s + 4 * i, cs);
        rve_ori_qmul(cs, d, l);
        for (int j = 0; j < n; j++) {
            rve_ori_qmul(l, s + 4 * j, t);
            for (int inv = 0; inv < 2; inv++) { /* exchanging a and b inverts t */
                double p[4];
                rve_ori_qnormalize(t, p);
                if (inv)
                    p[1] = -p[1], p[2] = -p[2], p[3] = -p[3];
                double v = sqrt(p[1] * p[1] + p[2] * p[2] + p[3] * p[3]);
                double ax[3] = {0, 0, 1};
                if (v > 0)
                    ax[0] = p[1] / v, ax[1] = p[2] / v, ax[2] = p[3] / v;
                if (p[0] > bw + 1e-12 || (p[0] > bw - 1e-12 && axis_larger(ax, bax))) {
                    if (p[0] > bw)
                        bw = p[0], memcpy(bq, p, sizeof bq);
                    memcpy(bax, ax, sizeof bax);
                }
            }
        }
    }
    *angle = rve_ori_qangle(bq); /* atan2: accurate for small angles, unlike acos(w) */
    memcpy(axis, bax, sizeof bax);
}

/* Principal eigenvector of the 4x4 symmetric matrix m. */
static rve_status principal(double m[16], double out[4], rve_err *err)
{
    gsl_matrix_view mv = gsl_matrix_view_array(m, 4, 4);
    gsl_vector *ev = gsl_vector_alloc(4);
    gsl_matrix *evec = gsl_matrix_alloc(4, 4);
    gsl_eigen_symmv_workspace *ws = gsl_eigen_symmv_alloc(4);
    if (!ev || !evec || !ws) {
        gsl_vector_free(ev), gsl_matrix_free(evec), gsl_eigen_symmv_free(ws);
        return rve_err_set(err, RVE_ENOMEM, NULL, "out of memory");
    }
    gsl_eigen_symmv(&mv.matrix, ev, evec, ws);
    size_t best = gsl_vector_max_index(ev);
    for (int c = 0; c < 4; c++)
        out[c] = gsl_matrix_get(evec, c, best);
    gsl_vector_free(ev), gsl_matrix_free(evec), gsl_eigen_symmv_free(ws);
    return RVE_OK;
}

rve_status rve_ori_mean(const double *q, const double *w, size_t n, rve_laue g, double mean[4],
                        rve_err *err)
{
    if (n == 0)
        return rve_err_set(err, RVE_EDATA, NULL, "mean of no orientation");
    double wsum = 0;
    for (size_t i = 0; i < n; i++)
        wsum += w ? w[i] : 1;
    if (!(wsum > 0))
        return rve_err_set(err, RVE_EDATA, NULL, "mean orientation with a total weight of %g", wsum);
    int *choice = malloc(n * sizeof *choice);
    if (!choice)
        return rve_err_set(err, RVE_ENOMEM, NULL, "out of memory");
    for (size_t i = 0; i < n; i++)
        choice[i] = 1 << 30; /* no operator chosen yet */
    double ref[4];
    rve_ori_fz(q, g, ref);
    rve_status st = RVE_ECAP;
    for (int it = 0; it < 100; it++) {
        double m[16] = {0}, p[4], sg;
        int changed = 0;
        for (size_t i = 0; i < n; i++) {
            int k = near_op(q + 4 * i, ref, g, &sg);
            int code = sg > 0 ? k : -1 - k;
            changed |= choice[i] != code;
            choice[i] = code;
            rve_ori_qmul(q + 4 * i, rve_laue_ops(g) + 4 * k, p);
            double wi = w ? w[i] : 1;
            for (int a = 0; a < 4; a++)
                for (int b = 0; b < 4; b++)
                    m[4 * a + b] += wi * p[a] * p[b]; /* sign of p cancels in p p^T */
        }
        if (!changed) { /* same equivalents as the round that gave ref */
            st = RVE_OK;
            break;
        }
        double e[4];
        st = principal(m, e, err);
        if (st != RVE_OK)
            break;
        if (qdot(e, ref) < 0)
            for (int c = 0; c < 4; c++)
                e[c] = -e[c];
        memcpy(ref, e, sizeof ref);
        st = RVE_ECAP;
    }
    free(choice);
    if (st == RVE_ECAP)
        return rve_err_set(err, RVE_ECAP, NULL, "mean orientation: no convergence in 100 rounds");
    if (st == RVE_OK)
        rve_ori_fz(ref, g, mean);
    return st;
}

void rve_ori_spread(const double *q, size_t n, rve_laue g, const double mean[4], double *avg,
                    double *max)
{
    double s = 0, m = 0;
    for (size_t i = 0; i < n; i++) {
        double a = rve_ori_disori_angle(q + 4 * i, mean, g);
        s += a;
        m = a > m ? a : m;
    }
    *avg = n ? s / (double)n : 0;
    *max = m;
}

void rve_ori_random(rve_rng *r, double q[4])
{
    double t[4];
    rve_rng_quat(r, t);
    rve_ori_qnormalize(t, q);
}
