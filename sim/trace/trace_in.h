/*
 * trace_in.h - import real KVM and Xen traces into per-vCPU aggregates and
 * fitted distributions (`vlocksim trace import`).
 *
 * Formats (notes and samples: ../shared/traces/FORMATS.md):
 *   trace-cmd  `trace-cmd report` text (libtraceevent plugin rendering)
 *   ftrace     raw /sys/kernel/tracing/trace text (kernel TP_printk rendering)
 *              Both go through one parser (trace_ftrace.c) that keys each
 *              event body on its rendering, so either name fits either file.
 *   xentrace   xentrace binary, struct t_rec stream (trace_xen.c)
 *   xenalyze   xenalyze summary text (trace_xen.c)
 * Streaming: a file is read line by line or record by record; only per-vCPU
 * aggregates are kept: counters, one log-bucketed histogram (stats.h) per
 * quantity, and a reservoir of at most TI_RESERVOIR samples per quantity
 * (Vitter's algorithm R, fixed-seed stream) for the fits.  Memory grows with
 * the number of threads/vCPUs and exit reasons, never with the trace length.
 *
 * Output YAML (ti_yaml; same input => same bytes).  Times carry units, so
 * yconf readers and dist_from_yaml() take them as they are:
 *
 *   # vlocksim trace import
 *   source: {file: "x.txt", format: trace-cmd, cpu_hz: 2.4GHz (xen only),
 *            span: 4.73s, events: N, skipped: N}
 *   overall:                   # all vCPUs together; then the same per vCPU
 *     exits: 810               # VM exits (count)
 *     exit_rate:               # per second of trace span, by reason
 *       HLT: 45.81
 *     exit_latency:            # exit -> next entry of the same vCPU; HLT's
 *       HLT: {dist: lognormal, mean: 93.1us, sd: 40.2us}   # includes the halt
 *     exit_latency_fit:        # goodness of fit of the chosen family, and
 *       HLT: {n: 217, zeros: 0, ks_d: 0.041, aic: ..., p50: .., p90: .., p99: ..,
 *             exponential_aic: .., lognormal_aic: .., gamma_aic: ..}
 *     ple_exits: 33            # PAUSE_INSTRUCTION (VMX) / PAUSE (SVM) exits
 *     ple_rate: 5.63
 *     runstate_share: {running: 80.1, runnable: 0.2, blocked: 19.7, offline: 0}
 *                              # percent of the observed time, like VM.*_share
 *     wake_to_run: {n: .., p50: 2us, p90: .., p99: ..}  # woken -> on a pCPU
 *     preempt_wait: {n: .., p50: ..}                     # preempted -> back on
 *     halt: {dist: ..}  halt_fit: {...}   # KVM: kvm_vcpu_wakeup wait time;
 *                                         # Xen: blocked -> runnable
 *     wake_to_run_dist / preempt_wait: {dist: ..} with _fit, when fitted
 *   vcpus:
 *     vcpu0: {tid: 150750, vcpu: 0, ...same keys as overall...}
 *     d14v2: {domain: 14, vcpu: 2, ...}
 * A distribution is {dist: exponential, mean}, {dist: lognormal, mean, sd},
 * {dist: gamma, shape, mean} (the smallest AIC of the three MLE fits of the
 * positive samples), or {dist: const, value} when fewer than 3 positive
 * samples or no spread.  From a xenalyze summary (no samples) the lognormal
 * is matched to the reported median and 95th percentile instead (fit: p50+p95).
 */
#ifndef VS_TRACE_IN_H
#define VS_TRACE_IN_H

#include <stdint.h>
#include <stdio.h>

#include "util.h"

#define TI_RESERVOIR 10000	/* samples kept per quantity for the fits */

enum ti_format { TI_FMT_AUTO, TI_FMT_TRACECMD, TI_FMT_FTRACE, TI_FMT_XENTRACE,
	TI_FMT_XENALYZE };

