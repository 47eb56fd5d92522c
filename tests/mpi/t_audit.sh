# stcluster audit RUN: every stored run carries hashes of its configuration
# and of its result rows; audit recomputes them and names what was altered.

# audit_setup: a 2-rank null-engine sweep, 4 combinations, in $T/s.db
audit_setup() {
	$MPIRUN -np 2 $ST --engine null --block 4k,8k --threads 1,2 --size 16k --phases write,read \
		--db "$T/s.db" --quiet || return 1
	expect_eq "$(q s.db 'SELECT COUNT(*) FROM combo')" 4 "combinations" || return 1
}

# altered_case NAME SQL WANT: on a copy of s.db, SQL makes audit exit 1 and
# its last line name exactly WANT ("seq 2, result", "config", ...)
altered_case() {
	cp s.db "$1.db"
	sqlite3 "$1.db" "$2" || fail "$1: sqlite3 $2" || return 1
	$ST audit last --db "$1.db" >"$1.out" 2>"$1.err"
	rc=$?
	named=$(tail -1 "$1.out" | sed -n 's/^altered: [0-9]* of [0-9]* hashes differ (\(.*\))$/\1/p')
	if [ $rc != 1 ] || [ "$named" != "$3" ]; then
		echo "    case $1: $2" >&2
		echo "    exit $rc, want 1 naming ($3):" >&2
		sed 's/^/      /' "$1.out" "$1.err" >&2
		return 1
	fi
}

t_audit_ok_then_every_change_named() {
	audit_setup || return 1
	before=$(sha256sum s.db)
	$ST audit last --db s.db >ok.out || fail "audit of an untouched run: exit $?: $(cat ok.out)" || return 1
	expect_eq "$(tail -1 ok.out)" "ok: all 7 hashes match" "untouched run" || return 1
	expect_eq "$(grep -c '^ok ' ok.out)" 7 "one line per hash: config, baselines, 4 seqs, result" || return 1
	run=$(q s.db 'SELECT run_id FROM run')
	$ST audit "$(echo "$run" | cut -c1-6)" --db s.db --format json >ok.json || return 1
	python3 -c "
import json
d = json.load(open('ok.json'))
assert d['command'] == 'audit' and d['run_id'] == '$run', d
s = d['summary']
assert s['status'] == 'ok' and s['hashed'] and s['altered'] == 0, d
assert [i['what'] for i in d['rows']] == ['config', 'baselines'] + ['combination'] * 4 + ['result'], d
assert [i['seq'] for i in d['rows'] if i['what'] == 'combination'] == [0, 1, 2, 3]
assert all(i['stored'] == i['computed'] and len(i['stored']) == 64 for i in d['rows'])
" || fail "json of an untouched run" || return 1
	# audit reads only: the store is byte for byte the same, no WAL files left
	expect_eq "$(sha256sum s.db)" "$before" "store unchanged by audit" || return 1
	[ ! -e s.db-wal ] && [ ! -e s.db-shm ] || fail "audit left WAL files" || return 1

	# one value of one rank of one combination
	altered_case bytes "UPDATE rank_result SET bytes = bytes + 1 WHERE rank = 1 AND phase = 'read'
		AND combo_id = (SELECT combo_id FROM combo WHERE seq = 2)" "seq 2, result" || return 1
	grep -q '^ALTERED  seq 2 ' bytes.out || fail "seq 2 not named: $(cat bytes.out)" || return 1
	# a thread's row removed
	altered_case thread "DELETE FROM thread_result WHERE rowid = (SELECT MIN(t.rowid) FROM thread_result t
		JOIN combo c USING (combo_id) WHERE c.seq = 1)" "seq 1, result" || return 1
	# NULL <-> 0: the errno of a rank that had none
	altered_case null "UPDATE rank_result SET errno = NULL WHERE errno = 0 AND rank = 0 AND phase = 'write'
		AND combo_id = (SELECT combo_id FROM combo WHERE seq = 3)" "seq 3, result" || return 1
	# two ranks' figures swapped
	altered_case swap "UPDATE rank_result SET start_ns = CASE rank WHEN 0 THEN (SELECT start_ns FROM rank_result r
		WHERE r.combo_id = rank_result.combo_id AND r.phase = rank_result.phase AND r.rank = 1)
		ELSE (SELECT start_ns FROM rank_result r WHERE r.combo_id = rank_result.combo_id
		AND r.phase = rank_result.phase AND r.rank = 0) END
		WHERE combo_id = (SELECT combo_id FROM combo WHERE seq = 0) AND phase = 'write'" "seq 0, result" || return 1
	# the configuration: the plan text, a host
	altered_case plan "UPDATE run SET plan = replace(plan, 'block = 4k,8k', 'block = 4k,8k,1m')" "config" || return 1
	grep -q "^ALTERED  config .*configuration or its host rows changed" plan.out || fail "config line: $(cat plan.out)" || return 1
	altered_case host "UPDATE host SET hostname = 'elsewhere' WHERE rank = 1" "config" || return 1
	# the outcome: a run said to be other than it was
	altered_case status "UPDATE run SET status = 'aborted'" "result" || return 1
	grep -q "^ALTERED  result .*status or finish time changed" status.out || fail "result line: $(cat status.out)" || return 1
	# a whole combination removed, every row of it
	altered_case removed "DELETE FROM rank_result WHERE combo_id IN (SELECT combo_id FROM combo WHERE seq = 1);
		DELETE FROM thread_result WHERE combo_id IN (SELECT combo_id FROM combo WHERE seq = 1);
		DELETE FROM phase_run WHERE combo_id IN (SELECT combo_id FROM combo WHERE seq = 1);
		DELETE FROM effective_option WHERE combo_id IN (SELECT combo_id FROM combo WHERE seq = 1);
		DELETE FROM combo WHERE seq = 1" "result" || return 1
	grep -q "^ALTERED  result .*none stored for seq 1" removed.out || fail "removed seq not named: $(cat removed.out)" || return 1
	# a hash removed in a run that has them
	altered_case nohash "UPDATE combo SET row_hash = NULL WHERE seq = 2" "seq 2" || return 1
	$ST audit last --db bytes.db --format json >bytes.json
	python3 -c "
