/* map_hdf5.c - grain maps in HDF5 files: DREAM3D (SIMPL, file version 6/7,
 * and DREAM3D-NX, 8.0), GrainMapper3D/LabDCT and pymicro readers; a DREAM3D
 * SIMPL writer with an XDMF companion.  Orientations are stored per grain as
 * quaternions in rve's passive convention (rve/ori.h); docs/hdf5.md lists
 * the layouts and the conventions assumed for each. */
#include "config.h"
#define _POSIX_C_SOURCE 200809L
#include <hdf5.h>
#include <rve/ori.h>
#include <rve/raster.h>

#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "map_internal.h"
#include "map_hdf5_internal.h"

static void grains_free(h5grains *g)
{
    free(g->lab), free(g->vori), free(g->fori), free(g->vphase), free(g->fphase);
}

/* ------------------------------------------------------------ HDF5 helpers */
/* Does every component of path exist (H5Lexists needs the parents)? */
int h5m_exists(hid_t loc, const char *path)
{
    char buf[PATH_MAX_LEN];
    size_t n = strlen(path);
    if (n >= sizeof buf)
        return 0;
    memcpy(buf, path, n + 1);
    for (size_t i = 1; i <= n; i++)
        if (buf[i] == '/' || buf[i] == 0) {
            char c = buf[i];
            buf[i] = 0;
            htri_t e = H5Lexists(loc, buf, H5P_DEFAULT);
            buf[i] = c;
            if (e <= 0)
                return 0;
        }
    return 1;
}

rve_status h5m_ds_shape(h5r *r, const char *path, int *rank, hsize_t dims[H5_MAX_RANK])
{
    if (!h5m_exists(r->f, path))
        return rve_err_set(r->err, RVE_EDATA, r->file, "dataset %s is missing", path);
    hid_t d = H5Dopen2(r->f, path, H5P_DEFAULT);
    if (d < 0)
        return rve_err_set(r->err, RVE_EDATA, r->file, "%s is not a readable dataset", path);
    hid_t s = H5Dget_space(d);
    int k = s < 0 ? -1 : H5Sget_simple_extent_ndims(s);
    if (k >= 0 && k <= H5_MAX_RANK)
        H5Sget_simple_extent_dims(s, dims, NULL);
    H5Sclose(s);
    H5Dclose(d);
    if (k < 0 || k > H5_MAX_RANK)
        return rve_err_set(r->err, RVE_EDATA, r->file, "dataset %s: unsupported rank %d", path, k);
    *rank = k;
    return RVE_OK;
}

/* Read a whole dataset of exactly `expect` elements into memory type mt. */
rve_status h5m_ds_read(h5r *r, const char *path, hid_t mt, size_t expect, void **out)
{
    *out = NULL;
    hid_t d = H5Dopen2(r->f, path, H5P_DEFAULT);
    if (d < 0)
        return rve_err_set(r->err, RVE_EDATA, r->file, "dataset %s is missing", path);
    hid_t s = H5Dget_space(d);
    hssize_t n = H5Sget_simple_extent_npoints(s);
    H5Sclose(s);
    if (n < 0 || (size_t)n != expect) {
        H5Dclose(d);
        return rve_err_set(r->err, RVE_EDATA, r->file, "dataset %s has %lld values, expected %zu", path,
                           (long long)n, expect);
    }
    void *buf = malloc((expect ? expect : 1) * H5Tget_size(mt));
    if (!buf) {
        H5Dclose(d);
        return rve_err_set(r->err, RVE_ENOMEM, r->file, "out of memory reading %s", path);
    }
    herr_t e = H5Dread(d, mt, H5S_ALL, H5S_ALL, H5P_DEFAULT, buf);
    H5Dclose(d);
    if (e < 0) {
        free(buf);
        return rve_err_set(r->err, RVE_EDATA, r->file, "dataset %s cannot be read as numbers", path);
    }
    *out = buf;
    return RVE_OK;
}

/* Numeric attribute `name` of object `obj` into v (at most nmax values);
 * returns the count, -1 when absent or not numeric. */
int h5m_attr_doubles(hid_t loc, const char *obj, const char *name, double *v, int nmax)
{
    if (!h5m_exists(loc, obj) && strcmp(obj, "/") && strcmp(obj, "."))
        return -1;
    if (H5Aexists_by_name(loc, obj, name, H5P_DEFAULT) <= 0)
        return -1;
    hid_t a = H5Aopen_by_name(loc, obj, name, H5P_DEFAULT, H5P_DEFAULT);
    if (a < 0)
        return -1;
    hid_t s = H5Aget_space(a), t = H5Aget_type(a);
    hssize_t n = H5Sget_simple_extent_npoints(s);
    int ok = n > 0 && n <= nmax && (H5Tget_class(t) == H5T_INTEGER || H5Tget_class(t) == H5T_FLOAT);
    if (ok)
        ok = H5Aread(a, H5T_NATIVE_DOUBLE, v) >= 0;
    H5Tclose(t), H5Sclose(s), H5Aclose(a);
    return ok ? (int)n : -1;
}

/* Refuse absurd sizes before any allocation. */
rve_status h5m_check_dims(h5r *r, const char *path, const hsize_t *d, int n)
{
    double tot = 1;
    for (int i = 0; i < n; i++) {
        if (d[i] == 0 || d[i] > INT_MAX)
            return rve_err_set(r->err, RVE_EDATA, r->file, "dataset %s: dimension %d is %llu", path,
                               i, (unsigned long long)d[i]);
        tot *= (double)d[i];
    }
    if (tot > (double)RVE_MAP_MAX_VOXELS_DEFAULT)
        return rve_err_set(r->err, RVE_EDATA, r->file, "dataset %s: %.3g voxels is too many", path, tot);
    return RVE_OK;
}

