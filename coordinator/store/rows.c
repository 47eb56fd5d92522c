/*
 * rows.c - the column table of every kind of row the store writes (see
 * rows.h, columns.h), each in the order of its table in sql/schema.sql.
 *
 * A column's NULLs are the store's: a figure nobody measured is NULL, not
 * 0 (an idle rank's start and end, a phase without a timed call's
 * latency), and a rank without an error has no error columns but its
 * errno (0) and count. The order of the run's columns is also the order
 * run.config_hash serializes them in (hash.c): it never changes.
 */
#include "rows.h"

#include "../../common/options.h"
#include "../../common/util.h"

#include <stddef.h>

#define KEY(f)	      .src = ST_KEY, ST_FIELD(struct st_row_key, f)
#define COLUMNS(a)    .cols = a, .ncols = (int)ST_ARRAY_LEN(a)
#define ROLE_NAMES    .as = ST_AS_NAME, .names = st_role_names, .nnames = ST_ROLE_IDLE + 1
#define OP_NAMES      .as = ST_AS_NAME, .names = st_op_names, .nnames = ST_OP_COUNT
#define NULL_IF_EMPTY .null_if = ST_NULL_EMPTY

/* ---- run, host, baseline: when the run begins, and before its sweep ---- */

#define RUN(f) ST_FIELD(struct st_run_row, f)
static const struct st_column run_columns[] = {
	{ "run_id", "TEXT", KEY(run_id) },
	{ "started_at", "TEXT", RUN(started_at) },
	{ "status", "TEXT", RUN(status) },
	{ "label", "TEXT", RUN(label) },
	{ "command", "TEXT", RUN(command) },
	{ "plan", "TEXT", RUN(plan) },
	{ "engine", "TEXT", RUN(engine) },
	{ "target", "TEXT", RUN(target) },
	{ "phases", "TEXT", RUN(phases) },
	{ "iterations", "INTEGER", RUN(iterations) },
	{ "nranks", "INTEGER", RUN(nranks) },
	{ "nhosts", "INTEGER", RUN(nhosts) },
	{ "combos_planned", "INTEGER", RUN(combos_planned) },
	{ "stcluster_version", "TEXT", RUN(version) },
};
/* finished_at and the rest: the run's end, an abort, its hashes */
const struct st_row_kind st_rows_run = {
	"run", "INSERT", COLUMNS(run_columns),
	.later = "finished_at config_hash baseline_hash result_hash abort_rank abort_reason "
		 "cleanup",
};

#define HKEY(f) .src = ST_KEY, ST_FIELD(struct st_host_key, f)
#define HOST(f) ST_FIELD(struct st_host_info, f)
static const struct st_column host_columns[] = {
	{ "run_id", "TEXT", HKEY(run_id) },
	{ "rank", "INTEGER", HKEY(rank) },
	{ "hostname", "TEXT", HOST(hostname) },
	{ "addresses", "TEXT", HOST(addresses) },
	{ "role", "TEXT", HKEY(role), ROLE_NAMES },
	{ "local_rank", "INTEGER", HOST(local_rank) },
	{ "local_size", "INTEGER", HOST(local_size) },
	{ "cores", "INTEGER", HOST(cores) },
	{ "pus", "INTEGER", HOST(pus) },
	{ "numa_nodes", "INTEGER", HOST(numa_nodes) },
	{ "mem_bytes", "INTEGER", HOST(mem_bytes) },
	{ "kernel", "TEXT", HOST(kernel) },
	{ "cpu_model", "TEXT", HOST(cpu_model) },
	{ "pid", "INTEGER", HOST(pid) },
	{ "clock_offset_ns", "INTEGER", HKEY(clock_offset_ns) },
	{ "clock_rtt_ns", "INTEGER", HKEY(clock_rtt_ns) },
	{ "read_partner", "INTEGER", HKEY(read_partner) },
	/* the tunables: -1, "" or 0 where the host has none or did not say */
	{ "rmem_max", "INTEGER", HOST(rmem_max), .null_if = ST_NULL_NEGATIVE },
	{ "wmem_max", "INTEGER", HOST(wmem_max), .null_if = ST_NULL_NEGATIVE },
	{ "tcp_rmem", "TEXT", HOST(tcp_rmem), NULL_IF_EMPTY },
	{ "tcp_wmem", "TEXT", HOST(tcp_wmem), NULL_IF_EMPTY },
	{ "sunrpc_slots", "INTEGER", HOST(sunrpc_slots), .null_if = ST_NULL_NEGATIVE },
	{ "iface", "TEXT", HOST(iface), NULL_IF_EMPTY },
	{ "mtu", "INTEGER", HOST(mtu), .null_if = ST_NULL_NOT_POSITIVE },
	{ "speed_mbps", "INTEGER", HOST(speed_mbps), .null_if = ST_NULL_NOT_POSITIVE },
};
/* a resumed run's hosts are kept as its first part stored them */
const struct st_row_kind st_rows_host = { "host", "INSERT OR IGNORE", COLUMNS(host_columns) };

