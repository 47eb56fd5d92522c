# Issue 20 item 6: a plan file's [phase] sections give a phase values of
# its own (block, direct, fsync, rwmix, runtime, ramp) in one run: the null
# engine's counts are exact (bytes / block), a posix run on a scratch
# directory reads 4k after writing 1m and never past what was written, the
# store, report, its JSON, effects, --dry-run and --resume keep each
# phase's own value, and bad sections are refused with file:line.

# plan FILE BODY...: a plan file of the lines given
plan() {
	f=$1
	shift
	printf '%s\n' "$@" >"$f"
}

t_phase_block_null_counts_exact() {
	# 2 ranks x 2 threads, 4m a thread; the run sweeps block 64k,1m, the
	# randread section gives it 4k: per thread 64 or 4 write calls, 1024
	# randread calls in every combination
	plan "$T/p.conf" "block = 64k, 1m" "size = 4m" "threads = 2" "phases = write, randread" \
		"bind = none" "[randread]" "block = 4k"
	$MPIRUN -np 2 $ST --plan "$T/p.conf" --engine null --null-delay 200us --db "$T/s.db" --quiet ||
		return 1
	expect_eq "$(q s.db "SELECT COUNT(*) FROM combo WHERE status = 'ok'")" 2 "combinations ok" || return 1
	# every thread: its bytes are --size, its calls bytes / the phase's block
	expect_eq "$(q s.db "SELECT group_concat(c.block || ':' || t.phase || ':' || t.bytes || ':' || t.ops, ' ')
		FROM (SELECT DISTINCT combo_id, phase, bytes, ops FROM thread_result) t JOIN combo c USING (combo_id)
		ORDER BY c.seq, t.phase")" \
		"65536:randread:4194304:1024 65536:write:4194304:64 1048576:randread:4194304:1024 1048576:write:4194304:4" \
		"per-thread bytes and calls of each phase" || return 1
	expect_eq "$(q s.db "SELECT COUNT(*) FROM thread_result")" 16 "thread rows (2 combos x 2 phases x 2 ranks x 2 threads)" || return 1
	# the stored per-phase values: the phase's own, NULL where the combination's apply
	expect_eq "$(q s.db "SELECT group_concat(phase || '=' || COALESCE(phase_block, 'NULL'), ' ') FROM
		(SELECT p.phase, p.phase_block FROM phase_run p JOIN combo c USING (combo_id) ORDER BY c.seq, p.phase_order)")" \
		"write=NULL randread=4096 write=NULL randread=4096" "phase_run.phase_block" || return 1
	expect_eq "$(q s.db "SELECT group_concat(phase || '=' || block || '/' || (bytes / ops), ' ') FROM
		(SELECT phase, block, bytes, ops FROM result ORDER BY seq, phase_order)")" \
		"write=65536/65536 randread=4096/4096 write=1048576/1048576 randread=4096/4096" \
		"result: each phase's block, and its bytes per call" || return 1
	# report and its JSON show the phase's block
	$ST report --db "$T/s.db" --format csv >r.csv || return 1
	expect_eq "$(awk -F, 'NR > 1 { printf "%s:%s ", $3, $2 }' r.csv)" "write:64k randread:4k write:1m randread:4k " \
		"report's block column ($(head -1 r.csv))" || return 1
	$ST report --db "$T/s.db" --format json >r.json || return 1
	expect_eq "$(python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(" ".join("%s:%s" % (r["phase"], r["options"]["block"]) for r in d["rows"]))' r.json)" \
		"write:65536 randread:4096 write:1048576 randread:4096" "report JSON options.block" || return 1
	# report --top too: each phase's rows with the block it ran (the randread's its own 4k);
	# which write is first is the machine's to say (1m's phase lasts a few ms: a busy
	# machine's pause can put it behind 64k), so each phase's blocks are compared sorted
	$ST report --db "$T/s.db" --top 2 --format csv >t.csv || return 1
	expect_eq "$(awk -F, 'NR > 1 { print $1 ":" $2 }' t.csv | sort | tr '\n' ' ')" \
		"randread:4k randread:4k write:1m write:64k " "report --top's block column ($(head -1 t.csv))" || return 1
	$ST report --db "$T/s.db" --top 2 --format json >t.json || return 1
	expect_eq "$(python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(" ".join(sorted("%s:%s" % (r["phase"], r["options"]["block"]) for r in d["rows"])))' t.json)" \
		"randread:4096 randread:4096 write:1048576 write:65536" "report --top JSON options.block" || return 1
	# and the HTML page's best combinations: each phase's rows labelled with its block
	$ST report --db "$T/s.db" --html "$T/p.html" || return 1
	python3 - "$T/p.html" <<'PY' || fail "the HTML page's best combinations by phase and label"
import re, sys
s = open(sys.argv[1]).read()
best = s[s.index('<h2>Best combinations</h2>'):]
best = best[:best.index('</table>')]
rows = [re.sub(r'<[^>]+>', ' ', r).split() for r in best.split('<tr>')[2:]]
got = sorted((r[0], r[2]) for r in rows)
assert got == [('randread', 'block=4k'), ('randread', 'block=4k'), ('write', 'block=1m'), ('write', 'block=64k')], got
PY
	# effects: block has two levels in write, one (its own) in randread
	$ST effects --db "$T/s.db" --format csv >e.csv || return 1
	expect_eq "$(awk -F, '$2 == "main" && $3 == "block" { printf "%s:%s ", $1, $4 }' e.csv)" \
		"write:64k write:1m randread:4k " "effects' block levels per phase" || return 1
	# the null engine's delay: each randread thread made 1024 calls of 200 us
	# one after another, so its span is at least 1024 x 200 us (load only adds)
	expect_eq "$(q s.db "SELECT COUNT(*) FROM thread_result WHERE phase = 'randread' AND end_ns - start_ns < 1024 * 200000 * 0.99")" 0 \
		"randread threads shorter than 1024 delays" || return 1
}

