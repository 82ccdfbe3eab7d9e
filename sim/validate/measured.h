/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * measured.h - a published table, as each validation/measured CSV holds it.
 *
 *   # source: Raghavendra K T, "Re: [PATCH RFC V4 0/5] ...", 25 Jan 2012
 *   setup,variant,metric,unit,mean,sd,n
 *   S1,A,megacycles,Mcycles,12343.833333,1254.664021,18
 *
 * Lines starting with '#' are provenance comments (the first one is shown
 * in the case plot's footer, after the table's path);
 * the header must name exactly these seven columns.  A row is identified
 * as "SETUP/VARIANT".
 */
#ifndef VS_MEASURED_H
#define VS_MEASURED_H

#include <stddef.h>

#include "util.h"

struct mrow {
	char *setup, *variant, *metric, *unit;
	double mean, sd;
	int n;
	int line;
};

struct measured {
	char *path;
	char *source;		/* the first comment line, without '# ' */
	struct mrow *rows;
	size_t nrows;
};

int measured_load(struct measured *, const char *path, struct vs_err *err);
void measured_free(struct measured *);
/* Row "SETUP/VARIANT", or NULL. */
const struct mrow *measured_find(const struct measured *, const char *setup,
    const char *variant);

#endif
