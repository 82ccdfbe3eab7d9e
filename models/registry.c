/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * registry.c - every policy's ops table by name (registry.h): kinds,
 * host schedulers, spinlocks, guest schedulers, sleeping locks; lookups
 * and the name lists messages print.
 */
#include "registry.h"

#include <stdio.h>
#include <string.h>

#include "guest/gsched.h"
#include "guest/lock.h"
#include "guest/slock.h"
#include "hv/kind.h"
#include "hv/sched.h"
#include "util.h"

const struct sched_ops *const registry_scheds[] = {
	&sched_pinned_ops,
	&sched_cfs_ops,
	&sched_eevdf_ops,
	&sched_credit_ops,
	&sched_credit2_ops,
	NULL
};

const struct lock_ops *const registry_locks[] = {
	&lock_ticket_ops,
	&lock_pvticket_ops,
	&lock_tas_ops,
	&lock_qspinlock_ops,
	&lock_pvqspinlock_ops,
	&lock_combining_ops,
	&lock_spinpark_ops,
	&lock_pmtticket_ops,
	NULL
};

const struct hv_kind_ops *const registry_kinds[] = {
	&kind_kvm_ops,
	&kind_xen_ops,
	&kind_none_ops,
	NULL
};

const struct guest_sched_ops *const registry_gscheds[] = {
	&gsched_cfs_ops,
	&gsched_eevdf_ops,
	&gsched_fifo_ops,
	NULL
};

const struct slock_ops *const registry_slocks[] = {
	&slock_mutex_ops,
	&slock_rwsem_ops,
	NULL
};

/* "a, b, c" of a table's names (caller frees). */
static char *
join(const char *const *names, int n)
{
	size_t len = 1, off = 0;
	char *s;
	int i;

	for (i = 0; i < n; i++)
		len += strlen(names[i]) + 2;
	s = xmalloc(len);
	s[0] = '\0';
	for (i = 0; i < n; i++)
		off += (size_t)sprintf(s + off, "%s%s", i ? ", " : "", names[i]);
	return s;
}

/* A table's lookup by name and its list of names, for every kind of table. */
#define REGISTRY_LOOKUP(type, tab, find, list)					\
const type *									\
find(const char *name)								\
{										\
	int i;									\
										\
	for (i = 0; tab[i] != NULL; i++)					\
		if (strcmp(tab[i]->name, name) == 0)				\
			return tab[i];						\
	return NULL;								\
}										\
										\
char *										\
list(void)									\
{										\
	const char *names[64];							\
	int n = 0;								\
										\
	for (; tab[n] != NULL && n < 64; n++)					\
		names[n] = tab[n]->name;					\
	return join(names, n);							\
}

REGISTRY_LOOKUP(struct hv_kind_ops, registry_kinds, registry_kind, registry_kind_names)
REGISTRY_LOOKUP(struct sched_ops, registry_scheds, registry_sched, registry_sched_names)
REGISTRY_LOOKUP(struct lock_ops, registry_locks, registry_lock, registry_lock_names)
REGISTRY_LOOKUP(struct guest_sched_ops, registry_gscheds, registry_gsched, registry_gsched_names)
REGISTRY_LOOKUP(struct slock_ops, registry_slocks, registry_slock, registry_slock_names)
