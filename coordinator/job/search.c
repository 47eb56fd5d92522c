/*
 * search.c - `--search halving`: every combination short, then the best
 * third again, longer, until at most 3 remain, measured at full length and
 * repeated (see search.h and common/search.h).
 */
#include "search.h"

#include "../../common/permute.h"
#include "../../common/units.h"
#include "../../common/util.h"
#include "../../common/wire.h"
#include "../store/store.h"
#include "combo.h"
#include "die.h"

#include <mpi.h>
#include <stdlib.h>
#include <string.h>

enum { RUN_IT, SKIP_IT, STOP };

/* Rank 0: the matrix indexes stage s measures into idx (*count of them):
 * stage 0 every one, a later stage the best of the stage before, as the
 * store ranks them. 0, or -1 after a message (the store failed). */
static int stage_members(struct job *j, const struct st_search_plan *p, int s, uint32_t *idx,
			 uint64_t *count)
{
	uint64_t keep = p->stage[s].keep;
	if (s == 0) {
		for (uint64_t i = 0; i < keep; i++)
			idx[i] = (uint32_t)i;
		*count = keep;
		return 0;
	}
	uint64_t prev = p->stage[s - 1].keep;
	struct st_stage_rank *r = calloc(prev, sizeof(*r));
	char err[ST_ERR_MAX];
	int64_t got = r ? st_store_stage_ranking(j->store, j->run_id, s - 1, r, prev, err,
						 sizeof(err))
			: -1;
	if (got < 0) {
		fprintf(stderr, "stcluster: --search halving: the ranking of stage %d: %s\n", s - 1,
			r ? err : "out of memory");
		free(r);
		return -1;
	}
	*count = 0;
	for (int64_t i = 0; i < got && *count < keep; i++)
		if (r[i].score > 0)
			idx[(*count)++] = r[i].index;
	if (!j->quiet) {
		printf("stage %d of %d: the best %llu of stage %d's %lld (%.1f .. %.1f), %u run%s "
		       "each at 1/%llu of the length\n",
		       s, p->nstages - 1, (unsigned long long)*count, s - 1, (long long)got,
		       got ? r[0].score : 0.0, *count ? r[*count - 1].score : 0.0,
		       p->stage[s].iterations, p->stage[s].iterations > 1 ? "s" : "",
		       (unsigned long long)p->stage[s].scale);
		fflush(stdout);
	}
	free(r);
	return 0;
}

/* Rank 0: has the budget been spent, by `done` runs of the whole run, in
 * stage s? Stage 0 runs whole (without it there is no answer at all). */
static int budget_spent(const struct job *j, const struct st_search_plan *p, int s, uint64_t done)
{
	if (s == 0)
		return 0;
	return (p->budget_runs && done >= (uint64_t)p->budget_runs) ||
	       (p->budget_ns && st_now_ns() - j->run_start_ns >= p->budget_ns);
}

/* Rank 0: what to do with run k of stage s (its combination into *c). */
static int next_run(struct job *j, const struct st_search_plan *p, int s, const uint32_t *idx,
		    uint64_t count, uint64_t item, uint64_t seq, const unsigned char *stored,
		    uint64_t *done, struct st_combo *c)
{
	const struct st_search_stage *st = &p->stage[s];
	uint64_t pos = item / st->iterations;
	if ((stored && stored[seq]) || pos >= count)
		return SKIP_IT;
	if (budget_spent(j, p, s, *done))
		return STOP;
	st_plan_combo(&j->cfg, idx[pos], c);
	st_search_scale(p, s, c);
	c->seq = (uint32_t)seq;
	c->iteration = st->first_iteration + (uint32_t)(item % st->iterations);
	(*done)++;
	return RUN_IT;
}

/* Every rank: the runs of stage s, in order or shuffled by --shuffle SEED
 * (the stage's own order, the same again when resuming). 1: stop (the
 * budget is spent, a store write failed). */
