/*
 * analysis.c - compare, effects, history and report --top (see analysis.h).
 *
 * Each command runs one named query of sql/queries/ as a subquery of a
 * statement built here, which picks the columns to show (the sweep options
 * that vary, sizes as 4k/1m), rounds the figures and adds what plain SQL
 * cannot compute: confidence intervals, Welch's test and the verdicts, as
 * SQL functions over stats.c. The figures themselves are the query file's,
 * so the sqlite3 shell gives the same numbers.
 *
 * Verdicts are statistical: a difference is "better" or "worse" only when
 * Welch's two-sided test at 95 % says it is larger than the noise of the
 * iterations, which needs ST_MIN_ITER iterations on each side.
 */
#include "analysis.h"
#include "json.h"
#include "query.h"

#include "../../common/options.h"
#include "../../common/phaseopt.h"
#include "../../common/strbuf.h"
#include "../../common/util.h"
#include "../store/output.h"
#include "../store/runs.h"
#include "../store/store.h"
#include "../../common/stats.h"
#include "subcmd.h"
#include "where.h"

#include <ctype.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#define ST_ALPHA 0.05  /* two-sided: 95 % */
#define ST_MIN_ITER 3  /* iterations a side needs before its noise is known */
#define MBPS_UNIT "MB/s = 10^6 bytes per second"

/* A query file as a subquery: "(\n<text without the final ;>\n)". */
static void sb_subquery(struct st_strbuf *b, const char *text)
{
	size_t l = strlen(text);
	while (l && (isspace((unsigned char)text[l - 1]) || text[l - 1] == ';'))
		l--;
	char *body = strndup(text, l);
	if (!body) {
		b->oom = 1;
		return;
	}
	st_strbuf_put(b, "(\n");
	st_strbuf_put(b, body);
	st_strbuf_put(b, "\n)");
	free(body);
}

/* ---- SQL functions over stats.c ---- */

static double arg_d(sqlite3_value *v)
{
	return sqlite3_value_type(v) == SQLITE_NULL ? NAN : sqlite3_value_double(v);
}

static int arg_i(sqlite3_value *v)
{
	return sqlite3_value_type(v) == SQLITE_NULL ? 0 : sqlite3_value_int(v);
}

static void result_d(sqlite3_context *ctx, double v)
{
	if (isnan(v))
		sqlite3_result_null(ctx);
	else
		sqlite3_result_double(ctx, v);
}

static void fn_ci95(sqlite3_context *ctx, int argc, sqlite3_value **argv)
{
	(void)argc;
	result_d(ctx, st_ci95(arg_d(argv[0]), arg_i(argv[1])));
}

static void fn_welch_p(sqlite3_context *ctx, int argc, sqlite3_value **argv)
{
	(void)argc;
	struct st_welch w;
	if (st_welch_test(arg_d(argv[0]), arg_d(argv[1]), arg_i(argv[2]), arg_d(argv[3]),
			  arg_d(argv[4]), arg_i(argv[5]), &w))
		sqlite3_result_null(ctx);
	else
		result_d(ctx, w.p);
}

/* "better" / "worse" / "within noise" from Welch's test of b against a. */
static const char *welch_word(double ma, double sa, int na, double mb, double sb, int nb,
			      const char *up, const char *down)
{
	struct st_welch w;
	if (st_welch_test(ma, sa, na, mb, sb, nb, &w))
		return NULL;
	if (w.p < ST_ALPHA)
		return w.diff > 0 ? up : down;
	return "within noise";
}

static void fn_compare_verdict(sqlite3_context *ctx, int argc, sqlite3_value **argv)
{
	(void)argc;
	double am = arg_d(argv[0]), as = arg_d(argv[1]), bm = arg_d(argv[4]), bs = arg_d(argv[5]);
	int an = arg_i(argv[2]), af = arg_i(argv[3]), bn = arg_i(argv[6]), bf = arg_i(argv[7]);
	char buf[160];
	const char *v;
	if ((an == 0 && af == 0) || (bn == 0 && bf == 0))
		/* the phase ran with other values of its own there ([phase] sections) */
		v = an == 0 && af == 0 ? "not in A at these values" : "not in B at these values";
	else if (an == 0 || bn == 0)
		v = an == 0 && bn == 0 ? "failed in both" : an == 0 ? "failed in A" : "failed in B";
	else if (an < ST_MIN_ITER || bn < ST_MIN_ITER)
		v = "too few iterations (3 in each run needed)";
	else
		v = welch_word(am, as, an, bm, bs, bn, "better", "worse");
	if (!v)
		v = "too few iterations (3 in each run needed)";
	if ((af && an) || (bf && bn)) {
		/* some iterations failed: the figures are those of the others */
		snprintf(buf, sizeof(buf), "%s; errors in %d of A's, %d of B's iterations", v, af, bf);
		v = buf;
	}
	sqlite3_result_text(ctx, v, -1, SQLITE_TRANSIENT);
}

/*
 * Against the earlier runs of a configuration (their iterations pooled):
 * Welch's test when this run has ST_MIN_ITER iterations; with fewer, the
 * 95 % interval in which the mean of n new samples of the earlier
 * distribution falls, pm +- t(0.975, pn-1) ps sqrt(1/n + 1/pn).
 */
