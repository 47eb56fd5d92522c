/*
 * stonewall.c - every client stops when the first is done (see stonewall.h).
 */
#include "stonewall.h"

#include "die.h"

#include <stdlib.h>
#include <string.h>

void st_stonewall_begin(struct job *j, struct st_stonewall *sw, const struct st_combo *c,
			int phase)
{
	memset(sw, 0, sizeof(*sw));
	sw->rreq = MPI_REQUEST_NULL;
	if (c->v[ST_OPT_STONEWALL] != ST_ON || !((1u << phase) & ST_PHASES_DATA) ||
	    j->roles[j->rank] != ST_ROLE_CLIENT)
		return;
	for (int q = 0; q < j->size; q++)
		sw->nothers += q != j->rank && j->roles[q] == ST_ROLE_CLIENT;
	if (!sw->nothers)
		return;
	sw->sreq = calloc((size_t)j->size, sizeof(*sw->sreq));
	if (!sw->sreq)
		st_die("out of memory");
	for (int q = 0; q < j->size; q++)
		sw->sreq[q] = MPI_REQUEST_NULL;
	sw->active = 1;
	sw->one = 1;
	MPI_Irecv(&sw->rbuf, 1, MPI_INT, MPI_ANY_SOURCE, STONEWALL_TAG, j->progress_comm, &sw->rreq);
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
		if (sw->got < sw->nothers)
			MPI_Irecv(&sw->rbuf, 1, MPI_INT, MPI_ANY_SOURCE, STONEWALL_TAG, j->progress_comm,
				  &sw->rreq);
	}
	return came;
}

static void send_done(struct job *j, struct st_stonewall *sw)
{
	if (sw->sent)
		return;
	sw->sent = 1;
	for (int q = 0; q < j->size; q++)
		if (q != j->rank && j->roles[q] == ST_ROLE_CLIENT)
			MPI_Isend(&sw->one, 1, MPI_INT, q, STONEWALL_TAG, j->progress_comm, &sw->sreq[q]);
}

void st_stonewall_poll(struct job *j, struct st_stonewall *sw, struct st_worker *w, int done)
{
	if (!sw || !sw->active)
		return;
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
