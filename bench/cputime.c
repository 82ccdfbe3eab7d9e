/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * cputime.c - make bench's timer (bench/bench.sh builds it into its temp
 * dir): runs CMD and writes the child's CPU seconds (user + sys), peak RSS
 * and wall seconds to FILE.  It replaces GNU time, whose %U/%S print 2
 * decimals: a 10 ms step was 15% of the 0.06 CPU-s scale rows.  The times
 * come from wait4's rusage (microseconds; the same figures GNU time reads,
 * the child's and those of its waited-for descendants).
 *
 * usage: cputime FILE CMD [ARG...]
 * FILE gets one line "cpu_s maxrss_kB wall_s" (6 decimals).  CMD's stdin,
 * stdout and stderr are left to it.  Exit status: CMD's, 128 + N if signal
 * N killed it, 127 if it could not be run (shell convention), 2 on bad use.
 */
#define _DEFAULT_SOURCE	/* wait4 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static double
tv_s(struct timeval tv)
{
	return tv.tv_sec + tv.tv_usec * 1e-6;
}

static double
wall_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec * 1e-9;
}

int
main(int argc, char **argv)
{
	struct rusage ru;
	double t0;
	FILE *f;
	pid_t pid;
	int st;

	if (argc < 3) {
		fprintf(stderr, "usage: cputime FILE CMD [ARG...]\n");
		return 2;
	}
	t0 = wall_now();
	pid = fork();
	if (pid < 0) {
		fprintf(stderr, "cputime: fork: %s\n", strerror(errno));
		return 2;
	}
	if (pid == 0) {
		execvp(argv[2], argv + 2);
		fprintf(stderr, "cputime: %s: %s\n", argv[2], strerror(errno));
		_exit(127);
	}
	while (wait4(pid, &st, 0, &ru) < 0) {
		if (errno != EINTR) {
			fprintf(stderr, "cputime: wait4: %s\n", strerror(errno));
			return 2;
		}
	}
	f = fopen(argv[1], "w");
	if (!f) {
		fprintf(stderr, "cputime: %s: %s\n", argv[1], strerror(errno));
		return 2;
	}
	fprintf(f, "%.6f %ld %.6f\n", tv_s(ru.ru_utime) + tv_s(ru.ru_stime),
	    ru.ru_maxrss, wall_now() - t0);
	if (fclose(f) != 0) {
		fprintf(stderr, "cputime: %s: %s\n", argv[1], strerror(errno));
		return 2;
	}
	if (WIFSIGNALED(st))
		return 128 + WTERMSIG(st);
	return WEXITSTATUS(st);
}
