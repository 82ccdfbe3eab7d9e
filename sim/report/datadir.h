/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * datadir.h - where the shipped scenarios, cases and plot scripts are found.
 *
 * Data belongs to the binary that runs, wherever it was put: a relative name
 * REL (e.g. "plots/case.gp") is looked up
 *   1. in $VLOCKSIM_DATADIR alone, when that variable is set and not empty;
 *   2. else beside the executable (/proc/self/exe, symlinks resolved):
 *      a. EXEDIR/REL, the top of the build tree an in-tree binary sits in;
 *      b. EXEDIR/../share/vlocksim/REL, an installed binary's data, so that
 *         `make install prefix=P` can be moved anywhere;
 *      c. $(datadir)/vlocksim/REL as configured, when the binary cannot see
 *         its own path (no /proc) or bindir and datadir were set apart.
 * The binary carries no build-tree path (a Debian reproducible-build rule):
 * only the configured $(datadir)/vlocksim.  The current directory is never
 * searched: what a binary reads does not depend on where it is run from.
 */
#ifndef VS_DATADIR_H
#define VS_DATADIR_H

/* The folder the data is read from: the first of the lookup order that holds
 * the shipped examples (configs/examples); NULL when none does. */
const char *vs_datadir(void);
/* The first readable candidate for REL (malloc'd), or NULL. */
char *vs_data_find(const char *rel);
/*
 * Where REL was looked for, for an error message (malloc'd): "looked in
 * A/REL, B/REL; set VLOCKSIM_DATADIR to the folder that holds configs/,
 * plots/ and validation/".
 */
char *vs_data_where(const char *rel);
/*
 * A scenario named on the command line: ARG itself if it is a readable file
 * or holds a '/' (the loader's "cannot open" then names it); else a bare NAME
 * found as configs/examples/NAME.yaml (or NAME itself when it ends in .yaml)
 * along the lookup order ("vlocksim run ticket-4threads").  Malloc'd; NULL
 * when a bare NAME is nowhere, with *why (malloc'd) naming where it looked.
 */
char *vs_scenario_find(const char *arg, char **why);

#endif
