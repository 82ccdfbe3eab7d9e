/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "guest/lock.h"

#include <stdlib.h>
#include <string.h>

#include "hv/hv.h"
#include "stats.h"

struct glock *
lock_new(const struct lock_ops *ops, const void *cfg, const char *name, struct vm *vm,
    const struct lock_lines *lines, const struct lock_client *client)
{
	struct glock *l = xcalloc(1, sizeof *l);
	int i;

	l->ops = ops;
	l->client = client;
	l->name = xstrdup(name);
	l->vm = vm;
	l->hv = vm->hv;
	l->last_pcpu = -1;
	l->data_pcpu = -1;
	l->cs_lines = lines->cs;
	l->stream_lines = lines->stream;
	l->word_lines = lines->word;
	l->req_lines = lines->req;
	l->req_stream = lines->req_stream;
	l->wait_since = xmalloc((size_t)vm->nvcpus * sizeof *l->wait_since);
	l->req_pcpu = xmalloc((size_t)vm->nvcpus * sizeof *l->req_pcpu);
	l->pool_put = xcalloc((size_t)vm->nvcpus, 1);
	for (i = 0; i < vm->nvcpus; i++) {
		l->wait_since[i] = -1;
		l->req_pcpu[i] = -1;
		l->pool_put[i] = (unsigned char)(i & 1);	/* half of them put first */
	}
	l->pool_batches = lines->pool_batches;
	l->pool_avail = lines->pool_fill;
	l->slow_lines = lines->slow_lines;
	l->slow_word = lines->slow_word;
	l->slow_ns = lines->slow_ns;
	if (ops->fifo && l->hv->check >= 3)
		l->arrival = xcalloc((size_t)vm->nvcpus, sizeof *l->arrival);
	l->st.wait = hist_new();
	l->priv = ops->create(l, cfg);
	return l;
}

void
lock_free(struct glock *l)
{
	if (l == NULL)
		return;
	if (l->ops->destroy != NULL)
		l->ops->destroy(l->priv);
	hist_free(l->st.wait);
	free(l->wait_since);
	free(l->req_pcpu);
	free(l->pool_put);
	free(l->arrival);
	free(l->name);
	free(l);
}

double
lock_line_ns(const struct glock *l, int from, const struct vcpu *to)
{
	const struct machine *m = l->hv->m;

	if (from < 0 || to->pcpu == NULL)
		return m->line_ns[HW_SAME];
	return m->line_ns[machine_dist(m, from, to->pcpu->id)];
}

/*
 * A streaming copy's misses are independent: each L1D miss holds a fill
 * buffer, so up to mlp of them are in flight at once (10 L1D line fill
 * buffers per core, Nehalem to Haswell: a secondary source, models/README.md
 * "Memory-level parallelism").  n lines cost ceil(n / mlp) latencies.
 */
double
lock_stream_ns(const struct glock *l, int from, const struct vcpu *to, int n)
{
	int mlp = l->hv->m->mlp;

	if (n <= 0)
		return 0;
	return (double)((n + mlp - 1) / mlp) * lock_line_ns(l, from, to);
}

/* Lines the requester last wrote: local (-1) unless a combiner wrote them. */
static int
req_from(const struct glock *l, const struct vcpu *owner)
{
	return l->req_pcpu[owner->idx] < 0 && owner->pcpu != NULL ? owner->pcpu->id :
	    l->req_pcpu[owner->idx];
}

double
lock_reclaim_ns(struct glock *l, struct vcpu *v)
{
	double ns;

	if (l->req_lines + l->req_stream == 0 || l->req_pcpu[v->idx] < 0)
		return 0;
	ns = l->req_lines * lock_line_ns(l, l->req_pcpu[v->idx], v) +
	    lock_stream_ns(l, l->req_pcpu[v->idx], v, l->req_stream);
	l->req_pcpu[v->idx] = -1;
	return ns;
}

