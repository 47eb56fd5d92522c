# Trust (issue 11): nothing the user stored is lost or written over, input
# is read as the user meant it, and every exit status and verdict means
# what README says. Each test is named after the defect it guards.

# trust_store: a small real run in $T/s.db (null engine)
trust_store() {
	$ST --engine null --block 4k --size 16k --label "a run" --db "$T/s.db" --quiet >/dev/null
}

# refused EXPECTED-TEXT ARGS...: exit 2 and one line on stderr holding the text
refused() {
	want="$1"
	shift
	ASAN_OPTIONS="fast_unwind_on_malloc=1:detect_leaks=0" $ST "$@" >"$T.refused.out" 2>"$T.refused.err"
	rc=$?
	lines=$(grep -c . "$T.refused.err")
	if [ $rc != 2 ] || [ "$lines" != 1 ] || ! grep -qF -- "$want" "$T.refused.err"; then
		fail "$*: exit $rc, $lines line(s), want '$want': $(cat "$T.refused.err")"
		rm -f "$T.refused.out" "$T.refused.err"
		return 1
	fi
	rm -f "$T.refused.out" "$T.refused.err"
}

t_html_never_replaces_the_store_or_a_foreign_file() {
	trust_store || return 1
	sum=$(sha256sum <s.db)
	refused "'s.db' is the store itself" report --db s.db --html s.db || return 1
	ln -s s.db link.html
	refused "'link.html' is the store itself" report --db s.db --html link.html || return 1
	refused "is the store itself" report --db s.db --html "$T/./s.db" --force || return 1
	expect_eq "$(sha256sum <s.db)" "$sum" "the store after --html at it" || return 1
	echo "my notes" >notes.html
	refused "'notes.html' exists and is not a page stcluster wrote (--force replaces it)" \
		report --db s.db --html notes.html || return 1
	expect_eq "$(cat notes.html)" "my notes" "a file stcluster did not write" || return 1
	# a FIFO would block the writer for ever: refused without opening it
	mkfifo fifo.html
	timeout 20 $ST report --db s.db --html fifo.html 2>"$T.err"
	expect_eq $? 2 "--html FIFO" || return 1
	grep -q "'fifo.html' is not a regular file" "$T.err" || fail "FIFO: $(cat "$T.err")" || return 1
	mkdir dir.html
	refused "'dir.html' is not a regular file" report --db s.db --html dir.html || return 1
	# its own page is replaced; another file only with --force; nothing else is left
	$ST report --db s.db --html page.html || return 1
	grep -q 'name="generator" content="stcluster' page.html || fail "no generator mark" || return 1
	$ST report --db s.db --html page.html || fail "replacing its own page" || return 1
	$ST report --db s.db --html notes.html --force || fail "--force" || return 1
	grep -q '<!DOCTYPE html>' notes.html || fail "--force did not write the page" || return 1
	expect_eq "$(ls | sort | tr '\n' ' ')" "dir.html fifo.html link.html notes.html page.html s.db " \
		"files after the reports" || return 1
	expect_eq "$(sha256sum <s.db)" "$sum" "the store at the end"
}

t_query_cannot_write_anywhere() {
	trust_store || return 1
	sum=$(sha256sum <s.db)
	refused "VACUUM INTO" query --db s.db "VACUUM INTO '$T/copy.db'" || return 1
	refused "not authorized" query --db s.db "ATTACH '$T/new.db' AS x" || return 1
	refused "not authorized" query --db s.db "CREATE TEMP TABLE scratch(a)" || return 1
	refused "not authorized" query --db s.db "PRAGMA user_version = 7" || return 1
	refused "not authorized" query --db s.db "SELECT 1; DELETE FROM run" || return 1
	[ ! -e copy.db ] && [ ! -e new.db ] || fail "a query wrote a file: $(ls)" || return 1
	expect_eq "$(sha256sum <s.db)" "$sum" "the store" || return 1
	# what reads still works, pragmas that only report too
	expect_eq "$($ST query --db s.db "SELECT label FROM run" --format csv | tail -1)" "a run" "a SELECT" || return 1
	expect_eq "$($ST query --db s.db "PRAGMA user_version" --format csv | tail -1)" \
		"$(q s.db 'PRAGMA user_version')" "PRAGMA user_version" || return 1
	$ST query --db s.db "SELECT name FROM pragma_table_info('run')" >/dev/null || fail "pragma_table_info" || return 1
	$ST runs --db s.db >/dev/null && $ST report --db s.db >/dev/null && $ST history --db s.db >/dev/null ||
		fail "the reports under the read-only authorizer"
}

