/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * check_yconf.c - YAML tree: positions, includes, --set, readers, errors.
 *
 * Every error test asserts the whole message, FILE:LINE:COL included:
 * positions are the point of this module.
 */
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "yconf.h"

static struct yc_doc *
load(const char *text)
{
	struct vs_err err = { "" };
	struct yc_doc *doc = yc_load_string("t.yaml", text, &err);

	ck_assert_msg(doc != NULL, "load failed: %s", err.msg);
	return doc;
}

/* Load text that must fail; returns the message. */
static const char *
load_err(const char *text, struct vs_err *err)
{
	struct yc_doc *doc = yc_load_string("t.yaml", text, err);

	ck_assert_msg(doc == NULL, "'%s' should not load", text);
	return err->msg;
}

/* A scratch directory with files; removed by rmtree(). */
static char *
mktmp(void)
{
	char tmpl[] = "/tmp/check_yconf.XXXXXX";
	char *d = mkdtemp(tmpl);

	ck_assert_ptr_nonnull(d);
	return xstrdup(d);
}

static char *
put(const char *dir, const char *name, const char *text)
{
	char *path = xasprintf("%s/%s", dir, name);
	FILE *f = fopen(path, "w");

	ck_assert_ptr_nonnull(f);
	fputs(text, f);
	fclose(f);
	return path;
}

static void
rmtree(char *dir)
{
	char *cmd = xasprintf("rm -rf '%s'", dir);

	ck_assert_int_eq(system(cmd), 0);
	free(cmd);
	free(dir);
}

/* Issue 14 D6: keys and anchors are hashed; 30,000 of each load at once
 * (the linear look-ups took 7 s, past Check's timeout), duplicates and
 * redefinitions still behave as before. */
START_TEST(test_many_keys_and_anchors)
{
	enum { N = 30000 };
	size_t cap = (size_t)N * 40 + 100, len = 0;
	char *t = malloc(cap), key[32];
	struct yc_doc *doc;
	struct yc_node *m;
	struct vs_err err;
	int i;

	len += (size_t)snprintf(t + len, cap - len, "m:\n");
	for (i = 0; i < N; i++)
		len += (size_t)snprintf(t + len, cap - len, "  k%d: &a%d %d\n", i, i % 1000, i);
	len += (size_t)snprintf(t + len, cap - len, "r: [*a7, *a999]\n");
	doc = yc_load_string("t.yaml", t, &err);
	ck_assert_ptr_nonnull(doc);
	m = yc_find(yc_root(doc), "m");
	ck_assert_uint_eq(m->n, N);
	snprintf(key, sizeof key, "k%d", N - 1);
	ck_assert_str_eq(yc_find(m, key)->text, "29999");
	ck_assert_str_eq(yc_find(m, "k0")->text, "0");
	ck_assert_ptr_null(yc_find(m, "k30000"));
	/* an anchor redefined 30 times: the latest definition wins */
	ck_assert_str_eq(yc_find(yc_root(doc), "r")->vals[0]->text, "29007");
	ck_assert_str_eq(yc_find(yc_root(doc), "r")->vals[1]->text, "29999");
	yc_free(doc);
	/* a duplicate far past the first keys is still found */
	len += (size_t)snprintf(t + len, cap - len, "m2: {a: 1, b: 2, c: 3, d: 4, e: 5, f: 6, "
	    "g: 7, h: 8, i: 9, j: 10, c: 11}\n");
	ck_assert_ptr_null(yc_load_string("t.yaml", t, &err));
	ck_assert(strstr(err.msg, "duplicate key 'c' (first at line") != NULL);
	free(t);
}
END_TEST

