/*
 * stats.h - the few statistics the analysis needs and SQLite lacks: the
 * Student t distribution (through the regularized incomplete beta
 * function), 95 % confidence intervals of a mean, and Welch's t-test of two
 * means with unequal variances.
 *
 * Pure functions of their arguments: no state, no allocation, thread-safe
 * except for lgamma()'s signgam, which nothing here reads.
 */
#ifndef ST_STATS_H
#define ST_STATS_H

/* Mean and sample standard deviation (n - 1 in the denominator) of x[0..n).
 * n = 0: both NAN; n = 1: sd NAN. */
void st_moments(const double *x, int n, double *mean, double *sd);

/* The regularized incomplete beta function I_x(a, b), for a, b > 0 and
 * 0 <= x <= 1; NAN outside that domain. */
double st_betai(double a, double b, double x);

/* P(T <= t) for Student's t with df > 0 degrees of freedom (df need not be
 * a whole number: Welch's is not). NAN for df <= 0. */
double st_t_cdf(double t, double df);

/* Two-sided p-value of a t statistic: P(|T| >= |t|). */
double st_t_p2(double t, double df);

/* The t with P(T <= t) = p, for 0 < p < 1 and df > 0; NAN otherwise. */
double st_t_quantile(double p, double df);

/* Half width of the 95 % confidence interval of a mean of n samples with
 * sample standard deviation sd: t(0.975, n - 1) sd / sqrt(n). NAN when
 * n < 2. */
double st_ci95(double sd, int n);

/* Welch's t-test of mean2 - mean1 (sample 2 against sample 1). */
struct st_welch {
	double diff;   /* mean2 - mean1, in the samples' unit */
	double se;     /* standard error of diff */
	double t;      /* diff / se (+-INFINITY when se = 0 and diff != 0) */
	double df;     /* Welch-Satterthwaite degrees of freedom */
	double p;      /* two-sided p-value */
	double lo, hi; /* 95 % confidence interval of diff */
};

/* 0, or -1 when either sample has fewer than 2 values (no variance). */
int st_welch_test(double mean1, double sd1, int n1, double mean2, double sd2, int n2,
		  struct st_welch *w);

#endif
