/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * trace_dat.c - trace-cmd's trace.dat read through libtracecmd (trace-cmd
 * 3.x, Debian libtracecmd-dev): each record is rendered by libtraceevent
 * (its plugins, as `trace-cmd report` does) into the text line form
 * "COMM-PID [CPU] SECS.NS: EVENT: BODY" and handed to the text parser, so
 * both ways in share one set of event handlers (trace_ftrace.c).
 * Built only when configure finds libtracecmd (HAVE_LIBTRACECMD).
 *
 * A damaged file must not take vlocksim down (issue 29: libtracecmd 3.1.6
 * crashed on truncated and bit-flipped files).  trace_datchk.c checks the
 * file's structure first; then libtracecmd runs in a child process (as a
 * browser isolates its decoders) that sends each rendered line through a
 * pipe, so a crash in the library is a refused file, with the byte offset
 * of the last record the child sent, and never a crash of vlocksim.  A
 * library that loops is stopped by two bounds: no more records than the
 * file's trace data can hold, and a CPU-time limit on the child.
 */
#include "config.h"

#include "trace_acc.h"

#ifdef HAVE_LIBTRACECMD
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <trace-cmd.h>

#include "trace_datchk.h"

/* A frame through the pipe: the record's byte offset (8 bytes), the line's
 * length (4, DAT_UNKNOWN for a record of an unknown event), the line. */
#define DAT_FRAME 12
#define DAT_UNKNOWN UINT32_MAX
#define DAT_OPEN_FAILED 3	/* the child's exit status: tracecmd_open refused it */
#define DAT_WRITE_FAILED 4	/* the child's exit status: the pipe broke */
/* A record takes at least 8 bytes of a page: its 4-byte header and a word
 * of data (kernel/trace/ring_buffer.c rb_event_length). */
#define DAT_MIN_RECORD 8
/* The child's CPU time: 60 s and 1 s a MiB of trace data (libtracecmd reads
 * tens of MiB a second), so only a loop reaches it. */
#define DAT_CPU_BASE 60
#define DAT_CPU_PER_BYTE (1.0 / (1 << 20))

struct dat_ctx {
	FILE *out;
	struct tep_handle *tep;
	struct trace_seq body;
};

static void
dat_send(FILE *out, uint64_t off, uint32_t len, const char *line)
{
	unsigned char h[DAT_FRAME];

	memcpy(h, &off, 8);
	memcpy(h + 8, &len, 4);
	fwrite(h, 1, sizeof h, out);
	if (len != DAT_UNKNOWN)
		fwrite(line, 1, len, out);
}

/* In the child: one record, rendered. */
static int
dat_record(struct tracecmd_input *h, struct tep_record *rec, int cpu, void *arg)
{
	struct dat_ctx *c = arg;
	struct tep_event *ev = tep_find_event_by_record(c->tep, rec);
	int pid;
	const char *comm;
	char *line;

	(void)h;
	if (ev == NULL) {
		dat_send(c->out, rec->offset, DAT_UNKNOWN, NULL);
		return 0;
	}
	pid = tep_data_pid(c->tep, rec);
	comm = tep_data_comm_from_pid(c->tep, pid);
	trace_seq_reset(&c->body);
	tep_print_event(c->tep, &c->body, rec, "%s", TEP_PRINT_INFO);
	trace_seq_terminate(&c->body);
	line = xasprintf("%s-%d [%03d] %llu.%09llu: %s: %s", comm ? comm : "<...>", pid, cpu,
	    rec->ts / 1000000000ULL, rec->ts % 1000000000ULL, ev->name, c->body.buffer);
	dat_send(c->out, rec->offset, (uint32_t)strlen(line), line);
	free(line);
	return ferror(c->out) ? -1 : 0;
}

/* The child: libtracecmd reads the file and writes frames to fd. */
static void __attribute__((noreturn))
dat_child(const char *path, int fd, rlim_t cpu_secs)
{
	static const int crash[] = { SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT, SIGPIPE };
	const struct rlimit nocore = { 0, 0 }, cpu = { cpu_secs, cpu_secs };
	struct tracecmd_input *h;
	struct dat_ctx c;
	size_t i;

	/* A crash here is a damaged file, reported by the parent: a plain signal
	 * (not a sanitizer's report, which would call it a bug), no core file. */
	for (i = 0; i < sizeof crash / sizeof crash[0]; i++)
		signal(crash[i], SIG_DFL);
	setrlimit(RLIMIT_CORE, &nocore);
	setrlimit(RLIMIT_CPU, &cpu);
	memset(&c, 0, sizeof c);
	if ((c.out = fdopen(fd, "wb")) == NULL)
		_exit(DAT_WRITE_FAILED);
	if ((h = tracecmd_open(path, 0)) == NULL)
		_exit(DAT_OPEN_FAILED);
	c.tep = tracecmd_get_tep(h);
	trace_seq_init(&c.body);
	tracecmd_iterate_events(h, NULL, 0, dat_record, &c);
	/* No tracecmd_close(), no exit(): the process ends here, and the
	 * parent's atexit handlers and stdio buffers are not the child's. */
	_exit(fflush(c.out) != 0 || ferror(c.out) ? DAT_WRITE_FAILED : 0);
}

