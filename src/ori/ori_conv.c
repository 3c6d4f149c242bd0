/* ori_conv.c - orientation descriptors and conversions (passive, P = -1,
 * Rowenhorst et al. 2015).  Every descriptor goes through the quaternion. */
#include <rve/ori.h>

#include <ctype.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "util/mathconst.h"

/* Relative tolerance on the norm of input quaternions, axes and matrices:
 * files store float32 values (7 digits), so 1e-3 accepts them and still
 * catches values that are not rotations at all. */
#define UNIT_TOL 1e-3

static double wrap2pi(double a)
{
    double r = fmod(a, 2 * M_PI);
    if (r < 0)
        r += 2 * M_PI;
    if (r >= 2 * M_PI) /* -tiny + 2 pi rounds up to 2 pi */
        r = 0;
    return r;
}

/* --------------------------------------------------------- quaternion ops */
void rve_ori_qmul(const double a[4], const double b[4], double o[4])
{
    double w = a[0] * b[0] - a[1] * b[1] - a[2] * b[2] - a[3] * b[3];
    double x = a[0] * b[1] + a[1] * b[0] + a[2] * b[3] - a[3] * b[2];
    double y = a[0] * b[2] - a[1] * b[3] + a[2] * b[0] + a[3] * b[1];
    double z = a[0] * b[3] + a[1] * b[2] - a[2] * b[1] + a[3] * b[0];
    o[0] = w, o[1] = x, o[2] = y, o[3] = z;
}

void rve_ori_qconj(const double q[4], double o[4])
{
    o[0] = q[0], o[1] = -q[1], o[2] = -q[2], o[3] = -q[3];
}

double rve_ori_qangle(const double q[4])
{
    /* atan2 keeps small angles accurate where acos(w) loses half the digits */
    double v = sqrt(q[1] * q[1] + q[2] * q[2] + q[3] * q[3]);
    return 2 * atan2(v, fabs(q[0]));
}

double rve_ori_qnormalize(const double q[4], double o[4])
{
    double n = sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]);
    if (!(n > 0) || !isfinite(n)) {
        o[0] = 1, o[1] = o[2] = o[3] = 0;
        return 0;
    }
    double s = q[0] < 0 ? -1 / n : 1 / n;
    for (int i = 0; i < 4; i++)
        o[i] = q[i] * s;
    return n;
}

/* ------------------------------------------------------------- Euler angles */
void rve_ori_eu2qu(const double eu[3], double q[4])
{
    double sig = 0.5 * (eu[0] + eu[2]), del = 0.5 * (eu[0] - eu[2]);
    double c = cos(0.5 * eu[1]), s = sin(0.5 * eu[1]);
    /* Rowenhorst eq. (A.5) with P = -1 */
    double t[4] = {c * cos(sig), s * cos(del), s * sin(del), c * sin(sig)};
    rve_ori_qnormalize(t, q);
}

void rve_ori_qu2eu(const double q[4], double eu[3])
{
    double q03 = q[0] * q[0] + q[3] * q[3], q12 = q[1] * q[1] + q[2] * q[2];
    double chi = sqrt(q03 * q12);
    if (q12 == 0) { /* Phi = 0: only phi1 + phi2 is defined, phi2 = 0 */
        eu[0] = atan2(2 * q[0] * q[3], q[0] * q[0] - q[3] * q[3]);
        eu[1] = 0;
        eu[2] = 0;
    } else if (q03 == 0) { /* Phi = pi: only phi1 - phi2 is defined */
        eu[0] = atan2(2 * q[1] * q[2], q[1] * q[1] - q[2] * q[2]);
        eu[1] = M_PI;
        eu[2] = 0;
    } else {
        /* atan2 of unnormalised pairs: no division by a small chi */
        eu[0] = atan2(q[0] * q[2] + q[1] * q[3], q[0] * q[1] - q[2] * q[3]);
        eu[1] = atan2(2 * chi, q03 - q12);
        eu[2] = atan2(q[1] * q[3] - q[0] * q[2], q[0] * q[1] + q[2] * q[3]);
    }
    eu[0] = wrap2pi(eu[0]);
    eu[2] = wrap2pi(eu[2]);
}

/* Kocks, Tome & Wenk, "Texture and Anisotropy" (1998), table 2.2. */
void rve_ori_kocks2bunge(const double k[3], double eu[3])
{
    eu[0] = k[0] + M_PI / 2, eu[1] = k[1], eu[2] = M_PI / 2 - k[2];
}

void rve_ori_bunge2kocks(const double eu[3], double k[3])
{
    k[0] = eu[0] - M_PI / 2, k[1] = eu[1], k[2] = M_PI / 2 - eu[2];
}

