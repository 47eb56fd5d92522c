/*
 * engine_posix.c - files under a directory, through the kernel.
 *
 * The engine keeps no descriptor of the target between calls: each open,
 * mkdir and unlink opens the target directory, reaches the file with *at()
 * calls relative to it and O_NOFOLLOW (so the engine never leaves the
 * target through a symbolic link), and closes it again. Between phases
 * nothing of the rank is open on the target, so the mount driver's cache
 * drop can unmount it (a descriptor held across it made umount answer
 * EBUSY). O_DIRECT is asked for when the combination says so; where the
 * file system refuses it (tmpfs answers EINVAL) the file is opened
 * buffered and the caller records that.
 *
 * The metadata phases hold a descriptor of the directory they work in (for
 * the phase only) and name each file relative to it (openat, fstatat,
 * unlinkat with O_NOFOLLOW / AT_SYMLINK_NOFOLLOW), as mdtest's calls on a
 * path do after the kernel has the directory: the file's own name is looked
 * up, no more. They ignore --direct (small files through the page cache, as
 * mdtest).
 */
#include "engine.h"
#include "engine_posix.h"
#include "mount.h"

#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int real_openat(int dirfd, const char *path, int flags, mode_t mode)
{
	return openat(dirfd, path, flags, mode);
}

const struct st_posix_sys st_posix_sys_real = {
	.openat = real_openat,
	.pwrite = pwrite,
	.pread = pread,
	.fsync = fsync,
	.close = close,
	.mkdirat = mkdirat,
	.unlinkat = unlinkat,
	.fstatat = fstatat,
	.dup = dup,
	.fdopendir = fdopendir,
	.readdir = readdir,
	.closedir = closedir,
};

struct posix_rank {
	const char *target;		/* the target directory (the run's options own it) */
	const struct st_posix_sys *sys; /* system calls */
};

struct posix_file {
	int fd;
	int pending; /* errno of a call that failed after a short transfer; 0 none */
};

static int open_target(const struct posix_rank *r)
{
	return r->sys->openat(AT_FDCWD, r->target, O_RDONLY | O_DIRECTORY | O_CLOEXEC, 0);
}

int st_posix_setup_with(const struct st_engine_env *env, const struct st_posix_sys *sys,
			void **rs, char *msg, size_t n)
{
	struct posix_rank *r = calloc(1, sizeof(*r));
	if (!r)
		return -ENOMEM;
	r->sys = sys;
	r->target = env->cfg->o[ST_OPT_TARGET].s;
	int fd = open_target(r);
	if (fd < 0) {
		int e = errno;
		snprintf(msg, n, "open target %s: %s", r->target, strerror(e));
		free(r);
		return -e;
	}
	r->sys->close(fd);
	/* the options in force: of the mount stcluster made (which must be
	 * there: else a failed mount left the bare directory), or of whatever
	 * holds the target */
	int mounted = env->cfg->o[ST_OPT_MOUNT].n > 0;
	if (env->eff) {
		char why[200] = "";
		int rc = st_mount_read_effective(r->target,
						 mounted ? env->cfg->o[ST_OPT_FSTYPE].s : NULL,
						 mounted ? env->combo : NULL, env->eff, why, sizeof(why));
		if (rc < 0 && mounted) {
			snprintf(msg, n, "%s is not the mount stcluster made: %s", r->target, why);
			free(r);
			return rc;
		}
	}
	*rs = r;
	return 0;
}

static int posix_setup(const struct st_engine_env *env, void **rs, char *msg, size_t n)
{
	return st_posix_setup_with(env, &st_posix_sys_real, rs, msg, n);
}

static void posix_teardown(void *rs)
{
	free(rs);
}

static int posix_thread_init(void *rs, int thread, void **ts, char *msg, size_t n)
{
	(void)thread;
	(void)msg;
	(void)n;
	*ts = rs; /* file descriptors need no per-thread state */
	return 0;
}

static void posix_thread_fini(void *ts)
{
	(void)ts;
}

