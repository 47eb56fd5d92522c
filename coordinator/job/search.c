/*
 * search.c - `--search halving`: every combination short, then the best
 * third again, longer, until at most 3 remain, measured at full length and
 * repeated (see search.h and common/search.h).
 */
#include "search.h"

#include "../../common/permute.h"
#include "../../common/stats.h"
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
 * store ranks them; said unless quiet or !say. 0, or -1 after a message
 * (the store failed). */
static int stage_members(struct job *j, const struct st_search_plan *p, int s, uint32_t *idx,
			 uint64_t *count, int say)
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
	if (say && !j->quiet) {
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
	       (p->budget_ns && st_now_ns() - j->run_start_ns + p->spent_ns >= p->budget_ns);
}

/* The last stage's race, on rank 0: which finalists are still in it. */
struct race {
	unsigned char alive[ST_SEARCH_RACE_MAX];
	uint64_t left;
};

/* Rank 0, before round `round` of the last stage s (from its iterations-th
 * on): Welch's test of each finalist still in the race against the best
 * mean, over their runs of this stage so far (as stored: a resume decides
 * again the same); one worse at 95 % (its interval of the difference above
 * 0), or with a run that went badly, leaves the race. 0, or -1 after a
 * message (the store failed). */
static int race_round(struct job *j, const struct st_search_plan *p, int s, const uint32_t *idx,
		      uint64_t count, uint32_t round, struct race *r)
{
	const struct st_search_stage *st = &p->stage[s];
	uint64_t max = count * st->max_iterations;
	struct st_stage_run *runs = calloc(max ? max : 1, sizeof(*runs));
	double *x = calloc(st->max_iterations, sizeof(*x));
	char err[ST_ERR_MAX];
	int64_t got = runs && x ? st_store_stage_runs(j->store, j->run_id, s,
						      st->first_iteration + round, runs, max, err,
						      sizeof(err))
				: -1;
	if (got < 0) {
		fprintf(stderr, "stcluster: --search halving: the race of stage %d: %s\n", s,
			runs && x ? err : "out of memory");
		free(runs);
		free(x);
		return -1;
	}
	double mean[ST_SEARCH_RACE_MAX], sd[ST_SEARCH_RACE_MAX];
	int n[ST_SEARCH_RACE_MAX], bad[ST_SEARCH_RACE_MAX];
	int64_t lead = -1;
	for (uint64_t k = 0; k < count; k++) {
		n[k] = bad[k] = 0;
		for (int64_t i = 0; i < got; i++)
			if (runs[i].index == idx[k] && n[k] < (int)st->max_iterations) {
				bad[k] |= runs[i].figure < 0;
				x[n[k]++] = runs[i].figure;
			}
		st_moments(x, n[k], &mean[k], &sd[k]);
		if (r->alive[k] && !bad[k] && (lead < 0 || mean[k] > mean[lead]))
			lead = (int64_t)k;
	}
	for (uint64_t k = 0; lead >= 0 && k < count; k++) {
		struct st_welch w;
		if (!r->alive[k] || (int64_t)k == lead)
			continue;
		if (bad[k] || (!st_welch_test(mean[k], sd[k], n[k], mean[lead], sd[lead], n[lead],
					       &w) && w.lo > 0)) {
			r->alive[k] = 0;
			r->left--;
		}
	}
	free(runs);
	free(x);
	return 0;
}

/* Rank 0: what to do with run `item` of stage s (its combination into *c):
 * round item / count, finalist item % count. */
static int next_run(struct job *j, const struct st_search_plan *p, int s, const uint32_t *idx,
		    uint64_t count, uint64_t item, uint64_t seq, const unsigned char *stored,
		    const struct race *r, uint64_t *done, struct st_combo *c)
{
	const struct st_search_stage *st = &p->stage[s];
	uint64_t pos = item % st->keep;
	if ((stored && stored[seq]) || pos >= count || (pos < ST_SEARCH_RACE_MAX && !r->alive[pos]) ||
	    (item >= st->iterations * st->keep && r->left < 2))
		return SKIP_IT;
	if (budget_spent(j, p, s, *done))
		return STOP;
	st_plan_combo(&j->cfg, idx[pos], c);
	st_search_scale(p, s, c);
	c->seq = (uint32_t)seq;
	c->iteration = st->first_iteration + (uint32_t)(item / st->keep);
	(*done)++;
	return RUN_IT;
}

/* Rank 0, at the start of round `round` of stage s: the race's next step
 * (the last stage, from its iterations-th round), or the rounds end. -1:
 * the store failed. */
