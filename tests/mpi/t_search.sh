# --search halving: successive halving over the matrix, checked on a planted
# response surface of the null engine (--null-surface), where the best
# combination is known before the run.
#
# The surface: 27 combinations (rsize x nconnect x vers); rsize=64k doubles
# the per-call delay, 1m halves it, 1m with nconnect=4 takes a further
# x0.6, vers=3 x1.3, vers=4.2 x0.9. The best, rsize=1m nconnect=4
# vers=4.2 (0.27 of base), is 10 % ahead of the second, the same with
# vers=4.1 (0.30); +-3 % of noise per (combination, iteration). A loaded
# machine only slows a phase.

srch_surface() {
	cat >"$T/planted.txt" <<'S'
base 500us
factor rsize=64k 2
factor rsize=1m 0.5
factor rsize=1m,nconnect=4 0.6
factor vers=3 1.3
factor vers=4.2 0.9
noise 0.03
seed 11
S
}

SRCH_ARGS="--engine null --block 64k --phases write --rsize 64k,256k,1m --nconnect 1,2,4 --vers 3,4.1,4.2"

# srch_pick_ok DB: the pick (the last stage's best mean) is the planted best,
# or one whose planted figure is within the noise the run measured (the
# widest relative range of a last-stage combination's iterations) of the
# best's: 0; wrong, in a run that measured over twice the planted noise: 3;
# else 1
srch_pick_ok() {
	python3 - "$1" <<'PY'
import sqlite3, sys
db = sqlite3.connect(sys.argv[1])
rows = db.execute("SELECT rsize, nconnect, vers, AVG(agg_mbps), (MAX(agg_mbps) - MIN(agg_mbps)) / AVG(agg_mbps) "
                  "FROM result WHERE stage = (SELECT MAX(stage) FROM combo) GROUP BY matrix_index "
                  "ORDER BY 4 DESC").fetchall()
def planted(rsize, nconnect, vers):
    f = {65536: 2, 262144: 1, 1048576: 0.5}[rsize]
    f *= 0.6 if rsize == 1048576 and nconnect == 4 else 1
    return f * {'3': 1.3, '4.1': 1, '4.2': 0.9}[str(vers)]
pick, spread = rows[0], max(r[4] for r in rows)
ratio = 0.27 / planted(*pick[:3])
print("    pick rsize=%d nconnect=%d vers=%s: %.1f MB/s, planted %.3f of the best's figure; noise %.3f"
      % (pick[0], pick[1], pick[2], pick[3], ratio, spread), file=sys.stderr)
sys.exit(0 if ratio > 0.999 or ratio >= 1 - spread else 3 if spread > 0.12 else 1)
PY
}

