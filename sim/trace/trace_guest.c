/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * trace_guest.c - the accumulator's guest side: lock classes and tasks
 * (trace_guest.h), their report and the workload built from them.
 */
#include <ctype.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "trace_emit.h"
#include "trace_guest.h"

struct gtask {
	int pid;
	int grp;			/* index into groups */
	int64_t in_at;			/* switched in; -1 when not on a CPU */
	int64_t out_at;			/* switched out blocked; -1 otherwise */
	double demand;			/* run since it last blocked */
	int started;			/* a run began inside the trace */
	uint64_t pend_addr;		/* contention_begin not yet ended */
	int64_t pend_at;		/* -1: none */
};

struct gcpu {
	uint64_t switches;
	int64_t since;			/* -1: no switch seen yet */
	int idle;			/* pid 0 on it */
	double idle_ns, seen_ns;
};

struct ti_guest {
	struct ti_glock **locks;
	size_t nlocks, caplocks;
	struct ti_ggroup *groups;
	size_t ngroups, capgroups;
	struct gtask *tasks;		/* open addressing on pid; pid -1 = empty */
	size_t ntasks, captasks;
	struct gcpu *cpus;
	size_t ncpus;
	uint64_t switches, wakeups, unmatched_end;
	int64_t last_ns;
};

struct ti_guest *
ti_guest_new(void)
{
	return xcalloc(1, sizeof(struct ti_guest));
}

void
ti_guest_free(struct ti_guest *g)
{
	size_t i;

	if (g == NULL)
		return;
	for (i = 0; i < g->nlocks; i++) {
		free(g->locks[i]->name);
		ti_q_free(&g->locks[i]->wait);
		free(g->locks[i]);
	}
	for (i = 0; i < g->ngroups; i++) {
		ti_q_free(&g->groups[i].run);
		ti_q_free(&g->groups[i].block);
	}
	free(g->locks);
	free(g->groups);
	free(g->tasks);
	free(g->cpus);
	free(g);
}

static struct ti_guest *
G(struct ti_trace *t)
{
	if (t->guest == NULL)
		t->guest = ti_guest_new();
	return t->guest;
}

/* ---- locks ---------------------------------------------------------------- */

static struct ti_glock *
lock_get(struct ti_guest *g, const char *name, uint64_t addr)
{
	struct ti_glock *l;
	size_t i;

	for (i = 0; i < g->nlocks; i++)
		if (strcmp(g->locks[i]->name, name) == 0)
			return g->locks[i];
	l = xcalloc(1, sizeof *l);
	l->name = xstrdup(name);
	l->addr = addr;
	VS_GROW(g->locks, g->caplocks, g->nlocks);
	g->locks[g->nlocks++] = l;
	return l;
}

void
ti_guest_lock_row(struct ti_trace *t, const char *cls, const struct ti_lockrow *r)
{
	struct ti_glock *l = lock_get(G(t), cls, 0);

	l->from_stat = 1;
	l->row = *r;
}

/* ---- tasks ------------------------------------------------------------------ */

static void
tasks_rehash(struct ti_guest *g)
{
	struct gtask *old = g->tasks;
	size_t oldcap = g->captasks, i, j;

	g->captasks = oldcap ? oldcap * 2 : 256;
	g->tasks = xcalloc(g->captasks, sizeof *g->tasks);
	for (i = 0; i < g->captasks; i++)
		g->tasks[i].pid = -1;
	for (i = 0; i < oldcap; i++) {
		if (old[i].pid < 0)
			continue;
		for (j = (size_t)old[i].pid % g->captasks; g->tasks[j].pid >= 0;
		    j = (j + 1) % g->captasks)
			;
		g->tasks[j] = old[i];
	}
	free(old);
}