void rve_ori_roe2bunge(const double r[3], double eu[3])
{
    eu[0] = r[0] + M_PI / 2, eu[1] = r[1], eu[2] = r[2] - M_PI / 2;
}

void rve_ori_bunge2roe(const double eu[3], double r[3])
{
    r[0] = eu[0] - M_PI / 2, r[1] = eu[1], r[2] = eu[2] + M_PI / 2;
}

/* ------------------------------------------------------------------ matrix */
void rve_ori_qu2om(const double q[4], double om[9])
{
    double w = q[0], x = q[1], y = q[2], z = q[3];
    double qb = w * w - (x * x + y * y + z * z);
    /* Rowenhorst eq. (A.10), P = -1: the transpose of the active matrix */
    om[0] = qb + 2 * x * x, om[1] = 2 * (x * y + w * z), om[2] = 2 * (x * z - w * y);
    om[3] = 2 * (x * y - w * z), om[4] = qb + 2 * y * y, om[5] = 2 * (y * z + w * x);
    om[6] = 2 * (x * z + w * y), om[7] = 2 * (y * z - w * x), om[8] = qb + 2 * z * z;
}

void rve_ori_om2qu(const double om[9], double q[4])
{
    /* Shepperd's method on the active matrix R = om^T: divide by the largest
     * of the four candidate components, never by a small one. */
#define R(i, j) om[3 * (j) + (i)]
    double t = R(0, 0) + R(1, 1) + R(2, 2), s, o[4];
    if (t > 0) {
        s = 2 * sqrt(1 + t);
        o[0] = s / 4, o[1] = (R(2, 1) - R(1, 2)) / s, o[2] = (R(0, 2) - R(2, 0)) / s,
        o[3] = (R(1, 0) - R(0, 1)) / s;
    } else if (R(0, 0) >= R(1, 1) && R(0, 0) >= R(2, 2)) {
        s = 2 * sqrt(1 + R(0, 0) - R(1, 1) - R(2, 2));
        o[0] = (R(2, 1) - R(1, 2)) / s, o[1] = s / 4, o[2] = (R(0, 1) + R(1, 0)) / s,
        o[3] = (R(0, 2) + R(2, 0)) / s;
    } else if (R(1, 1) >= R(2, 2)) {
        s = 2 * sqrt(1 + R(1, 1) - R(0, 0) - R(2, 2));
        o[0] = (R(0, 2) - R(2, 0)) / s, o[1] = (R(0, 1) + R(1, 0)) / s, o[2] = s / 4,
        o[3] = (R(1, 2) + R(2, 1)) / s;
    } else {
        s = 2 * sqrt(1 + R(2, 2) - R(0, 0) - R(1, 1));
        o[0] = (R(1, 0) - R(0, 1)) / s, o[1] = (R(0, 2) + R(2, 0)) / s,
        o[2] = (R(1, 2) + R(2, 1)) / s, o[3] = s / 4;
    }
#undef R
    rve_ori_qnormalize(o, q);
}

/* -------------------------------------------------------------- axis-angle */
void rve_ori_ax2qu(const double ax[4], double q[4])
{
    double n = sqrt(ax[0] * ax[0] + ax[1] * ax[1] + ax[2] * ax[2]);
    double s = n > 0 ? sin(0.5 * ax[3]) / n : 0;
    double t[4] = {cos(0.5 * ax[3]), ax[0] * s, ax[1] * s, ax[2] * s};
    rve_ori_qnormalize(t, q);
}

void rve_ori_qu2ax(const double q[4], double ax[4])
{
    double p[4];
    rve_ori_qnormalize(q, p);
    double v = sqrt(p[1] * p[1] + p[2] * p[2] + p[3] * p[3]);
    if (v == 0) { /* identity: any axis, z by convention (as Rowenhorst) */
        ax[0] = ax[1] = 0, ax[2] = 1, ax[3] = 0;
        return;
    }
    ax[0] = p[1] / v, ax[1] = p[2] / v, ax[2] = p[3] / v;
    ax[3] = 2 * atan2(v, p[0]);
}

/* --------------------------------------------------------------- Rodrigues */
void rve_ori_ro2qu(const double ro[3], double q[4])
{
    int inf = isinf(ro[0]) || isinf(ro[1]) || isinf(ro[2]);
    if (inf) { /* rotation by pi about the infinite components' direction */
        double t[3], n = 0;
        for (int i = 0; i < 3; i++) {
            t[i] = isinf(ro[i]) ? (ro[i] > 0 ? 1 : -1) : 0;
            n += t[i] * t[i];
        }
        n = sqrt(n);
        q[0] = 0, q[1] = t[0] / n, q[2] = t[1] / n, q[3] = t[2] / n;
        return;
    }
    double t[4] = {1, ro[0], ro[1], ro[2]};
    rve_ori_qnormalize(t, q);
}

