/*
 * wire.h - the fixed-width, pointer-free structs that cross MPI: every one
 * (with st_config and st_combo, in options.h). They travel as MPI_BYTE
 * arrays of sizeof(struct): never as hand-counted MPI struct types.
 *
 * All ranks run the same binary in practice, but a mixed install must fail
 * loudly, not misread bytes. So before anything else crosses, rank 0
 * gathers every rank's st_wire_stamp() - ST_WIRE_VERSION and the size of
 * each struct below - and ends the job naming a rank whose stamp differs.
 * Bump ST_WIRE_VERSION with any change to these structs' meaning (a change
 * of size the stamp sees by itself).
 *
 * On top of that, the structs that carry results or a combination start
 * with a version, checked where they arrive: st_host_info, st_combo,
 * st_prepare_status, st_rank_result, st_thread_result (rank 0 checks what
 * it gathers, every rank the combination it is sent). The others need no
 * version of their own: st_config (broadcast once, at the start),
 * st_effective (inside st_prepare_status), st_hist (inside the results),
 * st_sample and the small messages at the end of this file cross only after
 * the stamp matched, between ranks of one job, and carry no figure a stale
 * layout could turn into a plausible wrong one unseen by the stamp.
 */
#ifndef ST_WIRE_H
#define ST_WIRE_H

#include "hist.h"
#include "options.h"

#include <stddef.h>
#include <stdint.h>

#ifndef ST_WIRE_VERSION /* make wire-other builds another one, for its test */
#define ST_WIRE_VERSION 4
#endif

/* Text that one struct below hands to another, as its field's size in both. */
#define ST_ADDED_MAX 32		/* st_effective.added, st_mount_msg.added */
#define ST_CACHE_DROP_MAX 24	/* st_rank_result.cache_drop, st_cache_drop_msg.method */
#define ST_CACHE_NOTE_MAX 200	/* st_rank_result.cache_drop_note, st_cache_drop_msg.msg */

enum st_op {
	ST_OP_NONE,
	ST_OP_PREPARE,
	ST_OP_MKDIR,
	ST_OP_OPEN,
	ST_OP_WRITE,
	ST_OP_READ,
	ST_OP_FSYNC,
	ST_OP_CLOSE,
	ST_OP_UNLINK,
	ST_OP_ALLOC,
	ST_OP_PIN,
	ST_OP_DEADLINE,
	ST_OP_SHORT,
	ST_OP_CREATE, /* metadata phases (issue 13) */
	ST_OP_STAT,
	ST_OP_REMOVE,
	ST_OP_RMDIR,
	ST_OP_READDIR, /* the readdir phase: a listing failed, or held other than the files made */
	ST_OP_COUNT
};
extern const char *const st_op_names[ST_OP_COUNT];

enum st_role { ST_ROLE_CLIENT, ST_ROLE_SERVER, ST_ROLE_IDLE };
extern const char *const st_role_names[];

/* The first error a thread or rank saw, and how many it saw. */
struct st_error {
	int32_t err;	 /* positive errno; 0 = none */
	uint32_t op;	 /* enum st_op */
	int32_t phase;	 /* enum st_phase, -1 = preparation */
	uint32_t pad;
	uint64_t offset; /* file offset of the failed call, bytes */
	uint64_t count;	 /* errors seen in total */
};

#define ST_TF_DIRECT_FALLBACK 0x1u /* O_DIRECT refused; ran buffered */
#define ST_TF_DEADLINE 0x2u	   /* stopped by the phase deadline */
#define ST_TF_STONEWALL 0x4u	   /* stopped early: another client had finished (--stonewall) */
#define ST_TF_SERVER_RESTART 0x8u  /* the NFS server restarted during the phase */

