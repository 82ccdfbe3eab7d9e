/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * trace_lockstat.c - /proc/lock_stat text (CONFIG_LOCK_STAT), as the kernel's
 * Documentation/locking/lockstat.rst shows it:
 *
 *   lock_stat version 0.4
 *   ----------------------------------------------------------------------
 *                 class name    con-bounces    contentions   waittime-min ...
 *   ----------------------------------------------------------------------
 *             &mm->mmap_sem-W:            46             84           0.26 ...
 *             ---------------
 *               &mm->mmap_sem              1          [<ffffffff811502a7>] fn+0x57/0x280
 *   .......................................................................
 *
 * A class line is "NAME:" then 12 numbers (version 0.4: con-bounces,
 * contentions, waittime min/max/total/avg, acq-bounces, acquisitions,
 * holdtime min/max/total/avg) or 10 (version 0.3, no averages); times are
 * microseconds with two decimals.  Contention-point lines (NAME COUNT
 * [<IP>] SYMBOL), separators and the header are skipped.  A read/write
 * lock's two lines (-W, -R) are two classes, as the file prints them.
 */
#include "trace_acc.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>

static int
is_rule(const char *s)
{
	while (*s == ' ' || *s == '\t')
		s++;
	if (*s != '-' && *s != '.')
		return 0;
	while (*s == '-' || *s == '.')
		s++;
	while (*s == ' ' || *s == '\t')
		s++;
	return *s == '\0';
}

static int
lockstat_read(struct ti_trace *t, FILE *f, const char *path, struct vs_err *err)
{
	char *line = NULL, *p, *end, *colon, *num;
	size_t cap = 0;
	ssize_t len;
	long lineno = 0;
	int version_seen = 0;

	while ((len = vs_getline(&line, &cap, f, VS_LINE_MAX)) != -1) {
		double v[12];
		int nv = 0, i;
		struct ti_lockrow r;

		lineno++;
		if (len == VS_LINE_TOO_LONG) {
			free(line);
			return vs_errf(err, t->path, (int)lineno, 1, "line longer than %zu bytes: not "
			    "a /proc/lock_stat file", VS_LINE_MAX);
		}
		while (len > 0 && (line[len - 1] == '\n' || line[len - 1] == '\r'))
			line[--len] = '\0';
		for (p = line; *p == ' ' || *p == '\t'; p++)
			;
		if (*p == '\0' || is_rule(p))
			continue;
		if (strncmp(p, "lock_stat version ", 18) == 0) {
			version_seen = 1;
			continue;
		}
		if (strncmp(p, "class name", 10) == 0)
			continue;
		/* The class name ends at the last ':' that numbers follow. */
		colon = NULL;
		for (end = p; (end = strchr(end, ':')) != NULL; end++) {
			char *q = end + 1;

			if (*q == ' ' || *q == '\t') {
				while (*q == ' ' || *q == '\t')
					q++;
				if (isdigit((unsigned char)*q))
					colon = end;
			}
		}
		if (colon == NULL) {
			/* A contention point: NAME COUNT [<IP>] SYMBOL. */
			if (strstr(p, "[<") != NULL)
				continue;
			ti_skip(t, lineno, (int)(p - line) + 1, "not a lock_stat class line "
			    "(NAME: con-bounces contentions waittime-min ...)");
			continue;
		}
		for (end = colon + 1; nv < 12; nv++) {
			while (*end == ' ' || *end == '\t')
				end++;
			if (*end == '\0')
				break;
			if (!isdigit((unsigned char)*end)) {
				nv = -1;
				break;
			}
			v[nv] = strtod(end, &num);
			end = num;
		}
		while (nv >= 0 && (*end == ' ' || *end == '\t'))
			end++;
		if (nv < 0 || *end != '\0' || (nv != 12 && nv != 10)) {
			ti_skip(t, lineno, (int)(end - line) + 1, nv == 12 || nv == 10 ?
			    "trailing text after a lock_stat class line" :
			    "a lock_stat class line has 12 numbers (version 0.4) or 10 (0.3)");
			continue;
		}
		for (i = 0; i < nv; i++)
			if (v[i] < 0) {
				ti_skip(t, lineno, (int)(colon - line) + 2, "negative count or time");
				nv = -1;
				break;
			}
		if (nv < 0)
			continue;
		i = nv == 12 ? 6 : 5;
		/* a count past 2^64 is not a count (and would overflow the cast) */
		if (!(v[0] < 1.8e19 && v[1] < 1.8e19 && v[i] < 1.8e19 && v[i + 1] < 1.8e19)) {
			ti_skip(t, lineno, 1, "a count out of range");
			continue;
		}
		memset(&r, 0, sizeof r);
		r.con_bounces = (uint64_t)v[0];
		r.contentions = (uint64_t)v[1];
		/* µs -> ns (kernel/locking/lockdep_proc.c seq_time prints us.frac). */
		r.wait_min = v[2] * 1e3;
		r.wait_max = v[3] * 1e3;
		r.wait_total = v[4] * 1e3;
		i = nv == 12 ? 6 : 5;
		r.acq_bounces = (uint64_t)v[i];
		r.acquisitions = (uint64_t)v[i + 1];
		r.hold_min = v[i + 2] * 1e3;
		r.hold_max = v[i + 3] * 1e3;
		r.hold_total = v[i + 4] * 1e3;
		*colon = '\0';
		ti_lock_row(t, p, &r);
		ti_count_event(t, "lock_class");
		t->nevent_lines++;
	}
	free(line);
	if (ferror(f))
		return vs_errf(err, NULL, 0, 0, "%s: read error", path);
	if (!version_seen)
		return vs_errf(err, path, 1, 1, "not /proc/lock_stat: no 'lock_stat version' line");
	if (t->nskipped > 0)
		return vs_errf(err, NULL, 0, 0, "%s", t->first_bad);
	if (t->nevent_lines == 0)
		return vs_errf(err, path, 1, 1, "no lock classes in lock_stat (was "
		    "/proc/sys/kernel/lock_stat 1 while the workload ran?)");
	return 0;
}

const struct ti_reader ti_reader_lockstat = { .read = lockstat_read };
