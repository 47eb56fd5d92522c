/*
 * mount.c - the mount driver's adapter (see mount.h, adapter part): it
 * spawns mount(8) and umount(8) with fixed argument vectors, a minimal
 * environment and LC_ALL=C (their messages are matched to guess an errno),
 * and reads /proc for the mounts in force. The text it reads is parsed by
 * mountinfo.c and mount_opts.c; the cache drop is mount_drop.c.
 *
 * It never unmounts anything but the target's top mount, and (st_mount_*
 * with a state) only stcluster's own.
 */
#include "mnt.h"

#include "../common/util.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

/* ---- adapter: running mount(8) and umount(8) ---- */

/* Path of an installed tool ("mount" -> "/usr/bin/mount"). 0 or -ENOENT. */
static int find_tool(const char *name, char *out, size_t n)
{
	static const char *const dirs[] = { "/usr/bin", "/bin", "/usr/sbin", "/sbin" };
	for (size_t i = 0; i < ST_ARRAY_LEN(dirs); i++) {
		snprintf(out, n, "%s/%s", dirs[i], name);
		if (access(out, X_OK) == 0)
			return 0;
	}
	return -ENOENT;
}

int st_mount_errno(const char *text)
{
	/* mount.nfs's own sentences first (utils/mount/error.c of nfs-utils):
	 * they hold words of the generic ones ("not supported", "denied") */
	static const struct {
		const char *words;
		int err;
	} table[] = {
		{ "rpc.statd is not running", ENOLCK },
		{ "requested NFS version or transport protocol is not supported", EPROTONOSUPPORT },
		{ "an incorrect mount option was specified", EINVAL },
		{ "access denied by server", EACCES },
		{ "reason given by server: No such file or directory", ENOENT },
		{ "is busy or already mounted", EBUSY },
		{ "Stale file handle", ESTALE },
		{ "must be superuser", EPERM },
		{ "operation not permitted", EPERM },
		{ "permission denied", EACCES },
		{ "access denied", EACCES },
		{ "busy", EBUSY },
		{ "not mounted", EINVAL },
		{ "unknown filesystem type", ENODEV },
		{ "no such device", ENODEV },
		{ "does not exist", ENOENT },
		{ "no such file or directory", ENOENT },
		{ "timed out", ETIMEDOUT },
		{ "connection refused", ECONNREFUSED },
		{ "no route to host", EHOSTUNREACH },
		{ "network is unreachable", ENETUNREACH },
		{ "protocol not supported", EPROTONOSUPPORT },
		{ "cannot allocate memory", ENOMEM },
		{ "invalid argument", EINVAL },
		{ "bad option", EINVAL },
	};
	for (size_t i = 0; i < ST_ARRAY_LEN(table); i++)
		if (text && strcasestr(text, table[i].words))
			return table[i].err;
	return EIO;
}

/* text as one line into line (n bytes): newlines and the indentation
 * after them become one space, leading and trailing space go. Its length. */
static size_t one_line(const char *text, char *line, size_t n)
{
	size_t o = 0;
	for (size_t i = 0; text[i] && o + 1 < n; i++) {
		if (isspace((unsigned char)text[i])) {
			while (text[i + 1] && isspace((unsigned char)text[i + 1]))
				i++;
			if (o && text[i + 1])
				line[o++] = ' ';
			continue;
		}
		line[o++] = text[i];
	}
	line[o] = '\0';
	return o;
}

/* Run tool with argv (argv[0] its name), stdin and stdout on /dev/null and
 * stderr into a pipe. 0 when it exits 0; otherwise -errno with its message
 * (lines joined) in msg. */
