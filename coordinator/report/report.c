/*
 * report.c - report, runs and query (see report.h).
 *
 * The figures are the store's views (sql/views.sql); this file only picks
 * columns and prints. Every output format stays valid when a combination
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
#include "json.h"
#include "screen.h"
#include "query.h"
#include "subcmd.h"

#include <stdlib.h>
#include <string.h>

#define MBPS_NOTE                                                                                \
	"MB/s = 10^6 bytes per second; aggregate = all client bytes / (latest end - earliest "   \
	"start); pN us = percentile N (--percentiles) of each I/O call's time from its issue "    \
	"to its completion (with --iodepth N, N in flight), max us the longest; errors = calls that failed + blocks that did not verify"
#define RPC_NOTE "; rpc: the phase's NFS calls (~: stable_how inferred from the COMMITs)"

/* The combination's message on the rows it is about: a failed preparation
 * (no phase), or the phase that went wrong; else what makes its timing
 * uncertain. */
#define NOTE_SQL                                                                                \
	"COALESCE(p.message, CASE WHEN c.status <> 'ok' AND (p.phase IS NULL OR "              \
	"p.status <> 'ok') THEN c.message END, "                                              \
	"CASE WHEN p.skew_ns > 0.01 * s.span_ns THEN 'barrier skew ' || "                      \
	"ROUND(100.0 * p.skew_ns / s.span_ns, 1) || '%% of the phase' END, "                 \
	"CASE WHEN k.rtt_ns / 2 > 0.01 * s.span_ns THEN 'clock offsets uncertain by ' || "     \
	"ROUND(50.0 * k.rtt_ns / s.span_ns, 1) || '%% of the phase' END)"
/* The rows of a report, and the joins of the rpc and flags columns after it. */
#define FROM_SQL                                                                                \
	"combo c LEFT JOIN phase_run p ON p.combo_id = c.combo_id "                            \
	"LEFT JOIN phase_summary s ON s.combo_id = p.combo_id AND s.phase = p.phase "         \
	"LEFT JOIN verdict v ON v.combo_id = p.combo_id AND v.phase = p.phase "               \
	"LEFT JOIN phase_cpu u ON u.combo_id = p.combo_id AND u.phase = p.phase "             \
	"LEFT JOIN (SELECT run_id, MAX(clock_rtt_ns) AS rtt_ns FROM host GROUP BY run_id) k " \
	"ON k.run_id = c.run_id "
#define WHERE_SQL                                                                               \
	"WHERE c.run_id = :run AND (:phase IS NULL OR p.phase = :phase) "                      \
	"ORDER BY c.seq, p.phase_order"
#define RPC_JOIN                                                                                \
	"LEFT JOIN (SELECT combo_id, phase, group_concat(mix, ' | ') AS mix FROM rpc_mix "     \
	"GROUP BY combo_id, phase) m ON m.combo_id = p.combo_id AND m.phase = p.phase "
#define FLAGS_JOIN "LEFT JOIN phase_flags fl ON fl.combo_id = p.combo_id AND fl.phase = p.phase "
/* the phase's calls apart from its tail (fsync, COMMIT, close) */
#define TAIL_JOIN "LEFT JOIN phase_tail t ON t.combo_id = p.combo_id AND t.phase = p.phase "

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

/* Is the first column of sql's first row over the run's rows only
 * (scope.h) true? A view such as phase_flags would otherwise aggregate
 * every run ever stored before the EXISTS; a store last written by an
 * older stcluster, read as it is, may lack what sql reads: no. */
static int run_has(sqlite3 *db, const char *run, const char *sql)
{
	char err[ST_ERR_MAX];
	int64_t v;
	struct st_qparams p = { .scope = "run_id = :run", .run = run };
	return st_query_int(db, sql, &p, &v, err, sizeof(err)) > 0 && v > 0;
}

/* Into cols: the columns of the options that vary within the run (each
 * followed by ", "); with none, those of block, size and threads; their
 * names into names[*nnames] (at most 64). */
