/* Bodies of a grain set: shapes, volumes, support functions, hulls (qhull). */
#include "config.h"
#include <rve/pack.h>
#include "pack/pack_internal.h"
#include "util/vec3.h"
#include <libqhull_r/qhull_ra.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#ifndef M_PI
#define M_PI 3.14159265358979323846
#endif

static int finite_pos(double v) { return isfinite(v) && v > 0; }

static void body_init(rve_pack_body *b, rve_pack_shape shape)
{
    memset(b, 0, sizeof *b);
    b->shape = shape;
    b->q[0] = 1.0;
}

rve_status rve_pack_body_sphere(rve_pack_body *b, double r, rve_err *err)
{
    body_init(b, RVE_PACK_SPHERE);
    if (!finite_pos(r))
        return rve_err_set(err, RVE_EDATA, NULL, "sphere radius %g is not positive and finite", r);
    b->a[0] = b->a[1] = b->a[2] = r;
    b->rbound = r;
    b->volume = 4.0 / 3.0 * M_PI * r * r * r;
    return RVE_OK;
}

rve_status rve_pack_body_ellipsoid(rve_pack_body *b, double a, double bb, double c, rve_err *err)
{
    body_init(b, RVE_PACK_ELLIPSOID);
    if (!finite_pos(a) || !finite_pos(bb) || !finite_pos(c))
        return rve_err_set(err, RVE_EDATA, NULL, "ellipsoid semi-axes %g %g %g must be positive and finite",
                           a, bb, c);
    b->a[0] = a;
    b->a[1] = bb;
    b->a[2] = c;
    b->rbound = fmax(a, fmax(bb, c));
    b->volume = 4.0 / 3.0 * M_PI * a * bb * c;
    return RVE_OK;
}

double rve_pack_superquadric_volume(double a, double b, double c, double n1, double n2)
{
    double e1 = 2.0 / n1, e2 = 2.0 / n2;
    /* B(x,y) = exp(lgamma(x)+lgamma(y)-lgamma(x+y)) */
    double b1 = exp(lgamma(e1 / 2 + 1) + lgamma(e1) - lgamma(e1 / 2 + 1 + e1));
    double b2 = exp(lgamma(e2 / 2) + lgamma(e2 / 2) - lgamma(e2));
    return 2.0 * a * b * c * e1 * e2 * b1 * b2;
}

rve_status rve_pack_body_superquadric(rve_pack_body *b, double a, double bb, double c, double n1,
                                      double n2, rve_err *err)
{
    body_init(b, RVE_PACK_SUPERQUADRIC);
    if (!finite_pos(a) || !finite_pos(bb) || !finite_pos(c))
        return rve_err_set(err, RVE_EDATA, NULL,
                           "superquadric semi-axes %g %g %g must be positive and finite", a, bb, c);
    if (!(n1 >= 2) || !(n2 >= 2) || !isfinite(n1) || !isfinite(n2))
        return rve_err_set(err, RVE_EDATA, NULL, "superquadric exponents %g %g must be finite and >= 2",
                           n1, n2);
    b->a[0] = a;
    b->a[1] = bb;
    b->a[2] = c;
    b->n1 = n1;
    b->n2 = n2;
    /* The superquadric lies inside its bounding box [-a,a]x[-b,b]x[-c,c]. */
    b->rbound = sqrt(a * a + bb * bb + c * c);
    b->volume = rve_pack_superquadric_volume(a, bb, c, n1, n2);
    return RVE_OK;
}

/* ------------------------------------------------------------- qhull */
typedef struct {
    int nv;
    double *v;     /* hull vertices */
    int nt;
    int *tri;      /* 3*nt indices into v, outward orientation */
    double volume;
    double centroid[3];
    int nf;
    double *fn;    /* distinct facet normals */
} hull3;

static void hull3_free(hull3 *h)
{
    free(h->v);
    free(h->tri);
    free(h->fn);
    memset(h, 0, sizeof *h);
}

