-- history.sql - every configuration across all runs over time: per
-- configuration (the same value of every sweep option), hosts and phase,
-- one row per run, beside the pooled figures of the earlier runs of that
-- configuration on the same hosts (same host names, same number of ranks).
--
-- Parameters:
--   :phase  one phase (NULL: every phase)
-- `stcluster history --where "rsize=1m AND sync='async'"` keeps the rows
-- whose columns match; in the sqlite3 shell, filter the same way:
--   SELECT * FROM (<this query>) WHERE rsize = 1048576 AND sync = 'async';
--
-- Columns: every sweep option (NULL when unset, sizes in bytes), then
--   config              the options as one JSON array (the key)
--   run_id, started_at, label, hosts (sorted, comma separated), ranks
--   phase, phase_order
--   n, mbps, sd_mbps    iterations without error, their mean aggregate
--                       MB/s (10^6 bytes/s) and standard deviation
--   failed              iterations with an error in this phase
--   prev_runs           earlier runs of the configuration on these hosts
--   prev_n, prev_mbps, prev_sd  their iterations pooled: count, mean, sd
--   change_pct          100 (mbps - prev_mbps) / prev_mbps
-- `stcluster history` adds the 95 % interval and the verdict (regression,
-- improvement, within noise).
--
-- Every sweep option is listed in `config` and in the output below
-- (tests/mpi/t_analysis.sh checks that none is missing).
WITH rc AS (
	-- every combination (`stcluster history --where` on sweep options only: those it selects)
	SELECT combo_id FROM combo
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
), hosts AS (
	SELECT run_id, group_concat(hostname, ',') AS hosts
	FROM (SELECT DISTINCT run_id, hostname FROM host ORDER BY run_id, hostname)
	GROUP BY run_id
), x AS (
	SELECT c.*,
	       json_array(c."block", c."size", c."threads", c."direct", c."fsync", c."reorder",
	                  c."bind", c."data", c."vers", c."proto", c."rsize", c."wsize", c."sync",
	                  c."hard", c."timeo", c."retrans", c."nconnect", c."ac", c."actimeo",
	                  c."iodepth", c."mount-opts") AS config,
	       r.started_at AS run_started_at, r.label, COALESCE(h.hosts, '') AS hosts, r.nranks AS ranks,
	       p.phase, p.phase_order,
	       CASE WHEN p.status = 'ok' THEN s.agg_mbps END AS y
	FROM combo c
	JOIN run r ON r.run_id = c.run_id
	LEFT JOIN hosts h ON h.run_id = c.run_id
	JOIN phase_run p ON p.combo_id = c.combo_id
	LEFT JOIN ps s ON s.combo_id = p.combo_id AND s.phase = p.phase
	WHERE :phase IS NULL OR p.phase = :phase
), g AS (
	-- one row per configuration, hosts, phase and run (the options are the
	-- same in every row of a group: bare columns are well defined)
	SELECT "block", "size", "threads", "direct", "fsync", "reorder", "bind", "data",
	       "vers", "proto", "rsize", "wsize", "sync", "hard", "timeo", "retrans",
	       "nconnect", "ac", "actimeo", "iodepth", "mount-opts",
	       config, run_id, run_started_at AS started_at, label, hosts, ranks, phase, phase_order,
	       COUNT(y) AS n, AVG(y) AS mbps, TOTAL(y) AS s1, TOTAL(y * y) AS s2,
	       COUNT(*) - COUNT(y) AS failed
	FROM x
	GROUP BY config, hosts, ranks, phase, run_id
), w AS (
	SELECT g.*,
	       COUNT(*) OVER prev AS prev_runs,
	       SUM(n) OVER prev AS prev_n,
	       SUM(s1) OVER prev AS prev_s1,
	       SUM(s2) OVER prev AS prev_s2
	FROM g
	WINDOW prev AS (PARTITION BY config, hosts, ranks, phase ORDER BY started_at, run_id
	                ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING)
)
SELECT "block", "size", "threads", "direct", "fsync", "reorder", "bind", "data",
       "vers", "proto", "rsize", "wsize", "sync", "hard", "timeo", "retrans",
       "nconnect", "ac", "actimeo", "iodepth", "mount-opts",
       config, run_id, started_at, label, hosts, ranks, phase, phase_order,
       n, mbps,
       CASE WHEN n > 1 THEN sqrt(MAX(0.0, (s2 - s1 * s1 / n) / (n - 1))) END AS sd_mbps,
       failed,
       prev_runs,
       COALESCE(prev_n, 0) AS prev_n,
       prev_s1 / NULLIF(prev_n, 0) AS prev_mbps,
       CASE WHEN prev_n > 1 THEN sqrt(MAX(0.0, (prev_s2 - prev_s1 * prev_s1 / prev_n) / (prev_n - 1))) END AS prev_sd,
       100.0 * (mbps - prev_s1 / NULLIF(prev_n, 0)) / NULLIF(prev_s1 / NULLIF(prev_n, 0), 0) AS change_pct
FROM w
ORDER BY config, hosts, ranks, phase_order, started_at, run_id
