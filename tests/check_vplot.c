/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * check_vplot.c - the data behind validate's pictures, for every shipped case:
 * each row drawn once, in the panel of its unit, against its own rule (an
 * absolute tolerance in its unit, not as a relative band, on a linear axis),
 * inside the axis, and a value of 0 visible on a log axis.  The predictions are made up (no
 * simulation): ratios to the measured value from 0.5 to 7, and 0 for each
 * case's last prediction row.
 */
#include "testutil.h"

#include <glob.h>
#include <math.h>

#include "validate.h"

static const char *
srcdir(void)
{
	const char *s = getenv("top_srcdir");

	return s ? s : ".";
}

static int
near(double a, double b)
{
	return fabs(a - b) <= 1e-5 * fmax(fabs(a), fabs(b)) + 1e-9;
}

static FILE *
open_dat(const char *dir, const char *name)
{
	char *p = xasprintf("%s/%s", dir, name);
	FILE *f = fopen(p, "r");

	if (f == NULL)
		ck_abort_msg("%s not written", p);
	free(p);
	return f;
}

static int
exists(const char *dir, const char *name)
{
	char *p = xasprintf("%s/%s", dir, name);
	struct stat st;
	int ok = stat(p, &st) == 0 && st.st_size > 0;

	free(p);
	return ok;
}

/* The half-width of row r's band as the case plot draws it. */
static double
case_band(const struct vresult *r)
{
	double b = r->tol_abs > 0 ? r->tol_abs : r->tol_rel * fabs(r->measured);

	if (strstr(r->tolerance, "or sd") != NULL && r->measured_sd > b)
		b = r->measured_sd;
	return b;
}

static const struct vresult *
find(const struct vreport *v, const char *cname, const char *row)
{
	int i;

	for (i = 0; i < v->n; i++)
		if (strcmp(v->r[i].case_name, cname) == 0 && strcmp(v->r[i].row, row) == 0)
			return &v->r[i];
	ck_abort_msg("%s/%s: not a row of the report", cname, row);
	return NULL;
}

/* CASE.dat: every row once, in its unit's panel, with its band; each panel
 * says its axis, and a log axis with a value of 0 draws it below the rest.
 * Returns how many panels were log axes holding a 0. */
static int
check_case_dat(const struct vreport *v, const struct vcase *c, const char *dir)
{
	char *name = xasprintf("%s.dat", c->name), line[1024], unit[128] = "", row[256];
	FILE *f = open_dat(dir, name);
	int *seen = xcalloc((size_t)v->n, sizeof *seen), n = 0, logzero = 0;
	int panel_rows = 0, zero = 0;
	double minpos = INFINITY;

	while (fgets(line, sizeof line, f) != NULL) {
		int idx, role, within, capped, p;
		double meas, sd, pred, ci, band, z;
		const struct vresult *r;

		if (sscanf(line, "# panel %d: %127[^\n]", &p, unit) == 2) {
			panel_rows = zero = 0;
			minpos = INFINITY;
			continue;
		}
		if (strncmp(line, "# axis: ", 8) == 0) {
			ck_assert_msg(panel_rows > 0, "%s: panel %s has no row", name, unit);
			/* an absolute band is one height everywhere: a linear axis */
			ck_assert_msg(c->tol_abs <= 0 || strncmp(line + 8, "linear", 6) == 0,
			    "%s, %s: abs %g drawn on a log axis", name, unit, c->tol_abs);
			if (strncmp(line + 8, "log", 3) == 0 && zero) {
				ck_assert_msg(sscanf(line, "# axis: log; a value of 0 drawn at %lf",
				    &z) == 1, "%s, %s: a log axis with a 0 draws it nowhere", name,
				    unit);
				ck_assert_msg(z > 0 && z < minpos, "%s, %s: 0 drawn at %g, not below "
				    "the smallest value %g", name, unit, z, minpos);
				logzero++;
			}
			panel_rows = -1;
			continue;
		}
		if (line[0] == '#' || line[0] == '\n')
			continue;
		ck_assert_msg(sscanf(line, "%d \"%255[^\"]\" %d %lf %lf %lf %lf %lf %d %d", &idx,
		    row, &role, &meas, &sd, &pred, &ci, &band, &within, &capped) == 10,
		    "%s: bad line %s", name, line);
		ck_assert_msg(panel_rows >= 0, "%s: row %s after its panel's axis line", name, row);
		r = find(v, c->name, row);
		ck_assert_msg(!seen[r - v->r]++, "%s: row %s twice", name, row);
		ck_assert_msg(strcmp(r->unit, unit) == 0, "%s: row %s (%s) in panel %s", name, row,
		    r->unit, unit);
		ck_assert_msg(near(pred, r->predicted) && near(meas, r->measured),
		    "%s: row %s values", name, row);
		ck_assert_msg(near(band, case_band(r)), "%s: row %s band %g, its rule says %g", name,
		    row, band, case_band(r));
		ck_assert_int_eq(within, r->within);
		panel_rows++;
		n++;
		zero |= meas <= 0 || pred <= 0;
		if (meas > 0)
			minpos = fmin(minpos, meas);
		if (pred > 0)
			minpos = fmin(minpos, pred);
	}
	fclose(f);
	ck_assert_msg(n == c->nrows, "%s: %d rows drawn of %d", name, n, c->nrows);
	ck_assert_msg(panel_rows == -1, "%s: the last panel says no axis", name);
	free(seen);
	free(name);
	return logzero;
}

