/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * workload.c - a compiled workload's lifetime and what the scenario asks of
 * it (names, counts, sections); compile.c builds it from YAML, interp.c
 * runs it on a guest VM (gvm.h).
 */
#include "workload/wl_priv.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dist.h"

int
wl_section_ok(const struct workload *w, size_t at, int lock)
{
	for (; at < w->nops && w->ops[at].op == OP_COMPUTE; at++)
		;
	return at < w->nops && w->ops[at].op == OP_RELEASE && w->ops[at].arg == lock;
}

int
wl_check_sections(const struct workload *w, struct vs_err *err)
{
	if (w->sect_err == NULL)
		return 0;
	snprintf(err->msg, sizeof err->msg, "%s", w->sect_err);
	return -1;
}

void
wl_free(struct workload *w)
{
	size_t i;

	if (w == NULL)
		return;
	for (i = 0; i < w->nops; i++) {
		dist_free(w->ops[i].d);
		free(w->ops[i].ref);
		free(w->op_where[i]);
	}
	free(w->op_where);
	free(w->op_prim);
	for (i = 0; i < w->nprogs; i++)
		free(w->progs[i].name);
	for (i = 0; i < w->ntasks; i++) {
		free(w->tasks[i].cpus);
		free(w->tasks[i].where);
	}
	for (i = 0; i < w->nqueues; i++)
		free(w->queues[i]);
	for (i = 0; i < w->nmarks; i++)
		free(w->marks[i]);
	for (i = 0; i < w->nmms; i++)
		free(w->mms[i]);
	free(w->mms);
	for (i = 0; i < w->nslocks; i++) {
		free(w->slocks[i].name);
		free(w->slocks[i].kind);
		free(w->slocks[i].where);
	}
	free(w->slocks);
	free(w->progs);
	free(w->tasks);
	free(w->queues);
	free(w->queue_inst);
	free(w->marks);
	for (i = 0; i < w->nlocks; i++)
		free(w->locks[i].name);
	for (i = 0; i < w->ncounters; i++)
		free(w->counters[i]);
	free(w->sect_err);
	free(w->hold);
	free(w->ops);
	free(w->locks);
	free(w->counters);
	free(w->name);
	free(w);
}

int wl_threads(const struct workload *w) { return w->threads; }

int
wl_endless(const struct workload *w)
{
	size_t i;

	for (i = 0; i < w->nops; i++)
		if (w->ops[i].op == OP_LOOP && w->ops[i].n < 0)
			return 1;
	return 0;
}
int wl_nlocks(const struct workload *w) { return (int)w->nlocks; }
int wl_ncounters(const struct workload *w) { return (int)w->ncounters; }
const char *wl_counter_name(const struct workload *w, int i) { return w->counters[i]; }
const char *wl_name(const struct workload *w) { return w->name; }
double wl_lock_calls(const struct workload *w, int i) { return w->locks[i].calls; }
const char *wl_lock_name(const struct workload *w, int i) { return w->locks[i].name; }
int wl_lock_instances(const struct workload *w, int i) { return w->locks[i].instances; }

int wl_has_tasks(const struct workload *w) { return w->tasks != NULL; }
int wl_spawns(const struct workload *w) { return w->spawns; }
int wl_nmarks(const struct workload *w) { return (int)w->nmarks; }
/* The per-vCPU form's threads share one mm. */
int wl_nmms(const struct workload *w) { return w->nmms > 0 ? (int)w->nmms : 1; }
const char *wl_mm_name(const struct workload *w, int i) { return w->nmms > 0 ? w->mms[i] : "main"; }
int wl_nslocks(const struct workload *w) { return (int)w->nslocks; }
int wl_uses_mmap_sem(const struct workload *w) { return w->mmap_sem; }
int wl_uses_io(const struct workload *w) { return w->uses_io; }
const char *wl_slock_name(const struct workload *w, int i) { return w->slocks[i].name; }
const char *wl_slock_kind(const struct workload *w, int i) { return w->slocks[i].kind; }
const char *wl_slock_where(const struct workload *w, int i) { return w->slocks[i].where; }
int wl_slock_read_used(const struct workload *w, int i) { return w->slocks[i].read_used; }
void wl_set_slock_ops(struct workload *w, int i, const struct slock_ops *o) { w->slocks[i].ops = o; }
size_t wl_cost(const struct workload *w) { return w->cost; }

const char *
wl_io_where(const struct workload *w, int kind)
{
	size_t i;

	for (i = 0; w->uses_io && i < w->nops; i++)
		if (w->ops[i].op == OP_IO && w->ops[i].arg == kind)
			return w->op_where[i] != NULL ? w->op_where[i] : "?";
	return NULL;
}

int64_t
wl_ntasks(const struct workload *w)
{
	int64_t n = 0;
	size_t i;

	if (w->tasks == NULL)
		return -1;
	for (i = 0; i < w->ntasks; i++)
		n += w->tasks[i].count;
	return n;
}
const char *wl_mark_name(const struct workload *w, int i) { return w->marks[i]; }

int
wl_check_vcpus(const struct workload *w, int vcpus, struct vs_err *err)
{
	size_t i;
	int j;

	for (i = 0; i < w->ntasks; i++)
		for (j = 0; j < w->tasks[i].ncpus; j++)
			if (w->tasks[i].cpus[j] >= vcpus) {
				vs_errf(err, NULL, 0, 0, "%s: task cpus lists vCPU %lld but the VM "
				    "has %d vCPUs (0-%d)", w->tasks[i].where,
				    (long long)w->tasks[i].cpus[j], vcpus, vcpus - 1);
				return -1;
			}
	return 0;
}

