/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * yparam.c - reading a mapping by its parameter table (yparam.h): each row
 * through yconf's typed reader with the row's range and default, stored in
 * the field the row names; keys checked against the rows' names, so that a
 * key is accepted exactly when `vlocksim list` lists it.
 */
#include "yparam.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "units.h"
#include "yconf.h"

/* A row's name below prefix ("window" of "ple.window" under "ple"), or NULL. */
static const char *
below(const char *name, const char *prefix)
{
	size_t pl;

	if (prefix == NULL)
		return name;
	pl = strlen(prefix);
	if (strncmp(name, prefix, pl) != 0 || name[pl] != '.')
		return NULL;
	return name + pl + 1;
}

/* The row's key directly under prefix, or NULL if it is not (or deeper). */
static const char *
key_of(const struct vs_param *p, const char *prefix)
{
	const char *k = below(p->name, prefix);

	return k != NULL && strchr(k, '.') == NULL ? k : NULL;
}

const struct vs_param *
vs_param_find(const struct vs_param *t, const char *name)
{
	for (; t != NULL && t->name != NULL; t++)
		if (strcmp(t->name, name) == 0)
			return t;
	return NULL;
}

const char *
vs_param_def(const struct vs_param *p, char *buf, size_t n)
{
	if (p->def != NULL)
		return p->def;
	switch (p->read) {
	case VP_BOOL:
		return p->cdef != 0 ? "true" : "false";
	case VP_ENUM:
		return p->names[(int)p->cdef];
	case VP_TIME:
		if (p->unit != NULL && strcmp(p->unit, "cycles") == 0) {
			snprintf(buf, n, "%.15gcycles", p->cdef);
			return buf;
		}
		return units_fmt(p->cdef, UNIT_TIME, buf, n);
	case VP_FREQ:
		return units_fmt(p->cdef, UNIT_FREQ, buf, n);
	case VP_SIZE:
		return units_fmt(p->cdef, UNIT_SIZE, buf, n);
	default:
		return units_fmt(p->cdef, UNIT_NONE, buf, n);
	}
}

/* A number read (an integer i where isint, else d) into a field of type st. */
static void
store(char *f, enum vs_pstore st, int64_t i, double d, int isint)
{
	switch (st) {
	case VS_INT:
		*(int *)(void *)f = isint ? (int)i : (int)d;
		break;
	case VS_LONG:
		*(long *)(void *)f = isint ? (long)i : (long)d;
		break;
	case VS_LLONG:
		*(long long *)(void *)f = isint ? (long long)i : (long long)d;
		break;
	case VS_DBL:
		*(double *)(void *)f = isint ? (double)i : d;
		break;
	default:
		vs_fatal("parameter table: a number stored in a field of another type");
	}
}

static int64_t
int_bound(double b)
{
	return isinf(b) ? (b < 0 ? INT64_MIN : INT64_MAX) : (int64_t)b;
}

static int
read_row(const struct yc_node *map, const struct vs_param *p, const char *key, double hz,
    char *f, struct vs_err *err)
{
	static const enum unit_kind kinds[] = { [VP_TIME] = UNIT_TIME, [VP_SIZE] = UNIT_SIZE,
	    [VP_FREQ] = UNIT_FREQ };
	int keep = p->def != NULL && p->def[0] == '(';
	int req = keep && strcmp(p->def, "(required)") == 0;
	double def = p->cdef, d;
	const char *s;
	int64_t i;
	int b;

	if (keep && !req && (map == NULL || map->kind != YC_MAP || yc_find(map, key) == NULL))
		return 0;	/* the owner's default stays */
	if (p->unit != NULL && strcmp(p->unit, "cycles") == 0)
		def = def * 1e9 / hz;
	switch (p->read) {
	case VP_INT:
		if (yc_get_int(map, key, req ? YC_REQUIRED_INT : (int64_t)def, int_bound(p->min),
		    int_bound(p->max), &i, err))
			return -1;
		store(f, p->store, i, 0, 1);
		return 0;
	case VP_NUM:
		if (yc_get_num(map, key, req ? NAN : def, p->min, p->max, &d, err))
			return -1;
		store(f, p->store, 0, d, 0);
		return 0;
	case VP_TIME:
	case VP_SIZE:
	case VP_FREQ:
		if (yc_get_qty(map, key, kinds[p->read], hz, req ? NAN : def, p->min, p->max, &d,
		    err))
			return -1;
		store(f, p->store, 0, d, 0);
		return 0;
	case VP_BOOL:
	case VP_ENUM:
		if (p->read == VP_BOOL ? yc_get_bool(map, key, req ? -1 : (int)def, &b, err) :
		    yc_get_enum(map, key, p->names, req ? -1 : (int)def, &b, err))
			return -1;
		store(f, p->store, b, 0, 1);
		return 0;
	case VP_STR:
		/* def as written in YAML: "" is the empty string */
		if (yc_get_str(map, key, req ? NULL : strcmp(p->def, "\"\"") == 0 ? "" : p->def,
		    &s, err))
			return -1;
		VS_ASSERT(p->store == VS_STR);
		*(const char **)(void *)f = s;
		return 0;
	default:
		return 0;
	}
}

