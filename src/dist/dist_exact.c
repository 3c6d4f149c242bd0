/* Exact signs of the few polynomials Signed Volumes decides on, by floating-
 * point expansions (Shewchuk 1997, "Adaptive precision floating-point
 * arithmetic and fast robust geometric predicates"): a double computation
 * with a certified error bound first, the exact expansion only when the
 * bound cannot decide the sign.
 *
 * Error bounds: an expression of sums, differences and products evaluated in
 * binary64 (round to nearest, no contraction: the build uses -std=c11, which
 * turns fp-contract off) differs from its exact value by at most
 * gamma_k * P, where k is the depth of the expression tree, gamma_k =
 * k u / (1 - k u), u = 2^-53, and P is the same expression evaluated on
 * absolute values (Higham, Accuracy and Stability, 2nd ed., section 3.1).
 * Below, k <= 6, and P itself is computed in floating point (relative error
 * below 7u), so (k + 2) u P, i.e. 4 (k + 2) / 8 DBL_EPSILON P, is safe; we
 * use (k + 2) DBL_EPSILON P (a factor 2 to spare).  Products underflow:
 * when P is below 2^-900 the bound is not trusted and the exact path runs.
 * The exact path is exact unless an intermediate product overflows or
 * underflows, which the callers avoid by scaling the pair to unit extent. */
#include "config.h"
#include "dist/dist_internal.h"
#include <float.h>
#include <math.h>

/* ---------------------------------------------------------- expansions */
/* An expansion is a sum of non-overlapping doubles in increasing magnitude
 * (zero components removed); its sign is that of its last component. */

static inline void two_sum(double a, double b, double *x, double *y)
{
    double s = a + b, bv = s - a, av = s - bv;
    *x = s;
    *y = (a - av) + (b - bv);
}

/* Dekker's split: no fma (x86-64 baseline has no fused multiply-add in
 * hardware, and the libm fallback is slow). */
static inline void split(double a, double *hi, double *lo)
{
    double c = 134217729.0 * a; /* 2^27 + 1 */
    double ab = c - a;
    *hi = c - ab;
    *lo = a - *hi;
}

static inline void two_prod(double a, double b, double *x, double *y)
{
    double p = a * b, ah, al, bh, bl;
    split(a, &ah, &al);
    split(b, &bh, &bl);
    double e1 = p - ah * bh, e2 = e1 - al * bh, e3 = e2 - ah * bl;
    *x = p;
    *y = al * bl - e3;
}

/* h = e + f (Shewchuk's linear-time fast_expansion_sum_zeroelim would do;
 * grow-expansion per component is simpler and the lengths here are small).
 * h may not alias e or f.  Returns the length of h. */
static int exp_sum(int ne, const double *e, int nf, const double *f, double *h)
{
    int nh = 0;
    for (int i = 0; i < ne; i++)
        h[nh++] = e[i];
    for (int j = 0; j < nf; j++) {
        double q = f[j];
        int m = 0;
        for (int i = 0; i < nh; i++) {
            double x, y;
            two_sum(q, h[i], &x, &y);
            if (y != 0)
                h[m++] = y;
            q = x;
        }
        if (q != 0)
            h[m++] = q;
        nh = m;
    }
    return nh;
}

/* h = b * e (scale_expansion_zeroelim). */
static int exp_scale(int ne, const double *e, double b, double *h)
{
    int nh = 0;
    double q, hh;
    if (ne == 0 || b == 0)
        return 0;
    two_prod(e[0], b, &q, &hh);
    if (hh != 0)
        h[nh++] = hh;
    for (int i = 1; i < ne; i++) {
        double p1, p0, s, t;
        two_prod(e[i], b, &p1, &p0);
        two_sum(q, p0, &s, &t);
        if (t != 0)
            h[nh++] = t;
        two_sum(p1, s, &q, &t);
        if (t != 0)
            h[nh++] = t;
    }
    if (q != 0)
        h[nh++] = q;
    return nh;
}

/* h = e * f: the sum of e scaled by each component of f.  tmp holds 2 ne
 * doubles, acc 2 ne nf; h the same. */
