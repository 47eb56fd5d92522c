-- history.sql - every configuration across all runs over time: per
-- configuration (the same value of every sweep option), hosts and phase,
-- one row per run, beside the pooled figures of the runs of that
-- configuration on the same hosts (same host names, same number of ranks)
-- just before it: the last :window of them, so that a run that recovered
-- is compared with the runs before it, not with a pool that keeps every
-- bad run for ever.
--
-- Parameters:
--   :phase   one phase (NULL: every phase)
--   :window  how many earlier runs to compare with (`stcluster history
--            --window N`, default 5; NULL or 0: all of them)
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
--   prev_runs           earlier runs compared with (at most :window)
--   prev_n, prev_mbps, prev_sd  their iterations pooled: count, mean, sd
--   change_pct          100 (mbps - prev_mbps) / prev_mbps
-- `stcluster history` adds the 95 % interval and the verdict (regression,
-- improvement, within noise).
--
-- A phase with values of its own (a [phase] section: block, direct, fsync,
-- rwmix, runtime, ramp) has them in its configuration and its columns.
--
-- Every sweep option is listed in `config` and in the output below
-- (tests/mpi/t_analysis.sh checks that none is missing).
WITH hosts AS (
	SELECT run_id, group_concat(hostname, ',') AS hosts
	FROM (SELECT DISTINCT run_id, hostname FROM host ORDER BY run_id, hostname)
	GROUP BY run_id
), x AS (
	SELECT c.*,
	       -- a phase's own values (a [phase] section) are its configuration
	       COALESCE(p.phase_block, c."block") AS pv_block,
	       COALESCE(p.phase_direct, c."direct") AS pv_direct,
	       COALESCE(p.phase_fsync, c."fsync") AS pv_fsync,
	       COALESCE(p.phase_rwmix, c."rwmix") AS pv_rwmix,
	       COALESCE(p.phase_runtime, c."runtime") AS pv_runtime,
	       COALESCE(p.phase_ramp, c."ramp") AS pv_ramp,
	       json_array(COALESCE(p.phase_block, c."block"), c."size", c."threads",
	                  COALESCE(p.phase_direct, c."direct"), COALESCE(p.phase_fsync, c."fsync"),
	                  c."reorder", c."bind", c."data", c."vers", c."proto", c."rsize", c."wsize",
	                  c."sync", c."hard", c."timeo", c."retrans", c."nconnect", c."ac", c."actimeo",
	                  c."iodepth", c."mount-opts", c."files", c."file-size", c."fanout", c."layout",
	                  c."access", COALESCE(p.phase_rwmix, c."rwmix"),
	                  COALESCE(p.phase_runtime, c."runtime"), COALESCE(p.phase_ramp, c."ramp"),
	                  c."stonewall", c."rwsize", c."set", c."dir-mode", c."depth",
	                  c."server-threads", c."server-export") AS config,
	       r.started_at AS run_started_at, r.label, COALESCE(h.hosts, '') AS hosts, r.nranks AS ranks,
	       p.phase, p.phase_order,
	       CASE WHEN p.status = 'ok' THEN CASE WHEN p.phase IN ('create', 'stat', 'readdir', 'open', 'remove', 'mkdir', 'dirstat', 'rmdir') THEN s.iops ELSE s.agg_mbps END END AS y
	FROM combo c
	JOIN run r ON r.run_id = c.run_id
	LEFT JOIN hosts h ON h.run_id = c.run_id
	JOIN phase_run p ON p.combo_id = c.combo_id
	LEFT JOIN phase_summary s ON s.combo_id = p.combo_id AND s.phase = p.phase
	WHERE :phase IS NULL OR p.phase = :phase
), g AS (
	-- one row per configuration, hosts, phase and run (the options are the
	-- same in every row of a group: bare columns are well defined)
	SELECT pv_block AS "block", "size", "threads", pv_direct AS "direct", pv_fsync AS "fsync",
	       "reorder", "bind", "data",
	       "vers", "proto", "rsize", "wsize", "sync", "hard", "timeo", "retrans",
	       "nconnect", "ac", "actimeo", "iodepth", "mount-opts", "files", "file-size", "fanout",
	       "layout", "access", pv_rwmix AS "rwmix", pv_runtime AS "runtime", pv_ramp AS "ramp",
	       "stonewall", "rwsize", "set", "dir-mode", "depth", "server-threads", "server-export",
	       config, run_id, run_started_at AS started_at, label, hosts, ranks, phase, phase_order,
	       COUNT(y) AS n, AVG(y) AS mbps, TOTAL(y) AS s1, TOTAL(y * y) AS s2,
	       COUNT(*) - COUNT(y) AS failed
	FROM x
	GROUP BY config, hosts, ranks, phase, run_id
), o AS (
	-- each run's place among the runs of its configuration, hosts and phase
	SELECT g.*, ROW_NUMBER() OVER (PARTITION BY config, hosts, ranks, phase
	                               ORDER BY started_at, run_id) AS k
	FROM g
), w AS (
	-- the :window runs before it (NULL or 0: all of them), their iterations pooled
	SELECT o.*,
	       COUNT(p.k) AS prev_runs,
	       SUM(p.n) AS prev_n,
	       SUM(p.s1) AS prev_s1,
	       SUM(p.s2) AS prev_s2
	FROM o LEFT JOIN o p
	  ON p.config = o.config AND p.hosts = o.hosts AND p.ranks = o.ranks AND p.phase = o.phase
	 AND p.k < o.k AND (COALESCE(:window, 0) = 0 OR p.k >= o.k - :window)
	GROUP BY o.config, o.hosts, o.ranks, o.phase, o.run_id
)
SELECT "block", "size", "threads", "direct", "fsync", "reorder", "bind", "data",
       "vers", "proto", "rsize", "wsize", "sync", "hard", "timeo", "retrans",
       "nconnect", "ac", "actimeo", "iodepth", "mount-opts", "files", "file-size", "fanout",
       "layout", "access", "rwmix", "runtime", "ramp", "stonewall", "rwsize", "set",
       "dir-mode", "depth", "server-threads", "server-export", config, run_id, started_at, label,
       hosts, ranks, phase, phase_order,
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
