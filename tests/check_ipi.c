/* SPDX-License-Identifier: GPL-2.0-or-later */
/* check_ipi.c - guest IPIs: delivery to preempted vCPUs, the senders' exits
 * per x2APIC mode and PV send-IPI, PV TLB flush. */
#include "testutil.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "guest/ipi.h"
#include "hv/hv.h"

#define MAXV 256

/* What a probe saw: each vCPU's runstate and the IPIs in flight. */
struct seen {
	int rs[MAXV];
	sim_time_t next_run[MAXV];	/* target: when it next ran after a send; -1 */
	sim_time_t sent_at[MAXV];	/* target: pending send time, -1 none */
	int sent_preempted[MAXV];	/* ... while it was not running */
	sim_time_t recv_at;		/* last receive by the watched target */
	int sender_ran_through;		/* the sender kept its pCPU since the send */
	int checked, bad_recv, bad_wait;
	double expect_after_recv;	/* ns from a receive to the sender's wait end */
	int sender, target;
	/* PV TLB flush */
	int pv_flush, pv_flush_not_at_entry, sent_to_preempted;
	sim_time_t ran_at[MAXV];	/* last switch to RUNNING */
};

static void
watch(void *ctx, const struct probe_ev *e)
{
	struct seen *s = ctx;

	if (e->vcpu >= MAXV)
		return;
	switch (e->kind) {
	case PR_RUNSTATE:
		s->rs[e->vcpu] = e->aux;
		if (e->aux == RS_RUNNING) {
			s->ran_at[e->vcpu] = e->t;
			if (s->sent_at[e->vcpu] >= 0 && s->next_run[e->vcpu] < 0)
				s->next_run[e->vcpu] = e->t;
		} else if (e->vcpu == s->sender)
			s->sender_ran_through = 0;
		break;
	case PR_IPI_SEND:
		if (e->aux < MAXV) {
			s->sent_at[e->aux] = e->t;
			s->sent_preempted[e->aux] = s->rs[e->aux] != RS_RUNNING;
			s->next_run[e->aux] = -1;
			s->sent_to_preempted += s->rs[e->aux] == RS_RUNNABLE;
		}
		if (e->vcpu == s->sender)
			s->sender_ran_through = 1;
		break;
	case PR_IPI_RECV:
		if (e->vcpu == s->target && s->sent_at[e->vcpu] >= 0) {
			/* a preempted target takes it when it first runs guest code again */
			if (s->sent_preempted[e->vcpu] && s->next_run[e->vcpu] != e->t)
				s->bad_recv++;
			s->recv_at = s->sent_preempted[e->vcpu] ? e->t : -1;
			s->sent_at[e->vcpu] = -1;
		}
		break;
	case PR_IPI_WAIT_END:
		if (e->vcpu == s->sender && s->recv_at >= 0 && s->sender_ran_through) {
			s->checked++;
			if (fabs((double)(e->t - s->recv_at) - s->expect_after_recv) > 2)
				s->bad_wait++;
		}
		s->recv_at = -1;
		break;
	case PR_TLB_PV_FLUSH:
		s->pv_flush++;
		if (s->ran_at[e->vcpu] != e->t || s->rs[e->vcpu] != RS_RUNNING)
			s->pv_flush_not_at_entry++;
		break;
	default:
		break;
	}
}

static void
seen_init(struct seen *s, int sender, int target)
{
	int i;

	memset(s, 0, sizeof *s);
	for (i = 0; i < MAXV; i++) {
		s->sent_at[i] = s->next_run[i] = -1;
		s->rs[i] = RS_OFFLINE;
		s->ran_at[i] = -1;
	}
	s->recv_at = -1;
	s->sender = sender;
	s->target = target;
}

/* g's vCPU 1 sends to vCPU 0 every 300 us and waits; vCPU 0 computes; a hog
 * VM shares a pCPU, so the host preempts one of g's vCPUs now and then. */
static const char preempted[] =
    "name: p\nseed: 1\nduration: 200ms\n"
    "machine: {name: t, sockets: 1, cores_per_socket: 2, threads_per_core: 1, clock: 2GHz}\n"
    "hypervisor: {kind: kvm, scheduler: cfs}\n"
    "vms:\n  - {name: g, vcpus: 2, workload: w, guest: {hz: 0}}\n"
    "  - {name: hog, vcpus: 1, affinity: \"1\", workload: hog}\n"
    "workloads:\n"
    "  hog: {program: [{loop: forever, do: [{compute: 3ms}]}]}\n"
    "  w:\n    programs:\n"
    "      s: [{loop: forever, do: [{compute: 300us}, {ipi: {to: 0, wait: true, cost: 700ns}}]}]\n"
    "      c: [{loop: forever, do: [{compute: 1ms}]}]\n"
    "    tasks: [{program: s, cpus: [1]}, {program: c, cpus: [0]}]\n";

