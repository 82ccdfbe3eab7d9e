/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * lab_bench.c - lockbench from the lab's side: where it is, running it, and
 * its CSV summarised per lock and thread count (mean, sd over replications).
 * lockbench itself (bench/lab/) reads /proc and the clocks; the lab only
 * reads what it wrote.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "lab.h"

static int
executable(const char *p)
{
	return p != NULL && access(p, X_OK) == 0;
}

char *
lab_lockbench_find(const char *given)
{
	char self[4096], *slash, *p;
	ssize_t n;

	if (given != NULL)
		return executable(given) ? xstrdup(given) : NULL;
	/* Beside the binary, as datadir.h finds data: a build tree's
	 * bench/lab/lockbench, or an installed tree's ../libexec/vlocksim. */
	if ((n = readlink("/proc/self/exe", self, sizeof self - 1)) > 0) {
		self[n] = '\0';
		if ((slash = strrchr(self, '/')) != NULL) {
			*slash = '\0';
			p = xasprintf("%s/bench/lab/lockbench", self);
			if (executable(p))
				return p;
			free(p);
			p = xasprintf("%s/../libexec/vlocksim/lockbench", self);
			if (executable(p))
				return p;
			free(p);
		}
	}
	p = xasprintf("%s/lockbench", VS_LIBEXECDIR);
	if (executable(p))
		return p;
	free(p);
	return NULL;
}

/* Run argv; its stdout into *text (NUL-terminated, malloc'd) or, with
 * text NULL, into the file `out`. */
static int
run(char *const *argv, char **text, const char *out, struct vs_err *err)
{
	int fd[2] = { -1, -1 }, st, ofd = -1;
	size_t len = 0, cap = 0;
	char *buf = NULL;
	pid_t pid;

	if (text != NULL && pipe(fd) != 0)
		return vs_errf(err, NULL, 0, 0, "vlocksim lab: pipe: %s", strerror(errno));
	if (text == NULL && (ofd = open(out, O_WRONLY | O_CREAT | O_TRUNC, 0644)) < 0)
		return vs_errf(err, NULL, 0, 0, "vlocksim lab: %s: %s", out, strerror(errno));
	fflush(NULL);
	if ((pid = fork()) < 0) {
		if (ofd >= 0)
			close(ofd);
		return vs_errf(err, NULL, 0, 0, "vlocksim lab: fork: %s", strerror(errno));
	}
	if (pid == 0) {
		dup2(text != NULL ? fd[1] : ofd, STDOUT_FILENO);
		if (text != NULL) {
			close(fd[0]);
			close(fd[1]);
		} else {
			close(ofd);
		}
		execvp(argv[0], argv);
		fprintf(stderr, "vlocksim lab: %s: %s\n", argv[0], strerror(errno));
		_exit(127);
	}
	if (text != NULL) {
		ssize_t r;

		close(fd[1]);
		for (;;) {
			if (len + 4096 > cap)
				buf = xrealloc(buf, cap = cap * 2 + 8192);
			r = read(fd[0], buf + len, cap - len - 1);
			if (r < 0 && errno == EINTR)
				continue;
			if (r <= 0)
				break;
			len += (size_t)r;
		}
		close(fd[0]);
		buf[len] = '\0';
	} else {
		close(ofd);
	}
	while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
		;
	if (!WIFEXITED(st) || WEXITSTATUS(st) != 0) {
		free(buf);
		return vs_errf(err, NULL, 0, 0, "vlocksim lab: %s %s", argv[0],
		    WIFEXITED(st) ? "failed" : "was killed");
	}
	if (text != NULL)
		*text = buf;
	return 0;
}

int
lab_spawn(char *const *argv, const char *out, struct vs_err *err)
{
	return run(argv, NULL, out, err);
}

int
lab_capture(char *const *argv, char **text, struct vs_err *err)
{
	return run(argv, text, NULL, err);
}

int
lab_sample(const char *lockbench, double secs, struct lab_idle *s, struct vs_err *err)
{
	char arg[32], *text, *nl;
	char *argv[] = { (char *)lockbench, (char *)"--sample", arg, NULL };
	int rc;

	snprintf(arg, sizeof arg, "%g", secs);
	if (run(argv, &text, NULL, err))
		return -1;
	nl = strchr(text, '\n');
	rc = nl != NULL && sscanf(nl + 1, "%lf,%lf,%lf", &s->load1, &s->others, &s->steal) == 3;
	free(text);
	return rc ? 0 : vs_errf(err, NULL, 0, 0, "vlocksim lab: lockbench --sample said nothing");
}

