/* SPDX-License-Identifier: GPL-2.0-or-later */
/* cmd_run.c - `vlocksim run`: one scenario, its replications, its report. */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cmd.h"
#include "datadir.h"
#include "plot.h"
#include "progress.h"
#include "report.h"
#include "run.h"
#include "scenario.h"
#include "timeline.h"
#include "trace_lockout.h"
#include "trace_out.h"
#include "units.h"
#include "util.h"

/* A simulated time as --trace-window takes it: "1234.567us". */
static const char *
fmt_us(sim_time_t ns, char *buf, size_t n)
{
	snprintf(buf, n, "%.3fus", (double)ns / 1e3);
	return buf;
}

/* Up to three probe consumers on one run (--trace, --lock-stat, --timeline). */
struct tee_probe {
	struct probe p;
	const struct probe *a, *b, *c;
};

static void
tee_fn(void *ctx, const struct probe_ev *e)
{
	struct tee_probe *t = ctx;

	if (t->a != NULL)
		t->a->fn(t->a->ctx, e);
	if (t->b != NULL)
		t->b->fn(t->b->ctx, e);
	if (t->c != NULL)
		t->c->fn(t->c->ctx, e);
}

int
cmd_int_opt(const char *opt, const char *arg, long long min, long long max, long long *out)
{
	char *end;

	errno = 0;
	*out = strtoll(arg, &end, 10);
	if (*arg == '\0' || *end != '\0' || errno != 0 || *out < min || *out > max) {
		fprintf(stderr, "vlocksim: %s takes an integer in [%lld, %lld]\n", opt, min, max);
		return -1;
	}
	return 0;
}

int
cmd_mkdir_p(const char *dir, struct vs_err *err)
{
	char *p = xstrdup(dir), *s;
	int rc = 0;

	for (s = p + 1; ; s++) {
		if (*s == '/' || *s == '\0') {
			char c = *s;

			*s = '\0';
			if (mkdir(p, 0777) != 0 && errno != EEXIST) {
				rc = vs_errf(err, NULL, 0, 0, "%s: cannot create: %s", p,
				    strerror(errno));
				break;
			}
			*s = c;
			if (c == '\0')
				break;
		}
	}
	free(p);
	return rc;
}

int
cmd_write_out(const char *dir, const char *file, const char *text, struct vs_err *err)
{
	char *path = xasprintf("%s/%s", dir, file);
	int rc = vs_write_file_atomic(path, text, strlen(text), err);

	free(path);
	return rc;
}

char *
cmd_stage_begin(const char *out, struct vs_err *err)
{
	char *parent = xstrdup(out), *slash, *stage;
	struct stat st;

	/* OUT itself may exist (a folder, updated file by file), but not as a file */
	if (stat(out, &st) == 0 && !S_ISDIR(st.st_mode)) {
		vs_errf(err, NULL, 0, 0, "%s: exists and is not a folder", out);
		free(parent);
		return NULL;
	}
	while ((slash = strrchr(parent, '/')) != NULL && slash[1] == '\0' && slash > parent)
		*slash = '\0';
	if ((slash = strrchr(parent, '/')) != NULL && slash > parent) {
		*slash = '\0';
		if (cmd_mkdir_p(parent, err)) {
			free(parent);
			return NULL;
		}
	}
	free(parent);
	stage = xasprintf("%s.tmp.%ld", out, (long)getpid());
	if (mkdir(stage, 0777) != 0) {
		vs_errf(err, NULL, 0, 0, "%s: cannot create: %s", stage, strerror(errno));
		free(stage);
		return NULL;
	}
	return stage;
}

void
cmd_stage_abort(char *stage)
{
	struct dirent *e;
	DIR *d;
	char *p;

	if (stage == NULL)
		return;
	if ((d = opendir(stage)) != NULL) {
		while ((e = readdir(d)) != NULL) {
			if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
				continue;
			p = xasprintf("%s/%s", stage, e->d_name);
			unlink(p);
			free(p);
		}
		closedir(d);
	}
	rmdir(stage);
	free(stage);
}

