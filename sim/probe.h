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
