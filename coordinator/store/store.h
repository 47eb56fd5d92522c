/*
 * store.h - the one SQLite module. Only rank 0 uses it.
 *
 * The store is a SQLite file in WAL mode; each combination is written in
 * one transaction with statements prepared once, so a crash loses at most
 * the combination in flight. The schema (sql/schema.sql, built into the
 * binary) carries PRAGMA user_version; opening an older store migrates it,
 * a newer one is refused. Views (sql/views.sql) are recreated on every
 * read-write open.
 *
 * Every run carries SHA-256 hashes of its configuration and of its result
 * rows (store/hash.c lists what each covers), each written in the transaction
 * that writes the rows it covers; st_store_audit recomputes them.
 */
#ifndef ST_STORE_H
#define ST_STORE_H

#include "../../common/options.h"
#include "../../common/wire.h"
#include "audit.h"
#include "digest.h"
#include "output.h"

#include <sqlite3.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define ST_SCHEMA_VERSION 10

/* A column added to a table after its schema version, on every open for a
 * run (nullable, so NULL in the rows written before: no version needed); a
 * read-only command reads it as NULL from a store no such run opened. */
struct st_later_column {
	const char *table, *name, *type;
};
extern const struct st_later_column st_later_columns[];
extern const size_t st_later_ncolumns;

/*
 * The words run.status and combo.status hold. They are in users' stores,
 * and inside the audit hashes of every run stored, so they never change:
 * "failed" means two different things there, and the C names say which.
 */
#define ST_RUN_RUNNING "running"      /* begun; not ended (yet) */
#define ST_RUN_COMPLETE "complete"    /* every combination went through */
#define ST_RUN_STORE_FAILED "failed"  /* a write to the store failed: the sweep stopped */
#define ST_RUN_ABORTED "aborted"      /* a rank died or hung, or a signal ended it */
#define ST_COMBO_OK "ok"
#define ST_COMBO_ERROR "error"	      /* a phase recorded errors; its figures are kept */
#define ST_COMBO_UNPREPARED "failed"  /* preparation failed on a rank: no phase ran */
#define ST_COMBO_SKIPPED "skipped"    /* no phase of it can run (why: the message) */

struct st_store;

/* Prints the report of the run run_id of store s to out, returning an exit
 * status: what a run prints when it ends. report/ has it; main.c hands it to
 * the job (job/job.h), so that job/ depends on no read-only subcommand. */
typedef int st_run_report_fn(struct st_store *s, const char *run_id, int summary, enum st_format f,
			     FILE *out);

/*
 * Check, without creating or changing anything, that path can be used as a
 * store: its directory exists and is writable, and an existing file is a
 * SQLite database of a schema this binary understands. 0 or -1 with err.
 */
int st_store_check_path(const char *path, int need_write, char *err, size_t n);

/* Open (read-write: create and migrate; read-only: must exist). NULL with
 * err on failure. */
struct st_store *st_store_open(const char *path, int readonly, char *err, size_t n);

/* A read-only store (readonly = 1) reads and nothing else: its connection
 * has an authorizer that lets no statement write anything anywhere (a
 * copy by VACUUM INTO, a temporary table, an attached file, a setting);
 * such a statement fails to prepare with "not authorized". VACUUM is
 * asked about by no authorizer: whoever runs a user's statement checks it
 * with st_store_statement_reads() first. */
int st_store_statement_reads(sqlite3_stmt *st);

/* Every connection has the SQL functions st_size(bytes) ("4k") and
 * st_run_live(run_id) (1: its rank 0 holds the run's live lock, 0: no
 * process does, NULL: cannot tell; store/live.h). */

/* Close; accepts NULL. */
void st_store_close(struct st_store *s);

/* The connection, for reports and queries. */
sqlite3 *st_store_db(struct st_store *s);

struct st_run_record {
	const char *run_id;
	const struct st_config *cfg;
	const char *command;   /* argv joined */
	int64_t started_wall_ns;
	int nranks, nhosts;
	uint64_t combos_planned;
	const struct st_host_info *hosts; /* nranks entries */
	const int *roles;		  /* nranks entries, enum st_role */
	const int64_t *clock_offset_ns;	  /* nranks entries */
	const int64_t *clock_rtt_ns;	  /* nranks entries */
	const int *partners;		  /* nranks entries: reorder read partner */
	int resume;			  /* the run exists: set it running again */
};

/* For --resume: the run matching id_or_prefix in the store at path (opened
 * read-only) must exist and not be complete; its id and its stored plan
 * (caller frees) are returned. 0, or -1 with err. */
int st_store_resume_plan(const char *path, const char *id_or_prefix, char *run_id, size_t idn,
			 char **plan, char *err, size_t n);

/* For --resume: stored[seq] = 1 for each seq of the run already stored
 * (array of total bytes, caller frees). */
int st_store_stored_seqs(struct st_store *s, const char *run_id, uint64_t total,
			 unsigned char **stored, char *err, size_t n);

/* --search halving: the combinations stage `stage` of the run measured,
 * best first (ties: the lower matrix index), at most max of them into out:
 * score is the geometric mean over the phases of the best aggregate figure
 * (MB/s; op/s for a metadata phase) of the combination's runs in the
 * stages up to this one (load only slows a run: its best run is the one
 * least slowed; every combination ranked has as many runs of each length);
 * -1 for a combination with a run that did not go well (failed, skipped,
 * error), which ranks after every measured one. The count, or -1 with err. */
struct st_stage_rank {
	uint32_t index;
	double score;
};
int64_t st_store_stage_ranking(struct st_store *s, const char *run_id, int stage,
			       struct st_stage_rank *out, uint64_t max, char *err, size_t n);

