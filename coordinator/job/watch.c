/*
 * watch.c - rank 0's watch over the job (see watch.h).
 */
#include "watch.h"

#include "../../common/net.h"
#include "../../common/util.h"
#include "../store/store.h"
#include "die.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/resource.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <unistd.h>

/* After recording a death, how long the watch waits for mpirun's SIGTERM
 * before it ends rank 0 itself (mpirun sends it about 1 s after a death). */
#define WAIT_FOR_KILL_NS (5 * 1000000000LL)

/* Rank 0's heartbeat on every lifeline, and the gap between two wake-ups
 * of its watch thread past which rank 0 itself was stopped (or starved). */
#define BEAT_NS 1000000000LL
#define GAP_NS (3 * 1000000000LL)

/* The bytes on a lifeline. Rank 0 sends: */
#define LL_BEAT 'h' /* rank 0 is alive */
#define LL_BYE 'b'  /* the job ends in order */
#define LL_END 'e'  /* the run is aborted: remove your files, say LL_DONE */
#define LL_FIN 'f'  /* every rank is done (or out of time): end now */
/* and another rank, before it ends because rank 0 went silent: */
#define LL_SILENT 's'
/* or on a signal (then the signal's number, one byte): */
#define LL_SIGNAL 'g'
/* and once its files are gone, after a signal or LL_END: */
#define LL_DONE 'd'

/* Ending on a signal, the ranks end together: Open MPI's mpirun sends
 * SIGTERM to every rank, then SIGKILL to all as soon as one has exited
 * (its 1 s grace, odls_base_sigkill_timeout, is a sleep that the first
 * SIGCHLD cuts short). A rank that ended first took the others' time:
 * rank 0 was killed before it marked the run aborted (under load, 4 times
 * in 25), or a rank before its files were gone. So no rank ends before
 * rank 0 says so, which it does once the run is marked and every rank has
 * removed its files, or when this long has passed (the files' own limit
 * is 2 s, job.c: remove_files_on_signal). */
#define END_WAIT_NS (3 * 1000000000LL)

struct st_watch {
	int rank, size;
	int lifeline;	      /* other ranks: the connection to rank 0 */
	int lfd, sfd, efd;    /* rank 0: listener, signalfd, stop eventfd */
	int endfd;	      /* rank 0: eventfd, the job is to end (a hung rank) */
	int lfd_full;	      /* rank 0: out of descriptors, the listener is not watched */
	int *fds;	      /* rank 0: per rank, its lifeline (-1: none yet) */
	const struct st_host_info *hosts;
	struct st_abort_mark *mark; /* rank 0: the store, to mark the run aborted */
	char run_id[40];
	uint64_t total;
	pthread_t thread;
	int running;
	atomic_int seq, phase;
	pthread_mutex_t lock; /* guards aborted */
	int aborted;
	int64_t silence_ns;   /* others: rank 0 silent this long ends the rank */
	st_watch_cleanup_fn *cleanup; /* as the rank ends on a signal: remove its files */
	void *cleanup_arg;
	atomic_llong gap_ns;  /* rank 0: the longest stop of its watch thread ... */
	atomic_llong gap_end; /* ... and when it ended (local clock) */
};

static sigset_t watched_signals(void)
{
	sigset_t s;
	sigemptyset(&s);
	sigaddset(&s, SIGTERM);
	sigaddset(&s, SIGINT);
	sigaddset(&s, SIGHUP);
	return s;
}

void st_watch_block_signals(void)
{
	sigset_t s = watched_signals();
	pthread_sigmask(SIG_BLOCK, &s, NULL);
}

void st_watch_set_cleanup(struct st_watch *w, st_watch_cleanup_fn *fn, void *arg)
{
	if (!w)
		return;
	pthread_mutex_lock(&w->lock);
	w->cleanup_arg = arg;
	w->cleanup = fn;
	pthread_mutex_unlock(&w->lock);
}

/* The rank's own files of the run, as it ends on a signal; what could not
 * be removed is said in left ("" when nothing is left). */
