/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * trace_datchk.h - the structure of a trace-cmd trace.dat, checked before
 * libtracecmd sees the file (trace_datchk.c).  Needs no libtracecmd, so it is
 * built and tested everywhere.
 */
#ifndef VS_TRACE_DATCHK_H
#define VS_TRACE_DATCHK_H

#include <stdint.h>
#include <stdio.h>

#include "util.h"

/*
 * 0 when f (opened on path) has a trace.dat's structure: the initial
 * format, every section's and option's size inside its container and the
 * file, every CPU's data inside the file.  Else -1 and err reads "PATH: byte
 * offset N: damaged trace.dat: what is wrong (the file has S bytes)".
 * *info: what the check learnt, for the reader's bounds.
 */
struct ti_dat_info {
	uint64_t data_off;	/* where the first CPU's data starts: the metadata's end */
	uint64_t data_bytes;	/* every CPU's data, uncompressed */
};
int ti_dat_check(FILE *f, const char *path, struct ti_dat_info *info, struct vs_err *err);

#endif
