/*
 * worker.h - what every rank runs for one combination: a pool of pinned I/O
 * threads that execute the timed phases.
 *
 * Lifecycle: st_worker_prepare (engine setup, run directory, threads pinned,
 * then buffers allocated and touched, files laid out when no write phase
 * will or when a read follows a write that --runtime or --stonewall may
 * end early, the metadata phases' directories made and, without a create
 * phase, their files) -> st_worker_phase for each phase -> st_worker_finish
 * (threads joined, own files removed unless --keep, engine torn down).
 * Only the calling (MPI) thread calls these; the I/O threads never touch MPI.
 */
#ifndef ST_WORKER_H
#define ST_WORKER_H

#include "../common/options.h"
#include "../common/wire.h"
#include "engine.h"

#include <hwloc.h>

struct st_worker;

struct st_worker_args {
	const struct st_engine *engine;
	const struct st_config *cfg;
	const struct st_combo *combo;
	hwloc_topology_t topo;		/* loaded once per rank, read-only */
	int rank;			/* MPI rank */
	int local_rank;			/* index among ranks of the same host */
	int role;			/* enum st_role: only clients do I/O */
	int partner;			/* rank whose files this rank reads (reorder) */
	int64_t clock_offset_ns;	/* local clock - common clock, ns */
	const char *run_dir;		/* "stcluster-<run id>", relative to the target */
	unsigned phases;		/* phases this combination runs (1u << ST_PHASE_*) */
	uint64_t run_seed;		/* seed of the data written (--data), the same on every rank */
	int client_index;		/* this rank among the client ranks, 0-based (-1: not one) */
	int partner_client;		/* the partner's index among them */
	int nclients;			/* client ranks of the job */
};

/* Whether the worker's rank made anything on the target (the run's
 * directory, or files its threads may have created): what the end of the
 * run must look for. 0 when its engine never reached the target. */
int st_worker_touched(const struct st_worker *w);

/*
 * Prepare one combination. Always returns a worker (NULL only when out of
 * memory) that must be passed to st_worker_finish; ps says whether
 * preparation worked (ps->err == 0) and otherwise what failed.
 */
struct st_worker *st_worker_prepare(const struct st_worker_args *a,
				    struct st_prepare_status *ps);

/* Threads of this worker (0 for a rank that does no I/O). */
int st_worker_threads(const struct st_worker *w);

/*
 * Run one phase on every thread and wait for them. Times in the results
 * are on the common timeline. tr must hold st_worker_threads() entries.
 * release_local_ns is when the phase barrier released this rank.
 */
void st_worker_phase(struct st_worker *w, int phase, int64_t release_local_ns,
		     struct st_rank_result *rr, struct st_thread_result *tr);

/* The same in three steps, so the calling thread can do other work (the
 * progress line) while the phase runs: begin; wait (until the local clock
 * reads until_ns, INT64_MAX for no limit; 1 when every thread is done);
 * end (collect, only after wait returned 1). */
void st_worker_phase_begin(struct st_worker *w, int phase, int64_t release_local_ns);
int st_worker_phase_wait(struct st_worker *w, int64_t until_ns);
void st_worker_phase_end(struct st_worker *w, struct st_rank_result *rr,
			 struct st_thread_result *tr);

/* Bytes the threads have moved so far in the running phase (relaxed reads
 * of counters the threads keep anyway: no cost to the timed path). */
uint64_t st_worker_live_bytes(struct st_worker *w);

/* --stonewall: another client is done; every thread stops after its call
 * in flight (any thread may be told at any time; a relaxed flag). */
void st_worker_stop(struct st_worker *w);

/* --stonewall wearout: 1 when every thread is waiting at the end of
 * --runtime (or done), with *most the most calls any of them had made by
 * then; 0 while some still run. st_worker_wear_go lets every thread go on
 * until it has made `calls`. */
int st_worker_wear_ready(struct st_worker *w, uint64_t *most);
void st_worker_wear_go(struct st_worker *w, uint64_t calls);

/* After st_worker_phase_end: this rank's bytes and calls per interval of
 * the phase (common/interval.h), its threads merged; *n of them (0 for a
 * rank that does no I/O). Valid until the next phase. */
const struct st_interval *st_worker_intervals(const struct st_worker *w, size_t *n);

/* After st_worker_phase_end: the engine's own count of this rank's RPCs in
 * the phase (an engine with thread_rpc: libnfs), into out. 1 when there is
 * one, 0 when the engine counts none (the caller may read the kernel's). */
int st_worker_rpc(struct st_worker *w, struct st_rpc_result *out);

/* Stop threads, remove this rank's files, tear the engine down. Accepts NULL. */
void st_worker_finish(struct st_worker *w);

/* At the end of a run (after a barrier), or as a rank ends on a signal:
 * remove what is left of this rank's files (a removal that failed
 * earlier, a combination cut short), then the run directory if it is
 * empty. Missing, or still holding another rank's files, is not an error.
 * What could not be removed is named in left (n bytes; may be NULL):
 * "stcluster-<id>/r1.t0: ETIMEDOUT, ...", "" when nothing is left. Gives
 * up reaching the target after give_up_ns (0: the phase deadline). 0, or
 * the first -errno. */
int st_worker_remove_run_dir(const struct st_worker_args *a, int64_t give_up_ns, char *left,
			     size_t n);

/* Path of the file of (rank, thread) under run_dir: "<run_dir>/r<rank>.t<thread>";
 * with --layout shared every thread's is "<run_dir>/shared". */
void st_worker_file_path(const char *run_dir, int rank, int thread, char *buf, size_t n);

/* The directory of the metadata phases' files of (rank, thread):
 * "<run_dir>/r<rank>.t<thread>.d"; with --fanout N > 1 the files are in its
 * subdirectories d0 .. d<N-1>, named f<i> (i the file's number, from 0). */
void st_worker_meta_dir(const char *run_dir, int rank, int thread, char *buf, size_t n);

/* The one directory of --dir-mode shared: "<run_dir>/shared.d", every
 * thread's files in it (or in its --fanout subdirectories) named
 * f<i>.r<rank>.t<thread>. */
void st_worker_meta_shared_dir(const char *run_dir, char *buf, size_t n);

#endif
