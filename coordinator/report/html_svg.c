/*
 * html_svg.c - the charts of the HTML page (see html_svg.h).
 *
 * Invariants: every text goes through html_esc(); a chart loads nothing
 * (no script, no link, no image URL); its geometry is computed here, with
 * one scale per chart, or the one its caller shares between charts.
 */
#include "html_svg.h"

#include "../../common/util.h"

#include <math.h>
#include <string.h>

const char *const html_phase_color[ST_PHASE_COUNT] = { "#4e79a7", "#76b7b2", "#f28e2b",
							"#b07aa1", "#59a14f", "#e15759" };
const char *const html_palette[HTML_NPALETTE] = { "#4e79a7", "#f28e2b", "#e15759", "#59a14f",
						  "#b07aa1", "#edc948", "#76b7b2", "#ff9da7",
						  "#9c755f", "#bab0ac" };

void html_esc(FILE *o, const char *s)
{
	for (; s && *s; s++) {
		switch (*s) {
		case '&': fputs("&amp;", o); break;
		case '<': fputs("&lt;", o); break;
		case '>': fputs("&gt;", o); break;
		case '"': fputs("&quot;", o); break;
		case '\'': fputs("&#39;", o); break;
		default: fputc(*s, o); break;
		}
	}
}

void html_nice_axis(double v, double *max, double *step)
{
	if (!(v > 0) || !isfinite(v))
		v = 1;
	double raw = v / 5, mag = pow(10, floor(log10(raw))), norm = raw / mag;
	*step = (norm <= 1 ? 1 : norm <= 2 ? 2 : norm <= 5 ? 5 : 10) * mag;
	*max = ceil(v / *step - 1e-9) * *step;
}

/* ---- axes ---- */

/* The plot area of a chart with a y axis from 0 to max: x0..x1, y0
 * (bottom) to y1 (top), and the width of one level's column. */
struct plot {
	int x0, x1, y0, y1;
	double max, cw;
};

/* The y of value v on the plot's axis. */
static double plot_y(const struct plot *pl, double v)
{
	return pl->y0 - (pl->y0 - pl->y1) * v / pl->max;
}

/* The x of the middle of level j's column. */
static double plot_x(const struct plot *pl, size_t j)
{
	return pl->x0 + pl->cw * (j + 0.5);
}

static void svg_open(FILE *o, int w, int h, const char *what)
{
	fprintf(o,
		"<svg xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 %d %d\" width=\"%d\" "
		"height=\"%d\" role=\"img\" aria-label=\"",
		w, h, w, h);
	html_esc(o, what);
	fputs("\">\n", o);
}

/* A y axis from 0 to max on [y0 (bottom), y1 (top)] between x0 and x1:
 * grid lines, tick labels and the axis title. */
static void y_axis(FILE *o, double max, double step, int x0, int x1, int y0, int y1,
		   const char *title)
{
	for (double v = 0; v <= max + step / 2; v += step) {
		double y = y0 - (y0 - y1) * v / max;
		fprintf(o,
			"<line x1=\"%d\" x2=\"%d\" y1=\"%.1f\" y2=\"%.1f\" class=\"grid\"/>"
			"<text x=\"%d\" y=\"%.1f\" class=\"tick\" text-anchor=\"end\">%.10g</text>\n",
			x0, x1, y, y, x0 - 4, y + 4, v);
	}
	/* the title runs up the axis, clear of the chart's own title lines */
	fprintf(o,
		"<text transform=\"translate(%d,%d) rotate(-90)\" class=\"axis\" "
		"text-anchor=\"middle\">",
		x0 - 34, (y0 + y1) / 2);
	html_esc(o, title);
	fputs("</text>\n", o);
}

