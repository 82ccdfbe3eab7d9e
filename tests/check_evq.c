/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * check_evq.c - event queue: order, ties, cancel, stale ids, a long
 * randomized run against a sorted reference array, and evq_move against
 * cancel + push; the small (sorted) and large (heap) forms, and the near
 * and far parts (the far front too), against the reference; ghosts against
 * the real events.
 */
#include "ckpass.h"
#include "evq.h"
#include "util.h"

#include <signal.h>
#include <stdlib.h>
#include <string.h>

static void
count_fn(void *ctx, void *arg, int64_t data)
{
	(*(int *)arg)++;
}

START_TEST(test_order_by_time)
{
	static const sim_time_t ts[] = { 50, 10, 40, 30, 20, 70, 60, 0, 90, 80 };
	struct evq *q = evq_new();
	struct evq_ev ev;
	sim_time_t last = -1;
	size_t i;

	ck_assert_int_eq(evq_peek_time(q), INT64_MAX);
	for (i = 0; i < sizeof ts / sizeof ts[0]; i++)
		ck_assert_uint_ne(evq_push(q, ts[i], NULL, NULL, (int64_t)i), EVQ_NONE);
	ck_assert_uint_eq(evq_size(q), 10);
	ck_assert_int_eq(evq_peek_time(q), 0);
	for (i = 0; i < 10; i++) {
		ck_assert_int_eq(evq_pop(q, &ev), 1);
		ck_assert_int_eq(ev.time, (sim_time_t)i * 10);
		ck_assert_int_gt(ev.time, last);
		ck_assert_int_eq(ts[ev.data], ev.time);
		last = ev.time;
	}
	ck_assert_int_eq(evq_pop(q, &ev), 0);
	ck_assert_uint_eq(evq_size(q), 0);
	evq_free(q);
}
END_TEST

START_TEST(test_ties_fifo)
{
	struct evq *q = evq_new();
	struct evq_ev ev;
	int64_t i;

	/* Interleave two times so the heap must reorder, not just append. */
	for (i = 0; i < 200; i++)
		evq_push(q, (i % 2) ? 5 : 7, NULL, NULL, i);
	for (i = 0; i < 100; i++) {
		ck_assert_int_eq(evq_pop(q, &ev), 1);
		ck_assert_int_eq(ev.time, 5);
		ck_assert_int_eq(ev.data, 2 * i + 1);
	}
	for (i = 0; i < 100; i++) {
		ck_assert_int_eq(evq_pop(q, &ev), 1);
		ck_assert_int_eq(ev.time, 7);
		ck_assert_int_eq(ev.data, 2 * i);
	}
	evq_free(q);
}
END_TEST

START_TEST(test_cancel)
{
	struct evq *q = evq_new();
	struct evq_ev ev;
	int fired = 0, other = 0;
	evq_id a, b, c;

	a = evq_push(q, 10, count_fn, &other, 1);
	b = evq_push(q, 20, count_fn, &fired, 2);
	c = evq_push(q, 30, count_fn, &other, 3);
	ck_assert(a != b && b != c && a != c);
	ck_assert_int_eq(evq_pending(q, b), 1);
	ck_assert_int_eq(evq_cancel(q, b), 1);
	ck_assert_int_eq(evq_pending(q, b), 0);
	ck_assert_int_eq(evq_cancel(q, b), 0);		/* twice */
	ck_assert_uint_eq(evq_size(q), 2);
	while (evq_pop(q, &ev)) {
		ck_assert_int_ne(ev.data, 2);
		ev.fn(NULL, ev.arg, ev.data);
	}
	ck_assert_int_eq(fired, 0);
	ck_assert_int_eq(other, 2);
	/* Fired ids are stale too, even once their slots are reused. */
	ck_assert_int_eq(evq_cancel(q, a), 0);
	ck_assert_int_eq(evq_cancel(q, c), 0);
	ck_assert_int_eq(evq_pending(q, a), 0);
	evq_push(q, 1, NULL, NULL, 0);
	evq_push(q, 2, NULL, NULL, 0);
	evq_push(q, 3, NULL, NULL, 0);
	ck_assert_int_eq(evq_cancel(q, a), 0);
	ck_assert_int_eq(evq_cancel(q, b), 0);
	ck_assert_int_eq(evq_cancel(q, c), 0);
	ck_assert_uint_eq(evq_size(q), 3);
	ck_assert_int_eq(evq_cancel(q, EVQ_NONE), 0);
	ck_assert_int_eq(evq_cancel(q, 0xfffff), 0);	/* never issued */
	evq_free(q);
}
END_TEST

/* evq_push_key's id names its event as evq_push's does: pending until it
 * pops or is cancelled, then stale, also once its slot is filed again */
START_TEST(test_push_key_ids)
{
	struct evq *q = evq_new();
	struct evq_ev ev;
	uint64_t k1 = evq_reserve(q), k2 = evq_reserve(q);
	evq_id a, b, c;

	b = evq_push_key(q, 10, k2, NULL, NULL, 2);
	a = evq_push_key(q, 10, k1, NULL, NULL, 1);
	ck_assert(evq_pending(q, a) && evq_pending(q, b));
	ck_assert_int_eq(evq_cancel(q, b), 1);
	ck_assert(!evq_pending(q, b));
	/* b's slot, the latest freed, stays free (evq.c: the free list's
	 * sentinel): c is not b, nor would it be in b's slot */
	c = evq_push_key(q, 20, evq_reserve(q), NULL, NULL, 3);
	ck_assert_uint_ne(c, b);
	ck_assert(evq_pending(q, c) && !evq_pending(q, b));
	ck_assert_int_eq(evq_cancel(q, b), 0);
	ck_assert_int_eq(evq_pop(q, &ev), 1);
	ck_assert_int_eq(ev.data, 1);
	ck_assert(!evq_pending(q, a) && evq_pending(q, c));
	ck_assert_int_eq(evq_cancel(q, a), 0);
	ck_assert_int_eq(evq_cancel(q, c), 1);
	ck_assert_int_eq(evq_pop(q, &ev), 0);
	evq_free(q);
}
END_TEST

/* A slot's index: an id's low bits, less one (evq.c). */
static unsigned
slot_ix(evq_id id)
{
	return (id & 0xfffff) - 1;
}

/*
 * Freed slots are handed out oldest-first, but never the latest freed (the
 * free list's sentinel, evq.c slot_alloc): after five pops the next five
 * pushes take the slot that was free first and four of the five, in the
 * order they were freed, and the sixth a new slot; ids of the popped
 * events stay stale.
 */
