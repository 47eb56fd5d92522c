# tests/lib.sh - sourced by every shell test. A test file is a list of
# functions named t_*; tests/run.sh runs each in a subshell with a fresh
# scratch directory ($T) and counts it as passed when it returns 0.
#
#   ST        the stcluster under test: the normal build's binary, or for a
#             sanitizer build a wrapper of its binary (tests/run.sh san_wrapper)
#   ST_BIN    the binary itself (to copy it, or find what was built beside it)
#   T         a scratch directory, removed after the test
#   MPIRUN    mpirun with the options this machine needs

. "$TOP/tests/mpienv.sh"
# the labs' names, subnets, directory and lock (STLAB_*, from the environment or today's)
. "$TOP/tests/lab/names.sh"

MPIRUN="mpirun --bind-to none"

# fail MESSAGE: print why and make the test fail
fail() { echo "    FAIL: $*" >&2; return 1; }

# expect_eq GOT WANT WHAT
expect_eq() {
	[ "$1" = "$2" ] || fail "$3: got '$1', want '$2'"
}

# expect_exit STATUS CMD...: run CMD; its exit status must be STATUS (README,
# "Exit status": 0 all ok, 1 finished with failed combinations, 2 bad input,
# 3 aborted)
expect_exit() {
	want=$1
	shift
	"$@"
	got=$?
	[ "$got" = "$want" ] || fail "exit status $got, want $want: $*"
}

# q DB SQL: one value from the store (the sqlite3 shell, as a user would)
q() { sqlite3 -batch -noheader "$1" "$2"; }

# within GOT WANT PERCENT: |GOT - WANT| <= PERCENT % of WANT
within() {
	awk -v g="$1" -v w="$2" -v p="$3" 'BEGIN { d = g - w; if (d < 0) d = -d; exit !(d <= w * p / 100) }' ||
		fail "$4: $1 is not within $3 % of $2"
}

# pages_read DB ARGS...: the pages stcluster ARGS reads of the store $T/DB (its
# pread64 calls on the file and its WAL: SQLite reads a page a call)
pages_read() {
	db=$1
	shift
	strace -f -y -e trace=pread64 -o pages.out $ST "$@" >/dev/null || return 1
	grep -c "pread64([0-9]*<$T/$db\(-wal\)\?>" pages.out
}

# tree_sum DIR: a fingerprint of every file and its bytes under DIR
tree_sum() { (cd "$1" && find . -print0 | sort -z | xargs -0 -r sha256sum 2>/dev/null; find . | sort) | sha256sum; }

# descendants PID: every process below PID
descendants() {
	for c in $(pgrep -P "$1"); do
		echo "$c"
		descendants "$c"
	done
}

# rank_pid MPIRUN_PID RANK: the PID of that rank of that job (only among the
# processes the test's own mpirun started)
rank_pid() {
	for p in $(descendants "$1"); do
		if tr '\0' '\n' <"/proc/$p/environ" 2>/dev/null | grep -qx "OMPI_COMM_WORLD_RANK=$2"; then
			echo "$p"
			return 0
		fi
	done
	return 1
}

