/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * units.c - parse "4096cycles", "2.5 us", "15000/s", "4_000_000".
 *
 * Results are in base units: ns for times, Hz for frequencies, bytes for
 * sizes, events per second for rates.  Unit names are case-sensitive
 * except for frequencies, where nobody means millihertz.
 */
#include "units.h"

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

struct unit {
	const char *name;
	double mult;
};

static const struct unit time_units[] = {
	{ "ns", 1.0 },
	{ "us", 1e3 },
	{ "\xc2\xb5s", 1e3 },	/* micro sign */
	{ "\xce\xbcs", 1e3 },	/* Greek small mu */
	{ "ms", 1e6 },
	{ "s", 1e9 },
	{ NULL, 0 }
};

static const struct unit freq_units[] = {
	{ "Hz", 1.0 },
	{ "kHz", 1e3 },
	{ "MHz", 1e6 },
	{ "GHz", 1e9 },
	{ NULL, 0 }
};

static const struct unit size_units[] = {
	{ "B", 1.0 },
	{ "KiB", 1024.0 },
	{ "MiB", 1024.0 * 1024 },
	{ "GiB", 1024.0 * 1024 * 1024 },
	{ NULL, 0 }
};

static const struct unit *
find_unit(const struct unit *tab, const char *u, size_t len, int icase)
{
	for (; tab->name != NULL; tab++) {
		if (strlen(tab->name) != len)
			continue;
		if (icase ? strncasecmp(tab->name, u, len) == 0 :
		    strncmp(tab->name, u, len) == 0)
			return tab;
	}
	return NULL;
}

/*
 * Scan a decimal number with optional '_' digit separators into buf
 * (separators dropped).  Returns the length consumed, 0 if there is no
 * number.  Hex, "inf" and "nan" never get here, unlike with bare strtod().
 */
static size_t
scan_number(const char *s, char *buf, size_t bufsz)
{
	size_t i = 0, o = 0, digits = 0;
	int over = 0;

#define PUT(c) do { if (o + 1 < bufsz) buf[o++] = (c); else over = 1; } while (0)
	if (s[i] == '+' || s[i] == '-')
		PUT(s[i++]);
	for (; isdigit((unsigned char)s[i]) || (s[i] == '_' && digits > 0 &&
	    isdigit((unsigned char)s[i + 1])); i++) {
		if (s[i] != '_') {
			PUT(s[i]);
			digits++;
		}
	}
	if (s[i] == '.') {
		PUT(s[i++]);
		for (; isdigit((unsigned char)s[i]) || (s[i] == '_' &&
		    isdigit((unsigned char)s[i + 1]) && i > 0 &&
		    isdigit((unsigned char)s[i - 1])); i++) {
			if (s[i] != '_') {
				PUT(s[i]);
				digits++;
			}
		}
	}
	if (digits == 0)
		return 0;
	/* An exponent only if digits follow; "5e" is not a number. */
	if (s[i] == 'e' || s[i] == 'E') {
		size_t j = i + 1;

		if (s[j] == '+' || s[j] == '-')
			j++;
		if (isdigit((unsigned char)s[j])) {
			for (; i < j; i++)
				PUT(s[i]);
			while (isdigit((unsigned char)s[i]))
				PUT(s[i++]);
		}
	}
	buf[o] = '\0';
#undef PUT
	return over ? 0 : i;
}

static const char *
needs_unit(enum unit_kind kind)
{
	switch (kind) {
	case UNIT_TIME:
		return "needs a unit (ns, us, ms, s or cycles)";
	case UNIT_FREQ:
		return "needs a unit (Hz, kHz, MHz or GHz)";
	case UNIT_SIZE:
		return "needs a unit (B, KiB, MiB or GiB)";
	case UNIT_RATE:
		return "needs a unit (/s, /ms, /us, /ns or Hz, kHz, MHz, GHz)";
	case UNIT_NONE:
		break;
	}
	return "needs a unit";
}

static const char *
unknown_unit(enum unit_kind kind)
{
	switch (kind) {
	case UNIT_NONE:
		return "expected a plain number";
	case UNIT_TIME:
		return "unknown time unit (expected ns, us, ms, s or cycles)";
	case UNIT_FREQ:
		return "unknown frequency unit (expected Hz, kHz, MHz or GHz)";
	case UNIT_SIZE:
		return "unknown size unit (expected B, KiB, MiB or GiB)";
	case UNIT_RATE:
		return "unknown rate unit (expected /s, /ms, /us, /ns or Hz, kHz, MHz, GHz)";
	}
	return "unknown unit";
}

