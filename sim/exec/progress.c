/* SPDX-License-Identifier: GPL-2.0-or-later */
/* progress.c - the status line of progress.h. */
#include "progress.h"
#include "engine.h"

#include <math.h>
#include <stdlib.h>
#include <time.h>

/* Seconds of work before the line appears: 1, or $VLOCKSIM_PROGRESS_AFTER
 * (tests set 0 so that they never depend on how fast the machine is). */
static double
progress_after(void)
{
	const char *e = getenv("VLOCKSIM_PROGRESS_AFTER");
	char *end;
	double v;

	if (e == NULL || *e == '\0')
		return 1.0;
	v = strtod(e, &end);
	return *end == '\0' && v >= 0 ? v : 1.0;
}

double
progress_now(void)
{
	return sim_wall();
}

void
progress_start(struct progress *p, FILE *tty, const char *what)
{
	p->tty = tty;
	p->what = what;
	p->t0 = progress_now();
	p->last = 0;
	p->shown = 0;
	p->after = progress_after();
	p->ldone = 0;
	p->t_done = 0;
}

double
progress_eta(double t_n, double n, double el, double left, double running)
{
	double per = t_n / n;

	return fmax(per * left - (el - t_n), per * fmax(left - running, 0));
}

/* 75s -> "1m15s", 3725s -> "1h02m". */
void
progress_hms(char *buf, size_t n, double s)
{
	long t = (long)(s + 0.5);

	if (t >= 3600)
		snprintf(buf, n, "%ldh%02ldm", t / 3600, t / 60 % 60);
	else if (t >= 60)
		snprintf(buf, n, "%ldm%02lds", t / 60, t % 60);
	else
		snprintf(buf, n, "%lds", t);
}

void
progress_show(struct progress *p, double done, double total, const char *unit,
    const char *detail)
{
	progress_show_jobs(p, done, 1, total, unit, detail);
}

void
progress_show_jobs(struct progress *p, double done, double running, double total,
    const char *unit, const char *detail)
{
	double now, el;
	char e[32], eta[32];

	if (p->tty == NULL)
		return;
	now = progress_now();
	el = now - p->t0;
	if (done != p->ldone) {
		p->ldone = done;
		p->t_done = el;
	}
	/* nothing for work done within a second; then at most 5 redraws a second */
	if ((!p->shown && el < p->after) || (p->shown && now - p->last < 0.2))
		return;
	p->last = now;
	p->shown = 1;
	progress_hms(e, sizeof e, el);
	if (total > 0 && done > 0 && done < total)
		progress_hms(eta, sizeof eta, progress_eta(p->t_done, done, el, total - done,
		    running));
	else
		snprintf(eta, sizeof eta, "?");
	if (total > 0)
		fprintf(p->tty, "\r%s: %g/%g %s, %s elapsed, eta %s%s%s\033[K", p->what, done,
		    total, unit, e, eta, detail ? "  " : "", detail ? detail : "");
	else
		fprintf(p->tty, "\r%s: %g %s, %s elapsed%s%s\033[K", p->what, done, unit, e,
		    detail ? "  " : "", detail ? detail : "");
	fflush(p->tty);
}

void
progress_end(struct progress *p)
{
	if (p->tty != NULL && p->shown)
		fputs("\r\033[K", p->tty);
	p->shown = 0;
}
