/*
 * html.c - the HTML report of one run (see html.h): the page assembled
 * from its sections, and where `--html PATH` may write it.
 *
 * The page is written top to bottom in one pass: the run and its command
 * line, the best combinations, then the charts (aggregate per combination
 * and phase with the per-client spread, main effects, the interaction of
 * the two strongest options, throughput against each swept size, each
 * phase over time), the effects ranking, the bottleneck verdicts and
 * baselines, what went over the wire, failures and hosts. What a section
 * shows is loaded by html_data.c, its charts drawn by html_svg.c; this
 * file writes the headings, notes and tables around them.
 *
 * Invariants: every text that comes from the store or the user goes
 * through html_esc(); the page loads nothing (no script, no link, no image
 * URL); a section whose rows cannot be read (a store an older stcluster
 * wrote) is left out, and the rest of the page is still written.
 */
#include "html.h"

#include "../../common/options.h"
#include "../../common/units.h"
#include "../../common/util.h"
#include "../store/runs.h"
#include "html_data.h"
#include "html_svg.h"
#include "../../common/stats.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* The mark in the head of every page stcluster writes; a file that lacks it
 * was not written by stcluster, and is not replaced without --force. */
#define GENERATOR_MARK "<meta name=\"generator\" content=\"stcluster report --html\">"

#define TS_MAX_COMBOS 50 /* combinations drawn over time; the rest: the query in the note */

/* ---- text ---- */

/* A figure for a table cell: "812.3", or an en dash when there is none. */
static void num(FILE *o, double v, int decimals)
{
	if (isnan(v))
		fputs("&ndash;", o);
	else
		fprintf(o, "%.*f", decimals, v);
}

/* The text of a cell of r, escaped; NULL prints nothing. */
static void esc_cell(FILE *o, const struct html_rows *r, size_t row, int col)
{
	html_esc(o, HTML_CELL(r, row, col)->text);
}

static int cell_int(const struct html_rows *r, size_t row, int col)
{
	return (int)HTML_CELL(r, row, col)->i;
}

/* ---- the run ---- */

static void section_run(FILE *o, const struct html_page *pg)
{
	static const struct {
		int col;
		const char *name;
	} rows[] = { { 0, "run" },    { 2, "started" },	 { 3, "finished" }, { 4, "status" },
		     { 5, "engine" }, { 6, "target" },	 { 7, "phases" },   { 8, "iterations" },
		     { 9, "ranks" },  { 10, "hosts" },	 { 13, "stcluster" } };
	struct html_rows r;
	char err[ST_ERR_MAX];
	if (html_load_run(pg, &r, err, sizeof(err)))
		return;
	if (!r.nrow) {
		html_rows_release(&r);
		return;
	}
	fputs("<h1>stcluster: ", o);
	esc_cell(o, &r, 0, 1);
	fputs("</h1>\n<table class=\"kv\">\n", o);
	for (size_t i = 0; i < ST_ARRAY_LEN(rows); i++) {
		fputs("<tr><th>", o);
		html_esc(o, rows[i].name);
		fputs("</th><td>", o);
		const char *v = HTML_CELL(&r, 0, rows[i].col)->text;
		if (v && *v)
			html_esc(o, v);
		else
			fputs("&ndash;", o);
		fputs("</td></tr>\n", o);
	}
	/* --search halving plans its race's most */
	fprintf(o, "<tr><th>combinations</th><td>%d stored of %s%d planned%s</td></tr>\n</table>\n",
		cell_int(&r, 0, 11), cell_int(&r, 0, 16) ? "at most " : "", cell_int(&r, 0, 12),
		cell_int(&r, 0, 16) ? " (--search halving)" : "");
	fputs("<h2>Command line</h2>\n<pre class=\"cmd\">", o);
	esc_cell(o, &r, 0, 14);
	fputs("</pre>\n", o);
	fputs("<details><summary>The full effective plan</summary><pre>", o);
	esc_cell(o, &r, 0, 15);
	fputs("</pre></details>\n", o);
	html_rows_release(&r);
}

/* ---- the combinations ---- */

static int cmp_best(const void *a, const void *b)
{
	const struct html_bar *x = *(const struct html_bar *const *)a,
			      *y = *(const struct html_bar *const *)b;
	if (x->phase != y->phase)
		return x->phase - y->phase;
	if (isnan(x->mbps) != isnan(y->mbps))
		return isnan(x->mbps) ? 1 : -1;
	if (x->mbps != y->mbps)
		return x->mbps > y->mbps ? -1 : 1;
	return x->combo - y->combo;
}

/* Into v (room for every bar): the bars of phases run, best first per
 * phase (cmp_best); how many. */
static size_t best_first(const struct html_page *pg, const struct html_bar **v)
{
	size_t k = 0;
	for (size_t i = 0; i < pg->bars.n; i++)
		if (HTML_AT(pg->bars, struct html_bar, i)->phase >= 0)
			v[k++] = HTML_AT(pg->bars, struct html_bar, i);
	qsort(v, k, sizeof(*v), cmp_best);
	return k;
}