t_search_halving_picks_the_planted_best_in_a_fraction_of_the_sweep() {
	srch_surface
	# the full sweep, 3 iterations of each of the 27: 81 full-length runs
	$MPIRUN -np 1 $ST $SRCH_ARGS --size 16m --null-surface "$T/planted.txt" --iterations 3 --db "$T/full.db" \
		--quiet >/dev/null || return 1
	# a machine shared by many jobs can slow one short run enough to drop the
	# best: a run whose last stage measured more than twice the planted noise
	# (its iterations' range over 12 %) and picked wrong is judged too
	# noisy, and run again (3 times at most)
	for try in 1 2 3; do
		rm -f h.db h.db-wal h.db-shm
		$MPIRUN -np 1 $ST $SRCH_ARGS --size 16m --null-surface "$T/planted.txt" --search halving \
			--db "$T/h.db" --quiet >/dev/null || return 1
		srch_pick_ok h.db
		rc=$?
		[ $rc = 0 ] && break
		[ $rc = 3 ] && [ $try -lt 3 ] || fail "halving's pick" || return 1
		echo "    run $try: too noisy to judge its pick (load $(cut -d' ' -f1 /proc/loadavg)); again" >&2
	done
	expect_eq "$(q full.db 'SELECT COUNT(*) FROM combo')" 81 "the full sweep's runs" || return 1
	# stage 0: 27 x 1 at 1/9 of --size, stage 1: 9 x 1 at 1/3, stage 2: 3 x 3 to 6 at full
	# length (its race)
	expect_eq "$(q h.db "SELECT group_concat(x, ' ') FROM (SELECT stage || ':' || CASE WHEN stage = 2 THEN MIN(COUNT(*), 9) ELSE COUNT(*) END || 'x' ||
		COUNT(DISTINCT matrix_index) || '@' || MIN(size) || '-' || MAX(size) AS x FROM combo
		GROUP BY stage ORDER BY stage)")" "0:27x27@1835008-1835008 1:9x9@5570560-5570560 2:9x3@16777216-16777216" \
		"the stages' runs, combinations and sizes" || return 1
	expect_eq "$(q h.db 'SELECT COUNT(*) BETWEEN 9 AND 18 FROM combo WHERE stage = 2')" 1 "the race's runs" || return 1
	expect_eq "$(q h.db 'SELECT COUNT(*) FROM (SELECT 1 FROM combo GROUP BY matrix_index, iteration HAVING COUNT(*) > 1)')" 0 \
		"no (combination, iteration) measured twice" || return 1
	expect_eq "$(q h.db 'SELECT COUNT(*) FROM combo WHERE status <> '"'ok'"'')" 0 "every run ok" || return 1
	# each stage keeps the best of the one before, by the store's own figures
	# (the best of each combination's runs so far): an oracle in SQL
	for s in 1 2; do
		want=$(q h.db "SELECT group_concat(matrix_index) FROM (SELECT * FROM (SELECT matrix_index FROM result
			WHERE stage < $s AND matrix_index IN (SELECT matrix_index FROM combo WHERE stage = $((s - 1)))
			GROUP BY matrix_index ORDER BY MAX(agg_mbps) DESC, matrix_index
			LIMIT (SELECT COUNT(DISTINCT matrix_index) FROM combo WHERE stage = $s)) ORDER BY 1)")
		got=$(q h.db "SELECT group_concat(matrix_index) FROM (SELECT DISTINCT matrix_index FROM combo WHERE stage = $s ORDER BY matrix_index)")
		expect_eq "$got" "$want" "stage $s's combinations, the best of stage $((s - 1))" || return 1
	done
	# advise reads the last stage and says so
	$ST advise --db h.db --format json >a.json || fail "advise" || return 1
	python3 - <<'PY' || fail "advise on the halving run" || return 1
import json
a = json.load(open('a.json'))
assert a['summary']['search_stage'] == 2, a['summary']
b = a['rows'][0]['best']
assert b['iterations'] >= 3, b
# the options the stages chose are in the answer, constant in the last stage or not
assert all(b['options'].get(o) for o in ('rsize', 'nconnect', 'vers')), b['options']
PY
	$ST advise --db h.db | grep -q "a --search halving run: from its stage 2, the last" ||
		fail "advise's table does not name the stage" || return 1
	# the cost: fewer combination-runs and less summed phase time
	runs=$(q h.db 'SELECT COUNT(*) FROM combo')
	expect_eq "$(q h.db 'SELECT COUNT(*) BETWEEN 45 AND 54 FROM combo')" 1 "halving's combination-runs, $runs" || return 1
	fspan=$(q full.db 'SELECT SUM(span_ns) FROM result')
	hspan=$(q h.db 'SELECT SUM(span_ns) FROM result')
	echo "    summed phase time: halving $hspan ns, full $fspan ns; runs $runs of 81" >&2
	awk -v h="$hspan" -v f="$fspan" 'BEGIN { exit !(h > 0 && h < 0.5 * f) }' ||
		fail "halving's summed phase time $hspan is not under half the full sweep's $fspan"
}