/* Largest |det| of tetrahedra spanned by extreme points: a cheap flatness test. */
static double spread_volume(int n, const double *p, double *scale)
{
    /* p0 = first point, p1 farthest from p0, p2 farthest from line, p3 farthest from plane */
    const double *p0 = p;
    int i1 = 0;
    double best = -1;
    for (int i = 0; i < n; i++) {
        double d = v3_dist2(p + 3 * i, p0);
        if (d > best) { best = d; i1 = i; }
    }
    *scale = sqrt(best);
    if (best <= 0)
        return 0;
    double e1[3];
    v3_sub(e1, p + 3 * i1, p0);
    int i2 = 0;
    best = -1;
    double nrm[3];
    for (int i = 0; i < n; i++) {
        double w[3], c[3];
        v3_sub(w, p + 3 * i, p0);
        v3_cross(c, e1, w);
        double d = v3_norm2(c);
        if (d > best) { best = d; i2 = i; }
    }
    double e2[3];
    v3_sub(e2, p + 3 * i2, p0);
    v3_cross(nrm, e1, e2);
    double vmax = 0;
    for (int i = 0; i < n; i++) {
        double w[3];
        v3_sub(w, p + 3 * i, p0);
        double d = fabs(v3_dot(w, nrm));
        if (d > vmax) vmax = d;
    }
    return vmax;
}

