-- compare.sql - two runs side by side: every combination both ran (the
-- same value of every sweep option), per phase, with the mean, sample
-- standard deviation and count of each run's iterations.
--
-- Parameters:
--   :run_a, :run_b  run ids (A is the reference, B is compared with it)
--   :phase          one phase (NULL: every phase)
-- In the sqlite3 shell:  .param set :run_a "'<id>'"  .param set :run_b "'<id>'"
--                        .read sql/queries/compare.sql
--
-- Columns: every column of combo for A's combination (sweep options, NULL
-- when unset, sizes in bytes), then
--   config              the combination's options as one JSON array (the key)
--   phase, phase_order
--   a_n, a_mbps, a_sd, a_failed   A: iterations without error, their mean
--                       aggregate MB/s and standard deviation, iterations with error
--   b_n, b_mbps, b_sd, b_failed   the same for B
--   change_pct          100 (b_mbps - a_mbps) / a_mbps
-- `stcluster compare` adds the 95 % intervals, Welch's p and the verdict.
--
-- Every sweep option is listed in `config` below (tests/mpi/t_analysis.sh
-- checks that none is missing).
WITH rc AS (
	SELECT combo_id FROM combo WHERE run_id IN (:run_a, :run_b)
),
-- ps:" on
-- (tests/mpi/t_store_scale.sh checks both).
-- ps: phase_summary and verdict of the combinations in rc (sql/run_views.sql)
ps_c AS (
	SELECT r.combo_id, r.phase, r.nthreads, r.bytes, r.ops, r.start_ns, r.end_ns, r.err_count,
	       r.cpu_user_us, r.cpu_sys_us, r.direct_fallback, r.deadline_hit,
	       CASE WHEN r.end_ns > r.start_ns
	            THEN r.bytes * 1000.0 / (r.end_ns - r.start_ns) END AS mbps
	FROM rc JOIN rank_result r ON r.combo_id = rc.combo_id
	WHERE r.role = 'client'
), ps_g AS (
	SELECT combo_id, phase,
	       COUNT(*) AS clients, SUM(nthreads) AS threads,
	       SUM(bytes) AS bytes, SUM(ops) AS ops,
	       MIN(start_ns) AS start_ns, MAX(end_ns) AS end_ns, MIN(end_ns) AS first_end_ns,
	       MIN(mbps) AS min_client_mbps, MAX(mbps) AS max_client_mbps,
	       AVG(mbps) AS mean_client_mbps,
	       SUM(mbps) AS sum_mbps, SUM(mbps * mbps) AS sum_mbps2, COUNT(mbps) AS n_mbps,
	       SUM(err_count) AS errors, SUM(cpu_user_us + cpu_sys_us) AS cpu_us,
	       MAX(direct_fallback) AS direct_fallback, MAX(deadline_hit) AS deadline_hit
	FROM ps_c GROUP BY combo_id, phase
), ps_fd AS (
	SELECT c.combo_id, c.phase,
	       SUM(c.bytes * MAX(0.0, MIN(1.0, (g.first_end_ns - c.start_ns) * 1.0 /
	                                  NULLIF(c.end_ns - c.start_ns, 0)))) AS bytes_at_first
	FROM ps_c c JOIN ps_g g USING (combo_id, phase)
	GROUP BY c.combo_id, c.phase
), ps AS (
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
	       g.errors, g.cpu_us, g.direct_fallback, g.deadline_hit
	FROM ps_g g
	JOIN ps_fd fd USING (combo_id, phase)
	JOIN combo k ON k.combo_id = g.combo_id
	LEFT JOIN phase_run p ON p.combo_id = g.combo_id AND p.phase = g.phase
), vd_b AS (
	SELECT run_id,
	       SUM(CASE WHEN kind = 'net_all' AND direction = 'c2s' THEN mbps END) AS net_c2s,
	       SUM(CASE WHEN kind = 'net_all' AND direction = 's2c' THEN mbps END) AS net_s2c,
	       SUM(CASE WHEN kind = 'disk' AND direction = 'write' THEN mbps END) AS disk_write,
	       SUM(CASE WHEN kind = 'disk' AND direction = 'read' THEN mbps END) AS disk_read
	FROM baseline WHERE run_id IN (SELECT DISTINCT run_id FROM combo JOIN rc USING (combo_id))
	GROUP BY run_id
), vd_x AS (
	SELECT s.run_id, s.combo_id, s.phase, s.agg_mbps,
	       CASE WHEN s.phase IN ('write', 'rewrite', 'randwrite') THEN b.net_c2s ELSE b.net_s2c END AS net_mbps,
	       CASE WHEN s.phase IN ('write', 'rewrite', 'randwrite') THEN b.disk_write ELSE b.disk_read END AS disk_mbps
	FROM ps s JOIN vd_b b USING (run_id)
), vd_y AS (
	SELECT vd_x.*, CASE WHEN disk_mbps IS NULL OR net_mbps <= disk_mbps THEN net_mbps ELSE disk_mbps END AS limit_mbps,
	       CASE WHEN disk_mbps IS NULL OR net_mbps <= disk_mbps THEN 'network' ELSE 'disk' END AS limit_part
	FROM vd_x
), vd AS (
	SELECT run_id, combo_id, phase, agg_mbps, net_mbps, disk_mbps, limit_mbps, limit_part,
	       100.0 * agg_mbps / NULLIF(limit_mbps, 0) AS pct_of_limit,
	       CASE
	         WHEN limit_mbps IS NULL THEN NULL
	         WHEN net_mbps IS NOT NULL AND agg_mbps > 1.05 * net_mbps THEN 'cache: above the network rate'
	         WHEN disk_mbps IS NOT NULL AND agg_mbps > 1.05 * disk_mbps THEN 'cache: above the disk rate'
	         WHEN agg_mbps >= 0.85 * limit_mbps THEN limit_part || '-bound'
	         ELSE 'below the parts: NFS or client'
	       END AS verdict
	FROM vd_y
), k AS (
	SELECT c.*,
	       json_array("block", "size", "threads", "direct", "fsync", "reorder", "bind", "data",
	                  "vers", "proto", "rsize", "wsize", "sync", "hard", "timeo", "retrans",
	                  "nconnect", "ac", "actimeo", "iodepth", "mount-opts") AS config
	FROM combo c
	WHERE c.run_id IN (:run_a, :run_b)
), x AS (
	SELECT k.config, k.run_id, p.phase, p.phase_order,
	       CASE WHEN p.status = 'ok' THEN s.agg_mbps END AS y
	FROM k
	JOIN phase_run p ON p.combo_id = k.combo_id
	LEFT JOIN ps s ON s.combo_id = p.combo_id AND s.phase = p.phase
	WHERE :phase IS NULL OR p.phase = :phase
), g AS (
	SELECT config, run_id, phase, phase_order,
	       COUNT(y) AS n, COUNT(*) - COUNT(y) AS failed, AVG(y) AS mbps,
	       CASE WHEN COUNT(y) > 1
	            THEN sqrt(MAX(0.0, (TOTAL(y * y) - TOTAL(y) * TOTAL(y) / COUNT(y)) / (COUNT(y) - 1))) END AS sd
	FROM x
	GROUP BY config, run_id, phase
), shared AS (
	SELECT config FROM k WHERE run_id = :run_a
	INTERSECT
	SELECT config FROM k WHERE run_id = :run_b
), a_combo AS (
	-- A's first combination of each shared configuration, for its options
	SELECT k.* FROM k JOIN shared USING (config)
	WHERE k.run_id = :run_a AND k.seq = (SELECT MIN(seq) FROM k AS o WHERE o.run_id = :run_a AND o.config = k.config)
), ph AS (
	SELECT DISTINCT config, phase, phase_order FROM g JOIN shared USING (config)
)
SELECT o.*, ph.phase, ph.phase_order,
       COALESCE(a.n, 0) AS a_n, a.mbps AS a_mbps, a.sd AS a_sd, COALESCE(a.failed, 0) AS a_failed,
       COALESCE(b.n, 0) AS b_n, b.mbps AS b_mbps, b.sd AS b_sd, COALESCE(b.failed, 0) AS b_failed,
       100.0 * (b.mbps - a.mbps) / NULLIF(a.mbps, 0) AS change_pct
FROM ph
JOIN a_combo o ON o.config = ph.config
LEFT JOIN g a ON a.config = ph.config AND a.phase = ph.phase AND a.run_id = :run_a
LEFT JOIN g b ON b.config = ph.config AND b.phase = ph.phase AND b.run_id = :run_b
ORDER BY ph.phase_order, o.matrix_index