/*
 * The directory holding path's last component, opened without following a
 * symbolic link at any step below the target, and that component. The
 * worker's paths are at most "run-dir/file"; every directory component is
 * opened with O_NOFOLLOW, so a run directory replaced by a link to
 * elsewhere is refused (ELOOP/ENOTDIR), never written or cleaned through.
 * Returns a descriptor the caller closes, or -errno.
 */
static int parent_of(struct posix_rank *r, const char *path, const char **leaf)
{
	const char *slash = strrchr(path, '/');
	char dir[4096];
	size_t len = slash ? (size_t)(slash - path) : 0;
	if (len >= sizeof(dir))
		return -ENAMETOOLONG;
	memcpy(dir, path, len);
	dir[len] = '\0';
	int fd = open_target(r);
	if (fd < 0)
		return -errno;
	for (char *save = NULL, *part = strtok_r(dir, "/", &save); part;
	     part = strtok_r(NULL, "/", &save)) {
		int next = r->sys->openat(fd, part, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC, 0);
		int e = errno;
		r->sys->close(fd);
		if (next < 0)
			return -e;
		fd = next;
	}
	*leaf = slash ? slash + 1 : path;
	return fd;
}

static int posix_open(void *ts, const char *full, unsigned flags, void **fh, int *direct)
{
	struct posix_rank *r = ts;
	const char *path;
	int pfd = parent_of(r, full, &path);
	if (pfd < 0)
		return pfd;
	int of = O_CLOEXEC | O_NOFOLLOW;
	if ((flags & ST_OPEN_READ) && (flags & ST_OPEN_WRITE))
		of |= O_RDWR;
	else if (flags & ST_OPEN_WRITE)
		of |= O_WRONLY;
	else
		of |= O_RDONLY;
	if (flags & ST_OPEN_CREATE)
		of |= (flags & ST_OPEN_SHARED) ? O_CREAT : O_CREAT | O_TRUNC;
	int fd = -1;
	*direct = 0;
	if (flags & ST_OPEN_DIRECT) {
		fd = r->sys->openat(pfd, path, of | O_DIRECT, 0644);
		if (fd >= 0)
			*direct = 1;
		else if (errno != EINVAL)
			goto fail;
	}
	if (fd < 0)
		fd = r->sys->openat(pfd, path, of, 0644);
	if (fd < 0)
		goto fail;
	r->sys->close(pfd);
	struct posix_file *f = malloc(sizeof(*f));
	if (!f) {
		r->sys->close(fd);
		return -ENOMEM;
	}
	f->fd = fd;
	f->pending = 0;
	*fh = f;
	return 0;
fail:;
	int e = errno;
	r->sys->close(pfd);
	return -e;
}

/* Whole transfers: retry EINTR and continue short transfers; a transfer
 * that makes no progress (end of file) returns what was done. A call that
 * fails after part of the transfer returns the part, and its errno is kept
 * for the next call on the file, which returns it at once: the caller asks
 * for the rest and learns the real error (a soft mount's timeout: EIO or
 * ETIMEDOUT), without waiting for the server a second time. */
static ssize_t posix_xfer(struct posix_rank *r, struct posix_file *f, void *buf, size_t len,
			  uint64_t off, int write)
{
	if (f->pending) {
		int e = f->pending;
		f->pending = 0;
		return -e;
	}
	size_t done = 0;
	while (done < len) {
		ssize_t n = write ? r->sys->pwrite(f->fd, (char *)buf + done, len - done,
						   (off_t)(off + done))
				  : r->sys->pread(f->fd, (char *)buf + done, len - done,
						  (off_t)(off + done));
		if (n < 0) {
			if (errno == EINTR)
				continue;
			if (!done)
				return -errno;
			f->pending = errno;
			return (ssize_t)done;
		}
		if (n == 0)
			break;
		done += (size_t)n;
	}
	return (ssize_t)done;
}

static ssize_t posix_pwrite(void *ts, void *fh, const void *buf, size_t len, uint64_t off)
{
	return posix_xfer(ts, fh, (void *)buf, len, off, 1);
}

static ssize_t posix_pread(void *ts, void *fh, void *buf, size_t len, uint64_t off)
{
	return posix_xfer(ts, fh, buf, len, off, 0);
}

