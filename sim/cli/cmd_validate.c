/* SPDX-License-Identifier: GPL-2.0-or-later */
/* cmd_validate.c - `vlocksim validate`: every case, predicted against measured. */
#include "config.h"

#include <dirent.h>
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

struct validate_args {
	struct pool_args pool;
	struct limit_args limits;
	long long reps;		/* 0: each case's */
	int format;		/* enum report_fmt */
	const char *out;
	int strict;
	char **names;		/* operands: CASE... */
	int nnames;
};

#define A(f) OPT_AT(struct validate_args, f)
static const struct opt_decl validate_opts[] = {
	CMD_POOL_OPTS(struct validate_args, "every replication of every row"),
	{ "reps", 0, "N", OPT_INT, A(reps), .min = 1, .max = 100000,
	  .help = "replications per row (default: each case's reps:)" },
	{ "format", 0, "table|csv|json", OPT_FN, A(format), .parse = cmd_report_fmt,
	  .def = "table", .help = "standard output as a table, CSV or JSON" },
	{ "out", 0, "DIR", OPT_STR, A(out),
	  .def = "out/validate", .help = "where validation.{csv,txt,json} and the plots go",
	  .man = "The set (reports, plot data, plots) appears whole in DIR or not at all; "
	  "where it goes is checked before any case runs." },
	{ "strict", 0, NULL, OPT_FLAG, A(strict),
	  .help = "exit 3 when a prediction row misses its tolerance" },
	CMD_LIMIT_OPTS(struct validate_args),
	{ NULL }
};
#undef A

static int
parse_validate_args(int argc, char **argv, void *args)
{
	struct validate_args *a = args;
	int next;

	a->pool.jobs = pool_default_workers();
	if (opt_parse(&cmd_validate_entry, argc, argv, a, &next))
		return CMD_EXIT_INPUT;
	a->names = argv + next;
	a->nnames = argc - next;
	return 0;
}

/* What one validation holds. */
struct validate_state {
	char **names;		/* the cases to run */
	int nnames;
	struct vcase **cases;
	int ncases;
	struct vreport rep;
	char *stage;
	struct vs_err err;
};

static void
add_name(struct validate_state *v, const char *name)
{
	v->names = xrealloc(v->names, (size_t)(v->nnames + 1) * sizeof *v->names);
	v->names[v->nnames++] = xstrdup(name);
}

/* CASE... (a file, a name, or every case a name prefixes: seed001 -> seed001-*),
 * or every case of dir; then each loaded. */
static int
validate_load(const struct validate_args *a, const char *dir, struct validate_state *v)
{
	char **all;
	int nall, i, k, rc = 0;

	all = all_cases(dir, &nall);
	if (a->nnames == 0 && nall == 0)
		rc = unknown_case(NULL, dir, NULL, 0, &v->err);
	for (i = 0; a->nnames == 0 && i < nall; i++)
		add_name(v, all[i]);
	for (k = 0; rc == 0 && k < a->nnames; k++) {
		const char *n = a->names[k];
		char *p = vcase_path(dir, n);
		int found = access(p, R_OK) == 0 || strchr(n, '/') != NULL, before = v->nnames;

		free(p);
		for (i = 0; !found && i < nall; i++)
			if (strncmp(all[i], n, strlen(n)) == 0)
				add_name(v, all[i]);
		if (found)	/* a file: vcase_load reads (or refuses) it */
			add_name(v, n);
		else if (v->nnames == before)
			rc = unknown_case(n, dir, all, nall, &v->err);
	}
	for (i = 0; i < nall; i++)
		free(all[i]);
	free(all);
	v->cases = xcalloc((size_t)v->nnames + 1, sizeof *v->cases);
	for (i = 0; rc == 0 && i < v->nnames; i++) {
		char *p = vcase_path(dir, v->names[i]);

		v->cases[i] = xcalloc(1, sizeof **v->cases);
		v->ncases++;
		rc = vcase_load(v->cases[i], p, &v->err);
		free(p);
	}
	return rc;
}

/* Nothing is simulated until every case's rows and the plot scripts are
 * known to be good; where the set goes is checked first. */
