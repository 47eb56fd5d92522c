-- stcluster store: tables (schema version 10, kept in PRAGMA user_version).
--
-- Raw facts only; every aggregate is a view (sql/views.sql), so a new
-- metric is a view, not a migration. Times ending in _ns are nanoseconds
-- on the run's common timeline (rank 0's CLOCK_MONOTONIC; each rank's clock
-- offset is removed before its times are stored). Times ending in _at are
-- ISO-8601 UTC wall-clock text. Bytes are bytes; MB/s in views is 10^6
-- bytes per second.
--
-- The combo table gets one column per sweep option of the options table
-- (block, size, threads, direct, ...): the store module adds any that are
-- missing when it opens the store, so a new option needs no migration.
--
-- Version 3 added run.cleanup and baseline.streams.
--
-- Hashes (version 2; `stcluster audit RUN` recomputes them): SHA-256 hex of
-- a canonical serialization of rows, written in the same transaction as
-- the rows they cover; coordinator/store/hash.c lists what each one covers. A
-- run written by an older stcluster has none (NULL). A column added by a
-- later version must default to NULL, so that the hashes of the rows
-- written before stay valid.
--
-- A new column is its line here, its migration (coordinator/store/schema.c:
-- the next entry of migrations[], and ST_SCHEMA_VERSION), the row of its
-- table in coordinator/store/rows.c that says where its value comes from,
-- and its line in sql/README.md; tests/unit/test_rows.c fails until the
-- first three agree.

CREATE TABLE run (
	run_id          TEXT PRIMARY KEY,   -- libuuid, lower-case text
	started_at      TEXT NOT NULL,
	finished_at     TEXT,
	status          TEXT NOT NULL,      -- running | complete | failed | aborted
	label           TEXT,
	command         TEXT,               -- argv as given, space separated
	plan            TEXT,               -- the full effective configuration, plan format
	engine          TEXT,
	target          TEXT,
	phases          TEXT,               -- comma list in run order
	iterations      INTEGER,
	nranks          INTEGER,
	nhosts          INTEGER,
	combos_planned  INTEGER,            -- combinations x iterations
	stcluster_version TEXT,
	config_hash     TEXT,               -- the columns above but status and finished_at; the host rows
	baseline_hash   TEXT,               -- the run's baseline rows
	result_hash     TEXT,               -- status, finished_at, abort_*, baseline_hash, (seq, row_hash) by seq
	abort_rank      INTEGER,            -- the rank that died or hung (aborted runs; NULL: none named)
	abort_reason    TEXT,               -- why the run was aborted and where (kept after --resume)
	-- version 5: what the run could not remove at its end; NULL: nothing left
	-- (no comma in the comments of the last columns: ALTER TABLE DROP COLUMN
	-- takes one inside a comment for the one before the column)
	cleanup         TEXT
);

CREATE TABLE host (
	run_id          TEXT NOT NULL REFERENCES run(run_id),
	rank            INTEGER NOT NULL,
	hostname        TEXT,
	addresses       TEXT,               -- non-loopback, comma separated
	role            TEXT,               -- client | server | idle
	local_rank      INTEGER,            -- index among ranks on the host
	local_size      INTEGER,            -- ranks on the host
	cores           INTEGER,
	pus             INTEGER,
	numa_nodes      INTEGER,
	mem_bytes       INTEGER,
	kernel          TEXT,
	cpu_model       TEXT,
	pid             INTEGER,
	clock_offset_ns INTEGER,            -- this rank's clock minus rank 0's
	clock_rtt_ns    INTEGER,            -- round trip of the sample used
	read_partner    INTEGER,            -- rank whose files this rank reads (reorder=on)
	rmem_max        INTEGER,            -- net.core.rmem_max
	wmem_max        INTEGER,            -- net.core.wmem_max
	tcp_rmem        TEXT,               -- net.ipv4.tcp_rmem
	tcp_wmem        TEXT,               -- net.ipv4.tcp_wmem
	sunrpc_slots    INTEGER,            -- sunrpc.tcp_slot_table_entries (NULL: absent)
	iface           TEXT,               -- interface of the route to the server
	mtu             INTEGER,            -- its MTU, bytes
	speed_mbps      INTEGER,            -- its speed, Mbit/s (NULL: unknown)
	PRIMARY KEY (run_id, rank)
);