/* One row of the best combinations: place `place` of its phase. */
static void best_row(FILE *o, const struct html_bar *b, int place)
{
	fprintf(o, "<tr><td class=\"nw\"><span class=\"sw\" style=\"background:%s\"></span>%s</td>"
		   "<td>%d</td><td class=\"nw\">",
		html_phase_color[b->phase], st_phase_names[b->phase], place);
	html_esc(o, b->label);
	fputs("</td><td class=\"num\">", o);
	num(o, b->mbps, 1);
	fputs("</td><td class=\"num\">", o);
	num(o, st_ci95(b->sd, b->n), 1);
	fprintf(o, "</td><td class=\"num\">%d/%d</td><td class=\"num\">", b->n, b->iters);
	num(o, b->cmin, 1);
	fputs("</td><td class=\"num\">", o);
	num(o, b->cmax, 1);
	const double cpu[] = { b->ccpu, b->ccpm, b->iocpm, b->scpu, b->scpm };
	for (size_t c = 0; c < ST_ARRAY_LEN(cpu); c++) {
		fputs("</td><td class=\"num\">", o);
		num(o, cpu[c], c == 0 || c == 3 ? 1 : 0);
	}
	fputs("</td><td>", o);
	if (b->verdict[0])
		html_esc(o, b->verdict);
	else
		fputs("&ndash;", o); /* no baseline: "Bottleneck verdicts" says why */
	fputs("</td></tr>\n", o);
}

static void section_best(FILE *o, const struct html_page *pg)
{
	fputs("<h2>Best combinations</h2>\n<p class=\"note\">Per phase, the five highest aggregate "
	      "MB/s (all client bytes / (latest end &minus; earliest start); MB/s = 10<sup>6</sup> "
	      "bytes/s), the mean of the iterations without error with its 95&nbsp;% interval, and "
	      "the slowest and the fastest client; the CPU the phase cost: the client processes' "
	      "(user + sys) as % of one CPU per client rank over the phase's wall (the kernel's "
	      "io-wq workers and the rank's other threads included), of it the I/O threads' own "
	      "(each thread's RUSAGE_THREAD, as fio counts its job), the server "
	      "hosts' CPUs busy as % of all their CPUs (sampled by the server ranks; &ndash; "
	      "without one), and each as CPU &micro;s per MB moved.</p>\n",
	      o);
	const struct html_bar **v = calloc(pg->bars.n ? pg->bars.n : 1, sizeof(*v));
	if (!v)
		return;
	size_t k = best_first(pg, v);
	fputs("<table><tr><th>phase</th><th>#</th><th>combination</th><th class=\"num\">MB/s</th>"
	      "<th class=\"num\">&plusmn;95&nbsp;%</th><th class=\"num\">iterations</th>"
	      "<th class=\"num\">slowest client</th><th class=\"num\">fastest client</th>"
	      "<th class=\"num\">client CPU %</th><th class=\"num\">client &micro;s/MB</th>"
	      "<th class=\"num\">I/O threads &micro;s/MB</th>"
	      "<th class=\"num\">server CPU %</th><th class=\"num\">server &micro;s/MB</th>"
	      "<th>verdict</th></tr>\n",
	      o);
	int place = 0, last = -1;
	for (size_t i = 0; i < k; i++) {
		place = v[i]->phase == last ? place + 1 : 1;
		last = v[i]->phase;
		if (place <= 5)
			best_row(o, v[i], place);
	}
	fputs("</table>\n", o);
	free(v);
}

/* Every combination of one phase, best first, with its place and its
 * figures: the whole ranking the chart above it starts. */
static void table_phase(FILE *o, const struct html_bar *const *v, size_t k)
{
	int p = v[0]->phase;
	double best = v[0]->mbps;
	fprintf(o, "<details><summary>All %zu combinations of the %s phase, best first</summary>\n", k,
		st_phase_names[p]);
	fprintf(o, "<table class=\"small ranking\" data-phase=\"%s\"><tr><th class=\"num\">#</th>"
		   "<th>combination</th><th class=\"num\">MB/s</th><th class=\"num\">%% of best</th>"
		   "<th class=\"num\">&plusmn;95&nbsp;%%</th><th class=\"num\">slowest client</th>"
		   "<th class=\"num\">fastest client</th><th class=\"num\">client CPU %%</th>"
		   "<th>verdict</th></tr>\n",
		st_phase_names[p]);
	for (size_t i = 0; i < k; i++) {
		const struct html_bar *b = v[i];
		fprintf(o, "<tr data-combo=\"%d\"><td class=\"num\">%zu</td><td class=\"nw\">", b->combo,
			i + 1);
		html_esc(o, b->label);
		fputs("</td><td class=\"num\">", o);
		if (isnan(b->mbps))
			fputs("no figure (errors)", o);
		else
			num(o, b->mbps, 1);
		fputs("</td><td class=\"num\">", o);
		num(o, best > 0 ? 100 * b->mbps / best : NAN, 0);
		fputs("</td><td class=\"num\">", o);
		num(o, st_ci95(b->sd, b->n), 1);
		fputs("</td><td class=\"num\">", o);
		num(o, b->cmin, 1);
		fputs("</td><td class=\"num\">", o);
		num(o, b->cmax, 1);
		fputs("</td><td class=\"num\">", o);
		num(o, b->ccpu, 1);
		fputs("</td><td>", o);
		if (b->verdict[0])
			html_esc(o, b->verdict);
		else
			fputs("&ndash;", o);
		fputs("</td></tr>\n", o);
	}
	fputs("</table></details>\n", o);
}

