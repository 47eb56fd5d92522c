/*
 * audit.h - `stcluster audit RUN [--format table|json] [--db PATH]`:
 * recompute the hashes stored with a run (store.h, st_store_audit) and say
 * whether its stored results were altered.
 */
#ifndef ST_AUDIT_H
#define ST_AUDIT_H

/* argv[0] is "audit". Exit status: 0 every hash matches (or the run has
 * none), 1 something was altered or could not be recomputed, 2 bad input. */
int st_cmd_audit(int argc, char **argv);

#endif