static int exp_mul(int ne, const double *e, int nf, const double *f, double *h)
{
    double tmp[2 * 16 * 2 + 2], acc[EXACT_MAXLEN];
    int nh = 0;
    for (int j = 0; j < nf; j++) {
        int nt = exp_scale(ne, e, f[j], tmp);
        int na = exp_sum(nh, h, nt, tmp, acc);
        for (int i = 0; i < na; i++)
            h[i] = acc[i];
        nh = na;
    }
    return nh;
}

static double exp_approx(int n, const double *e);
static inline int exp_sign(int n, const double *e) { return n == 0 ? 0 : (e[n - 1] > 0 ? 1 : -1); }

/* exact a - b as an expansion of length <= 2 */
static inline int exp_diff(double a, double b, double *h)
{
    double x, y;
    two_sum(a, -b, &x, &y);
    int n = 0;
    if (y != 0)
        h[n++] = y;
    if (x != 0)
        h[n++] = x;
    return n;
}

/* exact a b - c d (expansions a, b, c, d of length <= 2): length <= 16 */
static int exp_cross1(int na, const double *a, int nb, const double *b, int nc, const double *c, int nd,
                      const double *d, double *h)
{
    double p[8], q[8];
    int np = exp_mul(na, a, nb, b, p);
    int nq = exp_mul(nc, c, nd, d, q);
    for (int i = 0; i < nq; i++)
        q[i] = -q[i];
    return exp_sum(np, p, nq, q, h);
}

/* ------------------------------------------------ the signed predicates */

/* exact sign of s . (s - t) */
int dist_exact_dot_diff(const double s[3], const double t[3])
{
    double acc[EXACT_MAXLEN], part[8], sum[EXACT_MAXLEN];
    int n = 0;
    for (int i = 0; i < 3; i++) {
        double d[2], si = s[i];
        int nd = exp_diff(s[i], t[i], d);
        int np = exp_scale(nd, d, si, part);
        int m = exp_sum(n, acc, np, part, sum);
        for (int k = 0; k < m; k++)
            acc[k] = sum[k];
        n = m;
    }
    return exp_sign(n, acc);
}

/* exact sign of a . (b x c) */
int dist_exact_det3(const double a[3], const double b[3], const double c[3])
{
    return dist_exact_det3_value(a, b, c, NULL);
}

/* the same, and (approx != NULL) the value rounded from its expansion
 * (the components summed from the smallest: relative error a few eps) */
int dist_exact_det3_value(const double a[3], const double b[3], const double c[3], double *approx)
{
    double acc[EXACT_MAXLEN], sum[EXACT_MAXLEN], x[4], part[8];
    int n = 0;
    for (int i = 0; i < 3; i++) {
        int j = (i + 1) % 3, k = (i + 2) % 3;
        double p1[2], p2[2];
        two_prod(b[j], c[k], &p1[1], &p1[0]);
        two_prod(-b[k], c[j], &p2[1], &p2[0]);
        int nx = exp_sum(2, p1, 2, p2, x);
        int np = exp_scale(nx, x, a[i], part);
        int m = exp_sum(n, acc, np, part, sum);
        for (int q = 0; q < m; q++)
            acc[q] = sum[q];
        n = m;
    }
    if (approx)
        *approx = exp_approx(n, acc);
    return exp_sign(n, acc);
}

/* exact sign of (b - a) . ((c - a) x (d - a)) */
int dist_exact_orient3(const double a[3], const double b[3], const double c[3], const double d[3])
{
    double E1[3][2], E2[3][2], E3[3][2];
    int n1[3], n2[3], n3[3];
    for (int i = 0; i < 3; i++) {
        n1[i] = exp_diff(b[i], a[i], E1[i]);
        n2[i] = exp_diff(c[i], a[i], E2[i]);
        n3[i] = exp_diff(d[i], a[i], E3[i]);
    }
    double acc[EXACT_MAXLEN], sum[EXACT_MAXLEN], x[16], part[EXACT_MAXLEN];
    int n = 0;
    for (int i = 0; i < 3; i++) {
        int j = (i + 1) % 3, k = (i + 2) % 3;
        int nx = exp_cross1(n2[j], E2[j], n3[k], E3[k], n2[k], E2[k], n3[j], E3[j], x);
        int np = exp_mul(nx, x, n1[i], E1[i], part);
        int m = exp_sum(n, acc, np, part, sum);
        for (int q = 0; q < m; q++)
            acc[q] = sum[q];
        n = m;
    }
    return exp_sign(n, acc);
}

