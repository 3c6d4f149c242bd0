/* Convex shapes given by support functions: constructors, poses, support
 * points, validation and the shared shape-text parser. */
#include "config.h"
#include <rve/dist.h>
#include "dist/dist_internal.h"
#include <ctype.h>
#include <errno.h>
#include <float.h>
#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

/* A polytope query reads kind .. R (the header's order): in an array of
 * shapes, bare 8-vertex pairs were 3-4 % faster with them first (two or
 * three cache lines of 64 bytes instead of five; docs/dist.md, stop 39) */
_Static_assert(offsetof(rve_shape, R) + sizeof(double[9]) <= 3 * 64, "a posed polytope's fields fit in 3 lines");
_Static_assert(offsetof(rve_shape, mid) + sizeof(double[3]) <= 2 * 64, "a bare polytope's fields fit in 2 lines");

static void shape_zero(rve_shape *s, rve_shape_kind kind)
{
    memset(s, 0, sizeof *s);
    s->kind = kind;
    s->quat[0] = 1.0;
}

void rve_shape_point(rve_shape *s, const double p[3])
{
    shape_zero(s, RVE_SHAPE_POINT);
    v3_copy(s->v[0], p);
}

void rve_shape_segment(rve_shape *s, const double a[3], const double b[3])
{
    shape_zero(s, RVE_SHAPE_SEGMENT);
    v3_copy(s->v[0], a);
    v3_copy(s->v[1], b);
}

void rve_shape_triangle(rve_shape *s, const double a[3], const double b[3], const double c[3])
{
    shape_zero(s, RVE_SHAPE_TRIANGLE);
    v3_copy(s->v[0], a);
    v3_copy(s->v[1], b);
    v3_copy(s->v[2], c);
}

void rve_shape_tetra(rve_shape *s, const double a[3], const double b[3], const double c[3],
                     const double d[3])
{
    shape_zero(s, RVE_SHAPE_TETRA);
    v3_copy(s->v[0], a);
    v3_copy(s->v[1], b);
    v3_copy(s->v[2], c);
    v3_copy(s->v[3], d);
}

void rve_shape_polytope(rve_shape *s, const double *verts, int nv, const rve_poly_graph *graph)
{
    shape_zero(s, RVE_SHAPE_POLYTOPE);
    s->verts = verts;
    s->nv = nv;
    s->graph = (graph && graph->nv == nv && graph->off && graph->nbr) ? graph : NULL;
    /* GJK's first direction, once per shape rather than per query (the box
     * was 14 % of an 8-vertex query) */
    if (verts && nv > 0) {
        dist_sample_mid(verts, nv, s->mid);
        s->mid_of = verts;
    }
}

void rve_shape_sphere(rve_shape *s, const double centre[3], double r)
{
    shape_zero(s, RVE_SHAPE_SPHERE);
    v3_copy(s->v[0], centre);
    s->radius = r;
}

void rve_shape_box(rve_shape *s, double hx, double hy, double hz)
{
    shape_zero(s, RVE_SHAPE_BOX);
    v3_set(s->axes, hx, hy, hz);
}

void rve_shape_ellipsoid(rve_shape *s, double a, double b, double c)
{
    shape_zero(s, RVE_SHAPE_ELLIPSOID);
    v3_set(s->axes, a, b, c);
}

void rve_shape_superquadric(rve_shape *s, double a, double b, double c, double n1, double n2)
{
    shape_zero(s, RVE_SHAPE_SUPERQUADRIC);
    v3_set(s->axes, a, b, c);
    s->n1 = n1;
    s->n2 = n2;
}

void rve_shape_set_pose(rve_shape *s, const double pos[3], const double quat[4])
{
    if (pos)
        v3_copy(s->pos, pos);
    if (quat) {
        double n = sqrt(quat[0] * quat[0] + quat[1] * quat[1] + quat[2] * quat[2] + quat[3] * quat[3]);
        if (n > 0 && isfinite(n)) {
            for (int i = 0; i < 4; i++)
                s->quat[i] = quat[i] / n;
        } else {
            for (int i = 0; i < 4; i++)
                s->quat[i] = quat[i]; /* rejected by rve_shape_check */
        }
        s->rotated = !(s->quat[0] == 1.0 && s->quat[1] == 0.0 && s->quat[2] == 0.0 && s->quat[3] == 0.0);
        dist_quat_matrix(s->quat, s->R);
    }
}

