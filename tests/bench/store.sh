#!/bin/sh
# tests/bench/store.sh - the store's cost against its history (run on demand, not in make check).
#
# One real run of the null engine at STORE_NP ranks (default 16, oversubscribed) of 100
# combinations (--block 4k..64k x --threads 1..4, 5 iterations, write+read), then its rows
# replicated in SQL (sqlite3) into further runs with new run and combo ids, each dated a day
# earlier than the one before, so the real run stays the LAST one and the store holds
# years of history: stores of 100, 1,000 and 10,000 combinations (STORE_SIZES). At each size,
# every per-run command is timed on the last run (median of STORE_REPS, seconds): report,
# report --top 10, effects, compare (the last run against the one before), history (every
# configuration of the last 20 runs, read with the 5 runs before them: --runs, --window),
# history of one configuration (--where "block=4k AND threads=1": its 5 iterations in each
# of those runs), report --html, audit; and the store's bytes per rank and phase (page_count * page_size /
# rank_result rows) and per combination. Then each command's page reads, once (STORE_PAGES=1,
# the default, where strace is installed): what must stay flat in the history (issue 22).
#
# Replicated runs are copies: their hashes are those of the real run (audit of a replica
# would say altered; only the last run is audited). Goal (issue 14): every command < 0.3 s
# and flat (within 2x) from the smallest store to the largest.
#
# Knobs: STORE_NP (16), STORE_SIZES ("100 1000 10000"), STORE_REPS (3), STORE_HISTORY (1; 0:
# history is not run; before --runs it read every run, 34 min at 1,000 runs of 100), STCLUSTER (./stcluster;
# before/after: run it once with each binary, since the binary that writes the real run decides
# the bytes). Everything it creates is under one temp directory, removed on exit.

set -u
LC_ALL=C
export LC_ALL
cd "$(dirname "$0")/../.." || exit 1
ROOT=$(pwd)
ST_SRC=${STCLUSTER:-$ROOT/stcluster}
NP=${STORE_NP:-16}
SIZES=${STORE_SIZES:-"100 1000 10000"}
REPS=${STORE_REPS:-3}
WORK=''
cleanup() { [ -n "$WORK" ] && rm -rf "$WORK"; }
trap cleanup EXIT
trap 'exit 130' INT TERM HUP
BENCH="store bench"
. tests/bench/lib.sh

[ -x "$ST_SRC" ] || die "$ST_SRC is missing: run make first"
command -v mpirun >/dev/null || die "mpirun not found"
command -v sqlite3 >/dev/null || die "sqlite3 not found (apt-get install sqlite3)"
# shellcheck disable=SC1091
. "$ROOT/tests/mpienv.sh"
WORK=$(mktemp -d "${TMPDIR:-/tmp}/stbench-store.XXXXXX") || die "mktemp failed"
mkdir "$WORK/t"
: >"$WORK/pages.txt"
cp "$ST_SRC" "$WORK/st-new" || die "cannot copy $ST_SRC"
tools="new"
DB=$WORK/store.db

echo "stcluster store bench  $(date -u +%Y-%m-%dT%H:%M:%SZ)  $("$WORK/st-new" --version | head -n 1)  $(nproc) CPUs"
writer=$WORK/st-new
t0=$(date +%s%N)
timeout -k 10 900 mpirun -np "$NP" "$writer" --target "$WORK/t" --engine null --null-delay 0 \
	--block 4k,8k,16k,32k,64k --threads 1,2,3,4 --size 64k --iterations 5 --phases write,read \
	--db "$DB" --quiet >"$WORK/out" 2>&1 || { tail -5 "$WORK/out"; die "the real run failed"; }
echo "real run: 100 combinations x $NP ranks, write+read, null engine, $(awk -v a="$t0" -v b="$(date +%s%N)" 'BEGIN { printf "%.1f", (b - a) / 1e9 }') s [$(load)]"
RUN=$(sqlite3 "$DB" "SELECT run_id FROM run")
STRIDE=$(sqlite3 "$DB" "SELECT MAX(combo_id) FROM combo")
[ "$(sqlite3 "$DB" "SELECT MIN(combo_id) FROM combo")" = 1 ] || die "the real run's combo ids do not start at 1"