t_phase_block_posix_reads_4k_after_1m() {
	# a posix run on a scratch directory: write 1m calls, then read and
	# randread with 4k (verified), 2 ranks x 2 threads, 8m a thread
	mkdir -p "$T/d"
	plan "$T/p.conf" "target = $T/d" "block = 1m" "size = 8m" "threads = 2" "direct = off" \
		"phases = write, read, randread" "verify = on" "bind = none" "[read]" "block = 4k" \
		"[randread]" "block = 4k"
	$MPIRUN -np 2 $ST --plan "$T/p.conf" --db "$T/s.db" --quiet || return 1
	expect_eq "$(q s.db "SELECT group_concat(phase || ':' || bytes || ':' || ops || ':' || errors || ':' || bad_blocks, ' ')
		FROM (SELECT phase, bytes, ops, errors, bad_blocks FROM result ORDER BY phase_order)")" \
		"write:33554432:32:0:0 read:33554432:8192:0:0 randread:33554432:8192:0:0" \
		"bytes, calls, errors and bad blocks per phase" || return 1
	# per rank: the reads moved exactly what that rank's threads wrote, no more
	expect_eq "$(q s.db "SELECT COUNT(*) FROM rank_result r JOIN rank_result w ON w.combo_id = r.combo_id
		AND w.rank = r.rank AND w.phase = 'write' WHERE r.phase IN ('read', 'randread') AND r.role = 'client'
		AND r.bytes = w.bytes AND r.read_bytes = r.bytes")" 4 "reads of each rank equal to its writes" || return 1
	[ -z "$(ls "$T/d")" ] || fail "files left in the target: $(ls "$T/d")"
}

t_phase_time_based_write_then_4k_read() {
	# the write phase alone is time-based ([write] runtime): the files are laid
	# out to --size first, so the 4k read after it reads every block with 0 errors
	mkdir -p "$T/d"
	plan "$T/p.conf" "target = $T/d" "block = 1m" "size = 32m" "direct = off" "phases = write, read" \
		"verify = on" "bind = none" "[write]" "runtime = 100ms" "[read]" "block = 4k"
	$ST --plan "$T/p.conf" --db "$T/s.db" --quiet || return 1
	expect_eq "$(q s.db "SELECT group_concat(phase || ':' || COALESCE(phase_runtime, '-') || ':' || COALESCE(phase_block, '-'), ' ')
		FROM (SELECT phase, phase_runtime, phase_block FROM phase_run ORDER BY phase_order)")" \
		"write:100000000:- read:-:4096" "stored per-phase values" || return 1
	expect_eq "$(q s.db "SELECT errors || ':' || bad_blocks || ':' || bytes || ':' || ops FROM result WHERE phase = 'read'")" \
		"0:0:33554432:8192" "the read: every byte of --size in 4k calls, verified" || return 1
	expect_eq "$(q s.db "SELECT COUNT(*) FROM combo WHERE status = 'ok'")" 1 "combination ok" || return 1
}

