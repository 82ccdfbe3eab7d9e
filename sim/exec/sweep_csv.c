/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * sweep_csv.c - a sweep's CSV text: the header, a finished point's file
 * (header and its row: points/NNNNN.csv) and results.csv, rebuilt from the
 * point files in grid order (layout: sweep.h).
 */
#include "sweep_impl.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "metrics.h"
#include "report.h"

/* One CSV field: quoted when it holds a comma, quote or line break. */
static void
csv_put(FILE *f, const char *s)
{
	if (strpbrk(s, ",\"\r\n") == NULL) {
		fputs(s, f);
		return;
	}
	fputc('"', f);
	for (; *s; s++) {
		if (*s == '"')
			fputc('"', f);
		fputc(*s, f);
	}
	fputc('"', f);
}

/* Split one CSV line into fields (quotes as csv_put writes them). */
int
sweep_csv_split(const char *line, char ***out)
{
	char **v = NULL, *buf = xmalloc(strlen(line) + 1);
	size_t cap = 0, n = 0, o;
	const char *p = line;

	for (;;) {
		o = 0;
		if (*p == '"') {
			for (p++; *p; p++) {
				if (*p == '"' && p[1] == '"')
					buf[o++] = *p++;
				else if (*p == '"')
					break;
				else
					buf[o++] = *p;
			}
			if (*p == '"')
				p++;
		}
		while (*p && *p != ',')
			buf[o++] = *p++;
		buf[o] = '\0';
		VS_GROW(v, cap, n);
		v[n++] = xstrdup(buf);
		if (*p != ',')
			break;
		p++;
	}
	free(buf);
	*out = v;
	return (int)n;
}

char *
sweep_header(const struct sweep *sw)
{
	static const char *const sfx[] = { "_mean", "_sd", "_ci95" };
	char *buf = NULL;
	size_t len = 0, i;
	FILE *f = open_memstream(&buf, &len);
	int a, k, first = 1;

	if (f == NULL)
		vs_fatal("open_memstream failed");
	for (a = 0; a < sw->naxes; a++, first = 0) {
		if (!first)
			fputc(',', f);
		csv_put(f, sw->axes[a].path);
	}
	for (i = 0; i < sw->ncols; i++)
		for (k = 0; k < 3; k++, first = 0)
			fprintf(f, "%s%s%s", first ? "" : ",", sw->cols[i], sfx[k]);
	fputc('\n', f);
	fclose(f);
	return buf;
}

char *
sweep_point_path(const char *dir, size_t i)
{
	return xasprintf("%s/points/%05zu.csv", dir, i);
}

/* The file text of finished point i: header, then its row. */
char *
sweep_point_text(const struct sweep *sw, size_t i, const struct msum *sum)
{
	char *buf = NULL, *h = sweep_header(sw);
	size_t len = 0, c;
	int *idx = xcalloc((size_t)sw->naxes + 1, sizeof *idx), a, k, first = 1;
	FILE *f = open_memstream(&buf, &len);

	if (f == NULL)
		vs_fatal("open_memstream failed");
	fputs(h, f);
	sweep_point_index(sw, i, idx);
	for (a = 0; a < sw->naxes; a++, first = 0) {
		if (!first)
			fputc(',', f);
		csv_put(f, sw->axes[a].vals[idx[a]]);
	}
	for (c = 0; c < sw->ncols; c++) {
		int m = msum_find(sum, sw->cols[c]);
		double v[3];

		VS_ASSERT(m >= 0);	/* sweep_prepare saw every column in every point */
		v[0] = rep_mean(&sum->reps[m]);
		v[1] = rep_sd(&sum->reps[m]);
		v[2] = rep_ci95(&sum->reps[m]);
		for (k = 0; k < 3; k++, first = 0) {
			if (!first)
				fputc(',', f);
			report_num(f, v[k], 0);
		}
	}
	fputc('\n', f);
	fclose(f);
	free(idx);
	free(h);
	return buf;
}

/* The row of finished point i, NULL if it is not done; *bad: exists but is not ours. */
char *
sweep_point_row(const struct sweep *sw, const char *dir, size_t i, int *bad)
{
	char *path = sweep_point_path(dir, i), *text = vs_read_file(path, NULL), *h, *row = NULL;
	size_t hl;

	*bad = 0;
	free(path);
	if (text == NULL)
		return NULL;
	h = sweep_header(sw);
	hl = strlen(h);
	if (strncmp(text, h, hl) == 0 && text[hl] != '\0' &&
	    strchr(text + hl, '\n') == text + strlen(text) - 1)
		row = xstrdup(text + hl);
	else
		*bad = 1;
	free(h);
	free(text);
	return row;
}

int
sweep_results_write(const struct sweep *sw, const char *dir, struct vs_err *err)
{
	char *buf = NULL, *h = sweep_header(sw), *row, *path;
	size_t len = 0, i;
	FILE *f = open_memstream(&buf, &len);
	int bad, rc = 0;

	if (f == NULL)
		vs_fatal("open_memstream failed");
	fputs(h, f);
	for (i = 0; i < sw->npoints && rc == 0; i++) {
		if ((row = sweep_point_row(sw, dir, i, &bad)) == NULL) {
			path = sweep_point_path(dir, i);
			rc = vs_errf(err, NULL, 0, 0, "%s: %s", path, bad ?
			    "not a point of this sweep (other columns)" : "missing");
			free(path);
		}
		fputs(row ? row : "", f);
		free(row);
	}
	fclose(f);
	if (rc == 0) {
		path = xasprintf("%s/results.csv", dir);
		rc = vs_write_file_atomic(path, buf, len, err);
		free(path);
	}
	free(buf);
	free(h);
	return rc;
}
