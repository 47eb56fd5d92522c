#!/bin/sh
# tests/bench/ranks.sh - the coordinator at many ranks (run on demand, not in make check):
# the null engine, oversubscribed on this machine, at RANKS_NP ranks (default "4 16 64 128").
#
# Per size, one run of --engine null --null-delay 1ms --block 4k --size 16k --threads 1
# --iterations RANKS_ITER --phases write,read (4 calls of 1 ms a phase) and, from its store:
#   coordination  per combination: the time between two combinations' stored_ns minus the I/O
#                 span of the later one's phases (everything that is not I/O: prepare, the
#                 barriers, the gathers, the store), p50 / p90 in ms
#   skew          phase_run.skew_ns (the release spread of the barrier that opens a phase),
#                 p50 / p90 in us, and the rank that left last most often (with its count)
#   gather        phase_run.gathered_ns - MAX(rank_result.end_ns), p50 in ms
#   rank 0 RSS    ru_maxrss of rank 0 (GNU time), MiB
#   of 1 s        coordination p50 as % of a 1-second phase pair (two phases: / 2 s)
#   open/gth/store where the coordination goes, p50 ms per combination: open = the previous
#                 combination's stored_ns to this one's first release (its commit, this one's
#                 preparation and the opening barrier), gth = every phase's gathered_ns - its
#                 last end_ns, summed, store = the last gathered_ns to stored_ns (rank 0 alone:
#                 unpacking nothing, building and inserting the rows)
# With RANKS_PIN0=1 rank 0 runs alone on CPU 0 and every other rank on the other CPUs
# (taskset): rank 0's own work (the store, the gathers' receiving end) is then measured at a
# CPU of its own, as on a cluster, while the others stay oversubscribed.
# A figure is information, not a verdict on this machine: 128 ranks on 2 cores measure the
# coordinator under 64x oversubscription (the goal, coordination < 1 % of a 1-second phase at
# 128 ranks, is for a rank per core). Set RANKS_BASE=/path/to/another/stcluster to run that
# binary too, interleaved (before/after). See tests/bench/README.md.
#
# Knobs: RANKS_NP ("4 16 64 128"), RANKS_ITER (20), RANKS_REPS (1), RANKS_BASE (none), RANKS_PIN0 (0),
# STCLUSTER (./stcluster). Everything it creates is under one temp directory, removed on exit.

set -u
LC_ALL=C
export LC_ALL
cd "$(dirname "$0")/../.." || exit 1
ROOT=$(pwd)
ST_SRC=${STCLUSTER:-$ROOT/stcluster}
NP_LIST=${RANKS_NP:-"4 16 64 128"}
ITER=${RANKS_ITER:-20}
REPS=${RANKS_REPS:-1}
BASE=${RANKS_BASE:-}
PIN0=${RANKS_PIN0:-0}
WORK=''
cleanup() { [ -n "$WORK" ] && rm -rf "$WORK"; }
trap cleanup EXIT
trap 'exit 130' INT TERM HUP
BENCH="ranks bench"
. tests/bench/lib.sh

[ -x "$ST_SRC" ] || die "$ST_SRC is missing: run make first"
command -v mpirun >/dev/null || die "mpirun not found"
[ -x /usr/bin/time ] || die "GNU time is missing (apt-get install time)"
# shellcheck disable=SC1091
. "$ROOT/tests/mpienv.sh"
WORK=$(mktemp -d "${TMPDIR:-/tmp}/stbench-ranks.XXXXXX") || die "mktemp failed"
mkdir "$WORK/t"
cp "$ST_SRC" "$WORK/st-new" || die "cannot copy $ST_SRC"
tools="new"
if [ -n "$BASE" ]; then
	cp "$BASE" "$WORK/st-base" || die "cannot copy $BASE"
	tools="base new"
fi

# rank 0 under GNU time (its ru_maxrss, KiB, into $WORK/rss), the others as they are
last_cpu=$(($(nproc) - 1))
[ "$PIN0" = 1 ] && [ "$last_cpu" -lt 1 ] && die "RANKS_PIN0=1 needs 2 CPUs or more"
cat >"$WORK/rss0.sh" <<EOF
#!/bin/sh
out=\$1
shift
if [ "$PIN0" = 1 ]; then
	[ "\${OMPI_COMM_WORLD_RANK:-0}" = 0 ] && set -- taskset -c 0 "\$@" || set -- taskset -c 1-$last_cpu "\$@"
fi
[ "\${OMPI_COMM_WORLD_RANK:-0}" = 0 ] || exec "\$@"
exec /usr/bin/time -o "\$out" -f %M "\$@"
EOF
chmod 755 "$WORK/rss0.sh"

pq() { # DB SQL HI: p50 / pHI of the query's values (one per line), raw
	"$WORK/st-new" query --db "$1" "$2" --format csv 2>/dev/null | sed 1d | sort -g |
		awk -v hi="$3" '{ v[NR] = $1 } END { if (!NR) { print "- -"; exit }
			a = int(0.5 * NR + 0.999999); b = int(hi * NR + 0.999999); print v[a], v[b] }'
}

