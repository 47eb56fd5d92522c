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
-- error (its aggregate MB/s, 10^6 bytes/s; for the metadata phases create,
-- stat, open and remove its operations per second, in the same columns);
-- in a run of --search halving, of each combination only the runs of the
-- last stage it reached (its longest).
-- For a phase with grand mean m:
--   main rows (kind 'main'), one per option and level i:
--     mbps = m_i, the mean at that level; sd, min, max over its observations;
--     departure = m_i - m;  effect = max - min of m_i over the option's levels
--   interaction rows (kind 'interaction'), one per pair of options and cell:
--     mbps = m_ij, the mean of the observations at level i of A and j of B;
--     departure = m_ij - m_i - m_j + m, what the two main effects leave
--     unexplained; effect = max - min of the departures over the pair's cells
--     (for two levels each this is the textbook AB interaction effect)
--   effect_pct = 100 effect / m
--   client_cpu_pct, client_cpu_us_per_mb, server_cpu_pct, server_cpu_us_per_mb,
--   io_cpu_us_per_mb: the mean at that level (or cell) of the CPU the phase
--     cost (view phase_cpu): which knob costs the clients or the server CPU
--   effect is NULL when a phase has figures for only one level of the
--   option (or of either option of the pair): there is nothing to compare
-- A full matrix is balanced; when combinations failed, the departures are
-- those of the cells that remain.
-- Tied options are one factor: when each level of option B goes with one
-- level of option A in every combination of the run, A is left out (it is
-- B's factor under another name: rsize and wsize with --rwsize, the options
-- a --set gives beside set); of two that decide each other, the later in
-- the options table (rwsize, set) stays.
--
-- A phase with values of its own (a [phase] section of the plan: block,
-- direct, fsync, rwmix, runtime, ramp) is analysed with them: those arms
-- of `lv` are per combination and phase (view phase_value), the others
-- per combination (phase NULL: every phase of it).
--
-- Every sweep option is one arm of `lv` below (tests/mpi/t_analysis.sh
-- checks that none is missing); sizes read as 4k, 1m (binary units).
WITH r AS (
	SELECT COALESCE(:run, (SELECT run_id FROM run ORDER BY started_at DESC, rowid DESC LIMIT 1)) AS run_id
), y AS (
	SELECT s.combo_id, s.phase, s.phase_order,
	       CASE WHEN s.phase IN ('create', 'stat', 'readdir', 'open', 'remove', 'mkdir', 'dirstat', 'rmdir') THEN s.iops ELSE s.agg_mbps END AS y,
	       u.client_cpu_pct AS ccpu, u.client_cpu_us_per_mb AS ccpm, u.io_cpu_us_per_mb AS iocpm,
	       u.server_cpu_pct AS scpu, u.server_cpu_us_per_mb AS scpm
	FROM phase_summary s JOIN r ON r.run_id = s.run_id
	LEFT JOIN phase_cpu u ON u.combo_id = s.combo_id AND u.phase = s.phase
	WHERE s.status = 'ok' AND s.agg_mbps IS NOT NULL AND (:phase IS NULL OR s.phase = :phase)
	  -- --search halving: a combination's last stage only, its longest runs
	  -- (its shorter runs of the stages before are not the same measurement)
	  AND s.combo_id IN (SELECT k.combo_id FROM combo k JOIN r ON r.run_id = k.run_id
	                     WHERE k.stage IS NULL OR k.stage = (SELECT MAX(k2.stage) FROM combo k2
	                     WHERE k2.run_id = k.run_id AND k2.matrix_index = k.matrix_index))
), c AS (
	SELECT k.* FROM combo k JOIN r ON r.run_id = k.run_id
), pc AS (
	-- the options a phase may have of its own ([phase] sections): its
	-- values, one row per combination and phase (view phase_value)
	SELECT pv.* FROM phase_value pv JOIN c ON c.combo_id = pv.combo_id
), lv AS (
	SELECT combo_id, 1 AS ord, 'block' AS factor,
	       CASE WHEN "block" % 1099511627776 = 0 THEN ("block" / 1099511627776) || 't' WHEN "block" % 1073741824 = 0 THEN ("block" / 1073741824) || 'g' WHEN "block" % 1048576 = 0 THEN ("block" / 1048576) || 'm' WHEN "block" % 1024 = 0 THEN ("block" / 1024) || 'k' ELSE CAST("block" AS TEXT) END AS level, "block" AS level_key, phase AS phase FROM pc
	UNION ALL SELECT combo_id, 2, 'size', 
	       CASE WHEN "size" % 1099511627776 = 0 THEN ("size" / 1099511627776) || 't' WHEN "size" % 1073741824 = 0 THEN ("size" / 1073741824) || 'g' WHEN "size" % 1048576 = 0 THEN ("size" / 1048576) || 'm' WHEN "size" % 1024 = 0 THEN ("size" / 1024) || 'k' ELSE CAST("size" AS TEXT) END, "size", NULL FROM c
	UNION ALL SELECT combo_id, 3, 'threads', CAST("threads" AS TEXT), "threads", NULL FROM c
	UNION ALL SELECT combo_id, 4, 'direct', CAST("direct" AS TEXT), "direct", phase FROM pc
	UNION ALL SELECT combo_id, 5, 'fsync', CAST("fsync" AS TEXT), "fsync", phase FROM pc
	UNION ALL SELECT combo_id, 6, 'reorder', CAST("reorder" AS TEXT), "reorder", NULL FROM c
	UNION ALL SELECT combo_id, 7, 'bind', CAST("bind" AS TEXT), "bind", NULL FROM c
	UNION ALL SELECT combo_id, 8, 'data', CAST("data" AS TEXT), "data", NULL FROM c
	UNION ALL SELECT combo_id, 9, 'vers', CAST("vers" AS TEXT), "vers", NULL FROM c
	UNION ALL SELECT combo_id, 10, 'proto', CAST("proto" AS TEXT), "proto", NULL FROM c
	UNION ALL SELECT combo_id, 11, 'rsize', 
	       CASE WHEN "rsize" % 1099511627776 = 0 THEN ("rsize" / 1099511627776) || 't' WHEN "rsize" % 1073741824 = 0 THEN ("rsize" / 1073741824) || 'g' WHEN "rsize" % 1048576 = 0 THEN ("rsize" / 1048576) || 'm' WHEN "rsize" % 1024 = 0 THEN ("rsize" / 1024) || 'k' ELSE CAST("rsize" AS TEXT) END, "rsize", NULL FROM c
	UNION ALL SELECT combo_id, 12, 'wsize', 
	       CASE WHEN "wsize" % 1099511627776 = 0 THEN ("wsize" / 1099511627776) || 't' WHEN "wsize" % 1073741824 = 0 THEN ("wsize" / 1073741824) || 'g' WHEN "wsize" % 1048576 = 0 THEN ("wsize" / 1048576) || 'm' WHEN "wsize" % 1024 = 0 THEN ("wsize" / 1024) || 'k' ELSE CAST("wsize" AS TEXT) END, "wsize", NULL FROM c
	UNION ALL SELECT combo_id, 13, 'sync', CAST("sync" AS TEXT), "sync", NULL FROM c
	UNION ALL SELECT combo_id, 14, 'hard', CAST("hard" AS TEXT), "hard", NULL FROM c
	UNION ALL SELECT combo_id, 15, 'timeo', CAST("timeo" AS TEXT), "timeo", NULL FROM c
	UNION ALL SELECT combo_id, 16, 'retrans', CAST("retrans" AS TEXT), "retrans", NULL FROM c
	UNION ALL SELECT combo_id, 17, 'nconnect', CAST("nconnect" AS TEXT), "nconnect", NULL FROM c
	UNION ALL SELECT combo_id, 18, 'ac', CAST("ac" AS TEXT), "ac", NULL FROM c
	UNION ALL SELECT combo_id, 19, 'actimeo', CAST("actimeo" AS TEXT), "actimeo", NULL FROM c
	UNION ALL SELECT combo_id, 20, 'iodepth', CAST("iodepth" AS TEXT), "iodepth", NULL FROM c
	UNION ALL SELECT combo_id, 21, 'mount-opts', CAST("mount-opts" AS TEXT), "mount-opts", NULL FROM c
	UNION ALL SELECT combo_id, 22, 'files', CAST("files" AS TEXT), "files", NULL FROM c
	UNION ALL SELECT combo_id, 23, 'file-size', 
	       CASE WHEN "file-size" % 1099511627776 = 0 THEN ("file-size" / 1099511627776) || 't' WHEN "file-size" % 1073741824 = 0 THEN ("file-size" / 1073741824) || 'g' WHEN "file-size" % 1048576 = 0 THEN ("file-size" / 1048576) || 'm' WHEN "file-size" % 1024 = 0 THEN ("file-size" / 1024) || 'k' ELSE CAST("file-size" AS TEXT) END, "file-size", NULL FROM c
	UNION ALL SELECT combo_id, 24, 'fanout', CAST("fanout" AS TEXT), "fanout", NULL FROM c
	UNION ALL SELECT combo_id, 25, 'layout', CAST("layout" AS TEXT), "layout", NULL FROM c
	UNION ALL SELECT combo_id, 26, 'access', CAST("access" AS TEXT), "access", NULL FROM c
	UNION ALL SELECT combo_id, 27, 'rwmix', CAST("rwmix" AS TEXT), "rwmix", phase FROM pc
	UNION ALL SELECT combo_id, 28, 'runtime', 
	       CASE WHEN "runtime" % 1000000000 = 0 THEN ("runtime" / 1000000000) || 's' WHEN "runtime" % 1000000 = 0 THEN ("runtime" / 1000000) || 'ms' ELSE CAST("runtime" AS TEXT) || 'ns' END, "runtime", phase FROM pc
	UNION ALL SELECT combo_id, 29, 'ramp', 
	       CASE WHEN "ramp" % 1000000000 = 0 THEN ("ramp" / 1000000000) || 's' WHEN "ramp" % 1000000 = 0 THEN ("ramp" / 1000000) || 'ms' ELSE CAST("ramp" AS TEXT) || 'ns' END, "ramp", phase FROM pc
	UNION ALL SELECT combo_id, 30, 'stonewall', CAST("stonewall" AS TEXT), "stonewall", NULL FROM c
	UNION ALL SELECT combo_id, 31, 'rwsize', 
	       CASE WHEN "rwsize" % 1099511627776 = 0 THEN ("rwsize" / 1099511627776) || 't' WHEN "rwsize" % 1073741824 = 0 THEN ("rwsize" / 1073741824) || 'g' WHEN "rwsize" % 1048576 = 0 THEN ("rwsize" / 1048576) || 'm' WHEN "rwsize" % 1024 = 0 THEN ("rwsize" / 1024) || 'k' ELSE CAST("rwsize" AS TEXT) END, "rwsize", NULL FROM c
	UNION ALL SELECT combo_id, 32, 'set', CAST("set" AS TEXT), "set", NULL FROM c
	UNION ALL SELECT combo_id, 33, 'dir-mode', CAST("dir-mode" AS TEXT), "dir-mode", NULL FROM c
	UNION ALL SELECT combo_id, 34, 'depth', CAST("depth" AS TEXT), "depth", NULL FROM c
	UNION ALL SELECT combo_id, 35, 'server-threads', CAST("server-threads" AS TEXT), "server-threads", NULL FROM c
	UNION ALL SELECT combo_id, 36, 'server-export', CAST("server-export" AS TEXT), "server-export", NULL FROM c
), v AS (
	-- the options that vary in the run
	SELECT factor, MIN(ord) AS ord, COUNT(DISTINCT quote(level_key)) AS nl
	FROM lv GROUP BY factor HAVING nl > 1
), dep AS (
	-- fb decides fa when each level of fb goes with one level of fa
	SELECT a.factor AS fa, b.factor AS fb,
	       COUNT(DISTINCT quote(a.level_key) || ' ' || quote(b.level_key)) AS npair
	FROM lv a JOIN lv b ON b.combo_id = a.combo_id AND b.factor <> a.factor
	     AND (a.phase IS NULL OR b.phase IS NULL OR a.phase = b.phase)
	WHERE a.factor IN (SELECT factor FROM v) AND b.factor IN (SELECT factor FROM v)
	GROUP BY a.factor, b.factor
), f AS (
	-- one factor per tied dimension: an option another decides is left out
	-- (rsize and wsize when rwsize gives them, a set's keys beside set);
	-- of two that decide each other, the later in the options table stays
	SELECT va.factor FROM v va WHERE NOT EXISTS (
		SELECT 1 FROM dep d
		JOIN v vb ON vb.factor = d.fb
		JOIN dep r ON r.fa = d.fb AND r.fb = d.fa
		WHERE d.fa = va.factor AND d.npair = vb.nl AND (r.npair <> va.nl OR vb.ord > va.ord))
), l AS (
	SELECT lv.* FROM lv JOIN f USING (factor)
), grand AS (
	SELECT phase, AVG(y) AS m FROM y GROUP BY phase
), main AS (
	SELECT y.phase, MIN(y.phase_order) AS phase_order, l.ord, l.factor, l.level, l.level_key,
	       COUNT(*) AS n, AVG(y.y) AS mbps,
	       CASE WHEN COUNT(*) > 1
	            THEN sqrt(MAX(0.0, (TOTAL(y.y * y.y) - TOTAL(y.y) * TOTAL(y.y) / COUNT(*)) / (COUNT(*) - 1))) END AS sd,
	       AVG(y.ccpu) AS client_cpu_pct, AVG(y.ccpm) AS client_cpu_us_per_mb,
	       AVG(y.iocpm) AS io_cpu_us_per_mb,
	       AVG(y.scpu) AS server_cpu_pct, AVG(y.scpm) AS server_cpu_us_per_mb,
	       MIN(y.y) AS lo, MAX(y.y) AS hi
	FROM y JOIN l ON l.combo_id = y.combo_id AND (l.phase IS NULL OR l.phase = y.phase)
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
	       AVG(y.ccpu) AS client_cpu_pct, AVG(y.ccpm) AS client_cpu_us_per_mb,
	       AVG(y.iocpm) AS io_cpu_us_per_mb,
	       AVG(y.scpu) AS server_cpu_pct, AVG(y.scpm) AS server_cpu_us_per_mb,
	       MIN(y.y) AS lo, MAX(y.y) AS hi
	FROM y
	JOIN l a ON a.combo_id = y.combo_id AND (a.phase IS NULL OR a.phase = y.phase)
	JOIN l b ON b.combo_id = y.combo_id AND b.ord > a.ord AND (b.phase IS NULL OR b.phase = y.phase)
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
       NULL AS ord_b, NULL AS factor_b, NULL AS level_b, NULL AS key_b,
       client_cpu_pct, client_cpu_us_per_mb, server_cpu_pct, server_cpu_us_per_mb, io_cpu_us_per_mb
FROM mainx
UNION ALL
SELECT phase, 'interaction', factor_a || ' x ' || factor_b, level_a || ' x ' || level_b, n, mbps, sd, lo, hi,
       departure, effect, 100.0 * effect / NULLIF(m, 0),
       phase_order, ord_a, factor_a, level_a, key_a, ord_b, factor_b, level_b, key_b,
       client_cpu_pct, client_cpu_us_per_mb, server_cpu_pct, server_cpu_us_per_mb, io_cpu_us_per_mb
FROM cellw
)
SELECT * FROM out
ORDER BY phase_order, kind = 'interaction', effect DESC, ord_a, ord_b, key_a, key_b
