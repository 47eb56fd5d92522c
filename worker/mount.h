/*
 * mount.h - the posix engine's mount driver: mount(8) per combination and
 * the options the kernel really applied.
 *
 * Two parts. The pure part works on text only (no system calls, no state):
 * it builds the -o string of a combination, finds a mount in the text of
 * /proc/self/mountinfo or /proc/self/mountstats, maps the options the
 * kernel shows to st_effective, and chooses how to drop the caches from
 * what was read. The adapter part runs mount(8)/umount(8) through
 * posix_spawn with an argument vector (never a shell), reads /proc and
 * drops caches. It needs root; it refuses a target that is not an
 * absolute path or is one of the system's places ("/", /proc, /etc, ...:
 * st_mount_system_path), and it never unmounts anything but the target
 * (the top mount on it, one layer per call).
 *
 * Files: mountinfo.c (the /proc text formats), mount_opts.c (options asked
 * and granted), mount_drop.c (the cache drop: its choice and its adapter),
 * mount.c (the rest of the adapter); mnt.h is what they share.
 *
 * Every function returns 0 or a negative errno value; the ones that take
 * msg write one line of text there on failure ("" on success). Nothing here
 * keeps state between calls; every function is safe to call from any thread
 * (the adapter's child processes are spawned with CLONE_VFORK semantics, so
 * they copy no memory an MPI transport may have registered).
 */
#ifndef ST_MOUNT_H
#define ST_MOUNT_H

#include "../common/options.h"
#include "../common/wire.h"

#include <limits.h>
#include <stddef.h>

#define ST_MOUNT_PATH_MAX 4096 /* bytes of a path field, NUL included */
#define ST_MOUNT_OPTS_MAX 4096 /* bytes of an options field, NUL included */

/* One line of /proc/self/mountinfo (proc(5), Documentation/filesystems/proc.rst):
 *   36 35 98:0 /mnt1 /mnt2 rw,noatime master:1 - ext3 /dev/root rw,errors=continue
 * Paths and the source are unescaped (\040 -> ' ' etc.); the option fields
 * keep the kernel's octal escapes, so a value holding a comma (\054) never
 * splits. A field longer than its buffer is cut (options at a comma) and
 * `truncated` says so. */
struct st_mountinfo_entry {
	int mount_id;			      /* (1) unique id of the mount */
	int parent_id;			      /* (2) id of the parent mount */
	unsigned major, minor;		      /* (3) st_dev of files on it */
	char root[ST_MOUNT_PATH_MAX];	      /* (4) directory of the fs mounted here */
	char mount_point[ST_MOUNT_PATH_MAX];  /* (5) relative to the process root */
	char mount_opts[ST_MOUNT_OPTS_MAX];   /* (6) per-mount: rw,relatime,... */
	char optional[256];		      /* (7) "shared:1 master:2", may be "" */
	char fstype[64];		      /* (9) nfs, nfs4, tmpfs, ext4, ... */
	char source[ST_MOUNT_PATH_MAX];	      /* (10) server:/export, /dev/vda; may be "" */
	char super_opts[ST_MOUNT_OPTS_MAX];   /* (11) per superblock: rw,vers=4.2,... */
	int truncated;			      /* 1: a field did not fit and was cut */
};

/* ---- pure part: text in, text or values out ---- */

/* 1 for the file system types the kernel's NFS client registers (nfs, nfs4). */
int st_mount_is_nfs(const char *fstype);

/*
 * The -o string for combination c: for an NFS --fstype the NFS options that
 * are set, in nfs(5) syntax (vers=4.1,proto=tcp,rsize=1048576,wsize=...,
 * async|sync,hard|soft,timeo=600,retrans=2,nconnect=4,ac|noac,actimeo=30),
 * then the combination's --mount-opts text. Unset options are left out (the
 * kernel's default applies; the effective value read back records it).
 * --vers 4 is written vers=4.0: plain vers=4 lets the client negotiate the
 * highest minor version, which would make "4" and "4.2" the same request.
 * Returns 0 with the string in out (possibly ""); -EINVAL with one line in
 * out when an NFS option is set for another fstype, or when --mount-opts
 * repeats an option that is also set (e.g. "vers=3" with --vers); -E2BIG
 * when out is too small.
 */
