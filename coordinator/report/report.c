/*
 * report.c - report, runs and query (see report.h).
 *
 * The figures are the store's views (sql/views.sql); this file only picks
 * columns and prints. Every output format stays valid when a combination
 * failed: failed rows carry NULL figures (null in JSON, empty in CSV).
 */
#include "report.h"

#include "../../common/options.h"
#include "../../common/units.h"
#include "../../common/util.h"
#include "../store/output.h"
#include "../store/runs.h"
#include "../store/store.h"
#include "analysis.h"
#include "html.h"
#include "scope.h"
#include "subcmd.h"

#include <stdlib.h>
#include <string.h>

#define MBPS_NOTE                                                                                \
	"MB/s = 10^6 bytes per second; aggregate = all client bytes / (latest end - earliest "   \
	"start); p50/p99 us = each I/O call from its issue to its completion (with --iodepth " \
	"N, N in flight); errors = calls that failed + blocks that did not verify"
#define RPC_NOTE "; rpc: the phase's NFS calls (~: stable_how inferred from the COMMITs)"

/* The run id for "last", "last~N", an exact id or a unique prefix (the one
 * resolver of every subcommand: store/runs.c); 0 or -1 after the message. */
static int resolve_run(sqlite3 *db, const char *want, char *id, size_t n)
{
	char err[ST_ERR_MAX];
	if (st_run_resolve(db, want, id, n, err, sizeof(err)) == 0)
		return 0;
	fprintf(stderr, "stcluster: --run: %s\n", err);
	return -1;
}

/* Does the run have rows in rpc_stat (what went over the wire), with the
 * views that read them? A store last written by an older stcluster, read
 * as it is, has neither. */
static int run_has(sqlite3 *db, const char *run, const char *sql)
{
	sqlite3_stmt *st;
	int yes = 0;
	/* over the run's rows only (scope.h): a view such as phase_flags would
	 * otherwise aggregate every run ever stored before the EXISTS */
	struct st_strbuf q = { 0 };
	st_scope_head(db, "run_id = ?1", sql, &q);
	st_strbuf_put(&q, sql);
	if (!q.oom && sqlite3_prepare_v2(db, q.p, -1, &st, NULL) == SQLITE_OK) {
		sqlite3_bind_text(st, 1, run, -1, SQLITE_TRANSIENT);
		yes = sqlite3_step(st) == SQLITE_ROW && sqlite3_column_int(st, 0) > 0;
		sqlite3_finalize(st);
	}
	st_strbuf_release(&q);
	return yes;
}

