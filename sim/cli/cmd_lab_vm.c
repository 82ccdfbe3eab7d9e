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
	{ "accel", 0, "kvm|tcg", OPT_ENUM, A(accel), .def = "kvm",
	  .help = "run the guests under KVM or QEMU's emulation (TCG: the files and their "
	  "parsing real, the timings meaningless)" },
	{ "check", 0, NULL, OPT_FLAG, A(check),
	  .help = "only say whether /dev/kvm here can run a stock guest (exit 0, or 4 and "
	  "why)" },
	{ "out", 0, "DIR", OPT_STR, A(out), .def = "out/lab-vm",
	  .help = "the folder: SETTING-measured.csv, "
	  "SETTING-lab-table.csv, SETTING-lockbench*.csv, SETTING-console.log, "
	  "SETTING-qemu.txt, lab-vm.txt",
	  .man = "SETTING is vM-pin|float-pv|nopv-hp|nohp (tcg for the last under TCG).  "
	  "Written whole or not at all." },
	{ "name", 0, "NAME", OPT_STR, A(name), .def = "lab-vm",
	  .help = "the measurement's name" },
	{ "vcpus", 0, "M,...", OPT_FN, A(mult), .parse = parse_mult,
	  .def = "1,2,3", .help = "vCPUs as multiples of the CPUs, one boot each" },
	{ "pin", 0, "no,yes", OPT_FN, A(pin), .parse = parse_noyes,
	  .def = "no,yes", .help = "vCPU threads floating, or pinned vCPU n -> CPU n mod the "
	  "CPUs" },
	{ "pvspin", 0, "on,off", OPT_FN, A(pv), .parse = parse_onoff,
	  .def = "on,off", .help = "the guest's PV spinlocks, or nopvspin on its command line" },
	{ "halt-poll", 0, "on,off", OPT_FN, A(hp), .parse = parse_onoff,
	  .def = "on,off", .help = "the host's halt polling as it is, or halt_poll_ns 0 "
	  "and restored after, KVM only" },
	{ "kernel", 0, "VMLINUZ", OPT_STR, A(kernel),
	  .help = "the guest kernel (default the last /boot/vmlinuz-*)" },
	{ "busybox", 0, "PATH", OPT_STR, A(busybox),
	  .def = "/bin/busybox", .help = "a static busybox, as Debian's busybox-static installs" },
	{ "lockbench", 0, "PATH", OPT_STR, A(lockbench),
	  .help = "a static lockbench (default bench/lab/lockbench-static of the build tree: "
	  "make builds it, make install does not)" },
	{ "qemu", 0, "PATH", OPT_STR, A(qemu),
	  .def = "qemu-system-x86_64", .help = "QEMU, or its name on the PATH" },
	{ "mem", 0, "MIB", OPT_INT, A(mem_mb), .min = 64, .max = 65536,
	  .def = "512", .help = "the guest's memory" },
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

	return opt_parse_passed(&cmd_lab_vm_entry, argc, argv, o, "lockbench's", &o->bench,
	    &o->nbench);
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

/* What every boot shares: the options, the host, the files found, the
 * output under way, halt polling as found. */
struct vm_kit {
	const struct lab_vm_args *o;
	const struct lab_host *h;
	char *kernel, *qemu, *lockbench;	/* lockbench: the static one */
	char **bargs;			/* lockbench's options, NULL-terminated */
	char *stage, *initrd;
	FILE *summary;			/* lab-vm.txt under way */
	long long hp_host;		/* halt_poll_ns as found; -1: not read, left alone */
	int hp_touched;			/* halt_poll_ns was written: restore it */
};

/* One boot: the setting's values, its files and what it gave. */
struct vm_boot {
	int mult, pin, pv, hp;
	char *set;			/* vM-pin|float-pv|nopv-hp|nohp|tcg */
	char *console, *output, *qlog, *perf, *plog;
	char *ghdr;			/* the guest's header lines */
	struct lab_vm_cfg c;
	char **argv;			/* QEMU's */
	struct lab_vm_result r;
	struct lab_bench b;
};

