/* SPDX-License-Identifier: GPL-2.0-or-later */
/* plot.c - gnuplot scripts run with variables set, and their outputs checked (plot.h). */
#include "config.h"
#include "plot.h"
#include "datadir.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

char *
plot_script(const char *name)
{
	char *rel = xasprintf("plots/%s", name), *p = vs_data_find(rel);

	free(rel);
	return p;
}

static int
have_gnuplot(void)
{
	return GNUPLOT_PATH[0] != '\0' && access(GNUPLOT_PATH, X_OK) == 0;
}

static int
script_missing(const char *name, struct vs_err *err)
{
	char *rel = xasprintf("plots/%s", name), *where = vs_data_where(rel);

	vs_errf(err, NULL, 0, 0, "plots/%s: gnuplot script not found (%s)", name, where);
	free(where);
	free(rel);
	return -1;
}

int
plot_ready(const char *const *names, int n, struct vs_err *err)
{
	int i;

	if (!have_gnuplot())
		return 1;
	for (i = 0; i < n; i++) {
		char *p = plot_script(names[i]);

		if (p == NULL)
			return script_missing(names[i], err);
		free(p);
	}
	return 0;
}

char *
plot_quote(const char *s)
{
	char *r = xmalloc(strlen(s) * 2 + 3), *o = r;

	*o++ = '\'';
	for (; *s; s++) {
		if (*s == '\'')
			*o++ = '\'';
		*o++ = *s;
	}
	*o++ = '\'';
	*o = '\0';
	return r;
}

int
plot_run(const char *name, const char *vars, struct vs_err *err)
{
	char *script;
	pid_t pid;
	int st;

	if (!have_gnuplot())
		return 1;
	if ((script = plot_script(name)) == NULL)
		return script_missing(name, err);
	fflush(NULL);
	pid = fork();
	if (pid < 0)
		vs_fatal("fork failed");
	if (pid == 0) {
		execl(GNUPLOT_PATH, "gnuplot", "-e", vars, script, (char *)NULL);
		_exit(127);
	}
	free(script);
	if (waitpid(pid, &st, 0) < 0 || !WIFEXITED(st) || WEXITSTATUS(st) != 0)
		return vs_errf(err, NULL, 0, 0, "gnuplot failed on plots/%s", name);
	return 0;
}

/* 1 if path ends with tail (ignoring trailing white space), 0 if not, -1 unreadable. */
static int
ends_with(const char *path, const unsigned char *tail, size_t n, int skip_space)
{
	unsigned char buf[64];
	FILE *f = fopen(path, "rb");
	long end;
	size_t got;

	if (f == NULL)
		return -1;
	if (fseek(f, 0, SEEK_END) != 0 || (end = ftell(f)) <= 0) {
		fclose(f);
		return 0;
	}
	got = end < (long)sizeof buf ? (size_t)end : sizeof buf;
	if (fseek(f, end - (long)got, SEEK_SET) != 0 || fread(buf, 1, got, f) != got) {
		fclose(f);
		return -1;
	}
	fclose(f);
	while (skip_space && got > 0 && (buf[got - 1] == '\n' || buf[got - 1] == ' ' ||
	    buf[got - 1] == '\r' || buf[got - 1] == '\t'))
		got--;
	return got >= n && memcmp(buf + got - n, tail, n) == 0;
}

int
plot_check_outputs(const char *base, struct vs_err *err)
{
	/* PNG spec 11.2.5: the last chunk is IEND, length 0, CRC ae426082 */
	static const unsigned char iend[] = { 0, 0, 0, 0, 'I', 'E', 'N', 'D', 0xae, 0x42,
	    0x60, 0x82 };
	static const char svg_end[] = "</svg>";
	char *path;
	int k, r;

	for (k = 0; k < 2; k++) {
		path = xasprintf("%s.%s", base, k == 0 ? "png" : "svg");
		r = k == 0 ? ends_with(path, iend, sizeof iend, 0) :
		    ends_with(path, (const unsigned char *)svg_end, strlen(svg_end), 1);
		if (r != 1) {
			vs_errf(err, NULL, 0, 0, "%s: %s", path, r < 0 ?
			    "gnuplot wrote no file" : "gnuplot's output is truncated (disk full?)");
			free(path);
			return -1;
		}
		free(path);
	}
	return 0;
}
