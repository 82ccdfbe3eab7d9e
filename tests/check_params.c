/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * check_params.c - every parameter is stated once, in its table (param.h),
 * and the table is the truth: what `vlocksim list` documents as a default is
 * the C default, a scenario written with the documented default runs as the
 * one without (schedulers, kinds, locks, machine files), every listed key is
 * accepted where the list says, and a key no table lists is refused at every
 * level of a scenario.
 */
#include <check.h>
#include <stdalign.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "guest/gsched.h"
#include "guest/lock.h"
#include "guest/slock.h"
#include "hv/kind.h"
#include "hv/sched.h"
#include "hw/machine.h"
#include "registry.h"
#include "testutil.h"
#include "workload/workload.h"
#include "yconf.h"
#include "yparam.h"

/* Every table, with where its rows go in a scenario (for messages). */
static void
each_table(void (*fn)(const struct vs_param *, const char *what))
{
	int i;

	fn(scen_params, "scenario");
	fn(scen_hv_params, "hypervisor");
	fn(scen_vm_params, "vms[]");
	fn(scen_guest_params, "vms[].guest");
	fn(machine_params, "machine");
	fn(wl_params, "workloads.W");
	fn(wl_lock_params, "workloads.W.locks.L");
	for (i = 0; registry_kinds[i] != NULL; i++)
		fn(registry_kinds[i]->params, registry_kinds[i]->name);
	for (i = 0; registry_scheds[i] != NULL; i++) {
		fn(registry_scheds[i]->params, registry_scheds[i]->name);
		fn(registry_scheds[i]->params_more, registry_scheds[i]->name);
	}
	for (i = 0; registry_locks[i] != NULL; i++)
		fn(registry_locks[i]->params, registry_locks[i]->name);
	for (i = 0; registry_gscheds[i] != NULL; i++)
		fn(registry_gscheds[i]->params, registry_gscheds[i]->name);
	for (i = 0; registry_slocks[i] != NULL; i++)
		fn(registry_slocks[i]->params, registry_slocks[i]->name);
}

static int nchecked;

/* Is the row's default one written in YAML (not computed, not required)? */
static int
static_default(const struct vs_param *p)
{
	return p->read != VP_LIST && (p->def == NULL || p->def[0] != '(');
}

/* One row read from `KEY: DEF` and from nothing: the same value. */
static void
default_is_cdef(const struct vs_param *t, const char *what)
{
	const struct vs_param *p;

	for (p = t; p != NULL && p->name != NULL; p++) {
		union { max_align_t a; char b[4096]; } x, y;
		const struct vs_param one[2] = { *p, { NULL, NULL, NULL, NULL, NULL, VS_LIST } };
		const char *last = strrchr(p->name, '.'), *def;
		char prefix[128], text[512], buf[64];
		struct vs_err err = { "" };
		struct yc_doc *d;

		if (!static_default(p))
			continue;
		ck_assert_uint_lt(p->off + 8, sizeof x.b);
		snprintf(prefix, sizeof prefix, "%.*s", last ? (int)(last - p->name) : 0, p->name);
		def = vs_param_def(p, buf, sizeof buf);
		snprintf(text, sizeof text, "%s: %s\n", last ? last + 1 : p->name, def);
		d = yc_load_string("d.yaml", text, &err);
		ck_assert_msg(d != NULL, "%s %s: %s", what, p->name, err.msg);
		memset(&x, 0, sizeof x);
		memset(&y, 0, sizeof y);
		ck_assert_msg(yc_params_read(yc_root(d), one, last ? prefix : NULL, 2e9, x.b,
		    &err) == 0, "%s %s = %s: %s", what, p->name, def, err.msg);
		ck_assert_int_eq(yc_params_read(NULL, one, last ? prefix : NULL, 2e9, y.b, &err), 0);
		if (p->store == VS_STR)
			ck_assert_msg(strcmp(*(const char **)(void *)(x.b + p->off),
			    *(const char **)(void *)(y.b + p->off)) == 0, "%s %s", what, p->name);
		else
			ck_assert_msg(memcmp(x.b + p->off, y.b + p->off, 8) == 0,
			    "%s %s: the documented %s is not the C default", what, p->name, def);
		yc_free(d);
		nchecked++;
	}
}