t_search_every_stage_stored_reports_run_on_it() {
	# two ranks follow rank 0's choice of each stage
	$MPIRUN -np 2 $ST --engine null --block 4k --size 64k --threads 1,2,3 --direct on,off --null-delay 50 \
		--search halving --db "$T/s.db" --progress none >out.txt || return 1
	# the run's summary is of the last stage: its 2 combinations at full length
	expect_eq "$(awk '$1 == "write" && $2 ~ /^[0-9]+$/ { print $2 }' out.txt)" 2 \
		"the summary's combinations: $(cat out.txt)" || return 1
	expect_eq "$(q s.db 'SELECT group_concat(n) FROM (SELECT MIN(COUNT(*), 6) AS n FROM combo GROUP BY stage ORDER BY stage)')" \
		"6,6" "6 combinations at 1/3, then the best 2 x 3 to 6" || return 1
	n=$(q s.db 'SELECT COUNT(*) FROM combo')
	expect_eq "$(q s.db 'SELECT COUNT(*) FROM combo WHERE stage IS NULL')" 0 "every run has its stage" || return 1
	expect_eq "$(q s.db 'SELECT combos_planned || "/" || status FROM run')" "18/complete" "the run" || return 1
	# 18 is the race's most (every stage of it full): runs, audit and the HTML page say so
	expect_eq "$($ST runs --db s.db --format csv | tail -1 | cut -d, -f6)" "$n/<=18" "runs' combinations" || return 1
	expect_eq "$($ST runs --db s.db --format json | python3 -c 'import json, sys; r = json.load(sys.stdin)["rows"][0]; print(r["combos_stored"], r["combos_planned"])')" \
		"$n 18" "runs' JSON combinations" || return 1
	# (a race whose finalists stay within the noise to its end runs every round: all 18 stored)
	note="status complete, $n combinations; of at most 18 (--search halving)"
	[ "$n" -lt 18 ] || note="status complete, 18 combinations"
	expect_eq "$($ST audit last --db s.db | grep ' result ' | sed 's/.* result *//')" "$note" \
		"audit's result note" || return 1
	$ST report --db s.db --html "$T/s.html" || return 1
	grep -q "<td>$n stored of at most 18 planned (--search halving)</td>" s.html ||
		fail "the HTML page's combinations: $(grep -o 'combinations</th><td>[^<]*' s.html)" || return 1
	$ST report --db s.db >r.txt || fail "report" || return 1
	expect_eq "$(grep -c ' write ' r.txt)" "$n" "report's write rows" || return 1
	for c in "report --format json" "report --top 3" effects "advise --format json" "compare last last"; do
		$ST $c --db s.db >/dev/null 2>err || fail "$c: $(cat err)" || return 1
	done
	$ST report --db s.db --format json | python3 -c "
import json, sys
rows = json.load(sys.stdin)['rows']
assert len(rows) == 2 * $n and sorted({r['stage'] for r in rows}) == [0, 1], rows[0]
" || fail "report's JSON: every row with its stage" || return 1
	expect_eq "$($ST query --db s.db 'SELECT COUNT(*) FROM result WHERE stage = 1 AND phase = "write"' --format csv | tail -1)" $((n - 6)) \
		"the last stage's rows in the result view" || return 1
	# a full sweep stores no stage
	$ST --engine null --block 4k --size 16k --db "$T/f.db" --quiet >/dev/null || return 1
	expect_eq "$(q f.db 'SELECT COUNT(*) FROM combo WHERE stage IS NOT NULL')" 0 "a sweep's stage" || return 1
	# --dry-run prints the plan of stages
	$ST --engine null --block 4k --size 64k --threads 1,2,3 --direct on,off --search halving \
		--budget 8 --dry-run >d.txt || return 1
	grep -q "stage 0: 6 combinations x 1 run at 1/3 of the length" d.txt &&
		grep -q "stage 1: 2 combinations x 3 to 6 runs (a race" d.txt &&
		grep -q "18 combination-runs at most, 8.0 to 14.0 full-length runs' worth" d.txt &&
		grep -q -- "--budget 8: stops in stage 1, after 8 combination-runs" d.txt ||
		fail "the dry run's plan: $(cat d.txt)"
}

