/* Bodies of a grain set: shapes, volumes, support functions (those of
 * rve/dist.h), hulls (rve_polyhedron). */
#include "config.h"
#include <rve/pack.h>
#include "pack/pack_internal.h"
#include "util/vec3.h"
#include <rve/dist.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "util/mathconst.h"

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

/* ------------------------------------------------------------- hulls */
/* The one hull of the library (rve_polyhedron_alloc, qhull with coplanar
 * facets merged): the pack body keeps its vertices, face normals, volume and
 * centroid. */
rve_status rve_pack_body_poly(rve_pack_body *b, int nv, const double *pts, rve_err *err)
{
    body_init(b, RVE_PACK_POLY);
    if (nv < 4)
        return rve_err_set(err, RVE_EDATA, NULL, "polyhedron needs at least 4 vertices, got %d", nv);
    rve_polyhedron *P = NULL;
    rve_status st = rve_polyhedron_alloc(&P, pts, (size_t)nv, err);
    if (st != RVE_OK)
        return st;
    b->v = malloc(sizeof(double) * 3 * P->nv);
    b->fn = malloc(sizeof(double) * 3 * P->nf + 1);
    if (!b->v || !b->fn) {
        rve_polyhedron_free(P);
        rve_pack_body_free(b);
        return rve_err_set(err, RVE_ENOMEM, NULL, "out of memory");
    }
    b->nv = (int)P->nv;
    v3_copy(b->x, P->centroid);
    double r2 = 0;
    for (int i = 0; i < b->nv; i++) {
        v3_sub(b->v + 3 * i, P->v + 3 * i, P->centroid);
        r2 = fmax(r2, v3_norm2(b->v + 3 * i));
    }
    /* coplanar facets are merged by the hull: one normal per face */
    b->nf = (int)P->nf;
    for (int f = 0; f < b->nf; f++)
        v3_copy(b->fn + 3 * f, P->plane + 4 * f);
    b->rbound = sqrt(r2);
    b->volume = P->volume;
    rve_polyhedron_free(P);
    if (!(b->volume > 0)) {
        rve_pack_body_free(b);
        return rve_err_set(err, RVE_EDATA, NULL, "polyhedron has no volume");
    }
    return RVE_OK;
}

void rve_pack_body_free(rve_pack_body *b)
{
    if (!b)
        return;
    free(b->v);
    free(b->fn);
    if (b->pieces && --b->pieces->refs <= 0) {
        rve_compound_free(b->pieces->cmp);
        free(b->pieces);
    }
    b->pieces = NULL;
    b->v = NULL;
    b->fn = NULL;
    b->nv = 0;
    b->nf = 0;
}

rve_status rve_pack_body_copy(rve_pack_body *dst, const rve_pack_body *src, rve_err *err)
{
    *dst = *src;
    dst->v = NULL;
    dst->fn = NULL;
    if (src->nv > 0 && src->v) {
        dst->v = malloc(sizeof(double) * 3 * (size_t)src->nv);
        if (!dst->v)
            return rve_err_set(err, RVE_ENOMEM, NULL, "out of memory");
        memcpy(dst->v, src->v, sizeof(double) * 3 * (size_t)src->nv);
    }
    if (src->nf > 0 && src->fn) {
        dst->fn = malloc(sizeof(double) * 3 * (size_t)src->nf);
        if (!dst->fn)
            return rve_err_set(err, RVE_ENOMEM, NULL, "out of memory");
        memcpy(dst->fn, src->fn, sizeof(double) * 3 * (size_t)src->nf);
    }
    /* the pieces are read-only: shared */
    if (dst->pieces)
        dst->pieces->refs++;
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

void pack_body_shape(const rve_pack_body *b, const double t[3], rve_shape *s)
{
    static const double o[3] = {0, 0, 0};
    switch (b->shape) {
    case RVE_PACK_SPHERE: rve_shape_sphere(s, o, b->a[0]); break;
    case RVE_PACK_ELLIPSOID: rve_shape_ellipsoid(s, b->a[0], b->a[1], b->a[2]); break;
    case RVE_PACK_SUPERQUADRIC: rve_shape_superquadric(s, b->a[0], b->a[1], b->a[2], b->n1, b->n2); break;
    case RVE_PACK_POLY:
    case RVE_PACK_COMPOUND: /* its convex hull: the support of a union is that of its hull */
        rve_shape_polytope(s, b->v, b->nv, NULL);
        break;
    }
    if (t) {
        double pos[3];
        v3_add(pos, b->x, t);
        rve_shape_set_pose(s, pos, b->q);
    }
}

/* One support function per shape: the distance kernels' (rve_shape_support),
 * so that wall checks, soft contacts and GJK see the same surface. */
void pack_local_support(const rve_pack_body *b, const double d[3], double s[3])
{
    rve_shape sh;
    pack_body_shape(b, NULL, &sh);
    rve_shape_support(&sh, d, s);
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
    case RVE_PACK_COMPOUND: {
        /* the pieces, world frame, one "poly" each after the count */
        rve_pose pose;
        v3_copy(pose.pos, b->x);
        memcpy(pose.quat, b->q, sizeof pose.quat);
        size_t np = rve_compound_npieces(b->pieces->cmp);
        size_t used = (size_t)snprintf(buf, n, "compound %zu", np);
        for (size_t k = 0; k < np; k++) {
            rve_shape s;
            rve_compound_piece(b->pieces->cmp, &pose, k, &s);
            used += (size_t)snprintf(buf + (used < n ? used : n), used < n ? n - used : 0, " poly %d", s.nv);
            for (int i = 0; i < s.nv; i++) {
                double w[3];
                v3_qrot(w, s.quat, s.verts + 3 * i);
                v3_add(w, w, s.pos);
                used += (size_t)snprintf(buf + (used < n ? used : n), used < n ? n - used : 0,
                                         " %.17g %.17g %.17g", w[0], w[1], w[2]);
            }
        }
        return (int)used;
    }
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
    int *piece;    /* piece of a compound body (0 for convex bodies) */
    int cur_piece; /* piece of the triangles being added */
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
        int *pc_ = nt_ && no_ ? realloc(m->piece, sizeof(int) * cap) : NULL;
        if (pc_)
            m->piece = pc_;
        if (!nt_ || !no_ || !pc_)
            return -1;
        m->capt = cap;
    }
    m->t[3 * m->nt] = a;
    m->t[3 * m->nt + 1] = b;
    m->t[3 * m->nt + 2] = c;
    m->owner[m->nt] = owner;
    m->piece[m->nt] = m->cur_piece;
    m->nt++;
    return 0;
}

