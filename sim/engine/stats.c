/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * stats.c - time-weighted levels, log-bucketed histograms, replications.
 */
#include "stats.h"
#include "util.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <gsl/gsl_cdf.h>

void
tw_init(struct tw *w, int64_t now, double level)
{
	w->level = level;
	w->since = now;
	w->start = now;
	w->area = 0;
}

void
tw_set(struct tw *w, int64_t now, double level)
{
	VS_ASSERT(now >= w->since);
	w->area += w->level * (double)(now - w->since);
	w->since = now;
	w->level = level;
}

void
tw_add(struct tw *w, int64_t now, double delta)
{
	tw_set(w, now, w->level + delta);
}

/* Mean over [start, now]; the current level counts up to now. */
double
tw_mean(const struct tw *w, int64_t now)
{
	VS_ASSERT(now >= w->since);
	if (now <= w->start)
		return w->level;
	return (w->area + w->level * (double)(now - w->since)) /
	    (double)(now - w->start);
}

/*
 * Histogram: each octave [2^e, 2^(e+1)) is cut into HIST_SUB equal buckets
 * (HdrHistogram style), so a bucket is at most 1/64 = 1.6% of its lower
 * edge wide, the index comes from frexp() with no log(), and interpolation
 * inside a bucket is linear.  Octaves 2^-10 (< 1e-3) up to 2^50 (> 1e15)
 * are kept: 60 x 64 buckets, 30 KB.  Smaller positive values share an
 * underflow bucket, larger ones an overflow bucket (each spanning the
 * exact extent of what fell in it), zeros their own count; min and max are
 * exact and clamp the interpolation at the ends.
 */
#define HIST_SUB	64
#define HIST_EMIN	(-10)
#define HIST_EMAX	50
#define HIST_NB		((HIST_EMAX - HIST_EMIN) * HIST_SUB)

struct hist {
	uint64_t count, zeros, under, over;
	double sum, min, max;
	double umin, umax, omin;	/* extent of the underflow/overflow bucket */
	uint64_t b[HIST_NB];
};

struct hist *
hist_new(void)
{
	struct hist *h = xcalloc(1, sizeof *h);

	h->min = h->umin = h->omin = INFINITY;
	h->max = h->umax = -INFINITY;
	return h;
}

void
hist_free(struct hist *h)
{
	free(h);
}

/* frexp for the finite v > 0 a histogram takes, read from the IEEE-754
 * bits (the same m and e; no libm call per sample).  Subnormals go to
 * frexp: they are far below HIST_EMIN anyway. */
static inline double
hist_frexp(double v, int *e)
{
	uint64_t b;
	int be;

	memcpy(&b, &v, sizeof b);
	be = (int)(b >> 52 & 0x7ff);
	if (be == 0)
		return frexp(v, e);
	*e = be - 1022;
	b = (b & ~(0x7ffull << 52)) | (1022ull << 52);	/* exponent of [0.5, 1) */
	memcpy(&v, &b, sizeof v);
	return v;
}

void
hist_add(struct hist *h, double v)
{
	int e;
	double m;

	/* Negative, NaN or infinite samples are a model bug, not bad input. */
	VS_ASSERT(v >= 0 && isfinite(v));
	h->count++;
	h->sum += v;
	if (v < h->min)
		h->min = v;
	if (v > h->max)
		h->max = v;
	if (v == 0) {
		h->zeros++;
		return;
	}
	m = hist_frexp(v, &e);		/* v = m * 2^e, m in [0.5, 1) */
	e--;				/* v in [2^e, 2^(e+1)) */
	if (e < HIST_EMIN) {
		h->under++;
		h->umin = fmin(h->umin, v);
		h->umax = fmax(h->umax, v);
	} else if (e >= HIST_EMAX) {
		h->over++;
		h->omin = fmin(h->omin, v);
	} else
		h->b[(e - HIST_EMIN) * HIST_SUB + (int)((2 * m - 1) * HIST_SUB)]++;
}

uint64_t
hist_count(const struct hist *h)
{
	return h->count;
}

double
hist_mean(const struct hist *h)
{
	return h->count ? h->sum / (double)h->count : 0;
}

static double
clamp(double x, double lo, double hi)
{
	return x < lo ? lo : x > hi ? hi : x;
}

/* Spread the c samples of [lo, hi) evenly; rank r (0-based, fractional) inside. */
static double
interp(double lo, double hi, double r, uint64_t c)
{
	return lo + (hi - lo) * (r + 0.5) / (double)c;
}

double
hist_quantile(const struct hist *h, double q)
{
	double r, lo;
	uint64_t cum;
	int i;

	if (h->count == 0)
		return 0;
	if (q <= 0)
		return h->min;
	if (q >= 1)
		return h->max;
	/* Rank of the wanted sample, 0-based, as in the "lower" definition. */
	r = q * (double)(h->count - 1);
	if (r < (double)h->zeros)
		return 0;
	cum = h->zeros;
	if (r < (double)(cum + h->under))
		return interp(h->umin, h->umax, r - (double)cum, h->under);
	cum += h->under;
	for (i = 0; i < HIST_NB; i++) {
		if (h->b[i] == 0 || r >= (double)(cum + h->b[i])) {
			cum += h->b[i];
			continue;
		}
		lo = ldexp(1 + (double)(i % HIST_SUB) / HIST_SUB,
		    HIST_EMIN + i / HIST_SUB);
		return clamp(interp(lo, lo * (1 + 1.0 / (HIST_SUB +
		    i % HIST_SUB)), r - (double)cum, h->b[i]), h->min, h->max);
	}
	return interp(h->omin, h->max, r - (double)cum, h->over);
}

void
rep_init(struct rep *p)
{
	p->n = 0;
	p->mean = 0;
	p->m2 = 0;
}

void
rep_add(struct rep *p, double x)
{
	double d = x - p->mean;

	p->n++;
	p->mean += d / (double)p->n;
	p->m2 += d * (x - p->mean);
}

double
rep_mean(const struct rep *p)
{
	return p->mean;
}

double
rep_sd(const struct rep *p)
{
	return p->n < 2 ? 0 : sqrt(p->m2 / (double)(p->n - 1));
}

double
rep_ci95(const struct rep *p)
{
	if (p->n < 2)
		return 0;
	return gsl_cdf_tdist_Pinv(0.975, (double)(p->n - 1)) * rep_sd(p) /
	    sqrt((double)p->n);
}

void
hist_merge(struct hist *dst, const struct hist *src)
{
	size_t i;

	dst->count += src->count;
	dst->zeros += src->zeros;
	dst->under += src->under;
	dst->over += src->over;
	dst->sum += src->sum;
	dst->min = fmin(dst->min, src->min);
	dst->max = fmax(dst->max, src->max);
	dst->umin = fmin(dst->umin, src->umin);
	dst->umax = fmax(dst->umax, src->umax);
	dst->omin = fmin(dst->omin, src->omin);
	for (i = 0; i < HIST_NB; i++)
		dst->b[i] += src->b[i];
}
