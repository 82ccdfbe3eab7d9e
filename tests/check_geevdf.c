/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * check_geevdf.c - the guest's EEVDF policy (models/guest/gsched_eevdf.c) on
 * its own, against numbers worked out by hand from LNX-6.12 fair.c's
 * formulas: eligibility (V >= v_i), the earliest eligible deadline,
 * place_entity's lag (kept across a sleep, DELAY_ZERO), wakeup preemption
 * (check_preempt_wakeup_fair, RUN_TO_PARITY) and update_deadline at a used
 * slice.  The policy file is built in here beside a stand-in kernel (the
 * few gk_ services it calls), which plays the kernel core's part: it
 * counts nqueued and load around enqueue, pick and sleep as kernel.c does.
 */
#include <check.h>
#include <math.h>
#include <string.h>

#include "../models/guest/gsched_eevdf.c"
#include "yconf.h"
#include "yparam.h"

/* the stand-in kernel: the policy's keys and tunables */
struct gkernel {
	struct gs_cfg cfg;
	struct gk_tunables tun;
};

const void *gk_sched_cfg(const struct gkernel *k) { return &k->cfg; }
const struct gk_tunables *gk_tunables(const struct gkernel *k) { return &k->tun; }
/* The tests charge curr themselves (charge()): nothing ran unaccounted. */
void gk_update_curr(struct gcpu *c) { (void)c; }
int gk_select_cpu(struct gkernel *k, struct task *t, int w, int f)
{
	(void)k; (void)t; (void)w; (void)f;
	return 0;
}
struct task *gk_steal_busiest(struct gkernel *k, struct gcpu *c) { (void)k; (void)c; return NULL; }
int gs_wake_select618(struct gkernel *k, struct task *t, int w, int f, const struct gs_wa_features *wa)
{
	(void)k; (void)t; (void)w; (void)f; (void)wa;
	return 0;
}

static struct gkernel K;
static struct gcpu C;
static struct task T[4];
#define A (&T[0])
#define B (&T[1])
#define D (&T[2])

/* Defaults of the rows, then sets "key: value" flow text; one vCPU, factor
 * 1 (sysctl_sched_base_slice 0.7 ms as is), TICK_NSEC 1 ms (HZ 1000). */
static void
setup_with(const char *keys)
{
	struct vs_err err = { "" };
	struct yc_doc *d = keys != NULL ? yc_load_string("k", keys, &err) : NULL;
	int i;

	memset(&K, 0, sizeof K);
	memset(&C, 0, sizeof C);
	memset(T, 0, sizeof T);
	ck_assert_int_eq(yc_params_read(d != NULL ? yc_root(d) : NULL, eevdf_params, NULL, 0,
	    &K.cfg, &err), 0);
	if (d != NULL)
		yc_free(d);
	K.tun.factor = 1;
	K.tun.tick_ns = 1e6;
	C.k = &K;
	TAILQ_INIT(&C.rq);
	TAILQ_INIT(&C.delayed);
	for (i = 0; i < 4; i++) {
		T[i].id = i;
		T[i].weight = 1024;
		T[i].cpu = T[i].prev_cpu = -1;
	}
}

static void
setup(void)
{
	setup_with(NULL);
}

/* kernel.c enqueue(): counted, then the policy's */
static void
q(struct task *t, int flags)
{
	C.nqueued++;
	C.load += t->weight;
	t->cpu = 0;
	gsched_eevdf_ops.enqueue(&C, t, flags);
}

/* A task already placed (vruntime, deadline as given) put in the queue. */
static void
q_at(struct task *t, double v, double d)
{
	t->vruntime = v;
	t->deadline = d;
	q(t, 0);
	C.put_prev = NULL;	/* not a preempted curr */
}

/* cpu_schedule_from(): the pick becomes curr */
static struct task *
run(void)
{
	struct task *t = gsched_eevdf_ops.pick_next(&C);

	C.nqueued--;
	C.curr = t;
	return t;
}

/* account(): curr ran ns */
static void
charge(double ns)
{
	gsched_eevdf_ops.update_curr(&C, C.curr, ns);
}

/* leave_cpu(T_BLOCKED) */
static void
block(void)
{
	struct task *t = C.curr;

	C.curr = NULL;
	C.load -= t->weight;
	gsched_eevdf_ops.sleep(&C, t, 0);
}

