/* The random block order: every block exactly once, seeded, not in order. */
#include "../../common/permute.h"
#include "unit.h"

#include <stdlib.h>
#include <string.h>

static void every_block_once(void)
{
	uint64_t sizes[] = { 1, 2, 3, 5, 8, 16, 17, 1000, 4097, 65536 };
	for (size_t s = 0; s < sizeof(sizes) / sizeof(sizes[0]); s++) {
		uint64_t n = sizes[s];
		unsigned char *seen = calloc(n, 1);
		struct st_permute p;
		st_permute_init(&p, n, 42 + s);
		uint64_t in_order = 0;
		for (uint64_t i = 0; i < n; i++) {
			uint64_t x = st_permute_next(&p);
			CHECK(x < n);
			if (x < n) {
				CHECK(!seen[x]);
				seen[x] = 1;
			}
			in_order += x == i;
		}
		if (n >= 16)
			CHECK(in_order < n / 4); /* not the sequential order */
		free(seen);
	}
}

static void seeds_differ(void)
{
	struct st_permute a, b, a2;
	st_permute_init(&a, 1000, 1);
	st_permute_init(&b, 1000, 2);
	st_permute_init(&a2, 1000, 1);
	int same = 0, repeat = 1;
	for (int i = 0; i < 1000; i++) {
		uint64_t x = st_permute_next(&a), y = st_permute_next(&b), z = st_permute_next(&a2);
		same += x == y;
		repeat &= x == z;
	}
	CHECK(same < 100);
	CHECK(repeat);
}

const struct unit_test unit_permute[] = {
	{ "permute: every block exactly once", every_block_once },
	{ "permute: same seed same order, other seed other order", seeds_differ },
	{ NULL, NULL },
};
