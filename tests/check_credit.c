/* SPDX-License-Identifier: GPL-2.0-or-later */
/* check_credit.c - the Xen credit scheduler `credit` (models/hv/sched_credit.c). */
#include "testutil.h"
#include "rig.h"

#include "engine.h"
#include "hv/hv.h"
#include "hv/sched.h"
#include "hv/sched_credit.h"
#include "hw/machine.h"
#include "yconf.h"

#define MS	1000000LL
#define US	1000LL

/* ---- a host built by hand: vCPUs without guest work just run ---- */

#define M1 "{sockets: 1, cores_per_socket: 1, threads_per_core: 1, clock: 2GHz}"
#define M4 "{sockets: 1, cores_per_socket: 4, threads_per_core: 1, clock: 2GHz}"

/* ---- accounting arithmetic (XEN-4.2 csched_acct, burn_credits) ---- */

static struct csched_acct_ctx
ctx(int64_t credit_total, int64_t weight_total, int64_t prev_balance)
{
	struct csched_acct_ctx c = { credit_total, weight_total, weight_total, prev_balance,
		300, 0 };

	return c;
}

START_TEST(acct_share_arithmetic)
{
	struct csched_acct_ctx c;
	int vcap, head;

	/* One pCPU, weights 256:512, one vCPU each: 100 and 200 credits. */
	c = ctx(300, 768, 0);
	ck_assert_int_eq(csched_acct_share(&c, 256, 0, 1, &vcap, &head), 100);
	ck_assert_int_eq(csched_acct_share(&c, 512, 0, 1, &vcap, &head), 200);
	ck_assert_int_eq(c.weight_left, 0);

	/* Fair share above the peak (all vCPUs running all period): the excess
	 * goes to the domains after it. 4 pCPUs, A(256, 1 vCPU), B(256, 2). */
	c = ctx(1200, 768, 0);
	ck_assert_int_eq(csched_acct_share(&c, 256, 0, 1, &vcap, &head), 300);
	ck_assert_int_eq(head, 0);
	ck_assert_int_eq(c.credit_total, 1200 + 150);	/* ceil(100 * 768 / 512) */
	ck_assert_int_eq(csched_acct_share(&c, 256, 0, 2, &vcap, &head), 300);

	/* A domain below its peak first, then one clamped: the clamped one is
	 * moved to the head of the active list. 2 pCPUs, A(256, 2), B(512, 1). */
	c = ctx(600, 1024, 0);
	ck_assert_int_eq(csched_acct_share(&c, 256, 0, 2, &vcap, &head), 150);
	ck_assert_int_eq(c.xtra, 1);
	ck_assert_int_eq(csched_acct_share(&c, 512, 0, 1, &vcap, &head), 300);
	ck_assert_int_eq(head, 1);

	/* Cap 50%: at most ceil(50 * 300 / 100) = 150 per period. */
	c = ctx(300, 256, 0);
	ck_assert_int_eq(csched_acct_share(&c, 256, 50, 1, &vcap, &head), 150);
	ck_assert_int_eq(vcap, 150);
	c = ctx(1200, 512, 0);
	ck_assert_int_eq(csched_acct_share(&c, 256, 70, 2, &vcap, &head), 105);
	ck_assert_int_eq(vcap, 105);	/* ceil(210 / 2) */

	/* A negative balance of -90 raises both the total and the peak. */
	c = ctx(300 + 90, 256, -90);
	ck_assert_int_eq(csched_acct_share(&c, 256, 0, 1, &vcap, &head), 390);
}
END_TEST

START_TEST(burn_rounds_and_carries_the_residue)
{
	struct csched_vcpu svc;

	memset(&svc, 0, sizeof svc);
	ck_assert_int_eq(csched_burn_credits(&svc, 1234567), 12);	/* 12.35 */
	ck_assert_int_eq(svc.credit, -12);
	ck_assert_int_eq(svc.start_time, 1200000);
	ck_assert_int_eq(csched_burn_credits(&svc, 1260000), 1);	/* 0.6 rounds up */
	ck_assert_int_eq(svc.start_time, 1300000);			/* ahead of now */
	ck_assert_int_eq(csched_burn_credits(&svc, 1290000), 0);
	ck_assert_int_eq(csched_burn_credits(&svc, 31300000), 300);
	ck_assert_int_eq(svc.credit, -313);
}
END_TEST

/* ---- weights over a run ---- */

struct runtime_watch {
	sim_time_t from, since[4];
	int running[4];
	sim_time_t ran[4];
};

static void
runtime_fn(void *ctx, const struct probe_ev *e)
{
	struct runtime_watch *w = ctx;
	sim_time_t t = e->t < w->from ? w->from : e->t;

	if (e->kind != PR_RUNSTATE || e->vcpu >= 4)
		return;
	if (w->running[e->vcpu])
		w->ran[e->vcpu] += t - w->since[e->vcpu];
	w->running[e->vcpu] = e->aux == RS_RUNNING;
	w->since[e->vcpu] = t;
}