static int baseline_timed(const void *row)
{
	return ((const struct st_baseline_row *)row)->seconds > 0;
}

#define BASE(f) ST_FIELD(struct st_baseline_row, f)
static const struct st_column baseline_columns[] = {
	{ "run_id", "TEXT", KEY(run_id) },
	{ "kind", "TEXT", BASE(kind) },
	{ "direction", "TEXT", BASE(direction) },
	{ "server_rank", "INTEGER", BASE(server_rank) },
	{ "client_ranks", "TEXT", BASE(client_ranks) },
	{ "bytes", "INTEGER", BASE(bytes) },
	{ "seconds", "REAL", BASE(seconds), .null_if = ST_NULL_NOT_POSITIVE },
	{ "mbps", "REAL", BASE(mbps), .when = baseline_timed },
	{ "note", "TEXT", BASE(note) },
	{ "streams", "INTEGER", BASE(streams), .null_if = ST_NULL_NOT_POSITIVE },
};
const struct st_row_kind st_rows_baseline = { "baseline", "INSERT", COLUMNS(baseline_columns) };

/* ---- a combination: its row, the effective options, the failures ---- */

#define COMBO(f) ST_FIELD(struct st_combo_row, f)
static const struct st_column combo_columns[] = {
	{ "run_id", "TEXT", KEY(run_id) },
	{ "seq", "INTEGER", COMBO(seq) },
	{ "matrix_index", "INTEGER", COMBO(matrix_index) },
	{ "iteration", "INTEGER", COMBO(iteration) },
	{ "status", "TEXT", COMBO(status) },
	{ "message", "TEXT", COMBO(message) },
	{ "started_at", "TEXT", COMBO(started_at) },
	{ "finished_at", "TEXT", COMBO(finished_at) },
	{ "direct_fallback", "INTEGER", COMBO(direct_fallback) },
	{ "mount_options", "TEXT", COMBO(mount_options) },
	{ "stage", "INTEGER", COMBO(stage), .null_if = ST_NULL_NEGATIVE },
};
/* combo_id: SQLite's rowid. Then a column per sweep option (and <name>_eff
 * for an NFS option), from the options table (schema.c adds them) */
const struct st_row_kind st_rows_combo = { "combo", "INSERT", COLUMNS(combo_columns),
					   .later = "combo_id stored_ns row_hash" };

#define EFF(f) ST_FIELD(struct st_eff_row, f)
static const struct st_column eff_columns[] = {
	{ "combo_id", "INTEGER", KEY(combo_id) },
	{ "rank", "INTEGER", KEY(rank) },
	{ "option", "TEXT", EFF(option) },
	{ "requested", "TEXT", EFF(requested) },
	{ "effective", "TEXT", EFF(effective) },
	{ "maximum", "INTEGER", EFF(maximum), .null_if = ST_NULL_ZERO },
	{ "note", "TEXT", EFF(note) },
};
const struct st_row_kind st_rows_eff = { "effective_option", "INSERT", COLUMNS(eff_columns) };

#define PREP(f) ST_FIELD(struct st_prepare_status, f)
static const struct st_column failure_columns[] = {
	{ "combo_id", "INTEGER", KEY(combo_id) },
	{ "rank", "INTEGER", KEY(rank) },
	{ "errno", "INTEGER", PREP(err) },
	{ "errno_name", "TEXT", PREP(err), .as = ST_AS_ERRNO_NAME },
	{ "op", "TEXT", PREP(op), OP_NAMES },
	{ "message", "TEXT", PREP(message) },
};
const struct st_row_kind st_rows_failure = { "combo_failure", "INSERT", COLUMNS(failure_columns) };