START_TEST(test_positions)
{
	struct yc_doc *doc = load("name: demo\nvms:\n  - count: 2\n    vcpus: [1, 2]\n"
	    "  - {count: 3}\n");
	struct yc_node *r = yc_root(doc), *n;

	ck_assert_int_eq(r->kind, YC_MAP);
	ck_assert_int_eq(r->n, 2);
	ck_assert_str_eq(r->file, "t.yaml");
	ck_assert_str_eq(yc_path(doc), "t.yaml");
	n = yc_lookup(r, "name");
	ck_assert_str_eq(n->text, "demo");
	ck_assert_int_eq(n->line, 1);
	ck_assert_int_eq(n->col, 7);
	ck_assert_int_eq(r->key_line[1], 2);
	ck_assert_int_eq(r->key_col[1], 1);
	n = yc_lookup(r, "vms[0].vcpus[1]");
	ck_assert_str_eq(n->text, "2");
	ck_assert_int_eq(n->line, 4);
	ck_assert_int_eq(n->col, 16);
	n = yc_lookup(r, "vms[1].count");
	ck_assert_int_eq(n->line, 5);
	ck_assert_int_eq(n->col, 13);
	n = yc_lookup(r, "vms[1]");
	ck_assert_int_eq(n->kind, YC_MAP);
	ck_assert_int_eq(n->line, 5);
	ck_assert_int_eq(n->col, 5);
	ck_assert_ptr_null(yc_lookup(r, "vms[2]"));
	ck_assert_ptr_null(yc_lookup(r, "nope.x"));
	ck_assert_ptr_null(yc_lookup(r, "name[0]"));
	/* yc_lookup marks nothing. */
	ck_assert_int_eq(r->used[0], 0);
	yc_free(doc);
}
END_TEST

START_TEST(test_quoted)
{
	struct yc_doc *doc = load("a: '5'\nb: \"x\"\nc: 5\nd: !!str 7\ne: |\n  text\n");
	struct yc_node *r = yc_root(doc);
	struct vs_err err;
	int64_t v;
	const char *s;

	ck_assert_int_eq(yc_lookup(r, "a")->quoted, 1);
	ck_assert_int_eq(yc_lookup(r, "b")->quoted, 1);
	ck_assert_int_eq(yc_lookup(r, "c")->quoted, 0);
	ck_assert_int_eq(yc_lookup(r, "d")->quoted, 1);
	ck_assert_int_eq(yc_lookup(r, "e")->quoted, 1);
	ck_assert_str_eq(yc_lookup(r, "e")->text, "text\n");
	ck_assert_int_eq(yc_get_int(r, "a", 0, 0, 10, &v, &err), -1);
	ck_assert_str_eq(err.msg, "t.yaml:1:4: 'a' must be an integer, got the quoted string '5'");
	ck_assert_int_eq(yc_get_int(r, "c", 0, 0, 10, &v, &err), 0);
	ck_assert_int_eq(v, 5);
	ck_assert_int_eq(yc_get_str(r, "a", NULL, &s, &err), 0);
	ck_assert_str_eq(s, "5");
	yc_free(doc);
}
END_TEST

START_TEST(test_empty_and_aliases)
{
	struct yc_doc *doc = load("");
	struct yc_node *r = yc_root(doc);
	struct vs_err err;

	ck_assert_int_eq(r->kind, YC_MAP);
	ck_assert_int_eq(r->n, 0);
	yc_free(doc);

	doc = load("base: &b {x: 1, y: 2}\nother: *b\n");
	r = yc_root(doc);
	ck_assert_ptr_eq(yc_lookup(r, "base"), yc_lookup(r, "other"));
	ck_assert_str_eq(yc_lookup(r, "other.y")->text, "2");
	yc_free(doc);

	load_err("a: *nope\n", &err);
	ck_assert_str_eq(err.msg, "t.yaml:1:4: unknown alias '*nope'");
	load_err("a: 1\n---\nb: 2\n", &err);
	ck_assert_str_eq(err.msg, "t.yaml:2:1: only one YAML document is allowed");
}
END_TEST

START_TEST(test_syntax_error)
{
	struct vs_err err;

	load_err("a: 1\nb: [1, 2\nc: 3\n", &err);
	ck_assert_str_eq(err.msg, "t.yaml:3:2: YAML syntax error: did not find expected "
	    "',' or ']' while parsing a flow sequence");
	load_err("a: 1\n  b: 2\n", &err);
	ck_assert_str_eq(err.msg, "t.yaml:2:4: YAML syntax error: mapping values are "
	    "not allowed in this context");
	load_err("a:\n\tb: 1\n", &err);
	ck_assert_str_eq(err.msg, "t.yaml:2:1: YAML syntax error: found character that "
	    "cannot start any token while scanning for the next token");
}
END_TEST

START_TEST(test_duplicate_key)
{
	struct vs_err err;

	load_err("a: 1\nb:\n  x: 1\n  y: 2\n  x: 3\n", &err);
	ck_assert_str_eq(err.msg,
	    "t.yaml:5:3: duplicate key 'x' (first at line 3, column 3)");
	load_err("? [a]\n: 1\n", &err);
	ck_assert_str_eq(err.msg, "t.yaml:1:3: mapping keys must be scalars, got a sequence");
}
END_TEST