int st_mount_options(const struct st_config *cfg, const struct st_combo *c, char *out,
		     size_t n);

/*
 * Find the mount on mount_point (an absolute path as mountinfo shows it,
 * unescaped; trailing slashes ignored) in the text of /proc/self/mountinfo.
 * Mounts stacked on the same point: the last line wins (the kernel lists a
 * mount after the one it covers). Returns 0 and fills out, or -ENOENT.
 */
int st_mountinfo_find(const char *mountinfo_text, const char *mount_point,
		      struct st_mountinfo_entry *out);

/* The same, by mount id (field 1; statx's stx_mnt_id). 0 or -ENOENT. */
int st_mountinfo_find_id(const char *mountinfo_text, int mount_id,
			 struct st_mountinfo_entry *out);

/* Mounts other than skip_id (-1: none) that show device major:minor in
 * the text of a mountinfo: bind mounts, a superblock the kernel shares
 * between mounts of one export, or (another namespace's text) a copy. */
int st_mountinfo_dev_count(const char *mountinfo_text, unsigned major, unsigned minor,
			   int skip_id);

/*
 * Is canon (an absolute path, links and ".." resolved) one of the system's
 * own places? Refused always: "/", /proc, /sys, /dev and what is under
 * them, and a path whose file system (holder: the mount that holds it, as
 * st_mount_holding finds it; NULL: not known) is one of the kernel's
 * (proc, sysfs, devtmpfs, devpts, cgroup, cgroup2, debugfs, ...) wherever
 * it is mounted. mounting (a mount on canon, --mount): also /run, /boot,
 * /etc, /usr and /var and what is under them, but for /var/tmp, /var/mnt,
 * /var/srv and /var/home; and a path on a file system that is mounted
 * whole on /proc, /sys, /dev or /run as well (a bind of /dev/shm
 * elsewhere: mountinfo, the text of /proc/self/mountinfo, shows it).
 * 1 with why (one line: "/proc/sys is under /proc, the system's own"), 0.
 */
int st_mount_system_path(const char *canon, int mounting, const struct st_mountinfo_entry *holder,
			 const char *mountinfo, char *why, size_t n);

/*
 * The "opts:" line of the mount on mount_point in the text of
 * /proc/self/mountstats (NFS only: nfs_show_stats prints it with every
 * option, defaults included). Stacked mounts: the last one wins. Returns 0
 * with the options (without "\topts:\t") in opts; -ENOENT when no mount is
 * on that point; -ENODATA when the last one has no opts: line (not NFS);
 * -E2BIG when opts is too small (a cut copy is left in it).
 */
int st_mountstats_find(const char *text, const char *mount_point, char *opts, size_t n);

/*
 * Map the options the kernel shows to eff, which is overwritten entirely.
 * Any of the three strings may be NULL. mount_opts and super_opts are the
 * mountinfo fields, stats_opts the mountstats opts: line (it wins where
 * both show a value). For NFS fstypes: vers= (3, 4.0, 4.1, 4.2), proto=
 * (tcp, udp, rdma; tcp6 etc. count as their base), rsize=, wsize=, sync
 * (the superblock flag "sync" anywhere; otherwise async), hard/soft (softerr
 * counts as soft), timeo=, retrans=, nconnect= (absent: 1, the kernel shows
 * it only when given), ac/noac, and actimeo when acregmin, acregmax, acdirmin
 * and acdirmax are equal (absent ones take the kernel defaults 3/60/30/60:
 * mountinfo leaves defaults out). Values go to eff->v[] in the combo
 * encoding with their bit in eff->known; nothing is known unless a vers=
 * was seen. For other fstypes no option is known. eff->options gets the
 * union of the three strings, each option once (first wins, "ro" over
 * "rw"), cut at a comma with ",..." when it does not fit.
 */