int
cmd_stage_commit(char *stage, const char *out, struct vs_err *err)
{
	struct dirent *e;
	DIR *d;
	char *a, *b;
	int rc = 0;

	/* a new (or empty) OUT: the whole set appears at once */
	if (rename(stage, out) == 0) {
		free(stage);
		return 0;
	}
	if (errno != ENOTEMPTY && errno != EEXIST) {
		rc = vs_errf(err, NULL, 0, 0, "%s: cannot rename into place: %s", out,
		    strerror(errno));
		cmd_stage_abort(stage);
		return rc;
	}
	/* an existing OUT: every file is whole, each replaced by a rename */
	if ((d = opendir(stage)) == NULL) {
		rc = vs_errf(err, NULL, 0, 0, "%s: cannot read: %s", stage, strerror(errno));
		cmd_stage_abort(stage);
		return rc;
	}
	while (rc == 0 && (e = readdir(d)) != NULL) {
		if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
			continue;
		a = xasprintf("%s/%s", stage, e->d_name);
		b = xasprintf("%s/%s", out, e->d_name);
		if (rename(a, b) != 0)
			rc = vs_errf(err, NULL, 0, 0, "%s: cannot rename into place: %s", b,
			    strerror(errno));
		free(a);
		free(b);
	}
	closedir(d);
	cmd_stage_abort(stage);
	return rc;
}

int
cmd_check_writable(const char *path, struct vs_err *err)
{
	char *probe = xasprintf("%s.tmp.%ld", path, (long)getpid());
	int fd = open(probe, O_WRONLY | O_CREAT | O_EXCL, 0666);

	if (fd < 0) {
		vs_errf(err, NULL, 0, 0, "%s: cannot write: %s", path, strerror(errno));
		free(probe);
		return -1;
	}
	close(fd);
	unlink(probe);
	free(probe);
	return 0;
}

/* A long run's line on a terminal: replications done (the current one's
 * share of its duration cap when it has one), simulated time. */
struct run_prog {
	struct progress p;
	int rep, reps;
	double cap_ns;
};

static void
run_progress(void *arg, double now_ns)
{
	struct run_prog *rp = arg;
	char d[64];

	snprintf(d, sizeof d, "rep %d, %.3g s simulated", rp->rep + 1, now_ns * 1e-9);
	progress_show(&rp->p, rp->rep + (rp->cap_ns > 0 ? now_ns / rp->cap_ns : 0), rp->reps,
	    "reps", d);
}

