/*
 * run.c - a run's own rows (see store.h): the run row and its hosts when
 * it begins (or is resumed), its end, and what --resume and `runs` read
 * of it. Each write is one transaction with the hashes that cover it.
 */
#include "store.h"

#include "db.h"
#include "hash.h"
#include "live.h"
#include "rows.h"

#include "../../common/options.h"
#include "../../common/util.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Inside a writer's transaction: every other run whose row says running
 * but whose rank 0 holds no lock (killed, its host gone) is recorded as
 * aborted, with its result hash refreshed as an abort mark refreshes it.
 * A run whose lock cannot be tested is left as it is. */
static int record_dead_runs(struct st_store *s, const char *run_id, const char *at, char *err,
			    size_t n)
{
	sqlite3_stmt *list = NULL, *mark = NULL;
	int rc = -1;
	if (sqlite3_prepare_v2(s->db, "SELECT run_id, config_hash FROM run WHERE status = 'running' "
				      "AND run_id <> ?1",
			       -1, &list, NULL) != SQLITE_OK ||
	    sqlite3_prepare_v2(s->db,
			       "UPDATE run SET status = 'aborted', abort_rank = 0, abort_reason = ?2 "
			       "WHERE run_id = ?1 AND status = 'running'",
			       -1, &mark, NULL) != SQLITE_OK) {
		st_db_fail(err, n, "store: %s", sqlite3_errmsg(s->db));
		goto out;
	}
	st_db_bind_text(list, 1, run_id);
	int step_rc;
	while ((step_rc = sqlite3_step(list)) == SQLITE_ROW) {
		char dead[64], why[ST_ERR_MAX], reason[512];
		st_copy(dead, sizeof(dead), (const char *)sqlite3_column_text(list, 0));
		int hashed = sqlite3_column_type(list, 1) != SQLITE_NULL;
		if (st_live_check(s->path, dead, why, sizeof(why)) != 0)
			continue;
		snprintf(reason, sizeof(reason),
			 "rank 0 gone: no process held the run's lock when run %.8s began at %s "
			 "(rank 0 was killed, or its host failed)",
			 run_id, at);
		st_db_bind_text(mark, 1, dead);
		st_db_bind_text(mark, 2, reason);
		if (st_db_step(s->db, mark, err, n))
			goto out;
		char cfg[ST_HASH_HEX], base[ST_HASH_HEX], res[ST_HASH_HEX];
		int found;
		if (hashed && (st_hash_stored(s->h, dead, cfg, base, res, &found, err, n) ||
			       st_hash_refresh_result(s->h, s->set_result_hash, dead, base, err,
						      n)))
			goto out;
	}
	if (step_rc != SQLITE_DONE) {
		st_db_fail(err, n, "store: %s", sqlite3_errmsg(s->db));
		goto out;
	}
	rc = 0;
out:
	sqlite3_finalize(list);
	sqlite3_finalize(mark);
	return rc;
}

/* The run's row as it begins: running, with its configuration. */
static int insert_run(struct st_store *s, const struct st_run_record *r, const char *at, char *err,
		      size_t n)
{
	const struct st_config *cfg = r->cfg;
	struct st_row_key key = { .run_id = r->run_id };
	struct st_run_row row = {
		.status = ST_RUN_RUNNING,
		.label = cfg->o[ST_OPT_LABEL].s,
		.command = r->command,
		.engine = cfg->o[ST_OPT_ENGINE].n ? cfg->o[ST_OPT_ENGINE].s : NULL,
		.target = cfg->o[ST_OPT_TARGET].s,
		.iterations = cfg->o[ST_OPT_ITERATIONS].v[0],
		.nranks = r->nranks,
		.nhosts = r->nhosts,
		.combos_planned = r->combos_planned,
		.version = st_store_version,
	};
	st_copy(row.started_at, sizeof(row.started_at), at);
	for (int p = 0; p < ST_PHASE_COUNT; p++)
		if (st_config_phases(cfg) & (1u << p)) {
			size_t l = strlen(row.phases);
			snprintf(row.phases + l, sizeof(row.phases) - l, "%s%s", l ? "," : "",
				 st_phase_names[p]);
		}
	char *plan = NULL;
	size_t plan_len = 0;
	FILE *mf = open_memstream(&plan, &plan_len);
	if (!mf)
		return st_db_fail(err, n, "store: out of memory");
	st_config_dump(cfg, mf);
	fclose(mf);
	row.plan = plan;
	sqlite3_stmt *st = NULL;
	char *sql = st_row_insert_sql(&st_rows_run, 1, NULL, 0);
	int rc = !sql || sqlite3_prepare_v2(s->db, sql, -1, &st, NULL) != SQLITE_OK;
	if (!rc) {
		st_bind_run(st, &key, &row);
		rc = sqlite3_step(st) != SQLITE_DONE;
	}
	if (rc)
		st_db_fail(err, n, "store: %s", sql ? sqlite3_errmsg(s->db) : "out of memory");
	sqlite3_finalize(st);
	free(sql);
	free(plan);
	return rc ? -1 : 0;
}

