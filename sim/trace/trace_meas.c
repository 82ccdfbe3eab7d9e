/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * trace_meas.c - an imported trace as a measured table (measured.h format),
 * so validation cases can compare the simulator with it:
 * `vlocksim trace import FILE --measured OUT.csv --setup NAME`.
 *
 * One group of rows per VM: a Xen domain N is VM "dN" (as the scenario
 * should name it); KVM vCPU threads together are VM "vm".  Row ids are
 * SETUP/METRIC, and the metric column is the scenario metric it matches:
 *   VM.running_share .. VM.offline_share   %   (as run.c's VM.*_share: time
 *       in the state over all time observed, pooled over the VM's vCPUs;
 *       sd: across its vCPUs, n: vCPUs)
 *   VM.hlt_exits_per_sec, VM.ple_exits_per_sec, VM.io_exits_per_sec,
 *   VM.hypercalls_per_sec   1/s   (per second of trace span, the VM's vCPUs
 *       together; sd across vCPUs x vCPUs; no simulator metric yet)
 *   VM.wake_to_run_p50_ns   ns   (woken -> on a pCPU, median of the pooled
 *       samples; sd 0, n samples; no simulator metric yet)
 * Rows a trace cannot give (no exits in a xenalyze summary, no wakeups) are
 * left out.  Same trace => same bytes.
 */
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "stats.h"
#include "trace_in.h"

/* A vCPU's VM: its Xen domain, or -1 for KVM threads. */
#define DOM(v) ((v)->dom < 0 ? -1 : (v)->dom)

enum { EX_HLT, EX_PLE, EX_IO, EX_HC, EX_N };

static const char *const ex_metric[EX_N] = { "hlt_exits_per_sec", "ple_exits_per_sec",
    "io_exits_per_sec", "hypercalls_per_sec" };

/* Exit reason -> the simulator's exit class (VMX and SVM names, both renderings). */
static int
ex_class(const char *r)
{
	static const char *const io[] = { "IO_INSTRUCTION", "EPT_MISCONFIG", "EXIT_IOIO",
	    "io", "EXIT_NPF", "npf", NULL };
	static const char *const hc[] = { "VMCALL", "EXIT_VMMCALL", "hypercall", "vmmcall",
	    NULL };
	int i;

	for (i = 0; io[i] != NULL; i++)
		if (strcmp(r, io[i]) == 0)
			return EX_IO;
	for (i = 0; hc[i] != NULL; i++)
		if (strcmp(r, hc[i]) == 0)
			return EX_HC;
	return -1;
}

static double
span_s(const struct ti_trace *t)
{
	if (t->summary_seconds > 0)
		return t->summary_seconds;
	return t->t_last > t->t_first ? (double)(t->t_last - t->t_first) / 1e9 : 0;
}

/* A vCPU's exits by class. */
static void
v_exits(const struct ti_trace *t, const struct ti_vcpu *v, double out[EX_N])
{
	size_t i;

	memset(out, 0, EX_N * sizeof *out);
	out[EX_HLT] = (double)v->hlt_exits;
	out[EX_PLE] = (double)v->ple_exits;
	for (i = 0; i < v->nex && i < t->nreasons; i++) {
		int c = ex_class(t->reasons[i].name);

		if (c >= 0)
			out[c] += (double)v->ex[i].count;
	}
}

static double
sd_of(const double *x, int n)
{
	double m = 0, s = 0;
	int i;

	if (n < 2)
		return 0;
	for (i = 0; i < n; i++)
		m += x[i];
	m /= n;
	for (i = 0; i < n; i++)
		s += (x[i] - m) * (x[i] - m);
	return sqrt(s / (n - 1));
}

static void
row(FILE *o, const char *setup, const char *vm, const char *metric, const char *unit,
    double mean, double sd, long long n)
{
	fprintf(o, "%s,%s.%s,%s.%s,%s,%.6g,%.6g,%lld\n", setup, vm, metric, vm, metric, unit,
	    mean, sd, n);
}

/* The rows of one VM: the vCPUs vs[0..n). */
static void
vm_rows(FILE *o, const struct ti_trace *t, const char *setup, const char *vm,
    struct ti_vcpu *const *vs, int n)
{
	static const char *const st[TI_NSTATES] = { "running_share", "runnable_share",
	    "blocked_share", "offline_share" };
	double *x = xcalloc((size_t)n + 1, sizeof *x), tot = 0, sum[TI_NSTATES] = { 0 };
	double ex[EX_N] = { 0 }, span = span_s(t), w2r_w = 0, w2r_p = 0;
	struct hist *h = hist_new();
	uint64_t w2r_n = 0, nexits = 0;
	int i, k, all_hist = 1;

