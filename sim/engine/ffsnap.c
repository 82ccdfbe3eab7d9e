/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * ffsnap.c - snapshots of a periodic run's state (ffsnap.h).
 */
#include "ffsnap.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>


/* 2^53: below it every whole number is a double, and a sum of whole
 * numbers is exact (no rounding), so k cycles add k times one cycle's step */
#define FFS_EXACT 9007199254740992.0

static size_t
ffs_slot(struct ffs *s, void *p, size_t size, enum ffs_kind kind)
{
	struct ffs_item *it;

	VS_ASSERT(!s->masked);
	VS_GROW(s->it, s->cap, s->n);
	if (s->len + size > s->dcap) {
		s->dcap = (s->len + size) * 2;
		s->data = xrealloc(s->data, s->dcap);
	}
	it = &s->it[s->n++];
	it->p = p;
	it->size = size;
	it->off = s->len;
	it->kind = kind;
	s->len += size;
	return it->off;
}

void
ffs_begin(struct ffs *s, int64_t now)
{
	s->n = s->len = 0;
	s->now = now;
	s->masked = 0;
	s->refused = 0;
}

void
ffs_bytes(struct ffs *s, const void *p, size_t size)
{
	size_t off = ffs_slot(s, (void *)p, size, FFS_BYTES);

	memcpy(s->data + off, p, size);
}

void
ffs_time(struct ffs *s, int64_t *t)
{
	int64_t rel = *t - s->now;
	size_t off = ffs_slot(s, t, sizeof *t, FFS_TIME);

	memcpy(s->data + off, &rel, sizeof rel);
}

static void
ffs_raw(struct ffs *s, void *p, size_t size, enum ffs_kind kind)
{
	size_t off = ffs_slot(s, p, size, kind);

	memcpy(s->data + off, p, size);
}

void ffs_count(struct ffs *s, uint64_t *c) { ffs_raw(s, c, sizeof *c, FFS_COUNT); }
void ffs_left(struct ffs *s, int64_t *c) { ffs_raw(s, c, sizeof *c, FFS_LEFT); }
void ffs_fsum(struct ffs *s, double *x) { ffs_raw(s, x, sizeof *x, FFS_FSUM); }

void
ffs_value(struct ffs *s, int64_t v)
{
	size_t off = ffs_slot(s, NULL, sizeof v, FFS_BYTES);

	memcpy(s->data + off, &v, sizeof v);
}

void ffs_skip(struct ffs *s, void *p, size_t size) { ffs_slot(s, p, size, FFS_SKIP); }
void ffs_refuse(struct ffs *s) { s->refused = 1; }

/* The special item (not bytes) at p, from a table of 2^bits slots of
 * item indexes + 1 (0: empty), linear probing. */
static size_t *
ffs_find(size_t *tab, int bits, const struct ffs *s, const void *p)
{
	size_t mask = ((size_t)1 << bits) - 1;
	size_t h = (size_t)(((uintptr_t)p >> 3) * 0x9e3779b97f4a7c15u >> (64 - bits)) & mask;

	while (tab[h] != 0 && s->it[tab[h] - 1].p != p)
		h = (h + 1) & mask;
	return &tab[h];
}

void
ffs_end(struct ffs *s)
{
	size_t i, o, *tab, *slot;
	int bits = 4;

	while (((size_t)1 << bits) < 2 * s->n + 2)
		bits++;
	tab = xcalloc((size_t)1 << bits, sizeof *tab);
	for (i = 0; i < s->n; i++) {
		struct ffs_item *f = &s->it[i];

		if (f->kind == FFS_BYTES)
			continue;
		VS_ASSERT(f->size == 8 && (uintptr_t)f->p % 8 == 0);
		slot = ffs_find(tab, bits, s, f->p);
		if (*slot == 0) {
			*slot = i + 1;
			continue;
		}
		/* listed again (a VM's state, by each of its vCPUs): acted on once */
		if (s->it[*slot - 1].kind == FFS_SKIP) {
			*slot = i + 1;
			continue;
		}
		VS_ASSERT(f->kind == FFS_SKIP || f->kind == s->it[*slot - 1].kind);
		f->kind = FFS_SKIP;
	}
	/* a region's bytes leave out the 8-byte fields listed another way */
	for (i = 0; i < s->n; i++) {
		const struct ffs_item *b = &s->it[i];
		const char *bp = b->p;

		if (b->kind != FFS_BYTES || bp == NULL)
			continue;
		for (o = (8 - (uintptr_t)bp % 8) % 8; o + 8 <= b->size; o += 8)
			if (*ffs_find(tab, bits, s, bp + o) != 0)
				memset(s->data + b->off + o, 0, 8);
	}
	free(tab);
	s->masked = 1;
}