/* "kworker/3:1" -> "kworker", "CPU 0/KVM" stays, "cc1" stays, "make-12" -> "make". */
static void
group_name(const char *c, size_t n, char *out, size_t outn)
{
	size_t i;

	if (n >= outn)
		n = outn - 1;
	for (i = 0; i < n; i++)
		out[i] = (c[i] == ' ' || c[i] == ',' || c[i] == ':' || c[i] == '#' ||
		    c[i] == '"' || c[i] == '\'' || c[i] == '{' || c[i] == '}' || c[i] == '[' ||
		    c[i] == ']') ? '_' : c[i];
	out[n] = '\0';
	if (strchr(out, '/') != NULL && strstr(out, "/KVM") == NULL)
		*strchr(out, '/') = '\0';
	n = strlen(out);
	while (n > 1 && (out[n - 1] == '-' || out[n - 1] == '_' || (isdigit((unsigned char)out[n - 1]) &&
	    !isalpha((unsigned char)out[n - 2]))))
		out[--n] = '\0';
	if (n == 0)
		snprintf(out, outn, "task");
}

/* The thread pid; created when absent.  comm NULL: not named yet (a thread
 * seen only in a lock event); its group comes with its first sched event. */
static struct gtask *
task_get(struct ti_guest *g, int pid, const char *comm, size_t n)
{
	char name[32];
	size_t j, k;

	if (g->ntasks * 2 >= g->captasks)
		tasks_rehash(g);
	for (j = (size_t)pid % g->captasks; g->tasks[j].pid >= 0; j = (j + 1) % g->captasks)
		if (g->tasks[j].pid == pid)
			break;
	if (g->tasks[j].pid < 0) {
		g->tasks[j].pid = pid;
		g->tasks[j].grp = -1;
		g->tasks[j].in_at = g->tasks[j].out_at = g->tasks[j].pend_at = -1;
		g->ntasks++;
	}
	if (comm == NULL || g->tasks[j].grp >= 0)
		return &g->tasks[j];
	group_name(comm, n, name, sizeof name);
	for (k = 0; k < g->ngroups; k++)
		if (strcmp(g->groups[k].name, name) == 0)
			break;
	if (k == g->ngroups) {
		VS_GROW(g->groups, g->capgroups, g->ngroups);
		memset(&g->groups[k], 0, sizeof g->groups[k]);
		snprintf(g->groups[k].name, sizeof g->groups[k].name, "%s", name);
		g->ngroups++;
	}
	g->groups[k].threads++;
	g->tasks[j].grp = (int)k;
	return &g->tasks[j];
}

static struct gcpu *
cpu_get(struct ti_guest *g, int cpu)
{
	if (cpu < 0 || cpu > 4095)
		return NULL;
	if ((size_t)cpu >= g->ncpus) {
		size_t i, n = (size_t)cpu + 1;

		g->cpus = xrealloc(g->cpus, n * sizeof *g->cpus);
		for (i = g->ncpus; i < n; i++) {
			memset(&g->cpus[i], 0, sizeof g->cpus[i]);
			g->cpus[i].since = -1;
		}
		g->ncpus = n;
	}
	return &g->cpus[cpu];
}

static void
block_end(struct ti_trace *t, struct ti_guest *g, struct gtask *k, int64_t ns)
{
	struct ti_ggroup *gr = &g->groups[k->grp];

	if (k->out_at >= 0) {
		ti_q_add(t, &gr->block, (double)(ns - k->out_at));
		gr->block_ns += (double)(ns - k->out_at);
	}
	k->out_at = -1;
}

