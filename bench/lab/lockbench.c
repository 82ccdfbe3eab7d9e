/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * lockbench.c - a real lock benchmark, the measured side of `vlocksim lab`.
 *
 * N threads each loop: compute (a busy loop calibrated against
 * CLOCK_MONOTONIC) -> acquire -> hold (busy) -> release, on one lock of
 * lb_lock.c, for a fixed time; every combination of lock and thread count
 * is run `reps` times (replications interleaved, so that drift hits every
 * row alike).  Per run it writes one CSV row: throughput, fairness (Jain's
 * index, the smallest and largest share of a fair share), the wait for the
 * lock, the hand-over latency (a release to the next acquisition by a thread
 * that was already waiting, from timestamps), the hold, and what the kernel
 * says: run delay and context switches of each thread (schedstat, status),
 * load average, steal, the CPU time other processes took meanwhile and the
 * CPU time nobody used (CPUs idle while threads waited runnable: the kernel
 * did not spread them).
 *
 * Every iteration reads the clock three times: before the acquire (t0),
 * after it (t1) and before the release (t2).  So a section holds the lock
 * for hold + 2 clock reads and a thread computes compute + 1 clock read
 * between sections; the header gives the clock read's cost for the model.
 *
 * --check runs a fixed number of acquisitions per thread and fails (exit 1)
 * unless every lock excluded (no thread found another inside) and the
 * shared counter, incremented without atomics inside the section, equals
 * the sum of every thread's acquisitions.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "lb_clock.h"
#include "lb_lock.h"
#include "lb_sched.h"

#define LB_VERSION "1"
#define LB_MAX_THREADS 1024
#define HBUCKETS 512	/* 8 per power of two: +-6% on a percentile */

/* The data a section protects, on its own line (the model's cs_lines: 1). */
struct lb_data {
	_Alignas(64) atomic_int in_cs;	/* 1 while a thread is inside */
	atomic_int owner;		/* the thread inside */
	atomic_ullong counter;		/* bumped with a plain load + store */
	atomic_llong last_rel;		/* t2 of the last section */
	atomic_int last_holder;
};

struct lb_run;

/* One thread: its queue node first (own line), then its results. */
struct lb_thr {
	struct lb_qnode q;
	_Alignas(64) struct lb_run *run;
	int id;
	pthread_t th;
	uint64_t total;			/* every acquisition, window or not */
	uint64_t acq;			/* acquisitions in the window */
	uint64_t viol;			/* found another thread inside */
	uint64_t ho;			/* hand-overs to this thread in the window */
	double wait_sum, hold_sum, ho_sum;
	int64_t life_ns;
	struct lb_task t0, t1;
	uint32_t hist[HBUCKETS];
};

struct lb_run {
	const struct lb_lock_ops *ops;
	struct lb_lock *lock;
	struct lb_data *data;
	pthread_barrier_t bar;
	int64_t arm_at, stop_at;	/* the measured window [arm_at, stop_at) */
	uint64_t iters;			/* --check: acquisitions per thread */
	uint64_t compute_it, hold_it;
};

struct lb_opts {
	const struct lb_lock_ops *locks[16];
	int nlocks;
	int threads[64];
	int nthreads;
	double compute_ns, hold_ns, duration, warmup;
	int reps, trials;
	uint64_t iters;
	int check, calibrate_only, list, dry_run;
	double sample;			/* --sample S: the machine over S seconds */
	const char *out, *per_thread;
};

static int
hbucket(int64_t x)
{
	int e;

	if (x < 1)
		x = 1;
	e = 63 - __builtin_clzll((unsigned long long)x);
	return e * 8 + (e >= 3 ? (int)((x >> (e - 3)) & 7) : (int)((x << (3 - e)) & 7));
}

static double
hvalue(int b)
{
	return ldexp(1.0 + ((b % 8) + 0.5) / 8.0, b / 8);
}

static double
hpercentile(const uint64_t *h, uint64_t n, double p)
{
	uint64_t want = (uint64_t)ceil(p * (double)n), seen = 0;
	int b;

	if (n == 0)
		return 0;
	if (want < 1)
		want = 1;
	for (b = 0; b < HBUCKETS; b++)
		if ((seen += h[b]) >= want)
			return hvalue(b);
	return hvalue(HBUCKETS - 1);
}

