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

/* --dry-run: the plan of stages and what of it the budget buys. */
void st_search_print_plan(const struct st_config *cfg, FILE *out);

#endif
