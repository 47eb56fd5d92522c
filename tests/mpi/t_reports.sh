# report, runs and query in every format, valid with failed phases present.

reports_setup() {
	mkdir target
	$MPIRUN -np 2 $ST --target "$T/target" --block 4k,64k --size 128k --label "first run" \
		--db "$T/s.db" --quiet || return 1
	# a second run with a phase that fails and a combination that fails to prepare
	expect_exit 1 $MPIRUN -np 2 $ST --engine null --block 4k --size 32k --threads 1,2 --null-error EIO \
		--null-error-at 2 --label 'second, "quoted"' --db "$T/s.db" --quiet || return 1
}

t_report_formats_are_valid() {
	reports_setup || return 1
	# (the table of every column is --wide's since issue 21; the default fits a screen)
	$ST report --db s.db --wide >table.txt || return 1
	grep -q "MB/s = 10^6 bytes per second" table.txt || fail "unit note missing" || return 1
	expect_eq "$(grep -c ' write \| read ' table.txt)" 4 "table rows (2 combos x 2 phases)" || return 1
	$ST report --db s.db --format json >r.json || return 1
	python3 -c "import json,sys; d=json.load(open('r.json'))['rows']; assert len(d)==4, len(d); assert all(r['bytes_per_s'] > 0 for r in d)" ||
		fail "json report" || return 1
	$ST report --db s.db --format csv >r.csv || return 1
	python3 -c "import csv; r=list(csv.DictReader(open('r.csv'))); assert len(r)==4; assert {x['phase'] for x in r}=={'write','read'}" ||
		fail "csv report" || return 1
	$ST report --db s.db --format markdown >r.md || return 1
	expect_eq "$(grep -c '^|' r.md)" 6 "markdown lines (header, rule, 4 rows)" || return 1
	# the first run by id prefix; top 1 of the read phase
	first=$(q s.db "SELECT run_id FROM run WHERE label = 'first run'")
	$ST report --db s.db --run "$(echo "$first" | cut -c1-8)" --phase read --top 1 --format csv >top.csv || return 1
	expect_eq "$(tail -n +2 top.csv | wc -l)" 1 "top 1 row" || return 1
	best=$(q s.db "SELECT ROUND(MAX(agg_mbps), 1) FROM phase_summary WHERE run_id = '$first' AND phase = 'read'")
	python3 -c "import csv; r=list(csv.DictReader(open('top.csv'))); assert abs(float(r[0]['MB/s'])-$best) < 0.05" ||
		fail "top 1 is not the best read" || return 1
	# the CPU each phase cost, from the raw rows: the client processes' CPU as
	# % of one CPU per client over the phase's wall, and per MB; no server
	# rank ran, so no server figure (it showed CPU nowhere, and only in us)
	q s.db "SELECT c.seq + 1, r.phase,
		SUM(r.cpu_user_us + r.cpu_sys_us) * 1e5 / (COUNT(*) * (MAX(r.end_ns) - MIN(r.start_ns))),
		SUM(r.cpu_user_us + r.cpu_sys_us) * 1e6 / SUM(r.bytes),
		SUM(r.io_cpu_user_us + r.io_cpu_sys_us) * 1e6 / SUM(r.bytes)
		FROM rank_result r JOIN combo c USING (combo_id) JOIN run USING (run_id)
		WHERE run.label = 'first run' AND r.role = 'client' GROUP BY r.combo_id, r.phase" >cpu.want
	$ST report --db s.db --run "$first" --format csv >cpu.csv || return 1
	python3 -c "
import csv
want = {(int(l.split('|')[0]), l.split('|')[1]): [float(x) for x in l.split('|')[2:]] for l in open('cpu.want').read().split()}
rows = list(csv.DictReader(open('cpu.csv')))
assert len(rows) == len(want) == 4, (rows, want)
for r in rows:
    pct, per_mb, io_per_mb = want[(int(r['seq']), r['phase'])]
    assert abs(float(r['client CPU %']) - pct) <= 0.05 + 1e-9, (r, pct)
    assert abs(float(r['client CPU us/MB']) - per_mb) <= 0.5 + 1e-9, (r, per_mb)
    # the I/O threads' own, a part of the process's (each rounded to 1 us/MB)
    assert abs(float(r['I/O threads us/MB']) - io_per_mb) <= 0.5 + 1e-9, (r, io_per_mb)
    assert float(r['I/O threads us/MB']) <= float(r['client CPU us/MB']), r
    assert r['server CPU %'] == '' and r['server CPU us/MB'] == '', r
assert any(v[0] > 0 for v in want.values()), want
" || fail "client CPU in the report: $(cat cpu.csv)" || return 1
	$ST report --db s.db --run "$first" --top 1 --format csv >cput.csv || return 1
	head -1 cput.csv | grep -q 'client CPU %,client CPU us/MB,I/O threads us/MB,server CPU %,server CPU us/MB' ||
		fail "report --top CPU columns: $(head -1 cput.csv)" || return 1
	$ST effects --db s.db --run "$first" --format csv >cpue.csv || return 1
	head -1 cpue.csv | grep -q 'client CPU %,client CPU us/MB,I/O threads us/MB,server CPU %,server CPU us/MB' ||
		fail "effects CPU columns: $(head -1 cpue.csv)" || return 1
	$ST report --db s.db --run "$first" --html cpu.html || return 1
	grep -q '<th class="num">client CPU %</th><th class="num">client &micro;s/MB</th>' cpu.html ||
		fail "HTML CPU columns" || return 1
}

