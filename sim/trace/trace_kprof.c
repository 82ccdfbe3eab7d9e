/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * trace_kprof.c - the kernel profile of a recording (trace_kprof.h): lock
 * classes by call site, IPIs, TLB flushes, process life cycle and faults,
 * per busy CPU-second, and the acquisition rate and hold derived for the
 * spinlock classes.
 */
#include <ctype.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "stats.h"
#include "trace_emit.h"
#include "trace_kprof.h"

/* A lock class by the function that took the lock (the first frame of the
 * contention's call chain that is not the locking code itself).  Sites are
 * Linux 6.x function names (6.1-6.18 read); "x*" is a prefix.  A site that
 * takes several locks is listed under the one it takes most often in the
 * paths named (the class's sites in the output let a reader check). */
static const struct kp_def {
	const char *name, *source, *sites;
	int sleeping;			/* 1: rwsem / mutex; 2: the recorder's own */
} kp_defs[] = {
	{ "zone->lock", "mm/page_alloc.c: the buddy allocator's zone->lock, taken to refill "
	    "and drain the per-CPU page lists in batches", "rmqueue_bulk free_pcppages_bulk "
	    "rmqueue_buddy free_one_page __free_pages_ok __rmqueue_pcplist "
	    "unreserve_highatomic_pageblock", 0 },
	{ "lruvec->lru_lock", "mm/swap.c folio_batch_move_lru, mm/memcontrol.c "
	    "folio_lruvec_lock*: the LRU lists' lock", "folio_lruvec_lock* folio_batch_move_lru "
	    "lru_add_drain* __page_cache_release* folios_put_refs release_pages "
	    "isolate_lru_folios lru_note_cost* __folio_put*", 0 },
	{ "page-table lock", "mm/memory.c: the split PTE lock (pte_offset_map_lock) and "
	    "pmd_lock in the fault, copy and zap paths", "__pte_offset_map_lock "
	    "pte_offset_map_lock* do_anonymous_page do_wp_page* wp_page_copy handle_pte_fault "
	    "__handle_mm_fault do_set_pte finish_fault filemap_map_pages do_fault_around "
	    "copy_pte_range zap_pte_range pmd_install __pte_alloc __split_huge_pmd* move_ptes "
	    "change_pte_range pmd_lock* set_pte_range do_read_fault do_cow_fault "
	    "do_shared_fault copy_present_ptes zap_present_ptes", 0 },
	{ "dentry->d_lock", "fs/dcache.c: d_lock and the d_lockref of path walks and dput",
	    "dput fast_dput d_alloc* __d_lookup* d_lookup lookup_fast __dentry_kill dget_parent "
	    "__d_add d_add d_instantiate* d_walk shrink_dentry_list lock_for_kill step_into "
	    "__legitimize_path legitimize_links path_put dget d_lru_add retain_dentry", 0 },
	{ "rq->__lock", "kernel/sched/core.c raw_spin_rq_lock_nested: the run queue's lock",
	    "raw_spin_rq_lock* _raw_spin_rq_lock* __task_rq_lock task_rq_lock "
	    "sched_ttwu_pending ttwu_queue* __schedule schedule_tail sched_balance_* "
	    "load_balance newidle_balance double_rq_lock _double_lock_balance sched_tick "
	    "scheduler_tick update_blocked_averages wake_up_new_task* migration_cpu_stop "
	    "move_queued_task*", 0 },
	{ "p->pi_lock", "kernel/sched/core.c try_to_wake_up: raw_spin_lock_irqsave(&p->pi_lock)",
	    "try_to_wake_up", 0 },
	{ "mmap_lock", "mm/mmap.c, mm/mmap_lock.c, arch/x86/mm/fault.c: the mm's rwsem "
	    "(mmap_read_lock for faults and lookups, mmap_write_lock for mmap/munmap/brk)",
	    "vm_mmap_pgoff __vm_munmap vm_munmap do_user_addr_fault lock_mm_and_find_vma "
	    "exit_mmap __do_sys_brk __x64_sys_brk do_mprotect_pkey dup_mmap __mm_populate "
	    "do_madvise* __x64_sys_munmap __do_sys_munmap do_vmi_munmap "
	    "populate_vma_page_range get_user_pages* __get_user_pages* __do_sys_mremap "
	    "__x64_sys_mprotect exc_page_fault vms_complete_munmap_vmas", 1 },
	{ "vma lock (per-VMA)", "mm/memory.c lock_vma_under_rcu, include/linux/mm.h "
	    "vma_start_write (CONFIG_PER_VMA_LOCK, 6.4+)", "lock_vma_under_rcu "
	    "__vma_start_write vma_start_write* vma_start_read*", 1 },
	{ "futex hash bucket", "kernel/futex/core.c futex_q_lock, waitwake.c futex_wake: "
	    "hb->lock", "futex_q_lock futex_wake futex_wait_setup futex_requeue futex_wake_op "
	    "__futex_queue futex_unqueue*", 0 },
	{ "pipe->mutex", "fs/pipe.c pipe_read/pipe_write: __pipe_lock", "pipe_read pipe_write "
	    "pipe_lock __pipe_lock pipe_release pipe_poll anon_pipe_read anon_pipe_write", 1 },
	{ "percpu_counter->lock", "lib/percpu_counter.c percpu_counter_add_batch: the "
	    "counter's lock when a CPU's batch overflows (mm counters, vm_committed_as)",
	    "percpu_counter_add_batch __percpu_counter_sum __percpu_counter_compare", 0 },
	{ "perf (the recorder's own)", "kernel/events/core.c, kernel/trace/trace_event_perf.c: "
	    "perf's own locks (event_mutex when a child inherits the tracepoint events); "
	    "not the workload's", "perf_* __perf_* _perf_* inherit_event* inherit_task_group "
	    "perf_trace_*", 2 },
	{ "wait queue head", "kernel/sched/wait.c: wq_head->lock (a pipe's rd_wait/wr_wait "
	    "among others) and kernel/sched/swait.c", "__wake_up* prepare_to_wait* "
	    "add_wait_queue* remove_wait_queue finish_wait autoremove_wake_function swake_up* "
	    "prepare_to_swait*", 0 },
	{ "hrtimer base lock", "kernel/time/hrtimer.c lock_hrtimer_base", "hrtimer_start_range_ns "
	    "hrtimer_try_to_cancel* lock_hrtimer_base hrtimer_interrupt __hrtimer_run_queues", 0 },
	{ "tasklist_lock", "kernel/fork.c copy_process, kernel/exit.c release_task, "
	    "exit_notify: write_lock_irq(&tasklist_lock) (copy_process also takes siglock)",
	    "copy_process release_task exit_notify do_wait* __do_wait wait_consider_task "
	    "kernel_wait4", 0 },
	{ "sighand->siglock", "kernel/signal.c: spin_lock_irq(&sighand->siglock)",
	    "__lock_task_sighand do_sigaction* get_signal exit_signals __exit_signal "
	    "do_signal_stop sigprocmask __set_current_blocked recalc_sigpending* "
	    "flush_signals", 0 },
	{ "anon_vma / i_mmap rwsem", "mm/rmap.c anon_vma_clone/anon_vma_fork, mm/mmap.c "
	    "unlink_file_vma, vma_prepare", "anon_vma_clone anon_vma_fork unlink_anon_vmas "
	    "unlink_file_vma* vma_prepare vma_complete __anon_vma_prepare i_mmap_lock*", 1 },
	{ "slab (SLUB) node and barn locks", "mm/slub.c: kmem_cache_node->list_lock (partial "
	    "slabs) and, 6.18, the per-node barn's lock of the sheaves", "__put_partials "
	    "get_partial_node* __slab_free deactivate_slab put_cpu_partial free_to_partial_list "
	    "___slab_alloc barn_* discard_slab __refill_objects* __pcs_replace_*", 0 },
	{ "rcu_node->lock", "kernel/rcu/tree.c: raw_spin_lock_rcu_node in the grace-period "
	    "and callback paths", "rcu_core rcu_report_qs_rdp rcu_accelerate_cbs* note_gp_changes "
	    "rcu_gp_* rcu_report_qs_rnp force_qs_rnp __note_gp_changes", 0 },
	{ "files->file_lock", "fs/file.c alloc_fd, file_close_fd", "alloc_fd close_fd "
	    "file_close_fd* __close_range do_close_on_exec dup_fd fd_install", 0 },
	{ "inode->i_rwsem", "fs/namei.c lookup_slow, open_last_lookups: inode_lock",
	    "lookup_slow open_last_lookups do_unlinkat filename_create* do_renameat2 "
	    "generic_file_write_iter ext4_buffered_write_iter* ext4_file_write_iter* "
	    "lock_rename* iterate_dir", 1 },
};
#define KP_NDEFS (sizeof kp_defs / sizeof kp_defs[0])

