/* SPDX-License-Identifier: GPL-2.0-or-later */
/* check_fair.c - what the fair schedulers (cfs, eevdf) share, each test run
 * under both: weights, and group scheduling (per-VM task groups with
 * cpu.weight shares and cpu.max bandwidth; models/hv/sched_fair.c). */
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

#define M1 "{sockets: 1, cores_per_socket: 1, threads_per_core: 1, clock: 2GHz}"
#define M2 "{sockets: 1, cores_per_socket: 2, threads_per_core: 1, clock: 2GHz}"

static const struct sched_ops *const fair_scheds[] = { &sched_cfs_ops, &sched_eevdf_ops };

static double
vm_ran_s(const struct vm *vm)
{
	double s = 0;
	int i;

	for (i = 0; i < vm->nvcpus; i++)
		s += (double)vm->vcpus[i]->rs_time[RS_RUNNING] * 1e-9;
	return s;
}

/* LNX-3.6 / LNX-6.6 calc_delta_fair: service in proportion to weight */
START_TEST(weights_1024_2048_share_1_to_2)
{
	const struct sched_ops *ops = fair_scheds[_i];
	struct rig t;
	double a, b;

	rig_init(&t, ops, M1, "{weights: {b: 2048}}", 2000 * MS);
	hv_add_vm(&t.hv, "a", 1, NULL, "test");
	hv_add_vm(&t.hv, "b", 1, NULL, "test");
	rig_start(&t);
	sim_run(&t.sim);
	hv_finish(&t.hv);
	a = vm_ran_s(t.hv.vms[0]);
	b = vm_ran_s(t.hv.vms[1]);
	ck_assert_double_eq_tol(b / a, 2.0, 0.04);
	ck_assert_double_eq_tol(a + b, 2.0, 1e-9);
	rig_free(&t);
}
END_TEST

/* VM a (2 vCPUs, cpu.weight wa) and VM b (6 vCPUs, weight 100), all busy,
 * on 2 pCPUs for 2 s; returns a's and b's pCPU-seconds. */
static void
weights_run(const struct sched_ops *ops, const char *params, long wa, double *a, double *b)
{
	struct rig t;
	struct vm *va, *vb;

	rig_init(&t, ops, M2, params, 2000 * MS);
	va = hv_add_vm(&t.hv, "a", 2, NULL, "test");
	vb = hv_add_vm(&t.hv, "b", 6, NULL, "test");
	va->cg.weight = wa;
	rig_start(&t);
	sim_run(&t.sim);
	hv_finish(&t.hv);
	*a = vm_ran_s(va);
	*b = vm_ran_s(vb);
	(void)vb;
	rig_free(&t);
}

START_TEST(per_vm_groups_share_by_weight_not_by_vcpu_count)
{
	const struct sched_ops *ops = fair_scheds[_i];
	double a, b;

	/* Per thread (groups: none): 2 of 8 threads -> a gets 1/4 of 4 pCPU-s. */
	weights_run(ops, NULL, 200, &a, &b);
	ck_assert_double_eq_tol(a / (a + b), 0.25, 0.02);
	/* Per VM, equal weights: half each, whatever the vCPU counts. */
	weights_run(ops, "{groups: per-vm}", 100, &a, &b);
	ck_assert_msg(a / (a + b) > 0.47 && a / (a + b) < 0.53, "%s: a %.3f b %.3f",
	    ops->name, a, b);
	/* autogroup: one group per VM at 1024 whatever cpu.weight says. */
	weights_run(ops, "{groups: autogroup}", 200, &a, &b);
	ck_assert_msg(a / (a + b) > 0.47 && a / (a + b) < 0.53, "%s: a %.3f b %.3f",
	    ops->name, a, b);
	/* cpu.weight 200:100 -> 2:1. */
	weights_run(ops, "{groups: per-vm}", 200, &a, &b);
	ck_assert_msg(a / b > 1.9 && a / b < 2.1, "%s: a %.3f b %.3f", ops->name, a, b);
	ck_assert_double_eq_tol(a + b, 4.0, 1e-6);
}
END_TEST

/* VM a (2 vCPUs) capped by cpu.max, VM b (2 vCPUs) not, on 2 pCPUs for 1 s. */
START_TEST(cpu_max_throttles_to_quota_per_period)
{
	const struct sched_ops *ops = fair_scheds[_i];
	struct rig t;
	struct vm *va, *vb;
	const struct fair_tg *tg;

	rig_init(&t, ops, M2, "{groups: per-vm}", 1000 * MS);
	va = hv_add_vm(&t.hv, "a", 2, NULL, "test");
	vb = hv_add_vm(&t.hv, "b", 2, NULL, "test");
	va->cg.quota = 30 * MS;
	va->cg.period = 100 * MS;
	rig_start(&t);
	sim_run(&t.sim);
	hv_finish(&t.hv);
	/* 30 ms per 100 ms period = 0.3 pCPU-s in 1 s (one 5 ms slice of slack). */
	ck_assert_msg(vm_ran_s(va) > 0.29 && vm_ran_s(va) < 0.31, "%s: a ran %.4f",
	    ops->name, vm_ran_s(va));
	ck_assert_double_eq_tol(vm_ran_s(vb), 2.0 - vm_ran_s(va), 0.01);
	(void)tg;
	rig_free(&t);
}
END_TEST

