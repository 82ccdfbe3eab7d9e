/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * cmd_sweep.c - `vlocksim sweep`: a grid of overrides times replications, in
 * parallel worker processes and, under mpirun, on MPI ranks; resumable after a
 * kill, in shards for job arrays, merged from shard folders (see sweep.h).
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd.h"
#include "datadir.h"
#include "exec_mpi.h"
#include "plot.h"
#include "sweep.h"
#include "util.h"

#define SWEEP_MAX_JOBS 1024

struct shard {
	int k, n;	/* shard k (from 0) of n; n 0: no --shard */
};

struct sweep_args {
	struct opt_list vary, plot;
	struct scen_args scen;
	struct limit_args limits;
	long long jobs;
	const char *out;	/* NULL: out/sweep-NAME, or the first --merge folder */
	struct shard shard;
	int merge, progress;
	char **dirs;		/* operands: the scenario, or --merge's folders */
	int ndirs;
};

/* --shard K/N */
static int
parse_shard(const char *arg, void *field, const char **why)
{
	struct shard *s = field;
	char *end;
	long a, b;

	a = strtol(arg, &end, 10);
	if (end != arg && *end == '/') {
		b = strtol(end + 1, &end, 10);
		if (*end == '\0' && b >= 1 && b <= SWEEP_MAX_POINTS && a >= 1 && a <= b) {
			s->k = (int)a - 1;
			s->n = (int)b;
			return 0;
		}
	}
	*why = "--shard takes K/N with 1 <= K <= N (e.g. 2/8)";
	return -1;
}

#define A(f) OPT_AT(struct sweep_args, f)
static const struct opt_decl sweep_opts[] = {
	{ "vary", 0, "PATH=VALUES", OPT_LIST, A(vary), .flags = OPT_REQUIRED,
	  .help = "an axis of the grid: VALUES is V1,V2,... or START:STOP:STEP (stop "
	  "included, units allowed: 1ms:3ms:1ms); one --vary per axis, the first "
	  "varies slowest",
	  .man = "Every point is the fixed --set overrides, then PATH=VALUE of each axis, "
	  "so a varied path wins over a --set of the same path.  A value may be a YAML "
	  "flow mapping or sequence, as --set takes it: only the commas outside braces, "
	  "brackets and quotes split the list, so {dist: exponential, mean: 5ns},{dist: "
	  "gamma, shape: 2, mean: 9ns} is two values; a range is never written in braces." },
	CMD_SCEN_OPTS(struct sweep_args),
	{ "jobs", 'j', "N", OPT_INT, A(jobs), .min = 1, .max = SWEEP_MAX_JOBS,
	  .def = "1", .help = "points on N worker processes at once; results.csv is the "
	  "same bytes for any N",
	  .man = "Every point uses the same seed (common random numbers), so differences "
	  "between points come from the overrides, not from sampling noise.  Under "
	  "mpirun (built with MPI) rank 0 runs -j points itself and hands points to the "
	  "other ranks (-j each) as they become free; only rank 0 writes." },
	{ "out", 0, "DIR", OPT_STR, A(out),
	  .help = "the sweep's folder (default out/sweep-NAME): results.csv, points/, "
	  "sweep.meta, the plots",
	  .man = "A sweep killed at any moment resumes where it stopped when run again "
	  "with the same arguments and --out; other arguments on the same DIR are "
	  "refused, and so is a second sweep while one runs there (flock on "
	  "DIR/.sweep.lock, exit 2)." },
	{ "plot", 0, "METRIC", OPT_LIST, A(plot),
	  .help = "draw DIR/sweep-METRIC.png and .svg against the first varied path, one "
	  "line per value of the others (default: the scenario's metrics: filter, else "
	  "the first model metric)",
	  .man = "The plot script and gnuplot are checked before any point runs: a missing "
	  "script is exit 2, a missing gnuplot a warning (no plots)." },
	{ "shard", 0, "K/N", OPT_FN, A(shard), .parse = parse_shard,
	  .help = "run only the points i with i mod N = K-1 (a batch job array's task K)",
	  .man = "With a shared file system every shard writes to the same --out, and the "
	  "last one to finish writes results.csv; otherwise sweep --merge gathers the "
	  "folders." },
	{ "merge", 0, NULL, OPT_FLAG, A(merge),
	  .help = "the operands are folders of one sweep's shards: copy their points into "
	  "the first (or --out) and write its results.csv",
	  .man = "The grid comes from the first folder's sweep.meta; folders of another "
	  "sweep are refused (exit 2), missing points are named (exit 1).  Takes no "
	  "--vary, --set, --reps, --seed or --shard." },
	{ "progress", 0, NULL, OPT_FLAG, A(progress),
	  .help = "draw the progress line (points done, ETA) even when standard error is "
	  "not a terminal (mpirun's output)" },
	CMD_LIMIT_OPTS(struct sweep_args),
	{ NULL }
};
#undef A

