/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * vcpu.h - virtual CPUs and their runstates.
 *
 * Runstates follow Xen's public/vcpu.h: running, runnable (wants a pCPU),
 * blocked (halted or waiting for an event), offline (neither: not started,
 * or its workload has finished).  Time is accounted exactly: at any moment
 * the four totals of a vCPU add up to the time elapsed since it was created.
 */
#ifndef VS_VCPU_H
#define VS_VCPU_H

#include <sys/queue.h>
#include <stdint.h>

#include "evq.h"

enum runstate { RS_RUNNING, RS_RUNNABLE, RS_BLOCKED, RS_OFFLINE, RS_N };

struct vm;
struct pcpu;
struct guest;
struct rng;

/* What every event reads (ids, vm, pcpu, g, rng) comes first, in one line
 * (hv.c allocates it line-aligned), with what a lock take reads of the
 * taker's books (lock.c runnable_ns: rs, and rs_time[RS_RUNNABLE] while it
 * runs): with thousands of vCPUs the taker's second line was a cache miss
 * an acquisition (bench/peer-ticket.yaml at 1024).  The scheduler's fields
 * and the rest of the books after, beside rs_since, which every switch
 * writes. */
struct vcpu {
	int id;			/* global index; also its random stream's entity */
	int idx;		/* index inside its VM */
	enum runstate rs;
	int blocked;		/* halted or waiting: the scheduler must not pick it */
	struct vm *vm;
	struct pcpu *pcpu;	/* where it runs now; NULL unless running */
	struct guest *g;	/* what the guest is doing (models/guest) */
	struct rng *rng;
	sim_time_t rs_time[RS_N];	/* (line 1 ends after rs_time[RS_RUNNABLE]) */
	sim_time_t rs_since;
	int last_pcpu;		/* where it ran last, -1 if never */
	int processor;		/* the pCPU whose run queue holds it (scheduler's) */
	void *sched_priv;	/* the host scheduler's per-vCPU data */
	const unsigned char *affinity; /* one byte per pCPU: 1 = may run there;
					  * its VM's (hv_vcpu_affinity: its own) */
	/* The books at the warm-up's end (hv_stats_reset): metrics report
	 * rs_time - rs_base; the model reads rs_time, which is never reset. */
	sim_time_t rs_base[RS_N];
	uint64_t ctx_in;	/* times it was switched in */
	/* Blocked with a timer armed on a pCPU (hv.c park): that pCPU, the
	 * deadline, its place in the pCPU's list; NULL once switched in again. */
	struct pcpu *parked_on;
	sim_time_t park_at;
	LIST_ENTRY(vcpu) park_link;
	unsigned char *own_affinity;	/* hv_vcpu_affinity's copy; NULL: the VM's */
};

void vcpu_set_runstate(struct vcpu *, enum runstate, sim_time_t now);
/* Close the books at the end of a run: charge the current state up to now. */
void vcpu_account(struct vcpu *, sim_time_t now);
/* Time in rs since the warm-up ended (all of it without a warm-up). */
sim_time_t vcpu_rs_measured(const struct vcpu *, enum runstate);
/* The warm-up ends now: the books so far become the base. */
void vcpu_rs_rebase(struct vcpu *, sim_time_t now);
const char *runstate_name(enum runstate);

#endif
