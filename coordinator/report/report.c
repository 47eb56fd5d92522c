/*
 * report.c - report, runs and query (see report.h).
 *
 * The figures are the store's views (sql/views.sql), computed for the run's
 * combinations only (sql/run_views.sql); this file only picks columns and prints. Every output format stays valid when a combination
 * failed: failed rows carry NULL figures (null in JSON, empty in CSV).
 */
#include "report.h"

#include "../../common/options.h"
#include "../../common/strbuf.h"
#include "../../common/units.h"
#include "../../common/util.h"
#include "../store/output.h"
#include "../store/runs.h"
#include "../store/store.h"
#include "analysis.h"
#include "html.h"
#include "subcmd.h"

#include <stdlib.h>
#include <string.h>

#define MBPS_NOTE                                                                                \
	"MB/s = 10^6 bytes per second; aggregate = all client bytes / (latest end - earliest "   \
	"start); p50/p99 us = each I/O call from its issue to its completion (with --iodepth " \
	"N, N in flight)"

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
	/* the run's rows only (sql/run_views.sql): the cost is the run's, not the history's */
	struct st_strbuf sql = ST_STRBUF_INIT;
	st_strbuf_put(&sql, "WITH rc AS (SELECT combo_id FROM combo WHERE run_id = ?1),\n");
	st_strbuf_put(&sql, st_sql_run_views);
	st_strbuf_addf(&sql,
		 "SELECT c.seq + 1 AS seq, %s"
		 "%s"
		 "p.phase, COALESCE(p.status, c.status) AS status, "
		 "ROUND(s.agg_mbps, 1) AS \"MB/s\", "
		 "ROUND(s.first_done_mbps, 1) AS \"first MB/s\", "
		 "ROUND(s.min_client_mbps, 1) AS \"min client\", "
		 "ROUND(s.max_client_mbps, 1) AS \"max client\", "
		 "ROUND(s.fairness, 2) AS fair, ROUND(s.iops, 0) AS iops, "
		 "ROUND(s.lat_p50_ns / 1e3, 1) AS \"p50 us\", ROUND(s.lat_p99_ns / 1e3, 1) AS \"p99 us\", "
		 "s.clients, s.errors, %s"
		 "COALESCE(p.message, CASE WHEN c.status <> 'ok' THEN c.message END, "
		 "CASE WHEN p.skew_ns > 0.01 * s.span_ns THEN 'barrier skew ' || "
		 "ROUND(100.0 * p.skew_ns / s.span_ns, 1) || '%% of the phase' END, "
		 "CASE WHEN k.rtt_ns / 2 > 0.01 * s.span_ns THEN 'clock offsets uncertain by ' || "
		 "ROUND(50.0 * k.rtt_ns / s.span_ns, 1) || '%% of the phase' END) AS note "
		 "FROM combo c LEFT JOIN phase_run p ON p.combo_id = c.combo_id "
		 "LEFT JOIN ps s ON s.combo_id = p.combo_id AND s.phase = p.phase "
		 "LEFT JOIN vd v ON v.combo_id = p.combo_id AND v.phase = p.phase "
		 "LEFT JOIN (SELECT run_id, MAX(clock_rtt_ns) AS rtt_ns FROM host WHERE run_id = ?1 "
		 "GROUP BY run_id) k "
		 "ON k.run_id = c.run_id "
		 "WHERE c.run_id = ?1 AND (?2 IS NULL OR p.phase = ?2) "
		 "ORDER BY %s",
		 cols, st_run_iterations(db, run) > 1 ? "c.iteration + 1 AS iter, " : "",
		 st_run_has_baseline(db, run) ? "ROUND(v.pct_of_limit, 0) AS \"% of limit\", v.verdict, " : "",
		 o->top ? "s.agg_mbps DESC NULLS LAST LIMIT ?3" : "c.seq, p.phase_order");
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
	char note[512];
	snprintf(note, sizeof(note), "run %s; %s", run, MBPS_NOTE);
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
	int rc = o.html ? st_html_report_file(st_store_db(s), o.run, o.html)
			: st_report_print(st_store_db(s), &o, stdout);
	st_store_close(s);
	return rc;
}

int st_cmd_runs(const struct st_subargs *a)
{
	struct st_store *s = st_subcmd_store(a);
	if (!s)
		return 2;
	sqlite3_stmt *st;
	int rc = 1;
	/* a store last written by an older stcluster has no note in its view */
	int64_t has_note = 0;
	sqlite3_stmt *chk;
	if (sqlite3_prepare_v2(st_store_db(s),
			       "SELECT COUNT(*) FROM pragma_table_info('run_summary') WHERE name = 'note'",
			       -1, &chk, NULL) == SQLITE_OK) {
		if (sqlite3_step(chk) == SQLITE_ROW)
			has_note = sqlite3_column_int64(chk, 0);
		sqlite3_finalize(chk);
	}
	char sql[512];
	snprintf(sql, sizeof(sql),
		 "SELECT run_id, started_at, label, hosts, nranks AS ranks, "
		 "combos_stored || '/' || combos_planned AS combinations, "
		 "combos_failed AS failed, status%s FROM run_summary ORDER BY started_at, rowid",
		 has_note ? ", note" : "");
	if (sqlite3_prepare_v2(st_store_db(s), sql, -1, &st, NULL) == SQLITE_OK) {
		rc = st_print_rows(st, a->format, NULL, stdout) ? 1 : 0;
		sqlite3_finalize(st);
	} else {
		fprintf(stderr, "stcluster: runs: %s\n", sqlite3_errmsg(st_store_db(s)));
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
			fprintf(stderr, "stcluster: query: %s\n", sqlite3_errmsg(st_store_db(s)));
			rc = 2;
			break;
		}
		if (!st)
			break; /* only whitespace or comments left */
		if (st_print_rows(st, a->format, NULL, stdout))
			rc = 2;
		sqlite3_finalize(st);
		if (rc)
			break;
	}
	st_store_close(s);
	return rc;
}
