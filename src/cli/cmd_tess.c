/* rve tess - build a Laguerre/Voronoi tessellation from seeds (issue #6: not implemented yet). */
#include "config.h"
#include "cli/cli.h"

static int run(int argc, char **argv);

const cli_command cli_cmd_tess = {
    "tess", "build a Laguerre/Voronoi tessellation from seeds",
    "Usage: rve tess ...\n"
    "build a Laguerre/Voronoi tessellation from seeds.\n"
    "Not implemented yet (issue #6).\n",
    run,
};

static int run(int argc, char **argv)
{
    (void)argc;
    (void)argv;
    return cli_not_implemented(&cli_cmd_tess, 6);
}
