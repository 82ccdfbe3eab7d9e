/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * trace_out.c - Chrome trace-event JSON from the model's probe events.
 *
 * Follows the Trace Event Format (Google, "Trace Event Format" document:
 * phases X, i, s/f, C, M; "ts"/"dur" in microseconds).  Slices are written
 * when they end, so only the open slice of each lane is kept; the text grows
 * with the events inside the window, nothing else does.
 */
#include "trace_out.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

#include "guest/guest.h"
#include "guest/lock.h"
#include "hv/hv.h"
#include "scenario.h"
#include "units.h"

enum { LS_WAIT, LS_HOLD };

struct tlock {			/* a lock, in order of first sighting */
	const void *ptr;
	char *name;
	int pid, waiters;
};

struct tls {			/* a lock state of one vCPU: waiting or holding */
	int lock, kind;
	sim_time_t since;
};

struct tvcpu {
	char *name;
	int pid, tid;		/* runstate lane tid; lock lane is tid + 1 */
	int rs;			/* -1 before the first runstate */
	sim_time_t rs_since;
	int run_pcpu;		/* pCPU while running, else -1 */
	int spin_lock;		/* -1: not spinning */
	sim_time_t spin_since;
	int halted;
	sim_time_t halt_since;
	sim_time_t ipi_wait_since;	/* waiting for its IPI targets; -1 not */
	int ipi_targets;
	uint64_t *ipi_flow;	/* per sender vCPU: the flow of an IPI not yet taken, 0 none */
	struct tls *ls;
	size_t nls, capls;
};

struct trace_out {
	struct probe probe;
	sim_time_t from, to;
	int started, ended;
	struct tvcpu *v;
	int nv;
	struct tlock *locks;
	size_t nlocks, caplocks;
	uint64_t next_flow;
	char *buf;
	size_t len, cap;
	int nev;		/* events written (for the separators) */
	size_t limit;		/* bytes; 0: none */
	sim_time_t cut;		/* the window's end when the limit cut it; -1 */
};

static void tr_probe(void *ctx, const struct probe_ev *e);

static void
put(struct trace_out *t, const char *fmt, ...)
{
	va_list ap;
	int n;

	for (;;) {
		va_start(ap, fmt);
		n = vsnprintf(t->buf + t->len, t->cap - t->len, fmt, ap);
		va_end(ap);
		VS_ASSERT(n >= 0);
		if ((size_t)n < t->cap - t->len)
			break;
		t->cap = t->cap * 2 + (size_t)n + 1;
		t->buf = xrealloc(t->buf, t->cap);
	}
	t->len += (size_t)n;
}

/* A JSON string body (without quotes), malloc'd. */
static char *
json_esc(const char *s)
{
	size_t n = strlen(s), i, o = 0;
	char *r = xmalloc(6 * n + 1);

	for (i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];

		if (c == '"' || c == '\\') {
			r[o++] = '\\';
			r[o++] = (char)c;
		} else if (c < 0x20) {
			o += (size_t)snprintf(r + o, 7, "\\u%04x", c);
		} else {
			r[o++] = (char)c;
		}
	}
	r[o] = '\0';
	return r;
}

/* Start an event line: separator, then the common fields. */
static void
ev_begin(struct trace_out *t, const char *ph, int pid, int tid, sim_time_t ts)
{
	put(t, "%s{\"ph\":\"%s\",\"pid\":%d,\"tid\":%d,\"ts\":%lld.%03lld", t->nev++ ? ",\n" : "",
	    ph, pid, tid, (long long)(ts / 1000), (long long)(ts % 1000));
}