static void option_columns(sqlite3 *db, const char *run, int own, char *cols, size_t n,
			   const char **names, int *nnames)
{
	/* a phase's own values (phase_run.phase_<name>, common/phaseopt.h) are
	 * its: a phase that wrote with 1m and one that read with 4k show so */
	const char *pp = own ? "p." : NULL;
	*nnames = 0;
	char err[ST_ERR_MAX];
	struct st_qparams p = { .run = run };
	cols[0] = '\0';
	int shown = 0;
	for (int pass = 0; pass < 2 && !shown; pass++)
		for (int i = 0; i < ST_OPT_COUNT; i++) {
			if (!(st_options[i].flags & ST_OF_SWEEP))
				continue;
			int show = 0;
			if (pass == 0) {
				struct st_strbuf sql = { 0 };
				int64_t v;
				st_strbuf_put(&sql, "SELECT COUNT(DISTINCT ");
				st_opt_col_sql(&sql, i, "c.", pp);
				st_strbuf_put(&sql, ") FROM combo c LEFT JOIN phase_run p ON p.combo_id = "
						    "c.combo_id WHERE c.run_id = :run");
				show = !sql.oom &&
				       st_query_int(db, sql.p, &p, &v, err, sizeof(err)) > 0 && v > 1;
				st_strbuf_release(&sql);
			} else {
				show = i == ST_OPT_BLOCK || i == ST_OPT_SIZE || i == ST_OPT_THREADS;
			}
			if (!show)
				continue;
			if (*nnames < 64)
				names[(*nnames)++] = st_options[i].name;
			struct st_strbuf e = { 0 };
			st_opt_col_sql(&e, i, "c.", pp);
			size_t l = strlen(cols);
			if (st_options[i].type == ST_T_SIZE)
				snprintf(cols + l, n - l, "st_size(%s) AS \"%s\", ", e.oom ? "NULL" : e.p,
					 st_options[i].name);
			else
				snprintf(cols + l, n - l, "%s AS \"%s\", ", e.oom ? "NULL" : e.p,
					 st_options[i].name);
			st_strbuf_release(&e);
			shown++;
		}
}

/* What the report of a run shows beside its figures: each part the run
 * (or the store) has. */
struct report_parts {
	int rpc;      /* what went over the wire (rpc_stat, view rpc_mix) */
	int flags;    /* what contradicts the request (view phase_flags) */
	int iters;    /* more than one iteration */
	int mixed;    /* mixed phases: their read share, read and write MB/s */
	int stalls;   /* intervals flagged as stalls */
	int baseline; /* baselines: % of limit and the verdict */
	int own;      /* phase_run has the phases' own values (phase_block, ...) */
};


static void report_parts(sqlite3 *db, const char *run, struct report_parts *w)
{
	int views = run_has(db, run, "SELECT COUNT(*) = 2 FROM sqlite_schema WHERE type = 'view' AND "
				     "name IN ('rpc_mix', 'phase_flags') AND :run IS NOT NULL");
	w->rpc = views && run_has(db, run, "SELECT EXISTS (SELECT 1 FROM rpc_stat r JOIN combo c "
					   "ON c.combo_id = r.combo_id WHERE c.run_id = :run)");
	w->flags = views && run_has(db, run, "SELECT EXISTS (SELECT 1 FROM phase_flags f JOIN combo c "
					     "ON c.combo_id = f.combo_id WHERE c.run_id = :run)");
	w->iters = st_run_iterations(db, run) > 1;
	w->mixed = st_run_has_mixed(db, run);
	w->stalls = st_run_stalls(db, run) != 0;
	w->baseline = st_run_has_baseline(db, run);
	w->own = st_query_phase_values(db);
}

/* Into b: the statement of the report, one row per combination and phase
 * (:run, and :phase when given), with the columns cols and those of w. */