static void remove_own_files(struct st_watch *w, char *left, size_t n)
{
	pthread_mutex_lock(&w->lock);
	st_watch_cleanup_fn *fn = w->cleanup;
	void *arg = w->cleanup_arg;
	pthread_mutex_unlock(&w->lock);
	left[0] = '\0';
	if (fn)
		fn(arg, left, n);
}

/* Another rank: its files go, it says so, and it ends when rank 0 says
 * the job ends (LL_FIN), rank 0 is gone, or END_WAIT_NS and a second
 * have passed; exit status 3. */
static _Noreturn void other_ends(struct st_watch *w)
{
	char m[ST_WATCH_LEFT_MAX + 2] = { LL_DONE };
	remove_own_files(w, m + 1, sizeof(m) - 1);
	if (w->lifeline < 0)
		_exit(ST_EXIT_ABORTED);
	/* LL_DONE, then what is left ("" if nothing), with its '\0' */
	(void)!send(w->lifeline, m, strlen(m) + 1, MSG_NOSIGNAL);
	int64_t until = st_now_ns() + END_WAIT_NS + 1000000000LL;
	for (int64_t left; (left = until - st_now_ns()) > 0;) {
		struct pollfd p = { .fd = w->lifeline, .events = POLLIN };
		int rc = poll(&p, 1, (int)(left / 1000000) + 1);
		if (rc < 0 && errno == EINTR)
			continue;
		char b[64];
		ssize_t got = rc > 0 ? recv(w->lifeline, b, sizeof(b), 0) : -1;
		if (got <= 0 || memchr(b, LL_FIN, (size_t)got))
			break;
	}
	_exit(ST_EXIT_ABORTED);
}

/* Rank 0, ending: what one rank has said since LL_END. */
struct said {
	int state; /* 0: nothing yet, 1: LL_DONE and part of its text, 2: all of it */
	size_t len;
	char text[ST_WATCH_LEFT_MAX];
};

static void hear(struct said *s, const char *b, size_t got)
{
	for (size_t i = 0; i < got && s->state < 2; i++)
		if (s->state == 0)
			s->state = b[i] == LL_DONE; /* before it: LL_SIGNAL, LL_SILENT */
		else if (b[i] == '\0')
			s->state = 2;
		else if (s->len + 1 < sizeof(s->text))
			s->text[s->len++] = b[i];
}

/* Rank 0: until every lifeline said LL_DONE with its text, or closed, or
 * END_WAIT_NS; p[r] is rank r's lifeline (fd -1: not waited for). */
static void hear_all(struct st_watch *w, struct pollfd *p, struct said *s, int *shut)
{
	int open = 0;
	for (int r = 1; r < w->size; r++)
		open += p[r].fd >= 0;
	for (int64_t until = st_now_ns() + END_WAIT_NS, left;
	     open > 0 && (left = until - st_now_ns()) > 0;) {
		if (poll(p + 1, (nfds_t)w->size - 1, (int)(left / 1000000) + 1) < 0 && errno != EINTR)
			break;
		for (int r = 1; r < w->size; r++) {
			if (p[r].fd < 0 || !p[r].revents)
				continue;
			char b[512];
			ssize_t got = recv(p[r].fd, b, sizeof(b), MSG_DONTWAIT);
			if (got > 0)
				hear(&s[r], b, (size_t)got);
			shut[r] = got == 0 || (got < 0 && errno != EAGAIN && errno != EINTR);
			if (shut[r] || s[r].state == 2) {
				p[r].fd = -1;
				open--;
			}
		}
	}
}

/* Rank 0: what the ranks left behind, in run.cleanup and on stderr (as a
 * run's end says it), from what each said (or did not say). */