/* The levels lv[0..nl) under the plot, one per column. */
static void level_ticks(FILE *o, const struct plot *pl, const char *lv[], size_t nl)
{
	for (size_t j = 0; j < nl; j++) {
		fprintf(o, "<text x=\"%.1f\" y=\"%d\" class=\"tick\" text-anchor=\"middle\">",
			plot_x(pl, j), pl->y0 + 16);
		html_esc(o, lv[j]);
		fputs("</text>\n", o);
	}
}

/* "name=level" of option opt, escaped. */
static void opt_level(FILE *o, int opt, const char *level)
{
	html_esc(o, st_options[opt].name);
	fputc('=', o);
	html_esc(o, level);
}

/* ---- the bars of one phase ---- */

/* Bar b's hover text after its label and phase, with its figures. */
static void bar_title(FILE *o, const struct html_bar *b)
{
	fprintf(o, "%.1f MB/s aggregate (mean of %d); per client %.1f to %.1f MB/s, %d clients",
		b->mbps, b->n, b->cmin, b->cmax, b->clients);
	if (!isnan(b->ccpu))
		fprintf(o, "; client CPU %.1f %% of a CPU per client, %.0f us/MB", b->ccpu, b->ccpm);
	if (!isnan(b->scpu))
		fprintf(o, "; server CPU %.1f %% of its CPUs, %.0f us/MB", b->scpu, b->scpm);
	if (b->verdict[0]) {
		fputs("; ", o);
		html_esc(o, b->verdict);
	}
}

/* Bar b at y, its whisker, its figure; x0..x1 spans 0..max. */
static void bar_shape(FILE *o, const struct html_bar *b, int p, int y, int bh, int x0, int x1,
		      double max)
{
	double xb = x0 + (x1 - x0) * b->mbps / max;
	fprintf(o, "</title><rect x=\"%d\" y=\"%d\" width=\"%.1f\" height=\"%d\" fill=\"%s\"/>", x0, y,
		xb - x0, bh, html_phase_color[p]);
	double xe = xb;
	if (!isnan(b->cmin) && !isnan(b->cmax) && b->clients > 0) {
		double wl = x0 + (x1 - x0) * b->clients * b->cmin / max;
		double wh = x0 + (x1 - x0) * b->clients * b->cmax / max;
		int cy = y + bh / 2;
		fprintf(o,
			"<line x1=\"%.1f\" x2=\"%.1f\" y1=\"%d\" y2=\"%d\" class=\"whisker\"/>"
			"<line x1=\"%.1f\" x2=\"%.1f\" y1=\"%d\" y2=\"%d\" class=\"whisker\"/>"
			"<line x1=\"%.1f\" x2=\"%.1f\" y1=\"%d\" y2=\"%d\" class=\"whisker\"/>",
			wl, wh, cy, cy, wl, wl, y + 2, y + bh - 2, wh, wh, y + 2, y + bh - 2);
		xe = wh > xe ? wh : xe;
	}
	fprintf(o, "<text x=\"%.1f\" y=\"%d\" class=\"value\">%.1f</text></g>\n", xe + 4, y + bh - 3,
		b->mbps);
}

