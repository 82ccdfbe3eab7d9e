/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * check_kvm_dy.c - KVM's decisions, one situation each: which vCPU
 * kvm_vcpu_on_spin yields to under each version and switch, and what the
 * PV hypercalls (KVM_HC_SCHED_YIELD, KVM_HC_KICK_CPU) do.  A scripted
 * scheduler records every yield_to and answers as the test says, so the
 * decision is seen exactly, without a run.
 */
#include <check.h>
#include <string.h>

#include "engine.h"
#include "guest/guest.h"
#include "hv/hv.h"
#include "hv/kind.h"
#include "hw/machine.h"
#include "yconf.h"

#define NV 6

static int asked[16], nasked;	/* targets of yield_to, in order */
static int answer[NV];		/* what yield_to answers for each target */

static int
fake_yield_to(struct hv *hv, struct vcpu *from, struct vcpu *to)
{
	asked[nasked++] = to->idx;
	return answer[to->idx];
}

static const struct sched_ops fake = { .name = "fake", .yield_to = fake_yield_to };

struct t {
	struct sim sim;
	struct machine m;
	struct hv hv;
	struct yc_doc *mdoc, *kdoc;
	void *cfg;
	struct vcpu *v[NV];
};

/* A VM of NV vCPUs: v0 runs (it is the spinner), the others wait off-CPU. */
static void
t_init(struct t *t, const char *kvm_yaml)
{
	struct vs_err err = { "" };
	int i;

	memset(t, 0, sizeof *t);
	t->mdoc = yc_load_string("machine", "{cores_per_socket: 4, clock: 2GHz}", &err);
	ck_assert_msg(t->mdoc != NULL, "%s", err.msg);
	ck_assert_msg(machine_from_yaml(&t->m, yc_root(t->mdoc), &err) == 0, "%s", err.msg);
	t->kdoc = yc_load_string("hypervisor", kvm_yaml, &err);
	ck_assert_msg(t->kdoc != NULL, "%s", err.msg);
	ck_assert_msg(kind_kvm_ops.parse(yc_root(t->kdoc), &t->m, &t->cfg, &err) == 0, "%s",
	    err.msg);
	sim_init(&t->sim, 1, SIM_NEVER);
	hv_init(&t->hv, &t->sim, &t->m, &fake, &guest_hv_ops);
	hv_add_vm(&t->hv, "g", NV, NULL, "test");
	t->hv.kind = &kind_kvm_ops;
	kind_kvm_ops.init(&t->hv, t->cfg);
	for (i = 0; i < NV; i++) {
		t->v[i] = t->hv.vcpus[i];
		answer[i] = 1;
	}
	t->v[0]->pcpu = &t->hv.pcpus[0];
	nasked = 0;
}

/* every vCPU but v0 refuses a yield_to */
static void
refuse_all(void)
{
	int i;

	for (i = 1; i < NV; i++)
		answer[i] = 0;
}

static void
t_free(struct t *t)
{
	t->v[0]->pcpu = NULL;
	hv_destroy(&t->hv);
	sim_destroy(&t->sim);
	kind_kvm_ops.free_cfg(t->cfg);
	machine_free(&t->m);
	yc_free(t->mdoc);
	yc_free(t->kdoc);
}

/* v was running and the host preempted it (kvm_sched_out while runnable). */
static void
preempt(struct t *t, int i)
{
	kind_kvm_ops.sched_switch(&t->hv, t->v[i], NULL);
}

/* v slept and an interrupt or kick woke it; it has not run since. */
static void
woken(struct t *t, int i)
{
	t->v[i]->blocked = 1;
	kind_kvm_ops.sched_switch(&t->hv, t->v[i], NULL);
	t->v[i]->blocked = 0;
	kind_kvm_ops.wake(&t->hv, t->v[i]);
}

static void
ple(struct t *t, int i)
{
	nasked = 0;
	kind_kvm_ops.ple_exit(&t->hv, t->v[i]);
	kind_kvm_ops.ple_done(&t->hv, t->v[i]);
}

