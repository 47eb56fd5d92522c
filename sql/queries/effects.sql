-- effects.sql - which knob matters, and which pairs of knobs interact:
-- main effects (the mean aggregate MB/s at each level of every option that
-- varies in the run, with its spread) and two-way interactions, per phase.
--
-- Parameters:
--   :run    run id (NULL: the last run)
--   :phase  one phase (NULL: every phase)
-- In the sqlite3 shell:  .param set :run "'<run id>'"   .read sql/queries/effects.sql
--
-- Observations: one per combination, iteration and phase that ran without
-- error (its aggregate MB/s, 10^6 bytes/s). For a phase with grand mean m:
--   main rows (kind 'main'), one per option and level i:
--     mbps = m_i, the mean at that level; sd, min, max over its observations;
--     departure = m_i - m;  effect = max - min of m_i over the option's levels
--   interaction rows (kind 'interaction'), one per pair of options and cell:
--     mbps = m_ij, the mean of the observations at level i of A and j of B;
--     departure = m_ij - m_i - m_j + m, what the two main effects leave
--     unexplained; effect = max - min of the departures over the pair's cells
--     (for two levels each this is the textbook AB interaction effect)
--   effect_pct = 100 effect / m
--   effect is NULL when a phase has figures for only one level of the
--   option (or of either option of the pair): there is nothing to compare
-- A full matrix is balanced; when combinations failed, the departures are
-- those of the cells that remain.
--
-- Every sweep option is one arm of `lv` below (tests/mpi/t_analysis.sh
-- checks that none is missing); sizes read as 4k, 1m (binary units).
WITH r AS (
	SELECT COALESCE(:run, (SELECT run_id FROM run ORDER BY started_at DESC, rowid DESC LIMIT 1)) AS run_id
), rc AS (
	SELECT k.combo_id FROM combo k JOIN r ON r.run_id = k.run_id
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
), y AS (
	SELECT s.combo_id, s.phase, s.phase_order, s.agg_mbps AS y
	FROM ps s JOIN r ON r.run_id = s.run_id
	WHERE s.status = 'ok' AND s.agg_mbps IS NOT NULL AND (:phase IS NULL OR s.phase = :phase)
), c AS (
	SELECT k.* FROM combo k JOIN r ON r.run_id = k.run_id
), lv AS (
	SELECT combo_id, 1 AS ord, 'block' AS factor,
	       CASE WHEN "block" % 1099511627776 = 0 THEN ("block" / 1099511627776) || 't' WHEN "block" % 1073741824 = 0 THEN ("block" / 1073741824) || 'g' WHEN "block" % 1048576 = 0 THEN ("block" / 1048576) || 'm' WHEN "block" % 1024 = 0 THEN ("block" / 1024) || 'k' ELSE CAST("block" AS TEXT) END AS level, "block" AS level_key FROM c
	UNION ALL SELECT combo_id, 2, 'size', 
	       CASE WHEN "size" % 1099511627776 = 0 THEN ("size" / 1099511627776) || 't' WHEN "size" % 1073741824 = 0 THEN ("size" / 1073741824) || 'g' WHEN "size" % 1048576 = 0 THEN ("size" / 1048576) || 'm' WHEN "size" % 1024 = 0 THEN ("size" / 1024) || 'k' ELSE CAST("size" AS TEXT) END, "size" FROM c
	UNION ALL SELECT combo_id, 3, 'threads', CAST("threads" AS TEXT), "threads" FROM c
	UNION ALL SELECT combo_id, 4, 'direct', CAST("direct" AS TEXT), "direct" FROM c
	UNION ALL SELECT combo_id, 5, 'fsync', CAST("fsync" AS TEXT), "fsync" FROM c
	UNION ALL SELECT combo_id, 6, 'reorder', CAST("reorder" AS TEXT), "reorder" FROM c
	UNION ALL SELECT combo_id, 7, 'bind', CAST("bind" AS TEXT), "bind" FROM c
	UNION ALL SELECT combo_id, 8, 'data', CAST("data" AS TEXT), "data" FROM c
	UNION ALL SELECT combo_id, 9, 'vers', CAST("vers" AS TEXT), "vers" FROM c
	UNION ALL SELECT combo_id, 10, 'proto', CAST("proto" AS TEXT), "proto" FROM c
	UNION ALL SELECT combo_id, 11, 'rsize', 
	       CASE WHEN "rsize" % 1099511627776 = 0 THEN ("rsize" / 1099511627776) || 't' WHEN "rsize" % 1073741824 = 0 THEN ("rsize" / 1073741824) || 'g' WHEN "rsize" % 1048576 = 0 THEN ("rsize" / 1048576) || 'm' WHEN "rsize" % 1024 = 0 THEN ("rsize" / 1024) || 'k' ELSE CAST("rsize" AS TEXT) END, "rsize" FROM c
	UNION ALL SELECT combo_id, 12, 'wsize', 
	       CASE WHEN "wsize" % 1099511627776 = 0 THEN ("wsize" / 1099511627776) || 't' WHEN "wsize" % 1073741824 = 0 THEN ("wsize" / 1073741824) || 'g' WHEN "wsize" % 1048576 = 0 THEN ("wsize" / 1048576) || 'm' WHEN "wsize" % 1024 = 0 THEN ("wsize" / 1024) || 'k' ELSE CAST("wsize" AS TEXT) END, "wsize" FROM c
	UNION ALL SELECT combo_id, 13, 'sync', CAST("sync" AS TEXT), "sync" FROM c
	UNION ALL SELECT combo_id, 14, 'hard', CAST("hard" AS TEXT), "hard" FROM c
	UNION ALL SELECT combo_id, 15, 'timeo', CAST("timeo" AS TEXT), "timeo" FROM c
	UNION ALL SELECT combo_id, 16, 'retrans', CAST("retrans" AS TEXT), "retrans" FROM c
	UNION ALL SELECT combo_id, 17, 'nconnect', CAST("nconnect" AS TEXT), "nconnect" FROM c
	UNION ALL SELECT combo_id, 18, 'ac', CAST("ac" AS TEXT), "ac" FROM c
	UNION ALL SELECT combo_id, 19, 'actimeo', CAST("actimeo" AS TEXT), "actimeo" FROM c
	UNION ALL SELECT combo_id, 20, 'iodepth', CAST("iodepth" AS TEXT), "iodepth" FROM c
	UNION ALL SELECT combo_id, 21, 'mount-opts', CAST("mount-opts" AS TEXT), "mount-opts" FROM c
), f AS (
	-- the options that vary in the run
	SELECT factor FROM lv GROUP BY factor HAVING COUNT(DISTINCT quote(level_key)) > 1
), l AS (
	SELECT lv.* FROM lv JOIN f USING (factor)
), grand AS (
	SELECT phase, AVG(y) AS m FROM y GROUP BY phase
), main AS (
	SELECT y.phase, MIN(y.phase_order) AS phase_order, l.ord, l.factor, l.level, l.level_key,
	       COUNT(*) AS n, AVG(y.y) AS mbps,
	       CASE WHEN COUNT(*) > 1
	            THEN sqrt(MAX(0.0, (TOTAL(y.y * y.y) - TOTAL(y.y) * TOTAL(y.y) / COUNT(*)) / (COUNT(*) - 1))) END AS sd,
	       MIN(y.y) AS lo, MAX(y.y) AS hi
	FROM y JOIN l ON l.combo_id = y.combo_id
	GROUP BY y.phase, l.factor, l.level_key
), mainx AS (
	SELECT main.*, main.mbps - grand.m AS departure,
	       CASE WHEN COUNT(*) OVER w > 1 THEN MAX(main.mbps) OVER w - MIN(main.mbps) OVER w END AS effect,
	       grand.m AS m
	FROM main JOIN grand USING (phase)
	WINDOW w AS (PARTITION BY main.phase, main.factor)
), cell AS (
	SELECT y.phase, MIN(y.phase_order) AS phase_order,
	       a.ord AS ord_a, a.factor AS factor_a, a.level AS level_a, a.level_key AS key_a,
	       b.ord AS ord_b, b.factor AS factor_b, b.level AS level_b, b.level_key AS key_b,
	       COUNT(*) AS n, AVG(y.y) AS mbps,
	       CASE WHEN COUNT(*) > 1
	            THEN sqrt(MAX(0.0, (TOTAL(y.y * y.y) - TOTAL(y.y) * TOTAL(y.y) / COUNT(*)) / (COUNT(*) - 1))) END AS sd,
	       MIN(y.y) AS lo, MAX(y.y) AS hi
	FROM y
	JOIN l a ON a.combo_id = y.combo_id
	JOIN l b ON b.combo_id = y.combo_id AND b.ord > a.ord
	GROUP BY y.phase, a.factor, a.level_key, b.factor, b.level_key
), cellx AS (
	SELECT cell.*, cell.mbps - ma.mbps - mb.mbps + g.m AS departure, g.m AS m
	FROM cell
	JOIN grand g ON g.phase = cell.phase
	JOIN main ma ON ma.phase = cell.phase AND ma.factor = cell.factor_a AND ma.level_key IS cell.key_a
	JOIN main mb ON mb.phase = cell.phase AND mb.factor = cell.factor_b AND mb.level_key IS cell.key_b
), pair AS (
	SELECT phase, factor_a, factor_b, COUNT(DISTINCT quote(key_a)) AS na, COUNT(DISTINCT quote(key_b)) AS nb
	FROM cellx GROUP BY phase, factor_a, factor_b
), cellw AS (
	SELECT cellx.*,
	       CASE WHEN pair.na > 1 AND pair.nb > 1
	            THEN MAX(departure) OVER w - MIN(departure) OVER w END AS effect
	FROM cellx JOIN pair USING (phase, factor_a, factor_b)
	WINDOW w AS (PARTITION BY cellx.phase, cellx.factor_a, cellx.factor_b)
), out AS (
SELECT phase, 'main' AS kind, factor, level, n, mbps, sd AS sd_mbps, lo AS min_mbps, hi AS max_mbps,
       departure, effect, 100.0 * effect / NULLIF(m, 0) AS effect_pct,
       phase_order, ord AS ord_a, factor AS factor_a, level AS level_a, level_key AS key_a,
       NULL AS ord_b, NULL AS factor_b, NULL AS level_b, NULL AS key_b
FROM mainx
UNION ALL
SELECT phase, 'interaction', factor_a || ' x ' || factor_b, level_a || ' x ' || level_b, n, mbps, sd, lo, hi,
       departure, effect, 100.0 * effect / NULLIF(m, 0),
       phase_order, ord_a, factor_a, level_a, key_a, ord_b, factor_b, level_b, key_b
FROM cellw
)
SELECT * FROM out
ORDER BY phase_order, kind = 'interaction', effect DESC, ord_a, ord_b, key_a, key_b
