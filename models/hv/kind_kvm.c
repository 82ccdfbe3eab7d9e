/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * kind_kvm.c - KVM's side of spinning: pause-loop exiting, directed yield, and
 * the host side of the PV hypercalls (halt polling: kvm_halt_poll.c).
 *
 * PLE (Intel VMX; model-reference §2.1-2.3) or the AMD pause filter (SVM):
 * a vCPU that spins in the guest kernel longer than its window exits;
 * handle_pause / pause_interception call kvm_vcpu_on_spin, which looks for
 * another vCPU of the same VM to yield_to, in the hope that it holds the
 * lock.  kvm_vcpu_on_spin is a table of versions (dy_versions below), each
 * a set of switches that a scenario may override one by one:
 *   skip_running   3.2 kvm_vcpu_yield_to: refuse a vCPU in guest mode (PF_VCPU)
 *   dy_eligible    "KVM: Choose better candidate for directed yield" (2012)
 *   only_preempted "kvm: Iterate over only vcpus that are preempted" (2013)
 *   esrch_exit     "kvm: Handle yield_to failure return code for potential
 *                  undercommit case" (2013): three -ESRCH answers end the search
 *   ready_boost    "KVM: Boost vCPUs that are delivering interrupts"
 *                  (d73eb57b80b, 2019): vcpu->ready (preempted, or woken and
 *                  not run yet) instead of preempted
 *   prefer_ipi     the IPI-aware candidate selection proposed on the KVM list
 *                  in 2025 (a proposal, not merged): first try the vCPU this
 *                  one last kicked, if it has not run since
 * PV (LNX-6.6 arch/x86/kvm/x86.c kvm_emulate_hypercall): KVM_HC_SCHED_YIELD
 * ("KVM: X86: Implement PV sched yield hypercall", Linux 5.2) and, after
 * KVM_HC_KICK_CPU, a yield to the kicked vCPU ("KVM: X86: Boost queue head
 * vCPU to mitigate lock waiter preemption", 266e85a5ec9, Linux 5.3), both
 * through kvm_sched_yield: yield_to the target if it is ready, not self.
 * Leaves out: kvm_sched_yield's single_task_running() bail-out and
 * kvm_vcpu_on_spin's yield_to_kernel_mode test (guests here spin in the
 * kernel only).
 */
#include <stdlib.h>
#include <string.h>

#include "hv/hv.h"
#include "hv/kind.h"
#include "hv/kvm_priv.h"
#include "metrics.h"
#include "yconf.h"
#include "yparam.h"

struct dy_cfg {
	int skip_running, dy_eligible, only_preempted, esrch_exit, ready_boost, prefer_ipi;
};

static const struct dy_version {
	const char *name;
	struct dy_cfg sw;
	const char *source;
} dy_versions[] = {
	{ "3.2", { 1, 0, 0, 0, 0, 0 },
	  "Linux 3.2 kvm_vcpu_on_spin (directed yield of 2.6.39): round robin from "
	  "last_boosted_vcpu, skip self and halted, PF_VCPU refuses running targets" },
	{ "3.10", { 0, 1, 1, 1, 0, 0 },
	  "Linux 3.10: + dy_eligible (2012), preempted vCPUs only (2013), "
	  "-ESRCH exit after 3 (2013)" },
	{ "5.3", { 0, 1, 0, 1, 1, 0 },
	  "Linux 5.3 d73eb57b80b \"KVM: Boost vCPUs that are delivering interrupts\": "
	  "vcpu->ready replaces preempted (also 6.x)" },
};
#define NDY (sizeof dy_versions / sizeof dy_versions[0])

enum ple_hw { PLE_VMX, PLE_SVM };

struct kvm_cfg {
	int ple;		/* the CPU has PLE / a pause filter and KVM enables it */
	enum ple_hw hw;
	double window_ns, max_ns;
	double base;		/* the window in its own unit (cycles, PAUSEs) for grow/shrink */
	double grow, shrink;
	int dynamic;
	int version;		/* index in dy_versions */
	struct dy_cfg dy;
	int dy_given, pv_given;	/* directed_yield/spin_handler/ple, pv keys: metrics shown */
	int pv_sched_yield;	/* KVM_FEATURE_PV_SCHED_YIELD offered */
	int yield_on_kick;	/* KVM_HC_KICK_CPU also calls kvm_sched_yield */
	int apicv, ipiv;	/* posted interrupts; IPI virtualization (kvm_ipi_path) */
	struct kvm_hp_cfg hp;
};

struct kvm_vcpu {
	double window_ns;	/* this vCPU's current PLE window */
	int preempted, ready, in_spin_loop, dy_eligible;
	int ipi_to;		/* the vCPU (global id) it last kicked, -1 none */
	struct kvm_hp_vcpu hp;
	uint64_t dy_yields, pv_yields, pv_yield_tries;
	int ff_fails;		/* the last PLE exit's failed yield_to calls; -1: not repeatable */
};

struct kvm {
	const struct kvm_cfg *cfg;
	struct kvm_vcpu *v;	/* per vCPU, by global id */
	int *last_boosted;	/* per VM */
	int scan_touched;	/* this scan changed another vCPU's state (dy_eligible) */
	int dy_32;		/* the switches are 3.2's (kvm_ple_exit's constant scan) */
	int in_plain;		/* sched_in neither shrinks nor clears IPI targets */
};