int
units_parse(const char *text, enum unit_kind kind, double hz, double *out,
    const char **why)
{
	char buf[128], *end;
	const char *u;
	const struct unit *un;
	size_t n, ulen;
	double v, mult = 1.0;
	const char *dummy;

	if (why == NULL)
		why = &dummy;
	if (text == NULL) {
		*why = "empty value";
		return -1;
	}
	while (isspace((unsigned char)*text))
		text++;
	if (*text == '\0') {
		*why = "empty value";
		return -1;
	}
	if ((n = scan_number(text, buf, sizeof buf)) == 0) {
		*why = "not a number";
		return -1;
	}
	v = strtod(buf, &end);
	if (*end != '\0') {
		*why = "not a number";
		return -1;
	}
	u = text + n;
	while (isspace((unsigned char)*u))
		u++;
	ulen = strlen(u);
	while (ulen > 0 && isspace((unsigned char)u[ulen - 1]))
		ulen--;

	if (ulen == 0) {
		if (kind != UNIT_NONE) {
			*why = needs_unit(kind);
			return -1;
		}
	} else {
		switch (kind) {
		case UNIT_NONE:
			*why = "expected a plain number";
			return -1;
		case UNIT_TIME:
			if ((ulen == 6 && strncmp(u, "cycles", 6) == 0) ||
			    (ulen == 5 && strncmp(u, "cycle", 5) == 0)) {
				if (!(hz > 0)) {
					*why = "cycles need a clock rate";
					return -1;
				}
				mult = 1e9 / hz;
			} else if ((un = find_unit(time_units, u, ulen, 0)) != NULL)
				mult = un->mult;
			else {
				*why = unknown_unit(kind);
				return -1;
			}
			break;
		case UNIT_FREQ:
			if ((un = find_unit(freq_units, u, ulen, 1)) == NULL) {
				*why = unknown_unit(kind);
				return -1;
			}
			mult = un->mult;
			break;
		case UNIT_SIZE:
			if ((un = find_unit(size_units, u, ulen, 0)) != NULL)
				mult = un->mult;
			else if (ulen == 2 && strchr("kKMGT", u[0]) != NULL &&
			    u[1] == 'B') {
				/* 1000 or 1024?  Make the author say which. */
				*why = "ambiguous unit: write KiB, MiB or GiB (powers of 1024)";
				return -1;
			} else {
				*why = unknown_unit(kind);
				return -1;
			}
			break;
		case UNIT_RATE:
			if (*u == '/') {
				const char *t = u + 1;
				size_t tl = ulen - 1;

				while (tl > 0 && isspace((unsigned char)*t)) {
					t++;
					tl--;
				}
				if ((un = find_unit(time_units, t, tl, 0)) == NULL) {
					*why = unknown_unit(kind);
					return -1;
				}
				mult = 1e9 / un->mult;
			} else if ((un = find_unit(freq_units, u, ulen, 1)) != NULL)
				mult = un->mult;
			else {
				*why = unknown_unit(kind);
				return -1;
			}
			break;
		}
	}
	v *= mult;
	if (!isfinite(v)) {
		*why = "value is too large";
		return -1;
	}
	*out = v;
	return 0;
}

const char *
units_kind_name(enum unit_kind kind)
{
	switch (kind) {
	case UNIT_NONE:
		return "number";
	case UNIT_TIME:
		return "time";
	case UNIT_FREQ:
		return "frequency";
	case UNIT_SIZE:
		return "size";
	case UNIT_RATE:
		return "rate";
	}
	return "?";
}

const char *
units_base_name(enum unit_kind kind)
{
	switch (kind) {
	case UNIT_TIME:
		return "ns";
	case UNIT_FREQ:
		return "Hz";
	case UNIT_SIZE:
		return "B";
	case UNIT_RATE:
		return "/s";
	case UNIT_NONE:
		break;
	}
	return "";
}

/*
 * v (in base units) as a person writes it, so that units_parse reads it
 * back: a time or a frequency in the largest unit it fills at least once
 * (750us, 2.93GHz, 0ns); a size in thousands when it is a whole number of
 * them (10e9B), else in the largest power of 1024 it is a whole multiple of
 * (256MiB); a number plainly.
 */
const char *
units_fmt(double v, enum unit_kind kind, char *buf, size_t n)
{
	static const char *const tu[] = { "s", "ms", "us", "ns" };
	static const char *const fu[] = { "GHz", "MHz", "kHz", "Hz" };
	static const char *const su[] = { "GiB", "MiB", "KiB" };
	double scale = 1e9;
	int i;

	switch (kind) {
	case UNIT_TIME:
	case UNIT_FREQ:
		for (i = 0; i < 3 && v < scale; i++)
			scale /= 1e3;
		snprintf(buf, n, "%.15g%s", v / scale, kind == UNIT_TIME ? tu[i] : fu[i]);
		return buf;
	case UNIT_SIZE:
		for (i = 9; i >= 3 && v > 0; i -= 3)
			if (v >= pow(10, i) && fmod(v, pow(10, i)) == 0) {
				snprintf(buf, n, "%.15ge%dB", v / pow(10, i), i);
				return buf;
			}
		for (i = 0, scale = 1024.0 * 1024 * 1024; i < 3 && v > 0; i++, scale /= 1024)
			if (v >= scale && fmod(v, scale) == 0) {
				snprintf(buf, n, "%.15g%s", v / scale, su[i]);
				return buf;
			}
		snprintf(buf, n, "%.15gB", v);
		return buf;
	default:
		snprintf(buf, n, "%.15g", v);
		return buf;
	}
}
