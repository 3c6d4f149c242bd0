/* rve convert - convert grain maps between TIFF, .tesr and raw (issue #5: not implemented yet). */
#include "config.h"
#include "cli/cli.h"

static int run(int argc, char **argv);

const cli_command cli_cmd_convert = {
    "convert", "convert grain maps between TIFF, .tesr and raw",
    "Usage: rve convert ...\n"
    "convert grain maps between TIFF, .tesr and raw.\n"
    "Not implemented yet (issue #5).\n",
    run,
};

static int run(int argc, char **argv)
{
    (void)argc;
    (void)argv;
    return cli_not_implemented(&cli_cmd_convert, 5);
}
