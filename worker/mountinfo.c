/*
 * mountinfo.c - the mount driver's readers of the kernel's text formats
 * (see mount.h, pure part): /proc/self/mountinfo (show_mountinfo in
 * fs/proc_namespace.c: fields separated by single spaces, so an empty
 * source shows as two spaces; paths escaped as \040 \011 \012 \134) and the
 * NFS part of /proc/self/mountstats (nfs_show_stats in fs/nfs/super.c: a
 * "device ... mounted on ... with fstype ..." line followed by tab-indented
 * sections, "\topts:\t" first).
 *
 * Also the rule of the system's own places (st_mount_system_path), which
 * reads the mount table for a bind of a system file system.
 *
 * Text in, values out: no system calls, no state. A line that does not
 * have a mountinfo line's shape is skipped, never guessed at.
 */
#include "mnt.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void mnt_msg(char *msg, size_t n, const char *fmt, ...)
{
	if (!msg || n == 0)
		return;
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, n, fmt, ap);
	va_end(ap);
}

size_t mnt_key_len(const char *s, size_t len)
{
	const char *eq = memchr(s, '=', len);
	return eq ? (size_t)(eq - s) : len;
}

/* Copy len bytes of s into dst, decoding the kernel's \ooo escapes. 0, or -1
 * when it did not fit (dst then holds a cut copy). */
static int unescape(const char *s, size_t len, char *dst, size_t n)
{
	size_t o = 0;
	for (size_t i = 0; i < len; i++) {
		char ch = s[i];
		if (ch == '\\' && i + 3 < len && s[i + 1] >= '0' && s[i + 1] <= '3' &&
		    s[i + 2] >= '0' && s[i + 2] <= '7' && s[i + 3] >= '0' && s[i + 3] <= '7') {
			ch = (char)((s[i + 1] - '0') * 64 + (s[i + 2] - '0') * 8 + (s[i + 3] - '0'));
			i += 3;
		}
		if (o + 1 >= n) {
			if (n)
				dst[o] = '\0';
			return -1;
		}
		dst[o++] = ch;
	}
	if (n)
		dst[o] = '\0';
	return 0;
}

/* Copy an option list, cut at a comma when it does not fit. 0, or -1 if cut. */
static int copy_opts(const char *s, size_t len, char *dst, size_t n)
{
	if (n == 0)
		return -1;
	if (len < n) {
		memcpy(dst, s, len);
		dst[len] = '\0';
		return 0;
	}
	size_t cut = n - 1;
	while (cut > 0 && s[cut] != ',')
		cut--;
	memcpy(dst, s, cut);
	dst[cut] = '\0';
	return -1;
}

int mnt_copy_raw(const char *s, size_t len, char *dst, size_t n)
{
	if (n == 0)
		return -1;
	size_t k = len < n ? len : n - 1;
	memcpy(dst, s, k);
	dst[k] = '\0';
	return k == len ? 0 : -1;
}

/* ---- mountinfo ---- */

/* Split one line (without its newline) into fields. 0, or -1 when it does
 * not have the shape of a mountinfo line. */
static int mi_split(const char *line, size_t len, struct mnt_fields *m)
{
	const char *p = line, *end = line + len;
	for (int i = 0; i < 6; i++) {
		const char *sp = memchr(p, ' ', (size_t)(end - p));
		if (!sp)
			return -1;
		m->f[i] = (struct mnt_span){ p, (size_t)(sp - p) };
		p = sp + 1;
	}
	/* optional fields up to the lone "-" */
	const char *opt = p;
	for (;;) {
		const char *sp = memchr(p, ' ', (size_t)(end - p));
		if (!sp)
			return -1;
		if (sp - p == 1 && *p == '-')
			break;
		p = sp + 1;
	}
	m->optional = (struct mnt_span){ opt, p > opt ? (size_t)(p - 1 - opt) : 0 };
	p += 2;
	const char *sp = memchr(p, ' ', (size_t)(end - p));
	if (!sp)
		return -1;
	m->fstype = (struct mnt_span){ p, (size_t)(sp - p) };
	p = sp + 1;
	sp = memchr(p, ' ', (size_t)(end - p));
	if (!sp)
		return -1;
	m->source = (struct mnt_span){ p, (size_t)(sp - p) };
	p = sp + 1;
	m->super = (struct mnt_span){ p, (size_t)(end - p) };
	return 0;
}

