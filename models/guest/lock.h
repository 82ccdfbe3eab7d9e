/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * lock.h - guest spinlocks: the ops table and the glue all algorithms share.
 *
 * One file per algorithm fills in a const struct lock_ops, the way Linux's
 * pv_lock_ops and Xen's struct scheduler are filled in.  An algorithm keeps
 * its lock word in its private data and drives its waiters through the guest
 * activities: lock_wait() to spin, guest_halt()/guest_kick() for the
 * paravirtual slow path, lock_taken() when a vCPU owns the lock.
 *
 * Costs: taking a lock brings its lock word's cache line from the pCPU that
 * last wrote it; a spinner sees a release one line transfer after it; the
 * protected data (cs_lines lines) moves from the previous holder's pCPU.
 * With the machine's release_visibility, the release's store must first own
 * the word's line: if another CPU wrote it (an RMW of a newcomer) or reads
 * it (a waiter spinning on the word: ops->reads_word) the store fetches it
 * back, and the waiters see the release one more transfer later; the same
 * holds for a store to a flag a waiter spins on in its own line (an MCS
 * node, a request record: lock_flag_ns), and for the store of a spinner
 * that read the released word and now takes the lock (lock_claim_ns).
 * A section may also stream: stream_lines more shared lines copied in one
 * burst, whose misses overlap up to the machine's mlp; word_lines of its
 * data may sit in the lock word's own line (they come with the lock, or
 * from whoever wrote the word last); and it may touch the requester's own
 * lines (req_lines one after another, then req_stream in a burst: its
 * per-CPU array), free when the requester runs its own section; a combiner
 * pays for them, and the requester pays again when it next touches them
 * (lock_reclaim_ns).
 *
 * A pool (the slab node's shared array_cache): the section moves one batch
 * into or out of a bounded pool the lock guards, each vCPU alternately
 * taking and putting.  A take from an empty pool or a put into a full one
 * takes the slow path instead of the copy: slow_lines of shared structures
 * chased one after another from the data's last writer, slow_word lines in
 * the lock word's line, and slow_ns of compute.
 */
#ifndef VS_LOCK_H
#define VS_LOCK_H

#include <stdint.h>

#include "guest/guest.h"
#include "evq.h"
#include "param.h"
#include "util.h"

struct glock;
struct pcpu;
struct vcpu;
struct vm;
struct hv;
struct hist;
struct ffs;
struct ring_ff;
struct yc_node;
struct machine;

struct lock_ops {
	const char *name;
	const char *desc;
	const struct vs_param *params;	/* optional, NULL-terminated (param.h) */
	/* Read algorithm parameters (NULL node: defaults). Optional. */
	int (*parse)(const struct yc_node *params, const struct machine *, void **cfg,
	    struct vs_err *);
	void (*free_cfg)(void *cfg);
	void *(*create)(struct glock *, const void *cfg);
	void (*destroy)(void *priv);
	/* Optional: priv, a lock's state, made in place (its allocations kept)
	 * what create would return for l, renewed in the same VM with cfg;
	 * NULL: lock_renew destroys priv and creates a new one. */
	void *(*renew)(struct glock *, void *priv, const void *cfg);
	/* Take the lock (lock_taken) or start waiting (lock_wait, halt...). */
	void (*acquire)(struct glock *, struct vcpu *);
	/* Instead of acquire (NULL): take the lock at once, returning what
	 * that costs (ns), or queue v and return -1: lock_acquire then spins
	 * it without limit.  A take at once skips the wait's bookkeeping. */
	double (*take)(struct glock *, struct vcpu *);
	/* Give it up; returns extra ns the releaser spends (a kick hypercall). */
	double (*release)(struct glock *, struct vcpu *);
	/* A spinner saw the lock word change: 1 if it now owns the lock. */
	int (*observe)(struct glock *, struct vcpu *);
	/* A spinner got its pCPU back: would it see a change worth acting on? */
	int (*ready)(struct glock *, struct vcpu *);
	/* 1 if v, waiting for the lock, spins reading the lock word (so its
	 * line is shared with v's pCPU), 0 if it spins on a line of its own (an
	 * MCS node).  NULL: every spinning waiter reads the word. */
	int (*reads_word)(const struct glock *, const struct vcpu *);
	/* 1: the algorithm runs critical sections itself (combining), so every
	 * section of a workload using it must be compute only (see
	 * wl_check_sections / wl_take_section). */
	int takes_sections;
	/* 1: waiters own the lock in the order they called acquire (a ticket
	 * lock); --check=full verifies it. */
	int fifo;
	/* Optional: what this configuration asks of a hypervisor (its PV kick's
	 * hypercall), or NULL; bare metal refuses it (scenario.c). */
	const char *(*needs_hv)(const void *cfg);
	/* Optional: the algorithm's state in a snapshot of a periodic run
	 * (ring_ff.c, ffsnap.h); NULL: such runs are not fast-forwarded. */
	void (*ffs)(struct ffs *, struct glock *);
};

/* The optional hooks, reached through these (the NULL test in one place). */
static inline int
lock_op_parse(const struct lock_ops *o, const struct yc_node *params,
    const struct machine *m, void **cfg, struct vs_err *err)
{
	return o->parse != NULL ? o->parse(params, m, cfg, err) : 0;
}

static inline void
lock_op_free_cfg(const struct lock_ops *o, void *cfg)
{
	if (o->free_cfg != NULL)
		o->free_cfg(cfg);
}

/* NULL where the algorithm runs as it is on bare metal */
static inline const char *
lock_op_needs_hv(const struct lock_ops *o, const void *cfg)
{
	return o->needs_hv != NULL ? o->needs_hv(cfg) : NULL;
}

static inline void
lock_op_destroy(const struct lock_ops *o, void *priv)
{
	if (o->destroy != NULL)
		o->destroy(priv);
}

/* The algorithms, one file each (lock_NAME.c); models/registry.c lists them. */
extern const struct lock_ops lock_ticket_ops;
extern const struct lock_ops lock_pvticket_ops;
extern const struct lock_ops lock_tas_ops;
extern const struct lock_ops lock_qspinlock_ops;
extern const struct lock_ops lock_pvqspinlock_ops;
extern const struct lock_ops lock_combining_ops;
extern const struct lock_ops lock_spinpark_ops;
extern const struct lock_ops lock_pmtticket_ops;
/* The native ticket lock's take, release and observe (lock_ticket_ops),
 * which lock_acquire, lock_release and the spin's watch run inline where a
 * lock's ops are these three (glock.tkt_native; ticket_word.h
 * tkt_lock_take, tkt_lock_release, tkt_lock_turn), not through the
 * pointers, as Linux patches its native pv_lock_ops in place of their
 * indirect calls (LNX-3.6
 * arch/x86/kernel/paravirt_patch_64.c, alternative.c apply_paravirt). */
double lock_ticket_take(struct glock *, struct vcpu *);
double lock_ticket_release(struct glock *, struct vcpu *);
int lock_ticket_observe(struct glock *, struct vcpu *);

struct glock_stats {
	/* (contended takes and their waits' sum: the wait histogram's
	 * samples not 0 and its sum, lock_contended, lock_wait_ns) */
	uint64_t acquisitions, kicks, halts;
	uint64_t slow;		/* sections that took the pool's slow path */
	uint64_t spurious;	/* halts woken without the waiter's turn (qspinlock_paravirt.h
				 * pv_spurious_wakeup) */
	/* lock_hold_clock when these began: the hold time since is derived
	 * when read (lock_hold_ns), not summed at every release */
	int64_t hold_base;
	/* Where the waits went (issue 28), summed over acquisitions: the part of
	 * each wait during which the lock's holder was preempted by the host
	 * (its vCPU runnable, not running: lock-holder preemption), and the part
	 * during which the lock was free and the next owner had not taken it yet
	 * (hand-over: a preempted or halted next waiter, its kick, the line);
	 * the rest the holder ran its section. */
	double wait_lhp_ns, wait_free_ns;
	double path_ns;		/* acquire() to the continuation past the release (interp.c) */
	struct hist *wait;		/* ns from acquire() to owning */
};

/* What the layer above (models/workload) gives its locks: hooks, so that
 * locks never include it. */
struct lock_client {
	guest_fn cont;				/* the caller goes on past acquire / release */
	/* As cont past a release, after ns of the caller's own work that is not
	 * part of the lock call's path (bringing its lines back). */
	void (*cont_after)(struct vcpu *, double ns);
	double (*take_section)(struct vcpu *);	/* takes_sections: v's section (ns), and
						 * moves v's program past its release */
	/* Optional: v has just taken or released the lock, whose own costs
	 * are ns: the caller runs them and goes on, in place of
	 * guest_work(v, ns, cont), so that it may start its next compute in
	 * the same activity (interp.c wl_lock_then: guest_work_then). */
	void (*then)(struct vcpu *, double ns);
	/* Optional: v's program state in a snapshot of a periodic run
	 * (ring_ff.c, ffsnap.h); NULL: such runs are not fast-forwarded. */
	void (*ffs)(struct ffs *, struct vcpu *);
};

/*
 * What the glue keeps per vCPU of the VM, one compact record each (as Linux
 * keeps a per-CPU qspinlock node, pv_node): not parallel arrays, so a
 * waiter's state is one line.
 */
struct lock_node {
	/* one line a vCPU (lock_new aligns the array): with a thousand vCPUs a
	 * node is out of cache when its vCPU next takes the lock */
	_Alignas(64) sim_time_t wait_since;	/* inside acquire since; -1 when not waiting */
	/* counted among the spinners on this pCPU (NULL: not): its socket and
	 * core are in its own first line, which a take has just read, where
	 * the machine's table of them was a line out of cache at 1024 vCPUs */
	const struct pcpu *spin_at;
	int spin_idx;		/* ... at this index of spinners[] (if listed) */
	int req_pcpu;		/* pCPU that last wrote its req_lines (-1 own) */
	unsigned char pool_put;	/* direction of its next pool section (1 put, 0 take) */
	unsigned char kick_ipi;	/* releasing: its kick is the guest's own wake IPI (lock_wake) */
	uint64_t lhp_at, free_at;	/* the lock's two wait clocks when its wait began */
	struct vcpu *kick_to;	/* releasing: the vCPU its unlock kicks (lock_kick) */
	double kick_at;		/* ... this far into the algorithm's release */
};

/* glock.spin_books: the per-core counts (SMT), the list (ops->reads_word) */
enum { LOCK_SPIN_CORE = 1, LOCK_SPIN_LIST = 2 };

struct glock {
	const struct lock_ops *ops;
	const struct lock_client *client;
	void *priv;
	char *name;
	struct vm *vm;
	struct hv *hv;
	struct sim *sim;	/* hv->sim, one load nearer: the hot paths read the clock */
	struct vcpu *holder;
	/* Wait clocks (lock_lhp_clock, lock_free_clock): holder-preempted time
	 * and free time, cumulative; a waiter's share is their growth over its
	 * wait.  Whole ns (runstate books and event times are), so integers:
	 * the double sums of their differences (st) are the same values. */
	uint64_t lhp_closed, holder_rt0, free_closed;
	sim_time_t free_since;
	/* pCPUs that last wrote the lock word and the protected data
	 * (hv->nowhere: nobody yet): pointers, as pcpu_dist reads them, not ids to look up
	 * in hv->pcpus at each line transfer (three an acquisition) */
	const struct pcpu *last_p;
	double handover_ns;	/* inside a release: its store's wait for the word's line */
	const struct pcpu *data_p;
	int cs_lines;		/* protected cache lines a critical section touches */
	int stream_lines;	/* more shared lines, copied in one burst (overlapped) */
	int word_lines;		/* section data in the lock word's own line (0 or more) */
	int req_lines;		/* the requester's own lines, read one after another */
	int req_stream;		/* ... and those it then copies in one burst */
	/* 1: a section moves its cs_lines only (none of the four above, no
	 * pool): a take asks one question, not five (lock_init sets it) */
	int plain;
	/* The pool (pool_batches 0: none): batches in it now, the slow path. */
	int pool_batches, pool_avail, slow_lines, slow_word;
	double slow_ns;
	sim_time_t hold_since;
	struct lock_node *node;	/* per vCPU of the VM (v->idx) */
	/* The waiters spinning on a pCPU now (inside acquire, spinning, running),
	 * counted by socket and core, and listed, so a release finds the
	 * farthest reader of the word without a scan of the VM (lock_own_ns). */
	int nspin, *spin_sock, *spin_core;
	/* listed only where ops->reads_word asks who they are (NULL otherwise:
	 * a removal moved the last one, a cold node line with 1000 vCPUs) */
	struct vcpu **spinners;
	/* which of spin_core and spinners it keeps (LOCK_SPIN_*),
	 * in one byte (lock_init): 0, a lock that reads no word's list on a
	 * machine without SMT (bench/peer-ticket.yaml), is one test at a
	 * count's change, not a test of each pointer */
	unsigned char spin_books;
	/* 1: its take, release and observe are the native ticket lock's,
	 * which run inline (lock_ticket_take, ...: patched in), noted by
	 * lock_init: one byte's test, not an op's pointer loaded and compared */
	unsigned char tkt_native;
	int check_fifo;		/* --check=full on a fifo lock: arrival turns are checked */
	uint64_t arrivals, entries;
	uint64_t *arrival;	/* ... per vCPU, its acquire's turn (check_fifo only) */
	int halt_irqs;		/* the slow path halts with interrupts on (the algorithm sets it;
				 * the report then gives spurious_wakeups) */
	struct glock_stats st;
	/* The ring fast-forward (ring_ff.c): its next look at this many
	 * acquisitions (0 at first; UINT64_MAX: never), its snapshots, and
	 * what frees them (set with them) */
	uint64_t ring_at;
	struct ring_ff *ring;
	void (*ring_free)(struct glock *);
};

/* The lines a section touches (workload `locks:` settings), and its pool. */
struct lock_lines {
	int cs, stream, word, req, req_stream;
	int pool_batches, pool_fill, slow_lines, slow_word;
	double slow_ns;
};

struct glock *lock_new(const struct lock_ops *, const void *cfg, const char *name,
    struct vm *, const struct lock_lines *, const struct lock_client *);
void lock_free(struct glock *);
/* l, of a lock nobody will use again, made what lock_new would make of the
 * same algorithm and VM, with its arrays kept: a short process's lock
 * without the allocations (kernel_rqlock.c's pi_lock). */
void lock_renew(struct glock *l, const void *cfg, const char *name,
    const struct lock_lines *, const struct lock_client *);
/* The warm-up ends: its stats start again from zero. */
void lock_stats_reset(struct glock *);
/* Takes that waited, and the ns their waits took, since the stats began:
 * the wait histogram's (enter adds every wait to it) */
uint64_t lock_contended(const struct glock *);
double lock_wait_ns(const struct glock *);
/* ns its holds released since the stats began took, each whole hold
 * counted at its release (double: as the other sums) */
double lock_hold_ns(const struct glock *);
/* vCPUs inside acquire() now: the nodes whose wait began (--check=full's
 * look at a VM's end; a scan, not a count kept at every take) */
int lock_waiting(const struct glock *);
/* l's state in a snapshot of a periodic run (ring_ff.c); 0: not listable */
int lock_ffs(struct ffs *, struct glock *);

/* Entry points used by workloads; both continue the workload when done. */
void lock_acquire(struct glock *, struct vcpu *);
void lock_release(struct glock *, struct vcpu *);

/* Glue for algorithms. */
void lock_taken(struct glock *, struct vcpu *, double extra_ns);
/*
 * Bookkeeping halves of lock_taken/lock_release for algorithms where the
 * section runs on another vCPU than its owner (combining): owner's section
 * starts/ends on runner's pCPU.  They keep holder, statistics and probes
 * (PR_LOCK_TAKEN/RELEASE name the owner, pcpu the runner) and continue no
 * workload.  lock_enter returns the ns to bring the cs_lines data to runner.
 */
double lock_enter(struct glock *, struct vcpu *owner, const struct vcpu *runner);
void lock_leave(struct glock *, struct vcpu *owner, const struct vcpu *runner);
/* v spins until the word changes (lock_poke) or budget_ns of running spin
 * pass (then on_budget). */
void lock_wait(struct glock *, struct vcpu *, double budget_ns, guest_fn on_budget);
void lock_poke(struct glock *, struct vcpu *waiter);
/* Start loading the node of the VM's vCPU idx, which its take reads first
 * (wait_since, spin_at): a ticket lock asks two turns early (tkt_prefetch),
 * where one turn was too late at 1024 vCPUs. */
static inline void
lock_prefetch_node(const struct glock *l, int idx)
{
	__builtin_prefetch(&l->node[idx]);
}
/* A line's transfer from the pCPU that wrote it last to `to`'s (NULL:
 * local); lock_line_ns for a pCPU kept as an id (-1: local), as a vCPU's
 * last_pcpu and a node's req_pcpu are. */
double lock_line_at(const struct glock *, const struct pcpu *from, const struct vcpu *to);
double lock_line_ns(const struct glock *, int from_pcpu, const struct vcpu *to);
/* n independent lines from `from` to `to`, misses overlapping up to mlp. */
double lock_stream_ns(const struct glock *, const struct pcpu *from, const struct vcpu *to,
    int n);
/* owner's section ran elsewhere: ns for owner to bring its req_lines back. */
double lock_reclaim_ns(struct glock *, struct vcpu *owner);
/* Latency for v to see the lock word as last written. */
double lock_seen_ns(const struct glock *, const struct vcpu *v);
/* ns for v's store to own the lock word's line: from its last writer, and
 * (release_visibility) from every running waiter that reads it. */
double lock_own_ns(const struct glock *, const struct vcpu *v);
/* v spun reading the word and saw it free: ns of the RMW that takes it
 * (an atomic, after owning the line under release_visibility). */
double lock_claim_ns(const struct glock *, const struct vcpu *v);
/* Inside a release: how long its store waited for the line (0 elsewhere);
 * a waiter sees the release that much later than one transfer. */
double lock_handover_ns(const struct glock *);
/* from stores to a flag in waiter's own line (its MCS node or request
 * record), which waiter wrote and spins on: ns until waiter sees it. */
double lock_flag_ns(const struct glock *, const struct vcpu *from, const struct vcpu *waiter);
double lock_atomic_ns(const struct glock *);
/*
 * Inside ops->release: the unlock kicks `to` (KVM_HC_KICK_CPU) once its own
 * stores are done, before_ns into the algorithm's release cost (after the
 * store's wait for the word's line, which lock_release adds), not when the
 * release begins; counts the kick and its hypercall exit.  The caller still
 * adds the hypercall to the cost it returns.
 */
void lock_kick(struct glock *, struct vcpu *from, struct vcpu *to, double before_ns);
/*
 * The same for a sleeping lock's wake of a parked waiter by the guest
 * kernel itself (futex_wake's reschedule IPI, not a hypercall): `to` is
 * woken once the unlocker's own stores are done, before_ns into the
 * algorithm's release; counts the kick only (the caller adds the IPI's exit
 * to the cost it returns).
 */
void lock_wake(struct glock *, struct vcpu *from, struct vcpu *to, double before_ns);


#endif
