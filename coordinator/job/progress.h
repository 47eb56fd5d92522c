/*
 * progress.h - what rank 0 prints while a run goes on (--progress): live,
 * one updating line with the phase in flight, its aggregate so far and the
 * ETA; plain, a line per finished phase; none. Only rank 0 prints; during
 * a live phase every rank reports its bytes to rank 0 on progress_comm.
 */
#ifndef ST_PROGRESS_H
#define ST_PROGRESS_H

#include "../store/store.h"
#include "state.h"

struct st_worker;

/* The mode (enum job_progress) --progress asks for; auto is live when rank
 * 0's output reaches a terminal, which only rank 0 can tell: the job
 * broadcasts rank 0's answer. */
int st_progress_mode(const struct job *j);

/* Every rank, during a live phase of worker w released at `release`:
 * until every rank's threads are done, the others report their bytes
 * every 250 ms and rank 0 sums them into the line (and aborts the run
 * when a rank does not finish by the phase's deadline). With sw (--stonewall;
 * NULL: none) each rank watches for the first client done meanwhile. */
struct st_stonewall;
void st_progress_live(struct job *j, struct st_worker *w, const struct st_combo *c, int phase,
		      uint64_t total, int64_t release, struct st_stonewall *sw);

/* The seconds left of a sweep of `todo` combinations (this part of the
 * run: a resumed run skips the ones stored) when `done` of them finished
 * by done_ns into it and it is now now_ns into it: the mean time of a
 * finished combination times the combinations not finished, less what the
 * one running has had already (so it is counted once, not twice, and the
 * ETA falls as it runs). -1 before the first finishes. */
double st_progress_eta(uint64_t done, uint64_t todo, int64_t done_ns, int64_t now_ns);

/* Rank 0: a line for a finished combination (live) or phase (plain). */
void st_progress_line(const struct job *j, const struct st_combo *c, uint64_t total,
		      const struct st_phase_record *ph, int nph, const char *status);

#endif
