/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * util.c - allocation that aborts on failure, the error tiers'
 * helpers, atomic file writes and bounded line reads (util.h).
 */
#include "util.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int
vs_errf(struct vs_err *err, const char *file, int line, int col, const char *fmt, ...)
{
	va_list ap;
	size_t off = 0;

	if (err == NULL)
		return -1;
	if (file != NULL)
		off = (size_t)snprintf(err->msg, sizeof err->msg, "%s:%d:%d: ", file, line, col);
	if (off >= sizeof err->msg)
		off = sizeof err->msg - 1;
	va_start(ap, fmt);
	vsnprintf(err->msg + off, sizeof err->msg - off, fmt, ap);
	va_end(ap);
	return -1;
}

void
vs_fatal(const char *fmt, ...)
{
	va_list ap;

	fflush(stdout);
	fputs("vlocksim: fatal: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	abort();
}

void *
xmalloc(size_t n)
{
	void *p = malloc(n ? n : 1);

	if (p == NULL)
		vs_fatal("out of memory (%zu bytes)", n);
	return p;
}

void *
xcalloc(size_t nmemb, size_t size)
{
	void *p = calloc(nmemb ? nmemb : 1, size ? size : 1);

	if (p == NULL)
		vs_fatal("out of memory (%zu x %zu bytes)", nmemb, size);
	return p;
}

void *
xcalloc_line(size_t nmemb, size_t size)
{
	size_t n;
	void *p;

	if (size != 0 && nmemb > SIZE_MAX / size)
		vs_fatal("out of memory (%zu x %zu bytes)", nmemb, size);
	n = (nmemb * size + 63) / 64 * 64;
	p = aligned_alloc(64, n ? n : 64);
	if (p == NULL)
		vs_fatal("out of memory (%zu x %zu bytes)", nmemb, size);
	memset(p, 0, n ? n : 64);
	return p;
}

void *
xrealloc(void *p, size_t n)
{
	void *q = realloc(p, n ? n : 1);

	if (q == NULL)
		vs_fatal("out of memory (%zu bytes)", n);
	return q;
}

char *
xstrdup(const char *s)
{
	size_t n = strlen(s) + 1;
	char *p = xmalloc(n);

	memcpy(p, s, n);
	return p;
}

char *
xstrndup(const char *s, size_t n)
{
	char *p = xmalloc(n + 1);

	memcpy(p, s, n);
	p[n] = '\0';
	return p;
}

char *
xasprintf(const char *fmt, ...)
{
	va_list ap;
	int n;
	char *p;

	va_start(ap, fmt);
	n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (n < 0)
		vs_fatal("xasprintf: bad format");
	p = xmalloc((size_t)n + 1);
	va_start(ap, fmt);
	vsnprintf(p, (size_t)n + 1, fmt, ap);
	va_end(ap);
	return p;
}

void
vs_grow(void **arr, size_t *cap, size_t n, size_t sz)
{
	size_t nc;

	if (n < *cap)
		return;
	nc = *cap ? *cap * 2 : 8;
	while (nc <= n)
		nc *= 2;
	*arr = xrealloc(*arr, nc * sz);
	memset((char *)*arr + *cap * sz, 0, (nc - *cap) * sz);
	*cap = nc;
}

uint64_t
vs_mix64(uint64_t x)
{
	x += 0x9e3779b97f4a7c15ULL;
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
	x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
	return x ^ (x >> 31);
}

FILE *
vs_fopen_regular(const char *path, const char **why)
{
	/* O_NONBLOCK: opening a FIFO returns at once instead of waiting */
	int fd = open(path, O_RDONLY | O_NONBLOCK), e;
	struct stat st;
	FILE *f;

	if (fd < 0 || fstat(fd, &st) != 0) {
		e = errno;
		if (fd >= 0)
			close(fd);
		*why = strerror(e);
		return NULL;
	}
	if (!S_ISREG(st.st_mode)) {
		close(fd);
		*why = S_ISDIR(st.st_mode) ? strerror(EISDIR) :
		    S_ISFIFO(st.st_mode) ? "not a regular file (a FIFO)" :
		    S_ISCHR(st.st_mode) ? "not a regular file (a character device)" :
		    S_ISBLK(st.st_mode) ? "not a regular file (a block device)" :
		    "not a regular file (a socket)";
		return NULL;
	}
	if (fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK) != 0 ||
	    (f = fdopen(fd, "rb")) == NULL) {
		e = errno;
		close(fd);
		*why = strerror(e);
		return NULL;
	}
	return f;
}

