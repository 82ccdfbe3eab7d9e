/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * vcase.c - a validation case file (validate.h): its rows, their
 * overrides and roles, and the prediction and judgement of one row.
 */
#include "validate.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "config.h"

#include "datadir.h"
#include "metrics.h"
#include "run.h"
#include "scenario.h"
#include "yconf.h"

static const char *const case_keys = "name, title, scenario, measured, metric, "
    "tolerance, reps, seed, setups, variants, rows";

/* Where the cases live: the lookup order of datadir.h. */
const char *
vcase_dir(void)
{
	static char *dir;

	if (dir == NULL && (dir = vs_data_find("validation/cases")) == NULL)
		dir = xstrdup("validation/cases");
	return dir;
}

/* NAME -> DIR/NAME.yaml; a path is taken as it is. */
char *
vcase_path(const char *dir, const char *name)
{
	if (strchr(name, '/') != NULL || strstr(name, ".yaml") != NULL)
		return xstrdup(name);
	return xasprintf("%s/%s.yaml", dir, name);
}

const char *
vrole_name(enum vrole r)
{
	return r == ROLE_CALIBRATION ? "calibration" : "prediction";
}

static int
path_of(const struct yc_node *map, const char *key, char **out, struct vs_err *err)
{
	const struct yc_node *n = yc_find(map, key);

	if (n == NULL)
		return yc_err(map, err, "missing key '%s'", key);
	if (n->kind != YC_SCALAR)
		return yc_err(n, err, "'%s' must be a file name in quotes", key);
	*out = yc_node_path(n);
	return 0;
}

/* Append a list of "PATH=VALUE" strings from n to (*sets, *n). */
static int
add_sets(const struct yc_node *n, char ***sets, int *nsets, struct vs_err *err)
{
	size_t i;

	if (yc_expect(n, YC_SEQ, "a list of \"PATH=VALUE\" overrides", err))
		return -1;
	for (i = 0; i < n->n; i++) {
		const struct yc_node *s = n->vals[i];

		if (s->kind != YC_SCALAR || strchr(s->text, '=') == NULL)
			return yc_err(s, err, "an override is \"PATH=VALUE\"");
		*sets = xrealloc(*sets, (size_t)(*nsets + 1) * sizeof **sets);
		(*sets)[(*nsets)++] = xstrdup(s->text);
	}
	return 0;
}

static int
parse_row(struct vcase *c, struct vrow *r, const struct yc_node *n,
    const struct yc_node *setups, const struct yc_node *variants, struct vs_err *err)
{
	static const char *const roles[] = { "calibration", "prediction", NULL };
	const struct yc_node *s;
	const char *id, *slash;
	int role;

	if (yc_expect(n, YC_MAP, "a row: {row: SETUP/VARIANT, role: ...}", err) ||
	    yc_get_str(n, "row", NULL, &id, err))
		return -1;
	r->id = xstrdup(id);
	if ((slash = strchr(id, '/')) == NULL)
		return yc_err(yc_find(n, "row"), err, "a row is named SETUP/VARIANT, got '%s'", id);
	r->setup = xstrndup(id, (size_t)(slash - id));
	r->variant = xstrdup(slash + 1);
	if (yc_get_enum(n, "role", roles, -1, &role, err))
		return -1;
	r->role = (enum vrole)role;
	if (yc_get_num(n, "weight", 1, 0, 1e6, &r->weight, err))
		return -1;
	if (yc_find(n, "metric") != NULL) {
		const char *m;

		if (yc_get_str(n, "metric", NULL, &m, err))
			return -1;
		r->metric = xstrdup(m);
	}
	if (measured_find(&c->measured, r->setup, r->variant) == NULL)
		return yc_err(n, err, "row %s is not in %s", id, c->measured.path);
	if (setups != NULL && (s = yc_find(setups, r->setup)) != NULL &&
	    add_sets(s, &r->sets, &r->nsets, err))
		return -1;
	if (variants != NULL && (s = yc_find(variants, r->variant)) != NULL &&
	    add_sets(s, &r->sets, &r->nsets, err))
		return -1;
	if ((s = yc_find(n, "set")) != NULL && add_sets(s, &r->sets, &r->nsets, err))
		return -1;
	return yc_check_unused(n, "row, role, weight, set, metric", err);
}

