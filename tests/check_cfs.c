/* SPDX-License-Identifier: GPL-2.0-or-later */
/* check_cfs.c - the KVM host scheduler `cfs` (models/hv/sched_cfs.c). */
#include "testutil.h"
#include "rig.h"

#include "engine.h"
#include "hv/hv.h"
#include "hv/sched.h"
#include "hv/sched_cfs.h"
#include "hv/sched_fair.h"
#include "hw/machine.h"
#include "yconf.h"

#define MS	1000000LL
#define US	1000LL

/* ---- a host built by hand: vCPUs with no guest work are always runnable ---- */

/* A VM of n vCPUs allowed on the pCPUs of mask (0: all). */
static struct vm *
th_vm(struct rig *t, const char *name, int n, unsigned mask)
{
	unsigned char aff[64];
	int i;

	for (i = 0; i < t->hv.npcpus; i++)
		aff[i] = mask == 0 || (mask >> i & 1);
	return hv_add_vm(&t->hv, name, n, aff, "test");
}

static void
th_run(struct rig *t)
{
	sim_run(&t->sim);
	hv_finish(&t->hv);
}

static double
ran_s(const struct vcpu *v)
{
	return (double)v->rs_time[RS_RUNNING] * 1e-9;
}

#define M1 "{sockets: 1, cores_per_socket: 1, threads_per_core: 1, clock: 2GHz}"
#define M2 "{sockets: 1, cores_per_socket: 2, threads_per_core: 1, clock: 2GHz}"
#define M4 "{sockets: 1, cores_per_socket: 4, threads_per_core: 1, clock: 2GHz}"
#define M2x2 "{sockets: 2, cores_per_socket: 2, threads_per_core: 1, clock: 2GHz}"
#define M8 "{sockets: 2, cores_per_socket: 2, threads_per_core: 2, clock: 2GHz}"

/* ---- the pick (pick_next_entity on a hand-built rq) ---- */

/* Entities 0..n-1 of a one-level rq, entity 0 its curr: vruntimes from a few
 * values (ties), seqs in a random insertion order, random buddies. */
struct prq {
	struct fair f;
	struct fair_rq rq;
	struct fair_se se[6];
};

static uint64_t
prq_rand(uint64_t *x)
{
	*x = *x * 6364136223846793005ULL + 1442695040888963407ULL;
	return *x >> 33;
}

/* Build case k; put: 1 curr is put back first (the 3.2 order), 0 it stays
 * curr, its seq the oldest (fair_do_schedule's fused form: never read). */
static void
prq_build(struct prq *p, uint64_t k, int put)
{
	static const int64_t vr[] = { 0, 1 * MS, 1 * MS + 500 * US, 3 * MS };
	uint64_t x = k;
	int n = 1 + (int)(prq_rand(&x) % 6), order[6], i, j, t;
	struct fair_se **bud[3] = { &p->rq.skip, &p->rq.last, &p->rq.next };

	memset(p, 0, sizeof *p);
	for (i = 0; i < n; i++) {
		p->se[i].weight = prq_rand(&x) % 4 == 0 ? 2 * FAIR_NICE0 : FAIR_NICE0;
		p->se[i].vruntime = vr[prq_rand(&x) % 4];
		p->se[i].on_rq = i > 0 || prq_rand(&x) % 4 != 0;
		p->se[i].cfs_rq = &p->rq;
		order[i] = i;
	}
	for (i = n - 1; i > 1; i--) {	/* the queued ones' insertion order */
		j = 1 + (int)(prq_rand(&x) % (uint64_t)i);
		t = order[i], order[i] = order[j], order[j] = t;
	}
	for (i = 1; i < n; i++)
		fair_rq_insert(&p->f, &p->rq, &p->se[order[i]]);
	for (i = 0; i < 3; i++) {	/* a buddy is an on_rq entity or none */
		j = (int)(prq_rand(&x) % (uint64_t)(n + 1));
		*bud[i] = j < n && p->se[j].on_rq ? &p->se[j] : NULL;
	}
	if (put) {
		if (p->se[0].on_rq)
			fair_rq_insert(&p->f, &p->rq, &p->se[0]);
	} else {
		p->rq.curr = &p->se[0];
	}
}

START_TEST(the_fused_pick_takes_what_put_prev_then_pick_takes)
{
	struct prq a, b;
	uint64_t k;
	int kept = 0, other = 0, skipped = 0;

	for (k = 0; k < 20000; k++) {
		struct fair_se *pa, *pb;

		prq_build(&a, k, 1);
		prq_build(&b, k, 0);
		pa = sched_cfs_pick(&a.rq, 1 * MS);
		pb = sched_cfs_pick(&b.rq, 1 * MS);
		ck_assert_msg((pa == NULL ? -1 : pa - a.se) == (pb == NULL ? -1 : pb - b.se),
		    "case %llu: put then pick took %d, the fused pick %d",
		    (unsigned long long)k, pa == NULL ? -1 : (int)(pa - a.se),
		    pb == NULL ? -1 : (int)(pb - b.se));
		/* the same buddies cleared */
		ck_assert_int_eq(a.rq.skip == NULL, b.rq.skip == NULL);
		ck_assert_int_eq(a.rq.last == NULL, b.rq.last == NULL);
		ck_assert_int_eq(a.rq.next == NULL, b.rq.next == NULL);
		kept += pb == &b.se[0];
		other += pb != NULL && pb != &b.se[0];
		skipped += a.rq.skip == a.se && a.se[0].on_rq && pa != a.se;
		free(a.rq.q);
		free(b.rq.q);
	}
	/* both outcomes, and a skipped curr, occur among the cases */
	ck_assert_int_gt(kept, 1000);
	ck_assert_int_gt(other, 1000);
	ck_assert_int_gt(skipped, 100);
}
END_TEST

/* clear_buddies (3.2): each buddy of the group rq that names the task is
 * cleared, and the root's too while it names the task's group entity; a
 * buddy naming another entity stays.  Every combination of the three, for
 * the task in the group (k < 216) and for a root entity (the group's). */
START_TEST(clear_buddies_clears_each_buddy_that_names_the_entity)
{
	struct fair_rq root, grp;
	struct fair_se g, t, o;
	struct fair_se *gv[3] = { NULL, &t, &o }, *rv[2] = { NULL, &g };
	int k;

	for (k = 0; k < 2 * 3 * 3 * 3 * 2 * 2 * 2; k++) {
		struct fair_se **gb[3] = { &grp.last, &grp.next, &grp.skip };
		struct fair_se **rb[3] = { &root.last, &root.next, &root.skip };
		struct fair_se *g0[3], *r0[3];
		int i, kk = k;

		memset(&root, 0, sizeof root);
		memset(&grp, 0, sizeof grp);
		memset(&g, 0, sizeof g);
		memset(&t, 0, sizeof t);
		memset(&o, 0, sizeof o);
		g.cfs_rq = &root, g.my_q = &grp;
		t.cfs_rq = &grp, t.parent = &g, t.depth = 1;
		o.cfs_rq = &grp, o.parent = &g, o.depth = 1;
		for (i = 0; i < 3; i++, kk /= 3)
			*gb[i] = g0[i] = gv[kk % 3];
		for (i = 0; i < 3; i++, kk /= 2)
			*rb[i] = r0[i] = rv[kk % 2];
		if (kk == 0) {
			fair_clear_buddies(&grp, &t);
		} else {
			for (i = 0; i < 3; i++)	/* the root's third value: another entity */
				if (g0[i] == &o)
					*rb[i] = r0[i] = &o;
			fair_clear_buddies(&root, &g);
		}
		for (i = 0; i < 3; i++) {
			int hit = kk == 0 && g0[i] == &t, rhit = hit || (kk == 1 && r0[i] == &g);

			ck_assert_msg(*gb[i] == (hit ? NULL : g0[i]), "case %d buddy %d: group rq", k, i);
			ck_assert_msg(*rb[i] == (rhit ? NULL : r0[i]), "case %d buddy %d: root", k, i);
		}
	}
}
END_TEST

/* The tick's slice of curr is computed again whenever the rq's nr_running
 * or load differs from the one it was kept beside (cfs_tick_act's cache):
 * a weight change alone, a count change alone, then back. */
