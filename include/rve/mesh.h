/* rve/mesh.h - regularisation and tetrahedral meshing. */
#ifndef RVE_MESH_H
#define RVE_MESH_H

#include <rve/util.h>

#ifdef __cplusplus
extern "C" {
#endif

#ifdef __cplusplus
}
#endif
#endif
