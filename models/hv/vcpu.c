/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * vcpu.c - runstate changes and their exact time accounting (vcpu.h).
 */
#include "hv/vcpu.h"

#include "util.h"

static const char *const rs_names[RS_N] = { "running", "runnable", "blocked", "offline" };

/* Xen 4.2 schedule.c: vcpu_runstate_change (time charged to the old state);
 * now >= rs_since: the model passes the engine's clock, which never goes
 * back (sim_run asserts it at every event), twice at every switch */
void
vcpu_set_runstate(struct vcpu *v, enum runstate rs, sim_time_t now)
{
	v->rs_time[v->rs] += now - v->rs_since;
	v->rs_since = now;
	v->rs = rs;
}

void
vcpu_account(struct vcpu *v, sim_time_t now)
{
	vcpu_set_runstate(v, v->rs, now);
}

sim_time_t
vcpu_rs_measured(const struct vcpu *v, enum runstate rs)
{
	return v->rs_time[rs] - v->rs_base[rs];
}

/* rs_since stays: a scheduler reads the current stint (sched_credit.c). */
void
vcpu_rs_rebase(struct vcpu *v, sim_time_t now)
{
	int k;

	for (k = 0; k < RS_N; k++)
		v->rs_base[k] = v->rs_time[k] + (k == (int)v->rs ? now - v->rs_since : 0);
}

const char *
runstate_name(enum runstate rs)
{
	return rs_names[rs];
}