START_TEST(the_ticks_slice_follows_nr_running_and_load)
{
	static const struct { int nr; long load; int64_t slice; } step[] = {
		{ 2, 2 * FAIR_NICE0, 3 * MS },		/* latency 6 ms / 2 */
		{ 2, 3 * FAIR_NICE0, 2 * MS },		/* the other at weight 2048 */
		{ 9, 3 * FAIR_NICE0, 9 * 750 * US / 3 },	/* 9 > nr_latency 8: 9 x 0.75 ms */
		{ 9, 9 * FAIR_NICE0, 750 * US },
		{ 2, 2 * FAIR_NICE0, 3 * MS },
	};
	struct fair_rq rq;
	struct fair_se curr;
	size_t i;

	memset(&rq, 0, sizeof rq);
	memset(&curr, 0, sizeof curr);
	curr.cfs_rq = &rq, curr.on_rq = 1, curr.weight = FAIR_NICE0;
	rq.curr = &curr;
	for (i = 0; i < sizeof step / sizeof step[0]; i++) {
		rq.nr_running = step[i].nr, rq.load = step[i].load;
		ck_assert_int_eq(sched_cfs_tick_slice(&rq, &curr, 6 * MS, 750 * US), step[i].slice);
		/* asked again unchanged: the same */
		ck_assert_int_eq(sched_cfs_tick_slice(&rq, &curr, 6 * MS, 750 * US), step[i].slice);
	}
}
END_TEST

/* A switch's put and take in one pass leave the tree as an insert and a
 * remove do: order, seqs, flags and the avg_vruntime sums, short and long. */
START_TEST(a_swap_leaves_the_tree_an_insert_and_a_remove_leave)
{
	enum { N = 12 };
	struct fair fa, fb;
	struct fair_rq a, b;
	struct fair_se sa[N], sb[N];
	uint64_t x = 7, k;
	int i, n, in, out;

	for (k = 0; k < 20000; k++) {
		memset(&fa, 0, sizeof fa), memset(&fb, 0, sizeof fb);
		memset(&a, 0, sizeof a), memset(&b, 0, sizeof b);
		memset(sa, 0, sizeof sa);
		a.keep_avg = b.keep_avg = 1;
		n = 2 + (int)(prq_rand(&x) % (N - 1));	/* 2..12: over RQ_SHORT too */
		for (i = 0; i < n; i++) {
			sa[i].vruntime = (int64_t)(prq_rand(&x) % 5) * MS;
			sa[i].weight = FAIR_NICE0 << (prq_rand(&x) % 2);
			sa[i].on_rq = 1;
		}
		memcpy(sb, sa, sizeof sa);
		in = (int)(prq_rand(&x) % (uint64_t)n);
		for (i = 0; i < n; i++)
			if (i != in) {
				fair_rq_insert(&fa, &a, &sa[i]);
				fair_rq_insert(&fb, &b, &sb[i]);
			}
		out = (int)(prq_rand(&x) % (uint64_t)(n - 1));
		out = a.q[out] - sa;
		fair_rq_insert(&fa, &a, &sa[in]);
		fair_rq_remove(&a, &sa[out]);
		fair_rq_swap(&fb, &b, &sb[in], &sb[out]);
		ck_assert_int_eq(a.nq, b.nq);
		for (i = 0; i < a.nq; i++)
			ck_assert_msg(a.q[i] - sa == b.q[i] - sb, "case %llu: slot %d holds %d, not %d",
			    (unsigned long long)k, i, (int)(b.q[i] - sb), (int)(a.q[i] - sa));
		for (i = 0; i < n; i++) {
			ck_assert_int_eq(sa[i].queued, sb[i].queued);
			ck_assert(sa[i].seq == sb[i].seq);
		}
		ck_assert(fa.seq == fb.seq);
		ck_assert(a.avg_vruntime == b.avg_vruntime);
		ck_assert_int_eq(a.avg_load, b.avg_load);
		free(a.q), free(b.q);
	}
}
END_TEST

/* ---- fairness ---- */

START_TEST(three_busy_vcpus_share_one_pcpu_equally)
{
	struct rig t;
	int i;

	rig_init(&t, &sched_cfs_ops, M1, NULL, 2000 * MS);
	th_vm(&t, "a", 1, 0);
	th_vm(&t, "b", 1, 0);
	th_vm(&t, "c", 1, 0);
	rig_start(&t);
	th_run(&t);
	for (i = 0; i < 3; i++)
		ck_assert_double_eq_tol(ran_s(t.hv.vcpus[i]), 2.0 / 3, 0.02 * 2.0 / 3);
	/* Time slices, not a switch per tick: 3 tasks, period 6 ms -> ~2 ms each. */
	ck_assert_uint_gt(t.hv.st.ctx_switches, 600);
	ck_assert_uint_lt(t.hv.st.ctx_switches, 2000);
	rig_free(&t);
}
END_TEST

/* Two busy vCPUs on one pCPU for 2 s, with the fast paths or without. */
static void
two_busy(struct rig *t, int fast_forward)
{
	rig_init(t, &sched_cfs_ops, M1, NULL, 2000 * MS);
	t->hv.fast_forward = fast_forward;
	th_vm(t, "a", 1, 0);
	th_vm(t, "b", 1, 0);
	rig_start(t);
	th_run(t);
}

/* A tick that reschedules arms the next one a period on (a reschedule is
 * pending); the schedule then moves it to the slice's end (hv.c
 * tick_recheck), so the ticks that run are about the ones that preempt:
 * without the recheck every preempting tick is followed by a quiet one. */
START_TEST(ticks_run_where_they_preempt)
{
	struct rig slow, fast;
	uint64_t grid, ran;
	int i;

	two_busy(&slow, 0);
	two_busy(&fast, 1);
	ck_assert_uint_eq(slow.hv.st.ticks_skipped, 0);
	ck_assert_uint_eq(fast.hv.st.ctx_switches, slow.hv.st.ctx_switches);
	for (i = 0; i < 2; i++)
		ck_assert_int_eq(fast.hv.vcpus[i]->rs_time[RS_RUNNING],
		    slow.hv.vcpus[i]->rs_time[RS_RUNNING]);
	grid = (uint64_t)(2000 * MS / fast.hv.tick_ns);
	ran = grid - fast.hv.st.ticks_skipped;
	ck_assert_uint_gt(fast.hv.st.ctx_switches, 100);
	ck_assert_msg(ran <= fast.hv.st.ctx_switches + 2, "%llu ticks ran, %llu switches",
	    (unsigned long long)ran, (unsigned long long)fast.hv.st.ctx_switches);
	rig_free(&slow);
	rig_free(&fast);
}
END_TEST

/* Two busy vCPUs on one pCPU that yield every 5 us (a PLE storm's switches):
 * counts the switches after which the host tick, not run since, lies later. */
struct pp {
	struct rig *t;
	sim_time_t at;		/* the tick's place at the last yield */
	uint64_t ran;		/* the ticks run by then */
	int later;
};

static void
pp_yield(void *s, void *arg, int64_t data)
{
	struct pp *x = arg;
	struct pcpu *p = &x->t->hv.pcpus[0];

	if (p->ticks_ran == x->ran && p->tick_at > x->at)
		x->later++;
	x->at = p->tick_at;
	x->ran = p->ticks_ran;
	hv_yield(p->curr);
	sim_after(&x->t->sim, 5 * US, pp_yield, x, 0);
}

/* check: hv->check (3: --check=full) */
static void
ping_pong_run(struct rig *t, struct pp *x, int fast_forward, const struct sched_ops *ops,
    int check)
{
	rig_init(t, ops, M1, NULL, 200 * MS);
	t->hv.fast_forward = fast_forward;
	t->hv.check = check;
	th_vm(t, "a", 1, 0);
	th_vm(t, "b", 1, 0);
	rig_start(t);
	x->t = t;
	x->at = -1;
	x->ran = UINT64_MAX;
	x->later = 0;
	sim_after(&t->sim, 5 * US, pp_yield, x, 0);
	th_run(t);
}

static void
ping_pong_ops(struct rig *t, struct pp *x, int fast_forward, const struct sched_ops *ops)
{
	ping_pong_run(t, x, fast_forward, ops, 0);
}

static void
ping_pong(struct rig *t, struct pp *x, int fast_forward)
{
	ping_pong_ops(t, x, fast_forward, &sched_cfs_ops);
}

