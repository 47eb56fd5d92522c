/*
 * steps.c - deadlines of the job's collective steps (see steps.h).
 */
#include "steps.h"

#include "../../common/util.h"
#include "../../worker/worker.h"
#include "die.h"
#include "server.h"
#include "watch.h"

#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

int64_t st_step_deadline(const struct job *j, int64_t from)
{
	int64_t dl = j->cfg.o[ST_OPT_DEADLINE].v[0];
	return from + dl + 5000000000LL + dl / 10;
}

/* Rank 0: read every "reached step" message that has come in. */
void st_step_drain(struct job *j)
{
	int flag = 1;
	while (flag) {
		MPI_Status stt;
		MPI_Iprobe(MPI_ANY_SOURCE, STEP_TAG, j->step_comm, &flag, &stt);
		if (!flag)
			break;
		int step;
		MPI_Recv(&step, 1, MPI_INT, stt.MPI_SOURCE, STEP_TAG, j->step_comm,
			 MPI_STATUS_IGNORE);
		j->last_step[stt.MPI_SOURCE] = step;
	}
}

/* Rank 0: the ranks in missing[] are hung: record the run as aborted,
 * naming them, and end the job (mpirun then ends every rank, exit 3). */
_Noreturn void st_step_abort_hung(struct job *j, const int *missing, const char *what,
				  int64_t since)
{
	char place[128], who[512] = "", reason[1024];
	int first = -1, count = 0;
	for (int r = 0; r < j->size; r++) {
		if (!missing[r])
			continue;
		if (first < 0)
			first = r;
		size_t l = strlen(who);
		if (count++ < 4)
			snprintf(who + l, sizeof(who) - l, "%srank %d (host %s)", l ? ", " : "", r,
				 j->hosts[r].hostname);
	}
	if (count > 4) {
		size_t l = strlen(who);
		snprintf(who + l, sizeof(who) - l, " and %d more", count - 4);
	}
	st_watch_place(j->watch, place, sizeof(place));
	int64_t stopped = st_watch_rank0_stopped(j->watch, since);
	if (stopped) {
		/* the others did not hang: rank 0 itself stood still */
		snprintf(reason, sizeof(reason),
			 "rank 0 (host %s) itself was stopped for %.1f s during %s (%s): the step was "
			 "not the others' to reach",
			 j->hosts[0].hostname, (double)stopped / 1e9, what, place);
		first = 0;
	} else if (!count) {
		/* every other rank reached it: rank 0 itself came late (stopped
		 * or held off the CPU, and its watch saw no gap) */
		snprintf(reason, sizeof(reason),
			 "rank 0 (host %s) itself reached %s %.1f s after it began, past its deadline "
			 "(%s): every other rank was there",
			 j->hosts[0].hostname, what, (double)(st_now_ns() - since) / 1e9, place);
		first = 0;
	} else {
		snprintf(reason, sizeof(reason), "%s did not reach %s within %.1f s (%s; hung?)", who,
			 what, (double)(st_now_ns() - since) / 1e9, place);
	}
	st_watch_abort(j->watch, first, reason);
	/* the ranks end together: every rank removes its files and detaches
	 * stcluster's mount (remove_files_on_signal in job.c), rank 0 stores
	 * what is left, the hung ones named as such */
	st_watch_end(j->watch);
	/* no watch thread: the target's previous state, where that cannot
	 * block, on this host (the others' as mpirun's SIGTERM ends them) */
	if (j->mnt)
		st_mount_release(j->mnt, 1, NULL, 0);
	MPI_Abort(MPI_COMM_WORLD, ST_EXIT_ABORTED);
	_exit(ST_EXIT_ABORTED);
}

/* Every rank, at the same point: one more collective step. The others tell
 * rank 0 they have reached it (no wait: the message is small). */
void st_step_reached(struct job *j)
{
	j->step++;
	if (j->rank == 0)
		return;
	int *b = &j->step_buf[j->step % STEP_RING];
	MPI_Request q;
	*b = j->step;
	MPI_Isend(b, 1, MPI_INT, 0, STEP_TAG, j->step_comm, &q);
	MPI_Request_free(&q);
}