t_reports_valid_with_failures() {
	reports_setup || return 1
	$ST report --db s.db --format json >r.json || return 1
	python3 -c "
import json
d = json.load(open('r.json'))['rows']
errs = [r for r in d if r['status'] == 'error']
assert len(errs) == 2, d
assert all(r['errors'] > 0 for r in errs)
" || fail "json with failed phases" || return 1
	$ST report --db s.db --format csv >r.csv || return 1
	python3 -c "import csv; r=list(csv.DictReader(open('r.csv'))); assert len(r)==4 and any(x['status']=='error' for x in r)" ||
		fail "csv with failed phases" || return 1
	$ST runs --db s.db --format json >runs.json || return 1
	python3 -c "
import json
d = json.load(open('runs.json'))['rows']
assert [r['label'] for r in d] == ['first run', 'second, \"quoted\"'], d
assert all(r['status'] == 'complete' for r in d)
assert d[0]['combos_stored'] == 2 and d[0]['combos_planned'] == 2, d[0]
" || fail "runs" || return 1
	$ST runs --db s.db >runs.txt || return 1
	grep -q 'first run' runs.txt || fail "runs table"
}

t_query_is_read_only_and_formats() {
	reports_setup || return 1
	before=$(sha256sum s.db)
	$ST query --db s.db "SELECT phase, COUNT(*) AS n FROM rank_result GROUP BY phase ORDER BY phase" --format csv >q.csv || return 1
	expect_eq "$(cat q.csv | tr '\n' ' ')" "phase,n read,8 write,8 " "query csv" || return 1
	$ST query --db s.db "SELECT 1 AS a, NULL AS b, 'x\"y' AS c" --format json >q.json || return 1
	python3 -c "import json; assert json.load(open('q.json'))['rows'] == [{'a': 1, 'b': None, 'c': 'x\"y'}]" || fail "query json" || return 1
	$ST query --db s.db "DROP TABLE run" 2>/dev/null && fail "a write went through" && return 1
	expect_eq "$(sha256sum s.db)" "$before" "store unchanged by queries" || return 1
	[ ! -e s.db-wal ] && [ ! -e s.db-shm ] || fail "query left WAL files"
}

# Every format prints a value whole, however long (each value was cut at
# 4,095 bytes, in every format, without a word): 6,009 bytes of text with a
# '|', a comma and a quote, read back by json and csv, and as the row of the
# table and of the markdown.
t_query_prints_long_values_whole() {
	$MPIRUN -np 1 $ST --engine null --block 4k --size 16k --db "$T/s.db" --quiet || return 1
	sql="SELECT 'a|b,\"c' || replace(hex(zeroblob(3000)), '0', 'x') || 'END' AS v"
	for f in table csv json markdown; do
		$ST query --db s.db "$sql" --format $f >long.$f || fail "query --format $f" || return 1
	done
	python3 - <<'EOF' || fail "a long value cut or changed" || return 1
import csv, json
want = 'a|b,"c' + 'x' * 6000 + 'END'
assert json.load(open('long.json'))['rows'] == [{'v': want}], 'json'
assert list(csv.reader(open('long.csv', newline=''))) == [['v'], [want]], 'csv'
assert open('long.table').read().split('\n')[1] == want, 'table'
assert open('long.markdown').read().split('\n')[2] == '| ' + want.replace('|', '\\|') + ' |', 'markdown'
EOF
}

