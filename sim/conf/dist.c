/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * dist.c - distributions from YAML, sampled with GSL.
 *
 * Every parameter must be >= 0: distributions describe durations, sizes,
 * rates and work amounts.  dist_scale() keeps a factor instead of rewriting
 * parameters, so lognormal and gamma need no special cases.
 */
#include "dist.h"
#include "engine.h"
#include "rng.h"
#include "yconf.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_randist.h>

static const char *const dist_names[] = {
	"const", "exponential", "uniform", "normal", "lognormal", "gamma",
	"empirical", NULL
};

/* Keys each form accepts, for "unknown key" messages. */
static const char *const dist_keys[] = {
	"dist, value",
	"dist, mean",
	"dist, min, max",
	"dist, mean, sd",
	"dist, mean, sd",
	"dist, shape, mean",
	"dist, samples, file, unit",
};

#define NORMAL_TRIES	1000	/* resampling cap for the truncated normal */

static struct dist *
dist_new(enum dist_type t)
{
	struct dist *d = xcalloc(1, sizeof *d);

	d->type = t;
	d->scale = 1.0;
	return d;
}

struct dist *
dist_const(double v)
{
	struct dist *d = dist_new(DIST_CONST);

	d->a = d->mean = v;
	return d;
}

void
dist_free(struct dist *d)
{
	if (d == NULL)
		return;
	free(d->samples);
	free(d);
}

static void
add_sample(struct dist *d, size_t *cap, double v)
{
	VS_GROW(d->samples, *cap, d->n);
	d->samples[d->n++] = v;
}

/*
 * Read an empirical CSV: first column of each line, '#' comments, blank
 * lines skipped.  A bare number carries unit; a value with its own unit
 * keeps it.  Errors point into the CSV file.
 */
/* An empirical distribution's samples: 8 MiB, a million measured values. */
#define DIST_MAX_SAMPLES (1 << 20)

static int
read_csv(struct dist *d, const struct yc_node *fnode, const char *unit,
    enum unit_kind kind, double hz, struct vs_err *err)
{
	const char *sl = strrchr(fnode->file, '/');
	char *path, *line = NULL, *p, *e, *txt;
	size_t cap = 0, lcap = 0;
	const char *why;
	double v;
	FILE *f;
	int lineno = 0, rc = -1;
	long len;

	if (fnode->text[0] == '/' || sl == NULL)
		path = xstrdup(fnode->text);
	else
		path = xasprintf("%.*s/%s", (int)(sl - fnode->file), fnode->file,
		    fnode->text);
	if ((f = vs_fopen_regular(path, &why)) == NULL) {
		yc_err(fnode, err, "cannot read samples file '%s': %s", fnode->text, why);
		free(path);
		return -1;
	}
	while ((len = vs_getline(&line, &lcap, f, VS_LINE_MAX)) != -1) {
		lineno++;
		if (len == VS_LINE_TOO_LONG) {
			vs_errf(err, path, lineno, 1, "line longer than %zu bytes (not a samples "
			    "file?)", VS_LINE_MAX);
			goto out;
		}
		if (d->n >= DIST_MAX_SAMPLES) {
			vs_errf(err, path, lineno, 1, "more than %d samples", DIST_MAX_SAMPLES);
			goto out;
		}
		if ((p = strchr(line, '#')) != NULL)
			*p = '\0';
		if ((p = strchr(line, ',')) != NULL)
			*p = '\0';
		for (p = line; isspace((unsigned char)*p); p++)
			;
		for (e = p + strlen(p); e > p && isspace((unsigned char)e[-1]); e--)
			;
		*e = '\0';
		if (*p == '\0')
			continue;
		/* A bare number takes the file's unit. */
		if (kind != UNIT_NONE && units_parse(p, UNIT_NONE, 0, &v, &why) == 0)
			txt = xasprintf("%s%s", p, unit);
		else
			txt = xstrdup(p);
		if (units_parse(txt, kind, hz, &v, &why) == -1) {
			vs_errf(err, path, lineno, (int)(p - line) + 1,
			    "bad sample '%.80s': %s%s", p, why,
			    lineno == 1 ? " (comment out a header line with '#')" : "");
			free(txt);
			goto out;
		}
		free(txt);
		if (v < 0) {
			vs_errf(err, path, lineno, (int)(p - line) + 1,
			    "sample '%.80s' is negative", p);
			goto out;
		}
		if (kind == UNIT_TIME && v > (double)SIM_TIME_CAP) {
			vs_errf(err, path, lineno, (int)(p - line) + 1, "sample '%.80s' is longer "
			    "than the cap on simulated time (%.0e ns)", p, (double)SIM_TIME_CAP);
			goto out;
		}
		add_sample(d, &cap, v);
	}
	if (ferror(f)) {
		vs_errf(err, NULL, 0, 0, "%s: read error: %s", path, strerror(errno));
		goto out;
	}
	if (d->n == 0) {
		yc_err(fnode, err, "samples file '%s' holds no values", fnode->text);
		goto out;
	}
	rc = 0;
out:
	free(line);
	fclose(f);
	free(path);
	return rc;
}