/* The combinations that failed to prepare (nfailed of them): no figure. */
static void table_failed(FILE *o, const struct html_page *pg, size_t nfailed)
{
	fprintf(o, "<h3>%zu combinations failed to prepare</h3>\n<table class=\"small\">"
		   "<tr><th>combination</th><th>why</th></tr>\n",
		nfailed);
	for (size_t i = 0; i < pg->bars.n; i++) {
		const struct html_bar *b = HTML_AT(pg->bars, struct html_bar, i);
		if (b->phase >= 0)
			continue;
		fprintf(o, "<tr data-combo=\"%d\" class=\"fail\"><td class=\"nw\">", b->combo);
		html_esc(o, b->label);
		fputs("</td><td>failed to prepare: ", o);
		html_esc(o, b->verdict);
		fputs("</td></tr>\n", o);
	}
	fputs("</table>\n", o);
}

/* Aggregate per combination, one group per phase, best first: the best
 * HTML_BARS_CHARTED charted on one scale for all phases, every one in a
 * table. */
static void section_bars(FILE *o, const struct html_page *pg)
{
	fprintf(o,
		"<h2>Aggregate MB/s per combination and phase</h2>\n"
		"<p class=\"note\">Per phase, the combinations best first: the %d highest charted, "
		"every one in the table below its chart (with its place and %% of the best). Bar: "
		"the aggregate (mean of the iterations). Whisker: the per-client spread, scaled to the "
		"aggregate &mdash; from clients &times; the slowest client to clients &times; the "
		"fastest; a short whisker at the bar's end means every client got its share. Hover a "
		"bar for its figures. One scale for every phase.</p>\n",
		HTML_BARS_CHARTED);
	const struct html_bar **v = calloc(pg->bars.n ? pg->bars.n : 1, sizeof(*v));
	if (!v)
		return;
	size_t k = best_first(pg, v), failed = pg->bars.n - k, lmax = 8;
	double vmax = 0;
	for (size_t i = 0; i < k; i++) {
		const struct html_bar *b = v[i];
		lmax = strlen(b->label) > lmax ? strlen(b->label) : lmax;
		if (!isnan(b->mbps) && b->mbps > vmax)
			vmax = b->mbps;
		if (!isnan(b->cmax) && b->clients * b->cmax > vmax)
			vmax = b->clients * b->cmax;
	}
	if (!k && !failed) {
		fputs("<p>No combination of this run has figures.</p>\n", o);
		free(v);
		return;
	}
	int L = (int)(lmax * 6.6) + 16;
	L = L < 120 ? 120 : L > 560 ? 560 : L;
	double max, step;
	html_nice_axis(vmax, &max, &step);
	for (size_t i = 0; i < k;) {
		size_t j = i;
		while (j < k && v[j]->phase == v[i]->phase)
			j++;
		fprintf(o, "<h3><span class=\"sw\" style=\"background:%s\"></span>%s: %zu combinations",
			html_phase_color[v[i]->phase], st_phase_names[v[i]->phase], j - i);
		if (j - i > HTML_BARS_CHARTED)
			fprintf(o, ", the best %d charted", HTML_BARS_CHARTED);
		fputs("</h3>\n", o);
		html_svg_phase_bars(o, v + i, j - i, max, step, L);
		table_phase(o, v + i, j - i);
		i = j;
	}
	if (failed)
		table_failed(o, pg, failed);
	free(v);
}

/* ---- the options' effects ---- */

static void section_main_effects(FILE *o, const struct html_page *pg)
{
	fputs("<h2>Main effects</h2>\n<p class=\"note\">For each option that varies: the mean "
	      "aggregate MB/s at each of its values, over every other option (one line per "
	      "phase; whiskers: &plusmn; one standard deviation of the observations). A steep "
	      "line is an option that matters; the same scale in every chart.</p>\n",
	      o);
	double vmax = 0;
	int any = 0;
	for (size_t i = 0; i < pg->effs.n; i++) {
		const struct html_eff *e = HTML_AT(pg->effs, struct html_eff, i);
		if (e->inter)
			continue;
		any = 1;
		double top = e->mbps + (isnan(e->sd) ? 0 : e->sd);
		vmax = top > vmax ? top : vmax;
	}
	if (!any) {
		fputs("<p>No option takes two values in this run (or no phase ran without error): "
		      "nothing to compare.</p>\n",
		      o);
		return;
	}
	double max, step;
	html_nice_axis(vmax, &max, &step);
	fputs("<div class=\"grid\">\n", o);
	for (int opt = 0; opt < ST_OPT_COUNT; opt++) {
		const char *lv[HTML_MAXLEV];
		double key[HTML_MAXLEV];
		size_t nl = html_levels_of(pg, opt, lv, key, HTML_MAXLEV);
		if (nl >= 2)
			html_svg_main_effect(o, pg, opt, lv, nl, max, step);
	}
	fputs("</div>\n", o);
}

static void section_interactions(FILE *o, const struct html_page *pg)
{
	fputs("<h2>Interaction of the two strongest options</h2>\n<p class=\"note\">Per phase, the "
	      "mean aggregate MB/s of each pair of values of the two options with the largest main "
	      "effects. Parallel lines: the options act independently; lines that converge, "
	      "diverge or cross: the effect of one depends on the other.</p>\n<div class=\"grid\">\n",
	      o);
	int drawn = 0;
	for (int p = 0; p < ST_PHASE_COUNT; p++) {
		int a = html_strongest(pg, p, -1), b = a < 0 ? -1 : html_strongest(pg, p, a);
		if (a < 0 || b < 0)
			continue;
		html_svg_interaction(o, pg, p, a, b);
		drawn++;
	}
	fputs("</div>\n", o);
	if (!drawn)
		fputs("<p>Fewer than two options vary in this run: no interaction to show.</p>\n", o);
}

/* Throughput against each swept size (transfer size, rsize, wsize, rwsize,
 * file size), on a log2 axis: one line per phase through the level means,
 * the band from the lowest to the highest observation at each size. */
