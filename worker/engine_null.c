/*
 * engine_null.c - an engine that does no I/O, for tests.
 *
 * Each read/write "takes" --null-delay: the thread sleeps until an absolute
 * time on its own schedule (call k of a phase ends at t0 + (k+1) * delay),
 * so oversleeping one call does not add up over a phase and the phase time
 * is known in advance: ops x delay. --null-error ERRNO with
 * --null-error-at N makes the Nth call of each thread (counted over the
 * thread's life in the combination) fail with that errno.
 *
 * Reads ahead as an engine with a queue would: a prefetched block's call
 * starts when it is announced and ends one delay later, so with --iodepth N
 * the worker keeps N calls in flight and reads go N times as fast (the
 * oracle of the worker's read-ahead). It times its calls itself
 * (time_calls), as an engine with calls in flight must: from the start of a
 * call (its announcement, when read ahead) to its end, one delay, at every
 * depth - not the wait of the pread that takes a block already there.
 *
 * --null-delay-step makes rank r's calls take --null-delay + r x step, so
 * clients of known, different rates test what depends on them (stonewall).
 * Every metadata operation is one call, of one delay, whatever its size;
 * fsync takes one delay after a thread's last call (a phase's tail).
 *
 * --null-surface FILE (common/surface.h) gives the delay as a function of
 * the combination's options, in place of --null-delay: base x the factors
 * that hold x a seeded noise draw per (combination, iteration, rank), so a
 * test of advise or of a search knows the best combination in advance.
 */
#include "engine.h"

#include "../common/surface.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

struct null_rank {
	int64_t delay_ns; /* per call, ns */
	int err;	  /* errno to inject, 0 none */
	int64_t err_at;	  /* index of the failing call */
};

#define NULL_RA ST_IODEPTH_MAX /* read-ahead slots: one per call in flight */

struct null_thread {
	const struct null_rank *r;
	int64_t calls;	      /* calls made so far */
	struct timespec next; /* when the next call may end (CLOCK_MONOTONIC) */
	int have_next;	      /* schedule started (reset at open) */
	struct st_hist *lat;  /* where each call's start-to-end time goes (time_calls) */
	struct {
		uint64_t off;	   /* block announced */
		int64_t start_ns;  /* when its call started (announced), CLOCK_MONOTONIC ns */
		int64_t done_ns;   /* when its call ends, CLOCK_MONOTONIC ns */
		int used;
	} ra[NULL_RA];
};

static int null_setup(const struct st_engine_env *env, void **rs, char *msg, size_t n)
{
	if (env->cfg->o[ST_OPT_NULL_FAIL_SETUP].n &&
	    env->cfg->o[ST_OPT_NULL_FAIL_SETUP].v[0] == env->rank) {
		snprintf(msg, n, "injected setup failure on rank %d (--null-fail-setup)", env->rank);
		return -EIO;
	}
	struct null_rank *r = calloc(1, sizeof(*r));
	if (!r)
		return -ENOMEM;
	r->delay_ns = env->cfg->o[ST_OPT_NULL_DELAY].v[0];
	if (env->cfg->o[ST_OPT_NULL_SURFACE].n) {
		struct st_surface *s = malloc(sizeof(*s));
		if (!s || st_surface_load(env->cfg->o[ST_OPT_NULL_SURFACE].s, s, msg, n)) {
			if (!s)
				snprintf(msg, n, "--null-surface: out of memory");
			free(s);
			free(r);
			return -EINVAL;
		}
		r->delay_ns = st_surface_delay_ns(s, env->combo, env->rank);
		free(s);
	}
	r->delay_ns += env->rank * env->cfg->o[ST_OPT_NULL_DELAY_STEP].v[0];
	if (env->cfg->o[ST_OPT_NULL_ERROR].n) {
		r->err = (int)env->cfg->o[ST_OPT_NULL_ERROR].v[0];
		r->err_at = env->cfg->o[ST_OPT_NULL_ERROR_AT].v[0];
	}
	*rs = r;
	return 0;
}

/* Rank 0, before anything is created: the surface parses, and replaces
 * --null-delay rather than adding to it. */
static int null_validate(const struct st_config *cfg, int64_t deadline_ns, char *err, size_t n)
{
	(void)deadline_ns;
	if (!cfg->o[ST_OPT_NULL_SURFACE].n)
		return 0;
	if (cfg->o[ST_OPT_NULL_DELAY].v[0]) {
		snprintf(err, n, "--null-surface: '%s' gives the delay; --null-delay cannot be given "
				 "with it",
			 cfg->o[ST_OPT_NULL_SURFACE].s);
		return -1;
	}
	struct st_surface *s = malloc(sizeof(*s));
	if (!s) {
		snprintf(err, n, "--null-surface: out of memory");
		return -1;
	}
	int rc = st_surface_load(cfg->o[ST_OPT_NULL_SURFACE].s, s, err, n);
	free(s);
	return rc;
}

static void null_teardown(void *rs)
{
	free(rs);
}

static int null_thread_init(void *rs, int thread, void **ts, char *msg, size_t n)
{
	(void)thread;
	(void)msg;
	(void)n;
	struct null_thread *t = calloc(1, sizeof(*t));
	if (!t)
		return -ENOMEM;
	t->r = rs;
	*ts = t;
	return 0;
}

static void null_thread_fini(void *ts)
{
	free(ts);
}

static int null_open(void *ts, const char *path, unsigned flags, void **fh, int *direct)
{
	(void)path;
	struct null_thread *t = ts;
	t->have_next = 0;
	for (int i = 0; i < NULL_RA; i++)
		t->ra[i].used = 0;
	*direct = (flags & ST_OPEN_DIRECT) != 0;
	*fh = t;
	return 0;
}

