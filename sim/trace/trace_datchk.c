/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * trace_datchk.c - a trace.dat's structure checked before libtracecmd reads
 * it, after trace-cmd's Documentation/trace-cmd/trace-cmd.dat.v6.5.txt and
 * trace-cmd.dat.v7.5.txt.  libtracecmd 3.1.6 trusts the sizes it reads, so a
 * truncated or bit-flipped file crashed it (issue 29).  Like `trace-cmd dump`
 * this walks the headers, sections and options, and refuses the first size
 * that leaves its container (a section, the file) with that field's byte
 * offset.  The ring-buffer pages are not read here: trace_dat.c reads them
 * through libtracecmd in a child process, which a crash cannot take down.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "trace_datchk.h"

/* Option and section ids: trace-cmd lib/trace-cmd/include/private/trace-cmd-private.h. */
enum { DC_DONE, DC_DATE, DC_CPUSTAT, DC_BUFFER, DC_TRACECLOCK, DC_UNAME, DC_HOOK,
	DC_OFFSET, DC_CPUCOUNT, DC_VERSION, DC_PROCMAPS, DC_TRACEID, DC_TIME_SHIFT,
	DC_GUEST, DC_TSC2NSEC, DC_STRINGS, DC_HEADER_INFO, DC_FTRACE_EVENTS,
	DC_EVENT_FORMATS, DC_KALLSYMS, DC_PRINTK, DC_CMDLINES, DC_BUFFER_TEXT };

#define DC_STR_MAX 4096		/* a name or a version, its NUL included */
#define DC_MAX_CPU (1u << 20)	/* libtracecmd allocates the largest CPU id + 1 */
#define DC_SEC_HEAD 16		/* v7 section header: id, flags, string id, size */
#define DC_COMMIT_MASK ((1u << 27) - 1)	/* libtraceevent kbuffer-parse.c: a page's
					 * commit, without the missed-events flags */
#define DC_CHUNK_MAX (1u << 28)	/* a compressed chunk's whole size (libtracecmd
				 * allocates it) */

struct dc_sec {
	uint64_t off, size;	/* of the header; of what follows it */
	unsigned id, flags;
};

struct dc {
	FILE *f;
	const char *path;
	struct vs_err *err;
	uint64_t size;		/* the file's */
	uint64_t off;		/* of the next byte */
	uint64_t end;		/* of what is being read: a section, else the file */
	int be;			/* numbers are big-endian */
	int version;		/* 6 or 7 */
	uint64_t psz;		/* the traced machine's page size */
	unsigned commit_size;	/* of a page's commit field: the kernel's long */
	struct ti_dat_info info;
	struct dc_sec *sec;	/* v7: every section, in file order */
	size_t nsec, capsec;
};