START_TEST(weights_256_512_share_one_pcpu_1_to_2)
{
	static const char *text =
	    "machine: " M1 "\n"
	    "duration: 3s\n"
	    "hypervisor: {kind: xen, scheduler: credit, params: {weights: {b: 512}}}\n"
	    "vms:\n"
	    "  - {name: a, vcpus: 1, workload: w}\n"
	    "  - {name: b, vcpus: 1, workload: w}\n"
	    "workloads:\n"
	    "  w: {program: [{loop: forever, do: [{compute: 100us}]}]}\n";
	struct runtime_watch w;
	struct probe p = { runtime_fn, &w };
	struct metrics m;
	double a, b, sum;
	int i;

	memset(&w, 0, sizeof w);
	/* Skip the start-up transient (both boosted, nobody active yet). */
	w.from = 300 * MS;
	tu_run(text, 1, &p, &m);
	for (i = 0; i < 2; i++)
		if (w.running[i])
			w.ran[i] += 3000 * MS - w.since[i];
	a = (double)w.ran[0];
	b = (double)w.ran[1];
	ck_assert_double_eq_tol(a + b, 2700.0 * MS, 1.0 * MS);	/* the pCPU never idles */
	ck_assert_double_eq_tol(b / a, 2.0, 0.04);		/* 1:2 within 2% */
	/* Whole run too, including start-up: within 4%. */
	ck_assert_double_eq_tol(tu_metric(&m, "b.running_share") /
	    tu_metric(&m, "a.running_share"), 2.0, 0.08);
	sum = tu_metric(&m, "a.running_share") + tu_metric(&m, "a.runnable_share") +
	    tu_metric(&m, "a.blocked_share") + tu_metric(&m, "a.offline_share");
	ck_assert_double_eq_tol(sum, 100, 1e-9);
	metrics_free(&m);
}
END_TEST

START_TEST(equal_weights_on_two_pcpus_with_three_vcpus)
{
	/* 3 always-busy vCPUs, 2 pCPUs: each should get 2/3 of a pCPU. */
	static const char *text =
	    "machine: {sockets: 1, cores_per_socket: 2, threads_per_core: 1, clock: 2GHz}\n"
	    "duration: 3s\n"
	    "hypervisor: {kind: xen, scheduler: credit}\n"
	    "vms:\n"
	    "  - {name: a, vcpus: 1, workload: w}\n"
	    "  - {name: b, vcpus: 1, workload: w}\n"
	    "  - {name: c, vcpus: 1, workload: w}\n"
	    "workloads:\n"
	    "  w: {program: [{loop: forever, do: [{compute: 100us}]}]}\n";
	struct metrics m;
	const char *n[] = { "a.running_share", "b.running_share", "c.running_share" };
	int i;

	tu_run(text, 1, NULL, &m);
	for (i = 0; i < 3; i++)
		ck_assert_double_eq_tol(tu_metric(&m, n[i]), 200.0 / 3, 3);
	metrics_free(&m);
}
END_TEST

START_TEST(cap_limits_a_lone_vcpu)
{
	static const char *text =
	    "machine: " M1 "\n"
	    "duration: 3s\n"
	    "hypervisor: {kind: xen, scheduler: credit, params: {caps: {a: 40}}}\n"
	    "vms:\n"
	    "  - {name: a, vcpus: 1, workload: w}\n"
	    "workloads:\n"
	    "  w: {program: [{loop: forever, do: [{compute: 100us}]}]}\n";
	struct metrics m;

	tu_run(text, 1, NULL, &m);
	/* Parked time shows as runnable (the core has no paused state). */
	ck_assert_double_eq_tol(tu_metric(&m, "a.running_share"), 40, 3);
	metrics_free(&m);
}
END_TEST

/* ---- boost ---- */