static void *
thr_main(void *arg)
{
	struct lb_thr *t = arg;
	struct lb_run *r = t->run;
	struct lb_data *d = r->data;
	int64_t start, t0, t1, t2, prev_rel;
	unsigned long long count;
	int prev_holder;

	lb_task_read(&t->t0);
	start = lb_now();
	pthread_barrier_wait(&r->bar);
	for (;;) {
		t0 = lb_now();
		if (r->iters ? t->total >= r->iters : t0 >= r->stop_at)
			break;
		r->ops->acquire(r->lock, &t->q);
		t1 = lb_now();
		/* The counter is read on entry and written on exit, and the owner
		 * checked on both: two threads inside at once lose a count or see
		 * each other. */
		count = atomic_load_explicit(&d->counter, memory_order_relaxed);
		if (atomic_load_explicit(&d->in_cs, memory_order_relaxed))
			t->viol++;
		atomic_store_explicit(&d->in_cs, 1, memory_order_relaxed);
		atomic_store_explicit(&d->owner, t->id, memory_order_relaxed);
		prev_rel = atomic_load_explicit(&d->last_rel, memory_order_relaxed);
		prev_holder = atomic_load_explicit(&d->last_holder, memory_order_relaxed);
		lb_spin(r->hold_it);
		if (atomic_load_explicit(&d->owner, memory_order_relaxed) != t->id)
			t->viol++;
		atomic_store_explicit(&d->in_cs, 0, memory_order_relaxed);
		atomic_store_explicit(&d->counter, count + 1, memory_order_relaxed);
		t2 = lb_now();
		atomic_store_explicit(&d->last_rel, t2, memory_order_relaxed);
		atomic_store_explicit(&d->last_holder, t->id, memory_order_relaxed);
		r->ops->release(r->lock, &t->q);
		t->total++;
		if (t1 >= r->arm_at && t1 < r->stop_at) {
			t->acq++;
			t->wait_sum += (double)(t1 - t0);
			t->hold_sum += (double)(t2 - t1);
			/* A hand-over: the lock was released while this thread waited. */
			if (prev_rel > t0 && prev_holder != t->id) {
				t->ho++;
				t->ho_sum += (double)(t1 - prev_rel);
				t->hist[hbucket(t1 - prev_rel)]++;
			}
		}
		lb_spin(r->compute_it);
	}
	t->life_ns = lb_now() - start;
	lb_task_read(&t->t1);
	return NULL;
}

/*
 * lockbench's own loop, one thread on the lock "none" (no atomics), with the
 * compute and hold of the runs: ns per iteration and per section (t2 - t1),
 * from the fastest of `trials` batches (a batch that was preempted is only
 * slower).  The model's loop must take as long before any lock cost: its
 * compute and hold are these, not compute_ns and hold_ns alone (the clock
 * reads, the counters, the histogram, the calls into the busy loop).
 */
static void
loop_overhead(const struct lb_calib *c, double compute_ns, double hold_ns, int trials,
    double *loop_ns, double *section_ns)
{
	const uint64_t n = 2000;
	struct lb_data *d;
	struct lb_thr *t;
	struct lb_run r;
	int i;

	if (posix_memalign((void **)&d, 64, sizeof *d) != 0 ||
	    posix_memalign((void **)&t, 64, sizeof *t) != 0) {
		fputs("lockbench: out of memory\n", stderr);
		exit(1);
	}
	*loop_ns = *section_ns = INFINITY;
	for (i = 0; i < trials; i++) {
		memset(&r, 0, sizeof r);
		memset(d, 0, sizeof *d);
		memset(t, 0, sizeof *t);
		r.ops = lb_lock_find("none");
		r.lock = r.ops->create();
		r.data = d;
		r.iters = n;
		r.arm_at = 0;
		r.stop_at = INT64_MAX;
		r.compute_it = lb_iters(c, compute_ns);
		r.hold_it = lb_iters(c, hold_ns);
		pthread_barrier_init(&r.bar, NULL, 1);
		t->run = &r;
		thr_main(t);	/* on this thread: nothing else runs */
		pthread_barrier_destroy(&r.bar);
		r.ops->destroy(r.lock);
		if ((double)t->life_ns / (double)n < *loop_ns) {
			*loop_ns = (double)t->life_ns / (double)n;
			*section_ns = t->hold_sum / (double)t->acq;
		}
	}
	free(d);
	free(t);
}

static FILE *
open_out(const char *path)
{
	FILE *f;

	if (path == NULL || strcmp(path, "-") == 0)
		return stdout;
	if ((f = fopen(path, "w")) == NULL) {
		fprintf(stderr, "lockbench: %s: %s\n", path, strerror(errno));
		exit(1);
	}
	return f;
}

