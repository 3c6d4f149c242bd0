/* Fault injection for rve (issue 18), SQLite style: an LD_PRELOAD shim that
 * makes the k-th call of a kind fail.  Built by `make check` as
 * tests/.libs/libfaultinject.so and driven by tests/test_faultinject.sh.
 *
 * Environment (each optional; k counts from 1):
 *   RVE_FI_ALLOC=k   the k-th allocation made by rve's own code (the rve
 *                    program and librve: malloc, calloc, realloc, strdup,
 *                    strndup called from there) returns NULL with ENOMEM.
 *                    Allocations inside other libraries are not counted:
 *                    their handling of a NULL is theirs.
 *   RVE_FI_WRITE=k   the k-th output operation on a file descriptor other
 *                    than 0 and 2 (write, pwrite, writev, and the stdio
 *                    output functions, from any caller) finds the disk full:
 *                    from then on that descriptor is /dev/full (ENOSPC), so
 *                    stdio buffers fail when flushed, as on a real full disk.
 *   RVE_FI_FSYNC=k   the k-th fsync fails with EIO.
 *   RVE_FI_RENAME=k  the k-th rename fails with EIO.
 *   RVE_FI_TRACE=1   print the call stack of the injected call on stderr
 *                    (for debugging a finding; the test does not set it).
 *   RVE_FI_COUNT=FILE  at exit, write the counts ("alloc N write N fsync N
 *                    rename N injected K") to FILE, so a driver knows how far
 *                    to sweep k and whether the fault was injected.
 * The shim is inert unless the program is rve (the libtool wrapper shell is
 * left alone).  Counters are atomic; run rve with -j 1 for a reproducible
 * order.  The real functions are looked up with dlsym(RTLD_NEXT), and
 * dlsym's own early allocations are served from a static arena.  In a
 * sanitized build the shim is built with the sanitizer and preloaded into
 * the real program (.libs/rve, not the libtool wrapper shell) ahead of the
 * ASan runtime (ASAN_OPTIONS=verify_asan_link_order=0): its malloc is found
 * first and forwards to ASan's, so leak detection sees every block. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <execinfo.h>
#include <errno.h>
#include <fcntl.h>
#include <link.h>
#include <signal.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <unistd.h>

enum { K_ALLOC, K_WRITE, K_FSYNC, K_RENAME, K_N };
static const char *const kenv[K_N] = {"RVE_FI_ALLOC", "RVE_FI_WRITE", "RVE_FI_FSYNC", "RVE_FI_RENAME"};
static long target[K_N];          /* 0: never */
static atomic_long count[K_N];
static atomic_int injected;
static int active;                /* the program is rve */
static int ready;                 /* constructor done */

/* address ranges of rve's own code (PT_LOAD executable segments) */
#define MAXR 16
static uintptr_t rlo[MAXR], rhi[MAXR];
static int nr;

/* ------------------------------------------------ real functions, bootstrap */
static void *(*r_malloc)(size_t);
static void *(*r_calloc)(size_t, size_t);
static void *(*r_realloc)(void *, size_t);
static void (*r_free)(void *);
static char *(*r_strdup)(const char *);
static char *(*r_strndup)(const char *, size_t);
static ssize_t (*r_write)(int, const void *, size_t);
static ssize_t (*r_pwrite)(int, const void *, size_t, off_t);
static ssize_t (*r_writev)(int, const struct iovec *, int);
static size_t (*r_fwrite)(const void *, size_t, size_t, FILE *);
static int (*r_fputs)(const char *, FILE *);
static int (*r_fputc)(int, FILE *);
static int (*r_vfprintf)(FILE *, const char *, va_list);
static int (*r_fflush)(FILE *);
static int (*r_fsync)(int);
static int (*r_rename)(const char *, const char *);

static _Alignas(16) char arena[1 << 16];
static size_t arena_used;
static int resolving;

static void *arena_alloc(size_t n)
{
    n = (n + 15) & ~(size_t)15;
    if (arena_used + n > sizeof arena)
        return NULL;
    void *p = arena + arena_used;
    arena_used += n;
    return p;
}

static int in_arena(const void *p)
{
    return (const char *)p >= arena && (const char *)p < arena + sizeof arena;
}

#define RESOLVE(v, name)                          \
    do {                                          \
        if (!(v))                                 \
            *(void **)&(v) = dlsym(RTLD_NEXT, name); \
    } while (0)