t_search_budget_stops_the_run() {
	# two ranks: rank 0 decides where the budget stops, the other follows
	$MPIRUN -np 2 $ST --engine null --block 4k --size 64k --threads 1,2,3 --direct on,off --null-delay 50 \
		--search halving --budget 8 --db "$T/s.db" >out.txt || fail "exit status $?" || return 1
	expect_eq "$(q s.db 'SELECT COUNT(*) FROM combo')" 8 "runs within --budget 8" || return 1
	expect_eq "$(q s.db 'SELECT status FROM run')" complete "the run" || return 1
	grep -q -- "--budget 8 spent in stage 1 of 1, after 8 combination-runs" out.txt ||
		fail "no word of the budget: $(cat out.txt)" || return 1
	# a wall-time budget spent before stage 0 is done: stage 0 runs whole (an
	# answer needs it), and the run stops there
	$ST --engine null --block 4k --size 64k --threads 1,2,3 --direct on,off --null-delay 50 \
		--search halving --budget 1ns --db "$T/t.db" --quiet >/dev/null || return 1
	expect_eq "$(q t.db 'SELECT COUNT(*) || "/" || MAX(stage) FROM combo')" 6/0 "runs within --budget 1ns" || return 1
}

t_search_resume_continues_where_it_stopped() {
	srch_surface
	$ST $SRCH_ARGS --size 4m --null-surface "$T/planted.txt" --search halving --shuffle 3 \
		--db "$T/s.db" --quiet >/dev/null || return 1
	run=$(q s.db 'SELECT run_id FROM run')
	stage1=$(q s.db 'SELECT group_concat(matrix_index) FROM (SELECT DISTINCT matrix_index FROM combo WHERE stage = 1 ORDER BY 1)')
	# killed between stages: stage 0 stored whole, nothing after
	cut_run s.db 27
	$ST --resume "$run" --db "$T/s.db" --quiet >/dev/null || fail "resume after stage 0" || return 1
	expect_eq "$(q s.db 'SELECT COUNT(*) BETWEEN 45 AND 54 AND COUNT(*) = COUNT(DISTINCT seq) AND COUNT(*) = COUNT(DISTINCT matrix_index || "." || iteration) FROM combo')" \
		1 "runs, seqs, (combination, iteration) after the resume: $(q s.db 'SELECT COUNT(*) FROM combo')" || return 1
	expect_eq "$(q s.db 'SELECT group_concat(matrix_index) FROM (SELECT DISTINCT matrix_index FROM combo WHERE stage = 1 ORDER BY 1)')" \
		"$stage1" "stage 1 chosen again from the stored stage 0" || return 1
	# killed inside stage 1: the rest of it, then stage 2 from stage 1 as stored
	cut_run s.db 31
	$ST --resume "$run" --db "$T/s.db" --quiet >/dev/null || fail "resume inside stage 1" || return 1
	expect_eq "$(q s.db 'SELECT COUNT(*) BETWEEN 45 AND 54 AND COUNT(*) = COUNT(DISTINCT seq) AND COUNT(*) = COUNT(DISTINCT matrix_index || "." || iteration) FROM combo')" \
		1 "runs, seqs, (combination, iteration) after the second resume: $(q s.db 'SELECT COUNT(*) FROM combo')" || return 1
	want=$(q s.db "SELECT group_concat(matrix_index) FROM (SELECT * FROM (SELECT matrix_index FROM result
		WHERE stage < 2 AND matrix_index IN (SELECT matrix_index FROM combo WHERE stage = 1)
		GROUP BY matrix_index ORDER BY MAX(agg_mbps) DESC, matrix_index LIMIT 3) ORDER BY 1)")
	expect_eq "$(q s.db 'SELECT group_concat(matrix_index) FROM (SELECT DISTINCT matrix_index FROM combo WHERE stage = 2 ORDER BY 1)')" \
		"$want" "stage 2: the best 3 of stage 1 as stored" || return 1
	expect_eq "$(q s.db 'SELECT status FROM run')" complete "status" || return 1
}