# the SELECT list of table $1's columns, with run_id and combo_id replaced by replica n's
cols() {
	sqlite3 "$DB" "SELECT group_concat(CASE name
		WHEN 'run_id' THEN 'substr(x.run_id, 1, 24) || printf(''%012x'', n.n)'
		WHEN 'combo_id' THEN 'x.combo_id + n.n * $STRIDE'
		WHEN 'started_at' THEN CASE WHEN '$1' = 'run' THEN 'strftime(''%Y-%m-%dT%H:%M:%fZ'', x.started_at, ''-'' || n.n || '' days'')' ELSE 'x.started_at' END
		WHEN 'finished_at' THEN CASE WHEN '$1' = 'run' THEN 'strftime(''%Y-%m-%dT%H:%M:%fZ'', x.finished_at, ''-'' || n.n || '' days'')' ELSE 'x.finished_at' END
		ELSE 'x.\"' || name || '\"' END, ', ') FROM pragma_table_info('$1') ORDER BY cid"
}
names() { sqlite3 "$DB" "SELECT group_concat('\"' || name || '\"', ', ') FROM pragma_table_info('$1') ORDER BY cid"; }

# replicas $1..$2 of the real run, in one transaction
replicate() {
	{
		echo "BEGIN;"
		for t in $(sqlite3 "$DB" "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY rowid"); do
			has=$(sqlite3 "$DB" "SELECT group_concat(name) FROM pragma_table_info('$t') WHERE name IN ('run_id', 'combo_id')")
			case $t,$has in
			run,*) w="x.run_id = '$RUN'" ;;
			combo,*) w="x.run_id = '$RUN'" ;;
			*,*combo_id*) w="x.combo_id <= $STRIDE" ;;
			*,run_id) w="x.run_id = '$RUN'" ;;
			*) continue ;;
			esac
			echo "WITH RECURSIVE n(n) AS (SELECT $1 UNION ALL SELECT n + 1 FROM n WHERE n < $2)"
			echo "INSERT INTO \"$t\" ($(names "$t")) SELECT $(cols "$t") FROM \"$t\" x, n WHERE $w;"
		done
		echo "COMMIT;"
	} >"$WORK/replicate.sql"
	sqlite3 "$DB" <"$WORK/replicate.sql" || die "replicating runs $1..$2 failed"
}

# page reads of one run of a command: its pread64 calls on the store and its WAL (SQLite
# reads a page a call; STORE_PAGES=0: not counted, "-"). Seconds depend on the machine's
# load; pages do not.
pages() {
	tool=$1
	shift
	[ "${STORE_PAGES:-1}" = 1 ] && command -v strace >/dev/null || { echo -; return; }
	strace -f -y -e trace=pread64 -o "$WORK/pages.out" "$WORK/st-$tool" "$@" --db "$DB" >/dev/null 2>&1 || { echo fail; return; }
	grep -c "pread64([0-9]*<$DB\(-wal\)\?>" "$WORK/pages.out"
}

# median seconds of REPS runs of a command (its output to $WORK/cmd.out; "fail" if it failed)
timeit() {
	tool=$1
	shift
	i=0
	: >"$WORK/times"
	while [ "$i" -lt "$REPS" ]; do
		t0=$(date +%s%N)
		"$WORK/st-$tool" "$@" --db "$DB" >"$WORK/cmd.out" 2>&1 || { echo fail; sed "s/^/    $* /" "$WORK/cmd.out" | tail -2 >&2; return; }
		echo $(($(date +%s%N) - t0)) >>"$WORK/times"
		i=$((i + 1))
	done
	sort -n "$WORK/times" | awk '{ v[NR] = $1 } END { printf "%.3f", v[int((NR + 1) / 2)] / 1e9 }'
}