static void fn_history_verdict(sqlite3_context *ctx, int argc, sqlite3_value **argv)
{
	(void)argc;
	double m = arg_d(argv[0]), s = arg_d(argv[1]), pm = arg_d(argv[4]), ps = arg_d(argv[5]);
	int n = arg_i(argv[2]), prev_runs = arg_i(argv[3]), pn = arg_i(argv[6]);
	const char *v;
	if (n == 0)
		v = "failed";
	else if (prev_runs == 0)
		v = "first run";
	else if (pn == 0)
		v = "no earlier figures (they failed)";
	else if (pn < ST_MIN_ITER)
		v = "too few earlier iterations (3 needed)";
	else if (n >= ST_MIN_ITER)
		v = welch_word(pm, ps, pn, m, s, n, "improvement", "regression");
	else {
		double half = st_t_quantile(1 - ST_ALPHA / 2, pn - 1) * ps * sqrt(1.0 / n + 1.0 / pn);
		v = fabs(m - pm) > half ? (m > pm ? "improvement" : "regression") : "within noise";
	}
	if (!v)
		v = "too few iterations";
	sqlite3_result_text(ctx, v, -1, SQLITE_STATIC);
}

int st_analysis_functions(sqlite3 *db, char *err, size_t n)
{
	static const struct {
		const char *name;
		int nargs;
		void (*fn)(sqlite3_context *, int, sqlite3_value **);
	} fns[] = {
		{ "st_ci95", 2, fn_ci95 },
		{ "st_welch_p", 6, fn_welch_p },
		{ "st_compare_verdict", 8, fn_compare_verdict },
		{ "st_history_verdict", 7, fn_history_verdict },
	};
	for (size_t i = 0; i < ST_ARRAY_LEN(fns); i++)
		if (sqlite3_create_function(db, fns[i].name, fns[i].nargs,
					    SQLITE_UTF8 | SQLITE_DETERMINISTIC, NULL, fns[i].fn, NULL,
					    NULL) != SQLITE_OK) {
			snprintf(err, n, "store: %s", sqlite3_errmsg(db));
			return -1;
		}
	return 0;
}

/* ---- runs, parameters, columns ---- */

static int is_column_option(int i)
{
	return (st_options[i].flags & ST_OF_SWEEP) != 0;
}

/* The scopes of the commands' statements (query.h): the rows of the runs
 * they name only, so a per-run command costs what its runs hold, not the
 * store's history. */
#define SCOPE_RUN "run_id = :run"
#define SCOPE_AB "run_id IN (:run_a, :run_b)"

/* The row of varying(): one flag per sweep option, in option order. */
static int vary_row(sqlite3_stmt *row, void *ctx)
{
	int *vary = ctx;
	for (int i = 0, c = 0; i < ST_OPT_COUNT; i++)
		vary[i] = is_column_option(i) && sqlite3_column_int(row, c++);
	return 1;
}

/* The row of untie(): its columns in order, as many as the statement has. */
static int counts_row(sqlite3_stmt *row, void *ctx)
{
	int64_t *c = ctx;
	for (int i = 0; i < sqlite3_column_count(row); i++)
		c[i] = sqlite3_column_int64(row, i);
	return 1;
}

/*
 * Tied options are one column (as effects.sql's factors): of two varying
 * options i and j over the rows of `from`, i is left out when each value of
 * j goes with one value of i (rsize and wsize beside rwsize, a set's keys
 * beside set), unless i decides j as well and comes later in the options
 * table. One statement counts the distinct values of each varying option
 * and of each pair of them. 0, or -1 with err.
 */
static int untie(sqlite3 *db, const char *from, const struct st_qparams *p,
		 int vary[ST_OPT_COUNT], char *err, size_t n)
{
	int ids[ST_OPT_COUNT], k = 0;
	for (int i = 0; i < ST_OPT_COUNT; i++)
		if (vary[i])
			ids[k++] = i;
	if (k < 2)
		return 0;
	struct st_strbuf b = { 0 };
	st_strbuf_put(&b, "SELECT ");
	for (int x = 0; x < k; x++)
		st_strbuf_addf(&b, "%sCOUNT(DISTINCT quote(\"%s\"))", x ? ", " : "",
			       st_options[ids[x]].name);
	for (int x = 0; x < k; x++)
		for (int y = x + 1; y < k; y++)
			st_strbuf_addf(&b, ", COUNT(DISTINCT quote(\"%s\") || ' ' || quote(\"%s\"))",
				       st_options[ids[x]].name, st_options[ids[y]].name);
	st_strbuf_addf(&b, " FROM %s", from);
	/* the single counts, then the pairs (x, y > x) in order */
	int64_t c[ST_OPT_COUNT + ST_OPT_COUNT * (ST_OPT_COUNT - 1) / 2];
	long rows = st_query_rows(db, b.oom ? NULL : b.p, p, counts_row, c, err, n);
	st_strbuf_release(&b);
	if (rows <= 0) {
		if (rows == 0)
			snprintf(err, n, "%s", sqlite3_errmsg(db));
		return -1;
	}
	for (int x = 0, pc = k; x < k; x++)
		for (int y = x + 1; y < k; y++, pc++) {
			/* c[pc] == c[y]: y decides x; c[pc] == c[x]: x decides y;
			 * of two that decide each other the later (y) stays */
			if (c[pc] == c[y])
				vary[ids[x]] = 0;
			else if (c[pc] == c[x])
				vary[ids[y]] = 0;
		}
	return 0;
}

