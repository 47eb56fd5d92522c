-- stcluster store: views (dropped and created again whenever a run opens
-- the store, so they always match the binary that wrote last).
-- MB/s is 10^6 bytes per second. Only client ranks count in aggregates.

-- Per client rank and phase: its own bandwidth.
CREATE VIEW client_result AS
SELECT r.*,
       r.end_ns - r.start_ns AS span_ns,
       CASE WHEN r.end_ns > r.start_ns
            THEN r.bytes * 1000.0 / (r.end_ns - r.start_ns) END AS mbps,
       CASE WHEN r.end_ns > r.start_ns
            THEN r.ops * 1e9 / (r.end_ns - r.start_ns) END AS iops
FROM rank_result r
WHERE r.role = 'client';

-- Per combination and phase: the aggregate over all clients.
--   agg_mbps        = sum(bytes) / (latest end - earliest start), as IOR
--   first_done_mbps = bytes all clients had moved when the first client
--                     finished (each at its own constant rate), over the
--                     time from the earliest start to that moment
--   fairness        = slowest client / fastest client (1 = even)
--   jain            = Jain's index (sum x)^2 / (n sum x^2)
--   iops            = all calls / the same span (metadata phases: operations
--                     per second); min/max_client_iops per client
--   read_*, write_* = each direction of the phase (a mixed one has both):
--                     bytes, MB/s over the phase's span, read_pct by bytes
CREATE VIEW phase_summary AS
WITH g AS (
	SELECT combo_id, phase,
	       COUNT(*) AS clients, SUM(nthreads) AS threads,
	       SUM(bytes) AS bytes, SUM(ops) AS ops,
	       MIN(start_ns) AS start_ns, MAX(end_ns) AS end_ns, MIN(end_ns) AS first_end_ns,
	       MIN(mbps) AS min_client_mbps, MAX(mbps) AS max_client_mbps,
	       AVG(mbps) AS mean_client_mbps,
	       SUM(mbps) AS sum_mbps, SUM(mbps * mbps) AS sum_mbps2, COUNT(mbps) AS n_mbps,
	       SUM(err_count) AS errors, SUM(bad_blocks) AS bad_blocks,
	       SUM(cpu_user_us + cpu_sys_us) AS cpu_us,
	       SUM(io_cpu_user_us + io_cpu_sys_us) AS io_cpu_us,
	       MAX(direct_fallback) AS direct_fallback, MAX(deadline_hit) AS deadline_hit,
	       SUM(read_bytes) AS read_bytes, SUM(read_ops) AS read_ops,
	       MIN(iops) AS min_client_iops, MAX(iops) AS max_client_iops,
	       MAX(stonewall_hit) AS stonewall_hit
	FROM client_result GROUP BY combo_id, phase
), fd AS (
	SELECT c.combo_id, c.phase,
	       SUM(c.bytes * MAX(0.0, MIN(1.0, (g.first_end_ns - c.start_ns) * 1.0 /
	                                  NULLIF(c.end_ns - c.start_ns, 0)))) AS bytes_at_first
	FROM client_result c JOIN g USING (combo_id, phase)
	GROUP BY c.combo_id, c.phase
)
SELECT k.run_id, g.combo_id, k.seq, k.iteration, g.phase, p.phase_order,
       COALESCE(p.status, 'ok') AS status,
       g.clients, g.threads, g.bytes, g.ops,
       g.end_ns - g.start_ns AS span_ns,
       g.bytes * 1000.0 / NULLIF(g.end_ns - g.start_ns, 0) AS agg_mbps,
       fd.bytes_at_first * 1000.0 / NULLIF(g.first_end_ns - g.start_ns, 0) AS first_done_mbps,
       g.bytes * 1000.0 / NULLIF(g.end_ns - g.start_ns, 0) AS last_done_mbps,
       g.ops * 1e9 / NULLIF(g.end_ns - g.start_ns, 0) AS iops,
       g.min_client_mbps, g.max_client_mbps, g.mean_client_mbps,
       g.min_client_mbps / NULLIF(g.max_client_mbps, 0) AS fairness,
       g.sum_mbps * g.sum_mbps / NULLIF(g.n_mbps * g.sum_mbps2, 0) AS jain,
       p.skew_ns, p.lat_mean_ns, p.lat_p50_ns, p.lat_p90_ns, p.lat_p99_ns, p.lat_max_ns,
       g.errors, g.bad_blocks, g.cpu_us, g.direct_fallback, g.deadline_hit,
       g.min_client_iops, g.max_client_iops,
       g.read_bytes, g.bytes - g.read_bytes AS write_bytes, g.read_ops, g.ops - g.read_ops AS write_ops,
       g.read_bytes * 1000.0 / NULLIF(g.end_ns - g.start_ns, 0) AS read_mbps,
       (g.bytes - g.read_bytes) * 1000.0 / NULLIF(g.end_ns - g.start_ns, 0) AS write_mbps,
       100.0 * g.read_bytes / NULLIF(g.bytes, 0) AS read_pct,
       p.read_lat_p50_ns, p.read_lat_p99_ns, p.write_lat_p50_ns, p.write_lat_p99_ns,
       g.stonewall_hit, g.io_cpu_us
FROM g
JOIN fd USING (combo_id, phase)
JOIN combo k ON k.combo_id = g.combo_id
LEFT JOIN phase_run p ON p.combo_id = g.combo_id AND p.phase = g.phase;

-- Per combination and phase: the values of the options a phase may have of
-- its own (a [phase] section of the plan: phase_run.phase_block, ...) that
-- the phase ran with: its own where it had one, else the combination's.
CREATE VIEW phase_value AS
SELECT p.combo_id, p.phase,
       COALESCE(p.phase_block, c."block") AS "block",
       COALESCE(p.phase_direct, c."direct") AS "direct",
       COALESCE(p.phase_fsync, c."fsync") AS "fsync",
       COALESCE(p.phase_rwmix, c."rwmix") AS "rwmix",
       COALESCE(p.phase_runtime, c."runtime") AS "runtime",
       COALESCE(p.phase_ramp, c."ramp") AS "ramp"
FROM phase_run p JOIN combo c ON c.combo_id = p.combo_id;

-- Every option of the combination beside its phase figures: the table to
-- load into a data frame. A phase with values of its own has them in their
-- columns (block, ...): store/schema.c makes this view again with c.* as
-- the combo's columns, each of phase_value's as COALESCE(p.phase_<name>, c.<name>).
CREATE VIEW result AS
SELECT c.*, s.phase, s.phase_order, s.status AS phase_status, s.clients, s.threads AS total_threads,
       s.bytes, s.ops, s.span_ns, s.agg_mbps, s.first_done_mbps, s.last_done_mbps, s.iops,
       s.min_client_mbps, s.max_client_mbps, s.mean_client_mbps, s.fairness, s.jain,
       s.skew_ns, s.lat_mean_ns, s.lat_p50_ns, s.lat_p90_ns, s.lat_p99_ns, s.lat_max_ns,
       s.errors, s.bad_blocks, s.cpu_us,
       s.min_client_iops, s.max_client_iops, s.read_bytes, s.write_bytes, s.read_mbps, s.write_mbps,
       s.read_pct, s.read_lat_p50_ns, s.read_lat_p99_ns, s.write_lat_p50_ns, s.write_lat_p99_ns,
       s.stonewall_hit