START_TEST(woken_under_vcpu_is_boosted_until_a_tick_sees_it)
{
	struct rig r;
	struct vcpu *a, *b;

	rig_init(&r, &sched_credit_ops, M1, NULL, 0);
	a = hv_add_vm(&r.hv, "a", 1, NULL, "test")->vcpus[0];
	b = hv_add_vm(&r.hv, "b", 1, NULL, "test")->vcpus[0];
	rig_start(&r);
	/* Both start boosted (domain unpause); a runs first and the 10 ms tick
	 * unboosts it; b waits, still boosted, and runs from the 30 ms slice
	 * end, where the 30 ms tick (same instant, later event) sees it. */
	rig_until(&r, 29 * MS);
	ck_assert_ptr_eq(r.hv.pcpus[0].curr, a);
	ck_assert_int_eq(csched_vcpu(a)->pri, CSCHED_PRI_TS_UNDER);
	ck_assert_int_eq(csched_vcpu(b)->pri, CSCHED_PRI_TS_BOOST);
	rig_until(&r, 45 * MS);
	ck_assert_ptr_eq(r.hv.pcpus[0].curr, b);
	ck_assert_int_eq(csched_vcpu(b)->pri, CSCHED_PRI_TS_UNDER);
	hv_block(b);
	rig_until(&r, 50 * MS);
	ck_assert_ptr_eq(r.hv.pcpus[0].curr, a);
	ck_assert_int_eq(csched_vcpu(a)->pri, CSCHED_PRI_TS_UNDER);
	ck_assert_int_eq(csched_vcpu(b)->pri, CSCHED_PRI_TS_UNDER);
	hv_wake(b);
	ck_assert_int_eq(csched_vcpu(b)->pri, CSCHED_PRI_TS_BOOST);
	rig_until(&r, 51 * MS);
	ck_assert_ptr_eq(r.hv.pcpus[0].curr, b);	/* BOOST preempts UNDER */
	rig_until(&r, 59 * MS);
	ck_assert_int_eq(csched_vcpu(b)->pri, CSCHED_PRI_TS_BOOST);
	rig_until(&r, 61 * MS);
	ck_assert_int_eq(csched_vcpu(b)->pri, CSCHED_PRI_TS_UNDER);	/* tick at 60 ms */
	rig_free(&r);
}
END_TEST

START_TEST(woken_over_vcpu_is_not_boosted_and_waits)
{
	struct rig r;
	struct vcpu *a, *b;

	rig_init(&r, &sched_credit_ops, M1, NULL, 0);
	a = hv_add_vm(&r.hv, "a", 1, NULL, "test")->vcpus[0];
	b = hv_add_vm(&r.hv, "b", 1, NULL, "test")->vcpus[0];
	rig_start(&r);
	hv_block(b);
	rig_until(&r, 15 * MS);
	csched_vcpu(b)->credit = -50;
	csched_vcpu(b)->pri = CSCHED_PRI_TS_OVER;
	hv_wake(b);
	ck_assert_int_eq(csched_vcpu(b)->pri, CSCHED_PRI_TS_OVER);
	rig_until(&r, 16 * MS);
	ck_assert_ptr_eq(r.hv.pcpus[0].curr, a);
	rig_free(&r);
}
END_TEST

START_TEST(rate_limit_keeps_current_for_1ms)
{
	struct rig r;
	struct vcpu *a, *b;

	rig_init(&r, &sched_credit_ops, M1, NULL, 0);
	a = hv_add_vm(&r.hv, "a", 1, NULL, "test")->vcpus[0];
	b = hv_add_vm(&r.hv, "b", 1, NULL, "test")->vcpus[0];
	rig_start(&r);
	hv_block(b);
	/* a has run since 0 (nothing else to run): the rate limit does not apply. */
	rig_until(&r, 30 * MS + 500 * US);
	hv_wake(b);
	rig_until(&r, 30 * MS + 501 * US);
	ck_assert_ptr_eq(r.hv.pcpus[0].curr, b);
	hv_block(b);
	rig_until(&r, 31 * MS);
	ck_assert_ptr_eq(r.hv.pcpus[0].curr, a);
	/* a was switched in at ~30.501 ms: a wake 0.7 ms later is held off for a
	 * full ratelimit_us from that decision (not the 0.3 ms remainder). */
	rig_until(&r, 31 * MS + 200 * US);
	hv_wake(b);
	rig_until(&r, 31 * MS + 300 * US);
	ck_assert_ptr_eq(r.hv.pcpus[0].curr, a);
	rig_until(&r, 32 * MS + 100 * US);
	ck_assert_ptr_eq(r.hv.pcpus[0].curr, a);
	rig_until(&r, 32 * MS + 300 * US);
	ck_assert_ptr_eq(r.hv.pcpus[0].curr, b);
	rig_free(&r);
}
END_TEST

/* YIELD: the yielder goes behind one lower-priority vCPU, unless the rate
 * limit holds it (a yield within 1 ms of being scheduled is ignored). */
START_TEST(yield_goes_behind_one_lower_priority_vcpu)
{
	struct rig r;
	struct vcpu *a, *b;

	rig_init(&r, &sched_credit_ops, M1, NULL, 0);
	a = hv_add_vm(&r.hv, "a", 1, NULL, "test")->vcpus[0];
	b = hv_add_vm(&r.hv, "b", 1, NULL, "test")->vcpus[0];
	rig_start(&r);
	rig_until(&r, 15 * MS);
	ck_assert_ptr_eq(r.hv.pcpus[0].curr, a);
	csched_vcpu(b)->pri = CSCHED_PRI_TS_OVER;	/* queued, lower than a */
	hv_yield(a);
	rig_until(&r, 15 * MS + 100 * US);
	ck_assert_ptr_eq(r.hv.pcpus[0].curr, b);
	ck_assert_uint_eq(csched_vcpu(a)->flags & CSCHED_FLAG_YIELD, 0);
	/* b yields 0.1 ms after it was scheduled: ignored, YIELD stays set. */
	hv_yield(b);
	rig_until(&r, 15 * MS + 200 * US);
	ck_assert_ptr_eq(r.hv.pcpus[0].curr, b);
	ck_assert_uint_ne(csched_vcpu(b)->flags & CSCHED_FLAG_YIELD, 0);
	rig_free(&r);
}
END_TEST