static int run_tool(const char *tool, char *const argv[], char *msg, size_t n)
{
	char *const envp[] = { "PATH=/usr/sbin:/usr/bin:/sbin:/bin", "LC_ALL=C", NULL };
	char path[64];
	if (find_tool(tool, path, sizeof(path))) {
		mnt_msg(msg, n, "%s: not found in /usr/bin, /bin, /usr/sbin, /sbin", tool);
		return -ENOENT;
	}
	int pfd[2];
	if (pipe2(pfd, O_CLOEXEC) < 0) {
		int e = errno;
		mnt_msg(msg, n, "pipe: %s", strerror(e));
		return -e;
	}
	posix_spawn_file_actions_t fa;
	posix_spawnattr_t at;
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
	posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
	posix_spawn_file_actions_adddup2(&fa, pfd[1], 2);
	posix_spawnattr_init(&at);
	/* an MPI library may block or ignore signals; the tool should not inherit that */
	sigset_t all, none;
	sigfillset(&all);
	sigemptyset(&none);
	posix_spawnattr_setsigdefault(&at, &all);
	posix_spawnattr_setsigmask(&at, &none);
	posix_spawnattr_setflags(&at, POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK);
	pid_t pid;
	int rc = posix_spawn(&pid, path, &fa, &at, argv, envp);
	posix_spawnattr_destroy(&at);
	posix_spawn_file_actions_destroy(&fa);
	close(pfd[1]);
	if (rc) {
		close(pfd[0]);
		mnt_msg(msg, n, "spawn %s: %s", path, strerror(rc));
		return -rc;
	}

	char out[1024];
	size_t got = 0;
	for (;;) {
		char tmp[512];
		ssize_t r = read(pfd[0], tmp, sizeof(tmp));
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			break;
		/* keep the start, drain the rest so the child never blocks */
		size_t k = (size_t)r < sizeof(out) - 1 - got ? (size_t)r : sizeof(out) - 1 - got;
		memcpy(out + got, tmp, k);
		got += k;
	}
	out[got] = '\0';
	close(pfd[0]);

	int status;
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR) {
			int e = errno;
			mnt_msg(msg, n, "waitpid %s: %s", tool, strerror(e));
			return -e;
		}
	if (WIFEXITED(status) && WEXITSTATUS(status) == 0) {
		mnt_msg(msg, n, "%s", "");
		return 0;
	}

	char line[1024];
	if (!one_line(out, line, sizeof(line))) {
		if (WIFEXITED(status))
			snprintf(line, sizeof(line), "%s exited with status %d", tool,
				 WEXITSTATUS(status));
		else
			snprintf(line, sizeof(line), "%s killed by signal %d", tool,
				 WIFSIGNALED(status) ? WTERMSIG(status) : 0);
		mnt_msg(msg, n, "%s", line);
		return -EIO;
	}
	mnt_msg(msg, n, "%s", line);
	return -st_mount_errno(line);
}

/* Check a target for mounting or unmounting and resolve it (symbolic
 * links, "..") into canon. */
int mnt_check_target(const char *target, char *canon, char *msg, size_t n)
{
	if (!target || target[0] != '/') {
		mnt_msg(msg, n, "target '%s': not an absolute path", target ? target : "(null)");
		return -EINVAL;
	}
	if (!realpath(target, canon)) {
		int e = errno;
		mnt_msg(msg, n, "target %s: %s", target, strerror(e));
		return -e;
	}
	if (strcmp(canon, "/") == 0) {
		mnt_msg(msg, n, "target %s is the root directory: refusing to mount on it", target);
		return -EINVAL;
	}
	return 0;
}

int mnt_need_root(const char *what, char *msg, size_t n)
{
	if (geteuid() == 0)
		return 0;
	mnt_msg(msg, n, "%s needs root (euid %d)", what, (int)geteuid());
	return -EPERM;
}

int mnt_mounted_at(const char *canon, struct st_mountinfo_entry *e, char *msg, size_t n)
{
	char *mi;
	int rc = st_read_file("/proc/self/mountinfo", &mi);
	if (rc) {
		mnt_msg(msg, n, "/proc/self/mountinfo: %s", strerror(-rc));
		return rc;
	}
	rc = st_mountinfo_find(mi, canon, e);
	free(mi);
	return rc == 0;
}

static int word_ok(const char *s)
{
	return s && *s && *s != '-';
}

int mnt_umount(const char *canon, char *msg, size_t n)
{
	char *argv[] = { "umount", (char *)canon, NULL };
	return run_tool("umount", argv, msg, n);
}