static rve_status hull3_build(int n, const double *pts, hull3 *h, rve_err *err)
{
    memset(h, 0, sizeof *h);
    if (n < 4)
        return rve_err_set(err, RVE_EDATA, NULL, "polyhedron needs at least 4 vertices, got %d", n);
    for (int i = 0; i < 3 * n; i++)
        if (!isfinite(pts[i]))
            return rve_err_set(err, RVE_EDATA, NULL, "polyhedron vertex %d is not finite", i / 3 + 1);
    double scale;
    double vol6 = spread_volume(n, pts, &scale);
    if (!(vol6 > 1e-12 * scale * scale * scale))
        return rve_err_set(err, RVE_EDATA, NULL, "polyhedron is flat or degenerate (no volume)");
    coordT *cp = malloc(sizeof(coordT) * 3 * (size_t)n);
    if (!cp)
        return rve_err_set(err, RVE_ENOMEM, NULL, "out of memory");
    for (int i = 0; i < 3 * n; i++)
        cp[i] = pts[i];
    FILE *devnull = fopen("/dev/null", "w");
    qhT qh_qh;
    qhT *qh = &qh_qh;
    qh_zero(qh, devnull);
    char opts[] = "qhull Qt";
    int code = qh_new_qhull(qh, 3, n, cp, False, opts, NULL, devnull);
    rve_status st = RVE_OK;
    if (code) {
        st = rve_err_set(err, RVE_EDATA, NULL, "polyhedron hull failed (qhull error %d)", code);
        goto done;
    }
    int *map = malloc(sizeof(int) * (size_t)n);
    h->v = malloc(sizeof(double) * 3 * (size_t)n);
    h->tri = malloc(sizeof(int) * 3 * (size_t)qh->num_facets);
    h->fn = malloc(sizeof(double) * 3 * (size_t)qh->num_facets);
    if (!map || !h->v || !h->tri || !h->fn) {
        free(map);
        st = rve_err_set(err, RVE_ENOMEM, NULL, "out of memory");
        goto done;
    }
    for (int i = 0; i < n; i++)
        map[i] = -1;
    vertexT *vertex, **vertexp;
    facetT *facet;
    FORALLvertices {
        int id = qh_pointid(qh, vertex->point);
        if (id >= 0 && id < n && map[id] < 0) {
            map[id] = h->nv;
            v3_copy(h->v + 3 * h->nv, pts + 3 * id);
            h->nv++;
        }
    }
    FORALLfacets {
        int k = 0, ids[3] = {0, 0, 0};
        FOREACHvertex_(facet->vertices) {
            if (k < 3)
                ids[k] = map[qh_pointid(qh, vertex->point)];
            k++;
        }
        if (k != 3 || ids[0] < 0 || ids[1] < 0 || ids[2] < 0)
            continue;
        /* Orient outward with the facet normal. */
        double e1[3], e2[3], c[3];
        v3_sub(e1, h->v + 3 * ids[1], h->v + 3 * ids[0]);
        v3_sub(e2, h->v + 3 * ids[2], h->v + 3 * ids[0]);
        v3_cross(c, e1, e2);
        double nn[3] = {facet->normal[0], facet->normal[1], facet->normal[2]};
        if (v3_dot(c, nn) < 0) {
            int t = ids[1];
            ids[1] = ids[2];
            ids[2] = t;
        }
        memcpy(h->tri + 3 * h->nt, ids, sizeof ids);
        h->nt++;
        /* distinct normals (triangles of one merged facet share theirs) */
        double un[3];
        v3_copy(un, nn);
        if (v3_normalize(un) > 0) {
            int dup = 0;
            for (int k2 = 0; k2 < h->nf && !dup; k2++)
                if (v3_dot(un, h->fn + 3 * k2) > 1 - 1e-12)
                    dup = 1;
            if (!dup) {
                v3_copy(h->fn + 3 * h->nf, un);
                h->nf++;
            }
        }
    }
    free(map);
    /* Volume and centroid from tetrahedra on a point inside (vertex mean). */
    double o[3] = {0, 0, 0};
    for (int i = 0; i < h->nv; i++)
        v3_add(o, o, h->v + 3 * i);
    v3_scale(o, o, 1.0 / h->nv);
    double vol = 0, cen[3] = {0, 0, 0};
    for (int t = 0; t < h->nt; t++) {
        const double *a = h->v + 3 * h->tri[3 * t], *b = h->v + 3 * h->tri[3 * t + 1],
                     *c = h->v + 3 * h->tri[3 * t + 2];
        double ea[3], eb[3], ec[3], cr[3];
        v3_sub(ea, a, o);
        v3_sub(eb, b, o);
        v3_sub(ec, c, o);
        v3_cross(cr, eb, ec);
        double dv = fabs(v3_dot(ea, cr)) / 6.0;
        vol += dv;
        for (int k = 0; k < 3; k++)
            cen[k] += dv * (o[k] + a[k] + b[k] + c[k]) / 4.0;
    }
    if (!(vol > 0)) {
        st = rve_err_set(err, RVE_EDATA, NULL, "polyhedron has no volume");
        goto done;
    }
    h->volume = vol;
    v3_scale(h->centroid, cen, 1.0 / vol);
done:
    qh_freeqhull(qh, !qh_ALL);
    int curlong, totlong;
    qh_memfreeshort(qh, &curlong, &totlong);
    if (devnull)
        fclose(devnull);
    free(cp);
    if (st != RVE_OK)
        hull3_free(h);
    return st;
}

rve_status rve_pack_body_poly(rve_pack_body *b, int nv, const double *pts, rve_err *err)
{
    body_init(b, RVE_PACK_POLY);
    hull3 h;
    rve_status st = hull3_build(nv, pts, &h, err);
    if (st != RVE_OK)
        return st;
    b->nv = h.nv;
    b->v = h.v;
    h.v = NULL;
    v3_copy(b->x, h.centroid);
    double r2 = 0;
    for (int i = 0; i < b->nv; i++) {
        v3_sub(b->v + 3 * i, b->v + 3 * i, h.centroid);
        double d = v3_norm2(b->v + 3 * i);
        if (d > r2)
            r2 = d;
    }
    b->rbound = sqrt(r2);
    b->volume = h.volume;
    b->nf = h.nf;
    b->fn = h.fn;
    h.fn = NULL;
    hull3_free(&h);
    return RVE_OK;
}

void rve_pack_body_free(rve_pack_body *b)
{
    if (!b)
        return;
    free(b->v);
    free(b->fn);
    b->v = NULL;
    b->fn = NULL;
    b->nv = 0;
    b->nf = 0;
}