/* The locking code itself: frames skipped to find the site. */
static int
is_lock_frame(const char *f)
{
	static const char *const pat[] = { "spin_lock", "spin_trylock", "read_lock",
		"write_lock", "queued_", "rwsem_down", "rwsem_optimistic", "down_read",
		"down_write", "mutex_lock", "__mutex", "osq_", "rt_mutex", "rtlock",
		"percpu_down", "lock_acquire", "lockref_", "__down", "rwbase_", "do_raw_",
		"contention_begin", "lock_contended", "rwsem_wake", "up_write", "up_read",
		"downgrade_write", NULL };
	int i;

	for (i = 0; pat[i] != NULL; i++)
		if (strstr(f, pat[i]) != NULL)
			return 1;
	return 0;
}

/* A sleeping lock's slow path: a plain SPIN contention under it is the rwsem's
 * or mutex's wait_lock.  (downgrade_write is not here: perf's frame-pointer
 * chains of a 6.18 kernel put its address in unrelated spins.) */
static int
is_sleeping_lock_frame(const char *f)
{
	return strstr(f, "rwsem_down") != NULL || strstr(f, "rwsem_wake") != NULL ||
	    strstr(f, "__mutex") != NULL ||
	    strstr(f, "rt_mutex") != NULL || strstr(f, "percpu_down") != NULL ||
	    strstr(f, "__down") != NULL;
}

