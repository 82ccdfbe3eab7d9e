/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * run.c - one replication of a scenario (run.h): the host, VMs, guests and
 * workloads built from the parsed scenario, the run, and its metrics
 * collected in a fixed order.
 */
#include "run.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "engine.h"
#include "guest/guest.h"
#include "guest/kernel.h"
#include "guest/gvm.h"
#include "guest/lock.h"
#include "guest/slock.h"
#include "guest/vdisk.h"
#include "workload/workload.h"
#include "hv/hv.h"
#include "rng.h"
#include "scenario.h"
#include "stats.h"

uint64_t
run_seed(uint64_t seed, int rep)
{
	return rep == 0 ? seed : vs_mix64(seed ^ vs_mix64((uint64_t)rep));
}

/* The pCPUs' idle (hv_idle.c): %C0 counts polling and running as busy. */
static void
idle_metrics(const struct hv *hv, struct metrics *out)
{
	double in_c = 0, exit_ns = 0, wakes = 0, all = (double)hv_measured_ns(hv) * hv->npcpus;
	int i;

	for (i = 0; i < hv->npcpus; i++) {
		const struct pcpu *p = &hv->pcpus[i];

		in_c += (double)(p->cstate_time - p->cstate_time0);
		exit_ns += p->cstate_exit_ns - p->cstate_exit_ns0;
		wakes += (double)(p->cstate_wakes - p->cstate_wakes0);
	}
	metrics_add(out, "c0_share", "% of pCPU time", all > 0 ? 100 * (all - in_c) / all : 100);
	metrics_add(out, "cstate_wakes", "count", wakes);
	metrics_add(out, "cstate_exit_seconds", "s", exit_ns * 1e-9);
}

/* A stream keyed by the VM's name and the vCPU's index, not by creation order. */
static uint64_t
vcpu_entity(const char *vm, int idx)
{
	uint64_t h = 1469598103934665603ULL;	/* FNV-1a */

	for (; *vm; vm++)
		h = (h ^ (unsigned char)*vm) * 1099511628211ULL;
	return vs_mix64(h) + (uint64_t)idx;
}

static struct run_limits limits;

void
run_set_limits(const struct run_limits *l)
{
	limits = *l;
}

/* Why sim stopped short, in err: which limit, when, and where the last task
 * to run stood. */
static int
stopped(const struct scenario *sc, const struct sim *sim, const struct grun *grun,
    struct vs_err *err)
{
	char where[300], what[200];

	if (sim->fail_where[0] != '\0')
		snprintf(where, sizeof where, "%s", sim->fail_where);
	else
		wl_grun_where(grun, where, sizeof where);
	switch (sim->fail) {
	case SIM_FAIL_CAP:
		snprintf(what, sizeof what, "simulated time would pass its cap of %.0e ns "
		    "(%.1f years): a time drawn or summed is too long", (double)SIM_TIME_CAP,
		    (double)SIM_TIME_CAP * 1e-9 / (365.25 * 86400));
		break;
	case SIM_FAIL_STALL:
		if (sim->fail_where[0] != '\0')	/* a task's own primitives, in one event */
			snprintf(what, sizeof what, "the watchdog: simulated time stood still, "
			    "a run that cannot end");
		else
			snprintf(what, sizeof what, "the watchdog: simulated time stood still "
			    "(%llu events at one instant), a run that cannot end",
			    (unsigned long long)sim->stall_events);
		break;
	case SIM_FAIL_EVENTS:
		snprintf(what, sizeof what, "--max-events %llu reached",
		    (unsigned long long)sim->max_events);
		break;
	case SIM_FAIL_TIMEOUT:
		snprintf(what, sizeof what, "--timeout %gs of wall time reached", limits.timeout);
		break;
	case SIM_FAIL_NONE:
		VS_ASSERT(0);
	}
	vs_errf(err, NULL, 0, 0, "%s: run stopped at %.9g s of simulated time after %llu "
	    "events: %s; the last task to run: %s", sc->path, (double)sim->now * 1e-9,
	    (unsigned long long)sim->events, what, where);
	return RUN_STOPPED;
}

/* Per VM definition: the instances built from it. */
struct built {
	struct vm **vms;
	int n;
};

