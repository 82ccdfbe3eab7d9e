/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * yconf.c - YAML scenarios as a tree of positioned nodes.
 *
 * Built from libyaml's event API so every node keeps the position it was
 * written at.  All nodes of a document are kept in one list and freed from
 * there, which lets aliases and includes share nodes without ownership
 * games: an alias is the anchored node itself (so --set through one name is
 * seen through the other).
 */
#include "yconf.h"
#include "engine.h"

#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <yaml.h>

#define YC_MAX_INCLUDE	16	/* include nesting limit (also stops cycles) */
#define YC_MAX_NEST	256	/* collection nesting limit: protects the stack */
#define SET_FILE	"--set"

struct yc_doc {
	struct yc_node *root;
	char *path;
	char **files;		/* interned file names */
	size_t nfiles, capfiles;
	struct yc_node **nodes;	/* every node, for yc_free */
	size_t nnodes, capnodes;
};

struct anchor {
	char *name;
	struct yc_node *node;
};

/* One file (or string) being parsed; parents form the include chain. */
struct ld {
	struct yc_doc *doc;
	yaml_parser_t p;
	const char *file;	/* interned */
	char *dir;		/* includes are relative to this */
	char *real;		/* canonical path, for cycle checks; may be NULL */
	const struct ld *parent;
	int depth;		/* include depth */
	int nest;		/* collection depth */
	int col_off;		/* --set: column of the value in the assignment */
	int end_col;		/* --set: column just past the value */
	struct anchor *anchors;
	size_t nanchors, capanchors;
	size_t *ahix, ahcap;	/* anchor names hashed: 1 + the latest index */
	const char *text;	/* a string's input (else the file is l->file) */
	struct vs_err *err;
};

/* Path segment of "a.b[2].c". */
struct seg {
	const char *name;	/* NULL for an index */
	size_t len;
	size_t index;
	size_t off;		/* offset in the path, for positions */
};

static struct yc_node *load_file(struct yc_doc *, const char *, const char *,
    const struct ld *, const struct yc_node *, struct vs_err *);
static struct yc_node *parse_node(struct ld *, yaml_event_t *);

static const char *
intern(struct yc_doc *doc, const char *name)
{
	size_t i;

	for (i = 0; i < doc->nfiles; i++)
		if (strcmp(doc->files[i], name) == 0)
			return doc->files[i];
	VS_GROW(doc->files, doc->capfiles, doc->nfiles);
	doc->files[doc->nfiles] = xstrdup(name);
	return doc->files[doc->nfiles++];
}

static struct yc_node *
new_node(struct yc_doc *doc, enum yc_kind kind, const char *file, int line, int col)
{
	struct yc_node *n = xcalloc(1, sizeof *n);

	n->kind = kind;
	n->file = file;
	n->line = line;
	n->col = col;
	VS_GROW(doc->nodes, doc->capnodes, doc->nnodes);
	doc->nodes[doc->nnodes++] = n;
	return n;
}

static void
free_node(struct yc_node *n)
{
	size_t i;

	free(n->text);
	if (n->kind == YC_MAP)
		for (i = 0; i < n->n; i++)
			free(n->keys[i]);
	free(n->keys);
	free(n->key_line);
	free(n->key_col);
	free(n->key_file);
	free(n->vals);
	free(n->used);
	free(n->hix);
	free(n);
}

/* Room for item n of a map or sequence; arrays grow at powers of two. */
static void
coll_reserve(struct yc_node *c)
{
	size_t n = c->n, cap;

	if (n != 0 && (n & (n - 1)) != 0)
		return;
	cap = n < 4 ? 4 : n * 2;
	c->vals = xrealloc(c->vals, cap * sizeof *c->vals);
	if (c->kind != YC_MAP)
		return;
	c->keys = xrealloc(c->keys, cap * sizeof *c->keys);
	c->key_line = xrealloc(c->key_line, cap * sizeof *c->key_line);
	c->key_col = xrealloc(c->key_col, cap * sizeof *c->key_col);
	c->key_file = xrealloc(c->key_file, cap * sizeof *c->key_file);
	c->used = xrealloc(c->used, cap * sizeof *c->used);
}

/* FNV-1a: maps and anchors are hashed, so 10^5 keys load in linear time. */
static size_t
str_hash(const char *s, size_t len)
{
	uint64_t h = 14695981039346656037ULL;
	size_t i;

	for (i = 0; i < len; i++)
		h = (h ^ (unsigned char)s[i]) * 1099511628211ULL;
	return (size_t)h;
}

#define MAP_HASH_MIN 8		/* smaller maps are scanned */

static void
map_hash_put(struct yc_node *m, size_t i)
{
	size_t j = str_hash(m->keys[i], strlen(m->keys[i])) & (m->hcap - 1);

	while (m->hix[j] != 0)
		j = (j + 1) & (m->hcap - 1);
	m->hix[j] = i + 1;
}

static void
map_hash_build(struct yc_node *m)
{
	size_t i;

	free(m->hix);
	for (m->hcap = 16; m->hcap < m->n * 2; m->hcap *= 2)
		;
	m->hcap *= 2;
	m->hix = xcalloc(m->hcap, sizeof *m->hix);
	for (i = 0; i < m->n; i++)		/* in order: a probe meets the first key first */
		map_hash_put(m, i);
}

/* Takes ownership of key. */
static void
map_add(struct yc_node *m, char *key, const char *kfile, int kline, int kcol,
    struct yc_node *val)
{
	coll_reserve(m);
	m->keys[m->n] = key;
	m->key_file[m->n] = kfile;
	m->key_line[m->n] = kline;
	m->key_col[m->n] = kcol;
	m->used[m->n] = 0;
	m->vals[m->n++] = val;
	if (m->hix != NULL) {
		if (m->n * 2 > m->hcap)
			map_hash_build(m);
		else
			map_hash_put(m, m->n - 1);
	}
}

static void
seq_add(struct yc_node *s, struct yc_node *val)
{
	coll_reserve(s);
	s->vals[s->n++] = val;
}

