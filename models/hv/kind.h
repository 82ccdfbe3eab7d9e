/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * kind.h - what kind of hypervisor: the mechanisms that differ between KVM,
 * Xen and bare metal, as an ops table (the host scheduler is separate).
 *
 * Pause-loop exiting (the window, and what the PLE exit handler does),
 * halt polling, the vCPU scheduling hooks KVM uses for them (preempted and
 * ready flags, vmx_sched_in), and the host side of PV hypercalls.
 * Optional hooks may be NULL; callers reach those through the named
 * wrappers below (Xen private.h), so the NULL test sits in one place.
 */
#include <stdio.h>

#ifndef VS_KIND_H
#define VS_KIND_H

#include "param.h"
#include "util.h"

struct hv;
struct vcpu;
struct vm;
struct yc_node;
struct machine;
struct metrics;

/*
 * How the host delivers a guest's IPI (models/guest/ipi.c asks; README
 * "IPIs"): whether the guest's APIC writes and hypercalls exit at all (bare
 * metal: none), posted interrupts (a running target takes the interrupt
 * without an exit; EOI virtualised), IPI virtualization (a physical unicast
 * ICR write does not exit), Xen's PV IPIs over event channels (a hypercall
 * per destination), KVM's PV send-IPI hypercall offered, and the host's work per destination in the sender's
 * exit, in cache lines of the target's state it touches and locked RMWs.
 */
struct hv_ipi_path {
	int exits, posted, ipiv, evtchn;
	int pv_send_ipi;	/* the host offers KVM_HC_SEND_IPI (KVM_FEATURE_PV_SEND_IPI) */
	int deliver_lines, deliver_atomics;
	/* The guest's timer is Xen's (VCPUOP_set_singleshot_timer, VIRQ_TIMER),
	 * not the LAPIC's: its re-arm is a hypercall (kernel.c timer_exits). */
	int pv_timer;
};

struct hv_kind_ops {
	const char *name;
	const char *desc;
	/* 1: no hypervisor (bare metal): no VM exits, HLT/MWAIT idles the pCPU
	 * into a C-state, a wake is an IPI (models/README.md). */
	int native;
	/* Its keys of the hypervisor mapping (param.h), or NULL. */
	const struct vs_param *params;
	/* An ioeventfd write needs no decode (hv/hv_io.h); a device access
	 * exits on every kind but a native one. */
	int fast_mmio;
	/* Read kind-specific keys of the hypervisor mapping (ple: ...). */
	int (*parse)(const struct yc_node *hv, const struct machine *, void **cfg,
	    struct vs_err *);
	void (*free_cfg)(void *cfg);
	/* Per-run state (hv->kind_priv) and per-vCPU state (v->kind_priv). */
	void (*init)(struct hv *, const void *cfg);
	void (*deinit)(struct hv *);
	/* Spin time (ns) before a PAUSE-loop exit; 0 = no PLE. */
	double (*ple_window)(struct hv *, struct vcpu *);
	/* Optional: 1 if ple_window gives 0 to every vCPU for the whole run
	 * (PLE off in the configuration), so that a spin need not ask it
	 * (guest.c guest_begin asks it once, spin_window reads it); NULL: 0. */
	int (*ple_off)(struct hv *);
	/* A PLE exit happened (its cost is charged by the caller); required
	 * with ple_window. */
	void (*ple_exit)(struct hv *, struct vcpu *);
	/* The exit handling is over; the vCPU is back in the guest: the new
	 * entry's window, as ple_window would give it (one call a re-entry). */
	double (*ple_done)(struct hv *, struct vcpu *);
	/* Optional: 1 if what ple_done changes but its answer is read by
	 * nobody, so that a call made early (guest.c ple_in_late: at the
	 * switch-in, for the exit's end) is the same as one made in time
	 * (NULL: 0; a kind without ple_done: 1). */
	int (*ple_done_quiet)(struct hv *);
	/* Optional, for the PLE fast-forward (guest.c ple_fast_forward): right
	 * after ple_exit, >= 0 if that exit changed nothing but counters (no
	 * yield, the window as it was, no other vCPU's state), so that with
	 * nothing else happening the next exit does exactly the same; -1 if not. */
	int (*ple_repeatable)(struct hv *, struct vcpu *);
	/* ... then n more such exits (each after a ple_done) happen at once:
	 * their counters, and the state after the last ple_exit (required with
	 * ple_repeatable). */
	void (*ple_repeat)(struct hv *, struct vcpu *, uint64_t n);
	/* A halt begins: how long the vCPU polls before it blocks (0: it blocks
	 * at once).  Called once per halt. */
	double (*halt_poll)(struct hv *, struct vcpu *);
	/* The halt is over, the vCPU runs guest code again: halt_ns since it
	 * began, poll_ns of pCPU time spent polling, waited: it really slept. */
	void (*halt_end)(struct hv *, struct vcpu *, double halt_ns, double poll_ns,
	    int waited);
	/* The host switches a pCPU from prev to next (either NULL: idle, not
	 * both; prev != next), after prev's runstate and before next runs. */
	void (*sched_switch)(struct hv *, struct vcpu *prev, struct vcpu *next);
	/* hv_wake woke a sleeping vCPU. */
	void (*wake)(struct hv *, struct vcpu *);
	/* Host side of a PV kick (KVM_HC_KICK_CPU), after the kick is delivered. */
	void (*pv_kick)(struct hv *, struct vcpu *from, struct vcpu *to);
	/* How IPIs are delivered (NULL: bare metal, no exits, the APIC's own). */
	void (*ipi_path)(const struct hv *, struct hv_ipi_path *);
	/* Host side of KVM_HC_SCHED_YIELD: from asks to yield to `to`; >0 yielded. */
	int (*sched_yield)(struct hv *, struct vcpu *from, struct vcpu *to);
	/* Kind-specific metrics of a finished run, since hv->stats_from. */
	void (*metrics)(struct hv *, struct metrics *);
	/* The warm-up ends (hv_stats_reset): zero what metrics reports. */
	void (*stats_reset)(struct hv *);
	/* `vlocksim list`: the kind's keys, versions and defaults with sources. */
	void (*list)(FILE *);
};

