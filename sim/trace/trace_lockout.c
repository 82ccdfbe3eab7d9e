/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * trace_lockout.c - a run's lock events as /proc/lock_stat (trace_lockout.h).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "guest/lock.h"
#include "trace_lockout.h"

struct lo_lock {
	const struct glock *l;		/* identity only: freed when the run ends */
	char *name;
	uint64_t contentions, acquisitions;
	double wmin, wmax, wtot, hmin, hmax, htot;
	sim_time_t taken;
};

struct lock_out {
	struct probe p;
	struct lo_lock *locks;
	size_t n, cap;
	sim_time_t *wait_at;		/* per global vCPU */
	size_t nv;
};

static struct lo_lock *
find(struct lock_out *o, const struct glock *l)
{
	size_t i;

	for (i = 0; i < o->n; i++)
		if (o->locks[i].l == l)
			return &o->locks[i];
	VS_GROW(o->locks, o->cap, o->n);
	memset(&o->locks[o->n], 0, sizeof o->locks[o->n]);
	o->locks[o->n].l = l;
	o->locks[o->n].name = xstrdup(l->name);
	o->locks[o->n].wmin = o->locks[o->n].hmin = -1;
	return &o->locks[o->n++];
}

static void
minmax(double x, double *mn, double *mx, double *tot)
{
	if (*mn < 0 || x < *mn)
		*mn = x;
	if (x > *mx)
		*mx = x;
	*tot += x;
}

static void
on_event(void *ctx, const struct probe_ev *e)
{
	struct lock_out *o = ctx;
	struct lo_lock *k;

	if (e->kind != PR_LOCK_WAIT && e->kind != PR_LOCK_TAKEN && e->kind != PR_LOCK_RELEASE)
		return;
	if (e->vcpu < 0 || e->lock == NULL)
		return;
	if ((size_t)e->vcpu >= o->nv) {
		size_t i, n = (size_t)e->vcpu + 1;

		o->wait_at = xrealloc(o->wait_at, n * sizeof *o->wait_at);
		for (i = o->nv; i < n; i++)
			o->wait_at[i] = -1;
		o->nv = n;
	}
	k = find(o, e->lock);
	switch (e->kind) {
	case PR_LOCK_WAIT:
		o->wait_at[e->vcpu] = e->t;
		break;
	case PR_LOCK_TAKEN:
		/* kernel/locking/lockdep.c lock_acquired: waited since lock_contended. */
		if (o->wait_at[e->vcpu] >= 0 && e->t > o->wait_at[e->vcpu]) {
			k->contentions++;
			minmax((double)(e->t - o->wait_at[e->vcpu]), &k->wmin, &k->wmax, &k->wtot);
		}
		o->wait_at[e->vcpu] = -1;
		k->acquisitions++;
		k->taken = e->t;
		break;
	default:
		minmax((double)(e->t - k->taken), &k->hmin, &k->hmax, &k->htot);
		break;
	}
}

struct lock_out *
lock_out_new(void)
{
	struct lock_out *o = xcalloc(1, sizeof *o);

	o->p.fn = on_event;
	o->p.ctx = o;
	return o;
}

void
lock_out_free(struct lock_out *o)
{
	size_t i;

	if (o == NULL)
		return;

	for (i = 0; i < o->n; i++)
		free(o->locks[i].name);
	free(o->locks);
	free(o->wait_at);
	free(o);
}

const struct probe *
lock_out_probe(struct lock_out *o)
{
	return &o->p;
}

static double
us(double ns)
{
	return ns < 0 ? 0 : ns / 1e3;
}

char *
lock_out_text(const struct lock_out *o)
{
	char *buf = NULL;
	size_t len = 0, i;
	FILE *f = open_memstream(&buf, &len);

	if (f == NULL)
		vs_fatal("open_memstream: out of memory");
	/* kernel/locking/lockdep_proc.c seq_header / seq_stats, version 0.4. */
	fprintf(f, "lock_stat version 0.4\n");
	fprintf(f, "%s\n", "-----------------------------------------------------------------");
	fprintf(f, "%40s %14s %14s %14s %14s %14s %14s %14s %14s %14s %14s %14s %14s\n",
	    "class name", "con-bounces", "contentions", "waittime-min", "waittime-max",
	    "waittime-total", "waittime-avg", "acq-bounces", "acquisitions", "holdtime-min",
	    "holdtime-max", "holdtime-total", "holdtime-avg");
	fprintf(f, "%s\n\n", "-----------------------------------------------------------------");
	for (i = 0; i < o->n; i++) {
		const struct lo_lock *k = &o->locks[i];
		char name[80];

		snprintf(name, sizeof name, "%s:", k->name);
		fprintf(f, "%40s %14llu %14llu %14.2f %14.2f %14.2f %14.2f %14llu %14llu %14.2f "
		    "%14.2f %14.2f %14.2f\n", name, 0ULL, (unsigned long long)k->contentions,
		    us(k->wmin), us(k->wmax), us(k->wtot),
		    k->contentions ? us(k->wtot) / (double)k->contentions : 0, 0ULL,
		    (unsigned long long)k->acquisitions, us(k->hmin), us(k->hmax), us(k->htot),
		    k->acquisitions ? us(k->htot) / (double)k->acquisitions : 0);
		fprintf(f, "\n%s\n\n", "...................................................................");
	}
	fclose(f);
	return buf;
}

int
lock_out_write(const struct lock_out *o, const char *path, struct vs_err *err)
{
	char *t = lock_out_text(o);
	int rc = vs_write_file_atomic(path, t, strlen(t), err);

	free(t);
	return rc;
}
