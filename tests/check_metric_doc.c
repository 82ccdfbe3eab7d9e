/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * check_metric_doc.c - the metric table (sim/scenario/metric_doc.c) covers
 * every metric that run.c prints, for shipped scenarios of both forms, so
 * `vlocksim list` and the man page cannot miss one; and the table's pattern
 * matching picks the specific entry, not a placeholder one.
 */
#include "testutil.h"

#include "metric_doc.h"
#include "workload/workload.h"

static const char *
srcdir(void)
{
	const char *s = getenv("top_srcdir");

	return s ? s : ".";
}

/* VM.X where X is a counter or mark name of that VM entry's workload. */
static int
is_named_by(const struct scenario *sc, const char *name, int marks)
{
	int i, k;

	for (i = 0; i < sc->nvms; i++) {
		size_t vl = strlen(sc->vms[i].name);
		int n = marks ? wl_nmarks(sc->vms[i].wl) : wl_ncounters(sc->vms[i].wl);

		if (strncmp(name, sc->vms[i].name, vl) != 0 || name[vl] != '.')
			continue;
		for (k = 0; k < n; k++) {
			const char *c = marks ? wl_mark_name(sc->vms[i].wl, k) :
			    wl_counter_name(sc->vms[i].wl, k);

			if (strncmp(name + vl + 1, c, strlen(c)) == 0)
				return 1;
		}
	}
	return 0;
}

static void
covers(const char *rel)
{
	struct scenario sc;
	struct vs_err err;
	struct run_opts o = { .names_only = 1 };
	struct metrics m;
	char *path = xasprintf("%s/%s", srcdir(), rel);
	size_t i;

	ck_assert_msg(scen_load(&sc, path, NULL, 0, &err) == 0, "%s", err.msg);
	metrics_init(&m);
	ck_assert_msg(run_once(&sc, 1, &o, &m, &err) == 0, "%s", err.msg);
	ck_assert_int_gt((int)m.n, 10);
	for (i = 0; i < m.n; i++) {
		const struct metric_doc *d = metric_doc_find(m.names[i]);

		ck_assert_msg(d != NULL, "%s: metric %s is not in metric_docs[]", rel,
		    m.names[i]);
		if (strstr(d->pattern, "COUNTER") != NULL)
			ck_assert_msg(is_named_by(&sc, m.names[i], 0), "%s: %s matched only %s "
			    "but names no counter: add it to metric_docs[]", rel, m.names[i],
			    d->pattern);
		if (strncmp(d->pattern, "VM.R_", 5) == 0)
			ck_assert_msg(is_named_by(&sc, m.names[i], 1), "%s: %s matched only %s "
			    "but names no mark: region", rel, m.names[i], d->pattern);
	}
	metrics_free(&m);
	scen_free(&sc);
	free(path);
}

START_TEST(per_vcpu_form)
{
	covers("configs/examples/ticket-4threads.yaml");
	covers("configs/examples/locks-overcommit.yaml");
	covers("configs/seed003/seed003.yaml");
}
END_TEST

START_TEST(task_form)
{
	covers("configs/examples/tasks-make.yaml");
	covers("configs/seed001/x5570.yaml");
	covers("configs/examples/ipi-ebizzy.yaml");	/* IPIs, mmap_sem (a sleeping lock) */
	covers("configs/examples/ipi-hackbench.yaml");
}
END_TEST

START_TEST(specific_match)
{
	ck_assert_str_eq(metric_doc_find("g.running_share")->pattern, "VM.running_share");
	ck_assert_str_eq(metric_doc_find("g.ops_per_sec")->pattern, "VM.COUNTER_per_sec");
	ck_assert_str_eq(metric_doc_find("g.l.wait_p99_ns")->pattern, "VM.LOCK.wait_p99_ns");
	ck_assert_str_eq(metric_doc_find("g.build_mean_s")->pattern, "VM.R_mean_s");
	ck_assert_str_eq(metric_doc_find("hlt_exits")->pattern, "hlt_exits");
	ck_assert_ptr_null(metric_doc_find("no_such_metric"));
	ck_assert_ptr_null(metric_doc_find("g.l.no_such"));
}
END_TEST

int
main(void)
{
	Suite *s = suite_create("metric_doc");
	TCase *tc = tcase_create("core");
	SRunner *sr;
	int nf;

	tcase_set_timeout(tc, 0);
	tcase_add_test(tc, per_vcpu_form);
	tcase_add_test(tc, task_form);
	tcase_add_test(tc, specific_match);
	suite_add_tcase(s, tc);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	nf = srunner_ntests_failed(sr);
	srunner_free(sr);
	return nf == 0 ? 0 : 1;
}