static int64_t mono_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static void null_time_calls(void *ts, struct st_hist *h)
{
	struct null_thread *t = ts;
	t->lat = h;
}

static ssize_t null_call(struct null_thread *t, size_t len)
{
	int64_t k = t->calls++, start = mono_ns();
	if (t->r->delay_ns > 0) {
		if (!t->have_next) {
			clock_gettime(CLOCK_MONOTONIC, &t->next);
			t->have_next = 1;
		}
		int64_t ns = t->next.tv_nsec + t->r->delay_ns;
		t->next.tv_sec += ns / 1000000000;
		t->next.tv_nsec = ns % 1000000000;
		while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &t->next, NULL) == EINTR)
			;
	}
	if (t->r->err && k == t->r->err_at)
		return -t->r->err;
	if (t->lat)
		st_hist_add(t->lat, (uint64_t)(mono_ns() - start));
	return (ssize_t)len;
}

static ssize_t null_pwrite(void *ts, void *fh, const void *buf, size_t len, uint64_t off)
{
	(void)fh;
	(void)buf;
	(void)off;
	return null_call(ts, len);
}

static int null_prefetch(void *ts, void *fh, size_t len, uint64_t off)
{
	(void)fh;
	(void)len;
	struct null_thread *t = ts;
	for (int i = 0; i < NULL_RA; i++)
		if (!t->ra[i].used) {
			t->ra[i].used = 1;
			t->ra[i].off = off;
			t->ra[i].start_ns = mono_ns();
			t->ra[i].done_ns = t->ra[i].start_ns + t->r->delay_ns;
			return 0;
		}
	return -EAGAIN;
}

static ssize_t null_pread(void *ts, void *fh, void *buf, size_t len, uint64_t off)
{
	(void)fh;
	(void)buf;
	struct null_thread *t = ts;
	for (int i = 0; i < NULL_RA; i++) {
		if (!t->ra[i].used || t->ra[i].off != off)
			continue;
		t->ra[i].used = 0;
		struct timespec until = { t->ra[i].done_ns / 1000000000, t->ra[i].done_ns % 1000000000 };
		while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &until, NULL) == EINTR)
			;
		/* the schedule of unannounced calls continues from here */
		clock_gettime(CLOCK_MONOTONIC, &t->next);
		t->have_next = 1;
		int64_t k = t->calls++;
		if (t->r->err && k == t->r->err_at)
			return -t->r->err;
		if (t->lat)
			st_hist_add(t->lat, (uint64_t)(t->ra[i].done_ns - t->ra[i].start_ns));
		return (ssize_t)len;
	}
	return null_call(ts, len);
}

/* fsync (--fsync on) takes one delay too, on the thread's schedule: a
 * phase's tail of known length (the COMMIT of an NFS write), not a call */
static int null_fsync(void *ts, void *fh)
{
	struct null_thread *t = ts;
	(void)fh;
	if (t->r->delay_ns > 0 && t->have_next) {
		int64_t ns = t->next.tv_nsec + t->r->delay_ns;
		t->next.tv_sec += ns / 1000000000;
		t->next.tv_nsec = ns % 1000000000;
		while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &t->next, NULL) == EINTR)
			;
	}
	return 0;
}

static int null_fh_op(void *ts, void *fh)
{
	(void)ts;
	(void)fh;
	return 0;
}

static int null_path_op(void *rs, const char *path)
{
	(void)rs;
	(void)path;
	return 0;
}

static int null_dir_open(void *ts, void *parent, const char *name, int create, void **dh)
{
	(void)parent;
	(void)name;
	(void)create;
	struct null_thread *t = ts;
	if (!parent)
		t->have_next = 0; /* a phase's schedule starts with its first directory */
	*dh = ts;
	return 0;
}

static void null_dir_close(void *ts, void *dh)
{
	(void)ts;
	(void)dh;
}

static ssize_t null_meta(void *ts, void *dh, int op, const char *name, void *buf, size_t len,
			 unsigned flags)
{
	(void)dh;
	(void)name;
	(void)buf;
	struct null_thread *t = ts;
	if (op == ST_META_RMDIR && (flags & ST_META_CLEANUP))
		return 0; /* cleanup, not an operation of a phase */
	ssize_t n = null_call(t, len);
	return n < 0 || op == ST_META_CREATE || op == ST_META_OPEN ? n : 0;
}

/* A listing of what the worker expects (the null engine keeps no files):
 * each entry one call of one delay, as every other metadata operation. */
static int null_dir_next(void *ts, void *dh, uint64_t want, char *name, size_t n)
{
	(void)dh;
	if (!want)
		return 0;
	ssize_t rc = null_call(ts, 0);
	if (rc < 0)
		return (int)rc;
	snprintf(name, n, "f");
	return 1;
}

const struct st_engine st_engine_null = {
	.name = "null",
	.help = "no I/O: each call takes --null-delay (or what --null-surface gives) and fails as --null-error says; NFS "
		"options are stored as asked (for tests, and the coordinator's own cost)",
	.caps = ST_EC_NO_TARGET,
	.takes = ST_NEEDS_NFS | ST_NEEDS_SIM,
	.validate = null_validate,
	.setup = null_setup,
	.teardown = null_teardown,
	.thread_init = null_thread_init,
	.thread_fini = null_thread_fini,
	.open = null_open,
	.pwrite = null_pwrite,
	.pread = null_pread,
	.fsync = null_fsync,
	.close = null_fh_op,
	.prefetch = null_prefetch,
	.time_calls = null_time_calls,
	.dir_open = null_dir_open,
	.dir_close = null_dir_close,
	.meta = null_meta,
	.dir_next = null_dir_next,
	.mkdir = null_path_op,
	.rmdir = null_path_op,
	.unlink = null_path_op,
};