static long
map_index(const struct yc_node *m, const char *key, size_t len)
{
	size_t i;

	if (m == NULL || m->kind != YC_MAP)
		return -1;
	if (m->n > MAP_HASH_MIN) {
		struct yc_node *w = (struct yc_node *)m;	/* the index is a cache */

		if (w->hix == NULL)
			map_hash_build(w);
		for (i = str_hash(key, len) & (m->hcap - 1); m->hix[i] != 0;
		    i = (i + 1) & (m->hcap - 1)) {
			const char *k = m->keys[m->hix[i] - 1];

			if (strncmp(k, key, len) == 0 && k[len] == '\0')
				return (long)(m->hix[i] - 1);
		}
		return -1;
	}
	for (i = 0; i < m->n; i++)
		if (strncmp(m->keys[i], key, len) == 0 && m->keys[i][len] == '\0')
			return (long)i;
	return -1;
}

static char *
dir_of(const char *path)
{
	const char *sl = strrchr(path, '/');

	if (sl == NULL)
		return xstrdup(".");
	if (sl == path)
		return xstrdup("/");
	return xstrndup(path, (size_t)(sl - path));
}

static char *
join_path(const char *dir, const char *rel)
{
	if (rel[0] == '/' || strcmp(dir, ".") == 0)
		return xstrdup(rel);
	return xasprintf("%s/%s", dir, rel);
}

static int
ends_with(const char *s, const char *suf)
{
	size_t a = strlen(s), b = strlen(suf);

	return a >= b && strcmp(s + a - b, suf) == 0;
}

/* ---- parsing ---- */

/*
 * An override is one line; libyaml puts its end-of-input on line 2, so
 * clamp that to the end of the value.
 */
static int
mark_line(const struct ld *l, yaml_mark_t m)
{
	return l->end_col > 0 ? 1 : (int)m.line + 1;
}

static int
mark_col(const struct ld *l, yaml_mark_t m)
{
	if (l->end_col > 0)
		return m.line == 0 ? (int)m.column + 1 + l->col_off : l->end_col;
	return (int)m.column + 1;
}

/* Line and column (1-based) of byte off of l's input (a file, or l->text). */
static void
offset_pos(const struct ld *l, size_t off, int *line, int *col)
{
	FILE *f = l->text != NULL ? NULL : fopen(l->file, "rb");
	size_t i;
	int c;

	for (i = 0; i < off; i++) {
		c = l->text != NULL ? (unsigned char)l->text[i] : f != NULL ? getc(f) : EOF;
		if (c == EOF || c == '\0')
			break;
		if (c == '\n') {
			(*line)++;
			*col = 1;
		} else if ((c & 0xc0) != 0x80)	/* UTF-8: count characters */
			(*col)++;
	}
	if (f != NULL)
		fclose(f);
	if (l->text != NULL)		/* --set: columns of the assignment */
		*col += l->col_off;
}

static int
syntax_error(struct ld *l)
{
	yaml_parser_t *p = &l->p;

	if (p->error == YAML_MEMORY_ERROR)
		vs_fatal("libyaml: out of memory");
	if (p->error == YAML_READER_ERROR) {
		/* the reader knows only a byte offset: count lines up to it */
		int line = 1, col = 1;

		offset_pos(l, p->problem_offset, &line, &col);
		return vs_errf(l->err, l->file, line, col, "cannot read YAML: %s (byte %zu)",
		    p->problem ? p->problem : "input error", p->problem_offset);
	}
	return vs_errf(l->err, l->file, mark_line(l, p->problem_mark),
	    mark_col(l, p->problem_mark), "YAML syntax error: %s%s%s",
	    p->problem ? p->problem : "unknown error", p->context ? " " : "",
	    p->context ? p->context : "");
}

static int
next_event(struct ld *l, yaml_event_t *ev)
{
	if (!yaml_parser_parse(&l->p, ev))
		return syntax_error(l);
	return 0;
}

static void
add_anchor(struct ld *l, const char *name, struct yc_node *n)
{
	size_t i, j;

	VS_GROW(l->anchors, l->capanchors, l->nanchors);
	l->anchors[l->nanchors].name = xstrdup(name);
	l->anchors[l->nanchors++].node = n;
	if (l->nanchors * 2 > l->ahcap) {
		free(l->ahix);
		for (l->ahcap = l->ahcap ? l->ahcap * 2 : 64; l->nanchors * 2 > l->ahcap;
		    l->ahcap *= 2)
			;
		l->ahix = xcalloc(l->ahcap, sizeof *l->ahix);
		for (i = 0; i < l->nanchors; i++)
			for (j = str_hash(l->anchors[i].name, strlen(l->anchors[i].name)) &
			    (l->ahcap - 1); ; j = (j + 1) & (l->ahcap - 1))
				if (l->ahix[j] == 0 ||
				    strcmp(l->anchors[l->ahix[j] - 1].name, l->anchors[i].name) == 0) {
					l->ahix[j] = i + 1;	/* a redefinition replaces */
					break;
				}
		return;
	}
	for (j = str_hash(name, strlen(name)) & (l->ahcap - 1); ; j = (j + 1) & (l->ahcap - 1))
		if (l->ahix[j] == 0 || strcmp(l->anchors[l->ahix[j] - 1].name, name) == 0) {
			l->ahix[j] = l->nanchors;
			return;
		}
}

static struct yc_node *
find_anchor(const struct ld *l, const char *name)
{
	size_t j;

	/* The latest definition: YAML lets an anchor be redefined. */
	if (l->ahix == NULL)
		return NULL;
	for (j = str_hash(name, strlen(name)) & (l->ahcap - 1); l->ahix[j] != 0;
	    j = (j + 1) & (l->ahcap - 1))
		if (strcmp(l->anchors[l->ahix[j] - 1].name, name) == 0)
			return l->anchors[l->ahix[j] - 1].node;
	return NULL;
}

