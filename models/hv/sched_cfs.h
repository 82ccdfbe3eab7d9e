/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * sched_cfs.h - what the cfs scheduler shows outside its file (for tests
 * and the timeline exporter); the policy itself is reached only through
 * sched_cfs_ops.
 */
#ifndef VS_SCHED_CFS_H
#define VS_SCHED_CFS_H

#include <stdint.h>

struct fair_rq;
struct fair_se;
struct hv;
struct vcpu;

/* v's vruntime now (ns of nice-0 virtual time), charging a running vCPU up
 * to the current time without changing any state.  hv must run cfs. */
int64_t sched_cfs_vruntime(const struct hv *, const struct vcpu *);

/* cfs's pick_next_entity on a hand-built rq (tests): an on_rq curr is picked
 * as though queued with the seq it holds. */
struct fair_se *sched_cfs_pick(struct fair_rq *rq, int64_t wakeup_gran);
/* Tests: the tick's sched_slice of curr (root, on_rq, nice 0) on rq, as
 * cfs_tick_act takes it (kept in rq beside its inputs). */
int64_t sched_cfs_tick_slice(struct fair_rq *rq, const struct fair_se *curr, int64_t latency,
    int64_t min_gran);

#endif
