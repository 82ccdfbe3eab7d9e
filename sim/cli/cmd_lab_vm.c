/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * cmd_lab_vm.c - `vlocksim lab-vm`: lockbench inside a guest, over the
 * settings a VM lock study varies: vCPUs 1x-3x the pCPUs, vCPU threads
 * pinned or floating, the guest's PV spinlocks on or off (nopvspin), the
 * host's halt polling on or off (halt_poll_ns), each a boot of QEMU with
 * an initramfs of busybox-static and a static lockbench (lab_vm.c).
 *
 * It first asks whether /dev/kvm can run a stock guest (lab_vm_can_kvm):
 * a PVM host (kvm_pvm, no VMX/SVM) cannot, and the command says why and
 * exits 4.  --accel tcg runs the same plumbing under QEMU's emulation: the
 * files and their parsing are real, the timings meaningless (every file
 * says so).
 */
#include "config.h"

#include <errno.h>
#include <glob.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cmd.h"
#include "lab.h"

#define LAB_VM_EXIT_NO_KVM 4	/* this machine's /dev/kvm cannot run a stock guest */
#define HALT_POLL "/sys/module/kvm/parameters/halt_poll_ns"

/* --vcpus, --pin, --pvspin, --halt-poll: a list of values */
struct vm_list {
	int v[8], n;
};

struct lab_vm_args {
	const char *out, *name, *kernel, *busybox, *lockbench, *qemu;
	int accel;			/* 0 kvm, 1 tcg */
	int check, perf_kvm;
	long long mem_mb, timeout_s;
	struct vm_list mult;		/* vCPUs as multiples of the pCPUs */
	struct vm_list pin;		/* 0 floating, 1 pinned */
	struct vm_list pv;		/* 1 PV spinlocks, 0 nopvspin */
	struct vm_list hp;		/* 1 halt polling as the host has it, 0 off */
	char **bench;			/* after --: lockbench's own options */
	int nbench;
};

