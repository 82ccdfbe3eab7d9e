/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * check_trace.c - trace import: MLE fits, both ftrace renderings, a generated
 * xentrace file, a xenalyze summary, bad input, bounded memory, byte-identical
 * YAML that scenarios can read; the recorded samples shipped in traces/ against
 * the counts in traces/README.md; and, when ../shared/traces sits beside the
 * source tree, its two unlicensed KVM samples (never copied in).
 */
#include "dist.h"
#include "fit.h"
#include "rng.h"
#include "stats.h"
#include "trace_in.h"
#include "trace_kprof.h"
#include "yconf.h"

#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <gsl/gsl_randist.h>

#ifndef VS_TOP_SRCDIR
#define VS_TOP_SRCDIR "."
#endif
#define FIXTURE(f) VS_TOP_SRCDIR "/tests/data/traces/" f
#define SAMPLE(f) VS_TOP_SRCDIR "/traces/" f
#define SHARED VS_TOP_SRCDIR "/../shared/traces/"

static struct ti_trace *
load(const char *path, enum ti_format fmt, double hz)
{
	struct ti_trace *t = ti_new(hz);
	struct vs_err err = { "" };

	if (ti_import(t, path, fmt, &err) != 0)
		ck_abort_msg("import %s failed: %s", path, err.msg);
	return t;
}

static const struct ti_vcpu *
vc(const struct ti_trace *t, const char *name)
{
	const struct ti_vcpu *v = ti_find_vcpu(t, name);

	if (v == NULL)
		ck_abort_msg("no vCPU %s", name);
	return v;
}

/* Latency samples of reason r on v (via the histogram's extremes). */
static double
lat_p50(const struct ti_trace *t, const struct ti_vcpu *v, const char *r)
{
	size_t i;

	for (i = 0; i < t->nreasons && i < v->nex; i++)
		if (strcmp(t->reasons[i].name, r) == 0)
			return ti_q_quantile(&v->ex[i].lat, 0.5);
	return NAN;
}

START_TEST(test_fit_families)
{
	struct rng *r = rng_new(42, 1);
	double *x = malloc(5000 * sizeof *x), ks;
	struct fit_all fa;
	int i;

	for (i = 0; i < 5000; i++)
		x[i] = gsl_ran_lognormal(rng_gsl(r), 1.0, 0.5);
	ck_assert_int_eq(fit_all(x, 5000, &fa), FIT_LOGNORMAL);
	ck_assert_double_eq_tol(fa.r[FIT_LOGNORMAL].p1, 1.0, 0.03);
	ck_assert_double_eq_tol(fa.r[FIT_LOGNORMAL].p2, 0.5, 0.02);
	ck_assert(fa.r[FIT_LOGNORMAL].ks_d < 0.03);

	for (i = 0; i < 5000; i++)
		x[i] = gsl_ran_gamma(rng_gsl(r), 3.0, 2.0);
	ck_assert_int_eq(fit_all(x, 5000, &fa), FIT_GAMMA);
	ck_assert_double_eq_tol(fa.r[FIT_GAMMA].p1, 3.0, 0.15);
	ck_assert_double_eq_tol(fa.r[FIT_GAMMA].mean, 6.0, 0.15);

	for (i = 0; i < 5000; i++)
		x[i] = gsl_ran_exponential(rng_gsl(r), 5.0);
	fit_all(x, 5000, &fa);
	ck_assert(fa.best == FIT_EXPONENTIAL || fa.best == FIT_GAMMA);
	ck_assert_double_eq_tol(fa.r[FIT_EXPONENTIAL].mean, 5.0, 0.15);
	ck_assert(fa.r[FIT_EXPONENTIAL].ks_d < 0.03);
	ck_assert(fa.r[FIT_LOGNORMAL].ks_d > 0.05);	/* the wrong family shows */

	/* By hand: {1,2,3}, exponential mean 2; D = F(1) = 1 - e^-0.5. */
	x[0] = 3;
	x[1] = 1;
	x[2] = 2;
	fit_all(x, 3, &fa);
	ck_assert_double_eq_tol(fa.r[FIT_EXPONENTIAL].mean, 2.0, 1e-12);
	ks = 1 - exp(-0.5);
	ck_assert_double_eq_tol(fa.r[FIT_EXPONENTIAL].ks_d, ks, 1e-9);
	ck_assert_double_eq_tol(fa.r[FIT_EXPONENTIAL].loglik, -3 * log(2.0) - 3, 1e-9);
	ck_assert_int_eq(fit_all(x, 1, &fa), -1);
	free(x);
	rng_free(r);
}
END_TEST

