/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * check_exec.c - the executor's master loop (exec_run) on a scripted backend:
 * ids handed out in order as slots free up, a lost job run again elsewhere and
 * its slot shut, no new job after a failure, "no worker left"; and the fork
 * backend: bytes back through the pipe, a failing or killed job reported.
 */
#include <check.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "exec.h"
#include "progress.h"

/* A backend whose jobs end one per wait, oldest first, as scripted. */
struct script {
	struct exec_backend be;
	int n;
	int busy[4];
	size_t id[4];
	int seq[4];		/* submission number of the slot's job */
	int lose_slot;		/* this slot loses its first job (-1: none) */
	size_t fail_id;		/* this job fails (SIZE_MAX: none) */
	size_t order[32];	/* ids in the order they were submitted */
	int norder;
};

static int
sc_nslots(struct exec_backend *be)
{
	return ((struct script *)be)->n;
}

static int
sc_ready(struct exec_backend *be, int slot)
{
	return 1;
}

static int
sc_submit(struct exec_backend *be, int slot, size_t id, struct vs_err *err)
{
	struct script *x = (struct script *)be;

	ck_assert(!x->busy[slot]);
	x->busy[slot] = 1;
	x->id[slot] = id;
	x->seq[slot] = x->norder;
	x->order[x->norder++] = id;
	return 0;
}

static int
sc_wait(struct exec_backend *be, double timeout, struct exec_event *ev)
{
	struct script *x = (struct script *)be;
	int s, k;

	for (s = -1, k = 0; k < x->n; k++)
		if (x->busy[k] && (s < 0 || x->seq[k] < x->seq[s]))
			s = k;
	if (s < 0)
		return 0;
	x->busy[s] = 0;
	ev->slot = s;
	ev->id = x->id[s];
	if (s == x->lose_slot) {
		x->lose_slot = -1;
		ev->status = EXEC_LOST;
		ev->buf = strdup("gone");
	} else if (x->id[s] == x->fail_id) {
		ev->status = EXEC_FAILED;
		ev->buf = strdup("scripted failure");
	} else {
		ev->status = EXEC_OK;
		ev->buf = malloc(16);
		snprintf(ev->buf, 16, "r%zu", x->id[s]);
	}
	ev->len = strlen(ev->buf);
	return 1;
}

static void
sc_close(struct exec_backend *be)
{
}

static const struct exec_ops script_ops = { "script", sc_nslots, sc_ready, sc_submit,
	sc_wait, sc_close };

static void
script_init(struct script *x, int n)
{
	memset(x, 0, sizeof *x);
	x->be.ops = &script_ops;
	x->n = n;
	x->lose_slot = -1;
	x->fail_id = SIZE_MAX;
}

/* done(): results by id, each exactly once. */
struct got {
	int times[32];
	char text[32][16];
};

static int
got_done(void *ctx, size_t id, const char *buf, size_t len, struct vs_err *err)
{
	struct got *g = ctx;

	ck_assert_uint_lt(id, 32);
	g->times[id]++;
	snprintf(g->text[id], sizeof g->text[id], "%.*s", (int)len, buf);
	return 0;
}

static struct exec_prog
prog(void)
{
	struct exec_prog p = { .what = "test", .unit = "jobs", .item = "job" };

	return p;
}

START_TEST(in_order_each_once)
{
	struct script a;
	struct exec_backend *be[1] = { &a.be };
	size_t ids[] = { 3, 1, 4, 0, 5 }, failed, first;
	struct exec_prog p = prog();
	struct got g;
	struct vs_err err;
	int k;

	script_init(&a, 2);
	memset(&g, 0, sizeof g);
	ck_assert_int_eq(exec_run(be, 1, ids, 5, got_done, &g, &p, &failed, &first, &err), 0);
	ck_assert_int_eq(failed, 0);
	ck_assert_int_eq(a.norder, 5);
	for (k = 0; k < 5; k++) {
		ck_assert_uint_eq(a.order[k], ids[k]);	/* handed out in the order given */
		ck_assert_int_eq(g.times[ids[k]], 1);
	}
	ck_assert_str_eq(g.text[4], "r4");
	ck_assert_uint_eq(p.ran, 5);
	ck_assert_int_eq(p.running, 0);
}
END_TEST

