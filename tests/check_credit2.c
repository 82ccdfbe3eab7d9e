/* SPDX-License-Identifier: GPL-2.0-or-later */
/* check_credit2.c - the Xen credit2 scheduler `credit2` (models/hv/sched_credit2.c,
 * after Xen RELEASE-4.19.0 xen/common/sched/credit2.c). */
#include "testutil.h"
#include "rig.h"

#include "engine.h"
#include "hv/hv.h"
#include "hv/sched.h"
#include "hv/sched_credit2.h"
#include "hw/machine.h"
#include "yconf.h"

#define MS	1000000LL
#define US	1000LL

#define M1 "{sockets: 1, cores_per_socket: 1, threads_per_core: 1, clock: 2GHz}"
#define M4 "{sockets: 1, cores_per_socket: 4, threads_per_core: 1, clock: 2GHz}"
#define M2S "{sockets: 2, cores_per_socket: 2, threads_per_core: 1, clock: 2GHz}"
#define M2X1 "{sockets: 2, cores_per_socket: 1, threads_per_core: 1, clock: 2GHz}"
#define MSMT "{sockets: 1, cores_per_socket: 2, threads_per_core: 2, clock: 2GHz}"

/* ---- a host built by hand: vCPUs without guest work just run ---- */

static struct csched2_rqd *
rqd_of_cpu(struct rig *r, int cpu)
{
	return csched2_priv(&r->hv)->pcpus[cpu].rqd;
}

/* Tickled pCPUs of cpu's runqueue, as bits. */
static unsigned
tickled_bits(struct rig *r, int cpu)
{
	const struct csched2_rqd *rqd = rqd_of_cpu(r, cpu);
	unsigned bits = 0;
	int i;

	for (i = 0; i < r->hv.npcpus; i++)
		if (rqd->tickled[i])
			bits |= 1u << i;
	return bits;
}

/* ---- credit arithmetic (t2c_update) ---- */

START_TEST(higher_weight_burns_credit_more_slowly)
{
	struct csched2_rqd rqd;
	struct csched2_unit lo, hi;

	memset(&rqd, 0, sizeof rqd);
	memset(&lo, 0, sizeof lo);
	memset(&hi, 0, sizeof hi);
	rqd.max_weight = 512;
	lo.weight = 256;
	hi.weight = 512;
	lo.credit = hi.credit = CSCHED2_CREDIT_INIT;
	/* 1 ms of running costs max_weight/weight ms of credit. */
	csched2_t2c_update(&rqd, 1 * MS, &lo);
	csched2_t2c_update(&rqd, 1 * MS, &hi);
	ck_assert_int_eq(lo.credit, CSCHED2_CREDIT_INIT - 2 * MS);
	ck_assert_int_eq(hi.credit, CSCHED2_CREDIT_INIT - 1 * MS);
	/* The remainder of the division is carried: 3 x 1 ns at 512/768. */
	lo.weight = 768;
	lo.credit = 0;
	lo.residual = 0;
	csched2_t2c_update(&rqd, 1, &lo);
	csched2_t2c_update(&rqd, 1, &lo);
	ck_assert_int_eq(lo.credit, -1);	/* 512/768, then 1024/768 */
	csched2_t2c_update(&rqd, 1, &lo);
	ck_assert_int_eq(lo.credit, -2);	/* 1536/768 = 2 exactly */
	ck_assert_uint_eq(lo.residual, 0);
	/* Never below CSCHED2_CREDIT_MIN. */
	csched2_t2c_update(&rqd, 1000 * MS, &hi);
	ck_assert_int_eq(hi.credit, CSCHED2_CREDIT_MIN);
}
END_TEST

/* ---- credit reset ---- */

/*
 * One socket, two pCPUs, four vCPUs: r0 runs on p0, r1 on p1, two wait.
 * When p0 schedules and the best runnable vCPU has credit <= 0, every vCPU
 * of the runqueue gets CSCHED2_CREDIT_INIT more, clipped at INIT +
 * CARRYOVER_MAX (reset_credit); the running r1 included.
 */