START_TEST(v32_takes_the_first_not_running)
{
	struct t t;

	t_init(&t, "{spin_handler: \"3.2\"}");
	t.v[1]->pcpu = &t.hv.pcpus[1];	/* in guest mode: PF_VCPU refuses */
	preempt(&t, 3);
	ple(&t, 0);
	ck_assert_int_eq(nasked, 1);
	ck_assert_int_eq(asked[0], 2);	/* v2 never ran: not preempted, still a candidate */
	t.v[1]->pcpu = NULL;
	t_free(&t);
}
END_TEST

START_TEST(only_preempted_skips_the_never_preempted)
{
	struct t t;

	t_init(&t, "{directed_yield: {version: \"3.2\", only_preempted: true}}");
	preempt(&t, 3);
	ple(&t, 0);
	ck_assert_int_eq(nasked, 1);
	ck_assert_int_eq(asked[0], 3);
	t_free(&t);
}
END_TEST

START_TEST(v310_is_preempted_only)
{
	struct t t;

	t_init(&t, "{directed_yield: \"3.10\"}");
	ple(&t, 0);
	ck_assert_int_eq(nasked, 0);	/* nobody preempted: no yield at all */
	preempt(&t, 2);
	ple(&t, 0);
	ck_assert_int_eq(nasked, 1);
	ck_assert_int_eq(asked[0], 2);
	t_free(&t);
}
END_TEST

/* dy_eligible alone on 3.2: a vCPU in its own PLE handler is passed over every other time. */
START_TEST(dy_eligible_passes_over_a_spinner_every_other_time)
{
	struct t t;
	int i;

	t_init(&t, "{directed_yield: {version: \"3.2\", dy_eligible: true}}");
	answer[0] = 0;
	refuse_all();
	/* v1 exits on PLE and finds nobody: it stays in its spin loop */
	t.v[1]->pcpu = &t.hv.pcpus[1];
	kind_kvm_ops.ple_exit(&t.hv, t.v[1]);
	t.v[1]->pcpu = NULL;	/* ...and is then preempted inside the handler */
	for (i = 1; i < NV; i++)
		answer[i] = 1;
	ple(&t, 0);
	ck_assert_int_eq(asked[0], 2);	/* v1 not eligible (toggled to eligible) */
	t_free(&t);

	t_init(&t, "{directed_yield: {version: \"3.2\", dy_eligible: false}}");
	refuse_all();
	t.v[1]->pcpu = &t.hv.pcpus[1];
	kind_kvm_ops.ple_exit(&t.hv, t.v[1]);
	t.v[1]->pcpu = NULL;
	for (i = 1; i < NV; i++)
		answer[i] = 1;
	ple(&t, 0);
	ck_assert_int_eq(asked[0], 1);	/* without the switch v1 is taken */
	t_free(&t);
}
END_TEST

START_TEST(dy_eligible_toggles)
{
	struct t t;

	t_init(&t, "{directed_yield: {version: \"3.2\", dy_eligible: true}}");
	refuse_all();
	t.v[1]->pcpu = &t.hv.pcpus[1];
	kind_kvm_ops.ple_exit(&t.hv, t.v[1]);
	t.v[1]->pcpu = NULL;
	ple(&t, 0);		/* v1 passed over, v2..v5 refuse */
	ck_assert_int_eq(nasked, NV - 2);
	ple(&t, 0);		/* now v1 is eligible */
	ck_assert_int_eq(nasked, NV - 1);
	ck_assert_int_eq(asked[0], 1);
	t_free(&t);
}
END_TEST

/* The PLE fast-forward's question: would the next exit do exactly this one again? */
static int
exit_repeatable(struct t *t, int i)
{
	nasked = 0;
	kind_kvm_ops.ple_exit(&t->hv, t->v[i]);
	return kind_kvm_ops.ple_repeatable(&t->hv, t->v[i]);
}

/* only v[i] accepts a yield_to */
static void
accept_only(int i)
{
	int j;

	for (j = 1; j < NV; j++)
		answer[j] = j == i;
}

/* The scan starts after last_boosted_vcpu and wraps past the VM's end, as
 * far as last_boosted_vcpu itself (kvm_vcpu_on_spin's two passes). */
