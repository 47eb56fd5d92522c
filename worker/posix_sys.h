/*
 * posix_sys.h - the posix engine's system-call seam: the table every system
 * call of the engine (engine_posix.c) and of its request queue (posix_aio.c)
 * goes through, so tests can inject short writes, EIO, ENOSPC or EINTR. A
 * test's table is its own (the real one is never patched; see
 * st_posix_setup_with in engine_posix.h). st_posix_sys_real calls the
 * kernel. Each function follows the kernel convention: -1 with errno set
 * on error.
 */
#ifndef ST_POSIX_SYS_H
#define ST_POSIX_SYS_H

#include <dirent.h>
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
	/* the readdir phase's listing: a copy of the directory's descriptor,
	 * read as opendir/readdir read it (readdir: NULL with errno unchanged
	 * at the end) */
	int (*dup)(int fd);
	DIR *(*fdopendir)(int fd);
	struct dirent *(*readdir)(DIR *d);
	int (*closedir)(DIR *d);
};

extern const struct st_posix_sys st_posix_sys_real;

#endif
