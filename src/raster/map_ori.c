/* Orientations of a grain map: their descriptor, one grain's quaternion, random
 * orientations, and the grain-boundary disorientations (`rve stat`). */
#include "config.h"
#define _POSIX_C_SOURCE 200809L /* strdup */
#include <rve/ori.h>
#include <rve/raster.h>
#include <stdlib.h>
#include <string.h>

#include "map_internal.h"

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

/* One key (a << 32 | b, a < b) per voxel face between grains a and b, sorted. */
static rve_status face_keys(const rve_map *m, uint64_t **out, size_t *n, rve_err *err)
{
    size_t cap = 1024, k = 0;
    uint64_t *key = malloc(cap * sizeof *key);
    if (!key)
        return rve_err_set(err, RVE_ENOMEM, NULL, "out of memory");
    for (int z = 0; z < m->nz; z++)
        for (int y = 0; y < m->ny; y++)
            for (int x = 0; x < m->nx; x++) {
                uint32_t a = m->lab[rve_map_index(m, x, y, z)], nb[3] = {0, 0, 0};
                if (!a)
                    continue;
                if (x + 1 < m->nx) nb[0] = m->lab[rve_map_index(m, x + 1, y, z)];
                if (y + 1 < m->ny) nb[1] = m->lab[rve_map_index(m, x, y + 1, z)];
                if (z + 1 < m->nz) nb[2] = m->lab[rve_map_index(m, x, y, z + 1)];
                for (int d = 0; d < 3; d++) {
                    uint32_t b = nb[d];
                    if (!b || b == a)
                        continue;
                    if (k == cap) {
                        uint64_t *t = realloc(key, 2 * cap * sizeof *key);
                        if (!t) {
                            free(key);
                            return rve_err_set(err, RVE_ENOMEM, NULL, "out of memory");
                        }
                        key = t, cap *= 2;
                    }
                    key[k++] = a < b ? (uint64_t)a << 32 | b : (uint64_t)b << 32 | a;
                }
            }
    qsort(key, k, sizeof *key, cmp_u64);
    *out = key;
    *n = k;
    return RVE_OK;
}

rve_status rve_map_gb_misori(const rve_map *m, rve_gb_misori **out, size_t *n, rve_err *err)
{
    if (!m->ori || m->ori_n <= 0 || !m->ori_des)
        return rve_err_set(err, RVE_EUSAGE, NULL, "the map has no orientations");
    rve_ori_spec sp;
    rve_laue g = RVE_LAUE_TRICLINIC;
    if (rve_map_ori_spec(m, &sp, err) != RVE_OK)
        return RVE_EDATA;
    if (m->crysym && rve_laue_parse(m->crysym, &g) != RVE_OK)
        return rve_err_set(err, RVE_EDATA, NULL, "unknown crystal symmetry '%s'", m->crysym);
    uint64_t *key = NULL;
    size_t nk = 0, np = 0;
    rve_status st = face_keys(m, &key, &nk, err);
    if (st != RVE_OK)
        return st;
    for (size_t i = 0; i < nk; i++)
        np += i == 0 || key[i] != key[i - 1];
    rve_gb_misori *gb = malloc((np ? np : 1) * sizeof *gb);
    if (!gb) {
        free(key);
        return rve_err_set(err, RVE_ENOMEM, NULL, "out of memory");
    }
    size_t p = 0;
    rve_err e;
    rve_err_clear(&e);
    for (size_t i = 0; i < nk && st == RVE_OK;) {
        size_t j = i;
        while (j < nk && key[j] == key[i])
            j++;
        uint32_t a = (uint32_t)(key[i] >> 32), b = (uint32_t)key[i];
        double qa[4], qb[4];
        if (rve_ori_to_quat(&sp, m->ori + (size_t)m->ori_n * (a - 1), qa, &e) != RVE_OK ||
            rve_ori_to_quat(&sp, m->ori + (size_t)m->ori_n * (b - 1), qb, &e) != RVE_OK)
            st = rve_err_set(err, RVE_EDATA, NULL, "grains %u, %u: %s", (unsigned)a, (unsigned)b, e.msg);
        else
            gb[p++] = (rve_gb_misori){a, b, j - i, rve_ori_disori_angle(qa, qb, g)};
        i = j;
    }
    free(key);
    if (st != RVE_OK) {
        free(gb);
        return st;
    }
    *out = gb;
    *n = np;
    return RVE_OK;
}

/* Why one rule here: the map writers (HDF5, .tess, .tesr) must read the
 * descriptor the same way.  A map's descriptor has Neper 4.10's meaning (the
 * .tesr reader rewrites older files' labels), hence version 3.5. */
rve_status rve_map_ori_spec(const rve_map *m, rve_ori_spec *sp, rve_err *err)
{
    rve_ori_spec q = {RVE_ORI_QUATERNION, RVE_ORI_PASSIVE, 0};
    /* "quaternion" is what the HDF5 readers set: our passive quaternions */
    if (strcmp(m->ori_des, "quaternion") &&
        rve_ori_parse_descriptor(m->ori_des, 3.5, &q, err) != RVE_OK)
        return RVE_EDATA;
    if (rve_ori_des_size(q.des) != m->ori_n)
        return rve_err_set(err, RVE_EDATA, NULL, "orientation descriptor '%s' with %d values per grain",
                           m->ori_des, m->ori_n);
    *sp = q;
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
    rve_rng r;
    rve_rng_seed(&r, seed);
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

rve_status rve_map_grain_quat(const rve_map *m, uint32_t l, double q[4], rve_err *err)
{
    if (!m->ori || m->ori_n <= 0 || !m->ori_des)
        return rve_err_set(err, RVE_EUSAGE, NULL, "the map has no orientations");
    if (l == 0 || l > m->nlabels)
        return rve_err_set(err, RVE_EUSAGE, NULL, "label %u not in the map (1..%u)", (unsigned)l,
                           (unsigned)m->nlabels);
    rve_ori_spec sp;
    if (rve_map_ori_spec(m, &sp, err) != RVE_OK)
        return RVE_EDATA;
    return rve_ori_to_quat(&sp, m->ori + (size_t)m->ori_n * (l - 1), q, err);
}
