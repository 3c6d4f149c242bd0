/* Atomic file output: temporary file beside the target, fsync, rename.
 *
 * Also the process-wide pieces a program needs so that no command ever
 * leaves a partial or truncated result (docs/reliability.md):
 *  - a transaction: between rve_afile_txn_begin and rve_afile_txn_commit,
 *    committed files stay complete, fsync'ed temporaries and are renamed
 *    together at the end, or all removed by rve_afile_txn_abort;
 *  - a registry of the live temporaries that a signal handler may read
 *    (fixed slots, atomics, no allocation), so that SIGINT/SIGTERM/SIGHUP
 *    remove them before the process dies.
 * Both are global by nature (a signal handler has no context pointer); the
 * kernels never touch them. */
#include "config.h"
#define _POSIX_C_SOURCE 200809L
#define _DEFAULT_SOURCE /* mkstemps, realpath */
#include <rve/util.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* ------------------------------------------------ signal-safe temp registry */
#define REG_SLOTS 256
#define REG_PATH 4096
static char reg_path[REG_SLOTS][REG_PATH];
static atomic_int reg_used[REG_SLOTS]; /* 0 free, 1 being filled, 2 live */
static atomic_int reg_lost;            /* temporaries that found no slot */
static volatile sig_atomic_t reg_hold; /* committing: finish, ignore signals */
/* Blocking the signals covers the calling thread only: a process signal may
 * run the handler on another thread (an OpenMP worker) while this one is
 * between creating a temporary (or folder) and registering it.  So creators
 * count themselves in reg_creating and give up once reg_dying is set; the
 * handler sets reg_dying, then waits (bounded) until no creator is inside. */
static atomic_int reg_creating;
static atomic_int reg_dying;
/* the thread that installed the handlers, which alone cleans up and exits */
static pthread_t reg_main;
static volatile sig_atomic_t reg_main_set;

/* 0: go on and create (call reg_create_end after registering); -1: the
 * process is exiting on a signal, create nothing */
static int reg_create_begin(void)
{
    atomic_fetch_add(&reg_creating, 1);
    if (atomic_load(&reg_dying)) {
        atomic_fetch_sub(&reg_creating, 1);
        return -1;
    }
    return 0;
}
static void reg_create_end(void) { atomic_fetch_sub(&reg_creating, 1); }

static int reg_add(const char *path)
{
    if (strlen(path) >= REG_PATH) {
        atomic_fetch_add(&reg_lost, 1);
        return -1;
    }
    for (int i = 0; i < REG_SLOTS; i++) {
        int zero = 0;
        if (atomic_compare_exchange_strong(&reg_used[i], &zero, 1)) {
            memcpy(reg_path[i], path, strlen(path) + 1);
            atomic_store(&reg_used[i], 2);
            return i;
        }
    }
    atomic_fetch_add(&reg_lost, 1);
    return -1;
}

static void reg_del(int slot)
{
    if (slot >= 0)
        atomic_store(&reg_used[slot], 0);
}

/* Folders a transaction created (rve run -o DIR, DIR/fit_report): a stack,
 * so that the handler removes the newest (innermost) first; emptied all at
 * once when the transaction ends. */
#define REG_DIRS 16
static char reg_dir[REG_DIRS][REG_PATH];
static atomic_int reg_dir_used[REG_DIRS]; /* 0 free, 1 being filled, 2 live */
static atomic_int reg_ndirs;

static void reg_dir_add(const char *path)
{
    if (strlen(path) >= REG_PATH)
        return; /* only the clean-up of an empty folder is lost */
    int i = atomic_fetch_add(&reg_ndirs, 1);
    if (i >= REG_DIRS)
        return;
    memcpy(reg_dir[i], path, strlen(path) + 1);
    atomic_store(&reg_dir_used[i], 2);
}

static void reg_dir_clear(void)
{
    for (int i = 0; i < REG_DIRS; i++)
        atomic_store(&reg_dir_used[i], 0);
    atomic_store(&reg_ndirs, 0);
}