void html_svg_phase_bars(FILE *o, const struct html_bar *const *v, size_t k, double max,
			 double step, int L)
{
	size_t shown = k < HTML_BARS_CHARTED ? k : HTML_BARS_CHARTED;
	const int W = 1100, bh = 14, gap = 3, top = 26, bottom = 28;
	const int x0 = L, x1 = W - 70;
	int H = top + bottom + (int)shown * (bh + gap);
	int p = v[0]->phase;
	char what[96];
	snprintf(what, sizeof(what), "aggregate MB/s of the %s phase per combination, best first",
		 st_phase_names[p]);
	svg_open(o, W, H, what);
	fprintf(o,
		"<line x1=\"%d\" x2=\"%d\" y1=\"12\" y2=\"12\" class=\"whisker\"/>"
		"<line x1=\"%d\" x2=\"%d\" y1=\"8\" y2=\"16\" class=\"whisker\"/>"
		"<line x1=\"%d\" x2=\"%d\" y1=\"8\" y2=\"16\" class=\"whisker\"/>"
		"<text x=\"%d\" y=\"16\">per-client spread &#215; clients</text>\n",
		x1 - 200, x1 - 170, x1 - 200, x1 - 200, x1 - 170, x1 - 170, x1 - 164);
	for (double t = 0; t <= max + step / 2; t += step) {
		double x = x0 + (x1 - x0) * t / max;
		fprintf(o,
			"<line x1=\"%.1f\" x2=\"%.1f\" y1=\"%d\" y2=\"%d\" class=\"grid\"/>"
			"<text x=\"%.1f\" y=\"%d\" class=\"tick\" text-anchor=\"middle\">%.10g</text>\n",
			x, x, top - 4, H - bottom + 4, x, H - bottom + 16, t);
	}
	fprintf(o, "<text x=\"%d\" y=\"%d\" class=\"axis\" text-anchor=\"end\">MB/s</text>\n", x1,
		H - 2);
	int y = top;
	for (size_t i = 0; i < shown; i++, y += bh + gap) {
		const struct html_bar *b = v[i];
		fprintf(o, "<text x=\"%d\" y=\"%d\" class=\"label\" text-anchor=\"end\">", x0 - 8,
			y + bh - 3);
		html_esc(o, b->label);
		fputs("</text>\n", o);
		fprintf(o, "<g class=\"bar\" data-phase=\"%s\" data-combo=\"%d\" data-mbps=\"",
			st_phase_names[p], b->combo);
		if (isnan(b->mbps))
			fputs("\"><title>", o);
		else
			fprintf(o, "%.17g\"><title>", b->mbps);
		html_esc(o, b->label);
		fprintf(o, ", %s: ", st_phase_names[p]);
		if (isnan(b->mbps)) {
			html_esc(o, b->verdict);
			fprintf(o,
				"</title><text x=\"%d\" y=\"%d\" class=\"fail\">no figure (errors)"
				"</text></g>\n",
				x0 + 4, y + bh - 3);
			continue;
		}
		bar_title(o, b);
		bar_shape(o, b, p, y, bh, x0, x1, max);
	}
	fputs("</svg>\n", o);
}

/* ---- main effects ---- */

/* Under the title: each phase's effect of option opt, a line each from
 * y 30 down. */
static void effect_legend(FILE *o, const struct html_page *pg, int opt)
{
	int ty = 30;
	for (int p = 0; p < ST_PHASE_COUNT; p++) {
		const struct html_eff *rows[HTML_MAXLEV];
		if (!html_main_rows(pg, opt, p, rows, HTML_MAXLEV))
			continue;
		fprintf(o,
			"<rect x=\"8\" y=\"%d\" width=\"9\" height=\"9\" fill=\"%s\"/>"
			"<text x=\"22\" y=\"%d\" class=\"tick\">%s: ",
			ty - 8, html_phase_color[p], ty, st_phase_names[p]);
		if (isnan(rows[0]->effect))
			fputs("one value only had figures</text>\n", o);
		else
			fprintf(o, "effect %.1f MB/s (%.0f %% of the mean)</text>\n", rows[0]->effect,
				rows[0]->effect_pct);
		ty += 13;
	}
}

/* Phase p's level means of option opt (rows[0..nr), in axis order): a
 * line, and a point per level with its whisker, shifted by dx px so that
 * the phases' points do not hide each other. */