START_TEST(test_readers)
{
	struct yc_doc *doc = load("count: 99\nname: x\nsub: {a: 1}\nratio: 0.5\n"
	    "flag: yes\nsched: credit\nduration: 5\nwin: 8192cycles\nbig: 1e30\n"
	    "t: 2us\nneg: -4\nu: 4_096\n");
	struct yc_node *r = yc_root(doc);
	static const char *const scheds[] = { "pinned", "cfs", NULL };
	struct vs_err err;
	int64_t i;
	double d;
	int b, e;
	const char *s;

	ck_assert_int_eq(yc_get_int(r, "count", 0, 1, 64, &i, &err), -1);
	ck_assert_str_eq(err.msg, "t.yaml:1:8: 'count' = 99 is out of range [1, 64]");
	ck_assert_int_eq(yc_get_int(r, "name", 0, 1, 64, &i, &err), -1);
	ck_assert_str_eq(err.msg, "t.yaml:2:7: 'name' must be an integer, got 'x'");
	ck_assert_int_eq(yc_get_num(r, "sub", 0, 0, 1, &d, &err), -1);
	ck_assert_str_eq(err.msg, "t.yaml:3:6: 'sub' must be a number, got a mapping");
	ck_assert_int_eq(yc_get_num(r, "ratio", 0, 0, 1, &d, &err), 0);
	ck_assert_double_eq(d, 0.5);
	ck_assert_int_eq(yc_get_int(r, "ratio", 0, 0, 1, &i, &err), -1);
	ck_assert_str_eq(err.msg, "t.yaml:4:8: 'ratio' must be an integer, got '0.5'");
	ck_assert_int_eq(yc_get_bool(r, "flag", 0, &b, &err), 0);
	ck_assert_int_eq(b, 1);
	ck_assert_int_eq(yc_get_bool(r, "name", 0, &b, &err), -1);
	ck_assert_str_eq(err.msg, "t.yaml:2:7: 'name' must be true or false, got 'x'");
	ck_assert_int_eq(yc_get_enum(r, "sched", scheds, 0, &e, &err), -1);
	ck_assert_str_eq(err.msg,
	    "t.yaml:6:8: 'sched' must be one of: pinned, cfs; got 'credit'");
	ck_assert_int_eq(yc_get_qty(r, "duration", UNIT_TIME, 0, 0, 0, INFINITY, &d, &err), -1);
	ck_assert_str_eq(err.msg,
	    "t.yaml:7:11: 'duration' = '5' needs a unit (ns, us, ms, s or cycles)");
	ck_assert_int_eq(yc_get_qty(r, "win", UNIT_TIME, 0, 0, 0, INFINITY, &d, &err), -1);
	ck_assert_str_eq(err.msg, "t.yaml:8:6: 'win' = '8192cycles' cycles need a clock rate");
	ck_assert_int_eq(yc_get_qty(r, "win", UNIT_TIME, 2.93e9, 0, 0, INFINITY, &d, &err), 0);
	ck_assert_double_eq_tol(d, 2795.9, 0.05);
	ck_assert_int_eq(yc_get_qty(r, "t", UNIT_TIME, 0, 0, 0, 1000, &d, &err), -1);
	ck_assert_str_eq(err.msg, "t.yaml:10:4: 't' = 2us (2000ns) is out of range [0ns, 1000ns]");
	ck_assert_int_eq(yc_get_int(r, "big", 0, 0, INT64_MAX, &i, &err), -1);
	/* past int64, the real bounds (issue 14 D11: was "must be at least 0") */
	ck_assert_str_eq(err.msg, "t.yaml:9:6: 'big' = 1e30 is out of range [0, 9223372036854775807]");
	ck_assert_int_eq(yc_get_int(r, "neg", 0, 0, INT64_MAX, &i, &err), -1);
	ck_assert_str_eq(err.msg, "t.yaml:11:6: 'neg' = -4 must be at least 0");
	ck_assert_int_eq(yc_get_int(r, "u", 0, 0, INT64_MAX, &i, &err), 0);
	ck_assert_int_eq(i, 4096);
	ck_assert_int_eq(yc_get_str(r, "name", NULL, &s, &err), 0);
	ck_assert_str_eq(s, "x");

	/* Absent keys: defaults, or "missing key" when required. */
	ck_assert_int_eq(yc_get_int(r, "absent", 7, 0, 10, &i, &err), 0);
	ck_assert_int_eq(i, 7);
	ck_assert_int_eq(yc_get_int(r, "absent", YC_REQUIRED_INT, 0, 10, &i, &err), -1);
	ck_assert_str_eq(err.msg, "t.yaml:1:1: missing key 'absent'");
	ck_assert_int_eq(yc_get_qty(r, "absent", UNIT_TIME, 0, NAN, 0, 1, &d, &err), -1);
	ck_assert_int_eq(yc_get_str(r, "absent", NULL, &s, &err), -1);
	ck_assert_int_eq(yc_get_str(NULL, "absent", "dflt", &s, &err), 0);
	ck_assert_str_eq(s, "dflt");

	/* Node-level readers. */
	ck_assert_int_eq(yc_node_int(yc_lookup(r, "name"), 0, 1, &i, &err), -1);
	ck_assert_str_eq(err.msg, "t.yaml:2:7: expected an integer, got 'x'");
	ck_assert_int_eq(yc_node_qty(yc_lookup(r, "t"), UNIT_TIME, 0, 0, INFINITY, &d, &err), 0);
	ck_assert_double_eq(d, 2000);
	yc_free(doc);
}
END_TEST