int
cmd_run(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "seed", required_argument, NULL, 's' },
		{ "reps", required_argument, NULL, 'r' },
		{ "set", required_argument, NULL, 'S' },
		{ "format", required_argument, NULL, 'f' },
		{ "out", required_argument, NULL, 'o' },
		{ "no-wall-clock", no_argument, NULL, 'W' },
		{ "trace", required_argument, NULL, 'T' },
		{ "trace-window", required_argument, NULL, 'w' },
		{ "trace-limit", required_argument, NULL, 'l' },
		{ "lock-stat", required_argument, NULL, 'L' },
		{ "check", required_argument, NULL, 'C' },
		{ "timeline", required_argument, NULL, 'P' },
		{ NULL, 0, NULL, 0 }
	};
	struct run_opts ro = { .wall_clock = 1, .check = 1 };
	struct scenario sc;
	struct msum sum;
	struct vs_err err;
	struct report_info ri;
	enum report_fmt fmt = FMT_TABLE;
	char **sets = NULL, *out = NULL, *text, *trace = NULL, *window = NULL, *stage = NULL;
	char *path, *why_path;
	int nsets = 0, c, reps = -1, i, rc = CMD_EXIT_INPUT;
	long long seed = -1, v;
	struct trace_out *tr = NULL;
	struct lock_out *lo = NULL;
	struct tee_probe tee = { { NULL, NULL }, NULL, NULL, NULL };
	struct timeline *tl = NULL;
	char *tlpath = NULL;
	char *lockstat = NULL;
	double tlimit = 256.0 * 1024 * 1024;	/* bytes: Perfetto UI opens this much easily */
	const char *why = NULL;
	struct run_prog rp;
	sim_time_t tw_from = 0, tw_to = SIM_NEVER;

	while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		switch (c) {
		case 's':
			if (cmd_int_opt("--seed", optarg, 0, LLONG_MAX, &seed))
				goto done;
			break;
		case 'r':
			if (cmd_int_opt("--reps", optarg, 1, 100000, &v))
				goto done;
			reps = (int)v;
			break;
		case 'S':
			sets = xrealloc(sets, (size_t)(nsets + 1) * sizeof *sets);
			sets[nsets++] = optarg;
			break;
		case 'f':
			if (report_fmt_parse(optarg, &fmt)) {
				fprintf(stderr, "vlocksim: --format is table, csv or json\n");
				goto done;
			}
			break;
		case 'o':
			out = optarg;
			break;
		case 'W':
			ro.wall_clock = 0;
			break;
		case 'T':
			trace = optarg;
			break;
		case 'w':
			window = optarg;
			break;
		case 'l':
			if (strcmp(optarg, "0") != 0 &&
			    (units_parse(optarg, UNIT_SIZE, 0, &tlimit, &why) != 0 || !(tlimit > 0))) {
				fprintf(stderr, "vlocksim run: --trace-limit %s: %s\n", optarg,
				    why ? why : "a size (256MiB), or 0 for none");
				goto done;
			}
			if (strcmp(optarg, "0") == 0)
				tlimit = 0;
			break;
		case 'P':
			tlpath = optarg;
			break;
		case 'L':
			lockstat = optarg;
			break;
		case 'C':
			/* the self-checks (vlocksim(1) INVARIANTS): off, end (the
			 * default), kernel, full */
			if (strcmp(optarg, "off") == 0 || strcmp(optarg, "0") == 0)
				ro.check = 0;
			else if (strcmp(optarg, "end") == 0 || strcmp(optarg, "1") == 0)
				ro.check = 1;
			else if (strcmp(optarg, "kernel") == 0 || strcmp(optarg, "2") == 0)
				ro.check = 2;
			else if (strcmp(optarg, "full") == 0 || strcmp(optarg, "3") == 0)
				ro.check = 3;
			else {
				fprintf(stderr, "vlocksim run: --check is off, end, kernel or full\n");
				goto done;
			}
			break;
		default:
			cmd_try("run");
			goto done;
		}
	}
	if (optind != argc - 1) {
		fprintf(stderr, "vlocksim run: name one scenario file\n");
		cmd_try("run");
		goto done;
	}
	if (window != NULL && ((trace == NULL && tlpath == NULL) ||
	    trace_out_window(window, &tw_from, &tw_to, &err))) {
		fprintf(stderr, "vlocksim run: %s\n", trace == NULL && tlpath == NULL ?
		    "--trace-window needs --trace FILE.json or --timeline FILE.png" : err.msg);
		goto done;
	}
	if (tlpath != NULL && !timeline_path_ok(tlpath)) {
		fprintf(stderr, "vlocksim run: --timeline %s: the picture is FILE.png or "
		    "FILE.svg\n", tlpath);
		goto done;
	}
	if (tlpath != NULL) {
		static const char *const gp[] = { "timeline.gp" };

		if (plot_ready(gp, 1, &err) < 0) {
			fprintf(stderr, "vlocksim run: %s\n", err.msg);
			goto done;
		}
	}
	if ((path = vs_scenario_find(argv[optind], &why_path)) == NULL) {
		fprintf(stderr, "%s\n", why_path);
		free(why_path);
		goto done;
	}
	c = scen_load(&sc, path, sets, nsets, &err);
	free(path);
	if (c == 0)
		c = run_check_metrics(&sc, &err);	/* before anything is simulated */
	if (c) {
		fprintf(stderr, "%s\n", err.msg);
		scen_free(&sc);
		goto done;
	}
	msum_init(&sum);
	/* Where results go is checked before anything runs. */
	rc = 1;
	if (out != NULL && (stage = cmd_stage_begin(out, &err)) == NULL)
		goto fail;
	if ((trace != NULL && cmd_check_writable(trace, &err)) ||
	    (lockstat != NULL && cmd_check_writable(lockstat, &err)))
		goto fail;
	rc = CMD_EXIT_INPUT;
	if (seed < 0)
		seed = (long long)sc.seed;
	if (reps < 0)
		reps = sc.reps;
	/* The timeline is of the first replication; the others run unwatched. */
	if (trace != NULL) {
		tr = trace_out_new(&sc, tw_from, tw_to);
		trace_out_set_limit(tr, (size_t)tlimit);
		tee.a = trace_out_probe(tr);
	}
	if (lockstat != NULL) {
		lo = lock_out_new();
		tee.b = lock_out_probe(lo);
	}
	if (tlpath != NULL) {
		/* A picture is readable over a short window: 2 ms unless one is given. */
		sim_time_t a = tw_from, b = tw_to;

		if (window == NULL) {
			a = 0;
			b = 2000000;
			fprintf(stderr, "vlocksim run: --timeline shows 0:2ms of simulated time; "
			    "choose another window with --trace-window FROM:TO\n");
		}
		tl = timeline_new(&sc, a, b);
		tee.c = timeline_probe(tl);
	}
	tee.p.fn = tee_fn;
	tee.p.ctx = &tee;
	progress_start(&rp.p, isatty(STDERR_FILENO) ? stderr : NULL, "run");
	rp.reps = reps;
	rp.cap_ns = sc.duration != SIM_NEVER ? (double)sc.duration : 0;
	ro.progress = run_progress;
	ro.progress_arg = &rp;
	for (i = 0, c = 0; c == 0 && i < reps; i++) {
		struct metrics m;

		ro.probe = i == 0 && (tee.a != NULL || tee.b != NULL || tee.c != NULL) ?
		    &tee.p : NULL;
		rp.rep = i;
		metrics_init(&m);
		c = run_once(&sc, run_seed((uint64_t)seed, i), &ro, &m, &err);
		if (c == 0)
			msum_add(&sum, &m);
		metrics_free(&m);
	}
	progress_end(&rp.p);
	if (c)
		goto fail;
	ri.scenario = sc.name;
	ri.seed = (uint64_t)seed;
	ri.reps = reps;
	ri.only = sc.nmetrics > 0 ? sc.metrics : NULL;
	ri.nonly = sc.nmetrics;
	if (out != NULL) {
		static const struct { enum report_fmt f; const char *file; } outs[] = {
			{ FMT_TABLE, "results.txt" }, { FMT_CSV, "results.csv" },
			{ FMT_JSON, "results.json" } };

		rc = 1;
		for (i = 0; i < 3; i++) {
			text = report_render(outs[i].f, &ri, &sum);
			c = cmd_write_out(stage, outs[i].file, text, &err);
			free(text);
			if (c)
				goto fail;
		}
	}
	if (tr != NULL) {
		rc = 1;
		if (trace_out_write(tr, trace, &err))
			goto fail;
		if (trace_out_cut(tr) >= 0) {
			char a[32], b[32];

			fprintf(stderr, "vlocksim run: the trace of the whole window is larger than "
			    "--trace-limit (%.0f MiB): %s has its first window that fits, "
			    "--trace-window %s:%s; choose another with --trace-window FROM:TO, "
			    "or --trace-limit 0 for all of it\n", tlimit / 1048576, trace,
			    fmt_us(tw_from, a, sizeof a), fmt_us(trace_out_cut(tr), b, sizeof b));
		}
	}
	if (lo != NULL) {
		rc = 1;
		if (lock_out_write(lo, lockstat, &err))
			goto fail;
	}
	if (stage != NULL) {
		rc = 1;
		c = cmd_stage_commit(stage, out, &err);
		stage = NULL;
		if (c)
			goto fail;
	}
	if (tl != NULL) {
		char *ttl = xasprintf("%s, seed %lld, replication 1: %s", sc.name, seed,
		    window != NULL ? window : "0:2ms");

		rc = 1;
		c = timeline_write(tl, tlpath, ttl, &err);
		free(ttl);
		if (c < 0)
			goto fail;
		if (c > 0)
			fprintf(stderr, "vlocksim run: no gnuplot: only %s.dat written\n", tlpath);
	}
	text = report_render(fmt, &ri, &sum);
	fputs(text, stdout);
	free(text);
	rc = 0;
	goto clean;
fail:
	fprintf(stderr, "%s\n", err.msg);
clean:
	cmd_stage_abort(stage);
	trace_out_free(tr);
	lock_out_free(lo);
	timeline_free(tl);
	msum_free(&sum);
	scen_free(&sc);
done:
	free(sets);
	return rc;
}