static int run_stage(struct job *j, const struct st_search_plan *p, int s, const uint32_t *idx,
		     uint64_t count, const unsigned char *stored, uint64_t *done)
{
	const struct st_search_stage *st = &p->stage[s];
	uint64_t runs = st->keep * st->iterations;
	struct st_permute order;
	int shuffled = j->cfg.o[ST_OPT_SHUFFLE].n > 0;
	if (shuffled)
		st_permute_init(&order, runs, (uint64_t)j->cfg.o[ST_OPT_SHUFFLE].v[0] + (uint64_t)s);
	for (uint64_t k = 0; k < runs; k++) {
		struct st_combo c;
		uint64_t item = shuffled ? st_permute_next(&order) : k;
		int action = j->rank == 0 ? next_run(j, p, s, idx, count, item, st->seq0 + k, stored,
						     done, &c)
					  : RUN_IT;
		MPI_Bcast(&action, 1, MPI_INT, 0, MPI_COMM_WORLD);
		if (action == SKIP_IT)
			continue;
		if (action == STOP)
			return 1;
		MPI_Bcast(&c, (int)sizeof(c), MPI_BYTE, 0, MPI_COMM_WORLD);
		st_wire_expect(0, "a combination", c.version, ST_COMBO_VERSION);
		st_combo_run(j, &c, p->runs);
		MPI_Bcast(&j->store_failed, 1, MPI_INT, 0, MPI_COMM_WORLD);
		if (j->store_failed)
			return 1;
	}
	return 0;
}

void st_search_sweep(struct job *j, const struct st_search_plan *p, const unsigned char *stored)
{
	uint64_t done = 0, count = 0;
	uint32_t *idx = NULL;
	j->run_start_ns = st_now_ns();
	if (j->rank == 0) {
		for (uint64_t seq = 0; seq < p->runs; seq++)
			done += stored && stored[seq];
		j->combos_todo = p->runs - done;
		if (!(idx = calloc(p->stage[0].keep, sizeof(*idx))))
			st_die("out of memory");
	}
	for (int s = 0; s < p->nstages; s++) {
		int stop = j->rank == 0 && stage_members(j, p, s, idx, &count);
		if (stop)
			j->store_failed = 1;
		MPI_Bcast(&stop, 1, MPI_INT, 0, MPI_COMM_WORLD);
		if (stop || run_stage(j, p, s, idx, count, stored, &done)) {
			if (j->rank == 0 && !j->store_failed && !j->quiet)
				printf("--budget %s spent in stage %d of %d, after %llu combination-runs\n",
				       j->cfg.o[ST_OPT_BUDGET].s, s, p->nstages - 1,
				       (unsigned long long)done);
			break;
		}
	}
	free(idx);
}

void st_search_print_plan(const struct st_config *cfg, FILE *out)
{
	struct st_search_plan plan, *p = &plan;
	st_search_plan(cfg, p);
	fprintf(out, "--search halving over %llu combinations, %d stage%s (each keeps the best "
		     "1/%d of the one before):\n",
		(unsigned long long)p->stage[0].keep, p->nstages, p->nstages > 1 ? "s" : "",
		ST_SEARCH_ETA);
	uint64_t stop_runs = 0;
	int stop_stage = -1;
	for (int s = 0; s < p->nstages; s++) {
		const struct st_search_stage *st = &p->stage[s];
		fprintf(out, "  stage %d: %llu combination%s x %u run%s at ", s,
			(unsigned long long)st->keep, st->keep > 1 ? "s" : "", st->iterations,
			st->iterations > 1 ? "s" : "");
		if (st->scale > 1)
			fprintf(out, "1/%llu of the length\n", (unsigned long long)st->scale);
		else
			fprintf(out, "full length\n");
		uint64_t runs = st->keep * st->iterations;
		if (p->budget_runs && stop_stage < 0 && st->seq0 + runs > (uint64_t)p->budget_runs) {
			stop_stage = s;
			stop_runs = (uint64_t)p->budget_runs;
		}
	}
	uint64_t full = p->stage[0].keep * (uint64_t)cfg->o[ST_OPT_ITERATIONS].v[0];
	fprintf(out, "%llu combination-runs, %.1f full-length runs' worth (a full sweep: %llu, "
		     "%.0f %%)\n",
		(unsigned long long)p->runs, p->full_runs, (unsigned long long)full,
		full ? 100.0 * p->full_runs / (double)full : 0.0);
	if (stop_stage >= 0)
		fprintf(out, "--budget %s: stops in stage %d, after %llu combination-runs\n",
			cfg->o[ST_OPT_BUDGET].s, stop_stage, (unsigned long long)stop_runs);
	else if (p->budget_runs)
		fprintf(out, "--budget %s: covers the plan (%llu runs)\n", cfg->o[ST_OPT_BUDGET].s,
			(unsigned long long)p->runs);
	else if (p->budget_ns)
		fprintf(out, "--budget %s: the plan as above, stopped when that much wall time has "
			     "passed\n",
			cfg->o[ST_OPT_BUDGET].s);
}