START_TEST(lost_job_runs_again_elsewhere)
{
	struct script a, b;
	struct exec_backend *be[2] = { &a.be, &b.be };
	size_t ids[] = { 0, 1, 2, 3, 4, 5 }, failed, first;
	struct exec_prog p = prog();
	struct got g;
	struct vs_err err;
	int k, on_b1 = 0;

	script_init(&a, 1);
	script_init(&b, 2);
	b.lose_slot = 1;	/* the worker behind b's slot 1 dies with its first job */
	memset(&g, 0, sizeof g);
	ck_assert_int_eq(exec_run(be, 2, ids, 6, got_done, &g, &p, &failed, &first, &err), 0);
	for (k = 0; k < 6; k++)
		ck_assert_int_eq(g.times[k], 1);	/* every job once, the lost one too */
	/* Job 2 went to b's slot 1 and was lost, then was handed out again first. */
	ck_assert_uint_eq(b.order[1], 2);
	for (k = 0; k < a.norder; k++)
		on_b1 += a.order[k] == 2;
	for (k = 2; k < b.norder; k++)
		on_b1 += b.order[k] == 2;
	ck_assert_int_eq(on_b1, 1);
	ck_assert_int_eq(a.norder + b.norder, 7);
	ck_assert_int_eq(b.busy[1], 0);
}
END_TEST

START_TEST(no_worker_left)
{
	struct script a;
	struct exec_backend *be[1] = { &a.be };
	size_t ids[] = { 0, 1, 2 }, failed, first;
	struct exec_prog p = prog();
	struct got g;
	struct vs_err err;

	script_init(&a, 1);
	a.lose_slot = 0;
	memset(&g, 0, sizeof g);
	ck_assert_int_eq(exec_run(be, 1, ids, 3, got_done, &g, &p, &failed, &first, &err), -1);
	ck_assert_int_eq(failed, 3);
	ck_assert_uint_eq(first, 0);
	ck_assert_msg(strstr(err.msg, "no worker left") != NULL, "%s", err.msg);
	ck_assert_int_eq(a.norder, 1);
}
END_TEST

START_TEST(failure_stops_new_jobs)
{
	struct script a;
	struct exec_backend *be[1] = { &a.be };
	size_t ids[] = { 0, 1, 2, 3, 4, 5 }, failed, first;
	struct exec_prog p = prog();
	struct got g;
	struct vs_err err;

	script_init(&a, 2);
	a.fail_id = 1;
	memset(&g, 0, sizeof g);
	ck_assert_int_eq(exec_run(be, 1, ids, 6, got_done, &g, &p, &failed, &first, &err), -1);
	ck_assert_int_eq(failed, 1);
	ck_assert_uint_eq(first, 1);
	ck_assert_str_eq(err.msg, "scripted failure");
	/* 0 and 1 started together, 2 took 0's slot; after 1 failed nothing new. */
	ck_assert_int_eq(a.norder, 3);
	ck_assert_int_eq(g.times[0] + g.times[2], 2);
}
END_TEST

/* Fork backend jobs: id 7 fails, id 9 is killed, others echo their id. */
static int
fork_job(void *ctx, size_t id, const char *arg, size_t arglen, char **out, size_t *len,
    struct vs_err *err)
{
	if (id == 5) {
		/* The run's argument reaches the worker as it was at submit. */
		*out = malloc(arglen + 1);
		memcpy(*out, arg, arglen);
		*len = arglen;
		return 0;
	}
	if (id == 7)
		return vs_errf(err, NULL, 0, 0, "seven is bad");
	if (id == 9)
		raise(SIGKILL);
	*out = malloc(100000);
	memset(*out, 'a' + (int)id, 99999);	/* more than a pipe holds */
	(*out)[99999] = '\n';
	*len = 100000;
	return 0;
}

struct fgot {
	size_t len[16];
	char first[16];
	char text[16][16];
};

static int
fgot_done(void *ctx, size_t id, const char *buf, size_t len, struct vs_err *err)
{
	struct fgot *g = ctx;

	g->len[id] = len;
	g->first[id] = buf[0];
	snprintf(g->text[id], sizeof g->text[id], "%.*s", (int)len, buf);
	return 0;
}

