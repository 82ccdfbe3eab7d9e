/*
 * main.c - the command line: the edge where errors are reported.
 *
 * Exit status: 0 success, 2 bad input (the message names FILE:LINE:COLUMN),
 * 1 anything else that went wrong at run time (cannot write the output).
 */
#include "config.h"

#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "guest/lock.h"
#include "hv/sched.h"
#include "registry.h"
#include "report.h"
#include "run.h"
#include "scenario.h"
#include "util.h"

#define EXIT_INPUT 2

static void
usage(FILE *f)
{
	fputs("usage: vlocksim <command> [options]\n"
	    "\n"
	    "commands:\n"
	    "  run SCENARIO.yaml [--seed N] [--reps N] [--set PATH=VALUE]...\n"
	    "                    [--format table|csv|json] [--out DIR] [--no-wall-clock]\n"
	    "      run a scenario and print its metrics (mean, sd, 95% CI over reps)\n"
	    "  list              schedulers, locks, workload primitives and metrics\n"
	    "  --help            this text\n"
	    "  --version         the version\n"
	    "\n"
	    "Values carry units: 30ms, 4096cycles, 2.93GHz, 64MiB.\n"
	    "--set overrides any scenario value by its path: --set vms[0].vcpus=8\n"
	    "See vlocksim(1) and README.md.\n", f);
}

static int
mkdir_p(const char *dir, struct vs_err *err)
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

static int
write_out(const char *dir, const char *file, const char *text, struct vs_err *err)
{
	char *path = xasprintf("%s/%s", dir, file);
	int rc = vs_write_file_atomic(path, text, strlen(text), err);

	free(path);
	return rc;
}

static int
cmd_run(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "seed", required_argument, NULL, 's' },
		{ "reps", required_argument, NULL, 'r' },
		{ "set", required_argument, NULL, 'S' },
		{ "format", required_argument, NULL, 'f' },
		{ "out", required_argument, NULL, 'o' },
		{ "no-wall-clock", no_argument, NULL, 'W' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	struct run_opts ro = { 1, 1, NULL };
	struct scenario sc;
	struct msum sum;
	struct vs_err err;
	struct report_info ri;
	enum report_fmt fmt = FMT_TABLE;
	char **sets = NULL, *out = NULL, *text, *end;
	int nsets = 0, c, reps = -1, i, rc = EXIT_INPUT;
	long long seed = -1;

	while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		switch (c) {
		case 's':
			seed = strtoll(optarg, &end, 10);
			if (*end != '\0' || seed < 0) {
				fprintf(stderr, "vlocksim: --seed takes a non-negative integer\n");
				goto done;
			}
			break;
		case 'r':
			reps = (int)strtol(optarg, &end, 10);
			if (*end != '\0' || reps < 1 || reps > 100000) {
				fprintf(stderr, "vlocksim: --reps takes an integer in [1, 100000]\n");
				goto done;
			}
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
		case 'h':
			usage(stdout);
			rc = 0;
			goto done;
		default:
			usage(stderr);
			goto done;
		}
	}
	if (optind != argc - 1) {
		fprintf(stderr, "vlocksim run: name one scenario file\n");
		goto done;
	}
	if (scen_load(&sc, argv[optind], sets, nsets, &err)) {
		fprintf(stderr, "%s\n", err.msg);
		scen_free(&sc);
		goto done;
	}
	msum_init(&sum);
	if (seed < 0)
		seed = (long long)sc.seed;
	if (reps < 0)
		reps = sc.reps;
	if (run_reps(&sc, (uint64_t)seed, reps, &ro, &sum, &err))
		goto fail;
	for (i = 0; i < sc.nmetrics; i++)
		if (msum_find(&sum, sc.metrics[i]) < 0) {
			vs_errf(&err, NULL, 0, 0, "%s: unknown metric '%s' (vlocksim list shows "
			    "how metrics are named)", sc.metric_where[i], sc.metrics[i]);
			goto fail;
		}
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
		if (mkdir_p(out, &err))
			goto fail;
		for (i = 0; i < 3; i++) {
			text = report_render(outs[i].f, &ri, &sum);
			c = write_out(out, outs[i].file, text, &err);
			free(text);
			if (c)
				goto fail;
		}
	}
	text = report_render(fmt, &ri, &sum);
	fputs(text, stdout);
	free(text);
	rc = 0;
	goto clean;
fail:
	fprintf(stderr, "%s\n", err.msg);
clean:
	msum_free(&sum);
	scen_free(&sc);
done:
	free(sets);
	return rc;
}

static int
cmd_list(int argc, char **argv)
{
	int i;

	puts("schedulers (hypervisor.scheduler):");
	for (i = 0; registry_scheds[i] != NULL; i++)
		printf("  %-14s %s\n", registry_scheds[i]->name, registry_scheds[i]->desc);
	puts("locks (vms[].lock):");
	for (i = 0; registry_locks[i] != NULL; i++)
		printf("  %-14s %s\n", registry_locks[i]->name, registry_locks[i]->desc);
	puts("workload primitives (workloads.NAME.program):\n"
	    "  compute: DIST      run guest code for a time drawn from DIST\n"
	    "  acquire: LOCK      take a lock of the VM (its algorithm is vms[].lock)\n"
	    "  release: LOCK      release it\n"
	    "  count: NAME        bump a per-VM counter (metric VM.NAME, VM.NAME_per_sec)\n"
	    "  loop: N|forever    with do: [...]\n"
	    "distributions: const, exponential, uniform, normal, lognormal, gamma, empirical");
	puts("metrics:\n"
	    "  sim_seconds, completed, completion_seconds, megacycles (until: done),\n"
	    "  events, events_per_sec, ctx_switches, hlt_exits, wakes,\n"
	    "  VM.{running,runnable,blocked,offline}_share (%), VM.COUNTER, VM.COUNTER_per_sec,\n"
	    "  VM.LOCK.{acquisitions,contended_share,wait_mean_ns,wait_p50_ns,wait_p99_ns,"
	    "hold_mean_ns}");
	return 0;
}

int
main(int argc, char **argv)
{
	if (argc < 2) {
		usage(stderr);
		return EXIT_INPUT;
	}
	if (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0 ||
	    strcmp(argv[1], "help") == 0) {
		usage(stdout);
		return 0;
	}
	if (strcmp(argv[1], "--version") == 0) {
		printf("vlocksim %s\n", PACKAGE_VERSION);
		return 0;
	}
	if (strcmp(argv[1], "run") == 0)
		return cmd_run(argc - 1, argv + 1);
	if (strcmp(argv[1], "list") == 0)
		return cmd_list(argc - 1, argv + 1);
	fprintf(stderr, "vlocksim: unknown command '%s'\n", argv[1]);
	usage(stderr);
	return EXIT_INPUT;
}