/* Is canonical path real already being loaded up the include chain? */
static int
in_chain(const struct ld *l, const char *real)
{
	for (; l != NULL; l = l->parent)
		if (l->real != NULL && strcmp(l->real, real) == 0)
			return 1;
	return 0;
}

static int
cycle_error(const struct ld *l, const struct yc_node *at, const char *path)
{
	const char *chain[YC_MAX_INCLUDE + 2];
	char buf[VS_ERR_MAX / 2];
	size_t n = 0, off = 0;
	const struct ld *p;

	for (p = l; p != NULL && n < YC_MAX_INCLUDE + 1; p = p->parent)
		chain[n++] = p->file;
	buf[0] = '\0';
	while (n-- > 0 && off < sizeof buf)
		off += (size_t)snprintf(buf + off, sizeof buf - off, "%s -> ", chain[n]);
	return yc_err(at, l->err, "include cycle: %s%s", buf, path);
}

/* A scalar value naming a .yaml file becomes that file's document. */
static struct yc_node *
resolve_value(struct ld *l, struct yc_node *n)
{
	struct yc_node *r;
	char *path, *real;

	if (n->kind != YC_SCALAR || n->quoted ||
	    !(ends_with(n->text, ".yaml") || ends_with(n->text, ".yml")))
		return n;
	if (l->depth + 1 > YC_MAX_INCLUDE) {
		yc_err(n, l->err, "includes nested more than %d deep", YC_MAX_INCLUDE);
		return NULL;
	}
	path = join_path(l->dir, n->text);
	if ((real = realpath(path, NULL)) == NULL) {
		yc_err(n, l->err, "cannot read include '%s': %s", n->text, strerror(errno));
		free(path);
		return NULL;
	}
	if (in_chain(l, real)) {
		cycle_error(l, n, path);
		free(real);
		free(path);
		return NULL;
	}
	r = load_file(l->doc, path, real, l, n, l->err);
	free(real);
	free(path);
	return r;
}

/*
 * Replace the map's `include:` entry by the entries of the included
 * map(s).  Precedence: local entries, then later includes, then earlier.
 */
static int
merge_includes(struct ld *l, struct yc_node *m)
{
	struct yc_node *inc, *src;
	long k = map_index(m, "include", strlen("include"));
	size_t i, j, nsrc;

	if (k < 0)
		return 0;
	inc = m->vals[k];
	if (inc->kind == YC_SCALAR)
		return yc_err(inc, l->err, "include: expected a .yaml or .yml file name, got '%s'",
		    inc->text);
	if (inc->kind == YC_SEQ)
		for (i = 0; i < inc->n; i++)
			if (inc->vals[i]->kind != YC_MAP)
				return yc_err(inc->vals[i], l->err,
				    "include: expected a mapping to include, got %s",
				    inc->vals[i]->kind == YC_SEQ ? "a sequence" : "a scalar");

	free(m->keys[k]);
	for (i = (size_t)k; i + 1 < m->n; i++) {
		m->keys[i] = m->keys[i + 1];
		m->key_file[i] = m->key_file[i + 1];
		m->key_line[i] = m->key_line[i + 1];
		m->key_col[i] = m->key_col[i + 1];
		m->used[i] = m->used[i + 1];
		m->vals[i] = m->vals[i + 1];
	}
	m->n--;
	free(m->hix);		/* indices moved: rebuilt on the next look-up */
	m->hix = NULL;

	nsrc = inc->kind == YC_MAP ? 1 : inc->n;
	for (j = nsrc; j-- > 0;) {
		src = inc->kind == YC_MAP ? inc : inc->vals[j];
		for (i = 0; i < src->n; i++) {
			if (map_index(m, src->keys[i], strlen(src->keys[i])) >= 0)
				continue;
			map_add(m, xstrdup(src->keys[i]), src->key_file[i],
			    src->key_line[i], src->key_col[i], src->vals[i]);
		}
	}
	return 0;
}

static struct yc_node *
parse_scalar(struct ld *l, yaml_event_t *ev)
{
	struct yc_node *n;
	const char *tag = (const char *)ev->data.scalar.tag;

	/* A "\0" escape: every key, name and value is a C string, which the NUL
	 * would cut short ("seed\0junk" read as seed) */
	if (memchr(ev->data.scalar.value, '\0', ev->data.scalar.length) != NULL) {
		vs_errf(l->err, l->file, mark_line(l, ev->start_mark), mark_col(l, ev->start_mark),
		    "a NUL character (\\0) in a string: keys, names and values cannot hold one");
		return NULL;
	}
	n = new_node(l->doc, YC_SCALAR, l->file, mark_line(l, ev->start_mark),
	    mark_col(l, ev->start_mark));
	n->text = xstrndup((const char *)ev->data.scalar.value, ev->data.scalar.length);
	/* Quoted, block or !!str scalars are strings, never numbers. */
	n->quoted = ev->data.scalar.style != YAML_PLAIN_SCALAR_STYLE ||
	    (tag != NULL && strcmp(tag, YAML_STR_TAG) == 0);
	if (ev->data.scalar.anchor != NULL)
		add_anchor(l, (const char *)ev->data.scalar.anchor, n);
	return n;
}

static struct yc_node *
parse_seq(struct ld *l, yaml_event_t *ev)
{
	struct yc_node *n, *item;
	yaml_event_t e;
	char *anchor = NULL;

	n = new_node(l->doc, YC_SEQ, l->file, mark_line(l, ev->start_mark),
	    mark_col(l, ev->start_mark));
	if (ev->data.sequence_start.anchor != NULL)
		anchor = xstrdup((const char *)ev->data.sequence_start.anchor);
	for (;;) {
		if (next_event(l, &e) == -1)
			goto fail;
		if (e.type == YAML_SEQUENCE_END_EVENT) {
			yaml_event_delete(&e);
			break;
		}
		if ((item = parse_node(l, &e)) == NULL ||
		    (item = resolve_value(l, item)) == NULL)
			goto fail;
		seq_add(n, item);
	}
	/* Registered only when complete: a self-referencing alias is unknown. */
	if (anchor != NULL)
		add_anchor(l, anchor, n);
	free(anchor);
	return n;
fail:
	free(anchor);
	return NULL;
}

