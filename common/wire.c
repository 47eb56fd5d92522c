/*
 * wire.c - names of the enums that cross MPI, and the wire stamp (see wire.h).
 */
#include "wire.h"

#include "options.h"

#include <stdio.h>
#include <string.h>

const char *const st_op_names[ST_OP_COUNT] = {
	[ST_OP_NONE] = "none",	     [ST_OP_PREPARE] = "prepare", [ST_OP_MKDIR] = "mkdir",
	[ST_OP_OPEN] = "open",	     [ST_OP_WRITE] = "write",	  [ST_OP_READ] = "read",
	[ST_OP_FSYNC] = "fsync",     [ST_OP_CLOSE] = "close",	  [ST_OP_UNLINK] = "unlink",
	[ST_OP_ALLOC] = "alloc",     [ST_OP_PIN] = "pin",	  [ST_OP_DEADLINE] = "deadline",
	[ST_OP_SHORT] = "short",     [ST_OP_CREATE] = "create",	  [ST_OP_STAT] = "stat",
	[ST_OP_REMOVE] = "remove",   [ST_OP_RMDIR] = "rmdir",
	[ST_OP_READDIR] = "readdir",
};

const char *const st_role_names[] = { "client", "server", "idle" };
const char *const st_rpc_source_names[] = { "", "mountstats", "libnfs" };
const char *const st_rpc_basis_names[] = { "", "measured", "inferred" };

void st_effective_set(struct st_effective *e, int id, int64_t v)
{
	e->v[id] = v;
	e->known[id / 64] |= 1ull << (id % 64);
}

int st_effective_known(const struct st_effective *e, int id)
{
	return (e->known[id / 64] >> (id % 64) & 1) != 0;
}

int st_effective_any(const struct st_effective *e)
{
	for (int w = 0; w < ST_OPT_WORDS; w++)
		if (e->known[w])
			return 1;
	return 0;
}

/* A rank of another build reads a versioned struct's version before the
 * rest, so the version stays where every build has it: first. */
_Static_assert(offsetof(struct st_host_info, version) == 0 &&
		       offsetof(struct st_combo, version) == 0 &&
		       offsetof(struct st_prepare_status, version) == 0 &&
		       offsetof(struct st_rank_result, version) == 0 &&
		       offsetof(struct st_thread_result, version) == 0 &&
		       offsetof(struct st_rpc_result, version) == 0,
	       "a wire struct's version is its first member");
/* the stamp keeps the version in its high 32 bits */
_Static_assert(ST_WIRE_VERSION >= 1 && ST_WIRE_VERSION <= 0xffffffffLL, "ST_WIRE_VERSION");
/* the job sends a struct as one MPI count of bytes, an int */
_Static_assert(sizeof(struct st_config) <= 0x7fffffff && sizeof(struct st_rpc_result) <= 0x7fffffff,
	       "a wire struct's size fits an MPI count");

uint64_t st_wire_stamp(void)
{
	const size_t sizes[] = {
		sizeof(struct st_config),	  sizeof(struct st_combo),
		sizeof(struct st_host_info),	  sizeof(struct st_prepare_status),
		sizeof(struct st_effective),	  sizeof(struct st_rank_result),
		sizeof(struct st_thread_result),  sizeof(struct st_hist),
		sizeof(struct st_sample),	  sizeof(struct st_progress_msg),
		sizeof(struct st_mount_msg),	  sizeof(struct st_cache_drop_msg),
		sizeof(struct st_netbench_msg),	  sizeof(struct st_diskbench_msg),
		sizeof(struct st_interval),
		sizeof(struct st_target_check_msg), sizeof(struct st_rpc_result),
	};
	uint32_t h = 2166136261u; /* FNV-1a over the sizes */
	for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		h ^= (uint32_t)sizes[i];
		h *= 16777619u;
	}
	return (uint64_t)ST_WIRE_VERSION << 32 | h;
}

/* The histograms are the last members of both result structs (a rank's:
 * hist, hist_read, hist_write, in that order): their bytes up to the first
 * one's buckets are the fixed part of a pack; a rank's further histograms
 * follow with their own counters and their non-empty buckets. */