static void resolve_alloc(void)
{
    if (r_malloc || resolving)
        return;
    resolving = 1;
    RESOLVE(r_malloc, "malloc");
    RESOLVE(r_calloc, "calloc");
    RESOLVE(r_realloc, "realloc");
    RESOLVE(r_free, "free");
    RESOLVE(r_strdup, "strdup");
    RESOLVE(r_strndup, "strndup");
    resolving = 0;
}

static int self_segment(struct dl_phdr_info *info, size_t size, void *data)
{
    (void)size, (void)data;
    const char *n = info->dlpi_name;
    int mine = (!n || !*n) || strstr(n, "/librve.so") != NULL;
    if (!mine)
        return 0;
    for (int i = 0; i < info->dlpi_phnum && nr < MAXR; i++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
        if (ph->p_type == PT_LOAD && (ph->p_flags & PF_X)) {
            rlo[nr] = info->dlpi_addr + ph->p_vaddr;
            rhi[nr] = rlo[nr] + ph->p_memsz;
            nr++;
        }
    }
    return 0;
}

static void on_segv(int sig)
{
    void *bt[32];
    backtrace_symbols_fd(bt, backtrace(bt, 32), 2);
    signal(sig, SIG_DFL);
    raise(sig);
}

__attribute__((constructor)) static void fi_init(void)
{
    resolve_alloc();
    char exe[4096];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    exe[n > 0 ? n : 0] = 0;
    const char *base = strrchr(exe, '/');
    base = base ? base + 1 : exe;
    active = strcmp(base, "rve") == 0 || strcmp(base, "lt-rve") == 0;
    for (int k = 0; k < K_N; k++) {
        const char *v = getenv(kenv[k]);
        target[k] = v ? atol(v) : 0;
    }
    if (active)
        dl_iterate_phdr(self_segment, NULL);
    if (active && getenv("RVE_FI_TRACE") && strcmp(getenv("RVE_FI_TRACE"), "segv") == 0)
        signal(SIGSEGV, on_segv); /* RVE_FI_TRACE=segv: the stack of a crash instead */
    ready = 1;
}

__attribute__((destructor)) static void fi_fini(void)
{
    const char *f = getenv("RVE_FI_COUNT");
    if (!active || !f)
        return;
    char buf[256];
    int len = snprintf(buf, sizeof buf, "alloc %ld\nwrite %ld\nfsync %ld\nrename %ld\ninjected %d\n",
                       (long)count[K_ALLOC], (long)count[K_WRITE], (long)count[K_FSYNC],
                       (long)count[K_RENAME], (int)injected);
    int fd = (int)syscall(SYS_openat, AT_FDCWD, f, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd >= 0) {
        (void)syscall(SYS_write, fd, buf, (size_t)len);
        (void)syscall(SYS_close, fd);
    }
}

/* Count one call of kind k; 1 when this call is the one to fail. */
static int hit(int k)
{
    if (!active || !ready)
        return 0;
    long c = atomic_fetch_add(&count[k], 1) + 1;
    if (target[k] && c == target[k]) {
        atomic_store(&injected, 1);
        if (getenv("RVE_FI_TRACE") && strcmp(getenv("RVE_FI_TRACE"), "segv") != 0) {
            void *bt[32];
            backtrace_symbols_fd(bt, backtrace(bt, 32), 2);
        }
        return 1;
    }
    return 0;
}

static int from_rve(const void *ret)
{
    uintptr_t a = (uintptr_t)ret;
    for (int i = 0; i < nr; i++)
        if (a >= rlo[i] && a < rhi[i])
            return 1;
    return 0;
}

/* ------------------------------------------------------------- allocation */
#define ALLOC_FAULT()                                                          \
    (active && ready && from_rve(__builtin_return_address(0)) && hit(K_ALLOC))

void *malloc(size_t n)
{
    resolve_alloc();
    if (!r_malloc)
        return arena_alloc(n);
    if (ALLOC_FAULT()) {
        errno = ENOMEM;
        return NULL;
    }
    return r_malloc(n);
}

void *calloc(size_t a, size_t b)
{
    resolve_alloc();
    if (!r_calloc) { /* dlsym asking before calloc is known: the arena is zeroed */
        if (b && a > SIZE_MAX / b)
            return NULL;
        return arena_alloc(a * b);
    }
    if (ALLOC_FAULT()) {
        errno = ENOMEM;
        return NULL;
    }
    return r_calloc(a, b);
}

