/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * gsched_fifo.c - a first-in first-out guest scheduler for tests: no tick or
 * wakeup preemption, so a task runs until it blocks or exits (like Linux's
 * SCHED_FIFO among equal priorities, sched/rt.c).
 */
#include "guest/gsched.h"

static void
fifo_enqueue(struct gcpu *c, struct task *t, int flags)
{
	(void)flags;
	TAILQ_INSERT_TAIL(&c->rq, t, rq_link);
}

static void
fifo_dequeue(struct gcpu *c, struct task *t, int flags)
{
	(void)flags;
	TAILQ_REMOVE(&c->rq, t, rq_link);
}

static struct task *
fifo_pick(struct gcpu *c)
{
	struct task *t = TAILQ_FIRST(&c->rq);

	if (t != NULL)
		TAILQ_REMOVE(&c->rq, t, rq_link);
	return t;
}

static void fifo_update(struct gcpu *c, struct task *t, double ns) { (void)c; (void)t; (void)ns; }
static int fifo_no(struct gcpu *c, struct task *t) { (void)c; (void)t; return 0; }
static int fifo_no2(struct gcpu *c, struct task *a, struct task *b) { (void)c; (void)a; (void)b; return 0; }

const struct guest_sched_ops gsched_fifo_ops = {
	.name = "fifo",
	.desc = "first in, first out; a task runs until it blocks (tests)",
	.enqueue = fifo_enqueue,
	.dequeue = fifo_dequeue,
	.pick_next = fifo_pick,
	.update_curr = fifo_update,
	.tick_preempt = fifo_no,
	.wakeup_preempt = fifo_no2,
	.select_cpu = gk_select_cpu,
	.steal = gk_steal_busiest,
};
