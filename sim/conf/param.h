/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * param.h - one descriptor type for every parameter that YAML sets (ops
 * tables of hypervisor kinds, host schedulers, locks, guest schedulers; the
 * machine file; the scenario's top level, vms[] and workloads), so that each
 * parameter is stated once: `vlocksim list` prints the table, and
 * yc_get_params (yparam.h) reads a mapping into the owner's config struct
 * from the same rows, defaults and ranges included, and refuses a key no
 * row names.
 *
 * A table is a NULL-terminated array:
 *
 *	static const struct vs_param my_params[] = {
 *		{ "window", NULL, "PAUSE-loop window (vmx.c ple_window)",
 *		  "time", "cycles", VP_TIME, VS_AT(struct my_cfg, window_ns), 1, 1e9, 4096 },
 *		{ NULL }
 *	};
 *
 * name: the YAML key (dotted inside a nested map: "ple.window"); def: NULL
 * where the default is cdef (vs_param_def writes it as YAML would: 4096cycles,
 * 750us, true, the enum's name), else the default as written in YAML: a
 * string's, or in parentheses when its owner computes it ("(machine pause)":
 * the field keeps what the owner put there when the key is absent) or
 * "(required)", or a listed row's; what: one line of meaning and the
 * real code, document or parameter it follows; type: "time" (any time unit,
 * or cycles), "int", "number", "bool", "enum a|b|c", "map", "string"; unit:
 * the unit of a bare number or of the default ("ns", "cycles", "%", "").
 *
 * read: how yc_get_params reads it (VP_LIST: not at all, its owner reads it
 * - a nested mapping, a name resolved elsewhere); VS_AT: the field it fills
 * and that field's C type; min, max: its range, in what the reader returns
 * (ns, bytes, Hz, a count); cdef: the C default, in cycles when unit is
 * "cycles" (ns at the machine's clock), else in what the reader returns;
 * names: an enum's names (cdef its index).  tests/check_params.c holds
 * every default as listed (vs_param_def) equal to its cdef, and def NULL
 * where cdef is the default.
 */
#ifndef VS_PARAM_H
#define VS_PARAM_H

#include <stddef.h>

enum vs_pread {
	VP_LIST,		/* listed only */
	VP_INT,			/* an integer */
	VP_NUM,			/* a number */
	VP_TIME,		/* a time: ns */
	VP_SIZE,		/* a size: bytes (a bandwidth: bytes per second) */
	VP_FREQ,		/* a frequency: Hz */
	VP_BOOL,
	VP_ENUM,		/* the index of one of names[] */
	VP_STR,
};

/* The C type of the field a row fills. */
enum vs_pstore { VS_NONE, VS_INT, VS_LONG, VS_LLONG, VS_DBL, VS_STR };

#define VS_STORE_OF(x) _Generic((x), int: VS_INT, unsigned: VS_INT, long: VS_LONG, \
    long long: VS_LLONG, double: VS_DBL, const char *: VS_STR, char *: VS_STR)
/* The field f of struct type T: its C type and offset. */
#define VS_AT(T, f)	VS_STORE_OF(((T *)0)->f), offsetof(T, f)

/* The tail of a row that yc_get_params does not read (and of the terminator). */
#define VS_LIST		VP_LIST, VS_NONE, 0, 0, 0, 0, NULL

struct vs_param {
	const char *name, *def, *what;
	const char *type, *unit;
	enum vs_pread read;
	enum vs_pstore store;
	size_t off;
	double min, max, cdef;
	const char *const *names;
};

#endif