struct st_thread_result {
	uint32_t version; /* ST_WIRE_VERSION */
	uint32_t rank;	  /* MPI rank */
	uint32_t thread;  /* thread index in the rank */
	uint32_t phase;	  /* enum st_phase */
	uint64_t bytes;	  /* bytes transferred */
	uint64_t ops;	  /* read/write calls completed */
	int64_t start_ns; /* first operation started, common timeline (ns) */
	int64_t end_ns;	  /* last operation ended, common timeline (ns) */
	int32_t last_cpu; /* PU the thread last ran on (-1 unknown) */
	uint32_t flags;	  /* ST_TF_* */
	char cpuset[64];  /* PUs the thread was bound to, hwloc list ("0-1"); "" none */
	uint64_t bad_blocks;	   /* --verify: blocks read that did not match */
	uint64_t first_bad_offset; /* --verify: offset of the first such block */
	uint64_t read_bytes;	   /* of bytes, read (all in a read phase, some in a mixed one) */
	uint64_t read_ops;	   /* of ops, reads */
	struct st_error error;
	char io_mode[64];    /* posix: how requests were issued ("io_uring", "libaio (why)",
				"sync (why)"); "" for engines that say nothing */
	int64_t cpu_user_us; /* this I/O thread's own CPU in the phase (RUSAGE_THREAD), us */
	int64_t cpu_sys_us;  /* (the kernel's io-wq workers and the rank's other threads not in it) */
	struct st_hist hist; /* latency of each read/write call (metadata: of each operation):
				issue to completion, ns */
};

struct st_rank_result {
	uint32_t version;   /* ST_WIRE_VERSION */
	uint32_t rank;	    /* MPI rank */
	uint32_t phase;	    /* enum st_phase */
	uint32_t nthreads;  /* threads that ran */
	uint32_t role;	    /* enum st_role */
	uint32_t flags;	    /* OR of its threads' ST_TF_* */
	uint64_t bytes;	    /* sum over threads */
	uint64_t ops;	    /* sum over threads */
	int64_t release_ns; /* barrier release, common timeline (ns) */
	int64_t start_ns;   /* earliest thread start, common timeline (ns) */
	int64_t end_ns;	    /* latest thread end, common timeline (ns) */
	int64_t cpu_user_us; /* process user CPU during the phase, us */
	int64_t cpu_sys_us;  /* process system CPU during the phase, us */
	int64_t io_cpu_user_us; /* of it, the I/O threads' own: the sum of their cpu_user_us */
	int64_t io_cpu_sys_us;	/* and cpu_sys_us */
	uint64_t bad_blocks;	   /* --verify: sum over threads */
	uint64_t first_bad_offset; /* --verify: of the first thread with one */
	int32_t first_bad_thread;  /* that thread, -1 none */
	uint32_t pad;
	char cache_drop[ST_CACHE_DROP_MAX]; /* --mount: how the cache was dropped before this phase */
	uint64_t read_bytes;	   /* of bytes, read: sum over threads */
	uint64_t read_ops;	   /* of ops, reads */
	char cache_drop_note[ST_CACHE_NOTE_MAX]; /* why that way, and why not the other */
	struct st_error error; /* first error of any thread */
	char message[160];     /* human text of that error */
	struct st_hist hist;   /* merged thread histograms */
	struct st_hist hist_read;  /* of them, the reads (mixed phases: each direction apart) */
	struct st_hist hist_write; /* of them, the writes */
};

/* A rank's bytes and calls in one interval of a phase (common/interval.h),
 * gathered to rank 0 with the phase results. */
struct st_interval {
	int64_t t_ns;	     /* start, common timeline (ns) */
	int64_t end_ns;	     /* end: t_ns + width_ns, or the rank's last call for the last one */
	int64_t width_ns;    /* of the rank's intervals */
	int32_t rank;	     /* MPI rank */
	uint32_t idx;	     /* 0-based from the start of the phase's figures */
	uint64_t bytes;	     /* moved by the calls that ended in it */
	uint64_t ops;	     /* those calls */
	uint64_t read_bytes; /* of them, read */
	uint64_t read_ops;
};

/* Words of a bit set with one bit per option (st_effective.known): it grows
 * with the table, so no option id can shift past it. */
