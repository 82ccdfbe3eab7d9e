/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * bench_evq.c - binary vs 4-ary indexed heap on a hold-model workload.
 *
 * Not part of make check (timings are not tests).  Build and run by hand:
 *   gcc -std=c11 -D_POSIX_C_SOURCE=200809L -D_DEFAULT_SOURCE -O2 -Isim/engine \
 *       sim/engine/util.c sim/engine/evq.c tests/bench_evq.c -lm -o /tmp/bench_evq && /tmp/bench_evq
 *
 * Hold model: N events pending; each operation either pops the earliest
 * event and pushes a successor at time + Exp(mean), or (20% of operations)
 * cancels a random pending event and pushes a replacement, so the queue
 * size stays N.  The two heaps here are the same code with arity 2 and 4
 * (same 16-byte entries, same slot table), so only the arity differs; the
 * real evq (payload in the slot table, generation checks) is measured too.
 * ns/op includes the RNG and loop, printed as "baseline".
 */
#include "evq.h"
#include "util.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define SLOT_BITS 20
#define SLOT_MASK ((1u << SLOT_BITS) - 1)

struct hent {
	int64_t time;
	uint64_t key;
};

struct bslot {
	int64_t data;
	uint32_t pos;
	uint32_t gen;
};

struct bheap {
	struct hent *base, *h;
	size_t n;
	struct bslot *slots;
	uint32_t *freel;
	size_t nfree, nslots;
	uint64_t seq;
};

/* Branch-free compare for the 4-way tournament (as in sim/engine/evq.c); the
 * binary heap is faster with the branchy one, so each arity gets its best. */
static inline int
hless_bl(const struct hent *a, const struct hent *b)
{
	return (a->time < b->time) | ((a->time == b->time) & (a->key < b->key));
}

static inline int
hless(const struct hent *a, const struct hent *b)
{
	return a->time < b->time || (a->time == b->time && a->key < b->key);
}

/* One copy of the indexed heap per arity D; the pad puts siblings in one line. */
#define DEFINE_HEAP(NAME, D)						\
static void								\
NAME##_init(struct bheap *q, size_t cap)				\
{									\
	memset(q, 0, sizeof *q);					\
	q->base = aligned_alloc(64, ((cap + D) * sizeof(struct hent) + 63) & ~(size_t)63); \
	q->h = q->base + (D - 1);					\
	q->slots = xcalloc(cap, sizeof *q->slots);			\
	q->freel = xmalloc(cap * sizeof *q->freel);			\
}									\
static inline void							\
NAME##_put(struct bheap *q, size_t i, struct hent e)			\
{									\
	q->h[i] = e;							\
	q->slots[e.key & SLOT_MASK].pos = (uint32_t)i;			\
}									\
static inline void							\
NAME##_up(struct bheap *q, size_t i, struct hent e)			\
{									\
	while (i > 0) {							\
		size_t p = (i - 1) / D;					\
		if (!hless(&e, &q->h[p]))				\
			break;						\
		NAME##_put(q, i, q->h[p]);				\
		i = p;							\
	}								\
	NAME##_put(q, i, e);						\
}									\
static inline void							\
NAME##_down(struct bheap *q, size_t i, struct hent e)			\
{									\
	for (;;) {							\
		size_t c = D * i + 1, m = c, end;			\
		if (c >= q->n)						\
			break;						\
		if (D == 4 && c + 3 < q->n) {				\
			size_t a = c + hless_bl(&q->h[c + 1], &q->h[c]); \
			size_t b = c + 2 + hless_bl(&q->h[c + 3], &q->h[c + 2]); \
			m = hless_bl(&q->h[b], &q->h[a]) ? b : a;	\
		} else {						\
			end = c + D < q->n ? c + D : q->n;		\
			for (c++; c < end; c++)				\
				if (hless(&q->h[c], &q->h[m]))		\
					m = c;				\
		}							\
		if (!hless(&q->h[m], &e))				\
			break;						\
		NAME##_put(q, i, q->h[m]);				\
		i = m;							\
	}								\
	NAME##_put(q, i, e);						\
}									\
static uint32_t								\
NAME##_push(struct bheap *q, int64_t t, int64_t data)			\
{									\
	uint32_t s = q->nfree ? q->freel[--q->nfree] : (uint32_t)q->nslots++; \
	struct hent e = { t, (q->seq++ << SLOT_BITS) | s };		\
	q->slots[s].data = data;					\
	NAME##_up(q, q->n++, e);					\
	return (s + 1) | (q->slots[s].gen << SLOT_BITS);		\
}									\
static void								\
NAME##_remove(struct bheap *q, size_t i)				\
{									\
	struct hent last = q->h[--q->n];				\
	if (i == q->n)							\
		return;							\
	if (i > 0 && hless(&last, &q->h[(i - 1) / D]))			\
		NAME##_up(q, i, last);					\
	else								\
		NAME##_down(q, i, last);				\
}									\
static void								\
NAME##_release(struct bheap *q, uint32_t s)				\
{									\
	q->slots[s].gen = (q->slots[s].gen + 1) & 0xfff;		\
	q->slots[s].pos = UINT32_MAX;					\
	q->freel[q->nfree++] = s;					\
}									\
static int								\
NAME##_cancel(struct bheap *q, uint32_t id)				\
{									\
	uint32_t s = (id & SLOT_MASK) - 1;				\
	if (q->slots[s].gen != id >> SLOT_BITS || q->slots[s].pos == UINT32_MAX) \
		return 0;						\
	NAME##_remove(q, q->slots[s].pos);				\
	NAME##_release(q, s);						\
	return 1;							\
}									\
static int								\
NAME##_pop(struct bheap *q, int64_t *t, int64_t *data)			\
{									\
	uint32_t s;							\
	if (q->n == 0)							\
		return 0;						\
	s = q->h[0].key & SLOT_MASK;					\
	*t = q->h[0].time;						\
	*data = q->slots[s].data;					\
	NAME##_remove(q, 0);						\
	NAME##_release(q, s);						\
	return 1;							\
}

