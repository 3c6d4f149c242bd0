/* rve/util.h - shared conventions: status codes, error reports, atomic file
 * output, JSON writing, argument parsing, progress reporting and threads.
 *
 * Library functions never print and never exit: they return an rve_status
 * and, on failure, fill an rve_err the caller owns.  The command-line tool
 * turns an rve_err into one line "rve <sub>: <file>: <what is wrong>". */
#ifndef RVE_UTIL_H
#define RVE_UTIL_H

#include <stddef.h>
#include <stdio.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------------------ status */
typedef enum {
    RVE_OK = 0,
    RVE_EDATA = 1,   /* bad input data: corrupt file, NaN, degenerate shape */
    RVE_EUSAGE = 2,  /* bad arguments or options */
    RVE_EIO = 3,     /* the system refused a read or write */
    RVE_ENOMEM = 4,  /* out of memory */
    RVE_ECAP = 5,    /* an iteration cap was reached */
    RVE_EINTERNAL = 6
} rve_status;

const char *rve_status_name(rve_status s);

/* Exit code the CLI uses for a status: 1 for data/IO problems, 2 for usage. */
int rve_status_exit_code(rve_status s);

/* ------------------------------------------------------------------ errors */
#define RVE_ERR_FILE_MAX 512
#define RVE_ERR_MSG_MAX 512

typedef struct {
    rve_status code;
    char file[RVE_ERR_FILE_MAX]; /* file (or other subject) the error is about; may be empty */
    char msg[RVE_ERR_MSG_MAX];
} rve_err;

void rve_err_clear(rve_err *e);
/* Record an error; returns code so that callers can `return rve_err_set(...)`.
 * e may be NULL (the error is then only returned). */
rve_status rve_err_set(rve_err *e, rve_status code, const char *file, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 4, 5)))
#endif
    ;
/* Format "rve <sub>: <file>: <msg>" (file part omitted when empty) into buf. */
void rve_err_format(const rve_err *e, const char *sub, char *buf, size_t n);
/* Print that line on stream (with a newline). */
void rve_err_print(const rve_err *e, const char *sub, FILE *stream);

/* ------------------------------------------------------------ atomic files */
/* Output goes to a temporary file in the target's folder and replaces the
 * target only on rve_afile_commit (fflush, fsync, rename): a failed run never
 * leaves a truncated result.  Path "-" writes to stdout directly. */
typedef struct rve_afile rve_afile;

rve_afile *rve_afile_open(const char *path, int binary, rve_err *err);
FILE *rve_afile_fp(rve_afile *af);
const char *rve_afile_path(const rve_afile *af);
/* Commits (or, if the stream saw a write error, aborts) and frees af. */
rve_status rve_afile_commit(rve_afile *af, rve_err *err);
/* Removes the temporary file and frees af. Safe with NULL. */
void rve_afile_abort(rve_afile *af);

/* Write a whole buffer atomically. */
rve_status rve_write_file_atomic(const char *path, const void *data, size_t n, rve_err *err);

/* Details of the discipline (docs/reliability.md):
 * - an existing target keeps its permission bits; a symbolic link is followed
 *   (the file it names is replaced, not the link);
 * - a target that exists and is not a regular file (device, FIFO) and "-"
 *   (standard output) are written in place as streams; their commit checks
 *   the flush and the close.
 * For a writer that wants a file name rather than a FILE (gmsh): the
 * temporary is rve_afile_tmp_path(af), named with the given suffix (gmsh
 * picks the format from it); commit fsyncs it (or copies it into a stream
 * target).  The caller checks that the writer finished the file. */
rve_afile *rve_afile_open_external(const char *path, const char *suffix, rve_err *err);
const char *rve_afile_tmp_path(const rve_afile *af);

/* Process-wide transaction, for programs (the rve command uses it around
 * every subcommand): after rve_afile_txn_begin, rve_afile_commit leaves the
 * complete, fsync'ed temporary in place, and rve_afile_txn_commit renames
 * them all at the end; rve_afile_txn_abort removes them (and the folders made
 * by rve_afile_txn_mkdir, when empty).  Not thread-safe: open and commit
 * files from one thread.  rve_afile_staged_path(path) names the temporary
 * holding path's staged content (path itself when none), for reading an
 * output back before the end. */
void rve_afile_txn_begin(void);
int rve_afile_txn_active(void);
rve_status rve_afile_txn_commit(rve_err *err);
void rve_afile_txn_abort(void);
const char *rve_afile_staged_path(const char *path);
rve_status rve_afile_txn_mkdir(const char *dir, rve_err *err);

