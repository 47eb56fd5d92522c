/*
 * data.c - the bytes a write phase writes, and their check (see data.h).
 *
 * Chunk c of a file is base chunk c mod 256 of its (rank, thread) - the
 * period is 1 MiB, so no compressor that works on a record or a window of
 * up to 1 MiB (zlib's is 32 KiB, lz4's 64 KiB, a ZFS record at most 1 MiB)
 * sees a repeat - with c's own 16-byte stamp over its first bytes, so no
 * two chunks are alike. Base chunks are made by xorshift128+ from one
 * st_mix64 per 4 KiB. A thread's writes take their bytes from a pool of
 * the base chunks (st_data_pool) and only write the stamps of each block
 * anew: a few ns per 4 KiB, where generating every byte would cost about a
 * tenth of a core at 1 GB/s. The duplicates of dedupe:PCT are the run's
 * one duplicate chunk, without a stamp.
 */
#include "data.h"

#include "permute.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int st_data_compress_pct(int64_t v)
{
	return (v & ST_DATA_PATTERN) ? (int)(v >> 8 & 0xff) : 0;
}

int st_data_dedupe_pct(int64_t v)
{
	return (v & ST_DATA_PATTERN) ? (int)(v & 0xff) : 0;
}

int st_data_valid(int64_t v)
{
	if (v == ST_DATA_ZERO || v == ST_DATA_RANDOM)
		return 1;
	int c = (int)(v >> 8 & 0xff), d = (int)(v & 0xff);
	return (v & ~(int64_t)0xffff) == ST_DATA_PATTERN && c <= 99 && d <= 99 && (c || d);
}

/* One part of a pattern, "compress:50" or "dedupe:25": which, and its percentage. */
static int parse_part(const char *p, size_t len, int *is_dedupe, int *pct, const char **why)
{
	const char *colon = memchr(p, ':', len);
	size_t kl = colon ? (size_t)(colon - p) : len;
	if (kl == 8 && !memcmp(p, "compress", 8))
		*is_dedupe = 0;
	else if (kl == 6 && !memcmp(p, "dedupe", 6))
		*is_dedupe = 1;
	else {
		*why = "one of: zero, random, compress:PCT, dedupe:PCT, compress:PCT+dedupe:PCT";
		return -1;
	}
	if (!colon || colon + 1 == p + len) {
		*why = "give the percentage: compress:PCT, dedupe:PCT";
		return -1;
	}
	int v = 0;
	for (const char *q = colon + 1; q < p + len; q++) {
		if (*q < '0' || *q > '9' || v > 100) {
			*why = "the percentage is a whole number, 1 to 99";
			return -1;
		}
		v = v * 10 + (*q - '0');
	}
	if (v < 1 || v > 99) {
		*why = "the percentage is 1 to 99 (0 is random, 100 is zero)";
		return -1;
	}
	*pct = v;
	return 0;
}

int st_data_parse(const char *s, int64_t *v, const char **why)
{
	if (!strcmp(s, "zero")) {
		*v = ST_DATA_ZERO;
		return 0;
	}
	if (!strcmp(s, "random")) {
		*v = ST_DATA_RANDOM;
		return 0;
	}
	int pct[2] = { 0, 0 }, seen[2] = { 0, 0 };
	for (const char *p = s;;) {
		const char *plus = strchr(p, '+');
		size_t len = plus ? (size_t)(plus - p) : strlen(p);
		int d, x;
		if (parse_part(p, len, &d, &x, why))
			return -1;
		if (seen[d]++) {
			*why = d ? "dedupe is given twice" : "compress is given twice";
			return -1;
		}
		pct[d] = x;
		if (!plus)
			break;
		p = plus + 1;
	}
	*v = ST_DATA_PATTERN | (int64_t)pct[0] << 8 | pct[1];
	return 0;
}