/* One run of ops with n threads; its row on out (and per thread on pt). */
static int
run_one(const struct lb_opts *o, const struct lb_lock_ops *ops, int n, int rep, FILE *out,
    FILE *pt)
{
	struct lb_calib rc;
	struct lb_run r;
	struct lb_thr *th;
	struct lb_sys s0, s1;
	uint64_t acq = 0, viol = 0, ho = 0, total = 0, hist[HBUCKETS] = { 0 };
	double wait = 0, hold = 0, hos = 0, sum2 = 0, mins = INFINITY, maxs = 0;
	double delay = 0, life = 0, vcs = 0, ivcs = 0, fair, jain, secs;
	unsigned long long counter;
	int i, b, ok;

	memset(&r, 0, sizeof r);
	r.ops = ops;
	r.lock = ops->create();
	if (posix_memalign((void **)&r.data, 64, sizeof *r.data) != 0 ||
	    posix_memalign((void **)&th, 64, (size_t)n * sizeof *th) != 0) {
		fputs("lockbench: out of memory\n", stderr);
		exit(1);
	}
	memset(r.data, 0, sizeof *r.data);
	memset(th, 0, (size_t)n * sizeof *th);
	atomic_init(&r.data->last_holder, -1);
	/* The loop's rate again right before the run: a VM's CPU may run at
	 * another speed than at the start (its host's load), so each run gets
	 * the compute and hold asked for, and says at what rate. */
	lb_calibrate(&rc, o->check ? 5 : 20);
	r.iters = o->check ? o->iters : 0;
	r.compute_it = lb_iters(&rc, o->compute_ns);
	r.hold_it = lb_iters(&rc, o->hold_ns);
	pthread_barrier_init(&r.bar, NULL, (unsigned)n + 1);
	lb_sys_read(&s0);
	for (i = 0; i < n; i++) {
		th[i].run = &r;
		th[i].id = i;
		if (pthread_create(&th[i].th, NULL, thr_main, &th[i]) != 0) {
			fprintf(stderr, "lockbench: cannot start thread %d of %d\n", i + 1, n);
			exit(1);
		}
	}
	r.arm_at = lb_now() + (int64_t)(o->warmup * 1e9);
	r.stop_at = r.arm_at + (int64_t)(o->duration * 1e9);
	pthread_barrier_wait(&r.bar);
	for (i = 0; i < n; i++)
		pthread_join(th[i].th, NULL);
	lb_sys_read(&s1);
	counter = atomic_load(&r.data->counter);
	for (i = 0; i < n; i++) {
		acq += th[i].acq;
		total += th[i].total;
		viol += th[i].viol;
		ho += th[i].ho;
		wait += th[i].wait_sum;
		hold += th[i].hold_sum;
		hos += th[i].ho_sum;
		for (b = 0; b < HBUCKETS; b++)
			hist[b] += th[i].hist[b];
		delay += (double)(th[i].t1.delay_ns - th[i].t0.delay_ns);
		life += (double)th[i].life_ns;
		vcs += (double)(th[i].t1.vcsw - th[i].t0.vcsw);
		ivcs += (double)(th[i].t1.ivcsw - th[i].t0.ivcsw);
	}
	ok = viol == 0 && counter == total;
	if (o->check) {
		fprintf(out, "%s,%d,%llu,%llu,%llu,%s\n", ops->name, n,
		    (unsigned long long)total, counter, (unsigned long long)viol,
		    ok ? "ok" : "FAIL");
		goto done;
	}
	fair = (double)acq / n;
	for (i = 0; i < n; i++) {
		double s = fair > 0 ? (double)th[i].acq / fair : 0;

		sum2 += (double)th[i].acq * (double)th[i].acq;
		if (s < mins)
			mins = s;
		if (s > maxs)
			maxs = s;
	}
	jain = sum2 > 0 ? (double)acq * (double)acq / (n * sum2) : 0;
	secs = o->duration;
	fprintf(out, "%s,%d,%d,%.3f,%llu,%.1f,%.4f,%.4f,%.4f,%.1f,%llu,%.1f,%.0f,%.0f,%.1f,"
	    "%.4f,%.1f,%.1f,%.2f,%.2f,%.4f,%.4f,%.4f,%.4f,%d\n",
	    ops->name, n, rep, secs, (unsigned long long)acq, (double)acq / secs, jain, mins,
	    maxs, acq ? wait / (double)acq : 0, (unsigned long long)ho, ho ? hos / (double)ho : 0,
	    hpercentile(hist, ho, 0.5), hpercentile(hist, ho, 0.99),
	    acq ? hold / (double)acq : 0, life > 0 ? delay / life : 0,
	    life > 0 ? (vcs + ivcs) / (life / 1e9) : 0, life > 0 ? ivcs / (life / 1e9) : 0,
	    s0.load1, s1.load1, lb_sys_others(&s0, &s1), lb_sys_steal(&s0, &s1),
	    lb_sys_idle(&s0, &s1), rc.iters_per_ns, ok);
	for (i = 0; pt != NULL && i < n; i++)
		fprintf(pt, "%s,%d,%d,%d,%llu,%.4f,%lld,%lld,%lld,%lld,%lld,%lld\n", ops->name, n,
		    rep, i, (unsigned long long)th[i].acq, fair > 0 ? (double)th[i].acq / fair : 0,
		    (long long)(th[i].t1.run_ns - th[i].t0.run_ns),
		    (long long)(th[i].t1.delay_ns - th[i].t0.delay_ns),
		    (long long)(th[i].t1.slices - th[i].t0.slices),
		    (long long)(th[i].t1.vcsw - th[i].t0.vcsw),
		    (long long)(th[i].t1.ivcsw - th[i].t0.ivcsw), (long long)th[i].life_ns);
done:
	fflush(out);
	pthread_barrier_destroy(&r.bar);
	ops->destroy(r.lock);
	free(r.data);
	free(th);
	return ok;
}

