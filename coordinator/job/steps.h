/*
 * steps.h - deadlines of the job's collective steps. A rank that dies ends
 * the job through mpirun, and rank 0's watch names it (watch.h); a rank
 * that hangs does not, so rank 0 waits for each collective step only so
 * long: the phase deadline (after which no rank issues I/O) plus a grace
 * for the calls in flight. Before each step the other ranks tell rank 0
 * they have reached it, so rank 0 can name the ones that never did.
 */
#ifndef ST_STEPS_H
#define ST_STEPS_H

#include "state.h"

#include <mpi.h>
#include <stdint.h>

/* The local time by which a step begun at `from` must be done. */
int64_t st_step_deadline(const struct job *j, int64_t from);

/* Every rank, at the same point: one more collective step. The others tell
 * rank 0 they have reached it (no wait: the message is small). */
void st_step_reached(struct job *j);

/* Rank 0: read every "reached step" message that has come in. */
void st_step_drain(struct job *j);

/* Rank 0: abort when the step is past its deadline, naming who never reached it. */
void st_step_check(struct job *j, int64_t deadline, int64_t since, const char *what);

/* Complete a collective request of this step, begun at since: the other
 * ranks wait as long as it takes (rank 0 decides), rank 0 until the
 * deadline. `what` names the step in the abort reason ("the end of phase write"). */
void st_step_await(struct job *j, MPI_Request *q, int64_t since, const char *what);

/* Every rank, right after a step's await: the barrier whose completion
 * releases every rank at one moment (no rank sleeping through it). */
void st_step_release(struct job *j, int64_t since, const char *what);

/* Local work a rank does on its own host that may block on a server
 * that does not answer (a mount, a cache drop, removing files). */
typedef void st_local_fn(void *arg);

/* Run fn(arg). Rank 0 runs it on a thread of its own and waits no longer
 * than the step deadline from since; past it, the run is aborted naming
 * rank 0 (and the ranks that have not reached the next step) as hung, in
 * `what` ("its mount"): rank 0's own work never holds the deadline watch.
 * Other ranks run it directly (rank 0 watches their next step). */
void st_step_local(struct job *j, st_local_fn *fn, void *arg, int64_t since, const char *what);

/* Rank 0, past a deadline in its own work (what, begun at since): abort
 * naming rank 0 and the ranks that have not reached the next step. */
_Noreturn void st_step_abort_local(struct job *j, const char *what, int64_t since);

/* Rank 0: the ranks in missing[] are hung: record the run as aborted,
 * naming them, and end the job (mpirun then ends every rank, exit 3). */
_Noreturn void st_step_abort_hung(struct job *j, const int *missing, const char *what,
				  int64_t since);

/* Every rank, as it ends on a signal (Ctrl-C; mpirun's SIGTERM when a rank
 * failed or hung) or as rank 0 ends the job: its files of the run go, in
 * at most 2.5 s (mpirun's SIGKILL follows), then stcluster's mount on its
 * host, detached where that cannot block (a SIGTERM to mpirun left the
 * tmpfs of --mount on the target); what is left is said in left (n bytes).
 * The watch's cleanup (watch.h), arg the struct job. */
void st_step_remove_on_signal(void *arg, char *left, size_t n);

#endif
