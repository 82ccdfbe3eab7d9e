/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * cmd_machine.c - `vlocksim machine probe [--time S]`: a machine file of this
 * host on stdout.  The topology from hwloc (packages, cores, PUs); measured
 * costs: the cache-line transfer between two PUs at each distance present
 * (SMT sibling, same package, other package) by a ping-pong of one line
 * between two pinned threads (one-way = round trip / 2, the median of
 * batches, as the c2clat tool measures core to core; one way is two line
 * transfers under MESI, a read-for-ownership and a miss, so a transfer is
 * half of it: lock.c lock_own_ns), a locked RMW on an owned line
 * (__atomic_fetch_add), and one PAUSE (x86 only).  Times from
 * clock_gettime(CLOCK_MONOTONIC); the clock is the TSC rate measured
 * against it (x86), or left to the default otherwise.
 * Every value is written with a comment naming how it was found; costs it
 * does not measure keep machine.c's defaults and are named as such.
 * Run time is bounded by --time (default 2 s, split over the measurements).
 * The idle states (cstates:) are read, not measured: cpu0's cpuidle states
 * in sysfs (--sysfs, for a copy of it), else the model's default table.
 */
#include "config.h"

#include <hwloc.h>
#include <math.h>
#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cmd.h"
#include "hw/machine.h"
#include "units.h"
#include "util.h"
#include "yconf.h"
#include "yparam.h"

#if defined(__x86_64__) || defined(__i386__)
#include <x86intrin.h>
#define HAVE_TSC 1
#endif

static double
now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

