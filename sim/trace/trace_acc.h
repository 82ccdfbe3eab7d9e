/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * trace_acc.h - the contract between the trace accumulator (trace_in.c) and
 * the format readers (trace_ftrace.c, trace_xen.c).
 *
 * The readers sit below the accumulator: they know its data (the types here)
 * and call it only through struct ti_acc, a hook table that trace_in.c fills
 * in and hands down in ti_trace.acc before it calls a reader.  Each reader in
 * turn fills in a struct ti_reader that trace_in.c picks by format.  So no
 * reader includes trace_in.h and no symbol is defined on both sides (the
 * circle trace_in.c <-> readers is gone; tests/check_layers.sh keeps it so).
 * Same pattern as Xen's struct scheduler / Linux's sched_class.
 */
#ifndef VS_TRACE_ACC_H
#define VS_TRACE_ACC_H

#include <stdint.h>
#include <stdio.h>

#include "util.h"

struct ti_guest;
struct ti_kprof;

#define TI_RESERVOIR 10000	/* samples kept per quantity for the fits */

enum ti_format { TI_FMT_AUTO, TI_FMT_TRACECMD, TI_FMT_FTRACE, TI_FMT_XENTRACE,
	TI_FMT_XENALYZE, TI_FMT_LOCKSTAT, TI_FMT_PERFKVM, TI_FMT_DAT, TI_FMT_PERFSCRIPT };

/* Runstates, numbered as Xen's (public/vcpu.h RUNSTATE_*). */
enum ti_state { TI_RUNNING, TI_RUNNABLE, TI_BLOCKED, TI_OFFLINE, TI_NSTATES,
	TI_UNKNOWN = -1 };

/* One measured quantity (ns): count, histogram and reservoir; or, from a
 * summary, the count, mean and the 5/50/95th percentiles it reports. */
struct ti_q {
	uint64_t n;			/* samples, zeros included */
	uint64_t zeros;			/* samples <= 0 (timestamp resolution) */
	double sum;
	double min, max;		/* of the samples (a summary's own, NAN when it has none) */
	struct hist *h;			/* NULL until the first sample */
	double *res;
	size_t nres, cap;
	int given;			/* values below come from a summary */
	double g_p5, g_p50, g_p95;
};

struct ti_exitq {
	uint64_t count;
	struct ti_q lat;
};

struct ti_vcpu {
	uint64_t key;			/* tid, or domain << 16 | vcpu */
	int is_vcpu;			/* a vCPU (not some other host thread) */
	int tid, dom, vcpu;		/* -1 when unknown */
	uint64_t exits;
	struct ti_exitq *ex;		/* indexed by reason id */
	size_t nex;
	uint64_t ple_exits, hlt_exits;
	uint64_t ple_grow, ple_shrink;	/* kvm_ple_window(_update) events */
	int64_t ple_window;		/* last window seen, -1 if none */
	uint64_t hc_kick, hc_yield, hc_ipi, hc_other;	/* kvm_hypercall nr 5/11/10 */
	uint64_t pio_read, pio_write;
	uint64_t halt_polled, halt_waited;	/* kvm_vcpu_wakeup poll / wait */
	uint64_t trans[TI_NSTATES][TI_NSTATES];	/* runstate changes old -> new */
	double st_ns[TI_NSTATES];	/* time observed in each state */
	struct ti_q halt, blocked, wake_to_run, preempt_wait;
	uint64_t migrations;		/* pCPU changed between two exits */
	unsigned char pcpus[128];	/* bitmap of pCPUs seen (first 1024) */
	/* parser state */
	int state;			/* enum ti_state or TI_UNKNOWN */
	int64_t since, wake_at;		/* ns; wake_at -1 if not woken */
	int64_t exit_at;		/* ns of a pending exit, -1 if none */
	int exit_reason, last_pcpu;
	int from;			/* state before the current runnable spell */
};

struct ti_named {
	char *name;
	uint64_t count;
	int kind;			/* reasons: TI_RK_* */
};

enum { TI_RK_OTHER, TI_RK_PLE, TI_RK_HLT };

