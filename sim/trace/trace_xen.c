/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * trace_xen.c - xentrace binary and xenalyze summary text (FORMATS.md §2).
 *
 * xentrace: a stream of host-endian u32 words, no file header.  Record =
 * u32 header (bits 0-27 event, 28-30 extra words, 31 TSC follows), [u64 TSC],
 * extras (xen/include/public/trace.h struct t_rec).  xentrace writes per-pCPU
 * buffer windows, each behind a TRC_TRACE_CPU_CHANGE record (cpu, byte_count)
 * (tools/xentrace/xentrace.c write_buffer()); records are time-ordered within
 * a pCPU only.  We merge the pCPUs by TSC with one read cursor per pCPU that
 * skips the other pCPUs' windows, so memory stays at one buffer per pCPU
 * however long the file.  The vCPU a pCPU runs comes from ->running runstate
 * changes, which Xen records on that pCPU (sched/core.c vcpu_runstate_change()).
 */
#include "trace_acc.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define XT_CPU_CHANGE	0x0001f003u	/* TRC_TRACE_CPU_CHANGE */
#define XT_LOST		0x0001f001u	/* TRC_LOST_RECORDS */
#define XT_RUNSTATE	0x00021001u	/* | old << 8 | new << 4 */
#define XT_CONTINUE	0x00021002u	/* TRC_SCHED_CONTINUE_RUNNING */
#define XT_VMENTRY	0x00081001u	/* TRC_HVM_VMENTRY */
#define XT_VMEXIT	0x00081002u	/* TRC_HVM_VMEXIT; | 0x100 = VMEXIT64 */
#define XT_64		0x00000100u	/* TRC_64_FLAG */
#define XT_IDLE_DOM	32767
#define XT_MAX_CPUS	4096

struct xrec {
	uint32_t ev;
	int nx, has_tsc;
	uint64_t tsc;
	uint32_t x[7];
};

struct xcur {
	FILE *f;
	int cpu;
	long off, end;		/* current position; end of this window */
	uint64_t last_tsc;
	struct xrec r;
	int have;		/* r holds the next record */
	int done;
	struct ti_vcpu *cur;	/* the vCPU running on this pCPU */
};

struct xcount {
	uint32_t ev;
	uint64_t n;
};

struct xst {
	struct ti_trace *t;
	const char *path;
	long size;		/* bytes */
	uint64_t tsc0;
	double ns_per_tsc;
	struct xcount *cnt;
	size_t ncnt, capcnt, lastcnt;
};

static int
rd32(FILE *f, uint32_t *w)
{
	unsigned char b[4];

	if (fread(b, 1, 4, f) != 4)
		return -1;
	/* Host-endian in the file; all recorded hosts are x86 (little-endian). */
	*w = (uint32_t)b[0] | (uint32_t)b[1] << 8 | (uint32_t)b[2] << 16 | (uint32_t)b[3] << 24;
	return 0;
}

/* Read one record at the cursor; -1 at EOF or on a short record. */
static int
rd_rec(FILE *f, struct xrec *r, long *off)
{
	uint32_t h, lo, hi;
	int i;

	if (rd32(f, &h))
		return -1;
	r->ev = h & 0x0fffffffu;
	r->nx = (int)((h >> 28) & 7);
	r->has_tsc = (int)(h >> 31);
	*off += 4;
	if (r->has_tsc) {
		if (rd32(f, &lo) || rd32(f, &hi))
			return -1;
		r->tsc = (uint64_t)hi << 32 | lo;
		*off += 8;
	}
	for (i = 0; i < r->nx; i++) {
		if (rd32(f, &r->x[i]))
			return -1;
		*off += 4;
	}
	return 0;
}

static void
bad(struct xst *s, long off, const char *why)
{
	char buf[96];

	/* Binary: "line" is the byte offset, column 1. */
	snprintf(buf, sizeof buf, "%s (byte offset %ld)", why, off);
	ti_skip(s->t, off, 1, buf);
}