static int
dat_read(struct ti_trace *t, FILE *f, const char *path, struct vs_err *err)
{
	unsigned char h[DAT_FRAME];
	struct ti_dat_info info = { 0, 0 };
	uint64_t off, last = 0, max;
	uint32_t len;
	rlim_t cpu_secs;
	char *line = NULL;
	size_t cap = 0;
	long n = 0;
	int fds[2], st, whole = 1, looped = 0;
	pid_t pid;
	FILE *in;

	if (ti_dat_check(f, path, &info, err))
		return -1;
	max = info.data_bytes / DAT_MIN_RECORD;
	cpu_secs = (rlim_t)(DAT_CPU_BASE + (double)info.data_bytes * DAT_CPU_PER_BYTE);
	if (pipe(fds) != 0)
		return vs_errf(err, NULL, 0, 0, "%s: cannot read: pipe: %s", path, strerror(errno));
	fflush(NULL);		/* nothing buffered is written twice */
	if ((pid = fork()) < 0) {
		close(fds[0]);
		close(fds[1]);
		return vs_errf(err, NULL, 0, 0, "%s: cannot read: fork: %s", path, strerror(errno));
	}
	if (pid == 0) {
		close(fds[0]);
		dat_child(path, fds[1], cpu_secs);
	}
	close(fds[1]);
	if ((in = fdopen(fds[0], "rb")) == NULL)
		vs_fatal("fdopen: %s", strerror(errno));
	while (fread(h, 1, sizeof h, in) == sizeof h) {
		memcpy(&off, h, 8);
		memcpy(&len, h + 8, 4);
		if ((uint64_t)n >= max) {
			looped = 1;
			kill(pid, SIGKILL);
			break;
		}
		n++;
		if (len == DAT_UNKNOWN) {
			ti_skip(t, n, 1, "a trace.dat record of an unknown event");
			last = off;
			continue;
		}
		if ((size_t)len + 1 > cap) {
			cap = (size_t)len + 1;
			line = xrealloc(line, cap);
		}
		if (fread(line, 1, len, in) != len) {
			whole = 0;
			break;
		}
		line[len] = '\0';
		ti_ftrace_line(t, line, n);
		last = off;
	}
	free(line);
	fclose(in);		/* a child still writing gets EPIPE */
	while (waitpid(pid, &st, 0) < 0)
		if (errno != EINTR)
			vs_fatal("waitpid: %s", strerror(errno));
	if (looped)
		return vs_errf(err, NULL, 0, 0, "%s: byte offset %llu: damaged trace.dat: "
		    "libtracecmd returned more records than its %llu bytes of trace data can "
		    "hold (%ld; it loops), the last at this offset", path, (unsigned long long)last,
		    (unsigned long long)info.data_bytes, n);
	if (WIFSIGNALED(st) && WTERMSIG(st) == SIGXCPU)
		return vs_errf(err, NULL, 0, 0, "%s: byte offset %llu: damaged trace.dat: "
		    "libtracecmd used up its %llu s of CPU time (it loops) after the record at "
		    "this offset (%ld records read)", path, (unsigned long long)last,
		    (unsigned long long)cpu_secs, n);
	if (WIFSIGNALED(st) && n == 0)
		return vs_errf(err, NULL, 0, 0, "%s: bytes 0-%llu: damaged trace.dat: libtracecmd "
		    "crashed (%s) before its first record: the damage is in the metadata "
		    "(these bytes; their sizes are right) or in a CPU's first page of events",
		    path, (unsigned long long)info.data_off, strsignal(WTERMSIG(st)));
	if (WIFSIGNALED(st))
		return vs_errf(err, NULL, 0, 0, "%s: byte offset %llu: damaged trace.dat: "
		    "libtracecmd crashed (%s) after the record at this offset (%ld records read)",
		    path, (unsigned long long)last, strsignal(WTERMSIG(st)), n);
	if (WEXITSTATUS(st) == DAT_OPEN_FAILED)
		return vs_errf(err, path, 1, 1, "libtracecmd cannot open this trace.dat: damaged "
		    "(its sizes are right), or compressed by an algorithm libtracecmd was built "
		    "without; if `trace-cmd report` reads it, convert it: trace-cmd report -t > "
		    "trace.txt");
	if (WEXITSTATUS(st) != 0 || !whole)
		return vs_errf(err, NULL, 0, 0, "%s: the libtracecmd reader process failed (exit "
		    "status %d) after %ld records", path, WEXITSTATUS(st), n);
	return ti_ftrace_done(t, err);
}

const struct ti_reader ti_reader_dat = { .read = dat_read };
#endif