void rve_shape_set_radius(rve_shape *s, double r) { s->radius = r; }

void rve_shape_free(rve_shape *s)
{
    if (!s)
        return;
    free(s->owned);
    s->owned = NULL;
}

static int finite3(const double v[3]) { return isfinite(v[0]) && isfinite(v[1]) && isfinite(v[2]); }

rve_status rve_shape_check(const rve_shape *s, rve_err *err)
{
    if (!finite3(s->pos))
        return rve_err_set(err, RVE_EDATA, NULL, "shape position is not finite");
    double qn = 0;
    for (int i = 0; i < 4; i++) {
        if (!isfinite(s->quat[i]))
            return rve_err_set(err, RVE_EDATA, NULL, "shape quaternion is not finite");
        qn += s->quat[i] * s->quat[i];
    }
    if (fabs(qn - 1.0) > 1e-12)
        return rve_err_set(err, RVE_EDATA, NULL, "shape quaternion is not a unit quaternion");
    if (!isfinite(s->radius) || s->radius < 0)
        return rve_err_set(err, RVE_EDATA, NULL, "radius must be finite and >= 0");
    int nvx = 0;
    switch (s->kind) {
    case RVE_SHAPE_POINT: case RVE_SHAPE_SPHERE: nvx = 1; break;
    case RVE_SHAPE_SEGMENT: nvx = 2; break;
    case RVE_SHAPE_TRIANGLE: nvx = 3; break;
    case RVE_SHAPE_TETRA: nvx = 4; break;
    case RVE_SHAPE_POLYTOPE:
        if (s->nv < 1 || !s->verts)
            return rve_err_set(err, RVE_EDATA, NULL, "polytope has no vertices");
        for (int i = 0; i < s->nv; i++)
            if (!finite3(s->verts + 3 * i))
                return rve_err_set(err, RVE_EDATA, NULL, "polytope vertex %d is not finite", i + 1);
        break;
    case RVE_SHAPE_BOX:
    case RVE_SHAPE_ELLIPSOID:
    case RVE_SHAPE_SUPERQUADRIC:
        for (int i = 0; i < 3; i++)
            if (!isfinite(s->axes[i]) || s->axes[i] < 0 ||
                (s->kind != RVE_SHAPE_BOX && s->axes[i] <= 0))
                return rve_err_set(err, RVE_EDATA, NULL, "%s size %d must be finite and %s",
                                   s->kind == RVE_SHAPE_BOX ? "box" : "semi-axis", i + 1,
                                   s->kind == RVE_SHAPE_BOX ? ">= 0" : "> 0");
        if (s->kind == RVE_SHAPE_SUPERQUADRIC &&
            (!isfinite(s->n1) || !isfinite(s->n2) || s->n1 < 2 || s->n2 < 2))
            return rve_err_set(err, RVE_EDATA, NULL, "superquadric exponents must be finite and >= 2");
        break;
    default: return rve_err_set(err, RVE_EDATA, NULL, "unknown shape kind %d", (int)s->kind);
    }
    for (int i = 0; i < nvx; i++)
        if (!finite3(s->v[i]))
            return rve_err_set(err, RVE_EDATA, NULL, "shape vertex %d is not finite", i + 1);
    return RVE_OK;
}

/* ------------------------------------------------------------ support */
void rve_shape_support(const rve_shape *s, const double d[3], double out[3])
{
    dist_frame f;
    dist_frame_init(&f, s);
    int hint = -1;
    dist_support_world(s, &f, d, out, &hint);
    if (s->radius > 0) {
        double n = v3_norm(d);
        if (n > 0)
            v3_axpy(out, out, s->radius / n, d);
    }
}

/* Support point of an ellipsoid (body frame) in direction d: a e / |e|
 * with e = a d, both over their largest component first (|e|^2 overflowed
 * from axes of 1e154 and underflowed below 1e-154: NaN or zero points). */
