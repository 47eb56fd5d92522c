#!/bin/sh
# tests/bench/lab.sh - stcluster across the hosts of a lab (tests/lab/lab.sh):
# run on demand, not in make check.
#
#   1. phase turnaround at 4, 8 and 16 ranks spread over 4 lab hosts (null
#      engine, 1 ms per call): gather, store, barrier-release skew and
#      dispatch, median and p90 in us; once as Open MPI decides by itself and
#      once with mpi_yield_when_idle=1 (see README.md: the lab's hosts share
#      this machine's CPUs, which Open MPI cannot know)
#   2. the cost of server sampling: the server rank's own CPU time while it
#      samples at --sample-hz 1, 10 and 100, as % of one CPU
#
# It brings up one lab of its own (4 clients with 4 slots each, one server
# running nfs-ganesha on a fresh directory under /var/tmp) with a prefix and
# subnet of its own, and takes it down on exit, with its work directory and
# export. It ends no process it did not start (lab.sh down ends what runs in
# this lab's namespaces only). Needs root. A finding is information: the exit
# status is 0 unless the suite itself could not run.
#
# Knobs (environment): LABB_NP ("4 8 16"), LABB_ITER (10), LABB_MODES
# ("default yield"), LABB_HZ ("1 10 100"), LABB_SAMPLE_SIZE (4m: per-rank file
# of the sampling sweep, 1024 calls of 1 ms, about 1.1 s a phase),
# LABB_BUDGET (270 s: no run starts after this), STCLUSTER (./stcluster).

set -u
LC_ALL=C
export LC_ALL
cd "$(dirname "$0")/../.." || exit 1
ROOT=$(pwd)

ST_SRC=${STCLUSTER:-$ROOT/stcluster}
NP_LIST=${LABB_NP:-"4 8 16"}
ITER=${LABB_ITER:-10}
MODES=${LABB_MODES:-"default yield"}
HZ_LIST=${LABB_HZ:-"1 10 100"}
SSIZE=${LABB_SAMPLE_SIZE:-4m}
BUDGET=${LABB_BUDGET:-270}
LAB=$ROOT/tests/lab/lab.sh

WORK='' EXPORT='' LABDIR=''
T_START=$(date +%s)

cleanup() {
	own_lab_down
	[ -n "$EXPORT" ] && rm -rf "$EXPORT"
	[ -n "$WORK" ] && rm -rf "$WORK"
}
trap cleanup EXIT
trap 'exit 130' INT TERM HUP
BENCH="lab bench"
. tests/bench/lib.sh

over_budget() { [ $(($(date +%s) - T_START)) -ge "$BUDGET" ]; }
now_ms() { echo $(($(date +%s%N) / 1000000)); }

# every row of a query (csv, header dropped)
all() { "$ST" query --db "$1" "$2" --format csv 2>/dev/null | sed 1d; }

# ---------------------------------------------------------------- checks

[ "$(id -u)" = 0 ] || die "needs root (network namespaces)"
[ -x "$ST_SRC" ] || die "$ST_SRC is missing: run make first"
[ -x "$LAB" ] || die "$LAB missing"
for b in mpirun ip tc unshare nsenter ganesha.nfsd rpcbind nfs-ls timeout bash; do
	command -v "$b" >/dev/null || die "$b not found (see tests/lab/README.md)"
done

WORK=$(mktemp -d "${TMPDIR:-/tmp}/stbench-lab.XXXXXX") || die "mktemp failed"
ST=$WORK/stcluster
cp "$ST_SRC" "$ST" || die "cannot copy $ST_SRC"
EXPORT=$(mktemp -d /var/tmp/stbench-lab-export.XXXXXX) || die "mktemp under /var/tmp failed"
chmod 755 "$EXPORT"
mkdir "$WORK/null" || die "mkdir failed"

echo "stcluster in a lab of 4 hosts: $(nproc) CPUs on this machine  [$(load)]"
own_lab sb --clients 4 --slots 4 --export "$EXPORT"
printf '%s-c1 slots=4\n%s-c2 slots=4\n%s-c3 slots=4\n%s-c4 slots=4\n' "$PREFIX" "$PREFIX" "$PREFIX" "$PREFIX" > "$WORK/hf.clients"
cp "$WORK/hf.clients" "$WORK/hf.all"
echo "$PREFIX-s1 slots=1" >> "$WORK/hf.all"

# lab_mpirun LOG MODE mpirun-args...: mpirun on the lab's head, bounded in time
lab_mpirun() {
	log=$1 mode=$2
	shift 2
	if [ "$mode" = yield ]; then
		set -- env OMPI_MCA_mpi_yield_when_idle=1 mpirun "$@"
	else
		set -- mpirun "$@"
	fi
	timeout -k 10 150 "$LAB" run "$LABDIR" -- "$@" >"$log" 2>&1
}

# ---------------------------------------------------------------- 1. turnaround