static void on_fatal_signal(int sig)
{
    /* The kernel may run the handler on any thread (OpenMP workers, the
     * gmsh thread): it passes the signal on to the main thread, so that the
     * clean-up never runs beside the main thread's own commit or error exit
     * (a handler on a worker once removed the temporaries while the main
     * thread renamed them, and the process exited 1 instead of 130).
     * pthread_self and pthread_kill are async-signal-safe. */
    if (reg_main_set && !pthread_equal(pthread_self(), reg_main)) {
        pthread_kill(reg_main, sig);
        return;
    }
    /* a commit in progress is protected by a flag, not a mask */
    if (reg_hold)
        return;
    atomic_store(&reg_dying, 1);
    for (long spin = 0; atomic_load(&reg_creating) > 0 && spin < 100000000L; spin++)
        ;
    /* unlink, rmdir and _exit are async-signal-safe; the slots are plain
     * arrays.  rmdir refuses a folder that holds anything: only the folders
     * the transaction created, and left empty, go. */
    for (int i = 0; i < REG_SLOTS; i++)
        if (atomic_load(&reg_used[i]) == 2)
            unlink(reg_path[i]);
    for (int i = REG_DIRS; i-- > 0;)
        if (atomic_load(&reg_dir_used[i]) == 2)
            rmdir(reg_dir[i]);
    _exit(128 + sig);
}

void rve_afile_signals_install(void)
{
    static const int sigs[3] = {SIGINT, SIGTERM, SIGHUP};
    reg_main = pthread_self();
    reg_main_set = 1;
    for (int i = 0; i < 3; i++) {
        struct sigaction sa, old;
        if (sigaction(sigs[i], NULL, &old) == 0 && old.sa_handler == SIG_IGN)
            continue; /* keep an ignored signal ignored (nohup) */
        memset(&sa, 0, sizeof sa);
        sa.sa_handler = on_fatal_signal;
        sigfillset(&sa.sa_mask);
        sigaction(sigs[i], &sa, NULL);
    }
}

int rve_afile_live_temporaries(void)
{
    int n = atomic_load(&reg_lost);
    for (int i = 0; i < REG_SLOTS; i++)
        n += atomic_load(&reg_used[i]) != 0;
    return n;
}

/* ------------------------------------------------------------------ files */
enum { AF_STDOUT, AF_STREAM, AF_TEMP };

struct rve_afile {
    FILE *fp;
    int kind;
    int external;  /* the temporary is written by someone else (gmsh) */
    int slot;      /* registry slot of tmp */
    char *path;    /* the target as named */
    char *target;  /* what is replaced: path with its symbolic links followed */
    char *tmp;
};

static void afile_free(rve_afile *af)
{
    free(af->path);
    free(af->target);
    free(af->tmp);
    free(af);
}

/* The file a rename must replace: path itself unless it is a symbolic link
 * (renaming onto the link would replace the link, not the file it names). */
static char *resolve_target(const char *path)
{
    struct stat ls;
    if (lstat(path, &ls) == 0 && S_ISLNK(ls.st_mode)) {
        char *r = realpath(path, NULL);
        if (r)
            return r;
        /* dangling link: create the file it names */
        char buf[PATH_MAX];
        ssize_t n = readlink(path, buf, sizeof buf - 1);
        if (n > 0) {
            buf[n] = '\0';
            const char *slash = strrchr(path, '/');
            if (buf[0] == '/' || !slash)
                return strdup(buf);
            size_t d = (size_t)(slash - path) + 1, m = d + (size_t)n + 1;
            char *s = malloc(m);
            if (s)
                snprintf(s, m, "%.*s%s", (int)d, path, buf);
            return s;
        }
    }
    return strdup(path);
}

/* A temporary for target, named .NAME.XXXXXX[suffix] in target's folder (the
 * rename stays on one filesystem), or in $TMPDIR when target is a stream. */
