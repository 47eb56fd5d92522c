/*
 * stonewall.c - every client stops when the first is done (see stonewall.h).
 */
#include "stonewall.h"

#include "die.h"

#include <stdlib.h>
#include <string.h>

/* The receive of the next message from another client (none: none due). */
static void post_receive(struct job *j, struct st_stonewall *sw)
{
	if (sw->got >= sw->nothers)
		return;
	if (sw->wear)
		MPI_Irecv(&sw->rcount, 1, MPI_UINT64_T, MPI_ANY_SOURCE, STONEWALL_TAG, j->progress_comm,
			  &sw->rreq);
	else
		MPI_Irecv(&sw->rbuf, 1, MPI_INT, MPI_ANY_SOURCE, STONEWALL_TAG, j->progress_comm,
			  &sw->rreq);
}

void st_stonewall_begin(struct job *j, struct st_stonewall *sw, const struct st_combo *c,
			int phase)
{
	memset(sw, 0, sizeof(*sw));
	sw->rreq = MPI_REQUEST_NULL;
	int64_t mode = c->v[ST_OPT_STONEWALL];
	if ((mode != ST_ON && mode != ST_STONEWALL_WEAROUT) || !((1u << phase) & ST_PHASES_DATA) ||
	    j->roles[j->rank] != ST_ROLE_CLIENT)
		return;
	sw->wear = mode == ST_STONEWALL_WEAROUT;
	for (int q = 0; q < j->size; q++)
		sw->nothers += q != j->rank && j->roles[q] == ST_ROLE_CLIENT;
	if (!sw->nothers && !sw->wear)
		return;
	sw->sreq = calloc((size_t)j->size, sizeof(*sw->sreq));
	if (!sw->sreq)
		st_die("out of memory");
	for (int q = 0; q < j->size; q++)
		sw->sreq[q] = MPI_REQUEST_NULL;
	sw->active = 1;
	sw->one = 1;
	post_receive(j, sw);
}

/* Count the "done" messages that came in; with wait, until all have. */
static int receive(struct job *j, struct st_stonewall *sw, int wait)
{
	int came = 0;
	while (sw->got < sw->nothers) {
		int flag = 0;
		if (wait)
			MPI_Wait(&sw->rreq, MPI_STATUS_IGNORE);
		else
			MPI_Test(&sw->rreq, &flag, MPI_STATUS_IGNORE);
		if (!wait && !flag)
			break;
		sw->got++;
		came = 1;
		if (sw->wear && sw->rcount > sw->most)
			sw->most = sw->rcount;
		post_receive(j, sw);
	}
	return came;
}

static void send_done(struct job *j, struct st_stonewall *sw)
{
	if (sw->sent)
		return;
	sw->sent = 1;
	for (int q = 0; q < j->size; q++)
		if (q != j->rank && j->roles[q] == ST_ROLE_CLIENT) {
			if (sw->wear)
				MPI_Isend(&sw->mine, 1, MPI_UINT64_T, q, STONEWALL_TAG, j->progress_comm,
					  &sw->sreq[q]);
			else
				MPI_Isend(&sw->one, 1, MPI_INT, q, STONEWALL_TAG, j->progress_comm,
					  &sw->sreq[q]);
		}
}

/* wearout: this rank's count out once its threads wait at the stop; the
 * threads on once every count is in. */
static void wear_poll(struct job *j, struct st_stonewall *sw, struct st_worker *w)
{
	receive(j, sw, 0);
	if (!sw->sent && st_worker_wear_ready(w, &sw->mine)) {
		if (sw->mine > sw->most)
			sw->most = sw->mine;
		send_done(j, sw);
	}
	if (sw->sent && sw->got == sw->nothers && !sw->released) {
		st_worker_wear_go(w, sw->most);
		sw->released = 1;
	}
}

void st_stonewall_poll(struct job *j, struct st_stonewall *sw, struct st_worker *w, int done)
{
	if (!sw || !sw->active)
		return;
	if (sw->wear) {
		wear_poll(j, sw, w);
		return;
	}
	if (receive(j, sw, 0) && !done)
		st_worker_stop(w);
	if (done)
		send_done(j, sw);
}

void st_stonewall_end(struct job *j, struct st_stonewall *sw)
{
	if (!sw->active)
		return;
	send_done(j, sw);
	receive(j, sw, 1);
	MPI_Waitall(j->size, sw->sreq, MPI_STATUSES_IGNORE);
	free(sw->sreq);
	sw->sreq = NULL;
	sw->active = 0;
}