int
vs_out_resolve(const char *path, char **real, enum vs_out_kind *kind, struct vs_err *err)
{
	struct stat st;
	int link;

	*real = NULL;
	if (lstat(path, &st) != 0) {
		if (errno != ENOENT)
			return vs_errf(err, NULL, 0, 0, "%s: cannot write: %s", path, strerror(errno));
		*kind = VS_OUT_NEW;
		*real = xstrdup(path);
		return 0;
	}
	link = S_ISLNK(st.st_mode);
	if (link && stat(path, &st) != 0)
		return vs_errf(err, NULL, 0, 0, "%s: a symlink that leads nowhere (%s): not written "
		    "through, not replaced; remove it or name the file", path, strerror(errno));
	*kind = S_ISREG(st.st_mode) ? VS_OUT_FILE : S_ISDIR(st.st_mode) ? VS_OUT_DIR :
	    VS_OUT_DEVICE;
	/* A regular file is replaced in its own folder: a symlink's target.  A
	 * device is opened by the name given (/dev/stdout leads to no path). */
	if (link && *kind != VS_OUT_DEVICE) {
		if ((*real = realpath(path, NULL)) == NULL)
			return vs_errf(err, NULL, 0, 0, "%s: cannot follow the symlink: %s", path,
			    strerror(errno));
	} else {
		*real = xstrdup(path);
	}
	return 0;
}

/* vs_out_resolve for a file: a folder is refused. */
static int
out_file(const char *path, char **real, enum vs_out_kind *kind, struct vs_err *err)
{
	if (vs_out_resolve(path, real, kind, err))
		return -1;
	if (*kind != VS_OUT_DIR)
		return 0;
	free(*real);
	*real = NULL;
	return vs_errf(err, NULL, 0, 0, "%s: is a folder, not a file", path);
}

/* Write data through a device, FIFO or socket (opened, never created). */
static int
out_through(const char *path, const char *real, const char *data, size_t len,
    struct vs_err *err)
{
	int fd = open(real, O_WRONLY | O_NOCTTY), e;
	size_t off = 0;
	ssize_t w;

	if (fd < 0)
		return vs_errf(err, NULL, 0, 0, "%s: cannot write: %s", path, strerror(errno));
	while (off < len) {
		w = write(fd, data + off, len - off);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0) {
			e = w < 0 ? errno : EIO;
			close(fd);
			return vs_errf(err, NULL, 0, 0, "%s: write failed: %s", path, strerror(e));
		}
		off += (size_t)w;
	}
	if (close(fd) != 0)
		return vs_errf(err, NULL, 0, 0, "%s: write failed: %s", path, strerror(errno));
	return 0;
}

/* Write data to a temp file beside real and rename it over real. */
static int
out_atomic(const char *path, const char *real, const char *data, size_t len,
    struct vs_err *err)
{
	char *tmp = xasprintf("%s.tmp.%ld", real, (long)getpid());
	FILE *f = fopen(tmp, "wb");
	int rc = 0;

	if (f == NULL) {
		rc = vs_errf(err, NULL, 0, 0, "%s: cannot write: %s", path, strerror(errno));
		free(tmp);
		return rc;
	}
	size_t w = fwrite(data, 1, len, f);
	int c = fclose(f);

	if (w != len || c != 0) {
		unlink(tmp);
		rc = vs_errf(err, NULL, 0, 0, "%s: write failed: %s", path, strerror(errno));
	} else if (rename(tmp, real) != 0) {
		unlink(tmp);
		rc = vs_errf(err, NULL, 0, 0, "%s: cannot rename into place: %s", path, strerror(errno));
	}
	free(tmp);
	return rc;
}

