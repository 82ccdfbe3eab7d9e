/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * cmd_sweep.c - `vlocksim sweep`: a grid of overrides times replications, in
 * parallel worker processes and, under mpirun, on MPI ranks; resumable after a
 * kill, in shards for job arrays, merged from shard folders (see sweep.h).
 */
#include "config.h"

#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cmd.h"
#include "datadir.h"
#include "exec_mpi.h"
#include "plot.h"
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

/* --shard K/N */
static int
parse_shard(const char *arg, int *k, int *n)
{
	char *end;
	long a, b;

	a = strtol(arg, &end, 10);
	if (end == arg || *end != '/')
		goto bad;
	b = strtol(end + 1, &end, 10);
	if (*end != '\0' || b < 1 || b > SWEEP_MAX_POINTS || a < 1 || a > b)
		goto bad;
	*k = (int)a - 1;
	*n = (int)b;
	return 0;
bad:
	fprintf(stderr, "vlocksim sweep: --shard takes K/N with 1 <= K <= N (e.g. 2/8), "
	    "got '%s'\n", arg);
	return -1;
}

/* The backends of rank 0 (or of a plain run): local forks, then the other ranks. */
static int
backends(const struct cmd_mpi *mp, const struct exec_job *job, int jobs,
    struct exec_backend **be)
{
	int n = 0;

	be[n++] = exec_fork_new(job, jobs);
	if (mp->on && mp->size > 1)
		be[n++] = exec_mpi_new(job, jobs);
	return n;
}