static struct yc_node *
parse_map(struct ld *l, yaml_event_t *ev)
{
	struct yc_node *n, *k, *v;
	yaml_event_t e;
	char *anchor = NULL;
	int kline, kcol;
	long dup;

	n = new_node(l->doc, YC_MAP, l->file, mark_line(l, ev->start_mark),
	    mark_col(l, ev->start_mark));
	if (ev->data.mapping_start.anchor != NULL)
		anchor = xstrdup((const char *)ev->data.mapping_start.anchor);
	for (;;) {
		if (next_event(l, &e) == -1)
			goto fail;
		if (e.type == YAML_MAPPING_END_EVENT) {
			yaml_event_delete(&e);
			break;
		}
		kline = mark_line(l, e.start_mark);
		kcol = mark_col(l, e.start_mark);
		if ((k = parse_node(l, &e)) == NULL)
			goto fail;
		if (k->kind != YC_SCALAR) {
			vs_errf(l->err, l->file, kline, kcol,
			    "mapping keys must be scalars, got %s",
			    k->kind == YC_MAP ? "a mapping" : "a sequence");
			goto fail;
		}
		if ((dup = map_index(n, k->text, strlen(k->text))) >= 0) {
			vs_errf(l->err, l->file, kline, kcol,
			    "duplicate key '%s' (first at line %d, column %d)",
			    k->text, n->key_line[dup], n->key_col[dup]);
			goto fail;
		}
		if (next_event(l, &e) == -1)
			goto fail;
		if ((v = parse_node(l, &e)) == NULL ||
		    (v = resolve_value(l, v)) == NULL)
			goto fail;
		map_add(n, xstrdup(k->text), l->file, kline, kcol, v);
	}
	if (merge_includes(l, n) == -1)
		goto fail;
	if (anchor != NULL)
		add_anchor(l, anchor, n);
	free(anchor);
	return n;
fail:
	free(anchor);
	return NULL;
}

/* Build the node starting with event ev (consumed). */
static struct yc_node *
parse_node(struct ld *l, yaml_event_t *ev)
{
	struct yc_node *n = NULL;

	switch (ev->type) {
	case YAML_SCALAR_EVENT:
		n = parse_scalar(l, ev);
		break;
	case YAML_SEQUENCE_START_EVENT:
	case YAML_MAPPING_START_EVENT:
		if (l->nest >= YC_MAX_NEST) {
			vs_errf(l->err, l->file, mark_line(l, ev->start_mark),
			    mark_col(l, ev->start_mark),
			    "nested more than %d levels deep", YC_MAX_NEST);
			break;
		}
		l->nest++;
		n = ev->type == YAML_SEQUENCE_START_EVENT ? parse_seq(l, ev) :
		    parse_map(l, ev);
		l->nest--;
		break;
	case YAML_ALIAS_EVENT:
		n = find_anchor(l, (const char *)ev->data.alias.anchor);
		if (n == NULL)
			vs_errf(l->err, l->file, mark_line(l, ev->start_mark),
			    mark_col(l, ev->start_mark), "unknown alias '*%s'",
			    (const char *)ev->data.alias.anchor);
		break;
	default:
		vs_errf(l->err, l->file, mark_line(l, ev->start_mark),
		    mark_col(l, ev->start_mark), "unexpected YAML event %d", (int)ev->type);
		break;
	}
	yaml_event_delete(ev);
	return n;
}

/*
 * Parse the single document of a stream.  An empty stream is an empty map
 * (a file) or an empty scalar (a --set value).  as_value: the root is a
 * value, so a .yaml name in it is an include.
 */
static struct yc_node *
parse_stream(struct ld *l, int as_value)
{
	yaml_event_t e;
	struct yc_node *root = NULL;

	if (next_event(l, &e) == -1)
		return NULL;
	VS_ASSERT(e.type == YAML_STREAM_START_EVENT);
	yaml_event_delete(&e);
	if (next_event(l, &e) == -1)
		return NULL;
	if (e.type == YAML_STREAM_END_EVENT) {
		yaml_event_delete(&e);
		if (as_value) {
			root = new_node(l->doc, YC_SCALAR, l->file, 1, 1 + l->col_off);
			root->text = xstrdup("");
		} else
			root = new_node(l->doc, YC_MAP, l->file, 1, 1);
		return root;
	}
	VS_ASSERT(e.type == YAML_DOCUMENT_START_EVENT);
	yaml_event_delete(&e);
	if (next_event(l, &e) == -1 || (root = parse_node(l, &e)) == NULL)
		return NULL;
	if (as_value && (root = resolve_value(l, root)) == NULL)
		return NULL;
	if (next_event(l, &e) == -1)
		return NULL;
	VS_ASSERT(e.type == YAML_DOCUMENT_END_EVENT);
	yaml_event_delete(&e);
	if (next_event(l, &e) == -1)
		return NULL;
	if (e.type != YAML_STREAM_END_EVENT) {
		vs_errf(l->err, l->file, mark_line(l, e.start_mark),
		    mark_col(l, e.start_mark), "only one YAML document is allowed");
		yaml_event_delete(&e);
		return NULL;
	}
	yaml_event_delete(&e);
	return root;
}

static void
ld_init(struct ld *l, struct yc_doc *doc, const char *file, const char *dir,
    const char *real, const struct ld *parent, struct vs_err *err)
{
	memset(l, 0, sizeof *l);
	l->doc = doc;
	l->file = intern(doc, file);
	l->dir = xstrdup(dir);
	l->real = real != NULL ? xstrdup(real) : NULL;
	l->parent = parent;
	l->depth = parent != NULL ? parent->depth + 1 : 0;
	l->err = err;
	if (!yaml_parser_initialize(&l->p))
		vs_fatal("libyaml: cannot initialise parser");
}

static void
ld_done(struct ld *l)
{
	size_t i;

	yaml_parser_delete(&l->p);
	for (i = 0; i < l->nanchors; i++)
		free(l->anchors[i].name);
	free(l->anchors);
	free(l->ahix);
	free(l->dir);
	free(l->real);
}

