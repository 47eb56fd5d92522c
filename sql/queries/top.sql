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
--   meta                1: a metadata phase (mbps is its operations per second)
--   min_client_ops, max_client_ops  its slowest and fastest client's ops/s
--   clients             client ranks
--   pct_of_limit        aggregate as % of the slower part measured alone
--   client_cpu_pct, client_cpu_us_per_mb  client processes' CPU: % of one
--                       CPU per client rank over the phase, and us per MB
--   io_cpu_us_per_mb    of it, the I/O threads' own, us per MB (view phase_cpu)
--   server_cpu_pct, server_cpu_us_per_mb  the server hosts' CPUs busy: % of
--                       all their CPUs, and us per MB (view phase_cpu)
--   verdict             the bottleneck (view verdict), or the error
--   place               1 = best of its phase
--   phase_block, ... phase_ramp  the phase's own values (a [phase] section of the
--                       plan: phase_run's), NULL where the combination's apply
-- Phases with errors count in `iterations`, not in the figures. A run of
-- --search halving: each combination's runs of its last stage only.
WITH r AS (
	SELECT COALESCE(:run, (SELECT run_id FROM run ORDER BY started_at DESC, rowid DESC LIMIT 1)) AS run_id
), x AS (
	SELECT c.*, p.phase, p.phase_order, p.status AS phase_status, p.message AS phase_message,
	       p.phase_block, p.phase_direct, p.phase_fsync, p.phase_rwmix, p.phase_runtime, p.phase_ramp,
	       s.clients AS x_clients,
	       CASE WHEN p.status = 'ok' THEN s.bytes END AS x_bytes,
	       CASE WHEN p.status = 'ok' THEN s.span_ns END AS x_span_ns,
	       CASE WHEN p.status = 'ok' THEN CASE WHEN p.phase IN ('create', 'stat', 'readdir', 'open', 'remove', 'mkdir', 'dirstat', 'rmdir') THEN s.iops ELSE s.agg_mbps END END AS x_mbps,
	       CASE WHEN p.status = 'ok' THEN s.min_client_mbps END AS x_min,
	       CASE WHEN p.status = 'ok' THEN s.max_client_mbps END AS x_max,
	       p.phase IN ('create', 'stat', 'readdir', 'open', 'remove', 'mkdir', 'dirstat', 'rmdir') AS x_meta,
	       CASE WHEN p.status = 'ok' THEN s.min_client_iops END AS x_omin,
	       CASE WHEN p.status = 'ok' THEN s.max_client_iops END AS x_omax,
	       CASE WHEN p.status = 'ok' THEN v.pct_of_limit END AS x_pct,
	       CASE WHEN p.status = 'ok' THEN v.verdict END AS x_verdict,
	       CASE WHEN p.status = 'ok' THEN u.client_cpu_pct END AS x_ccpu,
	       CASE WHEN p.status = 'ok' THEN u.client_cpu_us_per_mb END AS x_ccpm,
	       CASE WHEN p.status = 'ok' THEN u.io_cpu_us_per_mb END AS x_iocpm,
	       CASE WHEN p.status = 'ok' THEN u.server_cpu_pct END AS x_scpu,
	       CASE WHEN p.status = 'ok' THEN u.server_cpu_us_per_mb END AS x_scpm
	FROM combo c
	JOIN r ON r.run_id = c.run_id
	JOIN phase_run p ON p.combo_id = c.combo_id
	LEFT JOIN phase_summary s ON s.combo_id = p.combo_id AND s.phase = p.phase
	LEFT JOIN verdict v ON v.combo_id = p.combo_id AND v.phase = p.phase
	LEFT JOIN phase_cpu u ON u.combo_id = p.combo_id AND u.phase = p.phase
	WHERE (:phase IS NULL OR p.phase = :phase)
	  -- --search halving: a combination's last stage only, its longest runs
	  -- (its shorter runs of the stages before are not the same measurement)
	  AND (c.stage IS NULL OR c.stage = (SELECT MAX(k2.stage) FROM combo k2
	                                     WHERE k2.run_id = c.run_id AND k2.matrix_index = c.matrix_index))
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
	       MAX(x_meta) AS meta,
	       MIN(x_omin) AS min_client_ops,
	       MAX(x_omax) AS max_client_ops,
	       MAX(x_clients) AS clients,
	       AVG(x_pct) AS pct_of_limit,
	       AVG(x_ccpu) AS client_cpu_pct, AVG(x_ccpm) AS client_cpu_us_per_mb,
	       AVG(x_iocpm) AS io_cpu_us_per_mb,
	       AVG(x_scpu) AS server_cpu_pct, AVG(x_scpm) AS server_cpu_us_per_mb,
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
