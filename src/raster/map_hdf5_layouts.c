/* map_hdf5_layouts.c - the pymicro and GrainMapper3D/LabDCT layouts of
 * HDF5 grain maps (docs/hdf5.md); the shared helpers, DREAM3D and the
 * dispatch are in map_hdf5.c. */
#include "config.h"
#define _POSIX_C_SOURCE 200809L
#include <hdf5.h>
#include <rve/ori.h>
#include <rve/raster.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "map_hdf5_internal.h"

/* ------------------------------------------------------------- pymicro */
/* pymicro stores images indexed [x, y, z] (C order: z fastest). */
static void transpose_xyz(const void *src, void *dst, size_t es, int nx, int ny, int nz)
{
    const char *s = src;
    char *d = dst;
    for (int i = 0; i < nx; i++)
        for (int j = 0; j < ny; j++)
            for (int k = 0; k < nz; k++)
                memcpy(d + es * ((size_t)i + (size_t)nx * ((size_t)j + (size_t)ny * k)),
                       s + es * (((size_t)i * ny + j) * nz + k), es);
}

/* pymicro's phase_map, when it is a full array (files hold 1-element
 * placeholders): voxel phases. */
static rve_status pymicro_phase_map(h5r *r, const rve_hdf5_opts *o, const hsize_t *d, h5grains *g)
{
    const char *pp = o && o->phase ? o->phase : "/CellData/phase_map";
    int pr;
    hsize_t pd[H5_MAX_RANK];
    if (!h5m_exists(r->f, pp) || h5m_ds_shape(r, pp, &pr, pd) != RVE_OK || pr < 2 || pd[0] != d[0] ||
        pd[1] != d[1] || (pr == 2 ? 1 : pd[2]) != d[2]) {
        rve_err_clear(r->err);
        return RVE_OK;
    }
    size_t nv = (size_t)d[0] * d[1] * d[2];
    int *pv;
    rve_status s = h5m_vox_read(r, pp, H5T_NATIVE_INT, nv, 2, (void **)&pv, &nv);
    if (s != RVE_OK)
        return s;
    if (!(g->vphase = malloc(nv * sizeof *g->vphase))) {
        free(pv);
        return rve_err_set(r->err, RVE_ENOMEM, r->file, "out of memory");
    }
    transpose_xyz(pv, g->vphase, sizeof *pv, g->nx, g->ny, h5m_nz(r, g));
    free(pv);
    return RVE_OK;
}

static int pymicro_has(h5r *r, const char *name)
{
    return H5Aexists_by_name(r->f, "/CellData", name, H5P_DEFAULT) > 0;
}