/*
 * Which sweep options take more than one value (NULL counts as one) over
 * the rows of `from` (a FROM clause), tied ones as one (untie). With none,
 * block, size and threads: a table should still say what was measured.
 * 1 (some vary), 0 (none), or -1 with err.
 */
static int varying(sqlite3 *db, const char *from, const struct st_qparams *p, int vary[ST_OPT_COUNT],
		   char *err, size_t n)
{
	struct st_strbuf b = { 0 };
	int cols = 0;
	st_strbuf_put(&b, "SELECT ");
	for (int i = 0; i < ST_OPT_COUNT; i++)
		if (is_column_option(i))
			st_strbuf_addf(&b, "%sCOUNT(DISTINCT quote(\"%s\")) > 1", cols++ ? ", " : "",
			       st_options[i].name);
	st_strbuf_addf(&b, " FROM %s", from);
	long rows = st_query_rows(db, b.oom ? NULL : b.p, p, vary_row, vary, err, n);
	st_strbuf_release(&b);
	if (rows <= 0) {
		if (rows == 0) /* an aggregate without GROUP BY has its row */
			snprintf(err, n, "%s", sqlite3_errmsg(db));
		return -1;
	}
	if (untie(db, from, p, vary, err, n))
		return -1;
	int any = 0;
	for (int i = 0; i < ST_OPT_COUNT; i++)
		any |= vary[i];
	if (!any)
		vary[ST_OPT_BLOCK] = vary[ST_OPT_SIZE] = vary[ST_OPT_THREADS] = 1;
	return any;
}

int st_run_varying(sqlite3 *db, const char *run, int vary[], char *err, size_t n)
{
	struct st_qparams p = { .scope = SCOPE_RUN, .run = run };
	return varying(db, "combo WHERE run_id = :run", &p, vary, err, n);
}

/* The option columns to show, sizes as text ("4k"), each followed by ", ";
 * phase (a prefix, "" too): the options a phase may have of its own as it
 * ran them, COALESCE(phase_<name>, <name>) (json.h st_opt_col_sql). */
static void sb_options_phase(struct st_strbuf *b, const int vary[ST_OPT_COUNT], const char *phase)
{
	for (int i = 0; i < ST_OPT_COUNT; i++) {
		if (!vary[i])
			continue;
		struct st_strbuf e = { 0 };
		st_opt_col_sql(&e, i, "", phase);
		st_strbuf_addf(b,
			       st_options[i].type == ST_T_SIZE ? "st_size(%s) AS \"%s\", "
							       : "%s AS \"%s\", ",
			       e.oom ? "NULL" : e.p, st_options[i].name);
		b->oom |= e.oom;
		st_strbuf_release(&e);
	}
}

static void sb_options(struct st_strbuf *b, const int vary[ST_OPT_COUNT])
{
	sb_options_phase(b, vary, NULL);
}

/* report --top's option columns over top.sql's rows, which have phase_run's
 * phase_*: each phase's values; an option no combination varies is shown
 * where its phases ran different values (a write at 1m, a read at 4k). */
static void sb_phase_options(sqlite3 *db, const char *run, struct st_strbuf *b,
			     int vary[ST_OPT_COUNT])
{
	char err[ST_ERR_MAX];
	struct st_qparams p = { .run = run };
	for (int i = 0; i < ST_OPT_COUNT; i++) {
		if (!st_phase_key(i) || vary[i] || !is_column_option(i))
			continue;
		struct st_strbuf q = { 0 };
		int64_t v = 0;
		st_strbuf_put(&q, "SELECT COUNT(DISTINCT ");
		st_opt_col_sql(&q, i, "c.", "p.");
		st_strbuf_put(&q, ") FROM combo c JOIN phase_run p ON p.combo_id = c.combo_id "
				  "WHERE c.run_id = :run");
		vary[i] = !q.oom && st_query_int(db, q.p, &p, &v, err, sizeof(err)) > 0 && v > 1;
		st_strbuf_release(&q);
	}
	sb_options_phase(b, vary, "");
}

/* Prepare b's statement, bind p, print it. 0, or 1 (SQL error, printed). */
static int run_and_print(sqlite3 *db, const char *cmd, struct st_strbuf *b,
			 const struct st_qparams *p, enum st_format f, const char *note, FILE *out)
{
	char err[ST_ERR_MAX];
	sqlite3_stmt *st;
	if (st_query_prepare(db, b->oom ? NULL : b->p, p, &st, err, sizeof(err))) {
		fprintf(stderr, "stcluster %s: %s\n", cmd, err);
		return 1;
	}
	int rc = st_print_rows(st, f, note, out) ? 1 : 0;
	sqlite3_finalize(st);
	return rc;
}