-- The parts measured alone, before the sweep: network between client and
-- server ranks (TCP streams), and the server's disk under the export.
CREATE TABLE baseline (
	run_id          TEXT NOT NULL REFERENCES run(run_id),
	kind            TEXT NOT NULL,      -- net_one (one client alone) | net_all | disk
	direction       TEXT NOT NULL,      -- c2s (as writes) | s2c (as reads) | write | read
	server_rank     INTEGER NOT NULL,
	client_ranks    TEXT,               -- comma list of the client ranks that took part
	bytes           INTEGER,
	seconds         REAL,
	mbps            REAL,               -- 10^6 bytes per second, as the receiver saw it
	note            TEXT,               -- e.g. O_DIRECT refused or an error
	-- version 5: TCP streams per client host (network kinds)
	streams         INTEGER
);

CREATE TABLE combo (
	combo_id        INTEGER PRIMARY KEY,
	run_id          TEXT NOT NULL REFERENCES run(run_id),
	seq             INTEGER NOT NULL,   -- 0-based order in the run
	matrix_index    INTEGER NOT NULL,   -- same options => same index
	iteration       INTEGER NOT NULL,   -- 0-based repeat
	status          TEXT NOT NULL,      -- ok | error (a phase saw errors) | failed | skipped
	message         TEXT,
	started_at      TEXT,
	finished_at     TEXT,
	direct_fallback INTEGER NOT NULL DEFAULT 0, -- O_DIRECT refused, ran buffered
	stored_ns       INTEGER,            -- rank 0's clock just before the commit
	mount_options   TEXT,               -- options in force, as the first client saw them
	row_hash        TEXT,               -- this row and the combination's rows in every result table
	stage           INTEGER,            -- (v8) --search halving: 0-based stage that measured it; NULL: a full sweep
	UNIQUE (run_id, seq)
);

-- NFS options per rank: what was asked for and what was granted (by the
-- server, the engine or the kernel), with the maximum where one is known.
-- combo.<option>_eff holds the first client's effective value.
CREATE TABLE effective_option (
	combo_id        INTEGER NOT NULL REFERENCES combo(combo_id),
	rank            INTEGER NOT NULL,
	option          TEXT NOT NULL,
	requested       TEXT,               -- NULL: not given (the default applied)
	effective       TEXT,
	maximum         INTEGER,            -- e.g. the server's largest READ/WRITE
	note            TEXT,               -- (v6) why effective differs: the kernel's override, or an
	                                    -- option stcluster added unasked (option 'lock': nolock)
	PRIMARY KEY (combo_id, rank, option)
);

-- Why a combination failed to prepare, per rank that failed.
CREATE TABLE combo_failure (
	combo_id        INTEGER NOT NULL REFERENCES combo(combo_id),
	rank            INTEGER NOT NULL,
	errno           INTEGER,
	errno_name      TEXT,
	op              TEXT,
	message         TEXT,
	PRIMARY KEY (combo_id, rank)
);

-- One row per combination and phase: facts about the phase as a whole.
CREATE TABLE phase_run (
	combo_id        INTEGER NOT NULL REFERENCES combo(combo_id),
	phase           TEXT NOT NULL,      -- write | rewrite | read | reread | randread | randwrite
	phase_order     INTEGER NOT NULL,   -- position in the iozone order
	status          TEXT NOT NULL,      -- ok | error | skipped
	message         TEXT,               -- why skipped, or the first error
	release_min_ns  INTEGER,            -- earliest barrier release
	release_max_ns  INTEGER,            -- latest barrier release
	skew_ns         INTEGER,            -- release_max_ns - release_min_ns
	gathered_ns     INTEGER,            -- every rank's result had reached rank 0
	cache_drop      TEXT,               -- --mount: remount | drop_caches | none | ... before it
	lat_count       INTEGER,            -- calls in the merged latency histogram
	lat_mean_ns     INTEGER,
	lat_p50_ns      INTEGER,
	lat_p90_ns      INTEGER,
	lat_p99_ns      INTEGER,
	lat_max_ns      INTEGER,
	read_lat_p50_ns INTEGER,            -- mixed phases (reads and writes): each direction's
	read_lat_p99_ns INTEGER,            -- latency apart (version 4; NULL for a phase of one
	write_lat_p50_ns INTEGER,           -- direction, whose lat_* say it)
	write_lat_p99_ns INTEGER,
	cache_drop_note TEXT,               -- (v6) why that cache drop, and why not the other
	PRIMARY KEY (combo_id, phase)
);

