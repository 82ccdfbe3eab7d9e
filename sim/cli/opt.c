/* SPDX-License-Identifier: GPL-2.0-or-later */
/* opt.c - options parsed by their declarations (opt.h): getopt_long's table and the value checks. */
#include "config.h"
#include "opt.h"

#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "cmd.h"
#include "report.h"
#include "units.h"
#include "util.h"

static void *
field(const struct opt_decl *d, void *args)
{
	return (char *)args + d->off;
}

static int
count(const struct opt_decl *d)
{
	int n = 0;

	while (d != NULL && d[n].name != NULL)
		n++;
	return n;
}

/* "-j" for an option with a letter, else "--NAME": how messages name it. */
static void
opt_label(const struct opt_decl *d, char *buf, size_t n)
{
	if (d->letter)
		snprintf(buf, n, "-%c", d->letter);
	else
		snprintf(buf, n, "--%s", d->name);
}

/* The words of an OPT_ENUM ("a|b|c") as "a, b or c". */
static char *
enum_words(const char *arg)
{
	char *s = xmalloc(strlen(arg) * 2 + 8), *o = s;
	const char *last = strrchr(arg, '|');

	for (; *arg; arg++) {
		if (*arg != '|') {
			*o++ = *arg;
			continue;
		}
		if (arg == last) {
			memcpy(o, " or ", 4);
			o += 4;
		} else {
			memcpy(o, ", ", 2);
			o += 2;
		}
	}
	*o = '\0';
	return s;
}

static int
set_enum(const struct opt_decl *d, const char *arg, int *out)
{
	const char *w = d->arg, *bar;
	int i;

	for (i = 0; ; i++) {
		bar = strchr(w, '|');
		if (strlen(arg) == (size_t)(bar ? bar - w : (long)strlen(w)) &&
		    strncmp(w, arg, strlen(arg)) == 0) {
			*out = i;
			return 0;
		}
		if (bar == NULL)
			return -1;
		w = bar + 1;
	}
}

/* OPT_TIME, OPT_FREQ, OPT_SIZE: a quantity with its unit, in range; -1 after the message. */
static int
set_qty(const char *cmd, const struct opt_decl *d, const char *lab, const char *arg,
    double *out)
{
	const char *why = NULL;
	char a[32], b[32], *end;
	double v;

	if (d->kind == OPT_SIZE) {
		if (strcmp(arg, "0") == 0)
			v = 0;		/* none */
		else if (units_parse(arg, UNIT_SIZE, 0, &v, &why) == 0 && !(v > 0))
			why = "a size above 0, or 0 for none";
	} else if (units_parse(arg, d->kind == OPT_TIME ? UNIT_TIME : UNIT_FREQ, 0, &v,
	    &why) != 0 && d->kind == OPT_FREQ && (v = strtod(arg, &end), *end == '\0') &&
	    end != arg) {
		why = NULL;	/* a frequency may be a bare number of Hz */
	}
	if (why == NULL && d->kind != OPT_SIZE) {
		if (!(v > 0) && d->lo == 0 && d->hi == 0) {
			why = "must be above 0";
		} else if (!(v > 0) || (d->lo > 0 && v < d->lo) || (d->hi > 0 && v > d->hi)) {
			units_fmt(d->lo, d->kind == OPT_TIME ? UNIT_TIME : UNIT_FREQ, a, sizeof a);
			units_fmt(d->hi, d->kind == OPT_TIME ? UNIT_TIME : UNIT_FREQ, b, sizeof b);
			fprintf(stderr, "%s: %s %s: must be between %s and %s\n", cmd, lab, arg,
			    a, b);
			return -1;
		}
	}
	if (why != NULL) {
		fprintf(stderr, "%s: %s %s: %s\n", cmd, lab, arg, why);
		return -1;
	}
	*out = v;
	return 0;
}

