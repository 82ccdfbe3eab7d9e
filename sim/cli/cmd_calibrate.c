/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * cmd_calibrate.c - `vlocksim calibrate CALIB.yaml [--output FILE]`.
 *
 * Without --output the fit goes to out/calibrate/NAME.yaml: following the
 * README never rewrites a tracked file.  The shipped calibrations are
 * reproduced with --output set to CALIB's `output:` (the path printed at the
 * end); the date line honours SOURCE_DATE_EPOCH (reproducible builds), so the
 * same fit with the same epoch gives the same bytes.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "calibrate.h"
#include "pool.h"
#include "cmd.h"
#include "validate.h"

/* a/b/../../c -> c: the path as a user would type it (lexical only). */
static char *
path_tidy(const char *p)
{
	char *s = xstrdup(p), *o = xmalloc(strlen(p) + 2), *tok, *save;
	size_t *ends = xcalloc(strlen(p) + 1, sizeof *ends), n = 0, len = 0;
	int abs = *p == '/';

	o[0] = '\0';
	for (tok = strtok_r(s, "/", &save); tok != NULL; tok = strtok_r(NULL, "/", &save)) {
		if (strcmp(tok, ".") == 0)
			continue;
		if (strcmp(tok, "..") == 0 && n > 0 && strcmp(o + (n > 1 ? ends[n - 2] + 1 :
		    0), "..") != 0) {
			n--;
			len = n > 0 ? ends[n - 1] : 0;
			o[len] = '\0';
			continue;
		}
		len += (size_t)sprintf(o + len, "%s%s", n > 0 ? "/" : "", tok);
		ends[n++] = len;
	}
	if (abs) {
		char *a = xasprintf("/%s", o);

		free(o);
		o = a;
	} else if (n == 0)
		strcpy(o, ".");
	free(s);
	free(ends);
	return o;
}

struct calibrate_args {
	struct pool_args pool;
	struct limit_args limits;
	const char *output;	/* NULL: out/calibrate/NAME.yaml */
	const char *calib;	/* the operand */
};

#define A(f) OPT_AT(struct calibrate_args, f)
static const struct opt_decl calibrate_opts[] = {
	CMD_POOL_OPTS(struct calibrate_args, "an evaluation's runs"),
	{ "output", 0, "FILE", OPT_STR, A(output),
	  .help = "write the fit to FILE (default out/calibrate/NAME.yaml, so that the "
	  "shipped calibration is left alone)",
	  .man = "The shipped calibrations are reproduced with --output set to the "
	  "calibration's output: (which calibrate prints); with SOURCE_DATE_EPOCH set, "
	  "the file's date line is taken from it and the bytes repeat." },
	{ "out", 0, "FILE", OPT_STR, A(output), .help = "the older name of --output" },
	CMD_LIMIT_OPTS(struct calibrate_args),
	{ NULL }
};
#undef A

static int
parse_calibrate_args(int argc, char **argv, void *args)
{
	struct calibrate_args *a = args;

	a->pool.jobs = pool_default_workers();
	return opt_parse_operands(&cmd_calibrate_entry, argc, argv, a, 1, "calibration file",
	    &a->calib);
}

/* The fit written to out; what was fitted, and where, on stdout. */
static int
calibrate_write(struct calib *cal, const char *out, const char *shipped, int mine,
    struct vs_err *err)
{
	const char *epoch = getenv("SOURCE_DATE_EPOCH");
	time_t now = epoch != NULL && *epoch != '\0' ? (time_t)strtoll(epoch, NULL, 10) :
	    time(NULL);
	char date[32], *text;
	int c, i;

	strftime(date, sizeof date, "%Y-%m-%d", gmtime(&now));
	text = calib_render(cal, date);
	c = vs_write_file_atomic(out, text, strlen(text), err);
	free(text);
	if (c)
		return -1;
	printf("calibrated %s: objective %.6g after %d evaluations\n", cal->name,
	    cal->objective, cal->evals);
	for (i = 0; i < cal->nparams; i++)
		printf("  %s = %.6g%s\n", cal->params[i].paths[0], cal->params[i].value,
		    cal->params[i].unit);
	printf("written to %s\n", out);
	if (mine && shipped != NULL)
		printf("(the shipped calibration %s is unchanged; --output %s replaces it)\n",
		    shipped, shipped);
	return 0;
}

static int
run_calibrate(const void *args, struct cmd_mpi *mp)
{
	const struct calibrate_args *a = args;
	struct calib cal;
	struct vs_err err;
	const char *out = a->output;
	char *shipped = NULL, *mine = NULL;
	int rc = CMD_EXIT_INPUT;

	cmd_limits_set(&a->limits);
	if (calib_load(&cal, a->calib, a->pool.cases ? a->pool.cases : vcase_dir(), &err))
		goto fail;
	cal.jobs = (int)a->pool.jobs;
	if (mp->rank != 0) {
		/* Under mpirun: evaluations for rank 0, which fits and writes. */
		calib_serve(&cal);
		mp->served = 1;
		rc = 0;
		goto clean;
	}
	cmd_mpi_jobs(mp, (int)a->pool.jobs);
	if (cal.output != NULL)
		shipped = path_tidy(cal.output);
	if (out == NULL) {
		out = mine = xasprintf("out/calibrate/%s.yaml", cal.name);
		if (cmd_mkdir_p("out/calibrate", &err))
			goto fail;
	}
	if ((rc = calib_fit(&cal, cmd_mpi_progress(mp), &err)) != 0) {
		rc = cmd_limits_exit(rc, CMD_EXIT_INPUT);
		goto fail;
	}
	rc = CMD_EXIT_FAIL;
	if (calibrate_write(&cal, out, shipped, mine != NULL, &err))
		goto fail;
	rc = 0;
	goto clean;
fail:
	fprintf(stderr, "%s\n", err.msg);
	cmd_mpi_failed(mp, err.msg);
clean:
	free(shipped);
	free(mine);
	calib_free(&cal);
	return rc;
}

const struct cmd_entry cmd_calibrate_entry = {
	.name = "calibrate",
	.args = "CALIB.yaml",
	.summary = "fit parameters to a case's calibration rows",
	.about = "Fits CALIB's params to the calibration rows of its cases (GSL "
	    "nmsimplex2, common random numbers) and writes the YAML that scenarios include "
	    "with `calibration: FILE`.  Under mpirun each evaluation's runs spread over the "
	    "ranks too; rank 0 fits and writes, with the same bytes.",
	.opts = calibrate_opts,
	.size = sizeof(struct calibrate_args),
	.parse = parse_calibrate_args,
	.run = run_calibrate,
	.flags = CMD_MPI,
};
