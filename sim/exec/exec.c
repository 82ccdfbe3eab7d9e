/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * exec.c - the master's loop over the backends: fill free slots in id order,
 * collect results, stop starting jobs after a failure.  See exec.h.
 */
#include "exec.h"
#include "progress.h"
#include "run.h"

#include <stdlib.h>
#include <string.h>

/* The master's clock: the engine's monotonic one (progress.c). */
double
exec_now(void)
{
	return progress_now();
}

void
exec_prog_draw(struct exec_prog *p, int last)
{
	char eta[32] = "?";
	double now = exec_now();

	if (p->show != NULL) {
		p->show(p->show_ctx, p->done, p->running, p->total);
		return;
	}
	if (p->f == NULL || (!last && p->done == p->ldone && p->running == p->lrunning &&
	    now - p->drawn < 1.0 && p->drawn > 0))
		return;
	p->drawn = now;
	p->ldone = p->done;
	p->lrunning = p->running;
	if (p->ran > 0)
		progress_hms(eta, sizeof eta, progress_eta(p->t_ran, (double)p->ran, now - p->t0,
		    (double)(p->total - p->done), p->running));
	fprintf(p->f, "\r%s: %zu/%zu %s, %d running, eta %s   %s", p->what, p->done,
	    p->total, p->unit, p->running, eta, last ? "\n" : "");
	fflush(p->f);
}

int
exec_run(struct exec_backend **be, int nbe, const size_t *ids, size_t nids,
    exec_done_fn done, void *ctx, struct exec_prog *prog, size_t *failed,
    size_t *first_failed, struct vs_err *err)
{
	int *nslots = xcalloc((size_t)nbe, sizeof *nslots);
	int *busy = xcalloc((size_t)nbe, sizeof *busy);
	int *watch = xcalloc((size_t)nbe, sizeof *watch);
	char **used = xcalloc((size_t)nbe, sizeof *used);
	size_t next = 0, *again = xcalloc(nids + 1, sizeof *again), nagain = 0, id;
	struct exec_event ev;
	struct vs_err e2;
	int b, s, active, alive, stopped = 0;	/* the reported failure stopped at a limit */

	*failed = 0;
	*first_failed = 0;
	VS_ASSERT(nbe >= 1 && nbe <= EXEC_MAX_BACKENDS);
	for (b = 0; b < nbe; b++) {
		nslots[b] = be[b]->ops->nslots(be[b]);
		used[b] = xcalloc((size_t)nslots[b] + 1, 1);
	}
	for (;;) {
		/* Fill free slots, backends in the order given; lost jobs first. */
		for (b = 0; b < nbe && *failed == 0; b++)
			for (s = 0; s < nslots[b] && (nagain || next < nids) &&
			    *failed == 0; s++) {
				if (used[b][s] || !be[b]->ops->ready(be[b], s))
					continue;
				id = nagain ? again[nagain - 1] : ids[next];
				if (be[b]->ops->submit(be[b], s, id, &e2)) {
					if ((*failed)++ == 0 || id < *first_failed) {
						*first_failed = id;
						*err = e2;
						stopped = 0;
					}
					break;
				}
				if (nagain)
					nagain--;
				else
					next++;
				used[b][s] = 1;
				busy[b]++;
				prog->running++;
			}
		exec_prog_draw(prog, 0);
		for (alive = 0, b = 0; b < nbe; b++)
			for (s = 0; s < nslots[b]; s++)
				alive += used[b][s] != 2;
		if (prog->running == 0 && (alive == 0 || *failed || (nagain == 0 &&
		    next == nids))) {
			if (alive == 0 && *failed == 0 && (nagain || next < nids)) {
				*first_failed = nagain ? again[nagain - 1] : ids[next];
				*failed = nagain + nids - next;
				vs_errf(err, NULL, 0, 0, "no worker left to run it (every rank "
				    "is gone)");
			}
			break;
		}
		/* Backends to listen to: running jobs, or workers still starting
		 * up.  One: block on it; several: look at each in turn. */
		for (active = 0, b = 0; b < nbe; b++) {
			watch[b] = busy[b] > 0;
			for (s = 0; s < nslots[b] && !watch[b]; s++)
				watch[b] = !used[b][s] && !be[b]->ops->ready(be[b], s);
			active += watch[b];
		}
		for (b = 0; b < nbe; b++) {
			if (!watch[b])
				continue;
			if (!be[b]->ops->wait(be[b], active == 1 ? 0.5 : 0.001, &ev))
				continue;
			VS_ASSERT(ev.slot >= 0 && ev.slot < nslots[b] && used[b][ev.slot] == 1);
			used[b][ev.slot] = 0;
			busy[b]--;
			prog->running--;
			if (ev.status == EXEC_LOST) {
				/* Its worker is gone: someone else runs it, the slot stays shut. */
				used[b][ev.slot] = 2;
				again[nagain++] = ev.id;
				fprintf(stderr, "%svlocksim %s: %s %zu: %s; handed out again\n",
				    prog->f ? "\n" : "", prog->what, prog->item, ev.id,
				    ev.buf ? ev.buf : "lost");
			} else if (ev.status == EXEC_OK && done(ctx, ev.id, ev.buf, ev.len, &e2) == 0) {
				prog->done++;
				prog->ran++;
				prog->t_ran = exec_now() - prog->t0;
				prog->ran_by[b]++;
			} else {
				if (ev.status != EXEC_OK)
					vs_errf(&e2, NULL, 0, 0, "%s", ev.buf ? ev.buf : "failed");
				if (!prog->quiet)
					fprintf(stderr, "%svlocksim %s: %s %zu: %s\n",
					    prog->f ? "\n" : "", prog->what, prog->item, ev.id,
					    e2.msg);
				if ((*failed)++ == 0 || ev.id < *first_failed) {
					*first_failed = ev.id;
					*err = e2;
					stopped = ev.status == EXEC_STOPPED;
				}
			}
			free(ev.buf);
		}
	}
	exec_prog_draw(prog, 1);
	free(again);
	for (b = 0; b < nbe; b++)
		free(used[b]);
	free(used);
	free(busy);
	free(watch);
	free(nslots);
	return *failed == 0 ? 0 : stopped ? RUN_STOPPED : -1;
}
