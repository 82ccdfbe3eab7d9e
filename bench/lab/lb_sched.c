/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * lb_sched.c - /proc readings (Documentation/scheduler/sched-stats.rst:
 * schedstat is "time spent on the cpu, time spent waiting on a runqueue,
 * # of timeslices run on this cpu"; proc(5) for status and /proc/stat).
 */
#define _GNU_SOURCE	/* gettid */
#include "lb_sched.h"

#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

void
lb_task_read(struct lb_task *t)
{
	char path[64], line[256];
	long long a, b, c;
	FILE *f;

	memset(t, 0, sizeof *t);
	snprintf(path, sizeof path, "/proc/self/task/%d/schedstat", (int)gettid());
	if ((f = fopen(path, "r")) == NULL)
		return;
	if (fscanf(f, "%lld %lld %lld", &a, &b, &c) == 3) {
		t->run_ns = a;
		t->delay_ns = b;
		t->slices = c;
		t->ok = 1;
	}
	fclose(f);
	snprintf(path, sizeof path, "/proc/self/task/%d/status", (int)gettid());
	if ((f = fopen(path, "r")) == NULL)
		return;
	while (fgets(line, sizeof line, f) != NULL) {
		if (sscanf(line, "voluntary_ctxt_switches: %lld", &a) == 1)
			t->vcsw = a;
		else if (sscanf(line, "nonvoluntary_ctxt_switches: %lld", &a) == 1)
			t->ivcsw = a;
	}
	fclose(f);
}

void
lb_sys_read(struct lb_sys *s)
{
	unsigned long long v[10] = { 0 };
	double tick = 1e9 / (double)sysconf(_SC_CLK_TCK);
	struct timespec ts;
	FILE *f;
	int n, i;

	memset(s, 0, sizeof *s);
	if ((f = fopen("/proc/loadavg", "r")) != NULL) {
		if (fscanf(f, "%lf", &s->load1) != 1)
			s->load1 = -1;
		fclose(f);
	}
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	s->self_ns = (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
	if ((f = fopen("/proc/stat", "r")) == NULL)
		return;
	/* user nice system idle iowait irq softirq steal guest guest_nice;
	 * guest time is already in user, so the first 8 are the whole. */
	n = fscanf(f, "cpu %llu %llu %llu %llu %llu %llu %llu %llu %llu %llu", &v[0], &v[1],
	    &v[2], &v[3], &v[4], &v[5], &v[6], &v[7], &v[8], &v[9]);
	fclose(f);
	if (n < 8)
		return;
	s->busy_ns = (int64_t)((v[0] + v[1] + v[2] + v[5] + v[6]) * tick);
	s->idle_ns = (int64_t)((v[3] + v[4]) * tick);
	s->steal_ns = (int64_t)(v[7] * tick);
	for (i = 0; i < 8; i++)
		s->all_ns += (int64_t)(v[i] * tick);
	s->ok = 1;
}

/* A field's share of all CPU time between two readings. */
static double
share(const struct lb_sys *a, const struct lb_sys *b, int64_t da)
{
	double all = (double)(b->all_ns - a->all_ns);

	if (!a->ok || !b->ok || all <= 0)
		return -1;
	return (double)da / all;
}

double
lb_sys_others(const struct lb_sys *a, const struct lb_sys *b)
{
	double x = share(a, b, (b->busy_ns - a->busy_ns) - (b->self_ns - a->self_ns));

	return x < 0 && a->ok && b->ok ? 0 : x > 1 ? 1 : x;
}

double
lb_sys_steal(const struct lb_sys *a, const struct lb_sys *b)
{
	return share(a, b, b->steal_ns - a->steal_ns);
}

double
lb_sys_idle(const struct lb_sys *a, const struct lb_sys *b)
{
	return share(a, b, b->idle_ns - a->idle_ns);
}