/* Whole file, NULL (errno set) when it cannot be read. */
char *
vs_read_file(const char *path, size_t *lenp)
{
	FILE *f = fopen(path, "rb");
	char *buf = NULL;
	size_t len = 0, cap = 0, r;

	if (f == NULL)
		return NULL;
	do {
		VS_GROW(buf, cap, len + 4096);
		r = fread(buf + len, 1, cap - len - 1, f);
		len += r;
	} while (r > 0);
	if (ferror(f)) {
		fclose(f);
		free(buf);
		errno = EIO;
		return NULL;
	}
	fclose(f);
	buf[len] = '\0';
	if (lenp != NULL)
		*lenp = len;
	return buf;
}

int
vs_write_file_atomic(const char *path, const char *data, size_t len, struct vs_err *err)
{
	enum vs_out_kind kind;
	char *real;
	int rc;

	if (out_file(path, &real, &kind, err))
		return -1;
	rc = kind == VS_OUT_DEVICE ? out_through(path, real, data, len, err) :
	    out_atomic(path, real, data, len, err);
	free(real);
	return rc;
}

int
vs_replace_file(const char *tmp, const char *path, struct vs_err *err)
{
	enum vs_out_kind kind;
	char *real, *buf;
	size_t len;
	int rc;

	if (out_file(path, &real, &kind, err)) {
		unlink(tmp);
		return -1;
	}
	if (kind != VS_OUT_DEVICE && rename(tmp, real) == 0) {
		free(real);
		return 0;
	}
	if (kind != VS_OUT_DEVICE && errno != EXDEV) {
		rc = vs_errf(err, NULL, 0, 0, "%s: cannot rename into place: %s", path,
		    strerror(errno));
	} else if ((buf = vs_read_file(tmp, &len)) == NULL) {
		rc = vs_errf(err, NULL, 0, 0, "%s: cannot read %s: %s", path, tmp, strerror(errno));
	} else {	/* a device, or a symlink's target on another file system */
		rc = kind == VS_OUT_DEVICE ? out_through(path, real, buf, len, err) :
		    out_atomic(path, real, buf, len, err);
		free(buf);
	}
	unlink(tmp);
	free(real);
	return rc;
}

int
vs_out_writable(const char *path, struct vs_err *err)
{
	enum vs_out_kind kind;
	char *real, *probe;
	int fd, rc = 0;

	if (out_file(path, &real, &kind, err))
		return -1;
	if (kind == VS_OUT_DEVICE) {
		/* not opened: a FIFO would wait for its reader */
		if (access(real, W_OK) != 0)
			rc = vs_errf(err, NULL, 0, 0, "%s: cannot write: %s", path, strerror(errno));
		free(real);
		return rc;
	}
	probe = xasprintf("%s.tmp.%ld", real, (long)getpid());
	if ((fd = open(probe, O_WRONLY | O_CREAT | O_EXCL, 0666)) < 0) {
		rc = vs_errf(err, NULL, 0, 0, "%s: cannot write: %s", path, strerror(errno));
	} else {
		close(fd);
		unlink(probe);
	}
	free(probe);
	free(real);
	return rc;
}

long
vs_getline(char **buf, size_t *cap, FILE *f, size_t max)
{
	size_t len = 0;
	int c;

	if (*cap < 256) {
		*cap = 256;
		*buf = xrealloc(*buf, *cap);
	}
	errno = 0;
	flockfile(f);
	while ((c = getc_unlocked(f)) != EOF) {
		if (len + 1 >= *cap) {
			*cap *= 2;
			*buf = xrealloc(*buf, *cap);
		}
		(*buf)[len++] = (char)c;
		if (c == '\n')
			break;
		if (len >= max) {
			funlockfile(f);
			(*buf)[len] = '\0';
			return VS_LINE_TOO_LONG;
		}
	}
	funlockfile(f);
	(*buf)[len] = '\0';
	if (c == EOF && (len == 0 || ferror(f))) {
		if (ferror(f) && errno == 0)
			errno = EIO;
		return -1;
	}
	return (long)len;
}