static void effect_line(FILE *o, const struct plot *pl, int opt, int p,
			const struct html_eff *const *rows, size_t nr, const char *lv[], size_t nl,
			double dx)
{
	fprintf(o, "<polyline fill=\"none\" stroke=\"%s\" stroke-width=\"2\" points=\"",
		html_phase_color[p]);
	for (size_t r = 0; r < nr; r++)
		fprintf(o, "%.1f,%.1f ", plot_x(pl, html_level_pos(lv, nl, rows[r]->la)) + dx,
			plot_y(pl, rows[r]->mbps));
	fputs("\"/>\n", o);
	for (size_t r = 0; r < nr; r++) {
		double x = plot_x(pl, html_level_pos(lv, nl, rows[r]->la)) + dx,
		       y = plot_y(pl, rows[r]->mbps);
		if (!isnan(rows[r]->sd)) {
			double ya = plot_y(pl, rows[r]->mbps - rows[r]->sd);
			double yb = plot_y(pl, rows[r]->mbps + rows[r]->sd);
			ya = ya > pl->y0 ? pl->y0 : ya;
			fprintf(o,
				"<line x1=\"%.1f\" x2=\"%.1f\" y1=\"%.1f\" y2=\"%.1f\" "
				"stroke=\"%s\" stroke-opacity=\"0.6\"/>",
				x, x, ya, yb, html_phase_color[p]);
		}
		fprintf(o, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"3.5\" fill=\"%s\"><title>%s, ", x, y,
			html_phase_color[p], st_phase_names[p]);
		opt_level(o, opt, rows[r]->la);
		fprintf(o, ": %.1f MB/s (sd %.1f, n %d)</title></circle>\n", rows[r]->mbps,
			isnan(rows[r]->sd) ? 0.0 : rows[r]->sd, rows[r]->n);
	}
}

void html_svg_main_effect(FILE *o, const struct html_page *pg, int opt, const char *lv[], size_t nl,
			  double max, double step)
{
	int np = 0;
	for (int p = 0; p < ST_PHASE_COUNT; p++) {
		const struct html_eff *rows[HTML_MAXLEV];
		np += html_main_rows(pg, opt, p, rows, HTML_MAXLEV) > 0;
	}
	/* title, then one line per phase with its effect, then the plot */
	const int W = 350, y1 = 34 + 13 * np, H = y1 + 200;
	const struct plot pl = { .x0 = 52, .x1 = W - 12, .y0 = H - 40, .y1 = y1, .max = max,
				 .cw = (double)(W - 12 - 52) / nl };
	fputs("<figure>", o);
	svg_open(o, W, H, st_options[opt].name);
	fprintf(o, "<text x=\"8\" y=\"16\" class=\"title\">");
	html_esc(o, st_options[opt].name);
	fputs("</text>\n", o);
	y_axis(o, max, step, pl.x0, pl.x1, pl.y0, pl.y1, "MB/s");
	level_ticks(o, &pl, lv, nl);
	effect_legend(o, pg, opt);
	int pi = 0;
	for (int p = 0; p < ST_PHASE_COUNT; p++) {
		const struct html_eff *rows[HTML_MAXLEV];
		size_t nr = html_main_rows(pg, opt, p, rows, HTML_MAXLEV);
		if (!nr)
			continue;
		html_sort_by_level(rows, nr, lv, nl);
		effect_line(o, &pl, opt, p, rows, nr, lv, nl, (pi++ - (np - 1) / 2.0) * 5);
	}
	fputs("</svg></figure>\n", o);
}

/* ---- interactions ---- */

/* The cells of phase p's pair (a, b): the mean of each level of a (la) and
 * of b (lb) together, and the pair's interaction effect. */
struct cells {
	const char *la[HTML_MAXLEV], *lb[HTML_MAXLEV];
	size_t na, nb;
	double mbps[HTML_MAXLEV][HTML_MAXLEV];
	int have[HTML_MAXLEV][HTML_MAXLEV];
	double vmax, effect, effect_pct;
};

