/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * evq_hold.c - the bare event queue's cost per event, for make bench's
 * "evq ns/event" column: the classic hold model (Vaucher & Duval, CACM 1975)
 * on the simulator's own evq.  N events are pending; each event pops the
 * earliest and pushes its successor at time + Exp(1 us), so the size stays
 * N.  Increments are drawn before the clock starts (a table reused
 * cyclically), so only evq_pop + evq_push are timed, in process CPU time (the
 * machine may be shared).
 *
 * usage: evq_hold N [EVENTS]     prints: pending=N events=E ns_per_event=X
 */
#include "evq.h"
#include "util.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#define NINC 4096

static void
nop(void *ctx, void *arg, int64_t data)
{
}

static double
cpu_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

int
main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 64;
	long events = argc > 2 ? atol(argv[2]) : 20000000;
	sim_time_t inc[NINC];
	uint64_t x = 88172645463325252ull;
	struct evq *q;
	struct evq_ev ev;
	double t0, t;
	long i;

	if (n < 1 || n > 1000000 || events < 1) {
		fprintf(stderr, "usage: evq_hold N [EVENTS]\n");
		return 2;
	}
	for (i = 0; i < NINC; i++) {
		x ^= x << 13, x ^= x >> 7, x ^= x << 17;	/* xorshift64 */
		inc[i] = 1 + (sim_time_t)(-1000.0 * log(((double)(x >> 11) + 0.5) * 0x1p-53));
	}
	q = evq_new();
	for (i = 0; i < n; i++)
		evq_push(q, inc[i % NINC], nop, NULL, 0);
	t0 = cpu_now();
	for (i = 0; i < events; i++) {
		evq_pop(q, &ev);
		evq_push(q, ev.time + inc[i & (NINC - 1)], nop, NULL, 0);
	}
	t = cpu_now() - t0;
	printf("pending=%ld events=%ld ns_per_event=%.1f\n", n, events, t * 1e9 / (double)events);
	evq_free(q);
	return 0;
}