START_TEST(ipi_to_preempted_vcpu_waits_until_it_runs)
{
	struct scenario sc;
	struct vs_err err = { "" };
	struct metrics m;
	struct seen s;
	struct probe p = { watch, &s };
	struct run_opts o = { .wall_clock = 0, .check = 2, .probe = &p };

	seen_init(&s, 1, 0);
	ck_assert_msg(tu_load(&sc, preempted, &err) == 0, "%s", err.msg);
	/* the target's VM entry, the interrupt's entry, the function, and the
	 * csd flag's line back to the sender */
	s.expect_after_recv = sc.machine.ctx_switch_ns + sc.machine.irq_ns + 700 +
	    sc.machine.line_ns[HW_SOCKET];
	metrics_init(&m);
	ck_assert_msg(run_once(&sc, 1, &o, &m, &err) == 0, "%s", err.msg);
	ck_assert_int_eq(s.bad_recv, 0);
	ck_assert_int_gt(s.checked, 3);
	ck_assert_int_eq(s.bad_wait, 0);
	/* those waits are the preemption delays: far above the costs */
	ck_assert_double_gt(tu_metric(&m, "g.ipi_wait_p99_ns"), 100e3);
	ck_assert_double_eq(tu_metric(&m, "g.ipis_sent"), tu_metric(&m, "g.ipi_calls"));
	metrics_free(&m);
	scen_free(&sc);
}
END_TEST

/* PV sched_yield: each yield goes to a target the host had preempted. */
static int yields, bad_yields;

static void
watch_yield(void *ctx, const struct probe_ev *e)
{
	struct seen *s = ctx;

	watch(ctx, e);
	if (e->kind == PR_YIELD_TO) {
		yields++;
		bad_yields += e->vcpu != s->sender || e->aux != s->target ||
		    s->rs[e->aux] != RS_RUNNABLE;
	}
}

START_TEST(pv_sched_yield_yields_to_the_preempted_target)
{
	char text[2048], *at;
	struct metrics m;
	struct seen s;
	struct probe p = { watch_yield, &s };
	double without;

	snprintf(text, sizeof text, "%s", preempted);
	tu_run(text, 1, NULL, &m);
	ck_assert_double_eq(tu_metric(&m, "g.pv_sched_yields"), 0);
	without = tu_metric(&m, "g.ipi_wait_mean_ns");
	metrics_free(&m);
	at = strstr(text, "guest: {hz: 0}");
	ck_assert_ptr_nonnull(at);
	snprintf(text, sizeof text, "%.*sguest: {hz: 0, ipi: {pv_sched_yield: true}}%s",
	    (int)(at - text), preempted, strstr(preempted, "guest: {hz: 0}") + strlen("guest: {hz: 0}"));
	seen_init(&s, 1, 0);
	yields = bad_yields = 0;
	tu_run(text, 1, &p, &m);
	ck_assert_double_gt(tu_metric(&m, "g.pv_sched_yields"), 3);
	ck_assert_double_eq(tu_metric(&m, "hypercalls"), tu_metric(&m, "g.pv_sched_yields"));
	ck_assert_int_eq(yields, (int)tu_metric(&m, "yield_to_ok"));
	ck_assert_int_gt(yields, 0);
	ck_assert_int_eq(bad_yields, 0);
	/* giving the pCPU to the preempted target shortens the waits */
	ck_assert_double_lt(tu_metric(&m, "g.ipi_wait_mean_ns"), without);
	metrics_free(&m);
}
END_TEST

/* One broadcast from vCPU 0 to the other n-1 (halted, idle) vCPUs. */
static double
broadcast_exits(int n, const char *ipi, const char *metric)
{
	char text[2048];
	struct metrics m;
	double x;

	snprintf(text, sizeof text, "name: b\nseed: 1\nuntil: done\n" TEST_MACHINE
	    "hypervisor: {kind: kvm, scheduler: cfs}\n"
	    "vms: [{name: g, vcpus: %d, workload: w, guest: {hz: 0, ipi: %s}}]\n"
	    "workloads:\n  w:\n    programs:\n"
	    "      s: [{compute: 10us}, {ipi: {to: others, wait: true}}]\n"
	    "      z: [{block: 50ms}]\n"
	    "    tasks: [{program: s, cpus: [0]}, {program: z}]\n", n, ipi);
	tu_run(text, 1, NULL, &m);
	ck_assert_double_eq(tu_metric(&m, "g.ipis_sent"), n - 1);
	ck_assert_double_eq(tu_metric(&m, "g.ipis_received"), n - 1);
	x = tu_metric(&m, metric);
	metrics_free(&m);
	return x;
}