FROM combo c JOIN phase_summary s USING (combo_id)
LEFT JOIN phase_run p ON p.combo_id = s.combo_id AND p.phase = s.phase;

-- One line per run, with its combinations counted by outcome:
--   ok          every phase ran without error
--   error       a phase recorded errors (failed calls); its figures are kept
--   failed      preparation failed on a rank: no phase ran
--   skipped     no phase of it can run with this engine (why: combo.message)
--   unverified  --verify found blocks read that did not match what was written
-- (error and unverified do not overlap: a combination with both is unverified).
-- `stcluster runs` shows a run whose rank 0 is gone as aborted (it holds no
-- lock: coordinator/store/live.h); this view shows the stored status.
CREATE VIEW run_summary AS
WITH k AS (
	SELECT c.run_id, c.status,
	       EXISTS (SELECT 1 FROM rank_result x WHERE x.combo_id = c.combo_id AND x.bad_blocks > 0) AS unverified
	FROM combo c
), n AS (
	SELECT run_id, COUNT(*) AS stored,
	       COUNT(CASE WHEN status = 'ok' THEN 1 END) AS ok,
	       COUNT(CASE WHEN status = 'error' AND NOT unverified THEN 1 END) AS error,
	       COUNT(CASE WHEN status = 'failed' THEN 1 END) AS failed,
	       COUNT(CASE WHEN status = 'skipped' THEN 1 END) AS skipped,
	       COUNT(CASE WHEN unverified THEN 1 END) AS unverified
	FROM k GROUP BY run_id
)
SELECT r.run_id, r.started_at, r.finished_at, r.status, r.label, r.engine, r.target,
       r.nranks, r.nhosts,
       (SELECT group_concat(DISTINCT h.hostname) FROM host h WHERE h.run_id = r.run_id) AS hosts,
       r.combos_planned,
       COALESCE(n.stored, 0) AS combos_stored,
       COALESCE(n.ok, 0) AS combos_ok,
       COALESCE(n.error, 0) AS combos_error,
       COALESCE(n.failed, 0) AS combos_failed,
       COALESCE(n.skipped, 0) AS combos_skipped,
       COALESCE(n.unverified, 0) AS combos_unverified,
       r.abort_rank, r.abort_reason, r.cleanup,
       CASE WHEN r.status = 'aborted' THEN r.abort_reason
            WHEN r.abort_reason IS NOT NULL THEN 'resumed after: ' || r.abort_reason END AS note
FROM run r LEFT JOIN n USING (run_id);

-- Per combination, phase and server rank: averages and peaks of what the
-- server rank sampled (network summed over its interfaces, disk over its disks).
CREATE VIEW server_summary AS
WITH per_t AS (
	SELECT combo_id, phase, rank, t_ns, metric, SUM(value) AS value
	FROM sample GROUP BY combo_id, phase, rank, t_ns, metric
)
SELECT combo_id, phase, rank, metric, COUNT(*) AS samples,
       AVG(value) AS avg_value, MAX(value) AS max_value
FROM per_t GROUP BY combo_id, phase, rank, metric;