/* Issue 14 D2: near-equal values made GSL's handler abort() inside the gamma
 * fit (psi_1 underflow); the family is now "does not fit", with GSL's reason. */
START_TEST(test_fit_gsl_failure)
{
	double x[3] = { 9244802, 9244802, 9244803 };
	struct fit_all fa;

	ck_assert_int_ge(fit_all(x, 3, &fa), 0);
	ck_assert_int_eq(fa.r[FIT_GAMMA].ok, 0);
	ck_assert_ptr_nonnull(fa.r[FIT_GAMMA].why);
	ck_assert_str_eq(fa.r[FIT_GAMMA].why, "underflow");
	ck_assert_int_eq(fa.r[FIT_EXPONENTIAL].ok, 1);
	ck_assert(fa.best != FIT_GAMMA);
	x[0] = 89927;
	x[1] = x[2] = 89859;
	ck_assert_int_ge(fit_all(x, 3, &fa), 0);	/* gamma_inc large-x: no abort */
}
END_TEST

START_TEST(test_trace_cmd_plugin)
{
	struct ti_trace *t = load(FIXTURE("kvm-plugin.txt"), TI_FMT_AUTO, 0);
	const struct ti_vcpu *v0, *v1;

	ck_assert_int_eq(t->fmt, TI_FMT_TRACECMD);
	ck_assert_uint_eq(t->nskipped, 2);	/* a stray line, a kvm_exit with no reason */
	ck_assert(strstr(t->first_bad, "kvm-plugin.txt:7:1:") != NULL);
	ck_assert_uint_eq(t->nevent_lines, 27);
	ck_assert_uint_eq(ti_event_count(t, "hrtimer_start"), 1);
	ck_assert_uint_eq(ti_event_count(t, "tlb_flush"), 1);	/* trace-cmd's "reason=" */
	v0 = vc(t, "vcpu0");
	ck_assert_int_eq(v0->tid, 1000);
	ck_assert_uint_eq(v0->exits, 4);
	ck_assert_uint_eq(ti_exit_count(v0, t, "HLT"), 1);
	ck_assert_uint_eq(v0->ple_exits, 1);
	ck_assert_uint_eq(v0->ple_grow, 1);
	ck_assert_int_eq(v0->ple_window, 8192);
	ck_assert_uint_eq(v0->hc_kick, 1);
	ck_assert_uint_eq(v0->pio_read, 1);
	ck_assert_uint_eq(v0->halt_waited, 1);
	/* HLT exit 100.000010 -> entry 100.000110; halt 94000 ns as reported. */
	ck_assert_double_eq_tol(lat_p50(t, v0, "HLT"), 100000, 1e-6);
	ck_assert_double_eq_tol(lat_p50(t, v0, "PAUSE_INSTRUCTION"), 3000, 1e-6);
	ck_assert_double_eq_tol(ti_q_quantile(&v0->halt, 0.5), 94000, 1e-6);
	ck_assert_double_eq_tol(ti_q_quantile(&v0->blocked, 0.5), 88000, 1e-6);
	ck_assert_double_eq_tol(ti_q_quantile(&v0->wake_to_run, 0.5), 5000, 1e-6);
	ck_assert_double_eq_tol(ti_q_quantile(&v0->preempt_wait, 0.5), 20000, 1e-6);
	/* Running 12 + 395 + 480 us, blocked 88, runnable 5 + 20 (of 1000 us). */
	ck_assert_double_eq_tol(v0->st_ns[TI_RUNNING], 887000, 1e-6);
	ck_assert_double_eq_tol(v0->st_ns[TI_BLOCKED], 88000, 1e-6);
	ck_assert_double_eq_tol(v0->st_ns[TI_RUNNABLE], 25000, 1e-6);
	ck_assert_uint_eq(v0->trans[TI_RUNNING][TI_RUNNABLE], 1);
	/* "CPU 1/KVM" names vCPU 1; it moved from pCPU 2 to 3. */
	v1 = vc(t, "vcpu1");
	ck_assert_uint_eq(ti_exit_count(v1, t, "EXTERNAL_INTERRUPT"), 2);
	ck_assert_uint_eq(v1->migrations, 1);
	/* AMD plugin spelling, unknown vCPU id. */
	ck_assert_uint_eq(ti_exit_count(vc(t, "tid2000"), t, "NPF"), 1);
	ck_assert_uint_eq(t->all.exits, 7);
	ti_free(t);
}
END_TEST