/* Does the -o text ask for NFSv3 (vers=3, nfsvers=3, v3)? */
static int is_v3(const char *options)
{
	for (const char *p = options ? options : ""; *p;) {
		size_t len = strcspn(p, ",");
		if ((len == 6 && !strncmp(p, "vers=3", 6)) || (len == 9 && !strncmp(p, "nfsvers=3", 9)) ||
		    (len == 2 && !strncmp(p, "v3", 2)))
			return 1;
		p += len;
		if (*p == ',')
			p++;
	}
	return 0;
}

int mnt_mount(const char *canon, const char *source, const char *fstype, const char *options,
	      char *msg, size_t n)
{
	char *argv[8];
	int k = 0;
	argv[k++] = "mount";
	argv[k++] = "-t";
	argv[k++] = (char *)fstype;
	if (options && *options) {
		argv[k++] = "-o";
		argv[k++] = (char *)options;
	}
	argv[k++] = (char *)source;
	argv[k++] = (char *)canon;
	argv[k] = NULL;
	return run_tool("mount", argv, msg, n);
}

int mnt_mount_new(const char *canon, const char *source, const char *fstype, const char *options,
		  char *msg, size_t n)
{
	int before = mnt_top_id(canon, msg, n);
	if (before < 0)
		return before;
	int rc = mnt_mount(canon, source, fstype, options, msg, n);
	if (rc)
		return rc;
	struct st_mountinfo_entry *e = malloc(sizeof(*e));
	if (!e)
		return -ENOMEM;
	int top = mnt_mounted_at(canon, e, msg, n);
	if (top == 0)
		mnt_msg(msg, n, "mount(8) exited 0 but mounted nothing: %s is no mount point, so the "
				"run would measure the file system holding it",
			canon);
	else if (e->mount_id == before)
		mnt_msg(msg, n, "mount(8) exited 0 but mounted nothing: the mount found there (id %d, "
				"%s %s) is still on top, so the run would measure it, not stcluster's",
			e->mount_id, e->fstype, e->source[0] ? e->source : "-");
	rc = top < 0 ? top : top == 0 || e->mount_id == before ? -EEXIST : 0;
	free(e);
	return rc;
}

/* 1 when canon is a mount point, 0 when not, or -errno (the entry is big:
 * it lives on the heap, not on a thread's stack). */
static int is_mounted(const char *canon, char *msg, size_t n)
{
	struct st_mountinfo_entry *cur = malloc(sizeof(*cur));
	if (!cur)
		return -ENOMEM;
	int mounted = mnt_mounted_at(canon, cur, msg, n);
	free(cur);
	return mounted;
}

int st_mount_apply(const char *source, const char *fstype, const char *options,
		   const char *target, int remount_only, char *msg, size_t n)
{
	char canon[PATH_MAX];
	mnt_msg(msg, n, "%s", "");
	int rc = mnt_check_target(target, canon, msg, n);
	if (rc || (rc = st_mount_refuse_system(canon, 1, msg, n)))
		return rc;
	if (!remount_only && (!word_ok(source) || !word_ok(fstype))) {
		/* a leading '-' would be read by mount(8) as an option */
		mnt_msg(msg, n, "mount: bad %s '%s'", word_ok(source) ? "fstype" : "source",
			word_ok(source) ? (fstype ? fstype : "") : (source ? source : ""));
		return -EINVAL;
	}
	if ((rc = mnt_need_root("mount", msg, n)))
		return rc;
	int mounted = is_mounted(canon, msg, n);
	if (mounted < 0)
		return mounted;

	if (remount_only) {
		if (!mounted) {
			mnt_msg(msg, n, "%s is not a mount point: nothing to remount", canon);
			return -EINVAL;
		}
		char o[ST_MOUNT_OPTS_MAX];
		if (snprintf(o, sizeof(o), "remount%s%s", options && *options ? "," : "",
			     options ? options : "") >= (int)sizeof(o)) {
			mnt_msg(msg, n, "mount options too long");
			return -E2BIG;
		}
		char *argv[] = { "mount", "-o", o, canon, NULL };
		return run_tool("mount", argv, msg, n);
	}

	if (mounted && (rc = mnt_umount(canon, msg, n)))
		return rc;
	return mnt_mount_new(canon, source, fstype, options, msg, n);
}

