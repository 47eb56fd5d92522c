/*
 * server.h - the server options' step of a combination (--server-threads,
 * --server-export): the server ranks on a knfsd host apply them before any
 * client mounts, and put the server's own settings back at the end.
 */
#ifndef ST_JOB_SERVER_H
#define ST_JOB_SERVER_H

#include "state.h"

/* Every rank, at the start of combination c when it sets a server option
 * (else nothing, no collective): the server ranks of the export's server
 * host apply it; all wait until they have. A rank that could not apply
 * it has the reason in srv (err, message), merged into its preparation by
 * st_server_merge; what is in force is in srv->eff. */
void st_server_step(struct job *j, const struct st_combo *c, struct st_prepare_status *srv);

/* Into ps (this rank's preparation): srv's failure and effective values. */
void st_server_merge(struct st_prepare_status *ps, const struct st_prepare_status *srv);

/* A server rank, at the end of the run or on a signal: what the server had
 * before the run, put back; a failure is said on stderr and in left. */
void st_server_restore(struct job *j, char *left, size_t n);

#endif