# `make demo` showed a newcomer phases of 0.08 s whose notes flagged their
# own barrier skew (27 % of a phase). Its plan (tests/demo.sh) is time-based;
# one combination of that plan at its 4 ranks, on the null engine: no note of
# skew or clock offsets; the whole plan stays within about a minute of phases.
t_demo_plan_phases_outlast_their_skew() {
	eval "$(grep '^demo_opts=' "$TOP/tests/demo.sh")"
	[ -n "${demo_opts:-}" ] || fail "no demo_opts line in tests/demo.sh" || return 1
	# shellcheck disable=SC2086
	$ST --engine libnfs --target 'nfs://127.0.0.1/x?version=3' $demo_opts --dry-run >plan.txt || return 1
	combos=$(sed -n '1s/^\([0-9]*\) combinations.*/\1/p' plan.txt)
	runtime=$(sed -n 's/.* runtime=\([0-9.]*\)s.*/\1/p' plan.txt | sort -u)
	ramp=$(sed -n 's/.* ramp=\([0-9]*\)ms.*/\1/p' plan.txt | sort -u)
	nphases=$(sed -n '1s/.*phases: //p' plan.txt | wc -w)
	[ -n "$combos" ] && [ "$(echo "$runtime" | wc -l)" = 1 ] && [ -n "$runtime" ] && [ -n "$ramp" ] ||
		fail "the demo's plan is not time-based: $(cat plan.txt)" || return 1
	awk -v c="$combos" -v p="$nphases" -v r="$runtime" -v m="$ramp" \
		'BEGIN { t = c * p * (r + m / 1000); print "demo: " c " combinations x " p " phases: " t " s of phases"; exit !(r >= 1 && t <= 50) }' ||
		fail "the demo's phases" || return 1
	# its phases and ranks, one combination, null engine
	$MPIRUN -np 4 $ST --engine null --null-delay 200us --block 64k --size 16m --runtime "$runtime" \
		--ramp "${ramp}ms" --phases "$(sed -n '1s/.*phases: //p' plan.txt | tr ' ' ',')" \
		--db d.db --quiet || return 1
	$ST report --db d.db --format json >d.json || return 1
	# the phases outlast a barrier skew of 1 % of the phase up to 20 ms of it: a
	# note may say skew only where the run measured more than that (a busy
	# machine's descheduling), and then says what the run stored
	python3 - "$runtime" <<'EOF' || fail "the demo plan's report notes" || return 1
import json, re, sqlite3, sys
runtime = float(sys.argv[1])
rows = json.load(open('d.json'))['rows']
con = sqlite3.connect('d.db')
assert len(rows) == 2, rows
for r in rows:
    note = r.get('note') or ''
    assert r['bytes_per_s'] and r['bytes_per_s'] > 0, r
    skew, span = con.execute("SELECT p.skew_ns, s.span_ns FROM phase_run p JOIN phase_summary s "
                             "USING (combo_id, phase) WHERE p.phase = ?", (r['phase'],)).fetchone()
    # each rank runs the runtime from its own release: the span is shorter
    # only by the error of the clocks' offsets, at most the round trip of the
    # samples the run used (a busy machine's are long)
    rtt = con.execute("SELECT MAX(clock_rtt_ns) FROM host").fetchone()[0] or 0
    assert span >= runtime * 1e9 * 0.99 - rtt, (r, span, rtt)
    m = re.search(r'barrier skew ([0-9.]+)%', note)
    if m:
        assert skew > 0.01 * span, (r, skew, span)
        assert abs(float(m.group(1)) - 100.0 * skew / span) <= 0.051, (r, skew, span)
    else:
        assert skew <= 0.01 * span, (r, skew, span)
print('notes:', [r.get('note') for r in rows])
EOF
}