/* Read the kind's keys of the hypervisor mapping (none: no config). */
static inline int
kind_op_parse(const struct hv_kind_ops *o, const struct yc_node *hv, const struct machine *m,
    void **cfg, struct vs_err *err)
{
	return o->parse != NULL ? o->parse(hv, m, cfg, err) : 0;
}

static inline void
kind_op_free_cfg(const struct hv_kind_ops *o, void *cfg)
{
	if (o->free_cfg != NULL)
		o->free_cfg(cfg);
}

static inline void
kind_op_deinit(const struct hv_kind_ops *o, struct hv *hv)
{
	if (o->deinit != NULL)
		o->deinit(hv);
}

static inline void
kind_op_init(const struct hv_kind_ops *o, struct hv *hv, const void *cfg)
{
	if (o->init != NULL)
		o->init(hv, cfg);
}

/* 0: no PLE */
static inline double
kind_op_ple_window(const struct hv_kind_ops *o, struct hv *hv, struct vcpu *v)
{
	return o->ple_window != NULL ? o->ple_window(hv, v) : 0;
}

/* whether every ple_window of the run is 0 (hv_kind_ops) */
static inline int
kind_op_ple_off(const struct hv_kind_ops *o, struct hv *hv)
{
	return o->ple_window == NULL || (o->ple_off != NULL && o->ple_off(hv));
}

/* the new entry's window (0: no PLE) */
static inline double
kind_op_ple_done(const struct hv_kind_ops *o, struct hv *hv, struct vcpu *v)
{
	return o->ple_done != NULL ? o->ple_done(hv, v) : kind_op_ple_window(o, hv, v);
}

/* whether a late ple_done is the same as one in time (hv_kind_ops) */
static inline int
kind_op_ple_done_quiet(const struct hv_kind_ops *o, struct hv *hv)
{
	return o->ple_done == NULL || (o->ple_done_quiet != NULL && o->ple_done_quiet(hv));
}

/* -1 (not repeatable) where the kind has no PLE fast-forward */
static inline int
kind_op_ple_repeatable(const struct hv_kind_ops *o, struct hv *hv, struct vcpu *v)
{
	return o->ple_repeatable != NULL ? o->ple_repeatable(hv, v) : -1;
}

/* 0: the vCPU blocks at once */
static inline double
kind_op_halt_poll(const struct hv_kind_ops *o, struct hv *hv, struct vcpu *v)
{
	return o->halt_poll != NULL ? o->halt_poll(hv, v) : 0;
}

static inline void
kind_op_halt_end(const struct hv_kind_ops *o, struct hv *hv, struct vcpu *v, double halt_ns,
    double poll_ns, int waited)
{
	if (o->halt_end != NULL)
		o->halt_end(hv, v, halt_ns, poll_ns, waited);
}

static inline void
kind_op_sched_switch(const struct hv_kind_ops *o, struct hv *hv, struct vcpu *prev,
    struct vcpu *next)
{
	if (o->sched_switch != NULL)
		o->sched_switch(hv, prev, next);
}

static inline void
kind_op_wake(const struct hv_kind_ops *o, struct hv *hv, struct vcpu *v)
{
	if (o->wake != NULL)
		o->wake(hv, v);
}

static inline void
kind_op_pv_kick(const struct hv_kind_ops *o, struct hv *hv, struct vcpu *from,
    struct vcpu *to)
{
	if (o->pv_kick != NULL)
		o->pv_kick(hv, from, to);
}

/* Bare metal where the kind says nothing: a CPU's APIC sends and takes
 * IPIs itself, no exit, no host work. */
static inline struct hv_ipi_path
kind_op_ipi_path(const struct hv_kind_ops *o, const struct hv *hv)
{
	struct hv_ipi_path p = { 0, 0, 0, 0, 0, 0, 0, 0 };

	if (o->ipi_path != NULL)
		o->ipi_path(hv, &p);
	return p;
}

/* >0 yielded; 0 where the kind has no PV sched_yield */
static inline int
kind_op_sched_yield(const struct hv_kind_ops *o, struct hv *hv, struct vcpu *from,
    struct vcpu *to)
{
	return o->sched_yield != NULL ? o->sched_yield(hv, from, to) : 0;
}

static inline void
kind_op_metrics(const struct hv_kind_ops *o, struct hv *hv, struct metrics *m)
{
	if (o->metrics != NULL)
		o->metrics(hv, m);
}

/* `vlocksim list`: the kind's tables beyond one parameter a line; none: nothing. */
static inline void
kind_op_list(const struct hv_kind_ops *o, FILE *out)
{
	if (o->list != NULL)
		o->list(out);
}

static inline void
kind_op_stats_reset(const struct hv_kind_ops *o, struct hv *hv)
{
	if (o->stats_reset != NULL)
		o->stats_reset(hv);
}

/* The kinds, one file each (kind_NAME.c); models/registry.c lists them. */
extern const struct hv_kind_ops kind_kvm_ops;
extern const struct hv_kind_ops kind_xen_ops;
extern const struct hv_kind_ops kind_none_ops;

#endif
