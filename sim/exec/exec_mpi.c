/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * exec_mpi.c - the mpi backend: jobs on MPI ranks 1..N-1, results back to
 * rank 0.  See exec_mpi.h for the roles and the messages.
 */
#include "config.h"

#include "exec_mpi.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#ifdef HAVE_MPI
#include <mpi.h>
#endif

int
exec_mpi_launched(void)
{
	/* Open MPI's mpirun, PMI (MPICH's hydra, srun --mpi=pmi2), PMIx (srun --mpi=pmix). */
	static const char *const vars[] = { "OMPI_COMM_WORLD_SIZE", "PMI_SIZE",
		"PMIX_SIZE", NULL };
	const char *v;
	int i;

	for (i = 0; vars[i] != NULL; i++)
		if ((v = getenv(vars[i])) != NULL && atoi(v) > 1)
			return 1;
	return 0;
}

#ifdef HAVE_MPI

enum { TAG_JOB = 1, TAG_STOP, TAG_RESULT, TAG_ALIVE, TAG_BYE, TAG_FIN };

/* A serving rank says it is alive this often; silent for DEAD_S, it is gone,
 * unless the OS says its process lives (rank_gone): then after LIVE_S. */
#define ALIVE_S 0.25
#define DEAD_S 5.0
#define LIVE_S 60.0
/* Rank 0 not listening this long was away (drain_alive); its own waits are
 * shorter (exec_run's 0.5 s). */
#define DEAF_S 1.0
/* MPI_Finalize that has not returned by then waits for a rank that died after
 * the last word (see exec_mpi_finalize). */
#define FINALIZE_S 10
/* ... unless every other rank's process is there on this host, starved, not
 * dead (finalize_late): then it is waited for up to this long. */
#define FINALIZE_LIVE_S 30

enum { RANK_STARTING, RANK_READY, RANK_DEAD };

static int released;
static int nranks, myrank;
static int *rank_state;		/* of each rank, as rank 0 sees it */
static double *rank_seen;	/* when rank 0 last heard from it */
static long *rank_pid;		/* its pid if on rank 0's host, else 0 */
static char host[MPI_MAX_PROCESSOR_NAME + 1];	/* this rank's */
static int skip_finalize;	/* a rank is known dead: nobody calls MPI_Finalize */
static long *fin_pid;		/* at the end: each rank's pid if on this host, else 0 */
static char (*fin_stat)[32];	/* ... its /proc/PID/stat, made before the alarm */
static int fin_waited;		/* seconds MPI_Finalize has been waited for */
static int die_rank = -1;	/* VLOCKSIM_MPI_DIE (tests): this rank dies ... */
static char die_at[8];		/* ... at "stop", "bye" or "fin"; "hang": ... */

/*
 * Fault injection for tests/e2e_mpi_pool.sh: VLOCKSIM_MPI_DIE=R:stop|bye|fin|hang,
 * rank R dies on STOP, after its BYE, just before MPI_Finalize, or hangs
 * there (alive, never finalizing); 0:deaf, rank 0 is away (not listening)
 * for DEAD_S + 1 s before the end protocol, as a slow plot; R:lag|lagend,
 * rank R (> 0) is silent for DEAD_S + 2 s on its first job or on STOP, as a
 * rank the OS does not run on a loaded machine; 0:slowend, rank 0 is away for
 * FINALIZE_S + 3 s after the end protocol, before its MPI_Finalize.
 */
static void
maybe_die(const char *at)
{
	if (myrank != die_rank)
		return;
	if (strcmp(at, "release") == 0 && strcmp(die_at, "deaf") == 0)
		sleep((unsigned)DEAD_S + 1);
	if ((strcmp(at, "job") == 0 && strcmp(die_at, "lag") == 0) ||
	    (strcmp(at, "stop") == 0 && strcmp(die_at, "lagend") == 0)) {
		sleep((unsigned)DEAD_S + 2);
		die_at[0] = '\0';
	}
	if (strcmp(at, "released") == 0 && strcmp(die_at, "slowend") == 0)
		sleep((unsigned)FINALIZE_S + 3);
	if (strcmp(at, "fin") == 0 && strcmp(die_at, "hang") == 0)
		for (;;)
			pause();
	if (strcmp(die_at, at) == 0)
		raise(SIGKILL);
}