static int
write_halt_poll(struct vm_kit *k, long long v, struct vs_err *err)
{
	FILE *f = fopen(HALT_POLL, "w");

	k->hp_touched = 1;

	if (f == NULL || fprintf(f, "%lld\n", v) < 0 || fclose(f) != 0)
		return vs_errf(err, NULL, 0, 0, "vlocksim lab-vm: %s: %s (halt polling off needs "
		    "root)", HALT_POLL, strerror(errno));
	return 0;
}

/* The setting's name and files, QEMU's configuration and command line. */
static void
boot_init(const struct vm_kit *k, struct vm_boot *bt)
{
	const struct lab_vm_args *o = k->o;
	const char *stage = k->stage;

	bt->set = xasprintf("v%d-%s-%s-%s", bt->mult, bt->pin ? "pin" : "float",
	    bt->pv ? "pv" : "nopv", o->accel ? "tcg" : bt->hp ? "hp" : "nohp");
	bt->console = xasprintf("%s/%s-console.log", stage, bt->set);
	bt->output = xasprintf("%s/%s-output.txt", stage, bt->set);
	bt->qlog = xasprintf("%s/%s-qemu.log", stage, bt->set);
	if (o->perf_kvm && !o->accel) {
		bt->perf = xasprintf("%s/%s-perf-kvm.data", stage, bt->set);
		bt->plog = xasprintf("%s/%s-perf.log", stage, bt->set);
	}
	bt->c = (struct lab_vm_cfg){
		.qemu = k->qemu, .kernel = k->kernel, .initrd = k->initrd,
		.console = bt->console, .output = bt->output, .kvm = !o->accel,
		.vcpus = bt->mult * k->h->cpus, .cpus = k->h->cpus, .mem_mb = o->mem_mb,
		.pin = bt->pin, .pvspin = bt->pv, .timeout_s = o->timeout_s,
	};
	bt->argv = lab_vm_argv(&bt->c);
}

static void
boot_free(struct vm_boot *bt)
{
	lab_bench_free(&bt->b);
	lab_vm_argv_free(bt->argv);
	free(bt->r.pinning);
	free(bt->ghdr);
	free(bt->set);
	free(bt->console);
	free(bt->output);
	free(bt->qlog);
	free(bt->perf);
	free(bt->plog);
}

/* lockbench.csv and -threads.csv, as the guest wrote them, under the setting's name */
static int
keep_bench_csvs(const char *stage, const char *set, struct vs_err *err)
{
	static const char *const parts[] = { "lockbench.csv", "lockbench-threads.csv" };
	int i, rc = 0;

	for (i = 0; i < 2 && rc == 0; i++) {
		char *a = xasprintf("%s/%s", stage, parts[i]);
		char *d = xasprintf("%s/%s-%s", stage, set, parts[i]);

		if (rename(a, d) != 0)
			rc = vs_errf(err, NULL, 0, 0, "vlocksim lab-vm: %s: %s", d, strerror(errno));
		free(a);
		free(d);
	}
	return rc;
}

/* The guest's lockbench table, read with the lock models lockbench --list names. */
static int
load_bench(const struct vm_kit *k, struct vm_boot *bt, struct vs_err *err)
{
	char *lv[] = { k->lockbench, (char *)"--list", NULL };
	char *models = NULL, *p;
	int rc;

	if (lab_capture(lv, &models, err)) {
		free(models);
		return -1;
	}
	p = xasprintf("%s/%s-lockbench.csv", k->stage, bt->set);
	rc = lab_bench_load(&bt->b, p, models, 1, 1, err);
	free(p);
	free(models);
	return rc;
}

/* SETTING-measured.csv and its lab table, the setting said in words. */
static int
write_measured(const struct vm_kit *k, struct vm_boot *bt, struct vs_err *err)
{
	const struct lab_vm_args *o = k->o;
	struct lab_case lc;
	time_t now = time(NULL);
	char date[32], *setting;
	int rc;

	setting = xasprintf("a QEMU guest (%s), %d vCPUs on %d CPUs, %s; guest PV spinlocks "
	    "%s; host halt polling %s; guest kernel %s; %s", o->accel ? "TCG emulation: timings "
	    "meaningless" : "KVM", bt->c.vcpus, k->h->cpus, bt->r.pinning ? bt->r.pinning :
	    "floating", bt->pv ? "on" : "off (nopvspin)", o->accel ? "n/a (TCG)" : bt->hp ?
	    "as the host has it" : "off (halt_poll_ns 0)", k->kernel,
	    bt->ghdr ? strtok(bt->ghdr, "\n") : "");
	strftime(date, sizeof date, "%Y-%m-%dT%H:%MZ", gmtime(&now));
	lc = (struct lab_case){ .name = o->name, .date = date, .setting = setting,
		.max_others = 1, .max_steal = 1 };
	rc = lab_write_measured(k->stage, bt->set, &lc, k->h, &bt->b, err);
	free(setting);
	return rc;
}