int
yc_params_read(const struct yc_node *map, const struct vs_param *t, const char *prefix,
    double hz, void *out, struct vs_err *err)
{
	const char *key;

	for (; t != NULL && t->name != NULL; t++)
		if (t->read != VP_LIST && (key = key_of(t, prefix)) != NULL &&
		    read_row(map, t, key, hz, (char *)out + t->off, err))
			return -1;
	return 0;
}

/* Does a row of t under prefix name key, or have it as its first part? */
static int
names_key(const struct vs_param *t, const char *prefix, const char *key)
{
	size_t kl = strlen(key);
	const char *r;

	for (; t != NULL && t->name != NULL; t++)
		if ((r = below(t->name, prefix)) != NULL && strncmp(r, key, kl) == 0 &&
		    (r[kl] == '\0' || r[kl] == '.'))
			return 1;
	return 0;
}

/* Is name one of the entries of the list "a, b, c"? */
static int
in_list(const char *list, const char *name)
{
	size_t nl = strlen(name);
	const char *p;

	for (p = list; *p != '\0'; p += strcspn(p, ",") + (p[strcspn(p, ",")] ? 2 : 0))
		if (strncmp(p, name, nl) == 0 && (p[nl] == ',' || p[nl] == '\0'))
			return 1;
	return 0;
}

/* "a, b, c": the first parts of the rows under each prefix, each once. */
static void
expected_keys(const struct vs_ptab *ts, char *buf, size_t size)
{
	const struct vs_param *t;
	size_t off = 0;
	const char *r;
	char one[128];

	buf[0] = '\0';
	for (; ts->t != NULL; ts++)
		for (t = ts->t; t->name != NULL; t++) {
			if ((r = below(t->name, ts->prefix)) == NULL)
				continue;
			snprintf(one, sizeof one, "%.*s", (int)strcspn(r, "."), r);
			if (in_list(buf, one))
				continue;
			off += (size_t)snprintf(buf + off, off < size ? size - off : 0, "%s%s",
			    off ? ", " : "", one);
			VS_ASSERT(off < size);
		}
}

int
yc_params_check_all(const struct yc_node *map, const struct vs_ptab *ts, struct vs_err *err)
{
	const struct vs_ptab *tp;
	char expected[2048];
	size_t i;

	if (map == NULL || map->kind != YC_MAP)
		return 0;
	for (i = 0; i < map->n; i++) {
		for (tp = ts; tp->t != NULL && !names_key(tp->t, tp->prefix, map->keys[i]); tp++)
			;
		if (tp->t == NULL) {
			expected_keys(ts, expected, sizeof expected);
			return yc_unknown_key(map, i, expected, err);
		}
	}
	return 0;
}

int
yc_params_check(const struct yc_node *map, const struct vs_param *t, const char *prefix,
    struct vs_err *err)
{
	const struct vs_ptab ts[2] = { { t, prefix }, { NULL, NULL } };

	return yc_params_check_all(map, ts, err);
}

int
yc_get_params(const struct yc_node *map, const struct vs_param *t, double hz, void *out,
    struct vs_err *err)
{
	return yc_params_read(map, t, NULL, hz, out, err) ||
	    yc_params_check(map, t, NULL, err) ? -1 : 0;
}