struct ti_trace {
	enum ti_format fmt;
	const char *path;
	double cpu_hz;			/* Xen TSC rate (Hz); 0 = default 2.4 GHz */
	int cpu_hz_given;
	struct rng *rng;		/* reservoir replacement draws (fixed seed) */
	struct ti_vcpu **v;		/* all threads / vCPUs, creation order */
	size_t nv, capv;
	size_t *hash;			/* open addressing: index + 1, 0 = empty */
	size_t nhash;
	struct ti_vcpu all;		/* overall aggregates */
	struct ti_named *reasons;	/* exit reason names (normalised) */
	size_t nreasons, capreasons;
	struct ti_named *events;	/* counts of every event / record kind seen */
	size_t nevents, capevents;
	int64_t t_first, t_last;	/* ns; t_first > t_last while empty */
	uint64_t nevent_lines;		/* lines / records that parsed */
	uint64_t nskipped;		/* malformed lines / records skipped */
	uint64_t unattributed_exits;	/* exits with no known vCPU */
	uint64_t lost_records;		/* xentrace TRC_LOST_RECORDS */
	uint64_t resyncs;		/* a thread ran with no switch-in seen */
	char first_bad[VS_ERR_MAX];	/* first skipped line, FILE:LINE:COL */
	double summary_seconds;		/* xenalyze: its "Total time" */
	int halt_is_blocked;		/* Xen: a halt is a blocked spell */
	const struct ti_acc *acc;	/* the accumulator's hooks (set by ti_import) */
	struct ti_guest *guest;		/* guest side: lock classes, tasks (trace_guest.h) */
	struct ti_kprof *kprof;		/* kernel profile: lock classes by call site, IPIs,
					 * TLB, faults (trace_kprof.h); NULL until seen */
	int guest_only;			/* a guest trace: no vCPUs expected */
	double given_seconds;		/* perf kvm stat: its "Total Samples" span, if any */
};

/* One lock class row of /proc/lock_stat (times in ns; -1 when not printed). */
struct ti_lockrow {
	uint64_t con_bounces, contentions, acq_bounces, acquisitions;
	double wait_min, wait_max, wait_total, hold_min, hold_max, hold_total;
};

/* Kernel-profile events (trace_kprof.h): what one perf script line was. */
enum ti_kev { TI_KEV_FORK, TI_KEV_EXIT, TI_KEV_EXEC, TI_KEV_IPI_SEND, TI_KEV_IRQ_CALL,
	TI_KEV_IRQ_CALL_SINGLE, TI_KEV_IRQ_RESCHED, TI_KEV_TLB, TI_KEV_FAULT, TI_KEV_CPU,
	TI_KEV_OTHER };

#define TI_KEY_XEN(d, v) ((1ULL << 40) | ((uint64_t)(d) << 16) | (uint64_t)(v))

/* What a reader may do to the accumulator (trace_in.c fills it in). */
struct ti_acc {
	struct ti_vcpu *(*vcpu_get)(struct ti_trace *, uint64_t key);
	/* The same without creating: NULL when absent. */
	struct ti_vcpu *(*vcpu_lookup)(struct ti_trace *, uint64_t key);
	void (*time)(struct ti_trace *, int64_t ns);
	void (*count_events)(struct ti_trace *, const char *name, uint64_t n);
	int (*reason_id)(struct ti_trace *, const char *normalised);
	void (*exit)(struct ti_trace *, struct ti_vcpu *, int reason, int64_t ns, int pcpu);
	void (*entry)(struct ti_trace *, struct ti_vcpu *, int64_t ns);
	void (*state)(struct ti_trace *, struct ti_vcpu *, enum ti_state to, int64_t ns);
	/* First sighting of a vCPU in a record that names both states (xentrace). */
	void (*state_first)(struct ti_trace *, struct ti_vcpu *, enum ti_state from,
	    enum ti_state to, int64_t ns);
	/* An event on the thread's own line: it is on a CPU whatever we thought. */
	void (*on_cpu)(struct ti_trace *, struct ti_vcpu *, int64_t ns);
	/* A wakeup: blocked (or unknown) -> runnable, remembered for wake_to_run. */
	void (*wake)(struct ti_trace *, struct ti_vcpu *, int64_t ns);
	void (*q_add)(struct ti_trace *, struct ti_q *, double ns);
	/* Guest side (issue 19; trace_guest.c): a /proc/lock_stat class row; a
	 * lock:contention_begin (begin 1) or _end of thread tid on lock addr;
	 * a guest sched_switch (prev state letter, 'R' = preempted) and wakeup. */
	void (*lock_row)(struct ti_trace *, const char *cls, const struct ti_lockrow *);
	void (*contention)(struct ti_trace *, int tid, int cpu, uint64_t addr, int begin,
	    const char *flags, int64_t ns);
	void (*task_switch)(struct ti_trace *, int cpu, int prev_pid, const char *prev_comm,
	    size_t prev_n, char prev_state, int next_pid, const char *next_comm, size_t next_n,
	    int64_t ns);
	void (*task_wake)(struct ti_trace *, int pid, int64_t ns);
	/* Kernel profile (issue 28; trace_kprof.c): an event of kind k of thread
	 * tid (arg: the IPI's "callsite callback", the TLB flush's reason number;
	 * weight: a sampled software event's period, else 1); a call-chain frame
	 * (function name) of the event before it. */
	void (*kevent)(struct ti_trace *, enum ti_kev k, int tid, int cpu, const char *arg,
	    double weight, int64_t ns);
	void (*frame)(struct ti_trace *, const char *sym, size_t n);
	/* A summary's exits (perf kvm stat report): reason, count, mean ns, its time share. */
	void (*exit_summary)(struct ti_trace *, const char *reason, uint64_t count,
	    double mean_ns, double min_ns, double max_ns);
	/* Note a malformed line; keeps the first one's location. */
	void (*skip)(struct ti_trace *, long line, int col, const char *why);
};

