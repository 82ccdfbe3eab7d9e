/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * scenario.c - a scenario file read and checked in full before any run
 * (scenario.h); each mapping's keys are rows of a parameter table
 * (scen_params, scen_vm_params, ...), so `vlocksim list` shows them.
 */
#include "scenario.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/resource.h>

#include "guest/lock.h"
#include "guest/slock.h"
#include "workload/workload.h"
#include "hv/hv_io.h"
#include "hv/kind.h"
#include "hv/sched.h"
#include "registry.h"
#include "yconf.h"
#include "yparam.h"

/* The top-level keys as written (parse_top). */
struct top_keys {
	const char *name;
	int64_t seed;
	int reps;
	double duration;	/* < 0: none */
	double warmup;
	int until;		/* 1: done */
	int fast_forward;
};

static const char *const until_names[] = { "duration", "done", NULL };

/* The top level of a scenario. */
const struct vs_param scen_params[] = {
	{ "name", "scenario", "its name in reports", "string", "",
	  VP_STR, VS_AT(struct top_keys, name), 0, 0, 0, NULL },
	{ "description", "\"\"", "free text", "string", "", VS_LIST },
	{ "seed", NULL, "the random seed of the first replication (rep r: seed + r)", "int", "",
	  VP_INT, VS_AT(struct top_keys, seed), 0, INFINITY, 1, NULL },
	{ "reps", NULL, "replications (each a seed)", "int", "",
	  VP_INT, VS_AT(struct top_keys, reps), 1, 100000, 1, NULL },
	{ "until", "(done without a duration, else duration)", "when a run ends: at duration, "
	  "or when every finite task is done (duration then a cap)", "enum duration|done", "",
	  VP_ENUM, VS_AT(struct top_keys, until), 0, 0, 0, until_names },
	{ "duration", "(none)", "simulated time of a run (cycles at the machine's clock)", "time",
	  "ns", VP_TIME, VS_AT(struct top_keys, duration), 1, 1e18, 0, NULL },
	/* as a benchmark leaves out its first interval (lockbench --warmup) */
	{ "warmup", NULL, "simulated time run before the metrics start counting: the run "
	  "lasts warmup + duration and every metric covers the duration after it", "time",
	  "ns", VP_TIME, VS_AT(struct top_keys, warmup), 0, 1e18, 0, NULL },
	/* the engine's exact shortcuts; false runs the slow path (the reference) */
	{ "fast_forward", NULL, "exact shortcuts (PLE, loop, lock ring and tick fast-forwards); false: "
	  "the slow path, event by event", "bool", "",
	  VP_BOOL, VS_AT(struct top_keys, fast_forward), 0, 1, 1, NULL },
	{ "machine", "(machine defaults)", "a machine file or mapping (vlocksim list: machine)",
	  "map", "", VS_LIST },
	{ "hypervisor", "{kind: kvm, scheduler: pinned}", "the host (vlocksim list: "
	  "hypervisor)", "map", "", VS_LIST },
	{ "vms", "(required)", "the VMs, a list (vlocksim list: vms[])", "list", "", VS_LIST },
	{ "workloads", "{}", "named workloads the VMs refer to (a file or a mapping each)", "map",
	  "", VS_LIST },
	{ "metrics", "(all)", "the metrics to report, a list of names or patterns", "list", "",
	  VS_LIST },
	{ "calibration", "(none)", "a file of {set: [\"PATH=VALUE\", ...]} from vlocksim "
	  "calibrate, applied before --set", "string", "", VS_LIST },
	{ NULL, NULL, NULL, NULL, NULL, VS_LIST }
};

/* The keys of the hypervisor mapping that are not its kind's. */
struct hv_keys {
	const char *kind, *scheduler;
};

const struct vs_param scen_hv_params[] = {
	{ "kind", "kvm", "the hypervisor kind (vlocksim list: kinds)", "string", "",
	  VP_STR, VS_AT(struct hv_keys, kind), 0, 0, 0, NULL },
	{ "scheduler", "pinned", "the host scheduler (vlocksim list: schedulers)", "string", "",
	  VP_STR, VS_AT(struct hv_keys, scheduler), 0, 0, 0, NULL },
	{ "params", "{}", "the scheduler's parameters (vlocksim list: schedulers)", "map", "",
	  VS_LIST },
	{ NULL, NULL, NULL, NULL, NULL, VS_LIST }
};

/* The keys of a vms[] entry as written. */
struct vm_keys {
	const char *name, *cg_name;
	int count, vcpus;
	long cg_weight;
};

/* A vms[] entry (parse_vm); cgroup v2 cpu controller for cgroup.* */
const struct vs_param scen_vm_params[] = {
	{ "name", "(required)", "the VM's name (instances of count > 1: name0, name1, ...)",
	  "string", "", VP_STR, VS_AT(struct vm_keys, name), 0, 0, 0, NULL },
	{ "count", NULL, "identical VMs of this entry", "int", "",
	  VP_INT, VS_AT(struct vm_keys, count), 0, 4096, 1, NULL },
	{ "vcpus", NULL, "vCPUs of each", "int", "", VP_INT, VS_AT(struct vm_keys, vcpus), 1,
	  4096, 1, NULL },
	{ "threads", "(the workload's, else one per vCPU)", "threads of the per-vCPU form, at "
	  "most vcpus", "int", "", VS_LIST },
	{ "lock", "ticket", "the spinlock algorithm of its workload's locks: NAME, or {kind: "
	  "NAME, PARAM: VALUE} (vlocksim list: locks)", "string", "", VS_LIST },
	{ "lock.kind", "(required)", "the algorithm, in the mapping form", "string", "",
	  VS_LIST },
	{ "workload", "(required)", "a workloads name, or a workload mapping", "map", "",
	  VS_LIST },
	{ "affinity", "(every pCPU)", "its vCPUs' pCPUs: \"0-3,8\" or [0, 1]", "list", "",
	  VS_LIST },
	{ "guest", "{}", "its guest kernel (vlocksim list: guest kernel)", "map", "", VS_LIST },
	{ "cgroup.name", "\"\"", "VMs that name one cgroup share it (they must agree on "
	  "weight and max)", "string", "", VP_STR, VS_AT(struct vm_keys, cg_name), 0, 0, 0, NULL },
	{ "cgroup.weight", NULL, "cgroup v2 cpu.weight (100 = shares 1024); needs "
	  "hypervisor.params.groups: per-vm", "int", "",
	  VP_INT, VS_AT(struct vm_keys, cg_weight), 1, 10000, 100, NULL },
	{ "cgroup.max", "max", "cpu.max \"QUOTA/PERIOD\" (e.g. \"50ms/100ms\", period 1ms..1s, "
	  "default 100ms; quota >= 1ms): CFS bandwidth", "string", "", VS_LIST },
	{ NULL, NULL, NULL, NULL, NULL, VS_LIST }
};