START_TEST(test_ftrace_raw)
{
	struct ti_trace *t = load(FIXTURE("kvm-raw.txt"), TI_FMT_AUTO, 0);
	const struct ti_vcpu *v0, *v1;

	ck_assert_int_eq(t->fmt, TI_FMT_FTRACE);
	ck_assert_uint_eq(t->nskipped, 0);
	ck_assert_uint_eq(t->nevent_lines, 18);
	v0 = vc(t, "vcpu0");
	ck_assert_int_eq(v0->tid, 3000);
	/* Kernel SVM names normalised: npf, pause, hlt, io. */
	ck_assert_uint_eq(ti_exit_count(v0, t, "NPF"), 1);
	ck_assert_uint_eq(ti_exit_count(v0, t, "PAUSE"), 1);
	ck_assert_uint_eq(ti_exit_count(v0, t, "HLT"), 1);
	ck_assert_uint_eq(ti_exit_count(v0, t, "IOIO"), 1);
	ck_assert_uint_eq(v0->ple_exits, 1);
	ck_assert_uint_eq(v0->ple_shrink, 1);
	ck_assert_int_eq(v0->ple_window, 6000);
	ck_assert_uint_eq(v0->hc_yield, 1);
	ck_assert_uint_eq(v0->halt_polled, 1);
	ck_assert_double_eq_tol(lat_p50(t, v0, "HLT"), 75000, 1e-6);
	ck_assert_double_eq_tol(ti_q_quantile(&v0->wake_to_run, 0.5), 2000, 1e-6);
	v1 = vc(t, "vcpu1");
	ck_assert_uint_eq(ti_exit_count(v1, t, "EXCP_GP"), 1);
	ck_assert_uint_eq(ti_exit_count(v1, t, "EXTERNAL_INTERRUPT"), 1);
	ck_assert_int_eq(v1->ple_window, 8192);
	ti_free(t);
}
END_TEST

/* Append one xentrace record (little-endian words). */
static void
xrec(FILE *f, uint32_t ev, int tsc_on, uint64_t tsc, int n, const uint32_t *x)
{
	uint32_t w[10];
	int k = 0, i;

	w[k++] = ev | (uint32_t)n << 28 | (tsc_on ? 1u << 31 : 0);
	if (tsc_on) {
		w[k++] = (uint32_t)tsc;
		w[k++] = (uint32_t)(tsc >> 32);
	}
	for (i = 0; i < n; i++)
		w[k++] = x[i];
	fwrite(w, 4, (size_t)k, f);
}

/* A pCPU window: TRC_TRACE_CPU_CHANGE(cpu, bytes) then the records in buf. */
static void
xwin(FILE *f, int cpu, FILE *body)
{
	char *b;
	long n = ftell(body);
	uint32_t x[2];

	x[0] = (uint32_t)cpu;
	x[1] = (uint32_t)n;
	xrec(f, 0x0001f003, 0, 0, 2, x);
	b = malloc((size_t)n + 1);
	rewind(body);
	ck_assert_int_eq((int)fread(b, 1, (size_t)n, body), (int)n);
	fwrite(b, 1, (size_t)n, f);
	free(b);
	fclose(body);
}

#define RS(o, n) (0x00021001u | (o) << 8 | (n) << 4)

static void
write_xentrace(const char *path, int truncate)
{
	FILE *f = fopen(path, "wb"), *b;
	uint32_t d = 1u << 16 | 0, ex[3] = { 12, 0x1000, 0 };

	ck_assert_ptr_nonnull(f);
	/* pCPU 0, window 1: d1v0 runs, exits on HLT, blocks. */
	b = tmpfile();
	xrec(b, RS(1, 0), 1, 1000, 1, &d);
	xrec(b, 0x00081102, 1, 2000, 3, ex);
	xrec(b, RS(0, 2), 1, 2100, 1, &d);
	xwin(f, 0, b);
	/* pCPU 0, window 2: runs again at 3500 (after the wake on pCPU 1 at
	 * 3000, written last in the file: only a merge by TSC gets this right). */
	b = tmpfile();
	xrec(b, RS(1, 0), 1, 3500, 1, &d);
	xrec(b, 0x00081001, 1, 3600, 0, NULL);
	ex[0] = 40;
	xrec(b, 0x00081102, 1, 4000, 3, ex);
	xrec(b, 0x00081001, 0, 0, 0, NULL);	/* no TSC: takes 4000 */
	xrec(b, 0x00081001, 1, 4100, 0, NULL);
	xwin(f, 0, b);
	b = tmpfile();
	xrec(b, RS(2, 1), 1, 3000, 1, &d);
	xwin(f, 1, b);
	if (truncate)
		xrec(f, 0x00081102, 1, 5000, 0, NULL), fputc(1, f);	/* 1 stray byte */
	fclose(f);
}