void dist_ellipsoid_support(const rve_shape *s, const double d[3], double out[3])
{
    double m = v3_maxabs(d);
    if (!(m > 0)) {
        v3_set(out, m == m ? s->axes[0] : NAN, 0, 0);
        return;
    }
    double e[3] = {s->axes[0] * d[0] / m, s->axes[1] * d[1] / m, s->axes[2] * d[2] / m};
    double me = v3_maxabs(e);
    if (!(me > 0) || !isfinite(me)) {
        double z = me == 0 ? 0 : NAN;
        v3_set(out, z, z, z);
        return;
    }
    for (int k = 0; k < 3; k++) /* divided: 1 / me overflows for a subnormal me */
        e[k] /= me;
    double n = v3_norm(e);
    out[0] = s->axes[0] * e[0] / n;
    out[1] = s->axes[1] * e[1] / n;
    out[2] = s->axes[2] * e[2] / n;
}

/* Superquadric support in the unit-scaled frame: the body is the unit ball
 * of the nested norm ||(||(X,Y)||_n2, Z)||_n1 after x = aX, y = bY, z = cZ;
 * the maximiser of e.X is given by the dual exponents m = n/(n-1). */
void dist_superquadric_support(const rve_shape *s, const double d[3], double out[3])
{
    double a = s->axes[0], b = s->axes[1], c = s->axes[2];
    double e[3] = {a * d[0], b * d[1], c * d[2]};
    double m = v3_maxabs(e);
    if (!(m > 0)) {
        v3_set(out, a, 0, 0);
        if (m != m)
            v3_set(out, NAN, NAN, NAN);
        return;
    }
    e[0] /= m;
    e[1] /= m;
    e[2] /= m;
    double m1 = s->n1 / (s->n1 - 1), m2 = s->n2 / (s->n2 - 1);
    double ax = fabs(e[0]), ay = fabs(e[1]), az = fabs(e[2]);
    double rho, H;
    if (s->n2 == 2.0)
        rho = hypot(ax, ay);
    else {
        double mx = ax > ay ? ax : ay;
        rho = mx > 0 ? mx * pow(pow(ax / mx, m2) + pow(ay / mx, m2), 1.0 / m2) : 0.0;
    }
    {
        double mx = rho > az ? rho : az;
        H = (s->n1 == 2.0) ? hypot(rho, az) : mx * pow(pow(rho / mx, m1) + pow(az / mx, m1), 1.0 / m1);
    }
    double r = (s->n1 == 2.0) ? rho / H : pow(rho / H, m1 - 1);
    double Z = (s->n1 == 2.0) ? az / H : pow(az / H, m1 - 1);
    double X = 0, Y = 0;
    if (rho > 0) {
        X = (s->n2 == 2.0) ? ax / rho : pow(ax / rho, m2 - 1);
        Y = (s->n2 == 2.0) ? ay / rho : pow(ay / rho, m2 - 1);
        X *= r;
        Y *= r;
    }
    out[0] = copysign(a * X, e[0]);
    out[1] = copysign(b * Y, e[1]);
    out[2] = copysign(c * Z, e[2]);
}

/* ------------------------------------------------------------- parser */
static void skip_blank(const char **cur)
{
    const char *p = *cur;
    for (;;) {
        while (*p && isspace((unsigned char)*p))
            p++;
        if (*p == '#') {
            while (*p && *p != '\n')
                p++;
            continue;
        }
        break;
    }
    *cur = p;
}

int rve_shape_text_end(const char **cursor)
{
    skip_blank(cursor);
    return **cursor == '\0';
}

rve_status rve_shape_parse_pair(const char **cursor, rve_shape *a, rve_shape *b, rve_err *err)
{
    rve_status st = rve_shape_parse(cursor, a, err);
    if (st != RVE_OK)
        return st;
    if (rve_shape_text_end(cursor))
        return rve_err_set(err, RVE_EDATA, NULL, "unexpected end of input (expected the second shape)");
    st = rve_shape_parse(cursor, b, err);
    if (st != RVE_OK)
        return st;
    if (rve_shape_check(a, err) != RVE_OK || rve_shape_check(b, err) != RVE_OK)
        return RVE_EDATA;
    return RVE_OK;
}