/* Move c to its next record: within its window, else to its next window. */
static void
cur_next(struct xst *s, struct xcur *c)
{
	struct xrec h;
	long at;

	c->have = 0;
	while (!c->done) {
		if (c->off < c->end) {
			at = c->off;
			if (rd_rec(c->f, &c->r, &c->off) || c->off > c->end) {
				bad(s, at, "record runs past its pCPU window");
				c->off = c->end;
				if (fseek(c->f, c->off, SEEK_SET))
					c->done = 1;
				continue;
			}
			if (c->r.has_tsc)
				c->last_tsc = c->r.tsc;
			else
				c->r.tsc = c->last_tsc;
			c->have = 1;
			return;
		}
		at = c->off;
		if (rd_rec(c->f, &h, &c->off)) {
			c->done = 1;	/* EOF, or a short header pass 1 reported */
			return;
		}
		if (h.ev != XT_CPU_CHANGE || h.nx < 2) {
			c->done = 1;	/* pass 1 reported it */
			return;
		}
		c->end = c->off + (long)h.x[1];
		if ((int)h.x[0] != c->cpu) {
			c->off = c->end;
			if (fseek(c->f, c->off, SEEK_SET))
				c->done = 1;
		}
	}
}

static void
count(struct xst *s, uint32_t ev)
{
	size_t i;

	if (s->lastcnt < s->ncnt && s->cnt[s->lastcnt].ev == ev) {
		s->cnt[s->lastcnt].n++;
		return;
	}
	for (i = 0; i < s->ncnt; i++)
		if (s->cnt[i].ev == ev)
			break;
	if (i == s->ncnt) {
		VS_GROW(s->cnt, s->capcnt, s->ncnt);
		s->cnt[s->ncnt].ev = ev;
		s->cnt[s->ncnt++].n = 0;
	}
	s->cnt[i].n++;
	s->lastcnt = i;
}

static void
count_hdr(struct xst *s, uint64_t n)
{
	if (n == 0)
		return;
	count(s, XT_CPU_CHANGE);
	s->cnt[s->lastcnt].n += n - 1;
	s->t->nevent_lines += n;
}

/* VMX basic exit reasons (Intel SDM vol. 3 appendix C; xenalyze's table). */
static const char *const vmx_reasons[] = {
	[0] = "EXCEPTION_NMI", [1] = "EXTERNAL_INTERRUPT", [2] = "TRIPLE_FAULT",
	[3] = "INIT_SIGNAL", [4] = "SIPI_SIGNAL", [5] = "IO_SMI", [6] = "OTHER_SMI",
	[7] = "PENDING_INTERRUPT", [8] = "NMI_WINDOW", [9] = "TASK_SWITCH", [10] = "CPUID",
	[11] = "GETSEC", [12] = "HLT", [13] = "INVD", [14] = "INVLPG", [15] = "RDPMC",
	[16] = "RDTSC", [17] = "RSM", [18] = "VMCALL", [19] = "VMCLEAR", [20] = "VMLAUNCH",
	[21] = "VMPTRLD", [22] = "VMPTRST", [23] = "VMREAD", [24] = "VMRESUME",
	[25] = "VMWRITE", [26] = "VMOFF", [27] = "VMON", [28] = "CR_ACCESS",
	[29] = "DR_ACCESS", [30] = "IO_INSTRUCTION", [31] = "MSR_READ", [32] = "MSR_WRITE",
	[33] = "INVALID_GUEST_STATE", [34] = "MSR_LOADING", [36] = "MWAIT_INSTRUCTION",
	[37] = "MONITOR_TRAP_FLAG", [39] = "MONITOR_INSTRUCTION", [40] = "PAUSE_INSTRUCTION",
	[41] = "MCE_DURING_VMENTRY", [43] = "TPR_BELOW_THRESHOLD", [44] = "APIC_ACCESS",
	[45] = "EOI_INDUCED", [46] = "ACCESS_GDTR_OR_IDTR", [47] = "ACCESS_LDTR_OR_TR",
	[48] = "EPT_VIOLATION", [49] = "EPT_MISCONFIG", [50] = "INVEPT", [51] = "RDTSCP",
	[52] = "PREEMPTION_TIMER", [53] = "INVVPID", [54] = "WBINVD", [55] = "XSETBV",
	[56] = "APIC_WRITE", [57] = "RDRAND", [58] = "INVPCID", [59] = "VMFUNC",
	[60] = "ENCLS", [61] = "RDSEED", [62] = "PML_FULL", [63] = "XSAVES", [64] = "XRSTORS",
	[67] = "UMWAIT", [68] = "TPAUSE", [74] = "BUS_LOCK", [75] = "NOTIFY",
};