int mnt_next_line(const char **at, struct mnt_fields *m)
{
	for (const char *line = *at; line && *line;) {
		const char *nl = strchr(line, '\n');
		size_t len = nl ? (size_t)(nl - line) : strlen(line);
		int ok = mi_split(line, len, m) == 0;
		line = nl ? nl + 1 : line + len;
		if (ok) {
			*at = line;
			return 0;
		}
	}
	*at = NULL;
	return -1;
}

int mnt_span_int(struct mnt_span s, long long *out)
{
	char tmp[32];
	if (s.len == 0 || s.len >= sizeof(tmp))
		return -1;
	memcpy(tmp, s.p, s.len);
	tmp[s.len] = '\0';
	char *e;
	errno = 0;
	long long v = strtoll(tmp, &e, 10);
	if (errno || *e)
		return -1;
	*out = v;
	return 0;
}

/* The mount id and device of m's line. 0, or -1 when they are not numbers. */
static int mi_ids(const struct mnt_fields *m, int *id, unsigned *major, unsigned *minor)
{
	long long v;
	char dev[32];
	if (mnt_span_int(m->f[0], &v) || mnt_copy_raw(m->f[2].p, m->f[2].len, dev, sizeof(dev)) ||
	    sscanf(dev, "%u:%u", major, minor) != 2)
		return -1;
	*id = (int)v;
	return 0;
}

int mnt_fill(const struct mnt_fields *m, struct st_mountinfo_entry *out)
{
	long long parent;
	int id;
	unsigned maj, min;
	if (mi_ids(m, &id, &maj, &min) || mnt_span_int(m->f[1], &parent))
		return -1;
	out->mount_id = id;
	out->parent_id = (int)parent;
	out->major = maj;
	out->minor = min;
	int cut = 0;
	cut |= unescape(m->f[3].p, m->f[3].len, out->root, sizeof(out->root));
	cut |= unescape(m->f[4].p, m->f[4].len, out->mount_point, sizeof(out->mount_point));
	cut |= copy_opts(m->f[5].p, m->f[5].len, out->mount_opts, sizeof(out->mount_opts));
	cut |= mnt_copy_raw(m->optional.p, m->optional.len, out->optional, sizeof(out->optional));
	cut |= unescape(m->fstype.p, m->fstype.len, out->fstype, sizeof(out->fstype));
	cut |= unescape(m->source.p, m->source.len, out->source, sizeof(out->source));
	cut |= copy_opts(m->super.p, m->super.len, out->super_opts, sizeof(out->super_opts));
	out->truncated = cut != 0;
	return 0;
}

/* Length of path without trailing slashes ("/" stays "/"). */
static size_t path_len(const char *path)
{
	size_t len = strlen(path);
	while (len > 1 && path[len - 1] == '/')
		len--;
	return len;
}

/* Does the escaped field s name the path (want, wlen)? */
static int path_is(struct mnt_span s, const char *want, size_t wlen)
{
	char buf[ST_MOUNT_PATH_MAX];
	if (unescape(s.p, s.len, buf, sizeof(buf)))
		return 0;
	return strlen(buf) == wlen && memcmp(buf, want, wlen) == 0;
}

/* The fields of the last line of text whose mount point is mount_point
 * (!= NULL), else whose id is id, among the lines whose id and device
 * read. 0, or -ENOENT. */
static int mi_last(const char *text, const char *mount_point, int id, struct mnt_fields *out)
{
	size_t wlen = mount_point ? path_len(mount_point) : 0;
	int found = 0;
	struct mnt_fields m;
	for (const char *at = text; mnt_next_line(&at, &m) == 0;) {
		int lid;
		unsigned maj, min;
		long long parent;
		if (mi_ids(&m, &lid, &maj, &min) || mnt_span_int(m.f[1], &parent))
			continue; /* a line mnt_fill would refuse */
		if (mount_point ? path_is(m.f[4], mount_point, wlen) : lid == id) {
			*out = m;
			found = 1;
		}
	}
	return found ? 0 : -ENOENT;
}

