/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * vdisk.c - a VM's virtual disk (vdisk.h): one FIFO server; a read
 * waits for those queued before it, then completes as an interrupt.
 */
#include "guest/vdisk.h"

#include <stdint.h>
#include <stdlib.h>

#include "engine.h"
#include "ffsnap.h"
#include "guest/kernel.h"
#include "util.h"

struct vreq {
	struct task *t;
	double ns;
};

struct vdisk {
	struct sim *sim;
	struct vreq *q;		/* ring of waiting requests; q[head] is in service */
	size_t head, n, cap;
	evq_id ev;
	double busy_ns;
	sim_time_t busy_until;	/* the request in service ends (busy_ns counts it whole) */
	uint64_t served;
};

struct vdisk *
vdisk_new(struct sim *s)
{
	struct vdisk *d = xcalloc(1, sizeof *d);

	d->sim = s;
	d->ev = EVQ_NONE;
	return d;
}

/* d in a snapshot of a periodic run (ring_ff.c): as it is (a request
 * changes it: served, busy) */
void
vdisk_ffs(struct ffs *s, struct vdisk *d)
{
	ffs_bytes(s, d, sizeof *d);
}

void
vdisk_free(struct vdisk *d)
{
	if (d == NULL)
		return;
	sim_cancel(d->sim, &d->ev);
	free(d->q);
	free(d);
}

static void done_ev(void *s, void *arg, int64_t data);

static void
start(struct vdisk *d)
{
	double ns = d->q[d->head].ns;

	d->busy_ns += ns;
	d->busy_until = d->sim->now + sim_ns(ns);
	d->ev = sim_after(d->sim, sim_ns(ns), done_ev, d, 0);
}

/* The request at the head completes: its interrupt wakes the reader. */
static void
done_ev(void *s, void *arg, int64_t data)
{
	struct vdisk *d = arg;
	struct task *t = d->q[d->head].t;

	(void)s;
	(void)data;
	d->ev = EVQ_NONE;
	d->head = (d->head + 1) % d->cap;
	d->n--;
	d->served++;
	if (d->n > 0)
		start(d);
	gk_wake_irq(t);
}

void
vdisk_read(struct vdisk *d, struct vcpu *v, double service_ns, guest_fn resume)
{
	struct task *t;

	if (d->n == d->cap) {
		size_t cap = d->cap ? d->cap * 2 : 16, i;
		struct vreq *q = xcalloc(cap, sizeof *q);

		for (i = 0; i < d->n; i++)
			q[i] = d->q[(d->head + i) % d->cap];
		free(d->q);
		d->q = q;
		d->head = 0;
		d->cap = cap;
	}
	/* queue first: blocking switches v to another task at once */
	t = gk_current(v);
	d->q[(d->head + d->n) % d->cap] = (struct vreq){ t, service_ns > 0 ? service_ns : 0 };
	if (d->n++ == 0)
		start(d);
	gk_block(v, resume);
}

double vdisk_busy_ns(const struct vdisk *d) { return d->busy_ns; }

/* The request in service keeps the part of it still to come. */
void
vdisk_stats_reset(struct vdisk *d)
{
	d->busy_ns = d->ev != EVQ_NONE ? (double)(d->busy_until - d->sim->now) : 0;
	d->served = 0;
}
uint64_t vdisk_requests(const struct vdisk *d) { return d->served; }
