/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * sweep.c - grid expansion, point execution in worker processes, resumable
 * results.  See sweep.h for the grid order and the files in DIR.
 *
 * Processes: the master only loads scenarios (and frees them) and dry-runs
 * them at time 0 (every GSL generator and the event queue are freed before
 * run_once returns), so it holds no engine state when a backend forks.  A
 * worker runs one point (point_run) and hands its file text back; the master
 * checks it and writes DIR/points/NNNNN.csv with vs_write_file_atomic, so
 * only one process ever writes DIR, whatever the backend (exec.h).
 */
#include "sweep.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#ifdef __linux__
#include <sys/prctl.h>
#endif

#include "metrics.h"
#include "plot.h"
#include "report.h"
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

static void
free_strv(char **v, size_t n)
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
		free_strv(sw->axes[i].vals, (size_t)sw->axes[i].nvals);
		free(sw->axes[i].unit);
		free(sw->axes[i].num);
	}
	free(sw->axes);
	free_strv(sw->sets, (size_t)sw->nsets);
	free_strv(sw->cols, sw->ncols);
	free_strv(sw->units, sw->ncols);
	free_strv(sw->filter, (size_t)sw->nfilter);
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
		free_strv(ax.vals, (size_t)ax.nvals);
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
	free_strv(sets, (size_t)nsets);
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
static int
point_err(const struct sweep *sw, size_t i, struct vs_err *err)
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
static int
point_load(const struct sweep *sw, size_t i, struct scenario *sc, uint64_t *seed,
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
	if (point_load(sw, i, &sc, &seed, &reps, err))
		goto out;
	dry = sc;
	dry.duration = 0;
	if (run_once(&dry, seed, &ro, &m, err))
		goto out;
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

	sw->npoints = sweep_npoints(sw);
	for (i = 0; i < sw->npoints; i++)
		if (point_check(sw, i, err))
			return point_err(sw, i, err);
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

/* ---- files ------------------------------------------------------------------ */

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
static int
csv_split(const char *line, char ***out)
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

static char *
header_line(const struct sweep *sw)
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

/* Whole file, NULL (errno set) when it cannot be read. */
static char *
slurp(const char *path, size_t *lenp)
{
	FILE *f = fopen(path, "rb");
	char *buf = NULL;
	size_t len = 0, cap = 0, r;

	if (f == NULL)
		return NULL;
	do {
		VS_GROW(buf, cap, len + 4096);
		r = fread(buf + len, 1, cap - len - 1, f);
		len += r;
	} while (r > 0);
	if (ferror(f)) {
		fclose(f);
		free(buf);
		errno = EIO;
		return NULL;
	}
	fclose(f);
	buf[len] = '\0';
	if (lenp != NULL)
		*lenp = len;
	return buf;
}

static char *
point_path(const char *dir, size_t i)
{
	return xasprintf("%s/points/%05zu.csv", dir, i);
}

/* The file text of finished point i: header, then its row. */
static char *
point_text(const struct sweep *sw, size_t i, const struct msum *sum)
{
	char *buf = NULL, *h = header_line(sw);
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
static char *
point_row(const struct sweep *sw, const char *dir, size_t i, int *bad)
{
	char *path = point_path(dir, i), *text = slurp(path, NULL), *h, *row = NULL;
	size_t hl;

	*bad = 0;
	free(path);
	if (text == NULL)
		return NULL;
	h = header_line(sw);
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

/* The job of point i (in a worker): run it, its point file text. */
static int
point_run(void *ctx, size_t i, const char *arg, size_t arglen, char **out, size_t *len,
    struct vs_err *err)
{
	const struct sweep *sw = ctx;
	struct run_opts ro = { .wall_clock = 0, .check = 1 };
	struct scenario sc;
	struct msum sum;
	uint64_t seed;
	int reps, rc = -1;

	msum_init(&sum);
	if (point_load(sw, i, &sc, &seed, &reps, err) == 0) {
		if (run_reps(&sc, seed, reps, &ro, &sum, err) == 0) {
			*out = point_text(sw, i, &sum);
			*len = strlen(*out);
			rc = 0;
		}
		scen_free(&sc);
	}
	msum_free(&sum);
	if (rc)
		point_err(sw, i, err);
	return rc;
}

void
sweep_job(const struct sweep *sw, struct exec_job *job)
{
	memset(job, 0, sizeof *job);
	job->ctx = (void *)sw;
	job->run = point_run;
}

static uint64_t
fnv1a(const char *s, size_t n)
{
	uint64_t h = 1469598103934665603ULL;
	size_t i;

	for (i = 0; i < n; i++)
		h = (h ^ (unsigned char)s[i]) * 1099511628211ULL;
	return h;
}

/* What makes a sweep's results: a restart must match it line for line. */
static int
meta_text(const struct sweep *sw, char **out, struct vs_err *err)
{
	char *buf = NULL, *text, abs[PATH_MAX];
	size_t len = 0, n;
	FILE *f;
	int a, k;

	if (realpath(sw->scenario, abs) == NULL ||
	    (text = slurp(sw->scenario, &n)) == NULL)
		return vs_errf(err, NULL, 0, 0, "%s: cannot read: %s", sw->scenario,
		    strerror(errno));
	if ((f = open_memstream(&buf, &len)) == NULL)
		vs_fatal("open_memstream failed");
	fprintf(f, "vlocksim sweep 1\nscenario %s\nscenario_fnv1a %016llx\n", abs,
	    (unsigned long long)fnv1a(text, n));
	free(text);
	if (sw->seed >= 0)
		fprintf(f, "seed %lld\n", sw->seed);
	else
		fputs("seed scenario\n", f);
	if (sw->reps >= 0)
		fprintf(f, "reps %d\n", sw->reps);
	else
		fputs("reps scenario\n", f);
	for (k = 0; k < sw->nsets; k++)
		fprintf(f, "set %s\n", sw->sets[k]);
	for (a = 0; a < sw->naxes; a++) {
		fprintf(f, "vary %s=", sw->axes[a].path);
		for (k = 0; k < sw->axes[a].nvals; k++)
			fprintf(f, "%s%s", k ? "," : "", sw->axes[a].vals[k]);
		fputc('\n', f);
	}
	fclose(f);
	*out = buf;
	return 0;
}

/* First line where two texts differ (malloc'd copies, "(none)" past the end). */
static void
first_diff(const char *a, const char *b, char **la, char **lb)
{
	const char *ea, *eb;

	for (;;) {
		ea = strchr(a, '\n');
		eb = strchr(b, '\n');
		ea = ea ? ea : a + strlen(a);
		eb = eb ? eb : b + strlen(b);
		if (ea - a != eb - b || strncmp(a, b, (size_t)(ea - a)) != 0 || !*ea)
			break;
		a = ea + 1;
		b = eb + 1;
	}
	*la = ea > a ? xstrndup(a, (size_t)(ea - a)) : xstrdup("(none)");
	*lb = eb > b ? xstrndup(b, (size_t)(eb - b)) : xstrdup("(none)");
}

/* Record the sweep in DIR/sweep.meta, or check that DIR holds this very sweep. */
static int
meta_claim(const struct sweep *sw, const char *dir, struct vs_err *err)
{
	char *want, *have, *mpath = xasprintf("%s/sweep.meta", dir), *pdir, *la, *lb;
	struct stat st;
	int rc = 0;

	if (meta_text(sw, &want, err)) {
		free(mpath);
		return -1;
	}
	pdir = xasprintf("%s/points", dir);
	if ((have = slurp(mpath, NULL)) != NULL) {
		if (strcmp(have, want) != 0) {
			first_diff(have, want, &la, &lb);
			vs_errf(err, NULL, 0, 0, "%s: %s holds a sweep with other arguments "
			    "(recorded '%s', now '%s'); use another --out or remove it",
			    mpath, dir, la, lb);
			free(la);
			free(lb);
			rc = SWEEP_REFUSED;
		}
	} else if (errno != ENOENT) {
		rc = vs_errf(err, NULL, 0, 0, "%s: cannot read: %s", mpath, strerror(errno));
	} else if (stat(pdir, &st) == 0) {
		vs_errf(err, NULL, 0, 0, "%s: has points/ but no sweep.meta; not resuming "
		    "a sweep of unknown arguments", dir);
		rc = SWEEP_REFUSED;
	} else if (vs_write_file_atomic(mpath, want, strlen(want), err)) {
		rc = -1;
	}
	if (rc == 0 && mkdir(pdir, 0777) != 0 && errno != EEXIST)
		rc = vs_errf(err, NULL, 0, 0, "%s: cannot create: %s", pdir, strerror(errno));
	free(have);
	free(want);
	free(pdir);
	free(mpath);
	return rc;
}

int
sweep_lock(const char *dir, int shared, struct vs_err *err)
{
	char *path = xasprintf("%s/.sweep.lock", dir), buf[32] = "";
	int fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0666);
	ssize_t n;

	if (fd < 0) {
		vs_errf(err, NULL, 0, 0, "%s: cannot create: %s", path, strerror(errno));
		free(path);
		return -1;
	}
	/* flock(2): two sweeps on one --out would mix their points and meta;
	 * the shards of one sweep share the folder (shared lock) */
	if (flock(fd, (shared ? LOCK_SH : LOCK_EX) | LOCK_NB) != 0) {
		int e = errno;

		n = pread(fd, buf, sizeof buf - 1, 0);
		buf[n > 0 ? n : 0] = '\0';
		buf[strcspn(buf, "\n")] = '\0';
		if (e == EWOULDBLOCK)
			vs_errf(err, NULL, 0, 0, "%s: another sweep%s%s is using this folder; wait "
			    "for it to finish or use another --out", dir, buf[0] ? " (pid " : "",
			    buf[0] ? strcat(buf, ")") : "");
		else
			vs_errf(err, NULL, 0, 0, "%s: cannot lock: %s", path, strerror(e));
		close(fd);
		free(path);
		return e == EWOULDBLOCK ? SWEEP_REFUSED : -1;
	}
	snprintf(buf, sizeof buf, "%ld\n", (long)getpid());
	if (!shared && (ftruncate(fd, 0) != 0 || pwrite(fd, buf, strlen(buf), 0) < 0)) {
		/* the pid is only for the message */
	}
	free(path);
	return fd;
}

void
sweep_unlock(int fd)
{
	if (fd >= 0)
		close(fd);
}

static int
results_write(const struct sweep *sw, const char *dir, struct vs_err *err)
{
	char *buf = NULL, *h = header_line(sw), *row, *path;
	size_t len = 0, i;
	FILE *f = open_memstream(&buf, &len);
	int bad, rc = 0;

	if (f == NULL)
		vs_fatal("open_memstream failed");
	fputs(h, f);
	for (i = 0; i < sw->npoints && rc == 0; i++) {
		if ((row = point_row(sw, dir, i, &bad)) == NULL) {
			path = point_path(dir, i);
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

/* Is point i this process's share (--shard K/N: i mod N = K-1)? */
static int
in_shard(const struct sweep *sw, size_t i)
{
	return sw->nshards <= 1 || i % (size_t)sw->nshards == (size_t)sw->shard;
}

struct sweep_done {
	const struct sweep *sw;
	const char *dir;
};

/* A worker's result for point i: checked, then DIR/points/NNNNN.csv (atomic). */
static int
point_done(void *ctx, size_t i, const char *buf, size_t len, struct vs_err *err)
{
	const struct sweep_done *d = ctx;
	char *h = header_line(d->sw), *path;
	size_t hl = strlen(h);
	int rc;

	rc = len > hl && strncmp(buf, h, hl) == 0 && memchr(buf, '\0', len) == NULL &&
	    memchr(buf + hl, '\n', len - hl) == buf + len - 1;
	free(h);
	if (!rc)
		return vs_errf(err, NULL, 0, 0, "a worker sent a result that is not a "
		    "point of this sweep (another build or scenario on that node?)");
	path = point_path(d->dir, i);
	rc = vs_write_file_atomic(path, buf, len, err);
	free(path);
	return rc;
}

/* Temp files of writers killed before their rename: never read, just litter.
 * Only this shard's: another shard's writer may be between write and rename. */
static void
clean_temps(const struct sweep *sw, const char *dir)
{
	char *pdir = xasprintf("%s/points", dir), *p, *end;
	struct dirent *e;
	unsigned long long i;
	DIR *d;

	if ((d = opendir(pdir)) != NULL) {
		while ((e = readdir(d)) != NULL) {
			if (strstr(e->d_name, ".csv.tmp.") == NULL)
				continue;
			i = strtoull(e->d_name, &end, 10);
			if (end == e->d_name || !in_shard(sw, (size_t)i))
				continue;
			p = xasprintf("%s/%s", pdir, e->d_name);
			unlink(p);
			free(p);
		}
		closedir(d);
	}
	free(pdir);
}

/* Points of this shard not done yet (todo), and whether every point is done. */
static int
find_todo(const struct sweep *sw, const char *dir, size_t *todo, size_t *ntodo,
    size_t *nmissing, struct vs_err *err)
{
	size_t i;
	char *row;
	int bad;

	*ntodo = *nmissing = 0;
	for (i = 0; i < sw->npoints; i++) {
		row = point_row(sw, dir, i, &bad);
		if (bad) {
			char *path = point_path(dir, i);

			vs_errf(err, NULL, 0, 0, "%s: not a point of this sweep (other "
			    "columns)", path);
			free(path);
			return -1;
		}
		if (row == NULL) {
			(*nmissing)++;
			if (in_shard(sw, i))
				todo[(*ntodo)++] = i;
		}
		free(row);
	}
	return 0;
}

int
sweep_exec(const struct sweep *sw, const char *dir, struct exec_backend **be, int nbe,
    FILE *progress, struct sweep_ran *ran, struct vs_err *err)
{
	struct exec_prog pg = { .f = progress, .what = "sweep", .unit = "points",
		.item = "point", .t0 = exec_now() };
	struct sweep_done d = { sw, dir };
	size_t *todo = xcalloc(sw->npoints, sizeof *todo), ntodo, nmiss, failed, first;
	int rc;

	VS_ASSERT(sw->npoints == sweep_npoints(sw));
	memset(ran, 0, sizeof *ran);
	if ((rc = meta_claim(sw, dir, err)) != 0)
		goto out;
	clean_temps(sw, dir);
	if ((rc = find_todo(sw, dir, todo, &ntodo, &nmiss, err)) != 0)
		goto out;
	for (size_t i = 0; i < sw->npoints; i++)
		ran->share += in_shard(sw, i);
	pg.total = ran->share;
	pg.done = ran->share - ntodo;
	rc = exec_run(be, nbe, todo, ntodo, point_done, &d, &pg, &failed, &first, err);
	ran->ran = pg.ran;
	ran->missing = nmiss - pg.ran;
	if (rc) {
		char *m = xstrdup(err->msg);

		vs_errf(err, NULL, 0, 0, "%zu point(s) failed, first point %zu (%s); the "
		    "finished ones are kept, run again to resume", failed, first, m);
		free(m);
		goto out;
	}
	/* A shard builds results.csv only when the other shards are done too. */
	if (ran->missing == 0)
		rc = results_write(sw, dir, err);
out:
	free(todo);
	return rc;
}

/* ---- merge ------------------------------------------------------------------- */

/* Rebuild the sweep's arguments from its sweep.meta text (meta_text's lines). */
static int
meta_parse(struct sweep *sw, const char *text, const char *mpath, struct vs_err *err)
{
	const char *p = text, *e;
	char *line, *v;
	int ln = 0, rc = 0;
	long long n;

	for (; *p && rc == 0; p = *e ? e + 1 : e) {
		e = strchr(p, '\n');
		e = e ? e : p + strlen(p);
		line = xstrndup(p, (size_t)(e - p));
		ln++;
		v = strchr(line, ' ');
		if (v != NULL)
			*v++ = '\0';
		if (v == NULL || (ln == 1 && (strcmp(line, "vlocksim") != 0 ||
		    strcmp(v, "sweep 1") != 0)))
			rc = vs_errf(err, mpath, ln, 1, "not a vlocksim sweep.meta line");
		else if (strcmp(line, "scenario") == 0) {
			free(sw->scenario);
			sw->scenario = xstrdup(v);
		} else if (strcmp(line, "seed") == 0 || strcmp(line, "reps") == 0) {
			n = strcmp(v, "scenario") == 0 ? -1 : strtoll(v, NULL, 10);
			if (strcmp(line, "seed") == 0)
				sw->seed = n;
			else
				sw->reps = (int)n;
		} else if (strcmp(line, "set") == 0) {
			sweep_add_set(sw, v);
		} else if (strcmp(line, "vary") == 0) {
			rc = sweep_add_vary(sw, v, err);
		} else if (strcmp(line, "scenario_fnv1a") != 0 && ln != 1) {
			rc = vs_errf(err, mpath, ln, 1, "unknown sweep.meta key '%s'", line);
		}
		free(line);
	}
	if (rc == 0 && sw->naxes == 0)
		rc = vs_errf(err, mpath, 1, 1, "no vary line: not a sweep folder");
	return rc;
}

int
sweep_from_dir(struct sweep *sw, const char *dir, struct vs_err *err)
{
	char *mpath = xasprintf("%s/sweep.meta", dir), *text = slurp(mpath, NULL);
	int rc;

	sweep_init(sw, "");
	if (text == NULL)
		rc = vs_errf(err, NULL, 0, 0, "%s: cannot read: %s (not a sweep folder?)",
		    mpath, strerror(errno));
	else
		rc = meta_parse(sw, text, mpath, err);
	free(text);
	free(mpath);
	return rc;
}

int
sweep_merge(const struct sweep *sw, const char *out, char *const *dirs, int ndirs,
    struct sweep_ran *ran, struct vs_err *err)
{
	char *want, *have, *mpath, *src, *dst, *row, *text;
	size_t i, nmiss = 0, first = 0;
	int k, rc, bad;

	memset(ran, 0, sizeof *ran);
	if ((rc = meta_claim(sw, out, err)) != 0)
		return rc;
	if (meta_text(sw, &want, err))
		return -1;
	for (k = 0; k < ndirs && rc == 0; k++) {
		mpath = xasprintf("%s/sweep.meta", dirs[k]);
		if ((have = slurp(mpath, NULL)) == NULL)
			rc = vs_errf(err, NULL, 0, 0, "%s: cannot read: %s", mpath,
			    strerror(errno));
		else if (strcmp(have, want) != 0)
			rc = vs_errf(err, NULL, 0, 0, "%s: %s holds a sweep with other "
			    "arguments than %s; not merging", mpath, dirs[k], out);
		free(have);
		free(mpath);
	}
	free(want);
	if (rc)
		return rc == -1 ? SWEEP_REFUSED : rc;
	for (i = 0; i < sw->npoints && rc == 0; i++) {
		if ((row = point_row(sw, out, i, &bad)) != NULL || bad) {
			free(row);
			if (bad) {
				dst = point_path(out, i);
				rc = vs_errf(err, NULL, 0, 0, "%s: not a point of this sweep "
				    "(other columns)", dst);
				free(dst);
			}
			continue;
		}
		/* The first folder holding point i gives it (all hold the same bytes). */
		for (k = 0; k < ndirs && row == NULL; k++)
			if ((row = point_row(sw, dirs[k], i, &bad)) == NULL && bad) {
				src = point_path(dirs[k], i);
				rc = vs_errf(err, NULL, 0, 0, "%s: not a point of this sweep "
				    "(other columns)", src);
				free(src);
				break;
			}
		if (row == NULL) {
			if (nmiss++ == 0)
				first = i;
			continue;
		}
		src = point_path(dirs[k - 1], i);
		dst = point_path(out, i);
		text = slurp(src, NULL);
		if (text == NULL)
			rc = vs_errf(err, NULL, 0, 0, "%s: cannot read: %s", src,
			    strerror(errno));
		else
			rc = vs_write_file_atomic(dst, text, strlen(text), err);
		ran->ran++;
		free(text);
		free(src);
		free(dst);
		free(row);
	}
	if (rc == 0 && nmiss > 0)
		rc = vs_errf(err, NULL, 0, 0, "%zu point(s) missing in every folder, first "
		    "point %zu: run the shards that hold them (or sweep again without "
		    "--shard)", nmiss, first);
	ran->missing = nmiss;
	if (rc == 0)
		rc = results_write(sw, out, err);
	return rc;
}

/* ---- plots -------------------------------------------------------------------- */

/* Data for plots/sweep.gp: one block per line (a gnuplot "index"), rows x, mean, ci95, label. */
static int
plot_data(const struct sweep *sw, const char *dir, size_t c, const char *path,
    struct vs_err *err)
{
	const struct sweep_axis *x = &sw->axes[0];
	size_t nlines = sw->npoints / (size_t)x->nvals, r, k;
	char *buf = NULL, *row, **fld;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	int nf, bad, rc;

	if (f == NULL)
		vs_fatal("open_memstream failed");
	for (r = 0; r < nlines; r++) {
		for (k = 0; k < (size_t)x->nvals; k++) {
			/* The first axis varies slowest: its k-th value is k * nlines away. */
			row = point_row(sw, dir, k * nlines + r, &bad);
			VS_ASSERT(row != NULL);	/* results.csv was just built from them */
			nf = csv_split(row, &fld);
			VS_ASSERT(nf == sw->naxes + 3 * (int)sw->ncols);
			if (x->unit != NULL)
				fprintf(f, "%.10g", x->num[k]);
			else
				fprintf(f, "%zu", k);
			fprintf(f, " %s %s \"", fld[sw->naxes + 3 * (int)c],
			    fld[sw->naxes + 3 * (int)c + 2]);
			for (const char *p = x->vals[k]; *p; p++)
				fputc(*p == '"' ? '\'' : *p, f);
			fputs("\"\n", f);
			free_strv(fld, (size_t)nf);
			free(row);
		}
		fputs(r + 1 < nlines ? "\n\n" : "", f);
	}
	fclose(f);
	rc = vs_write_file_atomic(path, buf, len, err);
	free(buf);
	return rc;
}

/* Append "name = 'value'; " to the gnuplot variables. */
static void
gp_var(FILE *f, const char *name, const char *val)
{
	char *q = plot_quote(val);

	fprintf(f, "%s = %s; ", name, q);
	free(q);
}

static char *
plot_vars(const struct sweep *sw, size_t c, const char *data, const char *out)
{
	const struct sweep_axis *x = &sw->axes[0];
	size_t nlines = sw->npoints / (size_t)x->nvals, r;
	int *idx = xcalloc((size_t)sw->naxes + 1, sizeof *idx), a;
	char *buf = NULL, *t, *key, *name;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	if (f == NULL)
		vs_fatal("open_memstream failed");
	gp_var(f, "datafile", data);
	gp_var(f, "out", out);
	t = xasprintf("%s: %s against %s", sw->name, sw->cols[c], x->path);
	gp_var(f, "ttl", t);
	free(t);
	/* A t-based CI from n < 3 runs is uselessly wide (t = 12.7 at n = 2): none. */
	t = sw->reps0 >= 3 ? xasprintf("mean and 95%% CI over n = %d reps; seed %llu at "
	    "every point", sw->reps0, sw->seed0) : xasprintf("mean of n = %d reps (no CI "
	    "drawn below 3); seed %llu at every point", sw->reps0, sw->seed0);
	gp_var(f, "sub", t);
	free(t);
	t = x->unit != NULL && x->unit[0] ? xasprintf("%s (%s)", x->path, x->unit) :
	    xstrdup(x->path);
	gp_var(f, "xlab", t);
	free(t);
	t = xasprintf("%s (%s)", sw->cols[c], sw->units[c]);
	gp_var(f, "ylab", t);
	free(t);
	{
		int xint = x->unit != NULL;

		for (r = 0; xint && r < (size_t)x->nvals; r++)
			xint = x->num[r] == (double)(long long)x->num[r];
		fprintf(f, "xint = %d; noci = %d; ", xint, sw->reps0 < 3);
	}
	fprintf(f, "xcat = %d; nlines = %zu; array keys[%zu]; ", x->unit == NULL, nlines,
	    nlines);
	for (r = 0; r < nlines; r++) {
		/* Line r holds the other axes' values of point r. */
		key = xstrdup("");
		sweep_point_index(sw, r, idx);
		for (a = 1; a < sw->naxes; a++) {
			t = xasprintf("%s%s%s=%s", key, a > 1 ? ", " : "", sw->axes[a].path,
			    sw->axes[a].vals[idx[a]]);
			free(key);
			key = t;
		}
		name = xasprintf("keys[%zu]", r + 1);
		gp_var(f, name, sw->naxes > 1 ? key : sw->cols[c]);
		free(name);
		free(key);
	}
	fclose(f);
	free(idx);
	return buf;
}

int
sweep_plot(const struct sweep *sw, const char *dir, const char *metric,
    struct vs_err *err)
{
	static const char *const fmts[] = { "png", "svg" };
	char *base, *data, *vars, *tmpf, *fin;
	size_t c;
	int rc, k;

	VS_ASSERT(sw->naxes > 0);
	for (c = 0; c < sw->ncols && strcmp(sw->cols[c], metric) != 0; c++)
		;
	VS_ASSERT(c < sw->ncols);
	/* gnuplot writes beside the final names, then a rename puts each in place. */
	base = xasprintf("%s/.sweep-%s.tmp%ld", dir, metric, (long)getpid());
	data = xasprintf("%s.dat", base);
	if ((rc = plot_data(sw, dir, c, data, err)) == 0) {
		vars = plot_vars(sw, c, data, base);
		rc = plot_run("sweep.gp", vars, err);
		if (rc == 0)
			rc = plot_check_outputs(base, err);
		free(vars);
	}
	for (k = 0; k < 2; k++) {
		tmpf = xasprintf("%s.%s", base, fmts[k]);
		fin = xasprintf("%s/sweep-%s.%s", dir, metric, fmts[k]);
		if (rc == 0 && rename(tmpf, fin) != 0)
			rc = vs_errf(err, NULL, 0, 0, "%s: cannot rename into place: %s", fin,
			    strerror(errno));
		unlink(tmpf);
		free(tmpf);
		free(fin);
	}
	unlink(data);
	free(data);
	free(base);
	return rc;
}
