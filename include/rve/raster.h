/* rve/raster.h - voxelized grain maps: readers, writers, boundary voxels, statistics. */
#ifndef RVE_RASTER_H
#define RVE_RASTER_H

#include <rve/util.h>
#include <stdint.h>
#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* A voxelized grain map. Voxel (i, j, k), counted from 0 with x fastest,
 * occupies [origin + i h, origin + (i + 1) h] along each axis (Neper's
 * convention), so its centre is origin + (i + 1/2) h. Label 0 is void. */
typedef struct {
    int nx, ny, nz;
    double h[3];        /* voxel size (physical units) */
    double origin[3];   /* corner of voxel (0, 0, 0) */
    uint32_t *lab;      /* nx * ny * nz labels, x fastest, then y, then z */
    uint32_t nlabels;   /* largest label present */
} rve_map;

/* Allocate a map of the given size, all void, h = 1, origin 0. NULL on failure. */
rve_map *rve_map_alloc(int nx, int ny, int nz);
void rve_map_free(rve_map *m);

static inline size_t rve_map_index(const rve_map *m, int i, int j, int k)
{
    return (size_t)i + (size_t)m->nx * ((size_t)j + (size_t)m->ny * (size_t)k);
}

static inline void rve_map_voxel_centre(const rve_map *m, int i, int j, int k, double c[3])
{
    c[0] = m->origin[0] + (i + 0.5) * m->h[0];
    c[1] = m->origin[1] + (j + 0.5) * m->h[1];
    c[2] = m->origin[2] + (k + 0.5) * m->h[2];
}

#ifdef __cplusplus
}
#endif
#endif
