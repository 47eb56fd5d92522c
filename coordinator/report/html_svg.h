/*
 * html_svg.h - the charts of the HTML page, as inline SVG (html.c places
 * them; nothing else includes this), and what the page's text and its
 * charts share: the escaping of every text, the colours.
 *
 * Each chart is drawn from data already loaded (html_data.h), with its
 * geometry computed here; a chart that shares a scale with others is given
 * it. Nothing here reads the store.
 */
#ifndef ST_HTML_SVG_H
#define ST_HTML_SVG_H

#include "html_data.h"

#include <stddef.h>
#include <stdio.h>

/* A colour per phase (enum st_phase), and a palette for series and ranks:
 * distinct, and readable on white and in print. */
extern const char *const html_phase_color[ST_PHASE_COUNT];
extern const char *const html_palette[];
#define HTML_NPALETTE 10

/* HTML text and attribute values: & < > " ' escaped; NULL prints nothing.
 * Every text that comes from the store or the user goes through it. */
void html_esc(FILE *o, const char *s);

/* A round axis maximum (1, 2 or 5 times a power of ten per step) >= v. */
void html_nice_axis(double v, double *max, double *step);

/* Bars charted per phase; every combination is in the phase's table below
 * its chart. At 500 combinations one chart of every bar was 9000 px tall
 * and unsorted: the best setting is what a reader looks for first. */
#define HTML_BARS_CHARTED 20

/* One phase's combinations v[0..k), best first: horizontal bars on the
 * axis [0, max] (ticks every step), whiskers from clients x slowest to
 * clients x fastest client; L: the width of the labels, px. */
void html_svg_phase_bars(FILE *o, const struct html_bar *const *v, size_t k, double max,
			 double step, int L);

/* The main effect of option opt (its levels lv[0..nl)): one line per phase
 * through its level means, on the axis [0, max], in a figure. */
void html_svg_main_effect(FILE *o, const struct html_page *pg, int opt, const char *lv[], size_t nl,
			  double max, double step);

/* Phase p's interaction of options a and b: one line per level of b over
 * the levels of a, in a figure. */
void html_svg_interaction(FILE *o, const struct html_page *pg, int p, int a, int b);

/* Throughput against the swept size opt (its levels lv, key: in bytes), on
 * a log2 axis, in a figure; nothing when the sizes span no range. */
void html_svg_size(FILE *o, const struct html_page *pg, int opt, const char *lv[],
		   const double key[], size_t nl);

/* One phase of one combination over time: each client's line, the
 * aggregate's thicker one, stalls as red marks, in a figure. */
void html_svg_series(FILE *o, const struct html_series *s, const char *phase);

#endif