static void
usage(FILE *f)
{
	fputs("usage: lockbench [--locks L,...] [--threads N,...] [--compute NS] [--hold NS]\n"
	    "                 [--duration S] [--warmup S] [--reps N] [--out FILE]\n"
	    "                 [--per-thread FILE] [--trials N]\n"
	    "       lockbench --check [--iters N] [--locks ...] [--threads ...]\n"
	    "       lockbench --calibrate | --list | --sample S | --dry-run ...\n"
	    "  Threads loop compute -> acquire -> hold -> release on one lock for --duration\n"
	    "  seconds (after --warmup), each lock x thread count --reps times; one CSV row\n"
	    "  per run (columns in the header).  Defaults: every lock; threads 1, C, 2C, 3C,\n"
	    "  4C (C: online CPUs); compute 200, hold 200 ns; 1 s after 0.1 s; 3 reps.\n"
	    "  --check: --iters acquisitions per thread (20000), exit 1 unless every lock\n"
	    "  excluded and counted exactly.  --calibrate: the busy loop and clock costs,\n"
	    "  and a 10 ms busy loop timed in thread CPU time.  --list: locks as CSV\n"
	    "  (name,model,description): the vlocksim lock each stands for.  --sample S:\n"
	    "  the 1-minute load, and the CPU shares others used and the host stole over\n"
	    "  S seconds of sleep (CSV load1,others,steal).  --dry-run: how many runs\n"
	    "  and seconds the options would take (CSV runs,seconds).\n", f);
}

static int
parse_num(const char *opt, const char *s, double min, double max, double *out)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(s, &end);
	if (errno || end == s || *end != '\0' || !(v >= min && v <= max)) {
		fprintf(stderr, "lockbench: %s %s: a number in [%g, %g]\n", opt, s, min, max);
		return -1;
	}
	*out = v;
	return 0;
}

