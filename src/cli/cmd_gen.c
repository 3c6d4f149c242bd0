/* rve gen - generate a tessellation with target grain size and shape distributions (issue #9: not implemented yet). */
#include "config.h"
#include "cli/cli.h"

static int run(int argc, char **argv);

const cli_command cli_cmd_gen = {
    "gen", "generate a tessellation with target grain size and shape distributions",
    "Usage: rve gen ...\n"
    "generate a tessellation with target grain size and shape distributions.\n"
    "Not implemented yet (issue #9).\n",
    run,
};

static int run(int argc, char **argv)
{
    (void)argc;
    (void)argv;
    return cli_not_implemented(&cli_cmd_gen, 9);
}
