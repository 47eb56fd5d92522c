/*
 * permute.h - a seeded permutation of [0, n) in O(1) memory.
 *
 * A full-period linear congruential generator modulo the next power of two
 * m >= n (c odd, a = 1 mod 4: Hull-Dobell) visits every value of [0, m)
 * exactly once per period; each is scrambled by a bijection of [0, m)
 * (xor-shifts and odd multipliers modulo m), which hides the LCG's regular
 * low bits; values >= n are skipped ("cycle walking"), so
 * n calls of st_permute_next return every block index exactly once, in an
 * order fixed by the seed. Less than two steps per value on average.
 */
#ifndef ST_PERMUTE_H
#define ST_PERMUTE_H

#include <stdint.h>

struct st_permute {
	uint64_t n;    /* values in the permutation */
	uint64_t mask; /* m - 1 */
	uint64_t a, c; /* multiplier (1 mod 4) and increment (odd) */
	uint64_t x;    /* current state */
	int shift;     /* half the bits of m, for the scramble */
};

void st_permute_init(struct st_permute *p, uint64_t n, uint64_t seed);
uint64_t st_permute_next(struct st_permute *p);

/* splitmix64: a well-mixed 64-bit hash of x (seeds, data patterns). */
uint64_t st_mix64(uint64_t x);

#endif
