/* rve/rve.h - umbrella header of librve. */
#ifndef RVE_RVE_H
#define RVE_RVE_H
#include <rve/util.h>
#include <rve/dist.h>
#include <rve/raster.h>
#include <rve/tess.h>
#include <rve/optim.h>
#include <rve/mesh.h>
#include <rve/pack.h>
#include <rve/ori.h>
#include <rve/pipeline.h>
#endif