/* The keys of hypervisor.ple and .pause_filter as written (parse_ple and
 * parse_pause_filter turn them into struct kvm_cfg). */
struct ple_keys {
	int defaults, enabled, dynamic;
	double window, gap, grow, shrink, max;
};
struct pf_keys {
	double count, thresh, grow, shrink, max;
};

static const char *const ple_presets[] = { "3.2", "6.6", NULL };
static const char *const hp_policies[] = { "off", "fixed", "dynamic", NULL };

/* hypervisor.* keys of kvm (kvm_parse, kvm_hp_parse; kvm_list has the version table). */
const struct vs_param kvm_params[] = {
	{ "directed_yield", "3.2", "kvm_vcpu_on_spin version, or {version, SWITCH: bool...} "
	  "(spin_handler is the older name); vlocksim list prints each version's switches",
	  "enum (see the version table)", "", VS_LIST },
	{ "directed_yield.version", "3.2", "the version whose switches the others change",
	  "enum (see the version table)", "", VS_LIST },
	{ "directed_yield.skip_running", "(the version's)", "3.2 kvm_vcpu_yield_to: refuse a "
	  "vCPU in guest mode (PF_VCPU)", "bool", "",
	  VP_BOOL, VS_AT(struct dy_cfg, skip_running), 0, 1, 0, NULL },
	{ "directed_yield.dy_eligible", "(the version's)", "\"KVM: Choose better candidate for "
	  "directed yield\" (2012)", "bool", "",
	  VP_BOOL, VS_AT(struct dy_cfg, dy_eligible), 0, 1, 0, NULL },
	{ "directed_yield.only_preempted", "(the version's)", "\"kvm: Iterate over only vcpus "
	  "that are preempted\" (2013)", "bool", "",
	  VP_BOOL, VS_AT(struct dy_cfg, only_preempted), 0, 1, 0, NULL },
	{ "directed_yield.esrch_exit", "(the version's)", "three -ESRCH answers of yield_to end "
	  "the search (2013)", "bool", "", VP_BOOL, VS_AT(struct dy_cfg, esrch_exit), 0, 1, 0,
	  NULL },
	{ "directed_yield.ready_boost", "(the version's)", "vcpu->ready instead of preempted "
	  "(d73eb57b80b, 2019)", "bool", "", VP_BOOL, VS_AT(struct dy_cfg, ready_boost), 0, 1,
	  0, NULL },
	{ "directed_yield.prefer_ipi_target", "(the version's)", "first try the vCPU this one "
	  "last kicked (a 2025 proposal, not merged)", "bool", "",
	  VP_BOOL, VS_AT(struct dy_cfg, prefer_ipi), 0, 1, 0, NULL },
	{ "spin_handler", "3.2", "the older name of directed_yield: VERSION",
	  "enum (see the version table)", "", VS_LIST },
	{ "ple.defaults", NULL, "Intel PLE presets: 3.2 (vmx.c LNX-3.6/4.5) or 6.6 (dynamic, "
	  "max 4294967295cycles)", "enum 3.2|6.6", "",
	  VP_ENUM, VS_AT(struct ple_keys, defaults), 0, 0, 0, ple_presets },
	{ "ple.enabled", NULL, "PAUSE-loop exiting on (vmx.c ple_gap != 0)", "bool", "",
	  VP_BOOL, VS_AT(struct ple_keys, enabled), 0, 1, 1, NULL },
	{ "ple.window", NULL, "ple_window (KVM_VMX_DEFAULT_PLE_WINDOW)", "time", "cycles",
	  VP_TIME, VS_AT(struct ple_keys, window), 1, 1e9, 4096, NULL },
	{ "ple.gap", NULL, "ple_gap: the longest gap between PAUSEs of one loop", "time",
	  "cycles", VP_TIME, VS_AT(struct ple_keys, gap), 0, 1e9, 128, NULL },
	{ "ple.dynamic", NULL, "grow/shrink the window per vCPU (LNX-3.18 grow_ple_window; "
	  "true with defaults 6.6)", "bool", "", VP_BOOL, VS_AT(struct ple_keys, dynamic), 0, 1,
	  0, NULL },
	{ "ple.grow", NULL, "ple_window_grow", "number", "",
	  VP_NUM, VS_AT(struct ple_keys, grow), 0, 1e9, 2, NULL },
	{ "ple.shrink", NULL, "ple_window_shrink", "number", "",
	  VP_NUM, VS_AT(struct ple_keys, shrink), 0, 1e9, 0, NULL },
	{ "ple.max", NULL, "ple_window_max", "time", "cycles",
	  VP_TIME, VS_AT(struct ple_keys, max), 1, 1e12, 1073741823, NULL },
	{ "pause_filter.count", NULL, "AMD SVM pause_filter_count (LNX-6.6 svm.c), in PAUSEs",
	  "int", "", VP_NUM, VS_AT(struct pf_keys, count), 0, 65535, 3000, NULL },
	{ "pause_filter.thresh", NULL, "pause_filter_thresh", "time", "cycles",
	  VP_TIME, VS_AT(struct pf_keys, thresh), 0, 1e9, 128, NULL },
	{ "pause_filter.grow", NULL, "pause_filter_count_grow", "number", "",
	  VP_NUM, VS_AT(struct pf_keys, grow), 0, 65535, 2, NULL },
	{ "pause_filter.shrink", NULL, "pause_filter_count_shrink", "number", "",
	  VP_NUM, VS_AT(struct pf_keys, shrink), 0, 65535, 0, NULL },
	{ "pause_filter.max", NULL, "pause_filter_count_max", "int", "",
	  VP_NUM, VS_AT(struct pf_keys, max), 1, 65535, 65535, NULL },
	{ "apicv", NULL, "APICv: posted interrupts and virtual EOI (Linux 3.10 \"KVM: VMX: "
	  "Use posted interrupt to deliver virtual interrupt\"; Ivy Bridge-EP and later, not "
	  "Nehalem/Westmere): a running IPI target takes no exit", "bool", "",
	  VP_BOOL, VS_AT(struct kvm_cfg, apicv), 0, 1, 0, NULL },
	{ "ipiv", NULL, "IPI virtualization, enable_ipiv (d588bb9be1da \"KVM: VMX: enable IPI "
	  "virtualization\", Linux 5.19; Sapphire Rapids; needs apicv): a physical unicast ICR "
	  "write does not exit", "bool", "", VP_BOOL, VS_AT(struct kvm_cfg, ipiv), 0, 1, 0,
	  NULL },
	{ "pv.sched_yield", NULL, "the host offers KVM_HC_SCHED_YIELD (5.2; false: an older "
	  "host)", "bool", "", VP_BOOL, VS_AT(struct kvm_cfg, pv_sched_yield), 0, 1, 1, NULL },
	{ "pv.yield_on_kick", NULL, "KVM_HC_KICK_CPU yields to the kicked vCPU (266e85a5ec9, "
	  "5.3)", "bool", "", VP_BOOL, VS_AT(struct kvm_cfg, yield_on_kick), 0, 1, 0, NULL },
	{ "halt_poll", "0ns", "a fixed poll window every halt (halt_poll_ns, Linux 4.0; 0: off), or "
	  "{policy: dynamic|fixed|off, max, grow, grow_start, shrink, window}", "time", "ns",
	  VS_LIST },
	{ "halt_poll.policy", NULL, "dynamic: LNX-6.12 kvm_vcpu_halt's per-vCPU window; "
	  "fixed: window every halt; off", "enum off|fixed|dynamic", "",
	  VP_ENUM, VS_AT(struct kvm_hp_cfg, mode), 0, 0, KVM_HP_DYNAMIC, hp_policies },
	{ "halt_poll.window", NULL, "policy fixed: the poll window of every halt", "time", "ns",
	  VP_TIME, VS_AT(struct kvm_hp_cfg, fixed_ns), 0, 1e9, 0, NULL },
	/* LNX-6.12 virt/kvm/kvm_main.c and arch/x86/include/asm/kvm_host.h */
	{ "halt_poll.max", NULL, "halt_poll_ns (x86 KVM_HALT_POLL_NS_DEFAULT, policy dynamic)",
	  "time", "ns", VP_TIME, VS_AT(struct kvm_hp_cfg, max_ns), 0, 1e10, 200000, NULL },
	{ "halt_poll.grow", NULL, "halt_poll_ns_grow", "number", "",
	  VP_NUM, VS_AT(struct kvm_hp_cfg, grow), 0, 1e6, 2, NULL },
	{ "halt_poll.grow_start", NULL, "halt_poll_ns_grow_start", "time", "ns",
	  VP_TIME, VS_AT(struct kvm_hp_cfg, grow_start_ns), 0, 1e10, 10000, NULL },
	{ "halt_poll.shrink", NULL, "halt_poll_ns_shrink (0: reset, the Linux 4.0-5.4 default; "
	  "\"Default halves\" since)", "number", "",
	  VP_NUM, VS_AT(struct kvm_hp_cfg, shrink), 0, 1e6, 2, NULL },
	{ NULL, NULL, NULL, NULL, NULL, VS_LIST }
};

