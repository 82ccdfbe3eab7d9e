/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * lock.c - the glue every spinlock algorithm shares (lock.h): the cache
 * line costs of taking and handing over a lock word, the spin and watch
 * of waiters, the critical section's data lines, and the wait clocks that
 * split a wait into lock-holder preemption, hand-over and the rest.
 */
#include "guest/lock.h"

#include <stdlib.h>
#include <string.h>

#include "ffsnap.h"
#include "hv/hv.h"
#include "stats.h"
#include "guest/ticket_word.h"

_Static_assert(sizeof(struct lock_node) == 64, "a lock node is one line (lock.h)");

/* n zeroed elements: a renewed lock's own array cleared, else a new one
 * (line-aligned where the hot path reads it per vCPU). */
static void *
lock_array(void *keep, size_t n, size_t size, int line)
{
	if (keep != NULL)
		return memset(keep, 0, n * size);
	return line ? xcalloc_line(n, size) : xcalloc(n, size);
}

/* Everything lock_new sets, on l zeroed but for the arrays a renewed lock
 * keeps (NULL in a new one); keep: the algorithm's state to renew, or NULL. */
static void
lock_init(struct glock *l, const struct lock_ops *ops, const void *cfg, const char *name,
    struct vm *vm, const struct lock_lines *lines, const struct lock_client *client,
    void *keep)
{
	size_t n = (size_t)vm->nvcpus;
	int i;

	l->ops = ops;
	l->client = client;
	l->name = xstrdup(name);
	l->vm = vm;
	l->hv = vm->hv;
	l->sim = vm->hv->sim;
	l->last_p = l->hv->nowhere;	/* (nobody wrote them yet) */
	l->data_p = l->hv->nowhere;
	l->cs_lines = lines->cs;
	l->stream_lines = lines->stream;
	l->word_lines = lines->word;
	l->req_lines = lines->req;
	l->req_stream = lines->req_stream;
	l->node = lock_array(l->node, n, sizeof *l->node, 1);
	for (i = 0; i < vm->nvcpus; i++) {
		l->node[i].wait_since = -1;
		l->node[i].req_pcpu = -1;
		l->node[i].pool_put = (unsigned char)(i & 1);	/* half of them put first */
	}
	l->spin_sock = lock_array(l->spin_sock, (size_t)l->hv->m->sockets, sizeof *l->spin_sock, 0);
	if (l->hv->m->threads_per_core > 1)
		l->spin_core = lock_array(l->spin_core, (size_t)l->hv->m->npcpus,
		    sizeof *l->spin_core, 0);
	if (ops->reads_word != NULL)
		l->spinners = lock_array(l->spinners, n, sizeof *l->spinners, 0);
	l->spin_books = (unsigned char)((l->spin_core != NULL ? LOCK_SPIN_CORE : 0) |
	    (l->spinners != NULL ? LOCK_SPIN_LIST : 0));
	l->tkt_native = ops->take == lock_ticket_take && ops->release == lock_ticket_release &&
	    ops->observe == lock_ticket_observe;
	l->pool_batches = lines->pool_batches;
	l->pool_avail = lines->pool_fill;
	l->slow_lines = lines->slow_lines;
	l->slow_word = lines->slow_word;
	l->slow_ns = lines->slow_ns;
	l->plain = l->stream_lines <= 0 && l->word_lines <= 0 &&
	    l->req_lines + l->req_stream <= 0 && l->pool_batches == 0;
	l->check_fifo = ops->fifo && l->hv->check >= 3;
	if (l->check_fifo)
		l->arrival = lock_array(l->arrival, n, sizeof *l->arrival, 0);
	if (l->st.wait != NULL)
		hist_reset(l->st.wait);
	else
		l->st.wait = hist_new();
	l->priv = keep != NULL ? ops->renew(l, keep, cfg) : ops->create(l, cfg);
}

/* The ring fast-forward's state (ring_ff.c, which frees it: this file
 * does not call it) */
static void
ring_drop(struct glock *l)
{
	if (l->ring != NULL)
		l->ring_free(l);
}

struct glock *
lock_new(const struct lock_ops *ops, const void *cfg, const char *name, struct vm *vm,
    const struct lock_lines *lines, const struct lock_client *client)
{
	struct glock *l = xcalloc(1, sizeof *l);

	lock_init(l, ops, cfg, name, vm, lines, client, NULL);
	return l;
}

