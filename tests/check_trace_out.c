/* SPDX-License-Identifier: GPL-2.0-or-later */
/* check_trace_out.c - the Chrome trace-event export (sim/trace/trace_out.c). */
#include "testutil.h"

#include "trace_out.h"

/*
 * Three VMs of 4 vCPUs on 8 pCPUs under KVM with PLE and the host's fair
 * scheduler: preemption, PLE exits with directed yields, pv-ticket halts
 * and kicks, PIO exits, hypercalls and I/O sleeps all happen in 20 ms.
 */
static const char *scen =
    TEST_MACHINE
    "name: tr\nseed: 3\nreps: 1\nduration: 20ms\n"
    "hypervisor: {kind: kvm, scheduler: cfs, ple: {window: 4096cycles}}\n"
    "vms:\n"
    "  - {name: a, count: 3, vcpus: 4, lock: {kind: pv-ticket, spin_threshold: 4096},"
    " workload: w}\n"
    "workloads:\n"
    "  w:\n"
    "    locks: {l: {cs_lines: 1}}\n"
    "    program:\n"
    "      - loop: forever\n"
    "        do:\n"
    "          - compute: {dist: exponential, mean: 3us}\n"
    "          - acquire: l\n"
    "          - compute: 2us\n"
    "          - release: l\n"
    "          - io: pio-user\n"
    "          - io: hypercall\n"
    "          - sleep: {dist: exponential, mean: 30us}\n";

#define MAXSL 200000

struct sl {
	int tid;
	long long ts, dur;	/* ns */
};

struct parsed {
	int n_hlt, n_ple, n_io, n_hc, n_kick_s, n_kick_f, n_yield_s, n_yield_f;
	int n_running, n_pcpu_slices, n_counters, n_lines;
	long long min_ts, max_end;
	long long rs_total[64];	/* per (pid 2..4, tid 1,3,5,7) runstate lane */
	struct sl *pc;		/* pCPU lane slices */
	int npc;
	int neg_waiters;
};

static long long
us_to_ns(const char *p)
{
	long long a = 0, b = 0;

	ck_assert_int_eq(sscanf(p, "%lld.%lld", &a, &b), 2);
	return a * 1000 + b;
}

static int
has(const char *line, const char *s)
{
	return strstr(line, s) != NULL;
}

/* Our own minimal structural check: strings closed, brackets balanced. */
static void
check_structure(const char *s)
{
	int depth = 0, in_str = 0, maxd = 0;

	for (; *s; s++) {
		if (in_str) {
			if (*s == '\\')
				s++;
			else if (*s == '"')
				in_str = 0;
			continue;
		}
		if (*s == '"')
			in_str = 1;
		else if (*s == '{' || *s == '[')
			depth++;
		else if (*s == '}' || *s == ']')
			depth--;
		ck_assert_int_ge(depth, 0);
		if (depth > maxd)
			maxd = depth;
	}
	ck_assert_int_eq(in_str, 0);
	ck_assert_int_eq(depth, 0);
	ck_assert_int_ge(maxd, 3);
}

