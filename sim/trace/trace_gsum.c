/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * trace_gsum.c - the guest side of `trace import`'s text summary: what
 * perf sched latency, perf lock report / perf lock contention and
 * /proc/lock_stat itself print, from the aggregates of trace_guest.c.
 *   scheduling: per guest CPU the switches and the busy / idle shares, per
 *     task group the threads, switches (preempted or blocking), its share of
 *     the CPUs, run and blocked means, population;
 *   lock_stat: per class acquisitions, contentions, wait and hold times;
 *   lock:contention_begin/end: per lock the waits and their times.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "trace_emit.h"
#include "trace_guest.h"

#define GSUM_ROWS 20	/* rows per table; the rest is counted (all in --out) */

static double
q_mean(const struct ti_q *q)
{
	return q->n > 0 ? q->sum / (double)q->n : NAN;
}

static const char *
pct(double share, char *buf, size_t n)
{
	if (isfinite(share))
		snprintf(buf, n, "%.2f%%", 100 * share);
	else
		snprintf(buf, n, "-");
	return buf;
}

/* Order by a key, largest first, then by name: indices into 0..n-1. */
struct gsum_key {
	double key;
	const char *name;
	size_t i;
};

static int
cmp_key(const void *a, const void *b)
{
	const struct gsum_key *x = a, *y = b;

	if (x->key != y->key)
		return x->key < y->key ? 1 : -1;
	return strcmp(x->name, y->name);
}

static void
sum_sched(const struct ti_trace *t, FILE *o, double seconds)
{
	size_t ng = ti_guest_ngroups(t), i, k = 0;
	int ncpu = ti_guest_ncpus(t), c;
	struct gsum_key *ord = xcalloc(ng + 1, sizeof *ord);
	struct ti_gcpu_stat all = { 0, 0, 0 };
	char a[32], b[32], d[32];

	fprintf(o, "\nguest scheduling (sched_switch, sched_wakeup): %d CPUs over %s, "
	    "%llu switches, %llu wakeups\n", ncpu, ti_fmt_ns(seconds * 1e9, a, sizeof a),
	    (unsigned long long)ti_guest_switches(t), (unsigned long long)ti_guest_wakeups(t));
	fprintf(o, "  %-6s %9s %8s %8s\n", "cpu", "switches", "busy", "idle");
	for (c = 0; c < ncpu; c++) {
		struct ti_gcpu_stat s;

		ti_guest_cpu_stat(t, c, &s);
		all.switches += s.switches;
		all.idle_ns += s.idle_ns;
		all.seen_ns += s.seen_ns;
		fprintf(o, "  %-6d %9llu %8s %8s\n", c, (unsigned long long)s.switches,
		    pct(s.seen_ns > 0 ? 1 - s.idle_ns / s.seen_ns : NAN, a, sizeof a),
		    pct(s.seen_ns > 0 ? s.idle_ns / s.seen_ns : NAN, b, sizeof b));
	}
	fprintf(o, "  %-6s %9llu %8s %8s\n", "all", (unsigned long long)all.switches,
	    pct(all.seen_ns > 0 ? 1 - all.idle_ns / all.seen_ns : NAN, a, sizeof a),
	    pct(all.seen_ns > 0 ? all.idle_ns / all.seen_ns : NAN, b, sizeof b));
	for (i = 0; i < ng; i++) {
		const struct ti_ggroup *g = ti_guest_group(t, i);

		if (g->run_ns <= 0 && g->switches == 0)
			continue;
		ord[k].key = g->run_ns;
		ord[k].name = g->name;
		ord[k++].i = i;
	}
	qsort(ord, k, sizeof *ord, cmp_key);
	/* perf sched latency's columns, and the shares trace scenario builds on. */
	fprintf(o, "  %-18s %7s %8s %9s %6s %8s %10s %12s %10s\n", "task (by comm)", "threads",
	    "switches", "preempted", "blocks", "cpu", "run mean", "blocked mean", "population");
	for (i = 0; i < k && i < GSUM_ROWS; i++) {
		const struct ti_ggroup *g = ti_guest_group(t, ord[i].i);

		fprintf(o, "  %-18s %7llu %8llu %9llu %6llu %8s %10s %12s %10.4g\n", g->name,
		    (unsigned long long)g->threads, (unsigned long long)g->switches,
		    (unsigned long long)g->preempts, (unsigned long long)g->blocks,
		    pct(seconds > 0 && ncpu > 0 ? g->run_ns / 1e9 / seconds / ncpu : NAN, a, sizeof a),
		    ti_fmt_ns(q_mean(&g->run), b, sizeof b), ti_fmt_ns(q_mean(&g->block), d, sizeof d),
		    seconds > 0 ? (g->run_ns + g->block_ns) / 1e9 / seconds : 0);
	}
	if (k > GSUM_ROWS)
		fprintf(o, "  (%zu task groups more, with less CPU time; all in --out)\n",
		    k - GSUM_ROWS);
	fputs("  cpu: share of the CPUs' time; run mean: until it blocked (a preemption does "
	    "not end a run);\n  population: (run + blocked time) / span\n", o);
	free(ord);
}

/* The locks of lock_stat (tp 0) or of the contention tracepoints (tp 1) in
 * their table's order: lock_stat's own (contentions, then time held), perf lock
 * contention's (total wait).  NULL when there are none. */
