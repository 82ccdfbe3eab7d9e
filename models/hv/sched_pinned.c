/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * sched_pinned.c - every vCPU owns one pCPU.
 *
 * The simplest real policy: what `xl vcpu-pin` with one vCPU per pCPU, or a
 * KVM host with isolated, pinned vCPU threads, gives.  No run queue, no time
 * slices: a vCPU runs whenever it is not blocked, and its pCPU idles when it
 * is.  Placement takes, for each vCPU in order, the lowest free pCPU of its
 * affinity; it is an error for vCPUs to outnumber the pCPUs they may use.
 */
#include <stdio.h>
#include <stdlib.h>

#include "hv/hv.h"
#include "hv/sched.h"

struct pinned {
	struct vcpu **owner;	/* per pCPU */
};

static int
pinned_init(struct hv *hv, const void *cfg, struct vs_err *err)
{
	struct pinned *pr = xcalloc(1, sizeof *pr);
	int i, c, lo = 0;	/* every pCPU below lo is owned: the scans start there */

	pr->owner = xcalloc((size_t)hv->npcpus, sizeof *pr->owner);
	hv->sched_priv = pr;
	for (i = 0; i < hv->nvcpus; i++) {
		struct vcpu *v = hv->vcpus[i];

		while (lo < hv->npcpus && pr->owner[lo] != NULL)
			lo++;
		for (c = lo; c < hv->npcpus; c++)
			if (v->affinity[c] && pr->owner[c] == NULL)
				break;
		if (c == hv->npcpus)
			return vs_errf(err, NULL, 0, 0, "%s: vm '%s' vCPU %d has no free pCPU: "
			    "the pinned scheduler needs one pCPU per vCPU (%d vCPUs, %d pCPUs)",
			    v->vm->where, v->vm->name, v->idx, hv->nvcpus, hv->npcpus);
		pr->owner[c] = v;
		v->processor = c;
	}
	return 0;
}

static void
pinned_deinit(struct hv *hv)
{
	struct pinned *pr = hv->sched_priv;

	free(pr->owner);
	free(pr);
	hv->sched_priv = NULL;
}

static void
pinned_wake(struct hv *hv, struct vcpu *v)
{
	hv_tickle(hv, &hv->pcpus[v->processor]);
}

static void
pinned_sleep(struct hv *hv, struct vcpu *v)
{
}

static struct vcpu *
pinned_do_schedule(struct hv *hv, struct pcpu *p, sim_time_t *slice)
{
	struct pinned *pr = hv->sched_priv;
	struct vcpu *v = pr->owner[p->id];

	*slice = 0;
	return v != NULL && !v->blocked ? v : NULL;
}

const struct sched_ops sched_pinned_ops = {
	.name = "pinned",
	.desc = "each vCPU owns one pCPU (no overcommit)",
	.init = pinned_init,
	.deinit = pinned_deinit,
	.wake = pinned_wake,
	.sleep = pinned_sleep,
	.do_schedule = pinned_do_schedule,
};