static void record_left(struct st_watch *w, const struct pollfd *p, const struct said *s,
			const int *shut, const char *own)
{
	size_t cap = (size_t)w->size * (ST_WATCH_LEFT_MAX + 96) + 1, off = 0;
	char *all = calloc(1, cap);
	for (int r = 0; all && r < w->size; r++) {
		const char *t = r == 0 ? own : s[r].state == 2 ? s[r].text : NULL;
		if (r && !t && p[r].events) /* waited for, and no whole answer */
			t = shut[r] ? "ended before it said what it left (its files may be left)"
				    : "said nothing in 3 s (hung?): its files and mount may be left";
		if (t && *t)
			off += (size_t)snprintf(all + off, cap - off, "%srank %d (host %s): %s",
						off ? "; " : "", r, w->hosts[r].hostname, t);
	}
	if (all && off) {
		char err[ST_ERR_MAX];
		fprintf(stderr, "stcluster: left behind on the target (remove it by hand, or with "
				"--resume): %s\n", all);
		if (w->mark && st_store_abort_cleanup(w->mark, all, err, sizeof(err)) < 0)
			fprintf(stderr, "stcluster: could not store what was left behind: %s\n", err);
	}
	free(all);
}

/* Rank 0, the run marked aborted: every rank is told to remove its files
 * (LL_END), rank 0 removes its own and waits until every lifeline said
 * LL_DONE or closed (or END_WAIT_NS), stores what is left, then ends them
 * all (LL_FIN, with fin; without, MPI_Abort will); the caller ends rank 0.
 * from, rest: a rank that said rest (restlen bytes) after its signal, in
 * the watch's own read. */
static void rank0_ends(struct st_watch *w, int from, const char *rest, size_t restlen, int fin)
{
	struct pollfd *p = calloc((size_t)w->size, sizeof(*p));
	struct said *s = calloc((size_t)w->size, sizeof(*s));
	int *shut = calloc((size_t)w->size, sizeof(int));
	char own[ST_WATCH_LEFT_MAX];
	for (int r = 1; p && s && shut && r < w->size; r++) {
		p[r] = (struct pollfd){ .fd = w->fds[r], .events = w->fds[r] >= 0 ? POLLIN : 0 };
		if (w->fds[r] >= 0)
			(void)!send(w->fds[r], (char[1]){ LL_END }, 1, MSG_DONTWAIT | MSG_NOSIGNAL);
	}
	if (p && s && shut && from > 0 && rest) {
		hear(&s[from], rest, restlen);
		if (s[from].state == 2)
			p[from].fd = -1;
	}
	remove_own_files(w, own, sizeof(own));
	if (p && s && shut) {
		hear_all(w, p, s, shut);
		record_left(w, p, s, shut, own);
	}
	for (int r = 1; fin && r < w->size; r++)
		if (w->fds[r] >= 0)
			(void)!send(w->fds[r], (char[1]){ LL_FIN }, 1, MSG_DONTWAIT | MSG_NOSIGNAL);
	free(p);
	free(s);
	free(shut);
}

void st_watch_unblock_signals(void)
{
	sigset_t s = watched_signals();
	pthread_sigmask(SIG_UNBLOCK, &s, NULL);
}

void st_watch_where(struct st_watch *w, int seq, int phase)
{
	if (!w || w->rank)
		return;
	atomic_store(&w->seq, seq);
	atomic_store(&w->phase, phase);
}

void st_watch_place(struct st_watch *w, char *buf, size_t n)
{
	if (!w) {
		st_copy(buf, n, "");
		return;
	}
	int seq = atomic_load(&w->seq), phase = atomic_load(&w->phase);
	if (seq < 0)
		snprintf(buf, n, "between combinations");
	else if (phase < 0)
		snprintf(buf, n, "combination %d/%llu, preparing", seq + 1,
			 (unsigned long long)w->total);
	else
		snprintf(buf, n, "combination %d/%llu, phase %s", seq + 1,
			 (unsigned long long)w->total, st_phase_names[phase]);
}

int st_watch_abort(struct st_watch *w, int rank, const char *reason)
{
	if (!w || w->rank)
		return -1;
	pthread_mutex_lock(&w->lock);
	if (w->aborted) {
		pthread_mutex_unlock(&w->lock);
		return -1;
	}
	w->aborted = 1;
	char err[ST_ERR_MAX] = "the store could not be opened";
	int stored = w->mark ? st_store_abort_mark(w->mark, rank, reason, err, sizeof(err)) : -1;
	if (stored < 0)
		fprintf(stderr, "stcluster: %s; could not mark run %s aborted: %s\n", reason,
			w->run_id, err);
	else
		fprintf(stderr,
			"stcluster: %s; run %s is marked aborted with %d of %llu combinations "
			"stored (finish it with --resume %s)\n",
			reason, w->run_id, stored, (unsigned long long)w->total, w->run_id);
	fflush(stderr);
	pthread_mutex_unlock(&w->lock);
	return stored;
}