#define ST_OPT_WORDS ((ST_OPT_COUNT + 63) / 64)
_Static_assert(ST_OPT_WORDS * 64 >= ST_OPT_COUNT, "a bit for every option");

/* What a rank actually got for the NFS options of a combination (from the
 * server, the engine or the kernel's mount table). */
struct st_effective {
	uint64_t known[ST_OPT_WORDS]; /* bit i: v[i] holds option i's value (st_effective_known) */
	int64_t v[ST_OPT_COUNT];   /* same encoding as st_combo.v */
	int64_t max[ST_OPT_COUNT]; /* the server's or kernel's maximum, 0 unknown */
	char options[512];	   /* options in force as the system shows them */
	char added[ST_ADDED_MAX];  /* options the mount driver added unasked ("nolock"), "" none */
	char note[512];		   /* why effective differs from asked: "option: why; ..." */
	char server_export[256];   /* a server rank: the export's options as exportfs -v shows
				      them after --server-export ("" not applied) */
};

/* Option id's effective value is v (and known from now on). */
void st_effective_set(struct st_effective *e, int id, int64_t v);

/* Is option id's effective value known? */
int st_effective_known(const struct st_effective *e, int id);

/* Is any option's? */
int st_effective_any(const struct st_effective *e);

/* ---- what went over the wire: RPC counts of one rank and phase ---- */

enum st_rpc_source { ST_RPC_NONE, ST_RPC_MOUNTSTATS, ST_RPC_LIBNFS };
extern const char *const st_rpc_source_names[]; /* "", "mountstats", "libnfs" */

/* How the stable_how counts of a WRITE were found. */
enum st_rpc_basis { ST_RPC_BASIS_NONE, ST_RPC_BASIS_MEASURED, ST_RPC_BASIS_INFERRED };
extern const char *const st_rpc_basis_names[]; /* "", "measured", "inferred" */

#define ST_RPC_OPS 24	  /* operations per phase kept (the busiest, by calls) */
#define ST_RPC_HISTS 3	  /* libnfs: the time of each READ, WRITE, COMMIT */

/* One NFS operation over a phase (mountstats: the delta of its per-op line). */
struct st_rpc_op {
	char name[24];	     /* READ, WRITE, COMMIT, GETATTR, ... as mountstats names them */
	uint64_t ops;	     /* calls completed */
	uint64_t trans;	     /* transmissions: ops + retransmissions */
	uint64_t timeouts;   /* major timeouts */
	uint64_t bytes_sent; /* bytes */
	uint64_t bytes_recv; /* bytes */
	uint64_t queue_us;   /* summed over the calls, us */
	uint64_t rtt_us;     /* summed, us */
	uint64_t exe_us;     /* summed, us */
	uint64_t errors;     /* calls that ended in an error */
	uint64_t file_sync, data_sync, unstable; /* WRITE: calls by stable_how */
};

struct st_rpc_result {
	uint32_t version; /* ST_WIRE_VERSION */
	uint32_t rank;	  /* MPI rank */
	uint32_t phase;	  /* enum st_phase */
	uint32_t source;  /* enum st_rpc_source; NONE: nothing counted by this rank */
	uint32_t nops;	  /* entries of op[] in use */
	uint32_t basis;	  /* enum st_rpc_basis of the WRITE entry's stable_how counts */
	uint32_t xprts;	  /* transports (connections) */
	uint32_t pad;
	uint64_t connects, sends, recvs, bad_xids, backlog_u; /* transports, summed */
	char note[120];	  /* e.g. "counters reset during the phase"; "" none */
	struct st_rpc_op op[ST_RPC_OPS];
	struct st_hist hist[ST_RPC_HISTS]; /* libnfs: READ, WRITE, COMMIT call times */
};

/* Per-rank answer to "did preparation of this combination work?". */
struct st_prepare_status {
	uint32_t version; /* ST_WIRE_VERSION */
	int32_t err;	  /* 0 ok, positive errno otherwise */
	uint32_t op;	  /* enum st_op that failed */
	uint32_t flags;	  /* ST_TF_* learnt while preparing */
	char message[240];
	struct st_effective eff;
};