/* The host's delivery of the entry's IPIs (models/guest/ipi.c deliver):
 * host time per delivered destination, split sender / delivery / target
 * wake, and where the destinations were; per VM of the entry. */
static void
collect_ipi_host(const struct vmdef *d, const struct built *b, struct metrics *out)
{
	double run = 0, kicks = 0, wakes = 0, waiting = 0, snd = 0, dlv = 0, wk = 0, n;
	char name[256];
	int i;

	for (i = 0; i < b->n; i++) {
		const struct gk_stats *st = gk_stats(gvm_of(b->vms[i])->k);

		run += (double)st->ipi_to_running;
		kicks += (double)st->ipi_kicks;
		wakes += (double)st->ipi_wakes;
		waiting += (double)st->ipi_to_waiting;
		snd += st->ipi_sender_ns;
		dlv += st->ipi_deliver_ns;
		wk += st->ipi_wake_ns;
	}
	n = run + wakes + waiting;
#define IM(suffix, unit, v) do { \
	snprintf(name, sizeof name, "%s.%s", d->name, suffix); \
	metrics_add(out, name, unit, v); } while (0)
	IM("ipis_delivered", "count", n / b->n);
	IM("ipi_to_running", "count", run / b->n);
	IM("ipi_kicks", "count", kicks / b->n);
	IM("ipi_wakes", "count", wakes / b->n);
	IM("ipi_to_preempted", "count", waiting / b->n);
	IM("ipi_host_sender_ns", "ns", n > 0 ? snd / n : 0);
	IM("ipi_host_delivery_ns", "ns", n > 0 ? dlv / n : 0);
	IM("ipi_host_wake_ns", "ns", n > 0 ? wk / n : 0);
#undef IM
}

/* The scheduler's locks (guest.sched_locks): rq->lock and p->pi_lock as two
 * classes, per VM; contentions per busy CPU-second as bench/profile's
 * summaries give them (busy: the vCPUs' time less the guest's idle). */
static void
collect_sched_locks(const struct vmdef *d, const struct built *b, double busy_ns,
    struct metrics *out)
{
	struct gk_lockclass c[2];
	const char *cls[2] = { "sched_rq", "sched_pi" };
	char name[256];
	int i, j;

	memset(c, 0, sizeof c);
	for (i = 0; i < b->n; i++)
		gk_sched_lock_stats(gvm_of(b->vms[i])->k, &c[0], &c[1]);
	for (j = 0; j < 2; j++) {
		double a = c[j].acquisitions;

#define CM(suffix, unit, v) do { \
	snprintf(name, sizeof name, "%s.%s.%s", d->name, cls[j], suffix); \
	metrics_add(out, name, unit, v); } while (0)
		CM("acquisitions", "count", a / b->n);
		CM("contentions_per_busy_cpu_s", "1/s", busy_ns > 0 ? c[j].contended / (busy_ns * 1e-9)
		    : 0);
		CM("contended_share", "%", a > 0 ? 100 * c[j].contended / a : 0);
		CM("wait_mean_ns", "ns", a > 0 ? c[j].wait_ns / a : 0);
		CM("hold_mean_ns", "ns", a > 0 ? c[j].hold_ns / a : 0);
		CM("wait_holder_preempted_ns", "ns", a > 0 ? c[j].wait_lhp_ns / a : 0);
		if (j == 1)
			CM("oncpu_waits", "count", c[j].oncpu_waits / b->n);
#undef CM
	}
}

/* The guest kernel's view of a task-form VM entry, summed over its VMs. */
static void
collect_kernel(const struct vmdef *d, const struct built *b, struct hv *hv,
    struct metrics *out)
{
	double secs = (double)hv_measured_ns(hv) * 1e-9, vcpu_ns = 0;
	double idle = 0, halts = 0, ctx = 0, migr = 0, wakes = 0, ipis = 0, ticks = 0, spawned = 0;
	double pipis = 0;
	double disk = 0, reads = 0;
	double icalls = 0, isent = 0, irecv = 0, iexits = 0, shoot = 0, pvm = 0, pvf = 0, pvy = 0;
	double iwait = 0, tirq = 0, twake = 0, truns = 0, gpok = 0, gpfail = 0, gpns = 0;
	struct hist *h = hist_new(), *hw = hist_new();
	int i, k, nm = wl_nmarks(d->wl);
	char name[256], mk[200];