/* Plots of a finished sweep; 0 or CMD_EXIT_FAIL. */
static int
plot_all(const struct sweep *sw, const char *out, char **plots, int nplots)
{
	struct vs_err err;
	int i, c, rc = 0;

	for (i = 0; i < nplots; i++) {
		c = sweep_plot(sw, out, plots[i], &err);
		if (c < 0) {
			fprintf(stderr, "vlocksim sweep: %s\n", err.msg);
			rc = CMD_EXIT_FAIL;
		}
	}
	return rc;
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
		{ "shard", required_argument, NULL, 'k' },
		{ "merge", no_argument, NULL, 'm' },
		{ "progress", no_argument, NULL, 'P' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	struct sweep sw;
	struct vs_err err;
	struct exec_backend *be[2];
	struct exec_job job;
	struct sweep_ran ran;
	struct cmd_mpi mp;
	char **varies = NULL, **sets = NULL, **plots = NULL, *out = NULL, *outarg = NULL;
	char *scen = NULL, *why;
	int nvaries = 0, nsets = 0, nplots = 0, c, i, jobs = 1, reps = -1, rc = CMD_EXIT_INPUT;
	int shard = 0, nshards = 0, merge = 0, progress = 0, nbe = 0, setup = 0;
	int lockfd = -1;
	long long seed = -1, v;

	memset(&sw, 0, sizeof sw);
	err.msg[0] = '\0';
	/* Under mpirun every rank runs this; rank 0 alone speaks and writes. */
	if (cmd_mpi_begin("sweep", &mp))
		return CMD_EXIT_INPUT;
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
		case 'k':
			if (parse_shard(optarg, &shard, &nshards))
				goto done;
			break;
		case 'm':
			merge = 1;
			break;
		case 'P':
			progress = 1;
			break;
		case 'h':
			if (mp.rank == 0)
				cmd_usage(stdout);
			rc = 0;
			goto done;
		default:
			cmd_try("sweep");
			goto done;
		}
	}
	if (merge) {
		/* --merge DIR...: the grid comes from the first folder's sweep.meta. */
		if (optind == argc || nvaries || nsets || reps >= 0 || seed >= 0 || nshards) {
			fprintf(stderr, "vlocksim sweep: --merge takes only folders of one "
			    "sweep (DIR...), [--out DIR] and [--plot METRIC]\n");
			goto done;
		}
		if (sweep_from_dir(&sw, argv[optind], &err))
			goto fail;
	} else {
		if (optind != argc - 1) {
			fprintf(stderr, "vlocksim sweep: name one scenario file\n");
			goto done;
		}
		if (nvaries == 0) {
			fprintf(stderr, "vlocksim sweep: give at least one --vary "
			    "PATH=V1,V2,...\n");
			goto done;
		}
		if ((scen = vs_scenario_find(argv[optind], &why)) == NULL) {
			fprintf(stderr, "%s\n", why);
			free(why);
			goto done;
		}
		sweep_init(&sw, scen);
		sw.reps = reps;
		sw.seed = seed;
		sw.shard = shard;
		sw.nshards = nshards;
		for (i = 0; i < nsets; i++)
			sweep_add_set(&sw, sets[i]);
		for (i = 0; i < nvaries; i++)
			if (sweep_add_vary(&sw, varies[i], &err))
				goto fail;
	}
	/* Every point is loaded and checked before anything is written. */
	if (sweep_prepare(&sw, &err))
		goto fail;
	setup = 1;
	if (mp.rank != 0) {
		/* Ranks > 0 only run points for rank 0, which writes everything. */
		sweep_job(&sw, &job);
		mp.served = 1;
		exec_mpi_serve(merge ? NULL : &job, jobs, "rank has nothing to run");
		rc = 0;
		goto clean;
	}
	for (i = 0; i < nplots; i++)
		if (!sweep_has_col(&sw, plots[i])) {
			vs_errf(&err, NULL, 0, 0, "--plot %s: not a metric of this sweep "
			    "(see the scenario's metrics: filter, or vlocksim list)", plots[i]);
			goto fail;
		}
	if (nplots == 0)
		plots = sweep_default_plots(&sw, &nplots);
	/* The plots' needs are known before any point runs: a missing script
	 * is an error now, a missing gnuplot a warning now. */
	if (nplots > 0) {
		static const char *const gp[] = { "sweep.gp" };

		if ((c = plot_ready(gp, 1, &err)) < 0)
			goto fail;
		if (c == 1) {
			fprintf(stderr, "vlocksim sweep: warning: no gnuplot (GNUPLOT_PATH '%s'); "
			    "no plots\n", GNUPLOT_PATH);
		}
	}

	rc = CMD_EXIT_FAIL;
	out = outarg != NULL ? xstrdup(outarg) : merge ? xstrdup(argv[optind]) :
	    default_out(argv[optind]);
	if (cmd_mkdir_p(out, &err))
		goto fail;
	/* One sweep per folder (its shards share it); MPI ranks but rank 0
	 * write nothing there */
	if (!mp.on || mp.rank == 0) {
		if ((lockfd = sweep_lock(out, nshards > 0, &err)) < 0) {
			if (lockfd == SWEEP_REFUSED)
				rc = CMD_EXIT_INPUT;
			goto fail;
		}
	}
	if (merge) {
		c = sweep_merge(&sw, out, argv + optind, argc - optind, &ran, &err);
	} else {
		sweep_job(&sw, &job);
		nbe = backends(&mp, &job, jobs, be);
		if (cmd_mpi_progress(&mp))
			progress = 1;
		c = sweep_exec(&sw, out, be, nbe, progress ? stderr : NULL, &ran, &err);
	}
	if (mp.on)
		exec_mpi_release();	/* the ranks are done: let them go before the plots */
	if (c == SWEEP_REFUSED)
		rc = CMD_EXIT_INPUT;
	if (c != 0)
		goto fail;
	rc = 0;
	if (ran.missing == 0)
		rc = plot_all(&sw, out, plots, nplots);
	if (merge)
		printf("sweep: %zu points (%zu merged now from %d folders), %s/results.csv\n",
		    sw.npoints, ran.ran, argc - optind, out);
	else if (nshards > 0 && ran.missing > 0)
		printf("sweep: shard %d/%d: %zu of %zu points (%zu run now, %zu already "
		    "done); %zu points of other shards to go, then results.csv (a re-run "
		    "without --shard, or sweep --merge)\n", shard + 1, nshards, ran.share,
		    sw.npoints, ran.ran, ran.share - ran.ran, ran.missing);
	else
		printf("sweep: %zu points (%zu run now, %zu already done), %s/results.csv\n",
		    sw.npoints, ran.ran, sw.npoints - ran.ran, out);
	goto clean;
fail:
	fprintf(stderr, "%s\n", err.msg);
clean:
	for (i = 0; i < nbe; i++)
		be[i]->ops->close(be[i]);
	sweep_unlock(lockfd);
	sweep_free(&sw);
done:
	/* Never leave rank 0 waiting for a rank that could not set up. */
	cmd_mpi_failed(&mp, setup ? "rank failed" : err.msg[0] ? err.msg :
	    "rank could not read its command line");
	cmd_mpi_end("sweep", &mp, rc);
	for (i = 0; i < nplots; i++)
		free(plots[i]);
	free(plots);
	free(varies);
	free(sets);
	free(out);
	free(scen);
	return rc;
}
