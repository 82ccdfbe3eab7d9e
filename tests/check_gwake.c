/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * check_gwake.c - where the guest's fair class puts a waking task
 * (models/guest/gsched_wake.c), against cases worked out by hand from
 * LNX-3.2 kernel/sched_fair.c select_task_rq_fair / wake_affine /
 * select_idle_sibling and LNX-6.18 kernel/sched/fair.c record_wakee,
 * wake_wide, wake_affine_idle, wake_affine_weight and select_idle_sibling.
 * The file is built in here beside a stand-in kernel of four vCPUs whose
 * curr, queue counts and loads each test sets.
 */
#include <check.h>
#include <string.h>

#include "../models/guest/gsched_wake.c"

struct gkernel {
	struct gcpu cpus[4];
	int64_t jiffies;
};

int gk_ncpus(const struct gkernel *k) { (void)k; return 4; }
struct gcpu *gk_cpu(struct gkernel *k, int i) { return &k->cpus[i]; }
int gk_task_allowed(const struct task *t, int cpu) { return t->aff == NULL || t->aff[cpu]; }
int64_t gk_jiffies(const struct gkernel *k) { return k->jiffies; }
int gk_hz(const struct gkernel *k) { (void)k; return 250; }
/* a new task (GS_FORK) is not placed here: mark the fallback */
int gk_select_cpu(struct gkernel *k, struct task *t, int w, int f)
{
	(void)k; (void)t; (void)w; (void)f;
	return 99;
}

static struct gkernel K;
static struct task T[8];
static const struct gs_wa_features ALL = { 1, 1, 1 };
#define WAKER (&T[0])	/* runs on vCPU 0 */
#define P (&T[1])	/* the wakee, last ran on vCPU 1 */

/* vCPU i runs T[i + 2] (or nothing) with n more queued, each of weight 1024 */
static void
busy(int i, int n)
{
	struct gcpu *c = &K.cpus[i];

	c->curr = i == 0 ? WAKER : &T[i + 2];
	c->nqueued = n;
	c->load = 1024ul * (unsigned long)(n + 1);
}

static void
setup(void)
{
	int i;

	memset(&K, 0, sizeof K);
	memset(T, 0, sizeof T);
	for (i = 0; i < 8; i++) {
		T[i].id = i;
		T[i].weight = 1024;
		T[i].only = -1;
		T[i].recent_used_cpu = -1;
	}
	for (i = 0; i < 4; i++)
		K.cpus[i].idx = i;
	P->prev_cpu = 1;
	P->state = T_BLOCKED;
}

/*
 * 6.18, every vCPU busy, the waker alone on vCPU 0 and one task queued
 * behind the wakee's prev (vCPU 1): a sync wake goes to the waker's vCPU
 * (wake_affine_idle: nr_running == 1 there); without sync,
 * wake_affine_weight compares (1024 + 1024) x 100 with 2048 x 108 and takes
 * vCPU 0 too; with 1 more queued on vCPU 0 it is (2048 + 1024) x 100 against
 * 221,184: prev.  With sync there the waker's weight comes off: 204,800 <
 * 221,184 + 1, vCPU 0.
 */
START_TEST(wake_affine_takes_the_waker_s_vcpu_as_6_18_does)
{
	setup();
	busy(0, 0);
	busy(1, 1);
	busy(2, 3);
	busy(3, 3);
	ck_assert_int_eq(gs_wake_select618(&K, P, 0, GS_WAKE | GS_SYNC, &ALL), 0);
	ck_assert_int_eq(gs_wake_select618(&K, P, 0, GS_WAKE, &ALL), 0);
	busy(0, 1);
	ck_assert_int_eq(gs_wake_select618(&K, P, 0, GS_WAKE, &ALL), 1);
	ck_assert_int_eq(gs_wake_select618(&K, P, 0, GS_WAKE | GS_SYNC, &ALL), 0);
	/* the features off: prev */
	{
		struct gs_wa_features none = { 0, 0, 1 };

		ck_assert_int_eq(gs_wake_select618(&K, P, 0, GS_WAKE | GS_SYNC, &none), 1);
	}
	/* from a device interrupt (no waking vCPU): prev */
	ck_assert_int_eq(gs_wake_select618(&K, P, -1, GS_WAKE | GS_SYNC, &ALL), 1);
	/* a new task is not placed here */
	ck_assert_int_eq(gs_wake_select618(&K, P, 0, GS_FORK, &ALL), 99);
}
END_TEST

/*
 * 6.18 wake_wide: a waker that flips between wakees at least llc_size (4)
 * times as often as a wakee that flips at least 4 times leaves the wakee
 * on prev, even a sync one; record_wakee counts a flip per change of
 * wakee and halves the count once HZ jiffies have passed.
 */
