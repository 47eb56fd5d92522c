/*
 * phaseopt.h - a phase's own values: the [phase] sections of a plan file
 * (fio's job sections, elbencho's phases), so one run can write with 1m
 * calls and then randread with 4k.
 *
 *   block = 1m            # the run's: every phase without a value of its own
 *   phases = write, randread
 *   [randread]            # from here to the next section: randread's own
 *   block = 4k
 *
 * A section holds one value per key (a list is refused: a phase's value is
 * no dimension of the matrix), for the keys whose meaning is one phase's
 * work (st_phase_key): block, direct, fsync, rwmix, runtime, ramp. The
 * value replaces the combination's in that phase of every combination;
 * the sweep dimensions still apply to the phases without one. The values
 * live in st_config.ph (options.h), are written back by st_config_dump as
 * sections (the stored plan, what --resume reads) and applied by
 * st_phase_combo, which every side that acts on or stores a phase calls:
 * the worker, the job's checks, --dry-run, the store's phase_option rows.
 */
#ifndef ST_PHASEOPT_H
#define ST_PHASEOPT_H

#include "options.h"

#include <stdio.h>

/* May option id have a value of its own in a [phase] section? */
int st_phase_key(int id);

/* The keys a section takes, as "block, direct, ..." (for messages, README). */
const char *st_phase_keys_text(void);

/*
 * A plan line that opens a section ("[randread]"): the phase into
 * *phase. where: "file:line" (lineno its line); known: a line of the file
 * was already a key stcluster knows (before that the text is not shown).
 * 0, or -1 with one line in err.
 */
int st_phase_section(struct st_config *cfg, const char *line, int lineno, int known,
		     const char *where, int *phase, char *err, size_t errn);

/* key = val inside the section of phase (known: as st_phase_section's).
 * 0, or -1 with one line in err naming where, the section and the key. */
int st_phase_set(struct st_config *cfg, int phase, const char *key, const char *val, int known,
		 const char *where, char *err, size_t errn);

/* Does any phase have a value of its own? */
int st_phase_any(const struct st_config *cfg);

/* The checks that need the whole configuration: every section's phase
 * among --phases; a runtime of its own not with --stonewall on, and with
 * its ramp before --deadline. 0, or -1 with one line in err. */
int st_phase_check(const struct st_config *cfg, char *err, size_t errn);

/* The combination as phase runs it: base with the phase's own values. */
void st_phase_combo(const struct st_config *cfg, int phase, const struct st_combo *base,
		    struct st_combo *out);

/* The largest block any phase of combination base uses. */
int64_t st_phase_max_block(const struct st_config *cfg, unsigned phases,
			   const struct st_combo *base);

/* "block=4k runtime=2s" of the phase's own values, "" without any. */
void st_phase_text(const struct st_config *cfg, int phase, char *buf, size_t n);

/* --dry-run's lines of the phases of `phases` with values of their own:
 * "  randread: block=4k (every combination)". */
void st_phase_print(const struct st_config *cfg, unsigned phases, FILE *out);

/* The sections, in plan syntax, after the run-wide keys (st_config_dump). */
void st_phase_dump(const struct st_config *cfg, FILE *out);

#endif