static void section_sizes(FILE *o, const struct html_page *pg)
{
	static const int sizes[] = { ST_OPT_BLOCK, ST_OPT_RSIZE, ST_OPT_WSIZE, ST_OPT_RWSIZE,
				     ST_OPT_SIZE };
	int drawn = 0;
	for (size_t s = 0; s < ST_ARRAY_LEN(sizes); s++) {
		const char *lv[HTML_MAXLEV];
		double key[HTML_MAXLEV];
		size_t nl = html_levels_of(pg, sizes[s], lv, key, HTML_MAXLEV);
		if (nl < 2 || isnan(key[0]))
			continue;
		if (!drawn++)
			fputs("<h2>Throughput against size</h2>\n<p class=\"note\">Mean aggregate MB/s "
			      "at each swept size (log scale), one line per phase; the band spans the "
			      "lowest to the highest observation at that size, over every other "
			      "option.</p>\n<div class=\"grid\">\n",
			      o);
		html_svg_size(o, pg, sizes[s], lv, key, nl);
	}
	if (drawn)
		fputs("</div>\n", o);
}

static int cmp_effect(const void *a, const void *b)
{
	const struct html_eff *x = *(const struct html_eff *const *)a,
			      *y = *(const struct html_eff *const *)b;
	if (x->inter != y->inter)
		return x->inter - y->inter;
	if (isnan(x->effect) != isnan(y->effect))
		return isnan(x->effect) ? 1 : -1; /* not measurable: last */
	if (!isnan(x->effect) && x->effect != y->effect)
		return x->effect > y->effect ? -1 : 1;
	return x->oa != y->oa ? x->oa - y->oa : x->ob - y->ob;
}

/* Phase p's table of the options and pairs v[0..k), largest effect first. */
static void ranking_table(FILE *o, int p, const struct html_eff *const *v, size_t k)
{
	fprintf(o,
		"<table><tr><th colspan=\"3\"><span class=\"sw\" style=\"background:%s\">"
		"</span>%s</th></tr>\n<tr><th>option</th><th class=\"num\">effect MB/s</th>"
		"<th class=\"num\">%%</th></tr>\n",
		html_phase_color[p], st_phase_names[p]);
	for (size_t i = 0; i < k; i++) {
		fputs(v[i]->inter ? "<tr class=\"pair\"><td>" : "<tr><td>", o);
		html_esc(o, st_options[v[i]->oa].name);
		if (v[i]->inter) {
			fputs(" &#215; ", o);
			html_esc(o, st_options[v[i]->ob].name);
		}
		fputs("</td><td class=\"num\">", o);
		num(o, v[i]->effect, 1);
		fputs("</td><td class=\"num\">", o);
		num(o, v[i]->effect_pct, 1);
		fputs("</td></tr>\n", o);
	}
	fputs("</table>\n", o);
}

static void section_ranking(FILE *o, const struct html_page *pg)
{
	fputs("<h2>Which option matters</h2>\n<p class=\"note\">Effect: the largest minus the "
	      "smallest mean over an option's values (main), or over a pair's cells of what the "
	      "two main effects leave unexplained (interaction), in MB/s and in % of the phase "
	      "mean; largest first. The same figures as <code>stcluster effects</code>.</p>\n",
	      o);
	const struct html_eff **v = calloc(pg->effs.n ? pg->effs.n : 1, sizeof(*v));
	if (!v)
		return;
	int any = 0;
	for (int p = 0; p < ST_PHASE_COUNT; p++) {
		/* one entry per option or pair: its first row in this phase (rows
		 * of one option or pair are adjacent) */
		size_t k = 0;
		for (size_t i = 0; i < pg->effs.n; i++) {
			const struct html_eff *e = HTML_AT(pg->effs, struct html_eff, i);
			const struct html_eff *prev = i ? HTML_AT(pg->effs, struct html_eff, i - 1) : NULL;
			if (e->phase != p)
				continue;
			if (prev && prev->phase == p && prev->inter == e->inter && prev->oa == e->oa &&
			    prev->ob == e->ob)
				continue;
			v[k++] = e;
		}
		if (!k)
			continue;
		qsort(v, k, sizeof(*v), cmp_effect);
		if (!any++)
			fputs("<div class=\"grid\">\n", o);
		ranking_table(o, p, v, k);
	}
	free(v);
	if (any)
		fputs("</div>\n", o);
	else
		fputs("<p>No option varies in this run.</p>\n", o);
}

/* ---- the metadata phases, and each phase over time ---- */

/* The metadata phases: operations per second per combination (not MB/s:
 * their own table, apart from the charts of bytes). */
