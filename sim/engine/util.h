/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * util.h - memory helpers and the two error tiers.
 *
 * Tier 1 (bad input): functions return -1 and fill a struct vs_err whose
 * message already reads "FILE:LINE:COLUMN: what was wrong"; the CLI prints it
 * and exits 2.  Nothing below the CLI calls exit().
 * Tier 2 (broken invariant, out of memory): vs_fatal() / VS_ASSERT abort
 * loudly; these are bugs, never user errors.
 */
#ifndef VS_UTIL_H
#define VS_UTIL_H

#include <stddef.h>
#include <stdio.h>
#include <stdint.h>
#include <stdarg.h>

#define VS_ERR_MAX 1024

struct vs_err {
	char msg[VS_ERR_MAX];
};

/* Fill err with "file:line:col: fmt..."; file may be NULL (message only). Returns -1. */
int vs_errf(struct vs_err *err, const char *file, int line, int col,
    const char *fmt, ...) __attribute__((format(printf, 5, 6)));

void vs_fatal(const char *fmt, ...) __attribute__((noreturn, format(printf, 1, 2)));

#define VS_ASSERT(c) do { if (!(c)) vs_fatal("%s:%d: assertion failed: %s", \
    __FILE__, __LINE__, #c); } while (0)

void *xmalloc(size_t n);
void *xcalloc(size_t nmemb, size_t size);
/* xcalloc aligned to a 64-byte cache line (free() frees it): for per-vCPU
 * structs whose hot fields are laid out to share one line. */
void *xcalloc_line(size_t nmemb, size_t size);
void *xrealloc(void *p, size_t n);
char *xstrdup(const char *s);
char *xstrndup(const char *s, size_t n);
char *xasprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Grow *arr (of *cap elements of size sz) so that index n fits. */
void vs_grow(void **arr, size_t *cap, size_t n, size_t sz);
#define VS_GROW(arr, cap, n) vs_grow((void **)&(arr), &(cap), (n), sizeof(*(arr)))

/* splitmix64: mixes a 64-bit value; used to derive per-entity seeds. */
uint64_t vs_mix64(uint64_t x);

/* Write a whole file atomically (temp file + rename) so a failed run leaves nothing half-written. */
/*
 * getline(3) with a bound: the next line of f (with its newline) in *buf,
 * its length; -1 at the end of the file or on a read error (errno says which:
 * 0 is the end); VS_LINE_TOO_LONG when the line passes max bytes (the rest
 * is not read: /dev/zero has no end of line).
 */
#define VS_LINE_TOO_LONG (-2)
#define VS_LINE_MAX ((size_t)1 << 20)
long vs_getline(char **buf, size_t *cap, FILE *f, size_t max);
int vs_write_file_atomic(const char *path, const char *data, size_t len, struct vs_err *err);
/* A whole file (NUL-terminated; *len its length, when len is not NULL); NULL,
 * errno set, when it cannot be read. */
char *vs_read_file(const char *path, size_t *len);

#endif