static void
nap(void)
{
	struct timespec ts = { 0, 1000000 };

	nanosleep(&ts, NULL);
}

int
exec_mpi_init(int *rank, int *size, struct vs_err *err)
{
	if (MPI_Init(NULL, NULL) != MPI_SUCCESS)
		return vs_errf(err, NULL, 0, 0, "MPI_Init failed");
	MPI_Comm_rank(MPI_COMM_WORLD, rank);
	MPI_Comm_size(MPI_COMM_WORLD, size);
	/* A send to a dead rank returns an error instead of ending rank 0. */
	MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
	nranks = *size;
	myrank = *rank;
	rank_state = xcalloc((size_t)nranks, sizeof *rank_state);
	rank_seen = xcalloc((size_t)nranks, sizeof *rank_seen);
	rank_pid = xcalloc((size_t)nranks, sizeof *rank_pid);
	{
		int n = 0;

		MPI_Get_processor_name(host, &n);
		host[n > 0 && n <= MPI_MAX_PROCESSOR_NAME ? n : 0] = '\0';
	}
	{
		const char *d = getenv("VLOCKSIM_MPI_DIE");

		if (d != NULL && sscanf(d, "%d:%7s", &die_rank, die_at) != 2)
			die_rank = -1;
	}
	return 0;
}

static int finalize_rc;

/*
 * Is every other rank's process there?  Only ranks on this host can be
 * asked (fin_pid 0: cannot): kill(2) with signal 0 (POSIX: ESRCH, no such
 * process) and the state in /proc/PID/stat (proc(5): Z or X has ended).
 * Async-signal-safe: kill, open, read, close (POSIX signal-safety(7)).
 */
static int
others_there(void)
{
	char buf[512], *p;
	int r, fd, there = 1, saved = errno;
	ssize_t n;

	if (fin_pid == NULL)
		return 0;
	for (r = 0; r < nranks && there; r++) {
		if (r == myrank)
			continue;
		if (fin_pid[r] <= 0 || (kill((pid_t)fin_pid[r], 0) != 0 && errno == ESRCH)) {
			there = 0;
			break;
		}
		if ((fd = open(fin_stat[r], O_RDONLY)) < 0)
			continue;	/* no /proc: kill's word */
		n = read(fd, buf, sizeof buf - 1);
		close(fd);
		buf[n > 0 ? n : 0] = '\0';
		/* "pid (comm) S ...": comm may hold spaces and parentheses */
		for (p = NULL, n = 0; buf[n] != '\0'; n++)
			if (buf[n] == ')')
				p = buf + n;
		if (p != NULL && p[1] == ' ' && (p[2] == 'Z' || p[2] == 'X'))
			there = 0;
	}
	errno = saved;
	return there;
}

/*
 * MPI_Finalize waits for every rank.  After FINALIZE_S a rank that died
 * after the last word is waited for in vain: leave.  But a rank on a
 * loaded machine may simply not have run (rank 0 writing its files, a rank
 * starved): while every other rank's process is there, wait on, a second
 * at a time, up to FINALIZE_LIVE_S; one that is there that long is hung.
 */
static void
finalize_late(int sig)
{
	static const char m[] = "vlocksim: MPI_Finalize did not return (a rank "
	    "died or hung after the end of the run); the results were written before, "
	    "leaving without it\n";

	(void)sig;
	/* rank 0 gives up first (its word is the one a user reads), the others
	 * once it is gone */
	if (fin_waited < FINALIZE_LIVE_S + (myrank > 0 ? 5 : 0) && others_there()) {
		fin_waited++;
		alarm(1);
		return;
	}
	if (write(STDERR_FILENO, m, sizeof m - 1) < 0)
		_exit(finalize_rc);
	_exit(finalize_rc);
}

