/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * trace_in.c - what every trace format shares: per-vCPU accumulation
 * (exits, runstates, halts, wakeups), format detection, the summary and the
 * YAML of fitted distributions.  The parsers are trace_ftrace.c and
 * trace_xen.c; they call the acc_* helpers below only through the hook table
 * acc_ops (trace_acc.h), and are picked by format from ti_readers[].
 */
#include "config.h"

#include "trace_in.h"
#include "trace_guest.h"
#include "trace_kprof.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "fit.h"
#include "rng.h"
#include "stats.h"

#define TI_RNG_SEED 0x7472616365ULL	/* "trace": reservoirs are reproducible */

static const char *const ti_state_names[TI_NSTATES] = {
	"running", "runnable", "blocked", "offline"
};

struct ti_trace *
ti_new(double cpu_hz)
{
	struct ti_trace *t = xcalloc(1, sizeof *t);

	t->cpu_hz_given = cpu_hz > 0;
	t->cpu_hz = cpu_hz > 0 ? cpu_hz : 2.4e9;	/* xenalyze's default */
	t->rng = rng_new(TI_RNG_SEED, 0);
	t->t_first = INT64_MAX;
	t->t_last = INT64_MIN;
	t->all.tid = t->all.dom = t->all.vcpu = -1;
	t->all.state = TI_UNKNOWN;
	t->all.ple_window = -1;
	return t;
}

static void
vcpu_free(struct ti_vcpu *v)
{
	size_t i;

	for (i = 0; i < v->nex; i++)
		ti_q_free(&v->ex[i].lat);
	free(v->ex);
	ti_q_free(&v->halt);
	ti_q_free(&v->blocked);
	ti_q_free(&v->wake_to_run);
	ti_q_free(&v->preempt_wait);
}

void
ti_free(struct ti_trace *t)
{
	size_t i;

	if (t == NULL)
		return;
	for (i = 0; i < t->nv; i++) {
		vcpu_free(t->v[i]);
		free(t->v[i]);
	}
	free(t->v);
	free(t->hash);
	vcpu_free(&t->all);
	for (i = 0; i < t->nreasons; i++)
		free(t->reasons[i].name);
	free(t->reasons);
	for (i = 0; i < t->nevents; i++)
		free(t->events[i].name);
	free(t->events);
	rng_free(t->rng);
	ti_guest_free(t->guest);
	ti_kprof_free(t->kprof);
	free(t);
}

/* ---- per-vCPU table ---------------------------------------------------- */

static size_t
hash_slot(uint64_t key, size_t nhash)
{
	return (size_t)(vs_mix64(key) & (nhash - 1));
}

static void
rehash(struct ti_trace *t)
{
	size_t i, j, n = t->nhash ? t->nhash * 2 : 64;

	free(t->hash);
	t->hash = xcalloc(n, sizeof *t->hash);
	t->nhash = n;
	for (i = 0; i < t->nv; i++) {
		for (j = hash_slot(t->v[i]->key, n); t->hash[j] != 0; j = (j + 1) & (n - 1))
			;
		t->hash[j] = i + 1;
	}
}

static struct ti_vcpu *
acc_vcpu_lookup(struct ti_trace *t, uint64_t key)
{
	size_t j;

	if (t->nhash == 0)
		return NULL;
	for (j = hash_slot(key, t->nhash); t->hash[j] != 0; j = (j + 1) & (t->nhash - 1))
		if (t->v[t->hash[j] - 1]->key == key)
			return t->v[t->hash[j] - 1];
	return NULL;
}

static struct ti_vcpu *
acc_vcpu_get(struct ti_trace *t, uint64_t key)
{
	struct ti_vcpu *v;
	size_t j;

	if (t->nhash == 0 || 2 * (t->nv + 1) > t->nhash)
		rehash(t);
	for (j = hash_slot(key, t->nhash); t->hash[j] != 0; j = (j + 1) & (t->nhash - 1))
		if (t->v[t->hash[j] - 1]->key == key)
			return t->v[t->hash[j] - 1];
	v = xcalloc(1, sizeof *v);
	v->key = key;
	v->tid = v->dom = v->vcpu = -1;
	v->state = TI_UNKNOWN;
	v->from = TI_UNKNOWN;
	v->wake_at = v->exit_at = -1;
	v->last_pcpu = -1;
	v->ple_window = -1;
	VS_GROW(t->v, t->capv, t->nv);
	t->v[t->nv++] = v;
	t->hash[j] = t->nv;
	return v;
}

static void
acc_time(struct ti_trace *t, int64_t ns)
{
	if (ns < t->t_first)
		t->t_first = ns;
	if (ns > t->t_last)
		t->t_last = ns;
}

static size_t
named_find(struct ti_named **arr, size_t *n, size_t *cap, const char *name)
{
	size_t i;

	for (i = 0; i < *n; i++)
		if (strcmp((*arr)[i].name, name) == 0)
			return i;
	VS_GROW(*arr, *cap, *n);
	(*arr)[*n].name = xstrdup(name);
	(*arr)[*n].count = 0;
	(*arr)[*n].kind = TI_RK_OTHER;
	return (*n)++;
}

static void
acc_count_events(struct ti_trace *t, const char *name, uint64_t n)
{
	size_t i = named_find(&t->events, &t->nevents, &t->capevents, name);

	t->events[i].count += n;
}

static int
acc_reason_id(struct ti_trace *t, const char *name)
{
	size_t i = named_find(&t->reasons, &t->nreasons, &t->capreasons, name);

	/* PLE: VMX exit 40 PAUSE_INSTRUCTION, SVM 0x77 PAUSE (FORMATS.md §1.3). */
	if (strcmp(name, "PAUSE_INSTRUCTION") == 0 || strcmp(name, "PAUSE") == 0)
		t->reasons[i].kind = TI_RK_PLE;
	else if (strcmp(name, "HLT") == 0)
		t->reasons[i].kind = TI_RK_HLT;
	return (int)i;
}