/* A resumed run's row, the first part's, is running again. A row that
 * still said running lost its rank 0 (its lock was free, or this resume
 * could not hold it): that is recorded as its abort. */
static int rerun(struct st_store *s, const char *run_id, char *err, size_t n)
{
	sqlite3_stmt *st;
	if (sqlite3_prepare_v2(
		    s->db,
		    "UPDATE run SET status = 'running', finished_at = NULL, "
		    "abort_rank = CASE WHEN status = 'running' AND abort_reason IS NULL "
		    "THEN 0 ELSE abort_rank END, "
		    "abort_reason = CASE WHEN status = 'running' AND abort_reason IS NULL "
		    "THEN 'rank 0 gone: the run still said running, and no process held "
		    "its lock' ELSE abort_reason END WHERE run_id = ?",
		    -1, &st, NULL) != SQLITE_OK)
		return st_db_fail(err, n, "store: %s", sqlite3_errmsg(s->db));
	st_db_bind_text(st, 1, run_id);
	int rc = sqlite3_step(st) == SQLITE_DONE
			 ? 0
			 : st_db_fail(err, n, "store: %s", sqlite3_errmsg(s->db));
	sqlite3_finalize(st);
	return rc;
}

/* Every rank's host row (a resumed run keeps the ones it has). */
static int insert_hosts(struct st_store *s, const struct st_run_record *r, char *err, size_t n)
{
	for (int i = 0; i < r->nranks; i++) {
		struct st_host_key key = { .run_id = r->run_id,
					   .rank = i,
					   .role = r->roles[i],
					   .clock_offset_ns = r->clock_offset_ns[i],
					   .clock_rtt_ns = r->clock_rtt_ns[i],
					   .read_partner = r->partners[i] };
		st_bind_host(s->ins_host, &key, &r->hosts[i]);
		if (st_db_step(s->db, s->ins_host, err, n))
			return -1;
	}
	return 0;
}