static int make_temp(rve_afile *af, const char *target, const char *suffix, int in_tmpdir)
{
    const char *slash = strrchr(target, '/');
    const char *base = slash ? slash + 1 : target;
    const char *dir = NULL;
    int dirlen = slash ? (int)(slash - target) + 1 : 0;
    if (in_tmpdir) {
        dir = getenv("TMPDIR");
        if (!dir || !*dir)
            dir = "/tmp";
        dirlen = (int)strlen(dir);
    }
    size_t n = strlen(target) + strlen(suffix) + (dir ? strlen(dir) : 0) + 32;
    af->tmp = malloc(n);
    if (!af->tmp)
        return -1;
    if (in_tmpdir)
        snprintf(af->tmp, n, "%s/rve-out.XXXXXX%s", dir, suffix);
    else
        snprintf(af->tmp, n, "%.*s.%s.XXXXXX%s", dirlen, target, base, suffix);
    /* block the fatal signals so that no temporary exists unregistered */
    sigset_t all, old;
    sigfillset(&all);
    sigprocmask(SIG_BLOCK, &all, &old);
    int fd = -1;
    if (reg_create_begin() == 0) {
        fd = mkstemps(af->tmp, (int)strlen(suffix));
        if (fd >= 0)
            af->slot = reg_add(af->tmp);
        reg_create_end();
    } else
        errno = EINTR;
    sigprocmask(SIG_SETMASK, &old, NULL);
    return fd;
}

static rve_afile *afile_open(const char *path, const char *suffix, int external, rve_err *err)
{
    if (!path || !path[0]) {
        rve_err_set(err, RVE_EUSAGE, "", "empty output file name");
        return NULL;
    }
    rve_afile *af = calloc(1, sizeof *af);
    if (!af || !(af->path = strdup(path))) {
        free(af);
        rve_err_set(err, RVE_ENOMEM, path, "out of memory");
        return NULL;
    }
    af->slot = -1;
    af->external = external;
    struct stat st;
    int exists = strcmp(path, "-") != 0 && stat(path, &st) == 0;
    if (exists && S_ISDIR(st.st_mode)) {
        rve_err_set(err, RVE_EIO, path, "cannot write: it is a folder");
        afile_free(af);
        return NULL;
    }
    if (strcmp(path, "-") == 0 || (exists && !S_ISREG(st.st_mode))) {
        /* standard output, a device or a FIFO: written in place, as a stream */
        af->kind = strcmp(path, "-") == 0 ? AF_STDOUT : AF_STREAM;
        if (af->kind == AF_STDOUT)
            af->fp = stdout;
        else {
            int fd = open(path, O_WRONLY | O_NOCTTY);
            af->fp = fd >= 0 ? fdopen(fd, "w") : NULL;
            if (!af->fp) {
                rve_err_set(err, RVE_EIO, path, "cannot open for writing: %s", strerror(errno));
                if (fd >= 0)
                    close(fd);
                afile_free(af);
                return NULL;
            }
        }
        if (!external)
            return af;
        /* an external writer needs a file name: a temporary copied in at commit */
        int fd = make_temp(af, "rve-out", suffix, 1);
        if (fd < 0) {
            rve_err_set(err, RVE_EIO, path, "cannot create a temporary file: %s", strerror(errno));
            rve_afile_abort(af);
            return NULL;
        }
        close(fd);
        return af;
    }
    af->kind = AF_TEMP;
    af->target = resolve_target(path);
    if (!af->target) {
        rve_err_set(err, RVE_ENOMEM, path, "out of memory");
        afile_free(af);
        return NULL;
    }
    int fd = make_temp(af, af->target, suffix, 0);
    if (fd < 0) {
        rve_err_set(err, RVE_EIO, path, "cannot create output file: %s", strerror(errno));
        free(af->tmp);
        af->tmp = NULL;
        rve_afile_abort(af);
        return NULL;
    }
    /* mkstemp makes 0600: an existing target keeps its mode, a new file gets
     * the usual 0666 & ~umask */
    mode_t mode;
    if (exists)
        mode = st.st_mode & 07777;
    else {
        mode_t mask = umask(0);
        umask(mask);
        mode = 0666 & ~mask;
    }
    (void)fchmod(fd, mode);
    if (external) {
        close(fd);
        return af;
    }
    af->fp = fdopen(fd, "w");
    if (!af->fp) {
        close(fd);
        rve_err_set(err, RVE_EIO, path, "cannot open output stream: %s", strerror(errno));
        rve_afile_abort(af);
        return NULL;
    }
    return af;
}

