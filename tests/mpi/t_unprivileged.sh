# What needs root (README "What needs root"): only --mount. The posix and
# null engines, the store, the reports and the analysis run as an ordinary
# user; checked as 'nobody', with Open MPI's run-as-root permission taken
# away so nothing here can be root by accident.

# as_nobody COMMAND...: run in $T/u as nobody, without the root allowance.
# A subcommand (no MPI) unwinds by frame pointers under ASan, as run.sh's
# wrapper has it: SQLite's many mallocs with the slow unwinder made this
# test 315 s on the sanitizer build (3 s on the normal one)
as_nobody() {
	a=${ASAN_OPTIONS:-}
	case "${2:-}" in
	report | runs | query | compare | effects | history | audit | advise) a="$a:fast_unwind_on_malloc=1" ;;
	esac
	runuser -u nobody -- env -u OMPI_ALLOW_RUN_AS_ROOT -u OMPI_ALLOW_RUN_AS_ROOT_CONFIRM \
		ASAN_OPTIONS="$a" LSAN_OPTIONS="suppressions=$T/u/lsan.supp:print_suppressions=0" \
		sh -c 'cd "$0" && exec "$@"' "$T/u" "$@"
}

t_unprivileged_run() {
	[ "$(id -u)" = 0 ] || fail "needs root to become another user (runuser)" || return 1
	id -u nobody >/dev/null 2>&1 || { echo "no user 'nobody' to run as"; return 77; }
	# a directory of nobody's own (the scratch directory is root's, 0700);
	# the binary is copied so a checkout nobody cannot read does not matter
	chmod 755 "$T"
	mkdir u u/target
	cp "$ST_BIN" u/stcluster
	cp "$TOP/tests/lsan.supp" u/
	chown -R nobody: u
	expect_eq "$(as_nobody id -u)" "$(id -u nobody)" "running as nobody" || return 1

	as_nobody $MPIRUN -np 2 ./stcluster --engine posix --target "$T/u/target" --block 64k --size 256k \
		--phases write,read,randread --db "$T/u/s.db" --quiet || fail "posix run as nobody" || return 1
	as_nobody $MPIRUN -np 2 ./stcluster --engine null --block 4k --size 64k --threads 1,2 \
		--db "$T/u/s.db" --quiet || fail "null run as nobody" || return 1
	# reports and analysis on the store
	as_nobody ./stcluster report --db s.db --format csv >out || fail "report" || return 1
	expect_eq "$(tail -n +2 out | wc -l)" 4 "report rows (2 combinations x write, read)" || return 1
	as_nobody ./stcluster runs --db s.db >out || fail "runs" || return 1
	as_nobody ./stcluster query --db s.db "SELECT COUNT(*) FROM rank_result" >out || fail "query" || return 1
	as_nobody ./stcluster effects --db s.db >out || fail "effects" || return 1
	grep -q threads out || fail "effects names threads: $(head -3 out)" || return 1
	as_nobody ./stcluster history --db s.db >out || fail "history" || return 1
	as_nobody ./stcluster advise --db s.db >out || fail "advise" || return 1
	grep -q "^  use          stcluster --engine null --threads " out || fail "advise's line: $(head -6 out)" || return 1
	as_nobody ./stcluster report --db s.db --html "$T/u/r.html" || fail "html report" || return 1
	# everything made is nobody's
	expect_eq "$(find u ! -user nobody | wc -l)" 0 "files not owned by nobody" || return 1
	# (only now root reads the store: its sqlite3 could leave root's files there)
	expect_eq "$(q u/s.db "SELECT GROUP_CONCAT(engine || ' ' || status, ', ') FROM run")" "posix complete, null complete" "runs" || return 1
	expect_eq "$(q u/s.db "SELECT COUNT(*) FROM combo WHERE status = 'ok'")" 3 "combinations ok" || return 1
	expect_eq "$(ls -A u/target)" "" "target left clean" || return 1

	# --mount is what needs root: one line, exit 2, nothing created
	mkdir u/mnt && chown nobody: u/mnt
	as_nobody ./stcluster --engine posix --mount tmpfs --fstype tmpfs --target "$T/u/mnt" \
		--db "$T/u/m.db" >out 2>err
	expect_eq $? 2 "--mount as nobody" || return 1
	expect_eq "$(cat err)" "stcluster: --mount: mounting needs root (run without --mount to record the options in force)" \
		"--mount refusal" || return 1
	[ ! -e u/m.db ] || fail "a store was created"
}

t_readonly_user_reads_a_store_an_aborted_run_left_in_wal() {
	[ "$(id -u)" = 0 ] || fail "needs root to become another user (runuser)" || return 1
	id -u nobody >/dev/null 2>&1 || { echo "no user 'nobody' to run as"; return 77; }
	# root's store in root's directory, which nobody may read, not write
	chmod 755 "$T"
	mkdir u
	cp "$ST_BIN" u/stcluster
	cp "$TOP/tests/lsan.supp" u/
	$ST --engine null --null-delay 20ms --block 4k --size 4m --db "$T/u/s.db" --quiet >out 2>err &
	pid=$!
	k=0
	while [ "$(q u/s.db 'SELECT COUNT(*) FROM run' 2>/dev/null)" != 1 ] && [ $k -lt 300 ]; do
		sleep 0.05
		k=$((k + 1))
	done
	sleep 0.2
	kill -INT $pid
	wait $pid
	expect_eq $? 3 "exit status after SIGINT" || return 1
	# its owner reads it (the sqlite3 shell checkpoints the WAL and removes
	# it): the file alone is the store, and its header still says WAL
	expect_eq "$(q u/s.db 'SELECT status FROM run')" aborted "the run" || return 1
	expect_eq "$(od -An -tu1 -j18 -N2 u/s.db | tr -s ' ')" " 2 2" "the header's journal mode (WAL)" || return 1
	[ ! -e u/s.db-wal ] && [ ! -e u/s.db-shm ] || fail "WAL files left: $(ls u)" || return 1
	sum=$(sha256sum <u/s.db)
	as_nobody ./stcluster runs --db s.db --format csv >out 2>err || fail "runs as nobody: exit $?: $(cat err)" || return 1
	expect_eq "$(tail -1 out | cut -d, -f12)" aborted "runs as nobody: the run's status" || return 1
	as_nobody ./stcluster query --db s.db "SELECT COUNT(*) FROM run" --format csv >out 2>err ||
		fail "query as nobody: exit $?: $(cat err)" || return 1
	expect_eq "$(tail -1 out)" 1 "query as nobody" || return 1
	as_nobody ./stcluster report --db s.db --format csv >out 2>err || fail "report as nobody: exit $?: $(cat err)" || return 1
	expect_eq "$(sha256sum <u/s.db)" "$sum" "the store after nobody read it" || return 1
	expect_eq "$(ls u)" "lsan.supp
s.db
stcluster" "files beside the store" || return 1
}