static int
site_matches(const char *sites, const char *fn)
{
	const char *p = sites;
	size_t fl = strlen(fn);

	while (*p) {
		const char *e = p;
		size_t n;

		while (*e && *e != ' ')
			e++;
		n = (size_t)(e - p);
		if (n > 0 && p[n - 1] == '*') {
			if (fl >= n - 1 && strncmp(fn, p, n - 1) == 0)
				return 1;
		} else if (n == fl && strncmp(fn, p, n) == 0) {
			return 1;
		}
		p = *e ? e + 1 : e;
	}
	return 0;
}

#define KP_NSITES 6
#define KP_MAXFRAMES 128
#define KP_NEST 4

struct kp_class {
	char name[80];
	int def;			/* kp_defs index, -1: unknown site */
	int wait_lock;			/* a sleeping lock's internal spin */
	char flags[32];
	uint64_t contentions, nested;
	struct ti_q wait;
	struct { char fn[64]; uint64_t n; } site[KP_NSITES];
	size_t nsite;
	uint64_t site_other;
};

struct kp_pend { uint64_t addr; int64_t at; int cls; char flags[32]; int nframes, wl; };

struct kp_thread {
	int tid;			/* -1: empty slot */
	struct kp_pend p[KP_NEST];
	int np;
};

struct kp_fn { char *name; double ns; };

enum { KP_CUR_NONE, KP_CUR_CONT, KP_CUR_SAMPLE };

struct ti_kprof {
	struct kp_class *cls;
	size_t ncls, capcls;
	struct kp_thread *th;		/* open addressing on tid */
	size_t nth, capth;
	struct kp_fn *fn;		/* open addressing on name */
	size_t nfn, capfn;
	uint64_t count[TI_KEV_OTHER + 1];
	double weight[TI_KEV_OTHER + 1];
	uint64_t ipi[4];		/* resched, wakeup, call, other */
	uint64_t tlb[6];		/* by enum tlb_flush_reason */
	uint64_t unmatched_end, no_chain;
	int cur;			/* what the frames that follow belong to */
	struct kp_thread *cur_th;
	double cur_w;
	char *stack[KP_MAXFRAMES];	/* the current sample's frames */
	size_t nstack;
};

static struct ti_kprof *
K(struct ti_trace *t)
{
	if (t->kprof == NULL)
		t->kprof = xcalloc(1, sizeof(struct ti_kprof));
	return t->kprof;
}

static void
stack_clear(struct ti_kprof *k)
{
	size_t i;

	for (i = 0; i < k->nstack; i++)
		free(k->stack[i]);
	k->nstack = 0;
}

void
ti_kprof_free(struct ti_kprof *k)
{
	size_t i;

	if (k == NULL)
		return;
	for (i = 0; i < k->ncls; i++)
		ti_q_free(&k->cls[i].wait);
	for (i = 0; i < k->capfn; i++)
		free(k->fn[i].name);
	stack_clear(k);
	free(k->cls);
	free(k->th);
	free(k->fn);
	free(k);
}

/* ---- tables ------------------------------------------------------------- */

static struct kp_thread *
thread_get(struct ti_kprof *k, int tid)
{
	size_t j;

	if (2 * (k->nth + 1) > k->capth) {
		struct kp_thread *old = k->th;
		size_t oc = k->capth, i;

		k->capth = oc ? oc * 2 : 256;
		k->th = xcalloc(k->capth, sizeof *k->th);
		for (i = 0; i < k->capth; i++)
			k->th[i].tid = -1;
		for (i = 0; i < oc; i++) {
			if (old[i].tid < 0)
				continue;
			for (j = (size_t)old[i].tid % k->capth; k->th[j].tid >= 0;
			    j = (j + 1) % k->capth)
				;
			k->th[j] = old[i];
		}
		free(old);
	}
	for (j = (size_t)tid % k->capth; k->th[j].tid >= 0; j = (j + 1) % k->capth)
		if (k->th[j].tid == tid)
			return &k->th[j];
	k->th[j].tid = tid;
	k->th[j].np = 0;
	k->nth++;
	return &k->th[j];
}

static uint64_t
str_hash(const char *s)
{
	uint64_t h = 1469598103934665603ULL;	/* FNV-1a */

	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 1099511628211ULL;
	return h;
}

