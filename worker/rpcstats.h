/*
 * rpcstats.h - what went over the wire: the kernel NFS client's RPC
 * counts of one mount, read from /proc/self/mountstats as nfsiostat reads
 * them, and their change over a phase.
 *
 * Pure part (text in, values out; no state): the block of one mount in
 * mountstats text, and the delta of two readings into the st_rpc_result
 * that crosses MPI (wire.h). Adapter: the reading for the mount that holds
 * a directory. Every function is safe from any thread.
 *
 * What mountstats does not say: the stable_how of each WRITE (its WRITE
 * line counts them all alike). The delta infers it from the COMMITs of the
 * same phase: a phase that sent a COMMIT wrote UNSTABLE, one that sent none
 * wrote stably (FILE_SYNC, or DATA_SYNC: mountstats cannot tell). That is
 * exact when a phase's writes are all alike - O_DIRECT with one block size
 * (Linux sends FILE_SYNC when one write fits one WRITE RPC, else UNSTABLE
 * and a COMMIT), buffered writes of a sync mount (FILE_SYNC) or of an async
 * one (UNSTABLE, COMMIT at close) - and an estimate otherwise; the basis is
 * stored as "inferred".
 */
#ifndef ST_RPCSTATS_H
#define ST_RPCSTATS_H

#include "../common/wire.h"

#include <stddef.h>
#include <stdint.h>

#define ST_RPC_SNAP_OPS 96 /* operations of one mount (NFSv4.2 lists about 70) */
#define ST_RPC_FIELDS 9	   /* of a per-op line (statvers 1.1, Linux 5.x and later) */

/* One reading of one mount's RPC statistics. */
struct st_rpc_snap {
	int nfs;	      /* 1: an NFS mount with RPC statistics was found */
	uint64_t age;	      /* seconds since it was mounted ("age:") */
	uint32_t xprts;	      /* transports ("xprt:" lines; nconnect) */
	uint64_t connects, sends, recvs, bad_xids, backlog_u; /* summed over them */
	int nops;
	struct {
		char name[24];
		/* ops, transmissions, major timeouts, bytes sent, bytes received,
		 * queue ms, RTT ms, execute ms, errors (absent before 5.x: 0) */
		uint64_t v[ST_RPC_FIELDS];
	} op[ST_RPC_SNAP_OPS];
};

/*
 * The statistics of the NFS mount on mount_point (as mountstats shows it:
 * unescaped; trailing slashes ignored) in mountstats text. Stacked mounts:
 * the last NFS one wins (the top). 0; -ENOENT when no NFS mount is on that
 * point; -ENODATA when it has no RPC statistics.
 */
int st_rpc_parse(const char *text, const char *mount_point, struct st_rpc_snap *out);

/*
 * What happened between two readings of one mount, into out (rank and
 * phase left to the caller; source mountstats): for each operation the
 * change of every counter - READ, WRITE and COMMIT always, the others when
 * they were used, the busiest first, at most ST_RPC_OPS - with the WRITEs'
 * stable_how inferred from the COMMITs (see above), and the transports'
 * change. A counter that went back (the mount was made again in between)
 * counts from zero, and out->note says so.
 */
void st_rpc_delta(const struct st_rpc_snap *before, const struct st_rpc_snap *after,
		  struct st_rpc_result *out);

/*
 * Read the statistics of the NFS mount on mount_point (st_mount_holding
 * finds the mount point of a directory once; this reads /proc only, so it
 * never waits for a server that does not answer). 0, or -errno with one
 * line in msg.
 */
int st_rpc_read(const char *mount_point, struct st_rpc_snap *out, char *msg, size_t n);

#endif
