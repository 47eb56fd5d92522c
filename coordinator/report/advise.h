/*
 * advise.h - `stcluster advise`: the settings to use, per phase, out of one
 * run's figures, with how sure that is.
 *
 * advise.c loads a run (its combinations' figures per phase and iteration,
 * the plan it stored) and decides; advise_print.c prints what it decided as
 * a table, markdown or JSON, with the line to paste (a mount command, an
 * nfs:// URL, the stcluster options).
 *
 * Every decision is Welch's t-test over the iterations (stats.h), against
 * the best combination, with the other options held at the best's values:
 *   - an alternative value of an option is "within noise" when the 95 %
 *     interval of its difference from the best lies inside +-ST_ADV_MARGIN
 *     of the best; else "worse" when p < 0.05 / (the comparisons made in
 *     the phase) (Bonferroni); else "undecided";
 *   - an option "does not matter" when every alternative is within noise,
 *     "matters" when one is worse;
 *   - two options interact when the log-scale interaction contrast of the
 *     four cells (a, b), (a', b), (a, b'), (a', b') differs from 0 at
 *     p < 0.05 / (the tests made in the phase) (Bonferroni).
 * With one iteration nothing is decided: the noise is unknown. The next run
 * it names adds --shuffle when the run had none: iterations back to back
 * share a burst of load on the machine, which a seeded order spreads over
 * the combinations (a burst made sync "matter" on a planted flat surface).
 */
#ifndef ST_ADVISE_H
#define ST_ADVISE_H

#include "../../common/options.h"
#include "../../common/stats.h"

#include <sqlite3.h>
#include <stdio.h>

#define ST_ADV_MARGIN 0.10 /* "within noise": the difference's interval within +-10 % */
#define ST_ADV_INTER 16	   /* interactions kept per phase */
#define ST_ADV_TEXT 512	   /* an option value's text (one --mount-opts of a list) */

/* One combination of a phase: its iterations' figures. */
struct st_adv_cell {
	int64_t index;		 /* combo.matrix_index */
	int64_t v[ST_OPT_COUNT]; /* option values, as st_combo.v; ST_UNSET */
	int n;			 /* iterations without error */
	double mean, m2;	 /* of the figure (Welford) */
	double pct_limit;	 /* % of the slower part measured alone, mean of the
				    iterations'; NAN */
	int npct;		 /* iterations with it */
	char verdict[256];	 /* the bottleneck verdict, "" none */
};

enum st_adv_class { ST_ADV_WORSE, ST_ADV_SAME, ST_ADV_OPEN }; /* an alternative value */
enum st_adv_kind { ST_ADV_MATTERS, ST_ADV_FLAT, ST_ADV_UNDECIDED, ST_ADV_UNPAIRED };

/* An alternative value of an option, against the best. */
struct st_adv_alt {
	int64_t v;
	int n;
	double mean;
	double pct, lo_pct, hi_pct; /* (alt - best) / best and its 95 % interval, % */
	double p;		    /* Welch's two-sided p; NAN with fewer than 2 iterations */
	enum st_adv_class cls;
};

struct st_adv_option {
	int id;
	enum st_adv_kind kind;
	int nalt;
	struct st_adv_alt alt[ST_MAX_VALUES];
};

/* Option a's change from a2 to the best's a gains gain_best (%) where b is
 * the best's, gain_other where b is b2. */
struct st_adv_inter {
	int a, b;
	int64_t a2, b2;
	double gain_best, gain_other, p;
};

struct st_adv_phase {
	char phase[16];
	int ops;	   /* the figure is ops/s (metadata), else MB/s */
	int ncell;
	struct st_adv_cell *cell;
	int best;	   /* index into cell */
	double ci;	   /* 95 % half width of the best's mean; NAN */
	int ref;	   /* the reference combination, -1 none */
	int ref_defaults;  /* it is the defaults (else the median combination) */
	int ref_ok;	   /* vs holds Welch's test of best against ref */
	struct st_welch vs;
	int nopt;
	struct st_adv_option opt[ST_OPT_COUNT];
	int ninter;
	struct st_adv_inter inter[ST_ADV_INTER];
	int ntests;	   /* interaction tests made */
	int ncomparisons;  /* alternative values compared with the best */
	int next_iters;	   /* iterations the next run needs, 0: nothing undecided */
	int64_t next_combos;
	char next_run[1024]; /* its options ("--rsize 256k,1m --iterations 6") */
};

struct st_adv {
	char run[64];
	char title[256];
	struct st_config *cfg; /* the run's stored plan */
	int vary[ST_OPT_COUNT];
	int nvary;
	int nphase;
	struct st_adv_phase ph[ST_PHASE_COUNT];
	int stage; /* --search halving: its last stage measured, the only one read; -1: a sweep */
};

/* Load run `run` (resolved) and decide: phase NULL all; where: a translated
 * --where condition over combo's columns, or NULL. 0, or -1 with err. */
int st_advise_load(sqlite3 *db, const char *run, const char *phase, const char *where,
		   struct st_adv *a, char *err, size_t n);
void st_advise_free(struct st_adv *a);

/* Sample standard deviation of a cell; NAN below 2 iterations. */
double st_adv_sd(const struct st_adv_cell *c);

/* Text of option id's value v ("1m", "async"; "-" unset). */
void st_adv_value(const struct st_adv *a, int id, int64_t v, char *buf, size_t n);
/* Is option id of cell c one that another of its options gives: rsize and
 * wsize where --rwsize is set (both are its value)? Named by that one. */
int st_adv_implied(const struct st_adv_cell *c, int id);

/* advise_print.c: the whole answer, in format f (table, markdown, json). */
int st_advise_print(const struct st_adv *a, int json, int markdown, FILE *out);

/* The line to paste for phase p's best (a mount command, the libnfs URL
 * with stcluster's options, or the options). */
void st_advise_line(const struct st_adv *a, const struct st_adv_phase *p, char *buf, size_t n);

#endif
