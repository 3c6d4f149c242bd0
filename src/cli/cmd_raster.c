/* rve raster - rasterise a tessellation on the voxel grid of a map (issue #6: not implemented yet). */
#include "config.h"
#include "cli/cli.h"

static int run(int argc, char **argv);

const cli_command cli_cmd_raster = {
    "raster", "rasterise a tessellation on the voxel grid of a map",
    "Usage: rve raster ...\n"
    "rasterise a tessellation on the voxel grid of a map.\n"
    "Not implemented yet (issue #6).\n",
    run,
};

static int run(int argc, char **argv)
{
    (void)argc;
    (void)argv;
    return cli_not_implemented(&cli_cmd_raster, 6);
}
