/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * trace_scen.h - a runnable scenario from a guest trace (and, optionally, a
 * host trace): `vlocksim trace scenario` (sim/cli/cmd_trace_scenario.c).
 *
 * The scenario: the machine file given (included), KVM with CFS on the host,
 * vms[0] "traced" with the guest's CPUs and the workload trace_guest.c
 * builds (tasks and lock sections from the trace), and vms[1] "hog" (count
 * 0: a CPU hog VM of as many vCPUs, for `--vary vms[1].count=0,1,2,3`).  A
 * '#' header names the source of every value; duration is the span traced.
 * The measured table (ti_guest_measured_csv) holds what the 1x run should
 * reproduce: traced.LOCK.acquisitions, traced.LOCK.hold_mean_ns,
 * traced.LOCK.contended_share, traced.LOCK.wait_mean_ns (lock_stat),
 * traced.guest_idle_share (sched_switch).
 */
#ifndef VS_TRACE_SCEN_H
#define VS_TRACE_SCEN_H

#include "trace_guest.h"

struct ti_scen_opts {
	struct ti_wl_opts wl;
	const char *machine;		/* path as given */
	const char *lock_kind;		/* vms[0].lock */
	const char *command;		/* for the header */
	const char *lockstat_path;	/* the lock_stat file, when separate */
};

/* Scenario text (malloc'd), or NULL and err. */
char *ti_scenario_yaml(const struct ti_trace *guest, const struct ti_trace *host,
    const struct ti_scen_opts *, struct vs_err *);
/* Measured table (measured.h format) of the traced VM, rows SETUP/METRIC. */
char *ti_guest_measured_csv(const struct ti_trace *guest, const struct ti_scen_opts *,
    const char *setup);

#endif
