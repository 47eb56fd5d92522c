/*
 * engine_posix.h - the posix engine's system-call seam.
 *
 * Every system call the posix engine makes goes through one of these
 * pointers, so tests can inject short writes, EIO, ENOSPC or EINTR: a
 * test's engine is a copy of st_engine_posix whose setup calls
 * st_posix_setup_with its own table (the real table is never patched).
 * st_posix_sys_real calls the kernel. Each function follows the kernel
 * convention: -1 with errno set on error.
 */
#ifndef ST_ENGINE_POSIX_H
#define ST_ENGINE_POSIX_H

#include "engine.h"

#include <stddef.h>
#include <sys/stat.h>
#include <sys/types.h>

struct st_posix_sys {
	int (*openat)(int dirfd, const char *path, int flags, mode_t mode);
	ssize_t (*pwrite)(int fd, const void *buf, size_t len, off_t off);
	ssize_t (*pread)(int fd, void *buf, size_t len, off_t off);
	int (*fsync)(int fd);
	int (*close)(int fd);
	int (*mkdirat)(int dirfd, const char *path, mode_t mode);
	int (*unlinkat)(int dirfd, const char *path, int flags);
	int (*fstatat)(int dirfd, const char *path, struct stat *st, int flags);
};

extern const struct st_posix_sys st_posix_sys_real;

/* The posix engine's setup() with system calls through sys (which must
 * outlive the rank state); st_engine_posix's setup passes st_posix_sys_real. */
int st_posix_setup_with(const struct st_engine_env *env, const struct st_posix_sys *sys,
			void **rs, char *msg, size_t n);

/* The posix engine's request queue (posix_aio.c), behind its aio_* entries
 * (engine.h): io_uring, else libaio, else -ENOSYS (mode says why: the worker
 * then issues one call at a time). A file the queue refuses (EINVAL,
 * EOPNOTSUPP before any request of it succeeded) is served by synchronous
 * calls through sys; file_done says so. */
int st_posix_aio_init(const struct st_posix_sys *sys, int depth, void **q, char *mode, size_t n);
int st_posix_aio_submit(void *q, int fd, struct st_aio_req *r);
int st_posix_aio_reap(void *q, int min, struct st_aio_req **done, int max);
void st_posix_aio_file_done(void *q, int fd, char *mode, size_t n);
void st_posix_aio_fini(void *q); /* accepts NULL */

#endif
