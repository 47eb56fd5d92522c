/*
 * fuzz_units.c - libFuzzer target: st_parse_size, st_parse_count and
 * st_parse_duration (common/units.h), and the formatters' round trips.
 *
 * The first byte picks the function (and the duration's default unit), the
 * rest is the text. Each parser is held against a plain reference written
 * here from the contract in units.h, computed in 128 bits: the same text
 * must be accepted or refused, with the same value. A refusal gives a
 * reason. Formatting a parsed value and parsing the text gives the value
 * back.
 */
#include "../../common/units.h"
#include "fuzz_check.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

typedef unsigned __int128 u128;

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Leading digits as a 128-bit number, saturated; how many digits. */
static size_t ref_digits(const char *s, u128 *v)
{
	size_t n = 0;
	*v = 0;
	for (; isdigit((unsigned char)s[n]); n++)
		*v = *v > ((u128)1 << 100) ? *v : *v * 10 + (u128)(s[n] - '0');
	return n;
}

static int ref_size(const char *s, int64_t *out)
{
	u128 v;
	size_t n = ref_digits(s, &v);
	if (!n)
		return -1;
	const char *u = s + n;
	int shift = 0;
	if (*u) {
		const char *units = "bkmgt", *at = strchr(units, tolower((unsigned char)*u));
		if (!at)
			return -1;
		shift = 10 * (int)(at - units);
		u++;
		if (shift && (!strcasecmp(u, "b") || !strcasecmp(u, "ib")))
			u += strlen(u);
		if (*u)
			return -1;
	}
	v <<= shift;
	if (v > INT64_MAX)
		return -1;
	*out = (int64_t)v;
	return 0;
}

static int ref_count(const char *s, int64_t *out)
{
	u128 v;
	size_t n = ref_digits(s, &v);
	if (!n || s[n] || v > INT64_MAX)
		return -1;
	*out = (int64_t)v;
	return 0;
}

/* The contract: digits, an optional '.' and 1 to 9 digits, an optional
 * unit; at most INT64_MAX / unit / 2 whole units; the fraction's
 * nanoseconds rounded down. */
static int ref_duration(const char *s, int64_t unit, int64_t *out)
{
	static const struct {
		const char *name;
		int64_t ns;
	} units[] = { { "ns", 1 }, { "us", 1000 }, { "ms", 1000000 }, { "s", 1000000000 },
		      { "m", 60000000000 }, { "h", 3600000000000 } };
	u128 whole, frac = 0, div = 1;
	size_t n = ref_digits(s, &whole);
	if (!n)
		return -1;
	const char *p = s + n;
	if (*p == '.') {
		p++;
		size_t k = 0;
		for (; isdigit((unsigned char)p[k]); k++) {
			frac = frac * 10 + (u128)(p[k] - '0');
			div *= 10;
			if (k == 9)
				return -1;
		}
		if (k == 0)
			return -1;
		p += k;
	}
	if (*p) {
		unit = 0;
		for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++)
			if (!strcmp(p, units[i].name))
				unit = units[i].ns;
		if (!unit)
			return -1;
	}
	if (whole > (u128)(INT64_MAX / unit / 2))
		return -1;
	*out = (int64_t)(whole * (u128)unit + frac * (u128)unit / div);
	return 0;
}

static void check_size_text(int64_t v)
{
	char buf[32], tiny[3];
	int64_t back = -1;
	const char *why = NULL;
	st_format_size(v, buf, sizeof(buf));
	if (st_parse_size(buf, &back, &why) != 0 || back != v)
		fprintf(stderr, "size %lld -> '%s' -> %lld\n", (long long)v, buf, (long long)back);
	FUZZ_CHECK(st_parse_size(buf, &back, &why) == 0 && back == v);
	st_format_size(v, tiny, sizeof(tiny));
	FUZZ_CHECK(memchr(tiny, 0, sizeof(tiny)) && strncmp(tiny, buf, sizeof(tiny) - 1) == 0);
}

/* Durations a parser accepts in any unit: at most INT64_MAX / 2 (with
 * room for the fraction). */
static void check_duration_text(int64_t v)
{
	char buf[64];
	if (v > INT64_MAX / 4)
		return;
	int64_t back = -1;
	const char *why = NULL;
	st_format_duration(v, buf, sizeof(buf));
	if (st_parse_duration(buf, 1, &back, &why) != 0 || back != v)
		fprintf(stderr, "duration %lld -> '%s' -> %lld\n", (long long)v, buf, (long long)back);
	FUZZ_CHECK(st_parse_duration(buf, 1, &back, &why) == 0 && back == v);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const int64_t default_units[] = { 1, 1000, 1000000000, 3600000000000 };
	if (size < 1)
		return 0;
	int mode = data[0] & 3;
	int64_t unit = default_units[(data[0] >> 2) & 3];
	char *s = fuzz_string(data + 1, size - 1);
	int64_t v = -1, want = -1;
	const char *why = NULL;
	int rc, ref;
	switch (mode) {
	case 0:
		rc = st_parse_size(s, &v, &why);
		ref = ref_size(s, &want);
		break;
	case 1:
		rc = st_parse_count(s, &v, &why);
		ref = ref_count(s, &want);
		break;
	case 2:
		rc = st_parse_duration(s, unit, &v, &why);
		ref = ref_duration(s, unit, &want);
		break;
	default: /* formatting: the text's bytes are a value */
		memcpy(&v, data + 1, size - 1 < sizeof(v) ? size - 1 : sizeof(v));
		if (v < 0)
			v = v == INT64_MIN ? 0 : -v;
		check_size_text(v);
		check_duration_text(v);
		free(s);
		return 0;
	}
	if (rc != ref || (rc == 0 && v != want))
		fprintf(stderr, "mode %d '%s': rc %d value %lld, reference rc %d value %lld\n", mode,
			s, rc, (long long)v, ref, (long long)want);
	FUZZ_CHECK(rc == ref);
	if (rc == 0) {
		FUZZ_CHECK(v == want && v >= 0);
		if (mode == 0)
			check_size_text(v);
		if (mode == 2)
			check_duration_text(v);
	} else {
		FUZZ_CHECK(rc == -1 && why && *why && !strchr(why, '\n'));
	}
	free(s);
	return 0;
}