static int posix_fsync(void *ts, void *fh)
{
	struct posix_rank *r = ts;
	struct posix_file *f = fh;
	return r->sys->fsync(f->fd) ? -errno : 0;
}

static int posix_close(void *ts, void *fh)
{
	struct posix_rank *r = ts;
	struct posix_file *f = fh;
	int rc = r->sys->close(f->fd) ? -errno : 0;
	free(f);
	return rc;
}

/* mkdir, rmdir or unlink of path's last component, in its parent opened
 * without following links (see parent_of). */
static int posix_name_op(void *rs, const char *full, int op)
{
	struct posix_rank *r = rs;
	const char *leaf;
	int pfd = parent_of(r, full, &leaf);
	if (pfd < 0)
		return pfd;
	int rc = op == 0 ? r->sys->mkdirat(pfd, leaf, 0755)
			 : r->sys->unlinkat(pfd, leaf, op == 1 ? AT_REMOVEDIR : 0);
	rc = rc ? -errno : 0;
	r->sys->close(pfd);
	return rc;
}

static int posix_mkdir(void *rs, const char *path)
{
	return posix_name_op(rs, path, 0);
}

static int posix_rmdir(void *rs, const char *path)
{
	return posix_name_op(rs, path, 1);
}

static int posix_unlink(void *rs, const char *path)
{
	return posix_name_op(rs, path, 2);
}

/* --iodepth N > 1: the thread's request queue (posix_aio.c) */
static int posix_aio_init(void *ts, int depth, void *bufs, size_t stride, void **q, char *mode,
			  size_t n)
{
	struct posix_rank *r = ts;
	return st_posix_aio_init(r->sys, depth, bufs, stride, q, mode, n);
}

static int posix_aio_submit(void *q, void *fh, struct st_aio_req *req)
{
	return st_posix_aio_submit(q, ((struct posix_file *)fh)->fd, req);
}

static void posix_aio_file_done(void *q, void *fh, char *mode, size_t n)
{
	st_posix_aio_file_done(q, ((struct posix_file *)fh)->fd, mode, n);
}

/* A directory the metadata phases work in. */
struct posix_dir {
	int fd;
	DIR *list; /* the readdir phase's listing of it (NULL: none begun) */
	int listed; /* that listing came to its end */
};

static int posix_dir_open(void *ts, void *parent, const char *name, int create, void **dh)
{
	struct posix_rank *r = ts;
	const char *leaf = name;
	/* a parent of the phase's, or one parent_of opened for this call */
	int owned = !parent, pfd = parent ? ((struct posix_dir *)parent)->fd : parent_of(r, name, &leaf);
	if (pfd < 0)
		return pfd;
	int rc = 0, fd = -1;
	if (create && r->sys->mkdirat(pfd, leaf, 0755))
		rc = -errno;
	if (!rc) {
		fd = r->sys->openat(pfd, leaf, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC, 0);
		if (fd < 0)
			rc = -errno;
	}
	if (owned)
		r->sys->close(pfd);
	if (rc)
		return rc;
	struct posix_dir *d = malloc(sizeof(*d));
	if (!d) {
		r->sys->close(fd);
		return -ENOMEM;
	}
	d->fd = fd;
	d->list = NULL;
	d->listed = 0;
	*dh = d;
	return 0;
}

static void posix_dir_close(void *ts, void *dh)
{
	struct posix_rank *r = ts;
	struct posix_dir *d = dh;
	if (!d)
		return;
	if (d->list)
		r->sys->closedir(d->list);
	r->sys->close(d->fd);
	free(d);
}

/* The next entry of dh's listing, as `ls -l` lists: readdir, then the
 * entry's attributes (fstatat, not following a link), so that a mounted
 * NFS target shows what READDIRPLUS, the attribute cache (actimeo) and
 * lookupcache change; readdir's d_type alone would fetch none. */