-- Per combination, phase and server rank: the server's parts as the rank
-- sampled them over the phase (NULL where it did not see them):
--   export_disk       the whole disk the export is on (the sampler found it
--                     from the export's path: --server-dir, --mount's or the
--                     URL's path; none on tmpfs or where the path is not
--                     local), with its mean busy share (%util: the time it
--                     had a request in flight), queue (requests in flight,
--                     aqu-sz) and MB/s each way
--   nfsd_threads      the kernel NFS server's threads (/proc/fs/nfsd)
--   nfsd_arrived      calls that arrived at its pools (pool_stats' packets)
--   nfsd_waited_pct   the share of them that found no idle thread (arrived
--                     minus threads woken, of arrived): calls that queued
--                     behind busy threads
--   nfsd_calls        the calls /proc/net/rpc/nfsd counted (all operations)
--   cpu_busy_pct      the host's CPUs busy (user, system, interrupts), % of all
CREATE VIEW server_parts AS
WITH k AS (
	SELECT DISTINCT combo_id, phase, rank FROM sample
), d AS (
	SELECT s.combo_id, s.phase, s.rank, s.device,
	       AVG(CASE WHEN s.metric = 'disk_busy_pct' THEN s.value END) AS busy_pct,
	       AVG(CASE WHEN s.metric = 'disk_queue' THEN s.value END) AS queue,
	       AVG(CASE WHEN s.metric = 'disk_read_mbps' THEN s.value END) AS read_mbps,
	       AVG(CASE WHEN s.metric = 'disk_write_mbps' THEN s.value END) AS write_mbps
	FROM sample s
	WHERE s.metric IN ('disk_busy_pct', 'disk_queue', 'disk_read_mbps', 'disk_write_mbps')
	  AND s.device IN (SELECT e.device FROM sample e WHERE e.combo_id = s.combo_id
	                   AND e.phase = s.phase AND e.rank = s.rank AND e.metric = 'export_disk')
	GROUP BY s.combo_id, s.phase, s.rank, s.device
), p AS (
	SELECT combo_id, phase, rank,
	       MAX(CASE WHEN metric = 'nfsd_threads' THEN value END) AS nfsd_threads,
	       SUM(CASE WHEN metric = 'nfsd_pool' AND device = 'packets' THEN value END) AS arrived,
	       SUM(CASE WHEN metric = 'nfsd_pool' AND device = 'woken' THEN value END) AS woken,
	       SUM(CASE WHEN metric = 'nfsd_calls' THEN value END) AS calls
	FROM sample WHERE metric IN ('nfsd_threads', 'nfsd_pool', 'nfsd_calls')
	GROUP BY combo_id, phase, rank
), u AS (
	SELECT combo_id, phase, rank, AVG(value) AS cpu_busy_pct
	FROM (SELECT combo_id, phase, rank, t_ns, SUM(value) AS value FROM sample
	      WHERE metric IN ('cpu_user_pct', 'cpu_sys_pct') GROUP BY combo_id, phase, rank, t_ns)
	GROUP BY combo_id, phase, rank
)
SELECT k.combo_id, k.phase, k.rank, d.device AS export_disk, d.busy_pct AS disk_busy_pct,
       d.queue AS disk_queue, d.read_mbps AS disk_read_mbps, d.write_mbps AS disk_write_mbps,
       p.nfsd_threads, p.arrived AS nfsd_arrived,
       100.0 * MAX(0, p.arrived - COALESCE(p.woken, 0)) / NULLIF(p.arrived, 0) AS nfsd_waited_pct,
       p.calls AS nfsd_calls, u.cpu_busy_pct
FROM k LEFT JOIN d USING (combo_id, phase, rank) LEFT JOIN p USING (combo_id, phase, rank)
LEFT JOIN u USING (combo_id, phase, rank);

-- Per combination and phase: what the phase cost in CPU, as a share of its
-- wall time (span_ns of phase_summary: earliest client start to latest end)
-- and per MB (10^6 bytes) all clients moved.
--   client_cpu_pct        the client ranks' processes (user + sys), as % of
--                         one CPU per client rank over the phase (fio's
--                         usr_cpu + sys_cpu); 100 = one CPU busy per client
--   client_cpu_us_per_mb  their CPU time, us, per MB
--   io_cpu_pct, io_cpu_us_per_mb  of it, the I/O threads' own (each
--                         thread's RUSAGE_THREAD, as fio counts its job
--                         thread): without the kernel's io-wq workers of
--                         the rank's io_uring and the rank's other
--                         threads (its main thread, MPI's, the watch),
--                         which the process figure counts; NULL from a
--                         store written
--                         before it was kept
--   server_cpu_pct        the server hosts' CPUs busy (user + sys) as their
--                         server ranks sampled them, % of all the host's
--                         CPUs, mean over the phase (and over server hosts)
--   nfsd_cpu_pct          the NFS server's processes alone (knfsd threads
--                         or ganesha.nfsd), % of all the host's CPUs
--   server_cpu_us_per_mb, nfsd_cpu_us_per_mb  that CPU time (the % times
--                         the host's PUs times the phase's wall), us per MB
-- Several server ranks on one host sample the same host: it counts once.
CREATE VIEW phase_cpu AS
WITH srv AS (
	SELECT combo_id, phase, rank,
	       SUM(CASE WHEN metric IN ('cpu_user_pct', 'cpu_sys_pct') THEN avg_value END) AS busy_pct,
	       SUM(CASE WHEN metric = 'nfsd_cpu_pct' THEN avg_value END) AS nfsd_pct
	FROM server_summary GROUP BY combo_id, phase, rank
), h AS (
	SELECT srv.combo_id, srv.phase, MAX(srv.busy_pct) AS busy_pct, MAX(srv.nfsd_pct) AS nfsd_pct,
	       MAX(hs.pus) AS pus
	FROM srv
	JOIN combo k ON k.combo_id = srv.combo_id
	JOIN host hs ON hs.run_id = k.run_id AND hs.rank = srv.rank
	GROUP BY srv.combo_id, srv.phase, hs.hostname
), s AS (
	SELECT combo_id, phase, AVG(busy_pct) AS busy_pct, AVG(nfsd_pct) AS nfsd_pct,
	       SUM(busy_pct * pus) AS busy_cpu_pct, SUM(nfsd_pct * pus) AS nfsd_cpu_pct
	FROM h GROUP BY combo_id, phase
)
SELECT p.run_id, p.combo_id, p.phase, p.span_ns, p.bytes, p.clients, p.cpu_us,
       p.cpu_us * 1e5 / NULLIF(p.clients * p.span_ns, 0) AS client_cpu_pct,
       p.cpu_us * 1e6 / NULLIF(p.bytes, 0) AS client_cpu_us_per_mb,
       s.busy_pct AS server_cpu_pct,
       s.nfsd_pct AS nfsd_cpu_pct,
       s.busy_cpu_pct * p.span_ns * 10.0 / NULLIF(p.bytes, 0) AS server_cpu_us_per_mb,
       s.nfsd_cpu_pct * p.span_ns * 10.0 / NULLIF(p.bytes, 0) AS nfsd_cpu_us_per_mb,
       p.io_cpu_us * 1e5 / NULLIF(p.clients * p.span_ns, 0) AS io_cpu_pct,
       p.io_cpu_us * 1e6 / NULLIF(p.bytes, 0) AS io_cpu_us_per_mb
FROM phase_summary p
LEFT JOIN s USING (combo_id, phase);

