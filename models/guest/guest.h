/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * guest.h - what a vCPU's guest code is doing, and how it advances.
 *
 * Guest code runs only while its vCPU is running (DESIGN.md, "The guest
 * execution model").  An activity is one of:
 *   work  - a stretch of computation (or time spent in the hypervisor on the
 *           vCPU's behalf); advances at the pCPU's rate, slower when an SMT
 *           sibling is busy; the unfinished rest is kept across preemption;
 *   spin  - waiting for a lock word to change; consumes the pCPU, makes no
 *           progress; one event at most (the spin budget, or the moment the
 *           change is seen), never one per iteration;
 *   mem   - streaming bytes to or from memory; advances at min(the core's
 *           bandwidth, the socket's bandwidth / the vCPUs of that socket
 *           streaming now), re-rated whenever one starts or stops;
 *   halt  - blocked in the hypervisor until woken.
 * Lock-holder and lock-waiter preemption follow from this one rule; nothing
 * special-cases them.
 */
#ifndef VS_GUEST_H
#define VS_GUEST_H

#include <math.h>
#include <stdint.h>

#include "hv/hv_io.h"

struct vcpu;
struct glock;

typedef void (*guest_fn)(struct vcpu *);
/* a vCPU's next timer deadline (SIM_NEVER: none) */
typedef int64_t (*guest_time_fn)(const struct vcpu *);	/* a sim_time_t */

#define GUEST_FOREVER INFINITY

/* Called by the hv core, through this table (hv.h: struct hv_guest_ops). */
extern const struct hv_guest_ops guest_hv_ops;
void guest_attach(struct vcpu *);
void guest_detach(struct vcpu *);
void guest_run(struct vcpu *, double overhead_ns);	/* got a pCPU */
void guest_stop(struct vcpu *);				/* lost it */
void guest_rerate(struct vcpu *);			/* sibling load changed */
void guest_woken(struct vcpu *);			/* hv_wake */

/* Called by locks and workloads. */
/* A thread is ready: first runs as soon as the vCPU has a pCPU. */
void guest_begin(struct vcpu *, guest_fn first);
void guest_work(struct vcpu *, double ns, guest_fn done);
/* Work of ns, then a second segment, then done: one activity of two
 * segments, each ending as guest_work's would.  At the boundary mid runs in
 * place of done's step: it did that step's part and returns the second
 * segment's ns (a draw, finite: the step draws it there); or < 0, it did
 * nothing and done runs after all (no second segment).  at is the
 * boundary's time: the clock may still read the call's (mid runs there when
 * nothing can come in between, guest_tail_then). */
typedef double (*guest_mid_fn)(struct vcpu *, int64_t at);	/* a sim_time_t */
void guest_work_then(struct vcpu *, double ns, guest_mid_fn mid, guest_fn done);
/* The caller is the continuation of v's work-done event (guest_tail_take)
 * and ends with the lock call it makes now: nothing of the event runs after
 * that call's guest_work_then, which may take its boundary at once. */
void guest_tail_then(struct vcpu *);
/* guest_tail_take, and guest_tail_then if it says 1 (a lock call's tail:
 * one call, so v's state is not loaded again between the two stores) */
void guest_tail_take_then(struct vcpu *, guest_fn f);
/* Busy on the CPU until the simulated clock reads until (ns), preempted or
 * not (a delay loop on rdtsc); then done.  A preemption keeps nothing of it
 * (guest_save gives rem 0): done's caller re-enters with the same deadline. */
void guest_busy_until(struct vcpu *, int64_t until, guest_fn done);
/*
 * What this layer asks of the lock a vCPU spins on (lock.c fills it in), so
 * that guest.c never includes lock.h: whether a spinner that saw the word
 * change now owns the lock (it then has a new activity), whether one that
 * got its pCPU back would see a change worth acting on, how long v takes to
 * see the word as last written, and (spinning) that v now spins on it on a
 * pCPU, or no longer (the lock counts its spinners by place).
 */
struct guest_watch_ops {
	int (*observe)(struct glock *, struct vcpu *);
	int (*ready)(struct glock *, struct vcpu *);
	double (*seen_ns)(const struct glock *, const struct vcpu *);
	void (*spinning)(struct glock *, struct vcpu *, int on);
};
/* Spin watching lock l; after budget_ns of running spin, call on_budget. */
void guest_spin(struct vcpu *, struct glock *l, const struct guest_watch_ops *,
    double budget_ns, guest_fn on_budget);
/* Spin (PAUSE loop, seen by PLE) until guest_spin_met; then call seen.  The
 * vCPU takes interrupts meanwhile (csd_lock_wait runs with them enabled). */
void guest_spin_wait(struct vcpu *, guest_fn seen);
/* The condition v waits on holds; v sees it latency_ns later, or when it next
 * enters the guest if it is not running. */
void guest_spin_met(struct vcpu *, double latency_ns);
int guest_is_cond_spinning(const struct vcpu *);
/* Start loading the lines a poke of v touches (its activity, its pCPU):
 * a lock that knows who comes next calls it a hand-over early. */
void guest_prefetch(const struct vcpu *);
/* The word a spinning vCPU watches has changed; it sees it latency_ns later. */
void guest_poke(struct vcpu *, double latency_ns);
/* guest_poke of a v the caller found guest_is_running && guest_is_spinning:
 * guest_poke's own test of that not made again; latency_ns >= 0 */
void guest_poke_spinner(struct vcpu *, double latency_ns);
/* Stream bytes through the socket's shared memory bandwidth. */
void guest_memory(struct vcpu *, double bytes, guest_fn done);
/* Bytes per ns v streams at now (0 unless it is streaming on a pCPU). */
double guest_mem_rate(const struct vcpu *);
/* HLT after pre_ns of the guest's own work: the HLT exit's cost (none on
 * bare metal), then block until hv_wake; then call on_wake. */
void guest_halt(struct vcpu *, double pre_ns, guest_fn on_wake);
/* The same HLT with interrupts enabled (a lock's slow path, safe_halt): a
 * kick or an interrupt ends it (one pending before it: no sleep); the
 * interrupt's handler runs, then on_wake, which must treat a wake without
 * its turn as spurious. */
void guest_halt_irqs(struct vcpu *, double pre_ns, guest_fn on_wake);
/* A device access or hypercall: the path of hv/hv_io.h (an exit handled in
 * the kernel or forwarded to user space, or on bare metal no exit); costs
 * from the machine. */
void guest_io(struct vcpu *, enum guest_io, guest_fn done);
/* Idle for ns: HLT with interrupts on; an interrupt before then runs its
 * handler and the vCPU halts again; then done. */
void guest_sleep(struct vcpu *, double ns, guest_fn done);
/* The guest idle loop's HLT (safe_halt): a kick or an interrupt ends it. */
void guest_idle_halt(struct vcpu *, double pre_ns, guest_fn on_wake);
/* The guest idle loop's polling (cpuidle-haltpoll): busy in guest mode for
 * up to ns of wall time, or until an interrupt; then done. */
void guest_poll(struct vcpu *, double ns, guest_fn done);
/* Did the last guest_poll end by an interrupt (else by its limit)? */
int guest_poll_interrupted(const struct vcpu *);
/* pCPU time v has spent in guest polls (preempted time not counted). */
double guest_polled_ns(const struct vcpu *);
/*
 * An interrupt for v.  It wakes an idle halt or poll; on a vCPU running guest
 * code it enters the hook at once, and it ends a guest_halt_irqs; otherwise
 * (preempted by the host, halted in a lock's slow path with interrupts off,
 * inside an exit) it waits and enters the hook when the
 * vCPU next runs guest code.
 */
void guest_interrupt(struct vcpu *);
/* Interrupts disabled (raw_spin_lock_irqsave) and enabled again: one
 * raised meanwhile waits (as for a preempted vCPU) and enters the hook at
 * guest_irqs_on, or when its activity next can take it. */
void guest_irqs_off(struct vcpu *);
void guest_irqs_on(struct vcpu *);
/* Where an interrupt sent now would find v (the host's delivery, ipi.c):
 * running guest code (or polling in it), halted so that it wakes, or neither
 * (preempted, halted with interrupts off): it waits as guest_interrupt says. */
enum guest_irq_at { GI_RUNNING, GI_WAKES, GI_WAITS };
enum guest_irq_at guest_irq_at(const struct vcpu *);
/* Whether an interrupt raised now only waits for v's next guest_run, with no
 * other effect: v is off its pCPU, neither halted nor polling. */
int guest_irq_deferred(const struct vcpu *);
void guest_set_irq_hook(struct vcpu *, guest_fn hook);
/* The kernel's lazy ticks (kernel.c tick_lazy): the guest is quiet (spins
 * without an end, interrupts on, nothing pending); it is told its ticks
 * stand as a ghost, calls the sync hook before its state is read or
 * changed, and is told what they did (the last one's time, its exit's ns,
 * how many). */
void guest_set_sync_hook(struct vcpu *, guest_fn hook);
int guest_tick_quiet(const struct vcpu *);
void guest_tick_lazy(struct vcpu *);
void guest_tick_replay(struct vcpu *, int64_t last, double exit_ns, uint64_t n);
struct ffs;
/* v's guest state in a snapshot of a periodic run (ring_ff.c, ffsnap.h) */
void guest_ffs(struct ffs *, struct vcpu *);
/* The kernel's next timer on the vCPU, for the host's idle governor
 * (hv_guest_ops.next_timer). */
void guest_set_timer_hook(struct vcpu *, guest_time_fn hook);
/* Called on every VM entry before guest code runs (KVM's entry requests). */
void guest_set_entry_hook(struct vcpu *, guest_fn hook);
/* Called when the host takes the vCPU's pCPU. */
void guest_set_stop_hook(struct vcpu *, guest_fn hook);
/* Stop the current work or memory activity; what was left and its
 * continuation are returned (1 if it was memory, 0 work) to resume later. */
int guest_save(struct vcpu *, double *rem, guest_fn *cont);
/* ns of guest time (an interrupt's handler) before the activity goes on. */
double guest_overhead(struct vcpu *, double ns);	/* ns until all of it is paid */
/* Wake a halted vCPU, or make its next halt return at once. */
void guest_kick(struct vcpu *);
/* The workload has finished on this vCPU. */
void guest_finish(struct vcpu *);
int guest_is_spinning(const struct vcpu *);
int guest_is_running(const struct vcpu *);
int guest_is_halted(const struct vcpu *);
/* Halted and halt-polling on its pCPU (not yet blocked). */
int guest_is_polling(const struct vcpu *);
/* The hypervisor ends a halt-poll early (KVM kvm_vcpu_can_poll): block now. */
void guest_poll_stop(struct vcpu *);
/* A take of the lock v spins on stopped counting it (lock.c enter): the
 * spin's end need not tell the lock again. */
void guest_spin_uncounted(struct vcpu *);
/* The lock v last spun on (and may now be halted for). */
struct glock *guest_lock(const struct vcpu *);

/* The lock whose acquire v last entered (NULL before any).  Per vCPU: a task
 * that takes a spinlock keeps its vCPU until it releases it. */
struct glock *guest_acquiring(const struct vcpu *);
void guest_set_acquiring(struct vcpu *, struct glock *);

/*
 * The loop fast-forward (issue 13).  A step of a loop body the guest can
 * repeat exactly: io < 0, work of ns nominal ns (gk_compute); else an exit of
 * kind io (enum guest_io, at guest_io's cost).
 */
struct guest_step {
	int io;
	double ns;
};
#define GUEST_FF_STEPS 8
/* 1 if f is being called by v's work-done event as the last thing that event
 * does; it tells only the first caller that asks (the flag is cleared). */
int guest_tail_take(struct vcpu *, guest_fn f);
/* From that continuation, with v between two iterations of a body of n steps:
 * take up to max whole iterations as the slow path would (the time, the exit
 * counts, their probes); returns how many (0: none, go on slowly).  The
 * caller accounts for what its own steps do (counters). */
int64_t guest_loop_ff(struct vcpu *, const struct guest_step *, int n, int64_t max);

/* Per-vCPU workload state lives beside the activity. */
void *guest_wl(struct vcpu *);
void guest_set_wl(struct vcpu *, void *);
/* ... and so does the guest kernel's per-CPU state (kernel.c), which it
 * reads at every event: one load from here, prefetched when an event fires. */
void *guest_kcpu(const struct vcpu *);
void guest_set_kcpu(struct vcpu *, void *);

#endif