void st_data_text(int64_t v, char *buf, size_t n)
{
	int c = st_data_compress_pct(v), d = st_data_dedupe_pct(v);
	if (v == ST_DATA_ZERO)
		snprintf(buf, n, "zero");
	else if (v == ST_DATA_RANDOM || !st_data_valid(v))
		snprintf(buf, n, "%s", v == ST_DATA_RANDOM ? "random" : "?");
	else if (c && d)
		snprintf(buf, n, "compress:%d+dedupe:%d", c, d);
	else if (c)
		snprintf(buf, n, "compress:%d", c);
	else
		snprintf(buf, n, "dedupe:%d", d);
}

/* Is chunk c one of the duplicates (evenly spread, exactly P in 100)? */
static int is_dup(uint64_t c, int pct)
{
	return pct && (c + 1) * (uint64_t)pct / 100 > c * (uint64_t)pct / 100;
}

#define PERIOD_CHUNKS (ST_DATA_PERIOD / ST_DATA_CHUNK)

/* The seed of base chunk b of (rank, thread), or of the run's duplicate chunk. */
static uint64_t base_seed(uint64_t seed, int rank, int thread, uint64_t b, int dup)
{
	if (dup)
		return st_mix64(seed ^ 0x6475706c69636174ULL); /* the run's one duplicate chunk */
	uint64_t h = st_mix64(seed ^ (uint32_t)rank);
	h = st_mix64(h ^ ((uint64_t)(uint32_t)thread << 32));
	return st_mix64(h ^ b);
}

/* The stamp of chunk c: what makes it unlike every other chunk. */
static void stamp(uint64_t seed, int rank, int thread, uint64_t c, unsigned char out[ST_DATA_STAMP])
{
	uint64_t h = st_mix64(seed ^ 0x7374616d70ULL ^ ((uint64_t)(uint32_t)rank << 32) ^ (uint32_t)thread);
	uint64_t a = st_mix64(h ^ c), b = st_mix64(a ^ c);
	memcpy(out, &a, 8);
	memcpy(out + 8, &b, 8);
}

/* Bytes of each chunk that are random (a multiple of 8, at least the
 * stamp); the rest are 0. */
static unsigned random_bytes(int compress_pct)
{
	unsigned r = (unsigned)(ST_DATA_CHUNK * (100 - compress_pct) / 100) & ~7u;
	return r < ST_DATA_STAMP ? ST_DATA_STAMP : r;
}

/* One whole chunk without its stamp into out. */
static void gen_chunk(uint64_t s, unsigned rbytes, unsigned char *out)
{
	uint64_t x = s | 1, y = st_mix64(s ^ 0x2545f4914f6cdd1dULL);
	for (unsigned j = 0; j < rbytes; j += 8) {
		uint64_t a = x, b = y;
		x = b;
		a ^= a << 23;
		a ^= a >> 17;
		a ^= b ^ (b >> 26);
		y = a;
		uint64_t w = x + y;
		memcpy(out + j, &w, 8);
	}
	memset(out + rbytes, 0, ST_DATA_CHUNK - rbytes);
}

/* Chunk c of (rank, thread) under v (not zero): a duplicate, or base chunk
 * c mod the period with c's stamp over its first bytes. */
static void chunk(int64_t v, uint64_t seed, int rank, int thread, uint64_t c, unsigned char *out)
{
	unsigned rb = random_bytes(st_data_compress_pct(v));
	if (is_dup(c, st_data_dedupe_pct(v))) {
		gen_chunk(base_seed(seed, 0, 0, 0, 1), rb, out);
		return;
	}
	gen_chunk(base_seed(seed, rank, thread, c % PERIOD_CHUNKS, 0), rb, out);
	stamp(seed, rank, thread, c, out);
}

void st_data_fill(void *buf, size_t len, int64_t v, uint64_t seed, int rank, int thread,
		  uint64_t off)
{
	unsigned char *b = buf;
	if (v == ST_DATA_ZERO) {
		memset(b, 0, len);
		return;
	}
	unsigned char tmp[ST_DATA_CHUNK];
	for (size_t done = 0; done < len;) {
		uint64_t pos = off + done, c = pos / ST_DATA_CHUNK;
		size_t in = (size_t)(pos % ST_DATA_CHUNK), take = ST_DATA_CHUNK - in;
		if (take > len - done)
			take = len - done;
		if (take == ST_DATA_CHUNK) {
			chunk(v, seed, rank, thread, c, b + done);
		} else {
			chunk(v, seed, rank, thread, c, tmp);
			memcpy(b + done, tmp + in, take);
		}
		done += take;
	}
}

