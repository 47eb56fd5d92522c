/*
 * search.h - the plan of `--search halving` (successive halving over the
 * matrix), pure arithmetic on the options: which stages, how many
 * combinations each keeps, how long and how often each is measured, which
 * seqs and iteration numbers they take, and what --budget allows.
 *
 * Stage 0 measures every combination once at 1/3^S of its length (--size,
 * --runtime and --files scaled, at least one block, 0.1 s, one file; the
 * size the nearest multiple of every --block of the matrix, the same for
 * every combination of the stage: a shorter phase of one block size and a
 * longer one of another are not ranked as alike); each
 * later stage keeps the best third (rounded up) of the one before, 3 times
 * longer, until at most 3 remain: the last stage S measures them at full
 * length in rounds, each finalist once a round: max(--iterations, 3)
 * rounds, then more, up to twice as many, while more than one finalist is
 * left that Welch's test has not found worse than the best (a race:
 * job/search.c). Iteration numbers go on across the
 * stages (a combination's stage-0 run is iteration 0, its next stage's
 * first is 1, ...), so no (matrix index, iteration) is measured twice.
 * Which combinations a stage keeps is job/search.c's, from the figures
 * stored: the plan here fixes only how many.
 */
#ifndef ST_SEARCH_H
#define ST_SEARCH_H

#include "options.h"

#include <stddef.h>
#include <stdint.h>

#define ST_SEARCH_ETA 3		   /* a stage keeps 1/ETA of the one before */
#define ST_SEARCH_FINAL_ITERATIONS 3 /* the last stage's repeats, at least */
#define ST_SEARCH_RACE 2		   /* ... and at most this many times that */
#define ST_SEARCH_RACE_MAX ST_SEARCH_ETA /* the last stage's finalists, at most */
#define ST_SEARCH_STAGES 24	   /* ceil(log3(2^32)) + 2 */

struct st_search_stage {
	uint64_t keep;		  /* combinations it measures */
	uint32_t iterations;	  /* runs of each (the last stage: before its race) */
	uint32_t max_iterations;  /* the last stage: the race's rounds at most */
	uint32_t first_iteration; /* combo.iteration of each one's first run */
	uint64_t seq0;		  /* combo.seq of the stage's first run: round r of
				   * finalist k is seq0 + r keep + k */
	uint64_t scale;		  /* its length is 1/scale of the full one */
};

struct st_search_plan {
	int nstages;
	struct st_search_stage stage[ST_SEARCH_STAGES];
	uint64_t runs;	      /* combination-runs of every stage (the race in full) */
	double full_runs;     /* the same counted in full-length runs */
	double min_full_runs; /* ... if the race ends after its first rounds */
	int64_t budget_runs;  /* --budget N; 0: none */
	int64_t budget_ns;    /* --budget DURATION; 0: none */
	int64_t spent_ns;     /* of it, what a resumed run's earlier parts took */
	int64_t size_unit;    /* a shortened --size is a multiple of it: the least
			       * common multiple of the matrix's --block values, so
			       * that every combination of a stage moves the same
			       * bytes (0: none below --size; each its own block) */
};

/* --budget's text: a plain number is N combination-runs (>= 1), a number
 * with a unit (s, m, h, ...) a wall time (> 0). 0, or -1 with one line in
 * err naming --budget and the value. */
int st_search_budget(const char *text, int64_t *runs, int64_t *ns, char *err, size_t n);

/* The checks of --search and --budget (options.c's st_config_check calls
 * it): --budget only with --search halving, a budget that parses, one that
 * lets stage 0 measure every combination once. 0, or -1 with err. */
int st_search_check(const struct st_config *cfg, char *err, size_t n);

/* The plan for cfg's matrix (a full sweep: one stage of every combination,
 * --iterations times, at full length). */
void st_search_plan(const struct st_config *cfg, struct st_search_plan *p);

/* Stage s's length applied to combination c: --size, --runtime and
 * --files divided by the stage's scale, within their floors; c->stage set. */
void st_search_scale(const struct st_search_plan *p, int s, struct st_combo *c);

#endif
