/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * cmd_list.c - `vlocksim list [--format text|yaml]`: what the registry holds,
 * read from the ops tables themselves (their vs_param arrays, param.h) and
 * the metric table (metric_doc.h), so the listing cannot drift from the code.
 */
#include <stdio.h>
#include <string.h>

#include "cmd.h"
#include "guest/gsched.h"
#include "guest/lock.h"
#include "guest/slock.h"
#include "hv/kind.h"
#include "hv/sched.h"
#include "metric_doc.h"
#include "param.h"
#include "registry.h"
#include "scenario.h"

/* Workload primitives: the compiler's (models/workload/compile.c prims[]). */
static const struct { const char *name, *arg, *what; } prims[] = {
	{ "compute", "DIST", "run guest code for a time drawn from DIST" },
	{ "acquire", "LOCK", "take a lock of the VM (its algorithm is vms[].lock)" },
	{ "release", "LOCK", "release it" },
	{ "count", "NAME", "bump a per-VM counter (metrics VM.NAME, VM.NAME_per_sec)" },
	{ "io", "KIND", "an exit: pio-kernel, pio-user, mmio-kernel, mmio-user, hypercall" },
	{ "sleep", "DIST", "block (HLT) for a time, then an interrupt wakes the vCPU" },
	{ "memory", "SIZE", "stream bytes through the socket's shared memory bandwidth" },
	{ "loop", "N|forever", "repeat do: [...]" },
	{ "block", "DIST", "(task form) the task sleeps; its vCPU runs others or idles" },
	{ "disk", "DIST", "(task form) a read the VM's disk serves in DIST after those queued" },
	{ "wait", "Q", "(task form) take a token of wait queue Q, or sleep until woken" },
	{ "wake", "Q", "(task form) wake one waiter of Q ({on: Q, count: N} or {on: Q, all: true})" },
	{ "spawn", "{program: P, count: N, parallel: M}", "(task form) start N child tasks, "
	  "at most M alive" },
	{ "join", "children", "(task form) wait until every child has exited" },
	{ "barrier", "{name: B, count: N}", "(task form) the N-th arrival releases all" },
	{ "mark", "{start: R} | {stop: R}", "(task form) a timed region: VM.R_mean_s, R_sd_s, R_n" },
	{ "ipi", "{to: all|others|random|N, wait: BOOL, cost: DIST}", "(task form) "
	  "smp_call_function_many (all: on_each_cpu); with wait the sender spins (PLE sees it)" },
	{ "tlb_flush", "{mm: MM}", "(task form) flush_tlb_mm_range: shoot down the vCPUs that "
	  "ran MM" },
	{ "mmap", "{cost: DIST}", "(task form) work under the task's mmap_sem (write)" },
	{ "munmap", "{cost: DIST}", "(task form) the same, then flush the task's mm" },
	{ "fault", "DIST", "(task form) a page fault's work under mmap_sem held for reading" },
	{ "lock", "L | {name: L, read: true}", "(task form) take a sleeping lock (rwsem readers: "
	  "read); tasks: [{..., mm: MM}] names the address space (default: program)" },
	{ "unlock", "L", "(task form) release it" },
	{ NULL, NULL, NULL }
};

static const char *
nz(const char *s)
{
	return s != NULL ? s : "";
}

/* A YAML double-quoted scalar. */
static void
yq(const char *s)
{
	putchar('"');
	for (s = nz(s); *s; s++) {
		if (*s == '"' || *s == '\\')
			putchar('\\');
		putchar(*s);
	}
	putchar('"');
}

static void
params_text(const struct vs_param *p)
{
	for (; p != NULL && p->name != NULL; p++) {
		printf("      %s = %s  (%s%s%s)\n          %s\n", p->name, p->def,
		    p->type ? p->type : "type unstated", p->unit && *p->unit ? ", " : "",
		    p->unit && *p->unit ? p->unit : "", p->what);
	}
}

static void params_rows_yaml(const struct vs_param *, const char *);