t_history_where_refuses_a_second_statement() {
	trust_store || return 1
	refused "--where: ';' ends a statement" history --db s.db --where "block=4k; SELECT 1" || return 1
	# a ';' inside a string is text
	$ST history --db s.db --where "label <> 'a;b'" >/dev/null || fail "';' in a string" || return 1
	# what a WHERE over the views takes (issue 19): a subquery over the
	# store's tables ("circular reference: combo"), a --data pattern bare
	# (one combination selected of four: data does not vary in it)
	$ST --engine null --block 4k,8k --size 16k --data random,compress:50 --db "$T/h.db" --quiet || return 1
	expect_eq "$($ST history --db h.db --where "block IN (SELECT block FROM combo WHERE block > 4096) AND data=compress:50" --format csv | cut -d, -f6,7 | sort | tr '\n' ' ')" \
		"phase,block read,8k write,8k " "history of a subquery and a pattern"
}

t_subcommand_options_given_twice_are_refused() {
	trust_store || return 1
	refused "--db: given twice" runs --db s.db --db s.db || return 1
	refused "--format: given twice" report --db s.db --format csv --format json || return 1
	refused "--where: given twice" history --db s.db --where "block=4k" --where "block=8k" || return 1
	refused "--phase: given twice" report --db s.db --phase read --phase=write
}

t_foreign_or_damaged_store_is_bad_input_left_unchanged() {
	trust_store || return 1
	$ST --engine null --block 4k,8k,16k --threads 1,2,3 --size 64k --db "$T/big.db" --quiet || return 1
	sqlite3 other.db "CREATE TABLE customers(name); INSERT INTO customers VALUES ('a');"
	sqlite3 versioned.db "CREATE TABLE t(a); PRAGMA user_version = 2;"
	# a store that lost its second half (a copy cut short, a full disk)
	size=$(stat -c %s big.db)
	head -c $((size / 2)) big.db >cut.db
	for db in other.db versioned.db cut.db; do
		sum=$(sha256sum <$db)
		case $db in cut.db) why="is damaged" ;; *) why="is a SQLite database, but not an stcluster store" ;; esac
		refused "--db: '$T/$db' $why" --engine null --block 4k --size 16k --db "$T/$db" || return 1
		refused "--db: '$db' $why" runs --db $db || return 1
		expect_eq "$(sha256sum <$db)" "$sum" "$db unchanged" || return 1
		[ ! -e $db-wal ] && [ ! -e $db-shm ] || fail "$db: WAL files made" || return 1
	done
}

t_new_store_on_a_full_file_system_leaves_nothing() {
	mkdir full
	mount -t tmpfs -o size=8k tmpfs "$T/full" || return 77
	trap 'umount "$T/full" 2>/dev/null' EXIT
	$ST --engine null --block 4k --size 16k --db "$T/full/s.db" --quiet >out 2>err
	rc=$?
	[ $rc != 0 ] && [ $rc != 2 ] || fail "exit $rc on a full file system" || return 1
	grep -q "store" err || fail "no message: $(cat err)" || return 1
	expect_eq "$(ls -A full)" "" "files left on the full file system" || return 1
	umount "$T/full"
}

t_failed_run_leaves_a_dangling_db_symlink_as_it_was() {
	ln -s missing/s.db link.db
	$ST --engine null --block 4k --size 16k --db link.db --quiet >out 2>err
	rc=$?
	[ $rc != 0 ] || fail "exit 0 with a store in a missing directory" || return 1
	expect_eq "$(readlink link.db)" "missing/s.db" "the symlink after the failed run" || return 1
	# into a full file system: what the run made there goes, the link stays
	mkdir full
	mount -t tmpfs -o size=8k tmpfs "$T/full" || return 77
	trap 'umount "$T/full" 2>/dev/null' EXIT
	ln -s full/s.db full.db
	$ST --engine null --block 4k --size 16k --db full.db --quiet >out 2>err
	rc=$?
	[ $rc != 0 ] && [ $rc != 2 ] || fail "exit $rc on a full file system" || return 1
	expect_eq "$(readlink full.db)" "full/s.db" "the symlink to the full file system" || return 1
	expect_eq "$(ls -A full)" "" "files left on the full file system" || return 1
	umount "$T/full"
}

