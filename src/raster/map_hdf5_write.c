/* map_hdf5_write.c - the DREAM3D SIMPL writer (file version 7.0) with its
 * XDMF companion.  The cell arrays can be written as one z slab of a larger
 * map (rve_map_write_hdf5_cells with an rve_hdf5_slab), so that a
 * distributed program writes one file collectively with parallel HDF5
 * hyperslabs (src/mpi); the serial writer is the one-slab case.  Only HDF5
 * calls, no MPI: the caller opens the file with the access properties it
 * wants. */
#include "config.h"
#define _POSIX_C_SOURCE 200809L
#include <hdf5.h>
#include <rve/ori.h>
#include <rve/raster.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "map_internal.h"

#define MAX_PHASES 256

/* Where the cell arrays of the map being written go. */
typedef struct {
    hsize_t nz, k0;  /* layers of the whole map; first layer of this slab */
    int root;        /* this process writes the small arrays */
    hid_t dxpl;      /* transfer list of the cell arrays */
    hsize_t layers_max; /* most layers of any process: write in batches (0: one call) */
} slabw;

static void put_str_attr(hid_t obj, const char *name, const char *val)
{
    hid_t t = H5Tcopy(H5T_C_S1);
    H5Tset_size(t, strlen(val) + 1);
    hid_t s = H5Screate(H5S_SCALAR);
    hid_t a = H5Acreate2(obj, name, t, s, H5P_DEFAULT, H5P_DEFAULT);
    H5Awrite(a, t, val);
    H5Aclose(a), H5Sclose(s), H5Tclose(t);
}

static void put_attr(hid_t obj, const char *name, hid_t ft, hid_t mt, int n, const void *v)
{
    hsize_t d = (hsize_t)n;
    hid_t s = H5Screate_simple(1, &d, NULL);
    hid_t a = H5Acreate2(obj, name, ft, s, H5P_DEFAULT, H5P_DEFAULT);
    H5Awrite(a, mt, v);
    H5Aclose(a), H5Sclose(s);
}

/* Bytes of cell data per collective write call (slabw.calls): parallel
 * HDF5 filters (deflates) every chunk a call touches in buffers of its own,
 * so one call over the whole slab would hold a second copy of it. */
#define BATCH_BYTES ((size_t)8 << 20)

/* Write v into dataset d: a cell array (rank 4: Z, Y, X, ncomp) gets the
 * slab's layers, from every process (collective when sw->dxpl says so), in
 * one call or, when sw->layers_max is set, in batches of layers of at most
 * BATCH_BYTES, ceil(layers_max / batch) calls on every process; any other
 * array is written whole by the root process only. */
static herr_t put_data(hid_t d, hid_t mt, int rank, const hsize_t *dims, const slabw *sw, const void *v)
{
    if (rank != 4) {
        if (sw->root)
            return H5Dwrite(d, mt, H5S_ALL, H5S_ALL, H5P_DEFAULT, v);
        return 0;
    }
    size_t layer = (size_t)dims[1] * dims[2] * dims[3] * H5Tget_size(mt); /* bytes of one layer */
    hsize_t batch = dims[0] ? dims[0] : 1, calls = 1;
    if (sw->layers_max > 0) {
        batch = layer ? BATCH_BYTES / layer : 1;
        batch = batch < 1 ? 1 : batch;
        calls = (sw->layers_max + batch - 1) / batch;
    }
    hsize_t full[4] = {sw->nz, dims[1], dims[2], dims[3]};
    herr_t e = 0;
    for (hsize_t c = 0; c < calls && e >= 0; c++) {
        hsize_t k = c * batch, n = k < dims[0] ? (dims[0] - k < batch ? dims[0] - k : batch) : 0;
        hsize_t cnt[4] = {n, dims[1], dims[2], dims[3]}, off[4] = {sw->k0 + k, 0, 0, 0};
        hid_t fs = H5Screate_simple(4, full, NULL), ms = H5Screate_simple(4, cnt, NULL);
        if (n == 0)
            e = H5Sselect_none(fs) < 0 || H5Sselect_none(ms) < 0 ? -1 : 0;
        else
            e = H5Sselect_hyperslab(fs, H5S_SELECT_SET, off, NULL, cnt, NULL);
        if (e >= 0)
            e = H5Dwrite(d, mt, ms, fs, sw->dxpl, n ? (const char *)v + k * layer : v);
        H5Sclose(fs), H5Sclose(ms);
    }
    return e;
}