void
ti_guest_task_switch(struct ti_trace *t, int cpu, int ppid, const char *pc, size_t pn,
    char pst, int npid, const char *nc, size_t nn, int64_t ns)
{
	struct ti_guest *g = G(t);
	struct gcpu *c = cpu_get(g, cpu);
	struct gtask *k;

	g->switches++;
	g->last_ns = ns;
	if (c != NULL) {
		c->switches++;
		if (c->since >= 0) {
			c->seen_ns += (double)(ns - c->since);
			if (c->idle)
				c->idle_ns += (double)(ns - c->since);
		}
		c->since = ns;
		c->idle = npid == 0;
	}
	/* Linux kernel/sched/core.c __schedule: prev leaves the CPU, runnable
	 * (preempted) or not (it blocks until try_to_wake_up). */
	if (ppid > 0 && (k = task_get(g, ppid, pc, pn)) != NULL) {
		struct ti_ggroup *gr = &g->groups[k->grp];

		if (k->in_at >= 0) {
			k->demand += (double)(ns - k->in_at);
			gr->run_ns += (double)(ns - k->in_at);
		}
		k->in_at = -1;
		gr->switches++;
		gr->preempts += pst == 'R';
		if (pst != 'R') {
			if (k->started)
				ti_q_add(t, &gr->run, k->demand);
			gr->blocks++;
			k->demand = 0;
			k->started = 1;
			k->out_at = ns;
		}
	}
	if (npid > 0 && (k = task_get(g, npid, nc, nn)) != NULL) {
		block_end(t, g, k, ns);	/* no wakeup seen: the switch-in ends it */
		k->in_at = ns;
	}
}

void
ti_guest_task_wake(struct ti_trace *t, int pid, int64_t ns)
{
	struct ti_guest *g = G(t);
	struct gtask *k = task_get(g, pid, NULL, 0);

	g->wakeups++;
	if (k->grp >= 0)
		block_end(t, g, k, ns);
}

void
ti_guest_contention(struct ti_trace *t, int tid, int cpu, uint64_t addr, int begin,
    const char *flags, int64_t ns)
{
	struct ti_guest *g = G(t);
	struct gtask *k = task_get(g, tid, NULL, 0);

	/* include/trace/events/lock.h: begin(lock, flags) ... end(lock, ret) on
	 * the same thread; the wait is their distance. */
	if (begin) {
		k->pend_addr = addr;
		k->pend_at = ns;
		if (flags != NULL) {
			char name[32];
			struct ti_glock *l;

			snprintf(name, sizeof name, "0x%llx", (unsigned long long)addr);
			l = lock_get(g, name, addr);
			l->from_tp = 1;
			if (l->flags[0] == '\0')
				snprintf(l->flags, sizeof l->flags, "%s", flags);
		}
		return;
	}
	if (k->pend_at >= 0 && k->pend_addr == addr) {
		char name[32];
		struct ti_glock *l;

		snprintf(name, sizeof name, "0x%llx", (unsigned long long)addr);
		l = lock_get(g, name, addr);
		l->from_tp = 1;
		l->tp_contentions++;
		ti_q_add(t, &l->wait, (double)(ns - k->pend_at));
	} else {
		g->unmatched_end++;
	}
	k->pend_at = -1;
}

void
ti_guest_finish(struct ti_trace *t)
{
	struct ti_guest *g = t->guest;
	size_t i;

	if (g == NULL)
		return;
	for (i = 0; i < g->ncpus; i++) {
		struct gcpu *c = &g->cpus[i];

		if (c->since >= 0 && t->t_last > c->since) {
			c->seen_ns += (double)(t->t_last - c->since);
			if (c->idle)
				c->idle_ns += (double)(t->t_last - c->since);
			c->since = t->t_last;
		}
	}
	for (i = 0; i < g->captasks; i++) {
		struct gtask *k = &g->tasks[i];

		if (k->pid < 0 || k->grp < 0)
			continue;
		if (k->in_at >= 0 && t->t_last > k->in_at) {
			g->groups[k->grp].run_ns += (double)(t->t_last - k->in_at);
			k->in_at = t->t_last;
		}
		if (k->out_at >= 0 && t->t_last > k->out_at) {
			g->groups[k->grp].block_ns += (double)(t->t_last - k->out_at);
			k->out_at = t->t_last;
		}
	}
}

/* ---- look-ups ----------------------------------------------------------------- */