/* QEMU's command line and messages, together, in SETTING-qemu.txt. */
static void
write_qemu_txt(const struct vm_kit *k, const struct vm_boot *bt, struct vs_err *err)
{
	char *p = xasprintf("%s/%s-qemu.txt", k->stage, bt->set), *text;
	FILE *q;
	int i;

	if ((q = fopen(p, "w")) != NULL) {
		fputs("# the command line\n", q);
		for (i = 0; bt->argv[i] != NULL; i++)
			fprintf(q, "%s%s", i ? " " : "", bt->argv[i]);
		fprintf(q, "\n# pinning: %s\n# seconds to power-off: %.0f\n# QEMU's own "
		    "messages\n", bt->r.pinning ? bt->r.pinning : "none (floating)", bt->r.seconds);
		text = lab_read_text(bt->qlog, err);
		if (text != NULL)
			fputs(text, q);
		free(text);
		fclose(q);
	}
	free(p);
}

/* perf kvm stat's report of the boot's exits, SETTING-kvm-exits.txt, or a warning. */
static void
write_kvm_exits(const struct vm_kit *k, const struct vm_boot *bt, struct vs_err *err)
{
	char *kv[] = { (char *)"perf", (char *)"kvm", (char *)"stat", (char *)"report",
		(char *)"-i", bt->perf, NULL };
	char *p = xasprintf("%s/%s-kvm-exits.txt", k->stage, bt->set);

	if (!bt->r.perf_ok || lab_spawn(kv, p, err) != 0) {
		fprintf(stderr, "vlocksim lab-vm: %s: perf kvm stat failed (see %s); no "
		    "exit counts\n", bt->set, bt->plog);
		unlink(p);
	}
	free(p);
	unlink(bt->perf);
}

static void
summary_rows(FILE *summary, const struct vm_boot *bt)
{
	const struct lab_row *w;
	int i;

	for (i = 0; i < bt->b.nrows; i++) {
		w = &bt->b.rows[i];
		fprintf(summary, "%-22s %-9s %7d %12.5g %10.3g %12.5g %6.3f%s\n", bt->set, w->lock,
		    w->threads, w->s[LC_OPS].mean, w->s[LC_OPS].sd, w->s[LC_WAIT].mean,
		    w->s[LC_JAIN].mean, w->invalid ? " INVALID" : "");
	}
}

/* One boot: SETTING-* files in the stage, the rows appended to the summary. */
static int
one_setting(struct vm_kit *k, int mult, int pin, int pv, int hp, struct vs_err *err)
{
	struct vm_boot bt = { .mult = mult, .pin = pin, .pv = pv, .hp = hp };
	int rc = -1;

	boot_init(k, &bt);
	if (!k->o->accel && k->hp_host >= 0 && write_halt_poll(k, hp ? k->hp_host : 0, err))
		goto out;
	fprintf(stderr, "vlocksim lab-vm: %s: %d vCPUs on %d CPUs, booting\n", bt.set,
	    bt.c.vcpus, k->h->cpus);
	if (lab_vm_run(&bt.c, bt.argv, bt.qlog, bt.perf, bt.plog, &bt.r, err) ||
	    lab_vm_split(bt.output, k->stage, &bt.ghdr, err) ||
	    keep_bench_csvs(k->stage, bt.set, err) || load_bench(k, &bt, err) ||
	    write_measured(k, &bt, err))
		goto out;
	write_qemu_txt(k, &bt, err);
	unlink(bt.qlog);
	unlink(bt.output);
	if (bt.perf != NULL)
		write_kvm_exits(k, &bt, err);
	summary_rows(k->summary, &bt);
	rc = 0;
out:
	boot_free(&bt);
	return rc;
}