void
lock_renew(struct glock *l, const void *cfg, const char *name,
    const struct lock_lines *lines, const struct lock_client *client)
{
	struct glock keep;

	ring_drop(l);
	keep = *l;
	if (l->ops->renew == NULL) {
		lock_op_destroy(l->ops, l->priv);
		keep.priv = NULL;
	}
	free(l->name);
	memset(l, 0, sizeof *l);
	l->node = keep.node;
	l->spin_sock = keep.spin_sock;
	l->spin_core = keep.spin_core;
	l->spinners = keep.spinners;
	l->arrival = keep.arrival;
	l->st.wait = keep.st.wait;
	lock_init(l, keep.ops, cfg, name, keep.vm, lines, client, keep.priv);
}

/*
 * The lock's hold clock: the time its released holds took, each counted at
 * its release, from the free clock (lock_free_clock), since the lock is
 * always held or free: at a release it stands at its release time less the
 * free time so far (now the free clock's start, free_since); a take moves
 * neither (its free clock closes at now, its hold starts at now).  Whole ns.
 */
static inline int64_t
lock_hold_clock(const struct glock *l)
{
	return (l->holder != NULL ? l->hold_since : l->free_since) - (int64_t)l->free_closed;
}

uint64_t
lock_contended(const struct glock *l)
{
	return hist_nonzero(l->st.wait);
}

double
lock_wait_ns(const struct glock *l)
{
	/* (the sum enter once kept beside it added the same values, waits
	 * of 0 adding nothing to either, in the same order) */
	return hist_sum(l->st.wait);
}

double
lock_hold_ns(const struct glock *l)
{
	/* (the sum leave once added, hold by hold, in doubles: the same
	 * integer, all of them whole ns below 2^53) */
	return (double)(lock_hold_clock(l) - l->st.hold_base);
}

void
lock_stats_reset(struct glock *l)
{
	struct hist *w = l->st.wait;

	memset(&l->st, 0, sizeof l->st);
	l->st.hold_base = lock_hold_clock(l);
	hist_reset(w);
	l->st.wait = w;
	ring_drop(l);	/* its snapshots' counters start again */
	l->ring_at = 0;
}

void
lock_free(struct glock *l)
{
	if (l == NULL)
		return;
	lock_op_destroy(l->ops, l->priv);
	ring_drop(l);
	hist_free(l->st.wait);
	free(l->node);
	free(l->arrival);
	free(l->spin_sock);
	free(l->spin_core);
	free(l->spinners);
	free(l->name);
	free(l);
}

int
lock_waiting(const struct glock *l)
{
	int i, n = 0;

	for (i = 0; i < l->vm->nvcpus; i++)
		n += l->node[i].wait_since >= 0;
	return n;
}

/*
 * l's state in a snapshot of a periodic run (ring_ff.c): every field as it
 * is, but its clocks (shifted by the period), its counters and its float
 * sums, each of whole ns (differences of clocks), which a cycle advances by
 * the same step; then the algorithm's own (ops->ffs).  0: l has state this
 * does not list (--check=full's turns, an algorithm without ffs).
 */
int
lock_ffs(struct ffs *s, struct glock *l)
{
	int i;

	if (l->ops->ffs == NULL || l->check_fifo || l->spinners != NULL)
		return 0;
	ffs_bytes(s, l, sizeof *l);
	ffs_skip(s, &l->ring_at, sizeof l->ring_at);	/* the looks' own, not the model's */
	ffs_count(s, &l->lhp_closed);
	ffs_count(s, &l->free_closed);
	ffs_time(s, &l->free_since);
	ffs_time(s, &l->hold_since);
	ffs_count(s, &l->st.acquisitions);
	ffs_fsum(s, &l->st.wait_lhp_ns);
	ffs_fsum(s, &l->st.wait_free_ns);
	ffs_fsum(s, &l->st.path_ns);
	hist_ffs(s, l->st.wait);
	for (i = 0; i < l->vm->nvcpus; i++) {
		struct lock_node *n = &l->node[i];

		ffs_bytes(s, n, sizeof *n);
		if (n->wait_since >= 0) {
			ffs_time(s, &n->wait_since);
			ffs_count(s, &n->lhp_at);
			ffs_count(s, &n->free_at);
		} else {
			/* the last wait's, read only while waiting (lock_acquire sets them) */
			ffs_skip(s, &n->lhp_at, sizeof n->lhp_at);
			ffs_skip(s, &n->free_at, sizeof n->free_at);
		}
	}
	ffs_bytes(s, l->spin_sock, (size_t)l->hv->m->sockets * sizeof *l->spin_sock);
	if (l->spin_core != NULL)
		ffs_bytes(s, l->spin_core, (size_t)l->hv->m->npcpus * sizeof *l->spin_core);
	l->ops->ffs(s, l);
	return 1;
}