/* at: the include scalar (NULL for the top file). */
static struct yc_node *
load_file(struct yc_doc *doc, const char *path, const char *real,
    const struct ld *parent, const struct yc_node *at, struct vs_err *err)
{
	struct ld l;
	struct yc_node *root;
	const char *why;
	FILE *f;
	char *dir;

	/* A regular file only: a FIFO would hang the open, a folder the read */
	if ((f = vs_fopen_regular(path, &why)) == NULL) {
		if (at != NULL)
			yc_err(at, err, "cannot read include '%s': %s", at->text, why);
		else
			vs_errf(err, NULL, 0, 0, "%s: cannot open scenario: %s", path, why);
		return NULL;
	}
	dir = dir_of(path);
	ld_init(&l, doc, path, dir, real, parent, err);
	free(dir);
	yaml_parser_set_input_file(&l.p, f);
	root = parse_stream(&l, 0);
	ld_done(&l);
	fclose(f);
	if (root == NULL && at != NULL && strstr(err->msg, " (included at ") == NULL &&
	    (strstr(err->msg, ": cannot read YAML: ") != NULL ||
	    strstr(err->msg, ": YAML syntax error: ") != NULL)) {
		/* the include site too: the file may be shared by many scenarios */
		size_t n = strlen(err->msg);

		snprintf(err->msg + n, sizeof err->msg - n, " (included at %s:%d:%d)",
		    at->file ? at->file : "?", at->line, at->col);
	}
	return root;
}

static struct yc_doc *
doc_new(const char *path)
{
	struct yc_doc *doc = xcalloc(1, sizeof *doc);

	doc->path = xstrdup(path);
	return doc;
}

struct yc_doc *
yc_load(const char *path, struct vs_err *err)
{
	struct yc_doc *doc = doc_new(path);
	char *real = realpath(path, NULL);

	doc->root = load_file(doc, path, real, NULL, NULL, err);
	free(real);
	if (doc->root == NULL) {
		yc_free(doc);
		return NULL;
	}
	return doc;
}

struct yc_doc *
yc_load_string(const char *name, const char *text, struct vs_err *err)
{
	struct yc_doc *doc = doc_new(name);
	struct ld l;
	char *dir = dir_of(name);
	char *real = realpath(name, NULL);

	ld_init(&l, doc, name, dir, real, NULL, err);
	free(dir);
	free(real);
	yaml_parser_set_input_string(&l.p, (const unsigned char *)text, strlen(text));
	l.text = text;
	doc->root = parse_stream(&l, 0);
	ld_done(&l);
	if (doc->root == NULL) {
		yc_free(doc);
		return NULL;
	}
	return doc;
}

void
yc_free(struct yc_doc *doc)
{
	size_t i;

	if (doc == NULL)
		return;
	for (i = 0; i < doc->nnodes; i++)
		free_node(doc->nodes[i]);
	free(doc->nodes);
	for (i = 0; i < doc->nfiles; i++)
		free(doc->files[i]);
	free(doc->files);
	free(doc->path);
	free(doc);
}

struct yc_node *
yc_root(struct yc_doc *doc)
{
	return doc->root;
}

const char *
yc_path(const struct yc_doc *doc)
{
	return doc->path;
}

/* ---- paths and overrides ---- */

/*
 * Split "a.b[2].c" into segments.  Returns the count, or -1 with a short
 * reason in *why.
 */
static int
parse_path(const char *path, struct seg **out, const char **why)
{
	struct seg *segs = NULL;
	size_t n = 0, cap = 0;
	const char *p = path, *q;
	char *end;
	int need_name = 1;

	*out = NULL;
	if (*p == '\0') {
		*why = "empty path";
		return -1;
	}
	while (*p != '\0') {
		VS_GROW(segs, cap, n);
		segs[n].off = (size_t)(p - path);
		if (*p == '[') {
			if (!isdigit((unsigned char)p[1])) {
				*why = "expected a number after '['";
				goto fail;
			}
			errno = 0;
			unsigned long long v = strtoull(p + 1, &end, 10);
			if (*end != ']' || errno != 0) {
				*why = "expected [N]";
				goto fail;
			}
			segs[n].name = NULL;
			segs[n].index = (size_t)v;
			n++;
			p = end + 1;
			need_name = 0;
			continue;
		}
		if (*p == '.') {
			if (need_name) {
				*why = "empty key";
				goto fail;
			}
			p++;
			need_name = 1;
			if (*p == '\0' || *p == '.' || *p == '[') {
				*why = "empty key";
				goto fail;
			}
			continue;
		}
		if (!need_name) {
			*why = "expected '.' or '[' after ']'";
			goto fail;
		}
		for (q = p; *q != '\0' && *q != '.' && *q != '['; q++)
			;
		segs[n].name = p;
		segs[n].len = (size_t)(q - p);
		n++;
		p = q;
		need_name = 0;
	}
	*out = segs;
	return (int)n;
fail:
	free(segs);
	return -1;
}

struct yc_node *
yc_lookup(struct yc_node *root, const char *path)
{
	struct seg *segs;
	const char *why;
	struct yc_node *cur = root;
	int n, i;
	long k;

	if (root == NULL || (n = parse_path(path, &segs, &why)) < 0)
		return NULL;
	for (i = 0; i < n && cur != NULL; i++) {
		if (segs[i].name != NULL) {
			k = map_index(cur, segs[i].name, segs[i].len);
			cur = k >= 0 ? cur->vals[k] : NULL;
		} else if (cur->kind == YC_SEQ && segs[i].index < cur->n)
			cur = cur->vals[segs[i].index];
		else
			cur = NULL;
	}
	free(segs);
	return cur;
}

/* Parse the VALUE of an override as YAML; includes are relative to cwd. */
static struct yc_node *
parse_set_value(struct yc_doc *doc, const char *value, int col_off,
    struct vs_err *err)
{
	struct ld l;
	struct yc_node *root;

