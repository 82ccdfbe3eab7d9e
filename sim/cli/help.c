/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * help.c - what a person reads about the commands, made from their entries
 * and option declarations (cmd.h, opt.h): `vlocksim --help`, `vlocksim CMD
 * --help`, and the NAME, SYNOPSIS and OPTIONS of each vlocksim-CMD(1)
 * (`vlocksim help --format man CMD`, which build-aux/mkman.sh puts into
 * man/vlocksim-CMD.1.in's prose at build time).
 */
#include "config.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "cmd.h"
#include "datadir.h"
#include "opt.h"

#define HELP_WIDTH 79	/* columns of --help text */
#define HELP_COL 24	/* where an option's help starts */

/* s from column col, wrapped at HELP_WIDTH, continuation lines at indent. */
static void
wrap(FILE *f, const char *s, int col, int indent)
{
	const char *w, *e;

	for (w = s; *w; w = e) {
		int len;

		while (*w == ' ')
			w++;
		if (*w == '\0')
			break;
		for (e = w; *e && *e != ' '; e++)
			;
		len = (int)(e - w);
		if (col > indent && col + 1 + len > HELP_WIDTH) {
			fprintf(f, "\n%*s", indent, "");
			col = indent;
		} else if (col > indent) {
			fputc(' ', f);
			col++;
		}
		fwrite(w, 1, (size_t)len, f);
		col += len;
	}
	fputc('\n', f);
}

/* d's help, ended by its declared default: "HELP (default DEF)". */
static const char *
help_text(const struct opt_decl *d, char *buf, size_t n)
{
	if (d->def == NULL)
		return d->help;
	snprintf(buf, n, "%s (default %s)", d->help, d->def);
	return buf;
}

/* "--seed N", "-j N, --jobs N" */
static void
label(const struct opt_decl *d, char *buf, size_t n)
{
	const char *sp = d->arg ? " " : "", *arg = d->arg ? d->arg : "";

	if (d->letter)
		snprintf(buf, n, "-%c%s%s, --%s%s%s", d->letter, sp, arg, d->name, sp, arg);
	else
		snprintf(buf, n, "--%s%s%s", d->name, sp, arg);
}

/* The usage line's words for d: "[--seed N]", "[--set PATH=VALUE]...", "--out FILE". */
static void
usage_word(const struct opt_decl *d, char *buf, size_t n)
{
	const char *req = d->flags & OPT_REQUIRED ? "" : "[";

	snprintf(buf, n, "%s%s%s%s%s%s", req, d->letter ? "-" : "--",
	    d->letter ? (char[2]){ (char)d->letter, 0 } : d->name, d->arg ? " " : "",
	    d->arg ? d->arg : "", d->flags & OPT_REQUIRED ? "" : d->kind == OPT_LIST ?
	    "]..." : "]");
}

void
opt_help(const struct cmd_entry *ce, FILE *f)
{
	const struct opt_decl *d;
	char buf[160], text[1024];
	int col, indent;

	col = fprintf(f, "usage: vlocksim %s%s%s", ce->name, ce->args ? " " : "",
	    ce->args ? ce->args : "");
	indent = (int)strlen("usage: vlocksim ") + (int)strlen(ce->name) + 1;
	for (d = ce->opts; d != NULL && d->name != NULL; d++) {
		int len;

		usage_word(d, buf, sizeof buf);
		len = (int)strlen(buf);
		if (col + 1 + len > HELP_WIDTH) {
			fprintf(f, "\n%*s", indent, "");
			col = indent;
		} else {
			fputc(' ', f);
			col++;
		}
		col += fprintf(f, "%s", buf);
	}
	fputc('\n', f);
	if (ce->forms != NULL) {
		const char *s = ce->forms, *nl;

		for (; *s; s = nl + (*nl != '\0')) {
			nl = strchr(s, '\n');
			if (nl == NULL)
				nl = s + strlen(s);
			fprintf(f, "       %.*s\n", (int)(nl - s), s);
		}
	}
	if (ce->about != NULL)
		wrap(f, ce->about, 0, 0);
	for (d = ce->opts; d != NULL && d->name != NULL; d++) {
		label(d, buf, sizeof buf);
		col = fprintf(f, "  %s", buf);
		if (col >= HELP_COL - 1) {
			fputc('\n', f);
			col = 0;
		}
		fprintf(f, "%*s", HELP_COL - col, "");
		wrap(f, help_text(d, text, sizeof text), HELP_COL, HELP_COL);
	}
	fprintf(f, "  -h, --help%*sthis text (man vlocksim-", HELP_COL - 12, "");
	for (col = 0; ce->name[col]; col++)
		fputc(ce->name[col] == ' ' ? '-' : ce->name[col], f);
	fputs(" for more)\n", f);
}

/* roff text: backslashes and hyphens escaped, no line starting with a control character. */
static void
roff(FILE *f, const char *s)
{
	int bol = 1;

	for (; *s; s++) {
		if (bol && (*s == '.' || *s == '\''))
			fputs("\\&", f);
		bol = *s == '\n';
		if (*s == '\\')
			fputs("\\e", f);
		else if (*s == '-')
			fputs("\\-", f);
		else if (*s == '"')
			fputs("\\(dq", f);
		else
			fputc(*s, f);
	}
}

/* Paragraphs of s (split at blank lines), the first already begun. */
static void
roff_paras(FILE *f, const char *s)
{
	const char *p;

	while ((p = strstr(s, "\n\n")) != NULL) {
		char *one = xstrndup(s, (size_t)(p - s));

		roff(f, one);
		fputs("\n.IP\n", f);
		free(one);
		s = p + 2;
	}
	roff(f, s);
	fputc('\n', f);
}

/* A usage line's word: options bold, upper-case placeholders italic. */
static void
roff_usage_word(FILE *f, const char *w, size_t n)
{
	size_t i = 0, j;

	while (i < n && w[i] == '[')
		fputc(w[i++], f);
	for (j = n; j > i && (w[j - 1] == ']' || w[j - 1] == '.'); j--)
		;
	if (j > i) {
		char *core = xstrndup(w + i, j - i);
		int upper = core[0] >= 'A' && core[0] <= 'Z';

		fputs(upper ? "\\fI" : "\\fB", f);
		roff(f, core);
		fputs("\\fR", f);
		free(core);
	}
	fwrite(w + j, 1, n - j, f);
}

/* NAME and SYNOPSIS: "vlocksim-run \- SUMMARY", the usage line and forms. */
static void
man_synopsis(const struct cmd_entry *ce, FILE *f)
{
	const struct opt_decl *d;
	const char *s, *nl, *w, *e;
	char buf[160];
	int i;

	fputs(".SH NAME\nvlocksim\\-", f);
	for (i = 0; ce->name[i]; i++)
		fputs(ce->name[i] == ' ' ? "\\-" : (char[2]){ ce->name[i], 0 }, f);
	fputs(" \\- ", f);
	roff(f, ce->summary);
	fputs("\n.SH SYNOPSIS\n.B vlocksim ", f);
	roff(f, ce->name);
	fputc('\n', f);
	if (ce->args != NULL) {
		fputs(".I ", f);
		roff(f, ce->args);
		fputc('\n', f);
	}
	for (d = ce->opts; d != NULL && d->name != NULL; d++) {
		int req = d->flags & OPT_REQUIRED;

		snprintf(buf, sizeof buf, "%s%s", d->letter ? "-" : "--",
		    d->letter ? (char[2]){ (char)d->letter, 0 } : d->name);
		fputs(req ? ".B \"" : ".RB [ \"", f);
		roff(f, buf);
		if (d->arg != NULL) {
			fputs(" \\fI", f);
			roff(f, d->arg);
			fputs("\\fP", f);
		}
		fputs(req ? "\"\n" : d->kind == OPT_LIST ? "\" ]...\n" : "\" ]\n", f);
	}
	for (s = ce->forms; s != NULL && *s; s = nl + (*nl != '\0')) {
		if ((nl = strchr(s, '\n')) == NULL)
			nl = s + strlen(s);
		fputs(".br\n", f);
		for (w = s; w < nl; w = e) {
			while (w < nl && *w == ' ')
				w++;
			for (e = w; e < nl && *e != ' '; e++)
				;
			if (e > w) {
				roff_usage_word(f, w, (size_t)(e - w));
				fputc(e < nl ? ' ' : '\n', f);
			}
		}
	}
}

/* OPTIONS: per option its label ("-j \fIN\fP, --jobs \fIN\fP"), help and more. */
static void
man_options(const struct cmd_entry *ce, FILE *f)
{
	const struct opt_decl *d;
	const char *help;
	char buf[160], text[1024];
	int i;

	fputs(".SH OPTIONS\n", f);
	for (d = ce->opts; d != NULL && d->name != NULL; d++) {
		fputs(".TP\n.B \"", f);
		for (i = d->letter ? 0 : 1; i < 2; i++) {
			snprintf(buf, sizeof buf, "%s%s", i == 0 ? "-" : "--", i == 0 ?
			    (char[2]){ (char)d->letter, 0 } : d->name);
			roff(f, buf);
			if (d->arg != NULL) {
				fputs(" \\fI", f);
				roff(f, d->arg);
				fputs("\\fP", f);
			}
			if (i == 0)
				fputs(", ", f);
		}
		help = help_text(d, text, sizeof text);
		fprintf(f, "\"\n%c", toupper((unsigned char)help[0]));
		roff(f, help + 1);
		fputs(".\n", f);
		if (d->man != NULL)
			roff_paras(f, d->man);
	}
	fputs(".TP\n.B \"\\-h, \\-\\-help\"\nPrint the usage and the options on standard "
	    "output and exit 0.\n", f);
}

void
opt_man(const struct cmd_entry *ce, FILE *f)
{
	man_synopsis(ce, f);
	fputs(".\\\" OPTIONS\n", f);	/* where build-aux/mkman.sh cuts */
	man_options(ce, f);
}

/* `vlocksim trace --help`: the subcommands of a group ("trace") and their usage. */
int
cmd_group_help(const char *group, FILE *f)
{
	size_t n = strlen(group);
	int i, found = 0;

	for (i = 0; cmd_table[i] != NULL; i++) {
		const struct cmd_entry *ce = cmd_table[i];

		if (strncmp(ce->name, group, n) != 0 || ce->name[n] != ' ')
			continue;
		if (found++)
			fputc('\n', f);
		opt_help(ce, f);
	}
	return found;
}

void
cmd_usage(FILE *f)
{
	int i, col;

	fputs("usage: vlocksim <command> [options]\n"
	    "\n"
	    "commands (vlocksim COMMAND --help, man vlocksim-COMMAND for each):\n", f);
	for (i = 0; cmd_table[i] != NULL; i++) {
		const struct cmd_entry *ce = cmd_table[i];

		col = fprintf(f, "  %s%s%s", ce->name, ce->args ? " " : "",
		    ce->args ? ce->args : "");
		if (col > 19) {
			fputc('\n', f);
			col = 0;
		}
		fprintf(f, "%*s", 20 - col, "");
		wrap(f, ce->summary, 20, 20);
	}
	fputs("  --help, -h, help [COMMAND]   this text, or COMMAND's\n"
	    "  --version         the version\n"
	    "\n"
	    "Values carry units: 30ms, 4096cycles, 2.93GHz, 64MiB.\n"
	    "--set overrides any scenario value by its path: --set vms[0].vcpus=8\n"
	    "Exit status: 0 ok, 1 run-time failure (output), 2 bad input (nothing was\n"
	    "simulated), 3 validate --strict missed a tolerance, 4 a run stopped at a limit\n"
	    "(--timeout, --max-events, watchdog, time cap), 134 a model bug (abort).\n", f);
	if (vs_datadir() != NULL) {
		fprintf(f, "Shipped scenarios, cases and plot scripts: %s\n"
		    "(beside the executable; $VLOCKSIM_DATADIR overrides).  See vlocksim(1).\n",
		    vs_datadir());
	} else {
		char *where = vs_data_where("configs/examples");

		fprintf(f, "Shipped scenarios, cases and plot scripts: not found (%s).\n"
		    "See vlocksim(1).\n", where);
		free(where);
	}
}
