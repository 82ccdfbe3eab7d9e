/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * trace_ftrace.c - `trace-cmd report` and raw tracefs text (FORMATS.md §1).
 *
 * One line per event: [FILE.dat:] COMM-TID [(TGID)] [CPU] [FLAGS] SECS: EVENT: BODY.
 * Bodies come in two renderings: the kernel's TP_printk (raw tracefs) and
 * libtraceevent's plugins (trace-cmd, perf), so each handler keys on the
 * body itself (`vcpu N reason X` vs `reason X`, `prev_comm=` vs `comm:pid`),
 * never on the file's name or --format.  Per thread (host TID) we keep the
 * vCPU state; plugin kvm_exit lines carry no vCPU id, so the id comes from
 * kvm_entry or a `CPU N/KVM` thread name (FORMATS.md §6.4).
 */
#include "trace_acc.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>

struct fline {
	const char *comm;
	size_t comm_len;
	int tid, pcpu;
	int64_t ns;
	double period;			/* perf script's period column; 1 without */
	char event[64];
	const char *body;
};

/* "SECS.FRAC" (up to 9 fraction digits, so `report -t` nanoseconds fit) -> ns. */
static const char *
parse_ts(const char *s, int64_t *ns)
{
	int64_t sec = 0, frac = 0;
	int nd = 0;

	if (!isdigit((unsigned char)*s))
		return NULL;
	while (isdigit((unsigned char)*s)) {
		if (sec > INT64_MAX / 10 / 1000000000)
			return NULL;
		sec = sec * 10 + (*s++ - '0');
	}
	if (*s != '.')
		return NULL;
	s++;
	if (!isdigit((unsigned char)*s))
		return NULL;
	while (isdigit((unsigned char)*s)) {
		if (nd < 9) {
			frac = frac * 10 + (*s - '0');
			nd++;
		}
		s++;
	}
	for (; nd < 9; nd++)
		frac *= 10;
	if (*s != ':')
		return NULL;
	*ns = sec * 1000000000 + frac;
	return s + 1;
}

/* The common prefix; returns 0 or the 1-based column where it went wrong. */
static int
parse_prefix(const char *line, struct fline *fl)
{
	const char *s = line, *q, *e, *end;
	size_t n;

	while (*s == ' ' || *s == '\t')
		s++;
	/* trace-cmd report -i a.dat -i b.dat: "a.dat: " before each line. */
	q = strchr(s, ' ');
	if (q != NULL && q - s > 5 && memcmp(q - 5, ".dat:", 5) == 0)
		for (s = q; *s == ' '; s++)
			;
	/* The first " [NNN] " is the pCPU column. */
	for (q = s; (q = strstr(q, "[")) != NULL; q++) {
		if (q == s || (q[-1] != ' ' && q[-1] != '\t'))
			continue;
		for (e = q + 1; isdigit((unsigned char)*e); e++)
			;
		if (e > q + 1 && *e == ']' && (e[1] == ' ' || e[1] == '\t'))
			break;
	}
	if (q == NULL)
		return (int)(s - line) + 1;
	fl->pcpu = atoi(q + 1);
	end = q;
	while (end > s && (end[-1] == ' ' || end[-1] == '\t'))
		end--;
	if (end > s && end[-1] == ')') {	/* (TGID) with options/record-tgid */
		const char *o = end - 1;

		while (o > s && *o != '(')
			o--;
		end = o;
		while (end > s && end[-1] == ' ')
			end--;
	}
	/* COMM-TID (trace-cmd, tracefs) or COMM TID (perf script's default fields). */
	for (e = end; e > s && isdigit((unsigned char)e[-1]); e--)
		;
	if (e == s || e == end || end - e > 9 || (e[-1] != '-' && e[-1] != ' ' && e[-1] != '\t'))
		return (int)(s - line) + 1;
	fl->tid = atoi(e);
	fl->comm = s;
	fl->comm_len = (size_t)(e - 1 - s);
	while (fl->comm_len > 0 && (s[fl->comm_len - 1] == ' ' || s[fl->comm_len - 1] == '\t'))
		fl->comm_len--;
	if (e[-1] != '-' && fl->comm_len == 0)
		return (int)(s - line) + 1;
	/* Optional latency flags (d..2, d....), then the timestamp. */
	for (s = strchr(q, ']') + 1; *s == ' ' || *s == '\t'; s++)
		;
	e = parse_ts(s, &fl->ns);
	if (e == NULL) {
		for (e = s; *e && *e != ' '; e++)
			;
		if (e - s < 4 || e - s > 8)
			return (int)(s - line) + 1;
		for (s = e; *s == ' '; s++)
			;
		e = parse_ts(s, &fl->ns);
		if (e == NULL)
			return (int)(s - line) + 1;
	}
	for (s = e; *s == ' '; s++)
		;
	/* perf script -F ...,period,event: the sample's period before the event. */
	fl->period = 1;
	for (e = s; isdigit((unsigned char)*e); e++)
		;
	if (e > s && (*e == ' ' || *e == '\t')) {
		fl->period = strtod(s, NULL);
		for (s = e; *s == ' ' || *s == '\t'; s++)
			;
	}
	for (e = s; isalnum((unsigned char)*e) || *e == '_'; e++)
		;
	/* "kvm:kvm_exit:" (perf script, trace-cmd -e kvm:kvm_exit lists): drop the system. */
	if (*e == ':' && (isalpha((unsigned char)e[1]) || e[1] == '_')) {
		for (s = e + 1, e = s; isalnum((unsigned char)*e) || *e == '_'; e++)
			;
	}
	n = (size_t)(e - s);
	if (n == 0 || n >= sizeof fl->event || *e != ':')
		return (int)(s - line) + 1;
	memcpy(fl->event, s, n);
	fl->event[n] = '\0';
	for (s = e + 1; *s == ' ' || *s == '\t'; s++)
		;
	fl->body = s;
	return 0;
}