static struct vcpu *
runq_head(struct rig *r, int cpu)
{
	return TAILQ_FIRST(&csched_priv(&r->hv)->pcpus[cpu].runq)->v;
}

/* csched_runq_sort: after accounting changed priorities, the next tick puts
 * UNDER vCPUs back ahead of OVER ones. */
START_TEST(tick_resorts_the_run_queue_after_accounting)
{
	struct rig r;
	struct vm *vm;

	rig_init(&r, &sched_credit_ops, M1, NULL, 0);
	vm = hv_add_vm(&r.hv, "g", 3, NULL, "test");
	rig_start(&r);
	rig_until(&r, 15 * MS);
	ck_assert_ptr_eq(r.hv.pcpus[0].curr, vm->vcpus[0]);
	ck_assert_ptr_eq(runq_head(&r, 0), vm->vcpus[1]);
	csched_vcpu(vm->vcpus[1])->pri = CSCHED_PRI_TS_OVER;
	csched_vcpu(vm->vcpus[2])->pri = CSCHED_PRI_TS_UNDER;
	csched_priv(&r.hv)->runq_sort++;	/* as csched_acct does */
	rig_until(&r, 21 * MS);
	ck_assert_ptr_eq(runq_head(&r, 0), vm->vcpus[2]);
	rig_free(&r);
}
END_TEST

/* _csched_cpu_pick at a tick: a running vCPU whose SMT sibling is busy moves
 * to a wholly idle core of its socket, but not for an equally idle one. */
START_TEST(tick_moves_running_vcpu_to_an_idle_core)
{
	struct rig r;
	struct vm *vm;
	int busy2;

	for (busy2 = 0; busy2 < 2; busy2++) {
		rig_init(&r, &sched_credit_ops, "{sockets: 2, cores_per_socket: 2, threads_per_core: 2, clock: 2GHz}",
		    NULL, 0);
		vm = hv_add_vm(&r.hv, "g", busy2 ? 3 : 2, NULL, "test");
		rig_aff(&r, vm->vcpus[1], 0x2);
		if (busy2)
			rig_aff(&r, vm->vcpus[2], 0x4);
		rig_start(&r);
		rig_until(&r, 15 * MS);
		ck_assert_int_eq(pcpu_of(vm->vcpus[0]), 0);
		ck_assert_int_eq(pcpu_of(vm->vcpus[1]), 1);
		rig_until(&r, 25 * MS);	/* active since 10 ms; the 20 ms tick picks */
		ck_assert_int_eq(pcpu_of(vm->vcpus[0]), (busy2 ? 0 : 2));
		ck_assert_uint_eq(csched_priv(&r.hv)->st.migrations, (busy2 ? 0 : 1));
		rig_free(&r);
	}
}
END_TEST

/* _csched_cpu_pick's walk (2 sockets x 4 cores x 2 threads): from v's pCPU
 * 10 it moves to the idle core 6 (12, 13), to the more idle socket 0 after
 * the wrap (by idle_bias, pCPU 0), then to core 1 (2, 3), which beats core 0
 * (1 busy); the cores it left are skipped, so cores 2 and 3, as idle as
 * core 1 but later, are not taken.  A walk that left core 6's pCPU 13 (or
 * cleared another core's) ends elsewhere. */
START_TEST(cpu_pick_walks_cores_and_sockets)
{
	static const unsigned char idle[16] = { 1, 0, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 1, 1, 0, 0 };
	struct csched_priv *pr;
	struct rig r;
	struct vm *vm;
	int i;

	rig_init(&r, &sched_credit_ops, "{sockets: 2, cores_per_socket: 4, threads_per_core: 2, "
	    "clock: 2.4GHz}", NULL, 0);
	vm = hv_add_vm(&r.hv, "g", 1, NULL, "test");
	rig_aff(&r, vm->vcpus[0], 0xffff);
	rig_start(&r);
	pr = csched_priv(&r.hv);
	for (i = 0; i < 16; i++)
		pr->idlers[i] = idle[i];
	vm->vcpus[0]->processor = 10;
	ck_assert_int_eq(csched_cpu_pick(pr, vm->vcpus[0], 0), 2);
	/* only pCPU 3 of socket 0 in the affinity: the socket move takes it */
	rig_aff(&r, vm->vcpus[0], 0xff08);
	ck_assert_int_eq(csched_cpu_pick(pr, vm->vcpus[0], 0), 3);
	rig_free(&r);
}
END_TEST