void *realloc(void *p, size_t n)
{
    resolve_alloc();
    if (in_arena(p)) { /* never happens after start-up; copy out of the arena */
        void *q = malloc(n);
        if (q)
            memcpy(q, p, n < (size_t)(arena + sizeof arena - (char *)p) ? n : (size_t)(arena + sizeof arena - (char *)p));
        return q;
    }
    if (!r_realloc)
        return NULL;
    if (ALLOC_FAULT()) {
        errno = ENOMEM;
        return NULL;
    }
    return r_realloc(p, n);
}

void free(void *p)
{
    if (!p || in_arena(p))
        return;
    resolve_alloc();
    if (r_free)
        r_free(p);
}

char *strdup(const char *s)
{
    resolve_alloc();
    if (ALLOC_FAULT()) {
        errno = ENOMEM;
        return NULL;
    }
    return r_strdup(s);
}

char *strndup(const char *s, size_t n)
{
    resolve_alloc();
    if (ALLOC_FAULT()) {
        errno = ENOMEM;
        return NULL;
    }
    return r_strndup(s, n);
}

/* ------------------------------------------------------------------ output */
/* The disk fills up under descriptor fd: it becomes /dev/full. */
static void fill_disk(int fd)
{
    int full = (int)syscall(SYS_openat, AT_FDCWD, "/dev/full", O_WRONLY | O_CLOEXEC);
    if (full >= 0) {
        (void)dup2(full, fd);
        (void)syscall(SYS_close, full);
    }
}

static int out_fault(int fd)
{
    if (fd == 0 || fd == 2 || fd < 0)
        return 0;
    if (hit(K_WRITE)) {
        fill_disk(fd);
        return 1;
    }
    return 0;
}

static int file_fault(FILE *fp)
{
    return fp ? out_fault(fileno(fp)) : 0;
}

ssize_t write(int fd, const void *b, size_t n)
{
    RESOLVE(r_write, "write");
    out_fault(fd);
    return r_write(fd, b, n);
}

ssize_t pwrite(int fd, const void *b, size_t n, off_t off)
{
    RESOLVE(r_pwrite, "pwrite");
    out_fault(fd);
    return r_pwrite(fd, b, n, off);
}

ssize_t pwrite64(int fd, const void *b, size_t n, off_t off) __attribute__((alias("pwrite")));

ssize_t writev(int fd, const struct iovec *v, int n)
{
    RESOLVE(r_writev, "writev");
    out_fault(fd);
    return r_writev(fd, v, n);
}

size_t fwrite(const void *p, size_t s, size_t n, FILE *fp)
{
    RESOLVE(r_fwrite, "fwrite");
    file_fault(fp);
    return r_fwrite(p, s, n, fp);
}

int fputs(const char *s, FILE *fp)
{
    RESOLVE(r_fputs, "fputs");
    file_fault(fp);
    return r_fputs(s, fp);
}

int fputc(int c, FILE *fp)
{
    RESOLVE(r_fputc, "fputc");
    file_fault(fp);
    return r_fputc(c, fp);
}

int putc(int c, FILE *fp) __attribute__((alias("fputc")));

int vfprintf(FILE *fp, const char *f, va_list ap)
{
    RESOLVE(r_vfprintf, "vfprintf");
    file_fault(fp);
    return r_vfprintf(fp, f, ap);
}

int fprintf(FILE *fp, const char *f, ...)
{
    va_list ap;
    va_start(ap, f);
    int r = vfprintf(fp, f, ap);
    va_end(ap);
    return r;
}

int vprintf(const char *f, va_list ap) { return vfprintf(stdout, f, ap); }

int printf(const char *f, ...)
{
    va_list ap;
    va_start(ap, f);
    int r = vfprintf(stdout, f, ap);
    va_end(ap);
    return r;
}

int puts(const char *s)
{
    if (fputs(s, stdout) == EOF)
        return EOF;
    return fputc('\n', stdout);
}

int putchar(int c) { return fputc(c, stdout); }

int fflush(FILE *fp)
{
    RESOLVE(r_fflush, "fflush");
    file_fault(fp);
    return r_fflush(fp);
}

/* ------------------------------------------------------- fsync and rename */
int fsync(int fd)
{
    RESOLVE(r_fsync, "fsync");
    if (hit(K_FSYNC)) {
        errno = EIO;
        return -1;
    }
    return r_fsync(fd);
}

int rename(const char *a, const char *b)
{
    RESOLVE(r_rename, "rename");
    if (hit(K_RENAME)) {
        errno = EIO;
        return -1;
    }
    return r_rename(a, b);
}