rve_status rve_pack_body_copy(rve_pack_body *dst, const rve_pack_body *src, rve_err *err)
{
    *dst = *src;
    if (src->shape == RVE_PACK_POLY && src->nv > 0) {
        dst->v = malloc(sizeof(double) * 3 * (size_t)src->nv);
        if (!dst->v)
            return rve_err_set(err, RVE_ENOMEM, NULL, "out of memory");
        memcpy(dst->v, src->v, sizeof(double) * 3 * (size_t)src->nv);
    } else
        dst->v = NULL;
    dst->fn = NULL;
    if (src->nf > 0 && src->fn) {
        dst->fn = malloc(sizeof(double) * 3 * (size_t)src->nf);
        if (!dst->fn)
            return rve_err_set(err, RVE_ENOMEM, NULL, "out of memory");
        memcpy(dst->fn, src->fn, sizeof(double) * 3 * (size_t)src->nf);
    }
    return RVE_OK;
}

void rve_pack_body_scale(rve_pack_body *b, double s)
{
    for (int k = 0; k < 3; k++)
        b->a[k] *= s;
    for (int i = 0; i < 3 * b->nv; i++)
        b->v[i] *= s;
    b->rbound *= s;
    b->volume *= s * s * s;
}

void rve_pack_body_vertex(const rve_pack_body *b, int k, double out[3])
{
    double r[3];
    v3_qrot(r, b->q, b->v + 3 * k);
    v3_add(out, r, b->x);
}

/* Maximiser of g.w on the unit n-norm ball (dual exponent m = n/(n-1)). */
static double nball_support(double g0, double g1, double n, double w[2])
{
    double m = n / (n - 1.0);
    double a0 = fabs(g0), a1 = fabs(g1);
    double s = fmax(a0, a1);
    if (s == 0) {
        w[0] = w[1] = 0;
        return 0;
    }
    double h = s * pow(pow(a0 / s, m) + pow(a1 / s, m), 1.0 / m);
    w[0] = copysign(pow(a0 / h, m - 1.0), g0);
    w[1] = copysign(pow(a1 / h, m - 1.0), g1);
    return h;
}

void pack_local_support(const rve_pack_body *b, const double d[3], double s[3])
{
    switch (b->shape) {
    case RVE_PACK_SPHERE: {
        double n = v3_norm(d);
        if (n > 0)
            v3_scale(s, d, b->a[0] / n);
        else
            v3_set(s, b->a[0], 0, 0);
        break;
    }
    case RVE_PACK_ELLIPSOID: {
        double t[3] = {b->a[0] * b->a[0] * d[0], b->a[1] * b->a[1] * d[1], b->a[2] * b->a[2] * d[2]};
        double n = sqrt(v3_dot(t, d));
        if (n > 0)
            v3_scale(s, t, 1.0 / n);
        else
            v3_set(s, b->a[0], 0, 0);
        break;
    }
    case RVE_PACK_SUPERQUADRIC: {
        double wxy[2], wz[2];
        double h2 = nball_support(b->a[0] * d[0], b->a[1] * d[1], b->n2, wxy);
        nball_support(h2, b->a[2] * d[2], b->n1, wz);
        if (h2 == 0 && d[2] == 0) {
            v3_set(s, b->a[0], 0, 0);
            break;
        }
        s[0] = b->a[0] * wz[0] * wxy[0];
        s[1] = b->a[1] * wz[0] * wxy[1];
        s[2] = b->a[2] * wz[1];
        break;
    }
    case RVE_PACK_POLY: {
        int best = 0;
        double bd = -INFINITY;
        for (int i = 0; i < b->nv; i++) {
            double t = v3_dot(b->v + 3 * i, d);
            if (t > bd) {
                bd = t;
                best = i;
            }
        }
        v3_copy(s, b->v + 3 * best);
        break;
    }
    }
}

