/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * scenario.h - a scenario file, read and checked in full before any run.
 *
 *   name: ticket-4threads
 *   seed: 1
 *   reps: 3
 *   until: done            # or: duration (the default when duration is set)
 *   duration: 10s          # with until: done, a cap
 *   warmup: 100ms          # run first, not counted (until: duration)
 *   machine: ../machines/x5570.yaml
 *   hypervisor: {kind: kvm, scheduler: pinned, params: {...}}
 *   vms:
 *     - {name: guest, count: 1, vcpus: 4, lock: ticket, workload: spin,
 *        threads: 4, affinity: "0-3",
 *        guest: {scheduler: cfs, hz: 250, tickless: true, halt_poll: 0,
 *                steal_clock: false, start_phase: random}}
 *   workloads:
 *     spin: ../presets/spinlock-thread.yaml
 *   metrics: [megacycles, guest.counter.wait_mean_ns]
 */
#ifndef VS_SCENARIO_H
#define VS_SCENARIO_H

#include <stdint.h>

#include "engine.h"
#include "guest/kernel.h"
#include "hw/machine.h"
#include "param.h"
#include "util.h"

struct sched_ops;
struct hv_kind_ops;
struct lock_ops;
struct workload;

struct vmdef {
	char *name;
	int count, vcpus, threads;
	const struct lock_ops *lock;
	void *lock_cfg;
	struct workload *wl;
	unsigned char *affinity;	/* NULL: every pCPU */
	char *where;			/* file:line:col of the entry */
	struct gk_config guest;		/* its guest kernel (`guest:`) */
	/* cgroup: {weight, max} (cgroup v2 cpu controller); cg_where NULL: none given */
	long cg_weight;
	int64_t cg_quota, cg_period;	/* ns; quota < 0: "max" */
	char *cg_name;			/* cgroup.name: VMs that name one group share it */
	char *cg_where;
};

struct scenario {
	char *path;
	char *name;
	uint64_t seed;
	int reps;
	sim_time_t duration;		/* SIM_NEVER: none; the measured time after warmup */
	sim_time_t warmup;		/* run before the metrics count (0: none) */
	int until_done;
	int fast_forward;		/* exact shortcuts (the PLE fast-forward); 0: slow path */
	struct machine machine;
	const struct hv_kind_ops *kind;
	void *kind_cfg;
	const struct sched_ops *sched;
	void *sched_cfg;
	struct vmdef *vms;
	int nvms;
	char **metrics;			/* report filter; NULL: all */
	int nmetrics;
	char **metric_where;
};

/* Load PATH, apply the --set overrides in order, check everything. */
int scen_load(struct scenario *, const char *path, char *const *sets, int nsets,
    struct vs_err *err);
void scen_free(struct scenario *);

/*
 * Memory a run of the scenario needs, in bytes, estimated at load time from
 * its VMs, vCPUs, tasks and workloads (measured costs; scenario.c).  scen_load
 * refuses a scenario whose estimate exceeds the limit: by default the
 * machine's physical memory or RLIMIT_AS, whichever is smaller; 0 restores it.
 */
double scen_mem_estimate(const struct scenario *);
void scen_set_mem_limit(size_t bytes);
/* The keys of a scenario (param.h): its top level, the hypervisor mapping's
 * own (its kind's are the kind's), a vms[] entry, vms[].guest (common to
 * every guest scheduler). */
extern const struct vs_param scen_params[];
extern const struct vs_param scen_hv_params[];
extern const struct vs_param scen_vm_params[];
extern const struct vs_param scen_guest_params[];

#endif
