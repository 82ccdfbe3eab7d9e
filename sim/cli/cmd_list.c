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
#include "hw/machine.h"
#include "hv/kind.h"
#include "hv/sched.h"
#include "metric_doc.h"
#include "param.h"
#include "registry.h"
#include "scenario.h"
#include "workload/workload.h"
#include "yparam.h"

/* The tables of no registry entry: a scenario file's, a machine file's, a
 * workload's (text title, YAML key, man page heading). */
static const struct {
	const char *title, *key, *man;
	const struct vs_param *p;
} files[] = {
	{ "scenario (the top level of a scenario file):", "scenario",
	  "Scenario (the top level of a scenario file)", scen_params },
	{ "machine (machine: FILE or mapping; costs in cycles unless written with a time "
	  "unit):", "machine", "Machine (machine: FILE or mapping)", machine_params },
	{ "hypervisor (hypervisor:; the keys of its kind follow):", "hypervisor",
	  "Hypervisor (hypervisor:)", scen_hv_params },
	{ "VMs (vms[] entries):", "vms", "VMs (vms[] entries)", scen_vm_params },
	{ "workloads (workloads.NAME: FILE or mapping; primitives below):", "workload",
	  "Workloads (workloads.NAME)", wl_params },
	{ "workload locks (workloads.NAME.locks.LOCK):", "workload_locks",
	  "Workload locks (workloads.NAME.locks.LOCK)", wl_lock_params },
	{ NULL, NULL, NULL, NULL }
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
	char buf[64];

	for (; p != NULL && p->name != NULL; p++) {
		printf("      %s = %s  (%s%s%s)\n          %s\n", p->name,
		    vs_param_def(p, buf, sizeof buf),
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
	char buf[64];

	for (; p != NULL && p->name != NULL; p++) {
		printf("%s  - {name: ", ind);
		yq(p->name);
		printf(", type: ");
		yq(p->type);
		printf(", unit: ");
		yq(p->unit);
		printf(", default: ");
		yq(vs_param_def(p, buf, sizeof buf));
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
	const char *key, *arg, *what;
	int i;

	puts("# vlocksim list --format yaml: every table compiled into this binary.");
	for (i = 0; files[i].p != NULL; i++) {
		printf("%s:\n", files[i].key);
		params_yaml(files[i].p, "  ");
	}
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
	for (i = 0; (key = wl_prim_doc(i, &arg, &what)) != NULL; i++) {
		printf("  - {name: ");
		yq(key);
		printf(", arg: ");
		yq(arg);
		printf(", desc: ");
		yq(what);
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
	char buf[64];

	for (; p != NULL && p->name != NULL; p++) {
		fputs(".RS\n.TP\n.B ", stdout);
		rq(p->name);
		fputs("\n= ", stdout);
		rq(vs_param_def(p, buf, sizeof buf));
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
	    "code or document it follows.");
	for (i = 0; files[i].p != NULL; i++) {
		fputs(".SS ", stdout);
		rq(files[i].man);
		putchar('\n');
		params_man(files[i].p);
	}
	puts(".SS Hypervisor kinds (hypervisor.kind; keys of hypervisor:)");
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
	const char *key, *arg, *what;
	int i;

	puts("Parameters: NAME = DEFAULT (TYPE, UNIT of a bare number), then meaning and source.");
	for (i = 0; files[i].p != NULL; i++) {
		puts(files[i].title);
		params_text(files[i].p);
	}
	puts("hypervisor kinds (hypervisor.kind; parameters are keys of hypervisor:):");
	for (i = 0; registry_kinds[i] != NULL; i++) {
		printf("  %-14s %s\n", registry_kinds[i]->name, registry_kinds[i]->desc);
		params_text(registry_kinds[i]->params);
	}
	/* A kind's tables that do not fit one parameter a line (versions, presets). */
	for (i = 0; registry_kinds[i] != NULL; i++)
		kind_op_list(registry_kinds[i], stdout);
	puts("schedulers (hypervisor.scheduler; parameters under hypervisor.params:):");
	for (i = 0; registry_scheds[i] != NULL; i++) {
		printf("  %-14s %s\n", registry_scheds[i]->name, registry_scheds[i]->desc);
		params_text(registry_scheds[i]->params);
		params_text(registry_scheds[i]->params_more);
	}
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
	for (i = 0; (key = wl_prim_doc(i, &arg, &what)) != NULL; i++)
		printf("  %s: %-20s %s\n", key, arg, what);
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
	  .def = "text", .help = "text, YAML for scripts, or the roff of vlocksim(1)'s "
	  "PARAMETERS and METRICS (make man-lists)" },
	{ NULL }
};

static int
parse_list_args(int argc, char **argv, void *args)
{
	return opt_parse_operands(&cmd_list_entry, argc, argv, args, 0, NULL, NULL);
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