/* A lifeline closed (or failed): rank r is gone. A process that ends with
 * bytes of rank 0's unread on its socket closes it with a reset, not a FIN
 * (which of the two depends only on when it died): both are "closed". */
static void rank_gone(struct st_watch *w, int r, int err)
{
	char place[128], reason[512], e[32];
	if (err == ECONNRESET)
		err = 0;
	st_watch_place(w, place, sizeof(place));
	snprintf(reason, sizeof(reason), "rank %d (host %s) ended during %s (its lifeline %s)", r,
		 w->hosts[r].hostname, place, err ? st_errno_name(err, e, sizeof(e)) : "closed");
	st_watch_abort(w, r, reason);
}

/* Rank r got signal sig from mpirun or the user: recorded with no rank to
 * blame. mpirun signals every rank at once on Ctrl-C, so the first rank to
 * get it may be any; each other rank says so on its lifeline, so that its
 * lifeline's close is not taken for a failure. Then the ranks end together
 * (rank0_ends; rest: what r said after its signal). */
static _Noreturn void signalled(struct st_watch *w, int r, int sig, const char *rest,
				size_t restlen)
{
	char place[128], reason[512];
	st_watch_place(w, place, sizeof(place));
	snprintf(reason, sizeof(reason),
		 "rank %d got %s during %s (mpirun sends SIGTERM when a rank fails or on Ctrl-C)", r,
		 sig == SIGTERM ? "SIGTERM" : sig == SIGINT ? "SIGINT" : sig == SIGHUP ? "SIGHUP" : "a signal",
		 place);
	st_watch_abort(w, -1, reason);
	rank0_ends(w, r, rest, restlen, 1);
	_exit(ST_EXIT_ABORTED);
}

/* Rank r ended because it heard no heartbeat from rank 0: rank 0 was the
 * one stopped (or hung), and the reason says so. */
static void rank0_silent(struct st_watch *w, int r)
{
	char place[128], reason[512];
	st_watch_place(w, place, sizeof(place));
	snprintf(reason, sizeof(reason),
		 "rank 0 (host %s) went silent during %s: rank %d (host %s) heard no heartbeat "
		 "from it for %.1f s and ended (rank 0 stopped or hung?)",
		 w->hosts[0].hostname, place, r, w->hosts[r].hostname, (double)w->silence_ns / 1e9);
	st_watch_abort(w, 0, reason);
}

int64_t st_watch_rank0_stopped(struct st_watch *w, int64_t since)
{
	if (!w || w->rank)
		return 0;
	return atomic_load(&w->gap_end) >= since ? atomic_load(&w->gap_ns) : 0;
}

/* Rank 0 holds one lifeline per rank: a job of more ranks than the soft
 * descriptor limit (1024 by default) needs it raised, up to the hard one
 * (issue 14: 1,024+ ranks). Says so when even that is short. */
void st_watch_room_for_lifelines(int size)
{
	struct rlimit rl;
	rlim_t want = (rlim_t)size + 256; /* the store, MPI's own, the listener... */
	if (getrlimit(RLIMIT_NOFILE, &rl) || rl.rlim_cur >= want)
		return;
	rl.rlim_cur = rl.rlim_max == RLIM_INFINITY || rl.rlim_max > want ? want : rl.rlim_max;
	if (setrlimit(RLIMIT_NOFILE, &rl) || rl.rlim_cur < want)
		fprintf(stderr, "stcluster: rank 0 may hold %llu descriptors (ulimit -n), fewer than the "
				"%d ranks' lifelines need: the ranks beyond are watched by the deadlines only\n",
			(unsigned long long)rl.rlim_cur, size);
}

