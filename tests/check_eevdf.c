/* SPDX-License-Identifier: GPL-2.0-or-later */
/* check_eevdf.c - the KVM host scheduler `eevdf` (models/hv/sched_eevdf.c,
 * Linux 6.6 kernel/sched/fair.c). */
#include "testutil.h"
#include "rig.h"

#include "engine.h"
#include "hv/hv.h"
#include "hv/sched.h"
#include "hv/sched_eevdf.h"
#include "hv/sched_fair.h"
#include "hw/machine.h"

#define MS	1000000LL
#define US	1000LL

#define M1 "{sockets: 1, cores_per_socket: 1, threads_per_core: 1, clock: 2GHz}"

static struct vm *
th_vm(struct rig *t, const char *name, int n)
{
	return hv_add_vm(&t->hv, name, n, NULL, "test");
}

static double
ran_s(const struct vcpu *v)
{
	return (double)v->rs_time[RS_RUNNING] * 1e-9;
}

/* ---- the pick (pick_next_entity / pick_eevdf on a hand-built rq) ---- */

struct prq {
	struct fair f;
	struct fair_rq rq;
	struct fair_se se[4];
};

/* Queue entity i (weight 1024) at vruntime v with deadline d (ns). */
static void
prq_add(struct prq *p, int i, int64_t v, int64_t d)
{
	struct fair_se *se = &p->se[i];

	se->weight = FAIR_NICE0;
	se->vruntime = v;
	se->deadline = d;
	se->on_rq = 1;
	se->cfs_rq = &p->rq;
	p->rq.keep_avg = 1;	/* an eevdf rq keeps avg_vruntime (fair_init) */
	fair_rq_insert(&p->f, &p->rq, se);
	fair_account_enqueue(&p->f, &p->rq, se);
}

START_TEST(ineligible_entity_with_earlier_deadline_is_not_picked)
{
	struct prq p;

	memset(&p, 0, sizeof p);
	/* V = (0 + 1 + 5) / 3 = 2 ms: A and B eligible, C (deadline 1 ms) not. */
	prq_add(&p, 0, 0, 10 * MS);
	prq_add(&p, 1, 1 * MS, 5 * MS);
	prq_add(&p, 2, 5 * MS, 1 * MS);
	ck_assert_ptr_eq(sched_eevdf_pick(&p.rq, 1, 0), &p.se[1]);
	/* The same C at vruntime 0.5 ms (V = 0.5 ms) is eligible: it wins. */
	free(p.rq.q);
	memset(&p, 0, sizeof p);
	prq_add(&p, 0, 0, 10 * MS);
	prq_add(&p, 1, 1 * MS, 5 * MS);
	prq_add(&p, 2, MS / 2, 1 * MS);
	ck_assert_ptr_eq(sched_eevdf_pick(&p.rq, 1, 0), &p.se[2]);
	free(p.rq.q);
}
END_TEST

START_TEST(run_to_parity_keeps_curr_until_its_deadline)
{
	struct prq p;
	struct fair_se *curr = &p.se[0];

	memset(&p, 0, sizeof p);
	/* curr (deadline 3 ms, as picked: vlag == deadline) and B (deadline 1 ms),
	 * both at V. */
	curr->weight = FAIR_NICE0;
	curr->deadline = curr->vlag = 3 * MS;
	curr->on_rq = 1;
	p.rq.curr = curr;
	fair_account_enqueue(&p.f, &p.rq, curr);
	prq_add(&p, 1, 0, 1 * MS);
	ck_assert_ptr_eq(sched_eevdf_pick(&p.rq, 1, 0), curr);
	ck_assert_ptr_eq(sched_eevdf_pick(&p.rq, 0, 0), &p.se[1]);
	/* A new deadline (update_deadline) ends the parity. */
	curr->deadline = 4 * MS;
	ck_assert_ptr_eq(sched_eevdf_pick(&p.rq, 1, 0), &p.se[1]);
	/* An ineligible curr is not kept either. */
	curr->deadline = curr->vlag = 3 * MS;
	curr->vruntime = 2 * MS;	/* V = 1 ms < 2 ms */
	ck_assert_ptr_eq(sched_eevdf_pick(&p.rq, 1, 0), &p.se[1]);
	free(p.rq.q);
}
END_TEST