/* What a rank tells rank 0 about its host, once per run. */
struct st_host_info {
	uint32_t version;     /* ST_WIRE_VERSION */
	uint32_t rank;	      /* MPI rank */
	int32_t local_rank;   /* index among the ranks on the same host */
	int32_t local_size;   /* ranks on the same host */
	int32_t cores;	      /* hwloc cores */
	int32_t pus;	      /* hwloc processing units */
	int32_t numa_nodes;   /* hwloc NUMA nodes */
	int32_t pid;	      /* process id */
	int64_t mem_bytes;    /* physical memory (sysconf), bytes */
	char hostname[128];
	char addresses[512];  /* non-loopback addresses, comma separated */
	char kernel[192];     /* uname -r and -v */
	char cpu_model[128];
	/* tunables that change NFS throughput; -1 / "" where absent */
	int64_t rmem_max;     /* net.core.rmem_max, bytes */
	int64_t wmem_max;     /* net.core.wmem_max, bytes */
	char tcp_rmem[48];    /* net.ipv4.tcp_rmem: min default max */
	char tcp_wmem[48];    /* net.ipv4.tcp_wmem */
	int32_t sunrpc_slots; /* sunrpc.tcp_slot_table_entries */
	int32_t mtu;	      /* of the interface that reaches the server, bytes */
	int32_t speed_mbps;   /* of that interface (-1 unknown) */
	char iface[24];	      /* that interface */
};

/* One value a server rank sampled (worker/sampler.h): a rate over the
 * interval ending at t_ns. */
struct st_sample {
	int64_t t_ns;	  /* end of the interval, common timeline (ns) */
	int32_t rank;	  /* MPI rank that sampled (set by the job) */
	int32_t pad;
	char metric[24];  /* cpu_user_pct, cpu_sys_pct, cpu_iowait_pct, net_rx_mbps,
			     net_tx_mbps, disk_read_mbps, disk_write_mbps,
			     disk_read_iops, disk_write_iops, nfsd_cpu_pct,
			     nfsd_calls, nfsd_pool (counts, not rates),
			     disk_busy_pct, disk_queue, export_disk,
			     nfsd_threads */
	char device[24];  /* interface or disk; "" for host-wide metrics */
	double value;	  /* percent of all CPUs, or 10^6 bytes/s, or ops/s */
};

/* ---- the job's small messages (coordinator/job/) ---- */

/* A rank's bytes so far in a live phase, to rank 0 (progress.c). */
struct st_progress_msg {
	uint64_t bytes; /* moved by its threads so far */
	int32_t done;	/* its threads are done */
	int32_t pad;
};

/* --mount: how local rank 0's mount went, to the ranks of its host (combo.c). */
struct st_mount_msg {
	int32_t rc;	   /* 0 or -errno */
	char msg[240];	   /* why, when rc; when an option was added: why it was */
	char added[ST_ADDED_MAX]; /* options the driver added unasked ("nolock"), "" none */
};

/* --mount: how local rank 0 dropped the host's cache, to the ranks of its host. */
struct st_cache_drop_msg {
	char method[ST_CACHE_DROP_MAX]; /* "remount", "drop_caches", "failed" */
	char msg[ST_CACHE_NOTE_MAX];	/* why that way, or why it failed */
};

/* --mount: can this client host mount on --target? To rank 0, before the run (job.c). */
struct st_target_check_msg {
	int32_t rc;	   /* 0 or -errno */
	char msg[240];	   /* why not, when rc */
};

/* What each rank tells rank 0 after one network baseline step (baselines.c). */
struct st_netbench_msg {
	int32_t rc;		   /* 0 or -errno */
	int32_t receiver;	   /* this rank counted received bytes */
	uint64_t bytes;		   /* moved */
	int64_t first_ns, last_ns; /* first and last byte, common timeline (ns) */
};