static void pair_cells(const struct html_page *pg, int p, int a, int b, struct cells *c)
{
	double ka[HTML_MAXLEV], kb[HTML_MAXLEV];
	memset(c->have, 0, sizeof(c->have));
	c->na = html_levels_of(pg, a, c->la, ka, HTML_MAXLEV);
	c->nb = html_levels_of(pg, b, c->lb, kb, HTML_MAXLEV);
	c->vmax = 0;
	c->effect = c->effect_pct = NAN;
	/* the rows of the pair, in table order (oa < ob) */
	for (size_t i = 0; i < pg->effs.n; i++) {
		const struct html_eff *e = HTML_AT(pg->effs, struct html_eff, i);
		if (!e->inter || e->phase != p ||
		    !((e->oa == a && e->ob == b) || (e->oa == b && e->ob == a)))
			continue;
		const char *va = e->oa == a ? e->la : e->lb, *vb = e->oa == a ? e->lb : e->la;
		size_t ia = html_level_pos(c->la, c->na, va), ib = html_level_pos(c->lb, c->nb, vb);
		if (ia >= c->na || ib >= c->nb)
			continue;
		c->mbps[ia][ib] = e->mbps;
		c->have[ia][ib] = 1;
		c->vmax = e->mbps > c->vmax ? e->mbps : c->vmax;
		c->effect = e->effect;
		c->effect_pct = e->effect_pct;
	}
}

/* Level k of b over the levels of a: its line, its points, its legend. */
static void pair_line(FILE *o, const struct plot *pl, int a, int b, const struct cells *c, size_t k)
{
	const char *col = html_palette[k % HTML_NPALETTE];
	fprintf(o, "<polyline fill=\"none\" stroke=\"%s\" stroke-width=\"2\" points=\"", col);
	for (size_t j = 0; j < c->na; j++)
		if (c->have[j][k])
			fprintf(o, "%.1f,%.1f ", plot_x(pl, j), plot_y(pl, c->mbps[j][k]));
	fputs("\"/>\n", o);
	for (size_t j = 0; j < c->na; j++)
		if (c->have[j][k]) {
			fprintf(o, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"3.5\" fill=\"%s\"><title>",
				plot_x(pl, j), plot_y(pl, c->mbps[j][k]), col);
			opt_level(o, a, c->la[j]);
			fputs(", ", o);
			opt_level(o, b, c->lb[k]);
			fprintf(o, ": %.1f MB/s</title></circle>\n", c->mbps[j][k]);
		}
	int ly = pl->y1 + 8 + 18 * (int)k;
	fprintf(o,
		"<line x1=\"%d\" x2=\"%d\" y1=\"%d\" y2=\"%d\" stroke=\"%s\" "
		"stroke-width=\"2\"/><text x=\"%d\" y=\"%d\">",
		pl->x1 + 14, pl->x1 + 34, ly, ly, col, pl->x1 + 40, ly + 4);
	opt_level(o, b, c->lb[k]);
	fputs("</text>\n", o);
}

void html_svg_interaction(FILE *o, const struct html_page *pg, int p, int a, int b)
{
	struct cells c;
	pair_cells(pg, p, a, b, &c);
	double max, step;
	html_nice_axis(c.vmax, &max, &step);
	const int W = 540, H = 310;
	const struct plot pl = { .x0 = 52, .x1 = W - 130, .y0 = H - 42, .y1 = 48, .max = max,
				 .cw = (double)(W - 130 - 52) / c.na };
	char what[256];
	snprintf(what, sizeof(what), "%s: %s and %s", st_phase_names[p], st_options[a].name,
		 st_options[b].name);
	fputs("<figure>", o);
	svg_open(o, W, H, what);
	fprintf(o, "<text x=\"8\" y=\"16\" class=\"title\">%s: ", st_phase_names[p]);
	html_esc(o, st_options[a].name);
	fputs(" &#215; ", o);
	html_esc(o, st_options[b].name);
	if (isnan(c.effect))
		fputs("</text><text x=\"8\" y=\"31\" class=\"tick\">one value of an option only "
		      "had figures: no interaction to measure</text>\n",
		      o);
	else
		fprintf(o, "</text><text x=\"8\" y=\"31\" class=\"tick\">interaction effect "
			   "%.1f MB/s (%.0f %% of the phase mean)</text>\n",
			c.effect, c.effect_pct);
	y_axis(o, max, step, pl.x0, pl.x1, pl.y0, pl.y1, "MB/s");
	level_ticks(o, &pl, c.la, c.na);
	fprintf(o, "<text x=\"%d\" y=\"%d\" class=\"axis\" text-anchor=\"middle\">",
		(pl.x0 + pl.x1) / 2, pl.y0 + 34);
	html_esc(o, st_options[a].name);
	fputs("</text>\n", o);
	for (size_t k = 0; k < c.nb; k++)
		pair_line(o, &pl, a, b, &c, k);
	fputs("</svg></figure>\n", o);
}

