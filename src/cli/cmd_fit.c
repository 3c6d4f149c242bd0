/* rve fit - fit a Laguerre tessellation to a grain map (issue #7: not implemented yet). */
#include "config.h"
#include "cli/cli.h"

static int run(int argc, char **argv);

const cli_command cli_cmd_fit = {
    "fit", "fit a Laguerre tessellation to a grain map",
    "Usage: rve fit ...\n"
    "fit a Laguerre tessellation to a grain map.\n"
    "Not implemented yet (issue #7).\n",
    run,
};

static int run(int argc, char **argv)
{
    (void)argc;
    (void)argv;
    return cli_not_implemented(&cli_cmd_fit, 7);
}
