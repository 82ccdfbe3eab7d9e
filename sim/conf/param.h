/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * param.h - one descriptor type for the parameters of every ops table
 * (hypervisor kinds, host schedulers, locks, guest schedulers), so that
 * `vlocksim list` prints them all from the tables themselves.
 *
 * A table points at a NULL-terminated array:
 *
 *	static const struct vs_param my_params[] = {
 *		{ "window", "4096cycles", "PAUSE-loop window (vmx.c ple_window)",
 *		  "time", "cycles" },
 *		{ NULL, NULL, NULL, NULL, NULL }
 *	};
 *
 * name: the YAML key where the table reads it (dotted inside a nested map:
 * "ple.window"); def: the default as it would be written in YAML, or in
 * parentheses when it is computed ("(machine pause)"); what: one line of
 * meaning and the real code, document or parameter it follows; type: "time"
 * (any time unit, or cycles), "int", "number", "bool", "enum a|b|c", "map"
 * (a YAML mapping such as {VM: weight}); unit: the unit of a bare number or
 * of the default ("ns", "cycles", "%", "" for none).  type and unit may be
 * NULL (printed as unstated) in tables not yet filled in.
 */
#ifndef VS_PARAM_H
#define VS_PARAM_H

struct vs_param {
	const char *name, *def, *what;
	const char *type, *unit;
};

#endif