/* A switch that makes the tick's first act later leaves the tick where it is
 * (hv.c tick_recheck): it runs there, changes nothing and re-arms, where
 * moving it out at every switch cost more; the same switches and run times
 * as with every tick run. */
START_TEST(a_switch_never_moves_the_tick_later)
{
	struct rig slow, fast;
	struct pp xs, xf;
	int i;

	ping_pong(&slow, &xs, 0);
	ping_pong(&fast, &xf, 1);
	ck_assert_uint_gt(fast.hv.st.ctx_switches, 10000);
	ck_assert_uint_eq(fast.hv.st.ctx_switches, slow.hv.st.ctx_switches);
	for (i = 0; i < 2; i++)
		ck_assert_int_eq(fast.hv.vcpus[i]->rs_time[RS_RUNNING],
		    slow.hv.vcpus[i]->rs_time[RS_RUNNING]);
	ck_assert_msg(xf.later == 0, "the tick moved later at %d switches", xf.later);
	rig_free(&slow);
	rig_free(&fast);
}
END_TEST

/* cfs's tick_next, counting the looks a switch took at a tick that was
 * armed already at the next one on the grid (hv_tick_ev's own look runs
 * with no tick armed, a held tick is not yet armed) */
static int tn_looks, tn_wasted;

static sim_time_t
counting_tick_next(struct hv *hv, struct pcpu *p)
{
	sim_time_t next = hv_tick_last(p, hv->sim->now) + hv->tick_ns;

	tn_looks++;
	if (next < p->tick_base)
		next = p->tick_base;
	if (p->tick_ev != EVQ_NONE && !p->tick_held && p->tick_at <= next)
		tn_wasted++;
	return sched_cfs_ops.tick_next(hv, p);
}

/* A due tick already armed at the next tick on the grid can only stay (hv.c
 * tick_recheck returns before tick_next); the same switches and run times
 * as with every tick run. */
START_TEST(a_tick_already_next_is_not_looked_again)
{
	struct sched_ops ops = sched_cfs_ops;
	struct rig slow, fast;
	struct pp xs, xf;
	int i;

	ops.tick_next = counting_tick_next;
	ping_pong_ops(&slow, &xs, 0, &ops);
	tn_looks = tn_wasted = 0;
	ping_pong_ops(&fast, &xf, 1, &ops);
	ck_assert_uint_gt(fast.hv.st.ctx_switches, 10000);
	ck_assert_uint_eq(fast.hv.st.ctx_switches, slow.hv.st.ctx_switches);
	for (i = 0; i < 2; i++)
		ck_assert_int_eq(fast.hv.vcpus[i]->rs_time[RS_RUNNING],
		    slow.hv.vcpus[i]->rs_time[RS_RUNNING]);
	ck_assert_int_gt(tn_looks, 0);
	ck_assert_msg(tn_wasted == 0, "%d of %d looks at a tick already next", tn_wasted,
	    tn_looks);
	rig_free(&slow);
	rig_free(&fast);
}
END_TEST

/* A switch tells the tick's look what tick_next would say (cfs_set_next_entity:
 * its tick_act on the new slice), so that tick_next is not asked; the same
 * answer (--check=full asks and compares), the same switches and run times
 * as with every tick run. */
START_TEST(a_switch_tells_the_ticks_look_tick_next)
{
	struct sched_ops ops = sched_cfs_ops;
	struct rig slow, fast, full;
	struct pp xs, xf, xc;
	int i;

	ops.tick_next = counting_tick_next;
	ping_pong_ops(&slow, &xs, 0, &ops);
	tn_looks = 0;
	ping_pong_ops(&fast, &xf, 1, &ops);
	ck_assert_uint_gt(fast.hv.st.ctx_switches, 10000);
	ck_assert_msg(tn_looks < (int)fast.hv.st.ctx_switches / 10, "%d looks, %llu switches",
	    tn_looks, (unsigned long long)fast.hv.st.ctx_switches);
	ping_pong_run(&full, &xc, 1, &sched_cfs_ops, 3);
	for (i = 0; i < 2; i++) {
		ck_assert_int_eq(fast.hv.vcpus[i]->rs_time[RS_RUNNING],
		    slow.hv.vcpus[i]->rs_time[RS_RUNNING]);
		ck_assert_int_eq(full.hv.vcpus[i]->rs_time[RS_RUNNING],
		    slow.hv.vcpus[i]->rs_time[RS_RUNNING]);
	}
	ck_assert_uint_eq(fast.hv.st.ctx_switches, slow.hv.st.ctx_switches);
	ck_assert_uint_eq(full.hv.st.ctx_switches, slow.hv.st.ctx_switches);
	rig_free(&slow);
	rig_free(&fast);
	rig_free(&full);
}
END_TEST

/* cfs's tick_next, brought forward to a varying point of the next few
 * periods (a tick earlier than needed runs and changes nothing), and what a
 * look inside a switch must leave the tick at, by the grid's divisions:
 * the first tick after now, rounded up to tick_next, if before the armed one. */
static struct tp {
	int n;			/* looks so far */
	int valid;		/* at, ran: the last look's outcome, to check */
	sim_time_t at;
	uint64_t ran;
	int checked, moved;
} tp;

static sim_time_t
early_tick_next(struct hv *hv, struct pcpu *p)
{
	sim_time_t per = hv->tick_ns, now = hv->sim->now, next, at;

	next = sched_cfs_ops.tick_next(hv, p);
	if (p->tick_ev == EVQ_NONE || p->tick_held)
		return next;	/* hv_tick_ev's own look or a held tick's: armed after */
	/* the edges: a period before the armed tick, and just after that */
	at = tp.n % 4 == 0 ? p->tick_at - per : tp.n % 4 == 1 ? p->tick_at - per + 1 :
	    now + (tp.n * 7919 % 9 + 1) * per / 2;
	if (next > at)
		next = at;
	tp.n++;
	at = hv_tick_last(p, now) + per;
	if (at < p->tick_base)
		at = p->tick_base;
	if (next > at)
		at += (next - at + per - 1) / per * per;
	tp.moved += at < p->tick_at;
	tp.at = at < p->tick_at ? at : p->tick_at;
	tp.ran = p->ticks_ran;
	tp.valid = 1;
	return next;
}

/* cfs's schedule, its word on tick_next dropped: early_tick_next is not
 * cfs's own tick_next, which the word gives */
static struct vcpu *
hintless_do_schedule(struct hv *hv, struct pcpu *p, sim_time_t *slice)
{
	struct vcpu *v = sched_cfs_ops.do_schedule(hv, p, slice);

	p->tick_hint = 0;
	return v;
}

static void
tp_yield(void *s, void *arg, int64_t data)
{
	struct rig *t = arg;
	struct pcpu *p = &t->hv.pcpus[0];

	if (tp.valid && p->ticks_ran == tp.ran) {
		ck_assert_msg(p->tick_at == tp.at, "look %d: tick at %lld, not %lld", tp.n,
		    (long long)p->tick_at, (long long)tp.at);
		tp.checked++;
	}
	tp.valid = 0;
	hv_yield(p->curr);
	sim_after(&t->sim, 5 * US, tp_yield, t, 0);
}

/* A switch whose tick_next lies a period or more before the armed tick
 * pulls it back to the first grid tick at or after both now and tick_next
 * (hv.c tick_recheck decides that by comparisons and divides only for the
 * move); otherwise it stays. */
/* cfs's schedule, its word on tick_next made early_tick_next's answer, as a
 * policy's word is its tick_next's */
static struct vcpu *
hinted_do_schedule(struct hv *hv, struct pcpu *p, sim_time_t *slice)
{
	struct vcpu *v = sched_cfs_ops.do_schedule(hv, p, slice);

	if (p->tick_due && p->tick_hint != 0)
		p->tick_hint = early_tick_next(hv, p);
	return v;
}

static void
tick_pull_run(struct vcpu *(*do_schedule)(struct hv *, struct pcpu *, sim_time_t *))
{
	struct sched_ops ops = sched_cfs_ops;
	struct rig t;

	ops.tick_next = early_tick_next;
	ops.do_schedule = do_schedule;
	memset(&tp, 0, sizeof tp);
	rig_init(&t, &ops, M1, NULL, 200 * MS);
	t.hv.fast_forward = 1;
	th_vm(&t, "a", 1, 0);
	th_vm(&t, "b", 1, 0);
	rig_start(&t);
	sim_after(&t.sim, 5 * US, tp_yield, &t, 0);
	th_run(&t);
	ck_assert_int_gt(tp.checked, 500);
	ck_assert_int_gt(tp.moved, 100);
	ck_assert_int_lt(tp.moved, tp.n);
	rig_free(&t);
}