START_TEST(reset_when_best_credit_is_not_positive)
{
	struct rig r;
	struct vcpu *run0, *run1, *q[2];
	struct csched2_priv *pr;
	sim_time_t now;
	int i, nq = 0;

	rig_init(&r, &sched_credit2_ops, "{sockets: 1, cores_per_socket: 2, "
	    "threads_per_core: 1, clock: 2GHz}", "{ratelimit: 0us}", 0);
	hv_add_vm(&r.hv, "g", 4, NULL, "test");
	rig_start(&r);
	rig_until(&r, 3 * MS + 100 * US);
	pr = csched2_priv(&r.hv);
	run0 = r.hv.pcpus[0].curr;
	run1 = r.hv.pcpus[1].curr;
	ck_assert_ptr_nonnull(run0);
	ck_assert_ptr_nonnull(run1);
	for (i = 0; i < 4; i++)
		if (r.hv.vcpus[i] != run0 && r.hv.vcpus[i] != run1)
			q[nq++] = r.hv.vcpus[i];
	ck_assert_int_eq(nq, 2);
	ck_assert_uint_eq(pr->st.resets, 0);
	now = r.sim.now;
	/* Best credit 0 on p0; the waiters below 0; r1 far above. */
	csched2_unit(run0)->credit = 0;
	csched2_unit(run0)->start_time = now;
	csched2_unit(q[0])->credit = -100 * US;
	csched2_unit(q[1])->credit = -300 * US;
	csched2_unit(run1)->credit = 3 * MS;
	csched2_unit(run1)->start_time = now;
	hv_resched(&r.hv.pcpus[0], 0);
	rig_until(&r, now);
	ck_assert_uint_eq(pr->st.resets, 1);
	ck_assert_int_eq(csched2_unit(run0)->credit, CSCHED2_CREDIT_INIT);
	ck_assert_int_eq(csched2_unit(q[0])->credit, CSCHED2_CREDIT_INIT - 100 * US);
	ck_assert_int_eq(csched2_unit(q[1])->credit, CSCHED2_CREDIT_INIT - 300 * US);
	ck_assert_int_eq(csched2_unit(run1)->credit,
	    CSCHED2_CREDIT_INIT + CSCHED2_CARRYOVER_MAX);
	ck_assert_ptr_eq(r.hv.pcpus[0].curr, run0);	/* still the best */
	rig_free(&r);
}
END_TEST

/* The same with some credit left at the top: no reset. */
START_TEST(no_reset_while_the_best_has_credit)
{
	struct rig r;
	struct vcpu *run0;
	struct csched2_priv *pr;
	sim_time_t now;

	rig_init(&r, &sched_credit2_ops, M1, "{ratelimit: 0us}", 0);
	hv_add_vm(&r.hv, "g", 2, NULL, "test");
	rig_start(&r);
	rig_until(&r, 3 * MS + 100 * US);
	pr = csched2_priv(&r.hv);
	run0 = r.hv.pcpus[0].curr;
	now = r.sim.now;
	csched2_unit(run0)->credit = 1;
	csched2_unit(run0)->start_time = now;
	hv_resched(&r.hv.pcpus[0], 0);
	rig_until(&r, now);
	ck_assert_uint_eq(pr->st.resets, 0);
	rig_free(&r);
}
END_TEST

/* Over a run, epochs happen and vCPUs alternate: a reset roughly each
 * (vCPUs x CREDIT_INIT) of pCPU time, the credits stay in range. */