/* ---- throughput against size ---- */

/* A log2 x axis from key kmin to kmin * 2^lspan over x0 + 10 .. x1 - 10. */
struct logx {
	int x0, x1;
	double lmin, lspan;
};

static double log_x(const struct logx *lx, double key)
{
	return lx->x0 + 10 + (lx->x1 - lx->x0 - 20) * (log2(key) - lx->lmin) / lx->lspan;
}

/* Phase p's level means of option opt (rows[0..nr), in axis order): the
 * band from the lowest to the highest observation, the line, the points. */
static void size_series(FILE *o, const struct plot *pl, const struct logx *lx, int opt, int p,
			const struct html_eff *const *rows, size_t nr)
{
	/* band: along the maxima, back along the minima */
	fprintf(o, "<polygon fill=\"%s\" fill-opacity=\"0.15\" stroke=\"none\" points=\"",
		html_phase_color[p]);
	for (size_t r = 0; r < nr; r++)
		fprintf(o, "%.1f,%.1f ", log_x(lx, rows[r]->ka), plot_y(pl, rows[r]->hi));
	for (size_t r = nr; r-- > 0;)
		fprintf(o, "%.1f,%.1f ", log_x(lx, rows[r]->ka), plot_y(pl, rows[r]->lo));
	fprintf(o, "\"/>\n<polyline fill=\"none\" stroke=\"%s\" stroke-width=\"2\" points=\"",
		html_phase_color[p]);
	for (size_t r = 0; r < nr; r++)
		fprintf(o, "%.1f,%.1f ", log_x(lx, rows[r]->ka), plot_y(pl, rows[r]->mbps));
	fputs("\"/>\n", o);
	for (size_t r = 0; r < nr; r++) {
		fprintf(o, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"3.5\" fill=\"%s\"><title>%s, ",
			log_x(lx, rows[r]->ka), plot_y(pl, rows[r]->mbps), html_phase_color[p],
			st_phase_names[p]);
		opt_level(o, opt, rows[r]->la);
		fprintf(o, ": %.1f MB/s (%.1f to %.1f)</title></circle>\n", rows[r]->mbps, rows[r]->lo,
			rows[r]->hi);
	}
}

/* The phases with two sizes or more, as colour keys in a row at y 23. */
static void size_legend(FILE *o, const struct html_page *pg, int opt)
{
	int lx = 8;
	for (int p = 0; p < ST_PHASE_COUNT; p++) {
		const struct html_eff *rows[HTML_MAXLEV];
		if (html_main_rows(pg, opt, p, rows, HTML_MAXLEV) < 2)
			continue;
		fprintf(o,
			"<rect x=\"%d\" y=\"23\" width=\"9\" height=\"9\" fill=\"%s\"/>"
			"<text x=\"%d\" y=\"31\" class=\"tick\">%s</text>\n",
			lx, html_phase_color[p], lx + 13, st_phase_names[p]);
		lx += 24 + 7 * (int)strlen(st_phase_names[p]);
	}
}