/* A voxel array, whole or only the window's layers (along axis zaxis; a
 * dataset of fewer axes has one layer, read whole). */
rve_status h5m_vox_read(h5r *r, const char *path, hid_t mt, size_t expect, int zaxis, void **out, size_t *got)
{
    *got = expect;
    if (!r->win)
        return h5m_ds_read(r, path, mt, expect, out);
    *out = NULL;
    hid_t d = H5Dopen2(r->f, path, H5P_DEFAULT);
    if (d < 0)
        return rve_err_set(r->err, RVE_EDATA, r->file, "dataset %s is missing", path);
    hid_t s = H5Dget_space(d), ms = -1;
    hssize_t n = H5Sget_simple_extent_npoints(s);
    hsize_t dims[H5_MAX_RANK], start[H5_MAX_RANK] = {0};
    int k = H5Sget_simple_extent_ndims(s);
    if (n < 0 || (size_t)n != expect || k < 1 || k > H5_MAX_RANK) {
        H5Sclose(s), H5Dclose(d);
        return rve_err_set(r->err, RVE_EDATA, r->file, "dataset %s has %lld values, expected %zu", path,
                           (long long)n, expect);
    }
    H5Sget_simple_extent_dims(s, dims, NULL);
    size_t m = expect;
    if (zaxis < k && dims[zaxis] > 0) {
        m = expect / dims[zaxis] * (size_t)(r->wk1 - r->wk0);
        start[zaxis] = (hsize_t)r->wk0, dims[zaxis] = (hsize_t)(r->wk1 - r->wk0);
    }
    hsize_t mn = m;
    void *buf = malloc((m ? m : 1) * H5Tget_size(mt));
    herr_t e = -1;
    if (buf && H5Sselect_hyperslab(s, H5S_SELECT_SET, start, NULL, dims, NULL) >= 0 &&
        (ms = H5Screate_simple(1, &mn, NULL)) >= 0)
        e = H5Dread(d, mt, ms, s, H5P_DEFAULT, buf);
    if (ms >= 0)
        H5Sclose(ms);
    H5Sclose(s), H5Dclose(d);
    if (!buf)
        return rve_err_set(r->err, RVE_ENOMEM, r->file, "out of memory reading %s", path);
    if (e < 0) {
        free(buf);
        return rve_err_set(r->err, RVE_EDATA, r->file, "dataset %s cannot be read as numbers", path);
    }
    *out = buf;
    *got = m;
    return RVE_OK;
}

/* The element class of dataset `path` (H5T_NO_CLASS when it cannot be
 * opened); *uns: an unsigned integer type. */
static H5T_class_t ds_class(h5r *r, const char *path, int *uns)
{
    H5T_class_t c = H5T_NO_CLASS;
    *uns = 0;
    hid_t d = H5Dopen2(r->f, path, H5P_DEFAULT);
    if (d < 0)
        return c;
    hid_t t = H5Dget_type(d);
    if (t >= 0) {
        c = H5Tget_class(t);
        *uns = c == H5T_INTEGER && H5Tget_sign(t) == H5T_SGN_NONE;
        H5Tclose(t);
    }
    H5Dclose(d);
    return c;
}

/* One label from a file value (negative: void); 0 when it is no label. */
static int label_of(h5r *r, const char *path, double v, uint32_t *l)
{
    if (!(v == floor(v))) { /* NaN or fractional */
        rve_err_set(r->err, RVE_EDATA, r->file, "dataset %s: grain id %g is not an integer", path, v);
        return 0;
    }
    if (v > (double)RVE_MAP_LABEL_MAX) {
        rve_err_set(r->err, RVE_EDATA, r->file, "dataset %s: grain id %.17g too large", path, v);
        return 0;
    }
    *l = v > 0 ? (uint32_t)v : 0;
    return 1;
}

/* Labels from any integer type, signed or not, or from floating-point
 * values that are all integers; negative values are void. */
rve_status h5m_read_labels(h5r *r, const char *path, size_t n, int zaxis, uint32_t **out)
{
    int uns;
    H5T_class_t c = ds_class(r, path, &uns);
    if (c != H5T_INTEGER && c != H5T_FLOAT && c != H5T_NO_CLASS)
        return rve_err_set(r->err, RVE_EDATA, r->file, "dataset %s: grain ids must be numbers (HDF5 type class %d)",
                           path, (int)c);
    hid_t mt = c == H5T_FLOAT ? H5T_NATIVE_DOUBLE : uns ? H5T_NATIVE_ULLONG : H5T_NATIVE_LLONG;
    void *t; /* 8-byte elements of type mt */
    rve_status s = h5m_vox_read(r, path, mt, n, zaxis, &t, &n);
    if (s != RVE_OK)
        return s;
    uint32_t *l = malloc((n ? n : 1) * sizeof *l);
    if (!l) {
        free(t);
        return rve_err_set(r->err, RVE_ENOMEM, r->file, "out of memory reading %s", path);
    }
    const long long *ti = t;
    const unsigned long long *tu = t;
    const double *td = t;
    int ok = 1;
    for (size_t i = 0; ok && i < n; i++) {
        if (c == H5T_FLOAT) {
            ok = label_of(r, path, td[i], &l[i]);
        } else if (uns ? tu[i] > RVE_MAP_LABEL_MAX : ti[i] > (long long)RVE_MAP_LABEL_MAX) {
            if (uns)
                rve_err_set(r->err, RVE_EDATA, r->file, "dataset %s: grain id %llu too large", path, tu[i]);
            else
                rve_err_set(r->err, RVE_EDATA, r->file, "dataset %s: grain id %lld too large", path, ti[i]);
            ok = 0;
        } else {
            l[i] = uns ? (uint32_t)tu[i] : ti[i] > 0 ? (uint32_t)ti[i] : 0;
        }
    }
    free(t);
    if (!ok) {
        free(l);
        return RVE_EDATA;
    }
    *out = l;
    return RVE_OK;
}

