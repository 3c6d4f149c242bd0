/* Orientations of a grain map's grains onto the cells of a tessellation
 *: what `rve fit` writes in the .tess **cell *ori. */
#include "config.h"
#define _POSIX_C_SOURCE 200809L /* strdup */
#include <rve/ori.h>
#include <rve/raster.h>
#include <rve/tess.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>


/* Cell k's orientation from map label labels[k]: ori[4 k ..] */
static rve_status map_cell_quats(const rve_map *m, const uint32_t *labels, int n, double *ori,
                                 rve_err *err)
{
    rve_err e;
    rve_err_clear(&e);
    for (int k = 0; k < n; k++) {
        uint32_t l = labels ? labels[k] : (uint32_t)k + 1;
        if (l == 0 || l > m->nlabels)
            return rve_err_set(err, RVE_EUSAGE, NULL, "cell %d: label %u not in the map (1..%u)", k + 1,
                               (unsigned)l, (unsigned)m->nlabels);
        if (rve_map_grain_quat(m, l, ori + 4 * (size_t)k, &e) != RVE_OK)
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

/* Ideal rolling-texture components of cubic metals, Bunge angles in degrees
 * (Hirsch & Luecke 1988; the usual values) */
static const struct {
    const char *name;
    double eu[3];
} components[] = {
    {"cube", {0, 0, 0}},           {"goss", {0, 45, 0}},           {"brass", {35.26, 45, 0}},
    {"copper", {90, 35.26, 45}},   {"s", {58.98, 36.7, 63.43}},
};
#define NCOMP (int)(sizeof components / sizeof components[0])

/* "NAME" or "NAME:SPREAD" -> component index (-1: random) and spread (deg) */
static rve_status parse_texture(const char *spec, int *comp, double *spread, rve_err *err)
{
    char name[16];
    size_t len = strcspn(spec, ":");
    if (len >= sizeof name)
        return rve_err_set(err, RVE_EUSAGE, NULL, "unknown orientation texture '%.40s'", spec);
    memcpy(name, spec, len);
    name[len] = 0;
    *spread = 0;
    if (spec[len] == ':') {
        char *end;
        *spread = strtod(spec + len + 1, &end);
        if (end == spec + len + 1 || *end || !(*spread >= 0 && *spread <= 180))
            return rve_err_set(err, RVE_EUSAGE, NULL, "'%.40s': the spread is a number of degrees from 0 to 180",
                               spec);
    }
    *comp = -2;
    if (!strcmp(name, "random"))
        *comp = -1;
    for (int c = 0; c < NCOMP; c++)
        if (!strcmp(name, components[c].name))
            *comp = c;
    if (*comp == -2 || (*comp == -1 && spec[len] == ':'))
        return rve_err_set(err, RVE_EUSAGE, NULL, "unknown orientation texture '%.40s' (random, cube, goss, "
                           "brass, copper, s, the last five with an optional :SPREAD in degrees)", spec);
    return RVE_OK;
}

rve_status rve_tess_set_ori_texture(rve_tess *t, const char *spec, const char *crysym, uint64_t seed,
                                    rve_err *err)
{
    int comp = -1;
    double spread = 0;
    rve_laue g;
    rve_status st = parse_texture(spec, &comp, &spread, err);
    if (st != RVE_OK)
        return st;
    if (rve_laue_parse(crysym, &g) != RVE_OK)
        return rve_err_set(err, RVE_EUSAGE, NULL, "unknown crystal symmetry '%.40s'", crysym);
    double *ori = malloc(((size_t)t->n ? (size_t)t->n : 1) * 4 * sizeof *ori);
    char *des = strdup("quaternion:passive"), *cs = strdup(rve_laue_name(g));
    if (!ori || !des || !cs) {
        free(ori), free(des), free(cs);
        return rve_err_set(err, RVE_ENOMEM, NULL, "out of memory");
    }
    rve_rng r;
    rve_rng_seed(&r, seed);
    double c[4] = {1, 0, 0, 0}, d2r = 3.14159265358979323846 / 180;
    if (comp >= 0) {
        double eu[3] = {components[comp].eu[0] * d2r, components[comp].eu[1] * d2r, components[comp].eu[2] * d2r};
        rve_ori_eu2qu(eu, c);
    }
    for (int k = 0; k < t->n; k++) {
        double q[4], dq[4];
        if (comp < 0) {
            rve_ori_random(&r, q);
        } else {
            /* scatter: a rotation vector with independent normal components of
             * standard deviation `spread` (an isotropic Gaussian about the component) */
            double v[3], a;
            for (int i = 0; i < 3; i++)
                v[i] = rve_rng_normal(&r) * spread * d2r;
            a = sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]);
            double ax[4] = {a > 0 ? v[0] / a : 0, a > 0 ? v[1] / a : 0, a > 0 ? v[2] / a : 1, a};
            rve_ori_ax2qu(ax, dq);
            rve_ori_qmul(c, dq, q);
        }
        rve_ori_fz(q, g, ori + 4 * (size_t)k);
    }
    free(t->ori), free(t->ori_des), free(t->crysym);
    t->ori = ori;
    t->ori_des = des;
    t->ori_n = 4;
    t->crysym = cs;
    snprintf(t->format, sizeof t->format, "3.5");
    return RVE_OK;
}

