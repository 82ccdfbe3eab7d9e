/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * sweep.c - the grid of a sweep: --vary axes (lists, ranges), the points as
 * their product, each point's --set overrides and scenario, and the dry run of
 * every point before anything runs (sweep_prepare).  The other sweep_*.c
 * files: sweep_impl.h.
 */
#include "sweep_impl.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "metrics.h"
#include "run.h"
#include "scenario.h"

/* Metrics never in results.csv: wall-clock, so not reproducible. */
static const char *const sweep_nondet[] = { "events_per_sec", NULL };

/* Engine bookkeeping, not model results: never the default plot. */
static const char *const sweep_engine[] = { "sim_seconds", "completed", "events",
	"events_per_sec", NULL };

static int
in_list(const char *const *l, const char *s)
{
	for (; *l != NULL; l++)
		if (strcmp(*l, s) == 0)
			return 1;
	return 0;
}

void
sweep_init(struct sweep *sw, const char *scenario)
{
	memset(sw, 0, sizeof *sw);
	sw->scenario = xstrdup(scenario);
	sw->reps = -1;
	sw->seed = -1;
}

void
sweep_strv_free(char **v, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		free(v[i]);
	free(v);
}

void
sweep_free(struct sweep *sw)
{
	int i;

	for (i = 0; i < sw->naxes; i++) {
		free(sw->axes[i].path);
		sweep_strv_free(sw->axes[i].vals, (size_t)sw->axes[i].nvals);
		free(sw->axes[i].unit);
		free(sw->axes[i].num);
	}
	free(sw->axes);
	sweep_strv_free(sw->sets, (size_t)sw->nsets);
	sweep_strv_free(sw->cols, sw->ncols);
	sweep_strv_free(sw->units, sw->ncols);
	sweep_strv_free(sw->filter, (size_t)sw->nfilter);
	free(sw->name);
	free(sw->scenario);
	memset(sw, 0, sizeof *sw);
}

void
sweep_add_set(struct sweep *sw, const char *arg)
{
	sw->sets = xrealloc(sw->sets, (size_t)(sw->nsets + 1) * sizeof *sw->sets);
	sw->sets[sw->nsets++] = xstrdup(arg);
}

/* A leading finite number and the text after it (its unit). */
static int
num_unit(const char *s, double *v, const char **unit)
{
	char *end;

	errno = 0;
	*v = strtod(s, &end);
	if (end == s || errno == ERANGE || !isfinite(*v))
		return -1;
	*unit = end;
	return 0;
}

static void
axis_push(struct sweep_axis *ax, char *val)
{
	ax->vals = xrealloc(ax->vals, (size_t)(ax->nvals + 1) * sizeof *ax->vals);
	ax->vals[ax->nvals++] = val;
}

/* START:STOP:STEP, inclusive of STOP within rounding, all in the same unit. */
static int
parse_range(struct sweep_axis *ax, const char *arg, const char *r, struct vs_err *err)
{
	char *part[3], *copy = xstrdup(r), *p = copy;
	const char *u[3];
	double v[3], span, nf;
	long n, k;
	int i, rc = -1;

	for (i = 0; i < 3; i++) {
		part[i] = p;
		p = strchr(p, ':');
		if ((p == NULL) != (i == 2))
			goto syntax;
		if (p != NULL)
			*p++ = '\0';
		if (num_unit(part[i], &v[i], &u[i]))
			goto syntax;
	}
	if (strcmp(u[0], u[1]) != 0 || strcmp(u[0], u[2]) != 0) {
		vs_errf(err, NULL, 0, 0, "--vary '%s': START, STOP and STEP must carry the "
		    "same unit", arg);
		goto out;
	}
	span = (v[1] - v[0]) / v[2];
	if (v[2] == 0 || span < -1e-9) {
		vs_errf(err, NULL, 0, 0, "--vary '%s': STEP must be nonzero and lead from "
		    "START to STOP", arg);
		goto out;
	}
	/* Inclusive within rounding: 0.1:0.3:0.1 has 3 values, not 2. */
	nf = floor(span + 1e-9);
	if (nf >= SWEEP_MAX_POINTS) {
		vs_errf(err, NULL, 0, 0, "--vary '%s': more than %d values", arg,
		    SWEEP_MAX_POINTS);
		goto out;
	}
	n = (long)nf + 1;
	for (k = 0; k < n; k++) {
		double x = v[0] + (double)k * v[2];

		if (fabs(x) < 1e-12 * fabs(v[2]))
			x = 0;		/* no "-0" or 5.55e-17 for zero */
		axis_push(ax, xasprintf("%.10g%s", x, u[0]));
	}
	rc = 0;
	goto out;
syntax:
	vs_errf(err, NULL, 0, 0, "--vary '%s': expected PATH=START:STOP:STEP (numbers, "
	    "optionally with one unit, e.g. 1ms:3ms:1ms)", arg);
out:
	free(copy);
	return rc;
}

