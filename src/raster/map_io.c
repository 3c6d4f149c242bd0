/* Reading and writing grain maps: the one place that knows every format and
 * dispatches to its module (map_tiff, map_tesr, map_hdf5), so the format
 * modules do not depend on each other. */
#include "config.h"
#include <rve/raster.h>
#include <string.h>

#include "map_internal.h"

rve_status rve_map_read(const char *path, rve_map_format fmt, const rve_raw_opts *raw,
                        rve_map **out, rve_err *err)
{
    if (fmt == RVE_MAP_HDF5 || (fmt == RVE_MAP_AUTO && rve_map_is_hdf5(path))) /* by content */
        return rve_map_read_hdf5(path, NULL, out, err);
    if (fmt == RVE_MAP_AUTO)
        fmt = rve_map_format_from_path(path);
    switch (fmt) {
    case RVE_MAP_TIFF: return rve_map_read_tiff(path, out, err);
    case RVE_MAP_TESR: return rve_map_read_tesr(path, out, err);
    case RVE_MAP_RAW: return rve_map_read_raw(path, raw, out, err);
    case RVE_MAP_HDF5: return rve_map_read_hdf5(path, NULL, out, err); /* by name: says why it is not HDF5 */
    default:
        return rve_err_set(err, RVE_EDATA, path,
                           "unknown grain-map format (expected .tif, .tiff, .tesr or .raw)");
    }
}

rve_status rve_map_write(const rve_map *m, const char *path, rve_map_format fmt,
                         const rve_map_write_opts *o, rve_err *err)
{
    if (fmt == RVE_MAP_AUTO)
        fmt = rve_map_format_from_path(path);
    switch (fmt) {
    case RVE_MAP_TIFF: return rve_map_write_tiff(m, path, o, err);
    case RVE_MAP_TESR: return rve_map_write_tesr(m, path, o, err);
    case RVE_MAP_RAW: return rve_map_write_raw(m, path, o, err);
    case RVE_MAP_HDF5: return rve_map_write_hdf5(m, path, err);
    default:
        return rve_err_set(err, RVE_EUSAGE, path,
                           "unknown grain-map format (expected .tif, .tiff, .tesr or .raw)");
    }
}

void rve_map_load_opts_default(rve_map_load_opts *o)
{
    memset(o, 0, sizeof *o);
    o->h[0] = o->h[1] = o->h[2] = 1;
}

const rve_map_load_opts *rve_map_load_opts_use(const char *path, const rve_map_load_opts *o, rve_map_load_opts *d,
                                               rve_err *err)
{
    if (!o) {
        rve_map_load_opts_default(d);
        o = d;
    }
    if (o->set_h && !(o->h[0] > 0 && o->h[1] > 0 && o->h[2] > 0)) {
        rve_err_set(err, RVE_EUSAGE, path, "voxel size must be positive");
        return NULL;
    }
    return o;
}

void rve_map_load_apply(const rve_map_load_opts *o, rve_map *m)
{
    for (int a = 0; a < 3; a++) {
        if (o->set_h)
            m->h[a] = o->h[a];
        if (o->set_origin)
            m->origin[a] = o->origin[a];
    }
    if (o->set_h)
        m->has_res = 1;
}

rve_status rve_map_load(const char *path, const rve_map_load_opts *o, rve_map **out, rve_err *err)
{
    rve_map_load_opts d;
    if (!(o = rve_map_load_opts_use(path, o, &d, err)))
        return RVE_EUSAGE;
    rve_status s = rve_map_read(path, o->fmt, &o->raw, out, err);
    if (s != RVE_OK)
        return s;
    rve_map_load_apply(o, *out);
    return RVE_OK;
}
