/*
 * util.h - small helpers every module shares: clocks, bounded string copy,
 * errno names. The one fatal path of the MPI job is coordinator/job/die.h.
 *
 * Invariants: nothing here keeps state; every function is thread-safe.
 */
#ifndef ST_UTIL_H
#define ST_UTIL_H

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>

#define ST_ARRAY_LEN(a) (sizeof(a) / sizeof((a)[0]))

/*
 * The exit statuses, as README ("Exit status") and stcluster(1) (EXIT
 * STATUS, written from coordinator/man.c's table of them) state them, for
 * a run and for every subcommand alike. As fio and IOR users expect, 0 is
 * only "all went well", so a script can branch on it.
 */
enum st_exit {
	ST_EXIT_OK = 0,	       /* run: every combination ok (or skipped); subcommand: done */
	ST_EXIT_FAILURES = 1,  /* run: it finished, but a combination failed to prepare, had
				* errors or did not verify; subcommand: SQL or write error;
				* audit: a hash does not match */
	ST_EXIT_BAD_INPUT = 2, /* bad input, refused before anything was created or changed */
	ST_EXIT_ABORTED = 3,   /* run: it did not finish (a rank died or hung, a signal,
				* rank 0 silent, the store could not be written) */
};

/* CLOCK_MONOTONIC in nanoseconds: the local timeline of one host. */
int64_t st_now_ns(void);

/* CLOCK_REALTIME in nanoseconds since the epoch (wall clock, for humans). */
int64_t st_wall_ns(void);

/* A condition variable whose timed waits are on CLOCK_MONOTONIC (st_now_ns's
 * clock), so a step of the wall clock neither lengthens nor cuts a wait: the
 * only way this program makes one. 0, or an errno value. */
int st_cond_init(pthread_cond_t *cv);

/* Wait on cv (made by st_cond_init; mu held) until it is signalled or the
 * monotonic clock reads until_ns (st_now_ns's timeline; INT64_MAX: no
 * limit). 0 when woken (perhaps spuriously: the caller checks its
 * condition), ETIMEDOUT once until_ns has passed. */
int st_cond_wait_until(pthread_cond_t *cv, pthread_mutex_t *mu, int64_t until_ns);

/* Lock mu, waiting until the monotonic clock reads until_ns at most. 0 when
 * locked, ETIMEDOUT (or another errno value) when not. */
int st_mutex_lock_until(pthread_mutex_t *mu, int64_t until_ns);

/* Thread CPU-independent process CPU times in microseconds (getrusage SELF). */
void st_cpu_us(int64_t *user_us, int64_t *sys_us);

/* The calling thread's own CPU times in microseconds (getrusage THREAD):
 * not the process's other threads, nor the kernel's io-wq workers. */
void st_thread_cpu_us(int64_t *user_us, int64_t *sys_us);

/* FNV-1a (64 bits) of the string s: a name's stable number (the live
 * lock's byte of a run, a target's record file). */
uint64_t st_fnv1a(const char *s);

/* Copy src into dst (size n), always NUL-terminated; returns 0, or -1 when
 * src did not fit (dst then holds a truncated copy). */
int st_copy(char *dst, size_t n, const char *src);

/* "EIO" for EIO etc.; "E<num>" into buf for unknown values. */
const char *st_errno_name(int err, char *buf, size_t n);

/* Parse an errno name ("EIO", "ENOSPC"), a positive number, or "E<number>"
 * (what st_errno_name writes for a value without a name); 0 on success. */
int st_errno_parse(const char *s, int *out);

/* ISO-8601 UTC text of a wall-clock time in ns ("2026-11-30T01:23:45.123Z"). */
void st_iso_time(int64_t wall_ns, char *buf, size_t n);

/* The whole of a file (a /proc file: its size is not known before) into a
 * new NUL-terminated buffer *out (the caller frees it): 0, or -errno. */
int st_read_file(const char *path, char **out);

/* The n words joined by single spaces (a command line as stored), in a new
 * string the caller frees; NULL: out of memory. */
char *st_join_words(int n, char *const *words);

#endif