	for (i = 0; i < b->n; i++) {
		const struct gk_stats *st = gk_stats(gvm_of(b->vms[i])->k);

		vcpu_ns += (double)b->vms[i]->nvcpus * (double)hv_measured_ns(hv);
		idle += st->idle_ns;
		halts += (double)st->idle_halts;
		ctx += (double)st->ctx_switches;
		migr += (double)st->migrations;
		wakes += (double)st->wakeups;
		ipis += (double)st->ipis;
		pipis += (double)st->preempt_ipis;
		ticks += (double)st->ticks;
		spawned += (double)st->spawned;
		disk += vdisk_busy_ns(gvm_of(b->vms[i])->disk);
		reads += (double)vdisk_requests(gvm_of(b->vms[i])->disk);
		hist_merge(h, st->wake_lat);
		icalls += (double)st->ipi_calls;
		isent += (double)st->ipis_sent;
		irecv += (double)st->ipis_received;
		iexits += (double)st->ipi_exits;
		shoot += (double)st->tlb_shootdowns;
		pvm += (double)st->pv_tlb_marked;
		pvf += (double)st->pv_tlb_flushed;
		pvy += (double)st->pv_yields;
		iwait += st->ipi_wait_ns;
		hist_merge(hw, st->ipi_wait);
		tirq += (double)st->timer_irqs;
		twake += (double)st->timer_wakes;
		truns += (double)gk_timer_stats(gvm_of(b->vms[i])->k)->runs;
		gpok += (double)st->gpolls_ok;
		gpfail += (double)st->gpolls_failed;
		gpns += st->gpoll_ns;
	}
#define KM(suffix, unit, v) do { \
	snprintf(name, sizeof name, "%s.%s", d->name, suffix); \
	metrics_add(out, name, unit, v); } while (0)
	KM("guest_idle_share", "%", vcpu_ns > 0 ? 100 * idle / vcpu_ns : 0);
	KM("idle_halts_per_sec", "1/s", secs > 0 ? halts / secs / b->n : 0);
	if (d->guest.hp.max_ns > 0) {	/* cpuidle-haltpoll loaded */
		KM("guest_polls_ok", "count", gpok / b->n);
		KM("guest_polls_failed", "count", gpfail / b->n);
		KM("guest_poll_cpu_share", "% of a CPU", secs > 0 ? 100 * gpns * 1e-9 / secs / b->n
		    : 0);
	}
	KM("guest_ctx_switches", "count", ctx);
	KM("task_migrations", "count", migr);
	KM("task_wakeups", "count", wakes);
	KM("resched_ipis", "count", ipis);
	KM("preempt_ipis", "count", pipis);
	KM("guest_ticks", "count", ticks);
	KM("timer_irqs", "count", tirq);
	KM("timer_wakes", "count", twake);
	KM("timer_runs", "count", truns);
	KM("tasks_spawned", "count", spawned);
	KM("disk_reads", "count", reads);
	KM("disk_busy_share", "%", secs > 0 ? 100 * disk * 1e-9 / secs / b->n : 0);
	KM("wake_latency_mean_ns", "ns", hist_count(h) ? hist_mean(h) : 0);
	KM("wake_latency_p99_ns", "ns", hist_count(h) ? hist_quantile(h, 0.99) : 0);
	/* IPIs (models/guest/ipi.c), per VM of the entry */
	KM("ipi_calls", "count", icalls / b->n);
	KM("ipis_sent", "count", isent / b->n);
	KM("ipis_received", "count", irecv / b->n);
	KM("ipi_send_exits", "count", iexits / b->n);
	KM("ipi_wait_mean_ns", "ns", hist_count(hw) ? iwait / (double)hist_count(hw) : 0);
	KM("ipi_wait_p99_ns", "ns", hist_count(hw) ? hist_quantile(hw, 0.99) : 0);
	/* senders' time spinning for their targets, over the VMs' vCPU time */
	KM("ipi_wait_share", "%", vcpu_ns > 0 ? 100 * iwait / vcpu_ns : 0);
	KM("tlb_shootdowns", "count", shoot / b->n);
	KM("pv_tlb_flush_marked", "count", pvm / b->n);
	KM("pv_tlb_flushes_on_entry", "count", pvf / b->n);
	KM("pv_sched_yields", "count", pvy / b->n);
	collect_ipi_host(d, b, out);
	if (d->guest.sched_locks)
		collect_sched_locks(d, b, vcpu_ns - idle, out);
	hist_free(h);
	hist_free(hw);
	/* Timed regions (`mark:`): the mean and sd of the intervals in the run, as
	 * kernbench prints its runs' "avg (sdev)". */
	for (k = 0; k < nm; k++) {
		struct rep r;
		int j;

		rep_init(&r);
		for (i = 0; i < b->n; i++) {
			const struct rep *m = wl_vm_mark(b->vms[i], k);

			/* pool the VMs' intervals: each VM's mean n times (same-n VMs) */
			for (j = 0; j < (int)m->n; j++)
				rep_add(&r, rep_mean(m));
		}
		if (b->n == 1)
			r = *wl_vm_mark(b->vms[0], k);
		snprintf(mk, sizeof mk, "%s_mean_s", wl_mark_name(d->wl, k));
		KM(mk, "s", rep_mean(&r));
		snprintf(mk, sizeof mk, "%s_sd_s", wl_mark_name(d->wl, k));
		KM(mk, "s", rep_sd(&r));
		snprintf(mk, sizeof mk, "%s_n", wl_mark_name(d->wl, k));
		KM(mk, "count", (double)r.n);
	}
