/* SPDX-License-Identifier: GPL-2.0-or-later */
/* rig.h - a bare hypervisor for scheduler unit tests: a machine, a scheduler
 * with its parameters, VMs added by the test (header-only, static). */
#ifndef VS_RIG_H
#define VS_RIG_H

#include <check.h>
#include <string.h>

#include "engine.h"
#include "guest/guest.h"
#include "hv/hv.h"
#include "hw/machine.h"
#include "yconf.h"

struct rig {
	struct sim sim;
	struct machine m;
	struct hv hv;
	const struct sched_ops *ops;
	void *cfg;
	struct yc_doc *mdoc, *pdoc;
};

/* machine and params are YAML flow text; params may be NULL. */
static inline void
rig_init(struct rig *r, const struct sched_ops *ops, const char *machine,
    const char *params, sim_time_t end)
{
	struct vs_err err = { "" };

	memset(r, 0, sizeof *r);
	r->ops = ops;
	r->mdoc = yc_load_string("machine", machine, &err);
	ck_assert_msg(r->mdoc != NULL, "%s", err.msg);
	ck_assert_msg(machine_from_yaml(&r->m, yc_root(r->mdoc), &err) == 0, "%s", err.msg);
	if (params != NULL) {
		r->pdoc = yc_load_string("params", params, &err);
		ck_assert_msg(r->pdoc != NULL, "%s", err.msg);
	}
	ck_assert_msg(ops->parse(r->pdoc != NULL ? yc_root(r->pdoc) : NULL, r->m.hz, &r->cfg,
	    &err) == 0, "%s", err.msg);
	sim_init(&r->sim, 1, end);
	hv_init(&r->hv, &r->sim, &r->m, ops, &guest_hv_ops);
}

static inline void
rig_start(struct rig *r)
{
	struct vs_err err = { "" };

	ck_assert_msg(hv_start(&r->hv, r->cfg, &err) == 0, "%s", err.msg);
}

static inline void
rig_free(struct rig *r)
{
	hv_destroy(&r->hv);
	sim_destroy(&r->sim);
	r->ops->free_cfg(r->cfg);
	machine_free(&r->m);
	yc_free(r->mdoc);
	if (r->pdoc != NULL)
		yc_free(r->pdoc);
}

/* Give vCPU v the pCPUs of mask (bit i = pCPU i). */
static inline void
rig_aff(struct rig *r, struct vcpu *v, unsigned mask)
{
	unsigned char *aff = hv_vcpu_affinity(v);
	int i;

	for (i = 0; i < r->hv.npcpus; i++)
		aff[i] = mask >> i & 1;
}

/* Run the rig's simulation up to t. */
static inline void
rig_until(struct rig *r, sim_time_t t)
{
	r->sim.end = t;
	sim_run(&r->sim);
}

/* The pCPU v runs on, -1 if none. */
static inline int
pcpu_of(const struct vcpu *v)
{
	return v->pcpu != NULL ? v->pcpu->id : -1;
}

/*
 * A churn for comparing two runs of one rig: every 97 us a pseudo-random
 * step (a block, a wake, a yield or a directed yield of some vCPU), and a
 * digest of where each vCPU runs at each step and of the switches so far.
 */
struct rig_churn {
	struct rig *r;
	uint64_t x, digest;
};

static inline uint64_t
rig_churn_rand(struct rig_churn *c)
{
	c->x = c->x * 6364136223846793005ULL + 1442695040888963407ULL;
	return c->x >> 33;
}

static void
rig_churn_ev(void *s, void *arg, int64_t data)
{
	struct rig_churn *c = arg;
	struct hv *hv = &c->r->hv;
	struct vcpu *v = hv->vcpus[rig_churn_rand(c) % (uint64_t)hv->nvcpus];
	struct vcpu *t = hv->vcpus[rig_churn_rand(c) % (uint64_t)hv->nvcpus];
	int i;

	(void)s;
	(void)data;
	switch (rig_churn_rand(c) % 4) {
	case 0:
		if (!v->blocked)
			hv_block(v);
		break;
	case 1:
		hv_wake(v);
		break;
	case 2:
		if (v->pcpu != NULL && !v->blocked)
			hv_yield(v);
		break;
	default:
		if (v->pcpu != NULL && !v->blocked && t != v)
			hv_yield_to(v, t);
		break;
	}
	for (i = 0; i < hv->nvcpus; i++)
		c->digest = c->digest * 31 + (uint64_t)(pcpu_of(hv->vcpus[i]) + 1);
	c->digest = c->digest * 31 + hv->st.ctx_switches;
	sim_after(&c->r->sim, 97000, rig_churn_ev, c, 0);
}

static inline void
rig_churn_start(struct rig_churn *c, struct rig *r, uint64_t seed)
{
	c->r = r;
	c->x = seed;
	c->digest = 0;
	sim_after(&r->sim, 97000, rig_churn_ev, c, 0);
}

/* What two churned runs of one rig must agree on, switch for switch. */
struct rig_churn_end {
	uint64_t digest, switches;
	int64_t vruntime;	/* one vCPU's, as the caller reads it */
};

static inline struct rig_churn_end
rig_churn_end(const struct rig_churn *c, int64_t vruntime)
{
	struct rig_churn_end e = { c->digest, c->r->hv.st.ctx_switches, vruntime };

	return e;
}

/* Run a and run b agree, and a switched more than min_switches times. */
static inline void
rig_churn_same(const struct rig_churn_end *a, const struct rig_churn_end *b,
    uint64_t min_switches)
{
	ck_assert_uint_gt(a->switches, min_switches);
	ck_assert_uint_eq(a->switches, b->switches);
	ck_assert_uint_eq(a->digest, b->digest);
	ck_assert_int_eq(a->vruntime, b->vruntime);
}

#endif
