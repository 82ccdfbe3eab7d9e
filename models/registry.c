#include "registry.h"

#include <stdio.h>
#include <string.h>

#include "guest/gsched.h"
#include "guest/lock.h"
#include "hv/kind.h"
#include "hv/sched.h"
#include "util.h"

extern const struct sched_ops sched_pinned_ops;
extern const struct sched_ops sched_cfs_ops;
extern const struct sched_ops sched_credit_ops;
extern const struct sched_ops sched_credit2_ops;
extern const struct hv_kind_ops kind_kvm_ops;
extern const struct hv_kind_ops kind_xen_ops;
extern const struct lock_ops lock_ticket_ops;
extern const struct lock_ops lock_pvticket_ops;
extern const struct lock_ops lock_tas_ops;
extern const struct lock_ops lock_qspinlock_ops;
extern const struct lock_ops lock_pvqspinlock_ops;
extern const struct lock_ops lock_combining_ops;
extern const struct lock_ops lock_spinpark_ops;
extern const struct lock_ops lock_pmtticket_ops;

const struct sched_ops *const registry_scheds[] = {
	&sched_pinned_ops,
	&sched_cfs_ops,
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

const struct hv_kind_ops *const registry_kinds[] = {
	&kind_kvm_ops,
	&kind_xen_ops,
	&kind_none_ops,
	NULL
};

const struct hv_kind_ops *
registry_kind(const char *name)
{
	int i;

	for (i = 0; registry_kinds[i] != NULL; i++)
		if (strcmp(registry_kinds[i]->name, name) == 0)
			return registry_kinds[i];
	return NULL;
}

char *
registry_kind_names(void)
{
	const char *names[16];
	int n = 0;

	for (; registry_kinds[n] != NULL; n++)
		names[n] = registry_kinds[n]->name;
	return join(names, n);
}

const struct sched_ops *
registry_sched(const char *name)
{
	int i;

	for (i = 0; registry_scheds[i] != NULL; i++)
		if (strcmp(registry_scheds[i]->name, name) == 0)
			return registry_scheds[i];
	return NULL;
}

const struct lock_ops *
registry_lock(const char *name)
{
	int i;

	for (i = 0; registry_locks[i] != NULL; i++)
		if (strcmp(registry_locks[i]->name, name) == 0)
			return registry_locks[i];
	return NULL;
}

char *
registry_sched_names(void)
{
	const char *names[64];
	int n = 0;

	for (; registry_scheds[n] != NULL; n++)
		names[n] = registry_scheds[n]->name;
	return join(names, n);
}

char *
registry_lock_names(void)
{
	const char *names[64];
	int n = 0;

	for (; registry_locks[n] != NULL; n++)
		names[n] = registry_locks[n]->name;
	return join(names, n);
}

const struct guest_sched_ops *const registry_gscheds[] = {
	&gsched_cfs_ops,
	&gsched_fifo_ops,
	NULL
};

const struct guest_sched_ops *
registry_gsched(const char *name)
{
	int i;

	for (i = 0; registry_gscheds[i] != NULL; i++)
		if (strcmp(registry_gscheds[i]->name, name) == 0)
			return registry_gscheds[i];
	return NULL;
}

char *
registry_gsched_names(void)
{
	const char *names[16];
	int n = 0;

	for (; registry_gscheds[n] != NULL; n++)
		names[n] = registry_gscheds[n]->name;
	return join(names, n);
}