static char *
where(const struct yc_node *n)
{
	return xasprintf("%s:%d:%d", n->file, n->line, n->col);
}

/* "0-3,8" or [0, 1, 2] -> one byte per pCPU. */
static int
parse_affinity(const struct yc_node *n, int npcpus, unsigned char **out, struct vs_err *err)
{
	unsigned char *a = xcalloc((size_t)npcpus, 1);
	size_t i;

	*out = a;
	if (n->kind == YC_SEQ) {
		for (i = 0; i < n->n; i++) {
			int64_t c;

			if (yc_node_int(n->vals[i], 0, npcpus - 1, &c, err))
				return -1;
			a[c] = 1;
		}
		return 0;
	}
	if (n->kind == YC_SCALAR) {
		const char *p = n->text;

		while (*p) {
			char *end;
			long lo = strtol(p, &end, 10), hi = lo;

			if (end == p)
				goto bad;
			p = end;
			if (*p == '-') {
				hi = strtol(p + 1, &end, 10);
				if (end == p + 1)
					goto bad;
				p = end;
			}
			if (lo < 0 || hi >= npcpus || lo > hi)
				return yc_err(n, err, "affinity '%s': pCPUs are 0-%d", n->text,
				    npcpus - 1);
			for (; lo <= hi; lo++)
				a[lo] = 1;
			if (*p == ',')
				p++;
			else if (*p != '\0')
				goto bad;
		}
		return 0;
	}
bad:
	return yc_err(n, err, "affinity must be a pCPU list like \"0-3,8\" or [0, 1]");
}

/* `lock: ticket` or `lock: {kind: pv-ticket, spin_threshold: 32768}` */
static int
parse_lock(struct vmdef *d, const struct yc_node *n, const struct machine *m,
    struct vs_err *err)
{
	const struct yc_node *params = NULL;
	struct vs_ptab tables[3] = { { scen_vm_params, "lock" }, { NULL, NULL }, { NULL, NULL } };
	const char *name;
	char *names;

	if (n == NULL) {
		name = vs_param_find(scen_vm_params, "lock")->def;
	} else if (n->kind == YC_SCALAR) {
		name = n->text;
	} else {
		if (yc_expect(n, YC_MAP, "a lock name or a mapping with 'kind'", err) ||
		    yc_get_str(n, "kind", NULL, &name, err))
			return -1;
		params = n;
	}
	if ((d->lock = registry_lock(name)) == NULL) {
		names = registry_lock_names();
		yc_err(n, err, "unknown lock '%s' (expected one of: %s)", name, names);
		free(names);
		return -1;
	}
	if (lock_op_parse(d->lock, params, m, &d->lock_cfg, err))
		return -1;
	tables[1].t = d->lock->params;
	return yc_params_check_all(params, tables, err);
}

/* vms[].guest as written: the guest kernel's configuration and its scheduler's name. */
struct guest_keys {
	struct gk_config k;
	const char *sched;
};

static const char *const phases[] = { "aligned", "random", NULL };
static const char *const ipi_modes[] = { "physical", "cluster", "pv", NULL };
static const char *const preempt_modes[] = { "full", "none", "voluntary", NULL };	/* enum gk_preempt */

/*
 * The keys of vms[].guest that every guest scheduler reads (parse_guest).
 * Defaults for the task form: Linux's fair scheduler, HZ 250
 * (kernel/Kconfig.hz default), NO_HZ idle, no haltpoll (cpuidle-haltpoll is
 * Linux 5.4+ and off unless loaded), no steal-time clock
 * (CONFIG_PARAVIRT_TIME_ACCOUNTING default n), random phases, the periodic
 * kernel services' timers (every Linux guest runs them: gtimer.c).  The
 * per-vCPU form models no tick, no services and aligned phases unless told
 * (its `sleep:` idles with interrupts on, so a tick or timers wake it),
 * so that its numbers stay those of the loop form it always was (and its
 * programs, shaped to traces such as X1's, already hold the wakes a guest
 * had).  IPIs: x2APIC physical mode
 * (Linux x2apic_phys when the CPUs fit in physical mode, the usual guest
 * choice), no IPI virtualization, the PV features off (they need
 * KVM_FEATURE_PV_TLB_FLUSH / PV_SEND_IPI / PV_SCHED_YIELD and a 4.16 / 4.19 /
 * 5.3 guest), a flush of 500 ns (a placeholder, model-reference §7.2: a CR3
 * reload and the refills after it).
 */