rve_status h5m_read_ints(h5r *r, const char *path, size_t n, int **out)
{
    return h5m_ds_read(r, path, H5T_NATIVE_INT, n, (void **)out);
}

/* ------------------------------------------------------- symmetry helpers */
/* DREAM3D's CrystalStructures codes; the lower Laue groups become the
 * largest proper-rotation subgroup rve has (a mean over fewer equivalents
 * stays correct for grains whose voxel orientations are close). */
static rve_laue laue_dream3d(unsigned c)
{
    switch (c) {
    case 0: return RVE_LAUE_HEXAGONAL;    /* 6/mmm */
    case 1: return RVE_LAUE_CUBIC;        /* m-3m */
    case 3: return RVE_LAUE_ORTHORHOMBIC; /* m-3 */
    case 5: return RVE_LAUE_MONOCLINIC;
    case 6: return RVE_LAUE_ORTHORHOMBIC;
    case 8: return RVE_LAUE_TETRAGONAL;   /* 4/mmm */
    case 10: return RVE_LAUE_TRIGONAL;    /* -3m */
    default: return RVE_LAUE_TRICLINIC;   /* 6/m, 4/m, -3, -1, unknown */
    }
}

rve_laue h5m_laue_spacegroup(int sg)
{
    if (sg >= 207) return RVE_LAUE_CUBIC;
    if (sg >= 195) return RVE_LAUE_ORTHORHOMBIC;
    if (sg >= 177) return RVE_LAUE_HEXAGONAL;
    if (sg >= 149 && sg <= 167) return RVE_LAUE_TRIGONAL;
    if (sg >= 89 && sg <= 142) return RVE_LAUE_TETRAGONAL;
    if (sg >= 16 && sg <= 74) return RVE_LAUE_ORTHORHOMBIC;
    if (sg >= 3 && sg <= 15) return RVE_LAUE_MONOCLINIC;
    return RVE_LAUE_TRICLINIC;
}

/* ------------------------------------------------- grains -> rve_map */
/* Validate one orientation and convert it (dataset path in the message). */
static rve_status one_ori(h5r *r, const rve_ori_spec *sp, const double *v, const char *path,
                          size_t row, double q[4])
{
    rve_err e;
    if (rve_ori_to_quat(sp, v, q, &e) != RVE_OK)
        return rve_err_set(r->err, RVE_EDATA, r->file, "dataset %s, entry %zu: %s", path, row, e.msg);
    return RVE_OK;
}

/* Per-grain mean of voxel orientations, grouped by label with a counting sort. */
static rve_status mean_from_voxels(h5r *r, const h5grains *g, rve_map *m)
{
    size_t nv = rve_map_nvox(m), nl = m->nlabels;
    size_t *start = calloc(nl + 2, sizeof *start), *idx = NULL;
    double *q = NULL;
    rve_status s = RVE_OK;
    if (!start || !(idx = malloc((nv ? nv : 1) * sizeof *idx)) || !(m->gos = calloc(nl ? nl : 1, sizeof *m->gos)))
        s = rve_err_set(r->err, RVE_ENOMEM, r->file, "out of memory (orientations)");
    for (size_t v = 0; s == RVE_OK && v < nv; v++)
        start[m->lab[v] + 1]++;
    for (size_t l = 1; s == RVE_OK && l <= nl + 1; l++)
        start[l] += start[l - 1];
    size_t maxn = 0;
    for (size_t l = 1; s == RVE_OK && l <= nl; l++)
        maxn = start[l + 1] - start[l] > maxn ? start[l + 1] - start[l] : maxn;
    if (s == RVE_OK && !(q = malloc((maxn ? maxn : 1) * 4 * sizeof *q)))
        s = rve_err_set(r->err, RVE_ENOMEM, r->file, "out of memory (orientations)");
    if (s == RVE_OK) {
        size_t *pos = calloc(nl + 1, sizeof *pos);
        if (!pos)
            s = rve_err_set(r->err, RVE_ENOMEM, r->file, "out of memory (orientations)");
        for (size_t v = 0; s == RVE_OK && v < nv; v++) {
            uint32_t l = m->lab[v];
            idx[start[l] + pos[l]++] = v;
        }
        free(pos);
    }
    for (size_t l = 1; s == RVE_OK && l <= nl; l++) {
        size_t k = start[l + 1] - start[l];
        double *mq = m->ori + 4 * (l - 1);
        if (k == 0) { /* absent label: identity, no spread */
            mq[0] = 1, mq[1] = mq[2] = mq[3] = 0;
            continue;
        }
        for (size_t j = 0; j < k && s == RVE_OK; j++) {
            size_t v = idx[start[l] + j];
            s = one_ori(r, &g->vspec, g->vori + (size_t)g->vori_n * v, g->vpath, v, q + 4 * j);
        }
        int ph = g->vphase ? g->vphase[idx[start[l]]] : (m->phase ? m->phase[l - 1] : 0);
        rve_laue lg = ph >= 0 && ph < MAX_PHASES ? g->laue[ph] : RVE_LAUE_TRICLINIC;
        if (s == RVE_OK)
            s = rve_ori_mean(q, NULL, k, lg, mq, r->err);
        double mx;
        if (s == RVE_OK)
            rve_ori_spread(q, k, lg, mq, &m->gos[l - 1], &mx);
    }
    free(start), free(idx), free(q);
    return s;
}

/* m->crysym: the symmetry of the phases of the map's grains, when the file
 * gave it and it is the same for all (a .tess has one *crysym).  Grains without
 * phases take the file's only phase, if it has one. */