#undef KM
}

/* Sleeping locks (mutex, rwsem; mmap_sem if used), summed over the entry's VMs. */
static void
collect_slocks(const struct vmdef *d, const struct built *b, struct hv *hv,
    struct metrics *out)
{
	int ns = wl_nslocks(d->wl), nm = wl_uses_mmap_sem(d->wl) ? wl_nmms(d->wl) : 0, k, i, j;
	char name[256];

	for (k = 0; k < ns + nm && b->n > 0; k++) {
		struct hist *h = hist_new();
		double acq = 0, cont = 0, spins = 0, spin_ok = 0, sleeps = 0, spin = 0, sleep = 0;
		double vcpu_ns = 0;
		const struct gvm *g0 = gvm_of(b->vms[0]);
		/* a class of instances as one (its first, and how many); an mm's mmap_sem */
		int first = k < ns ? g0->sl_base[k] : g0->nslocks + k - ns;
		int n = k < ns ? g0->sl_base[k + 1] - first : 1;
		const char *ln = k < ns ? wl_slock_name(d->wl, k) : g0->sl[first]->name;

		for (i = 0; i < b->n; i++) {
			for (j = 0; j < n; j++) {
				const struct slock *l = gvm_of(b->vms[i])->sl[first + j];

				acq += (double)l->st.acquisitions;
				cont += (double)l->st.contended;
				spins += (double)l->st.spins;
				spin_ok += (double)l->st.spin_acquired;
				sleeps += (double)l->st.sleeps;
				spin += l->st.spin_ns;
				sleep += l->st.sleep_ns;
				hist_merge(h, l->st.wait);
			}
			vcpu_ns += (double)b->vms[i]->nvcpus * (double)hv_measured_ns(hv);
		}
#define SM(suffix, unit, v) do { \
	snprintf(name, sizeof name, "%s.%s.%s", d->name, ln, suffix); \
	metrics_add(out, name, unit, v); } while (0)
		SM("acquisitions", "count", acq / b->n);
		SM("contended_share", "%", acq > 0 ? 100 * cont / acq : 0);
		SM("spins", "count", spins / b->n);
		SM("spin_acquired", "count", spin_ok / b->n);
		SM("sleeps", "count", sleeps / b->n);
		SM("wait_mean_ns", "ns", hist_count(h) ? hist_mean(h) : 0);
		SM("wait_p99_ns", "ns", hist_count(h) ? hist_quantile(h, 0.99) : 0);
		/* optimistic spinning over the VMs' vCPU time; sleeping is task time */
		SM("spin_share", "%", vcpu_ns > 0 ? 100 * spin / vcpu_ns : 0);
		SM("sleep_mean_ns", "ns", sleeps > 0 ? sleep / sleeps : 0);
#undef SM
		hist_free(h);
	}
}

