/*
 * units.c - strict size/count/duration parsing (see units.h).
 */
#include "units.h"

#include <ctype.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

/* Leading decimal digits of s into *v with overflow check; returns digits read. */
static int parse_digits(const char **s, int64_t *v, int *overflow)
{
	int n = 0;
	*v = 0;
	while (isdigit((unsigned char)**s)) {
		int d = **s - '0';
		if (*v > (INT64_MAX - d) / 10)
			*overflow = 1;
		else
			*v = *v * 10 + d;
		(*s)++;
		n++;
	}
	return n;
}

int st_parse_size(const char *s, int64_t *out, const char **why)
{
	const char *p = s;
	int64_t v;
	int overflow = 0;
	if (!s || !*s) {
		*why = "empty";
		return -1;
	}
	if (parse_digits(&p, &v, &overflow) == 0) {
		*why = "not a number";
		return -1;
	}
	int shift = 0;
	if (*p) {
		switch (tolower((unsigned char)*p)) {
		case 'k': shift = 10; break;
		case 'm': shift = 20; break;
		case 'g': shift = 30; break;
		case 't': shift = 40; break;
		case 'b': shift = 0; break;
		default:
			*why = "unknown unit (use k, m, g or t)";
			return -1;
		}
		p++;
		if (shift && (strcasecmp(p, "ib") == 0 || strcasecmp(p, "b") == 0))
			p += strlen(p);
		if (*p) {
			*why = "trailing characters";
			return -1;
		}
	}
	if (overflow || (shift && v > (INT64_MAX >> shift))) {
		*why = "too large";
		return -1;
	}
	*out = v << shift;
	return 0;
}

int st_parse_count(const char *s, int64_t *out, const char **why)
{
	const char *p = s;
	int overflow = 0;
	if (!s || !*s) {
		*why = "empty";
		return -1;
	}
	if (parse_digits(&p, out, &overflow) == 0 || *p) {
		*why = "not a whole number";
		return -1;
	}
	if (overflow) {
		*why = "too large";
		return -1;
	}
	return 0;
}

int st_parse_duration(const char *s, int64_t default_unit_ns, int64_t *out,
		      const char **why)
{
	const char *p = s;
	int64_t whole, frac = 0, frac_div = 1;
	int overflow = 0;
	if (!s || !*s) {
		*why = "empty";
		return -1;
	}
	if (parse_digits(&p, &whole, &overflow) == 0) {
		*why = "not a number";
		return -1;
	}
	if (*p == '.') {
		p++;
		const char *f = p;
		while (isdigit((unsigned char)*p) && frac_div < 1000000000) {
			frac = frac * 10 + (*p - '0');
			frac_div *= 10;
			p++;
		}
		if (p == f || isdigit((unsigned char)*p)) {
			*why = "bad fraction";
			return -1;
		}
	}
	static const struct {
		const char *name;
		int64_t ns;
	} units[] = { { "ns", 1 },	     { "us", 1000 },	      { "ms", 1000000 },
		      { "s", 1000000000 }, { "m", 60000000000 }, { "h", 3600000000000 } };
	int64_t unit = default_unit_ns;
	if (*p) {
		unit = 0;
		for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++)
			if (strcmp(p, units[i].name) == 0)
				unit = units[i].ns;
		if (!unit) {
			*why = "unknown unit (use ns, us, ms, s, m or h)";
			return -1;
		}
	}
	if (overflow || whole > INT64_MAX / unit / 2) {
		*why = "too large";
		return -1;
	}
	/* the fraction's nanoseconds exactly, rounded down (a double was off by
	 * one for 2.251312h): with unit = q * frac_div + r, frac * unit /
	 * frac_div = frac * q + frac * r / frac_div, where frac * q < unit and
	 * frac * r < 10^18, as frac and r are below frac_div <= 10^9 */
	int64_t q = unit / frac_div, r = unit % frac_div;
	*out = whole * unit + frac * q + frac * r / frac_div;
	return 0;
}

void st_format_size(int64_t bytes, char *buf, size_t n)
{
	static const char suffix[] = "kmgt";
	int i = -1;
	int64_t v = bytes;
	while (v >= 1024 && v % 1024 == 0 && i < 3) {
		v /= 1024;
		i++;
	}
	if (i < 0)
		snprintf(buf, n, "%lld", (long long)bytes);
	else
		snprintf(buf, n, "%lld%c", (long long)v, suffix[i]);
}

void st_format_duration(int64_t ns, char *buf, size_t n)
{
	/* exact, so the text reads back (the stored plan is parsed again) */
	if (ns != 0 && ns % 1000000000 == 0)
		snprintf(buf, n, "%llds", (long long)(ns / 1000000000));
	else if (ns != 0 && ns % 1000000 == 0)
		snprintf(buf, n, "%lldms", (long long)(ns / 1000000));
	else if (ns != 0 && ns % 1000 == 0)
		snprintf(buf, n, "%lldus", (long long)(ns / 1000));
	else
		snprintf(buf, n, "%lldns", (long long)ns);
}
