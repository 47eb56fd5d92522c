/*
 * rpcstats.c - the kernel NFS client's RPC counts (see rpcstats.h).
 *
 * The text is what nfs_show_stats (fs/nfs/super.c) and rpc_clnt_show_stats
 * (net/sunrpc/stats.c) print for one mount, statvers=1.1:
 *
 *   device SERVER:/export mounted on /mnt with fstype nfs4 statvers=1.1
 *   	opts:	rw,vers=4.2,...
 *   	age:	12
 *   	...
 *   	RPC iostats version: 1.1  p/v: 100003/4 (nfs)
 *   	xprt:	tcp 0 0 2 0 0 59 59 0 118 0 13 103 40
 *   	per-op statistics
 *   	        NULL: 1 1 0 44 24 1 0 2 0
 *   	       WRITE: 32 32 0 2103296 3584 120 85 227 0
 *
 * An xprt line per transport (nconnect): tcp and rdma give port, bind
 * count, connect count, connect time, idle time, sends, receives, bad xids,
 * req_u, bklog_u, ...; udp has no connection fields (port, bind count,
 * sends, receives, bad xids, req_u, bklog_u, ...). A per-op line: ops,
 * transmissions, major timeouts, bytes sent, bytes received, and the queue,
 * RTT and execute times in milliseconds, then (Linux 5.x on) errors.
 */
#include "rpcstats.h"

#include "../common/util.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Length of path without trailing slashes ("/" stays "/"). */
static size_t path_len(const char *path)
{
	size_t len = strlen(path);
	while (len > 1 && path[len - 1] == '/')
		len--;
	return len;
}

/* Does the escaped "mounted on" field (p, len) name the path (want, wlen)?
 * mountstats escapes as mountinfo does (\040 for a space). */
static int point_is(const char *p, size_t len, const char *want, size_t wlen)
{
	size_t o = 0;
	for (size_t i = 0; i < len; i++, o++) {
		char ch = p[i];
		if (ch == '\\' && i + 3 < len && p[i + 1] >= '0' && p[i + 1] <= '3') {
			ch = (char)((p[i + 1] - '0') * 64 + (p[i + 2] - '0') * 8 + (p[i + 3] - '0'));
			i += 3;
		}
		if (o >= wlen || want[o] != ch)
			return 0;
	}
	return o == wlen;
}

/* Up to max unsigned numbers from s (space or tab separated); how many. */
static int numbers(const char *s, const char *end, uint64_t *v, int max)
{
	int k = 0;
	while (k < max) {
		while (s < end && (*s == ' ' || *s == '\t'))
			s++;
		if (s >= end || *s < '0' || *s > '9')
			break;
		uint64_t x = 0;
		while (s < end && *s >= '0' && *s <= '9')
			x = x * 10 + (uint64_t)(*s++ - '0');
		v[k++] = x;
	}
	return k;
}

static void parse_xprt(const char *p, const char *end, struct st_rpc_snap *out)
{
	while (p < end && (*p == ' ' || *p == '\t'))
		p++;
	uint64_t v[16];
	int udp = end - p >= 3 && strncmp(p, "udp", 3) == 0;
	while (p < end && *p != ' ' && *p != '\t')
		p++; /* the transport's name */
	int k = numbers(p, end, v, 16);
	out->xprts++;
	if (udp && k >= 5) {
		out->sends += v[2];
		out->recvs += v[3];
		out->bad_xids += v[4];
		if (k >= 7)
			out->backlog_u += v[6];
	} else if (!udp && k >= 8) {
		out->connects += v[2];
		out->sends += v[5];
		out->recvs += v[6];
		out->bad_xids += v[7];
		if (k >= 10)
			out->backlog_u += v[9];
	}
}