static rve_status map_crysym(h5r *r, const h5grains *g, rve_map *m)
{
    int common = -1, nknown = 0, only = -1;
    for (int ph = 1; ph < MAX_PHASES; ph++)
        if (g->known[ph])
            nknown++, only = ph;
    if (!m->phase && nknown == 1)
        common = (int)g->laue[only];
    /* ids absent from the map (sparse tables) have no phase: not counted */
    char *present = m->phase ? calloc((size_t)m->nlabels + 1, 1) : NULL;
    if (m->phase && !present)
        return rve_err_set(r->err, RVE_ENOMEM, r->file, "out of memory");
    size_t nv = rve_map_nvox(m);
    for (size_t v = 0; present && v < nv; v++)
        present[m->lab[v]] = 1;
    int mixed = 0;
    for (size_t l = 1; present && l <= m->nlabels && !mixed; l++) {
        int ph = m->phase[l - 1];
        if (!present[l])
            continue;
        mixed = ph <= 0 || ph >= MAX_PHASES || !g->known[ph] || (common >= 0 && common != (int)g->laue[ph]);
        if (!mixed)
            common = (int)g->laue[ph];
    }
    free(present);
    if (!mixed && common >= 0 && !(m->crysym = strdup(rve_laue_name((rve_laue)common))))
        return rve_err_set(r->err, RVE_ENOMEM, r->file, "out of memory");
    return RVE_OK;
}

static rve_status grains_to_map(h5r *r, h5grains *g, rve_map **out)
{
    /* every layout's geometry ends here: one check for all of them (a
     * pymicro origin or a LabDCT centre of NaN or beyond the doubles once
     * passed) */
    for (int a = 0; a < 3; a++)
        if (!(g->h[a] > 0) || !isfinite(g->h[a]) || !isfinite(g->origin[a]))
            return rve_err_set(r->err, RVE_EDATA, r->file,
                               "%c voxel size %g and origin %g: both must be finite, the size above 0", 'x' + a,
                               g->h[a], g->origin[a]);
    rve_map *m = calloc(1, sizeof *m);
    if (!m)
        return rve_err_set(r->err, RVE_ENOMEM, r->file, "out of memory");
    m->nx = g->nx, m->ny = g->ny, m->nz = g->nz;
    memcpy(m->h, g->h, sizeof m->h);
    memcpy(m->origin, g->origin, sizeof m->origin);
    m->has_res = g->has_res;
    m->lab = g->lab;
    g->lab = NULL;
    size_t nv = rve_map_nvox(m);
    for (size_t v = 0; v < nv; v++)
        m->nlabels = m->lab[v] > m->nlabels ? m->lab[v] : m->nlabels;
    size_t nl = m->nlabels;
    rve_status s = RVE_OK;
    if (g->fori && g->nfeat <= nl)
        s = rve_err_set(r->err, RVE_EDATA, r->file, "dataset %s has %zu rows, fewer than the largest grain id %zu + 1",
                        g->fpath, g->nfeat, nl);
    /* ids far above the voxel count: the per-label tables below are sized
     * by the grains present (labels renumbered, ids kept; feature tables
     * are read by id) */
    if (s == RVE_OK && nl > 2 * (g->nv_all ? g->nv_all : nv) + 4096 && (g->fphase || g->vphase || g->fori || g->vori)) {
        s = rve_map_renumber(m, r->err);
        nl = m->nlabels;
    }
    if (s == RVE_OK && (g->fphase || g->vphase) && nl) {
        if (!(m->phase = calloc(nl, sizeof *m->phase)))
            s = rve_err_set(r->err, RVE_ENOMEM, r->file, "out of memory");
        for (size_t l = 1; s == RVE_OK && g->fphase && l <= nl; l++)
            if (rve_map_id(m, (uint32_t)l) < g->nfeat)
                m->phase[l - 1] = g->fphase[rve_map_id(m, (uint32_t)l)];
        for (size_t v = 0; s == RVE_OK && !g->fphase && v < nv; v++) /* last voxel's phase wins */
            if (m->lab[v])
                m->phase[m->lab[v] - 1] = g->vphase[v];
    }
    if (s == RVE_OK)
        s = map_crysym(r, g, m);
    if (s == RVE_OK && (g->fori || g->vori) && nl) {
        m->ori_n = 4;
        if (!(m->ori = malloc(nl * 4 * sizeof *m->ori)) || !(m->ori_des = strdup("quaternion")))
            s = rve_err_set(r->err, RVE_ENOMEM, r->file, "out of memory");
        char *present = g->fori ? calloc(nl + 1, 1) : NULL;
        if (g->fori && !present)
            s = rve_err_set(r->err, RVE_ENOMEM, r->file, "out of memory");
        for (size_t v = 0; present && v < nv; v++)
            present[m->lab[v]] = 1;
        for (size_t l = 1; s == RVE_OK && g->fori && l <= nl; l++) {
            double *mq = m->ori + 4 * (l - 1);
            if (!present[l]) { /* ids absent from the map (sparse tables): identity */
                mq[0] = 1, mq[1] = mq[2] = mq[3] = 0;
                continue;
            }
            s = one_ori(r, &g->fspec, g->fori + (size_t)g->fori_n * rve_map_id(m, (uint32_t)l), g->fpath, l, mq);
        }
        free(present);
        if (s == RVE_OK && !g->fori)
            s = mean_from_voxels(r, g, m);
    }
    if (s != RVE_OK) {
        rve_map_free(m);
        return s;
    }
    *out = m;
    return RVE_OK;
}