/* Split one CSV line in place ("..." fields may hold commas); n fields. */
static int
csv_split(char *line, char **f, int max)
{
	int n = 0;
	char *p = line;

	while (n < max) {
		if (*p == '"') {
			f[n++] = ++p;
			while (*p && *p != '"')
				p++;
			if (*p == '"')
				*p++ = '\0';
		} else {
			f[n++] = p;
			while (*p && *p != ',')
				p++;
		}
		if (*p != ',')
			break;
		*p++ = '\0';
	}
	if (*p == ',')
		*p = '\0';
	return n;
}

static const char *const col_names[LC_NCOLS] = {
	[LC_OPS] = "ops_per_sec", [LC_JAIN] = "jain", [LC_MIN_SHARE] = "min_share",
	[LC_MAX_SHARE] = "max_share", [LC_WAIT] = "wait_mean_ns",
	[LC_HO_MEAN] = "handover_mean_ns", [LC_HO_P50] = "handover_p50_ns",
	[LC_HO_P99] = "handover_p99_ns", [LC_HOLD] = "hold_mean_ns",
	[LC_DELAY] = "run_delay_share", [LC_CS] = "cs_per_sec", [LC_IVCS] = "ivcs_per_sec",
	[LC_LOAD0] = "load1_before", [LC_LOAD1] = "load1_after", [LC_OTHERS] = "others_cpu",
	[LC_STEAL] = "steal", [LC_IDLE] = "idle_cpu", [LC_RATE] = "iters_per_ns",
};

/* Sums per row while reading; turned into lab_stat at the end. */
struct acc {
	double sum[LC_NCOLS], sum2[LC_NCOLS], min[LC_NCOLS], max[LC_NCOLS];
	int n;
};

char *
lab_read_text(const char *path, struct vs_err *err)
{
	FILE *f = fopen(path, "r");
	size_t len = 0, cap = 0, r;
	char *t = NULL;

	if (f == NULL) {
		vs_errf(err, NULL, 0, 0, "vlocksim lab: %s: %s", path, strerror(errno));
		return NULL;
	}
	do {
		if (len + 4096 > cap)
			t = xrealloc(t, cap = cap * 2 + 8192);
		r = fread(t + len, 1, cap - len - 1, f);
		len += r;
	} while (r > 0);
	fclose(f);
	t[len] = '\0';
	return t;
}

static void
header_value(struct lab_bench *b, const char *key, const char *v)
{
	static const struct { const char *k; size_t off; } dbl[] = {
		{ "compute_ns", offsetof(struct lab_bench, compute_ns) },
		{ "hold_ns", offsetof(struct lab_bench, hold_ns) },
		{ "iters_per_ns", offsetof(struct lab_bench, iters_per_ns) },
		{ "iters_per_ns_median", offsetof(struct lab_bench, iters_per_ns_median) },
		{ "clock_ns", offsetof(struct lab_bench, clock_ns) },
		{ "loop_ns", offsetof(struct lab_bench, loop_ns) },
		{ "section_ns", offsetof(struct lab_bench, section_ns) },
		{ "duration_s", offsetof(struct lab_bench, duration) },
		{ "warmup_s", offsetof(struct lab_bench, warmup) },
	};
	size_t i;

	for (i = 0; i < sizeof dbl / sizeof dbl[0]; i++)
		if (strcmp(key, dbl[i].k) == 0)
			*(double *)((char *)b + dbl[i].off) = atof(v);
	if (strcmp(key, "cpus") == 0)
		b->cpus = atoi(v);
	else if (strcmp(key, "cpus_allowed") == 0)
		b->cpus_allowed = atoi(v);
	else if (strcmp(key, "reps") == 0)
		b->reps = atoi(v);
}

/* The vlocksim lock of each lockbench lock, from `lockbench --list`. */
static char *
model_of(const char *models_csv, const char *lock)
{
	char *t = xstrdup(models_csv), *line, *save, *f[3], *m = NULL;

	for (line = strtok_r(t, "\n", &save); line && !m; line = strtok_r(NULL, "\n", &save))
		if (csv_split(line, f, 3) == 3 && strcmp(f[0], lock) == 0)
			m = xstrdup(f[1]);
	free(t);
	return m;
}