/* LNX-3.2 fair.c yield_to_task_fair: a task of a throttled group is not
 * runnable, so a directed yield to it fails (fair_yield_to_cls walks up
 * from the task's own rq, the group's, and stops below the root) */
START_TEST(yield_to_a_task_of_a_throttled_group_fails)
{
	const struct sched_ops *ops = fair_scheds[_i];
	struct rig t;
	struct vm *va, *vb;
	struct fair *f;

	/* one pCPU: a (10 ms per 100 ms) runs out early in the first period */
	rig_init(&t, ops, M1, "{groups: per-vm}", 50 * MS);
	va = hv_add_vm(&t.hv, "a", 1, NULL, "test");
	vb = hv_add_vm(&t.hv, "b", 1, NULL, "test");
	va->cg.quota = 10 * MS;
	va->cg.period = 100 * MS;
	rig_start(&t);
	sim_run(&t.sim);
	f = t.hv.sched_priv;
	ck_assert_int_eq(FAIR_SE(va->vcpus[0])->cfs_rq->throttled, 1);
	ck_assert_int_eq(FAIR_SE(va->vcpus[0])->on_rq, 1);
	ck_assert_ptr_eq(t.hv.pcpus[0].curr, vb->vcpus[0]);
	ck_assert_int_eq(hv_yield_to(vb->vcpus[0], va->vcpus[0]), 0);
	ck_assert_ptr_null(f->cpu[0].root.next);	/* no buddy set either */
	rig_free(&t);
}
END_TEST

/* vms[].cgroup in a scenario reaches the groups: weight 300:100 -> 3:1. */
START_TEST(scenario_cgroup_weight_and_max_take_effect)
{
	struct metrics m;
	char text[1024];

	snprintf(text, sizeof text, TEST_MACHINE
	    "duration: 500ms\n"
	    "hypervisor: {kind: kvm, scheduler: %s, params: {groups: per-vm}}\n"
	    "vms:\n"
	    "  - {name: a, vcpus: 8, workload: w, cgroup: {weight: 300}}\n"
	    "  - {name: b, vcpus: 8, workload: w}\n"
	    "  - {name: c, vcpus: 8, workload: w, cgroup: {max: 100ms/100ms}}\n"
	    "workloads: {w: {program: [{loop: forever, do: [{compute: 1ms}]}]}}\n",
	    fair_scheds[_i]->name);
	tu_run(text, 1, NULL, &m);
	/* c is capped at 1 of 8 pCPUs (a little under: local runtime handed out
	 * in 5 ms slices expires unused at the period's end, expire_cfs_rq_runtime);
	 * a and b share the other 7 as 3:1. */
	ck_assert_double_le(tu_metric(&m, "c.running_share"), 100.0 / 8 + 0.3);
	ck_assert_double_ge(tu_metric(&m, "c.running_share"), 100.0 / 8 - 1.0);
	/* Within 20%: 24 threads spread over 8 pCPUs by the balancer, so each
	 * pCPU's split is only as fair as the spread (groups: none gives 1:1). */
	ck_assert_double_eq_tol(tu_metric(&m, "a.running_share") /
	    tu_metric(&m, "b.running_share"), 3.0, 0.6);
	metrics_free(&m);
}
END_TEST

/* Two VMs that name one cgroup share its group: on 2 pCPUs the VM alone in
 * its group gets half, the pair the other half between them (per VM: 1/3). */
START_TEST(vms_naming_one_cgroup_share_it)
{
	struct metrics m;
	char text[1024];
	int shared;

	for (shared = 0; shared < 2; shared++) {
		snprintf(text, sizeof text,
		    "machine: {sockets: 1, cores_per_socket: 2, threads_per_core: 1, clock: 2GHz}\n"
		    "duration: 600ms\n"
		    "hypervisor: {kind: kvm, scheduler: %s, params: {groups: per-vm}}\n"
		    "vms:\n"
		    "  - {name: a, vcpus: 2, workload: w}\n"
		    "  - {name: h, count: 2, vcpus: 2, workload: w%s}\n"
		    "workloads: {w: {program: [{loop: forever, do: [{compute: 1ms}]}]}}\n",
		    fair_scheds[_i]->name, shared ? ", cgroup: {name: hogs}" : "");
		tu_run(text, 1, NULL, &m);
		ck_assert_double_eq_tol(tu_metric(&m, "a.running_share"),
		    shared ? 50.0 : 100.0 / 3, 2.0);
		ck_assert_double_eq_tol(tu_metric(&m, "h.running_share"),
		    shared ? 25.0 : 100.0 / 3, 2.0);
		metrics_free(&m);
	}
}
END_TEST

