/*
 * util.c - clocks, string and errno helpers.
 */
#include "util.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

int64_t st_now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

int64_t st_wall_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

int st_cond_init(pthread_cond_t *cv)
{
	pthread_condattr_t at;
	int rc = pthread_condattr_init(&at);
	if (rc)
		return rc;
	rc = pthread_condattr_setclock(&at, CLOCK_MONOTONIC);
	if (!rc)
		rc = pthread_cond_init(cv, &at);
	pthread_condattr_destroy(&at);
	return rc;
}

int st_cond_wait_until(pthread_cond_t *cv, pthread_mutex_t *mu, int64_t until_ns)
{
	if (until_ns == INT64_MAX)
		return pthread_cond_wait(cv, mu);
	if (until_ns <= st_now_ns())
		return ETIMEDOUT;
	struct timespec ts = { until_ns / 1000000000, until_ns % 1000000000 };
	int rc = pthread_cond_timedwait(cv, mu, &ts);
	return rc == ETIMEDOUT || until_ns <= st_now_ns() ? ETIMEDOUT : 0;
}

int st_mutex_lock_until(pthread_mutex_t *mu, int64_t until_ns)
{
	struct timespec ts = { until_ns / 1000000000, until_ns % 1000000000 };
	return pthread_mutex_clocklock(mu, CLOCK_MONOTONIC, &ts);
}

static void cpu_us(int who, int64_t *user_us, int64_t *sys_us)
{
	struct rusage ru;
	getrusage(who, &ru);
	*user_us = (int64_t)ru.ru_utime.tv_sec * 1000000 + ru.ru_utime.tv_usec;
	*sys_us = (int64_t)ru.ru_stime.tv_sec * 1000000 + ru.ru_stime.tv_usec;
}

void st_cpu_us(int64_t *user_us, int64_t *sys_us)
{
	cpu_us(RUSAGE_SELF, user_us, sys_us);
}

void st_thread_cpu_us(int64_t *user_us, int64_t *sys_us)
{
	cpu_us(RUSAGE_THREAD, user_us, sys_us);
}

uint64_t st_fnv1a(const char *s)
{
	uint64_t h = 1469598103934665603ULL;
	for (const unsigned char *p = (const unsigned char *)s; *p; p++)
		h = (h ^ *p) * 1099511628211ULL;
	return h;
}

int st_copy(char *dst, size_t n, const char *src)
{
	size_t len = strlen(src);
	if (n == 0)
		return -1;
	if (len >= n) {
		memcpy(dst, src, n - 1);
		dst[n - 1] = '\0';
		return -1;
	}
	memcpy(dst, src, len + 1);
	return 0;
}

static const struct {
	int err;
	const char *name;
} errno_names[] = {
	{ EPERM, "EPERM" },	{ ENOENT, "ENOENT" },	  { EINTR, "EINTR" },
	{ EIO, "EIO" },		{ ENXIO, "ENXIO" },	  { EBADF, "EBADF" },
	{ EAGAIN, "EAGAIN" },	{ ENOMEM, "ENOMEM" },	  { EACCES, "EACCES" },
	{ EFAULT, "EFAULT" },	{ EBUSY, "EBUSY" },	  { EEXIST, "EEXIST" },
	{ EXDEV, "EXDEV" },	{ ENOTDIR, "ENOTDIR" },	  { EISDIR, "EISDIR" },
	{ EINVAL, "EINVAL" },	{ EMFILE, "EMFILE" },	  { EFBIG, "EFBIG" },
	{ ENOSPC, "ENOSPC" },	{ ESPIPE, "ESPIPE" },	  { EROFS, "EROFS" },
	{ EPIPE, "EPIPE" },	{ ERANGE, "ERANGE" },	  { ENAMETOOLONG, "ENAMETOOLONG" },
	{ ENOSYS, "ENOSYS" },	{ ENOTEMPTY, "ENOTEMPTY" }, { ELOOP, "ELOOP" },
	{ ESTALE, "ESTALE" },	{ EDQUOT, "EDQUOT" },	  { ETIMEDOUT, "ETIMEDOUT" },
	{ ECONNREFUSED, "ECONNREFUSED" }, { ECONNRESET, "ECONNRESET" },
	{ EHOSTUNREACH, "EHOSTUNREACH" }, { ENOTSUP, "ENOTSUP" },
	{ ECANCELED, "ECANCELED" }, { EOVERFLOW, "EOVERFLOW" },
	{ ENODATA, "ENODATA" }, /* the worker's own: a read came back short */
	/* what mount(8) and mount.nfs report (worker/mount.c, st_mount_errno) */
	{ ENOLCK, "ENOLCK" }, { EPROTONOSUPPORT, "EPROTONOSUPPORT" },
	{ ENODEV, "ENODEV" }, { ENETUNREACH, "ENETUNREACH" }, { E2BIG, "E2BIG" },
};

const char *st_errno_name(int err, char *buf, size_t n)
{
	for (size_t i = 0; i < ST_ARRAY_LEN(errno_names); i++)
		if (errno_names[i].err == err)
			return errno_names[i].name;
	snprintf(buf, n, "E%d", err);
	return buf;
}

int st_errno_parse(const char *s, int *out)
{
	for (size_t i = 0; i < ST_ARRAY_LEN(errno_names); i++)
		if (strcmp(errno_names[i].name, s) == 0) {
			*out = errno_names[i].err;
			return 0;
		}
	/* a number, or "E<number>" as st_errno_name writes one it has no name for */
	const char *num = s[0] == 'E' && s[1] >= '0' && s[1] <= '9' ? s + 1 : s;
	char *end;
	errno = 0;
	long v = strtol(num, &end, 10);
	if (errno || end == num || *end || v <= 0 || v > 4095)
		return -1;
	*out = (int)v;
	return 0;
}

void st_iso_time(int64_t wall_ns, char *buf, size_t n)
{
	time_t t = (time_t)(wall_ns / 1000000000);
	struct tm tm;
	gmtime_r(&t, &tm);
	char base[32];
	strftime(base, sizeof(base), "%Y-%m-%dT%H:%M:%S", &tm);
	snprintf(buf, n, "%s.%03dZ", base, (int)((wall_ns / 1000000) % 1000));
}

int st_read_file(const char *path, char **out)
{
	*out = NULL;
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	size_t cap = 16384, len = 0;
	char *buf = malloc(cap);
	if (!buf) {
		close(fd);
		return -ENOMEM;
	}
	for (;;) {
		if (len + 4096 + 1 > cap) {
			char *nb = realloc(buf, cap * 2);
			if (!nb) {
				free(buf);
				close(fd);
				return -ENOMEM;
			}
			buf = nb;
			cap *= 2;
		}
		ssize_t r = read(fd, buf + len, cap - len - 1);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			int e = errno;
			free(buf);
			close(fd);
			return -e;
		}
		if (r == 0)
			break;
		len += (size_t)r;
	}
	close(fd);
	buf[len] = '\0';
	*out = buf;
	return 0;
}

char *st_join_words(int n, char *const *words)
{
	size_t len = 1;
	for (int i = 0; i < n; i++)
		len += strlen(words[i]) + 1;
	char *s = calloc(1, len);
	if (!s)
		return NULL;
	for (int i = 0; i < n; i++) {
		if (i)
			strcat(s, " ");
		strcat(s, words[i]);
	}
	return s;
}
