/*
 * output.h - --output FILE and --output-format (issue 21, as fio's
 * --output): when a run ends, rank 0 writes its report into FILE, a new
 * file, never over one; the store keeps the run whole whatever happens to
 * FILE.
 */
#ifndef ST_JOB_OUTPUT_H
#define ST_JOB_OUTPUT_H

#include "state.h"

#include <stddef.h>

/* Before anything is created: FILE is new, not the store, in a writable
 * directory. 0, or -1 with err. */
int st_output_check(const struct st_config *c, char *err, size_t n);

/* Rank 0, at the run's end: the report into FILE (O_EXCL); a file not
 * written whole is removed. 0, or -1 after a message. */
int st_output_write(struct job *j);

#endif
