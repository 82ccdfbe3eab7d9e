/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * lb_sched.h - what the kernel says about lockbench's threads and the
 * machine: per-thread run time, run delay and switches from
 * /proc/self/task/TID/{schedstat,status}; load, steal and the CPU time of
 * everything else from /proc/loadavg and /proc/stat.
 */
#ifndef LB_SCHED_H
#define LB_SCHED_H

#include <stdint.h>
#include <sys/types.h>

struct lb_task {
	int64_t run_ns, delay_ns, slices;	/* schedstat: on CPU, runnable waiting, runs */
	int64_t vcsw, ivcsw;		/* status: voluntary, nonvoluntary switches */
	int ok;				/* 0: /proc had no such file (not Linux) */
};

/* The calling thread's counters. */
void lb_task_read(struct lb_task *);

struct lb_sys {
	double load1;			/* /proc/loadavg, 1 minute */
	int64_t busy_ns, idle_ns, steal_ns, all_ns;	/* /proc/stat "cpu": busy, idle, steal, all */
	int64_t self_ns;		/* this process's CPU time */
	int ok;
};

void lb_sys_read(struct lb_sys *);

/* Between two readings: the CPU share (of all CPUs) others used, and the
 * share the host stole, both in [0, 1]; -1 if /proc/stat was not read. */
double lb_sys_others(const struct lb_sys *a, const struct lb_sys *b);
double lb_sys_steal(const struct lb_sys *a, const struct lb_sys *b);
/* The share of all CPUs idle between them (idle + iowait), -1 if unread. */
double lb_sys_idle(const struct lb_sys *a, const struct lb_sys *b);

#endif