const struct vs_param scen_guest_params[] = {
	{ "scheduler", "cfs", "the guest scheduler (vlocksim list: guest schedulers)", "enum", "",
	  VP_STR, VS_AT(struct guest_keys, sched), 0, 0, 0, NULL },
	{ "hz", "(250; 0 in the per-vCPU form)", "CONFIG_HZ of the guest", "int", "Hz",
	  VP_INT, VS_AT(struct guest_keys, k.hz), 0, 10000, 0, NULL },
	{ "tickless", NULL, "CONFIG_NO_HZ_IDLE: an idle vCPU stops its tick", "bool", "",
	  VP_BOOL, VS_AT(struct guest_keys, k.tickless), 0, 1, 1, NULL },
	{ "timers", "(true; false in the per-vCPU form)", "the periodic kernel services' timers "
	  "(softlockup watchdog, clocksource watchdog, vmstat, khungtaskd; models/README.md "
	  "\"Guest timers\"): an idle tickless vCPU wakes for them", "bool", "",
	  VP_BOOL, VS_AT(struct guest_keys, k.timers), 0, 1, 0, NULL },
	{ "halt_poll", "0ns", "cpuidle-haltpoll (Linux 5.4+; its governor "
	  "drivers/cpuidle/governors/haltpoll.c): guest_halt_poll_ns, the longest poll in guest "
	  "mode before HLT (0: the driver is not loaded), or {max, grow, grow_start, shrink, "
	  "allow_shrink}", "time", "ns", VS_LIST },
	/* Linux drivers/cpuidle/governors/haltpoll.c's module parameters */
	{ "halt_poll.max", NULL, "guest_halt_poll_ns", "time", "ns",
	  VP_TIME, VS_AT(struct guest_keys, k.hp.max_ns), 0, 1e10, 200000, NULL },
	{ "halt_poll.grow", NULL, "guest_halt_poll_grow (the limit x grow after a halt the "
	  "poll missed)", "int", "", VP_INT, VS_AT(struct guest_keys, k.hp.grow), 0, 1000000, 2,
	  NULL },
	{ "halt_poll.grow_start", NULL, "guest_halt_poll_grow_start (the first non-zero limit)",
	  "time", "ns", VP_TIME, VS_AT(struct guest_keys, k.hp.grow_start_ns), 0, 1e10, 50000,
	  NULL },
	{ "halt_poll.shrink", NULL, "guest_halt_poll_shrink (the limit / shrink after a halt "
	  "longer than max; 0: to 0)", "int", "", VP_INT, VS_AT(struct guest_keys, k.hp.shrink),
	  0, 1000000, 2, NULL },
	{ "halt_poll.allow_shrink", NULL, "guest_halt_poll_allow_shrink", "bool", "",
	  VP_BOOL, VS_AT(struct guest_keys, k.hp.allow_shrink), 0, 1, 1, NULL },
	{ "steal_clock", NULL, "the guest sees steal time (kvm-clock steal): preempted time is "
	  "not charged to the running task", "bool", "",
	  VP_BOOL, VS_AT(struct guest_keys, k.steal_clock), 0, 1, 0, NULL },
	{ "start_phase", "(aligned; random in the task form)", "ticks of the vCPUs in phase, "
	  "or at random offsets", "enum aligned|random", "",
	  VP_ENUM, VS_AT(struct guest_keys, k.random_phase), 0, 0, 0, phases },
	{ "vcpu_is_preempted", NULL, "Linux 4.10: mutex/rwsem spin-on-owner stops when the "
	  "owner's vCPU is preempted (steal time)", "bool", "",
	  VP_BOOL, VS_AT(struct guest_keys, k.spin_preempted), 0, 1, 0, NULL },
	/* Linux 6.18 kernel/sched/core.c preempt_dynamic_mode (preempt=, or
	 * CONFIG_PREEMPT_NONE / CONFIG_PREEMPT as its default); Linux 3.2
	 * kernel/Kconfig.preempt's three models */
	{ "preempt", NULL, "the preemption model: full (CONFIG_PREEMPT), a reschedule takes "
	  "the task at an interrupt's return or its next primitive unless it is inside a "
	  "spinlock section; none (CONFIG_PREEMPT_NONE), not inside a sleeping lock's section "
	  "either (kernel code: irqentry_exit_cond_resched is off, so the switch waits for the "
	  "return to user space, the primitive after the unlock); voluntary "
	  "(CONFIG_PREEMPT_VOLUNTARY), as none but for might_sleep's might_resched at a "
	  "mutex or rwsem acquisition (3.2 mutex_lock, down_read, down_write), where a "
	  "reschedule due is taken inside another sleeping lock's section too",
	  "enum full|none|voluntary", "",
	  VP_ENUM, VS_AT(struct guest_keys, k.preempt), 0, 0, 0, preempt_modes },
	/* Linux kernel/sched/core.c: rq->__lock and p->pi_lock (kernel_rqlock.c);
	 * on, as the kernel has them; off: the scheduler runs without locks */
	{ "sched_locks", NULL, "the scheduler's own locks: each run queue's rq->lock and each "
	  "task's p->pi_lock, spinlocks of the VM's algorithm taken with interrupts off on the "
	  "wake path, in schedule(), scheduler_tick, sched_exec and the idle and periodic pulls "
	  "(double_rq_lock); not given: on with tasks, off in the per-vCPU form (whose "
	  "pinned threads never switch) and with a lock that runs its callers' sections "
	  "(combining, where asking for them is refused)", "bool", "",
	  VP_BOOL, VS_AT(struct guest_keys, k.sched_locks), 0, 1, 1, NULL },
	{ "ipi.mode", NULL, "x2APIC physical: an ICR-write exit per destination; cluster: "
	  "one per cluster of 16; pv: KVM_HC_SEND_IPI, one hypercall per 128 APIC IDs (Linux 4.19 "
	  "kvm_send_ipi_mask)", "enum physical|cluster|pv", "",
	  VP_ENUM, VS_AT(struct guest_keys, k.ipi.mode), 0, 0, IPI_PHYS, ipi_modes },
	{ "ipi.pv_tlb_flush", NULL, "Linux 4.16 kvm_flush_tlb_others: a preempted target is "
	  "marked in steal time and flushes on its next entry", "bool", "",
	  VP_BOOL, VS_AT(struct guest_keys, k.ipi.pv_tlb_flush), 0, 1, 0, NULL },
	{ "ipi.pv_sched_yield", NULL, "Linux 5.3: after a function-call IPI, yield "
	  "(KVM_HC_SCHED_YIELD) to the first preempted target", "bool", "",
	  VP_BOOL, VS_AT(struct guest_keys, k.ipi.pv_sched_yield), 0, 1, 0, NULL },
	{ "ipi.flush_cost", NULL, "one TLB flush, local or a target's handler", "time", "ns",
	  VP_TIME, VS_AT(struct guest_keys, k.ipi.flush_ns), 0, 1e9, 500, NULL },
	{ NULL, NULL, NULL, NULL, NULL, VS_LIST }
};

