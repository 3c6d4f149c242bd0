/* progress.h - progress bars of the `rve` program (not part of librve:
 * the library reports progress through callbacks in its options). */
#ifndef RVE_CLI_PROGRESS_H
#define RVE_CLI_PROGRESS_H
#include <rve/util.h>
#include <stdio.h>

/* Progress on stderr: a bar with rate and ETA when stderr is a terminal,
 * plain lines every few seconds otherwise (and a closing line after a second
 * of work, or always with -v), nothing when quiet.  Call from
 * one thread only. */
typedef struct {
    FILE *fp;
    int enabled;
    int verbose;       /* -v: the closing line is printed even for short work */
    int tty;
    char label[64];
    double total;
    double done;
    double t0;
    double last_print;
    double interval;   /* seconds between non-tty lines */
    char extra[96];    /* e.g. "objective 1.234" */
    int printed;
    int finished;      /* set by cli_progress_finish*: the closing line shows the time taken */
} cli_progress;

void cli_progress_start(cli_progress *p, const char *label, double total, rve_verbosity v);
void cli_progress_update(cli_progress *p, double done, const char *extra);
void cli_progress_finish(cli_progress *p);
/* The same, for work that stopped before its total (converged early): the
 * closing line shows `done` of the total, not a full bar. */
void cli_progress_finish_at(cli_progress *p, double done);
/* Render the bar text (no terminal codes) into buf; used by the tty path and tests. */
void cli_progress_render(const cli_progress *p, double now, char *buf, size_t n);

#endif