/* A DREAM3D data array: dataset plus the attributes SIMPL reads back.  For
 * a cell array dims[0] is the slab's layer count; the dataset has sw->nz. */
static herr_t put_array(hid_t grp, const char *name, hid_t ft, hid_t mt, int rank, const hsize_t *dims,
                        const uint64_t *tdims, int ntd, uint64_t ncomp, const char *objtype, const void *v,
                        const slabw *sw)
{
    hsize_t fd[4] = {rank == 4 ? sw->nz : dims[0], rank > 1 ? dims[1] : 0, rank > 2 ? dims[2] : 0,
                     rank > 3 ? dims[3] : 0};
    hid_t s = H5Screate_simple(rank, fd, NULL);
    /* cell arrays (Z, Y, X, ncomp) deflated in chunks of one slice (at most
     * 256 x 256), bytes shuffled: grain maps are runs of equal values, several
     * times smaller */
    hid_t pl = H5P_DEFAULT;
    if (rank == 4 && H5Zfilter_avail(H5Z_FILTER_DEFLATE) > 0 && (pl = H5Pcreate(H5P_DATASET_CREATE)) >= 0) {
        hsize_t ch[4] = {1, fd[1] < 256 ? fd[1] : 256, fd[2] < 256 ? fd[2] : 256, fd[3]};
        if (H5Pset_chunk(pl, 4, ch) < 0 || H5Pset_deflate(pl, 6) < 0)
            H5Pclose(pl), pl = H5P_DEFAULT;
    }
    hid_t d = H5Dcreate2(grp, name, ft, s, H5P_DEFAULT, pl, H5P_DEFAULT);
    if (pl != H5P_DEFAULT)
        H5Pclose(pl);
    herr_t e = d < 0 ? -1 : put_data(d, mt, rank, dims, sw, v);
    if (d >= 0) {
        int ver = 2;
        put_attr(d, "ComponentDimensions", H5T_STD_U64LE, H5T_NATIVE_UINT64, 1, &ncomp);
        put_attr(d, "DataArrayVersion", H5T_STD_I32LE, H5T_NATIVE_INT, 1, &ver);
        put_str_attr(d, "ObjectType", objtype);
        put_attr(d, "TupleDimensions", H5T_STD_U64LE, H5T_NATIVE_UINT64, ntd, tdims);
        H5Dclose(d);
    }
    H5Sclose(s);
    return e;
}

