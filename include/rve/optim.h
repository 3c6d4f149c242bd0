/* rve/optim.h - fitting tessellations to grain maps and statistical synthesis. */
#ifndef RVE_OPTIM_H
#define RVE_OPTIM_H

#include <rve/util.h>

#ifdef __cplusplus
extern "C" {
#endif

#ifdef __cplusplus
}
#endif
#endif
