/* rve/pack.h - packing of grain sets into a domain. */
#ifndef RVE_PACK_H
#define RVE_PACK_H

#include <rve/util.h>

#ifdef __cplusplus
extern "C" {
#endif

#ifdef __cplusplus
}
#endif
#endif