import json
d = json.load(open('bytes.json'))['summary']
assert d['status'] == 'altered' and d['altered'] == 2 and d['altered_seqs'] == [2], d
" || fail "json of an altered run"
}

t_audit_interrupted_run_then_resumed() {
	# rank 0 killed in the middle of a run, after a few commits
	$ST --engine null --null-delay 1ms --block 4k --size 32k --threads 1,2,3,4 --iterations 10 \
		--phases write,read --db "$T/s.db" --quiet >/dev/null 2>&1 &
	pid=$!
	k=0
	while [ "$(q s.db 'SELECT COUNT(*) FROM combo' 2>/dev/null || echo 0)" -lt 3 ] && [ $k -lt 600 ] &&
		kill -0 $pid 2>/dev/null; do
		sleep 0.05
		k=$((k + 1))
	done
	kill -9 $pid 2>/dev/null
	wait $pid 2>/dev/null
	stored=$(q s.db 'SELECT COUNT(*) FROM combo')
	[ "$stored" -ge 3 ] && [ "$stored" -lt 40 ] || fail "killed after $stored of 40 combinations" || return 1
	expect_eq "$(q s.db 'SELECT status FROM run')" running "status of the killed run" || return 1
	$ST audit last --db s.db >killed.out || fail "audit of the killed run: $(cat killed.out)" || return 1
	expect_eq "$(tail -1 killed.out)" "ok: all $((stored + 3)) hashes match" "killed run, $stored combinations" || return 1

	run=$(q s.db 'SELECT run_id FROM run')
	$ST --resume "$run" --db "$T/s.db" --quiet || fail "resume" || return 1
	expect_eq "$(q s.db 'SELECT combos_stored || " " || status FROM run_summary')" "40 complete" "resumed run" || return 1
	$ST audit last --db s.db >resumed.out || fail "audit of the resumed run: $(cat resumed.out)" || return 1
	expect_eq "$(tail -1 resumed.out)" "ok: all 43 hashes match" "resumed run" || return 1
}

t_audit_resume_after_removed_combinations() {
	# as tests/mpi/t_sweep.sh: a shuffled run whose last 5 combinations are
	# removed and which is marked running; the audit sees it, and the
	# resume, which runs them again, leaves a run whose hashes all match
	$MPIRUN -np 2 $ST --engine null --block 4k,8k,16k --threads 1,2 --size 16k --iterations 2 \
		--shuffle 7 --db "$T/s.db" --quiet || return 1
	run=$(q s.db 'SELECT run_id FROM run')
	cut_run s.db 7
	$ST audit "$run" --db s.db >cut.out
	expect_eq $? 1 "audit of the cut run" || return 1
	expect_eq "$(tail -1 cut.out)" "altered: 1 of 10 hashes differ (result)" "cut run" || return 1
	$MPIRUN -np 2 $ST --resume "$run" --db "$T/s.db" --quiet || fail "resume" || return 1
	expect_eq "$(q s.db 'SELECT COUNT(*) FROM combo')" 12 "combinations after resume" || return 1
	$ST audit "$run" --db s.db >resumed.out || fail "audit after resume: $(cat resumed.out)" || return 1
	expect_eq "$(tail -1 resumed.out)" "ok: all 15 hashes match" "resumed run" || return 1
}

t_audit_older_store_has_no_hashes() {
	audit_setup || return 1
	# what a store of schema version 1 holds: the same rows, no hash columns
	# (and nothing of versions 3 to 9)
	sqlite3 s.db "$V9_ADDED_SQL $V6_ADDED_SQL $V4_ADDED_SQL ALTER TABLE run DROP COLUMN config_hash; ALTER TABLE run DROP COLUMN baseline_hash;
		ALTER TABLE run DROP COLUMN result_hash; ALTER TABLE combo DROP COLUMN row_hash;
		ALTER TABLE thread_result DROP COLUMN io_mode;
		ALTER TABLE run DROP COLUMN cleanup; ALTER TABLE baseline DROP COLUMN streams;
		ALTER TABLE rank_result DROP COLUMN hist_enc; DROP INDEX baseline_run; ALTER TABLE combo DROP COLUMN stage;
		PRAGMA user_version = 1" || return 1
	before=$(sha256sum s.db)
	$ST audit last --db s.db >old.out || fail "audit of an older run: exit $?: $(cat old.out)" || return 1
	expect_eq "$(tail -1 old.out)" "no hashes stored (written by an older stcluster): nothing to check" "older run" || return 1
	expect_eq "$(sha256sum s.db)" "$before" "older store unchanged by audit" || return 1
	# the next run migrates the store; the old run still has none, the new one all
	$ST --engine null --block 4k --size 16k --db "$T/s.db" --quiet || return 1
	expect_eq "$(q s.db 'PRAGMA user_version')" 10 "migrated" || return 1
	$ST audit last~1 --db s.db --format json >old.json || return 1
	python3 -c "
import json
d = json.load(open('old.json'))
assert d['summary']['status'] == 'no hashes' and not d['summary']['hashed'] and d['rows'] == [], d
" || fail "json of an older run" || return 1
	$ST audit last --db s.db >new.out || fail "audit of the new run: $(cat new.out)" || return 1
	expect_eq "$(tail -1 new.out)" "ok: all 4 hashes match" "new run"
}