static void
params_yaml(const struct vs_param *p, const char *ind)
{
	if (p == NULL || p->name == NULL) {
		printf("%sparams: []\n", ind);
		return;
	}
	printf("%sparams:\n", ind);
	params_rows_yaml(p, ind);
}

static void
params_rows_yaml(const struct vs_param *p, const char *ind)
{
	for (; p != NULL && p->name != NULL; p++) {
		printf("%s  - {name: ", ind);
		yq(p->name);
		printf(", type: ");
		yq(p->type);
		printf(", unit: ");
		yq(p->unit);
		printf(", default: ");
		yq(p->def);
		printf(", source: ");
		yq(p->what);
		puts("}");
	}
}

static void
entry_yaml(const char *name, const char *desc, const struct vs_param *p)
{
	printf("  - name: ");
	yq(name);
	printf("\n    desc: ");
	yq(desc);
	putchar('\n');
	params_yaml(p, "    ");
}

static void
list_yaml(void)
{
	int i;

	puts("# vlocksim list --format yaml: every table compiled into this binary.");
	puts("kinds:      # hypervisor.kind; params are keys of hypervisor:");
	for (i = 0; registry_kinds[i] != NULL; i++)
		entry_yaml(registry_kinds[i]->name, registry_kinds[i]->desc,
		    registry_kinds[i]->params);
	puts("schedulers: # hypervisor.scheduler; params are keys of hypervisor.params:");
	for (i = 0; registry_scheds[i] != NULL; i++) {
		entry_yaml(registry_scheds[i]->name, registry_scheds[i]->desc,
		    registry_scheds[i]->params);
		if (registry_scheds[i]->params_more != NULL) {
			puts("    params_more: # shared with the other fair policies");
			params_rows_yaml(registry_scheds[i]->params_more, "    ");
		}
	}
	puts("locks:      # vms[].lock: NAME or {kind: NAME, PARAM: VALUE}");
	for (i = 0; registry_locks[i] != NULL; i++)
		entry_yaml(registry_locks[i]->name, registry_locks[i]->desc,
		    registry_locks[i]->params);
	puts("guest:      # vms[].guest: keys every guest scheduler reads");
	params_yaml(scen_guest_params, "  ");
	puts("guest_schedulers: # vms[].guest.scheduler");
	for (i = 0; registry_gscheds[i] != NULL; i++)
		entry_yaml(registry_gscheds[i]->name, registry_gscheds[i]->desc,
		    registry_gscheds[i]->params);
	puts("sleeping_locks: # workloads.W.locks: {NAME: {kind: K}}; lock/unlock primitives");
	for (i = 0; registry_slocks[i] != NULL; i++)
		entry_yaml(registry_slocks[i]->name, registry_slocks[i]->desc,
		    registry_slocks[i]->params);
	puts("primitives:");
	for (i = 0; prims[i].name != NULL; i++) {
		printf("  - {name: ");
		yq(prims[i].name);
		printf(", arg: ");
		yq(prims[i].arg);
		printf(", desc: ");
		yq(prims[i].what);
		puts("}");
	}
	puts("distributions: [const, exponential, uniform, normal, lognormal, gamma, empirical]");
	puts("metrics:");
	for (i = 0; metric_docs[i].pattern != NULL; i++) {
		printf("  - {name: ");
		yq(metric_docs[i].pattern);
		printf(", unit: ");
		yq(metric_docs[i].unit);
		printf(", desc: ");
		yq(metric_docs[i].what);
		puts("}");
	}
}

/* roff text: \- for '-', \e for '\', \& before a leading '.' or '\''. */
static void
rq(const char *s)
{
	s = nz(s);
	if (*s == '.' || *s == '\'')
		fputs("\\&", stdout);
	for (; *s; s++) {
		if (*s == '-')
			fputs("\\-", stdout);
		else if (*s == '\\')
			fputs("\\e", stdout);
		else
			putchar(*s);
	}
}