int st_report_print(sqlite3 *db, const struct st_report_opts *o, FILE *out)
{
	char run[64];
	if (resolve_run(db, o->run, run, sizeof(run)))
		return 2;
	/* the best combinations, one row each: sql/queries/top.sql */
	if (o->top)
		return st_top_print(db, run, o->phase, o->top, o->format, out);
	/* options that vary within the run become columns */
	char cols[2048] = "";
	int shown = 0;
	for (int pass = 0; pass < 2 && !shown; pass++)
		for (int i = 0; i < ST_OPT_COUNT; i++) {
			if (!(st_options[i].flags & ST_OF_SWEEP))
				continue;
			int show = 0;
			if (pass == 0) {
				char sql[256];
				sqlite3_stmt *st;
				snprintf(sql, sizeof(sql),
					 "SELECT COUNT(DISTINCT \"%s\") FROM combo WHERE run_id = ?",
					 st_options[i].name);
				if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) == SQLITE_OK) {
					sqlite3_bind_text(st, 1, run, -1, SQLITE_TRANSIENT);
					show = sqlite3_step(st) == SQLITE_ROW && sqlite3_column_int(st, 0) > 1;
					sqlite3_finalize(st);
				}
			} else {
				show = i == ST_OPT_BLOCK || i == ST_OPT_SIZE || i == ST_OPT_THREADS;
			}
			if (!show)
				continue;
			size_t l = strlen(cols);
			if (st_options[i].type == ST_T_SIZE)
				snprintf(cols + l, sizeof(cols) - l, "st_size(c.\"%s\") AS \"%s\", ",
					 st_options[i].name, st_options[i].name);
			else
				snprintf(cols + l, sizeof(cols) - l, "c.\"%s\", ", st_options[i].name);
			shown++;
		}
	/* what went over the wire, beside the MB/s; what contradicts the request */
	int views = run_has(db, run, "SELECT COUNT(*) = 2 FROM sqlite_schema WHERE type = 'view' AND "
				     "name IN ('rpc_mix', 'phase_flags') AND ?1 IS NOT NULL");
	int rpc = views && run_has(db, run, "SELECT EXISTS (SELECT 1 FROM rpc_stat r JOIN combo c "
					    "ON c.combo_id = r.combo_id WHERE c.run_id = ?1)");
	int flags = views && run_has(db, run, "SELECT EXISTS (SELECT 1 FROM phase_flags f JOIN combo c "
					      "ON c.combo_id = f.combo_id WHERE c.run_id = ?1)");
	/* the run's rows only (scope.h): the cost is the run's, not the history's */
	struct st_strbuf body = { 0 }, sql = { 0 };
	st_strbuf_addf(&body,
		 "SELECT c.seq + 1 AS seq, %s"
		 "%s"
		 "p.phase, COALESCE(p.status, c.status) AS status, "
		 "ROUND(s.agg_mbps, 1) AS \"MB/s\", %s%s"
		 "ROUND(s.first_done_mbps, 1) AS \"first MB/s\", "
		 "ROUND(s.min_client_mbps, 1) AS \"min client\", "
		 "ROUND(s.max_client_mbps, 1) AS \"max client\", "
		 "ROUND(s.fairness, 2) AS fair, ROUND(s.iops, 0) AS iops, "
		 "ROUND(s.lat_p50_ns / 1e3, 1) AS \"p50 us\", ROUND(s.lat_p99_ns / 1e3, 1) AS \"p99 us\", "
		 "s.clients, s.errors + COALESCE(s.bad_blocks, 0) AS errors, %s%s%s%s"
		 /* the combination's message on the rows it is about: a failed
		  * preparation (no phase), or the phase that went wrong */
		 "COALESCE(p.message, CASE WHEN c.status <> 'ok' AND (p.phase IS NULL OR "
		 "p.status <> 'ok') THEN c.message END, "
		 "CASE WHEN p.skew_ns > 0.01 * s.span_ns THEN 'barrier skew ' || "
		 "ROUND(100.0 * p.skew_ns / s.span_ns, 1) || '%% of the phase' END, "
		 "CASE WHEN k.rtt_ns / 2 > 0.01 * s.span_ns THEN 'clock offsets uncertain by ' || "
		 "ROUND(50.0 * k.rtt_ns / s.span_ns, 1) || '%% of the phase' END) AS note "
		 "FROM combo c LEFT JOIN phase_run p ON p.combo_id = c.combo_id "
		 "LEFT JOIN phase_summary s ON s.combo_id = p.combo_id AND s.phase = p.phase "
		 "LEFT JOIN verdict v ON v.combo_id = p.combo_id AND v.phase = p.phase "
		 "LEFT JOIN phase_cpu u ON u.combo_id = p.combo_id AND u.phase = p.phase "
		 "%s%s"
		 "LEFT JOIN (SELECT run_id, MAX(clock_rtt_ns) AS rtt_ns FROM host GROUP BY run_id) k "
		 "ON k.run_id = c.run_id "
		 "WHERE c.run_id = ?1 AND (?2 IS NULL OR p.phase = ?2) "
		 "ORDER BY %s",
		 cols, st_run_iterations(db, run) > 1 ? "c.iteration + 1 AS iter, " : "",
		 rpc ? "m.mix AS rpc, " : "", flags ? "fl.flag_text AS flags, " : "",
		 st_run_has_mixed(db, run) ? "ROUND(s.read_pct, 1) AS \"read %\", "
					     "ROUND(s.read_mbps, 1) AS \"read MB/s\", "
					     "ROUND(s.write_mbps, 1) AS \"write MB/s\", "
					   : "",
		 st_run_stalls(db, run) ? "(SELECT SUM(i.stall) FROM interval_rank i WHERE i.combo_id = "
					  "c.combo_id AND i.phase = p.phase) AS stalls, "
					: "",
		 ST_CPU_COLUMNS("u.") ", ",
		 st_run_has_baseline(db, run) ? "ROUND(v.pct_of_limit, 0) AS \"% of limit\", v.verdict, " : "",
		 rpc ? "LEFT JOIN (SELECT combo_id, phase, group_concat(mix, ' | ') AS mix FROM rpc_mix "
		       "GROUP BY combo_id, phase) m ON m.combo_id = p.combo_id AND m.phase = p.phase "
		     : "",
		 flags ? "LEFT JOIN phase_flags fl ON fl.combo_id = p.combo_id AND fl.phase = p.phase " : "",
		 o->top ? "s.agg_mbps DESC NULLS LAST LIMIT ?3" : "c.seq, p.phase_order");
	if (!body.oom) {
		st_scope_head(db, "run_id = ?1", body.p, &sql);
		st_strbuf_put(&sql, body.p);
	}
	if (body.oom)
		sql.oom = 1;
	st_strbuf_release(&body);
	sqlite3_stmt *st = NULL;
	if (sql.oom || sqlite3_prepare_v2(db, sql.p, -1, &st, NULL) != SQLITE_OK) {
		fprintf(stderr, "stcluster: report: %s\n", sql.oom ? "out of memory" : sqlite3_errmsg(db));
		st_strbuf_release(&sql);
		return 1;
	}
	st_strbuf_release(&sql);
	sqlite3_bind_text(st, 1, run, -1, SQLITE_TRANSIENT);
	if (o->phase)
		sqlite3_bind_text(st, 2, o->phase, -1, SQLITE_TRANSIENT);
	if (o->top)
		sqlite3_bind_int(st, 3, o->top);
	char note[1280];
	snprintf(note, sizeof(note), "run %s; %s; %s%s", run, MBPS_NOTE, ST_CPU_NOTE, rpc ? RPC_NOTE : "");
	int rc = st_print_rows(st, o->format, note, out);
	sqlite3_finalize(st);
	return rc ? 1 : 0;
}

