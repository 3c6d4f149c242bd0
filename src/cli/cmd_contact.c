/* rve contact - penetration depth, contact normal and points of convex bodies (issue #4: not implemented yet). */
#include "config.h"
#include "cli/cli.h"

static int run(int argc, char **argv);

const cli_command cli_cmd_contact = {
    "contact", "penetration depth, contact normal and points of convex bodies",
    "Usage: rve contact ...\n"
    "penetration depth, contact normal and points of convex bodies.\n"
    "Not implemented yet (issue #4).\n",
    run,
};

static int run(int argc, char **argv)
{
    (void)argc;
    (void)argv;
    return cli_not_implemented(&cli_cmd_contact, 4);
}