/* [a, b) without the white space around it, or NULL when that is empty. */
static char *
trimmed(const char *a, const char *b)
{
	while (a < b && isspace((unsigned char)*a))
		a++;
	while (b > a && isspace((unsigned char)b[-1]))
		b--;
	return b > a ? xstrndup(a, (size_t)(b - a)) : NULL;
}

/*
 * V1,V2,...: split at the commas outside a YAML flow collection or quotes,
 * so that {dist: exponential, mean: 5ns},{dist: gamma, ...} is two values
 * (as --set takes each); the white space around a value is not part of it.
 */
static int
parse_list(struct sweep_axis *ax, const char *arg, const char *l, struct vs_err *err)
{
	const char *start = l, *s;
	char quote = 0, prev = 0, *v;
	int depth = 0;

	for (s = l; ; s++) {
		if (*s == '\0' && (depth > 0 || quote))
			break;
		if (quote) {
			if (*s == quote)
				quote = 0;
			continue;
		}
		/* a quote opens a quoted scalar only where a value starts */
		if ((*s == '"' || *s == '\'') && (prev == 0 || strchr("{[,:", prev)))
			quote = *s;
		else if (*s == '{' || *s == '[')
			depth++;
		else if ((*s == '}' || *s == ']') && --depth < 0)
			break;
		else if (depth == 0 && (*s == ',' || *s == '\0')) {
			if ((v = trimmed(start, s)) == NULL)
				return vs_errf(err, NULL, 0, 0, "--vary '%s': empty value in the "
				    "list", arg);
			axis_push(ax, v);
			if (*s == '\0')
				return 0;
			start = s + 1;
			prev = 0;
			continue;
		}
		if (!isspace((unsigned char)*s))
			prev = *s;
	}
	return vs_errf(err, NULL, 0, 0, "--vary '%s': unbalanced %s in the list", arg,
	    quote ? "quote" : "{...} or [...]");
}

/* Numeric axes (every value a number with the same unit) plot on a numeric x. */
static void
axis_classify(struct sweep_axis *ax)
{
	const char *u, *u0 = NULL;
	int i;

	ax->num = xcalloc((size_t)ax->nvals, sizeof *ax->num);
	for (i = 0; i < ax->nvals; i++) {
		if (num_unit(ax->vals[i], &ax->num[i], &u) || (u0 != NULL && strcmp(u, u0)))
			return;
		u0 = u;
	}
	ax->unit = xstrdup(u0);
}

int
sweep_add_vary(struct sweep *sw, const char *arg, struct vs_err *err)
{
	const char *eq = strchr(arg, '=');
	struct sweep_axis ax;
	size_t n;
	int i, rc;

	if (eq == NULL || eq == arg || eq[1] == '\0')
		return vs_errf(err, NULL, 0, 0, "--vary '%s': expected PATH=V1,V2,... or "
		    "PATH=START:STOP:STEP", arg);
	memset(&ax, 0, sizeof ax);
	ax.path = xstrndup(arg, (size_t)(eq - arg));
	for (i = 0; i < sw->naxes; i++)
		if (strcmp(sw->axes[i].path, ax.path) == 0) {
			free(ax.path);
			return vs_errf(err, NULL, 0, 0, "--vary '%s': %s is already varied",
			    arg, sw->axes[i].path);
		}
	/* A colon makes a range, unless it is inside a flow collection or quotes
	 * (a list of {dist: ...} values). */
	if (strchr(eq + 1, ':') != NULL && strpbrk(eq + 1, "{[\"'") == NULL)
		rc = parse_range(&ax, arg, eq + 1, err);
	else
		rc = parse_list(&ax, arg, eq + 1, err);
	n = sweep_npoints(sw) * (size_t)ax.nvals;
	if (rc == 0 && n > SWEEP_MAX_POINTS)
		rc = vs_errf(err, NULL, 0, 0, "--vary '%s': the grid would have %zu points "
		    "(at most %d)", arg, n, SWEEP_MAX_POINTS);
	if (rc) {
		free(ax.path);
		sweep_strv_free(ax.vals, (size_t)ax.nvals);
		return -1;
	}
	axis_classify(&ax);
	sw->axes = xrealloc(sw->axes, (size_t)(sw->naxes + 1) * sizeof *sw->axes);
	sw->axes[sw->naxes++] = ax;
	return 0;
}