/* "\t        WRITE: 32 32 0 ..." */
static void parse_op(const char *p, const char *end, struct st_rpc_snap *out)
{
	while (p < end && (*p == ' ' || *p == '\t'))
		p++;
	const char *colon = memchr(p, ':', (size_t)(end - p));
	if (!colon || colon == p || (size_t)(colon - p) >= sizeof(out->op[0].name) ||
	    out->nops >= ST_RPC_SNAP_OPS)
		return;
	uint64_t v[ST_RPC_FIELDS] = { 0 };
	if (numbers(colon + 1, end, v, ST_RPC_FIELDS) < 8)
		return;
	for (int k = 0; k < out->nops; k++)
		if (strlen(out->op[k].name) == (size_t)(colon - p) &&
		    !strncmp(out->op[k].name, p, (size_t)(colon - p)))
			return; /* once each (the kernel never repeats one) */
	int i = out->nops++;
	memcpy(out->op[i].name, p, (size_t)(colon - p));
	out->op[i].name[colon - p] = '\0';
	memcpy(out->op[i].v, v, sizeof(v));
}

int st_rpc_parse(const char *text, const char *mount_point, struct st_rpc_snap *out)
{
	static const char on[] = " mounted on ";
	memset(out, 0, sizeof(*out));
	if (!text || !mount_point)
		return -ENOENT;
	size_t wlen = path_len(mount_point);
	int found = 0, in = 0, ops = 0;
	for (const char *line = text; *line;) {
		const char *nl = strchr(line, '\n');
		const char *end = nl ? nl : line + strlen(line);
		size_t len = (size_t)(end - line);
		if (strncmp(line, "device ", 7) == 0 || strncmp(line, "no device ", 10) == 0) {
			in = 0;
			const char *m = memmem(line, len, on, sizeof(on) - 1);
			const char *fs = memmem(line, len, " with fstype nfs", 16);
			if (m && fs) {
				const char *p = m + sizeof(on) - 1;
				const char *e = memchr(p, ' ', (size_t)(end - p));
				if (e && point_is(p, (size_t)(e - p), mount_point, wlen)) {
					/* the last one on this point wins: start again */
					memset(out, 0, sizeof(*out));
					in = found = 1;
					ops = 0;
				}
			}
		} else if (in) {
			const char *p = line;
			while (p < end && (*p == ' ' || *p == '\t'))
				p++;
			size_t l = (size_t)(end - p);
			if (l > 4 && strncmp(p, "age:", 4) == 0) {
				numbers(p + 4, end, &out->age, 1);
			} else if (l > 5 && strncmp(p, "xprt:", 5) == 0) {
				parse_xprt(p + 5, end, out);
				out->nfs = 1;
			} else if (l >= 17 && strncmp(p, "per-op statistics", 17) == 0) {
				ops = 1;
				out->nfs = 1;
			} else if (ops) {
				parse_op(p, end, out);
			}
		}
		if (!nl)
			break;
		line = nl + 1;
	}
	if (!found)
		return -ENOENT;
	return out->nfs ? 0 : -ENODATA;
}

static int find_op(const struct st_rpc_snap *s, const char *name)
{
	for (int i = 0; i < s->nops; i++)
		if (strcmp(s->op[i].name, name) == 0)
			return i;
	return -1;
}

static int always_kept(const char *name)
{
	return !strcmp(name, "READ") || !strcmp(name, "WRITE") || !strcmp(name, "COMMIT");
}

/* b - a, or b when the counter went back (the mount was made again). */
static uint64_t change(uint64_t a, uint64_t b, int *reset)
{
	if (b >= a)
		return b - a;
	*reset = 1;
	return b;
}

void st_rpc_delta(const struct st_rpc_snap *before, const struct st_rpc_snap *after,
		  struct st_rpc_result *out)
{
	uint32_t rank = out->rank, phase = out->phase;
	memset(out, 0, sizeof(*out));
	out->version = ST_WIRE_VERSION;
	out->rank = rank;
	out->phase = phase;
	out->source = ST_RPC_MOUNTSTATS;
	for (int h = 0; h < ST_RPC_HISTS; h++)
		st_hist_init(&out->hist[h]);
	int reset = after->age < before->age;
	const struct st_rpc_snap zero = { .nfs = 0 };
	const struct st_rpc_snap *b = reset ? &zero : before;

