/*
 * job.h - the MPI job: `mpirun stcluster [options]`.
 */
#ifndef ST_JOB_H
#define ST_JOB_H

#include <stdio.h>

struct st_store;

/* Prints the report of a run that has just ended (report/ has it; main.c
 * passes it in, so that job/ depends on no read-only subcommand). */
typedef int st_run_report_fn(struct st_store *s, const char *run_id, FILE *out);

/* Run a sweep (initialises and finalises MPI). Returns the exit status
 * (enum st_exit, common/util.h): 0 every combination ok or skipped; 1 the
 * run finished, but a combination failed to prepare, had errors or did not
 * verify; 2 bad input (nothing created), or a --resume of a run another
 * job still runs; 3 the run did not finish (the store could not be
 * written). A run that is aborted (a rank died or hung, a signal, rank 0
 * silent) does not return: its ranks end with 3 (st_step_abort_hung,
 * watch.h) or mpirun ends them. report may be NULL (then none is printed). */
int st_cmd_run(int argc, char **argv, st_run_report_fn *report);

#endif