	ld_init(&l, doc, SET_FILE, ".", NULL, NULL, err);
	l.col_off = col_off;
	l.end_col = col_off + (int)strlen(value) + 1;
	yaml_parser_set_input_string(&l.p, (const unsigned char *)value, strlen(value));
	l.text = value;
	root = parse_stream(&l, 1);
	ld_done(&l);
	return root;
}

int
yc_set(struct yc_doc *doc, const char *assignment, struct vs_err *err)
{
	const char *eq = strchr(assignment, '='), *why = NULL, *sf;
	struct seg *segs = NULL;
	struct yc_node *cur, *val, *nm;
	char *path;
	int n, i, last, rc = -1;
	long k;

	if (eq == NULL || eq == assignment)
		return vs_errf(err, NULL, 0, 0, SET_FILE ": '%s': expected PATH=VALUE",
		    assignment);
	path = xstrndup(assignment, (size_t)(eq - assignment));
	if ((n = parse_path(path, &segs, &why)) < 0) {
		vs_errf(err, NULL, 0, 0, SET_FILE ": %s: %s", path, why);
		goto out;
	}
	if ((val = parse_set_value(doc, eq + 1, (int)(eq + 1 - assignment), err)) == NULL)
		goto out;
	sf = intern(doc, SET_FILE);
	cur = doc->root;
	for (i = 0; i < n; i++) {
		last = i == n - 1;
		if (segs[i].name != NULL) {
			if (cur->kind != YC_MAP) {
				if (i == 0)
					vs_errf(err, NULL, 0, 0, SET_FILE
					    ": %s: the document is not a mapping", path);
				else
					vs_errf(err, NULL, 0, 0, SET_FILE
					    ": %s: '%.*s' is not a mapping", path,
					    (int)segs[i].off - 1, path);
				goto out;
			}
			k = map_index(cur, segs[i].name, segs[i].len);
			if (k >= 0 && last) {
				cur->vals[k] = val;
				cur->used[k] = 0;
			} else if (k >= 0)
				cur = cur->vals[k];
			else if (last)
				map_add(cur, xstrndup(segs[i].name, segs[i].len), sf, 1,
				    (int)segs[i].off + 1, val);
			else if (segs[i + 1].name == NULL) {
				vs_errf(err, NULL, 0, 0, SET_FILE ": %s: '%.*s' does not exist",
				    path, (int)(segs[i].off + segs[i].len), path);
				goto out;
			} else {
				/* Created so the readers see (and judge) it. */
				nm = new_node(doc, YC_MAP, sf, 1, (int)segs[i].off + 1);
				map_add(cur, xstrndup(segs[i].name, segs[i].len), sf, 1,
				    (int)segs[i].off + 1, nm);
				cur = nm;
			}
		} else {
			if (cur->kind != YC_SEQ) {
				if (i == 0)
					vs_errf(err, NULL, 0, 0, SET_FILE
					    ": %s: the document is not a sequence", path);
				else
					vs_errf(err, NULL, 0, 0, SET_FILE
					    ": %s: '%.*s' is not a sequence", path,
					    (int)segs[i].off, path);
				goto out;
			}
			if (segs[i].index >= cur->n) {
				vs_errf(err, NULL, 0, 0,
				    SET_FILE ": %s: index %zu out of range (%zu items)",
				    path, segs[i].index, cur->n);
				goto out;
			}
			if (last)
				cur->vals[segs[i].index] = val;
			else
				cur = cur->vals[segs[i].index];
		}
	}
	rc = 0;
out:
	free(segs);
	free(path);
	return rc;
}

/* ---- readers ---- */

int
yc_err(const struct yc_node *n, struct vs_err *err, const char *fmt, ...)
{
	char buf[VS_ERR_MAX];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof buf, fmt, ap);
	va_end(ap);
	if (n == NULL)
		return vs_errf(err, NULL, 0, 0, "%s", buf);
	return vs_errf(err, n->file, n->line, n->col, "%s", buf);
}

static const char *
kind_desc(enum yc_kind k)
{
	switch (k) {
	case YC_MAP:
		return "a mapping";
	case YC_SEQ:
		return "a sequence";
	case YC_SCALAR:
		break;
	}
	return "a scalar";
}

/* What a wrong value was, for "got ...". */
static const char *
got_desc(const struct yc_node *n, char *buf, size_t sz)
{
	if (n->kind != YC_SCALAR)
		return kind_desc(n->kind);
	if (n->text[0] == '\0')
		return "an empty value";
	snprintf(buf, sz, "%s'%.80s%s'", n->quoted ? "the quoted string " : "",
	    n->text, strlen(n->text) > 80 ? "..." : "");
	return buf;
}

/* "'key' must be WHAT, got ..." or, for a bare node, "expected WHAT, got ...". */
static int
type_err(const struct yc_node *n, const char *key, const char *what,
    struct vs_err *err)
{
	char buf[128];

	if (key != NULL)
		return yc_err(n, err, "'%s' must be %s, got %s", key, what,
		    got_desc(n, buf, sizeof buf));
	return yc_err(n, err, "expected %s, got %s", what, got_desc(n, buf, sizeof buf));
}

/*
 * Range error.  Infinite bounds are left out of the message; shown is
 * the value as written plus, for quantities, in base units.
 */
static int
range_err(const struct yc_node *n, const char *key, double v, double min,
    double max, enum unit_kind kind, struct vs_err *err)
{
	char subj[256], conv[64] = "";
	const char *u = units_base_name(kind);

	if (kind != UNIT_NONE)
		snprintf(conv, sizeof conv, " (%g%s)", v, u);
	if (key != NULL)
		snprintf(subj, sizeof subj, "'%s' = %.80s%s", key, n->text, conv);
	else
		snprintf(subj, sizeof subj, "%.80s%s", n->text, conv);
	if (isinf(max) || max >= (double)INT64_MAX)
		return yc_err(n, err, "%s must be at least %g%s", subj, min, u);
	if (isinf(min) || min <= (double)INT64_MIN)
		return yc_err(n, err, "%s must be at most %g%s", subj, max, u);
	return yc_err(n, err, "%s is out of range [%g%s, %g%s]", subj, min, u, max, u);
}

