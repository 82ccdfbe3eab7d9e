/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * metrics.h - named results of one run, and their summary over replications.
 *
 * A run appends (name, unit, value) in a fixed order; every replication of a
 * scenario yields the same names in the same order, so summaries line up by
 * position and output order is deterministic.
 */
#ifndef VS_METRICS_H
#define VS_METRICS_H

#include <stddef.h>

#include "stats.h"

struct metrics {
	size_t n, cap;
	char **names, **units;
	double *vals;
};

void metrics_init(struct metrics *);
void metrics_free(struct metrics *);
void metrics_add(struct metrics *, const char *name, const char *unit, double v);
/* Index of a name, or -1. */
int metrics_find(const struct metrics *, const char *name);

struct msum {
	size_t n;
	char **names, **units;
	struct rep *reps;
};

void msum_init(struct msum *);
void msum_free(struct msum *);
/* Add one replication; the first one fixes the names. */
void msum_add(struct msum *, const struct metrics *);
int msum_find(const struct msum *, const char *name);

#endif