static int
parse_version(const struct yc_node *n, const char *key, int *out, struct vs_err *err)
{
	const char *names[NDY + 1];
	size_t i;

	for (i = 0; i < NDY; i++)
		names[i] = dy_versions[i].name;
	names[NDY] = NULL;
	return yc_get_enum(n, key, names, *out, out, err);
}

/* hypervisor.directed_yield: "VERSION" or {version, switches...} */
static int
parse_dy(const struct yc_node *n, struct kvm_cfg *c, const struct machine *m,
    struct vs_err *err)
{
	const struct yc_node *d = yc_find(n, "directed_yield");
	struct dy_cfg *s = &c->dy;

	if (parse_version(n, "spin_handler", &c->version, err))
		return -1;
	if (d != NULL && d->kind != YC_MAP) {
		if (parse_version(n, "directed_yield", &c->version, err))
			return -1;
		*s = dy_versions[c->version].sw;
		return 0;
	}
	if (d != NULL && parse_version(d, "version", &c->version, err))
		return -1;
	*s = dy_versions[c->version].sw;
	if (d == NULL)
		return 0;
	if (yc_params_read(d, kvm_params, "directed_yield", m->hz, s, err))
		return -1;
	return yc_params_check(d, kvm_params, "directed_yield", err);
}

/*
 * hypervisor.ple: Intel PLE.  defaults "3.2" = today's model (fixed window
 * unless dynamic: true, LNX-4.5 max); "6.6" = LNX-6.6 vmx.c / x86.h
 * (KVM_DEFAULT_PLE_GAP 128, KVM_VMX_DEFAULT_PLE_WINDOW 4096, grow 2,
 * shrink 0, KVM_VMX_DEFAULT_PLE_WINDOW_MAX UINT_MAX, always dynamic).
 */
