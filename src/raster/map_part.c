/* map_part.c - a grain map read by ranges of z layers (rve_map_part,
 * rve/raster.h): TIFF page ranges, HDF5 hyperslabs of the grain ids; the
 * per-grain tables of the whole map without its voxels. */
#include "config.h"
#define _POSIX_C_SOURCE 200809L
#include <hdf5.h>
#include <rve/raster.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "map_hdf5_internal.h"
#include "map_internal.h"

struct rve_map_part {
    char *path;
    int hdf5;            /* else TIFF */
    hid_t fapl;          /* the caller's (HDF5) */
    rve_map_load_opts lo;
    rve_map geom;        /* lab NULL */
    uint64_t voxels;     /* read by rve_map_part_read */
};

/* The user's voxel size and origin, as rve_map_load applies them, and the
 * origin moved to layer k0. */
static void apply_opts(const rve_map_load_opts *o, rve_map *m, int k0)
{
    rve_map_load_apply(o, m);
    m->origin[2] += k0 * m->h[2];
}

/* Can an HDF5 map be read in part?  Its per-grain tables must not come
 * from the voxels, and its ids must not be renumbered by the reader. */
static rve_status hdf5_probe(rve_map_part *p, char *why, size_t whyn, int *ok, rve_err *err)
{
    h5grains g;
    rve_status s = h5m_read_grains(p->path, p->fapl, NULL, 1, 0, 1, 0, &g, err);
    if (s != RVE_OK)
        return s;
    size_t nv = (size_t)g.nx * g.ny * g.nz;
    *ok = 0;
    if (g.vori && !g.fori)
        snprintf(why, whyn, "its orientations are per voxel only (the grains' means need every voxel)");
    else if (g.vphase && !g.fphase)
        snprintf(why, whyn, "its phases are per voxel only");
    else if ((g.fori || g.fphase) && g.nfeat > 2 * nv + 4097)
        snprintf(why, whyn, "its feature table (%zu rows) allows sparse ids, which the reader renumbers", g.nfeat);
    else
        *ok = 1;
    p->geom.nx = g.nx, p->geom.ny = g.ny, p->geom.nz = g.nz;
    memcpy(p->geom.h, g.h, sizeof g.h);
    memcpy(p->geom.origin, g.origin, sizeof g.origin);
    p->geom.has_res = g.has_res;
    h5m_grains_free(&g);
    return RVE_OK;
}

rve_status rve_map_part_open(const char *path, const rve_map_load_opts *o, int64_t hdf5_fapl, rve_map_part **out,
                             char *why, size_t whyn, rve_err *err)
{
    *out = NULL;
    why[0] = 0;
    rve_map_load_opts d;
    if (!(o = rve_map_load_opts_use(path, o, &d, err)))
        return RVE_EUSAGE;
    int hdf5 = o->fmt == RVE_MAP_HDF5 || (o->fmt == RVE_MAP_AUTO && rve_map_is_hdf5(path));
    rve_map_format f = o->fmt == RVE_MAP_AUTO ? rve_map_format_from_path(path) : o->fmt;
    if (!hdf5 && f != RVE_MAP_TIFF) {
        snprintf(why, whyn, "only TIFF and HDF5 maps are read by layers");
        return RVE_OK;
    }
    rve_map_part *p = calloc(1, sizeof *p);
    if (!p || !(p->path = strdup(path))) {
        free(p);
        return rve_err_set(err, RVE_ENOMEM, path, "out of memory");
    }
    p->hdf5 = hdf5;
    p->fapl = hdf5_fapl > 0 ? (hid_t)hdf5_fapl : H5P_DEFAULT;
    p->lo = *o;
    int ok = 1;
    rve_status s = hdf5 ? hdf5_probe(p, why, whyn, &ok, err) : rve_map_tiff_geometry(path, &p->geom, err);
    if (s != RVE_OK || !ok) {
        rve_map_part_close(p);
        return s;
    }
    apply_opts(o, &p->geom, 0);
    *out = p;
    return RVE_OK;
}