int st_umount(const char *target, char *msg, size_t n)
{
	char canon[PATH_MAX];
	mnt_msg(msg, n, "%s", "");
	int rc = mnt_check_target(target, canon, msg, n);
	if (rc)
		return rc;
	if ((rc = mnt_need_root("umount", msg, n)))
		return rc;
	int mounted = is_mounted(canon, msg, n);
	if (mounted < 0)
		return mounted;
	if (!mounted) {
		mnt_msg(msg, n, "%s is not a mount point", canon);
		return -EINVAL;
	}
	return mnt_umount(canon, msg, n);
}

/* The mount id of the top mount on canon: > 0, 0 when canon is no mount
 * point, or -errno. */
int mnt_top_id(const char *canon, char *msg, size_t n)
{
	struct st_mountinfo_entry *e = malloc(sizeof(*e));
	if (!e)
		return -ENOMEM;
	int rc = mnt_mounted_at(canon, e, msg, n);
	if (rc > 0)
		rc = e->mount_id;
	free(e);
	return rc;
}

/* Has the -o text a word that sets locking (lock, nolock, local_lock=)? */
static int sets_locking(const char *options)
{
	for (const char *p = options ? options : ""; *p;) {
		size_t len = strcspn(p, ",");
		size_t kl = mnt_key_len(p, len);
		if ((len == 4 && !strncmp(p, "lock", 4)) || (len == 6 && !strncmp(p, "nolock", 6)) ||
		    (kl == 10 && !strncmp(p, "local_lock", 10)))
			return 1;
		p += len;
		if (*p == ',')
			p++;
	}
	return 0;
}

int st_mount_check_target(const char *target, int allow_over, char *msg, size_t n)
{
	char canon[PATH_MAX];
	mnt_msg(msg, n, "%s", "");
	int rc = mnt_check_target(target, canon, msg, n);
	if (rc || (rc = st_mount_refuse_system(canon, 1, msg, n)))
		return rc;
	struct stat st;
	if (stat(canon, &st) || !S_ISDIR(st.st_mode)) {
		mnt_msg(msg, n, "%s is not a directory", canon);
		return -ENOTDIR;
	}
	struct st_mountinfo_entry *e = malloc(sizeof(*e));
	if (!e)
		return -ENOMEM;
	rc = mnt_mounted_at(canon, e, msg, n);
	if (rc > 0 && !allow_over) {
		mnt_msg(msg, n,
			"%s is already a mount point (%s %s): stcluster mounts over it only with "
			"--mount-over (it then stays as it is, underneath)",
			canon, e->fstype, e->source[0] ? e->source : "-");
		rc = -EBUSY;
	} else if (rc > 0) {
		rc = 0;
	}
	free(e);
	return rc;
}