/* ------------------------------------------------ finding arrays by name */
typedef struct {
    const char *name;
    const char *base;
    int nz, ny, nx;   /* > 0: the dataset must start with (Z, Y, X) */
    char found[PATH_MAX_LEN];
} finder;

static herr_t find_cb(hid_t grp, const char *rel, const H5L_info_t *info, void *data)
{
    finder *fd = data;
    const char *b = strrchr(rel, '/');
    b = b ? b + 1 : rel;
    if (strcmp(b, fd->name))
        return 0;
    hid_t d = H5Dopen2(grp, rel, H5P_DEFAULT);
    if (d < 0)
        return 0;
    hid_t s = H5Dget_space(d);
    hsize_t dims[H5_MAX_RANK];
    int k = H5Sget_simple_extent_ndims(s), ok = k > 0 && k <= H5_MAX_RANK;
    if (ok)
        H5Sget_simple_extent_dims(s, dims, NULL);
    if (ok && fd->nx > 0)
        ok = k >= 3 && dims[0] == (hsize_t)fd->nz && dims[1] == (hsize_t)fd->ny && dims[2] == (hsize_t)fd->nx;
    H5Sclose(s), H5Dclose(d);
    if (!ok)
        return 0;
    snprintf(fd->found, sizeof fd->found, "%s/%s", fd->base, rel);
    return 1; /* stop */
}

/* First dataset called `name` below group `base` (with the cell shape when
 * nx > 0); 0 when there is none. */
static int find_dataset(h5r *r, const char *base, const char *name, int nx, int ny, int nz,
                        char out[PATH_MAX_LEN])
{
    finder fd = {name, base, nz, ny, nx, ""};
    hid_t grp = H5Gopen2(r->f, base, H5P_DEFAULT);
    if (grp < 0)
        return 0;
    H5Lvisit(grp, H5_INDEX_NAME, H5_ITER_INC, find_cb, &fd);
    H5Gclose(grp);
    if (!fd.found[0])
        return 0;
    memcpy(out, fd.found, PATH_MAX_LEN);
    return 1;
}

/* A cell array shaped (Z, Y, X[, ncomp]) -> doubles, x fastest. */
rve_status h5m_read_cell(h5r *r, const char *path, const h5grains *g, int ncomp, hid_t mt,
                            void **out)
{
    int rank;
    hsize_t d[H5_MAX_RANK];
    rve_status s = h5m_ds_shape(r, path, &rank, d);
    if (s != RVE_OK)
        return s;
    int ok = rank >= 3 && d[0] == (hsize_t)g->nz && d[1] == (hsize_t)g->ny && d[2] == (hsize_t)g->nx &&
             (rank == 3 ? ncomp == 1 : rank == 4 && d[3] == (hsize_t)ncomp);
    if (!ok)
        return rve_err_set(r->err, RVE_EDATA, r->file,
                           "dataset %s: shape does not match the grain ids (%d x %d x %d x %d)", path,
                           g->nz, g->ny, g->nx, ncomp);
    size_t got;
    return h5m_vox_read(r, path, mt, rve_map_nvox(&(rve_map){.nx = g->nx, .ny = g->ny, .nz = g->nz}) * (size_t)ncomp, 0,
                        out, &got);
}

/* Grain ids found by name and shape: the dataset fixes nx, ny, nz. */
rve_status h5m_read_ids_zyx(h5r *r, const char *path, h5grains *g)
{
    int rank;
    hsize_t d[H5_MAX_RANK];
    rve_status s = h5m_ds_shape(r, path, &rank, d);
    if (s != RVE_OK)
        return s;
    if (rank < 3 || (rank == 4 && d[3] != 1) || rank > 4)
        return rve_err_set(r->err, RVE_EDATA, r->file, "dataset %s: expected (Z, Y, X[, 1]) grain ids", path);
    if ((s = h5m_check_dims(r, path, d, 3)) != RVE_OK)
        return s;
    g->nz = (int)d[0], g->ny = (int)d[1], g->nx = (int)d[2];
    return h5m_read_labels(r, path, (size_t)d[0] * d[1] * d[2], 0, &g->lab);
}

rve_status h5m_apply_mask(h5r *r, const char *path, h5grains *g)
{
    int *mk;
    rve_status s = h5m_read_cell(r, path, g, 1, H5T_NATIVE_INT, (void **)&mk);
    if (s != RVE_OK)
        return s;
    size_t nv = (size_t)g->nx * g->ny * h5m_nz(r, g);
    for (size_t v = 0; v < nv; v++)
        if (!mk[v])
            g->lab[v] = 0;
    free(mk);
    return RVE_OK;
}

static void dirname_of(const char *p, char out[PBUF])
{
    snprintf(out, PBUF, "%s", p);
    char *s = strrchr(out, '/');
    if (s && s != out)
        *s = 0;
}

/* --------------------------------------------------------------- DREAM3D */
typedef struct {
    char path[PATH_MAX_LEN];
    const char *attr; /* the group must carry this attribute (NULL: this child group) */
    const char *child;
    const char *base;
} groupfind;

static herr_t group_cb(hid_t grp, const char *rel, const H5L_info_t *info, void *data)
{
    groupfind *gf = data;
    int hit = gf->attr ? H5Aexists_by_name(grp, rel, gf->attr, H5P_DEFAULT) > 0 : 0;
    if (!gf->attr) {
        char p[PATH_MAX_LEN];
        snprintf(p, sizeof p, "%s/%s", rel, gf->child);
        hit = H5Lexists(grp, rel, H5P_DEFAULT) > 0 && !strchr(rel, '/') && H5Lexists(grp, p, H5P_DEFAULT) > 0;
    }
    if (hit) {
        snprintf(gf->path, sizeof gf->path, "%s/%s", gf->base, rel);
        return 1;
    }
    return 0;
}