/* --search halving's last stage: each run of stage `stage` of the run with
 * an iteration below `below`, ordered by matrix index: its figure, the
 * geometric mean over its phases of the aggregate (MB/s; op/s for a
 * metadata phase), -1 for a run that did not go well. At most max into
 * out; the count, or -1 with err. */
struct st_stage_run {
	uint32_t index;
	double figure;
};
int64_t st_store_stage_runs(struct st_store *s, const char *run_id, int stage, uint32_t below,
			    struct st_stage_run *out, uint64_t max, char *err, size_t n);

/* --resume of a --search halving run: each stored combination's seq,
 * stage (-1: none), iteration, matrix index and size (ST_UNSET: none), by
 * seq, at most max into
 * out, and the stcluster that began the run into version (vn bytes); the
 * count, or -1 with err. */
struct st_staged {
	uint64_t seq;
	int stage;
	uint32_t iteration, index;
	int64_t size;
};
int64_t st_store_staged(struct st_store *s, const char *run_id, struct st_staged *out,
			uint64_t max, char *version, size_t vn, char *err, size_t n);

/* The wall time the run's stored combinations took, each from its
 * started_at to its finished_at, summed into *ns (a resumed --budget
 * counts it). 0, or -1 with err. */
int st_store_run_spent(struct st_store *s, const char *run_id, int64_t *ns, char *err, size_t n);

/* The baseline rows the run has stored (-1: the store cannot say). */
int64_t st_store_baseline_rows(struct st_store *s, const char *run_id);

/* Insert the run and its hosts in one transaction (resume: mark the run
 * running again; hosts already stored are kept). */
int st_store_begin_run(struct st_store *s, const struct st_run_record *r, char *err, size_t n);

/* One baseline measurement, in a transaction with the hashes that cover it
 * (streams: the TCP streams each client host used; 0 for the disk). */
int st_store_baseline(struct st_store *s, const char *run_id, const char *kind,
		      const char *direction, int server_rank, const char *clients, uint64_t bytes,
		      double seconds, const char *note, int streams, char *err, size_t n);

/* Marking a running run aborted, from any thread, while the store is open
 * elsewhere: a connection of its own, opened ahead (the mark is written
 * when the process may have a second left). st_store_abort_mark names the
 * rank (-1: none) and the reason, leaves a run no longer running as it is,
 * and returns the number of combinations the run has stored (-1: err). */
struct st_abort_mark;
struct st_abort_mark *st_store_abort_mark_open(const char *path, const char *run_id, char *err,
					       size_t n);
int st_store_abort_mark(struct st_abort_mark *m, int rank, const char *reason, char *err,
			size_t n);
/* What the ranks left behind on the target as an aborted run ended, in
 * run.cleanup (with the result hash that covers it). 0 or -1 with err. */
int st_store_abort_cleanup(struct st_abort_mark *m, const char *cleanup, char *err, size_t n);
void st_store_abort_mark_close(struct st_abort_mark *m);

/* A run's combinations by outcome (the run_summary view's counts: ok,
 * error, failed to prepare, skipped, did not verify). 0 or -1 with err. */
struct st_run_counts {
	int64_t stored, ok, error, failed, skipped, unverified;
};
int st_store_run_counts(struct st_store *s, const char *run_id, struct st_run_counts *c,
			char *err, size_t n);

/* Set run status (ST_RUN_*: complete, store failed), finish time and what
 * the run could not remove (cleanup, NULL: nothing), and the result hash,
 * which covers them, in the same transaction. */
int st_store_end_run(struct st_store *s, const char *run_id, const char *status,
		     const char *cleanup, char *err, size_t n);

struct st_phase_record {
	int phase;				  /* enum st_phase */
	const struct st_rank_result *ranks;	  /* nranks entries */
	const struct st_thread_result *threads;	  /* nthreads entries, all ranks */
	int nthreads;
	int64_t gathered_ns; /* common timeline: all results were on rank 0 */
	const struct st_sample *samples; /* server ranks' samples, all ranks */
	size_t nsamples;
	const struct st_interval *intervals; /* every rank's, of one width (common/interval.h) */
	size_t nintervals;
	/* what went over the wire: an entry for each rank that counted RPCs
	 * (each names its rank), none for the others */
	const struct st_rpc_result *rpc;
	size_t nrpc;
};

struct st_combo_record {
	const char *run_id;
	const struct st_config *cfg;
	const struct st_combo *combo;
	const char *status;	/* ST_COMBO_* */
	const char *message;	/* NULL or why */
	int64_t started_wall_ns, finished_wall_ns;
	int direct_fallback;
	int nranks;
	const struct st_prepare_status *prep; /* nranks entries, or NULL */
	const struct st_phase_record *phases;
	int nphases;
	unsigned skipped_phases;  /* phases the engine cannot run (1u << ST_PHASE_*) */
	const char *skip_message; /* why */
	const int *roles;	  /* nranks entries: enum st_role */
};

/* Store one combination with every rank's facts in one transaction. */
int st_store_combo(struct st_store *s, const struct st_combo_record *c, char *err, size_t n);

/* ---- audit: the stored hashes of one run against its rows (audit.h) ---- */

/* Recompute every hash of run `run_id` (a resolved id) in one read
 * transaction (a run being written is seen at one commit) and compare them
 * with the stored ones. Works on a read-only store and on one of schema
 * version 1 (hashed = 0). 0, or -1 with err; free with st_audit_free. */
int st_store_audit(struct st_store *s, const char *run_id, struct st_audit *a, char *err,
		   size_t n);

/* Embedded SQL text (generated from sql/ at build time). */
extern const char st_sql_schema[];
extern const char st_sql_views[];

#endif