int st_store_begin_run(struct st_store *s, const struct st_run_record *r, char *err, size_t n)
{
	char at[40];
	st_iso_time(r->started_wall_ns, at, sizeof(at));
	/* hashes: a new run has them; a resumed one keeps what it had (a run
	 * an older stcluster began stays without) */
	char cfg_stored[ST_HASH_HEX] = "", base_stored[ST_HASH_HEX] = "", res_stored[ST_HASH_HEX];
	char cfg_before[ST_HASH_HEX] = "", hex[ST_HASH_HEX];
	int hashed = 1, found;
	if (st_db_begin(s->db, err, n))
		return -1;
	if (record_dead_runs(s, r->run_id, at, err, n))
		goto rollback;
	if (r->resume) {
		if (st_hash_stored(s->h, r->run_id, cfg_stored, base_stored, res_stored, &found,
				   err, n))
			goto rollback;
		hashed = cfg_stored[0] != '\0';
		if (hashed && st_hash_config(s->h, r->run_id, cfg_before, NULL, err, n))
			goto rollback;
	}
	if ((r->resume ? rerun(s, r->run_id, err, n) : insert_run(s, r, at, err, n)) ||
	    insert_hosts(s, r, err, n))
		goto rollback;
	if (hashed) {
		/* resumed: the hosts of this part are added to the hash, unless
		 * the stored one no longer matched (then it stays, and shows) */
		if (st_hash_config(s->h, r->run_id, hex, NULL, err, n))
			goto rollback;
		if ((!r->resume || strcmp(cfg_before, cfg_stored) == 0) &&
		    st_hash_set(s->set_config_hash, r->run_id, 0, hex, err, n))
			goto rollback;
		if (!r->resume) {
			if (st_hash_baselines(s->h, r->run_id, base_stored, NULL, err, n) ||
			    st_hash_set(s->set_baseline_hash, r->run_id, 0, base_stored, err, n))
				goto rollback;
		}
		/* the status (running again) is in the result hash */
		if (st_hash_refresh_result(s->h, s->set_result_hash, r->run_id, base_stored, err,
					   n))
			goto rollback;
	}
	if (st_db_exec(s->db, "COMMIT", err, n))
		goto rollback;
	return 0;
rollback:
	st_db_rollback(s->db);
	return -1;
}

int st_store_resume_plan(const char *path, const char *id_or_prefix, char *run_id, size_t idn,
			 char **plan, char *err, size_t n)
{
	if (st_store_check_path(path, 1, err, n))
		return -1;
	struct st_store *s = st_store_open(path, 1, err, n);
	if (!s)
		return -1;
	sqlite3_stmt *st;
	int found = 0, rc = -1;
	char status[32] = "", why[ST_ERR_MAX];
	if (sqlite3_prepare_v2(s->db,
			       /* a prefix by substr, not LIKE: '%' and '_' mean themselves */
			       "SELECT run_id, status, plan FROM run "
			       "WHERE ?1 <> '' AND substr(run_id, 1, length(?1)) = ?1 "
			       "ORDER BY run_id LIMIT 2",
			       -1, &st, NULL) != SQLITE_OK) {
		st_db_fail(err, n, "--resume: %s", sqlite3_errmsg(s->db));
		st_store_close(s);
		return -1;
	}
	st_db_bind_text(st, 1, id_or_prefix);
	while (sqlite3_step(st) == SQLITE_ROW) {
		if (found++)
			break;
		st_copy(run_id, idn, (const char *)sqlite3_column_text(st, 0));
		st_copy(status, sizeof(status), (const char *)sqlite3_column_text(st, 1));
		const char *p = (const char *)sqlite3_column_text(st, 2);
		*plan = strdup(p ? p : "");
	}
	sqlite3_finalize(st);
	st_store_close(s);
	if (found == 0)
		st_db_fail(err, n, "--resume: no run '%s' in %s", id_or_prefix, path);
	else if (found > 1)
		st_db_fail(err, n, "--resume: '%s' matches several runs; give more of the id",
			   id_or_prefix);
	else if (strcmp(status, "complete") == 0)
		st_db_fail(err, n, "--resume: run %s is complete; nothing to resume", run_id);
	else if (st_live_check(path, run_id, why, sizeof(why)) == 1)
		st_db_fail(err, n, "--resume: run %s is still running (its rank 0 holds the run's lock): two "
				   "jobs would write the same combinations",
			   run_id);
	else if (!*plan)
		st_db_fail(err, n, "--resume: out of memory");
	else
		rc = 0;
	if (rc && found == 1) {
		free(*plan);
		*plan = NULL;
	}
	return rc;
}

int64_t st_store_baseline_rows(struct st_store *s, const char *run_id)
{
	sqlite3_stmt *st;
	int64_t v = -1;
	if (sqlite3_prepare_v2(s->db, "SELECT COUNT(*) FROM baseline WHERE run_id = ?", -1, &st,
			       NULL) != SQLITE_OK)
		return -1;
	st_db_bind_text(st, 1, run_id);
	if (sqlite3_step(st) == SQLITE_ROW)
		v = sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	return v;
}