-- Raw facts per rank and phase.
CREATE TABLE rank_result (
	combo_id        INTEGER NOT NULL REFERENCES combo(combo_id),
	phase           TEXT NOT NULL,
	rank            INTEGER NOT NULL,
	role            TEXT NOT NULL,
	nthreads        INTEGER,
	bytes           INTEGER,
	ops             INTEGER,
	release_ns      INTEGER,
	start_ns        INTEGER,
	end_ns          INTEGER,
	cpu_user_us     INTEGER,            -- process CPU during the phase
	cpu_sys_us      INTEGER,
	direct_fallback INTEGER,
	deadline_hit    INTEGER,
	errno           INTEGER,            -- first error, 0 = none
	errno_name      TEXT,
	err_op          TEXT,
	err_offset      INTEGER,
	err_count       INTEGER,
	message         TEXT,
	bad_blocks      INTEGER,            -- --verify: blocks read that did not match
	first_bad_offset INTEGER,           -- --verify: offset of the first (thread in message)
	lat_mean_ns     INTEGER,
	lat_p50_ns      INTEGER,
	lat_p99_ns      INTEGER,
	lat_max_ns      INTEGER,
	hist            BLOB,               -- latency histogram, in the encoding hist_enc names
	read_bytes      INTEGER,            -- of bytes, read (version 4: all in a read phase)
	read_ops        INTEGER,            -- of ops, reads
	read_lat_p50_ns INTEGER,            -- mixed phases: the reads' latency apart
	read_lat_p99_ns INTEGER,
	write_lat_p50_ns INTEGER,           -- and the writes'
	write_lat_p99_ns INTEGER,
	stonewall_hit   INTEGER,            -- --stonewall: its threads stopped when another client was done
	cache_drop      TEXT,               -- (v6) --mount: how this rank's host dropped its cache before it
	cache_drop_note TEXT,               -- (v6) why that way, and why not the other
	hist_enc        INTEGER,            -- NULL: struct st_hist bytes; 1: sparse varints (version 7)
	io_cpu_user_us  INTEGER,            -- of cpu_user_us, the I/O threads' own (RUSAGE_THREAD; issue 22)
	io_cpu_sys_us   INTEGER,            -- of cpu_sys_us; NULL: no I/O thread, or written before
	PRIMARY KEY (combo_id, phase, rank)
);

-- What server ranks saw while the clients ran: one row per sample and
-- metric (a rate over the interval ending at t_ns).
CREATE TABLE sample (
	combo_id        INTEGER NOT NULL REFERENCES combo(combo_id),
	phase           TEXT NOT NULL,
	rank            INTEGER NOT NULL,
	t_ns            INTEGER NOT NULL,
	metric          TEXT NOT NULL,      -- cpu_user_pct, cpu_sys_pct, cpu_iowait_pct, nfsd_cpu_pct,
	                                    -- net_rx_mbps, net_tx_mbps, disk_read_mbps, ...
	device          TEXT NOT NULL,      -- interface or disk; '' for the host
	value           REAL
);
CREATE INDEX sample_phase ON sample(combo_id, phase);

-- Raw facts per I/O thread.
CREATE TABLE thread_result (
	combo_id        INTEGER NOT NULL REFERENCES combo(combo_id),
	phase           TEXT NOT NULL,
	rank            INTEGER NOT NULL,
	thread          INTEGER NOT NULL,
	bytes           INTEGER,
	ops             INTEGER,
	start_ns        INTEGER,
	end_ns          INTEGER,
	cpuset          TEXT,               -- PUs it was bound to (hwloc list)
	last_cpu        INTEGER,            -- PU it last ran on
	errno           INTEGER,
	err_op          TEXT,
	err_offset      INTEGER,
	lat_p50_ns      INTEGER,
	lat_p99_ns      INTEGER,
	lat_max_ns      INTEGER,
	io_mode         TEXT,               -- posix: io_uring, libaio (why), sync (why); version 3
	read_bytes      INTEGER,            -- of bytes, read (version 4)
	read_ops        INTEGER,
	cpu_user_us     INTEGER,            -- its own CPU in the phase (RUSAGE_THREAD; issue 22)
	cpu_sys_us      INTEGER,
	PRIMARY KEY (combo_id, phase, rank, thread)
);