static void report_sql(const char *cols, const struct report_parts *w, const char *pcts,
		       struct st_strbuf *b)
{
	st_strbuf_addf(b,
		 "SELECT c.seq + 1 AS seq, %s"
		 "%s"
		 "p.phase, COALESCE(p.status, c.status) AS status, "
		 "ROUND(s.agg_mbps, 1) AS \"MB/s\", %s%s"
		 "ROUND(s.first_done_mbps, 1) AS \"first MB/s\", "
		 "ROUND(t.calls_mbps, 1) AS \"calls MB/s\", ROUND(t.tail_ns / 1e6, 1) AS \"tail ms\", "
		 "ROUND(s.min_client_mbps, 1) AS \"min client\", "
		 "ROUND(s.max_client_mbps, 1) AS \"max client\", "
		 "ROUND(s.fairness, 2) AS fair, ROUND(s.iops, 0) AS iops, "
		 "%s"
		 "s.clients, s.errors + COALESCE(s.bad_blocks, 0) AS errors, %s%s%s%s"
		 NOTE_SQL " AS note FROM " FROM_SQL TAIL_JOIN "%s%s" WHERE_SQL,
		 cols, w->iters ? "c.iteration + 1 AS iter, " : "",
		 w->rpc ? "m.mix AS rpc, " : "", w->flags ? "fl.flag_text AS flags, " : "", pcts,
		 w->mixed ? "ROUND(s.read_pct, 1) AS \"read %\", "
			    "ROUND(s.read_mbps, 1) AS \"read MB/s\", "
			    "ROUND(s.write_mbps, 1) AS \"write MB/s\", "
			  : "",
		 w->stalls ? "(SELECT SUM(i.stall) FROM interval_rank i WHERE i.combo_id = "
			     "c.combo_id AND i.phase = p.phase) AS stalls, "
			   : "",
		 ST_CPU_COLUMNS("u.") ", ",
		 w->baseline ? "ROUND(v.pct_of_limit, 0) AS \"% of limit\", v.verdict, " : "",
		 w->rpc ? RPC_JOIN : "", w->flags ? FLAGS_JOIN : "");
}

/* Into b: the table's latency columns, in us: each percentile of ps, then the max. */
static void pct_columns(const struct st_pcts *ps, struct st_strbuf *b)
{
	for (int i = 0; i < ps->n; i++) {
		char label[40];
		st_pct_label(ps->q[i], label, sizeof(label));
		st_strbuf_put(b, "ROUND(");
		st_json_pct_sql(b, ps->q[i]);
		st_strbuf_addf(b, " / 1e3, 1) AS \"%s us\", ", label);
	}
	st_strbuf_put(b, "ROUND(s.lat_max_ns / 1e3, 1) AS \"max us\", ");
}

/* Into b: the report as JSON rows (sql/schema.json, "report_row"): one
 * json_object per combination and phase, every key in every run. */
static void report_json_sql(const struct report_parts *w, const struct st_pcts *ps,
			    struct st_strbuf *b)
{
	st_strbuf_put(b, "SELECT json_object('combo_id', c.combo_id, 'seq', c.seq, "
			 "'iteration', c.iteration, 'stage', c.stage, 'options', ");
	st_json_options_phase_sql(b, "c.", w->own ? "p." : NULL);
	st_strbuf_put(b, ", 'phase', p.phase, 'status', COALESCE(p.status, c.status), "
			 "'bytes', s.bytes, 'ops', s.ops, 'span_ns', s.span_ns, "
			 "'bytes_per_s', s.agg_mbps * 1e6, "
			 "'first_done_bytes_per_s', s.first_done_mbps * 1e6, "
			 "'calls_bytes_per_s', t.calls_mbps * 1e6, 'tail_ns', t.tail_ns, "
			 "'min_client_bytes_per_s', s.min_client_mbps * 1e6, "
			 "'max_client_bytes_per_s', s.max_client_mbps * 1e6, "
			 "'fairness', s.fairness, 'ops_per_s', s.iops, 'clients', s.clients, "
			 "'errors', s.errors + COALESCE(s.bad_blocks, 0), "
			 "'latency_mean_ns', s.lat_mean_ns, 'latency_max_ns', s.lat_max_ns, "
			 "'latency_percentiles_ns', ");
	st_json_pcts_sql(b, ps);
	st_strbuf_put(b, ", 'read_pct', CASE WHEN p.phase IN ('rw', 'randrw') THEN s.read_pct END, "
			 "'read_bytes_per_s', CASE WHEN p.phase IN ('rw', 'randrw') THEN "
			 "s.read_mbps * 1e6 END, "
			 "'write_bytes_per_s', CASE WHEN p.phase IN ('rw', 'randrw') THEN "
			 "s.write_mbps * 1e6 END, "
			 "'stalls', (SELECT SUM(i.stall) FROM interval_rank i WHERE i.combo_id = "
			 "c.combo_id AND i.phase = p.phase), " ST_JSON_CPU("u.") ", "
			 "'pct_of_limit', v.pct_of_limit, 'verdict', v.verdict, ");
	st_strbuf_addf(b, "'flags', %s, 'rpc', %s, 'note', " NOTE_SQL ") FROM " FROM_SQL TAIL_JOIN
			  "%s%s" WHERE_SQL,
		       w->flags ? "fl.flag_text" : "NULL", w->rpc ? "m.mix" : "NULL",
		       w->rpc ? RPC_JOIN : "", w->flags ? FLAGS_JOIN : "");
}