t_store_whose_wal_holds_its_end_is_read_not_called_truncated() {
	trust_store || return 1
	# a checkpoint the disk filled up in: the file's header counts pages the
	# file never got, which the WAL still holds (SQLite reads them there)
	python3 - <<'PY' || fail "making the store" || return 1
import os, shutil, sqlite3
c = sqlite3.connect('s.db', isolation_level=None)
c.execute('PRAGMA journal_mode = WAL')
c.execute('PRAGMA wal_autocheckpoint = 0')
c.execute("UPDATE run SET command = ?", ('x' * 200000,))
size = os.path.getsize('s.db')
c.execute('PRAGMA wal_checkpoint(PASSIVE)')
os.mkdir('full')
shutil.copy('s.db-wal', 'full/s.db-wal')
with open('s.db', 'rb') as f:
    data = f.read()
assert len(data) > size
with open('full/s.db', 'wb') as f:
    f.write(data[:size])
PY
	[ "$(stat -c %s full/s.db-wal)" -gt 200000 ] || fail "no WAL frames" || return 1
	$ST runs --db full/s.db --format csv >out 2>err || fail "runs: exit $?: $(cat err)" || return 1
	expect_eq "$(grep -c ',a run,' out)" 1 "runs: the run" || return 1
	$ST query --db full/s.db 'SELECT length(command) FROM run' --format csv >out 2>err || fail "query: exit $?: $(cat err)" || return 1
	expect_eq "$(tail -1 out)" 200000 "query: the command's length" || return 1
	# and a run may add to it
	$ST --engine null --block 4k --size 16k --db "$T/full/s.db" --quiet || fail "a run on the store" || return 1
	expect_eq "$(q full/s.db 'SELECT COUNT(*) FROM run')" 2 "runs in the store" || return 1
}

t_locked_store_is_called_locked_not_damaged() {
	trust_store || return 1
	sum=$(sha256sum <s.db)
	# another process holds the store past the busy timeout (30 s)
	python3 -c "
import sqlite3, time
c = sqlite3.connect('s.db', isolation_level=None)
c.execute('BEGIN EXCLUSIVE')
c.execute('UPDATE run SET label = label')
open('held', 'w').close()
time.sleep(120)
" &
	holder=$!
	k=0
	while [ ! -e held ] && [ $k -lt 300 ]; do sleep 0.1; k=$((k + 1)); done
	[ -e held ] || { kill $holder; fail "the lock was not taken"; return 1; }
	refused "--db: 's.db' is locked" runs --db s.db || { kill $holder; return 1; }
	kill $holder
	wait $holder 2>/dev/null
	expect_eq "$(sha256sum <s.db)" "$sum" "the store" || return 1
}

t_failed_migration_leaves_the_store_byte_for_byte() {
	trust_store || return 1
	# an older store whose migration fails: version 6, and 7's column already there
	q s.db 'PRAGMA user_version = 6' >/dev/null
	cp s.db before.db
	$ST --engine null --block 4k --size 16k --db "$T/s.db" --quiet >out 2>err
	rc=$?
	[ $rc = 3 ] || fail "exit $rc: $(cat err)" || return 1
	grep -q "duplicate column name: hist_enc" err || fail "the message: $(cat err)" || return 1
	cmp s.db before.db || fail "the store's bytes changed" || return 1
	expect_eq "$(ls -A)" "before.db
err
out
s.db" "files beside the store" || return 1
}

t_option_values_are_never_options() {
	printf 'threads = 3\n' >ok.conf
	# each value below looks like an option; it is the label, nothing else
	for v in "--plan=/etc/passwd" "--plan=$T/ok.conf" "--resume=x" "--db=$T/other.db" --help \
		--version -h; do
		$ST --engine null --block 4k --size 16k --db "$T/s.db" --quiet --label "$v" >out 2>err ||
			fail "--label '$v': exit $?: $(cat err)" || return 1
		[ ! -s err ] && ! grep -q "root:" out || fail "--label '$v' read a file: $(cat out err)" || return 1
	done
	expect_eq "$(q s.db "SELECT group_concat(label, ' ') FROM (SELECT label FROM run ORDER BY rowid)")" \
		"--plan=/etc/passwd --plan=$T/ok.conf --resume=x --db=$T/other.db --help --version -h" \
		"the labels" || return 1
	expect_eq "$(q s.db "SELECT DISTINCT threads FROM combo")" 1 "no plan applied" || return 1
	[ ! -e other.db ] || fail "a --db inside a value was used"
}

t_resume_takes_no_wildcards() {
	trust_store || return 1
	cut_run s.db 0
	refused "--resume: no run '%' in $T/s.db" --resume % --db "$T/s.db" || return 1
	refused "--resume: no run '_' in $T/s.db" --resume _ --db "$T/s.db" || return 1
	expect_eq "$(q s.db 'SELECT COUNT(*) FROM combo')" 0 "nothing resumed"
}

t_plan_value_with_inner_spaces_is_refused() {
	printf 'engine = null\nsize = 1 0 k\n' >spaces.conf
	refused "spaces.conf:2: --size: invalid size '1 0 k'" --plan spaces.conf --db "$T/s.db" || return 1
	# around a comma spaces are fine
	printf 'engine = null\nblock = 4k , 8k\nsize = 16k\n' >list.conf
	$ST --plan list.conf --dry-run --db "$T/s.db" | head -1 | grep -q "^2 combinations" ||
		fail "block = 4k , 8k"
}

