/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * dist.h - distributions written in YAML, with units.
 *
 *   5us                                  constant (shorthand)
 *   {dist: const, value: 5us}
 *   {dist: exponential, mean: 2us}
 *   {dist: uniform, min: 1us, max: 3us}
 *   {dist: normal, mean: 2us, sd: 500ns}       truncated at 0 (resampled)
 *   {dist: lognormal, mean: 2us, sd: 1us}      mean/sd of the variable itself
 *   {dist: gamma, shape: 2, mean: 2us}
 *   {dist: empirical, samples: [1us, 2us, 4us]}
 *   {dist: empirical, file: hold.csv, unit: ns}  one value per line; '#' comments
 * Samples are drawn uniformly from the empirical set.
 */
#ifndef VS_DIST_H
#define VS_DIST_H

#include "rng.h"
#include "units.h"
#include "util.h"

struct yc_node;

enum dist_type {
	DIST_CONST, DIST_EXP, DIST_UNIFORM, DIST_NORMAL, DIST_LOGNORMAL, DIST_GAMMA, DIST_EMPIRICAL
};

/* (here, not in dist.c, for dist_sample's inline path) */
struct dist {
	enum dist_type type;
	int exp_pos;		/* exponential, mean > 0, scale 1: dist_sample's
				 * first test (exp_inline) */
	double a, b;		/* const: a; exp: mean a; uniform: [a, b];
				 * normal: mean a, sd b; lognormal: mu a,
				 * sigma b; gamma: shape a, scale b */
	double mean;		/* analytic mean, before scaling */
	double scale;		/* dist_scale() factor */
	double *samples;	/* empirical */
	size_t n;
};

/* Build from a YAML node; kind says what unit values carry; hz for cycles. */
struct dist *dist_from_yaml(const struct yc_node *n, enum unit_kind kind, double hz,
    struct vs_err *err);
struct dist *dist_const(double v);
void dist_free(struct dist *);
double dist_sample_other(const struct dist *, struct rng *);
/* A draw.  Constants and exponentials, the draws of every step of the
 * common workloads, inline (a call per draw was a fifth of their cost);
 * the other kinds' calls (and registers) out of line.  Exponentials first,
 * one flag for their tests (the lock loops draw nothing else); unscaled,
 * so no multiply by 1 (a scaled one goes out of line, the same value). */
static inline double
dist_sample(const struct dist *d, struct rng *r)
{
	if (d->exp_pos) {
		double e = rng_exp(r);	/* (the mean read after: not kept across the edge's call) */

		return e * d->a;
	}
	if (d->type == DIST_CONST)
		return d->a * d->scale;
	return dist_sample_other(d, r);
}
double dist_mean(const struct dist *);
/* The least value it yields (0 when it reaches down to 0). */
double dist_min(const struct dist *);
/* Multiply every value the distribution yields by f (used for scaling work). */
void dist_scale(struct dist *, double f);
int dist_is_const(const struct dist *);
/* Samples an empirical distribution holds (0 for the others): its memory. */
size_t dist_nsamples(const struct dist *);

#endif
