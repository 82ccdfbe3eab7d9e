/* SPDX-License-Identifier: GPL-2.0-or-later */
/* datadir.c - the data lookup order of datadir.h. */
#include "config.h"
#include "datadir.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util.h"

const char *
vs_datadir(void)
{
	return VS_DATADIR;
}

char *
vs_data_find(const char *rel)
{
	const char *env = getenv("VLOCKSIM_DATADIR");
	const char *dirs[3];
	size_t i, n = 0;

	if (env != NULL && *env != '\0')
		dirs[n++] = env;
	dirs[n++] = ".";
	dirs[n++] = VS_DATADIR;
	for (i = 0; i < n; i++) {
		char *p = strcmp(dirs[i], ".") == 0 ? xstrdup(rel) :
		    xasprintf("%s/%s", dirs[i], rel);

		if (access(p, R_OK) == 0)
			return p;
		free(p);
	}
	return NULL;
}

char *
vs_scenario_find(const char *arg)
{
	char *rel, *p;

	if (access(arg, R_OK) == 0 || strchr(arg, '/') != NULL || *arg == '\0')
		return xstrdup(arg);
	rel = strstr(arg, ".yaml") != NULL ? xasprintf("configs/examples/%s", arg) :
	    xasprintf("configs/examples/%s.yaml", arg);
	p = vs_data_find(rel);
	free(rel);
	return p != NULL ? p : xstrdup(arg);
}