int st_store_stored_seqs(struct st_store *s, const char *run_id, uint64_t total,
			 unsigned char **stored, char *err, size_t n)
{
	sqlite3_stmt *st;
	*stored = calloc(total ? total : 1, 1);
	if (!*stored)
		return st_db_fail(err, n, "store: out of memory");
	if (sqlite3_prepare_v2(s->db, "SELECT seq FROM combo WHERE run_id = ?", -1, &st, NULL) !=
	    SQLITE_OK)
		return st_db_fail(err, n, "store: %s", sqlite3_errmsg(s->db));
	st_db_bind_text(st, 1, run_id);
	while (sqlite3_step(st) == SQLITE_ROW) {
		int64_t seq = sqlite3_column_int64(st, 0);
		if (seq >= 0 && (uint64_t)seq < total)
			(*stored)[seq] = 1;
	}
	sqlite3_finalize(st);
	return 0;
}

int st_store_run_counts(struct st_store *s, const char *run_id, struct st_run_counts *c,
			char *err, size_t n)
{
	sqlite3_stmt *st;
	memset(c, 0, sizeof(*c));
	if (sqlite3_prepare_v2(s->db,
			       "SELECT combos_stored, combos_ok, combos_error, combos_failed, "
			       "combos_skipped, combos_unverified FROM run_summary WHERE run_id = ?",
			       -1, &st, NULL) != SQLITE_OK)
		return st_db_fail(err, n, "store: %s", sqlite3_errmsg(s->db));
	st_db_bind_text(st, 1, run_id);
	int rc = sqlite3_step(st);
	if (rc == SQLITE_ROW) {
		int64_t *v[] = { &c->stored, &c->ok, &c->error, &c->failed, &c->skipped, &c->unverified };
		for (int i = 0; i < 6; i++)
			*v[i] = sqlite3_column_int64(st, i);
	}
	sqlite3_finalize(st);
	return rc == SQLITE_ROW ? 0 : st_db_fail(err, n, "store: no run %s", run_id);
}

int st_store_end_run(struct st_store *s, const char *run_id, const char *status,
		     const char *cleanup, char *err, size_t n)
{
	char at[40], cfg[ST_HASH_HEX], base[ST_HASH_HEX], res[ST_HASH_HEX];
	int found;
	st_iso_time(st_wall_ns(), at, sizeof(at));
	sqlite3_stmt *st;
	if (sqlite3_prepare_v2(s->db,
			       "UPDATE run SET status = ?, finished_at = ?, cleanup = ? WHERE run_id = ? "
			       "AND status = 'running'",
			       -1, &st, NULL) != SQLITE_OK)
		return st_db_fail(err, n, "store: %s", sqlite3_errmsg(s->db));
	if (st_db_begin(s->db, err, n)) {
		sqlite3_finalize(st);
		return -1;
	}
	st_db_bind_text(st, 1, status);
	st_db_bind_text(st, 2, at);
	st_db_bind_text(st, 3, cleanup);
	st_db_bind_text(st, 4, run_id);
	int rc = sqlite3_step(st);
	sqlite3_finalize(st);
	/* the status and the finish time are in the result hash; a run the
	 * watch marked aborted meanwhile (a signal as the sweep ended) stays so */
	if (rc != SQLITE_DONE)
		st_db_fail(err, n, "store: %s", sqlite3_errmsg(s->db));
	else if (!sqlite3_changes(s->db))
		st_db_fail(err, n, "run %s was marked aborted as it ended (a signal)", run_id);
	else if (!st_hash_stored(s->h, run_id, cfg, base, res, &found, err, n) &&
		 (!cfg[0] || !st_hash_refresh_result(s->h, s->set_result_hash, run_id, base, err,
						     n)) &&
		 !st_db_exec(s->db, "COMMIT", err, n))
		return 0;
	st_db_rollback(s->db);
	return -1;
}

