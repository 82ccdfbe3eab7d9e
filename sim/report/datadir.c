/* SPDX-License-Identifier: GPL-2.0-or-later */
/* datadir.c - the data lookup order of datadir.h. */
#include "config.h"
#include "datadir.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util.h"

#define DATA_MAX_DIRS 3

/* The candidate folders, in lookup order; computed once per process. */
static const char *const *
data_dirs(int *n)
{
	static char *dirs[DATA_MAX_DIRS];
	static int ndirs = -1;
	const char *env;
	char exe[PATH_MAX], *slash;
	ssize_t len;
	int i;

	if (ndirs >= 0) {
		*n = ndirs;
		return (const char *const *)dirs;
	}
	ndirs = 0;
	if ((env = getenv("VLOCKSIM_DATADIR")) != NULL && *env != '\0') {
		dirs[ndirs++] = xstrdup(env);
		*n = ndirs;
		return (const char *const *)dirs;
	}
	len = readlink("/proc/self/exe", exe, sizeof exe - 1);
	if (len > 0) {
		exe[len] = '\0';
		if ((slash = strrchr(exe, '/')) != NULL) {
			*slash = '\0';		/* EXEDIR: a build tree's top */
			dirs[ndirs++] = xstrdup(*exe ? exe : "/");
			/* EXEDIR/../share/vlocksim, written without "..": PREFIX/share/vlocksim */
			if ((slash = strrchr(exe, '/')) != NULL)
				*slash = '\0';
			dirs[ndirs++] = xasprintf("%s/share/vlocksim", exe);
		}
	}
	for (i = 0; i < ndirs && strcmp(dirs[i], VS_DATADIR) != 0; i++)
		;
	if (i == ndirs)
		dirs[ndirs++] = xstrdup(VS_DATADIR);
	*n = ndirs;
	return (const char *const *)dirs;
}

const char *
vs_datadir(void)
{
	static const char *found;
	static int looked;
	const char *const *dirs;
	int i, n;

	if (looked)
		return found;
	looked = 1;
	dirs = data_dirs(&n);
	for (i = 0; i < n; i++) {
		char *p = xasprintf("%s/configs/examples", dirs[i]);
		int ok = access(p, R_OK | X_OK) == 0;

		free(p);
		if (ok) {
			found = dirs[i];
			break;
		}
	}
	return found;
}

char *
vs_data_find(const char *rel)
{
	const char *const *dirs;
	int i, n;

	dirs = data_dirs(&n);
	for (i = 0; i < n; i++) {
		char *p = xasprintf("%s/%s", dirs[i], rel);

		if (access(p, R_OK) == 0)
			return p;
		free(p);
	}
	return NULL;
}

char *
vs_data_where(const char *rel)
{
	const char *const *dirs;
	char *s = xstrdup("looked in "), *t;
	int i, n;

	dirs = data_dirs(&n);
	for (i = 0; i < n; i++) {
		t = xasprintf("%s%s%s/%s", s, i > 0 ? ", " : "", dirs[i], rel);
		free(s);
		s = t;
	}
	t = xasprintf("%s; %s", s, getenv("VLOCKSIM_DATADIR") != NULL &&
	    *getenv("VLOCKSIM_DATADIR") != '\0' ? "that is VLOCKSIM_DATADIR: point it at the "
	    "folder that holds configs/, plots/ and validation/" : "set VLOCKSIM_DATADIR to the "
	    "folder that holds configs/, plots/ and validation/");
	free(s);
	return t;
}

char *
vs_scenario_find(const char *arg, char **why)
{
	char *rel, *p;
	size_t n = strlen(arg);

	*why = NULL;
	if (access(arg, R_OK) == 0 || strchr(arg, '/') != NULL || *arg == '\0')
		return xstrdup(arg);
	rel = n > 5 && strcmp(arg + n - 5, ".yaml") == 0 ?
	    xasprintf("configs/examples/%s", arg) : xasprintf("configs/examples/%s.yaml", arg);
	if ((p = vs_data_find(rel)) == NULL) {
		char *where = vs_data_where(rel);

		*why = xasprintf("%s: cannot open scenario: no such file here, nor a shipped "
		    "example of that name (%s)", arg, where);
		free(where);
	}
	free(rel);
	return p;
}