/* 8-byte groups of a and b (n bytes) that differ. */
static uint64_t differ(const unsigned char *a, const unsigned char *b, size_t n)
{
	if (!memcmp(a, b, n))
		return 0;
	uint64_t bad = 0;
	for (size_t i = 0; i < n; i += 8)
		bad += memcmp(a + i, b + i, n - i < 8 ? n - i : 8) != 0;
	return bad;
}

uint64_t st_data_check(const void *buf, size_t len, int64_t v, uint64_t seed, int rank,
		       int thread, uint64_t off)
{
	const unsigned char *b = buf;
	unsigned char tmp[ST_DATA_CHUNK];
	uint64_t bad = 0;
	if (v == ST_DATA_ZERO) {
		memset(tmp, 0, sizeof(tmp));
		for (size_t done = 0; done < len; done += sizeof(tmp))
			bad += differ(b + done, tmp, len - done < sizeof(tmp) ? len - done : sizeof(tmp));
		return bad;
	}
	for (size_t done = 0; done < len;) {
		uint64_t pos = off + done, c = pos / ST_DATA_CHUNK;
		size_t in = (size_t)(pos % ST_DATA_CHUNK), take = ST_DATA_CHUNK - in;
		if (take > len - done)
			take = len - done;
		chunk(v, seed, rank, thread, c, tmp);
		bad += differ(b + done, tmp + in, take);
		done += take;
	}
	return bad;
}

int st_data_pool_init(struct st_data_pool *p, int64_t v, uint64_t seed, int rank, int thread,
		      size_t block)
{
	memset(p, 0, sizeof(*p));
	if (v == ST_DATA_ZERO || st_data_dedupe_pct(v))
		return 0; /* no pool: the slow way (st_data_fill) */
	p->len = ST_DATA_PERIOD + ((block + ST_DATA_CHUNK - 1) / ST_DATA_CHUNK) * ST_DATA_CHUNK;
	void *m = NULL;
	if (posix_memalign(&m, 4096, p->len))
		return -1;
	p->p = m;
	p->v = v;
	p->seed = seed;
	p->rank = rank;
	p->thread = thread;
	unsigned rb = random_bytes(st_data_compress_pct(v));
	/* every base chunk of the period, then the period again as far as a
	 * block can reach past its end */
	for (size_t k = 0; k * ST_DATA_CHUNK < p->len; k++)
		gen_chunk(base_seed(seed, rank, thread, k % PERIOD_CHUNKS, 0), rb,
			  p->p + k * ST_DATA_CHUNK);
	return 0;
}

const void *st_data_pool_block(struct st_data_pool *p, uint64_t off, size_t len)
{
	if (!p->p || off % ST_DATA_PERIOD + len > p->len)
		return NULL;
	unsigned char *w = p->p + off % ST_DATA_PERIOD;
	/* each chunk's stamp, where it falls inside [off, off + len) */
	for (uint64_t c = off / ST_DATA_CHUNK; c * ST_DATA_CHUNK < off + len; c++) {
		uint64_t a = c * ST_DATA_CHUNK, z = a + ST_DATA_STAMP;
		if (a < off)
			a = off;
		if (z > off + len)
			z = off + len;
		if (a >= z)
			continue;
		unsigned char st[ST_DATA_STAMP];
		stamp(p->seed, p->rank, p->thread, c, st);
		memcpy(w + (a - off), st + (a - c * ST_DATA_CHUNK), (size_t)(z - a));
	}
	return w;
}

void st_data_pool_free(struct st_data_pool *p)
{
	free(p->p);
	p->p = NULL;
}
