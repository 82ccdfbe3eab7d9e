/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * sweep_merge.c - sweep --merge: the finished point files of folders of one
 * sweep (shards run without a shared file system) copied into one folder.
 */
#include "sweep_impl.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

int
sweep_merge(const struct sweep *sw, const char *out, char *const *dirs, int ndirs,
    struct sweep_ran *ran, struct vs_err *err)
{
	char *want, *have, *mpath, *src, *dst, *row, *text;
	size_t i, nmiss = 0, first = 0;
	int k, rc, bad;

	memset(ran, 0, sizeof *ran);
	if ((rc = sweep_meta_claim(sw, out, err)) != 0)
		return rc;
	if (sweep_meta_text(sw, &want, err))
		return -1;
	for (k = 0; k < ndirs && rc == 0; k++) {
		mpath = xasprintf("%s/sweep.meta", dirs[k]);
		if ((have = vs_read_file(mpath, NULL)) == NULL)
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
		if ((row = sweep_point_row(sw, out, i, &bad)) != NULL || bad) {
			free(row);
			if (bad) {
				dst = sweep_point_path(out, i);
				rc = vs_errf(err, NULL, 0, 0, "%s: not a point of this sweep "
				    "(other columns)", dst);
				free(dst);
			}
			continue;
		}
		/* The first folder holding point i gives it (all hold the same bytes). */
		for (k = 0; k < ndirs && row == NULL; k++)
			if ((row = sweep_point_row(sw, dirs[k], i, &bad)) == NULL && bad) {
				src = sweep_point_path(dirs[k], i);
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
		src = sweep_point_path(dirs[k - 1], i);
		dst = sweep_point_path(out, i);
		text = vs_read_file(src, NULL);
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
		rc = sweep_results_write(sw, out, err);
	return rc;
}