static void
fn_add(struct ti_kprof *k, const char *name, double ns)
{
	size_t j;

	if (2 * (k->nfn + 1) > k->capfn) {
		struct kp_fn *old = k->fn;
		size_t oc = k->capfn, i;

		k->capfn = oc ? oc * 2 : 1024;
		k->fn = xcalloc(k->capfn, sizeof *k->fn);
		for (i = 0; i < oc; i++) {
			if (old[i].name == NULL)
				continue;
			for (j = str_hash(old[i].name) & (k->capfn - 1); k->fn[j].name != NULL;
			    j = (j + 1) & (k->capfn - 1))
				;
			k->fn[j] = old[i];
		}
		free(old);
	}
	for (j = str_hash(name) & (k->capfn - 1); k->fn[j].name != NULL; j = (j + 1) & (k->capfn - 1))
		if (strcmp(k->fn[j].name, name) == 0) {
			k->fn[j].ns += ns;
			return;
		}
	k->fn[j].name = xstrdup(name);
	k->fn[j].ns = ns;
	k->nfn++;
}

static double
fn_ns(const struct ti_kprof *k, const char *name)
{
	size_t j;

	if (k->capfn == 0)
		return 0;
	for (j = str_hash(name) & (k->capfn - 1); k->fn[j].name != NULL; j = (j + 1) & (k->capfn - 1))
		if (strcmp(k->fn[j].name, name) == 0)
			return k->fn[j].ns;
	return 0;
}

/* The class of a contention at site; flags: its contention_begin flags; wl: a
 * sleeping lock's slow path was in its chain.  A plain SPIN contention under a
 * sleeping lock (by its chain or its site's class) is that lock's wait_lock. */
static int
class_get(struct ti_kprof *k, const char *site, const char *flags, int wl)
{
	char name[80];
	int def = -1, wait_lock;
	size_t i;

	for (i = 0; i < KP_NDEFS; i++)
		if (site_matches(kp_defs[i].sites, site)) {
			def = (int)i;
			break;
		}
	wait_lock = strcmp(flags, "SPIN") == 0 && (wl || (def >= 0 && kp_defs[def].sleeping == 1));
	if (def >= 0)
		snprintf(name, sizeof name, "%s%s", kp_defs[def].name, wait_lock ? " wait_lock" : "");
	else
		snprintf(name, sizeof name, "site:%s%s", site, wait_lock ? " wait_lock" : "");
	for (i = 0; i < k->ncls; i++)
		if (strcmp(k->cls[i].name, name) == 0)
			return (int)i;
	VS_GROW(k->cls, k->capcls, k->ncls);
	memset(&k->cls[k->ncls], 0, sizeof k->cls[k->ncls]);
	snprintf(k->cls[k->ncls].name, sizeof k->cls[k->ncls].name, "%s", name);
	k->cls[k->ncls].def = def;
	k->cls[k->ncls].wait_lock = wait_lock;
	return (int)k->ncls++;
}

static void
class_site(struct kp_class *c, const char *fn)
{
	size_t i;

	for (i = 0; i < c->nsite; i++)
		if (strcmp(c->site[i].fn, fn) == 0) {
			c->site[i].n++;
			return;
		}
	if (c->nsite < KP_NSITES) {
		snprintf(c->site[c->nsite].fn, sizeof c->site[c->nsite].fn, "%s", fn);
		c->site[c->nsite++].n = 1;
	} else {
		c->site_other++;
	}
}

/* ---- events ---------------------------------------------------------------- */

/* The sample before ends: its distinct functions get its CPU time. */
static void
sample_flush(struct ti_kprof *k)
{
	size_t i, j;

	if (k->cur == KP_CUR_SAMPLE) {
		for (i = 0; i < k->nstack; i++) {
			for (j = 0; j < i; j++)
				if (strcmp(k->stack[j], k->stack[i]) == 0)
					break;
			if (j == i)
				fn_add(k, k->stack[i], k->cur_w);
		}
	}
	stack_clear(k);
	k->cur = KP_CUR_NONE;
	k->cur_th = NULL;
}

/* "CALLSITE CALLBACK" of ipi_send_cpu(mask) (include/trace/events/ipi.h, 6.6+):
 * callback NULL is a reschedule (smp_send_reschedule); the call site tells a
 * remote wakeup (ttwu_queue_wakelist) from a preemption request. */
static int
ipi_kind(const char *arg)
{
	char site[64] = "", cb[64] = "";

	if (arg != NULL)
		sscanf(arg, "%63s %63s", site, cb);
	if (strstr(site, "ttwu") != NULL)
		return 1;
	if (cb[0] == '\0' || strcmp(cb, "0x0") == 0 || strcmp(cb, "0") == 0 ||
	    strcmp(cb, "(nil)") == 0)
		return 0;
	if (strstr(site, "smp_call") != NULL || strstr(site, "on_each_cpu") != NULL ||
	    strstr(cb, "call_function") != NULL || strstr(cb, "flush_tlb") != NULL)
		return 2;
	return 3;
}