_Static_assert(offsetof(struct st_rank_result, hist_read) ==
		       offsetof(struct st_rank_result, hist) + sizeof(struct st_hist) &&
	       offsetof(struct st_rank_result, hist_write) ==
		       offsetof(struct st_rank_result, hist_read) + sizeof(struct st_hist) &&
	       offsetof(struct st_rank_result, hist_write) + sizeof(struct st_hist) ==
		       sizeof(struct st_rank_result),
	       "st_rank_result's histograms must be its last members, hist first");
_Static_assert(offsetof(struct st_thread_result, hist) + sizeof(struct st_hist) ==
		       sizeof(struct st_thread_result),
	       "st_thread_result.hist must be its last member");
_Static_assert(ST_HIST_BUCKETS < 65536, "bucket indexes are u16 in a pack");

#define HIST_HEAD offsetof(struct st_hist, bucket)
#define RR_FIXED (offsetof(struct st_rank_result, hist) + HIST_HEAD)
#define TR_FIXED (offsetof(struct st_thread_result, hist) + HIST_HEAD)
#define HIST_MAX (2 + ST_HIST_BUCKETS * (2 + 8))

size_t st_results_bound(int nt)
{
	return 4 + RR_FIXED + HIST_MAX + 2 * (HIST_HEAD + HIST_MAX) +
	       (size_t)(nt > 0 ? nt : 0) * (TR_FIXED + HIST_MAX);
}

static unsigned char *put_hist(unsigned char *p, const struct st_hist *h)
{
	unsigned char *count = p;
	uint16_t n = 0;
	p += 2;
	for (uint16_t b = 0; b < ST_HIST_BUCKETS; b++) {
		if (!h->bucket[b])
			continue;
		memcpy(p, &b, 2);
		memcpy(p + 2, &h->bucket[b], 8);
		p += 10;
		n++;
	}
	memcpy(count, &n, 2);
	return p;
}

/* A histogram with its counters (the rank's second and third) */
static unsigned char *put_whole_hist(unsigned char *p, const struct st_hist *h)
{
	memcpy(p, h, HIST_HEAD);
	return put_hist(p + HIST_HEAD, h);
}

size_t st_results_pack(const struct st_rank_result *rr, const struct st_thread_result *tr, int nt,
		       unsigned char *buf)
{
	uint32_t n = (uint32_t)(nt > 0 ? nt : 0);
	unsigned char *p = buf;
	memcpy(p, &n, 4);
	p += 4;
	memcpy(p, rr, RR_FIXED);
	p = put_hist(p + RR_FIXED, &rr->hist);
	p = put_whole_hist(p, &rr->hist_read);
	p = put_whole_hist(p, &rr->hist_write);
	for (uint32_t i = 0; i < n; i++) {
		memcpy(p, &tr[i], TR_FIXED);
		p = put_hist(p + TR_FIXED, &tr[i].hist);
	}
	return (size_t)(p - buf);
}

int st_results_count(const unsigned char *buf, size_t len)
{
	uint32_t n;
	if (len < 4)
		return -1;
	memcpy(&n, buf, 4);
	return n > 1u << 20 ? -1 : (int)n;
}

/* One histogram's buckets from p (end: the pack's end): the next byte, or NULL. */
static const unsigned char *get_hist(const unsigned char *p, const unsigned char *end,
				     struct st_hist *h)
{
	uint16_t n;
	memset(h->bucket, 0, sizeof(h->bucket));
	if (end - p < 2)
		return NULL;
	memcpy(&n, p, 2);
	p += 2;
	if ((size_t)(end - p) < (size_t)n * 10)
		return NULL;
	for (uint16_t i = 0; i < n; i++, p += 10) {
		uint16_t b;
		memcpy(&b, p, 2);
		if (b >= ST_HIST_BUCKETS)
			return NULL;
		memcpy(&h->bucket[b], p + 2, 8);
	}
	return p;
}

static const unsigned char *get_whole_hist(const unsigned char *p, const unsigned char *end,
					   struct st_hist *h)
{
	if ((size_t)(end - p) < HIST_HEAD)
		return NULL;
	memcpy(h, p, HIST_HEAD);
	return get_hist(p + HIST_HEAD, end, h);
}

