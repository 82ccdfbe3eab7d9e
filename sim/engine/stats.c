/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * stats.c - time-weighted levels, log-bucketed histograms, replications.
 */
#include "stats.h"
#include "ffsnap.h"
#include "util.h"

#include <float.h>
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
 * are kept: 60 x 64 buckets.  Smaller positive values share an underflow
 * bucket, larger ones an overflow bucket (each spanning the exact extent of
 * what fell in it), zeros their own count; min and max are exact and clamp
 * the interpolation at the ends.  Only the octaves from the lowest to the
 * highest sample so far are allocated (b[] covers octaves lo..hi-1, grown
 * when a sample falls outside): the buckets and their counts are those of
 * the full 30 KB table, but a histogram nobody fills costs nothing and one
 * of lock waits a few KB (thousands of them exist with thousands of VMs).
 */
/* Count the pending samples in b[].  Readers call it on a const histogram:
 * what it holds does not change, only where (the histogram is allocated,
 * never a const object). */
void
hist_flush(const struct hist *ch)
{
	struct hist *h = (struct hist *)ch;
	uint32_t i;

	for (i = 0; i < h->npend; i++)
		h->b[h->pend[i]]++;
	h->npend = 0;
}

struct hist *
hist_new(void)
{
	struct hist *h = xcalloc(1, sizeof *h);

	hist_reset(h);	/* the extremes of no sample */
	return h;
}

void
hist_free(struct hist *h)
{
	if (h == NULL)
		return;
	free(h->b);
	free(h);
}

void
hist_reset(struct hist *h)
{
	free(h->b);
	memset(h, 0, sizeof *h);
	h->z.min = h->umin = h->omin = INFINITY;
	h->z.max = h->umax = -INFINITY;
}

/* Make b[] cover octaves lo..hi-1 (a superset of what it covers now). */
static void
hist_cover(struct hist *h, int lo, int hi)
{
	uint64_t *b;

	hist_flush(h);
	if (h->b != NULL) {
		if (h->lo < lo)
			lo = h->lo;
		if (h->hi > hi)
			hi = h->hi;
		if (lo == h->lo && hi == h->hi)
			return;
	}
	b = xcalloc((size_t)(hi - lo) * HIST_SUB, sizeof *b);
	if (h->b != NULL)
		memcpy(b + (size_t)(h->lo - lo) * HIST_SUB, h->b,
		    (size_t)(h->hi - h->lo) * HIST_SUB * sizeof *b);
	free(h->b);
	h->b = b;
	h->lo = lo;
	h->hi = hi;
	h->base = (uint64_t)(lo + HIST_EMIN + 1023) << HIST_SUB_BITS;
	h->nb = (uint64_t)(hi - lo) * HIST_SUB;
}

/* hist_add's samples that b[] does not cover, and those that are a model
 * bug (out of line: its libm calls' registers stay off the common path). */
void
hist_add_rare(struct hist *h, double v, uint64_t b)
{
	int e = (int)(b >> 52) - 1023;

	/* Negative, NaN or infinite samples are a model bug, not bad input
	 * (and a 0 is hist_add's own, never hist_add_nz's). */
	VS_ASSERT(v > 0 && isfinite(v));
	if (e < HIST_EMIN) {
		h->under++;
		h->umin = fmin(h->umin, v);
		h->umax = fmax(h->umax, v);
	} else if (e >= HIST_EMAX) {
		h->over++;
		h->omin = fmin(h->omin, v);
	} else {
		int o = e - HIST_EMIN;

		hist_cover(h, o, o + 1);
		h->b[(b >> (52 - HIST_SUB_BITS)) - h->base]++;
	}
}

void
hist_add_nz(struct hist *h, double v)
{
	hist_add_hot(h, v);
}

/* h as ring_ff.c's snapshot lists it (ffsnap.h): its pending samples
 * counted first (what a reader does; the counts are the same), then the
 * counts and the sum (of whole ns, as every wait is) as counters, the
 * extremes as they are. */
void
hist_ffs(struct ffs *s, struct hist *h)
{
	size_t i, nb = h->b != NULL ? (size_t)(h->hi - h->lo) * HIST_SUB : 0;

	hist_flush(h);
	ffs_count(s, &h->z.count);
	ffs_fsum(s, &h->z.sum);
	ffs_bytes(s, &h->z.min, sizeof h->z.min);
	ffs_bytes(s, &h->z.max, sizeof h->z.max);
	ffs_value(s, h->lo);
	ffs_value(s, h->hi);
	ffs_count(s, &h->z.zeros);
	ffs_count(s, &h->under);
	ffs_count(s, &h->over);
	ffs_bytes(s, &h->umin, sizeof h->umin);
	ffs_bytes(s, &h->umax, sizeof h->umax);
	ffs_bytes(s, &h->omin, sizeof h->omin);
	for (i = 0; i < nb; i++)
		ffs_count(s, &h->b[i]);
}

