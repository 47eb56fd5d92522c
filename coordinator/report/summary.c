/*
 * summary.c - what a run prints when it ends (see report.h): per phase,
 * the best, median and worst figure over the combinations (iterations
 * averaged) and the best combination's options, a row each, instead of
 * every combination's rows (`stcluster report` prints those); of a --search
 * halving run, its last stage's combinations, measured at full length.
 */
#include "report.h"

#include "../../common/options.h"
#include "../../common/strbuf.h"
#include "../../common/util.h"
#include "../store/output.h"
#include "analysis.h"
#include "json.h"
#include "query.h"

#include <string.h>

/* Append the SQL of figure x (MB/s, or IOPS when meta) as text in a unit
 * that fits it (10^3 multiples). */
static void sb_scaled(struct st_strbuf *b, const char *x)
{
	st_strbuf_addf(b,
		       "CASE WHEN meta THEN (CASE WHEN %1$s >= 1e6 THEN printf('%%.2f M IOPS', %1$s / 1e6) "
		       "WHEN %1$s >= 1e3 THEN printf('%%.1f k IOPS', %1$s / 1e3) "
		       "ELSE printf('%%.0f IOPS', %1$s) END) "
		       "ELSE (CASE WHEN %1$s >= 1e6 THEN printf('%%.2f TB/s', %1$s / 1e6) "
		       "WHEN %1$s >= 1e3 THEN printf('%%.2f GB/s', %1$s / 1e3) "
		       "WHEN %1$s >= 1 THEN printf('%%.1f MB/s', %1$s) "
		       "ELSE printf('%%.1f kB/s', %1$s * 1e3) END) END",
		       x);
}

/* Into b: the summary's statement over the run's rows (:run). */
static void summary_sql(const int vary[ST_OPT_COUNT], struct st_strbuf *b)
{
	/* a WITH of its own inside a subquery: the scope's head comes first (scope.h) */
	st_strbuf_put(b, "SELECT * FROM (WITH f AS (SELECT s.phase, MIN(s.phase_order) AS phase_order, "
			 ST_JSON_META("s.phase") " AS meta, "
			 "MIN(c.combo_id) AS combo_id, MIN(c.seq) AS seq, "
			 "AVG(CASE WHEN " ST_JSON_META("s.phase") " THEN s.iops "
			 "ELSE s.agg_mbps END) AS y "
			 "FROM phase_summary s JOIN combo c ON c.combo_id = s.combo_id "
			 "WHERE c.run_id = :run AND s.status = 'ok' AND (c.stage IS NULL OR c.stage = "
			 "(SELECT MAX(stage) FROM combo WHERE run_id = :run)) "
			 "GROUP BY c.matrix_index, s.phase), "
			 "r AS (SELECT f.*, ROW_NUMBER() OVER (PARTITION BY phase ORDER BY y DESC, seq) AS "
			 "place, COUNT(*) OVER (PARTITION BY phase) AS n FROM f), "
			 "g AS (SELECT phase, phase_order, meta, n, MAX(y) AS best, MIN(y) AS worst, "
			 "AVG(CASE WHEN place IN ((n + 1) / 2, (n + 2) / 2) THEN y END) AS median, "
			 "MAX(CASE WHEN place = 1 THEN combo_id END) AS best_combo FROM r GROUP BY phase) "
			 "SELECT g.phase, g.n AS combinations, ");
	sb_scaled(b, "g.best");
	st_strbuf_put(b, " AS best, ");
	sb_scaled(b, "g.median");
	st_strbuf_put(b, " AS median, ");
	sb_scaled(b, "g.worst");
	st_strbuf_put(b, " AS worst, trim(''");
	for (int i = 0; i < ST_OPT_COUNT; i++)
		if (vary[i])
			st_strbuf_addf(b, " || ' %s=' || COALESCE(%s(c.\"%s\"), '-')", st_options[i].name,
				       st_options[i].type == ST_T_SIZE ? "st_size" : "", st_options[i].name);
	st_strbuf_put(b, ") AS \"best combination\" FROM g JOIN combo c ON c.combo_id = g.best_combo "
			 "ORDER BY g.phase_order)");
}

int st_report_summary(sqlite3 *db, const char *run, FILE *out)
{
	char err[ST_ERR_MAX], note[256];
	int vary[ST_OPT_COUNT];
	if (st_run_varying(db, run, vary, err, sizeof(err)) < 0) {
		fprintf(stderr, "stcluster: summary: %s\n", err);
		return 1;
	}
	struct st_qparams p = { .scope = "run_id = :run", .run = run };
	struct st_strbuf b = { 0 };
	summary_sql(vary, &b);
	sqlite3_stmt *st;
	int rc = st_query_prepare(db, b.oom ? NULL : b.p, &p, &st, err, sizeof(err));
	st_strbuf_release(&b);
	if (rc) {
		fprintf(stderr, "stcluster: summary: %s\n", err);
		return 1;
	}
	snprintf(note, sizeof(note),
		 "run %s, per phase (iterations averaged); every row: stcluster report",
		 run);
	rc = st_print_rows(st, ST_FMT_TABLE, note, out) ? 1 : 0;
	sqlite3_finalize(st);
	return rc;
}