struct trace_out *
trace_out_new(const struct scenario *sc, sim_time_t from, sim_time_t to)
{
	struct trace_out *t = xcalloc(1, sizeof *t);
	int i, j, k, n = 0, vmi = 0;

	t->probe.fn = tr_probe;
	t->probe.ctx = t;
	t->from = from;
	t->to = to;
	t->cut = -1;
	t->cap = 1 << 16;
	t->buf = xmalloc(t->cap);
	for (i = 0; i < sc->nvms; i++)
		n += sc->vms[i].count * sc->vms[i].vcpus;
	t->v = xcalloc((size_t)n, sizeof *t->v);
	put(t, "{\"displayTimeUnit\":\"ns\",\"traceEvents\":[\n");
	ev_begin(t, "M", 1, 0, 0);
	put(t, ",\"name\":\"process_name\",\"args\":{\"name\":\"pCPUs\"}}");
	ev_begin(t, "M", 1, 0, 0);
	put(t, ",\"name\":\"process_sort_index\",\"args\":{\"sort_index\":0}}");
	for (i = 0; i < sc->machine.npcpus; i++) {
		ev_begin(t, "M", 1, i + 1, 0);
		put(t, ",\"name\":\"thread_name\",\"args\":{\"name\":\"pCPU %d\"}}", i);
		ev_begin(t, "M", 1, i + 1, 0);
		put(t, ",\"name\":\"thread_sort_index\",\"args\":{\"sort_index\":%d}}", i);
	}
	/* VMs and vCPUs in the order run_once creates them (global vCPU ids). */
	for (i = 0; i < sc->nvms; i++) {
		const struct vmdef *d = &sc->vms[i];

		for (j = 0; j < d->count; j++, vmi++) {
			char *nm = d->count > 1 ? xasprintf("%s%d", d->name, j) : xstrdup(d->name);
			char *en = json_esc(nm);

			ev_begin(t, "M", 2 + vmi, 0, 0);
			put(t, ",\"name\":\"process_name\",\"args\":{\"name\":\"VM %s\"}}", en);
			ev_begin(t, "M", 2 + vmi, 0, 0);
			put(t, ",\"name\":\"process_sort_index\",\"args\":{\"sort_index\":%d}}",
			    1 + vmi);
			for (k = 0; k < d->vcpus; k++) {
				struct tvcpu *v = &t->v[t->nv++];

				v->name = xasprintf("%sv%d", en, k);
				v->pid = 2 + vmi;
				v->tid = 2 * k + 1;
				v->rs = -1;
				v->run_pcpu = -1;
				v->spin_lock = -1;
				v->ipi_wait_since = -1;
				ev_begin(t, "M", v->pid, v->tid, 0);
				put(t, ",\"name\":\"thread_name\",\"args\":{\"name\":\"%s runstate\"}}",
				    v->name);
				ev_begin(t, "M", v->pid, v->tid, 0);
				put(t, ",\"name\":\"thread_sort_index\",\"args\":{\"sort_index\":%d}}",
				    v->tid);
				ev_begin(t, "M", v->pid, v->tid + 1, 0);
				put(t, ",\"name\":\"thread_name\",\"args\":{\"name\":\"%s lock\"}}",
				    v->name);
				ev_begin(t, "M", v->pid, v->tid + 1, 0);
				put(t, ",\"name\":\"thread_sort_index\",\"args\":{\"sort_index\":%d}}",
				    v->tid + 1);
			}
			free(en);
			free(nm);
		}
	}
	for (i = 0; i < t->nv; i++)
		t->v[i].ipi_flow = xcalloc((size_t)t->nv, sizeof *t->v[i].ipi_flow);
	return t;
}

void
trace_out_free(struct trace_out *t)
{
	size_t i;
	int j;

	if (t == NULL)
		return;
	for (j = 0; j < t->nv; j++) {
		free(t->v[j].name);
		free(t->v[j].ls);
		free(t->v[j].ipi_flow);
	}
	for (i = 0; i < t->nlocks; i++)
		free(t->locks[i].name);
	free(t->locks);
	free(t->v);
	free(t->buf);
	free(t);
}

const struct probe *
trace_out_probe(struct trace_out *t)
{
	return &t->probe;
}

static int
in_window(const struct trace_out *t, sim_time_t ts)
{
	return ts >= t->from && ts <= t->to;
}

/* A slice [start, end] clipped to the window; a zero-length one is kept if inside. */
static void
slice(struct trace_out *t, int pid, int tid, sim_time_t start, sim_time_t end,
    const char *cat, const char *fmt_name, const char *arg)
{
	sim_time_t s = start > t->from ? start : t->from, e = end < t->to ? end : t->to;

	if (e < s || (e == s && start != end))
		return;
	ev_begin(t, "X", pid, tid, s);
	put(t, ",\"dur\":%lld.%03lld,\"cat\":\"%s\",\"name\":\"", (long long)((e - s) / 1000),
	    (long long)((e - s) % 1000), cat);
	put(t, fmt_name, arg);
	put(t, "\"}");
}

static void
instant(struct trace_out *t, const struct tvcpu *v, sim_time_t ts, const char *name,
    const char *kind)
{
	if (!in_window(t, ts))
		return;
	ev_begin(t, "i", v->pid, v->tid, ts);
	put(t, ",\"s\":\"t\",\"cat\":\"exit\",\"name\":\"%s\"", name);
	if (kind != NULL)
		put(t, ",\"args\":{\"kind\":\"%s\"}", kind);
	put(t, "}");
}

