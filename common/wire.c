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