uint64_t
hist_count(const struct hist *h)
{
	return h->z.count;
}

uint64_t
hist_nonzero(const struct hist *h)
{
	return h->z.count - h->z.zeros;
}

double
hist_sum(const struct hist *h)
{
	return h->z.sum;
}

double
hist_mean(const struct hist *h)
{
	return h->z.count ? h->z.sum / (double)h->z.count : 0;
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

	if (h->z.count == 0)
		return 0;
	if (q <= 0)
		return h->z.min;
	if (q >= 1)
		return h->z.max;
	/* Rank of the wanted sample, 0-based, as in the "lower" definition. */
	r = q * (double)(h->z.count - 1);
	if (r < (double)h->z.zeros)
		return 0;
	cum = h->z.zeros;
	if (r < (double)(cum + h->under))
		return interp(h->umin, h->umax, r - (double)cum, h->under);
	cum += h->under;
	hist_flush(h);
	/* the buckets outside lo..hi-1 are empty: start and stop there */
	for (i = h->b != NULL ? h->lo * HIST_SUB : 0; h->b != NULL && i < h->hi * HIST_SUB; i++) {
		uint64_t c = h->b[i - h->lo * HIST_SUB];

		if (c == 0 || r >= (double)(cum + c)) {
			cum += c;
			continue;
		}
		lo = ldexp(1 + (double)(i % HIST_SUB) / HIST_SUB,
		    HIST_EMIN + i / HIST_SUB);
		return clamp(interp(lo, lo * (1 + 1.0 / (HIST_SUB +
		    i % HIST_SUB)), r - (double)cum, c), h->z.min, h->z.max);
	}
	return interp(h->omin, h->z.max, r - (double)cum, h->over);
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

	dst->z.count += src->z.count;
	dst->z.zeros += src->z.zeros;
	dst->under += src->under;
	dst->over += src->over;
	dst->z.sum += src->z.sum;
	dst->z.min = fmin(dst->z.min, src->z.min);
	dst->z.max = fmax(dst->z.max, src->z.max);
	dst->umin = fmin(dst->umin, src->umin);
	dst->umax = fmax(dst->umax, src->umax);
	dst->omin = fmin(dst->omin, src->omin);
	if (src->b == NULL)
		return;
	hist_flush(src);
	hist_cover(dst, src->lo, src->hi);
	for (i = 0; i < (size_t)(src->hi - src->lo) * HIST_SUB; i++)
		dst->b[(size_t)(src->lo - dst->lo) * HIST_SUB + i] += src->b[i];
}

/*
 * s plus, k times over, c[0], ..., c[n-1] added one by one in that order:
 * bit for bit what that loop of k * n additions gives (binary64, round to
 * nearest even), in a few steps per binade the sum crosses.  Within the
 * binade of s, whose ulp u is fixed, adding c (>= 0) rounds s + c to a
 * multiple of u, and s is one: it adds round(c / u) * u whatever s is, unless
 * c / u is a tie (then the parity of s decides).  So while no sum leaves the
 * binade, an iteration adds the same number of ulps, and m iterations add m
 * times that, exactly (integers below 2^53).  Ties, a c < 0 or not finite,
 * and s at 0 or near its binade's top go the loop's own way, one iteration.
 */
double
fsum_repeat(double s, const double *c, int n, int64_t k)
{
	int j;

	while (k > 0) {
		int64_t units, step = 0, m;
		double u;
		int e, exact = s >= DBL_MIN && s < DBL_MAX;

		if (exact) {
			(void)frexp(s, &e);	/* s in [2^(e-1), 2^e): u = 2^(e-53) */
			u = ldexp(1.0, e - 53);
			for (j = 0; exact && j < n; j++) {
				double r = c[j] / u, f = floor(r);

				exact = c[j] >= 0 && r < 0x1p52 && r - f != 0.5;
				step += (int64_t)f + (r - f > 0.5);
			}
		}
		if (!exact) {	/* one iteration, as the loop does it */
			for (j = 0; j < n; j++)
				s += c[j];
			k--;
			continue;
		}
		units = (int64_t)(s / u);	/* in [2^52, 2^53) */
		/* every sum of the m iterations, and each exact s + c before its
		 * rounding (at most half an ulp above), stays below 2^53 ulps */
		m = step == 0 ? k : ((INT64_C(1) << 53) - 2 - units) / step;
		if (m > k)
			m = k;
		if (m == 0) {
			for (j = 0; j < n; j++)
				s += c[j];
			k--;
			continue;
		}
		s = (double)(units + m * step) * u;
		k -= m;
	}
	return s;
}