/* exact sign of ((s2 - s1) x (s3 - s1)) . (sj x sk) */
int dist_exact_tri(const double s1[3], const double s2[3], const double s3[3], const double sj[3],
                   const double sk[3])
{
    return dist_exact_tri_value(s1, s2, s3, sj, sk, NULL);
}

/* the same, and (approx != NULL) the value rounded from its expansion
 * (the components summed from the smallest: relative error a few eps) */
int dist_exact_tri_value(const double s1[3], const double s2[3], const double s3[3], const double sj[3],
                         const double sk[3], double *approx)
{
    double E1[3][2], E2[3][2];
    int n1[3], n2[3];
    for (int i = 0; i < 3; i++) {
        n1[i] = exp_diff(s2[i], s1[i], E1[i]);
        n2[i] = exp_diff(s3[i], s1[i], E2[i]);
    }
    double acc[EXACT_MAXLEN], sum[EXACT_MAXLEN], x[16], part[EXACT_MAXLEN];
    int n = 0;
    for (int i = 0; i < 3; i++) {
        int j = (i + 1) % 3, k = (i + 2) % 3;
        int nx = exp_cross1(n1[j], E1[j], n2[k], E2[k], n1[k], E1[k], n2[j], E2[j], x);
        double p1[2], p2[2], cc[4];
        two_prod(sj[j], sk[k], &p1[1], &p1[0]);
        two_prod(-sj[k], sk[j], &p2[1], &p2[0]);
        int nc = exp_sum(2, p1, 2, p2, cc);
        int np = exp_mul(nx, x, nc, cc, part);
        int m = exp_sum(n, acc, np, part, sum);
        for (int q = 0; q < m; q++)
            acc[q] = sum[q];
        n = m;
    }
    if (approx) {
        double t = 0;
        for (int q = 0; q < n; q++)
            t += acc[q];
        *approx = t;
    }
    return exp_sign(n, acc);
}

/* n = (s2 - s1) x (s3 - s1), each component the exact value rounded (its
 * expansion summed from the smallest component: a few eps relative).  For
 * a sliver (nearly parallel edges) the double cross product loses
 * eps / sin(angle) relative and tilts the face normal. */
void dist_exact_normal(const double s1[3], const double s2[3], const double s3[3], double n[3])
{
    double E1[3][2], E2[3][2], x[16];
    int n1[3], n2[3];
    for (int i = 0; i < 3; i++) {
        n1[i] = exp_diff(s2[i], s1[i], E1[i]);
        n2[i] = exp_diff(s3[i], s1[i], E2[i]);
    }
    for (int i = 0; i < 3; i++) {
        int j = (i + 1) % 3, k = (i + 2) % 3;
        int nx = exp_cross1(n1[j], E1[j], n2[k], E2[k], n1[k], E1[k], n2[j], E2[j], x);
        double t = 0;
        for (int q = 0; q < nx; q++)
            t += x[q];
        n[i] = t;
    }
}

/* The same normal from the bodies' points, y_i = a_i - b_i (b may be NULL:
 * y = a): the edges (a_j - a_i) - (b_j - b_i) are exact expansions of up to
 * four components, so the rounding of y itself (eps |y| per point, which a
 * sliver's normal amplifies by its aspect ratio) does not enter. */
static int exp_edge(const double *a1, const double *a2, const double *b1, const double *b2, int i, double *h)
{
    double da[2], db[2];
    int na = exp_diff(a2[i], a1[i], da);
    if (!b1)
        return exp_sum(na, da, 0, da, h);
    int nb = exp_diff(b1[i], b2[i], db);
    return exp_sum(na, da, nb, db, h);
}

