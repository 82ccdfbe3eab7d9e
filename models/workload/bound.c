/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * bound.c - what a compiled workload may cost before it runs (issue 29): the
 * least simulated time each program takes (against the cap on simulated
 * time, engine.h) and the tasks it may have alive at once (the memory
 * estimate, scenario.c).  Programs have no branches, only loops, so both
 * follow from one walk of the ops.
 */
#include "workload/wl_priv.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "dist.h"
#include "engine.h"

/*
 * Live children of a task over a run of ops, as a function of a, the number
 * alive when it starts: alive after it  <= min(a + p, q);  the most alive at
 * any point inside it  <= min(max(a + P, R), Q)  (-INFINITY: no point).  A
 * spawn is (1, inf, 1, -inf, inf); a join or wait for children with n left
 * is (0, n, 0, -inf, n); the other ops change nothing.
 */
struct live {
	double p, q, P, R, Q;
};

static const struct live live_none = { 0, INFINITY, -INFINITY, -INFINITY, -INFINITY };

/* x + y where -inf (no point) stays -inf */
static double
plus(double x, double y)
{
	return x == -INFINITY || y == -INFINITY ? -INFINITY : x + y;
}

/* a, then b */
static struct live
live_then(struct live a, struct live b)
{
	struct live r;

	r.p = a.p + b.p;
	r.q = fmin(a.q + b.p, b.q);
	r.P = fmax(a.P, plus(a.p, b.P));
	r.R = fmax(a.R, b.R);
	r.Q = fmax(a.Q, fmin(fmax(plus(a.q, b.P), b.R), b.Q));
	return r;
}

/* n iterations of b (n < 0: forever).  After k >= 1 of them at most
 * min(a + k p, q) are alive: with q finite an iteration after the first
 * starts from at most q; else each adds p. */
static struct live
live_loop(struct live b, int64_t n)
{
	double k = n < 0 ? INFINITY : (double)n;
	struct live r = b;

	if (n == 0)
		return live_none;
	r.p = b.p > 0 ? k * b.p : 0;
	if (isfinite(b.q)) {
		r.R = fmax(b.R, plus(b.q, b.P));
	} else if (b.p > 0) {
		r.P = plus((k - 1) * b.p, b.P);
	}
	return r;
}

/* Ops from *i up to the end of the program or of the loop that holds them. */
static struct live
live_seq(const struct workload *w, size_t *i)
{
	struct live r = live_none, one;

	for (; *i < w->nops; (*i)++) {
		const struct wl_op *o = &w->ops[*i];

		switch (o->op) {
		case OP_END:
		case OP_ENDLOOP:
			return r;
		case OP_LOOP:
			(*i)++;
			one = live_loop(live_seq(w, i), o->n);
			break;
		case OP_SPAWN:
			one = (struct live){ 1, INFINITY, 1, -INFINITY, INFINITY };
			break;
		case OP_WAITCHILD:
			one = (struct live){ 0, (double)o->n, 0, -INFINITY, (double)o->n };
			break;
		default:
			continue;
		}
		r = live_then(r, one);
	}
	return r;
}

/* The least time ops from *i take, up to the end of their program or loop:
 * timed primitives at the least their distribution yields, loops at their
 * counts (forever: once). */
static double
least_seq(const struct workload *w, size_t *i)
{
	double t = 0, body;

	for (; *i < w->nops; (*i)++) {
		const struct wl_op *o = &w->ops[*i];

		switch (o->op) {
		case OP_END:
		case OP_ENDLOOP:
			return t;
		case OP_LOOP:
			(*i)++;
			body = least_seq(w, i);
			if (o->n != 0 && body > 0)
				t += (o->n < 0 ? 1 : (double)o->n) * body;
			break;
		case OP_COMPUTE:
		case OP_BUSY_WAIT:
		case OP_SLEEP:
		case OP_BLOCK:
		case OP_DISK:
			t += dist_min(o->d);
			break;
		default:
			break;
		}
	}
	return t;
}

/* Tasks alive at once under one task of program pi: itself and its
 * descendants.  state: 0 not seen, 1 on the path, 2 done (tasks[pi] set). */
static int
tree(struct workload *w, size_t pi, int *state, double *tasks, struct vs_err *err)
{
	const struct wl_prog *pr = &w->progs[pi];
	size_t i = (size_t)pr->start, j, end, spawn = 0;
	struct live l;
	double most = 0, kids;

	if (state[pi] == 2)
		return 0;
	l = live_seq(w, &i);
	state[pi] = 1;
	end = i;
	for (i = (size_t)pr->start; i < end; i++) {
		if (w->ops[i].op != OP_SPAWN)
			continue;
		if (spawn == 0)
			spawn = i;
		for (j = 0; j < w->nprogs && w->progs[j].start != w->ops[i].jump; j++)
			;
		VS_ASSERT(j < w->nprogs);
		if (state[j] == 1)
			return vs_errf(err, NULL, 0, 0, "%s: program '%s' spawns '%s', which %s: "
			    "a task of it would spawn without end", w->op_where[i], pr->name,
			    w->progs[j].name, j == pi ? "is itself" :
			    "spawns it in turn (directly or through others)");
		if (tree(w, j, state, tasks, err))
			return -1;
		most = fmax(most, tasks[j]);
	}
	kids = fmax(0, fmin(fmax(l.P, l.R), l.Q));
	if (!isfinite(kids))
		return vs_errf(err, NULL, 0, 0, "%s: program '%s' spawns in a loop without end "
		    "and waits for none of its children: they would be alive without bound "
		    "(add a 'join: children' to the loop, or a 'parallel')", w->op_where[spawn],
		    pr->name);
	tasks[pi] = 1 + kids * most;
	state[pi] = 2;
	return 0;
}

int
wl_bound(struct workload *w, struct vs_err *err)
{
	int *state = xcalloc(w->nprogs + 1, sizeof *state);
	double *tasks = xcalloc(w->nprogs + 1, sizeof *tasks);
	size_t pi, i, t;
	int rc = 0;

	w->least_ns = 0;
	for (pi = 0; pi < w->nprogs; pi++) {
		double least;

		i = (size_t)w->progs[pi].start;
		least = least_seq(w, &i);
		if (least > w->least_ns) {
			w->least_ns = least;
			w->least_prog = (int)pi;
		}
	}
	for (pi = 0; pi < w->nprogs && rc == 0; pi++)
		rc = tree(w, pi, state, tasks, err);
	w->peak_tasks = 0;
	for (t = 0; rc == 0 && t < w->ntasks; t++)
		w->peak_tasks += w->tasks[t].count * tasks[w->tasks[t].prog];
	free(state);
	free(tasks);
	return rc;
}

int
wl_check_cap(const struct workload *w, struct vs_err *err)
{
	if (w->least_ns <= (double)SIM_TIME_CAP)
		return 0;
	return vs_errf(err, NULL, 0, 0, "%s: program '%s' of workload '%s' takes at least "
	    "%.3g s of simulated time (its timed primitives at their least, loops at their "
	    "counts), past the cap of %.0e ns (%.1f years): it cannot run to its end; give "
	    "a 'duration'", w->op_where[w->progs[w->least_prog].start],
	    w->progs[w->least_prog].name, w->name, w->least_ns * 1e-9, (double)SIM_TIME_CAP,
	    (double)SIM_TIME_CAP * 1e-9 / (365.25 * 86400));
}

double
wl_peak_tasks(const struct workload *w)
{
	return w->tasks != NULL ? w->peak_tasks : -1;
}
