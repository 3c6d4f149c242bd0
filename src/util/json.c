/* A small streaming JSON writer. */
#include "config.h"
#include <rve/util.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

void rve_json_init(rve_json *j, FILE *fp)
{
    memset(j, 0, sizeof *j);
    j->fp = fp;
}

/* Separator before a value or a key at the current level. */
static void json_sep(rve_json *j)
{
    if (j->after_key) {
        j->after_key = 0;
        return;
    }
    if (j->depth > 0 && j->depth <= RVE_JSON_DEPTH && j->count[j->depth - 1]++ > 0)
        fputc(',', j->fp);
}

static void json_open(rve_json *j, int c)
{
    json_sep(j);
    fputc(c, j->fp);
    if (j->depth >= RVE_JSON_DEPTH)
        j->error = 1;
    else
        j->count[j->depth] = 0;
    j->depth++;
}

static void json_close(rve_json *j, int c)
{
    if (j->depth <= 0) {
        j->error = 1;
        return;
    }
    j->depth--;
    fputc(c, j->fp);
    if (j->depth == 0)
        fputc('\n', j->fp);
}

void rve_json_begin_object(rve_json *j) { json_open(j, '{'); }
void rve_json_end_object(rve_json *j) { json_close(j, '}'); }
void rve_json_begin_array(rve_json *j) { json_open(j, '['); }
void rve_json_end_array(rve_json *j) { json_close(j, ']'); }

size_t rve_json_escape(const char *s, char *out, size_t n)
{
    size_t len = 0;
#define PUT(ch)                      \
    do {                             \
        if (len + 1 < n)             \
            out[len] = (char)(ch);   \
        len++;                       \
    } while (0)
    PUT('"');
    for (const unsigned char *p = (const unsigned char *)(s ? s : ""); *p; p++) {
        unsigned c = *p;
        const char *rep = NULL;
        switch (c) {
        case '"': rep = "\\\""; break;
        case '\\': rep = "\\\\"; break;
        case '\b': rep = "\\b"; break;
        case '\f': rep = "\\f"; break;
        case '\n': rep = "\\n"; break;
        case '\r': rep = "\\r"; break;
        case '\t': rep = "\\t"; break;
        default: break;
        }
        if (rep) {
            for (; *rep; rep++)
                PUT(*rep);
        } else if (c < 0x20 || c == 0x7f) {
            char u[8];
            snprintf(u, sizeof u, "\\u%04x", c);
            for (int k = 0; u[k]; k++)
                PUT(u[k]);
        } else {
            PUT(c); /* UTF-8 bytes pass through unchanged */
        }
    }
    PUT('"');
#undef PUT
    if (n)
        out[len < n ? len : n - 1] = '\0';
    return len;
}

static void json_write_string(rve_json *j, const char *s)
{
    char small[256];
    size_t need = rve_json_escape(s, small, sizeof small);
    if (need < sizeof small) {
        fputs(small, j->fp);
        return;
    }
    char *big = malloc(need + 1);
    if (!big) {
        j->error = 1;
        fputs("null", j->fp);
        return;
    }
    rve_json_escape(s, big, need + 1);
    fputs(big, j->fp);
    free(big);
}

void rve_json_key(rve_json *j, const char *key)
{
    json_sep(j);
    json_write_string(j, key);
    fputc(':', j->fp);
    j->after_key = 1;
}

void rve_json_string(rve_json *j, const char *s)
{
    json_sep(j);
    if (s)
        json_write_string(j, s);
    else
        fputs("null", j->fp);
}

void rve_json_number(rve_json *j, double x)
{
    json_sep(j);
    if (isfinite(x))
        fprintf(j->fp, "%.17g", x);
    else
        fputs("null", j->fp);
}

void rve_json_int(rve_json *j, long long x)
{
    json_sep(j);
    fprintf(j->fp, "%lld", x);
}

void rve_json_bool(rve_json *j, int b)
{
    json_sep(j);
    fputs(b ? "true" : "false", j->fp);
}

void rve_json_null(rve_json *j)
{
    json_sep(j);
    fputs("null", j->fp);
}

void rve_json_kv_string(rve_json *j, const char *key, const char *s) { rve_json_key(j, key); rve_json_string(j, s); }
void rve_json_kv_number(rve_json *j, const char *key, double x) { rve_json_key(j, key); rve_json_number(j, x); }
void rve_json_kv_int(rve_json *j, const char *key, long long x) { rve_json_key(j, key); rve_json_int(j, x); }
void rve_json_kv_bool(rve_json *j, const char *key, int b) { rve_json_key(j, key); rve_json_bool(j, b); }

int rve_json_ok(const rve_json *j) { return !j->error && j->depth == 0 && !ferror(j->fp); }
