/*
 * runs.h - the runs of a store as the subcommands name them: "last",
 * "last~N", an id or a unique prefix of one; and a run's title and facts.
 * Read-only; every function takes an open connection.
 */
#ifndef ST_RUNS_H
#define ST_RUNS_H

#include <sqlite3.h>
#include <stddef.h>

/* The run id for `want`: "last", "last~N" (N runs before the last), an
 * exact id or a unique prefix. 0, or -1 with err ("no run 'x' in the store"). */
int st_run_resolve(sqlite3 *db, const char *want, char *id, size_t n, char *err, size_t errn);

/* "a1b2c3d4 (label, 2026-11-30T02:02, 3 iterations)"; the id's first 8
 * characters alone when the run cannot be read. */
void st_run_title(sqlite3 *db, const char *run, char *buf, size_t n);

/* Iterations of each combination the run stored (1: none repeated; 0 when
 * the store cannot be read). */
int st_run_iterations(sqlite3 *db, const char *run);

/* Whether the run measured baselines (then reports name bottlenecks). */
int st_run_has_baseline(sqlite3 *db, const char *run);

/* Does the run have a mixed phase (rw, randrw)? */
int st_run_has_mixed(sqlite3 *db, const char *run);

/* Stalled intervals of the run's client ranks (view interval_rank; 0 when
 * the store has none). */
long long st_run_stalls(sqlite3 *db, const char *run);

#endif