void
exec_mpi_finalize(int rc)
{
	free(rank_state);
	free(rank_seen);
	free(rank_pid);
	rank_state = NULL;
	rank_seen = NULL;
	rank_pid = NULL;
	/* Everything this rank writes is out before it can be left behind. */
	fflush(NULL);
	/* MPI_Finalize waits for every rank, a dead one too: leave it to mpirun. */
	if (skip_finalize) {
		free(fin_pid);
		fin_pid = NULL;
		return;
	}
	/*
	 * Everyone answered the end protocol, but a rank can still die between
	 * its last word and MPI_Finalize (Open MPI 4.1 has no ULFM to tell us):
	 * then MPI_Finalize never returns.  The files are written, so leave with
	 * the run's own status after FINALIZE_S, or later while every other
	 * rank's process is there (finalize_late).
	 */
	finalize_rc = rc;
	if (fin_pid != NULL) {
		int r;

		fin_stat = xcalloc((size_t)nranks, sizeof *fin_stat);
		for (r = 0; r < nranks; r++)
			snprintf(fin_stat[r], sizeof fin_stat[r], "/proc/%ld/stat", fin_pid[r]);
	}
	fin_waited = FINALIZE_S;
	signal(SIGALRM, finalize_late);
	alarm(FINALIZE_S);
	maybe_die("fin");
	MPI_Finalize();
	alarm(0);
	free(fin_pid);
	free(fin_stat);
	fin_pid = NULL;
	fin_stat = NULL;
}

/*
 * FIN: did a rank die (one byte), then every rank's pid on rank 0's host (0
 * elsewhere; int64 each) and that host's name, so that each rank can ask the
 * OS about the others while it waits in MPI_Finalize (finalize_late).
 */
static size_t
fin_make(char **msg, char dead)
{
	size_t len = 1 + (size_t)nranks * sizeof(int64_t) + strlen(host);
	int64_t pid;
	int r;

	*msg = xmalloc(len);
	(*msg)[0] = dead;
	for (r = 0; r < nranks; r++) {
		pid = r == 0 ? (int64_t)getpid() : (int64_t)rank_pid[r];
		memcpy(*msg + 1 + (size_t)r * sizeof pid, &pid, sizeof pid);
	}
	memcpy(*msg + 1 + (size_t)nranks * sizeof pid, host, strlen(host));
	fin_pid = xcalloc((size_t)nranks, sizeof *fin_pid);
	for (r = 1; r < nranks; r++)
		fin_pid[r] = rank_pid[r];
	return len;
}

/* A rank's side of fin_make: the pids, if rank 0's host is this one. */
static char
fin_read(const char *msg, int n)
{
	size_t head = 1 + (size_t)nranks * sizeof(int64_t);
	int64_t pid;
	int r;

	if (n < (int)head)
		return msg[0];	/* (a short FIN: no pids) */
	fin_pid = xcalloc((size_t)nranks, sizeof *fin_pid);
	if ((size_t)n - head == strlen(host) && memcmp(msg + head, host, strlen(host)) == 0)
		for (r = 0; r < nranks; r++)
			if (r != myrank) {
				memcpy(&pid, msg + 1 + (size_t)r * sizeof pid, sizeof pid);
				fin_pid[r] = (long)pid;
			}
	return msg[0];
}

/* ---- rank 0 --------------------------------------------------------------- */

struct mslot {
	int busy;
	size_t id;
};

struct exec_mpi {
	struct exec_backend be;
	const struct exec_job *job;	/* for its argument */
	int jobs, n;		/* slots per rank, slots in all */
	struct mslot *s;	/* slot k is on rank 1 + k / jobs */
};