t_phase_sections_dry_run_plan_and_resume() {
	plan "$T/p.conf" "block = 64k, 1m" "size = 1m" "phases = write, randread" "bind = none" \
		"[randread]" "block = 4k" "[write]" "fsync = off"
	$ST --plan "$T/p.conf" --engine null --dry-run >dry.txt || return 1
	grep -q "^ *randread: block=4k " dry.txt || fail "dry-run: $(cat dry.txt)" || return 1
	grep -q "^ *write: fsync=off " dry.txt || fail "dry-run: $(cat dry.txt)" || return 1
	$ST --plan "$T/p.conf" --engine null --iterations 2 --db "$T/s.db" --quiet || return 1
	# the stored plan holds the sections, and parses back to the same plan
	q s.db "SELECT plan FROM run" >stored.conf
	grep -A1 -x '\[randread\]' stored.conf | grep -qx 'block = 4k' || fail "stored plan: $(cat stored.conf)" || return 1
	# an interrupted run resumed: the missing combinations run with the sections too
	run=$(q s.db 'SELECT run_id FROM run')
	cut_run s.db 1
	$ST --resume "$run" --db "$T/s.db" --quiet || fail "resume" || return 1
	expect_eq "$(q s.db "SELECT COUNT(*) FROM combo")" 4 "combinations after resume" || return 1
	expect_eq "$(q s.db "SELECT COUNT(*) FROM phase_run WHERE phase = 'randread' AND phase_block = 4096")" 4 \
		"randread at its own 4k in every combination, resumed ones too" || return 1
	expect_eq "$(q s.db "SELECT COUNT(*) FROM phase_run WHERE phase = 'write' AND phase_fsync = 'off' AND phase_block IS NULL")" 4 \
		"write with its own fsync" || return 1
	expect_eq "$(q s.db "SELECT COUNT(*) FROM rank_result WHERE phase = 'randread' AND ops * 4096 = bytes AND bytes = 1048576")" 4 \
		"randread calls of 4k" || return 1
}

# refused WANT BODY...: a plan of the lines given (a write, randread run
# before them) is refused with one line holding WANT, exit 2, no store
refused() {
	want=$1
	shift
	plan "$T/bad.conf" "block = 1m" "size = 4m" "phases = write, randread" "$@"
	$ST --plan "$T/bad.conf" --engine null --db "$T/bad.db" >out 2>err
	rc=$?
	[ "$rc" = 2 ] && [ "$(grep -c . err)" = 1 ] && grep -qF -- "$want" err && [ ! -e "$T/bad.db" ] ||
		fail "exit $rc, want 2 and '$want': $(cat err)"
}

t_phase_sections_bad_input() {
	refused "bad.conf:4: unknown section '[randraed]'" "[randraed]" "block = 4k" || return 1
	refused "bad.conf:5: [randread]: 'vers' cannot be per phase" "[randread]" "vers = 3" || return 1
	refused "bad.conf:5: [randread]: 'threads' cannot be per phase" "[randread]" "threads = 2" || return 1
	refused "bad.conf:5: [randread]: --block: invalid size '4q'" "[randread]" "block = 4q" || return 1
	refused "bad.conf:5: [randread]: 'block = 4k,64k': a section takes one value" "[randread]" "block = 4k,64k" || return 1
	refused "bad.conf:5: [write]: 'rwmix' means something only to the mixed phases" "[write]" "rwmix = 30" || return 1
	refused "bad.conf:6: [randread]: key 'block' is given twice" "[randread]" "block = 4k" "block = 8k" || return 1
	refused "bad.conf:6: section [randread] is given twice (first on line 4)" "[randread]" "block = 4k" "[randread]" || return 1
	refused "bad.conf:4: [read]: read is not among --phases" "[read]" "block = 4k" || return 1
	refused "bad.conf:4: expected '[phase]'" "[randread" || return 1
	refused "bad.conf:5: [randread]: unknown key 'blok'" "[randread]" "blok = 4k" || return 1
	# before a line with a key stcluster knows, the file's text is not shown
	printf '[write]\nsecret = hunter2\n' >"$T/other.conf"
	$ST --plan "$T/other.conf" --engine null --db "$T/bad.db" 2>err
	expect_eq "$? $(cat err)" "2 stcluster: $T/other.conf:2: unknown key (not a plan file?)" \
		"a file that is no plan" || return 1
	[ ! -e "$T/bad.db" ] || fail "a store was created"
}