void st_mount_effective(const char *fstype, const char *mount_opts, const char *super_opts,
			const char *stats_opts, struct st_effective *eff);

/*
 * The errno of a failed mount(8)/umount(8) from its (LC_ALL=C) message:
 * mount.nfs's own sentences first ("requested NFS version or transport
 * protocol is not supported" EPROTONOSUPPORT, "an incorrect mount option
 * was specified" EINVAL, "rpc.statd is not running" ENOLCK, "access
 * denied by server" EACCES, "reason given by server: No such file or
 * directory" ENOENT), then strerror's words (busy, timed out, no route to
 * host, ...); EIO when nothing matches. A positive value.
 */
int st_mount_errno(const char *text);

/*
 * Why the kernel's options differ from the request, appended to
 * eff->note as "option: why" items joined by "; " (what fits): noac
 * (sync, and every attribute cache time 0), a READ/WRITE size the server
 * or client cut down, an nconnect that comes from another mount of the
 * same server (the kernel keeps one client per server: the first mount's
 * nconnect applies). c: the combination (its requested values);
 * mountinfo_text and self: the mount in force, to find the others.
 */
void st_mount_explain(const struct st_combo *c, const char *mountinfo_text,
		      const struct st_mountinfo_entry *self, struct st_effective *eff);

/*
 * How to drop the client's caches for the files under a target before a
 * read phase (st_drop_caches is its adapter): a pure function of what was
 * read, asked again as each step's outcome comes in. The caller fills a
 * st_drop_seen with what it knows (ST_DROP_UNKNOWN: not yet), asks
 * st_drop_decide, does the step it names and records the outcome in the
 * field the step names, and asks again, until ST_DROP_DONE: then c says
 * what to do (drop_host) and what to store (method, reason), or that the
 * drop failed (rc, reason). Steps come at most once each, in this order.
 *
 * The choice: without --mount (remount 0) drop_caches. With it: the top
 * mount on target must be there (else -EINVAL); a memory file system
 * (tmpfs, ramfs) is left alone ("none": a remount would discard its files,
 * and its pages are not a cache); a top mount that is not stcluster's
 * (ours >= 0 and another id) is never unmounted: drop_caches. Otherwise a
 * remount cycle: umount; refused with the same mount still on top (busy),
 * drop_caches instead; refused otherwise, that error. After the umount,
 * unless another mount of this namespace shows the device, a look at the
 * other namespaces for a copy that outlived it; then the mount. Both
 * ("remount+drop_caches") when a mount or copy elsewhere keeps the
 * superblock, or the other namespaces could not be read; "remount" alone
 * otherwise.
 */
#define ST_DROP_UNKNOWN INT_MIN /* a st_drop_seen outcome not known yet */

enum st_drop_step {
	ST_DROP_DONE,	 /* the choice is made */
	ST_DROP_UMOUNT,	 /* umount(8) the target: umount_rc, umount_msg */
	ST_DROP_RECHECK, /* the umount was refused: the mount id on top now, top_after */
	ST_DROP_LOOK,	 /* the other mount namespaces, for c->major:minor: holder */
	ST_DROP_MOUNT,	 /* mount(8) it again, same source, type, options: mount_rc, mount_msg */
};

/* What the cache drop has read so far. */
struct st_drop_seen {
	const char *target;	/* canonical path of the target */
	int remount;		/* 1: stcluster mounted it (--mount): a remount is possible */
	int ours;		/* stcluster's mount id on target (st_mount_state.our_id); -1: not checked */
	const char *mountinfo;	/* /proc/self/mountinfo before any step (remount only) */
	int umount_rc;		/* ST_DROP_UMOUNT: 0 or -errno */
	const char *umount_msg; /* umount(8)'s message when it failed */
	int top_after;		/* ST_DROP_RECHECK: mount id on top (0: none), or -errno */
	int holder;		/* ST_DROP_LOOK: pid of a namespace still showing the device,
				 * 0 none, -errno: they could not be read */
	int mount_rc;		/* ST_DROP_MOUNT: 0 or -errno */
	const char *mount_msg;	/* mount(8)'s message when it failed */
};

