# What needs root (README "What needs root"): only --mount. The posix and
# null engines, the store, the reports and the analysis run as an ordinary
# user; checked as 'nobody', with Open MPI's run-as-root permission taken
# away so nothing here can be root by accident.

# as_nobody COMMAND...: run in $T/u as nobody, without the root allowance
as_nobody() {
	runuser -u nobody -- env -u OMPI_ALLOW_RUN_AS_ROOT -u OMPI_ALLOW_RUN_AS_ROOT_CONFIRM \
		LSAN_OPTIONS="suppressions=$T/u/lsan.supp:print_suppressions=0" sh -c 'cd "$0" && exec "$@"' "$T/u" "$@"
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
