/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * stats.h - what a run measures and how replications are summarised.
 *
 * counter: a running sum.  tw (time-weighted): a level that changes at event
 * times, averaged over time.  hist: log-bucketed histogram of positive values
 * with percentiles (relative error under 2%).  rep: mean, sd and the 95%
 * confidence half-width over replications (Student t, GSL).
 */
#ifndef VS_STATS_H
#define VS_STATS_H

#include <stdint.h>
#include <stddef.h>

struct tw {
	double level;
	int64_t since;		/* time of the last change */
	int64_t start;
	double area;
};
void tw_init(struct tw *, int64_t now, double level);
void tw_set(struct tw *, int64_t now, double level);
void tw_add(struct tw *, int64_t now, double delta);
double tw_mean(const struct tw *, int64_t now);

struct hist;
struct hist *hist_new(void);
void hist_free(struct hist *);
/* Empty it, as hist_new left it (a scenario's warm-up ends). */
void hist_reset(struct hist *);
/*
 * What a sample of 0 changes, the first member of every histogram
 * (stats.c): hist_add takes a 0, most of an uncontended lock's waits,
 * inline, and any other sample out of line (hist_add_nz).  The sum is left
 * as it is, being never -0 (it starts at +0 and samples are >= 0).
 */
struct hist_zero {
	uint64_t count, zeros;
	double sum, min, max;
};
void hist_add_nz(struct hist *, double v);
static inline void
hist_add(struct hist *h, double v)
{
	if (v == 0) {
		struct hist_zero *z = (struct hist_zero *)(void *)h;	/* its first member */

		z->count++;
		z->zeros++;
		if (v < z->min)
			z->min = v;	/* (a -0 stays one, as it was added) */
		if (v > z->max)
			z->max = v;
	} else
		hist_add_nz(h, v);
}
uint64_t hist_count(const struct hist *);
/* How many samples were not 0, and the sum of all (of the values as
 * added, in their order: what a caller's own double sum would hold). */
uint64_t hist_nonzero(const struct hist *);
double hist_sum(const struct hist *);
double hist_mean(const struct hist *);
double hist_quantile(const struct hist *, double q);	/* q in [0,1] */
/* Add src's samples to dst. */
void hist_merge(struct hist *dst, const struct hist *src);
struct ffs;
/* h's state in a snapshot of a periodic run (ffsnap.h) */
void hist_ffs(struct ffs *, struct hist *);

struct rep {
	size_t n;
	double mean, m2;	/* Welford */
};
void rep_init(struct rep *);
void rep_add(struct rep *, double x);
double rep_mean(const struct rep *);
double rep_sd(const struct rep *);			/* sample sd, 0 if n < 2 */
double rep_ci95(const struct rep *);			/* half-width, 0 if n < 2 */

/* s + c[0] + ... + c[n-1], the n additions repeated k times in order, with
 * the loop's rounding, bit for bit, in a few steps per binade crossed. */
double fsum_repeat(double s, const double *c, int n, int64_t k);

#endif