START_TEST(epochs_over_a_run)
{
	struct rig r;
	struct csched2_priv *pr;
	int i;

	rig_init(&r, &sched_credit2_ops, M1, NULL, 0);
	hv_add_vm(&r.hv, "g", 2, NULL, "test");
	rig_start(&r);
	rig_until(&r, 1000 * MS);
	pr = csched2_priv(&r.hv);
	/* 2 vCPUs x 10 ms per epoch: about 50 in a second. */
	ck_assert_uint_ge(pr->st.resets, 45);
	ck_assert_uint_le(pr->st.resets, 55);
	for (i = 0; i < 2; i++) {
		ck_assert_int_le(csched2_unit(r.hv.vcpus[i])->credit,
		    CSCHED2_CREDIT_INIT + CSCHED2_CARRYOVER_MAX);
		ck_assert_int_ge(csched2_unit(r.hv.vcpus[i])->credit, CSCHED2_CREDIT_MIN);
		ck_assert_double_eq_tol((double)r.hv.vcpus[i]->rs_time[RS_RUNNING] +
		    (r.hv.vcpus[i]->rs == RS_RUNNING ? (double)(r.sim.now -
		    r.hv.vcpus[i]->rs_since) : 0), 500.0 * MS, 11.0 * MS);
	}
	rig_free(&r);
}
END_TEST

/* ---- weights over a run ---- */

START_TEST(weights_256_512_share_one_pcpu_1_to_2)
{
	static const char *text =
	    "machine: " M1 "\n"
	    "duration: 3s\n"
	    "hypervisor: {kind: xen, scheduler: credit2, params: {weights: {b: 512}}}\n"
	    "vms:\n"
	    "  - {name: a, vcpus: 1, workload: w}\n"
	    "  - {name: b, vcpus: 1, workload: w}\n"
	    "workloads:\n"
	    "  w: {program: [{loop: forever, do: [{compute: 100us}]}]}\n";
	struct metrics m;

	tu_run(text, 1, NULL, &m);
	ck_assert_double_eq_tol(tu_metric(&m, "a.running_share") +
	    tu_metric(&m, "b.running_share"), 100, 0.5);
	ck_assert_double_eq_tol(tu_metric(&m, "b.running_share") /
	    tu_metric(&m, "a.running_share"), 2.0, 0.06);
	metrics_free(&m);
}
END_TEST

/* ---- caps ---- */

static void
cap_run(const char *machine, int nvcpus, int cap, struct metrics *m)
{
	char text[1024];

	snprintf(text, sizeof text,
	    "machine: %s\n"
	    "duration: 2s\n"
	    "hypervisor: {kind: xen, scheduler: credit2, params: {caps: {a: %d}}}\n"
	    "vms:\n"
	    "  - {name: a, vcpus: %d, workload: w}\n"
	    "workloads:\n"
	    "  w: {program: [{loop: forever, do: [{compute: 100us}]}]}\n",
	    machine, cap, nvcpus);
	tu_run(text, 1, NULL, m);
}

/* A capped domain gets cap% of one pCPU per cap period, however many
 * vCPUs share it (budget pool, parking, replenishment). */
START_TEST(cap_limits_a_domain)
{
	struct metrics m;

	cap_run(M1, 1, 50, &m);
	ck_assert_double_eq_tol(tu_metric(&m, "a.running_share"), 50, 1.5);
	metrics_free(&m);
	cap_run(M4, 4, 100, &m);	/* 100% over 4 vCPUs: 25% each */
	ck_assert_double_eq_tol(tu_metric(&m, "a.running_share"), 25, 1.5);
	metrics_free(&m);
	cap_run(M4, 4, 0, &m);		/* no cap: each has its pCPU */
	ck_assert_double_eq_tol(tu_metric(&m, "a.running_share"), 100, 1e-6);
	metrics_free(&m);
}
END_TEST

START_TEST(cap_above_100_per_vcpu_is_an_error)
{
	static const char *text =
	    "machine: " M1 "\n"
	    "duration: 10ms\n"
	    "hypervisor: {kind: xen, scheduler: credit2, params: {caps: {a: 201}}}\n"
	    "vms:\n"
	    "  - {name: a, vcpus: 2, workload: w}\n"
	    "workloads:\n"
	    "  w: {program: [{compute: 1ms}]}\n";
	struct scenario sc;
	struct vs_err err = { "" };
	struct metrics m;
	struct run_opts o = { .wall_clock = 0, .check = 1 };

	ck_assert_int_eq(tu_load(&sc, text, &err), 0);
	metrics_init(&m);
	ck_assert_int_ne(run_once(&sc, 1, &o, &m, &err), 0);
	ck_assert_msg(strstr(err.msg, "caps") && strstr(err.msg, "201"), "%s", err.msg);
	metrics_free(&m);
	scen_free(&sc);
}
END_TEST