static int
parse_ple(const struct yc_node *ple, const struct machine *m, struct kvm_cfg *c,
    struct vs_err *err)
{
	struct ple_keys k;

	if (yc_expect(ple, YC_MAP, "PLE settings {defaults, window, gap, dynamic, ...}", err) ||
	    yc_params_read(ple, kvm_params, "ple", m->hz, &k, err))
		return -1;
	if (k.defaults == 1) {		/* 6.6 */
		if (yc_find(ple, "dynamic") == NULL)
			k.dynamic = 1;
		if (yc_find(ple, "max") == NULL)
			k.max = 4294967295.0 * 1e9 / m->hz;
	}
	c->hw = PLE_VMX;
	/* ple_gap only says whether PAUSEs belong to one loop: spin loops here always do,
	 * unless it is 0, which turns PLE off (vmx.c: "Also indicate if ple enabled"). */
	c->ple = k.enabled && k.gap != 0;
	c->window_ns = k.window;
	c->dynamic = k.dynamic;
	c->grow = k.grow;
	c->shrink = k.shrink;
	c->max_ns = k.max;
	c->base = c->window_ns / (1e9 / m->hz);
	return yc_params_check(ple, kvm_params, "ple", err);
}

/*
 * hypervisor.pause_filter: AMD SVM (LNX-6.6 svm.c): pause_filter_count 3000
 * PAUSEs (KVM_SVM_DEFAULT_PLE_WINDOW), pause_filter_thresh 128 cycles
 * (KVM_DEFAULT_PLE_GAP), grow 2, shrink 0, max USHRT_MAX; the count grows
 * in pause_interception and shrinks in svm_sched_in.  thresh or count 0:
 * pause_in_guest (svm_vm_init), no pause exits at all.
 */
static int
parse_pause_filter(const struct yc_node *pf, const struct machine *m, struct kvm_cfg *c,
    struct vs_err *err)
{
	struct pf_keys k;

	if (yc_expect(pf, YC_MAP, "pause filter settings {count, thresh, grow, shrink, max}",
	    err) || yc_params_read(pf, kvm_params, "pause_filter", m->hz, &k, err))
		return -1;
	c->hw = PLE_SVM;
	c->ple = k.count > 0 && k.thresh > 0;
	c->dynamic = 1;
	c->base = k.count;
	c->grow = k.grow;
	c->shrink = k.shrink;
	/* the count is of PAUSE instructions (one per spin iteration here) */
	c->window_ns = k.count * m->pause_ns;
	c->max_ns = k.max * m->pause_ns;
	return yc_params_check(pf, kvm_params, "pause_filter", err);
}

/* The keys of the hypervisor mapping itself are checked by the scenario
 * (with its own: kind, scheduler, params). */
static int
kvm_parse(const struct yc_node *n, const struct machine *m, void **out, struct vs_err *err)
{
	struct kvm_cfg *c = xcalloc(1, sizeof *c);
	const struct yc_node *ple = n ? yc_find(n, "ple") : NULL;
	const struct yc_node *pf = n ? yc_find(n, "pause_filter") : NULL;
	const struct yc_node *pv = n ? yc_find(n, "pv") : NULL;

	*out = c;
	c->version = 0;
	c->dy = dy_versions[0].sw;
	if (n != NULL && parse_dy(n, c, m, err))
		return -1;
	if (kvm_hp_parse(n, m, &c->hp, err))
		return -1;
	/* PV: offered unless told (the guest decides whether to call it) */
	if ((pv != NULL && yc_expect(pv, YC_MAP, "PV settings {sched_yield, yield_on_kick}",
	    err)) || yc_params_read(pv, kvm_params, "pv", m->hz, c, err) ||
	    yc_params_check(pv, kvm_params, "pv", err))
		return -1;
	if (yc_params_read(n, kvm_params, NULL, m->hz, c, err))
		return -1;
	/* vmx.c hardware_setup: enable_ipiv is cleared without enable_apicv */
	if (c->ipiv && !c->apicv)
		return yc_err(yc_find(n, "ipiv"), err, "ipiv needs apicv: true (IPI "
		    "virtualization posts into the target's posted-interrupt descriptor)");
	c->dy_given = ple != NULL || pf != NULL || (n != NULL &&
	    (yc_find(n, "directed_yield") != NULL || yc_find(n, "spin_handler") != NULL));
	c->pv_given = pv != NULL;
	if (ple != NULL && pf != NULL)
		return yc_err(pf, err, "give either ple (Intel) or pause_filter (AMD), not both");
	if (ple != NULL)
		return parse_ple(ple, m, c, err);
	if (pf != NULL)
		return parse_pause_filter(pf, m, c, err);
	return 0;
}

static void
kvm_free_cfg(void *c)
{
	free(c);
}

