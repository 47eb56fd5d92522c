# valgrind memcheck over a small real end-to-end job and the commands that
# read its store: no invalid access, no use of uninitialised bytes, no
# definite or indirect leak in stcluster's code. Open MPI, PMIx, libevent
# and hwloc's own leaks and reports are suppressed by tests/valgrind.supp,
# which names only those libraries' objects.
#
# A once_* function: tests/run.sh runs it a single time, on the normal
# build ($ST is ./stcluster). Memcheck cannot run the ASan+UBSan build
# (ASan replaces malloc itself and maps terabytes of shadow memory), and
# running it twice on the same binary would prove nothing more.

# vg_run EXPECTED-EXIT COMMAND...: run under memcheck (one log per process
# in $T/vg/); any memcheck error makes the process exit 99
vg_run() {
	want=$1
	shift
	"$@" >"$T/vg.out" 2>"$T/vg.err"
	rc=$?
	if [ $rc != "$want" ] || grep -q '==[0-9]*==' "$T"/vg/*.log 2>/dev/null; then
		echo "    $*: exit $rc, want $want" >&2
		# the command's own stderr, then the start of the first log with a
		# record (run.sh shows a failed test's last 40 lines)
		grep -v 'hwloc x86 backend\|reenabled by dumping\|reloading them under' "$T/vg.err" |
			head -8 | sed 's/^/    /' >&2
		for l in "$T"/vg/*.log; do
			grep -q '==[0-9]*==' "$l" && { echo "    $l:"; sed 's/^/    /' "$l"; }
		done | head -28 >&2
		fail "memcheck found errors (or the command failed)"
		return 1
	fi
}

once_valgrind_end_to_end_is_clean() {
	command -v valgrind >/dev/null || fail "valgrind is not installed (tests/deps.sh install)" || return 1
	mkdir data vg
	# --keep-debuginfo: Open MPI dlclose()s its components in MPI_Finalize,
	# before the leak check; their frames must keep their object's name to
	# be matched by the suppressions (and to be readable)
	# --show-leak-kinds as --errors-for-leak-kinds: a record in a log is an error (the check
	# above reads any); a "possibly lost" stack of Open MPI's progress thread, still running
	# at exit under load, was printed and failed the test though memcheck called it no error
	VG="valgrind -q --error-exitcode=99 --leak-check=full --errors-for-leak-kinds=definite,indirect
		--show-leak-kinds=definite,indirect
		--suppressions=$TOP/tests/valgrind.supp --keep-debuginfo=yes --num-callers=40
		--log-file=$T/vg/%p.log"
	# real files: 2 ranks x 4 combinations (threads, O_DIRECT on/off), every
	# byte read back and checked, files read by the other rank
	vg_run 0 $MPIRUN -np 2 $VG $ST --engine posix --target "$T/data" --block 64k --size 1m \
		--threads 1,2 --direct on,off --phases write,read --verify on --db "$T/v.db" --quiet || return 1
	expect_eq "$(q v.db "SELECT COUNT(*) FROM combo WHERE status = 'ok'")" 4 "combinations ok" || return 1
	# 2 ranks x (1 + 2 threads) x 1m x 2 phases x 2 (direct on, off)
	expect_eq "$(q v.db "SELECT SUM(bad_blocks) || ' ' || SUM(bytes) FROM rank_result")" "0 $((24 * 1048576))" \
		"verified bytes" || return 1
	expect_eq "$(ls -A data)" "" "target left clean" || return 1
	# the error paths: a phase error on every rank, a preparation failing on rank 1
	vg_run 1 $MPIRUN -np 2 $VG $ST --engine null --block 4k --size 64k --threads 1,2 \
		--null-error ENOSPC --null-error-at 3 --null-fail-setup 1 --phases write,read \
		--db "$T/v.db" --quiet || return 1
	expect_eq "$(q v.db "SELECT GROUP_CONCAT(rank) FROM combo_failure")" "1,1" "rank 1 failed both combinations" || return 1
	# refused input: one line, exit 2, and no leak on that way out either
	vg_run 2 $VG $ST --engine posix --target "$T/data" --block 3x --db "$T/v.db" || return 1
	expect_eq "$(grep -c 'stcluster: --block:' "$T/vg.err")" 1 "one line" || return 1
	# the readers of the store (no MPI)
	vg_run 0 $VG $ST report --db v.db || return 1
	grep -q "rank 1 .*injected setup failure" "$T/vg.out" || fail "report: $(head -3 "$T/vg.out")" || return 1
	vg_run 0 $VG $ST report --db v.db --run "$(q v.db "SELECT run_id FROM run WHERE engine = 'posix'")" \
		--format json || return 1
	python3 -c "import json; d = json.load(open('$T/vg.out'))['rows']; assert len(d) == 8, d" ||
		fail "json report: 4 combinations x 2 phases" || return 1
	vg_run 0 $VG $ST runs --db v.db --format csv || return 1
	expect_eq "$(tail -n +2 "$T/vg.out" | wc -l)" 2 "runs" || return 1
	vg_run 0 $VG $ST query --db v.db "SELECT phase, block, threads, agg_mbps FROM result" || return 1
	vg_run 0 $VG $ST report --db v.db --html "$T/r.html" || return 1
	grep -q "</html>" r.html || fail "html report" || return 1
	vg_run 0 $VG $ST audit last --db v.db || return 1
	expect_eq "$(tail -1 "$T/vg.out")" "ok: all 5 hashes match" "audit" || return 1
	# every process ran under memcheck: 2 + 2 ranks, 1 refusal, 6 readers (and
	# the refusal's MPI singleton start forks, for orted: one log more)
	[ "$(ls vg | wc -l)" -ge 11 ] || fail "memcheck logs: $(ls vg | wc -l), want 11 or more"
}
