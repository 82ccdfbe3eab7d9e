/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * sched_eevdf.h - what the eevdf scheduler shows outside its file (for
 * tests); the policy itself is reached only through sched_eevdf_ops.
 */
#ifndef VS_SCHED_EEVDF_H
#define VS_SCHED_EEVDF_H

#include <stdint.h>

struct hv;
struct vcpu;

/* v's virtual deadline and saved lag (ns of nice-0 virtual time). */
int64_t sched_eevdf_deadline(const struct hv *, const struct vcpu *);
int64_t sched_eevdf_lag(const struct hv *, const struct vcpu *);
/* V - v_i now, on v's rq (the lag it would save if dequeued now, unclamped). */
int64_t sched_eevdf_lag_now(const struct hv *, const struct vcpu *);

/* For tests: pick_next_entity on a hand-built rq with these features. */
struct fair_rq;
struct fair_se *sched_eevdf_pick(struct fair_rq *, int run_to_parity, int next_buddy);
/* For tests: set_next_entity of se on rq (hv: its clock). */
struct fair_se;
void sched_eevdf_set_next(struct hv *, struct fair_rq *, struct fair_se *);

#endif