START_TEST(a_switch_pulls_the_tick_back_to_the_grid_point_of_tick_next)
{
	tick_pull_run(hintless_do_schedule);
}
END_TEST

/* The same where the switch gives tick_next (hv_tick_soon_at): tick_recheck
 * takes its first test on the word and leaves the tick only where the
 * tests after it would. */
START_TEST(a_switch_that_gives_tick_next_pulls_the_tick_back_the_same)
{
	tick_pull_run(hinted_do_schedule);
}
END_TEST

/* ---- wakeup preemption ---- */

struct wk {
	struct rig *t;
	struct vcpu *s;		/* the sleeper */
	int ran_at_once, ran_after_tick;
};

static void
wk_block(void *s, void *arg, int64_t data)
{
	struct wk *w = arg;

	w->s = w->t->hv.vcpus[0]->pcpu == NULL ? w->t->hv.vcpus[0] : w->t->hv.vcpus[1];
	hv_block(w->s);
}

static void
wk_wake(void *s, void *arg, int64_t data)
{
	hv_wake(((struct wk *)arg)->s);
}

static void
wk_look(void *s, void *arg, int64_t data)
{
	struct wk *w = arg;

	if (data == 0)
		w->ran_at_once = w->s->rs == RS_RUNNING;
	else
		w->ran_after_tick = w->s->rs == RS_RUNNING;
}

/* One pCPU, two busy vCPUs; one sleeps 100 ms, so it wakes with
 * min_vruntime - latency/2 = 3 ms of credit over the other. */
static void
wake_after_sleep(const char *params, struct wk *w)
{
	struct rig t;

	memset(w, 0, sizeof *w);
	w->t = &t;
	rig_init(&t, &sched_cfs_ops, M1, params, 200 * MS);
	th_vm(&t, "a", 1, 0);
	th_vm(&t, "b", 1, 0);
	rig_start(&t);
	sim_at(&t.sim, 1 * MS + 300 * US, wk_block, w, 0);
	sim_at(&t.sim, 101 * MS + 300 * US, wk_wake, w, 0);
	sim_at(&t.sim, 101 * MS + 320 * US, wk_look, w, 0);
	sim_at(&t.sim, 102 * MS + 100 * US, wk_look, w, 1);
	th_run(&t);
	rig_free(&t);
}

START_TEST(woken_vcpu_far_left_preempts)
{
	struct wk w;

	wake_after_sleep(NULL, &w);	/* 3 ms > wakeup_granularity 1 ms */
	ck_assert_int_eq(w.ran_at_once, 1);
}
END_TEST

START_TEST(woken_vcpu_within_wakeup_granularity_waits_for_the_tick)
{
	struct wk w;

	wake_after_sleep("{wakeup_granularity: 4ms}", &w);	/* 3 ms < 4 ms */
	ck_assert_int_eq(w.ran_at_once, 0);
	/* The current one ran far beyond its slice: the next tick preempts it. */
	ck_assert_int_eq(w.ran_after_tick, 1);
}
END_TEST

/* ---- yield_to ---- */

enum yt_mode { YT_WITHIN, YT_BEYOND, YT_CONTROL };

struct yt {
	struct rig *t;
	enum yt_mode mode;
	struct vcpu *f, *r, *tgt;
	int done, ret, tgt_ran, r_ran;
};

static void
yt_look(void *s, void *arg, int64_t data)
{
	struct yt *y = arg;

	y->tgt_ran = y->tgt->rs == RS_RUNNING;
	y->r_ran = y->r->rs == RS_RUNNING;
}

/* Wait for the moment the target's vruntime is right of the running one's
 * by the amount the mode wants, then yield to it. */
static void
yt_probe(void *s, void *arg, int64_t data)
{
	struct yt *y = arg;
	struct hv *hv = &y->t->hv;
	struct vcpu *g0 = hv->vms[1]->vcpus[0], *g1 = hv->vms[1]->vcpus[1];
	int64_t d;

	if (y->done)
		return;
	sim_after(&y->t->sim, 250 * US, yt_probe, y, 0);
	y->r = g0->pcpu != NULL ? g0 : g1;
	y->tgt = y->r == g0 ? g1 : g0;
	if (y->r->pcpu == NULL)
		return;
	/* 2 pCPUs: wakeup_granularity = 1 ms x (1 + ilog2(2)) = 2 ms */
	d = sched_cfs_vruntime(hv, y->tgt) - sched_cfs_vruntime(hv, y->r);
	if (y->mode == YT_BEYOND ? d <= 3 * MS : d <= 0 || d > 1 * MS)
		return;
	y->done = 1;
	if (y->mode != YT_CONTROL)
		y->ret = hv_yield_to(y->f, y->tgt);
	sim_after(&y->t->sim, 20 * US, yt_look, y, 0);
}

/* f alone on pCPU 0 yields to one of g's two vCPUs sharing pCPU 1. */
static void
yield_to_run(enum yt_mode mode, struct yt *y)
{
	struct rig t;

	memset(y, 0, sizeof *y);
	y->t = &t;
	y->mode = mode;
	rig_init(&t, &sched_cfs_ops, M2, NULL, 300 * MS);
	y->f = th_vm(&t, "f", 1, 0x1)->vcpus[0];
	th_vm(&t, "g", 2, 0x2);
	rig_start(&t);
	sim_at(&t.sim, 20 * MS + 10 * US, yt_probe, y, 0);
	th_run(&t);
	rig_free(&t);
	ck_assert_int_eq(y->done, 1);
}

START_TEST(yield_to_runs_a_target_within_granularity_next)
{
	struct yt y;

	yield_to_run(YT_CONTROL, &y);	/* without the yield, the current one stays */
	ck_assert_int_eq(y.tgt_ran, 0);
	ck_assert_int_eq(y.r_ran, 1);
	yield_to_run(YT_WITHIN, &y);
	ck_assert_int_eq(y.ret, 1);
	ck_assert_int_eq(y.tgt_ran, 1);
	ck_assert_int_eq(y.r_ran, 0);
}
END_TEST

START_TEST(yield_to_a_target_too_far_right_changes_nothing)
{
	struct yt y;

	yield_to_run(YT_BEYOND, &y);
	ck_assert_int_eq(y.ret, 1);	/* it yielded; the buddy was too unfair */
	ck_assert_int_eq(y.tgt_ran, 0);
	ck_assert_int_eq(y.r_ran, 1);
}
END_TEST

/* Right after a yield_to across pCPUs (seed001-x7560's PLE exits) every
 * vCPU not running has been charged exactly the time it ran: the yielder at
 * its yield and not again at its switch at the same instant, the target
 * pCPU's preempted one at its switch (fair.c update_curr; fair_do_schedule
 * skips a level charged at this instant). */
struct yc {
	struct rig *t;
	int yielded, switched, off;
};

static void
yc_look(void *s, void *arg, int64_t data)
{
	struct yc *y = arg;
	struct hv *hv = &y->t->hv;
	int i;

	for (i = 0; i < hv->nvcpus; i++) {
		struct vcpu *v = hv->vcpus[i];

		if (v->pcpu == NULL && FAIR_SE(v)->sum_exec != v->rs_time[RS_RUNNING])
			y->off++;
	}
	y->switched = (int)hv->st.ctx_switches - y->switched;
}

static void
yc_yield(void *s, void *arg, int64_t data)
{
	struct yc *y = arg;
	struct hv *hv = &y->t->hv;
	struct vcpu *f0 = hv->vms[0]->vcpus[0], *f1 = hv->vms[0]->vcpus[1];
	struct vcpu *g0 = hv->vms[1]->vcpus[0], *g1 = hv->vms[1]->vcpus[1];

	y->switched = (int)hv->st.ctx_switches;
	y->yielded = hv_yield_to(f0->pcpu != NULL ? f0 : f1, g0->pcpu != NULL ? g1 : g0);
	sim_after(&y->t->sim, 1 * US, yc_look, y, 0);
}