static hid_t put_matrix(hid_t parent, const char *name, uint32_t type, int ntd, const uint64_t *td)
{
    hid_t g = H5Gcreate2(parent, name, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    put_attr(g, "AttributeMatrixType", H5T_STD_U32LE, H5T_NATIVE_UINT32, 1, &type);
    put_attr(g, "TupleDimensions", H5T_STD_U64LE, H5T_NATIVE_UINT64, ntd, td);
    return g;
}

rve_status rve_map_write_hdf5_xdmf(const rve_map *m, int nz, const char *path, rve_err *err)
{
    size_t n = strlen(path) + 6;
    char *xp = malloc(n);
    if (!xp)
        return rve_err_set(err, RVE_ENOMEM, path, "out of memory");
    snprintf(xp, n, "%s.xdmf", path);
    const char *base = strrchr(path, '/');
    base = base ? base + 1 : path;
    rve_afile *af = rve_afile_open(xp, 0, err);
    free(xp);
    if (!af)
        return err ? err->code : RVE_EIO;
    FILE *f = rve_afile_fp(af);
    fprintf(f, "<?xml version=\"1.0\"?>\n<!DOCTYPE Xdmf SYSTEM \"Xdmf.dtd\"[]>\n"
               "<Xdmf xmlns:xi=\"http://www.w3.org/2003/XInclude\" Version=\"2.2\">\n <Domain>\n"
               "  <Grid Name=\"ImageDataContainer\" GridType=\"Uniform\">\n"
               "   <Topology TopologyType=\"3DCoRectMesh\" Dimensions=\"%d %d %d \"></Topology>\n"
               "   <Geometry Type=\"ORIGIN_DXDYDZ\">\n"
               "    <DataItem Format=\"XML\" Dimensions=\"3\">%.17g %.17g %.17g</DataItem>\n"
               "    <DataItem Format=\"XML\" Dimensions=\"3\">%.17g %.17g %.17g</DataItem>\n"
               "   </Geometry>\n",
            nz + 1, m->ny + 1, m->nx + 1, m->origin[2], m->origin[1], m->origin[0], m->h[2], m->h[1], m->h[0]);
    const char *arrs[2] = {"FeatureIds", "Phases"};
    for (int i = 0; i < 1 + (m->phase != NULL); i++)
        fprintf(f, "   <Attribute Name=\"%s\" AttributeType=\"Scalar\" Center=\"Cell\">\n"
                   "    <DataItem Format=\"HDF\" Dimensions=\"%d %d %d \" NumberType=\"Int\" Precision=\"4\">\n"
                   "     %s:/DataContainers/ImageDataContainer/CellData/%s\n    </DataItem>\n   </Attribute>\n",
                arrs[i], nz, m->ny, m->nx, base, arrs[i]);
    fprintf(f, "  </Grid>\n </Domain>\n</Xdmf>\n");
    return rve_afile_commit(af, err);
}

/* DREAM3D's CrystalStructures code of a map's symmetry (999: unknown) */
static uint32_t dream3d_code(const char *crysym)
{
    static const uint32_t code[RVE_LAUE_N] = {4, 5, 6, 10, 8, 0, 1}; /* rve_laue order */
    rve_laue g;
    return crysym && rve_laue_parse(crysym, &g) == RVE_OK ? code[g] : 999;
}

rve_status rve_map_write_hdf5_tables(int64_t file, const rve_map *m, rve_err *err)
{
    int maxph = 1;
    for (size_t l = 0; m->phase && l < m->nlabels; l++)
        maxph = m->phase[l] > maxph ? m->phase[l] : maxph;
    /* CellEnsembleData: CrystalStructures (the map's one symmetry for every
     * phase, 999 when unknown) and PhaseName, which DAMASK's load_DREAM3D
     * reads by default (variable-length strings: parallel HDF5 cannot write
     * them, hence a separate step on a file opened by one process) */
    hid_t dcs = H5Gopen2((hid_t)file, "DataContainers/ImageDataContainer", H5P_DEFAULT);
    if (dcs < 0)
        return rve_err_set(err, RVE_EIO, "", "HDF5: no image data container to complete");
    uint64_t te = (uint64_t)maxph + 1;
    hid_t ens = put_matrix(dcs, "CellEnsembleData", 11, 1, &te);
    uint32_t *cs = malloc(te * sizeof *cs);
    char *names = malloc(te * 32);
    char **np = malloc(te * sizeof *np);
    herr_t e = ens < 0 ? -1 : 0;
    if (cs && names && np && e == 0) {
        for (size_t i = 0; i < te; i++) {
            cs[i] = i ? dream3d_code(m->crysym) : 999;
            np[i] = names + 32 * i;
            if (i)
                snprintf(np[i], 32, "Phase %d", (int)i); /* i <= MAX_PHASES */
            else
                snprintf(np[i], 32, "Invalid Phase"); /* DREAM3D's name of row 0 */
        }
        slabw one = {0, 0, 1, H5P_DEFAULT, 0};
        hsize_t e1[2] = {te, 1};
        e |= put_array(ens, "CrystalStructures", H5T_STD_U32LE, H5T_NATIVE_UINT32, 2, e1, &te, 1, 1,
                       "DataArray<uint32_t>", cs, &one);
        hid_t st = H5Tcopy(H5T_C_S1);
        H5Tset_size(st, H5T_VARIABLE);
        e |= put_array(ens, "PhaseName", st, st, 1, e1, &te, 1, 1, "StringDataArray", np, &one);
        H5Tclose(st);
    } else
        e = -1;
    free(cs), free(names), free(np);
    if (ens >= 0)
        H5Gclose(ens);
    H5Gclose(dcs);
    return e < 0 ? rve_err_set(err, RVE_EIO, "", "HDF5 write failed") : RVE_OK;
}

static herr_t write_geometry(hid_t dc, const rve_map *m, const slabw *sw)
{
    herr_t e = 0;
    hid_t geo = H5Gcreate2(dc, "_SIMPL_GEOMETRY", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    uint32_t gt = 0; /* ImageGeometry */
    put_str_attr(geo, "GeometryName", "ImageGeometry");
    put_attr(geo, "GeometryType", H5T_STD_U32LE, H5T_NATIVE_UINT32, 1, &gt);
    put_attr(geo, "SpatialDimensionality", H5T_STD_U32LE, H5T_NATIVE_UINT32, 1, &(uint32_t){3});
    put_attr(geo, "UnitDimensionality", H5T_STD_U32LE, H5T_NATIVE_UINT32, 1, &(uint32_t){3});
    hsize_t three = 3;
    int64_t dim[3] = {m->nx, m->ny, (int64_t)sw->nz};
    float org[3] = {(float)m->origin[0], (float)m->origin[1], (float)m->origin[2]};
    float sp[3] = {(float)m->h[0], (float)m->h[1], (float)m->h[2]};
    hid_t s3 = H5Screate_simple(1, &three, NULL);
    hid_t d;
    d = H5Dcreate2(geo, "DIMENSIONS", H5T_STD_I64LE, s3, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    e |= put_data(d, H5T_NATIVE_INT64, 1, NULL, sw, dim), H5Dclose(d);
    d = H5Dcreate2(geo, "ORIGIN", H5T_IEEE_F32LE, s3, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    e |= put_data(d, H5T_NATIVE_FLOAT, 1, NULL, sw, org), H5Dclose(d);
    d = H5Dcreate2(geo, "SPACING", H5T_IEEE_F32LE, s3, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    e |= put_data(d, H5T_NATIVE_FLOAT, 1, NULL, sw, sp), H5Dclose(d);
    H5Sclose(s3), H5Gclose(geo);
    return e;
}

/* Everything but the ensemble table: file attributes, geometry, cell
 * arrays (the slab's layers) and feature arrays (per grain, row 0 the
 * background). */
static herr_t write_simpl(hid_t f, const rve_map *m, const double *eu, const double *qx, const int *ph,
                          const int *vph, const float *veu, const int32_t *ids, const slabw *sw)
{
    size_t nl = m->nlabels;
    herr_t e = 0;
    put_str_attr(f, "FileVersion", "7.0");
    put_str_attr(f, "DREAM3D Version", "6.5.171 (written by rve)");
    hid_t dcs = H5Gcreate2(f, "DataContainers", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    hid_t dc = H5Gcreate2(dcs, "ImageDataContainer", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    e |= write_geometry(dc, m, sw);
    uint64_t tcell[3] = {(uint64_t)m->nx, (uint64_t)m->ny, (uint64_t)sw->nz};
    hsize_t c1[4] = {(hsize_t)m->nz, (hsize_t)m->ny, (hsize_t)m->nx, 1};
    hsize_t c3[4] = {(hsize_t)m->nz, (hsize_t)m->ny, (hsize_t)m->nx, 3};
    hid_t cell = put_matrix(dc, "CellData", 3, 3, tcell);
    e |= put_array(cell, "FeatureIds", H5T_STD_I32LE, H5T_NATIVE_INT32, 4, c1, tcell, 3, 1, "DataArray<int32_t>",
                   ids, sw);
    if (vph)
        e |= put_array(cell, "Phases", H5T_STD_I32LE, H5T_NATIVE_INT, 4, c1, tcell, 3, 1, "DataArray<int32_t>",
                       vph, sw);
    if (veu)
        e |= put_array(cell, "EulerAngles", H5T_IEEE_F32LE, H5T_NATIVE_FLOAT, 4, c3, tcell, 3, 3,
                       "DataArray<float>", veu, sw);
    H5Gclose(cell);
    uint64_t tf = nl + 1;
    hsize_t f3[2] = {nl + 1, 3}, f4[2] = {nl + 1, 4}, f1[2] = {nl + 1, 1};
    hid_t feat = put_matrix(dc, "CellFeatureData", 7, 1, &tf);
    if (eu) {
        e |= put_array(feat, "AvgEulerAngles", H5T_IEEE_F32LE, H5T_NATIVE_DOUBLE, 2, f3, &tf, 1, 3,
                       "DataArray<float>", eu, sw);
        e |= put_array(feat, "AvgQuats", H5T_IEEE_F32LE, H5T_NATIVE_DOUBLE, 2, f4, &tf, 1, 4, "DataArray<float>",
                       qx, sw);
    }
    if (ph)
        e |= put_array(feat, "Phases", H5T_STD_I32LE, H5T_NATIVE_INT, 2, f1, &tf, 1, 1, "DataArray<int32_t>", ph,
                       sw);
    H5Gclose(feat), H5Gclose(dc), H5Gclose(dcs);
    return e;
}

/* Per-grain tables (phases, Euler angles, quaternions) of m. */
static rve_status feature_tables(const rve_map *m, const rve_ori_spec *sp, int has_ori, int *ph, double *eu,
                                 double *qx, rve_err *err)
{
    for (size_t l = 1; l <= m->nlabels; l++) {
        if (ph)
            ph[l] = m->phase[l - 1];
        if (!has_ori)
            continue;
        double q[4];
        if (rve_ori_to_quat(sp, m->ori + (size_t)m->ori_n * (l - 1), q, err) != RVE_OK)
            return rve_err_set(err, RVE_EDATA, "", "grain %zu: %s", l, err ? err->msg : "bad orientation");
        rve_ori_qu2eu(q, eu + 3 * l);
        /* DREAM3D stores quaternions vector part first: (x, y, z, w) */
        qx[4 * l] = q[1], qx[4 * l + 1] = q[2], qx[4 * l + 2] = q[3], qx[4 * l + 3] = q[0];
    }
    if (qx)
        qx[3] = 1; /* background: identity */
    return RVE_OK;
}

rve_status rve_map_write_hdf5_cells(int64_t file, const rve_map *m, const rve_hdf5_slab *slab, rve_err *err)
{
    size_t nv = rve_map_nvox(m), nl = m->nlabels;
    if (nl > (size_t)INT32_MAX)
        return rve_err_set(err, RVE_EUSAGE, "", "labels above 2^31 - 1 do not fit DREAM3D's int32 FeatureIds");
    if (slab && (slab->k0 < 0 || slab->nz < 1 || slab->k0 + m->nz > slab->nz))
        return rve_err_set(err, RVE_EUSAGE, "", "HDF5 slab: layers %d..%d outside a map of %d", slab->k0,
                           slab->k0 + m->nz - 1, slab->nz);
    for (size_t l = 0; m->phase && l < nl; l++)
        if (m->phase[l] < 0 || m->phase[l] >= MAX_PHASES)
            return rve_err_set(err, RVE_EUSAGE, "", "grain %zu: phase %d outside 0..%d", l + 1, m->phase[l],
                               MAX_PHASES - 1);
    int has_ori = m->ori && m->ori_n > 0 && m->ori_des;
    rve_ori_spec sp = {RVE_ORI_QUATERNION, RVE_ORI_PASSIVE, 0};
    if (has_ori && rve_map_ori_spec(m, &sp, err) != RVE_OK)
        return rve_err_set(err, RVE_EDATA, "", "orientation descriptor '%s' with %d values per grain not understood",
                           m->ori_des, m->ori_n);
    /* FeatureIds straight from m->lab: every label is at most nlabels <=
     * INT32_MAX, where uint32 and int32 have the same bits (no copy) */
    const int32_t *ids = (const int32_t *)m->lab;
    int *ph = m->phase ? calloc(nl + 1, sizeof *ph) : NULL, *vph = m->phase ? malloc((nv ? nv : 1) * sizeof *vph) : NULL;
    double *eu = has_ori ? calloc((nl + 1) * 3, sizeof *eu) : NULL;
    double *qx = has_ori ? calloc((nl + 1) * 4, sizeof *qx) : NULL;
    float *veu = has_ori ? malloc((nv ? nv : 1) * 3 * sizeof *veu) : NULL;
    rve_status st = RVE_OK;
    if ((m->phase && (!ph || !vph)) || (has_ori && (!eu || !qx || !veu)))
        st = rve_err_set(err, RVE_ENOMEM, "", "out of memory");
    if (st == RVE_OK)
        st = feature_tables(m, &sp, has_ori, ph, eu, qx, err);
    for (size_t v = 0; st == RVE_OK && v < nv; v++) {
        uint32_t l = m->lab[v];
        if (vph)
            vph[v] = l ? ph[l] : 0;
        for (int c = 0; veu && c < 3; c++)
            veu[3 * v + c] = (float)eu[3 * l + c];
    }
    if (st == RVE_OK) {
        slabw sw = {(hsize_t)(slab ? slab->nz : m->nz), (hsize_t)(slab ? slab->k0 : 0), slab ? slab->root : 1,
                    slab && slab->dxpl ? (hid_t)slab->dxpl : H5P_DEFAULT,
                    (hsize_t)(slab && slab->layers_max > 0 ? slab->layers_max : 0)};
        if (write_simpl((hid_t)file, m, eu, qx, ph, vph, veu, ids, &sw) < 0)
            st = rve_err_set(err, RVE_EIO, "", "HDF5 write failed");
    }
    free(ph), free(vph), free(eu), free(qx), free(veu);
    return st;
}

rve_status rve_map_write_hdf5(const rve_map *m, const char *path, rve_err *err)
{
    size_t n = strlen(path) + 16;
    char *tmp = malloc(n);
    if (!tmp)
        return rve_err_set(err, RVE_ENOMEM, path, "out of memory");
    H5E_auto2_t efunc;
    void *edata;
    H5Eget_auto2(H5E_DEFAULT, &efunc, &edata);
    H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
    /* temporary file beside the target, renamed when complete */
    snprintf(tmp, n, "%s.rve-tmp", path);
    hid_t f = H5Fcreate(tmp, H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
    rve_status st = RVE_OK;
    if (f < 0)
        st = rve_err_set(err, RVE_EIO, path, "cannot create the HDF5 file");
    else {
        st = rve_map_write_hdf5_cells(f, m, NULL, err);
        if (st == RVE_OK)
            st = rve_map_write_hdf5_tables(f, m, err);
        if (H5Fclose(f) < 0 && st == RVE_OK)
            st = rve_err_set(err, RVE_EIO, path, "HDF5 write failed");
        if (st != RVE_OK && err && !err->file[0])
            snprintf(err->file, sizeof err->file, "%s", path);
        if (st == RVE_OK && rename(tmp, path) != 0)
            st = rve_err_set(err, RVE_EIO, path, "cannot rename the temporary file");
        if (st != RVE_OK)
            remove(tmp);
    }
    H5Eset_auto2(H5E_DEFAULT, efunc, edata);
    free(tmp);
    if (st == RVE_OK)
        st = rve_map_write_hdf5_xdmf(m, m->nz, path, err);
    return st;
}