t_fstype_without_mount_is_refused() {
	refused "--fstype: 'tmpfs' is the type --mount mounts" --engine null --fstype tmpfs --db "$T/s.db" || return 1
	refused "--fstype: 'nfs' is the type --mount mounts" --engine null --fstype nfs --db "$T/s.db" || return 1
	printf 'engine = null\nfstype = nfs4\n' >ft.conf
	refused "--fstype: 'nfs4'" --plan ft.conf --db "$T/s.db" || return 1
	[ ! -e s.db ] || fail "a store was made"
}

t_plan_fifo_is_refused_not_waited_for() {
	mkfifo plan.fifo
	timeout 20 $ST --plan plan.fifo --db "$T/s.db" 2>"$T.err"
	expect_eq $? 2 "--plan FIFO: exit status" || return 1
	grep -q "^stcluster: --plan: 'plan.fifo' is not a regular file$" "$T.err" || fail "message: $(cat "$T.err")"
}

t_runs_json_is_valid_with_a_non_utf8_label() {
	$ST --engine null --block 4k --size 16k --db "$T/s.db" --quiet --label "$(printf 'caf\351 lab')" || return 1
	for cmd in runs report; do
		$ST $cmd --db s.db --format json >$cmd.json || return 1
		python3 -c "import json; json.load(open('$cmd.json', encoding='utf-8'))" || fail "$cmd --format json is not JSON" || return 1
	done
	python3 -c "import json; d = json.load(open('runs.json'))['rows']; assert d[0]['label'] == 'caf\ufffd lab', d" ||
		fail "the label in runs"
}

t_exit_status_and_runs_counts_say_how_the_run_went() {
	N="--engine null --db $T/s.db --quiet"
	expect_exit 0 $ST $N --block 4k --size 16k --label ok || return 1
	# every combination failed to prepare: the run is complete, and not ok
	expect_exit 1 $MPIRUN -np 2 $ST $N --block 4k --size 16k --threads 1,2 --null-fail-setup 0 --label failed || return 1
	expect_exit 1 $ST $N --block 4k --size 16k --threads 1,2 --null-error EIO --null-error-at 1 --label error || return 1
	# a combination that cannot run is skipped with its reason: not a failure
	expect_exit 0 $ST $N --block 4k,48k --size 64k --label skipped || return 1
	expect_exit 2 $ST $N --block 3x || return 1
	expect_eq "$($ST runs --db s.db --format csv | cut -d, -f3,6- | tail -n +2)" \
		"ok,1/1,1,0,0,0,0,complete,
failed,2/2,0,0,2,0,0,complete,
error,2/2,0,2,0,0,0,complete,
skipped,2/2,1,0,0,1,0,complete," "runs: label, combinations, ok, error, failed, skipped, unverified, status, note" || return 1
	# interrupted: 3
	$ST $N --null-delay 20ms --block 4k --size 4m --label interrupted >out 2>err &
	pid=$!
	k=0
	while [ "$(q s.db "SELECT COUNT(*) FROM run WHERE label = 'interrupted'")" != 1 ] && [ $k -lt 300 ]; do
		sleep 0.05
		k=$((k + 1))
	done
	sleep 0.2
	kill -INT $pid
	wait $pid
	expect_eq $? 3 "exit status after SIGINT" || return 1
	expect_eq "$(q s.db "SELECT status FROM run WHERE label = 'interrupted'")" aborted "the interrupted run"
}

t_readme_exit_statuses_are_the_man_page_s() {
	$ST --help-man | awk '/^\.SH EXIT STATUS/ { on = 1; next } /^\.SH/ { on = 0 }
		on && /^\.TP/ { getline n; getline t; gsub(/\\-/, "-", t); print "- **" n "**: " t }' >statuses
	expect_eq "$(wc -l <statuses)" 4 "exit statuses in the man page" || return 1
	while read -r line; do
		grep -qxF -- "$line" "$TOP/README.md" || fail "README lacks: $line" || return 1
	done <statuses
}

t_subcommand_output_write_error_is_exit_1_and_one_line() {
	# two runs, one option that varies: every subcommand has rows to print
	N="--engine null --size 16k --db $T/s.db --quiet"
	$ST $N --block 4k,8k >/dev/null && $ST $N --block 4k,8k >/dev/null || return 1
	for c in report runs query effects compare history audit "report --html -"; do
		case $c in
		query) set -- "SELECT * FROM run" ;;
		compare) set -- last~1 last ;;
		audit) set -- last ;;
		*) set -- ;;
		esac
		for to in full closed; do
			if [ $to = full ]; then
				$ST $c "$@" --db s.db >/dev/full 2>err
			else
				$ST $c "$@" --db s.db >&- 2>err
			fi
			rc=$?
			expect_eq $rc 1 "$c, stdout $to: exit status" || return 1
			expect_eq "$(wc -l <err)" 1 "$c, stdout $to: lines on stderr ($(cat err))" || return 1
			grep -q "^stcluster ${c%% *}: cannot write the output: " err || fail "$c: $(cat err)" || return 1
		done
	done
}

