/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * gvm.c - a guest VM's objects built from struct gvm_config (gvm.h): the
 * spinlocks, the wait queues, the guest kernel, the virtual disk, the
 * sleeping locks with one mmap_sem per address space, and the initial tasks,
 * made in that order (the order the workload made them in before the split,
 * so that every run stays byte for byte).
 */
#include "guest/gvm.h"

#include <stdlib.h>

#include "ffsnap.h"
#include "guest/ipi.h"
#include "guest/slock.h"
#include "guest/vdisk.h"
#include "hv/hv.h"

/* The mask of a task pinned to vCPU cpu: the window of g->one_hot whose
 * byte cpu is its middle one, so N pinned tasks share 2N-1 bytes, not N^2
 * (what gk_task_allowed reads is the same). */
static const unsigned char *
pinned(struct gvm *g, int cpu)
{
	int n = g->vm->nvcpus;

	if (g->one_hot == NULL) {
		g->one_hot = xcalloc((size_t)(2 * n - 1), 1);
		g->one_hot[n - 1] = 1;
	}
	return g->one_hot + (n - 1 - cpu);
}

/* whether the list names one vCPU only (perhaps more than once) */
static int
one_cpu(const struct gvm_taskdef *td)
{
	int j;

	for (j = 1; j < td->ncpus; j++)
		if (td->cpus[j] != td->cpus[0])
			return 0;
	return td->ncpus > 0;
}

static void
make_tasks(struct gvm *g, const struct gvm_config *c)
{
	int i, j, n = 0;

	for (i = 0; i < c->ntaskdefs; i++)
		n += c->tasks[i].count;
	g->tasks = xcalloc((size_t)n + 1, sizeof *g->tasks);
	g->aff = xcalloc((size_t)c->ntaskdefs + 1, sizeof *g->aff);
	g->naff = c->ntaskdefs;
	for (i = 0; i < c->ntaskdefs; i++) {
		const struct gvm_taskdef *td = &c->tasks[i];
		const unsigned char *aff = NULL;
		int only = -1;

		if (td->cpus != NULL && one_cpu(td)) {
			only = (int)td->cpus[0];
			aff = pinned(g, only);
		} else if (td->cpus != NULL) {
			g->aff[i] = xcalloc((size_t)g->vm->nvcpus, 1);
			for (j = 0; j < td->ncpus; j++)
				g->aff[i][td->cpus[j]] = 1;
			aff = g->aff[i];
		}
		for (j = 0; j < td->count; j++) {
			struct task *t = gk_task_new(g->k, NULL, aff, only, td->nice, NULL);

			t->mm = td->mm;
			g->tasks[g->ntasks++] = t;
		}
	}
}

/* Where each of n classes' instances start in one array, from their counts
 * (NULL: one each); base[n] is the total. */
static int *
bases(int n, const int *inst)
{
	int *b = xcalloc((size_t)n + 1, sizeof *b), i;

	for (i = 0; i < n; i++)
		b[i + 1] = b[i] + (inst != NULL && inst[i] > 1 ? inst[i] : 1);
	return b;
}

/* Instance j of a class of k: NAME[j], or NAME for a class of one. */
static char *
instance_name(const char *name, int k, int j)
{
	return k > 1 ? xasprintf("%s[%d]", name, j) : xstrdup(name);
}

/* Each class's instances in a row; a class of one is named as declared. */
static void
make_locks(struct gvm *g, const struct gvm_config *c)
{
	int *inst = xcalloc((size_t)c->nlocks + 1, sizeof *inst), i, j, k;

	for (i = 0; i < c->nlocks; i++)
		inst[i] = c->locks[i].instances;
	g->lock_base = bases(c->nlocks, inst);
	free(inst);
	g->nlocks = g->lock_base[c->nlocks];
	g->locks = xcalloc((size_t)g->nlocks + 1, sizeof *g->locks);
	for (i = 0; i < c->nlocks; i++)
		for (k = g->lock_base[i + 1] - g->lock_base[i], j = 0; j < k; j++) {
			char *nm = instance_name(c->locks[i].name, k, j);

			g->locks[g->lock_base[i] + j] = lock_new(c->lock_ops, c->lock_cfg, nm,
			    g->vm, &c->locks[i].lines, c->client);
			free(nm);
		}
}