/* A VM's time from the warm-up's end to its last thread's end, or to now. */
static sim_time_t
vm_elapsed(const struct hv *hv, const struct vm *vm)
{
	sim_time_t at = wl_vm_done_at(vm);

	if (at < 0 || at > hv->sim->now)
		at = hv->sim->now;
	return at > hv->stats_from ? at - hv->stats_from : 0;
}

static void
collect_def(const struct vmdef *d, const struct built *b, struct hv *hv,
    struct metrics *out)
{
	double rs[RS_N] = { 0 }, total = 0, secs = (double)hv_measured_ns(hv) * 1e-9;
	int i, j, k, nl, nc = wl_ncounters(d->wl);
	char name[256];

	for (i = 0; i < b->n; i++)
		for (j = 0; j < b->vms[i]->nvcpus; j++)
			for (k = 0; k < RS_N; k++) {
				rs[k] += (double)vcpu_rs_measured(b->vms[i]->vcpus[j], k);
				total += (double)vcpu_rs_measured(b->vms[i]->vcpus[j], k);
			}
	for (k = 0; k < RS_N; k++) {
		snprintf(name, sizeof name, "%s.%s_share", d->name, runstate_name(k));
		metrics_add(out, name, "%", total > 0 ? 100.0 * rs[k] / total : 0);
	}
	for (k = 0; k < nc; k++) {
		double c = 0;

		for (i = 0; i < b->n; i++)
			c += (double)wl_vm_count(b->vms[i], k);
		snprintf(name, sizeof name, "%s.%s", d->name, wl_counter_name(d->wl, k));
		metrics_add(out, name, "count", c);
		snprintf(name, sizeof name, "%s.%s_per_sec", d->name, wl_counter_name(d->wl, k));
		metrics_add(out, name, "1/s", secs > 0 ? c / secs : 0);
		/* The mean VM's rate, as a benchmark run in every VM reports it. */
		snprintf(name, sizeof name, "%s.%s_per_vm_sec", d->name, wl_counter_name(d->wl, k));
		metrics_add(out, name, "1/s", secs > 0 && b->n > 0 ? c / secs / b->n : 0);
	}
	{
		/* Each VM's elapsed time to its last thread's end (the run's length if
		 * it has not ended), averaged over the entry's VMs; from the warm-up's
		 * end. */
		double t = 0;

		for (i = 0; i < b->n; i++)
			t += (double)vm_elapsed(hv, b->vms[i]) * 1e-9;
		snprintf(name, sizeof name, "%s.vm_seconds", d->name);
		metrics_add(out, name, "s", b->n > 0 ? t / b->n : 0);
	}
	if (wl_has_tasks(d->wl) && b->n > 0)
		collect_kernel(d, b, hv, out);
	collect_slocks(d, b, hv, out);
	nl = wl_nlocks(d->wl);
	for (k = 0; k < nl && b->n > 0; k++) {
		struct hist *h = hist_new();
		double acq = 0, cont = 0, wait = 0, hold = 0, path = 0, cpu = 0, slow = 0, spur = 0;
		double lhp = 0, hand = 0;
		double calls = wl_lock_calls(d->wl, k);
		const char *ln = wl_lock_name(d->wl, k);
		const struct glock *l0 = gvm_lock(gvm_of(b->vms[0]), k, 0);

		for (i = 0; i < b->n; i++) {
			/* a class of instances (a lock per object) as one, as lock_stat
			 * reports a lock class */
			for (j = 0; j < wl_lock_instances(d->wl, k); j++) {
				const struct glock *l = gvm_lock(gvm_of(b->vms[i]), k, j);

				acq += (double)l->st.acquisitions;
				cont += (double)lock_contended(l);
				wait += lock_wait_ns(l);
				lhp += l->st.wait_lhp_ns;
				hand += l->st.wait_free_ns;
				hold += lock_hold_ns(l);
				path += l->st.path_ns;
				slow += (double)l->st.slow;
				spur += (double)l->st.spurious;
				hist_merge(h, l->st.wait);
			}
			/* CPU time of the VM's threads: threads x its elapsed time */
			cpu += (double)wl_vm_threads(b->vms[i]) * (double)vm_elapsed(hv, b->vms[i]);
		}
#define LM(suffix, unit, v) do { \
	snprintf(name, sizeof name, "%s.%s.%s", d->name, ln, suffix); \
	metrics_add(out, name, unit, v); } while (0)
		LM("acquisitions", "count", acq);
		LM("contended_share", "%", acq > 0 ? 100 * cont / acq : 0);
		LM("wait_mean_ns", "ns", acq > 0 ? wait / acq : 0);
		LM("wait_p50_ns", "ns", hist_quantile(h, 0.5));
		LM("wait_p99_ns", "ns", hist_quantile(h, 0.99));
		LM("hold_mean_ns", "ns", acq > 0 ? hold / acq : 0);
		/* Where the waits went (lock.h glock_stats): holder preempted, lock
		 * free waiting for its next owner (a preempted or halted waiter). */
		LM("wait_holder_preempted_ns", "ns", acq > 0 ? lhp / acq : 0);
		LM("wait_handover_ns", "ns", acq > 0 ? hand / acq : 0);
		/*
		 * The critical path as a caller times it (rdtsc before the lock, after
		 * the unlock; seed 003): acquire() to the continuation past the
		 * release, summed over calls; a combining waiter's includes its section
		 * run by the combiner, the combiner's every section it ran.
		 */
		LM("path_cycles_mean", "cycles", acq > 0 ? path / acq * hv->m->hz * 1e-9 : 0);
		/* Extrapolated to the measured run's `calls:` (else the simulated total). */
		LM("path_gcycles", "Gcycles", acq > 0 ? path / acq * hv->m->hz * 1e-18 *
		    (calls > 0 ? calls : acq) : 0);
		/*
		 * Lock time as perf sees it: CPU time inside the lock's code that is not
		 * a critical section (spinning, hand-over), = sum of paths - sum of holds
		 * (each section once), over the threads' CPU time.
		 */
		LM("spin_share", "%", cpu > 0 ? 100 * (path - hold) / cpu : 0);
		/* A lock with a pool (lock.h): sections that found it empty or full. */
		if (l0->pool_batches > 0)
			LM("slow_share", "%", acq > 0 ? 100 * slow / acq : 0);
		/* A slow path that halts with interrupts on (lock.h halt_irqs). */
		if (l0->halt_irqs)
			LM("spurious_wakeups", "count", spur);
#undef LM
		hist_free(h);
	}
}