echo
echo "== 1. phase turnaround: --engine null --null-delay 1ms --block 4k --size 64k --threads 1 --iterations $ITER --phases write,read ==  [$(load)]"
echo "  ranks spread over $PREFIX-c1..c4 (--map-by node: rank 0 on c1, rank 1 on c2, ...); every figure in us, p50 / p90 over the run's phases"
echo "  gather   = phase_run.gathered_ns - MAX(rank_result.end_ns)                  (last I/O done -> every result at rank 0)"
echo "  store    = combo.stored_ns - MAX(end_ns of the combination's last phase)   (-> just before the commit)"
echo "  skew     = phase_run.release_max_ns - release_min_ns                       (barrier release spread over the ranks)"
echo "  dispatch = MAX over ranks (start_ns - release_ns)                          (release -> first I/O)"
echo "  mode default: Open MPI as it decides (each lab host has 4 slots, so it never sees oversubscription"
echo "  and busy-polls); yield: OMPI_MCA_mpi_yield_when_idle=1"
printf '\n  %-8s %-6s %-4s %-7s %-19s %-19s %-19s %-19s %-10s %-7s\n' mode ranks /host phases "gather p50/p90" "store p50/p90" \
	"skew p50/p90" "dispatch p50/p90" "I/O ms" "wall s"
