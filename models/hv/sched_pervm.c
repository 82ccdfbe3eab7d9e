/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * sched_pervm.c - per-VM scheduler settings by VM name (sched_pervm.h):
 * read from {VM: value} mappings and applied to the matching VMs.
 */
#include "hv/sched_pervm.h"

#include <stdlib.h>
#include <string.h>

#include "hv/hv.h"
#include "yconf.h"

/* A VM matches a name written in weights/caps exactly, or, when no VM has
 * that exact name, as one of the instances name0, name1, ... of count > 1. */
static int
name_matches(const struct hv *hv, const char *key, const char *vm)
{
	size_t kl = strlen(key);
	const char *p;
	int i;

	if (strcmp(key, vm) == 0)
		return 1;
	for (i = 0; i < hv->nvms; i++)
		if (strcmp(hv->vms[i]->name, key) == 0)
			return 0;
	if (strncmp(key, vm, kl) != 0 || vm[kl] == '\0')
		return 0;
	for (p = vm + kl; *p; p++)
		if (*p < '0' || *p > '9')
			return 0;
	return 1;
}

int
sched_pervm_apply(const struct hv *hv, const struct sched_pervm *nm, int n, const char *what,
    void (*set)(void *, int, int), void *ctx, struct vs_err *err)
{
	int k, i;

	for (k = 0; k < n; k++) {
		int hit = 0;

		for (i = 0; i < hv->nvms; i++)
			if (name_matches(hv, nm[k].name, hv->vms[i]->name)) {
				set(ctx, i, nm[k].val);
				hit = 1;
			}
		if (!hit)
			return vs_errf(err, nm[k].file, nm[k].line, nm[k].col,
			    "%s: no VM named '%s'", what, nm[k].name);
	}
	return 0;
}

void
sched_pervm_free(struct sched_pervm *nm, int n)
{
	int i;

	for (i = 0; i < n; i++) {
		free(nm[i].name);
		free(nm[i].file);
	}
	free(nm);
}

int
sched_pervm_parse(const struct yc_node *n, const char *what, int64_t min, int64_t max,
    struct sched_pervm **out, int *nout, struct vs_err *err)
{
	size_t i;

	if (n == NULL)
		return 0;
	if (yc_expect(n, YC_MAP, what, err))
		return -1;
	*out = xcalloc(n->n + 1, sizeof **out);
	for (i = 0; i < n->n; i++) {
		struct sched_pervm *e = &(*out)[i];
		int64_t v;

		e->name = xstrdup(n->keys[i]);
		e->file = xstrdup(n->key_file[i] ? n->key_file[i] : n->file);
		e->line = n->key_line[i];
		e->col = n->key_col[i];
		*nout = (int)i + 1;
		if (yc_node_int(n->vals[i], min, max, &v, err))
			return -1;
		e->val = (int)v;
	}
	return 0;
}

int
sched_pervm_wc_parse(const struct yc_node *params, struct sched_pervm_wc *wc,
    struct vs_err *err)
{
	if (params == NULL)
		return 0;
	return sched_pervm_parse(yc_find(params, "weights"), "a mapping of VM name to weight",
	    1, 65535, &wc->weights, &wc->nweights, err) ||
	    sched_pervm_parse(yc_find(params, "caps"), "a mapping of VM name to cap (%)",
	    0, 65535, &wc->caps, &wc->ncaps, err) ? -1 : 0;
}

void
sched_pervm_wc_free(struct sched_pervm_wc *wc)
{
	sched_pervm_free(wc->weights, wc->nweights);
	sched_pervm_free(wc->caps, wc->ncaps);
}

int
sched_pervm_wc_apply(const struct hv *hv, const struct sched_pervm_wc *wc,
    void (*set_weight)(void *ctx, int vm, int val), void (*set_cap)(void *ctx, int vm, int val),
    void *ctx, struct vs_err *err)
{
	return sched_pervm_apply(hv, wc->weights, wc->nweights, "weights", set_weight, ctx,
	    err) || sched_pervm_apply(hv, wc->caps, wc->ncaps, "caps", set_cap, ctx, err) ?
	    -1 : 0;
}
