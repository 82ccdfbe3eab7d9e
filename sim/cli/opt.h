/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * opt.h - a command's options, each declared once (tmux's cmd_entry .args and
 * .usage): its name, argument, kind, the field it fills and its help text.
 * getopt_long's table, the value checks, `vlocksim CMD --help` and the
 * OPTIONS and SYNOPSIS of the man page vlocksim-CMD(1) are all made from the
 * declarations (opt.c, help.c), so none of them can disagree with another.
 *
 * Adding an option is one line in the command's table and a field in its
 * struct:
 *
 *	struct run_args { ...; double timeout; };
 *	{ "timeout", 0, "TIME", OPT_TIME, OPT_AT(struct run_args, timeout),
 *	  .def = "90s", .help = "stop a replication after TIME of host time" },
 *
 * A default is said once, in .def as it would be written on the command
 * line: opt_parse sets the field from it before reading argv, and the help
 * and the man page end the option's text with "(default 90s)".  A default
 * that is zero or computed (the online CPUs) has no .def: the help says it.
 */
#ifndef VS_OPT_H
#define VS_OPT_H

#include <stddef.h>
#include <stdio.h>

enum opt_kind {
	OPT_FLAG,	/* no argument: the int field becomes 1 */
	OPT_STR,	/* const char *: the argument */
	OPT_LIST,	/* struct opt_list: every use appended (help shows "...") */
	OPT_INT,	/* long long in [min, max] */
	OPT_TIME,	/* double, ns: a time with its unit, > 0, in [lo, hi] */
	OPT_SIZE,	/* double, bytes: a size with its unit; "0" is 0 (none) */
	OPT_FREQ,	/* double, Hz: a frequency with its unit or a bare number of Hz, in [lo, hi] */
	OPT_NUM,	/* double: a plain number in [lo, hi] */
	OPT_ENUM,	/* int: the index of the word in arg ("table|csv|json") */
	OPT_FN,		/* parse(): anything else */
};

struct opt_list {
	char **v;		/* argv's own strings */
	int n;
};

#define OPT_REQUIRED 1u	/* shown without brackets in the synopsis (the command checks it) */

struct opt_decl {
	const char *name;	/* --NAME (NULL ends a table) */
	int letter;		/* -L too, or 0 */
	const char *arg;	/* the argument as help shows it; NULL: a flag */
	enum opt_kind kind;
	size_t off;		/* offsetof the field in the command's struct */
	long long min, max;	/* OPT_INT */
	double lo, hi;		/* OPT_TIME, OPT_FREQ: the range (hi 0: no bound); OPT_NUM's */
	/* OPT_FN: 0, or -1 with a short reason in *why ("must be ...": "--opt ARG:
	 * must be ..."), or the choices ("is A or B": "--opt is A or B, not 'ARG'") */
	int (*parse)(const char *arg, void *field, const char **why);
	unsigned flags;
	const char *def;	/* the default as an argument, or NULL (above) */
	const char *help;	/* --help's line; the man page starts with it */
	const char *man;	/* the man page's further text, or NULL */
};

#define OPT_AT(type, field) .off = offsetof(type, field)

struct cmd_entry;

/*
 * Fill args (defaults already set by the caller) from argv by the command's
 * declarations.  0 with *next the first operand; CMD_EXIT_INPUT after saying
 * why on stderr with "Try 'vlocksim NAME --help'.".
 */
int opt_parse(const struct cmd_entry *, int argc, char **argv, void *args, int *next);
/*
 * opt_parse, then the operands: exactly n (0 or 1; what names the one:
 * "scenario file"), *operand the one; 0, or CMD_EXIT_INPUT after "vlocksim
 * NAME: name one WHAT" or "takes no operand" and the hint.
 */
int opt_parse_operands(const struct cmd_entry *, int argc, char **argv, void *args, int n,
    const char *what, const char **operand);
/*
 * opt_parse, then no operand but those after "--", which are whose (another
 * program's options: "lockbench's"): *rest, *nrest; 0 or CMD_EXIT_INPUT.
 */
int opt_parse_passed(const struct cmd_entry *, int argc, char **argv, void *args,
    const char *whose, char ***rest, int *nrest);
/* Free what opt_parse allocated in args (the OPT_LIST arrays). */
void opt_free(const struct cmd_entry *, void *args);

/* `vlocksim CMD --help`. */
void opt_help(const struct cmd_entry *, FILE *);
/* The man page's SYNOPSIS and OPTIONS sections (roff), for build-aux/mkman.sh. */
void opt_man(const struct cmd_entry *, FILE *);

#endif
