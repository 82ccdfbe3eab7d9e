/* SPDX-License-Identifier: GPL-2.0-or-later */
/* cmd_validate.c - `vlocksim validate`: every case, predicted against measured. */
#include "config.h"

#include <dirent.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cmd.h"
#include "datadir.h"
#include "plot.h"
#include "pool.h"
#include "report.h"
#include "validate.h"

static int
cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Every .yaml file in dir, sorted by name. */
static char **
all_cases(const char *dir, int *n)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	char **v = NULL;
	size_t len;

	*n = 0;
	if (d == NULL)
		return NULL;
	while ((e = readdir(d)) != NULL) {
		len = strlen(e->d_name);
		if (len > 5 && strcmp(e->d_name + len - 5, ".yaml") == 0) {
			v = xrealloc(v, (size_t)(*n + 1) * sizeof *v);
			v[(*n)++] = xstrndup(e->d_name, len - 5);
		}
	}
	closedir(d);
	if (*n > 1)	/* an empty folder: v is NULL, which qsort may not take */
		qsort(v, (size_t)*n, sizeof *v, cmp_str);
	return v;
}

/*
 * A CASE that names no case (or, name NULL, a folder without cases): which
 * cases there are, or where the folder was looked for.  Returns -1.
 */
static int
unknown_case(const char *name, const char *dir, char **all, int nall, struct vs_err *err)
{
	char *s, *t;
	int i;

	if (name == NULL || nall == 0) {
		char *where = vs_data_where("validation/cases");

		if (name != NULL)
			vs_errf(err, NULL, 0, 0, "vlocksim validate: %s/%s.yaml: no such case, and "
			    "%s holds no cases (%s)", dir, name, dir, where);
		else
			vs_errf(err, NULL, 0, 0, "vlocksim validate: no cases in %s (%s)", dir,
			    where);
		free(where);
		return -1;
	}
	s = xasprintf("vlocksim validate: %s/%s.yaml: no such case (a case is named by its "
	    "file or a prefix of it); the cases are:", dir, name);
	for (i = 0; i < nall; i++) {
		t = xasprintf("%s %s", s, all[i]);
		free(s);
		s = t;
	}
	vs_errf(err, NULL, 0, 0, "%s", s);
	free(s);
	return -1;
}