static void
params_man(const struct vs_param *p)
{
	for (; p != NULL && p->name != NULL; p++) {
		fputs(".RS\n.TP\n.B ", stdout);
		rq(p->name);
		fputs("\n= ", stdout);
		rq(p->def);
		fputs(" (", stdout);
		rq(p->type ? p->type : "type unstated");
		if (p->unit != NULL && *p->unit) {
			fputs(", ", stdout);
			rq(p->unit);
		}
		fputs(")\n.br\n", stdout);
		rq(p->what);
		fputs("\n.RE\n", stdout);
	}
}

static void
entry_man(const char *name, const char *desc, const struct vs_param *p)
{
	fputs(".TP\n.B ", stdout);
	rq(name);
	putchar('\n');
	rq(desc);
	putchar('\n');
	params_man(p);
}

/*
 * The man page's PARAMETERS and METRICS sections (between its "list --format
 * man" markers): `make man-lists` puts them there, tests/e2e_docs.sh checks
 * that they are what the binary prints.
 */
static void
list_man(void)
{
	int i;

	puts(".SH PARAMETERS\n"
	    "Every parameter of the tables compiled in, as\n.B vlocksim list\nprints it:\n"
	    "name = default (type, and the unit of a bare number), then its meaning and the\n"
	    "code or document it follows.\n"
	    ".SS Hypervisor kinds (hypervisor.kind; keys of hypervisor:)");
	for (i = 0; registry_kinds[i] != NULL; i++)
		entry_man(registry_kinds[i]->name, registry_kinds[i]->desc,
		    registry_kinds[i]->params);
	puts(".SS Host schedulers (hypervisor.scheduler; keys of hypervisor.params:)");
	for (i = 0; registry_scheds[i] != NULL; i++) {
		entry_man(registry_scheds[i]->name, registry_scheds[i]->desc,
		    registry_scheds[i]->params);
		params_man(registry_scheds[i]->params_more);
	}
	puts(".SS Guest locks (vms[].lock: {kind: NAME, PARAM: VALUE})");
	for (i = 0; registry_locks[i] != NULL; i++)
		entry_man(registry_locks[i]->name, registry_locks[i]->desc,
		    registry_locks[i]->params);
	puts(".SS Guest kernel (vms[].guest)");
	params_man(scen_guest_params);
	puts(".SS Guest schedulers (vms[].guest.scheduler)");
	for (i = 0; registry_gscheds[i] != NULL; i++)
		entry_man(registry_gscheds[i]->name, registry_gscheds[i]->desc,
		    registry_gscheds[i]->params);
	puts(".SS Sleeping locks (workloads.W.locks: {NAME: {kind: K}})");
	for (i = 0; registry_slocks[i] != NULL; i++)
		entry_man(registry_slocks[i]->name, registry_slocks[i]->desc,
		    registry_slocks[i]->params);
	puts(".SH METRICS\n"
	    "Every metric a run can print, with its unit.\n"
	    ".I VM\nis a\n.B vms[]\nentry's name,\n.I LOCK\na lock of its workload,\n"
	    ".I COUNTER\na\n.B count:\nname and\n.I R\na\n.B mark:\nregion.");
	for (i = 0; metric_docs[i].pattern != NULL; i++) {
		fputs(".TP\n.B ", stdout);
		rq(metric_docs[i].pattern);
		fputs("\n(", stdout);
		rq(metric_docs[i].unit);
		fputs(") ", stdout);
		rq(metric_docs[i].what);
		putchar('\n');
	}
}