START_TEST(next_buddy_is_picked_only_with_next_buddy_and_if_eligible)
{
	struct prq p;

	memset(&p, 0, sizeof p);
	prq_add(&p, 0, 0, 1 * MS);
	prq_add(&p, 1, 0, 9 * MS);
	prq_add(&p, 2, 3 * MS, 2 * MS);
	p.rq.next = &p.se[1];
	ck_assert_ptr_eq(sched_eevdf_pick(&p.rq, 1, 0), &p.se[0]);	/* 6.6 default */
	ck_assert_ptr_eq(sched_eevdf_pick(&p.rq, 1, 1), &p.se[1]);	/* NEXT_BUDDY */
	p.rq.next = &p.se[2];	/* V = 1 ms: not eligible */
	ck_assert_ptr_eq(sched_eevdf_pick(&p.rq, 1, 1), &p.se[0]);
	free(p.rq.q);
}
END_TEST

/* A switch's put of curr and take of the pick in one pass (fair_rq_swap)
 * leaves set_next_entity what an insert left it: the pick's deadline saved
 * in vlag (RUN_TO_PARITY reads it), the pick out of the tree. */
START_TEST(set_next_after_a_swap_saves_the_deadline_as_after_a_remove)
{
	struct prq p;
	struct sim s;
	struct hv hv;
	struct fair_se *curr = &p.se[0], *b = &p.se[1];
	int swap;

	memset(&s, 0, sizeof s);
	memset(&hv, 0, sizeof hv);
	hv.sim = &s;
	for (swap = 0; swap < 2; swap++) {
		memset(&p, 0, sizeof p);
		curr->weight = FAIR_NICE0;
		curr->deadline = curr->vlag = 3 * MS;
		curr->on_rq = 1;
		curr->cfs_rq = &p.rq;
		p.rq.curr = curr;
		p.rq.keep_avg = 1;
		fair_account_enqueue(&p.f, &p.rq, curr);
		prq_add(&p, 1, 0, 1 * MS);
		prq_add(&p, 2, 2 * MS, 5 * MS);
		if (swap)
			fair_rq_swap(&p.f, &p.rq, curr, b);
		else
			fair_rq_insert(&p.f, &p.rq, curr);
		p.rq.curr = NULL;
		sched_eevdf_set_next(&hv, &p.rq, b);
		ck_assert_ptr_eq(p.rq.curr, b);
		ck_assert(b->vlag == b->deadline);
		ck_assert_int_eq(b->queued, 0);
		ck_assert_int_eq(p.rq.nq, 2);
		ck_assert_ptr_eq(p.rq.q[0], curr);
		free(p.rq.q);
	}
}
END_TEST

/* ---- on a host ---- */

START_TEST(three_busy_vcpus_share_one_pcpu_equally)
{
	struct rig t;
	int i;

	rig_init(&t, &sched_eevdf_ops, M1, NULL, 2000 * MS);
	th_vm(&t, "a", 1);
	th_vm(&t, "b", 1);
	th_vm(&t, "c", 1);
	rig_start(&t);
	sim_run(&t.sim);
	hv_finish(&t.hv);
	for (i = 0; i < 3; i++)
		ck_assert_double_eq_tol(ran_s(t.hv.vcpus[i]), 2.0 / 3, 0.02 * 2.0 / 3);
	/* 1 pCPU: base slice 0.75 ms, seen at the 1 ms tick: a switch per tick. */
	ck_assert_uint_gt(t.hv.st.ctx_switches, 1500);
	ck_assert_uint_lt(t.hv.st.ctx_switches, 2100);
	rig_free(&t);
}
END_TEST

/* PLACE_LAG: block the running vCPU once its lag is large, wake it 50 us
 * later, and compare its lag on the queue then with the lag it saved. */
struct pl {
	struct rig *t;
	struct vcpu *x;
	int64_t saved, after;
	int done;
};

static void
pl_wake(void *s, void *arg, int64_t data)
{
	struct pl *p = arg;

	hv_wake(p->x);
	p->after = sched_eevdf_lag_now(&p->t->hv, p->x);
}

static void
pl_probe(void *s, void *arg, int64_t data)
{
	struct pl *p = arg;
	struct hv *hv = &p->t->hv;
	int i;

	if (p->done)
		return;
	sim_after(&p->t->sim, 37 * US, pl_probe, p, 0);
	for (i = 0; i < hv->nvcpus; i++) {
		struct vcpu *v = hv->vcpus[i];
		int64_t l;

		if (v->pcpu == NULL)
			continue;
		l = sched_eevdf_lag_now(hv, v);
		if (l > -200 * US && l < 200 * US)
			return;
		p->x = v;
		p->done = 1;
		hv_block(v);
		p->saved = sched_eevdf_lag(hv, v);
		sim_after(&p->t->sim, 50 * US, pl_wake, p, 0);
	}
}