static int
parse_sweep_args(int argc, char **argv, void *args)
{
	struct sweep_args *a = args;
	int next;

	a->scen.seed = a->scen.reps = -1;
	if (opt_parse(&cmd_sweep_entry, argc, argv, a, &next))
		return CMD_EXIT_INPUT;
	a->dirs = argv + next;
	a->ndirs = argc - next;
	if (a->merge && (a->ndirs == 0 || a->vary.n || a->scen.sets.n || a->scen.reps >= 0 ||
	    a->scen.seed >= 0 || a->shard.n)) {
		fprintf(stderr, "vlocksim sweep: --merge takes only folders of one sweep "
		    "(DIR...), [--out DIR] and [--plot METRIC]\n");
		return CMD_EXIT_INPUT;
	}
	if (!a->merge && a->ndirs != 1) {
		fprintf(stderr, "vlocksim sweep: name one scenario file\n");
		return CMD_EXIT_INPUT;
	}
	if (!a->merge && a->vary.n == 0) {
		fprintf(stderr, "vlocksim sweep: give at least one --vary PATH=V1,V2,...\n");
		return CMD_EXIT_INPUT;
	}
	return 0;
}

/* What one sweep holds while it runs. */
struct sweep_state {
	struct sweep sw;
	struct vs_err err;
	char **plots;		/* --plot's metrics, or the defaults */
	int nplots;
	char *out, *scen;
	int lockfd, nbe, setup;
	struct exec_backend *be[2];
	struct sweep_ran ran;
};

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

/* The grid, every point loaded and checked before anything is written. */
static int
sweep_setup(const struct sweep_args *a, struct sweep_state *s)
{
	char *why;
	int i;

	if (a->merge) {
		if (sweep_from_dir(&s->sw, a->dirs[0], &s->err))
			return -1;
	} else {
		if ((s->scen = vs_scenario_find(a->dirs[0], &why)) == NULL) {
			vs_errf(&s->err, NULL, 0, 0, "%s", why);
			free(why);
			return -1;
		}
		sweep_init(&s->sw, s->scen);
		s->sw.reps = (int)a->scen.reps;
		s->sw.seed = a->scen.seed;
		s->sw.shard = a->shard.k;
		s->sw.nshards = a->shard.n;
		for (i = 0; i < a->scen.sets.n; i++)
			sweep_add_set(&s->sw, a->scen.sets.v[i]);
		for (i = 0; i < a->vary.n; i++)
			if (sweep_add_vary(&s->sw, a->vary.v[i], &s->err))
				return -1;
	}
	if ((i = sweep_prepare(&s->sw, &s->err)) != 0)
		return i;
	s->setup = 1;
	return 0;
}

/* The plots' metrics, script and gnuplot, known before any point runs. */
static int
sweep_plots(const struct sweep_args *a, struct sweep_state *s)
{
	static const char *const gp[] = { "sweep.gp" };
	int i;

	for (i = 0; i < a->plot.n; i++)
		if (!sweep_has_col(&s->sw, a->plot.v[i]))
			return vs_errf(&s->err, NULL, 0, 0, "--plot %s: not a metric of this sweep "
			    "(see the scenario's metrics: filter, or vlocksim list)", a->plot.v[i]);
	if (a->plot.n == 0) {
		s->plots = sweep_default_plots(&s->sw, &s->nplots);
	} else {
		s->plots = xcalloc((size_t)a->plot.n, sizeof *s->plots);
		for (i = 0; i < a->plot.n; i++)
			s->plots[s->nplots++] = xstrdup(a->plot.v[i]);
	}
	if (s->nplots > 0 && (i = plot_ready(gp, 1, &s->err)) < 0)
		return -1;
	if (s->nplots > 0 && i == 1)
		fprintf(stderr, "vlocksim sweep: warning: no gnuplot (GNUPLOT_PATH '%s'); "
		    "no plots\n", GNUPLOT_PATH);
	return 0;
}

static void sweep_said(const struct sweep_args *, const struct sweep_state *);

/* Run (or merge) the points into s->out, draw, say so; 0, or the exit status
 * after the message. */