START_TEST(test_xentrace_generated)
{
	char path[] = "/tmp/vlocksim-xt-XXXXXX";
	int fd = mkstemp(path);
	struct ti_trace *t;
	const struct ti_vcpu *v;
	char *y1, *y2;

	ck_assert_int_ge(fd, 0);
	close(fd);
	write_xentrace(path, 0);
	t = load(path, TI_FMT_AUTO, 1e9);	/* 1 GHz: a TSC tick is 1 ns */
	ck_assert_int_eq(t->fmt, TI_FMT_XENTRACE);
	ck_assert_uint_eq(t->nevent_lines, 12);
	ck_assert_uint_eq(t->nskipped, 0);
	ck_assert_uint_eq(ti_event_count(t, "trace_cpu_change"), 3);
	v = vc(t, "d1v0");
	ck_assert_uint_eq(ti_exit_count(v, t, "HLT"), 1);
	ck_assert_uint_eq(ti_exit_count(v, t, "PAUSE_INSTRUCTION"), 1);
	ck_assert_uint_eq(v->ple_exits, 1);
	/* The HLT exit's entry comes after the block, wake and run: 3600 - 2000. */
	ck_assert_double_eq_tol(lat_p50(t, v, "HLT"), 1600, 1e-6);
	/* The TSC-less entry right after the PAUSE exit inherits its TSC: 0 ns. */
	ck_assert_uint_eq(v->ex[1].lat.n, 1);
	ck_assert_uint_eq(v->ex[1].lat.zeros, 1);
	ck_assert_double_eq_tol(ti_q_quantile(&v->halt, 0.5), 900, 1e-6);
	ck_assert_double_eq_tol(ti_q_quantile(&v->wake_to_run, 0.5), 500, 1e-6);
	ck_assert_uint_eq(v->trans[TI_RUNNABLE][TI_RUNNING], 2);
	ck_assert_uint_eq(v->trans[TI_BLOCKED][TI_RUNNABLE], 1);
	ck_assert_double_eq_tol(v->st_ns[TI_BLOCKED], 900, 1e-6);
	ck_assert_double_eq_tol(v->st_ns[TI_RUNNING], 1100 + 600, 1e-6);
	y1 = ti_yaml(t);
	ti_free(t);
	/* Same input, same bytes. */
	t = load(path, TI_FMT_XENTRACE, 1e9);
	y2 = ti_yaml(t);
	ck_assert_str_eq(y1, y2);
	ti_free(t);
	free(y1);
	free(y2);
	/* A stray byte at the end is skipped and counted, not fatal. */
	write_xentrace(path, 1);
	t = load(path, TI_FMT_AUTO, 1e9);
	ck_assert_uint_ge(t->nskipped, 1);
	ck_assert_uint_eq(ti_exit_count(vc(t, "d1v0"), t, "HLT"), 1);
	ti_free(t);
	unlink(path);
}
END_TEST

START_TEST(test_xenalyze_summary)
{
	struct ti_trace *t = load(FIXTURE("xenalyze-summary.txt"), TI_FMT_AUTO, 0);
	const struct ti_vcpu *v;

	ck_assert_int_eq(t->fmt, TI_FMT_XENALYZE);
	ck_assert_uint_eq(t->nskipped, 1);
	ck_assert_double_eq_tol(t->cpu_hz, 2e9, 1);
	ck_assert_ptr_null(ti_find_vcpu(t, "d32767v0"));	/* idle domain */
	v = vc(t, "d5v0");
	ck_assert_double_eq_tol(v->st_ns[TI_RUNNING], 1.5e9, 1);
	ck_assert_double_eq_tol(v->st_ns[TI_RUNNABLE], 0.1e9, 1);
	/* Percentiles are cycles at the file's 2 GHz. */
	ck_assert_uint_eq(v->wake_to_run.n, 8);
	ck_assert_double_eq_tol(ti_q_quantile(&v->wake_to_run, 0.5), 10000, 1e-6);
	ck_assert_double_eq_tol(ti_q_quantile(&v->halt, 0.95), 4e6, 1e-3);
	ck_assert_uint_eq(vc(t, "d5v1")->halt.n, 3);
	ti_free(t);
}
END_TEST

