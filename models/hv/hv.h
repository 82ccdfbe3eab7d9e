/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * hv.h - the hypervisor core: pCPUs, VMs, vCPUs and context switches.
 *
 * The core does the mechanics every host scheduler shares (Xen's
 * schedule.c, Linux's __schedule): it runs the SCHEDULE softirq on a pCPU,
 * switches vCPUs in and out, keeps runstates, and tells the guest layer when
 * its vCPU gains or loses the pCPU.  Policy lives behind struct sched_ops.
 */
#ifndef VS_HV_H
#define VS_HV_H

#include <stdint.h>

#include "engine.h"
#include "probe.h"
#include "hw/machine.h"
#include "hv/hv_io.h"
#include "hv/kind.h"
#include "hv/sched.h"
#include "hv/vcpu.h"

/* What a pCPU is doing, as its SMT siblings feel it. */
enum hw_load { LOAD_IDLE, LOAD_SPIN, LOAD_BUSY };

struct pcpu {
	/* What a hand-over reads of a waiter's pCPU and of the lock's last
	 * writer's, in the struct's first line (line-aligned: hv.c
	 * hv_init), where with 304 bytes a pCPU 3 of 4 had socket or load in
	 * a second line (a miss more at a hand-over with 1024 vCPUs):
	 * pcpu_dist's core and socket, the load and SMT a poke of its
	 * spinner reads (guest.c poke_plain), its row of line costs. */
	_Alignas(64) int core;	/* machine_core_of(id) */
	int socket;		/* machine_socket_of(id) */
	enum hw_load load;
	int smt;		/* it has SMT siblings, whose rate its load sets */
	/* The cost of a line written here, by distance (pcpu_line_ns): the
	 * machine's line_ns; hv->nowhere, the pCPU of a line nobody has
	 * written, has all of them local, so a cost tests no NULL */
	const double *line_ns;
	struct hv *hv;
	struct vcpu *curr;	/* NULL: idle */
	struct pcpu *sib;	/* two threads a core: the other (else NULL) */
	double rate;		/* hv_rate of a vCPU here: its siblings' loads, kept current */
	evq_id sched_ev;	/* pending SCHEDULE softirq */
	int id;			/* (in sched_ev's padding) */
	sim_time_t sched_at;
	int sched_now;		/* ... raised for now, held by sim_defer (no id) */
	evq_id slice_ev;
	evq_id tick_ev;
	sim_time_t tick_at;	/* when tick_ev fires */
	sim_time_t tick_base;	/* its first tick; the grid is tick_ns apart from there */
	uint64_t ticks_ran;	/* its ticks that ran (tick_skip; hv_finish counts the rest) */
	/* The next tick is armed by the schedule (tick_recheck): held, not yet
	 * pushed, by a tick whose reschedule runs now; due, for a change
	 * inside schedule() (hv_tick_soon), with what tick_next will say, if
	 * the policy gave it (hv_tick_soon_at; 0: not given). */
	unsigned char tick_held, tick_due, scheduling;
	sim_time_t tick_hint;
	void *sched_priv;
	sim_time_t busy_since;
	sim_time_t busy_time;
	/* Idle (hv_idle.c): idle since when, its time in C-states, the wakes
	 * that left one and the governor's history. */
	int idle;		/* no vCPU to run since idle_since */
	sim_time_t idle_since;
	sim_time_t awake_at;	/* leaving a C-state until then (0: not) */
	sim_time_t cstate_time;
	uint64_t cstate_wakes;	/* wakes that left a C-state */
	double cstate_exit_ns;	/* the exit latencies they paid */
	/* The same at the warm-up's end (hv_idle_rebase), subtracted by metrics. */
	sim_time_t cstate_time0;
	uint64_t cstate_wakes0;
	double cstate_exit_ns0;
	int64_t hist[8];	/* menu.c intervals[]: the last idle periods (ns) */
	int hist_i;
	/* Blocked vCPUs whose timer is armed here (hv.c park), and the earliest
	 * deadline among them: the idle governor's next timer event. */
	LIST_HEAD(vcpu_parks, vcpu) parked;
	sim_time_t timer_at;
};

/* A VM's cgroup v2 cpu controller (used by the fair schedulers' groups). */
struct vm_cgroup {
	long weight;		/* cpu.weight, 1..10000, default 100 */
	int64_t quota, period;	/* cpu.max in ns; quota < 0: "max" (no limit) */
	const char *where;	/* "file:line:col" if the scenario gave one, else NULL */
	const char *name;	/* VMs naming one group share it; NULL: a group of its own */
	int gid;		/* the fair schedulers' task group (set by them) */
};

struct vm {
	struct hv *hv;
	int id;
	char *name;
	int nvcpus;
	struct vcpu **vcpus;
	void *guest;		/* the workload layer's per-VM data (locks, counters) */
	void *kernel;		/* the guest kernel's (struct gkernel) */
	const char *where;	/* "file:line:col" of its scenario entry, for errors */
	unsigned char *affinity;	/* its vCPUs' pCPUs, one byte each, shared by them */
	struct vm_cgroup cg;
};

struct hv_stats {
	uint64_t ctx_switches, wakes, blocks, yields, yield_to_ok, yield_to_fail;
	uint64_t exits_hlt, exits_hypercall, exits_ple, exits_io, exits_ipi, exits_timer;
	double io_ns;			/* vCPU time spent in I/O exits */
	uint64_t io_path[IOP_N];	/* device accesses and hypercalls by path (hv_io.h) */
	uint64_t halt_polls_ok;		/* halts ended by an event while polling */
	uint64_t exits_ple_bulk;	/* of exits_ple, those the fast-forward took in bulk */
	uint64_t ticks_skipped;		/* host ticks not simulated (hv_tick_ev) */
};

/*
 * The guest layer's entry points (models/guest/guest.c fills the table in):
 * the hv core and the hypervisor kinds call up only through it.
 */
struct hv_guest_ops {
	void (*attach)(struct vcpu *);
	void (*detach)(struct vcpu *);
	void (*run)(struct vcpu *, double overhead_ns);	/* got a pCPU */
	void (*stop)(struct vcpu *);			/* lost it */
	void (*rerate)(struct vcpu *);			/* sibling load changed */
	void (*woken)(struct vcpu *);			/* hv_wake */
	int (*is_halted)(const struct vcpu *);		/* blocked in HLT (not done) */
	int (*is_polling)(const struct vcpu *);		/* halted, polling on its pCPU */
	void (*poll_stop)(struct vcpu *);		/* end the poll: block now */
	void (*kick)(struct vcpu *);			/* a PV kick (KVM_HC_KICK_CPU) */
	/* its next timer interrupt (its LAPIC deadline), SIM_NEVER if none; NULL: none */
	sim_time_t (*next_timer)(const struct vcpu *);
	void (*kept)(struct vcpu *);	/* its pCPU's schedule kept it (NULL: nothing) */
};

struct hv {
	struct sim *sim;
	const struct hv_guest_ops *gops;
	const struct machine *m;
	const struct sched_ops *sched;
	void *sched_priv;
	const struct hv_kind_ops *kind;	/* KVM, Xen, bare metal */
	void *kind_priv;
	sim_time_t tick_ns;	/* set by the scheduler's init if it has a tick */
	int tick_lane;		/* the event queue's FIFO lane for the ticks */
	/* Set by the scheduler's init if ticks that can change nothing may be
	 * skipped this run (sched_ops.tick_next says until when). */
	int tick_skip;
	int npcpus;
	struct pcpu *pcpus;
	/* The pCPU of a line nobody has written yet (a new lock's word and
	 * data): a line from it is local at every distance (hv_init), so a
	 * line cost (pcpu_line_ns) tests no NULL; core and socket -1 are no
	 * pCPU's, and it is in no list of the machine's. */
	struct pcpu *nowhere;
	int nvcpus;
	struct vcpu **vcpus;
	int nvms;
	struct vm **vms;
	struct hv_stats st;
	sim_time_t stats_from;	/* when the books were last reset (the warm-up's end; 0) */
	void *guest;		/* the guest layer's per-run data */
	int *mem_streamers;	/* per socket: vCPUs streaming memory there (guest.c) */
	const struct probe *probe;	/* NULL: nobody watches */
	int check;		/* run_opts.check: 3 (--check=full) adds the costly invariants */
	int fast_forward;	/* exact shortcuts on (scenario key fast_forward; 0: the slow
				 * path, the reference) */
	double load_rate[3];	/* a pCPU's speed while its busiest sibling has load l */
};

/* Tell the probe, if any, of an event at time t (a fast-forward's past steps). */
static inline void
hv_probe_at(const struct hv *hv, sim_time_t t, enum probe_kind k, int vcpu, int pcpu,
    const void *lock, int aux)
{
	if (hv->probe != NULL) {
		struct probe_ev e = { k, t, vcpu, pcpu, lock, aux };

		hv->probe->fn(hv->probe->ctx, &e);
	}
}

/* Tell the probe, if any. */
static inline void
hv_probe(const struct hv *hv, enum probe_kind k, int vcpu, int pcpu, const void *lock,
    int aux)
{
	hv_probe_at(hv, hv->sim->now, k, vcpu, pcpu, lock, aux);
}

void hv_init(struct hv *, struct sim *, const struct machine *, const struct sched_ops *,
    const struct hv_guest_ops *);
void hv_destroy(struct hv *);
/* Add a VM of n vCPUs; affinity: NULL = all pCPUs, else npcpus bytes. */
struct vm *hv_add_vm(struct hv *, const char *name, int nvcpus,
    const unsigned char *affinity, const char *where);
/* v's affinity, its own from now on, to be changed without its VM's
 * other vCPUs (a per-vCPU pin, xl vcpu-pin); it starts as the VM's. */
unsigned char *hv_vcpu_affinity(struct vcpu *v);
/* Hand the vCPUs to the scheduler and start the pCPUs. */
int hv_start(struct hv *, const void *sched_cfg, struct vs_err *);
/* Close runstate books at the end of the run. */
void hv_finish(struct hv *);
/*
 * A scenario's warm-up ends now (sim/scenario/run.c): the host's books (the
 * stats, each vCPU's runstate times as metrics see them, the kind's) start
 * again from zero; the model's own state is untouched.  The simulator's cost
 * counters (ticks_skipped) keep the whole run.
 */
void hv_stats_reset(struct hv *);
/* Simulated time the books cover: since the warm-up's end. */
sim_time_t hv_measured_ns(const struct hv *);

/* Raise the SCHEDULE softirq on p after delay (an earlier pending one stands). */
void hv_resched(struct pcpu *p, sim_time_t delay);
/* hv_tick_soon outside schedule(): pull the armed tick back (hv.c). */
void hv_tick_pull(struct pcpu *p);
/* p's scheduling state changed: its next tick is the next one on its grid.
 * Inside schedule() (a new curr, at every switch) that is a flag for
 * tick_recheck, which reads it only when ticks are skipped; t, if not 0, is
 * what sched_ops.tick_next returns in the state schedule() leaves after this,
 * the last change (tick_recheck takes it in place of asking; a later change
 * clears it). */
static inline void
hv_tick_soon_at(struct pcpu *p, sim_time_t t)
{
	if (!p->scheduling) {
		hv_tick_pull(p);
		return;
	}
	p->tick_due = 1;
	p->tick_hint = t;
}
/* hv_tick_soon_at, the answer not known */
static inline void
hv_tick_soon(struct pcpu *p)
{
	hv_tick_soon_at(p, 0);
}
/* The latest time <= t on p's tick grid. */
sim_time_t hv_tick_last(const struct pcpu *p, sim_time_t t);
/* Raise it on p from the current context: local now, remote after an IPI. */
void hv_tickle(struct hv *, struct pcpu *p);

/* The guest halts or waits: the vCPU blocks. */
void hv_block(struct vcpu *);
/* An event for a blocked vCPU: it becomes runnable (no-op if not blocked). */
void hv_wake(struct vcpu *);
void hv_yield(struct vcpu *);
int hv_yield_to(struct vcpu *from, struct vcpu *to);
/*
 * PV hypercalls a guest makes (the exit's cost is the caller's): kick a
 * halted vCPU (KVM_HC_KICK_CPU: deliver, then the kind's pv_kick), and ask
 * to yield to a vCPU (KVM_HC_SCHED_YIELD; >0: yielded).
 */
void hv_pv_kick(struct vcpu *from, struct vcpu *to);
int hv_pv_sched_yield(struct vcpu *from, struct vcpu *to);

/* pCPU p's load; its siblings are re-rated.  Inline so the usual cases (the
 * load it already has, no SMT) cost no call, at every guest step and switch;
 * kept this small, as a bigger body inlined at every step stops arm_work's
 * own inlining (lab-c t4/tas +2.0% instructions). */
void hv_set_pcpu_load(struct pcpu *, enum hw_load);
static inline void
hv_pcpu_load(struct pcpu *p, enum hw_load load)
{
	if (p->load == load)
		return;
	if (!p->smt)
		p->load = load;	/* no sibling to re-rate: all hv_set_pcpu_load does */
	else
		hv_set_pcpu_load(p, load);
}
/* The guest says what its running vCPU does. */
static inline void
hv_set_load(struct vcpu *v, enum hw_load load)
{
	if (v->pcpu != NULL)
		hv_pcpu_load(v->pcpu, load);
}
/* Speed of guest work on v's pCPU now (1 = nominal): its SMT siblings'
 * loads, kept per pCPU by hv_set_pcpu_load. */
static inline double
hv_rate(const struct vcpu *v)
{
	return v->pcpu->rate;
}

/* machine_dist of two pCPUs from the ids they keep: a line transfer to a
 * waiter reads its pCPU anyway, and the other end's pCPU ran the lock's last
 * holder, so no lookup in the machine's arrays (a cache miss each with 1024
 * pCPUs, bench/peer-ticket.yaml). */
static inline enum hw_dist
pcpu_dist(const struct pcpu *a, const struct pcpu *b)
{
	if (a == b)
		return HW_SAME;
	return MACHINE_DIST_IDS(a->core, b->core, a->socket, b->socket);
}

/* models/README.md's line_ns[distance]: a line last written on `from`,
 * read on `to` (both pCPUs; from's row: hv->nowhere's is local) */
static inline double
pcpu_line_ns(const struct pcpu *from, const struct pcpu *to)
{
	return from->line_ns[pcpu_dist(from, to)];
}

/* Bare metal (kind none): no VM exits; the guest's HLT/MWAIT idles the pCPU. */
static inline int
hv_native(const struct hv *hv)
{
	return hv->kind->native;
}

/* hv_idle.c: p has nothing to run: an idle period begins. */
void hv_idle_enter(struct hv *, struct pcpu *p);
/* An idle p is asked to schedule: 1 while it leaves its C-state (the
 * SCHEDULE softirq is re-armed for the end of the exit latency), 0 when it
 * may schedule now. */
int hv_idle_waking(struct hv *, struct pcpu *p);
/* Close the idle books at the end of the run. */
void hv_idle_finish(struct hv *, struct pcpu *p);
/* hv_idle.c: the warm-up ends: p's C-state books so far, as a base. */
void hv_idle_rebase(struct hv *, struct pcpu *p);

#endif