START_TEST(test_free_slots_oldest_first_but_the_last)
{
	struct evq *q = evq_new();
	struct evq_ev ev;
	evq_id a[5], b[6];
	unsigned first;
	int i, j;

	for (i = 0; i < 5; i++)
		a[i] = evq_push(q, 10 + i, NULL, NULL, i);
	first = slot_ix(a[0]);
	for (i = 0; i < 5; i++)
		ck_assert_int_eq(evq_pop(q, &ev), 1);
	for (i = 0; i < 6; i++)
		b[i] = evq_push(q, 20 + i, NULL, NULL, i);
	/* the queue's first free slot (before a[0]'s), then a[0..3]'s */
	ck_assert_uint_ne(slot_ix(b[0]), slot_ix(a[4]));
	ck_assert_uint_lt(slot_ix(b[0]), first);
	for (i = 1; i < 5; i++)
		ck_assert_uint_eq(slot_ix(b[i]), slot_ix(a[i - 1]));
	ck_assert_uint_gt(slot_ix(b[5]), slot_ix(a[4]));
	for (i = 0; i < 5; i++) {
		ck_assert(!evq_pending(q, a[i]));
		ck_assert_int_eq(evq_cancel(q, a[i]), 0);
	}
	for (i = 0; i < 6; i++)
		ck_assert(evq_pending(q, b[i]));
	/* churn: a live id stays pending, a fired or cancelled one stale */
	srand(7);
	for (i = 0; i < 20000; i++) {
		j = rand() % 6;
		if (rand() % 3 == 0) {
			ck_assert_int_eq(evq_cancel(q, b[j]), 1);
			ck_assert_int_eq(evq_cancel(q, b[j]), 0);
		} else {
			ck_assert_int_eq(evq_pop(q, &ev), 1);
			j = (int)ev.data;
			ck_assert(!evq_pending(q, b[j]));
		}
		b[j] = evq_push(q, ev.time + 1 + rand() % 50, NULL, NULL, j);
		ck_assert_uint_eq(evq_size(q), 6);
		for (int k = 0; k < 6; k++)
			ck_assert(evq_pending(q, b[k]));
	}
	evq_free(q);
}
END_TEST

START_TEST(test_cancel_root_and_last)
{
	struct evq *q = evq_new();
	struct evq_ev ev;
	evq_id first, last;

	first = evq_push(q, 1, NULL, NULL, 1);
	evq_push(q, 2, NULL, NULL, 2);
	last = evq_push(q, 3, NULL, NULL, 3);
	ck_assert_int_eq(evq_cancel(q, first), 1);
	ck_assert_int_eq(evq_peek_time(q), 2);
	ck_assert_int_eq(evq_cancel(q, last), 1);
	ck_assert_int_eq(evq_pop(q, &ev), 1);
	ck_assert_int_eq(ev.data, 2);
	ck_assert_int_eq(evq_pop(q, &ev), 0);
	evq_free(q);
}
END_TEST

/* Reference: an unsorted array of live events; min is found by scanning. */
struct ref {
	sim_time_t time;
	uint64_t seq;
	int64_t data;
	evq_id id;
};