/* Prepare b's statement of JSON rows (json.h), bind p, print it as the
 * document of cmd (output.h). 0, or 1 (SQL error, printed). */
static int run_and_print_json(sqlite3 *db, const char *cmd, struct st_strbuf *b,
			      const struct st_qparams *p, const char *run, FILE *out)
{
	char err[ST_ERR_MAX];
	sqlite3_stmt *st;
	if (st_query_prepare(db, b->oom ? NULL : b->p, p, &st, err, sizeof(err))) {
		fprintf(stderr, "stcluster %s: %s\n", cmd, err);
		return 1;
	}
	int rc = st_print_json_doc(st, cmd, run, NULL, 1, out) ? 1 : 0;
	sqlite3_finalize(st);
	return rc;
}

/* Append "'figure_unit', ..., '<key>', <x in base units>" for column x of a
 * named query (MB/s, or IOPS in a metadata phase) over the row's phase. */
static void sb_fig(struct st_strbuf *b, const char *key, const char *x)
{
	st_strbuf_addf(b, ", '%s', (CASE WHEN " ST_JSON_META("phase") " THEN (%s) ELSE (%s) * 1e6 END)",
		       key, x, x);
}

/* Rows of b's statement; -1 on error (already reported by the caller's print). */
static int64_t count_rows(sqlite3 *db, const struct st_strbuf *b, const struct st_qparams *p)
{
	char err[ST_ERR_MAX];
	struct st_strbuf c = { 0 };
	int64_t v;
	st_strbuf_put(&c, "SELECT COUNT(*) FROM (");
	st_strbuf_put(&c, b->p ? b->p : "SELECT 1");
	st_strbuf_put(&c, ")");
	int rc = st_query_int(db, c.oom ? NULL : c.p, p, &v, err, sizeof(err));
	st_strbuf_release(&c);
	return rc > 0 ? v : -1;
}

/* ---- report --top ---- */

/* 1 when the run has a metadata phase. */
static int top_has_meta(sqlite3 *db, const char *run)
{
	char err[ST_ERR_MAX];
	int64_t v = 0;
	struct st_qparams p = { .scope = SCOPE_RUN, .run = run };
	return st_query_int(db, "SELECT EXISTS (SELECT 1 FROM phase_run p JOIN combo c USING "
				"(combo_id) WHERE c.run_id = :run AND " ST_JSON_META("p.phase") ")",
			    &p, &v, err, sizeof(err)) > 0 && v > 0;
}

/* With a metadata phase: its figure in a column of its own, ops/s, beside
 * MB/s (empty for it, as ops/s is for a data phase); the slowest and the
 * fastest client in the row's unit, and their ratio (fairness). */
static void top_meta_columns(struct st_strbuf *b, int iters)
{
	st_strbuf_put(b, "bytes, ROUND(time_s, 3) AS \"time s\", "
			 "CASE WHEN NOT meta THEN ROUND(mbps, 1) END AS \"MB/s\", "
			 "CASE WHEN meta THEN ROUND(mbps, 0) END AS \"ops/s\", ");
	if (iters > 1)
		st_strbuf_put(b, "ROUND(st_ci95(sd_mbps, n), 1) AS \"+-95%\", ");
	st_strbuf_put(b, "CASE WHEN meta THEN ROUND(min_client_ops, 0) ELSE ROUND(min_client_mbps, 1) "
			 "END AS \"min client\", "
			 "CASE WHEN meta THEN ROUND(max_client_ops, 0) ELSE ROUND(max_client_mbps, 1) "
			 "END AS \"max client\", "
			 "ROUND(CASE WHEN meta THEN min_client_ops / NULLIF(max_client_ops, 0) ELSE "
			 "min_client_mbps / NULLIF(max_client_mbps, 0) END, 2) AS fair, ");
}

/* What a note adds for a --search halving run (its stages' runs of one
 * combination differ in length: each is read from its last stage), or "". */
static const char *stage_note(sqlite3 *db, const char *run)
{
	sqlite3_stmt *st;
	int searched = 0;
	if (sqlite3_prepare_v2(db, "SELECT MAX(stage) FROM combo WHERE run_id = ?", -1, &st, NULL) ==
	    SQLITE_OK) {
		sqlite3_bind_text(st, 1, run, -1, SQLITE_TRANSIENT);
		searched = sqlite3_step(st) == SQLITE_ROW && sqlite3_column_type(st, 0) != SQLITE_NULL;
		sqlite3_finalize(st);
	}
	return searched ? "; a --search halving run: each combination from the runs of the last "
			  "stage it reached (its longest), those of the stages before left out"
			: "";
}