/* ---- a phase: its row, every rank's and thread's, intervals, samples, RPCs ---- */

static int phase_ran(const void *row)
{
	return ((const struct st_phase_row *)row)->ran;
}

static int phase_mixed(const void *row)
{
	const struct st_phase_row *p = row;
	return p->read && p->write && p->read->count && p->write->count;
}

#define PHASE(f) ST_FIELD(struct st_phase_row, f)
static const struct st_column phase_columns[] = {
	{ "combo_id", "INTEGER", KEY(combo_id) },
	{ "phase", "TEXT", KEY(phase) },
	{ "phase_order", "INTEGER", PHASE(order) },
	{ "status", "TEXT", PHASE(status) },
	{ "message", "TEXT", PHASE(message) },
	{ "release_min_ns", "INTEGER", PHASE(release_min_ns), .when = phase_ran },
	{ "release_max_ns", "INTEGER", PHASE(release_max_ns), .when = phase_ran },
	{ "skew_ns", "INTEGER", PHASE(skew_ns), .when = phase_ran },
	{ "gathered_ns", "INTEGER", PHASE(gathered_ns), .when = phase_ran },
	{ "cache_drop", "TEXT", PHASE(cache_drop) },
	{ "lat_count", "INTEGER", PHASE(lat), .as = ST_AS_COUNT },
	{ "lat_mean_ns", "INTEGER", PHASE(lat), .as = ST_AS_MEAN },
	{ "lat_p50_ns", "INTEGER", PHASE(lat), .as = ST_AS_QUANTILE, .q = 0.5 },
	{ "lat_p90_ns", "INTEGER", PHASE(lat), .as = ST_AS_QUANTILE, .q = 0.9 },
	{ "lat_p99_ns", "INTEGER", PHASE(lat), .as = ST_AS_QUANTILE, .q = 0.99 },
	{ "lat_max_ns", "INTEGER", PHASE(lat), .as = ST_AS_MAX },
	/* a mixed phase's directions apart; NULL for a phase of one direction */
	{ "read_lat_p50_ns", "INTEGER", PHASE(read), .as = ST_AS_QUANTILE, .q = 0.5,
	  .when = phase_mixed },
	{ "read_lat_p99_ns", "INTEGER", PHASE(read), .as = ST_AS_QUANTILE, .q = 0.99,
	  .when = phase_mixed },
	{ "write_lat_p50_ns", "INTEGER", PHASE(write), .as = ST_AS_QUANTILE, .q = 0.5,
	  .when = phase_mixed },
	{ "write_lat_p99_ns", "INTEGER", PHASE(write), .as = ST_AS_QUANTILE, .q = 0.99,
	  .when = phase_mixed },
	{ "cache_drop_note", "TEXT", PHASE(cache_drop_note), NULL_IF_EMPTY },
	/* the phase's own values; NULL: the combination's (store/schema.c adds
	 * the columns to a store without them) */
	{ "phase_block", "INTEGER", PHASE(own_block), .null_if = ST_NULL_NEGATIVE },
	{ "phase_direct", "TEXT", PHASE(own_direct) },
	{ "phase_fsync", "TEXT", PHASE(own_fsync) },
	{ "phase_rwmix", "INTEGER", PHASE(own_rwmix), .null_if = ST_NULL_NEGATIVE },
	{ "phase_runtime", "INTEGER", PHASE(own_runtime), .null_if = ST_NULL_NEGATIVE },
	{ "phase_ramp", "INTEGER", PHASE(own_ramp), .null_if = ST_NULL_NEGATIVE },
};
const struct st_row_kind st_rows_phase = { "phase_run", "INSERT", COLUMNS(phase_columns) };

/* A rank's start and end: of its threads, or of a server rank's sampling;
 * an idle rank has none. */
static int rank_timed(const void *row)
{
	const struct st_rank_result *r = row;
	return r->nthreads || r->role == ST_ROLE_SERVER;
}

static int rank_ran(const void *row)
{
	return ((const struct st_rank_result *)row)->nthreads != 0;
}