START_TEST(test_bad_input)
{
	char path[] = "/tmp/vlocksim-bad-XXXXXX";
	int fd = mkstemp(path);
	struct ti_trace *t;
	struct vs_err err = { "" };
	char want[128];
	FILE *f;

	ck_assert_int_ge(fd, 0);
	f = fdopen(fd, "w");
	fputs("# comment\nhello world\n  [x] 1.0: nothing\n", f);
	fclose(f);
	t = ti_new(0);
	ck_assert_int_eq(ti_import(t, path, TI_FMT_AUTO, &err), -1);
	snprintf(want, sizeof want, "%s:2:1: ", path);
	ck_assert_msg(strncmp(err.msg, want, strlen(want)) == 0, "got: %s", err.msg);
	ti_free(t);
	/* Empty: nothing parses either. */
	f = fopen(path, "w");
	fclose(f);
	t = ti_new(0);
	ck_assert_int_eq(ti_import(t, path, TI_FMT_TRACECMD, &err), -1);
	ck_assert(strstr(err.msg, path) != NULL);
	ti_free(t);
	unlink(path);
	/* Unreadable: the message names the path. */
	t = ti_new(0);
	ck_assert_int_eq(ti_import(t, "/nonexistent/x.txt", TI_FMT_AUTO, &err), -1);
	ck_assert(strstr(err.msg, "/nonexistent/x.txt") != NULL);
	ti_free(t);
	/* A text file given as xentrace. */
	t = ti_new(0);
	ck_assert_int_eq(ti_import(t, FIXTURE("kvm-raw.txt"), TI_FMT_XENTRACE, &err), -1);
	ck_assert(strstr(err.msg, "not a xentrace file") != NULL);
	ti_free(t);
}
END_TEST

START_TEST(test_streaming_bound)
{
	char path[] = "/tmp/vlocksim-big-XXXXXX";
	int fd = mkstemp(path), i;
	struct ti_trace *t;
	const struct ti_vcpu *v;
	FILE *f;

	ck_assert_int_ge(fd, 0);
	f = fdopen(fd, "w");
	for (i = 0; i < 30000; i++) {
		long us = 10L * i;

		fprintf(f, " qemu-system-x86-77 [001] %ld.%06ld: kvm_exit: reason HLT rip 0x1 info 0 0\n",
		    us / 1000000, us % 1000000);
		fprintf(f, " qemu-system-x86-77 [001] %ld.%06ld: kvm_entry: vcpu 0 rip 0x1\n",
		    (us + 1 + i % 7) / 1000000, (us + 1 + i % 7) % 1000000);
	}
	fclose(f);
	t = load(path, TI_FMT_AUTO, 0);
	v = vc(t, "vcpu0");
	ck_assert_uint_eq(v->exits, 30000);
	ck_assert_uint_eq(v->ex[0].lat.n, 30000);
	ck_assert_uint_eq(v->ex[0].lat.nres, TI_RESERVOIR);	/* bounded */
	ck_assert_uint_le(v->ex[0].lat.cap, 2 * TI_RESERVOIR);
	ck_assert_double_eq_tol(ti_q_quantile(&v->ex[0].lat, 0.5), 4000, 100);
	ti_free(t);
	unlink(path);
}
END_TEST

START_TEST(test_yaml_loads)
{
	struct ti_trace *t = load(FIXTURE("kvm-plugin.txt"), TI_FMT_AUTO, 0);
	char *y = ti_yaml(t);
	struct vs_err err = { "" };
	struct yc_doc *d = yc_load_string("import.yaml", y, &err);
	struct yc_node *n;
	struct dist *dd;

	ck_assert_msg(d != NULL, "YAML does not load: %s", err.msg);
	n = yc_lookup(yc_root(d), "vcpus.vcpu0.exit_latency.HLT");
	ck_assert_ptr_nonnull(n);
	dd = dist_from_yaml(n, UNIT_TIME, 0, &err);
	ck_assert_msg(dd != NULL, "not a distribution: %s", err.msg);
	ck_assert_double_eq_tol(dist_mean(dd), 100000, 1e-3);
	dist_free(dd);
	n = yc_lookup(yc_root(d), "overall.exit_rate.HLT");
	ck_assert_ptr_nonnull(n);
	ck_assert_str_eq(n->text, "1000");
	ck_assert_ptr_nonnull(yc_lookup(yc_root(d), "vcpus.vcpu0.runstate_share.running"));
	yc_free(d);
	free(y);
	ti_free(t);
}
END_TEST

static int
have_shared(const char *f)
{
	char p[512];

	snprintf(p, sizeof p, SHARED "%s", f);
	if (access(p, R_OK) != 0) {
		printf("skip: %s not present\n", p);
		return 0;
	}
	return 1;
}