static int
validate_check(const struct validate_args *a, struct validate_state *v)
{
	static const char *const gp[] = { "case.gp", "summary.gp", "scatter.gp" };
	int i;

	if ((v->stage = cmd_stage_begin(a->out, &v->err)) == NULL)
		return CMD_EXIT_FAIL;
	for (i = 0; i < v->ncases; i++)
		if (vcase_check(v->cases[i], &v->err))
			return CMD_EXIT_INPUT;
	return plot_ready(gp, 3, &v->err) < 0 ? CMD_EXIT_INPUT : 0;
}

/* The three reports and the plots into the stage, then into OUT; stdout. */
static int
validate_write(const struct validate_args *a, struct validate_state *v)
{
	static const struct { int f; const char *file; } outs[] = {
		{ FMT_TABLE, "validation.txt" }, { FMT_CSV, "validation.csv" },
		{ FMT_JSON, "validation.json" } };
	char *text;
	int i, c, missed = 0;

	for (i = 0; i < 3; i++) {
		text = vreport_render(&v->rep, outs[i].f);
		c = cmd_write_out(v->stage, outs[i].file, text, &v->err);
		free(text);
		if (c)
			return -1;
	}
	if ((c = vreport_plot(&v->rep, v->cases, v->ncases, v->stage, &v->err)) < 0)
		return -1;
	i = cmd_stage_commit(v->stage, a->out, &v->err);
	v->stage = NULL;
	if (i)
		return -1;
	if (c > 0)
		fputs("vlocksim validate: gnuplot not found; plots skipped\n", stderr);
	text = vreport_render(&v->rep, a->format);
	fputs(text, stdout);
	free(text);
	for (i = 0; i < v->rep.n; i++)
		missed += v->rep.r[i].role == ROLE_PREDICTION && !v->rep.r[i].within;
	return a->strict && missed ? CMD_EXIT_MISSED : 0;
}

static int
run_validate(const void *args, struct cmd_mpi *mp)
{
	const struct validate_args *a = args;
	struct validate_state v;
	int i, rc = CMD_EXIT_INPUT;

	cmd_limits_set(&a->limits);
	memset(&v, 0, sizeof v);
	if (validate_load(a, a->pool.cases ? a->pool.cases : vcase_dir(), &v))
		goto fail;
	if (mp->rank != 0) {
		/* Under mpirun: the same rows as rank 0, run for it; it writes. */
		validate_serve(v.cases, v.ncases, (int)a->reps, (int)a->pool.jobs);
		mp->served = 1;
		rc = 0;
		goto clean;
	}
	cmd_mpi_jobs(mp, (int)a->pool.jobs);
	if ((rc = validate_check(a, &v)) != 0)
		goto fail;
	if ((rc = validate_cases(v.cases, v.ncases, (int)a->reps, (int)a->pool.jobs, &v.rep,
	    cmd_mpi_progress(mp), &v.err)) != 0) {
		rc = cmd_limits_exit(rc, CMD_EXIT_INPUT);
		goto fail;
	}
	if ((rc = validate_write(a, &v)) >= 0)
		goto clean;
	rc = CMD_EXIT_FAIL;
fail:
	fprintf(stderr, "%s\n", v.err.msg);
	cmd_mpi_failed(mp, v.err.msg);
clean:
	cmd_stage_abort(v.stage);
	for (i = 0; i < v.ncases; i++) {
		vcase_free(v.cases[i]);
		free(v.cases[i]);
	}
	free(v.cases);
	for (i = 0; i < v.nnames; i++)
		free(v.names[i]);
	free(v.names);
	vreport_free(&v.rep);
	return rc;
}

const struct cmd_entry cmd_validate_entry = {
	.name = "validate",
	.args = "[CASE...]",
	.summary = "predicted against measured for validation cases, with plots",
	.about = "Runs every case (validation/cases/*.yaml of the data folder by default; "
	    "CASE may be a prefix: seed004 runs seed004-*) and writes "
	    "DIR/validation.{csv,txt,json}, a plot per case, summary.{png,svg} and "
	    "scatter.{png,svg}.  Each row carries its tolerance and the rule that judged "
	    "it; rows whose run hit the duration cap are marked capped.  On a terminal, "
	    "the rows done of all, the elapsed time and an ETA are shown on stderr.",
	.opts = validate_opts,
	.size = sizeof(struct validate_args),
	.parse = parse_validate_args,
	.run = run_validate,
	.flags = CMD_MPI,
};