static void
kvm_init(struct hv *hv, const void *cfg)
{
	struct kvm *k = xcalloc(1, sizeof *k);
	int i;

	k->cfg = cfg;
	k->v = xcalloc((size_t)hv->nvcpus, sizeof *k->v);
	k->last_boosted = xcalloc((size_t)hv->nvms, sizeof *k->last_boosted);
	for (i = 0; i < hv->nvcpus; i++) {
		k->v[i].window_ns = k->cfg->window_ns;
		k->v[i].ipi_to = -1;
	}
	for (i = 0; i < hv->nvms; i++)
		k->last_boosted[i] = -1;
	k->dy_32 = memcmp(&k->cfg->dy, &dy_versions[0].sw, sizeof k->cfg->dy) == 0;
	k->in_plain = !k->cfg->dynamic && !k->cfg->dy.prefer_ipi;
	hv->kind_priv = k;
}

static void
kvm_deinit(struct hv *hv)
{
	struct kvm *k = hv->kind_priv;

	free(k->v);
	free(k->last_boosted);
	free(k);
	hv->kind_priv = NULL;
}

static double
kvm_ple_window(struct hv *hv, struct vcpu *v)
{
	struct kvm *k = hv->kind_priv;

	return k->cfg->ple ? k->v[v->id].window_ns : 0;
}

/* kvm_intel's ple_gap = 0 (or kvm_amd's pause_filter_count = 0): no
 * vCPU ever gets a window (vmx.c hardware_setup clears PLE for all) */
static int
kvm_ple_off(struct hv *hv)
{
	struct kvm *k = hv->kind_priv;

	return !k->cfg->ple;
}

/* LNX-6.6 x86.h: __grow_ple_window (svm.c and vmx.c grow_ple_window) */
static void
grow_window(struct kvm *k, struct kvm_vcpu *kv)
{
	const struct kvm_cfg *c = k->cfg;

	if (c->grow < 1)
		kv->window_ns = c->window_ns;
	else if (c->grow < c->base)
		kv->window_ns *= c->grow;
	else
		kv->window_ns += c->grow * (c->window_ns / c->base);
	if (kv->window_ns > c->max_ns)
		kv->window_ns = c->max_ns;
}

/* LNX-6.6 x86.h: __shrink_ple_window, called from vmx_sched_in / svm_sched_in */
static void
shrink_window(struct kvm *k, struct kvm_vcpu *kv)
{
	const struct kvm_cfg *c = k->cfg;

	if (c->shrink < 1)
		kv->window_ns = c->window_ns;
	else if (c->shrink < c->base)
		kv->window_ns /= c->shrink;
	else
		kv->window_ns -= c->shrink * (c->window_ns / c->base);
	if (kv->window_ns < c->window_ns)
		kv->window_ns = c->window_ns;
}

/* LNX-3.10 kvm_main.c: kvm_vcpu_eligible_for_directed_yield */
static int
eligible(struct kvm *k, struct kvm_vcpu *t)
{
	int e = !t->in_spin_loop || t->dy_eligible;

	if (t->in_spin_loop) {
		t->dy_eligible = !t->dy_eligible;
		k->scan_touched = 1;
	}
	return e;
}

/* The candidate filters of kvm_vcpu_on_spin, as the switches select them
 * (inline: the scan asks of every vCPU, 1.4 per PLE exit in a storm). */
static inline int
candidate(const struct hv *hv, struct kvm *k, const struct dy_cfg *s, const struct vcpu *me,
    const struct vcpu *t)
{
	struct kvm_vcpu *kt = &k->v[t->id];

	if (s->ready_boost ? !kt->ready : s->only_preempted && !kt->preempted)
		return 0;
	if (t == me)
		return 0;
	/* halted: its wait queue is active and no kick is pending */
	if (t->blocked && hv->gops->is_halted(t))
		return 0;
	if (s->dy_eligible && !eligible(k, kt))
		return 0;
	/* LNX-3.2 kvm_vcpu_yield_to: PF_VCPU (in guest mode) refuses */
	if (s->skip_running && t->pcpu != NULL)
		return 0;
	return 1;
}

/* LNX-3.2 / 3.10 / 5.3 kvm_main.c: kvm_vcpu_on_spin; returns 1 if it yielded;
 * s: the switches (kvm_ple_exit's instantiations: the scenario's, or 3.2's
 * as constants, whose filters the compiler then folds) */
static inline __attribute__((always_inline)) int
on_spin(struct hv *hv, struct vcpu *me, const struct dy_cfg *s)
{
	struct kvm *k = hv->kind_priv;
	struct vm *vm = me->vm;
	struct kvm_vcpu *km = &k->v[me->id];
	int n = vm->nvcpus, i = k->last_boosted[vm->id], j, tries = 3, r;

	km->in_spin_loop = 1;
	/* 2025 IPI-aware proposal: the vCPU we kicked and that has not run since first */
	if (s->prefer_ipi && km->ipi_to >= 0) {
		struct vcpu *t = hv->vcpus[km->ipi_to];

		if (t->vm == vm && candidate(hv, k, s, me, t) && hv_yield_to(me, t) > 0) {
			km->dy_yields++;
			k->last_boosted[vm->id] = t->idx;
			return 1;
		}
	}
	/* LNX-6.11 kvm_main.c kvm_vcpu_on_spin: one loop from last_boosted_vcpu + 1,
	 * wrapping: the order of 3.2's two passes (after last, then up to it) */
	for (j = 0; j < n; j++) {
		struct vcpu *t;

		if (++i == n)
			i = 0;
		t = vm->vcpus[i];
		if (!candidate(hv, k, s, me, t))
			continue;
		r = hv_yield_to(me, t);
		if (r > 0) {
			km->dy_yields++;
			k->last_boosted[vm->id] = i;
			return 1;
		}
		if (r < 0 && s->esrch_exit && --tries == 0)
			return 0;
	}
	return 0;
}

