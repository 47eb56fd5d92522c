/*
 * mount_left.c - the host's record of the mount stcluster holds on a
 * target, so that a --resume after a crash that left it there (a rank
 * killed with SIGKILL, a host that lost its link before it could detach)
 * recognises that mount as its own run's and replaces it, where before it
 * refused the target as "already a mount point" and only hand work helped
 * (issue 19 item 6).
 *
 * One file per target, in $STCLUSTER_STATE_DIR or /run/stcluster (a tmpfs
 * on a cluster node: no record outlives a boot), written when stcluster's
 * mount is adopted and removed when it is released. A mount is taken for
 * the record's only when all of these are still true of the top mount on
 * the target: its stamp, its mount id, its st_dev, its source and its file
 * system type, and the run being resumed is the record's run. Anything else
 * there is the user's and is refused as before. The mount id and st_dev
 * alone do not tell: both are the lowest free number, and a tmpfs mounted
 * by hand where stcluster's was detached got the same of each (seen). The
 * stamp does: the kernel's 64-bit mount id that is never used twice
 * (statx STATX_MNT_ID_UNIQUE, Linux 6.8), else for NFS the time the
 * kernel client mounted it (mountstats' age, seconds, against the boot
 * clock: a mount made later is younger), else the birth time of the
 * mount's root directory (statx btime, where the file system keeps one);
 * where none exists no record is written, and --resume refuses a mount on
 * the target as before.
 */
#include "mnt.h"
#include "rpcstats.h"

#include "../common/util.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define LEFT_DIR "/run/stcluster"
#ifndef STATX_MNT_ID_UNIQUE
#define STATX_MNT_ID_UNIQUE 0x00004000U /* Linux 6.8's uapi; older kernels leave it unset */
#endif

/* What a record holds. */
struct left_rec {
	char run_id[40];
	int mount_id;
	unsigned major, minor;
	char fstype[64];
	char source[ST_MOUNT_PATH_MAX];
	char target[ST_MOUNT_PATH_MAX];
	char stamp[64];
};

/* What tells this mount of canon from any other ever there: 0 with buf,
 * or -ENOTSUP. From the cache only (AT_STATX_DONT_SYNC): the server of a
 * crashed run may not answer. */
static int mount_stamp(const char *canon, char *buf, size_t n)
{
	struct statx stx;
	int fl = AT_NO_AUTOMOUNT | AT_STATX_DONT_SYNC;
	if (statx(AT_FDCWD, canon, fl, STATX_MNT_ID_UNIQUE, &stx) == 0 &&
	    (stx.stx_mask & STATX_MNT_ID_UNIQUE)) {
		snprintf(buf, n, "mnt_id_unique:%llu", (unsigned long long)stx.stx_mnt_id);
		return 0;
	}
	char *ms = NULL;
	struct st_rpc_snap *snap = malloc(sizeof(*snap));
	struct timespec now;
	int born = snap && st_read_file("/proc/self/mountstats", &ms) == 0 &&
		   st_rpc_parse(ms, canon, snap) == 0 && clock_gettime(CLOCK_BOOTTIME, &now) == 0;
	if (born)
		snprintf(buf, n, "nfs_born:%lld", (long long)now.tv_sec - (long long)snap->age);
	free(ms);
	free(snap);
	if (born)
		return 0;
	if (statx(AT_FDCWD, canon, fl, STATX_BTIME, &stx) == 0 && (stx.stx_mask & STATX_BTIME)) {
		snprintf(buf, n, "btime:%lld.%09u", (long long)stx.stx_btime.tv_sec,
			 (unsigned)stx.stx_btime.tv_nsec);
		return 0;
	}
	return -ENOTSUP;
}

static const char *left_dir(void)
{
	const char *d = getenv("STCLUSTER_STATE_DIR");
	return d && *d ? d : LEFT_DIR;
}

/* The record's path for canonical target canon (FNV-1a of it). */
static void left_path(const char *canon, char *buf, size_t n)
{
	snprintf(buf, n, "%s/mount-%016llx", left_dir(), (unsigned long long)st_fnv1a(canon));
}