size_t
sweep_npoints(const struct sweep *sw)
{
	size_t n = 1;

	int i;

	for (i = 0; i < sw->naxes; i++)
		n *= (size_t)sw->axes[i].nvals;
	return n;
}

void
sweep_point_index(const struct sweep *sw, size_t i, int *idx)
{
	int a;

	/* Row-major: the last axis varies fastest. */
	for (a = sw->naxes - 1; a >= 0; a--) {
		idx[a] = (int)(i % (size_t)sw->axes[a].nvals);
		i /= (size_t)sw->axes[a].nvals;
	}
}

char **
sweep_point_sets(const struct sweep *sw, size_t i, int *nsets)
{
	char **s = xcalloc((size_t)(sw->nsets + sw->naxes), sizeof *s);
	int *idx = xcalloc((size_t)sw->naxes + 1, sizeof *idx), k;

	sweep_point_index(sw, i, idx);
	for (k = 0; k < sw->nsets; k++)
		s[k] = xstrdup(sw->sets[k]);
	for (k = 0; k < sw->naxes; k++)
		s[sw->nsets + k] = xasprintf("%s=%s", sw->axes[k].path,
		    sw->axes[k].vals[idx[k]]);
	free(idx);
	*nsets = sw->nsets + sw->naxes;
	return s;
}

void
sweep_free_sets(char **sets, int nsets)
{
	sweep_strv_free(sets, (size_t)nsets);
}

/* "PATH=V, PATH=V" of point i, for messages. */
static char *
point_desc(const struct sweep *sw, size_t i)
{
	int *idx = xcalloc((size_t)sw->naxes + 1, sizeof *idx), k;
	char *s = xstrdup(""), *t;

	sweep_point_index(sw, i, idx);
	for (k = 0; k < sw->naxes; k++) {
		t = xasprintf("%s%s%s=%s", s, k ? ", " : "", sw->axes[k].path,
		    sw->axes[k].vals[idx[k]]);
		free(s);
		s = t;
	}
	free(idx);
	return s;
}

/* Append " [point N: PATH=V, ...]" to an error so the user knows which point. */
int
sweep_point_err(const struct sweep *sw, size_t i, struct vs_err *err)
{
	char *d, *msg;

	if (sw->naxes == 0)
		return -1;
	d = point_desc(sw, i);
	msg = xasprintf("%s [sweep point %zu: %s]", err->msg, i, d);
	vs_errf(err, NULL, 0, 0, "%s", msg);
	free(msg);
	free(d);
	return -1;
}

static int
col_wanted(const struct scenario *sc, const char *name)
{
	int i;

	if (in_list(sweep_nondet, name))
		return 0;
	if (sc->nmetrics == 0 || strcmp(name, "events") == 0)
		return 1;
	for (i = 0; i < sc->nmetrics; i++)
		if (strcmp(sc->metrics[i], name) == 0)
			return 1;
	return 0;
}

/* Point i's scenario with its seed and reps. */
int
sweep_point_load(const struct sweep *sw, size_t i, struct scenario *sc, uint64_t *seed,
    int *reps, struct vs_err *err)
{
	int nsets, rc;
	char **sets = sweep_point_sets(sw, i, &nsets);

	rc = scen_load(sc, sw->scenario, sets, nsets, err);
	sweep_free_sets(sets, nsets);
	if (rc)
		return -1;
	*seed = sw->seed >= 0 ? (uint64_t)sw->seed : sc->seed;
	*reps = sw->reps >= 0 ? sw->reps : sc->reps;
	return 0;
}