/* models/README.md's line_ns[distance] from the pCPU that wrote it last
 * (from: a pCPU or hv->nowhere) to `to`, local when `to` is on no pCPU.
 * Where `to` runs, pcpu_line_ns alone (the hot paths: release, poke,
 * enter). */
static inline double
line_to(const struct glock *l, const struct pcpu *from, const struct vcpu *to)
{
	if (to->pcpu == NULL)
		return l->hv->m->line_ns[HW_SAME];
	return pcpu_line_ns(from, to->pcpu);
}

/* lock_line_at, inline for this file's paths: line_to, from NULL local */
static inline double
line_at(const struct glock *l, const struct pcpu *from, const struct vcpu *to)
{
	return line_to(l, from != NULL ? from : l->hv->nowhere, to);
}

double
lock_line_at(const struct glock *l, const struct pcpu *from, const struct vcpu *to)
{
	return line_at(l, from, to);
}

/* The pCPU of an id (-1: none, NULL) */
static inline const struct pcpu *
id_pcpu(const struct glock *l, int id)
{
	return id < 0 ? NULL : &l->hv->pcpus[id];
}

double
lock_line_ns(const struct glock *l, int from, const struct vcpu *to)
{
	return line_at(l, id_pcpu(l, from), to);
}

/*
 * A streaming copy's misses are independent: each L1D miss holds a fill
 * buffer, so up to mlp of them are in flight at once (10 L1D line fill
 * buffers per core, Nehalem to Haswell: a secondary source, models/README.md
 * "Memory-level parallelism").  n lines cost ceil(n / mlp) latencies.
 */
double
lock_stream_ns(const struct glock *l, const struct pcpu *from, const struct vcpu *to, int n)
{
	int mlp = l->hv->m->mlp;

	if (n <= 0)
		return 0;
	return (double)((n + mlp - 1) / mlp) * line_at(l, from, to);
}

/* Lines the requester last wrote: local (-1) unless a combiner wrote them. */
static int
req_from(const struct glock *l, const struct vcpu *owner)
{
	int from = l->node[owner->idx].req_pcpu;

	return from < 0 && owner->pcpu != NULL ? owner->pcpu->id : from;
}

double
lock_reclaim_ns(struct glock *l, struct vcpu *v)
{
	const struct pcpu *from = id_pcpu(l, l->node[v->idx].req_pcpu);
	double ns;

	if (l->req_lines + l->req_stream == 0 || from == NULL)
		return 0;
	ns = l->req_lines * line_at(l, from, v) + lock_stream_ns(l, from, v, l->req_stream);
	l->node[v->idx].req_pcpu = -1;
	return ns;
}

double
lock_seen_ns(const struct glock *l, const struct vcpu *v)
{
	return line_to(l, l->last_p, v);	/* (last_p: never NULL) */
}

/*
 * The waiters spinning on the word's line, by place: a waiter is counted
 * while it is inside acquire (node wait_since) and spins on a pCPU (guest.c
 * says so through lock_watch_ops), where it spins; so a release asks
 * "is any on another socket, another core of mine, my sibling" in O(1).
 */
/* v starts to count at its pCPU (the socket and core its pcpu keeps; the
 * per-core counts exist only with SMT: lock_init) */
static inline __attribute__((always_inline)) void
spin_add(struct glock *l, struct vcpu *v, struct lock_node *n)
{
	const struct pcpu *p = v->pcpu;
	unsigned books = l->spin_books;

	n->spin_at = p;
	if (books != 0) {	/* (spin_books: one test where neither is kept) */
		if (books & LOCK_SPIN_LIST) {
			n->spin_idx = l->nspin;
			l->spinners[l->nspin] = v;
		}
		if (books & LOCK_SPIN_CORE)
			l->spin_core[p->core]++;
	}
	l->nspin++;
	l->spin_sock[p->socket]++;
}