/* QEMU names vCPU threads "CPU N/KVM" (-name debug-threads=on); -1 otherwise. */
static int
comm_vcpu(const char *comm, size_t n)
{
	char buf[32];
	int id;
	char c;

	if (n >= sizeof buf)
		return -1;
	memcpy(buf, comm, n);
	buf[n] = '\0';
	if (sscanf(buf, "CPU %d/KVM%c", &id, &c) == 1 && id >= 0)
		return id;
	return -1;
}

/*
 * Exit reasons to one spelling: VMX names as they are; SVM plugin names
 * lose "EXIT_"; SVM kernel names (lower case, SVM_EXIT_REASONS) are mapped
 * to the plugin's spelling (arch/x86/include/uapi/asm/svm.h; libtraceevent
 * plugin_kvm.c), so "npf" and "EXIT_NPF" are both NPF.
 */
static void
norm_reason(const char *tok, size_t n, const char *next, char *out, size_t outn)
{
	static const char *const alias[][2] = {
		{ "interrupt", "INTR" }, { "io", "IOIO" }, { "hypercall", "VMMCALL" },
		{ "avic_incomplete_ipi", "AVIC_INCOMPLETE_IPI" }, { NULL, NULL }
	};
	size_t i, lower = 1;

	if (n > 5 && memcmp(tok, "EXIT_", 5) == 0) {
		tok += 5;
		n -= 5;
	}
	for (i = 0; i < n; i++)
		if (isupper((unsigned char)tok[i]))
			lower = 0;
	if (lower) {
		for (i = 0; alias[i][0] != NULL; i++)
			if (strlen(alias[i][0]) == n && memcmp(alias[i][0], tok, n) == 0) {
				snprintf(out, outn, "%s", alias[i][1]);
				return;
			}
	}
	/* Kernel SVM exception exits print as "GP excp". */
	if (strncmp(next, " excp", 5) == 0 && n + 6 < outn) {
		memcpy(out, "EXCP_", 5);
		for (i = 0; i < n; i++)
			out[5 + i] = (char)toupper((unsigned char)tok[i]);
		out[5 + n] = '\0';
		return;
	}
	if (n >= outn)
		n = outn - 1;
	for (i = 0; i < n; i++)
		out[i] = (char)toupper((unsigned char)tok[i]);
	out[n] = '\0';
	/* The plugin prints an exit it has no name for as "UNKNOWN (n)". */
	if (strcmp(out, "UNKNOWN") == 0 && next[0] == ' ' && next[1] == '(')
		snprintf(out + n, outn - n, "_%ld", strtol(next + 2, NULL, 0));
}

