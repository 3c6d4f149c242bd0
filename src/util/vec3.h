/* vec3.h - inline 3-vector helpers shared by the modules (internal). */
#ifndef RVE_VEC3_H
#define RVE_VEC3_H

#include <math.h>

static inline void v3_set(double r[3], double x, double y, double z) { r[0] = x; r[1] = y; r[2] = z; }
static inline void v3_copy(double r[3], const double a[3]) { r[0] = a[0]; r[1] = a[1]; r[2] = a[2]; }
static inline void v3_add(double r[3], const double a[3], const double b[3]) { r[0] = a[0] + b[0]; r[1] = a[1] + b[1]; r[2] = a[2] + b[2]; }
static inline void v3_sub(double r[3], const double a[3], const double b[3]) { r[0] = a[0] - b[0]; r[1] = a[1] - b[1]; r[2] = a[2] - b[2]; }
static inline void v3_scale(double r[3], const double a[3], double s) { r[0] = a[0] * s; r[1] = a[1] * s; r[2] = a[2] * s; }
/* r = a + s b */
static inline void v3_axpy(double r[3], const double a[3], double s, const double b[3]) { r[0] = a[0] + s * b[0]; r[1] = a[1] + s * b[1]; r[2] = a[2] + s * b[2]; }
static inline double v3_dot(const double a[3], const double b[3]) { return a[0] * b[0] + a[1] * b[1] + a[2] * b[2]; }
static inline void v3_cross(double r[3], const double a[3], const double b[3])
{
    double x = a[1] * b[2] - a[2] * b[1], y = a[2] * b[0] - a[0] * b[2], z = a[0] * b[1] - a[1] * b[0];
    r[0] = x; r[1] = y; r[2] = z;
}
static inline double v3_norm2(const double a[3]) { return v3_dot(a, a); }
static inline double v3_norm(const double a[3]) { return sqrt(v3_dot(a, a)); }
static inline double v3_dist2(const double a[3], const double b[3])
{
    double d[3];
    v3_sub(d, a, b);
    return v3_dot(d, d);
}
static inline double v3_dist(const double a[3], const double b[3]) { return sqrt(v3_dist2(a, b)); }
static inline double v3_maxabs(const double a[3])
{
    double m = fabs(a[0]);
    if (fabs(a[1]) > m) m = fabs(a[1]);
    if (fabs(a[2]) > m) m = fabs(a[2]);
    return m;
}
/* Normalise in place; returns the former length (0 leaves a unchanged). */
static inline double v3_normalize(double a[3])
{
    double n = v3_norm(a);
    if (n > 0) { a[0] /= n; a[1] /= n; a[2] /= n; }
    return n;
}
/* Rotate v by the unit quaternion q = (w, x, y, z). */
static inline void v3_qrot(double r[3], const double q[4], const double v[3])
{
    double u[3] = {q[1], q[2], q[3]}, t[3], c[3];
    v3_cross(t, u, v);
    v3_scale(t, t, 2.0);
    v3_cross(c, u, t);
    r[0] = v[0] + q[0] * t[0] + c[0];
    r[1] = v[1] + q[0] * t[1] + c[1];
    r[2] = v[2] + q[0] * t[2] + c[2];
}
/* Rotate v by the inverse (conjugate) of the unit quaternion q. */
static inline void v3_qrot_inv(double r[3], const double q[4], const double v[3])
{
    double qc[4] = {q[0], -q[1], -q[2], -q[3]};
    v3_qrot(r, qc, v);
}

/* Solid angle of triangle (a, b, c) seen from the origin (Van Oosterom and
 * Strackee 1983); signed by the orientation. */
static inline double v3_solid_angle(const double a[3], const double b[3], const double c[3])
{
    double la = v3_norm(a), lb = v3_norm(b), lc = v3_norm(c), bc[3];
    v3_cross(bc, b, c);
    double num = v3_dot(a, bc);
    double den = la * lb * lc + v3_dot(a, b) * lc + v3_dot(a, c) * lb + v3_dot(b, c) * la;
    return 2 * atan2(num, den);
}

#endif