	/* the used operations, busiest first, READ/WRITE/COMMIT always */
	struct {
		int i;
		uint64_t d[ST_RPC_FIELDS];
	} *cand = calloc((size_t)after->nops + 1, sizeof(*cand));
	int nc = 0;
	for (int i = 0; cand && i < after->nops; i++) {
		int j = find_op(b, after->op[i].name);
		int used = 0;
		for (int f = 0; f < ST_RPC_FIELDS; f++) {
			cand[nc].d[f] = change(j >= 0 ? b->op[j].v[f] : 0, after->op[i].v[f], &reset);
			used |= cand[nc].d[f] != 0;
		}
		if (used || always_kept(after->op[i].name))
			cand[nc++].i = i;
	}
	/* a stable sort by calls: the always-kept ones first when they tie */
	for (int x = 1; x < nc; x++)
		for (int y = x; y > 0; y--) {
			int ky = always_kept(after->op[cand[y].i].name),
			    kp = always_kept(after->op[cand[y - 1].i].name);
			if (cand[y].d[0] > cand[y - 1].d[0] || (cand[y].d[0] == cand[y - 1].d[0] && ky && !kp)) {
				__typeof__(*cand) t = cand[y];
				cand[y] = cand[y - 1];
				cand[y - 1] = t;
			} else {
				break;
			}
		}
	uint64_t commits = 0;
	int w = -1;
	for (int k = 0; k < nc && out->nops < ST_RPC_OPS; k++) {
		struct st_rpc_op *o = &out->op[out->nops];
		const char *name = after->op[cand[k].i].name;
		st_copy(o->name, sizeof(o->name), name);
		o->ops = cand[k].d[0];
		o->trans = cand[k].d[1];
		o->timeouts = cand[k].d[2];
		o->bytes_sent = cand[k].d[3];
		o->bytes_recv = cand[k].d[4];
		o->queue_us = cand[k].d[5] * 1000;
		o->rtt_us = cand[k].d[6] * 1000;
		o->exe_us = cand[k].d[7] * 1000;
		o->errors = cand[k].d[8];
		if (!strcmp(name, "COMMIT"))
			commits = o->ops;
		if (!strcmp(name, "WRITE"))
			w = out->nops;
		out->nops++;
	}
	free(cand);
	/* stable_how, inferred: mountstats counts WRITEs alike (rpcstats.h) */
	if (w >= 0) {
		struct st_rpc_op *o = &out->op[w];
		if (commits)
			o->unstable = o->ops;
		else
			o->file_sync = o->ops;
		out->basis = ST_RPC_BASIS_INFERRED;
	}
	out->xprts = after->xprts;
	out->connects = change(b->connects, after->connects, &reset);
	out->sends = change(b->sends, after->sends, &reset);
	out->recvs = change(b->recvs, after->recvs, &reset);
	out->bad_xids = change(b->bad_xids, after->bad_xids, &reset);
	out->backlog_u = change(b->backlog_u, after->backlog_u, &reset);
	if (reset)
		snprintf(out->note, sizeof(out->note),
			 "the counters went back during the phase (mounted again): counted from zero");
}

int st_rpc_read(const char *mount_point, struct st_rpc_snap *out, char *msg, size_t n)
{
	char *text = NULL;
	int rc = st_read_file("/proc/self/mountstats", &text);
	if (rc)
		snprintf(msg, n, "/proc/self/mountstats: %s", strerror(-rc));
	else if ((rc = st_rpc_parse(text, mount_point, out)))
		snprintf(msg, n, "/proc/self/mountstats has no RPC statistics for %s", mount_point);
	free(text);
	return rc;
}