/*
 * handle_pause (vmx.c) / pause_interception (svm.c): grow the window, then
 * kvm_vcpu_on_spin.  LNX-3.2 virt/kvm/kvm_main.c kvm_vcpu_on_spin writes
 * kvm->last_boosted_vcpu only when yield_to succeeds, so a scan that yielded to
 * nobody, left the window as it was and toggled no dy_eligible leaves
 * everything as it found it: the PLE fast-forward may repeat it.
 */
static inline __attribute__((always_inline)) void
ple_exit(struct hv *hv, struct vcpu *me, const struct dy_cfg *s)
{
	struct kvm *k = hv->kind_priv;
	struct kvm_vcpu *km = &k->v[me->id];
	uint64_t fail0 = hv->st.yield_to_fail;
	double w0 = km->window_ns;

	if (k->cfg->dynamic)
		grow_window(k, km);
	k->scan_touched = 0;
	km->ff_fails = -1;
	if (!on_spin(hv, me, s) && !k->scan_touched && km->window_ns == w0)
		km->ff_fails = (int)(hv->st.yield_to_fail - fail0);
}

/* ple_exit with 3.2's switches as constants where the scenario's are
 * those (spin_handler "3.2", the default: both seed001 hosts), so the scan
 * tests no switch (1.4 M exits per 20 s of seed001-x7560 3x); the same
 * filters in the same order, so the same yields */
static void
kvm_ple_exit(struct hv *hv, struct vcpu *me)
{
	struct kvm *k = hv->kind_priv;

	if (k->dy_32)
		ple_exit(hv, me, &dy_versions[0].sw);
	else
		ple_exit(hv, me, &k->cfg->dy);
}

static int
kvm_ple_repeatable(struct hv *hv, struct vcpu *v)
{
	struct kvm *k = hv->kind_priv;

	return k->v[v->id].ff_fails;
}

/* n more exits as the last: kvm_ple_done, then the same failed scan. */
static void
kvm_ple_repeat(struct hv *hv, struct vcpu *v, uint64_t n)
{
	struct kvm *k = hv->kind_priv;
	struct kvm_vcpu *kv = &k->v[v->id];

	VS_ASSERT(kv->ff_fails >= 0);
	if (n == 0)
		return;
	kv->dy_eligible = 0;
	kv->in_spin_loop = 1;
	hv->st.yield_to_fail += n * (uint64_t)kv->ff_fails;
}

static double
kvm_ple_done(struct hv *hv, struct vcpu *v)
{
	struct kvm *k = hv->kind_priv;

	k->v[v->id].in_spin_loop = 0;
	k->v[v->id].dy_eligible = 0;
	return kvm_ple_window(hv, v);
}

/* kvm_ple_done's clears are read only by the candidate scan's
 * dy_eligible filter (eligible): without it, by nobody */
static int
kvm_ple_done_quiet(struct hv *hv)
{
	struct kvm *k = hv->kind_priv;

	return !k->cfg->dy.dy_eligible;
}

/* LNX-6.12 sched/core.c single_task_running: nothing else runnable on v's pCPU */
static int
single_task(const struct hv *hv, const struct vcpu *v)
{
	int i, p = v->pcpu != NULL ? v->pcpu->id : v->processor;

	for (i = 0; i < hv->nvcpus; i++) {
		const struct vcpu *u = hv->vcpus[i];

		if (u != v && u->processor == p && !u->blocked && u->rs == RS_RUNNABLE)
			return 0;
	}
	return 1;
}

/*
 * LNX-6.12 kvm_vcpu_halt: the poll loop runs once and gives up when
 * kvm_vcpu_can_poll fails (another task runnable here): an attempted,
 * failed poll of no length.
 */
static double
kvm_halt_poll(struct hv *hv, struct vcpu *v)
{
	struct kvm *k = hv->kind_priv;
	double w = kvm_hp_begin(&k->cfg->hp, &k->v[v->id].hp);

	return w > 0 && !single_task(hv, v) ? 0 : w;
}

static void
kvm_halt_end(struct hv *hv, struct vcpu *v, double halt_ns, double poll_ns, int waited)
{
	struct kvm *k = hv->kind_priv;

	kvm_hp_end(&k->cfg->hp, &k->v[v->id].hp, halt_ns, poll_ns, waited);
}

/* LNX-6.6 kvm_main.c: kvm_sched_in clears preempted and ready; vmx_sched_in shrinks */
static inline void
sched_in(struct kvm *k, struct vcpu *v)
{
	int i;

	k->v[v->id].preempted = 0;
	k->v[v->id].ready = 0;
	/* a fixed window, no IPI-aware scan (both seed001 hosts): nothing more,
	 * known at kvm_init, not asked of the config at every switch */
	if (k->in_plain)
		return;
	if (k->cfg->dynamic)
		shrink_window(k, &k->v[v->id]);
	/* it runs: no longer a pending IPI target of anyone */
	for (i = 0; k->cfg->dy.prefer_ipi && i < v->vm->nvcpus; i++)
		if (k->v[v->vm->vcpus[i]->id].ipi_to == v->id)
			k->v[v->vm->vcpus[i]->id].ipi_to = -1;
}