/* What `vlocksim list` gives as a default is the C default, in every table. */
START_TEST(documented_defaults_are_the_c_defaults)
{
	nchecked = 0;
	each_table(default_is_cdef);
	ck_assert_int_ge(nchecked, 130);
}
END_TEST

/* A number's, a time's, a bool's or an enum's default is said once, as cdef:
 * its def is NULL, and vs_param_def writes it. */
static void
default_said_once(const struct vs_param *t, const char *what)
{
	const struct vs_param *p;

	for (p = t; p != NULL && p->name != NULL; p++)
		if (static_default(p) && p->read != VP_STR) {
			ck_assert_msg(p->def == NULL, "%s %s: def \"%s\" states cdef again: write "
			    "NULL (vlocksim list then prints the cdef in the row's unit)", what,
			    p->name, p->def);
			nchecked++;
		}
}

START_TEST(a_default_is_stated_once)
{
	nchecked = 0;
	each_table(default_said_once);
	ck_assert_int_ge(nchecked, 130);
}
END_TEST

/* ---- runs: a scenario written with a documented default runs as without ---- */

#define WORKLOAD \
	"workloads:\n" \
	"  w: {program: [{loop: 200, do: [{compute: {dist: exponential, mean: 300ns}}," \
	" {acquire: l}, {compute: 100ns}, {release: l}]}]}\n"

/* tmpl with "@" replaced by ins. */
static void
fill(char *out, size_t n, const char *tmpl, const char *ins)
{
	const char *at = strchr(tmpl, '@');

	ck_assert_ptr_nonnull(at);
	snprintf(out, n, "%.*s%s%s", (int)(at - tmpl), tmpl, ins, at + 1);
}

static void
run_tc(const char *text, double *t, double *ev)
{
	struct metrics m;

	tu_run(text, 3, NULL, &m);
	*t = tu_metric(&m, "completion_seconds");
	*ev = tu_metric(&m, "events");
	metrics_free(&m);
}

/*
 * tmpl: a scenario with "@" where the keys under prefix go (inside a flow
 * mapping, after "{" or after other entries).  Every row of t under prefix
 * with a static default, written there, gives the run without it.
 */
static int
runs_as_default(const char *tmpl, const struct vs_param *t, const char *prefix)
{
	char text[4096], ins[256], buf[64];
	const char *at = strchr(tmpl, '@'), *key;
	size_t pl = prefix ? strlen(prefix) : 0;
	double t0, e0, t1, e1;
	int n = 0;

	fill(text, sizeof text, tmpl, "");
	run_tc(text, &t0, &e0);
	for (; t != NULL && t->name != NULL; t++) {
		if (!static_default(t))
			continue;
		if (prefix != NULL && (strncmp(t->name, prefix, pl) != 0 || t->name[pl] != '.'))
			continue;
		key = prefix != NULL ? t->name + pl + 1 : t->name;
		if (strchr(key, '.') != NULL)
			continue;
		snprintf(ins, sizeof ins, "%s%s: %s", at[-1] == '{' ? "" : ", ", key,
		    vs_param_def(t, buf, sizeof buf));
		fill(text, sizeof text, tmpl, ins);
		run_tc(text, &t1, &e1);
		ck_assert_msg(t1 == t0 && e1 == e0, "%s: not the default", ins);
		n++;
	}
	return n;
}

START_TEST(listed_lock_defaults_run_as_the_defaults)
{
	char tmpl[2048];
	int i, n = 0;

	for (i = 0; registry_locks[i] != NULL; i++) {
		snprintf(tmpl, sizeof tmpl, TEST_MACHINE "until: done\n"
		    "vms:\n  - {name: g, vcpus: 6, lock: {kind: %s@}, workload: w}\n" WORKLOAD,
		    registry_locks[i]->name);
		n += runs_as_default(tmpl, registry_locks[i]->params, NULL);
	}
	ck_assert_int_ge(n, 15);
}
END_TEST