/* A new connection announces its rank (4 bytes); anything else is dropped.
 * Out of descriptors (EMFILE, ENFILE), the listener is no longer watched:
 * it would stay readable and the thread would spin. */
static void take_lifeline(struct st_watch *w)
{
	int fd = accept4(w->lfd, NULL, NULL, SOCK_CLOEXEC);
	if (fd < 0) {
		if (errno == EMFILE || errno == ENFILE)
			w->lfd_full = 1;
		return;
	}
	int32_t r = -1;
	struct pollfd p = { .fd = fd, .events = POLLIN };
	if (poll(&p, 1, 5000) != 1 || recv(fd, &r, sizeof(r), MSG_WAITALL) != sizeof(r) || r <= 0 ||
	    r >= w->size || w->fds[r] >= 0) {
		close(fd);
		return;
	}
	w->fds[r] = fd;
}

/* In got bytes b of a lifeline: LL_SIGNAL and its signal, NULL none (after
 * them come LL_DONE and a text: no byte there is LL_SILENT); *silent: the
 * rank said LL_SILENT before it. */
static const char *lifeline_said(const char *b, ssize_t got, int *silent)
{
	const char *g = got > 1 ? memchr(b, LL_SIGNAL, (size_t)got - 1) : NULL;
	*silent = got > 0 && memchr(b, LL_SILENT, g ? (size_t)(g - b) : (size_t)got);
	return g;
}

/* Rank 0's watch: what the ranks said on their lifelines (p[i], i >= 4,
 * rank who[i]) first: a rank that ended because rank 0 was silent says so
 * before mpirun's SIGTERM (SIGCONT, then SIGTERM). A lifeline that closed
 * is a rank gone: mpirun should end rank 0 by *kill_by. */
static void read_lifelines(struct st_watch *w, const struct pollfd *p, const int *who, int n,
			   int64_t *kill_by)
{
	/* first, any rank that ended because rank 0 was silent, whichever
	 * lifeline comes first: woken from a stop, rank 0 finds the other
	 * ranks' SIGTERMs (mpirun's, after that rank ended) beside it */
	for (int i = 4; i < n; i++) {
		char b[64];
		int silent;
		ssize_t got = p[i].revents ? recv(p[i].fd, b, sizeof(b), MSG_PEEK | MSG_DONTWAIT) : 0;
		lifeline_said(b, got, &silent);
		if (silent)
			rank0_silent(w, who[i]);
	}
	for (int i = 4; i < n; i++) {
		if (!p[i].revents)
			continue;
		char b[64];
		int silent;
		ssize_t got = recv(p[i].fd, b, sizeof(b), MSG_DONTWAIT);
		const char *g = lifeline_said(b, got, &silent);
		if (silent) /* (arrived after the look above) */
			rank0_silent(w, who[i]);
		if (g)
			signalled(w, who[i], (unsigned char)g[1], g + 2, (size_t)(b + got - g - 2));
		if (got > 0 || (got < 0 && (errno == EAGAIN || errno == EINTR)))
			continue;
		int r = who[i], err = got < 0 ? errno : 0;
		close(w->fds[r]);
		w->fds[r] = -1;
		rank_gone(w, r, err);
		if (!*kill_by)
			*kill_by = st_now_ns() + WAIT_FOR_KILL_NS;
	}
}