/* Rank 0: abort when the step is past its deadline, naming who never reached it. */
void st_step_check(struct job *j, int64_t deadline, int64_t since, const char *what)
{
	if (j->rank || st_now_ns() <= deadline)
		return;
	st_step_drain(j);
	int *missing = calloc((size_t)j->size, sizeof(int));
	if (!missing)
		st_die("out of memory");
	for (int r = 1; r < j->size; r++)
		missing[r] = j->last_step[r] < j->step;
	st_step_abort_hung(j, missing, what, since);
}

/* Complete a collective request of this step, begun at since: the other
 * ranks wait as long as it takes (rank 0 decides), rank 0 until the
 * deadline: it tests the request, then sleeps, doubling from 5 us to
 * 200 us (quick steps stay quick), and reads the "reached" messages while
 * it waits and after. So rank 0 sees a step end up to a poll
 * interval after the others: a step that must release every rank at one
 * moment follows with st_step_release. */
void st_step_await(struct job *j, MPI_Request *q, int64_t since, const char *what)
{
	int64_t deadline = st_step_deadline(j, since);
	st_step_reached(j);
	if (j->rank) {
		MPI_Wait(q, MPI_STATUS_IGNORE);
		return;
	}
	long pause = 5000; /* ns */
	for (;;) {
		int done = 0;
		MPI_Test(q, &done, MPI_STATUS_IGNORE);
		if (done)
			break;
		st_step_check(j, deadline, since, what);
		st_step_drain(j);
		struct timespec ts = { 0, pause };
		nanosleep(&ts, NULL);
		if (pause < 200000)
			pause *= 2;
	}
	st_step_drain(j); /* what came in at the end: the queue stays short */
}

/* Every rank, right after a step's await (so every rank is there, awake
 * within a poll interval): one more barrier, which every rank completes by
 * testing it without sleeping (yielding the CPU between tests, as Open
 * MPI's own wait does when idle), rank 0 with its deadline check between
 * tests. Its completion is the release: no rank leaves a poll interval
 * after the others, rank 0 included. */
void st_step_release(struct job *j, int64_t since, const char *what)
{
	int64_t deadline = st_step_deadline(j, since);
	MPI_Request q;
	MPI_Ibarrier(MPI_COMM_WORLD, &q);
	for (int done = 0;;) {
		MPI_Test(&q, &done, MPI_STATUS_IGNORE);
		if (done)
			return;
		if (j->rank == 0)
			st_step_check(j, deadline, since, what);
		sched_yield();
	}
}

_Noreturn void st_step_abort_local(struct job *j, const char *what, int64_t since)
{
	st_step_drain(j);
	int *missing = calloc((size_t)j->size, sizeof(int));
	if (!missing)
		st_die("out of memory");
	missing[0] = 1;
	for (int r = 1; r < j->size; r++)
		missing[r] = j->last_step[r] <= j->step;
	st_step_abort_hung(j, missing, what, since);
}

struct local_run {
	st_local_fn *fn;
	void *arg;
	pthread_mutex_t mu;
	pthread_cond_t cv;
	int done;
};

static void *local_main(void *p)
{
	struct local_run *l = p;
	l->fn(l->arg);
	pthread_mutex_lock(&l->mu);
	l->done = 1;
	pthread_cond_signal(&l->cv);
	pthread_mutex_unlock(&l->mu);
	return NULL;
}

void st_step_local(struct job *j, st_local_fn *fn, void *arg, int64_t since, const char *what)
{
	if (j->rank != 0) {
		fn(arg);
		return;
	}
	struct local_run l = { .fn = fn, .arg = arg };
	pthread_mutex_init(&l.mu, NULL);
	pthread_t t;
	int cv_made = st_cond_init(&l.cv) == 0;
	if (!cv_made || pthread_create(&t, NULL, local_main, &l)) {
		fn(arg); /* no thread: as before, unwatched */
	} else {
		int64_t deadline = st_step_deadline(j, since);
		pthread_mutex_lock(&l.mu);
		while (!l.done) {
			if (st_now_ns() > deadline) {
				/* the thread stays blocked; the job ends around it */
				pthread_mutex_unlock(&l.mu);
				st_step_abort_local(j, what, since);
			}
			/* cv waits on the monotonic clock (st_cond_init), the
			 * deadline's own: a step of the wall clock moves nothing */
			st_cond_wait_until(&l.cv, &l.mu, deadline);
		}
		pthread_mutex_unlock(&l.mu);
		pthread_join(t, NULL);
	}
	if (cv_made)
		pthread_cond_destroy(&l.cv);
	pthread_mutex_destroy(&l.mu);
}