# (pages_read: tests/lib.sh)
once_report_run_reads_the_same_pages_whatever_the_history() {
	# issue 22: a run's report read every interval row of the store (its
	# stall count through the views' window functions), every run's plan
	# (the store's check) and every run to find "last": 90 -> 141 page reads
	# from 1 to 40 runs of 2 phases x 40 intervals (measured: 89 -> 96
	# now; what grows is a B-tree level deeper here and there). Once,
	# on the normal build: the pages are the store's, whichever build reads
	# them (and LeakSanitizer cannot run under strace)
	command -v strace >/dev/null || { echo "strace is not installed (tests/deps.sh install)"; return 77; }
	run="--engine null --null-delay 1ms --block 4k --size 1600k --interval 10ms --phases write,read --quiet"
	$ST $run --db "$T/many.db" || return 1
	cp many.db one.db
	id=$(q one.db "SELECT run_id FROM run")
	for k in $(seq 2 40); do
		$ST $run --db "$T/many.db" || return 1
	done
	expect_eq "$(q many.db "SELECT COUNT(*) >= 3000 FROM interval")" 1 "intervals stored" || return 1
	for what in "--run $id" "--run ${id%%-*}"; do
		a=$(pages_read one.db report --db "$T/one.db" $what) && b=$(pages_read many.db report --db "$T/many.db" $what) ||
			{ fail "report $what"; return 1; }
		echo "    report $what: $a pages of 1 run, $b of 40"
		[ "$a" -gt 0 ] && [ $((b * 10)) -le $((a * 11)) ] && [ $((b * 10)) -ge $((a * 9)) ] ||
			fail "report $what: $a pages of a store of 1 run, $b of 40" || return 1
	done
	# "last" by its index, the newest run of each: one more B-tree to
	# descend, a level deeper in the larger store (measured: 91 -> 100;
	# without the index, every run's row: 11 pages at 40 runs, more with each)
	a=$(pages_read one.db report --db "$T/one.db") && b=$(pages_read many.db report --db "$T/many.db") || return 1
	echo "    report (last): $a pages of 1 run, $b of 40"
	[ $((b * 100)) -le $((a * 115)) ] || fail "report of the last run: $a pages of 1 run, $b of 40"
}

# The demo's report on a screen (issue 21 item 3): its rows were 278-282
# characters wide, over 500 with a note. The demo's matrix (tests/demo.sh)
# at its 4 ranks on the null engine, without its time base: at COLUMNS 80
# and 120 no line of the report is wider, every option that varies, the
# phase and the figure are there, the figure is the store's in the unit the
# header names; the end of the run is one row per phase.
t_report_fits_a_screen_at_80_and_120_columns() {
	eval "$(grep '^demo_opts=' "$TOP/tests/demo.sh")"
	[ -n "${demo_opts:-}" ] || fail "no demo_opts line in tests/demo.sh" || return 1
	opts=$(echo "$demo_opts" | sed 's/--runtime [^ ]*//; s/--ramp [^ ]*//')
	# shellcheck disable=SC2086
	$MPIRUN -np 4 $ST --engine null --null-delay 20us --null-delay-step 10us $opts --progress none \
		--db "$T/d.db" >run.out || return 1
	for w in 80 120; do
		COLUMNS=$w $ST report --db d.db >r.$w || return 1
	done
	$ST report --db d.db --wide >wide.txt || return 1
	$ST report --db d.db --columns seq,phase,bw >cols.txt || return 1
	q d.db "SELECT c.seq + 1, s.phase, s.agg_mbps FROM phase_summary s JOIN combo c USING (combo_id)
		ORDER BY c.seq, s.phase_order" >want.txt
	python3 - <<'EOF' || fail "the report on a screen" || return 1
import re
want = [l.split('|') for l in open('want.txt').read().split()]
assert len(want) == 16, want
wide = max(len(l) for l in open('wide.txt').read().splitlines())
for w in (80, 120):
    lines = open('r.%d' % w).read().splitlines()
    over = [l for l in lines if len(l) > w]
    assert not over, (w, over)
    head = next(l for l in lines if l.startswith('seq'))
    cols = head.split()
    for c in ('block', 'sync', 'rwsize', 'phase'):
        assert c in cols, (w, head)
    unit = cols[cols.index('phase') + 1]
    scale = {'kB/s': 1e3, 'MB/s': 1e6, 'GB/s': 1e9, 'TB/s': 1e12}[unit]
    rows = [l.split() for l in lines[lines.index(head) + 1:] if re.match(r' *[0-9]+ ', l)]
    assert len(rows) == 16, (w, rows)
    for r, (seq, phase, mbps) in zip(rows, want):
        i = cols.index('phase')
        assert r[0] == seq and r[i] == phase, (r, seq, phase)
        got, exp = float(r[i + 1]), float(mbps) * 1e6 / scale
        assert abs(got - exp) <= max(0.006, 0.006 * exp), (w, r, exp)
    print('COLUMNS=%d: %d lines, at most %d wide (--wide: %d), unit %s' % (w, len(lines), max(map(len, lines)), wide, unit))
cols = open('cols.txt').read().splitlines()
assert [l for l in cols if l.startswith('seq')][0].split() == ['seq', 'phase', cols[[l.startswith('seq') for l in cols].index(True)].split()[2]], cols
run = open('run.out').read().splitlines()
run = run[[l.startswith('# run ') for l in run].index(True):]  # (the first line names the store's path)
assert max(len(l) for l in run) <= 120, [l for l in run if len(l) > 120]
i = [k for k, l in enumerate(run) if l.startswith('phase ')]
assert i and run[i[0]].split()[:5] == ['phase', 'combinations', 'best', 'median', 'worst'], run
body = run[i[0] + 1:i[0] + 3]
assert [l.split()[0] for l in body] == ['write', 'read'] and all(l.split()[1] == '8' for l in body), run
print('end of the run: %d lines, at most %d wide' % (len(run), max(map(len, run))))
EOF
	$ST report --db d.db --units iec | grep -q '^seq .* [KMGT]iB/s ' || fail "--units iec: $(sed -n 3p r.120)" || return 1
	$ST report --db d.db --units xyz >/dev/null 2>err.txt
	expect_eq "$? $(cat err.txt)" "2 stcluster report: --units: unknown value 'xyz' (one of: si, iec)" "--units xyz" || return 1
	$ST report --db d.db --columns seq,bogus >/dev/null 2>err.txt
	expect_eq "$?" 2 "--columns bogus" || return 1
	grep -q "^stcluster report: --columns: no column 'bogus' (these are: seq, iter, block, rsize, wsize, sync, rwsize, phase," err.txt ||
		fail "message: $(cat err.txt)"
}