size_t ti_guest_nlocks(const struct ti_trace *t) { return t->guest ? t->guest->nlocks : 0; }
const struct ti_glock *ti_guest_lock(const struct ti_trace *t, size_t i)
{ return t->guest->locks[i]; }
size_t ti_guest_ngroups(const struct ti_trace *t) { return t->guest ? t->guest->ngroups : 0; }
const struct ti_ggroup *ti_guest_group(const struct ti_trace *t, size_t i)
{ return &t->guest->groups[i]; }
uint64_t ti_guest_switches(const struct ti_trace *t) { return t->guest ? t->guest->switches : 0; }
uint64_t ti_guest_wakeups(const struct ti_trace *t) { return t->guest ? t->guest->wakeups : 0; }
uint64_t ti_guest_unmatched(const struct ti_trace *t)
{ return t->guest ? t->guest->unmatched_end : 0; }

void
ti_guest_cpu_stat(const struct ti_trace *t, int cpu, struct ti_gcpu_stat *s)
{
	memset(s, 0, sizeof *s);
	if (t->guest == NULL || cpu < 0 || (size_t)cpu >= t->guest->ncpus)
		return;
	s->switches = t->guest->cpus[cpu].switches;
	s->idle_ns = t->guest->cpus[cpu].idle_ns;
	s->seen_ns = t->guest->cpus[cpu].seen_ns;
}
int ti_guest_has_sched(const struct ti_trace *t) { return ti_guest_switches(t) > 0; }
int ti_guest_has_locks(const struct ti_trace *t) { return ti_guest_nlocks(t) > 0; }

const struct ti_glock *
ti_guest_find_lock(const struct ti_trace *t, const char *name)
{
	size_t i;

	for (i = 0; i < ti_guest_nlocks(t); i++)
		if (strcmp(t->guest->locks[i]->name, name) == 0)
			return t->guest->locks[i];
	return NULL;
}

int
ti_guest_ncpus(const struct ti_trace *t)
{
	size_t i;
	int n = 0;

	for (i = 0; t->guest != NULL && i < t->guest->ncpus; i++)
		if (t->guest->cpus[i].seen_ns > 0 || t->guest->cpus[i].since >= 0)
			n = (int)i + 1;
	return n;
}

double
ti_guest_idle_share(const struct ti_trace *t)
{
	double idle = 0, seen = 0;
	size_t i;

	for (i = 0; t->guest != NULL && i < t->guest->ncpus; i++) {
		idle += t->guest->cpus[i].idle_ns;
		seen += t->guest->cpus[i].seen_ns;
	}
	return seen > 0 ? idle / seen : NAN;
}

static double
span_s(const struct ti_trace *t)
{
	return t->t_last > t->t_first ? (double)(t->t_last - t->t_first) / 1e9 : 0;
}

int
ti_guest_opts(const struct ti_trace *t, struct ti_wl_opts *o, struct vs_err *err)
{
	if (!(o->seconds > 0))
		o->seconds = span_s(t);
	if (o->cpus <= 0)
		o->cpus = ti_guest_ncpus(t);
	if (o->max_locks <= 0)
		o->max_locks = 4;
	if (!(o->burst_ns > 0))
		o->burst_ns = 10e6;
	if (ti_guest_has_locks(t) && !(o->seconds > 0))
		return vs_errf(err, t->path, 1, 1, "lock_stat has no clock: give the seconds "
		    "it covers (--seconds S; echo 0 > /proc/lock_stat; sleep S; cat /proc/lock_stat)");
	if (o->cpus <= 0)
		return vs_errf(err, t->path, 1, 1, "the guest's CPU count is not in the trace "
		    "(no sched_switch): give --vcpus N");
	return 0;
}

/* Busy CPU-seconds: (1 - idle share) x CPUs x seconds; all of it without sched data. */
static double
busy_s(const struct ti_trace *t, const struct ti_wl_opts *o)
{
	double idle = ti_guest_idle_share(t);

	return (isnan(idle) ? 1 : 1 - idle) * o->cpus * o->seconds;
}

