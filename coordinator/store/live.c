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
	uint64_t h = 1469598103934665603ULL;
	for (const unsigned char *p = (const unsigned char *)run_id; *p; p++)
		h = (h ^ *p) * 1099511628211ULL;
	return (off_t)(h & ((1ULL << 40) - 1));
}

static int lock_path(const char *db_path, char *out, size_t n)
{
	return snprintf(out, n, "%s.live", db_path) >= (int)n ? -1 : 0;
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
	if (!l || lock_path(db_path, l->path, sizeof(l->path))) {
		snprintf(err, n, "store: %s", l ? "path too long" : "out of memory");
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
	if (lock_path(db_path, path, sizeof(path))) {
		snprintf(err, n, "store: path too long");
		return -1;
	}
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
