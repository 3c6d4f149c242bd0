/* rve compare - voxel agreement between two grain maps (issue #5: not implemented yet). */
#include "config.h"
#include "cli/cli.h"

static int run(int argc, char **argv);

const cli_command cli_cmd_compare = {
    "compare", "voxel agreement between two grain maps",
    "Usage: rve compare ...\n"
    "voxel agreement between two grain maps.\n"
    "Not implemented yet (issue #5).\n",
    run,
};

static int run(int argc, char **argv)
{
    (void)argc;
    (void)argv;
    return cli_not_implemented(&cli_cmd_compare, 5);
}