static uint64_t
xs64(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

static int
ref_cmp(const void *a, const void *b)
{
	const struct ref *x = a, *y = b;

	if (x->time != y->time)
		return x->time < y->time ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/* 100000 random pushes, cancels and pops against the reference, with at
 * most maxn pending (a push past it pops instead); with maxn bounded, 7 in
 * 8 pushes are at or after the latest pushed time, so the entries move on
 * through the array. */
static void
random_vs_reference(size_t maxn)
{
	sim_time_t last = 0;
	struct evq *q = evq_new();
	struct ref *r = xmalloc(100000 * sizeof *r);
	evq_id *dead = xmalloc(100000 * sizeof *dead);
	size_t n = 0, ndead = 0, k, i;
	uint64_t s = 0x243f6a8885a308d3ULL, seq = 0;
	struct evq_ev ev;
	sim_time_t now = 0;

	for (k = 0; k < 100000; k++) {
		uint64_t x = xs64(&s);
		unsigned op = x % 10;

		if (n == 0 || (op < 5 && n < maxn)) {
			/* Narrow time range so ties are frequent. */
			r[n].time = now + (sim_time_t)((x >> 8) % 64);
			if (maxn != SIZE_MAX && (x >> 32) % 8 != 0)
				r[n].time = last + (sim_time_t)((x >> 8) % 4);
			last = r[n].time > last ? r[n].time : last;
			r[n].seq = seq++;
			r[n].data = (int64_t)k;
			r[n].id = evq_push(q, r[n].time, NULL, NULL, r[n].data);
			ck_assert_uint_ne(r[n].id, EVQ_NONE);
			n++;
		} else if (op >= 5 && op < 7) {
			i = (x >> 8) % n;
			ck_assert_int_eq(evq_cancel(q, r[i].id), 1);
			dead[ndead++] = r[i].id;
			r[i] = r[--n];
		} else {
			qsort(r, n, sizeof *r, ref_cmp);
			ck_assert_int_eq(evq_peek_time(q), r[0].time);
			ck_assert_int_eq(evq_pop(q, &ev), 1);
			ck_assert_int_eq(ev.time, r[0].time);
			ck_assert_int_eq(ev.data, r[0].data);
			dead[ndead++] = r[0].id;
			now = ev.time;
			r[0] = r[--n];
		}
		ck_assert_uint_eq(evq_size(q), n);
		/* Some recently dead id must be refused (with few slots, one
		 * of the latest 1000: an id aliases after 4096 reuses). */
		if (ndead > 0 && (x >> 40) % 4 == 0) {
			size_t w = maxn == SIZE_MAX || ndead < 1000 ? ndead : 1000;
			evq_id d = dead[ndead - w + (x >> 20) % w];

			ck_assert_int_eq(evq_pending(q, d), 0);
			ck_assert_int_eq(evq_cancel(q, d), 0);
		}
	}
	qsort(r, n, sizeof *r, ref_cmp);
	for (i = 0; i < n; i++) {
		ck_assert_int_eq(evq_pending(q, r[i].id), 1);
		ck_assert_int_eq(evq_pop(q, &ev), 1);
		ck_assert_int_eq(ev.time, r[i].time);
		ck_assert_int_eq(ev.data, r[i].data);
	}
	ck_assert_int_eq(evq_pop(q, &ev), 0);
	free(r);
	free(dead);
	evq_free(q);
}

START_TEST(test_random_vs_reference)
{
	random_vs_reference(SIZE_MAX);
}
END_TEST

/* Few pending, so the queue stays a sorted array, which pops walk to the
 * end of its room and pushes then move to the front (sorted_insert_room). */
START_TEST(test_random_sorted_vs_reference)
{
	random_vs_reference(6);
}
END_TEST

/* Pop the earliest event of a and of b, which must be the same one. */
static void
pop_same(struct evq *a, struct evq *b, struct evq_ev *ev)
{
	struct evq_ev eb;

	ck_assert_int_eq(evq_pop(a, ev), 1);
	ck_assert_int_eq(evq_pop(b, &eb), 1);
	ck_assert_int_eq(ev->time, eb.time);
	ck_assert_uint_eq(ev->seq, eb.seq);
	ck_assert_int_eq(ev->data, eb.data);
}

/* evq_move gives the order of cancel + push, ties included, and a stale id pushes. */
START_TEST(test_move_as_cancel_push)
{
	struct evq *a = evq_new(), *b = evq_new();
	evq_id ida[64], idb[64];
	uint64_t s = 0x9e3779b97f4a7c15ULL;
	struct evq_ev ea, eb;
	sim_time_t now = 0;
	int k, i;

	for (i = 0; i < 64; i++) {
		ida[i] = evq_push(a, i % 8, NULL, NULL, i);
		idb[i] = evq_push(b, i % 8, NULL, NULL, i);
	}
	for (k = 0; k < 200000; k++) {
		uint64_t x = xs64(&s);
		sim_time_t t = now + (sim_time_t)((x >> 8) % 16);	/* ties are frequent */

		i = (int)((x >> 32) % 64);
		if (x % 3 == 0) {
			/* Pop from both, then re-arm the popped one (a stale id for b). */
			pop_same(a, b, &ea);
			now = ea.time;
			i = (int)ea.data;
			ck_assert_int_eq(evq_pending(b, idb[i]), 0);
			t = now + (sim_time_t)((x >> 8) % 16);
		} else
			ck_assert_int_eq(evq_cancel(a, ida[i]), 1);
		if (x % 5 == 1 && evq_pending(b, idb[i]))
			t = now + (sim_time_t)((x >> 16) % 2);	/* often the same time again */
		ida[i] = evq_push(a, t, NULL, NULL, i);
		idb[i] = evq_move(b, idb[i], t, NULL, NULL, i);
		ck_assert_int_eq(evq_pending(b, idb[i]), 1);
		ck_assert_uint_eq(evq_size(a), evq_size(b));
	}
	while (evq_size(a) > 0)
		pop_same(a, b, &ea);
	ck_assert_int_eq(evq_pop(b, &eb), 0);
	evq_free(a);
	evq_free(b);
}
END_TEST

/*
 * FIFO lanes keep the heap's order exactly: queue a uses only the heap, b
 * files fixed-delay pushes in lanes (and the odd out-of-order one, which must
 * fall back to the heap); pushes, cancels, moves and pops agree in time, seq
 * and payload, rings grow past their first size, and stale ids are refused.
 */
START_TEST(test_lanes_as_heap)
{
	enum { N = 512 };
	static const sim_time_t delay[3] = { 1000, 250, 1000 };	/* two share a lane */
	struct evq *a = evq_new(), *b = evq_new();
	evq_id ida[N], idb[N];
	int lane[3], live[N], nlive = 0, k, i, j;
	uint64_t s = 0x452821e638d01377ULL;
	struct evq_ev ea, eb;
	sim_time_t now = 0;

	for (i = 0; i < 3; i++)
		lane[i] = evq_lane(b, delay[i]);
	ck_assert_int_eq(lane[0], lane[2]);
	ck_assert_int_ne(lane[0], lane[1]);
	for (i = 0; i < EVQ_LANES + 2; i++)	/* all lanes taken: -1 */
		j = evq_lane(b, 7 + i);
	ck_assert_int_eq(j, -1);
	ck_assert_int_eq(evq_lane(b, 1000), lane[0]);
	for (k = 0; k < 400000; k++) {
		uint64_t x = xs64(&s);
		unsigned op = (unsigned)(x % 16);
		sim_time_t t;

		if (nlive < N && (op < 7 || nlive == 0)) {
			int l = (int)((x >> 8) % 4);	/* 3: a plain push */

			i = nlive++;
			live[i] = k;
			if (l < 3 && (x >> 12) % 8 != 0) {
				t = now + delay[l];
				ida[i] = evq_push(a, t, NULL, NULL, k);
				idb[i] = evq_push_lane(b, lane[l], t, NULL, NULL, k);
			} else {	/* anywhere, lane or not: often before a lane's tail */
				t = now + (sim_time_t)((x >> 16) % 1200);
				ida[i] = evq_push(a, t, NULL, NULL, k);
				idb[i] = (x >> 30) % 2 ? evq_push_lane(b, lane[(x >> 31) % 2], t, NULL, NULL, k) :
				    evq_push(b, t, NULL, NULL, k);
			}
		} else if (op < 9 && nlive > 0) {
			i = (int)((x >> 8) % (unsigned)nlive);
			ck_assert_int_eq(evq_cancel(a, ida[i]), 1);
			ck_assert_int_eq(evq_cancel(b, idb[i]), 1);
			ck_assert_int_eq(evq_pending(b, idb[i]), 0);
			ck_assert_int_eq(evq_cancel(b, idb[i]), 0);
			nlive--;
			ida[i] = ida[nlive];
			idb[i] = idb[nlive];
			live[i] = live[nlive];
		} else if (op < 10 && nlive > 0) {
			i = (int)((x >> 8) % (unsigned)nlive);
			t = now + (sim_time_t)((x >> 16) % 1100);
			ck_assert_int_eq(evq_cancel(a, ida[i]), 1);
			ida[i] = evq_push(a, t, NULL, NULL, live[i]);
			idb[i] = evq_move(b, idb[i], t, NULL, NULL, live[i]);
		} else {
			ck_assert_int_eq(evq_peek_time(a), evq_peek_time(b));
			pop_same(a, b, &ea);
			now = ea.time;
			for (i = 0; i < nlive && live[i] != (int)ea.data; i++)
				;
			ck_assert_int_lt(i, nlive);
			ck_assert_int_eq(evq_pending(b, idb[i]), 0);
			nlive--;
			ida[i] = ida[nlive];
			idb[i] = idb[nlive];
			live[i] = live[nlive];
		}
		ck_assert_uint_eq(evq_size(a), evq_size(b));
		ck_assert_uint_eq(evq_size(b), (size_t)nlive);
	}
	while (evq_size(a) > 0)
		pop_same(a, b, &ea);
	ck_assert_int_eq(evq_pop(b, &eb), 0);
	ck_assert_int_eq(evq_peek_time(b), INT64_MAX);
	evq_free(a);
	evq_free(b);
}
END_TEST

/* Early events (evq_push_early, the host tick) pop before every ordinary
 * event of their time, in push order among themselves; in the heap, in a
 * lane (an early push after an ordinary one of the same time leaves the
 * lane), and after a move, which keeps the class. */
START_TEST(test_early_first)
{
	struct evq *q = evq_new();
	int lane = evq_lane(q, 100);
	struct evq_ev ev;
	evq_id m;
	static const int64_t want[] = { 3, 5, 6, 1, 2, 4, 7, 8, 9 };
	size_t i;

	evq_push(q, 10, NULL, NULL, 1);
	evq_push_lane(q, lane, 10, NULL, NULL, 2);
	evq_push_early(q, 10, NULL, NULL, 3);
	evq_push(q, 10, NULL, NULL, 4);
	evq_push_lane_early(q, lane, 10, NULL, NULL, 5);	/* after an ordinary 10 */
	m = evq_push_early(q, 30, NULL, NULL, 6);
	evq_push(q, 20, NULL, NULL, 7);
	ck_assert_uint_ne(evq_move(q, m, 10, NULL, NULL, 6), EVQ_NONE);	/* still early */
	evq_push_lane(q, lane, 20, NULL, NULL, 8);
	m = evq_push_lane(q, lane, 25, NULL, NULL, 9);
	ck_assert_uint_ne(evq_move(q, m, 20, NULL, NULL, 9), EVQ_NONE);	/* still ordinary */
	for (i = 0; i < sizeof want / sizeof want[0]; i++) {
		ck_assert_int_eq(evq_pop(q, &ev), 1);
		ck_assert_int_eq(ev.data, want[i]);
	}
	ck_assert_int_eq(evq_pop(q, &ev), 0);
	evq_free(q);
}
END_TEST

/*
 * The queue keeps few events in a sorted array and many in the heap, and
 * changes between the two as the count crosses its bounds: a count that
 * wanders between 0 and 40 (both bounds crossed many times), with pushes,
 * early pushes, cancels, moves and pops, against the reference, in time,
 * seq and payload; a stale id is refused in either form.
 */
START_TEST(test_small_and_large_as_reference)
{
	enum { MAXN = 64 };
	struct evq *q = evq_new();
	struct ref r[MAXN];
	uint64_t s = 0x452821e638d01377ULL, seq = 0;
	size_t n = 0, lim = 0, i, k;
	evq_id stale = EVQ_NONE;
	struct evq_ev ev;
	sim_time_t now = 0;

	for (k = 0; k < 200000; k++) {
		uint64_t x = xs64(&s);
		unsigned op = x % 8;
		sim_time_t t = now + (sim_time_t)((x >> 8) % 32);	/* ties are frequent */

		if (k % 400 == 0)
			lim = (x >> 32) % 41;
		if (n < lim && (op < 4 || n == 0)) {
			r[n].time = t;
			r[n].seq = seq++;
			r[n].data = (int64_t)k;
			r[n].id = evq_push(q, t, NULL, NULL, r[n].data);
			n++;
		} else if (n == 0) {
			continue;
		} else if (op == 4 || (n > lim && op < 4)) {
			i = (x >> 16) % n;
			ck_assert_int_eq(evq_cancel(q, r[i].id), 1);
			stale = r[i].id;
			r[i] = r[--n];
		} else if (op == 5) {
			i = (x >> 16) % n;
			r[i].time = t;
			r[i].seq = seq++;
			r[i].data = -(int64_t)k;
			ck_assert_uint_eq(evq_move(q, r[i].id, t, NULL, NULL, r[i].data), r[i].id);
		} else {
			qsort(r, n, sizeof *r, ref_cmp);
			ck_assert_int_eq(evq_peek_time(q), r[0].time);
			ck_assert_int_eq(evq_pop(q, &ev), 1);
			ck_assert_int_eq(ev.time, r[0].time);
			ck_assert_uint_eq(ev.seq, r[0].seq);
			ck_assert_int_eq(ev.data, r[0].data);
			stale = r[0].id;
			now = ev.time;
			r[0] = r[--n];
		}
		ck_assert_uint_eq(evq_size(q), n);
		if (stale != EVQ_NONE) {
			ck_assert_int_eq(evq_pending(q, stale), 0);
			ck_assert_int_eq(evq_cancel(q, stale), 0);
		}
	}
	qsort(r, n, sizeof *r, ref_cmp);
	for (i = 0; i < n; i++) {
		ck_assert_int_eq(evq_pop(q, &ev), 1);
		ck_assert_uint_eq(ev.seq, r[i].seq);
	}
	ck_assert_int_eq(evq_pop(q, &ev), 0);
	evq_free(q);
}
END_TEST

/*
 * Events at or past now + EVQ_HORIZON wait in the far heap, apart from the
 * near ones: pushes, early pushes, moves and cancels on both sides of the
 * horizon and across it (near to far and back), pops and pops until a
 * time, against the reference in time, seq and payload, with up to 300
 * pending so the near part is a sorted array and a heap in turn.
 */
static void
near_far_vs_reference(sim_time_t (*at)(sim_time_t, uint64_t), size_t maxn)
{
	enum { MAXN = 300 };
	struct evq *q = evq_new();
	struct ref r[MAXN];
	int early[MAXN];
	uint64_t s = 0x13198a2e03707344ULL, seq = 0;
	size_t n = 0, lim = 0, i, k;
	evq_id stale = EVQ_NONE;
	struct evq_ev ev;
	sim_time_t now = 0;

	for (k = 0; k < 400000; k++) {
		uint64_t x = xs64(&s);
		unsigned op = x % 8;
		sim_time_t t = at(now, x);

		if (k % 1000 == 0)
			lim = (x >> 32) % maxn;
		if (n < lim && (op < 4 || n == 0)) {
			early[n] = (x >> 50) % 8 == 0;
			r[n].time = t;
			r[n].seq = seq++;
			r[n].data = (int64_t)k;
			r[n].id = early[n] ? evq_push_early(q, t, NULL, NULL, r[n].data) :
			    evq_push(q, t, NULL, NULL, r[n].data);
			n++;
		} else if (n == 0) {
			continue;
		} else if (op == 4 || (n > lim && op < 4)) {
			i = (x >> 16) % n;
			ck_assert_int_eq(evq_cancel(q, r[i].id), 1);
			stale = r[i].id;
			r[i] = r[--n];
			early[i] = early[n];
		} else if (op == 5) {
			i = (x >> 16) % n;
			r[i].time = t;
			r[i].seq = seq++;
			r[i].data = -(int64_t)k;
			ck_assert_uint_eq(evq_move(q, r[i].id, t, NULL, NULL, r[i].data), r[i].id);
		} else {
			sim_time_t end = op == 6 ? now + (sim_time_t)((x >> 20) % (2 * EVQ_HORIZON)) :
			    INT64_MAX;
			size_t b = 0;

			/* the reference's least: earliest time, early first, then seq */
			for (i = 1; i < n; i++)
				if (r[i].time < r[b].time || (r[i].time == r[b].time &&
				    (early[i] > early[b] || (early[i] == early[b] && r[i].seq < r[b].seq))))
					b = i;
			ck_assert_int_eq(evq_peek_time(q), r[b].time);
			if (r[b].time > end) {
				ck_assert_int_eq(evq_pop_until(q, end, &ev), 0);
				continue;
			}
			ck_assert_int_eq(evq_pop_until(q, end, &ev), 1);
			ck_assert_int_eq(ev.time, r[b].time);
			ck_assert_uint_eq(ev.seq, r[b].seq);
			ck_assert_int_eq(ev.data, r[b].data);
			stale = r[b].id;
			now = ev.time;
			r[b] = r[--n];
			early[b] = early[n];
		}
		ck_assert_uint_eq(evq_size(q), n);
		if (stale != EVQ_NONE) {
			ck_assert_int_eq(evq_pending(q, stale), 0);
			ck_assert_int_eq(evq_cancel(q, stale), 0);
		}
	}
	while (n > 0) {
		size_t b = 0;

		for (i = 1; i < n; i++)
			if (r[i].time < r[b].time || (r[i].time == r[b].time &&
			    (early[i] > early[b] || (early[i] == early[b] && r[i].seq < r[b].seq))))
				b = i;
		ck_assert_int_eq(evq_pop(q, &ev), 1);
		ck_assert_uint_eq(ev.seq, r[b].seq);
		r[b] = r[--n];
		early[b] = early[n];
	}
	ck_assert_int_eq(evq_pop(q, &ev), 0);
	evq_free(q);
}

/* near, at the horizon (either side), or far: ties frequent */
static sim_time_t
near_far_at(sim_time_t now, uint64_t x)
{
	unsigned w = (unsigned)(x >> 40) % 4;

	return now + (w == 0 ? (sim_time_t)((x >> 8) % 64) :
	    w == 1 ? EVQ_HORIZON - 32 + (sim_time_t)((x >> 8) % 64) :
	    EVQ_HORIZON * (sim_time_t)(1 + (x >> 8) % 3) + (sim_time_t)((x >> 12) % 4) * 1000);
}

START_TEST(test_near_and_far_as_reference)
{
	near_far_vs_reference(near_far_at, 300);
}
END_TEST

/*
 * The far front (evq.c far_insert): a rotation of far pushes a fixed
 * delay on, each after the others but for a jitter (the front's tail,
 * sorting before 0 to a few of its entries), among far ones much later
 * (which the rotation passes: the front's tail goes to the far heap) and
 * far ones anywhere (the heap), near ones between, all on a coarse grid
 * (ties); up to 60 pending, so the front fills, gives its tail to the
 * heap and empties, its room moves to the front, and pops take the
 * front's head or the heap's root in turn.
 */
static sim_time_t
rotation_at(sim_time_t now, uint64_t x)
{
	unsigned w = (unsigned)(x >> 40) % 8;
	sim_time_t d = (sim_time_t)((x >> 8) % 8) * 1000;

	return now + (w == 0 ? d / 4 : w < 6 ? 2 * EVQ_HORIZON + d :
	    w == 6 ? 40 * EVQ_HORIZON + d : EVQ_HORIZON * (sim_time_t)(1 + (x >> 12) % 40));
}

START_TEST(test_far_front_as_reference)
{
	near_far_vs_reference(rotation_at, 60);
}
END_TEST

/*
 * Ghosts (evq_ghost) against the real events they stand for: owners' ticks
 * every GP re-arm themselves; other events, pushed at now, on the ticks'
 * grid (ties) or in between, toggle owners out and in.  With ghosts, an
 * owner out re-arms its tick as a ghost and an owner in again makes it real
 * (evq_unghost); without, every tick runs.  The events both runs handle
 * (the others, the ticks of owners in) come in the same order, and after
 * each the queue's peek says the same time (a ghost is its tick pending).
 */
#define GP 10
#define GK 3
#define GN 4000

struct gdrive {
	struct evq *q;
	int ghosts, out[GK];
	int32_t at[GK];
	evq_id tick[GK];
	sim_time_t log[3 * GN];
	sim_time_t peek[3 * GN];	/* evq_peek_time after log[i]'s event */
	int nlog;
};

static void gtick(void *ctx, void *arg, int64_t data) { }
static void gother(void *ctx, void *arg, int64_t data) { }

static void
gdrive_run(struct gdrive *d, int ghosts)
{
	struct evq_ev ev;
	int o;

	memset(d, 0, sizeof *d);
	d->q = evq_new();
	d->ghosts = ghosts;
	for (o = 0; o < GK; o++) {
		d->at[o] = -1;
		d->tick[o] = evq_push(d->q, o == 2 ? 5 : 0, gtick, NULL, o);
	}
	evq_push(d->q, 0, gother, NULL, 0);
	while (evq_pop(d->q, &ev)) {
		if (ev.time > 3000)
			break;
		if (ev.fn == gtick) {
			o = (int)ev.data;
			if (!d->out[o])
				d->log[d->nlog++] = ev.time * 8192 + 4096 + o;
			if (d->out[o] && ghosts && evq_ghost(d->q, GP, &d->at[o]))
				d->tick[o] = EVQ_NONE;
			else
				d->tick[o] = evq_push(d->q, ev.time + GP, gtick, NULL, o);
			if (!d->out[o])
				d->peek[d->nlog - 1] = evq_peek_time(d->q);
			continue;
		}
		d->log[d->nlog++] = ev.time * 8192 + ev.data;
		if (ev.data % 17 == 0) {
			o = (int)(ev.data / 17 % GK);
			d->out[o] = !d->out[o];
			if (!d->out[o] && d->at[o] >= 0)
				evq_ghost_wake(d->q, d->at[o], gtick, NULL, o);
		}
		for (o = 1; o <= 2; o++) {
			int64_t c = 2 * ev.data + o;
			uint64_t r = (uint64_t)c * 2654435761u;
			sim_time_t t = ev.time;

			if (c >= GN)
				break;
			if (r % 3 == 1)	/* on the grid, 1 to 3 periods on */
				t = (ev.time / GP + 1 + (int64_t)(r >> 8) % 3) * GP;
			else if (r % 3 == 2)
				t += (int64_t)(r >> 8) % 23;
			evq_push(d->q, t, gother, NULL, c);
		}
		d->peek[d->nlog - 1] = evq_peek_time(d->q);
	}
}

START_TEST(test_ghosts_as_real)
{
	static struct gdrive a, b;
	int i;

	gdrive_run(&a, 0);
	gdrive_run(&b, 1);
	ck_assert_int_eq(evq_ghost_pops(a.q), 0);
	ck_assert_uint_gt(evq_ghost_pops(b.q), 20);
	ck_assert_int_gt(a.nlog, 1000);
	ck_assert_int_eq(a.nlog, b.nlog);
	for (i = 0; i < a.nlog; i++) {
		ck_assert_int_eq(a.log[i], b.log[i]);
		ck_assert_int_eq(a.peek[i], b.peek[i]);
	}
	evq_free(a.q);
	evq_free(b.q);
}
END_TEST

/*
 * The ghost ring full (its 16 places, so a pop's tail is the head's own
 * place) with tombstones right behind the head: each pop goes on past them
 * to the next live ghost, and every owner's handle follows its ghost.
 */
START_TEST(test_ghost_ring_full)
{
	enum { NG = 16, PER = 100 };
	struct evq *q = evq_new();
	struct evq_ev ev;
	int32_t at[NG];
	int o;

	evq_push(q, 0, gother, NULL, -1);
	ck_assert(evq_pop(q, &ev));
	for (o = 0; o < NG; o++) {
		at[o] = -1;
		ck_assert(evq_ghost(q, PER, &at[o]));
	}
	evq_ghost_cancel(q, &at[1]);
	evq_ghost_cancel(q, &at[2]);
	ck_assert_int_eq(at[1], -1);
	evq_push(q, 10 * PER, gother, NULL, -2);
	ck_assert(evq_pop(q, &ev) && ev.data == -2 && ev.time == 10 * PER);
	/* 14 ghosts at 100 .. 900 */
	ck_assert_uint_eq(evq_ghost_pops(q), (NG - 2) * 9);
	for (o = 0; o < NG; o++)
		if (o != 1 && o != 2)
			ck_assert_int_eq(evq_ghost_time(q, at[o]), 10 * PER);
	evq_ghost_wake(q, at[5], gtick, NULL, 5);	/* after 0, 3 and 4 at 1000 */
	ck_assert(evq_pop(q, &ev) && ev.fn == gtick && ev.data == 5 && ev.time == 10 * PER);
	ck_assert_uint_eq(evq_ghost_pops(q), (NG - 2) * 9 + 3);
	ck_assert_int_eq(at[5], -1);
	ck_assert_int_eq(evq_ghost_time(q, at[0]), 11 * PER);
	ck_assert_int_eq(evq_peek_time(q), 10 * PER);	/* ghost 6 */
	evq_free(q);
}
END_TEST

/*
 * Ghosts popped one after another (evq.c ghost_pop) stop at the bound of
 * evq_pop_until, at a woken ghost and at a real event before the next.
 */
START_TEST(test_ghost_pops_stop)
{
	struct evq *q = evq_new();
	struct evq_ev ev;
	int32_t a = -1, b = -1;

	evq_push(q, 0, gother, NULL, 0);
	ck_assert(evq_pop(q, &ev));
	ck_assert(evq_ghost(q, 100, &a));	/* at 100 */
	evq_push(q, 50, gother, NULL, 1);
	ck_assert(evq_pop(q, &ev) && ev.data == 1);
	ck_assert(evq_ghost(q, 100, &b));	/* at 150 */
	evq_push(q, 1000, gother, NULL, 2);
	ck_assert(!evq_pop_until(q, 120, &ev));	/* a's at 100 only */
	ck_assert_uint_eq(evq_ghost_pops(q), 1);
	ck_assert_int_eq(evq_ghost_time(q, a), 200);
	ck_assert_int_eq(evq_ghost_time(q, b), 150);
	ck_assert_int_eq(evq_peek_time(q), 150);
	evq_ghost_wake(q, b, gtick, NULL, 3);
	ck_assert(evq_pop(q, &ev) && ev.fn == gtick && ev.data == 3 && ev.time == 150);
	ck_assert_int_eq(b, -1);
	ck_assert(evq_pop(q, &ev) && ev.data == 2 && ev.time == 1000);	/* before a's at 1000 */
	ck_assert_uint_eq(evq_ghost_pops(q), 9);	/* a's at 100 .. 900 */
	ck_assert_int_eq(evq_ghost_time(q, a), 1000);
	evq_free(q);
}
END_TEST

/*
 * A two-stage entry (evq_push_then) pops as the event its first stage
 * would have pushed at its second time: after what was queued for that
 * time before the first stage came (pushed earlier), before what is pushed
 * after (a later key), whether a pop, a pop up to an end or
 * evq_first_before passes it; a first stage not passed is ordinary once
 * dropped (evq_then_drop), and cancel and move take it as any event.  Near
 * and far.
 */
static void gthen(void *ctx, void *arg, int64_t data) { }
static void gfirst(void *ctx, void *arg, int64_t data) { }

START_TEST(test_then_keeps_the_push_order)
{
	sim_time_t base;

	for (base = 100; base <= EVQ_HORIZON * 3; base += EVQ_HORIZON * 3 - 100) {
		struct evq *q = evq_new();
		struct evq_ev ev;
		evq_id id;
		uint64_t key;

		/* a pop passes it: 1 (queued at base + 20 before) comes first */
		id = evq_push_then(q, base, base + 20, gthen, NULL, 7);
		evq_push(q, base + 20, gother, NULL, 1);
		evq_push(q, base + 10, gother, NULL, 2);
		ck_assert(evq_then_pending(q, id));
		ck_assert_int_eq(evq_peek_time(q), base);
		ck_assert(evq_pop(q, &ev) && ev.data == 2 && ev.time == base + 10);
		ck_assert(!evq_then_pending(q, id) && evq_pending(q, id));
		ck_assert_int_eq(evq_peek_time(q), base + 20);
		evq_push(q, base + 20, gother, NULL, 3);	/* after the pass: after it */
		ck_assert(evq_pop(q, &ev) && ev.data == 1);
		ck_assert(evq_pop(q, &ev) && ev.fn == gthen && ev.data == 7 && ev.time == base + 20);
		ck_assert(!evq_pending(q, id));
		ck_assert(evq_pop(q, &ev) && ev.data == 3);
		ck_assert_int_eq(evq_size(q), 0);
		/* a pop up to its first time passes it and takes nothing more */
		id = evq_push_then(q, base + 30, base + 40, gthen, NULL, 8);
		ck_assert_int_eq(evq_pop_until(q, base + 35, &ev), 0);
		ck_assert_int_eq(evq_peek_time(q), base + 40);
		evq_push(q, base + 40, gother, NULL, 4);
		ck_assert(evq_pop(q, &ev) && ev.fn == gthen && ev.data == 8);
		ck_assert(evq_pop(q, &ev) && ev.data == 4);
		/* evq_first_before passes one before its place, not one after */
		id = evq_push_then(q, base + 50, base + 60, gthen, NULL, 9);
		key = evq_reserve(q);
		ck_assert_int_eq(evq_first_before(q, base + 50, key), EVQ_NONE_BEFORE);
		ck_assert(!evq_then_pending(q, id));
		evq_push(q, base + 60, gother, NULL, 5);
		ck_assert(evq_pop(q, &ev) && ev.fn == gthen && ev.time == base + 60);
		ck_assert(evq_pop(q, &ev) && ev.data == 5);
		id = evq_push_then(q, base + 70, base + 70, gthen, NULL, 10);
		evq_push(q, base + 70, gother, NULL, 6);
		ck_assert_int_eq(evq_first_before(q, base + 70, evq_reserve(q)),
		    EVQ_EVENT_BEFORE);	/* 6, once the first stage (refiled after) passed */
		ck_assert(!evq_then_pending(q, id));
		ck_assert(evq_pop(q, &ev) && ev.data == 6);
		ck_assert(evq_pop(q, &ev) && ev.fn == gthen && ev.data == 10);
		/* dropped: the first stage's own event, in its place */
		id = evq_push_then(q, base + 80, base + 90, gthen, NULL, 11);
		evq_push(q, base + 80, gother, NULL, 12);
		evq_then_drop(q, id, gfirst, 13);
		ck_assert(!evq_then_pending(q, id));
		ck_assert(evq_pop(q, &ev) && ev.fn == gfirst && ev.data == 13 && ev.time == base + 80);
		ck_assert(evq_pop(q, &ev) && ev.data == 12);
		/* cancelled, and moved: an ordinary event */
		id = evq_push_then(q, base + 100, base + 110, gthen, NULL, 14);
		ck_assert(evq_cancel(q, id));
		id = evq_push_then(q, base + 100, base + 110, gthen, NULL, 15);
		id = evq_move(q, id, base + 105, gfirst, NULL, 16);
		ck_assert(!evq_then_pending(q, id));
		ck_assert(evq_pop(q, &ev) && ev.fn == gfirst && ev.data == 16 && ev.time == base + 105);
		ck_assert_int_eq(evq_pop(q, &ev), 0);
		evq_free(q);
	}
}
END_TEST

/*
 * The peek reads the far top, the lanes' heads and the ghost ring's head
 * through one kept time (struct evq_top side): each alone in the queue,
 * and each coming first, it says that one's time; empty again, none.
 */
START_TEST(test_peek_each_part)
{
	struct evq *q = evq_new();
	struct evq_ev ev;
	int32_t at = -1;
	int lane = evq_lane(q, 40);

	evq_push(q, 0, gother, NULL, 0);
	ck_assert(evq_pop(q, &ev));
	ck_assert(evq_ghost(q, 30, &at));	/* alone: a ghost at 30 */
	ck_assert_int_eq(evq_peek_time(q), 30);
	evq_push_lane(q, lane, 20, gother, NULL, 1);	/* a lane head before it */
	ck_assert_int_eq(evq_peek_time(q), 20);
	evq_push(q, 3 * EVQ_HORIZON, gother, NULL, 2);	/* far: after both */
	ck_assert_int_eq(evq_peek_time(q), 20);
	ck_assert(evq_pop(q, &ev) && ev.data == 1);
	ck_assert_int_eq(evq_peek_time(q), 30);
	evq_ghost_cancel(q, &at);
	ck_assert_int_eq(evq_peek_time(q), 3 * EVQ_HORIZON);	/* the far top alone */
	ck_assert(evq_pop(q, &ev) && ev.data == 2);
	ck_assert_int_eq(evq_peek_time(q), INT64_MAX);
	evq_push(q, 4 * EVQ_HORIZON, gother, NULL, 3);
	ck_assert_int_eq(evq_peek_time(q), 4 * EVQ_HORIZON);
	evq_free(q);
}
END_TEST

/*
 * sift_down moves entries up without telling their slots (evq.c
 * heap_find): after pops that sift a path up, every cancel and move must
 * still find its entry, in the near heap and in the far one, also once the
 * heap has shrunk below an entry's recorded place.
 */
START_TEST(test_cancel_after_sifts)
{
	enum { N = 341 };	/* five full levels of the 4-ary heap */
	sim_time_t base;

	for (base = 1000; base <= EVQ_HORIZON * 2; base += EVQ_HORIZON * 2 - 1000) {
		struct evq *q = evq_new();
		evq_id id[N];
		int live[N] = { 0 };
		struct evq_ev ev;
		size_t i, k, popped = 0;

		for (i = 0; i < N; i++) {	/* times in a scattered order */
			id[(i * 97) % N] = evq_push(q, base + (sim_time_t)((i * 97) % N),
			    NULL, NULL, (int64_t)((i * 97) % N));
			live[(i * 97) % N] = 1;
		}
		for (k = 0; k < 60; k++) {	/* pops sift paths up */
			ck_assert_int_eq(evq_pop(q, &ev), 1);
			ck_assert_int_eq(ev.data, (int64_t)popped);
			live[popped++] = 0;
		}
		/* the latest first: the deepest entries, moved up the most */
		for (i = N; i-- > popped + 120; ) {
			ck_assert_int_eq(evq_cancel(q, id[i]), 1);
			live[i] = 0;
		}
		for (i = popped + 119; i >= popped + 60; i--)	/* back, still in order */
			ck_assert_uint_eq(evq_move(q, id[i], base + (sim_time_t)i, NULL, NULL,
			    (int64_t)i), id[i]);
		for (i = popped; i < N; i++) {
			if (!live[i])
				continue;
			ck_assert_int_eq(evq_pop(q, &ev), 1);
			ck_assert_int_eq(ev.data, (int64_t)i);
		}
		ck_assert_int_eq(evq_pop(q, &ev), 0);
		evq_free(q);
	}
}
END_TEST

/*
 * A far pop leaves the far root's place to the push that follows (evq.c
 * back_pop): between the two, the peek, the size and a pop until a time
 * before it see the far heap's least as if the root were refilled; the
 * push, a cancel, a move and a pop each refill it, and the order stays by
 * time.  NF later ones pushed first fill the far front (more than
 * EVQ_FRONT_MAX), so the far heap takes the rest.
 */
START_TEST(test_far_pop_then_use)
{
	enum { N = 12, NF = 40 };
	static const sim_time_t off[N] = { 7, 3, 11, 0, 9, 5, 10, 2, 4, 8, 1, 6 };
	const sim_time_t late = 2 * EVQ_HORIZON + 100000;	/* the fillers' first */
	int use;

	for (use = 0; use < 4; use++) {
		struct evq *q = evq_new();
		evq_id id[N];
		struct evq_ev ev;
		sim_time_t t = 2 * EVQ_HORIZON, last = -1;
		size_t i, n = N;

		for (i = 0; i < NF; i++)
			evq_push(q, late + (sim_time_t)i * 1000, NULL, NULL, 100 + (int64_t)i);
		for (i = 0; i < N; i++)
			id[off[i]] = evq_push(q, t + off[i] * 1000, NULL, NULL, off[i]);
		ck_assert(evq_pop(q, &ev) && ev.data == 0);
		ck_assert_int_eq(evq_peek_time(q), t + 1000);	/* the root's least child */
		ck_assert_uint_eq(evq_size(q), NF + N - 1);
		if (use == 3)		/* nothing due by then: none taken */
			ck_assert_int_eq(evq_pop_until(q, t + 500, &ev), 0);
		else if (use == 0)		/* the push takes the place (it sorts last) */
			evq_push(q, ev.time + EVQ_HORIZON, NULL, NULL, -1);
		else if (use == 1)	/* the least child cancelled */
			ck_assert_int_eq(evq_cancel(q, id[1]), 1);
		else if (use == 2)	/* the least child moved last */
			ck_assert_uint_eq(evq_move(q, id[1], t + 20000, NULL, NULL, 20), id[1]);
		n -= use == 1;
		ck_assert_uint_eq(evq_size(q), NF + n - 1 + (use == 0));
		ck_assert_int_eq(evq_peek_time(q), t + (use == 1 || use == 2 ? 2000 : 1000));
		for (i = 0; evq_pop(q, &ev); i++) {
			ck_assert_int_ge(ev.time, last);
			ck_assert(use != 1 || ev.data != 1);
			last = ev.time;
		}
		ck_assert_uint_eq(i, NF + n - 1 + (use == 0));
		ck_assert_int_eq(last, use == 0 ? t + EVQ_HORIZON : late + (NF - 1) * 1000);
		evq_free(q);
	}
}
END_TEST

/*
 * The pop takes the near part's head at once only when it comes strictly
 * before the rest (evq.c evq_pop_until): at its time a far entry, a lane
 * head and a ghost with earlier keys pop first; and the emptied sorted
 * array's old head (sorted_empty) is never taken again.
 */
START_TEST(test_near_head_strictly_first)
{
	const sim_time_t t = 3 * EVQ_HORIZON;
	struct evq *q = evq_new();
	struct evq_ev ev;
	int32_t at = -1;
	int lane = evq_lane(q, 40);

	evq_push(q, 5, gother, NULL, 0);
	ck_assert(evq_pop(q, &ev) && ev.data == 0);	/* the array empty, its head 5 */
	evq_push(q, t - 100, gother, NULL, 1);	/* far, alone: the stale head before it */
	ck_assert(evq_pop(q, &ev) && ev.data == 1 && ev.time == t - 100);
	ck_assert_int_eq(evq_pop(q, &ev), 0);
	evq_push(q, t - 50, gother, NULL, 2);
	ck_assert(evq_pop(q, &ev) && ev.data == 2);	/* now t - 50 */
	evq_push(q, t + EVQ_HORIZON, gother, NULL, 3);	/* far */
	evq_push(q, t - 10, gother, NULL, 4);
	ck_assert(evq_pop(q, &ev) && ev.data == 4);	/* now t - 10: the far one stays far */
	evq_push_lane(q, lane, t + EVQ_HORIZON, gother, NULL, 5);
	ck_assert(evq_ghost(q, EVQ_HORIZON + 10, &at));	/* a ghost there too */
	evq_push(q, t + EVQ_HORIZON - 1, gother, NULL, 6);	/* far */
	ck_assert(evq_pop(q, &ev) && ev.data == 6);	/* now t + EVQ_HORIZON - 1 */
	evq_push(q, t + EVQ_HORIZON, gother, NULL, 7);	/* near, the latest key */
	ck_assert(evq_pop(q, &ev) && ev.data == 3);
	ck_assert(evq_pop(q, &ev) && ev.data == 5);
	ck_assert(evq_pop(q, &ev) && ev.data == 7);	/* after the ghost's pop */
	ck_assert_uint_eq(evq_ghost_pops(q), 1);
	evq_ghost_cancel(q, &at);
	ck_assert_int_eq(evq_pop(q, &ev), 0);
	evq_free(q);
}
END_TEST

/*
 * The peek reads the near part's head time without a look at a hole (evq.h
 * evq_peek_time): under each heap pop's hole it says the least child's
 * time; emptied by each way, a pop, a cancel, a move to the far part and a
 * heap's pops, it says the far event's time, not the time of the entry
 * that was last there.
 */
START_TEST(test_peek_near_emptied)
{
	const sim_time_t far = 3 * EVQ_HORIZON;
	struct evq *q = evq_new();
	struct evq_ev ev;
	evq_id id;
	int i;

	evq_push(q, far, gother, NULL, 0);
	evq_push(q, 5, gother, NULL, 1);
	ck_assert_int_eq(evq_peek_time(q), 5);
	ck_assert(evq_pop(q, &ev) && ev.data == 1);
	ck_assert_int_eq(evq_peek_time(q), far);	/* popped empty */
	id = evq_push(q, 7, gother, NULL, 2);
	ck_assert_int_eq(evq_peek_time(q), 7);
	ck_assert(evq_cancel(q, id));
	ck_assert_int_eq(evq_peek_time(q), far);	/* cancelled empty */
	id = evq_push(q, 8, gother, NULL, 3);
	ck_assert_int_eq(evq_peek_time(q), 8);
	evq_move(q, id, far + 1, gother, NULL, 3);
	ck_assert_int_eq(evq_peek_time(q), far);	/* moved far: empty */
	for (i = 0; i < 40; i++)	/* a heap, then sorted again, then empty */
		evq_push(q, 10 + i, gother, NULL, 4);
	for (i = 0; i < 40; i++) {
		ck_assert_int_eq(evq_peek_time(q), 10 + i);
		ck_assert(evq_pop(q, &ev) && ev.time == 10 + i);
	}
	ck_assert_int_eq(evq_peek_time(q), far);
	ck_assert(evq_pop(q, &ev) && ev.data == 0);
	ck_assert(evq_pop(q, &ev) && ev.data == 3);
	ck_assert_int_eq(evq_peek_time(q), INT64_MAX);
	evq_free(q);
}
END_TEST

/*
 * sorted_insert walks from the head only when the new entry's time is
 * before the middle's: a tie there, with room before the head, walks from
 * the tail, and the entry (the latest key) goes after every entry at that
 * time; one before the middle walks from the head.
 */
START_TEST(test_sorted_insert_ties)
{
	struct evq *q = evq_new();
	struct evq_ev ev;
	int i;

	evq_push(q, 1, gother, NULL, 0);
	evq_push(q, 2, gother, NULL, 0);
	for (i = 1; i <= 3; i++)
		evq_push(q, 5, gother, NULL, i);
	evq_push(q, 9, gother, NULL, 9);
	ck_assert(evq_pop(q, &ev) && ev.time == 1);
	ck_assert(evq_pop(q, &ev) && ev.time == 2);	/* room before the head */
	evq_push(q, 5, gother, NULL, 4);	/* the middle's time */
	evq_push(q, 3, gother, NULL, 10);	/* before the middle: from the head */
	ck_assert(evq_pop(q, &ev) && ev.time == 3 && ev.data == 10);
	for (i = 1; i <= 4; i++)
		ck_assert(evq_pop(q, &ev) && ev.time == 5 && ev.data == i);
	ck_assert(evq_pop(q, &ev) && ev.time == 9);
	ck_assert_int_eq(evq_pop(q, &ev), 0);
	evq_free(q);
}
END_TEST

/* A push before the latest pop (evq allows it; struct sim's pushes never
 * are) takes its place in the order as any other. */
START_TEST(test_push_before_the_latest_pop)
{
	struct evq *q = evq_new();
	struct evq_ev ev;

	evq_push(q, 3000000, gother, NULL, 1);
	evq_push(q, 8000000, gother, NULL, 2);	/* far */
	ck_assert(evq_pop(q, &ev) && ev.time == 3000000);
	evq_push(q, 10, gother, NULL, 3);	/* before the pop */
	evq_push(q, 3000100, gother, NULL, 4);	/* near */
	evq_push(q, 0, gother, NULL, 5);	/* before the pop, the least */
	ck_assert_int_eq(evq_peek_time(q), 0);
	ck_assert(evq_pop(q, &ev) && ev.time == 0 && ev.data == 5);
	ck_assert(evq_pop(q, &ev) && ev.time == 10 && ev.data == 3);
	ck_assert(evq_pop(q, &ev) && ev.time == 3000100 && ev.data == 4);
	ck_assert(evq_pop(q, &ev) && ev.time == 8000000 && ev.data == 2);
	ck_assert_int_eq(evq_pop(q, &ev), 0);
	evq_free(q);
}
END_TEST

/* A negative time aborts (hless_nb's unsigned order): on an empty queue,
 * before a pop, after a far one. */
START_TEST(test_negative_time_aborts)
{
	struct evq *q = evq_new();
	struct evq_ev ev;

	if (_i == 2) {
		evq_push(q, 3000000, gother, NULL, 1);
		evq_pop(q, &ev);
	}
	evq_push(q, _i == 1 ? -5000000 : -1, gother, NULL, 0);
	evq_free(q);
}
END_TEST

static Suite *
evq_suite(void)
{
	Suite *s = suite_create("evq");
	TCase *tc = tcase_create("core");

	tcase_set_timeout(tc, 0);
	tcase_add_test(tc, test_order_by_time);
	tcase_add_test(tc, test_ties_fifo);
	tcase_add_test(tc, test_cancel);
	tcase_add_test(tc, test_cancel_root_and_last);
	tcase_add_test(tc, test_push_key_ids);
	tcase_add_test(tc, test_free_slots_oldest_first_but_the_last);
	tcase_add_test(tc, test_random_vs_reference);
	tcase_add_test(tc, test_random_sorted_vs_reference);
	tcase_add_test(tc, test_move_as_cancel_push);
	tcase_add_test(tc, test_lanes_as_heap);
	tcase_add_test(tc, test_early_first);
	tcase_add_test(tc, test_small_and_large_as_reference);
	tcase_add_test(tc, test_near_and_far_as_reference);
	tcase_add_test(tc, test_far_front_as_reference);
	tcase_add_test(tc, test_ghosts_as_real);
	tcase_add_test(tc, test_ghost_ring_full);
	tcase_add_test(tc, test_ghost_pops_stop);
	tcase_add_test(tc, test_peek_each_part);
	tcase_add_test(tc, test_cancel_after_sifts);
	tcase_add_test(tc, test_far_pop_then_use);
	tcase_add_test(tc, test_then_keeps_the_push_order);
	tcase_add_test(tc, test_near_head_strictly_first);
	tcase_add_test(tc, test_peek_near_emptied);
	tcase_add_test(tc, test_sorted_insert_ties);
	tcase_add_test(tc, test_push_before_the_latest_pop);
	tcase_add_loop_test_raise_signal(tc, test_negative_time_aborts, SIGABRT, 0, 3);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	SRunner *sr = srunner_create(evq_suite());
	int failures;

	srunner_run_all(sr, CK_NORMAL);
	failures = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failures ? 1 : 0;
}
