/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * main.c - the command line: the edge where errors are reported.
 *
 * Exit status (the man page's EXIT STATUS says the same):
 *   0 success;
 *   1 a run-time failure (cannot write an output file, gnuplot failed);
 *   2 bad input, before anything is simulated (the message names FILE:LINE:COLUMN);
 *   3 `validate --strict` and a prediction row missed its tolerance;
 *   134 (SIGABRT) a broken model invariant: a bug, please report it.
 * Each command lives in its own cmd_*.c file and is listed in cmds[] below with
 * its own help text, printed by `vlocksim CMD --help` (or -h, or `help CMD`).
 */
#include "config.h"

#include <gsl/gsl_errno.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd.h"
#include "datadir.h"

static const char run_usage[] =
    "usage: vlocksim run SCENARIO [--seed N] [--reps N] [--set PATH=VALUE]...\n"
    "                    [--format table|csv|json] [--out DIR] [--no-wall-clock]\n"
    "                    [--trace FILE.json[.gz] [--trace-limit SIZE]]\n"
    "                    [--timeline FILE.png|FILE.svg] [--trace-window FROM:TO]\n"
    "                    [--lock-stat FILE]\n"
    "Runs SCENARIO (a .yaml file, or the NAME of a shipped example such as\n"
    "ticket-4threads) --reps times and prints each metric's mean, sd and 95% CI.\n"
    "  --seed N           base seed (default: the scenario's seed:)\n"
    "  --reps N           replications (default: the scenario's reps:)\n"
    "  --set PATH=VALUE   override any scenario value: --set vms[0].vcpus=8\n"
    "  --format F         stdout as table (default), csv or json\n"
    "  --out DIR          also write DIR/results.{txt,csv,json}\n"
    "  --no-wall-clock    omit the host-time metrics (byte-identical reruns)\n"
    "  --trace FILE.json  Chrome/Perfetto timeline of replication 1 (.json.gz: gzip)\n"
    "  --trace-limit SIZE refuse a trace estimated above SIZE (default 256MiB; 0: none)\n"
    "  --lock-stat FILE   the simulator's own /proc/lock_stat of replication 1\n"
    "  --timeline FILE    a gnuplot picture of replication 1: runstate per vCPU,\n"
    "                     lock holders and waiters, exits (needs --trace-window)\n"
    "  --trace-window A:B only events in [A, B) of simulated time, e.g. 10ms:12ms\n"
    "On a terminal a run longer than a second shows its progress on stderr.\n";

static const char list_usage[] =
    "usage: vlocksim list [--format text|yaml]\n"
    "Prints, from the tables compiled in, every hypervisor kind, host scheduler,\n"
    "lock and guest scheduler with each parameter (type, unit, default, source),\n"
    "the workload primitives and every metric with its unit and meaning.\n";

static const char sweep_usage[] =
    "usage: vlocksim sweep SCENARIO --vary PATH=V1,V2,...|START:STOP:STEP [--vary ...]\n"
    "                      [--set PATH=VALUE]... [--reps N] [--seed N] [-j N]\n"
    "                      [--out DIR] [--plot METRIC]... [--shard K/N] [--progress]\n"
    "       vlocksim sweep --merge DIR... [--out DIR] [--plot METRIC]...\n"
    "Runs the grid of overrides (the first --vary varies slowest) x reps, with the\n"
    "same seed at every point, in N worker processes.  Writes DIR/results.csv\n"
    "(default out/sweep-NAME) and one plot per --plot METRIC; a killed sweep\n"
    "resumes where it stopped.  Progress (done/total, ETA) on a terminal.\n"
    "Under mpirun every rank runs points (rank 0 writes); --shard K/N runs the\n"
    "points i mod N = K-1 (a Slurm array), --merge gathers shard folders.\n";

static const char validate_usage[] =
    "usage: vlocksim validate [CASE...] [-j N] [--reps N] [--format table|csv|json]\n"
    "                         [--out DIR] [--cases DIR] [--strict]\n"
    "Runs every case (validation/cases/*.yaml by default; CASE may be a prefix:\n"
    "seed004 runs seed004-*), writes DIR/validation.{csv,txt,json} (default\n"
    "out/validate), a plot per case, summary.{png,svg} and scatter.{png,svg}.\n"
    "Each row carries its tolerance and the rule that judged it; rows whose run\n"
    "hit the duration cap are marked capped.\n"
    "  -j N      rows on N worker processes (default: the cores); same output\n"
    "  --strict  exit 3 when a prediction row misses its tolerance\n"
    "Under mpirun the rows' replications run on every rank too (-j N each);\n"
    "rank 0 writes, with the same bytes.\n";

static const char calibrate_usage[] =
    "usage: vlocksim calibrate CALIB.yaml [-j N] [--output FILE] [--cases DIR]\n"
    "Fits CALIB's params to the calibration rows of its cases (GSL nmsimplex2)\n"
    "and writes the YAML that scenarios include with `calibration: FILE`.\n"
    "Without --output it writes out/calibrate/NAME.yaml and leaves the shipped\n"
    "calibration (CALIB's output:) alone; --output FILE replaces FILE.\n"
    "-j N: an evaluation's rows run on N worker processes (default: the cores);\n"
    "the fit is the same for any N.  Under mpirun each evaluation's runs spread\n"
    "over the ranks too (-j N each); rank 0 fits and writes, with the same bytes.\n";

static const struct cmd_entry cmds[] = {
	{ "run", cmd_run, run_usage },
	{ "list", cmd_list, list_usage },
	{ "sweep", cmd_sweep, sweep_usage },
	{ "validate", cmd_validate, validate_usage },
	{ "calibrate", cmd_calibrate, calibrate_usage },
	{ "trace", cmd_trace, NULL },	/* prints its own (trace import --help) */
	{ "machine", cmd_machine, NULL },	/* prints its own (machine probe --help) */
	{ "lab", cmd_lab, NULL },	/* prints its own */
	{ NULL, NULL, NULL }
};

void
cmd_usage(FILE *f)
{
	fputs("usage: vlocksim <command> [options]\n"
	    "\n"
	    "commands (vlocksim COMMAND --help for each):\n"
	    "  run SCENARIO      run a scenario, print its metrics (mean, sd, 95% CI)\n"
	    "  list              kinds, schedulers, locks, parameters, primitives, metrics\n"
	    "  sweep SCENARIO --vary PATH=V1,V2,...\n"
	    "                    a grid of overrides x reps, in parallel, resumable\n"
	    "  validate [CASE...]\n"
	    "                    predicted against measured for validation cases, with plots\n"
	    "  calibrate CALIB.yaml\n"
	    "                    fit parameters to a case's calibration rows\n"
	    "  trace import FILE per-vCPU summary of a real KVM/Xen/guest trace or lock_stat\n"
	    "  trace scenario GUEST_TRACE [HOST_TRACE] --machine M.yaml --out my.yaml\n"
	    "                    a runnable scenario from a guest's own recording\n"
	    "  machine probe     a machine file of this host (hwloc topology, measured costs)\n"
	    "  lab               lockbench measured here, calibrated on one row, the rest\n"
	    "                    predicted: a validation case of this machine, with plots\n"
	    "  --help, -h, help [COMMAND]   this text, or COMMAND's\n"
	    "  --version         the version\n"
	    "\n"
	    "Values carry units: 30ms, 4096cycles, 2.93GHz, 64MiB.\n"
	    "--set overrides any scenario value by its path: --set vms[0].vcpus=8\n"
	    "Exit status: 0 ok, 1 run-time failure (output), 2 bad input (nothing was\n"
	    "simulated), 3 validate --strict missed a tolerance, 134 a model bug (abort).\n", f);
	if (vs_datadir() != NULL) {
		fprintf(f, "Shipped scenarios, cases and plot scripts: %s\n"
		    "(beside the executable; $VLOCKSIM_DATADIR overrides).  See vlocksim(1).\n",
		    vs_datadir());
	} else {
		char *where = vs_data_where("configs/examples");

		fprintf(f, "Shipped scenarios, cases and plot scripts: not found (%s).\n"
		    "See vlocksim(1).\n", where);
		free(where);
	}
}

void
cmd_try(const char *name)
{
	fprintf(stderr, "Try 'vlocksim %s --help'.\n", name);
}

/* -h or --help anywhere before "--": the command's own help. */
static int
wants_help(int argc, char **argv)
{
	int i;

	for (i = 1; i < argc && strcmp(argv[i], "--") != 0; i++)
		if (strcmp(argv[i], "-h") == 0 || strcmp(argv[i], "--help") == 0)
			return 1;
	return 0;
}

static const struct cmd_entry *
cmd_find(const char *name)
{
	int i;

	for (i = 0; cmds[i].name != NULL; i++)
		if (strcmp(name, cmds[i].name) == 0)
			return &cmds[i];
	return NULL;
}

int
main(int argc, char **argv)
{
	const struct cmd_entry *ce;
	char prog[64];

	/* GSL's default handler abort()s; every caller checks statuses instead */
	gsl_set_error_handler_off();
	if (argc < 2) {
		cmd_usage(stderr);
		return CMD_EXIT_INPUT;
	}
	if (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0 ||
	    strcmp(argv[1], "help") == 0) {
		if (argc > 2 && (ce = cmd_find(argv[2])) != NULL) {
			if (ce->usage == NULL) {
				char *hv[] = { argv[2], (char *)"--help", NULL };

				return ce->fn(2, hv);
			}
			fputs(ce->usage, stdout);
			return 0;
		}
		cmd_usage(stdout);
		return 0;
	}
	if (strcmp(argv[1], "--version") == 0 || strcmp(argv[1], "-V") == 0) {
		printf("vlocksim %s\n", PACKAGE_VERSION);
		return 0;
	}
	if ((ce = cmd_find(argv[1])) == NULL) {
		fprintf(stderr, "vlocksim: unknown command '%s'\n", argv[1]);
		cmd_usage(stderr);
		return CMD_EXIT_INPUT;
	}
	if (ce->usage != NULL && wants_help(argc - 1, argv + 1)) {
		fputs(ce->usage, stdout);
		return 0;
	}
	/* getopt prefixes its messages with argv[0]: "vlocksim run: ...". */
	snprintf(prog, sizeof prog, "vlocksim %s", argv[1]);
	argv[1] = prog;
	return ce->fn(argc - 1, argv + 1);
}