const rve_map *rve_map_part_geometry(const rve_map_part *p)
{
    return &p->geom;
}

uint64_t rve_map_part_voxels_read(const rve_map_part *p)
{
    return p->voxels;
}

rve_status rve_map_part_read(rve_map_part *p, int k0, int k1, rve_map **out, rve_err *err)
{
    *out = NULL;
    if (k0 < 0 || k1 > p->geom.nz || k1 <= k0)
        return rve_err_set(err, RVE_EINTERNAL, p->path, "layers %d..%d outside the map", k0, k1);
    rve_map *m = NULL;
    rve_status s;
    if (!p->hdf5) {
        if ((s = rve_map_read_tiff_pages(p->path, k0, k1, &m, err)) != RVE_OK)
            return s;
    } else {
        h5grains g;
        if ((s = h5m_read_grains(p->path, p->fapl, NULL, 1, k0, k1, 0, &g, err)) != RVE_OK)
            return s;
        if (!(m = calloc(1, sizeof *m))) {
            h5m_grains_free(&g);
            return rve_err_set(err, RVE_ENOMEM, p->path, "out of memory");
        }
        m->nx = g.nx, m->ny = g.ny, m->nz = k1 - k0;
        memcpy(m->h, g.h, sizeof m->h);
        memcpy(m->origin, g.origin, sizeof m->origin);
        m->has_res = g.has_res;
        m->lab = g.lab;
        g.lab = NULL;
        h5m_grains_free(&g);
        size_t nv = rve_map_nvox(m);
        for (size_t v = 0; v < nv; v++)
            m->nlabels = m->lab[v] > m->nlabels ? m->lab[v] : m->nlabels;
    }
    apply_opts(&p->lo, m, k0);
    p->voxels += rve_map_nvox(m);
    *out = m;
    return RVE_OK;
}

static int cmp_u32(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return (x > y) - (x < y);
}

rve_status rve_map_part_header(rve_map_part *p, const uint32_t *present, size_t n, rve_map **out, rve_err *err)
{
    *out = NULL;
    uint32_t *l = malloc((n ? n : 1) * sizeof *l);
    if (!l)
        return rve_err_set(err, RVE_ENOMEM, p->path, "out of memory");
    memcpy(l, present, n * sizeof *l);
    qsort(l, n, sizeof *l, cmp_u32);
    rve_map *m = NULL;
    rve_status s = RVE_OK;
    if (!p->hdf5) {
        if (!(m = calloc(1, sizeof *m)))
            s = rve_err_set(err, RVE_ENOMEM, p->path, "out of memory");
        else
            m->nlabels = n ? l[n - 1] : 0;
        free(l);
    } else {
        /* the per-grain tables of the reader, from the labels present:
         * one entry each stands for the voxels (the tables come from the
         * file's feature tables, never from voxel arrays: hdf5_probe) */
        h5grains g;
        if ((s = h5m_read_grains(p->path, p->fapl, NULL, 1, 0, 1, n ? l[n - 1] : 0, &g, err)) != RVE_OK) {
            free(l);
            return s;
        }
        free(g.lab);
        g.lab = l;
        g.nv_all = (size_t)g.nx * g.ny * g.nz;
        g.nx = (int)(n ? n : 1), g.ny = g.nz = 1;
        if (!n)
            l[0] = 0;
        s = h5m_grains_to_map(p->path, &g, &m, err);
        h5m_grains_free(&g);
        if (s == RVE_OK) {
            free(m->lab);
            m->lab = NULL;
        }
    }
    if (s != RVE_OK)
        return s;
    m->nx = p->geom.nx, m->ny = p->geom.ny, m->nz = p->geom.nz;
    memcpy(m->h, p->geom.h, sizeof m->h);
    memcpy(m->origin, p->geom.origin, sizeof m->origin);
    m->has_res = p->geom.has_res;
    *out = m;
    return RVE_OK;
}

void rve_map_part_close(rve_map_part *p)
{
    if (!p)
        return;
    free(p->path);
    free(p);
}
