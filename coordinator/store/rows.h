/*
 * rows.h - every kind of row the store writes, one column table each
 * (rows.c; private to store/). A new column of a table is one row of its
 * table in rows.c, with the column in sql/schema.sql and its migration
 * (store/schema.c); tests/unit/test_rows.c holds each table to the schema
 * of a new store and of a migrated one.
 *
 * Each kind reads a key (struct st_row_key unless it says otherwise: what
 * the store adds to a row, such as the combination's id) and a row: a
 * struct that crosses MPI (common/wire.h) where one row is one of them,
 * else a struct of this file, filled by the writer. The st_bind_* functions
 * bind one row of a kind, typed, so a wrong struct does not compile.
 */
#ifndef ST_ROWS_H
#define ST_ROWS_H

#include "../../common/hist.h"
#include "../../common/wire.h"
#include "columns.h"
#include "ivpack.h"

#include <sqlite3.h>
#include <stdint.h>

/* What the store adds to a row; each kind reads the members it names. */
struct st_row_key {
	const char *run_id; /* run, host, baseline and combo rows */
	int64_t combo_id;   /* a combination's rows */
	const char *phase;  /* a phase's rows: its name */
	int32_t rank;	    /* combo_failure, effective_option: the rank the row is of */
};

/* run: the row a run begins with (status: ST_RUN_RUNNING). Its columns but
 * status are the configuration run.config_hash covers (hash.c). */
struct st_run_row {
	char started_at[40]; /* ISO-8601 UTC */
	const char *status, *label, *command, *plan, *engine, *target;
	char phases[256]; /* comma list in run order */
	int64_t iterations;
	int32_t nranks, nhosts;
	uint64_t combos_planned;
	const char *version;
};

/* host: key of a struct st_host_info row. */
struct st_host_key {
	const char *run_id;
	int32_t rank;
	int32_t role; /* enum st_role */
	int64_t clock_offset_ns, clock_rtt_ns;
	int32_t read_partner;
};

/* baseline */
struct st_baseline_row {
	const char *kind, *direction;
	int32_t server_rank;
	const char *client_ranks;
	uint64_t bytes;
	double seconds; /* <= 0: not measured (NULL, and so is mbps) */
	double mbps;	/* bytes / seconds / 10^6 */
	const char *note;
	int32_t streams; /* <= 0: NULL */
};

/* combo: its own columns (the options table's follow, bound by the writer) */
struct st_combo_row {
	int32_t seq, matrix_index, iteration;
	const char *status, *message;
	char started_at[40], finished_at[40];
	int32_t direct_fallback;
	const char *mount_options; /* NULL: no client told */
	int32_t stage;		   /* --search halving's stage; < 0: NULL (a full sweep) */
};

/* effective_option (key: combo_id, rank) */
struct st_eff_row {
	const char *option;
	const char *requested, *effective; /* NULL: not asked, not known */
	int64_t maximum;		   /* 0: none known */
	const char *note;
};

/* phase_run (key: combo_id, phase) */
struct st_phase_row {
	int32_t order; /* enum st_phase */
	const char *status, *message;
	int32_t ran; /* 0: skipped (no figures) */
	int64_t release_min_ns, release_max_ns, skew_ns, gathered_ns;
	const char *cache_drop, *cache_drop_note;
	const struct st_hist *lat;	    /* merged over the ranks; NULL when skipped */
	const struct st_hist *read, *write; /* each direction's, merged */
	/* the phase's own values (a [phase] section, common/phaseopt.h): as
	 * st_combo.v, ST_UNSET (NULL) where the combination's apply; direct and
	 * fsync as their names, NULL where the combination's apply */
	int64_t own_block, own_rwmix, own_runtime, own_ramp;
	const char *own_direct, *own_fsync;
};

/* rpc_stat (key: combo_id, phase, rank): one operation's row or the
 * transports' ('xprt') */
struct st_rpc_row {
	const char *source;
	struct st_rpc_op op;	   /* the operation (name "xprt": the transports' row) */
	int32_t is_op;		   /* 0: the transports' row */
	const char *basis;	   /* WRITE: how stable_how was found; NULL: not counted */
	const struct st_hist *rtt; /* libnfs: each call's time; NULL: none */
	uint32_t xprts;
	uint64_t connects, sends, recvs, bad_xids, backlog_u;
	char note[sizeof(((struct st_rpc_result *)0)->note)];
};

extern const struct st_row_kind st_rows_run, st_rows_host, st_rows_baseline, st_rows_combo,
	st_rows_eff, st_rows_failure, st_rows_phase, st_rows_rank, st_rows_thread, st_rows_interval_pack,
	st_rows_sample, st_rows_rpc;

/* Every kind, NULL-terminated (one per table of sql/schema.sql). */
extern const struct st_row_kind *const st_row_kinds[];

static inline void st_bind_run(sqlite3_stmt *q, const struct st_row_key *k,
			       const struct st_run_row *r)
{
	st_row_bind(q, 0, &st_rows_run, k, r);
}
static inline void st_bind_host(sqlite3_stmt *q, const struct st_host_key *k,
				const struct st_host_info *r)
{
	st_row_bind(q, 0, &st_rows_host, k, r);
}
static inline void st_bind_baseline(sqlite3_stmt *q, const struct st_row_key *k,
				    const struct st_baseline_row *r)
{
	st_row_bind(q, 0, &st_rows_baseline, k, r);
}
static inline void st_bind_combo(sqlite3_stmt *q, const struct st_row_key *k,
				 const struct st_combo_row *r)
{
	st_row_bind(q, 0, &st_rows_combo, k, r);
}
static inline void st_bind_eff(sqlite3_stmt *q, const struct st_row_key *k,
			       const struct st_eff_row *r)
{
	st_row_bind(q, 0, &st_rows_eff, k, r);
}
static inline void st_bind_failure(sqlite3_stmt *q, const struct st_row_key *k,
				   const struct st_prepare_status *r)
{
	st_row_bind(q, 0, &st_rows_failure, k, r);
}
static inline void st_bind_phase(sqlite3_stmt *q, const struct st_row_key *k,
				 const struct st_phase_row *r)
{
	st_row_bind(q, 0, &st_rows_phase, k, r);
}
/* rank and thread rows go several to a statement: row i of it from first = i * ncols */
static inline void st_bind_rank(sqlite3_stmt *q, int first, const struct st_row_key *k,
				const struct st_rank_result *r)
{
	st_row_bind(q, first, &st_rows_rank, k, r);
}
static inline void st_bind_thread(sqlite3_stmt *q, int first, const struct st_row_key *k,
				  const struct st_thread_result *r)
{
	st_row_bind(q, first, &st_rows_thread, k, r);
}
static inline void st_bind_interval_pack(sqlite3_stmt *q, const struct st_row_key *k,
					 const struct st_ivpack *r)
{
	st_row_bind(q, 0, &st_rows_interval_pack, k, r);
}
static inline void st_bind_sample(sqlite3_stmt *q, const struct st_row_key *k,
				  const struct st_sample *r)
{
	st_row_bind(q, 0, &st_rows_sample, k, r);
}
static inline void st_bind_rpc(sqlite3_stmt *q, const struct st_row_key *k,
			       const struct st_rpc_row *r)
{
	st_row_bind(q, 0, &st_rows_rpc, k, r);
}

#endif
