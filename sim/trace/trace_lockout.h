/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * trace_lockout.h - the simulator's own lock events as /proc/lock_stat text
 * (`vlocksim run --lock-stat FILE`), so that a run can be fed back through
 * `trace import` / `trace scenario` as a guest's recording would be (the
 * round trip of issue 19).  A struct probe consumer: PR_LOCK_WAIT ->
 * PR_LOCK_TAKEN is a wait (a contention when longer than 0), PR_LOCK_TAKEN
 * -> PR_LOCK_RELEASE a hold.  One class per workload lock class and VM, as
 * lockdep counts a class: the instances pipe[0..79] of a class of instances
 * are one class "pipe" (the names trace scenario turns back into classes);
 * once two VMs have locks a class is named VM/NAME.  Format version 0.4
 * (Documentation/locking/lockstat.rst).
 */
#ifndef VS_TRACE_LOCKOUT_H
#define VS_TRACE_LOCKOUT_H

#include "probe.h"
#include "util.h"

struct lock_out;

struct lock_out *lock_out_new(void);
void lock_out_free(struct lock_out *);
const struct probe *lock_out_probe(struct lock_out *);
char *lock_out_text(const struct lock_out *);		/* malloc'd */
int lock_out_write(const struct lock_out *, const char *path, struct vs_err *);

#endif
