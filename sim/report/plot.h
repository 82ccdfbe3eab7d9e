/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * plot.h - run a gnuplot script from plots/ with variables set.
 *
 * Scripts are found along datadir.h's lookup order ($VLOCKSIM_DATADIR, else
 * beside the executable).  Without gnuplot, plotting is skipped with one
 * warning: results never depend on it.  A command checks plot_ready before it
 * simulates anything, so a missing script costs no run.
 */
#ifndef VS_PLOT_H
#define VS_PLOT_H

#include "util.h"

/* Path of plots/NAME, or NULL if not found (malloc'd). */
char *plot_script(const char *name);
/*
 * Can the scripts names[0..n) be run?  0 yes, 1 no gnuplot (plots will be
 * skipped), -1 a script is missing: err says where it was looked for.
 */
int plot_ready(const char *const *names, int n, struct vs_err *err);
/* gnuplot -e "VARS" SCRIPT; 1 if gnuplot is missing (skipped), 0 ok, -1 error. */
int plot_run(const char *script_name, const char *vars, struct vs_err *err);
/*
 * After plot_run: BASE.png and BASE.svg (what every plots/ script writes)
 * exist and are whole - gnuplot exits 0 even when a full disk truncated them,
 * so the PNG must end with its IEND chunk and the SVG with </svg>.
 */
int plot_check_outputs(const char *base, struct vs_err *err);
/* Quote s as a gnuplot string literal ('...' with '' for '). Malloc'd. */
char *plot_quote(const char *s);

#endif
