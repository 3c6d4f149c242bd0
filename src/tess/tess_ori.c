/* Orientations of a grain map's grains onto the cells of a tessellation
 * (issue 15): what `rve fit` writes in the .tess **cell *ori. */
#include "config.h"
#define _POSIX_C_SOURCE 200809L /* strdup */
#include <rve/ori.h>
#include <rve/tess.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "map_internal.h"

/* Why one rule here: rve_map has no field for the format version its
 * descriptor came from, and the map writers (HDF5, .tess) must read it the
 * same way. */
rve_status rve_map_ori_spec(const rve_map *m, rve_ori_spec *sp, rve_err *err)
{
    rve_ori_spec q = {RVE_ORI_QUATERNION, RVE_ORI_PASSIVE, 0};
    /* "quaternion" is what the HDF5 readers set: our passive quaternions */
    if (strcmp(m->ori_des, "quaternion") &&
        rve_ori_parse_descriptor(m->ori_des, 2.1, &q, err) != RVE_OK)
        return RVE_EDATA;
    if (rve_ori_des_size(q.des) != m->ori_n)
        return rve_err_set(err, RVE_EDATA, NULL, "orientation descriptor '%s' with %d values per grain",
                           m->ori_des, m->ori_n);
    *sp = q;
    return RVE_OK;
}

/* Cell k's orientation from map label labels[k]: ori[4 k ..] */
static rve_status map_cell_quats(const rve_map *m, const uint32_t *labels, int n, double *ori,
                                 rve_err *err)
{
    rve_ori_spec sp;
    rve_err e;
    rve_err_clear(&e);
    if (rve_map_ori_spec(m, &sp, &e) != RVE_OK)
        return rve_err_set(err, RVE_EDATA, NULL, "map orientations: %s", e.msg);
    for (int k = 0; k < n; k++) {
        uint32_t l = labels ? labels[k] : (uint32_t)k + 1;
        if (l == 0 || l > m->nlabels)
            return rve_err_set(err, RVE_EUSAGE, NULL, "cell %d: label %u not in the map (1..%u)", k + 1,
                               (unsigned)l, (unsigned)m->nlabels);
        if (rve_ori_to_quat(&sp, m->ori + (size_t)m->ori_n * (l - 1), ori + 4 * (size_t)k, &e) != RVE_OK)
            return rve_err_set(err, RVE_EDATA, NULL, "grain %u (id %u): %s", (unsigned)l,
                               (unsigned)rve_map_id(m, l), e.msg);
    }
    return RVE_OK;
}

rve_status rve_tess_set_ori_from_map(rve_tess *t, const rve_map *m, const uint32_t *labels,
                                     rve_err *err)
{
    int has_ori = m->ori && m->ori_n > 0 && m->ori_des;
    if (!has_ori && !m->crysym)
        return RVE_OK; /* nothing known: the tessellation is left as it is */
    char *des = has_ori ? strdup("quaternion:passive") : NULL;
    char *cs = m->crysym ? strdup(m->crysym) : NULL;
    double *ori = has_ori ? malloc(((size_t)t->n ? (size_t)t->n : 1) * 4 * sizeof *ori) : NULL;
    rve_status st = RVE_OK;
    if ((has_ori && (!des || !ori)) || (m->crysym && !cs))
        st = rve_err_set(err, RVE_ENOMEM, NULL, "out of memory");
    if (st == RVE_OK && has_ori)
        st = map_cell_quats(m, labels, t->n, ori, err);
    if (st != RVE_OK) {
        free(des), free(cs), free(ori);
        return st;
    }
    if (has_ori) {
        free(t->ori_des);
        free(t->ori);
        t->ori_des = des;
        t->ori = ori;
        t->ori_n = 4;
        /* the values are labelled for the format rve_tess_write_tess writes */
        snprintf(t->format, sizeof t->format, "3.5");
    }
    if (cs) {
        free(t->crysym);
        t->crysym = cs;
    }
    return RVE_OK;
}

rve_status rve_tess_ori_quat(const rve_tess *t, double *q, rve_err *err)
{
    if (!t->ori || t->ori_n <= 0)
        return rve_err_set(err, RVE_EUSAGE, NULL, "the tessellation carries no orientations");
    /* the descriptor's labels depend on the file's version; a tessellation
     * not read from a file is labelled as rve_tess_write_tess labels it */
    double ver = t->format[0] ? strtod(t->format, NULL) : 3.5;
    rve_ori_spec sp;
    rve_err e;
    rve_err_clear(&e);
    if (rve_ori_parse_descriptor(t->ori_des ? t->ori_des : "rodrigues", ver, &sp, &e) != RVE_OK)
        return rve_err_set(err, RVE_EDATA, NULL, "*ori: %s", e.msg);
    if (rve_ori_des_size(sp.des) != t->ori_n)
        return rve_err_set(err, RVE_EDATA, NULL, "*ori descriptor '%s' with %d values per cell",
                           t->ori_des ? t->ori_des : "rodrigues", t->ori_n);
    for (int k = 0; k < t->n; k++)
        if (rve_ori_to_quat(&sp, t->ori + (size_t)t->ori_n * k, q + 4 * (size_t)k, &e) != RVE_OK)
            return rve_err_set(err, RVE_EDATA, NULL, "*ori of cell %d: %s", k + 1, e.msg);
    return RVE_OK;
}

rve_status rve_map_set_random_ori(rve_map *m, const char *crysym, uint64_t seed, rve_err *err)
{
    rve_laue g;
    if (!crysym || rve_laue_parse(crysym, &g) != RVE_OK)
        return rve_err_set(err, RVE_EUSAGE, NULL, "unknown crystal symmetry '%s'", crysym ? crysym : "(null)");
    size_t nl = m->nlabels;
    double *ori = malloc((nl ? nl : 1) * 4 * sizeof *ori);
    int *ph = malloc((nl ? nl : 1) * sizeof *ph);
    char *des = strdup("quaternion"), *cs = strdup(rve_laue_name(g));
    if (!ori || !ph || !des || !cs) {
        free(ori), free(ph), free(des), free(cs);
        return rve_err_set(err, RVE_ENOMEM, NULL, "out of memory");
    }
    rve_pack_rng r;
    rve_pack_rng_seed(&r, seed);
    for (size_t l = 0; l < nl; l++) { /* label order: the same draws whatever the ids */
        double q[4];
        rve_ori_random(&r, q);
        rve_ori_fz(q, g, ori + 4 * l);
        ph[l] = 1;
    }
    free(m->ori), free(m->ori_des), free(m->phase), free(m->gos), free(m->crysym);
    m->ori = ori;
    m->ori_des = des;
    m->ori_n = 4;
    m->phase = ph;
    m->gos = NULL;
    m->crysym = cs;
    return RVE_OK;
}