/* Self-check (cf. ROSS --synch=6): conservation laws that must always hold. */
static void
self_check(struct hv *hv)
{
	int i, k;

	for (i = 0; i < hv->nvcpus; i++) {
		sim_time_t sum = 0;

		for (k = 0; k < RS_N; k++)
			sum += hv->vcpus[i]->rs_time[k];
		if (sum != hv->sim->now)
			vs_fatal("vCPU %d: runstate times add to %lld ns, run lasted %lld ns",
			    i, (long long)sum, (long long)hv->sim->now);
	}
}

/* --check=full: a VM whose every thread has ended holds no lock, and none waits. */
static void
locks_released(const struct scenario *sc, const struct built *b)
{
	int i, j, k;

	for (i = 0; i < sc->nvms; i++)
		for (j = 0; j < b[i].n; j++)
			for (k = 0; wl_vm_done_at(b[i].vms[j]) >= 0 &&
			    k < gvm_of(b[i].vms[j])->nlocks; k++) {
				const struct glock *l = gvm_of(b[i].vms[j])->locks[k];

				if (l->holder != NULL || lock_waiting(l) != 0)
					vs_fatal("check: VM %s lock %s: held by vCPU %d with %d "
					    "waiting after every thread ended", b[i].vms[j]->name,
					    l->name, l->holder ? l->holder->id : -1, lock_waiting(l));
			}
}

/*
 * The warm-up ends: every book a metric reads starts again from zero, the
 * host's (hv_stats_reset) and each VM's guest (wl_vm_stats_reset), and the
 * rates and shares count from now (hv->stats_from).
 */
static void
warmup_end(void *s, void *arg, int64_t data)
{
	struct hv *hv = arg;
	int i;

	(void)s;
	(void)data;
	hv_stats_reset(hv);
	for (i = 0; i < hv->nvms; i++)
		wl_vm_stats_reset(hv->vms[i]);
}

