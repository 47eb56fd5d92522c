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

/* Run a sweep (initialises and finalises MPI). Returns the exit status:
 * 0 run complete, 1 run ended with failed combinations or store errors,
 * 2 bad input (nothing created). report may be NULL (then none is printed). */
int st_cmd_run(int argc, char **argv, st_run_report_fn *report);

#endif
