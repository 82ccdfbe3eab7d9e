/*
 * exec.c - the master's loop over the backends: fill free slots in id order,
 * collect results, stop starting jobs after a failure.  See exec.h.
 */
#include "exec.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

double
exec_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static void
fmt_dur(char *b, size_t n, double s)
{
	long t = (long)(s + 0.5);

	if (t >= 3600)
		snprintf(b, n, "%ldh%02ldm", t / 3600, t / 60 % 60);
	else if (t >= 60)
		snprintf(b, n, "%ldm%02lds", t / 60, t % 60);
	else
		snprintf(b, n, "%lds", t);
}

void
exec_prog_draw(const struct exec_prog *p, int last)
{
	char eta[32] = "?";

	if (p->f == NULL)
		return;
	if (p->ran > 0)
		fmt_dur(eta, sizeof eta, (exec_now() - p->t0) / (double)p->ran *
		    (double)(p->total - p->done));
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
	char **used = xcalloc((size_t)nbe, sizeof *used);
	size_t next = 0;
	struct exec_event ev;
	struct vs_err e2;
	int b, s, active;

	*failed = 0;
	*first_failed = 0;
	for (b = 0; b < nbe; b++) {
		nslots[b] = be[b]->ops->nslots(be[b]);
		used[b] = xcalloc((size_t)nslots[b] + 1, 1);
	}
	for (;;) {
		/* Fill free slots, backends in the order given. */
		for (b = 0; b < nbe && *failed == 0; b++)
			for (s = 0; s < nslots[b] && next < nids && *failed == 0; s++) {
				if (used[b][s])
					continue;
				if (be[b]->ops->submit(be[b], s, ids[next], &e2)) {
					if ((*failed)++ == 0) {
						*first_failed = ids[next];
						*err = e2;
					}
					break;
				}
				used[b][s] = 1;
				busy[b]++;
				prog->running++;
				next++;
			}
		exec_prog_draw(prog, 0);
		if (prog->running == 0)
			break;
		/* One backend busy: block on it; several: look at each in turn. */
		for (active = 0, b = 0; b < nbe; b++)
			active += busy[b] > 0;
		for (b = 0; b < nbe; b++) {
			if (busy[b] == 0)
				continue;
			if (!be[b]->ops->wait(be[b], active > 1 ? 0.001 : 0.5, &ev))
				continue;
			VS_ASSERT(ev.slot >= 0 && ev.slot < nslots[b] && used[b][ev.slot]);
			used[b][ev.slot] = 0;
			busy[b]--;
			prog->running--;
			if (ev.status == EXEC_OK && done(ctx, ev.id, ev.buf, ev.len, &e2) == 0) {
				prog->done++;
				prog->ran++;
			} else {
				if (ev.status != EXEC_OK)
					vs_errf(&e2, NULL, 0, 0, "%s", ev.buf ? ev.buf : "failed");
				fprintf(stderr, "%svlocksim %s: %s %zu: %s\n", prog->f ? "\n" : "",
				    prog->what, prog->item, ev.id, e2.msg);
				if ((*failed)++ == 0) {
					*first_failed = ev.id;
					*err = e2;
				}
			}
			free(ev.buf);
		}
	}
	exec_prog_draw(prog, 1);
	for (b = 0; b < nbe; b++)
		free(used[b]);
	free(used);
	free(busy);
	free(nslots);
	return *failed ? -1 : 0;
}