static int
cmp_d(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

struct pp {
	_Alignas(64) volatile uint64_t line;	/* the line that moves */
	char pad[64 - sizeof(uint64_t)];
	hwloc_topology_t topo;
	hwloc_obj_t pu;				/* the responder's PU */
	volatile int stop;
	int pinned;
};

static int
pin(hwloc_topology_t topo, hwloc_obj_t pu)
{
	return hwloc_set_cpubind(topo, pu->cpuset, HWLOC_CPUBIND_THREAD);
}

/* The responder: waits for an odd value, writes the next even one. */
static void *
pp_responder(void *arg)
{
	struct pp *p = arg;
	uint64_t v;

	p->pinned = pin(p->topo, p->pu) == 0;
	while (!p->stop) {
		v = __atomic_load_n(&p->line, __ATOMIC_ACQUIRE);
		if (v & 1)
			__atomic_store_n(&p->line, v + 1, __ATOMIC_RELEASE);
	}
	return NULL;
}

/* One-way transfer between PUs a and b (ns): median over batches; -1 if it
 * could not pin or ran out of time before one batch. */
static double
pingpong(hwloc_topology_t topo, hwloc_obj_t a, hwloc_obj_t b, double budget_ns)
{
	struct pp *p;
	pthread_t th;
	double t0, end, res[256];
	int nres = 0, i, lost = 0;
	const int batch = 2000;

	if (posix_memalign((void **)&p, 64, sizeof *p) != 0)
		vs_fatal("out of memory");
	memset(p, 0, sizeof *p);
	p->topo = topo;
	p->pu = b;
	if (pin(topo, a) != 0 || pthread_create(&th, NULL, pp_responder, p) != 0) {
		free(p);
		return -1;
	}
	end = now_ns() + budget_ns;
	while (nres < 256 && now_ns() < end) {
		uint64_t v = __atomic_load_n(&p->line, __ATOMIC_ACQUIRE);

		t0 = now_ns();
		for (i = 0; i < batch; i++) {
			__atomic_store_n(&p->line, v + 1, __ATOMIC_RELEASE);
			while ((v = __atomic_load_n(&p->line, __ATOMIC_ACQUIRE)) & 1) {
				if (now_ns() > end + 1e9) {	/* the responder never ran */
					lost = 1;
					break;
				}
			}
			if (lost)
				break;
		}
		if (lost)
			break;
		res[nres++] = (now_ns() - t0) / batch / 2;
	}
	p->stop = 1;
	pthread_join(th, NULL);
	i = p->pinned;
	free(p);
	if (nres == 0 || !i || lost)
		return -1;
	qsort(res, (size_t)nres, sizeof res[0], cmp_d);
	return res[nres / 2];
}

/* A locked RMW on a line this thread owns (ns per op, median of batches). */
static double
atomic_cost(double budget_ns)
{
	static _Alignas(64) volatile uint64_t x;
	double res[512], t0, end = now_ns() + budget_ns;
	int n = 0, i;

	while (n < 512 && now_ns() < end) {
		t0 = now_ns();
		for (i = 0; i < 10000; i++)
			__atomic_fetch_add(&x, 1, __ATOMIC_SEQ_CST);
		res[n++] = (now_ns() - t0) / 10000;
	}
	qsort(res, (size_t)n, sizeof res[0], cmp_d);
	return res[n / 2];
}

static double
pause_cost(double budget_ns)
{
#ifdef HAVE_TSC
	double res[512], t0, end = now_ns() + budget_ns;
	int n = 0, i;

	while (n < 512 && now_ns() < end) {
		t0 = now_ns();
		for (i = 0; i < 2000; i++)
			_mm_pause();
		res[n++] = (now_ns() - t0) / 2000;
	}
	qsort(res, (size_t)n, sizeof res[0], cmp_d);
	return res[n / 2];
#else
	(void)budget_ns;
	return -1;
#endif
}

/* The TSC rate (Hz) against CLOCK_MONOTONIC; 0 when there is no TSC. */
static double
tsc_hz(double budget_ns)
{
#ifdef HAVE_TSC
	double t0 = now_ns(), t1;
	unsigned long long c0 = __rdtsc(), c1;

	while ((t1 = now_ns()) - t0 < budget_ns)
		;
	c1 = __rdtsc();
	return (double)(c1 - c0) / ((t1 - t0) / 1e9);
#else
	(void)budget_ns;
	return 0;
#endif
}

/* The first line of DIR/FILE into buf, without its newline; -1 if unreadable. */
static int
read_line(const char *dir, const char *file, char *buf, size_t n)
{
	char *p = xasprintf("%s/%s", dir, file);
	FILE *f = fopen(p, "r");
	int rc = -1;

	free(p);
	if (f == NULL)
		return -1;
	if (fgets(buf, (int)n, f) != NULL) {
		buf[strcspn(buf, "\r\n")] = '\0';
		rc = 0;
	}
	fclose(f);
	return rc;
}

/* A sysfs file's number (us), or -1. */
static long long
sys_us(const char *dir, const char *file)
{
	char buf[64], *end;
	long long v;

	if (read_line(dir, file, buf, sizeof buf) != 0)
		return -1;
	v = strtoll(buf, &end, 10);
	return end == buf || *end != '\0' || v < 0 ? -1 : v;
}

/* name as a double-quoted YAML scalar, printable ASCII only */
static void
put_name(FILE *f, const char *name)
{
	const char *c;

	fputc('"', f);
	for (c = name; *c != '\0'; c++)
		if (*c == '"' || *c == '\\')
			fprintf(f, "\\%c", *c);
		else if (*c >= ' ' && *c < 127)
			fputc(*c, f);
	fputc('"', f);
}

/* No cpuidle states to read: the model's default table, written out. */
static void
default_cstates(FILE *f, const char *dir)
{
	static const struct yc_node empty = { .kind = YC_MAP };
	struct machine m;
	struct vs_err err;
	int i;

	memset(&m, 0, sizeof m);
	if (machine_from_yaml(&m, &empty, &err) != 0)
		vs_fatal("machine probe: the default machine does not load: %s", err.msg);
	fprintf(f, "# Idle states: no cpuidle states in\n# %s\n# (no cpuidle driver, or no "
	    "sysfs): the model's default,\n# %s, written out.\ncstates:%s\n", dir,
	    vs_param_find(machine_params, "cstates")->def, m.ncstates == 0 ? " []" : "");
	for (i = 0; i < m.ncstates; i++) {
		fprintf(f, "  - {name: ");
		put_name(f, m.cstates[i].name);
		fprintf(f, ", exit_latency: %.0fus, target_residency: %.0fus}\n",
		    m.cstates[i].exit_ns / 1e3, m.cstates[i].residency_ns / 1e3);
	}
	machine_free(&m);
}

/*
 * cstates: cpu0's cpuidle states as sysfs lists them (Linux
 * drivers/cpuidle/sysfs.c: stateN/name, latency = exit_latency and residency
 * = target_residency, in us), shallowest first as the driver registers them.
 * POLL (drivers/cpuidle/poll_state.c) is polling in C0, which the model's
 * idle already is, and a disabled state is one the governor never picks
 * (menu.c skips it): both left out, as a state out of residency order
 * (machine.c needs it sorted) or past the model's HW_MAX_CSTATES.
 */
static void
probe_cstates(FILE *f, const char *sysfs)
{
	char *dir = xasprintf("%s/devices/system/cpu/cpu0/cpuidle", sysfs), *st;
	char name[64], drv[64], *drvdir = xasprintf("%s/devices/system/cpu/cpuidle", sysfs);
	long long lat, res, last = -1;
	int i, n = 0, nst = 0;

	for (i = 0; i < 64; i++, free(st)) {
		st = xasprintf("%s/state%d", dir, i);
		if (read_line(st, "name", name, sizeof name) != 0) {
			free(st);
			break;
		}
		if (nst++ == 0) {
			fprintf(f, "# Idle states: cpuidle's table (driver %s) in\n# %s/state*/"
			    "{name,latency,residency}\n# (drivers/cpuidle/sysfs.c: latency = "
			    "exit_latency, residency = target_residency, in us).\ncstates:\n",
			    read_line(drvdir, "current_driver", drv, sizeof drv) == 0 ? drv :
			    "unknown", dir);
		}
		lat = sys_us(st, "latency");
		res = sys_us(st, "residency");
		if (strcmp(name, "POLL") == 0)
			fprintf(f, "  # state%d POLL: polling in C0 (poll_state.c): left out\n", i);
		else if (lat < 0 || res < 0)
			fprintf(f, "  # state%d %s: no latency or residency: left out\n", i, name);
		else if (sys_us(st, "disable") > 0)
			fprintf(f, "  # state%d %s: disabled: left out\n", i, name);
		else if (res < last || n == HW_MAX_CSTATES)
			fprintf(f, "  # state%d %s: %s: left out\n", i, name, res < last ?
			    "shallower than the state before it" : "past the model's states");
		else {
			fprintf(f, "  - {name: ");
			put_name(f, name);
			fprintf(f, ", exit_latency: %lldus, target_residency: %lldus}  # state%d\n",
			    lat, res, i);
			last = res;
			n++;
		}
	}
	if (nst == 0)
		default_cstates(f, dir);
	else if (n == 0)
		fprintf(f, "cstates: []           # no state past C0: idle polls\n");
	free(dir);
	free(drvdir);
}

struct probe_args {
	double time;		/* ns: the whole run's budget */
	const char *name;	/* NULL: the host name */
	const char *sysfs;	/* where sysfs is (tests: a copy) */
};

#define A(f) OPT_AT(struct probe_args, f)
static const struct opt_decl probe_opts[] = {
	{ "time", 0, "S", OPT_TIME, A(time), .lo = 1e8, .hi = 60e9,
	  .def = "2s", .help = "bound the whole run, split over the measurements" },
	{ "name", 0, "NAME", OPT_STR, A(name),
	  .help = "the machine's name: in the file (default: the host name)" },
	{ "sysfs", 0, "DIR", OPT_STR, A(sysfs), .def = "/sys",
	  .help = "read the idle states (cstates:) from DIR/devices/system/cpu/cpu0/cpuidle" },
	{ NULL }
};
#undef A

static int
parse_probe_args(int argc, char **argv, void *args)
{
	return opt_parse_operands(&cmd_machine_probe_entry, argc, argv, args, 0, NULL, NULL);
}

/* The topology, and PU 0's first partner at each distance. */
struct topo {
	hwloc_topology_t t;
	int npkg, ncore, npu;
	hwloc_obj_t pu0, sib, core, remote;
};

static void
topo_partners(struct topo *tp)
{
	hwloc_topology_t t = tp->t;
	hwloc_obj_t c0, k0;
	int i;

	tp->npkg = hwloc_get_nbobjs_by_type(t, HWLOC_OBJ_PACKAGE);
	tp->ncore = hwloc_get_nbobjs_by_type(t, HWLOC_OBJ_CORE);
	tp->npu = hwloc_get_nbobjs_by_type(t, HWLOC_OBJ_PU);
	if (tp->npkg < 1)
		tp->npkg = 1;
	if (tp->ncore < tp->npkg)
		tp->ncore = tp->npkg;
	if (tp->npu < tp->ncore)
		tp->npu = tp->ncore;
	tp->pu0 = hwloc_get_obj_by_type(t, HWLOC_OBJ_PU, 0);
	c0 = hwloc_get_ancestor_obj_by_type(t, HWLOC_OBJ_CORE, tp->pu0);
	k0 = hwloc_get_ancestor_obj_by_type(t, HWLOC_OBJ_PACKAGE, tp->pu0);
	for (i = 1; i < tp->npu; i++) {
		hwloc_obj_t p = hwloc_get_obj_by_type(t, HWLOC_OBJ_PU, (unsigned)i);
		hwloc_obj_t c1 = hwloc_get_ancestor_obj_by_type(t, HWLOC_OBJ_CORE, p);
		hwloc_obj_t k1 = hwloc_get_ancestor_obj_by_type(t, HWLOC_OBJ_PACKAGE, p);

		if (c0 != NULL && c0 == c1) {
			if (tp->sib == NULL)
				tp->sib = p;
		} else if (k0 == k1) {
			if (tp->core == NULL)
				tp->core = p;
		} else if (tp->remote == NULL) {
			tp->remote = p;
		}
	}
}

/* The line_* costs: a ping-pong with PU 0's partner at each distance; the
 * socket's one (ns) into *line_socket when it was plausible. */
static void
probe_lines(FILE *f, struct topo *tp, double per, double *line_socket)
{
	const struct { const char *key; hwloc_obj_t pu; const char *where, *none; } d[] = {
		{ "line_sibling", tp->sib, "SMT siblings",
		  "no SMT siblings here (or not pinnable)" },
		{ "line_socket", tp->core, "same package, other core",
		  "no second core in a package (or not pinnable)" },
		{ "line_remote", tp->remote, "other package", "one package" },
	};
	double ns;
	size_t i;

	fprintf(f, "  # line_*: half a one-way ping-pong (a store's read-for-ownership, then "
	    "the spinner's miss);\n  # with release_visibility: off write the one-way time\n");
	for (i = 0; i < sizeof d / sizeof d[0]; i++) {
		ns = d[i].pu != NULL ? pingpong(tp->t, tp->pu0, d[i].pu, per) : -1;
		/* More than 5 us one way is no cache transfer: a thread was descheduled. */
		if (ns > 0 && !(ns < 5000)) {
			fprintf(f, "  # %s: ping-pong gave %.0fns, implausible (the host is busy or "
			    "the threads were not both on a CPU): default\n", d[i].key, ns);
		} else if (ns > 0) {
			fprintf(f, "  %s: %.1fns%*s# ping-pong PU %u <-> PU %u (%s), one way / 2\n",
			    d[i].key, ns / 2, (int)(18 - strlen(d[i].key)), "",
			    tp->pu0->os_index, d[i].pu->os_index, d[i].where);
			if (d[i].pu == tp->core && line_socket != NULL)
				*line_socket = ns / 2;
		} else {
			fprintf(f, "  # %s: %s: default\n", d[i].key, d[i].none);
		}
	}
}

int
cmd_machine_probe_write(FILE *f, double budget, const char *name, const char *sysfs,
    double *line_socket)
{
	struct topo tp = { 0 };
	hwloc_bitmap_t mask;
	double hz, d, per = budget / 6;
	char host[64];

	if (line_socket != NULL)
		*line_socket = -1;
	if (hwloc_topology_init(&tp.t) != 0 || hwloc_topology_load(tp.t) != 0) {
		fprintf(stderr, "vlocksim machine probe: hwloc cannot read the topology\n");
		return -1;
	}
	/* The ping-pong pins this thread; what runs after the probe (the lab's
	 * lockbench inherits it) gets the CPUs it had before. */
	if ((mask = hwloc_bitmap_alloc()) == NULL ||
	    hwloc_get_cpubind(tp.t, mask, HWLOC_CPUBIND_THREAD) != 0) {
		hwloc_bitmap_free(mask);
		mask = NULL;
	}
	topo_partners(&tp);
	if (gethostname(host, sizeof host) != 0)
		snprintf(host, sizeof host, "this-host");
	host[sizeof host - 1] = '\0';
	hz = tsc_hz(per / 4);
	fprintf(f, "# vlocksim machine probe of %s, %s", host,
	    "measured by `vlocksim machine probe`");
	fprintf(f, " (vlocksim %s).\n", PACKAGE_VERSION);
	fprintf(f, "# Topology: hwloc %s (packages, cores, PUs).  Costs: medians of timed "
	    "batches\n# (CLOCK_MONOTONIC); a busy or virtualised host inflates them: probe an "
	    "idle one.\n# Costs not measured here keep vlocksim's defaults "
	    "(models/hw/machine.c): the\n# exit costs come from a trace of this host (README, "
	    "\"Your own machine\").\n", HWLOC_API_VERSION >= 0x00020000 ? "2.x" : "1.x");
	fprintf(f, "name: %s\n", name ? name : host);
	fprintf(f, "sockets: %d              # hwloc: %d packages\n", tp.npkg, tp.npkg);
	fprintf(f, "cores_per_socket: %d     # hwloc: %d cores / %d packages\n",
	    tp.ncore / tp.npkg, tp.ncore, tp.npkg);
	fprintf(f, "threads_per_core: %d     # hwloc: %d PUs / %d cores\n", tp.npu / tp.ncore,
	    tp.npu, tp.ncore);
	if (hz > 0)
		fprintf(f, "clock: %.4gGHz          # TSC rate against CLOCK_MONOTONIC over %.0f ms "
		    "(the nominal clock; turbo not seen)\n", hz / 1e9, per / 4 / 1e6);
	else
		fprintf(f, "# clock: no TSC on this architecture: the default 2.93GHz stays\n");
	fprintf(f, "costs:\n");
	probe_lines(f, &tp, per, line_socket);
	fprintf(f, "  atomic: %.2fns            # lock xadd on an owned line "
	    "(__atomic_fetch_add), per op\n", atomic_cost(per));
	if ((d = pause_cost(per)) > 0)
		fprintf(f, "  pause: %.2fns             # one PAUSE (_mm_pause), per instruction\n",
		    d);
	else
		fprintf(f, "  # pause: not x86: default\n");
	probe_cstates(f, sysfs != NULL ? sysfs : "/sys");
	if (mask != NULL) {
		hwloc_set_cpubind(tp.t, mask, HWLOC_CPUBIND_THREAD);
		hwloc_bitmap_free(mask);
	}
	hwloc_topology_destroy(tp.t);
	return 0;
}

static int
run_machine_probe(const void *args, struct cmd_mpi *mp)
{
	const struct probe_args *a = args;

	return cmd_machine_probe_write(stdout, a->time, a->name, a->sysfs, NULL) == 0 ? 0 :
	    CMD_EXIT_FAIL;
}

const struct cmd_entry cmd_machine_probe_entry = {
	.name = "machine probe",
	.summary = "a machine file of this host (hwloc topology, measured costs)",
	.about = "Writes a machine file of this host on stdout (vlocksim machine probe > "
	    "mine.yaml): topology from hwloc, the TSC clock, and measured cache-line "
	    "transfer (ping-pong of one line between two pinned threads, per distance), "
	    "locked RMW and PAUSE costs, each with its provenance, and the idle states "
	    "(cstates:) cpuidle lists in sysfs.  Run it on an idle host.",
	.opts = probe_opts,
	.size = sizeof(struct probe_args),
	.parse = parse_probe_args,
	.run = run_machine_probe,
};