int st_mount_take(struct st_mount_state *s, const char *source, const char *fstype,
		  const char *options, const char *target, char *msg, size_t n)
{
	char canon[PATH_MAX];
	mnt_msg(msg, n, "%s", "");
	s->added[0] = s->added_why[0] = '\0';
	int rc = mnt_check_target(target, canon, msg, n);
	if (rc || (rc = st_mount_refuse_system(canon, 1, msg, n)))
		return rc;
	if (!word_ok(source) || !word_ok(fstype)) {
		mnt_msg(msg, n, "mount: bad %s '%s'", word_ok(source) ? "fstype" : "source",
			word_ok(source) ? (fstype ? fstype : "") : (source ? source : ""));
		return -EINVAL;
	}
	if ((rc = mnt_need_root("mount", msg, n)))
		return rc;
	int top = mnt_top_id(canon, msg, n);
	if (top < 0)
		return top;
	if (!s->target[0]) {
		st_copy(s->target, sizeof(s->target), canon);
		s->below_id = top;
	} else if (strcmp(s->target, canon)) {
		mnt_msg(msg, n, "mount driver: target %s, but this state is of %s", canon, s->target);
		return -EINVAL;
	}
	if (top && top == s->our_id) {
		if ((rc = mnt_umount(canon, msg, n)))
			return rc;
		s->our_id = 0;
	} else if (top && top != s->below_id) {
		mnt_msg(msg, n,
			"%s: the mount on top (id %d) is neither stcluster's nor the one it found "
			"there: left alone",
			canon, top);
		return -EBUSY;
	}
	s->our_id = 0;
	char opts[ST_MOUNT_OPTS_MAX];
	int nolock = st_mount_is_nfs(fstype) && !sets_locking(options) &&
		     snprintf(opts, sizeof(opts), "%s%snolock", options ? options : "",
			      options && *options ? "," : "") < (int)sizeof(opts);
	if (nolock && s->no_statd[0] && is_v3(options)) {
		/* known since an earlier mount: no rpc.statd here */
		rc = mnt_mount_new(canon, source, fstype, opts, msg, n);
		if (rc == 0) {
			st_copy(s->added, sizeof(s->added), "nolock");
			st_copy(s->added_why, sizeof(s->added_why), s->no_statd);
		}
	} else {
		rc = mnt_mount_new(canon, source, fstype, options, msg, n);
		if (rc == -ENOLCK && nolock) {
			/* NFSv3 and no rpc.statd on this host: stcluster takes no
			 * locks, so nolock changes nothing it measures; it is stored
			 * as an option the user did not ask for */
			st_copy(s->no_statd, sizeof(s->no_statd), msg);
			rc = mnt_mount_new(canon, source, fstype, opts, msg, n);
			if (rc == 0) {
				st_copy(s->added, sizeof(s->added), "nolock");
				st_copy(s->added_why, sizeof(s->added_why), s->no_statd);
			}
		}
	}
	if (rc)
		return rc;
	st_mount_adopt(s);
	return 0;
}

void st_mount_adopt(struct st_mount_state *s)
{
	if (!s->target[0])
		return;
	/* the top mount read once: its id is ours unless it is the one below,
	 * and the host's record of it is made from the same entry */
	struct st_mountinfo_entry *e = malloc(sizeof(*e));
	int top = e && mnt_mounted_at(s->target, e, NULL, 0) > 0 ? e->mount_id : 0;
	s->our_id = top > 0 && top != s->below_id ? top : 0;
	mnt_left_sync(s, e);
	free(e);
}

int st_mount_release(struct st_mount_state *s, int lazy, char *msg, size_t n)
{
	mnt_msg(msg, n, "%s", "");
	if (!s->our_id)
		return 0;
	int top = mnt_top_id(s->target, msg, n);
	if (top < 0)
		return top;
	if (top != s->our_id) {
		int was = s->our_id;
		s->our_id = 0;
		mnt_left_sync(s, NULL);
		if (!top || top == s->below_id)
			return 0; /* ours is gone already */
		mnt_msg(msg, n, "%s: stcluster's mount (id %d) is covered by mount %d: left alone",
			s->target, was, top);
		return -EBUSY;
	}
	int rc;
	if (lazy) {
		/* detach at once: never waits for a server that does not answer
		 * (umount(8) would, and its helper may talk to the server) */
		rc = umount2(s->target, MNT_DETACH) ? -errno : 0;
		if (rc)
			mnt_msg(msg, n, "umount -l %s: %s", s->target, strerror(-rc));
	} else {
		rc = mnt_umount(s->target, msg, n);
	}
	if (!rc) {
		s->our_id = 0;
		mnt_left_sync(s, NULL);
	}
	return rc;
}

/* The mount that holds canon (its mountinfo line into e), with the
 * mountinfo text it was found in (*mi, caller frees). 0 or -errno. */
