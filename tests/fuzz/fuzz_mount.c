/*
 * fuzz_mount.c - libFuzzer target: the text parsers of the mount driver
 * (worker/mountinfo.c, mount_opts.c): /proc/self/mountinfo lines,
 * /proc/self/mountstats blocks (the opts: line, and the RPC statistics of
 * worker/rpcstats.c with the delta of two readings), the options the
 * kernel shows mapped to effective values, and the cache drop's choice
 * over that mount table (worker/mount_drop.c).
 *
 * The input's first line is the mount point asked for, the rest the /proc
 * text (tests/fixtures/ has real ones). A mount found is the one asked for,
 * every field ends inside its buffer, the opts: line fits or says it was
 * cut, an effective value is one its option can take, and the cache drop
 * asks each step at most once and ends with one of its four methods.
 */
#include "../../worker/mount.h"
#include "../../worker/rpcstats.h"
#include "fuzz_check.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define TERMINATED(field) FUZZ_CHECK(memchr((field), 0, sizeof(field)) != NULL)

static void check_entry(const struct st_mountinfo_entry *e)
{
	TERMINATED(e->root);
	TERMINATED(e->mount_point);
	TERMINATED(e->mount_opts);
	TERMINATED(e->optional);
	TERMINATED(e->fstype);
	TERMINATED(e->source);
	TERMINATED(e->super_opts);
	FUZZ_CHECK(e->truncated == 0 || e->truncated == 1);
}

static void check_effective(const struct st_effective *eff)
{
	TERMINATED(eff->options);
	for (int i = 0; i < ST_OPT_COUNT; i++) {
		if (!st_effective_known(eff, i))
			continue;
		const struct st_opt_def *d = &st_options[i];
		FUZZ_CHECK(d->flags & ST_OF_NFS);
		FUZZ_CHECK(eff->v[i] >= 0);
		if (d->type == ST_T_ENUM) {
			int n = 0;
			while (d->choices[n])
				n++;
			FUZZ_CHECK(eff->v[i] < n);
		}
	}
	/* each option once: no two keys alike ("..." marks a cut, and a
	 * text may hold "..." itself) */
	const char *o = eff->options;
	for (const char *p = o; *p;) {
		size_t l = strcspn(p, ","), kl = strcspn(p, ",=");
		FUZZ_CHECK(l > 0);
		if (kl == 3 && strncmp(p, "...", 3) == 0) {
			p += l + (p[l] == ',');
			continue;
		}
		for (const char *q = p + l + (p[l] == ','); *q;) {
			size_t ql = strcspn(q, ","), qk = strcspn(q, ",=");
			if (qk == kl && strncmp(p, q, kl) == 0)
				fprintf(stderr, "'%.*s' twice in '%s'\n", (int)kl, p, o);
			FUZZ_CHECK(!(qk == kl && strncmp(p, q, kl) == 0));
			q += ql + (q[ql] == ',');
		}
		p += l + (p[l] == ',');
	}
}

/* The cache drop's choice on text as the mount table (top: the id of the
 * mount on mp in it, 0 none), each step answered from the bits of answers
 * (umount refused, the mount still on top, a copy elsewhere, the mount
 * failing; whose the top mount is). */