t_run_whose_store_was_removed_or_replaced_is_not_0() {
	for how in removed replaced; do
		rm -f s.db s.db-wal s.db-shm
		$ST --engine null --null-delay 20ms --block 4k --size 1m --db "$T/s.db" >out 2>err &
		pid=$!
		k=0
		while [ "$(q s.db "SELECT COUNT(*) FROM run" 2>/dev/null)" != 1 ] && [ $k -lt 300 ]; do
			sleep 0.05
			k=$((k + 1))
		done
		rm -f s.db s.db-wal s.db-shm
		[ $how = removed ] || trust_store || return 1
		wait $pid
		expect_eq $? 3 "store $how during the run: exit status" || return 1
		grep -q "^stcluster: the store '$T/s.db' \(is gone\|was replaced during the run\)" err ||
			fail "$how: $(cat err)" || return 1
		! grep -q "stored as run" out || fail "$how: the run says it was stored" || return 1
	done
}

t_signal_to_mpirun_stores_the_run_aborted() {
	# README: a signal to mpirun itself ends the job through Open MPI, whose
	# mpirun exits 1 (its own status, whatever the ranks return); the run is
	# stored aborted. A signal to a rank (or to a run without mpirun) is 3:
	# t_exit_status_and_runs_counts_say_how_the_run_went
	for sig in INT HUP TERM; do
		$MPIRUN -np 2 $ST --engine null --null-delay 20ms --block 4k --size 4m --db "$T/s.db" \
			--label "$sig" --quiet >out 2>err &
		pid=$!
		k=0
		while [ "$(q s.db "SELECT COUNT(*) FROM run WHERE label = '$sig'" 2>/dev/null)" != 1 ] &&
			[ $k -lt 300 ]; do
			sleep 0.05
			k=$((k + 1))
		done
		sleep 0.5
		kill -$sig $pid
		wait $pid
		expect_eq $? 1 "SIG$sig to mpirun: exit status" || return 1
		expect_eq "$(q s.db "SELECT status FROM run WHERE label = '$sig'")" aborted \
			"SIG$sig: the run (stderr: $(cat err))" || return 1
	done
}

t_ranks_wait_for_rank0_to_mark_the_run_before_they_end() {
	# mpirun sends SIGCONT, then after odls_base_sigkill_timeout SIGTERM, then
	# after the same time SIGKILL to every rank, but at once once one rank has
	# exited (the first SIGCHLD cuts its sleep short): a rank that ended on its
	# SIGTERM at once took rank 0's time to mark the run (CI: 'running' after
	# SIGINT, under load). Here rank 0's mark is held back by the store's
	# write lock past mpirun's SIGTERM: the other rank must still be there
	# then, and the run marked aborted once the lock is let go.
	export OMPI_MCA_odls_base_sigkill_timeout=2
	hold_while_running "$T/s.db"
	$MPIRUN -np 2 $ST --engine null --null-delay 20ms --block 4k --size 4m --db "$T/s.db" \
		--quiet >out 2>err &
	pid=$!
	trap 'touch "$T/s.db.release"; kill -9 $pid 2>/dev/null; wait' EXIT
	k=0
	while [ ! -s s.db.held ] || ! r1=$(rank_pid $pid 1); do
		k=$((k + 1))
		[ $k -lt 1200 ] || { fail "the run row or rank 1 never appeared: $(cat err)"; return 1; }
		sleep 0.05
	done
	expect_eq "$(cat s.db.held)" running "the run's status when the store was held" || return 1
	kill -INT $pid
	# SIGTERM 2 s after the SIGINT; 1 s after it rank 0 still waits for the lock
	sleep 3
	kill -0 "$r1" 2>/dev/null || fail "rank 1 ended before rank 0 could mark the run: $(cat err)" ||
		return 1
	touch s.db.release
	wait $pid
	expect_eq $? 1 "SIGINT to mpirun: exit status" || return 1
	wait $holder
	expect_eq "$(q s.db "SELECT status || ' ' || (abort_reason LIKE 'rank _ got SIGTERM during %') FROM run")" \
		"aborted 1" "the run (stderr: $(cat err))"
}