/* "w1,w2" of words[i] -> vals[i] (words NULL-terminated) */
static int
word_list(const char *arg, struct vm_list *l, const char *const *words, const int *vals,
    const char **why)
{
	char *s = xstrdup(arg), *tok, *save;
	int i;

	l->n = 0;
	for (tok = strtok_r(s, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		for (i = 0; words[i] != NULL && strcmp(words[i], tok) != 0; i++)
			;
		if (words[i] == NULL || l->n == 8) {
			free(s);
			*why = words[0][0] == 'n' ? "is a list of no and yes" :
			    "is a list of on and off";
			return -1;
		}
		l->v[l->n++] = vals[i];
	}
	free(s);
	if (l->n == 0) {
		*why = "is an empty list";
		return -1;
	}
	return 0;
}

static int
parse_noyes(const char *arg, void *field, const char **why)
{
	static const char *const w[] = { "no", "yes", NULL };
	static const int v[] = { 0, 1 };

	return word_list(arg, field, w, v, why);
}

static int
parse_onoff(const char *arg, void *field, const char **why)
{
	static const char *const w[] = { "on", "off", NULL };
	static const int v[] = { 1, 0 };

	return word_list(arg, field, w, v, why);
}

static int
parse_mult(const char *arg, void *field, const char **why)
{
	struct vm_list *l = field;
	char *s = xstrdup(arg), *tok, *save, *end;

	l->n = 0;
	for (tok = strtok_r(s, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		long v = strtol(tok, &end, 10);

		if (*end != '\0' || v < 1 || v > 8 || l->n == 8) {
			free(s);
			*why = "must be a list of integers in [1, 8]";
			return -1;
		}
		l->v[l->n++] = (int)v;
	}
	free(s);
	if (l->n == 0) {
		*why = "must be a list of integers in [1, 8]";
		return -1;
	}
	return 0;
}

#define A(f) OPT_AT(struct lab_vm_args, f)
static const struct opt_decl lab_vm_opts[] = {
	{ "accel", 0, "kvm|tcg", OPT_ENUM, A(accel),
	  .help = "run the guests under KVM (the default) or QEMU's emulation (TCG: the "
	  "files and their parsing real, the timings meaningless)" },
	{ "check", 0, NULL, OPT_FLAG, A(check),
	  .help = "only say whether /dev/kvm here can run a stock guest (exit 0, or 4 and "
	  "why)" },
	{ "out", 0, "DIR", OPT_STR, A(out),
	  .help = "the folder (default out/lab-vm): SETTING-measured.csv, "
	  "SETTING-lab-table.csv, SETTING-lockbench*.csv, SETTING-console.log, "
	  "SETTING-qemu.txt, lab-vm.txt",
	  .man = "SETTING is vM-pin|float-pv|nopv-hp|nohp (tcg for the last under TCG).  "
	  "Written whole or not at all." },
	{ "name", 0, "NAME", OPT_STR, A(name), .help = "the measurement's name (default lab-vm)" },
	{ "vcpus", 0, "M,...", OPT_FN, A(mult), .parse = parse_mult,
	  .help = "vCPUs as multiples of the CPUs, one boot each (default 1,2,3)" },
	{ "pin", 0, "no,yes", OPT_FN, A(pin), .parse = parse_noyes,
	  .help = "vCPU threads floating, or pinned vCPU n -> CPU n mod the CPUs (default "
	  "both)" },
	{ "pvspin", 0, "on,off", OPT_FN, A(pv), .parse = parse_onoff,
	  .help = "the guest's PV spinlocks, or nopvspin on its command line (default both)" },
	{ "halt-poll", 0, "on,off", OPT_FN, A(hp), .parse = parse_onoff,
	  .help = "the host's halt polling as it is, or halt_poll_ns 0 (restored after; "
	  "KVM only; default both)" },
	{ "kernel", 0, "VMLINUZ", OPT_STR, A(kernel),
	  .help = "the guest kernel (default the last /boot/vmlinuz-*)" },
	{ "busybox", 0, "PATH", OPT_STR, A(busybox),
	  .help = "a static busybox (default /bin/busybox: Debian's busybox-static)" },
	{ "lockbench", 0, "PATH", OPT_STR, A(lockbench),
	  .help = "a static lockbench (default bench/lab/lockbench-static of the build tree: "
	  "make builds it, make install does not)" },
	{ "qemu", 0, "PATH", OPT_STR, A(qemu),
	  .help = "QEMU (default qemu-system-x86_64 on the PATH)" },
	{ "mem", 0, "MIB", OPT_INT, A(mem_mb), .min = 64, .max = 65536,
	  .help = "the guest's memory (default 512)" },
	{ "timeout", 0, "S", OPT_INT, A(timeout_s), .min = 1, .max = 86400,
	  .help = "kill a guest that has not powered off after S seconds (default 300; "
	  "900 under TCG)" },
	{ "perf-kvm", 0, NULL, OPT_FLAG, A(perf_kvm),
	  .help = "record perf kvm stat of the host's exits beside each boot "
	  "(SETTING-kvm-exits.txt; KVM only)" },
	{ NULL }
};
#undef A

static int
parse_lab_vm_args(int argc, char **argv, void *args)
{
	struct lab_vm_args *o = args;
	int next;

	*o = (struct lab_vm_args){ .out = "out/lab-vm", .name = "lab-vm",
	    .busybox = "/bin/busybox", .qemu = "qemu-system-x86_64", .mem_mb = 512,
	    .mult = { { 1, 2, 3 }, 3 }, .pin = { { 0, 1 }, 2 }, .pv = { { 1, 0 }, 2 },
	    .hp = { { 1, 0 }, 2 } };
	if (opt_parse(&cmd_lab_vm_entry, argc, argv, o, &next))
		return CMD_EXIT_INPUT;
	if (next < argc && strcmp(argv[next - 1], "--") != 0) {
		fprintf(stderr, "vlocksim lab-vm: unexpected argument '%s' (lockbench's options "
		    "go after --)\n", argv[next]);
		cmd_try("lab-vm");
		return CMD_EXIT_INPUT;
	}
	o->bench = argv + next;
	o->nbench = argc - next;
	return 0;
}

/* The newest /boot/vmlinuz-* (glob sorts; "newest" by version order is
 * what sort -V would say, the last by name is near enough for Debian's). */
static char *
default_kernel(void)
{
	glob_t g;
	char *k = NULL;

	if (glob("/boot/vmlinuz-*", 0, NULL, &g) == 0 && g.gl_pathc > 0)
		k = xstrdup(g.gl_pathv[g.gl_pathc - 1]);
	globfree(&g);
	return k;
}

static char *
find_in_path(const char *prog)
{
	const char *path = getenv("PATH");
	char *copy, *dir, *save, *p;

	if (strchr(prog, '/') != NULL)
		return access(prog, X_OK) == 0 ? xstrdup(prog) : NULL;
	copy = xstrdup(path != NULL ? path : "/usr/bin:/bin");
	for (dir = strtok_r(copy, ":", &save); dir; dir = strtok_r(NULL, ":", &save)) {
		p = xasprintf("%s/%s", dir, prog);
		if (access(p, X_OK) == 0) {
			free(copy);
			return p;
		}
		free(p);
	}
	free(copy);
	return NULL;
}

/* lockbench-static beside lockbench (the build tree's or the installed one). */
static char *
static_lockbench(const char *given)
{
	char *lb, *s;

	if (given != NULL)
		return access(given, R_OK) == 0 ? xstrdup(given) : NULL;
	if ((lb = lab_lockbench_find(NULL)) == NULL)
		return NULL;
	s = xasprintf("%s-static", lb);
	free(lb);
	if (access(s, R_OK) != 0) {
		free(s);
		return NULL;
	}
	return s;
}

static int
read_halt_poll(long long *v)
{
	FILE *f = fopen(HALT_POLL, "r");
	int ok;

	if (f == NULL)
		return -1;
	ok = fscanf(f, "%lld", v) == 1;
	fclose(f);
	return ok ? 0 : -1;
}

static int hp_touched;	/* halt_poll_ns was written: restore it */

static int
write_halt_poll(long long v, struct vs_err *err)
{
	FILE *f = fopen(HALT_POLL, "w");

	hp_touched = 1;

	if (f == NULL || fprintf(f, "%lld\n", v) < 0 || fclose(f) != 0)
		return vs_errf(err, NULL, 0, 0, "vlocksim lab-vm: %s: %s (halt polling off needs "
		    "root)", HALT_POLL, strerror(errno));
	return 0;
}

/* One boot: SETTING-* files in stage, the rows appended to summary. */
static int
one_setting(const struct lab_vm_args *o, const char *stage, const char *initrd,
    const char *kernel, const char *qemu, const struct lab_host *h, int mult, int pin,
    int pv, int hp, long long hp_host, FILE *summary, struct vs_err *err)
{
	char *set = xasprintf("v%d-%s-%s-%s", mult, pin ? "pin" : "float", pv ? "pv" : "nopv",
	    o->accel ? "tcg" : hp ? "hp" : "nohp");
	char *console = xasprintf("%s/%s-console.log", stage, set);
	char *output = xasprintf("%s/%s-output.txt", stage, set);
	char *qlog = xasprintf("%s/%s-qemu.log", stage, set);
	char *perf = NULL, *plog = NULL, *ghdr = NULL, *setting = NULL, *p, *text;
	struct lab_vm_cfg c = {
		.qemu = qemu, .kernel = kernel, .initrd = initrd, .console = console,
		.output = output, .kvm = !o->accel, .vcpus = mult * h->cpus, .cpus = h->cpus,
		.mem_mb = o->mem_mb, .pin = pin, .pvspin = pv, .timeout_s = o->timeout_s,
	};
	struct lab_vm_result r = { 0 };
	struct lab_bench b = { 0 };
	struct lab_case lc = { 0 };
	char **argv = lab_vm_argv(&c), *models = NULL, date[32];
	time_t now = time(NULL);
	int rc = -1, i;
	FILE *q;

	if (!o->accel && hp_host >= 0 && write_halt_poll(hp ? hp_host : 0, err))
		goto out;
	if (o->perf_kvm && !o->accel) {
		perf = xasprintf("%s/%s-perf-kvm.data", stage, set);
		plog = xasprintf("%s/%s-perf.log", stage, set);
	}
	fprintf(stderr, "vlocksim lab-vm: %s: %d vCPUs on %d CPUs, booting\n", set, c.vcpus,
	    h->cpus);
	if (lab_vm_run(&c, argv, qlog, perf, plog, &r, err))
		goto out;
	if (lab_vm_split(output, stage, &ghdr, err))
		goto out;
	/* lockbench.csv and -threads.csv, as the guest wrote them, under the setting's name */
	{
		static const char *const parts[] = { "lockbench.csv", "lockbench-threads.csv" };

		for (i = 0; i < 2; i++) {
			char *a = xasprintf("%s/%s", stage, parts[i]);
			char *d = xasprintf("%s/%s-%s", stage, set, parts[i]);

			if (rename(a, d) != 0) {
				vs_errf(err, NULL, 0, 0, "vlocksim lab-vm: %s: %s", d, strerror(errno));
				free(a);
				free(d);
				goto out;
			}
			free(a);
			free(d);
		}
	}
	{
		char *lv[] = { (char *)o->lockbench, (char *)"--list", NULL };

		if (lab_capture(lv, &models, err))
			goto out;
	}
	p = xasprintf("%s/%s-lockbench.csv", stage, set);
	i = lab_bench_load(&b, p, models, 1, 1, err);
	free(p);
	if (i)
		goto out;
	setting = xasprintf("a QEMU guest (%s), %d vCPUs on %d CPUs, %s; guest PV spinlocks "
	    "%s; host halt polling %s; guest kernel %s; %s", o->accel ? "TCG emulation: timings "
	    "meaningless" : "KVM", c.vcpus, h->cpus, r.pinning ? r.pinning : "floating",
	    pv ? "on" : "off (nopvspin)", o->accel ? "n/a (TCG)" : hp ? "as the host has it" :
	    "off (halt_poll_ns 0)", kernel, ghdr ? strtok(ghdr, "\n") : "");
	strftime(date, sizeof date, "%Y-%m-%dT%H:%MZ", gmtime(&now));
	lc = (struct lab_case){ .name = o->name, .date = date, .setting = setting,
		.max_others = 1, .max_steal = 1 };
	if (lab_write_measured(stage, set, &lc, h, &b, err))
		goto out;
	/* QEMU's command line and messages, together */
	p = xasprintf("%s/%s-qemu.txt", stage, set);
	if ((q = fopen(p, "w")) != NULL) {
		fputs("# the command line\n", q);
		for (i = 0; argv[i] != NULL; i++)
			fprintf(q, "%s%s", i ? " " : "", argv[i]);
		fprintf(q, "\n# pinning: %s\n# seconds to power-off: %.0f\n# QEMU's own "
		    "messages\n", r.pinning ? r.pinning : "none (floating)", r.seconds);
		text = lab_read_text(qlog, err);
		if (text != NULL)
			fputs(text, q);
		free(text);
		fclose(q);
	}
	free(p);
	unlink(qlog);
	unlink(output);
	if (perf != NULL) {
		char *kv[] = { (char *)"perf", (char *)"kvm", (char *)"stat", (char *)"report",
			(char *)"-i", perf, NULL };

		p = xasprintf("%s/%s-kvm-exits.txt", stage, set);
		if (!r.perf_ok || lab_spawn(kv, p, err) != 0) {
			fprintf(stderr, "vlocksim lab-vm: %s: perf kvm stat failed (see %s); no "
			    "exit counts\n", set, plog);
			unlink(p);
		}
		free(p);
		unlink(perf);
	}
	for (i = 0; i < b.nrows; i++)
		fprintf(summary, "%-22s %-9s %7d %12.5g %10.3g %12.5g %6.3f%s\n", set, b.rows[i].lock,
		    b.rows[i].threads, b.rows[i].s[LC_OPS].mean, b.rows[i].s[LC_OPS].sd,
		    b.rows[i].s[LC_WAIT].mean, b.rows[i].s[LC_JAIN].mean,
		    b.rows[i].invalid ? " INVALID" : "");
	rc = 0;
out:
	lab_bench_free(&b);
	lab_vm_argv_free(argv);
	free(r.pinning);
	free(models);
	free(setting);
	free(ghdr);
	free(set);
	free(console);
	free(output);
	free(qlog);
	free(perf);
	free(plog);
	return rc;
}

static int
run_lab_vm(const void *args, struct cmd_mpi *mp)
{
	struct lab_vm_args o = *(const struct lab_vm_args *)args;
	struct lab_vm_probe probe;
	struct lab_host h;
	struct vs_err err;
	char *why = NULL, *kernel = NULL, *lockbench = NULL, *qemu = NULL, *stage = NULL;
	char *initrd = NULL, *sum = NULL, *bench_lb = NULL;
	char **bargs = NULL;
	size_t sumlen = 0;
	long long hp_host = -1;
	int rc = CMD_EXIT_INPUT, i, a, b, c, d, can;
	FILE *summary = NULL;

	(void)mp;
	lab_host_read(&h);
	lab_vm_probe_read(&probe);
	can = lab_vm_can_kvm(&probe, &why);
	if (o.check) {
		if (can)
			printf("vlocksim lab-vm: /dev/kvm here can run a stock guest (KVM API 12, "
			    "%s)\n", probe.kvm_intel ? "kvm_intel" : "kvm_amd");
		else
			printf("vlocksim lab-vm: /dev/kvm here cannot run a stock guest: %s\n", why);
		free(why);
		return can ? 0 : LAB_VM_EXIT_NO_KVM;
	}
	if (!can && !o.accel) {
		fprintf(stderr, "vlocksim lab-vm: this machine cannot run the guest under KVM: %s; "
		    "nothing measured (--accel tcg runs it emulated: files real, timings "
		    "meaningless)\n", why);
		free(why);
		return LAB_VM_EXIT_NO_KVM;
	}
	free(why);
	if (o.timeout_s == 0)
		o.timeout_s = o.accel ? 900 : 300;
	if ((kernel = o.kernel ? xstrdup(o.kernel) : default_kernel()) == NULL ||
	    access(kernel, R_OK) != 0) {
		fprintf(stderr, "vlocksim lab-vm: no readable guest kernel%s%s (--kernel; "
		    "Debian's linux-image-amd64 installs /boot/vmlinuz-*)\n", kernel ? ": " : "",
		    kernel ? kernel : "");
		goto out;
	}
	if ((qemu = find_in_path(o.qemu)) == NULL) {
		fprintf(stderr, "vlocksim lab-vm: %s not found (Debian: qemu-system-x86)\n", o.qemu);
		goto out;
	}
	if (!lab_vm_is_static(o.busybox)) {
		fprintf(stderr, "vlocksim lab-vm: %s is not a static x86-64 busybox (--busybox; "
		    "Debian: busybox-static)\n", o.busybox);
		goto out;
	}
	if ((lockbench = static_lockbench(o.lockbench)) == NULL ||
	    !lab_vm_is_static(lockbench)) {
		fprintf(stderr, "vlocksim lab-vm: no static lockbench%s%s (--lockbench; make "
		    "builds bench/lab/lockbench-static where the C library links statically)\n",
		    lockbench ? ": not static: " : "", lockbench ? lockbench : "");
		goto out;
	}
	/* lockbench's options fail here, on the host's copy, before any boot */
	bargs = xcalloc((size_t)o.nbench + 1, sizeof *bargs);
	for (i = 0; i < o.nbench; i++)
		bargs[i] = o.bench[i];
	{
		char **dv = xcalloc((size_t)o.nbench + 3, sizeof *dv), *text;

		dv[0] = lockbench;
		for (i = 0; i < o.nbench; i++)
			dv[i + 1] = o.bench[i];
		dv[o.nbench + 1] = (char *)"--dry-run";
		i = lab_capture(dv, &text, &err);
		free(dv);
		if (i) {
			fprintf(stderr, "vlocksim lab-vm: lockbench refused the options (above)\n");
			goto out;
		}
		free(text);
	}
	bench_lb = xstrdup(lockbench);
	o.lockbench = bench_lb;
	rc = CMD_EXIT_FAIL;
	if (!o.accel && o.hp.n > 0 && (o.hp.n > 1 || o.hp.v[0] == 0) && read_halt_poll(&hp_host)) {
		fprintf(stderr, "vlocksim lab-vm: %s unreadable: halt polling stays as it is\n",
		    HALT_POLL);
		o.hp.n = 1;
		o.hp.v[0] = 1;
	}
	if (o.accel)
		o.hp.n = 1;	/* halt polling is KVM's */
	if ((stage = cmd_stage_begin(o.out, &err)) == NULL)
		goto fail;
	initrd = xasprintf("%s/lab-vm.cpio", stage);
	if (lab_vm_initramfs(initrd, o.busybox, lockbench, bargs, &err))
		goto fail;
	if ((summary = open_memstream(&sum, &sumlen)) == NULL)
		vs_fatal("out of memory");
	fprintf(summary, "# vlocksim lab-vm on %s: lockbench in a guest of %s (%d CPUs, kernel %s)"
	    "\n# guest kernel %s; %s\n%-22s %-9s %7s %12s %10s %12s %6s\n", h.hostname, h.cpu,
	    h.cpus, h.kernel, kernel, o.accel ? "QEMU TCG: emulated, timings meaningless" :
	    "KVM", "setting", "lock", "threads", "ops_per_sec", "sd", "wait_ns", "jain");
	for (a = 0; a < o.mult.n; a++)
		for (b = 0; b < o.pin.n; b++)
			for (c = 0; c < o.pv.n; c++)
				for (d = 0; d < o.hp.n; d++)
					if (one_setting(&o, stage, initrd, kernel, qemu, &h, o.mult.v[a],
					    o.pin.v[b], o.pv.v[c], o.hp.v[d], hp_host, summary, &err))
						goto fail;
	fclose(summary);
	summary = NULL;
	unlink(initrd);
	if (cmd_write_out(stage, "lab-vm.txt", sum, &err))
		goto fail;
	if (cmd_stage_commit(stage, o.out, &err)) {
		stage = NULL;
		goto fail;
	}
	stage = NULL;
	fputs(sum, stdout);
	printf("written to %s\n", o.out);
	rc = 0;
	goto out;
fail:
	fprintf(stderr, "%s\n", err.msg);
	if (stage != NULL) {
		fprintf(stderr, "vlocksim lab-vm: what the runs left is in %s\n", stage);
		free(stage);
		stage = NULL;
	}
out:
	if (hp_touched && write_halt_poll(hp_host, &err))
		fprintf(stderr, "%s: halt_poll_ns NOT restored to %lld\n", err.msg, hp_host);
	if (summary != NULL)
		fclose(summary);
	cmd_stage_abort(stage);
	free(sum);
	free(initrd);
	free(bargs);
	free(kernel);
	free(lockbench);
	free(bench_lb);
	free(qemu);
	return rc;
}

const struct cmd_entry cmd_lab_vm_entry = {
	.name = "lab-vm",
	.forms = "vlocksim lab-vm [OPTION...] -- LOCKBENCH-OPTION...",
	.summary = "lockbench inside QEMU guests: vCPUs 1-3x the CPUs, pinned or not, PV "
	    "spinlocks and halt polling on and off",
	.about = "Boots QEMU once per setting with the guest kernel and an initramfs of a "
	    "static busybox and lockbench-static, which runs lockbench with the options after "
	    "-- and powers off; lockbench's output comes back on the guest's second serial "
	    "port as vlocksim lab's measured table.  First it asks whether /dev/kvm here can "
	    "run a stock guest: a PVM host (kvm_pvm, no VMX/SVM) cannot, and lab-vm says so "
	    "and exits 4.  Exit status: 0 done, 1 a run failed (QEMU, the guest, lockbench), "
	    "2 bad options or a missing kernel, busybox or static lockbench, 4 no stock guest "
	    "under KVM here (--accel tcg runs it emulated).",
	.opts = lab_vm_opts,
	.size = sizeof(struct lab_vm_args),
	.parse = parse_lab_vm_args,
	.run = run_lab_vm,
};
