/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * machine.h - the host: topology, clock and the costs of moving data.
 *
 * pCPU numbering: id = (socket * cores_per_socket + core) * threads_per_core
 * + thread, so SMT siblings are adjacent.  Costs are in ns (scenarios may
 * write them in cycles; the loader converts with the clock rate).
 */
#ifndef VS_MACHINE_H
#define VS_MACHINE_H

#include "param.h"
#include "util.h"

struct yc_node;

/* An idle state the pCPU's MWAIT/HLT enters (Linux struct cpuidle_state):
 * what leaving it costs and how long an idle period must last for it to pay. */
#define HW_MAX_CSTATES 8
struct hw_cstate {
	char name[16];
	double exit_ns;		/* exit_latency */
	double residency_ns;	/* target_residency */
};

/* How far apart two pCPUs are, for cache-line transfers. */
enum hw_dist { HW_SAME = 0, HW_SIBLING, HW_SOCKET, HW_REMOTE, HW_NDIST };

struct machine {
	char *name;
	int sockets, cores_per_socket, threads_per_core, npcpus;
	double hz;
	double line_ns[HW_NDIST];	/* modified cache-line transfer by distance */
	double line_far_ns;		/* the largest of them between two of its pCPUs */
	double atomic_ns;		/* a locked RMW on a line already held */
	int mlp;			/* line misses in flight at once (fill buffers) */
	int release_visibility;		/* a release's store owns the line first (lock.h) */
	double ctx_switch_ns;		/* host context switch between vCPUs */
	double wake_ipi_ns;		/* IPI + leaving idle on a remote pCPU */
	double smt_busy_slowdown;	/* time factor when a sibling runs code */
	double smt_spin_slowdown;	/* time factor when a sibling spins with PAUSE */
	/* VM exit round trips (exit + handler + entry). */
	double exit_hlt_ns, exit_hypercall_ns, exit_ple_ns;
	/* Device accesses (hv/hv_io.h): a PIO exit served in the kernel or by
	 * user space, MMIO's instruction decode, the fast MMIO (ioeventfd) exit;
	 * on bare metal an uncached device access. */
	double pio_kernel_ns, pio_user_ns, mmio_decode_ns, mmio_fast_ns, dev_access_ns;
	double exit_irq_ns;		/* a host IPI's exit on a vCPU in guest mode */
	double vm_entry_ns;		/* a halt's return to the guest with no host switch */
	double pause_ns;		/* one PAUSE-loop iteration */
	/* The guest kernel's: a task switch, an IPI's sender exit, an interrupt's
	 * delivery (injection + EOI), a timer tick's exits and handler. */
	double guest_ctx_switch_ns, exit_ipi_ns, irq_ns, timer_tick_ns;
	/* the guest scheduler's work under its locks (sched_locks, kernel.c) */
	double sched_pi_ns, sched_ttwu_ns, sched_pick_ns, sched_move_ns, sched_tick_ns;
	/* Memory bandwidth, bytes per ns (= GB/s): what one core can draw alone,
	 * and what a socket's memory controller shares among its streamers. */
	double mem_bw_core, mem_bw_socket;
	/* Idle states, shallowest first (none: the pCPU idles in C0, a poll). */
	int ncstates;
	struct hw_cstate cstates[HW_MAX_CSTATES];
	/* Precomputed at load, one entry per pCPU, so the distance of two pCPUs
	 * (asked by every balance scan and line transfer) costs two loads, not
	 * three integer divides. */
	int *core_id, *socket_id;
};

/* Its keys (machine files), with defaults and sources: `vlocksim list`. */
extern const struct vs_param machine_params[];
int machine_from_yaml(struct machine *, const struct yc_node *n, struct vs_err *err);
void machine_free(struct machine *);
static inline int
machine_core_of(const struct machine *m, int pcpu)
{
	return m->core_id[pcpu];
}

static inline int
machine_socket_of(const struct machine *m, int pcpu)
{
	return m->socket_id[pcpu];
}

/* Two distinct pCPUs by their core and socket ids: SMT siblings, the same
 * socket, or across sockets.  A macro so that each caller reads the socket
 * ids only when the cores differ (as an inline function's arguments, they
 * cost two instructions more a call). */
#define MACHINE_DIST_IDS(core_a, core_b, socket_a, socket_b) \
	((core_a) == (core_b) ? HW_SIBLING : (socket_a) == (socket_b) ? HW_SOCKET : HW_REMOTE)

/* Same core as SMT siblings, same socket, or across sockets. */
static inline enum hw_dist
machine_dist(const struct machine *m, int a, int b)
{
	if (a == b || a < 0 || b < 0)
		return HW_SAME;
	return MACHINE_DIST_IDS(m->core_id[a], m->core_id[b], m->socket_id[a], m->socket_id[b]);
}

double machine_cycles_to_ns(const struct machine *, double cycles);

#endif