static int
vmx_reason(struct ti_trace *t, uint32_t code)
{
	char buf[32];

	code &= 0xffff;
	if (code < sizeof vmx_reasons / sizeof vmx_reasons[0] && vmx_reasons[code] != NULL)
		return ti_reason_id(t, vmx_reasons[code]);
	snprintf(buf, sizeof buf, "VMX_%u", code);
	return ti_reason_id(t, buf);
}

static struct ti_vcpu *
xvcpu(struct ti_trace *t, uint32_t d)
{
	unsigned dom = d >> 16, vc = d & 0xffff;
	struct ti_vcpu *v;

	if (dom == XT_IDLE_DOM)
		return NULL;
	v = ti_vcpu_get(t, TI_KEY_XEN(dom, vc));
	v->dom = (int)dom;
	v->vcpu = (int)vc;
	ti_mark_vcpu(v);
	return v;
}

static void
do_rec(struct xst *s, struct xcur *c)
{
	struct ti_trace *t = s->t;
	const struct xrec *r = &c->r;
	double d = (double)(r->tsc - s->tsc0) * s->ns_per_tsc;
	/* at most 2^62 ns (146 years): differences of two times stay in int64 */
	int64_t ns = r->tsc < s->tsc0 ? 0 : d < 0x1p62 ? (int64_t)llround(d) : INT64_C(1) << 62;
	struct ti_vcpu *v;
	int from, to;

	t->nevent_lines++;
	count(s, r->ev);
	ti_time(t, ns);
	if ((r->ev & ~0x330u) == XT_RUNSTATE && r->nx >= 1) {
		from = (int)((r->ev >> 8) & 3);
		to = (int)((r->ev >> 4) & 3);
		v = xvcpu(t, r->x[0]);
		if (to == TI_RUNNING)
			c->cur = v;
		else if (c->cur == v)
			c->cur = NULL;
		if (v == NULL)
			return;
		if (v->state == TI_UNKNOWN)
			ti_state_first(t, v, (enum ti_state)from, (enum ti_state)to, ns);
		else
			ti_state(t, v, (enum ti_state)to, ns);
	} else if (r->ev == XT_CONTINUE && r->nx >= 1) {
		c->cur = xvcpu(t, r->x[0]);
	} else if ((r->ev & ~XT_64) == XT_VMEXIT && r->nx >= 1) {
		ti_exit(t, c->cur, vmx_reason(t, r->x[0]), ns, c->cpu);
	} else if ((r->ev & ~XT_64) == XT_VMENTRY) {
		if (c->cur != NULL)
			ti_entry(t, c->cur, ns);
	} else if (r->ev == XT_LOST) {
		t->lost_records++;
	}
}

/* Credit (sched id 0) and credit2 (id 1) event names (xen/common/sched/credit*.c). */
static const char *const credit_names[] = { NULL, "sched_tasklet", "account_start",
	"account_stop", "stolen_vcpu", "picked_cpu", "tickle", "boost_start", "boost_end",
	"schedule", "ratelimit", "steal_check" };
static const char *const credit2_names[] = { NULL, "tick", "runq_pos", "credit_burn",
	"credit_add", "tickle_check", "tickle", "credit_reset", "sched_tasklet", "update_load",
	"runq_assign", "update_unit_load", "update_runq_load", "tickle_new", "runq_max_weight",
	"migrate", "load_check", "load_balance", NULL, "picked_cpu", "runq_candidate",
	"schedule", "ratelimit", "runq_cand_check" };
