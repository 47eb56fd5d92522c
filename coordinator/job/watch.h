/*
 * watch.h - rank 0 keeps watch over the job, so that a run that ends badly
 * is stored as aborted with its culprit named, never left "running".
 *
 * Open MPI 4.1 has no failure notification (ULFM came with 5.0): when a rank
 * dies, mpirun sends SIGTERM to every other rank about a second later and
 * SIGKILL a second after that. So every other rank keeps one TCP connection
 * to rank 0, its lifeline: the kernel closes it when the process ends, however
 * it ends, and rank 0's watch thread sees the close at once. The same thread
 * takes SIGTERM, SIGINT and SIGHUP (blocked in every thread before MPI
 * starts its own, and read from a signalfd), so mpirun's kill wave and a
 * Ctrl-C also leave an aborted run with a reason; every rank's watch thread
 * removes the rank's files as it ends so. The ranks then end together, none
 * before rank 0 says (mpirun's SIGKILL follows the first rank's exit at
 * once): rank 0 has marked the run and every rank has removed its files. A rank that hangs instead
 * (a stopped process, a hard NFS mount in D state) keeps its lifeline: the
 * job's deadline checks (steps.c) name it and call st_watch_abort.
 *
 * Rank 0's watch thread also beats on every lifeline each second. A rank
 * that hears no beat for silence_ns (the phase deadline and its grace, as
 * for any hung rank) tells rank 0 so on its lifeline (the reason then names
 * rank 0, should it go on) and ends with exit status 3: a stopped rank 0
 * cannot keep a job waiting for ever. Rank 0 notes a stop of its own (its
 * watch thread woke late), so that a step it then finds late blames it.
 *
 * The first reason wins; it is written by a connection of its own, so it
 * does not wait for the main thread. Every function is safe to call with
 * w == NULL; the rank-0 ones do nothing on other ranks.
 */
#ifndef ST_WATCH_H
#define ST_WATCH_H

#include "../../common/wire.h"

#include <mpi.h>
#include <stddef.h>

struct st_watch;

/* Call before MPI_Init on every process: it blocks the signals the watch
 * threads read (SIGTERM, SIGINT, SIGHUP), so that the threads MPI starts
 * inherit the mask. */
void st_watch_block_signals(void);

/* Every rank: what to do as the rank ends on one of those signals (mpirun
 * sends SIGTERM to every rank on Ctrl-C and when a rank fails), or as rank
 * 0 ends the job (a hung rank): remove this rank's files, so that an
 * interrupted run leaves none, and say in left (n bytes) what could not
 * be removed or unmounted ("" when nothing). fn runs in the watch thread,
 * while the rank's other threads go on; it must not block for long
 * (mpirun's SIGKILL follows). Rank 0 stores what every rank said in
 * run.cleanup, as a run's end does. */
#define ST_WATCH_LEFT_MAX 400
typedef void st_watch_cleanup_fn(void *arg, char *left, size_t n);
void st_watch_set_cleanup(struct st_watch *w, st_watch_cleanup_fn *fn, void *arg);

/* Rank 0, the run marked aborted (st_watch_abort): the ranks end together,
 * as on a signal: every rank removes its files and says what is left, rank
 * 0 stores it, and every other rank ends with exit status 3 (in at most
 * about 3 s: a hung rank does not answer). Then the caller ends the job
 * (MPI_Abort: mpirun does not wait for a rank stuck in the kernel). */
void st_watch_end(struct st_watch *w);

/* The calling thread takes those signals again (once the watch is stopped,
 * or was never started): a signal then ends rank 0 as usual. */
void st_watch_unblock_signals(void);

/* Rank 0: the soft descriptor limit raised for one lifeline per rank of a
 * job of size ranks, before anything else takes descriptors (the store, its
 * live lock): a job beyond the soft limit would fail to open the store. */
void st_watch_room_for_lifelines(int size);

/* Collective over comm. Rank 0 listens and starts the watch thread; every
 * other rank connects its lifeline (to 127.0.0.1 on rank 0's host, else to
 * rank 0's addresses). A rank that cannot connect is reported on stderr by
 * rank 0 (its death is then found by the deadlines only). */
struct st_watch *st_watch_start(MPI_Comm comm, const struct st_host_info *hosts,
				const char *db_path, const char *run_id, uint64_t total,
				int64_t silence_ns);

/* Rank 0: how long rank 0 itself was stopped (or starved), if it was, in a
 * stop that ended after `since` (local clock); 0 when it was not. */
int64_t st_watch_rank0_stopped(struct st_watch *w, int64_t since);

/* Rank 0: what the job is doing, for the reason text (seq -1: between
 * combinations; phase -1: preparing). */
void st_watch_where(struct st_watch *w, int seq, int phase);

/* Rank 0: the place text ("combination 3/8, phase write"). */
void st_watch_place(struct st_watch *w, char *buf, size_t n);

/* Rank 0: record the run as aborted (rank -1: no one rank), unless a reason
 * is already recorded; then print it. Returns the number of combinations
 * the store holds for the run, or -1. */
int st_watch_abort(struct st_watch *w, int rank, const char *reason);

/* Rank 0: stop watching (before the job's last collective: from then on the
 * ranks may end). Others: close the lifeline (after that collective). Frees. */
void st_watch_stop(struct st_watch *w);

#endif
