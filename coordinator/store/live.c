/*
 * live.c - the lock rank 0 holds while its run is live (see live.h).
 */
#include "live.h"

#include "../../common/util.h"

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

struct st_live {
	int fd;		/* PATH.live, open read-write */
	off_t at;	/* the run's byte */
	char path[4096];
};

/* The run's byte: FNV-1a of its id, in the first 2^40 bytes (a collision
 * of two runs' ids there is a 2^-40 chance, and makes a dead run look live,
 * never the other way round). */
static off_t run_byte(const char *run_id)
{
	return (off_t)(st_fnv1a(run_id) & ((1ULL << 40) - 1));
}

/* The lock file of the store at db_path: DIR/.stcluster-INO.live, DIR the
 * directory of the store's file after resolving every link, INO its inode.
 * So every spelling of the store (a symlink, ./, //, .., a bind mount of
 * its directory, a second hard link beside it) finds the one lock file,
 * and a store copied or put in its place (another inode) finds another.
 * The device is that of DIR (st_dev is not the same on two NFS clients;
 * the inode, the server's file id, is). 0 with out; 1 when there is no
 * store at db_path; -1 with err. */
static int lock_path(const char *db_path, char *out, size_t n, char *err, size_t en)
{
	char *real = realpath(db_path, NULL);
	struct stat st;
	if (!real || stat(real, &st)) {
		int e = errno;
		free(real);
		if (e == ENOENT)
			return 1;
		snprintf(err, en, "store: cannot resolve '%s': %s", db_path, strerror(e));
		return -1;
	}
	char *slash = strrchr(real, '/'); /* realpath's answer is absolute */
	*slash = 0;
	int w = snprintf(out, n, "%s/.stcluster-%llu.live", real, (unsigned long long)st.st_ino);
	free(real);
	if (w < 0 || (size_t)w >= n) {
		snprintf(err, en, "store: path too long");
		return -1;
	}
	return 0;
}

static int set_lock(int fd, int cmd, short type, off_t at, off_t len)
{
	struct flock fl = { .l_type = type, .l_whence = SEEK_SET, .l_start = at, .l_len = len };
	return fcntl(fd, cmd, &fl);
}

int st_live_hold(const char *db_path, const char *run_id, struct st_live **out, char *err,
		 size_t n)
{
	struct st_live *l = calloc(1, sizeof(*l));
	*out = NULL;
	if (!l) {
		snprintf(err, n, "store: out of memory");
		return -1;
	}
	int where = lock_path(db_path, l->path, sizeof(l->path), err, n);
	if (where) {
		if (where == 1)
			snprintf(err, n, "store: '%s' is gone", db_path);
		free(l);
		return -1;
	}
	l->at = run_byte(run_id);
	/* the last holder removes the file while it holds all of it: a lock
	 * taken on a file that is no longer the one at the path is taken again */
	for (int tries = 0; tries < 100; tries++) {
		l->fd = open(l->path, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
		if (l->fd < 0) {
			snprintf(err, n, "store: cannot open '%s': %s", l->path, strerror(errno));
			free(l);
			return -1;
		}
		if (set_lock(l->fd, F_OFD_SETLK, F_WRLCK, l->at, 1)) {
			int e = errno;
			close(l->fd);
			free(l);
			if (e == EAGAIN || e == EACCES)
				return 1;
			snprintf(err, n, "store: cannot lock '%s': %s", db_path, strerror(e));
			return -1;
		}
		struct stat a, b;
		if (fstat(l->fd, &a) == 0 && stat(l->path, &b) == 0 && a.st_dev == b.st_dev &&
		    a.st_ino == b.st_ino) {
			*out = l;
			return 0;
		}
		close(l->fd);
	}
	snprintf(err, n, "store: '%s' keeps being replaced", l->path);
	free(l);
	return -1;
}

void st_live_release(struct st_live *l)
{
	if (!l)
		return;
	/* our byte first; then, if no one else holds any, the file goes */
	set_lock(l->fd, F_OFD_SETLK, F_UNLCK, l->at, 1);
	if (set_lock(l->fd, F_OFD_SETLK, F_WRLCK, 0, 0) == 0)
		unlink(l->path);
	close(l->fd);
	free(l);
}

int st_live_check(const char *db_path, const char *run_id, char *err, size_t n)
{
	char path[4096];
	int where = lock_path(db_path, path, sizeof(path), err, n);
	if (where)
		return where == 1 ? 0 : -1; /* no store: no run of it is live */
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0) {
		if (errno == ENOENT)
			return 0;
		snprintf(err, n, "cannot open '%s': %s", path, strerror(errno));
		return -1;
	}
	struct flock fl = { .l_type = F_WRLCK, .l_whence = SEEK_SET, .l_start = run_byte(run_id),
			    .l_len = 1 };
	int rc = fcntl(fd, F_OFD_GETLK, &fl);
	int e = errno;
	close(fd);
	if (rc) {
		snprintf(err, n, "cannot test the lock of '%s': %s", path, strerror(e));
		return -1;
	}
	return fl.l_type != F_UNLCK;
}