/* Golden counts from traces/README.md (sample X1). */
START_TEST(test_real_x1)
{
	static const struct { const char *r; uint64_t n; } want[] = {
		{ "VMCALL", 1803 }, { "PENDING_INTERRUPT", 1697 },
		{ "EXTERNAL_INTERRUPT", 1509 }, { "HLT", 391 }, { "EPT_VIOLATION", 282 },
		{ "IO_INSTRUCTION", 105 }, { "CPUID", 84 }, { "APIC_ACCESS", 2 } };
	struct ti_trace *t;
	size_t i;

	t = load(SAMPLE("xen/xentrace-vmx-credit2-8pcpu.bin"), TI_FMT_AUTO, 0);
	ck_assert_uint_eq(t->nevent_lines, 180680);
	ck_assert_uint_eq(ti_event_count(t, "trace_cpu_change"), 187);
	ck_assert_uint_eq(t->all.exits, 5873);
	for (i = 0; i < sizeof want / sizeof want[0]; i++)
		ck_assert_msg(ti_exit_count(&t->all, t, want[i].r) == want[i].n, "%s: %llu",
		    want[i].r, (unsigned long long)ti_exit_count(&t->all, t, want[i].r));
	ck_assert_uint_eq(ti_event_count(t, "hvm_vmentry"), 5873);
	/* Runstate records, idle domain included (its vCPUs are not reported). */
	ck_assert_uint_eq(ti_event_count(t, "runstate_change.runnable->running"), 10082);
	ck_assert_uint_eq(ti_event_count(t, "runstate_change.running->runnable"), 5091);
	ck_assert_uint_eq(ti_event_count(t, "runstate_change.running->blocked"), 4884);
	ck_assert_uint_eq(ti_event_count(t, "runstate_change.blocked->runnable"), 4885);
	ck_assert_uint_eq(ti_event_count(t, "runstate_change.running->offline"), 107);
	ck_assert_uint_eq(ti_event_count(t, "runstate_change.offline->runnable"), 107);
	/* Guest vCPUs only: every block of d0/d14 was seen as a transition. */
	ck_assert_uint_eq(t->all.trans[TI_RUNNING][TI_BLOCKED], 4884);
	ck_assert_uint_eq(ti_event_count(t, "continue_running"), 153);
	/* dom0 v0-7 and d14 v0-3. */
	ck_assert_ptr_nonnull(ti_find_vcpu(t, "d0v7"));
	ck_assert_ptr_nonnull(ti_find_vcpu(t, "d14v3"));
	ck_assert_ptr_null(ti_find_vcpu(t, "d14v4"));
	ti_free(t);
}
END_TEST

START_TEST(test_real_kvm)
{
	static const struct { const char *r; uint64_t n; } k1[] = {
		{ "MSR_WRITE", 506 }, { "HLT", 217 }, { "EPT_MISCONFIG", 66 },
		{ "PREEMPTION_TIMER", 13 }, { "EXTERNAL_INTERRUPT", 5 }, { "EOI_INDUCED", 3 } };
	static const struct { const char *r; uint64_t n; } k2[] = {
		{ "APIC_WRITE", 8445 }, { "HLT", 3778 }, { "EPT_MISCONFIG", 1289 },
		{ "EXTERNAL_INTERRUPT", 207 }, { "PREEMPTION_TIMER", 163 },
		{ "EPT_VIOLATION", 90 }, { "IO_INSTRUCTION", 78 }, { "EOI_INDUCED", 38 },
		{ "PAUSE_INSTRUCTION", 33 }, { "CPUID", 10 }, { "MSR_READ", 1 } };
	struct ti_trace *t;
	size_t i;

	if (have_shared("kvm/trace-cmd-report-host-1vcpu-pinned.txt")) {
		t = load(SHARED "kvm/trace-cmd-report-host-1vcpu-pinned.txt", TI_FMT_AUTO, 0);
		ck_assert_uint_eq(t->nevent_lines, 16671);
		ck_assert_uint_eq(t->nskipped, 0);
		ck_assert_uint_eq(t->all.exits, 810);
		for (i = 0; i < sizeof k1 / sizeof k1[0]; i++)
			ck_assert_uint_eq(ti_exit_count(&t->all, t, k1[i].r), k1[i].n);
		ck_assert_uint_eq(ti_event_count(t, "kvm_entry"), 806);
		ck_assert_uint_eq(ti_event_count(t, "sched_switch"), 515);
		ck_assert_uint_eq(ti_event_count(t, "sched_waking"), 274);
		ck_assert_uint_eq(ti_event_count(t, "sched_wakeup"), 256);
		ck_assert_uint_eq(ti_event_count(t, "kvm_vcpu_wakeup"), 215);
		ck_assert_uint_eq(vc(t, "vcpu0")->halt.n, 215);
		ck_assert_int_eq(vc(t, "vcpu0")->tid, 150750);
		ti_free(t);
	}
	if (have_shared("kvm/trace-cmd-report-kvm_exit-unpinned.txt")) {
		t = load(SHARED "kvm/trace-cmd-report-kvm_exit-unpinned.txt", TI_FMT_AUTO, 0);
		ck_assert_uint_eq(t->all.exits, 14132);
		for (i = 0; i < sizeof k2 / sizeof k2[0]; i++)
			ck_assert_uint_eq(ti_exit_count(&t->all, t, k2[i].r), k2[i].n);
		ck_assert_uint_eq(t->all.ple_exits, 33);
		ck_assert_uint_eq(vc(t, "tid3927")->exits, 14132);
		ti_free(t);
	}
}
END_TEST

