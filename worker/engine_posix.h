/*
 * engine_posix.h - the posix engine's system-call seam.
 *
 * Every system call the posix engine makes goes through one of these
 * pointers, so tests can inject short writes, EIO, ENOSPC or EINTR
 * (pass a table in st_engine_env.sys). st_posix_sys_real calls the kernel.
 * Each function follows the kernel convention: -1 with errno set on error.
 */
#ifndef ST_ENGINE_POSIX_H
#define ST_ENGINE_POSIX_H

#include <sys/types.h>

struct st_posix_sys {
	int (*openat)(int dirfd, const char *path, int flags, mode_t mode);
	ssize_t (*pwrite)(int fd, const void *buf, size_t len, off_t off);
	ssize_t (*pread)(int fd, void *buf, size_t len, off_t off);
	int (*fsync)(int fd);
	int (*close)(int fd);
	int (*mkdirat)(int dirfd, const char *path, mode_t mode);
	int (*unlinkat)(int dirfd, const char *path, int flags);
};

extern const struct st_posix_sys st_posix_sys_real;

#endif