int st_cmd_report(const struct st_subargs *a)
{
	struct st_report_opts o = { .db = a->db, .run = a->run, .phase = a->phase, .top = a->top,
				    .format = a->format, .html = a->html };
	struct st_store *s = st_subcmd_store(a);
	if (!s)
		return 2;
	int rc = o.html ? st_html_report_file(st_store_db(s), o.run, o.html, a->db, a->force)
			: st_report_print(st_store_db(s), &o, stdout);
	st_store_close(s);
	return rc;
}

/* Does table have column? (a store an older stcluster wrote last lacks
 * the later ones, and a reader does not migrate it) */
static int has_column(sqlite3 *db, const char *table, const char *column)
{
	sqlite3_stmt *st;
	int have = 0;
	if (sqlite3_prepare_v2(db, "SELECT COUNT(*) FROM pragma_table_info(?1) WHERE name = ?2", -1,
			       &st, NULL) != SQLITE_OK)
		return 0;
	sqlite3_bind_text(st, 1, table, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 2, column, -1, SQLITE_STATIC);
	if (sqlite3_step(st) == SQLITE_ROW)
		have = sqlite3_column_int(st, 0) > 0;
	sqlite3_finalize(st);
	return have;
}

int st_cmd_runs(const struct st_subargs *a)
{
	struct st_store *s = st_subcmd_store(a);
	if (!s)
		return ST_EXIT_BAD_INPUT;
	sqlite3 *db = st_store_db(s);
	sqlite3_stmt *st;
	int rc = ST_EXIT_FAILURES;
	/*
	 * The combinations by outcome, as the run_summary view counts them
	 * (sql/views.sql), from the tables: the view in a store is the one its
	 * last writer made. A run whose row says running but whose rank 0 holds
	 * no lock is shown aborted (store/live.h); its row is not changed.
	 */
	const char *reason = has_column(db, "run", "abort_reason") ? "r.abort_reason" : "NULL";
	const char *cleanup = has_column(db, "run", "cleanup") ? "r.cleanup" : "NULL";
	char sql[3000];
	snprintf(sql, sizeof(sql),
		 "WITH k AS (SELECT c.run_id, c.status, EXISTS (SELECT 1 FROM rank_result x WHERE "
		 "x.combo_id = c.combo_id AND x.bad_blocks > 0) AS unverified FROM combo c), "
		 "n AS (SELECT run_id, COUNT(*) AS stored, "
		 "COUNT(CASE WHEN status = 'ok' THEN 1 END) AS ok, "
		 "COUNT(CASE WHEN status = 'error' AND NOT unverified THEN 1 END) AS error, "
		 "COUNT(CASE WHEN status = 'failed' THEN 1 END) AS failed, "
		 "COUNT(CASE WHEN status = 'skipped' THEN 1 END) AS skipped, "
		 "COUNT(CASE WHEN unverified THEN 1 END) AS unverified FROM k GROUP BY run_id), "
		 "v AS (SELECT r.*, r.rowid AS rowid_, %s AS reason_, %s AS cleanup_, "
		 "r.status = 'running' AND st_run_live(r.run_id) = 0 AS gone FROM run r) "
		 "SELECT v.run_id, v.started_at, v.label, "
		 "(SELECT group_concat(DISTINCT h.hostname) FROM host h WHERE h.run_id = v.run_id) AS hosts, "
		 "v.nranks AS ranks, COALESCE(n.stored, 0) || '/' || v.combos_planned AS combinations, "
		 "COALESCE(n.ok, 0) AS ok, COALESCE(n.error, 0) AS error, COALESCE(n.failed, 0) AS failed, "
		 "COALESCE(n.skipped, 0) AS skipped, COALESCE(n.unverified, 0) AS unverified, "
		 "CASE WHEN v.gone THEN 'aborted' ELSE v.status END AS status, "
		 "NULLIF(COALESCE(CASE WHEN v.gone THEN 'rank 0 gone: no process holds the run''s lock "
		 "(rank 0 was killed, or its host failed); the store still says running' "
		 "WHEN v.status = 'aborted' THEN v.reason_ WHEN v.reason_ IS NOT NULL THEN "
		 "'resumed after: ' || v.reason_ END, '') || "
		 "COALESCE(CASE WHEN v.gone OR v.status = 'aborted' OR v.reason_ IS NOT NULL THEN '; ' "
		 "ELSE '' END || 'left behind: ' || v.cleanup_, ''), '') AS note "
		 "FROM v LEFT JOIN n USING (run_id) ORDER BY v.started_at, v.rowid_",
		 reason, cleanup);
	if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) == SQLITE_OK) {
		rc = st_print_rows(st, a->format, NULL, stdout) ? ST_EXIT_FAILURES : ST_EXIT_OK;
		sqlite3_finalize(st);
	} else {
		fprintf(stderr, "stcluster: runs: %s\n", sqlite3_errmsg(db));
	}
	st_store_close(s);
	return rc;
}