static void
place_lag_run(const char *params, struct pl *p)
{
	struct rig t;

	memset(p, 0, sizeof *p);
	p->t = &t;
	rig_init(&t, &sched_eevdf_ops, M1, params, 100 * MS);
	th_vm(&t, "a", 1);
	th_vm(&t, "b", 1);
	th_vm(&t, "c", 1);
	rig_start(&t);
	sim_at(&t.sim, 20 * MS + 3 * US, pl_probe, p, 0);
	sim_run(&t.sim);
	hv_finish(&t.hv);
	rig_free(&t);
	ck_assert_int_eq(p->done, 1);
}

START_TEST(place_lag_keeps_the_lag_over_a_sleep)
{
	struct pl p;

	place_lag_run(NULL, &p);
	ck_assert_msg(p.saved <= -200 * US || p.saved >= 200 * US, "saved %lld",
	    (long long)p.saved);
	ck_assert_msg(llabs(p.after - p.saved) < 2 * US, "saved %lld after %lld",
	    (long long)p.saved, (long long)p.after);
	/* Without PLACE_LAG it is placed at V: no lag at all. */
	place_lag_run("{place_lag: false}", &p);
	ck_assert_msg(p.saved <= -200 * US || p.saved >= 200 * US, "saved %lld",
	    (long long)p.saved);
	ck_assert_msg(llabs(p.after) < 2 * US, "after %lld", (long long)p.after);
}
END_TEST

/* yield_task_fair (6.6): the yielder's deadline moves one vslice on. */
struct yd {
	struct rig *t;
	int64_t before, after;
	int done;
};

static void
yd_probe(void *s, void *arg, int64_t data)
{
	struct yd *y = arg;
	struct hv *hv = &y->t->hv;
	int i;

	if (y->done)
		return;
	sim_after(&y->t->sim, 37 * US, yd_probe, y, 0);
	for (i = 0; i < hv->nvcpus; i++) {
		struct vcpu *v = hv->vcpus[i];

		/* Well inside its slice, so update_curr does not renew the deadline. */
		if (v->pcpu == NULL || sched_eevdf_deadline(hv, v) - fair_vruntime(hv, v) <
		    200 * US)
			continue;
		y->done = 1;
		y->before = sched_eevdf_deadline(hv, v);
		hv_yield(v);
		y->after = sched_eevdf_deadline(hv, v);
		return;
	}
}

START_TEST(yield_moves_the_deadline_one_slice_on)
{
	struct rig t;
	struct yd y;

	memset(&y, 0, sizeof y);
	y.t = &t;
	rig_init(&t, &sched_eevdf_ops, M1, NULL, 50 * MS);
	th_vm(&t, "a", 1);
	th_vm(&t, "b", 1);
	rig_start(&t);
	sim_at(&t.sim, 10 * MS + 3 * US, yd_probe, &y, 0);
	sim_run(&t.sim);
	hv_finish(&t.hv);
	rig_free(&t);
	ck_assert_int_eq(y.done, 1);
	ck_assert_int_eq(y.after - y.before, 750 * US);	/* 1 pCPU: factor 1 */
}
END_TEST

/* LNX-6.12 DELAY_DEQUEUE: block the running vCPU once it is not eligible
 * (lag < 0); see whether it stays queued, and how it leaves. */
struct dd {
	struct rig *t;
	struct vcpu *x;
	int done, queued_after_block, delayed_after_block;
	int queued_later, delayed_later;
	int64_t lag_before, lag_later;
};

static void
dd_later(void *s, void *arg, int64_t data)
{
	struct dd *d = arg;

	d->queued_later = FAIR_SE(d->x)->on_rq;
	d->delayed_later = FAIR_SE(d->x)->delayed;
	d->lag_later = sched_eevdf_lag(&d->t->hv, d->x);
}

static void
dd_probe(void *s, void *arg, int64_t data)
{
	struct dd *d = arg;
	struct hv *hv = &d->t->hv;
	int i;

	if (d->done)
		return;
	sim_after(&d->t->sim, 37 * US, dd_probe, d, 0);
	for (i = 0; i < hv->nvcpus; i++) {
		struct vcpu *v = hv->vcpus[i];

		if (v->pcpu == NULL || (d->lag_before = sched_eevdf_lag_now(hv, v)) > -200 * US)
			continue;
		d->x = v;
		d->done = 1;
		hv_block(v);
		d->queued_after_block = FAIR_SE(v)->on_rq;
		d->delayed_after_block = FAIR_SE(v)->delayed;
		sim_after(&d->t->sim, 20 * MS, dd_later, d, 0);
		return;
	}
}

