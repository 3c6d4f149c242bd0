/* libFuzzer target: the HDF5 grain-map readers (DREAM3D SIMPL and NX,
 * LabDCT, pymicro), structure-aware.  Fuzzing the bytes of HDF5 files would
 * mostly exercise libhdf5's own format parser (not ours, and not built with
 * the sanitizers); instead the input is a little program that builds an
 * HDF5 file in memory with libhdf5 (core driver, no file), from a dictionary
 * of the groups, datasets and attributes the readers look for, with fuzzed
 * types, shapes and values.  The file image is then read by
 * rve_map_read_hdf5_mem.
 *
 * Program: up to 32 operations, each starting with a byte b:
 *   b % 3 == 0  group:     [path]                      (parents created)
 *   b % 3 == 1  dataset:   [path] [type] [rank] [dim]... then the values,
 *                          taken from the input (zeros once it is used up)
 *   b % 3 == 2  attribute: [object path] [name] [type] [count] values...
 * where [path] indexes paths[], [name] names[], [type] types[], rank is
 * 1 + b % 4, each dim 1 + b % 8, count 1 + b % 4.
 * Oracles: a map read has labels at most nlabels, finite positive voxel
 * sizes, finite orientations; a failure always says why. */
#include "config.h"
#include "raster/map_internal.h"
#include <hdf5.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define DC "/DataContainers/ImageDataContainer"
#define NX "/DataStructure/Image"
static const char *const paths[] = {
    "/CellData", "/CellData/grain_map", "/CellData/mask", "/CellData/phase_map", "/GrainData",
    "/GrainData/GrainDataTable", "/LabDCT", "/LabDCT/Data", "/LabDCT/Data/GrainId", "/LabDCT/Data/Mask",
    "/LabDCT/Data/PhaseId", "/LabDCT/Data/EulerZXZ", "/LabDCT/Data/EulerZYZ", "/LabDCT/Data/Quaternion",
    "/LabDCT/Data/Rodrigues", "/LabDCT/Spacing", "/LabDCT/Center", "/LabDCT/Extent", "/PhaseInfo/Phase01",
    "/PhaseInfo/Phase01/SpaceGroup", "/DataContainers", DC, DC "/_SIMPL_GEOMETRY",
    DC "/_SIMPL_GEOMETRY/DIMENSIONS", DC "/_SIMPL_GEOMETRY/ORIGIN", DC "/_SIMPL_GEOMETRY/SPACING",
    DC "/_SIMPL_GEOMETRY/RESOLUTION", DC "/CellData", DC "/CellData/FeatureIds", DC "/CellData/Phases",
    DC "/CellData/EulerAngles", DC "/CellData/Quats", DC "/CellData/Mask", DC "/CellFeatureData",
    DC "/CellFeatureData/AvgEulerAngles", DC "/CellFeatureData/AvgQuats", DC "/CellFeatureData/Phases",
    DC "/CellEnsembleData", DC "/CellEnsembleData/CrystalStructures", "/DataStructure", NX,
    NX "/CellData", NX "/CellData/FeatureIds", NX "/CellData/Phases", NX "/CellData/EulerAngles",
    NX "/CellData/Quats", NX "/CellFeatureData", NX "/CellFeatureData/AvgQuats", NX "/CellEnsembleData",
    NX "/CellEnsembleData/CrystalStructures", "/Phases", "/PhaseInfo",
};
static const char *const names[] = {
    "spacing", "origin", "DIMENSIONS", "SPACING", "ORIGIN", "RESOLUTION", "_DIMENSIONS", "_SPACING",
    "_ORIGIN", "ComponentDimensions", "TupleDimensions", "DataArrayVersion", "ObjectType", "idnumber",
    "orientation", "phase",
};
#define NP (sizeof paths / sizeof *paths)
#define NN (sizeof names / sizeof *names)

typedef struct {
    const uint8_t *d;
    size_t n, i;
} cur;

static unsigned byte(cur *c) { return c->i < c->n ? c->d[c->i++] : 0; }

static hid_t type_of(unsigned b, size_t *es)
{
    static const size_t sz[] = {1, 2, 4, 8, 4, 4, 8, 1};
    b %= 8;
    *es = sz[b];
    switch (b) {
    case 0: return H5T_NATIVE_UCHAR;
    case 1: return H5T_NATIVE_SHORT;
    case 2: return H5T_NATIVE_INT;
    case 3: return H5T_NATIVE_LLONG;
    case 4: return H5T_NATIVE_UINT;
    case 5: return H5T_NATIVE_FLOAT;
    case 6: return H5T_NATIVE_DOUBLE;
    default: return H5T_NATIVE_CHAR;
    }
}