void
ti_guest_lockfit(const struct ti_trace *t, const struct ti_glock *l,
    const struct ti_wl_opts *o, struct ti_lockfit *f)
{
	double acq = (double)l->row.acquisitions, con = (double)l->row.contentions;

	memset(f, 0, sizeof *f);
	f->hold.kind = f->wait.kind = TI_FIT_CONST;
	if (l->from_stat) {
		f->acq_per_cpu_s = acq / (o->seconds * o->cpus);
		f->hold_mean_ns = acq > 0 ? l->row.hold_total / acq : 0;
		f->wait_mean_ns = con > 0 ? l->row.wait_total / con : 0;
		f->contended_share = acq > 0 ? con / acq : 0;
		f->hold_share = l->row.hold_total / 1e9 / (o->seconds * o->cpus);
		/* Only the mean is known: the exponential of that mean. */
		f->hold.kind = f->hold_mean_ns > 0 ? FIT_EXPONENTIAL : TI_FIT_CONST;
		f->hold.mean = f->hold_mean_ns;
		f->hold_src = "lock_stat holdtime-total / acquisitions (fit: mean)";
		f->wait.kind = f->wait_mean_ns > 0 ? FIT_EXPONENTIAL : TI_FIT_CONST;
		f->wait.mean = f->wait_mean_ns;
		f->wait_src = "lock_stat waittime-total / contentions (fit: mean)";
	}
	if (l->from_tp && l->wait.n > 0) {
		ti_q_fit(&l->wait, &f->wait);
		f->wait_mean_ns = l->wait.sum / (double)l->wait.n;
		f->wait_src = "contention_begin -> contention_end samples (MLE fit, fit.c)";
	}
}

/* ---- report ------------------------------------------------------------------ */

void
ti_guest_yaml(const struct ti_trace *t, FILE *o, const struct ti_wl_opts *opts)
{
	struct ti_wl_opts op = *opts;
	char a[32];
	size_t i;

	if (t->guest == NULL)
		return;
	if (op.seconds <= 0)
		op.seconds = span_s(t);
	if (op.cpus <= 0)
		op.cpus = ti_guest_ncpus(t);
	fprintf(o, "guest:\n  cpus: %d\n  seconds: %.6g\n", op.cpus, op.seconds);
	if (ti_guest_has_sched(t)) {
		fprintf(o, "  idle_share: %.4f            # pid 0 on a CPU / time observed\n",
		    ti_guest_idle_share(t));
		fprintf(o, "  switches: %llu\n  wakeups: %llu\n",
		    (unsigned long long)t->guest->switches, (unsigned long long)t->guest->wakeups);
	}
	if (t->guest->ngroups > 0 && ti_guest_has_sched(t)) {
		fprintf(o, "  tasks:                       # by comm, trailing digits dropped\n");
		for (i = 0; i < t->guest->ngroups; i++) {
			const struct ti_ggroup *gr = &t->guest->groups[i];

			if (gr->run.n == 0 && gr->run_ns == 0)
				continue;
			fprintf(o, "    %s:\n      threads: %llu\n      population: %.4g\n"
			    "      cpu_share: %.4f\n", gr->name, (unsigned long long)gr->threads,
			    op.seconds > 0 ? (gr->run_ns + gr->block_ns) / 1e9 / op.seconds : 0,
			    op.seconds > 0 && op.cpus > 0 ? gr->run_ns / 1e9 / op.seconds / op.cpus : 0);
			ti_put_qdist(o, "      ", "run", &gr->run);
			ti_put_qdist(o, "      ", "block", &gr->block);
		}
	}
	if (t->guest->nlocks > 0) {
		fprintf(o, "  locks:\n");
		for (i = 0; i < t->guest->nlocks; i++) {
			const struct ti_glock *l = t->guest->locks[i];
			struct ti_lockfit f;

			fprintf(o, "    \"%s\":\n", l->name);
			if (l->from_stat) {
				struct ti_wl_opts o1 = op;

				if (!(o1.seconds > 0))
					o1.seconds = 1;
				if (o1.cpus <= 0)
					o1.cpus = 1;
				ti_guest_lockfit(t, l, &o1, &f);
				fprintf(o, "      acquisitions: %llu\n      contentions: %llu\n"
				    "      contended_share: %.6g\n",
				    (unsigned long long)l->row.acquisitions,
				    (unsigned long long)l->row.contentions, f.contended_share);
				if (op.seconds > 0 && op.cpus > 0)
					fprintf(o, "      acq_per_cpu_s: %.6g\n      hold_share: %.6g"
					    "           # of CPU time\n", f.acq_per_cpu_s, f.hold_share);
				else
					fprintf(o, "      # acq_per_cpu_s, hold_share: give --seconds "
					    "and the guest's CPUs (trace scenario --vcpus)\n");
				fprintf(o, "      hold: ");
				ti_put_dist(o, &f.hold);
				fprintf(o, "\n      hold_range: [%s, ", ti_fmt_ns(l->row.hold_min, a, sizeof a));
				fprintf(o, "%s]\n", ti_fmt_ns(l->row.hold_max, a, sizeof a));
				if (l->row.contentions > 0) {
					fprintf(o, "      wait: ");
					ti_put_dist(o, &f.wait);
					fputc('\n', o);
				}
			}
			if (l->from_tp) {
				fprintf(o, "      tp_contentions: %llu\n",
				    (unsigned long long)l->tp_contentions);
				if (l->flags[0])
					fprintf(o, "      flags: \"%s\"\n", l->flags);
				if (op.seconds > 0 && op.cpus > 0)
					fprintf(o, "      contentions_per_cpu_s: %.6g\n",
					    (double)l->tp_contentions / op.seconds / op.cpus);
				ti_put_qdist(o, "      ", "wait_tp", &l->wait);
			}
		}
	}
}