-- The bottleneck, per combination and phase: the aggregate as a share of
-- the slower of the parts measured alone (all clients at once over the
-- network in the phase's direction, and the server's disk). A phase above
-- a part is "above the measured limit" of it, with the likely cause for
-- its engine: a cache only where one exists (the posix engine without
-- O_DIRECT; the server's page cache for reads above its disk), never for
-- libnfs, which keeps none. A read phase limited by the disk whose server
-- ranks sampled their disks reading less than half of what the clients
-- got was served from the server's page cache, not disk-bound. Then, from
-- the server's parts as its ranks sampled them (server_parts; no baseline
-- needed): a phase whose export disk was busy 90 % of it or more is
-- disk-bound, with the disk, its busy share and the MB/s it moved; one
-- whose kernel NFS server's host had its CPUs 90 % busy is "server CPU"
-- (saying whether the calls also waited for threads: more threads alone
-- would not help); one in which half the calls or more found every nfsd
-- thread busy is named "nfsd threads", with the share and the count.
CREATE VIEW verdict AS
WITH b AS (
	SELECT run_id,
	       SUM(CASE WHEN kind = 'net_all' AND direction = 'c2s' THEN mbps END) AS net_c2s,
	       SUM(CASE WHEN kind = 'net_all' AND direction = 's2c' THEN mbps END) AS net_s2c,
	       SUM(CASE WHEN kind = 'disk' AND direction = 'write' THEN mbps END) AS disk_write,
	       SUM(CASE WHEN kind = 'disk' AND direction = 'read' THEN mbps END) AS disk_read
	FROM baseline GROUP BY run_id
), sp AS (
	-- each server rank's parts, ranked within its phase: the busiest export disk
	-- first (dk), the thread pool that made the most calls wait first (pk)
	SELECT v.*,
	       ROW_NUMBER() OVER (PARTITION BY combo_id, phase
	                          ORDER BY disk_busy_pct IS NULL, disk_busy_pct DESC, rank) AS dk,
	       ROW_NUMBER() OVER (PARTITION BY combo_id, phase
	                          ORDER BY nfsd_waited_pct IS NULL, nfsd_waited_pct DESC, rank) AS pk
	FROM server_parts v
), x AS (
	SELECT s.run_id, s.combo_id, s.phase, s.agg_mbps, r.engine, c.direct, c.fsync,
	       s.phase IN ('write', 'rewrite', 'randwrite') AS writes,
	       CASE WHEN s.phase IN ('write', 'rewrite', 'randwrite') THEN b.net_c2s ELSE b.net_s2c END AS net_mbps,
	       CASE WHEN s.phase IN ('write', 'rewrite', 'randwrite') THEN b.disk_write ELSE b.disk_read END AS disk_mbps,
	       (SELECT SUM(v.avg_value) FROM server_summary v WHERE v.combo_id = s.combo_id
	        AND v.phase = s.phase AND v.metric = 'disk_read_mbps') AS server_disk_read,
	       d.export_disk, d.disk_busy_pct,
	       CASE WHEN s.phase IN ('write', 'rewrite', 'randwrite') THEN d.disk_write_mbps ELSE d.disk_read_mbps END AS disk_sampled_mbps,
	       p.nfsd_threads, p.nfsd_waited_pct, p.cpu_busy_pct AS nfsd_host_cpu_pct
	FROM phase_summary s LEFT JOIN b USING (run_id) JOIN run r ON r.run_id = s.run_id
	JOIN combo c ON c.combo_id = s.combo_id
	LEFT JOIN sp d ON d.combo_id = s.combo_id AND d.phase = s.phase AND d.dk = 1 AND d.disk_busy_pct IS NOT NULL
	LEFT JOIN sp p ON p.combo_id = s.combo_id AND p.phase = s.phase AND p.pk = 1 AND p.nfsd_waited_pct IS NOT NULL
	WHERE s.phase NOT IN ('create', 'stat', 'readdir', 'open', 'remove', 'mkdir', 'dirstat', 'rmdir') -- no network or disk rate to compare
), y AS (
	SELECT x.*, CASE WHEN net_mbps IS NULL AND disk_mbps IS NULL THEN NULL
	                 WHEN disk_mbps IS NULL OR net_mbps <= disk_mbps THEN net_mbps ELSE disk_mbps END AS limit_mbps,
	       CASE WHEN net_mbps IS NULL AND disk_mbps IS NULL THEN NULL
	            WHEN disk_mbps IS NULL OR net_mbps <= disk_mbps THEN 'network' ELSE 'disk' END AS limit_part
	FROM x
)
SELECT run_id, combo_id, phase, agg_mbps, net_mbps, disk_mbps, limit_mbps, limit_part,
       100.0 * agg_mbps / NULLIF(limit_mbps, 0) AS pct_of_limit,
       export_disk, disk_busy_pct, disk_sampled_mbps, nfsd_threads, nfsd_waited_pct, nfsd_host_cpu_pct,
       CASE
         WHEN net_mbps IS NOT NULL AND agg_mbps > 1.05 * net_mbps THEN
           'above the measured limit of ' || printf('%.0f', net_mbps) || ' MB/s (network): ' ||
           CASE
             WHEN engine = 'posix' AND direct = 'off' AND NOT writes
               THEN 'the client''s page cache answered (buffered reads)'
             WHEN engine = 'posix' AND direct = 'off' AND fsync = 'off'
               THEN 'the client''s page cache took the writes (buffered, no fsync)'
             WHEN engine = 'libnfs'
               THEN 'libnfs keeps no cache: its connections carried more than the baseline''s '
                    || 'streams (more threads or connections than --baseline-streams)'
             ELSE 'O_DIRECT leaves the client''s cache out: its connections carried more than the '
                  || 'baseline''s streams (more threads or connections than --baseline-streams)'
           END
         WHEN disk_mbps IS NOT NULL AND agg_mbps > 1.05 * disk_mbps THEN
           'above the measured limit of ' || printf('%.0f', disk_mbps) || ' MB/s (disk): ' ||
           CASE
             WHEN writes THEN 'the server answered before its disk had the data (an async export, '
                              || 'or unstable writes not yet committed)'
             ELSE 'the server''s page cache answered (the disk baseline reads with O_DIRECT)'
           END
         WHEN NOT writes AND limit_part = 'disk' AND server_disk_read IS NOT NULL
              AND server_disk_read < 0.5 * agg_mbps THEN
           'served from the server''s page cache (its disks read ' || printf('%.0f', server_disk_read)
           || ' MB/s meanwhile)'
         WHEN agg_mbps >= 0.85 * limit_mbps AND (limit_part = 'network' OR disk_busy_pct IS NULL)
           THEN limit_part || '-bound'
         WHEN agg_mbps >= 0.85 * limit_mbps OR disk_busy_pct >= 90 THEN
           'disk-bound: the export''s disk ' || export_disk || ' was busy ' || printf('%.0f', disk_busy_pct)
           || ' % of the phase' || CASE WHEN disk_sampled_mbps IS NULL THEN '' ELSE ', '
           || printf('%.1f', disk_sampled_mbps) || ' MB/s ' || CASE WHEN writes THEN 'written' ELSE 'read' END END
           || CASE WHEN disk_mbps IS NULL THEN '' ELSE ' (its baseline ' || printf('%.1f', disk_mbps) || ' MB/s)' END
         WHEN nfsd_host_cpu_pct >= 90 THEN
           'server CPU: the kernel NFS server''s host had its CPUs ' || printf('%.0f', nfsd_host_cpu_pct)
           || ' % busy' || CASE WHEN nfsd_waited_pct >= 50 THEN ' and ' || printf('%.0f', nfsd_waited_pct)
           || ' % of the calls found all ' || printf('%d', nfsd_threads) || ' nfsd threads busy: '
           || 'more threads alone will not help' ELSE '' END
         WHEN nfsd_waited_pct >= 50 THEN
           'nfsd threads: ' || printf('%.0f', nfsd_waited_pct) || ' % of the calls found all '
           || printf('%d', nfsd_threads) || ' of the server''s threads busy: '
           || 'more of them (--server-threads) may help'
         WHEN limit_mbps IS NULL THEN NULL
         ELSE 'below the parts: NFS or client'
       END AS verdict
FROM y;

-- The intervals, one row per client rank, phase and interval (idx), as
-- they were stored before schema version 9 in a table of this name: each
-- made from its rank's packed row of interval_pack (sql/schema.sql,
-- coordinator/store/ivpack.h) and row idx of interval_seq (position
-- idx - idx0 in the row). A query's
-- combo_id = ... (and phase, rank) reaches interval_pack's key, and its
-- idx > ... interval_seq's, so that a row costs what a table's row did.
-- Each CASE substr(X_r, 1, 1) ... reads residual idx - idx0 of text X_r
-- in its mode (a, b, c or d; NULL: 0): the one decoder, written out per field.
CREATE VIEW interval AS
SELECT combo_id, phase, rank, idx, t_ns, end_ns, width_ns,
       CASE WHEN tail THEN 0
            ELSE read_bytes + CASE WHEN wbytes_k = 0 THEN 0 ELSE wbytes_k * (ops - read_ops) END
                 + r_wbytes END AS bytes,
       ops, read_bytes, read_ops
