/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * trace_dat.c - trace-cmd's trace.dat read through libtracecmd (trace-cmd
 * 3.x, Debian libtracecmd-dev): each record is rendered by libtraceevent
 * (its plugins, as `trace-cmd report` does) into the text line form
 * "COMM-PID [CPU] SECS.NS: EVENT: BODY" and handed to the text parser, so
 * both ways in share one set of event handlers (trace_ftrace.c).
 * Built only when configure finds libtracecmd (HAVE_LIBTRACECMD).
 */
#include "config.h"

#include "trace_acc.h"

#ifdef HAVE_LIBTRACECMD
#include <stdlib.h>
#include <string.h>

#include <trace-cmd.h>

struct dat_ctx {
	struct ti_trace *t;
	struct tep_handle *tep;
	struct trace_seq body;
	long n;
};

static int
dat_record(struct tracecmd_input *h, struct tep_record *rec, int cpu, void *arg)
{
	struct dat_ctx *c = arg;
	struct tep_event *ev = tep_find_event_by_record(c->tep, rec);
	int pid;
	const char *comm;
	char *line;

	(void)h;
	c->n++;
	if (ev == NULL) {
		ti_skip(c->t, c->n, 1, "a trace.dat record of an unknown event");
		return 0;
	}
	pid = tep_data_pid(c->tep, rec);
	comm = tep_data_comm_from_pid(c->tep, pid);
	trace_seq_reset(&c->body);
	tep_print_event(c->tep, &c->body, rec, "%s", TEP_PRINT_INFO);
	trace_seq_terminate(&c->body);
	line = xasprintf("%s-%d [%03d] %llu.%09llu: %s: %s", comm ? comm : "<...>", pid, cpu,
	    rec->ts / 1000000000ULL, rec->ts % 1000000000ULL, ev->name, c->body.buffer);
	ti_ftrace_line(c->t, line, c->n);
	free(line);
	return 0;
}

static int
dat_read(struct ti_trace *t, FILE *f, const char *path, struct vs_err *err)
{
	struct tracecmd_input *h = tracecmd_open(path, 0);
	struct dat_ctx c;

	(void)f;
	if (h == NULL)
		return vs_errf(err, path, 1, 1, "libtracecmd cannot open this trace.dat (a "
		    "compression it was built without?); convert it: trace-cmd report -t > trace.txt");
	memset(&c, 0, sizeof c);
	c.t = t;
	c.tep = tracecmd_get_tep(h);
	trace_seq_init(&c.body);
	tracecmd_iterate_events(h, NULL, 0, dat_record, &c);
	trace_seq_destroy(&c.body);
	tracecmd_close(h);
	return ti_ftrace_done(t, err);
}

const struct ti_reader ti_reader_dat = { .read = dat_read };
#endif
