/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * trace_guest.h - the guest side of an imported trace (issue 19): lock
 * classes from /proc/lock_stat and lock:contention_begin/end, tasks from the
 * guest's sched_switch/sched_wakeup, and a workload (task form) built from
 * them.
 *
 * Lock classes (Documentation/locking/lockstat.rst): per class the
 * acquisitions and contentions, wait (contended -> acquired) and hold
 * (acquired -> released) totals, min and max.  From the contention
 * tracepoints (include/trace/events/lock.h, Linux 5.19+): per lock address
 * the contended acquisitions and the wait samples (begin -> end of one
 * thread), fitted as the host-side quantities are (ti_q_fit).  lock_stat has
 * no samples: its hold and wait are the exponential of the mean (the
 * least-assuming law with a given positive mean), marked "fit: mean".
 *
 * Tasks: per thread the run time until it blocks (preemptions, prev_state
 * R, do not end a run), the blocked time (switched out not runnable ->
 * woken), per guest CPU the idle time (pid 0 on it).  Threads group by their
 * comm without trailing digits ("kworker/3:1" -> kworker, "cc1" stays); a
 * group's count is its mean population (its threads' run + blocked time over
 * the span: Little's law), so short-lived processes (compile jobs) count as
 * the number alive at a time.
 */
#ifndef VS_TRACE_GUEST_H
#define VS_TRACE_GUEST_H

#include <stdio.h>

#include "trace_acc.h"
#include "trace_emit.h"

struct ti_glock {
	char *name;			/* lock_stat class, or the address "0x..." */
	uint64_t addr;
	int from_stat, from_tp;
	struct ti_lockrow row;		/* lock_stat (ns) */
	uint64_t tp_contentions;	/* contention_begin ... end pairs */
	struct ti_q wait;		/* their wait samples */
	char flags[32];			/* contention_begin flags, first seen */
};

struct ti_ggroup {
	char name[32];
	uint64_t threads, blocks;
	uint64_t switches, preempts;	/* switched out: all, and those still runnable */
	double run_ns, block_ns;	/* all its threads' time running, blocked */
	struct ti_q run, block;		/* run until blocked; blocked until woken */
};

struct ti_guest *ti_guest_new(void);
void ti_guest_free(struct ti_guest *);
/* The accumulator's guest hooks (trace_in.c puts them in struct ti_acc). */
void ti_guest_lock_row(struct ti_trace *, const char *cls, const struct ti_lockrow *);
void ti_guest_contention(struct ti_trace *, int tid, int cpu, uint64_t addr, int begin,
    const char *flags, int64_t ns);
void ti_guest_task_switch(struct ti_trace *, int cpu, int ppid, const char *pc, size_t pn,
    char pst, int npid, const char *nc, size_t nn, int64_t ns);
void ti_guest_task_wake(struct ti_trace *, int pid, int64_t ns);
void ti_guest_finish(struct ti_trace *);

/* Look-ups. */
size_t ti_guest_nlocks(const struct ti_trace *);
const struct ti_glock *ti_guest_lock(const struct ti_trace *, size_t i);
const struct ti_glock *ti_guest_find_lock(const struct ti_trace *, const char *name);
size_t ti_guest_ngroups(const struct ti_trace *);
const struct ti_ggroup *ti_guest_group(const struct ti_trace *, size_t i);
int ti_guest_ncpus(const struct ti_trace *);	/* CPUs seen in sched_switch; 0 none */
double ti_guest_idle_share(const struct ti_trace *);	/* 0..1; NAN without switches */
uint64_t ti_guest_switches(const struct ti_trace *);
uint64_t ti_guest_wakeups(const struct ti_trace *);
uint64_t ti_guest_unmatched(const struct ti_trace *);	/* contention_end without begin */
/* One guest CPU: switches on it, time seen (from its first switch) and idle in it. */
struct ti_gcpu_stat {
	uint64_t switches;
	double idle_ns, seen_ns;
};
void ti_guest_cpu_stat(const struct ti_trace *, int cpu, struct ti_gcpu_stat *);
int ti_guest_has_sched(const struct ti_trace *);
int ti_guest_has_locks(const struct ti_trace *);

/* What the workload is built for: span (s) and CPUs (from the trace, or given). */
struct ti_wl_opts {
	double seconds;		/* > 0: the span lock_stat covers */
	int cpus;		/* > 0: guest CPUs */
	int max_locks;		/* classes kept, by share of time held */
	double burst_ns;	/* the steps of a task that never blocks, or of lock_stat's worker
				 * (10ms; no option: their length changes no rate) */
};

/* The lock, rate and share numbers of a class, per the options. */
struct ti_lockfit {
	double acq_per_cpu_s;	/* acquisitions / (seconds x cpus) */
	double hold_mean_ns, wait_mean_ns, contended_share, hold_share;
	struct ti_qfit hold, wait;
	const char *hold_src, *wait_src;
};
void ti_guest_lockfit(const struct ti_trace *, const struct ti_glock *,
    const struct ti_wl_opts *, struct ti_lockfit *);

/* Guest part of trace import's text summary (trace_gsum.c): scheduling per CPU
 * and task group, lock_stat classes, contention per lock; seconds: the span. */
void ti_guest_summary(const struct ti_trace *, FILE *, double seconds);

/* Guest report (YAML, appended to ti_yaml's text) and the workload preset
 * (task form: locks, programs, tasks), with '#' lines naming each value's
 * source.  ind: spaces before every line of the workload. */
void ti_guest_yaml(const struct ti_trace *, FILE *, const struct ti_wl_opts *);
int ti_guest_workload(const struct ti_trace *, FILE *, const struct ti_wl_opts *, int ind,
    struct vs_err *);
/* Resolve opts against the trace: seconds and cpus; -1 with a message when unknown. */
int ti_guest_opts(const struct ti_trace *, struct ti_wl_opts *, struct vs_err *);

#endif