/* ---- tickling ---- */

/*
 * 4 pCPUs, one runqueue: vCPUs c0..c3 run on p0..p3 (or c0..c2 on p0..p2,
 * p3 idle: idle3); b is blocked.  The running ones ran long, so the rate
 * limit does not protect them.  Credits are set by the test.
 */
struct tk {
	struct rig r;
	struct vcpu *b, *c[4];
};

static void
tk_setup(struct tk *t, int idle3)
{
	int n = idle3 ? 3 : 4, i;
	struct vm *vm;

	rig_init(&t->r, &sched_credit2_ops, M4, NULL, 0);
	vm = hv_add_vm(&t->r.hv, "g", n + 1, NULL, "test");
	for (i = 0; i < n; i++) {
		t->c[i] = vm->vcpus[i];
		rig_aff(&t->r, t->c[i], 1u << i);
	}
	t->b = vm->vcpus[n];
	rig_start(&t->r);
	hv_block(t->b);
	rig_until(&t->r, 15 * MS);
	for (i = 0; i < n; i++)
		ck_assert_int_eq(pcpu_of(t->c[i]), i);
	if (idle3)
		ck_assert_ptr_null(t->r.hv.pcpus[3].curr);
}

/* Give c[i] credit cr (charged from now) and wake b with credit bc on cpu. */
static unsigned
tk_wake(struct tk *t, const int *cr, int bc, int cpu)
{
	sim_time_t now = t->r.sim.now;
	int i;

	for (i = 0; i < 4; i++)
		if (t->c[i] != NULL && cr != NULL) {
			csched2_unit(t->c[i])->credit = cr[i];
			csched2_unit(t->c[i])->start_time = now;
		}
	csched2_unit(t->b)->credit = bc;
	t->b->processor = cpu;
	hv_wake(t->b);
	return tickled_bits(&t->r, 0);
}

/* An idle pCPU first, even if b could preempt someone. */
START_TEST(tickle_prefers_an_idle_pcpu)
{
	static const int cr[4] = { 1 * MS, 1 * MS, 1 * MS, 0 };
	struct tk t;

	memset(&t, 0, sizeof t);
	tk_setup(&t, 1);
	ck_assert_uint_eq(tk_wake(&t, cr, 9 * MS, 0), 0x8);
	rig_until(&t.r, 16 * MS);
	ck_assert_int_eq(pcpu_of(t.b), 3);
	rig_free(&t.r);
}
END_TEST

/* SMT: a fully idle core before the idle sibling of a busy thread. */
START_TEST(tickle_prefers_a_fully_idle_core)
{
	struct rig r;
	struct vcpu *a, *b;

	rig_init(&r, &sched_credit2_ops, MSMT, NULL, 0);
	hv_add_vm(&r.hv, "g", 2, NULL, "test");
	a = r.hv.vcpus[0];
	b = r.hv.vcpus[1];
	rig_aff(&r, a, 0x1);
	rig_start(&r);
	hv_block(b);
	rig_until(&r, 5 * MS);
	ck_assert_int_eq(pcpu_of(a), 0);
	b->processor = 1;	/* idle, but its sibling p0 is busy */
	hv_wake(b);
	ck_assert_uint_eq(tickled_bits(&r, 0), 0x4);
	rig_until(&r, 6 * MS);
	ck_assert_int_eq(pcpu_of(b), 2);
	rig_free(&r);
}
END_TEST

/* No idler: the running vCPU with least credit, if b beats it by more than
 * CSCHED2_MIGRATE_RESIST (b was on another pCPU). */