t_readme_using_it_commands_work_as_printed() {
	# the first block of "Using it", as printed, with ./stcluster the binary under test
	awk '/^## Using it/ { on = 1 } on && /^```/ { if (inb) exit; inb = 1; next } inb' "$TOP/README.md" >cmds
	[ "$(wc -l <cmds)" -ge 5 ] || fail "no commands found: $(cat cmds)" || return 1
	grep -q '^mkdir -p /tmp/x && mpirun ' cmds || fail "the first command: $(head -1 cmds)" || return 1
	while read -r cmd; do
		sh -c "$(echo "$cmd" | sed "s|\./stcluster|$ST|g")" >out 2>err ||
			fail "'$cmd': exit $?: $(cat err)" || return 1
	done <cmds
	expect_eq "$(q stcluster.db "SELECT COUNT(*) || ' ' || status FROM combo GROUP BY status")" "4 ok" "the run" || return 1
	# nothing left in the target; the directory itself only if no one else uses it
	expect_eq "$(ls -A /tmp/x | grep -c "$(q stcluster.db 'SELECT run_id FROM run')")" 0 "files left in /tmp/x" || return 1
	rmdir /tmp/x 2>/dev/null
	return 0
}

# hold_while_running DB: in the background, take DB's write lock as soon as
# its run row says "running", and keep it until the file DB.release exists:
# the run, whose next commit then waits (busy timeout 30 s), stays live by
# construction, however slow the machine (the 3 s of null delays once ended
# before a test's checks under load 18). DB.held says "running" once held,
# or what it found instead.
hold_while_running() {
	python3 -c '
import os, sqlite3, sys, time
db = sys.argv[1]
while True:
    try:
        c = sqlite3.connect(db, isolation_level=None, timeout=0.05)
        c.execute("BEGIN IMMEDIATE")
        row = c.execute("SELECT status FROM run").fetchone()
    except sqlite3.OperationalError:
        row = None  # no store or schema yet, or the run is mid-commit
    if row is not None:
        break
    try:
        c.close()
    except NameError:
        pass
    time.sleep(0.01)
with open(db + ".held.tmp", "w") as f:
    f.write(row[0] + "\n")
os.rename(db + ".held.tmp", db + ".held")
while not os.path.exists(db + ".release"):
    time.sleep(0.05)
c.execute("ROLLBACK")' "$1" &
	holder=$!
}

t_rank0_killed_run_shows_aborted_and_a_live_run_is_not_resumed() {
	hold_while_running "$T/s.db"
	# 0.5 s a combination, 6 of them
	$ST --engine null --null-delay 10ms --block 4k --size 100k --iterations 6 --db "$T/s.db" --quiet >out 2>&1 &
	pid=$!
	# stop both however the test ends
	trap 'touch "$T/s.db.release"; kill -9 $pid 2>/dev/null; wait' EXIT
	k=0
	while [ ! -s s.db.held ]; do
		k=$((k + 1))
		[ $k -lt 1200 ] || { fail "the run row never appeared: $(cat out)"; return 1; }
		sleep 0.05
	done
	expect_eq "$(cat s.db.held)" running "the run's status when the store was held" || return 1
	run=$(q s.db 'SELECT run_id FROM run')
	expect_eq "$($ST runs --db s.db --format csv | tail -1 | cut -d, -f12)" running "a live run" || return 1
	# a second job on the same run would write the same combinations
	refused "--resume: run $run is still running" --resume "$run" --db "$T/s.db" || return 1
	kill -9 $pid
	wait $pid 2>/dev/null
	touch s.db.release
	wait $holder
	# the row still says running; runs and report say what is true, writing nothing
	expect_eq "$(q s.db 'SELECT status FROM run')" running "the stored row" || return 1
	# (after the sqlite3 shell, which writes the WAL into the store when it closes)
	sum=$(sha256sum <s.db)
	$ST runs --db s.db --format json >runs.json || return 1
	python3 -c "
import json
r = json.load(open('runs.json'))['rows'][0]
assert r['status'] == 'aborted' and r['note'].startswith('rank 0 gone: no process holds'), r
" || fail "runs: $(cat runs.json)" || return 1
	expect_eq "$(sha256sum <s.db)" "$sum" "the store after runs" || return 1
	# a writer records it: --resume finishes the run and says what it resumed after
	$ST --resume "$run" --db "$T/s.db" --quiet || fail "--resume of a dead run" || return 1
	expect_eq "$(q s.db 'SELECT status || " " || abort_rank FROM run')" "complete 0" "after --resume" || return 1
	$ST runs --db s.db --format csv | tail -1 | grep -q ',complete,"resumed after: rank 0 gone' ||
		fail "runs after --resume: $($ST runs --db s.db --format csv)" || return 1
	$ST audit last --db s.db >audit.out || fail "audit: $(cat audit.out)" || return 1
	# the last holder of the lock file removes it (the killed one could not)
	[ -z "$(ls -A | grep '\.live$')" ] || fail "lock file left: $(ls -A)"
}