static void
list_text(void)
{
	int i;

	puts("Parameters: NAME = DEFAULT (TYPE, UNIT of a bare number), then meaning and source.");
	puts("hypervisor kinds (hypervisor.kind; parameters are keys of hypervisor:):");
	for (i = 0; registry_kinds[i] != NULL; i++) {
		printf("  %-14s %s\n", registry_kinds[i]->name, registry_kinds[i]->desc);
		params_text(registry_kinds[i]->params);
	}
	/* A kind's tables that do not fit one parameter a line (versions, presets). */
	for (i = 0; registry_kinds[i] != NULL; i++)
		if (registry_kinds[i]->list != NULL)
			registry_kinds[i]->list(stdout);
	puts("schedulers (hypervisor.scheduler; parameters under hypervisor.params:):");
	for (i = 0; registry_scheds[i] != NULL; i++) {
		printf("  %-14s %s\n", registry_scheds[i]->name, registry_scheds[i]->desc);
		params_text(registry_scheds[i]->params);
		params_text(registry_scheds[i]->params_more);
	}
	puts("VM cgroup (vms[].cgroup; needs hypervisor.params.groups: per-vm, cfs or eevdf):\n"
	    "  weight: 100        cgroup v2 cpu.weight 1..10000 (100 = shares 1024)\n"
	    "  max: max           cpu.max \"QUOTA/PERIOD\" (e.g. \"50ms/100ms\"): CFS bandwidth");
	puts("locks (vms[].lock: NAME, or {kind: NAME, PARAM: VALUE, ...}):");
	for (i = 0; registry_locks[i] != NULL; i++) {
		printf("  %-14s %s\n", registry_locks[i]->name, registry_locks[i]->desc);
		params_text(registry_locks[i]->params);
	}
	puts("guest kernel (vms[].guest: {...}):");
	params_text(scen_guest_params);
	puts("guest schedulers (vms[].guest.scheduler):");
	for (i = 0; registry_gscheds[i] != NULL; i++) {
		printf("  %-14s %s\n", registry_gscheds[i]->name, registry_gscheds[i]->desc);
		params_text(registry_gscheds[i]->params);
	}
	puts("sleeping locks (workloads.W.locks: {NAME: {kind: K}}; lock/unlock primitives):");
	for (i = 0; registry_slocks[i] != NULL; i++) {
		printf("  %-14s %s\n", registry_slocks[i]->name, registry_slocks[i]->desc);
		params_text(registry_slocks[i]->params);
	}
	puts("workload primitives (workloads.NAME.program, or .programs.P with .tasks):");
	for (i = 0; prims[i].name != NULL; i++)
		printf("  %s: %-20s %s\n", prims[i].name, prims[i].arg, prims[i].what);
	puts("distributions: const, exponential, uniform, normal, lognormal, gamma, empirical");
	puts("metrics (VM: a vms[] name, LOCK: a lock, COUNTER: a count: name, R: a mark: region):");
	for (i = 0; metric_docs[i].pattern != NULL; i++)
		printf("  %-28s %-10s %s\n", metric_docs[i].pattern, metric_docs[i].unit,
		    metric_docs[i].what);
}

struct list_args {
	int format;	/* text, yaml, man */
};

static const struct opt_decl list_opts[] = {
	{ "format", 0, "text|yaml|man", OPT_ENUM, OPT_AT(struct list_args, format),
	  .help = "text (the default), YAML for scripts, or the roff of vlocksim(1)'s "
	  "PARAMETERS and METRICS (make man-lists)" },
	{ NULL }
};

static int
parse_list_args(int argc, char **argv, void *args)
{
	struct list_args *a = args;
	int next;

	memset(a, 0, sizeof *a);
	if (opt_parse(&cmd_list_entry, argc, argv, a, &next))
		return CMD_EXIT_INPUT;
	if (next != argc) {
		fprintf(stderr, "vlocksim list: takes no arguments\n");
		cmd_try("list");
		return CMD_EXIT_INPUT;
	}
	return 0;
}

static int
run_list(const void *args, struct cmd_mpi *mp)
{
	const struct list_args *a = args;
	if (a->format == 1)
		list_yaml();
	else if (a->format == 2)
		list_man();
	else
		list_text();
	return 0;
}

const struct cmd_entry cmd_list_entry = {
	.name = "list",
	.summary = "kinds, schedulers, locks, parameters, primitives, metrics",
	.about = "Prints, from the tables compiled in, every hypervisor kind, host "
	    "scheduler, lock and guest scheduler with each parameter (type, unit, default, "
	    "source), the workload primitives and every metric with its unit and meaning.",
	.opts = list_opts,
	.size = sizeof(struct list_args),
	.parse = parse_list_args,
	.run = run_list,
};