/* Into b: the statement of the screen table (screen.h's columns). */
static void screen_sql(const char *cols, const struct report_parts *w, const struct st_pcts *ps,
		       struct st_strbuf *b)
{
	st_strbuf_addf(b, "SELECT c.seq + 1, %s, %sp.phase, COALESCE(p.status, c.status), s.agg_mbps, "
			  "s.min_client_mbps, s.max_client_mbps, s.iops, ",
		       w->iters ? "c.iteration + 1" : "NULL", cols);
	for (int i = 0; i < ps->n; i++) {
		st_json_pct_sql(b, ps->q[i]);
		st_strbuf_put(b, ", ");
	}
	st_strbuf_addf(b, "s.lat_max_ns, v.verdict, %s, " NOTE_SQL " FROM " FROM_SQL "%s" WHERE_SQL,
		       w->flags ? "fl.flag_text" : "NULL", w->flags ? FLAGS_JOIN : "");
}

int st_report_print(sqlite3 *db, const struct st_report_opts *o, FILE *out)
{
	char run[64], err[ST_ERR_MAX];
	struct st_pcts ps;
	if (st_pcts_parse(o->percentiles, &ps, err, sizeof(err))) {
		fprintf(stderr, "stcluster report: --percentiles: %s\n", err);
		return 2;
	}
	if (o->units && strcmp(o->units, "si") && strcmp(o->units, "iec")) {
		fprintf(stderr, "stcluster report: --units: unknown value '%s' (one of: si, iec)\n",
			o->units);
		return 2;
	}
	if (resolve_run(db, o->run, run, sizeof(run)))
		return 2;
	/* the best combinations, one row each: sql/queries/top.sql */
	if (o->top)
		return st_top_print(db, run, o->phase, o->top, o->format, out);
	char cols[2048];
	struct report_parts w;
	struct st_screen scr = { .run = run, .pcts = &ps, .iec = o->units && !strcmp(o->units, "iec"),
				 .columns = o->columns, .width = st_screen_width() };
	report_parts(db, run, &w);
	option_columns(db, run, w.own, cols, sizeof(cols), scr.opt_names, &scr.nopts);
	/* the run's rows only (scope.h): the cost is the run's, not the history's */
	struct st_qparams p = { .scope = "run_id = :run", .run = run, .phase = o->phase };
	struct st_strbuf sql = { 0 }, pcts = { 0 };
	int rc;
	pct_columns(&ps, &pcts);
	if (o->format == ST_FMT_TABLE && !o->wide) {
		screen_sql(cols, &w, &ps, &sql);
		rc = sql.oom || pcts.oom ? -1 : st_screen_print(db, sql.p, &p, &scr, out);
		st_strbuf_release(&sql);
		st_strbuf_release(&pcts);
		return rc < 0 ? 1 : rc;
	}
	if (o->format == ST_FMT_JSON)
		report_json_sql(&w, &ps, &sql);
	else
		report_sql(cols, &w, pcts.p ? pcts.p : "", &sql);
	int oom = pcts.oom;
	st_strbuf_release(&pcts);
	sqlite3_stmt *st;
	rc = st_query_prepare(db, sql.oom || oom ? NULL : sql.p, &p, &st, err, sizeof(err));
	st_strbuf_release(&sql);
	if (rc) {
		fprintf(stderr, "stcluster: report: %s\n", err);
		return 1;
	}
	if (o->format == ST_FMT_JSON) {
		rc = st_print_json_doc(st, "report", run, NULL, 1, out);
		sqlite3_finalize(st);
		return rc ? 1 : 0;
	}
	char note[1280];
	snprintf(note, sizeof(note), "run %s; %s; %s%s", run, MBPS_NOTE, ST_CPU_NOTE,
		 w.rpc ? RPC_NOTE : "");
	rc = st_print_rows(st, o->format, note, out);
	sqlite3_finalize(st);
	return rc ? 1 : 0;
}

