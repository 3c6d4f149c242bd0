/* vti_out.h - the DAMASK .vti output shared by rve raster and rve convert
 * (internal to the CLI). */
#ifndef RVE_CLI_VTI_OUT_H
#define RVE_CLI_VTI_OUT_H

#include <string.h>

/* Does path name a .vti (DAMASK grid solver input, rve_map_write_damask)? */
static inline int cli_path_is_vti(const char *path)
{
    size_t n = strlen(path);
    return n > 4 && strcmp(path + n - 4, ".vti") == 0;
}

#endif