START_TEST(scan_starts_after_the_last_boosted_and_wraps)
{
	static const int after4[] = { 5, 1, 2 }, after2[] = { 3, 4, 5, 1, 2 };
	struct t t;
	int i;

	t_init(&t, "{spin_handler: \"3.2\"}");
	accept_only(4);
	ple(&t, 0);
	ck_assert_int_eq(nasked, 4);	/* v1..v4 from the start */
	accept_only(2);
	ple(&t, 0);			/* after v4: v5, then v0 (itself), v1, v2 */
	ck_assert_int_eq(nasked, 3);
	for (i = 0; i < 3; i++)
		ck_assert_int_eq(asked[i], after4[i]);
	refuse_all();
	ple(&t, 0);			/* after v2, round to v2 itself */
	ck_assert_int_eq(nasked, NV - 1);
	for (i = 0; i < NV - 1; i++)
		ck_assert_int_eq(asked[i], after2[i]);
	accept_only(NV - 1);
	ple(&t, 0);			/* the last boosted is the VM's last vCPU */
	accept_only(1);
	ple(&t, 0);			/* so the next scan starts at v0 */
	ck_assert_int_eq(nasked, 1);
	ck_assert_int_eq(asked[0], 1);
	t_free(&t);
}
END_TEST

START_TEST(a_scan_that_yields_to_nobody_repeats)
{
	struct t t;
	uint64_t f0;
	int r;

	t_init(&t, "{spin_handler: \"3.2\"}");
	refuse_all();	/* every yield_to fails (and so changes nothing) */
	r = exit_repeatable(&t, 0);
	ck_assert_int_eq(r, NV - 1);	/* the failed yield_to calls it made */
	ck_assert_int_eq(nasked, NV - 1);
	f0 = t.hv.st.yield_to_fail;
	kind_kvm_ops.ple_repeat(&t.hv, t.v[0], 10);
	ck_assert_uint_eq(t.hv.st.yield_to_fail, f0 + 10 * (NV - 1));
	kind_kvm_ops.ple_done(&t.hv, t.v[0]);
	/* the slow path's next exit asks the same vCPUs in the same order */
	ck_assert_int_eq(exit_repeatable(&t, 0), NV - 1);
	ck_assert_int_eq(asked[0], 1);
	ck_assert_int_eq(asked[NV - 2], NV - 1);
	kind_kvm_ops.ple_done(&t.hv, t.v[0]);
	t_free(&t);

	/* nobody to ask at all: repeatable with no calls */
	t_init(&t, "{spin_handler: \"3.10\"}");
	ck_assert_int_eq(exit_repeatable(&t, 0), 0);
	ck_assert_int_eq(nasked, 0);
	t_free(&t);
}
END_TEST

START_TEST(a_scan_that_changes_something_does_not_repeat)
{
	struct t t;

	/* a yield: last_boosted_vcpu moves on */
	t_init(&t, "{spin_handler: \"3.2\"}");
	answer[1] = 0;
	ck_assert_int_eq(exit_repeatable(&t, 0), -1);
	t_free(&t);

	/* dy_eligible toggled a spinner's flag: the next scan differs */
	t_init(&t, "{directed_yield: {version: \"3.2\", dy_eligible: true}}");
	refuse_all();
	t.v[1]->pcpu = &t.hv.pcpus[1];
	kind_kvm_ops.ple_exit(&t.hv, t.v[1]);
	t.v[1]->pcpu = NULL;
	ck_assert_int_eq(exit_repeatable(&t, 0), -1);
	t_free(&t);

	/* the dynamic window grew; once at its max it stays */
	t_init(&t, "{spin_handler: \"3.2\", ple: {dynamic: true, max: 16384cycles}}");
	refuse_all();
	ck_assert_int_eq(exit_repeatable(&t, 0), -1);	/* 4096 -> 8192 */
	ck_assert_int_eq(exit_repeatable(&t, 0), -1);	/* -> 16384 */
	ck_assert_int_eq(exit_repeatable(&t, 0), NV - 1);	/* stays */
	t_free(&t);
}
END_TEST

/* ple_done gives the re-entry's window, the one ple_window gives from then
 * on (guest.c ple_done takes it from there, without a second call) */