static int rank_failed(const void *row)
{
	return ((const struct st_rank_result *)row)->error.err != 0;
}

static int rank_bad_blocks(const void *row)
{
	return ((const struct st_rank_result *)row)->bad_blocks != 0;
}

static int rank_mixed(const void *row)
{
	const struct st_rank_result *r = row;
	return r->hist_read.count && r->hist_write.count;
}

#define RANK(f) ST_FIELD(struct st_rank_result, f)
static const struct st_column rank_columns[] = {
	{ "combo_id", "INTEGER", KEY(combo_id) },
	{ "phase", "TEXT", KEY(phase) },
	{ "rank", "INTEGER", RANK(rank) },
	{ "role", "TEXT", RANK(role), ROLE_NAMES },
	{ "nthreads", "INTEGER", RANK(nthreads) },
	{ "bytes", "INTEGER", RANK(bytes) },
	{ "ops", "INTEGER", RANK(ops) },
	{ "release_ns", "INTEGER", RANK(release_ns) },
	{ "start_ns", "INTEGER", RANK(start_ns), .when = rank_timed },
	{ "end_ns", "INTEGER", RANK(end_ns), .when = rank_timed },
	{ "cpu_user_us", "INTEGER", RANK(cpu_user_us) },
	{ "cpu_sys_us", "INTEGER", RANK(cpu_sys_us) },
	{ "direct_fallback", "INTEGER", RANK(flags), .as = ST_AS_FLAG,
	  .mask = ST_TF_DIRECT_FALLBACK },
	{ "deadline_hit", "INTEGER", RANK(flags), .as = ST_AS_FLAG, .mask = ST_TF_DEADLINE },
	{ "errno", "INTEGER", RANK(error.err) },
	{ "errno_name", "TEXT", RANK(error.err), .as = ST_AS_ERRNO_NAME },
	{ "err_op", "TEXT", RANK(error.op), OP_NAMES, .when = rank_failed },
	{ "err_offset", "INTEGER", RANK(error.offset), .when = rank_failed },
	{ "err_count", "INTEGER", RANK(error.count) },
	{ "message", "TEXT", RANK(message), .when = rank_failed },
	{ "bad_blocks", "INTEGER", RANK(bad_blocks) },
	{ "first_bad_offset", "INTEGER", RANK(first_bad_offset), .when = rank_bad_blocks },
	{ "lat_mean_ns", "INTEGER", RANK(hist), .as = ST_AS_MEAN },
	{ "lat_p50_ns", "INTEGER", RANK(hist), .as = ST_AS_QUANTILE, .q = 0.5 },
	{ "lat_p99_ns", "INTEGER", RANK(hist), .as = ST_AS_QUANTILE, .q = 0.99 },
	{ "lat_max_ns", "INTEGER", RANK(hist), .as = ST_AS_MAX },
	{ "hist", "BLOB", RANK(hist), .as = ST_AS_SPARSE },
	{ "read_bytes", "INTEGER", RANK(read_bytes), .when = rank_ran },
	{ "read_ops", "INTEGER", RANK(read_ops), .when = rank_ran },
	{ "read_lat_p50_ns", "INTEGER", RANK(hist_read), .as = ST_AS_QUANTILE, .q = 0.5,
	  .when = rank_mixed },
	{ "read_lat_p99_ns", "INTEGER", RANK(hist_read), .as = ST_AS_QUANTILE, .q = 0.99,
	  .when = rank_mixed },
	{ "write_lat_p50_ns", "INTEGER", RANK(hist_write), .as = ST_AS_QUANTILE, .q = 0.5,
	  .when = rank_mixed },
	{ "write_lat_p99_ns", "INTEGER", RANK(hist_write), .as = ST_AS_QUANTILE, .q = 0.99,
	  .when = rank_mixed },
	{ "stonewall_hit", "INTEGER", RANK(flags), .as = ST_AS_FLAG, .mask = ST_TF_STONEWALL,
	  .when = rank_ran },
	{ "cache_drop", "TEXT", RANK(cache_drop), NULL_IF_EMPTY },
	{ "cache_drop_note", "TEXT", RANK(cache_drop_note), NULL_IF_EMPTY },
	{ "hist_enc", "INTEGER", RANK(hist), .as = ST_AS_SPARSE_ENC },
	{ "io_cpu_user_us", "INTEGER", RANK(io_cpu_user_us), .when = rank_ran },
	{ "io_cpu_sys_us", "INTEGER", RANK(io_cpu_sys_us), .when = rank_ran },
};
const struct st_row_kind st_rows_rank = { "rank_result", "INSERT", COLUMNS(rank_columns) };