START_TEST(a_switch_charges_what_ran_since_the_last_charge_once)
{
	struct rig t;
	struct yc y = { &t, 0, 0, 0 };

	rig_init(&t, &sched_cfs_ops, M2, NULL, 60 * MS);
	th_vm(&t, "f", 2, 0x1);	/* two: the yielder's pCPU switches too */
	th_vm(&t, "g", 2, 0x2);
	rig_start(&t);
	sim_at(&t.sim, 20 * MS + 10 * US, yc_yield, &y, 0);
	th_run(&t);
	rig_free(&t);
	ck_assert_int_eq(y.yielded, 1);
	ck_assert_int_eq(y.switched, 2);	/* both pCPUs switched */
	ck_assert_int_eq(y.off, 0);
}
END_TEST

struct ytf {
	struct rig *t;
	int to_running, to_blocked, to_self, to_lone;
};

static void
ytf_try(void *s, void *arg, int64_t data)
{
	struct ytf *x = arg;
	struct hv *hv = &x->t->hv;
	struct vcpu *f = hv->vms[0]->vcpus[0], *g0 = hv->vms[1]->vcpus[0];
	struct vcpu *g1 = hv->vms[1]->vcpus[1];
	struct vcpu *run = g0->pcpu != NULL ? g0 : g1, *other = run == g0 ? g1 : g0;

	x->to_running = hv_yield_to(f, run);
	x->to_self = hv_yield_to(f, f);
	hv_block(other);
	x->to_blocked = hv_yield_to(f, other);
}

START_TEST(yield_to_never_targets_a_running_or_blocked_vcpu)
{
	struct rig t;
	struct ytf x = { &t, 9, 9, 9, 9 };

	rig_init(&t, &sched_cfs_ops, M2, NULL, 60 * MS);
	th_vm(&t, "f", 1, 0x1);
	th_vm(&t, "g", 2, 0x2);
	rig_start(&t);
	sim_at(&t.sim, 30 * MS + 7 * US, ytf_try, &x, 0);
	th_run(&t);
	ck_assert_int_eq(x.to_running, 0);
	ck_assert_int_eq(x.to_self, 0);
	ck_assert_int_eq(x.to_blocked, 0);
	ck_assert_uint_eq(t.hv.st.yield_to_fail, 3);
	ck_assert_uint_eq(t.hv.st.yield_to_ok, 0);
	rig_free(&t);
}
END_TEST

static void
ytf_lone(void *s, void *arg, int64_t data)
{
	struct ytf *x = arg;
	struct hv *hv = &x->t->hv;

	x->to_lone = hv_yield_to(hv->vms[0]->vcpus[0], hv->vms[1]->vcpus[0]);
}

static int
yield_to_lone(const char *params)
{
	struct rig t;
	struct ytf x = { &t, 9, 9, 9, 9 };

	rig_init(&t, &sched_cfs_ops, M2, params, 20 * MS);
	th_vm(&t, "f", 1, 0x1);
	th_vm(&t, "g", 1, 0x2);
	rig_start(&t);
	sim_at(&t.sim, 10 * MS + 7 * US, ytf_lone, &x, 0);
	th_run(&t);
	rig_free(&t);
	return x.to_lone;
}

START_TEST(yield_to_esrch_when_both_queues_hold_one_task)
{
	ck_assert_int_lt(yield_to_lone("{yield_to_esrch: true}"), 0);
	ck_assert_int_eq(yield_to_lone(NULL), 0);	/* 3.6: the target is running */
}
END_TEST

/* ---- affinity and balancing ---- */

struct aff {
	struct hv *hv;
	uint64_t rnd;
	int runs, bad;
};

static void
aff_probe(void *ctx, const struct probe_ev *e)
{
	struct aff *a = ctx;

	if (e->kind != PR_RUNSTATE || e->aux != RS_RUNNING)
		return;
	a->runs++;
	if (e->pcpu < 0 || !a->hv->vcpus[e->vcpu]->affinity[e->pcpu])
		a->bad++;
}

/* Every 50 us: a random vCPU blocks, or wakes if it was blocked. */
static void
aff_churn(void *s, void *arg, int64_t data)
{
	struct aff *a = arg;
	struct vcpu *v;

	a->rnd = a->rnd * 6364136223846793005ULL + 1442695040888963407ULL;
	v = a->hv->vcpus[(a->rnd >> 33) % (uint64_t)a->hv->nvcpus];
	if (v->blocked)
		hv_wake(v);
	else
		hv_block(v);
	sim_after(a->hv->sim, 50 * US, aff_churn, a, 0);
}

START_TEST(affinity_is_never_broken_under_churn)
{
	struct rig t;
	struct aff a = { NULL, 42, 0, 0 };
	struct probe pr = { aff_probe, &a };
	int i, moved = 0;

	rig_init(&t, &sched_cfs_ops, M8, NULL, 300 * MS);
	a.hv = &t.hv;
	t.hv.probe = &pr;
	th_vm(&t, "a", 4, 0x03);
	th_vm(&t, "b", 4, 0x3c);
	th_vm(&t, "c", 6, 0);
	th_vm(&t, "d", 2, 0x80);
	rig_start(&t);
	sim_at(&t.sim, 1 * MS, aff_churn, &a, 0);
	th_run(&t);
	ck_assert_int_gt(a.runs, 2000);
	ck_assert_int_eq(a.bad, 0);
	/* The unpinned VM did move around (wakeups and balancing happened). */
	for (i = 0; i < 6; i++)
		moved += t.hv.vms[2]->vcpus[i]->ctx_in > 1;
	ck_assert_int_gt(moved, 0);
	rig_free(&t);
}
END_TEST

static void
widen(void *s, void *arg, int64_t data)
{
	struct hv *hv = arg;
	int i, c;

	for (i = 0; i < hv->nvcpus; i++)
		for (c = 0; c < hv->npcpus; c++)
			hv_vcpu_affinity(hv->vcpus[i])[c] = data == 0 || (data >> c & 1);
}

START_TEST(idle_pcpu_pulls_work_within_affinity)
{
	struct rig t;
	int i;

	/* 4 busy vCPUs all on pCPU 0 of 4; at 10 ms they may use pCPUs 0-1. */
	rig_init(&t, &sched_cfs_ops, M4, NULL, 1000 * MS);
	th_vm(&t, "a", 4, 0x1);
	rig_start(&t);
	sim_at(&t.sim, 10 * MS, widen, &t.hv, 0x3);
	th_run(&t);
	ck_assert_double_ge((double)t.hv.pcpus[1].busy_time, 0.98e9);
	ck_assert_int_eq(t.hv.pcpus[2].busy_time, 0);
	ck_assert_int_eq(t.hv.pcpus[3].busy_time, 0);
	for (i = 0; i < 4; i++)
		ck_assert_double_eq_tol(ran_s(t.hv.vcpus[i]), 0.5, 0.05);
	rig_free(&t);
}
END_TEST

START_TEST(unpinned_vcpus_spread_one_per_pcpu)
{
	struct rig t;
	int i, j;

	rig_init(&t, &sched_cfs_ops, M2x2, NULL, 1000 * MS);
	th_vm(&t, "a", 4, 0x1);
	rig_start(&t);
	sim_at(&t.sim, 1 * MS, widen, &t.hv, 0);
	th_run(&t);
	for (i = 0; i < 4; i++) {
		ck_assert_ptr_nonnull(t.hv.pcpus[i].curr);
		ck_assert_double_ge((double)t.hv.pcpus[i].busy_time, 0.98e9);
		for (j = 0; j < i; j++)
			ck_assert_ptr_ne(t.hv.pcpus[i].curr, t.hv.pcpus[j].curr);
	}
	for (i = 0; i < 4; i++)	/* once spread, nobody moves again */
		ck_assert_uint_le(t.hv.vcpus[i]->ctx_in, 30);
	rig_free(&t);
}
END_TEST

struct ni {
	struct rig *t;
	int filled;
};

static void
ni_block(void *s, void *arg, int64_t data)
{
	struct ni *n = arg;

	hv_block(n->t->hv.pcpus[1].curr);
}

static void
ni_look(void *s, void *arg, int64_t data)
{
	struct ni *n = arg;

	n->filled = n->t->hv.pcpus[1].curr != NULL;
}