static const char *const hvm_names[] = { NULL, "pf_xen", "pf_inject", "inj_exc",
	"inj_virq", "reinj_virq", "io_read", "io_write", "cr_read", "cr_write", "dr_read",
	"dr_write", "msr_read", "msr_write", "cpuid", "intr", "nmi", "smi", "vmmcall", "hlt",
	"invlpg", "mce", "ioport_read", "clts", "lmsw", NULL, NULL, NULL, NULL, NULL, NULL,
	NULL, "intr_window", "npf", "realmode_emulate", "trap", "trap_debug", "vlapic" };
static const char *const verbose_names[] = { NULL, "dom_add", "dom_rem", "sleep", "wake",
	"yield", "block", "shutdown", "ctl", "adjdom", "switch", "s_timer_fn", "t_timer_fn",
	"dom_timer_fn", "switch_infprev", "switch_infnext", "shutdown_code", "switch_infcont" };

static void
ev_name(uint32_t ev, char *buf, size_t n)
{
	uint32_t k = ev & 0x1ff;
#define NAMED(tab, pre) do { if (k < sizeof tab / sizeof tab[0] && tab[k] != NULL) { \
	snprintf(buf, n, pre "%s", tab[k]); return; } } while (0)

	if ((ev & ~0x330u) == XT_RUNSTATE) {
		static const char *const st[] = { "running", "runnable", "blocked", "offline" };

		snprintf(buf, n, "runstate_change.%s->%s", st[(ev >> 8) & 3], st[(ev >> 4) & 3]);
		return;
	}
	switch (ev) {
	case XT_CPU_CHANGE: snprintf(buf, n, "trace_cpu_change"); return;
	case XT_LOST: snprintf(buf, n, "lost_records"); return;
	case XT_CONTINUE: snprintf(buf, n, "continue_running"); return;
	case XT_VMENTRY: snprintf(buf, n, "hvm_vmentry"); return;
	case XT_VMEXIT: snprintf(buf, n, "hvm_vmexit"); return;
	case XT_VMEXIT | XT_64: snprintf(buf, n, "hvm_vmexit64"); return;
	default: break;
	}
	if ((ev & ~0x1ffu) == 0x00022000u)
		NAMED(credit_names, "csched.");
	if ((ev & ~0x1ffu) == 0x00022200u)
		NAMED(credit2_names, "csched2.");
	if ((ev & ~0xfffu) == 0x00028000u)
		NAMED(verbose_names, "sched.");
	/* TRC_HVM_HANDLER 0x00082000 (| 0x100 for the 64-bit variants), trace.h. */
	if ((ev & ~0x1ffu) == 0x00082000u) {
		k = ev & 0xff;
		NAMED(hvm_names, "hvm.");
	}
#undef NAMED
	snprintf(buf, n, "0x%08x", ev);
}

static int
cmp_cnt(const void *a, const void *b)
{
	const struct xcount *x = a, *y = b;

	return (x->ev > y->ev) - (x->ev < y->ev);
}