/* V as avg_vruntime computes it, without moving zero_vruntime */
static double
vnow(void)
{
	double avg = C.avg_vruntime, load = C.avg_load;

	if (C.curr != NULL) {
		avg += (C.curr->vruntime - C.min_vruntime) * (double)C.curr->weight;
		load += (double)C.curr->weight;
	}
	return C.min_vruntime + avg / load;
}

#define NEAR(a, b) ck_assert_msg(fabs((a) - (b)) < 1e-6, "%s = %.9g, expected %.9g", #a, \
	(double)(a), (double)(b))

/*
 * V = (0 x 1024 + 300 us x 2048 + 900 us x 1024) / 4096 = 375 us: A (0) and
 * B (300 us) are eligible, D (900 us) is not although its deadline is the
 * earliest; the pick is the eligible one with the earliest deadline, B.
 */
START_TEST(eligible_by_the_weighted_mean_and_earliest_deadline_first)
{
	setup();
	B->weight = 2048;
	q_at(A, 0, 1000e3);
	q_at(B, 300e3, 500e3);
	q_at(D, 900e3, 100e3);
	NEAR(vnow(), 375e3);
	ck_assert(eligible(&C, NULL, A));
	ck_assert(eligible(&C, NULL, B));
	ck_assert(!eligible(&C, NULL, D));
	ck_assert_ptr_eq(run(), B);
	/* B runs 100 us: v_B = 350 us < its deadline, V = (0 + 350 x 2048 + 900 x 1024)
	 * / 4096 = 400 us; A's deadline 1000 us; D still not eligible */
	charge(100e3);
	NEAR(B->vruntime, 350e3);
	NEAR(vnow(), 400e3);
	ck_assert_int_eq(C.need_resched, 0);
}
END_TEST

/* Among eligible ones the earliest deadline wins, not the least vruntime. */
START_TEST(earliest_deadline_among_the_eligible)
{
	setup();
	q_at(A, 0, 900e3);
	q_at(B, 100e3, 400e3);
	q_at(D, 600e3, 200e3);	/* V = 233.3 us: not eligible */
	NEAR(vnow(), 700e3 / 3);
	ck_assert_ptr_eq(run(), B);
	/* B gone from the queue: V = (0 + 600) / 2 = 300 us; then D's turn comes
	 * only once A has caught up (after B, A is the only eligible one) */
	C.curr = NULL;
	ck_assert_ptr_eq(run(), A);
}
END_TEST

/*
 * A new task (PLACE_DEADLINE_INITIAL): at V, deadline half a slice on
 * (calc_delta_fair(0.7 ms) / 2 = 350 us at weight 1024, 175 us at 2048).
 * A at weight 2048 uses its request after 350 us of real time (175 us of
 * vruntime): update_deadline gives it the next, 700 us x 1024 / 2048 = 350 us
 * of vruntime on, and reschedules (resched_curr) since B waits; alone, the
 * deadline moves on but nothing reschedules.
 */
START_TEST(a_used_slice_reschedules_at_the_next_update)
{
	setup();
	A->weight = 2048;
	q(A, GS_FORK);
	NEAR(A->vruntime, 0);
	NEAR(A->deadline, 175e3);
	ck_assert_ptr_eq(run(), A);
	q(B, GS_FORK);		/* V = v_A = 0: B at 0, deadline 350 us */
	NEAR(B->vruntime, 0);
	NEAR(B->deadline, 350e3);
	charge(300e3);		/* 150 us of vruntime: within the request */
	NEAR(A->vruntime, 150e3);
	ck_assert_int_eq(C.need_resched, 0);
	charge(50e3);		/* 175 us: used */
	NEAR(A->deadline, 175e3 + 350e3);
	ck_assert_int_eq(C.need_resched, 1);
	/* B's pick: eligible (0 <= V = 116.7 us), earliest deadline */
	C.need_resched = 0;
	C.curr = NULL;
	C.load -= A->weight;
	q(A, 0);
	ck_assert_ptr_eq(run(), B);
	/* alone, a used slice moves the deadline and nothing else */
	setup();
	q(A, GS_FORK);
	run();
	charge(400e3);
	NEAR(A->deadline, 400e3 + 700e3);
	ck_assert_int_eq(C.need_resched, 0);
}
END_TEST