START_TEST(listed_scheduler_defaults_run_as_the_defaults)
{
	char tmpl[2048];
	int i, n = 0;

	for (i = 0; registry_scheds[i] != NULL; i++) {
		if (registry_scheds[i]->parse == NULL)
			continue;
		snprintf(tmpl, sizeof tmpl, TEST_MACHINE "until: done\n"
		    "hypervisor: {kind: kvm, scheduler: %s, params: {@}}\n"
		    "vms:\n  - {name: g, vcpus: 12, lock: pv-ticket, workload: w}\n" WORKLOAD,
		    registry_scheds[i]->name);
		n += runs_as_default(tmpl, registry_scheds[i]->params, NULL);
		n += runs_as_default(tmpl, registry_scheds[i]->params_more, NULL);
	}
	ck_assert_int_ge(n, 30);
}
END_TEST

/* Does t have rows under map ("ple.window" under "ple")? */
static int
has_map(const struct vs_param *t, const char *map)
{
	size_t ml = strlen(map);

	for (; t != NULL && t->name != NULL; t++)
		if (strncmp(t->name, map, ml) == 0 && t->name[ml] == '.')
			return 1;
	return 0;
}

START_TEST(listed_kind_defaults_run_as_the_defaults)
{
	static const char *const maps[] = { "ple", "pause_filter", "pv", "halt_poll", NULL };
	char tmpl[2048];
	int i, k, n = 0;

	for (i = 0; registry_kinds[i] != NULL; i++)
		for (k = 0; maps[k] != NULL; k++) {
			if (!has_map(registry_kinds[i]->params, maps[k]))
				continue;
			snprintf(tmpl, sizeof tmpl, TEST_MACHINE "until: done\n"
			    "hypervisor: {kind: %s, scheduler: cfs, %s: {@}}\n"
			    "vms:\n  - {name: g, vcpus: 12, lock: pv-ticket, workload: w}\n" WORKLOAD,
			    registry_kinds[i]->name, maps[k]);
			n += runs_as_default(tmpl, registry_kinds[i]->params, maps[k]);
		}
	ck_assert_int_ge(n, 20);
}
END_TEST

START_TEST(listed_machine_defaults_run_as_the_defaults)
{
	static const char *const body = "until: done\n"
	    "hypervisor: {kind: kvm, scheduler: cfs}\n"
	    "vms:\n  - {name: g, vcpus: 12, lock: pv-ticket, workload: w}\n" WORKLOAD;
	char tmpl[2048];
	int n = 0;

	snprintf(tmpl, sizeof tmpl, "machine: {@}\n%s", body);
	n += runs_as_default(tmpl, machine_params, NULL);
	snprintf(tmpl, sizeof tmpl, "machine: {name: t, sockets: 2, cores_per_socket: 2, "
	    "threads_per_core: 2, clock: 2GHz, costs: {@}}\n%s", body);
	n += runs_as_default(tmpl, machine_params, "costs");
	ck_assert_int_ge(n, 28);
}
END_TEST

/* ---- keys: listed ones accepted, unlisted ones refused ---- */

#define BASE \
	"machine: {name: t, sockets: 2, cores_per_socket: 2, threads_per_core: 2, clock: 2GHz," \
	" costs: {}}\n" \
	"until: done\n" \
	"hypervisor: {kind: %s, scheduler: %s, %s}\n" \
	"vms:\n  - {name: g, vcpus: 4, lock: {kind: %s}, workload: w, guest: {ipi: {}}," \
	" cgroup: {}}\n" \
	"workloads:\n" \
	"  w: {locks: {l: {pool: {}}}, programs: {main: [{compute: 1us}]}," \
	" tasks: [{program: main}]}\n"