static struct gsum_key *
lock_order(const struct ti_trace *t, int tp, size_t *k)
{
	size_t nl = ti_guest_nlocks(t), i;
	struct gsum_key *ord = xcalloc(nl + 1, sizeof *ord);

	for (*k = 0, i = 0; i < nl; i++) {
		const struct ti_glock *l = ti_guest_lock(t, i);

		if (tp ? !l->from_tp : !l->from_stat)
			continue;
		ord[*k].key = tp ? l->wait.sum :
		    (double)l->row.contentions * 1e12 + l->row.hold_total / 1e6;
		ord[*k].name = l->name;
		ord[(*k)++].i = i;
	}
	if (*k == 0) {
		free(ord);
		return NULL;
	}
	qsort(ord, *k, sizeof *ord, cmp_key);
	return ord;
}

static void
sum_lockstat(const struct ti_trace *t, FILE *o, double seconds)
{
	size_t k, i;
	struct gsum_key *ord = lock_order(t, 0, &k);
	char a[32], b[32], c[32], d[32], e[32], f[32], g[32];

	if (ord == NULL)
		return;
	fprintf(o, "\nlock classes (/proc/lock_stat): %zu, most contended first", k);
	if (seconds > 0)
		fprintf(o, "; over %s", ti_fmt_ns(seconds * 1e9, a, sizeof a));
	else
		fputs("; no clock in lock_stat (--seconds S gives acquisitions/s)", o);
	fprintf(o, "\n  %-24s %12s %11s %9s %10s %10s %9s %9s %10s %9s %9s\n", "class",
	    "acquisitions", "contentions", "contended", "acq/s", "wait total", "wait avg",
	    "wait max", "hold total", "hold avg", "hold max");
	for (i = 0; i < k && i < GSUM_ROWS; i++) {
		const struct ti_lockrow *r = &ti_guest_lock(t, ord[i].i)->row;
		double acq = (double)r->acquisitions, con = (double)r->contentions;
		char rate[32];

		if (seconds > 0)
			snprintf(rate, sizeof rate, acq / seconds >= 100 ? "%.0f" : "%.3g",
			    acq / seconds);
		else
			snprintf(rate, sizeof rate, "-");
		fprintf(o, "  %-24s %12llu %11llu %9s %10s %10s %9s %9s %10s %9s %9s\n",
		    ti_guest_lock(t, ord[i].i)->name, (unsigned long long)r->acquisitions,
		    (unsigned long long)r->contentions, pct(acq > 0 ? con / acq : NAN, a, sizeof a),
		    rate, ti_fmt_ns(con > 0 ? r->wait_total : NAN, b, sizeof b),
		    ti_fmt_ns(con > 0 ? r->wait_total / con : NAN, c, sizeof c),
		    ti_fmt_ns(con > 0 && r->wait_max >= 0 ? r->wait_max : NAN, d, sizeof d),
		    ti_fmt_ns(r->hold_total, e, sizeof e),
		    ti_fmt_ns(acq > 0 ? r->hold_total / acq : NAN, f, sizeof f),
		    ti_fmt_ns(r->hold_max >= 0 ? r->hold_max : NAN, g, sizeof g));
	}
	if (k > GSUM_ROWS)
		fprintf(o, "  (%zu classes more, less contended; all in --out)\n", k - GSUM_ROWS);
	fputs("  wait: contended acquisition -> acquired (avg over contentions); hold: "
	    "acquired -> released\n", o);
	free(ord);
}

static void
sum_contention(const struct ti_trace *t, FILE *o)
{
	size_t k, i;
	struct gsum_key *ord = lock_order(t, 1, &k);
	uint64_t waits = 0;
	char a[32], b[32], c[32], d[32];

	if (ord == NULL)
		return;
	for (i = 0; i < k; i++)
		waits += ti_guest_lock(t, ord[i].i)->tp_contentions;
	/* perf lock contention's columns, per lock address. */
	fprintf(o, "\nlock contention (lock:contention_begin/end): %llu waits on %zu lock%s, "
	    "most total wait first", (unsigned long long)waits, k, k == 1 ? "" : "s");
	if (ti_guest_unmatched(t) > 0)
		fprintf(o, "; %llu ends without their begin", (unsigned long long)ti_guest_unmatched(t));
	fprintf(o, "\n  %-20s %-12s %7s %11s %10s %10s %10s\n", "lock", "flags", "waits",
	    "total wait", "avg wait", "min wait", "max wait");
	for (i = 0; i < k && i < GSUM_ROWS; i++) {
		const struct ti_glock *l = ti_guest_lock(t, ord[i].i);

		fprintf(o, "  %-20s %-12s %7llu %11s %10s %10s %10s\n", l->name,
		    l->flags[0] ? l->flags : "-", (unsigned long long)l->tp_contentions,
		    ti_fmt_ns(l->wait.n > 0 ? l->wait.sum : NAN, a, sizeof a),
		    ti_fmt_ns(q_mean(&l->wait), b, sizeof b),
		    ti_fmt_ns(l->wait.n > 0 ? l->wait.min : NAN, c, sizeof c),
		    ti_fmt_ns(l->wait.n > 0 ? l->wait.max : NAN, d, sizeof d));
	}
	if (k > GSUM_ROWS)
		fprintf(o, "  (%zu locks more, less total wait; all in --out)\n", k - GSUM_ROWS);
	fputs("  wait: contention_begin -> contention_end of one thread\n", o);
	free(ord);
}

void
ti_guest_summary(const struct ti_trace *t, FILE *o, double seconds)
{
	if (t->guest == NULL)
		return;
	if (ti_guest_has_sched(t))
		sum_sched(t, o, seconds);
	sum_lockstat(t, o, seconds);
	sum_contention(t, o);
}
