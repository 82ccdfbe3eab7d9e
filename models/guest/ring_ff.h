/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * ring_ff.h - the ring fast-forward: whole cycles of a lock's hand-overs
 * taken at once where the run provably repeats (ring_ff.c).
 */
#ifndef VS_RING_FF_H
#define VS_RING_FF_H

#include <stdint.h>

#include "guest/lock.h"

void ring_ff_look(struct glock *, struct vcpu *);

/* v takes l from a waiter's spin (a hand-over): at a look's turn, the
 * fast-forward looks (the test inline: one compare an acquisition). */
static inline void
ring_ff_turn(struct glock *l, struct vcpu *v)
{
	if (__builtin_expect(l->st.acquisitions >= l->ring_at, 0))
		ring_ff_look(l, v);
}

#endif