static void
flow(struct trace_out *t, const struct tvcpu *from, const struct tvcpu *to, sim_time_t ts,
    const char *name)
{
	uint64_t id;

	if (!in_window(t, ts))
		return;
	id = ++t->next_flow;
	ev_begin(t, "s", from->pid, from->tid, ts);
	put(t, ",\"id\":%llu,\"cat\":\"flow\",\"name\":\"%s\"}", (unsigned long long)id, name);
	ev_begin(t, "f", to->pid, to->tid, ts);
	put(t, ",\"bp\":\"e\",\"id\":%llu,\"cat\":\"flow\",\"name\":\"%s\"}",
	    (unsigned long long)id, name);
}

static void
counter(struct trace_out *t, const struct tlock *l, sim_time_t ts)
{
	ev_begin(t, "C", l->pid, 0, ts);
	put(t, ",\"name\":\"waiters %s\",\"args\":{\"waiters\":%d}}", l->name, l->waiters);
}

static int
lock_index(struct trace_out *t, const void *ptr)
{
	const struct glock *g = ptr;
	size_t i;
	char *nm;

	for (i = 0; i < t->nlocks; i++)
		if (t->locks[i].ptr == ptr)
			return (int)i;
	vs_grow((void **)&t->locks, &t->caplocks, t->nlocks + 1, sizeof *t->locks);
	nm = json_esc(g->name);
	t->locks[t->nlocks].ptr = ptr;
	t->locks[t->nlocks].name = nm;
	t->locks[t->nlocks].pid = 2 + g->vm->id;
	t->locks[t->nlocks].waiters = 0;
	return (int)t->nlocks++;
}

static void
waiters(struct trace_out *t, int li, int delta, sim_time_t ts)
{
	t->locks[li].waiters += delta;
	if (t->started && ts <= t->to)
		counter(t, &t->locks[li], ts);
}

static void
close_spin(struct trace_out *t, struct tvcpu *v, sim_time_t ts)
{
	if (v->spin_lock < 0)
		return;
	slice(t, v->pid, v->tid + 1, v->spin_since, ts, "lock", "spin %s",
	    t->locks[v->spin_lock].name);
	v->spin_lock = -1;
}

static void
close_halt(struct trace_out *t, struct tvcpu *v, sim_time_t ts)
{
	if (!v->halted)
		return;
	slice(t, v->pid, v->tid + 1, v->halt_since, ts, "lock", "%s", "halted");
	v->halted = 0;
}

static void
close_ipi_wait(struct trace_out *t, struct tvcpu *v, sim_time_t ts)
{
	char n[32];

	if (v->ipi_wait_since < 0)
		return;
	snprintf(n, sizeof n, "%d", v->ipi_targets);
	slice(t, v->pid, v->tid + 1, v->ipi_wait_since, ts, "ipi", "IPI wait (%s targets)", n);
	v->ipi_wait_since = -1;
}

static void
close_ls(struct trace_out *t, struct tvcpu *v, size_t i, sim_time_t ts)
{
	const struct tls *s = &v->ls[i];

	slice(t, v->pid, v->tid + 1, s->since, ts, "lock",
	    s->kind == LS_WAIT ? "wait %s" : "hold %s", t->locks[s->lock].name);
	memmove(&v->ls[i], &v->ls[i + 1], (v->nls - i - 1) * sizeof *v->ls);
	v->nls--;
}

static void
push_ls(struct tvcpu *v, int li, int kind, sim_time_t ts)
{
	vs_grow((void **)&v->ls, &v->capls, v->nls + 1, sizeof *v->ls);
	v->ls[v->nls].lock = li;
	v->ls[v->nls].kind = kind;
	v->ls[v->nls].since = ts;
	v->nls++;
}

static int
find_ls(const struct tvcpu *v, int li, int kind)
{
	size_t i;

	for (i = v->nls; i-- > 0;)
		if (v->ls[i].lock == li && v->ls[i].kind == kind)
			return (int)i;
	return -1;
}

static void
runstate(struct trace_out *t, struct tvcpu *v, int rs, int pcpu, sim_time_t ts)
{
	if (v->rs >= 0)
		slice(t, v->pid, v->tid, v->rs_since, ts, "runstate", "%s",
		    runstate_name((enum runstate)v->rs));
	if (v->run_pcpu >= 0)
		slice(t, 1, v->run_pcpu + 1, v->rs_since, ts, "vcpu", "%s", v->name);
	v->rs = rs;
	v->rs_since = ts;
	v->run_pcpu = rs == RS_RUNNING ? pcpu : -1;
}

