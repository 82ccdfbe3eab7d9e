/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * trace_lockout.c - a run's lock events as /proc/lock_stat (trace_lockout.h).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "guest/lock.h"
#include "hv/hv.h"
#include "trace_lockout.h"

/* A lock class (lockdep's unit): the instances of one workload lock class in
 * one VM, pipe[0] .. pipe[79] as "pipe". */
struct lo_class {
	const struct vm *vm;		/* identity only, as lo_inst.l */
	char *vm_name, *name;
	uint64_t contentions, acquisitions;
	double wmin, wmax, wtot, hmin, hmax, htot;
};

/* A lock instance: identity only (freed when the run ends), its class and
 * the time it was taken, since instances of one class are held at once. */
struct lo_inst {
	const struct glock *l;
	size_t cls;
	sim_time_t taken;
};

struct lock_out {
	struct probe p;
	struct lo_class *cls;
	size_t ncls, ccap;
	struct lo_inst *inst;		/* open addressing on the glock's address */
	size_t ninst, icap;		/* icap: 0 or a power of two */
	sim_time_t *wait_at;		/* per global vCPU */
	size_t nv;
};

static size_t
inst_slot(const struct lo_inst *t, size_t cap, const struct glock *l)
{
	size_t h = (size_t)((uintptr_t)l >> 6) * 0x9E3779B97F4A7C15ULL;

	for (h &= cap - 1; t[h].l != NULL && t[h].l != l; h = (h + 1) & (cap - 1))
		;
	return h;
}

/* The class of l's name up to an instance suffix "[N]" (gvm.c instance_name). */
static size_t
class_of(struct lock_out *o, const struct glock *l)
{
	size_t i, len = strlen(l->name);
	const char *b = strrchr(l->name, '[');

	if (b != NULL && len > 0 && l->name[len - 1] == ']')
		len = (size_t)(b - l->name);
	for (i = 0; i < o->ncls; i++)
		if (o->cls[i].vm == l->vm && strlen(o->cls[i].name) == len &&
		    memcmp(o->cls[i].name, l->name, len) == 0)
			return i;
	VS_GROW(o->cls, o->ccap, o->ncls);
	memset(&o->cls[o->ncls], 0, sizeof o->cls[o->ncls]);
	o->cls[o->ncls].vm = l->vm;
	o->cls[o->ncls].vm_name = xstrdup(l->vm->name);
	o->cls[o->ncls].name = xstrndup(l->name, len);
	o->cls[o->ncls].wmin = o->cls[o->ncls].hmin = -1;
	return o->ncls++;
}

static struct lo_inst *
find(struct lock_out *o, const struct glock *l)
{
	size_t h;

	if (2 * (o->ninst + 1) > o->icap) {
		size_t i, cap = o->icap ? 2 * o->icap : 64;
		struct lo_inst *t = xcalloc(cap, sizeof *t);

		for (i = 0; i < o->icap; i++)
			if (o->inst[i].l != NULL)
				t[inst_slot(t, cap, o->inst[i].l)] = o->inst[i];
		free(o->inst);
		o->inst = t;
		o->icap = cap;
	}
	h = inst_slot(o->inst, o->icap, l);
	if (o->inst[h].l == NULL) {
		o->inst[h].l = l;
		o->inst[h].cls = class_of(o, l);
		o->ninst++;
	}
	return &o->inst[h];
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
	struct lo_inst *in;
	struct lo_class *k;

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
	in = find(o, e->lock);
	k = &o->cls[in->cls];
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
		in->taken = e->t;
		break;
	default:
		minmax((double)(e->t - in->taken), &k->hmin, &k->hmax, &k->htot);
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

	for (i = 0; i < o->ncls; i++) {
		free(o->cls[i].vm_name);
		free(o->cls[i].name);
	}
	free(o->cls);
	free(o->inst);
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
	int vms = 0;

	for (i = 1; i < o->ncls; i++)
		vms |= strcmp(o->cls[i].vm_name, o->cls[0].vm_name) != 0;

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
	for (i = 0; i < o->ncls; i++) {
		const struct lo_class *k = &o->cls[i];
		char name[80];

		/* one file for every guest: a class is VM/name once two VMs have locks */
		if (vms)
			snprintf(name, sizeof name, "%s/%s:", k->vm_name, k->name);
		else
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
