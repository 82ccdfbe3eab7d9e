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
#define IPIV "{kind: kvm, scheduler: cfs, apicv: true, ipiv: true}"

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
broadcast_exits_on(int n, const char *hv, const char *ipi, const char *metric)
{
	char text[2048];
	struct metrics m;
	double x;

	snprintf(text, sizeof text, "name: b\nseed: 1\nuntil: done\n" TEST_MACHINE
	    "hypervisor: %s\n"
	    "vms: [{name: g, vcpus: %d, workload: w, guest: {hz: 0, ipi: %s}}]\n"
	    "workloads:\n  w:\n    programs:\n"
	    "      s: [{compute: 10us}, {ipi: {to: others, wait: true}}]\n"
	    "      z: [{block: 50ms}]\n"
	    "    tasks: [{program: s, cpus: [0]}, {program: z}]\n", hv, n, ipi);
	tu_run(text, 1, NULL, &m);
	ck_assert_double_eq(tu_metric(&m, "g.ipis_sent"), n - 1);
	ck_assert_double_eq(tu_metric(&m, "g.ipis_received"), n - 1);
	x = tu_metric(&m, metric);
	metrics_free(&m);
	return x;
}

static double
broadcast_exits(int n, const char *ipi, const char *metric)
{
	return broadcast_exits_on(n, "{kind: kvm, scheduler: cfs}", ipi, metric);
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
	/* IPI virtualization: a physical unicast ICR write does not exit; a
	 * logical (cluster) one and a PV hypercall still do (d588bb9be1da) */
	ck_assert_double_eq(broadcast_exits_on(40, IPIV, "{mode: physical}", "ipi_exits"), 0);
	ck_assert_double_eq(broadcast_exits_on(40, IPIV, "{mode: cluster}", "ipi_exits"), 3);
	ck_assert_double_eq(broadcast_exits_on(40, IPIV, "{mode: pv}", "hypercalls"), 1);
	/* Xen: no KVM_HC_SEND_IPI (the guest sends natively), event channels per target */
	ck_assert_double_eq(broadcast_exits_on(40, "{kind: xen, scheduler: credit}",
	    "{mode: pv}", "ipi_exits"), 39);
	ck_assert_double_eq(broadcast_exits_on(40, "{kind: xen, scheduler: credit, "
	    "evtchn_ipi: true}", "{mode: cluster}", "hypercalls"), 39);
	/* bare metal: the APIC sends without an exit */
	ck_assert_double_eq(broadcast_exits_on(40, "{kind: none, scheduler: cfs}",
	    "{mode: physical}", "ipi_exits"), 0);
}
END_TEST

START_TEST(send_exits_function)
{
	struct ipi_config c = { IPI_PV, 0, 0, 0 };
	struct hv_ipi_path p = { 1, 0, 0, 0, 1, 2, 3, 0 };
	int idx[300], i;

	for (i = 0; i < 300; i++)
		idx[i] = i;
	ck_assert_int_eq(ipi_send_exits(&c, &p, idx, 128), 1);
	ck_assert_int_eq(ipi_send_exits(&c, &p, idx, 129), 2);
	ck_assert_int_eq(ipi_send_exits(&c, &p, idx, 1), 1);	/* a lone target: native */
	c.mode = IPI_CLUSTER;
	ck_assert_int_eq(ipi_send_exits(&c, &p, idx, 16), 1);
	ck_assert_int_eq(ipi_send_exits(&c, &p, idx, 17), 2);
	c.mode = IPI_PHYS;
	ck_assert_int_eq(ipi_send_exits(&c, &p, idx, 17), 17);
	p.ipiv = 1;
	ck_assert_int_eq(ipi_send_exits(&c, &p, idx, 17), 0);
	c.mode = IPI_CLUSTER;	/* a logical write, even to one target */
	ck_assert_int_eq(ipi_send_exits(&c, &p, idx, 1), 1);
	p.ipiv = 0;
	p.evtchn = 1;		/* EVTCHNOP_send per destination */
	ck_assert_int_eq(ipi_send_exits(&c, &p, idx, 17), 17);
	p.exits = 0;		/* bare metal */
	ck_assert_int_eq(ipi_send_exits(&c, &p, idx, 17), 0);
}
END_TEST