static int find_group(h5r *r, const char *base, const char *attr, const char *child, char out[PATH_MAX_LEN])
{
    groupfind gf = {"", attr, child, base};
    hid_t grp = H5Gopen2(r->f, base, H5P_DEFAULT);
    if (grp < 0)
        return 0;
    H5Lvisit(grp, H5_INDEX_NAME, H5_ITER_INC, group_cb, &gf);
    H5Gclose(grp);
    if (!gf.path[0])
        return 0;
    memcpy(out, gf.path, PATH_MAX_LEN);
    return 1;
}

/* Image geometry: dim (x, y, z as the file gives them), spacing, origin. */
static rve_status dream3d_geometry(h5r *r, const char *dc, int nx_layout, double dim[3], h5grains *g)
{
    double org[3] = {0, 0, 0}, sp[3] = {1, 1, 1};
    char p[PBUF];
    int nd, ns;
    if (nx_layout) {
        nd = h5m_attr_doubles(r->f, dc, "_DIMENSIONS", dim, 3);
        if ((H5Aexists_by_name(r->f, dc, "_ORIGIN", H5P_DEFAULT) > 0 &&
             h5m_attr_doubles(r->f, dc, "_ORIGIN", org, 3) != 3) ||
            ((ns = h5m_attr_doubles(r->f, dc, "_SPACING", sp, 3)) != 3 &&
             H5Aexists_by_name(r->f, dc, "_SPACING", H5P_DEFAULT) > 0))
            return rve_err_set(r->err, RVE_EDATA, r->file, "%s: _ORIGIN or _SPACING is not 3 numbers", dc);
    } else {
        double *v;
        snprintf(p, sizeof p, "%s/_SIMPL_GEOMETRY/DIMENSIONS", dc);
        nd = -1;
        if (h5m_exists(r->f, p) && h5m_ds_read(r, p, H5T_NATIVE_DOUBLE, 3, (void **)&v) == RVE_OK)
            memcpy(dim, v, 3 * sizeof *dim), free(v), nd = 3;
        snprintf(p, sizeof p, "%s/_SIMPL_GEOMETRY/ORIGIN", dc);
        if (h5m_exists(r->f, p)) { /* present: 3 numbers, or the file is refused */
            if (h5m_ds_read(r, p, H5T_NATIVE_DOUBLE, 3, (void **)&v) != RVE_OK)
                return r->err ? r->err->code : RVE_EDATA;
            memcpy(org, v, sizeof org), free(v);
        }
        ns = -1;
        snprintf(p, sizeof p, "%s/_SIMPL_GEOMETRY/SPACING", dc);
        if (!h5m_exists(r->f, p)) /* older files */
            snprintf(p, sizeof p, "%s/_SIMPL_GEOMETRY/RESOLUTION", dc);
        if (h5m_exists(r->f, p)) {
            if (h5m_ds_read(r, p, H5T_NATIVE_DOUBLE, 3, (void **)&v) != RVE_OK)
                return r->err ? r->err->code : RVE_EDATA;
            memcpy(sp, v, sizeof sp), free(v), ns = 3;
        }
    }
    rve_err_clear(r->err);
    if (nd != 3)
        return rve_err_set(r->err, RVE_EDATA, r->file, "%s: no image geometry dimensions", dc);
    for (int a = 0; a < 3; a++)
        if (!(dim[a] >= 1 && dim[a] <= INT_MAX))
            return rve_err_set(r->err, RVE_EDATA, r->file, "%s: geometry dimension %g", dc, dim[a]);
    if (!(sp[0] > 0 && sp[1] > 0 && sp[2] > 0) || !isfinite(org[0] + org[1] + org[2]))
        return rve_err_set(r->err, RVE_EDATA, r->file, "%s: bad spacing or origin", dc);
    memcpy(g->h, sp, sizeof sp);
    memcpy(g->origin, org, sizeof org);
    g->has_res = ns == 3;
    return RVE_OK;
}

/* DREAM3D stores quaternions vector part first, (x, y, z, w). */
static void xyzw_to_wxyz(double *v, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        double w = v[4 * i + 3];
        memmove(v + 4 * i + 1, v + 4 * i, 3 * sizeof *v);
        v[4 * i] = w;
    }
}

static int ends_with(const char *s, const char *t)
{
    size_t ls = strlen(s), lt = strlen(t);
    return ls >= lt && !strcmp(s + ls - lt, t);
}

/* Feature orientations (AvgEulerAngles, Bunge radians, else AvgQuats; row 0
 * the background), their Phases, and the ensemble's CrystalStructures. */
