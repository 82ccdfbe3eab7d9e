/* SPDX-License-Identifier: GPL-2.0-or-later */
/* timeline.c - the timeline picture of timeline.h. */
#include "timeline.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "plot.h"
#include "scenario.h"

/* Bar kinds, in plots/timeline.gp's order. */
/* A wait bar spans acquire() to owning the lock; a halted bar (HLT to wakeup)
 * is drawn over it, so what is left of the wait is spinning. */
enum { TK_RUNNING, TK_RUNNABLE, TK_BLOCKED, TK_OFFLINE, TK_WAIT, TK_HALTED, TK_HOLD };
/* Mark kinds. */
enum { TM_HLT, TM_PLE, TM_IO, TM_HYPERCALL, TM_KICK };

struct tlv {
	char *name;
	int rs;			/* current runstate, -1 before the first */
	sim_time_t rs_since;
	int holds;		/* locks held (nested: outermost bar only) */
	sim_time_t hold_since;
	int waiting, halted;	/* inside acquire(); halted (HLT) meanwhile */
	sim_time_t wait_since, halt_since;
};

struct timeline {
	sim_time_t from, to;
	int nv;
	struct tlv *v;
	char *bars, *marks;
	size_t nbars_len, nmarks_len;
	FILE *fb, *fm;
	long nbars, nmarks;
	struct probe probe;
};

/* Lane of vCPU i: the first at the top. */
static double
lane(const struct timeline *t, int i)
{
	return (double)(t->nv - 1 - i);
}

static void
bar(struct timeline *t, int i, int kind, sim_time_t a, sim_time_t b)
{
	double y = lane(t, i) + (kind <= TK_OFFLINE ? 0.18 : -0.18);

	if (a < t->from)
		a = t->from;
	if (b > t->to)
		b = t->to;
	if (b <= a)
		return;
	fprintf(t->fb, "%.3f %.3f %.2f %d\n", (double)a * 1e-3, (double)b * 1e-3, y, kind);
	t->nbars++;
}

static void
mark(struct timeline *t, int i, int kind, sim_time_t at)
{
	if (at < t->from || at > t->to)
		return;
	fprintf(t->fm, "%.3f %.2f %d\n", (double)at * 1e-3, lane(t, i) + 0.42, kind);
	t->nmarks++;
}

static void
tl_probe(void *ctx, const struct probe_ev *e)
{
	struct timeline *t = ctx;
	struct tlv *v;
	int i;

	if (e->kind == PR_END) {
		for (i = 0; i < t->nv; i++) {
			v = &t->v[i];
			if (v->rs >= 0)
				bar(t, i, v->rs, v->rs_since, e->t);
			if (v->holds > 0)
				bar(t, i, TK_HOLD, v->hold_since, e->t);
			if (v->waiting)
				bar(t, i, TK_WAIT, v->wait_since, e->t);
			if (v->halted)
				bar(t, i, TK_HALTED, v->halt_since, e->t);
		}
		return;
	}
	VS_ASSERT(e->vcpu >= 0 && e->vcpu < t->nv);
	i = e->vcpu;
	v = &t->v[i];
	switch (e->kind) {
	case PR_RUNSTATE:
		if (v->rs >= 0)
			bar(t, i, v->rs, v->rs_since, e->t);
		v->rs = e->aux;
		v->rs_since = e->t;
		break;
	case PR_LOCK_WAIT:
		if (!v->waiting) {
			v->waiting = 1;
			v->wait_since = e->t;
		}
		break;
	case PR_LOCK_TAKEN:
		if (v->waiting)
			bar(t, i, TK_WAIT, v->wait_since, e->t);
		v->waiting = 0;
		if (v->holds++ == 0)
			v->hold_since = e->t;
		break;
	case PR_LOCK_RELEASE:
		if (v->holds > 0 && --v->holds == 0)
			bar(t, i, TK_HOLD, v->hold_since, e->t);
		break;
	case PR_HALT:
		if (!v->halted) {
			v->halted = 1;
			v->halt_since = e->t;
		}
		break;
	case PR_WAKE:
		if (v->halted)
			bar(t, i, TK_HALTED, v->halt_since, e->t);
		v->halted = 0;
		break;
	case PR_HLT_EXIT:
		mark(t, i, TM_HLT, e->t);
		break;
	case PR_PLE_EXIT:
		mark(t, i, TM_PLE, e->t);
		break;
	case PR_IO_EXIT:
		mark(t, i, e->aux == 4 ? TM_HYPERCALL : TM_IO, e->t);
		break;
	case PR_KICK:
		mark(t, i, TM_KICK, e->t);
		break;
	default:
		break;
	}
}

