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
