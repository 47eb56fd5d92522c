/*
 * mount_opts.c - the mount driver's options, asked and granted (see
 * mount.h, pure part): the -o string of a combination, the options the
 * kernel shows mapped to st_effective, and why they differ from the
 * request.
 *
 * Text in, text or values out: no system calls, no state. Option lists
 * are the kernel's comma lists; a value holding a comma keeps its octal
 * escape (\054), so a list never splits inside a value.
 */
#include "mnt.h"

#include "../common/util.h"

#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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
			mnt_msg(out, n, "--%s: an NFS option, but --fstype is %s (only --mount-opts apply)",
				st_options[id].name, fstype);
			return -EINVAL;
		}
		if (st_options[id].type == ST_T_ENUM) {
			if (v < 0 || v >= choice_count(id)) {
				mnt_msg(out, n, "--%s: value %lld out of range", st_options[id].name,
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
		size_t kl = mnt_key_len(p, len);
		for (size_t i = 0; i < ST_ARRAY_LEN(nfs_opts); i++) {
			int id = nfs_opts[i].id;
			if (c->v[id] != ST_UNSET && has_word(nfs_opts[i].spellings, p, kl)) {
				mnt_msg(out, n, "--mount-opts: '%.*s' repeats --%s; give it once", (int)len,
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
		mnt_msg(out, n, "mount options longer than %zu bytes", n - 1);
		return -E2BIG;
	}
	return 0;
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
	struct mnt_span sp = { s, len };
	long long v;
	return mnt_span_int(sp, &v) == 0 && v >= 0 ? v : dflt;
}

static void seen_token(struct nfs_seen *s, const char *t, size_t len)
{
	size_t kl = mnt_key_len(t, len);
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
	size_t kl = mnt_key_len(t, len);
	for (const char *p = b->buf; *p;) {
		size_t l = strcspn(p, ",");
		if (mnt_key_len(p, l) == kl && strncmp(p, t, kl) == 0)
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
	st_effective_set(eff, id, v);
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
			return mnt_copy_raw(p + kl + 1, len - kl - 1, out, n);
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
	struct mnt_fields m;
	for (const char *at = text; mnt_next_line(&at, &m) == 0;)
		if (mnt_fill(&m, out) == 0 && out->mount_id != self->mount_id &&
		    st_mount_is_nfs(out->fstype) &&
		    !opt_value(out->super_opts, "addr", a2, sizeof(a2)) && !strcmp(addr, a2) &&
		    !opt_value(out->super_opts, "vers", v2, sizeof(v2)) && !strcmp(vers, v2))
			return 1;
	return 0;
}

static int eff_known(const struct st_effective *eff, int id)
{
	return st_effective_known(eff, id);
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
