/* rve/tess.h - Laguerre/Voronoi tessellations with topology, .tess/VTK files, rasterisation. */
#ifndef RVE_TESS_H
#define RVE_TESS_H

#include <rve/util.h>

#ifdef __cplusplus
extern "C" {
#endif

#ifdef __cplusplus
}
#endif
#endif
