/* A small streaming JSON writer.
 *
 * rve_json is opaque (rve/util.h): its bytes hold a json_state, copied in
 * and out with memcpy (so the state is never read through a pointer of
 * another type). The copy is ~150 bytes per call; the writer's output is
 * small summaries, so this costs nothing measurable. */
#include "config.h"
#include <rve/util.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
    FILE *fp;
    int depth;
    int count[RVE_JSON_DEPTH]; /* items written at each level */
    int after_key;
    int error;
} json_state;

_Static_assert(sizeof(json_state) <= RVE_JSON_STATE_BYTES,
               "rve_json's private bytes must hold the writer state");

static json_state load(const rve_json *j)
{
    json_state s;
    memcpy(&s, j->private_.bytes_, sizeof s);
    return s;
}

static void store(rve_json *j, const json_state *s)
{
    memcpy(j->private_.bytes_, s, sizeof *s);
}

void rve_json_init(rve_json *j, FILE *fp)
{
    json_state s;
    memset(j, 0, sizeof *j);
    memset(&s, 0, sizeof s);
    s.fp = fp;
    store(j, &s);
}

/* Separator before a value or a key at the current level. */
static void json_sep(json_state *j)
{
    if (j->after_key) {
        j->after_key = 0;
        return;
    }
    if (j->depth > 0 && j->depth <= RVE_JSON_DEPTH && j->count[j->depth - 1]++ > 0)
        fputc(',', j->fp);
}

static void json_open(rve_json *pub, int c)
{
    json_state s = load(pub), *j = &s;
    json_sep(j);
    fputc(c, j->fp);
    if (j->depth >= RVE_JSON_DEPTH)
        j->error = 1;
    else
        j->count[j->depth] = 0;
    j->depth++;
    store(pub, j);
}

static void json_close(rve_json *pub, int c)
{
    json_state s = load(pub), *j = &s;
    if (j->depth <= 0) {
        j->error = 1;
        store(pub, j);
        return;
    }
    j->depth--;
    fputc(c, j->fp);
    if (j->depth == 0)
        fputc('\n', j->fp);
    store(pub, j);
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

static void json_write_string(json_state *j, const char *s)
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

void rve_json_key(rve_json *pub, const char *key)
{
    json_state s = load(pub);
    json_sep(&s);
    json_write_string(&s, key);
    fputc(':', s.fp);
    s.after_key = 1;
    store(pub, &s);
}

void rve_json_string(rve_json *pub, const char *str)
{
    json_state s = load(pub);
    json_sep(&s);
    if (str)
        json_write_string(&s, str);
    else
        fputs("null", s.fp);
    store(pub, &s);
}

/* A scalar value already formatted (numbers, booleans, null). */
static void json_scalar(rve_json *pub, const char *text)
{
    json_state s = load(pub);
    json_sep(&s);
    fputs(text, s.fp);
    store(pub, &s);
}

void rve_json_number(rve_json *j, double x)
{
    char buf[40];
    if (!isfinite(x)) {
        json_scalar(j, "null");
        return;
    }
    snprintf(buf, sizeof buf, "%.17g", x);
    json_scalar(j, buf);
}

void rve_json_int(rve_json *j, long long x)
{
    char buf[32];
    snprintf(buf, sizeof buf, "%lld", x);
    json_scalar(j, buf);
}

void rve_json_bool(rve_json *j, int b) { json_scalar(j, b ? "true" : "false"); }
void rve_json_null(rve_json *j) { json_scalar(j, "null"); }

void rve_json_kv_string(rve_json *j, const char *key, const char *s) { rve_json_key(j, key); rve_json_string(j, s); }
void rve_json_kv_number(rve_json *j, const char *key, double x) { rve_json_key(j, key); rve_json_number(j, x); }
void rve_json_kv_int(rve_json *j, const char *key, long long x) { rve_json_key(j, key); rve_json_int(j, x); }
void rve_json_kv_bool(rve_json *j, const char *key, int b) { rve_json_key(j, key); rve_json_bool(j, b); }

int rve_json_ok(const rve_json *j)
{
    json_state s = load(j);
    return !s.error && s.depth == 0 && !ferror(s.fp);
}
