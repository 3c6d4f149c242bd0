/* rve mesh - mesh a tessellation into conformal tetrahedra (gmsh) (issue #8: not implemented yet). */
#include "config.h"
#include "cli/cli.h"

static int run(int argc, char **argv);

const cli_command cli_cmd_mesh = {
    "mesh", "mesh a tessellation into conformal tetrahedra (gmsh)",
    "Usage: rve mesh ...\n"
    "mesh a tessellation into conformal tetrahedra (gmsh).\n"
    "Not implemented yet (issue #8).\n",
    run,
};

static int run(int argc, char **argv)
{
    (void)argc;
    (void)argv;
    return cli_not_implemented(&cli_cmd_mesh, 8);
}
