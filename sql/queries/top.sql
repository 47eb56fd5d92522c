-- top.sql - the best combinations of one run: per phase, one row per
-- combination (its iterations averaged), best first. The table admins
-- build by hand: options, bytes, time, aggregate MB/s, slowest and fastest
-- client, verdict.
--
-- Parameters (NULL when not set):
--   :run    run id (NULL: the last run)
--   :phase  write, rewrite, read, reread, randread or randwrite (NULL: every phase)
--   :top    rows per phase (NULL: all)
-- In the sqlite3 shell:  .param set :run "'<run id>'"   .param set :top 5
--                        .read sql/queries/top.sql
--
-- Columns: every column of combo (one per sweep option, NULL when unset,
-- sizes in bytes; `stcluster report --top N` shows those that vary), then
--   phase, phase_order  the phase and its place in the iozone order
--   iterations, n       iterations stored, and those without error
--   bytes, time_s       bytes moved by all clients, seconds (means)
--   mbps, sd_mbps       aggregate MB/s (10^6 bytes/s): mean and sample
--                       standard deviation over the n iterations
--   min_client_mbps, max_client_mbps  slowest and fastest client seen
--   clients             client ranks
--   pct_of_limit        aggregate as % of the slower part measured alone
--   verdict             the bottleneck (view verdict), or the error
--   place               1 = best of its phase
-- Phases with errors count in `iterations`, not in the figures.
WITH r AS (
	SELECT COALESCE(:run, (SELECT run_id FROM run ORDER BY started_at DESC, rowid DESC LIMIT 1)) AS run_id
), rc AS (
	SELECT c.combo_id FROM combo c JOIN r ON r.run_id = c.run_id
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
), x AS (
	SELECT c.*, p.phase, p.phase_order, p.status AS phase_status, p.message AS phase_message,
	       s.clients AS x_clients,
	       CASE WHEN p.status = 'ok' THEN s.bytes END AS x_bytes,
	       CASE WHEN p.status = 'ok' THEN s.span_ns END AS x_span_ns,
	       CASE WHEN p.status = 'ok' THEN s.agg_mbps END AS x_mbps,
	       CASE WHEN p.status = 'ok' THEN s.min_client_mbps END AS x_min,
	       CASE WHEN p.status = 'ok' THEN s.max_client_mbps END AS x_max,
	       CASE WHEN p.status = 'ok' THEN v.pct_of_limit END AS x_pct,
	       CASE WHEN p.status = 'ok' THEN v.verdict END AS x_verdict
	FROM combo c
	JOIN r ON r.run_id = c.run_id
	JOIN phase_run p ON p.combo_id = c.combo_id
	LEFT JOIN ps s ON s.combo_id = p.combo_id AND s.phase = p.phase
	LEFT JOIN vd v ON v.combo_id = p.combo_id AND v.phase = p.phase
	WHERE :phase IS NULL OR p.phase = :phase
), g AS (
	-- one row per combination and phase; its options are the same in
	-- every iteration, so the bare columns of x are well defined
	SELECT x.*,
	       COUNT(*) AS iterations,
	       COUNT(x_mbps) AS n,
	       CAST(ROUND(AVG(x_bytes)) AS INTEGER) AS bytes,
	       AVG(x_span_ns) / 1e9 AS time_s,
	       AVG(x_mbps) AS mbps,
	       CASE WHEN COUNT(x_mbps) > 1
	            THEN sqrt(MAX(0.0, (TOTAL(x_mbps * x_mbps) - TOTAL(x_mbps) * TOTAL(x_mbps) / COUNT(x_mbps))
	                               / (COUNT(x_mbps) - 1))) END AS sd_mbps,
	       MIN(x_min) AS min_client_mbps,
	       MAX(x_max) AS max_client_mbps,
	       MAX(x_clients) AS clients,
	       AVG(x_pct) AS pct_of_limit,
	       CASE WHEN COUNT(x_mbps) < COUNT(*)
	            THEN 'error in ' || (COUNT(*) - COUNT(x_mbps)) || ' of ' || COUNT(*) || ': ' ||
	                 MAX(phase_message)
	            ELSE MAX(x_verdict) END AS verdict
	FROM x
	GROUP BY matrix_index, phase
), ranked AS (
	SELECT g.*, ROW_NUMBER() OVER (PARTITION BY phase ORDER BY mbps DESC NULLS LAST, matrix_index) AS place
	FROM g
)
SELECT * FROM ranked
WHERE :top IS NULL OR place <= :top
ORDER BY phase_order, place