/* ---- workload ------------------------------------------------------------------ */

/* A YAML-safe lock name: letters, digits, '_'. */
static void
lock_ident(const char *name, char *out, size_t n)
{
	size_t i, j = 0;

	for (i = 0; name[i] != '\0' && j + 1 < n; i++) {
		unsigned char ch = (unsigned char)name[i];

		if (isalnum(ch))
			out[j++] = (char)ch;
		else if (j > 0 && out[j - 1] != '_')
			out[j++] = '_';
	}
	while (j > 0 && out[j - 1] == '_')
		j--;
	out[j] = '\0';
	if (j == 0 || isdigit((unsigned char)out[0]))
		snprintf(out, n, "l_%s", name[0] ? name : "lock");
}

struct kept {
	const struct ti_glock *l;
	struct ti_lockfit f;
	char id[48];
};

static int
cmp_share(const void *a, const void *b)
{
	const struct kept *x = a, *y = b;

	if (x->f.hold_share != y->f.hold_share)
		return x->f.hold_share < y->f.hold_share ? 1 : -1;
	return strcmp(x->l->name, y->l->name);
}

/*
 * A task group's run burst (returns its mean) and the comment naming its
 * source: the fit of its runs that began and ended inside the trace; for a
 * group seen to block whose runs all began before the trace, its run time per
 * block (one value); for one that never blocked, a CPU hog computing in
 * burst_ns steps (their length changes nothing: the loop goes on).
 */
static double
group_run(const struct ti_ggroup *gr, const struct ti_wl_opts *op, struct ti_qfit *rf,
    char *why, size_t n)
{
	char a[32];

	if (ti_q_fit(&gr->run, rf)) {
		snprintf(why, n, "run until blocked: sched_switch, %llu runs (fit.c)",
		    (unsigned long long)gr->run.n);
		return gr->run.sum / (double)gr->run.n;
	}
	memset(rf, 0, sizeof *rf);
	rf->kind = TI_FIT_CONST;
	if (gr->blocks > 0) {
		rf->mean = gr->run_ns / (double)gr->blocks;
		snprintf(why, n, "run time per block: sched_switch, %llu blocks, no whole run "
		    "in the trace", (unsigned long long)gr->blocks);
	} else {
		rf->mean = op->burst_ns;
		snprintf(why, n, "never blocked in the trace: a CPU hog, in steps of %s",
		    ti_fmt_ns(op->burst_ns, a, sizeof a));
	}
	return rf->mean;
}