/* The last line matching (by mount point when mount_point != NULL, else
 * by id) fills out. */
static int mi_find(const char *text, const char *mount_point, int id,
		   struct st_mountinfo_entry *out)
{
	struct mnt_fields m;
	if (mi_last(text, mount_point, id, &m))
		return -ENOENT;
	return mnt_fill(&m, out) ? -ENOENT : 0;
}

int st_mountinfo_find(const char *mountinfo_text, const char *mount_point,
		      struct st_mountinfo_entry *out)
{
	if (!mountinfo_text || !mount_point || !*mount_point)
		return -ENOENT;
	return mi_find(mountinfo_text, mount_point, 0, out);
}

int st_mountinfo_find_id(const char *mountinfo_text, int mount_id,
			 struct st_mountinfo_entry *out)
{
	if (!mountinfo_text)
		return -ENOENT;
	return mi_find(mountinfo_text, NULL, mount_id, out);
}

int mnt_top_of(const char *text, const char *mount_point, struct mnt_top *top)
{
	struct mnt_fields m;
	if (!text || !mount_point || !*mount_point || mi_last(text, mount_point, 0, &m) ||
	    mi_ids(&m, &top->id, &top->major, &top->minor))
		return -ENOENT;
	unescape(m.fstype.p, m.fstype.len, top->fstype, sizeof(top->fstype));
	return 0;
}

int mnt_has_id(const char *text, int id)
{
	struct mnt_fields m;
	return text && mi_last(text, NULL, id, &m) == 0;
}

int st_mountinfo_dev_count(const char *text, unsigned major, unsigned minor, int skip_id)
{
	int count = 0;
	char want[32];
	snprintf(want, sizeof(want), "%u:%u", major, minor);
	size_t wlen = strlen(want);
	struct mnt_fields m;
	for (const char *at = text; mnt_next_line(&at, &m) == 0;) {
		long long id;
		if (mnt_span_int(m.f[0], &id) == 0 && id != skip_id && m.f[2].len == wlen &&
		    memcmp(m.f[2].p, want, wlen) == 0)
			count++;
	}
	return count;
}

/* ---- mountstats ---- */

int st_mountstats_find(const char *text, const char *mount_point, char *opts, size_t n)
{
	static const char on[] = " mounted on ";
	static const char tag[] = "\topts:\t";
	if (!text || !mount_point || n == 0)
		return -ENOENT;
	opts[0] = '\0';
	size_t wlen = path_len(mount_point);
	int found = 0, in_match = 0, have = 0, cut = 0;
	for (const char *line = text; *line;) {
		const char *nl = strchr(line, '\n');
		size_t len = nl ? (size_t)(nl - line) : strlen(line);
		if (strncmp(line, "device ", 7) == 0 || strncmp(line, "no device ", 10) == 0) {
			in_match = 0;
			const char *m = memmem(line, len, on, sizeof(on) - 1);
			if (m) {
				const char *p = m + sizeof(on) - 1;
				const char *e = memchr(p, ' ', (size_t)(line + len - p));
				struct mnt_span mp = { p, e ? (size_t)(e - p) : (size_t)(line + len - p) };
				if (path_is(mp, mount_point, wlen)) {
					in_match = found = 1;
					have = cut = 0;
					opts[0] = '\0';
				}
			}
		} else if (in_match && !have && len >= sizeof(tag) - 1 &&
			   strncmp(line, tag, sizeof(tag) - 1) == 0) {
			have = 1;
			cut = copy_opts(line + sizeof(tag) - 1, len - (sizeof(tag) - 1), opts, n) != 0;
		}
		if (!nl)
			break;
		line = nl + 1;
	}
	if (!found)
		return -ENOENT;
	if (!have)
		return -ENODATA;
	return cut ? -E2BIG : 0;
}

/* ---- the system's own places ---- */

