/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * trace_scen.c - scenario and measured table from a guest trace (trace_scen.h).
 */
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "trace_in.h"
#include "trace_kprof.h"
#include "trace_scen.h"

/* The lock classes the workload keeps, by the name it gives them. */
static void
ident(const char *name, char *out, size_t n)
{
	size_t i, j = 0;

	for (i = 0; name[i] != '\0' && j + 1 < n; i++) {
		unsigned char ch = (unsigned char)name[i];

		if ((ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9'))
			out[j++] = (char)ch;
		else if (j > 0 && out[j - 1] != '_')
			out[j++] = '_';
	}
	while (j > 0 && out[j - 1] == '_')
		j--;
	out[j] = '\0';
	if (j == 0 || (out[0] >= '0' && out[0] <= '9'))
		snprintf(out, n, "l_%s", name[0] ? name : "lock");
}

char *
ti_scenario_yaml(const struct ti_trace *g, const struct ti_trace *h,
    const struct ti_scen_opts *so, struct vs_err *err)
{
	struct ti_wl_opts op = so->wl;
	char *buf = NULL, *mpath;
	size_t len = 0;
	FILE *o;
	double idle;

	if (ti_guest_opts(g, &op, err))
		return NULL;
	mpath = realpath(so->machine, NULL);
	if (mpath == NULL) {
		vs_errf(err, NULL, 0, 0, "%s: cannot read the machine file", so->machine);
		return NULL;
	}
	o = open_memstream(&buf, &len);
	if (o == NULL)
		vs_fatal("open_memstream: out of memory");
	fprintf(o, "# vlocksim trace scenario: a scenario from a guest trace.\n");
	if (so->command)
		fprintf(o, "# produced by: %s\n", so->command);
	fprintf(o, "# Sources of the values:\n");
	fprintf(o, "#   guest trace: %s (%s, %llu events, span %.6g s)\n", g->path,
	    ti_format_name(g->fmt), (unsigned long long)g->nevent_lines,
	    g->t_last > g->t_first ? (double)(g->t_last - g->t_first) / 1e9 : 0);
	if (so->lockstat_path)
		fprintf(o, "#   lock statistics: %s (/proc/lock_stat)\n", so->lockstat_path);
	fprintf(o, "#   duration %.6gs: %s\n", op.seconds, so->wl.seconds > 0 ?
	    "--seconds" : "the guest trace's span");
	fprintf(o, "#   vms[0].vcpus %d: %s\n", op.cpus, so->wl.cpus > 0 ? "--vcpus" :
	    "guest CPUs seen in sched_switch");
	idle = ti_guest_idle_share(g);
	if (!isnan(idle))
		fprintf(o, "#   guest idle share in the trace: %.4f (pid 0 on a CPU; the 1x run's "
		    "traced.guest_idle_share should match it)\n", idle);
	fprintf(o, "#   machine: %s (as given; `vlocksim machine probe` makes one of yours)\n",
	    so->machine);
	fprintf(o, "#   hypervisor: kvm with cfs (the KVM host's scheduler; vlocksim "
	    "defaults for PLE, halt-poll: set yours with --set hypervisor...)\n");
	fprintf(o, "#   vms[0].lock %s: %s\n", so->lock_kind, strcmp(so->lock_kind,
	    "pv-qspinlock") == 0 ? "a Linux 4.5+ KVM guest's spinlock (CONFIG_PARAVIRT_SPINLOCKS "
	    "with KVM PV features); --lock names yours" : "--lock");
	if (h != NULL) {
		fprintf(o, "#   host trace: %s (%s, %llu events): vCPUs %.4g%% running, "
		    "%.4g%% runnable; HLT exits %llu, PLE exits %llu\n", h->path,
		    ti_format_name(h->fmt), (unsigned long long)h->nevent_lines,
		    h->all.st_ns[0] + h->all.st_ns[1] + h->all.st_ns[2] > 0 ? 100 * h->all.st_ns[0] /
		    (h->all.st_ns[0] + h->all.st_ns[1] + h->all.st_ns[2] + h->all.st_ns[3]) : 0,
		    h->all.st_ns[0] + h->all.st_ns[1] + h->all.st_ns[2] > 0 ? 100 * h->all.st_ns[1] /
		    (h->all.st_ns[0] + h->all.st_ns[1] + h->all.st_ns[2] + h->all.st_ns[3]) : 0,
		    (unsigned long long)h->all.hlt_exits, (unsigned long long)h->all.ple_exits);
		fprintf(o, "#     (compare with the 1x run; calibrate exit costs with `vlocksim "
		    "trace import HOST --measured` and `vlocksim calibrate`)\n");
	}
	ti_kprof_comment(g, o);
	fprintf(o, "#   vms[1] hog: count 0, a CPU hog VM of as many vCPUs (cpuhog preset):\n"
	    "#     vlocksim sweep THIS.yaml --vary vms[1].count=0,1,2,3 predicts 1x-4x\n");
	fprintf(o, "name: traced\nseed: 1\nreps: 3\nuntil: duration\nduration: %.9gs\n", op.seconds);
	fprintf(o, "machine:\n  include: %s\n", mpath);
	fprintf(o, "hypervisor: {kind: kvm, scheduler: cfs}\n");
	fprintf(o, "vms:\n  - {name: traced, vcpus: %d, lock: %s, workload: traced}\n", op.cpus,
	    so->lock_kind);
	fprintf(o, "  - {name: hog, count: 0, vcpus: %d, workload: hog}\n", op.cpus);
	fprintf(o, "workloads:\n  hog: {program: [{loop: forever, do: [{compute: 10ms}]}]}\n");
	fprintf(o, "  traced:\n");
	free(mpath);
	if (ti_guest_workload(g, o, &op, 4, err)) {
		fclose(o);
		free(buf);
		return NULL;
	}
	fclose(o);
	return buf;
}

char *
ti_guest_measured_csv(const struct ti_trace *g, const struct ti_scen_opts *so,
    const char *setup)
{
	struct ti_wl_opts op = so->wl;
	struct vs_err err;
	char *buf = NULL, id[48];
	size_t len = 0, i;
	FILE *o = open_memstream(&buf, &len);
	double idle;

	if (o == NULL)
		vs_fatal("open_memstream: out of memory");
	(void)ti_guest_opts(g, &op, &err);
	fprintf(o, "# Measured from the guest trace %s", g->path);
	if (so->lockstat_path)
		fprintf(o, " and %s", so->lockstat_path);
	fprintf(o, " (%d CPUs, %.6g s).\n", op.cpus, op.seconds);
	if (so->command)
		fprintf(o, "# produced by: %s\n", so->command);
	fprintf(o, "# Rows: VM.LOCK.* from lock_stat (sd 0: one recording; n: acquisitions "
	    "or contentions); guest_idle_share from sched_switch (sd across CPUs unknown: 0).\n");
	fprintf(o, "setup,variant,metric,unit,mean,sd,n\n");
	for (i = 0; i < ti_guest_nlocks(g); i++) {
		const struct ti_glock *l = ti_guest_lock(g, i);
		struct ti_lockfit f;

		if (!l->from_stat || l->row.acquisitions == 0 || !(op.seconds > 0) || op.cpus <= 0)
			continue;
		ti_guest_lockfit(g, l, &op, &f);
		ident(l->name, id, sizeof id);
		fprintf(o, "%s,traced.%s.acquisitions,traced.%s.acquisitions,count,%llu,0,1\n",
		    setup, id, id, (unsigned long long)l->row.acquisitions);
		fprintf(o, "%s,traced.%s.hold_mean_ns,traced.%s.hold_mean_ns,ns,%.6g,0,%llu\n",
		    setup, id, id, f.hold_mean_ns, (unsigned long long)l->row.acquisitions);
		fprintf(o, "%s,traced.%s.contended_share,traced.%s.contended_share,%%,%.6g,0,%llu\n",
		    setup, id, id, 100 * f.contended_share, (unsigned long long)l->row.acquisitions);
		/* run.c's wait_mean_ns is over all acquisitions, lock_stat's avg over contentions. */
		fprintf(o, "%s,traced.%s.wait_mean_ns,traced.%s.wait_mean_ns,ns,%.6g,0,%llu\n",
		    setup, id, id, l->row.wait_total / (double)l->row.acquisitions,
		    (unsigned long long)l->row.acquisitions);
	}
	idle = ti_guest_idle_share(g);
	if (!isnan(idle))
		fprintf(o, "%s,traced.guest_idle_share,traced.guest_idle_share,%%,%.6g,0,%d\n",
		    setup, 100 * idle, op.cpus);
	fclose(o);
	return buf;
}