static int
parse_args(int argc, char **argv, struct lb_opts *o)
{
	static const struct option lo[] = {
		{ "locks", required_argument, NULL, 'l' },
		{ "threads", required_argument, NULL, 't' },
		{ "compute", required_argument, NULL, 'c' },
		{ "hold", required_argument, NULL, 'H' },
		{ "duration", required_argument, NULL, 'd' },
		{ "warmup", required_argument, NULL, 'w' },
		{ "reps", required_argument, NULL, 'r' },
		{ "trials", required_argument, NULL, 'T' },
		{ "out", required_argument, NULL, 'o' },
		{ "per-thread", required_argument, NULL, 'p' },
		{ "check", no_argument, NULL, 'C' },
		{ "iters", required_argument, NULL, 'i' },
		{ "calibrate", no_argument, NULL, 'K' },
		{ "list", no_argument, NULL, 'L' },
		{ "sample", required_argument, NULL, 'S' },
		{ "dry-run", no_argument, NULL, 'D' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	char *s, *tok, *save;
	double v;
	int c;

	while ((c = getopt_long(argc, argv, "", lo, NULL)) != -1) {
		switch (c) {
		case 'l':
			o->nlocks = 0;
			s = strdup(optarg);
			for (tok = strtok_r(s, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
				if (o->nlocks == 16 || (o->locks[o->nlocks] = lb_lock_find(tok)) == NULL) {
					fprintf(stderr, "lockbench: --locks: unknown lock '%s' "
					    "(lockbench --list)\n", tok);
					free(s);
					return -1;
				}
				o->nlocks++;
			}
			free(s);
			break;
		case 't':
			o->nthreads = 0;
			s = strdup(optarg);
			for (tok = strtok_r(s, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
				if (o->nthreads == 64 || parse_num("--threads", tok, 1, LB_MAX_THREADS, &v) ||
				    v != floor(v)) {
					free(s);
					return -1;
				}
				o->threads[o->nthreads++] = (int)v;
			}
			free(s);
			break;
		case 'c':
			if (parse_num("--compute", optarg, 0, 1e9, &o->compute_ns))
				return -1;
			break;
		case 'H':
			if (parse_num("--hold", optarg, 0, 1e9, &o->hold_ns))
				return -1;
			break;
		case 'd':
			if (parse_num("--duration", optarg, 0.001, 3600, &o->duration))
				return -1;
			break;
		case 'w':
			if (parse_num("--warmup", optarg, 0, 60, &o->warmup))
				return -1;
			break;
		case 'r':
			if (parse_num("--reps", optarg, 1, 1000, &v))
				return -1;
			o->reps = (int)v;
			break;
		case 'T':
			if (parse_num("--trials", optarg, 3, 10000, &v))
				return -1;
			o->trials = (int)v;
			break;
		case 'i':
			if (parse_num("--iters", optarg, 1, 1e10, &v))
				return -1;
			o->iters = (uint64_t)v;
			break;
		case 'o':
			o->out = optarg;
			break;
		case 'p':
			o->per_thread = optarg;
			break;
		case 'C':
			o->check = 1;
			break;
		case 'K':
			o->calibrate_only = 1;
			break;
		case 'L':
			o->list = 1;
			break;
		case 'D':
			o->dry_run = 1;
			break;
		case 'S':
			if (parse_num("--sample", optarg, 0.1, 600, &o->sample))
				return -1;
			break;
		case 'h':
			usage(stdout);
			exit(0);
		default:
			return -1;
		}
	}
	if (optind != argc) {
		fprintf(stderr, "lockbench: unexpected argument '%s'\n", argv[optind]);
		return -1;
	}
	return 0;
}

static void
default_threads(struct lb_opts *o, int cpus)
{
	int k, v;

	o->nthreads = 0;
	o->threads[o->nthreads++] = 1;
	for (k = 1; k <= 4; k++) {
		v = k * cpus;
		if (v > o->threads[o->nthreads - 1] && v <= LB_MAX_THREADS)
			o->threads[o->nthreads++] = v;
	}
}

int
main(int argc, char **argv)
{
	struct lb_opts o;
	struct lb_calib cal;
	FILE *out, *pt = NULL;
	int cpus = (int)sysconf(_SC_NPROCESSORS_ONLN), i, j, rep, bad = 0;

	memset(&o, 0, sizeof o);
	o.compute_ns = 200;
	o.hold_ns = 200;
	o.duration = 1;
	o.warmup = 0.1;
	o.reps = 3;
	o.trials = 50;
	o.iters = 20000;
	if (cpus < 1)
		cpus = 1;
	if (parse_args(argc, argv, &o) != 0) {
		usage(stderr);
		return 2;
	}
	if (o.list) {
		puts("name,model,description");
		for (i = 0; lb_locks[i] != NULL; i++)
			printf("%s,\"%s\",\"%s\"\n", lb_locks[i]->name, lb_locks[i]->model,
			    lb_locks[i]->desc);
		return 0;
	}
	if (o.sample > 0) {
		struct lb_sys a, b;
		struct timespec ts = { (time_t)o.sample,
		    (long)((o.sample - floor(o.sample)) * 1e9) };

		lb_sys_read(&a);
		nanosleep(&ts, NULL);
		lb_sys_read(&b);
		printf("load1,others,steal\n%.2f,%.4f,%.4f\n", b.load1, lb_sys_others(&a, &b),
		    lb_sys_steal(&a, &b));
		return 0;
	}
	if (o.nlocks == 0)
		for (i = 0; lb_locks[i] != NULL; i++)
			o.locks[o.nlocks++] = lb_locks[i];
	if (o.nthreads == 0)
		default_threads(&o, cpus);
	if (o.dry_run) {
		int runs = o.nlocks * o.nthreads * o.reps;

		printf("runs,seconds\n%d,%.1f\n", runs, runs * (o.duration + o.warmup));
		return 0;
	}
	lb_calibrate(&cal, o.trials);
	out = open_out(o.out);
	if (o.calibrate_only) {
		const double target = 1e7;	/* 10 ms */
		int64_t c0 = lb_thread_cpu(), w0 = lb_now();

		lb_spin(lb_iters(&cal, target));
		fprintf(out, "iters_per_ns,iters_per_ns_median,clock_ns,target_ns,cpu_ns,wall_ns\n"
		    "%.4f,%.4f,%.2f,%.0f,%lld,%lld\n", cal.iters_per_ns, cal.iters_per_ns_median,
		    cal.clock_ns, target, (long long)(lb_thread_cpu() - c0),
		    (long long)(lb_now() - w0));
		return 0;
	}
	fprintf(out, "# lockbench %s: threads loop compute -> acquire -> hold -> release\n",
	    LB_VERSION);
	{
		cpu_set_t set;

		/* Fewer CPUs allowed than online (an inherited affinity, a cpuset)
		 * is a different machine: said, and the lab refuses it. */
		CPU_ZERO(&set);
		fprintf(out, "# cpus: %d\n# cpus_allowed: %d\n", cpus,
		    sched_getaffinity(0, sizeof set, &set) == 0 ? CPU_COUNT(&set) : cpus);
	}
	fprintf(out, "# compute_ns: %g\n# hold_ns: %g\n", o.compute_ns, o.hold_ns);
	fprintf(out, "# iters_per_ns: %.4f\n# iters_per_ns_median: %.4f\n# clock_ns: %.2f\n"
	    "# calibration_trials: %d\n", cal.iters_per_ns, cal.iters_per_ns_median,
	    cal.clock_ns, cal.trials);
	if (o.check) {
		fprintf(out, "# iters: %llu per thread\nlock,threads,acquisitions,counter,"
		    "violations,result\n", (unsigned long long)o.iters);
		for (i = 0; i < o.nlocks; i++)
			for (j = 0; j < o.nthreads; j++)
				bad += !run_one(&o, o.locks[i], o.threads[j], 0, out, NULL);
		return bad ? 1 : 0;
	}
	{
		double loop, section;

		loop_overhead(&cal, o.compute_ns, o.hold_ns, 20, &loop, &section);
		fprintf(out, "# loop_ns: %.2f\n# section_ns: %.2f\n", loop, section);
	}
	fprintf(out, "# duration_s: %g\n# warmup_s: %g\n# reps: %d\n"
	    "# timing: a section holds hold_ns + 2 clock reads, a thread computes compute_ns"
	    " + 1 clock read between sections; loop_ns: one thread's iteration with no lock"
	    " (lock none), section_ns: its t2 - t1 (fastest of 20 batches of 2000)\n",
	    o.duration, o.warmup, o.reps);
	fputs("lock,threads,rep,seconds,acquisitions,ops_per_sec,jain,min_share,max_share,"
	    "wait_mean_ns,handovers,handover_mean_ns,handover_p50_ns,handover_p99_ns,"
	    "hold_mean_ns,run_delay_share,cs_per_sec,ivcs_per_sec,load1_before,load1_after,"
	    "others_cpu,steal,idle_cpu,iters_per_ns,valid\n", out);
	if (o.per_thread != NULL) {
		pt = open_out(o.per_thread);
		fputs("lock,threads,rep,thread,acquisitions,share,run_ns,run_delay_ns,timeslices,"
		    "vcsw,ivcsw,life_ns\n", pt);
	}
	for (rep = 0; rep < o.reps; rep++)
		for (i = 0; i < o.nlocks; i++)
			for (j = 0; j < o.nthreads; j++)
				bad += !run_one(&o, o.locks[i], o.threads[j], rep, out, pt);
	if (pt != NULL && pt != stdout)
		fclose(pt);
	if (out != stdout && fclose(out) != 0) {
		fprintf(stderr, "lockbench: %s: %s\n", o.out, strerror(errno));
		return 1;
	}
	if (bad)
		fprintf(stderr, "lockbench: %d runs failed the exclusion check\n", bad);
	return bad ? 1 : 0;
}