FROM (SELECT *, CASE WHEN tail THEN 0 ELSE rbytes_k * read_ops + r_rbytes END AS read_bytes
      FROM (SELECT *, CASE WHEN tail THEN 0 ELSE rops_k * ops + r_rops END AS read_ops
            FROM (SELECT p.combo_id, p.phase, p.rank, s.i AS idx, s.i - p.idx0 = p.n AS tail,
                         CASE WHEN s.i - p.idx0 = p.n THEN p.last_end_ns
                              ELSE p.t0_ns + (s.i - p.idx0) * p.width_ns + CASE substr(p.t_r, 1, 1) WHEN 'a' THEN unicode(substr(p.t_r, (s.i - p.idx0) + 2, 1)) - 79
                              WHEN 'b' THEN (unicode(substr(p.t_r, 2 * (s.i - p.idx0) + 2, 1)) - 32) * 94
                                            + unicode(substr(p.t_r, 2 * (s.i - p.idx0) + 3, 1)) - 4450
                              WHEN 'c' THEN (((unicode(substr(p.t_r, 4 * (s.i - p.idx0) + 2, 1)) - 32) * 94
                                            + unicode(substr(p.t_r, 4 * (s.i - p.idx0) + 3, 1)) - 32) * 94
                                            + unicode(substr(p.t_r, 4 * (s.i - p.idx0) + 4, 1)) - 32) * 94
                                            + unicode(substr(p.t_r, 4 * (s.i - p.idx0) + 5, 1)) - 39037480
                              ELSE COALESCE(CAST(substr(p.t_r, (s.i - p.idx0) * ((length(p.t_r) - 1) / p.n) + 2,
                                                        (length(p.t_r) - 1) / p.n) AS INTEGER), 0) END END AS t_ns,
                         CASE WHEN s.i - p.idx0 = p.n THEN p.tail_end_ns
                              WHEN s.i - p.idx0 = p.n - 1 THEN p.last_end_ns
                              ELSE p.t0_ns + (s.i - p.idx0 + 1) * p.width_ns + CASE substr(p.end_r, 1, 1) WHEN 'a' THEN unicode(substr(p.end_r, (s.i - p.idx0) + 2, 1)) - 79
                              WHEN 'b' THEN (unicode(substr(p.end_r, 2 * (s.i - p.idx0) + 2, 1)) - 32) * 94
                                            + unicode(substr(p.end_r, 2 * (s.i - p.idx0) + 3, 1)) - 4450
                              WHEN 'c' THEN (((unicode(substr(p.end_r, 4 * (s.i - p.idx0) + 2, 1)) - 32) * 94
                                            + unicode(substr(p.end_r, 4 * (s.i - p.idx0) + 3, 1)) - 32) * 94
                                            + unicode(substr(p.end_r, 4 * (s.i - p.idx0) + 4, 1)) - 32) * 94
                                            + unicode(substr(p.end_r, 4 * (s.i - p.idx0) + 5, 1)) - 39037480
                              ELSE COALESCE(CAST(substr(p.end_r, (s.i - p.idx0) * ((length(p.end_r) - 1) / p.n) + 2,
                                                        (length(p.end_r) - 1) / p.n) AS INTEGER), 0) END END AS end_ns,
                         p.width_ns + CASE substr(p.width_r, 1, 1) WHEN 'a' THEN unicode(substr(p.width_r, MIN(s.i - p.idx0, p.n - 1) + 2, 1)) - 79
                              WHEN 'b' THEN (unicode(substr(p.width_r, 2 * MIN(s.i - p.idx0, p.n - 1) + 2, 1)) - 32) * 94
                                            + unicode(substr(p.width_r, 2 * MIN(s.i - p.idx0, p.n - 1) + 3, 1)) - 4450
                              WHEN 'c' THEN (((unicode(substr(p.width_r, 4 * MIN(s.i - p.idx0, p.n - 1) + 2, 1)) - 32) * 94
                                            + unicode(substr(p.width_r, 4 * MIN(s.i - p.idx0, p.n - 1) + 3, 1)) - 32) * 94
                                            + unicode(substr(p.width_r, 4 * MIN(s.i - p.idx0, p.n - 1) + 4, 1)) - 32) * 94
                                            + unicode(substr(p.width_r, 4 * MIN(s.i - p.idx0, p.n - 1) + 5, 1)) - 39037480
                              ELSE COALESCE(CAST(substr(p.width_r, MIN(s.i - p.idx0, p.n - 1) * ((length(p.width_r) - 1) / p.n) + 2,
                                                        (length(p.width_r) - 1) / p.n) AS INTEGER), 0) END AS width_ns,
                         CASE WHEN s.i - p.idx0 = p.n THEN 0 ELSE p.ops0 + CASE substr(p.ops_r, 1, 1) WHEN 'a' THEN unicode(substr(p.ops_r, (s.i - p.idx0) + 2, 1)) - 79
                              WHEN 'b' THEN (unicode(substr(p.ops_r, 2 * (s.i - p.idx0) + 2, 1)) - 32) * 94
                                            + unicode(substr(p.ops_r, 2 * (s.i - p.idx0) + 3, 1)) - 4450
                              WHEN 'c' THEN (((unicode(substr(p.ops_r, 4 * (s.i - p.idx0) + 2, 1)) - 32) * 94
                                            + unicode(substr(p.ops_r, 4 * (s.i - p.idx0) + 3, 1)) - 32) * 94
                                            + unicode(substr(p.ops_r, 4 * (s.i - p.idx0) + 4, 1)) - 32) * 94
                                            + unicode(substr(p.ops_r, 4 * (s.i - p.idx0) + 5, 1)) - 39037480
                              ELSE COALESCE(CAST(substr(p.ops_r, (s.i - p.idx0) * ((length(p.ops_r) - 1) / p.n) + 2,
                                                        (length(p.ops_r) - 1) / p.n) AS INTEGER), 0) END END AS ops,
                         p.rops_k, p.rbytes_k, p.wbytes_k,
                         CASE substr(p.rops_r, 1, 1) WHEN 'a' THEN unicode(substr(p.rops_r, (s.i - p.idx0) + 2, 1)) - 79
                              WHEN 'b' THEN (unicode(substr(p.rops_r, 2 * (s.i - p.idx0) + 2, 1)) - 32) * 94
                                            + unicode(substr(p.rops_r, 2 * (s.i - p.idx0) + 3, 1)) - 4450
                              WHEN 'c' THEN (((unicode(substr(p.rops_r, 4 * (s.i - p.idx0) + 2, 1)) - 32) * 94
                                            + unicode(substr(p.rops_r, 4 * (s.i - p.idx0) + 3, 1)) - 32) * 94
                                            + unicode(substr(p.rops_r, 4 * (s.i - p.idx0) + 4, 1)) - 32) * 94
                                            + unicode(substr(p.rops_r, 4 * (s.i - p.idx0) + 5, 1)) - 39037480
                              ELSE COALESCE(CAST(substr(p.rops_r, (s.i - p.idx0) * ((length(p.rops_r) - 1) / p.n) + 2,
                                                        (length(p.rops_r) - 1) / p.n) AS INTEGER), 0) END AS r_rops,
                         CASE substr(p.rbytes_r, 1, 1) WHEN 'a' THEN unicode(substr(p.rbytes_r, (s.i - p.idx0) + 2, 1)) - 79
                              WHEN 'b' THEN (unicode(substr(p.rbytes_r, 2 * (s.i - p.idx0) + 2, 1)) - 32) * 94
                                            + unicode(substr(p.rbytes_r, 2 * (s.i - p.idx0) + 3, 1)) - 4450
                              WHEN 'c' THEN (((unicode(substr(p.rbytes_r, 4 * (s.i - p.idx0) + 2, 1)) - 32) * 94
                                            + unicode(substr(p.rbytes_r, 4 * (s.i - p.idx0) + 3, 1)) - 32) * 94
                                            + unicode(substr(p.rbytes_r, 4 * (s.i - p.idx0) + 4, 1)) - 32) * 94
                                            + unicode(substr(p.rbytes_r, 4 * (s.i - p.idx0) + 5, 1)) - 39037480
                              ELSE COALESCE(CAST(substr(p.rbytes_r, (s.i - p.idx0) * ((length(p.rbytes_r) - 1) / p.n) + 2,
                                                        (length(p.rbytes_r) - 1) / p.n) AS INTEGER), 0) END AS r_rbytes,
                         CASE substr(p.wbytes_r, 1, 1) WHEN 'a' THEN unicode(substr(p.wbytes_r, (s.i - p.idx0) + 2, 1)) - 79
                              WHEN 'b' THEN (unicode(substr(p.wbytes_r, 2 * (s.i - p.idx0) + 2, 1)) - 32) * 94
                                            + unicode(substr(p.wbytes_r, 2 * (s.i - p.idx0) + 3, 1)) - 4450
                              WHEN 'c' THEN (((unicode(substr(p.wbytes_r, 4 * (s.i - p.idx0) + 2, 1)) - 32) * 94
                                            + unicode(substr(p.wbytes_r, 4 * (s.i - p.idx0) + 3, 1)) - 32) * 94
                                            + unicode(substr(p.wbytes_r, 4 * (s.i - p.idx0) + 4, 1)) - 32) * 94
                                            + unicode(substr(p.wbytes_r, 4 * (s.i - p.idx0) + 5, 1)) - 39037480
                              ELSE COALESCE(CAST(substr(p.wbytes_r, (s.i - p.idx0) * ((length(p.wbytes_r) - 1) / p.n) + 2,
                                                        (length(p.wbytes_r) - 1) / p.n) AS INTEGER), 0) END AS r_wbytes
                  FROM interval_pack p JOIN interval_seq s ON s.i >= p.idx0
                         AND s.i < p.idx0 + p.n + (p.tail_end_ns IS NOT NULL))));