/* Store one use of d with argument arg; -1 after the message on stderr. */
static int
opt_set(const char *cmd, const struct opt_decl *d, char *arg, void *args)
{
	const char *why = NULL;
	char lab[64], *end;

	opt_label(d, lab, sizeof lab);
	switch (d->kind) {
	case OPT_FLAG:
		*(int *)field(d, args) = 1;
		return 0;
	case OPT_STR:
		*(const char **)field(d, args) = arg;
		return 0;
	case OPT_LIST: {
		struct opt_list *l = field(d, args);

		l->v = xrealloc(l->v, (size_t)(l->n + 1) * sizeof *l->v);
		l->v[l->n++] = arg;
		return 0;
	}
	case OPT_INT: {
		long long x;

		errno = 0;
		x = strtoll(arg, &end, 10);
		if (*arg == '\0' || *end != '\0' || errno != 0 || x < d->min || x > d->max) {
			fprintf(stderr, "%s: %s takes an integer in [%lld, %lld], not '%s'\n", cmd,
			    lab, d->min, d->max, arg);
			return -1;
		}
		*(long long *)field(d, args) = x;
		return 0;
	}
	case OPT_TIME:
	case OPT_FREQ:
	case OPT_SIZE:
		return set_qty(cmd, d, lab, arg, field(d, args));
	case OPT_NUM: {
		double v = strtod(arg, &end);

		if (end == arg || *end != '\0' || !(v >= d->lo && v <= d->hi)) {
			fprintf(stderr, "%s: %s %s: a number in [%g, %g]\n", cmd, lab, arg, d->lo,
			    d->hi);
			return -1;
		}
		*(double *)field(d, args) = v;
		return 0;
	}
	case OPT_ENUM: {
		char *w;

		if (set_enum(d, arg, field(d, args)) == 0)
			return 0;
		w = enum_words(d->arg);
		fprintf(stderr, "%s: %s is %s, not '%s'\n", cmd, lab, w, arg);
		free(w);
		return -1;
	}
	case OPT_FN:
		if (d->parse(arg, field(d, args), &why) == 0)
			return 0;
		if (why != NULL && strncmp(why, "is ", 3) == 0) {
			fprintf(stderr, "%s: %s %s, not '%s'\n", cmd, lab, why, arg);
			return -1;
		}
		break;
	}
	fprintf(stderr, "%s: %s %s: %s\n", cmd, lab, arg, why ? why : "not understood");
	return -1;
}

int
opt_parse(const struct cmd_entry *ce, int argc, char **argv, void *args, int *next)
{
	const struct opt_decl *d = ce->opts;
	int n = count(d), i, k = 0, c, li, rc = 0;
	struct option *lo = xcalloc((size_t)n + 1, sizeof *lo);
	char *shorts = xmalloc((size_t)n * 2 + 1);

	for (i = 0; i < n; i++) {
		lo[i].name = d[i].name;
		lo[i].has_arg = d[i].arg != NULL ? required_argument : no_argument;
		lo[i].val = 256 + i;
		if (d[i].letter) {
			shorts[k++] = (char)d[i].letter;
			if (d[i].arg != NULL)
				shorts[k++] = ':';
		}
	}
	shorts[k] = '\0';
	for (i = 0; i < n; i++)		/* the declared defaults, then argv */
		if (d[i].def != NULL) {
			int bad = opt_set(argv[0], &d[i], (char *)d[i].def, args);

			VS_ASSERT(bad == 0);
		}
	optind = 1;
	while ((c = getopt_long(argc, argv, shorts, lo, &li)) != -1) {
		if (c == '?' || c == ':') {
			cmd_try(ce->name);
			rc = CMD_EXIT_INPUT;
			break;
		}
		for (i = 0; i < n && (c >= 256 ? c - 256 != i : d[i].letter != c); i++)
			;
		VS_ASSERT(i < n);
		if (opt_set(argv[0], &d[i], optarg, args)) {
			rc = CMD_EXIT_INPUT;
			break;
		}
	}
	free(lo);
	free(shorts);
	*next = optind;
	return rc;
}

int
opt_parse_operands(const struct cmd_entry *ce, int argc, char **argv, void *args, int n,
    const char *what, const char **operand)
{
	int next;

	if (opt_parse(ce, argc, argv, args, &next))
		return CMD_EXIT_INPUT;
	if (argc - next != n) {
		if (n == 1)
			fprintf(stderr, "vlocksim %s: name one %s\n", ce->name, what);
		else
			fprintf(stderr, "vlocksim %s: takes no operand\n", ce->name);
		cmd_try(ce->name);
		return CMD_EXIT_INPUT;
	}
	if (n == 1)
		*operand = argv[next];
	return 0;
}

int
opt_parse_passed(const struct cmd_entry *ce, int argc, char **argv, void *args,
    const char *whose, char ***rest, int *nrest)
{
	int next;

	if (opt_parse(ce, argc, argv, args, &next))
		return CMD_EXIT_INPUT;
	/* getopt_long stops at "--": what follows is the other program's */
	if (next < argc && strcmp(argv[next - 1], "--") != 0) {
		fprintf(stderr, "vlocksim %s: unexpected argument '%s' (%s options go after "
		    "--)\n", ce->name, argv[next], whose);
		cmd_try(ce->name);
		return CMD_EXIT_INPUT;
	}
	*rest = argv + next;
	*nrest = argc - next;
	return 0;
}

void
opt_free(const struct cmd_entry *ce, void *args)
{
	const struct opt_decl *d;

	for (d = ce->opts; d != NULL && d->name != NULL; d++)
		if (d->kind == OPT_LIST) {
			struct opt_list *l = field(d, args);

			free(l->v);
			l->v = NULL;
			l->n = 0;
		}
}

int
cmd_report_fmt(const char *arg, void *field, const char **why)
{
	enum report_fmt f;

	if (report_fmt_parse(arg, &f)) {
		*why = "is table, csv or json";
		return -1;
	}
	*(int *)field = (int)f;
	return 0;
}
