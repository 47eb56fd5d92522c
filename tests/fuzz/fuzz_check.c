/*
 * fuzz_check.c - the checks the fuzz targets share (see fuzz_check.h).
 */
#include "fuzz_check.h"

#include "../../common/data.h"
#include "../../worker/engine.h"
#include "../../worker/mount.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A matrix larger than this is not walked (a run refuses over 1000000). */
#define FUZZ_MAX_COMBOS 1000000u

_Noreturn void fuzz_fail(const char *file, int line, const char *what)
{
	fprintf(stderr, "%s:%d: FUZZ_CHECK(%s) failed\n", file, line, what);
	fflush(stderr);
	abort();
}

char *fuzz_string(const uint8_t *data, size_t size)
{
	const uint8_t *nul = memchr(data, 0, size);
	size_t len = nul ? (size_t)(nul - data) : size;
	char *s = malloc(len + 1);
	FUZZ_CHECK(s != NULL);
	memcpy(s, data, len);
	s[len] = '\0';
	return s;
}

void fuzz_check_err(const char *err, size_t n, const char *prefix)
{
	const char *nul = memchr(err, 0, n);
	FUZZ_CHECK(nul != NULL);
	if (n > 1)
		FUZZ_CHECK(err[0] != '\0');
	if (strchr(err, '\n'))
		fprintf(stderr, "error text: '%s'\n", err);
	FUZZ_CHECK(strchr(err, '\n') == NULL);
	if (prefix && n > strlen(prefix))
		FUZZ_CHECK(strncmp(err, prefix, strlen(prefix)) == 0);
}

static int is_list(const struct st_opt_def *d)
{
	return (d->flags & (ST_OF_SWEEP | ST_OF_LIST)) != 0;
}

static int choice_count(const struct st_opt_def *d)
{
	int k = 0;
	while (d->choices[k])
		k++;
	return k;
}

char *fuzz_dump(const struct st_config *cfg)
{
	char *dump = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&dump, &len);
	FUZZ_CHECK(f != NULL);
	st_config_dump(cfg, f);
	FUZZ_CHECK(fclose(f) == 0);
	FUZZ_CHECK(strlen(dump) == len);
	return dump;
}

void fuzz_check_config(const struct st_config *cfg)
{
	for (int i = 0; i < ST_OPT_COUNT; i++) {
		const struct st_opt_def *d = &st_options[i];
		const struct st_optval *ov = &cfg->o[i];
		FUZZ_CHECK(ov->n >= 0 && ov->n <= ST_MAX_VALUES);
		FUZZ_CHECK(ov->from_args == 0 || ov->from_args == 1);
		if (!is_list(d))
			FUZZ_CHECK(ov->n <= 1);
		if (!ov->n)
			continue;
		switch (d->type) {
		case ST_T_FLAG:
			FUZZ_CHECK(ov->v[0] == 1);
			break;
		case ST_T_STRING:
			if (!is_list(d)) {
				FUZZ_CHECK(memchr(ov->s, 0, sizeof(ov->s)) != NULL);
				FUZZ_CHECK(i == ST_OPT_LABEL || ov->s[0] != '\0');
				break;
			}
			for (int k = 0; k < ov->n; k++) {
				FUZZ_CHECK(ov->v[k] >= 0 && ov->v[k] < (int64_t)sizeof(ov->s));
				const char *e = ov->s + ov->v[k];
				FUZZ_CHECK(memchr(e, 0, sizeof(ov->s) - (size_t)ov->v[k]) != NULL);
				FUZZ_CHECK(*e != '\0');
				FUZZ_CHECK(strchr(e, d->sep ? d->sep : ',') == NULL);
				for (int j = 0; j < k; j++)
					FUZZ_CHECK(strcmp(st_optval_str(ov, j), e) != 0);
			}
			break;
		case ST_T_ENUM:
			for (int k = 0; k < ov->n; k++)
				FUZZ_CHECK(ov->v[k] >= 0 && ov->v[k] < choice_count(d));
			break;
		case ST_T_ERRNO:
			FUZZ_CHECK(ov->v[0] > 0 && ov->v[0] <= 4095);
			break;
		case ST_T_DATA:
			for (int k = 0; k < ov->n; k++)
				FUZZ_CHECK(st_data_valid(ov->v[k]));
			break;
		default: /* sizes, counts, durations */
			for (int k = 0; k < ov->n; k++) {
				int64_t v = ov->v[k];
				FUZZ_CHECK(v >= 0);
				if (d->max > d->min)
					FUZZ_CHECK(v >= d->min && v <= d->max);
				if (d->align)
					FUZZ_CHECK(v % d->align == 0);
			}
			break;
		}
		if (d->type != ST_T_STRING)
			for (int k = 0; k < ov->n; k++)
				for (int j = 0; j < k; j++)
					FUZZ_CHECK(ov->v[j] != ov->v[k]);
	}
}