# rank_pid_with TEXT RANK: the PID of that rank of the job whose command line
# holds TEXT (a path under $T: only this test's processes), wherever the
# launcher started it
rank_pid_with() {
	for c in /proc/[0-9]*/cmdline; do
		p=${c#/proc/}
		p=${p%/cmdline}
		# (2>/dev/null first: a process gone meanwhile fails the < quietly)
		if tr '\0' ' ' 2>/dev/null <"$c" | grep -qF -- "$1" &&
			tr '\0' '\n' 2>/dev/null <"/proc/$p/environ" | grep -qx "OMPI_COMM_WORLD_RANK=$2"; then
			echo "$p"
			return 0
		fi
	done
	return 1
}

# wait_stored DB N [TENTHS]: until the store holds N combinations (default 30 s)
wait_stored() {
	k=0
	while [ "$(q "$1" 'SELECT COUNT(*) FROM combo' 2>/dev/null)" != "$2" ]; do
		k=$((k + 1))
		[ $k -lt "${3:-300}" ] || return 1
		sleep 0.1
	done
}

# hit_rank JOB DB RANK SIGNAL: once the store $T/DB holds its first
# combination, 0.5 s later (the fault tests' second combination is then in
# its write phase), send SIGNAL to RANK of the job whose mpirun (or launcher
# shell) is JOB; sets victim and t0 (ns). The rank is looked for among JOB's
# descendants, then (the lab launcher's daemons detach) by its store's path.
#
# Also sets lead (ms): from the call (right after the job's launch) to the
# signal: the job's start, its first combination and the 0.5 s. What the
# job's own end costs scales with it on a loaded machine (cap_ms).
hit_rank() {
	hit_from=$(date +%s%N)
	wait_stored "$T/$2" 1 || { kill "$1"; fail "the first combination was never stored"; return 1; }
	sleep 0.5
	victim=$(rank_pid "$1" "$3" || rank_pid_with "--db $T/$2" "$3") ||
		{ kill "$1"; fail "rank $3 not found"; return 1; }
	kill -"$4" "$victim"
	t0=$(date +%s%N)
	lead=$(((t0 - hit_from) / 1000000))
}

# no_holes DIR SIZE: every data file under DIR (--keep) is SIZE bytes, all of
# them written (allocated: a hole would read as zeros the run never wrote)
no_holes() {
	n=$(find "$1" -type f -name 'r*.t*' -o -type f -name shared | wc -l)
	[ "$n" -gt 0 ] || fail "no data file under $1" || return 1
	bad=$(find "$1" -type f \( -name 'r*.t*' -o -name shared \) -printf '%s %b %p\n' |
		awk -v s="$2" '$1 != s || $2 * 512 < s')
	expect_eq "$bad" "" "files short of --size or with holes"
}

# show_ranks DB: the rank rows of a run, to read when a test fails
show_ranks() {
	echo "    phase rank bytes errno stonewall_hit bad_blocks message:"
	q "$T/$1" "SELECT phase, rank, bytes, errno, stonewall_hit, bad_blocks, message FROM rank_result" | sed 's/^/    /'
}

# mpirun_slow_last N ARGS...: $ST ARGS at N ranks, the last of them a slow
# client from its start to its end: stopped 40 ms of every 50 (SIGSTOP,
# SIGCONT; the same command line, as Open MPI's MPMD form runs it)
mpirun_slow_last() {
	n=$1
	shift
	cat >"$T/slow.sh" <<'EOS'
"$@" &
p=$!
(while kill -STOP $p 2>/dev/null; do sleep 0.04; kill -CONT $p; sleep 0.01; done) &
s=$!
wait $p
rc=$?
kill $s 2>/dev/null
wait $s 2>/dev/null
exit $rc
EOS
	$MPIRUN -np $((n - 1)) $ST "$@" : -np 1 sh "$T/slow.sh" $ST "$@"
}

# slow_last_stonewalled N DB BYTES DIR ARGS...: mpirun_slow_last N ARGS (its
# store $T/DB, its files under DIR) until a rank's write of fewer than BYTES
# was stopped by the stonewall, at most 3 runs; the store and files of a run
# that stopped none go first. Under load the slow one's shell forks its
# sleeps slowly, its runs between stops stretch, and it may keep up (CI once
# at cc225bf: every write whole, rank 2's read stopped at a quarter). 1: a
# run failed, or 3 runs stopped no write (the test would prove nothing)
slow_last_stonewalled() {
	sl_n=$1 sl_db=$2 sl_bytes=$3 sl_dir=$4
	shift 4
	sl_k=0
	while :; do
		sl_k=$((sl_k + 1))
		rm -rf "$T/$sl_db" "$sl_dir"/stcluster-*
		mpirun_slow_last $sl_n "$@" --db "$T/$sl_db" ||
			fail "run failed: $(q "$T/$sl_db" "SELECT message FROM rank_result WHERE errno > 0 LIMIT 1")" ||
			return 1
		[ "$(q "$T/$sl_db" "SELECT COUNT(*) FROM rank_result WHERE phase = 'write' AND stonewall_hit = 1
			AND bytes < $sl_bytes")" -ge 1 ] && return 0
		[ $sl_k -lt 3 ] ||
			fail "no rank's write was stopped by the stonewall in $sl_k runs (the test proves nothing)" ||
			return 1
		echo "    run $sl_k: no rank's write was stopped by the stonewall; again" >&2
	done
}

# cap_ms BOUND FLOOR: a cap (ms) on the time after hit_rank's signal: BOUND,
# what the test argues the job takes (its deadline and grace), and 2 x lead
# for the machine; never below FLOOR, the fixed cap an idle machine keeps
cap_ms() { c=$(($1 + 2 * lead)); echo $((c > $2 ? c : $2)); }

# since_ms T0: ms since T0 (ns)
since_ms() { echo $((($(date +%s%N) - $1) / 1000000)); }

# cut_run DB SEQ: remove the run's combinations from SEQ on and mark it
# running, as a crash after SEQ commits leaves it
cut_run() {
	sqlite3 "$1" "DELETE FROM rank_result WHERE combo_id IN (SELECT combo_id FROM combo WHERE seq >= $2);
		DELETE FROM thread_result WHERE combo_id IN (SELECT combo_id FROM combo WHERE seq >= $2);
		DELETE FROM phase_run WHERE combo_id IN (SELECT combo_id FROM combo WHERE seq >= $2);
		DELETE FROM effective_option WHERE combo_id IN (SELECT combo_id FROM combo WHERE seq >= $2);
		DELETE FROM interval_pack WHERE combo_id IN (SELECT combo_id FROM combo WHERE seq >= $2);
		DELETE FROM rpc_stat WHERE combo_id IN (SELECT combo_id FROM combo WHERE seq >= $2);
		DELETE FROM combo WHERE seq >= $2; UPDATE run SET status = 'running';"
}

# SQL that takes from a store what schema version 9 added (issue 22: the
# packed intervals): the table interval again, with the rows the view gave
# (the views that read it first). Before V6_ADDED_SQL.
V9_ADDED_SQL="DROP VIEW IF EXISTS phase_tail; DROP VIEW IF EXISTS interval_summary; DROP VIEW IF EXISTS interval_rank;
	CREATE TEMP TABLE iv_keep AS SELECT * FROM interval; DROP VIEW interval;
	DROP TABLE interval_pack; DROP TABLE interval_seq;
	CREATE TABLE interval (combo_id INTEGER NOT NULL REFERENCES combo(combo_id), phase TEXT NOT NULL,
		rank INTEGER NOT NULL, idx INTEGER NOT NULL, t_ns INTEGER NOT NULL, end_ns INTEGER NOT NULL,
		width_ns INTEGER NOT NULL, bytes INTEGER, ops INTEGER, read_bytes INTEGER, read_ops INTEGER,
		PRIMARY KEY (combo_id, phase, rank, idx));
	INSERT INTO interval SELECT * FROM iv_keep; DROP TABLE iv_keep;"

# SQL that takes from a store what schema version 6 added (issue 10: the
# RPC views and table, the note columns, rank_result.cache_drop; the views
# first, all of them: they name the columns). Before V4_ADDED_SQL.
V6_ADDED_SQL="DROP VIEW IF EXISTS phase_flags; DROP VIEW IF EXISTS rpc_flag; DROP VIEW IF EXISTS option_override; DROP VIEW IF EXISTS rpc_mix; DROP VIEW IF EXISTS rpc_summary; DROP VIEW IF EXISTS phase_cpu; DROP VIEW IF EXISTS verdict;
	DROP VIEW IF EXISTS server_summary; DROP VIEW IF EXISTS result; DROP VIEW IF EXISTS phase_summary; DROP VIEW IF EXISTS client_result; DROP VIEW IF EXISTS run_summary; DROP VIEW IF EXISTS interval_summary; DROP VIEW IF EXISTS interval_rank;
	DROP TABLE rpc_stat; ALTER TABLE effective_option DROP COLUMN note;
	ALTER TABLE phase_run DROP COLUMN cache_drop_note; ALTER TABLE rank_result DROP COLUMN cache_drop;
	ALTER TABLE rank_result DROP COLUMN cache_drop_note;"

# SQL that takes from a store what schema version 4 added (issue 13: the
# interval table, the columns of each direction and of the stonewall; the
# views first, they name them), to make a store as an older version wrote it
V4_ADDED_SQL="DROP VIEW IF EXISTS phase_cpu; DROP VIEW IF EXISTS verdict; DROP VIEW IF EXISTS server_summary; DROP VIEW IF EXISTS result;
	DROP VIEW IF EXISTS phase_summary; DROP VIEW IF EXISTS client_result; DROP VIEW IF EXISTS run_summary;
	DROP VIEW IF EXISTS interval_summary; DROP VIEW IF EXISTS interval_rank; DROP TABLE interval;
	ALTER TABLE phase_run DROP COLUMN read_lat_p50_ns; ALTER TABLE phase_run DROP COLUMN read_lat_p99_ns;
	ALTER TABLE phase_run DROP COLUMN write_lat_p50_ns; ALTER TABLE phase_run DROP COLUMN write_lat_p99_ns;
	ALTER TABLE rank_result DROP COLUMN read_bytes; ALTER TABLE rank_result DROP COLUMN read_ops;
	ALTER TABLE rank_result DROP COLUMN read_lat_p50_ns; ALTER TABLE rank_result DROP COLUMN read_lat_p99_ns;
	ALTER TABLE rank_result DROP COLUMN write_lat_p50_ns; ALTER TABLE rank_result DROP COLUMN write_lat_p99_ns;
	ALTER TABLE rank_result DROP COLUMN stonewall_hit;
	ALTER TABLE thread_result DROP COLUMN read_bytes; ALTER TABLE thread_result DROP COLUMN read_ops;"
# oracle_check DB DELAY_NS CALLS [WHERE]: every phase of every combination (or
# of those whose combo row matches WHERE) against
# the null engine's schedule (CALLS calls of DELAY_NS per thread; auto: size / block). The
# schedule is a floor the run cannot beat, on any machine: a rank's span is
# at least CALLS x DELAY, so no figure may exceed its oracle. What the run
# spent beyond the schedule it measured itself (its ranks' spans, its
# barrier skew), and that is the tolerance below the oracle: on a machine
# with 2 jobs per core the phases run late, and say by how much.
oracle_check() {
	python3 - "$1" "$2" "$3" "${4:-1}" <<'PY'
import sqlite3, sys
db, delay, calls_arg, where = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4]
con = sqlite3.connect(db)
n = 0
for cid, phase, agg, iops, clients, threads, byts, ops, span, p50, fair, skew in con.execute(
        """SELECT combo_id, phase, agg_mbps, iops, clients, threads, bytes, ops, span_ns,
                  lat_p50_ns, fairness, skew_ns FROM phase_summary
           WHERE combo_id IN (SELECT combo_id FROM combo WHERE %s)""" % where):
    # CALLS auto: each thread's size / block
    calls = int(calls_arg) if calls_arg != 'auto' else \
        con.execute('SELECT size / block FROM combo WHERE combo_id = ?', (cid,)).fetchone()[0]
    sched = calls * delay
    ranks = con.execute("""SELECT rank, bytes, ops, start_ns, end_ns, mbps, nthreads FROM client_result
                           WHERE combo_id = ? AND phase = ?""", (cid, phase)).fetchall()
    per_thread = byts / threads                                    # threads: of all clients
    oracle = byts / sched * 1e3                                    # MB/s
    # the floor: nothing is faster than the schedule (1 % for the clocks)
    assert span >= sched * 0.99, (phase, span, sched)
    assert agg <= oracle * 1.01, (phase, agg, oracle)
    # late by what the run measured: its span beyond the schedule
    late = (span - sched) / sched
    assert abs(agg - oracle / (1 + late)) <= 0.01 * oracle, (phase, agg, oracle, late)
    assert ops == threads * calls, (phase, ops)
    assert abs(iops - ops / span * 1e9) <= 0.01 * iops, (phase, iops)
    for rank, b, o, s, e, mbps, nt in ranks:
        assert e - s >= sched * 0.99, (phase, rank, e - s)
        assert mbps <= nt * per_thread / sched * 1e3 * 1.01, (phase, rank, mbps)
        rlate = (e - s - sched) / sched
        assert abs(mbps - nt * per_thread / (sched * (1 + rlate)) * 1e3) <= 0.01 * mbps, (phase, rank)
    # the slowest against the fastest client: no more apart than their own lateness
    lates = [(e - s - sched) / sched for _, _, _, s, e, _, _ in ranks]
    assert fair >= (1 + min(lates)) / (1 + max(lates)) * 0.99, (phase, fair, lates)
    # each call lasts one delay on the schedule, late calls make the next shorter,
    # so a thread's calls (one after another) take its span at most: their mean is
    # at most span / calls = delay x (1 + late), and at most half of them can be
    # over twice the mean; the median is no more than that and a bucket (12.5 %).
    # Not tighter: a thread woken a little later each call for half the phase,
    # then catching up, has half its calls long and the phase little late (a fresh
    # root at load 4: p50 5.5 ms against 4 ms calls, the phase 18.8 % late). No
    # floor on a busy machine (a thread held off the CPU runs the calls it missed
    # at once: a median of 39 us against 4 ms was seen at load 6)
    assert 0 < p50 <= 2 * delay * (1 + late) * 1.13, (phase, p50, late)
    # the barrier releases every rank at once; their spread is stored, and is
    # inside the phase it opens
    assert 0 <= skew < span, (phase, skew, span)
    n += 1
assert n > 0, 'no phase to check'
print('%d phases against the schedule of %s calls x %.1f ms' % (n, calls_arg, delay / 1e6))
PY
}

