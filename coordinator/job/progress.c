/*
 * progress.c - what rank 0 prints while a run goes on (see progress.h).
 */
#include "progress.h"

#include "../../common/util.h"
#include "../../worker/worker.h"
#include "die.h"
#include "steps.h"
#include "stonewall.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* Rank 0: is the user's terminal where our output goes? Under mpirun our
 * stdout is always a pty of mpirun's, so look at mpirun's own stdout (our
 * parent on this host); run alone, at ours. */
static int user_sees_terminal(void)
{
	if (!getenv("OMPI_COMM_WORLD_SIZE"))
		return isatty(STDOUT_FILENO);
	char path[64], target[256];
	snprintf(path, sizeof(path), "/proc/%d/fd/1", (int)getppid());
	ssize_t n = readlink(path, target, sizeof(target) - 1);
	if (n <= 0)
		return 0;
	target[n] = '\0';
	return strncmp(target, "/dev/pts/", 9) == 0 || strncmp(target, "/dev/tty", 8) == 0;
}

int st_progress_mode(const struct job *j)
{
	int64_t pm = j->cfg.o[ST_OPT_PROGRESS].v[0];
	int mode = j->quiet || pm == ST_PROGRESS_NONE ? PROGRESS_NONE
		   : pm == ST_PROGRESS_LIVE	      ? PROGRESS_LIVE
						      : PROGRESS_PLAIN;
	if (!j->quiet && pm == ST_PROGRESS_AUTO && j->rank == 0 && user_sees_terminal())
		mode = PROGRESS_LIVE;
	return mode;
}

static void format_secs(double s, char *buf, size_t n)
{
	if (s < 0)
		snprintf(buf, n, "?");
	else if (s < 120)
		snprintf(buf, n, "%.0fs", s);
	else if (s < 7200)
		snprintf(buf, n, "%.0fm%02.0fs", s / 60 - 0.5, s - 60 * (double)(int)(s / 60));
	else
		snprintf(buf, n, "%.1fh", s / 3600);
}

double st_progress_eta(uint64_t done, uint64_t todo, int64_t done_ns, int64_t now_ns)
{
	if (!done || done_ns <= 0)
		return -1;
	double per = (double)done_ns / 1e9 / (double)done;
	double left = per * (double)(todo > done ? todo - done : 0) - (double)(now_ns - done_ns) / 1e9;
	return left > 0 ? left : 0;
}

/* The ranks other than 0: report the bytes moved every 250 ms (every
 * `step` while a stonewall waits for the first client's end), and once more
 * with done set when this rank's threads have finished. */
static void progress_send(struct job *j, struct st_worker *w, int64_t step, struct st_stonewall *sw)
{
	struct st_progress_msg me = { 0, 0, 0 };
	int64_t next_send = 0;
	while (!me.done) {
		me.done = st_worker_phase_wait(w, st_now_ns() + step);
		st_stonewall_poll(j, sw, w, me.done);
		if (!me.done && st_now_ns() < next_send)
			continue;
		me.bytes = st_worker_live_bytes(w);
		MPI_Send(&me, (int)sizeof(me), MPI_BYTE, 0, PROGRESS_TAG, j->progress_comm);
		next_send = st_now_ns() + 250000000;
	}
}

/* Rank 0's view of a phase in flight: each rank's bytes so far and whether
 * it is done. */
struct progress_view {
	uint64_t *bytes; /* per rank */
	int *done;	 /* per rank: its last message said done */
	int ndone;	 /* ranks done */
};

/* Rank 0: take every progress message that has arrived, without waiting. */
static void progress_drain(struct job *j, struct progress_view *pv)
{
	for (;;) {
		int flag = 0;
		MPI_Status stt;
		MPI_Iprobe(MPI_ANY_SOURCE, PROGRESS_TAG, j->progress_comm, &flag, &stt);
		if (!flag)
			return;
		struct st_progress_msg p;
		MPI_Recv(&p, (int)sizeof(p), MPI_BYTE, stt.MPI_SOURCE, PROGRESS_TAG, j->progress_comm,
			 MPI_STATUS_IGNORE);
		pv->bytes[stt.MPI_SOURCE] = p.bytes;
		if (p.done && !pv->done[stt.MPI_SOURCE]) {
			pv->done[stt.MPI_SOURCE] = 1;
			pv->ndone++;
		}
	}
}

/* Rank 0: the one updating line: the combination, the phase, its time so
 * far, the live aggregate and the run's ETA. */
