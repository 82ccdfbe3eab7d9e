/* cmd_calibrate.c - `vlocksim calibrate CALIB.yaml [--out FILE]`. */
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

int
cmd_calibrate(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "out", required_argument, NULL, 'o' },
		{ "jobs", required_argument, NULL, 'j' },
		{ "cases", required_argument, NULL, 'c' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	struct calib cal;
	struct vs_err err;
	const char *out = NULL, *dir = NULL;
	char date[32], *text;
	time_t now = time(NULL);
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
		case 'h':
			puts("usage: vlocksim calibrate CALIB.yaml [-j N] [--out FILE] [--cases DIR]\n"
			    "Fits CALIB's params to the calibration rows of its cases and writes\n"
			    "the YAML that scenarios include with `calibration: FILE`.\n"
			    "-j N: an evaluation's rows run on N worker processes (default: the\n"
			    "cores); the fit is the same for any N.");
			return 0;
		default:
			return CMD_EXIT_INPUT;
		}
	}
	if (optind != argc - 1) {
		fprintf(stderr, "vlocksim calibrate: name one calibration file\n");
		return CMD_EXIT_INPUT;
	}
	if (calib_load(&cal, argv[optind], dir ? dir : vcase_dir(), &err))
		goto fail;
	if (out == NULL)
		out = cal.output;
	if (out == NULL) {
		fprintf(stderr, "vlocksim calibrate: no --out and no 'output' in %s\n",
		    argv[optind]);
		goto clean;
	}
	cal.jobs = jobs;
	if (calib_fit(&cal, isatty(2), &err))
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
	rc = 0;
	goto clean;
fail:
	fprintf(stderr, "%s\n", err.msg);
clean:
	calib_free(&cal);
	return rc;
}
