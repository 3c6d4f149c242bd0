/* reg_internal.h - regularisation of the internal complex (not installed). */
#ifndef RVE_REG_INTERNAL_H
#define RVE_REG_INTERNAL_H

#include "mesh/cx.h"
#include <rve/mesh.h>
#include <stdint.h>

/* Regularise c in place.  plane0: 4 nf initial face planes (normal out of
 * fc[2f]), compacted along with the faces.  Faces left are compacted, vertices renumbered, face points set.
 * stretch (periodic box complexes): lengthen the short edges no collapse removed (reg_stretch_short). */
rve_status rve_cx_reg(rve_cx *c, double *plane0, double threshold, double max_angle,
                      int max_passes, int remove_small, int stretch, rve_reg_report *rep, rve_err *err);
/* Move vertices of a regularised complex (face points follow as vertex
 * means) to mend angles below min_angle and edges shorter than threshold,
 * then to win back voxel accuracy against map (required: the grain map, or
 * a raster of the input tessellation). */
rve_status rve_cx_polish(rve_cx *c, const rve_map *map, const int *ids, double threshold,
                         double max_angle, double min_angle, const rve_reg_opts *o,
                         rve_reg_report *rep, rve_err *err);
/* Edge histogram, shortest edge and short edges left (after) of c into rep; -1 out of memory. */
int rve_cx_reg_measure(const rve_cx *c, double threshold, rve_reg_report *rep);
int rve_reg_cmp_u64(const void *x, const void *y);
/* Complex of a (non-periodic) tessellation with topology; plane0 (may be
 * NULL) receives a malloc'd copy of the face planes. Cell ids are 1..n. */
rve_status rve_cx_from_tess(const rve_tess *t, rve_cx **out, double **plane0, rve_err *err);

#endif
