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
-- A phase with values of its own (a [phase] section) is compared only
-- with the same phase at the same values: one row per value it ran with,
-- which phase_block, phase_direct, phase_fsync, phase_rwmix, phase_runtime
-- and phase_ramp give (the values the phase ran with, its own or the
-- combination's).
--
-- Every sweep option is listed in `config` below (tests/mpi/t_analysis.sh
-- checks that none is missing).
WITH k AS (
	SELECT c.*,
	       json_array("block", "size", "threads", "direct", "fsync", "reorder", "bind", "data",
	                  "vers", "proto", "rsize", "wsize", "sync", "hard", "timeo", "retrans",
	                  "nconnect", "ac", "actimeo", "iodepth", "mount-opts", "files", "file-size",
	                  "fanout", "layout", "access", "rwmix", "runtime", "ramp", "stonewall",
	                  "rwsize", "set", "dir-mode", "depth", "server-threads",
	                  "server-export") AS config
	FROM combo c
	WHERE c.run_id IN (:run_a, :run_b)
), x AS (
	-- pconfig: with the values the phase ran with (a [phase] section's own):
	-- a phase is compared only with the same work
	SELECT k.config, k.run_id, p.phase, p.phase_order,
	       json_array(k.config, COALESCE(p.phase_block, k."block"),
	                  COALESCE(p.phase_direct, k."direct"), COALESCE(p.phase_fsync, k."fsync"),
	                  COALESCE(p.phase_rwmix, k."rwmix"), COALESCE(p.phase_runtime, k."runtime"),
	                  COALESCE(p.phase_ramp, k."ramp")) AS pconfig,
	       CASE WHEN p.status = 'ok' THEN CASE WHEN p.phase IN ('create', 'stat', 'readdir', 'open', 'remove', 'mkdir', 'dirstat', 'rmdir') THEN s.iops ELSE s.agg_mbps END END AS y
	FROM k
	JOIN phase_run p ON p.combo_id = k.combo_id
	LEFT JOIN phase_summary s ON s.combo_id = p.combo_id AND s.phase = p.phase
	WHERE :phase IS NULL OR p.phase = :phase
), g AS (
	SELECT config, pconfig, run_id, phase, phase_order,
	       COUNT(y) AS n, COUNT(*) - COUNT(y) AS failed, AVG(y) AS mbps,
	       CASE WHEN COUNT(y) > 1
	            THEN sqrt(MAX(0.0, (TOTAL(y * y) - TOTAL(y) * TOTAL(y) / COUNT(y)) / (COUNT(y) - 1))) END AS sd
	FROM x
	GROUP BY config, pconfig, run_id, phase
), shared AS (
	SELECT config FROM k WHERE run_id = :run_a
	INTERSECT
	SELECT config FROM k WHERE run_id = :run_b
), a_combo AS (
	-- A's first combination of each shared configuration, for its options
	SELECT k.* FROM k JOIN shared USING (config)
	WHERE k.run_id = :run_a AND k.seq = (SELECT MIN(seq) FROM k AS o WHERE o.run_id = :run_a AND o.config = k.config)
), ph AS (
	SELECT DISTINCT config, pconfig, phase, phase_order FROM g JOIN shared USING (config)
)
SELECT o.*, ph.phase, ph.phase_order,
       json_extract(ph.pconfig, '$[1]') AS phase_block, json_extract(ph.pconfig, '$[2]') AS phase_direct,
       json_extract(ph.pconfig, '$[3]') AS phase_fsync, json_extract(ph.pconfig, '$[4]') AS phase_rwmix,
       json_extract(ph.pconfig, '$[5]') AS phase_runtime, json_extract(ph.pconfig, '$[6]') AS phase_ramp,
       COALESCE(a.n, 0) AS a_n, a.mbps AS a_mbps, a.sd AS a_sd, COALESCE(a.failed, 0) AS a_failed,
       COALESCE(b.n, 0) AS b_n, b.mbps AS b_mbps, b.sd AS b_sd, COALESCE(b.failed, 0) AS b_failed,
       100.0 * (b.mbps - a.mbps) / NULLIF(a.mbps, 0) AS change_pct
FROM ph
JOIN a_combo o ON o.config = ph.config
LEFT JOIN g a ON a.pconfig = ph.pconfig AND a.phase = ph.phase AND a.run_id = :run_a
LEFT JOIN g b ON b.pconfig = ph.pconfig AND b.phase = ph.phase AND b.run_id = :run_b
ORDER BY ph.phase_order, o.matrix_index
