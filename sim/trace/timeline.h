/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * timeline.h - a picture of a short window of one run (gnuplot PNG or SVG):
 * per vCPU a runstate band (running, runnable, blocked, offline) over a lock
 * band (waiting: spinning or halted; holding), with HLT, PLE, I/O and
 * hypercall exits and kicks marked.  Lock-holder preemption reads directly:
 * a "hold" bar under a "runnable" bar while other vCPUs spin.
 *
 * A struct probe consumer over the same events trace export uses (probe.h).
 * Data: FILE.dat beside the picture (index 0: bars "x0_us x1_us y kind",
 * index 1: marks "x_us y kind"); plots/timeline.gp draws it.
 */
#ifndef VS_TIMELINE_H
#define VS_TIMELINE_H

#include "evq.h"
#include "probe.h"
#include "util.h"

struct scenario;
struct timeline;

/* Lanes for sc's vCPUs; keep [from, to] (ns). */
struct timeline *timeline_new(const struct scenario *sc, sim_time_t from, sim_time_t to);
void timeline_free(struct timeline *);
const struct probe *timeline_probe(struct timeline *);
/* Write PATH.dat and draw PATH (its extension .png or .svg picks the
 * format); 1 if gnuplot is missing (nothing drawn), -1 on error. */
int timeline_write(struct timeline *, const char *path, const char *title,
    struct vs_err *err);
/* A picture path ends in .png or .svg. */
int timeline_path_ok(const char *path);

#endif