/* ---- quantities: histogram + reservoir ---------------------------------- */

static void
acc_q_add(struct ti_trace *t, struct ti_q *q, double ns)
{
	uint64_t j;

	if (!(ns > 0)) {
		/* Equal timestamps (µs resolution) or cross-pCPU TSC skew. */
		ns = 0;
		q->zeros++;
	}
	if (q->n == 0 || ns < q->min)
		q->min = ns;
	if (q->n == 0 || ns > q->max)
		q->max = ns;
	q->n++;
	q->sum += ns;
	if (q->h == NULL)
		q->h = hist_new();
	hist_add(q->h, ns);
	if (ns == 0)
		return;
	/* Algorithm R over the positive samples (Vitter 1985). */
	if (q->nres < TI_RESERVOIR) {
		VS_GROW(q->res, q->cap, q->nres);
		q->res[q->nres++] = ns;
		return;
	}
	j = rng_below(t->rng, q->n - q->zeros);
	if (j < TI_RESERVOIR)
		q->res[j] = ns;
}

static struct ti_exitq *
exq(struct ti_vcpu *v, int reason)
{
	if ((size_t)reason >= v->nex) {
		size_t cap = v->nex;

		VS_GROW(v->ex, cap, (size_t)reason);
		memset(v->ex + v->nex, 0, (cap - v->nex) * sizeof *v->ex);
		v->nex = cap;
	}
	return &v->ex[reason];
}

static void
note_pcpu(struct ti_vcpu *v, int pcpu)
{
	if (pcpu < 0)
		return;
	if (v->last_pcpu >= 0 && v->last_pcpu != pcpu)
		v->migrations++;
	v->last_pcpu = pcpu;
	if (pcpu < 1024)
		v->pcpus[pcpu / 8] |= (unsigned char)(1u << (pcpu % 8));
}

static void
acc_exit(struct ti_trace *t, struct ti_vcpu *v, int reason, int64_t ns, int pcpu)
{
	int kind = t->reasons[reason].kind;

	t->reasons[reason].count++;
	t->all.exits++;
	exq(&t->all, reason)->count++;
	if (kind == TI_RK_PLE)
		t->all.ple_exits++;
	if (kind == TI_RK_HLT)
		t->all.hlt_exits++;
	if (v == NULL) {
		t->unattributed_exits++;
		return;
	}
	ti_mark_vcpu(v);
	v->exits++;
	exq(v, reason)->count++;
	if (kind == TI_RK_PLE)
		v->ple_exits++;
	if (kind == TI_RK_HLT)
		v->hlt_exits++;
	note_pcpu(v, pcpu);
	/* An exit with no entry since the last one (an exit-only trace) is dropped. */
	v->exit_at = ns;
	v->exit_reason = reason;
}

static void
acc_entry(struct ti_trace *t, struct ti_vcpu *v, int64_t ns)
{
	ti_mark_vcpu(v);
	if (v->exit_at < 0)
		return;
	acc_q_add(t, &exq(v, v->exit_reason)->lat, (double)(ns - v->exit_at));
	acc_q_add(t, &exq(&t->all, v->exit_reason)->lat, (double)(ns - v->exit_at));
	v->exit_at = -1;
}

/* ---- runstates ----------------------------------------------------------- */

static void
state_one(struct ti_trace *t, struct ti_vcpu *v, struct ti_vcpu *all, enum ti_state to,
    int64_t ns)
{
	int64_t d = ns - v->since;

	if (v->state != TI_UNKNOWN) {
		if (d > 0) {
			v->st_ns[v->state] += (double)d;
			all->st_ns[v->state] += (double)d;
		}
		v->trans[v->state][to]++;
		all->trans[v->state][to]++;
		if (v->state == TI_BLOCKED && to == TI_RUNNABLE) {
			acc_q_add(t, &v->blocked, (double)d);
			acc_q_add(t, &all->blocked, (double)d);
			if (t->halt_is_blocked) {
				acc_q_add(t, &v->halt, (double)d);
				acc_q_add(t, &all->halt, (double)d);
			}
		}
		/* xenalyze splits runnable time into "wake" and "preempt" the same way. */
		if (v->state == TI_RUNNABLE && to == TI_RUNNING) {
			if (v->from == TI_BLOCKED && v->wake_at >= 0) {
				acc_q_add(t, &v->wake_to_run, (double)(ns - v->wake_at));
				acc_q_add(t, &all->wake_to_run, (double)(ns - v->wake_at));
			} else if (v->from == TI_RUNNING) {
				acc_q_add(t, &v->preempt_wait, (double)d);
				acc_q_add(t, &all->preempt_wait, (double)d);
			}
		}
	}
	if (to == TI_RUNNABLE) {
		v->from = v->state == TI_UNKNOWN ? TI_UNKNOWN : v->state;
		v->wake_at = ns;
	} else {
		v->wake_at = -1;
	}
	v->state = to;
	v->since = ns;
}

static void
acc_state(struct ti_trace *t, struct ti_vcpu *v, enum ti_state to, int64_t ns)
{
	if (v->state == (int)to)
		return;
	state_one(t, v, &t->all, to, ns);
}

static void
acc_on_cpu(struct ti_trace *t, struct ti_vcpu *v, int64_t ns)
{
	if (v->state == TI_UNKNOWN) {
		v->state = TI_RUNNING;	/* first sighting: it runs from here on */
		v->since = ns;
		return;
	}
	if (v->state != TI_RUNNABLE && v->state != TI_BLOCKED)
		return;
	/* Its switch-in was not recorded: restart the bookkeeping here rather
	 * than count the gap as runnable (or blocked) time. */
	v->state = TI_RUNNING;
	v->since = ns;
	v->wake_at = -1;
	t->resyncs++;
}

