/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * fit.h - maximum-likelihood fits of positive samples.
 *
 * fit_all() fits an exponential, a lognormal and a gamma distribution to the
 * same sample by maximum likelihood (closed forms for the first two, Newton
 * on the digamma equation for the gamma shape), scores each by its
 * log-likelihood, AIC = 2k - 2 lnL (k parameters) and the Kolmogorov-Smirnov
 * statistic D = sup |F_n(x) - F(x)|, and picks the smallest AIC.  Values must
 * be positive and finite; the caller drops zeros (a trace with microsecond
 * timestamps yields them) and says how many it dropped.
 */
#ifndef VS_FIT_H
#define VS_FIT_H

#include <stddef.h>

enum fit_kind { FIT_EXPONENTIAL, FIT_LOGNORMAL, FIT_GAMMA, FIT_NKINDS };

struct fit_result {
	int ok;			/* 0: this family could not be fitted (n or spread too small) */
	double p1, p2;		/* exponential: mean, -; lognormal: mu, sigma;
				 * gamma: shape, scale */
	double mean, sd;	/* of the fitted variable itself */
	double loglik, aic, ks_d;
	const char *why;	/* !ok after an attempt: GSL's reason (gsl_strerror) */
};

struct fit_all {
	size_t n;
	struct fit_result r[FIT_NKINDS];
	int best;		/* index into r of the smallest AIC; -1 if none */
};

/* Fit every family; x is not modified.  Returns best (or -1 when n < 2).
 * A family whose special functions fail (GSL underflow, loss of accuracy on
 * near-equal values) is left !ok with the reason in why; GSL's abort()ing
 * default error handler is switched off here. */
int fit_all(const double *x, size_t n, struct fit_all *out);
const char *fit_name(enum fit_kind);
/* CDF of a fitted family at x; NAN if GSL cannot evaluate it. */
double fit_cdf(enum fit_kind, const struct fit_result *, double x);
/* Kolmogorov-Smirnov D of sorted data x[0..n) against a fitted family. */
double fit_ks_d(enum fit_kind, const struct fit_result *, const double *sorted, size_t n);

#endif