/* Position of combo value v in option i's list; -1 when it is not there. */
static int value_pos(const struct st_config *cfg, int i, int64_t v)
{
	const struct st_optval *ov = &cfg->o[i];
	if (st_options[i].type == ST_T_STRING)
		return v >= 0 && v < ov->n ? (int)v : -1;
	for (int k = 0; k < ov->n; k++)
		if (ov->v[k] == v)
			return k;
	return -1;
}

/* --layout and --access given together are one digit of the matrix
 * (options.c: every access beside shared, none beside another layout):
 * the position of c's pair in it, or -1; *radix its size. */
static int layout_access_pos(const struct st_config *cfg, const struct st_combo *c,
			     uint64_t *radix)
{
	const struct st_optval *l = &cfg->o[ST_OPT_LAYOUT], *a = &cfg->o[ST_OPT_ACCESS];
	int pos = -1, at = 0;
	for (int k = 0; k < l->n; k++) {
		int shared = l->v[k] == ST_LAYOUT_SHARED;
		if (l->v[k] == c->v[ST_OPT_LAYOUT] && !shared && c->v[ST_OPT_ACCESS] == ST_UNSET)
			pos = at;
		for (int r = 0; l->v[k] == c->v[ST_OPT_LAYOUT] && shared && r < a->n; r++)
			if (a->v[r] == c->v[ST_OPT_ACCESS])
				pos = at + r;
		at += shared ? a->n : 1;
	}
	*radix = (uint64_t)at;
	return pos;
}

static void check_combo(const struct st_config *cfg, uint64_t index)
{
	struct st_combo c;
	st_plan_combo(cfg, index, &c);
	FUZZ_CHECK(c.version == ST_COMBO_VERSION);
	FUZZ_CHECK(c.index == index);
	/* the matrix index is mixed radix, the first sweep option slowest */
	uint64_t back = 0;
	int exact = 1; /* no value of a list replaced (only a refused plan does that) */
	for (int i = 0; i < ST_OPT_COUNT; i++) {
		if (!(st_options[i].flags & ST_OF_SWEEP)) {
			FUZZ_CHECK(c.v[i] == 0);
			continue;
		}
		/* a --set gives its options their values; rwsize is rsize and wsize */
		int64_t want, v;
		int derived = 0;
		if (c.v[ST_OPT_SET] != ST_UNSET && st_set_lookup(cfg, (int)c.v[ST_OPT_SET], i, &v)) {
			want = v;
			derived = 1;
		}
		if ((i == ST_OPT_RSIZE || i == ST_OPT_WSIZE) && c.v[ST_OPT_RWSIZE] != ST_UNSET) {
			want = c.v[ST_OPT_RWSIZE];
			derived = 1;
		}
		if (derived) {
			FUZZ_CHECK(c.v[i] == want);
			if (cfg->o[i].n)
				exact = 0;
			continue;
		}
		if (cfg->o[ST_OPT_LAYOUT].n && cfg->o[ST_OPT_ACCESS].n &&
		    (i == ST_OPT_LAYOUT || i == ST_OPT_ACCESS)) {
			uint64_t radix;
			if (i == ST_OPT_LAYOUT)
				continue; /* its digit is access's */
			int pos = layout_access_pos(cfg, &c, &radix);
			FUZZ_CHECK(pos >= 0);
			back = back * radix + (uint64_t)pos;
			continue;
		}
		if (!cfg->o[i].n) {
			FUZZ_CHECK(c.v[i] == ST_UNSET);
			continue;
		}
		int pos = value_pos(cfg, i, c.v[i]);
		FUZZ_CHECK(pos >= 0);
		back = back * (uint64_t)cfg->o[i].n + (uint64_t)pos;
	}
	FUZZ_CHECK(!exact || back == index);

	/* exactly sized buffers: ASan sees a write past them */
	size_t sizes[] = { 1, 17, 4096 };
	for (size_t k = 0; k < sizeof(sizes) / sizeof(sizes[0]); k++) {
		char *text = malloc(sizes[k]);
		FUZZ_CHECK(text != NULL);
		st_combo_text(cfg, &c, text, sizes[k]);
		FUZZ_CHECK(memchr(text, 0, sizes[k]) != NULL);
		FUZZ_CHECK(strchr(text, '\n') == NULL);

		/* the mount driver's -o text for it, or one line saying why not */
		int rc = st_mount_options(cfg, &c, text, sizes[k]);
		FUZZ_CHECK(rc == 0 || rc == -EINVAL || rc == -E2BIG);
		FUZZ_CHECK(memchr(text, 0, sizes[k]) != NULL);
		if (rc == -EINVAL)
			fuzz_check_err(text, sizes[k], "--");

		/* what an engine cannot run of it (a pure function), and why */
		for (int e = 0; st_engines[e]; e++) {
			if (!st_engines[e]->unsupported)
				continue;
			unsigned mask = st_engines[e]->unsupported(cfg, &c, text, sizes[k]);
			FUZZ_CHECK((mask & ~((1u << ST_PHASE_COUNT) - 1)) == 0);
			if (mask)
				fuzz_check_err(text, sizes[k], NULL);
		}
		free(text);
	}
}