t_live_run_is_known_by_its_store_file_not_the_spelling_of_db() {
	# a live run by construction: 80 combinations of 0.5 s (25 ops of 10 ms)
	$ST --engine null --null-delay 10ms --block 4k --size 100k --iterations 80 --db "$T/s.db" --quiet >live.out 2>&1 &
	pid=$!
	wait_stored "$T/s.db" 1 || { kill $pid; fail "no combination stored"; return 1; }
	run=$(q s.db 'SELECT run_id FROM run')
	ln -s s.db link.db
	mkdir d && ln -s ../s.db d/up.db
	# through a symlink, a relative link in another directory, ./ and //: the same store
	for db in link.db "$T/d/up.db" "./s.db" "$T//s.db" "$T/d/../link.db"; do
		refused "--resume: run $run is still running" --resume "$run" --db "$db" || { kill $pid; return 1; }
	done
	# a new run through the symlink sees the live run live: it marks nothing
	$ST --engine null --block 4k --size 16k --db link.db --quiet || { kill $pid; fail "the second run"; return 1; }
	expect_eq "$($ST runs --db link.db --format csv | grep -c ',running,$')" 1 "runs through the link: the live run" || { kill $pid; return 1; }
	kill -0 $pid 2>/dev/null || fail "the live run ended before the checks (too slow a machine?): $(cat live.out)" || return 1
	expect_eq "$(q s.db "SELECT status || '|' || COALESCE(abort_reason, '') FROM run WHERE run_id = '$run'")" "running|" "the live run while live" || { kill $pid; return 1; }
	wait $pid || fail "the live run: exit $?: $(cat live.out)" || return 1
	expect_eq "$(q s.db "SELECT status || '|' || COALESCE(abort_reason, '') || '|' || (SELECT COUNT(*) FROM combo c WHERE c.run_id = run.run_id) FROM run WHERE run_id = '$run'")" "complete||80" "the live run at its end" || return 1
	[ -z "$(ls -A | grep '\.live$')" ] || fail "lock files left: $(ls -A)"
}

t_sigstopped_rank0_is_named_and_the_job_ends_by_the_deadline() {
	# 0.2 s phases, --deadline 1: a silent rank 0 is given 1 s + a grace of 5.1 s
	$MPIRUN -np 3 $ST --engine null --null-delay 2ms --block 4k --size 400k --iterations 40 \
		--deadline 1 --db "$T/s.db" --quiet >out 2>&1 &
	mp=$!
	hit_rank $mp s.db 0 STOP || return 1
	k=0
	while kill -0 $mp 2>/dev/null && [ $k -lt 300 ]; do sleep 0.1; k=$((k + 1)); done
	took=$(since_ms $t0)
	if kill -0 $mp 2>/dev/null; then
		kill -9 "$victim"
		kill $mp
		fail "the job still ran 30 s after rank 0 stopped"
		return 1
	fi
	wait $mp
	rc=$?
	kill -CONT "$victim" 2>/dev/null
	k=0
	while kill -0 "$victim" 2>/dev/null && [ $k -lt 50 ]; do sleep 0.1; k=$((k + 1)); done
	kill -0 "$victim" 2>/dev/null && { kill -9 "$victim"; fail "rank 0 outlived mpirun"; return 1; }
	[ $rc != 0 ] || fail "mpirun exited 0" || return 1
	# the bound: the deadline and its grace (6.1 s), then mpirun's end of the job
	cap=$(cap_ms 6100 15000)
	[ $took -gt 5000 ] && [ $took -lt $cap ] || fail "the job ended $took ms after rank 0 stopped (cap $cap ms; its start took $lead ms)" || return 1
	grep -q "rank [12] (host $(hostname)): rank 0 (host $(hostname)) silent for [0-9.]* s" out ||
		fail "no rank named rank 0: $(cat out)" || return 1
	# rank 0 either went on long enough to record it, or is gone: both say rank 0
	$ST runs --db s.db --format csv | tail -1 | grep -q ',aborted,"\?rank 0 ' ||
		fail "runs: $($ST runs --db s.db --format csv)" || return 1
	echo "stopped rank 0; mpirun exit $rc after $took ms"
}