static void *watch_thread(void *arg)
{
	struct st_watch *w = arg;
	struct pollfd *p = calloc((size_t)w->size + 4, sizeof(*p));
	int *who = calloc((size_t)w->size + 4, sizeof(int));
	int64_t kill_by = 0; /* a death is recorded: mpirun should end us by then */
	int64_t last_wake = st_now_ns(), last_beat = 0;
	if (!p || !who)
		st_die("out of memory");
	for (;;) {
		int n = 0;
		p[n++] = (struct pollfd){ .fd = w->efd, .events = POLLIN };
		p[n++] = (struct pollfd){ .fd = w->sfd, .events = POLLIN };
		p[n++] = (struct pollfd){ .fd = w->lfd_full ? -1 : w->lfd, .events = POLLIN };
		p[n++] = (struct pollfd){ .fd = w->endfd, .events = POLLIN };
		for (int r = 1; r < w->size; r++)
			if (w->fds[r] >= 0) {
				who[n] = r;
				p[n++] = (struct pollfd){ .fd = w->fds[r], .events = POLLIN };
			}
		if (poll(p, (nfds_t)n, kill_by ? 200 : (int)(BEAT_NS / 1000000)) < 0 && errno != EINTR)
			break;
		int64_t now = st_now_ns();
		if (now - last_wake > GAP_NS && now - last_wake > atomic_load(&w->gap_ns)) {
			/* rank 0 was stopped (SIGSTOP) or starved: remembered, so that a
			 * step it then finds late blames rank 0, not the others */
			atomic_store(&w->gap_ns, now - last_wake);
			atomic_store(&w->gap_end, now);
		}
		last_wake = now;
		if (p[0].revents)
			break;
		read_lifelines(w, p, who, n, &kill_by);
		if (p[1].revents) {
			struct signalfd_siginfo si;
			if (read(w->sfd, &si, sizeof(si)) == sizeof(si))
				signalled(w, 0, (int)si.ssi_signo, NULL, 0);
		}
		if (p[2].revents)
			take_lifeline(w);
		if (p[3].revents) {
			/* st_watch_end (a hung rank): then rank 0 ends the job by
			 * MPI_Abort (mpirun then waits for no rank stuck in D state;
			 * after another rank's exit it would) */
			rank0_ends(w, -1, NULL, 0, 0);
			break;
		}
		if (now - last_beat >= BEAT_NS) {
			char beat = LL_BEAT;
			for (int r = 1; r < w->size; r++)
				if (w->fds[r] >= 0)
					(void)!send(w->fds[r], &beat, 1, MSG_DONTWAIT | MSG_NOSIGNAL);
			last_beat = now;
		}
		/* mpirun did not end the job (e.g. --enable-recovery): rank 0
		 * would wait for the dead rank forever, so it ends itself */
		if (kill_by && st_now_ns() > kill_by)
			_exit(ST_EXIT_ABORTED);
	}
	free(p);
	free(who);
	return NULL;
}

/* Another rank: its lifeline closes without rank 0's goodbye byte when rank
 * 0 is gone. mpirun normally ends this rank then; if it does not (with
 * --enable-recovery it would wait in a collective forever), it ends itself.
 * Rank 0 beats every second; silent for the phase deadline and its grace
 * (stopped, hung), rank 0 would keep the job waiting for ever: this rank
 * tells it why and ends, and mpirun then ends the job. */
static void *lifeline_thread(void *arg)
{
	struct st_watch *w = arg;
	struct pollfd p[3] = { { .fd = w->efd, .events = POLLIN },
			       { .fd = w->lifeline, .events = POLLIN },
			       { .fd = w->sfd, .events = POLLIN } };
	int64_t heard = st_now_ns();
	for (;;) {
		int rc = poll(p, 3, 250);
		if (rc < 0) {
			if (errno == EINTR)
				continue;
			return NULL;
		}
		if (p[0].revents)
			return NULL;
		if (p[2].revents) {
			/* mpirun's SIGTERM (a rank failed, Ctrl-C): this rank's files go
			 * with it, so an interrupted run leaves nothing on the target */
			struct signalfd_siginfo si;
			if (read(w->sfd, &si, sizeof(si)) == sizeof(si)) {
				char m[2] = { LL_SIGNAL, (char)si.ssi_signo };
				if (w->lifeline >= 0)
					(void)!send(w->lifeline, m, sizeof(m), MSG_NOSIGNAL);
				other_ends(w);
			}
		}
		if (w->lifeline < 0)
			continue; /* no lifeline: signals only */
		if (rc == 0 || !p[1].revents) {
			int64_t quiet = st_now_ns() - heard;
			if (quiet <= w->silence_ns)
				continue;
			char s = LL_SILENT;
			(void)!send(w->lifeline, &s, 1, MSG_NOSIGNAL);
			fprintf(stderr,
				"stcluster: rank %d (host %s): rank 0 (host %s) silent for %.1f s (no heartbeat "
				"on its lifeline: stopped or hung?); ending\n",
				w->rank, w->hosts[w->rank].hostname, w->hosts[0].hostname,
				(double)quiet / 1e9);
			_exit(ST_EXIT_ABORTED);
		}
		char b[64];
		ssize_t got = recv(w->lifeline, b, sizeof(b), 0);
		if (got > 0 && memchr(b, LL_BYE, (size_t)got))
			return NULL; /* goodbye: the job ends in order */
		if (got > 0 && memchr(b, LL_END, (size_t)got))
			other_ends(w); /* the run is aborted (a signal to another rank) */
		if (got > 0) {
			heard = st_now_ns();
			continue;
		}
		if (got < 0 && errno == EINTR)
			continue;
		fprintf(stderr, "stcluster: rank %d (host %s): rank 0 is gone; ending\n", w->rank,
			w->hosts[w->rank].hostname);
		_exit(ST_EXIT_ABORTED);
	}
}

