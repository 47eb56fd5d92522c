/*
 * digest.c - SHA-256 over canonical rows (see digest.h).
 */
#include "digest.h"

#include <inttypes.h>
#include <openssl/evp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct st_digest {
	EVP_MD_CTX *ctx;
	int failed;	     /* a libcrypto call failed since the start */
	int capture;	     /* keep the bytes (tests) */
	unsigned char *copy; /* the bytes, when capturing */
	size_t len, cap;
};

struct st_digest *st_digest_new(void)
{
	struct st_digest *d = calloc(1, sizeof(*d));
	if (!d)
		return NULL;
	d->ctx = EVP_MD_CTX_new();
	if (!d->ctx) {
		free(d);
		return NULL;
	}
	return d;
}

void st_digest_free(struct st_digest *d)
{
	if (!d)
		return;
	EVP_MD_CTX_free(d->ctx);
	free(d->copy);
	free(d);
}

static void put(struct st_digest *d, const void *p, size_t n)
{
	if (n == 0)
		return;
	if (EVP_DigestUpdate(d->ctx, p, n) != 1)
		d->failed = 1;
	if (!d->capture)
		return;
	if (d->len + n > d->cap) {
		size_t cap = d->cap ? d->cap : 256;
		while (cap < d->len + n)
			cap *= 2;
		unsigned char *c = realloc(d->copy, cap);
		if (!c) {
			d->failed = 1;
			return;
		}
		d->copy = c;
		d->cap = cap;
	}
	memcpy(d->copy + d->len, p, n);
	d->len += n;
}

void st_digest_field(struct st_digest *d, char tag, const void *p, size_t n)
{
	unsigned char h[9];
	h[0] = (unsigned char)tag;
	for (int i = 0; i < 8; i++)
		h[1 + i] = (unsigned char)((uint64_t)n >> (56 - 8 * i));
	put(d, h, sizeof(h));
	put(d, p, n);
}

int st_digest_start(struct st_digest *d, const char *kind)
{
	d->failed = EVP_DigestInit_ex(d->ctx, EVP_sha256(), NULL) != 1;
	d->len = 0;
	char v[128];
	int l = snprintf(v, sizeof(v), "%s %s", ST_DIGEST_DOMAIN, kind);
	if (l < 0 || (size_t)l >= sizeof(v))
		d->failed = 1;
	else
		st_digest_field(d, 'V', v, (size_t)l);
	return d->failed ? -1 : 0;
}

void st_digest_row(struct st_digest *d, sqlite3_stmt *st, const char *const *names, int ncols)
{
	put(d, "R", 1);
	for (int i = 0; i < ncols; i++) {
		int type = sqlite3_column_type(st, i);
		if (type == SQLITE_NULL)
			continue;
		st_digest_field(d, 'c', names[i], strlen(names[i]));
		switch (type) {
		case SQLITE_INTEGER: {
			char num[32];
			int l = snprintf(num, sizeof(num), "%" PRId64,
					 (int64_t)sqlite3_column_int64(st, i));
			st_digest_field(d, 'i', num, (size_t)l);
			break;
		}
		case SQLITE_FLOAT: {
			double x = sqlite3_column_double(st, i);
			uint64_t bits;
			unsigned char b[8];
			memcpy(&bits, &x, sizeof(bits));
			for (int k = 0; k < 8; k++)
				b[k] = (unsigned char)(bits >> (56 - 8 * k));
			st_digest_field(d, 'f', b, sizeof(b));
			break;
		}
		case SQLITE_BLOB: {
			const void *p = sqlite3_column_blob(st, i);
			st_digest_field(d, 'b', p, (size_t)sqlite3_column_bytes(st, i));
			break;
		}
		default: { /* SQLITE_TEXT */
			const unsigned char *p = sqlite3_column_text(st, i);
			st_digest_field(d, 't', p, (size_t)sqlite3_column_bytes(st, i));
			break;
		}
		}
	}
	put(d, "E", 1);
}

static void to_hex(const unsigned char *md, unsigned len, char hex[ST_HASH_HEX])
{
	static const char digits[] = "0123456789abcdef";
	for (unsigned i = 0; i < len && 2 * i + 2 < ST_HASH_HEX; i++) {
		hex[2 * i] = digits[md[i] >> 4];
		hex[2 * i + 1] = digits[md[i] & 15];
	}
	hex[2 * len < ST_HASH_HEX ? 2 * len : ST_HASH_HEX - 1] = '\0';
}

int st_digest_finish(struct st_digest *d, char hex[ST_HASH_HEX])
{
	unsigned char md[EVP_MAX_MD_SIZE];
	unsigned len = 0;
	hex[0] = '\0';
	if (EVP_DigestFinal_ex(d->ctx, md, &len) != 1 || len != 32 || d->failed)
		return -1;
	to_hex(md, len, hex);
	return 0;
}

void st_digest_capture(struct st_digest *d, int on)
{
	d->capture = on;
	d->len = 0;
}

const unsigned char *st_digest_bytes(const struct st_digest *d, size_t *len)
{
	*len = d->len;
	return d->copy;
}

int st_sha256_hex(const void *p, size_t n, char hex[ST_HASH_HEX])
{
	unsigned char md[EVP_MAX_MD_SIZE];
	unsigned len = 0;
	hex[0] = '\0';
	if (EVP_Digest(p, n, md, &len, EVP_sha256(), NULL) != 1 || len != 32)
		return -1;
	to_hex(md, len, hex);
	return 0;
}