/* Load BASE with one --set; 0 if it loaded. */
static int
load_set(const char *kind, const char *sched, const char *hvmap, const char *lock,
    const char *set, char *msg, size_t n)
{
	char text[2048];
	char path[] = "/tmp/vlocksim-params-XXXXXX";
	char *sets[1] = { (char *)set };
	struct scenario sc;
	struct vs_err err = { "" };
	int fd = mkstemp(path), rc;
	FILE *f;

	snprintf(text, sizeof text, BASE, kind, sched, hvmap, lock);
	ck_assert_int_ge(fd, 0);
	f = fdopen(fd, "w");
	fputs(text, f);
	fclose(f);
	rc = scen_load(&sc, path, sets, set != NULL, &err);
	unlink(path);
	if (rc == 0)
		scen_free(&sc);
	snprintf(msg, n, "%s", err.msg);
	return rc;
}

/* Where a table's keys are, as a --set path, and the hypervisor that has them. */
struct place {
	const struct vs_param *t;
	const char *path;		/* the mapping its rows without a dot are in */
	const char *kind, *sched, *hvmap, *lock;
};

static void
places(struct place *pl, int *n)
{
	int i;

	*n = 0;
#define P(...) (pl[(*n)++] = (struct place){ __VA_ARGS__ })
	P(scen_params, "", "kvm", "pinned", "pv: {}", "ticket");
	P(machine_params, "machine", "kvm", "pinned", "pv: {}", "ticket");
	P(scen_hv_params, "hypervisor", "kvm", "pinned", "pv: {}", "ticket");
	P(scen_vm_params, "vms[0]", "kvm", "pinned", "pv: {}", "ticket");
	P(scen_guest_params, "vms[0].guest", "kvm", "pinned", "pv: {}", "ticket");
	P(wl_params, "workloads.w", "kvm", "pinned", "pv: {}", "ticket");
	P(wl_lock_params, "workloads.w.locks.l", "kvm", "pinned", "pv: {}", "ticket");
	P(registry_kind("kvm")->params, "hypervisor", "kvm", "pinned",
	    "ple: {}, pv: {}, halt_poll: {}, directed_yield: {}", "ticket");
	P(registry_kind("kvm")->params, "hypervisor", "kvm", "pinned", "pause_filter: {}",
	    "ticket");
	P(registry_kind("xen")->params, "hypervisor", "xen", "pinned", "ple: {}", "ticket");
	for (i = 0; registry_scheds[i] != NULL; i++) {
		if (registry_scheds[i]->parse == NULL)
			continue;
		P(registry_scheds[i]->params, "hypervisor.params", "kvm", registry_scheds[i]->name,
		    "params: {}", "ticket");
		P(registry_scheds[i]->params_more, "hypervisor.params", "kvm",
		    registry_scheds[i]->name, "params: {}", "ticket");
	}
	for (i = 0; registry_locks[i] != NULL; i++)
		P(registry_locks[i]->params, "vms[0].lock", "kvm", "pinned", "pv: {}",
		    registry_locks[i]->name);
#undef P
}

/* Every listed key with a default written in YAML, set to it where the list
 * says, loads. */
START_TEST(every_listed_key_is_accepted)
{
	struct place pl[64];
	const struct vs_param *p;
	char set[512], msg[512], buf[64];
	int i, n, k = 0;

	places(pl, &n);
	for (i = 0; i < n; i++)
		for (p = pl[i].t; p != NULL && p->name != NULL; p++) {
			if (!static_default(p))
				continue;
			/* only one of ple and pause_filter at a time */
			if ((strncmp(p->name, "pause_filter.", 13) == 0) !=
			    (strstr(pl[i].hvmap, "pause_filter") != NULL) &&
			    pl[i].t == registry_kind("kvm")->params)
				continue;
			/* tasks is a list: its rows are those of an entry */
			snprintf(set, sizeof set, "%s%s%s%s=%s", pl[i].path, pl[i].path[0] ? "." : "",
			    strncmp(p->name, "tasks.", 6) == 0 ? "tasks[0]." : "",
			    strncmp(p->name, "tasks.", 6) == 0 ? p->name + 6 : p->name,
			    vs_param_def(p, buf, sizeof buf));
			ck_assert_msg(load_set(pl[i].kind, pl[i].sched, pl[i].hvmap, pl[i].lock, set,
			    msg, sizeof msg) == 0, "--set %s: %s", set, msg);
			k++;
		}
	ck_assert_int_ge(k, 130);
}
END_TEST