int st_top_print(sqlite3 *db, const char *run, const char *phase, int top, enum st_format f,
		 FILE *out)
{
	char err[ST_ERR_MAX];
	struct st_qparams p = { .scope = SCOPE_RUN, .run = run, .phase = phase, .top = top };
	int vary[ST_OPT_COUNT];
	if (st_analysis_functions(db, err, sizeof(err))) {
		fprintf(stderr, "stcluster report: %s\n", err);
		return 1;
	}
	if (varying(db, "combo WHERE run_id = :run", &p, vary, err, sizeof(err)) < 0) {
		fprintf(stderr, "stcluster report: %s\n", err);
		return 1;
	}
	int iters = st_run_iterations(db, run), base = st_run_has_baseline(db, run);
	struct st_strbuf b = { 0 };
	if (f == ST_FMT_JSON) {
		st_strbuf_put(&b, "SELECT json_object('phase', phase, 'options', ");
		st_json_options_phase_sql(&b, "", "");
		st_strbuf_put(&b, ", 'place', place, 'iterations', iterations, 'n', n, 'bytes', bytes, "
				  "'span_ns', CAST(ROUND(time_s * 1e9) AS INTEGER), 'figure_unit', " ST_JSON_UNIT("phase"));
		sb_fig(&b, "mean", "mbps");
		sb_fig(&b, "sd", "sd_mbps");
		sb_fig(&b, "ci95", "st_ci95(sd_mbps, n)");
		/* each client's ops/s too (a metadata phase's own figure), and the
		 * fairness in the row's unit, as the table's "fair" */
		st_strbuf_put(&b, ", 'min_client_bytes_per_s', min_client_mbps * 1e6, "
				  "'max_client_bytes_per_s', max_client_mbps * 1e6, "
				  "'min_client_ops_per_s', min_client_ops, "
				  "'max_client_ops_per_s', max_client_ops, 'fairness', CASE WHEN meta THEN "
				  "min_client_ops / NULLIF(max_client_ops, 0) ELSE "
				  "min_client_mbps / NULLIF(max_client_mbps, 0) END, "
				  "'pct_of_limit', pct_of_limit, " ST_JSON_CPU("") ", 'verdict', verdict) FROM ");
		sb_subquery(&b, st_sql_q_top);
		st_strbuf_put(&b, " ORDER BY phase_order, place");
		int rc = run_and_print_json(db, "top", &b, &p, run, out);
		st_strbuf_release(&b);
		return rc;
	}
	st_strbuf_put(&b, "SELECT phase, ");
	sb_phase_options(db, run, &b, vary);
	if (iters > 1)
		st_strbuf_put(&b, "n AS iters, ");
	if (top_has_meta(db, run))
		top_meta_columns(&b, iters);
	else {
		st_strbuf_put(&b, "bytes, ROUND(time_s, 3) AS \"time s\", ROUND(mbps, 1) AS \"MB/s\", ");
		if (iters > 1)
			st_strbuf_put(&b, "ROUND(st_ci95(sd_mbps, n), 1) AS \"+-95%\", ");
		st_strbuf_put(&b, "ROUND(min_client_mbps, 1) AS \"min client\", "
				  "ROUND(max_client_mbps, 1) AS \"max client\", ");
	}
	if (base)
		st_strbuf_put(&b, "ROUND(pct_of_limit, 0) AS \"% of limit\", ");
	st_strbuf_put(&b, ST_CPU_COLUMNS("") ", verdict FROM ");
	sb_subquery(&b, st_sql_q_top);
	st_strbuf_put(&b, " ORDER BY phase_order, place");
	char note[1024], best[64] = "every combination";
	if (top)
		snprintf(best, sizeof(best), "the %d best combination%s", top, top == 1 ? "" : "s");
	snprintf(note, sizeof(note), "run %s; %s of each phase, best first%s%s; %s; %s", run, best,
		 iters > 1 ? ", mean of the iterations without error" : "", stage_note(db, run),
		 MBPS_UNIT, ST_CPU_NOTE);
	int rc = run_and_print(db, "report", &b, &p, f, note, out);
	st_strbuf_release(&b);
	return rc;
}

/* ---- the subcommands ---- */

/* The store, read-only, with the analysis functions; NULL after a message. */
static struct st_store *open_store(const struct st_subargs *a)
{
	char err[ST_ERR_MAX];
	struct st_store *s = st_subcmd_store(a);
	if (!s)
		return NULL;
	if (st_analysis_functions(st_store_db(s), err, sizeof(err))) {
		fprintf(stderr, "stcluster %s: %s\n", a->cmd, err);
		st_store_close(s);
		return NULL;
	}
	return s;
}

/* ---- compare ---- */