START_TEST(test_real_xenalyze)
{
	struct ti_trace *t;
	const struct ti_vcpu *v;

	t = load(SAMPLE("xen/xenalyze-summary-64pcpu.txt"), TI_FMT_AUTO, 0);
	ck_assert_double_eq_tol(t->summary_seconds, 8.72, 1e-9);
	ck_assert_uint_eq(t->nskipped, 0);
	/* traces/README.md X3: Domain 3, 8 vCPUs; v1 running 1245 times for 8.65 s. */
	v = vc(t, "d3v1");
	ck_assert_double_eq_tol(v->st_ns[TI_RUNNING], 8.65e9, 1);
	ck_assert_uint_eq(v->halt.n, 258);
	ck_assert_ptr_nonnull(ti_find_vcpu(t, "d3v7"));
	ck_assert_ptr_null(ti_find_vcpu(t, "d3v8"));
	ti_free(t);
}
END_TEST

/* The kernel profile (trace_kprof.h) of a real excerpt: 1800 lines of `perf
 * script --ns` of bench/profile/record.sh's kernel build (kbuild-j2), with the
 * counts below taken from the file by grep (5 contentions whose chain has
 * raw_spin_rq_lock under __schedule, 3 under try_to_wake_up, ...). */
START_TEST(test_kprof_kbuild)
{
	struct ti_trace *t = ti_new(0);
	struct vs_err err = { "" };
	struct ti_kclass c;
	double busy, k;
	size_t i, seen = 0;

	t->guest_only = 1;
	if (ti_import(t, FIXTURE("perf-script-kbuild.txt"), TI_FMT_AUTO, &err) != 0)
		ck_abort_msg("import failed: %s", err.msg);
	ck_assert_uint_eq(t->nskipped, 0);
	ck_assert(ti_kprof_present(t));
	busy = ti_kprof_busy_s(t);
	ck_assert_double_eq_tol(busy, 0.083, 1e-12);	/* 83 task_clock samples of 1 ms */
	ck_assert_double_eq_tol(ti_kprof_rate(t, "fork"), 24 / busy, 1e-9);
	ck_assert_double_eq_tol(ti_kprof_rate(t, "exit"), 20 / busy, 1e-9);
	ck_assert_double_eq_tol(ti_kprof_rate(t, "page_faults"), 71 * 100 / busy, 1e-6);
	ck_assert_double_eq_tol(ti_kprof_rate(t, "tlb_shootdown_sent"), 9 / busy, 1e-9);
	ck_assert_double_eq_tol(ti_kprof_rate(t, "ipi_wakeup"), 5 / busy, 1e-9);
	ck_assert_double_eq_tol(ti_kprof_rate(t, "ipi_resched"), 5 / busy, 1e-9);
	ck_assert(isnan(ti_kprof_rate(t, "no such rate")));
	ck_assert_uint_eq(ti_kprof_nclasses(t), 4);
	k = ti_kprof_concurrency(t);
	ck_assert(k > 1 && k < 2);
	for (i = 0; i < ti_kprof_nclasses(t); i++) {
		ti_kprof_class(t, i, &c);
		if (strcmp(c.name, "rq->__lock") == 0) {
			ck_assert_uint_eq(c.contentions, 5);
			ck_assert(!c.sleeping && !c.recorder);
			/* c = (k - 1) lambda^2 H with H = median wait / ln 2 */
			ck_assert_double_eq_tol(c.hold_ns, c.wait_p50_ns / M_LN2, 1e-6);
			ck_assert_double_eq_tol(c.acq_per_cpu_s * c.acq_per_cpu_s * (k - 1) *
			    c.hold_ns * 1e-9, c.contentions_per_cpu_s, 1e-6);
			seen++;
		} else if (strcmp(c.name, "p->pi_lock") == 0) {
			ck_assert_uint_eq(c.contentions, 3);
			ck_assert_str_eq(c.top_site, "try_to_wake_up");
			seen++;
		} else if (strcmp(c.name, "lruvec->lru_lock") == 0) {
			/* one contention: begin 1285.027560800, end 1285.027572430 */
			ck_assert_uint_eq(c.contentions, 1);
			ck_assert_double_eq_tol(c.wait_mean_ns, 11630, 1e-6);
			ck_assert_str_eq(c.flags, "SPIN");
			seen++;
		} else if (strcmp(c.name, "perf (the recorder's own)") == 0) {
			ck_assert_uint_eq(c.contentions, 2);
			ck_assert(c.recorder);
			ck_assert(isnan(c.acq_per_cpu_s));
			seen++;
		}
	}
	ck_assert_uint_eq(seen, 4);
	ti_free(t);
}
END_TEST