static struct ti_vcpu *
thread(struct ti_trace *t, const struct fline *fl)
{
	struct ti_vcpu *v = ti_vcpu_get(t, (uint64_t)fl->tid);
	int id;

	v->tid = fl->tid;
	if (v->vcpu < 0 && (id = comm_vcpu(fl->comm, fl->comm_len)) >= 0)
		v->vcpu = id;
	return v;
}

/* A thread named in a sched event body; NULL unless it is a vCPU thread. */
static struct ti_vcpu *
sched_thread(struct ti_trace *t, int pid, const char *comm, size_t n)
{
	struct ti_vcpu *v = ti_vcpu_lookup(t, (uint64_t)pid);
	int id = comm_vcpu(comm, n);

	if (v == NULL && id >= 0 && pid > 0) {
		v = ti_vcpu_get(t, (uint64_t)pid);
		v->tid = pid;
		v->vcpu = id;
		ti_mark_vcpu(v);
	}
	return v != NULL && v->is_vcpu ? v : NULL;
}

static int
ev_kvm_exit(struct ti_trace *t, const struct fline *fl)
{
	const char *b = fl->body, *r, *e;
	struct ti_vcpu *v = thread(t, fl);
	char name[64];
	int id;

	/* Kernel: "vcpu N reason X ..."; plugin: "reason X rip ..." (no vCPU). */
	if (sscanf(b, "vcpu %d", &id) == 1 && v->vcpu < 0)
		v->vcpu = id;
	r = strstr(b, "reason ");
	if (r == NULL)
		return -1;
	r += 7;
	for (e = r; *e && *e != ' '; e++)
		;
	if (e == r)
		return -1;
	norm_reason(r, (size_t)(e - r), e, name, sizeof name);
	/* Only a running vCPU thread exits (the context-switch path still logs a
	 * few events under the old thread, so other events prove nothing). */
	ti_on_cpu(t, v, fl->ns);
	ti_exit(t, v, ti_reason_id(t, name), fl->ns, fl->pcpu);
	return 0;
}

static int
ev_kvm_entry(struct ti_trace *t, const struct fline *fl)
{
	struct ti_vcpu *v = thread(t, fl);
	int id;

	/* Kernel "vcpu N, rip 0x..[ immediate exit]"; plugin "vcpu N rip 0x.."; old "vcpu N". */
	if (sscanf(fl->body, "vcpu %d", &id) != 1)
		return -1;
	v->vcpu = id;
	ti_on_cpu(t, v, fl->ns);
	ti_entry(t, v, fl->ns);
	return 0;
}

static int
ev_hypercall(struct ti_trace *t, const struct fline *fl)
{
	struct ti_vcpu *v = thread(t, fl);
	unsigned long nr;

	if (sscanf(fl->body, "nr %lx", &nr) != 1)
		return -1;
	ti_mark_vcpu(v);
	/* include/uapi/linux/kvm_para.h: KICK_CPU 5, SEND_IPI 10, SCHED_YIELD 11. */
	switch (nr) {
	case 5:
		v->hc_kick++;
		t->all.hc_kick++;
		break;
	case 10:
		v->hc_ipi++;
		t->all.hc_ipi++;
		break;
	case 11:
		v->hc_yield++;
		t->all.hc_yield++;
		break;
	default:
		v->hc_other++;
		t->all.hc_other++;
	}
	return 0;
}

static int
ev_pio(struct ti_trace *t, const struct fline *fl)
{
	struct ti_vcpu *v = thread(t, fl);

	ti_mark_vcpu(v);
	if (strncmp(fl->body, "pio_read ", 9) == 0) {
		v->pio_read++;
		t->all.pio_read++;
	} else if (strncmp(fl->body, "pio_write ", 10) == 0) {
		v->pio_write++;
		t->all.pio_write++;
	} else {
		return -1;
	}
	return 0;
}

