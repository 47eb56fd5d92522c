/*
 * mount.c - the posix engine's mount driver (see mount.h for the contract).
 *
 * The pure part reads the kernel's text formats: /proc/self/mountinfo
 * (show_mountinfo in fs/proc_namespace.c: fields separated by single spaces,
 * so an empty source shows as two spaces; paths escaped as \040 \011 \012
 * \134) and the NFS part of /proc/self/mountstats (nfs_show_stats in
 * fs/nfs/super.c: a "device ... mounted on ... with fstype ..." line followed
 * by tab-indented sections, "\topts:\t" first). The adapter part spawns
 * mount(8) and umount(8) with fixed argument vectors, a minimal environment
 * and LC_ALL=C (their messages are matched to guess an errno).
 */
#include "mount.h"

#include "../common/util.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <spawn.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

static void set_msg(char *msg, size_t n, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void set_msg(char *msg, size_t n, const char *fmt, ...)
{
	if (!msg || n == 0)
		return;
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, n, fmt, ap);
	va_end(ap);
}

int st_mount_is_nfs(const char *fstype)
{
	return fstype && (strcmp(fstype, "nfs") == 0 || strcmp(fstype, "nfs4") == 0);
}

/* ---- a bounded comma list ---- */

struct optbuf {
	char *buf;
	size_t n;
	size_t len;
	int over; /* something did not fit */
};

static void ob_init(struct optbuf *b, char *buf, size_t n)
{
	b->buf = buf;
	b->n = n;
	b->len = 0;
	b->over = n == 0;
	if (n)
		buf[0] = '\0';
}

/* Append one option (len bytes of s), comma separated; all or nothing. */
static int ob_add(struct optbuf *b, const char *s, size_t len)
{
	size_t need = len + (b->len ? 1 : 0);
	if (b->over || b->len + need + 1 > b->n) {
		b->over = 1;
		return -1;
	}
	if (b->len)
		b->buf[b->len++] = ',';
	memcpy(b->buf + b->len, s, len);
	b->len += len;
	b->buf[b->len] = '\0';
	return 0;
}

