#include "config.h"
#include "plot.h"
#include "datadir.h"

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

	if (GNUPLOT_PATH[0] == '\0' || access(GNUPLOT_PATH, X_OK) != 0)
		return 1;
	if ((script = plot_script(name)) == NULL)
		return vs_errf(err, NULL, 0, 0, "plots/%s: gnuplot script not found", name);
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
