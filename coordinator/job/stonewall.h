/*
 * stonewall.h - --stonewall on: every client stops when the first is done
 * (elbencho's first done; IOR's -D, a deadline in seconds, is --runtime).
 *
 * Each client rank, when its threads have done their bytes (or stopped),
 * sends one "done" to every other client rank; the first "done" a rank
 * receives tells its threads to stop after their call in flight. Every
 * client sends exactly one to every other in every phase, and receives as
 * many, so no message is left for the next phase: the ones still on their
 * way when a rank leaves the phase are received after the phase-end
 * barrier (st_stonewall_end), by which every send has been posted. Server
 * ranks take no part.
 *
 * --stonewall wearout: the same exchange, at the end of --runtime, with
 * each rank's most calls of a thread as the message instead of "done":
 * once a rank has every other's (and its threads all wait at the stop),
 * its threads go on to the largest (IOR's stonewalling wear-out).
 */
#ifndef ST_STONEWALL_H
#define ST_STONEWALL_H

#include "../../worker/worker.h"
#include "state.h"

#include <mpi.h>

struct st_stonewall {
	int active;	   /* this rank takes part in this phase */
	int wear;	   /* --stonewall wearout (else on: the first done) */
	int released;	   /* wear: the threads were told how far to go on */
	uint64_t mine, rcount, most; /* wear: this rank's calls, one received, the most */
	int nothers;	   /* other client ranks */
	int got;	   /* their "done" received */
	int sent;	   /* this rank's own sent */
	int one, rbuf;	   /* send and receive buffers */
	MPI_Request rreq;  /* the receive posted (MPI_REQUEST_NULL: none) */
	MPI_Request *sreq; /* one send per other client */
};

/* Before the phase's I/O: post the receive (when the combination says
 * --stonewall on, the phase is a data phase, this rank is a client and
 * there is another). */
void st_stonewall_begin(struct job *j, struct st_stonewall *sw, const struct st_combo *c,
			int phase);

/* While the phase runs: a "done" that came in stops the threads; done = 1
 * (this rank's threads are done) sends this rank's own. Accepts NULL. */
void st_stonewall_poll(struct job *j, struct st_stonewall *sw, struct st_worker *w, int done);

/* After the phase-end barrier: the "done" messages still due. */
void st_stonewall_end(struct job *j, struct st_stonewall *sw);

#endif
