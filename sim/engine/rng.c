/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * rng.c - one GSL generator per entity.
 *
 * taus2 rather than mt19937: a stream exists per vCPU, pCPU, lock..., and
 * taus2 keeps 24 bytes of state (mt19937: 2.5 KB), so thousands of streams
 * stay in cache; it is also faster per draw, maximally equidistributed, and
 * its 2^88 period is far beyond any run.  Both GSL seeders use only 32 bits
 * of the seed, and both remap seed 0 to a fixed default, so we never pass 0.
 */
#include "rng.h"
#include "util.h"

#include <stdlib.h>

struct rng *
rng_new(uint64_t seed, uint64_t entity)
{
	const gsl_rng_type *type = gsl_rng_taus2;
	/* one line-aligned block (taus2: 16 + 24 bytes) */
	struct rng *g = xcalloc_line(1, sizeof(struct rng));
	uint64_t x = vs_mix64(seed ^ vs_mix64(entity));
	unsigned long s = (unsigned long)(x & 0xffffffffUL);

	/* Seed 0 would alias GSL's default seed; re-mix until nonzero. */
	while (s == 0) {
		x = vs_mix64(x);
		s = (unsigned long)(x & 0xffffffffUL);
	}
	/* as gsl_rng_alloc + gsl_rng_set, in place (gsl_rng is a public struct) */
	VS_ASSERT(type->size == sizeof g->state);
	g->r.type = type;
	g->r.state = g->state;
	gsl_rng_set(&g->r, s);
	return g;
}

void
rng_free(struct rng *g)
{
	if (g == NULL)
		return;
	free(g);
}

gsl_rng *
rng_gsl(struct rng *g)
{
	return &g->r;
}

double
rng_uniform(struct rng *g)
{
	return gsl_rng_uniform(&g->r);
}

/* 64 random bits from a 32-bit generator (taus2 returns full 32-bit words). */
static uint64_t
bits64(gsl_rng *r)
{
	uint64_t hi = gsl_rng_get(r) & 0xffffffffUL;

	return (hi << 32) | (gsl_rng_get(r) & 0xffffffffUL);
}

uint64_t
rng_below(struct rng *g, uint64_t n)
{
	unsigned long range = gsl_rng_max(&g->r) - gsl_rng_min(&g->r);
	uint64_t lim, x;

	VS_ASSERT(n > 0);
	/* gsl_rng_uniform_int is unbiased (it rejects) but needs n <= range. */
	if (n <= range)
		return gsl_rng_uniform_int(&g->r, (unsigned long)n);
	/* Wider n: reject the top partial block of 2^64 so all residues are equally likely. */
	lim = UINT64_MAX - (UINT64_MAX % n + 1) % n;
	do
		x = bits64(&g->r);
	while (x > lim);
	return x % n;
}