static void
acc_state_first(struct ti_trace *t, struct ti_vcpu *v, enum ti_state from, enum ti_state to,
    int64_t ns)
{
	v->trans[from][to]++;
	t->all.trans[from][to]++;
	v->state = to;
	v->since = ns;
	v->from = from;
	v->wake_at = to == TI_RUNNABLE ? ns : -1;
}

static void
acc_wake(struct ti_trace *t, struct ti_vcpu *v, int64_t ns)
{
	if (v->state == TI_RUNNABLE || v->state == TI_RUNNING)
		return;		/* sched_wakeup after sched_waking, or a spurious wake */
	if (v->state == TI_UNKNOWN) {
		/* A wakeup implies it slept, since before the trace began. */
		v->state = TI_RUNNABLE;
		v->from = TI_BLOCKED;
		v->since = v->wake_at = ns;
		return;
	}
	state_one(t, v, &t->all, TI_RUNNABLE, ns);
}

static void
finish(struct ti_trace *t)
{
	size_t i;

	for (i = 0; i < t->nv; i++) {
		struct ti_vcpu *v = t->v[i];

		if (v->state != TI_UNKNOWN && t->t_last > v->since) {
			v->st_ns[v->state] += (double)(t->t_last - v->since);
			t->all.st_ns[v->state] += (double)(t->t_last - v->since);
			v->since = t->t_last;
		}
	}
}

static void
acc_skip(struct ti_trace *t, long line, int col, const char *why)
{
	if (t->nskipped++ == 0)
		snprintf(t->first_bad, sizeof t->first_bad, "%s:%ld:%d: %s", t->path, line,
		    col, why);
}

/* A summary row (perf kvm stat): the count and the mean, no samples. */
static void
acc_exit_summary(struct ti_trace *t, const char *reason, uint64_t count, double mean_ns,
    double min_ns, double max_ns)
{
	int r = acc_reason_id(t, reason);
	int kind = t->reasons[r].kind;
	struct ti_exitq *q = exq(&t->all, r);

	t->reasons[r].count += count;
	t->all.exits += count;
	q->count += count;
	q->lat.n += count;
	q->lat.sum += mean_ns * (double)count;
	q->lat.given = 1;
	q->lat.min = min_ns;	/* perf kvm stat prints min, max and the mean, no percentiles */
	q->lat.max = max_ns;
	q->lat.g_p5 = q->lat.g_p50 = q->lat.g_p95 = NAN;
	if (kind == TI_RK_PLE)
		t->all.ple_exits += count;
	if (kind == TI_RK_HLT)
		t->all.hlt_exits += count;
}

/* A contention goes to both views: per lock address (trace_guest.c) and per
 * class by call site (trace_kprof.c). */
static void
acc_contention(struct ti_trace *t, int tid, int cpu, uint64_t addr, int begin,
    const char *flags, int64_t ns)
{
	ti_guest_contention(t, tid, cpu, addr, begin, flags, ns);
	ti_kprof_contention(t, tid, cpu, addr, begin, flags, ns);
}

/* The hooks the readers call (trace_acc.h), filled in here. */
static const struct ti_acc acc_ops = {
	.vcpu_get = acc_vcpu_get,
	.vcpu_lookup = acc_vcpu_lookup,
	.time = acc_time,
	.count_events = acc_count_events,
	.reason_id = acc_reason_id,
	.exit = acc_exit,
	.entry = acc_entry,
	.state = acc_state,
	.state_first = acc_state_first,
	.on_cpu = acc_on_cpu,
	.wake = acc_wake,
	.q_add = acc_q_add,
	.skip = acc_skip,
	.lock_row = ti_guest_lock_row,
	.contention = acc_contention,
	.task_switch = ti_guest_task_switch,
	.task_wake = ti_guest_task_wake,
	.exit_summary = acc_exit_summary,
	.kevent = ti_kprof_event,
	.frame = ti_kprof_frame,
};

/* ---- formats --------------------------------------------------------------- */

static const char *const ti_fmt_names[] = { "auto", "trace-cmd", "ftrace", "xentrace",
	"xenalyze", "lock_stat", "perf-kvm-stat", "trace.dat", "perf-script", NULL };

/* The reader of each format (trace-cmd, raw ftrace and perf script text share one parser). */
static const struct ti_reader *const ti_readers[] = {
	[TI_FMT_TRACECMD] = &ti_reader_ftrace,
	[TI_FMT_FTRACE] = &ti_reader_ftrace,
	[TI_FMT_PERFSCRIPT] = &ti_reader_ftrace,
	[TI_FMT_XENTRACE] = &ti_reader_xentrace,
	[TI_FMT_XENALYZE] = &ti_reader_xenalyze,
	[TI_FMT_LOCKSTAT] = &ti_reader_lockstat,
	[TI_FMT_PERFKVM] = &ti_reader_perfkvm,
#ifdef HAVE_LIBTRACECMD
	[TI_FMT_DAT] = &ti_reader_dat,
#endif
};

const char *
ti_format_name(enum ti_format f)
{
	return ti_fmt_names[f];
}

int
ti_format_parse(const char *s, enum ti_format *out)
{
	int i;

	for (i = 0; ti_fmt_names[i] != NULL; i++)
		if (strcmp(s, ti_fmt_names[i]) == 0) {
			*out = (enum ti_format)i;
			return 0;
		}
	return -1;
}

/*
 * Detect from the first bytes: xentrace starts with a TRC_TRACE_CPU_CHANGE
 * record (xentrace.c write_buffer()); xenalyze prints "Total time:" or its
 * pcpu activation lines first; raw tracefs starts with "# tracer:"; perf
 * script names each event with its system ("SECS: sched:sched_switch:") and
 * `--header` starts with perf's "# captured on" block; anything else that is
 * text is taken as trace-cmd report.
 */
static int
has_str(const unsigned char *h, size_t n, const char *needle)
{
	size_t k = strlen(needle), i;

	for (i = 0; i + k <= n; i++)
		if (memcmp(h + i, needle, k) == 0)
			return 1;
	return 0;
}