START_TEST(tickle_preempts_the_lowest_credit_beyond_resist)
{
	static const int cr[4] = { 8 * MS, 5 * MS, 3 * MS, 6 * MS };
	struct tk t;

	memset(&t, 0, sizeof t);
	tk_setup(&t, 0);
	/* 3.6 ms > 3 ms + 0.5 ms: p2 (c2 has least credit). */
	ck_assert_uint_eq(tk_wake(&t, cr, 3 * MS + 600 * US, 0), 0x4);
	rig_until(&t.r, 15 * MS + 10 * US);
	ck_assert_int_eq(pcpu_of(t.b), 2);
	ck_assert_int_eq(pcpu_of(t.c[2]), -1);
	rig_free(&t.r);
}
END_TEST

START_TEST(tickle_respects_migrate_resist)
{
	static const int cr[4] = { 8 * MS, 5 * MS, 3 * MS, 6 * MS };
	struct tk t;
	uint64_t none;

	memset(&t, 0, sizeof t);
	tk_setup(&t, 0);
	none = csched2_priv(&t.r.hv)->st.tickle_none;
	/* 3.4 ms: ahead of c2 by less than the resistance: nobody. */
	ck_assert_uint_eq(tk_wake(&t, cr, 3 * MS + 400 * US, 0), 0);
	ck_assert_uint_eq(csched2_priv(&t.r.hv)->st.tickle_none, none + 1);
	rig_until(&t.r, 15 * MS + 10 * US);
	ck_assert_int_eq(pcpu_of(t.b), -1);
	ck_assert_int_eq(pcpu_of(t.c[2]), 2);
	rig_free(&t.r);
}
END_TEST

/* On its own pCPU there is no resistance: 0.2 ms ahead is enough. */
START_TEST(tickle_own_pcpu_without_resist)
{
	static const int cr[4] = { 8 * MS, 5 * MS, 3 * MS, 6 * MS };
	struct tk t;

	memset(&t, 0, sizeof t);
	tk_setup(&t, 0);
	ck_assert_uint_eq(tk_wake(&t, cr, 3 * MS + 200 * US, 2), 0x4);
	rig_until(&t.r, 15 * MS + 10 * US);
	ck_assert_int_eq(pcpu_of(t.b), 2);
	rig_free(&t.r);
}
END_TEST

/* migrate_resist: 0 makes any margin enough. */
START_TEST(migrate_resist_is_a_parameter)
{
	static const int cr[4] = { 8 * MS, 5 * MS, 3 * MS, 6 * MS };
	struct tk t;
	int i;

	memset(&t, 0, sizeof t);
	rig_init(&t.r, &sched_credit2_ops, M4, "{migrate_resist: 0us}", 0);
	hv_add_vm(&t.r.hv, "g", 5, NULL, "test");
	for (i = 0; i < 4; i++) {
		t.c[i] = t.r.hv.vcpus[i];
		rig_aff(&t.r, t.c[i], 1u << i);
	}
	t.b = t.r.hv.vcpus[4];
	rig_start(&t.r);
	hv_block(t.b);
	rig_until(&t.r, 15 * MS);
	ck_assert_uint_eq(tk_wake(&t, cr, 3 * MS + 100 * US, 0), 0x4);
	rig_free(&t.r);
}
END_TEST

/* ---- rate limit ---- */

/*
 * One pCPU: a runs alone, blocks, wakes and starts a fresh run at t0; 200 us
 * later b wakes with far more credit and the pCPU reschedules.  With the
 * 1 ms rate limit a keeps the pCPU until t0 + 1 ms, and b's wake does not
 * even tickle (is_preemptable); with ratelimit 0, b takes over at once.
 */