/* summary.dat: every prediction row once, in the relative panel when its
 * tolerance is relative, else in the absolute panel of its unit (error and
 * band in that unit), inside the panel's axis (an error above it marked). */
static void
check_summary_dat(const struct vreport *v, const char *dir)
{
	char line[1024], kind[160] = "", label[64], cr[384];
	FILE *f = open_dat(dir, "summary.dat");
	int *seen = xcalloc((size_t)v->n, sizeof *seen), i, npred = 0, n = 0, nrows = 0;
	int xs[1024];
	double es[1024], bs[1024], lo, hi;
	int clipped_of[1024];

	while (fgets(line, sizeof line, f) != NULL) {
		int x, ci, within, capped, clipped, pz, p;
		double e, b;
		const struct vresult *r;
		char *slash;

		if (sscanf(line, "# panel %d: %159[^\n]", &p, kind) == 2) {
			nrows = 0;
			continue;
		}
		if (sscanf(line, "# axis: %lf %lf", &lo, &hi) == 2) {
			ck_assert_msg(nrows > 0, "summary panel %s: no row", kind);
			for (i = 0; i < nrows; i++) {
				ck_assert_msg(es[i] >= lo && es[i] <= hi, "summary panel %s, x %d: %g "
				    "outside the axis [%g, %g]", kind, xs[i], es[i], lo, hi);
				ck_assert_msg(bs[i] <= hi || clipped_of[i], "summary panel %s, x %d: "
				    "band %g above the axis top %g", kind, xs[i], bs[i], hi);
			}
			continue;
		}
		if (line[0] == '#' || line[0] == '\n')
			continue;
		ck_assert_msg(sscanf(line, "%d %d %lf %lf %d %d %d \"%63[^\"]\" %d \"%383[^\"]\"",
		    &x, &ci, &e, &b, &within, &capped, &clipped, label, &pz, cr) == 10,
		    "summary.dat: bad line %s", line);
		slash = strchr(cr, '/');
		ck_assert_ptr_nonnull(slash);
		*slash = '\0';
		r = find(v, cr, slash + 1);
		ck_assert_msg(r->role == ROLE_PREDICTION, "summary: %s/%s is no prediction", cr,
		    slash + 1);
		ck_assert_msg(!seen[r - v->r]++, "summary: %s/%s twice", cr, slash + 1);
		ck_assert_int_eq(pz, r->predicted == 0);
		if (r->tol_abs > 0) {
			char *want = xasprintf("absolute, %s", r->unit);

			ck_assert_msg(strcmp(kind, want) == 0, "summary: %s/%s (abs %g %s) in "
			    "panel '%s'", cr, slash + 1, r->tol_abs, r->unit, kind);
			free(want);
			ck_assert_msg(near(e, r->predicted - r->measured), "summary: %s/%s error",
			    cr, slash + 1);
			ck_assert_msg(near(b, fmax(r->tol_abs, strstr(r->tolerance, "or sd") ?
			    r->measured_sd : 0)), "summary: %s/%s band %g, not abs %g", cr,
			    slash + 1, b, r->tol_abs);
			ck_assert_int_eq(clipped, 0);
		} else {
			ck_assert_msg(strcmp(kind, "relative") == 0, "summary: %s/%s (rel) in "
			    "panel '%s'", cr, slash + 1, kind);
			ck_assert_msg(clipped || near(e, 100 * r->rel_error), "summary: %s/%s error",
			    cr, slash + 1);
			ck_assert_msg(clipped == (100 * r->rel_error > e + 1e-9), "summary: %s/%s: "
			    "error %g drawn at %g unmarked", cr, slash + 1, 100 * r->rel_error, e);
		}
		ck_assert_int_lt(nrows, 1024);
		xs[nrows] = x, es[nrows] = e, bs[nrows] = b, clipped_of[nrows] = clipped;
		nrows++;
		n++;
	}
	fclose(f);
	for (i = 0; i < v->n; i++)
		npred += v->r[i].role == ROLE_PREDICTION;
	ck_assert_msg(n == npred, "summary: %d rows drawn of %d prediction rows", n, npred);
	free(seen);
}

/* scatter.dat: every row, a 0 drawn below the smallest value (log axes), and
 * both axes one range holding every point (y = x their diagonal). */