/* The sleeping locks' instances, then one mmap_sem per address space. */
static void
make_slocks(struct gvm *g, const struct gvm_config *c)
{
	int *inst = xcalloc((size_t)c->nslocks + 1, sizeof *inst), i, j, k;

	for (i = 0; i < c->nslocks; i++)
		inst[i] = c->slocks[i].instances;
	g->sl_base = bases(c->nslocks, inst);
	free(inst);
	g->nslocks = g->sl_base[c->nslocks];
	g->nsl = g->nslocks + c->kernel.nmm;
	g->sl = xcalloc((size_t)g->nsl + 1, sizeof *g->sl);
	for (i = 0; i < c->nslocks; i++)
		for (k = g->sl_base[i + 1] - g->sl_base[i], j = 0; j < k; j++) {
			char *nm = instance_name(c->slocks[i].name, k, j);

			g->sl[g->sl_base[i] + j] = slock_new(c->slocks[i].ops != NULL ?
			    c->slocks[i].ops : &slock_mutex_ops, g->k, nm, c->kernel.spin_preempted);
			free(nm);
		}
	for (i = 0; i < c->kernel.nmm; i++) {
		/* Linux mm_struct.mmap_sem: an rw_semaphore per address space */
		char *nm = xasprintf("mmap_sem.%s", c->mm_names[i]);

		g->sl[g->nslocks + i] = slock_new(&slock_rwsem_ops, g->k, nm,
		    c->kernel.spin_preempted);
		free(nm);
	}
}

int
gvm_ffs(struct ffs *s, struct gvm *g)
{
	int i;

	for (i = 0; i < g->nlocks; i++)
		if (!lock_ffs(s, g->locks[i]))
			return 0;
	/* as they are: a lock, an unlock, a wait or a post changes them */
	for (i = 0; i < g->nsl; i++)
		ffs_bytes(s, g->sl[i], sizeof *g->sl[i]);
	ffs_bytes(s, g->queues, (size_t)g->nqueues * sizeof *g->queues);
	if (g->disk != NULL)
		vdisk_ffs(s, g->disk);
	return 1;
}

struct gvm *
gvm_new(struct vm *vm, const struct gvm_config *c)
{
	struct gvm *g = xcalloc(1, sizeof *g);
	int i;

	g->vm = vm;
	make_locks(g, c);
	g->queue_base = bases(c->nqueues, c->queue_inst);
	g->nqueues = g->queue_base[c->nqueues];
	g->queues = xcalloc((size_t)g->nqueues + 1, sizeof *g->queues);
	for (i = 0; i < g->queue_base[c->nqueues]; i++)
		gk_waitq_init(&g->queues[i]);
	vm->guest = g;
	{
		struct gk_config kc = c->kernel;

		kc.lock_ops = c->lock_ops;	/* rq->lock, p->pi_lock: the VM's spinlocks */
		kc.lock_cfg = c->lock_cfg;
		g->k = gk_new(vm, &kc);
	}
	gk_set_smp(g->k, &ipi_smp_ops, ipi_new(g->k, &c->kernel.ipi, c->kernel.nmm,
	    gk_stats_rw(g->k)));
	g->disk = vdisk_new(vm->hv->sim);
	make_slocks(g, c);
	make_tasks(g, c);
	return g;
}

void
gvm_stats_reset(struct gvm *g)
{
	int i;

	gk_stats_reset(g->k);
	for (i = 0; i < g->nlocks; i++)
		lock_stats_reset(g->locks[i]);
	for (i = 0; i < g->nsl; i++)
		slock_stats_reset(g->sl[i]);
	vdisk_stats_reset(g->disk);
}

void
gvm_free(struct gvm *g)
{
	int i;

	if (g == NULL)
		return;
	if (g->k != NULL)
		ipi_free(gk_ipi(g->k));
	gk_free(g->k);		/* frees the program state of tasks still alive (task_free) */
	for (i = 0; i < g->nsl; i++)
		slock_free(g->sl[i]);
	free(g->sl);
	free(g->sl_base);
	vdisk_free(g->disk);
	g->vm->kernel = NULL;
	for (i = 0; i < g->naff; i++)
		free(g->aff[i]);
	free(g->aff);
	free(g->one_hot);
	for (i = 0; i < g->nlocks; i++)
		lock_free(g->locks[i]);
	free(g->locks);
	free(g->lock_base);
	free(g->queues);
	free(g->queue_base);
	free(g->tasks);
	g->vm->guest = NULL;
	free(g);
}

struct gvm *
gvm_of(const struct vm *vm)
{
	return vm->guest;
}