static int
parse_case(struct vcase *c, const struct yc_node *root, struct vs_err *err)
{
	const struct yc_node *tol, *setups, *variants, *rows;
	const char *s;
	int64_t v;
	size_t i;

	if (yc_expect(root, YC_MAP, "a validation case (a mapping)", err) ||
	    yc_get_str(root, "name", NULL, &s, err))
		return -1;
	c->name = xstrdup(s);
	if (yc_get_str(root, "title", c->name, &s, err))
		return -1;
	c->title = xstrdup(s);
	if (path_of(root, "scenario", &c->scenario, err))
		return -1;
	{
		char *mp;

		if (path_of(root, "measured", &mp, err))
			return -1;
		if (measured_load(&c->measured, mp, err)) {
			free(mp);
			return -1;
		}
		free(mp);
	}
	if (yc_get_str(root, "metric", NULL, &s, err))
		return -1;
	c->metric = xstrdup(s);
	c->tol_rel = 0.1;
	if ((tol = yc_find(root, "tolerance")) != NULL) {
		if (yc_expect(tol, YC_MAP, "{rel: 0.1, or_sd: false} or {abs: 2}", err) ||
		    yc_get_num(tol, "rel", 0.1, 0, 100, &c->tol_rel, err) ||
		    yc_get_bool(tol, "or_sd", 0, &c->tol_or_sd, err) ||
		    yc_get_num(tol, "abs", 0, 0, 1e300, &c->tol_abs, err) ||
		    yc_check_unused(tol, "rel, or_sd, abs", err))
			return -1;
		if (c->tol_abs > 0 && yc_find(tol, "rel") != NULL)
			return yc_err(tol, err, "a tolerance is either 'rel' or 'abs', not both");
	}
	if (yc_get_int(root, "reps", 3, 1, 10000, &v, err))
		return -1;
	c->reps = (int)v;
	if (yc_get_int(root, "seed", 1, 0, INT64_MAX, &v, err))
		return -1;
	c->seed = (uint64_t)v;
	setups = yc_find(root, "setups");
	variants = yc_find(root, "variants");
	if ((setups && yc_expect(setups, YC_MAP, "a mapping SETUP -> overrides", err)) ||
	    (variants && yc_expect(variants, YC_MAP, "a mapping VARIANT -> overrides", err)))
		return -1;
	if ((rows = yc_find(root, "rows")) == NULL)
		return yc_err(root, err, "case '%s' has no 'rows'", c->name);
	if (yc_expect(rows, YC_SEQ, "a list of rows", err))
		return -1;
	c->rows = xcalloc(rows->n, sizeof *c->rows);
	for (i = 0; i < rows->n; i++) {
		c->nrows++;
		if (parse_row(c, &c->rows[i], rows->vals[i], setups, variants, err))
			return -1;
	}
	/* Setups and variants are read per row; an unused one is not an error. */
	for (i = 0; setups && i < setups->n; i++)
		setups->used[i] = 1;
	for (i = 0; variants && i < variants->n; i++)
		variants->used[i] = 1;
	return yc_check_unused(root, case_keys, err);
}

int
vcase_load(struct vcase *c, const char *path, struct vs_err *err)
{
	struct yc_doc *doc;
	int rc;

	memset(c, 0, sizeof *c);
	c->path = xstrdup(path);
	if ((doc = yc_load(path, err)) == NULL)
		return -1;
	rc = parse_case(c, yc_root(doc), err);
	yc_free(doc);
	return rc;
}

void
vcase_free(struct vcase *c)
{
	int i, j;

	for (i = 0; i < c->nrows; i++) {
		struct vrow *r = &c->rows[i];

		for (j = 0; j < r->nsets; j++)
			free(r->sets[j]);
		free(r->sets);
		free(r->id);
		free(r->setup);
		free(r->variant);
		free(r->metric);
	}
	free(c->rows);
	measured_free(&c->measured);
	free(c->path);
	free(c->name);
	free(c->title);
	free(c->scenario);
	free(c->metric);
	memset(c, 0, sizeof *c);
}

const char *
vcase_metric(const struct vcase *c, const struct vrow *r)
{
	return r->metric != NULL ? r->metric : c->metric;
}

enum vrule
vcase_judge(const struct vcase *c, const struct mrow *m, double predicted)
{
	double d = fabs(predicted - m->mean);

	if (c->tol_abs > 0 && d <= c->tol_abs)
		return RULE_ABS;
	if (c->tol_abs <= 0 && d <= c->tol_rel * fabs(m->mean))
		return RULE_REL;
	if (c->tol_or_sd && d <= m->sd)
		return RULE_SD;
	return RULE_MISS;
}

int
vcase_within(const struct vcase *c, const struct mrow *m, double predicted)
{
	return vcase_judge(c, m, predicted) != RULE_MISS;
}

const char *
vrule_name(enum vrule r)
{
	static const char *const names[] = { "miss", "rel", "abs", "sd" };

	return names[r];
}

char *
vcase_tolerance(const struct vcase *c)
{
	if (c->tol_abs > 0)
		return xasprintf("abs %g%s", c->tol_abs, c->tol_or_sd ? " or sd" : "");
	return xasprintf("rel %g%%%s", 100 * c->tol_rel, c->tol_or_sd ? " or sd" : "");
}

const struct mrow *
vcase_measured(const struct vcase *c, const struct vrow *r)
{
	return measured_find(&c->measured, r->setup, r->variant);
}