static int
parse_empirical(struct dist *d, const struct yc_node *n, enum unit_kind kind,
    double hz, struct vs_err *err)
{
	struct yc_node *s = yc_find(n, "samples"), *f = yc_find(n, "file");
	const char *unit;
	size_t i, cap = 0;
	double v, sum = 0;

	if (s != NULL && yc_find(n, "unit") != NULL)
		return yc_err(yc_find(n, "unit"), err,
		    "'unit' is for 'file' only; write the unit on each sample");
	if (yc_get_str(n, "unit", units_base_name(kind), &unit, err) == -1)
		return -1;
	if (s != NULL && f != NULL)
		return yc_err(f, err, "give either 'samples' or 'file', not both");
	if (s == NULL && f == NULL)
		return yc_err(n, err, "empirical needs 'samples' (a list) or 'file' (a CSV)");
	if (s != NULL) {
		if (yc_expect(s, YC_SEQ, "a list of samples", err) == -1)
			return -1;
		if (s->n == 0)
			return yc_err(s, err, "'samples' is empty");
		if (s->n > DIST_MAX_SAMPLES)
			return yc_err(s, err, "'samples' holds %zu values (at most %d)", s->n,
			    DIST_MAX_SAMPLES);
		for (i = 0; i < s->n; i++) {
			if (yc_node_qty(s->vals[i], kind, hz, 0, INFINITY, &v, err) == -1)
				return -1;
			add_sample(d, &cap, v);
		}
	} else {
		/* Check the unit once here, where the error can point at it. */
		if (kind != UNIT_NONE) {
			char *t = xasprintf("1%s", unit);
			const char *why;
			int bad = units_parse(t, kind, hz, &v, &why);

			free(t);
			if (bad)
				return yc_err(yc_find(n, "unit"), err, "'unit' = '%s': %s",
				    unit, why);
		}
		if (f->kind != YC_SCALAR || f->text[0] == '\0')
			return yc_err(f, err, "'file' must be a CSV file name");
		if (read_csv(d, f, unit, kind, hz, err) == -1)
			return -1;
	}
	for (i = 0; i < d->n; i++)
		sum += d->samples[i];
	d->mean = sum / (double)d->n;
	return 0;
}

/* dist_sample's inline case (dist.h exp_pos): an exponential of mean > 0
 * whose scale is 1, so a * Exp(1) is the value (x * 1 is x) */
static int
exp_inline(const struct dist *d)
{
	return d->type == DIST_EXP && d->a > 0 && d->scale == 1;
}

struct dist *
dist_from_yaml(const struct yc_node *n, enum unit_kind kind, double hz,
    struct vs_err *err)
{
	struct dist *d;
	int t;
	double x, y;