/* LNX-6.6 kvm_main.c: kvm_sched_out - preempted and ready only if still runnable */
static inline void
sched_out(struct kvm *k, struct vcpu *v)
{
	k->v[v->id].preempted = !v->blocked;
	if (!v->blocked)
		k->v[v->id].ready = 1;
}

/* LNX-6.6 core.c context_switch: prev's preempt notifier (kvm_sched_out,
 * from prepare_task_switch), then next's (kvm_sched_in, from
 * finish_task_switch); one hook a switch, not one per side */
static void
kvm_sched_switch(struct hv *hv, struct vcpu *prev, struct vcpu *next)
{
	struct kvm *k = hv->kind_priv;

	if (prev != NULL)
		sched_out(k, prev);
	if (next != NULL)
		sched_in(k, next);
}

/* LNX-5.3 kvm_main.c: kvm_vcpu_wake_up sets ready when it wakes a sleeper */
static void
kvm_wake(struct hv *hv, struct vcpu *v)
{
	struct kvm *k = hv->kind_priv;
	struct vcpu *c;

	if (v->pcpu == NULL)
		k->v[v->id].ready = 1;
	/* kvm_vcpu_can_poll: a poller whose run queue gains a task stops and sleeps */
	if (v->processor < 0 || (c = hv->pcpus[v->processor].curr) == NULL || c == v)
		return;
	if (hv->gops->is_polling(c))
		hv->gops->poll_stop(c);
}

/* LNX-6.6 x86.c: kvm_sched_yield (ready target, not self); >0 yielded */
static int
sched_yield_to(struct hv *hv, struct vcpu *from, struct vcpu *to)
{
	struct kvm *k = hv->kind_priv;

	k->v[from->id].pv_yield_tries++;	/* directed_yield_attempted */
	if (to == NULL || to == from || to->vm != from->vm || !k->v[to->id].ready)
		return 0;
	if (from->pcpu == NULL || hv_yield_to(from, to) <= 0)
		return 0;
	k->v[from->id].pv_yields++;		/* directed_yield_successful */
	return 1;
}

/* LNX-6.6 x86.c kvm_emulate_hypercall KVM_HC_SCHED_YIELD (KVM_FEATURE_PV_SCHED_YIELD) */
static int
kvm_sched_yield(struct hv *hv, struct vcpu *from, struct vcpu *to)
{
	struct kvm *k = hv->kind_priv;

	return k->cfg->pv_sched_yield ? sched_yield_to(hv, from, to) : 0;
}

/* LNX-6.6 x86.c KVM_HC_KICK_CPU: kvm_pv_kick_cpu_op, then (5.3+) kvm_sched_yield */
static void
kvm_pv_kick(struct hv *hv, struct vcpu *from, struct vcpu *to)
{
	struct kvm *k = hv->kind_priv;

	if (to->vm == from->vm)
		k->v[from->id].ipi_to = to->id;
	if (k->cfg->yield_on_kick)
		sched_yield_to(hv, from, to);
}

/*
 * Metrics of the mechanisms a scenario configures (halt_poll, PLE or
 * directed_yield, pv keys): a scenario without them reports what it did
 * before these existed, byte for byte.
 */
static void
kvm_metrics(struct hv *hv, struct metrics *out)
{
	struct kvm *k = hv->kind_priv;
	const struct kvm_cfg *c = k->cfg;
	double now = (double)hv_measured_ns(hv), all = 0, ok = 0, fail = 0, dy = 0, pvy = 0;
	char name[256];
	int i, j;

	for (i = 0; i < hv->nvms; i++) {
		struct vm *vm = hv->vms[i];
		double p = 0, o = 0, f = 0;

		for (j = 0; j < vm->nvcpus; j++) {
			const struct kvm_vcpu *kv = &k->v[vm->vcpus[j]->id];

			p += kv->hp.poll_ns;
			o += (double)kv->hp.polls_ok;
			f += (double)kv->hp.polls_fail;
			dy += (double)kv->dy_yields;
			pvy += (double)kv->pv_yields;
		}
		if (c->hp.given) {
			snprintf(name, sizeof name, "%s.halt_poll_cpu_share", vm->name);
			metrics_add(out, name, "% of a CPU", now > 0 ? 100 * p / now : 0);
			snprintf(name, sizeof name, "%s.halt_polls_failed", vm->name);
			metrics_add(out, name, "count", f);
		}
		all += p;
		ok += o;
		fail += f;
	}
	if (c->hp.given) {
		metrics_add(out, "halt_poll_seconds", "s", all * 1e-9);
		metrics_add(out, "halt_poll_cpu_share", "% of a CPU", now > 0 ? 100 * all / now : 0);
		metrics_add(out, "halt_polls_succeeded", "count", ok);
		metrics_add(out, "halt_polls_failed", "count", fail);
	}
	if (c->dy_given)
		metrics_add(out, "directed_yields", "count", dy);
	if (c->pv_given)
		metrics_add(out, "pv_sched_yields", "count", pvy);
}

