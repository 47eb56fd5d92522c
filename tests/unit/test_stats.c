/* Statistics: the incomplete beta and t distribution against closed forms and
 * textbook tables, Welch's test against worked examples. */
#include "../../coordinator/report/analysis.h"
#include "../../common/stats.h"
#include "../../coordinator/report/where.h"
#include "unit.h"

#include <math.h>
#include <string.h>

#define NEAR(got, want, tol)                                                                \
	do {                                                                                \
		double g_ = (got), w_ = (want);                                             \
		if (!(fabs(g_ - w_) <= (tol))) {                                            \
			fprintf(stderr, "    %s:%d: %s = %.12g, want %.12g (+-%g)\n", __FILE__, \
				__LINE__, #got, g_, w_, (double)(tol));                     \
			unit_failures++;                                                    \
		}                                                                           \
	} while (0)

static void betai_closed_forms(void)
{
	/* I_x(1,1) = x; I_x(a,1) = x^a; I_x(1,b) = 1 - (1-x)^b; I_.5(a,a) = 1/2 */
	for (double x = 0.05; x < 1; x += 0.1) {
		NEAR(st_betai(1, 1, x), x, 1e-12);
		NEAR(st_betai(3.5, 1, x), pow(x, 3.5), 1e-12);
		NEAR(st_betai(1, 7, x), 1 - pow(1 - x, 7), 1e-12);
	}
	for (double a = 0.5; a < 200; a *= 3)
		NEAR(st_betai(a, a, 0.5), 0.5, 1e-12);
	/* symmetry I_x(a,b) = 1 - I_{1-x}(b,a), across the switch point */
	NEAR(st_betai(2.5, 0.5, 0.9) + st_betai(0.5, 2.5, 0.1), 1.0, 1e-12);
	CHECK(st_betai(1, 1, 0) == 0 && st_betai(1, 1, 1) == 1);
	CHECK(isnan(st_betai(0, 1, 0.5)) && isnan(st_betai(1, 1, 1.5)));
}

static void t_cdf_closed_forms(void)
{
	/* df = 1 is Cauchy: 1/2 + atan(t)/pi; df = 2: 1/2 + t / (2 sqrt(2 + t^2)) */
	for (double t = -20; t <= 20; t += 0.7) {
		NEAR(st_t_cdf(t, 1), 0.5 + atan(t) / M_PI, 1e-12);
		NEAR(st_t_cdf(t, 2), 0.5 + t / (2 * sqrt(2 + t * t)), 1e-12);
	}
	/* many degrees of freedom: the normal distribution (t's excess at
	 * df = 1e6 is ~1.4e-7; lgamma of huge arguments costs digits beyond) */
	NEAR(st_t_cdf(1.959963984540054, 1e6), 0.975, 1e-6);
	NEAR(st_t_p2(0, 5), 1.0, 1e-15);
	CHECK(st_t_p2(INFINITY, 5) == 0);
	CHECK(isnan(st_t_cdf(1, 0)));
}

static void t_quantiles_match_tables(void)
{
	/* two-sided 95 % critical values, as every statistics textbook prints
	 * them (3 decimals) */
	static const struct {
		double df, t;
	} table[] = { { 1, 12.706 }, { 2, 4.303 }, { 3, 3.182 }, { 4, 2.776 }, { 5, 2.571 },
		      { 10, 2.228 }, { 20, 2.086 }, { 30, 2.042 }, { 60, 2.000 }, { 120, 1.980 } };
	for (size_t i = 0; i < sizeof(table) / sizeof(table[0]); i++) {
		NEAR(st_t_quantile(0.975, table[i].df), table[i].t, 0.0005);
		NEAR(st_t_quantile(0.025, table[i].df), -table[i].t, 0.0005);
		NEAR(st_t_cdf(st_t_quantile(0.975, table[i].df), table[i].df), 0.975, 1e-10);
	}
	/* one-sided 99 %, df = 7: 2.998 */
	NEAR(st_t_quantile(0.99, 7), 2.998, 0.0005);
	NEAR(st_t_quantile(0.5, 3), 0.0, 1e-15);
	CHECK(isnan(st_t_quantile(1, 3)) && isnan(st_t_quantile(0.5, -1)));
}

static void moments_and_ci(void)
{
	double x[] = { 1, 2, 3, 4, 5 }, m, sd;
	st_moments(x, 5, &m, &sd);
	NEAR(m, 3, 1e-15);
	NEAR(sd, sqrt(2.5), 1e-15);
	/* 95 % CI of the mean: t(0.975, 4) sd / sqrt(5) = 2.776445 * 0.707107 */
	NEAR(st_ci95(sd, 5), 2.7764451052 * sqrt(2.5) / sqrt(5), 1e-8);
	st_moments(x, 1, &m, &sd);
	CHECK(m == 1 && isnan(sd));
	/* a large offset with a small spread: the two-pass sum keeps the digits */
	double y[] = { 1e9 + 1, 1e9 + 2, 1e9 + 3 };
	st_moments(y, 3, &m, &sd);
	NEAR(sd, 1.0, 1e-6);
	CHECK(isnan(st_ci95(1, 1)));
}

static void welch_worked_examples(void)
{
	struct st_welch w;
	/* A = {1..5} (mean 3, var 2.5), B = {3,5,7,9,11} (mean 7, var 10):
	 * se^2 = 2.5/5 + 10/5 = 2.5, t = 4 / sqrt(2.5) = 2.529822,
	 * df = 2.5^2 / (0.5^2/4 + 2^2/4) = 6.25 / 1.0625 = 5.882353;
	 * p = 0.04546 (the t density integrated numerically): just under 5 % */
	CHECK(st_welch_test(3, sqrt(2.5), 5, 7, sqrt(10), 5, &w) == 0);
	NEAR(w.diff, 4, 1e-12);
	NEAR(w.t, 4 / sqrt(2.5), 1e-12);
	NEAR(w.df, 6.25 / 1.0625, 1e-12);
	NEAR(w.p, 0.045464619, 1e-8);
	CHECK(w.p < 0.05 && w.lo > 0 && w.hi > w.lo);
	/* the CI excludes 0 exactly when p < 0.05 */
	NEAR(w.lo, 4 - st_t_quantile(0.975, w.df) * sqrt(2.5), 1e-12);
	/* The two samples of Wikipedia's "Welch's t-test" example 1
	 * (A1: mean 20.82, sd 2.8049; A2: mean 22.9867, sd 1.9526; n = 15 each):
	 * t = -2.46, df = 24.99, p = 0.0214 */
	double a1[] = { 27.5, 21.0, 19.0, 23.6, 17.0, 17.9, 16.9, 20.1,
			21.9, 22.6, 23.1, 19.6, 19.0, 21.7, 21.4 };
	double a2[] = { 27.1, 22.0, 20.8, 23.4, 23.4, 23.5, 25.8, 22.0,
			24.8, 20.2, 21.9, 22.1, 22.9, 20.5, 24.4 };
	double m1, s1, m2, s2;
	st_moments(a1, 15, &m1, &s1);
	st_moments(a2, 15, &m2, &s2);
	CHECK(st_welch_test(m2, s2, 15, m1, s1, 15, &w) == 0);
	NEAR(w.t, -2.4553564, 1e-6);
	NEAR(w.df, 24.9885293, 1e-6);
	NEAR(w.p, 0.021378, 1e-5);
	/* the same figures with more spread: not significant at 95 % */
	CHECK(st_welch_test(m2, 3 * s2, 15, m1, 3 * s1, 15, &w) == 0 && w.p > 0.05);
	/* constant samples: equal means are no difference, unequal ones certain */
	CHECK(st_welch_test(5, 0, 3, 5, 0, 3, &w) == 0 && w.p == 1);
	CHECK(st_welch_test(5, 0, 3, 6, 0, 3, &w) == 0 && w.p == 0 && w.t > 0);
	/* fewer than two values: no test */
	CHECK(st_welch_test(5, NAN, 1, 6, 1, 3, &w) == -1);
}

static void where_translation(void)
{
	static const struct {
		const char *in, *out;
	} cases[] = {
		{ "rsize=1m AND sync='async'", "rsize=1048576 AND sync='async'" },
		{ "rsize = '1m' or block in (4k, 64k)", "rsize = 1048576 or block in (4096, 65536)" },
		{ "sync=async", "sync='async'" },
		{ "vers = 4.1 AND hard=soft", "vers = '4.1' AND hard='soft'" },
		{ "threads >= 2 AND c.block<>16k", "threads >= 2 AND c.block<>16384" },
		{ "rsize NOT IN (1m,2m)", "rsize NOT IN (1048576,2097152)" },
		{ "\"wsize\"=4k", "\"wsize\"=4096" },
		/* a --data pattern as --data takes it (issue 19) */
		{ "data=compress:50", "data='compress:50'" },
		{ "data IN (zero, compress:50+dedupe:25)", "data IN ('zero', 'compress:50+dedupe:25')" },
		{ "data='random'", "data='random'" },
		/* not an option, a column on the right, text inside strings: as given */
		{ "label = 'rsize=1m' AND bogus=1m", "label = 'rsize=1m' AND bogus=1m" },
		{ "block=wsize", "block=wsize" },
		{ "label = 'it''s 4k'", "label = 'it''s 4k'" },
		{ "\"mount-opts\" = 'noatime'", "\"mount-opts\" = 'noatime'" },
		{ "", "" },
	};
	char out[256], err[128];
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		int rc = st_where_translate(cases[i].in, out, sizeof(out), err, sizeof(err));
		CHECK(rc == 0);
		if (rc == 0 && strcmp(out, cases[i].out) != 0) {
			fprintf(stderr, "    where '%s': got '%s', want '%s'\n", cases[i].in, out,
				cases[i].out);
			unit_failures++;
		}
	}
	CHECK(st_where_translate("block=4k AND block=4k", out, 10, err, sizeof(err)) == -1);
}

const struct unit_test unit_stats[] = {
	{ "stats: incomplete beta = closed forms", betai_closed_forms },
	{ "stats: t cdf = Cauchy and df 2 forms", t_cdf_closed_forms },
	{ "stats: t quantiles = textbook table", t_quantiles_match_tables },
	{ "stats: mean, sd, 95 % interval", moments_and_ci },
	{ "stats: Welch's test on worked examples", welch_worked_examples },
	{ "analysis: --where size and enum literals", where_translation },
	{ NULL, NULL },
};