# Every note of the table of every column is a footnote of the screen's,
# and each row refers to its own (a phase's error, the barrier skew of
# each: over a hundred distinct notes, more than the 64 the first version
# of the footnotes kept, which dropped the rest without a word).
t_report_screen_footnotes_are_every_note() {
	expect_exit 1 $MPIRUN -np 2 $ST --engine null --block 4k,8k,12k,16k --size 16k --iterations 30 \
		--null-error EIO --null-error-at 3 --db "$T/s.db" --quiet || return 1
	$ST report --db s.db --wide --format csv >wide.csv || return 1
	$ST report --db s.db >screen.txt || return 1
	python3 - <<'EOF' || fail "footnotes" || return 1
import csv, re
wide = list(csv.DictReader(open('wide.csv')))
lines = open('screen.txt').read().splitlines()
head = next(l for l in lines if l.startswith('seq'))
cols = head.split()
start = lines.index(head) + 1
rows = [l for l in lines[start:start + len(wide)]]
notes, cur = {}, None
for l in lines[start + len(wide):]:
    m = re.match(r'\[(\d+)\] (.*)', l)
    if m:
        cur = int(m.group(1))
        notes[cur] = m.group(2)
    elif cur and l.startswith('    '):
        notes[cur] += ' ' + l.strip()
    else:
        cur = None
want = [r['note'] for r in wide]
assert len(set(w for w in want if w)) > 64, len(set(want))
assert sorted(notes.values()) == sorted(set(w for w in want if w)), sorted(set(notes.values()) ^ set(w for w in want if w))[:5]
for r, w in zip(rows, want):
    refs = r.split()[-1] if w else ''
    assert not w or notes[int(refs.split(',')[0])] == w, (r, w)
print('%d rows, %d footnotes' % (len(rows), len(notes)))
EOF
}

