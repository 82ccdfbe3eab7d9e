/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * report.c - a run's summary rendered as a table, CSV or JSON (report.h).
 */
#include "report.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"

int
report_fmt_parse(const char *s, enum report_fmt *out)
{
	if (strcmp(s, "table") == 0)
		*out = FMT_TABLE;
	else if (strcmp(s, "csv") == 0)
		*out = FMT_CSV;
	else if (strcmp(s, "json") == 0)
		*out = FMT_JSON;
	else
		return -1;
	return 0;
}

char *
report_json_str(const char *s)
{
	size_t n = strlen(s), o = 0;
	char *r = xmalloc(n * 6 + 3);

	r[o++] = '"';
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;

		if (c == '"' || c == '\\') {
			r[o++] = '\\';
			r[o++] = (char)c;
		} else if (c < 0x20) {
			o += (size_t)sprintf(r + o, "\\u%04x", c);
		} else {
			r[o++] = (char)c;
		}
	}
	r[o++] = '"';
	r[o] = '\0';
	return r;
}

void
report_num(FILE *f, double v, int json)
{
	if (!isfinite(v))
		fputs(json ? "null" : "nan", f);
	else
		fprintf(f, "%.10g", v == 0 ? 0 : v);	/* no "-0" */
}

static int
shown(const struct report_info *ri, const char *name)
{
	int i;

	if (ri->only == NULL || strcmp(name, "events") == 0 ||
	    strcmp(name, "events_per_sec") == 0)
		return 1;
	for (i = 0; i < ri->nonly; i++)
		if (strcmp(ri->only[i], name) == 0)
			return 1;
	return 0;
}

char *
report_render(enum report_fmt fmt, const struct report_info *ri, const struct msum *s)
{
	char *buf = NULL, *str;
	size_t len = 0, i;
	FILE *f = open_memstream(&buf, &len);
	int first = 1;

	if (f == NULL)
		vs_fatal("open_memstream failed");
	switch (fmt) {
	case FMT_TABLE:
		fprintf(f, "scenario %s  seed %llu  reps %d\n", ri->scenario,
		    (unsigned long long)ri->seed, ri->reps);
		fprintf(f, "%-40s %16s %14s %14s  %s\n", "metric", "mean", "sd", "ci95", "unit");
		for (i = 0; i < s->n; i++) {
			if (!shown(ri, s->names[i]))
				continue;
			fprintf(f, "%-40s %16.10g %14.6g %14.6g  %s\n", s->names[i],
			    rep_mean(&s->reps[i]), rep_sd(&s->reps[i]), rep_ci95(&s->reps[i]),
			    s->units[i]);
		}
		break;
	case FMT_CSV:
		fputs("metric,unit,mean,sd,ci95,n\n", f);
		for (i = 0; i < s->n; i++) {
			if (!shown(ri, s->names[i]))
				continue;
			fprintf(f, "%s,%s,", s->names[i], s->units[i]);
			report_num(f, rep_mean(&s->reps[i]), 0);
			fputc(',', f);
			report_num(f, rep_sd(&s->reps[i]), 0);
			fputc(',', f);
			report_num(f, rep_ci95(&s->reps[i]), 0);
			fprintf(f, ",%zu\n", s->reps[i].n);
		}
		break;
	case FMT_JSON:
		str = report_json_str(ri->scenario);
		fprintf(f, "{\n  \"scenario\": %s,\n  \"seed\": %llu,\n  \"reps\": %d,\n"
		    "  \"metrics\": {", str, (unsigned long long)ri->seed, ri->reps);
		free(str);
		for (i = 0; i < s->n; i++) {
			if (!shown(ri, s->names[i]))
				continue;
			str = report_json_str(s->names[i]);
			fprintf(f, "%s\n    %s: {\"mean\": ", first ? "" : ",", str);
			free(str);
			first = 0;
			report_num(f, rep_mean(&s->reps[i]), 1);
			fputs(", \"sd\": ", f);
			report_num(f, rep_sd(&s->reps[i]), 1);
			fputs(", \"ci95\": ", f);
			report_num(f, rep_ci95(&s->reps[i]), 1);
			str = report_json_str(s->units[i]);
			fprintf(f, ", \"unit\": %s}", str);
			free(str);
		}
		fputs("\n  }\n}\n", f);
		break;
	}
	if (fclose(f) != 0)
		vs_fatal("report: cannot render");
	return buf;
}