static int
mpi_nslots(struct exec_backend *be)
{
	return ((struct exec_mpi *)be)->n;
}

static int
mpi_ready(struct exec_backend *be, int slot)
{
	return rank_state[1 + slot / ((struct exec_mpi *)be)->jobs] == RANK_READY;
}

/* A job of a dead rank still marked running: report it lost. */
static int
lost_job(struct exec_mpi *x, struct exec_event *ev)
{
	int k, r;

	for (k = 0; k < x->n; k++) {
		r = 1 + k / x->jobs;
		if (x->s[k].busy && rank_state[r] == RANK_DEAD) {
			x->s[k].busy = 0;
			ev->slot = k;
			ev->id = x->s[k].id;
			ev->status = EXEC_LOST;
			ev->buf = xasprintf("rank %d silent for %.0f s", r, DEAD_S);
			ev->len = strlen(ev->buf);
			return 1;
		}
	}
	return 0;
}

/*
 * ALIVE: the rank's pid (int64) and its host (MPI_Get_processor_name), so
 * that rank 0 can ask the OS about a rank on its own host (rank_gone).
 */
static void
alive_send(void)
{
	char msg[sizeof(int64_t) + sizeof host];
	int64_t pid = (int64_t)getpid();
	size_t n = strlen(host);

	memcpy(msg, &pid, sizeof pid);
	memcpy(msg + sizeof pid, host, n);
	MPI_Send(msg, (int)(sizeof pid + n), MPI_BYTE, 0, TAG_ALIVE, MPI_COMM_WORLD);
}