# --resume of a halving run that another build planned otherwise is
# refused (exit 2, one line, the store as it was), not run into the wrong
# seqs: before 2572ddc the last stage ran each finalist's repeats one after
# the other (seq 36, 37, 38: one finalist's iterations 2, 3, 4), where this
# build runs them round by round (36, 37, 38: three finalists' iteration 2).
# Resumed so, such a run measured one finalist twice at one iteration and
# another never (tried with the older build itself). The older layout is
# written into a cut store here; and a stage's combination that this build
# would not choose again from the stored figures is refused the same way.
# srch_refused CUT SQL WHAT PATTERN: s.db cut back to CUT seqs (a crash),
# changed by SQL, is refused on --resume: exit 2, one line matching
# PATTERN, the store's rows as they were
srch_refused() {
	cp "$T/s.db" "$T/r.db"
	cut_run r.db "$1"
	sqlite3 "$T/r.db" "$2" || return 1
	sqlite3 "$T/r.db" .dump >before.sql
	expect_exit 2 $ST --resume "$run" --db "$T/r.db" --quiet >out.txt 2>err.txt || return 1
	sqlite3 "$T/r.db" .dump >after.sql
	cmp -s before.sql after.sql || fail "$3: the refused resume changed the store" || return 1
	expect_eq "$(wc -l <err.txt)" 1 "$3: lines of the refusal: $(cat err.txt)" || return 1
	grep -q -- "$4" err.txt || fail "$3: the refusal: $(cat err.txt)"
}

