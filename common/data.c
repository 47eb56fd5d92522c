/*
 * data.c - the bytes a write phase writes, and their check (see data.h).
 *
 * A file's bytes are made in segments: the longest run of bytes inside
 * one dedupe unit and one part (random or zeros) of one compress chunk.
 * A random segment is the stream of its key from its position: the file's
 * key at the file offset, or for a duplicate unit the run's duplicate key
 * at the offset inside the unit (every duplicate unit the same bytes).
 *
 * Word i of a stream is base word i mod 128 Ki XOR the word of its 4 KiB
 * chunk (i / 512), each splitmix64's output of the key (the base's and the
 * chunks' apart): two chunks a multiple of 1 MiB apart differ in every
 * byte with their chunk words, so no compressor or dedupe finds a repeat,
 * and a pool of the 1 MiB of base words (st_data_pool, made once per
 * thread) turns the making of a block into one XOR pass over it, 16 bytes
 * at a time: 20 us/MB where a memcpy takes 17 (and the pass word by word
 * 40), where a splitmix64 per word runs at a few hundred MB/s on a loaded
 * core.
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

/* Is unit u one of the duplicates (evenly spread, exactly P in 100)? */
static int is_dup(uint64_t u, int pct)
{
	return pct && (u + 1) * (uint64_t)pct / 100 > u * (uint64_t)pct / 100;
}

/* two words of a stream, XORed at once */
typedef uint64_t word2 __attribute__((vector_size(16)));

#define GOLDEN 0x9e3779b97f4a7c15ULL /* splitmix64's increment */
#define PERIOD_WORDS (ST_DATA_PERIOD / 8)
#define CHUNK_WORDS (ST_DATA_CHUNK / 8)
#define CHUNK_SALT 0x6368756e6b73ULL /* the chunk words' key, from the base's */