static int
sweep_go(const struct sweep_args *a, struct sweep_state *s, const struct cmd_mpi *mp)
{
	struct exec_job job;
	int c, i, rc = 0;

	/* One sweep per folder (its shards share it); ranks > 0 write nothing there */
	if ((s->lockfd = sweep_lock(s->out, a->shard.n > 0, &s->err)) < 0) {
		fprintf(stderr, "%s\n", s->err.msg);
		return s->lockfd == SWEEP_REFUSED ? CMD_EXIT_INPUT : CMD_EXIT_FAIL;
	}
	if (a->merge) {
		c = sweep_merge(&s->sw, s->out, a->dirs, a->ndirs, &s->ran, &s->err);
	} else {
		/* rank 0's backends (or a plain run's): local forks, then the other ranks */
		sweep_job(&s->sw, &job);
		s->be[s->nbe++] = exec_fork_new(&job, (int)a->jobs);
		if (mp->on && mp->size > 1)
			s->be[s->nbe++] = exec_mpi_new(&job, (int)a->jobs);
		c = sweep_exec(&s->sw, s->out, s->be, s->nbe, a->progress ||
		    cmd_mpi_progress(mp) ? stderr : NULL, &s->ran, &s->err);
	}
	/* The other ranks are released by cmd_mpi_end, after the plots: they wait
	 * in exec_mpi_serve (no deadline), not in MPI_Finalize, which gives a live
	 * rank 0 FINALIZE_LIVE_S (a gnuplot on a starved machine took longer). */
	if (c != 0) {
		fprintf(stderr, "%s\n", s->err.msg);
		return c == SWEEP_REFUSED ? CMD_EXIT_INPUT : cmd_limits_exit(c, CMD_EXIT_FAIL);
	}
	for (i = 0; s->ran.missing == 0 && i < s->nplots; i++)
		if (sweep_plot(&s->sw, s->out, s->plots[i], &s->err) < 0) {
			fprintf(stderr, "vlocksim sweep: %s\n", s->err.msg);
			rc = CMD_EXIT_FAIL;
		}
	sweep_said(a, s);
	return rc;
}

static void
sweep_said(const struct sweep_args *a, const struct sweep_state *s)
{
	const struct sweep_ran *r = &s->ran;

	if (a->merge)
		printf("sweep: %zu points (%zu merged now from %d folders), %s/results.csv\n",
		    s->sw.npoints, r->ran, a->ndirs, s->out);
	else if (a->shard.n > 0 && r->missing > 0)
		printf("sweep: shard %d/%d: %zu of %zu points (%zu run now, %zu already "
		    "done); %zu points of other shards to go, then results.csv (a re-run "
		    "without --shard, or sweep --merge)\n", a->shard.k + 1, a->shard.n, r->share,
		    s->sw.npoints, r->ran, r->share - r->ran, r->missing);
	else
		printf("sweep: %zu points (%zu run now, %zu already done), %s/results.csv\n",
		    s->sw.npoints, r->ran, s->sw.npoints - r->ran, s->out);
}

static int
run_sweep(const void *args, struct cmd_mpi *mp)
{
	const struct sweep_args *a = args;
	struct sweep_state s;
	struct exec_job job;
	int i, rc = CMD_EXIT_INPUT;

	cmd_limits_set(&a->limits);
	memset(&s, 0, sizeof s);
	s.lockfd = -1;
	if ((i = sweep_setup(a, &s)) != 0) {
		rc = cmd_limits_exit(i, rc);
		goto fail;
	}
	if (mp->rank != 0) {
		/* Ranks > 0 only run points for rank 0, which writes everything. */
		sweep_job(&s.sw, &job);
		mp->served = 1;
		exec_mpi_serve(a->merge ? NULL : &job, (int)a->jobs, "rank has nothing to run");
		rc = 0;
		goto clean;
	}
	if (sweep_plots(a, &s))
		goto fail;
	s.out = a->out != NULL ? xstrdup(a->out) : a->merge ? xstrdup(a->dirs[0]) :
	    default_out(a->dirs[0]);
	rc = CMD_EXIT_FAIL;
	if (cmd_mkdir_p(s.out, &s.err))
		goto fail;
	rc = sweep_go(a, &s, mp);
	goto clean;
fail:
	fprintf(stderr, "%s\n", s.err.msg);
clean:
	/* Never leave rank 0 waiting for a rank that could not set up. */
	cmd_mpi_failed(mp, s.setup ? "rank failed" : s.err.msg[0] ? s.err.msg :
	    "rank could not read its command line");
	for (i = 0; i < s.nbe; i++)
		s.be[i]->ops->close(s.be[i]);
	sweep_unlock(s.lockfd);
	sweep_free(&s.sw);
	for (i = 0; i < s.nplots; i++)
		free(s.plots[i]);
	free(s.plots);
	free(s.out);
	free(s.scen);
	return rc;
}

const struct cmd_entry cmd_sweep_entry = {
	.name = "sweep",
	.args = "SCENARIO",
	.summary = "a grid of --vary overrides x reps, in parallel, resumable",
	.about = "Runs the grid of overrides x reps, with the same seed at every point, "
	    "in N worker processes, and writes DIR/results.csv (one row per point: the "
	    "varied values, then each metric's mean, sd and ci95) and a plot per --plot "
	    "METRIC; a killed sweep resumes where it stopped.  Under mpirun every rank runs "
	    "points (rank 0 writes); --shard K/N runs a batch task's share, --merge "
	    "gathers shard folders.",
	.forms = "vlocksim sweep --merge DIR... [--out DIR] [--plot METRIC]...",
	.opts = sweep_opts,
	.size = sizeof(struct sweep_args),
	.parse = parse_sweep_args,
	.run = run_sweep,
	.flags = CMD_MPI,
};
