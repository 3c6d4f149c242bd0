/* rve dist - exact distances between convex bodies (GJK, signed volumes) (issue #3: not implemented yet). */
#include "config.h"
#include "cli/cli.h"

static int run(int argc, char **argv);

const cli_command cli_cmd_dist = {
    "dist", "exact distances between convex bodies (GJK, signed volumes)",
    "Usage: rve dist ...\n"
    "exact distances between convex bodies (GJK, signed volumes).\n"
    "Not implemented yet (issue #3).\n",
    run,
};

static int run(int argc, char **argv)
{
    (void)argc;
    (void)argv;
    return cli_not_implemented(&cli_cmd_dist, 3);
}
