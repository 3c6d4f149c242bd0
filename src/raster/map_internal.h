/* Internal helpers of the grain-map readers and writers (not installed). */
#ifndef RVE_MAP_INTERNAL_H
#define RVE_MAP_INTERNAL_H

#include <rve/ori.h>
#include <rve/raster.h>

/* Largest label a map may hold: labels must fit a signed 32-bit integer
 * (Neper reads them as int). */
#define RVE_MAP_LABEL_MAX 2147483647u

/* Readers refuse maps above this many voxels unless told otherwise (the
 * fuzz targets use a much smaller cap). */
#define RVE_MAP_MAX_VOXELS_DEFAULT ((size_t)1 << 36)

/* Smallest width (1, 2 or 4 bytes) holding every label; signed16 asks for
 * labels <= 32767 in two bytes (Neper reads binary16 as signed short). */
int rve_map_bytes_needed(uint32_t nlabels, int signed16);
/* Labels far above the voxel count (nlabels > 2 nvox + 4096): per-label
 * tables of nlabels + 1 entries would be mostly empty (map_core.c). */
int rve_map_labels_sparse(const rve_map *m);

/* Capped variants used by the fuzz targets. */
rve_status rve_map_read_tiff_mem_capped(const void *buf, size_t n, const char *name,
                                        size_t maxvox, rve_map **out, rve_err *err);
rve_status rve_map_read_tesr_mem_capped(const char *buf, size_t n, const char *name,
                                        const char *dir, size_t maxvox, rve_map **out,
                                        rve_err *err);

/* The HDF5 grain-map reader on a file image in memory (the core driver);
 * name is used in messages.  For the fuzz target. */
rve_status rve_map_read_hdf5_mem(const void *buf, size_t n, const char *name, const rve_hdf5_opts *o,
                                 rve_map **out, rve_err *err);

/* Convert n samples of the given width (1, 2, 4 bytes; swapped if swap)
 * into labels; returns the largest value (for range checks). */
uint32_t rve_map_unpack(uint32_t *dst, const unsigned char *src, size_t n, int bytes, int swap);

/* How the values of m->ori are to be read (m->ori_des set): "quaternion"
 * (what the HDF5 readers write) is our passive quaternion; any other
 * descriptor is a .tesr's, read with the rule of format 2.1 (a bare
 * descriptor means passive), as rve's .tesr writer writes them.  RVE_EDATA
 * for an unknown descriptor or a value count that does not match it. */
rve_status rve_map_ori_spec(const rve_map *m, rve_ori_spec *sp, rve_err *err);

/* rve_map_load's options: o, or the defaults (in d) when o is NULL; NULL
 * with RVE_EUSAGE in err for a voxel size that is not positive. */
const rve_map_load_opts *rve_map_load_opts_use(const char *path, const rve_map_load_opts *o, rve_map_load_opts *d,
                                               rve_err *err);
/* The user's voxel size and origin (o->set_h, o->set_origin) put on m. */
void rve_map_load_apply(const rve_map_load_opts *o, rve_map *m);

/* TIFF by pages (rve_map_part): the geometry of path (nx, ny, nz = the
 * pages, h, origin, has_res; lab untouched), and the pages [k0, k1) as a
 * map of their own (the whole map's geometry: origin at page 1), with the
 * labels rve_map_read_tiff gives. */
rve_status rve_map_tiff_geometry(const char *path, rve_map *g, rve_err *err);
rve_status rve_map_read_tiff_pages(const char *path, int k0, int k1, rve_map **out, rve_err *err);

#endif