static void
rl_case(const char *params, sim_time_t *t0, struct rig *r, struct vcpu **a, struct vcpu **b)
{
	rig_init(r, &sched_credit2_ops, M1, params, 0);
	hv_add_vm(&r->hv, "g", 2, NULL, "test");
	*a = r->hv.vcpus[0];
	*b = r->hv.vcpus[1];
	rig_start(r);
	hv_block(*b);
	rig_until(r, 20 * MS);
	hv_block(*a);
	rig_until(r, 21 * MS);
	ck_assert_ptr_null(r->hv.pcpus[0].curr);
	hv_wake(*a);
	rig_until(r, 21 * MS + 100 * US);
	ck_assert_ptr_eq(r->hv.pcpus[0].curr, *a);
	*t0 = csched2_unit(*a)->entry_time;
	rig_until(r, *t0 + 200 * US);
	csched2_unit(*b)->credit = csched2_unit(*a)->credit + 5 * MS;
	hv_wake(*b);
	hv_resched(&r->hv.pcpus[0], 0);
	rig_until(r, *t0 + 200 * US);
}

START_TEST(ratelimit_keeps_a_vcpu_running_for_1ms)
{
	struct rig r;
	struct vcpu *a, *b;
	sim_time_t t0;

	rl_case(NULL, &t0, &r, &a, &b);
	ck_assert_uint_eq(tickled_bits(&r, 0), 0);
	ck_assert_uint_ge(csched2_priv(&r.hv)->st.ratelimited, 1);
	rig_until(&r, t0 + 990 * US);
	ck_assert_int_eq(pcpu_of(a), 0);
	rig_until(&r, t0 + 1 * MS + 1 * US);
	ck_assert_int_eq(pcpu_of(b), 0);
	rig_free(&r);
}
END_TEST

START_TEST(ratelimit_0_lets_the_waker_preempt)
{
	struct rig r;
	struct vcpu *a, *b;
	sim_time_t t0;

	rl_case("{ratelimit: 0us}", &t0, &r, &a, &b);
	ck_assert_int_eq(pcpu_of(b), 0);
	rig_free(&r);
}
END_TEST

/* Two equal vCPUs on one pCPU: the slice is the floor, the rate limit
 * (1 ms), or CSCHED2_MIN_TIMER (0.5 ms) without it. */
START_TEST(runtime_floor_is_the_ratelimit)
{
	static const char *params[] = { NULL, "{ratelimit: 0us}", "{ratelimit: 2ms}" };
	static const sim_time_t want[] = { 1 * MS, 500 * US, 2 * MS };
	struct rig r;
	struct vcpu *first;

	rig_init(&r, &sched_credit2_ops, M1, params[_i], 0);
	hv_add_vm(&r.hv, "g", 2, NULL, "test");
	rig_start(&r);
	rig_until(&r, 1);
	first = r.hv.pcpus[0].curr;
	ck_assert_ptr_nonnull(first);
	rig_until(&r, want[_i] - 1);
	ck_assert_ptr_eq(r.hv.pcpus[0].curr, first);
	rig_until(&r, want[_i]);
	ck_assert_ptr_ne(r.hv.pcpus[0].curr, first);
	rig_free(&r);
}
END_TEST

/* ---- runqueues ---- */

static int
nrqd(const char *machine, const char *params)
{
	struct rig r;
	int n;

	rig_init(&r, &sched_credit2_ops, machine, params, 0);
	hv_add_vm(&r.hv, "g", 1, NULL, "test");
	rig_start(&r);
	n = csched2_priv(&r.hv)->nrqd;
	rig_free(&r);
	return n;
}

