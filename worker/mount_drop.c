/*
 * mount_drop.c - the cache drop before a read phase (see mount.h): the
 * choice of method, a pure function of what was read (st_drop_decide), and
 * its adapter (st_drop_caches), which does each step the choice asks for -
 * umount, a look at the mount on top again, a look at the other mount
 * namespaces, mount - and nothing else.
 *
 * The method and reason texts are stored with every read phase (rank_result
 * cache_drop, cache_drop_note) and quoted by README.md and the tests: they
 * are part of the contract.
 */
#include "mnt.h"

#include "../common/util.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* ---- the choice ---- */

static int memory_fs(const char *fstype)
{
	return strcmp(fstype, "tmpfs") == 0 || strcmp(fstype, "ramfs") == 0;
}

static enum st_drop_step choose(struct st_drop_choice *c, const char *method, int drop_host,
				const char *fmt, ...) __attribute__((format(printf, 4, 5)));

/* The choice is made: method, whether the host's caches go, and why. */
static enum st_drop_step choose(struct st_drop_choice *c, const char *method, int drop_host,
				const char *fmt, ...)
{
	st_copy(c->method, sizeof(c->method), method);
	c->drop_host = drop_host;
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(c->reason, sizeof(c->reason), fmt, ap);
	va_end(ap);
	return ST_DROP_DONE;
}

/* The drop failed with rc: why is the step's own message. */
static enum st_drop_step failed(struct st_drop_choice *c, int rc, const char *why)
{
	c->rc = rc;
	return choose(c, "none", 0, "%s", why ? why : "");
}

/* stcluster's mount is on top and may be cycled: umount, then mount again
 * with the same source, type and options (as st_mount_apply does; here
 * apart, to look in between). */
static enum st_drop_step decide_cycle(const struct st_drop_seen *s, const struct mnt_top *top,
				      struct st_drop_choice *c)
{
	if (s->umount_rc == ST_DROP_UNKNOWN)
		return ST_DROP_UMOUNT;
	if (s->umount_rc < 0) {
		/* refused before anything changed (busy: an open file or
		 * directory on it, a rank's cwd): the host's caches instead */
		if (s->top_after == ST_DROP_UNKNOWN)
			return ST_DROP_RECHECK;
		if (s->top_after != top->id)
			return failed(c, s->umount_rc, s->umount_msg);
		return choose(c, "drop_caches", 1, "not remounted (%s); dropped the host's caches",
			      s->umount_msg ? s->umount_msg : "");
	}
	/* a copy of the mount that outlived the umount (another namespace's,
	 * made private: unshare -m, whose propagation is private by default, or
	 * a container started while it was mounted) keeps the superblock, and
	 * the mount below would get it back with its cache; a copy that the
	 * umount reached (a slave: systemd's services, ip netns exec) went with
	 * it. Another mount of this namespace on the device (a shared
	 * superblock) keeps it anyway: no need to look. */
	int shared = st_mountinfo_dev_count(s->mountinfo, top->major, top->minor, top->id) > 0;
	if (!shared && s->holder == ST_DROP_UNKNOWN)
		return ST_DROP_LOOK;
	if (s->mount_rc == ST_DROP_UNKNOWN)
		return ST_DROP_MOUNT;
	if (s->mount_rc < 0) /* mounted nothing after a successful umount: an error */
		return failed(c, s->mount_rc, s->mount_msg);
	if (shared)
		return choose(c, "remount+drop_caches", 1,
			      "remounted, and drop_caches too: another mount shows device %u:%u (a "
			      "shared superblock keeps its cache)",
			      top->major, top->minor);
	if (s->holder < 0)
		return choose(c, "remount+drop_caches", 1,
			      "remounted, and drop_caches too: other mount namespaces could not be "
			      "read for device %u:%u (%s), and a copy there would keep its cache",
			      top->major, top->minor, strerror(-s->holder));
	if (s->holder > 0)
		return choose(c, "remount+drop_caches", 1,
			      "remounted, and drop_caches too: the mount namespace of pid %d still "
			      "showed device %u:%u after the umount (its copy keeps the superblock "
			      "and its cache)",
			      s->holder, top->major, top->minor);
	return choose(c, "remount", 0,
		      "remounted (a new superblock: nothing of %s cached); no drop_caches, which "
		      "would empty every cache of the host",
		      s->target);
}

enum st_drop_step st_drop_decide(const struct st_drop_seen *s, struct st_drop_choice *c)
{
	memset(c, 0, sizeof(*c));
	st_copy(c->method, sizeof(c->method), "none");
	if (!s->remount)
		return choose(c, "drop_caches", 1,
			      "not remounted: stcluster did not mount %s (no --mount)", s->target);
	struct mnt_top top;
	if (mnt_top_of(s->mountinfo, s->target, &top)) {
		c->rc = -EINVAL;
		return choose(c, "none", 0, "%s is not a mount point: nothing to remount", s->target);
	}
	if (memory_fs(top.fstype))
		return choose(c, "none", 0,
			      "%s on %s: a remount would discard its files, and its pages are not a "
			      "cache",
			      top.fstype, s->target);
	if (s->ours > 0 && top.id != s->ours && mnt_has_id(s->mountinfo, s->ours))
		return choose(c, "drop_caches", 1,
			      "not remounted: the mount on %s (id %d) is not stcluster's (whose mount, "
			      "id %d, it covers); dropped the host's caches",
			      s->target, top.id, s->ours);
	if (s->ours >= 0 && top.id != s->ours)
		return choose(c, "drop_caches", 1,
			      "not remounted: the mount on %s (id %d) is not stcluster's (%s); "
			      "dropped the host's caches",
			      s->target, top.id, s->ours ? "whose mount is gone" : "which has none there");
	c->major = top.major;
	c->minor = top.minor;
	return decide_cycle(s, &top, c);
}