echo "stcluster ranks bench  $(date -u +%Y-%m-%dT%H:%M:%SZ)  $("$WORK/st-new" --version | head -n 1)  $(nproc) CPUs"
echo "null engine, 4 calls of 1 ms a phase, write+read, $ITER iterations; tools: $tools$([ -n "$BASE" ] && echo " (base = $BASE)")"
echo "rank 0: $([ "$PIN0" = 1 ] && echo "alone on CPU 0, the others on CPUs 1-$last_cpu" || echo "shares the CPUs with the others")"
printf '\n  %-4s %-5s %-6s %-22s %-22s %-18s %-10s %-9s %-7s %-18s %s\n' tool ranks load "coord p50/p90 ms" "skew p50/p90 us" "last out (x of n)" "gather ms" "rank0 MiB" "of 1 s" "open/gth/store ms" "wall s"
for np in $NP_LIST; do
	r=0
	while [ "$r" -lt "$REPS" ]; do
		for tool in $(rot "$tools" "$r"); do
			db=$WORK/$tool-$np-$r.db
			l=$(cut -d' ' -f1 /proc/loadavg)
			t0=$(date +%s%N)
			if ! timeout -k 10 600 mpirun -np "$np" "$WORK/rss0.sh" "$WORK/rss" "$WORK/st-$tool" --target "$WORK/t" \
				--engine null --null-delay 1ms --block 4k --size 16k --threads 1 --iterations "$ITER" \
				--phases write,read --db "$db" --quiet >"$WORK/out" 2>&1; then
				echo "  $tool $np ranks: the run failed:"
				sed 's/^/    /' "$WORK/out" | tail -5
				continue
			fi
			wall=$(awk -v a="$t0" -v b="$(date +%s%N)" 'BEGIN { printf "%.1f", (b - a) / 1e9 }')
			# shellcheck disable=SC2046
			set -- $(pq "$db" "WITH c AS (SELECT combo_id, seq, stored_ns, LAG(stored_ns) OVER (ORDER BY seq) AS prev FROM combo),
				io AS (SELECT combo_id, SUM(span) AS io FROM (SELECT combo_id, phase, MAX(end_ns) - MIN(start_ns) AS span
					FROM rank_result WHERE nthreads > 0 GROUP BY combo_id, phase) GROUP BY combo_id)
				SELECT (c.stored_ns - c.prev - io.io) / 1e6 FROM c JOIN io USING (combo_id) WHERE c.prev IS NOT NULL" 0.9)
			c50=$1 c90=$2
			# shellcheck disable=SC2046
			set -- $(pq "$db" "SELECT skew_ns / 1e3 FROM phase_run" 0.9)
			s50=$1 s90=$2
			# shellcheck disable=SC2046
			set -- $(pq "$db" "SELECT (p.gathered_ns - MAX(r.end_ns)) / 1e6 FROM phase_run p JOIN rank_result r USING (combo_id, phase) GROUP BY p.combo_id, p.phase" 0.9)
			g50=$1
			last=$("$WORK/st-new" query --db "$db" "SELECT r.rank, COUNT(*), (SELECT COUNT(*) FROM phase_run) FROM rank_result r
				JOIN phase_run p USING (combo_id, phase) WHERE r.release_ns = p.release_max_ns GROUP BY r.rank ORDER BY 2 DESC LIMIT 1" \
				--format csv | sed 1d | awk -F, '{ printf "rank %s (%s of %s)", $1, $2, $3 }')
			parts="WITH c AS (SELECT combo_id, stored_ns, LAG(stored_ns) OVER (ORDER BY seq) AS prev FROM combo),
				e AS (SELECT p.combo_id, p.release_min_ns, p.gathered_ns, MAX(r.end_ns) AS last_end FROM phase_run p
					JOIN rank_result r USING (combo_id, phase) GROUP BY p.combo_id, p.phase),
				s AS (SELECT combo_id, MIN(release_min_ns) AS opened, MAX(gathered_ns) AS gathered,
					SUM(gathered_ns - last_end) AS gth FROM e GROUP BY combo_id),
				x AS (SELECT (s.opened - c.prev) / 1e6 AS open, s.gth / 1e6 AS gth, (c.stored_ns - s.gathered) / 1e6 AS store
					FROM c JOIN s USING (combo_id) WHERE c.prev IS NOT NULL)"
			split=''
			for col in open gth store; do
				# shellcheck disable=SC2046
				set -- $(pq "$db" "$parts SELECT $col FROM x" 0.9)
				split="$split${split:+/}$(printf '%.1f' "$1" 2>/dev/null || echo -)"
			done
			rss=$(awk '{ printf "%.1f", $1 / 1024 }' "$WORK/rss" 2>/dev/null)
			pct=$(awk -v c="$c50" 'BEGIN { if (c == "-") print "-"; else printf "%.2f %%", c / 2000 * 100 }')
			printf '  %-4s %-5s %-6s %-22s %-22s %-18s %-10s %-9s %-7s %-18s %s\n' "$tool" "$np" "$l" \
				"$(printf '%.2f / %.2f' "$c50" "$c90")" "$(printf '%.0f / %.0f' "$s50" "$s90")" "$last" \
				"$(printf '%.2f' "$g50")" "$rss" "$pct" "$split" "$wall"
		done
		r=$((r + 1))
	done
done
echo
echo "ranks bench done  [$(load)]"
