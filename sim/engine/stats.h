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
#include <string.h>

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
/* The histogram (stats.c), here so that a sample not 0 is added inline at
 * a hot caller (a lock's contended take: a call less). */
#define HIST_SUB_BITS	6
#define HIST_SUB	(1 << HIST_SUB_BITS)
#define HIST_EMIN	(-10)
#define HIST_EMAX	50
/*
 * A sample's bucket count waits in pend[] until HIST_PEND have come, then
 * all are added at once (hist_flush), before any read of b[] and before b[]
 * moves (hist_cover).  With thousands of histograms their buckets are out
 * of cache (CFS 2x at 4096 vCPUs, 512 locks' wait histograms: hist_add 8.6%
 * of the CPU, stalled on its one increment); a batch's increments are
 * independent, so their misses overlap.  Counts are sums: the same either way.
 */
#define HIST_PEND	14

struct hist {
	/* what hist_add reads, in one line: first what its inline zero path
	 * changes (stats.h) */
	struct hist_zero z;
	uint64_t *b;		/* octaves lo..hi-1, HIST_SUB buckets each; NULL: none */
	/* b[]'s first bucket as a sample's bits >> (52 - HIST_SUB_BITS), and
	 * its length (0: none): a sample's index is one subtraction, and one
	 * unsigned compare says whether b[] covers it (hist_add) */
	uint64_t base, nb;
	int lo, hi;		/* octave indexes from HIST_EMIN */
	uint32_t npend;
	uint32_t pend[HIST_PEND];	/* b[] indexes of samples not yet counted */
	uint64_t under, over;
	double umin, umax, omin;	/* extent of the underflow/overflow bucket */
};

/* Count the pending samples in b[] (stats.c). */
void hist_flush(const struct hist *);
/* hist_add_nz's samples that b[] does not cover, and those that are a model
 * bug (out of line: its libm calls' registers stay off the common path). */
void hist_add_rare(struct hist *, double v, uint64_t b);

/* A sample not 0 (hist_add asked, or its caller knows): hist_add_nz out
 * of line, hist_add_hot inline at a hot caller (lock.c's contended take) */
void hist_add_nz(struct hist *, double v);
static inline void
hist_add_hot(struct hist *h, double v)
{
	uint64_t b, i;

	h->z.count++;
	h->z.sum += v;
	if (v < h->z.min)
		h->z.min = v;
	if (v > h->z.max)
		h->z.max = v;
	/* v in [2^e, 2^(e+1)) and its bucket there, from the IEEE-754 bits
	 * (no libm call per sample): the exponent field (e biased) and the
	 * fraction's top bits, floor((v / 2^e - 1) * HIST_SUB) exactly, side by
	 * side in bits >> (52 - HIST_SUB_BITS), which grows with v; less base,
	 * b[]'s index.  A negative sample's sign bit, a NaN's or infinity's
	 * exponent field put it past any b[] (the rare path checks them); a
	 * subnormal (exponent field 0) is far below HIST_EMIN. */
	memcpy(&b, &v, sizeof b);
	i = (b >> (52 - HIST_SUB_BITS)) - h->base;
	if (i < h->nb) {
		h->pend[h->npend++] = (uint32_t)i;
		if (h->npend == HIST_PEND)
			hist_flush(h);
	} else
		hist_add_rare(h, v, b);
}

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
