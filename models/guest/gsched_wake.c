/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * gsched_wake.c - where the guest's fair class puts a waking task (Linux
 * select_task_rq_fair), as 3.2 (the cfs policy) and 6.18 (eevdf) decide it:
 * towards the waker's vCPU (wake_affine, with WF_SYNC when the waker is
 * about to sleep), then to an idle vCPU near the choice
 * (select_idle_sibling).  A new task goes where gk_select_cpu puts it.
 *
 * The guest's vCPUs are one cache domain (SD_SHARE_PKG_RESOURCES / LLC, no
 * SMT siblings, every CPU of power 1024), so each domain walk meets that one
 * domain.  A vCPU's load is the summed weight of its queued tasks and curr:
 * 3.2's weighted_cpuload exactly (wake_idx 0, no group scheduling, so
 * effective_load(tg, cpu, wl, wg) = wl); 6.18's PELT cpu_load and
 * task_h_load are taken as those instantaneous weights, a sleeper's blocked
 * load as already gone from its vCPU.  Left out: 6.18's SIS_UTIL limit on
 * the idle scan, vcpu_is_preempted in available_idle_cpu (an idle vCPU is
 * halted, not preempted), EAS, and the per-CPU kthread stacking.
 */
#include "guest/gsched.h"

#include "guest/kernel.h"

/* LNX-3.2 kernel/sched.c idle_cpu, LNX-6.18 kernel/sched/core.c idle_cpu:
 * nothing runs there and nothing is queued */
static int
idle(struct gkernel *k, int cpu)
{
	const struct gcpu *c = gk_cpu(k, cpu);

	return c->curr == NULL && c->nqueued == 0 && !c->finished;
}

/* A waking task these rules place: it ran before, where it may run again. */
static int
placed_by_rules(const struct task *p, int flags)
{
	return (flags & GS_WAKE) && p->only < 0 && p->prev_cpu >= 0 &&
	    gk_task_allowed(p, p->prev_cpu);
}

/* LNX-3.2 kernel/sched_fair.c wake_affine: may p run on this_cpu (the
 * waker's) rather than prev?  imbalance_pct 125 (SD_MC_INIT, SD_CPU_INIT) */
static int
wake_affine32(struct gkernel *k, const struct task *p, int this_cpu, int prev, int sync)
{
	const struct gcpu *tc = gk_cpu(k, this_cpu), *pc = gk_cpu(k, prev);
	int64_t this_load = (int64_t)tc->load, load = (int64_t)pc->load, tl_per_task;
	int nr = tc->nqueued + (tc->curr != NULL), balanced = 1;

	if (sync && tc->curr != NULL)
		this_load -= (int64_t)tc->curr->weight;	/* the waker's own weight */
	if (this_load > 0)
		balanced = 100 * (this_load + (int64_t)p->weight) <= (100 + (125 - 100) / 2) * load;
	if (sync && balanced)
		return 1;
	tl_per_task = nr > 0 ? (int64_t)tc->load / nr : 0;	/* cpu_avg_load_per_task */
	return balanced || (this_load <= load && this_load + load <= tl_per_task);
}

/* LNX-3.2 kernel/sched_fair.c select_idle_sibling: target if idle, else the
 * first idle allowed vCPU of the domain in CPU order, else target */
static int
select_idle_sibling32(struct gkernel *k, const struct task *p, int target)
{
	int i;

	if (idle(k, target))
		return target;
	for (i = 0; i < gk_ncpus(k); i++)
		if (gk_task_allowed(p, i) && idle(k, i))
			return i;
	return target;
}

/* LNX-3.2 kernel/sched_fair.c select_task_rq_fair (SD_BALANCE_WAKE): the
 * affine domain is the guest's one, so prev becomes the waker's vCPU when
 * it is the same one or wake_affine says so, then select_idle_sibling */
int
gs_wake_select32(struct gkernel *k, struct task *p, int waker, int flags)
{
	int target = p->prev_cpu;

	if (!placed_by_rules(p, flags))
		return gk_select_cpu(k, p, waker, flags);
	if (waker >= 0 && gk_task_allowed(p, waker) &&
	    (waker == target || wake_affine32(k, p, waker, target, (flags & GS_SYNC) != 0)))
		target = waker;
	return select_idle_sibling32(k, p, target);
}

/* LNX-6.18 kernel/sched/fair.c record_wakee: the waker's wakee flips, halved
 * once when a second has passed */
static void
record_wakee(struct gkernel *k, struct task *cur, const struct task *p)
{
	int64_t j = gk_jiffies(k);

	if (j > cur->wakee_flip_decay_ts + gk_hz(k)) {
		cur->wakee_flips >>= 1;
		cur->wakee_flip_decay_ts = j;
	}
	if (cur->last_wakee != p) {
		cur->last_wakee = p;
		cur->wakee_flips++;
	}
}