static int
dc_bad(struct dc *c, uint64_t at, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

static int
dc_bad(struct dc *c, uint64_t at, const char *fmt, ...)
{
	char why[600];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(why, sizeof why, fmt, ap);
	va_end(ap);
	return vs_errf(c->err, NULL, 0, 0, "%s: byte offset %llu: damaged trace.dat: %s (the "
	    "file has %llu bytes)", c->path, (unsigned long long)at, why,
	    (unsigned long long)c->size);
}

static const char *
dc_where(const struct dc *c)
{
	return c->end == c->size ? "the end of the file" : "the end of its section";
}

static int
dc_seek(struct dc *c, uint64_t off)
{
	c->off = off;
	if (fseeko(c->f, (off_t)off, SEEK_SET) != 0)
		return dc_bad(c, off, "cannot seek: %s", strerror(errno));
	return 0;
}

static int
dc_read(struct dc *c, void *buf, size_t n, const char *what)
{
	if (n > c->end - c->off)
		return dc_bad(c, c->off, "%s (%zu bytes) runs past %s", what, n, dc_where(c));
	if (fread(buf, 1, n, c->f) != n)
		return dc_bad(c, c->off, "cannot read %s: %s", what,
		    ferror(c->f) ? strerror(errno) : "the file ended early");
	c->off += n;
	return 0;
}

/* An unsigned number of 2, 4 or 8 bytes in the file's byte order. */
static int
dc_num(struct dc *c, int bytes, uint64_t *v, const char *what)
{
	unsigned char b[8];
	int i;

	if (dc_read(c, b, (size_t)bytes, what))
		return -1;
	*v = 0;
	for (i = 0; i < bytes; i++)
		*v |= (uint64_t)b[c->be ? bytes - 1 - i : i] << (8 * i);
	return 0;
}

/* A size of `bytes` bytes and as many bytes of data, which must fit. */
static int
dc_sized(struct dc *c, int bytes, const char *what)
{
	uint64_t at = c->off, n;

	if (dc_num(c, bytes, &n, what))
		return -1;
	if (n > c->end - c->off)
		return dc_bad(c, at, "%s: %llu bytes from byte %llu run past %s", what,
		    (unsigned long long)n, (unsigned long long)c->off, dc_where(c));
	return dc_seek(c, c->off + n);
}

/* A NUL-terminated string of at most max bytes, its NUL included. */
static int
dc_str(struct dc *c, char *buf, size_t max, const char *what)
{
	uint64_t at = c->off;
	size_t i;

	for (i = 0; i < max; i++) {
		if (dc_read(c, buf + i, 1, what))
			return -1;
		if (buf[i] == '\0')
			return 0;
	}
	return dc_bad(c, at, "%s has no end within %zu bytes", what, max);
}

static int
dc_tag(struct dc *c, const char *tag, size_t n)
{
	char buf[16];
	uint64_t at = c->off;

	if (dc_read(c, buf, n, tag))
		return -1;
	if (memcmp(buf, tag, n) != 0)
		return dc_bad(c, at, "expected \"%s\"", tag);
	return 0;
}

/* ---- the metadata, the same in v6's header and in v7's sections ---------- */

/* header_page is events/header_page: its commit field's size is the
 * kernel's long, which libtracecmd reads the pages with. */
static int
dc_headers(struct dc *c)
{
	char text[4096];
	uint64_t n, at;
	const char *p;

	if (dc_tag(c, "header_page", 12))
		return -1;
	at = c->off;
	if (dc_num(c, 8, &n, "header_page"))
		return -1;
	if (n > c->end - c->off)
		return dc_bad(c, at, "header_page: %llu bytes from byte %llu run past %s",
		    (unsigned long long)n, (unsigned long long)c->off, dc_where(c));
	if (n < sizeof text) {
		if (dc_read(c, text, (size_t)n, "header_page"))
			return -1;
		text[n] = '\0';
		if ((p = strstr(text, " commit;")) != NULL && (p = strstr(p, "size:")) != NULL)
			c->commit_size = p[5] == '4' ? 4 : 8;
	} else if (dc_seek(c, c->off + n)) {
		return -1;
	}
	return dc_tag(c, "header_event", 13) || dc_sized(c, 8, "header_event") ? -1 : 0;
}

/* A 4-byte count of format files, each an 8-byte size and its text. */
static int
dc_formats(struct dc *c, const char *count, const char *what)
{
	uint64_t n, i;

	if (dc_num(c, 4, &n, count))
		return -1;
	for (i = 0; i < n; i++)
		if (dc_sized(c, 8, what))
			return -1;
	return 0;
}

static int
dc_ftrace_events(struct dc *c)
{
	return dc_formats(c, "the ftrace event count", "an ftrace event format");
}

static int
dc_event_formats(struct dc *c)
{
	char name[DC_STR_MAX];
	uint64_t nsys, i;

	if (dc_num(c, 4, &nsys, "the event system count"))
		return -1;
	for (i = 0; i < nsys; i++)
		if (dc_str(c, name, sizeof name, "an event system's name") ||
		    dc_formats(c, "an event system's event count", "an event format"))
			return -1;
	return 0;
}

/* The ring-buffer pages of one CPU: each page's commit (the bytes written
 * in it; kernel/trace/ring_buffer.c struct buffer_data_page) fits the page. */
static int
dc_pages(struct dc *c, uint64_t cpu, uint64_t off, uint64_t size)
{
	uint64_t p, commit, head = 8 + c->commit_size;

	for (p = off; p - off < size; p += c->psz) {
		if (c->psz > c->size - p)
			return dc_bad(c, p, "CPU %llu's page runs past the end of the file",
			    (unsigned long long)cpu);
		if (dc_seek(c, p + 8) ||
		    dc_num(c, (int)c->commit_size, &commit, "a page's commit"))
			return -1;
		if ((commit & DC_COMMIT_MASK) > c->psz - head)
			return dc_bad(c, p + 8, "CPU %llu's page holds %llu bytes of events, more "
			    "than its %llu", (unsigned long long)cpu,
			    (unsigned long long)(commit & DC_COMMIT_MASK),
			    (unsigned long long)(c->psz - head));
	}
	return 0;
}

/* One CPU's compressed data (v7): a chunk count, then each chunk's
 * compressed and whole sizes and its compressed bytes, inside the file
 * (trace-cmd 3.1.6 writes the data's size without its count; libtracecmd's
 * tracecmd_load_chunks_info() reads the chunks and not the size). */
static int
dc_chunks(struct dc *c, uint64_t cpu, uint64_t off)
{
	uint64_t n, i, zsize, rsize, at;

	if (dc_seek(c, off) || dc_num(c, 4, &n, "a chunk count"))
		return -1;
	for (i = 0; i < n; i++) {
		at = c->off;
		if (dc_num(c, 4, &zsize, "a chunk's size") ||
		    dc_num(c, 4, &rsize, "a chunk's whole size"))
			return -1;
		if (zsize > c->end - c->off)
			return dc_bad(c, at, "CPU %llu's chunk of %llu bytes runs past the end of "
			    "the file", (unsigned long long)cpu, (unsigned long long)zsize);
		if (rsize == 0 || rsize % c->psz != 0 || rsize > DC_CHUNK_MAX)
			return dc_bad(c, at + 4, "CPU %llu's chunk: a whole size of %llu (whole "
			    "pages, at most %u bytes)", (unsigned long long)cpu,
			    (unsigned long long)rsize, DC_CHUNK_MAX);
		c->info.data_bytes += rsize;
		if (dc_seek(c, c->off + zsize))
			return -1;
	}
	return 0;
}

/* One CPU's trace data, [off, off + size), read from the middle of the
 * metadata (c->off and c->end are kept). */
static int
dc_cpu_data(struct dc *c, uint64_t at, uint64_t cpu, uint64_t off, uint64_t size,
    int compressed)
{
	uint64_t back = c->off, end = c->end;
	int rc;

	if (cpu >= DC_MAX_CPU)
		return dc_bad(c, at, "CPU id %llu (more than %u)", (unsigned long long)cpu,
		    DC_MAX_CPU);
	if (off > c->size || size > c->size - off)
		return dc_bad(c, at, "CPU %llu's data, %llu bytes at byte %llu, runs past the end "
		    "of the file", (unsigned long long)cpu, (unsigned long long)size,
		    (unsigned long long)off);
	if (size == 0)
		return 0;
	if (off < c->info.data_off)
		c->info.data_off = off;
	if (!compressed)
		c->info.data_bytes += size;
	c->end = c->size;
	rc = compressed ? dc_chunks(c, cpu, off) : dc_pages(c, cpu, off, size);
	c->end = end;
	return rc || dc_seek(c, back) ? -1 : 0;
}

/* ---- options: what libtracecmd 3.1.6's handle_options() reads of each --- */

static const struct dc_sec *
dc_section_at(const struct dc *c, uint64_t off)
{
	size_t i;

	for (i = 0; i < c->nsec; i++)
		if (c->sec[i].off == off)
			return &c->sec[i];
	return NULL;
}

/* v7: an option that names a section must name one of the right id. */
static int
dc_points_to(struct dc *c, uint64_t at, uint64_t off, unsigned id, const char *what)
{
	const struct dc_sec *s = dc_section_at(c, off);

	if (s == NULL || s->id != id)
		return dc_bad(c, at, "%s: byte %llu is not the start of a section of id %u", what,
		    (unsigned long long)off, id);
	return 0;
}

/* BUFFER and BUFFER_TEXT: where an instance's data is, and (v7) its CPUs. */
static int
dc_buffer(struct dc *c, unsigned id, uint64_t at)
{
	char s[DC_STR_MAX];
	uint64_t off, psz, ncpu, i, cpu, coff, csize, cat;
	const struct dc_sec *sec;

	if (dc_num(c, 8, &off, "a buffer's offset") ||
	    dc_str(c, s, sizeof s, "a buffer's name"))
		return -1;
	if (c->version < 7)
		return off > c->size ? dc_bad(c, at, "a buffer at byte %llu, past the end of the "
		    "file", (unsigned long long)off) : 0;
	if (dc_points_to(c, at, off, id, "a buffer") ||
	    dc_str(c, s, sizeof s, "a buffer's clock"))
		return -1;
	sec = dc_section_at(c, off);
	if (id == DC_BUFFER_TEXT)
		return 0;
	if (dc_num(c, 4, &psz, "a buffer's page size") ||
	    dc_num(c, 4, &ncpu, "a buffer's CPU count"))
		return -1;
	for (i = 0; i < ncpu; i++) {
		cat = c->off;
		if (dc_num(c, 4, &cpu, "a CPU id") || dc_num(c, 8, &coff, "a CPU's data offset") ||
		    dc_num(c, 8, &csize, "a CPU's data size") ||
		    dc_cpu_data(c, cat, cpu, coff, csize, sec->flags & 1))
			return -1;
	}
	return 0;
}

/* One option's data, [c->off, c->off + size): c->end is its end. */
static int
dc_option(struct dc *c, unsigned id, uint64_t size, uint64_t at)
{
	uint64_t v;
	char last;

	switch (id) {
	case DC_DATE: case DC_CPUSTAT: case DC_TRACECLOCK: case DC_UNAME: case DC_HOOK:
	case DC_OFFSET: case DC_VERSION: case DC_PROCMAPS:
		/* Strings, read with strdup/strtoll: trace-cmd writes their NUL. */
		if (size == 0)
			return dc_bad(c, at, "option %u: an empty string", id);
		if (dc_seek(c, c->off + size - 1) || dc_read(c, &last, 1, "a string"))
			return -1;
		return last == '\0' ? 0 : dc_bad(c, at, "option %u: a string with no end", id);
	case DC_CPUCOUNT:
		return size >= 4 ? 0 : dc_bad(c, at, "the CPU count option has %llu bytes, not 4",
		    (unsigned long long)size);
	case DC_BUFFER: case DC_BUFFER_TEXT:
		return dc_buffer(c, id, at);
	case DC_HEADER_INFO: case DC_FTRACE_EVENTS: case DC_EVENT_FORMATS: case DC_KALLSYMS:
	case DC_PRINTK: case DC_CMDLINES:
		if (size < 8 || c->version < 7)
			return 0;	/* libtracecmd skips it */
		return dc_num(c, 8, &v, "a section's offset") ||
		    dc_points_to(c, at, v, id, "a section option") ? -1 : 0;
	default:
		return 0;
	}
}

/* v6: options after "options  ", each an id and a size, up to id 0. */
static int
dc_options_v6(struct dc *c)
{
	uint64_t id, size, at, body;

	for (;;) {
		at = c->off;
		if (dc_num(c, 2, &id, "an option id"))
			return -1;
		if (id == DC_DONE)
			return 0;
		if (dc_num(c, 4, &size, "an option's size"))
			return -1;
		body = c->off;
		if (size > c->size - body)
			return dc_bad(c, at, "option %llu: %llu bytes run past the end of the file",
			    (unsigned long long)id, (unsigned long long)size);
		c->end = body + size;
		if (dc_option(c, (unsigned)id, size, at))
			return -1;
		c->end = c->size;
		if (dc_seek(c, body + size))
			return -1;
	}
}

/* v7: an options section, [c->off, c->end), ending with its DONE option. */
static int
dc_options_v7(struct dc *c)
{
	uint64_t id, size, at, body, next, send = c->end;

	for (;;) {
		at = c->off;
		if (dc_num(c, 2, &id, "an option id") || dc_num(c, 4, &size, "an option's size"))
			return -1;
		body = c->off;
		if (size > send - body)
			return dc_bad(c, at, "option %llu: %llu bytes run past the end of its "
			    "section", (unsigned long long)id, (unsigned long long)size);
		if (id == DC_DONE) {
			if (size < 8)
				return dc_bad(c, at, "the last option has %llu bytes, not 8",
				    (unsigned long long)size);
			if (dc_num(c, 8, &next, "the next options section's offset"))
				return -1;
			return next == 0 ? 0 : dc_points_to(c, at, next, DC_DONE,
			    "the next options");
		}
		c->end = body + size;
		if (dc_option(c, (unsigned)id, size, at))
			return -1;
		c->end = send;
		if (dc_seek(c, body + size))
			return -1;
	}
}

/* ---- versions ------------------------------------------------------------ */

static int
dc_v6(struct dc *c)
{
	uint64_t ncpu, i, off, size, at;
	char kind[10];
	int had_options = 0;

	if (dc_headers(c) || dc_ftrace_events(c) || dc_event_formats(c) ||
	    dc_sized(c, 4, "kallsyms") || dc_sized(c, 4, "the printk formats") ||
	    dc_sized(c, 8, "the saved command lines") || dc_num(c, 4, &ncpu, "the CPU count"))
		return -1;
	for (;;) {
		at = c->off;
		if (dc_read(c, kind, sizeof kind, "\"options\", \"latency\" or \"flyrecord\""))
			return -1;
		/* libtracecmd's read_options_type() compares this much of each */
		if (!had_options && memcmp(kind, "options", 7) == 0) {
			had_options = 1;
			if (dc_options_v6(c))
				return -1;
			continue;
		}
		if (memcmp(kind, "latency", 7) == 0)
			return 0;	/* the rest is text */
		if (memcmp(kind, "flyrecord", 9) != 0)
			return dc_bad(c, at, "expected \"options\", \"latency\" or \"flyrecord\"");
		for (i = 0; i < ncpu; i++) {
			at = c->off;
			if (dc_num(c, 8, &off, "a CPU's data offset") ||
			    dc_num(c, 8, &size, "a CPU's data size") ||
			    dc_cpu_data(c, at, i, off, size, 0))
				return -1;
		}
		return 0;
	}
}

/* One v7 section's contents, when not compressed. */
static int
dc_section(struct dc *c, const struct dc_sec *s)
{
	uint64_t csize;
	int rc;

	c->end = s->off + DC_SEC_HEAD + s->size;
	if (dc_seek(c, s->off + DC_SEC_HEAD))
		return -1;
	if ((s->flags & 1) && s->id != DC_BUFFER && s->id != DC_BUFFER_TEXT) {
		/* compressed: a u32 compressed and a u32 whole size (trace data
		 * is compressed in chunks instead: dc_chunks) */
		if (dc_num(c, 4, &csize, "a compressed section's size"))
			return -1;
		return csize > s->size - 8 ? dc_bad(c, s->off, "section %u: %llu compressed "
		    "bytes run past the end of the section", s->id,
		    (unsigned long long)csize) : 0;
	}
	switch (s->id) {
	case DC_DONE: rc = dc_options_v7(c); break;
	case DC_HEADER_INFO: rc = dc_headers(c); break;
	case DC_FTRACE_EVENTS: rc = dc_ftrace_events(c); break;
	case DC_EVENT_FORMATS: rc = dc_event_formats(c); break;
	case DC_KALLSYMS: rc = dc_sized(c, 4, "kallsyms"); break;
	case DC_PRINTK: rc = dc_sized(c, 4, "the printk formats"); break;
	case DC_CMDLINES: rc = dc_sized(c, 8, "the saved command lines"); break;
	default: rc = 0; break;	/* trace data, strings: libtracecmd reads them by size */
	}
	c->end = c->size;
	return rc;
}

static int
dc_v7(struct dc *c)
{
	char s[64];
	uint64_t opt0, at0, at, v;
	struct dc_sec sec;
	size_t i;

	if (dc_str(c, s, sizeof s, "the compression name") ||
	    dc_str(c, s, sizeof s, "the compression version"))
		return -1;
	at0 = c->off;
	if (dc_num(c, 8, &opt0, "the first options section's offset"))
		return -1;
	/* The sections follow one another to the end of the file
	 * (libtracecmd's read_metadata_strings() walks them so). */
	while (c->off < c->size) {
		at = c->off;
		if (dc_num(c, 2, &v, "a section's id"))
			return -1;
		sec.id = (unsigned)v;
		if (dc_num(c, 2, &v, "a section's flags"))
			return -1;
		sec.flags = (unsigned)v;
		if (dc_num(c, 4, &v, "a section's name") ||
		    dc_num(c, 8, &sec.size, "a section's size"))
			return -1;
		if (sec.size > c->size - c->off || ((sec.flags & 1) && sec.size < 8))
			return dc_bad(c, at, "section %u: %llu bytes from byte %llu run past the "
			    "end of the file", sec.id, (unsigned long long)sec.size,
			    (unsigned long long)c->off);
		sec.off = at;
		VS_GROW(c->sec, c->capsec, c->nsec);
		c->sec[c->nsec++] = sec;
		if (dc_seek(c, c->off + sec.size))
			return -1;
	}
	if (dc_points_to(c, at0, opt0, DC_DONE, "the first options"))
		return -1;
	for (i = 0; i < c->nsec; i++)
		if (dc_section(c, &c->sec[i]))
			return -1;
	return 0;
}

int
ti_dat_check(FILE *f, const char *path, struct ti_dat_info *info, struct vs_err *err)
{
	struct dc c;
	struct stat st;
	char ver[16];
	unsigned char b[2];
	uint64_t psz, at;
	int rc;

	memset(&c, 0, sizeof c);
	c.f = f;
	c.path = path;
	c.err = err;
	if (fstat(fileno(f), &st) != 0)
		return vs_errf(err, NULL, 0, 0, "%s: cannot read: %s", path, strerror(errno));
	if (!S_ISREG(st.st_mode))
		return vs_errf(err, NULL, 0, 0, "%s: not a regular file (a trace.dat is read "
		    "by offset)", path);
	c.size = c.end = c.info.data_off = (uint64_t)st.st_size;
	if (dc_seek(&c, 0) || dc_tag(&c, "\x17\x08\x44", 3) || dc_tag(&c, "tracing", 7))
		return -1;
	at = c.off;
	if (dc_str(&c, ver, sizeof ver, "the version"))
		return -1;
	if (strcmp(ver, "6") != 0 && strcmp(ver, "7") != 0)
		return dc_bad(&c, at, "version '%s' (libtracecmd reads 6 and 7)", ver);
	c.version = ver[0] - '0';
	at = c.off;
	if (dc_read(&c, b, 2, "the byte order and long size"))
		return -1;
	if (b[0] > 1)
		return dc_bad(&c, at, "byte order %u (0: little endian, 1: big)", b[0]);
	if (b[1] != 4 && b[1] != 8)
		return dc_bad(&c, at + 1, "long size %u (4 or 8)", b[1]);
	c.be = b[0];
	c.commit_size = b[1];
	at = c.off;
	if (dc_num(&c, 4, &psz, "the page size"))
		return -1;
	if (psz < 1024 || psz > (1u << 20) || (psz & (psz - 1)) != 0)
		return dc_bad(&c, at, "page size %llu (a power of two from 1 KiB to 1 MiB)",
		    (unsigned long long)psz);
	c.psz = psz;
	rc = c.version == 6 ? dc_v6(&c) : dc_v7(&c);
	free(c.sec);
	*info = c.info;
	return rc;
}