-- Throughput over time (version 4; packed since version 9): per client
-- rank, phase and interval, the bytes and calls that ended in it
-- (--interval wide, widened ten times when a phase outgrows 600 of them;
-- every rank's of one width in a phase). Interval 0 starts where the
-- phase's figures start (the barrier release, after --ramp); each ends at
-- its width, the last one at the rank's last call. When the rank's phase
-- went on after it (fsync, COMMIT, close) for more than 1 % of its span,
-- one more without calls runs from there to the rank's end: the phase's
-- tail (view interval_rank: tail). Read them as rows from the view
-- `interval` (sql/views.sql); here one row holds a rank's intervals of a
-- phase (coordinator/store/ivpack.h): interval i is t0_ns + i x width_ns
-- to the next (the last one to last_end_ns), its calls ops0 + the i-th
-- piece of ops_r, and each *_r text holds the i-th interval's residual
-- from its formula as the i-th of its equal-width pieces after a mode
-- character (a: 1 character, b: 2, c: 4 (since version 10), d: decimals;
-- NULL: all 0).
CREATE TABLE interval_pack (
	combo_id        INTEGER NOT NULL REFERENCES combo(combo_id),
	phase           TEXT NOT NULL,
	rank            INTEGER NOT NULL,
	idx0            INTEGER NOT NULL,   -- the first interval's idx (0 but in tests)
	n               INTEGER NOT NULL,   -- intervals, idx0 .. idx0 + n - 1; the tail not counted
	t0_ns           INTEGER NOT NULL,   -- interval 0's start
	width_ns        INTEGER NOT NULL,   -- of the intervals
	last_end_ns     INTEGER NOT NULL,   -- interval n-1's end (the rank's last call)
	tail_end_ns     INTEGER,            -- the tail's end (interval n); NULL: no tail
	ops0            INTEGER NOT NULL,   -- calls: ops0 + ops_r
	rops_k          INTEGER NOT NULL,   -- read_ops: rops_k x ops + rops_r
	rbytes_k        INTEGER NOT NULL,   -- read_bytes: rbytes_k x read_ops + rbytes_r
	wbytes_k        INTEGER NOT NULL,   -- bytes: read_bytes + wbytes_k x (ops - read_ops) + wbytes_r
	t_r             TEXT,               -- residuals of t_ns, end_ns, width_ns, ...
	end_r           TEXT,
	width_r         TEXT,
	ops_r           TEXT,
	rops_r          TEXT,
	rbytes_r        TEXT,
	wbytes_r        TEXT,
	PRIMARY KEY (combo_id, phase, rank)
) WITHOUT ROWID;

-- 0 .. 1023: the view `interval` makes interval i of a packed row from row i.
CREATE TABLE interval_seq (i INTEGER PRIMARY KEY);
INSERT INTO interval_seq (i)
	WITH RECURSIVE k(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM k WHERE i < 1023)
	SELECT i FROM k;

-- What went over the wire (version 6): the NFS client's RPC counts per
-- rank and phase, one row per operation the phase used and one 'xprt' row
-- for the transports. source 'mountstats': the kernel client, the deltas
-- of /proc/self/mountstats for the target's mount over the phase (as
-- nfsiostat computes them), counted by the first rank of each client host
-- for every rank of the host on that mount. source 'libnfs': the libnfs
-- engine's own count of this rank's calls. Times are sums over the calls.
CREATE TABLE rpc_stat (
	combo_id        INTEGER NOT NULL REFERENCES combo(combo_id),
	phase           TEXT NOT NULL,
	rank            INTEGER NOT NULL,
	source          TEXT NOT NULL,      -- mountstats | libnfs
	op              TEXT NOT NULL,      -- READ, WRITE, COMMIT, GETATTR, ...; xprt: the transports
	ops             INTEGER,            -- calls completed
	trans           INTEGER,            -- transmissions: ops + retransmissions
	major_timeouts  INTEGER,            -- calls that timed out in full (soft: then failed)
	bytes_sent      INTEGER,            -- mountstats: RPC bytes, headers included; libnfs: payload
	bytes_recv      INTEGER,
	queue_us        INTEGER,            -- waiting to be sent (mountstats: its ms x 1000)
	rtt_us          INTEGER,            -- sent to reply
	exe_us          INTEGER,            -- queued to done
	errors          INTEGER,            -- calls that ended in an error
	file_sync       INTEGER,            -- WRITE: calls sent FILE_SYNC (inferred: stable, FILE or DATA_SYNC)
	data_sync       INTEGER,            -- WRITE: DATA_SYNC
	unstable        INTEGER,            -- WRITE: UNSTABLE
	stable_basis    TEXT,               -- WRITE: measured (each call's own) | inferred (from the COMMITs)
	xprts           INTEGER,            -- xprt: transports (connections) of the mount or rank
	connects        INTEGER,            -- xprt: connections made during the phase
	sends           INTEGER,            -- xprt: requests sent
	recvs           INTEGER,            -- xprt: replies received
	bad_xids        INTEGER,            -- xprt: replies that matched no request
	backlog_u       INTEGER,            -- xprt: backlog queue length summed at each send
	note            TEXT,               -- e.g. the counters were reset during the phase
	rtt_hist        BLOB,               -- libnfs: each call's time (struct st_hist, as rank_result.hist)
	PRIMARY KEY (combo_id, phase, rank, source, op)
);

CREATE INDEX combo_run ON combo(run_id);
CREATE INDEX baseline_run ON baseline(run_id);
CREATE INDEX run_started ON run(started_at); -- "last", "last~N"