START_TEST(test_unused_and_expect)
{
	struct yc_doc *doc = load("vm:\n  name: a\n  count: 2\n  vpcus: 4\n");
	struct yc_node *r = yc_root(doc), *vm;
	struct vs_err err;
	int64_t i;
	const char *s;

	vm = yc_find(r, "vm");
	ck_assert_int_eq(yc_check_unused(r, "vm", &err), 0);
	ck_assert_int_eq(yc_get_str(vm, "name", NULL, &s, &err), 0);
	ck_assert_int_eq(yc_get_int(vm, "count", 1, 1, 64, &i, &err), 0);
	ck_assert_int_eq(yc_get_int(vm, "vcpus", 1, 1, 64, &i, &err), 0);
	ck_assert_int_eq(yc_check_unused(vm, "name, count, vcpus", &err), -1);
	ck_assert_str_eq(err.msg, "t.yaml:4:3: unknown key 'vpcus' (expected one of: "
	    "name, count, vcpus); did you mean 'vcpus'?");
	ck_assert_int_eq(yc_check_unused(vm, "name, count, cpus_x", &err), -1);
	ck_assert_str_eq(err.msg, "t.yaml:4:3: unknown key 'vpcus' (expected one of: "
	    "name, count, cpus_x)");

	ck_assert_int_eq(yc_expect(vm, YC_MAP, "a mapping of VM settings", &err), 0);
	ck_assert_int_eq(yc_expect(yc_lookup(r, "vm.name"), YC_MAP,
	    "a mapping of machine settings", &err), -1);
	ck_assert_str_eq(err.msg,
	    "t.yaml:2:9: expected a mapping of machine settings, got a scalar ('a')");
	ck_assert_int_eq(yc_expect(r, YC_SEQ, "a list of VMs", &err), -1);
	ck_assert_str_eq(err.msg, "t.yaml:1:1: expected a list of VMs, got a mapping");
	yc_free(doc);
}
END_TEST

