/* The values of the regularisation and mesh options, parsed and range-checked
 * in one place, so rve reg, rve mesh and rve run accept the same values and
 * say the same thing about a bad one. */
#include "config.h"
#include <math.h>
#include <string.h>

#include "cli/meshcli.h"

static int bad(const cli_command *cmd, const char *name, const char *what, const char *arg)
{
    return cli_usage_error(cmd, "--%s: expected %s, got '%s'", name, what, arg);
}

/* a double in (lo, hi) or [lo, hi) (lo_closed), hi = INFINITY for none */
static int real_in(const cli_command *cmd, const char *name, const char *arg, double lo, int lo_closed,
                   double hi, const char *what, double *v)
{
    double x;
    if (rve_parse_double(arg, &x) != RVE_OK || !(lo_closed ? x >= lo : x > lo) || !(x < hi))
        return bad(cmd, name, what, arg);
    *v = x;
    return 0;
}

static int int_in(const cli_command *cmd, const char *name, const char *arg, long lo, long hi, const char *what,
                  int *v)
{
    long x;
    if (rve_parse_int_range(arg, lo, hi, &x) != RVE_OK)
        return bad(cmd, name, what, arg);
    *v = (int)x;
    return 0;
}

int meshcli_reg_option(const cli_command *cmd, const char *name, const char *arg, rve_reg_opts *o)
{
    if (!strcmp(name, "rsel"))
        return real_in(cmd, name, arg, 0, 0, INFINITY, "a positive number", &o->rsel);
    if (!strcmp(name, "length"))
        return real_in(cmd, name, arg, 0, 0, INFINITY, "a positive length", &o->length);
    if (!strcmp(name, "min-angle"))
        return real_in(cmd, name, arg, 0, 1, 60, "degrees in [0, 60)", &o->min_angle);
    if (!strcmp(name, "max-angle"))
        return real_in(cmd, name, arg, 0, 0, 90, "degrees in (0, 90)", &o->max_angle);
    if (!strcmp(name, "passes"))
        return int_in(cmd, name, arg, 1, 1000, "a count from 1 to 1000", &o->max_passes);
    return cli_usage_error(cmd, "--%s: not a regularisation option", name);
}

int meshcli_mesh_option(const cli_command *cmd, const char *name, const char *arg, rve_mesh_opts *o)
{
    if (!strcmp(name, "max-elements"))
        return real_in(cmd, name, arg, 0, 1, INFINITY, "a count >= 0 (0: no cap)", &o->max_elements);
    if (!strcmp(name, "cl"))
        return real_in(cmd, name, arg, 0, 0, INFINITY, "a positive element size", &o->cl);
    if (!strcmp(name, "rcl"))
        return real_in(cmd, name, arg, 0, 0, INFINITY, "a positive number", &o->rcl);
    if (!strcmp(name, "order"))
        return int_in(cmd, name, arg, 1, 2, "1 or 2", &o->order);
    if (!strcmp(name, "optimize"))
        return int_in(cmd, name, arg, 0, 100, "a count from 0 to 100", &o->optimize);
    return cli_usage_error(cmd, "--%s: not a mesh option", name);
}

int meshcli_format_option(const cli_command *cmd, const char *arg, unsigned *mask, int *fepx)
{
    static const char *const names[RVE_MESH_NFORMATS] = {"msh", "msh22", "inp", "vtk"};
    const char *p = arg;
    *mask = 0;
    *fepx = 0;
    while (*p) {
        size_t len = strcspn(p, ",");
        int f = 0;
        while (f < RVE_MESH_NFORMATS && !(strlen(names[f]) == len && !strncmp(p, names[f], len)))
            f++;
        if (f < RVE_MESH_NFORMATS)
            *mask |= 1u << f;
        else if (len == 4 && !strncmp(p, "fepx", 4))
            *fepx = 1;
        else
            return cli_usage_error(cmd, "--format: expected a list among msh, msh22, inp, vtk, fepx, got '%.*s'",
                                   (int)len, p);
        p += len;
        p += *p == ',';
    }
    if (!*mask && !*fepx)
        return cli_usage_error(cmd, "--format: empty list");
    return 0;
}