/* Its blocked spell and the comment naming the source: the fit of its blocked
 * times; for a group that blocked and was not woken before the trace ended,
 * the time it was seen blocked per block (a lower bound).  0: it never blocked. */
static int
group_block(const struct ti_ggroup *gr, struct ti_qfit *bf, char *why, size_t n)
{
	if (ti_q_fit(&gr->block, bf)) {
		snprintf(why, n, "blocked until woken: sched_switch/sched_wakeup, %llu samples "
		    "(fit.c)", (unsigned long long)gr->block.n);
		return 1;
	}
	if (gr->blocks == 0 || gr->block_ns <= 0)
		return 0;
	memset(bf, 0, sizeof *bf);
	bf->kind = TI_FIT_CONST;
	bf->mean = gr->block_ns / (double)gr->blocks;
	snprintf(why, n, "blocked and not woken before the trace ended: at least this");
	return 1;
}

int
ti_guest_workload(const struct ti_trace *t, FILE *o, const struct ti_wl_opts *opts, int ind,
    struct vs_err *err)
{
	struct ti_wl_opts op = *opts;
	struct kept *k = NULL;
	size_t nk = 0, i, j, ngr = 0;
	const struct ti_guest *g = t->guest;
	double busy, rate_sum = 0;
	char a[32], pad[32];
	int has_sched = ti_guest_has_sched(t);

