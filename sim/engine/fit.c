/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * fit.c - exponential, lognormal and gamma MLE with AIC and KS D (GSL).
 */
#include "fit.h"
#include "util.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <gsl/gsl_cdf.h>
#include <gsl/gsl_errno.h>
#include <gsl/gsl_sf_gamma.h>
#include <gsl/gsl_sf_psi.h>

static const char *const fit_names[FIT_NKINDS] = { "exponential", "lognormal", "gamma" };

const char *
fit_name(enum fit_kind k)
{
	VS_ASSERT(k >= 0 && k < FIT_NKINDS);
	return fit_names[k];
}

double
fit_cdf(enum fit_kind k, const struct fit_result *r, double x)
{
	switch (k) {
	case FIT_EXPONENTIAL:
		return gsl_cdf_exponential_P(x, r->p1);
	case FIT_LOGNORMAL:
		return gsl_cdf_lognormal_P(x, r->p1, r->p2);
	case FIT_GAMMA: {
		/* gsl_cdf_gamma_P without its GSL_ERROR_VAL: P(shape, x / scale) */
		gsl_sf_result g;

		if (!(x > 0))
			return 0;
		return gsl_sf_gamma_inc_P_e(r->p1, x / r->p2, &g) == GSL_SUCCESS ? g.val : NAN;
	}
	default:
		vs_fatal("fit_cdf: bad kind %d", (int)k);
	}
}

double
fit_ks_d(enum fit_kind k, const struct fit_result *r, const double *x, size_t n)
{
	double d = 0, f, lo, hi;
	size_t i;

	/* The empirical CDF jumps at each x[i]; compare F with both sides of the step. */
	for (i = 0; i < n; i++) {
		f = fit_cdf(k, r, x[i]);
		if (!isfinite(f))
			return NAN;
		lo = f - (double)i / (double)n;
		hi = (double)(i + 1) / (double)n - f;
		if (lo > d)
			d = lo;
		if (hi > d)
			d = hi;
	}
	return d;
}

static int
cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/*
 * Gamma shape: solve ln k - psi(k) = s, s = ln(mean) - mean(ln x) > 0, by
 * Newton from Minka's closed-form start ("Estimating a Gamma distribution",
 * 2002); the function is convex and decreasing, so Newton from the left
 * converges monotonically, and a few steps reach 1e-12.
 */
static double
gamma_shape(double s, const char **why)
{
	double k = (3 - s + sqrt((s - 3) * (s - 3) + 24 * s)) / (12 * s), f, df, nk;
	gsl_sf_result p0, p1;
	int i, st;

	for (i = 0; i < 100; i++) {
		if ((st = gsl_sf_psi_e(k, &p0)) != GSL_SUCCESS ||
		    (st = gsl_sf_psi_1_e(k, &p1)) != GSL_SUCCESS) {
			*why = gsl_strerror(st);
			return NAN;
		}
		f = log(k) - p0.val - s;
		df = 1 / k - p1.val;
		nk = k - f / df;
		if (!(nk > 0))
			nk = k / 2;
		if (fabs(nk - k) <= 1e-12 * k) {
			k = nk;
			break;
		}
		k = nk;
	}
	return k;
}

int
fit_all(const double *x, size_t n, struct fit_all *out)
{
	double *s, sum = 0, slog = 0, slog2 = 0, mean, mlog, vlog, dn = (double)n;
	struct fit_result *r;
	size_t i;
	int k;

	/* GSL's default handler abort()s on a domain error; report it instead */
	gsl_set_error_handler_off();
	memset(out, 0, sizeof *out);
	out->n = n;
	out->best = -1;
	if (n < 2)
		return -1;
	s = xmalloc(n * sizeof *s);
	memcpy(s, x, n * sizeof *s);
	qsort(s, n, sizeof *s, cmp_double);
	VS_ASSERT(s[0] > 0 && isfinite(s[n - 1]));
	for (i = 0; i < n; i++) {
		sum += s[i];
		slog += log(s[i]);
	}
	mean = sum / dn;
	mlog = slog / dn;
	for (i = 0; i < n; i++)
		slog2 += (log(s[i]) - mlog) * (log(s[i]) - mlog);
	vlog = slog2 / dn;	/* MLE variance (divides by n) */

	/* Exponential: the MLE of the mean is the sample mean. */
	r = &out->r[FIT_EXPONENTIAL];
	r->ok = 1;
	r->p1 = r->mean = r->sd = mean;
	r->loglik = -dn * log(mean) - dn;
	r->aic = 2 * 1 - 2 * r->loglik;

	if (vlog > 1e-18) {
		/* Lognormal: mu and sigma are the mean and MLE sd of ln x. */
		r = &out->r[FIT_LOGNORMAL];
		r->ok = 1;
		r->p1 = mlog;
		r->p2 = sqrt(vlog);
		r->mean = exp(mlog + vlog / 2);
		r->sd = r->mean * sqrt(expm1(vlog));
		r->loglik = -slog - dn * log(r->p2 * sqrt(2 * M_PI)) - dn / 2;
		r->aic = 2 * 2 - 2 * r->loglik;

		/* Gamma: shape from the digamma equation, scale = mean / shape. */
		r = &out->r[FIT_GAMMA];
		r->p1 = gamma_shape(log(mean) - mlog, &r->why);
		r->p2 = mean / r->p1;
		if (isfinite(r->p1) && r->p1 > 0) {
			gsl_sf_result lg;
			int st = gsl_sf_lngamma_e(r->p1, &lg);

			if (st != GSL_SUCCESS)
				r->why = gsl_strerror(st);
			else {
				r->ok = 1;
				r->mean = mean;
				r->sd = mean / sqrt(r->p1);
				r->loglik = (r->p1 - 1) * slog - sum / r->p2 -
				    dn * r->p1 * log(r->p2) - dn * lg.val;
				r->aic = 2 * 2 - 2 * r->loglik;
			}
		}
	}
	for (k = 0; k < FIT_NKINDS; k++) {
		r = &out->r[k];
		if (!r->ok)
			continue;
		r->ks_d = fit_ks_d((enum fit_kind)k, r, s, n);
		if (!isfinite(r->ks_d)) {
			/* GSL could not evaluate its CDF here: it does not fit */
			r->ok = 0;
			r->why = "its CDF cannot be evaluated at these values (GSL)";
			continue;
		}
		if (out->best < 0 || r->aic < out->r[out->best].aic)
			out->best = k;
	}
	free(s);
	return out->best;
}