/* An event line of perf script: "... [CPU] SECS: SYSTEM:EVENT:" (tools/perf
 * builtin-script.c prints evsel__name(), which is "sys:name" for tracepoints). */
static int
perf_script_line(const unsigned char *h, size_t n)
{
	size_t i, j;

	for (i = 0; i + 1 < n; i++) {
		if (h[i] != ']' || h[i + 1] != ' ')
			continue;
		for (j = i + 1; j < n && h[j] == ' '; j++)
			;
		for (; j < n && (isdigit(h[j]) || h[j] == '.'); j++)
			;
		if (j + 1 >= n || h[j] != ':' || h[j + 1] != ' ')
			continue;
		for (j++; j < n && h[j] == ' '; j++)
			;
		while (j < n && (isalnum(h[j]) || h[j] == '_'))
			j++;
		if (j >= n || h[j] != ':' || j + 1 >= n || !(isalpha(h[j + 1]) || h[j + 1] == '_'))
			continue;
		for (j++; j < n && (isalnum(h[j]) || h[j] == '_'); j++)
			;
		if (j < n && h[j] == ':')
			return 1;
	}
	return 0;
}

enum ti_format
ti_detect(const unsigned char *h, size_t n)
{
	size_t i;

	if (n >= 4 && ((uint32_t)h[0] | (uint32_t)h[1] << 8 | (uint32_t)h[2] << 16 |
	    (uint32_t)h[3] << 24) % (1u << 28) == 0x0001f003u)
		return TI_FMT_XENTRACE;
	for (i = 0; i < n; i++)
		if (h[i] == 0)
			return TI_FMT_AUTO;	/* some other binary */
	if (has_str(h, n, "Total time:") || has_str(h, n, "|-- Domain") ||
	    has_str(h, n, " runstate_change ") || has_str(h, n, "scan_for_new_pcpu"))
		return TI_FMT_XENALYZE;
	if (has_str(h, n, "lock_stat version "))
		return TI_FMT_LOCKSTAT;
	if (has_str(h, n, "Analyze events for ") || (has_str(h, n, "VM-EXIT") &&
	    has_str(h, n, "Samples%")))
		return TI_FMT_PERFKVM;
	if (n >= 9 && memcmp(h, "# tracer:", 9) == 0)
		return TI_FMT_FTRACE;
	if ((has_str(h, n, "# captured on") && has_str(h, n, "# perf version")) ||
	    perf_script_line(h, n))
		return TI_FMT_PERFSCRIPT;
	return TI_FMT_TRACECMD;
}

int
ti_import(struct ti_trace *t, const char *path, enum ti_format fmt, struct vs_err *err)
{
	unsigned char head[4096];
	size_t n;
	FILE *f;
	int rc;

	t->path = path;
	f = fopen(path, "rb");
	if (f == NULL)
		return vs_errf(err, NULL, 0, 0, "%s: cannot read: %s", path, strerror(errno));
	n = fread(head, 1, sizeof head, f);
	if (ferror(f)) {
		fclose(f);
		return vs_errf(err, NULL, 0, 0, "%s: cannot read: %s", path, strerror(errno));
	}
	if (fmt == TI_FMT_AUTO) {
		fmt = ti_detect(head, n);
		if (fmt == TI_FMT_AUTO && n >= 10 &&
		    memcmp(head, "\x17\x08\x44tracing", 10) == 0) {
#ifdef HAVE_LIBTRACECMD
			fmt = TI_FMT_DAT;
#else
			fclose(f);
			return vs_errf(err, path, 1, 1, "a trace-cmd trace.dat, and this vlocksim "
			    "was built without libtracecmd (configure says so); convert it "
			    "first: trace-cmd report -t > trace.txt");
#endif
		}
		if (fmt == TI_FMT_AUTO) {
			fclose(f);
			return vs_errf(err, path, 1, 1, "unknown binary format (give --format)");
		}
	}
	t->fmt = fmt;
	rewind(f);
	if ((size_t)fmt >= sizeof ti_readers / sizeof ti_readers[0] || ti_readers[fmt] == NULL) {
		fclose(f);
		return vs_errf(err, NULL, 0, 0, "%s: format %s is not built in (configure "
		    "found no libtracecmd)", path, ti_format_name(fmt));
	}
	t->acc = &acc_ops;
	rc = ti_readers[fmt]->read(t, f, path, err);
	fclose(f);
	if (rc != 0)
		return rc;
	finish(t);
	ti_guest_finish(t);
	ti_kprof_finish(t);
	if (!t->guest_only && fmt != TI_FMT_LOCKSTAT && fmt != TI_FMT_PERFKVM) {
		size_t i, nv = 0;

		for (i = 0; i < t->nv; i++)
			nv += t->v[i]->is_vcpu != 0;
		if (nv == 0)
			return vs_errf(err, path, 1, 1, "no vCPU in the trace (%llu events read, "
			    "none of them kvm_exit/kvm_entry/kvm_hypercall/kvm_vcpu_wakeup of a "
			    "vCPU thread, a 'CPU N/KVM' thread or a Xen domain's vCPU): record "
			    "the host with -e kvm -e sched; a guest's own trace goes to "
			    "`vlocksim trace scenario`", (unsigned long long)t->nevent_lines);
	}
	return 0;
}

/* ---- look-ups ------------------------------------------------------------ */

static int
vcpu_id_unique(const struct ti_trace *t, const struct ti_vcpu *v)
{
	size_t i;

	for (i = 0; i < t->nv; i++)
		if (t->v[i] != v && t->v[i]->is_vcpu && t->v[i]->tid >= 0 &&
		    t->v[i]->vcpu == v->vcpu)
			return 0;
	return 1;
}