static int
xentrace_read(struct ti_trace *t, FILE *in, const char *path, struct vs_err *err)
{
	struct xst s = { t, path, 0, 0, 0, NULL, 0, 0, 0 };
	struct xcur *cs = NULL;
	struct xrec h;
	size_t nc = 0, capc = 0, i, best;
	long off = 0;
	FILE *f = fopen(path, "rb");
	char name[64];
	int rc = 0, cpu;
	uint64_t nhdr = 0;

	if (f == NULL)
		return vs_errf(err, NULL, 0, 0, "%s: cannot read: %s", path, strerror(errno));
	t->halt_is_blocked = 1;
	/* Pass 1: window headers only (seeking over the data) to find the pCPUs. */
	for (;;) {
		long at = off;

		if (rd_rec(f, &h, &off))
			break;
		if (h.ev != XT_CPU_CHANGE || h.nx < 2) {
			if (at == 0) {
				fclose(f);
				return vs_errf(err, path, 1, 1, "not a xentrace file (no "
				    "TRC_TRACE_CPU_CHANGE record at byte 0)");
			}
			bad(&s, at, "expected a TRC_TRACE_CPU_CHANGE window header; rest ignored");
			break;
		}
		nhdr++;
		cpu = (int)h.x[0];
		for (i = 0; i < nc && cs[i].cpu != cpu; i++)
			;
		if (i == nc) {
			if (nc >= XT_MAX_CPUS || cpu < 0) {
				bad(&s, at, "too many pCPUs");
				break;
			}
			VS_GROW(cs, capc, nc);
			memset(&cs[nc], 0, sizeof cs[nc]);
			cs[nc].cpu = cpu;
			nc++;
		}
		off += (long)h.x[1];
		if (fseek(f, off, SEEK_SET))
			break;
	}
	fseek(f, 0, SEEK_END);
	s.size = ftell(f);
	fclose(f);
	if (off != s.size && (off > s.size || t->nskipped == 0))
		bad(&s, off > s.size ? s.size : off, "file ends inside a record or window");
	/* One cursor per pCPU, in pCPU order so ties break the same way every time. */
	for (i = 1; i < nc; i++)
		for (best = i; best > 0 && cs[best - 1].cpu > cs[best].cpu; best--) {
			struct xcur tmp = cs[best];

			cs[best] = cs[best - 1];
			cs[best - 1] = tmp;
		}
	for (i = 0; i < nc; i++) {
		cs[i].f = fopen(path, "rb");
		if (cs[i].f == NULL) {
			rc = vs_errf(err, NULL, 0, 0, "%s: cannot read: %s", path, strerror(errno));
			goto out;
		}
		cur_next(&s, &cs[i]);
	}
	/* TSC origin: the earliest first record; rate: --cpu-hz (xenalyze: 2.4 GHz). */
	s.tsc0 = UINT64_MAX;
	for (i = 0; i < nc; i++)
		if (cs[i].have && cs[i].r.tsc < s.tsc0)
			s.tsc0 = cs[i].r.tsc;
	s.ns_per_tsc = 1e9 / t->cpu_hz;
	for (;;) {
		best = nc;
		for (i = 0; i < nc; i++)
			if (cs[i].have && (best == nc || cs[i].r.tsc < cs[best].r.tsc))
				best = i;
		if (best == nc)
			break;
		do_rec(&s, &cs[best]);
		cur_next(&s, &cs[best]);
	}
	/* Window headers are records too (README counts include them). */
	count_hdr(&s, nhdr);
	if (s.ncnt > 0)		/* qsort(NULL, 0) is undefined (C11 7.22.5p1) */
		qsort(s.cnt, s.ncnt, sizeof *s.cnt, cmp_cnt);
	for (i = 0; i < s.ncnt; i++) {
		ev_name(s.cnt[i].ev, name, sizeof name);
		ti_count_events(t, name, s.cnt[i].n);
	}
	if (t->nevent_lines == 0) {
		rc = vs_errf(err, path, 1, 1, "no xentrace records");
		goto out;
	}
out:
	for (i = 0; i < nc; i++)
		if (cs[i].f != NULL)
			fclose(cs[i].f);
	free(cs);
	free(s.cnt);
	return rc;
}

/*
 * xenalyze summary (default mode): per domain "|-- Domain N --|", per vCPU
 * "-- vN --", then runstate lines "label: count seconds avg {p5|p50|p95}"
 * with the averages and percentiles in TSC cycles (print_cycle_summary() in
 * xenalyze.c).  runnable = wake (woken) + preempt; we keep wake as
 * wake_to_run, preempt as preempt_wait and blocked as the halt durations.
 */
