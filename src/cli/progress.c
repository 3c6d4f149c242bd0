/* Progress reporting on stderr: bar with rate and ETA on a terminal, periodic
 * plain lines otherwise (logs, CI), nothing when quiet. */
#include "config.h"
#define _POSIX_C_SOURCE 200809L
#include "cli/progress.h"
#include <math.h>
#include <string.h>
#include <unistd.h>

void cli_progress_start(cli_progress *p, const char *label, double total, rve_verbosity v)
{
    memset(p, 0, sizeof *p);
    p->fp = stderr;
    p->enabled = v != RVE_QUIET;
    p->verbose = v >= RVE_VERBOSE;
    p->tty = isatty(fileno(stderr));
    snprintf(p->label, sizeof p->label, "%s", label ? label : "");
    p->total = total;
    p->t0 = rve_now();
    p->last_print = p->t0;
    p->interval = 5.0;
}

static void format_seconds(double s, char *buf, size_t n)
{
    if (!isfinite(s) || s < 0)
        snprintf(buf, n, "?");
    else if (s < 60)
        snprintf(buf, n, "%.0fs", s);
    else if (s < 3600)
        snprintf(buf, n, "%dm%02ds", (int)(s / 60), (int)fmod(s, 60));
    else
        snprintf(buf, n, "%dh%02dm", (int)(s / 3600), (int)fmod(s / 60, 60));
}

void cli_progress_render(const cli_progress *p, double now, char *buf, size_t n)
{
    double el = now - p->t0;
    double rate = el > 0 ? p->done / el : 0;
    char eta[32], elapsed[32];
    format_seconds(el, elapsed, sizeof elapsed);
    if (p->total > 0) {
        double f = p->done / p->total;
        if (f < 0)
            f = 0;
        if (f > 1)
            f = 1;
        const int width = 24;
        char bar[32];
        int fill = (int)(f * width + 0.5);
        for (int i = 0; i < width; i++)
            bar[i] = i < fill ? '#' : '.';
        bar[width] = '\0';
        format_seconds(rate > 0 ? (p->total - p->done) / rate : NAN, eta, sizeof eta);
        snprintf(buf, n, "%s [%s] %3.0f%% %.0f/%.0f %.3g/s %s %s%s%s", p->label, bar, 100 * f, p->done, p->total,
                 rate, p->finished ? "done in" : "ETA", p->finished ? elapsed : eta, p->extra[0] ? " " : "",
                 p->extra);
    } else {
        snprintf(buf, n, "%s %.0f %.3g/s elapsed %s%s%s", p->label, p->done, rate, elapsed,
                 p->extra[0] ? " " : "", p->extra);
    }
}

void cli_progress_update(cli_progress *p, double done, const char *extra)
{
    p->done = done;
    if (extra)
        snprintf(p->extra, sizeof p->extra, "%s", extra);
    if (!p->enabled)
        return;
    double now = rve_now();
    double every = p->tty ? 0.1 : p->interval;
    if (now - p->last_print < every)
        return;
    p->last_print = now;
    char line[256];
    cli_progress_render(p, now, line, sizeof line);
    if (p->tty)
        fprintf(p->fp, "\r\033[K%s", line);
    else
        fprintf(p->fp, "%s\n", line);
    fflush(p->fp);
    p->printed = 1;
}

void cli_progress_finish(cli_progress *p) { cli_progress_finish_at(p, p->total > 0 ? p->total : p->done); }

void cli_progress_finish_at(cli_progress *p, double done)
{
    p->done = done;
    p->finished = 1;
    if (!p->enabled)
        return;
    double now = rve_now();
    char line[256];
    cli_progress_render(p, now, line, sizeof line);
    /* On a terminal the bar's last state stays; in logs one closing line. */
    if (p->tty)
        fprintf(p->fp, "\r\033[K%s\n", line);
    else if (p->printed || p->verbose || now - p->t0 >= 1.0)
        fprintf(p->fp, "%s\n", line);
    fflush(p->fp);
}