static int thread_failed(const void *row)
{
	return ((const struct st_thread_result *)row)->error.err != 0;
}

#define THREAD(f) ST_FIELD(struct st_thread_result, f)
static const struct st_column thread_columns[] = {
	{ "combo_id", "INTEGER", KEY(combo_id) },
	{ "phase", "TEXT", KEY(phase) },
	{ "rank", "INTEGER", THREAD(rank) },
	{ "thread", "INTEGER", THREAD(thread) },
	{ "bytes", "INTEGER", THREAD(bytes) },
	{ "ops", "INTEGER", THREAD(ops) },
	{ "start_ns", "INTEGER", THREAD(start_ns) },
	{ "end_ns", "INTEGER", THREAD(end_ns) },
	{ "cpuset", "TEXT", THREAD(cpuset) },
	{ "last_cpu", "INTEGER", THREAD(last_cpu) },
	{ "errno", "INTEGER", THREAD(error.err) },
	{ "err_op", "TEXT", THREAD(error.op), OP_NAMES, .when = thread_failed },
	{ "err_offset", "INTEGER", THREAD(error.offset), .when = thread_failed },
	{ "lat_p50_ns", "INTEGER", THREAD(hist), .as = ST_AS_QUANTILE, .q = 0.5 },
	{ "lat_p99_ns", "INTEGER", THREAD(hist), .as = ST_AS_QUANTILE, .q = 0.99 },
	{ "lat_max_ns", "INTEGER", THREAD(hist), .as = ST_AS_MAX },
	{ "io_mode", "TEXT", THREAD(io_mode), NULL_IF_EMPTY },
	{ "read_bytes", "INTEGER", THREAD(read_bytes) },
	{ "read_ops", "INTEGER", THREAD(read_ops) },
	{ "cpu_user_us", "INTEGER", THREAD(cpu_user_us) },
	{ "cpu_sys_us", "INTEGER", THREAD(cpu_sys_us) },
};
const struct st_row_kind st_rows_thread = { "thread_result", "INSERT", COLUMNS(thread_columns) };

/* interval_pack (schema version 9): one rank's intervals of a phase
 * (store/ivpack.h); the view `interval` gives their rows */
#define IVP(f) ST_FIELD(struct st_ivpack, f)
static int ivp_tail(const void *row)
{
	return ((const struct st_ivpack *)row)->has_tail;
}
static const struct st_column interval_pack_columns[] = {
	{ "combo_id", "INTEGER", KEY(combo_id) },
	{ "phase", "TEXT", KEY(phase) },
	{ "rank", "INTEGER", IVP(rank) },
	{ "idx0", "INTEGER", IVP(idx0) },
	{ "n", "INTEGER", IVP(n) },
	{ "t0_ns", "INTEGER", IVP(t0_ns) },
	{ "width_ns", "INTEGER", IVP(width_ns) },
	{ "last_end_ns", "INTEGER", IVP(last_end_ns) },
	{ "tail_end_ns", "INTEGER", IVP(tail_end_ns), .when = ivp_tail },
	{ "ops0", "INTEGER", IVP(ops0) },
	{ "rops_k", "INTEGER", IVP(rops_k) },
	{ "rbytes_k", "INTEGER", IVP(rbytes_k) },
	{ "wbytes_k", "INTEGER", IVP(wbytes_k) },
	{ "t_r", "TEXT", IVP(text[ST_IVP_T]) },
	{ "end_r", "TEXT", IVP(text[ST_IVP_END]) },
	{ "width_r", "TEXT", IVP(text[ST_IVP_WIDTH]) },
	{ "ops_r", "TEXT", IVP(text[ST_IVP_OPS]) },
	{ "rops_r", "TEXT", IVP(text[ST_IVP_ROPS]) },
	{ "rbytes_r", "TEXT", IVP(text[ST_IVP_RBYTES]) },
	{ "wbytes_r", "TEXT", IVP(text[ST_IVP_WBYTES]) },
};
const struct st_row_kind st_rows_interval_pack = { "interval_pack", "INSERT",
						   COLUMNS(interval_pack_columns) };