/* A key that no table lists is refused in every mapping of a scenario. */
START_TEST(an_unlisted_key_is_refused_everywhere)
{
	static const char *const maps[] = { "", "machine", "machine.costs", "hypervisor",
	    "hypervisor.pv", "vms[0]", "vms[0].lock", "vms[0].guest", "vms[0].guest.ipi",
	    "vms[0].cgroup", "workloads.w", "workloads.w.locks.l", "workloads.w.locks.l.pool",
	    "workloads.w.tasks[0]", NULL };
	static const char *const kvm_maps[] = { "hypervisor.ple", "hypervisor.halt_poll",
	    "hypervisor.directed_yield", NULL };
	char set[256], msg[512];
	int i;

	for (i = 0; maps[i] != NULL; i++) {
		snprintf(set, sizeof set, "%s%szz_unlisted=1", maps[i], maps[i][0] ? "." : "");
		ck_assert_int_ne(load_set("kvm", "cfs", "pv: {}", "pv-qspinlock", set, msg,
		    sizeof msg), 0);
		ck_assert_msg(strstr(msg, "unknown key 'zz_unlisted'") != NULL, "%s: %s", set, msg);
	}
	for (i = 0; kvm_maps[i] != NULL; i++) {
		snprintf(set, sizeof set, "%s.zz_unlisted=1", kvm_maps[i]);
		ck_assert_int_ne(load_set("kvm", "cfs", "ple: {}, halt_poll: {}, "
		    "directed_yield: {}", "ticket", set, msg, sizeof msg), 0);
		ck_assert_msg(strstr(msg, "unknown key 'zz_unlisted'") != NULL, "%s: %s", set, msg);
	}
	ck_assert_int_ne(load_set("kvm", "cfs", "pause_filter: {}", "ticket",
	    "hypervisor.pause_filter.zz_unlisted=1", msg, sizeof msg), 0);
	ck_assert_msg(strstr(msg, "unknown key 'zz_unlisted'") != NULL, "%s", msg);
	for (i = 0; registry_scheds[i] != NULL; i++) {
		if (registry_scheds[i]->parse == NULL)
			continue;
		ck_assert_int_ne(load_set("kvm", registry_scheds[i]->name, "params: {}", "ticket",
		    "hypervisor.params.zz_unlisted=1", msg, sizeof msg), 0);
		ck_assert_msg(strstr(msg, "unknown key 'zz_unlisted'") != NULL, "%s: %s",
		    registry_scheds[i]->name, msg);
	}
	/* a kind's keys belong to that kind: xen has no pv */
	ck_assert_int_ne(load_set("xen", "credit", "pv: {}", "ticket", NULL, msg, sizeof msg),
	    0);
	ck_assert_msg(strstr(msg, "unknown key 'pv'") != NULL, "%s", msg);
}
END_TEST

static Suite *
params_suite(void)
{
	Suite *s = suite_create("params");
	TCase *tc = tcase_create("params");

	tcase_set_timeout(tc, 0);
	tcase_add_test(tc, documented_defaults_are_the_c_defaults);
	tcase_add_test(tc, a_default_is_stated_once);
	tcase_add_test(tc, listed_lock_defaults_run_as_the_defaults);
	tcase_add_test(tc, listed_scheduler_defaults_run_as_the_defaults);
	tcase_add_test(tc, listed_kind_defaults_run_as_the_defaults);
	tcase_add_test(tc, listed_machine_defaults_run_as_the_defaults);
	tcase_add_test(tc, every_listed_key_is_accepted);
	tcase_add_test(tc, an_unlisted_key_is_refused_everywhere);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	return tu_main(params_suite());
}
