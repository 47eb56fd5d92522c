/*
 * job.h - the MPI job: `mpirun stcluster [options]`.
 */
#ifndef ST_JOB_H
#define ST_JOB_H

#include "../store/store.h" /* st_run_report_fn */

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