void rve_pack_body_support(const rve_pack_body *b, const double d[3], double out[3])
{
    double dl[3], sl[3], sw[3];
    v3_qrot_inv(dl, b->q, d);
    pack_local_support(b, dl, sl);
    v3_qrot(sw, b->q, sl);
    v3_add(out, sw, b->x);
}

int rve_pack_body_format(const rve_pack_body *b, char *buf, size_t n)
{
    const double *x = b->x, *q = b->q, *a = b->a;
    switch (b->shape) {
    case RVE_PACK_SPHERE: return snprintf(buf, n, "sphere %.17g %.17g %.17g %.17g", x[0], x[1], x[2], a[0]);
    case RVE_PACK_ELLIPSOID:
        return snprintf(buf, n, "ellipsoid %.17g %.17g %.17g %.17g %.17g %.17g %.17g %.17g %.17g %.17g",
                        x[0], x[1], x[2], a[0], a[1], a[2], q[0], q[1], q[2], q[3]);
    case RVE_PACK_SUPERQUADRIC:
        return snprintf(buf, n,
                        "superquadric %.17g %.17g %.17g %.17g %.17g %.17g %.17g %.17g %.17g %.17g %.17g %.17g",
                        x[0], x[1], x[2], a[0], a[1], a[2], b->n1, b->n2, q[0], q[1], q[2], q[3]);
    case RVE_PACK_POLY: {
        size_t used = (size_t)snprintf(buf, n, "poly %d", b->nv);
        for (int k = 0; k < b->nv; k++) {
            double w[3];
            rve_pack_body_vertex(b, k, w);
            used += (size_t)snprintf(buf + (used < n ? used : n), used < n ? n - used : 0,
                                     " %.17g %.17g %.17g", w[0], w[1], w[2]);
        }
        return (int)used;
    }
    }
    return 0;
}

/* ------------------------------------------------------------ surfaces */
/* Triangulated surface of a posed body, appended to growing arrays. */
typedef struct {
    double *p;
    size_t np, capp;
    int *t;
    size_t nt, capt;
    int *owner;
} mesh_acc;

static int acc_point(mesh_acc *m, const double x[3])
{
    if (m->np == m->capp) {
        size_t c = m->capp ? 2 * m->capp : 1024;
        double *np_ = realloc(m->p, sizeof(double) * 3 * c);
        if (!np_)
            return -1;
        m->p = np_;
        m->capp = c;
    }
    v3_copy(m->p + 3 * m->np, x);
    return (int)m->np++;
}

static int acc_tri(mesh_acc *m, int a, int b, int c, int owner)
{
    if (a < 0 || b < 0 || c < 0)
        return -1;
    if (m->nt == m->capt) {
        size_t cap = m->capt ? 2 * m->capt : 1024;
        int *nt_ = realloc(m->t, sizeof(int) * 3 * cap);
        int *no_ = realloc(m->owner, sizeof(int) * cap);
        if (nt_)
            m->t = nt_;
        if (no_)
            m->owner = no_;
        if (!nt_ || !no_)
            return -1;
        m->capt = cap;
    }
    m->t[3 * m->nt] = a;
    m->t[3 * m->nt + 1] = b;
    m->t[3 * m->nt + 2] = c;
    m->owner[m->nt] = owner;
    m->nt++;
    return 0;
}

static double spow(double v, double e) { return copysign(pow(fabs(v), e), v); }