/* --check, and a machine whose /dev/kvm cannot run a stock guest: the exit
 * status; -1: go on. */
static int
kvm_check(const struct lab_vm_args *o)
{
	struct lab_vm_probe probe;
	char *why = NULL;
	int can;

	lab_vm_probe_read(&probe);
	can = lab_vm_can_kvm(&probe, &why);
	if (o->check) {
		if (can)
			printf("vlocksim lab-vm: /dev/kvm here can run a stock guest (KVM API 12, "
			    "%s)\n", probe.kvm_intel ? "kvm_intel" : "kvm_amd");
		else
			printf("vlocksim lab-vm: /dev/kvm here cannot run a stock guest: %s\n", why);
		free(why);
		return can ? 0 : LAB_VM_EXIT_NO_KVM;
	}
	if (!can && !o->accel) {
		fprintf(stderr, "vlocksim lab-vm: this machine cannot run the guest under KVM: %s; "
		    "nothing measured (--accel tcg runs it emulated: files real, timings "
		    "meaningless)\n", why);
		free(why);
		return LAB_VM_EXIT_NO_KVM;
	}
	free(why);
	return -1;
}

/* lockbench's options fail here, on the host's copy, before any boot. */
static int
bench_dry_run(struct vm_kit *k)
{
	const struct lab_vm_args *o = k->o;
	char **dv = xcalloc((size_t)o->nbench + 3, sizeof *dv), *text;
	struct vs_err err;
	int i;

	dv[0] = k->lockbench;
	for (i = 0; i < o->nbench; i++)
		dv[i + 1] = o->bench[i];
	dv[o->nbench + 1] = (char *)"--dry-run";
	i = lab_capture(dv, &text, &err);
	free(dv);
	if (i) {
		fprintf(stderr, "vlocksim lab-vm: lockbench refused the options (above)\n");
		return -1;
	}
	free(text);
	return 0;
}

/* The guest kernel, QEMU, busybox and the static lockbench, each found and
 * usable, and lockbench's options accepted; -1 after saying which is not. */
static int
find_kit(struct vm_kit *k)
{
	const struct lab_vm_args *o = k->o;
	int i;

	if ((k->kernel = o->kernel ? xstrdup(o->kernel) : default_kernel()) == NULL ||
	    access(k->kernel, R_OK) != 0) {
		fprintf(stderr, "vlocksim lab-vm: no readable guest kernel%s%s (--kernel; "
		    "Debian's linux-image-amd64 installs /boot/vmlinuz-*)\n", k->kernel ? ": " : "",
		    k->kernel ? k->kernel : "");
		return -1;
	}
	if ((k->qemu = find_in_path(o->qemu)) == NULL) {
		fprintf(stderr, "vlocksim lab-vm: %s not found (Debian: qemu-system-x86)\n", o->qemu);
		return -1;
	}
	if (!lab_vm_is_static(o->busybox)) {
		fprintf(stderr, "vlocksim lab-vm: %s is not a static x86-64 busybox (--busybox; "
		    "Debian: busybox-static)\n", o->busybox);
		return -1;
	}
	if ((k->lockbench = static_lockbench(o->lockbench)) == NULL ||
	    !lab_vm_is_static(k->lockbench)) {
		fprintf(stderr, "vlocksim lab-vm: no static lockbench%s%s (--lockbench; make "
		    "builds bench/lab/lockbench-static where the C library links statically)\n",
		    k->lockbench ? ": not static: " : "", k->lockbench ? k->lockbench : "");
		return -1;
	}
	k->bargs = xcalloc((size_t)o->nbench + 1, sizeof *k->bargs);
	for (i = 0; i < o->nbench; i++)
		k->bargs[i] = o->bench[i];
	return bench_dry_run(k);
}

/* Halt polling off needs halt_poll_ns read first (to restore it); unreadable,
 * or under TCG, the settings keep it as it is. */