static void section_meta(FILE *o, const struct html_page *pg)
{
	struct html_rows r;
	char err[ST_ERR_MAX];
	if (html_load_meta(pg, &r, err, sizeof(err)))
		return;
	if (r.nrow)
		fputs("<h2>Metadata operations per second</h2>\n<p class=\"note\">Aggregate: "
		      "all clients' operations over the phase's span; per client: each "
		      "client's own; latency of one operation.</p>\n<table class=\"small\"><tr>"
		      "<th class=\"num\">seq</th><th>options</th><th>phase</th>"
		      "<th class=\"num\">ops/s</th><th class=\"num\">slowest client</th>"
		      "<th class=\"num\">fastest client</th><th class=\"num\">p50 &micro;s</th>"
		      "<th class=\"num\">p99 &micro;s</th><th class=\"num\">operations</th>"
		      "<th class=\"num\">errors</th></tr>\n",
		      o);
	for (size_t i = 0; i < r.nrow; i++) {
		fprintf(o, "<tr><td class=\"num\">%d</td><td>", cell_int(&r, i, 0));
		esc_cell(o, &r, i, 1);
		fputs("</td><td>", o);
		esc_cell(o, &r, i, 2);
		fputs("</td>", o);
		for (int c = 3; c < 10; c++) {
			int us = c == 6 || c == 7; /* the latencies, stored in ns */
			fputs("<td class=\"num\">", o);
			num(o, HTML_CELL(&r, i, c)->num / (us ? 1e3 : 1), us ? 1 : 0);
			fputs("</td>", o);
		}
		fputs("</tr>\n", o);
	}
	if (r.nrow)
		fputs("</table>\n", o);
	html_rows_release(&r);
}

/* Combination `row` of the timed ones: a box with each of its phases over
 * time, open for the first four. */
static void timed_combo(FILE *o, const struct html_page *pg, const struct html_rows *r, size_t row,
			int shown)
{
	char w[32] = "", err[ST_ERR_MAX];
	st_format_duration(HTML_CELL(r, row, 4)->i, w, sizeof(w));
	fprintf(o, "<details%s><summary>seq %d: ", shown <= 4 ? " open" : "", cell_int(r, row, 1));
	esc_cell(o, r, row, 2);
	fputs(" (intervals of ", o);
	html_esc(o, w);
	fputs(")</summary><div class=\"grid\">\n", o);
	const char *phases = HTML_CELL(r, row, 3)->text;
	char list[256];
	st_copy(list, sizeof(list), phases ? phases : "");
	for (char *save = NULL, *ph = strtok_r(list, ",", &save); ph; ph = strtok_r(NULL, ",", &save)) {
		struct html_series s;
		if (html_series_load(pg->db, HTML_CELL(r, row, 0)->i, ph, &s, err, sizeof(err)))
			continue;
		html_svg_series(o, &s, ph);
		html_vec_release(&s.pts);
	}
	fputs("</div></details>\n", o);
}

/* Throughput over time (the elbencho live view, kept): for each
 * combination, each phase's intervals. */
static void section_time_series(FILE *o, const struct html_page *pg)
{
	struct html_rows r;
	char err[ST_ERR_MAX];
	if (html_load_timed(pg, &r, err, sizeof(err)))
		return; /* a store an older stcluster wrote: no intervals */
	int shown = 0;
	for (size_t i = 0; i < r.nrow && shown < TS_MAX_COMBOS; i++) {
		if (!shown++)
			fputs("<h2>Throughput over time</h2>\n<p class=\"note\">Each client's MB/s "
			      "(operations/s for the metadata phases) per interval, and all clients' "
			      "(black), from the start of the phase's figures (after --ramp). A red mark "
			      "is a stall: a whole interval in which the client completed no call for 4 of "
			      "its mean times between calls in the phase, or under a quarter of its rate "
			      "where an interval holds 4 or more (on all clients' line: every client "
			      "stalled).</p>\n",
			      o);
		timed_combo(o, pg, &r, i, shown);
	}
	if (r.nrow > TS_MAX_COMBOS)
		fprintf(o, "<p class=\"note\">%zu more combinations: <code>stcluster query \"SELECT * "
			   "FROM interval_summary\"</code>.</p>\n",
			r.nrow - TS_MAX_COMBOS);
	html_rows_release(&r);
}

/* ---- the limits, the wire, the failures, the hosts ---- */

/* The parts measured alone before the sweep, if any. */
static void table_baselines(FILE *o, const struct html_page *pg)
{
	struct html_rows r;
	char err[ST_ERR_MAX];
	if (html_load_baselines(pg, &r, err, sizeof(err)))
		return;
	if (r.nrow)
		fputs("<p class=\"note\">The parts measured alone before the sweep "
		      "(network: TCP streams client to server; disk: the server's disk "
		      "under the export):</p>\n<table><tr><th>kind</th><th>direction</th>"
		      "<th>server rank</th><th>client ranks</th><th class=\"num\">MB/s</th>"
		      "<th>note</th></tr>\n",
		      o);
	for (size_t i = 0; i < r.nrow; i++) {
		fputs("<tr>", o);
		for (int c = 0; c < 4; c++) {
			fputs("<td>", o);
			esc_cell(o, &r, i, c);
			fputs("</td>", o);
		}
		fputs("<td class=\"num\">", o);
		num(o, HTML_CELL(&r, i, 6)->num, 1);
		fputs("</td><td>", o);
		esc_cell(o, &r, i, 7);
		fputs("</td></tr>\n", o);
	}
	if (r.nrow)
		fputs("</table>\n", o);
	html_rows_release(&r);
}

