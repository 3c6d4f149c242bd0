/* pole_figure.h - pole figures of a grain map's orientations (internal). */
#ifndef RVE_CLI_POLE_FIGURE_H
#define RVE_CLI_POLE_FIGURE_H

#include <rve/raster.h>

/* {100}, {110}, {111} pole figures (stereographic, upper hemisphere, X right,
 * Y up, sample frame) of every grain of m under m->crysym (the given
 * direction only when unknown), one dot per pole in the grain's colour,
 * written to path as a PNG (3 panels of 320 x 320 pixels; circle radius
 * 140 pixels about (160 + 320 f, 168)). */
rve_status cli_pole_figure_png(const rve_map *m, const char *path, rve_err *err);

#endif