void html_svg_size(FILE *o, const struct html_page *pg, int opt, const char *lv[],
		   const double key[], size_t nl)
{
	double kmin = key[0], kmax = key[0], vmax = 0;
	for (size_t j = 1; j < nl; j++) {
		kmin = key[j] < kmin ? key[j] : kmin;
		kmax = key[j] > kmax ? key[j] : kmax;
	}
	for (size_t i = 0; i < pg->effs.n; i++) {
		const struct html_eff *e = HTML_AT(pg->effs, struct html_eff, i);
		if (!e->inter && e->oa == opt && e->hi > vmax)
			vmax = e->hi;
	}
	if (!(kmax > kmin) || !(kmin > 0))
		return;
	double max, step;
	html_nice_axis(vmax, &max, &step);
	const int W = 540, H = 310;
	const struct plot pl = { .x0 = 56, .x1 = W - 24, .y0 = H - 44, .y1 = 48, .max = max };
	const struct logx lx = { .x0 = pl.x0, .x1 = pl.x1, .lmin = log2(kmin),
				 .lspan = log2(kmax) - log2(kmin) };
	char what[128];
	snprintf(what, sizeof(what), "aggregate MB/s against %s", st_options[opt].name);
	fputs("<figure>", o);
	svg_open(o, W, H, what);
	fputs("<text x=\"8\" y=\"16\" class=\"title\">", o);
	html_esc(o, what);
	fputs("</text>\n", o);
	size_legend(o, pg, opt);
	y_axis(o, max, step, pl.x0, pl.x1, pl.y0, pl.y1, "MB/s");
	for (size_t j = 0; j < nl; j++) {
		double x = log_x(&lx, key[j]);
		fprintf(o,
			"<line x1=\"%.1f\" x2=\"%.1f\" y1=\"%d\" y2=\"%d\" class=\"grid\"/>"
			"<text x=\"%.1f\" y=\"%d\" class=\"tick\" text-anchor=\"middle\">",
			x, x, pl.y0, pl.y1, x, pl.y0 + 16);
		html_esc(o, lv[j]);
		fputs("</text>\n", o);
	}
	fprintf(o, "<text x=\"%d\" y=\"%d\" class=\"axis\" text-anchor=\"middle\">",
		(pl.x0 + pl.x1) / 2, pl.y0 + 34);
	html_esc(o, st_options[opt].name);
	fputs(" (log scale)</text>\n", o);
	for (int p = 0; p < ST_PHASE_COUNT; p++) {
		const struct html_eff *rows[HTML_MAXLEV];
		size_t nr = html_main_rows(pg, opt, p, rows, HTML_MAXLEV);
		if (nr < 2)
			continue;
		html_sort_by_level(rows, nr, lv, nl);
		size_series(o, &pl, &lx, opt, p, rows, nr);
	}
	fputs("</svg></figure>\n", o);
}

/* ---- over time ---- */

/* The series of one rank (pts[i..j)): its line, then its stalls. */
static void series_line(FILE *o, const struct html_series *s, size_t i, size_t j, double tm,
			double vm, const struct plot *pl)
{
	const struct html_tpoint *p = HTML_AT(s->pts, struct html_tpoint, i);
	const char *unit = s->meta ? "operations/s" : "MB/s";
	const char *col = p->rank < 0 ? "#222" : html_palette[p->rank % (int)HTML_NPALETTE];
	fprintf(o, "<polyline fill=\"none\" stroke=\"%s\" stroke-width=\"%s\" points=\"", col,
		p->rank < 0 ? "2.2" : "1");
	for (size_t k = i; k < j; k++) {
		const struct html_tpoint *q = HTML_AT(s->pts, struct html_tpoint, k);
		if (!isnan(q->v))
			fprintf(o, "%.1f,%.1f ", pl->x0 + (pl->x1 - pl->x0) * (q->t0 + q->t1) / 2 / tm,
				pl->y0 - (pl->y0 - pl->y1) * q->v / vm);
	}
	fputs("\"/>\n", o);
	for (size_t k = i; k < j; k++) {
		const struct html_tpoint *q = HTML_AT(s->pts, struct html_tpoint, k);
		if (!q->stall || isnan(q->v))
			continue;
		fprintf(o, "<circle class=\"stall\" cx=\"%.1f\" cy=\"%.1f\" r=\"%s\" "
			   "fill=\"#d62728\"><title>stall: ",
			pl->x0 + (pl->x1 - pl->x0) * (q->t0 + q->t1) / 2 / tm,
			pl->y0 - (pl->y0 - pl->y1) * q->v / vm, p->rank < 0 ? "4" : "2.5");
		if (p->rank < 0)
			fputs("all clients", o);
		else
			fprintf(o, "rank %d", p->rank);
		fprintf(o, ", %.3g to %.3g s: %.4g %s</title></circle>\n", q->t0, q->t1, q->v, unit);
	}
}

