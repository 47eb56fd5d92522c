/*
 * unit.h - the smallest test runner that does the job: each test is a
 * function; CHECK records a failure (file:line and the expression) and
 * goes on; the runner prints "ok"/"not ok" per test and ends with
 * "N passed, N failed".
 */
#ifndef ST_UNIT_H
#define ST_UNIT_H

#include <stdio.h>

struct unit_test {
	const char *name;
	void (*fn)(void);
};

extern int unit_failures; /* failures in the running test */

#define CHECK(cond)                                                                      \
	do {                                                                             \
		if (!(cond)) {                                                           \
			fprintf(stderr, "    %s:%d: CHECK(%s) failed\n", __FILE__, __LINE__, \
				#cond);                                                  \
			unit_failures++;                                                 \
		}                                                                        \
	} while (0)

#define CHECK_EQ_INT(a, b)                                                                 \
	do {                                                                               \
		long long va_ = (long long)(a), vb_ = (long long)(b);                      \
		if (va_ != vb_) {                                                          \
			fprintf(stderr, "    %s:%d: %s == %lld, expected %s == %lld\n", __FILE__, \
				__LINE__, #a, va_, #b, vb_);                               \
			unit_failures++;                                                   \
		}                                                                          \
	} while (0)

/* Each test file exports a NULL-terminated table. */
extern const struct unit_test unit_units[], unit_options[], unit_hist[], unit_permute[],
	unit_store[], unit_engine[], unit_pin[], unit_cluster[], unit_mount[], unit_stats[],
	unit_workloads[], unit_rpcstats[], unit_rows[], unit_cli[], unit_surface[], unit_advise[], unit_ivpack[];

/* A fresh empty directory under $TMPDIR (or /tmp) for one test. */
const char *unit_tmpdir(void);

/* The whole of a file (a fixture, relative to the repository root, or a
 * /proc file), NUL-terminated, to free(); NULL, said on stderr, when it
 * cannot be read. */
char *unit_slurp(const char *path);

#endif