/* The ETA of a progress line counts down while a job runs (it counted up: the
 * elapsed time over the jobs done), and a late job holds it, never raises it. */
START_TEST(eta_counts_down_between_ends)
{
	double el, e, prev = 1e300;

	/* one at a time: 4 of 10 ended by 40 s */
	ck_assert_double_eq_tol(progress_eta(40, 4, 40, 6, 1), 60, 1e-9);
	ck_assert_double_eq_tol(progress_eta(40, 4, 45, 6, 1), 55, 1e-9);
	for (el = 40; el <= 90; el += 0.5) {
		e = progress_eta(40, 4, el, 6, 1);
		ck_assert(e <= prev);
		ck_assert(e >= 50 - 1e-9);	/* the 5 jobs not under way */
		prev = e;
	}
	/* 4 workers: 4 ended at 10 s, 4 running, 4 left, due at 20 s */
	ck_assert_double_eq_tol(progress_eta(10, 4, 10, 4, 4), 10, 1e-9);
	ck_assert_double_eq_tol(progress_eta(10, 4, 15, 4, 4), 5, 1e-9);
	ck_assert_double_eq_tol(progress_eta(10, 4, 30, 4, 4), 0, 1e-9);
}
END_TEST

START_TEST(fork_backend)
{
	struct exec_job job = { NULL, fork_job, NULL, 0 };
	struct exec_backend *be = exec_fork_new(&job, 3);
	size_t ids[] = { 0, 1, 2, 3, 4 }, bad[] = { 7 }, killed[] = { 9 }, five[] = { 5 };
	size_t failed, first;
	struct exec_prog p = prog();
	struct fgot g;
	struct vs_err err;
	int k;

	memset(&g, 0, sizeof g);
	ck_assert_int_eq(exec_run(&be, 1, ids, 5, fgot_done, &g, &p, &failed, &first, &err), 0);
	for (k = 0; k < 5; k++) {
		ck_assert_uint_eq(g.len[k], 100000);
		ck_assert_int_eq(g.first[k], 'a' + k);
	}
	ck_assert_int_eq(exec_run(&be, 1, bad, 1, fgot_done, &g, &p, &failed, &first, &err), -1);
	ck_assert_str_eq(err.msg, "seven is bad");
	ck_assert_int_eq(exec_run(&be, 1, killed, 1, fgot_done, &g, &p, &failed, &first,
	    &err), -1);
	ck_assert_str_eq(err.msg, "killed by signal 9");
	/* Failures reported by the lowest id, whatever the order they end in. */
	{
		size_t both[] = { 9, 7 };

		ck_assert_int_eq(exec_run(&be, 1, both, 2, fgot_done, &g, &p, &failed, &first,
		    &err), -1);
		ck_assert_uint_eq(failed, 2);
		ck_assert_uint_eq(first, 7);
		ck_assert_str_eq(err.msg, "seven is bad");
	}
	job.arg = "step 1";
	job.arglen = 6;
	ck_assert_int_eq(exec_run(&be, 1, five, 1, fgot_done, &g, &p, &failed, &first, &err), 0);
	ck_assert_str_eq(g.text[5], "step 1");
	job.arg = "step 22";
	job.arglen = 7;
	ck_assert_int_eq(exec_run(&be, 1, five, 1, fgot_done, &g, &p, &failed, &first, &err), 0);
	ck_assert_str_eq(g.text[5], "step 22");
	be->ops->close(be);
}
END_TEST

int
main(void)
{
	Suite *s = suite_create("exec");
	TCase *tc = tcase_create("run");
	SRunner *sr;
	int nf;

	tcase_set_timeout(tc, 0);
	tcase_add_test(tc, in_order_each_once);
	tcase_add_test(tc, lost_job_runs_again_elsewhere);
	tcase_add_test(tc, no_worker_left);
	tcase_add_test(tc, failure_stops_new_jobs);
	tcase_add_test(tc, fork_backend);
	tcase_add_test(tc, eta_counts_down_between_ends);
	suite_add_tcase(s, tc);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	nf = srunner_ntests_failed(sr);
	srunner_free(sr);
	return nf == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