	if (n == NULL) {
		vs_errf(err, NULL, 0, 0, "missing distribution");
		return NULL;
	}
	if (n->kind == YC_SCALAR) {
		if (yc_node_qty(n, kind, hz, 0, INFINITY, &x, err) == -1)
			return NULL;
		return dist_const(x);
	}
	if (yc_expect(n, YC_MAP, "a distribution (a value like 5us, or a mapping "
	    "with 'dist:')", err) == -1)
		return NULL;
	if (yc_get_enum(n, "dist", dist_names, -1, &t, err) == -1)
		return NULL;
	d = dist_new((enum dist_type)t);
	switch (d->type) {
	case DIST_CONST:
		if (yc_get_qty(n, "value", kind, hz, NAN, 0, INFINITY, &d->a, err) == -1)
			goto fail;
		d->mean = d->a;
		break;
	case DIST_EXP:
		if (yc_get_qty(n, "mean", kind, hz, NAN, 0, INFINITY, &d->a, err) == -1)
			goto fail;
		d->mean = d->a;
		break;
	case DIST_UNIFORM:
		if (yc_get_qty(n, "min", kind, hz, NAN, 0, INFINITY, &d->a, err) == -1 ||
		    yc_get_qty(n, "max", kind, hz, NAN, d->a, INFINITY, &d->b, err) == -1)
			goto fail;
		d->mean = (d->a + d->b) / 2;
		break;
	case DIST_NORMAL:
		if (yc_get_qty(n, "mean", kind, hz, NAN, 0, INFINITY, &d->a, err) == -1 ||
		    yc_get_qty(n, "sd", kind, hz, NAN, 0, INFINITY, &d->b, err) == -1)
			goto fail;
		/* The mean before truncation: close when sd << mean. */
		d->mean = d->a;
		break;
	case DIST_LOGNORMAL:
		if (yc_get_qty(n, "mean", kind, hz, NAN, 0, INFINITY, &x, err) == -1 ||
		    yc_get_qty(n, "sd", kind, hz, NAN, 0, INFINITY, &y, err) == -1)
			goto fail;
		if (x == 0) {
			yc_err(yc_find(n, "mean"), err, "'mean' of a lognormal must be > 0");
			goto fail;
		}
		d->b = sqrt(log1p(y * y / (x * x)));
		d->a = log(x) - d->b * d->b / 2;
		d->mean = x;
		break;
	case DIST_GAMMA:
		if (yc_get_num(n, "shape", NAN, 0, INFINITY, &d->a, err) == -1 ||
		    yc_get_qty(n, "mean", kind, hz, NAN, 0, INFINITY, &x, err) == -1)
			goto fail;
		if (d->a == 0) {
			yc_err(yc_find(n, "shape"), err, "'shape' must be > 0");
			goto fail;
		}
		d->b = x / d->a;
		d->mean = x;
		break;
	case DIST_EMPIRICAL:
		if (parse_empirical(d, n, kind, hz, err) == -1)
			goto fail;
		break;
	}
	if (yc_check_unused(n, dist_keys[d->type], err) == -1)
		goto fail;
	d->exp_pos = exp_inline(d);
	return d;
fail:
	dist_free(d);
	return NULL;
}

/* dist_sample's kinds but the two it takes inline (dist.h); an exponential
 * of mean 0 here (no draw). */
double
dist_sample_other(const struct dist *d, struct rng *r)
{
	gsl_rng *g = rng_gsl(r);
	double x = 0;
	int i;

	switch (d->type) {
	case DIST_CONST:
		break;
	case DIST_EXP:
		x = d->a > 0 ? d->a * rng_exp_gsl(g) : 0;
		break;
	case DIST_UNIFORM:
		x = gsl_ran_flat(g, d->a, d->b);
		break;
	case DIST_NORMAL:
		x = 0;
		for (i = 0; i < NORMAL_TRIES; i++) {
			double y = d->a + gsl_ran_gaussian(g, d->b);

			if (y >= 0) {
				x = y;
				break;
			}
		}
		break;
	case DIST_LOGNORMAL:
		x = gsl_ran_lognormal(g, d->a, d->b);
		break;
	case DIST_GAMMA:
		x = d->b > 0 ? gsl_ran_gamma(g, d->a, d->b) : 0;
		break;
	case DIST_EMPIRICAL:
		x = d->samples[d->n == 1 ? 0 : gsl_rng_uniform_int(g, d->n)];
		break;
	}
	return x * d->scale;
}

double
dist_mean(const struct dist *d)
{
	return d->mean * d->scale;
}

double
dist_min(const struct dist *d)
{
	double m = INFINITY;
	size_t i;

	switch (d->type) {
	case DIST_CONST:
	case DIST_UNIFORM:
		return d->a * d->scale;
	case DIST_EMPIRICAL:
		for (i = 0; i < d->n; i++)
			m = fmin(m, d->samples[i]);
		return m * d->scale;
	default:
		return 0;	/* the others reach down to 0 */
	}
}

void
dist_scale(struct dist *d, double f)
{
	d->scale *= f;
	d->exp_pos = exp_inline(d);
}

int
dist_is_const(const struct dist *d)
{
	return d->type == DIST_CONST;
}

size_t
dist_nsamples(const struct dist *d)
{
	return d->type == DIST_EMPIRICAL ? d->n : 0;
}