void mnt_left_sync(const struct st_mount_state *s, const struct st_mountinfo_entry *e)
{
	char path[PATH_MAX + 32], tmp[PATH_MAX + 40];
	if (!s->target[0])
		return;
	left_path(s->target, path, sizeof(path));
	char stamp[64];
	if (!s->our_id || !e || e->mount_id != s->our_id || !s->run_id[0] ||
	    mount_stamp(s->target, stamp, sizeof(stamp))) {
		unlink(path); /* nothing of ours on top (or no room to say it): no record */
		return;
	}
	if (mkdir(left_dir(), 0700) && errno != EEXIST)
		return; /* a record is a help for --resume, not a need of the run */
	snprintf(tmp, sizeof(tmp), "%s.%d", path, (int)getpid());
	FILE *f = fopen(tmp, "w");
	if (f) {
		fprintf(f, "run %s\nid %d\ndev %u:%u\nfstype %s\nsource %s\ntarget %s\nstamp %s\n",
			s->run_id, e->mount_id, e->major, e->minor, e->fstype, e->source, s->target,
			stamp);
		if (fclose(f) == 0 && rename(tmp, path) == 0)
			tmp[0] = '\0';
	}
	if (tmp[0])
		unlink(tmp);
}

/* Is stamp now the one recorded? The NFS mount time is known to the
 * second, and read at two moments: one second either way is the same. */
static int same_stamp(const char *now, const char *rec)
{
	long long a, b;
	if (sscanf(now, "nfs_born:%lld", &a) == 1 && sscanf(rec, "nfs_born:%lld", &b) == 1)
		return a - b <= 1 && b - a <= 1;
	return strcmp(now, rec) == 0;
}

/* The record of canon: 0 and *r, or -errno (-ENOENT: none). */
static int left_read(const char *canon, struct left_rec *r)
{
	char path[PATH_MAX + 32], *text;
	left_path(canon, path, sizeof(path));
	int rc = st_read_file(path, &text);
	if (rc)
		return rc;
	memset(r, 0, sizeof(*r));
	int got = 0;
	for (char *line = strtok(text, "\n"); line; line = strtok(NULL, "\n")) {
		char *v = strchr(line, ' ');
		if (!v)
			continue;
		*v++ = '\0';
		if (!strcmp(line, "run"))
			got += st_copy(r->run_id, sizeof(r->run_id), v) == 0;
		else if (!strcmp(line, "id"))
			got += sscanf(v, "%d", &r->mount_id) == 1;
		else if (!strcmp(line, "dev"))
			got += sscanf(v, "%u:%u", &r->major, &r->minor) == 2;
		else if (!strcmp(line, "fstype"))
			got += st_copy(r->fstype, sizeof(r->fstype), v) == 0;
		else if (!strcmp(line, "source"))
			got += st_copy(r->source, sizeof(r->source), v) == 0;
		else if (!strcmp(line, "target"))
			got += st_copy(r->target, sizeof(r->target), v) == 0;
		else if (!strcmp(line, "stamp"))
			got += st_copy(r->stamp, sizeof(r->stamp), v) == 0;
	}
	free(text);
	return got == 7 ? 0 : -EINVAL;
}

int st_mount_left_replace(const char *target, const char *run_id, char *msg, size_t n)
{
	char canon[PATH_MAX];
	mnt_msg(msg, n, "%s", "");
	if (!realpath(target, canon))
		return 0;
	struct left_rec *r = malloc(sizeof(*r));
	struct st_mountinfo_entry *e = malloc(sizeof(*e));
	int rc = 0;
	char stamp[64];
	if (!r || !e || left_read(canon, r) || strcmp(r->run_id, run_id) ||
	    strcmp(r->target, canon) || mnt_mounted_at(canon, e, NULL, 0) <= 0)
		goto out;
	if (e->mount_id != r->mount_id || e->major != r->major || e->minor != r->minor ||
	    strcmp(e->fstype, r->fstype) || strcmp(e->source, r->source) ||
	    mount_stamp(canon, stamp, sizeof(stamp)) || !same_stamp(stamp, r->stamp))
		goto out; /* another mount: the user's, refused as any */
	/* detach at once, as an abort does: the server of a crashed run may
	 * be the one that does not answer */
	if (umount2(canon, MNT_DETACH)) {
		rc = -errno;
		mnt_msg(msg, n, "stcluster's mount of run %s (id %d, %s) is still on %s, and umount -l "
				"failed: %s", run_id, r->mount_id, r->source, canon, strerror(errno));
		goto out;
	}
	char path[PATH_MAX + 32];
	left_path(canon, path, sizeof(path));
	unlink(path);
	mnt_msg(msg, n, "stcluster's own mount of run %s (id %d, %s %s) was still on %s: detached",
		run_id, r->mount_id, r->fstype, r->source, canon);
	rc = 1;
out:
	free(r);
	free(e);
	return rc;
}