const char *
ti_vcpu_name(const struct ti_trace *t, const struct ti_vcpu *v, char *buf, size_t n)
{
	if (v == &t->all)
		snprintf(buf, n, "overall");
	else if (v->dom >= 0)
		snprintf(buf, n, "d%dv%d", v->dom, v->vcpu);
	else if (v->vcpu >= 0 && vcpu_id_unique(t, v))
		snprintf(buf, n, "vcpu%d", v->vcpu);
	else if (v->vcpu >= 0)
		snprintf(buf, n, "vcpu%d.tid%d", v->vcpu, v->tid);
	else
		snprintf(buf, n, "tid%d", v->tid);
	return buf;
}

const struct ti_vcpu *
ti_find_vcpu(const struct ti_trace *t, const char *name)
{
	char buf[64];
	size_t i;

	if (name == NULL || strcmp(name, "overall") == 0)
		return &t->all;
	for (i = 0; i < t->nv; i++)
		if (t->v[i]->is_vcpu &&
		    strcmp(ti_vcpu_name(t, t->v[i], buf, sizeof buf), name) == 0)
			return t->v[i];
	return NULL;
}

uint64_t
ti_exit_count(const struct ti_vcpu *v, const struct ti_trace *t, const char *reason)
{
	size_t i;

	for (i = 0; i < t->nreasons && i < v->nex; i++)
		if (strcmp(t->reasons[i].name, reason) == 0)
			return v->ex[i].count;
	return 0;
}

uint64_t
ti_event_count(const struct ti_trace *t, const char *event)
{
	size_t i;

	for (i = 0; i < t->nevents; i++)
		if (strcmp(t->events[i].name, event) == 0)
			return t->events[i].count;
	return 0;
}

/* ---- reports --------------------------------------------------------------- */

static int
cmp_vcpu(const void *a, const void *b)
{
	const struct ti_vcpu *x = *(const struct ti_vcpu *const *)a;
	const struct ti_vcpu *y = *(const struct ti_vcpu *const *)b;

	if (x->dom != y->dom)
		return x->dom < y->dom ? -1 : 1;
	if ((x->vcpu < 0) != (y->vcpu < 0))
		return x->vcpu < 0 ? 1 : -1;
	if (x->vcpu != y->vcpu)
		return x->vcpu < y->vcpu ? -1 : 1;
	if (x->tid != y->tid)
		return x->tid < y->tid ? -1 : 1;
	return (x->key > y->key) - (x->key < y->key);
}

/* The vCPUs in report order (a NULL-terminated array the caller frees). */
static struct ti_vcpu **
sorted_vcpus(const struct ti_trace *t, size_t *n)
{
	struct ti_vcpu **a = xcalloc(t->nv + 1, sizeof *a);
	size_t i, k = 0;

	for (i = 0; i < t->nv; i++)
		if (t->v[i]->is_vcpu)
			a[k++] = t->v[i];
	qsort(a, k, sizeof *a, cmp_vcpu);
	*n = k;
	return a;
}

struct rsort {
	const struct ti_trace *t;
	const struct ti_vcpu *v;
};

/* Reason ids of v sorted by count (desc), then name; returns how many. */
static size_t
sorted_reasons(const struct ti_trace *t, const struct ti_vcpu *v, int *ids)
{
	size_t i, j, k = 0;

	for (i = 0; i < v->nex; i++)
		if (v->ex[i].count > 0)
			ids[k++] = (int)i;
	for (i = 1; i < k; i++)		/* insertion sort: a few dozen reasons */
		for (j = i; j > 0; j--) {
			const struct ti_exitq *a = &v->ex[ids[j - 1]], *b = &v->ex[ids[j]];
			int swap = a->count < b->count || (a->count == b->count &&
			    strcmp(t->reasons[ids[j - 1]].name, t->reasons[ids[j]].name) > 0);

			if (!swap)
				break;
			int tmp = ids[j];
			ids[j] = ids[j - 1];
			ids[j - 1] = tmp;
		}
	return k;
}

static double
span_s(const struct ti_trace *t)
{
	if (t->summary_seconds > 0)
		return t->summary_seconds;
	if (t->t_last <= t->t_first)	/* no clock (perf kvm stat, lock_stat): --seconds */
		return t->given_seconds > 0 ? t->given_seconds : 0;
	return (double)(t->t_last - t->t_first) / 1e9;
}

static double
rate(const struct ti_trace *t, uint64_t count)
{
	double s = span_s(t);

	return s > 0 ? (double)count / s : 0;
}

static void
put_pcts(FILE *o, const char *ind, const char *key, const struct ti_q *q)
{
	char a[32], b[32], c[32];

	if (q->n == 0)
		return;
	if (q->given)
		fprintf(o, "%s%s: {n: %llu, p5: %s, p50: %s, p95: %s}\n", ind, key,
		    (unsigned long long)q->n, ti_fmt_ns(q->g_p5, a, sizeof a),
		    ti_fmt_ns(q->g_p50, b, sizeof b), ti_fmt_ns(q->g_p95, c, sizeof c));
	else
		fprintf(o, "%s%s: {n: %llu, p50: %s, p90: %s, p99: %s}\n", ind, key,
		    (unsigned long long)q->n, ti_fmt_ns(ti_q_quantile(q, 0.5), a, sizeof a),
		    ti_fmt_ns(ti_q_quantile(q, 0.9), b, sizeof b),
		    ti_fmt_ns(ti_q_quantile(q, 0.99), c, sizeof c));
}

static double
st_total(const struct ti_vcpu *v)
{
	double s = 0;
	int i;

	for (i = 0; i < TI_NSTATES; i++)
		s += v->st_ns[i];
	return s;
}

