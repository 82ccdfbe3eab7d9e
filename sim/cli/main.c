/*
 * main.c - the command line: the edge where errors are reported.
 *
 * Exit status: 0 success, 2 bad input (the message names FILE:LINE:COLUMN),
 * 1 anything else that went wrong at run time (cannot write the output).
 * Each command lives in its own cmd_*.c file and is listed in cmds[] below.
 */
#include "config.h"

#include <gsl/gsl_errno.h>

#include <stdio.h>
#include <string.h>

#include "cmd.h"

static const struct cmd_entry cmds[] = {
	{ "run", cmd_run },
	{ "list", cmd_list },
	{ "sweep", cmd_sweep },
	{ "validate", cmd_validate },
	{ "calibrate", cmd_calibrate },
	{ "trace", cmd_trace },
	{ "machine", cmd_machine },
	{ NULL, NULL }
};

void
cmd_usage(FILE *f)
{
	fputs("usage: vlocksim <command> [options]\n"
	    "\n"
	    "commands:\n"
	    "  run SCENARIO.yaml [--seed N] [--reps N] [--set PATH=VALUE]...\n"
	    "                    [--format table|csv|json] [--out DIR] [--no-wall-clock]\n"
	    "                    [--trace FILE.json[.gz] [--trace-window FROM:TO]\n"
	    "                    [--trace-limit SIZE]] [--lock-stat FILE]\n"
	    "                    [--check=off|end|kernel|full]\n"
	    "      run a scenario and print its metrics (mean, sd, 95% CI over reps)\n"
	    "  list              schedulers, locks, workload primitives and metrics\n"
	    "  sweep SCENARIO.yaml --vary PATH=V1,V2,...|START:STOP:STEP [--vary ...]\n"
	    "                    [--set PATH=VALUE]... [--reps N] [--seed N] [-j N]\n"
	    "                    [--out DIR] [--plot METRIC]... [--shard K/N] [--progress]\n"
	    "      run the grid of overrides (first --vary slowest) x reps, same seed\n"
	    "      at every point, in N processes; DIR/results.csv and plots; resumable;\n"
	    "      under mpirun on every rank (rank 0 writes); --shard: points i mod N = K-1\n"
	    "  sweep --merge DIR... [--out DIR]\n"
	    "      gather the points of shard folders of one sweep into DIR/results.csv\n"
	    "  validate [CASE...] [-j N] [--reps N] [--format F] [--out DIR] [--strict]\n"
	    "      predicted against measured for validation cases, with plots; rows\n"
	    "      in N processes (default: the cores), same output for any N\n"
	    "  calibrate CALIB.yaml [-j N] [--out FILE]\n"
	    "      fit parameters to a case's calibration rows (GSL nmsimplex2)\n"
	    "  trace import FILE [--format trace-cmd|ftrace|xentrace|xenalyze|lock_stat|\n"
	    "                    perf-kvm-stat|trace.dat] [--guest] [--seconds S]\n"
	    "                    [--cpu-hz HZ] [--out FILE.yaml]\n"
	    "                    [--measured FILE.csv --setup NAME [--note TEXT]]\n"
	    "      per-vCPU summary of a real KVM/Xen trace; fitted distributions as YAML\n"
	    "  trace scenario GUEST_TRACE [HOST_TRACE] --machine M.yaml --out my.yaml\n"
	    "                    [--lock-stat FILE] [--seconds S] [--vcpus N]\n"
	    "                    [--measured FILE.csv --setup NAME]\n"
	    "      a runnable scenario (tasks, locks) from a guest's own recording\n"
	    "  machine probe     a machine file of this host (hwloc topology, measured costs)\n"
	    "  --help            this text\n"
	    "  --version         the version\n"
	    "\n"
	    "Values carry units: 30ms, 4096cycles, 2.93GHz, 64MiB.\n"
	    "--set overrides any scenario value by its path: --set vms[0].vcpus=8\n"
	    "See vlocksim(1) and README.md.\n", f);
}

int
main(int argc, char **argv)
{
	int i;

	/* GSL's default handler abort()s; every caller checks statuses instead */
	gsl_set_error_handler_off();
	if (argc < 2) {
		cmd_usage(stderr);
		return CMD_EXIT_INPUT;
	}
	if (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0 ||
	    strcmp(argv[1], "help") == 0) {
		cmd_usage(stdout);
		return 0;
	}
	if (strcmp(argv[1], "--version") == 0) {
		printf("vlocksim %s\n", PACKAGE_VERSION);
		return 0;
	}
	for (i = 0; cmds[i].name != NULL; i++)
		if (strcmp(argv[1], cmds[i].name) == 0)
			return cmds[i].fn(argc - 1, argv + 1);
	fprintf(stderr, "vlocksim: unknown command '%s'\n", argv[1]);
	cmd_usage(stderr);
	return CMD_EXIT_INPUT;
}