static int
node_int(const struct yc_node *n, const char *key, int64_t min, int64_t max,
    int64_t *out, struct vs_err *err)
{
	const char *why;
	double d;
	int64_t v;
	char buf[64], *end;
	size_t i, o = 0;

	if (n->kind != YC_SCALAR || n->quoted ||
	    units_parse(n->text, UNIT_NONE, 0, &d, &why) == -1 || d != floor(d))
		return type_err(n, key, "an integer", err);
	if (fabs(d) < 9007199254740992.0)	/* 2^53: exact as a double */
		v = (int64_t)d;
	else {
		/* Big: reparse exactly; "1e30" and overflow are out of range. */
		for (i = 0; n->text[i] != '\0' && o + 1 < sizeof buf; i++)
			if (n->text[i] != '_' && !isspace((unsigned char)n->text[i]))
				buf[o++] = n->text[i];
		buf[o] = '\0';
		errno = 0;
		long long ll = strtoll(buf, &end, 10);
		if (*end != '\0' && strpbrk(buf, "eE") != NULL && fabs(d) < 9223372036854775808.0)
			ll = (long long)d;	/* 1e16: exponent form, as exact as the double */
		else if (*end != '\0' || errno != 0)
			/* beyond int64: name the real bounds (range_err reads
			 * INT64_MAX as "no upper bound") */
			return yc_err(n, err, "%s%s%s%.80s is out of range [%" PRId64 ", %" PRId64 "]",
			    key ? "'" : "", key ? key : "", key ? "' = " : "", n->text, min, max);
		v = (int64_t)ll;
	}
	if (v < min || v > max) {
		if (key != NULL && min != INT64_MIN && max != INT64_MAX)
			return yc_err(n, err, "'%s' = %" PRId64 " is out of range [%" PRId64
			    ", %" PRId64 "]", key, v, min, max);
		return range_err(n, key, (double)v, (double)min, (double)max, UNIT_NONE, err);
	}
	*out = v;
	return 0;
}

static int
node_num(const struct yc_node *n, const char *key, double min, double max,
    double *out, struct vs_err *err)
{
	const char *why;
	double d;

	if (n->kind != YC_SCALAR || n->quoted ||
	    units_parse(n->text, UNIT_NONE, 0, &d, &why) == -1)
		return type_err(n, key, "a number", err);
	if (d < min || d > max)
		return range_err(n, key, d, min, max, UNIT_NONE, err);
	*out = d;
	return 0;
}

static int
node_qty(const struct yc_node *n, const char *key, enum unit_kind kind, double hz,
    double min, double max, double *out, struct vs_err *err)
{
	const char *why;
	char what[64];
	double d;

	if (kind == UNIT_NONE)
		return node_num(n, key, min, max, out, err);
	snprintf(what, sizeof what, "a %s", units_kind_name(kind));
	if (n->kind != YC_SCALAR || n->quoted)
		return type_err(n, key, what, err);
	if (units_parse(n->text, kind, hz, &d, &why) == -1) {
		if (key != NULL)
			return yc_err(n, err, "'%s' = '%.80s' %s", key, n->text, why);
		return yc_err(n, err, "'%.80s' %s", n->text, why);
	}
	/* every time a scenario writes fits under the cap on simulated time */
	if (kind == UNIT_TIME && max > (double)SIM_TIME_CAP)
		max = (double)SIM_TIME_CAP;
	if (d < min || d > max)
		return range_err(n, key, d, min, max, kind, err);
	*out = d;
	return 0;
}

struct yc_node *
yc_find(const struct yc_node *map, const char *key)
{
	long k = map_index(map, key, strlen(key));

	if (k < 0)
		return NULL;
	map->used[k] = 1;
	return map->vals[k];
}

/*
 * Common start of the keyed readers: 1 and *np set if present, 0 if
 * absent (and allowed), -1 on error.
 */
static int
get_entry(const struct yc_node *map, const char *key, int required,
    const struct yc_node **np, struct vs_err *err)
{
	if (map != NULL && map->kind != YC_MAP)
		return yc_err(map, err, "expected a mapping with '%s', got %s", key,
		    kind_desc(map->kind));
	if ((*np = yc_find(map, key)) != NULL)
		return 1;
	if (required)
		return yc_err(map, err, "missing key '%s'", key);
	return 0;
}

int
yc_get_str(const struct yc_node *map, const char *key, const char *def,
    const char **out, struct vs_err *err)
{
	const struct yc_node *n;
	int r = get_entry(map, key, def == NULL, &n, err);

	if (r <= 0) {
		if (r == 0)
			*out = def;
		return r;
	}
	if (n->kind != YC_SCALAR)
		return type_err(n, key, "a string", err);
	*out = n->text;
	return 0;
}

int
yc_get_int(const struct yc_node *map, const char *key, int64_t def, int64_t min,
    int64_t max, int64_t *out, struct vs_err *err)
{
	const struct yc_node *n = NULL;	/* set when get_entry returns > 0; NULL quiets LTO's -Wmaybe-uninitialized */
	int r = get_entry(map, key, def == YC_REQUIRED_INT, &n, err);

	if (r <= 0) {
		if (r == 0)
			*out = def;
		return r;
	}
	return node_int(n, key, min, max, out, err);
}

int
yc_get_num(const struct yc_node *map, const char *key, double def, double min,
    double max, double *out, struct vs_err *err)
{
	const struct yc_node *n;
	int r = get_entry(map, key, isnan(def), &n, err);

	if (r <= 0) {
		if (r == 0)
			*out = def;
		return r;
	}
	return node_num(n, key, min, max, out, err);
}

int
yc_get_bool(const struct yc_node *map, const char *key, int def, int *out,
    struct vs_err *err)
{
	static const char *const yes[] = { "true", "yes", "on", NULL };
	static const char *const no[] = { "false", "no", "off", NULL };
	const struct yc_node *n;
	int r = get_entry(map, key, def < 0, &n, err), i;