/* Another rank: connect to rank 0 and say who we are. 0 or -errno. */
static int connect_lifeline(struct st_watch *w, int port)
{
	const struct st_host_info *h0 = &w->hosts[0];
	int64_t deadline = st_now_ns() + 5000000000LL;
	int rc = -EHOSTUNREACH, fd = -1;
	if (!strcmp(h0->hostname, w->hosts[w->rank].hostname))
		rc = st_net_connect("127.0.0.1", port, deadline, &fd);
	char list[sizeof(h0->addresses)];
	st_copy(list, sizeof(list), h0->addresses);
	char *save = NULL;
	for (char *a = strtok_r(list, ",", &save); rc && a; a = strtok_r(NULL, ",", &save))
		rc = st_net_connect(a, port, deadline, &fd);
	if (rc)
		return rc;
	int32_t me = w->rank;
	if (send(fd, &me, sizeof(me), MSG_NOSIGNAL) != sizeof(me)) {
		rc = -errno;
		close(fd);
		return rc;
	}
	w->lifeline = fd;
	return 0;
}

struct st_watch *st_watch_start(MPI_Comm comm, const struct st_host_info *hosts,
				const char *db_path, const char *run_id, uint64_t total,
				int64_t silence_ns)
{
	struct st_watch *w = calloc(1, sizeof(*w));
	if (!w)
		st_die("out of memory");
	MPI_Comm_rank(comm, &w->rank);
	MPI_Comm_size(comm, &w->size);
	w->lifeline = w->lfd = w->sfd = w->efd = w->endfd = -1;
	w->hosts = hosts;
	w->total = total;
	st_copy(w->run_id, sizeof(w->run_id), run_id);
	atomic_init(&w->seq, -1);
	atomic_init(&w->phase, -1);
	atomic_init(&w->gap_ns, 0);
	atomic_init(&w->gap_end, 0);
	w->silence_ns = silence_ns;
	pthread_mutex_init(&w->lock, NULL);
	int port = -1;
	if (w->rank == 0) {
		sigset_t s = watched_signals();
		st_watch_room_for_lifelines(w->size);
		w->fds = malloc((size_t)w->size * sizeof(int));
		if (!w->fds)
			st_die("out of memory");
		for (int r = 0; r < w->size; r++)
			w->fds[r] = -1;
		char err[ST_ERR_MAX];
		w->mark = st_store_abort_mark_open(db_path, run_id, err, sizeof(err));
		if (!w->mark)
			fprintf(stderr, "stcluster: %s\n", err);
		/* a message to a closed stderr (mpirun gone) must not end rank 0 */
		signal(SIGPIPE, SIG_IGN);
		w->sfd = signalfd(-1, &s, SFD_CLOEXEC);
		w->efd = eventfd(0, EFD_CLOEXEC);
		w->endfd = eventfd(0, EFD_CLOEXEC);
		if (w->sfd < 0 || w->efd < 0 || w->endfd < 0)
			st_die("rank 0 cannot watch the job: %s", strerror(errno));
		if (st_net_listen(&w->lfd, &port))
			port = -1;
		/* a backlog of 64: the thread accepts while the others connect */
		if (pthread_create(&w->thread, NULL, watch_thread, w))
			st_die("rank 0 cannot start its watch thread");
		w->running = 1;
	}
	MPI_Bcast(&port, 1, MPI_INT, 0, comm);
	int rc = w->rank && port > 0 ? connect_lifeline(w, port) : w->rank ? -ECONNREFUSED : 0;
	if (w->rank) {
		/* the thread also takes this rank's signals, lifeline or not */
		sigset_t s = watched_signals();
		w->sfd = signalfd(-1, &s, SFD_CLOEXEC);
		w->efd = eventfd(0, EFD_CLOEXEC);
		if (w->sfd < 0 || w->efd < 0 || pthread_create(&w->thread, NULL, lifeline_thread, w))
			st_die("rank %d cannot watch its lifeline", w->rank);
		w->running = 1;
	}
	int *rcs = w->rank == 0 ? calloc((size_t)w->size, sizeof(int)) : NULL;
	MPI_Gather(&rc, 1, MPI_INT, rcs, 1, MPI_INT, 0, comm);
	if (w->rank == 0) {
		if (port < 0)
			fprintf(stderr, "stcluster: rank 0 cannot listen for lifelines; a rank that "
					"dies is found by the deadlines only\n");
		char e[32];
		for (int r = 1; r < w->size && rcs; r++)
			if (rcs[r])
				fprintf(stderr,
					"stcluster: rank %d (host %s) has no lifeline to rank 0 (%s); "
					"if it dies, the deadlines find it\n",
					r, hosts[r].hostname, st_errno_name(-rcs[r], e, sizeof(e)));
	}
	free(rcs);
	return w;
}