# The same report in a terminal, as a person sees it: a tmux pane 80, then
# 120 columns wide, COLUMNS unset (a shell keeps it to itself; the report
# asks the terminal), captured with its wrapped lines joined: none is wider
# than the pane, so none wrapped.
t_report_fits_a_tmux_pane_of_80_and_120_columns() {
	command -v tmux >/dev/null || fail "no tmux (tests/deps.sh installs it)" || return 1
	eval "$(grep '^demo_opts=' "$TOP/tests/demo.sh")"
	opts=$(echo "$demo_opts" | sed 's/--runtime [^ ]*//; s/--ramp [^ ]*//')
	# shellcheck disable=SC2086
	$MPIRUN -np 4 $ST --engine null $opts --db "$T/d.db" --quiet || return 1
	for w in 80 120; do
		# a server of its own per pane: a new session on the socket of a server that
		# kill-server is still ending meets it going ("server exited unexpectedly")
		sock="$T/tmux.$w.sock"
		tmux -S "$sock" -f /dev/null new-session -d -x "$w" -y 100 \
			"env -u COLUMNS $ST report --db '$T/d.db' >/dev/tty; tmux -S '$sock' wait-for -S shown; sleep 30" ||
			fail "tmux" || return 1
		tmux -S "$sock" wait-for shown
		tmux -S "$sock" capture-pane -p -J -S - | sed 's/ *$//' >pane.$w
		tmux -S "$sock" kill-server
		grep -q '^seq .* phase ' pane.$w || fail "no table in the pane: $(head -5 pane.$w)" || return 1
		long=$(awk -v w="$w" 'length > w' pane.$w)
		[ -z "$long" ] || fail "wider than the pane of $w: $long" || return 1
		echo "pane of $w: $(wc -l <pane.$w) lines, the widest $(awk '{ if (length > m) m = length } END { print m }' pane.$w)"
	done
}

# What the commands that read intervals print of a run (issue 22: schema
# version 9 packs them): report's JSON and HTML, its stall count, the
# interval views' rows, audit's verdict
interval_answers() {
	$ST report --db "$1" --run "$2" --format json >"$3.json" &&
		$ST report --db "$1" --run "$2" --html "$T/$3.html" >/dev/null &&
		$ST query --db "$1" "SELECT * FROM interval_rank WHERE combo_id IN (SELECT combo_id FROM combo
			WHERE run_id = '$2') ORDER BY combo_id, phase, rank, idx" >"$3.rank" &&
		$ST query --db "$1" "SELECT * FROM interval_summary WHERE combo_id IN (SELECT combo_id FROM combo
			WHERE run_id = '$2') ORDER BY combo_id, phase, tail, idx" >"$3.sum" &&
		$ST audit "$2" --db "$1" | tail -n 1 >"$3.audit"
}

t_intervals_of_a_version_7_store_answer_alike_read_only_and_migrated() {
	$ST --engine null --null-delay 1ms --block 4k,64k --size 400k --interval 10ms --phases write,read \
		--db "$T/s.db" --quiet || return 1
	run=$(q s.db "SELECT run_id FROM run")
	interval_answers s.db "$run" new || fail "the answers of the version 9 store" || return 1
	[ "$(wc -l <new.rank)" -ge 10 ] || fail "intervals: $(wc -l <new.rank) rows" || return 1
	expect_eq "$(cat new.audit)" "ok: all 5 hashes match" "audit" || return 1
	# the same rows as version 7 held them: the table interval, its views
	# (their text is the same: they read interval, table or view)
	cp s.db v7.db
	views=$(awk '/^CREATE VIEW interval_rank/ { on = 1 } /^CREATE VIEW rpc_summary/ { on = 0 } on' "$TOP/sql/views.sql")
	sqlite3 v7.db "$V9_ADDED_SQL $views
		PRAGMA user_version = 7" || return 1
	expect_eq "$(q v7.db 'PRAGMA user_version')" 7 "version 7" || return 1
	expect_eq "$(q v7.db "SELECT type FROM sqlite_schema WHERE name = 'interval'")" table "version 7's table" || return 1
	interval_answers v7.db "$run" old || fail "the answers of the version 7 store, read-only" || return 1
	for f in json html rank sum audit; do
		cmp -s new.$f old.$f || fail "$f: the version 7 store's answer differs: $(diff new.$f old.$f | head -3)" || return 1
	done
	# a run migrates it; the first run's answers stay
	$ST --engine null --block 4k --size 16k --db "$T/v7.db" --quiet || return 1
	expect_eq "$(q v7.db "SELECT type FROM sqlite_schema WHERE name = 'interval'")" view "migrated" || return 1
	interval_answers v7.db "$run" mig || fail "the answers of the migrated store" || return 1
	for f in json html rank sum audit; do
		cmp -s new.$f mig.$f || fail "$f: the migrated store's answer differs: $(diff new.$f mig.$f | head -3)" || return 1
	done
}