/* Which path each device access took (hv/hv_io.h), where a program has
 * an `io:` step, so scenarios without one print what they did before. */
static void
io_paths(const struct scenario *sc, const struct hv *hv, struct metrics *out)
{
	char name[48];
	int i, any = 0;

	for (i = 0; i < sc->nvms; i++)
		any |= sc->vms[i].wl != NULL && wl_uses_io(sc->vms[i].wl);
	for (i = 0; any && i < IOP_N; i++) {
		snprintf(name, sizeof name, "io_path_%s", hv_io_path_name((enum io_path)i));
		metrics_add(out, name, "count", (double)hv->st.io_path[i]);
	}
}

static void
run_tick(const struct sim *s, void *arg)
{
	const struct run_opts *o = arg;

	o->progress(o->progress_arg, (double)s->now);
}

int
run_once(const struct scenario *sc, uint64_t seed, const struct run_opts *o,
    struct metrics *out, struct vs_err *err)
{
	struct sim sim;
	struct hv hv;
	struct grun grun = { 0, sc->until_done, 0 };
	struct built *b = xcalloc((size_t)sc->nvms, sizeof *b);
	double t0, wall;
	int i, j, rc = -1;

	sim_init(&sim, seed, sc->duration == SIM_NEVER ? SIM_NEVER : sc->warmup + sc->duration);
	sim.max_events = limits.max_events;
	sim.deadline = limits.deadline;
	hv_init(&hv, &sim, &sc->machine, sc->sched, &guest_hv_ops);
	hv.guest = &grun;
	hv.probe = o->probe;
	hv.check = o->check;
	hv.fast_forward = sc->fast_forward;
	for (i = 0; i < sc->nvms; i++) {
		const struct vmdef *d = &sc->vms[i];

		b[i].vms = xcalloc((size_t)d->count + 1, sizeof *b[i].vms);
		for (j = 0; j < d->count; j++) {
			char *nm = d->count > 1 ? xasprintf("%s%d", d->name, j) : xstrdup(d->name);
			struct vm *vm = hv_add_vm(&hv, nm, d->vcpus, d->affinity, d->where);
			int k;

			vm->cg.weight = d->cg_weight;
			vm->cg.quota = d->cg_quota;
			vm->cg.period = d->cg_period;
			vm->cg.where = d->cg_where;
			vm->cg.name = d->cg_name;

			for (k = 0; k < d->vcpus; k++)
				vm->vcpus[k]->rng = rng_new(seed, vcpu_entity(nm, k));
			struct gk_config kc = d->guest;

			kc.check = o->check >= 2;	/* full: the guest kernel's invariants too */
			wl_vm_setup(vm, d->wl, d->threads, d->lock, d->lock_cfg, &kc, &grun);
			b[i].vms[b[i].n++] = vm;
			free(nm);
		}
	}
	hv.kind = sc->kind;
	kind_op_init(hv.kind, &hv, sc->kind_cfg);
	if (hv_start(&hv, sc->sched_cfg, err))
		goto out;
	for (i = 0; i < hv.nvms; i++)
		wl_vm_start(hv.vms[i]);
	if (sc->until_done && grun.live == 0 && sc->duration == SIM_NEVER) {
		vs_errf(err, NULL, 0, 0, "%s: 'until: done' but no thread ever ends "
		    "(no finite workload has a thread): give a 'duration'", sc->path);
		goto out;
	}
	if (sc->warmup > 0)
		sim_at(&sim, sc->warmup, warmup_end, &hv, 0);
	if (o->progress != NULL) {
		sim.tick = run_tick;
		sim.tick_arg = (void *)o;
	}
	t0 = sim_wall();
	if (!o->names_only)
		sim_run(&sim);
	wall = sim_wall() - t0;
	if (sim.fail != SIM_FAIL_NONE) {
		rc = stopped(sc, &sim, &grun, err);
		goto out;
	}
	hv_finish(&hv);
	for (i = 0; i < hv.nvms; i++)
		wl_vm_finish(hv.vms[i]);
	if (o->check)
		self_check(&hv);
	if (o->check >= 3)
		locks_released(sc, b);

