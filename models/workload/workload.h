/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * workload.h - guest workloads: small programs of primitives, one instance
 * per guest thread (one thread per vCPU), interpreted as the vCPU runs.
 *
 *   program:
 *     - loop: 4000000          # or: loop: forever
 *       do:
 *         - acquire: counter   # a lock of the VM, by name
 *         - compute: 20ns      # any distribution (dist.h)
 *         - release: counter
 *         - count: iterations  # bump a per-VM counter (a metric)
 *     - compute: {dist: exponential, mean: 5us}
 *     - memory: 1MiB           # bytes streamed (machine mem_bw_core/_socket)
 *
 * A workload may also say `threads: N` (how many of the VM's vCPUs run it;
 * default all) and describe its locks: `locks: {counter: {cs_lines: 1}}`.
 * That is the per-vCPU form: thread i is a task pinned to vCPU i that the
 * guest kernel never moves.  The task form names programs and the tasks
 * that run them; the guest kernel (models/guest/kernel.h) schedules them:
 *
 *   programs:
 *     make: [{spawn: {program: cc, count: 2000, parallel: 20}}, {join: children}]
 *     cc:   [{compute: 50ms}, {block: 2ms}]
 *   tasks:
 *     - {program: make, count: 1, nice: 0, cpus: [0, 1, 2, 3]}
 *
 * Task primitives: block (sleep for a time), wait / wake (a wait queue with
 * tokens), spawn / join (children), barrier, mark (timed regions).
 */
#ifndef VS_WORKLOAD_H
#define VS_WORKLOAD_H

#include <stddef.h>
#include <stdint.h>

#include "evq.h"
#include "param.h"
#include "util.h"

struct yc_node;
struct vcpu;
struct vm;
struct hv;
struct lock_ops;
struct glock;

struct workload;

/* Its keys, and those of workloads.W.locks.NAME (param.h; compile.c). */
extern const struct vs_param wl_params[];
extern const struct vs_param wl_lock_params[];
/* Primitive i (0, 1, ...; NULL past the last): its key, its argument's
 * syntax and its meaning (compile.c's table). */
const char *wl_prim_doc(int i, const char **syntax, const char **what);

struct workload *wl_from_yaml(const char *name, const struct yc_node *n, double hz,
    struct vs_err *err);
void wl_free(struct workload *);
int wl_threads(const struct workload *);	/* -1: one per vCPU */
int wl_endless(const struct workload *);	/* has a loop: forever */
int wl_nlocks(const struct workload *);
int wl_ncounters(const struct workload *);
const char *wl_counter_name(const struct workload *, int i);
const char *wl_name(const struct workload *);
/* Lock i's `calls:` (the measured run's number of sections; 0: not given). */
double wl_lock_calls(const struct workload *, int i);
/* Lock class i: its name, and its instances (1: one lock; gvm.h gvm_lock). */
const char *wl_lock_name(const struct workload *, int i);
int wl_lock_instances(const struct workload *, int i);

/* Per-run guest bookkeeping: how many threads are still running. */
struct grun {
	int live;
	int stop_when_done;
	sim_time_t last_done;
};
/* Where the thread that last ran primitives stands: "VM V, program 'P', 'PRIM'
 * at FILE:LINE:COLUMN" (for the watchdog's and the limits' messages). */
void wl_grun_where(const struct grun *, char *buf, size_t n);

struct gk_config;
struct gk_stats;
struct rep;

/* 1 if the workload declares `tasks:` (else one thread per vCPU). */
int wl_has_tasks(const struct workload *);
int wl_spawns(const struct workload *);
/* Every task's `cpus:` exists in a VM of vcpus vCPUs. */
int wl_check_vcpus(const struct workload *, int vcpus, struct vs_err *);
int wl_nmarks(const struct workload *);
int wl_nmms(const struct workload *);	/* address spaces (at least 1) */
const char *wl_mm_name(const struct workload *, int i);
/* Sleeping locks: name, declared kind (NULL: mutex), where, used by readers;
 * the scenario resolves the kind to its ops. */
struct slock;
struct slock_ops;
int wl_nslocks(const struct workload *);
int wl_uses_mmap_sem(const struct workload *);
int wl_uses_io(const struct workload *);	/* an `io:` step: io_path_* metrics */
/* FILE:LINE:COLUMN of the first `io:` step of this kind (enum guest_io), or NULL. */
const char *wl_io_where(const struct workload *, int kind);
const char *wl_slock_name(const struct workload *, int i);
const char *wl_slock_kind(const struct workload *, int i);
const char *wl_slock_where(const struct workload *, int i);
int wl_slock_read_used(const struct workload *, int i);
void wl_set_slock_ops(struct workload *, int i, const struct slock_ops *);
/* Tasks the task form starts with (the sum of `tasks:` counts); -1: per-vCPU form. */
int64_t wl_ntasks(const struct workload *);
/* Tasks alive at once at most, spawned children and theirs counted (bound.c);
 * -1: per-vCPU form. */
double wl_peak_tasks(const struct workload *);
/* Its longest program can end before the cap on simulated time (engine.h):
 * 0, or -1 and "FILE:LINE:COL: program 'P' takes at least ..." (bound.c). */
int wl_check_cap(const struct workload *, struct vs_err *);
/* Primitives and samples the workload compiled to (its memory, roughly). */
size_t wl_cost(const struct workload *);
const char *wl_mark_name(const struct workload *, int i);

/* Give a VM its guest (models/guest/gvm.h: kernel, tasks, locks, one lock_ops
 * for the VM) and each task its program; the VM's objects are then
 * gvm_of(vm)'s. */
void wl_vm_setup(struct vm *, const struct workload *, int threads,
    const struct lock_ops *, const void *lock_cfg, const struct gk_config *,
    struct grun *);
/* Close the guest kernel's books at the end of a run. */
void wl_vm_finish(struct vm *);
/* A scenario's warm-up ends (sim/scenario/run.c): the counters, marks, and
 * the guest's kernel, lock and disk stats start again from zero. */
void wl_vm_stats_reset(struct vm *);
/* Mark i's intervals (seconds) in this run. */
const struct rep *wl_vm_mark(const struct vm *, int i);
void wl_vm_teardown(struct vm *);
/* Start every thread: called once the hv has started. */
void wl_vm_start(struct vm *);
uint64_t wl_vm_count(const struct vm *, int counter);
int wl_vm_threads(const struct vm *);
/* When the VM's last thread ended (its benchmark's elapsed time); -1: not yet. */
sim_time_t wl_vm_done_at(const struct vm *);

/* The guest_fn that runs the next primitives of v's thread. */
void wl_continue(struct vcpu *);

/*
 * For locks that run critical sections themselves (combining; lock_ops
 * takes_sections): a section is the primitives between an acquire and the
 * matching release.  wl_check_sections fails (FILE:LINE:COL of the acquire)
 * unless every section of w is compute only.  wl_take_section, called from
 * the lock's acquire, samples the durations of v's current section (nominal
 * ns), and moves v's thread past the release: the next wl_continue(v) runs
 * what follows it.
 */
int wl_check_sections(const struct workload *, struct vs_err *);
double wl_take_section(struct vcpu *);

#endif