static void
finish(struct trace_out *t, sim_time_t ts)
{
	int i;

	for (i = 0; i < t->nv; i++) {
		struct tvcpu *v = &t->v[i];

		runstate(t, v, -1, -1, ts);
		close_spin(t, v, ts);
		close_halt(t, v, ts);
		close_ipi_wait(t, v, ts);
		while (v->nls > 0)
			close_ls(t, v, v->nls - 1, ts);
	}
	t->ended = 1;
}

static void
tr_probe(void *ctx, const struct probe_ev *e)
{
	static const char *const io_kind[] = { "pio-kernel", "pio-user", "mmio-kernel",
	    "mmio-user", "hypercall", "mmio-ioeventfd" };
	struct trace_out *t = ctx;
	struct tvcpu *v;
	size_t li;
	int i;

	/* sleeping locks are the tasks' (their vCPU may be none): not drawn */
	if (e->kind == PR_SLOCK_WAIT || e->kind == PR_SLOCK_TAKEN || e->kind == PR_SLOCK_RELEASE)
		return;
	VS_ASSERT(!t->ended && e->vcpu >= 0 && (e->vcpu < t->nv || e->kind == PR_END));
	/* Past the size limit: the window ends here; the slices still open close
	 * at it (one per lane), so the file stays within a few KB of the limit. */
	if (t->limit > 0 && t->cut < 0 && t->len >= t->limit && e->t < t->to) {
		t->cut = e->t > t->from ? e->t : t->from;
		t->to = t->cut;
	}
	/* Entering the window: the counters' values at its start. */
	if (!t->started && e->t >= t->from) {
		t->started = 1;
		for (li = 0; li < t->nlocks; li++)
			if (t->locks[li].waiters != 0 && t->from <= t->to)
				counter(t, &t->locks[li], t->from);
	}
	v = e->kind == PR_END ? NULL : &t->v[e->vcpu];
	switch (e->kind) {
	case PR_RUNSTATE:
		runstate(t, v, e->aux, e->pcpu, e->t);
		break;
	case PR_LOCK_WAIT:
		i = lock_index(t, e->lock);
		push_ls(v, i, LS_WAIT, e->t);
		waiters(t, i, 1, e->t);
		break;
	case PR_LOCK_TAKEN:
		i = lock_index(t, e->lock);
		close_spin(t, v, e->t);
		if (find_ls(v, i, LS_WAIT) >= 0) {
			close_ls(t, v, (size_t)find_ls(v, i, LS_WAIT), e->t);
			waiters(t, i, -1, e->t);
		}
		push_ls(v, i, LS_HOLD, e->t);
		break;
	case PR_LOCK_RELEASE:
		i = lock_index(t, e->lock);
		if (find_ls(v, i, LS_HOLD) >= 0)
			close_ls(t, v, (size_t)find_ls(v, i, LS_HOLD), e->t);
		break;
	case PR_SPIN_START:
		if (v->spin_lock < 0) {
			v->spin_lock = lock_index(t, e->lock);
			v->spin_since = e->t;
		}
		break;
	case PR_SPIN_END:
		close_spin(t, v, e->t);
		break;
	case PR_HALT:
		close_spin(t, v, e->t);
		if (!v->halted) {
			v->halted = 1;
			v->halt_since = e->t;
		}
		break;
	case PR_WAKE:
		close_halt(t, v, e->t);
		break;
	case PR_HLT_EXIT:
		instant(t, v, e->t, "HLT", NULL);
		break;
	case PR_PLE_EXIT:
		instant(t, v, e->t, "PLE", NULL);
		break;
	case PR_IO_EXIT:
		VS_ASSERT(e->aux >= 0 && e->aux < IO_NKINDS);
		instant(t, v, e->t, e->aux == IO_HYPERCALL ? "hypercall" : "IO", io_kind[e->aux]);
		break;
	case PR_KICK:
		/* KVM_HC_KICK_CPU: a hypercall exit of the kicker, then the wakeup */
		VS_ASSERT(e->aux >= 0 && e->aux < t->nv);
		instant(t, v, e->t, "hypercall", "kick");
		flow(t, v, &t->v[e->aux], e->t, "kick");
		break;
	case PR_YIELD_TO:
		VS_ASSERT(e->aux >= 0 && e->aux < t->nv);
		flow(t, v, &t->v[e->aux], e->t, "yield_to");
		break;
	case PR_IPI_SEND:
		/* a flow from the send to where the target takes it */
		VS_ASSERT(e->aux >= 0 && e->aux < t->nv);
		if (in_window(t, e->t) && t->v[e->aux].ipi_flow[e->vcpu] == 0) {
			uint64_t id = ++t->next_flow;

			ev_begin(t, "s", v->pid, v->tid + 1, e->t);
			put(t, ",\"id\":%llu,\"cat\":\"ipi\",\"name\":\"IPI\"}", (unsigned long long)id);
			t->v[e->aux].ipi_flow[e->vcpu] = id;
		}
		break;
	case PR_IPI_RECV:
		VS_ASSERT(e->aux >= 0 && e->aux < t->nv);
		if (v->ipi_flow[e->aux] != 0) {
			ev_begin(t, "f", v->pid, v->tid, e->t);
			put(t, ",\"bp\":\"e\",\"id\":%llu,\"cat\":\"ipi\",\"name\":\"IPI\"}",
			    (unsigned long long)v->ipi_flow[e->aux]);
			v->ipi_flow[e->aux] = 0;
		}
		instant(t, v, e->t, "IPI handler", NULL);
		break;
	case PR_IPI_WAIT_START:
		v->ipi_wait_since = e->t;
		v->ipi_targets = e->aux;
		break;
	case PR_IPI_WAIT_END:
		close_ipi_wait(t, v, e->t);
		break;
	case PR_TLB_PV_FLUSH:
		instant(t, v, e->t, "PV TLB flush", NULL);
		break;
	case PR_SLOCK_WAIT:
	case PR_SLOCK_TAKEN:
	case PR_SLOCK_RELEASE:
		break;
	case PR_END:
		finish(t, e->t);
		break;
	}
}