int
lab_bench_load(struct lab_bench *b, const char *csv, const char *models_csv,
    double max_others, double max_steal, struct vs_err *err)
{
	char *text, *line, *save, *f[64], *cols[64];
	int ncols = 0, col[64], i, k, lineno = 0, c_lock = -1, c_thr = -1, c_valid = -1;
	struct acc *acc = NULL;

	memset(b, 0, sizeof *b);
	if ((text = lab_read_text(csv, err)) == NULL)
		return -1;
	for (line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		lineno++;
		if (line[0] == '#') {
			char *colon = strchr(line, ':');

			if (colon != NULL && line[1] == ' ') {
				*colon = '\0';
				header_value(b, line + 2, colon + 1);
			}
			continue;
		}
		if (ncols == 0) {
			ncols = csv_split(line, cols, 64);
			for (i = 0; i < ncols; i++) {
				col[i] = -1;
				for (k = 0; k < LC_NCOLS; k++)
					if (strcmp(cols[i], col_names[k]) == 0)
						col[i] = k;
				if (strcmp(cols[i], "lock") == 0)
					c_lock = i;
				else if (strcmp(cols[i], "threads") == 0)
					c_thr = i;
				else if (strcmp(cols[i], "valid") == 0)
					c_valid = i;
			}
			if (c_lock < 0 || c_thr < 0 || c_valid < 0) {
				free(text);
				return vs_errf(err, csv, lineno, 1, "not lockbench's CSV (no lock, "
				    "threads, valid columns)");
			}
			continue;
		}
		if (csv_split(line, f, 64) != ncols) {
			free(text);
			lab_bench_free(b);
			free(acc);
			return vs_errf(err, csv, lineno, 1, "expected %d fields", ncols);
		}
		for (k = 0; k < b->nrows; k++)
			if (strcmp(b->rows[k].lock, f[c_lock]) == 0 &&
			    b->rows[k].threads == atoi(f[c_thr]))
				break;
		if (k == b->nrows) {
			struct lab_row *r;

			b->rows = xrealloc(b->rows, (size_t)(b->nrows + 1) * sizeof *b->rows);
			acc = xrealloc(acc, (size_t)(b->nrows + 1) * sizeof *acc);
			r = &b->rows[b->nrows];
			memset(r, 0, sizeof *r);
			memset(&acc[b->nrows], 0, sizeof *acc);
			r->lock = xstrdup(f[c_lock]);
			r->threads = atoi(f[c_thr]);
			if ((r->model = model_of(models_csv, r->lock)) == NULL) {
				b->nrows++;
				free(text);
				free(acc);
				return vs_errf(err, csv, lineno, 1, "lock '%s' is not in lockbench "
				    "--list", f[c_lock]);
			}
			b->nrows++;
		}
		{
			double v[LC_NCOLS] = { 0 };

			for (i = 0; i < ncols; i++)
				if (col[i] >= 0)
					v[col[i]] = atof(f[i]);
			if (v[LC_IDLE] > LAB_PACKED && v[LC_DELAY] > LAB_PACKED)
				b->rows[k].packed = 1;
		}
		for (i = 0; i < ncols; i++) {
			double v;

			if (col[i] < 0)
				continue;
			v = atof(f[i]);
			acc[k].sum[col[i]] += v;
			acc[k].sum2[col[i]] += v * v;
			if (acc[k].n == 0 || v < acc[k].min[col[i]])
				acc[k].min[col[i]] = v;
			if (acc[k].n == 0 || v > acc[k].max[col[i]])
				acc[k].max[col[i]] = v;
		}
		acc[k].n++;
		if (atoi(f[c_valid]) != 1)
			b->rows[k].invalid = 1;
	}
	free(text);
	if (b->nrows == 0) {
		free(acc);
		return vs_errf(err, csv, lineno, 1, "lockbench wrote no runs");
	}
	if (b->cpus_allowed > 0 && b->cpus_allowed < b->cpus) {
		free(acc);
		return vs_errf(err, csv, 0, 0, "lockbench ran on %d of the %d CPUs (its affinity "
		    "mask): not this machine", b->cpus_allowed, b->cpus);
	}
	for (k = 0; k < b->nrows; k++) {
		struct lab_row *r = &b->rows[k];

		for (i = 0; i < LC_NCOLS; i++) {
			struct lab_stat *s = &r->s[i];
			double n = acc[k].n, var;

			s->n = acc[k].n;
			s->mean = acc[k].sum[i] / n;
			var = n > 1 ? (acc[k].sum2[i] - n * s->mean * s->mean) / (n - 1) : 0;
			s->sd = var > 0 ? sqrt(var) : 0;
			s->min = acc[k].min[i];
			s->max = acc[k].max[i];
		}
		r->busy = r->s[LC_OTHERS].max > max_others || r->s[LC_STEAL].max > max_steal;
	}
	free(acc);
	return 0;
}

void
lab_bench_free(struct lab_bench *b)
{
	int i;

	for (i = 0; i < b->nrows; i++) {
		free(b->rows[i].lock);
		free(b->rows[i].model);
	}
	free(b->rows);
	memset(b, 0, sizeof *b);
}

const struct lab_row *
lab_bench_find(const struct lab_bench *b, const char *lock, int threads)
{
	int i;

	for (i = 0; i < b->nrows; i++)
		if (strcmp(b->rows[i].lock, lock) == 0 && b->rows[i].threads == threads)
			return &b->rows[i];
	return NULL;
}
