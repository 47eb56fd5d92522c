/*
 * audit.h - what st_store_audit (store.h) finds: each hash of a run, the
 * one stored against the one its rows give now. A type of its own, below
 * both store.h, which returns it, and hash.h, which fills it.
 */
#ifndef ST_STORE_AUDIT_H
#define ST_STORE_AUDIT_H

#include "digest.h"

#include <stddef.h>
#include <stdint.h>

enum st_audit_state {
	ST_AUDIT_OK,	  /* the stored hash is the hash of the rows */
	ST_AUDIT_DIFFERS, /* it is not: the rows (or the hash) were altered */
	ST_AUDIT_MISSING, /* no hash stored, in a run that has hashes */
};

struct st_audit_item {
	const char *what; /* "config", "baselines", "combination", "result" */
	int64_t seq;	  /* combination: its combo.seq (0-based); else -1 */
	enum st_audit_state state;
	char stored[ST_HASH_HEX];   /* hex, "" when none is stored */
	char computed[ST_HASH_HEX]; /* hex, recomputed from the rows */
	char note[256];		    /* what was covered, or what may explain a difference */
};

struct st_audit {
	int hashed;  /* 0: no hashes stored (the run was written by an older stcluster) */
	int altered; /* items not ST_AUDIT_OK */
	size_t n;
	struct st_audit_item *items; /* config, baselines, each combination by seq, result */
};

/* Free the items; a is empty again. */
void st_audit_free(struct st_audit *a);

#endif