rve_status h5m_read_pymicro(h5r *r, const rve_hdf5_opts *o, h5grains *g)
{
    const char *gm = o && o->ids ? o->ids : "/CellData/grain_map";
    int rank;
    hsize_t d[H5_MAX_RANK];
    rve_status s = h5m_ds_shape(r, gm, &rank, d);
    if (s != RVE_OK)
        return s;
    if (rank < 2 || rank > 3)
        return rve_err_set(r->err, RVE_EDATA, r->file, "dataset %s: expected 2 or 3 dimensions, found %d", gm, rank);
    if (rank == 2)
        d[2] = 1;
    if ((s = h5m_check_dims(r, gm, d, 3)) != RVE_OK)
        return s;
    g->nx = (int)d[0], g->ny = (int)d[1], g->nz = (int)d[2];
    size_t nv = (size_t)d[0] * d[1] * d[2];
    uint32_t *t;
    if ((s = h5m_read_labels(r, gm, nv, 2, &t)) != RVE_OK)
        return s;
    nv = (size_t)g->nx * g->ny * h5m_nz(r, g); /* the window's voxels */
    if (!(g->lab = malloc(nv * sizeof *g->lab))) {
        free(t);
        return rve_err_set(r->err, RVE_ENOMEM, r->file, "out of memory");
    }
    transpose_xyz(t, g->lab, sizeof *t, g->nx, g->ny, h5m_nz(r, g));
    free(t);
    /* the mask, when it is a full array (files hold 1-element placeholders) */
    int mr;
    hsize_t md[H5_MAX_RANK];
    const char *mk = o && o->mask ? o->mask : "/CellData/mask";
    if (h5m_exists(r->f, mk) && h5m_ds_shape(r, mk, &mr, md) == RVE_OK && mr >= 2 &&
        md[0] == d[0] && md[1] == d[1] && (mr == 2 ? 1 : md[2]) == d[2]) {
        int *mv, *mt = malloc(nv * sizeof *mt);
        size_t got;
        if (!mt || (s = h5m_vox_read(r, mk, H5T_NATIVE_INT, (size_t)d[0] * d[1] * d[2], 2, (void **)&mv, &got)) != RVE_OK) {
            free(mt);
            return s != RVE_OK ? s : rve_err_set(r->err, RVE_ENOMEM, r->file, "out of memory");
        }
        transpose_xyz(mv, mt, sizeof *mv, g->nx, g->ny, h5m_nz(r, g));
        for (size_t v = 0; v < nv; v++)
            if (!mt[v])
                g->lab[v] = 0;
        free(mv), free(mt);
    }
    if ((s = pymicro_phase_map(r, o, d, g)) != RVE_OK)
        return s;
    /* spacing and origin: 3 values, or 2 for a 2D map (its z voxel size
     * is then its x voxel size, its z origin 0), or 1 for all axes */
    double sp[3] = {0, 0, 0};
    int n = h5m_attr_doubles(r->f, "/CellData", "spacing", sp, 3), has = pymicro_has(r, "spacing");
    if (n == 1)
        sp[1] = sp[0];
    if (n == 1 || n == 2)
        sp[2] = sp[0];
    if (has && (n < 1 || (n == 2 && rank != 2) || !(sp[0] > 0 && sp[1] > 0 && sp[2] > 0)))
        return rve_err_set(r->err, RVE_EDATA, r->file, "/CellData attribute spacing: not %s positive numbers",
                           rank == 2 ? "1 or 2" : "1 or 3");
    if (has) {
        memcpy(g->h, sp, sizeof sp);
        g->has_res = 1;
    }
    sp[2] = 0;
    n = h5m_attr_doubles(r->f, "/CellData", "origin", sp, 3);
    if (pymicro_has(r, "origin") && !(n == 3 || (n == 2 && rank == 2)))
        return rve_err_set(r->err, RVE_EDATA, r->file, "/CellData attribute origin: not %d numbers", rank);
    if (n >= 2)
        memcpy(g->origin, sp, sizeof sp);
    /* grain table: idnumber, orientation (Rodrigues, passive), phase */
    const char *tp = o && o->feature_ori ? o->feature_ori : "/GrainData/GrainDataTable";
    if (!h5m_exists(r->f, tp))
        return RVE_OK;
    hid_t ds = H5Dopen2(r->f, tp, H5P_DEFAULT);
    hid_t ft = H5Dget_type(ds);
    if (H5Tget_class(ft) != H5T_COMPOUND || H5Tget_member_index(ft, "idnumber") < 0 ||
        H5Tget_member_index(ft, "orientation") < 0) {
        H5Tclose(ft), H5Dclose(ds);
        return rve_err_set(r->err, RVE_EDATA, r->file, "dataset %s: no idnumber and orientation columns", tp);
    }
    int has_phase = H5Tget_member_index(ft, "phase") >= 0;
    H5Tclose(ft);
    struct row { int id; double ori[3]; int phase; };
    hsize_t three = 3;
    hid_t at = H5Tarray_create2(H5T_NATIVE_DOUBLE, 1, &three);
    hid_t mt = H5Tcreate(H5T_COMPOUND, sizeof(struct row));
    H5Tinsert(mt, "idnumber", offsetof(struct row, id), H5T_NATIVE_INT);
    H5Tinsert(mt, "orientation", offsetof(struct row, ori), at);
    if (has_phase)
        H5Tinsert(mt, "phase", offsetof(struct row, phase), H5T_NATIVE_INT);
    H5Dclose(ds);
    int tr;
    hsize_t td[H5_MAX_RANK];
    struct row *rows = NULL;
    s = h5m_ds_shape(r, tp, &tr, td);
    if (s == RVE_OK && (tr != 1 || td[0] > (hsize_t)MAX_FEATURES))
        s = rve_err_set(r->err, RVE_EDATA, r->file, "dataset %s: not a table", tp);
    if (s == RVE_OK)
        s = h5m_ds_read(r, tp, mt, (size_t)td[0], (void **)&rows);
    H5Tclose(mt), H5Tclose(at);
    if (s != RVE_OK)
        return s;
    /* rows for ids above the map's largest label are not needed: sizing the
     * table by them would let one bad id allocate gigabytes */
    size_t maxid = r->maxid; /* a window's voxels: the whole map's, when known */
    for (size_t v = 0; v < nv; v++)
        maxid = g->lab[v] > maxid ? g->lab[v] : maxid;
    g->nfeat = maxid + 1, g->fori_n = 3;
    g->fspec = (rve_ori_spec){RVE_ORI_RODRIGUES, RVE_ORI_PASSIVE, 0};
    snprintf(g->fpath, sizeof g->fpath, "%s", tp);
    g->fori = malloc(g->nfeat * 3 * sizeof *g->fori);
    g->fphase = has_phase ? calloc(g->nfeat, sizeof *g->fphase) : NULL;
    char *seen = calloc(g->nfeat, 1);
    if (!g->fori || !seen || (has_phase && !g->fphase)) {
        free(rows), free(seen);
        return rve_err_set(r->err, RVE_ENOMEM, r->file, "out of memory");
    }
    for (size_t i = 0; i < g->nfeat * 3; i++)
        g->fori[i] = NAN; /* ids missing from the table are refused if used */
    for (size_t i = 0; i < td[0]; i++)
        if (rows[i].id > 0 && (size_t)rows[i].id <= maxid) {
            memcpy(g->fori + 3 * rows[i].id, rows[i].ori, sizeof rows[i].ori);
            if (has_phase)
                g->fphase[rows[i].id] = rows[i].phase;
            seen[rows[i].id] = 1;
        }
    free(rows);
    /* a grain of the map that the table lacks */
    for (size_t v = 0; v < nv; v++)
        if (g->lab[v] && (g->lab[v] >= g->nfeat || !seen[g->lab[v]])) {
            uint32_t l = g->lab[v];
            free(seen);
            return rve_err_set(r->err, RVE_EDATA, r->file, "dataset %s has no row for grain %u of %s", tp, l, gm);
        }
    free(seen);
    return RVE_OK;
}