printf '\n  %-5s %-7s %-5s %-8s %-8s %-8s %-8s %-8s %-8s %-8s %-8s %-8s %-10s %s\n' tool combos runs MB \
	report top10 effects compare history hist1 html audit "B/rank-ph" "B/combo/rank"
have=1
for size in $SIZES; do
	runs=$(((size + 99) / 100))
	[ "$runs" -gt "$have" ] && replicate "$have" "$((runs - 1))"
	have=$runs
	prev=$(sqlite3 "$DB" "SELECT run_id FROM run WHERE run_id <> '$RUN' ORDER BY started_at DESC LIMIT 1")
	[ -n "$prev" ] || prev=$RUN
	for tool in $tools; do
		r1=$(timeit "$tool" report --run "$RUN")
		r2=$(timeit "$tool" report --run "$RUN" --top 10)
		r3=$(timeit "$tool" effects --run "$RUN")
		r4=$(timeit "$tool" compare "$prev" "$RUN")
		r5=- r8=- p5=- p8=-
		if [ "${STORE_HISTORY:-1}" = 1 ]; then
			r5=$(timeit "$tool" history)
			r8=$(timeit "$tool" history --where "block=4k AND threads=1")
			p5=$(pages "$tool" history) p8=$(pages "$tool" history --where "block=4k AND threads=1")
		fi
		r6=$(timeit "$tool" report --run "$RUN" --html "$WORK/r.html")
		r7=$(timeit "$tool" audit "$RUN")
		p1=$(pages "$tool" report --run "$RUN") p2=$(pages "$tool" report --run "$RUN" --top 10)
		p3=$(pages "$tool" effects --run "$RUN") p4=$(pages "$tool" compare "$prev" "$RUN")
		p6=$(pages "$tool" report --run "$RUN" --html "$WORK/r.html") p7=$(pages "$tool" audit "$RUN")
		printf '%s %s %s %s %s %s %s %s %s %s\n' "$tool" "$runs" "$p1" "$p2" "$p3" "$p4" "$p5" "$p8" "$p6" "$p7" >>"$WORK/pages.txt"
		set -- $(sqlite3 -separator " " "$DB" "SELECT (SELECT page_count FROM pragma_page_count) * (SELECT page_size FROM pragma_page_size),
			(SELECT COUNT(*) FROM rank_result), (SELECT COUNT(*) FROM combo)")
		bytes=$1 rows=$2 combos=$3
		printf '  %-5s %-7s %-5s %-8s %-8s %-8s %-8s %-8s %-8s %-8s %-8s %-8s %-10s %s\n' "$tool" "$combos" "$runs" \
			"$(awk -v b="$bytes" 'BEGIN { printf "%.1f", b / 1e6 }')" "$r1" "$r2" "$r3" "$r4" "$r5" "$r8" "$r6" "$r7" \
			"$(awk -v b="$bytes" -v r="$rows" 'BEGIN { printf "%.0f", b / r }')" \
			"$(awk -v b="$bytes" -v c="$combos" -v n="$NP" 'BEGIN { printf "%.0f", b / c / n }')"
	done
done
echo
printf '  page reads (one run of each, strace pread64 on the store):\n  %-5s %-5s %-8s %-8s %-8s %-8s %-8s %-8s %-8s %s\n' \
	tool runs report top10 effects compare history hist1 html audit
while read -r t r a b c d e f g h; do
	printf '  %-5s %-5s %-8s %-8s %-8s %-8s %-8s %-8s %-8s %s\n' "$t" "$r" "$a" "$b" "$c" "$d" "$e" "$f" "$g" "$h"
done <"$WORK/pages.txt"
echo
echo "seconds: median of $REPS; MB: the store file; B/rank-ph: the file's bytes per rank_result row (rank and phase);"
echo "B/combo/rank: per combination and rank (both phases, the thread rows, everything else included)"
echo "store bench done  [$(load)]"