	for (i = 0; i < n; i++)
		for (k = 0; k < TI_NSTATES; k++) {
			sum[k] += vs[i]->st_ns[k];
			tot += vs[i]->st_ns[k];
		}
	for (k = 0; k < TI_NSTATES && tot > 0; k++) {
		int m = 0;

		for (i = 0; i < n; i++) {
			double vt = 0;
			int j;

			for (j = 0; j < TI_NSTATES; j++)
				vt += vs[i]->st_ns[j];
			if (vt > 0)
				x[m++] = 100 * vs[i]->st_ns[k] / vt;
		}
		row(o, setup, vm, st[k], "%", 100 * sum[k] / tot, sd_of(x, m), m);
	}
	for (i = 0; i < n; i++)
		nexits += vs[i]->exits;
	/* a PV domain (dom0 of X1) has no VM exits: its rates are not measured */
	if (t->fmt != TI_FMT_XENALYZE && span > 0 && nexits > 0) {
		for (k = 0; k < EX_N; k++) {
			for (i = 0; i < n; i++) {
				double e[EX_N];

				v_exits(t, vs[i], e);
				x[i] = e[k] / span;
				ex[k] += e[k];
			}
			/* the VM's rate is the sum of its vCPUs': sd of the sum */
			row(o, setup, vm, ex_metric[k], "1/s", ex[k] / span,
			    sd_of(x, n) * sqrt((double)n), n);
		}
	}
	for (i = 0; i < n; i++) {
		const struct ti_q *q = &vs[i]->wake_to_run;

		if (q->n == 0)
			continue;
		w2r_n += q->n;
		if (q->h != NULL && !q->given)
			hist_merge(h, q->h);
		else
			all_hist = 0;
		w2r_p += (double)q->n * ti_q_quantile(q, 0.5);
		w2r_w += (double)q->n;
	}
	/* pooled samples' median; from summaries, the count-weighted mean of medians */
	if (w2r_n > 0)
		row(o, setup, vm, "wake_to_run_p50_ns", "ns",
		    all_hist ? hist_quantile(h, 0.5) : w2r_p / w2r_w, 0, (long long)w2r_n);
	hist_free(h);
	free(x);
}

char *
ti_measured_csv(const struct ti_trace *t, const char *setup, const char *command,
    const char *note)
{
	char *buf = NULL;
	size_t len = 0, i, j;
	struct ti_vcpu **vs = xcalloc(t->nv + 1, sizeof *vs);
	FILE *o = open_memstream(&buf, &len);
	int prev, dom;

	if (o == NULL)
		vs_fatal("open_memstream: out of memory");
	fprintf(o, "# source: %s (%s, span %.6g s", t->path,
	    ti_format_name(t->fmt), span_s(t));
	if (t->fmt == TI_FMT_XENTRACE || t->fmt == TI_FMT_XENALYZE)
		fprintf(o, ", TSC %.6g GHz", t->cpu_hz / 1e9);
	fputs(")\n", o);
	if (note != NULL)
		fprintf(o, "# %s\n", note);
	fprintf(o, "# produced by: %s\n", command);
	fputs("# rows per VM (Xen domain N = VM dN, KVM vCPU threads = VM vm); shares in % "
	    "of the time observed, pooled over the VM's vCPUs (sd across vCPUs, n vCPUs); "
	    "exit rates per second of span; wake_to_run p50 in ns (n samples)\n", o);
	fputs("setup,variant,metric,unit,mean,sd,n\n", o);
	if (t->fmt == TI_FMT_PERFKVM) {
		/* perf kvm stat report: the whole VM's exits by reason (no vCPUs, no
		 * span unless --seconds): count, mean exit -> entry time (HLT's
		 * includes the halt), share of the handled time. */
		double tot = 0;

		for (i = 0; i < t->all.nex && i < t->nreasons; i++)
			tot += t->all.ex[i].lat.sum;
		for (i = 0; i < t->all.nex && i < t->nreasons; i++) {
			const struct ti_exitq *q = &t->all.ex[i];
			const char *r = t->reasons[i].name;

			if (q->count == 0)
				continue;
			fprintf(o, "%s,vm.exits.%s,vm.exits.%s,count,%llu,0,1\n", setup, r, r,
			    (unsigned long long)q->count);
			fprintf(o, "%s,vm.exit_mean_ns.%s,vm.exit_mean_ns.%s,ns,%.6g,0,%llu\n", setup,
			    r, r, q->lat.sum / (double)q->count, (unsigned long long)q->count);
			if (tot > 0)
				fprintf(o, "%s,vm.exit_time_share.%s,vm.exit_time_share.%s,%%,%.6g,0,"
				    "%llu\n", setup, r, r, 100 * q->lat.sum / tot,
				    (unsigned long long)q->count);
			if (t->given_seconds > 0)
				fprintf(o, "%s,vm.exits_per_sec.%s,vm.exits_per_sec.%s,1/s,%.6g,0,"
				    "%llu\n", setup, r, r, (double)q->count / t->given_seconds,
				    (unsigned long long)q->count);
		}
		fclose(o);
		free(vs);
		return buf;
	}
	/* Group the vCPUs by domain, in the order of domain ids (KVM: one group). */
	for (prev = -2;; prev = dom) {
		int n = 0;
		char vm[32];

		dom = INT_MAX;
		for (i = 0; i < t->nv; i++)
			if (t->v[i]->is_vcpu && DOM(t->v[i]) > prev && DOM(t->v[i]) < dom)
				dom = DOM(t->v[i]);
		if (dom == INT_MAX)
			break;
		for (i = 0; i < t->nv; i++)
			if (t->v[i]->is_vcpu && DOM(t->v[i]) == dom)
				vs[n++] = t->v[i];
		/* vCPUs in id order */
		for (i = 1; i < (size_t)n; i++)
			for (j = i; j > 0 && vs[j - 1]->vcpu > vs[j]->vcpu; j--) {
				struct ti_vcpu *x = vs[j];

				vs[j] = vs[j - 1];
				vs[j - 1] = x;
			}
		if (dom < 0)
			snprintf(vm, sizeof vm, "vm");
		else
			snprintf(vm, sizeof vm, "d%d", dom);
		vm_rows(o, t, setup, vm, vs, n);
	}
	fclose(o);
	free(vs);
	return buf;
}
