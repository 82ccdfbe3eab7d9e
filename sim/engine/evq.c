/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * evq.c - the event queue: an indexed 4-ary min-heap on (time, seq), a
 * sorted array while few events are pending.
 *
 * Why a sorted array for few events: a ticket lock's waiters spin without
 * an event, so the pinned peer model keeps ~7 pending at 64 or 1024 vCPUs
 * and a VM of 8 vCPUs fewer.  There a pop is the head's (nothing moves) and
 * a push walks in from the tail past the few later events, where the heap
 * paid a sift down and a sift up of two levels with their slot writes
 * (cachegrind, bench/peer-ticket.yaml at 64 vCPUs: the queue's instructions
 * per acquisition 762 -> 535).  It holds up to
 * EVQ_SORT_MAX, then becomes the heap (a sorted array is one); the heap
 * sorts itself again at EVQ_SORT_MIN.  The order is the same total order
 * on (time, seq) either way, so outputs do not change.
 *
 * Why a 4-ary indexed heap:
 *  - Half as deep as a binary heap (log4 n levels), and the 4 children of a
 *    node are 16-byte entries laid out in one aligned 64-byte line, so a pop
 *    touches half as many lines.  The min-of-4 is a branch-free tournament:
 *    which child wins is unpredictable and a mispredict costs more than the
 *    extra compares.
 *  - The model cancels events (preemption, re-rating a completion), so each
 *    slot knows its heap position and cancel is O(log n); lazy deletion
 *    would let dead entries pile up and slow every pop.
 *  - Heap entries stay small (time, ordinary<<63|seq<<20|slot: an early
 *    event, the host tick, pops first at its time); the payload (fn, arg,
 *    data) and position live in a 32-byte slot, one line per event.
 *
 * Numbers (tests/bench_evq.c: hold model, Exp increments, 10M operations of
 * which 20% cancel+re-push and 80% pop+push; gcc 12 -O2, best of 3; ns/op
 * including ~7 ns of RNG and loop):
 *
 *	pending   binary heap   4-ary heap   evq (this file)
 *	1000          55.8          54.0          56.9
 *	100000       106.7         112.5         123.2
 *
 * So on this machine the arity is a wash: 4-ary wins by ~3% at 1000
 * pending and loses by ~5% at 100000 (a branchy binary heap lets the CPU
 * speculate down the tree; branch-free 4-ary waits for each line).  We keep
 * 4-ary for its halved depth, which matters more when the compare or the
 * position update is costlier, but there is no big win to claim.  The gap
 * from "4-ary" to evq is the payload, generation checks and 32-byte slots.
 *
 * FIFO lanes: most events are periodic timers re-armed a fixed delay after
 * they fire (the host's and the guests' scheduler ticks: over half of a
 * seed 001 run).  Pushed at now + d with now never decreasing, such events
 * arrive already sorted, so a lane keeps them in a ring in push order and
 * they never enter the heap; a pop takes the least (time, seq) of the heap's
 * top and the lanes' heads, the same total order as one heap, so outputs do
 * not change.  A push that would break a lane's order goes to the heap.
 * Lane entries are cancelled by a tombstone, skipped when it reaches the head.
 *
 * The far heap: most pending events of a kernbench run lie far ahead (a
 * compute phase's end, a timeslice's, 1-30 ms) while most pushes and pops
 * are near (a lock's hold or spin, a wakeup: under 100 us).  In one heap
 * the near ones sift through the far ones; so a push EVQ_HORIZON or more
 * after the latest pop goes to a second heap, and the near part stays a
 * few events, mostly the sorted array.  A pop takes the least of the near
 * part's head, the far part's least (ftop: the far front's head or the far
 * heap's top, below) and the least lane head, so an event need never move
 * between the two (a far one pops from the far part) and
 * the order is the same total order; evq_move files a moved event by its
 * new time.  (validate seed001-x5570 --reps 1: 4 of 30 pending events
 * at a pop were within 1 ms and sift_down was 14% of the CPU; -6% CPU;
 * seed004-cpu: 84 pending, 6 near, -5%.)
 *
 * The far front: beside the far heap, a short sorted array (at most
 * EVQ_FRONT_MAX) takes a far push that sorts among its last few entries.
 * A kernbench run keeps ~26 far events, ~8 of them a host slice's end per
 * pCPU, popped and pushed again one slice on, and ~18 far beyond them; 82%
 * of the far pushes of seed001-x5570 3x sort after exactly 7 others.  The
 * slice ends rotate in the front, a pop its head and a push at or near its
 * tail (97% of the far pushes, 90% of the far pops), where the heap took a
 * sift down of 2.3 levels (131 instructions) for each; the rest stay in
 * the heap.  A push that sorts before more of the front's entries goes to
 * the heap (or they do, if few: far_insert_slow), so pushes in no such
 * rotation work the heap as before.  A far pop takes the lesser of the
 * front's head and the heap's root: the order is the same total order, so
 * outputs do not change.
 *
 * A slot's pos is its heap index (or a descendant's: heap_find), its lane
 * place, or EVQ_INSORT while its entry is in the sorted array: cancel and move find it there by a scan of
 * at most EVQ_SORT_MAX, so a push's shifts write no slot; a far heap
 * entry's is EVQ_FAR_BIT | its index, a far front entry's EVQ_INFRONT.
 * A slot is filled with EVQ_INSORT (slot_fill, evq_move), so the sorted
 * array's inserts, most of a push's, write no slot at all: the others
 * write theirs over it (a push's load of the slots and its index cost 3
 * instructions more than the fill's store).
 *
 * Handles: id = (slot + 1) | (generation << 20).  A slot's generation is
 * bumped whenever it is freed, so an id kept after its event fired or was
 * cancelled no longer matches and evq_cancel returns 0.  Freed slots are
 * reused oldest-first (FIFO), so a stale id can only alias after 4096 reuses
 * of every free slot, not 4096 pushes.  The list always holds one slot, the
 * latest freed (a sentinel, the list's tail), which it does not hand out:
 * a push and a pop then test nothing for an empty list or one emptied
 * (bench/peer-ticket.yaml at 64 vCPUs: ~1.7 of each an acquisition).  At
 * most 2^20 - 2 events may be pending at once.
 */
#include "evq.h"
#include "util.h"

#include <stdlib.h>
#include <string.h>

#define EVQ_SLOT_BITS	20
#define EVQ_SLOT_MASK	((1u << EVQ_SLOT_BITS) - 1)
#define EVQ_MAX_SLOTS	EVQ_SLOT_MASK		/* slot + 1 must fit the mask */
/* An ordinary event's key has the top bit set; an early one's (evq_push_early)
 * not, so at equal times every early event pops first. */
#define EVQ_ORDINARY	(UINT64_C(1) << 63)
/* One step of seq in a key: the next key (nkey) moves on by it; a carry out
 * of the top bit is seq past (UINT64_MAX >> 1) >> EVQ_SLOT_BITS, exhausted. */
#define EVQ_SEQ_ONE	(UINT64_C(1) << EVQ_SLOT_BITS)
#define EVQ_NOPOS	UINT32_MAX
#define EVQ_LINE	64
/* Heap index k lives at base[k + EVQ_PAD]: then children 4k+1..4k+4 sit at
 * base[4k+4..4k+7], one aligned cache line. */
#define EVQ_PAD		3
/* A slot's pos for a lane entry: flag, lane index, ring index. */
#define EVQ_LANE_BIT	(1u << 31)
#define EVQ_LANE_SHIFT	27
#define EVQ_RING_MASK	((1u << EVQ_LANE_SHIFT) - 1)
#define EVQ_DEAD	UINT64_MAX	/* a cancelled lane entry's key */
#define EVQ_PREFETCH_N	512	/* pending events from which a pop prefetches the next */
/* Sorted while at most EVQ_SORT_MAX are pending; a heap again sorted when it
 * falls to EVQ_SORT_MIN (apart, so a size near one bound does not flip). */
#define EVQ_SORT_MAX	16
#define EVQ_SORT_MIN	8
/* The near part's form (struct evq_top form): one field where a push and
 * a pop tested two (the hole, then sorted), so the sorted array's push and
 * pop take one test of it (bench/peer-ticket.yaml at 64 vCPUs: ~1.7 of
 * each an acquisition, nearly all sorted) */
#define EVQ_SORTED	0	/* t.h[0 .. t.n) sorted */
#define EVQ_HEAP	1	/* a heap at base + EVQ_PAD */
#define EVQ_HOLE	2	/* ... whose root was popped (near_pop, fill_hole) */
/* A slot's pos for a far heap entry: flag, far heap index (lanes' indices
 * stay below it). */
#define EVQ_FAR_BIT	(1u << 30)
#define EVQ_INSORT	(EVQ_FAR_BIT - 1)	/* a slot's pos in the sorted array */
#define EVQ_INFRONT	(EVQ_FAR_BIT | EVQ_INSORT)	/* ... in the far front */
/* The far front's most entries (a push past them goes to the far heap)
 * and its room, which its head slides along as pops take it. */
#define EVQ_FRONT_MAX	16
#define EVQ_FRONT_ROOM	(2 * EVQ_FRONT_MAX)
/* A far push the front takes: one that sorts before at most WALK of its
 * entries, or before at most EVICT, which then go to the far heap. */
#define EVQ_FRONT_WALK	2
#define EVQ_FRONT_EVICT	4

/* An empty lane's head: after every entry (no live key is EVQ_DEAD). */
static const struct evq_hent LANE_EMPTY = { INT64_MAX, EVQ_DEAD };

struct slot {
	void (*fn)(void *, void *, int64_t);
	void *arg;
	int64_t data;		/* while free: index of the next free slot */
	uint32_t pos;		/* heap index (heap_find), EVQ_NOPOS while free */
	uint32_t gen;		/* the generation, kept shifted: << EVQ_SLOT_BITS, as in an id */
};

struct lane {
	struct evq_hent *r;		/* ring, cap a power of two */
	uint32_t cap, head, n;	/* n counts tombstones too */
	sim_time_t tag;		/* what evq_lane was asked for */
	sim_time_t last;	/* the latest time appended */
	uint64_t lastkey;	/* ... and its key */
};

/* (struct evq_top, first: what a peek reads, evq.h) */
struct evq {
	struct evq_top t;
	struct lane lanes[EVQ_LANES];
	int nlanes;
	int lmin;		/* the lane whose head is least, -1: all empty */
	/* A copy of lhd[lmin], kept where lmin or that head changes: a pop
	 * compares it without lmin's indexed load (reading lhd[lmin] instead
	 * cost +0.8% instructions on seed001-x5570 3x). */
	struct evq_hent lh;
	/* Each lane's head, LANE_EMPTY while it has none: lane_min compares
	 * these, one array, without the loads from a lane to its ring
	 * (seed001-x5570 2x: a lane pop was 89 instructions, 40 of them
	 * lane_min's). */
	struct evq_hent lhd[EVQ_LANES];
	size_t nlive;		/* live lane entries, all lanes */
	struct evq_hent *base;	/* aligned allocation */
	size_t cap;
	/* base + EVQ_PAD, the heap's root and an empty sorted array's head, kept
	 * (sorted_insert's test of room before the head: a load, not a load
	 * and an add) */
	struct evq_hent *h0;
	struct evq_hent *hend;	/* base + EVQ_PAD + cap: the sorted array's room ends there */
	struct slot *slots;
	size_t nslots, slotcap;
	uint32_t free_head, free_tail;
	/* The next ordinary key, slot 0 (EVQ_ORDINARY | seq << EVQ_SLOT_BITS),
	 * kept shifted: a take (key_take) is a load, a compare with an
	 * immediate, an add and a store, where a seq's compare with a 64-bit
	 * limit, its shift and the ordinary bit took 3 more */
	uint64_t nkey;
	struct evq_hent *fbase, *fh;	/* the far heap: aligned allocation, fbase + EVQ_PAD */
	size_t fn, fcap;	/* fn counts the hole */
	int fhole;		/* the far root was popped (back_pop): fh[0] is a copy of its least child */
	/* The far part's least entry: fr[0], else fh[0], NULL: none (far_note) */
	struct evq_hent *ftop;
	/* ... its time, INT64_MAX: none (far_note): side_note reads it without
	 * a test of ftop, at every ghost and lane pop (seed001-x5570) */
	sim_time_t ftime;
	/* The far front (top comment), sorted from its head fr, within fra */
	struct evq_hent *fr;
	size_t frn;
	sim_time_t now;		/* the latest popped event's time */
	/* Ghosts (evq.h evq_ghost): a FIFO ring, cap a power of two; gn counts
	 * tombstones (at == NULL) too, the head is live (ghost_trim). */
	struct ghost {
		sim_time_t time;
		uint64_t key;
		int32_t *at;	/* the owner's handle: the entry's ring index */
		/* NULL: a ghost; else the event it is again (evq_ghost_wake) */
		void (*fn)(void *, void *, int64_t);
		void *arg;
		int64_t data;
	} *gr;
	uint32_t gcap, ghead, gn;
	struct evq_hent gh;	/* the head's time and key (time INT64_MAX: none) */
	sim_time_t gper;	/* the period every ghost repeats at */
	uint64_t gpops;		/* ghost pops: events not run */
	/* Two-stage entries (evq_push_then): slot s's second stage while its
	 * slot's fn is then_first */
	struct then {
		sim_time_t time;
		void (*fn)(void *, void *, int64_t);
	} *then;
	size_t thencap;
	struct evq_hent fra[EVQ_FRONT_ROOM];	/* the far front's room (last: the
						 * fields before it stay close) */
};

/* t.least again, after the near part's head or side changed: the head's
 * time is the near least's (INT64_MAX when empty, sorted_empty; a hole's
 * least child's, heap_pop), so no test of n or of the form. */
static inline void
least_note(struct evq *q)
{
	sim_time_t t = q->t.h->time;

	q->t.least = t < q->t.side ? t : q->t.side;
}

/* t.least after the near part took an entry at t: the least can only fall. */
static inline void
least_add(struct evq *q, sim_time_t t)
{
	if (t < q->t.least)
		q->t.least = t;
}

/* t.side again, after the far part's least (ftop), the least lane head or
 * the ghost ring's head changed (each of those changes calls it; the far
 * part's through far_note), and so t.least.  With no lane head lh is
 * LANE_EMPTY (lane_min, evq_new), whose INT64_MAX needs no test of lmin;
 * with no far entry ftime is INT64_MAX, so no test of ftop either. */
static inline void
side_note(struct evq *q)
{
	sim_time_t t = q->gh.time;

	if (q->ftime < t)
		t = q->ftime;
	if (q->lh.time < t)
		t = q->lh.time;
	q->t.side = t;
	least_note(q);
}

/* A lane entry's slot pos, and back. */
static inline uint32_t
lane_pos(int l, uint32_t i)
{
	return EVQ_LANE_BIT | (uint32_t)l << EVQ_LANE_SHIFT | i;
}

static inline struct evq_hent *
lane_ent(struct evq *q, uint32_t pos)
{
	return &q->lanes[(pos & ~EVQ_LANE_BIT) >> EVQ_LANE_SHIFT].r[pos & EVQ_RING_MASK];
}

static inline int
hless(const struct evq_hent *a, const struct evq_hent *b)
{
	return a->time < b->time || (a->time == b->time && a->key < b->key);
}

/* As hless without branches, for sift_down's tournament: (time, key) as one
 * unsigned 128-bit number, a compare and a subtract with borrow.  Times in
 * the heap are never negative (heap_insert_key, evq_move), so unsigned
 * order is their order.  (CFS at 4096 vCPUs: sift_down's instructions
 * -22%; sift_up keeps hless, whose first compare mostly decides.) */
static inline int
hless_nb(const struct evq_hent *a, const struct evq_hent *b)
{
#ifdef __SIZEOF_INT128__
	return ((unsigned __int128)(uint64_t)a->time << 64 | a->key) <
	    ((unsigned __int128)(uint64_t)b->time << 64 | b->key);
#else
	return (a->time < b->time) | ((a->time == b->time) & (a->key < b->key));
#endif
}

/* Heap h's index i takes e; its slot learns where (flag: which heap). */
static inline void
hput(struct slot *slots, struct evq_hent *h, size_t i, struct evq_hent e, uint32_t flag)
{
	h[i] = e;
	slots[e.key & EVQ_SLOT_MASK].pos = (uint32_t)i | flag;
}

static void
sift_up(struct slot *slots, struct evq_hent *h, size_t i, struct evq_hent e, uint32_t flag)
{
	while (i > 0) {
		size_t p = (i - 1) >> 2;

		if (!hless(&e, &h[p]))
			break;
		hput(slots, h, i, h[p], flag);
		i = p;
	}
	hput(slots, h, i, e, flag);
}

static void
sift_down(struct slot *slots, struct evq_hent *h, size_t n, size_t i, struct evq_hent e,
    uint32_t flag)
{
	for (;;) {
		size_t c = 4 * i + 1, m, end;

		if (c >= n)
			break;
		if (c + 3 < n) {
			/* Tournament without branches: which child wins is
			 * unpredictable, a mispredict costs more than 3 cmovs. */
			size_t a = c + hless_nb(&h[c + 1], &h[c]);
			size_t b = c + 2 + hless_nb(&h[c + 3], &h[c + 2]);

			m = hless_nb(&h[b], &h[a]) ? b : a;
		} else {
			end = c + 4 < n ? c + 4 : n;
			m = c;
			for (c++; c < end; c++)
				if (hless(&h[c], &h[m]))
					m = c;
		}
		if (!hless(&h[m], &e))
			break;
		h[i] = h[m];	/* its slot's pos stays m, a descendant (heap_find) */
		i = m;
	}
	hput(slots, h, i, e, flag);
}

/*
 * The index of slot s's entry in heap h (n entries, no hole), from its
 * slot's pos i.  sift_down moves an entry up a level without writing its
 * slot's pos (that store, a slot line out of cache at 4096 vCPUs, was most
 * of each level's cost), and every other move writes it, so pos names the
 * entry's index or a descendant of it, maybe past n: walk up to it.  Within
 * h[0..n) each live slot is once.
 */
static size_t
heap_find(const struct evq_hent *h, size_t n, size_t i, uint32_t s)
{
	while (i >= n || (h[i].key & EVQ_SLOT_MASK) != s) {
		VS_ASSERT(i > 0);
		i = (i - 1) >> 2;
	}
	return i;
}

/* Heap h (n entries) takes e at index i, where an entry left or changed:
 * up if e sorts before i's parent, else down. */
static void
hplace(struct slot *slots, struct evq_hent *h, size_t n, size_t i, struct evq_hent e, uint32_t flag)
{
	if (i > 0 && hless(&e, &h[(i - 1) >> 2]))
		sift_up(slots, h, i, e, flag);
	else
		sift_down(slots, h, n, i, e, flag);
}

/* Double a heap's array (*base, its n entries from *h); *h becomes base + EVQ_PAD. */
static void
hgrow(struct evq_hent **base, struct evq_hent **h, size_t *cap, size_t n)
{
	size_t ncap = *cap ? *cap * 2 : 64;
	size_t bytes = (ncap + EVQ_PAD) * sizeof(struct evq_hent);
	struct evq_hent *nb;

	bytes = (bytes + EVQ_LINE - 1) & ~(size_t)(EVQ_LINE - 1);
	nb = aligned_alloc(EVQ_LINE, bytes);
	if (nb == NULL)
		vs_fatal("out of memory (event heap, %zu bytes)", bytes);
	if (n > 0)
		memcpy(nb + EVQ_PAD, *h, n * sizeof(struct evq_hent));
	free(*base);
	*base = nb;
	*h = nb + EVQ_PAD;
	*cap = ncap;
}

static void
heap_grow(struct evq *q)
{
	hgrow(&q->base, &q->t.h, &q->cap, q->t.n);
	q->h0 = q->base + EVQ_PAD;
	q->hend = q->h0 + q->cap;
}

/* The sorted array emptied: its head at base + EVQ_PAD (sorted_insert's
 * test of room before it), whose time says it is after every entry, so the
 * pop's first test (the head's time before the rest's) fails there without
 * a look at n. */
static inline void
sorted_empty(struct evq *q)
{
	q->t.h = q->h0;
	q->t.h->time = INT64_MAX;
}

/*
 * Double the slots' array, line-aligned, zeroed past the old slots as
 * VS_GROW would: a 32-byte slot then never straddles two lines.  With
 * realloc's 16-byte alignment half of them did, and a push's read of the
 * free list and its payload's writes were two misses where the queue's
 * slots outgrow the cache (bench/peer-ticket.yaml at 1024 vCPUs: 2.6 -> 1.8
 * D1 misses a push).
 * Out of line: inlined, its frame cost slot_alloc 30 instructions a call.
 */
static __attribute__((noinline, cold)) void
slot_grow(struct evq *q)
{
	size_t ncap = q->slotcap ? q->slotcap * 2 : 8;
	struct slot *ns = aligned_alloc(EVQ_LINE, ncap * sizeof *ns);

	_Static_assert(EVQ_LINE % sizeof(struct slot) == 0, "a slot straddles lines");
	if (ns == NULL)
		vs_fatal("out of memory (event slots, %zu bytes)", ncap * sizeof *ns);
	if (q->nslots > 0)
		memcpy(ns, q->slots, q->nslots * sizeof *ns);
	memset(ns + q->nslots, 0, (ncap - q->nslots) * sizeof *ns);
	free(q->slots);
	q->slots = ns;
	q->slotcap = ncap;
}

/* A slot never used yet (out of line: the free list mostly has one). */
static __attribute__((noinline)) uint32_t
slot_new(struct evq *q)
{
	uint32_t s;

	if (q->nslots >= EVQ_MAX_SLOTS)
		vs_fatal("event queue: more than %u pending events", EVQ_MAX_SLOTS);
	if (q->nslots >= q->slotcap)
		slot_grow(q);
	s = (uint32_t)q->nslots++;
	q->slots[s].gen = 0;
	return s;
}

/* The free list's head, unless it is the sentinel alone (top comment). */
static inline uint32_t
slot_alloc(struct evq *q)
{
	uint32_t s = q->free_head;

	if (s == q->free_tail)
		return slot_new(q);
	q->free_head = (uint32_t)q->slots[s].data;
	return s;
}

/* Free at the tail so slots are reused oldest-first (see top comment); s
 * is the new sentinel, whose data (its next) nothing reads until the next
 * free writes it. */
static inline void
slot_free(struct evq *q, uint32_t s)
{
	struct slot *sl = &q->slots[s];

	/* (fn and arg stay: nothing reads a free slot's but slot_fill, which
	 * writes them; clearing them cost a pop 2 stores) */
	sl->pos = EVQ_NOPOS;
	sl->gen += 1u << EVQ_SLOT_BITS;	/* (the carry out of 32 bits: the mask's wrap) */
	q->slots[q->free_tail].data = s;
	q->free_tail = s;
}

/* The slot an id names if the id is still live, else NULL. */
static struct slot *
slot_of(const struct evq *q, evq_id id)
{
	uint32_t s1 = id & EVQ_SLOT_MASK;
	struct slot *sl;

	if (s1 == 0 || s1 > q->nslots)
		return NULL;
	sl = &q->slots[s1 - 1];
	if (sl->pos == EVQ_NOPOS || sl->gen != (id & ~EVQ_SLOT_MASK))
		return NULL;
	return sl;
}

struct evq *
evq_new(void)
{
	struct evq *q = xcalloc(1, sizeof *q);

	q->free_head = q->free_tail = slot_new(q);	/* the sentinel */
	q->slots[q->free_head].pos = EVQ_NOPOS;
	q->nkey = EVQ_ORDINARY;	/* seq 0 */
	q->t.form = EVQ_SORTED;
	q->lmin = -1;
	q->lh = LANE_EMPTY;
	q->gh.time = INT64_MAX;
	q->fr = q->fra;
	q->ftime = INT64_MAX;
	q->t.side = INT64_MAX;
	heap_grow(q);
	sorted_empty(q);
	q->t.least = INT64_MAX;
	return q;
}

void
evq_free(struct evq *q)
{
	int l;

	if (q == NULL)
		return;
	for (l = 0; l < q->nlanes; l++)
		free(q->lanes[l].r);
	free(q->base);
	free(q->fbase);
	free(q->slots);
	free(q->gr);
	free(q->then);
	free(q);
}

/* Fill a fresh slot's payload; the caller files it in the heap or a lane
 * (pos says the sorted array, top comment: a heap, the far part or a lane
 * writes its own). */
static inline uint32_t
slot_fill(struct evq *q, void (*fn)(void *, void *, int64_t), void *arg, int64_t data)
{
	uint32_t s;
	struct slot *sl;

	s = slot_alloc(q);
	sl = &q->slots[s];
	sl->fn = fn;
	sl->arg = arg;
	sl->data = data;
	sl->pos = EVQ_INSORT;
	return s;
}

static __attribute__((noinline, cold, noreturn)) void
seq_exhausted(void)
{
	vs_fatal("event queue: sequence counter exhausted");
}

/* The next ordinary key, taken: evq_reserve's, a push's (key_next) and a
 * ghost's (the push its run would make: the next seq, as lane_insert takes
 * it). */
static inline uint64_t
key_take(struct evq *q)
{
	uint64_t key = q->nkey;

	/* the add would carry (a compare with an immediate, -EVQ_SEQ_ONE) */
	if (__builtin_expect(key >= (uint64_t)-EVQ_SEQ_ONE, 0))
		seq_exhausted();
	q->nkey = key + EVQ_SEQ_ONE;
	return key;
}

/* The next key for slot s: seq order, ordinary or early (class 0: the
 * ordinary bit cleared). */
static inline uint64_t
key_next(struct evq *q, uint32_t s, uint64_t class)
{
	return (key_take(q) ^ EVQ_ORDINARY ^ class) | s;
}

/* A sorted array's steps, the near part's and the far front's: h (n
 * entries, room after them) takes e walking in from the tail (the far
 * front writes e's slot's pos after; the near part's is written). */
static inline void
sa_put_tail(struct evq_hent *h, size_t n, struct evq_hent e)
{
	struct evq_hent *p;

	for (p = h + n; p > h && hless(&e, &p[-1]); p--)
		p[0] = p[-1];
	*p = e;
}

/* The index of slot s's entry, which is there. */
static inline size_t
sa_find(const struct evq_hent *h, size_t n, uint32_t s)
{
	size_t i;

	for (i = 0; (h[i].key & EVQ_SLOT_MASK) != s; i++)
		VS_ASSERT(i + 1 < n);
	return i;
}

/* Index i taken out of *h's *n entries, the shorter side moved over it. */
static inline void
sa_remove(struct evq_hent **h, size_t *n, size_t i)
{
	size_t end = --*n;

	if (i <= end - i) {
		for (; i > 0; i--)
			(*h)[i] = (*h)[i - 1];
		++*h;
	} else
		for (; i < end; i++)
			(*h)[i] = (*h)[i + 1];
}

/*
 * Few pending events (a VM of a few vCPUs, or many spinning without one):
 * a sorted array beats the heap.  A pop takes the head and moves nothing; a
 * push walks from the tail, and a new event mostly lies late.  Both give
 * the same (time, seq) order, a total one, so outputs do not change.
 */
static void
sorted_to_front(struct evq *q)
{
	struct evq_hent *h0 = q->h0;

	if (q->t.h == h0)
		return;
	memmove(h0, q->t.h, q->t.n * sizeof *q->t.h);
	q->t.h = h0;
}

/* Sorted array h (n entries, room after them) takes e, walking in from the
 * tail (its slot's pos is EVQ_INSORT: top comment). */
static inline void
sorted_put_tail(struct evq *q, struct evq_hent *h, size_t n, struct evq_hent e)
{
	q->t.n = n + 1;
	sa_put_tail(h, n, e);
}

/* sorted_insert when the array has no room after its last entry: moved to
 * the front (or grown) first.  Out of line and a tail call: inline, the
 * call kept e in a frame and cost every sorted_insert a longer prologue. */
static __attribute__((noinline, cold)) void
sorted_insert_room(struct evq *q, struct evq_hent e)
{
	sorted_to_front(q);
	if (q->t.n == q->cap)
		heap_grow(q);
	sorted_put_tail(q, q->t.h, q->t.n, e);
}

/* A push walks in from the nearer end: from the head when e comes before
 * the middle's time and there is room before the head (pops leave it), so
 * an event due soon, as most near ones are, passes few entries.  (An empty
 * array's head is at base + EVQ_PAD, where the pop and sorted_remove put
 * it, so room before the head means entries: no test of n.  Either walk
 * gives the same order: the time alone picks one, without the key's
 * compare of a tie, which then walks from the tail.) */
static void
sorted_insert(struct evq *q, struct evq_hent e)
{
	struct evq_hent *h = q->t.h, *p;
	size_t n = q->t.n;

	if (h > q->h0 && e.time < h[n >> 1].time) {
		q->t.h = p = h - 1;
		q->t.n = n + 1;
		for (; hless(&p[1], &e); p++)
			p[0] = p[1];
		*p = e;
	} else if (h + n == q->hend)
		sorted_insert_room(q, e);
	else
		sorted_put_tail(q, h, n, e);
}

/* The sorted index of slot s's entry. */
static size_t
sorted_find(const struct evq *q, uint32_t s)
{
	return sa_find(q->t.h, q->t.n, s);
}

/* Take sorted index i out, moving the shorter side over it. */
static void
sorted_remove(struct evq *q, size_t i)
{
	sa_remove(&q->t.h, &q->t.n, i);
	if (q->t.n == 0)
		sorted_empty(q);
}

/* Sorted index i takes entry e (a later seq): it moves to e's place.
 * (Inline: evq_move's and then_pass's; a call cost evq_move more.) */
static inline __attribute__((always_inline)) void
sorted_replace(struct evq *q, size_t i, struct evq_hent e)
{
	size_t end = q->t.n - 1;

	if (i > 0 && hless(&e, &q->t.h[i - 1]))
		for (; i > 0 && hless(&e, &q->t.h[i - 1]); i--)
			q->t.h[i] = q->t.h[i - 1];
	else
		for (; i < end && hless(&q->t.h[i + 1], &e); i++)
			q->t.h[i] = q->t.h[i + 1];
	q->t.h[i] = e;
}

/* A sorted array is a heap already: it only moves to the front. */
static void
to_heap(struct evq *q)
{
	size_t i;

	sorted_to_front(q);
	q->t.form = EVQ_HEAP;
	for (i = 0; i < q->t.n; i++)
		q->slots[q->t.h[i].key & EVQ_SLOT_MASK].pos = (uint32_t)i;
}

/* The heap, insertion-sorted in place; it is small (EVQ_SORT_MIN). */
static void
to_sorted(struct evq *q)
{
	size_t i, j;

	for (i = 1; i < q->t.n; i++) {
		struct evq_hent e = q->t.h[i];

		for (j = i; j > 0 && hless(&e, &q->t.h[j - 1]); j--)
			q->t.h[j] = q->t.h[j - 1];
		q->t.h[j] = e;
	}
	for (i = 0; i < q->t.n; i++)
		q->slots[q->t.h[i].key & EVQ_SLOT_MASK].pos = EVQ_INSORT;
	q->t.form = EVQ_SORTED;
}

/* The far part's least (ftop) and the peek's side again, after the far
 * front or the far heap changed. */
static inline void
far_note(struct evq *q)
{
	if (q->frn == 0) {
		q->ftop = q->fn ? q->fh : NULL;
		q->ftime = q->fn ? q->fh->time : INT64_MAX;
	} else {
		q->ftop = q->fn == 0 || hless(q->fr, q->fh) ? q->fr : q->fh;
		q->ftime = q->ftop->time;
	}
	side_note(q);
}

/* The far heap takes e (the caller notes it). */
static void
back_insert(struct evq *q, struct evq_hent e)
{
	if (q->fhole) {		/* the popped root's place: one sift instead of two */
		q->fhole = 0;
		sift_down(q->slots, q->fh, q->fn, 0, e, EVQ_FAR_BIT);
	} else {
		if (q->fn == q->fcap)
			hgrow(&q->fbase, &q->fh, &q->fcap, q->fn);
		q->fn++;
		sift_up(q->slots, q->fh, q->fn - 1, e, EVQ_FAR_BIT);
	}
}

static void
far_remove(struct evq *q, size_t i)
{
	struct evq_hent last = q->fh[--q->fn];

	if (i < q->fn)
		hplace(q->slots, q->fh, q->fn, i, last, EVQ_FAR_BIT);
	far_note(q);
}

/* The far root's place refilled (back_pop), before any use of the far heap
 * but a push, which takes the place, and the reads of its top (evq_min,
 * side_note, a pop's choice: the copy there is the far heap's least). */
static inline void
far_fill(struct evq *q)
{
	if (q->fhole) {
		q->fhole = 0;
		far_remove(q, 0);
	}
}

static inline int
is_far(const struct evq *q, sim_time_t t)
{
	return t - q->now >= EVQ_HORIZON;
}

/* The far front, with room after its tail, takes e, which sorts before at
 * most EVQ_FRONT_EVICT of its entries: walking in from its tail. */
static inline void
front_put(struct evq *q, struct evq_hent e)
{
	size_t n = q->frn++;

	sa_put_tail(q->fr, n, e);
	q->slots[e.key & EVQ_SLOT_MASK].pos = EVQ_INFRONT;
}

/* far_insert but for a put at the front's tail with room there: the room
 * moved to the front, or the entries e sorts before given to the heap
 * first, or e to the heap (k: how many e sorts before, > EVQ_FRONT_EVICT:
 * more or the front full).  Out of line: the put keeps no frame. */
static __attribute__((noinline)) void
far_insert_slow(struct evq *q, struct evq_hent e, size_t k)
{
	size_t n = q->frn;

	if (k > EVQ_FRONT_EVICT)
		back_insert(q, e);
	else {
		if (k > EVQ_FRONT_WALK)
			for (q->frn = n - k; k > 0; k--)
				back_insert(q, q->fr[n - k]);
		if (q->fr + q->frn == q->fra + EVQ_FRONT_ROOM) {
			memmove(q->fra, q->fr, q->frn * sizeof *q->fr);
			q->fr = q->fra;
		}
		front_put(q, e);
	}
	far_note(q);
}

/* The far part takes e (pushed EVQ_HORIZON or more after now): the front
 * when it has room and e sorts before at most EVQ_FRONT_WALK of its
 * entries, or before at most EVQ_FRONT_EVICT, which go to the heap first
 * (a late entry that came before the rotation settled); else the heap. */
static void
far_insert(struct evq *q, struct evq_hent e)
{
	const struct evq_hent *h = q->fr;
	size_t n = q->frn, k = 0;

	if (n == EVQ_FRONT_MAX)
		k = EVQ_FRONT_EVICT + 1;
	else
		while (k < n && k <= EVQ_FRONT_EVICT && hless(&e, &h[n - 1 - k]))
			k++;
	if (k > EVQ_FRONT_WALK || h + n == q->fra + EVQ_FRONT_ROOM) {
		far_insert_slow(q, e, k);
		return;
	}
	front_put(q, e);
	/* e the front's new head; else it sorts after that head, so ftop, the
	 * far least before the put, stays */
	if (k == n)
		far_note(q);
}

/* Take slot s's far entry out; returns its key. */
static uint64_t
far_take(struct evq *q, uint32_t s)
{
	uint64_t key;
	size_t i;

	if (q->slots[s].pos == EVQ_INFRONT) {
		i = sa_find(q->fr, q->frn, s);
		key = q->fr[i].key;
		sa_remove(&q->fr, &q->frn, i);
		if (q->frn == 0)
			q->fr = q->fra;
		far_note(q);
		return key;
	}
	far_fill(q);	/* (it may move the entry: its pos read after) */
	i = heap_find(q->fh, q->fn, q->slots[s].pos & ~EVQ_FAR_BIT, s);
	key = q->fh[i].key;
	far_remove(q, i);
	return key;
}

static inline void
near_insert(struct evq *q, struct evq_hent e)
{
	least_add(q, e.time);	/* (a hole's least child's time with it too) */
	if (q->t.form == EVQ_SORTED && q->t.n < EVQ_SORT_MAX) {
		sorted_insert(q, e);
		return;
	}
	if (q->t.form == EVQ_HOLE) {	/* the popped root's place: one sift instead of two */
		q->t.form = EVQ_HEAP;
		sift_down(q->slots, q->t.h, q->t.n, 0, e, 0);
		return;
	}
	if (q->t.form == EVQ_SORTED)
		to_heap(q);
	if (q->t.n == q->cap)
		heap_grow(q);
	q->t.n++;
	sift_up(q->slots, q->t.h, q->t.n - 1, e, 0);
}

/* The near part or the far part takes (t, key) (is_far).  One unsigned
 * compare finds a near t, which is then at or after the latest pop and so
 * not negative, as hless_nb needs: the test of t >= 0 is left to a t
 * before the latest pop (no push through struct sim makes one: sim_at
 * asserts now or later), 2 instructions fewer a near push.  (One call of
 * near_insert: a second, and gcc no longer inlined it in the pushes.) */
static inline void
heap_insert_key(struct evq *q, sim_time_t t, uint64_t key)
{
	struct evq_hent e;
	sim_time_t d = t - q->now;

	e.time = t;
	e.key = key;
	if ((uint64_t)d >= (uint64_t)EVQ_HORIZON) {
		if (d >= 0) {
			far_insert(q, e);
			return;
		}
		VS_ASSERT(t >= 0);	/* hless_nb */
	}
	near_insert(q, e);
}

static inline evq_id
id_of(const struct evq *q, uint32_t s)
{
	return (s + 1) | q->slots[s].gen;
}

static inline __attribute__((always_inline)) evq_id
push(struct evq *q, sim_time_t t, void (*fn)(void *, void *, int64_t), void *arg,
    int64_t data, uint64_t class)
{
	uint32_t s = slot_fill(q, fn, arg, data);
	evq_id id = id_of(q, s);	/* before the insert: one register kept across it */

	heap_insert_key(q, t, key_next(q, s, class));
	return id;
}

evq_id
evq_push(struct evq *q, sim_time_t t, void (*fn)(void *, void *, int64_t),
    void *arg, int64_t data)
{
	return push(q, t, fn, arg, data, EVQ_ORDINARY);
}

/* The key evq_reserve would give now, not taken (a key relative to it
 * repeats in a periodic run: models/guest/ring_ff.c) */
uint64_t
evq_next_key(const struct evq *q)
{
	return q->nkey;
}

uint64_t
evq_reserve(struct evq *q)
{
	return key_take(q);
}

evq_id
evq_push_key(struct evq *q, sim_time_t t, uint64_t key, void (*fn)(void *, void *, int64_t),
    void *arg, int64_t data)
{
	uint32_t s = slot_fill(q, fn, arg, data);
	evq_id id = id_of(q, s);	/* before the insert, as push's */

	heap_insert_key(q, t, key | s);
	return id;
}

evq_id
evq_push_early(struct evq *q, sim_time_t t, void (*fn)(void *, void *, int64_t),
    void *arg, int64_t data)
{
	return push(q, t, fn, arg, data, 0);
}

int
evq_lane(struct evq *q, sim_time_t tag)
{
	struct lane *ln;
	int l;

	for (l = 0; l < q->nlanes; l++)
		if (q->lanes[l].tag == tag)
			return l;
	if (q->nlanes == EVQ_LANES)
		return -1;
	ln = &q->lanes[q->nlanes];
	memset(ln, 0, sizeof *ln);
	ln->tag = tag;
	ln->cap = 16;
	q->lhd[q->nlanes] = LANE_EMPTY;
	ln->r = xcalloc(ln->cap, sizeof *ln->r);
	return q->nlanes++;
}

/* Double a full ring, dropping its tombstones; the live entries' slots learn
 * their new places. */
static void
lane_grow(struct evq *q, int l)
{
	struct lane *ln = &q->lanes[l];
	uint32_t i, k = 0, ncap = ln->cap * 2;
	struct evq_hent *nr;

	if (ncap - 1 > EVQ_RING_MASK)
		vs_fatal("event queue: lane %d holds more than %u events", l, EVQ_RING_MASK);
	nr = xcalloc(ncap, sizeof *nr);
	for (i = 0; i < ln->n; i++) {
		struct evq_hent e = ln->r[(ln->head + i) & (ln->cap - 1)];

		if (e.key == EVQ_DEAD)
			continue;
		q->slots[e.key & EVQ_SLOT_MASK].pos = lane_pos(l, k);
		nr[k++] = e;
	}
	free(ln->r);
	ln->r = nr;
	ln->cap = ncap;
	ln->head = 0;
	ln->n = k;
}

/* Lane l's head, which is live (lane_trim). */
static inline struct evq_hent *
lane_head(const struct evq *q, int l)
{
	const struct lane *ln = &q->lanes[l];

	return &ln->r[ln->head];
}

/*
 * lmin again, after the head of lane lmin went (a pop or a cancel).  A
 * lane's head only ever moves later, so only lmin's own head going can
 * change which lane is least; a new head of an empty lane is compared as
 * it comes (lane_insert).  evq_min then compares one lane head with the
 * heap's top instead of every lane's.
 */
static void
lane_min(struct evq *q)
{
	int l, m = 0;

	for (l = 1; l < q->nlanes; l++)
		m = hless_nb(&q->lhd[l], &q->lhd[m]) ? l : m;
	q->lmin = q->lhd[m].key == EVQ_DEAD ? -1 : m;
	q->lh = q->lhd[m];
	side_note(q);
}

/* Append slot s at time t to lane l, or to the heap if that would break the
 * lane's order (an earlier time, or an early key after an ordinary one at
 * the same time). */
static void
lane_insert(struct evq *q, int l, uint32_t s, sim_time_t t, uint64_t class)
{
	uint64_t key = key_next(q, s, class);
	struct lane *ln;
	uint32_t i;

	if (l < 0 || l >= q->nlanes || (q->lanes[l].n > 0 && (t < q->lanes[l].last ||
	    (t == q->lanes[l].last && key < q->lanes[l].lastkey)))) {
		heap_insert_key(q, t, key);
		return;
	}
	ln = &q->lanes[l];
	if (ln->n == ln->cap)
		lane_grow(q, l);
	i = (ln->head + ln->n++) & (ln->cap - 1);
	ln->r[i].time = t;
	ln->r[i].key = key;
	ln->last = t;
	ln->lastkey = key;
	q->slots[s].pos = lane_pos(l, i);
	q->nlive++;
	if (ln->n == 1) {
		q->lhd[l] = ln->r[i];
		if (q->lmin < 0 || hless(&ln->r[i], &q->lh)) {
			q->lmin = l;
			q->lh = ln->r[i];
			side_note(q);
		}
	}
}

evq_id
evq_push_lane(struct evq *q, int lane, sim_time_t t, void (*fn)(void *, void *, int64_t),
    void *arg, int64_t data)
{
	uint32_t s = slot_fill(q, fn, arg, data);

	lane_insert(q, lane, s, t, EVQ_ORDINARY);
	return id_of(q, s);
}

evq_id
evq_push_lane_early(struct evq *q, int lane, sim_time_t t,
    void (*fn)(void *, void *, int64_t), void *arg, int64_t data)
{
	uint32_t s = slot_fill(q, fn, arg, data);

	lane_insert(q, lane, s, t, 0);
	return id_of(q, s);
}

/* Drop lane l's head tombstones so its head is always live (or it is
 * empty), and note its head. */
static inline void
lane_trim(struct evq *q, int l)
{
	struct lane *ln = &q->lanes[l];

	while (ln->n > 0 && ln->r[ln->head].key == EVQ_DEAD) {
		ln->head = (ln->head + 1) & (ln->cap - 1);
		ln->n--;
	}
	q->lhd[l] = ln->n > 0 ? ln->r[ln->head] : LANE_EMPTY;
}

/* Take a lane entry out by its slot's pos (its slot stays allocated): a
 * tombstone, dropped at once if it is the head. */
static void
lane_remove(struct evq *q, uint32_t pos)
{
	int l = (int)((pos & ~EVQ_LANE_BIT) >> EVQ_LANE_SHIFT);
	struct lane *ln = &q->lanes[l];

	lane_ent(q, pos)->key = EVQ_DEAD;
	q->nlive--;
	if ((pos & EVQ_RING_MASK) == ln->head) {
		lane_trim(q, l);
		if (l == q->lmin)
			lane_min(q);
	}
}

/* Pop lane lmin's head (lane_remove without the tombstone it would drop). */
static void
lane_pop(struct evq *q)
{
	struct lane *ln = &q->lanes[q->lmin];

	ln->head = (ln->head + 1) & (ln->cap - 1);
	ln->n--;
	q->nlive--;
	lane_trim(q, q->lmin);
	lane_min(q);
}

/* Take heap index i out, refilling the hole with the last entry. */
static void
heap_remove(struct evq *q, size_t i)
{
	struct evq_hent last = q->t.h[--q->t.n];

	if (i < q->t.n)
		hplace(q->slots, q->t.h, q->t.n, i, last, 0);
}

/*
 * A pop of the heap's root leaves its place empty (hole) while the heap
 * stays larger than EVQ_SORT_MIN: the push that mostly follows (the popped
 * event's handler schedules the next) takes the place with one sift down,
 * where a remove and a push took a sift down of the last entry and a sift
 * up.  Any other use of the heap refills the place first, as the pop did
 * before.  The set of pending events is the same either way and their
 * order a total one, so the pop order does not change.
 */
static inline void
fill_hole(struct evq *q)
{
	if (q->t.form == EVQ_HOLE) {
		q->t.form = EVQ_HEAP;
		heap_remove(q, 0);
		VS_ASSERT(q->t.n > EVQ_SORT_MIN);
	}
}

/* The least entry under a heap's hole: the root's children, all 4 there (a
 * hole leaves more than EVQ_SORT_MIN near entries, more than 4 far ones), a
 * tournament as sift_down's. */
static inline const struct evq_hent *
hole_min(const struct evq_hent *h)
{
	size_t a = 1 + hless_nb(&h[2], &h[1]);
	size_t b = 3 + hless_nb(&h[4], &h[3]);

	return &h[hless_nb(&h[b], &h[a]) ? b : a];
}

/*
 * Pop the far root.  The far push that mostly follows before any other use
 * of the far heap (a host slice's end pushes the next: 97% of the far pops
 * of seed001-x5570 3x before the far front) takes its place with one sift
 * down, where a remove and a push took a sift down and a sift up;
 * meanwhile the root holds a copy of its least child, the far heap's least
 * entry, for evq_min, side_note and the peeks.  The pending events and
 * their total order are the same either way.  Out of line: the front's pop
 * is the pop's common far case (seed001-x5570 3x: 90%).
 */
static __attribute__((noinline)) void
back_pop(struct evq *q)
{
	far_fill(q);	/* (the least is the copy's entry, which the root holds again) */
	if (q->fn > 4) {
		q->fh[0] = *hole_min(q->fh);
		q->fhole = 1;
		far_note(q);
	} else
		far_remove(q, 0);
}

/* Pop the far part's least: the front's head, else the far root. */
static inline void
far_pop(struct evq *q)
{
	if (q->ftop != q->fr) {
		back_pop(q);
		return;
	}
	if (--q->frn == 0)
		q->fr = q->fra;
	else
		q->fr++;
	far_note(q);
}

/* Take index i out of the sorted array or the heap. */
static void
ent_remove(struct evq *q, size_t i)
{
	if (q->t.form == EVQ_SORTED)
		sorted_remove(q, i);
	else {
		heap_remove(q, i);
		if (q->t.n <= EVQ_SORT_MIN)
			to_sorted(q);
	}
	least_note(q);
}

/*
 * Move a pending event to time t with new payload, in its own slot: the same
 * order as cancel + push (it takes the next seq, as a push would), at the
 * cost of one sift instead of a remove, a slot free/alloc and a push.  It
 * stays ordinary or early.
 */
evq_id
evq_move(struct evq *q, evq_id id, sim_time_t t, void (*fn)(void *, void *, int64_t),
    void *arg, int64_t data)
{
	struct slot *sl = slot_of(q, id);
	struct evq_hent e;
	size_t i;
	uint32_t s;

	if (sl == NULL)
		return evq_push(q, t, fn, arg, data);
	s = (uint32_t)(sl - q->slots);
	sl->fn = fn;
	sl->arg = arg;
	sl->data = data;
	if (sl->pos & EVQ_LANE_BIT) {	/* out of its lane, into the heap */
		uint64_t class = lane_ent(q, sl->pos)->key & EVQ_ORDINARY;

		lane_remove(q, sl->pos);
		sl->pos = EVQ_INSORT;	/* (as slot_fill's: top comment) */
		heap_insert_key(q, t, key_next(q, s, class));
		return id;
	}
	VS_ASSERT(t >= 0);	/* hless_nb */
	e.time = t;
	/* (rare: seed001-x5570 3x moves 0.3% of the far ones; not through
	 * heap_insert_key: one more call of it and LTO no longer inlined it in
	 * the pushes, seed001-x7560 3x +0.2% instructions) */
	if (sl->pos & EVQ_FAR_BIT) {
		e.key = key_next(q, s, far_take(q, s) & EVQ_ORDINARY);
		sl->pos = EVQ_INSORT;	/* (as slot_fill's: top comment) */
		if (is_far(q, t))
			far_insert(q, e);
		else
			near_insert(q, e);
		return id;
	}
	fill_hole(q);
	i = q->t.form == EVQ_SORTED ? sorted_find(q, s) :
		    heap_find(q->t.h, q->t.n, sl->pos, s);
	e.key = key_next(q, s, q->t.h[i].key & EVQ_ORDINARY);
	if (is_far(q, t)) {
		ent_remove(q, i);
		far_insert(q, e);
	} else {
		if (q->t.form == EVQ_SORTED)
			sorted_replace(q, i, e);
		else	/* the new key is never smaller in seq: only an earlier time moves up */
			hplace(q->slots, q->t.h, q->t.n, i, e, 0);
		least_note(q);
	}
	return id;
}

int
evq_cancel(struct evq *q, evq_id id)
{
	struct slot *sl = slot_of(q, id);
	uint32_t s;

	if (sl == NULL)
		return 0;
	s = (uint32_t)(sl - q->slots);
	if (sl->pos & EVQ_LANE_BIT) {
		VS_ASSERT((lane_ent(q, sl->pos)->key & EVQ_SLOT_MASK) == s);
		lane_remove(q, sl->pos);
	} else if (sl->pos & EVQ_FAR_BIT) {
		far_take(q, s);
	} else {
		size_t i;

		fill_hole(q);
		i = q->t.form == EVQ_SORTED ? sorted_find(q, s) :
		    heap_find(q->t.h, q->t.n, sl->pos, s);
		VS_ASSERT(i < q->t.n && (q->t.h[i].key & EVQ_SLOT_MASK) == s);
		ent_remove(q, i);
	}
	slot_free(q, s);
	return 1;
}

/* Start loading the first two lines of entry e's payload object. */
static inline void
prefetch_arg(const struct evq *q, const struct evq_hent *e)
{
	uintptr_t a = (uintptr_t)q->slots[e->key & EVQ_SLOT_MASK].arg;

	__builtin_prefetch((const void *)a);	/* (an integer: arg may be NULL) */
	__builtin_prefetch((const void *)(a + 64));
}

/* The earliest event's entry (the near part's head, the far part's least
 * or the least lane head), NULL: none.  (Branch-free selects of the three were
 * slower: seed001-x5570 3x +5% CPU; the first compare mostly decides.) */
static inline const struct evq_hent *
evq_min(const struct evq *q)
{
	const struct evq_hent *best = q->t.n ? &q->t.h[0] : NULL;

	if (best != NULL && best->time < q->t.side)
		return best;	/* before the far top, every lane and ghost */
	if (q->ftop != NULL && (best == NULL || hless(q->ftop, best)))
		best = q->ftop;
	if (q->lmin >= 0 && (best == NULL || hless(&q->lh, best)))
		best = &q->lh;
	return best;
}

/* The ghost at the ring's head, if it comes before min (NULL: none). */
static inline const struct ghost *
ghost_first(const struct evq *q, const struct evq_hent *min)
{
	if (min == NULL ? q->gn == 0 : hless(min, &q->gh))
		return NULL;
	return &q->gr[q->ghead];
}

/* A first stage's handler in its slot (never called: the queue passes it) */
static void
then_first(void *ctx, void *arg, int64_t data)
{
	(void)ctx;
	(void)arg;
	(void)data;
	VS_ASSERT(!"a two-stage entry's first stage run");
}

static void ghost_pop(struct evq *, const struct evq_hent *, sim_time_t);
static void ghost_trim(struct evq *);
static void then_pass(struct evq *, const struct evq_hent *);

/*
 * A two-stage entry's first stage passed: min, the least entry (no hole),
 * its slot's: the queue's clock moves there as a pop's would, and the
 * entry moves to its second time under the next key, as the push its
 * event would make there takes it (evq_move's order), with its second
 * handler; no handler runs.  Most often it stays near: the head takes its
 * new entry in place (the heap's root sifts down; the sorted array's head
 * walks to its place), with neither evq_move's search nor a pop's and a
 * push's.  (evq.h evq_push_then.)
 */
static __attribute__((noinline)) void
then_pass(struct evq *q, const struct evq_hent *min)
{
	uint32_t s = min->key & EVQ_SLOT_MASK;
	const struct then *th = &q->then[s];
	struct slot *sl = &q->slots[s];
	struct evq_hent e;

	q->now = min->time;
	if (min != q->t.h || is_far(q, th->time)) {
		evq_move(q, id_of(q, s), th->time, th->fn, sl->arg, sl->data);
		return;
	}
	sl->fn = th->fn;
	e.time = th->time;
	e.key = key_take(q) | s;
	if (q->t.form == EVQ_SORTED)
		sorted_replace(q, 0, e);
	else
		sift_down(q->slots, q->t.h, q->t.n, 0, e, 0);
	least_note(q);
}

/* The sorted array's head popped: it moves on, or the array is empty. */
static inline void
sorted_pop(struct evq *q)
{
	if (--q->t.n == 0)
		sorted_empty(q);
	else
		q->t.h++;
	least_note(q);
}

/* The heap's root popped (no hole): it leaves a hole, or the heap sorts
 * itself again. */
static inline void
heap_pop(struct evq *q)
{
	if (q->t.n - 1 > EVQ_SORT_MIN) {
		const struct evq_hent *m = hole_min(q->t.h);

		q->t.form = EVQ_HOLE;	/* refilled by the next push or use (fill_hole) */
		/* The root's place says the least child's time, which
		 * least_note (the peek's least) reads there without a test of
		 * the hole; nothing but least_note reads the place before
		 * fill_hole or the push's sift down, which do not read it
		 * either. */
		q->t.h[0].time = m->time;
		/* The least child is most often the next event: start loading
		 * the first two lines of its payload's object (a vCPU's guest
		 * state, cold with thousands of vCPUs) while this event runs.
		 * Loads only; with few pending events everything is in cache
		 * and they cost more than they save (pinned 4 vCPUs +2% CPU, CFS
		 * 4096 -7.5%). */
		if (q->t.n >= EVQ_PREFETCH_N)
			prefetch_arg(q, m);
	} else {
		heap_remove(q, 0);
		to_sorted(q);
	}
	least_note(q);
}

/* The near part's head popped (no hole). */
static inline void
near_pop(struct evq *q)
{
	if (q->t.form == EVQ_SORTED)
		sorted_pop(q);
	else
		heap_pop(q);
}

/*
 * The near part's head min (no hole) taken into *out, as a pop takes it
 * (sorted: of the sorted array, known); 0: it was a first stage, passed,
 * and the pop starts again.  Inline in the pop's two fast paths.
 */
static inline __attribute__((always_inline)) int
near_take(struct evq *q, const struct evq_hent *min, struct evq_ev *out, int sorted)
{
	uint32_t s = min->key & EVQ_SLOT_MASK;
	struct slot *sl = &q->slots[s];

	out->fn = sl->fn;
	if (__builtin_expect(out->fn == then_first, 0)) {
		then_pass(q, min);	/* a first stage (evq_push_then) */
		return 0;
	}
	out->time = min->time;
	out->seq = (min->key & ~EVQ_ORDINARY) >> EVQ_SLOT_BITS;
	out->arg = sl->arg;
	out->data = sl->data;
	q->now = min->time;
	if (sorted)
		sorted_pop(q);
	else
		heap_pop(q);
	slot_free(q, s);
	return 1;
}

/*
 * A pop.  The common one first: the near part's head strictly before the
 * rest (side: every far entry, lane head and ghost; an empty sorted
 * array's head says INT64_MAX, sorted_empty), which evq_min and
 * ghost_first would take, without their further tests.  Else the least of
 * the far part, the lanes and the near head (evq_min's), after the ghosts
 * before it.  The order is the same, evq_min's.
 */
int
evq_pop_until(struct evq *q, sim_time_t end, struct evq_ev *out)
{
	const struct evq_hent *min;
	const struct ghost *g;
	struct evq_hent top;
	struct slot *sl;
	uint32_t s;

again:
	min = q->t.h;
	if (q->t.form == EVQ_SORTED) {
		if (min->time < q->t.side) {
			if (min->time > end)
				return 0;
			if (near_take(q, min, out, 1))
				return 1;
			goto again;
		}
	} else {
		fill_hole(q);
		if (min->time < q->t.side) {
			if (min->time > end)
				return 0;
			if (near_take(q, min, out, 0))
				return 1;
			goto again;
		}
	}
	min = evq_min(q);
	while ((g = ghost_first(q, min)) != NULL) {
		if (g->time > end)
			return 0;
		if (g->fn != NULL) {	/* a ghost woken: the event itself */
			out->time = g->time;
			out->seq = (g->key & ~EVQ_ORDINARY) >> EVQ_SLOT_BITS;
			out->fn = g->fn;
			out->arg = g->arg;
			out->data = g->data;
			q->now = g->time;
			*g->at = -1;
			/* out of the ring, unmarked (nothing reads outside it) */
			q->ghead = (q->ghead + 1) & (q->gcap - 1);
			q->gn--;
			ghost_trim(q);
			return 1;
		}
		ghost_pop(q, min, end);
	}
	if (min == NULL || min->time > end)
		return 0;
	top = *min;
	s = top.key & EVQ_SLOT_MASK;
	sl = &q->slots[s];
	out->fn = sl->fn;
	if (__builtin_expect(out->fn == then_first, 0)) {
		then_pass(q, min);	/* a first stage (evq_push_then) */
		goto again;
	}
	out->time = top.time;
	out->seq = (top.key & ~EVQ_ORDINARY) >> EVQ_SLOT_BITS;
	out->arg = sl->arg;
	out->data = sl->data;
	q->now = top.time;
	if (min == q->ftop) {
		far_pop(q);
		if (q->fn >= EVQ_PREFETCH_N)
			prefetch_arg(q, q->ftop);
	} else if (min != q->t.h)	/* lane lmin's head */
		lane_pop(q);
	else
		near_pop(q);
	slot_free(q, s);
	return 1;
}

int
evq_pop(struct evq *q, struct evq_ev *out)
{
	return evq_pop_until(q, INT64_MAX, out);
}

int
evq_first_before(struct evq *q, sim_time_t t, uint64_t key)
{
	const struct evq_hent e = { t, key }, *min;
	const struct ghost *g;

	if (evq_peek_time(q) > t)
		return EVQ_NONE_BEFORE;	/* the usual answer, without the hole's refill */
	fill_hole(q);
	min = evq_min(q);
	if ((g = ghost_first(q, min)) != NULL)
		return !hless(&q->gh, &e) ? EVQ_NONE_BEFORE :
		    g->fn != NULL ? EVQ_EVENT_BEFORE : EVQ_GHOST_BEFORE;
	if (min == NULL || !hless(min, &e))
		return EVQ_NONE_BEFORE;
	if (__builtin_expect(q->slots[min->key & EVQ_SLOT_MASK].fn == then_first, 0)) {
		/* a first stage: passed here, as the pop would pass it */
		then_pass(q, min);
		return evq_first_before(q, t, key);
	}
	return EVQ_EVENT_BEFORE;
}

/* Room in the second stages' array for slot s (cold: it grows as the slots) */
static __attribute__((noinline, cold)) void
then_grow(struct evq *q, uint32_t s)
{
	size_t ncap = q->slotcap > s ? q->slotcap : (size_t)s + 1;

	q->then = xrealloc(q->then, ncap * sizeof *q->then);
	q->thencap = ncap;
}

evq_id
evq_push_then(struct evq *q, sim_time_t t, sim_time_t t2,
    void (*fn)(void *, void *, int64_t), void *arg, int64_t data)
{
	uint32_t s = slot_fill(q, then_first, arg, data);
	evq_id id = id_of(q, s);

	VS_ASSERT(t2 >= t && fn != NULL);
	if (s >= q->thencap)
		then_grow(q, s);
	q->then[s].time = t2;
	q->then[s].fn = fn;
	heap_insert_key(q, t, key_next(q, s, EVQ_ORDINARY));
	return id;
}

int
evq_then_pending(const struct evq *q, evq_id id)
{
	const struct slot *sl = slot_of(q, id);

	return sl != NULL && sl->fn == then_first;
}

void
evq_then_drop(struct evq *q, evq_id id, void (*fn)(void *, void *, int64_t), int64_t data)
{
	struct slot *sl = slot_of(q, id);

	VS_ASSERT(sl != NULL && sl->fn == then_first && fn != NULL);
	sl->fn = fn;
	sl->data = data;
}

size_t
evq_size(const struct evq *q)
{
	return q->t.n - (size_t)(q->t.form == EVQ_HOLE) + q->frn + q->fn - (size_t)q->fhole + q->nlive;
}

int
evq_pending(const struct evq *q, evq_id id)
{
	return slot_of(q, id) != NULL;
}

/*
 * Ghosts.  An event that, each time it fires, would only push itself again
 * one period on and change nothing else keeps its place in the order
 * without being run: at its (time, key) the ring's head is taken as the pop
 * would take it (the queue's clock moves there) and appended a period on
 * with the key its own push would have taken then (key_next), so every
 * event keeps the order it had against it, and every peek sees it as the
 * pending event it stands for.  Appended in pop order, a period on, the
 * ring stays in (time, key) order, as a lane does.
 */
/* The first live place from h on (n places in the ring from h, counted
 * down past the tombstones); the ring's fields in locals: through q, each
 * test reloaded them. */
static inline uint32_t
ghost_live(const struct ghost *r, uint32_t h, uint32_t *n, uint32_t mask)
{
	while (*n > 0 && r[h].at == NULL) {
		h = (h + 1) & mask;
		--*n;
	}
	return h;
}

static void
ghost_trim(struct evq *q)
{
	uint32_t n = q->gn;

	q->ghead = ghost_live(q->gr, q->ghead, &n, q->gcap - 1);
	q->gn = n;
	q->gh.time = n > 0 ? q->gr[q->ghead].time : INT64_MAX;
	q->gh.key = n > 0 ? q->gr[q->ghead].key : 0;
	side_note(q);
}

/* The ghost at (t, key) for *at, at the ring's tail, where there is room. */
static inline void
ghost_put(struct evq *q, sim_time_t t, uint64_t key, int32_t *at)
{
	uint32_t n = q->gn, i = (q->ghead + n) & (q->gcap - 1);
	struct ghost *g = &q->gr[i];

	q->gn = n + 1;
	g->time = t;
	g->key = key;
	g->at = at;
	g->fn = NULL;
	*at = (int32_t)i;
	if (n == 0) {
		q->gh.time = t;
		q->gh.key = key;
		side_note(q);
	}
}

/* The ring doubled, then the ghost put; returns 1, evq_ghost's answer.  Out
 * of line and a tail call: inline, or a call evq_ghost returned from, its
 * registers cost every evq_ghost a longer prologue. */
static __attribute__((noinline, cold)) int
ghost_grow_put(struct evq *q, sim_time_t t, uint64_t key, int32_t *at)
{
	uint32_t cap = q->gcap ? 2 * q->gcap : 16, k;
	struct ghost *r = xcalloc(cap, sizeof *r);

	for (k = 0; k < q->gn; k++) {
		r[k] = q->gr[(q->ghead + k) & (q->gcap - 1)];
		if (r[k].at != NULL)
			*r[k].at = (int32_t)k;
	}
	free(q->gr);
	q->gr = r;
	q->gcap = cap;
	q->ghead = 0;
	ghost_put(q, t, key, at);
	return 1;
}

/*
 * The head ghost popped and put a period on at the tail, in one pass: the
 * head's place it leaves is the room the tail takes (the same place when
 * the ring is full), so the ring neither grows nor changes its count here.
 * The place left is outside the ring unless it is the tail, and nothing
 * reads outside it, so it is not marked.  Then the next, while the new head
 * is a ghost (not woken) before min (NULL: nothing else pending) and not
 * past end: the ring's fields stay in registers between them, and the
 * head and the peek are noted once.  (ghost_append then ghost_trim cost 76
 * instructions a ghost pop: seed001-x5570 3x pops 44.7 M ghosts a run, 44%
 * of them right after another.)
 */
static __attribute__((noinline)) void
ghost_pop(struct evq *q, const struct evq_hent *min, sim_time_t end)
{
	struct ghost *r = q->gr;
	uint32_t mask = q->gcap - 1, h = q->ghead, n = q->gn, i;
	struct evq_hent head;
	uint64_t pops = 0;
	int32_t *at;

	do {
		i = (h + n) & mask;
		at = r[h].at;
		q->now = r[h].time;
		r[i].time = q->now + q->gper;
		r[i].key = key_take(q);
		r[i].at = at;
		r[i].fn = NULL;
		*at = (int32_t)i;
		pops++;
		h = ghost_live(r, (h + 1) & mask, &n, mask);	/* the tail is live */
		head.time = r[h].time;
		head.key = r[h].key;
	} while (r[h].fn == NULL && head.time <= end && (min == NULL || hless(&head, min)));
	q->gpops += pops;
	q->ghead = h;
	q->gn = n;
	q->gh = head;
	side_note(q);
}

int
evq_ghost(struct evq *q, sim_time_t per, int32_t *at)
{
	sim_time_t t = q->now + per;
	uint64_t key;
	uint32_t tail;

	if (q->gn > 0) {
		tail = (q->ghead + q->gn - 1) & (q->gcap - 1);
		if (per != q->gper || t < q->gr[tail].time)
			return 0;	/* out of the ring's order: a real push */
	}
	q->gper = per;
	key = key_take(q);
	if (q->gn == q->gcap)
		return ghost_grow_put(q, t, key, at);
	ghost_put(q, t, key, at);
	return 1;
}

sim_time_t
evq_ghost_time(const struct evq *q, int32_t at)
{
	return q->gr[at].time;
}

static void
ghost_drop(struct evq *q, int32_t *at)
{
	q->gr[*at].at = NULL;
	*at = -1;
	ghost_trim(q);
}

void
evq_ghost_wake(struct evq *q, int32_t at, void (*fn)(void *, void *, int64_t), void *arg,
    int64_t data)
{
	struct ghost *g = &q->gr[at];

	g->fn = fn;
	g->arg = arg;
	g->data = data;
}

void
evq_ghost_cancel(struct evq *q, int32_t *at)
{
	if (*at >= 0)
		ghost_drop(q, at);
}

uint64_t
evq_ghost_pops(const struct evq *q)
{
	return q->gpops;
}