/* Seed 004's host and pinning (machines/numa16-wsm.yaml: 2 sockets x 4 cores x
 * 2 threads; each VM's 2 busy vCPUs pinned to node 0's pCPUs 0-7): creation
 * puts a VM's vCPUs on sibling threads (pCPU n, n+1), and _csched_cpu_pick at
 * the ticks spreads them until no core runs two while another runs none; it
 * never crosses the pinning.  _i = VMs on node 0 (1..5: 2..10 vCPUs). */
START_TEST(seed004_topology_spreads_over_cores_first)
{
	struct rig r;
	struct vm *vm;
	int nvm = _i, nv = 2 * nvm, i, c, t;

	rig_init(&r, &sched_credit_ops, "{sockets: 2, cores_per_socket: 4, threads_per_core: 2, "
	    "clock: 2.4GHz}", NULL, 0);
	vm = hv_add_vm(&r.hv, "g", nv, NULL, "test");
	for (i = 0; i < nv; i++)
		rig_aff(&r, vm->vcpus[i], 0xff);
	rig_start(&r);
	rig_until(&r, 5 * MS);
	/* as domctl max_vcpus places them: vCPU 0 then cycling on, so the
	 * first two share core 0 */
	ck_assert_int_eq(pcpu_of(vm->vcpus[0]) / 2, pcpu_of(vm->vcpus[1]) / 2);
	for (t = 1; t <= 10; t++) {
		int per_core[4] = { 0 }, busy = 0, doubled = 0;

		rig_until(&r, t * 100 * MS);
		for (i = 0; i < nv; i++) {
			int p = pcpu_of(vm->vcpus[i]);

			if (p < 0)
				continue;	/* waiting: more vCPUs than threads */
			ck_assert_int_lt(p, 8);
			per_core[p / 2]++;
		}
		for (c = 0; c < 4; c++) {
			busy += per_core[c] > 0;
			doubled += per_core[c] == 2;
		}
		ck_assert_int_eq(busy, nv < 4 ? nv : 4);
		ck_assert_int_eq(doubled, nv <= 4 ? 0 : (nv < 8 ? nv - 4 : 4));
	}
	/* the spreading was the ticks' doing (with 8 or more vCPUs every
	 * thread is taken from the start) */
	if (nv < 8)
		ck_assert_uint_gt(csched_priv(&r.hv)->st.migrations, 0);
	rig_free(&r);
}
END_TEST

/* ---- tickling ---- */

/*
 * 4 pCPUs: p0 runs a (UNDER), p1 runs c, p2 runs d (pinned there), p3 idle
 * unless busy3 (then e, pinned to p3, runs there).  b is blocked; the test
 * gives it an affinity and a processor, then wakes it.
 */
struct tk {
	struct rig r;
	struct vcpu *a, *b, *c, *d, *e;
};

static void
tk_setup_extra(struct tk *t, const char *tickle, const char *extra, int busy3)
{
	char params[128];
	struct vm *vm;

	snprintf(params, sizeof params, "{tickle: %s%s}", tickle, extra);
	rig_init(&t->r, &sched_credit_ops, M4, params, 0);
	vm = hv_add_vm(&t->r.hv, "g", busy3 ? 5 : 4, NULL, "test");
	t->a = vm->vcpus[0];
	t->b = vm->vcpus[1];
	t->c = vm->vcpus[2];
	t->d = vm->vcpus[3];
	t->e = busy3 ? vm->vcpus[4] : NULL;
	rig_aff(&t->r, t->b, 0x1);
	rig_aff(&t->r, t->c, 0x2);
	rig_aff(&t->r, t->d, 0x4);
	if (busy3)
		rig_aff(&t->r, t->e, 0x8);
	rig_start(&t->r);
	hv_block(t->b);
	rig_until(&t->r, 15 * MS);
	ck_assert_int_eq(pcpu_of(t->a), 0);
	ck_assert_int_eq(pcpu_of(t->c), 1);
	ck_assert_int_eq(pcpu_of(t->d), 2);
	ck_assert_int_eq(pcpu_of(busy3 ? t->e : t->b), busy3 ? 3 : -1);
	ck_assert_int_eq(csched_vcpu(t->a)->pri, CSCHED_PRI_TS_UNDER);
}

static void
tk_setup(struct tk *t, const char *tickle, int busy3)
{
	tk_setup_extra(t, tickle, "", busy3);
}

/* Wake b with affinity mask on processor cpu; return the tickled pCPUs as bits. */
static unsigned
tk_wake(struct tk *t, unsigned aff, int cpu)
{
	struct csched_priv *pr = csched_priv(&t->r.hv);
	unsigned bits = 0;
	int i;

	rig_aff(&t->r, t->b, aff);
	t->b->processor = cpu;
	memset(pr->last_tickled, 0, (size_t)t->r.hv.npcpus);
	hv_wake(t->b);
	for (i = 0; i < t->r.hv.npcpus; i++)
		if (pr->last_tickled[i])
			bits |= 1u << i;
	return bits;
}