int st_results_unpack(const unsigned char *buf, size_t len, struct st_rank_result *rr,
		      struct st_thread_result *tr)
{
	const unsigned char *p = buf, *end = buf + len;
	int n = st_results_count(buf, len);
	if (n < 0)
		return -1;
	p += 4;
	if ((size_t)(end - p) < RR_FIXED)
		return -1;
	memcpy(rr, p, RR_FIXED);
	if (!(p = get_hist(p + RR_FIXED, end, &rr->hist)) ||
	    !(p = get_whole_hist(p, end, &rr->hist_read)) ||
	    !(p = get_whole_hist(p, end, &rr->hist_write)))
		return -1;
	for (int i = 0; i < n; i++) {
		if ((size_t)(end - p) < TR_FIXED)
			return -1;
		memcpy(&tr[i], p, TR_FIXED);
		if (!(p = get_hist(p + TR_FIXED, end, &tr[i].hist)))
			return -1;
	}
	return p == end ? 0 : -1;
}

/* A phase pack's head: u32 each of the four parts' sizes (wire.h) */
#define PHASE_HEAD (4 * sizeof(uint32_t))

size_t st_phase_pack_bound(const struct st_phase_pack *p)
{
	return PHASE_HEAD + st_results_bound(p->nt) + sizeof(*p->rpc) + p->nsamples * sizeof(*p->samples) +
	       p->niv * sizeof(*p->iv);
}

size_t st_phase_pack_put(const struct st_phase_pack *p, unsigned char *buf)
{
	unsigned char *at = buf + PHASE_HEAD;
	uint32_t head[PHASE_HEAD / sizeof(uint32_t)];
	head[0] = (uint32_t)st_results_pack(p->rr, p->tr, p->nt, at);
	at += head[0];
	head[1] = p->rpc ? (uint32_t)sizeof(*p->rpc) : 0;
	if (p->rpc)
		memcpy(at, p->rpc, sizeof(*p->rpc));
	at += head[1];
	head[2] = (uint32_t)p->nsamples;
	if (p->nsamples)
		memcpy(at, p->samples, p->nsamples * sizeof(*p->samples));
	at += p->nsamples * sizeof(*p->samples);
	head[3] = (uint32_t)p->niv;
	if (p->niv)
		memcpy(at, p->iv, p->niv * sizeof(*p->iv));
	at += p->niv * sizeof(*p->iv);
	memcpy(buf, head, sizeof(head));
	return (size_t)(at - buf);
}

int st_phase_pack_parts(const unsigned char *buf, size_t len, struct st_phase_parts *out)
{
	uint32_t head[PHASE_HEAD / sizeof(uint32_t)];
	memset(out, 0, sizeof(*out));
	if (len < sizeof(head))
		return -1;
	memcpy(head, buf, sizeof(head));
	if (head[1] && head[1] != sizeof(struct st_rpc_result))
		return -1;
	/* in 64 bits: four u32 counts cannot wrap it */
	uint64_t want = sizeof(head) + (uint64_t)head[0] + head[1] +
			(uint64_t)head[2] * sizeof(struct st_sample) +
			(uint64_t)head[3] * sizeof(struct st_interval);
	if (want != len)
		return -1;
	const unsigned char *at = buf + sizeof(head);
	out->results = at;
	out->results_len = head[0];
	at += head[0];
	out->rpc = head[1] ? at : NULL;
	at += head[1];
	out->samples = at;
	out->nsamples = head[2];
	at += (size_t)head[2] * sizeof(struct st_sample);
	out->iv = at;
	out->niv = head[3];
	return 0;
}

void st_rank_result_message(const struct st_rank_result *rr, char *buf, size_t n)
{
	buf[0] = '\0';
	if (rr->error.err)
		snprintf(buf, n, "%s", rr->message);
	if (rr->flags & ST_TF_SERVER_RESTART) {
		size_t l = strlen(buf);
		snprintf(buf + l, n - l,
			 "%sthe NFS server restarted during the phase: the figure includes the outage",
			 l ? "; " : "");
	}
	if (rr->bad_blocks) {
		size_t l = strlen(buf);
		snprintf(buf + l, n - l,
			 "%s%llu block%s read did not verify (--verify), the first at offset %llu of "
			 "thread %d's file",
			 l ? "; " : "", (unsigned long long)rr->bad_blocks, rr->bad_blocks == 1 ? "" : "s",
			 (unsigned long long)rr->first_bad_offset, (int)rr->first_bad_thread);
	}
}