static rve_status dream3d_features(h5r *r, const rve_hdf5_opts *o, const char *dc, h5grains *g)
{
    const char *names[2] = {o && o->feature_ori ? o->feature_ori : "AvgEulerAngles", "AvgQuats"};
    char p[PBUF];
    int rank;
    hsize_t d[H5_MAX_RANK];
    rve_status s;
    for (int k = 0; k < (o && o->feature_ori ? 1 : 2); k++) {
        if (!find_dataset(r, dc, names[k], 0, 0, 0, g->fpath))
            continue;
        int quat = ends_with(names[k], "Quats"), nc = quat ? 4 : 3;
        if ((s = h5m_ds_shape(r, g->fpath, &rank, d)) != RVE_OK)
            return s;
        if (rank != 2 || d[1] != (hsize_t)nc || d[0] > (hsize_t)MAX_FEATURES)
            return rve_err_set(r->err, RVE_EDATA, r->file, "dataset %s: expected (features, %d), at most 2^28 rows",
                               g->fpath, nc);
        g->nfeat = (size_t)d[0], g->fori_n = nc;
        g->fspec = (rve_ori_spec){quat ? RVE_ORI_QUATERNION : RVE_ORI_EULER_BUNGE, RVE_ORI_PASSIVE, 0};
        if ((s = h5m_ds_read(r, g->fpath, H5T_NATIVE_DOUBLE, g->nfeat * nc, (void **)&g->fori)) != RVE_OK)
            return s;
        if (quat)
            xyzw_to_wxyz(g->fori, g->nfeat);
        dirname_of(g->fpath, p);
        strncat(p, "/Phases", sizeof p - strlen(p) - 1);
        if (h5m_exists(r->f, p) && (s = h5m_read_ints(r, p, g->nfeat, &g->fphase)) != RVE_OK)
            return s;
        break;
    }
    if (find_dataset(r, dc, "CrystalStructures", 0, 0, 0, p) && h5m_ds_shape(r, p, &rank, d) == RVE_OK &&
        d[0] <= MAX_PHASES) {
        unsigned *cs;
        size_t n = (size_t)d[0] * (rank > 1 ? d[1] : 1);
        if ((s = h5m_ds_read(r, p, H5T_NATIVE_UINT, n, (void **)&cs)) != RVE_OK)
            return s;
        for (size_t i = 0; i < n && i < MAX_PHASES; i++) {
            g->laue[i] = laue_dream3d(cs[i]);
            g->known[i] = cs[i] <= 10; /* 999: unknown */
        }
        free(cs);
    }
    return RVE_OK;
}

static rve_status read_dream3d(h5r *r, const rve_hdf5_opts *o, h5grains *g, int nx_layout)
{
    char dc[PATH_MAX_LEN], p[PBUF], cell[PBUF];
    const char *mkn = o && o->mask ? o->mask : "Mask", *phn = o && o->phase ? o->phase : "Phases";
    const char *orn = o && o->ori ? o->ori : "EulerAngles";
    const char *top = nx_layout ? "/DataStructure" : "/DataContainers";
    if (!(nx_layout ? find_group(r, top, "_DIMENSIONS", NULL, dc)
                    : find_group(r, top, NULL, "_SIMPL_GEOMETRY/DIMENSIONS", dc)))
        return rve_err_set(r->err, RVE_EDATA, r->file, "%s: no image geometry", top);
    double dim[3];
    rve_status s = dream3d_geometry(r, dc, nx_layout, dim, g);
    if (s != RVE_OK)
        return s;
    /* the cell-data group is the one whose grain ids have the geometry's
     * shape (Z, Y, X); group names vary between files */
    const char *idn = o && o->ids ? o->ids : "FeatureIds";
    int nx = (int)dim[0], ny = (int)dim[1], nz = (int)dim[2];
    if (!find_dataset(r, dc, idn, nx, ny, nz, p) && !find_dataset(r, dc, idn, nz, ny, nx, p) &&
        !find_dataset(r, dc, idn, 0, 0, 0, p))
        return rve_err_set(r->err, RVE_EDATA, r->file, "%s: no dataset %s", dc, idn);
    if ((s = h5m_read_ids_zyx(r, p, g)) != RVE_OK)
        return s;
    if (!(nx == g->nx && ny == g->ny && nz == g->nz) && !(nz == g->nx && ny == g->ny && nx == g->nz))
        return rve_err_set(r->err, RVE_EDATA, r->file,
                           "dataset %s: shape %d x %d x %d disagrees with the geometry %d x %d x %d of %s", p,
                           g->nz, g->ny, g->nx, nx, ny, nz, dc);
    dirname_of(p, cell);
    /* found paths are < PATH_MAX_LEN: longer option names are refused here */
    if (strlen(cell) + 2 + strlen(mkn) + strlen(phn) + strlen(orn) >= PATH_MAX_LEN)
        return rve_err_set(r->err, RVE_EUSAGE, r->file, "array names too long");
    /* arrays named by the caller must exist; the usual ones are optional */
    const char *named[3] = {o ? o->mask : NULL, o ? o->phase : NULL, o ? o->ori : NULL};
    const char *nm3[3] = {mkn, phn, orn};
    for (int i = 0; i < 3; i++) {
        snprintf(p, sizeof p, "%.400s/%.400s", cell, nm3[i]);
        if (named[i] && !h5m_exists(r->f, p))
            return rve_err_set(r->err, RVE_EDATA, r->file, "dataset %s is missing", p);
    }
    snprintf(p, sizeof p, "%.400s/%.400s", cell, mkn);
    if (h5m_exists(r->f, p) && (s = h5m_apply_mask(r, p, g)) != RVE_OK)
        return s;
    snprintf(p, sizeof p, "%.400s/%.400s", cell, phn);
    if (h5m_exists(r->f, p) && (s = h5m_read_cell(r, p, g, 1, H5T_NATIVE_INT, (void **)&g->vphase)) != RVE_OK)
        return s;
    snprintf(g->vpath, sizeof g->vpath, "%.400s/%.400s", cell, orn);
    if (!(o && o->ori) && !h5m_exists(r->f, g->vpath)) /* no Euler angles: quaternions? */
        snprintf(g->vpath, sizeof g->vpath, "%.400s/Quats", cell);
    if (h5m_exists(r->f, g->vpath)) {
        int quat = ends_with(g->vpath, "Quats");
        g->vori_n = quat ? 4 : 3;
        g->vspec = (rve_ori_spec){quat ? RVE_ORI_QUATERNION : RVE_ORI_EULER_BUNGE, RVE_ORI_PASSIVE, 0};
        if ((s = h5m_read_cell(r, g->vpath, g, g->vori_n, H5T_NATIVE_DOUBLE, (void **)&g->vori)) != RVE_OK)
            return s;
        if (quat)
            xyzw_to_wxyz(g->vori, (size_t)g->nx * g->ny * h5m_nz(r, g));
    }
    return dream3d_features(r, o, dc, g);
}