/* Next token into tok (truncated copy for messages); returns its length, 0 at end. */
static size_t next_token(const char **cur, char *tok, size_t n)
{
    skip_blank(cur);
    const char *p = *cur;
    size_t len = 0;
    while (p[len] && !isspace((unsigned char)p[len]) && p[len] != '#')
        len++;
    size_t c = len < n - 1 ? len : n - 1;
    memcpy(tok, p, c);
    tok[c] = '\0';
    *cur = p + len;
    return len;
}

static rve_status read_number(const char **cur, double *x, const char *what, rve_err *err)
{
    char tok[64];
    size_t len = next_token(cur, tok, sizeof tok);
    if (len == 0)
        return rve_err_set(err, RVE_EDATA, NULL, "unexpected end of input (%s: expected a number)", what);
    if (len >= sizeof tok)
        return rve_err_set(err, RVE_EDATA, NULL, "bad token '%.40s...' (%s: expected a number)", tok, what);
    char *end;
    errno = 0;
    double v = strtod(tok, &end);
    /* ERANGE also flags underflow (a subnormal or a value that rounds to 0):
     * those are finite numbers, read as strtod rounds them; only overflow
     * (+-HUGE_VAL) is refused */
    if (end == tok || *end != '\0' || (errno == ERANGE && isinf(v)) || !isfinite(v))
        return rve_err_set(err, RVE_EDATA, NULL, "bad token '%s' (%s: expected a finite number)", tok, what);
    *x = v;
    return RVE_OK;
}

#define NUM(dst, what)                                   \
    do {                                                 \
        rve_status st_ = read_number(cur, &(dst), what, err); \
        if (st_ != RVE_OK)                               \
            return st_;                                  \
    } while (0)

static rve_status positive(double x, const char *what, int strict, rve_err *err)
{
    if (strict ? !(x > 0) : !(x >= 0))
        return rve_err_set(err, RVE_EDATA, NULL, "bad token '%.17g' (%s must be %s)", x, what,
                           strict ? "> 0" : ">= 0");
    return RVE_OK;
}

static rve_status read_quat(const char **cur, double q[4], const char *kind, rve_err *err)
{
    char what[64];
    static const char *nm[4] = {"qw", "qx", "qy", "qz"};
    for (int i = 0; i < 4; i++) {
        snprintf(what, sizeof what, "%s %s", kind, nm[i]);
        NUM(q[i], what);
    }
    double n = sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]);
    if (!(fabs(n - 1.0) <= 1e-6))
        return rve_err_set(err, RVE_EDATA, NULL,
                           "bad token '%.17g' (%s quaternion has norm %.17g, expected a unit quaternion)",
                           q[3], kind, n);
    return RVE_OK;
}