static const char *variants[] = { "upstream-4.2", "patched-2012", "xen-4.3" };

/* Case A: b pinned to p0 (no idler for it), BOOST > a. */
START_TEST(tickle_new_pinned_busy_cpu)
{
	static const unsigned want[] = { 0x1, 0x9, 0x1 };
	struct tk t;

	tk_setup(&t, variants[_i], 0);
	ck_assert_uint_eq(tk_wake(&t, 0x1, 0), want[_i]);
	/* xen-4.3 kicks a away; the others leave it to be preempted. */
	ck_assert_int_eq(csched_vcpu(t.a)->migrating, _i == 2);
	rig_until(&t.r, 16 * MS);
	ck_assert_int_eq(pcpu_of(t.b), 0);
	/* a ends on the idle p3: via the patched idler tickle, or the 4.3
	 * migration; upstream tickles no idler, so a waits on p0's queue. */
	ck_assert_int_eq(pcpu_of(t.a), _i == 0 ? -1 : 3);
	rig_free(&t.r);
}
END_TEST

/*
 * Seed 004's finding: the two patches only change whose affinity selects the
 * idlers to tickle (new's or cur's), so when the woken and the running vCPU
 * have the same affinity -- 1:1 pinning, xl's NUMA node pinning, none --
 * they tickle the same pCPUs as upstream, whatever that mask is.
 */
START_TEST(patches_change_nothing_for_equal_affinities)
{
	static const unsigned masks[] = { 0x1, 0x3, 0x9, 0xb, 0xf };
	size_t k;

	for (k = 0; k < sizeof masks / sizeof *masks; k++) {
		unsigned bits[2];
		int i;

		for (i = 0; i < 2; i++) {
			struct tk t;

			tk_setup(&t, variants[i], 0);
			rig_aff(&t.r, t.a, masks[k]);
			bits[i] = tk_wake(&t, masks[k], 0);
			rig_free(&t.r);
		}
		ck_assert_uint_eq(bits[0], bits[1]);
	}
	/* (Different masks are what makes them differ: tickle_new_pinned_busy_cpu.) */
}
END_TEST

/* Case B: b may run anywhere, BOOST > a. */
START_TEST(tickle_new_free_busy_cpu)
{
	static const unsigned want[] = { 0x9, 0x9, 0x8 };
	struct tk t;

	tk_setup(&t, variants[_i], 0);
	ck_assert_uint_eq(tk_wake(&t, 0xf, 0), want[_i]);
	rig_until(&t.r, 16 * MS);
	if (_i == 2) {
		/* 4.3: a stays (cache-hot); the idler steals b. */
		ck_assert_int_eq(pcpu_of(t.a), 0);
		ck_assert_int_eq(pcpu_of(t.b), 3);
	} else {
		/* b preempts a locally; the tickled idler steals a. */
		ck_assert_int_eq(pcpu_of(t.b), 0);
		ck_assert_int_eq(pcpu_of(t.a), 3);
	}
	rig_free(&t.r);
}
END_TEST

/*
 * Case B again with vcpu_migration_delay (XEN-4.2 __csched_vcpu_is_cache_hot):
 * a, switched out on p0 a moment ago, is cache-hot, so the tickled idler p3
 * does not steal it; with the default 0 it does (the case above).
 */
START_TEST(migration_delay_keeps_a_hot_vcpu_home)
{
	struct tk t;
	uint64_t steals;

	tk_setup_extra(&t, "upstream-4.2", ", vcpu_migration_delay: 1ms", 0);
	steals = csched_priv(&t.r.hv)->st.steals;
	ck_assert_uint_eq(tk_wake(&t, 0xf, 0), 0x9);
	rig_until(&t.r, 15 * MS + 500 * US);
	ck_assert_int_eq(pcpu_of(t.b), 0);
	ck_assert_int_eq(pcpu_of(t.a), -1);	/* queued on p0, hot */
	ck_assert_uint_eq(csched_priv(&t.r.hv)->st.steals, steals);
	ck_assert_int_eq(csched_vcpu(t.a)->last_run_time, 15 * MS);
	rig_free(&t.r);
}
END_TEST

/* Case C: b is OVER (no boost, lower than a): only an idler is tickled. */
START_TEST(tickle_lower_priority)
{
	struct tk t;

	tk_setup(&t, variants[_i], 0);
	csched_vcpu(t.b)->credit = -100;
	csched_vcpu(t.b)->pri = CSCHED_PRI_TS_OVER;
	ck_assert_uint_eq(tk_wake(&t, 0xf, 0), 0x8);
	rig_until(&t.r, 16 * MS);
	ck_assert_int_eq(pcpu_of(t.a), 0);
	ck_assert_int_eq(pcpu_of(t.b), 3);
	rig_free(&t.r);
}
END_TEST

/* Case D: cur (a) pinned to p0, b free: patched looks for idlers in a's
 * affinity (none), upstream and 4.3 in b's. */