double
lock_seen_ns(const struct glock *l, const struct vcpu *v)
{
	return lock_line_ns(l, l->last_pcpu, v);
}

/*
 * MESI (Sorin, Hill, Wood, "A Primer on Memory Consistency and Cache
 * Coherence", 2011, ch. 6-7): a store needs the line in M.  The last writer
 * has it in M, and every waiter spinning on the word re-reads it after each
 * write, so holds it in S; the read-for-ownership invalidates all copies at
 * once: the farthest holder's transfer, a local hit if v alone has it.
 */
double
lock_own_ns(const struct glock *l, const struct vcpu *v)
{
	const struct machine *m = l->hv->m;
	double ns = lock_seen_ns(l, v), d;
	int i, left = l->waiting;

	if (!m->release_visibility || v->pcpu == NULL)
		return ns;
	/* Stop once every waiter was seen or the machine's farthest transfer
	 * reached: the max is the same, and a release costs O(waiters) at most. */
	for (i = 0; i < l->vm->nvcpus && left > 0 && ns < m->line_far_ns; i++) {
		const struct vcpu *w = l->vm->vcpus[i];

		if (l->wait_since[i] < 0)
			continue;
		left--;
		if (w == v || !guest_is_running(w) || !guest_is_spinning(w))
			continue;
		if (l->ops->reads_word != NULL && !l->ops->reads_word(l, w))
			continue;	/* it spins on a line of its own */
		d = lock_line_ns(l, w->pcpu->id, v);
		if (d > ns)
			ns = d;
	}
	return ns;
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
	double ns = lock_line_ns(l, fp, w);

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

void
lock_acquire(struct glock *l, struct vcpu *v)
{
	VS_ASSERT(l->holder != v);
	guest_set_acquiring(v, l);
	l->wait_since[v->idx] = l->hv->sim->now;
	l->waiting++;
	if (l->arrival != NULL)
		l->arrival[v->idx] = l->arrivals++;
	hv_probe(l->hv, PR_LOCK_WAIT, v->id, v->pcpu->id, l, 0);
	l->ops->acquire(l, v);
}

/*
 * v's section moves a batch through the pool: 1 if the pool cannot serve it
 * (mm/slab.c 4.3: transfer_objects finds the shared array empty, or
 * cache_flusharray finds it full), so the section takes the slow path.
 */
static int
pool_slow(struct glock *l, const struct vcpu *v)
{
	int put;

	if (l->pool_batches == 0)
		return 0;	/* (before the per-vCPU byte: no line touched) */
	put = l->pool_put[v->idx];
	l->pool_put[v->idx] = (unsigned char)!put;
	if (put ? l->pool_avail == l->pool_batches : l->pool_avail == 0)
		return 1;
	l->pool_avail += put ? 1 : -1;
	return 0;
}

double
lock_enter(struct glock *l, struct vcpu *v, const struct vcpu *runner)
{
	sim_time_t now = l->hv->sim->now;
	double wait, lines;

	/* Self-check: mutual exclusion is an invariant, never an input error. */
	if (l->holder != NULL)
		vs_fatal("lock %s: vCPU %d took it while vCPU %d holds it", l->name, v->id,
		    l->holder->id);
	VS_ASSERT(runner->pcpu != NULL);
	/* --check=full: a FIFO lock is owned in the order it was asked for */
	if (l->arrival != NULL && l->arrival[v->idx] != l->entries++)
		vs_fatal("check: FIFO lock %s: vCPU %d took turn %llu, turn %llu was next",
		    l->name, v->id, (unsigned long long)l->arrival[v->idx],
		    (unsigned long long)(l->entries - 1));
	wait = (double)(now - l->wait_since[v->idx]);
	l->wait_since[v->idx] = -1;
	l->waiting--;
	l->holder = v;
	l->hold_since = now;
	hv_probe(l->hv, PR_LOCK_TAKEN, v->id, runner->pcpu->id, l, 0);
	l->st.acquisitions++;
	if (wait > 0)
		l->st.contended++;
	l->st.wait_ns += wait;
	hist_add(l->st.wait, wait);
	lines = l->cs_lines * lock_line_ns(l, l->data_pcpu, runner);
	if (pool_slow(l, v)) {
		/* mm/slab.c 4.3 cache_alloc_refill's slab walk / free_block: struct
		 * page and freelist lines one after another, and the node's list
		 * heads and free_objects, which share list_lock's line */
		l->st.slow++;
		lines += l->slow_lines * lock_line_ns(l, l->data_pcpu, runner) +
		    l->slow_word * lock_line_ns(l, l->last_pcpu, runner) + l->slow_ns;
		if (l->slow_word > 0)
			l->last_pcpu = runner->pcpu->id;
	} else
		lines += lock_stream_ns(l, l->data_pcpu, runner, l->stream_lines);
	l->data_pcpu = runner->pcpu->id;
	if (l->word_lines > 0) {
		/* mm/slab.h 4.3 kmem_cache_node: free_objects shares list_lock's
		 * line; an owner wrote the word just now, a combiner maybe not */
		lines += l->word_lines * lock_line_ns(l, l->last_pcpu, runner);
		l->last_pcpu = runner->pcpu->id;
	}
	if (l->req_lines + l->req_stream > 0) {
		/* mm/slab.c 4.3 transfer_objects: the memcpy's other side is
		 * the caller's own ac (header, then entry[]), local unless
		 * someone else runs the section */
		int from = req_from(l, v);

		lines += l->req_lines * lock_line_ns(l, from, runner) +
		    lock_stream_ns(l, from, runner, l->req_stream);
		l->req_pcpu[v->idx] = runner == v ? -1 : runner->pcpu->id;
	}
	return lines;
}

/*
 * v owns the lock.  extra_ns is what the algorithm charges for getting it
 * (an atomic, the lock word's line); the protected data's lines follow from
 * the previous holder's pCPU.
 */
void
lock_taken(struct glock *l, struct vcpu *v, double extra_ns)
{
	/* v has just written the lock word (lock_enter may read that). */
	l->last_pcpu = v->pcpu->id;
	extra_ns += lock_enter(l, v, v);
	guest_work(v, extra_ns, l->client->cont);
}

void
lock_leave(struct glock *l, struct vcpu *v, const struct vcpu *runner)
{
	if (l->holder != v)
		vs_fatal("lock %s: vCPU %d releases it but does not hold it", l->name, v->id);
	l->st.hold_ns += (double)(l->hv->sim->now - l->hold_since);
	l->holder = NULL;
	hv_probe(l->hv, PR_LOCK_RELEASE, v->id, runner->pcpu->id, l, 0);
}

void
lock_release(struct glock *l, struct vcpu *v)
{
	double cost;

	lock_leave(l, v, v);
	/* The store to the lock word needs the line here first; with
	 * release_visibility no waiter sees it before that (lock_own_ns). */
	cost = lock_own_ns(l, v);
	if (l->hv->m->release_visibility)
		l->handover_ns = cost;
	l->last_pcpu = v->pcpu->id;
	cost += l->ops->release(l, v);
	l->handover_ns = 0;
	guest_work(v, cost, l->client->cont);
}

void
lock_wait(struct glock *l, struct vcpu *v, double budget_ns, guest_fn on_budget)
{
	guest_spin(v, l, budget_ns, on_budget);
}

void
lock_poke(struct glock *l, struct vcpu *w)
{
	if (guest_is_running(w) && guest_is_spinning(w))
		guest_poke(w, l->handover_ns + lock_seen_ns(l, w));
}

int
lock_observe(struct glock *l, struct vcpu *v)
{
	return l->ops->observe(l, v);
}

int
lock_ready(struct glock *l, struct vcpu *v)
{
	return l->ops->ready(l, v);
}