/* perf script's period column, an all-hex comm that is no call-chain frame,
 * and a contention nested in another (an rwsem's wait_lock in its slow path). */
START_TEST(test_kprof_lines)
{
	static const char txt[] =
	    "dd  1234 [001]  5.000000000:    1000000  task_clock: \n"
	    "\tffffffff81000000 rmqueue_bulk+0x10 ([kernel.kallsyms])\n"
	    "\n"
	    "dd  1234 [001]  5.000001000:          1  lock:contention_begin: 0xff00 (flags=WRITE)\n"
	    "\tffffffff81000010 rwsem_down_write_slowpath\n"
	    "\tffffffff81000020 down_write_killable\n"
	    "\tffffffff81000030 vm_mmap_pgoff\n"
	    "\n"
	    "dd  1234 [001]  5.000002000:          1  lock:contention_begin: 0xff08 (flags=SPIN)\n"
	    "\tffffffff81000040 __pv_queued_spin_lock_slowpath\n"
	    "\tffffffff81000050 _raw_spin_lock_irq\n"
	    "\tffffffff81000010 rwsem_down_write_slowpath\n"
	    "\tffffffff81000030 vm_mmap_pgoff\n"
	    "\n"
	    "dd  1234 [001]  5.000003000:          1  lock:contention_end: 0xff08 (ret=0)\n"
	    "dd  1234 [001]  5.000009000:          1  lock:contention_end: 0xff00 (ret=0)\n"
	    "dd  1234 [000]  5.000010000:    1000000  task_clock: \n";
	char path[] = "/tmp/vlocksim-kprof-XXXXXX";
	int fd = mkstemp(path);
	struct ti_trace *t = ti_new(0);
	struct vs_err err = { "" };
	struct ti_kclass c;
	size_t i;

	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(write(fd, txt, sizeof txt - 1), (ssize_t)(sizeof txt - 1));
	close(fd);
	t->guest_only = 1;
	ck_assert_int_eq(ti_import(t, path, TI_FMT_AUTO, &err), 0);
	unlink(path);
	ck_assert_uint_eq(t->nskipped, 0);
	ck_assert_uint_eq(t->nevent_lines, 6);
	ck_assert_double_eq_tol(ti_kprof_busy_s(t), 0.002, 1e-12);
	ck_assert_uint_eq(ti_kprof_nclasses(t), 2);
	for (i = 0; i < 2; i++) {
		ti_kprof_class(t, i, &c);
		if (strcmp(c.name, "mmap_lock") == 0) {
			ck_assert(c.sleeping);
			ck_assert_uint_eq(c.nested, 0);
			ck_assert_double_eq_tol(c.wait_mean_ns, 8000, 1e-9);
		} else {
			ck_assert_str_eq(c.name, "mmap_lock wait_lock");
			ck_assert(!c.sleeping);
			ck_assert_uint_eq(c.nested, 1);
			ck_assert_double_eq_tol(c.wait_mean_ns, 1000, 1e-9);
		}
	}
	ti_free(t);
}
END_TEST

static Suite *
trace_suite(void)
{
	Suite *s = suite_create("trace");
	TCase *tc = tcase_create("core");

	tcase_set_timeout(tc, 0);
	tcase_add_test(tc, test_fit_families);
	tcase_add_test(tc, test_fit_gsl_failure);
	tcase_add_test(tc, test_trace_cmd_plugin);
	tcase_add_test(tc, test_ftrace_raw);
	tcase_add_test(tc, test_xentrace_generated);
	tcase_add_test(tc, test_xenalyze_summary);
	tcase_add_test(tc, test_bad_input);
	tcase_add_test(tc, test_streaming_bound);
	tcase_add_test(tc, test_yaml_loads);
	tcase_add_test(tc, test_real_x1);
	tcase_add_test(tc, test_real_kvm);
	tcase_add_test(tc, test_real_xenalyze);
	tcase_add_test(tc, test_kprof_kbuild);
	tcase_add_test(tc, test_kprof_lines);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	SRunner *sr = srunner_create(trace_suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