#define SAMPLE(f) ST_FIELD(struct st_sample, f)
static const struct st_column sample_columns[] = {
	{ "combo_id", "INTEGER", KEY(combo_id) },
	{ "phase", "TEXT", KEY(phase) },
	{ "rank", "INTEGER", SAMPLE(rank) },
	{ "t_ns", "INTEGER", SAMPLE(t_ns) },
	{ "metric", "TEXT", SAMPLE(metric) },
	{ "device", "TEXT", SAMPLE(device) },
	{ "value", "REAL", SAMPLE(value) },
};
const struct st_row_kind st_rows_sample = { "sample", "INSERT", COLUMNS(sample_columns) };

static int rpc_is_op(const void *row)
{
	return ((const struct st_rpc_row *)row)->is_op;
}

static int rpc_is_xprt(const void *row)
{
	return !((const struct st_rpc_row *)row)->is_op;
}

static int rpc_stable(const void *row)
{
	const struct st_rpc_row *r = row;
	return r->is_op && r->basis;
}

#define RPC(f) ST_FIELD(struct st_rpc_row, f)
static const struct st_column rpc_columns[] = {
	{ "combo_id", "INTEGER", KEY(combo_id) },
	{ "phase", "TEXT", KEY(phase) },
	{ "rank", "INTEGER", KEY(rank) },
	{ "source", "TEXT", RPC(source) },
	{ "op", "TEXT", RPC(op.name) },
	/* an operation's row */
	{ "ops", "INTEGER", RPC(op.ops), .when = rpc_is_op },
	{ "trans", "INTEGER", RPC(op.trans), .when = rpc_is_op },
	{ "major_timeouts", "INTEGER", RPC(op.timeouts), .when = rpc_is_op },
	{ "bytes_sent", "INTEGER", RPC(op.bytes_sent), .when = rpc_is_op },
	{ "bytes_recv", "INTEGER", RPC(op.bytes_recv), .when = rpc_is_op },
	{ "queue_us", "INTEGER", RPC(op.queue_us), .when = rpc_is_op },
	{ "rtt_us", "INTEGER", RPC(op.rtt_us), .when = rpc_is_op },
	{ "exe_us", "INTEGER", RPC(op.exe_us), .when = rpc_is_op },
	{ "errors", "INTEGER", RPC(op.errors), .when = rpc_is_op },
	{ "file_sync", "INTEGER", RPC(op.file_sync), .when = rpc_stable },
	{ "data_sync", "INTEGER", RPC(op.data_sync), .when = rpc_stable },
	{ "unstable", "INTEGER", RPC(op.unstable), .when = rpc_stable },
	{ "stable_basis", "TEXT", RPC(basis), .when = rpc_stable },
	/* the transports' row */
	{ "xprts", "INTEGER", RPC(xprts), .when = rpc_is_xprt },
	{ "connects", "INTEGER", RPC(connects), .when = rpc_is_xprt },
	{ "sends", "INTEGER", RPC(sends), .when = rpc_is_xprt },
	{ "recvs", "INTEGER", RPC(recvs), .when = rpc_is_xprt },
	{ "bad_xids", "INTEGER", RPC(bad_xids), .when = rpc_is_xprt },
	{ "backlog_u", "INTEGER", RPC(backlog_u), .when = rpc_is_xprt },
	{ "note", "TEXT", RPC(note), NULL_IF_EMPTY, .when = rpc_is_xprt },
	{ "rtt_hist", "BLOB", RPC(rtt), .as = ST_AS_RAW },
};
const struct st_row_kind st_rows_rpc = { "rpc_stat", "INSERT", COLUMNS(rpc_columns) };

const struct st_row_kind *const st_row_kinds[] = {
	&st_rows_run, &st_rows_host, &st_rows_baseline, &st_rows_combo, &st_rows_eff,
	&st_rows_failure, &st_rows_phase, &st_rows_rank, &st_rows_thread, &st_rows_interval_pack,
	&st_rows_sample, &st_rows_rpc, NULL,
};
