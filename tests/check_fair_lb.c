/* SPDX-License-Identifier: GPL-2.0-or-later */
/* check_fair_lb.c - the periodic load balance of the fair schedulers (cfs,
 * eevdf) per sched domain: each level's interval, busy_factor, the doubling
 * of a balanced domain, and what the timing means for an imbalance
 * (models/hv/sched_fair.c rebalance_domains). */
#include "testutil.h"
#include "rig.h"

#include "engine.h"
#include "hv/hv.h"
#include "hv/sched.h"
#include "hv/sched_cfs.h"
#include "hv/sched_eevdf.h"
#include "hv/sched_fair.h"
#include "hw/machine.h"

#define MS	1000000LL

/* 2 sockets x 2 cores: a socket (MC) level and a NUMA level, no SMT. */
#define M2S2C "{sockets: 2, cores_per_socket: 2, threads_per_core: 1, clock: 2GHz}"
/* 2 sockets x 1 core: the NUMA level only. */
#define M2S1C "{sockets: 2, cores_per_socket: 1, threads_per_core: 1, clock: 2GHz}"

static const struct sched_ops *const fair_scheds[] = { &sched_cfs_ops, &sched_eevdf_ops };

/*
 * The constants each policy's code gives M2S2C's domains (ms), and the gaps
 * between periodic balances they imply at HZ 1000 on 4 pCPUs
 * (max_load_balance_interval = HZ * 4 / 10 = 400 ticks):
 *   cfs (3.2 SD_MC_INIT 1..4 ms x64, SD_NODE_INIT 8..32 ms x32, all start
 *   at 1 ms): busy socket 64, 128, 256, 256...; busy NUMA 32, 64, 128, 256,
 *   400 (clamped)...; idle: the interval itself, up to 4 and 32 ms.
 *   eevdf (6.6 sd_init: sd_weight..2*sd_weight ms, x16, a busy interval one
 *   tick short, starting at sd_weight): socket weight 2, NUMA weight 4: busy
 *   socket 31, 63, 63...; busy NUMA 63, 127, 127...; idle up to 4 and 8 ms.
 */
struct lb_expect {
	long min, max, busy;		/* the level's constants, ms */
	long busy_first, busy_steady;	/* gaps of a busy pCPU, ms */
};
static const struct lb_expect expect[2][2] = {	/* [policy][socket, numa] */
	{ { 1, 4, 64, 64, 256 }, { 8, 32, 32, 32, 400 } },
	{ { 2, 4, 16, 31, 63 }, { 4, 8, 16, 63, 127 } },
};

START_TEST(domains_take_the_policys_constants)
{
	const struct sched_ops *ops = fair_scheds[_i];
	const struct fair_sd_param *p;
	struct rig t;
	int l;

	rig_init(&t, ops, M2S2C, NULL, 10 * MS);
	hv_add_vm(&t.hv, "a", 1, NULL, "test");
	rig_start(&t);
	ck_assert_ptr_null(fair_sd_of(&t.hv, 0, HW_SIBLING, &p));	/* no SMT: degenerate */
	for (l = 0; l < 2; l++) {
		const struct lb_expect *e = &expect[_i][l];

		ck_assert_ptr_nonnull(fair_sd_of(&t.hv, 0, l == 0 ? HW_SOCKET : HW_REMOTE, &p));
		ck_assert_int_eq(p->weight, l == 0 ? 2 : 4);
		ck_assert_int_eq(p->min_interval, e->min * MS);
		ck_assert_int_eq(p->max_interval, e->max * MS);
		ck_assert_int_eq(p->busy_factor, e->busy);
	}
	rig_free(&t);
	/* balance_interval: one base for every level, max keeps its ratio */
	rig_init(&t, ops, M2S2C, "{balance_interval: 10ms}", 10 * MS);
	hv_add_vm(&t.hv, "a", 1, NULL, "test");
	rig_start(&t);
	for (l = 0; l < 2; l++) {
		const struct lb_expect *e = &expect[_i][l];
		const struct fair_sd *sd = fair_sd_of(&t.hv, 0, l == 0 ? HW_SOCKET : HW_REMOTE, &p);

		ck_assert_int_eq(p->min_interval, 10 * MS);
		ck_assert_int_eq(p->max_interval, e->max / e->min * 10 * MS);
		ck_assert_int_eq(sd->interval, 10 * MS);
	}
	rig_free(&t);
}
END_TEST

/* Run 2 s on M2S2C, sampling pCPU 0's domains each ms; busy: a vCPU pinned
 * to each pCPU (nothing can move: every balance finds the domain balanced);
 * idle: one vCPU, pinned to pCPU 3, pCPU 0 runs nothing.  gaps[l] gets the
 * times between level l's balances, ms. */
#define NGAP	2100
struct gaps {
	long g[2][NGAP];
	int n[2];
	uint64_t count[2];
	int64_t interval[2];
};

static void
gaps_run(const struct sched_ops *ops, int busy, struct gaps *x)
{
	struct rig t;
	sim_time_t now, last[2] = { 0, 0 };
	int i, l;

	memset(x, 0, sizeof *x);
	rig_init(&t, ops, M2S2C, NULL, 2000 * MS);
	for (i = busy ? 0 : 3; i < 4; i++) {
		char name[8];
		struct vm *vm;

		snprintf(name, sizeof name, "v%d", i);
		vm = hv_add_vm(&t.hv, name, 1, NULL, "test");
		rig_aff(&t, vm->vcpus[0], 1u << i);
	}
	rig_start(&t);
	for (now = MS; now <= 2000 * MS; now += MS) {
		rig_until(&t, now);
		for (l = 0; l < 2; l++) {
			const struct fair_sd *sd = fair_sd_of(&t.hv, 0, l == 0 ? HW_SOCKET : HW_REMOTE,
			    NULL);

			if (sd->last_balance != last[l] && x->n[l] < NGAP) {
				x->g[l][x->n[l]++] = (long)((sd->last_balance - last[l]) / MS);
				last[l] = sd->last_balance;
			}
			x->count[l] = sd->lb_count;
			x->interval[l] = sd->interval;
		}
	}
	rig_free(&t);
}