void st_watch_end(struct st_watch *w)
{
	uint64_t one = 1;
	if (!w || w->rank || !w->running || write(w->endfd, &one, sizeof(one)) != sizeof(one))
		return;
	pthread_join(w->thread, NULL);
	w->running = 0;
}

void st_watch_stop(struct st_watch *w)
{
	if (!w)
		return;
	if (w->running) {
		uint64_t one = 1;
		if (write(w->efd, &one, sizeof(one)) != sizeof(one))
			st_die("cannot stop the watch thread: %s", strerror(errno));
		pthread_join(w->thread, NULL);
	}
	/* a lifeline the thread never took (it ran late: a short run on a busy
	 * host) is still in the accept queue; closing lfd would reset it, and
	 * its rank would take that for rank 0's death */
	if (w->lfd >= 0)
		fcntl(w->lfd, F_SETFL, fcntl(w->lfd, F_GETFL) | O_NONBLOCK);
	for (int fd; w->lfd >= 0 && (fd = accept4(w->lfd, NULL, NULL, SOCK_CLOEXEC)) >= 0;) {
		if (send(fd, (char[1]){ LL_BYE }, 1, MSG_NOSIGNAL) != 1)
			fprintf(stderr, "stcluster: rank 0: no goodbye to a lifeline: %s\n",
				strerror(errno));
		close(fd);
	}
	/* goodbye: the ranks know the job ends in order, not that rank 0 died */
	for (int r = 0; w->fds && r < w->size; r++)
		if (w->fds[r] >= 0) {
			if (send(w->fds[r], (char[1]){ LL_BYE }, 1, MSG_NOSIGNAL) != 1)
				fprintf(stderr, "stcluster: rank 0: no goodbye to rank %d: %s\n", r,
					strerror(errno));
			close(w->fds[r]);
		}
	if (w->lifeline >= 0)
		close(w->lifeline);
	if (w->lfd >= 0)
		close(w->lfd);
	if (w->sfd >= 0)
		close(w->sfd);
	if (w->efd >= 0)
		close(w->efd);
	if (w->endfd >= 0)
		close(w->endfd);
	pthread_mutex_destroy(&w->lock);
	st_store_abort_mark_close(w->mark);
	free(w->fds);
	free(w);
}