/* Load point i, build its model and run it for zero simulated time. */
static int
point_check(struct sweep *sw, size_t i, struct vs_err *err)
{
	struct run_opts ro = { .wall_clock = 0, .check = 1 };
	struct scenario sc, dry;
	struct metrics m;
	uint64_t seed;
	size_t k, n = 0;
	int reps, rc = -1, j;

	metrics_init(&m);
	if (sweep_point_load(sw, i, &sc, &seed, &reps, err))
		goto out;
	dry = sc;
	dry.duration = 0;
	if ((j = run_once(&dry, seed, &ro, &m, err)) != 0) {
		rc = j;		/* RUN_STOPPED too: a limit can stop even a dry run */
		goto out;
	}
	for (j = 0; j < sc.nmetrics; j++)
		if (metrics_find(&m, sc.metrics[j]) < 0) {
			vs_errf(err, NULL, 0, 0, "%s: unknown metric '%s' (vlocksim list shows "
			    "how metrics are named)", sc.metric_where[j], sc.metrics[j]);
			goto out;
		}
	if (i == 0) {
		sw->name = xstrdup(sc.name);
		sw->reps0 = reps;
		sw->seed0 = (unsigned long long)seed;
		sw->cols = xcalloc(m.n, sizeof *sw->cols);
		sw->units = xcalloc(m.n, sizeof *sw->units);
		for (k = 0; k < m.n; k++)
			if (col_wanted(&sc, m.names[k])) {
				sw->cols[sw->ncols] = xstrdup(m.names[k]);
				sw->units[sw->ncols++] = xstrdup(m.units[k]);
			}
		if (sc.nmetrics > 0) {
			sw->filter = xcalloc((size_t)sc.nmetrics, sizeof *sw->filter);
			for (j = 0; j < sc.nmetrics; j++)
				sw->filter[sw->nfilter++] = xstrdup(sc.metrics[j]);
		}
	}
	/* results.csv has one header: every point must yield the same columns. */
	for (k = 0; k < m.n; k++)
		if (col_wanted(&sc, m.names[k]) &&
		    (n >= sw->ncols || strcmp(sw->cols[n++], m.names[k]) != 0)) {
			vs_errf(err, NULL, 0, 0, "%s: point %zu has other metrics than point 0 "
			    "(metric '%s'); vary values that keep the model's shape",
			    sw->scenario, i, m.names[k]);
			goto out;
		}
	if (n != sw->ncols) {
		vs_errf(err, NULL, 0, 0, "%s: point %zu has fewer metrics than point 0",
		    sw->scenario, i);
		goto out;
	}
	rc = 0;
out:
	metrics_free(&m);
	scen_free(&sc);
	return rc;
}

int
sweep_prepare(struct sweep *sw, struct vs_err *err)
{
	size_t i;
	int c;

	sw->npoints = sweep_npoints(sw);
	for (i = 0; i < sw->npoints; i++)
		if ((c = point_check(sw, i, err)) != 0) {
			sweep_point_err(sw, i, err);
			return c == RUN_STOPPED ? SWEEP_STOPPED : -1;
		}
	return 0;
}

int
sweep_has_col(const struct sweep *sw, const char *name)
{
	size_t i;

	for (i = 0; i < sw->ncols; i++)
		if (strcmp(sw->cols[i], name) == 0)
			return 1;
	return 0;
}

char **
sweep_default_plots(const struct sweep *sw, int *n)
{
	char **v = xcalloc((size_t)sw->nfilter + 1, sizeof *v);
	size_t i;
	int k;

	*n = 0;
	for (k = 0; k < sw->nfilter; k++)
		v[(*n)++] = xstrdup(sw->filter[k]);
	for (i = 0; i < sw->ncols && *n == 0; i++)
		if (!in_list(sweep_engine, sw->cols[i]))
			v[(*n)++] = xstrdup(sw->cols[i]);
	return v;
}
