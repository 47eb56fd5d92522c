/*
 * search.h - `--search halving`: the sweep in stages (common/search.h has
 * the plan). Rank 0 decides which combinations each stage measures, from
 * the figures the store holds of the stage before; every rank follows it
 * through the same broadcast of each combination as a full sweep. A
 * resumed run derives the same decisions from the same stored figures and
 * skips the seqs already stored.
 */
#ifndef ST_JOB_SEARCH_H
#define ST_JOB_SEARCH_H

#include "../../common/search.h"
#include "state.h"

#include <stdio.h>

/* Every rank: the stages of p in order, until the plan or --budget is
 * spent or a store write fails. stored: rank 0, resuming (seq stored). */
void st_search_sweep(struct job *j, const struct st_search_plan *p, const unsigned char *stored);

/* Rank 0, before a resumed run is changed: is each combination it stored
 * where this build's plan p puts it (the stage and iteration of its seq; a
 * later stage's combination one that stage chooses again from the stored
 * figures)? A run begun by a build whose search plans otherwise would be
 * resumed wrongly (each seq skipped as done, another combination's runs
 * missing). 0 (also for a full sweep), 2 (err: what differs) or 3 (err:
 * the store failed). */
int st_search_check_resume(struct job *j, const struct st_search_plan *p, char *err, size_t n);

/* --dry-run: the plan of stages and what of it the budget buys. */
void st_search_print_plan(const struct st_config *cfg, FILE *out);

#endif