static void section_verdicts(FILE *o, const struct html_page *pg)
{
	fputs("<h2>Bottleneck verdicts</h2>\n", o);
	table_baselines(o, pg);
	int nv = 0, all = 0;
	for (size_t i = 0; i < pg->bars.n; i++) {
		const struct html_bar *b = HTML_AT(pg->bars, struct html_bar, i);
		all += b->phase >= 0 && (!isnan(b->pct) || b->verdict[0]);
	}
	for (size_t i = 0; i < pg->bars.n; i++) {
		const struct html_bar *b = HTML_AT(pg->bars, struct html_bar, i);
		if (b->phase < 0 || (isnan(b->pct) && !b->verdict[0]))
			continue;
		/* at hundreds of combinations, one row each is a page of its own */
		if (!nv++ && all > HTML_BARS_CHARTED)
			fprintf(o, "<details><summary>The verdict of each of the %d phases run</summary>\n",
				all);
		if (nv == 1)
			fputs("<table><tr><th>combination</th><th>phase</th><th class=\"num\">MB/s</th>"
			      "<th class=\"num\">% of limit</th><th>verdict</th></tr>\n",
			      o);
		fputs("<tr><td>", o);
		html_esc(o, b->label);
		fprintf(o, "</td><td>%s</td><td class=\"num\">", st_phase_names[b->phase]);
		num(o, b->mbps, 1);
		fputs("</td><td class=\"num\">", o);
		num(o, b->pct, 0);
		fputs("</td><td>", o);
		html_esc(o, b->verdict);
		fputs("</td></tr>\n", o);
	}
	if (nv)
		fputs(all > HTML_BARS_CHARTED ? "</table></details>\n" : "</table>\n", o);
	else
		fputs("<p>No verdict: this run measured no baseline (no rank ran on an NFS server host, "
		      "or --baseline off), so there is no limit to compare the aggregate with, and "
		      "no server part it sampled was at its limit.</p>\n",
		      o);
}

/* What went over the wire, beside each phase's MB/s: its RPC mix, the
 * figures of its READ, WRITE and COMMIT as nfsiostat gives them, and what
 * contradicts the request (flagged). A store without those views (last
 * written by an older stcluster, read as it is) shows nothing. */
static void section_wire(FILE *o, const struct html_page *pg)
{
	struct html_rows r;
	char err[ST_ERR_MAX];
	if (html_load_wire(pg, &r, err, sizeof(err)))
		return;
	if (r.nrow)
		fputs("<h2>What went over the wire</h2>\n<p class=\"note\">Each phase's NFS calls "
		      "(the kernel client's /proc/self/mountstats over the phase, or the libnfs "
		      "engine's own count): ops/s, KiB per call, average RTT and execute time as "
		      "nfsiostat computes them, and the stable_how of the WRITEs (measured by "
		      "libnfs; inferred from the COMMITs for the kernel, which does not split "
		      "WRITE by it). With O_DIRECT Linux sends FILE_SYNC when one write fits one "
		      "WRITE RPC and UNSTABLE + COMMIT otherwise, whatever --sync says. Flagged: "
		      "what contradicts the request. Beside it, what a kernel NFS server's nfsd "
		      "counted over the phase (/proc/net/rpc/nfsd, as its server rank sampled "
		      "it).</p>\n<table class=\"small\"><tr><th "
		      "class=\"num\">seq</th><th>combination</th><th>phase</th><th "
		      "class=\"num\">MB/s</th><th>RPC mix</th><th>per call</th><th>flags</th>"
		      "<th>the server counted</th></tr>\n",
		      o);
	int flagged = 0;
	for (size_t i = 0; i < r.nrow; i++) {
		int flags = HTML_CELL(&r, i, 6)->text != NULL;
		flagged += flags;
		fprintf(o, "<tr%s><td class=\"num\">%d</td><td>", flags ? " class=\"flag\"" : "",
			cell_int(&r, i, 0));
		esc_cell(o, &r, i, 1);
		fputs("</td><td>", o);
		esc_cell(o, &r, i, 2);
		fputs("</td><td class=\"num\">", o);
		num(o, HTML_CELL(&r, i, 3)->num, 1);
		for (int c = 4; c < 8; c++) {
			fputs("</td><td>", o);
			esc_cell(o, &r, i, c);
		}
		fputs("</td></tr>\n", o);
	}
	if (r.nrow)
		fprintf(o, "</table>\n<p class=\"note\">%d of %zu phases flagged.</p>\n", flagged,
			r.nrow);
	html_rows_release(&r);
}

/* The server's side of each phase (server_parts): the export's disk and
 * the kernel NFS server's thread pool, as its ranks sampled them. */
static void section_server(FILE *o, const struct html_page *pg)
{
	struct html_rows r;
	char err[ST_ERR_MAX];
	if (html_load_server(pg, &r, err, sizeof(err)))
		return;
	if (r.nrow)
		fputs("<h2>The server's side</h2>\n<p class=\"note\">What each server rank sampled "
		      "over the phase: the disk the export is on (busy: the share of the phase it had "
		      "a request in flight; queue: requests in flight on average) and, on a kernel "
		      "NFS server, its threads, the calls that arrived at its pools and the share "
		      "that found every thread busy (pool_stats: arrived, less threads woken), with "
		      "the host's CPUs busy.</p>\n<table class=\"small\"><tr><th class=\"num\">seq"
		      "</th><th>combination</th><th>phase</th><th class=\"num\">MB/s</th><th>host</th>"
		      "<th>disk</th><th class=\"num\">busy %</th><th class=\"num\">written MB/s</th>"
		      "<th class=\"num\">read MB/s</th><th class=\"num\">queue</th><th "
		      "class=\"num\">nfsd threads</th><th class=\"num\">calls arrived</th><th "
		      "class=\"num\">waited %</th><th class=\"num\">CPU %</th></tr>\n",
		      o);
	static const int digits[14] = { 0, 0, 0, 1, 0, 0, 0, 1, 1, 2, 0, 0, 0, 0 };
	for (size_t i = 0; i < r.nrow; i++) {
		fprintf(o, "<tr><td class=\"num\">%d</td>", cell_int(&r, i, 0));
		for (int c = 1; c < 14; c++) {
			const struct html_cell *v = HTML_CELL(&r, i, c);
			int text = c == 1 || c == 2 || c == 4 || c == 5;
			fputs(text ? "<td>" : "<td class=\"num\">", o);
			if (text)
				esc_cell(o, &r, i, c);
			else if (v->text)
				num(o, v->num, digits[c]);
			else
				fputs("&ndash;", o);
			fputs("</td>", o);
		}
		fputs("</tr>\n", o);
	}
	if (r.nrow)
		fputs("</table>\n", o);
	html_rows_release(&r);
}

