/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * yparam.h - a mapping read into a config struct by its parameter table
 * (param.h): each row's reader, range and C default, in table order, with
 * yconf's messages; then every key of the mapping must be a row's name.
 */
#ifndef VS_YPARAM_H
#define VS_YPARAM_H

#include "param.h"
#include "util.h"

struct yc_node;

/*
 * Fill out from map (NULL: an absent section, every key absent) by the rows
 * of t directly under prefix (NULL: the rows without a dot; "ple": the rows
 * "ple.NAME", read from map = the ple mapping).  hz converts cycles.  No
 * key check: yc_params_check does it.
 */
int yc_params_read(const struct yc_node *map, const struct vs_param *t, const char *prefix,
    double hz, void *out, struct vs_err *);
/*
 * Every key of map must name a row of t under prefix, or be the first
 * dotted part of one (a nested mapping); else "unknown key" with the names
 * expected.  _all: of one of the tables ts, each under its own prefix (a
 * mapping that two owners share: a lock's {kind, PARAM...}).
 */
int yc_params_check(const struct yc_node *map, const struct vs_param *t, const char *prefix,
    struct vs_err *);
struct vs_ptab {
	const struct vs_param *t;	/* NULL ends a list */
	const char *prefix;
};
int yc_params_check_all(const struct yc_node *map, const struct vs_ptab *ts, struct vs_err *);
/* Both, for one table: the usual case. */
int yc_get_params(const struct yc_node *map, const struct vs_param *t, double hz, void *out,
    struct vs_err *);
/* The row's default as `vlocksim list` shows it and YAML would write it: def,
 * or (def NULL) cdef in the row's unit, into buf; the text, buf or a constant. */
const char *vs_param_def(const struct vs_param *, char *buf, size_t n);
/* The row named name (dotted), or NULL. */
const struct vs_param *vs_param_find(const struct vs_param *t, const char *name);

#endif