static void
alive_recv(int r, int n)
{
	char msg[sizeof(int64_t) + sizeof host];
	int64_t pid;

	VS_ASSERT(n >= (int)sizeof pid && n < (int)sizeof msg);
	MPI_Recv(msg, n, MPI_BYTE, r, TAG_ALIVE, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
	memcpy(&pid, msg, sizeof pid);
	msg[n] = '\0';
	rank_pid[r] = strcmp(msg + sizeof pid, host) == 0 ? (long)pid : 0;
}

/*
 * Has rank r's process ended?  Only a rank on rank 0's host can be asked:
 * kill(2) with signal 0 (POSIX: ESRCH, no such process), and a zombie
 * (state Z or X in /proc/PID/stat, proc(5)) has ended too.  Where ranks
 * span hosts (or a host's ranks run in separate pid namespaces under one
 * name) the others cannot: for them silence is all there is.
 */
static int
rank_gone(int r)
{
	char path[48], buf[512], *p;
	size_t n;
	FILE *f;

	if (rank_pid[r] <= 0)
		return 1;
	if (kill((pid_t)rank_pid[r], 0) != 0 && errno == ESRCH)
		return 1;
	snprintf(path, sizeof path, "/proc/%ld/stat", rank_pid[r]);
	if ((f = fopen(path, "r")) == NULL)
		return 0;	/* no /proc: kill's word */
	n = fread(buf, 1, sizeof buf - 1, f);
	fclose(f);
	buf[n] = '\0';
	/* "pid (comm) S ...": comm may hold spaces and parentheses. */
	p = strrchr(buf, ')');
	return p != NULL && p[1] == ' ' && (p[2] == 'Z' || p[2] == 'X');
}

/*
 * Silent for DEAD_S, rank r is dead, but not while the OS says its process
 * is there: a live rank on a loaded machine may not run for seconds (a
 * starved rank taken for dead left nobody calling MPI_Finalize: mpirun said
 * it was "exiting improperly").  A live one silent for LIVE_S is hung.
 */
static int
rank_silent(int r, double now)
{
	double quiet = now - rank_seen[r];

	return quiet > DEAD_S && (quiet > LIVE_S || rank_gone(r));
}

/*
 * Every "alive" that has arrived, so a rank is judged on the news.  A rank
 * is silent only while rank 0 listens: when rank 0 was away longer than
 * DEAF_S (writing files, drawing plots, slower on a loaded machine), that
 * time does not count against the ranks.  Else a rank 0 away for DEAD_S took
 * its live ranks for dead, skipped the end protocol and MPI_Finalize, and
 * mpirun failed a run whose results were whole (1 of 20 validate -np 2 under
 * stress-ng).
 */
static void
drain_alive(void)
{
	static double listened;	/* when rank 0 last listened */
	double now = exec_now();
	MPI_Status st;
	int flag, r, n;

	if (listened > 0 && now - listened > DEAF_S)
		for (r = 1; r < nranks; r++)
			rank_seen[r] += now - listened;
	listened = now;
	for (;;) {
		MPI_Iprobe(MPI_ANY_SOURCE, TAG_ALIVE, MPI_COMM_WORLD, &flag, &st);
		if (!flag)
			return;
		MPI_Get_count(&st, MPI_BYTE, &n);
		alive_recv(st.MPI_SOURCE, n);
		if (rank_state[st.MPI_SOURCE] != RANK_DEAD) {
			rank_state[st.MPI_SOURCE] = RANK_READY;
			rank_seen[st.MPI_SOURCE] = exec_now();
		}
	}
}

/* Ranks that went silent are gone. */
static void
find_dead(void)
{
	double now = exec_now();
	int r;

	for (r = 1; r < nranks; r++)
		if (rank_state[r] == RANK_READY && rank_silent(r, now))
			rank_state[r] = RANK_DEAD;
}

static int
mpi_submit(struct exec_backend *be, int slot, size_t id, struct vs_err *err)
{
	struct exec_mpi *x = (struct exec_mpi *)be;
	uint64_t v = id;
	size_t alen = x->job->arg != NULL ? x->job->arglen : 0;
	char *msg = xmalloc(sizeof v + alen + 1);
	int r = 1 + slot / x->jobs;

	/* JOB: the id, then the run's argument (a rank cannot know it otherwise). */
	VS_ASSERT(alen < (size_t)INT32_MAX - sizeof v);
	memcpy(msg, &v, sizeof v);
	if (alen > 0)
		memcpy(msg + sizeof v, x->job->arg, alen);
	/* A failed send: the rank is gone, and the job is reported lost. */
	if (MPI_Send(msg, (int)(sizeof v + alen), MPI_BYTE, r, TAG_JOB, MPI_COMM_WORLD) !=
	    MPI_SUCCESS)
		rank_state[r] = RANK_DEAD;
	free(msg);
	x->s[slot].busy = 1;
	x->s[slot].id = id;
	return 0;
}

static int
mpi_wait(struct exec_backend *be, double timeout, struct exec_event *ev)
{
	struct exec_mpi *x = (struct exec_mpi *)be;
	double until = exec_now() + timeout;
	MPI_Status st;
	uint64_t id;
	char *msg;
	int flag, n, k, r;

	for (;;) {
		drain_alive();
		MPI_Iprobe(MPI_ANY_SOURCE, TAG_RESULT, MPI_COMM_WORLD, &flag, &st);
		if (flag)
			break;
		find_dead();
		if (lost_job(x, ev))
			return 1;
		if (exec_now() >= until)
			return 0;
		nap();
	}
	MPI_Get_count(&st, MPI_BYTE, &n);
	VS_ASSERT(n >= 9);
	msg = xmalloc((size_t)n + 1);
	MPI_Recv(msg, n, MPI_BYTE, st.MPI_SOURCE, TAG_RESULT, MPI_COMM_WORLD,
	    MPI_STATUS_IGNORE);
	memcpy(&id, msg, sizeof id);
	r = st.MPI_SOURCE;
	rank_seen[r] = exec_now();
	if (rank_state[r] == RANK_DEAD) {
		/* Given up on and its job handed out again: the other copy counts. */
		free(msg);
		return 0;
	}
	for (k = (r - 1) * x->jobs; k < r * x->jobs; k++)
		if (x->s[k].busy && x->s[k].id == id)
			break;
	VS_ASSERT(k < r * x->jobs);	/* a rank answers only the jobs it was sent */
	x->s[k].busy = 0;
	ev->slot = k;
	ev->id = (size_t)id;
	ev->status = msg[8] == 0 ? EXEC_OK : msg[8] == 2 ? EXEC_STOPPED : EXEC_FAILED;
	ev->len = (size_t)n - 9;
	memmove(msg, msg + 9, ev->len);
	msg[ev->len] = '\0';
	ev->buf = msg;
	return 1;
}

static void
mpi_close(struct exec_backend *be)
{
	struct exec_mpi *x = (struct exec_mpi *)be;

	free(x->s);
	free(x);
}

static const struct exec_ops mpi_ops = {
	.name = "mpi",
	.nslots = mpi_nslots,
	.ready = mpi_ready,
	.submit = mpi_submit,
	.wait = mpi_wait,
	.close = mpi_close,
};

struct exec_backend *
exec_mpi_new(const struct exec_job *job, int jobs)
{
	struct exec_mpi *x = xcalloc(1, sizeof *x);
	int size;

	MPI_Comm_size(MPI_COMM_WORLD, &size);
	VS_ASSERT(jobs >= 1 && size >= 2);
	x->be.ops = &mpi_ops;
	x->job = job;
	x->jobs = jobs;
	x->n = (size - 1) * jobs;
	x->s = xcalloc((size_t)x->n, sizeof *x->s);
	if (getenv("VLOCKSIM_MPI_WAIT_READY") != NULL) {
		int r = 1;

		while (r < size) {
			drain_alive();
			if (rank_state[r] != RANK_STARTING)
				r++;
			else
				nap();
		}
	}
	return &x->be;
}

/* Discard what a rank sends after rank 0 stopped listening for it. */
static void
drain_results(void)
{
	MPI_Status st;
	int flag, n;
	char *b;

	for (;;) {
		MPI_Iprobe(MPI_ANY_SOURCE, TAG_RESULT, MPI_COMM_WORLD, &flag, &st);
		if (!flag)
			return;
		MPI_Get_count(&st, MPI_BYTE, &n);
		b = xmalloc((size_t)n + 1);
		MPI_Recv(b, n, MPI_BYTE, st.MPI_SOURCE, TAG_RESULT, MPI_COMM_WORLD,
		    MPI_STATUS_IGNORE);
		free(b);
	}
}

/*
 * A send that cannot hang: to a rank that died, Open MPI 4.1's TCP transport
 * may try to reconnect for ever inside a blocking MPI_Send.  -1: not
 * delivered in DEAD_S (the request is left to MPI, never waited for).
 */
static int
send_timed(const void *buf, int n, int dest, int tag)
{
	MPI_Request rq;
	double t0 = exec_now();
	int flag = 0;

	if (MPI_Isend(buf, n, MPI_BYTE, dest, tag, MPI_COMM_WORLD, &rq) != MPI_SUCCESS)
		return -1;
	for (;;) {
		if (MPI_Test(&rq, &flag, MPI_STATUS_IGNORE) != MPI_SUCCESS)
			return -1;
		if (flag)
			return 0;
		if (exec_now() - t0 > DEAD_S) {
			MPI_Request_free(&rq);
			return -1;
		}
		nap();
	}
}

void
exec_mpi_release(void)
{
	int size, r, waiting, flag;
	char dead = 0, *bye, *fin;
	size_t finlen;
	double t0;
	MPI_Status st;

	if (released++)
		return;
	maybe_die("release");
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	bye = xcalloc((size_t)size, 1);
	/*
	 * The end protocol, a barrier with a timeout built of messages: STOP to
	 * every rank not known dead; each answers BYE once its jobs are over; a
	 * rank silent for DEAD_S is dead (rank_silent: not while its process is
	 * there), and none is waited for past LIVE_S.  Then FIN says whether anyone died:
	 * if so nobody calls MPI_Finalize (it would wait for the dead rank).
	 * Rank 0 calls this after its results are written.
	 */
	drain_alive();
	find_dead();
	for (r = 1; r < size; r++)
		if (rank_state[r] != RANK_DEAD && send_timed(NULL, 0, r, TAG_STOP))
			rank_state[r] = RANK_DEAD;
	t0 = exec_now();
	/* A rank that never said it was ready is silent from STOP on. */
	for (r = 1; r < size; r++)
		if (rank_state[r] == RANK_STARTING)
			rank_seen[r] = t0;
	do {
		drain_alive();
		drain_results();
		for (;;) {
			MPI_Iprobe(MPI_ANY_SOURCE, TAG_BYE, MPI_COMM_WORLD, &flag, &st);
			if (!flag)
				break;
			MPI_Recv(NULL, 0, MPI_BYTE, st.MPI_SOURCE, TAG_BYE, MPI_COMM_WORLD,
			    MPI_STATUS_IGNORE);
			bye[st.MPI_SOURCE] = 1;
		}
		for (waiting = 0, r = 1; r < size; r++)
			waiting += rank_state[r] != RANK_DEAD && !bye[r] &&
			    !rank_silent(r, exec_now());
	} while (waiting > 0 && exec_now() - t0 < LIVE_S && (nap(), 1));
	for (r = 1; r < size; r++) {
		if (rank_state[r] != RANK_DEAD && !bye[r]) {
			rank_state[r] = RANK_DEAD;
			fprintf(stderr, "vlocksim: rank %d did not answer at the end "
			    "(dead?); the results do not depend on it\n", r);
		}
		dead |= rank_state[r] == RANK_DEAD;
	}
	finlen = fin_make(&fin, dead);
	for (r = 1; r < size; r++)
		if (rank_state[r] != RANK_DEAD && send_timed(fin, (int)finlen, r, TAG_FIN)) {
			/* Died after its BYE: the others (told "none died") finalize
			 * under their alarm; this one does not wait for it. */
			rank_state[r] = RANK_DEAD;
			dead = 1;
		}
	skip_finalize = dead;
	free(bye);
	free(fin);
	maybe_die("released");
}

/* ---- ranks > 0 -------------------------------------------------------------- */

static void
send_result(size_t id, int status, const char *buf, size_t len)
{
	char *msg = xmalloc(len + 9);
	uint64_t v = id;

	VS_ASSERT(len < (size_t)INT32_MAX - 9);
	memcpy(msg, &v, sizeof v);
	msg[8] = (char)status;
	memcpy(msg + 9, buf, len);
	MPI_Send(msg, (int)(len + 9), MPI_BYTE, 0, TAG_RESULT, MPI_COMM_WORLD);
	free(msg);
}

/* After STOP and BYE: rank 0's FIN (did a rank die?).  Rank 0 sends it
 * within LIVE_S + DEAD_S (waiting for the other ranks' BYE, then a timed
 * send); no word in LIVE_S + 3 x DEAD_S and rank 0 is gone too. */
static void
await_fin(void)
{
	double t0 = exec_now();
	char dead = 1, *msg;
	MPI_Status st;
	int flag, n;

	for (;;) {
		MPI_Iprobe(0, TAG_FIN, MPI_COMM_WORLD, &flag, &st);
		if (flag) {
			MPI_Get_count(&st, MPI_BYTE, &n);
			VS_ASSERT(n >= 1);
			msg = xmalloc((size_t)n);
			MPI_Recv(msg, n, MPI_BYTE, 0, TAG_FIN, MPI_COMM_WORLD,
			    MPI_STATUS_IGNORE);
			dead = fin_read(msg, n);
			free(msg);
			break;
		}
		if (exec_now() - t0 > LIVE_S + 3 * DEAD_S)
			break;
		nap();
	}
	skip_finalize = dead;
}

void
exec_mpi_serve(const struct exec_job *job, int jobs, const char *fail_msg)
{
	/* The fork backend reads the job's argument at each submit: set it from
	 * the JOB message first. */
	struct exec_job mine = job != NULL ? *job : (struct exec_job){ 0 };
	struct exec_backend *be = job != NULL ? exec_fork_new(&mine, jobs) : NULL;
	char *used = xcalloc((size_t)jobs, 1), *msg;
	struct exec_event ev;
	struct vs_err err;
	MPI_Status st;
	int running = 0, stop = 0, flag, s, idle, n;
	double said = -1;
	uint64_t id;

	while (!stop || running > 0) {
		idle = 1;
		if (exec_now() - said >= ALIVE_S) {
			/* The first says this rank is ready; then it says it is alive. */
			alive_send();
			said = exec_now();
		}
		if (running < jobs && !stop) {
			MPI_Iprobe(0, MPI_ANY_TAG, MPI_COMM_WORLD, &flag, &st);
			if (flag && st.MPI_TAG == TAG_STOP) {
				MPI_Recv(NULL, 0, MPI_BYTE, 0, TAG_STOP, MPI_COMM_WORLD,
				    MPI_STATUS_IGNORE);
				maybe_die("stop");
				stop = 1;
			} else if (flag && st.MPI_TAG == TAG_JOB) {
				MPI_Get_count(&st, MPI_BYTE, &n);
				VS_ASSERT(n >= (int)sizeof id);
				msg = xmalloc((size_t)n + 1);
				MPI_Recv(msg, n, MPI_BYTE, 0, TAG_JOB, MPI_COMM_WORLD,
				    MPI_STATUS_IGNORE);
				memcpy(&id, msg, sizeof id);
				msg[n] = '\0';
				maybe_die("job");
				mine.arg = n > (int)sizeof id ? msg + sizeof id : NULL;
				mine.arglen = (size_t)n - sizeof id;
				idle = 0;
				for (s = 0; used[s]; s++)
					;
				if (be == NULL)
					send_result((size_t)id, 1, fail_msg, strlen(fail_msg));
				else if (be->ops->submit(be, s, (size_t)id, &err))
					send_result((size_t)id, 1, err.msg, strlen(err.msg));
				else {
					used[s] = 1;
					running++;
				}
				/* The fork has its copy. */
				mine.arg = NULL;
				mine.arglen = 0;
				free(msg);
			}
		}
		if (running > 0 && be->ops->wait(be, idle ? 0.001 : 0, &ev)) {
			used[ev.slot] = 0;
			running--;
			/* RESULT's status byte: 0 ok, 1 failed, 2 stopped at a limit */
			send_result(ev.id, ev.status == EXEC_OK ? 0 : ev.status == EXEC_STOPPED ?
			    2 : 1, ev.buf, ev.len);
			free(ev.buf);
		} else if (idle && running == 0) {
			nap();
		}
	}
	MPI_Send(NULL, 0, MPI_BYTE, 0, TAG_BYE, MPI_COMM_WORLD);
	maybe_die("bye");
	await_fin();
	if (be != NULL)
		be->ops->close(be);
	free(used);
}

#else /* !HAVE_MPI */

int
exec_mpi_init(int *rank, int *size, struct vs_err *err)
{
	return vs_errf(err, NULL, 0, 0, "started by an MPI launcher, but this vlocksim "
	    "was built without MPI (install libopenmpi-dev, then ./configure --with-mpi); "
	    "every rank would run the whole sweep");
}

struct exec_backend *
exec_mpi_new(const struct exec_job *job, int jobs)
{
	vs_fatal("exec_mpi_new without MPI");
}

void
exec_mpi_serve(const struct exec_job *job, int jobs, const char *fail_msg)
{
	vs_fatal("exec_mpi_serve without MPI");
}

void
exec_mpi_release(void)
{
}

void
exec_mpi_finalize(int rc)
{
}

#endif