/* halt_poll: a time (guest_halt_poll_ns, the other parameters their
 * defaults; 0: off) or a mapping of the governor's parameters (loaded). */
static int
parse_haltpoll(const struct yc_node *n, struct ghp_cfg *hp, struct vs_err *err)
{
	const struct yc_node *h = n != NULL ? yc_find(n, "halt_poll") : NULL;
	const struct yc_node *map = h != NULL && h->kind == YC_MAP ? h : NULL;
	struct guest_keys g;

	memset(&g, 0, sizeof g);
	if (yc_params_read(map, scen_guest_params, "halt_poll", 0, &g, err) ||
	    yc_params_check(map, scen_guest_params, "halt_poll", err))
		return -1;
	*hp = g.k.hp;
	if (h == NULL)
		hp->max_ns = 0;
	else if (map == NULL && yc_get_qty(n, "halt_poll", UNIT_TIME, 0, 0, 0, 1e10, &hp->max_ns,
	    err))
		return -1;
	return 0;
}

static int
parse_guest(struct vmdef *d, const struct yc_node *n, struct vs_err *err)
{
	struct guest_keys g;
	const struct yc_node *ipi = NULL;
	int tasks = wl_has_tasks(d->wl);
	struct vs_ptab tables[] = { { scen_guest_params, NULL }, { NULL, NULL }, { NULL, NULL } };	/* the per-vCPU form: no tick, no timers unless told */

	memset(&g, 0, sizeof g);
	g.k.hz = tasks ? 250 : 0;
	g.k.random_phase = tasks;
	g.k.timers = tasks;
	if (n != NULL && yc_expect(n, YC_MAP, "a mapping of guest kernel settings", err))
		return -1;
	if (n != NULL && (ipi = yc_find(n, "ipi")) != NULL && yc_expect(ipi, YC_MAP,
	    "IPI settings {mode, pv_tlb_flush, pv_sched_yield, flush_cost}", err))
		return -1;
	if (yc_params_read(n, scen_guest_params, NULL, 0, &g, err) ||
	    yc_params_read(ipi, scen_guest_params, "ipi", 0, &g, err) ||
	    parse_haltpoll(n, &g.k.hp, err))
		return -1;
	if ((g.k.sched = registry_gsched(g.sched)) == NULL) {
		char *names = registry_gsched_names();

		yc_err(yc_find(n, "scheduler"), err, "unknown guest scheduler '%s' (expected "
		    "one of: %s)", g.sched, names);
		free(names);
		return -1;
	}
	/* the scheduler's own keys beside the common ones (gsched.h params) */
	if (yc_params_read(n, g.k.sched->params, NULL, 0, &g.k.sched_cfg, err))
		return -1;
	tables[1].t = g.k.sched->params;
	g.k.nmm = wl_nmms(d->wl);
	d->guest = g.k;
	return yc_params_check(ipi, scen_guest_params, "ipi", err) ||
	    yc_params_check_all(n, tables, err) ? -1 : 0;
}

/* The workload's sleeping locks get their kind's ops (mutex unless declared). */
static int
resolve_slocks(struct workload *w, struct vs_err *err)
{
	int i;

	for (i = 0; i < wl_nslocks(w); i++) {
		const char *kind = wl_slock_kind(w, i) ? wl_slock_kind(w, i) : "mutex";
		const struct slock_ops *o = registry_slock(kind);

		if (o == NULL) {
			char *names = registry_slock_names();

			vs_errf(err, NULL, 0, 0, "%s: unknown sleeping lock kind '%s' (expected one "
			    "of: %s)", wl_slock_where(w, i), kind, names);
			free(names);
			return -1;
		}
		if (wl_slock_read_used(w, i) && !o->shared) {
			vs_errf(err, NULL, 0, 0, "%s: lock '%s' is a %s: 'read: true' needs one with "
			    "readers (kind: rwsem)", wl_slock_where(w, i), wl_slock_name(w, i), o->name);
			return -1;
		}
		wl_set_slock_ops(w, i, o);
	}
	return 0;
}

/* cgroup v2 cpu.max's period when only a quota is given */
#define CG_PERIOD_NS	100e6

/* "max", "QUOTA/PERIOD" or "QUOTA" (period 100ms), with time units: cgroup v2
 * cpu.max ("$MAX $PERIOD"); Linux 6.6 core.c tg_set_cfs_bandwidth limits
 * the period to 1ms..1s and the quota to >= 1ms. */
static int
parse_cpu_max(const struct yc_node *n, double hz, struct vmdef *d, struct vs_err *err)
{
	char buf[128], *slash;
	const char *why;
	double q, p = CG_PERIOD_NS;

	if (n->kind != YC_SCALAR)
		return yc_err(n, err, "cpu max must be \"max\" or \"QUOTA/PERIOD\" like "
		    "\"50ms/100ms\"");
	if (strcmp(n->text, "max") == 0)
		return 0;
	snprintf(buf, sizeof buf, "%s", n->text);
	if ((slash = strchr(buf, '/')) != NULL) {
		*slash = '\0';
		if (units_parse(slash + 1, UNIT_TIME, hz, &p, &why))
			return yc_err(n, err, "cgroup max period '%s': %s", slash + 1, why);
	}
	if (units_parse(buf, UNIT_TIME, hz, &q, &why))
		return yc_err(n, err, "cgroup max quota '%s': %s", buf, why);
	if (p < 1e6 || p > 1e9)
		return yc_err(n, err, "cgroup max period must be 1ms..1s (got %s)", n->text);
	if (q < 1e6)
		return yc_err(n, err, "cgroup max quota must be at least 1ms (got %s)", n->text);
	d->cg_quota = (int64_t)q;
	d->cg_period = (int64_t)p;
	return 0;
}