void
ti_kprof_event(struct ti_trace *t, enum ti_kev kind, int tid, int cpu, const char *arg,
    double weight, int64_t ns)
{
	struct ti_kprof *k = K(t);

	(void)cpu;
	(void)ns;
	sample_flush(k);
	k->count[kind]++;
	k->weight[kind] += weight;
	if (kind == TI_KEV_IPI_SEND) {
		k->ipi[ipi_kind(arg)]++;
	} else if (kind == TI_KEV_TLB) {
		int r = arg ? atoi(arg) : -1;

		if (r >= 0 && r < 6)
			k->tlb[r]++;
	} else if (kind == TI_KEV_CPU) {
		k->cur = KP_CUR_SAMPLE;
		k->cur_w = weight;
		(void)tid;
	}
}

void
ti_kprof_contention(struct ti_trace *t, int tid, int cpu, uint64_t addr, int begin,
    const char *flags, int64_t ns)
{
	struct ti_kprof *k = K(t);
	struct kp_thread *th;
	int i;

	(void)cpu;
	sample_flush(k);
	th = thread_get(k, tid);
	if (begin) {
		struct kp_pend *p;

		if (th->np == KP_NEST) {	/* deeper than a slow path nests: drop the oldest */
			memmove(th->p, th->p + 1, (KP_NEST - 1) * sizeof th->p[0]);
			th->np--;
		}
		p = &th->p[th->np++];
		memset(p, 0, sizeof *p);
		p->addr = addr;
		p->at = ns;
		p->cls = -1;
		snprintf(p->flags, sizeof p->flags, "%s", flags ? flags : "");
		k->cur = KP_CUR_CONT;
		k->cur_th = th;
		return;
	}
	/* contention_end: the innermost pending wait on this lock. */
	for (i = th->np - 1; i >= 0; i--)
		if (th->p[i].addr == addr)
			break;
	if (i < 0) {
		k->unmatched_end++;
		return;
	}
	{
		struct kp_pend *p = &th->p[i];
		struct kp_class *c;

		if (p->cls < 0) {
			k->no_chain++;
			p->cls = class_get(k, "unknown (no call chain)", p->flags, 0);
		}
		c = &k->cls[p->cls];
		c->contentions++;
		if (i > 0)
			c->nested++;
		if (c->flags[0] == '\0')
			snprintf(c->flags, sizeof c->flags, "%s", p->flags);
		ti_q_add(t, &c->wait, (double)(ns - p->at));
	}
	memmove(th->p + i, th->p + i + 1, (size_t)(th->np - i - 1) * sizeof th->p[0]);
	th->np--;
}

void
ti_kprof_frame(struct ti_trace *t, const char *sym, size_t n)
{
	struct ti_kprof *k = t->kprof;
	char fn[64];

	if (k == NULL || k->cur == KP_CUR_NONE)
		return;
	if (n >= sizeof fn)
		n = sizeof fn - 1;
	memcpy(fn, sym, n);
	fn[n] = '\0';
	if (k->cur == KP_CUR_SAMPLE) {
		if (k->nstack < KP_MAXFRAMES)
			k->stack[k->nstack++] = xstrdup(fn);
		return;
	}
	/* A contention's chain: skip the locking code; the first other frame is the site. */
	if (k->cur_th->np > 0) {
		struct kp_pend *p = &k->cur_th->p[k->cur_th->np - 1];

		if (p->cls >= 0)
			return;
		p->nframes++;
		if (is_lock_frame(fn)) {
			p->wl |= is_sleeping_lock_frame(fn);
			return;
		}
		p->cls = class_get(k, fn, p->flags, p->wl);
		class_site(&k->cls[p->cls], fn);
	}
}

void
ti_kprof_finish(struct ti_trace *t)
{
	if (t->kprof != NULL)
		sample_flush(t->kprof);
}

/* ---- derived numbers ------------------------------------------------------------ */

int ti_kprof_present(const struct ti_trace *t) { return t->kprof != NULL; }

static double
span_s(const struct ti_trace *t)
{
	return t->t_last > t->t_first ? (double)(t->t_last - t->t_first) / 1e9 : 0;
}

double
ti_kprof_busy_s(const struct ti_trace *t)
{
	return t->kprof ? t->kprof->weight[TI_KEV_CPU] / 1e9 : 0;
}

double
ti_kprof_concurrency(const struct ti_trace *t)
{
	double s = span_s(t);

	return s > 0 ? ti_kprof_busy_s(t) / s : NAN;
}

static double
per_busy(const struct ti_trace *t, double n)
{
	double b = ti_kprof_busy_s(t);

	return b > 0 ? n / b : NAN;
}

