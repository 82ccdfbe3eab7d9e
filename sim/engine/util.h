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

/*
 * getline(3) with a bound: the next line of f (with its newline) in *buf,
 * its length; -1 at the end of the file or on a read error (errno says which:
 * 0 is the end); VS_LINE_TOO_LONG when the line passes max bytes (the rest
 * is not read: /dev/zero has no end of line).
 */
#define VS_LINE_TOO_LONG (-2)
#define VS_LINE_MAX ((size_t)1 << 20)
long vs_getline(char **buf, size_t *cap, FILE *f, size_t max);

/*
 * fopen(path, "rb") of a regular file only (issue 29): a FIFO would block the
 * open until a writer came, and a device or socket is no input file.  NULL
 * and *why (static text: strerror's, or "not a regular file (a FIFO)").
 */
FILE *vs_fopen_regular(const char *path, const char **why);

/*
 * Output files (issue 29).  What the user named is written, never replaced by
 * something else: a regular file (or nothing) is replaced whole, by a temp
 * file and a rename, so a failed run leaves nothing half-written; a symlink
 * is followed to its target (one that leads nowhere is refused, as cp(1)
 * refuses it); a device, FIFO or socket is written through, never replaced
 * by a regular file; a folder is refused.
 */
enum vs_out_kind { VS_OUT_NEW, VS_OUT_FILE, VS_OUT_DEVICE, VS_OUT_DIR };
/* What path is, and *real (malloc'd) the path to write: a symlink's target
 * (a folder is VS_OUT_DIR; the writers below refuse it). */
int vs_out_resolve(const char *path, char **real, enum vs_out_kind *kind, struct vs_err *err);
/* Write data to path as above. */
int vs_write_file_atomic(const char *path, const char *data, size_t len, struct vs_err *err);
/* A whole file (NUL-terminated; *len its length, when len is not NULL); NULL,
 * errno set, when it cannot be read. */
char *vs_read_file(const char *path, size_t *len);
/* Put the finished file tmp (beside path) in path's place as above; tmp is gone after. */
int vs_replace_file(const char *tmp, const char *path, struct vs_err *err);
/* Whether path can be written as above (before a long run): 0, or -1 and err. */
int vs_out_writable(const char *path, struct vs_err *err);

#endif