const char *
trace_out_text(struct trace_out *t, size_t *len)
{
	VS_ASSERT(t->ended);
	if (t->ended == 1) {
		put(t, "\n]}\n");
		t->ended = 2;
	}
	if (len != NULL)
		*len = t->len;
	return t->buf;
}

void
trace_out_set_limit(struct trace_out *t, size_t bytes)
{
	t->limit = bytes;
}

sim_time_t
trace_out_cut(const struct trace_out *t)
{
	return t->cut;
}

/* FILE.gz: gzip (zlib's gzwrite), written beside and put in place as
 * vs_write_file_atomic does (vs_replace_file). */
static int
write_gz(const char *path, const char *s, size_t len, struct vs_err *err)
{
	char *tmp = xasprintf("%s.tmp.%ld", path, (long)getpid());
	gzFile z = gzopen(tmp, "wb6");
	int ok = z != NULL;
	size_t off = 0;

	while (ok && off < len) {
		unsigned n = len - off > (1u << 30) ? 1u << 30 : (unsigned)(len - off);

		ok = gzwrite(z, s + off, n) == (int)n;
		off += n;
	}
	if (z != NULL && gzclose(z) != Z_OK)
		ok = 0;
	if (!ok) {
		vs_errf(err, NULL, 0, 0, "%s: cannot write: %s", path, strerror(errno));
		unlink(tmp);
	} else if (vs_replace_file(tmp, path, err)) {
		ok = 0;
	}
	free(tmp);
	return ok ? 0 : -1;
}

int
trace_out_write(struct trace_out *t, const char *path, struct vs_err *err)
{
	size_t len, n = strlen(path);
	const char *s = trace_out_text(t, &len);

	if (n > 3 && strcmp(path + n - 3, ".gz") == 0)
		return write_gz(path, s, len, err);
	return vs_write_file_atomic(path, s, len, err);
}

static int
parse_time(const char *s, size_t n, sim_time_t dflt, sim_time_t *out, const char *all,
    struct vs_err *err)
{
	char *txt;
	const char *why = NULL;
	double ns;

	if (n == 0) {
		*out = dflt;
		return 0;
	}
	txt = xstrndup(s, n);
	if (strcmp(txt, "0") == 0)
		ns = 0;
	else if (units_parse(txt, UNIT_TIME, 0, &ns, &why) != 0 || !(ns >= 0)) {
		vs_errf(err, NULL, 0, 0, "--trace-window %s: '%s': %s", all, txt,
		    why != NULL ? why : "a time must be >= 0");
		free(txt);
		return -1;
	}
	free(txt);
	*out = (sim_time_t)(ns + 0.5);
	return 0;
}

int
trace_out_window(const char *s, sim_time_t *from, sim_time_t *to, struct vs_err *err)
{
	const char *c = strchr(s, ':');

	if (c == NULL)
		return vs_errf(err, NULL, 0, 0, "--trace-window takes FROM:TO (e.g. 10ms:20ms), "
		    "got '%s'", s);
	if (parse_time(s, (size_t)(c - s), 0, from, s, err) ||
	    parse_time(c + 1, strlen(c + 1), SIM_NEVER, to, s, err))
		return -1;
	if (*to <= *from)
		return vs_errf(err, NULL, 0, 0, "--trace-window %s: TO must be after FROM", s);
	return 0;
}