static int
ev_ple_window(struct ti_trace *t, const struct fline *fl)
{
	struct ti_vcpu *v = thread(t, fl);
	unsigned id, oldw, neww;
	int w, grow;
	char how[16];

	/* New: "vcpu %u old %u new %u (growed|shrinked)"; old kernels (before Peter
	 * Xu's 2019 rename): "vcpu %u: ple_window %d (grow|shrink %d)". */
	if (sscanf(fl->body, "vcpu %u old %u new %u (%15[a-z])", &id, &oldw, &neww, how) == 4) {
		w = (int)neww;
	} else if (sscanf(fl->body, "vcpu %u: ple_window %d (%15[a-z]", &id, &w, how) == 3) {
		;
	} else {
		return -1;
	}
	if (v->vcpu < 0)
		v->vcpu = (int)id;
	ti_mark_vcpu(v);
	grow = strncmp(how, "grow", 4) == 0;
	if (!grow && strncmp(how, "shrink", 6) != 0)
		return -1;
	if (grow) {
		v->ple_grow++;
		t->all.ple_grow++;
	} else {
		v->ple_shrink++;
		t->all.ple_shrink++;
	}
	v->ple_window = t->all.ple_window = w;
	return 0;
}

static int
ev_vcpu_wakeup(struct ti_trace *t, const struct fline *fl)
{
	struct ti_vcpu *v = thread(t, fl);
	char how[8];
	long long ns;

	/* virt/kvm/kvm_main.c kvm_vcpu_halt(): "%s time %lld ns, polling %s",
	 * wait = really slept, poll = woken while halt-polling. */
	if (sscanf(fl->body, "%7s time %lld ns", how, &ns) != 2 || ns < 0)
		return -1;
	ti_mark_vcpu(v);
	if (strcmp(how, "poll") == 0) {
		v->halt_polled++;
		t->all.halt_polled++;
	} else if (strcmp(how, "wait") == 0) {
		v->halt_waited++;
		t->all.halt_waited++;
	} else {
		return -1;
	}
	ti_q_add(t, &v->halt, (double)ns);
	ti_q_add(t, &t->all.halt, (double)ns);
	return 0;
}

/* "COMM:PID [PRIO]" (plugin): find ":PID [" scanning from the left. */
static const char *
plugin_task(const char *s, const char **comm, size_t *n, int *pid)
{
	const char *p, *e;

	for (p = s; (p = strchr(p, ':')) != NULL; p++) {
		for (e = p + 1; isdigit((unsigned char)*e); e++)
			;
		if (e > p + 1 && e[0] == ' ' && e[1] == '[') {
			*comm = s;
			*n = (size_t)(p - s);
			*pid = atoi(p + 1);
			return e + 1;
		}
	}
	return NULL;
}

/* Kernel prev_state letters (include/trace/events/sched.h): R/R+ = preempted. */
static enum ti_state
out_state(const char *st)
{
	if (st[0] == 'R')
		return TI_RUNNABLE;
	if (st[0] == 'X' || st[0] == 'Z')
		return TI_OFFLINE;
	return TI_BLOCKED;
}