static int holding(const char *canon, struct st_mountinfo_entry *e, char **mi, char *msg,
		   size_t n)
{
	int rc = st_read_file("/proc/self/mountinfo", mi);
	if (rc) {
		mnt_msg(msg, n, "/proc/self/mountinfo: %s", strerror(-rc));
		return rc;
	}
	/* the mount that holds canon: statx knows its id; without it (kernels
	 * before 5.8) the nearest mount point up the path */
	struct statx stx;
	rc = -ENOENT;
	if (statx(AT_FDCWD, canon, 0, STATX_MNT_ID, &stx) == 0 && (stx.stx_mask & STATX_MNT_ID))
		rc = st_mountinfo_find_id(*mi, (int)stx.stx_mnt_id, e);
	if (rc) {
		char up[PATH_MAX];
		st_copy(up, sizeof(up), canon);
		while ((rc = st_mountinfo_find(*mi, up, e)) != 0 && strcmp(up, "/") != 0) {
			char *slash = strrchr(up, '/');
			slash[slash == up ? 1 : 0] = '\0';
		}
	}
	if (rc)
		mnt_msg(msg, n, "no mount holds %s in /proc/self/mountinfo", canon);
	return rc;
}

int st_mount_holding(const char *dir, struct st_mountinfo_entry *e, char *msg, size_t n)
{
	char canon[PATH_MAX], *mi = NULL;
	mnt_msg(msg, n, "%s", "");
	if (!dir || !realpath(dir, canon)) {
		int err = dir ? errno : EINVAL;
		mnt_msg(msg, n, "target %s: %s", dir ? dir : "(none)", strerror(err));
		return -err;
	}
	int rc = holding(canon, e, &mi, msg, n);
	free(mi);
	return rc;
}

int st_mount_refuse_system(const char *target, int mounting, char *msg, size_t n)
{
	char canon[PATH_MAX], *mi = NULL, why[ST_MOUNT_PATH_MAX + 200];
	mnt_msg(msg, n, "%s", "");
	if (!target || !realpath(target, canon))
		return 0;
	struct st_mountinfo_entry *e = malloc(sizeof(*e));
	if (!e)
		return -ENOMEM;
	int known = holding(canon, e, &mi, NULL, 0) == 0;
	int sys = st_mount_system_path(canon, mounting, known ? e : NULL, mi, why, sizeof(why));
	free(mi);
	free(e);
	if (!sys)
		return 0;
	if (mounting)
		mnt_msg(msg, n, "%s: stcluster mounts on none of the system's places (give a "
				"directory of its own, e.g. under /mnt)",
			why);
	else
		mnt_msg(msg, n, "%s: not a file system to measure (give a directory on the one to "
				"measure)",
			why);
	return -EINVAL;
}

int st_mount_read_effective(const char *target, const char *fstype, const struct st_combo *req,
			    struct st_effective *eff, char *msg, size_t n)
{
	char canon[PATH_MAX];
	mnt_msg(msg, n, "%s", "");
	if (!target || !*target) {
		mnt_msg(msg, n, "no target");
		return -EINVAL;
	}
	if (!realpath(target, canon)) {
		int e = errno;
		mnt_msg(msg, n, "target %s: %s", target, strerror(e));
		return -e;
	}
	char *mi = NULL, *ms = NULL;
	struct st_mountinfo_entry *e = malloc(sizeof(*e));
	int rc = e ? holding(canon, e, &mi, msg, n) : -ENOMEM;
	if (rc)
		goto out_free;
	if (fstype && *fstype && strcmp(fstype, e->fstype) != 0 &&
	    !(st_mount_is_nfs(fstype) && st_mount_is_nfs(e->fstype))) {
		mnt_msg(msg, n, "%s is on a %s mount (%s on %s), not %s", canon, e->fstype, e->source,
			e->mount_point, fstype);
		rc = -EMEDIUMTYPE;
		goto out_free;
	}
	char stats[ST_MOUNT_OPTS_MAX];
	int have_stats = 0;
	/* mountstats adds what mountinfo leaves out (defaults); a failure to
	 * read it loses only those */
	if (st_mount_is_nfs(e->fstype) && st_read_file("/proc/self/mountstats", &ms) == 0)
		have_stats = st_mountstats_find(ms, e->mount_point, stats, sizeof(stats)) == 0;
	st_mount_effective(e->fstype, e->mount_opts, e->super_opts, have_stats ? stats : NULL, eff);
	if (req)
		st_mount_explain(req, mi, e, eff);
	rc = 0;
out_free:
	free(ms);
	free(mi);
	free(e);
	return rc;
}