static void progress_print(const struct job *j, const struct st_combo *c, int phase, uint64_t total,
			   int64_t release, const struct progress_view *pv, int64_t now)
{
	uint64_t sum = 0;
	for (int r = 0; r < j->size; r++)
		sum += pv->bytes[r];
	double el = (double)(now - release) / 1e9;
	double eta = st_progress_eta(j->combos_done, j->combos_todo, j->combos_done_ns - j->run_start_ns,
				     now - j->run_start_ns);
	char e1[32], e2[32];
	format_secs(el, e1, sizeof(e1));
	format_secs(eta, e2, sizeof(e2));
	printf("\r\033[K[%u/%llu] %-9s %6s  %10.1f MB/s  ETA %s", c->seq + 1, (unsigned long long)total,
	       st_phase_names[phase], e1, el > 0 ? (double)sum / el / 1e6 : 0.0, e2);
	fflush(stdout);
}

/* Live progress during a phase. Every rank reports the bytes its threads
 * have moved every 250 ms and once more when done; rank 0 sums them into
 * one updating line. The I/O threads only keep a counter they update anyway. */
void st_progress_live(struct job *j, struct st_worker *w, const struct st_combo *c, int phase,
		      uint64_t total, int64_t release, struct st_stonewall *sw)
{
	/* the stonewall wants a first client's end seen within a millisecond */
	int64_t step = sw && sw->active ? 1000000 : 250000000;
	if (j->rank != 0) {
		progress_send(j, w, step, sw);
		return;
	}
	struct progress_view pv = { calloc((size_t)j->size, sizeof(uint64_t)),
				    calloc((size_t)j->size, sizeof(int)), 0 };
	if (!pv.bytes || !pv.done)
		st_die("out of memory");
	int64_t next_print = st_now_ns(), end_by = st_step_deadline(j, release);
	while (pv.ndone < j->size) {
		if (st_now_ns() > end_by) {
			char what[64];
			for (int r = 0; r < j->size; r++)
				pv.done[r] = !pv.done[r];
			snprintf(what, sizeof(what), "the end of phase %s", st_phase_names[phase]);
			st_step_abort_hung(j, pv.done, what, release);
		}
		if (!pv.done[0] &&
		    st_worker_phase_wait(w, st_now_ns() + (step < 50000000 ? step : 50000000))) {
			pv.done[0] = 1;
			pv.ndone++;
			st_stonewall_poll(j, sw, w, 1);
		} else if (!pv.done[0]) {
			st_stonewall_poll(j, sw, w, 0);
		} else {
			struct timespec ts = { 0, 20000000 };
			nanosleep(&ts, NULL);
		}
		pv.bytes[0] = st_worker_live_bytes(w);
		progress_drain(j, &pv);
		int64_t now = st_now_ns();
		if (now >= next_print) {
			progress_print(j, c, phase, total, release, &pv, now);
			next_print = now + 250000000;
		}
	}
	printf("\r\033[K");
	fflush(stdout);
	free(pv.bytes);
	free(pv.done);
}

/* Rank 0: a line per finished combination (live) or phase (plain). */
void st_progress_line(const struct job *j, const struct st_combo *c, uint64_t total,
		      const struct st_phase_record *ph, int nph, const char *status)
{
	if (j->progress == PROGRESS_NONE)
		return;
	char text[1024];
	st_combo_text(&j->cfg, c, text, sizeof(text));
	printf("[%u/%llu] %s", c->seq + 1, (unsigned long long)total, text);
	if (c->iteration || j->cfg.o[ST_OPT_ITERATIONS].v[0] > 1)
		printf(" iter=%u", c->iteration + 1);
	printf(" :");
	for (int i = 0; i < nph; i++) {
		uint64_t bytes = 0, ops = 0;
		int64_t s = INT64_MAX, e = INT64_MIN;
		for (int r = 0; r < j->size; r++) {
			const struct st_rank_result *rr = &ph[i].ranks[r];
			if (rr->role != ST_ROLE_CLIENT || !rr->nthreads)
				continue;
			bytes += rr->bytes;
			ops += rr->ops;
			if (rr->start_ns < s)
				s = rr->start_ns;
			if (rr->end_ns > e)
				e = rr->end_ns;
		}
		if ((1u << ph[i].phase) & ST_PHASES_META) /* operations, not bytes */
			printf(" %s %.0f ops/s", st_phase_names[ph[i].phase],
			       e > s ? (double)ops * 1e9 / (double)(e - s) : 0.0);
		else
			printf(" %s %.1f MB/s", st_phase_names[ph[i].phase],
			       e > s ? (double)bytes * 1e3 / (double)(e - s) : 0.0);
	}
	if (strcmp(status, ST_COMBO_OK))
		printf(" [%s]", status);
	printf("\n");
	fflush(stdout);
}