static int round_start(struct job *j, const struct st_search_plan *p, int s, const uint32_t *idx,
		       uint64_t count, uint32_t round, struct race *r)
{
	const struct st_search_stage *st = &p->stage[s];
	if (round == 0) {
		memset(r, 0, sizeof(*r));
		for (uint64_t k = 0; k < count && k < ST_SEARCH_RACE_MAX; k++)
			r->alive[k] = 1;
		r->left = count;
		return 0;
	}
	if (round < st->iterations || r->left < 2)
		return 0;
	uint64_t before = r->left;
	if (race_round(j, p, s, idx, count, round, r))
		return -1;
	if (!j->quiet && (r->left < before || r->left < 2 || round + 1 == st->max_iterations)) {
		printf("stage %d, round %u: %llu of %llu finalists still in the race%s\n", s, round,
		       (unsigned long long)r->left, (unsigned long long)count,
		       r->left < 2 ? ", which ends" : "");
		fflush(stdout);
	}
	return 0;
}

/* Every rank: the runs of stage s, round by round (each finalist once a
 * round), in order or shuffled by --shuffle SEED (each round's own order,
 * the same again when resuming). 1: stop (the budget is spent, a store
 * write failed). */
static int run_stage(struct job *j, const struct st_search_plan *p, int s, const uint32_t *idx,
		     uint64_t count, const unsigned char *stored, uint64_t *done)
{
	const struct st_search_stage *st = &p->stage[s];
	uint64_t runs = st->keep * st->max_iterations;
	struct st_permute order;
	struct race r;
	int shuffled = j->cfg.o[ST_OPT_SHUFFLE].n > 0;
	for (uint64_t k = 0; k < runs; k++) {
		struct st_combo c;
		uint32_t round = (uint32_t)(k / st->keep);
		if (k % st->keep == 0 && shuffled)
			st_permute_init(&order, st->keep, (uint64_t)j->cfg.o[ST_OPT_SHUFFLE].v[0] +
								  (uint64_t)s + ((uint64_t)round << 32));
		if (k % st->keep == 0 && j->rank == 0 && round_start(j, p, s, idx, count, round, &r))
			j->store_failed = 1;
		uint64_t item = round * st->keep + (shuffled ? st_permute_next(&order) : k % st->keep);
		int action = j->store_failed ? STOP
			   : j->rank == 0 ? next_run(j, p, s, idx, count, item, st->seq0 + k, stored,
						     &r, done, &c)
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

/* The stage of p whose runs take seq (-1: none). */
static int stage_of(const struct st_search_plan *p, uint64_t seq)
{
	for (int s = 0; s < p->nstages; s++)
		if (seq >= p->stage[s].seq0 &&
		    seq < p->stage[s].seq0 + p->stage[s].keep * p->stage[s].max_iterations)
			return s;
	return -1;
}

static int has_index(const uint32_t *idx, uint64_t count, uint32_t index)
{
	for (uint64_t k = 0; k < count; k++)
		if (idx[k] == index)
			return 1;
	return 0;
}

int st_search_check_resume(struct job *j, const struct st_search_plan *p, char *err, size_t n)
{
	if (j->cfg.o[ST_OPT_SEARCH].v[0] != ST_SEARCH_HALVING)
		return 0;
	struct st_staged *row = calloc(p->runs + 1, sizeof(*row));
	uint32_t *idx = calloc(p->stage[0].keep, sizeof(*idx));
	if (!row || !idx)
		st_die("out of memory");
	/* one more than the plan has: a seq past its end is seen */
	char version[64];
	int64_t got = st_store_staged(j->store, j->run_id, row, p->runs + 1, version,
				      sizeof(version), err, n);
	int rc = got < 0 ? ST_EXIT_ABORTED : ST_EXIT_OK, members_of = 0;
	uint64_t count = 0;
	for (int64_t i = 0; rc == ST_EXIT_OK && i < got; i++) {
		const struct st_staged *r = &row[i];
		int s = stage_of(p, r->seq);
		const struct st_search_stage *st = &p->stage[s < 0 ? 0 : s];
		uint32_t it = st->first_iteration + (uint32_t)((r->seq - st->seq0) / st->keep);
		if (s > 0 && s != members_of) {
			/* the members it chooses again from the stage before, as stored */
			if (stage_members(j, p, s, idx, &count, 0)) {
				snprintf(err, n, "--resume: the stored stages of run %s could not be read",
					 j->run_id);
				rc = ST_EXIT_ABORTED;
				break;
			}
			members_of = s;
		}
		struct st_combo c = { .v[ST_OPT_SIZE] = r->size };
		int member = r->index < p->stage[0].keep && (s == 0 || has_index(idx, count, r->index));
		if (member) {
			st_plan_combo(&j->cfg, r->index, &c);
			st_search_scale(p, s < 0 ? 0 : s, &c);
		}
		if (s >= 0 && r->stage == s && r->iteration == it && member &&
		    c.v[ST_OPT_SIZE] == r->size)
			continue;
		char want[128] = "no stage of its plan";
		if (s >= 0)
			snprintf(want, sizeof(want), "stage %d, iteration %u%s", s, it,
				 !member			? ", another combination"
				 : c.v[ST_OPT_SIZE] != r->size ? ", another --size"
								: "");
		snprintf(err, n,
			 "--resume: run %s was begun by stcluster %s, whose --search halving planned "
			 "otherwise: its seq %llu is stage %d, iteration %u (combination %u), where "
			 "this build's has %s; resume it with the build that began it, or start a "
			 "new run",
			 j->run_id, version[0] ? version : "(unknown)", (unsigned long long)r->seq,
			 r->stage, r->iteration, r->index, want);
		rc = ST_EXIT_BAD_INPUT;
	}
	free(row);
	free(idx);
	return rc;
}

/* Rank 0, resuming a run with a wall-time budget: what its earlier parts
 * spent of it, as stored (each stored combination's own wall time), into
 * p->spent_ns. -1 after a message (the store failed). */
static int budget_before(struct job *j, struct st_search_plan *p)
{
	char err[ST_ERR_MAX];
	if (st_store_run_spent(j->store, j->run_id, &p->spent_ns, err, sizeof(err))) {
		fprintf(stderr, "stcluster: --search halving: the time the run spent: %s\n", err);
		return -1;
	}
	if (!j->quiet) {
		printf("--budget %s: %.1f s of it spent before this resume (its stored combinations), "
		       "%.1f s left\n",
		       j->cfg.o[ST_OPT_BUDGET].s, (double)p->spent_ns / 1e9,
		       p->spent_ns < p->budget_ns ? (double)(p->budget_ns - p->spent_ns) / 1e9 : 0.0);
		fflush(stdout);
	}
	return 0;
}

void st_search_sweep(struct job *j, const struct st_search_plan *plan, const unsigned char *stored)
{
	uint64_t done = 0, count = 0;
	uint32_t *idx = NULL;
	struct st_search_plan resumed = *plan, *p = &resumed;
	j->run_start_ns = st_now_ns();
	if (j->rank == 0 && stored && p->budget_ns && budget_before(j, p))
		j->store_failed = 1;
	if (j->rank == 0) {
		for (uint64_t seq = 0; seq < p->runs; seq++)
			done += stored && stored[seq];
		j->combos_todo = p->runs - done;
		if (!(idx = calloc(p->stage[0].keep, sizeof(*idx))))
			st_die("out of memory");
	}
	for (int s = 0; s < p->nstages; s++) {
		int stop = j->rank == 0 && stage_members(j, p, s, idx, &count, 1);
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
		fprintf(out, "  stage %d: %llu combination%s x ", s, (unsigned long long)st->keep,
			st->keep > 1 ? "s" : "");
		if (st->max_iterations > st->iterations)
			fprintf(out, "%u to %u runs (a race: the runs past %u only while Welch's test "
				     "has not found the others worse than the best) at ",
				st->iterations, st->max_iterations, st->iterations);
		else
			fprintf(out, "%u run%s at ", st->iterations, st->iterations > 1 ? "s" : "");
		if (st->scale > 1)
			fprintf(out, "1/%llu of the length\n", (unsigned long long)st->scale);
		else
			fprintf(out, "full length\n");
		uint64_t runs = st->keep * st->max_iterations;
		if (p->budget_runs && stop_stage < 0 && st->seq0 + runs > (uint64_t)p->budget_runs) {
			stop_stage = s;
			stop_runs = (uint64_t)p->budget_runs;
		}
	}
	uint64_t full = p->stage[0].keep * (uint64_t)cfg->o[ST_OPT_ITERATIONS].v[0];
	fprintf(out, "%llu combination-runs at most, %.1f to %.1f full-length runs' worth (a full "
		     "sweep: %llu, %.0f to %.0f %%)\n",
		(unsigned long long)p->runs, p->min_full_runs, p->full_runs,
		(unsigned long long)full, full ? 100.0 * p->min_full_runs / (double)full : 0.0,
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
