# A store that scales with the run (issue 14): the per-run commands read the
# rows of the runs they name (coordinator/report/scope.c), so the history a store holds
# changes nothing they print; the stored histograms (sparse) give the stored
# percentiles back. Null engine, 2 ranks, small sweeps.

# ss_run DB LABEL ARGS...: a null-engine job of 2 ranks into DB
ss_run() {
	db=$1 label=$2
	shift 2
	$MPIRUN -np 2 $ST --engine null --size 16k --phases write,read --db "$db" \
		--label "$label" --quiet "$@"
}

# ss_outputs DB RUN DIR: every per-run command's output for RUN, one file each
# (JSON has every figure unrounded; the table of report too; effects is slow
# to compile under the sanitizers, so once, and once more inside the HTML page)
ss_outputs() {
	mkdir -p "$3"
	$ST report --run "$2" --db "$1" >"$3/report.table" &&
		$ST report --run "$2" --db "$1" --format json >"$3/report.json" &&
		$ST report --run "$2" --top 2 --db "$1" --format json >"$3/top.json" &&
		$ST effects --run "$2" --db "$1" --format json >"$3/effects.json" &&
		$ST report --run "$2" --html "$3/report.html" --db "$1" >/dev/null
}

t_store_scale_history_leaves_a_runs_report_unchanged() {
	ss_run one.db first --block 4k,8k --threads 1,2 --iterations 2 --null-delay 100 || return 1
	run=$(q one.db "SELECT run_id FROM run")
	ss_outputs one.db "$run" a || fail "commands on the 1-run store" || return 1
	# two runs more: one of the same options, one of others
	cp one.db three.db
	ss_run three.db second --block 4k,8k --threads 1,2 --iterations 2 --null-delay 100 || return 1
	ss_run three.db third --block 16k --threads 1,3 --null-delay 100 || return 1
	expect_eq "$(q three.db 'SELECT COUNT(*) FROM run')" 3 "runs in the larger store" || return 1
	ss_outputs three.db "$run" b || fail "commands on the 3-run store" || return 1
	for f in a/*; do
		[ -s "$f" ] || fail "$f is empty" || return 1
		cmp -s "$f" "b/${f#a/}" || fail "history changed ${f#a/} of run 1: $(diff "$f" "b/${f#a/}" | head -5)" ||
			return 1
	done
	grep -q '"bytes_per_s"' a/report.json || fail "report json has no bytes_per_s: $(head -c 300 a/report.json)" || return 1
	# compare of run 1 against run 2: its means are those of the views
	second=$(q three.db "SELECT run_id FROM run WHERE label = 'second'")
	$ST compare "$run" "$second" --db three.db --format csv >cmp.csv || fail "compare" || return 1
	[ "$(sed 1d cmp.csv | wc -l)" -eq 8 ] || fail "compare rows: $(cat cmp.csv)" || return 1

	# history --where on options alone reads only their combinations: the same
	# rows as a condition that cannot be narrowed so (it names a figure)
	$ST history --where "block=4k AND threads=2" --db three.db --format csv >h1.csv &&
		$ST history --where "block=4k AND threads=2 AND (mbps IS NULL OR mbps IS NOT NULL)" --db three.db \
			--format csv >h2.csv || fail "history --where" || return 1
	[ "$(sed 1d h1.csv | wc -l)" -eq 4 ] || fail "history rows: $(cat h1.csv)" || return 1
	cmp -s h1.csv h2.csv || fail "history --where narrowed differs: $(diff h1.csv h2.csv | head -5)" || return 1

	# the commands read the views' own text over the run's rows only
	# (coordinator/report/scope.c): their figures are the views' read whole
	# by plain SQL over the 3-run store (query does not scope)
	$ST query --db three.db --format csv "SELECT printf('%.1f', s.agg_mbps) FROM phase_summary s JOIN combo c
		USING (combo_id) WHERE c.run_id = '$run' ORDER BY c.seq, s.phase_order" | sed 1d >views.txt || return 1
	python3 -c "import json; [print('%.1f' % (r['bytes_per_s'] / 1e6)) for r in json.load(open('a/report.json'))['rows']]" >report.txt || return 1
	[ -s views.txt ] && cmp -s views.txt report.txt ||
		fail "report's MB/s against phase_summary's: $(paste views.txt report.txt | head -5)" || return 1
	# (query.c puts the head on every statement given a scope; the commands give theirs)
	grep -q 'st_scope_head' "$TOP/coordinator/report/query.c" || fail "query.c does not scope statements" || return 1
	for f in report.c analysis.c html_data.c; do
		grep -q '\.scope = ' "$TOP/coordinator/report/$f" || fail "$f does not scope its statements" || return 1
	done
}

t_store_scale_stored_histograms_give_the_stored_percentiles() {
	ss_run s.db one --block 4k --threads 1,2 --null-delay 200 || return 1
	expect_eq "$(q s.db 'PRAGMA user_version')" 10 "schema version" || return 1
	# every rank row with calls: a sparse histogram, small
	expect_eq "$(q s.db "SELECT COUNT(*), SUM(hist_enc = 1), MAX(length(hist)) < 200 FROM rank_result WHERE ops > 0")" \
		"8|8|1" "rank rows: count, sparse, small" || return 1
	# per rank: its percentiles; per phase (every rank merged): phase_run's
	got=$($ST query --db s.db --format csv "SELECT
		(SELECT COUNT(*) FROM (SELECT combo_id, rank, phase FROM rank_result WHERE ops > 0 GROUP BY combo_id, phase, rank
			HAVING MIN(lat_p50_ns) = st_hist_quantile(hist, hist_enc, 0.5) AND MIN(lat_p99_ns) = st_hist_quantile(hist, hist_enc, 0.99)
			AND MIN(lat_max_ns) = st_hist_quantile(hist, hist_enc, 1))) AS ranks,
		(SELECT COUNT(*) FROM (SELECT p.combo_id FROM phase_run p JOIN rank_result r USING (combo_id, phase) GROUP BY p.combo_id, p.phase
			HAVING MIN(p.lat_p50_ns) = st_hist_quantile(r.hist, r.hist_enc, 0.5) AND MIN(p.lat_p90_ns) = st_hist_quantile(r.hist, r.hist_enc, 0.9)
			AND MIN(p.lat_p99_ns) = st_hist_quantile(r.hist, r.hist_enc, 0.99) AND MIN(p.lat_max_ns) = st_hist_quantile(r.hist, r.hist_enc, 1)
			AND MIN(p.lat_count) > 0 AND MIN(p.lat_max_ns) > 0)) AS phases" | sed 1d)
	expect_eq "$got" "8,4" "percentiles from the stored histograms (ranks, phases)"
}

# ss_pages_within NAME A B: page reads B of the larger store within 10 % of A
ss_pages_within() {
	echo "    $1: $2 pages, $3 in the larger store"
	[ "$2" -gt 0 ] && [ $(($3 * 10)) -le $(($2 * 11)) ] && [ $(($3 * 10)) -ge $(($2 * 9)) ] ||
		fail "$1: $2 pages read of the smaller store, $3 of the larger"
}

once_store_scale_history_reads_its_window_not_the_store() {
	# issue 22 item 4: history read every run ever stored, and its output
	# grew with them (measured in tests/bench/store.sh, 100 combinations x 4
	# ranks a run: 89 page reads at 1 run, 398 at 10, 5,170 at 30, 20,183
	# at 100). It shows the last --runs runs (20) and reads those and the
	# --window runs (5) before them only. Here (36 combinations a run, 1
	# rank): the default history on 25 runs and on 40 read the same pages
	# (before: 213 and 305), and so do the per-run commands on 5 runs and
	# on 40 (what grows from 1 to 5 runs is a B-tree level: a page each of
	# the tables read, 70 -> 76 for report --top). Once, on the normal
	# build (LeakSanitizer cannot run under strace)
	command -v strace >/dev/null || { echo "strace is not installed (tests/deps.sh install)"; return 77; }
	run="--engine null --null-delay 0 --block 4k,8k,16k,32k --threads 1,2,3 --size 64k --iterations 3
		--phases write,read --quiet"
	for k in $(seq 1 40); do
		$ST $run --db "$T/many.db" || return 1
		case $k in 5) cp many.db five.db ;; 25) cp many.db t25.db ;; esac
	done
	# the rows shown are those of the last runs in the history of every run
	$ST history --runs 0 --window 2 --db "$T/many.db" --format csv >all.csv &&
		$ST history --runs 3 --window 2 --db "$T/many.db" --format csv >last.csv || fail "history" || return 1
	q many.db "SELECT run_id FROM run ORDER BY started_at DESC, rowid DESC LIMIT 3" >ids
	awk -F, 'NR == FNR { k[$1] = 1; next } FNR == 1 || ($2 in k)' ids all.csv >want.csv
	expect_eq "$(sed 1d last.csv | wc -l)" 72 "rows of the last 3 runs (12 configurations x 2 phases)" || return 1
	expect_eq "$(sed 1d all.csv | wc -l)" 960 "rows of every run" || return 1
	cmp -s want.csv last.csv || fail "the last 3 runs' rows differ: $(diff want.csv last.csv | head -5)" || return 1
	expect_eq "$(awk -F, 'NR > 1 { print $12 }' last.csv | sort -u | tr '\n' ' ')" "2 " "earlier runs of each" ||
		return 1
	for what in "" "--where block=4k"; do
		a=$(pages_read t25.db history --db "$T/t25.db" $what) && b=$(pages_read many.db history --db "$T/many.db" $what) ||
			{ fail "history $what"; return 1; }
		ss_pages_within "history $what (25 runs, 40)" "$a" "$b" || return 1
	done
	# (from 5 runs to 25 its tables gain a B-tree level: 93 -> 98 pages)
	a=$(pages_read t25.db history --runs 3 --window 2 --db "$T/t25.db") &&
		b=$(pages_read many.db history --runs 3 --window 2 --db "$T/many.db") || { fail "history --runs 3"; return 1; }
	ss_pages_within "history --runs 3 --window 2 (25 runs, 40)" "$a" "$b" || return 1
	for cmd in "report --top 3" "effects" "compare last~1 last" "audit last" "report --html $T/r.html --force"; do
		a=$(pages_read five.db $cmd --db "$T/five.db") && b=$(pages_read many.db $cmd --db "$T/many.db") ||
			{ fail "$cmd"; return 1; }
		ss_pages_within "$cmd (5 runs, 40)" "$a" "$b" || return 1
	done
}