/* vms[i].cgroup: {name, weight, max} (n NULL: none; the defaults) */
static int
parse_cgroup(const struct yc_node *n, double hz, struct vmdef *d, struct vm_keys *k,
    struct vs_err *err)
{
	const struct yc_node *m;

	if (n != NULL && yc_expect(n, YC_MAP, "a mapping with name, weight and/or max", err))
		return -1;
	if (yc_params_read(n, scen_vm_params, "cgroup", hz, k, err))
		return -1;
	d->cg_weight = k->cg_weight;
	d->cg_quota = -1;
	d->cg_period = (int64_t)CG_PERIOD_NS;
	if (n == NULL)
		return 0;
	if ((m = yc_find(n, "max")) != NULL && parse_cpu_max(m, hz, d, err))
		return -1;
	if (k->cg_name[0] != '\0')
		d->cg_name = xstrdup(k->cg_name);
	d->cg_where = where(n);
	return yc_params_check(n, scen_vm_params, "cgroup", err);
}

/* VMs that name one cgroup share it (a libvirt partition, one shell's
 * autogroup): they must agree on its weight and max. */
static int
check_cgroups(const struct scenario *sc, struct vs_err *err)
{
	int i, j;

	for (i = 0; i < sc->nvms; i++) {
		const struct vmdef *a = &sc->vms[i];

		for (j = 0; a->cg_name != NULL && j < i; j++) {
			const struct vmdef *b = &sc->vms[j];

			if (b->cg_name == NULL || strcmp(a->cg_name, b->cg_name) != 0)
				continue;
			if (a->cg_weight != b->cg_weight || a->cg_quota != b->cg_quota ||
			    a->cg_period != b->cg_period)
				return vs_errf(err, NULL, 0, 0, "%s: VM '%s' puts cgroup '%s' at "
				    "another weight or max than VM '%s' (%s) does", a->cg_where,
				    a->name, a->cg_name, b->name, b->cg_where);
			break;
		}
	}
	return 0;
}

/* The guest's paravirtual switches and what each asks of the host. */
static const struct {
	const char *sub, *key, *why;
} pv_keys[] = {
	{ "ipi", "mode", "the KVM_HC_SEND_IPI hypercall" },
	{ "ipi", "pv_tlb_flush", "the host's preempted flag in steal time (KVM_FEATURE_PV_TLB_FLUSH)" },
	{ "ipi", "pv_sched_yield", "the KVM_HC_SCHED_YIELD hypercall" },
	{ NULL, "steal_clock", "the host's steal time (KVM_FEATURE_STEAL_TIME)" },
	{ NULL, "vcpu_is_preempted", "the host's preempted flag in steal time "
	  "(KVM_FEATURE_STEAL_TIME)" },
};

/* Is pv_keys[i] on in this guest configuration? */
static int
pv_key_on(const struct gk_config *k, size_t i)
{
	const int on[] = { k->ipi.mode == IPI_PV, k->ipi.pv_tlb_flush, k->ipi.pv_sched_yield,
		k->steal_clock, k->spin_preempted };

	return on[i];
}

/*
 * kind_none.c: bare metal has no hypervisor to answer a hypercall or to
 * share steal time, so a VM that asks for one (a PV lock's kick, `io:
 * hypercall`, the guest's PV switches) is refused rather than charged exits
 * that cannot happen.
 */
static int
refuse_pv_native(const struct scenario *sc, const struct vmdef *d, const struct yc_node *n,
    struct vs_err *err)
{
	const struct yc_node *g = yc_find(n, "guest"), *at, *lk = yc_find(n, "lock");
	const char *why;
	size_t i;

	if (!sc->kind->native)
		return 0;
	if ((why = lock_op_needs_hv(d->lock, d->lock_cfg)) != NULL)
		return yc_err(lk != NULL ? lk : n, err, "lock '%s' needs a hypervisor, and hypervisor "
		    "kind '%s' is bare metal: %s", d->lock->name, sc->kind->name, why);
	if ((why = wl_io_where(d->wl, IO_HYPERCALL)) != NULL)
		return vs_errf(err, NULL, 0, 0, "%s: 'io: hypercall' (VM '%s') needs a hypervisor, "
		    "and hypervisor kind '%s' is bare metal: no VM exit answers it", why, d->name,
		    sc->kind->name);
	for (i = 0; i < sizeof pv_keys / sizeof *pv_keys; i++) {
		if (!pv_key_on(&d->guest, i))
			continue;
		at = g != NULL && pv_keys[i].sub != NULL ? yc_find(g, pv_keys[i].sub) : g;
		at = at != NULL ? yc_find(at, pv_keys[i].key) : NULL;
		return yc_err(at != NULL ? at : n, err, "guest %s%s%s: %s needs a hypervisor, and "
		    "hypervisor kind '%s' is bare metal: it uses %s", pv_keys[i].sub ?
		    pv_keys[i].sub : "", pv_keys[i].sub ? "." : "", pv_keys[i].key,
		    at != NULL && at->kind == YC_SCALAR ? at->text : "on", sc->kind->name,
		    pv_keys[i].why);
	}
	return 0;
}

