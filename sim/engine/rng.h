/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * rng.h - random streams: one GSL generator per entity.
 *
 * A stream is seeded from (scenario seed, entity id) through splitmix64, so
 * adding a VM does not shift the numbers any other VM draws.
 */
#ifndef VS_RNG_H
#define VS_RNG_H

#include <stdint.h>
#include <gsl/gsl_rng.h>

/* The generator, its header and its state in one block (GSL's own
 * gsl_rng_alloc makes three): a draw reads one cache line, not three
 * scattered ones, which matters with thousands of vCPUs.  Always taus2
 * (rng_new), so the draws below step its state in place. */
struct rng {
	gsl_rng r;
	_Alignas(16) unsigned long state[3];
};

struct rng *rng_new(uint64_t seed, uint64_t entity);
void rng_free(struct rng *);
gsl_rng *rng_gsl(struct rng *);
double rng_uniform(struct rng *);           /* [0,1) */
uint64_t rng_below(struct rng *, uint64_t n); /* [0,n) */

/*
 * One 32-bit word of g, as gsl_rng_get gives it, without its call through
 * the type's function pointer when g is taus2 (rng.c): the three-component
 * combined Tausworthe generator of L'Ecuyer, "Maximally equidistributed
 * combined Tausworthe generators", Math. Comp. 65 (1996), whose state GSL
 * keeps as three unsigned longs.  tests/check_dist.c holds it to
 * gsl_rng_get word for word.
 */
static inline uint32_t
rng_taus2_word(unsigned long *s)
{
	unsigned long m = 0xffffffffUL;

	s[0] = (((s[0] & 4294967294UL) << 12) & m) ^ ((((s[0] << 13) & m) ^ s[0]) >> 19);
	s[1] = (((s[1] & 4294967288UL) << 4) & m) ^ ((((s[1] << 2) & m) ^ s[1]) >> 25);
	s[2] = (((s[2] & 4294967280UL) << 17) & m) ^ ((((s[2] << 3) & m) ^ s[2]) >> 11);
	return (uint32_t)(s[0] ^ s[1] ^ s[2]);
}
static inline uint32_t
rng_word_gsl(gsl_rng *g)
{
	if (g->type == gsl_rng_taus2)
		return rng_taus2_word(g->state);
	return (uint32_t)gsl_rng_get(g);
}

/* The ziggurat's tables (rng_exp.c): layer i's bound on the position and
 * its scale; a draw outside its rectangle, and the draws after it. */
extern const uint32_t rng_zig_k[256];
extern const double rng_zig_w[256];
double rng_exp_edge(gsl_rng *, uint32_t i, uint32_t j);

/* Exp(1) by the ziggurat (rng_exp.c): exact in distribution, faster than
 * gsl_ran_exponential's log1p; scale by the mean.  g must return full 32-bit
 * words (taus2, rng.c).  Inline: 99% of draws are one word, one compare and
 * one multiply, less than the calls around them. */
static inline double
rng_exp_gsl(gsl_rng *g)
{
	uint32_t u = rng_word_gsl(g);
	uint32_t i = u & 0xff, j = u >> 8;

	if (j < rng_zig_k[i])
		return j * rng_zig_w[i];	/* inside the layer's rectangle */
	return rng_exp_edge(g, i, j);
}
/* The same draw on a stream (taus2, rng_new): its state stepped in place,
 * without the type's check or the state's pointer. */
static inline double
rng_exp(struct rng *r)
{
	uint32_t u = rng_taus2_word(r->state);
	uint32_t i = u & 0xff, j = u >> 8;

	if (j < rng_zig_k[i])
		return j * rng_zig_w[i];
	return rng_exp_edge(&r->r, i, j);
}
/* Its tables (k, returned; w and f), for tests/check_dist.c. */
const uint32_t *rng_zig_tables(const double **w, const double **f);

/* Stable entity ids for streams: kind in the top byte, index below. */
#define RNG_ENTITY(kind, idx) (((uint64_t)(kind) << 56) | (uint64_t)(idx))
enum { RNG_KIND_VCPU = 1, RNG_KIND_PCPU, RNG_KIND_LOCK, RNG_KIND_VM, RNG_KIND_HV };

#endif