rve_status rve_shape_parse(const char **cursor, rve_shape *s, rve_err *err)
{
    const char **cur = cursor;
    char kw[64];
    rve_status st;
    memset(s, 0, sizeof *s);
    s->quat[0] = 1;
    size_t len = next_token(cur, kw, sizeof kw);
    if (len == 0)
        return rve_err_set(err, RVE_EDATA, NULL, "unexpected end of input (expected a shape)");
    double c[3], q[4], ax[3];
    if (strcmp(kw, "point") == 0) {
        NUM(c[0], "point x"); NUM(c[1], "point y"); NUM(c[2], "point z");
        rve_shape_point(s, c);
    } else if (strcmp(kw, "sphere") == 0) {
        double r;
        NUM(c[0], "sphere cx"); NUM(c[1], "sphere cy"); NUM(c[2], "sphere cz"); NUM(r, "sphere radius");
        if ((st = positive(r, "sphere radius", 0, err)) != RVE_OK)
            return st;
        rve_shape_sphere(s, c, r);
    } else if (strcmp(kw, "box") == 0) {
        NUM(c[0], "box cx"); NUM(c[1], "box cy"); NUM(c[2], "box cz");
        NUM(ax[0], "box hx"); NUM(ax[1], "box hy"); NUM(ax[2], "box hz");
        for (int i = 0; i < 3; i++)
            if ((st = positive(ax[i], "box half extent", 0, err)) != RVE_OK)
                return st;
        if ((st = read_quat(cur, q, "box", err)) != RVE_OK)
            return st;
        rve_shape_box(s, ax[0], ax[1], ax[2]);
        rve_shape_set_pose(s, c, q);
    } else if (strcmp(kw, "ellipsoid") == 0) {
        NUM(c[0], "ellipsoid cx"); NUM(c[1], "ellipsoid cy"); NUM(c[2], "ellipsoid cz");
        NUM(ax[0], "ellipsoid a"); NUM(ax[1], "ellipsoid b"); NUM(ax[2], "ellipsoid c");
        for (int i = 0; i < 3; i++)
            if ((st = positive(ax[i], "ellipsoid semi-axis", 1, err)) != RVE_OK)
                return st;
        if ((st = read_quat(cur, q, "ellipsoid", err)) != RVE_OK)
            return st;
        rve_shape_ellipsoid(s, ax[0], ax[1], ax[2]);
        rve_shape_set_pose(s, c, q);
    } else if (strcmp(kw, "superquadric") == 0) {
        double n1, n2;
        NUM(c[0], "superquadric cx"); NUM(c[1], "superquadric cy"); NUM(c[2], "superquadric cz");
        NUM(ax[0], "superquadric a"); NUM(ax[1], "superquadric b"); NUM(ax[2], "superquadric c");
        for (int i = 0; i < 3; i++)
            if ((st = positive(ax[i], "superquadric semi-axis", 1, err)) != RVE_OK)
                return st;
        NUM(n1, "superquadric n1");
        if (!(n1 >= 2))
            return rve_err_set(err, RVE_EDATA, NULL, "bad token '%.17g' (superquadric n1 must be >= 2)", n1);
        NUM(n2, "superquadric n2");
        if (!(n2 >= 2))
            return rve_err_set(err, RVE_EDATA, NULL, "bad token '%.17g' (superquadric n2 must be >= 2)", n2);
        if ((st = read_quat(cur, q, "superquadric", err)) != RVE_OK)
            return st;
        rve_shape_superquadric(s, ax[0], ax[1], ax[2], n1, n2);
        rve_shape_set_pose(s, c, q);
    } else if (strcmp(kw, "poly") == 0) {
        char tok[64];
        size_t l = next_token(cur, tok, sizeof tok);
        if (l == 0)
            return rve_err_set(err, RVE_EDATA, NULL, "unexpected end of input (poly: expected a vertex count)");
        char *end;
        errno = 0;
        long n = strtol(tok, &end, 10);
        if (l >= sizeof tok || end == tok || *end != '\0' || errno == ERANGE || n < 1 || n > 100000000L)
            return rve_err_set(err, RVE_EDATA, NULL,
                               "bad token '%s' (poly: expected a vertex count from 1 to 100000000)", tok);
        /* each vertex takes at least 6 characters ("0 0 0 "): a count the
         * rest of the text cannot hold is refused before allocating for it */
        size_t left = strlen(*cur);
        if ((size_t)n > left / 6 + 1)
            return rve_err_set(err, RVE_EDATA, NULL,
                               "poly: %ld vertices announced, but the text left holds at most %zu", n,
                               left / 6 + 1);
        double *v = malloc((size_t)n * 3 * sizeof *v);
        if (!v)
            return rve_err_set(err, RVE_ENOMEM, NULL, "out of memory for %ld poly vertices", n);
        for (long i = 0; i < 3 * n; i++) {
            char what[64];
            snprintf(what, sizeof what, "poly vertex %ld %c", i / 3 + 1, "xyz"[i % 3]);
            st = read_number(cur, &v[i], what, err);
            if (st != RVE_OK) {
                free(v);
                return st;
            }
        }
        rve_shape_polytope(s, v, (int)n, NULL);
        s->owned = v;
    } else {
        return rve_err_set(err, RVE_EDATA, NULL,
                           "bad token '%s' (expected a shape: point, sphere, box, ellipsoid, superquadric or poly)",
                           kw);
    }
    return RVE_OK;
}