static int
ev_sched_switch(struct ti_trace *t, const struct fline *fl)
{
	const char *b = fl->body, *p, *pc, *nc, *arrow = strstr(b, " ==> ");
	size_t pn, nn;
	int ppid, npid;
	char st[8];
	struct ti_vcpu *v;

	if (arrow == NULL)
		return -1;
	if (strncmp(b, "prev_comm=", 10) == 0) {
		/* Kernel: prev_comm=%s prev_pid=%d prev_prio=%d prev_state=%s ==> next_comm=%s next_pid=%d */
		p = strstr(b, " prev_pid=");
		if (p == NULL || sscanf(p, " prev_pid=%d", &ppid) != 1)
			return -1;
		pc = b + 10;
		pn = (size_t)(p - pc);
		p = strstr(p, " prev_state=");
		if (p == NULL || sscanf(p, " prev_state=%7s", st) != 1)
			return -1;
		nc = strstr(arrow, "next_comm=");
		p = strstr(arrow, " next_pid=");
		if (nc == NULL || p == NULL || sscanf(p, " next_pid=%d", &npid) != 1)
			return -1;
		nc += 10;
		nn = (size_t)(p - nc);
	} else {
		/* Plugin: %s:%d [%d] STATE ==> %s:%d [%d] */
		p = plugin_task(b, &pc, &pn, &ppid);
		if (p == NULL || (p = strchr(p, ']')) == NULL || p > arrow ||
		    sscanf(p + 1, " %7s", st) != 1)
			return -1;
		if (plugin_task(arrow + 5, &nc, &nn, &npid) == NULL)
			return -1;
	}
	/* Every thread, for the guest side (tasks' run and blocked times). */
	ti_task_switch(t, fl->pcpu, ppid, pc, pn, st[0], npid, nc, nn, fl->ns);
	if ((v = sched_thread(t, ppid, pc, pn)) != NULL)
		ti_state(t, v, out_state(st), fl->ns);
	if ((v = sched_thread(t, npid, nc, nn)) != NULL)
		ti_state(t, v, TI_RUNNING, fl->ns);
	return 0;
}

static int
ev_sched_wake(struct ti_trace *t, const struct fline *fl)
{
	const char *b = fl->body, *p, *c;
	size_t n;
	int pid;
	struct ti_vcpu *v;

	if (strncmp(b, "comm=", 5) == 0) {
		/* Kernel: comm=%s pid=%d prio=%d target_cpu=%03d */
		p = strstr(b, " pid=");
		if (p == NULL || sscanf(p, " pid=%d", &pid) != 1)
			return -1;
		c = b + 5;
		n = (size_t)(p - c);
	} else if (plugin_task(b, &c, &n, &pid) == NULL) {
		return -1;	/* plugin: %s:%d [%d] CPU:%03d */
	}
	ti_task_wake(t, pid, fl->ns);
	if ((v = sched_thread(t, pid, c, n)) != NULL)
		ti_wake(t, v, fl->ns);
	return 0;
}

/* include/trace/events/lock.h (Linux 5.19+): contention_begin "%p (flags=%s)",
 * contention_end "%p (ret=%d)"; %p prints as hex, with or without 0x. */
static int
ev_contention(struct ti_trace *t, const struct fline *fl, int begin)
{
	const char *b = fl->body;
	char *e, flags[32];
	unsigned long long addr = strtoull(b, &e, 16);

	if (e == b || (*e != ' ' && *e != '\0'))
		return -1;
	if (begin) {
		if (sscanf(e, " (flags=%31[^)])", flags) != 1)
			return -1;
	} else {
		int ret;

		if (sscanf(e, " (ret=%d)", &ret) != 1)
			return -1;
	}
	ti_contention(t, fl->tid, fl->pcpu, addr, begin, begin ? flags : NULL, fl->ns);
	return 0;
}

static int
ev_contention_begin(struct ti_trace *t, const struct fline *fl)
{
	return ev_contention(t, fl, 1);
}

static int
ev_contention_end(struct ti_trace *t, const struct fline *fl)
{
	return ev_contention(t, fl, 0);
}

/* ---- kernel profile (issue 28, trace_kprof.h) ------------------------------ */

/* "NAME+0x1f/0x40" or "NAME" -> NAME into out. */
static void
fn_name(const char *s, char *out, size_t n)
{
	size_t i = 0;

	while (s[i] && s[i] != '+' && s[i] != ' ' && s[i] != '\t' && s[i] != '(' && i + 1 < n) {
		out[i] = s[i];
		i++;
	}
	out[i] = '\0';
}

static int
kev(struct ti_trace *t, const struct fline *fl, enum ti_kev k, const char *arg)
{
	ti_kevent(t, k, fl->tid, fl->pcpu, arg, fl->period, fl->ns);
	return 0;
}