START_TEST(test_include)
{
	char *dir = mktmp();
	char *base, *main_, *m;
	struct yc_doc *doc;
	struct yc_node *r, *n;
	struct vs_err err;

	mkdir(m = xasprintf("%s/machines", dir), 0700);
	free(m);
	free(put(dir, "machines/x5570.yaml", "pcpus: 8\nclock: 2.93GHz\n"));
	base = put(dir, "base.yaml", "seed: 1\nduration: 1s\nhv: {a: 1, b: 2}\n"
	    "machine: machines/x5570.yaml\n");
	main_ = put(dir, "main.yaml", "include: base.yaml\nduration: 5s\nhv: {c: 3}\n");
	doc = yc_load(main_, &err);
	ck_assert_msg(doc != NULL, "%s", err.msg);
	r = yc_root(doc);
	ck_assert_int_eq(r->n, 4);
	/* Local entries win; nested maps are replaced, not merged. */
	n = yc_lookup(r, "duration");
	ck_assert_str_eq(n->text, "5s");
	ck_assert_str_eq(n->file, main_);
	ck_assert_ptr_null(yc_lookup(r, "hv.a"));
	ck_assert_str_eq(yc_lookup(r, "hv.c")->text, "3");
	n = yc_lookup(r, "seed");
	ck_assert_str_eq(n->file, base);
	ck_assert_int_eq(n->line, 1);
	ck_assert_int_eq(n->col, 7);
	/* A .yaml scalar value is replaced by the file, relative to its includer. */
	n = yc_lookup(r, "machine.clock");
	ck_assert_str_eq(n->text, "2.93GHz");
	ck_assert_int_eq(n->line, 2);
	m = xasprintf("%s/machines/x5570.yaml", dir);
	ck_assert_str_eq(n->file, m);
	free(m);
	/* Keys keep their own file: unknown-key errors point into base.yaml. */
	yc_find(r, "duration");
	yc_find(r, "hv");
	yc_find(r, "machine");
	ck_assert_int_eq(yc_check_unused(r, "duration, hv, machine", &err), -1);
	m = xasprintf("%s:1:1: unknown key 'seed' (expected one of: duration, hv, machine)",
	    base);
	ck_assert_str_eq(err.msg, m);
	free(m);
	yc_free(doc);

	/* Includes from a list; later includes win over earlier ones. */
	free(put(dir, "a.yaml", "x: 1\ny: 1\n"));
	free(put(dir, "b.yaml", "y: 2\n"));
	m = put(dir, "list.yaml", "include: [a.yaml, b.yaml]\nz: 3\n");
	doc = yc_load(m, &err);
	ck_assert_msg(doc != NULL, "%s", err.msg);
	ck_assert_str_eq(yc_lookup(yc_root(doc), "x")->text, "1");
	ck_assert_str_eq(yc_lookup(yc_root(doc), "y")->text, "2");
	ck_assert_str_eq(yc_lookup(yc_root(doc), "z")->text, "3");
	yc_free(doc);
	free(m);

	free(base);
	free(main_);
	rmtree(dir);
}
END_TEST

START_TEST(test_include_errors)
{
	char *dir = mktmp();
	char *p, *m;
	struct vs_err err;

	p = put(dir, "main.yaml", "a: 1\nmachine:   nothere.yaml\n");
	ck_assert_ptr_null(yc_load(p, &err));
	m = xasprintf("%s:2:12: cannot read include 'nothere.yaml': No such file or directory", p);
	ck_assert_str_eq(err.msg, m);
	free(m);
	free(p);

	/* In a sequence item, and with the syntax error inside the include. */
	free(put(dir, "bad.yaml", "x: [1\n"));
	p = put(dir, "seq.yaml", "vms:\n  - bad.yaml\n");
	ck_assert_ptr_null(yc_load(p, &err));
	m = xasprintf("%s/bad.yaml:2:1: YAML syntax error: did not find expected ',' or ']' "
	    "while parsing a flow sequence (included at %s/seq.yaml:2:5)", dir, dir);
	ck_assert_str_eq(err.msg, m);
	free(m);
	free(p);

	/* Cycle: a -> b -> a. */
	free(put(dir, "ca.yaml", "include: cb.yaml\n"));
	free(put(dir, "cb.yaml", "x: 1\nnext: ca.yaml\n"));
	p = xasprintf("%s/ca.yaml", dir);
	ck_assert_ptr_null(yc_load(p, &err));
	m = xasprintf("%s/cb.yaml:2:7: include cycle: %s/ca.yaml -> %s/cb.yaml -> %s/ca.yaml",
	    dir, dir, dir, dir);
	ck_assert_str_eq(err.msg, m);
	free(m);
	free(p);

	/* include: must name mappings. */
	free(put(dir, "list.yaml", "- 1\n"));
	p = put(dir, "inc.yaml", "include: list.yaml\n");
	ck_assert_ptr_null(yc_load(p, &err));
	ck_assert_ptr_nonnull(strstr(err.msg, "include: expected a mapping to include"));
	free(p);

	/* Missing top file. */
	p = xasprintf("%s/none.yaml", dir);
	ck_assert_ptr_null(yc_load(p, &err));
	m = xasprintf("%s: cannot open scenario: No such file or directory", p);
	ck_assert_str_eq(err.msg, m);
	free(m);
	free(p);
	rmtree(dir);
}
END_TEST

