/*
 * job.h - the MPI job: `mpirun stcluster [options]`.
 */
#ifndef ST_JOB_H
#define ST_JOB_H

/* Run a sweep (initialises and finalises MPI). Returns the exit status:
 * 0 run complete, 1 run ended with failed combinations or store errors,
 * 2 bad input (nothing created). */
int st_cmd_run(int argc, char **argv);

#endif
