/* tess_internal.h - internals of the tessellation module (not installed). */
#ifndef RVE_TESS_INTERNAL_H
#define RVE_TESS_INTERNAL_H
#include <rve/tess.h>
#endif
