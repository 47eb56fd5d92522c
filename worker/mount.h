/*
 * mount.h - the posix engine's mount driver: mount(8) per combination and
 * the options the kernel really applied.
 *
 * Two parts. The pure part works on text only (no system calls, no state):
 * it builds the -o string of a combination, finds a mount in the text of
 * /proc/self/mountinfo or /proc/self/mountstats, and maps the options the
 * kernel shows to st_effective. The adapter part runs mount(8)/umount(8)
 * through posix_spawn with an argument vector (never a shell), reads /proc
 * and drops caches. It needs root; it refuses a target of "/" and any target
 * that is not an absolute path, and it never unmounts anything but the
 * target (the top mount on it, one layer per call).
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
};

/* 0 when target is a directory stcluster may mount on: absolute, not "/",
 * and not a mount point unless allow_over. -EBUSY (a mount point: msg names
 * it and --mount-over), -ENOTDIR, -ENOENT, -EINVAL. Needs no root. */
int st_mount_check_target(const char *target, int allow_over, char *msg, size_t n);

/*
 * Mount source (fstype, options) on target for one combination: first
 * unmount stcluster's previous mount there (s->our_id, when it is on top),
 * never another one (a mount on top that is neither stcluster's nor the
 * one found at the start: -EBUSY). NFS without rpc.statd (mount.nfs:
 * "rpc.statd is not running", ENOLCK) and no locking option given: mounted
 * again with nolock, which s->added and s->added_why record; from then on
 * an NFSv3 mount (vers=3 in options) of this state gets nolock at once
 * (mount.nfs first tries to start statd, for seconds). 0 (s->our_id the
 * new mount) or -errno with mount(8)'s message (s->our_id 0).
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
 * Target must be an existing absolute path, not "/" (also after resolving
 * symbolic links). Returns 0; or -EPERM when not root; -EINVAL for a bad
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
 * Drop the client's caches for the files under target before a read phase.
 * First syncfs(target), so dirty pages are written and can be dropped.
 * With source != NULL (stcluster mounted target with source, fstype and
 * options): a remount cycle (st_mount_apply, remount_only 0) with the same
 * options; when another mount shows the same device, here or in another
 * process's mount namespace (a shared superblock, or a namespace's copy,
 * would keep the cache) also drop_caches; when the umount is refused (busy:
 * an open file or directory on it, a rank's cwd) drop_caches instead. A
 * memory file system (tmpfs, ramfs) is not remounted: that would discard
 * its files, and its pages are not a cache. With source == NULL: drop_caches
 * only ("3" to /proc/sys/vm/drop_caches: page cache, dentries and inodes of
 * the whole host). method gets what was done: "remount",
 * "remount+drop_caches", "drop_caches" or "none"; msg says why that one,
 * and why not the other (0 or not). ours: the mount id of stcluster's mount
 * on target (st_mount_state.our_id), the only one it may unmount: a mount
 * on top that is not it (stcluster's is gone, a user's is in view) gets
 * drop_caches instead; -1: not checked. 0, or -errno with msg (then the
 * target may be left unmounted if the mount after a successful umount
 * failed).
 */
int st_drop_caches(const char *target, const char *source, const char *fstype,
		   const char *options, int ours, char *method, size_t method_n, char *msg,
		   size_t n);

#endif
