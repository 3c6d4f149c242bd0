/* rve reg - regularise a tessellation (remove short edges) (issue #8: not implemented yet). */
#include "config.h"
#include "cli/cli.h"

static int run(int argc, char **argv);

const cli_command cli_cmd_reg = {
    "reg", "regularise a tessellation (remove short edges)",
    "Usage: rve reg ...\n"
    "regularise a tessellation (remove short edges).\n"
    "Not implemented yet (issue #8).\n",
    run,
};

static int run(int argc, char **argv)
{
    (void)argc;
    (void)argv;
    return cli_not_implemented(&cli_cmd_reg, 8);
}