static int ev_fork(struct ti_trace *t, const struct fline *fl)
{ return kev(t, fl, TI_KEV_FORK, NULL); }
static int ev_pexit(struct ti_trace *t, const struct fline *fl)
{ return kev(t, fl, TI_KEV_EXIT, NULL); }
static int ev_exec(struct ti_trace *t, const struct fline *fl)
{ return kev(t, fl, TI_KEV_EXEC, NULL); }
static int ev_irq_call(struct ti_trace *t, const struct fline *fl)
{ return kev(t, fl, TI_KEV_IRQ_CALL, NULL); }
static int ev_irq_call1(struct ti_trace *t, const struct fline *fl)
{ return kev(t, fl, TI_KEV_IRQ_CALL_SINGLE, NULL); }
static int ev_irq_resched(struct ti_trace *t, const struct fline *fl)
{ return kev(t, fl, TI_KEV_IRQ_RESCHED, NULL); }
static int ev_fault(struct ti_trace *t, const struct fline *fl)
{ return kev(t, fl, TI_KEV_FAULT, NULL); }
static int ev_cpu(struct ti_trace *t, const struct fline *fl)
{ return kev(t, fl, TI_KEV_CPU, NULL); }

/* include/trace/events/ipi.h (6.6+): ipi_send_cpu "cpu=%u callsite=%pS callback=%pS",
 * ipi_send_cpumask "cpumask=%s callsite=%pS callback=%pS". */
static int
ev_ipi_send(struct ti_trace *t, const struct fline *fl)
{
	const char *cs = strstr(fl->body, "callsite="), *cb = strstr(fl->body, "callback=");
	char site[64] = "?", back[64] = "?", arg[130];

	if (cs != NULL)
		fn_name(cs + 9, site, sizeof site);
	if (cb != NULL)
		fn_name(cb + 9, back, sizeof back);
	snprintf(arg, sizeof arg, "%s %s", site, back);
	return kev(t, fl, TI_KEV_IPI_SEND, arg);
}

/* include/trace/events/tlb.h: "pages:%ld reason:%s (%d)". */
static int
ev_tlb(struct ti_trace *t, const struct fline *fl)
{
	const char *r = strstr(fl->body, "reason"), *p;
	char num[16];
	int n;

	/* perf script prints the format's "reason:%s (%d)", trace-cmd "reason=..." */
	if (r == NULL || (r[6] != ':' && r[6] != '=') || (p = strchr(r, '(')) == NULL ||
	    sscanf(p, "(%d)", &n) != 1)
		return -1;
	snprintf(num, sizeof num, "%d", n);
	return kev(t, fl, TI_KEV_TLB, num);
}

/* A call-chain line of perf script (-g): "\tADDR SYMBOL+OFF (DSO)".  Returns 1 when
 * the line is one (and hands its function to the kernel profile). */
static int
frame_line(struct ti_trace *t, const char *line)
{
	const char *s = line, *e;
	char fn[64];

	if (*s != ' ' && *s != '\t')
		return 0;
	while (*s == ' ' || *s == '\t')
		s++;
	for (e = s; isxdigit((unsigned char)*e); e++)
		;
	if (e == s || (*e != ' ' && *e != '\t'))
		return 0;
	while (*e == ' ' || *e == '\t')
		e++;
	if (*e == '\0')
		return 0;
	/* An event line whose comm is all hex ("dd  1234 [001] 5.000001: ...") has a
	 * timestamp; a frame never does. */
	for (s = e; *s; s++) {
		int64_t ns;

		if (isdigit((unsigned char)*s) && (s == e || s[-1] == ' ') && parse_ts(s, &ns))
			return 0;
	}
	fn_name(e, fn, sizeof fn);
	ti_frame(t, fn, strlen(fn));
	return 1;
}