struct timeline *
timeline_new(const struct scenario *sc, sim_time_t from, sim_time_t to)
{
	struct timeline *t = xcalloc(1, sizeof *t);
	int i, j, k, n = 0;

	for (i = 0; i < sc->nvms; i++)
		t->nv += sc->vms[i].count * sc->vms[i].vcpus;
	t->v = xcalloc((size_t)t->nv + 1, sizeof *t->v);
	/* Global vCPU ids follow the VMs in scenario order (run.c builds them so). */
	for (i = 0; i < sc->nvms; i++)
		for (j = 0; j < sc->vms[i].count; j++)
			for (k = 0; k < sc->vms[i].vcpus; k++, n++) {
				t->v[n].name = sc->vms[i].count > 1 ?
				    xasprintf("%s%d v%d", sc->vms[i].name, j, k) :
				    xasprintf("%s v%d", sc->vms[i].name, k);
				t->v[n].rs = -1;
			}
	t->from = from;
	t->to = to;
	t->fb = open_memstream(&t->bars, &t->nbars_len);
	t->fm = open_memstream(&t->marks, &t->nmarks_len);
	if (t->fb == NULL || t->fm == NULL)
		vs_fatal("open_memstream failed");
	t->probe.fn = tl_probe;
	t->probe.ctx = t;
	return t;
}

void
timeline_free(struct timeline *t)
{
	int i;

	if (t == NULL)
		return;
	if (t->fb != NULL)
		fclose(t->fb);
	if (t->fm != NULL)
		fclose(t->fm);
	free(t->bars);
	free(t->marks);
	for (i = 0; i < t->nv; i++)
		free(t->v[i].name);
	free(t->v);
	free(t);
}

const struct probe *
timeline_probe(struct timeline *t)
{
	return &t->probe;
}

int
timeline_path_ok(const char *path)
{
	size_t n = strlen(path);

	return n > 4 && (strcmp(path + n - 4, ".png") == 0 || strcmp(path + n - 4, ".svg") == 0);
}

int
timeline_write(struct timeline *t, const char *path, const char *title, struct vs_err *err)
{
	char *dat = xasprintf("%s.dat", path), *text, *tics = xstrdup(""), *s;
	char *q1, *q2, *q3, *q4, *vars;
	size_t n;
	int i, rc;

	fclose(t->fb);
	fclose(t->fm);
	t->fb = t->fm = NULL;
	/* Two gnuplot data blocks; an empty block gets a point outside the range. */
	text = xasprintf("# bars: x0_us x1_us y kind (0 running 1 runnable 2 blocked "
	    "3 offline 4 waiting 5 halted 6 hold)\n%s%s\n\n# marks: x_us y kind (0 HLT 1 PLE "
	    "2 IO 3 hypercall 4 kick)\n%s%s", t->bars, t->nbars ? "" : "-1 -1 -1 -1\n",
	    t->marks, t->nmarks ? "" : "-1 -1 -1\n");
	rc = vs_write_file_atomic(dat, text, strlen(text), err);
	free(text);
	if (rc) {
		free(dat);
		free(tics);
		return -1;
	}
	for (i = 0; i < t->nv; i++) {
		s = xasprintf("%s%s\"%s\" %g", tics, i ? ", " : "", t->v[i].name, lane(t, i));
		free(tics);
		tics = s;
	}
	n = strlen(path);
	q1 = plot_quote(dat);
	q2 = plot_quote(path);
	q3 = plot_quote(title);
	q4 = plot_quote(tics);
	vars = xasprintf("datafile=%s; out=%s; fmt='%s'; ttl=%s; ytl=%s; nv=%d; "
	    "x0=%.3f; x1=%.3f", q1, q2, path + n - 3, q3, q4, t->nv, (double)t->from * 1e-3,
	    (double)t->to * 1e-3);
	rc = plot_run("timeline.gp", vars, err);
	free(q1), free(q2), free(q3), free(q4), free(vars), free(tics), free(dat);
	return rc;
}