/* Do a and b hold the same values of every option a plan can carry? */
static void check_same_plan(const struct st_config *a, const struct st_config *b,
			    const char *dump)
{
	for (int i = 0; i < ST_OPT_COUNT; i++) {
		const struct st_opt_def *d = &st_options[i];
		const struct st_optval *x = &a->o[i], *y = &b->o[i];
		if ((d->flags & ST_OF_NO_PLAN) || d->type == ST_T_FLAG)
			continue;
		int same = x->n == y->n;
		for (int k = 0; same && k < x->n; k++) {
			if (d->type != ST_T_STRING)
				same = x->v[k] == y->v[k];
			else if (is_list(d))
				same = strcmp(st_optval_str(x, k), st_optval_str(y, k)) == 0;
			else
				same = strcmp(x->s, y->s) == 0;
		}
		if (!same) {
			fprintf(stderr, "--%s does not survive the dump:\n%s", d->name, dump);
			fprintf(stderr, "  n %d -> %d", x->n, y->n);
			for (int k = 0; k < x->n && k < y->n && d->type != ST_T_STRING; k++)
				fprintf(stderr, ", %lld -> %lld", (long long)x->v[k], (long long)y->v[k]);
			if (d->type == ST_T_STRING && !is_list(d))
				fprintf(stderr, ", '%s' -> '%s'", x->s, y->s);
			fputc('\n', stderr);
		}
		FUZZ_CHECK(same);
	}
}

void fuzz_exercise_config(const struct st_config *cfg)
{
	char *err = malloc(ST_ERR_MAX);
	FUZZ_CHECK(err != NULL);
	/* what a run checks: the engine's choice adds to st_config_check's */
	int plain = st_config_check(cfg, err, ST_ERR_MAX) == 0;
	if (!plain)
		fuzz_check_err(err, ST_ERR_MAX, NULL);
	const struct st_engine *e = NULL;
	int ok = st_engine_choose(cfg, &e, err, ST_ERR_MAX) == 0;
	if (!ok)
		fuzz_check_err(err, ST_ERR_MAX, NULL);
	FUZZ_CHECK(!ok || (plain && e != NULL));

	uint64_t product = 1, combos = st_plan_combos(cfg);
	for (int i = 0; i < ST_OPT_COUNT && product <= 1000000000u; i++)
		if ((st_options[i].flags & ST_OF_SWEEP) && cfg->o[i].n)
			product *= (uint64_t)cfg->o[i].n;
	FUZZ_CHECK(combos == product);
	FUZZ_CHECK(combos >= 1);
	if (ok)
		FUZZ_CHECK(combos * (uint64_t)cfg->o[ST_OPT_ITERATIONS].v[0] <= 1000000u);
	if (combos <= FUZZ_MAX_COMBOS) {
		check_combo(cfg, 0);
		check_combo(cfg, combos / 2);
		check_combo(cfg, combos - 1);
	}
	(void)st_config_phases(cfg);

	/* the effective plan a run stores: --resume parses it again */
	char *dump = fuzz_dump(cfg);
	struct st_config *back = malloc(sizeof(*back));
	FUZZ_CHECK(back != NULL);
	st_config_defaults(back);
	if (st_config_parse_plan(back, dump, "dump", err, ST_ERR_MAX) != 0) {
		fprintf(stderr, "the dump does not parse: %s\n%s", err, dump);
		FUZZ_CHECK(!"the dumped plan parses");
	}
	check_same_plan(cfg, back, dump);
	free(back);
	free(dump);
	free(err);
}