START_TEST(runqueues_follow_the_topology)
{
	struct rig r;

	ck_assert_int_eq(nrqd(M2S, NULL), 2);			/* default: socket */
	ck_assert_int_eq(nrqd(M2S, "{runqueue: socket}"), 2);
	ck_assert_int_eq(nrqd(M2S, "{runqueue: node}"), 2);
	ck_assert_int_eq(nrqd(M2S, "{runqueue: cpu}"), 4);
	ck_assert_int_eq(nrqd(M2S, "{runqueue: core}"), 4);
	ck_assert_int_eq(nrqd(M2S, "{runqueue: all}"), 1);
	ck_assert_int_eq(nrqd(MSMT, "{runqueue: core}"), 2);	/* SMT siblings together */
	ck_assert_int_eq(nrqd(MSMT, NULL), 1);
	/* At most max_cpus_runqueue per runqueue, spread evenly. */
	ck_assert_int_eq(nrqd(M4, "{max_cpus_runqueue: 2}"), 2);
	ck_assert_int_eq(nrqd(M4, "{max_cpus_runqueue: 3}"), 2);
	/* Socket 0 = pCPUs 0, 1 and socket 1 = 2, 3. */
	rig_init(&r, &sched_credit2_ops, M2S, NULL, 0);
	hv_add_vm(&r.hv, "g", 1, NULL, "test");
	rig_start(&r);
	ck_assert_ptr_eq(rqd_of_cpu(&r, 0), rqd_of_cpu(&r, 1));
	ck_assert_ptr_eq(rqd_of_cpu(&r, 2), rqd_of_cpu(&r, 3));
	ck_assert_ptr_ne(rqd_of_cpu(&r, 0), rqd_of_cpu(&r, 2));
	rig_free(&r);
}
END_TEST

/* vCPUs start on the runqueue of least load (csched2_res_pick): 2 + 2. */
START_TEST(vcpus_spread_over_runqueues_at_start)
{
	struct rig r;
	int i, n0 = 0;

	rig_init(&r, &sched_credit2_ops, M2S, NULL, 0);
	hv_add_vm(&r.hv, "g", 4, NULL, "test");
	rig_start(&r);
	for (i = 0; i < 4; i++)
		n0 += csched2_unit(r.hv.vcpus[i])->rqd == rqd_of_cpu(&r, 0);
	ck_assert_int_eq(n0, 2);
	rig_free(&r);
}
END_TEST

/*
 * Two sockets of one pCPU: four vCPUs start confined to socket 0, then may
 * run anywhere (the affinity widens).  At the next credit reset on p0,
 * balance_load sees 4 vCPUs' load against none and pushes vCPUs to p1's
 * runqueue; confined (keep = 1), nothing may move.
 */
START_TEST(balance_load_moves_vcpus_when_loads_differ)
{
	struct rig r;
	struct csched2_priv *pr;
	int i, on1 = 0;

	rig_init(&r, &sched_credit2_ops, M2X1, NULL, 0);
	hv_add_vm(&r.hv, "g", 4, NULL, "test");
	for (i = 0; i < 4; i++)
		rig_aff(&r, r.hv.vcpus[i], 0x1);
	rig_start(&r);
	rig_until(&r, 5 * MS);
	pr = csched2_priv(&r.hv);
	ck_assert_ptr_null(r.hv.pcpus[1].curr);
	if (_i == 0)
		for (i = 0; i < 4; i++)
			rig_aff(&r, r.hv.vcpus[i], 0x3);
	rig_until(&r, 300 * MS);
	for (i = 0; i < 4; i++)
		on1 += csched2_unit(r.hv.vcpus[i])->rqd == rqd_of_cpu(&r, 1);
	if (_i == 0) {
		ck_assert_uint_ge(pr->st.balances, 1);
		ck_assert_int_eq(on1, 2);	/* two and two */
		ck_assert_ptr_nonnull(r.hv.pcpus[1].curr);
	} else {
		ck_assert_uint_eq(pr->st.migrations, 0);
		ck_assert_int_eq(on1, 0);
	}
	rig_free(&r);
}
END_TEST

/* ---- whole runs ---- */