static int
validate_main(int argc, char **argv, struct cmd_mpi *mp)
{
	static const struct option opts[] = {
		{ "reps", required_argument, NULL, 'r' },
		{ "jobs", required_argument, NULL, 'j' },
		{ "format", required_argument, NULL, 'f' },
		{ "out", required_argument, NULL, 'o' },
		{ "cases", required_argument, NULL, 'c' },
		{ "strict", no_argument, NULL, 's' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	const char *out = "out/validate", *dir = NULL;
	enum report_fmt fmt = FMT_TABLE;
	struct vcase **cases = NULL;
	struct vreport rep = { 0 };
	struct vs_err err;
	char **names = NULL, *text, *stage = NULL;
	long long v;
	int ncases = 0, nnames = 0, reps = 0, strict = 0, c, i, rc = CMD_EXIT_INPUT;
	int jobs = pool_default_workers();
	int own_names = 0, missed = 0;

	while ((c = getopt_long(argc, argv, "j:", opts, NULL)) != -1) {
		switch (c) {
		case 'r':
			if (cmd_int_opt("--reps", optarg, 1, 100000, &v))
				return CMD_EXIT_INPUT;
			reps = (int)v;
			break;
		case 'j':
			if (cmd_int_opt("-j", optarg, 1, POOL_MAX_WORKERS, &v))
				return CMD_EXIT_INPUT;
			jobs = (int)v;
			break;
		case 'f':
			if (report_fmt_parse(optarg, &fmt)) {
				fprintf(stderr, "vlocksim: --format is table, csv or json\n");
				return CMD_EXIT_INPUT;
			}
			break;
		case 'o':
			out = optarg;
			break;
		case 'c':
			dir = optarg;
			break;
		case 's':
			strict = 1;
			break;
		case 'h':
			puts("usage: vlocksim validate [CASE...] [-j N] [--reps N] [--format table|csv|json]\n"
			    "                         [--out DIR] [--cases DIR] [--strict]\n"
			    "Runs every case (validation/cases/*.yaml by default), writes\n"
			    "DIR/validation.{csv,txt,json} and a plot per case plus scatter.{png,svg}.\n"
			    "-j N: rows run on N worker processes (default: the cores); the\n"
			    "output is the same for any N.  Under mpirun, on every rank (-j per\n"
			    "rank); rank 0 writes.\n"
			    "--strict: exit 3 when a prediction row misses its tolerance.");
			return 0;
		default:
			cmd_try("validate");
			return CMD_EXIT_INPUT;
		}
	}
	if (dir == NULL)
		dir = vcase_dir();
	if (optind < argc) {
		/* NAME, or every case whose name starts with NAME (seed001 -> seed001-*). */
		char **all = all_cases(dir, &c);

		own_names = 1;
		for (; optind < argc; optind++) {
			char *p = vcase_path(dir, argv[optind]);
			int found = access(p, R_OK) == 0 || strchr(argv[optind], '/') != NULL;
			int before = nnames;

			free(p);
			for (i = 0; !found && i < c; i++)
				if (strncmp(all[i], argv[optind], strlen(argv[optind])) == 0) {
					names = xrealloc(names, (size_t)(nnames + 1) * sizeof *names);
					names[nnames++] = xstrdup(all[i]);
				}
			if (!found && nnames == before) {
				unknown_case(argv[optind], dir, all, c, &err);
				for (i = 0; i < c; i++)
					free(all[i]);
				free(all);
				goto fail;
			}
			if (found) {	/* a file: vcase_load reads (or refuses) it */
				names = xrealloc(names, (size_t)(nnames + 1) * sizeof *names);
				names[nnames++] = xstrdup(argv[optind]);
			}
		}
		for (i = 0; i < c; i++)
			free(all[i]);
		free(all);
	} else {
		names = all_cases(dir, &nnames);
		own_names = 1;
		if (nnames == 0) {
			unknown_case(NULL, dir, NULL, 0, &err);
			goto fail;
		}
	}
	cases = xcalloc((size_t)nnames, sizeof *cases);
	for (i = 0; i < nnames; i++) {
		char *p = vcase_path(dir, names[i]);

		cases[i] = xcalloc(1, sizeof **cases);
		ncases++;
		c = vcase_load(cases[i], p, &err);
		free(p);
		if (c)
			goto fail;
	}
	if (mp->rank != 0) {
		/* Under mpirun: the same rows as rank 0, run for it; it writes. */
		validate_serve(cases, ncases, reps, jobs);
		mp->served = 1;
		rc = 0;
		goto clean;
	}
	cmd_mpi_jobs(mp, jobs);
	/* The set (reports, plot data, plots) appears whole in OUT or not at all;
	 * where it goes is checked before any case runs. */
	rc = CMD_EXIT_FAIL;
	if ((stage = cmd_stage_begin(out, &err)) == NULL)
		goto fail;
	rc = CMD_EXIT_INPUT;
	/* Nothing is simulated until every case's rows and the plot scripts are
	 * known to be good. */
	for (i = 0; i < ncases; i++)
		if (vcase_check(cases[i], &err))
			goto fail;
	{
		static const char *const gp[] = { "case.gp", "summary.gp", "scatter.gp" };

		if (plot_ready(gp, 3, &err) < 0)
			goto fail;
	}
	if (validate_cases(cases, ncases, reps, jobs, &rep, cmd_mpi_progress(mp), &err))
		goto fail;
	rc = CMD_EXIT_FAIL;
	{
		static const struct { int f; const char *file; } outs[] = {
			{ FMT_TABLE, "validation.txt" }, { FMT_CSV, "validation.csv" },
			{ FMT_JSON, "validation.json" } };

		for (i = 0; i < 3; i++) {
			text = vreport_render(&rep, outs[i].f);
			c = cmd_write_out(stage, outs[i].file, text, &err);
			free(text);
			if (c)
				goto fail;
		}
	}
	c = vreport_plot(&rep, cases, ncases, stage, &err);
	if (c < 0)
		goto fail;
	if (cmd_stage_commit(stage, out, &err)) {
		stage = NULL;
		goto fail;
	}
	stage = NULL;
	if (c > 0)
		fputs("vlocksim validate: gnuplot not found; plots skipped\n", stderr);
	text = vreport_render(&rep, fmt);
	fputs(text, stdout);
	free(text);
	for (i = 0; i < rep.n; i++)
		missed += rep.r[i].role == ROLE_PREDICTION && !rep.r[i].within;
	rc = strict && missed ? CMD_EXIT_MISSED : 0;
	goto clean;
fail:
	fprintf(stderr, "%s\n", err.msg);
	cmd_mpi_failed(mp, err.msg);
clean:
	cmd_stage_abort(stage);
	for (i = 0; i < ncases; i++) {
		vcase_free(cases[i]);
		free(cases[i]);
	}
	free(cases);
	if (own_names) {
		for (i = 0; i < nnames; i++)
			free(names[i]);
		free(names);
	}
	vreport_free(&rep);
	return rc;
}

int
cmd_validate(int argc, char **argv)
{
	struct cmd_mpi mp;

	if (cmd_mpi_begin("validate", &mp))
		return CMD_EXIT_INPUT;
	return cmd_mpi_end("validate", &mp, validate_main(argc, argv, &mp));
}