static void
parse(const char *text, struct parsed *p)
{
	char *copy = xstrdup(text), *save = NULL, *line;

	memset(p, 0, sizeof *p);
	p->pc = xcalloc(MAXSL, sizeof *p->pc);
	p->min_ts = -1;
	for (line = strtok_r(copy, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char ph;
		int pid, tid;
		const char *q;
		long long ts;

		if (sscanf(line, "{\"ph\":\"%c\",\"pid\":%d,\"tid\":%d", &ph, &pid, &tid) != 3 &&
		    sscanf(line, ",{\"ph\":\"%c\",\"pid\":%d,\"tid\":%d", &ph, &pid, &tid) != 3)
			continue;
		p->n_lines++;
		if (ph == 'M')
			continue;
		q = strstr(line, "\"ts\":");
		ck_assert_ptr_nonnull(q);
		ts = us_to_ns(q + 5);
		if (p->min_ts < 0 || ts < p->min_ts)
			p->min_ts = ts;
		if (ts > p->max_end)
			p->max_end = ts;
		switch (ph) {
		case 'X': {
			long long dur = us_to_ns(strstr(line, "\"dur\":") + 6);

			if (ts + dur > p->max_end)
				p->max_end = ts + dur;
			if (pid == 1) {
				ck_assert_int_lt(p->npc, MAXSL);
				p->pc[p->npc].tid = tid;
				p->pc[p->npc].ts = ts;
				p->pc[p->npc++].dur = dur;
				p->n_pcpu_slices++;
			}
			if (has(line, "\"cat\":\"runstate\"")) {
				int k = (pid - 2) * 8 + tid;

				ck_assert(k >= 0 && k < 64);
				p->rs_total[k] += dur;
				if (has(line, "\"name\":\"running\""))
					p->n_running++;
			}
			break;
		}
		case 'i':
			p->n_hlt += has(line, "\"name\":\"HLT\"");
			p->n_ple += has(line, "\"name\":\"PLE\"");
			p->n_io += has(line, "\"name\":\"IO\"");
			p->n_hc += has(line, "\"name\":\"hypercall\"");
			break;
		case 's':
			p->n_kick_s += has(line, "\"name\":\"kick\"");
			p->n_yield_s += has(line, "\"name\":\"yield_to\"");
			break;
		case 'f':
			ck_assert(has(line, "\"bp\":\"e\""));
			p->n_kick_f += has(line, "\"name\":\"kick\"");
			p->n_yield_f += has(line, "\"name\":\"yield_to\"");
			break;
		case 'C':
			p->n_counters++;
			p->neg_waiters += has(line, "\"waiters\":-");
			break;
		default:
			ck_abort_msg("unexpected phase %c", ph);
		}
	}
	free(copy);
}

static int
cmp_sl(const void *a, const void *b)
{
	const struct sl *x = a, *y = b;

	if (x->tid != y->tid)
		return x->tid - y->tid;
	return (x->ts > y->ts) - (x->ts < y->ts);
}

/* Run the scenario with a trace of [from, to]; the text (malloc'd) and metrics. */
static char *
traced(sim_time_t from, sim_time_t to, struct metrics *m)
{
	struct scenario sc;
	struct vs_err err = { "" };
	struct run_opts o = { .wall_clock = 0, .check = 1 };
	struct trace_out *t;
	char *text;
	size_t len;

	ck_assert_int_eq(tu_load(&sc, scen, &err), 0);
	t = trace_out_new(&sc, from, to);
	o.probe = trace_out_probe(t);
	metrics_init(m);
	if (run_once(&sc, sc.seed, &o, m, &err) != 0)
		ck_abort_msg("run failed: %s", err.msg);
	text = xstrdup(trace_out_text(t, &len));
	ck_assert_uint_eq(strlen(text), len);
	trace_out_free(t);
	scen_free(&sc);
	return text;
}

START_TEST(whole_run_matches_metrics)
{
	struct metrics m;
	struct parsed p;
	char *text = traced(0, SIM_NEVER, &m);
	int i;

	check_structure(text);
	parse(text, &p);
	/* the scenario exercises every kind of event */
	ck_assert_int_gt(p.n_hlt, 100);
	ck_assert_int_gt(p.n_ple, 0);
	ck_assert_int_gt(p.n_kick_s, 0);
	ck_assert_int_gt(p.n_yield_s, 0);
	ck_assert_int_gt(p.n_counters, 0);
	/* counts match the run's metrics */
	ck_assert_int_eq(p.n_hlt, (int)tu_metric(&m, "hlt_exits"));
	ck_assert_int_eq(p.n_ple, (int)tu_metric(&m, "ple_exits"));
	ck_assert_int_eq(p.n_io, (int)tu_metric(&m, "io_exits"));
	ck_assert_int_eq(p.n_hc, (int)tu_metric(&m, "hypercalls"));
	ck_assert_int_eq(p.n_yield_s, (int)tu_metric(&m, "yield_to_ok"));
	ck_assert_int_eq(p.n_running, (int)tu_metric(&m, "ctx_switches"));
	ck_assert_int_eq(p.n_pcpu_slices, (int)tu_metric(&m, "ctx_switches"));
	ck_assert_int_eq(p.n_kick_s, p.n_kick_f);
	ck_assert_int_eq(p.n_yield_s, p.n_yield_f);
	ck_assert_int_eq(p.neg_waiters, 0);
	/* slices on one pCPU never overlap */
	qsort(p.pc, (size_t)p.npc, sizeof *p.pc, cmp_sl);
	for (i = 1; i < p.npc; i++)
		if (p.pc[i].tid == p.pc[i - 1].tid)
			ck_assert_int_le(p.pc[i - 1].ts + p.pc[i - 1].dur, p.pc[i].ts);
	/* every vCPU's runstate lane tiles the whole run (20 ms) */
	for (i = 0; i < 3; i++) {
		int k;

		for (k = 1; k <= 7; k += 2)
			ck_assert_int_eq(p.rs_total[i * 8 + k], 20000000);
	}
	ck_assert_int_eq(p.max_end, 20000000);
	free(p.pc);
	metrics_free(&m);
	free(text);
}
END_TEST

/* IPIs: a flow from each send to the handler that takes it, a slice per wait. */
START_TEST(ipi_flows_and_waits)
{
	struct scenario sc;
	struct vs_err err = { "" };
	struct run_opts o = { .wall_clock = 0, .check = 1 };
	struct trace_out *t;
	struct metrics m;
	const char *text, *p;
	int s = 0, f = 0, waits = 0, handlers = 0;

	ck_assert_int_eq(tu_load(&sc, TEST_MACHINE "name: ti\nseed: 2\nduration: 30ms\n"
	    "hypervisor: {kind: kvm, scheduler: cfs}\n"
	    "vms:\n  - {name: g, vcpus: 4, workload: w}\n  - {name: h, vcpus: 8, workload: hog}\n"
	    "workloads:\n  hog: {program: [{loop: forever, do: [{compute: 3ms}]}]}\n"
	    "  w:\n    programs: {p: [{loop: forever, do: [{compute: 200us},"
	    " {ipi: {to: others, wait: true}}]}]}\n    tasks: [{program: p, count: 4}]\n", &err), 0);
	t = trace_out_new(&sc, 0, SIM_NEVER);
	o.probe = trace_out_probe(t);
	metrics_init(&m);
	ck_assert_int_eq(run_once(&sc, sc.seed, &o, &m, &err), 0);
	text = trace_out_text(t, NULL);
	check_structure(text);
	for (p = text; (p = strstr(p, "\"cat\":\"ipi\"")) != NULL; p++) {
		const char *l = p;

		while (l > text && l[-1] != '\n')
			l--;
		s += strncmp(l, "{\"ph\":\"s\"", 9) == 0;
		f += strncmp(l, "{\"ph\":\"f\"", 9) == 0;
		waits += strncmp(l, "{\"ph\":\"X\"", 9) == 0 && strstr(l, "IPI wait") != NULL &&
		    strstr(l, "IPI wait") < strchr(l, '\n');
	}
	for (p = text; (p = strstr(p, "IPI handler")) != NULL; p++)
		handlers++;
	ck_assert_int_gt(f, 20);
	/* every taken IPI closes its flow; at most the last round is open */
	ck_assert_int_eq(f, (int)tu_metric(&m, "g.ipis_received"));
	ck_assert_int_le(s - f, 3 * 4);
	ck_assert_int_eq(handlers, f);
	/* one slice per call, the open ones closed at the end */
	ck_assert_int_ge(waits, (int)tu_metric(&m, "g.ipi_calls") - 4);
	ck_assert_int_le(waits, (int)tu_metric(&m, "g.ipi_calls"));
	metrics_free(&m);
	trace_out_free(t);
	scen_free(&sc);
}
END_TEST

START_TEST(python_json_parses)
{
	struct metrics m;
	char *text = traced(0, SIM_NEVER, &m), path[] = "/tmp/vlocksim-trace-XXXXXX", *cmd;
	int fd = mkstemp(path);
	FILE *f;

	ck_assert_int_ge(fd, 0);
	f = fdopen(fd, "w");
	fputs(text, f);
	fclose(f);
	if (system("python3 -c 'import json' >/dev/null 2>&1") == 0) {
		cmd = xasprintf("python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); "
		    "assert len(d[\"traceEvents\"]) > 1000' %s", path);
		ck_assert_int_eq(system(cmd), 0);
		free(cmd);
	}
	unlink(path);
	metrics_free(&m);
	free(text);
}
END_TEST

START_TEST(same_run_same_bytes)
{
	struct metrics m1, m2;
	char *a = traced(0, SIM_NEVER, &m1), *b = traced(0, SIM_NEVER, &m2);

	ck_assert_str_eq(a, b);
	metrics_free(&m1);
	metrics_free(&m2);
	free(a);
	free(b);
}
END_TEST

START_TEST(window_clips)
{
	struct metrics m1, m2;
	struct parsed all, win;
	char *a = traced(0, SIM_NEVER, &m1), *w = traced(5000000, 7500000, &m2);
	int i;

	check_structure(w);
	parse(a, &all);
	parse(w, &win);
	ck_assert_int_ge(win.min_ts, 5000000);
	ck_assert_int_le(win.max_end, 7500000);
	ck_assert_int_gt(win.n_hlt, 0);
	ck_assert_int_lt(win.n_hlt, all.n_hlt / 4);
	ck_assert_int_lt(strlen(w), strlen(a) / 4);
	/* clipped runstate lanes tile exactly the window */
	for (i = 0; i < 3; i++)
		ck_assert_int_eq(win.rs_total[i * 8 + 1], 2500000);
	free(all.pc);
	free(win.pc);
	metrics_free(&m1);
	metrics_free(&m2);
	free(a);
	free(w);
}
END_TEST

START_TEST(window_syntax)
{
	sim_time_t f, t;
	struct vs_err err;

	ck_assert_int_eq(trace_out_window("10ms:20ms", &f, &t, &err), 0);
	ck_assert_int_eq(f, 10000000);
	ck_assert_int_eq(t, 20000000);
	ck_assert_int_eq(trace_out_window(":1s", &f, &t, &err), 0);
	ck_assert_int_eq(f, 0);
	ck_assert_int_eq(t, 1000000000);
	ck_assert_int_eq(trace_out_window("5us:", &f, &t, &err), 0);
	ck_assert_int_eq(t, SIM_NEVER);
	ck_assert_int_ne(trace_out_window("20ms:10ms", &f, &t, &err), 0);
	ck_assert_int_ne(trace_out_window("10ms", &f, &t, &err), 0);
	ck_assert_int_ne(trace_out_window("10 parsecs:20ms", &f, &t, &err), 0);
}
END_TEST

int
main(void)
{
	Suite *s = suite_create("trace_out");
	TCase *tc = tcase_create("core");

	tcase_set_timeout(tc, 0);
	tcase_add_test(tc, whole_run_matches_metrics);
	tcase_add_test(tc, python_json_parses);
	tcase_add_test(tc, ipi_flows_and_waits);
	tcase_add_test(tc, same_run_same_bytes);
	tcase_add_test(tc, window_clips);
	tcase_add_test(tc, window_syntax);
	suite_add_tcase(s, tc);
	return tu_main(s);
}