static void
yaml_block(FILE *o, const struct ti_trace *t, const struct ti_vcpu *v, const char *ind)
{
	int *ids = xcalloc(v->nex + 1, sizeof *ids);
	size_t n = sorted_reasons(t, v, ids), i;
	char ind2[32], key[160];
	double tot = st_total(v);

	snprintf(ind2, sizeof ind2, "%s  ", ind);
	if (t->fmt != TI_FMT_XENALYZE) {
		fprintf(o, "%sexits: %llu\n", ind, (unsigned long long)v->exits);
		fprintf(o, "%sexit_rate:%s\n", ind, n ? "" : " {}");
		for (i = 0; i < n; i++)
			fprintf(o, "%s%s: %.6g\n", ind2, t->reasons[ids[i]].name,
			    rate(t, v->ex[ids[i]].count));
		fprintf(o, "%sexit_latency:%s\n", ind, n ? "" : " {}");
		for (i = 0; i < n; i++) {
			struct ti_qfit f;

			if (!ti_q_fit(&v->ex[ids[i]].lat, &f))
				continue;
			fprintf(o, "%s%s: ", ind2, t->reasons[ids[i]].name);
			ti_put_dist(o, &f);
			fputc('\n', o);
		}
		fprintf(o, "%sexit_latency_fit:%s\n", ind, n ? "" : " {}");
		for (i = 0; i < n; i++) {
			struct ti_qfit f;

			if (!ti_q_fit(&v->ex[ids[i]].lat, &f))
				continue;
			fprintf(o, "%s%s: ", ind2, t->reasons[ids[i]].name);
			ti_put_fit(o, &v->ex[ids[i]].lat, &f);
			fputc('\n', o);
		}
		fprintf(o, "%sple_exits: %llu\n%sple_rate: %.6g\n", ind,
		    (unsigned long long)v->ple_exits, ind, rate(t, v->ple_exits));
		fprintf(o, "%shlt_exits: %llu\n", ind, (unsigned long long)v->hlt_exits);
	}
	if (tot > 0) {
		fprintf(o, "%srunstate_share: {", ind);
		for (i = 0; i < TI_NSTATES; i++)
			fprintf(o, "%s%s: %.4f", i ? ", " : "", ti_state_names[i],
			    100 * v->st_ns[i] / tot);
		fprintf(o, "}\n%sobserved: %s\n", ind, ti_fmt_ns(tot, key, sizeof key));
	}
	put_pcts(o, ind, "wake_to_run", &v->wake_to_run);
	ti_put_qdist(o, ind, "wake_to_run_dist", &v->wake_to_run);
	put_pcts(o, ind, "preempt_wait", &v->preempt_wait);
	ti_put_qdist(o, ind, "preempt_wait_dist", &v->preempt_wait);
	ti_put_qdist(o, ind, "halt", &v->halt);
	if (v->blocked.n > 0 && !t->halt_is_blocked)
		ti_put_qdist(o, ind, "blocked", &v->blocked);
	if (v->ple_grow + v->ple_shrink > 0)
		fprintf(o, "%sple_window: {grow: %llu, shrink: %llu, last: %lld}\n", ind,
		    (unsigned long long)v->ple_grow, (unsigned long long)v->ple_shrink,
		    (long long)v->ple_window);
	if (v->hc_kick + v->hc_yield + v->hc_ipi + v->hc_other > 0)
		fprintf(o, "%shypercalls: {kick: %llu, sched_yield: %llu, send_ipi: %llu, "
		    "other: %llu}\n", ind, (unsigned long long)v->hc_kick,
		    (unsigned long long)v->hc_yield, (unsigned long long)v->hc_ipi,
		    (unsigned long long)v->hc_other);
	free(ids);
}

static void
yaml_str(FILE *o, const char *s)
{
	fputc('"', o);
	for (; *s; s++) {
		if (*s == '"' || *s == '\\')
			fputc('\\', o);
		if ((unsigned char)*s < 0x20)
			fprintf(o, "\\x%02x", (unsigned char)*s);
		else
			fputc(*s, o);
	}
	fputc('"', o);
}

char *
ti_yaml(const struct ti_trace *t)
{
	struct ti_vcpu **vs;
	char *buf = NULL, name[64], a[32];
	const char *base = strrchr(t->path, '/');
	size_t len = 0, n, i;
	FILE *o = open_memstream(&buf, &len);

	if (o == NULL)
		vs_fatal("open_memstream: out of memory");
	fputs("# vlocksim trace import: per-vCPU measurements and fitted distributions.\n"
	    "# Format: sim/trace/trace_in.h.  Times carry units; rates are per second.\n", o);
	fputs("source: {file: ", o);
	yaml_str(o, base ? base + 1 : t->path);
	fprintf(o, ", format: %s", ti_format_name(t->fmt));
	if (t->fmt == TI_FMT_XENTRACE || t->fmt == TI_FMT_XENALYZE)
		fprintf(o, ", cpu_hz: %.6gGHz", t->cpu_hz / 1e9);
	fprintf(o, ", span: %s, events: %llu, skipped: %llu}\n",
	    ti_fmt_ns(span_s(t) * 1e9, a, sizeof a), (unsigned long long)t->nevent_lines,
	    (unsigned long long)t->nskipped);
	fputs("overall:\n", o);
	yaml_block(o, t, &t->all, "  ");
	vs = sorted_vcpus(t, &n);
	fprintf(o, "vcpus:%s\n", n ? "" : " {}");
	for (i = 0; i < n; i++) {
		fprintf(o, "  %s:\n", ti_vcpu_name(t, vs[i], name, sizeof name));
		if (vs[i]->dom >= 0)
			fprintf(o, "    domain: %d\n", vs[i]->dom);
		if (vs[i]->tid >= 0)
			fprintf(o, "    tid: %d\n", vs[i]->tid);
		if (vs[i]->vcpu >= 0)
			fprintf(o, "    vcpu: %d\n", vs[i]->vcpu);
		yaml_block(o, t, vs[i], "    ");
	}
	free(vs);
	if (t->guest != NULL) {
		struct ti_wl_opts wo;

		memset(&wo, 0, sizeof wo);
		wo.seconds = t->given_seconds;
		ti_guest_yaml(t, o, &wo);
	}
	ti_kprof_yaml(t, o);
	fclose(o);
	return buf;
}