void dist_exact_normal_ab(const double *const a[3], const double *const b[3], double n[3])
{
    double E1[3][4], E2[3][4], p[32], q[32], x[64];
    int n1[3], n2[3];
    for (int i = 0; i < 3; i++) {
        n1[i] = exp_edge(a[0], a[1], b ? b[0] : NULL, b ? b[1] : NULL, i, E1[i]);
        n2[i] = exp_edge(a[0], a[2], b ? b[0] : NULL, b ? b[2] : NULL, i, E2[i]);
    }
    for (int i = 0; i < 3; i++) {
        int j = (i + 1) % 3, k = (i + 2) % 3;
        int np = exp_mul(n1[j], E1[j], n2[k], E2[k], p);
        int nq = exp_mul(n1[k], E1[k], n2[j], E2[j], q);
        for (int t = 0; t < nq; t++)
            q[t] = -q[t];
        int nx = exp_sum(np, p, nq, q, x);
        double t = 0;
        for (int r = 0; r < nx; r++)
            t += x[r];
        n[i] = t;
    }
}

/* The expansion routines themselves, for the tests (exact sum of products
 * sum_i a_i b_i; returns the sign and the rounded-to-nearest-ish estimate). */
int dist_exact_dot_sign(int n, const double *a, const double *b, double *approx)
{
    double acc[EXACT_MAXLEN], sum[EXACT_MAXLEN];
    int m = 0;
    for (int i = 0; i < n && i < EXACT_MAXLEN / 4; i++) {
        double p[2];
        two_prod(a[i], b[i], &p[1], &p[0]);
        int np = p[0] != 0 ? 2 : 1;
        int k = exp_sum(m, acc, np, p[0] != 0 ? p : p + 1, sum);
        for (int q = 0; q < k; q++)
            acc[q] = sum[q];
        m = k;
    }
    double s = 0;
    for (int i = 0; i < m; i++)
        s += acc[i];
    if (approx)
        *approx = s;
    return exp_sign(m, acc);
}

/* x = y (copied), returns n */
static int exp_copy(int n, const double *y, double *x)
{
    for (int i = 0; i < n; i++)
        x[i] = y[i];
    return n;
}

static double exp_approx(int n, const double *e)
{
    double s = 0;
    for (int i = 0; i < n; i++)
        s += e[i];
    return s;
}

/* The closest point to the origin of the line through y1 and y2: the exact
 * numerator y1 (e.e) - e (y1.e) (e = y2 - y1), each component rounded, over
 * the rounded e.e.  Within a few eps of |v| even where |v| is far below |y|
 * (the rounded projection of S1D is only within about eps |y|, which turns a
 * small v's direction).  For GJK's repeated-vertex stop (gjk.c). */
void dist_exact_seg_closest(const double y1[3], const double y2[3], double v[3])
{
    double E[3][2], ee[64], ye[64], t1[128], t2[128], x[256];
    int ne[3], nee = 0, nye = 0;
    for (int k = 0; k < 3; k++)
        ne[k] = exp_diff(y2[k], y1[k], E[k]);
    for (int k = 0; k < 3; k++) {
        double p[8];
        int np = exp_mul(ne[k], E[k], ne[k], E[k], p);
        nee = exp_copy(exp_sum(nee, ee, np, p, t1), t1, ee);
        np = exp_scale(ne[k], E[k], y1[k], p);
        nye = exp_copy(exp_sum(nye, ye, np, p, t1), t1, ye);
    }
    double den = exp_approx(nee, ee);
    for (int i = 0; i < 3; i++) {
        int n1 = exp_scale(nee, ee, y1[i], t1);
        int n2 = exp_mul(ne[i], E[i], nye, ye, t2);
        for (int t = 0; t < n2; t++)
            t2[t] = -t2[t];
        v[i] = exp_approx(exp_sum(n1, t1, n2, t2, x), x) / den;
    }
}

/* The same for the plane through y1, y2, y3: n = the exact normal rounded
 * (dist_exact_normal), v = n (n.y1) / (n.n) with n.y1 exact, rounded. */
void dist_exact_tri_closest(const double y1[3], const double y2[3], const double y3[3], double v[3])
{
    double n[3], h;
    dist_exact_normal(y1, y2, y3, n);
    dist_exact_dot_sign(3, n, y1, &h);
    double s = h / (n[0] * n[0] + n[1] * n[1] + n[2] * n[2]);
    for (int i = 0; i < 3; i++)
        v[i] = n[i] * s;
}