/* update_sysctl: the base slice x (1 + ilog2(min(ncpus, 8))), 4 at 8 vCPUs */
START_TEST(the_slice_scales_with_the_sysctl_factor)
{
	setup_with("{base_slice: 0.75ms}");
	K.tun.factor = 4;
	q(A, GS_FORK);
	NEAR(A->deadline, 4 * 0.75e6 / 2);
}
END_TEST

/*
 * The lag a sleeper leaves with comes back on its wakeup (PLACE_LAG):
 * A (curr, v 500 us) and B (v 100 us): V = 300 us, A leaves with
 * vlag = -200 us (NO_DELAY_DEQUEUE).  B runs 1.9 ms: v_B = 2 ms = V.
 * A's placement: lag x (W + w) / W = -200 x 2048 / 1024 = -400 us, so
 * v_A = 2.4 ms, deadline 3.1 ms, and with A in V' = 2.2 ms: lag -200 us again.
 */
START_TEST(lag_is_kept_across_a_sleep)
{
	setup_with("{delay_dequeue: false}");
	q_at(B, 100e3, 800e3);
	A->vruntime = 500e3;
	A->deadline = 1200e3;
	C.curr = A;
	C.load += A->weight;
	NEAR(vnow(), 300e3);
	block();
	NEAR(A->vlag, -200e3);
	ck_assert_int_eq(A->delayed, 0);
	ck_assert_ptr_eq(run(), B);
	charge(1.9e6);
	q(A, GS_WAKE);
	NEAR(A->vruntime, 2.4e6);
	NEAR(A->deadline, 3.1e6);
	NEAR(vnow() - A->vruntime, -200e3);
	/* the lag's bound: calc_delta_fair(max(2 x 0.7 ms, TICK_NSEC)) = 1.4 ms */
	NEAR(entity_lag(&C, 10e6, A), 1.4e6);
}
END_TEST

/*
 * DELAY_DEQUEUE: A sleeps not eligible (v 500 us > V 300 us) and stays
 * queued, counted in V.  B runs 1 ms: v_B 1.1 ms, V = 800 us, A's lag is
 * +300 us, so its wakeup (requeue_delayed_entity, DELAY_ZERO) drops it and
 * places A at V without it: v_B = 1.1 ms, deadline 1.8 ms.  Picked while
 * delayed, A leaves instead (lag clipped to 0) and the pick goes on.
 */
START_TEST(delayed_dequeue_keeps_an_ineligible_sleeper_queued)
{
	setup();
	q_at(B, 100e3, 800e3);
	A->vruntime = 500e3;
	C.curr = A;
	C.load += A->weight;
	block();
	ck_assert_int_eq(A->delayed, 1);
	ck_assert_int_eq(C.ndelayed, 1);
	ck_assert_ptr_eq(run(), B);
	charge(1e6);
	NEAR(vnow(), 800e3);
	A->state = T_BLOCKED;
	A->cpu = 0;	/* where it ran */
	ck_assert_int_eq(gsched_eevdf_ops.select_cpu(&K, A, -1, GS_WAKE), 0);
	q(A, GS_WAKE);
	ck_assert_int_eq(A->delayed, 0);
	NEAR(A->vruntime, 1.1e6);
	NEAR(A->deadline, 1.8e6);
	/* woken still owing (lag < 0): it keeps its vruntime and deadline */
	setup();
	q_at(B, 100e3, 800e3);
	A->vruntime = 500e3;
	A->deadline = 1200e3;
	C.curr = A;
	C.load += A->weight;
	block();
	ck_assert_ptr_eq(run(), B);
	charge(200e3);		/* V = 400 us: A's lag -100 us */
	q(A, GS_WAKE);
	NEAR(A->vruntime, 500e3);
	NEAR(A->deadline, 1200e3);
	/* picked while delayed: dequeued with its lag (<= 0), then the next */
	setup();
	q_at(B, 100e3, 800e3);
	q_at(D, 0, 2000e3);
	A->vruntime = 500e3;
	A->deadline = 200e3;	/* earliest deadline, once eligible */
	C.curr = A;
	C.load += A->weight;
	block();		/* V = 200 us: not eligible, delayed */
	ck_assert_int_eq(A->delayed, 1);
	ck_assert_ptr_eq(run(), B);	/* B eligible (100 <= 200), deadline 800 */
	charge(1.5e6);		/* v_B 1.6 ms, V = 700 us: A eligible */
	C.curr = NULL;
	C.load -= B->weight;
	q(B, 0);
	ck_assert_ptr_eq(run(), D);	/* A (deadline 200 us) left on the way */
	ck_assert_int_eq(A->delayed, 0);
	ck_assert_int_eq(C.ndelayed, 0);
	NEAR(A->vlag, 0);
}
END_TEST