static void section_failures(FILE *o, const struct html_page *pg)
{
	struct html_rows r;
	char err[ST_ERR_MAX];
	if (html_load_failures(pg, &r, err, sizeof(err)))
		return;
	if (r.nrow)
		fputs("<h2>Failures</h2>\n<table><tr><th class=\"num\">seq</th>"
		      "<th class=\"num\">iteration</th><th>phase</th><th>status</th>"
		      "<th>message</th></tr>\n",
		      o);
	for (size_t i = 0; i < r.nrow; i++) {
		fprintf(o, "<tr><td class=\"num\">%d</td><td class=\"num\">%d</td><td>",
			cell_int(&r, i, 0), cell_int(&r, i, 1));
		for (int c = 2; c < 5; c++) {
			esc_cell(o, &r, i, c);
			fputs(c < 4 ? "</td><td>" : "</td></tr>\n", o);
		}
	}
	if (r.nrow)
		fputs("</table>\n", o);
	html_rows_release(&r);
}

static void section_hosts(FILE *o, const struct html_page *pg)
{
	struct html_rows r;
	char err[ST_ERR_MAX];
	if (html_load_hosts(pg, &r, err, sizeof(err)))
		return;
	fputs("<h2>Hosts</h2>\n<table class=\"small\"><tr><th class=\"num\">rank</th><th>host</th><th>role</th>"
	      "<th class=\"num\">cores</th><th class=\"num\">PUs</th><th class=\"num\">NUMA</th>"
	      "<th class=\"num\">memory GiB</th><th>kernel</th><th>CPU</th><th>addresses</th>"
	      "<th>interface</th><th class=\"num\">MTU</th><th class=\"num\">Mbit/s</th>"
	      "<th class=\"num\">clock offset &micro;s</th></tr>\n",
	      o);
	for (size_t i = 0; i < r.nrow; i++) {
		fputs("<tr>", o);
		for (int c = 0; c < 14; c++) {
			const struct html_cell *v = HTML_CELL(&r, i, c);
			int numeric = c == 0 || (c >= 3 && c <= 6) || c >= 11;
			fputs(numeric ? "<td class=\"num\">" : "<td>", o);
			if (c == 13 && v->text) /* the clock offset, stored in ns */
				fprintf(o, "%.1f", v->num / 1e3);
			else
				html_esc(o, v->text);
			fputs("</td>", o);
		}
		fputs("</tr>\n", o);
	}
	fputs("</table>\n", o);
	html_rows_release(&r);
}

/* ---- the page ---- */

static const char style[] =
	"body{font:14px/1.45 system-ui,-apple-system,'Segoe UI',sans-serif;color:#222;"
	"margin:24px auto;max-width:1160px;padding:0 16px}\n"
	"h1{font-size:22px;margin:0 0 12px}h2{font-size:17px;margin:28px 0 6px;"
	"border-bottom:1px solid #ddd;padding-bottom:3px}h3{font-size:15px;margin:18px 0 4px}\n"
	"table{border-collapse:collapse;margin:6px 0}th,td{padding:3px 8px;text-align:left;"
	"border-bottom:1px solid #e6e6e6;vertical-align:top}th{background:#f4f4f4}\n"
	"table.kv th{background:none;font-weight:600;padding-right:16px}\n"
	".num{text-align:right;font-variant-numeric:tabular-nums}.nw{white-space:nowrap}\n"
	"pre{background:#f6f6f6;padding:8px 10px;white-space:pre-wrap;word-break:break-all;"
	"margin:4px 0}\n"
	".note{color:#555;margin:4px 0 8px}.grid{display:flex;flex-wrap:wrap;gap:14px;"
	"align-items:flex-start}\n"
	"figure{margin:0;border:1px solid #eee;padding:4px}\n"
	".sw{display:inline-block;width:10px;height:10px;margin-right:6px}\n"
	"svg{max-width:100%;height:auto}svg text{font-family:system-ui,sans-serif;font-size:11px;"
	"fill:#333}\n"
	"svg .title{font-size:13px;font-weight:600}svg .tick{fill:#555}svg .axis{fill:#555}\n"
	"svg .label{font-family:ui-monospace,monospace;font-size:11px}svg .value{fill:#222}\n"
	"svg .fail{fill:#b00020}svg .grid{stroke:#e4e4e4}svg .whisker{stroke:#222;"
	"stroke-width:1.3}\n"
	"tr.pair td{color:#555}tr.fail td{color:#b00020}summary{cursor:pointer;color:#333}table.small td{font-size:12px}footer{color:#888;margin-top:28px;font-size:12px}\n"
	"tr.flag td{background:#fff3e0}tr.flag td:last-child{color:#b00020}\n";