/* What to do, and what to store. */
struct st_drop_choice {
	char method[24];       /* "remount", "remount+drop_caches", "drop_caches", "none" */
	int drop_host;	       /* 1: write "3" to /proc/sys/vm/drop_caches (the method needs it) */
	int rc;		       /* 0, or -errno: the drop failed, reason says why */
	unsigned major, minor; /* the target's device, once the cycle began (ST_DROP_LOOK) */
	char reason[1024];     /* why that method, and why not the other; or the failure */
};

/* The next step, or ST_DROP_DONE with c filled in. c is overwritten. */
enum st_drop_step st_drop_decide(const struct st_drop_seen *s, struct st_drop_choice *c);

/* ---- adapter part: root, mount(8), /proc ---- */

/*
 * What the mount driver did on one target (local rank 0 of a client host
 * keeps one per run). stcluster only ever unmounts a mount it made: a
 * mount point found on the target (allowed with --mount-over) is mounted
 * over and left as it is underneath, so it is back in view - the same
 * mount, options and open files - once stcluster's mount is gone.
 */
struct st_mount_state {
	char target[ST_MOUNT_PATH_MAX]; /* canonical path; "" until the first mount */
	int below_id;			/* mount id found on the target before; 0: none */
	int our_id;			/* mount id of stcluster's mount on top; 0: none */
	char added[32];			/* options the last mount added unasked ("nolock") */
	char added_why[200];		/* why: mount.nfs's message that asked for it */
	char no_statd[200];		/* mount.nfs's message that rpc.statd is missing; "" not seen */
	char run_id[40];		/* the run it mounts for (the host's record names it) */
};

/* 0 when target (resolved) is none of the system's places
 * (st_mount_system_path; mounting: stcluster would mount on it); -EINVAL
 * with one line in msg naming the place. A target that does not resolve
 * is left to the caller's other checks (0). Needs no root. */
int st_mount_refuse_system(const char *target, int mounting, char *msg, size_t n);

/* 0 when target is a directory stcluster may mount on: absolute, not "/"
 * nor another of the system's places (st_mount_refuse_system), and not a
 * mount point unless allow_over. -EBUSY (a mount point: msg names it and
 * --mount-over), -ENOTDIR, -ENOENT, -EINVAL. Needs no root. */
int st_mount_check_target(const char *target, int allow_over, char *msg, size_t n);

/* --resume of run_id: when the top mount on target is the one this host
 * recorded stcluster mounting there for that run (a crash left it: same
 * mount id, st_dev, source and type), detach it: 1 with msg saying so.
 * 0 when there is none (or it is another mount: the user's, which
 * st_mount_check_target then refuses); -errno with msg when it cannot be
 * detached. Needs root to detach. (worker/mount_left.c) */
int st_mount_left_replace(const char *target, const char *run_id, char *msg, size_t n);

/*
 * Mount source (fstype, options) on target for one combination: first
 * unmount stcluster's previous mount there (s->our_id, when it is on top),
 * never another one (a mount on top that is neither stcluster's nor the
 * one found at the start: -EBUSY). NFS without rpc.statd (mount.nfs:
 * "rpc.statd is not running", ENOLCK) and no locking option given: mounted
 * again with nolock, which s->added and s->added_why record; from then on
 * an NFSv3 mount (vers=3 in options) of this state gets nolock at once
 * (mount.nfs first tries to start statd, for seconds). 0 (s->our_id the
 * new mount) or -errno with mount(8)'s message (s->our_id 0); -EEXIST
 * when mount(8) exited 0 but no new mount is on top (the one found there,
 * or none: the kernel gave back a mount it had), which msg says.
 */
int st_mount_take(struct st_mount_state *s, const char *source, const char *fstype,
		  const char *options, const char *target, char *msg, size_t n);

/* s->our_id from the mount now on top of s->target (after a remount cycle
 * of st_drop_caches): 0 when it is the one found at the start, or none. */
void st_mount_adopt(struct st_mount_state *s);