double
ti_kprof_rate(const struct ti_trace *t, const char *w)
{
	const struct ti_kprof *k = t->kprof;
	static const struct { const char *name; int kind, idx; } m[] = {
		{ "fork", 0, TI_KEV_FORK }, { "exit", 0, TI_KEV_EXIT }, { "exec", 0, TI_KEV_EXEC },
		{ "page_faults", 1, TI_KEV_FAULT },
		{ "ipi_resched", 2, 0 }, { "ipi_wakeup", 2, 1 }, { "ipi_call", 2, 2 },
		{ "ipi_other", 2, 3 },
		{ "ipi_recv_call", 0, TI_KEV_IRQ_CALL },
		{ "ipi_recv_call_single", 0, TI_KEV_IRQ_CALL_SINGLE },
		{ "ipi_recv_resched", 0, TI_KEV_IRQ_RESCHED },
		{ "tlb_task_switch", 3, 0 }, { "tlb_remote_flushes", 3, 1 }, { "tlb_local", 3, 2 },
		{ "tlb_local_mm", 3, 3 }, { "tlb_shootdown_sent", 3, 4 },
	};
	size_t i;

	if (k == NULL)
		return NAN;
	for (i = 0; i < sizeof m / sizeof m[0]; i++) {
		if (strcmp(m[i].name, w) != 0)
			continue;
		switch (m[i].kind) {
		case 0: return per_busy(t, (double)k->count[m[i].idx]);
		case 1: return per_busy(t, k->weight[m[i].idx]);
		case 2: return per_busy(t, (double)k->ipi[m[i].idx]);
		default: return per_busy(t, (double)k->tlb[m[i].idx]);
		}
	}
	return NAN;
}

static int
cmp_cls(const void *a, const void *b)
{
	const struct kp_class *x = *(const struct kp_class *const *)a;
	const struct kp_class *y = *(const struct kp_class *const *)b;

	if (x->contentions != y->contentions)
		return x->contentions < y->contentions ? 1 : -1;
	return strcmp(x->name, y->name);
}

static const struct kp_class **
sorted_cls(const struct ti_kprof *k)
{
	const struct kp_class **v = xcalloc(k->ncls + 1, sizeof *v);
	size_t i;

	for (i = 0; i < k->ncls; i++)
		v[i] = &k->cls[i];
	qsort(v, k->ncls, sizeof *v, cmp_cls);
	return v;
}

/* Classes with at least one whole contention (begin and end); sorted_cls puts them first. */
size_t
ti_kprof_nclasses(const struct ti_trace *t)
{
	size_t i, n = 0;

	for (i = 0; t->kprof != NULL && i < t->kprof->ncls; i++)
		n += t->kprof->cls[i].contentions > 0;
	return n;
}

/*
 * What a spinlock class's contentions say of its acquisitions and hold.
 * Per busy CPU-second, with k CPUs busy on average, an acquisition finds the
 * lock held by another CPU with probability (k - 1) x lambda x H (Poisson
 * arrivals see time averages; low load), so the contentions per busy CPU-s
 * are c = (k - 1) lambda^2 H.  Two ways to close it:
 *  - from the wait: with at most one holder ahead (k <= 2, or little
 *    queueing) a contended waiter waits the holder's residual hold, which for
 *    an exponential hold has the hold's law: H = median wait / ln 2 (the
 *    median, so that a holder preempted by the host does not set the mean);
 *    then lambda = sqrt(c / ((k - 1) H));
 *  - from the call sites' CPU share s (task_clock samples inside the site
 *    functions): lambda H <= s, so lambda >= c / ((k - 1) s) and H <= s / lambda.
 * Sleeping locks (rwsem, mutex) wait by sleeping: not derived (NAN).
 */
void
ti_kprof_class(const struct ti_trace *t, size_t idx, struct ti_kclass *o)
{
	const struct ti_kprof *k = t->kprof;
	const struct kp_class **v = sorted_cls(k);
	const struct kp_class *c = v[idx];
	double kk = ti_kprof_concurrency(t), busy = ti_kprof_busy_s(t), share = 0;
	size_t i;

	memset(o, 0, sizeof *o);
	o->name = c->name;
	o->flags = c->flags;
	o->source = c->def >= 0 ? kp_defs[c->def].source : "its call site (no class known)";
	o->recorder = c->def >= 0 && kp_defs[c->def].sleeping == 2;
	/* include/trace/events/lock.h LCB_F_*: a mutex (also while it spins on the
	 * owner, SPIN|MUTEX) or an rwsem (READ/WRITE alone) sleeps; a qrwlock is
	 * SPIN|READ or SPIN|WRITE and spins. */
	o->sleeping = (c->def >= 0 && kp_defs[c->def].sleeping == 1 && !c->wait_lock) ||
	    strstr(c->flags, "MUTEX") != NULL || (strstr(c->flags, "SPIN") == NULL &&
	    (strstr(c->flags, "READ") != NULL || strstr(c->flags, "WRITE") != NULL));
	o->contentions = c->contentions;
	o->nested = c->nested;
	o->contentions_per_cpu_s = per_busy(t, (double)c->contentions);
	o->wait_mean_ns = c->wait.n ? c->wait.sum / (double)c->wait.n : NAN;
	o->wait_p50_ns = ti_q_quantile(&c->wait, 0.5);
	o->wait_p99_ns = ti_q_quantile(&c->wait, 0.99);
	for (i = 0; i < c->nsite; i++)
		share += fn_ns(k, c->site[i].fn);
	o->site_share = busy > 0 ? share / 1e9 / busy : NAN;
	o->top_site = c->nsite ? c->site[0].fn : "";
	o->hold_ns = o->acq_per_cpu_s = o->hold_s_ns = o->acq_s_per_cpu_s = NAN;
	if (!o->sleeping && !o->recorder && kk > 1.05 && o->contentions_per_cpu_s > 0) {
		double cc = o->contentions_per_cpu_s;

		if (o->wait_p50_ns > 0) {
			o->hold_ns = o->wait_p50_ns / M_LN2;
			o->acq_per_cpu_s = sqrt(cc / ((kk - 1) * o->hold_ns * 1e-9));
		}
		if (o->site_share > 0) {
			o->acq_s_per_cpu_s = cc / ((kk - 1) * o->site_share);
			o->hold_s_ns = o->site_share / o->acq_s_per_cpu_s * 1e9;
		}
	}
	free(v);
}

