/*
 * stats.c - t distribution, confidence intervals, Welch's test (see stats.h).
 *
 * The t distribution's CDF is the regularized incomplete beta function,
 * P(|T| >= t) = I_{df/(df+t^2)}(df/2, 1/2), evaluated by its continued
 * fraction with the modified Lentz method; the quantile is found by
 * bisection on the CDF. Double precision gives ~1e-12 here, far more than
 * a benchmark's noise needs.
 */
#include "stats.h"

#include <float.h>
#include <math.h>

void st_moments(const double *x, int n, double *mean, double *sd)
{
	*mean = NAN;
	*sd = NAN;
	if (n < 1)
		return;
	double s = 0;
	for (int i = 0; i < n; i++)
		s += x[i];
	*mean = s / n;
	if (n < 2)
		return;
	/* two passes: the one-pass sum of squares loses digits when the spread
	 * is small beside the mean, as throughput figures' often is */
	double ss = 0;
	for (int i = 0; i < n; i++)
		ss += (x[i] - *mean) * (x[i] - *mean);
	*sd = sqrt(ss / (n - 1));
}

/*
 * The continued fraction of I_x(a, b) (Abramowitz & Stegun 26.5.8):
 *   I_x(a,b) = x^a (1-x)^b / (a B(a,b)) * 1 / (1 + d1 / (1 + d2 / (1 + ...)))
 *   d(2m+1) = -(a+m)(a+b+m) x / ((a+2m)(a+2m+1))
 *   d(2m)   = m (b-m) x / ((a+2m-1)(a+2m))
 * It converges fast for x < (a+1)/(a+b+2); the caller uses the symmetry
 * I_x(a,b) = 1 - I_{1-x}(b,a) for larger x.
 */
static double beta_fraction(double a, double b, double x)
{
	const double tiny = 1e-300, eps = 1e-15;
	/* modified Lentz for 1 + d1/(1 + d2/(1 + ...)): every partial
	 * denominator is 1, every partial numerator one of the d's */
	double f = 1.0, c = 1.0, d = 0.0;
	for (int j = 1; j <= 1000; j++) {
		int m = j / 2;
		double num = (j % 2)
				     ? -(a + m) * (a + b + m) * x / ((a + 2 * m) * (a + 2 * m + 1))
				     : m * (b - m) * x / ((a + 2 * m - 1) * (a + 2 * m));
		d = 1.0 + num * d;
		if (fabs(d) < tiny)
			d = tiny;
		d = 1.0 / d;
		c = 1.0 + num / c;
		if (fabs(c) < tiny)
			c = tiny;
		double delta = c * d;
		f *= delta;
		if (fabs(delta - 1.0) < eps)
			break;
	}
	return 1.0 / f;
}

double st_betai(double a, double b, double x)
{
	if (!(a > 0) || !(b > 0) || !(x >= 0) || !(x <= 1))
		return NAN;
	if (x == 0 || x == 1)
		return x;
	/* log of x^a (1-x)^b / B(a,b), through lgamma: the powers alone
	 * underflow for the large a of many degrees of freedom */
	double lfront = lgamma(a + b) - lgamma(a) - lgamma(b) + a * log(x) + b * log1p(-x);
	if (x < (a + 1) / (a + b + 2))
		return exp(lfront) * beta_fraction(a, b, x) / a;
	return 1.0 - exp(lfront) * beta_fraction(b, a, 1.0 - x) / b;
}

double st_t_p2(double t, double df)
{
	if (!(df > 0) || isnan(t))
		return NAN;
	if (isinf(t))
		return 0.0;
	return st_betai(df / 2, 0.5, df / (df + t * t));
}

double st_t_cdf(double t, double df)
{
	double p = st_t_p2(t, df);
	if (isnan(p))
		return NAN;
	return t >= 0 ? 1.0 - p / 2 : p / 2;
}

double st_t_quantile(double p, double df)
{
	if (!(p > 0 && p < 1) || !(df > 0))
		return NAN;
	if (p == 0.5)
		return 0.0;
	/* bracket, then bisect: the CDF is monotonic, and 200 halvings reach
	 * the resolution of a double whatever the bracket */
	double lo = 0, hi = 1;
	int upper = p > 0.5;
	double want = upper ? p : 1.0 - p;
	while (st_t_cdf(hi, df) < want && hi < 1e300)
		hi *= 2;
	for (int i = 0; i < 200 && hi - lo > DBL_EPSILON * hi; i++) {
		double mid = (lo + hi) / 2;
		if (st_t_cdf(mid, df) < want)
			lo = mid;
		else
			hi = mid;
	}
	double t = (lo + hi) / 2;
	return upper ? t : -t;
}

double st_ci95(double sd, int n)
{
	if (n < 2 || isnan(sd))
		return NAN;
	return st_t_quantile(0.975, n - 1) * sd / sqrt(n);
}

int st_welch_test(double mean1, double sd1, int n1, double mean2, double sd2, int n2,
		  struct st_welch *w)
{
	if (n1 < 2 || n2 < 2 || isnan(sd1) || isnan(sd2))
		return -1;
	double v1 = sd1 * sd1 / n1, v2 = sd2 * sd2 / n2;
	w->diff = mean2 - mean1;
	w->se = sqrt(v1 + v2);
	if (w->se == 0) {
		/* both samples constant: any difference is certain, none is none */
		w->df = n1 + n2 - 2;
		w->t = w->diff == 0 ? 0.0 : w->diff > 0 ? INFINITY : -INFINITY;
		w->p = w->diff == 0 ? 1.0 : 0.0;
		w->lo = w->hi = w->diff;
		return 0;
	}
	w->t = w->diff / w->se;
	w->df = (v1 + v2) * (v1 + v2) / (v1 * v1 / (n1 - 1) + v2 * v2 / (n2 - 1));
	w->p = st_t_p2(w->t, w->df);
	double q = st_t_quantile(0.975, w->df);
	w->lo = w->diff - q * w->se;
	w->hi = w->diff + q * w->se;
	return 0;
}
