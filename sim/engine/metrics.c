/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * metrics.c - a run's named results, and their summary over
 * replications (metrics.h).
 */
#include "metrics.h"

#include <stdlib.h>
#include <string.h>

#include "util.h"

void
metrics_init(struct metrics *m)
{
	memset(m, 0, sizeof *m);
}

void
metrics_free(struct metrics *m)
{
	size_t i;

	for (i = 0; i < m->n; i++) {
		free(m->names[i]);
		free(m->units[i]);
	}
	free(m->names);
	free(m->units);
	free(m->vals);
	memset(m, 0, sizeof *m);
}

void
metrics_add(struct metrics *m, const char *name, const char *unit, double v)
{
	if (m->n == m->cap) {
		m->cap = m->cap ? m->cap * 2 : 32;
		m->names = xrealloc(m->names, m->cap * sizeof *m->names);
		m->units = xrealloc(m->units, m->cap * sizeof *m->units);
		m->vals = xrealloc(m->vals, m->cap * sizeof *m->vals);
	}
	m->names[m->n] = xstrdup(name);
	m->units[m->n] = xstrdup(unit);
	m->vals[m->n] = v;
	m->n++;
}

int
metrics_find(const struct metrics *m, const char *name)
{
	size_t i;

	for (i = 0; i < m->n; i++)
		if (strcmp(m->names[i], name) == 0)
			return (int)i;
	return -1;
}

void
msum_init(struct msum *s)
{
	memset(s, 0, sizeof *s);
}

void
msum_free(struct msum *s)
{
	size_t i;

	for (i = 0; i < s->n; i++) {
		free(s->names[i]);
		free(s->units[i]);
	}
	free(s->names);
	free(s->units);
	free(s->reps);
	memset(s, 0, sizeof *s);
}

void
msum_add(struct msum *s, const struct metrics *m)
{
	size_t i;

	if (s->names == NULL) {
		s->n = m->n;
		s->names = xcalloc(m->n, sizeof *s->names);
		s->units = xcalloc(m->n, sizeof *s->units);
		s->reps = xcalloc(m->n, sizeof *s->reps);
		for (i = 0; i < m->n; i++) {
			s->names[i] = xstrdup(m->names[i]);
			s->units[i] = xstrdup(m->units[i]);
			rep_init(&s->reps[i]);
		}
	}
	VS_ASSERT(s->n == m->n);
	for (i = 0; i < m->n; i++) {
		VS_ASSERT(strcmp(s->names[i], m->names[i]) == 0);
		rep_add(&s->reps[i], m->vals[i]);
	}
}

int
msum_find(const struct msum *s, const char *name)
{
	size_t i;

	for (i = 0; i < s->n; i++)
		if (strcmp(s->names[i], name) == 0)
			return (int)i;
	return -1;
}