/* v stops counting where it counted (n->spin_at) */
static inline __attribute__((always_inline)) void
spin_del(struct glock *l, struct lock_node *n)
{
	const struct pcpu *p = n->spin_at;
	unsigned books = l->spin_books;

	if (books != 0) {
		if (books & LOCK_SPIN_LIST) {
			struct vcpu *last = l->spinners[l->nspin - 1];

			l->spinners[n->spin_idx] = last;
			l->node[last->idx].spin_idx = n->spin_idx;
		}
		if (books & LOCK_SPIN_CORE)
			l->spin_core[p->core]--;
	}
	l->nspin--;
	n->spin_at = NULL;
	l->spin_sock[p->socket]--;
}

/* guest.c: v spins on a pCPU now, or no more; it counts while also inside
 * acquire (the bodies inline: most calls change the counts).  guest.c says
 * "on" only where it had told the lock nothing or "off" (its spin_on 0),
 * and a count ends with spin_on 0 (off; enter: guest_spin_uncounted), so
 * v is not counted then (check_locks spin_counts_ok) */
static void
watch_spinning(struct glock *l, struct vcpu *v, int on)
{
	struct lock_node *n = &l->node[v->idx];

	if (!on) {
		if (n->spin_at != NULL)
			spin_del(l, n);
	} else if (n->wait_since >= 0)
		spin_add(l, v, n);
}

/* own_ns where only the listed spinners that ops->reads_word names read
 * the word: the farthest of them from v, or ns (out of line: a release of
 * any other lock keeps no registers for the loop) */
static __attribute__((noinline)) double
own_listed(const struct glock *l, const struct vcpu *v, double ns)
{
	int i;

	for (i = 0; i < l->nspin; i++) {
		const struct vcpu *w = l->spinners[i];
		double d;

		if (w == v || !l->ops->reads_word(l, w))
			continue;	/* it spins on a line of its own */
		d = line_at(l, w->pcpu, v);
		if (d > ns)
			ns = d;
	}
	return ns;
}

/*
 * MESI (Sorin, Hill, Wood, "A Primer on Memory Consistency and Cache
 * Coherence", 2011, ch. 6-7): a store needs the line in M.  The last writer
 * has it in M, and every waiter spinning on the word re-reads it after each
 * write, so holds it in S; the read-for-ownership invalidates all copies at
 * once: the farthest holder's transfer, a local hit if v alone has it.
 * The farthest is found from the spinners' counts by place (spin_add),
 * in constant time; where only some spinners read the word (an MCS queue:
 * ops->reads_word), from the list of spinners.  releasing: v releases l,
 * so runs (on v->pcpu) and, holding l, is not inside its acquire, where
 * alone it counts (watch_spinning; enter stopped its count): not a spinner.
 */
static inline __attribute__((always_inline)) double
own_ns(const struct glock *l, const struct vcpu *v, int releasing)
{
	const struct machine *m = l->hv->m;
	/* (a releaser runs: its pCPU is there) */
	double ns = releasing ? pcpu_line_ns(l->last_p, v->pcpu) : lock_seen_ns(l, v);
	int self, core, sock;

	if (!m->release_visibility || (!releasing && v->pcpu == NULL) || l->nspin == 0)
		return ns;
	if (l->spin_books & LOCK_SPIN_LIST)	/* ops->reads_word asks (lock_init) */
		return own_listed(l, v, ns);
	self = releasing ? 0 : l->node[v->idx].spin_at != NULL;
	/* One thread a core: a core's only spinner can be v itself (a vCPU is
	 * counted on the pCPU it runs on, and uncounted when it stops), so
	 * spin_core is neither kept nor read (with N/8 VMs it was a cold line
	 * of an npcpus-long array per lock and release) */
	core = l->spin_books & LOCK_SPIN_CORE ? l->spin_core[v->pcpu->core] : self;
	sock = l->spin_sock[v->pcpu->socket];
	if (l->nspin > sock && m->line_ns[HW_REMOTE] > ns)
		ns = m->line_ns[HW_REMOTE];
	if (sock > core && m->line_ns[HW_SOCKET] > ns)
		ns = m->line_ns[HW_SOCKET];
	if (core > self && m->line_ns[HW_SIBLING] > ns)
		ns = m->line_ns[HW_SIBLING];
	return ns;
}

/* (own_ns inline in lock_release: its call less at every release) */
double
lock_own_ns(const struct glock *l, const struct vcpu *v)
{
	return own_ns(l, v, 0);
}

/*
 * The spinner holds the word in S (it read the release); the RMW that takes
 * the lock needs M, so it first invalidates the other copies, the
 * releaser's and the other spinners' (MESI, as lock_own_ns: the upgrade
 * waits for the farthest one).  Without release_visibility the upgrade is
 * folded into the miss the spinner saw.
 */