START_TEST(pcpu_going_idle_pulls_at_once)
{
	struct rig t;
	struct ni n = { &t, 0 };

	/* Three vCPUs on two pCPUs: 2 + 1.  The lone one blocks; its pCPU pulls. */
	rig_init(&t, &sched_cfs_ops, M2, NULL, 30 * MS);
	th_vm(&t, "a", 3, 0);
	rig_start(&t);
	sim_at(&t.sim, 20 * MS + 300 * US, ni_block, &n, 0);
	sim_at(&t.sim, 20 * MS + 320 * US, ni_look, &n, 0);
	th_run(&t);
	ck_assert_int_eq(n.filled, 1);
	rig_free(&t);
}
END_TEST

/* ---- scenarios ---- */

static const char *overcommit =
    "machine: {sockets: 1, cores_per_socket: 2, threads_per_core: 2, clock: 2GHz}\n"
    "duration: 200ms\n"
    "hypervisor: {kind: kvm, scheduler: cfs, params: {hz: 1000, latency: 6ms}}\n"
    "vms:\n"
    "  - {name: a, vcpus: 4, affinity: \"0-1\", lock: ticket, workload: w}\n"
    "  - {name: b, vcpus: 4, lock: ticket, workload: w}\n"
    "workloads:\n"
    "  w:\n"
    "    program:\n"
    "      - loop: forever\n"
    "        do:\n"
    "          - compute: {dist: exponential, mean: 2us}\n"
    "          - acquire: l\n"
    "          - compute: 200ns\n"
    "          - release: l\n"
    "          - count: ops\n";

struct sc_aff {
	int runs, bad;
};

static void
sc_probe(void *ctx, const struct probe_ev *e)
{
	struct sc_aff *a = ctx;

	if (e->kind != PR_RUNSTATE || e->aux != RS_RUNNING)
		return;
	a->runs++;
	if (e->vcpu < 4 && e->pcpu > 1)	/* VM a: pCPUs 0-1 */
		a->bad++;
}

START_TEST(overcommitted_scenario_shares_add_up_affinity_holds)
{
	struct sc_aff a = { 0, 0 };
	struct probe pr = { sc_probe, &a };
	struct metrics m, m2;
	double sum = 0;
	const char *const k[] = { "running", "runnable", "blocked", "offline" };
	char name[64];
	int i;

	tu_run(overcommit, 3, &pr, &m);
	for (i = 0; i < 4; i++) {
		snprintf(name, sizeof name, "a.%s_share", k[i]);
		sum += tu_metric(&m, name);
	}
	ck_assert_double_eq_tol(sum, 100, 1e-9);
	/* 8 never-blocking vCPUs on 4 pCPUs: exactly half the time running. */
	ck_assert_double_eq_tol((tu_metric(&m, "a.running_share") +
	    tu_metric(&m, "b.running_share")) / 2, 50, 0.5);
	/* a: 4 vCPUs on 2 pCPUs; b: 4 vCPUs on the other 2 (balanced). */
	ck_assert_double_eq_tol(tu_metric(&m, "a.running_share"), 50, 3);
	ck_assert_int_gt(a.runs, 50);
	ck_assert_int_eq(a.bad, 0);
	ck_assert_double_gt(tu_metric(&m, "a.ops"), 1000);
	/* Same seed: same numbers. */
	tu_run(overcommit, 3, NULL, &m2);
	ck_assert_double_eq(tu_metric(&m, "a.ops"), tu_metric(&m2, "a.ops"));
	ck_assert_double_eq(tu_metric(&m, "ctx_switches"), tu_metric(&m2, "ctx_switches"));
	metrics_free(&m);
	metrics_free(&m2);
}
END_TEST

START_TEST(bad_params_name_file_line_col)
{
	struct scenario sc;
	struct vs_err err = { "" };

	ck_assert_int_ne(tu_load(&sc,
	    TEST_MACHINE
	    "duration: 1ms\n"
	    "hypervisor: {kind: kvm, scheduler: cfs, params: {latncy: 6ms}}\n"
	    "vms: [{name: g, vcpus: 1, workload: w}]\n"
	    "workloads: {w: {program: [{compute: 1us}]}}\n", &err), 0);
	ck_assert_msg(strstr(err.msg, ":3:50: unknown key 'latncy'") != NULL, "%s", err.msg);
	scen_free(&sc);	/* a failed load may hold parts */
	ck_assert_int_ne(tu_load(&sc,
	    TEST_MACHINE
	    "duration: 1ms\n"
	    "hypervisor: {kind: kvm, scheduler: cfs, params: {scaling: cubic}}\n"
	    "vms: [{name: g, vcpus: 1, workload: w}]\n"
	    "workloads: {w: {program: [{compute: 1us}]}}\n", &err), 0);
	ck_assert_msg(strstr(err.msg, ":3:") != NULL, "%s", err.msg);
	scen_free(&sc);
}
END_TEST

START_TEST(weight_for_an_unknown_vm_is_an_error)
{
	struct scenario sc;
	struct vs_err err = { "" };
	struct metrics m;
	struct run_opts o = { .wall_clock = 0, .check = 1 };

	ck_assert_int_eq(tu_load(&sc,
	    TEST_MACHINE
	    "duration: 1ms\n"
	    "hypervisor: {kind: kvm, scheduler: cfs, params: {weights: {nope: 2048}}}\n"
	    "vms: [{name: g, vcpus: 1, workload: w}]\n"
	    "workloads: {w: {program: [{compute: 1us}]}}\n", &err), 0);
	metrics_init(&m);
	ck_assert_int_ne(run_once(&sc, 1, &o, &m, &err), 0);
	ck_assert_msg(strstr(err.msg, ":3:") != NULL && strstr(err.msg, "nope") != NULL,
	    "%s", err.msg);
	metrics_free(&m);
	scen_free(&sc);
}
END_TEST

/* ---- group scheduling ---- */

/* Groups: the skip buddy of a yield walks up (set_skip_buddy for_each_sched_entity),
 * so the whole VM is skipped at the root and the pCPU goes to the other VM
 * although a sibling vCPU of the yielder is queued. */
struct gs {
	struct rig *t;
	int yield, done;
	struct vcpu *r;
	int other_vm_ran, r_ran;
};

static void
gs_look(void *s, void *arg, int64_t data)
{
	struct gs *g = arg;
	struct vcpu *cur = g->t->hv.pcpus[0].curr;

	g->other_vm_ran = cur != NULL && cur->vm != g->r->vm;
	g->r_ran = cur == g->r;
}

static void
gs_probe(void *s, void *arg, int64_t data)
{
	struct gs *g = arg;
	struct hv *hv = &g->t->hv;
	struct vcpu *cur = hv->pcpus[0].curr;
	struct fair_se *fg, *hg;

	if (g->done)
		return;
	sim_after(&g->t->sim, 1 * MS, gs_probe, g, 0);
	if (cur == NULL || cur->vm != hv->vms[0])
		return;
	fg = FAIR_SE(cur)->parent;
	hg = FAIR_SE(hv->vms[1]->vcpus[0])->parent;
	/* the other VM's group within wakeup_granularity (1 ms on 1 pCPU) of ours */
	if (hg->vruntime - (fg->vruntime + (hv->sim->now - fg->exec_start)) > 600 * US)
		return;
	g->done = 1;
	g->r = cur;
	if (g->yield)
		hv_yield(cur);
	sim_after(&g->t->sim, 20 * US, gs_look, g, 0);
}

static void
group_skip_run(int yield, struct gs *g)
{
	struct rig t;

	memset(g, 0, sizeof *g);
	g->t = &t;
	g->yield = yield;
	rig_init(&t, &sched_cfs_ops, M1, "{groups: per-vm}", 200 * MS);
	th_vm(&t, "f", 2, 0);
	th_vm(&t, "h", 1, 0);
	rig_start(&t);
	sim_at(&t.sim, 20 * MS + 500 * US, gs_probe, g, 0);
	th_run(&t);
	rig_free(&t);
	ck_assert_int_eq(g->done, 1);
}

START_TEST(groups_yield_skips_the_whole_vm)
{
	struct gs g;

	group_skip_run(0, &g);		/* without the yield the vCPU stays */
	ck_assert_int_eq(g.r_ran, 1);
	group_skip_run(1, &g);
	ck_assert_int_eq(g.r_ran, 0);
	ck_assert_int_eq(g.other_vm_ran, 1);	/* not the queued sibling */
}
END_TEST

