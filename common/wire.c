/*
 * wire.c - names of the enums that cross MPI, and the wire stamp (see wire.h).
 */
#include "wire.h"

#include "options.h"

const char *const st_op_names[ST_OP_COUNT] = {
	[ST_OP_NONE] = "none",	     [ST_OP_PREPARE] = "prepare", [ST_OP_MKDIR] = "mkdir",
	[ST_OP_OPEN] = "open",	     [ST_OP_WRITE] = "write",	  [ST_OP_READ] = "read",
	[ST_OP_FSYNC] = "fsync",     [ST_OP_CLOSE] = "close",	  [ST_OP_UNLINK] = "unlink",
	[ST_OP_ALLOC] = "alloc",     [ST_OP_PIN] = "pin",	  [ST_OP_DEADLINE] = "deadline",
	[ST_OP_SHORT] = "short",
};

const char *const st_role_names[] = { "client", "server", "idle" };
const char *const st_rpc_source_names[] = { "", "mountstats", "libnfs" };
const char *const st_rpc_basis_names[] = { "", "measured", "inferred" };

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
		sizeof(struct st_target_check_msg), sizeof(struct st_rpc_result),
	};
	uint32_t h = 2166136261u; /* FNV-1a over the sizes */
	for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		h ^= (uint32_t)sizes[i];
		h *= 16777619u;
	}
	return (uint64_t)ST_WIRE_VERSION << 32 | h;
}
