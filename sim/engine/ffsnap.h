/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * ffsnap.h - a snapshot of the model state one cycle of a periodic run
 * reads or writes, to prove the next cycles the same (models/guest/ring_ff.c).
 *
 * Each layer lists its state: bytes that must repeat as they are, clocks
 * that repeat shifted by the period, counters that advance by the same
 * amount each cycle (whole numbers: integers, and float sums of whole ns).
 * Two snapshots one cycle apart that agree on every byte and clock say the
 * cycle after them repeats too (the model is deterministic and reads clocks
 * only as differences): ffs_same.  ffs_advance then moves the state k cycles
 * on: clocks by k periods, counters by k times their cycle's step.
 */
#ifndef VS_FFSNAP_H
#define VS_FFSNAP_H

#include <stddef.h>
#include <stdint.h>

#include "util.h"

enum ffs_kind {
	FFS_BYTES,	/* repeats as it is */
	FFS_TIME,	/* a clock (sim_time_t): repeats shifted by the period */
	FFS_COUNT,	/* uint64_t: advances by its cycle's step */
	FFS_LEFT,	/* int64_t counting down to a bound the cycle reads: stays above 1 */
	FFS_FSUM,	/* double, a sum of whole ns: advances by its cycle's step */
	FFS_SKIP,	/* left out of its region's bytes (the caller lists what it means) */
};

struct ffs_item {
	void *p;
	size_t size, off;	/* off: its copy in data */
	enum ffs_kind kind;
};

struct ffs {
	struct ffs_item *it;
	size_t n, cap;
	unsigned char *data;
	size_t len, dcap;
	int64_t now;		/* when it was taken: clocks are kept relative to it */
	int masked;		/* ffs_end ran */
	int refused;		/* ffs_refuse: matches no other snapshot */
};

void ffs_begin(struct ffs *, int64_t now);
void ffs_bytes(struct ffs *, const void *p, size_t size);
void ffs_time(struct ffs *, int64_t *t);
void ffs_count(struct ffs *, uint64_t *c);
void ffs_left(struct ffs *, int64_t *c);
void ffs_fsum(struct ffs *, double *x);
/* A value that must repeat (a count, a key relative to the queue's next) */
void ffs_value(struct ffs *, int64_t v);
/* The state is in the middle of something a cycle cannot be proven to
 * repeat (a clock held as a fraction of a ns): this snapshot matches none. */
void ffs_refuse(struct ffs *);
/* Bytes of a region that its caller lists another way (ffs_value). */
void ffs_skip(struct ffs *, void *p, size_t size);
/* The counters and clocks inside a region of bytes are left out of its bytes. */
void ffs_end(struct ffs *);
/* b, taken one cycle after a: the same items, bytes and clocks? */
int ffs_same(const struct ffs *a, const struct ffs *b);
/* The most cycles after b that keep every counter within its bounds (with
 * two cycles to spare), at most kmax. */
int64_t ffs_bound(const struct ffs *a, const struct ffs *b, int64_t kmax);
/* b's state moved k cycles on (period: b->now - a->now). */
void ffs_advance(const struct ffs *a, const struct ffs *b, int64_t k);
/* The farthest clock of s ahead of its time (0: none). */
int64_t ffs_ahead(const struct ffs *s);
void ffs_free(struct ffs *);

#endif
