/*
 * units.h - strict parsing and printing of sizes, counts and durations.
 *
 * Sizes are binary: k = 2^10, m = 2^20, g = 2^30, t = 2^40 (either case, an
 * optional trailing "b"/"ib" is accepted: "4k", "4KiB", "1m"). Every parser
 * rejects empty text, signs, spaces, trailing garbage and overflow, and
 * returns 0 on success or -1 with a short reason in *why.
 */
#ifndef ST_UNITS_H
#define ST_UNITS_H

#include <stddef.h>
#include <stdint.h>

/* Size in bytes; result in [0, INT64_MAX]. */
int st_parse_size(const char *s, int64_t *out, const char **why);

/* Plain non-negative decimal integer. */
int st_parse_count(const char *s, int64_t *out, const char **why);

/* Duration into nanoseconds: a number with ns, us, ms, s, m or h
 * (no unit = default_unit_ns per unit: pass 1000000000 for seconds).
 * Decimal fractions are accepted ("0.5s", "2.5ms"). */
int st_parse_duration(const char *s, int64_t default_unit_ns, int64_t *out,
		      const char **why);

/* Shortest exact binary form: 4096 -> "4k", 1048576 -> "1m", 1000 -> "1000". */
void st_format_size(int64_t bytes, char *buf, size_t n);

/* Duration, exactly, in the largest of s, ms, us and ns that divides it:
 * "2ms", "1500ms", "604800s", "0ns". st_parse_duration reads it back. */
void st_format_duration(int64_t ns, char *buf, size_t n);

#endif
