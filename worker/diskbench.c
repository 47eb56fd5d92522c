/*
 * diskbench.c - the O_DIRECT file test of a server's disk (see diskbench.h).
 */
#include "diskbench.h"

#include "../common/util.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int st_diskbench_run(const char *dir, const char *name, int64_t size, int64_t block,
		     struct st_diskbench_result *r, char *msg, size_t n)
{
	char path[4096];
	void *buf = NULL;
	int rc = 0;
	memset(r, 0, sizeof(*r));
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	if (posix_memalign(&buf, 4096, (size_t)block)) {
		snprintf(msg, n, "disk baseline: out of memory");
		return -ENOMEM;
	}
	memset(buf, 0x5a, (size_t)block);
	/* made first, alone: O_EXCL says the name was free, so the file is ours
	 * to remove (an O_DIRECT open that a file system refuses may already
	 * have made it); a file of that name that was there is left alone */
	int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0600);
	if (fd < 0) {
		rc = -errno;
		snprintf(msg, n, "disk baseline: create %s: %s%s", path, strerror(errno),
			 errno == EEXIST ? " (not made by this run: left as it is)" : "");
		free(buf);
		return rc;
	}
	close(fd);
	for (int write = 1; write >= 0 && !rc; write--) {
		int flags = (write ? O_WRONLY : O_RDONLY) | O_CLOEXEC | O_NOFOLLOW;
		fd = open(path, flags | O_DIRECT);
		if (write)
			r->direct = fd >= 0;
		if (fd < 0 && errno == EINVAL) /* tmpfs: buffered, and recorded */
			fd = open(path, flags);
		if (fd < 0) {
			rc = -errno;
			snprintf(msg, n, "disk baseline: open %s: %s", path, strerror(errno));
			break;
		}
		int64_t t0 = st_now_ns();
		for (int64_t off = 0; off < size && !rc; off += block) {
			ssize_t got = write ? pwrite(fd, buf, (size_t)block, off) : pread(fd, buf, (size_t)block, off);
			if (got != block) {
				rc = got < 0 ? -errno : -EIO;
				snprintf(msg, n, "disk baseline: %s %s: %s", write ? "write" : "read", path,
					 got < 0 ? strerror(errno) : "short transfer");
			}
		}
		if (!rc && write && fsync(fd)) {
			rc = -errno;
			snprintf(msg, n, "disk baseline: fsync %s: %s", path, strerror(errno));
		}
		double secs = (double)(st_now_ns() - t0) / 1e9;
		close(fd);
		if (!rc && secs > 0)
			*(write ? &r->write_mbps : &r->read_mbps) = (double)size / secs / 1e6;
	}
	unlink(path);
	free(buf);
	return rc;
}