/* values for n elements of es bytes from the input */
static void *values(cur *c, size_t n, size_t es)
{
    unsigned char *v = calloc(n ? n : 1, es);
    if (!v)
        return NULL;
    size_t k = n * es, take = c->n - c->i < k ? c->n - c->i : k;
    memcpy(v, c->d + c->i, take);
    c->i += take;
    return v;
}

static void op_group(hid_t f, hid_t lcpl, cur *c)
{
    hid_t g = H5Gcreate2(f, paths[byte(c) % NP], lcpl, H5P_DEFAULT, H5P_DEFAULT);
    if (g >= 0)
        H5Gclose(g);
}

static void op_dataset(hid_t f, hid_t lcpl, cur *c)
{
    const char *p = paths[byte(c) % NP];
    size_t es;
    hid_t t = type_of(byte(c), &es);
    int rank = 1 + (int)(byte(c) % 4);
    hsize_t dims[4];
    size_t n = 1;
    for (int a = 0; a < rank; a++) {
        dims[a] = 1 + byte(c) % 8;
        n *= dims[a];
    }
    void *v = values(c, n, es);
    hid_t sp = H5Screate_simple(rank, dims, NULL);
    hid_t ds = sp >= 0 ? H5Dcreate2(f, p, t, sp, lcpl, H5P_DEFAULT, H5P_DEFAULT) : -1;
    if (ds >= 0 && v)
        H5Dwrite(ds, t, H5S_ALL, H5S_ALL, H5P_DEFAULT, v);
    if (ds >= 0)
        H5Dclose(ds);
    if (sp >= 0)
        H5Sclose(sp);
    free(v);
}

static void op_attribute(hid_t f, cur *c)
{
    const char *p = paths[byte(c) % NP], *name = names[byte(c) % NN];
    size_t es;
    hid_t t = type_of(byte(c), &es);
    hsize_t n = 1 + byte(c) % 4;
    void *v = values(c, (size_t)n, es);
    if (H5Lexists(f, p, H5P_DEFAULT) <= 0 && strcmp(p, "/") != 0) {
        free(v);
        return;
    }
    hid_t o = H5Oopen(f, p, H5P_DEFAULT);
    hid_t sp = o >= 0 ? H5Screate_simple(1, &n, NULL) : -1;
    hid_t a = sp >= 0 ? H5Acreate2(o, name, t, sp, H5P_DEFAULT, H5P_DEFAULT) : -1;
    if (a >= 0 && v)
        H5Awrite(a, t, v);
    if (a >= 0)
        H5Aclose(a);
    if (sp >= 0)
        H5Sclose(sp);
    if (o >= 0)
        H5Oclose(o);
    free(v);
}

static void check(const rve_map *m)
{
    size_t nv = rve_map_nvox(m);
    for (size_t v = 0; v < nv; v++)
        if (m->lab[v] > m->nlabels)
            __builtin_trap();
    for (int a = 0; a < 3; a++)
        if (!(m->h[a] > 0) || !isfinite(m->h[a]) || !isfinite(m->origin[a]))
            __builtin_trap();
    if (m->ori)
        for (size_t i = 0; i < (size_t)m->ori_n * m->nlabels; i++)
            if (!isfinite(m->ori[i]))
                __builtin_trap();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size > 16384)
        return 0;
    H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
    hid_t fapl = H5Pcreate(H5P_FILE_ACCESS);
    H5Pset_fapl_core(fapl, 1 << 16, 0);
    hid_t f = H5Fcreate("fuzz.h5", H5F_ACC_TRUNC, H5P_DEFAULT, fapl);
    H5Pclose(fapl);
    if (f < 0)
        return 0;
    hid_t lcpl = H5Pcreate(H5P_LINK_CREATE);
    H5Pset_create_intermediate_group(lcpl, 1);
    cur c = {data, size, 0};
    for (int k = 0; k < 32 && c.i < c.n; k++) {
        unsigned b = byte(&c) % 3;
        if (b == 0)
            op_group(f, lcpl, &c);
        else if (b == 1)
            op_dataset(f, lcpl, &c);
        else
            op_attribute(f, &c);
    }
    H5Pclose(lcpl);
    H5Fflush(f, H5F_SCOPE_GLOBAL);
    ssize_t n = H5Fget_file_image(f, NULL, 0);
    void *img = n > 0 ? malloc((size_t)n) : NULL;
    if (img && H5Fget_file_image(f, img, (size_t)n) != n) {
        free(img);
        img = NULL;
    }
    H5Fclose(f);
    if (!img)
        return 0;
    rve_map *m = NULL;
    rve_err e;
    rve_err_clear(&e);
    if (rve_map_read_hdf5_mem(img, (size_t)n, "fuzz.h5", NULL, &m, &e) == RVE_OK) {
        check(m);
        rve_map_free(m);
    } else if (m != NULL || e.msg[0] == 0) {
        __builtin_trap();
    }
    free(img);
    return 0;
}
