/*
 * wire.c - names of the enums that cross MPI, and the wire stamp (see wire.h).
 */
#include "wire.h"

#include "options.h"

#include <string.h>

const char *const st_op_names[ST_OP_COUNT] = {
	[ST_OP_NONE] = "none",	     [ST_OP_PREPARE] = "prepare", [ST_OP_MKDIR] = "mkdir",
	[ST_OP_OPEN] = "open",	     [ST_OP_WRITE] = "write",	  [ST_OP_READ] = "read",
	[ST_OP_FSYNC] = "fsync",     [ST_OP_CLOSE] = "close",	  [ST_OP_UNLINK] = "unlink",
	[ST_OP_ALLOC] = "alloc",     [ST_OP_PIN] = "pin",	  [ST_OP_DEADLINE] = "deadline",
	[ST_OP_SHORT] = "short",
};

const char *const st_role_names[] = { "client", "server", "idle" };

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
	};
	uint32_t h = 2166136261u; /* FNV-1a over the sizes */
	for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		h ^= (uint32_t)sizes[i];
		h *= 16777619u;
	}
	return (uint64_t)ST_WIRE_VERSION << 32 | h;
}

/* The histogram is the last member of both result structs: their bytes up
 * to its buckets are the fixed part of a pack. */
_Static_assert(offsetof(struct st_rank_result, hist) + sizeof(struct st_hist) ==
		       sizeof(struct st_rank_result),
	       "st_rank_result.hist must be its last member");
_Static_assert(offsetof(struct st_thread_result, hist) + sizeof(struct st_hist) ==
		       sizeof(struct st_thread_result),
	       "st_thread_result.hist must be its last member");
_Static_assert(ST_HIST_BUCKETS < 65536, "bucket indexes are u16 in a pack");

#define RR_FIXED (offsetof(struct st_rank_result, hist) + offsetof(struct st_hist, bucket))
#define TR_FIXED (offsetof(struct st_thread_result, hist) + offsetof(struct st_hist, bucket))
#define HIST_MAX (2 + ST_HIST_BUCKETS * (2 + 8))

size_t st_results_bound(int nt)
{
	return 4 + RR_FIXED + HIST_MAX + (size_t)(nt > 0 ? nt : 0) * (TR_FIXED + HIST_MAX);
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

size_t st_results_pack(const struct st_rank_result *rr, const struct st_thread_result *tr, int nt,
		       unsigned char *buf)
{
	uint32_t n = (uint32_t)(nt > 0 ? nt : 0);
	unsigned char *p = buf;
	memcpy(p, &n, 4);
	p += 4;
	memcpy(p, rr, RR_FIXED);
	p = put_hist(p + RR_FIXED, &rr->hist);
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
	if (!(p = get_hist(p + RR_FIXED, end, &rr->hist)))
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