static int body_surface(const rve_pack_body *b, int id, mesh_acc *m, rve_err *err)
{
    if (b->shape == RVE_PACK_POLY) {
        double *w = malloc(sizeof(double) * 3 * (size_t)b->nv);
        if (!w)
            return rve_err_set(err, RVE_ENOMEM, NULL, "out of memory");
        for (int k = 0; k < b->nv; k++)
            rve_pack_body_vertex(b, k, w + 3 * k);
        hull3 h;
        rve_status st = hull3_build(b->nv, w, &h, err);
        free(w);
        if (st != RVE_OK)
            return st;
        int base = (int)m->np;
        for (int k = 0; k < h.nv; k++)
            if (acc_point(m, h.v + 3 * k) < 0) {
                hull3_free(&h);
                return rve_err_set(err, RVE_ENOMEM, NULL, "out of memory");
            }
        for (int t = 0; t < h.nt; t++)
            if (acc_tri(m, base + h.tri[3 * t], base + h.tri[3 * t + 1], base + h.tri[3 * t + 2], id) < 0) {
                hull3_free(&h);
                return rve_err_set(err, RVE_ENOMEM, NULL, "out of memory");
            }
        hull3_free(&h);
        return RVE_OK;
    }
    /* Parametric surface: eta in [-pi/2, pi/2] (nlat rows), omega in [0, 2pi). */
    const int nlat = 10, nlon = 20;
    double e1 = 2.0, e2 = 2.0; /* exponents 2/n: sphere and ellipsoid n = 2 */
    if (b->shape == RVE_PACK_SUPERQUADRIC) {
        e1 = 2.0 / b->n1;
        e2 = 2.0 / b->n2;
    }
    e1 *= 0.5;
    e2 *= 0.5;
    int base = (int)m->np;
    for (int i = 0; i <= nlat; i++) {
        double eta = -M_PI / 2 + M_PI * i / nlat;
        for (int j = 0; j < nlon; j++) {
            double om = 2 * M_PI * j / nlon;
            double ce = spow(cos(eta), e1), se = spow(sin(eta), e1);
            double l[3] = {b->a[0] * ce * spow(cos(om), e2), b->a[1] * ce * spow(sin(om), e2),
                           b->a[2] * se};
            double wv[3];
            v3_qrot(wv, b->q, l);
            v3_add(wv, wv, b->x);
            if (acc_point(m, wv) < 0)
                return rve_err_set(err, RVE_ENOMEM, NULL, "out of memory");
        }
    }
    for (int i = 0; i < nlat; i++)
        for (int j = 0; j < nlon; j++) {
            int a = base + i * nlon + j, bq = base + i * nlon + (j + 1) % nlon;
            int c = a + nlon, d = bq + nlon;
            if (acc_tri(m, a, bq, d, id) < 0 || acc_tri(m, a, d, c, id) < 0)
                return rve_err_set(err, RVE_ENOMEM, NULL, "out of memory");
        }
    return RVE_OK;
}

rve_status rve_pack_set_write_vtk(const rve_pack_set *s, FILE *fp, rve_err *err)
{
    mesh_acc m;
    memset(&m, 0, sizeof m);
    rve_status st = RVE_OK;
    for (size_t i = 0; i < s->n && st == RVE_OK; i++)
        st = body_surface(&s->b[i], (int)i, &m, err);
    if (st == RVE_OK) {
        fprintf(fp, "# vtk DataFile Version 3.0\nrve pack: %zu bodies in a %.17g x %.17g x %.17g %s box\n"
                    "ASCII\nDATASET POLYDATA\nPOINTS %zu double\n",
                s->n, s->L[0], s->L[1], s->L[2], s->periodic ? "periodic" : "walled", m.np);
        for (size_t k = 0; k < m.np; k++)
            fprintf(fp, "%.17g %.17g %.17g\n", m.p[3 * k], m.p[3 * k + 1], m.p[3 * k + 2]);
        fprintf(fp, "POLYGONS %zu %zu\n", m.nt, 4 * m.nt);
        for (size_t k = 0; k < m.nt; k++)
            fprintf(fp, "3 %d %d %d\n", m.t[3 * k], m.t[3 * k + 1], m.t[3 * k + 2]);
        fprintf(fp, "CELL_DATA %zu\nSCALARS body int 1\nLOOKUP_TABLE default\n", m.nt);
        for (size_t k = 0; k < m.nt; k++)
            fprintf(fp, "%d\n", m.owner[k]);
    }
    free(m.p);
    free(m.t);
    free(m.owner);
    return st;
}
