/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * units.h - values with units, as written in scenarios.
 *
 * Times: ns, us, ms, s, and cycles (needs the clock rate).  Frequencies: Hz,
 * kHz, MHz, GHz.  Sizes: B, KiB, MiB, GiB.  A bare number is accepted only
 * where the quantity is dimensionless.
 */
#ifndef VS_UNITS_H
#define VS_UNITS_H

#include <stddef.h>
#include <stdint.h>

enum unit_kind {
	UNIT_NONE,	/* dimensionless number */
	UNIT_TIME,	/* result in ns (double) */
	UNIT_FREQ,	/* result in Hz */
	UNIT_SIZE,	/* result in bytes */
	UNIT_RATE,	/* events per second: "15000/s", "15000Hz" */
};

/*
 * Parse text as a quantity of the given kind.  hz converts cycles to ns
 * (0: cycles not allowed here).  Returns 0, or -1 with a short reason in why
 * (no location; the caller adds it).
 */
int units_parse(const char *text, enum unit_kind kind, double hz, double *out,
    const char **why);
const char *units_kind_name(enum unit_kind);
/* The unit of a result of units_parse: "ns", "Hz", "B", "/s"; "" for a number. */
const char *units_base_name(enum unit_kind);
/* v in base units as written with the kind's unit ("750us", "2.93GHz",
 * "256MiB", "10e9B"), into buf; returns buf. */
const char *units_fmt(double v, enum unit_kind kind, char *buf, size_t n);

#endif