t_history_compares_with_a_window_of_earlier_runs() {
	# good, good, bad, recovered: the last is compared with the runs just before it
	for d in 2ms:G1 2ms:G2 6ms:BAD 2ms:OK; do
		$ST --engine null --null-delay ${d%%:*} --block 16k --size 128k --iterations 3 --phases read \
			--label ${d#*:} --db "$T/s.db" --quiet || return 1
	done
	for w in 1 2 0; do
		$ST history --db s.db --window $w --format json >h$w.json || return 1
	done
	$ST history --db s.db --format json >hdef.json || return 1
	python3 - <<'PY' || fail "history windows against the raw rows"
import json, sqlite3, statistics
con = sqlite3.connect('s.db')
def mbps(label):
    return [y for (y,) in con.execute('''SELECT agg_mbps FROM result r JOIN run USING (run_id)
        WHERE run.label = ? AND r.phase = 'read' ''', (label,))]
def last(w):
    return [r for r in json.load(open('h%s.json' % w))['rows'] if r['label'] == 'OK'][0]
one, two, every, default = last(1), last(2), last(0), last('def')
close = lambda got, want: abs(got / 1e6 - want) <= 1e-6 * max(1, want)
assert one['earlier_runs'] == 1 and close(one['earlier_mean'], statistics.mean(mbps('BAD'))), one
assert two['earlier_runs'] == 2 and close(two['earlier_mean'], statistics.mean(mbps('G2') + mbps('BAD'))), two
assert every['earlier_runs'] == 3, every
assert default['earlier_runs'] == 3, default  # --window 5 holds all three
assert one['verdict'] == 'improvement', one   # against the bad run alone
PY
	refused "--window: invalid count 'x'" history --db s.db --window x
}

t_verdict_above_a_limit_names_the_engine_s_cause() {
	mkdir target
	$ST --target "$T/target" --block 64k --size 1m --direct on,off --fsync off --phases write,read \
		--db "$T/s.db" --quiet || return 1
	run=$(q s.db 'SELECT run_id FROM run')
	# the verdict view over these real rows, with a network measured far below
	# them (as one TCP stream measured a link NFS then beat): what it says
	verdicts() {
		cp s.db v.db
		sqlite3 v.db "INSERT INTO baseline (run_id, kind, direction, server_rank, bytes, seconds, mbps, streams)
			VALUES ('$run', 'net_all', 'c2s', 1, 1000000, 1, 1.0, 1), ('$run', 'net_all', 's2c', 1, 1000000, 1, 1.0, 1);
			UPDATE run SET engine = '$1'"
		q v.db "SELECT c.direct || ' ' || v.phase || ': ' || v.verdict FROM verdict v JOIN combo c USING (combo_id)
			ORDER BY c.direct DESC, v.phase DESC"
	}
	expect_eq "$(verdicts posix)" "on write: above the measured limit of 1 MB/s (network): O_DIRECT leaves the client's cache out: its connections carried more than the baseline's streams (more threads or connections than --baseline-streams)
on read: above the measured limit of 1 MB/s (network): O_DIRECT leaves the client's cache out: its connections carried more than the baseline's streams (more threads or connections than --baseline-streams)
off write: above the measured limit of 1 MB/s (network): the client's page cache took the writes (buffered, no fsync)
off read: above the measured limit of 1 MB/s (network): the client's page cache answered (buffered reads)" "posix verdicts" || return 1
	# libnfs has no cache: no verdict may claim one
	verdicts libnfs >libnfs.txt
	expect_eq "$(grep -c 'libnfs keeps no cache' libnfs.txt)" 4 "libnfs verdicts: $(cat libnfs.txt)" || return 1
	! grep -q "page cache" libnfs.txt || fail "a cache claimed for libnfs: $(cat libnfs.txt)"
}

t_interrupted_run_leaves_no_files() {
	mkdir target
	# one combination of real files; Ctrl-C while they are being written: a
	# time-based write phase (--runtime 60, wrapping round the file), so the run
	# is still writing however fast the machine (4k calls of 256m had all been
	# written and read, complete, before the signal on a 2-core machine)
	OMPI_MCA_odls_base_sigkill_timeout=3 $MPIRUN -np 2 $ST --target "$T/target" --block 4k --size 16m \
		--threads 2 --direct off --fsync on --phases write --runtime 60 --db "$T/s.db" --quiet >out 2>&1 &
	mp=$!
	k=0
	until [ "$(ls target/stcluster-*/ 2>/dev/null | wc -l)" = 4 ] || [ $k -ge 400 ]; do sleep 0.05; k=$((k + 1)); done
	files=$(ls target/stcluster-*/ 2>/dev/null | wc -l)
	kill -INT $mp
	wait $mp
	rc=$?
	[ "$files" = 4 ] || fail "the run's 4 files were not there to interrupt ($files)" || return 1
	[ $rc != 0 ] || fail "mpirun exited 0 after Ctrl-C" || return 1
	expect_eq "$(q s.db 'SELECT status FROM run')" aborted "the run" || return 1
	expect_eq "$(ls -A target)" "" "files left in the target after Ctrl-C"
}