double
lock_claim_ns(const struct glock *l, const struct vcpu *v)
{
	return (l->hv->m->release_visibility ? lock_own_ns(l, v) : 0) + lock_atomic_ns(l);
}

double
lock_handover_ns(const struct glock *l)
{
	return l->handover_ns;
}

/*
 * The waiter wrote its flag's line (node init, request record) and spins on
 * it: the store's read-for-ownership takes it from the waiter's pCPU, then
 * the waiter's next read brings it back -- two transfers (MESI, as
 * lock_own_ns); without release_visibility, one.
 */
double
lock_flag_ns(const struct glock *l, const struct vcpu *from, const struct vcpu *w)
{
	const struct machine *m = l->hv->m;
	int fp = from->pcpu != NULL ? from->pcpu->id : -1;
	double ns = line_at(l, from->pcpu, w);

	if (m->release_visibility)
		ns += m->line_ns[machine_dist(m, w->pcpu != NULL ? w->pcpu->id : w->last_pcpu,
		    fp)];
	return ns;
}

double
lock_atomic_ns(const struct glock *l)
{
	return l->hv->m->atomic_ns;
}

/* Tell the probe of a lock event of v on pcpu (out of line: with nobody
 * watching, a take or a release keeps no registers for its arguments) */
static __attribute__((noinline, cold)) void
lock_probe(const struct glock *l, enum probe_kind k, const struct vcpu *v, int pcpu)
{
	hv_probe(l->hv, k, v->id, pcpu, l, 0);
}

/* v's time runnable but not running (preempted by the host) up to now. */
static inline uint64_t
runnable_ns(const struct vcpu *v, sim_time_t now)
{
	return (uint64_t)(v->rs_time[RS_RUNNABLE] + (v->rs == RS_RUNNABLE ? now - v->rs_since : 0));
}

/* runnable_ns of v on a pCPU, which runs: hv.c sets rs RS_RUNNING with
 * v->pcpu at a switch-in and leaves it so until the switch-out (hv_block
 * and hv_wake do not change a vCPU that is still on its pCPU), so no
 * runnable stint is open */
static inline uint64_t
runnable_on_ns(const struct vcpu *v)
{
	return (uint64_t)v->rs_time[RS_RUNNABLE];
}

/* The lock's holder-preempted clock: the time its holders spent preempted
 * while holding it (Xen's runstate books of the holder's vCPU, hv/vcpu.c). */
static inline uint64_t
lock_lhp_clock(const struct glock *l, sim_time_t now)
{
	return l->lhp_closed + (l->holder != NULL ? runnable_ns(l->holder, now) - l->holder_rt0 : 0);
}

/* The lock's free clock: the time it had no holder. */
static inline uint64_t
lock_free_clock(const struct glock *l, sim_time_t now)
{
	return l->free_closed + (l->holder == NULL ? (uint64_t)(now - l->free_since) : 0);
}

/* v's wait begins: its clocks (its node's wait_since says it waits: lock_waiting) */
static inline void
wait_begin(struct glock *l, struct vcpu *v, sim_time_t now)
{
	l->node[v->idx].wait_since = now;
	l->node[v->idx].lhp_at = lock_lhp_clock(l, now);
	l->node[v->idx].free_at = lock_free_clock(l, now);
	if (l->hv->probe != NULL)
		lock_probe(l, PR_LOCK_WAIT, v, v->pcpu->id);
}

static void taken_at_once(struct glock *, struct vcpu *, double);

void
lock_acquire(struct glock *l, struct vcpu *v)
{
	double (*take)(struct glock *, struct vcpu *);
	double ns;

	VS_ASSERT(l->holder != v);
	guest_set_acquiring(v, l);
	if (l->check_fifo)
		l->arrival[v->idx] = l->arrivals++;
	if (l->tkt_native) {
		ns = tkt_lock_take(l, l->priv, v);	/* (patched in: lock.h) */
		if (ns < 0) {
			/* v queues (most takes under contention): the wait
			 * below, on a path where gcc knows the -1, not the
			 * double compared again after the take at once's test */
			wait_begin(l, v, l->sim->now);
			lock_wait(l, v, GUEST_FOREVER, NULL);
			return;
		}
	} else if ((take = l->ops->take) != NULL)
		ns = take(l, v);
	else {
		wait_begin(l, v, l->sim->now);
		l->ops->acquire(l, v);
		return;
	}
	if (ns >= 0 && l->hv->probe == NULL) {
		taken_at_once(l, v, ns);
		return;
	}
	/* (a take reads neither wait clock, and a probe sees the lock only by
	 * its address: a wait that begins after the take begins the same) */
	wait_begin(l, v, l->sim->now);
	if (ns >= 0)
		lock_taken(l, v, ns);
	else
		lock_wait(l, v, GUEST_FOREVER, NULL);
}