int64_t st_store_staged(struct st_store *s, const char *run_id, struct st_staged *out,
			uint64_t max, char *version, size_t vn, char *err, size_t n)
{
	sqlite3_stmt *st;
	st_copy(version, vn, "");
	if (sqlite3_prepare_v2(s->db, "SELECT stcluster_version FROM run WHERE run_id = ?", -1, &st,
			       NULL) != SQLITE_OK)
		return st_db_fail(err, n, "store: %s", sqlite3_errmsg(s->db));
	st_db_bind_text(st, 1, run_id);
	if (sqlite3_step(st) == SQLITE_ROW && sqlite3_column_text(st, 0))
		st_copy(version, vn, (const char *)sqlite3_column_text(st, 0));
	sqlite3_finalize(st);
	if (sqlite3_prepare_v2(s->db,
			       "SELECT seq, stage, iteration, matrix_index, size FROM combo "
			       "WHERE run_id = ? ORDER BY seq",
			       -1, &st, NULL) != SQLITE_OK)
		return st_db_fail(err, n, "store: %s", sqlite3_errmsg(s->db));
	st_db_bind_text(st, 1, run_id);
	uint64_t got = 0;
	int rc;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW && got < max)
		out[got++] = (struct st_staged){
			.seq = (uint64_t)sqlite3_column_int64(st, 0),
			.stage = sqlite3_column_type(st, 1) == SQLITE_NULL ? -1
									  : sqlite3_column_int(st, 1),
			.iteration = (uint32_t)sqlite3_column_int64(st, 2),
			.index = (uint32_t)sqlite3_column_int64(st, 3),
			.size = sqlite3_column_type(st, 4) == SQLITE_NULL ? ST_UNSET
									  : sqlite3_column_int64(st, 4),
		};
	sqlite3_finalize(st);
	if (rc != SQLITE_DONE && rc != SQLITE_ROW)
		return st_db_fail(err, n, "store: %s", sqlite3_errmsg(s->db));
	return (int64_t)got;
}

/* One combination of a stage while it is ranked: the sum of the logs of
 * its phases' figures, how many, whether every run of it went well. */
struct ranked {
	uint32_t index;
	int ok, phases;
	double logsum;
};

static int by_score(const void *a, const void *b)
{
	const struct st_stage_rank *x = a, *y = b;
	if (x->score != y->score)
		return x->score < y->score ? 1 : -1;
	return x->index < y->index ? -1 : x->index > y->index;
}

int64_t st_store_stage_ranking(struct st_store *s, const char *run_id, int stage,
			       struct st_stage_rank *out, uint64_t max, char *err, size_t n)
{
	sqlite3_stmt *st;
	if (sqlite3_prepare_v2(s->db,
			       "SELECT c.matrix_index, MIN(c.status = 'ok'), "
			       "MAX(CASE WHEN p.bytes > 0 THEN p.agg_mbps ELSE p.iops END) "
			       "FROM combo c LEFT JOIN phase_summary p USING (combo_id) "
			       "WHERE c.run_id = ?1 AND c.stage <= ?2 AND c.matrix_index IN "
			       "(SELECT matrix_index FROM combo WHERE run_id = ?1 AND stage = ?2) "
			       "GROUP BY c.matrix_index, p.phase ORDER BY c.matrix_index",
			       -1, &st, NULL) != SQLITE_OK)
		return st_db_fail(err, n, "store: %s", sqlite3_errmsg(s->db));
	st_db_bind_text(st, 1, run_id);
	sqlite3_bind_int(st, 2, stage);
	struct ranked cur = { 0 };
	uint64_t got = 0;
	int have = 0, rc;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW || have) {
		uint32_t index = rc == SQLITE_ROW ? (uint32_t)sqlite3_column_int64(st, 0) : 0;
		if (have && (rc != SQLITE_ROW || index != cur.index)) {
			/* one combination done: its geometric mean, or last of all */
			if (got < max)
				out[got++] = (struct st_stage_rank){
					.index = cur.index,
					.score = cur.ok && cur.phases ? exp(cur.logsum / cur.phases)
								      : -1.0,
				};
			have = 0;
		}
		if (rc != SQLITE_ROW)
			break;
		if (!have)
			cur = (struct ranked){ .index = index, .ok = 1 };
		have = 1;
		cur.ok &= sqlite3_column_int(st, 1) == 1;
		double f = sqlite3_column_double(st, 2);
		if (sqlite3_column_type(st, 2) != SQLITE_NULL && f > 0) {
			cur.logsum += log(f);
			cur.phases++;
		}
	}
	sqlite3_finalize(st);
	if (rc != SQLITE_DONE && rc != SQLITE_ROW)
		return st_db_fail(err, n, "store: %s", sqlite3_errmsg(s->db));
	qsort(out, got, sizeof(*out), by_score);
	return (int64_t)got;
}