/*
 * Unmount stcluster's mount (s->our_id) when it is on top of s->target;
 * whatever was below is in view again. lazy: umount2(MNT_DETACH), which
 * returns at once even when the server does not answer (the abort paths);
 * else umount(8), which may wait for a server that does not answer. 0
 * (also when there is nothing of stcluster's to unmount), or -errno.
 */
int st_mount_release(struct st_mount_state *s, int lazy, char *msg, size_t n);

/*
 * Mount source (fstype, options) on target.
 * remount_only = 0: if target is a mount point, `umount TARGET` first (the
 *   top mount only); then `mount -t FSTYPE [-o OPTIONS] SOURCE TARGET`. A new
 *   superblock, so nothing cached survives (unless another mount shares it).
 *   If the umount succeeded and the mount failed, target is left unmounted.
 * remount_only = 1: `mount -o remount[,OPTIONS] TARGET`: the options a file
 *   system can change in place (tmpfs size=, nr_inodes=); files and caches
 *   stay; source and fstype may be NULL. Target must be a mount point.
 * Target must be an existing absolute path, none of the system's places
 * (st_mount_refuse_system; "/" included, also after resolving symbolic
 * links). Returns 0; or -EEXIST when mount(8) exited 0 but no new mount is
 * on top; -EPERM when not root; -EINVAL for a bad
 * argument (a source or fstype starting with '-' included) or
 * (remount_only) a target that is not a mount point; otherwise an errno
 * guessed from mount(8)'s message (-EBUSY, -ENOENT, -ENODEV, -ETIMEDOUT,
 * -ECONNREFUSED, ..., else -EIO) with that message in msg. Blocks as long as
 * mount(8) does (an NFS server that does not answer: mount.nfs retries for
 * about 2 minutes unless the options say retry=0).
 */
int st_mount_apply(const char *source, const char *fstype, const char *options,
		   const char *target, int remount_only, char *msg, size_t n);

/* `umount TARGET` when target is a mount point (the top mount only).
 * 0; -EINVAL when it is not a mount point; as st_mount_apply otherwise. */
int st_umount(const char *target, char *msg, size_t n);

/*
 * The options in force for target (a directory; need not be a mount point:
 * the mount that holds it is used, found by statx's mount id), from
 * /proc/self/mountinfo and, for NFS, /proc/self/mountstats, into eff (see
 * st_mount_effective). fstype NULL or "": any; otherwise the mount must be of
 * that type (nfs and nfs4 count as one), else -EMEDIUMTYPE: the check that
 * the expected mount is really there and not the directory under it.
 * req: the combination asked for, whose differences st_mount_explain
 * notes (NULL: none). Needs no root. 0, or -errno with msg.
 */
int st_mount_read_effective(const char *target, const char *fstype, const struct st_combo *req,
			    struct st_effective *eff, char *msg, size_t n);

/* The mount that holds dir (a directory; need not be a mount point): its
 * mountinfo line, found by statx's mount id (else the nearest mount point
 * up the path). Needs no root. 0, or -errno with msg. */
int st_mount_holding(const char *dir, struct st_mountinfo_entry *e, char *msg, size_t n);

/*
 * Drop the client's caches for the files under target before a read phase,
 * as st_drop_decide chooses. First syncfs(target), so dirty pages are
 * written and can be dropped. With source != NULL (stcluster mounted target
 * with source, fstype and options): the remount cycle mounts with the same
 * options. drop_caches is "3" to /proc/sys/vm/drop_caches: page cache,
 * dentries and inodes of the whole host. method gets what was done:
 * "remount", "remount+drop_caches", "drop_caches" or "none"; msg says why
 * that one, and why not the other (0 or not). ours: the mount id of
 * stcluster's mount on target (st_mount_state.our_id), the only one it may
 * unmount; -1: not checked. 0, or -errno with msg (then the target may be
 * left unmounted if the mount after a successful umount failed).
 */
int st_drop_caches(const char *target, const char *source, const char *fstype,
		   const char *options, int ours, char *method, size_t method_n, char *msg,
		   size_t n);

#endif
