-- run_views.sql - the views phase_summary and verdict (views.sql) for some
-- combinations only, as common table expressions: ps (the columns of
-- phase_summary) and vd (the columns of verdict), computed from the rows of
-- the combinations in a CTE rc (combo_id) that the query defines first:
--   WITH rc AS (SELECT combo_id FROM combo WHERE run_id = :run), <this text>
--   SELECT ... FROM ps ...
-- A view aggregates every run ever stored before a WHERE can filter it
-- (SQLite pushes no join or run filter into its GROUP BY); these aggregate the
-- rows of the runs named only, so a per-run command costs what the run holds
-- however long the store's history. The same formulas as views.sql, the same
-- figures: report.c prepends this text to its statement, and top.sql,
-- effects.sql and compare.sql carry it verbatim from the line "-- ps:" on
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
)