START_TEST(runstates_add_up_and_pinning_holds)
{
	static const char *text =
	    TEST_MACHINE
	    "duration: 500ms\n"
	    "hypervisor: {kind: xen, scheduler: credit2, params: {runqueue: %s}}\n"
	    "vms:\n"
	    "  - {name: p, count: 2, vcpus: 4, lock: {kind: pv-ticket, spin_threshold: 1024},"
	    " workload: w}\n"
	    "  - {name: q, vcpus: 2, affinity: \"2\", lock: ticket, workload: w}\n"
	    "  - {name: r, vcpus: 4, affinity: \"1-4\", lock: ticket, workload: w}\n"
	    "workloads:\n"
	    "  w:\n"
	    "    program:\n"
	    "      - loop: forever\n"
	    "        do:\n"
	    "          - compute: {dist: exponential, mean: 300us}\n"
	    "          - acquire: l\n"
	    "          - compute: {dist: exponential, mean: 50us}\n"
	    "          - release: l\n"
	    "          - sleep: {dist: exponential, mean: 200us}\n";
	static const char *arr[] = { "socket", "core", "cpu", "all" };
	static const char *vms[] = { "p", "q", "r" };
	struct metrics m;
	char buf[2048];
	int i;

	snprintf(buf, sizeof buf, text, arr[_i]);
	tu_run(buf, 3, NULL, &m);
	for (i = 0; i < 3; i++) {
		char n[4][32];

		snprintf(n[0], sizeof n[0], "%s.running_share", vms[i]);
		snprintf(n[1], sizeof n[1], "%s.runnable_share", vms[i]);
		snprintf(n[2], sizeof n[2], "%s.blocked_share", vms[i]);
		snprintf(n[3], sizeof n[3], "%s.offline_share", vms[i]);
		ck_assert_double_eq_tol(tu_metric(&m, n[0]) + tu_metric(&m, n[1]) +
		    tu_metric(&m, n[2]) + tu_metric(&m, n[3]), 100, 1e-9);
		ck_assert_double_gt(tu_metric(&m, n[0]), 1);
	}
	/* q's two vCPUs share pCPU 2: at most half a pCPU each. */
	ck_assert_double_le(tu_metric(&m, "q.running_share"), 50.0 + 1e-9);
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
	    "hypervisor: {kind: xen, scheduler: credit2, params: %s}\n"
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
	load_err("{runqueu: core}", "runqueu");
	load_err("{runqueue: numa}", "numa");
	load_err("{ratelimit: 50us}", "ratelimit");
	load_err("{migrate_resist: -1us}", "migrate_resist");
	load_err("{load_precision_shift: 2}", "load_precision_shift");
	load_err("{cap_period: 1500us}", "cap_period");
	load_err("{weights: {a: 0}}", "");
}
END_TEST

static Suite *
credit2_suite(void)
{
	Suite *s = suite_create("credit2");
	TCase *tc = tcase_create("core");

	tcase_set_timeout(tc, 0);
	tcase_add_test(tc, higher_weight_burns_credit_more_slowly);
	tcase_add_test(tc, reset_when_best_credit_is_not_positive);
	tcase_add_test(tc, no_reset_while_the_best_has_credit);
	tcase_add_test(tc, epochs_over_a_run);
	tcase_add_test(tc, weights_256_512_share_one_pcpu_1_to_2);
	tcase_add_test(tc, cap_limits_a_domain);
	tcase_add_test(tc, cap_above_100_per_vcpu_is_an_error);
	tcase_add_test(tc, tickle_prefers_an_idle_pcpu);
	tcase_add_test(tc, tickle_prefers_a_fully_idle_core);
	tcase_add_test(tc, tickle_preempts_the_lowest_credit_beyond_resist);
	tcase_add_test(tc, tickle_respects_migrate_resist);
	tcase_add_test(tc, tickle_own_pcpu_without_resist);
	tcase_add_test(tc, migrate_resist_is_a_parameter);
	tcase_add_test(tc, ratelimit_keeps_a_vcpu_running_for_1ms);
	tcase_add_test(tc, ratelimit_0_lets_the_waker_preempt);
	tcase_add_loop_test(tc, runtime_floor_is_the_ratelimit, 0, 3);
	tcase_add_test(tc, runqueues_follow_the_topology);
	tcase_add_test(tc, vcpus_spread_over_runqueues_at_start);
	tcase_add_loop_test(tc, balance_load_moves_vcpus_when_loads_differ, 0, 2);
	tcase_add_loop_test(tc, runstates_add_up_and_pinning_holds, 0, 4);
	tcase_add_test(tc, bad_params_are_located);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	return tu_main(credit2_suite());
}