t_store_of_an_older_stcluster_answers_read_only_as_it_did() {
	# a store no run of this stcluster opened is never migrated by a reader:
	# it lacks combo.stage (version 8) and the columns of the sweep options
	# added since (--dir-mode, --depth: a run adds them as it opens the
	# store). Every subcommand reads it as it reads the same store migrated
	# (those columns NULL), byte for byte; a failed read said "no such
	# column: c.stage" (report --format json) or c."dir-mode" (advise, history)
	$ST --engine null --null-delay 1ms --block 4k,64k --size 256k --iterations 2 --db "$T/s.db" \
		--quiet || return 1
	cp s.db old.db
	sqlite3 old.db 'DROP VIEW IF EXISTS result; ALTER TABLE combo DROP COLUMN stage;
		ALTER TABLE combo DROP COLUMN "dir-mode"; ALTER TABLE combo DROP COLUMN depth;
		PRAGMA user_version = 7' || return 1
	chmod 444 s.db old.db
	sum=$(sha256sum <old.db)
	for c in "report" "report --format json" "report --format csv" "report --top 3" "effects" \
		"advise" "advise --format json" "runs" "history" "compare last last" "audit last"; do
		$ST $c --db s.db >new.out 2>&1 || fail "$c on the store: exit $?: $(head -3 new.out)" || return 1
		$ST $c --db old.db >old.out 2>&1 || fail "$c on the older store: exit $?: $(head -3 old.out)" || return 1
		sed -i 's/old\.db/s.db/g' old.out
		cmp -s new.out old.out || fail "$c: $(diff new.out old.out | head -4)" || return 1
	done
	expect_eq "$(sha256sum <old.db)" "$sum" "the older store after reading it" || return 1
	expect_eq "$(q old.db 'PRAGMA user_version')" 7 "its version"
}

# A phase's tail (view phase_tail; issue 22): the null engine's fsync takes one delay after a
# thread's last call, on its schedule (call k ends at t0 + (k + 1) x delay, the fsync at t0 +
# 6 x delay), so with --fsync on a write's tail is the delay less the last call's own lateness
# (its end beyond t0 + 5 delays: the run measured it; t0 is at or after the rank's start, so
# the lateness taken from the start is the larger), and without it next to nothing; either way
# the tail is at most the phase's span less its calls' 5 delays, and the figure without the
# tail is at least the whole one. JSON says the same.
t_report_tail_is_the_fsync_after_the_last_call() {
	$ST --engine null --null-delay 100ms --block 4k --size 20k --fsync on,off --phases write \
		--db "$T/s.db" --quiet || return 1
	q s.db "SELECT c.fsync, t.tail_ns, s.span_ns, t.calls_mbps >= s.agg_mbps,
		t.calls_end_ns - r.start_ns - 500000000 FROM phase_tail t JOIN combo c USING (combo_id)
		JOIN phase_summary s USING (combo_id, phase) JOIN client_result r USING (combo_id, phase)
		ORDER BY 1 DESC" >tails
	cat tails
	expect_eq "$(awk -F'|' '$2 <= $3 - 500000000 && $4 == 1 &&
		(($1 == "on" && $2 >= 100000000 - $5) || ($1 == "off" && $2 < 50000000))' tails | wc -l)" 2 \
		"tails: one delay (less the last call's lateness) with --fsync on, next to none without, within the span less 5 calls" ||
		return 1
	$ST report --db s.db --format json >r.json || return 1
	python3 - <<'PY' || fail "JSON calls_bytes_per_s and tail_ns"
import json, sqlite3
con = sqlite3.connect('s.db')
want = {r[0]: r[1:] for r in con.execute("SELECT combo_id, calls_mbps * 1e6, tail_ns FROM phase_tail")}
rows = json.load(open('r.json'))['rows']
assert len(rows) == 2, rows
for r in rows:
    assert abs(r['calls_bytes_per_s'] - want[r['combo_id']][0]) <= 1e-6 * want[r['combo_id']][0], r
    assert r['tail_ns'] == want[r['combo_id']][1], r
PY
}