static int
popcount_pcpus(const struct ti_vcpu *v)
{
	int i, n = 0;

	for (i = 0; i < 128; i++)
		n += __builtin_popcount(v->pcpus[i]);
	return n;
}

static void
sum_q(FILE *o, const char *label, const struct ti_q *q)
{
	char a[32], b[32], c[32], d[32], e[32];
	struct ti_qfit f;

	if (q->n == 0)
		return;
	ti_q_fit(q, &f);
	if (q->given)
		fprintf(o, "  %-13s n %-7llu p5 %-9s p50 %-9s p95 %-9s", label,
		    (unsigned long long)q->n, ti_fmt_ns(q->g_p5, a, sizeof a),
		    ti_fmt_ns(q->g_p50, b, sizeof b), ti_fmt_ns(q->g_p95, c, sizeof c));
	else
		fprintf(o, "  %-13s n %-7llu p50 %-9s p90 %-9s p99 %-9s", label,
		    (unsigned long long)q->n, ti_fmt_ns(ti_q_quantile(q, 0.5), a, sizeof a),
		    ti_fmt_ns(ti_q_quantile(q, 0.9), b, sizeof b),
		    ti_fmt_ns(ti_q_quantile(q, 0.99), c, sizeof c));
	if (f.kind == TI_FIT_CONST)
		fprintf(o, " const %s\n", ti_fmt_ns(f.mean, d, sizeof d));
	else if (f.kind == FIT_GAMMA)
		fprintf(o, " gamma(shape %.4g, mean %s) KS D %.3f\n", f.shape,
		    ti_fmt_ns(f.mean, d, sizeof d), f.fa.r[f.kind].ks_d);
	else if (f.kind == FIT_EXPONENTIAL)
		fprintf(o, " exponential(mean %s) KS D %.3f\n", ti_fmt_ns(f.mean, d, sizeof d),
		    f.fa.r[f.kind].ks_d);
	else
		fprintf(o, " lognormal(mean %s, sd %s)%s\n", ti_fmt_ns(f.mean, d, sizeof d),
		    ti_fmt_ns(f.sd, e, sizeof e), f.kind == TI_FIT_P50P95 ? " from p50+p95" : "");
}

/* A rate per second of span, or "-" when the file has no clock and no --seconds. */
static const char *
fmt_rate(const struct ti_trace *t, uint64_t count, char *buf, size_t n)
{
	if (span_s(t) > 0)
		snprintf(buf, n, "%.2f", rate(t, count));
	else
		snprintf(buf, n, "-");
	return buf;
}

/*
 * Exits by reason, as perf kvm stat report prints them (Samples, Samples%,
 * Time%, Min/Max/Avg time) with the rate and, from a trace's samples, the
 * median and 99th percentile; a time is exit -> the vCPU's next entry.
 */
static void
sum_exits(FILE *o, const struct ti_trace *t, const struct ti_vcpu *v, const int *ids,
    size_t n)
{
	char a[32], b[32], c[32], d[32], e[32], r[32];
	double time = 0;
	size_t i;

	for (i = 0; i < n; i++)
		time += v->ex[ids[i]].lat.sum;
	fprintf(o, "  %-22s %8s %7s %10s %7s %9s %9s %9s %9s %9s\n", "exit reason", "count",
	    "count%", "rate/s", "time%", "mean", "min", "p50", "p99", "max");
	for (i = 0; i < n; i++) {
		const struct ti_exitq *x = &v->ex[ids[i]];
		const struct ti_q *q = &x->lat;
		int has = q->n > 0;

		fprintf(o, "  %-22s %8llu %6.2f%% %10s %6.2f%% %9s %9s %9s %9s %9s\n",
		    t->reasons[ids[i]].name, (unsigned long long)x->count,
		    v->exits > 0 ? 100.0 * (double)x->count / (double)v->exits : 0,
		    fmt_rate(t, x->count, r, sizeof r), time > 0 ? 100 * q->sum / time : 0,
		    ti_fmt_ns(has ? q->sum / (double)q->n : NAN, a, sizeof a),
		    ti_fmt_ns(has ? q->min : NAN, b, sizeof b),
		    ti_fmt_ns(has && !q->given ? ti_q_quantile(q, 0.5) : NAN, c, sizeof c),
		    ti_fmt_ns(has && !q->given ? ti_q_quantile(q, 0.99) : NAN, d, sizeof d),
		    ti_fmt_ns(has ? q->max : NAN, e, sizeof e));
	}
	if (span_s(t) <= 0)
		fputs("  (rate/s: give --seconds, the time the report covers)\n", o);
	if (t->fmt == TI_FMT_PERFKVM)
		fputs("  (perf kvm stat report prints no percentiles: p50, p99 '-')\n", o);
}

