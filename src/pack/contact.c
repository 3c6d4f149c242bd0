/* Contacts of a packing from the exact kernels of rve/dist.h: the pair
 * contact (distance and witnesses when apart, penetration when
 * overlapping), the contact list, its writer and the packing metrics. */
#include "config.h"
#include <rve/pack.h>
#include <rve/dist.h>
#include "pack/pack_internal.h"
#include "util/vec3.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Distance of bodies of which one at least is a compound: 1 when apart
 * (c filled), 0 when overlapping or not certified. */
static int compound_apart(const rve_pack_body *A, const rve_pack_body *B, const double t[3],
                          rve_pack_contact *c, rve_status *st)
{
    rve_compound_result r;
    *st = pack_compound_dist(A, B, t, &r);
    if (*st != RVE_OK || r.status != RVE_GJK_CONVERGED || !(r.d > 0))
        return 0;
    c->s = r.d;
    v3_copy(c->p, r.p);
    v3_copy(c->q, r.q);
    c->ia = (int)r.ia;
    c->ib = (int)r.ib;
    return 1;
}

rve_status pack_pair_contact(const rve_pack_body *A, const rve_pack_body *B, const double t[3],
                             rve_pack_contact *c)
{
    static const double zero[3] = {0, 0, 0};
    rve_status st = RVE_OK;
    int apart = 0;
    c->ia = c->ib = 0;
    if (A->shape == RVE_PACK_SPHERE && B->shape == RVE_PACK_SPHERE) {
        apart = 0; /* the closed form covers both cases */
    } else if (A->shape == RVE_PACK_COMPOUND || B->shape == RVE_PACK_COMPOUND) {
        apart = compound_apart(A, B, t, c, &st);
        if (st != RVE_OK)
            return st;
    } else {
        rve_shape sa, sb;
        pack_body_shape(A, zero, &sa);
        pack_body_shape(B, t, &sb);
        rve_dist_result r;
        rve_gjk_status gs = rve_gjk_dist(&sa, &sb, NULL, NULL, &r);
        if (gs == RVE_GJK_DEGENERATE)
            return RVE_EDATA;
        if (gs == RVE_GJK_CONVERGED && r.d > 0) {
            apart = 1;
            c->s = r.d;
            v3_copy(c->p, r.p);
            v3_copy(c->q, r.q);
        }
    }
    if (apart) {
        double d[3];
        v3_sub(d, c->q, c->p);
        double len = v3_norm(d);
        v3_scale(c->n, d, len > 0 ? 1 / len : 0);
        return RVE_OK;
    }
    rve_contact ct;
    size_t piece[2];
    if ((st = pack_overlap_contact(A, B, t, &ct, piece)) != RVE_OK)
        return st;
    c->s = ct.s;
    v3_copy(c->n, ct.n);
    v3_copy(c->p, ct.p);
    v3_copy(c->q, ct.q);
    c->ia = (int)piece[0];
    c->ib = (int)piece[1];
    return RVE_OK;
}

static int contact_cmp(const void *a, const void *b)
{
    const rve_pack_contact *x = a, *y = b;
    if (x->i != y->i)
        return x->i < y->i ? -1 : 1;
    if (x->j != y->j)
        return x->j < y->j ? -1 : 1;
    for (int k = 0; k < 3; k++)
        if (x->shift[k] != y->shift[k])
            return x->shift[k] < y->shift[k] ? -1 : 1;
    return 0;
}

