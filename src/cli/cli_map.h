/* cli_map.h - grain-map input options shared by stat, compare and convert (not installed). */
#ifndef RVE_CLI_MAP_H
#define RVE_CLI_MAP_H

#include "cli/cli.h"
#include <rve/raster.h>
#include <string.h>

enum {
    CLI_MAP_VOXEL_SIZE = CLI_OPT_FIRST + 0x80,
    CLI_MAP_ORIGIN,
    CLI_MAP_DIMS,
    CLI_MAP_BYTES_IN,
    CLI_MAP_BIG_IN,
    CLI_MAP_OFFSET
};

#define CLI_MAP_LONG                                              \
    {"voxel-size", required_argument, NULL, CLI_MAP_VOXEL_SIZE},  \
    {"origin", required_argument, NULL, CLI_MAP_ORIGIN},          \
    {"dims", required_argument, NULL, CLI_MAP_DIMS},              \
    {"in-bytes", required_argument, NULL, CLI_MAP_BYTES_IN},      \
    {"in-big-endian", no_argument, NULL, CLI_MAP_BIG_IN},         \
    {"in-offset", required_argument, NULL, CLI_MAP_OFFSET}

#define CLI_MAP_HELP                                                                     \
    "Input options (every map argument):\n"                                              \
    "      --voxel-size H|HX,HY,HZ  voxel size, overriding the file's (default: from\n"  \
    "                               .tesr or TIFF resolution tags, else 1)\n"            \
    "      --origin X,Y,Z           corner of voxel (0,0,0), overriding the file's\n"    \
    "      --dims NX,NY,NZ          dimensions of a .raw input (x fastest)\n"            \
    "      --in-bytes N             bytes per label of a .raw input: 1, 2 or 4 (2)\n"    \
    "      --in-big-endian          .raw input is big-endian\n"                          \
    "      --in-offset N            bytes to skip at the start of a .raw input\n"

/* 1: handled, 0: not ours, -1: bad value (message printed). */
static inline int cli_map_option(const cli_command *cmd, rve_map_load_opts *o, int opt, const char *arg)
{
    double v[3];
    long x;
    switch (opt) {
    case CLI_MAP_VOXEL_SIZE:
        if (rve_parse_triplet(arg, v, 1) != RVE_OK || !(v[0] > 0 && v[1] > 0 && v[2] > 0)) {
            cli_usage_error(cmd, "--voxel-size: expected H or HX,HY,HZ (positive), got '%s'", arg);
            return -1;
        }
        o->set_h = 1;
        memcpy(o->h, v, sizeof v);
        return 1;
    case CLI_MAP_ORIGIN:
        if (rve_parse_triplet(arg, v, 1) != RVE_OK) {
            cli_usage_error(cmd, "--origin: expected X,Y,Z, got '%s'", arg);
            return -1;
        }
        o->set_origin = 1;
        memcpy(o->origin, v, sizeof v);
        return 1;
    case CLI_MAP_DIMS: {
        int n;
        if (rve_parse_list(arg, v, 3, &n) != RVE_OK || n != 3 || v[0] < 1 || v[1] < 1 || v[2] < 1 ||
            v[0] > 2147483647.0 || v[1] > 2147483647.0 || v[2] > 2147483647.0 || v[0] != (int)v[0] ||
            v[1] != (int)v[1] || v[2] != (int)v[2]) {
            cli_usage_error(cmd, "--dims: expected NX,NY,NZ (positive integers), got '%s'", arg);
            return -1;
        }
        o->raw.nx = (int)v[0], o->raw.ny = (int)v[1], o->raw.nz = (int)v[2];
        return 1;
    }
    case CLI_MAP_BYTES_IN:
        if (rve_parse_int_range(arg, 1, 4, &x) != RVE_OK || x == 3) {
            cli_usage_error(cmd, "--in-bytes: expected 1, 2 or 4, got '%s'", arg);
            return -1;
        }
        o->raw.bytes = (int)x;
        return 1;
    case CLI_MAP_BIG_IN:
        o->raw.big_endian = 1;
        return 1;
    case CLI_MAP_OFFSET:
        if (rve_parse_long(arg, &x) != RVE_OK || x < 0) {
            cli_usage_error(cmd, "--in-offset: expected a byte count, got '%s'", arg);
            return -1;
        }
        o->raw.offset = (size_t)x;
        return 1;
    default: return 0;
    }
}

static inline void cli_map_opts_init(rve_map_load_opts *o)
{
    rve_map_load_opts_default(o);
    o->raw.bytes = 2;
}

#endif