static int
parse_vm(struct scenario *sc, struct vmdef *d, const struct yc_node *n,
    const struct yc_node *workloads, struct vs_err *err)
{
	const struct yc_node *w, *aff;
	struct vm_keys k;
	int64_t v;

	d->where = where(n);
	if (yc_expect(n, YC_MAP, "a VM (a mapping with name, vcpus, workload)", err) ||
	    yc_params_read(n, scen_vm_params, NULL, sc->machine.hz, &k, err))
		return -1;
	d->name = xstrdup(k.name);
	d->count = k.count;
	d->vcpus = k.vcpus;
	if (parse_lock(d, yc_find(n, "lock"), &sc->machine, err))
		return -1;
	if ((w = yc_find(n, "workload")) == NULL)
		return yc_err(n, err, "VM '%s' has no 'workload'", d->name);
	if (w->kind == YC_SCALAR) {
		const struct yc_node *def = workloads ? yc_find(workloads, w->text) : NULL;

		if (def == NULL)
			return yc_err(w, err, "no workload named '%s' under 'workloads'", w->text);
		d->wl = wl_from_yaml(w->text, def, sc->machine.hz, err);
	} else {
		d->wl = wl_from_yaml(d->name, w, sc->machine.hz, err);
	}
	if (d->wl == NULL)
		return -1;
	if (resolve_slocks(d->wl, err))
		return -1;
	/* A lock that runs the caller's section itself needs compute-only sections. */
	if (d->lock->takes_sections && wl_check_sections(d->wl, err))
		return -1;
	v = wl_threads(d->wl) < 0 ? d->vcpus : wl_threads(d->wl);
	if (yc_get_int(n, "threads", v, 0, d->vcpus, &v, err))
		return -1;
	if (v > d->vcpus)
		return yc_err(n, err, "workload '%s' wants %lld threads but VM '%s' has %d vCPUs",
		    wl_name(d->wl), (long long)v, d->name, d->vcpus);
	d->threads = (int)v;
	if (wl_has_tasks(d->wl) && yc_find(n, "threads") != NULL)
		return yc_err(yc_find(n, "threads"), err, "'threads' is the per-vCPU form; "
		    "workload '%s' declares tasks", wl_name(d->wl));
	if (wl_check_vcpus(d->wl, d->vcpus, err))
		return -1;
	if (parse_guest(d, yc_find(n, "guest"), err) || refuse_pv_native(sc, d, n, err))
		return -1;
	if (d->guest.sched_locks) {
		/* on by default where tasks switch; not asked for, off in the
		 * per-vCPU form (one pinned thread a vCPU: no wake or switch ever
		 * takes them, only the tick would) and with a combining lock,
		 * which runs its callers' sections itself (kernel_rqlock.c has
		 * none); asked for with one of those, refused */
		const struct yc_node *g = yc_find(n, "guest");
		const struct yc_node *at = g != NULL ? yc_find(g, "sched_locks") : NULL;

		if (at == NULL && (!wl_has_tasks(d->wl) || d->lock->takes_sections))
			d->guest.sched_locks = 0;
		else if (d->lock->takes_sections)
			return yc_err(at, err, "guest sched_locks: lock '%s' runs its "
			    "callers' sections itself; the scheduler's locks need a kernel "
			    "spinlock (ticket, pv-ticket, qspinlock, pv-qspinlock, ...)",
			    d->lock->name);
	}
	if ((aff = yc_find(n, "affinity")) != NULL &&
	    parse_affinity(aff, sc->machine.npcpus, &d->affinity, err))
		return -1;
	if (parse_cgroup(yc_find(n, "cgroup"), sc->machine.hz, d, &k, err))
		return -1;
	return yc_params_check(n, scen_vm_params, NULL, err);
}

static int
parse_hypervisor(struct scenario *sc, const struct yc_node *n, struct vs_err *err)
{
	struct vs_ptab tables[3] = { { scen_hv_params, NULL }, { NULL, NULL }, { NULL, NULL } };
	struct hv_keys k;
	char *names;

	if (n != NULL && yc_expect(n, YC_MAP, "a mapping of hypervisor settings", err))
		return -1;
	if (yc_params_read(n, scen_hv_params, NULL, sc->machine.hz, &k, err))
		return -1;
	if ((sc->kind = registry_kind(k.kind)) == NULL) {
		const struct yc_node *at = yc_find(n, "kind");

		names = registry_kind_names();
		yc_err(at ? at : n, err, "unknown hypervisor kind '%s' (expected one of: %s)",
		    k.kind, names);
		free(names);
		return -1;
	}
	if (kind_op_parse(sc->kind, n, &sc->machine, &sc->kind_cfg, err))
		return -1;
	if ((sc->sched = registry_sched(k.scheduler)) == NULL) {
		const struct yc_node *at = yc_find(n, "scheduler");

		names = registry_sched_names();
		yc_err(at ? at : n, err, "unknown scheduler '%s' (expected one of: %s)",
		    k.scheduler, names);
		free(names);
		return -1;
	}
	if (sched_op_parse(sc->sched, n ? yc_find(n, "params") : NULL, sc->machine.hz,
	    &sc->sched_cfg, err))
		return -1;
	if (sc->sched->parse == NULL && n != NULL && yc_find(n, "params") != NULL)
		return yc_err(yc_find(n, "params"), err, "scheduler '%s' takes no params",
		    sc->sched->name);
	tables[1].t = sc->kind->params;
	return yc_params_check_all(n, tables, err);
}

static int
parse_metrics(struct scenario *sc, const struct yc_node *n, struct vs_err *err)
{
	size_t i;

	if (yc_expect(n, YC_SEQ, "a list of metric names", err))
		return -1;
	sc->metrics = xcalloc(n->n, sizeof *sc->metrics);
	sc->metric_where = xcalloc(n->n, sizeof *sc->metric_where);
	for (i = 0; i < n->n; i++) {
		if (n->vals[i]->kind != YC_SCALAR)
			return yc_err(n->vals[i], err, "a metric name must be a string");
		sc->metrics[i] = xstrdup(n->vals[i]->text);
		sc->metric_where[i] = where(n->vals[i]);
		sc->nmetrics++;
	}
	return 0;
}

