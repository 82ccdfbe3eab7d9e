/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * probe.h - a hook that sees model events as they happen.
 *
 * Tests use it to check invariants from outside (FIFO order, mutual
 * exclusion); the timeline exporter will use it to write traces.  With no
 * probe attached the cost is one pointer test.
 */
#ifndef VS_PROBE_H
#define VS_PROBE_H

#include "evq.h"

enum probe_kind {
	PR_LOCK_WAIT,		/* vcpu entered acquire() of lock */
	PR_LOCK_TAKEN,		/* vcpu owns lock */
	PR_LOCK_RELEASE,	/* vcpu released lock */
	PR_RUNSTATE,		/* vcpu changed runstate to aux on pcpu */
	PR_HALT,		/* vcpu halted (HLT exit done) */
	PR_KICK,		/* vcpu kicked aux (a vCPU id) */
	PR_SPIN_START,		/* vcpu started spinning on lock */
	PR_SPIN_END,		/* vcpu stopped spinning (took it, halts, gave up) */
	PR_HLT_EXIT,		/* vcpu exited on HLT (counted in exits_hlt) */
	PR_PLE_EXIT,		/* vcpu exited on PAUSE-loop exiting */
	PR_IO_EXIT,		/* vcpu exited for I/O or a hypercall; aux: enum guest_io */
	PR_YIELD_TO,		/* vcpu's directed yield to aux (a vCPU id) succeeded */
	PR_WAKE,		/* vcpu was woken (blocked -> runnable) */
	PR_IPI_SEND,		/* vcpu sent an IPI to aux (a vCPU id) */
	PR_IPI_RECV,		/* vcpu ran a function call from aux (a vCPU id) */
	PR_IPI_WAIT_START,	/* vcpu waits for aux targets to run its function */
	PR_IPI_WAIT_END,	/* ... and has seen them all */
	PR_TLB_PV_FLUSH,	/* vcpu flushed its TLB on entry (a PV TLB flush request) */
	PR_SLOCK_WAIT,		/* a task waits for sleeping lock `lock`; aux: task id * 2 + read */
	PR_SLOCK_TAKEN,		/* ... owns it (a handoff: while it may still be asleep) */
	PR_SLOCK_RELEASE,	/* ... released it */
	PR_END,			/* the run ends (vcpu 0, pcpu -1) */
};

struct probe_ev {
	enum probe_kind kind;
	sim_time_t t;
	int vcpu;		/* global vCPU id */
	int pcpu;		/* -1 if none */
	const void *lock;	/* the struct glock, for lock events */
	int aux;
};

struct probe {
	void (*fn)(void *ctx, const struct probe_ev *);
	void *ctx;
};

#endif