/*
 * One broadcast from vCPU 0 of 8 (one pCPU each, one socket): vCPUs 1-3 run
 * tasks, 4-7 are halted in their idle loops.  What the host does for each of
 * the 7 destinations (the metrics), and what the running ones pay.
 */
struct bcast {
	double sender, delivery, wake, delivered, running, kicks, wakes, waiting;
	double ipi_exits, hypercalls, wait;
	double line, atomic, exit_ipi, exit_hypercall, exit_irq;
};

static void
broadcast_on(const char *hv, struct bcast *b)
{
	char text[2048];
	struct scenario sc;
	struct vs_err err = { "" };
	struct metrics m;
	struct run_opts o = { .wall_clock = 0, .check = 2 };

	snprintf(text, sizeof text, "name: b\nseed: 1\nduration: 1500us\n"
	    "machine: {name: t, sockets: 1, cores_per_socket: 8, threads_per_core: 1, "
	    "clock: 2GHz}\n"
	    "hypervisor: %s\n"
	    "vms: [{name: g, vcpus: 8, workload: w, guest: {hz: 0, timers: false}}]\n"
	    "workloads:\n  w:\n    programs:\n"
	    "      s: [{compute: 50us}, {ipi: {to: others, wait: true}}]\n"
	    "      c: [{compute: 1ms}]\n"
	    "      z: [{block: 1s}]\n"
	    "    tasks: [{program: s, cpus: [0]}, {program: c, count: 3, cpus: [1, 2, 3]},\n"
	    "      {program: z, count: 4, cpus: [4, 5, 6, 7]}]\n", hv);
	ck_assert_msg(tu_load(&sc, text, &err) == 0, "%s", err.msg);
	metrics_init(&m);
	ck_assert_msg(run_once(&sc, 1, &o, &m, &err) == 0, "%s", err.msg);
	b->sender = tu_metric(&m, "g.ipi_host_sender_ns");
	b->delivery = tu_metric(&m, "g.ipi_host_delivery_ns");
	b->wake = tu_metric(&m, "g.ipi_host_wake_ns");
	b->delivered = tu_metric(&m, "g.ipis_delivered");
	b->running = tu_metric(&m, "g.ipi_to_running");
	b->kicks = tu_metric(&m, "g.ipi_kicks");
	b->wakes = tu_metric(&m, "g.ipi_wakes");
	b->waiting = tu_metric(&m, "g.ipi_to_preempted");
	b->ipi_exits = tu_metric(&m, "ipi_exits");
	b->hypercalls = tu_metric(&m, "hypercalls");
	b->wait = tu_metric(&m, "g.ipi_wait_mean_ns");
	b->line = sc.machine.line_ns[HW_SOCKET];
	b->atomic = sc.machine.atomic_ns;
	b->exit_ipi = sc.machine.exit_ipi_ns;
	b->exit_hypercall = sc.machine.exit_hypercall_ns;
	b->exit_irq = sc.machine.exit_irq_ns;
	metrics_free(&m);
	scen_free(&sc);
}

/* 7 destinations: 3 running, 4 halted; nothing else sends an IPI */
static void
ck_targets(const struct bcast *b)
{
	ck_assert_double_eq(b->delivered, 7);
	ck_assert_double_eq(b->running, 3);
	ck_assert_double_eq(b->wakes, 4);
	ck_assert_double_eq(b->waiting, 0);
	ck_assert_double_gt(b->wake, 0);	/* the halted ones are woken by the host */
}

