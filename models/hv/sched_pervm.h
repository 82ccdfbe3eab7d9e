/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * sched_pervm.h - per-VM scheduler settings written by VM name
 * (`weights: {vm: 512}`, `caps: {vm: 50}`), shared by the Xen schedulers
 * (sched_credit.c, sched_credit2.c), as xl sched-credit{,2} -d DOM sets them.
 */
#ifndef VS_SCHED_PERVM_H
#define VS_SCHED_PERVM_H

#include <stdint.h>

#include "util.h"

struct hv;
struct yc_node;

/* A value written for a VM name, with where it was written. */
struct sched_pervm {
	char *name;
	int val;
	char *file;
	int line, col;
};

/* Read a mapping of VM name to an integer in [min, max]; n NULL: none. */
int sched_pervm_parse(const struct yc_node *n, const char *what, int64_t min, int64_t max,
    struct sched_pervm **out, int *nout, struct vs_err *);
void sched_pervm_free(struct sched_pervm *, int n);
/* Call set(ctx, vm->id, val) for every VM each name matches (exactly, or as
 * instance name0, name1, ... when no VM has that exact name); a name that
 * matches no VM is an error at its position, prefixed by what ("weights"). */
int sched_pervm_apply(const struct hv *, const struct sched_pervm *, int n, const char *what,
    void (*set)(void *ctx, int vm, int val), void *ctx, struct vs_err *);

/* A Xen scheduler's weights: and caps: (xl sched-credit{,2} -d DOM -w W -c C). */
struct sched_pervm_wc {
	struct sched_pervm *weights, *caps;
	int nweights, ncaps;
};
/* Read the keys weights (1..65535) and caps (%, 0: none) of params (NULL: none). */
int sched_pervm_wc_parse(const struct yc_node *params, struct sched_pervm_wc *,
    struct vs_err *);
void sched_pervm_wc_free(struct sched_pervm_wc *);
/* set_weight and set_cap (ctx, vm id, value) for every VM that a name matches. */
int sched_pervm_wc_apply(const struct hv *, const struct sched_pervm_wc *,
    void (*set_weight)(void *ctx, int vm, int val), void (*set_cap)(void *ctx, int vm, int val),
    void *ctx, struct vs_err *);

#endif
