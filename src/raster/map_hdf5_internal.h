/* map_hdf5_internal.h - what the HDF5 layout readers share (not installed):
 * map_hdf5.c has the helpers, DREAM3D and the dispatch, map_hdf5_layouts.c
 * the LabDCT and pymicro layouts. */
#ifndef RVE_MAP_HDF5_INTERNAL_H
#define RVE_MAP_HDF5_INTERNAL_H

#include <hdf5.h>
#include <rve/ori.h>
#include <rve/raster.h>

#define H5_MAX_RANK 8
#define PATH_MAX_LEN 512
#define MAX_PHASES 256
#define PBUF (2 * PATH_MAX_LEN + 64) /* a group path plus a name */
#define MAX_FEATURES ((size_t)1 << 28) /* feature-table rows read at most */

/* What a layout reader extracts, before it becomes an rve_map. */
typedef struct {
    int nx, ny, nz;
    double h[3], origin[3];
    int has_res;
    uint32_t *lab;              /* x fastest */
    double *vori;               /* per-voxel orientation values, vori_n per voxel, or NULL */
    int vori_n;
    rve_ori_spec vspec;
    char vpath[PBUF];
    double *fori;               /* per-feature values (row = grain id), or NULL */
    size_t nfeat;
    int fori_n;
    rve_ori_spec fspec;
    char fpath[PBUF];
    int *vphase, *fphase;       /* per voxel / per feature (row = id), or NULL */
    rve_laue laue[MAX_PHASES];  /* symmetry of each phase number */
    unsigned char known[MAX_PHASES]; /* the file gave laue[ph] (else: triclinic by default) */
    size_t nv_all;              /* voxels of the whole map when lab holds fewer (rve_map_part), else 0 */
} h5grains;

typedef struct {
    hid_t f;
    const char *file;
    rve_err *err;
    int win;          /* read only the layers [wk0, wk1) of the voxel arrays (rve_map_part) */
    int wk0, wk1;
    uint32_t maxid;   /* the largest grain id of the whole map when known (windows), else 0 */
} h5r;

/* Layers of the voxel arrays read: the window's, else all nz. */
static inline int h5m_nz(const h5r *r, const h5grains *g) { return r->win ? r->wk1 - r->wk0 : g->nz; }

int h5m_exists(hid_t loc, const char *path);
rve_status h5m_ds_shape(h5r *r, const char *path, int *rank, hsize_t dims[H5_MAX_RANK]);
rve_status h5m_ds_read(h5r *r, const char *path, hid_t mt, size_t expect, void **out);
int h5m_attr_doubles(hid_t loc, const char *obj, const char *name, double *v, int nmax);
rve_status h5m_check_dims(h5r *r, const char *path, const hsize_t *d, int n);
/* A voxel array of `expect` values whose layers run along axis zaxis, whole
 * or (r->win) only the window's layers; *got: the values read. */
rve_status h5m_vox_read(h5r *r, const char *path, hid_t mt, size_t expect, int zaxis, void **out, size_t *got);
rve_status h5m_read_labels(h5r *r, const char *path, size_t n, int zaxis, uint32_t **out);
rve_status h5m_read_ints(h5r *r, const char *path, size_t n, int **out);
rve_laue h5m_laue_spacegroup(int sg);
rve_status h5m_read_ids_zyx(h5r *r, const char *path, h5grains *g);
rve_status h5m_apply_mask(h5r *r, const char *path, h5grains *g);
rve_status h5m_read_cell(h5r *r, const char *path, const h5grains *g, int ncomp, hid_t mt,
                            void **out);
rve_status h5m_read_pymicro(h5r *r, const rve_hdf5_opts *o, h5grains *g);
rve_status h5m_read_labdct(h5r *r, const rve_hdf5_opts *o, h5grains *g);

/* The layout reader (map_hdf5.c): g filled from path, with only the
 * layers [k0, k1) of the voxel arrays when win (maxid: the whole map's
 * largest id when known, else 0); freed on failure. */
rve_status h5m_read_grains(const char *path, hid_t fapl, const rve_hdf5_opts *o, int win, int k0, int k1,
                           uint32_t maxid, h5grains *g, rve_err *err);
rve_status h5m_grains_to_map(const char *path, h5grains *g, rve_map **out, rve_err *err);
void h5m_grains_free(h5grains *g);

#endif