int
vcase_check(const struct vcase *c, struct vs_err *err)
{
	struct run_opts o = { .names_only = 1 };
	int i, rc = 0;

	for (i = 0; i < c->nrows && rc == 0; i++) {
		const struct vrow *r = &c->rows[i];
		struct scenario sc;
		struct metrics m;

		metrics_init(&m);
		if (scen_load(&sc, c->scenario, r->sets, r->nsets, err) ||
		    run_check_metrics(&sc, err) || run_once(&sc, c->seed, &o, &m, err)) {
			char *msg = xasprintf("case %s, row %s: %s", c->name, r->id, err->msg);

			snprintf(err->msg, sizeof err->msg, "%s", msg);
			free(msg);
			rc = -1;
		} else if (metrics_find(&m, vcase_metric(c, r)) < 0)
			rc = vs_errf(err, NULL, 0, 0, "%s: case %s, row %s: the scenario has no "
			    "metric '%s' (vlocksim list shows how metrics are named)", c->path,
			    c->name, r->id, vcase_metric(c, r));
		metrics_free(&m);
		scen_free(&sc);
	}
	return rc;
}

/* Load the case's scenario with the row's sets and extra ones; an error
 * names the case and row.  *sets is for the caller to free. */
static int
row_load(const struct vcase *c, const struct vrow *r, char *const *extra, int nextra,
    struct scenario *sc, char ***sets, struct vs_err *err)
{
	int i;

	*sets = xcalloc((size_t)(r->nsets + nextra + 1), sizeof **sets);
	for (i = 0; i < r->nsets; i++)
		(*sets)[i] = r->sets[i];
	for (i = 0; i < nextra; i++)
		(*sets)[r->nsets + i] = extra[i];
	if (scen_load(sc, c->scenario, *sets, r->nsets + nextra, err)) {
		char *m = xasprintf("case %s, row %s: %s", c->name, r->id, err->msg);

		snprintf(err->msg, sizeof err->msg, "%s", m);
		free(m);
		return -1;
	}
	return 0;
}

/* Honest by construction: nothing here can see the measured table. */
int
vcase_predict(const struct vcase *c, const struct vrow *r, char *const *extra, int nextra,
    int reps, struct vpred *out, struct vs_err *err)
{
	struct scenario sc;
	struct msum sum;
	struct run_opts o = { .wall_clock = 0, .check = 1 };
	char **sets;
	int k, rc = -1;

	msum_init(&sum);
	if (row_load(c, r, extra, nextra, &sc, &sets, err))
		goto out;
	if ((k = run_reps(&sc, c->seed, reps > 0 ? reps : c->reps, &o, &sum, err)) != 0) {
		rc = k;
		goto out;
	}
	if ((k = msum_find(&sum, vcase_metric(c, r))) < 0) {
		vs_errf(err, NULL, 0, 0, "%s: case %s: the scenario has no metric '%s'", c->path,
		    c->name, vcase_metric(c, r));
		goto out;
	}
	out->mean = rep_mean(&sum.reps[k]);
	out->ci95 = rep_ci95(&sum.reps[k]);
	out->n = (int)sum.reps[k].n;
	out->unit = xstrdup(sum.units[k]);
	/* `completed` < 1: a replication stopped at the duration cap, not at the end. */
	k = msum_find(&sum, "completed");
	out->capped = k >= 0 && rep_mean(&sum.reps[k]) < 1;
	rc = 0;
out:
	msum_free(&sum);
	scen_free(&sc);
	free(sets);
	return rc;
}

/*
 * Replication rep of a row alone (its seed as run_reps gives it), so the
 * replications of one row can run in different processes: *value is the
 * row's metric, *completed the run's `completed` (NAN: none).
 */
int
vcase_predict_rep(const struct vcase *c, const struct vrow *r, char *const *extra,
    int nextra, int rep, double *value, double *completed, char **unit,
    struct vs_err *err)
{
	return vcase_predict_rep_rows(c, &r, 1, extra, nextra, rep, value, completed, unit,
	    err);
}

int
vcase_predict_rep_rows(const struct vcase *c, const struct vrow *const *rows, int nrows,
    char *const *extra, int nextra, int rep, double *values, double *completed,
    char **units, struct vs_err *err)
{
	struct scenario sc;
	struct metrics m;
	struct run_opts o = { .wall_clock = 0, .check = 1 };
	char **sets;
	int i, k, rc = -1;

	metrics_init(&m);
	for (i = 0; i < nrows; i++)
		units[i] = NULL;
	if (row_load(c, rows[0], extra, nextra, &sc, &sets, err))
		goto out;
	if ((k = run_once(&sc, run_seed(c->seed, rep), &o, &m, err)) != 0) {
		rc = k;		/* RUN_STOPPED passes up */
		goto out;
	}
	for (i = 0; i < nrows; i++) {
		if ((k = metrics_find(&m, vcase_metric(c, rows[i]))) < 0) {
			vs_errf(err, NULL, 0, 0, "%s: case %s: the scenario has no metric '%s'",
			    c->path, c->name, vcase_metric(c, rows[i]));
			goto out;
		}
		values[i] = m.vals[k];
		units[i] = xstrdup(m.units[k]);
	}
	k = metrics_find(&m, "completed");
	*completed = k >= 0 ? m.vals[k] : NAN;
	rc = 0;
out:
	if (rc)
		for (i = 0; i < nrows; i++) {
			free(units[i]);
			units[i] = NULL;
		}
	metrics_free(&m);
	scen_free(&sc);
	free(sets);
	return rc;
}
