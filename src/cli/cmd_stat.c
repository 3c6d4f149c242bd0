/* rve stat - per-grain statistics of a grain map (issue #5: not implemented yet). */
#include "config.h"
#include "cli/cli.h"

static int run(int argc, char **argv);

const cli_command cli_cmd_stat = {
    "stat", "per-grain statistics of a grain map",
    "Usage: rve stat ...\n"
    "per-grain statistics of a grain map.\n"
    "Not implemented yet (issue #5).\n",
    run,
};

static int run(int argc, char **argv)
{
    (void)argc;
    (void)argv;
    return cli_not_implemented(&cli_cmd_stat, 5);
}