START_TEST(a_wide_waker_leaves_the_wakee_on_prev)
{
	setup();
	busy(0, 0);
	busy(1, 1);
	busy(2, 3);
	busy(3, 3);
	P->wakee_flips = 4;
	WAKER->wakee_flips = 15;
	/* this wake is the 16th flip: 16 >= 4 x 4 */
	ck_assert_int_eq(gs_wake_select618(&K, P, 0, GS_WAKE | GS_SYNC, &ALL), 1);
	ck_assert_uint_eq(WAKER->wakee_flips, 16);
	ck_assert_ptr_eq(WAKER->last_wakee, P);
	/* the same wakee again: no flip */
	ck_assert_int_eq(gs_wake_select618(&K, P, 0, GS_WAKE | GS_SYNC, &ALL), 1);
	ck_assert_uint_eq(WAKER->wakee_flips, 16);
	/* a second on (251 jiffies at HZ 250): halved to 8 < 16, affine again */
	K.jiffies = 251;
	ck_assert_int_eq(gs_wake_select618(&K, P, 0, GS_WAKE | GS_SYNC, &ALL), 0);
	ck_assert_uint_eq(WAKER->wakee_flips, 8);
}
END_TEST

/*
 * 6.18 select_idle_sibling: an idle target or prev first, then the
 * recently used vCPU (p->recent_used_cpu, set to prev on the way), then the
 * LLC from target + 1 round; 3.2's: target if idle, else the lowest idle
 * vCPU.
 */
START_TEST(select_idle_sibling_finds_an_idle_vcpu)
{
	setup();
	busy(0, 2);
	busy(1, 1);
	busy(2, 3);	/* vCPU 3 idle */
	P->recent_used_cpu = 3;
	ck_assert_int_eq(gs_wake_select618(&K, P, -1, GS_WAKE, &ALL), 3);
	ck_assert_int_eq(P->recent_used_cpu, 1);
	busy(3, 0);
	K.cpus[2].curr = NULL;
	K.cpus[2].nqueued = 0;
	K.cpus[2].load = 0;
	/* vCPU 2 idle, scanned from 2 on */
	ck_assert_int_eq(gs_wake_select618(&K, P, -1, GS_WAKE, &ALL), 2);
	ck_assert_int_eq(gs_wake_select32(&K, P, -1, GS_WAKE), 2);
	/* an idle prev is kept */
	K.cpus[1].curr = NULL;
	K.cpus[1].nqueued = 0;
	ck_assert_int_eq(gs_wake_select618(&K, P, -1, GS_WAKE, &ALL), 1);
	ck_assert_int_eq(gs_wake_select32(&K, P, -1, GS_WAKE), 1);
}
END_TEST

/*
 * 3.2 wake_affine (no wake_wide yet), loads as weighted_cpuload, prev's
 * 2048 x 112 = 229,376 against 100 x (this_load + 1024): the waker alone
 * on vCPU 0 is balanced (sync: this_load 0; without: 204,800), so the wake
 * is affine; with 3 more queued there (sync: 3072, 409,600; without 4096)
 * it is not, and this_load > load: prev.
 */
START_TEST(wake_affine_as_3_2_does)
{
	setup();
	busy(0, 0);
	busy(1, 1);
	busy(2, 3);
	busy(3, 3);
	ck_assert_int_eq(gs_wake_select32(&K, P, 0, GS_WAKE | GS_SYNC), 0);
	ck_assert_int_eq(gs_wake_select32(&K, P, 0, GS_WAKE), 0);
	busy(0, 3);
	ck_assert_int_eq(gs_wake_select32(&K, P, 0, GS_WAKE | GS_SYNC), 1);
	ck_assert_int_eq(gs_wake_select32(&K, P, 0, GS_WAKE), 1);
	/* waking on its own prev: that vCPU, no test */
	ck_assert_int_eq(gs_wake_select32(&K, P, 1, GS_WAKE), 1);
}
END_TEST

int
main(void)
{
	Suite *s = suite_create("gwake");
	TCase *tc = tcase_create("placement");
	SRunner *sr;
	int nf;

	/* no wall-time limit (Check's default is 4 s a test): a loaded CI machine */
	tcase_set_timeout(tc, 0);
	tcase_add_test(tc, wake_affine_takes_the_waker_s_vcpu_as_6_18_does);
	tcase_add_test(tc, a_wide_waker_leaves_the_wakee_on_prev);
	tcase_add_test(tc, select_idle_sibling_finds_an_idle_vcpu);
	tcase_add_test(tc, wake_affine_as_3_2_does);
	suite_add_tcase(s, tc);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	nf = srunner_ntests_failed(sr);
	srunner_free(sr);
	return nf == 0 ? 0 : 1;
}