/* LNX-3.2 rebalance_domains: interval *= busy_factor when not idle;
 * load_balance: a balanced domain doubles its interval up to max_interval. */
START_TEST(busy_pcpu_balances_busy_factor_times_less_often_and_backs_off)
{
	struct gaps x;
	int l, k;

	gaps_run(fair_scheds[_i], 1, &x);
	for (l = 0; l < 2; l++) {
		const struct lb_expect *e = &expect[_i][l];

		ck_assert_int_ge(x.n[l], 3);
		ck_assert_int_eq(x.g[l][0], e->busy_first);
		for (k = 1; k < x.n[l]; k++)	/* the doubling, then steady */
			ck_assert_msg(x.g[l][k] >= x.g[l][k - 1] && x.g[l][k] <= e->busy_steady,
			    "level %d gap %d: %ld after %ld", l, k, x.g[l][k], x.g[l][k - 1]);
		ck_assert_int_eq(x.g[l][x.n[l] - 1], e->busy_steady);
		ck_assert_int_eq(x.interval[l], e->max * MS);	/* backed off to max */
		ck_assert_int_le(x.count[l], 2000 / e->busy_first + 1);
	}
}
END_TEST

START_TEST(idle_pcpu_balances_every_interval)
{
	struct gaps x;
	int l, k;

	gaps_run(fair_scheds[_i], 0, &x);
	for (l = 0; l < 2; l++) {
		const struct lb_expect *e = &expect[_i][l];

		for (k = 0; k < x.n[l]; k++)
			ck_assert_int_le(x.g[l][k], e->max);
		ck_assert_int_eq(x.g[l][x.n[l] - 1], e->max);
		ck_assert_int_ge(x.count[l], 2000 / e->max - 4);
	}
}
END_TEST

/*
 * A cross-socket imbalance: 3 vCPUs of b start on pCPU 0 (then may run on
 * both), pCPU 1 runs one pinned vCPU (busy) or nothing (idle).  Busy, pCPU 1
 * pulls at its first NUMA balance, busy_factor x the starting interval: cfs
 * 32 x 1 ms, eevdf 16 x 2 ms - 1 tick (2 pCPUs: weight 2), at the tick
 * after (pCPU 1 ticks at 1.5 ms + k ms), and the domain's interval goes
 * back to its minimum; idle, within a few ms.
 */
static int
b_on_pcpu1(struct rig *t, struct vm *b)
{
	int i, n = 0;

	for (i = 0; i < b->nvcpus; i++)
		n += b->vcpus[i]->processor == 1;
	return n;
}

START_TEST(cross_socket_imbalance_is_fixed_when_the_numa_domain_is_due)
{
	static const long due_ms[2] = { 32, 31 };
	const struct sched_ops *ops = fair_scheds[_i];
	int busy;

	for (busy = 0; busy < 2; busy++) {
		struct rig t;
		struct vm *b;
		const struct fair_sd *sd;
		const struct fair_sd_param *p;
		int i;

		rig_init(&t, ops, M2S1C, NULL, 100 * MS);
		if (busy)
			rig_aff(&t, hv_add_vm(&t.hv, "p", 1, NULL, "test")->vcpus[0], 2);
		b = hv_add_vm(&t.hv, "b", 3, NULL, "test");
		for (i = 0; i < 3; i++)
			rig_aff(&t, b->vcpus[i], 1);
		rig_start(&t);
		for (i = 0; i < 3; i++)
			rig_aff(&t, b->vcpus[i], 3);
		if (busy) {
			rig_until(&t, (due_ms[_i] - 1) * MS);
			ck_assert_int_eq(b_on_pcpu1(&t, b), 0);
			rig_until(&t, (due_ms[_i] + 1) * MS);
			ck_assert_int_eq(b_on_pcpu1(&t, b), 1);
			/* load_balance: unbalanced, so back to min_interval (cfs: 1 -> 8 ms) */
			sd = fair_sd_of(&t.hv, 1, HW_REMOTE, &p);
			ck_assert_int_eq(sd->interval, p->min_interval);
		} else {
			rig_until(&t, 5 * MS);
			ck_assert_int_ge(b_on_pcpu1(&t, b), 1);
		}
		rig_until(&t, 100 * MS);	/* and it stays so: 2 + 2, or 2 + 1 */
		ck_assert_int_eq(b_on_pcpu1(&t, b), 1);
		rig_free(&t);
	}
}
END_TEST

static Suite *
fair_lb_suite(void)
{
	Suite *s = suite_create("fair_lb");
	TCase *tc = tcase_create("core");

	tcase_set_timeout(tc, 0);
	tcase_add_loop_test(tc, domains_take_the_policys_constants, 0, 2);
	tcase_add_loop_test(tc, busy_pcpu_balances_busy_factor_times_less_often_and_backs_off, 0,
	    2);
	tcase_add_loop_test(tc, idle_pcpu_balances_every_interval, 0, 2);
	tcase_add_loop_test(tc, cross_socket_imbalance_is_fixed_when_the_numa_domain_is_due, 0, 2);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	return tu_main(fair_lb_suite());
}
