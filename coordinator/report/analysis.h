/*
 * analysis.h - questions over the store's history, without MPI:
 * `compare`, `effects`, `history` and `report --top`, each a named query
 * of sql/queries/ (built into the binary, and usable from the sqlite3
 * shell as they are), plus the statistics SQLite lacks, offered to those
 * queries as SQL functions.
 *
 * The store is always opened read-only (SQLITE_OPEN_READONLY) here: text
 * a user gives (--where) becomes part of a statement, and the worst it can
 * do is make that statement fail.
 */
#ifndef ST_ANALYSIS_H
#define ST_ANALYSIS_H

#include "../store/output.h"

#include <sqlite3.h>
#include <stddef.h>
#include <stdio.h>

/* The CPU a phase cost, as text-report columns (a list without a trailing
 * comma) over the columns of view phase_cpu (also top.sql's and
 * effects.sql's): P is the prefix naming their table ("u." or "").
 * ST_CPU_NOTE says what they mean. */
#define ST_CPU_COLUMNS(P)                                                         \
	"ROUND(" P "client_cpu_pct, 1) AS \"client CPU %\", "                     \
	"ROUND(" P "client_cpu_us_per_mb, 0) AS \"client CPU us/MB\", "           \
	"ROUND(" P "io_cpu_us_per_mb, 0) AS \"I/O threads us/MB\", "            \
	"ROUND(" P "server_cpu_pct, 1) AS \"server CPU %\", "                     \
	"ROUND(" P "server_cpu_us_per_mb, 0) AS \"server CPU us/MB\""
#define ST_CPU_NOTE                                                               \
	"client CPU % = the client processes' CPU (user + sys) as % of one CPU per client rank " \
	"over the phase's wall, io-wq workers and the rank's other threads included; I/O threads = " \
	"of it, the I/O threads' own (RUSAGE_THREAD, as fio counts its job); server CPU % = the " \
	"server hosts' CPUs busy, as % of all their CPUs (sampled; empty without a server rank); " \
	"us/MB = that CPU time per MB moved"

/* The named queries' text (sql/queries/NAME.sql, embedded at build time). */
extern const char st_sql_q_top[], st_sql_q_compare[], st_sql_q_effects[], st_sql_q_history[];

/*
 * Register the SQL functions the wrapped queries use (each NULL-safe):
 *   st_ci95(sd, n)                    half width of a mean's 95 % interval
 *   st_welch_p(m1, s1, n1, m2, s2, n2) Welch's two-sided p
 *   st_compare_verdict(a_mbps, a_sd, a_n, a_failed, b_mbps, b_sd, b_n, b_failed)
 *   st_history_verdict(mbps, sd, n, prev_runs, prev_mbps, prev_sd, prev_n)
 * 0, or -1 with err.
 */
int st_analysis_functions(sqlite3 *db, char *err, size_t n);

/* Which sweep options take more than one value in run `run` (a resolved id);
 * with none, block, size and threads. 1 (some vary), 0 (none), or -1 with err. */
int st_run_varying(sqlite3 *db, const char *run, int vary[], char *err, size_t n);

/* report --top: the best `top` combinations of each phase (0: all) of run
 * `run` (a resolved id), one row each. 0, or 1 after an SQL error. */
int st_top_print(sqlite3 *db, const char *run, const char *phase, int top, enum st_format f,
		 FILE *out);

#endif
