/*
 * data.h - the bytes a write phase writes (--data), and their check.
 *
 * Every byte written is a pure function of the pattern, the run's seed,
 * the owner (rank, thread) and the file offset, so --verify recomputes
 * what a read must return whatever the pattern, and a block read from the
 * wrong place, file or rank differs. The data is a sequence of 4 KiB
 * chunks aligned on file offsets (the unit dedupe works in; a compressor
 * sees them in order):
 *
 *   zero              every byte 0 (--verify checks that: weak, but works)
 *   random            every chunk unique pseudo-random bytes (nothing
 *                     compresses or dedupes: every block differs; the
 *                     random bytes repeat after 1 MiB but for each chunk's
 *                     16-byte stamp)
 *   compress:P        each chunk's first (100 - P) % bytes (to 8 bytes)
 *                     random, the rest zeros: a compressor gets
 *                     100 / (100 - P) : 1 (compress:50 is 2:1), as fio's
 *                     buffer_compress_percentage
 *   dedupe:P          P % of the chunks, evenly spread (chunk c is one when
 *                     floor((c+1)P/100) > floor(cP/100)), are the one
 *                     duplicate chunk of the run (the same in every file),
 *                     the rest unique: 100 / (100 - P) : 1 dedupe, as fio's
 *                     dedupe_percentage
 *   compress:P+dedupe:Q  both (the duplicate chunk is compressible too)
 *
 * A value is encoded in an int64 (st_combo.v): ST_DATA_ZERO, ST_DATA_RANDOM,
 * or ST_DATA_PATTERN | P << 8 | Q with P, Q in 0..99, not both 0. Plain
 * C, no state: the I/O threads call these on their own buffers.
 */
#ifndef ST_DATA_H
#define ST_DATA_H

#include <stddef.h>
#include <stdint.h>

#define ST_DATA_CHUNK 4096	/* bytes: the unit of compression and dedupe */
#define ST_DATA_PERIOD (1u << 20) /* bytes: the base chunks repeat after this... */
#define ST_DATA_STAMP 16	/* ...but every chunk starts with a stamp of its own */
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

/* Fill buf with the bytes of [off, off + len) of the file of (rank, thread)
 * under pattern v and seed. */
void st_data_fill(void *buf, size_t len, int64_t v, uint64_t seed, int rank, int thread,
		  uint64_t off);

/* How many 8-byte words of buf (the last one may be shorter) differ from
 * what st_data_fill would write there: 0 when every byte matches. */
uint64_t st_data_check(const void *buf, size_t len, int64_t v, uint64_t seed, int rank,
		       int thread, uint64_t off);

/*
 * The fast way to the bytes of a write, for one thread (rank, thread): a
 * pool of the pattern's base chunks, made once; st_data_pool_block returns
 * the bytes of [off, off + len) - st_data_fill's, byte for byte - inside the
 * pool (4 KiB aligned when off is), valid until the next call. NULL when
 * the pattern has no pool (zero, dedupe): use st_data_fill. The pool is
 * the period plus a block. init: 0, or -1 out of memory; free accepts an
 * empty pool.
 */
struct st_data_pool {
	unsigned char *p; /* the base chunks; NULL: none */
	size_t len;	  /* bytes of p */
	int64_t v;	  /* pattern */
	uint64_t seed;
	int rank, thread;
};
int st_data_pool_init(struct st_data_pool *p, int64_t v, uint64_t seed, int rank, int thread,
		      size_t block);
const void *st_data_pool_block(struct st_data_pool *p, uint64_t off, size_t len);
void st_data_pool_free(struct st_data_pool *p);

#endif
