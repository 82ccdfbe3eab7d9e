/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * trace_emit.h - a measured quantity (struct ti_q, trace_acc.h) as the trace
 * reports print it: quantiles, the fit of fit.h's families with the smallest
 * AIC, a time with its unit, a {dist: ...} value and its goodness of fit.
 * trace_in.c (host side) and trace_guest.c (guest side) both write with these.
 */
#ifndef VS_TRACE_EMIT_H
#define VS_TRACE_EMIT_H

#include <stdio.h>

#include "fit.h"
#include "trace_acc.h"

void ti_q_free(struct ti_q *);	/* its histogram and reservoir */
/* p-quantile (p in 0..1) of a quantity; from a summary only p 0.05/0.5/0.95; NAN none. */
double ti_q_quantile(const struct ti_q *, double p);

/* ti_qfit.kind beyond fit.h's FIT_* families. */
enum {
	TI_FIT_CONST = -1,	/* no family fits (or no spread): a constant */
	TI_FIT_P50P95 = 100,	/* lognormal through a summary's p50 and p95 */
};

/* A quantity's fit (fit.h's families, the smallest AIC), and how reports print it. */
struct ti_qfit {
	int kind;		/* FIT_*, TI_FIT_CONST or TI_FIT_P50P95 */
	double mean, sd, shape;
	struct fit_all fa;
};
int ti_q_fit(const struct ti_q *, struct ti_qfit *);	/* 0: no samples */
void ti_put_dist(FILE *, const struct ti_qfit *);	/* {dist: ..., mean: ...} */
void ti_put_fit(FILE *, const struct ti_q *, const struct ti_qfit *);
/* IND KEY: {dist..}, then IND KEY_fit: {n..}; nothing without samples. */
void ti_put_qdist(FILE *, const char *ind, const char *key, const struct ti_q *);
const char *ti_fmt_ns(double ns, char *buf, size_t n);	/* "93.1us"; "-" not finite */

#endif
