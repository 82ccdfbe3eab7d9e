/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * trace_out.h - timeline export: Chrome trace-event JSON (opens in Perfetto
 * and chrome://tracing), written by a struct probe consumer.
 *
 * Layout of the file (one event per line, same run => same bytes):
 *   {"displayTimeUnit":"ns","traceEvents":[
 *   metadata ("ph":"M"): process "pCPUs" (pid 1) with a thread per pCPU
 *     (tid = pCPU id + 1); a process per VM (pid 2 + VM index) with, per
 *     vCPU k, a runstate lane (tid 2k + 1) and a lock lane (tid 2k + 2);
 *   "X" slices: on a pCPU lane, one per vCPU run (name: the vCPU, "d14v2");
 *     on a runstate lane, running / runnable / blocked / offline; on a
 *     lock lane, "wait L" (acquire() to owning it) holding "spin L" and
 *     "halted" (HLT to wakeup), and "hold L" (owning it to release);
 *   "i" instants on the runstate lane: "HLT", "PLE", "PIO" / "MMIO"
 *     (args.kind), "hypercall" (args.kind: kick, or the workload's);
 *   "s"/"f" flows "kick" and "yield_to" from the kicker's / yielder's
 *     runstate lane to the target's (bound to the enclosing slice);
 *   "C" counters on the VM process: "waiters L" (vCPUs inside acquire()).
 * Times are microseconds with three decimals (the ns are exact).  With a
 * window [from, to], slices are clipped to it and other events outside it
 * dropped; counters start with their value at `from`.
 * Memory: the open slice of each lane and the text of the events kept.
 */
#ifndef VS_TRACE_OUT_H
#define VS_TRACE_OUT_H

#include "evq.h"
#include "probe.h"
#include "util.h"

struct scenario;
struct trace_out;

/* Lanes for sc's VMs and pCPUs; keep events in [from, to] (ns). */
struct trace_out *trace_out_new(const struct scenario *sc, sim_time_t from, sim_time_t to);
void trace_out_free(struct trace_out *);
/* The probe to hand to run_once (valid while the trace_out lives). */
const struct probe *trace_out_probe(struct trace_out *);
/* The JSON text so far (closed: the run must have ended with PR_END). */
const char *trace_out_text(struct trace_out *, size_t *len);
/* Write it atomically to path; a path ending ".gz" gets gzip (zlib). */
int trace_out_write(struct trace_out *, const char *path, struct vs_err *err);
/* Keep the text under about bytes (0: no limit): once it is reached the
 * window ends at that event's time (the first window that fits). */
void trace_out_set_limit(struct trace_out *, size_t bytes);
/* Where the limit cut the window; -1 if it did not. */
sim_time_t trace_out_cut(const struct trace_out *);
/* "10ms:20ms" (units required but for 0; either side may be empty) -> [from, to] ns. */
int trace_out_window(const char *s, sim_time_t *from, sim_time_t *to, struct vs_err *err);

#endif
