/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * datadir.h - where the shipped scenarios, cases and plot scripts are found.
 *
 * Lookup order for a relative name REL (e.g. "plots/case.gp"):
 *   1. $VLOCKSIM_DATADIR/REL, when that variable is set (tests, uninstalled
 *      VPATH builds);
 *   2. ./REL, so a checkout works from its own top directory;
 *   3. $(datadir)/vlocksim/REL, the installed copy.
 * The binary carries no build-tree path (a Debian reproducible-build rule):
 * only the configured $(datadir)/vlocksim.
 */
#ifndef VS_DATADIR_H
#define VS_DATADIR_H

/* The installed data directory, $(datadir)/vlocksim. */
const char *vs_datadir(void);
/* The first readable candidate for REL (malloc'd), or NULL. */
char *vs_data_find(const char *rel);
/*
 * A scenario named on the command line: ARG if it is a readable file, else a
 * bare NAME (no '/') found as configs/examples/NAME.yaml along the lookup
 * order ("vlocksim run ticket-4threads").  Malloc'd; ARG itself when nothing
 * matches, so the caller's "cannot open" message names what the user typed.
 */
char *vs_scenario_find(const char *arg);

#endif