/* ---------------------------------------------------- GrainMapper3D LabDCT */
/* GrainMapper3D's orientation arrays hold the numbers of rve's (Rowenhorst
 * passive) convention: Xnovo's own reader (gm3dh5) turns them into
 * quaternions without inversion (EulerZXZ as qz(phi1) qx(Phi) qz(phi2), in
 * radians) and exports them to Neper as "rodrigues:passive". */
#define LABDCT_CONV RVE_ORI_PASSIVE

rve_status h5m_read_labdct(h5r *r, const rve_hdf5_opts *o, h5grains *g)
{
    const char *ip = o && o->ids ? o->ids : "/LabDCT/Data/GrainId";
    rve_status s = h5m_read_ids_zyx(r, ip, g);
    if (s != RVE_OK)
        return s;
    double sp[3], c[3], ext[3];
    int n = h5m_attr_doubles(r->f, "/LabDCT", "Spacing", sp, 3);
    double *v;
    if (n < 0 && h5m_exists(r->f, "/LabDCT/Spacing") && h5m_ds_read(r, "/LabDCT/Spacing", H5T_NATIVE_DOUBLE, 3, (void **)&v) == RVE_OK)
        memcpy(sp, v, sizeof sp), free(v), n = 3;
    else if (n < 0 && h5m_exists(r->f, "/LabDCT/Spacing") &&
             h5m_ds_read(r, "/LabDCT/Spacing", H5T_NATIVE_DOUBLE, 1, (void **)&v) == RVE_OK)
        sp[0] = sp[1] = sp[2] = v[0], free(v), n = 3;
    rve_err_clear(r->err);
    if (n == 1)
        sp[1] = sp[2] = sp[0];
    if (n == 1 || n == 3) {
        if (!(sp[0] > 0 && sp[1] > 0 && sp[2] > 0))
            return rve_err_set(r->err, RVE_EDATA, r->file, "/LabDCT/Spacing is not positive");
        memcpy(g->h, sp, sizeof sp), g->has_res = 1;
    }
    int hc = h5m_exists(r->f, "/LabDCT/Center") && h5m_ds_read(r, "/LabDCT/Center", H5T_NATIVE_DOUBLE, 3, (void **)&v) == RVE_OK;
    if (hc)
        memcpy(c, v, sizeof c), free(v);
    int he = h5m_exists(r->f, "/LabDCT/Extent") && h5m_ds_read(r, "/LabDCT/Extent", H5T_NATIVE_DOUBLE, 3, (void **)&v) == RVE_OK;
    if (he)
        memcpy(ext, v, sizeof ext), free(v);
    rve_err_clear(r->err);
    int dims[3] = {g->nx, g->ny, g->nz};
    for (int a = 0; hc && a < 3; a++) /* the volume is centred on Center */
        g->origin[a] = c[a] - 0.5 * (he ? ext[a] : dims[a] * g->h[a]);
    if (h5m_exists(r->f, "/LabDCT/Data/Mask") && (s = h5m_apply_mask(r, "/LabDCT/Data/Mask", g)) != RVE_OK)
        return s;
    const char *pp = o && o->phase ? o->phase : "/LabDCT/Data/PhaseId";
    if (h5m_exists(r->f, pp) && (s = h5m_read_cell(r, pp, g, 1, H5T_NATIVE_INT, (void **)&g->vphase)) != RVE_OK)
        return s;
    static const struct { const char *name; rve_ori_des des; int n, deg; } arr[] = {
        {"/LabDCT/Data/Rodrigues", RVE_ORI_RODRIGUES, 3, 0},
        {"/LabDCT/Data/Quaternion", RVE_ORI_QUATERNION, 4, 0},
        {"/LabDCT/Data/EulerZXZ", RVE_ORI_EULER_BUNGE, 3, 0},
        {"/LabDCT/Data/EulerZYZ", RVE_ORI_EULER_ROE, 3, 0}, /* qz qy qz: Roe's angles */
    };
    for (int ph = 1; ph < MAX_PHASES; ph++) {
        char p[64];
        snprintf(p, sizeof p, "/PhaseInfo/Phase%02d/SpaceGroup", ph);
        if (!h5m_exists(r->f, p))
            continue;
        int *sg;
        if (h5m_ds_read(r, p, H5T_NATIVE_INT, 1, (void **)&sg) == RVE_OK)
            g->laue[ph] = h5m_laue_spacegroup(*sg), g->known[ph] = 1, free(sg);
        rve_err_clear(r->err);
    }
    /* the first array present; a named one is told by its name's ending
     * (Rodrigues unless it ends like another array) */
    int pick = -1;
    if (o && o->ori) {
        pick = 0;
        for (int i = 1; i < 4; i++) {
            const char *b = strrchr(arr[i].name, '/') + 1;
            size_t lo = strlen(o->ori), lb = strlen(b);
            if (lo >= lb && !strcmp(o->ori + lo - lb, b))
                pick = i;
        }
        if (!h5m_exists(r->f, o->ori))
            return rve_err_set(r->err, RVE_EDATA, r->file, "dataset %s is missing", o->ori);
    }
    for (int i = 0; i < 4; i++) {
        const char *nm = pick >= 0 ? o->ori : arr[i].name;
        if ((pick >= 0 && i != pick) || !h5m_exists(r->f, nm))
            continue;
        snprintf(g->vpath, sizeof g->vpath, "%s", nm);
        g->vori_n = arr[i].n;
        g->vspec = (rve_ori_spec){arr[i].des, LABDCT_CONV, arr[i].deg};
        return h5m_read_cell(r, nm, g, g->vori_n, H5T_NATIVE_DOUBLE, (void **)&g->vori);
    }
    return RVE_OK;
}