static int ob_addf(struct optbuf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static int ob_addf(struct optbuf *b, const char *fmt, ...)
{
	char tmp[ST_STR_MAX];
	va_list ap;
	va_start(ap, fmt);
	int k = vsnprintf(tmp, sizeof(tmp), fmt, ap);
	va_end(ap);
	if (k < 0 || (size_t)k >= sizeof(tmp)) {
		b->over = 1;
		return -1;
	}
	return ob_add(b, tmp, (size_t)k);
}

/* Length of the key of option token s (up to '=' or the end). */
static size_t key_len(const char *s, size_t len)
{
	const char *eq = memchr(s, '=', len);
	return eq ? (size_t)(eq - s) : len;
}

/* ---- building the -o string ---- */

/* The NFS options in nfs(5) order, and every mount -o key that sets one:
 * the same option in --mount-opts too would make the stored request wrong
 * (mount.nfs takes the last one). */
static const struct {
	int id;
	const char *key;       /* "key=value"; NULL: the value alone (sync, soft, noac) */
	const char *spellings; /* space separated */
} nfs_opts[] = {
	{ ST_OPT_VERS, "vers", "vers nfsvers minorversion v2 v3 v4 v4.0 v4.1 v4.2" },
	{ ST_OPT_PROTO, "proto", "proto tcp udp rdma" },
	{ ST_OPT_RSIZE, "rsize", "rsize" },
	{ ST_OPT_WSIZE, "wsize", "wsize" },
	{ ST_OPT_SYNC, NULL, "sync async" },
	{ ST_OPT_HARD, NULL, "hard soft softerr" },
	{ ST_OPT_TIMEO, "timeo", "timeo" },
	{ ST_OPT_RETRANS, "retrans", "retrans" },
	{ ST_OPT_NCONNECT, "nconnect", "nconnect" },
	{ ST_OPT_AC, NULL, "ac noac" },
	{ ST_OPT_ACTIMEO, "actimeo", "actimeo acregmin acregmax acdirmin acdirmax" },
};

/* Is (w, len) one of the space-separated words of list? */
static int has_word(const char *list, const char *w, size_t len)
{
	for (const char *p = list; *p;) {
		size_t l = strcspn(p, " ");
		if (l == len && strncmp(p, w, len) == 0)
			return 1;
		p += l;
		if (*p == ' ')
			p++;
	}
	return 0;
}

static int choice_count(int id)
{
	int k = 0;
	while (st_options[id].choices && st_options[id].choices[k])
		k++;
	return k;
}

int st_mount_options(const struct st_config *cfg, const struct st_combo *c, char *out,
		     size_t n)
{
	const char *fstype = cfg->o[ST_OPT_FSTYPE].n ? cfg->o[ST_OPT_FSTYPE].s : "nfs";
	int nfs = st_mount_is_nfs(fstype);
	struct optbuf b;
	ob_init(&b, out, n);
	if (n == 0)
		return -E2BIG;

	for (size_t i = 0; i < ST_ARRAY_LEN(nfs_opts); i++) {
		int id = nfs_opts[i].id;
		int64_t v = c->v[id];
		if (v == ST_UNSET)
			continue;
		if (!nfs) {
			set_msg(out, n, "--%s: an NFS option, but --fstype is %s (only --mount-opts apply)",
				st_options[id].name, fstype);
			return -EINVAL;
		}
		if (st_options[id].type == ST_T_ENUM) {
			if (v < 0 || v >= choice_count(id)) {
				set_msg(out, n, "--%s: value %lld out of range", st_options[id].name,
					(long long)v);
				return -EINVAL;
			}
			const char *text = st_options[id].choices[v];
			/* "4" alone lets the client pick the highest minor version */
			if (id == ST_OPT_VERS && v == ST_VERS_4)
				text = "4.0";
			if (nfs_opts[i].key)
				ob_addf(&b, "%s=%s", nfs_opts[i].key, text);
			else
				ob_addf(&b, "%s", text);
		} else {
			ob_addf(&b, "%s=%lld", nfs_opts[i].key, (long long)v);
		}
	}

	int64_t mi = c->v[ST_OPT_MOUNT_OPTS];
	const char *extra = mi == ST_UNSET ? "" : st_optval_str(&cfg->o[ST_OPT_MOUNT_OPTS], (int)mi);
	for (const char *p = extra; nfs && *p;) {
		size_t len = strcspn(p, ",");
		size_t kl = key_len(p, len);
		for (size_t i = 0; i < ST_ARRAY_LEN(nfs_opts); i++) {
			int id = nfs_opts[i].id;
			if (c->v[id] != ST_UNSET && has_word(nfs_opts[i].spellings, p, kl)) {
				set_msg(out, n, "--mount-opts: '%.*s' repeats --%s; give it once", (int)len,
					p, st_options[id].name);
				return -EINVAL;
			}
		}
		p += len;
		if (*p == ',')
			p++;
	}
	if (*extra)
		ob_add(&b, extra, strlen(extra));
	if (b.over) {
		set_msg(out, n, "mount options longer than %zu bytes", n - 1);
		return -E2BIG;
	}
	return 0;
}

/* ---- mountinfo ---- */

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

static int copy_raw(const char *s, size_t len, char *dst, size_t n)
{
	if (n == 0)
		return -1;
	size_t k = len < n ? len : n - 1;
	memcpy(dst, s, k);
	dst[k] = '\0';
	return k == len ? 0 : -1;
}

struct span {
	const char *p;
	size_t len;
};

/* The fields of one mountinfo line. */
struct mi_fields {
	struct span f[6]; /* id, parent, major:minor, root, mount point, mount options */
	struct span optional, fstype, source, super;
};

/* Split one line (without its newline) into fields. 0, or -1 when it does
 * not have the shape of a mountinfo line. */
static int mi_split(const char *line, size_t len, struct mi_fields *m)
{
	const char *p = line, *end = line + len;
	for (int i = 0; i < 6; i++) {
		const char *sp = memchr(p, ' ', (size_t)(end - p));
		if (!sp)
			return -1;
		m->f[i] = (struct span){ p, (size_t)(sp - p) };
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
	m->optional = (struct span){ opt, p > opt ? (size_t)(p - 1 - opt) : 0 };
	p += 2;
	const char *sp = memchr(p, ' ', (size_t)(end - p));
	if (!sp)
		return -1;
	m->fstype = (struct span){ p, (size_t)(sp - p) };
	p = sp + 1;
	sp = memchr(p, ' ', (size_t)(end - p));
	if (!sp)
		return -1;
	m->source = (struct span){ p, (size_t)(sp - p) };
	p = sp + 1;
	m->super = (struct span){ p, (size_t)(end - p) };
	return 0;
}

static int span_int(struct span s, long long *out)
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

static int mi_fill(const struct mi_fields *m, struct st_mountinfo_entry *out)
{
	long long id, parent;
	unsigned maj, min;
	char dev[32];
	if (span_int(m->f[0], &id) || span_int(m->f[1], &parent) ||
	    copy_raw(m->f[2].p, m->f[2].len, dev, sizeof(dev)) ||
	    sscanf(dev, "%u:%u", &maj, &min) != 2)
		return -1;
	out->mount_id = (int)id;
	out->parent_id = (int)parent;
	out->major = maj;
	out->minor = min;
	int cut = 0;
	cut |= unescape(m->f[3].p, m->f[3].len, out->root, sizeof(out->root));
	cut |= unescape(m->f[4].p, m->f[4].len, out->mount_point, sizeof(out->mount_point));
	cut |= copy_opts(m->f[5].p, m->f[5].len, out->mount_opts, sizeof(out->mount_opts));
	cut |= copy_raw(m->optional.p, m->optional.len, out->optional, sizeof(out->optional));
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
static int path_is(struct span s, const char *want, size_t wlen)
{
	char buf[ST_MOUNT_PATH_MAX];
	if (unescape(s.p, s.len, buf, sizeof(buf)))
		return 0;
	return strlen(buf) == wlen && memcmp(buf, want, wlen) == 0;
}

/* Walk the lines of mountinfo; the last one matching (by mount point when
 * mount_point != NULL, else by id) fills out. */
static int mi_find(const char *text, const char *mount_point, int id,
		   struct st_mountinfo_entry *out)
{
	size_t wlen = mount_point ? path_len(mount_point) : 0;
	int found = 0;
	for (const char *line = text; line && *line;) {
		const char *nl = strchr(line, '\n');
		size_t len = nl ? (size_t)(nl - line) : strlen(line);
		struct mi_fields m;
		if (mi_split(line, len, &m) == 0) {
			long long lid;
			int match = mount_point ? path_is(m.f[4], mount_point, wlen)
						: span_int(m.f[0], &lid) == 0 && lid == id;
			if (match && mi_fill(&m, out) == 0)
				found = 1;
		}
		line = nl ? nl + 1 : NULL;
	}
	return found ? 0 : -ENOENT;
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

/* Other mounts than skip_id showing device major:minor (bind mounts, or a
 * superblock the kernel shares between mounts of the same export). */
static int mi_count_dev(const char *text, unsigned major, unsigned minor, int skip_id)
{
	int count = 0;
	char want[32];
	snprintf(want, sizeof(want), "%u:%u", major, minor);
	for (const char *line = text; line && *line;) {
		const char *nl = strchr(line, '\n');
		size_t len = nl ? (size_t)(nl - line) : strlen(line);
		struct mi_fields m;
		char dev[32];
		long long id;
		if (mi_split(line, len, &m) == 0 && span_int(m.f[0], &id) == 0 && id != skip_id &&
		    copy_raw(m.f[2].p, m.f[2].len, dev, sizeof(dev)) == 0 && strcmp(dev, want) == 0)
			count++;
		line = nl ? nl + 1 : NULL;
	}
	return count;
}

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
		if (mi_count_dev(text, major, minor, -1) > 0)
			found = (int)pid;
		free(text);
	}
	free(seen);
	closedir(d);
	return found;
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
				struct span mp = { p, e ? (size_t)(e - p) : (size_t)(line + len - p) };
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

/* ---- effective options ---- */

/* What the kernel's option text said, NFS-wise; -1: not shown. */
struct nfs_seen {
	int nfs;	 /* a vers= was seen */
	int vers, proto; /* choice indexes; vers -2: a version not in the table (2) */
	long long rsize, wsize, timeo, retrans, nconnect;
	int sync, hard, noac;
	long long ac[4]; /* acregmin, acregmax, acdirmin, acdirmax, seconds */
};

static int index_of(const char *const *choices, const char *s, size_t len)
{
	for (int i = 0; choices[i]; i++)
		if (strlen(choices[i]) == len && strncmp(choices[i], s, len) == 0)
			return i;
	return -1;
}

static long long num_or(const char *s, size_t len, long long dflt)
{
	struct span sp = { s, len };
	long long v;
	return span_int(sp, &v) == 0 && v >= 0 ? v : dflt;
}

static void seen_token(struct nfs_seen *s, const char *t, size_t len)
{
	size_t kl = key_len(t, len);
	const char *v = t + kl + 1;
	size_t vl = kl < len ? len - kl - 1 : 0;
#define KEY(k) (kl == sizeof(k) - 1 && strncmp(t, k, kl) == 0)
	if (KEY("sync"))
		s->sync = 1;
	else if (KEY("hard"))
		s->hard = ST_HARD_HARD;
	else if (KEY("soft") || KEY("softerr"))
		s->hard = ST_HARD_SOFT;
	else if (KEY("noac"))
		s->noac = 1;
	else if (kl == len)
		return; /* other flags */
	else if (KEY("vers")) {
		s->nfs = 1;
		int i = vl == 3 && strncmp(v, "4.0", 3) == 0
				? ST_VERS_4
				: index_of(st_options[ST_OPT_VERS].choices, v, vl);
		s->vers = i >= 0 ? i : -2;
	} else if (KEY("proto")) {
		/* the netid of an IPv6 transport is tcp6, udp6, rdma6 */
		size_t bl = vl > 1 && v[vl - 1] == '6' ? vl - 1 : vl;
		s->proto = index_of(st_options[ST_OPT_PROTO].choices, v, bl);
	} else if (KEY("rsize"))
		s->rsize = num_or(v, vl, -1);
	else if (KEY("wsize"))
		s->wsize = num_or(v, vl, -1);
	else if (KEY("timeo"))
		s->timeo = num_or(v, vl, -1);
	else if (KEY("retrans"))
		s->retrans = num_or(v, vl, -1);
	else if (KEY("nconnect"))
		s->nconnect = num_or(v, vl, -1);
	else if (KEY("acregmin"))
		s->ac[0] = num_or(v, vl, s->ac[0]);
	else if (KEY("acregmax"))
		s->ac[1] = num_or(v, vl, s->ac[1]);
	else if (KEY("acdirmin"))
		s->ac[2] = num_or(v, vl, s->ac[2]);
	else if (KEY("acdirmax"))
		s->ac[3] = num_or(v, vl, s->ac[3]);
#undef KEY
}

static void seen_scan(struct nfs_seen *s, const char *opts)
{
	for (const char *p = opts; p && *p;) {
		size_t len = strcspn(p, ",");
		if (len)
			seen_token(s, p, len);
		p += len;
		if (*p == ',')
			p++;
	}
}

/* Is option (t, len)'s key already in the list b? */
static int ob_has_key(const struct optbuf *b, const char *t, size_t len)
{
	size_t kl = key_len(t, len);
	for (const char *p = b->buf; *p;) {
		size_t l = strcspn(p, ",");
		if (key_len(p, l) == kl && strncmp(p, t, kl) == 0)
			return 1;
		p += l;
		if (*p == ',')
			p++;
	}
	return 0;
}

static int has_flag(const char *opts, const char *flag)
{
	size_t fl = strlen(flag);
	for (const char *p = opts; p && *p;) {
		size_t len = strcspn(p, ",");
		if (len == fl && strncmp(p, flag, fl) == 0)
			return 1;
		p += len;
		if (*p == ',')
			p++;
	}
	return 0;
}

static void set_known(struct st_effective *eff, int id, int64_t v)
{
	eff->v[id] = v;
	eff->known |= 1ull << id;
}

void st_mount_effective(const char *fstype, const char *mount_opts, const char *super_opts,
			const char *stats_opts, struct st_effective *eff)
{
	memset(eff, 0, sizeof(*eff));
	for (int i = 0; i < ST_OPT_COUNT; i++)
		if (st_options[i].flags & ST_OF_NFS)
			eff->v[i] = ST_UNSET;

	/* the union, for people: rw/ro first (ro anywhere wins), then each
	 * option once, in the order the kernel shows them */
	const char *all[3] = { mount_opts, super_opts, stats_opts };
	struct optbuf b;
	ob_init(&b, eff->options, sizeof(eff->options));
	int ro = 0, rw = 0;
	for (int k = 0; k < 3; k++) {
		ro |= has_flag(all[k], "ro");
		rw |= has_flag(all[k], "rw");
	}
	if (ro || rw)
		ob_add(&b, ro ? "ro" : "rw", 2);
	for (int k = 0; k < 3 && !b.over; k++)
		for (const char *p = all[k]; p && *p && !b.over;) {
			size_t len = strcspn(p, ",");
			int rwro = len == 2 && (strncmp(p, "ro", 2) == 0 || strncmp(p, "rw", 2) == 0);
			if (len && !rwro && !ob_has_key(&b, p, len) && ob_add(&b, p, len)) {
				/* keep what fits and say that more was there */
				b.over = 0;
				while (b.len + 4 + 1 > b.n && b.len > 0) {
					char *c = strrchr(b.buf, ',');
					b.len = c ? (size_t)(c - b.buf) : 0;
					b.buf[b.len] = '\0';
				}
				ob_add(&b, "...", 3);
				b.over = 1;
			}
			p += len;
			if (*p == ',')
				p++;
		}

	if (!st_mount_is_nfs(fstype))
		return;
	/* defaults of the kernel for what mountinfo leaves out */
	struct nfs_seen s = { .vers = -1, .proto = -1, .rsize = -1, .wsize = -1, .timeo = -1,
			      .retrans = -1, .nconnect = -1, .hard = -1,
			      .ac = { 3, 60, 30, 60 } };
	for (int k = 0; k < 3; k++)
		seen_scan(&s, all[k]);
	if (!s.nfs)
		return;
	if (s.vers >= 0)
		set_known(eff, ST_OPT_VERS, s.vers);
	if (s.proto >= 0)
		set_known(eff, ST_OPT_PROTO, s.proto);
	if (s.rsize > 0)
		set_known(eff, ST_OPT_RSIZE, s.rsize);
	if (s.wsize > 0)
		set_known(eff, ST_OPT_WSIZE, s.wsize);
	set_known(eff, ST_OPT_SYNC, s.sync ? ST_SYNC_SYNC : ST_SYNC_ASYNC);
	if (s.hard >= 0)
		set_known(eff, ST_OPT_HARD, s.hard);
	if (s.timeo >= 0)
		set_known(eff, ST_OPT_TIMEO, s.timeo);
	if (s.retrans >= 0)
		set_known(eff, ST_OPT_RETRANS, s.retrans);
	/* the kernel prints nconnect only when it was given; otherwise one */
	set_known(eff, ST_OPT_NCONNECT, s.nconnect > 0 ? s.nconnect : 1);
	set_known(eff, ST_OPT_AC, s.noac ? ST_AC_NOAC : ST_AC_AC);
	if (s.ac[0] == s.ac[1] && s.ac[1] == s.ac[2] && s.ac[2] == s.ac[3])
		set_known(eff, ST_OPT_ACTIMEO, s.ac[0]);
}

/* ---- why effective differs from asked ---- */

/* Append "what" to the note list (items joined by "; "), all or nothing. */
static void note_add(struct st_effective *eff, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static void note_add(struct st_effective *eff, const char *fmt, ...)
{
	char item[256];
	va_list ap;
	va_start(ap, fmt);
	int k = vsnprintf(item, sizeof(item), fmt, ap);
	va_end(ap);
	size_t len = strlen(eff->note);
	if (k < 0 || (size_t)k >= sizeof(item) || len + (len ? 2 : 0) + (size_t)k + 1 > sizeof(eff->note))
		return;
	snprintf(eff->note + len, sizeof(eff->note) - len, "%s%s", len ? "; " : "", item);
}

/* The value of key in an option list (escaped text as the kernel shows it),
 * into out; 0 or -1 when absent. */
static int opt_value(const char *opts, const char *key, char *out, size_t n)
{
	size_t kl = strlen(key);
	for (const char *p = opts ? opts : ""; *p;) {
		size_t len = strcspn(p, ",");
		if (len > kl && p[kl] == '=' && strncmp(p, key, kl) == 0)
			return copy_raw(p + kl + 1, len - kl - 1, out, n);
		p += len;
		if (*p == ',')
			p++;
	}
	return -1;
}

/* Another NFS mount than self of the same server (addr=) and version: the
 * kernel shares one nfs_client (and its connections) between them. */
static int same_client(const char *text, const struct st_mountinfo_entry *self,
		       struct st_mountinfo_entry *out)
{
	char addr[128], vers[16], a2[128], v2[16];
	if (opt_value(self->super_opts, "addr", addr, sizeof(addr)) ||
	    opt_value(self->super_opts, "vers", vers, sizeof(vers)))
		return 0;
	for (const char *line = text; line && *line;) {
		const char *nl = strchr(line, '\n');
		size_t len = nl ? (size_t)(nl - line) : strlen(line);
		struct mi_fields m;
		if (mi_split(line, len, &m) == 0 && mi_fill(&m, out) == 0 &&
		    out->mount_id != self->mount_id && st_mount_is_nfs(out->fstype) &&
		    !opt_value(out->super_opts, "addr", a2, sizeof(a2)) && !strcmp(addr, a2) &&
		    !opt_value(out->super_opts, "vers", v2, sizeof(v2)) && !strcmp(vers, v2))
			return 1;
		line = nl ? nl + 1 : NULL;
	}
	return 0;
}

static int eff_known(const struct st_effective *eff, int id)
{
	return (eff->known >> id & 1) != 0;
}

void st_mount_explain(const struct st_combo *c, const char *mountinfo_text,
		      const struct st_mountinfo_entry *self, struct st_effective *eff)
{
	int noac = eff_known(eff, ST_OPT_AC) && eff->v[ST_OPT_AC] == ST_AC_NOAC;
	if (noac && c->v[ST_OPT_SYNC] == ST_SYNC_ASYNC && eff_known(eff, ST_OPT_SYNC) &&
	    eff->v[ST_OPT_SYNC] == ST_SYNC_SYNC)
		note_add(eff, "sync: noac makes the kernel write synchronously (it sets sync)");
	if (noac && c->v[ST_OPT_ACTIMEO] != ST_UNSET && c->v[ST_OPT_ACTIMEO] != 0 &&
	    eff_known(eff, ST_OPT_ACTIMEO) && eff->v[ST_OPT_ACTIMEO] == 0)
		note_add(eff, "actimeo: noac sets every attribute cache time to 0");
	static const int sizes[] = { ST_OPT_RSIZE, ST_OPT_WSIZE };
	for (size_t i = 0; i < ST_ARRAY_LEN(sizes); i++) {
		int id = sizes[i];
		int64_t want = c->v[id];
		if (want == ST_UNSET || !eff_known(eff, id) || eff->v[id] == want)
			continue;
		if (eff->v[id] < want && want % 4096 == 0)
			note_add(eff, "%s: %lld asked, %lld granted (the server's or the client's "
				      "largest %s)",
				 st_options[id].name, (long long)want, (long long)eff->v[id],
				 id == ST_OPT_RSIZE ? "READ" : "WRITE");
		else
			note_add(eff, "%s: %lld asked, %lld granted (rounded by the kernel)",
				 st_options[id].name, (long long)want, (long long)eff->v[id]);
	}
	int64_t nc = c->v[ST_OPT_NCONNECT] == ST_UNSET ? 1 : c->v[ST_OPT_NCONNECT];
	if (eff_known(eff, ST_OPT_NCONNECT) && eff->v[ST_OPT_NCONNECT] != nc && self &&
	    mountinfo_text) {
		struct st_mountinfo_entry *o = malloc(sizeof(*o));
		if (o && same_client(mountinfo_text, self, o))
			note_add(eff, "nconnect: %lld, not %lld: the kernel shares one client per "
				      "server and version, and the mount of %s on %s made it",
				 (long long)eff->v[ST_OPT_NCONNECT], (long long)nc, o->source,
				 o->mount_point);
		else
			note_add(eff, "nconnect: %lld, not %lld", (long long)eff->v[ST_OPT_NCONNECT],
				 (long long)nc);
		free(o);
	}
}

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

/* Run tool with argv (argv[0] its name), stdin and stdout on /dev/null and
 * stderr into a pipe. 0 when it exits 0; otherwise -errno with its message
 * (lines joined) in msg. */
static int run_tool(const char *tool, char *const argv[], char *msg, size_t n)
{
	char *const envp[] = { "PATH=/usr/sbin:/usr/bin:/sbin:/bin", "LC_ALL=C", NULL };
	char path[64];
	if (find_tool(tool, path, sizeof(path))) {
		set_msg(msg, n, "%s: not found in /usr/bin, /bin, /usr/sbin, /sbin", tool);
		return -ENOENT;
	}
	int pfd[2];
	if (pipe2(pfd, O_CLOEXEC) < 0) {
		int e = errno;
		set_msg(msg, n, "pipe: %s", strerror(e));
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
		set_msg(msg, n, "spawn %s: %s", path, strerror(rc));
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
			set_msg(msg, n, "waitpid %s: %s", tool, strerror(e));
			return -e;
		}
	if (WIFEXITED(status) && WEXITSTATUS(status) == 0) {
		set_msg(msg, n, "%s", "");
		return 0;
	}

	/* one line: newlines and the indentation after them become one space */
	char line[1024];
	size_t o = 0;
	for (size_t i = 0; out[i] && o + 1 < sizeof(line); i++) {
		if (isspace((unsigned char)out[i])) {
			while (out[i + 1] && isspace((unsigned char)out[i + 1]))
				i++;
			if (o && out[i + 1])
				line[o++] = ' ';
			continue;
		}
		line[o++] = out[i];
	}
	line[o] = '\0';
	if (!o) {
		if (WIFEXITED(status))
			snprintf(line, sizeof(line), "%s exited with status %d", tool,
				 WEXITSTATUS(status));
		else
			snprintf(line, sizeof(line), "%s killed by signal %d", tool,
				 WIFSIGNALED(status) ? WTERMSIG(status) : 0);
		set_msg(msg, n, "%s", line);
		return -EIO;
	}
	set_msg(msg, n, "%s", line);
	return -st_mount_errno(line);
}


/* Check a target for mounting or unmounting and resolve it (symbolic
 * links, "..") into canon. */
static int check_target(const char *target, char *canon, char *msg, size_t n)
{
	if (!target || target[0] != '/') {
		set_msg(msg, n, "target '%s': not an absolute path", target ? target : "(null)");
		return -EINVAL;
	}
	if (!realpath(target, canon)) {
		int e = errno;
		set_msg(msg, n, "target %s: %s", target, strerror(e));
		return -e;
	}
	if (strcmp(canon, "/") == 0) {
		set_msg(msg, n, "target %s is the root directory: refusing to mount on it", target);
		return -EINVAL;
	}
	return 0;
}

static int need_root(const char *what, char *msg, size_t n)
{
	if (geteuid() == 0)
		return 0;
	set_msg(msg, n, "%s needs root (euid %d)", what, (int)geteuid());
	return -EPERM;
}

/* The top mount on canon: 1 and *e filled, 0 when canon is no mount point. */
static int mounted_at(const char *canon, struct st_mountinfo_entry *e, char *msg, size_t n)
{
	char *mi;
	int rc = st_read_file("/proc/self/mountinfo", &mi);
	if (rc) {
		set_msg(msg, n, "/proc/self/mountinfo: %s", strerror(-rc));
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

static int do_umount(const char *canon, char *msg, size_t n)
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

static int do_mount(const char *canon, const char *source, const char *fstype,
		    const char *options, char *msg, size_t n)
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

/* 1 when canon is a mount point, 0 when not, or -errno (the entry is big:
 * it lives on the heap, not on a thread's stack). */
static int is_mounted(const char *canon, char *msg, size_t n)
{
	struct st_mountinfo_entry *cur = malloc(sizeof(*cur));
	if (!cur)
		return -ENOMEM;
	int mounted = mounted_at(canon, cur, msg, n);
	free(cur);
	return mounted;
}

int st_mount_apply(const char *source, const char *fstype, const char *options,
		   const char *target, int remount_only, char *msg, size_t n)
{
	char canon[PATH_MAX];
	set_msg(msg, n, "%s", "");
	int rc = check_target(target, canon, msg, n);
	if (rc)
		return rc;
	if (!remount_only && (!word_ok(source) || !word_ok(fstype))) {
		/* a leading '-' would be read by mount(8) as an option */
		set_msg(msg, n, "mount: bad %s '%s'", word_ok(source) ? "fstype" : "source",
			word_ok(source) ? (fstype ? fstype : "") : (source ? source : ""));
		return -EINVAL;
	}
	if ((rc = need_root("mount", msg, n)))
		return rc;
	int mounted = is_mounted(canon, msg, n);
	if (mounted < 0)
		return mounted;

	if (remount_only) {
		if (!mounted) {
			set_msg(msg, n, "%s is not a mount point: nothing to remount", canon);
			return -EINVAL;
		}
		char o[ST_MOUNT_OPTS_MAX];
		if (snprintf(o, sizeof(o), "remount%s%s", options && *options ? "," : "",
			     options ? options : "") >= (int)sizeof(o)) {
			set_msg(msg, n, "mount options too long");
			return -E2BIG;
		}
		char *argv[] = { "mount", "-o", o, canon, NULL };
		return run_tool("mount", argv, msg, n);
	}

	if (mounted && (rc = do_umount(canon, msg, n)))
		return rc;
	return do_mount(canon, source, fstype, options, msg, n);
}

int st_umount(const char *target, char *msg, size_t n)
{
	char canon[PATH_MAX];
	set_msg(msg, n, "%s", "");
	int rc = check_target(target, canon, msg, n);
	if (rc)
		return rc;
	if ((rc = need_root("umount", msg, n)))
		return rc;
	int mounted = is_mounted(canon, msg, n);
	if (mounted < 0)
		return mounted;
	if (!mounted) {
		set_msg(msg, n, "%s is not a mount point", canon);
		return -EINVAL;
	}
	return do_umount(canon, msg, n);
}

/* The mount id of the top mount on canon: > 0, 0 when canon is no mount
 * point, or -errno. */
static int top_id(const char *canon, char *msg, size_t n)
{
	struct st_mountinfo_entry *e = malloc(sizeof(*e));
	if (!e)
		return -ENOMEM;
	int rc = mounted_at(canon, e, msg, n);
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
		size_t kl = key_len(p, len);
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
	set_msg(msg, n, "%s", "");
	int rc = check_target(target, canon, msg, n);
	if (rc)
		return rc;
	struct stat st;
	if (stat(canon, &st) || !S_ISDIR(st.st_mode)) {
		set_msg(msg, n, "%s is not a directory", canon);
		return -ENOTDIR;
	}
	struct st_mountinfo_entry *e = malloc(sizeof(*e));
	if (!e)
		return -ENOMEM;
	rc = mounted_at(canon, e, msg, n);
	if (rc > 0 && !allow_over) {
		set_msg(msg, n,
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
	set_msg(msg, n, "%s", "");
	s->added[0] = s->added_why[0] = '\0';
	int rc = check_target(target, canon, msg, n);
	if (rc)
		return rc;
	if (!word_ok(source) || !word_ok(fstype)) {
		set_msg(msg, n, "mount: bad %s '%s'", word_ok(source) ? "fstype" : "source",
			word_ok(source) ? (fstype ? fstype : "") : (source ? source : ""));
		return -EINVAL;
	}
	if ((rc = need_root("mount", msg, n)))
		return rc;
	int top = top_id(canon, msg, n);
	if (top < 0)
		return top;
	if (!s->target[0]) {
		st_copy(s->target, sizeof(s->target), canon);
		s->below_id = top;
	} else if (strcmp(s->target, canon)) {
		set_msg(msg, n, "mount driver: target %s, but this state is of %s", canon, s->target);
		return -EINVAL;
	}
	if (top && top == s->our_id) {
		if ((rc = do_umount(canon, msg, n)))
			return rc;
		s->our_id = 0;
	} else if (top && top != s->below_id) {
		set_msg(msg, n,
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
		rc = do_mount(canon, source, fstype, opts, msg, n);
		if (rc == 0) {
			st_copy(s->added, sizeof(s->added), "nolock");
			st_copy(s->added_why, sizeof(s->added_why), s->no_statd);
		}
	} else {
		rc = do_mount(canon, source, fstype, options, msg, n);
		if (rc == -ENOLCK && nolock) {
			/* NFSv3 and no rpc.statd on this host: stcluster takes no
			 * locks, so nolock changes nothing it measures; it is stored
			 * as an option the user did not ask for */
			st_copy(s->no_statd, sizeof(s->no_statd), msg);
			rc = do_mount(canon, source, fstype, opts, msg, n);
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
	int top = top_id(s->target, NULL, 0);
	s->our_id = top > 0 && top != s->below_id ? top : 0;
}

int st_mount_release(struct st_mount_state *s, int lazy, char *msg, size_t n)
{
	set_msg(msg, n, "%s", "");
	if (!s->our_id)
		return 0;
	int top = top_id(s->target, msg, n);
	if (top < 0)
		return top;
	if (top != s->our_id) {
		int was = s->our_id;
		s->our_id = 0;
		if (!top || top == s->below_id)
			return 0; /* ours is gone already */
		set_msg(msg, n, "%s: stcluster's mount (id %d) is covered by mount %d: left alone",
			s->target, was, top);
		return -EBUSY;
	}
	int rc;
	if (lazy) {
		/* detach at once: never waits for a server that does not answer
		 * (umount(8) would, and its helper may talk to the server) */
		rc = umount2(s->target, MNT_DETACH) ? -errno : 0;
		if (rc)
			set_msg(msg, n, "umount -l %s: %s", s->target, strerror(-rc));
	} else {
		rc = do_umount(s->target, msg, n);
	}
	if (!rc)
		s->our_id = 0;
	return rc;
}

/* The mount that holds canon (its mountinfo line into e), with the
 * mountinfo text it was found in (*mi, caller frees). 0 or -errno. */
static int holding(const char *canon, struct st_mountinfo_entry *e, char **mi, char *msg,
		   size_t n)
{
	int rc = st_read_file("/proc/self/mountinfo", mi);
	if (rc) {
		set_msg(msg, n, "/proc/self/mountinfo: %s", strerror(-rc));
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
		set_msg(msg, n, "no mount holds %s in /proc/self/mountinfo", canon);
	return rc;
}

int st_mount_holding(const char *dir, struct st_mountinfo_entry *e, char *msg, size_t n)
{
	char canon[PATH_MAX], *mi = NULL;
	set_msg(msg, n, "%s", "");
	if (!dir || !realpath(dir, canon)) {
		int err = dir ? errno : EINVAL;
		set_msg(msg, n, "target %s: %s", dir ? dir : "(none)", strerror(err));
		return -err;
	}
	int rc = holding(canon, e, &mi, msg, n);
	free(mi);
	return rc;
}

int st_mount_read_effective(const char *target, const char *fstype, const struct st_combo *req,
			    struct st_effective *eff, char *msg, size_t n)
{
	char canon[PATH_MAX];
	set_msg(msg, n, "%s", "");
	if (!target || !*target) {
		set_msg(msg, n, "no target");
		return -EINVAL;
	}
	if (!realpath(target, canon)) {
		int e = errno;
		set_msg(msg, n, "target %s: %s", target, strerror(e));
		return -e;
	}
	char *mi = NULL, *ms = NULL;
	struct st_mountinfo_entry *e = malloc(sizeof(*e));
	int rc = e ? holding(canon, e, &mi, msg, n) : -ENOMEM;
	if (rc)
		goto out_free;
	if (fstype && *fstype && strcmp(fstype, e->fstype) != 0 &&
	    !(st_mount_is_nfs(fstype) && st_mount_is_nfs(e->fstype))) {
		set_msg(msg, n, "%s is on a %s mount (%s on %s), not %s", canon, e->fstype, e->source,
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

/* "3" into /proc/sys/vm/drop_caches: clean page cache, dentries, inodes. */
static int drop_host_caches(char *msg, size_t n)
{
	int fd = open("/proc/sys/vm/drop_caches", O_WRONLY | O_CLOEXEC);
	if (fd < 0) {
		int e = errno;
		set_msg(msg, n, "/proc/sys/vm/drop_caches: %s", strerror(e));
		return -e;
	}
	ssize_t w;
	while ((w = write(fd, "3", 1)) < 0 && errno == EINTR)
		;
	int e = w == 1 ? 0 : (w < 0 ? errno : EIO);
	close(fd);
	if (e) {
		set_msg(msg, n, "/proc/sys/vm/drop_caches: %s", strerror(e));
		return -e;
	}
	return 0;
}

static int memory_fs(const char *fstype)
{
	return strcmp(fstype, "tmpfs") == 0 || strcmp(fstype, "ramfs") == 0;
}

int st_drop_caches(const char *target, const char *source, const char *fstype,
		   const char *options, int ours, char *method, size_t method_n, char *msg,
		   size_t n)
{
	char canon[PATH_MAX];
	set_msg(method, method_n, "none");
	set_msg(msg, n, "%s", "");
	int rc = check_target(target, canon, msg, n);
	if (rc)
		return rc;
	if ((rc = need_root("dropping caches", msg, n)))
		return rc;

	/* dirty pages cannot be dropped: write them back first */
	int fd = open(canon, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0) {
		int e = errno;
		set_msg(msg, n, "open %s: %s", canon, strerror(e));
		return -e;
	}
	if (syncfs(fd) < 0) {
		int e = errno;
		close(fd);
		set_msg(msg, n, "syncfs %s: %s", canon, strerror(e));
		return -e;
	}
	close(fd);

	if (!source) {
		if ((rc = drop_host_caches(msg, n)))
			return rc;
		set_msg(method, method_n, "drop_caches");
		set_msg(msg, n, "not remounted: stcluster did not mount %s (no --mount)", canon);
		return 0;
	}

	struct st_mountinfo_entry *e = malloc(sizeof(*e));
	char *mi = NULL;
	if (!e)
		return -ENOMEM;
	if ((rc = st_read_file("/proc/self/mountinfo", &mi))) {
		set_msg(msg, n, "/proc/self/mountinfo: %s", strerror(-rc));
		goto out_free;
	}
	if (st_mountinfo_find(mi, canon, e)) {
		set_msg(msg, n, "%s is not a mount point: nothing to remount", canon);
		rc = -EINVAL;
		goto out_free;
	}
	if (memory_fs(e->fstype)) {
		set_msg(msg, n, "%s on %s: a remount would discard its files, and its pages are not a cache",
			e->fstype, canon);
		rc = 0;
		goto out_free;
	}
	int old_id = e->mount_id;
	if (ours >= 0 && old_id != ours) {
		if ((rc = drop_host_caches(msg, n)))
			goto out_free;
		set_msg(method, method_n, "drop_caches");
		set_msg(msg, n,
			"not remounted: the mount on %s (id %d) is not stcluster's (%s); dropped the "
			"host's caches",
			canon, old_id, ours ? "whose mount is gone" : "which has none there");
		goto out_free;
	}
	int shared = mi_count_dev(mi, e->major, e->minor, e->mount_id) > 0;
	unsigned major = e->major, minor = e->minor;

	/* the umount, then the mount, with the same source, type and options
	 * (as st_mount_apply does; here apart, to look in between) */
	char why[ST_ERR_MAX];
	if ((rc = do_umount(canon, why, sizeof(why))) < 0) {
		/* refused before anything changed (busy): fall back */
		int still = mounted_at(canon, e, msg, n);
		if (still == 1 && e->mount_id == old_id) {
			int rc2 = drop_host_caches(msg, n);
			if (rc2 == 0) {
				set_msg(method, method_n, "drop_caches");
				set_msg(msg, n, "not remounted (%s); dropped the host's caches", why);
			}
			rc = rc2;
		} else {
			set_msg(msg, n, "%s", why);
		}
		goto out_free;
	}
	/* a copy of the mount that outlived the umount (another namespace's,
	 * made private: unshare -m, whose propagation is private by default, or
	 * a container started while it was mounted) keeps the superblock, and
	 * the mount below would get it back with its cache; a copy that the
	 * umount reached (a slave: systemd's services, ip netns exec) went with
	 * it */
	int holder = shared ? 0 : other_ns_holder(major, minor);
	if ((rc = do_mount(canon, source, fstype, options, why, sizeof(why))) < 0) {
		/* mounted nothing after a successful umount: that is an error */
		set_msg(msg, n, "%s", why);
		goto out_free;
	}
	if (shared || holder != 0) {
		if ((rc = drop_host_caches(msg, n)))
			goto out_free;
		set_msg(method, method_n, "remount+drop_caches");
		if (shared)
			set_msg(msg, n,
				"remounted, and drop_caches too: another mount shows device %u:%u (a "
				"shared superblock keeps its cache)",
				major, minor);
		else if (holder < 0)
			set_msg(msg, n,
				"remounted, and drop_caches too: other mount namespaces could not be "
				"read for device %u:%u (%s), and a copy there would keep its cache",
				major, minor, strerror(-holder));
		else
			set_msg(msg, n,
				"remounted, and drop_caches too: the mount namespace of pid %d still "
				"showed device %u:%u after the umount (its copy keeps the superblock and "
				"its cache)",
				holder, major, minor);
	} else {
		set_msg(method, method_n, "remount");
		set_msg(msg, n, "remounted (a new superblock: nothing of %s cached); no drop_caches, "
				"which would empty every cache of the host",
			canon);
	}
out_free:
	free(mi);
	free(e);
	return rc;
}