/*
 * check_preempt_wakeup_fair: A runs (picked at v 0, deadline 1 ms, the slice
 * protected to there), D waits at v 1 ms.  After 100 us, V = 550 us.  B wakes
 * with vlag +300 us: placed at 550 - 300 x 3072 / 2048 = 100 us, deadline
 * 800 us, earlier than A's; V' = 400 us keeps A eligible.  RUN_TO_PARITY
 * keeps A (protected); without it the pick is B, which preempts.  Once A
 * has run past V (not eligible) an eligible wakee with the earliest deadline
 * preempts, one with a later deadline than another's does not.
 */
START_TEST(wakeup_preempts_only_an_earlier_eligible_deadline)
{
	int rtp;

	for (rtp = 0; rtp < 2; rtp++) {
		setup_with(rtp ? "{run_to_parity: true}" : "{run_to_parity: false}");
		q_at(A, 0, 1000e3);
		q_at(D, 1000e3, 1500e3);
		ck_assert_ptr_eq(run(), A);
		NEAR(A->vprot, 1000e3);
		charge(100e3);
		NEAR(vnow(), 550e3);
		B->vlag = 300e3;
		q(B, GS_WAKE);
		NEAR(B->vruntime, 100e3);
		NEAR(B->deadline, 800e3);
		NEAR(vnow(), 400e3);
		ck_assert_int_eq(gsched_eevdf_ops.wakeup_preempt(&C, A, B), !rtp);
	}
	/* A past V (v_A 600 us, V 500 us): not eligible, its protection no matter */
	setup();
	q_at(A, 0, 700e3);
	q_at(D, 400e3, 1100e3);
	run();
	charge(600e3);		/* V = 500 us < 600: A not eligible */
	B->vlag = 0;
	q(B, GS_WAKE);		/* at V = 500 us, deadline 1.2 ms: D's 1.1 ms is earlier */
	NEAR(B->deadline, 1200e3);
	ck_assert_int_eq(gsched_eevdf_ops.wakeup_preempt(&C, A, B), 0);
	B->vlag = 300e3;	/* placed at 500 - 300 x 3072 / 2048 = 50 us, deadline 750 us */
	C.nqueued--;
	C.load -= B->weight;
	gsched_eevdf_ops.dequeue(&C, B, GS_MIGRATE);
	B->rel_deadline = 0;
	B->vlag = 300e3;
	q(B, GS_WAKE);
	NEAR(B->vruntime, 50e3);
	ck_assert_int_eq(gsched_eevdf_ops.wakeup_preempt(&C, A, B), 1);
	/* a reschedule already pending: no second one (test_tsk_need_resched) */
	C.need_resched = 1;
	ck_assert_int_eq(gsched_eevdf_ops.wakeup_preempt(&C, A, B), 0);
}
END_TEST

/* PLACE_REL_DEADLINE: a move keeps deadline - vruntime, and the lag. */
START_TEST(a_move_keeps_the_lag_and_the_relative_deadline)
{
	setup();
	q_at(A, 0, 300e3);
	q_at(B, 200e3, 900e3);	/* V = 100 us: A's lag +100 us */
	C.nqueued--;
	C.load -= A->weight;
	gsched_eevdf_ops.dequeue(&C, A, GS_MIGRATE);
	NEAR(A->vlag, 100e3);
	NEAR(A->deadline, 300e3);	/* relative */
	/* to an empty queue: no lag to keep (nr_running 0), at V = its zero */
	memset(&C, 0, sizeof C);
	C.k = &K;
	TAILQ_INIT(&C.rq);
	TAILQ_INIT(&C.delayed);
	C.min_vruntime = 5e6;
	q(A, GS_MIGRATE);
	NEAR(A->vruntime, 5e6);
	NEAR(A->deadline, 5e6 + 300e3);
}
END_TEST