static void
delay_dequeue_run(const char *params, struct dd *d)
{
	struct rig t;

	memset(d, 0, sizeof *d);
	d->t = &t;
	rig_init(&t, &sched_eevdf_ops, M1, params, 100 * MS);
	th_vm(&t, "a", 1);
	th_vm(&t, "b", 1);
	th_vm(&t, "c", 1);
	rig_start(&t);
	sim_at(&t.sim, 20 * MS + 3 * US, dd_probe, d, 0);
	sim_run(&t.sim);
	hv_finish(&t.hv);
	ck_assert_int_eq(d->done, 1);
	/* It never ran again while blocked (the core would abort if picked). */
	ck_assert_int_eq(d->x->rs, RS_BLOCKED);
	rig_free(&t);
	d->t = NULL;
}

START_TEST(delay_dequeue_keeps_an_ineligible_sleeper_queued_until_picked)
{
	struct dd d;

	delay_dequeue_run(NULL, &d);	/* 6.6: dequeued at once */
	ck_assert_int_eq(d.queued_after_block, 0);
	delay_dequeue_run("{delay_dequeue: true}", &d);
	ck_assert_int_eq(d.queued_after_block, 1);
	ck_assert_int_eq(d.delayed_after_block, 1);
	/* 20 ms later it has been picked and dequeued for real, lag <= 0 kept. */
	ck_assert_int_eq(d.queued_later, 0);
	ck_assert_int_eq(d.delayed_later, 0);
	ck_assert_int_le(d.lag_later, 0);
}
END_TEST

/* fair_do_schedule's schedule_root (groups: none) takes the steps of the
 * hierarchy's walk at its one level, a delayed pick's dequeue included: the
 * same run, switch for switch, under a churn of blocks, wakes and yields. */
START_TEST(a_root_schedule_is_the_walk_at_one_level)
{
	struct rig t;
	struct rig_churn c;
	struct rig_churn_end e[2];
	int k;

	for (k = 0; k < 2; k++) {
		rig_init(&t, &sched_eevdf_ops,
		    "{sockets: 1, cores_per_socket: 2, threads_per_core: 1, clock: 2GHz}",
		    "{delay_dequeue: true}", 300 * MS);
		th_vm(&t, "a", 3);
		th_vm(&t, "b", 2);
		rig_start(&t);
		ck_assert_int_eq(((struct fair *)t.hv.sched_priv)->flat, 1);
		((struct fair *)t.hv.sched_priv)->flat = k;
		rig_churn_start(&c, &t, 11);
		sim_run(&t.sim);
		hv_finish(&t.hv);
		e[k] = rig_churn_end(&c, fair_vruntime(&t.hv, t.hv.vcpus[1]));
		rig_free(&t);
	}
	rig_churn_same(&e[0], &e[1], 300);
}
END_TEST

START_TEST(bad_params_are_refused)
{
	struct rig t;
	struct yc_doc *d;
	struct vs_err err = { "" };
	void *cfg = NULL;

	d = yc_load_string("p", "{base_slice: 1ms, run_to_parity: maybe}", &err);
	ck_assert_ptr_nonnull(d);
	ck_assert_int_ne(sched_eevdf_ops.parse(yc_root(d), 2e9, &cfg, &err), 0);
	ck_assert_msg(strstr(err.msg, "run_to_parity") != NULL, "%s", err.msg);
	sched_eevdf_ops.free_cfg(cfg);
	yc_free(d);
	(void)t;
}
END_TEST

static Suite *
eevdf_suite(void)
{
	Suite *s = suite_create("eevdf");
	TCase *tc = tcase_create("core");

	tcase_set_timeout(tc, 0);
	tcase_add_test(tc, ineligible_entity_with_earlier_deadline_is_not_picked);
	tcase_add_test(tc, run_to_parity_keeps_curr_until_its_deadline);
	tcase_add_test(tc, next_buddy_is_picked_only_with_next_buddy_and_if_eligible);
	tcase_add_test(tc, set_next_after_a_swap_saves_the_deadline_as_after_a_remove);
	tcase_add_test(tc, three_busy_vcpus_share_one_pcpu_equally);
	tcase_add_test(tc, place_lag_keeps_the_lag_over_a_sleep);
	tcase_add_test(tc, yield_moves_the_deadline_one_slice_on);
	tcase_add_test(tc, delay_dequeue_keeps_an_ineligible_sleeper_queued_until_picked);
	tcase_add_test(tc, a_root_schedule_is_the_walk_at_one_level);
	tcase_add_test(tc, bad_params_are_refused);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	return tu_main(eevdf_suite());
}
