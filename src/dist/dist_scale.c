/* Exact power-of-two rescaling of a pair of shapes for the contact kernels
 *: a pair whose extent lies outside [2^-200, 2^200] is copied
 * multiplied by 2^-sc (exact: only the exponents change), the kernel runs on
 * the copies, and its lengths are multiplied back by 2^sc.  Inside that range
 * nothing is copied. */
#include "config.h"
#include "dist/dist_internal.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>

static double extent(const rve_shape *s)
{
    double e = v3_maxabs(s->pos);
    e = fmax(e, fabs(s->radius));
    e = fmax(e, v3_maxabs(s->axes));
    for (int i = 0; i < 4; i++)
        e = fmax(e, v3_maxabs(s->v[i]));
    if (s->kind == RVE_SHAPE_POLYTOPE && s->verts)
        for (int i = 0; i < 3 * s->nv; i++)
            e = fmax(e, fabs(s->verts[i]));
    return e;
}

/* x 2^k for |k| up to 2200 without intermediate overflow or double rounding
 * (ldexp is exact unless the result is subnormal) */
static inline double scl(double x, int k) { return ldexp(x, k); }

static int scale_shape(const rve_shape *s, int k, rve_shape *o, double **buf)
{
    *o = *s;
    o->owned = NULL;
    for (int i = 0; i < 3; i++) {
        o->pos[i] = scl(s->pos[i], k);
        o->axes[i] = scl(s->axes[i], k);
    }
    for (int j = 0; j < 4; j++)
        for (int i = 0; i < 3; i++)
            o->v[j][i] = scl(s->v[j][i], k);
    o->radius = scl(s->radius, k);
    *buf = NULL;
    if (s->kind == RVE_SHAPE_POLYTOPE && s->verts && s->nv > 0) {
        *buf = malloc(sizeof(double) * 3 * (size_t)s->nv);
        if (!*buf)
            return -1;
        for (int i = 0; i < 3 * s->nv; i++)
            (*buf)[i] = scl(s->verts[i], k);
        o->verts = *buf;
    }
    return 0;
}

int dist_pair_scale(const rve_shape *A, const rve_shape *B, dist_scaled_pair *P)
{
    P->sc = 0;
    P->bufa = P->bufb = NULL;
    double L = fmax(extent(A), extent(B));
    if (!(L > 0) || !isfinite(L) || (L >= 0x1p-200 && L <= 0x1p200))
        return 0;
    P->sc = ilogb(L);
    if (scale_shape(A, -P->sc, &P->a, &P->bufa) || scale_shape(B, -P->sc, &P->b, &P->bufb)) {
        dist_pair_scale_free(P);
        return -1;
    }
    return 1;
}

void dist_pair_scale_free(dist_scaled_pair *P)
{
    free(P->bufa);
    free(P->bufb);
    P->bufa = P->bufb = NULL;
}

int dist_contact_unscale(rve_contact *c, int sc)
{
    c->s = ldexp(c->s, sc);
    for (int i = 0; i < 3; i++) {
        c->p[i] = ldexp(c->p[i], sc);
        c->q[i] = ldexp(c->q[i], sc);
    }
    return isfinite(c->s);
}

/* ------------------------------------------------------------ polyhedra */
static double poly_extent(const rve_polyhedron *P)
{
    double e = 0;
    for (size_t i = 0; i < 3 * P->nv; i++)
        e = fmax(e, fabs(P->v[i]));
    return e;
}

/* shallow copy times 2^k: vertices, plane offsets, centroid, volume and
 * radius scaled; the topology arrays are shared (read-only) */
static int scale_poly(const rve_polyhedron *P, int k, rve_polyhedron *o, double **buf)
{
    *o = *P;
    *buf = malloc(sizeof(double) * (3 * P->nv + 4 * P->nf));
    if (!*buf)
        return -1;
    o->v = *buf;
    o->plane = *buf + 3 * P->nv;
    for (size_t i = 0; i < 3 * P->nv; i++)
        o->v[i] = ldexp(P->v[i], k);
    for (size_t f = 0; f < P->nf; f++) {
        memcpy(o->plane + 4 * f, P->plane + 4 * f, 3 * sizeof(double));
        o->plane[4 * f + 3] = ldexp(P->plane[4 * f + 3], k);
    }
    for (int j = 0; j < 3; j++)
        o->centroid[j] = ldexp(P->centroid[j], k);
    o->volume = ldexp(P->volume, 3 * k);
    o->radius = ldexp(P->radius, k);
    return 0;
}

int dist_poly_scale(const rve_polyhedron *A, const rve_polyhedron *B, const rve_shape *S, dist_scaled_poly *P)
{
    P->sc = 0;
    P->bufa = P->bufb = P->bufs = NULL;
    double L = poly_extent(A);
    if (B)
        L = fmax(L, poly_extent(B));
    if (S)
        L = fmax(L, extent(S));
    if (!(L > 0) || !isfinite(L) || (L >= 0x1p-200 && L <= 0x1p200))
        return 0;
    P->sc = ilogb(L);
    if (scale_poly(A, -P->sc, &P->a, &P->bufa) || (B && scale_poly(B, -P->sc, &P->b, &P->bufb)) ||
        (S && scale_shape(S, -P->sc, &P->s, &P->bufs))) {
        dist_poly_scale_free(P);
        return -1;
    }
    return 1;
}

void dist_poly_scale_free(dist_scaled_poly *P)
{
    free(P->bufa);
    free(P->bufb);
    free(P->bufs);
    P->bufa = P->bufb = P->bufs = NULL;
}

void dist_poly_unscale(rve_polyhedron *P, int sc)
{
    for (size_t i = 0; i < 3 * P->nv; i++)
        P->v[i] = ldexp(P->v[i], sc);
    for (size_t f = 0; f < P->nf; f++)
        P->plane[4 * f + 3] = ldexp(P->plane[4 * f + 3], sc);
    for (int j = 0; j < 3; j++)
        P->centroid[j] = ldexp(P->centroid[j], sc);
    P->volume = ldexp(P->volume, 3 * sc);
    P->radius = ldexp(P->radius, sc);
}
