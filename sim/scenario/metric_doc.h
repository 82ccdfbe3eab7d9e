/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * metric_doc.h - every metric a run can print: its name pattern, unit and one
 * line of meaning, for `vlocksim list` and the man page.
 *
 * Patterns: VM is a vms[] entry's name, LOCK a lock of its workload, COUNTER
 * a `count:` name, R a `mark:` region; everything else is literal.
 * tests/check_metric_doc.c runs scenarios of both forms and fails when run.c
 * prints a metric no pattern here matches, so the table cannot fall behind.
 */
#ifndef VS_METRIC_DOC_H
#define VS_METRIC_DOC_H

struct metric_doc {
	const char *pattern, *unit, *what;
};

/* NULL-terminated. */
extern const struct metric_doc metric_docs[];
/* The entry whose pattern matches name, or NULL. */
const struct metric_doc *metric_doc_find(const char *name);

#endif
