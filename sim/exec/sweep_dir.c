/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * sweep_dir.c - a sweep's result folder: sweep.meta, which a restart on the
 * same folder must match line for line and --merge reads the sweep back from,
 * and the folder's lock (.sweep.lock), which keeps a second sweep out.
 */
#include "sweep_impl.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

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
int
sweep_meta_text(const struct sweep *sw, char **out, struct vs_err *err)
{
	char *buf = NULL, *text, abs[PATH_MAX];
	size_t len = 0, n;
	FILE *f;
	int a, k;

	if (realpath(sw->scenario, abs) == NULL ||
	    (text = vs_read_file(sw->scenario, &n)) == NULL)
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
int
sweep_meta_claim(const struct sweep *sw, const char *dir, struct vs_err *err)
{
	char *want, *have, *mpath = xasprintf("%s/sweep.meta", dir), *pdir, *la, *lb;
	struct stat st;
	int rc = 0;

	if (sweep_meta_text(sw, &want, err)) {
		free(mpath);
		return -1;
	}
	pdir = xasprintf("%s/points", dir);
	if ((have = vs_read_file(mpath, NULL)) != NULL) {
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

static int held_fd = -1;	/* sweep_lock's descriptor, for sweep_lock_drop */

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
	held_fd = fd;
	return fd;
}

void
sweep_unlock(int fd)
{
	if (fd >= 0)
		close(fd);
	if (fd == held_fd)
		held_fd = -1;
}

void
sweep_lock_drop(void)
{
	/* flock(2) locks belong to the open file: a fork's copy keeps the lock
	 * after the master died, until the fork is gone too */
	if (held_fd >= 0)
		close(held_fd);
	held_fd = -1;
}

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
	char *mpath = xasprintf("%s/sweep.meta", dir), *text = vs_read_file(mpath, NULL);
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
