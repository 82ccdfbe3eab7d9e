/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * lb_clock.c - timestamps and the calibrated busy loop.
 *
 * The loop's rate is the fastest of many short batches timed with
 * CLOCK_MONOTONIC: a batch that was preempted, or that lost time to the
 * host (steal), is only slower, so the fastest is the undisturbed rate.  A
 * batch is ~0.5 ms, well under a scheduler slice.
 */
#define _POSIX_C_SOURCE 200809L
#include "lb_clock.h"

#include <math.h>
#include <stdlib.h>
#include <time.h>

int64_t
lb_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

int64_t
lb_thread_cpu(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/* One copy of the loop, never inlined: calibration and use run the same
 * instructions at the same alignment (an inlined copy ran at half the rate
 * of the called one on this project's machine). */
__attribute__((noinline, aligned(64))) void
lb_spin(uint64_t n)
{
	uint64_t i;

	for (i = 0; i < n; i++)
		__asm__ __volatile__("" ::: "memory");
}

static int
cmp_d(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

void
lb_calibrate(struct lb_calib *c, int trials)
{
	const uint64_t n = 1u << 20;	/* ~0.4 ms at 2.5 iterations per ns */
	const int nclk = 4096;
	double *rate = malloc((size_t)trials * sizeof *rate);
	double best_clk = INFINITY;
	int i, k;

	if (rate == NULL)
		abort();
	lb_spin(n);	/* warm: the first batch pays the frequency ramp and faults */
	for (i = 0; i < trials; i++) {
		int64_t t0 = lb_now(), t1;
		double per;

		lb_spin(n);
		t1 = lb_now();
		rate[i] = (double)n / (double)(t1 - t0 > 0 ? t1 - t0 : 1);
		t0 = lb_now();
		for (k = 0; k < nclk; k++)
			(void)lb_now();
		per = (double)(lb_now() - t0) / nclk;
		if (per < best_clk)
			best_clk = per;
	}
	qsort(rate, (size_t)trials, sizeof *rate, cmp_d);
	c->iters_per_ns = rate[trials - 1];
	c->iters_per_ns_median = rate[trials / 2];
	c->clock_ns = best_clk;
	c->trials = trials;
	free(rate);
}

uint64_t
lb_iters(const struct lb_calib *c, double ns)
{
	double n = ns * c->iters_per_ns;

	return n <= 0 ? 0 : (uint64_t)llround(n);
}