static void
plan_halt_poll(struct lab_vm_args *o, struct vm_kit *k)
{
	if (!o->accel && o->hp.n > 0 && (o->hp.n > 1 || o->hp.v[0] == 0) &&
	    read_halt_poll(&k->hp_host)) {
		fprintf(stderr, "vlocksim lab-vm: %s unreadable: halt polling stays as it is\n",
		    HALT_POLL);
		o->hp.n = 1;
		o->hp.v[0] = 1;
	}
	if (o->accel)
		o->hp.n = 1;	/* halt polling is KVM's */
}

/* Every setting: --vcpus x --pin x --pvspin x --halt-poll, one boot each. */
static int
boot_all(struct vm_kit *k, struct vs_err *err)
{
	const struct lab_vm_args *o = k->o;
	int a, b, c, d;

	for (a = 0; a < o->mult.n; a++)
		for (b = 0; b < o->pin.n; b++)
			for (c = 0; c < o->pv.n; c++)
				for (d = 0; d < o->hp.n; d++)
					if (one_setting(k, o->mult.v[a], o->pin.v[b], o->pv.v[c],
					    o->hp.v[d], err))
						return -1;
	return 0;
}

/* The boots into a stage folder, committed whole as --out; 0 or CMD_EXIT_FAIL
 * (the stage left for a look). */
static int
measure(struct vm_kit *k)
{
	const struct lab_vm_args *o = k->o;
	const struct lab_host *h = k->h;
	struct vs_err err;
	char *sum = NULL;
	size_t sumlen = 0;
	int rc = CMD_EXIT_FAIL;

	if ((k->stage = cmd_stage_begin(o->out, &err)) == NULL)
		goto fail;
	k->initrd = xasprintf("%s/lab-vm.cpio", k->stage);
	if (lab_vm_initramfs(k->initrd, o->busybox, k->lockbench, k->bargs, &err))
		goto fail;
	if ((k->summary = open_memstream(&sum, &sumlen)) == NULL)
		vs_fatal("out of memory");
	fprintf(k->summary, "# vlocksim lab-vm on %s: lockbench in a guest of %s (%d CPUs, "
	    "kernel %s)\n# guest kernel %s; %s\n%-22s %-9s %7s %12s %10s %12s %6s\n",
	    h->hostname, h->cpu, h->cpus, h->kernel, k->kernel, o->accel ? "QEMU TCG: emulated, "
	    "timings meaningless" : "KVM", "setting", "lock", "threads", "ops_per_sec", "sd",
	    "wait_ns", "jain");
	if (boot_all(k, &err))
		goto fail;
	fclose(k->summary);
	k->summary = NULL;
	unlink(k->initrd);
	if (cmd_write_out(k->stage, "lab-vm.txt", sum, &err))
		goto fail;
	rc = cmd_stage_commit(k->stage, o->out, &err);
	k->stage = NULL;
	if (rc)
		goto fail;
	fputs(sum, stdout);
	printf("written to %s\n", o->out);
	free(sum);
	return 0;
fail:
	fprintf(stderr, "%s\n", err.msg);
	if (k->stage != NULL)
		fprintf(stderr, "vlocksim lab-vm: what the runs left is in %s\n", k->stage);
	if (k->summary != NULL)
		fclose(k->summary);
	k->summary = NULL;
	free(sum);
	return CMD_EXIT_FAIL;
}

static int
run_lab_vm(const void *args, struct cmd_mpi *mp)
{
	struct lab_vm_args o = *(const struct lab_vm_args *)args;
	struct vm_kit k = { .o = &o, .hp_host = -1 };
	struct lab_host h;
	struct vs_err err;
	int rc;

	(void)mp;
	lab_host_read(&h);
	k.h = &h;
	if ((rc = kvm_check(&o)) >= 0)
		return rc;
	if (o.timeout_s == 0)
		o.timeout_s = o.accel ? 900 : 300;
	if (find_kit(&k) != 0) {
		rc = CMD_EXIT_INPUT;
	} else {
		plan_halt_poll(&o, &k);
		rc = measure(&k);
	}
	if (k.hp_touched && write_halt_poll(&k, k.hp_host, &err))
		fprintf(stderr, "%s: halt_poll_ns NOT restored to %lld\n", err.msg, k.hp_host);
	free(k.stage);
	free(k.initrd);
	free(k.bargs);
	free(k.kernel);
	free(k.lockbench);
	free(k.qemu);
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