# without PREFIXES CMD...: CMD in a mount namespace of its own in which no shared object whose
# name starts with one of PREFIXES ("liburing.so libaio.so") exists, as on a host without the
# packages: each directory the loader finds them in (ldconfig -p) is covered by an overlay of
# itself under a layer of whiteouts for them. The namespace is a slave of this one (what is
# unmounted here is unmounted there: it keeps no other test's mount alive) and ends with CMD.
# CMD runs in the process that was started (exec): its PID is the one its parent knows.
# without_prepare PREFIXES writes $T/without.sh, which does the same for the command it is
# given, so that one rank of an MPMD job can run on such a "host":
#   $MPIRUN -np 1 $ST ARGS : -np 1 sh "$T/without.sh" $ST ARGS
without() {
	without_prepare "$1" || return 1
	shift
	sh "$T/without.sh" "$@"
}
without_prepare() {
	rm -rf "$T/hide"
	: >"$T/hide.dirs"
	for p in $1; do
		ldconfig -p | awk -v p="$p" 'index($1, p) == 1 { print $NF }' | while read -r f; do
			d=$(readlink -f "$(dirname "$f")")
			grep -qxF "$d" "$T/hide.dirs" || echo "$d" >>"$T/hide.dirs"
		done
	done
	i=0
	while read -r d; do
		mkdir -p "$T/hide/$i"
		for p in $1; do
			for f in "$d/$p"*; do
				[ -e "$f" ] || [ -L "$f" ] || continue
				mknod "$T/hide/$i/$(basename "$f")" c 0 0 || return 1
			done
		done
		i=$((i + 1))
	done <"$T/hide.dirs"
	cat >"$T/without.sh" <<EOS
exec unshare --mount --propagation slave sh -c '
	i=0
	while read -r d; do
		mount -t overlay -o "lowerdir=$T/hide/\$i:\$d" stcluster-without "\$d" ||
			{ echo "cannot hide the libraries in \$d" >&2; exit 125; }
		i=\$((i + 1))
	done <"$T/hide.dirs"
	for p in $1; do
		for d in \$(cat "$T/hide.dirs"); do
			for f in "\$d/\$p"*; do
				[ -e "\$f" ] && { echo "\$f is still there" >&2; exit 125; }
			done
		done
	done
	exec "\$@"' without "\$@"
EOS
}