for mode in $MODES; do
	for np in $NP_LIST; do
		if over_budget; then
			echo "  $mode $np: skipped, LABB_BUDGET=${BUDGET}s reached"
			continue
		fi
		db=$WORK/null-$mode-$np.db
		t0=$(now_ms)
		if ! lab_mpirun "$WORK/run.log" "$mode" -hostfile "$WORK/hf.clients" --map-by node -np "$np" \
			"$ST" --engine null --null-delay 1ms --block 4k --size 64k --threads 1 \
			--iterations "$ITER" --phases write,read --target "$WORK/null" --db "$db" --quiet; then
			echo "  $mode $np ranks: the run failed:"
			sed 's/^/    /' "$WORK/run.log" | head -n 20
			continue
		fi
		wall=$(awk -v a="$t0" -v b="$(now_ms)" 'BEGIN { printf "%.1f", (b - a) / 1000 }')
		nph=$(all "$db" "SELECT COUNT(*) FROM phase_run")
		hosts=$(all "$db" "SELECT COUNT(DISTINCT hostname) FROM host")
		g=$(all "$db" "SELECT p.gathered_ns - MAX(r.end_ns) FROM phase_run p JOIN rank_result r USING (combo_id, phase)
			GROUP BY p.combo_id, p.phase" | q_us 0.9)
		s=$(all "$db" "SELECT c.stored_ns - (SELECT MAX(r.end_ns) FROM rank_result r JOIN phase_run p USING (combo_id, phase)
			WHERE p.combo_id = c.combo_id AND p.phase_order = (SELECT MAX(phase_order) FROM phase_run q WHERE q.combo_id = c.combo_id))
			FROM combo c WHERE c.status = 'ok'" | q_us 0.9)
		sk=$(all "$db" "SELECT release_max_ns - release_min_ns FROM phase_run" | q_us 0.9)
		dsp=$(all "$db" "SELECT MAX(start_ns - release_ns) FROM rank_result GROUP BY combo_id, phase" | q_us 0.9)
		io=$(all "$db" "SELECT (MAX(end_ns) - MIN(start_ns)) / 1e6 FROM rank_result GROUP BY combo_id, phase" |
			sort -g | awk '{ v[NR] = $1 } END { if (NR) printf "%.0f-%.0f", v[1], v[NR] }')
		printf '  %-8s %-6s %-4s %-7s %-19s %-19s %-19s %-19s %-10s %-7s\n' "$mode" "$np" \
			"$(awk -v n="$np" -v h="$hosts" 'BEGIN { printf "%g", h ? n / h : 0 }')" "$nph" "$g" "$s" "$sk" "$dsp" "$io" "$wall"
	done
done

# ---------------------------------------------------------------- 2. sampling

echo
echo "== 2. server sampling cost: the server rank's own CPU while it samples ==  [$(load)]"
echo "  5 ranks: 4 clients on c1..c4 and the rank on $PREFIX-s1 (--servers $PREFIX-s1: role server; nfs-ganesha runs there),"
echo "  --engine null --null-delay 1ms --block 4k --size $SSIZE --threads 1 --iterations 2 --phases write,read --baseline off,"
echo "  OMPI_MCA_mpi_yield_when_idle=1. The server rank samples from its release until every client is done (the window)."
echo "  CPU = the server rank's own run time (sum of /proc/PID/task/*/schedstat, every 20 ms, read by a monitor"
echo "  outside the rank) inside the windows / the windows' length; % of one CPU. The 1 Hz row is the floor of the"
echo "  sampling loop itself (it wakes every 1 ms to test the phase-end barrier)."

# the monitor: on the server host it runs the rank and records "monotonic_ns cpu_ns"
# lines; elsewhere it just execs the rank. Fork-free loop (bash builtins only).
cat > "$WORK/cpuwrap.sh" <<'EOF'
#!/bin/bash
# cpuwrap.sh SERVER_HOST OUT COMMAND...
srv=$1 out=$2
shift 2
[ "$HOSTNAME" = "$srv" ] || exec "$@"
"$@" &
pid=$!
exec 9<> "$out.fifo" # never written: read -t on it is a sleep without a fork
{
	while kill -0 "$pid" 2>/dev/null; do
		{ read -r _; read -r _; read -r _ _ now _; } < /proc/timer_list
		sum=0
		for f in /proc/"$pid"/task/*/schedstat; do
			read -r ns _ < "$f" && sum=$((sum + ns))
		done 2>/dev/null
		echo "$now $sum"
		read -r -t 0.02 -u 9
	done
} > "$out"
wait "$pid"
EOF
chmod 755 "$WORK/cpuwrap.sh"

printf '\n  %-8s %-10s %-9s %-13s %-15s %-24s %s\n' "--sample-hz" "ticks/s" windows "window s" "server CPU %" "% per window [min-max]" "store: server rank cpu_user_us + cpu_sys_us"
base=
for hz in $HZ_LIST; do
	if over_budget; then
		echo "  $hz Hz: skipped, LABB_BUDGET=${BUDGET}s reached"
		continue
	fi
	db=$WORK/samp-$hz.db
	mon=$WORK/mon-$hz
	rm -f "$mon" "$mon.fifo"
	mkfifo "$mon.fifo" || die "mkfifo failed"
	if ! lab_mpirun "$WORK/run.log" yield -hostfile "$WORK/hf.all" --map-by node -np 5 \
		"$WORK/cpuwrap.sh" "$PREFIX-s1" "$mon" "$ST" --engine null --null-delay 1ms --block 4k --size "$SSIZE" \
		--threads 1 --iterations 2 --phases write,read --servers "$PREFIX-s1" --baseline off \
		--sample-hz "$hz" --target "$WORK/null" --db "$db" --quiet; then
		echo "  $hz Hz: the run failed:"
		sed 's/^/    /' "$WORK/run.log" | head -n 20
		continue
	fi
	srank=$(all "$db" "SELECT rank FROM host WHERE role = 'server'" | head -n 1)
	if [ -z "$srank" ] || ! [ -s "$mon" ]; then
		echo "  $hz Hz: no server rank ($srank) or no monitor data"
		continue
	fi
	# windows: the server rank's release .. the last client's end, per phase
	all "$db" "SELECT s.release_ns, MAX(c.end_ns) FROM rank_result s JOIN rank_result c
		ON c.combo_id = s.combo_id AND c.phase = s.phase AND c.role = 'client'
		WHERE s.rank = $srank GROUP BY s.combo_id, s.phase" | tr ',' ' ' > "$WORK/win"
	ticks=$(all "$db" "SELECT COUNT(DISTINCT t_ns) FROM sample WHERE rank = $srank")
	stored=$(all "$db" "SELECT SUM(cpu_user_us + cpu_sys_us) FROM rank_result WHERE rank = $srank")
	# CPU inside each window, linear between the monitor's points
	res=$(awk -v ticks="$ticks" 'NR == FNR { t[NR] = $1; c[NR] = $2; n = NR; next }
		function at(x,   i) { for (i = 2; i <= n; i++) if (t[i] >= x) break
			if (i > n) return c[n]; if (i == 1 || t[i] == t[i - 1]) return c[i]
			return c[i - 1] + (c[i] - c[i - 1]) * (x - t[i - 1]) / (t[i] - t[i - 1]) }
		$1 != "" && $2 > $1 { w = $2 - $1; u = at($2) - at($1); W += w; U += u; k++
			p = 100 * u / w; if (k == 1 || p < lo) lo = p; if (k == 1 || p > hi) hi = p }
		END { if (!k || W <= 0) { print "- - - - - -"; exit }
			printf "%.1f %d %.2f %.2f %.2f-%.2f\n", ticks / (W / 1e9), k, W / 1e9, 100 * U / W, lo, hi }' "$mon" "$WORK/win")
	# shellcheck disable=SC2086  # split on purpose
	set -- $res
	[ "$hz" = 1 ] && base=$4
	printf '  %-11s %-10s %-9s %-13s %-15s %-24s %s\n' "$hz" "$1" "$2" "$3" "$4" "[$5]" \
		"$([ "${stored:-0}" = 0 ] && echo "0 (not recorded)" || echo "$stored us")"
	put_hz=$hz
	eval "cpu_$put_hz=\$4"
done
if [ -n "$base" ]; then
	for hz in $HZ_LIST; do
		[ "$hz" = 1 ] && continue
		eval "v=\${cpu_$hz:-}"
		[ -n "$v" ] || continue
		awk -v v="$v" -v b="$base" -v hz="$hz" 'BEGIN { d = v - b;
			printf "  %s Hz over 1 Hz: %+.2f %% of a CPU = %.0f us of CPU per extra sample tick\n", hz, d, d / 100 * 1e6 / (hz - 1) }'
	done
fi

echo
echo "lab bench done in $(($(date +%s) - T_START)) s  [$(load)]"