/*
 * v's section moves a batch through the pool: 1 if the pool cannot serve it
 * (mm/slab.c 4.3: transfer_objects finds the shared array empty, or
 * cache_flusharray finds it full), so the section takes the slow path.
 * (Inline: every take asks, most of them of a lock without a pool.)
 */
static inline int
pool_slow(struct glock *l, const struct vcpu *v)
{
	int put;

	if (l->pool_batches == 0)
		return 0;	/* (before the per-vCPU byte: no line touched) */
	put = l->node[v->idx].pool_put;
	l->node[v->idx].pool_put = (unsigned char)!put;
	if (put ? l->pool_avail == l->pool_batches : l->pool_avail == 0)
		return 1;
	l->pool_avail += put ? 1 : -1;
	return 0;
}

/* enter's lines past the cs_lines of a section that is not plain: the
 * pool, the streamed, word and requester's lines (out of line: a plain
 * take keeps no registers for them) */
static __attribute__((noinline)) double
enter_rich(struct glock *l, struct vcpu *v, const struct vcpu *runner, double lines)
{
	if (pool_slow(l, v)) {
		/* mm/slab.c 4.3 cache_alloc_refill's slab walk / free_block: struct
		 * page and freelist lines one after another, and the node's list
		 * heads and free_objects, which share list_lock's line */
		l->st.slow++;
		lines += l->slow_lines * line_at(l, l->data_p, runner) +
		    l->slow_word * line_at(l, l->last_p, runner) + l->slow_ns;
		if (l->slow_word > 0)
			l->last_p = runner->pcpu;
	} else
		lines += lock_stream_ns(l, l->data_p, runner, l->stream_lines);
	l->data_p = runner->pcpu;
	if (l->word_lines > 0) {
		/* mm/slab.h 4.3 kmem_cache_node: free_objects shares list_lock's
		 * line; an owner wrote the word just now, a combiner maybe not */
		lines += l->word_lines * line_at(l, l->last_p, runner);
		l->last_p = runner->pcpu;
	}
	if (l->req_lines + l->req_stream > 0) {
		/* mm/slab.c 4.3 transfer_objects: the memcpy's other side is
		 * the caller's own ac (header, then entry[]), local unless
		 * someone else runs the section */
		const struct pcpu *from = id_pcpu(l, req_from(l, v));

		lines += l->req_lines * line_at(l, from, runner) +
		    lock_stream_ns(l, from, runner, l->req_stream);
		l->node[v->idx].req_pcpu = runner == v ? -1 : runner->pcpu->id;
	}
	return lines;
}

/* lock_enter's body, inline in lock_taken (a take's call less); !waited:
 * a take at once (taken_at_once), whose wait never began: a wait of 0,
 * which moves no clock, count or node field (what the bookkeeping would
 * undo), and nobody probes (lock_acquire takes that path only then), so
 * the plain path calls nothing and keeps no registers.  taking: v takes
 * it itself (taken), and its spin ends before anything else reads it */