/* ---- output ------------------------------------------------------------------ */

/* A time for the YAML: ti_fmt_ns, or .nan when unknown ("-" would be a list). */
static const char *
yns(double ns, char *buf, size_t n)
{
	if (!isfinite(ns)) {
		snprintf(buf, n, ".nan");
		return buf;
	}
	return ti_fmt_ns(ns, buf, n);
}

static void
num(FILE *o, double x)
{
	if (isnan(x))
		fputs(".nan", o);
	else
		fprintf(o, "%.4g", x);
}

void
ti_kprof_yaml(const struct ti_trace *t, FILE *o)
{
	const struct ti_kprof *k = t->kprof;
	const struct kp_class **v;
	size_t i, j;
	char a[32];

	if (k == NULL)
		return;
	fprintf(o, "kernel_profile:                # trace_kprof.h: rates per busy CPU-second\n");
	fprintf(o, "  span_s: %.6g\n  busy_cpu_s: %.6g        # task_clock samples x period\n",
	    span_s(t), ti_kprof_busy_s(t));
	fputs("  cpus_busy: ", o);
	num(o, ti_kprof_concurrency(t));
	fputs("                # busy CPU-s / span\n", o);
	fputs("  rates:\n", o);
	{
		static const char *const r[] = { "fork", "exit", "exec", "page_faults",
			"ipi_resched", "ipi_wakeup", "ipi_call", "ipi_other", "ipi_recv_call",
			"ipi_recv_call_single", "ipi_recv_resched", "tlb_shootdown_sent",
			"tlb_remote_flushes", "tlb_local_mm", "tlb_local", "tlb_task_switch", NULL };

		for (i = 0; r[i] != NULL; i++) {
			fprintf(o, "    %s: ", r[i]);
			num(o, ti_kprof_rate(t, r[i]));
			fputc('\n', o);
		}
	}
	fprintf(o, "  contention_ends_unmatched: %llu\n  contentions_without_chain: %llu\n",
	    (unsigned long long)k->unmatched_end, (unsigned long long)k->no_chain);
	fprintf(o, "  lock_classes:%s\n", ti_kprof_nclasses(t) ? "" : " {}");
	v = sorted_cls(k);
	for (i = 0; i < ti_kprof_nclasses(t); i++) {
		struct ti_kclass c;

		ti_kprof_class(t, i, &c);
		fprintf(o, "    \"%s\":\n      flags: \"%s\"\n      kind: %s\n", c.name, c.flags,
		    c.recorder ? "recorder" : c.sleeping ? "sleeping" : "spin");
		fprintf(o, "      contentions: %llu\n      contentions_per_cpu_s: ",
		    (unsigned long long)c.contentions);
		num(o, c.contentions_per_cpu_s);
		fprintf(o, "\n      nested_in_another_wait: %llu\n", (unsigned long long)c.nested);
		fprintf(o, "      wait: {mean: %s, ", yns(c.wait_mean_ns, a, sizeof a));
		fprintf(o, "p50: %s, ", yns(c.wait_p50_ns, a, sizeof a));
		fprintf(o, "p99: %s}\n", yns(c.wait_p99_ns, a, sizeof a));
		fputs("      site_cpu_share: ", o);
		num(o, c.site_share);
		fputc('\n', o);
		if (!c.sleeping && !c.recorder) {
			fprintf(o, "      derived:   # ti_kprof_class: c = (k-1) lambda^2 H\n");
			fprintf(o, "        hold_from_wait: %s\n", yns(c.hold_ns, a, sizeof a));
			fputs("        acq_per_cpu_s_from_wait: ", o);
			num(o, c.acq_per_cpu_s);
			fprintf(o, "\n        hold_max_from_sites: %s\n", yns(c.hold_s_ns, a,
			    sizeof a));
			fputs("        acq_per_cpu_s_min_from_sites: ", o);
			num(o, c.acq_s_per_cpu_s);
			fputc('\n', o);
		}
		fprintf(o, "      sites: {");
		for (j = 0; j < v[i]->nsite; j++)
			fprintf(o, "%s%s: %llu", j ? ", " : "", v[i]->site[j].fn,
			    (unsigned long long)v[i]->site[j].n);
		if (v[i]->site_other)
			fprintf(o, "%sother: %llu", j ? ", " : "", (unsigned long long)v[i]->site_other);
		fprintf(o, "}\n      source: \"%s\"\n", c.source);
	}
	free(v);
}