/* ---- the adapter ---- */

/* The first process (by /proc order) whose mount namespace is not ours
 * and shows device major:minor: its pid, 0 when none, -errno when /proc
 * cannot be read (then nobody knows). Each namespace is read once: once
 * its mountinfo was read (a process that ended first leaves it to another
 * process in it). */
static int other_ns_holder(unsigned major, unsigned minor)
{
	struct stat self;
	if (stat("/proc/self/ns/mnt", &self) < 0)
		return -errno;
	DIR *d = opendir("/proc");
	if (!d)
		return -errno;
	ino_t *seen = NULL;
	size_t nseen = 0, cap = 0;
	int found = 0;
	struct dirent *de;
	while (found == 0 && (de = readdir(d))) {
		char *end;
		long pid = strtol(de->d_name, &end, 10);
		if (*end || pid <= 0)
			continue;
		char path[64];
		struct stat ns;
		snprintf(path, sizeof(path), "/proc/%ld/ns/mnt", pid);
		if (stat(path, &ns) < 0 || (ns.st_ino == self.st_ino && ns.st_dev == self.st_dev))
			continue;
		size_t i = 0;
		while (i < nseen && seen[i] != ns.st_ino)
			i++;
		if (i < nseen)
			continue;
		if (nseen == cap) {
			size_t ncap = cap ? cap * 2 : 16;
			ino_t *grown = realloc(seen, ncap * sizeof(*grown));
			if (!grown) {
				found = -ENOMEM;
				break;
			}
			seen = grown;
			cap = ncap;
		}
		char *text = NULL;
		snprintf(path, sizeof(path), "/proc/%ld/mountinfo", pid);
		if (st_read_file(path, &text) != 0)
			continue; /* ended meanwhile */
		seen[nseen++] = ns.st_ino;
		if (st_mountinfo_dev_count(text, major, minor, -1) > 0)
			found = (int)pid;
		free(text);
	}
	free(seen);
	closedir(d);
	return found;
}

/* "3" into /proc/sys/vm/drop_caches: clean page cache, dentries, inodes. */
static int drop_host_caches(char *msg, size_t n)
{
	int fd = open("/proc/sys/vm/drop_caches", O_WRONLY | O_CLOEXEC);
	if (fd < 0) {
		int e = errno;
		mnt_msg(msg, n, "/proc/sys/vm/drop_caches: %s", strerror(e));
		return -e;
	}
	ssize_t w;
	while ((w = write(fd, "3", 1)) < 0 && errno == EINTR)
		;
	int e = w == 1 ? 0 : (w < 0 ? errno : EIO);
	close(fd);
	if (e) {
		mnt_msg(msg, n, "/proc/sys/vm/drop_caches: %s", strerror(e));
		return -e;
	}
	return 0;
}

/* Dirty pages cannot be dropped: write them back first (syncfs). */
static int sync_target(const char *canon, char *msg, size_t n)
{
	int fd = open(canon, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0) {
		int e = errno;
		mnt_msg(msg, n, "open %s: %s", canon, strerror(e));
		return -e;
	}
	if (syncfs(fd) < 0) {
		int e = errno;
		close(fd);
		mnt_msg(msg, n, "syncfs %s: %s", canon, strerror(e));
		return -e;
	}
	close(fd);
	return 0;
}

int st_drop_caches(const char *target, const char *source, const char *fstype,
		   const char *options, int ours, char *method, size_t method_n, char *msg,
		   size_t n)
{
	char canon[PATH_MAX];
	mnt_msg(method, method_n, "none");
	mnt_msg(msg, n, "%s", "");
	int rc = mnt_check_target(target, canon, msg, n);
	if (rc || (rc = mnt_need_root("dropping caches", msg, n)) ||
	    (rc = sync_target(canon, msg, n)))
		return rc;
	char *mi = NULL;
	if (source && (rc = st_read_file("/proc/self/mountinfo", &mi))) {
		mnt_msg(msg, n, "/proc/self/mountinfo: %s", strerror(-rc));
		return rc;
	}
	char umsg[ST_ERR_MAX] = "", mmsg[ST_ERR_MAX] = "";
	struct st_drop_seen s = { .target = canon, .remount = source != NULL, .ours = ours,
				  .mountinfo = mi, .umount_rc = ST_DROP_UNKNOWN, .umount_msg = umsg,
				  .top_after = ST_DROP_UNKNOWN, .holder = ST_DROP_UNKNOWN,
				  .mount_rc = ST_DROP_UNKNOWN, .mount_msg = mmsg };
	struct st_drop_choice c;
	for (enum st_drop_step step; (step = st_drop_decide(&s, &c)) != ST_DROP_DONE;) {
		if (step == ST_DROP_UMOUNT)
			s.umount_rc = mnt_umount(canon, umsg, sizeof(umsg));
		else if (step == ST_DROP_RECHECK)
			s.top_after = mnt_top_id(canon, NULL, 0);
		else if (step == ST_DROP_LOOK)
			s.holder = other_ns_holder(c.major, c.minor);
		else
			s.mount_rc = mnt_mount_new(canon, source, fstype, options, mmsg, sizeof(mmsg));
	}
	free(mi);
	if (c.rc) {
		mnt_msg(msg, n, "%s", c.reason);
		return c.rc;
	}
	if (c.drop_host && (rc = drop_host_caches(msg, n)))
		return rc;
	mnt_msg(method, method_n, "%s", c.method);
	mnt_msg(msg, n, "%s", c.reason);
	return 0;
}
