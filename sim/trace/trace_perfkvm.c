/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * trace_perfkvm.c - `perf kvm stat report` text (FORMATS.md §1.5; perf's
 * tools/perf/builtin-kvm.c print_result):
 *
 *   Analyze events for all VMs, all VCPUs:
 *
 *        VM-EXIT    Samples  Samples%     Time%    Min Time    Max Time    Avg time
 *      MSR_WRITE        520    60.05%     0.07%      0.74us     16.92us      2.62us ( +-   2.66% )
 *            HLT        179    20.67%    99.82%     64.53us  17159.69us  10123.40us ( +-   4.68% )
 *
 *   Total Samples:866, Total events handled time:1815367.45us.
 *
 * One row per exit reason: count, min, max and mean of exit -> entry (so
 * HLT's includes the halt); the "( +- x% )" (perf's rel_stddev_stats) is
 * not kept.  A summary has no per-vCPU detail and no span: rates need
 * --seconds.
 */
#include "trace_acc.h"

#include <ctype.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>

/* "12.34us" / "1.2ms" / "3ns" / "1s" -> ns; NULL if not a time. */
static char *
ptime(char *s, double *ns)
{
	char *e;
	double v = strtod(s, &e);

	if (e == s)
		return NULL;
	if (strncmp(e, "us", 2) == 0)
		*ns = v * 1e3, e += 2;
	else if (strncmp(e, "ms", 2) == 0)
		*ns = v * 1e6, e += 2;
	else if (strncmp(e, "ns", 2) == 0)
		*ns = v, e += 2;
	else if (*e == 's')
		*ns = v * 1e9, e += 1;
	else
		return NULL;
	return e;
}

static int
perfkvm_read(struct ti_trace *t, FILE *f, const char *path, struct vs_err *err)
{
	char *line = NULL, *p, *e;
	size_t cap = 0;
	ssize_t len;
	long lineno = 0;
	int header = 0;

	while ((len = vs_getline(&line, &cap, f, VS_LINE_MAX)) != -1) {
		char reason[64];
		unsigned long long n;
		double sp, tp, mn, mx, avg;
		int k;

		lineno++;
		if (len == VS_LINE_TOO_LONG) {
			free(line);
			return vs_errf(err, t->path, (int)lineno, 1, "line longer than %zu bytes: not "
			    "a perf kvm stat report", VS_LINE_MAX);
		}
		while (len > 0 && (line[len - 1] == '\n' || line[len - 1] == '\r'))
			line[--len] = '\0';
		for (p = line; *p == ' ' || *p == '\t'; p++)
			;
		if (*p == '\0' || strncmp(p, "Analyze events", 14) == 0 ||
		    strncmp(p, "Total Samples", 13) == 0 ||
		    (isdigit((unsigned char)p[0]) && strchr(p, ':') != NULL && strchr(p, '%') == NULL))
			continue;	/* `live`'s wall-clock line, the totals */
		if (strstr(p, "Samples%") != NULL) {
			header = 1;
			continue;
		}
		if (!header) {
			ti_skip(t, lineno, (int)(p - line) + 1, "before the perf kvm stat "
			    "column titles (VM-EXIT Samples Samples% Time% ...)");
			continue;
		}
		k = -1;		/* %n is not reached when the input ends at the last % */
		if (sscanf(p, "%63s %llu %lf%% %lf%%%n", reason, &n, &sp, &tp, &k) != 4 || k < 0) {
			ti_skip(t, lineno, (int)(p - line) + 1, "not a perf kvm stat row "
			    "(REASON SAMPLES SAMPLES% TIME% MIN MAX AVG)");
			continue;
		}
		e = p + k;
		while (*e == ' ')
			e++;
		if ((e = ptime(e, &mn)) == NULL)
			goto bad;
		while (*e == ' ')
			e++;
		if ((e = ptime(e, &mx)) == NULL)
			goto bad;
		while (*e == ' ')
			e++;
		if ((e = ptime(e, &avg)) == NULL)
			goto bad;
		ti_exit_summary(t, reason, (uint64_t)n, avg, mn, mx);
		ti_count_events(t, "kvm_exit", (uint64_t)n);
		t->nevent_lines++;
		continue;
bad:
		ti_skip(t, lineno, (int)(p - line) + 1 + k, "a time (12.3us) expected");
	}
	free(line);
	if (ferror(f))
		return vs_errf(err, NULL, 0, 0, "%s: read error", path);
	if (t->nskipped > 0)
		return vs_errf(err, NULL, 0, 0, "%s", t->first_bad);
	if (t->nevent_lines == 0)
		return vs_errf(err, path, 1, 1, "no exit rows in the perf kvm stat report");
	return 0;
}

const struct ti_reader ti_reader_perfkvm = { .read = perfkvm_read };
