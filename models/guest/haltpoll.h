/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * haltpoll.h - the guest's cpuidle-haltpoll driver and its governor
 * (drivers/cpuidle/cpuidle-haltpoll.c, drivers/cpuidle/governors/haltpoll.c):
 * an idle vCPU polls in guest mode (state 0, poll_state.c) for up to a
 * per-vCPU poll_limit_ns before it halts (state 1, HLT), and the limit adapts
 * after each halt to how long the halt lasted.  kernel.c runs the idle loop;
 * this file holds the governor's choice and its bookkeeping only.
 */
#ifndef VS_HALTPOLL_H
#define VS_HALTPOLL_H

/* The governor's module parameters (scenario.c's guest halt_poll rows). */
struct ghp_cfg {
	double max_ns;		/* guest_halt_poll_ns; 0: the driver is not loaded */
	int grow;		/* guest_halt_poll_grow */
	double grow_start_ns;	/* guest_halt_poll_grow_start */
	int shrink;		/* guest_halt_poll_shrink */
	int allow_shrink;	/* guest_halt_poll_allow_shrink */
};

/* One vCPU's cpuidle_device as the governor sees it. */
struct ghp_cpu {
	double limit_ns;	/* dev->poll_limit_ns */
	int last_poll;		/* dev->last_state_idx == 0 */
	int time_limit;		/* dev->poll_time_limit: the last poll ran out */
};

enum ghp_state { GHP_POLL, GHP_HALT };

/* The next state of an idle pass (haltpoll_select). */
enum ghp_state ghp_select(const struct ghp_cfg *, const struct ghp_cpu *);
/* A pass ended in state s; a halt lasted residency_ns (haltpoll_reflect). */
void ghp_reflect(const struct ghp_cfg *, struct ghp_cpu *, enum ghp_state s,
    double residency_ns);

#endif