int st_cmd_report(const struct st_subargs *a)
{
	struct st_report_opts o = { .db = a->db, .run = a->run, .phase = a->phase, .top = a->top,
				    .format = a->format, .html = a->html,
				    .percentiles = a->percentiles, .units = a->units,
				    .columns = a->columns, .wide = a->wide };
	struct st_store *s = st_subcmd_store(a);
	if (!s)
		return 2;
	int rc = o.html ? st_html_report_file(st_store_db(s), o.run, o.html, a->db, a->force)
			: st_report_print(st_store_db(s), &o, stdout);
	st_store_close(s);
	return rc;
}

/* Does table have column? (a store an older stcluster wrote last lacks
 * the later ones, and a reader does not migrate it) Both are names this
 * file gives, never a user's. */
static int has_column(sqlite3 *db, const char *table, const char *column)
{
	char sql[256], err[ST_ERR_MAX];
	int64_t v;
	const struct st_qparams none = { 0 };
	snprintf(sql, sizeof(sql), "SELECT COUNT(*) FROM pragma_table_info('%s') WHERE name = '%s'",
		 table, column);
	return st_query_int(db, sql, &none, &v, err, sizeof(err)) > 0 && v > 0;
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
	/* --search halving plans its race's most (a store before version 8 has no stage) */
	const char *stage = has_column(db, "combo", "stage") ? "c.stage" : "NULL";
	char sql[3200];
	snprintf(sql, sizeof(sql),
		 "WITH k AS (SELECT c.run_id, c.status, %s AS stage, EXISTS (SELECT 1 FROM rank_result x "
		 "WHERE x.combo_id = c.combo_id AND x.bad_blocks > 0) AS unverified FROM combo c), "
		 "n AS (SELECT run_id, COUNT(*) AS stored, COUNT(stage) AS staged, "
		 "COUNT(CASE WHEN status = 'ok' THEN 1 END) AS ok, "
		 "COUNT(CASE WHEN status = 'error' AND NOT unverified THEN 1 END) AS error, "
		 "COUNT(CASE WHEN status = 'failed' THEN 1 END) AS failed, "
		 "COUNT(CASE WHEN status = 'skipped' THEN 1 END) AS skipped, "
		 "COUNT(CASE WHEN unverified THEN 1 END) AS unverified FROM k GROUP BY run_id), "
		 "v AS (SELECT r.*, r.rowid AS rowid_, %s AS reason_, %s AS cleanup_, "
		 "r.status = 'running' AND st_run_live(r.run_id) = 0 AS gone FROM run r) "
		 "SELECT v.run_id, v.started_at, v.label, "
		 "(SELECT group_concat(DISTINCT h.hostname) FROM host h WHERE h.run_id = v.run_id) AS hosts, "
		 "v.nranks AS ranks, COALESCE(n.stored, 0) || '/' || CASE WHEN n.staged > 0 THEN '<=' "
		 "ELSE '' END || v.combos_planned AS combinations, "
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
		 stage, reason, cleanup);
	const struct st_qparams none = { 0 };
	char err[ST_ERR_MAX], json[3600];
	if (a->format == ST_FMT_JSON) {
		/* the rows as json_objects (sql/schema.json, "runs_row") */
		snprintf(json, sizeof(json),
			 "SELECT json_object('run_id', run_id, 'started_at', started_at, 'label', label, "
			 "'hosts', hosts, 'ranks', ranks, 'combos_stored', CAST(substr(combinations, 1, "
			 "instr(combinations, '/') - 1) AS INTEGER), 'combos_planned', "
			 "CAST(ltrim(substr(combinations, instr(combinations, '/') + 1), '<=') AS INTEGER), "
			 "'ok', ok, "
			 "'error', error, 'failed', failed, 'skipped', skipped, 'unverified', unverified, "
			 "'status', status, 'note', note) FROM (%s)",
			 sql);
	}
	if (st_query_prepare(db, a->format == ST_FMT_JSON ? json : sql, &none, &st, err,
			     sizeof(err)) == 0) {
		rc = (a->format == ST_FMT_JSON ? st_print_json_doc(st, "runs", NULL, NULL, 1, stdout)
					       : st_print_rows(st, a->format, NULL, stdout))
			     ? ST_EXIT_FAILURES
			     : ST_EXIT_OK;
		sqlite3_finalize(st);
	} else {
		fprintf(stderr, "stcluster: runs: %s\n", err);
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