t_phase_values_are_the_configuration_in_history_and_compare() {
	# two runs of one combination, randread at 4k then at 8k of its own: the
	# write is the same work in both (compared), the randreads are not
	for b in 4k 8k; do
		plan "$T/$b.conf" "block = 64k" "size = 256k" "phases = write, randread" "bind = none" \
			"[randread]" "block = $b"
		$ST --plan "$T/$b.conf" --engine null --db "$T/s.db" --quiet || return 1
	done
	$ST history --db "$T/s.db" --format csv >h.csv || return 1
	expect_eq "$(awk -F, 'NR > 1 { print $6 ":" $7 ":" $11 }' h.csv | sort | tr '\n' ' ')" \
		"randread:4k:0 randread:8k:0 write:64k:0 write:64k:1 " \
		"history: phase, block and earlier runs ($(head -1 h.csv))" || return 1
	$ST history --db "$T/s.db" --where "block=8k" --format csv >h8.csv || return 1
	expect_eq "$(awk -F, 'NR > 1 { printf "%s:%s ", $6, $7 }' h8.csv)" "randread:8k " "history --where block=8k" || return 1
	$ST compare last~1 last --db "$T/s.db" --format json >c.json || return 1
	python3 -c "
import json
r = json.load(open('c.json'))['rows']
w = [x for x in r if x['phase'] == 'write']
rr = [x for x in r if x['phase'] == 'randread']
assert len(w) == 1 and w[0]['a_n'] == 1 and w[0]['b_n'] == 1, w
assert sorted(x['verdict'] for x in rr) == ['not in A at these values', 'not in B at these values'], rr
# each row's options are the phase's as it ran them, not the combination's 64k
assert w[0]['options']['block'] == 65536 and sorted(x['options']['block'] for x in rr) == [4096, 8192], r
" || fail "compare: $(cat c.json)"
	# the table too: no option varies between the combinations, the phases' blocks do
	$ST compare last~1 last --db "$T/s.db" --format csv >c.csv || return 1
	expect_eq "$(awk -F, 'NR > 1 { print $1 ":" $2 }' c.csv | sort | tr '\n' ' ')" \
		"randread:4k randread:8k write:64k " "compare's block column ($(head -1 c.csv))"
}

t_phase_values_absent_in_an_older_store() {
	# a store no run of this stcluster opened has no phase_run.phase_*: the
	# read-only subcommands read every phase with its combination's values
	$ST --engine null --block 4k,8k --size 64k --iterations 2 --db "$T/s.db" --quiet || return 1
	sqlite3 "$T/s.db" "DROP VIEW phase_value; DROP VIEW result;
		ALTER TABLE phase_run DROP COLUMN phase_block; ALTER TABLE phase_run DROP COLUMN phase_direct;
		ALTER TABLE phase_run DROP COLUMN phase_fsync; ALTER TABLE phase_run DROP COLUMN phase_rwmix;
		ALTER TABLE phase_run DROP COLUMN phase_runtime; ALTER TABLE phase_run DROP COLUMN phase_ramp;" ||
		return 1
	for c in report "report --format json" "report --top 1" effects history "history --where block=4k" \
		"compare last last" advise "report --html $T/old.html"; do
		# shellcheck disable=SC2086
		$ST $c --db "$T/s.db" >out 2>err || fail "$c: $(cat err)" || return 1
	done
	$ST effects --db "$T/s.db" --format csv >e.csv || return 1
	expect_eq "$(awk -F, '$2 == "main" && $3 == "block" { printf "%s:%s ", $1, $4 }' e.csv)" \
		"write:4k write:8k read:4k read:8k " "effects' block levels" || return 1
	$ST history --db "$T/s.db" --where "block=8k" --format csv >h.csv || return 1
	expect_eq "$(awk -F, 'NR > 1 { printf "%s:%s ", $6, $7 }' h.csv)" "write:8k read:8k " "history --where block=8k"
}
