/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * lb_clock.h - lockbench's time: CLOCK_MONOTONIC timestamps and a busy loop
 * calibrated against them, so that "compute 200 ns" is 200 ns of this CPU.
 */
#ifndef LB_CLOCK_H
#define LB_CLOCK_H

#include <stdint.h>

/* CLOCK_MONOTONIC in ns (the vDSO: no system call where the clock source
 * allows it). */
int64_t lb_now(void);
/* The calling thread's CPU time in ns (CLOCK_THREAD_CPUTIME_ID). */
int64_t lb_thread_cpu(void);

/* Spin n iterations of an empty loop the compiler may not remove. */
void lb_spin(uint64_t n);

struct lb_calib {
	double iters_per_ns;	/* the busy loop's rate, fastest of the trials */
	double iters_per_ns_median;	/* the median trial: > 1.1x slower means noise */
	double clock_ns;	/* one lb_now(), fastest batch */
	int trials;
};

/* Time `trials` batches of the loop and of the clock; best of them. */
void lb_calibrate(struct lb_calib *, int trials);

/* Iterations for ns of busy time at the calibrated rate. */
uint64_t lb_iters(const struct lb_calib *, double ns);

#endif