/* The readers' calls, by their old names, through the table. */
static inline struct ti_vcpu *ti_vcpu_get(struct ti_trace *t, uint64_t key)
{ return t->acc->vcpu_get(t, key); }
static inline struct ti_vcpu *ti_vcpu_lookup(struct ti_trace *t, uint64_t key)
{ return t->acc->vcpu_lookup(t, key); }
static inline void ti_mark_vcpu(struct ti_vcpu *v) { v->is_vcpu = 1; }
static inline void ti_time(struct ti_trace *t, int64_t ns) { t->acc->time(t, ns); }
static inline void ti_count_events(struct ti_trace *t, const char *name, uint64_t n)
{ t->acc->count_events(t, name, n); }
static inline void ti_count_event(struct ti_trace *t, const char *name)
{ t->acc->count_events(t, name, 1); }
static inline int ti_reason_id(struct ti_trace *t, const char *normalised)
{ return t->acc->reason_id(t, normalised); }
static inline void ti_exit(struct ti_trace *t, struct ti_vcpu *v, int reason, int64_t ns,
    int pcpu)
{ t->acc->exit(t, v, reason, ns, pcpu); }
static inline void ti_entry(struct ti_trace *t, struct ti_vcpu *v, int64_t ns)
{ t->acc->entry(t, v, ns); }
static inline void ti_state(struct ti_trace *t, struct ti_vcpu *v, enum ti_state to,
    int64_t ns)
{ t->acc->state(t, v, to, ns); }
static inline void ti_state_first(struct ti_trace *t, struct ti_vcpu *v,
    enum ti_state from, enum ti_state to, int64_t ns)
{ t->acc->state_first(t, v, from, to, ns); }
static inline void ti_on_cpu(struct ti_trace *t, struct ti_vcpu *v, int64_t ns)
{ t->acc->on_cpu(t, v, ns); }
static inline void ti_wake(struct ti_trace *t, struct ti_vcpu *v, int64_t ns)
{ t->acc->wake(t, v, ns); }
static inline void ti_q_add(struct ti_trace *t, struct ti_q *q, double ns)
{ t->acc->q_add(t, q, ns); }
static inline void ti_skip(struct ti_trace *t, long line, int col, const char *why)
{ t->acc->skip(t, line, col, why); }

static inline void ti_lock_row(struct ti_trace *t, const char *cls,
    const struct ti_lockrow *r)
{ t->acc->lock_row(t, cls, r); }
static inline void ti_contention(struct ti_trace *t, int tid, int cpu, uint64_t addr,
    int begin, const char *flags, int64_t ns)
{ t->acc->contention(t, tid, cpu, addr, begin, flags, ns); }
static inline void ti_task_switch(struct ti_trace *t, int cpu, int ppid, const char *pc,
    size_t pn, char pst, int npid, const char *nc, size_t nn, int64_t ns)
{ t->acc->task_switch(t, cpu, ppid, pc, pn, pst, npid, nc, nn, ns); }
static inline void ti_task_wake(struct ti_trace *t, int pid, int64_t ns)
{ t->acc->task_wake(t, pid, ns); }
static inline void ti_kevent(struct ti_trace *t, enum ti_kev k, int tid, int cpu,
    const char *arg, double weight, int64_t ns)
{ t->acc->kevent(t, k, tid, cpu, arg, weight, ns); }
static inline void ti_frame(struct ti_trace *t, const char *sym, size_t n)
{ t->acc->frame(t, sym, n); }
static inline void ti_exit_summary(struct ti_trace *t, const char *reason, uint64_t count,
    double mean_ns, double min_ns, double max_ns)
{ t->acc->exit_summary(t, reason, count, mean_ns, min_ns, max_ns); }

/* One format reader.  f is the file opened "rb" at its start; a reader that
 * needs the path (xentrace reads records itself) has it too. */
struct ti_reader {
	int (*read)(struct ti_trace *, FILE *f, const char *path, struct vs_err *);
};
/* The text parser's line entry (trace_ftrace.c), which trace.dat records reuse
 * once libtraceevent has rendered them; _done: the end-of-input checks. */
void ti_ftrace_line(struct ti_trace *, const char *line, long lineno);
int ti_ftrace_done(struct ti_trace *, struct vs_err *);
extern const struct ti_reader ti_reader_ftrace;		/* trace-cmd and ftrace text */
extern const struct ti_reader ti_reader_xentrace;	/* xentrace binary */
extern const struct ti_reader ti_reader_xenalyze;	/* xenalyze summary text */
extern const struct ti_reader ti_reader_lockstat;	/* /proc/lock_stat */
extern const struct ti_reader ti_reader_perfkvm;	/* perf kvm stat report text */
extern const struct ti_reader ti_reader_dat;		/* trace.dat via libtracecmd */

#endif