START_TEST(ple_done_gives_the_new_window)
{
	struct t t;

	t_init(&t, "{spin_handler: \"3.2\", ple: {dynamic: true, max: 16384cycles}}");
	refuse_all();
	ck_assert_double_eq(kind_kvm_ops.ple_window(&t.hv, t.v[0]), 2048);	/* 4096 cycles */
	kind_kvm_ops.ple_exit(&t.hv, t.v[0]);	/* grown to 8192 cycles */
	ck_assert_double_eq(kind_kvm_ops.ple_done(&t.hv, t.v[0]), 4096);
	ck_assert_double_eq(kind_kvm_ops.ple_window(&t.hv, t.v[0]), 4096);
	t_free(&t);

	/* PLE off: no window */
	t_init(&t, "{spin_handler: \"3.2\", ple: {enabled: false}}");
	ck_assert_double_eq(kind_kvm_ops.ple_done(&t.hv, t.v[0]), 0);
	t_free(&t);
}
END_TEST

START_TEST(esrch_exit_gives_up_after_three)
{
	struct t t;

	/* v1..v3 answer -ESRCH, v4 would accept */
	t_init(&t, "{directed_yield: {version: \"3.2\", esrch_exit: true}}");
	answer[1] = answer[2] = answer[3] = -1;
	ple(&t, 0);
	ck_assert_int_eq(nasked, 3);	/* try-- to 0: the search ends before v4 */
	t_free(&t);

	t_init(&t, "{directed_yield: {version: \"3.2\", esrch_exit: false}}");
	answer[1] = answer[2] = answer[3] = -1;
	ple(&t, 0);
	ck_assert_int_eq(nasked, 4);
	ck_assert_int_eq(asked[3], 4);
	t_free(&t);
}
END_TEST

START_TEST(ready_boost_takes_a_woken_vcpu)
{
	struct t t;

	t_init(&t, "{directed_yield: \"3.10\"}");
	woken(&t, 2);
	ple(&t, 0);
	ck_assert_int_eq(nasked, 0);	/* 3.10: woken is not preempted */
	t_free(&t);

	t_init(&t, "{directed_yield: \"5.3\"}");
	woken(&t, 2);
	ple(&t, 0);
	ck_assert_int_eq(nasked, 1);
	ck_assert_int_eq(asked[0], 2);
	/* it ran since: kvm_sched_in clears ready */
	kind_kvm_ops.sched_switch(&t.hv, NULL, t.v[2]);
	ple(&t, 0);
	ck_assert_int_eq(nasked, 0);
	t_free(&t);
}
END_TEST

START_TEST(prefer_ipi_target_goes_first)
{
	struct t t;

	t_init(&t, "{directed_yield: {version: \"3.2\"}}");
	kind_kvm_ops.pv_kick(&t.hv, t.v[0], t.v[3]);
	ple(&t, 0);
	ck_assert_int_eq(asked[0], 1);	/* round robin: v1 */
	t_free(&t);

	t_init(&t, "{directed_yield: {version: \"3.2\", prefer_ipi_target: true}}");
	kind_kvm_ops.pv_kick(&t.hv, t.v[0], t.v[3]);
	ple(&t, 0);
	ck_assert_int_eq(nasked, 1);
	ck_assert_int_eq(asked[0], 3);
	/* once v3 has run it is no longer a pending IPI target */
	kind_kvm_ops.sched_switch(&t.hv, NULL, t.v[3]);
	ple(&t, 0);
	ck_assert_int_ne(asked[0], 3);
	t_free(&t);
}
END_TEST

/* LNX-6.6 vmx_sched_in: a dynamic window shrinks (shrink 0: back to the
 * base) when its vCPU is switched in; a fixed one never moved */
START_TEST(a_dynamic_window_shrinks_at_switch_in)
{
	struct t t;
	double w0;

	t_init(&t, "{ple: {window: 4096cycles, dynamic: true}}");
	w0 = kind_kvm_ops.ple_window(&t.hv, t.v[0]);
	ple(&t, 0);
	ck_assert_double_eq(kind_kvm_ops.ple_window(&t.hv, t.v[0]), 2 * w0);
	kind_kvm_ops.sched_switch(&t.hv, t.v[0], t.v[0]);
	ck_assert_double_eq(kind_kvm_ops.ple_window(&t.hv, t.v[0]), w0);
	t_free(&t);
}
END_TEST

