/*
 * html_data.h - the data the HTML page shows (html.c assembles the page,
 * html_svg.c draws its charts; nothing else includes this): the figures of
 * each combination and phase, the main effects and interactions, each
 * phase's intervals over time, and the rows of the plain tables, each
 * loaded by one statement through query.h.
 *
 * Ownership: what a loader fills belongs to the caller, who releases it
 * (html_page_release, html_rows_release, html_vec_release); each accepts
 * what is empty or half filled. No loader keeps a statement open.
 */
#ifndef ST_HTML_DATA_H
#define ST_HTML_DATA_H

#include "../../common/options.h"
#include "json.h"

#include <sqlite3.h>
#include <stddef.h>
#include <stdint.h>

/* The phases whose figure is operations per second (SQL list). */
#define HTML_META_PHASES ST_SQL_META_PHASES

/* A growing array of fixed-size elements; { .size = sizeof(elem) } is empty. */
struct html_vec {
	char *p;
	size_t n, cap, size; /* elements, capacity, bytes per element */
};

/* A new zeroed element at the end; NULL when out of memory. */
void *html_vec_push(struct html_vec *v);
void html_vec_release(struct html_vec *v);

#define HTML_AT(v, type, i) ((type *)((v).p + (size_t)(i) * (v).size))

/* One combination and phase of the run: the bars, the tables of figures. */
struct html_bar {
	int combo;	       /* matrix index */
	int phase;	       /* enum st_phase; -1: the combination failed to prepare */
	char label[512];       /* the options that vary: "threads=2 block=4k" */
	double mbps;	       /* mean aggregate MB/s of the iterations without error; NAN: none */
	double sd;	       /* their standard deviation, MB/s; NAN with fewer than two */
	double cmin, cmax;     /* slowest and fastest client seen, MB/s */
	int clients;	       /* client ranks */
	int n, iters;	       /* iterations without error, iterations stored */
	double pct;	       /* % of the slower part measured alone; NAN: no baseline */
	char verdict[512];     /* bottleneck, error or failure text */
	double ccpu, ccpm;     /* client CPU: % of one CPU per client rank, us per MB (view phase_cpu) */
	double iocpm;	       /* of it, the I/O threads' own, us per MB; NAN: not stored */
	double scpu, scpm;     /* server hosts' CPUs busy: % of all, us per MB; NAN: no server rank */
};

/* One row of effects.sql: an option's level (main) or a pair's cell. */
struct html_eff {
	int phase;		   /* enum st_phase */
	int inter;		   /* 0: main effect row; 1: a cell of a pair */
	int oa, ob;		   /* option ids (ob: interactions only) */
	char la[128], lb[128];	   /* level text */
	double ka;		   /* level of oa as a number (sizes, counts); NAN for text */
	double mbps, sd, lo, hi;   /* mean, sd, min, max of the observations, MB/s */
	double effect, effect_pct; /* of the option or pair, MB/s and % of the phase mean */
	int n;			   /* observations */
};

/* The page of one run: what every section reads. */
struct html_page {
	sqlite3 *db;
	const char *run;	       /* a resolved run id */
	int vary[ST_OPT_COUNT];	       /* the options that take more than one value */
	struct html_vec bars;	       /* struct html_bar: by combination, then phase; failed last */
	struct html_vec effs;	       /* struct html_eff: by phase, main rows first (effects.sql) */
	int has_phase[ST_PHASE_COUNT]; /* a bar of this phase exists */
};

/* Load what the page of run `run` shows (the bars, failed combinations
 * among them, and the effects) into pg. 0, or -1 with err; either way
 * html_page_release(pg) frees it. */
int html_page_load(struct html_page *pg, sqlite3 *db, const char *run, char *err, size_t n);
void html_page_release(struct html_page *pg);

/* The enum st_phase of a name; -1 if none. */
int html_phase_index(const char *name);

/* ---- the effects, shaped for the charts ---- */

#define HTML_MAXLEV 64 /* levels of one option a chart draws */

/* The main-effect rows of option opt in phase (any: -1), in table order;
 * how many (at most max). */
size_t html_main_rows(const struct html_page *pg, int opt, int phase, const struct html_eff **out,
		      size_t max);

/* The levels of option opt that have figures in any phase, in order (of
 * their numbers, or of the option's choices), with their numbers (NAN for
 * text); how many (at most max). */
size_t html_levels_of(const struct html_page *pg, int opt, const char *lv[], double key[], size_t max);

/* The place of level l on the axis lv[0..n); n when it is not there. */
size_t html_level_pos(const char *lv[], size_t n, const char *l);

/* Put rows in the order of the axis lv (SQL sorted text levels by spelling). */
void html_sort_by_level(const struct html_eff **rows, size_t nr, const char *lv[], size_t nl);

/* The option with the largest main effect in phase p other than `not`; -1. */
int html_strongest(const struct html_page *pg, int p, int not);

/* ---- one phase of one combination over time ---- */

/* One point of a series over time: an interval. */
struct html_tpoint {
	int rank;	/* client rank; -1: the aggregate */
	double t0, t1;	/* seconds from the phase's first interval */
	double v;	/* MB/s, or operations/s; NAN: not drawn (a last sliver) */
	int stall;	/* the interval is a stall (views interval_rank, interval_summary) */
};

struct html_series {
	struct html_vec pts; /* struct html_tpoint: the aggregate's, then each rank's, in time */
	int meta;	     /* the phase counts operations, not bytes */
	double tmax, vmax;   /* the last interval's end, s; the highest figure drawn */
	int ranks;	     /* client ranks with a series */
	int stalls;	     /* stalls of a client */
	int all_stalls;	     /* stalls of all clients together */
};

/* The intervals of phase `phase` of combination combo_id `combo` into s
 * (zeroed first). 0, or -1 with err; html_vec_release(&s->pts) frees it. */
int html_series_load(sqlite3 *db, int64_t combo, const char *phase, struct html_series *s,
		     char *err, size_t n);

/* ---- the plain tables: rows of values, printed as they come ---- */

/* One value as SQLite gives it: its text (NULL for SQL NULL), and as a
 * number (NAN for NULL) and an integer (0 for NULL). */
struct html_cell {
	char *text;
	double num;
	int64_t i;
};

struct html_rows {
	size_t nrow, ncol, cap; /* rows, columns, rows allocated */
	struct html_cell *cell; /* nrow x ncol, row by row */
};

#define HTML_CELL(r, row, col) (&(r)->cell[(size_t)(row) * (r)->ncol + (size_t)(col)])

void html_rows_release(struct html_rows *r);

/*
 * The rows of each plain table of the page, by the statement of its
 * section (here, with the column order the section prints); each 0, or -1
 * with err and nothing loaded (a store an older stcluster wrote may lack
 * a view or a table: the section is then left out).
 */
int html_load_run(const struct html_page *pg, struct html_rows *r, char *err, size_t n);
int html_load_baselines(const struct html_page *pg, struct html_rows *r, char *err, size_t n);
int html_load_meta(const struct html_page *pg, struct html_rows *r, char *err, size_t n);
int html_load_wire(const struct html_page *pg, struct html_rows *r, char *err, size_t n);
int html_load_server(const struct html_page *pg, struct html_rows *r, char *err, size_t n);
int html_load_failures(const struct html_page *pg, struct html_rows *r, char *err, size_t n);
int html_load_hosts(const struct html_page *pg, struct html_rows *r, char *err, size_t n);
int html_load_timed(const struct html_page *pg, struct html_rows *r, char *err, size_t n);

#endif