START_TEST(test_set)
{
	struct yc_doc *doc = load("vms:\n  - count: 1\n  - count: 2\nhv:\n  ple: {window: 4096cycles}\n");
	struct yc_node *r = yc_root(doc), *n;
	struct vs_err err;
	int64_t i;

	ck_assert_int_eq(yc_set(doc, "vms[1].count=5", &err), 0);
	n = yc_lookup(r, "vms[1].count");
	ck_assert_str_eq(n->text, "5");
	ck_assert_str_eq(n->file, "--set");
	ck_assert_int_eq(n->line, 1);
	ck_assert_int_eq(n->col, 14);
	ck_assert_int_eq(yc_set(doc, "hv.ple.window=8192cycles", &err), 0);
	ck_assert_str_eq(yc_lookup(r, "hv.ple.window")->text, "8192cycles");
	/* New keys and maps are created; the readers judge them later. */
	ck_assert_int_eq(yc_set(doc, "hv.new.deep=[1, 2]", &err), 0);
	n = yc_lookup(r, "hv.new.deep");
	ck_assert_int_eq(n->kind, YC_SEQ);
	ck_assert_int_eq(n->n, 2);
	ck_assert_int_eq(yc_set(doc, "vms[0]={count: x}", &err), 0);
	ck_assert_int_eq(yc_get_int(yc_lookup(r, "vms[0]"), "count", 1, 1, 9, &i, &err), -1);
	ck_assert_str_eq(err.msg, "--set:1:16: 'count' must be an integer, got 'x'");
	ck_assert_int_eq(yc_set(doc, "seed='7'", &err), 0);
	ck_assert_int_eq(yc_lookup(r, "seed")->quoted, 1);
	yc_find(r, "vms");
	yc_find(r, "hv");
	ck_assert_int_eq(yc_check_unused(r, "vms, hv", &err), -1);
	ck_assert_str_eq(err.msg, "--set:1:1: unknown key 'seed' (expected one of: vms, hv)");
	ck_assert_int_eq(yc_set(doc, "empty=", &err), 0);
	ck_assert_str_eq(yc_lookup(r, "empty")->text, "");

	ck_assert_int_eq(yc_set(doc, "vms[5].count=1", &err), -1);
	ck_assert_str_eq(err.msg, "--set: vms[5].count: index 5 out of range (2 items)");
	ck_assert_int_eq(yc_set(doc, "hv.ple.window.x=1", &err), -1);
	ck_assert_str_eq(err.msg, "--set: hv.ple.window.x: 'hv.ple.window' is not a mapping");
	ck_assert_int_eq(yc_set(doc, "hv[0]=1", &err), -1);
	ck_assert_str_eq(err.msg, "--set: hv[0]: 'hv' is not a sequence");
	ck_assert_int_eq(yc_set(doc, "nope[0]=1", &err), -1);
	ck_assert_str_eq(err.msg, "--set: nope[0]: 'nope' does not exist");
	ck_assert_int_eq(yc_set(doc, "novalue", &err), -1);
	ck_assert_str_eq(err.msg, "--set: 'novalue': expected PATH=VALUE");
	ck_assert_int_eq(yc_set(doc, "a..b=1", &err), -1);
	ck_assert_str_eq(err.msg, "--set: a..b: empty key");
	ck_assert_int_eq(yc_set(doc, "a=[1,", &err), -1);
	ck_assert_str_eq(err.msg, "--set:1:6: YAML syntax error: did not find expected node "
	    "content while parsing a flow node");
	yc_free(doc);
}
END_TEST

int
main(void)
{
	Suite *s = suite_create("yconf");
	TCase *tc = tcase_create("yconf");
	SRunner *sr;
	int failures;

	tcase_set_timeout(tc, 0);
	tcase_add_test(tc, test_positions);
	tcase_add_test(tc, test_many_keys_and_anchors);
	tcase_add_test(tc, test_quoted);
	tcase_add_test(tc, test_empty_and_aliases);
	tcase_add_test(tc, test_syntax_error);
	tcase_add_test(tc, test_duplicate_key);
	tcase_add_test(tc, test_readers);
	tcase_add_test(tc, test_unused_and_expect);
	tcase_add_test(tc, test_include);
	tcase_add_test(tc, test_include_errors);
	tcase_add_test(tc, test_set);
	suite_add_tcase(s, tc);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	failures = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failures ? 1 : 0;
}