START_TEST(tickle_cur_pinned)
{
	static const unsigned want[] = { 0x9, 0x1, 0x8 };
	struct tk t;

	tk_setup(&t, variants[_i], 0);
	rig_aff(&t.r, t.a, 0x1);
	ck_assert_uint_eq(tk_wake(&t, 0xf, 0), want[_i]);
	rig_free(&t.r);
}
END_TEST

/* Case E: no idle pCPU: every variant preempts locally only. */
START_TEST(tickle_no_idlers)
{
	struct tk t;

	tk_setup(&t, variants[_i], 1);
	ck_assert_uint_eq(tk_wake(&t, 0xf, 0), 0x1);
	ck_assert_int_eq(csched_vcpu(t.a)->migrating, 0);
	rig_free(&t.r);
}
END_TEST

/* Case F: b's processor is the idle p3: only p3 is tickled. */
START_TEST(tickle_idle_cpu)
{
	struct tk t;

	tk_setup(&t, variants[_i], 0);
	ck_assert_uint_eq(tk_wake(&t, 0xf, 3), 0x8);
	rig_until(&t.r, 16 * MS);
	ck_assert_int_eq(pcpu_of(t.b), 3);
	rig_free(&t.r);
}
END_TEST

/* tickle_one_idle: false wakes every suitable idler. */
START_TEST(tickle_all_idlers)
{
	struct tk t;
	struct rig *r = &t.r;

	memset(&t, 0, sizeof t);
	rig_init(r, &sched_credit_ops, M4, "{tickle_one_idle: false}", 0);
	t.a = hv_add_vm(&r->hv, "g", 2, NULL, "test")->vcpus[0];
	t.b = r->hv.vcpus[1];
	rig_aff(r, t.b, 0x1);
	rig_start(r);
	hv_block(t.b);
	rig_until(r, 15 * MS);
	ck_assert_int_eq(pcpu_of(t.a), 0);
	ck_assert_uint_eq(tk_wake(&t, 0xf, 0), 0xf);	/* p0 + idlers p1, p2, p3 */
	rig_free(r);
}
END_TEST

/* ---- pinning ---- */

#define PIN_NV 12
struct pin_watch {
	unsigned aff[PIN_NV];
	unsigned seen[PIN_NV];
	int bad, runs;
};

static void
pin_fn(void *ctx, const struct probe_ev *e)
{
	struct pin_watch *w = ctx;

	if (e->kind != PR_RUNSTATE || e->aux != RS_RUNNING)
		return;
	ck_assert_int_lt(e->vcpu, PIN_NV);
	w->runs++;
	w->seen[e->vcpu] |= 1u << e->pcpu;
	if (!(w->aff[e->vcpu] >> e->pcpu & 1))
		w->bad++;
}

START_TEST(pinning_is_never_broken)
{
	static const char *text =
	    TEST_MACHINE
	    "duration: 1s\n"
	    "hypervisor: {kind: xen, scheduler: credit, params: {tickle: %s}}\n"
	    "vms:\n"
	    "  - {name: p, count: 2, vcpus: 2, affinity: \"0-1\", lock: ticket, workload: w}\n"
	    "  - {name: q, vcpus: 2, affinity: \"2\", lock: ticket, workload: w}\n"
	    "  - {name: r, vcpus: 2, affinity: \"1-4\", lock: ticket, workload: w}\n"
	    "  - {name: s, count: 2, vcpus: 2, affinity: \"5,7\", lock: ticket, workload: w}\n"
	    "workloads:\n"
	    "  w:\n"
	    "    program:\n"
	    "      - loop: forever\n"
	    "        do:\n"
	    "          - compute: {dist: exponential, mean: 300us}\n"
	    "          - acquire: l\n"
	    "          - compute: {dist: exponential, mean: 50us}\n"
	    "          - release: l\n";
	static const unsigned aff[PIN_NV] = { 0x3, 0x3, 0x3, 0x3, 0x4, 0x4, 0x1e, 0x1e,
		0xa0, 0xa0, 0xa0, 0xa0 };
	struct pin_watch w;
	struct probe p = { pin_fn, &w };
	struct metrics m;
	char buf[2048];
	int i;

	memset(&w, 0, sizeof w);
	memcpy(w.aff, aff, sizeof aff);
	snprintf(buf, sizeof buf, text, variants[_i]);
	tu_run(buf, 3, &p, &m);
	ck_assert_int_eq(w.bad, 0);
	ck_assert_int_gt(w.runs, 100);
	/* The test means something: vCPUs with a choice did move. */
	ck_assert_uint_eq(w.seen[0] | w.seen[1] | w.seen[2] | w.seen[3], 0x3);
	ck_assert_uint_gt(__builtin_popcount(w.seen[6] | w.seen[7]), 1);
	for (i = 0; i < PIN_NV; i++)
		ck_assert_uint_ne(w.seen[i], 0);
	ck_assert_double_eq_tol(tu_metric(&m, "r.running_share") +
	    tu_metric(&m, "r.runnable_share") + tu_metric(&m, "r.blocked_share") +
	    tu_metric(&m, "r.offline_share"), 100, 1e-9);
	metrics_free(&m);
}
END_TEST

