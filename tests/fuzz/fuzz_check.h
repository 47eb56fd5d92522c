/*
 * fuzz_check.h - what the libFuzzer targets in tests/fuzz/ share: a check
 * that aborts (libFuzzer keeps the input as a crash), the contract of an
 * error line, and the invariants of a parsed configuration.
 *
 * A target must find more than crashes: every FUZZ_CHECK is a property the
 * code promises (a message is one non-empty line inside its buffer, a
 * parsed value is within its option's limits, the plan text a run stores
 * parses back to the same configuration).
 */
#ifndef ST_FUZZ_CHECK_H
#define ST_FUZZ_CHECK_H

#include "../../common/options.h"

#include <stddef.h>
#include <stdint.h>

#define FUZZ_CHECK(cond) \
	((cond) ? (void)0 : fuzz_fail(__FILE__, __LINE__, #cond))

/* Print where and what, then abort. Never returns. */
_Noreturn void fuzz_fail(const char *file, int line, const char *what);

/* The input as a NUL-terminated string (cut at its first NUL byte), in a
 * heap block of exactly its length + 1 (so ASan sees a read past it).
 * Release with free(). */
char *fuzz_string(const uint8_t *data, size_t size);

/* An error line written into a buffer of n bytes: NUL-terminated inside
 * it, not empty, no newline; when prefix is not NULL it starts with it. */
void fuzz_check_err(const char *err, size_t n, const char *prefix);

/* The plan text a run stores for cfg (st_config_dump), checked whole;
 * the caller frees it. */
char *fuzz_dump(const struct st_config *cfg);

/* Every option's values obey the table: counts, limits, alignment,
 * choices, no duplicates, strings terminated inside their buffer. */
void fuzz_check_config(const struct st_config *cfg);

/* Drive what a run does with a parsed configuration and check it:
 * st_config_check, the matrix (first, middle and last combination, when
 * the matrix is small enough to run), st_combo_text, and st_config_dump,
 * whose text must parse back to the same plan options (--resume reads it). */
void fuzz_exercise_config(const struct st_config *cfg);

#endif
