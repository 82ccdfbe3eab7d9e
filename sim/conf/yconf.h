/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * yconf.h - a YAML document as a tree that remembers where every node came from.
 *
 * yc_load() reads a file with libyaml into maps, sequences and scalars, each
 * with its file, line and column (1-based).  Includes are resolved while
 * loading, relative to the including file:
 *   - a map entry `include: other.yaml` merges other.yaml's map under the
 *     entries written beside it (local entries win);
 *   - any unquoted scalar value ending in ".yaml" or ".yml" is replaced by
 *     that file's document (machine: machines/x5570.yaml); a quoted one
 *     stays a string (scenario: "../configs/x.yaml" names a file).
 * yc_set() applies a command-line override PATH=VALUE (vms[1].count=2,
 * hypervisor.ple.window=8192cycles) to the loaded tree.
 *
 * Readers (yc_get_*) mark the keys they read; yc_check_unused() then reports
 * the first key nobody read as "unknown key".  Every error names
 * FILE:LINE:COLUMN.
 */
#ifndef VS_YCONF_H
#define VS_YCONF_H

#include <stddef.h>
#include <stdint.h>

#include "units.h"
#include "util.h"

enum yc_kind { YC_SCALAR, YC_MAP, YC_SEQ };

struct yc_node {
	enum yc_kind kind;
	const char *file;	/* interned, lives as long as the document */
	int line, col;
	char *text;		/* scalar text (YC_SCALAR) */
	int quoted;		/* scalar was quoted: never a number */
	size_t n;		/* map entries or sequence items */
	char **keys;		/* YC_MAP: keys[i] */
	int *key_line, *key_col;
	struct yc_node **vals;	/* YC_MAP: vals[i]; YC_SEQ: vals[i] */
	unsigned char *used;	/* YC_MAP: key i was read */
	const char **key_file;	/* YC_MAP: where key i was written (includes
				 * and --set put keys from other files in a map) */
	size_t *hix, hcap;	/* YC_MAP: hash of the keys (1 + index; 0 free), or NULL */
};

struct yc_doc;

/* Load a file; NULL on error (err says where). */
struct yc_doc *yc_load(const char *path, struct vs_err *err);
/* Load from a string (tests); name is used in messages. */
struct yc_doc *yc_load_string(const char *name, const char *text, struct vs_err *err);
void yc_free(struct yc_doc *);
struct yc_node *yc_root(struct yc_doc *);
const char *yc_path(const struct yc_doc *);	/* the top file */

/* Apply "PATH=VALUE"; creates the last key if missing.  -1 on a bad path. */
int yc_set(struct yc_doc *, const char *assignment, struct vs_err *err);

/* Look-ups: return NULL if absent.  yc_find marks the key used. */
struct yc_node *yc_find(const struct yc_node *map, const char *key);
/* Follow a dotted path (a.b[2].c) without marking anything. */
struct yc_node *yc_lookup(struct yc_node *root, const char *path);

/* Typed readers of a map entry.  Absent key: *out = def and 0 (if def_ok),
 * else "missing key".  Present: checked for type and range.
 * def_ok: a required key is asked for with def = NULL (str), YC_REQUIRED_INT
 * (int), NAN (num, qty) or -1 (bool, enum).  map may be NULL (an absent
 * optional section): every key is then absent. */
#define YC_REQUIRED_INT INT64_MIN
int yc_get_str(const struct yc_node *map, const char *key, const char *def,
    const char **out, struct vs_err *err);
int yc_get_int(const struct yc_node *map, const char *key, int64_t def,
    int64_t min, int64_t max, int64_t *out, struct vs_err *err);
int yc_get_num(const struct yc_node *map, const char *key, double def,
    double min, double max, double *out, struct vs_err *err);
int yc_get_bool(const struct yc_node *map, const char *key, int def, int *out,
    struct vs_err *err);
/* A quantity with units (kind); hz converts cycles. def used when absent. */
int yc_get_qty(const struct yc_node *map, const char *key, enum unit_kind kind,
    double hz, double def, double min, double max, double *out, struct vs_err *err);
/* Choose one of a NULL-terminated list of names; *out = index. */
int yc_get_enum(const struct yc_node *map, const char *key, const char *const *names,
    int def, int *out, struct vs_err *err);

/* Node-level versions (for sequence items and shorthand values). */
int yc_node_int(const struct yc_node *n, int64_t min, int64_t max, int64_t *out,
    struct vs_err *err);
int yc_node_num(const struct yc_node *n, double min, double max, double *out,
    struct vs_err *err);
int yc_node_qty(const struct yc_node *n, enum unit_kind kind, double hz, double min,
    double max, double *out, struct vs_err *err);

/* Require a kind; the message names what was expected ("a mapping"). */
int yc_expect(const struct yc_node *n, enum yc_kind kind, const char *what,
    struct vs_err *err);
/* First unread key of map -> "unknown key 'x' (expected one of: ...)". */
int yc_check_unused(const struct yc_node *map, const char *expected, struct vs_err *err);
/* ... that message for key i of map. */
int yc_unknown_key(const struct yc_node *map, size_t i, const char *expected,
    struct vs_err *err);

/* A scalar naming a file, resolved against the directory of the file that
 * holds it (malloc'd). */
char *yc_node_path(const struct yc_node *n);

/* Error at a node's position. */
int yc_err(const struct yc_node *n, struct vs_err *err, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

#endif