void rve_ori_qu2ro(const double q[4], double ro[3])
{
    double p[4];
    rve_ori_qnormalize(q, p);
    if (p[0] == 0) {
        for (int i = 0; i < 3; i++)
            ro[i] = p[i + 1] == 0 ? 0 : copysign(INFINITY, p[i + 1]);
        return;
    }
    for (int i = 0; i < 3; i++)
        ro[i] = p[i + 1] / p[0];
}

/* ---------------------------------------------------------------- generic */
int rve_ori_des_size(rve_ori_des d)
{
    static const int n[RVE_ORI_NDES] = {4, 3, 3, 3, 3, 9, 4};
    return (unsigned)d < RVE_ORI_NDES ? n[d] : 0;
}

/* Case-insensitive equality (strcasecmp is POSIX, not C11). */
static int ci_eq(const char *a, const char *b)
{
    for (; *a && *b; a++, b++)
        if (tolower((unsigned char)*a) != tolower((unsigned char)*b))
            return 0;
    return *a == *b;
}

static const char *des_names[RVE_ORI_NDES] = {"quaternion",  "rodrigues", "euler-bunge", "euler-kocks",
                                              "euler-roe",   "rotmat",    "axis-angle"};

const char *rve_ori_des_name(rve_ori_des d)
{
    return (unsigned)d < RVE_ORI_NDES ? des_names[d] : "?";
}

rve_status rve_ori_parse_descriptor(const char *s, double format_version, rve_ori_spec *out,
                                    rve_err *err)
{
    char name[64];
    size_t len = strcspn(s, ":");
    if (len >= sizeof name)
        return rve_err_set(err, RVE_EUSAGE, NULL, "unknown orientation descriptor '%.60s'", s);
    for (size_t i = 0; i < len; i++)
        name[i] = (char)tolower((unsigned char)s[i]);
    name[len] = 0;
    const char *label = s[len] == ':' ? s + len + 1 : NULL;
    int d = -1;
    for (int i = 0; i < RVE_ORI_NDES; i++)
        if (!strcmp(name, des_names[i]))
            d = i;
    /* Neper also accepts these spellings */
    if (!strcmp(name, "euler") || !strcmp(name, "e"))
        d = RVE_ORI_EULER_BUNGE;
    if (!strcmp(name, "r") || !strcmp(name, "rodrigues-frank"))
        d = RVE_ORI_RODRIGUES;
    if (!strcmp(name, "q"))
        d = RVE_ORI_QUATERNION;
    if (!strcmp(name, "g") || !strcmp(name, "rotation-matrix"))
        d = RVE_ORI_MATRIX;
    if (d < 0)
        return rve_err_set(err, RVE_EUSAGE, NULL, "unknown orientation descriptor '%.60s'", s);
    /* The label as written: Neper's default when absent is "active". */
    int active;
    if (!label || ci_eq(label, "active"))
        active = 1;
    else if (ci_eq(label, "passive"))
        active = 0;
    else
        return rve_err_set(err, RVE_EUSAGE, NULL, "unknown orientation convention '%.60s' in '%.60s'",
                           label, s);
    /* Before format 3.5 (Neper < 4.10) Neper's "active" was the sample-to-
     * crystal (Rowenhorst passive) rotation; 4.10 swapped the labels to the
     * usual meaning. */
    int ours_active = format_version < 3.5 - 1e-9 ? !active : active;
    out->des = (rve_ori_des)d;
    out->conv = ours_active ? RVE_ORI_ACTIVE : RVE_ORI_PASSIVE;
    out->degrees = d == RVE_ORI_EULER_BUNGE || d == RVE_ORI_EULER_KOCKS || d == RVE_ORI_EULER_ROE ||
                   d == RVE_ORI_AXISANGLE;
    return RVE_OK;
}

static int all_finite(const double *v, int n)
{
    for (int i = 0; i < n; i++)
        if (!isfinite(v[i]))
            return 0;
    return 1;
}

/* The matrix must be a rotation: rows orthonormal, determinant +1. */
static int is_rotation(const double m[9])
{
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++) {
            double d = m[3 * i] * m[3 * j] + m[3 * i + 1] * m[3 * j + 1] + m[3 * i + 2] * m[3 * j + 2];
            if (fabs(d - (i == j)) > UNIT_TOL)
                return 0;
        }
    double det = m[0] * (m[4] * m[8] - m[5] * m[7]) - m[1] * (m[3] * m[8] - m[5] * m[6]) +
                 m[2] * (m[3] * m[7] - m[4] * m[6]);
    return det > 0;
}