/* Runstates, numbered as Xen's (public/vcpu.h RUNSTATE_*). */
enum ti_state { TI_RUNNING, TI_RUNNABLE, TI_BLOCKED, TI_OFFLINE, TI_NSTATES,
	TI_UNKNOWN = -1 };

/* One measured quantity (ns): count, histogram and reservoir; or, from a
 * summary, the count, mean and the 5/50/95th percentiles it reports. */
struct ti_q {
	uint64_t n;			/* samples, zeros included */
	uint64_t zeros;			/* samples <= 0 (timestamp resolution) */
	double sum;
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
};

/* Import path (format TI_FMT_AUTO: detect).  cpu_hz 0: default. */
struct ti_trace *ti_new(double cpu_hz);
void ti_free(struct ti_trace *);
int ti_import(struct ti_trace *, const char *path, enum ti_format fmt,
    struct vs_err *err);
enum ti_format ti_detect(const unsigned char *head, size_t n);
const char *ti_format_name(enum ti_format);
int ti_format_parse(const char *s, enum ti_format *out);

/* Reports (malloc'd text). */
char *ti_summary(const struct ti_trace *);
char *ti_yaml(const struct ti_trace *);
/* A measured table (measured.h) per VM: sim/trace/trace_meas.c. */
char *ti_measured_csv(const struct ti_trace *, const char *setup, const char *command,
    const char *note);

/* Look-ups for tests and callers. */
const struct ti_vcpu *ti_find_vcpu(const struct ti_trace *, const char *name);
uint64_t ti_exit_count(const struct ti_vcpu *, const struct ti_trace *, const char *reason);
uint64_t ti_event_count(const struct ti_trace *, const char *event);
/* The name a vCPU gets in reports ("vcpu0", "tid3927", "d14v2"); buf >= 48. */
const char *ti_vcpu_name(const struct ti_trace *, const struct ti_vcpu *, char *buf, size_t n);
double ti_q_quantile(const struct ti_q *, double p);

/* --- for the parsers (trace_ftrace.c, trace_xen.c) ---------------------- */
#define TI_KEY_XEN(d, v) ((1ULL << 40) | ((uint64_t)(d) << 16) | (uint64_t)(v))
struct ti_vcpu *ti_vcpu_get(struct ti_trace *, uint64_t key);
/* The same without creating: NULL when absent. */
struct ti_vcpu *ti_vcpu_lookup(struct ti_trace *, uint64_t key);
void ti_mark_vcpu(struct ti_vcpu *);
void ti_time(struct ti_trace *, int64_t ns);
void ti_count_event(struct ti_trace *, const char *name);
void ti_count_events(struct ti_trace *, const char *name, uint64_t n);
int ti_reason_id(struct ti_trace *, const char *normalised);
void ti_exit(struct ti_trace *, struct ti_vcpu *, int reason, int64_t ns, int pcpu);
void ti_entry(struct ti_trace *, struct ti_vcpu *, int64_t ns);
void ti_state(struct ti_trace *, struct ti_vcpu *, enum ti_state to, int64_t ns);
/* First sighting of a vCPU in a record that names both states (xentrace). */
void ti_state_first(struct ti_trace *, struct ti_vcpu *, enum ti_state from,
    enum ti_state to, int64_t ns);
/* An event on the thread's own line: it is on a CPU whatever we thought. */
void ti_on_cpu(struct ti_trace *, struct ti_vcpu *, int64_t ns);
/* A wakeup: blocked (or unknown) -> runnable, remembered for wake_to_run. */
void ti_wake(struct ti_trace *, struct ti_vcpu *, int64_t ns);
void ti_q_add(struct ti_trace *, struct ti_q *, double ns);
/* Note a malformed line; keeps the first one's location. */
void ti_skip(struct ti_trace *, long line, int col, const char *why);

int ti_read_ftrace(struct ti_trace *, FILE *, struct vs_err *);
int ti_read_xentrace(struct ti_trace *, const char *path, struct vs_err *);
int ti_read_xenalyze(struct ti_trace *, FILE *, struct vs_err *);

#endif
