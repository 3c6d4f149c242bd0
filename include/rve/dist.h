/* rve/dist.h - distance and contact kernels: GJK with signed volumes, shapes, penetration depth, contacts. */
#ifndef RVE_DIST_H
#define RVE_DIST_H

#include <rve/util.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ================================================= distance (issue 3) */

/* ============================================ contact kernels (issue 4) */

#ifdef __cplusplus
}
#endif
#endif
