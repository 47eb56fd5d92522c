/*
 * mnt.h - the mount driver's own header (worker/mountinfo.c, the kernel's
 * text formats; mount_opts.c, options asked and granted; mount.c, the
 * mount(8) adapter; mount_drop.c, the cache drop; nothing else includes
 * it): what those files share and mount.h does not promise.
 *
 * The text helpers are pure (no system calls, no state); the adapter
 * helpers follow mount.h's conventions (0 or -errno, one line in msg).
 */
#ifndef ST_MNT_H
#define ST_MNT_H

#include "mount.h"

#include <stddef.h>

/* vsnprintf into msg (n bytes); msg NULL or n 0: nothing. */
void mnt_msg(char *msg, size_t n, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* ---- text ---- */

struct mnt_span {
	const char *p; /* start, not NUL-terminated */
	size_t len;    /* bytes */
};

/* The fields of one mountinfo line, as the kernel wrote them (escaped). */
struct mnt_fields {
	struct mnt_span f[6]; /* id, parent, major:minor, root, mount point, mount options */
	struct mnt_span optional, fstype, source, super;
};

/* The next line at *at (a cursor into mountinfo text) that has the shape
 * of a mountinfo line, split into m; *at moves past it. 0, or -1 when no
 * line is left. */
int mnt_next_line(const char **at, struct mnt_fields *m);

/* m's fields into out (paths and source unescaped, options cut at a comma
 * when they do not fit). 0, or -1 when its id or device is not a number. */
int mnt_fill(const struct mnt_fields *m, struct st_mountinfo_entry *out);

/* The mount id and device of m's line. 0, or -1 when they are not numbers. */
int mnt_ids(const struct mnt_fields *m, int *id, unsigned *major, unsigned *minor);

/* The decimal number s holds, all of it. 0, or -1. */
int mnt_span_int(struct mnt_span s, long long *out);

/* Length of the key of option token s (up to '=' or the end). */
size_t mnt_key_len(const char *s, size_t len);

/* len bytes of s into dst (n bytes), cut when it does not fit: 0, or -1 if cut. */
int mnt_copy_raw(const char *s, size_t len, char *dst, size_t n);

/* The top mount on mount_point in mountinfo text (the last line on it):
 * its id, device and fstype. 0, or -ENOENT. Needs no large buffer. */
struct mnt_top {
	int id;		       /* mount id */
	unsigned major, minor; /* its device */
	char fstype[64];       /* unescaped */
};
int mnt_top_of(const char *text, const char *mount_point, struct mnt_top *top);

/* 1 when a line of mountinfo text has mount id id. */
int mnt_has_id(const char *text, int id);

/* ---- adapter (mount.c) ---- */

/* target absolute, resolved (symbolic links, "..") into canon, not "/". */
int mnt_check_target(const char *target, char *canon, char *msg, size_t n);
/* 0 as root; else -EPERM with "WHAT needs root". */
int mnt_need_root(const char *what, char *msg, size_t n);
/* umount(8) of canon's top mount. */
int mnt_umount(const char *canon, char *msg, size_t n);
/* mount(8) -t fstype [-o options] source canon. */
int mnt_mount(const char *canon, const char *source, const char *fstype, const char *options,
	      char *msg, size_t n);
/* mnt_mount, and then a new mount on top of canon: mount(8) can exit 0
 * and mount nothing (seen with NFS over a mount of the same export with
 * the same options, whose superblock the kernel shares), and a run would
 * then measure the mount that was there, or the directory. 0; -EEXIST
 * with why in msg when the top mount is the one before (or none); as
 * mnt_mount otherwise. */
int mnt_mount_new(const char *canon, const char *source, const char *fstype, const char *options,
		  char *msg, size_t n);
/* The mount id of the top mount on canon: > 0, 0 when canon is no mount
 * point, or -errno. */
int mnt_top_id(const char *canon, char *msg, size_t n);
/* The top mount on canon: 1 and *e filled, 0 when canon is no mount point. */
int mnt_mounted_at(const char *canon, struct st_mountinfo_entry *e, char *msg, size_t n);
/* The host's record of s's mount (mount_left.c): written while stcluster's
 * mount is on top of s->target (s->our_id, and e the top mount's entry),
 * removed when it is not (e may then be NULL). */
void mnt_left_sync(const struct st_mount_state *s, const struct st_mountinfo_entry *e);

#endif