t_search_resume_of_another_plan_is_refused() {
	srch_surface
	$ST $SRCH_ARGS --size 4m --null-surface "$T/planted.txt" --search halving \
		--db "$T/s.db" --quiet >/dev/null || return 1
	run=$(q s.db 'SELECT run_id FROM run')
	expect_eq "$(q s.db 'SELECT MIN(seq) FROM combo WHERE stage = 2')" 36 "stage 2's first seq" || return 1
	srch_refused 39 "UPDATE combo SET iteration = 2 + (seq - 36) % 3 WHERE stage = 2" "stage 2" \
		"--resume: run $run was begun by stcluster .*, whose --search halving planned otherwise: its seq 37 is stage 2, iteration 3 (combination [0-9]*), where this build's has stage 2, iteration 2" ||
		return 1
	# stage 1 with a combination stage 0's figures do not put in it
	out=$(q s.db 'SELECT MIN(matrix_index) FROM combo WHERE stage = 0 AND matrix_index NOT IN
		(SELECT matrix_index FROM combo WHERE stage = 1)')
	srch_refused 30 "UPDATE combo SET matrix_index = $out WHERE seq = 28" "stage 1" \
		"its seq 28 is stage 1, iteration 1 (combination $out), where this build's has stage 1, iteration 1, another combination" ||
		return 1
	# stage 0 with a run shorter than this build makes it (an older build
	# made a stage's --size a multiple of each combination's own block)
	srch_refused 20 "UPDATE combo SET size = size - 65536 WHERE seq = 5" "stage 0" \
		"its seq 5 is stage 0, iteration 0 (combination [0-9]*), where this build's has stage 0, iteration 0, another --size" ||
		return 1
	# the same cut store as this build wrote it resumes, every (combination, iteration) once
	cp "$T/s.db" "$T/ok.db"
	cut_run ok.db 39
	$ST --resume "$run" --db "$T/ok.db" --quiet >/dev/null || fail "resume of this build's run" || return 1
	expect_eq "$(q ok.db 'SELECT COUNT(*) = COUNT(DISTINCT matrix_index || "." || iteration) FROM combo')" 1 \
		"(combination, iteration) once each after the resume" || return 1
}

# a wall-time --budget counts, on --resume, the time the run's first part
# spent (its stored combinations' own wall times): the first part stops at
# its budget in stage 2, the store is cut back as a crash leaves it, and the
# resumed part may spend only what is left of the budget. Checked on what
# the store holds: no combination began after the stored ones before it had
# spent the budget (the job's own clock also counts the gaps between runs,
# so it stops no later than that).
t_search_resume_counts_the_budget_spent() {
	args="--engine null --block 64k --size 16m --phases write --null-delay 2ms --rsize 64k,256k,1m
		--nconnect 1,2,4 --vers 3,4.1,4.2 --search halving --budget 12s"
	$ST $args --db "$T/b.db" --quiet >/dev/null || return 1
	run=$(q b.db 'SELECT run_id FROM run')
	dur="(julianday(finished_at) - julianday(started_at)) * 86400"
	n=$(q b.db 'SELECT COUNT(*) FROM combo')
	echo "    first part: $n runs, $(q b.db "SELECT printf('%.2f', SUM($dur)) FROM combo") s" >&2
	# (12 s: at 8 s a loaded fresh root's first part ended at 39, the overheads between runs
	# spending the budget too)
	[ "$n" -gt 40 ] || fail "the first part stopped before stage 2's second round ($n runs)" || return 1
	# a crash after stage 2's first round: the budget half spent or more
	cut_run b.db 39
	spent=$(q b.db "SELECT SUM($dur) FROM combo")
	$ST --resume "$run" --db "$T/b.db" >out.txt || fail "the resume: $(cat out.txt)" || return 1
	total=$(q b.db "SELECT printf('%.2f', SUM($dur)) FROM combo")
	# every stored combination but the last began while the runs before it
	# had spent under 12 s
	late=$(q b.db "SELECT COUNT(*) FROM combo c WHERE seq <> (SELECT MAX(seq) FROM combo) AND
		(SELECT SUM($dur) FROM combo d WHERE d.finished_at <= c.started_at) >= 12")
	echo "    stored before the resume $spent s, after it $total s, $(q b.db 'SELECT COUNT(*) FROM combo') runs" >&2
	expect_eq "$late" 0 "runs begun after the budget (12 s, $total s stored)" || return 1
	grep -q -- "--budget 12s: .* s of it spent before this resume" out.txt ||
		fail "the resume does not say what was spent: $(cat out.txt)" || return 1
	expect_eq "$(q b.db 'SELECT status FROM run')" complete "the run" || return 1
}

# effects and report --top on a searched run read each combination from
# the last stage it reached (its longest runs), not its shorter runs of the
# stages before averaged in, and say so; the oracle: each combination's
# runs of its last stage, counted in SQL
t_search_effects_and_top_read_each_combination_s_last_stage() {
	$ST --engine null --block 4k --size 64k --threads 1,2,3 --direct on,off --null-delay 50 \
		--search halving --db "$T/s.db" --quiet >/dev/null || return 1
	last="FROM combo c WHERE stage = (SELECT MAX(stage) FROM combo d WHERE d.matrix_index = c.matrix_index)"
	want=$(q s.db "SELECT COUNT(*) $last")
	[ "$want" -lt "$(q s.db 'SELECT COUNT(*) FROM combo')" ] || fail "no combination ran in two stages" || return 1
	$ST effects --db s.db --format json >e.json || fail "effects" || return 1
	got=$(python3 -c "
import json
rows = json.load(open('e.json'))['rows']
print(sum(r['n'] for r in rows if r['kind'] == 'main' and r['phase'] == 'write' and r['option'] == 'threads'))")
	expect_eq "$got" "$want" "effects' observations of threads in write (the last stage's runs)" || return 1
	$ST report --top 20 --phase write --db s.db --format json >t.json || fail "report --top" || return 1
	got=$(python3 -c "
import json
rows = json.load(open('t.json'))['rows']
print(','.join(str(n) for _, n in sorted((r['options']['threads'] * 2 + (r['options']['direct'] == 'off'), r['iterations']) for r in rows)))")
	# matrix order: threads then direct (on, off) as the store numbers them
	wantidx=$(q s.db "SELECT group_concat(n) FROM (SELECT COUNT(*) AS n $last GROUP BY matrix_index
		ORDER BY MIN(threads), MIN(direct) = 'on' DESC)")
	expect_eq "$got" "$wantidx" "report --top's iterations per combination (the last stage's)" || return 1
	for c in effects "report --top 3"; do
		$ST $c --db s.db 2>&1 | grep -q "each combination from the runs of the last stage it reached" ||
			fail "$c does not say it reads the last stage" || return 1
	done
}

# the last stage's race: 3 finalists (vers), vers=3 planted at twice the
# delay, 4.1 and 4.2 the same. After its 3 rounds the race drops vers=3
# (half the figure: Welch's test finds it worse on any machine that does
# not slow one run twice as much as another); the two alike go on until
# the test finds one worse (a chance of 5 % a round) or the 6th round.
# The old design stopped after round 3 whatever the runs measured.
t_search_race_runs_on_while_the_finalists_are_alike() {
	cat >"$T/race.txt" <<'S'
base 500us
factor vers=3 2
noise 0.03
seed 5
S
	$ST --engine null --block 64k --size 4m --phases write --vers 3,4.1,4.2 --search halving \
		--null-surface "$T/race.txt" --db "$T/r.db" --progress none >out.txt || return 1
	# vers=3, half as fast, leaves the race first: after its 3 runs of round 3 where the runs'
	# noise lets the 95 % interval tell it apart then (a fresh root beside a loaded ladder: 4),
	# never after a finalist, and before the race's end unless that is round 3
	n3=$(q r.db 'SELECT COUNT(*) FROM combo WHERE vers = "3"')
	counts=$(q r.db 'SELECT group_concat(n) FROM (SELECT COUNT(*) AS n FROM combo WHERE vers <> "3" GROUP BY vers ORDER BY vers)')
	expect_eq "$(q r.db "SELECT $n3 >= 3 AND $n3 <= MIN(n) AND ($n3 < MAX(n) OR MAX(n) = 3) FROM
		(SELECT COUNT(*) AS n FROM combo WHERE vers <> '3' GROUP BY vers)")" 1 \
		"vers=3's $n3 runs against the finalists' $counts" || return 1
	echo "    runs of vers 3: $n3, of 4.1, 4.2: $counts; $(grep round out.txt | tr '\n' ' ')" >&2
	# round 3 was run (both alike still in the race), or the output says why not
	case $counts in
	3,3) grep -q "stage 0, round 3: 1 of 3 finalists still in the race, which ends" out.txt ||
		fail "the race stopped after round 3 with two finalists in it: $(cat out.txt)" || return 1 ;;
	*) expect_eq "$(q r.db 'SELECT MIN(n) >= 3 AND MAX(n) <= 6 FROM (SELECT COUNT(*) AS n FROM combo
		WHERE vers <> "3" GROUP BY vers)')" 1 "the alike finalists' runs: $counts" || return 1 ;;
	esac
	# a finalist that left the race early had the lower mean over the runs
	# both had then
	expect_eq "$(q r.db 'SELECT COUNT(*) FROM (SELECT vers, COUNT(*) AS n FROM combo WHERE vers <> "3" GROUP BY vers) a,
		(SELECT vers, COUNT(*) AS n FROM combo WHERE vers <> "3" GROUP BY vers) b WHERE a.n < b.n AND
		(SELECT AVG(agg_mbps) FROM result WHERE vers = a.vers) >=
		(SELECT AVG(agg_mbps) FROM result WHERE vers = b.vers AND iteration < (SELECT MAX(iteration) + 1 FROM combo WHERE vers = a.vers))')" \
		0 "a finalist dropped with the better mean" || return 1
	expect_eq "$(q r.db 'SELECT combos_planned || "/" || status FROM run')" "18/complete" "the run" || return 1
}

t_search_bad_input() {
	for c in "--search halving --budget 0|--budget: invalid value '0'" \
		"--search halving --budget xyz|--budget: invalid value 'xyz'" \
		"--search foo|--search: unknown value 'foo'" \
		"--budget 20m|--budget: '20m' is the budget of --search halving" \
		"--search halving --budget 3|--budget: 3 combination-runs is less than stage 0 needs"; do
		args=${c%%|*}
		want=${c#*|}
		$ST --engine null --block 4k,8k,16k --threads 1,2 --size 16k $args --db "$T/s.db" >out 2>err
		expect_eq $? 2 "exit status of $args" || return 1
		expect_eq "$(wc -l <err)" 1 "lines of $args's message: $(cat err)" || return 1
		grep -qF -- "$want" err || fail "$args: $(cat err)" || return 1
		[ ! -e "$T/s.db" ] || fail "$args left a store" || return 1
	done
}