-- Throughput over time, per client rank, phase and interval (table
-- interval): MB/s and calls per second over the interval's own length,
-- expect_ops (the calls an interval this wide holds at the rank's own rate
-- over the phase: rank_result's ops over its span), zero_run (for an
-- interval with no call: the intervals without one in a row it is part of),
-- tail (1: the phase's tail, the row the store adds after the rank's last
-- interval, from its last call's end to its end: fsync, COMMIT, close; no
-- calls, never full) and a stall flag. A stall is a fact about the rank, not
-- about the median:
-- a full interval (not the last, shorter one), after the rank's first call
-- ended (the wait for it is the calls' latency: a deep queue filling), in
-- which the rank
--   completed no call, in a run of such intervals long enough for 4 of its
--   calls (zero_run x expect_ops >= 4: no completion for 4 of its mean
--   times between completions; at 1-2 calls an interval a steady rank has
--   single intervals without one), or
--   completed under a quarter of expect_ops, where expect_ops >= 4 (below 4
--   calls an interval, how many end in one is too coarse to judge a rate
--   by), except in the first interval with a call (the queue's fill).
-- Written without window functions, so that a query's combo_id = ... (or IN
-- a run's combinations) reaches the index of interval, not every row stored.
CREATE VIEW interval_rank AS
SELECT combo_id, phase, rank, idx, t_ns, end_ns, width_ns, bytes, ops, read_bytes, read_ops,
       mbps, iops, full, tail, expect_ops, zero_run,
       COALESCE(CASE WHEN NOT full OR NOT called_before THEN 0
                     WHEN ops = 0 THEN zero_run * expect_ops >= 4
                     ELSE expect_ops >= 4 AND ops < 0.25 * expect_ops END, 0) AS stall
FROM (SELECT i.*, i.bytes * 1000.0 / NULLIF(i.end_ns - i.t_ns, 0) AS mbps,
	     i.ops * 1e9 / NULLIF(i.end_ns - i.t_ns, 0) AS iops,
	     i.end_ns - i.t_ns = i.width_ns AND NOT tail AS full, tail,
	     i.width_ns * 1.0 * r.ops / NULLIF(r.end_ns - r.start_ns, 0) AS expect_ops,
	     EXISTS (SELECT 1 FROM interval j WHERE j.combo_id = i.combo_id AND j.phase = i.phase
		     AND j.rank = i.rank AND j.idx < i.idx AND j.ops > 0) AS called_before,
	     CASE WHEN i.ops = 0 THEN
		  (SELECT MIN(j.idx) FROM interval j WHERE j.combo_id = i.combo_id
		   AND j.phase = i.phase AND j.rank = i.rank AND j.idx > i.idx AND j.ops > 0) -
		  (SELECT MAX(j.idx) FROM interval j WHERE j.combo_id = i.combo_id
		   AND j.phase = i.phase AND j.rank = i.rank AND j.idx < i.idx AND j.ops > 0) - 1
	     END AS zero_run
      FROM (SELECT i.*, i.ops = 0 AND NOT EXISTS (SELECT 1 FROM interval j
		   WHERE j.combo_id = i.combo_id AND j.phase = i.phase AND j.rank = i.rank
		   AND j.idx > i.idx) AS tail FROM interval i) i
      JOIN rank_result r ON r.combo_id = i.combo_id AND r.phase = i.phase AND r.rank = i.rank);

-- The aggregate of all client ranks per interval (the same index: every
-- rank's interval 0 starts at its own barrier release, within the skew):
-- `full` when every client ran the whole interval, stalled_clients of them
-- flagged above, and a stall of all clients where every one of them is;
-- the clients' tails in one row (tail 1, idx the last of them).
-- (Intervals after the first client finished are never full: the aggregate
-- falls there because clients are done, not stalled.)
CREATE VIEW interval_summary AS
WITH a AS (
	SELECT combo_id, phase, MAX(idx) AS idx, tail, COUNT(*) AS clients, MIN(t_ns) AS t_ns,
	       MAX(end_ns) AS end_ns,
	       MAX(width_ns) AS width_ns, SUM(bytes) AS bytes, SUM(ops) AS ops,
	       SUM(read_bytes) AS read_bytes, SUM(read_ops) AS read_ops,
	       SUM(stall) AS stalled_clients, MIN(full) AS all_ran
	FROM interval_rank GROUP BY combo_id, phase, tail, CASE WHEN tail THEN 0 ELSE idx END
), b AS (
	-- every rank that made a call has an interval 0
	SELECT a.*, MAX(CASE WHEN NOT tail THEN clients END) OVER (PARTITION BY combo_id, phase)
	       AS ranks FROM a
)
SELECT combo_id, phase, idx, tail, t_ns, end_ns, width_ns, clients, bytes, ops, read_bytes,
       read_ops, bytes * 1000.0 / NULLIF(end_ns - t_ns, 0) AS mbps,
       ops * 1e9 / NULLIF(end_ns - t_ns, 0) AS iops,
       all_ran AND clients = ranks AS full, stalled_clients,
       all_ran AND clients = ranks AND stalled_clients = clients AS stall
FROM b;

-- A phase's calls apart from its tail (issue 22), per combination and
-- phase: the tail is what follows a rank's last data call, fsync (--fsync
-- on), the COMMIT of libnfs's and the kernel's UNSTABLE writes, and close
-- (the row interval adds after the rank's last interval). fio's figure for
-- its nfs engine stops before its COMMIT: calls_mbps is the like for like.
--   calls_end_ns   the clients' latest last data call's end (common timeline)
--   calls_mbps     all client bytes / (that - the earliest client start)
--   tail_ns        the longest client tail (rank end - its last call's end)
--   end_tail_ns    the phase's end (latest client end) - calls_end_ns
-- A rank's last call ends its last interval with calls (common/interval.h
-- clips it there); a rank with no call has no interval and counts in none.
CREATE VIEW phase_tail AS
WITH k AS (
	SELECT combo_id, phase, rank, MAX(end_ns) AS calls_end_ns
	FROM interval WHERE ops > 0 GROUP BY combo_id, phase, rank
)
SELECT r.combo_id, r.phase, MAX(k.calls_end_ns) AS calls_end_ns,
       SUM(r.bytes) * 1000.0 / NULLIF(MAX(k.calls_end_ns) - MIN(r.start_ns), 0) AS calls_mbps,
       MAX(r.end_ns - k.calls_end_ns) AS tail_ns,
       MAX(r.end_ns) - MAX(k.calls_end_ns) AS end_tail_ns
FROM client_result r JOIN k USING (combo_id, phase, rank)
GROUP BY r.combo_id, r.phase;

-- What went over the wire (rpc_stat), per combination, phase, source and
-- operation: summed over the ranks that counted, with nfsiostat's figures
-- over the phase's span (the clients' latest end - earliest start).
--   ops_per_s      calls / span
--   kib_per_op     (bytes sent + received) / 1024 / calls: nfsiostat's kB/op
--   retrans        transmissions - calls
--   avg_rtt_ms, avg_exe_ms, avg_queue_ms   summed time / calls
--   pct_file_sync  WRITE: calls sent FILE_SYNC / all WRITEs, % (stable_basis
--                  'inferred': from the COMMITs, FILE_SYNC meaning stable)
CREATE VIEW rpc_summary AS
SELECT k.run_id, r.combo_id, k.seq, k.iteration, r.phase, r.source, r.op,
       COUNT(*) AS ranks, SUM(r.ops) AS ops, SUM(r.trans) AS trans,
       SUM(r.trans) - SUM(r.ops) AS retrans, SUM(r.major_timeouts) AS major_timeouts,
       SUM(r.errors) AS errors, SUM(r.bytes_sent) AS bytes_sent, SUM(r.bytes_recv) AS bytes_recv,
       SUM(r.ops) * 1e9 / NULLIF(s.span_ns, 0) AS ops_per_s,
       (SUM(r.bytes_sent) + SUM(r.bytes_recv)) / 1024.0 / NULLIF(SUM(r.ops), 0) AS kib_per_op,
       SUM(r.rtt_us) / 1000.0 / NULLIF(SUM(r.ops), 0) AS avg_rtt_ms,
       SUM(r.exe_us) / 1000.0 / NULLIF(SUM(r.ops), 0) AS avg_exe_ms,
       SUM(r.queue_us) / 1000.0 / NULLIF(SUM(r.ops), 0) AS avg_queue_ms,
       SUM(r.file_sync) AS file_sync, SUM(r.data_sync) AS data_sync, SUM(r.unstable) AS unstable,
       100.0 * SUM(r.file_sync) / NULLIF(SUM(r.file_sync) + SUM(r.data_sync) + SUM(r.unstable), 0)
           AS pct_file_sync,
       MAX(r.stable_basis) AS stable_basis
FROM rpc_stat r
JOIN combo k ON k.combo_id = r.combo_id
LEFT JOIN phase_summary s ON s.combo_id = r.combo_id AND s.phase = r.phase
WHERE r.op <> 'xprt'
GROUP BY r.combo_id, r.phase, r.source, r.op;

-- The RPC mix of each combination and phase in one line, beside its MB/s:
-- "WRITE 64 x 1024 KiB FILE_SYNC, COMMIT 0, READ 0, GETATTR 3, LOOKUP 2" (the
-- stable_how of the WRITEs: FILE_SYNC, UNSTABLE or the % FILE_SYNC; '~':
-- inferred), every other operation that was sent named with its count, the
-- most first; a phase that sent no READ, WRITE or COMMIT (a metadata phase)
-- only its own: "GETATTR 120, LOOKUP 120".
CREATE VIEW rpc_mix AS
WITH o AS (
	SELECT combo_id, phase, source,
	       SUM(CASE WHEN op = 'READ' THEN ops END) AS reads,
	       SUM(CASE WHEN op = 'READ' THEN bytes_recv END) AS read_bytes,
	       SUM(CASE WHEN op = 'WRITE' THEN ops END) AS writes,
	       SUM(CASE WHEN op = 'WRITE' THEN bytes_sent END) AS write_bytes,
	       SUM(CASE WHEN op = 'WRITE' THEN file_sync + data_sync END) AS stable,
	       SUM(CASE WHEN op = 'WRITE' THEN unstable END) AS unstable,
	       MAX(CASE WHEN op = 'WRITE' THEN stable_basis END) AS basis,
	       SUM(CASE WHEN op = 'COMMIT' THEN ops END) AS commits,
	       SUM(CASE WHEN op NOT IN ('READ', 'WRITE', 'COMMIT', 'xprt') THEN ops END) AS other,
	       SUM(CASE WHEN op <> 'xprt' THEN trans - ops END) AS retrans,
	       SUM(CASE WHEN op <> 'xprt' THEN major_timeouts END) AS timeouts
	FROM rpc_stat GROUP BY combo_id, phase, source
), n AS (
	-- the other operations by name, the most first (group_concat keeps the
	-- order of the rows it is given)
	SELECT combo_id, phase, source, group_concat(op || ' ' || n, ', ') AS named
	FROM (SELECT combo_id, phase, source, op, SUM(ops) AS n FROM rpc_stat
	      WHERE op NOT IN ('READ', 'WRITE', 'COMMIT', 'xprt')
	      GROUP BY combo_id, phase, source, op HAVING SUM(ops) > 0
	      ORDER BY combo_id, phase, source, n DESC, op)
	GROUP BY combo_id, phase, source
)
SELECT combo_id, phase, source, reads, writes, commits, other, retrans, timeouts,
       CASE WHEN COALESCE(writes, 0) + COALESCE(commits, 0) + COALESCE(reads, 0) = 0
                 AND named IS NOT NULL THEN named
       ELSE
       CASE WHEN COALESCE(writes, 0) > 0 THEN 'WRITE ' || writes || ' x ' ||
            CAST(ROUND(write_bytes / 1024.0 / writes) AS INTEGER) || ' KiB ' ||
            CASE WHEN basis = 'inferred' THEN '~' ELSE '' END ||
            CASE WHEN unstable = 0 THEN 'FILE_SYNC' WHEN stable = 0 THEN 'UNSTABLE'
                 ELSE CAST(ROUND(100.0 * stable / writes) AS INTEGER) || '% FILE_SYNC' END || ', '
            ELSE 'WRITE 0, ' END ||
       'COMMIT ' || COALESCE(commits, 0) || ', ' ||
       CASE WHEN COALESCE(reads, 0) > 0 THEN 'READ ' || reads || ' x ' ||
            CAST(ROUND(read_bytes / 1024.0 / reads) AS INTEGER) || ' KiB'
            ELSE 'READ 0' END ||
       COALESCE(', ' || named, '') END ||
       CASE WHEN retrans > 0 THEN ', retrans ' || retrans ELSE '' END ||
       CASE WHEN timeouts > 0 THEN ', timeouts ' || timeouts ELSE '' END AS mix
FROM o LEFT JOIN n USING (combo_id, phase, source);

-- NFS options whose effective value is not the one asked for (or that the
-- mount driver added unasked), per combination, rank and option.
CREATE VIEW option_override AS
SELECT k.run_id, e.combo_id, e.rank, e.option, e.requested, e.effective, e.note
FROM effective_option e JOIN combo k ON k.combo_id = e.combo_id
WHERE e.note IS NOT NULL
   OR (e.requested IS NOT NULL AND e.effective IS NOT NULL AND e.requested <> e.effective);

-- What contradicts the request, per combination and phase (phase NULL: the
-- whole combination):
--   'sync asked, UNSTABLE sent' / 'async asked, FILE_SYNC sent': the WRITEs'
--       stable_how against --sync (with O_DIRECT Linux decides by the size of
--       each write against wsize, whatever the mount option says)
--   'read after a cache drop sent no READs': the client's cache answered
--   'requested != effective': an option the kernel, server or engine
--       overrode, or one the mount driver added unasked
--   'NFS major timeouts or retransmissions': calls that timed out in full,
--       or were sent again, on any path (mountstats or libnfs): a server that
--       stopped answering for a while, whatever the intervals show
CREATE VIEW rpc_flag AS
WITH w AS (
	SELECT combo_id, phase, SUM(ops) AS ops, SUM(file_sync + data_sync) AS stable,
	       SUM(unstable) AS unstable
	FROM rpc_stat WHERE op = 'WRITE' GROUP BY combo_id, phase
), c AS (
	SELECT combo_id, phase, SUM(ops) AS ops FROM rpc_stat WHERE op = 'COMMIT'
	GROUP BY combo_id, phase
), rd AS (
	SELECT combo_id, phase, SUM(CASE WHEN op = 'READ' THEN ops ELSE 0 END) AS reads
	FROM rpc_stat GROUP BY combo_id, phase
), t AS (
	SELECT combo_id, phase, source, SUM(major_timeouts) AS timeouts, SUM(trans - ops) AS retrans
	FROM rpc_stat WHERE op <> 'xprt' GROUP BY combo_id, phase, source
)
SELECT k.run_id, w.combo_id, w.phase, 'sync asked, UNSTABLE sent' AS flag,
       w.unstable || ' of ' || w.ops || ' WRITEs UNSTABLE, ' || COALESCE(c.ops, 0) || ' COMMITs' ||
       CASE WHEN k.direct = 'on' THEN ' (O_DIRECT: a write larger than wsize goes UNSTABLE + '
            || 'COMMIT, whatever sync says)'
            ELSE ' (a sync mount sends a write larger than wsize UNSTABLE + COMMIT)' END AS detail
FROM w JOIN combo k ON k.combo_id = w.combo_id
LEFT JOIN c ON c.combo_id = w.combo_id AND c.phase = w.phase
WHERE k.sync = 'sync' AND w.unstable > 0
UNION ALL
SELECT k.run_id, w.combo_id, w.phase, 'async asked, FILE_SYNC sent',
       w.stable || ' of ' || w.ops || ' WRITEs stable, ' || COALESCE(c.ops, 0) || ' COMMITs' ||
       CASE WHEN k.direct = 'on' THEN ' (O_DIRECT: a write that fits one WRITE goes FILE_SYNC, '
            || 'whatever async says)' ELSE '' END
FROM w JOIN combo k ON k.combo_id = w.combo_id
LEFT JOIN c ON c.combo_id = w.combo_id AND c.phase = w.phase
WHERE k.sync = 'async' AND w.stable > 0
UNION ALL
SELECT k.run_id, p.combo_id, p.phase, 'read after a cache drop sent no READs',
       'the client cache answered ' || s.bytes || ' bytes (' || p.cache_drop || ')'
FROM phase_run p JOIN combo k ON k.combo_id = p.combo_id
JOIN rd ON rd.combo_id = p.combo_id AND rd.phase = p.phase
JOIN phase_summary s ON s.combo_id = p.combo_id AND s.phase = p.phase
WHERE p.phase IN ('read', 'reread', 'randread')
  AND p.cache_drop IN ('remount', 'remount+drop_caches', 'drop_caches') AND rd.reads = 0
  AND s.bytes > 0
UNION ALL
SELECT k.run_id, t.combo_id, t.phase, 'NFS major timeouts or retransmissions',
       COALESCE(t.timeouts, 0) || ' major timeouts, ' || COALESCE(t.retrans, 0) ||
       ' retransmissions (' || t.source || ')'
FROM t JOIN combo k ON k.combo_id = t.combo_id
WHERE t.timeouts > 0 OR t.retrans > 0
UNION ALL
SELECT run_id, combo_id, NULL, 'requested != effective',
       option || ': ' || COALESCE(requested, '(not asked)') || ' -> ' || COALESCE(effective, '?') ||
       COALESCE(' (' || note || ')', '') || ' on rank' ||
       CASE WHEN COUNT(*) > 1 THEN 's ' ELSE ' ' END || group_concat(rank, ',')
FROM option_override
GROUP BY run_id, combo_id, option, requested, effective, note;

-- The flags of each combination and phase in one line (the phase's own and
-- its combination's), for the report beside the phase's MB/s.
CREATE VIEW phase_flags AS
SELECT p.combo_id, p.phase, COUNT(*) AS flags,
       group_concat(f.flag || ': ' || f.detail, '; ') AS flag_text
FROM phase_run p JOIN rpc_flag f ON f.combo_id = p.combo_id AND (f.phase = p.phase OR f.phase IS NULL)
GROUP BY p.combo_id, p.phase;