/* What the workloads of all VMs together may compile to. */
#define SCEN_MAX_COST ((size_t)1 << 18)

/*
 * Bytes a run needs, from peak RSS measured on x86-64 (`count` x `vcpus`
 * under cfs, 500-4000 vCPUs per VM; the task form with 10^3-10^6 tasks):
 * ~600 B per vCPU plus ~1 B per vCPU pair of a VM (the guest kernel's
 * per-task vCPU masks), ~310 B per task, ~100 B per compiled primitive.
 * Rounded up, so the estimate is an upper bound for what was measured.
 */
#define MEM_BASE	(8.0 * 1024 * 1024)
#define MEM_VCPU	768.0
#define MEM_VCPU_PAIR	1.25
#define MEM_TASK	384.0
#define MEM_OP		128.0
/* A spinlock (an instance of a lock class): struct glock, its histogram and
 * the algorithm's state, and per vCPU its lock_node, spinner slot and the
 * algorithm's node (lock.h, lock_*.c), rounded up from their sizes. */
#define MEM_LOCK	1024.0
#define MEM_LOCK_VCPU	128.0

static size_t mem_limit;	/* 0: the machine's */

void
scen_set_mem_limit(size_t bytes)
{
	mem_limit = bytes;
}

double
scen_mem_estimate(const struct scenario *sc)
{
	double b = MEM_BASE + (double)sc->machine.npcpus * 4096;
	int i;

	for (i = 0; i < sc->nvms; i++) {
		const struct vmdef *d = &sc->vms[i];
		double v = d->vcpus, t = wl_peak_tasks(d->wl);	/* spawned ones too */
		double nl = 0;
		int k;

		for (k = 0; k < wl_nlocks(d->wl); k++)
			nl += wl_lock_instances(d->wl, k);

		if (t < 0)
			t = d->threads;
		b += d->count * (v * MEM_VCPU + v * v * MEM_VCPU_PAIR + t * MEM_TASK +
		    nl * (MEM_LOCK + v * MEM_LOCK_VCPU)) +
		    (double)wl_cost(d->wl) * MEM_OP;
	}
	return b;
}