/* VMs sharing a cgroup must agree on its settings; the second is named. */
START_TEST(one_cgroup_two_weights_refused)
{
	struct scenario sc;
	struct vs_err err = { "" };

	ck_assert_int_ne(tu_load(&sc, TEST_MACHINE
	    "duration: 1ms\n"
	    "hypervisor: {kind: kvm, scheduler: cfs, params: {groups: per-vm}}\n"
	    "vms:\n"
	    "  - {name: a, vcpus: 1, workload: w, cgroup: {name: g, weight: 200}}\n"
	    "  - {name: b, vcpus: 1, workload: w, cgroup: {name: g}}\n"
	    "workloads: {w: {program: [{compute: 1us}]}}\n", &err), 0);
	ck_assert_msg(strstr(err.msg, ":6:") != NULL && strstr(err.msg, "'b'") != NULL &&
	    strstr(err.msg, "cgroup 'g'") != NULL, "%s", err.msg);
	scen_free(&sc);
}
END_TEST

START_TEST(bad_cgroup_names_file_line_col)
{
	static const char *const bad[] = {
		"{max: 50ms/5s}", "{max: 0.5ms/100ms}", "{max: lots}", "{weight: 0}",
		"{wieght: 100}", "[100]",
	};
	struct scenario sc;
	struct vs_err err = { "" };
	char text[1024];
	size_t i;

	for (i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		snprintf(text, sizeof text, TEST_MACHINE
		    "duration: 1ms\n"
		    "hypervisor: {kind: kvm, scheduler: eevdf, params: {groups: per-vm}}\n"
		    "vms: [{name: g, vcpus: 1, workload: w, cgroup: %s}]\n"
		    "workloads: {w: {program: [{compute: 1us}]}}\n", bad[i]);
		ck_assert_int_ne(tu_load(&sc, text, &err), 0);
		ck_assert_msg(strstr(err.msg, ":4:") != NULL, "%s: %s", bad[i], err.msg);
		scen_free(&sc);
	}
}
END_TEST

/* rq sorted by (vruntime, seq), with exactly the queued entities. */
static void
rq_check(const struct fair_rq *rq, const struct fair_se *se, const int *in, int n)
{
	int i, j, k = 0;

	for (i = 0; i < rq->nq; i++) {
		const struct fair_se *a = rq->q[i];

		if (i > 0) {
			const struct fair_se *b = rq->q[i - 1];

			ck_assert_msg(b->vruntime < a->vruntime ||
			    (b->vruntime == a->vruntime && b->seq < a->seq), "out of order at %d", i);
		}
		j = (int)(a - se);
		ck_assert(j >= 0 && j < n && in[j]);
	}
	for (j = 0; j < n; j++)
		k += in[j];
	ck_assert_int_eq(rq->nq, k);
}

/* fcbb469: a host rq of a few entities inserts and removes by a scan, a
 * longer one by bsearch; the order is (vruntime, seq) either way, ties
 * FIFO, up to 20 entities and back down (both sides of the switch). */
START_TEST(rq_order_holds_short_and_long)
{
	enum { N = 20 };
	struct fair f;
	struct fair_rq rq;
	struct fair_se se[N];
	int in[N] = { 0 }, i, j;

	memset(&f, 0, sizeof f);
	memset(&rq, 0, sizeof rq);
	memset(se, 0, sizeof se);
	for (i = 0; i < N; i++) {
		se[i].weight = FAIR_NICE0;
		se[i].vruntime = (int64_t)((i * 7) % 5) * MS;	/* ties, out of order */
		se[i].cfs_rq = &rq;
		fair_rq_insert(&f, &rq, &se[i]);
		in[i] = 1;
		rq_check(&rq, se, in, N);
	}
	for (i = 0; i < N; i++) {
		j = (i * 13) % N;	/* a scrambled order, every one once */
		fair_rq_remove(&rq, &se[j]);
		in[j] = 0;
		rq_check(&rq, se, in, N);
	}
	free(rq.q);
}
END_TEST

static Suite *
fair_suite(void)
{
	Suite *s = suite_create("fair");
	TCase *tc = tcase_create("core");

	tcase_set_timeout(tc, 0);
	tcase_add_loop_test(tc, weights_1024_2048_share_1_to_2, 0, 2);
	tcase_add_loop_test(tc, per_vm_groups_share_by_weight_not_by_vcpu_count, 0, 2);
	tcase_add_loop_test(tc, cpu_max_throttles_to_quota_per_period, 0, 2);
	tcase_add_loop_test(tc, yield_to_a_task_of_a_throttled_group_fails, 0, 2);
	tcase_add_loop_test(tc, scenario_cgroup_weight_and_max_take_effect, 0, 2);
	tcase_add_loop_test(tc, vms_naming_one_cgroup_share_it, 0, 2);
	tcase_add_test(tc, one_cgroup_two_weights_refused);
	tcase_add_test(tc, bad_cgroup_names_file_line_col);
	tcase_add_test(tc, rq_order_holds_short_and_long);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	return tu_main(fair_suite());
}