/* LNX-6.18 kernel/sched/fair.c wake_wide: an M:N waker/wakee pattern wider
 * than the LLC (sd_llc_size: the guest's vCPUs) spreads instead */
static int
wake_wide(struct gkernel *k, const struct task *cur, const struct task *p)
{
	unsigned int master = cur != NULL ? cur->wakee_flips : 0, slave = p->wakee_flips;
	unsigned int factor = (unsigned int)gk_ncpus(k), t;

	if (master < slave) {
		t = master;
		master = slave;
		slave = t;
	}
	return !(slave < factor || master < slave * factor);
}

/* LNX-6.18 kernel/sched/fair.c wake_affine_idle (-1: nr_cpumask_bits) */
static int
wake_affine_idle(struct gkernel *k, int this_cpu, int prev, int sync)
{
	const struct gcpu *tc = gk_cpu(k, this_cpu);

	if (idle(k, this_cpu))	/* a wake from an interrupt; the cache is shared */
		return idle(k, prev) ? prev : this_cpu;
	/* nr_running - cfs_h_nr_delayed == 1: the waker alone */
	if (sync && tc->curr != NULL && tc->nqueued == 0)
		return this_cpu;
	if (idle(k, prev))
		return prev;
	return -1;
}

/* LNX-6.18 kernel/sched/fair.c wake_affine_weight, imbalance_pct 117 (sd_init,
 * SD_SHARE_LLC); capacity_of is the same on every vCPU */
static int
wake_affine_weight(struct gkernel *k, const struct task *p, int this_cpu, int prev, int sync,
    int bias)
{
	const struct gcpu *tc = gk_cpu(k, this_cpu), *pc = gk_cpu(k, prev);
	int64_t this_eff = (int64_t)tc->load, prev_eff = (int64_t)pc->load;

	if (sync && tc->curr != NULL) {
		int64_t current_load = (int64_t)tc->curr->weight;

		if (current_load > this_eff)
			return this_cpu;
		this_eff -= current_load;
	}
	this_eff += (int64_t)p->weight;
	if (bias) {	/* WA_BIAS */
		this_eff *= 100;
		prev_eff *= 100 + (117 - 100) / 2;
	}
	if (sync)
		prev_eff += 1;	/* stack the wakee on the waker when equal */
	return this_eff < prev_eff ? this_cpu : -1;
}

/* LNX-6.18 kernel/sched/fair.c wake_affine: this_cpu or prev */
static int
wake_affine618(struct gkernel *k, const struct task *p, int this_cpu, int prev, int sync,
    const struct gs_wa_features *f)
{
	int target = -1;

	if (f->idle)
		target = wake_affine_idle(k, this_cpu, prev, sync);
	if (f->weight && target < 0)
		target = wake_affine_weight(k, p, this_cpu, prev, sync, f->bias);
	return target == this_cpu ? this_cpu : prev;
}

/* LNX-6.18 kernel/sched/fair.c select_idle_sibling: target, prev or the
 * recently used vCPU if idle, else select_idle_cpu's scan of the LLC from
 * target + 1 round, else target */
static int
select_idle_sibling618(struct gkernel *k, struct task *p, int prev, int target)
{
	int n = gk_ncpus(k), i, c, recent;

	if (idle(k, target))
		return target;
	if (prev != target && idle(k, prev))
		return prev;
	recent = p->recent_used_cpu;
	p->recent_used_cpu = prev;
	if (recent >= 0 && recent != prev && recent != target && idle(k, recent) &&
	    gk_task_allowed(p, recent))
		return recent;
	for (i = 0, c = target; i < n; i++) {
		c = c + 1 < n ? c + 1 : 0;
		if (gk_task_allowed(p, c) && idle(k, c))
			return c;
	}
	return target;
}

/* LNX-6.18 kernel/sched/fair.c select_task_rq_fair (WF_TTWU): record_wakee,
 * want_affine unless wake_wide, wake_affine in the LLC (no domain has
 * SD_BALANCE_WAKE), then select_idle_sibling */
int
gs_wake_select618(struct gkernel *k, struct task *p, int waker, int flags,
    const struct gs_wa_features *f)
{
	struct task *cur = waker >= 0 ? gk_cpu(k, waker)->curr : NULL;
	int prev = p->prev_cpu, new_cpu = prev;

	if (!placed_by_rules(p, flags))
		return gk_select_cpu(k, p, waker, flags);
	if (cur != NULL)
		record_wakee(k, cur, p);
	if (waker >= 0 && waker != prev && !wake_wide(k, cur, p) && gk_task_allowed(p, waker))
		new_cpu = wake_affine618(k, p, waker, prev, (flags & GS_SYNC) != 0, f);
	return select_idle_sibling618(k, p, prev, new_cpu);
}
