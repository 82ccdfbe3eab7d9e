/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * trace_kprof.h - the kernel's own profile of a recorded workload (issue 28):
 * lock classes by call site, IPIs, TLB shootdowns, fork/exit/exec and page
 * faults, each per busy CPU-second, from a `perf script` text of a recording
 * such as bench/profile/record.sh makes (per process with inherit):
 *
 *   lock:contention_begin (with its kernel call chain) / contention_end
 *       -> per lock class: contentions, the wait (begin -> end of one thread),
 *          the call sites, nesting (a contention begun while the same thread
 *          already waited on another lock: an rwsem's wait_lock in its slow path);
 *   ipi:ipi_send_cpu / ipi_send_cpumask -> IPIs sent, by kind (reschedule,
 *          remote wakeup, function call) from the call site and callback;
 *   irq_vectors:*_entry -> IPIs taken while the workload was current;
 *   tlb:tlb_flush -> flushes by reason (arch/x86 include/linux/mm_types.h
 *          enum tlb_flush_reason: 4 = a shootdown request to other CPUs);
 *   sched:sched_process_fork/exit/exec -> process life cycle;
 *   page_faults, task_clock (software events with their period) -> faults,
 *          and the busy CPU-seconds every rate is divided by; task_clock's
 *          call chains give the share of CPU time inside each call site.
 *
 * A lock class is named from its call site by a table of Linux 6.x functions
 * (trace_kprof.c kp_classes: zone->lock, lruvec->lru_lock, the page-table
 * lock, dentry->d_lock, rq->__lock, mmap_lock, ...); an unknown site is its
 * own class "site:FUNCTION".  The tracepoints see only contended
 * acquisitions, so for a spinlock class the acquisition rate and hold time
 * are derived, not measured (ti_kprof_derive: formulas and assumptions there).
 */
#ifndef VS_TRACE_KPROF_H
#define VS_TRACE_KPROF_H

#include <stdio.h>

#include "trace_acc.h"

struct ti_kprof;

void ti_kprof_free(struct ti_kprof *);
/* The accumulator's hooks (trace_in.c puts them in struct ti_acc). */
void ti_kprof_event(struct ti_trace *, enum ti_kev kind, int tid, int cpu, const char *arg,
    double weight, int64_t ns);
void ti_kprof_frame(struct ti_trace *, const char *sym, size_t n);
void ti_kprof_contention(struct ti_trace *, int tid, int cpu, uint64_t addr, int begin,
    const char *flags, int64_t ns);
void ti_kprof_finish(struct ti_trace *);

/* One lock class with what the recording says of it (ti_kprof_class). */
struct ti_kclass {
	const char *name, *flags, *source;	/* source: the code the class follows */
	int sleeping;			/* rwsem / mutex: a wait may sleep */
	int recorder;			/* perf's own locks, not the workload's */
	uint64_t contentions, nested;
	double contentions_per_cpu_s;
	double wait_mean_ns, wait_p50_ns, wait_p99_ns;
	double site_share;		/* task_clock share inside its call sites */
	/* Derived (spinlocks with >= 2 CPUs busy; NAN otherwise): */
	double hold_ns, acq_per_cpu_s;		/* from the wait's median */
	double hold_s_ns, acq_s_per_cpu_s;	/* from site_share (an upper bound on hold) */
	const char *top_site;
};

int ti_kprof_present(const struct ti_trace *);
double ti_kprof_busy_s(const struct ti_trace *);	/* task_clock CPU-seconds */
double ti_kprof_concurrency(const struct ti_trace *);	/* busy CPU-s / span */
size_t ti_kprof_nclasses(const struct ti_trace *);
/* Class i, classes sorted by contentions (desc), then name. */
void ti_kprof_class(const struct ti_trace *, size_t i, struct ti_kclass *);
/* Rates per busy CPU-second: "fork", "exit", "exec", "page_faults",
 * "ipi_resched", "ipi_wakeup", "ipi_call", "ipi_other", "ipi_recv_call",
 * "ipi_recv_call_single", "ipi_recv_resched", "tlb_shootdown_sent",
 * "tlb_remote_flushes", "tlb_local_mm", "tlb_task_switch", "tlb_local";
 * NAN for an unknown name or without task_clock. */
double ti_kprof_rate(const struct ti_trace *, const char *what);

/* The profile as YAML (the key `kernel_profile:` and its block) and as text. */
void ti_kprof_yaml(const struct ti_trace *, FILE *);
void ti_kprof_summary(const struct ti_trace *, FILE *);
/* The profile as '#' lines for a scenario's header (trace scenario). */
void ti_kprof_comment(const struct ti_trace *, FILE *);
/* The YAML as malloc'd text; NULL when the trace had no kernel-profile event. */
char *ti_kprof_text(const struct ti_trace *);

#endif
