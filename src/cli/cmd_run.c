/* rve run - fit, regularise and mesh a grain map in one go (issue #8: not implemented yet). */
#include "config.h"
#include "cli/cli.h"

static int run(int argc, char **argv);

const cli_command cli_cmd_run = {
    "run", "fit, regularise and mesh a grain map in one go",
    "Usage: rve run ...\n"
    "fit, regularise and mesh a grain map in one go.\n"
    "Not implemented yet (issue #8).\n",
    run,
};

static int run(int argc, char **argv)
{
    (void)argc;
    (void)argv;
    return cli_not_implemented(&cli_cmd_run, 8);
}
