/*
 * surface.h - a response surface: the null engine's per-call delay as a
 * function of the options (--null-surface FILE), so that a test knows the
 * best combination before it runs.
 *
 * The text, one statement a line ('#' starts a comment):
 *
 *   base 1ms                     per-call delay with every factor 1 (required)
 *   factor rsize=1m 0.5          a main effect: x0.5 where rsize is 1m
 *   factor sync=async,vers=3 0.8 an interaction: x0.8 where both hold
 *   noise 0.05                   each (combination, iteration, rank) draws u in
 *                                [-1, 1]: its delay is x (1 + 0.05 u)
 *   seed 7                       seed of those draws (default 1)
 *
 * A key is a sweep option, its value one value that option takes, as on the
 * command line; every term whose keys all hold multiplies the delay. The
 * delay of a combination is base x the product of its terms x the noise
 * draw, the same for all its calls and phases; with a fixed --block, MB/s is
 * inversely proportional to it.
 */
#ifndef ST_SURFACE_H
#define ST_SURFACE_H

#include "options.h"

#include <stddef.h>
#include <stdint.h>

#define ST_SURFACE_TERMS 64 /* factor lines */
#define ST_SURFACE_KEYS 4   /* key=value pairs of one factor */

struct st_surface_term {
	int nkeys;
	int id[ST_SURFACE_KEYS];     /* option ids */
	int64_t v[ST_SURFACE_KEYS];  /* values, encoded as st_combo.v */
	double factor;		     /* > 0 */
};

struct st_surface {
	int64_t base_ns;
	double noise; /* fraction, 0 <= noise < 1 */
	uint64_t seed;
	int nterms;
	struct st_surface_term term[ST_SURFACE_TERMS];
};

/* Parse surface text; fname names it in errors ("s.txt:3: ..."). 0, or -1
 * with one line in err. */
int st_surface_parse(const char *text, const char *fname, struct st_surface *s, char *err,
		     size_t n);

/* Read and parse a surface file: 0, or -1 with one line in err naming the
 * option (--null-surface) and the file. */
int st_surface_load(const char *path, struct st_surface *s, char *err, size_t n);

/* The product of the terms that hold for the values v (st_combo.v). */
double st_surface_factor(const struct st_surface *s, const int64_t *v);

/* The noise draw u in [-1, 1] of combination c on rank `rank`: a pure
 * function of the seed, c's matrix index and iteration, and the rank. */
double st_surface_draw(const struct st_surface *s, const struct st_combo *c, int rank);

/* Per-call delay, ns, of combination c on rank `rank`: base x factor x
 * (1 + noise x draw), at least 1. */
int64_t st_surface_delay_ns(const struct st_surface *s, const struct st_combo *c, int rank);

#endif