START_TEST(broadcast_costs_exits_deliveries_kicks_and_wakes)
{
	struct bcast b, p, v;

	/* KVM without APICv: 7 ICR writes; per destination 2 lines and 3 RMWs in
	 * the sender's exit (__apic_accept_irq); a kick exit on each running one */
	broadcast_on("{kind: kvm, scheduler: pinned}", &b);
	ck_targets(&b);
	ck_assert_double_eq(b.ipi_exits, 7);
	ck_assert_double_eq(b.kicks, 3);
	ck_assert_double_eq_tol(b.sender * 7, 7 * b.exit_ipi, 1e-6);
	ck_assert_double_eq_tol(b.delivery * 7, 7 * (2 * b.line + 3 * b.atomic) +
	    3 * b.exit_irq, 1e-6);
	/* posted interrupts: the same sends, no exit on the running targets */
	broadcast_on("{kind: kvm, scheduler: pinned, apicv: true}", &p);
	ck_targets(&p);
	ck_assert_double_eq(p.ipi_exits, 7);
	ck_assert_double_eq(p.kicks, 0);
	ck_assert_double_eq_tol(p.delivery * 7, 7 * (2 * p.line + 2 * p.atomic), 1e-6);
	/* IPI virtualization: not even the sender exits; the CPU posts */
	broadcast_on("{kind: kvm, scheduler: pinned, apicv: true, ipiv: true}", &v);
	ck_targets(&v);
	ck_assert_double_eq(v.ipi_exits, 0);
	ck_assert_double_eq(v.kicks, 0);
	ck_assert_double_eq(v.sender, 0);
	ck_assert_double_eq(v.delivery, 0);
	ck_assert_double_lt(v.wait, p.wait);
	ck_assert_double_lt(p.wait, b.wait + 1e-9);
}
END_TEST

START_TEST(broadcast_on_xen_takes_the_vlapic_or_event_channels)
{
	struct bcast x, e, p;

	/* vlapic_ipi: an ICR-write exit per destination, vlapic_set_irq (2 lines,
	 * 2 RMWs), vcpu_kick's event-check IPI on each running target */
	broadcast_on("{kind: xen, scheduler: credit}", &x);
	ck_targets(&x);
	ck_assert_double_eq(x.ipi_exits, 7);
	ck_assert_double_eq(x.hypercalls, 0);
	ck_assert_double_eq(x.kicks, 3);
	ck_assert_double_eq_tol(x.delivery * 7, 7 * (2 * x.line + 2 * x.atomic) +
	    3 * x.exit_irq, 1e-6);
	/* event channels: an EVTCHNOP_send hypercall per destination (3 lines, 4 RMWs) */
	broadcast_on("{kind: xen, scheduler: credit, evtchn_ipi: true}", &e);
	ck_targets(&e);
	ck_assert_double_eq(e.ipi_exits, 0);
	ck_assert_double_eq(e.hypercalls, 7);
	ck_assert_double_eq_tol(e.sender * 7, 7 * e.exit_hypercall, 1e-6);
	ck_assert_double_eq_tol(e.delivery * 7, 7 * (3 * e.line + 4 * e.atomic) +
	    3 * e.exit_irq, 1e-6);
	/* Xen's posted interrupts: no exit on a running target */
	broadcast_on("{kind: xen, scheduler: credit, apicv: true}", &p);
	ck_targets(&p);
	ck_assert_double_eq(p.kicks, 0);
}
END_TEST

START_TEST(bare_metal_ipis_pay_no_exits)
{
	struct bcast n;

	broadcast_on("{kind: none, scheduler: pinned}", &n);
	ck_targets(&n);
	ck_assert_double_eq(n.ipi_exits, 0);
	ck_assert_double_eq(n.hypercalls, 0);
	ck_assert_double_eq(n.kicks, 0);
	ck_assert_double_eq(n.sender, 0);
	ck_assert_double_eq(n.delivery, 0);
}
END_TEST

START_TEST(ipiv_needs_apicv)
{
	struct scenario sc;
	struct vs_err err = { "" };

	ck_assert_int_ne(tu_load(&sc, "name: b\nseed: 1\nduration: 1ms\n" TEST_MACHINE
	    "hypervisor: {kind: kvm, scheduler: cfs, ipiv: true}\n"
	    "vms: [{name: g, vcpus: 2, workload: w}]\n"
	    "workloads: {w: {program: [{compute: 1us}]}}\n", &err), 0);
	ck_assert_ptr_nonnull(strstr(err.msg, "ipiv needs apicv"));
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
	tcase_add_test(tc, broadcast_costs_exits_deliveries_kicks_and_wakes);
	tcase_add_test(tc, broadcast_on_xen_takes_the_vlapic_or_event_channels);
	tcase_add_test(tc, bare_metal_ipis_pay_no_exits);
	tcase_add_test(tc, ipiv_needs_apicv);
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
