#!/bin/sh
# tests/bench/store_phase.sh - the store's bytes per rank and phase against the phase's length
# (run on demand, not in make check; issue 22 item 4).
#
# For each phase length in PHASE_SECONDS (default "0.1 1 10"): two runs into one store of the
# null engine at PHASE_NP ranks (4, oversubscribed) of --null-delay 1ms, --runtime that long,
# write and read, --block 4k,64k x --threads 1,2 x --iterations PHASE_ITER (1): 4 combinations,
# 8 phases a rank each. Prints what the second run added per rank and phase (rank_result row):
# the file's bytes (page_count x page_size) and of them the intervals' (dbstat: the table
# interval and its key's index before schema version 9, interval_pack after), and per interval
# row; and the whole file per row, the fixed pages of a store's every table included.
#
# Knobs: STCLUSTER (./stcluster; before/after: run it once with each binary), PHASE_NP,
# PHASE_SECONDS, PHASE_ITER. Everything it creates is under one temp directory, removed on exit.

set -u
LC_ALL=C
export LC_ALL
cd "$(dirname "$0")/../.." || exit 1
ROOT=$(pwd)
ST=${STCLUSTER:-$ROOT/stcluster}
NP=${PHASE_NP:-4}
SECONDS_LIST=${PHASE_SECONDS:-"0.1 1 10"}
ITER=${PHASE_ITER:-1}
WORK=''
cleanup() { [ -n "$WORK" ] && rm -rf "$WORK"; }
trap cleanup EXIT
trap 'exit 130' INT TERM HUP
BENCH="store phase bench"
. tests/bench/lib.sh

[ -x "$ST" ] || die "$ST is missing: run make first"
command -v mpirun >/dev/null || die "mpirun not found"
command -v sqlite3 >/dev/null || die "sqlite3 not found (apt-get install sqlite3)"
# shellcheck disable=SC1091
. "$ROOT/tests/mpienv.sh"
WORK=$(mktemp -d "${TMPDIR:-/tmp}/stbench-phase.XXXXXX") || die "mktemp failed"
mkdir "$WORK/t"

echo "stcluster store phase bench  $(date -u +%Y-%m-%dT%H:%M:%SZ)  $("$ST" --version | head -n 1)  $(nproc) CPUs  [$(load)]"
# the file's bytes, rank_result rows, the intervals' pages and rows of store $1
measure() {
	sqlite3 -separator " " "$1" "SELECT (SELECT page_count FROM pragma_page_count) * (SELECT page_size FROM pragma_page_size),
		(SELECT COUNT(*) FROM rank_result),
		(SELECT COALESCE(SUM(pgsize), 0) FROM dbstat WHERE name IN ('interval', 'sqlite_autoindex_interval_1', 'interval_pack')),
		(SELECT COUNT(*) FROM interval)"
}
run() {
	timeout -k 10 1800 mpirun -np "$NP" "$ST" --target "$WORK/t" --engine null --null-delay 1ms \
		--runtime "$1" --size 1g --block 4k,64k --threads 1,2 --iterations "$ITER" \
		--phases write,read --db "$2" --quiet >"$WORK/out" 2>&1 || { tail -5 "$WORK/out"; die "the run of $1 s failed"; }
}
printf '\n  %-7s %-6s %-10s %-10s %-10s %-9s %s\n' phase_s rows "B/rank-ph" "iv B/r-ph" "file B/r-ph" "iv rows" "B/iv row"
for s in $SECONDS_LIST; do
	db=$WORK/s$s.db
	run "$s" "$db"
	set -- $(measure "$db")
	b0=$1 r0=$2 i0=$3 n0=$4
	run "$s" "$db"
	set -- $(measure "$db")
	rows=$(($2 - r0))
	printf '  %-7s %-6s %-10s %-10s %-10s %-9s %s\n' "$s" "$rows" "$((($1 - b0) / rows))" "$((($3 - i0) / rows))" \
		"$(($1 / $2))" "$(($4 - n0))" "$(awk -v b="$(($3 - i0))" -v r="$(($4 - n0))" 'BEGIN { printf "%.1f", b / r }')"
done
echo
echo "B/rank-ph: what the second run added to the file, per rank_result row it added (the first run's"
echo "pages hold the tables' first pages: the store's fixed cost); iv B/r-ph: of that, the intervals'"
echo "pages (dbstat); file B/r-ph: the whole file per row, fixed pages included"
echo "store phase bench done  [$(load)]"
