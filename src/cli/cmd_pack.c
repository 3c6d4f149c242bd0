/* rve pack - pack grains, spheres or superquadrics into a domain (issue #10: not implemented yet). */
#include "config.h"
#include "cli/cli.h"

static int run(int argc, char **argv);

const cli_command cli_cmd_pack = {
    "pack", "pack grains, spheres or superquadrics into a domain",
    "Usage: rve pack ...\n"
    "pack grains, spheres or superquadrics into a domain.\n"
    "Not implemented yet (issue #10).\n",
    run,
};

static int run(int argc, char **argv)
{
    (void)argc;
    (void)argv;
    return cli_not_implemented(&cli_cmd_pack, 10);
}