static int posix_dir_next(void *ts, void *dh, uint64_t want, char *name, size_t n)
{
	(void)want; /* the directory says how many there are */
	struct posix_rank *r = ts;
	struct posix_dir *d = dh;
	if (d->listed)
		return 0;
	if (!d->list) {
		int fd = r->sys->dup(d->fd);
		if (fd < 0)
			return -errno;
		d->list = r->sys->fdopendir(fd);
		if (!d->list) {
			int e = errno;
			r->sys->close(fd);
			return -e;
		}
	}
	for (;;) {
		errno = 0;
		struct dirent *de = r->sys->readdir(d->list);
		if (!de) {
			d->listed = !errno;
			return errno ? -errno : 0;
		}
		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		struct stat st;
		if (r->sys->fstatat(d->fd, de->d_name, &st, AT_SYMLINK_NOFOLLOW))
			return -errno;
		snprintf(name, n, "%s", de->d_name);
		return 1;
	}
}

/* Write or read [0, len) of fd, whole (EINTR and short transfers retried);
 * bytes done, or -errno: a call that failed after a short transfer gives
 * its own errno (ENOSPC, ETIMEDOUT), not a short count. */
static ssize_t whole(struct posix_rank *r, int fd, void *buf, size_t len, int write)
{
	struct posix_file f = { fd, 0 };
	ssize_t n = posix_xfer(r, &f, buf, len, 0, write);
	return f.pending && n >= 0 && (size_t)n < len ? -f.pending : n;
}

static ssize_t posix_meta(void *ts, void *dh, int op, const char *name, void *buf, size_t len,
			  unsigned flags)
{
	struct posix_rank *r = ts;
	int dfd = ((struct posix_dir *)dh)->fd;
	struct stat st;
	switch (op) {
	case ST_META_STAT:
		return r->sys->fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW) ? -errno : 0;
	case ST_META_REMOVE:
		return r->sys->unlinkat(dfd, name, 0) ? -errno : 0;
	case ST_META_RMDIR:
		return r->sys->unlinkat(dfd, name, AT_REMOVEDIR) ? -errno : 0;
	case ST_META_MKDIR:
		return r->sys->mkdirat(dfd, name, 0755) ? -errno : 0;
	case ST_META_CREATE:
	case ST_META_OPEN: {
		int create = op == ST_META_CREATE;
		int fd = r->sys->openat(dfd, name,
					(create ? O_WRONLY | O_CREAT | O_EXCL : O_RDONLY) | O_NOFOLLOW |
						O_CLOEXEC,
					0644);
		if (fd < 0)
			return -errno;
		ssize_t n = len ? whole(r, fd, buf, len, create) : 0;
		if (n >= 0 && create && len && (size_t)n < len)
			n = -EIO;
		if (n >= 0 && create && (flags & ST_META_FSYNC) && r->sys->fsync(fd))
			n = -errno;
		if (r->sys->close(fd) && n >= 0)
			n = -errno;
		return n;
	}
	default:
		return -EINVAL;
	}
}

const struct st_engine st_engine_posix = {
	.name = "posix",
	.help = "files under --target through the kernel (a local file system or an NFS "
		"mount): O_DIRECT, io_uring or libaio for --iodepth; with --mount (root) every "
		"combination is mounted again with its options",
	.caps = ST_EC_NEEDS_TARGET_DIR,
	.takes = ST_NEEDS_MOUNTER,
	.takes_mounted = ST_NEEDS_NFS | ST_NEEDS_MOUNTED,
	.setup = posix_setup,
	.teardown = posix_teardown,
	.thread_init = posix_thread_init,
	.thread_fini = posix_thread_fini,
	.open = posix_open,
	.pwrite = posix_pwrite,
	.pread = posix_pread,
	.fsync = posix_fsync,
	.close = posix_close,
	.dir_open = posix_dir_open,
	.dir_close = posix_dir_close,
	.meta = posix_meta,
	.dir_next = posix_dir_next,
	.mkdir = posix_mkdir,
	.rmdir = posix_rmdir,
	.unlink = posix_unlink,
	.aio_init = posix_aio_init,
	.aio_submit = posix_aio_submit,
	.aio_reap = st_posix_aio_reap,
	.aio_file_done = posix_aio_file_done,
	.aio_fini = st_posix_aio_fini,
};