/* Install handlers of SIGINT, SIGTERM and SIGHUP that remove every live
 * temporary (a fixed, async-signal-safe registry) and _exit(128 + signal).
 * Once rve_afile_txn_commit has begun they are ignored: the outputs are
 * then completed and the program should exit soon after.  Call it from
 * the thread that commits (the main thread): a signal the kernel gives to
 * another thread is passed on to that one, which alone cleans up.
 * For programs; a library user with its own handlers can leave it. */
void rve_afile_signals_install(void);
/* Temporaries created and not yet renamed or removed (for tests). */
int rve_afile_live_temporaries(void);

/* 1 when a and b name the same file: same st_dev and st_ino after following
 * links when both exist, the same canonical path when neither does yet.
 * Standard output "-" and devices never clash. */
int rve_path_same_file(const char *a, const char *b);

/* -------------------------------------------------------------------- JSON */
/* A streaming writer that inserts commas and escapes strings. Nesting depth
 * is bounded by RVE_JSON_DEPTH; deeper nesting is ignored (and reported by
 * rve_json_ok).
 * rve_json is opaque: its bytes are the writer's private state, read and
 * written only by the functions below (docs/api-style.md). It has a fixed
 * size so that a caller can still declare one on its stack
 * (`rve_json j; rve_json_init(&j, stdout);`) and nothing needs freeing. */
#define RVE_JSON_DEPTH 32
#define RVE_JSON_STATE_BYTES 256
typedef struct {
    union {
        void *align_ptr_;
        long long align_ll_;
        double align_d_;
        unsigned char bytes_[RVE_JSON_STATE_BYTES];
    } private_;
} rve_json;

void rve_json_init(rve_json *j, FILE *fp);
void rve_json_begin_object(rve_json *j);
void rve_json_end_object(rve_json *j);
void rve_json_begin_array(rve_json *j);
void rve_json_end_array(rve_json *j);
void rve_json_key(rve_json *j, const char *key);
void rve_json_string(rve_json *j, const char *s);
/* Finite numbers are written with %.17g (round-trip exact), NaN/inf as null. */
void rve_json_number(rve_json *j, double x);
void rve_json_int(rve_json *j, long long x);
void rve_json_bool(rve_json *j, int b);
void rve_json_null(rve_json *j);
/* Convenience: key + value. */
void rve_json_kv_string(rve_json *j, const char *key, const char *s);
void rve_json_kv_number(rve_json *j, const char *key, double x);
void rve_json_kv_int(rve_json *j, const char *key, long long x);
void rve_json_kv_bool(rve_json *j, const char *key, int b);
int rve_json_ok(const rve_json *j);
/* Escape s as a JSON string literal (with quotes) into out (size n).
 * Returns the length needed (excluding the terminating NUL), like snprintf. */
size_t rve_json_escape(const char *s, char *out, size_t n);

/* --------------------------------------------------------- argument parsing */
/* Strict parsers: the whole string must be consumed, no NaN/inf, no
 * overflow. Return RVE_OK or RVE_EUSAGE (without printing). */
rve_status rve_parse_double(const char *s, double *out);
rve_status rve_parse_long(const char *s, long *out);
rve_status rve_parse_int_range(const char *s, long lo, long hi, long *out);
/* "a,b,c" (or a single "a" meaning a,a,a when allow_scalar) -> v[0..2]. */
rve_status rve_parse_triplet(const char *s, double v[3], int allow_scalar);
/* Comma-separated list of up to nmax doubles; *n gets the count. */
rve_status rve_parse_list(const char *s, double *v, int nmax, int *n);

/* -------------------------------------------------------- verbosity & threads */
typedef enum { RVE_QUIET = 0, RVE_NORMAL = 1, RVE_VERBOSE = 2 } rve_verbosity;

/* Thread count: requested > 0 wins, else RVE_THREADS, else all cores.
 * Applies it to OpenMP and returns it.  Under load, run programs with
 * OMP_WAIT_POLICY=passive (the rve program sets it): spinning idle workers
 * made the polish up to 9x slower beside one busy process on 2 cores
 * (docs/reliability.md). */
int rve_threads_setup(int requested);
int rve_threads_get(void);

/* Monotonic wall clock in seconds. */
double rve_now(void);

/* ---------------------------------------------------------- random numbers */
/* The project's one generator: xoshiro256** seeded through splitmix64.
 * Re-entrant: the caller owns the state (no global state). */
typedef struct {
    uint64_t s[4];
} rve_rng;

void rve_rng_seed(rve_rng *r, uint64_t seed);
/* The splitmix64 stream (Steele, Lea and Flood 2014) that seeds rve_rng:
 * adds the golden-ratio increment to *state and returns the mixed value.
 * Used directly where a reproducible stream is keyed by one 64-bit word
 * (synthetic maps, `rve gen --volumes` starting seeds). */
