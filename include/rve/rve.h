/* rve/rve.h - umbrella header of librve. */
#ifndef RVE_RVE_H
#define RVE_RVE_H
#include <rve/util.h>
#endif