/*
 * LNX-6.18 can_migrate_task lets a busy CPU's balance (migrate_load) move a
 * sched_delayed task; dequeue_entity (no DEQUEUE_DELAYED) saves its lag
 * uncut and its deadline relative, and enqueue_entity on the new queue
 * places it and leaves it delayed there.  A (v 500 us, deadline 1.2 ms)
 * sleeps ineligible beside B (v 100 us) on C: V = 300 us, lag -200 us.  On
 * E, whose curr D runs at 5 ms, it is placed at 5 ms + 200 us x 2048 / 1024
 * = 5.4 ms (V' = 5.2 ms: its lag -200 us again), deadline 700 us on, still
 * delayed and not eligible.  Woken there, it is requeued in place (lag < 0)
 * as ttwu_runnable does, not placed again.  Main took it out of the wrong
 * list and counted it runnable.
 */
START_TEST(a_delayed_sleeper_moves_still_delayed)
{
	struct gcpu E;

	setup();
	q_at(B, 100e3, 800e3);
	A->vruntime = 500e3;
	A->deadline = 1200e3;
	C.curr = A;
	C.load += A->weight;
	block();
	ck_assert_int_eq(A->delayed, 1);
	gsched_eevdf_ops.dequeue(&C, A, GS_MIGRATE);
	ck_assert_int_eq(C.ndelayed, 0);
	ck_assert_ptr_null(TAILQ_FIRST(&C.delayed));
	ck_assert_ptr_eq(TAILQ_FIRST(&C.rq), B);
	NEAR(C.avg_load, 1024);
	NEAR(A->vlag, -200e3);
	NEAR(A->deadline, 700e3);	/* relative */
	ck_assert_int_eq(A->delayed, 1);
	memset(&E, 0, sizeof E);
	E.k = &K;
	E.idx = 1;
	TAILQ_INIT(&E.rq);
	TAILQ_INIT(&E.delayed);
	E.min_vruntime = 5e6;
	E.curr = D;		/* the balance's destination runs a task */
	D->vruntime = 5e6;
	D->deadline = 5.7e6;
	gsched_eevdf_ops.enqueue(&E, A, GS_MIGRATE);
	ck_assert_int_eq(A->delayed, 1);
	ck_assert_int_eq(E.ndelayed, 1);
	ck_assert_int_eq(E.nqueued, 0);
	ck_assert_ptr_eq(TAILQ_FIRST(&E.delayed), A);
	ck_assert_ptr_null(TAILQ_FIRST(&E.rq));
	NEAR(A->vruntime, 5.4e6);
	NEAR(A->deadline, 6.1e6);
	/* not eligible there: a wakeup test does not pick it */
	ck_assert_int_eq(gsched_eevdf_ops.wakeup_preempt(&E, D, A), 0);
	/* woken where it now is: requeued as it stands (lag < 0 there) */
	A->cpu = 1;
	ck_assert_int_eq(gsched_eevdf_ops.select_cpu(&K, A, -1, GS_WAKE), 1);
	E.nqueued++;
	gsched_eevdf_ops.enqueue(&E, A, GS_WAKE);
	ck_assert_int_eq(A->delayed, 0);
	ck_assert_int_eq(E.ndelayed, 0);
	ck_assert_ptr_eq(TAILQ_FIRST(&E.rq), A);
	NEAR(A->vruntime, 5.4e6);
	NEAR(A->deadline, 6.1e6);
}
END_TEST

int
main(void)
{
	Suite *s = suite_create("geevdf");
	TCase *tc = tcase_create("policy");
	SRunner *sr;
	int nf;

	/* no wall-time limit (Check's default is 4 s a test): a loaded CI machine */
	tcase_set_timeout(tc, 0);
	tcase_add_test(tc, eligible_by_the_weighted_mean_and_earliest_deadline_first);
	tcase_add_test(tc, earliest_deadline_among_the_eligible);
	tcase_add_test(tc, a_used_slice_reschedules_at_the_next_update);
	tcase_add_test(tc, the_slice_scales_with_the_sysctl_factor);
	tcase_add_test(tc, lag_is_kept_across_a_sleep);
	tcase_add_test(tc, delayed_dequeue_keeps_an_ineligible_sleeper_queued);
	tcase_add_test(tc, wakeup_preempts_only_an_earlier_eligible_deadline);
	tcase_add_test(tc, a_move_keeps_the_lag_and_the_relative_deadline);
	tcase_add_test(tc, a_delayed_sleeper_moves_still_delayed);
	suite_add_tcase(s, tc);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	nf = srunner_ntests_failed(sr);
	srunner_free(sr);
	return nf == 0 ? 0 : 1;
}