rve_status rve_ori_to_quat(const rve_ori_spec *sp, const double *v, double q[4], rve_err *err)
{
    int n = rve_ori_des_size(sp->des);
    double a = sp->degrees ? M_PI / 180 : 1, t[4], e[3];
    if (n == 0)
        return rve_err_set(err, RVE_EUSAGE, NULL, "unknown orientation descriptor %d", (int)sp->des);
    if (!all_finite(v, n) && !(sp->des == RVE_ORI_RODRIGUES && !isnan(v[0]) && !isnan(v[1]) && !isnan(v[2])))
        return rve_err_set(err, RVE_EDATA, NULL, "%s orientation with a NaN or infinite value",
                           des_names[sp->des]);
    switch (sp->des) {
    case RVE_ORI_QUATERNION: {
        double nq = sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2] + v[3] * v[3]);
        if (fabs(nq - 1) > UNIT_TOL)
            return rve_err_set(err, RVE_EDATA, NULL,
                               "quaternion (%g, %g, %g, %g) is not unit (norm %g)", v[0], v[1], v[2],
                               v[3], nq);
        rve_ori_qnormalize(v, q);
        break;
    }
    case RVE_ORI_RODRIGUES:
        rve_ori_ro2qu(v, q);
        break;
    case RVE_ORI_EULER_BUNGE:
        e[0] = v[0] * a, e[1] = v[1] * a, e[2] = v[2] * a;
        rve_ori_eu2qu(e, q);
        break;
    case RVE_ORI_EULER_KOCKS:
        t[0] = v[0] * a, t[1] = v[1] * a, t[2] = v[2] * a;
        rve_ori_kocks2bunge(t, e);
        rve_ori_eu2qu(e, q);
        break;
    case RVE_ORI_EULER_ROE:
        t[0] = v[0] * a, t[1] = v[1] * a, t[2] = v[2] * a;
        rve_ori_roe2bunge(t, e);
        rve_ori_eu2qu(e, q);
        break;
    case RVE_ORI_MATRIX:
        if (!is_rotation(v))
            return rve_err_set(err, RVE_EDATA, NULL, "matrix is not a rotation (orthonormal, det +1)");
        rve_ori_om2qu(v, q);
        break;
    case RVE_ORI_AXISANGLE: {
        double nn = sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]);
        if (fabs(nn - 1) > UNIT_TOL)
            return rve_err_set(err, RVE_EDATA, NULL, "axis (%g, %g, %g) is not unit (norm %g)", v[0],
                               v[1], v[2], nn);
        t[0] = v[0], t[1] = v[1], t[2] = v[2], t[3] = v[3] * a;
        rve_ori_ax2qu(t, q);
        break;
    }
    }
    if (sp->conv == RVE_ORI_ACTIVE) { /* the inverse rotation */
        q[1] = -q[1], q[2] = -q[2], q[3] = -q[3];
    }
    return RVE_OK;
}

void rve_ori_from_quat(const double q[4], const rve_ori_spec *sp, double *v)
{
    double p[4], e[3];
    rve_ori_qnormalize(q, p);
    if (sp->conv == RVE_ORI_ACTIVE)
        p[1] = -p[1], p[2] = -p[2], p[3] = -p[3];
    double a = sp->degrees ? 180 / M_PI : 1;
    switch (sp->des) {
    case RVE_ORI_QUATERNION:
        memcpy(v, p, 4 * sizeof *v);
        break;
    case RVE_ORI_RODRIGUES:
        rve_ori_qu2ro(p, v);
        break;
    case RVE_ORI_EULER_BUNGE:
        rve_ori_qu2eu(p, v);
        v[0] *= a, v[1] *= a, v[2] *= a;
        break;
    case RVE_ORI_EULER_KOCKS:
        rve_ori_qu2eu(p, e);
        rve_ori_bunge2kocks(e, v);
        v[0] *= a, v[1] *= a, v[2] *= a;
        break;
    case RVE_ORI_EULER_ROE:
        rve_ori_qu2eu(p, e);
        rve_ori_bunge2roe(e, v);
        v[0] *= a, v[1] *= a, v[2] *= a;
        break;
    case RVE_ORI_MATRIX:
        rve_ori_qu2om(p, v);
        break;
    case RVE_ORI_AXISANGLE:
        rve_ori_qu2ax(p, v);
        v[3] *= a;
        break;
    }
}