/* ---- parameters ---- */

static void
load_err(const char *params, const char *want)
{
	char text[1024];
	struct scenario sc;
	struct vs_err err = { "" };

	snprintf(text, sizeof text,
	    "machine: " M1 "\n"
	    "duration: 10ms\n"
	    "hypervisor: {kind: xen, scheduler: credit, params: %s}\n"
	    "vms:\n"
	    "  - {name: a, vcpus: 1, workload: w}\n"
	    "workloads:\n"
	    "  w: {program: [{compute: 1ms}]}\n", params);
	ck_assert_int_ne(tu_load(&sc, text, &err), 0);
	ck_assert_msg(strstr(err.msg, want) != NULL, "'%s' lacks '%s'", err.msg, want);
	ck_assert_msg(strstr(err.msg, ":3:") != NULL, "no line in '%s'", err.msg);
	scen_free(&sc);
}

START_TEST(bad_params_are_located)
{
	load_err("{tickel: xen-4.3}", "tickel");
	load_err("{tickle: xen-4.4}", "xen-4.4");
	load_err("{ratelimit: 50us}", "ratelimit");
	load_err("{tslice: 1500us}", "tslice");
	load_err("{vcpu_migration_delay: -1us}", "vcpu_migration_delay");
	load_err("{weights: {a: 0}}", "");
}
END_TEST

START_TEST(weight_for_unknown_vm_is_an_error)
{
	static const char *text =
	    "machine: " M1 "\n"
	    "duration: 10ms\n"
	    "hypervisor: {kind: xen, scheduler: credit, params: {weights: {zz: 5}}}\n"
	    "vms:\n"
	    "  - {name: a, vcpus: 1, workload: w}\n"
	    "workloads:\n"
	    "  w: {program: [{compute: 1ms}]}\n";
	struct scenario sc;
	struct vs_err err = { "" };
	struct metrics m;
	struct run_opts o = { .wall_clock = 0, .check = 1 };

	ck_assert_int_eq(tu_load(&sc, text, &err), 0);
	metrics_init(&m);
	ck_assert_int_ne(run_once(&sc, 1, &o, &m, &err), 0);
	ck_assert_msg(strstr(err.msg, ":3:") && strstr(err.msg, "zz"), "%s", err.msg);
	metrics_free(&m);
	scen_free(&sc);
}
END_TEST

static Suite *
credit_suite(void)
{
	Suite *s = suite_create("credit");
	TCase *tc = tcase_create("core");

	tcase_set_timeout(tc, 0);
	tcase_add_test(tc, acct_share_arithmetic);
	tcase_add_test(tc, burn_rounds_and_carries_the_residue);
	tcase_add_test(tc, weights_256_512_share_one_pcpu_1_to_2);
	tcase_add_test(tc, equal_weights_on_two_pcpus_with_three_vcpus);
	tcase_add_test(tc, cap_limits_a_lone_vcpu);
	tcase_add_test(tc, woken_under_vcpu_is_boosted_until_a_tick_sees_it);
	tcase_add_test(tc, woken_over_vcpu_is_not_boosted_and_waits);
	tcase_add_test(tc, rate_limit_keeps_current_for_1ms);
	tcase_add_test(tc, yield_goes_behind_one_lower_priority_vcpu);
	tcase_add_test(tc, tick_moves_running_vcpu_to_an_idle_core);
	tcase_add_test(tc, tick_resorts_the_run_queue_after_accounting);
	tcase_add_test(tc, cpu_pick_walks_cores_and_sockets);
	tcase_add_loop_test(tc, seed004_topology_spreads_over_cores_first, 1, 6);
	tcase_add_loop_test(tc, tickle_new_pinned_busy_cpu, 0, 3);
	tcase_add_loop_test(tc, tickle_new_free_busy_cpu, 0, 3);
	tcase_add_test(tc, patches_change_nothing_for_equal_affinities);
	tcase_add_test(tc, migration_delay_keeps_a_hot_vcpu_home);
	tcase_add_loop_test(tc, tickle_lower_priority, 0, 3);
	tcase_add_loop_test(tc, tickle_cur_pinned, 0, 3);
	tcase_add_loop_test(tc, tickle_no_idlers, 0, 3);
	tcase_add_loop_test(tc, tickle_idle_cpu, 0, 3);
	tcase_add_test(tc, tickle_all_idlers);
	tcase_add_loop_test(tc, pinning_is_never_broken, 0, 3);
	tcase_add_test(tc, bad_params_are_located);
	tcase_add_test(tc, weight_for_unknown_vm_is_an_error);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	return tu_main(credit_suite());
}