rve_afile *rve_afile_open(const char *path, int binary, rve_err *err)
{
    (void)binary; /* POSIX makes no text/binary distinction */
    return afile_open(path, "", 0, err);
}

rve_afile *rve_afile_open_external(const char *path, const char *suffix, rve_err *err)
{
    return afile_open(path, suffix ? suffix : "", 1, err);
}

FILE *rve_afile_fp(rve_afile *af) { return af ? af->fp : NULL; }
const char *rve_afile_path(const rve_afile *af) { return af && af->path ? af->path : "-"; }
const char *rve_afile_tmp_path(const rve_afile *af) { return af ? af->tmp : NULL; }

static void drop_temp(rve_afile *af)
{
    if (af->tmp) {
        unlink(af->tmp);
        reg_del(af->slot);
        af->slot = -1;
    }
}

void rve_afile_abort(rve_afile *af)
{
    if (!af)
        return;
    if (af->fp && af->kind != AF_STDOUT)
        fclose(af->fp);
    drop_temp(af);
    afile_free(af);
}

/* --------------------------------------------------------- the transaction */
static struct {
    int active;
    rve_afile **files;
    size_t n, cap;
    char **dirs; /* folders created for the outputs: removed again on abort */
    size_t nd, capd;
} txn;

void rve_afile_txn_begin(void) { txn.active = 1; }
int rve_afile_txn_active(void) { return txn.active; }

/* fsync the folder holding path, so that the rename itself is durable */
static void sync_dir_of(const char *path)
{
    const char *slash = strrchr(path, '/');
    char dir[PATH_MAX];
    if (!slash)
        snprintf(dir, sizeof dir, ".");
    else
        snprintf(dir, sizeof dir, "%.*s", (int)(slash - path) + (slash == path), path);
    int fd = open(dir, O_RDONLY | O_DIRECTORY);
    if (fd >= 0) {
        (void)fsync(fd);
        close(fd);
    }
}

static rve_status commit_stream(rve_afile *af, rve_err *err);

static rve_status finish_rename(rve_afile *af, rve_err *err)
{
    if (af->kind != AF_TEMP)
        return commit_stream(af, err);
    if (rename(af->tmp, af->target) != 0) {
        rve_err_set(err, RVE_EIO, af->path, "cannot replace output file: %s", strerror(errno));
        rve_afile_abort(af);
        return RVE_EIO;
    }
    reg_del(af->slot);
    sync_dir_of(af->target);
    afile_free(af);
    return RVE_OK;
}

/* Copy the temporary of an external writer into the stream af->fp. */
static rve_status copy_in(rve_afile *af, rve_err *err)
{
    FILE *in = fopen(af->tmp, "rb");
    if (!in)
        return rve_err_set(err, RVE_EIO, af->path, "cannot read back %s: %s", af->tmp, strerror(errno));
    char buf[65536];
    size_t k;
    int bad = 0;
    while (!bad && (k = fread(buf, 1, sizeof buf, in)) > 0)
        bad = fwrite(buf, 1, k, af->fp) != k;
    bad = bad || ferror(in);
    fclose(in);
    return bad ? rve_err_set(err, RVE_EIO, af->path, "write failed: %s", strerror(errno)) : RVE_OK;
}

static rve_status commit_stream(rve_afile *af, rve_err *err)
{
    rve_status st = RVE_OK;
    if (af->external)
        st = copy_in(af, err);
    int bad = fflush(af->fp) != 0 || ferror(af->fp);
    int e = errno;
    if (af->kind == AF_STREAM) {
        bad = fclose(af->fp) != 0 || bad;
        e = bad ? errno : e;
    }
    af->fp = NULL;
    if (st == RVE_OK && bad)
        st = rve_err_set(err, RVE_EIO, af->kind == AF_STDOUT ? "standard output" : af->path,
                         "write failed: %s", strerror(e ? e : EIO));
    drop_temp(af);
    afile_free(af);
    return st;
}

static rve_status txn_push(rve_afile *af, rve_err *err);