void
ti_kprof_summary(const struct ti_trace *t, FILE *o)
{
	const struct ti_kprof *k = t->kprof;
	size_t i;
	char a[32], b[32], h[32];

	if (k == NULL)
		return;
	fprintf(o, "\nkernel profile: %.3f busy CPU-s over %.3f s (%.2f CPUs busy); "
	    "per busy CPU-second:\n", ti_kprof_busy_s(t), span_s(t), ti_kprof_concurrency(t));
	fprintf(o, "  fork %.4g, exit %.4g, exec %.4g, page faults %.4g\n",
	    ti_kprof_rate(t, "fork"), ti_kprof_rate(t, "exit"), ti_kprof_rate(t, "exec"),
	    ti_kprof_rate(t, "page_faults"));
	fprintf(o, "  IPIs sent: reschedule %.4g, remote wakeup %.4g, function call %.4g, "
	    "other %.4g\n", ti_kprof_rate(t, "ipi_resched"), ti_kprof_rate(t, "ipi_wakeup"),
	    ti_kprof_rate(t, "ipi_call"), ti_kprof_rate(t, "ipi_other"));
	fprintf(o, "  TLB: shootdowns sent %.4g, flushed for others %.4g, local mm %.4g\n",
	    ti_kprof_rate(t, "tlb_shootdown_sent"), ti_kprof_rate(t, "tlb_remote_flushes"),
	    ti_kprof_rate(t, "tlb_local_mm"));
	if (ti_kprof_nclasses(t) > 0)
		fprintf(o, "  %-30s %10s %9s %9s %10s %10s\n", "lock class", "cont/cpu-s",
		    "wait p50", "p99", "hold*", "acq/cpu-s*");
	for (i = 0; i < ti_kprof_nclasses(t); i++) {
		struct ti_kclass c;

		ti_kprof_class(t, i, &c);
		fprintf(o, "  %-30.30s %10.4g %9s %9s %10s ", c.name, c.contentions_per_cpu_s,
		    ti_fmt_ns(c.wait_p50_ns, a, sizeof a), ti_fmt_ns(c.wait_p99_ns, b, sizeof b),
		    ti_fmt_ns(c.hold_ns, h, sizeof h));
		if (isnan(c.acq_per_cpu_s))
			fprintf(o, "%10s\n", "-");
		else
			fprintf(o, "%10.4g\n", c.acq_per_cpu_s);
	}
	if (ti_kprof_nclasses(t) > 0)
		fputs("  (* derived from the wait, spinlocks only: trace_kprof.c ti_kprof_class)\n", o);
}

char *
ti_kprof_text(const struct ti_trace *t)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *o;

	if (t->kprof == NULL)
		return NULL;
	o = open_memstream(&buf, &len);
	if (o == NULL)
		vs_fatal("open_memstream: out of memory");
	fputs("# vlocksim trace import --profile: the kernel profile of a recording\n", o);
	ti_kprof_yaml(t, o);
	fclose(o);
	return buf;
}

void
ti_kprof_comment(const struct ti_trace *t, FILE *o)
{
	size_t i;
	char a[32], b[32];

	if (t->kprof == NULL || !(ti_kprof_busy_s(t) > 0))
		return;
	fprintf(o, "#   kernel profile (trace_kprof.h; vlocksim trace import --profile), per busy "
	    "CPU-second, %.3g CPUs busy:\n#     fork %.4g, exit %.4g, page faults %.4g; IPIs "
	    "sent: reschedule %.4g, wakeup %.4g, call %.4g; TLB shootdowns sent %.4g\n",
	    ti_kprof_concurrency(t), ti_kprof_rate(t, "fork"), ti_kprof_rate(t, "exit"),
	    ti_kprof_rate(t, "page_faults"), ti_kprof_rate(t, "ipi_resched"),
	    ti_kprof_rate(t, "ipi_wakeup"), ti_kprof_rate(t, "ipi_call"),
	    ti_kprof_rate(t, "tlb_shootdown_sent"));
	for (i = 0; i < ti_kprof_nclasses(t); i++) {
		struct ti_kclass c;

		ti_kprof_class(t, i, &c);
		if (c.recorder)
			continue;
		fprintf(o, "#     %s (%s): %.4g contentions, wait p50 %s", c.name,
		    c.sleeping ? "sleeping" : "spin", c.contentions_per_cpu_s,
		    ti_fmt_ns(c.wait_p50_ns, a, sizeof a));
		if (!isnan(c.acq_per_cpu_s))
			fprintf(o, "; derived %.4g acquisitions, hold %s", c.acq_per_cpu_s,
			    ti_fmt_ns(c.hold_ns, b, sizeof b));
		fputc('\n', o);
	}
}