static double spow(double v, double e) { return copysign(pow(fabs(v), e), v); }

static int hull_surface(const double *w, int nv, int id, mesh_acc *m, rve_err *err);

static int body_surface(const rve_pack_body *b, int id, mesh_acc *m, rve_err *err)
{
    if (b->shape == RVE_PACK_COMPOUND) {
        rve_pose pose;
        v3_copy(pose.pos, b->x);
        memcpy(pose.quat, b->q, sizeof pose.quat);
        size_t np = rve_compound_npieces(b->pieces->cmp);
        for (size_t k = 0; k < np; k++) {
            rve_shape s;
            rve_compound_piece(b->pieces->cmp, &pose, k, &s);
            double *w = malloc(sizeof(double) * 3 * (size_t)s.nv);
            if (!w)
                return rve_err_set(err, RVE_ENOMEM, NULL, "out of memory");
            for (int i = 0; i < s.nv; i++) {
                v3_qrot(w + 3 * i, s.quat, s.verts + 3 * i);
                v3_add(w + 3 * i, w + 3 * i, s.pos);
            }
            m->cur_piece = (int)k;
            int st = hull_surface(w, s.nv, id, m, err);
            m->cur_piece = 0;
            free(w);
            if (st != RVE_OK)
                return st;
        }
        return RVE_OK;
    }
    if (b->shape == RVE_PACK_POLY) {
        double *w = malloc(sizeof(double) * 3 * (size_t)b->nv);
        if (!w)
            return rve_err_set(err, RVE_ENOMEM, NULL, "out of memory");
        for (int k = 0; k < b->nv; k++)
            rve_pack_body_vertex(b, k, w + 3 * k);
        int st = hull_surface(w, b->nv, id, m, err);
        free(w);
        return st;
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

/* Triangulated hull of nv world points. */
static int hull_surface(const double *w, int nv, int id, mesh_acc *m, rve_err *err)
{
    rve_polyhedron *P = NULL;
    rve_status st = rve_polyhedron_alloc(&P, w, (size_t)nv, err);
    if (st != RVE_OK)
        return st;
    int base = (int)m->np;
    int bad = 0;
    for (size_t k = 0; k < P->nv && !bad; k++)
        bad = acc_point(m, P->v + 3 * k) < 0;
    /* faces are convex polygons, counter-clockwise from outside: fans */
    for (size_t f = 0; f < P->nf && !bad; f++) {
        const size_t *fv = P->fvert + P->fstart[f];
        size_t nf = P->fstart[f + 1] - P->fstart[f];
        for (size_t k = 1; k + 1 < nf && !bad; k++)
            bad = acc_tri(m, base + (int)fv[0], base + (int)fv[k], base + (int)fv[k + 1], id) < 0;
    }
    rve_polyhedron_free(P);
    return bad ? rve_err_set(err, RVE_ENOMEM, NULL, "out of memory") : RVE_OK;
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
                    "ASCII\nDATASET UNSTRUCTURED_GRID\nPOINTS %zu double\n",
                s->n, s->L[0], s->L[1], s->L[2], s->periodic ? "periodic" : "walled", m.np);
        for (size_t k = 0; k < m.np; k++)
            fprintf(fp, "%.17g %.17g %.17g\n", m.p[3 * k], m.p[3 * k + 1], m.p[3 * k + 2]);
        fprintf(fp, "CELLS %zu %zu\n", m.nt, 4 * m.nt);
        for (size_t k = 0; k < m.nt; k++)
            fprintf(fp, "3 %d %d %d\n", m.t[3 * k], m.t[3 * k + 1], m.t[3 * k + 2]);
        fprintf(fp, "CELL_TYPES %zu\n", m.nt);
        for (size_t k = 0; k < m.nt; k++)
            fputs("5\n", fp); /* VTK_TRIANGLE */
        fprintf(fp, "CELL_DATA %zu\nSCALARS body int 1\nLOOKUP_TABLE default\n", m.nt);
        for (size_t k = 0; k < m.nt; k++)
            fprintf(fp, "%d\n", m.owner[k]);
        fprintf(fp, "SCALARS piece int 1\nLOOKUP_TABLE default\n");
        for (size_t k = 0; k < m.nt; k++)
            fprintf(fp, "%d\n", m.piece[k]);
        pack_vtk_write_ori(s, m.owner, m.nt, fp);
    }
    free(m.piece);
    free(m.p);
    free(m.t);
    free(m.owner);
    return st;
}