	metrics_add(out, "sim_seconds", "s", (double)hv_measured_ns(&hv) * 1e-9);
	if (sc->until_done) {
		double done = grun.live == 0 ? (double)grun.last_done : (double)sim.now;

		metrics_add(out, "completed", "bool", grun.live == 0);
		metrics_add(out, "completion_seconds", "s", done * 1e-9);
		metrics_add(out, "megacycles", "Mcycles", done * 1e-9 * sc->machine.hz * 1e-6);
	}
	metrics_add(out, "events", "count", (double)sim.events);
	metrics_add(out, "events_per_sec", "1/s",
	    o->wall_clock && wall > 0 ? (double)sim.events / wall : 0);
	metrics_add(out, "host_ticks_skipped", "count", (double)hv.st.ticks_skipped);
	metrics_add(out, "guest_ticks_skipped", "count", (double)evq_ghost_pops(sim.q));
	metrics_add(out, "steps_folded", "count", (double)sim.folded);
	metrics_add(out, "ctx_switches", "count", (double)hv.st.ctx_switches);
	metrics_add(out, "hlt_exits", "count", (double)hv.st.exits_hlt);
	metrics_add(out, "ple_exits", "count", (double)hv.st.exits_ple);
	metrics_add(out, "ple_exits_bulk", "count", (double)hv.st.exits_ple_bulk);
	metrics_add(out, "io_exits", "count", (double)hv.st.exits_io);
	metrics_add(out, "io_exit_cpu_share", "% of a CPU",
	    hv_measured_ns(&hv) > 0 ? 100 * hv.st.io_ns / (double)hv_measured_ns(&hv) : 0);
	io_paths(sc, &hv, out);
	metrics_add(out, "hypercalls", "count", (double)hv.st.exits_hypercall);
	metrics_add(out, "ipi_exits", "count", (double)hv.st.exits_ipi);
	metrics_add(out, "timer_exits", "count", (double)hv.st.exits_timer);
	metrics_add(out, "yield_to_ok", "count", (double)hv.st.yield_to_ok);
	metrics_add(out, "yield_to_fail", "count", (double)hv.st.yield_to_fail);
	metrics_add(out, "yields", "count", (double)hv.st.yields);
	metrics_add(out, "blocks", "count", (double)hv.st.blocks);
	metrics_add(out, "wakes", "count", (double)hv.st.wakes);
	metrics_add(out, "halt_polls_ok", "count", (double)hv.st.halt_polls_ok);
	idle_metrics(&hv, out);
	kind_op_metrics(hv.kind, &hv, out);
	for (i = 0; i < sc->nvms; i++)
		collect_def(&sc->vms[i], &b[i], &hv, out);
	rc = 0;
out:
	for (i = 0; i < hv.nvms; i++)
		wl_vm_teardown(hv.vms[i]);
	for (i = 0; i < hv.nvcpus; i++)
		rng_free(hv.vcpus[i]->rng);
	for (i = 0; i < sc->nvms; i++)
		free(b[i].vms);
	free(b);
	hv_destroy(&hv);
	sim_destroy(&sim);
	return rc;
}

int
run_check_metrics(const struct scenario *sc, struct vs_err *err)
{
	struct run_opts o = { 0 };
	struct metrics m;
	int i, rc = 0;

	if (sc->nmetrics == 0)
		return 0;
	o.names_only = 1;
	metrics_init(&m);
	if (run_once(sc, sc->seed, &o, &m, err) == 0) {
		for (i = 0; i < sc->nmetrics && rc == 0; i++)
			if (metrics_find(&m, sc->metrics[i]) < 0)
				rc = vs_errf(err, NULL, 0, 0, "%s: unknown metric '%s' (vlocksim "
				    "list shows how metrics are named)", sc->metric_where[i],
				    sc->metrics[i]);
	} else
		rc = -1;
	metrics_free(&m);
	return rc;
}

int
run_reps(const struct scenario *sc, uint64_t seed, int reps, const struct run_opts *o,
    struct msum *sum, struct vs_err *err)
{
	int r, c;

	for (r = 0; r < reps; r++) {
		struct metrics m;

		metrics_init(&m);
		if ((c = run_once(sc, run_seed(seed, r), o, &m, err)) != 0) {
			metrics_free(&m);
			return c;
		}
		msum_add(sum, &m);
		metrics_free(&m);
	}
	return 0;
}
