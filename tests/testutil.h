/* SPDX-License-Identifier: GPL-2.0-or-later */
/* testutil.h - helpers shared by the Check tests (header-only, static). */
#ifndef VS_TESTUTIL_H
#define VS_TESTUTIL_H

#include "ckpass.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "guest/lock.h"
#include "metrics.h"
#include "run.h"
#include "scenario.h"

/* A small host used by model tests: 2 sockets x 2 cores x 2 threads. */
#define TEST_MACHINE \
	"machine: {name: t, sockets: 2, cores_per_socket: 2, threads_per_core: 2, clock: 2GHz}\n"

/* A lock event (PR_LOCK_*) of the guest scheduler's own locks, rq[N] and
 * pi[N] (guest.sched_locks, on in the task form): a test of a workload's
 * lock leaves them out. */
static inline int
tu_sched_lock(const struct probe_ev *e)
{
	const struct glock *l = e->lock;

	return l != NULL && (strncmp(l->name, "rq[", 3) == 0 || strncmp(l->name, "pi[", 3) == 0);
}

/* Write text to a fresh temp file and load it as a scenario. */
static inline int
tu_load(struct scenario *sc, const char *text, struct vs_err *err)
{
	char path[] = "/tmp/vlocksim-test-XXXXXX";
	int fd = mkstemp(path), rc;
	FILE *f;

	ck_assert_int_ge(fd, 0);
	f = fdopen(fd, "w");
	fputs(text, f);
	fclose(f);
	rc = scen_load(sc, path, NULL, 0, err);
	unlink(path);
	return rc;
}

/* Load and run once with self-checks at a level (run.h); abort the test on any error. */
static inline void
tu_run_check(const char *text, uint64_t seed, const struct probe *probe, int check,
    struct metrics *m)
{
	struct scenario sc;
	struct vs_err err = { "" };
	struct run_opts o = { .wall_clock = 0, .check = check, .probe = probe };

	if (tu_load(&sc, text, &err) != 0)
		ck_abort_msg("scenario did not load: %s", err.msg);
	metrics_init(m);
	if (run_once(&sc, seed, &o, m, &err) != 0)
		ck_abort_msg("run failed: %s", err.msg);
	scen_free(&sc);
}

static inline void
tu_run(const char *text, uint64_t seed, const struct probe *probe, struct metrics *m)
{
	tu_run_check(text, seed, probe, 1, m);
}

static inline double
tu_metric(const struct metrics *m, const char *name)
{
	int i = metrics_find(m, name);

	if (i < 0)
		ck_abort_msg("no metric %s", name);
	return m->vals[i];
}

static inline int
tu_main(Suite *s)
{
	SRunner *sr = srunner_create(s);
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}

#endif
