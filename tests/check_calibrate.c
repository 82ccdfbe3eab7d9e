/* SPDX-License-Identifier: GPL-2.0-or-later */
/* check_calibrate.c - the validation loop: cases, honest predictions, calibration. */
#include "testutil.h"

#include <math.h>

#include "calibrate.h"
#include "validate.h"

static char dir[64];

static const char *
srcdir(void)
{
	const char *s = getenv("top_srcdir");

	return s ? s : ".";
}

static void
copy(const char *from, const char *to)
{
	char *cmd = xasprintf("cp '%s/tests/data/valid/%s' '%s/%s'", srcdir(), from, dir, to);

	ck_assert_int_eq(system(cmd), 0);
	free(cmd);
}

static void
setup(void)
{
	char *cases;

	strcpy(dir, "/tmp/vlocksim-cal-XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(dir));
	cases = xasprintf("%s/cases", dir);
	ck_assert_int_eq(mkdir(cases, 0700), 0);
	free(cases);
	copy("scenario.yaml", "scenario.yaml");
	copy("measured.csv", "measured.csv");
	copy("cases/synthetic.yaml", "cases/synthetic.yaml");
	copy("calib.yaml", "calib.yaml");
}

static void
teardown(void)
{
	char *cmd = xasprintf("rm -rf '%s'", dir);

	ck_assert_int_eq(system(cmd), 0);
	free(cmd);
}

static struct vcase *
load_case(void)
{
	struct vcase *c = xcalloc(1, sizeof *c);
	struct vs_err err;
	char *p = xasprintf("%s/cases/synthetic.yaml", dir);

	if (vcase_load(c, p, &err))
		ck_abort_msg("%s", err.msg);
	free(p);
	return c;
}

/* Make measured.csv from the model itself at hold = true_ns ("synthetic truth"). */
static void
synthesise(double true_ns)
{
	struct vcase *c = load_case();
	char *set = xasprintf("workloads.w.program[0].do[2].compute=%gns", true_ns);
	char *path = xasprintf("%s/measured.csv", dir);
	FILE *f = fopen(path, "w");
	struct vs_err err;
	int i;

	fputs("# source: synthetic truth\nsetup,variant,metric,unit,mean,sd,n\n", f);
	for (i = 0; i < c->nrows; i++) {
		struct vpred p;

		if (vcase_predict(c, &c->rows[i], &set, 1, 1, &p, &err))
			ck_abort_msg("%s", err.msg);
		fprintf(f, "%s,%s,completion_seconds,s,%.12g,0.000001,3\n", c->rows[i].setup,
		    c->rows[i].variant, p.mean);
		free(p.unit);
	}
	fclose(f);
	free(path);
	free(set);
	vcase_free(c);
	free(c);
}

START_TEST(calibration_recovers_a_known_parameter)
{
	struct calib cal;
	struct vs_err err;
	char *p = xasprintf("%s/calib.yaml", dir), *cases = xasprintf("%s/cases", dir);
	double truth = 137;

	synthesise(truth);
	if (calib_load(&cal, p, cases, &err) || calib_fit(&cal, 0, &err))
		ck_abort_msg("%s", err.msg);
	ck_assert_msg(fabs(cal.params[0].value - truth) / truth < 0.02,
	    "fitted %g, true %g", cal.params[0].value, truth);
	calib_free(&cal);
	free(p);
	free(cases);
}
END_TEST

/* got is want, bit for bit (mean and ci95 compared as bytes). */
static void
assert_same_pred(const struct vpred *got, const struct vpred *want)
{
	ck_assert(memcmp(&got->mean, &want->mean, sizeof got->mean) == 0);
	ck_assert(memcmp(&got->ci95, &want->ci95, sizeof got->ci95) == 0);
	ck_assert_int_eq(got->n, want->n);
	ck_assert_int_eq(got->capped, want->capped);
	ck_assert_str_eq(got->unit, want->unit);
}

/*
 * vcase_predict_rows runs each replication of each row as its own job; the
 * sums are run_reps's, bit for bit: every field equals vcase_predict's, with
 * random times (replications differ) and extra overrides (the run's argument
 * a rank gets with each job), for 1 and 3 workers.
 */
START_TEST(rows_by_replication_are_run_reps)
{
	struct vcase *c = load_case();
	char s0[] = "workloads.w.program[0].do[0].compute={dist: exponential, mean: 300ns}";
	char s1[] = "workloads.w.program[0].do[2].compute=120ns";
	char *sets[] = { s0, s1 };
	struct vpjob jobs[3];
	struct vpred want[3], got[3];
	struct vs_err err;
	int i, w, noisy = 0;

	for (i = 0; i < 3; i++) {
		jobs[i].c = c;
		jobs[i].r = &c->rows[i];
		jobs[i].reps = 2 + i;
		if (vcase_predict(c, &c->rows[i], sets, 2, 2 + i, &want[i], &err))
			ck_abort_msg("%s", err.msg);
		noisy += want[i].ci95 > 0;
	}
	ck_assert_int_gt(noisy, 0);
	for (w = 1; w <= 3; w += 2) {
		if (vcase_predict_rows(jobs, 3, sets, 2, w, NULL, got, &err))
			ck_abort_msg("%s", err.msg);
		for (i = 0; i < 3; i++) {
			assert_same_pred(&got[i], &want[i]);
			free(got[i].unit);
		}
	}
	for (i = 0; i < 3; i++)
		free(want[i].unit);
	vcase_free(c);
	free(c);
}
END_TEST

static size_t shared_total;

static void
note_total(size_t finished, size_t running, size_t total)
{
	(void)finished;
	(void)running;
	shared_total = total;
}

/*
 * Rows of one case with the same overrides and reps are one run serving all
 * of them (seed 000's A and B rows, a mean row and its sd row): each row's
 * prediction is still what it would be alone, and the pool runs fewer jobs.
 */
START_TEST(rows_with_the_same_run_share_it)
{
	struct vcase *c = load_case();
	char s0[] = "workloads.w.program[0].do[0].compute={dist: exponential, mean: 300ns}";
	char *sets[] = { s0 };
	struct vrow ev = c->rows[0];
	struct vpjob jobs[4];
	struct vpred want[4], got[4];
	struct vs_err err;
	int i, w;

	ev.metric = (char *)"events";	/* row 0's run, another metric */
	jobs[0] = (struct vpjob){ c, &c->rows[0], 2 };
	jobs[1] = (struct vpjob){ c, &ev, 2 };
	jobs[2] = (struct vpjob){ c, &c->rows[1], 2 };
	jobs[3] = (struct vpjob){ c, &c->rows[0], 3 };	/* other reps: its own run */
	for (i = 0; i < 4; i++)
		if (vcase_predict(c, jobs[i].r, sets, 1, jobs[i].reps, &want[i], &err))
			ck_abort_msg("%s", err.msg);
	ck_assert_str_eq(want[1].unit, "count");
	for (w = 1; w <= 3; w += 2) {
		shared_total = 0;
		if (vcase_predict_rows(jobs, 4, sets, 1, w, note_total, got, &err))
			ck_abort_msg("%s", err.msg);
		ck_assert_uint_eq(shared_total, 2 + 2 + 3);	/* not 9 */
		for (i = 0; i < 4; i++) {
			assert_same_pred(&got[i], &want[i]);
			free(got[i].unit);
		}
	}
	for (i = 0; i < 4; i++)
		free(want[i].unit);
	vcase_free(c);
	free(c);
}
END_TEST

static double
predicted_of(struct vcase *c, int row)
{
	struct vpred p;
	struct vs_err err;
	double v;

	if (vcase_predict(c, &c->rows[row], NULL, 0, 1, &p, &err))
		ck_abort_msg("%s", err.msg);
	v = p.mean;
	free(p.unit);
	return v;
}

START_TEST(prediction_rows_feed_nothing)
{
	struct calib cal;
	struct vcase *c;
	struct vs_err err;
	char *p = xasprintf("%s/calib.yaml", dir), *cases = xasprintf("%s/cases", dir);
	char *path = xasprintf("%s/measured.csv", dir);
	double before[3], fit_before, fit_after;
	int i;

	synthesise(150);
	c = load_case();
	for (i = 0; i < 3; i++)
		before[i] = predicted_of(c, i);
	vcase_free(c);
	free(c);
	ck_assert(calib_load(&cal, p, cases, &err) == 0 && calib_fit(&cal, 0, &err) == 0);
	fit_before = cal.params[0].value;
	calib_free(&cal);

	/* Change both prediction rows' measured values wildly. */
	{
		char *cmd = xasprintf("sed -i -e 's/^loops400,two,\\([^,]*\\),\\([^,]*\\),[^,]*,/"
		    "loops400,two,\\1,\\2,42,/' -e 's/^loops400,one,\\([^,]*\\),\\([^,]*\\),[^,]*,/"
		    "loops400,one,\\1,\\2,0.5,/' '%s'", path);

		ck_assert_int_eq(system(cmd), 0);
		free(cmd);
	}
	c = load_case();
	ck_assert_double_eq(vcase_measured(c, &c->rows[1])->mean, 42);
	ck_assert_double_eq(vcase_measured(c, &c->rows[2])->mean, 0.5);
	for (i = 0; i < 3; i++)
		ck_assert_double_eq(predicted_of(c, i), before[i]);
	vcase_free(c);
	free(c);
	ck_assert(calib_load(&cal, p, cases, &err) == 0 && calib_fit(&cal, 0, &err) == 0);
	fit_after = cal.params[0].value;
	ck_assert_double_eq(fit_before, fit_after);
	calib_free(&cal);
	free(p);
	free(cases);
	free(path);
}
END_TEST

START_TEST(case_errors_name_their_place)
{
	struct vcase c;
	struct vs_err err;
	char *path = xasprintf("%s/cases/bad.yaml", dir);
	FILE *f = fopen(path, "w");

	fputs("name: bad\nscenario: \"../scenario.yaml\"\nmeasured: \"../measured.csv\"\n"
	    "metric: completion_seconds\nrows:\n  - {row: nope/two, role: prediction}\n", f);
	fclose(f);
	ck_assert_int_eq(vcase_load(&c, path, &err), -1);
	ck_assert_msg(strstr(err.msg, "bad.yaml:6:5: row nope/two is not in") != NULL, "%s",
	    err.msg);
	vcase_free(&c);
	free(path);
}
END_TEST

static Suite *
calibrate_suite(void)
{
	Suite *s = suite_create("calibrate");
	TCase *tc = tcase_create("loop");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_set_timeout(tc, 0);
	tcase_add_test(tc, calibration_recovers_a_known_parameter);
	tcase_add_test(tc, prediction_rows_feed_nothing);
	tcase_add_test(tc, case_errors_name_their_place);
	tcase_add_test(tc, rows_by_replication_are_run_reps);
	tcase_add_test(tc, rows_with_the_same_run_share_it);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	return tu_main(calibrate_suite());
}
