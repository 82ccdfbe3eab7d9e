/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * cmd_out.c - where commands write: folders made with their parents, files
 * written whole, result sets staged beside their folder and moved in only
 * when every file was written (cmd.h).
 */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cmd.h"
#include "util.h"

int
cmd_mkdir_p(const char *dir, struct vs_err *err)
{
	char *p = xstrdup(dir), *s;
	int rc = 0;

	for (s = p + 1; ; s++) {
		if (*s == '/' || *s == '\0') {
			char c = *s;

			*s = '\0';
			if (mkdir(p, 0777) != 0 && errno != EEXIST) {
				rc = vs_errf(err, NULL, 0, 0, "%s: cannot create: %s", p,
				    strerror(errno));
				break;
			}
			*s = c;
			if (c == '\0')
				break;
		}
	}
	free(p);
	return rc;
}

int
cmd_write_out(const char *dir, const char *file, const char *text, struct vs_err *err)
{
	char *path = xasprintf("%s/%s", dir, file);
	int rc = vs_write_file_atomic(path, text, strlen(text), err);

	free(path);
	return rc;
}

/* Remove the files of stage, then stage. */
static void
stage_remove(const char *stage)
{
	struct dirent *e;
	DIR *d;
	char *p;

	if ((d = opendir(stage)) != NULL) {
		while ((e = readdir(d)) != NULL) {
			if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
				continue;
			p = xasprintf("%s/%s", stage, e->d_name);
			unlink(p);
			free(p);
		}
		closedir(d);
	}
	rmdir(stage);
}

/*
 * OUT.tmp.PID folders of processes that are gone (killed with SIGKILL,
 * SIGINT or SIGTERM mid-run, issue 29): removed before a new stage, so a
 * re-run leaves no trace of the killed one.
 */
static void
stage_sweep_dead(const char *out)
{
	const char *slash = strrchr(out, '/');
	char *dir = slash != NULL ? xstrndup(out, (size_t)(slash - out + (slash == out))) :
	    xstrdup(".");
	const char *base = slash != NULL ? slash + 1 : out;
	size_t blen = strlen(base);
	struct dirent *e;
	char *end, *p;
	DIR *d;
	long pid;

	if (blen == 0 || (d = opendir(dir)) == NULL) {
		free(dir);
		return;
	}
	while ((e = readdir(d)) != NULL) {
		if (strncmp(e->d_name, base, blen) != 0 || strncmp(e->d_name + blen, ".tmp.", 5))
			continue;
		pid = strtol(e->d_name + blen + 5, &end, 10);
		if (*end != '\0' || pid <= 0 || kill((pid_t)pid, 0) == 0 || errno != ESRCH)
			continue;
		p = xasprintf("%s/%s", dir, e->d_name);
		stage_remove(p);
		free(p);
	}
	closedir(d);
	free(dir);
}

char *
cmd_stage_begin(const char *out, struct vs_err *err)
{
	char *parent, *slash, *stage, *real;
	enum vs_out_kind kind;

	/* OUT itself may exist (a folder, or a symlink to one, updated file by
	 * file), but not as a file or a device */
	if (vs_out_resolve(out, &real, &kind, err))
		return NULL;
	free(real);
	if (kind != VS_OUT_NEW && kind != VS_OUT_DIR) {
		vs_errf(err, NULL, 0, 0, "%s: exists and is not a folder", out);
		return NULL;
	}
	parent = xstrdup(out);
	while ((slash = strrchr(parent, '/')) != NULL && slash[1] == '\0' && slash > parent)
		*slash = '\0';
	if ((slash = strrchr(parent, '/')) != NULL && slash > parent) {
		*slash = '\0';
		if (cmd_mkdir_p(parent, err)) {
			free(parent);
			return NULL;
		}
	}
	free(parent);
	stage_sweep_dead(out);
	stage = xasprintf("%s.tmp.%ld", out, (long)getpid());
	if (mkdir(stage, 0777) != 0) {
		vs_errf(err, NULL, 0, 0, "%s: cannot create: %s", stage, strerror(errno));
		free(stage);
		return NULL;
	}
	return stage;
}

void
cmd_stage_abort(char *stage)
{
	if (stage == NULL)
		return;
	stage_remove(stage);
	free(stage);
}

int
cmd_stage_commit(char *stage, const char *out, struct vs_err *err)
{
	struct dirent *e;
	DIR *d;
	char *a, *b;
	int rc = 0;

	/* a new (or empty) OUT: the whole set appears at once */
	if (rename(stage, out) == 0) {
		free(stage);
		return 0;
	}
	/* ENOTDIR: OUT is a symlink to a folder, which a rename would not follow */
	if (errno != ENOTEMPTY && errno != EEXIST && errno != ENOTDIR) {
		rc = vs_errf(err, NULL, 0, 0, "%s: cannot rename into place: %s", out,
		    strerror(errno));
		cmd_stage_abort(stage);
		return rc;
	}
	/* an existing OUT: every file is whole, each replaced by a rename (or
	 * written through a device or FIFO that has its name: vs_replace_file) */
	if ((d = opendir(stage)) == NULL) {
		rc = vs_errf(err, NULL, 0, 0, "%s: cannot read: %s", stage, strerror(errno));
		cmd_stage_abort(stage);
		return rc;
	}
	while (rc == 0 && (e = readdir(d)) != NULL) {
		if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
			continue;
		a = xasprintf("%s/%s", stage, e->d_name);
		b = xasprintf("%s/%s", out, e->d_name);
		rc = vs_replace_file(a, b, err);
		free(a);
		free(b);
	}
	closedir(d);
	cmd_stage_abort(stage);
	return rc;
}