int st_cmd_compare(const struct st_subargs *a)
{
	if (a->npos != 2) {
		fprintf(stderr, "stcluster compare: needs two runs (stcluster compare RUN_A RUN_B)\n");
		return 2;
	}
	struct st_store *s = open_store(a);
	if (!s)
		return 2;
	sqlite3 *db = st_store_db(s);
	char ids[2][64], err[ST_ERR_MAX];
	for (int i = 0; i < 2; i++)
		if (st_run_resolve(db, a->pos[i], ids[i], sizeof(ids[i]), err, sizeof(err))) {
			fprintf(stderr, "stcluster compare: %s: %s\n", i ? "RUN_B" : "RUN_A", err);
			st_store_close(s);
			return 2;
		}
	struct st_qparams p = { .scope = SCOPE_AB, .run_a = ids[0], .run_b = ids[1], .phase = a->phase };
	int vary[ST_OPT_COUNT], rc = 1;
	struct st_strbuf b = { 0 };
	if (varying(db, "combo WHERE run_id IN (:run_a, :run_b)", &p, vary, err, sizeof(err)) < 0) {
		fprintf(stderr, "stcluster compare: %s\n", err);
		goto out;
	}
	if (a->format == ST_FMT_JSON) {
		st_strbuf_put(&b, "SELECT json_object('phase', phase, 'options', ");
		st_json_options_phase_sql(&b, "", "");
		st_strbuf_put(&b, ", 'run_a', :run_a, 'run_b', :run_b, 'figure_unit', " ST_JSON_UNIT("phase")
				  ", 'a_n', a_n");
		sb_fig(&b, "a_mean", "a_mbps");
		sb_fig(&b, "a_ci95", "st_ci95(a_sd, a_n)");
		st_strbuf_put(&b, ", 'b_n', b_n");
		sb_fig(&b, "b_mean", "b_mbps");
		sb_fig(&b, "b_ci95", "st_ci95(b_sd, b_n)");
		st_strbuf_put(&b, ", 'change_pct', change_pct, "
				  "'p', st_welch_p(a_mbps, a_sd, a_n, b_mbps, b_sd, b_n), 'verdict', "
				  "st_compare_verdict(a_mbps, a_sd, a_n, a_failed, b_mbps, b_sd, b_n, b_failed)) "
				  "FROM ");
		sb_subquery(&b, st_sql_q_compare);
		st_strbuf_put(&b, " ORDER BY phase_order, matrix_index");
		rc = run_and_print_json(db, "compare", &b, &p, NULL, stdout);
		goto out;
	}
	st_strbuf_put(&b, "SELECT phase, ");
	sb_phase_options(db, ids[0], &b, vary); /* each phase's values, as it ran them */
	st_strbuf_put(&b, "a_n AS \"A n\", ROUND(a_mbps, 1) AS \"A MB/s\", "
		   "ROUND(st_ci95(a_sd, a_n), 1) AS \"A +-95%\", "
		   "b_n AS \"B n\", ROUND(b_mbps, 1) AS \"B MB/s\", "
		   "ROUND(st_ci95(b_sd, b_n), 1) AS \"B +-95%\", "
		   "ROUND(change_pct, 1) AS \"change %\", "
		   "ROUND(st_welch_p(a_mbps, a_sd, a_n, b_mbps, b_sd, b_n), 4) AS p, "
		   "st_compare_verdict(a_mbps, a_sd, a_n, a_failed, b_mbps, b_sd, b_n, b_failed) AS verdict "
		   "FROM ");
	sb_subquery(&b, st_sql_q_compare);
	st_strbuf_put(&b, " ORDER BY phase_order, matrix_index");
	char ta[256], tb[256], note[800];
	st_run_title(db, ids[0], ta, sizeof(ta));
	st_run_title(db, ids[1], tb, sizeof(tb));
	snprintf(note, sizeof(note),
		 "A = %s; B = %s; change = B against A; verdict: Welch's t-test at 95 %% "
		 "(3 iterations in each run needed); %s",
		 ta, tb, MBPS_UNIT);
	rc = run_and_print(db, "compare", &b, &p, a->format, note, stdout);
	if (rc == 0 && count_rows(db, &b, &p) == 0)
		fprintf(stderr, "stcluster compare: runs %.8s and %.8s share no combination (no "
				"combination of one has the options of one of the other)\n",
			ids[0], ids[1]);
out:
	st_strbuf_release(&b);
	st_store_close(s);
	return rc;
}

/* ---- effects ---- */

/* Into b: the statement of effects' JSON rows. */
static void effects_json(struct st_strbuf *b)
{
	st_strbuf_put(b, "SELECT json_object('phase', phase, 'kind', kind, 'option', factor, "
			 "'level', level, 'n', n, 'figure_unit', " ST_JSON_UNIT("phase"));
	sb_fig(b, "mean", "mbps");
	sb_fig(b, "sd", "sd_mbps");
	sb_fig(b, "min", "min_mbps");
	sb_fig(b, "max", "max_mbps");
	sb_fig(b, "departure", "departure");
	sb_fig(b, "effect", "effect");
	st_strbuf_put(b, ", 'effect_pct', effect_pct, " ST_JSON_CPU("") ") FROM ");
	sb_subquery(b, st_sql_q_effects);
	st_strbuf_put(b, " ORDER BY phase_order, kind = 'interaction', effect DESC, ord_a, ord_b, "
			 "key_a, key_b");
}