static int
xenalyze_read(struct ti_trace *t, FILE *f, const char *path, struct vs_err *err)
{
	static const char *const labels[] = { "running", "runnable", "blocked", "offline",
		"wake", "preempt", NULL };
	char *line = NULL, lab[32];
	size_t cap = 0;
	ssize_t len;
	long lineno = 0;
	int dom = -1, vc = -1, k, got, have_total = 0;
	double file_hz = 2.4e9, secs, p5, p50, p95, ghz, f_cyc;
	unsigned long long cnt, avg;
	struct ti_vcpu *v = NULL;

	t->halt_is_blocked = 1;
	while ((len = vs_getline(&line, &cap, f, VS_LINE_MAX)) != -1) {
		const char *s = line;

		lineno++;
		if (len == VS_LINE_TOO_LONG) {
			free(line);
			return vs_errf(err, t->path, (int)lineno, 1, "line longer than %zu bytes: "
			    "not a xenalyze summary", VS_LINE_MAX);
		}
		while (*s == ' ')
			s++;
		if (sscanf(line, "Total time: %lf seconds (using cpu speed %lf GHz)", &secs,
		    &ghz) == 2) {
			file_hz = ghz * 1e9;
			t->summary_seconds = secs;
			have_total = 1;
			continue;
		}
		if (sscanf(line, "|-- Domain %d --|", &dom) == 1) {
			v = NULL;
			continue;
		}
		if (sscanf(line, "-- v%d --", &vc) == 1 && dom >= 0) {
			v = ti_vcpu_get(t, TI_KEY_XEN(dom, vc));
			v->dom = dom;
			v->vcpu = vc;
			/* The idle domain's "vCPUs" are the pCPUs' idle loops. */
			if (dom != XT_IDLE_DOM)
				ti_mark_vcpu(v);
			continue;
		}
		if (v == NULL || !v->is_vcpu || sscanf(s, "%31[a-z]:", lab) != 1)
			continue;
		for (k = 0; labels[k] != NULL && strcmp(labels[k], lab) != 0; k++)
			;
		if (labels[k] == NULL)
			continue;
		got = sscanf(s, "%*[a-z]: %llu %lfs %llu {%lf|%lf|%lf}", &cnt, &secs, &avg,
		    &p5, &p50, &p95);
		if (got != 6) {
			ti_skip(t, lineno, (int)(s - line) + 1,
			    "runstate line is not 'label: count seconds avg {p5|p50|p95}'");
			continue;
		}
		t->nevent_lines++;
		ti_count_event(t, lab);
		/* Cycles are TSC counts; seconds were divided by the file's speed. */
		f_cyc = 1e9 / t->cpu_hz;
		if (!t->cpu_hz_given)
			f_cyc = 1e9 / file_hz;
		if (k < TI_NSTATES) {
			double ns = secs * 1e9 * (t->cpu_hz_given ? file_hz / t->cpu_hz : 1);

			v->st_ns[k] += ns;
			t->all.st_ns[k] += ns;
		}
		if (k == TI_BLOCKED || k == 4 || k == 5) {
			struct ti_q *q = k == TI_BLOCKED ? &v->halt : k == 4 ? &v->wake_to_run :
			    &v->preempt_wait;
			struct ti_q *qa = k == TI_BLOCKED ? &t->all.halt : k == 4 ?
			    &t->all.wake_to_run : &t->all.preempt_wait;

			q->given = 1;
			q->n = cnt;
			q->sum = (double)cnt * (double)avg * f_cyc;
			q->g_p5 = p5 * f_cyc;
			q->g_p50 = p50 * f_cyc;
			q->g_p95 = p95 * f_cyc;
			q->min = q->max = NAN;	/* xenalyze prints percentiles only */
			qa->given = 1;
			qa->min = qa->max = NAN;
			qa->n += cnt;
			qa->sum += q->sum;
			qa->g_p5 = qa->g_p50 = qa->g_p95 = NAN;
		}
	}
	free(line);
	if (ferror(f))
		return vs_errf(err, NULL, 0, 0, "%s: read error: %s", t->path, strerror(errno));
	if (t->cpu_hz_given && have_total)
		t->summary_seconds *= file_hz / t->cpu_hz;
	else if (!t->cpu_hz_given)
		t->cpu_hz = file_hz;
	if (t->nevent_lines == 0) {
		if (t->nskipped > 0)
			return vs_errf(err, NULL, 0, 0, "%s (no line parsed)", t->first_bad);
		return vs_errf(err, t->path, 1, 1, "not a xenalyze summary (no per-vCPU "
		    "runstate lines; --dump-all output is not read: import the xentrace "
		    "binary instead)");
	}
	return 0;
}

const struct ti_reader ti_reader_xentrace = { .read = xentrace_read };
const struct ti_reader ti_reader_xenalyze = { .read = xenalyze_read };
