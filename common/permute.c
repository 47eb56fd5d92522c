/*
 * permute.c - seeded O(1)-memory permutation (see permute.h).
 */
#include "permute.h"

uint64_t st_mix64(uint64_t x)
{
	x += 0x9e3779b97f4a7c15ULL;
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
	x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
	return x ^ (x >> 31);
}

void st_permute_init(struct st_permute *p, uint64_t n, uint64_t seed)
{
	uint64_t m = 1;
	while (m < n)
		m <<= 1;
	p->n = n;
	p->mask = m - 1;
	uint64_t h1 = st_mix64(seed), h2 = st_mix64(seed ^ 0x5851f42d4c957f2dULL);
	p->a = ((h1 << 2) | 1) & p->mask;
	if (m >= 4 && p->a == 1)
		p->a = 5 & p->mask; /* a = 1 would walk the blocks in order */
	if (p->a == 0)
		p->a = 1;
	p->c = (h2 | 1) & p->mask;
	if (p->mask == 0)
		p->c = 0;
	p->x = st_mix64(h1 ^ h2) & p->mask;
	int bits = 0;
	while ((1ULL << bits) < m)
		bits++;
	p->shift = (bits + 1) / 2;
}

/* A bijection of [0, mask]: xor-shift right and odd multiplication are both
 * invertible modulo a power of two. */
static uint64_t scramble(const struct st_permute *p, uint64_t y)
{
	if (p->mask < 3)
		return y;
	y ^= y >> p->shift;
	y = (y * 0x9e3779b97f4a7c15ULL) & p->mask;
	y ^= y >> p->shift;
	y = (y * 0xbf58476d1ce4e5b9ULL) & p->mask;
	y ^= y >> p->shift;
	return y;
}

uint64_t st_permute_next(struct st_permute *p)
{
	uint64_t y;
	do {
		p->x = (p->a * p->x + p->c) & p->mask;
		y = scramble(p, p->x);
	} while (y >= p->n);
	return y;
}
