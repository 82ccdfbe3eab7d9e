/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * sweep_impl.h - what the files of a sweep share with each other; other
 * modules use sweep.h.  One idea a file, arrows one way (plot, merge and
 * exec use dir and csv; csv and dir use the grid):
 *   sweep.c        the grid: --vary axes, points, their scenarios, the dry run
 *   sweep_csv.c    a point file's and results.csv's CSV text
 *   sweep_dir.c    the result folder: sweep.meta (claim, read back) and its lock
 *   sweep_exec.c   running this shard's missing points on the exec backends
 *   sweep_merge.c  the point files of shard folders copied into one
 *   sweep_plot.c   a metric against the first axis with plots/sweep.gp
 */
#ifndef VS_SWEEP_IMPL_H
#define VS_SWEEP_IMPL_H

#include <stddef.h>
#include <stdint.h>

#include "sweep.h"

struct msum;
struct scenario;

/* sweep.c */
void sweep_strv_free(char **v, size_t n);
/* Point i's scenario with its seed and reps. */
int sweep_point_load(const struct sweep *, size_t i, struct scenario *sc, uint64_t *seed,
    int *reps, struct vs_err *err);
/* Append " [sweep point N: PATH=V, ...]" to err's message; returns -1. */
int sweep_point_err(const struct sweep *, size_t i, struct vs_err *err);

/* sweep_csv.c */
/* The fields of one CSV line (quoted as results.csv writes them); their number. */
int sweep_csv_split(const char *line, char ***out);
/* The header line of results.csv and of every point file. */
char *sweep_header(const struct sweep *);
/* DIR/points/NNNNN.csv */
char *sweep_point_path(const char *dir, size_t i);
/* The file text of finished point i: header, then its row. */
char *sweep_point_text(const struct sweep *, size_t i, const struct msum *sum);
/* The row of finished point i, NULL if it is not done; *bad: exists but is not ours. */
char *sweep_point_row(const struct sweep *, const char *dir, size_t i, int *bad);
/* DIR/results.csv from every point file, in grid order. */
int sweep_results_write(const struct sweep *, const char *dir, struct vs_err *err);

/* sweep_dir.c */
/* The text of DIR/sweep.meta: what makes the sweep's results. */
int sweep_meta_text(const struct sweep *, char **out, struct vs_err *err);
/* Record the sweep in DIR/sweep.meta, or check that DIR holds this very sweep
 * (SWEEP_REFUSED when not); creates DIR/points. */
int sweep_meta_claim(const struct sweep *, const char *dir, struct vs_err *err);

#endif