START_TEST(broadcast_exits_per_mode)
{
	/* x2APIC physical: one ICR write per destination */
	ck_assert_double_eq(broadcast_exits(40, "{mode: physical}", "ipi_exits"), 39);
	/* cluster: one per cluster of 16 holding a target (1-15, 16-31, 32-39) */
	ck_assert_double_eq(broadcast_exits(40, "{mode: cluster}", "ipi_exits"), 3);
	/* PV send-IPI: one hypercall per 128 APIC IDs (1-128, 129-199) */
	ck_assert_double_eq(broadcast_exits(40, "{mode: pv}", "hypercalls"), 1);
	ck_assert_double_eq(broadcast_exits(40, "{mode: pv}", "ipi_exits"), 0);
	ck_assert_double_eq(broadcast_exits(200, "{mode: pv}", "hypercalls"), 2);
	ck_assert_double_eq(broadcast_exits(200, "{mode: cluster}", "ipi_exits"), 13);
	ck_assert_double_eq(broadcast_exits(200, "{mode: physical}", "ipi_exits"), 199);
	/* IPI virtualization: the sender never exits */
	ck_assert_double_eq(broadcast_exits(40, "{mode: physical, ipiv: true}", "ipi_exits"), 0);
	ck_assert_double_eq(broadcast_exits(40, "{mode: pv, ipiv: true}", "hypercalls"), 0);
}
END_TEST

START_TEST(send_exits_function)
{
	struct ipi_config c = { IPI_PV, 0, 0, 0, 0 };
	int idx[300], i;

	for (i = 0; i < 300; i++)
		idx[i] = i;
	ck_assert_int_eq(ipi_send_exits(&c, idx, 128), 1);
	ck_assert_int_eq(ipi_send_exits(&c, idx, 129), 2);
	ck_assert_int_eq(ipi_send_exits(&c, idx, 1), 1);	/* a lone target: native */
	c.mode = IPI_CLUSTER;
	ck_assert_int_eq(ipi_send_exits(&c, idx, 16), 1);
	ck_assert_int_eq(ipi_send_exits(&c, idx, 17), 2);
	c.mode = IPI_PHYS;
	ck_assert_int_eq(ipi_send_exits(&c, idx, 17), 17);
}
END_TEST

/* Four threads of one process unmap and flush while a hog overcommits. */
static const char flushers[] =
    "name: f\nseed: 2\nduration: 300ms\n"
    "machine: {name: t, sockets: 1, cores_per_socket: 4, threads_per_core: 1, clock: 2GHz}\n"
    "hypervisor: {kind: kvm, scheduler: cfs}\n"
    "vms:\n  - {name: g, vcpus: 4, workload: w, guest: {hz: 250, ipi: {pv_tlb_flush: %s}}}\n"
    "  - {name: hog, vcpus: 4, workload: hog}\n"
    "workloads:\n"
    "  hog: {program: [{loop: forever, do: [{compute: 3ms}]}]}\n"
    "  w:\n    programs:\n"
    "      t: [{loop: forever, do: [{compute: {dist: exponential, mean: 200us}}, {munmap: {}}]}]\n"
    "    tasks: [{program: t, count: 4, mm: ebizzy}]\n";

START_TEST(pv_tlb_flush_never_interrupts_a_preempted_vcpu)
{
	char text[2048];
	struct metrics m;
	struct seen s;
	struct probe p = { watch, &s };

	seen_init(&s, -1, -1);
	snprintf(text, sizeof text, flushers, "true");
	tu_run(text, 1, &p, &m);
	ck_assert_double_gt(tu_metric(&m, "g.tlb_shootdowns"), 100);
	ck_assert_double_gt(tu_metric(&m, "g.pv_tlb_flush_marked"), 10);
	/* every marked vCPU flushed on its next entry, before any guest code */
	ck_assert_int_gt(s.pv_flush, 10);
	ck_assert_int_eq(s.pv_flush_not_at_entry, 0);
	ck_assert_int_eq(s.sent_to_preempted, 0);
	ck_assert_double_le(fabs(tu_metric(&m, "g.pv_tlb_flushes_on_entry") -
	    tu_metric(&m, "g.pv_tlb_flush_marked")), 4);	/* at most one pending each */
	metrics_free(&m);
	/* without it, shootdowns do hit preempted vCPUs, and wait for them */
	seen_init(&s, -1, -1);
	snprintf(text, sizeof text, flushers, "false");
	tu_run(text, 1, &p, &m);
	ck_assert_int_gt(s.sent_to_preempted, 10);
	ck_assert_int_eq(s.pv_flush, 0);
	metrics_free(&m);
}
END_TEST

static Suite *
suite(void)
{
	Suite *s = suite_create("ipi");
	TCase *tc = tcase_create("core");

	tcase_set_timeout(tc, 0);
	tcase_add_test(tc, ipi_to_preempted_vcpu_waits_until_it_runs);
	tcase_add_test(tc, broadcast_exits_per_mode);
	tcase_add_test(tc, send_exits_function);
	tcase_add_test(tc, pv_sched_yield_yields_to_the_preempted_target);
	tcase_add_test(tc, pv_tlb_flush_never_interrupts_a_preempted_vcpu);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	return tu_main(suite());
}