int64_t st_store_stage_runs(struct st_store *s, const char *run_id, int stage, uint32_t below,
			    struct st_stage_run *out, uint64_t max, char *err, size_t n)
{
	sqlite3_stmt *st;
	if (sqlite3_prepare_v2(s->db,
			       "SELECT c.combo_id, c.matrix_index, c.status = 'ok', "
			       "CASE WHEN p.bytes > 0 THEN p.agg_mbps ELSE p.iops END "
			       "FROM combo c LEFT JOIN phase_summary p USING (combo_id) "
			       "WHERE c.run_id = ?1 AND c.stage = ?2 AND c.iteration < ?3 "
			       "ORDER BY c.matrix_index, c.combo_id",
			       -1, &st, NULL) != SQLITE_OK)
		return st_db_fail(err, n, "store: %s", sqlite3_errmsg(s->db));
	st_db_bind_text(st, 1, run_id);
	sqlite3_bind_int(st, 2, stage);
	sqlite3_bind_int64(st, 3, below);
	struct ranked cur = { 0 };
	int64_t id = -1;
	uint64_t got = 0;
	int have = 0, rc;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW || have) {
		int64_t this = rc == SQLITE_ROW ? sqlite3_column_int64(st, 0) : -1;
		if (have && (rc != SQLITE_ROW || this != id)) {
			/* one run done: the geometric mean of its phases' figures */
			if (got < max)
				out[got++] = (struct st_stage_run){
					.index = cur.index,
					.figure = cur.ok && cur.phases ? exp(cur.logsum / cur.phases)
								       : -1.0,
				};
			have = 0;
		}
		if (rc != SQLITE_ROW)
			break;
		if (!have)
			cur = (struct ranked){ .index = (uint32_t)sqlite3_column_int64(st, 1), .ok = 1 };
		have = 1;
		id = this;
		cur.ok &= sqlite3_column_int(st, 2) == 1;
		double f = sqlite3_column_double(st, 3);
		if (sqlite3_column_type(st, 3) != SQLITE_NULL && f > 0) {
			cur.logsum += log(f);
			cur.phases++;
		}
	}
	sqlite3_finalize(st);
	if (rc != SQLITE_DONE && rc != SQLITE_ROW)
		return st_db_fail(err, n, "store: %s", sqlite3_errmsg(s->db));
	return (int64_t)got;
}

int st_store_run_spent(struct st_store *s, const char *run_id, int64_t *ns, char *err, size_t n)
{
	sqlite3_stmt *st;
	*ns = 0;
	if (sqlite3_prepare_v2(s->db,
			       "SELECT COALESCE(SUM(MAX(julianday(finished_at) - julianday(started_at), "
			       "0)), 0) * 86400e9 FROM combo WHERE run_id = ?",
			       -1, &st, NULL) != SQLITE_OK)
		return st_db_fail(err, n, "store: %s", sqlite3_errmsg(s->db));
	st_db_bind_text(st, 1, run_id);
	int rc = sqlite3_step(st);
	if (rc == SQLITE_ROW)
		*ns = (int64_t)sqlite3_column_double(st, 0);
	sqlite3_finalize(st);
	return rc == SQLITE_ROW ? 0 : st_db_fail(err, n, "store: %s", sqlite3_errmsg(s->db));
}