/* The counters kvm_metrics reads, zeroed at the warm-up's end. */
static void
kvm_stats_reset(struct hv *hv)
{
	struct kvm *k = hv->kind_priv;
	int i;

	for (i = 0; i < hv->nvcpus; i++) {
		struct kvm_vcpu *kv = &k->v[i];

		kv->hp.poll_ns = 0;
		kv->hp.polls_ok = kv->hp.polls_fail = 0;
		kv->dy_yields = kv->pv_yields = 0;
	}
}

/*
 * LNX-6.6 lapic.c kvm_apic_send_ipi -> kvm_irq_delivery_to_apic ->
 * __apic_accept_irq per destination: without APICv kvm_lapic_set_irr (the
 * APIC page), kvm_make_request(KVM_REQ_EVENT) and kvm_vcpu_kick's
 * kvm_vcpu_exiting_guest_mode (struct kvm_vcpu): 2 lines, 3 locked RMWs; with
 * it vmx_deliver_posted_interrupt's pi_test_and_set_pir and _on (the PI
 * descriptor) and vcpu->mode: 2 lines, 2 RMWs.  KVM_HC_SEND_IPI since 4.19.
 */
static void
kvm_ipi_path(const struct hv *hv, struct hv_ipi_path *p)
{
	const struct kvm *k = hv->kind_priv;

	p->exits = 1;
	p->posted = k->cfg->apicv;
	p->ipiv = k->cfg->ipiv;
	p->pv_send_ipi = 1;
	p->deliver_lines = 2;
	p->deliver_atomics = k->cfg->apicv ? 2 : 3;
}

static void
kvm_list(FILE *o)
{
	size_t i;

	fputs("  kvm keys (hypervisor.*):\n"
	    "  directed_yield: VERSION | {version, SWITCH: bool...}  kvm_vcpu_on_spin "
	    "(spin_handler: VERSION is the same)\n", o);
	for (i = 0; i < NDY; i++) {
		const struct dy_cfg *s = &dy_versions[i].sw;

		fprintf(o, "    %-5s%s skip_running %d dy_eligible %d only_preempted %d "
		    "esrch_exit %d ready_boost %d\n          %s\n", dy_versions[i].name,
		    i == 0 ? "*" : " ", s->skip_running, s->dy_eligible, s->only_preempted,
		    s->esrch_exit, s->ready_boost, dy_versions[i].source);
	}
	fputs("    (* default)  prefer_ipi_target: false  IPI-aware selection proposed in "
	    "2025 (not merged)\n"
	    "  ple: {defaults: 3.2|6.6, enabled, window, gap, dynamic, grow, shrink, max}  Intel\n"
	    "    3.2*: window 4096cycles, gap 128cycles, dynamic false, grow 2, shrink 0,\n"
	    "          max 1073741823cycles (vmx.c LNX-3.6/4.5; dynamic window from 3.18)\n"
	    "    6.6:  window 4096cycles, gap 128cycles, dynamic true, grow 2, shrink 0,\n"
	    "          max 4294967295cycles (LNX-6.6 vmx.c, x86.h KVM_*_PLE_*)\n"
	    "  pause_filter: {count: 3000, thresh: 128cycles, grow: 2, shrink: 0, max: 65535}\n"
	    "          AMD SVM (LNX-6.6 svm.c pause_filter_*; count in PAUSEs, always dynamic)\n"
	    "  pv: {sched_yield: true, yield_on_kick: false}\n"
	    "    sched_yield    the host offers KVM_HC_SCHED_YIELD (\"KVM: X86: Implement PV sched "
	    "yield\n"
	    "                   hypercall\", 5.2; false: an older host); the guest calls it\n"
	    "    yield_on_kick  KVM_HC_KICK_CPU yields to the kicked vCPU (266e85a5ec9 "
	    "\"KVM: X86: Boost\n"
	    "                   queue head vCPU to mitigate lock waiter preemption\", 5.3)\n", o);
	kvm_hp_list(o);
}

const struct hv_kind_ops kind_kvm_ops = {
	.name = "kvm",
	.desc = "KVM: PLE exits call kvm_vcpu_on_spin (directed yield_to); halt/kick",
	.params = kvm_params,
	/* vmx.c handle_io / handle_ept_misconfig (KVM_FAST_MMIO_BUS) */
	.fast_mmio = 1,
	.parse = kvm_parse,
	.free_cfg = kvm_free_cfg,
	.init = kvm_init,
	.deinit = kvm_deinit,
	.ple_window = kvm_ple_window,
	.ple_off = kvm_ple_off,
	.ple_exit = kvm_ple_exit,
	.ple_done = kvm_ple_done,
	.ple_done_quiet = kvm_ple_done_quiet,
	.ple_repeatable = kvm_ple_repeatable,
	.ple_repeat = kvm_ple_repeat,
	.halt_poll = kvm_halt_poll,
	.halt_end = kvm_halt_end,
	.sched_switch = kvm_sched_switch,
	.wake = kvm_wake,
	.pv_kick = kvm_pv_kick,
	.ipi_path = kvm_ipi_path,
	.sched_yield = kvm_sched_yield,
	.metrics = kvm_metrics,
	.stats_reset = kvm_stats_reset,
	.list = kvm_list,
};