static void
sum_block(FILE *o, const struct ti_trace *t, const struct ti_vcpu *v)
{
	int *ids = xcalloc(v->nex + 1, sizeof *ids);
	size_t n = sorted_reasons(t, v, ids), i;
	char r[32];
	double tot = st_total(v);

	/* A vCPU without exits (a Xen PV guest's) prints none of the exit lines. */
	if (t->fmt != TI_FMT_XENALYZE && (v->exits > 0 || v == &t->all)) {
		fprintf(o, "  %llu exits (%s/s)", (unsigned long long)v->exits,
		    fmt_rate(t, v->exits, r, sizeof r));
		if (v != &t->all && popcount_pcpus(v) > 0)
			fprintf(o, ", on %d pCPUs, %llu migrations", popcount_pcpus(v),
			    (unsigned long long)v->migrations);
		fputc('\n', o);
		if (n > 0)
			sum_exits(o, t, v, ids, n);
		fprintf(o, "  PLE exits %llu (%s/s)", (unsigned long long)v->ple_exits,
		    fmt_rate(t, v->ple_exits, r, sizeof r));
		if (v->ple_grow + v->ple_shrink > 0)
			fprintf(o, "; PLE window: %llu grow, %llu shrink, last %lld",
			    (unsigned long long)v->ple_grow, (unsigned long long)v->ple_shrink,
			    (long long)v->ple_window);
		fputc('\n', o);
	}
	if (tot > 0) {
		fputs("  runstates:", o);
		for (i = 0; i < TI_NSTATES; i++)
			fprintf(o, " %s %.2f%%", ti_state_names[i], 100 * v->st_ns[i] / tot);
		fprintf(o, " (of %.3f s observed)\n", tot / 1e9);
	}
	sum_q(o, "halts", &v->halt);
	if (v->halt_polled + v->halt_waited > 0)
		fprintf(o, "  %-13s polled %llu, waited %llu\n", "", (unsigned long long)v->halt_polled,
		    (unsigned long long)v->halt_waited);
	if (!t->halt_is_blocked)
		sum_q(o, "blocked", &v->blocked);
	sum_q(o, "wake-to-run", &v->wake_to_run);
	sum_q(o, "preempt-wait", &v->preempt_wait);
	if (v->hc_kick + v->hc_yield + v->hc_ipi + v->hc_other > 0)
		fprintf(o, "  hypercalls: kick %llu, sched_yield %llu, send_ipi %llu, other %llu\n",
		    (unsigned long long)v->hc_kick, (unsigned long long)v->hc_yield,
		    (unsigned long long)v->hc_ipi, (unsigned long long)v->hc_other);
	if (v->pio_read + v->pio_write > 0)
		fprintf(o, "  pio: %llu reads, %llu writes\n", (unsigned long long)v->pio_read,
		    (unsigned long long)v->pio_write);
	free(ids);
}

char *
ti_summary(const struct ti_trace *t)
{
	struct ti_vcpu **vs;
	char *buf = NULL, name[64];
	size_t len = 0, n, i, j;
	FILE *o = open_memstream(&buf, &len);
	size_t *ord;

	if (o == NULL)
		vs_fatal("open_memstream: out of memory");
	fprintf(o, "%s: %s, ", t->path, ti_format_name(t->fmt));
	if (span_s(t) > 0)
		fprintf(o, "span %.6f s%s", span_s(t), t->t_last <= t->t_first &&
		    t->summary_seconds <= 0 ? " (--seconds)" : "");
	else if (t->fmt == TI_FMT_LOCKSTAT || t->fmt == TI_FMT_PERFKVM)
		fputs("no clock in the file (--seconds S gives rates)", o);
	else
		fputs("span 0 s", o);
	fprintf(o, ", %llu %s", (unsigned long long)t->nevent_lines,
	    t->fmt == TI_FMT_LOCKSTAT ? "lock classes" : t->fmt == TI_FMT_PERFKVM ?
	    "exit reasons" : "events");
	if (t->fmt == TI_FMT_XENTRACE || t->fmt == TI_FMT_XENALYZE)
		fprintf(o, ", TSC %.4g GHz%s", t->cpu_hz / 1e9, t->cpu_hz_given ? "" :
		    t->fmt == TI_FMT_XENALYZE ? " (as the summary says)" :
		    " (assumed; give --cpu-hz)");
	fprintf(o, "\n%llu malformed %s skipped", (unsigned long long)t->nskipped,
	    t->fmt == TI_FMT_XENTRACE ? "records" : "lines");
	if (t->nskipped > 0)
		fprintf(o, " (first: %s)", t->first_bad);
	fputc('\n', o);
	if (t->unattributed_exits > 0)
		fprintf(o, "%llu exits before their pCPU's vCPU was known (overall only)\n",
		    (unsigned long long)t->unattributed_exits);
	if (t->resyncs > 0)
		fprintf(o, "%llu times a vCPU thread ran with no switch-in recorded (lost events; "
		    "that spell is left out of the runstate shares)\n", (unsigned long long)t->resyncs);
	if (t->lost_records > 0)
		fprintf(o, "%llu TRC_LOST_RECORDS markers\n", (unsigned long long)t->lost_records);
	vs = sorted_vcpus(t, &n);
	for (i = 0; i < n; i++) {
		const struct ti_vcpu *v = vs[i];

		fprintf(o, "\n%s", ti_vcpu_name(t, v, name, sizeof name));
		if (v->tid >= 0)
			fprintf(o, " (tid %d)", v->tid);
		fputs(":\n", o);
		sum_block(o, t, v);
	}
	/* A guest's own trace or lock_stat has no vCPUs: its summary is the guest's. */
	if (n > 0 || t->all.exits > 0 || t->guest == NULL) {
		if (t->fmt == TI_FMT_PERFKVM)
			fputs("\noverall (perf kvm stat report: all VMs, all vCPUs together):\n", o);
		else
			fprintf(o, "\noverall (%zu vCPUs):\n", n);
		sum_block(o, t, &t->all);
	}
	ti_guest_summary(t, o, span_s(t));
	/* Event kinds, most frequent first (ties by name). */
	ord = xcalloc(t->nevents + 1, sizeof *ord);
	for (i = 0; i < t->nevents; i++) {
		for (j = i; j > 0; j--) {
			const struct ti_named *a = &t->events[ord[j - 1]], *b = &t->events[i];

			if (a->count > b->count || (a->count == b->count &&
			    strcmp(a->name, b->name) < 0))
				break;
			ord[j] = ord[j - 1];
		}
		ord[j] = i;
	}
	if (t->nevents > 0) {
		fputs("\nevents:", o);
		for (i = 0; i < t->nevents; i++)
			fprintf(o, "%s %s %llu", i % 4 ? "," : "\n ", t->events[ord[i]].name,
			    (unsigned long long)t->events[ord[i]].count);
		fputc('\n', o);
	}
	free(ord);
	free(vs);
	ti_kprof_summary(t, o);
	fclose(o);
	return buf;
}