rve_status rve_afile_commit(rve_afile *af, rve_err *err)
{
    if (!af)
        return rve_err_set(err, RVE_EINTERNAL, "", "commit of a file that was not opened");
    /* an external writer's file for a stream is copied in only when the
     * whole transaction succeeds (and after the caller's redirections) */
    if (af->kind != AF_TEMP && !(af->external && txn.active))
        return commit_stream(af, err);
    const char *path = af->path;
    if (!af->external) {
        if (fflush(af->fp) != 0 || ferror(af->fp)) {
            rve_err_set(err, RVE_EIO, path, "write failed: %s", strerror(errno ? errno : EIO));
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
    } else if (af->kind == AF_TEMP) {
        int fd = open(af->tmp, O_RDWR);
        int bad = fd < 0 || (fsync(fd) != 0 && errno != EINVAL);
        int e = errno;
        if (fd >= 0 && close(fd) != 0)
            bad = 1;
        if (bad) {
            rve_err_set(err, RVE_EIO, path, "fsync failed: %s", strerror(e));
            rve_afile_abort(af);
            return RVE_EIO;
        }
    }
    if (!txn.active)
        return finish_rename(af, err);
    return txn_push(af, err);
}

static rve_status txn_push(rve_afile *af, rve_err *err)
{
    if (txn.n == txn.cap) {
        size_t c = txn.cap ? 2 * txn.cap : 16;
        rve_afile **f = realloc(txn.files, c * sizeof *f);
        if (!f) {
            rve_err_set(err, RVE_ENOMEM, af->path, "out of memory");
            rve_afile_abort(af); /* frees af->path: the message is set first */
            return RVE_ENOMEM;
        }
        txn.files = f;
        txn.cap = c;
    }
    txn.files[txn.n++] = af;
    return RVE_OK;
}

const char *rve_afile_staged_path(const char *path)
{
    for (size_t i = txn.n; i-- > 0;)
        if (strcmp(txn.files[i]->path, path) == 0)
            return txn.files[i]->tmp;
    return path;
}

rve_status rve_afile_txn_mkdir(const char *dir, rve_err *err)
{
    /* block the fatal signals so that no created folder is unregistered */
    sigset_t all, old;
    sigfillset(&all);
    sigprocmask(SIG_BLOCK, &all, &old);
    int made = 0, e = EINTR;
    if (reg_create_begin() == 0) {
        made = mkdir(dir, 0777) == 0;
        e = errno;
        if (made && txn.active)
            reg_dir_add(dir);
        reg_create_end();
    }
    sigprocmask(SIG_SETMASK, &old, NULL);
    if (!made) {
        struct stat st;
        if (e == EEXIST && stat(dir, &st) == 0 && S_ISDIR(st.st_mode))
            return RVE_OK;
        return rve_err_set(err, RVE_EIO, dir, "cannot create the folder: %s",
                           e == EEXIST ? "a file of that name exists" : strerror(e));
    }
    if (!txn.active)
        return RVE_OK;
    if (txn.nd == txn.capd) {
        size_t c = txn.capd ? 2 * txn.capd : 8;
        char **d = realloc(txn.dirs, c * sizeof *d);
        if (!d)
            return RVE_OK; /* only the clean-up of an empty folder is lost */
        txn.dirs = d;
        txn.capd = c;
    }
    txn.dirs[txn.nd] = strdup(dir);
    if (txn.dirs[txn.nd])
        txn.nd++;
    return RVE_OK;
}

static void txn_reset(void)
{
    reg_dir_clear();
    free(txn.files);
    for (size_t i = 0; i < txn.nd; i++)
        free(txn.dirs[i]);
    free(txn.dirs);
    memset(&txn, 0, sizeof txn);
}

/* A hard link to the file a rename is about to replace (NULL when there is
 * none, or no link can be made): a later failed rename of the same
 * transaction puts it back. */
static char *keep_old(const rve_afile *af)
{
    struct stat st;
    if (af->kind != AF_TEMP || lstat(af->target, &st) != 0 || !S_ISREG(st.st_mode))
        return NULL;
    size_t m = strlen(af->tmp) + 5;
    char *b = malloc(m);
    if (!b)
        return NULL;
    snprintf(b, m, "%s.old", af->tmp);
    if (link(af->target, b) != 0) {
        free(b);
        return NULL;
    }
    return b;
}

/* Rename every temporary onto its target; when one fails, the targets
 * renamed before it get their previous file back (or are removed when there
 * was none), so that the outputs are all new or all as they were. */
static rve_status txn_rename_all(char **bak, size_t *ndone, rve_err *err)
{
    size_t i = 0;
    for (; i < txn.n; i++) {
        rve_afile *af = txn.files[i];
        if (af && rename(af->tmp, af->target) != 0) {
            rve_err_set(err, RVE_EIO, af->path, "cannot replace output file: %s", strerror(errno));
            break;
        }
    }
    *ndone = i;
    if (i == txn.n)
        return RVE_OK;
    for (size_t j = 0; j < i; j++) {
        rve_afile *af = txn.files[j];
        if (!af)
            continue;
        if (bak && bak[j]) {
            if (rename(bak[j], af->target) == 0) {
                free(bak[j]);
                bak[j] = NULL;
            }
        } else
            (void)unlink(af->target);
    }
    return RVE_EIO;
}

rve_status rve_afile_txn_commit(rve_err *err)
{
    /* everything is written and synced: only renames are left, and a signal
     * now would leave some outputs old and some new, so signals are ignored
     * from here to the end of the process */
    reg_hold = 1;
    /* with several outputs, keep the files they replace until all are renamed
     * (out of memory: no way back, as with a single rename) */
    char **bak = txn.n > 1 ? calloc(txn.n, sizeof *bak) : NULL;
    for (size_t i = 0; bak && i < txn.n; i++)
        bak[i] = keep_old(txn.files[i]);
    /* streams first: what is written to a device cannot be taken back, so
     * a failed stream leaves every file as it was */
    rve_status st = RVE_OK;
    for (size_t i = 0; i < txn.n; i++) {
        rve_afile *af = txn.files[i];
        if (af->kind != AF_TEMP) {
            if (st == RVE_OK)
                st = commit_stream(af, err);
            else
                rve_afile_abort(af);
            txn.files[i] = NULL;
        }
    }
    size_t ndone = 0;
    if (st == RVE_OK)
        st = txn_rename_all(bak, &ndone, err);
    for (size_t i = 0; i < txn.n; i++) {
        rve_afile *af = txn.files[i];
        if (!af)
            ;
        else if (i < ndone) { /* renamed (and perhaps put back): the temporary is gone */
            reg_del(af->slot);
            if (st == RVE_OK)
                sync_dir_of(af->target);
            afile_free(af);
        } else
            rve_afile_abort(af);
        if (bak && bak[i]) {
            (void)unlink(bak[i]);
            free(bak[i]);
        }
    }
    free(bak);
    txn.n = 0;
    /* a failed commit put every output back: the folders it made go too
     * (newest first; rmdir refuses non-empty ones) */
    for (size_t i = txn.nd; st != RVE_OK && i-- > 0;)
        (void)rmdir(txn.dirs[i]);
    txn_reset(); /* frees the folder names; the folders hold results now and stay */
    return st;
}

void rve_afile_txn_abort(void)
{
    for (size_t i = 0; i < txn.n; i++)
        rve_afile_abort(txn.files[i]);
    /* newest first, so that nested folders go; rmdir refuses non-empty ones */
    for (size_t i = txn.nd; i-- > 0;)
        (void)rmdir(txn.dirs[i]);
    txn_reset();
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

/* ------------------------------------------------------------------ paths */
/* Canonical name of a file that may not exist yet: its folder resolved. */
static char *canonical(const char *path)
{
    char *r = realpath(path, NULL);
    if (r)
        return r;
    char *t = resolve_target(path); /* a dangling link names its target */
    if (!t)
        return NULL;
    const char *slash = strrchr(t, '/');
    const char *base = slash ? slash + 1 : t;
    char *dir = slash ? strndup(t, (size_t)(slash - t) + (slash == t)) : strdup(".");
    char *rd = dir ? realpath(dir, NULL) : NULL;
    char *out = NULL;
    if (rd) {
        size_t n = strlen(rd) + strlen(base) + 2;
        out = malloc(n);
        if (out)
            snprintf(out, n, "%s/%s", rd, base);
    } else
        out = strdup(t);
    free(rd);
    free(dir);
    free(t);
    return out;
}

int rve_path_same_file(const char *a, const char *b)
{
    if (!a || !b || strcmp(a, "-") == 0 || strcmp(b, "-") == 0)
        return 0;
    struct stat sa, sb;
    int ea = stat(a, &sa) == 0, eb = stat(b, &sb) == 0;
    if (ea && eb) {
        /* a device written as a stream (/dev/null twice) is no clash */
        if (!S_ISREG(sa.st_mode) && !S_ISDIR(sa.st_mode))
            return 0;
        return sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
    }
    if (ea != eb)
        return 0;
    char *ca = canonical(a), *cb = canonical(b);
    int same = ca && cb && strcmp(ca, cb) == 0;
    free(ca);
    free(cb);
    return same;
}

/* ------------------------------------------------------------------ reads */
/* Reads stop at this size: /dev/zero or an endless pipe must not fill the
 * memory (RVE_READ_MAX in bytes overrides it). */
size_t rve_read_cap(void)
{
    const char *s = getenv("RVE_READ_MAX");
    char *end;
    unsigned long long v = s ? strtoull(s, &end, 10) : 0;
    if (s && *s && *end == '\0' && v > 0)
        return (size_t)v;
    return (size_t)1 << 31; /* 2 GiB */
}

/* max: 0 for rve_read_cap(), else the most the caller can use (an error
 * names it when the file is longer). */
static rve_status read_all(const char *path, int text, size_t max, char **buf, size_t *n, rve_err *err)
{
    *buf = NULL;
    *n = 0;
    const char *name = strcmp(path, "-") == 0 ? "<stdin>" : path;
    FILE *fp = strcmp(path, "-") == 0 ? stdin : fopen(path, "rb");
    if (!fp)
        return rve_err_set(err, RVE_EIO, path, "cannot open: %s", strerror(errno));
    size_t cap = 1 << 16, len = 0, limit = max ? max : rve_read_cap();
    char *b = malloc(cap);
    rve_status st = b ? RVE_OK : rve_err_set(err, RVE_ENOMEM, path, "out of memory");
    while (st == RVE_OK) {
        if (len + 1 >= cap) {
            char *nb = realloc(b, cap * 2);
            if (!nb) {
                st = rve_err_set(err, RVE_ENOMEM, path, "out of memory");
                break;
            }
            b = nb;
            cap *= 2;
        }
        size_t want = cap - len - 1;
        if (want > limit + 1 - len)
            want = limit + 1 - len;
        size_t got = fread(b + len, 1, want, fp);
        /* a text file with a NUL byte is refused at once (/dev/zero) */
        const char *z = text && got ? memchr(b + len, '\0', got) : NULL;
        if (z)
            st = rve_err_set(err, RVE_EDATA, name, "contains a NUL byte at offset %zu",
                             (size_t)(z - b));
        len += got;
        if (st == RVE_OK && len > limit)
            st = max ? rve_err_set(err, RVE_EDATA, name, "longer than the %zu bytes expected", limit)
                     : rve_err_set(err, RVE_EDATA, name, "longer than the read limit of %zu bytes "
                                   "(endless input? RVE_READ_MAX raises it)", limit);
        if (got == 0)
            break;
    }
    if (st == RVE_OK && ferror(fp))
        st = rve_err_set(err, RVE_EIO, path, "read error");
    if (fp != stdin)
        fclose(fp);
    if (st != RVE_OK) {
        free(b);
        return st;
    }
    b[len] = '\0';
    *buf = b;
    *n = len;
    return RVE_OK;
}

rve_status rve_read_file(const char *path, char **buf, size_t *n, rve_err *err)
{
    return read_all(path, 0, 0, buf, n, err);
}

rve_status rve_read_file_max(const char *path, size_t max, char **buf, size_t *n, rve_err *err)
{
    size_t cap = rve_read_cap();
    return read_all(path, 0, max && max < cap ? max : cap, buf, n, err);
}

rve_status rve_read_text_file(const char *path, char **buf, rve_err *err)
{
    size_t len;
    return read_all(path, 1, 0, buf, &len, err);
}