static inline __attribute__((always_inline)) double
enter(struct glock *l, struct vcpu *v, const struct vcpu *runner, int waited, int taking)
{
	sim_time_t now = l->sim->now, wait = 0;
	double lines;
	/* The lock is free (below): its free clock closes at now, and its
	 * holder-preempted clock stands at lhp_closed. */
	uint64_t free_now = l->free_closed + (uint64_t)(now - l->free_since);

	/* Self-check: mutual exclusion is an invariant, never an input error. */
	if (l->holder != NULL)
		vs_fatal("lock %s: vCPU %d took it while vCPU %d holds it", l->name, v->id,
		    l->holder->id);
	VS_ASSERT(runner->pcpu != NULL);
	/* --check=full: a FIFO lock is owned in the order it was asked for */
	if (l->check_fifo && l->arrival[v->idx] != l->entries++)
		vs_fatal("check: FIFO lock %s: vCPU %d took turn %llu, turn %llu was next",
		    l->name, v->id, (unsigned long long)l->arrival[v->idx],
		    (unsigned long long)(l->entries - 1));
	if (waited) {
		wait = now - l->node[v->idx].wait_since;
		l->node[v->idx].wait_since = -1;
		if (l->node[v->idx].spin_at != NULL) {
			spin_del(l, &l->node[v->idx]);
			/* taken's v goes on at once (lock_cont: work_set ends the
			 * spin), so its spin's end has nothing to tell: told now */
			if (taking)
				guest_spin_uncounted(v);
		}
	}
	if (wait > 0) {
		/* The wait's holder-preempted and free parts; both clocks only
		 * grow, and never faster than time, so their sum is at most the
		 * wait.  A wait of 0 (most takes) adds 0 to both, exactly: each
		 * clock read twice at one instant (a hand-over in between closes
		 * into its sum just what its open part showed). */
		int64_t lhp = (int64_t)(l->lhp_closed - l->node[v->idx].lhp_at);
		int64_t fr = (int64_t)(free_now - l->node[v->idx].free_at);

		VS_ASSERT((lhp | fr) >= 0 && lhp + fr <= wait);
		l->st.wait_lhp_ns += (double)lhp;
		l->st.wait_free_ns += (double)fr;
	}
	l->free_closed = free_now;
	l->holder = v;
	/* (taken's v == runner is on its pCPU; lock_enter's owner may not be) */
	l->holder_rt0 = v == runner ? runnable_on_ns(v) : runnable_ns(v, now);
	l->hold_since = now;
	if (waited && l->hv->probe != NULL)
		lock_probe(l, PR_LOCK_TAKEN, v, runner->pcpu->id);
	l->st.acquisitions++;
	/* (every wait: lock_contended, lock_wait_ns read them here) */
	if (wait > 0)
		hist_add_hot(l->st.wait, (double)wait);	/* (known not 0: not asked again) */
	else
		hist_add(l->st.wait, 0);
	lines = l->cs_lines * pcpu_line_ns(l->data_p, runner->pcpu);	/* (runner runs) */
	if (l->plain) {
		l->data_p = runner->pcpu;
		return lines;
	}
	return enter_rich(l, v, runner, lines);
}

double
lock_enter(struct glock *l, struct vcpu *v, const struct vcpu *runner)
{
	return enter(l, v, runner, 1, 0);
}

/*
 * v owns the lock.  extra_ns is what the algorithm charges for getting it
 * (an atomic, the lock word's line); the protected data's lines follow from
 * the previous holder's pCPU.
 */
/* The lock call's own costs, then the caller goes on (client->then, or
 * client->cont after them). */
static inline void
lock_cont(struct glock *l, struct vcpu *v, double ns)
{
	const struct lock_client *c = l->client;

	if (c->then != NULL)
		c->then(v, ns);
	else
		guest_work(v, ns, c->cont);
}

static inline __attribute__((always_inline)) void
taken(struct glock *l, struct vcpu *v, double extra_ns, int waited)
{
	/* v has just written the lock word (lock_enter may read that). */
	l->last_p = v->pcpu;
	extra_ns += enter(l, v, v, waited, 1);
	lock_cont(l, v, extra_ns);
}

void
lock_taken(struct glock *l, struct vcpu *v, double extra_ns)
{
	taken(l, v, extra_ns, 1);
}

/* lock_taken for a take at once (lock_acquire, ops->take), which nobody
 * probes (lock_acquire asked); out of line, so that lock_acquire keeps few
 * registers */
static __attribute__((noinline)) void
taken_at_once(struct glock *l, struct vcpu *v, double extra_ns)
{
	taken(l, v, extra_ns, 0);
}

/* lock_leave's body, inline in lock_release */
static inline __attribute__((always_inline)) void
leave(struct glock *l, struct vcpu *v, const struct vcpu *runner)
{
	if (l->holder != v)
		vs_fatal("lock %s: vCPU %d releases it but does not hold it", l->name, v->id);
	/* (lock_release's v == runner is on its pCPU; lock_leave's owner may not be) */
	l->lhp_closed += (v == runner ? runnable_on_ns(v) : runnable_ns(v, l->sim->now)) -
	    l->holder_rt0;
	l->free_since = l->sim->now;
	l->holder = NULL;
	if (l->hv->probe != NULL)
		lock_probe(l, PR_LOCK_RELEASE, v, runner->pcpu->id);
}

void
lock_leave(struct glock *l, struct vcpu *v, const struct vcpu *runner)
{
	VS_ASSERT(runner->pcpu != NULL);	/* (leave: a runner v runs) */
	leave(l, v, runner);
}