/* ---------------------------------------------------------------- reader */
/* the 8 bytes an HDF5 file starts with */
static const unsigned char sig[8] = {0x89, 'H', 'D', 'F', '\r', '\n', 0x1a, '\n'};

/* HDF5 files start with the signature, or carry it after a user block of
 * 512, 1024, 2048, ... bytes (the superblock search of the HDF5 format
 * specification). */
int rve_map_is_hdf5(const char *path)
{
    unsigned char b[8];
    FILE *f = fopen(path, "rb");
    if (!f)
        return 0;
    int ok = 0;
    for (long off = 0; !ok && off <= (1L << 30); off = off ? 2 * off : 512)
        if (fseek(f, off, SEEK_SET) != 0 || fread(b, 1, 8, f) != 8)
            break;
        else
            ok = !memcmp(b, sig, 8);
    fclose(f);
    return ok;
}

/* The layout reader on path opened with the file-access list fapl (when
 * it cannot open the file and fapl is not the default one, the default):
 * g filled, with only the layers [k0, k1) of the voxel arrays when win is
 * set.  On failure g is freed. */
rve_status h5m_read_grains(const char *path, hid_t fapl, const rve_hdf5_opts *o, int win, int k0, int k1,
                           uint32_t maxid, h5grains *g, rve_err *err)
{
    /* the HDF5 library prints its error stack by default: not from a library */
    H5E_auto2_t efunc;
    void *edata;
    H5Eget_auto2(H5E_DEFAULT, &efunc, &edata);
    H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
    h5r r = {H5Fopen(path, H5F_ACC_RDONLY, fapl), path, err, win, k0, k1, maxid};
    if (r.f < 0 && fapl != H5P_DEFAULT)
        r.f = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
    memset(g, 0, sizeof *g);
    g->h[0] = g->h[1] = g->h[2] = 1;
    rve_status s;
    if (r.f < 0)
        s = rve_err_set(err, RVE_EDATA, path, "HDF5 file cannot be opened");
    else if (h5m_exists(r.f, "/CellData/grain_map") || (o && o->ids && h5m_exists(r.f, "/CellData")))
        s = h5m_read_pymicro(&r, o, g);
    else if (h5m_exists(r.f, "/LabDCT/Data"))
        s = h5m_read_labdct(&r, o, g);
    else if (h5m_exists(r.f, "/DataStructure"))
        s = read_dream3d(&r, o, g, 1);
    else if (h5m_exists(r.f, "/DataContainers"))
        s = read_dream3d(&r, o, g, 0);
    else
        s = rve_err_set(err, RVE_EDATA, path,
                        "unknown HDF5 layout (expected /DataContainers, /DataStructure, /LabDCT/Data or /CellData/grain_map)");
    if (s == RVE_OK && win && (k0 < 0 || k1 > g->nz || k1 <= k0))
        s = rve_err_set(err, RVE_EINTERNAL, path, "layers %d..%d outside the map", k0, k1);
    if (s != RVE_OK)
        h5m_grains_free(g);
    if (r.f >= 0)
        H5Fclose(r.f);
    H5Eset_auto2(H5E_DEFAULT, efunc, edata);
    return s;
}

void h5m_grains_free(h5grains *g)
{
    grains_free(g);
    memset(g, 0, sizeof *g);
}

rve_status h5m_grains_to_map(const char *path, h5grains *g, rve_map **out, rve_err *err)
{
    h5r r = {-1, path, err, 0, 0, 0, 0};
    return grains_to_map(&r, g, out);
}

/* The reader proper, from path opened with the file-access list fapl. */
static rve_status read_hdf5_fapl(const char *path, hid_t fapl, const rve_hdf5_opts *o, rve_map **out,
                                 rve_err *err)
{
    h5grains g;
    rve_status s = h5m_read_grains(path, fapl, o, 0, 0, 0, 0, &g, err);
    if (s == RVE_OK)
        s = h5m_grains_to_map(path, &g, out, err);
    h5m_grains_free(&g);
    return s;
}

rve_status rve_map_read_hdf5(const char *path, const rve_hdf5_opts *o, rve_map **out, rve_err *err)
{
    *out = NULL;
    if (!rve_map_is_hdf5(path)) {
        FILE *t = fopen(path, "rb");
        if (!t)
            return rve_err_set(err, RVE_EIO, path, "cannot open");
        fclose(t);
        return rve_err_set(err, RVE_EDATA, path, "not an HDF5 file");
    }
    return read_hdf5_fapl(path, H5P_DEFAULT, o, out, err);
}

rve_status rve_map_read_hdf5_mem(const void *buf, size_t n, const char *name, const rve_hdf5_opts *o,
                                 rve_map **out, rve_err *err)
{
    *out = NULL;
    int found = 0;
    for (size_t off = 0; !found && n >= 8 && off <= n - 8 && off <= ((size_t)1 << 30); off = off ? 2 * off : 512)
        found = !memcmp((const char *)buf + off, sig, 8);
    if (!found)
        return rve_err_set(err, RVE_EDATA, name, "not an HDF5 file");
    /* the core driver reads the image in memory; no backing store */
    hid_t fapl = H5Pcreate(H5P_FILE_ACCESS);
    if (fapl < 0 || H5Pset_fapl_core(fapl, 1 << 16, 0) < 0 || H5Pset_file_image(fapl, (void *)buf, n) < 0) {
        if (fapl >= 0)
            H5Pclose(fapl);
        return rve_err_set(err, RVE_ENOMEM, name, "cannot set up an in-memory HDF5 file");
    }
    rve_status s = read_hdf5_fapl(name, fapl, o, out, err);
    H5Pclose(fapl);
    return s;
}
