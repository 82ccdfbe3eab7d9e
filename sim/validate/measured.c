/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * measured.c - reading a measured CSV table (measured.h).
 */
#include "measured.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const columns = "setup,variant,metric,unit,mean,sd,n";

static void
chomp(char *s)
{
	size_t n = strlen(s);

	while (n > 0 && (s[n - 1] == '\n' || s[n - 1] == '\r' || s[n - 1] == ' '))
		s[--n] = '\0';
}

/* Split on commas in place; no quoting (the tables need none). */
static int
split(char *s, char **f, int max)
{
	int n = 0;

	f[n++] = s;
	for (; *s; s++)
		if (*s == ',') {
			*s = '\0';
			if (n == max)
				return -1;
			f[n++] = s + 1;
		}
	return n;
}

static int
number(const char *s, double *out)
{
	char *end;

	errno = 0;
	*out = strtod(s, &end);
	return *s != '\0' && *end == '\0' && errno == 0 && isfinite(*out) ? 0 : -1;
}

int
measured_load(struct measured *m, const char *path, struct vs_err *err)
{
	const char *why;
	FILE *f = vs_fopen_regular(path, &why);
	char line[4096], *fld[8];
	int ln = 0, header = 0, nf, rc = -1;
	size_t cap = 0;

	memset(m, 0, sizeof *m);
	m->path = xstrdup(path);
	if (f == NULL)
		return vs_errf(err, NULL, 0, 0, "%s: cannot open measured data: %s", path, why);
	while (fgets(line, sizeof line, f) != NULL) {
		ln++;
		chomp(line);
		if (line[0] == '#') {
			if (m->source == NULL) {
				const char *t = line + 1 + (line[1] == ' ');

				if (strncmp(t, "source: ", 8) == 0)
					t += 8;
				m->source = xstrdup(t);
			}
			continue;
		}
		if (line[0] == '\0')
			continue;
		if (!header) {
			if (strcmp(line, columns) != 0) {
				vs_errf(err, path, ln, 1, "the header must be '%s'", columns);
				goto out;
			}
			header = 1;
			continue;
		}
		nf = split(line, fld, 7);
		if (nf != 7) {
			vs_errf(err, path, ln, 1, "expected 7 fields (%s), got %d", columns,
			    nf < 0 ? 8 : nf);
			goto out;
		}
		VS_GROW(m->rows, cap, m->nrows);
		{
			struct mrow *r = &m->rows[m->nrows];
			double nn;

			if (number(fld[4], &r->mean) || number(fld[5], &r->sd) ||
			    number(fld[6], &nn) || r->sd < 0 || nn < 1) {
				vs_errf(err, path, ln, (int)(fld[4] - line) + 1,
				    "mean, sd and n must be numbers (sd >= 0, n >= 1)");
				goto out;
			}
			if (measured_find(m, fld[0], fld[1]) != NULL) {
				vs_errf(err, path, ln, 1, "row %s/%s appears twice", fld[0], fld[1]);
				goto out;
			}
			r->setup = xstrdup(fld[0]);
			r->variant = xstrdup(fld[1]);
			r->metric = xstrdup(fld[2]);
			r->unit = xstrdup(fld[3]);
			r->n = (int)nn;
			r->line = ln;
			m->nrows++;
		}
	}
	if (!header) {
		vs_errf(err, path, ln ? ln : 1, 1, "no header line '%s'", columns);
		goto out;
	}
	rc = 0;
out:
	fclose(f);
	return rc;
}

void
measured_free(struct measured *m)
{
	size_t i;

	for (i = 0; i < m->nrows; i++) {
		free(m->rows[i].setup);
		free(m->rows[i].variant);
		free(m->rows[i].metric);
		free(m->rows[i].unit);
	}
	free(m->rows);
	free(m->source);
	free(m->path);
	memset(m, 0, sizeof *m);
}

const struct mrow *
measured_find(const struct measured *m, const char *setup, const char *variant)
{
	size_t i;

	for (i = 0; i < m->nrows; i++)
		if (strcmp(m->rows[i].setup, setup) == 0 &&
		    strcmp(m->rows[i].variant, variant) == 0)
			return &m->rows[i];
	return NULL;
}
