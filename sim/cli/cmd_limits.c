/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * cmd_limits.c - --timeout and --max-events, the limits every command that
 * simulates takes, handed to run.h once before any run (issue 29).
 */
#include "cmd.h"
#include "engine.h"
#include "run.h"
#include "sweep.h"

void
cmd_limits_set(const struct limit_args *a)
{
	struct run_limits l = { 0 };

	l.max_events = (uint64_t)a->max_events;
	if (a->timeout > 0) {
		l.timeout = a->timeout * 1e-9;
		l.deadline = sim_wall() + l.timeout;
	}
	run_set_limits(&l);
}

int
cmd_limits_exit(int rc, int status)
{
	return rc == RUN_STOPPED || rc == SWEEP_STOPPED ? CMD_EXIT_STOPPED : status;
}