int st_html_report(sqlite3 *db, const char *run, FILE *out, char *err, size_t n)
{
	struct html_page pg;
	if (html_page_load(&pg, db, run, err, n)) {
		html_page_release(&pg);
		return -1;
	}
	fputs("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
	      "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n" GENERATOR_MARK
	      "\n<title>"
	      "stcluster report ",
	      out);
	html_esc(out, run);
	fprintf(out, "</title>\n<style>\n%s</style>\n</head>\n<body>\n", style);
	section_run(out, &pg);
	section_best(out, &pg);
	section_bars(out, &pg);
	section_main_effects(out, &pg);
	section_interactions(out, &pg);
	section_sizes(out, &pg);
	section_meta(out, &pg);
	section_time_series(out, &pg);
	section_ranking(out, &pg);
	section_verdicts(out, &pg);
	section_wire(out, &pg);
	section_server(out, &pg);
	section_failures(out, &pg);
	section_hosts(out, &pg);
	fputs("<footer>Written by <code>stcluster report --html</code> from the store; MB/s = "
	      "10<sup>6</sup> bytes per second.</footer>\n</body>\n</html>\n",
	      out);
	html_page_release(&pg);
	return 0;
}

/* ---- where the page may be written ---- */

/* Whether the regular file at path is a page stcluster wrote: the mark is
 * in its first 4 KiB. */
static int is_our_page(const char *path)
{
	char head[4096];
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOFOLLOW);
	if (fd < 0)
		return 0;
	ssize_t got = read(fd, head, sizeof(head) - 1);
	close(fd);
	if (got <= 0)
		return 0;
	head[got] = '\0';
	return strstr(head, GENERATOR_MARK) != NULL;
}

/* Where `--html path` may write, or -1 after one line on stderr: never the
 * store (the same file, through any link), never a file that is not a
 * regular one, and an existing file only when stcluster wrote it or with
 * --force. The page goes to a temporary file beside the target (real:
 * the path with links followed), which then replaces it in one rename. */
static int html_target(const char *path, const char *db_path, int force, char *real, size_t n)
{
	struct stat st, dbst;
	if (stat(path, &st) != 0) {
		if (errno != ENOENT) {
			fprintf(stderr, "stcluster report: --html: cannot use '%s': %s\n", path,
				strerror(errno));
			return -1;
		}
		/* a dangling link would make a file where it points: write where it points */
		char link[4096];
		ssize_t l = readlink(path, link, sizeof(link) - 1);
		if (l >= 0) {
			fprintf(stderr, "stcluster report: --html: '%s' is a link to '%.*s', which does "
					"not exist\n",
				path, (int)l, link);
			return -1;
		}
		st_copy(real, n, path);
		return 0;
	}
	if (db_path && stat(db_path, &dbst) == 0 && st.st_dev == dbst.st_dev &&
	    st.st_ino == dbst.st_ino) {
		fprintf(stderr, "stcluster report: --html: '%s' is the store itself (%s); give another "
				"file\n",
			path, db_path);
		return -1;
	}
	if (!S_ISREG(st.st_mode)) {
		fprintf(stderr, "stcluster report: --html: '%s' is not a regular file\n", path);
		return -1;
	}
	char *r = realpath(path, NULL);
	if (!r || st_copy(real, n, r)) {
		fprintf(stderr, "stcluster report: --html: cannot resolve '%s'\n", path);
		free(r);
		return -1;
	}
	free(r);
	if (!force && !is_our_page(real)) {
		fprintf(stderr, "stcluster report: --html: '%s' exists and is not a page stcluster "
				"wrote (--force replaces it)\n",
			path);
		return -1;
	}
	return 0;
}

int st_html_report_file(sqlite3 *db, const char *want, const char *path, const char *db_path,
			int force)
{
	char run[64], err[ST_ERR_MAX], real[4096], tmp[4200];
	if (st_run_resolve(db, want, run, sizeof(run), err, sizeof(err))) {
		fprintf(stderr, "stcluster report: --run: %s\n", err);
		return 2;
	}
	if (strcmp(path, "-") == 0) {
		int rc = st_html_report(db, run, stdout, err, sizeof(err));
		if (rc)
			fprintf(stderr, "stcluster report: --html: %s\n", err);
		return rc ? 1 : 0; /* a write error: st_cli_run says so */
	}
	if (html_target(path, db_path, force, real, sizeof(real)))
		return 2;
	/* beside the target, so the rename stays on its file system */
	snprintf(tmp, sizeof(tmp), "%s.tmp-XXXXXX", real);
	int fd = mkstemp(tmp);
	if (fd < 0) {
		fprintf(stderr, "stcluster report: --html: cannot write beside '%s': %s\n", path,
			strerror(errno));
		return 2;
	}
	/* a page is for reading: the mode a new file gets (mkstemp makes 0600) */
	mode_t um = umask(0);
	umask(um);
	fchmod(fd, 0666 & ~um);
	FILE *out = fdopen(fd, "w");
	if (!out) {
		close(fd);
		unlink(tmp);
		fprintf(stderr, "stcluster report: --html: %s\n", strerror(errno));
		return 1;
	}
	int rc = st_html_report(db, run, out, err, sizeof(err));
	if (rc)
		fprintf(stderr, "stcluster report: --html: %s\n", err);
	int werr = ferror(out);
	if (fclose(out) || werr) {
		fprintf(stderr, "stcluster report: --html: writing '%s' failed: %s\n", path,
			strerror(errno ? errno : EIO));
		unlink(tmp);
		return 1;
	}
	if (rc) {
		unlink(tmp);
		return 1;
	}
	if (rename(tmp, real)) {
		fprintf(stderr, "stcluster report: --html: cannot replace '%s': %s\n", path,
			strerror(errno));
		unlink(tmp);
		return 1;
	}
	return 0;
}