/* Under the chart: which colour is which rank (up to 8 of them). */
static void series_caption(FILE *o, const struct html_series *s)
{
	fputs("</svg><figcaption class=\"note\">black: all clients", o);
	if (s->ranks > 1 && s->ranks <= 8)
		for (size_t i = 0; i < s->pts.n; i++) {
			const struct html_tpoint *p = HTML_AT(s->pts, struct html_tpoint, i);
			if (p->rank >= 0 &&
			    (i == 0 || HTML_AT(s->pts, struct html_tpoint, i - 1)->rank != p->rank))
				fprintf(o, ", <span class=\"sw\" style=\"background:%s\"></span>rank %d",
					html_palette[p->rank % (int)HTML_NPALETTE], p->rank);
		}
	fputs("</figcaption></figure>\n", o);
}

void html_svg_series(FILE *o, const struct html_series *s, const char *phase)
{
	const int W = 360, H = 190;
	const struct plot pl = { .x0 = 52, .x1 = W - 10, .y0 = H - 30, .y1 = 30 };
	const char *unit = s->meta ? "operations/s" : "MB/s";
	double vm, vs, tm, ts;
	html_nice_axis(s->vmax, &vm, &vs);
	html_nice_axis(s->tmax, &tm, &ts);
	char what[128];
	snprintf(what, sizeof(what), "%s over time: %s", phase, unit);
	fputs("<figure>", o);
	svg_open(o, W, H, what);
	fprintf(o, "<text x=\"%d\" y=\"16\" class=\"title\">", pl.x0);
	html_esc(o, phase);
	fprintf(o, "</text><text x=\"%d\" y=\"16\" class=\"tick\" text-anchor=\"end\">stalls: %d "
		   "of all, %d of a client</text>\n",
		pl.x1, s->all_stalls, s->stalls);
	y_axis(o, vm, vs, pl.x0, pl.x1, pl.y0, pl.y1, unit);
	for (double t = 0; t <= tm + ts / 2; t += ts)
		fprintf(o, "<text x=\"%.1f\" y=\"%d\" class=\"tick\" text-anchor=\"middle\">%.10g</text>\n",
			pl.x0 + (pl.x1 - pl.x0) * t / tm, pl.y0 + 14, t);
	fprintf(o, "<text x=\"%d\" y=\"%d\" class=\"axis\" text-anchor=\"end\">s</text>\n", pl.x1,
		H - 2);
	/* the clients' lines first, the aggregate's over them */
	for (int pass = 0; pass < 2; pass++)
		for (size_t i = 0; i < s->pts.n;) {
			int rank = HTML_AT(s->pts, struct html_tpoint, i)->rank;
			size_t j = i;
			while (j < s->pts.n && HTML_AT(s->pts, struct html_tpoint, j)->rank == rank)
				j++;
			if ((rank < 0) == (pass == 1))
				series_line(o, s, i, j, tm, vm, &pl);
			i = j;
		}
	series_caption(o, s);
}
