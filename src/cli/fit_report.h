/* fit_report.h - the report pictures of `rve fit` (internal to the CLI). */
#ifndef RVE_CLI_FIT_REPORT_H
#define RVE_CLI_FIT_REPORT_H

#include <rve/optim.h>
#include <rve/raster.h>

/* Layout of slice_{x,y,z}.png: three panels (target map, fit, misassigned
 * voxels) of the middle slice across axis a, W x H voxels (W, H the map's
 * sizes along the two other axes in order x, y, z), each voxel a square of
 * s pixels, s the largest integer with s max(W, H) <= 320 (at least 1).
 * Panel p (0, 1, 2) has its top-left corner at pixel
 * (FIT_SLICE_LEFT + p (s W + FIT_SLICE_GAP), FIT_SLICE_TOP); voxel (u, v)
 * of the slice is the s x s block at column u, row H - 1 - v (v upwards).
 * Void voxels (label 0) are black in every panel. */
#define FIT_SLICE_LEFT 56
#define FIT_SLICE_TOP 48
#define FIT_SLICE_GAP 44

/* Write slice_x.png, slice_y.png, slice_z.png, convergence.png and
 * accuracy.png of fit r of map m into dir (created by the transaction). */
rve_status cli_fit_report(const char *dir, const rve_map *m, const rve_fit_result *r, rve_err *err);

#endif
