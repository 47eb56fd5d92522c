/*
 * data.h - the bytes a write phase writes (--data), and their check.
 *
 * Every byte written is a pure function of the pattern, the run's seed,
 * the owner (rank, thread) and the file offset, so --verify recomputes
 * what a read must return whatever the pattern, and a block read from the
 * wrong place, file or rank differs. Random bytes are a counter-mode
 * stream: the 8-byte word at offset 8i of a file is splitmix64's output i
 * for the file's key (made of seed, rank and thread), so a file never
 * repeats an 8-byte word, at any length, and any range of it is made
 * without the bytes before it.
 *
 *   zero              every byte 0 (--verify checks that: weak, but works)
 *   random            the file's stream: nothing compresses or dedupes
 *   compress:P        in each compress chunk (--compress-chunk, default the
 *                     block), the first (100 - P) % of the bytes (to 8
 *                     bytes) the stream's, the rest zeros: a compressor that
 *                     sees whole chunks gets 100 / (100 - P) : 1
 *                     (compress:50 is 2:1), as fio's
 *                     buffer_compress_percentage and buffer_compress_chunk
 *   dedupe:P          P % of the dedupe units (--dedupe-unit, default the
 *                     block), evenly spread (unit u is one when
 *                     floor((u+1)P/100) > floor(uP/100)), are the one
 *                     duplicate unit of the run (the run's own stream, the
 *                     same in every file), the rest the file's: dedupe in
 *                     those units gets 100 / (100 - P) : 1, as fio's
 *                     dedupe_percentage
 *   compress:P+dedupe:Q  both (the duplicate unit is compressible too)
 *
 * A value is encoded in an int64 (st_combo.v): ST_DATA_ZERO, ST_DATA_RANDOM,
 * or ST_DATA_PATTERN | P << 8 | Q with P, Q in 0..99, not both 0. Plain
 * C, no state: the I/O threads call these on their own buffers.
 */
#ifndef ST_DATA_H
#define ST_DATA_H

#include <stddef.h>
#include <stdint.h>

#define ST_DATA_CHUNK 4096	  /* bytes: each has a chunk word of its own (data.c) */
#define ST_DATA_PERIOD (1u << 20) /* bytes: the base words under the chunk words */
#define ST_DATA_ZERO 0
#define ST_DATA_RANDOM 1
#define ST_DATA_PATTERN 0x10000 /* | compress % << 8 | dedupe % */

/* Parse "zero", "random", "compress:P", "dedupe:P", "compress:P+dedupe:Q"
 * (either order). 0, or -1 with a short reason in *why. */
int st_data_parse(const char *s, int64_t *v, const char **why);

/* The canonical text of v ("compress:50+dedupe:25"); st_data_parse reads it back. */
void st_data_text(int64_t v, char *buf, size_t n);

/* Is v an encoding st_data_parse can return? */
int st_data_valid(int64_t v);

/* The compress and dedupe percentages of v (0 when not asked). */
int st_data_compress_pct(int64_t v);
int st_data_dedupe_pct(int64_t v);

/* What the bytes of one file are made of. */
struct st_data_key {
	int64_t v;		 /* the pattern */
	uint64_t seed;		 /* the run's */
	int rank, thread;	 /* whose file */
	uint64_t dedupe_unit;	 /* bytes (> 0): dedupe's unit */
	uint64_t compress_chunk; /* bytes (> 0): compress's chunk */
};

/*
 * The fast way to the bytes: a pool of the base words of one file's key
 * (and, for dedupe, of the run's duplicate unit), made once per thread; 1
 * or 2 MiB. A fill or a check given a pool of another key makes the words
 * itself (the same bytes, slower). init: 0, or -1 out of memory; free
 * accepts an empty pool.
 */
struct st_data_pool {
	uint64_t key[2];  /* the file's, the duplicate unit's */
	uint64_t *base[2]; /* their base words; NULL: none */
};
int st_data_pool_init(struct st_data_pool *p, const struct st_data_key *k);
void st_data_pool_free(struct st_data_pool *p);

/* Fill buf with the bytes of [off, off + len) of k's file (pool: NULL or
 * any pool). */
void st_data_fill(void *buf, size_t len, const struct st_data_key *k,
		  const struct st_data_pool *pool, uint64_t off);

/* How many 8-byte words of buf (the last one may be shorter) differ from
 * what st_data_fill would write there: 0 when every byte matches. */
uint64_t st_data_check(const void *buf, size_t len, const struct st_data_key *k,
		       const struct st_data_pool *pool, uint64_t off);

#endif
