/*
 * combo.h - one combination of the sweep, on every rank at once.
 */
#ifndef ST_COMBO_H
#define ST_COMBO_H

#include "state.h"

/* Collective: run combination c (seq and iteration set; the same on every
 * rank) through the phase script; rank 0 stores it. total is the run's
 * number of combinations x iterations, for the progress lines. */
void st_combo_run(struct job *j, struct st_combo *c, uint64_t total);

/* The phases of combination c (of j->phases) that cannot run, and why in
 * buf: a function of the options and the engine only, the same on every
 * rank, known before any I/O. */
unsigned st_combo_skips(const struct job *j, const struct st_combo *c, char *buf, size_t n);

#endif