int st_cmd_effects(const struct st_subargs *a)
{
	struct st_store *s = open_store(a);
	if (!s)
		return 2;
	sqlite3 *db = st_store_db(s);
	char run[64], err[ST_ERR_MAX];
	if (st_run_resolve(db, a->run, run, sizeof(run), err, sizeof(err))) {
		fprintf(stderr, "stcluster effects: --run: %s\n", err);
		st_store_close(s);
		return 2;
	}
	struct st_qparams p = { .scope = SCOPE_RUN, .run = run, .phase = a->phase };
	struct st_strbuf b = { 0 };
	if (a->format == ST_FMT_JSON) {
		effects_json(&b);
		int rc = run_and_print_json(db, "effects", &b, &p, run, stdout);
		st_strbuf_release(&b);
		st_store_close(s);
		return rc;
	}
	st_strbuf_put(&b, "SELECT phase, kind, factor AS option, level, n, ROUND(mbps, 1) AS \"MB/s\", "
		   "ROUND(sd_mbps, 1) AS sd, ROUND(min_mbps, 1) AS min, ROUND(max_mbps, 1) AS max, "
		   "ROUND(departure, 1) AS departure, ROUND(effect, 1) AS effect, "
		   "ROUND(effect_pct, 1) AS \"effect %\", " ST_CPU_COLUMNS("") " FROM ");
	sb_subquery(&b, st_sql_q_effects);
	st_strbuf_put(&b, " ORDER BY phase_order, kind = 'interaction', effect DESC, ord_a, ord_b, key_a, key_b");
	char title[256], note[1400];
	st_run_title(db, run, title, sizeof(title));
	snprintf(note, sizeof(note),
		 "run %s; MB/s: mean aggregate at that level (main) or cell (interaction); "
		 "departure: level mean - phase mean (main), cell mean - what the two main effects "
		 "predict (interaction); effect: largest - smallest departure of the option or pair"
		 "%s; %s; %s",
		 title, stage_note(db, run), MBPS_UNIT, ST_CPU_NOTE);
	int rc = run_and_print(db, "effects", &b, &p, a->format, note, stdout);
	int vary[ST_OPT_COUNT];
	if (rc == 0 && st_run_varying(db, run, vary, err, sizeof(err)) == 0)
		fprintf(stderr, "stcluster effects: no option takes two values in run %.8s: "
				"nothing to compare\n",
			run);
	st_strbuf_release(&b);
	st_store_close(s);
	return rc;
}

/* ---- history ---- */

/* The last n runs of the store (by start, as "last" takes them), a
 * subquery over main.run: its index, so a handful of rows whatever the
 * store holds. */
#define HISTORY_LAST_RUNS "(SELECT run_id FROM main.run ORDER BY started_at DESC, rowid DESC LIMIT %d)"

/* Into out: the condition on main.combo of the runs history reads: the
 * last --runs runs and the --window runs before them, so that its cost is
 * theirs, not the store's ("1": every run, when either is 0). */
static void history_runs(const struct st_subargs *a, struct st_strbuf *out)
{
	if (a->runs > 0 && a->window > 0)
		st_strbuf_addf(out, "run_id IN " HISTORY_LAST_RUNS, a->runs + a->window);
	else
		st_strbuf_put(out, "1");
}

/* Into out: a condition on main.combo selecting the combinations `where`
 * keeps among those of the runs `runs` selects (history_runs), when it
 * compiles over the sweep options' columns alone; 0, or -1 (it names
 * something else: every combination of those runs is read). */
static int history_combos(sqlite3 *db, const char *where, const char *runs, struct st_strbuf *out)
{
	struct st_strbuf opts = { 0 }, probe = { 0 };
	/* not the options a phase may have of its own (common/phaseopt.h): a
	 * combination's column is not what each of its phases ran with */
	for (int i = 0; i < ST_OPT_COUNT; i++)
		if (is_column_option(i) && !st_phase_key(i))
			st_strbuf_addf(&opts, ", \"%s\"", st_options[i].name);
	const char *o = opts.p ? opts.p : "";
	st_strbuf_addf(&probe, "SELECT 1 FROM (SELECT combo_id%s FROM main.combo) WHERE (%s)", o, where);
	/* it compiles: it names nothing but those columns */
	const struct st_qparams none = { 0 };
	char err[ST_ERR_MAX];
	sqlite3_stmt *st = NULL;
	int rc = -1;
	if (!opts.oom && !st_query_prepare(db, probe.oom ? NULL : probe.p, &none, &st, err, sizeof(err))) {
		st_strbuf_addf(out, "(%s) AND combo_id IN (SELECT combo_id FROM (SELECT combo_id%s FROM "
				    "main.combo WHERE (%s)) WHERE (%s))",
			       runs, o, runs, where);
		rc = out->oom ? -1 : 0;
	}
	sqlite3_finalize(st);
	st_strbuf_release(&opts);
	st_strbuf_release(&probe);
	return rc;
}

/* Into b: the statement of history's JSON rows over the rows of `from`. */
static void history_json(const char *from, struct st_strbuf *b)
{
	st_strbuf_put(b, "SELECT json_object('started_at', started_at, 'run_id', run_id, "
			 "'label', label, 'hosts', hosts, 'ranks', ranks, 'phase', phase, 'options', ");
	st_json_options_sql(b, "");
	st_strbuf_put(b, ", 'n', n, 'figure_unit', " ST_JSON_UNIT("phase"));
	sb_fig(b, "mean", "mbps");
	sb_fig(b, "ci95", "st_ci95(sd_mbps, n)");
	st_strbuf_put(b, ", 'earlier_runs', prev_runs");
	sb_fig(b, "earlier_mean", "prev_mbps");
	st_strbuf_put(b, ", 'change_pct', change_pct, 'verdict', "
			 "st_history_verdict(mbps, sd_mbps, n, prev_runs, prev_mbps, prev_sd, prev_n)) "
			 "FROM ");
	st_strbuf_put(b, from);
	st_strbuf_put(b, " ORDER BY config, hosts, ranks, phase_order, started_at, run_id");
}