/* The wake of `to` leaves once the releaser's stores are done (release_kick):
 * by the hypervisor's kick (a hypercall) or the guest's own IPI. */
static void
kick_after_stores(struct glock *l, struct vcpu *v, struct vcpu *to, double before_ns, int ipi)
{
	struct lock_node *n = &l->node[v->idx];

	VS_ASSERT(n->kick_to == NULL);
	n->kick_to = to;
	n->kick_at = before_ns;
	n->kick_ipi = (unsigned char)ipi;
	l->st.kicks++;
}

void
lock_kick(struct glock *l, struct vcpu *v, struct vcpu *to, double before_ns)
{
	kick_after_stores(l, v, to, before_ns, 0);
	l->hv->st.exits_hypercall++;
}

void
lock_wake(struct glock *l, struct vcpu *v, struct vcpu *to, double before_ns)
{
	kick_after_stores(l, v, to, before_ns, 1);
}

/* The releaser's stores are done: its hypercall kicks (LNX-3.18 spinlock.h
 * arch_spin_unlock: add, then __ticket_unlock_kick; LNX-4.5
 * qspinlock_paravirt.h __pv_queued_spin_unlock_slowpath: cmpxchg, unhash,
 * release store, then pv_kick).  An event at that time: a host preemption
 * of the releaser inside these few ns would delay the real hypercall, not
 * this one (the window is a line transfer and an atomic). */
static void
release_kick(void *s, void *arg, int64_t idx)
{
	struct glock *l = arg;
	struct lock_node *n = &l->node[idx];
	struct vcpu *v = l->vm->vcpus[idx], *to = n->kick_to;

	n->kick_to = NULL;
	hv_probe(l->hv, PR_KICK, v->id, v->pcpu != NULL ? v->pcpu->id : -1, l, to->id);
	if (n->kick_ipi)
		guest_kick(to);		/* the guest's wake IPI (lock_wake) */
	else
		hv_pv_kick(v, to);
}

/* The kick that ops->release asked for leaves own + its kick_at after now
 * (out of line: a release without one keeps no registers for it) */
static __attribute__((noinline)) void
release_kick_at(struct glock *l, const struct vcpu *v, double own)
{
	sim_after(l->sim, sim_ns(own + l->node[v->idx].kick_at), release_kick, l, v->idx);
}

void
lock_release(struct glock *l, struct vcpu *v)
{
	double cost, own;

	leave(l, v, v);
	/* The store to the lock word needs the line here first; with
	 * release_visibility no waiter sees it before that (lock_own_ns). */
	cost = own = own_ns(l, v, 1);
	if (l->hv->m->release_visibility)
		l->handover_ns = cost;
	l->last_p = v->pcpu;
	if (l->tkt_native) {
		/* (patched in: lock.h; the native unlock kicks nobody, so
		 * v's node, where a kick would be, is not read) */
		tkt_lock_release(l, l->priv);	/* (0 ns: no kick) */
		l->handover_ns = 0;
	} else {
		cost += l->ops->release(l, v);
		l->handover_ns = 0;
		if (l->node[v->idx].kick_to != NULL)
			release_kick_at(l, v, own);
	}
	lock_cont(l, v, cost);
}

static int
watch_observe(struct glock *l, struct vcpu *v)
{
	if (!l->tkt_native)
		return l->ops->observe(l, v);
	/* (lock_ticket_observe, patched in: lock.h) */
	if (!tkt_lock_turn(l, l->priv, v))
		return 0;
	taken(l, v, 0, 1);
	return 1;
}

static int
watch_ready(struct glock *l, struct vcpu *v)
{
	return l->ops->ready(l, v);
}

/* What guest.c asks of the lock a vCPU spins on (guest.h). */
static const struct guest_watch_ops lock_watch_ops = {
	.observe = watch_observe,
	.ready = watch_ready,
	.seen_ns = lock_seen_ns,
	.spinning = watch_spinning,
};

void
lock_wait(struct glock *l, struct vcpu *v, double budget_ns, guest_fn on_budget)
{
	guest_spin(v, l, &lock_watch_ops, budget_ns, on_budget);
}

void
lock_poke(struct glock *l, struct vcpu *w)
{
	if (guest_is_running(w) && guest_is_spinning(w))
		guest_poke_spinner(w, l->handover_ns + pcpu_line_ns(l->last_p, w->pcpu));
}
