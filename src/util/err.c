/* Status codes and error records. */
#include "config.h"
#include <rve/util.h>
#include <stdarg.h>
#include <string.h>

const char *rve_status_name(rve_status s)
{
    switch (s) {
    case RVE_OK: return "ok";
    case RVE_EDATA: return "bad data";
    case RVE_EUSAGE: return "bad usage";
    case RVE_EIO: return "input/output error";
    case RVE_ENOMEM: return "out of memory";
    case RVE_ECAP: return "iteration cap reached";
    case RVE_EINTERNAL: return "internal error";
    }
    return "unknown status";
}

int rve_status_exit_code(rve_status s)
{
    if (s == RVE_OK)
        return 0;
    return s == RVE_EUSAGE ? 2 : 1;
}

void rve_err_clear(rve_err *e)
{
    if (!e)
        return;
    e->code = RVE_OK;
    e->file[0] = '\0';
    e->msg[0] = '\0';
}

rve_status rve_err_set(rve_err *e, rve_status code, const char *file, const char *fmt, ...)
{
    if (!e)
        return code;
    e->code = code;
    snprintf(e->file, sizeof e->file, "%s", file ? file : "");
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(e->msg, sizeof e->msg, fmt, ap);
    va_end(ap);
    /* One line only: a message must never break the "rve sub: file: msg" form. */
    for (char *c = e->msg; *c; c++)
        if (*c == '\n' || *c == '\r')
            *c = ' ';
    return code;
}

void rve_err_format(const rve_err *e, const char *sub, char *buf, size_t n)
{
    const char *msg = e->msg[0] ? e->msg : rve_status_name(e->code);
    if (e->file[0])
        snprintf(buf, n, "rve %s: %s: %s", sub, e->file, msg);
    else
        snprintf(buf, n, "rve %s: %s", sub, msg);
}

void rve_err_print(const rve_err *e, const char *sub, FILE *stream)
{
    char line[RVE_ERR_FILE_MAX + RVE_ERR_MSG_MAX + 64];
    rve_err_format(e, sub, line, sizeof line);
    fprintf(stream, "%s\n", line);
}
