/* Atomic file output: temporary file in the same folder, fsync, rename. */
#include "config.h"
#define _POSIX_C_SOURCE 200809L
#include <rve/util.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

struct rve_afile {
    FILE *fp;
    int is_stdout;
    char *path;
    char *tmp;
};

rve_afile *rve_afile_open(const char *path, int binary, rve_err *err)
{
    (void)binary; /* POSIX makes no text/binary distinction */
    if (!path || !path[0]) {
        rve_err_set(err, RVE_EUSAGE, "", "empty output file name");
        return NULL;
    }
    rve_afile *af = calloc(1, sizeof *af);
    if (!af) {
        rve_err_set(err, RVE_ENOMEM, path, "out of memory");
        return NULL;
    }
    if (strcmp(path, "-") == 0) {
        af->fp = stdout;
        af->is_stdout = 1;
        return af;
    }
    size_t n = strlen(path);
    af->path = malloc(n + 1);
    af->tmp = malloc(n + 16);
    if (!af->path || !af->tmp) {
        rve_afile_abort(af);
        rve_err_set(err, RVE_ENOMEM, path, "out of memory");
        return NULL;
    }
    memcpy(af->path, path, n + 1);
    /* A hidden name beside the target keeps the rename on one filesystem. */
    const char *slash = strrchr(path, '/');
    size_t dirlen = slash ? (size_t)(slash - path) + 1 : 0;
    snprintf(af->tmp, n + 16, "%.*s.%s.XXXXXX", (int)dirlen, path, path + dirlen);
    int fd = mkstemp(af->tmp);
    if (fd < 0) {
        rve_err_set(err, RVE_EIO, path, "cannot create output file: %s", strerror(errno));
        free(af->tmp);
        af->tmp = NULL;
        rve_afile_abort(af);
        return NULL;
    }
    /* mkstemp makes 0600; give the usual permissions of a new file. */
    mode_t mask = umask(0);
    umask(mask);
    (void)fchmod(fd, 0666 & ~mask);
    af->fp = fdopen(fd, "w");
    if (!af->fp) {
        close(fd);
        rve_err_set(err, RVE_EIO, path, "cannot open output stream: %s", strerror(errno));
        rve_afile_abort(af);
        return NULL;
    }
    return af;
}

FILE *rve_afile_fp(rve_afile *af) { return af ? af->fp : NULL; }
const char *rve_afile_path(const rve_afile *af) { return af && af->path ? af->path : "-"; }

static void afile_free(rve_afile *af)
{
    free(af->path);
    free(af->tmp);
    free(af);
}

void rve_afile_abort(rve_afile *af)
{
    if (!af)
        return;
    if (!af->is_stdout) {
        if (af->fp)
            fclose(af->fp);
        if (af->tmp)
            unlink(af->tmp);
    }
    afile_free(af);
}

rve_status rve_afile_commit(rve_afile *af, rve_err *err)
{
    if (!af)
        return rve_err_set(err, RVE_EINTERNAL, "", "commit of a file that was not opened");
    if (af->is_stdout) {
        int bad = fflush(stdout) != 0 || ferror(stdout);
        afile_free(af);
        return bad ? rve_err_set(err, RVE_EIO, "-", "write error on standard output") : RVE_OK;
    }
    const char *path = af->path;
    if (fflush(af->fp) != 0 || ferror(af->fp)) {
        rve_err_set(err, RVE_EIO, path, "write failed: %s", strerror(errno));
        rve_afile_abort(af);
        return RVE_EIO;
    }
    if (fsync(fileno(af->fp)) != 0 && errno != EINVAL) {
        rve_err_set(err, RVE_EIO, path, "fsync failed: %s", strerror(errno));
        rve_afile_abort(af);
        return RVE_EIO;
    }
    int rc = fclose(af->fp);
    af->fp = NULL;
    if (rc != 0) {
        rve_err_set(err, RVE_EIO, path, "close failed: %s", strerror(errno));
        rve_afile_abort(af);
        return RVE_EIO;
    }
    if (rename(af->tmp, af->path) != 0) {
        rve_err_set(err, RVE_EIO, path, "cannot replace output file: %s", strerror(errno));
        rve_afile_abort(af);
        return RVE_EIO;
    }
    afile_free(af);
    return RVE_OK;
}

rve_status rve_write_file_atomic(const char *path, const void *data, size_t n, rve_err *err)
{
    rve_afile *af = rve_afile_open(path, 1, err);
    if (!af)
        return err ? err->code : RVE_EIO;
    if (n && fwrite(data, 1, n, rve_afile_fp(af)) != n) {
        rve_err_set(err, RVE_EIO, path, "write failed: %s", strerror(errno));
        rve_afile_abort(af);
        return RVE_EIO;
    }
    return rve_afile_commit(af, err);
}

rve_status rve_read_file(const char *path, char **buf, size_t *n, rve_err *err)
{
    *buf = NULL;
    *n = 0;
    FILE *fp = strcmp(path, "-") == 0 ? stdin : fopen(path, "rb");
    if (!fp)
        return rve_err_set(err, RVE_EIO, path, "cannot open: %s", strerror(errno));
    size_t cap = 1 << 16, len = 0;
    char *b = malloc(cap);
    if (!b) {
        if (fp != stdin)
            fclose(fp);
        return rve_err_set(err, RVE_ENOMEM, path, "out of memory");
    }
    for (;;) {
        if (len + 1 >= cap) {
            char *nb = realloc(b, cap * 2);
            if (!nb) {
                free(b);
                if (fp != stdin)
                    fclose(fp);
                return rve_err_set(err, RVE_ENOMEM, path, "out of memory");
            }
            b = nb;
            cap *= 2;
        }
        size_t got = fread(b + len, 1, cap - len - 1, fp);
        len += got;
        if (got == 0)
            break;
    }
    int bad = ferror(fp);
    if (fp != stdin)
        fclose(fp);
    if (bad) {
        free(b);
        return rve_err_set(err, RVE_EIO, path, "read error");
    }
    b[len] = '\0';
    *buf = b;
    *n = len;
    return RVE_OK;
}

rve_status rve_read_text_file(const char *path, char **buf, rve_err *err)
{
    size_t len;
    rve_status st = rve_read_file(path, buf, &len, err);
    if (st != RVE_OK)
        return st;
    size_t nul = strlen(*buf);
    if (nul != len) {
        free(*buf);
        *buf = NULL;
        return rve_err_set(err, RVE_EDATA, strcmp(path, "-") == 0 ? "<stdin>" : path,
                           "contains a NUL byte at offset %zu", nul);
    }
    return RVE_OK;
}
