/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * report.h - a run's summary as a table, CSV or JSON.
 *
 * Numbers print with %.10g so the same results give the same bytes.
 * The text goes into a buffer first: files are written whole or not at all.
 */
#ifndef VS_REPORT_H
#define VS_REPORT_H

#include <stdint.h>
#include <stdio.h>

#include "metrics.h"

enum report_fmt { FMT_TABLE, FMT_CSV, FMT_JSON };

struct report_info {
	const char *scenario;
	uint64_t seed;
	int reps;
	char *const *only;	/* metric names to show (NULL: all) */
	int nonly;
};

/* Returns a malloc'd string. */
char *report_render(enum report_fmt, const struct report_info *, const struct msum *);
int report_fmt_parse(const char *s, enum report_fmt *out);
/* JSON string literal of s (malloc'd, with quotes). */
char *report_json_str(const char *s);
/* A number for JSON/CSV: %.10g, "null" for NaN/inf in JSON. */
void report_num(FILE *, double v, int json);

#endif