	if (ti_guest_opts(t, &op, err))
		return -1;
	if (g == NULL || (!has_sched && g->nlocks == 0))
		return vs_errf(err, t->path, 1, 1, "no guest data: neither sched_switch nor "
		    "lock statistics (lock_stat, lock:contention_begin/end) in the trace");
	snprintf(pad, sizeof pad, "%*s", ind, "");
	busy = busy_s(t, &op);
	/* Lock classes with acquisitions (lock_stat), largest share of time held first. */
	for (i = 0; i < g->nlocks; i++) {
		if (!g->locks[i]->from_stat || g->locks[i]->row.acquisitions == 0)
			continue;
		k = xrealloc(k, (nk + 1) * sizeof *k);
		k[nk].l = g->locks[i];
		ti_guest_lockfit(t, g->locks[i], &op, &k[nk].f);
		lock_ident(g->locks[i]->name, k[nk].id, sizeof k[nk].id);
		nk++;
	}
	if (nk > 1)	/* k is NULL when no class had acquisitions */
		qsort(k, nk, sizeof *k, cmp_share);
	if (nk > (size_t)op.max_locks) {
		fprintf(o, "%s# %zu lock classes more, holding %s of CPU time together, left out\n",
		    pad, nk - (size_t)op.max_locks, "less than the ones kept");
		nk = (size_t)op.max_locks;
	}
	for (i = 0; i < nk; i++)
		rate_sum += (double)k[i].l->row.acquisitions / busy;	/* per busy CPU-second */
	fprintf(o, "%s# Built by vlocksim trace scenario from %s (sources on each line).\n",
	    pad, t->path);
	fprintf(o, "%s# %d guest CPUs, %.6g s; busy CPU-seconds %.6g (%s)\n", pad, op.cpus,
	    op.seconds, busy, has_sched ? "1 - idle share from sched_switch" :
	    "no sched_switch: all CPUs busy");
	if (nk > 0) {
		fprintf(o, "%slocks:\n", pad);
		for (i = 0; i < nk; i++)
			fprintf(o, "%s  %s: {cs_lines: 0}   # lock_stat class \"%s\"; cs_lines 0: "
			    "the hold lock_stat measured already includes its data's cache "
			    "misses\n", pad, k[i].id, k[i].l->name);
	}
	fprintf(o, "%sprograms:\n", pad);
	/* One program per task group: its run bursts (with the lock sections at
	 * the busy-time rate inside them), then its blocked time. */
	for (j = 0; j < (has_sched ? g->ngroups : 1); j++) {
		const struct ti_ggroup *gr = has_sched ? &g->groups[j] : NULL;
		struct ti_qfit rf, bf;
		double run_mean = op.burst_ns;
		char why[160];

		if (gr != NULL) {
			if (gr->run_ns <= 0)
				continue;
			run_mean = group_run(gr, &op, &rf, why, sizeof why);
		}
		fprintf(o, "%s  %s:\n", pad, gr ? gr->name : "worker");
		fprintf(o, "%s    - loop: forever\n%s      do:\n", pad, pad);
		if (nk == 0 && gr != NULL) {
			fprintf(o, "%s        - compute: ", pad);
			ti_put_dist(o, &rf);
			fprintf(o, "   # %s\n", why);
		}
		for (i = 0; i < nk; i++) {
			double per = (double)k[i].l->row.acquisitions / busy * run_mean / 1e9;
			long long cnt = llround(per);
			double gap;

			if (cnt < 1) {
				fprintf(o, "%s        # %s: %.3g per run burst, left out\n", pad,
				    k[i].id, per);
				continue;
			}
			/* The run burst splits between the classes by their rates. */
			/* Busy time per section = gap + wait (spinning is busy) + hold. */
			gap = run_mean * ((double)k[i].l->row.acquisitions / busy / rate_sum) /
			    (double)cnt - k[i].f.hold_mean_ns -
			    k[i].l->row.wait_total / (double)k[i].l->row.acquisitions;
			if (gap < 1)
				gap = 1;
			fprintf(o, "%s        - loop: %lld      # %s acquisitions per run burst: "
			    "lock_stat acquisitions / busy CPU-s x run mean\n", pad, cnt, k[i].id);
			fprintf(o, "%s          do:\n", pad);
			fprintf(o, "%s            - compute: {dist: exponential, mean: %s}   "
			    "# between sections: burst share / count - hold - wait\n", pad,
			    ti_fmt_ns(gap, a, sizeof a));
			fprintf(o, "%s            - acquire: %s\n", pad, k[i].id);
			fprintf(o, "%s            - compute: ", pad);
			ti_put_dist(o, &k[i].f.hold);
			fprintf(o, "   # hold: %s\n", k[i].f.hold_src);
			fprintf(o, "%s            - release: %s\n", pad, k[i].id);
		}
		if (gr != NULL && group_block(gr, &bf, why, sizeof why)) {
			fprintf(o, "%s        - block: ", pad);
			ti_put_dist(o, &bf);
			fprintf(o, "   # %s\n", why);
		}
		ngr++;
	}
	if (ngr == 0)
		return vs_errf(err, t->path, 1, 1, "no task ran and blocked in the trace "
		    "(sched_switch of the guest needed, or lock_stat alone)");
	fprintf(o, "%stasks:\n", pad);
	for (j = 0; j < (has_sched ? g->ngroups : 1); j++) {
		const struct ti_ggroup *gr = has_sched ? &g->groups[j] : NULL;
		long long cnt;

		if (gr != NULL && gr->run_ns <= 0)
			continue;
		/* Little's law: mean population = (run + blocked time) / span. */
		cnt = gr ? llround((gr->run_ns + gr->block_ns) / 1e9 / op.seconds) : op.cpus;
		if (cnt < 1)
			cnt = 1;
		fprintf(o, "%s  - {program: %s, count: %lld}   # %s\n", pad, gr ? gr->name : "worker",
		    cnt, gr ? "mean population: (run + blocked time) / span" :
		    "one per CPU: lock_stat alone has no scheduling");
	}
	free(k);
	return 0;
}
