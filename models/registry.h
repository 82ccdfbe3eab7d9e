/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * registry.h - the one place that lists every policy by name.
 *
 * Adding a scheduler or a lock is: write its file, add its ops table here.
 * Nothing else in the simulator looks at policy names.
 */
#ifndef VS_REGISTRY_H
#define VS_REGISTRY_H

struct sched_ops;
struct lock_ops;
struct hv_kind_ops;
struct guest_sched_ops;

extern const struct sched_ops *const registry_scheds[];
extern const struct lock_ops *const registry_locks[];
extern const struct hv_kind_ops *const registry_kinds[];

const struct sched_ops *registry_sched(const char *name);
const struct lock_ops *registry_lock(const char *name);
const struct hv_kind_ops *registry_kind(const char *name);
char *registry_kind_names(void);
/* "a, b, c" for error messages; static buffer per call site is not used: caller frees. */
char *registry_sched_names(void);
char *registry_lock_names(void);

extern const struct guest_sched_ops *const registry_gscheds[];
const struct guest_sched_ops *registry_gsched(const char *name);
char *registry_gsched_names(void);

/* Sleeping locks (models/guest/slock.h): mutex, rwsem. */
struct slock_ops;
extern const struct slock_ops *const registry_slocks[];
const struct slock_ops *registry_slock(const char *name);
char *registry_slock_names(void);

#endif