int
ffs_same(const struct ffs *a, const struct ffs *b)
{
	size_t i;

	VS_ASSERT(a->masked && b->masked);
	if (a->refused || b->refused || a->n != b->n || a->len != b->len || !(b->now > a->now))
		return 0;
	for (i = 0; i < a->n; i++) {
		const struct ffs_item *x = &a->it[i], *y = &b->it[i];

		if (x->p != y->p || x->size != y->size || x->kind != y->kind)
			return 0;
		if ((x->kind == FFS_BYTES || x->kind == FFS_TIME) &&
		    memcmp(a->data + x->off, b->data + y->off, x->size) != 0)
			return 0;
	}
	return 1;
}

static uint64_t
u64_at(const struct ffs *s, const struct ffs_item *it)
{
	uint64_t v;

	memcpy(&v, s->data + it->off, sizeof v);
	return v;
}

static double
f64_at(const struct ffs *s, const struct ffs_item *it)
{
	double v;

	memcpy(&v, s->data + it->off, sizeof v);
	return v;
}

int64_t
ffs_ahead(const struct ffs *s)
{
	int64_t far = 0, rel;
	size_t i;

	for (i = 0; i < s->n; i++)
		if (s->it[i].kind == FFS_TIME) {
			memcpy(&rel, s->data + s->it[i].off, sizeof rel);
			if (rel > far)
				far = rel;
		}
	return far;
}

/* the most k with lo <= x + (k + 2) * d <= hi (x itself in range) */
static int64_t
lin_bound(double x, double d, double lo, double hi, int64_t kmax)
{
	double room;

	if (d > 0)
		room = floor((hi - x) / d) - 2;
	else if (d < 0)
		room = floor((x - lo) / -d) - 2;
	else
		return kmax;
	if (room < 0)
		return 0;
	return room < (double)kmax ? (int64_t)room : kmax;
}

int64_t
ffs_bound(const struct ffs *a, const struct ffs *b, int64_t kmax)
{
	size_t i;
	int64_t k = kmax;

	for (i = 0; i < b->n && k > 0; i++) {
		const struct ffs_item *x = &a->it[i], *y = &b->it[i];
		double va, vb;

		switch (y->kind) {
		case FFS_COUNT:
			if (u64_at(b, y) < u64_at(a, x))
				return 0;	/* counters only grow */
			k = lin_bound((double)u64_at(b, y), (double)(u64_at(b, y) - u64_at(a, x)),
			    0, 0x1p62, k);
			break;
		case FFS_LEFT:
			va = (double)(int64_t)u64_at(a, x);
			vb = (double)(int64_t)u64_at(b, y);
			if (vb > va)
				return 0;	/* counts down only */
			k = lin_bound(vb, vb - va, 1, vb, k);
			break;
		case FFS_FSUM:
			va = f64_at(a, x);
			vb = f64_at(b, y);
			/* whole numbers below 2^53, and so every partial sum */
			if (!(fabs(va) < FFS_EXACT && fabs(vb) < FFS_EXACT) || va != floor(va) ||
			    vb != floor(vb))
				return 0;
			k = lin_bound(vb, vb - va, -FFS_EXACT / 2, FFS_EXACT / 2, k);
			break;
		default:
			break;
		}
	}
	return k;
}

void
ffs_advance(const struct ffs *a, const struct ffs *b, int64_t k)
{
	int64_t per = b->now - a->now;
	size_t i;

	for (i = 0; i < b->n; i++) {
		const struct ffs_item *x = &a->it[i], *y = &b->it[i];
		double d;

		switch (y->kind) {
		case FFS_TIME:
			VS_ASSERT(*(int64_t *)y->p - b->now == (int64_t)u64_at(b, y));
			*(int64_t *)y->p += k * per;
			break;
		case FFS_COUNT:
			VS_ASSERT(*(uint64_t *)y->p == u64_at(b, y));
			*(uint64_t *)y->p += (uint64_t)k * (u64_at(b, y) - u64_at(a, x));
			break;
		case FFS_LEFT:
			VS_ASSERT(*(int64_t *)y->p == (int64_t)u64_at(b, y));
			*(int64_t *)y->p += k * ((int64_t)u64_at(b, y) - (int64_t)u64_at(a, x));
			break;
		case FFS_FSUM:
			VS_ASSERT(*(double *)y->p == f64_at(b, y));
			/* a cycle's additions of whole ns below 2^53 are exact, so k
			 * cycles add k times its step (ffs_bound: every sum stays below) */
			d = f64_at(b, y) - f64_at(a, x);
			*(double *)y->p = f64_at(b, y) + (double)k * d;
			break;
		default:
			break;
		}
	}
}

void
ffs_free(struct ffs *s)
{
	free(s->it);
	free(s->data);
	memset(s, 0, sizeof *s);
}