/* A removal of the rank's files as it ends, in a thread of its own: on a
 * hard NFS mount whose server does not answer, the posix engine's unlink
 * waits in the kernel for ever. */
struct removal {
	pthread_mutex_t mu;
	pthread_cond_t cv;
	int done;
	struct st_combo none;
	struct st_worker_args wa;
	char left[ST_WATCH_LEFT_MAX];
};

static void *removal_thread(void *arg)
{
	struct removal *b = arg;
	st_worker_remove_run_dir(&b->wa, 2000000000LL, b->left, sizeof(b->left));
	pthread_mutex_lock(&b->mu);
	b->done = 1;
	pthread_cond_signal(&b->cv);
	pthread_mutex_unlock(&b->mu);
	return NULL;
}

/* How long a rank ending waits for that removal: the removal gives up
 * reaching the target after 2 s where its engine can (libnfs). */
#define REMOVAL_WAIT_NS 2500000000LL
/* ... and for a mount or remount cycle in flight (a tmpfs or a healthy
 * server's NFS mount takes milliseconds) */
#define MOUNT_WAIT_S 2

void st_step_remove_on_signal(void *arg, char *left, size_t n)
{
	struct job *j = arg;
	st_server_restore(j, left, n); /* a server host: its own settings back */
	if (j->roles[j->rank] != ST_ROLE_CLIENT)
		return;
	struct removal *b = calloc(1, sizeof(*b));
	pthread_t t;
	if (!b || pthread_mutex_init(&b->mu, NULL) || st_cond_init(&b->cv)) {
		snprintf(left, n, "its files: no memory to remove them");
		free(b);
		return;
	}
	st_plan_combo(&j->cfg, 0, &b->none);
	b->wa = (struct st_worker_args){ .engine = j->engine, .cfg = &j->cfg, .combo = &b->none,
					 .rank = j->rank, .run_dir = j->run_dir };
	int started = !pthread_create(&t, NULL, removal_thread, b);
	if (started)
		pthread_detach(t);
	else
		removal_thread(b);
	int64_t until = st_now_ns() + REMOVAL_WAIT_NS;
	pthread_mutex_lock(&b->mu);
	while (!b->done && st_cond_wait_until(&b->cv, &b->mu, until) != ETIMEDOUT)
		;
	int done = b->done;
	pthread_mutex_unlock(&b->mu);
	if (done) {
		st_copy(left, n, b->left);
		pthread_cond_destroy(&b->cv);
		pthread_mutex_destroy(&b->mu);
		free(b);
	} else { /* b stays the thread's, which may never return */
		snprintf(left, n, "%s: its removal did not end in %.1f s (the target does not answer?)",
			 j->run_dir, (double)REMOVAL_WAIT_NS / 1e9);
	}
	/* then stcluster's mount, detached where that cannot block, once a
	 * mount or remount cycle in flight has ended (none starts after) */
	char msg[ST_ERR_MAX];
	size_t off = strlen(left);
	atomic_store(&j->mnt_closed, 1);
	int held = !st_mutex_lock_until(&j->mnt_mu, st_now_ns() + MOUNT_WAIT_S * 1000000000LL);
	if (!held)
		off += (size_t)snprintf(left + off, n - off,
					"%sits mount: a mount in flight did not end in %d s", off ? "; " : "",
					MOUNT_WAIT_S);
	if (j->mnt && st_mount_release(j->mnt, 1, msg, sizeof(msg)))
		snprintf(left + off, n - off, "%sits mount: %s", off ? "; " : "", msg);
	if (held)
		pthread_mutex_unlock(&j->mnt_mu);
}