/*
 * LNX-3.2 update_cfs_load / calc_cfs_shares: a group weighs its other
 * pCPUs' loads as averaged over the shares window.  VM a has a vCPU on each
 * of 2 pCPUs beside a hog; a1 blocks at 100 ms.  With the current loads a0's
 * group entity jumps to the group's full 1024 at once; with the window it
 * keeps about half until a1's rq has been idle for some windows, and gets
 * all of it once four idle windows drop the history.  a1's rq is folded when
 * pCPU 1 balances (update_shares in rebalance_domains): it runs h1, so at
 * its busy interval, 64 x 1, 2, 4 ms clamped to 200 ms: at ~64, ~192, ~392
 * ms; pCPU 0 re-weighs within a window after, so the last look is at 250.
 */
struct sw {
	struct rig *t;
	long w_after[3];
};

static long
a0_group_weight(struct rig *t)
{
	const struct fair_tg *tg = fair_tg_of(&t->hv, t->hv.vms[0]->vcpus[0]);

	return tg->se[0].weight;
}

static void
sw_block(void *s, void *arg, int64_t data)
{
	struct sw *x = arg;

	hv_block(x->t->hv.vms[0]->vcpus[1]);
}

static void
sw_look(void *s, void *arg, int64_t data)
{
	struct sw *x = arg;

	x->w_after[data] = a0_group_weight(x->t);
}

static void
shares_window_run(const char *params, struct sw *x)
{
	struct rig t;
	struct vm *a, *h;

	memset(x, 0, sizeof *x);
	x->t = &t;
	rig_init(&t, &sched_cfs_ops, M2, params, 300 * MS);
	a = th_vm(&t, "a", 2, 0);
	h = th_vm(&t, "h", 2, 0);
	rig_aff(&t, a->vcpus[0], 1);
	rig_aff(&t, a->vcpus[1], 2);
	rig_aff(&t, h->vcpus[0], 1);
	rig_aff(&t, h->vcpus[1], 2);
	rig_start(&t);
	sim_at(&t.sim, 100 * MS, sw_block, x, 0);
	sim_at(&t.sim, 99 * MS, sw_look, x, 0);
	sim_at(&t.sim, 106 * MS, sw_look, x, 1);
	sim_at(&t.sim, 250 * MS, sw_look, x, 2);
	th_run(&t);
	rig_free(&t);
}

START_TEST(group_shares_follow_the_averaged_load)
{
	struct sw x;

	shares_window_run("{groups: per-vm, shares_window: 0ms}", &x);
	ck_assert_int_eq(x.w_after[0], 512);	/* half of 1024 on each pCPU */
	ck_assert_int_eq(x.w_after[1], 1024);	/* a1 gone: all of it at once */
	ck_assert_int_eq(x.w_after[2], 1024);
	shares_window_run("{groups: per-vm}", &x);
	ck_assert_msg(x.w_after[0] > 450 && x.w_after[0] < 580, "%ld", x.w_after[0]);
	ck_assert_msg(x.w_after[1] < 800, "6 ms after: %ld", x.w_after[1]);
	ck_assert_int_eq(x.w_after[2], 1024);
}
END_TEST

/* groups: none is today's scheduler: the same run, switch for switch. */
START_TEST(groups_none_is_the_default)
{
	struct rig t;
	uint64_t sw[2];
	double ran[2];
	int k;

	for (k = 0; k < 2; k++) {
		rig_init(&t, &sched_cfs_ops, M2, k ? "{groups: none}" : NULL, 300 * MS);
		th_vm(&t, "a", 3, 0);
		th_vm(&t, "b", 2, 0);
		rig_start(&t);
		th_run(&t);
		sw[k] = t.hv.st.ctx_switches;
		ran[k] = ran_s(t.hv.vcpus[0]);
		rig_free(&t);
	}
	ck_assert_uint_eq(sw[0], sw[1]);
	ck_assert_double_eq(ran[0], ran[1]);
}
END_TEST

/* fair_do_schedule's schedule_root (groups: none) takes the steps of the
 * hierarchy's walk at its one level: the same run, switch for switch, under
 * a churn of blocks, wakes, yields and directed yields. */
START_TEST(a_root_schedule_is_the_walk_at_one_level)
{
	struct rig t;
	struct rig_churn c;
	struct rig_churn_end e[2];
	int k;

	for (k = 0; k < 2; k++) {
		rig_init(&t, &sched_cfs_ops, M2, NULL, 300 * MS);
		th_vm(&t, "a", 3, 0);
		th_vm(&t, "b", 2, 0);
		th_vm(&t, "c", 1, 0x1);
		rig_start(&t);
		ck_assert_int_eq(((struct fair *)t.hv.sched_priv)->flat, 1);
		((struct fair *)t.hv.sched_priv)->flat = k;
		rig_churn_start(&c, &t, 7);
		th_run(&t);
		e[k] = rig_churn_end(&c, fair_vruntime(&t.hv, t.hv.vcpus[1]));
		rig_free(&t);
	}
	rig_churn_same(&e[0], &e[1], 300);
}
END_TEST

/* cfs's directed yield (cfs_yield_to: yield_task called directly, inline)
 * takes the steps of fair_yield_to's call through f->cls: the same run,
 * switch for switch, under a churn of blocks, wakes, yields and directed
 * yields. */
START_TEST(an_inline_directed_yield_is_the_call_through_the_class)
{
	struct sched_ops ops = sched_cfs_ops;
	struct rig t;
	struct rig_churn c;
	struct rig_churn_end e[2];
	uint64_t ok[2];
	int k;

	ops.yield_to = fair_yield_to;
	for (k = 0; k < 2; k++) {
		rig_init(&t, k ? &ops : &sched_cfs_ops, M2, NULL, 300 * MS);
		th_vm(&t, "a", 3, 0);
		th_vm(&t, "b", 2, 0);
		th_vm(&t, "c", 1, 0x1);
		rig_start(&t);
		rig_churn_start(&c, &t, 11);
		th_run(&t);
		e[k] = rig_churn_end(&c, fair_vruntime(&t.hv, t.hv.vcpus[1]));
		ok[k] = t.hv.st.yield_to_ok;
		rig_free(&t);
	}
	rig_churn_same(&e[0], &e[1], 300);
	ck_assert_uint_gt(ok[0], 50);
	ck_assert_uint_eq(ok[0], ok[1]);
}
END_TEST

/* The tick tests' rig: two pCPUs, vCPUs 3 + 1, the fast-forward (so the
 * tick skip) on or off, run to end under a churn seeded seed. */
static void
tick_churn_run(struct rig *t, struct rig_churn *c, const struct sched_ops *ops, sim_time_t end,
    int ff, uint64_t seed)
{
	rig_init(t, ops, M2, NULL, end);
	t->hv.fast_forward = ff;
	th_vm(t, "a", 3, 0);
	th_vm(t, "b", 1, 0);
	rig_start(t);
	rig_churn_start(c, t, seed);
	th_run(t);
}

/* Skipped ticks change nothing (fair_tick's catch-up: cpu_load's decay a
 * tick a step, curr charged once at the tick): the same run, switch for
 * switch, with every tick run, under a churn on two pCPUs. */
START_TEST(skipped_ticks_change_nothing_under_churn)
{
	struct rig t;
	struct rig_churn c;
	struct rig_churn_end e[2];
	uint64_t skipped[2];
	long load[2];
	int k;

	for (k = 0; k < 2; k++) {
		tick_churn_run(&t, &c, &sched_cfs_ops, 300 * MS, k, 5);
		e[k] = rig_churn_end(&c, fair_vruntime(&t.hv, t.hv.vcpus[0]));
		skipped[k] = t.hv.st.ticks_skipped;
		load[k] = ((struct fair *)t.hv.sched_priv)->cpu[1].cpu_load;
		rig_free(&t);
	}
	ck_assert_uint_eq(skipped[0], 0);
	ck_assert_uint_gt(skipped[1], 50);
	rig_churn_same(&e[0], &e[1], 0);
	ck_assert_int_eq(load[0], load[1]);
}
END_TEST

/* cfs's tick, counted per pCPU: the ticks that ran */
static uint64_t tick_calls[2];

static void
counted_tick(struct hv *hv, struct pcpu *p)
{
	tick_calls[p->id]++;
	sched_cfs_ops.tick(hv, p);
}