static const struct {
	const char *name;
	int (*fn)(struct ti_trace *, const struct fline *);
} handlers[] = {
	{ "kvm_exit", ev_kvm_exit },
	{ "kvm_entry", ev_kvm_entry },
	{ "kvm_hypercall", ev_hypercall },
	{ "kvm_pio", ev_pio },
	{ "kvm_ple_window_update", ev_ple_window },
	{ "kvm_ple_window", ev_ple_window },
	{ "kvm_vcpu_wakeup", ev_vcpu_wakeup },
	{ "sched_switch", ev_sched_switch },
	{ "sched_waking", ev_sched_wake },
	{ "sched_wakeup", ev_sched_wake },
	{ "sched_wakeup_new", ev_sched_wake },
	{ "contention_begin", ev_contention_begin },
	{ "contention_end", ev_contention_end },
	{ "sched_process_fork", ev_fork },
	{ "sched_process_exit", ev_pexit },
	{ "sched_process_exec", ev_exec },
	{ "ipi_send_cpu", ev_ipi_send },
	{ "ipi_send_cpumask", ev_ipi_send },
	{ "call_function_entry", ev_irq_call },
	{ "call_function_single_entry", ev_irq_call1 },
	{ "reschedule_entry", ev_irq_resched },
	{ "tlb_flush", ev_tlb },
	{ "page_fault_user", ev_fault },
	{ "page_faults", ev_fault },		/* record.sh's name for page-faults */
	{ "task_clock", ev_cpu },		/* record.sh's name for task-clock */
	{ NULL, NULL }
};

/* Lines that are not events and not errors: headers trace-cmd and tracefs print. */
static int
is_header(const char *s)
{
	while (*s == ' ' || *s == '\t')
		s++;
	return *s == '\0' || *s == '#' || strncmp(s, "cpus=", 5) == 0 ||
	    strncmp(s, "version = ", 10) == 0 || strncmp(s, "CPU:", 4) == 0 ||
	    (strncmp(s, "CPU ", 4) == 0 && strstr(s, " is empty") != NULL);
}

/* One text line (no newline) of a trace; also fed by the trace.dat reader. */
void
ti_ftrace_line(struct ti_trace *t, const char *line, long lineno)
{
	struct fline fl;
	int col, i;

	if (is_header(line) || frame_line(t, line))
		return;
	memset(&fl, 0, sizeof fl);
	if ((col = parse_prefix(line, &fl)) != 0) {
		ti_skip(t, lineno, col, "not an ftrace event line "
		    "(COMM-TID [CPU] SECS: EVENT: ...)");
		return;
	}
	for (i = 0; handlers[i].name != NULL; i++)
		if (strcmp(handlers[i].name, fl.event) == 0)
			break;
	if (handlers[i].name != NULL && handlers[i].fn(t, &fl) != 0) {
		char why[128];

		snprintf(why, sizeof why, "cannot read the body of %s", fl.event);
		ti_skip(t, lineno, (int)(fl.body - line) + 1, why);
		return;
	}
	ti_time(t, fl.ns);
	ti_count_event(t, fl.event);
	t->nevent_lines++;
}

int
ti_ftrace_done(struct ti_trace *t, struct vs_err *err)
{
	if (t->nevent_lines == 0) {
		if (t->nskipped > 0)
			return vs_errf(err, NULL, 0, 0, "%s (no line parsed; %llu malformed)",
			    t->first_bad, (unsigned long long)t->nskipped);
		return vs_errf(err, t->path, 1, 1, "no trace events found");
	}
	return 0;
}

static int
ftrace_read(struct ti_trace *t, FILE *f, const char *path, struct vs_err *err)
{
	char *line = NULL;
	size_t cap = 0;
	ssize_t len;
	long lineno = 0;

	while ((len = vs_getline(&line, &cap, f, VS_LINE_MAX)) != -1) {
		lineno++;
		if (len == VS_LINE_TOO_LONG) {
			free(line);
			return vs_errf(err, t->path, (int)lineno, 1, "line longer than %zu bytes: not "
			    "a trace-cmd/ftrace text trace", VS_LINE_MAX);
		}
		while (len > 0 && (line[len - 1] == '\n' || line[len - 1] == '\r'))
			line[--len] = '\0';
		ti_ftrace_line(t, line, lineno);
	}
	free(line);
	if (ferror(f))
		return vs_errf(err, NULL, 0, 0, "%s: read error", t->path);
	return ti_ftrace_done(t, err);
}

const struct ti_reader ti_reader_ftrace = { .read = ftrace_read };
