/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * trace_emit.c - how the trace reports write a measured quantity (trace_emit.h):
 * its quantiles, its fit (fit.c's families, the smallest AIC) and the text of
 * times and distributions.  Shared by trace_in.c's report and trace_guest.c's,
 * so neither includes the other for them.
 */
#include "config.h"

#include "trace_emit.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "stats.h"

void
ti_q_free(struct ti_q *q)
{
	hist_free(q->h);
	free(q->res);
}

double
ti_q_quantile(const struct ti_q *q, double p)
{
	if (q->given) {
		if (p == 0.05)
			return q->g_p5;
		if (p == 0.5)
			return q->g_p50;
		if (p == 0.95)
			return q->g_p95;
		return NAN;
	}
	if (q->h == NULL || q->n == 0)
		return NAN;
	return hist_quantile(q->h, p);
}

/* A time with a unit picked so the number stays in [1, 1000): 93.1us. */
const char *
ti_fmt_ns(double ns, char *buf, size_t n)
{
	static const char *const u[] = { "ns", "us", "ms", "s" };
	int i = 0;

	if (!isfinite(ns)) {
		snprintf(buf, n, "-");
		return buf;
	}
	while (i < 3 && fabs(ns) >= 1000) {
		ns /= 1000;
		i++;
	}
	snprintf(buf, n, "%.5g%s", ns, u[i]);
	return buf;
}

/* Fit a quantity; 0 when it has no samples at all. */
int
ti_q_fit(const struct ti_q *q, struct ti_qfit *f)
{
	memset(f, 0, sizeof *f);
	f->kind = TI_FIT_CONST;
	if (q->n == 0)
		return 0;
	f->mean = q->sum / (double)q->n;
	if (q->given) {
		/* Lognormal through the median and the 95th percentile:
		 * mu = ln p50, sigma = ln(p95 / p50) / z(0.95). */
		if (q->g_p50 > 0 && q->g_p95 > q->g_p50) {
			double sg = log(q->g_p95 / q->g_p50) / 1.6448536269514722;

			f->kind = TI_FIT_P50P95;
			f->mean = q->g_p50 * exp(sg * sg / 2);
			f->sd = f->mean * sqrt(expm1(sg * sg));
		}
		return 1;
	}
	if (q->nres >= 3 && fit_all(q->res, q->nres, &f->fa) >= 0) {
		const struct fit_result *r = &f->fa.r[f->fa.best];

		f->kind = f->fa.best;
		f->mean = r->mean;
		f->sd = r->sd;
		f->shape = r->p1;
		if (f->kind == FIT_LOGNORMAL && !(r->p2 > 1e-9))
			f->kind = TI_FIT_CONST;
	}
	return 1;
}

void
ti_put_dist(FILE *o, const struct ti_qfit *f)
{
	char a[32], b[32];

	switch (f->kind) {
	case FIT_EXPONENTIAL:
		fprintf(o, "{dist: exponential, mean: %s}", ti_fmt_ns(f->mean, a, sizeof a));
		break;
	case FIT_LOGNORMAL:
	case TI_FIT_P50P95:
		fprintf(o, "{dist: lognormal, mean: %s, sd: %s}", ti_fmt_ns(f->mean, a, sizeof a),
		    ti_fmt_ns(f->sd, b, sizeof b));
		break;
	case FIT_GAMMA:
		fprintf(o, "{dist: gamma, shape: %.5g, mean: %s}", f->shape,
		    ti_fmt_ns(f->mean, a, sizeof a));
		break;
	default:
		fprintf(o, "{dist: const, value: %s}", ti_fmt_ns(f->mean, a, sizeof a));
	}
}

void
ti_put_fit(FILE *o, const struct ti_q *q, const struct ti_qfit *f)
{
	char a[32], b[32], c[32];
	int k;

	fprintf(o, "{n: %llu", (unsigned long long)q->n);
	if (q->given) {
		/* What the summary printed: xenalyze percentiles, perf kvm stat min/max. */
		fprintf(o, ", fit: %s", f->kind == TI_FIT_P50P95 ? "p50+p95" : "none");
		if (isfinite(q->g_p50))
			fprintf(o, ", p5: %s, p50: %s, p95: %s", ti_fmt_ns(q->g_p5, a, sizeof a),
			    ti_fmt_ns(q->g_p50, b, sizeof b), ti_fmt_ns(q->g_p95, c, sizeof c));
		if (isfinite(q->min) && isfinite(q->max))
			fprintf(o, ", min: %s, max: %s", ti_fmt_ns(q->min, a, sizeof a),
			    ti_fmt_ns(q->max, b, sizeof b));
		fputc('}', o);
		return;
	}
	fprintf(o, ", zeros: %llu, fitted: %zu", (unsigned long long)q->zeros, q->nres);
	if (f->kind >= 0) {
		const struct fit_result *r = &f->fa.r[f->kind];

		fprintf(o, ", ks_d: %.4g, loglik: %.6g, aic: %.6g", r->ks_d, r->loglik, r->aic);
		for (k = 0; k < FIT_NKINDS; k++)
			if (f->fa.r[k].ok)
				fprintf(o, ", %s_aic: %.6g, %s_ks_d: %.4g", fit_name((enum fit_kind)k),
				    f->fa.r[k].aic, fit_name((enum fit_kind)k), f->fa.r[k].ks_d);
	}
	for (k = 0; k < FIT_NKINDS; k++)
		if (!f->fa.r[k].ok && f->fa.r[k].why != NULL)
			fprintf(o, ", %s_no_fit: '%s'", fit_name((enum fit_kind)k), f->fa.r[k].why);
	fprintf(o, ", p50: %s, p90: %s, p99: %s", ti_fmt_ns(ti_q_quantile(q, 0.5), a, sizeof a),
	    ti_fmt_ns(ti_q_quantile(q, 0.9), b, sizeof b), ti_fmt_ns(ti_q_quantile(q, 0.99), c, sizeof c));
	fprintf(o, ", min: %s, max: %s}", ti_fmt_ns(q->min, a, sizeof a), ti_fmt_ns(q->max, b, sizeof b));
}

void
ti_put_qdist(FILE *o, const char *ind, const char *key, const struct ti_q *q)
{
	struct ti_qfit f;

	if (!ti_q_fit(q, &f))
		return;
	fprintf(o, "%s%s: ", ind, key);
	ti_put_dist(o, &f);
	fprintf(o, "\n%s%s_fit: ", ind, key);
	ti_put_fit(o, q, &f);
	fputc('\n', o);
}