static void
check_scatter_dat(const struct vreport *v, const char *dir)
{
	char line[1024], cr[384];
	FILE *f = open_dat(dir, "scatter.dat");
	int n = 0, zero = 0, drawn = 0, axes = 0, role;
	double m, p, z = 0, minpos = INFINITY, maxv = 0, lo = 0, hi = 0;

	while (fgets(line, sizeof line, f) != NULL) {
		if (sscanf(line, "# a value of 0 drawn at %lf", &z) == 1) {
			drawn = 1;
			continue;
		}
		if (sscanf(line, "# axes: %lf %lf", &lo, &hi) == 2) {
			axes = 1;
			continue;
		}
		if (line[0] == '#')
			continue;
		ck_assert_int_eq(sscanf(line, "%lf %lf %d \"%383[^\"]\"", &m, &p, &role, cr), 4);
		zero |= m <= 0 || p <= 0;
		if (m > 0)
			minpos = fmin(minpos, m);
		if (p > 0)
			minpos = fmin(minpos, p);
		maxv = fmax(maxv, fmax(m, p));
		n++;
	}
	fclose(f);
	ck_assert_int_eq(n, v->n);
	ck_assert_msg(!zero || drawn, "scatter: a 0 on log axes is drawn nowhere");
	if (zero)
		ck_assert_msg(z > 0 && z < minpos, "scatter: 0 drawn at %g, smallest value %g", z,
		    minpos);
	ck_assert_msg(axes, "scatter: no axes line");
	ck_assert_msg(lo > 0 && lo < (zero ? z : minpos) && hi > maxv, "scatter: axes %g..%g "
	    "do not hold %g..%g", lo, hi, zero ? z : minpos, maxv);
}

START_TEST(every_case_drawn_against_its_rule)
{
	char *pat = xasprintf("%s/validation/cases/*.yaml", srcdir());
	char dir[] = "/tmp/vlocksim-vplot-XXXXXX", *cmd;
	static const double ratio[] = { 1.05, 1.3, 0.5, 7.0, 0.97 };
	struct vcase **cases;
	struct vreport v = { 0 };
	struct vs_err err;
	glob_t g;
	size_t k;
	int j, rc, logzero = 0, abs_rows = 0;

	ck_assert_int_eq(glob(pat, 0, NULL, &g), 0);
	ck_assert_uint_ge(g.gl_pathc, 10);
	cases = xcalloc(g.gl_pathc, sizeof *cases);
	for (k = 0; k < g.gl_pathc; k++) {
		struct vcase *c = cases[k] = xcalloc(1, sizeof *c);
		int last = -1, np = 0;

		if (vcase_load(c, g.gl_pathv[k], &err))
			ck_abort_msg("%s", err.msg);
		for (j = 0; j < c->nrows; j++)
			if (c->rows[j].role == ROLE_PREDICTION)
				last = j;
		for (j = 0; j < c->nrows; j++) {
			const struct mrow *m = vcase_measured(c, &c->rows[j]);
			struct vpred p = { .n = 3, .unit = xstrdup(m->unit) };

			p.mean = j == last ? 0 : m->mean * (c->rows[j].role == ROLE_PREDICTION ?
			    ratio[np++ % 5] : 1.02);
			p.ci95 = 0.01 * p.mean;
			vreport_add(&v, c, &c->rows[j], &p);
			abs_rows += c->rows[j].role == ROLE_PREDICTION && c->tol_abs > 0;
		}
	}
	ck_assert_msg(abs_rows > 0, "no case has an absolute tolerance: the test lost its point");
	ck_assert_ptr_nonnull(mkdtemp(dir));
	rc = vreport_plot(&v, cases, (int)g.gl_pathc, dir, &err);
	ck_assert_msg(rc >= 0, "%s", err.msg);
	for (k = 0; k < g.gl_pathc; k++) {
		char *png = xasprintf("%s.png", cases[k]->name);

		logzero += check_case_dat(&v, cases[k], dir);
		if (rc == 0)	/* 1: no gnuplot, the data files alone */
			ck_assert_msg(exists(dir, png), "%s not drawn", png);
		free(png);
	}
	ck_assert_msg(logzero > 0, "no log axis held a 0: the test lost its point");
	check_summary_dat(&v, dir);
	check_scatter_dat(&v, dir);
	if (rc == 0)
		ck_assert(exists(dir, "summary.png") && exists(dir, "scatter.png"));
	cmd = xasprintf("rm -rf '%s'", dir);
	ck_assert_int_eq(system(cmd), 0);
	free(cmd);
	vreport_free(&v);
	for (k = 0; k < g.gl_pathc; k++) {
		vcase_free(cases[k]);
		free(cases[k]);
	}
	free(cases);
	globfree(&g);
	free(pat);
}
END_TEST

int
main(void)
{
	Suite *s = suite_create("vplot");
	TCase *tc = tcase_create("data");

	tcase_set_timeout(tc, 0);
	tcase_add_test(tc, every_case_drawn_against_its_rule);
	suite_add_tcase(s, tc);
	return tu_main(s);
}