static void check_drop(const char *text, const char *mp, unsigned answers, int top)
{
	int ours = answers & 64 ? top + !!(answers & 16) : -1;
	struct st_drop_seen s = { .target = mp, .remount = !(answers & 32), .ours = ours,
				  .mountinfo = text,
				  .umount_rc = ST_DROP_UNKNOWN, .umount_msg = "umount: busy",
				  .top_after = ST_DROP_UNKNOWN, .holder = ST_DROP_UNKNOWN,
				  .mount_rc = ST_DROP_UNKNOWN, .mount_msg = "mount: failed" };
	struct st_drop_choice c;
	enum st_drop_step step;
	unsigned asked = 0;
	while ((step = st_drop_decide(&s, &c)) != ST_DROP_DONE) {
		FUZZ_CHECK(step >= ST_DROP_UMOUNT && step <= ST_DROP_MOUNT && !(asked & (1u << step)));
		asked |= 1u << step;
		if (step == ST_DROP_UMOUNT)
			s.umount_rc = answers & 1 ? -EBUSY : 0;
		else if (step == ST_DROP_RECHECK)
			s.top_after = answers & 2 ? top : 0;
		else if (step == ST_DROP_LOOK)
			s.holder = answers & 4 ? 4242 : 0;
		else
			s.mount_rc = answers & 8 ? -ETIMEDOUT : 0;
	}
	TERMINATED(c.method);
	TERMINATED(c.reason);
	FUZZ_CHECK(!strcmp(c.method, "none") || !strcmp(c.method, "drop_caches") ||
		   !strcmp(c.method, "remount") || !strcmp(c.method, "remount+drop_caches"));
	FUZZ_CHECK(c.drop_host == (strstr(c.method, "drop_caches") != NULL));
	FUZZ_CHECK(c.rc <= 0 && (c.rc == 0 || (!c.drop_host && !strcmp(c.method, "none"))));
	/* a remount is said only after a mount that worked; only stcluster's
	 * own mount is ever unmounted */
	FUZZ_CHECK(!strstr(c.method, "remount") || (asked & (1u << ST_DROP_MOUNT)));
	FUZZ_CHECK(!(asked & (1u << ST_DROP_UMOUNT)) || ours < 0 || ours == top);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *in = fuzz_string(data, size);
	char *nl = strchr(in, '\n');
	const char *text = nl ? nl + 1 : "";
	if (nl)
		*nl = '\0';
	const char *mp = in;
	struct st_mountinfo_entry *e = malloc(sizeof(*e)), *byid = malloc(sizeof(*byid));
	struct st_effective *eff = malloc(sizeof(*eff));
	FUZZ_CHECK(e && byid && eff);

	int rc = st_mountinfo_find(text, mp, e);
	FUZZ_CHECK(rc == 0 || rc == -ENOENT);
	if (rc == 0) {
		check_entry(e);
		/* the mount asked for, trailing slashes aside */
		size_t ml = strlen(mp);
		while (ml > 1 && mp[ml - 1] == '/')
			ml--;
		FUZZ_CHECK(strlen(e->mount_point) == ml && memcmp(e->mount_point, mp, ml) == 0);
		FUZZ_CHECK(st_mountinfo_find_id(text, e->mount_id, byid) == 0);
		check_entry(byid);
		FUZZ_CHECK(byid->mount_id == e->mount_id);
	}

	/* mountstats: a buffer of every small size, and a roomy one */
	size_t n = 1 + size % 64;
	char *opts = malloc(n), *big = malloc(ST_MOUNT_OPTS_MAX);
	FUZZ_CHECK(opts && big);
	int sr = st_mountstats_find(text, mp, opts, n);
	FUZZ_CHECK(sr == 0 || sr == -ENOENT || sr == -ENODATA || sr == -E2BIG);
	FUZZ_CHECK(memchr(opts, 0, n) != NULL);
	int br = st_mountstats_find(text, mp, big, ST_MOUNT_OPTS_MAX);
	FUZZ_CHECK(memchr(big, 0, ST_MOUNT_OPTS_MAX) != NULL);
	FUZZ_CHECK(br == sr || (sr == -E2BIG && (br == 0 || br == -E2BIG)));
	if (sr == 0)
		FUZZ_CHECK(strcmp(opts, big) == 0);

	/* RPC statistics: the fields fit, and a reading's delta against
	 * nothing (and itself) keeps its names and counts */
	struct st_rpc_snap *rs = malloc(sizeof(*rs)), *zero = calloc(1, sizeof(*zero));
	struct st_rpc_result *rx = malloc(sizeof(*rx));
	FUZZ_CHECK(rs && zero && rx);
	int pr = st_rpc_parse(text, mp, rs);
	FUZZ_CHECK(pr == 0 || pr == -ENOENT || pr == -ENODATA);
	FUZZ_CHECK(rs->nops >= 0 && rs->nops <= ST_RPC_SNAP_OPS);
	for (int i = 0; i < rs->nops; i++)
		TERMINATED(rs->op[i].name);
	if (pr == 0) {
		st_rpc_delta(zero, rs, rx);
		FUZZ_CHECK(rx->nops <= ST_RPC_OPS && rx->xprts == rs->xprts && rx->sends == rs->sends);
		for (uint32_t i = 0; i < rx->nops; i++) {
			TERMINATED(rx->op[i].name);
			FUZZ_CHECK(rx->op[i].file_sync + rx->op[i].unstable <= rx->op[i].ops);
		}
		st_rpc_delta(rs, rs, rx);
		for (uint32_t i = 0; i < rx->nops; i++)
			FUZZ_CHECK(rx->op[i].ops == 0 && rx->op[i].bytes_sent == 0);
		TERMINATED(rx->note);
	}
	free(rs);
	free(zero);
	free(rx);

	st_mount_effective(rc == 0 ? e->fstype : "nfs", rc == 0 ? e->mount_opts : text,
			   rc == 0 ? e->super_opts : NULL, br == 0 || br == -E2BIG ? big : NULL, eff);
	check_effective(eff);
	check_drop(text, mp, size ? data[size - 1] : 0, rc == 0 ? e->mount_id : 0);

	free(big);
	free(opts);
	free(eff);
	free(byid);
	free(e);
	free(in);
	return 0;
}