DEFINE_HEAP(bin, 2)
DEFINE_HEAP(quad, 4)

static uint64_t
xs(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

/* Exp(mean) in ns, mean 1 ms; never 0 so ties stay rare but possible. */
static int64_t
expo(uint64_t *s)
{
	double u = ((xs(s) >> 11) + 1) * 0x1.0p-53;

	return (int64_t)(-log(u) * 1e6);
}

static double
now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec * 1e-9;
}

#define RUN_HOLD(NAME, N, OPS, RES) do {				\
	struct bheap q;							\
	uint32_t *ids = xmalloc((N) * sizeof *ids);			\
	uint64_t rs = 88172645463325252ULL;				\
	int64_t t = 0, d = 0;					\
	size_t k;							\
	double t0;							\
	NAME##_init(&q, (N) + 1);					\
	for (k = 0; k < (N); k++)					\
		ids[k] = NAME##_push(&q, expo(&rs), (int64_t)k);	\
	t0 = now_s();							\
	for (k = 0; k < (OPS); k++) {					\
		uint64_t r = xs(&rs);					\
		if (r % 5 == 0) {					\
			size_t ci = (r >> 8) % (N);			\
			if (!NAME##_cancel(&q, ids[ci]))			\
				abort();				\
			ids[ci] = NAME##_push(&q, t + expo(&rs), (int64_t)ci); \
		} else {						\
			NAME##_pop(&q, &t, &d);				\
			ids[d] = NAME##_push(&q, t + expo(&rs), d);	\
		}							\
	}								\
	(RES) = (now_s() - t0) * 1e9 / (OPS);				\
	free(q.base); free(q.slots); free(q.freel); free(ids);		\
} while (0)

static double
run_evq(size_t n, size_t ops)
{
	struct evq *q = evq_new();
	evq_id *ids = xmalloc(n * sizeof *ids);
	uint64_t rs = 88172645463325252ULL;
	struct evq_ev ev;
	int64_t t = 0;
	size_t k;
	double t0, res;

	for (k = 0; k < n; k++)
		ids[k] = evq_push(q, expo(&rs), NULL, NULL, (int64_t)k);
	t0 = now_s();
	for (k = 0; k < ops; k++) {
		uint64_t r = xs(&rs);

		if (r % 5 == 0) {
			size_t i = (r >> 8) % n;

			if (!evq_cancel(q, ids[i]))
				abort();
			ids[i] = evq_push(q, t + expo(&rs), NULL, NULL, (int64_t)i);
		} else {
			evq_pop(q, &ev);
			t = ev.time;
			ids[ev.data] = evq_push(q, t + expo(&rs), NULL, NULL, ev.data);
		}
	}
	res = (now_s() - t0) * 1e9 / ops;
	free(ids);
	evq_free(q);
	return res;
}

/* The RNG and loop alone, so the heap's share can be read off. */
static double
run_base(size_t ops)
{
	uint64_t rs = 88172645463325252ULL;
	volatile int64_t sink = 0;
	size_t k;
	double t0 = now_s();

	for (k = 0; k < ops; k++)
		sink += xs(&rs) % 5 + expo(&rs);
	return (now_s() - t0) * 1e9 / ops;
}

int
main(int argc, char **argv)
{
	static const size_t sizes[] = { 1000, 100000 };
	size_t ops = argc > 1 ? strtoull(argv[1], NULL, 10) : 10000000;
	size_t i;
	int rep;

	printf("hold model, %zu ops, 20%% cancel+push, 80%% pop+push; ns/op (best of 3)\n", ops);
	printf("baseline (rng+loop only): %.1f\n", run_base(ops));
	printf("%10s %12s %12s %12s\n", "pending", "binary", "4-ary", "evq");
	for (i = 0; i < 2; i++) {
		size_t n = sizes[i];
		double b = 1e30, qd = 1e30, e = 1e30, x;

		for (rep = 0; rep < 3; rep++) {
			RUN_HOLD(bin, n, ops, x);
			if (x < b)
				b = x;
			RUN_HOLD(quad, n, ops, x);
			if (x < qd)
				qd = x;
			x = run_evq(n, ops);
			if (x < e)
				e = x;
		}
		printf("%10zu %12.1f %12.1f %12.1f\n", n, b, qd, e);
	}
	return 0;
}
