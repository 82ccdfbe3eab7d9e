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

#include <getopt.h>
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

static int
calibrate_main(int argc, char **argv, struct cmd_mpi *mp)
{
	static const struct option opts[] = {
		{ "output", required_argument, NULL, 'o' },
		{ "out", required_argument, NULL, 'o' },	/* the old spelling */
		{ "jobs", required_argument, NULL, 'j' },
		{ "cases", required_argument, NULL, 'c' },
		{ NULL, 0, NULL, 0 }
	};
	struct calib cal;
	struct vs_err err;
	const char *out = NULL, *dir = NULL, *epoch = getenv("SOURCE_DATE_EPOCH");
	char date[32], *text, *shipped = NULL, *mine = NULL;
	time_t now = epoch != NULL && *epoch != '\0' ? (time_t)strtoll(epoch, NULL, 10) :
	    time(NULL);
	int c, rc = CMD_EXIT_INPUT, i, jobs = pool_default_workers();
	long long v;

	while ((c = getopt_long(argc, argv, "j:", opts, NULL)) != -1) {
		switch (c) {
		case 'j':
			if (cmd_int_opt("-j", optarg, 1, POOL_MAX_WORKERS, &v))
				return CMD_EXIT_INPUT;
			jobs = (int)v;
			break;
		case 'o':
			out = optarg;
			break;
		case 'c':
			dir = optarg;
			break;
		default:
			cmd_try("calibrate");
			return CMD_EXIT_INPUT;
		}
	}
	if (optind != argc - 1) {
		fprintf(stderr, "vlocksim calibrate: name one calibration file\n");
		return CMD_EXIT_INPUT;
	}
	if (calib_load(&cal, argv[optind], dir ? dir : vcase_dir(), &err))
		goto fail;
	cal.jobs = jobs;
	if (mp->rank != 0) {
		/* Under mpirun: evaluations for rank 0, which fits and writes. */
		calib_serve(&cal);
		mp->served = 1;
		rc = 0;
		goto clean;
	}
	cmd_mpi_jobs(mp, jobs);
	if (cal.output != NULL)
		shipped = path_tidy(cal.output);
	if (out == NULL) {
		mine = xasprintf("out/calibrate/%s.yaml", cal.name);
		if (cmd_mkdir_p("out/calibrate", &err))
			goto fail;
		out = mine;
	}
	if (calib_fit(&cal, cmd_mpi_progress(mp), &err))
		goto fail;
	strftime(date, sizeof date, "%Y-%m-%d", gmtime(&now));
	text = calib_render(&cal, date);
	rc = CMD_EXIT_FAIL;
	c = vs_write_file_atomic(out, text, strlen(text), &err);
	free(text);
	if (c)
		goto fail;
	printf("calibrated %s: objective %.6g after %d evaluations\n", cal.name, cal.objective,
	    cal.evals);
	for (i = 0; i < cal.nparams; i++)
		printf("  %s = %.6g%s\n", cal.params[i].paths[0], cal.params[i].value,
		    cal.params[i].unit);
	printf("written to %s\n", out);
	if (mine != NULL && shipped != NULL)
		printf("(the shipped calibration %s is unchanged; --output %s replaces it)\n",
		    shipped, shipped);
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

int
cmd_calibrate(int argc, char **argv)
{
	struct cmd_mpi mp;

	if (cmd_mpi_begin("calibrate", &mp))
		return CMD_EXIT_INPUT;
	return cmd_mpi_end("calibrate", &mp, calibrate_main(argc, argv, &mp));
}