uint64_t rve_splitmix64(uint64_t *state);
uint64_t rve_rng_next(rve_rng *r);
double rve_rng_uniform(rve_rng *r); /* [0,1), 53 bits */
double rve_rng_normal(rve_rng *r);  /* standard normal (Box-Muller) */
/* Uniformly distributed unit quaternion (w,x,y,z) (Shoemake's method). */
void rve_rng_quat(rve_rng *r, double q[4]);

/* ------------------------------------------------------------ distributions */
/* The one distribution type of the project (`rve gen --morpho`, `rve pack
 * --size`).  Text syntax (rve_distrib_parse), names case-insensitive:
 *   X or constant(X)     the value X
 *   normal(MEAN,SD)      normal
 *   lognormal(MEAN,SD)   lognormal with the mean and standard deviation of the
 *                        variable itself (as Neper), not of its logarithm
 *   weibull(K,LAMBDA)    Weibull with shape K and scale LAMBDA
 *   uniform(LO,HI)       uniform on [LO,HI]
 *   custom(FILE)         piecewise-linear density through the lines 'x density'
 * each optionally truncated by ",from=A" and/or ",to=B" inside the
 * parentheses, e.g. "lognormal(1,0.2,from=0.5,to=2)". */
typedef enum {
    RVE_DISTRIB_NORMAL = 0, /* p1 mean, p2 standard deviation */
    RVE_DISTRIB_LOGNORMAL,  /* p1 mean, p2 standard deviation of the variable (as Neper) */
    RVE_DISTRIB_WEIBULL,    /* p1 shape k, p2 scale lambda */
    RVE_DISTRIB_CUSTOM,     /* piecewise-linear density through (x[k], pdf[k]) */
    RVE_DISTRIB_DIRAC,      /* p1 the only value ("constant") */
    RVE_DISTRIB_UNIFORM     /* p1 lower, p2 upper bound */
} rve_distrib_kind;

typedef struct {
    rve_distrib_kind kind;
    double p1, p2;
    double lo, hi;       /* truncation bounds (-HUGE_VAL / HUGE_VAL when none) */
    size_t npts;         /* custom: number of points */
    double *x, *pdf;     /* custom: abscissae (increasing) and density values */
    double *cdf;         /* custom: cumulative values at x (internal) */
    double flo, fhi;     /* untruncated CDF at lo and hi (internal) */
} rve_distrib;

/* Parse s into d (free with rve_distrib_free: custom() allocates).
 * RVE_EUSAGE naming the problem (bad syntax or parameters, a truncation
 * interval without probability); custom files: RVE_EDATA naming the file. */
rve_status rve_distrib_parse(const char *s, rve_distrib *d, rve_err *err);
void rve_distrib_free(rve_distrib *d);
/* The canonical text form (snprintf semantics; custom: its point count). */
int rve_distrib_format(const rve_distrib *d, char *buf, size_t n);
/* CDF, quantile (inverse CDF) and mean of the truncated distribution. */
double rve_distrib_cdf(const rve_distrib *d, double x);
double rve_distrib_quantile(const rve_distrib *d, double u);
double rve_distrib_mean(const rve_distrib *d);
/* Closed-form mean and standard deviation of the untruncated distribution. */
double rve_distrib_base_mean(const rve_distrib *d);
double rve_distrib_base_sd(const rve_distrib *d);
/* One sample; truncation by rejection (at most 10000 tries, then RVE_ECAP). */
rve_status rve_distrib_sample(const rve_distrib *d, rve_rng *rng, double *x);

/* -------------------------------------------------------------------- misc */
/* Path helpers. */
const char *rve_path_ext(const char *path);      /* ".tif" or "" */
int rve_path_has_ext(const char *path, const char *ext); /* case-insensitive */
/* Reads stop with RVE_EDATA beyond this many bytes (2 GiB; environment
 * RVE_READ_MAX overrides it), so that /dev/zero or an endless pipe ends. */
size_t rve_read_cap(void);
/* Read a whole file into a malloc'd buffer (NUL-terminated); *n = size. */
rve_status rve_read_file(const char *path, char **buf, size_t *n, rve_err *err);
/* The same, reading at most max bytes (and never beyond rve_read_cap()):
 * a longer file is RVE_EDATA ("longer than the N bytes expected"), so that
 * a read is bounded by what the caller's header announced. */
rve_status rve_read_file_max(const char *path, size_t max, char **buf, size_t *n, rve_err *err);
/* Read a whole text file ("-": standard input); a NUL byte inside is an
 * error naming the file ("<stdin>" for standard input) and the offset. */
rve_status rve_read_text_file(const char *path, char **buf, rve_err *err);

#ifdef __cplusplus
}
#endif
#endif
