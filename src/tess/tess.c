/* tess.c - tessellation structure, build, update, topology (in progress). */
#include "config.h"
#include "tess/tess_internal.h"
#include <stdlib.h>

void rve_tess_opts_default(rve_tess_opts *o)
{
    o->topology = 1;
    o->keep_container = 1;
    o->threads = 0;
}
