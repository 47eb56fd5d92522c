/* The null engine's response surface (common/surface.h): its text, the
 * factors that hold for a combination, the noise draws, its errors. */
#include "../../common/options.h"
#include "../../common/surface.h"
#include "unit.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static const char planted[] =
	"# a planted surface: rsize=1m best, sync flat, rsize x nconnect interact\n"
	"base 1ms\n"
	"factor rsize=64k 2.0     # 64k: twice the delay\n"
	"factor rsize=1m 0.5\n"
	"factor rsize=1m,nconnect=4 0.8\n"
	"noise 0.05\n"
	"seed 7\n";

static void combo_of(struct st_combo *c, const char *rsize, const char *nconnect, const char *sync)
{
	char err[ST_ERR_MAX];
	memset(c, 0, sizeof(*c));
	for (int i = 0; i < ST_OPT_COUNT; i++)
		c->v[i] = ST_UNSET;
	if (rsize)
		CHECK(st_opt_parse_value(ST_OPT_RSIZE, rsize, &c->v[ST_OPT_RSIZE], err, sizeof(err)) == 0);
	if (nconnect)
		CHECK(st_opt_parse_value(ST_OPT_NCONNECT, nconnect, &c->v[ST_OPT_NCONNECT], err,
					 sizeof(err)) == 0);
	if (sync)
		CHECK(st_opt_parse_value(ST_OPT_SYNC, sync, &c->v[ST_OPT_SYNC], err, sizeof(err)) == 0);
}

static void factors(void)
{
	struct st_surface s;
	char err[ST_ERR_MAX] = "";
	CHECK(st_surface_parse(planted, "p.txt", &s, err, sizeof(err)) == 0);
	CHECK(s.base_ns == 1000000 && s.nterms == 3 && s.seed == 7 && fabs(s.noise - 0.05) < 1e-12);
	struct st_combo c;
	combo_of(&c, "64k", "1", "sync");
	CHECK(fabs(st_surface_factor(&s, c.v) - 2.0) < 1e-12);
	combo_of(&c, "1m", "1", "async");
	CHECK(fabs(st_surface_factor(&s, c.v) - 0.5) < 1e-12);
	/* the interaction holds only where both keys do */
	combo_of(&c, "1m", "4", "sync");
	CHECK(fabs(st_surface_factor(&s, c.v) - 0.4) < 1e-12);
	combo_of(&c, "256k", "4", "sync");
	CHECK(fabs(st_surface_factor(&s, c.v) - 1.0) < 1e-12);
	/* a key whose option is not swept (unset) holds nowhere */
	combo_of(&c, NULL, "4", NULL);
	CHECK(fabs(st_surface_factor(&s, c.v) - 1.0) < 1e-12);
}

static void noise(void)
{
	struct st_surface s;
	char err[ST_ERR_MAX];
	CHECK(st_surface_parse(planted, "p.txt", &s, err, sizeof(err)) == 0);
	struct st_combo c;
	combo_of(&c, "1m", "1", "sync");
	double sum = 0, lo = 1, hi = -1;
	int differ = 0;
	for (uint32_t it = 0; it < 2000; it++) {
		c.iteration = it;
		double u = st_surface_draw(&s, &c, (int)(it % 3));
		CHECK(u >= -1 && u < 1);
		CHECK(u == st_surface_draw(&s, &c, (int)(it % 3))); /* a pure function */
		differ += u != st_surface_draw(&s, &c, (int)(it % 3) + 1);
		sum += u;
		lo = u < lo ? u : lo;
		hi = u > hi ? u : hi;
		int64_t d = st_surface_delay_ns(&s, &c, (int)(it % 3));
		CHECK(d >= 475000 && d <= 525000); /* 0.5 ms x (1 +- 0.05) */
	}
	/* uniform on [-1, 1]: mean 0 (sd of the mean 0.013), spread to the ends */
	CHECK(fabs(sum / 2000) < 0.06);
	CHECK(lo < -0.95 && hi > 0.95);
	CHECK(differ > 1990);
	/* another seed, other draws; no noise, the planted delay exactly */
	struct st_surface t = s;
	t.seed = 8;
	c.iteration = 0;
	CHECK(st_surface_draw(&t, &c, 0) != st_surface_draw(&s, &c, 0));
	t.noise = 0;
	CHECK(st_surface_delay_ns(&t, &c, 0) == 500000);
}

static void errors(void)
{
	static const struct {
		const char *text, *want;
	} cases[] = {
		{ "factor rsize=1m 0.5\n", "--null-surface: b.txt: no 'base DURATION' line" },
		{ "base 1ms\nfactor rsise=1m 0.5\n",
		  "--null-surface: b.txt:2: not a sweep option with one value (block, vers, rsize, "
		  "...): 'rsise'" },
		{ "base 1ms\nfactor rsize=1q 0.5\n",
		  "--null-surface: b.txt:2: --rsize: invalid size '1q'" },
		{ "base 1ms\nfactor vers=5 0.5\n", "--null-surface: b.txt:2: --vers: unknown value '5'" },
		{ "base 1ms\nfactor rsize=1m 0\n",
		  "--null-surface: b.txt:2: factor: a number above 0, not '0'" },
		{ "base 1ms\nfactor rsize=1m,rsize=64k 2\n",
		  "--null-surface: b.txt:2: a key given twice in one factor: 'rsize'" },
		{ "base 1ms\nfactor rsize 2\n",
		  "--null-surface: b.txt:2: a factor's keys are key=value, not 'rsize'" },
		{ "base 0\n", "--null-surface: b.txt:1: base: a duration above 0 up to 10s, not '0'" },
		{ "base 1ms\nnoise 1\n",
		  "--null-surface: b.txt:2: noise: a fraction from 0 to below 1, not '1'" },
		{ "base 1ms\n\n# c\nbase\n", "--null-surface: b.txt:4: expected 'base DURATION'" },
		{ "base 1ms\nfactor mount-opts=a 2\n", "not a sweep option with one value" },
		{ "base 1ms extra\n", "b.txt:1: expected" },
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct st_surface s;
		char err[ST_ERR_MAX] = "";
		CHECK(st_surface_parse(cases[i].text, "b.txt", &s, err, sizeof(err)) == -1);
		if (!strstr(err, cases[i].want))
			fprintf(stderr, "    case %zu: '%s'\n", i, err);
		CHECK(strstr(err, cases[i].want) != NULL);
		CHECK(!strchr(err, '\n'));
	}
	struct st_surface s;
	char err[ST_ERR_MAX] = "";
	CHECK(st_surface_load("/nonexistent/s.txt", &s, err, sizeof(err)) == -1);
	CHECK(strstr(err, "--null-surface: cannot read '/nonexistent/s.txt'") != NULL);
}

const struct unit_test unit_surface[] = {
	{ "surface: main effects and interactions multiply where their keys hold", factors },
	{ "surface: noise draws are seeded, uniform, within the stated fraction", noise },
	{ "surface: bad text is one line naming the file, the line and the value", errors },
	{ NULL, NULL },
};