/* host_ticks_skipped is counted at the end (hv.c hv_finish), not at each
 * tick: every grid point up to the end either ran or was skipped, under a
 * churn on two pCPUs, with the ticks skipped or all run. */
START_TEST(skipped_ticks_are_the_grid_points_that_did_not_run)
{
	struct sched_ops ops = sched_cfs_ops;
	struct rig t;
	struct rig_churn c;
	uint64_t grid;
	int k, i;

	ops.tick = counted_tick;
	for (k = 0; k < 2; k++) {
		memset(tick_calls, 0, sizeof tick_calls);
		tick_churn_run(&t, &c, &ops, 300 * MS + 123, k, 7);
		grid = 0;
		for (i = 0; i < 2; i++) {
			struct pcpu *p = &t.hv.pcpus[i];

			ck_assert_uint_eq(p->ticks_ran, tick_calls[i]);
			grid += (uint64_t)((t.sim.now - p->tick_base) / t.hv.tick_ns + 1);
		}
		ck_assert_uint_eq(t.hv.st.ticks_skipped + tick_calls[0] + tick_calls[1], grid);
		if (k == 0)
			ck_assert_uint_eq(t.hv.st.ticks_skipped, 0);
		else
			ck_assert_uint_gt(t.hv.st.ticks_skipped, 50);
		rig_free(&t);
	}
}
END_TEST

/* cfs's tick, checked: where nothing was pending, a nice-0 curr is
 * preempted when it ran past its slice of the queue as it is at the tick
 * (LNX-3.2 sched_slice: latency * NICE0 / load, up to nr_latency queued), or
 * ran min_granularity and leads the leftmost by more than that slice
 * (LNX-3.6 check_preempt_tick); defaults, one pCPU: factor 1 */
static int slice_checks;

static void
checked_tick(struct hv *hv, struct pcpu *p)
{
	struct fair_cpu *c = &((struct fair *)hv->sched_priv)->cpu[p->id];
	struct fair_se *curr;
	int pending = c->need_resched, want;
	int64_t ideal, ran;

	sched_cfs_ops.tick(hv, p);
	curr = fair_curr_task(c);
	if (pending || curr == NULL || !curr->on_rq || c->root.nr_running < 2)
		return;
	ck_assert_int_eq(curr->weight, FAIR_NICE0);
	ck_assert_int_le(c->root.nr_running, 8);
	ideal = 6 * MS * FAIR_NICE0 / c->root.load;
	ran = curr->sum_exec - curr->prev_sum_exec;
	want = ran > ideal || (ran >= 750 * US && c->root.nq > 0 &&
	    curr->vruntime - c->root.q[0]->vruntime > ideal);
	ck_assert_int_eq(c->need_resched, want);
	slice_checks++;
}

/* The tick reads a root nice-0 curr's slice kept beside the rq
 * (sched_cfs.c tick_slice): under a churn that changes the queue between
 * ticks, it preempts where the slice of the queue as it is says. */
START_TEST(the_tick_preempts_at_the_slice_of_the_queue_as_it_is)
{
	struct sched_ops ops = sched_cfs_ops;
	struct rig t;
	struct rig_churn c;

	ops.tick = checked_tick;
	slice_checks = 0;
	rig_init(&t, &ops, M1, NULL, 300 * MS);
	t.hv.fast_forward = 0;	/* every tick runs and is checked */
	th_vm(&t, "a", 3, 0);
	th_vm(&t, "b", 2, 0);
	rig_start(&t);
	rig_churn_start(&c, &t, 11);
	th_run(&t);
	ck_assert_int_gt(slice_checks, 50);
	rig_free(&t);
}
END_TEST

/* hv_resched (hv.c): a raise for later pushes one schedule, which a later
 * raise leaves and an earlier one moves up; a raise for now takes its place
 * (resched_later), and while one for now is pending every raise leaves it. */
START_TEST(a_raise_for_now_overtakes_one_pending_later)
{
	struct rig t;
	struct pcpu *p;
	sim_time_t now;

	rig_init(&t, &sched_cfs_ops, M1, NULL, 0);
	th_vm(&t, "a", 1, 0);
	th_vm(&t, "b", 1, 0);
	rig_start(&t);
	rig_until(&t, 10 * MS);
	p = &t.hv.pcpus[0];
	now = t.sim.now;
	ck_assert(!p->sched_now && p->sched_ev == EVQ_NONE);
	hv_resched(p, 50 * US);
	ck_assert(!p->sched_now && p->sched_ev != EVQ_NONE);
	ck_assert_int_eq(p->sched_at, now + 50 * US);
	hv_resched(p, 80 * US);
	ck_assert_int_eq(p->sched_at, now + 50 * US);
	hv_resched(p, 20 * US);
	ck_assert_int_eq(p->sched_at, now + 20 * US);
	hv_resched(p, 0);
	ck_assert(p->sched_now && p->sched_ev == EVQ_NONE);
	ck_assert_int_eq(p->sched_at, now);
	hv_resched(p, 0);
	hv_resched(p, 10 * US);
	ck_assert(p->sched_now && p->sched_ev == EVQ_NONE);
	rig_until(&t, now);	/* it runs; nothing is left for later */
	ck_assert(!p->sched_now && p->sched_ev == EVQ_NONE);
	rig_free(&t);
}
END_TEST

static Suite *
cfs_suite(void)
{
	Suite *s = suite_create("cfs");
	TCase *tc = tcase_create("core");

	tcase_set_timeout(tc, 0);
	tcase_add_test(tc, the_fused_pick_takes_what_put_prev_then_pick_takes);
	tcase_add_test(tc, clear_buddies_clears_each_buddy_that_names_the_entity);
	tcase_add_test(tc, the_ticks_slice_follows_nr_running_and_load);
	tcase_add_test(tc, a_swap_leaves_the_tree_an_insert_and_a_remove_leave);
	tcase_add_test(tc, three_busy_vcpus_share_one_pcpu_equally);
	tcase_add_test(tc, ticks_run_where_they_preempt);
	tcase_add_test(tc, a_switch_never_moves_the_tick_later);
	tcase_add_test(tc, a_tick_already_next_is_not_looked_again);
	tcase_add_test(tc, a_switch_tells_the_ticks_look_tick_next);
	tcase_add_test(tc, a_switch_pulls_the_tick_back_to_the_grid_point_of_tick_next);
	tcase_add_test(tc, a_switch_that_gives_tick_next_pulls_the_tick_back_the_same);
	tcase_add_test(tc, woken_vcpu_far_left_preempts);
	tcase_add_test(tc, woken_vcpu_within_wakeup_granularity_waits_for_the_tick);
	tcase_add_test(tc, yield_to_runs_a_target_within_granularity_next);
	tcase_add_test(tc, yield_to_a_target_too_far_right_changes_nothing);
	tcase_add_test(tc, yield_to_never_targets_a_running_or_blocked_vcpu);
	tcase_add_test(tc, a_switch_charges_what_ran_since_the_last_charge_once);
	tcase_add_test(tc, yield_to_esrch_when_both_queues_hold_one_task);
	tcase_add_test(tc, affinity_is_never_broken_under_churn);
	tcase_add_test(tc, idle_pcpu_pulls_work_within_affinity);
	tcase_add_test(tc, unpinned_vcpus_spread_one_per_pcpu);
	tcase_add_test(tc, pcpu_going_idle_pulls_at_once);
	tcase_add_test(tc, overcommitted_scenario_shares_add_up_affinity_holds);
	tcase_add_test(tc, bad_params_name_file_line_col);
	tcase_add_test(tc, weight_for_an_unknown_vm_is_an_error);
	tcase_add_test(tc, groups_yield_skips_the_whole_vm);
	tcase_add_test(tc, groups_none_is_the_default);
	tcase_add_test(tc, a_root_schedule_is_the_walk_at_one_level);
	tcase_add_test(tc, an_inline_directed_yield_is_the_call_through_the_class);
	tcase_add_test(tc, skipped_ticks_change_nothing_under_churn);
	tcase_add_test(tc, skipped_ticks_are_the_grid_points_that_did_not_run);
	tcase_add_test(tc, the_tick_preempts_at_the_slice_of_the_queue_as_it_is);
	tcase_add_test(tc, group_shares_follow_the_averaged_load);
	tcase_add_test(tc, a_raise_for_now_overtakes_one_pending_later);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	return tu_main(cfs_suite());
}
