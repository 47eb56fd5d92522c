/*
 * state.h - what one rank knows about the MPI job, shared by the files of
 * job/ and by nothing else: job.c (set-up, the sweep, the end), combo.c
 * (one combination's phase script), steps.c (deadlines of the collective
 * steps) and progress.c (what rank 0 prints while it runs).
 */
#ifndef ST_JOB_STATE_H
#define ST_JOB_STATE_H

#include "../../common/options.h"
#include "../../common/wire.h"
#include "../../worker/engine.h"
#include "../../worker/mount.h"
#include "../../worker/sampler.h"
#include "../store/store.h"

#include <hwloc.h>
#include <mpi.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>

enum job_progress { PROGRESS_NONE, PROGRESS_PLAIN, PROGRESS_LIVE };
#define PROGRESS_TAG 77 /* progress_comm: a rank's bytes so far (progress.c) */
#define STEP_TAG 78	/* step_comm: "I have reached step N" (steps.c) */
#define STONEWALL_TAG 79 /* progress_comm: "my threads are done" (stonewall.c) */
#define STEP_RING 64	/* send buffers of those messages in flight */

/* What a rank knows about the job; one per rank, made by st_cmd_run. */
struct job {
	int rank, size;
	int checked;		    /* rank 0's checks were made before MPI_Init */
	struct st_config cfg;
	const struct st_engine *engine;
	char run_id[40];
	char run_dir[64];
	hwloc_topology_t topo;
	struct st_host_info *hosts; /* all ranks (allgathered) */
	int *roles;		    /* per rank, enum st_role */
	int *partners;		    /* per rank: whose files it reads with reorder */
	int64_t *offsets, *rtts;    /* rank 0: per rank */
	int64_t my_offset;	    /* this rank's clock - rank 0's */
	struct st_sampler *sampler; /* server ranks: /proc sampling during phases */
	int nservers;		    /* ranks with the server role */
	int touched;		    /* this rank made something on the target in this run */
	MPI_Comm host_comm;	    /* the ranks of this host (MPI_COMM_NULL before) */
	uint64_t run_seed;	    /* from the run id: the --verify pattern */
	struct st_store *store;	    /* rank 0 */
	uint64_t db_dev, db_ino;    /* rank 0: the store's file, as the run began */
	unsigned phases;	    /* mask of phases to run */
	int quiet;
	int progress;		    /* enum job_progress (the same on every rank) */
	MPI_Comm progress_comm;	    /* live progress messages, apart from the rest */
	int64_t run_start_ns;	    /* rank 0: when the sweep began */
	uint64_t combos_done;	    /* rank 0: combinations finished so far (this part) */
	uint64_t combos_todo;	    /* rank 0: combinations this part runs (resumed: the rest) */
	int64_t combos_done_ns;	    /* rank 0: when the last of them finished */
	int store_failed;	    /* a write to the store failed: the sweep stops */
	struct st_watch *watch;	    /* rank 0: deaths and signals; others: the lifeline */
	struct st_live *live;	    /* rank 0: the lock that says the run is live (store/live.h) */
	MPI_Comm step_comm;	    /* "I have reached step N" messages to rank 0 */
	int step;		    /* collective steps so far (the same on every rank) */
	int *last_step;		    /* rank 0: per rank, the last step it reached */
	int step_buf[STEP_RING];    /* others: send buffers of those messages */
	st_run_report_fn *report;   /* rank 0: prints the run's report at its end */
	int io_mode_noted;	    /* rank 0: a thread's queue fallback was told (issue 14) */
	struct st_mount_state *mnt; /* --mount, local rank 0 of a client host: what it mounted */
	pthread_mutex_t mnt_mu;	    /* held by a mount, a cache drop and the ending's release */
	atomic_int mnt_closed;	    /* the job is ending: no mount or remount any more */
	struct st_srv_state *srv;   /* a knfsd server host's first rank: what --server-threads,
				       --server-export changed, to put back (worker/srvopts.h) */
};

#endif