	if (r <= 0) {
		if (r == 0)
			*out = def;
		return r;
	}
	if (n->kind == YC_SCALAR && !n->quoted) {
		for (i = 0; yes[i] != NULL; i++) {
			if (strcasecmp(n->text, yes[i]) == 0) {
				*out = 1;
				return 0;
			}
			if (strcasecmp(n->text, no[i]) == 0) {
				*out = 0;
				return 0;
			}
		}
	}
	return type_err(n, key, "true or false", err);
}

int
yc_get_qty(const struct yc_node *map, const char *key, enum unit_kind kind,
    double hz, double def, double min, double max, double *out, struct vs_err *err)
{
	const struct yc_node *n;
	int r = get_entry(map, key, isnan(def), &n, err);

	if (r <= 0) {
		if (r == 0)
			*out = def;
		return r;
	}
	return node_qty(n, key, kind, hz, min, max, out, err);
}

int
yc_get_enum(const struct yc_node *map, const char *key, const char *const *names,
    int def, int *out, struct vs_err *err)
{
	const struct yc_node *n;
	char list[512], buf[128];
	size_t off = 0;
	int r = get_entry(map, key, def < 0, &n, err), i;

	if (r <= 0) {
		if (r == 0)
			*out = def;
		return r;
	}
	if (n->kind == YC_SCALAR)
		for (i = 0; names[i] != NULL; i++)
			if (strcmp(n->text, names[i]) == 0) {
				*out = i;
				return 0;
			}
	list[0] = '\0';
	for (i = 0; names[i] != NULL && off < sizeof list; i++)
		off += (size_t)snprintf(list + off, sizeof list - off, "%s%s",
		    i ? ", " : "", names[i]);
	return yc_err(n, err, "'%s' must be one of: %s; got %s", key, list,
	    got_desc(n, buf, sizeof buf));
}

int
yc_node_int(const struct yc_node *n, int64_t min, int64_t max, int64_t *out,
    struct vs_err *err)
{
	return node_int(n, NULL, min, max, out, err);
}

int
yc_node_num(const struct yc_node *n, double min, double max, double *out,
    struct vs_err *err)
{
	return node_num(n, NULL, min, max, out, err);
}

int
yc_node_qty(const struct yc_node *n, enum unit_kind kind, double hz, double min,
    double max, double *out, struct vs_err *err)
{
	return node_qty(n, NULL, kind, hz, min, max, out, err);
}

int
yc_expect(const struct yc_node *n, enum yc_kind kind, const char *what,
    struct vs_err *err)
{
	if (n == NULL)
		return vs_errf(err, NULL, 0, 0, "expected %s, got nothing", what);
	if (n->kind == kind)
		return 0;
	if (n->kind == YC_SCALAR)
		return yc_err(n, err, "expected %s, got a scalar ('%.80s')", what, n->text);
	return yc_err(n, err, "expected %s, got %s", what, kind_desc(n->kind));
}

/* Edit distance, for "did you mean"; keys are short. */
static size_t
edit_distance(const char *a, size_t la, const char *b, size_t lb)
{
	size_t row[64], i, j, prev, tmp;

	if (la >= 64 || lb >= 64)
		return SIZE_MAX;
	for (j = 0; j <= lb; j++)
		row[j] = j;
	for (i = 1; i <= la; i++) {
		prev = row[0];
		row[0] = i;
		for (j = 1; j <= lb; j++) {
			tmp = row[j];
			row[j] = prev + (a[i - 1] != b[j - 1]);
			if (row[j - 1] + 1 < row[j])
				row[j] = row[j - 1] + 1;
			if (tmp + 1 < row[j])
				row[j] = tmp + 1;
			prev = tmp;
		}
	}
	return row[lb];
}

int
yc_check_unused(const struct yc_node *map, const char *expected, struct vs_err *err)
{
	size_t i;

	if (map == NULL || map->kind != YC_MAP)
		return 0;
	for (i = 0; i < map->n; i++)
		if (!map->used[i])
			return yc_unknown_key(map, i, expected, err);
	return 0;
}

int
yc_unknown_key(const struct yc_node *map, size_t i, const char *expected, struct vs_err *err)
{
	const char *p, *q, *best = NULL;
	size_t d, bestd = 3, bestlen = 0, klen;

	if (expected == NULL)
		return vs_errf(err, map->key_file[i], map->key_line[i], map->key_col[i],
		    "unknown key '%s'", map->keys[i]);
	/* expected is "a, b, c"; suggest the closest name if it is close. */
	klen = strlen(map->keys[i]);
	for (p = expected; *p != '\0'; p = q) {
		while (*p == ',' || isspace((unsigned char)*p))
			p++;
		for (q = p; *q != '\0' && *q != ',' && !isspace((unsigned char)*q); q++)
			;
		if (q == p)
			break;
		d = edit_distance(map->keys[i], klen, p, (size_t)(q - p));
		if (d > 0 && d < bestd && d * 3 <= klen + 1) {
			bestd = d;
			best = p;
			bestlen = (size_t)(q - p);
		}
	}
	if (best != NULL)
		return vs_errf(err, map->key_file[i], map->key_line[i], map->key_col[i],
		    "unknown key '%s' (expected one of: %s); did you mean '%.*s'?",
		    map->keys[i], expected, (int)bestlen, best);
	return vs_errf(err, map->key_file[i], map->key_line[i], map->key_col[i],
	    "unknown key '%s' (expected one of: %s)", map->keys[i], expected);
}

char *
yc_node_path(const struct yc_node *n)
{
	char *dir, *slash, *r;

	if (n->text[0] == '/' || n->file == NULL || strchr(n->file, '/') == NULL)
		return xstrdup(n->text);
	dir = xstrdup(n->file);
	slash = strrchr(dir, '/');
	slash[1] = '\0';
	r = xasprintf("%s%s", dir, n->text);
	free(dir);
	return r;
}
