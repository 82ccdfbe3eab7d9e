/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * progress.h - one status line on a terminal for long work (validate,
 * calibrate, run): done/total, elapsed, ETA; nothing at all on a pipe.
 *
 *	struct progress p;
 *	progress_start(&p, isatty(2) ? stderr : NULL, "validate");
 *	progress_show(&p, done, total, "seed001-x5570 nople-2x/base");
 *	progress_end(&p);
 *
 * Redrawn at most every 0.2 s so it costs nothing; the ETA is progress_eta's.
 */
#ifndef VS_PROGRESS_H
#define VS_PROGRESS_H

#include <stdio.h>

struct progress {
	FILE *tty;		/* NULL: quiet */
	const char *what;
	double t0, last;
	double after;		/* seconds before the first line */
	int shown;
	double ldone, t_done;	/* done when it last changed, and then (s after t0) */
};

/* Monotonic seconds. */
double progress_now(void);
/* s as "42s", "1m15s" or "1h02m" into buf. */
void progress_hms(char *buf, size_t n, double s);
void progress_start(struct progress *, FILE *tty, const char *what);
/* total <= 0: unknown (no ETA).  detail may be NULL. */
void progress_show(struct progress *, double done, double total, const char *unit,
    const char *detail);
/* The same with `running` jobs under way (progress_show: 1). */
void progress_show_jobs(struct progress *, double done, double running, double total,
    const char *unit, const char *detail);
/*
 * Seconds left for `left` jobs when n jobs had ended at t_n seconds of work,
 * `running` are under way and it is now el (>= t_n): the mean time per job
 * times left, less the age of the work running since the last end - so the
 * estimate counts down between ends instead of up; a job later than the mean
 * holds it at the time of the jobs not yet under way.  n > 0.
 */
double progress_eta(double t_n, double n, double el, double left, double running);
/* Erase the line (if one was drawn). */
void progress_end(struct progress *);

#endif