/* Is path (canonical) dir itself or under it? */
static int path_under(const char *path, const char *dir)
{
	size_t len = strlen(dir);
	return strncmp(path, dir, len) == 0 && (path[len] == '\0' || path[len] == '/');
}

/* The kernel's own file systems: their files are the kernel's interface,
 * never a place to measure or to mount over. */
static int kernel_fstype(const char *fstype)
{
	static const char *const types[] = {
		"proc",	      "sysfs",	  "devtmpfs", "devpts",	     "cgroup",	"cgroup2",
		"securityfs", "debugfs",  "tracefs",  "pstore",	     "bpf",	"configfs",
		"efivarfs",   "mqueue",	  "fusectl",  "binfmt_misc", "nsfs",	"selinuxfs",
		"hugetlbfs",  "autofs",	  "rpc_pipefs", "nfsd",
	};
	for (size_t i = 0; fstype && i < sizeof(types) / sizeof(types[0]); i++)
		if (strcmp(fstype, types[i]) == 0)
			return 1;
	return 0;
}

/* The kernel's trees: their files are not files, so no run writes or
 * mounts there. The running and the installed system's: mounting over
 * them hides what the host runs on; /var's places for users' data (/var/tmp
 * as /tmp, and where systems that keep /mnt, /srv and /home under /var put
 * them) are not the system's. */
static const char *const kernel_trees[] = { "/proc", "/sys", "/dev" };
static const char *const system_trees[] = { "/run", "/boot", "/etc", "/usr", "/var" };
static const char *const var_user[] = { "/var/tmp", "/var/mnt", "/var/srv", "/var/home" };

/* Is path in one of the n trees? Its tree, or NULL. */
static const char *in_trees(const char *path, const char *const *trees, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (path_under(path, trees[i]))
			return trees[i];
	return NULL;
}

#define IN_TREES(path, trees) in_trees(path, trees, sizeof(trees) / sizeof(trees[0]))

/* The point where device major:minor is mounted whole (root "/"; a bind of
 * one of its directories does not count: ip-netns binds a directory of
 * the root file system on /run/netns) under /proc, /sys, /dev or /run,
 * other than mount skip_id: into point, 1; 0 when there is none. */
static int system_copy(const char *mountinfo, unsigned major, unsigned minor, int skip_id,
		       char *point, size_t n)
{
	struct mnt_fields m;
	for (const char *at = mountinfo; at && mnt_next_line(&at, &m) == 0;) {
		int id;
		unsigned ma, mi;
		if (mi_ids(&m, &id, &ma, &mi) || id == skip_id || ma != major || mi != minor ||
		    m.f[3].len != 1 || m.f[3].p[0] != '/' ||
		    unescape(m.f[4].p, m.f[4].len, point, n))
			continue;
		if (IN_TREES(point, kernel_trees) || path_under(point, "/run"))
			return 1;
	}
	return 0;
}

int st_mount_system_path(const char *canon, int mounting, const struct st_mountinfo_entry *holder,
			 const char *mountinfo, char *why, size_t n)
{
	const char *tree = IN_TREES(canon, kernel_trees);
	if (!tree && mounting && !IN_TREES(canon, var_user))
		tree = IN_TREES(canon, system_trees);
	if (strcmp(canon, "/") == 0) {
		mnt_msg(why, n, "%s is the root directory", canon);
		return 1;
	}
	if (tree) {
		if (strcmp(canon, tree))
			mnt_msg(why, n, "%s is under %s, the system's own", canon, tree);
		else
			mnt_msg(why, n, "%s is the system's own", canon);
		return 1;
	}
	if (holder && kernel_fstype(holder->fstype)) {
		mnt_msg(why, n, "%s is on a %s file system (mounted on %s), the kernel's", canon,
			holder->fstype, holder->mount_point);
		return 1;
	}
	char point[ST_MOUNT_PATH_MAX];
	if (mounting && holder && mountinfo &&
	    system_copy(mountinfo, holder->major, holder->minor, holder->mount_id, point,
			sizeof(point))) {
		mnt_msg(why, n, "%s is on the file system mounted on %s, the system's own", canon,
			point);
		return 1;
	}
	return 0;
}