START_TEST(pv_sched_yield_yields_to_a_ready_target)
{
	struct t t;

	t_init(&t, "{}");	/* offered by default */
	ck_assert_int_eq(hv_pv_sched_yield(t.v[0], t.v[1]), 0);	/* not ready */
	ck_assert_int_eq(nasked, 0);
	preempt(&t, 1);
	ck_assert_int_eq(hv_pv_sched_yield(t.v[0], t.v[0]), 0);	/* self */
	ck_assert_int_eq(nasked, 0);
	ck_assert_int_eq(hv_pv_sched_yield(t.v[0], t.v[1]), 1);
	ck_assert_int_eq(nasked, 1);
	ck_assert_int_eq(asked[0], 1);
	t_free(&t);

	/* KVM_FEATURE_PV_SCHED_YIELD not offered (a host before 5.2): -KVM_ENOSYS */
	t_init(&t, "{pv: {sched_yield: false}}");
	preempt(&t, 1);
	ck_assert_int_eq(hv_pv_sched_yield(t.v[0], t.v[1]), 0);
	ck_assert_int_eq(nasked, 0);
	t_free(&t);
}
END_TEST

START_TEST(yield_on_kick_yields_to_the_woken)
{
	struct t t;

	t_init(&t, "{pv: {yield_on_kick: true}}");
	woken(&t, 2);		/* the kick woke v2 (kvm_vcpu_wake_up: ready) */
	kind_kvm_ops.pv_kick(&t.hv, t.v[0], t.v[2]);
	ck_assert_int_eq(nasked, 1);
	ck_assert_int_eq(asked[0], 2);
	nasked = 0;
	kind_kvm_ops.pv_kick(&t.hv, t.v[0], t.v[3]);	/* v3 not ready: no yield */
	ck_assert_int_eq(nasked, 0);
	t_free(&t);

	t_init(&t, "{}");
	woken(&t, 2);
	kind_kvm_ops.pv_kick(&t.hv, t.v[0], t.v[2]);
	ck_assert_int_eq(nasked, 0);
	t_free(&t);
}
END_TEST

START_TEST(bad_version_is_refused)
{
	struct vs_err err = { "" };
	struct machine m;
	struct yc_doc *md = yc_load_string("machine", "{cores_per_socket: 2}", &err);
	struct yc_doc *kd = yc_load_string("h.yaml", "{directed_yield: {version: \"9.9\"}}", &err);
	void *cfg = NULL;

	ck_assert_int_eq(machine_from_yaml(&m, yc_root(md), &err), 0);
	ck_assert_int_ne(kind_kvm_ops.parse(yc_root(kd), &m, &cfg, &err), 0);
	ck_assert_msg(strstr(err.msg, "h.yaml:1:") != NULL && strstr(err.msg, "5.3") != NULL,
	    "%s", err.msg);
	kind_kvm_ops.free_cfg(cfg);
	machine_free(&m);
	yc_free(md);
	yc_free(kd);
}
END_TEST

int
main(void)
{
	Suite *s = suite_create("kvm_dy");
	TCase *tc = tcase_create("decisions");
	SRunner *sr;
	int nf;

	tcase_set_timeout(tc, 0);
	tcase_add_test(tc, v32_takes_the_first_not_running);
	tcase_add_test(tc, only_preempted_skips_the_never_preempted);
	tcase_add_test(tc, v310_is_preempted_only);
	tcase_add_test(tc, dy_eligible_passes_over_a_spinner_every_other_time);
	tcase_add_test(tc, dy_eligible_toggles);
	tcase_add_test(tc, scan_starts_after_the_last_boosted_and_wraps);
	tcase_add_test(tc, a_scan_that_yields_to_nobody_repeats);
	tcase_add_test(tc, a_scan_that_changes_something_does_not_repeat);
	tcase_add_test(tc, ple_done_gives_the_new_window);
	tcase_add_test(tc, esrch_exit_gives_up_after_three);
	tcase_add_test(tc, ready_boost_takes_a_woken_vcpu);
	tcase_add_test(tc, prefer_ipi_target_goes_first);
	tcase_add_test(tc, a_dynamic_window_shrinks_at_switch_in);
	tcase_add_test(tc, pv_sched_yield_yields_to_a_ready_target);
	tcase_add_test(tc, yield_on_kick_yields_to_the_woken);
	tcase_add_test(tc, bad_version_is_refused);
	suite_add_tcase(s, tc);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	nf = srunner_ntests_failed(sr);
	srunner_free(sr);
	return nf == 0 ? 0 : 1;
}