/* Word i of the splitmix64 sequence of key. */
static inline uint64_t mix_word(uint64_t key, uint64_t i)
{
	uint64_t z = key + (i + 1) * GOLDEN;
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

/* The key of (seed, rank, thread)'s file, or of the run's duplicate unit. */
static uint64_t file_key(const struct st_data_key *k, int dup)
{
	if (dup)
		return st_mix64(k->seed ^ 0x6475706c69636174ULL);
	uint64_t h = st_mix64(k->seed ^ (uint32_t)k->rank);
	return st_mix64(h ^ ((uint64_t)(uint32_t)k->thread << 32) ^ 0x66696c65ULL);
}

/* Bytes [pos, pos + n) of the stream of key into out; base: its base
 * words (NULL: made here). */
static void stream(uint64_t key, const uint64_t *base, uint64_t pos, size_t n, unsigned char *out)
{
	for (size_t done = 0; done < n;) {
		uint64_t p = pos + done, i = p / 8, j0 = i % PERIOD_WORDS;
		uint64_t cw = mix_word(key ^ CHUNK_SALT, i / CHUNK_WORDS);
		size_t in = (size_t)(p % 8);
		if (in || n - done < 8) { /* a word in part */
			uint64_t w = (base ? base[j0] : mix_word(key, j0)) ^ cw;
			size_t take = 8 - in < n - done ? 8 - in : n - done;
			memcpy(out + done, (unsigned char *)&w + in, take);
			done += take;
			continue;
		}
		/* whole words to the end of the chunk (inside the period) */
		size_t words = (size_t)(CHUNK_WORDS - i % CHUNK_WORDS);
		if (words > (n - done) / 8)
			words = (n - done) / 8;
		unsigned char *o = out + done;
		if (base) {
			/* two words in one 16-byte XOR (SSE2, NEON): -O2 leaves
			 * the loop of words scalar, twice a copy's CPU */
			const word2 c2 = { cw, cw };
			size_t j = 0;
			for (; j + 2 <= words; j += 2) {
				word2 w;
				memcpy(&w, base + j0 + j, sizeof(w));
				w ^= c2;
				memcpy(o + 8 * j, &w, sizeof(w));
			}
			for (; j < words; j++) {
				uint64_t w = base[j0 + j] ^ cw;
				memcpy(o + 8 * j, &w, 8);
			}
		} else {
			for (size_t j = 0; j < words; j++) {
				uint64_t w = mix_word(key, j0 + j) ^ cw;
				memcpy(o + 8 * j, &w, 8);
			}
		}
		done += 8 * words;
	}
}

/* Bytes of each compress chunk that are random (a multiple of 8, at least
 * 8); the rest are 0. */
static uint64_t random_bytes(uint64_t chunk, int compress_pct)
{
	uint64_t r = chunk * (uint64_t)(100 - compress_pct) / 100 & ~(uint64_t)7;
	return r < 8 ? (chunk < 8 ? chunk : 8) : r;
}

/* One segment at file offset pos (at most n bytes) into out: how many. */
static size_t segment(const struct st_data_key *k, const uint64_t keys[2],
		      const uint64_t *const base[2], uint64_t pos, size_t n, unsigned char *out)
{
	int cpct = st_data_compress_pct(k->v), dpct = st_data_dedupe_pct(k->v);
	uint64_t q = pos, end = pos + n; /* q: where the stream and the chunks are */
	int dup = 0;
	if (dpct) {
		uint64_t u = pos / k->dedupe_unit, next = (u + 1) * k->dedupe_unit;
		dup = is_dup(u, dpct);
		if (dup)
			q = pos - u * k->dedupe_unit;
		if (next < end)
			end = next;
	}
	int zeros = 0;
	if (cpct) {
		uint64_t c = k->compress_chunk, in = q % c, rb = random_bytes(c, cpct);
		zeros = in >= rb;
		uint64_t left = (zeros ? c : rb) - in;
		if (pos + left < end)
			end = pos + left;
	}
	size_t len = (size_t)(end - pos);
	if (zeros)
		memset(out, 0, len);
	else
		stream(keys[dup], base[dup], q, len, out);
	return len;
}

void st_data_fill(void *buf, size_t len, const struct st_data_key *k,
		  const struct st_data_pool *pool, uint64_t off)
{
	unsigned char *b = buf;
	if (k->v == ST_DATA_ZERO) {
		memset(b, 0, len);
		return;
	}
	const uint64_t keys[2] = { file_key(k, 0), file_key(k, 1) };
	const uint64_t *base[2] = { NULL, NULL };
	for (int x = 0; pool && x < 2; x++)
		if (pool->base[x] && pool->key[x] == keys[x])
			base[x] = pool->base[x];
	for (size_t done = 0; done < len;)
		done += segment(k, keys, base, off + done, len - done, b + done);
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

uint64_t st_data_check(const void *buf, size_t len, const struct st_data_key *k,
		       const struct st_data_pool *pool, uint64_t off)
{
	const unsigned char *b = buf;
	unsigned char tmp[ST_DATA_CHUNK];
	uint64_t bad = 0;
	for (size_t done = 0; done < len; done += sizeof(tmp)) {
		size_t n = len - done < sizeof(tmp) ? len - done : sizeof(tmp);
		st_data_fill(tmp, n, k, pool, off + done);
		bad += differ(b + done, tmp, n);
	}
	return bad;
}

int st_data_pool_init(struct st_data_pool *p, const struct st_data_key *k)
{
	memset(p, 0, sizeof(*p));
	if (k->v == ST_DATA_ZERO)
		return 0;
	for (int x = 0; x < 1 + (st_data_dedupe_pct(k->v) > 0); x++) {
		p->key[x] = file_key(k, x);
		p->base[x] = malloc(ST_DATA_PERIOD);
		if (!p->base[x]) {
			st_data_pool_free(p);
			return -1;
		}
		for (uint64_t j = 0; j < PERIOD_WORDS; j++)
			p->base[x][j] = mix_word(p->key[x], j);
	}
	return 0;
}

void st_data_pool_free(struct st_data_pool *p)
{
	for (int x = 0; x < 2; x++) {
		free(p->base[x]);
		p->base[x] = NULL;
	}
}
