/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * check_halt_irqs.c - guest.c's HLT with interrupts enabled (guest_halt_irqs,
 * a pv lock's kvm_wait with irqs: on) against the plain one (guest_halt):
 * which events end it, what a kick or an interrupt pending before it does
 * (KVM kvm_vcpu_has_events: no sleep), and that the handler runs first.
 */
#include "testutil.h"
#include "rig.h"

#include "hv/sched_cfs.h"

#define US 1000LL
#define M1 "{sockets: 1, cores_per_socket: 1, threads_per_core: 1, clock: 2GHz}"

static struct {
	int irqs;		/* halt with guest_halt_irqs */
	int hooks, woke;	/* handler entries, on_wake calls */
	int hook_before_wake;	/* the first wake found the handler already run */
	sim_time_t woke_at;
	struct vcpu *v;
} h;

static void
hk_irq(struct vcpu *v)
{
	h.hooks++;
}

static void
hk_woke(struct vcpu *v)
{
	if (h.woke++ == 0) {
		h.hook_before_wake = h.hooks > 0;
		h.woke_at = v->vm->hv->sim->now;
	}
	guest_work(v, 1e12, NULL);	/* stay busy: nothing more to see */
}

static void
hk_first(struct vcpu *v)
{
	if (h.irqs)
		guest_halt_irqs(v, 1000, hk_woke);	/* 1 us of exit, then HLT */
	else
		guest_halt(v, 1000, hk_woke);
}

static void
ev_irq(void *s, void *arg, int64_t data)
{
	guest_interrupt(h.v);
}

static void
ev_kick(void *s, void *arg, int64_t data)
{
	guest_kick(h.v);
}

/* One vCPU alone on one pCPU halts at once; an interrupt at irq_at and a
 * kick at kick_at (-1: none); run 10 ms. */
static void
run(struct rig *t, int irqs, sim_time_t irq_at, sim_time_t kick_at)
{
	unsigned char aff[1] = { 1 };
	struct vm *vm;

	memset(&h, 0, sizeof h);
	h.irqs = irqs;
	rig_init(t, &sched_cfs_ops, M1, NULL, 10000 * US);
	vm = hv_add_vm(&t->hv, "g", 1, aff, "test");
	rig_start(t);
	h.v = vm->vcpus[0];
	guest_set_irq_hook(h.v, hk_irq);
	guest_begin(h.v, hk_first);
	if (irq_at >= 0)
		sim_at(&t->sim, irq_at, ev_irq, NULL, 0);
	if (kick_at >= 0)
		sim_at(&t->sim, kick_at, ev_kick, NULL, 0);
	sim_run(&t->sim);
}

/* An interrupt while halted: irqs on wakes (handler, then on_wake); off waits
 * for the kick, and the interrupt is taken after the wake. */
START_TEST(an_interrupt_ends_only_the_irqs_halt)
{
	struct rig t;

	run(&t, 1, 100 * US, 2000 * US);
	ck_assert_int_eq(h.woke, 1);
	ck_assert_int_eq(h.hooks, 1);
	ck_assert(h.hook_before_wake);
	ck_assert(h.woke_at >= 100 * US && h.woke_at < 200 * US);
	ck_assert_uint_eq(t.hv.st.blocks, 1);
	rig_free(&t);

	run(&t, 0, 100 * US, 2000 * US);
	ck_assert_int_eq(h.woke, 1);
	ck_assert(h.woke_at >= 2000 * US && h.woke_at < 2100 * US);
	ck_assert_int_eq(h.hooks, 1);		/* pending until the kick's wake */
	ck_assert(!h.hook_before_wake);
	rig_free(&t);
}
END_TEST

/* A kick or an interrupt that comes during the HLT exit (before the halt)
 * means no sleep with irqs on (pv_unhalted, a pending interrupt); with irqs
 * off only the kick does. */
START_TEST(a_pending_kick_or_interrupt_means_no_sleep)
{
	struct rig t;
	int irqs;

	for (irqs = 0; irqs < 2; irqs++) {
		/* the first switch-in costs 3 us; the exit 1 us more: 3.5 us is inside it */
		run(&t, irqs, -1, 3500);
		ck_assert_int_eq(h.woke, 1);
		ck_assert_uint_eq(t.hv.st.blocks, 0);
		ck_assert(h.woke_at < 10 * US);
		rig_free(&t);
	}
	run(&t, 1, 3500, -1);
	ck_assert_int_eq(h.woke, 1);
	ck_assert_uint_eq(t.hv.st.blocks, 0);
	ck_assert_int_eq(h.hooks, 1);
	ck_assert(h.hook_before_wake);
	rig_free(&t);
	run(&t, 0, 3500, -1);
	ck_assert_int_eq(h.woke, 0);		/* halt(): nobody kicks, it sleeps on */
	ck_assert_uint_eq(t.hv.st.blocks, 1);
	rig_free(&t);
}
END_TEST

static Suite *
halt_irqs_suite(void)
{
	Suite *s = suite_create("halt_irqs");
	TCase *tc = tcase_create("guest");
	tcase_set_timeout(tc, 0);

	tcase_add_test(tc, an_interrupt_ends_only_the_irqs_halt);
	tcase_add_test(tc, a_pending_kick_or_interrupt_means_no_sleep);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	return tu_main(halt_irqs_suite());
}
