/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * trace_in.h - import real KVM and Xen traces into per-vCPU aggregates and
 * fitted distributions (`vlocksim trace import`).
 *
 * Formats:
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

#include "trace_acc.h"
#include "trace_emit.h"

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

#endif