/* rve_pack_contacts, also counting the narrow-phase calls (broad-phase pairs). */
static rve_status contacts(const rve_pack_set *s, double contact_tol, rve_pack_contact **out, size_t *n,
                           long *calls, rve_err *err)
{
    if (!(contact_tol >= 0) || !isfinite(contact_tol))
        return rve_err_set(err, RVE_EUSAGE, NULL, "contact tolerance must be >= 0");
    rve_pack_pair *pairs = NULL;
    size_t np = 0, cap = 0;
    rve_status st = s->n ? rve_pack_broad_phase(s, contact_tol, &pairs, &np, &cap, err) : RVE_OK;
    if (st != RVE_OK)
        return st;
    rve_pack_contact *c = malloc(sizeof *c * (np ? np : 1));
    if (!c) {
        free(pairs);
        return rve_err_set(err, RVE_ENOMEM, NULL, "out of memory");
    }
    size_t nc = 0;
    for (size_t k = 0; k < np; k++) {
        double t[3];
        pack_shift_vec(s, pairs[k].shift, t);
        rve_pack_contact *x = &c[nc];
        st = pack_pair_contact(&s->b[pairs[k].i], &s->b[pairs[k].j], t, x);
        if (st != RVE_OK) {
            rve_err_set(err, st, NULL, "contact kernel failed on bodies %d and %d", pairs[k].i + 1,
                        pairs[k].j + 1);
            break;
        }
        if (!(x->s <= contact_tol))
            continue;
        x->i = pairs[k].i;
        x->j = pairs[k].j;
        memcpy(x->shift, pairs[k].shift, sizeof x->shift);
        nc++;
    }
    free(pairs);
    *calls = (long)np;
    if (st != RVE_OK) {
        free(c);
        return st;
    }
    qsort(c, nc, sizeof *c, contact_cmp);
    if (nc == 0) {
        free(c);
        c = NULL;
    }
    *out = c;
    *n = nc;
    return RVE_OK;
}

rve_status rve_pack_contacts(const rve_pack_set *s, double contact_tol, rve_pack_contact **out, size_t *n,
                             rve_err *err)
{
    long calls;
    return contacts(s, contact_tol, out, n, &calls, err);
}

rve_status rve_pack_contacts_write(const rve_pack_contact *c, size_t n, double contact_tol, FILE *fp,
                                   rve_err *err)
{
    fprintf(fp, "# contacts %zu tol %.17g\n# i j sx sy sz ia ib s nx ny nz px py pz qx qy qz\n", n,
            contact_tol);
    for (size_t k = 0; k < n; k++) {
        const rve_pack_contact *x = &c[k];
        fprintf(fp, "%d %d %d %d %d %d %d %.17g %.17g %.17g %.17g %.17g %.17g %.17g %.17g %.17g %.17g\n",
                x->i, x->j, x->shift[0], x->shift[1], x->shift[2], x->ia, x->ib, x->s,
                x->n[0], x->n[1], x->n[2], x->p[0], x->p[1], x->p[2], x->q[0], x->q[1], x->q[2]);
    }
    return ferror(fp) ? rve_err_set(err, RVE_EIO, NULL, "write failed") : RVE_OK;
}

rve_status rve_pack_measure(const rve_pack_set *s, double contact_tol, rve_pack_metrics *m, rve_err *err)
{
    memset(m, 0, sizeof *m);
    double vbox = s->L[0] * s->L[1] * s->L[2];
    double vs = rve_pack_set_volume_solid(s);
    m->fraction = vs / vbox;
    m->void_ratio = vs > 0 ? (vbox - vs) / vs : INFINITY;
    m->all_pairs = (long)s->n * ((long)s->n - 1) / 2;
    if (s->n == 0)
        return RVE_OK;
    rve_pack_contact *c = NULL;
    size_t nc = 0;
    rve_status st = contacts(s, contact_tol > 0 ? contact_tol : 0, &c, &nc, &m->narrow_calls, err);
    if (st != RVE_OK)
        return st;
    int *deg = calloc(s->n, sizeof(int));
    if (!deg) {
        free(c);
        return rve_err_set(err, RVE_ENOMEM, NULL, "out of memory");
    }
    for (size_t k = 0; k < nc; k++) {
        m->contacts++;
        deg[c[k].i]++;
        deg[c[k].j]++;
        if (c[k].s <= 0) {
            m->overlaps++;
            if (-c[k].s > m->max_overlap)
                m->max_overlap = -c[k].s;
        }
    }
    for (size_t i = 0; i < s->n; i++)
        if (deg[i] == 0)
            m->rattlers++;
    m->z = 2.0 * (double)m->contacts / (double)s->n;
    if (!s->periodic)
        for (size_t i = 0; i < s->n; i++) {
            double w = pack_wall_clearance(&s->b[i], s->L);
            if (-w > m->wall_overlap)
                m->wall_overlap = -w;
        }
    free(deg);
    free(c);
    return RVE_OK;
}