/* A server rank's disk baseline, to every rank (baselines.c). */
struct st_diskbench_msg {
	int32_t rc;	/* 0 or -errno */
	int32_t direct; /* O_DIRECT was granted */
	double w, r;	/* write (with fsync) and read, 10^6 bytes/s */
	char msg[200];	/* why, when rc */
};

/* ---- a phase's results on their way to rank 0 (issue 14) ----
 *
 * A rank result and its threads' results travel packed: each struct as its
 * bytes up to its histogram's buckets (the histogram is its last member),
 * then the histogram's non-empty buckets only, as (index u16, count u64)
 * pairs after their number (u16). A null-engine phase fills 1 bucket of 336,
 * a real one tens: a rank's phase costs a few hundred bytes, not 3 KB per
 * struct, so what rank 0 gathers grows with what the phase produced. The
 * layout is this binary's (the wire stamp guards it); no field is counted
 * by hand. Layout: u32 threads, then the rank result, then each thread's. */

/* Bytes st_results_pack may write for nt thread results, at most. */
size_t st_results_bound(int nt);

/* Pack rr and tr[0..nt) into buf (st_results_bound(nt) bytes): the bytes written. */
size_t st_results_pack(const struct st_rank_result *rr, const struct st_thread_result *tr, int nt,
		       unsigned char *buf);

/* The thread count of a pack (-1: too short to hold one). */
int st_results_count(const unsigned char *buf, size_t len);

/* Unpack a pack of len bytes into rr and tr (room for st_results_count of
 * them): 0, or -1 when it is not a well-formed pack (short, a bucket index
 * out of range, bytes left over). */
int st_results_unpack(const unsigned char *buf, size_t len, struct st_rank_result *rr,
		      struct st_thread_result *tr);

/* A rank's whole phase as one pack, so that a phase ends in one gather
 * (its sizes, then the packs) rather than one per kind of record: every
 * collective on the path from one phase to the next waits for the last
 * rank to be scheduled. Layout: u32 each of the results pack's bytes, the
 * RPC counts' bytes (0: none counted, most ranks), the samples and the
 * intervals; then the results pack (above), the RPC counts, the samples and
 * the intervals as they are in memory. */
struct st_phase_pack {
	const struct st_rank_result *rr;
	const struct st_thread_result *tr;
	int nt;
	const struct st_rpc_result *rpc; /* NULL: this rank counted none */
	const struct st_sample *samples;
	size_t nsamples;
	const struct st_interval *iv;
	size_t niv;
};

/* Bytes st_phase_pack_put may write for p, at most. */
size_t st_phase_pack_bound(const struct st_phase_pack *p);

/* Pack p into buf (st_phase_pack_bound(p) bytes): the bytes written. */
size_t st_phase_pack_put(const struct st_phase_pack *p, unsigned char *buf);

/* Where the parts of a pack of len bytes are: 0, or -1 when the sizes do
 * not add up to len or the RPC part is neither empty nor one struct. The
 * parts are not aligned: copy them out (memcpy), never cast in place. */
struct st_phase_parts {
	const unsigned char *results, *rpc, *samples, *iv;
	size_t results_len, nsamples, niv; /* rpc: NULL, or sizeof(struct st_rpc_result) */
};
int st_phase_pack_parts(const unsigned char *buf, size_t len, struct st_phase_parts *out);

/* ST_WIRE_VERSION in the high 32 bits, a hash of the sizes of every struct
 * that crosses MPI in the low ones: equal on two ranks when they can
 * exchange those structs. */
uint64_t st_wire_stamp(void);

/* What went wrong in a rank's phase, as one line: its first error's text,
 * a restart of the NFS server during the phase, and the blocks --verify
 * found wrong ("2 blocks read did not verify, the first at offset 0 of
 * thread 1's file"); "" when nothing did. */
void st_rank_result_message(const struct st_rank_result *rr, char *buf, size_t n);

#endif