int st_cmd_history(const struct st_subargs *a)
{
	char where[4096] = "1", err[ST_ERR_MAX];
	if (a->where && !a->where[strspn(a->where, " \t\n")]) {
		fprintf(stderr, "stcluster history: --where: empty expression\n");
		return 2;
	}
	if (a->where && st_where_translate(a->where, where, sizeof(where), err, sizeof(err))) {
		fprintf(stderr, "stcluster history: --where: %s\n", err);
		return 2;
	}
	struct st_store *s = open_store(a);
	if (!s)
		return 2;
	sqlite3 *db = st_store_db(s);
	struct st_qparams p = { .phase = a->phase, .window = a->window };
	/* the rows of the runs shown and of the --window runs before them
	 * (scope.h); a --where over the sweep options alone selects whole
	 * configurations, their earlier runs with them (history partitions by
	 * configuration): then only their rows of those runs */
	struct st_strbuf runs = { 0 }, combos = { 0 };
	history_runs(a, &runs);
	p.scope = runs.oom ? "1" : runs.p;
	if (a->where && history_combos(db, where, p.scope, &combos) == 0)
		p.scope = combos.p;
	int vary[ST_OPT_COUNT], rc = 2;
	/*
	 * The user's expression becomes the WHERE of a statement built around
	 * the history query, in parentheses. It is SQL on purpose (any
	 * condition over the columns); the store is open read-only
	 * (SQLITE_OPEN_READONLY) and only the first statement of the text is
	 * compiled, so the worst a bad or hostile expression can do is fail,
	 * or read the store, which `query` allows anyway.
	 */
	struct st_strbuf from = { 0 }, b = { 0 };
	sb_subquery(&from, st_sql_q_history);
	st_strbuf_addf(&from, " WHERE (%s)", where);
	if (a->runs > 0)
		st_strbuf_addf(&from, " AND run_id IN " HISTORY_LAST_RUNS, a->runs);
	int got = from.oom ? -1 : varying(db, from.p, &p, vary, err, sizeof(err));
	if (got < 0 && p.scope) {
		/* a subquery over the store's tables (block IN (SELECT block FROM
		 * combo ...)) names the scope's own views inside them: read it all */
		p.scope = NULL;
		got = varying(db, from.p, &p, vary, err, sizeof(err));
	}
	if (got < 0) {
		fprintf(stderr, "stcluster history: %s%s\n", a->where ? "--where: " : "",
			from.oom ? "out of memory" : err);
		goto out;
	}
	if (a->format == ST_FMT_JSON) {
		history_json(from.p, &b);
		rc = run_and_print_json(db, "history", &b, &p, NULL, stdout);
		goto out;
	}
	int wide = a->format == ST_FMT_CSV;
	st_strbuf_put(&b, wide ? "SELECT started_at AS started, run_id AS run, "
			: "SELECT replace(substr(started_at, 1, 16), 'T', ' ') AS started, "
			  "substr(run_id, 1, 8) AS run, ");
	st_strbuf_put(&b, "label, hosts, ranks, phase, ");
	sb_options(&b, vary);
	st_strbuf_put(&b, "n, ROUND(mbps, 1) AS \"MB/s\", ROUND(st_ci95(sd_mbps, n), 1) AS \"+-95%\", "
		   "prev_runs AS \"earlier runs\", ROUND(prev_mbps, 1) AS \"earlier MB/s\", "
		   "ROUND(change_pct, 1) AS \"change %\", "
		   "st_history_verdict(mbps, sd_mbps, n, prev_runs, prev_mbps, prev_sd, prev_n) AS verdict "
		   "FROM ");
	st_strbuf_put(&b, from.p);
	st_strbuf_put(&b, " ORDER BY config, hosts, ranks, phase_order, started_at, run_id");
	char note[4300];
	char win[64] = "every earlier run";
	if (a->window)
		snprintf(win, sizeof(win), "the %d run%s before", a->window, a->window == 1 ? "" : "s");
	snprintf(note, sizeof(note),
		 "where %s; earlier = %s of the same configuration on the same hosts (--window), "
		 "iterations pooled; regression/improvement: Welch's t-test at 95 %% (or the 95 %% "
		 "prediction interval with fewer than 3 iterations); %s",
		 a->where ? where : "(every configuration)", win, MBPS_UNIT);
	rc = run_and_print(db, "history", &b, &p, a->format, note, stdout);
out:
	st_strbuf_release(&from);
	st_strbuf_release(&b);
	st_strbuf_release(&combos);
	st_strbuf_release(&runs);
	st_store_close(s);
	return rc;
}
