/*
 * search.c - the plan of --search halving (search.h).
 */
#include "search.h"

#include "units.h"

#include <stdio.h>
#include <string.h>

#define SEC 1000000000LL

int st_search_budget(const char *text, int64_t *runs, int64_t *ns, char *err, size_t n)
{
	const char *why = NULL;
	int digits = text[0] != '\0';
	for (const char *p = text; *p; p++)
		digits &= *p >= '0' && *p <= '9';
	*runs = *ns = 0;
	if (digits && !st_parse_count(text, runs, &why) && *runs > 0)
		return 0;
	if (!digits && !st_parse_duration(text, SEC, ns, &why) && *ns > 0)
		return 0;
	*runs = *ns = 0;
	snprintf(err, n,
		 "--budget: invalid value '%s' (a wall time with its unit, as 20m or 1h, or a "
		 "number of combination-runs, at least 1)",
		 text);
	return -1;
}

int st_search_check(const struct st_config *cfg, char *err, size_t n)
{
	int halving = cfg->o[ST_OPT_SEARCH].v[0] == ST_SEARCH_HALVING;
	const struct st_optval *b = &cfg->o[ST_OPT_BUDGET];
	if (b->n && !halving) {
		snprintf(err, n, "--budget: '%s' is the budget of --search halving (this run is "
				 "--search full: every combination is measured)",
			 b->s);
		return -1;
	}
	if (!halving)
		return 0;
	struct st_search_plan p;
	st_search_plan(cfg, &p);
	if (b->n && st_search_budget(b->s, &p.budget_runs, &p.budget_ns, err, n))
		return -1;
	if (p.budget_runs && (uint64_t)p.budget_runs < p.stage[0].keep) {
		snprintf(err, n,
			 "--budget: %s combination-runs is less than stage 0 needs: it measures "
			 "each of the %llu combinations once",
			 b->s, (unsigned long long)p.stage[0].keep);
		return -1;
	}
	return 0;
}

static int64_t gcd(int64_t a, int64_t b)
{
	while (b) {
		int64_t t = a % b;
		a = b;
		b = t;
	}
	return a;
}

/* The least common multiple of the matrix's blocks (0: past any --size; a
 * combination whose --size is not above it keeps its own block's). */
static int64_t size_unit(const struct st_config *cfg)
{
	const struct st_optval *b = &cfg->o[ST_OPT_BLOCK];
	int64_t unit = 1;
	for (int i = 0; i < b->n && unit && b->v[i] > 0; i++) {
		unit = unit / gcd(unit, b->v[i]);
		unit = unit > (1LL << 50) / b->v[i] ? 0 : unit * b->v[i];
	}
	return unit;
}

void st_search_plan(const struct st_config *cfg, struct st_search_plan *p)
{
	memset(p, 0, sizeof(*p));
	uint64_t combos = st_plan_combos(cfg);
	uint32_t it = (uint32_t)cfg->o[ST_OPT_ITERATIONS].v[0];
	if (cfg->o[ST_OPT_SEARCH].v[0] != ST_SEARCH_HALVING) {
		p->nstages = 1;
		p->stage[0] = (struct st_search_stage){ .keep = combos, .iterations = it,
							.max_iterations = it, .scale = 1 };
		p->runs = combos * it;
		p->full_runs = p->min_full_runs = (double)p->runs;
		return;
	}
	p->size_unit = size_unit(cfg);
	uint64_t keep = combos;
	p->stage[p->nstages++].keep = keep;
	while (keep > ST_SEARCH_ETA && p->nstages < ST_SEARCH_STAGES) {
		keep = (keep + ST_SEARCH_ETA - 1) / ST_SEARCH_ETA;
		p->stage[p->nstages++].keep = keep;
	}
	uint64_t scale = 1, seq = 0;
	uint32_t first = 0;
	for (int s = p->nstages - 1; s > 0; s--) {
		p->stage[s].scale = scale;
		scale *= ST_SEARCH_ETA;
	}
	p->stage[0].scale = scale;
	for (int s = 0; s < p->nstages; s++) {
		struct st_search_stage *st = &p->stage[s];
		st->iterations = s + 1 < p->nstages ? 1
			       : it > ST_SEARCH_FINAL_ITERATIONS ? it
								  : ST_SEARCH_FINAL_ITERATIONS;
		st->max_iterations = s + 1 < p->nstages ? 1 : ST_SEARCH_RACE * st->iterations;
		st->first_iteration = first;
		st->seq0 = seq;
		first += st->max_iterations;
		seq += st->keep * st->max_iterations;
		p->full_runs += (double)(st->keep * st->max_iterations) / (double)st->scale;
		p->min_full_runs += (double)(st->keep * st->iterations) / (double)st->scale;
	}
	p->runs = seq;
	if (cfg->o[ST_OPT_BUDGET].n) {
		char err[ST_ERR_MAX];
		st_search_budget(cfg->o[ST_OPT_BUDGET].s, &p->budget_runs, &p->budget_ns, err,
				 sizeof(err));
	}
}

void st_search_scale(const struct st_search_plan *p, int s, struct st_combo *c)
{
	int64_t k = (int64_t)p->stage[s].scale;
	c->stage = s;
	if (k <= 1)
		return;
	int64_t block = c->v[ST_OPT_BLOCK] > 0 ? c->v[ST_OPT_BLOCK] : 1;
	int64_t *size = &c->v[ST_OPT_SIZE];
	int64_t unit = p->size_unit > 0 && p->size_unit % block == 0 ? p->size_unit : block;
	if (*size != ST_UNSET && *size > unit) {
		/* the nearest multiple of unit: never above the whole (k >= 3) */
		*size = (*size / k + unit / 2) / unit * unit;
		if (*size < unit)
			*size = unit;
	}
	int64_t *rt = &c->v[ST_OPT_RUNTIME];
	if (*rt != ST_UNSET && *rt > 0)
		*rt = *rt / k < SEC / 10 ? SEC / 10 : *rt / k;
	int64_t *files = &c->v[ST_OPT_FILES];
	if (*files != ST_UNSET && *files > 1)
		*files = *files / k < 1 ? 1 : *files / k;
}