static double
limit_bytes(void)
{
	long pages = sysconf(_SC_PHYS_PAGES), psz = sysconf(_SC_PAGESIZE);
	double lim = pages > 0 && psz > 0 ? (double)pages * (double)psz : 1e300;
	struct rlimit rl;

	if (mem_limit > 0)
		return (double)mem_limit;
	if (getrlimit(RLIMIT_AS, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY &&
	    (double)rl.rlim_cur < lim)
		lim = (double)rl.rlim_cur;
	return lim;
}

static char *
fmt_bytes(double b, char *buf, size_t n)
{
	if (b >= 1024.0 * 1024 * 1024)
		snprintf(buf, n, "%.1f GiB", b / (1024.0 * 1024 * 1024));
	else
		snprintf(buf, n, "%.0f MiB", b / (1024.0 * 1024));
	return buf;
}

/* Refuse, before anything runs, a scenario that cannot fit in memory. */
static int
check_memory(const struct scenario *sc, const struct yc_node *vms, struct vs_err *err)
{
	double need = scen_mem_estimate(sc), lim = limit_bytes(), big = -1, nv = 0;
	char a[32], b[32];
	int i, at = 0;

	if (need <= lim)
		return 0;
	for (i = 0; i < sc->nvms; i++) {
		const struct vmdef *d = &sc->vms[i];
		double x = (double)d->count * d->vcpus;

		nv += x;
		if (x > big) {
			big = x;
			at = i;
		}
	}
	return yc_err(vms->vals[at], err, "this scenario needs about %s of memory (%.0f vCPUs "
	    "in all; VM '%s': %d x %d vCPUs) but %s is available: use fewer VMs, vCPUs or tasks",
	    fmt_bytes(need, a, sizeof a), nv, sc->vms[at].name, sc->vms[at].count,
	    sc->vms[at].vcpus, fmt_bytes(lim, b, sizeof b));
}

/*
 * `until: done` with no duration needs a thread that ends (as run.c counts
 * them: every thread of a VM whose workload has no loop: forever); say where
 * the scenario lost them (count: 0, threads: 0) rather than after setting up.
 */
static int
ends_none(const struct scenario *sc, const struct yc_node *vms, struct vs_err *err)
{
	const struct yc_node *at = vms;
	int i;

	for (i = 0; i < sc->nvms; i++) {
		const struct vmdef *d = &sc->vms[i];
		int64_t t = wl_has_tasks(d->wl) ? wl_ntasks(d->wl) : d->threads;

		if (d->count > 0 && t > 0 && !wl_endless(d->wl))
			return 0;
		if (at == vms && (d->count == 0 || t == 0)) {
			at = yc_find(vms->vals[i], d->count == 0 ? "count" : "threads");
			if (at == NULL)
				at = vms->vals[i];
		}
	}
	return yc_err(at, err, "'until: done' but no thread ever ends (every VM has count 0, "
	    "no threads, or a loop: forever): give a 'duration'");
}

static int
parse_top(struct scenario *sc, struct yc_node *root, struct vs_err *err)
{
	static const struct yc_node empty = { .kind = YC_MAP };
	const struct yc_node *n, *vms, *workloads;
	struct top_keys k = { .duration = -1, .until = -1 };
	size_t i, cost = 0;

	if (yc_expect(root, YC_MAP, "a scenario (a mapping)", err))
		return -1;
	n = yc_find(root, "machine");
	if (machine_from_yaml(&sc->machine, n ? n : &empty, err) ||
	    yc_params_read(root, scen_params, NULL, sc->machine.hz, &k, err))
		return -1;
	sc->name = xstrdup(k.name);
	sc->seed = (uint64_t)k.seed;
	sc->reps = k.reps;
	sc->duration = k.duration < 0 ? SIM_NEVER : sim_ns(k.duration);
	if (k.until < 0)
		k.until = k.duration < 0;
	sc->until_done = k.until;
	sc->fast_forward = k.fast_forward;
	if (!k.until && k.duration < 0)
		return yc_err(root, err, "'until: duration' needs a 'duration'");
	sc->warmup = sim_ns(k.warmup);
	if (sc->warmup > 0 && k.until)
		return yc_err(yc_find(root, "warmup"), err, "a 'warmup' needs 'until: duration' "
		    "(a run that ends when its threads are done has no measured interval)");
	if (sc->warmup > 0 && sc->warmup > SIM_TIME_CAP - sc->duration)
		return yc_err(yc_find(root, "warmup"), err, "warmup + duration is past the cap on "
		    "simulated time (%.0e ns)", (double)SIM_TIME_CAP);
	if (parse_hypervisor(sc, yc_find(root, "hypervisor"), err))
		return -1;
	workloads = yc_find(root, "workloads");
	if (workloads != NULL) {
		if (yc_expect(workloads, YC_MAP, "a mapping of workload names to programs", err))
			return -1;
		for (i = 0; i < workloads->n; i++)
			workloads->used[i] = 1;
	}
	if ((vms = yc_find(root, "vms")) == NULL)
		return yc_err(root, err, "scenario has no 'vms'");
	if (yc_expect(vms, YC_SEQ, "a list of VMs", err))
		return -1;
	if (vms->n == 0)
		return yc_err(vms, err, "'vms' is empty");
	sc->vms = xcalloc(vms->n, sizeof *sc->vms);
	for (i = 0; i < vms->n; i++) {
		sc->nvms++;
		if (parse_vm(sc, &sc->vms[i], vms->vals[i], workloads, err))
			return -1;
		/* each VM compiles its own workload: aliased VMs multiply it */
		cost += wl_cost(sc->vms[i].wl);
		if (cost > SCEN_MAX_COST)
			return yc_err(vms->vals[i], err, "the VMs' workloads expand to more than %zu "
			    "primitives and samples in all (YAML aliases repeat a node at every use)",
			    SCEN_MAX_COST);
	}
	if (check_cgroups(sc, err))
		return -1;
	if ((n = yc_find(root, "metrics")) != NULL && parse_metrics(sc, n, err))
		return -1;
	if (yc_params_check(root, scen_params, NULL, err))
		return -1;
	if (sc->until_done && sc->duration == SIM_NEVER && ends_none(sc, vms, err))
		return -1;
	/* with no duration the run lasts until its threads end: each must end
	 * before the cap on simulated time */
	for (i = 0; sc->duration == SIM_NEVER && i < (size_t)sc->nvms; i++)
		if (sc->vms[i].count > 0 && !wl_endless(sc->vms[i].wl) &&
		    wl_check_cap(sc->vms[i].wl, err))
			return -1;
	return check_memory(sc, vms, err);
}

/*
 * `calibration: FILE.yaml` holds {set: ["PATH=VALUE", ...]} written by
 * `vlocksim calibrate`; its values apply before the command line's --set.
 */
static int
apply_calibration(struct yc_doc *doc, struct vs_err *err)
{
	const struct yc_node *c = yc_find(yc_root(doc), "calibration"), *set;
	size_t i;

	if (c == NULL)
		return 0;
	if (yc_expect(c, YC_MAP, "a calibration file (set: [...])", err))
		return -1;
	if ((set = yc_find(c, "set")) == NULL)
		return yc_err(c, err, "a calibration file needs 'set'");
	if (yc_expect(set, YC_SEQ, "a list of \"PATH=VALUE\"", err) ||
	    yc_check_unused(c, "set", err))
		return -1;
	for (i = 0; i < set->n; i++) {
		const struct yc_node *s = set->vals[i];
		struct vs_err e2;

		if (s->kind != YC_SCALAR)
			return yc_err(s, err, "expected \"PATH=VALUE\"");
		if (yc_set(doc, s->text, &e2))
			return yc_err(s, err, "%s", e2.msg);
	}
	return 0;
}

int
scen_load(struct scenario *sc, const char *path, char *const *sets, int nsets,
    struct vs_err *err)
{
	struct yc_doc *doc;
	int i, rc;

	memset(sc, 0, sizeof *sc);
	sc->path = xstrdup(path);
	if ((doc = yc_load(path, err)) == NULL) {
		scen_free(sc);
		return -1;
	}
	if (apply_calibration(doc, err)) {
		yc_free(doc);
		scen_free(sc);
		return -1;
	}
	for (i = 0; i < nsets; i++)
		if (yc_set(doc, sets[i], err)) {
			yc_free(doc);
			scen_free(sc);
			return -1;
		}
	rc = parse_top(sc, yc_root(doc), err);
	yc_free(doc);
	if (rc)
		scen_free(sc);	/* nothing half-built is left; a second scen_free is a no-op */
	return rc;
}

void
scen_free(struct scenario *sc)
{
	int i;

	for (i = 0; i < sc->nvms; i++) {
		struct vmdef *d = &sc->vms[i];

		if (d->lock != NULL)
			lock_op_free_cfg(d->lock, d->lock_cfg);
		wl_free(d->wl);
		free(d->affinity);
		free(d->cg_where);
		free(d->cg_name);
		free(d->where);
		free(d->name);
	}
	for (i = 0; i < sc->nmetrics; i++) {
		free(sc->metrics[i]);
		free(sc->metric_where[i]);
	}
	if (sc->sched != NULL)
		sched_op_free_cfg(sc->sched, sc->sched_cfg);
	if (sc->kind != NULL)
		kind_op_free_cfg(sc->kind, sc->kind_cfg);
	free(sc->metrics);
	free(sc->metric_where);
	free(sc->vms);
	machine_free(&sc->machine);
	free(sc->name);
	free(sc->path);
	memset(sc, 0, sizeof *sc);
}
