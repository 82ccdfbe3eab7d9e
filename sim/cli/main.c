/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * main.c - the command line: the edge where errors are reported.
 *
 * Exit status (the man page's EXIT STATUS says the same):
 *   0 success;
 *   1 a run-time failure (cannot write an output file, gnuplot failed);
 *   2 bad input, before anything is simulated (the message names FILE:LINE:COLUMN);
 *   3 `validate --strict` and a prediction row missed its tolerance;
 *   134 (SIGABRT) a broken model invariant: a bug, please report it.
 * Each command lives in its own cmd_*.c file with its entry (cmd.h): name,
 * operands, summary and declared options, from which `vlocksim CMD --help`
 * (or -h, or `help CMD`) and its man page are made (help.c).  A command of
 * two words ("trace import") is found by both.
 */
#include "config.h"

#include <gsl/gsl_errno.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd.h"

const struct cmd_entry *const cmd_table[] = {
	&cmd_run_entry,
	&cmd_list_entry,
	&cmd_sweep_entry,
	&cmd_validate_entry,
	&cmd_calibrate_entry,
	&cmd_trace_import_entry,
	&cmd_trace_scenario_entry,
	&cmd_machine_probe_entry,
	&cmd_lab_entry,
	&cmd_lab_vm_entry,
	NULL
};

void
cmd_try(const char *name)
{
	fprintf(stderr, "Try 'vlocksim %s --help'.\n", name);
}

/* -h or --help anywhere before "--": the command's own help. */
static int
wants_help(int argc, char **argv)
{
	int i;

	for (i = 1; i < argc && strcmp(argv[i], "--") != 0; i++)
		if (strcmp(argv[i], "-h") == 0 || strcmp(argv[i], "--help") == 0)
			return 1;
	return 0;
}

/*
 * The command argv[0] (and argv[1] for a two-word one) names; *words: how
 * many it took.  NULL for none; *group then says whether argv[0] is the
 * first word of some ("trace" alone, or "trace export").
 */
static const struct cmd_entry *
cmd_find(int argc, char **argv, int *words, int *group)
{
	size_t n = strlen(argv[0]);
	int i;

	*group = 0;
	for (i = 0; cmd_table[i] != NULL; i++) {
		const char *name = cmd_table[i]->name;

		if (strcmp(name, argv[0]) == 0) {
			*words = 1;
			return cmd_table[i];
		}
		if (strncmp(name, argv[0], n) == 0 && name[n] == ' ') {
			*group = 1;
			if (argc > 1 && strcmp(name + n + 1, argv[1]) == 0) {
				*words = 2;
				return cmd_table[i];
			}
		}
	}
	return NULL;
}

/* Parse, then run; under mpirun (CMD_MPI) every rank does, and rank 0 alone speaks. */
static int
cmd_exec(const struct cmd_entry *ce, int argc, char **argv)
{
	void *args = xcalloc(1, ce->size);
	struct cmd_mpi mp, *mpp = ce->flags & CMD_MPI ? &mp : NULL;
	int rc;

	if (mpp != NULL && cmd_mpi_begin(ce->name, mpp)) {
		free(args);
		return CMD_EXIT_INPUT;
	}
	if ((rc = ce->parse(argc, argv, args)) == 0)
		rc = ce->run(args, mpp);
	else if (mpp != NULL)	/* never leave rank 0 waiting for this rank */
		cmd_mpi_failed(mpp, "rank could not read its command line");
	opt_free(ce, args);
	free(args);
	return mpp != NULL ? cmd_mpi_end(ce->name, mpp, rc) : rc;
}

/* `vlocksim help [--format man] [COMMAND]`; build-aux/mkman.sh uses the man form. */
static int
help(int argc, char **argv)
{
	const struct cmd_entry *ce;
	int man = argc > 1 && strcmp(argv[1], "--format") == 0, words, group;

	if (man && (argc < 3 || strcmp(argv[2], "man") != 0)) {
		fprintf(stderr, "vlocksim help: --format is man\n");
		return CMD_EXIT_INPUT;
	}
	argc -= man ? 3 : 1;
	argv += man ? 3 : 1;
	if (argc == 0 && !man) {
		cmd_usage(stdout);
		return 0;
	}
	if (argc > 0 && (ce = cmd_find(argc, argv, &words, &group)) != NULL) {
		(man ? opt_man : opt_help)(ce, stdout);
		return 0;
	}
	if (argc > 0 && !man && group && cmd_group_help(argv[0], stdout))
		return 0;
	fprintf(stderr, "vlocksim help: no command '%s'\n", argc > 0 ? argv[0] : "");
	return CMD_EXIT_INPUT;
}

/*
 * Standard output and error closed and checked, as coreutils' close_stdout
 * does: what was printed may have failed to reach its file (a full disk,
 * /dev/full), and a run whose results were lost is no success (exit 1).
 */
static int
close_std(int rc)
{
	/* a write that failed before (a full buffer's flush) left its errno */
	int bad = ferror(stdout), e = bad ? errno : 0;

	if (fflush(stdout) != 0) {
		bad = 1;
		e = errno;
	}
	if (fclose(stdout) != 0 && !bad) {
		bad = 1;
		e = errno;
	}
	if (bad) {
		fprintf(stderr, "vlocksim: cannot write standard output%s%s\n", e ? ": " : "",
		    e ? strerror(e) : "");
		rc = rc ? rc : CMD_EXIT_FAIL;
	}
	if (fflush(stderr) != 0 || ferror(stderr))
		rc = rc ? rc : CMD_EXIT_FAIL;
	return rc;
}

static int
dispatch(int argc, char **argv)
{
	const struct cmd_entry *ce;
	int words, group;
	char prog[64];

	if (argc < 2) {
		cmd_usage(stderr);
		return CMD_EXIT_INPUT;
	}
	if (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0 ||
	    strcmp(argv[1], "help") == 0)
		return help(argc - 1, argv + 1);
	if (strcmp(argv[1], "--version") == 0 || strcmp(argv[1], "-V") == 0) {
		printf("vlocksim %s\n", PACKAGE_VERSION);
		return 0;
	}
	if ((ce = cmd_find(argc - 1, argv + 1, &words, &group)) == NULL) {
		if (!group) {
			fprintf(stderr, "vlocksim: unknown command '%s'\n", argv[1]);
			cmd_usage(stderr);
			return CMD_EXIT_INPUT;
		}
		/* "vlocksim trace", "trace --help"; "trace export [--help]" is no command */
		if (argc > 2 && wants_help(2, argv + 1)) {
			cmd_group_help(argv[1], stdout);
			return 0;
		}
		if (argc > 2)
			fprintf(stderr, "vlocksim %s: unknown subcommand '%s'\n", argv[1], argv[2]);
		cmd_group_help(argv[1], stderr);
		return CMD_EXIT_INPUT;
	}
	if (wants_help(argc - words, argv + words)) {
		opt_help(ce, stdout);
		return 0;
	}
	/* getopt prefixes its messages with argv[0]: "vlocksim trace scenario: ...". */
	snprintf(prog, sizeof prog, "vlocksim %s", ce->name);
	argv[words] = prog;
	return cmd_exec(ce, argc - words, argv + words);
}

int
main(int argc, char **argv)
{
	/* GSL's default handler abort()s; every caller checks statuses instead */
	gsl_set_error_handler_off();
	return close_std(dispatch(argc, argv));
}
