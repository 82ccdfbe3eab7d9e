/*
 * cmd_sweep.c - `vlocksim sweep`: a grid of overrides times replications, in
 * parallel worker processes, resumable after a kill (see sweep.h).
 */
#include "config.h"

#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cmd.h"
#include "sweep.h"
#include "util.h"

#define SWEEP_MAX_JOBS 1024

/* out/sweep-NAME for scenario .../NAME.yaml */
static char *
default_out(const char *scenario)
{
	const char *b = strrchr(scenario, '/'), *dot;

	b = b ? b + 1 : scenario;
	dot = strrchr(b, '.');
	return xasprintf("out/sweep-%.*s", (int)(dot && dot != b ? dot - b : (long)strlen(b)),
	    b);
}

int
cmd_sweep(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "vary", required_argument, NULL, 'V' },
		{ "set", required_argument, NULL, 'S' },
		{ "reps", required_argument, NULL, 'r' },
		{ "seed", required_argument, NULL, 's' },
		{ "jobs", required_argument, NULL, 'j' },
		{ "out", required_argument, NULL, 'o' },
		{ "plot", required_argument, NULL, 'p' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	struct sweep sw;
	struct vs_err err;
	char **varies = NULL, **sets = NULL, **plots = NULL, *out = NULL, *outarg = NULL;
	int nvaries = 0, nsets = 0, nplots = 0, c, i, jobs = 1, reps = -1, rc = CMD_EXIT_INPUT;
	int warned = 0;
	long long seed = -1, v;
	size_t ran = 0;

	memset(&sw, 0, sizeof sw);
	while ((c = getopt_long(argc, argv, "j:", opts, NULL)) != -1) {
		switch (c) {
		case 'V':
			varies = xrealloc(varies, (size_t)(nvaries + 1) * sizeof *varies);
			varies[nvaries++] = optarg;
			break;
		case 'S':
			sets = xrealloc(sets, (size_t)(nsets + 1) * sizeof *sets);
			sets[nsets++] = optarg;
			break;
		case 'r':
			if (cmd_int_opt("--reps", optarg, 1, 100000, &v))
				goto done;
			reps = (int)v;
			break;
		case 's':
			if (cmd_int_opt("--seed", optarg, 0, LLONG_MAX, &seed))
				goto done;
			break;
		case 'j':
			if (cmd_int_opt("-j", optarg, 1, SWEEP_MAX_JOBS, &v))
				goto done;
			jobs = (int)v;
			break;
		case 'o':
			outarg = optarg;
			break;
		case 'p':
			plots = xrealloc(plots, (size_t)(nplots + 1) * sizeof *plots);
			plots[nplots++] = xstrdup(optarg);
			break;
		case 'h':
			cmd_usage(stdout);
			rc = 0;
			goto done;
		default:
			cmd_usage(stderr);
			goto done;
		}
	}
	if (optind != argc - 1) {
		fprintf(stderr, "vlocksim sweep: name one scenario file\n");
		goto done;
	}
	if (nvaries == 0) {
		fprintf(stderr, "vlocksim sweep: give at least one --vary PATH=V1,V2,...\n");
		goto done;
	}
	sweep_init(&sw, argv[optind]);
	sw.reps = reps;
	sw.seed = seed;
	for (i = 0; i < nsets; i++)
		sweep_add_set(&sw, sets[i]);
	for (i = 0; i < nvaries; i++)
		if (sweep_add_vary(&sw, varies[i], &err))
			goto fail;
	/* Every point is loaded and checked before anything is written. */
	if (sweep_prepare(&sw, &err))
		goto fail;
	for (i = 0; i < nplots; i++)
		if (!sweep_has_col(&sw, plots[i])) {
			vs_errf(&err, NULL, 0, 0, "--plot %s: not a metric of this sweep "
			    "(see the scenario's metrics: filter, or vlocksim list)", plots[i]);
			goto fail;
		}
	if (nplots == 0)
		plots = sweep_default_plots(&sw, &nplots);

	rc = CMD_EXIT_FAIL;
	out = outarg != NULL ? xstrdup(outarg) : default_out(argv[optind]);
	if (cmd_mkdir_p(out, &err))
		goto fail;
	c = sweep_exec(&sw, out, jobs, isatty(STDERR_FILENO) ? stderr : NULL, &ran, &err);
	if (c == SWEEP_REFUSED)
		rc = CMD_EXIT_INPUT;
	if (c != 0)
		goto fail;
	rc = 0;
	for (i = 0; i < nplots; i++) {
		c = sweep_plot(&sw, out, plots[i], &err);
		if (c == 1 && !warned++)
			fprintf(stderr, "vlocksim sweep: warning: no gnuplot (GNUPLOT_PATH '%s'); "
			    "no plots\n", GNUPLOT_PATH);
		if (c < 0) {
			fprintf(stderr, "vlocksim sweep: %s\n", err.msg);
			rc = CMD_EXIT_FAIL;
		}
	}
	printf("sweep: %zu points (%zu run now, %zu already done), %s/results.csv\n",
	    sw.npoints, ran, sw.npoints - ran, out);
	goto clean;
fail:
	fprintf(stderr, "%s\n", err.msg);
clean:
	sweep_free(&sw);
done:
	for (i = 0; i < nplots; i++)
		free(plots[i]);
	free(plots);
	free(varies);
	free(sets);
	free(out);
	return rc;
}
