# tests/lib.sh - sourced by every shell test. A test file is a list of
# functions named t_*; tests/run.sh runs each in a subshell with a fresh
# scratch directory ($T) and counts it as passed when it returns 0.
#
#   ST        the stcluster binary under test (normal or sanitizer build)
#   T         a scratch directory, removed after the test
#   MPIRUN    mpirun with the options this machine needs

. "$TOP/tests/mpienv.sh"

MPIRUN="mpirun --bind-to none"

# fail MESSAGE: print why and make the test fail
fail() { echo "    FAIL: $*" >&2; return 1; }

# expect_eq GOT WANT WHAT
expect_eq() {
	[ "$1" = "$2" ] || fail "$3: got '$1', want '$2'"
}

# q DB SQL: one value from the store (the sqlite3 shell, as a user would)
q() { sqlite3 -batch -noheader "$1" "$2"; }

# within GOT WANT PERCENT: |GOT - WANT| <= PERCENT % of WANT
within() {
	awk -v g="$1" -v w="$2" -v p="$3" 'BEGIN { d = g - w; if (d < 0) d = -d; exit !(d <= w * p / 100) }' ||
		fail "$4: $1 is not within $3 % of $2"
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
		if tr '\0' ' ' <"$c" 2>/dev/null | grep -qF -- "$1" &&
			tr '\0' '\n' <"/proc/$p/environ" 2>/dev/null | grep -qx "OMPI_COMM_WORLD_RANK=$2"; then
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
hit_rank() {
	wait_stored "$T/$2" 1 || { kill "$1"; fail "the first combination was never stored"; return 1; }
	sleep 0.5
	victim=$(rank_pid "$1" "$3" || rank_pid_with "--db $T/$2" "$3") ||
		{ kill "$1"; fail "rank $3 not found"; return 1; }
	kill -"$4" "$victim"
	t0=$(date +%s%N)
}

# since_ms T0: ms since T0 (ns)
since_ms() { echo $((($(date +%s%N) - $1) / 1000000)); }

# cut_run DB SEQ: remove the run's combinations from SEQ on and mark it
# running, as a crash after SEQ commits leaves it
cut_run() {
	sqlite3 "$1" "DELETE FROM rank_result WHERE combo_id IN (SELECT combo_id FROM combo WHERE seq >= $2);
		DELETE FROM thread_result WHERE combo_id IN (SELECT combo_id FROM combo WHERE seq >= $2);
		DELETE FROM phase_run WHERE combo_id IN (SELECT combo_id FROM combo WHERE seq >= $2);
		DELETE FROM effective_option WHERE combo_id IN (SELECT combo_id FROM combo WHERE seq >= $2);
		DELETE FROM rpc_stat WHERE combo_id IN (SELECT combo_id FROM combo WHERE seq >= $2);
		DELETE FROM combo WHERE seq >= $2; UPDATE run SET status = 'running';"
}