int st_cmd_query(const struct st_subargs *a)
{
	const char *sql = a->npos ? a->pos[0] : NULL;
	if (!sql || !*sql) {
		fprintf(stderr, "stcluster query: missing SQL (stcluster query \"SELECT ...\")\n");
		return 2;
	}
	struct st_store *s = st_subcmd_store(a);
	if (!s)
		return 2;
	int rc = 0;
	const char *tail = sql;
	while (tail && *tail) {
		sqlite3_stmt *st = NULL;
		if (sqlite3_prepare_v2(st_store_db(s), tail, -1, &st, &tail) != SQLITE_OK) {
			int denied = (sqlite3_extended_errcode(st_store_db(s)) & 0xff) == SQLITE_AUTH ||
				     strstr(sqlite3_errmsg(st_store_db(s)), "not authorized");
			fprintf(stderr, "stcluster: query: %s%s\n", sqlite3_errmsg(st_store_db(s)),
				denied ? " (query only reads: it writes nothing, anywhere)" : "");
			rc = 2;
			break;
		}
		if (!st)
			break; /* only whitespace or comments left */
		if (!st_store_statement_reads(st)) {
			fprintf(stderr, "stcluster query: '%.*s' is not a statement that only reads "
					"(query writes nothing, anywhere)\n",
				(int)strcspn(sqlite3_sql(st), "\n"), sqlite3_sql(st));
			sqlite3_finalize(st);
			rc = 2;
			break;
		}
		if (st_print_rows(st, a->format, NULL, stdout))
			rc = 2;
		sqlite3_finalize(st);
		if (rc)
			break;
	}
	st_store_close(s);
	return rc;
}
