/*
 * digest.h - SHA-256 (OpenSSL libcrypto, EVP) over a canonical
 * serialization of store rows, for `stcluster audit`.
 *
 * The serialization (version 1) is a sequence of fields, each one tag byte,
 * the length as 8 bytes big-endian, then the bytes. A hash begins with the
 * field 'V' "stcluster-audit-1 <kind>" (so hashes of different kinds, or of
 * a later serialization, never coincide). A row is the byte 'R', then for
 * each column in the order given whose value is not NULL: the field 'c'
 * with the column's name, then the value as one field:
 *
 *   'i' integer, as decimal ASCII ("-12")
 *   'f' real, the 8 bytes of its IEEE-754 double, big-endian
 *   't' text, its bytes
 *   'b' blob, its bytes
 *
 * and finally the byte 'E'. A NULL is the absence of its column's name:
 * NULL and 0 (or '') differ, and a column that a later schema adds (NULL
 * in the rows written before) changes no earlier hash. Every field is
 * length-prefixed and every column named, so the bytes decode to exactly
 * one sequence of rows: any change of any value, any row added, removed or
 * swapped with another changes the bytes.
 *
 * No state outside the struct; errors are values (a failed libcrypto call
 * makes st_digest_finish return -1).
 */
#ifndef ST_DIGEST_H
#define ST_DIGEST_H

#include <sqlite3.h>
#include <stddef.h>
#include <stdint.h>

#define ST_HASH_HEX 65 /* 64 lower-case hex digits and the NUL */
#define ST_DIGEST_DOMAIN "stcluster-audit-1"

struct st_digest;

/* A digest context; NULL when out of memory. st_digest_free accepts NULL. */
struct st_digest *st_digest_new(void);
void st_digest_free(struct st_digest *d);

/* Begin a hash of `kind` ("config", "combination", ...): the 'V' field
 * "stcluster-audit-1 <kind>". 0 or -1. */
int st_digest_start(struct st_digest *d, const char *kind);

/* One field: tag, 8-byte big-endian length, bytes. */
void st_digest_field(struct st_digest *d, char tag, const void *p, size_t n);

/* The current row of st (sqlite3_step returned SQLITE_ROW): columns 0 ..
 * ncols-1, named names[0 .. ncols-1], as described above. */
void st_digest_row(struct st_digest *d, sqlite3_stmt *st, const char *const *names, int ncols);

/* The SHA-256 of everything since st_digest_start, as hex. 0 or -1 (a
 * libcrypto call failed; hex is then ""). */
int st_digest_finish(struct st_digest *d, char hex[ST_HASH_HEX]);

/* For tests: keep a copy of every byte hashed from the next start on
 * (on = 1), and read it back. */
void st_digest_capture(struct st_digest *d, int on);
const unsigned char *st_digest_bytes(const struct st_digest *d, size_t *len);

/* SHA-256 of a buffer, as hex. 0 or -1. */
int st_sha256_hex(const void *p, size_t n, char hex[ST_HASH_HEX]);

#endif
