#!/bin/sh
# tests/run.sh - the test ladder `make check` runs: per build (normal, then
# ASan+UBSan) the unit tests and every MPI job test (functions t_* of
# tests/mpi/t_*.sh), then the tests that run once, on the normal build
# (functions once_*: valgrind, the VM lab), then a short run of each fuzz
# target (build-fuzz: make fuzz-build). Prints one line per test as it ends
# and ends with "N passed, N failed".
#
#   sh tests/run.sh [BUILD ...] [-k PATTERN] [-j JOBS] [--part quick|slow|all]
#   (BUILD: build, build-san, build-fuzz; JOBS: ST_JOBS, default twice the number of CPUs;
#   --part: all (the default), quick: every test but those of tests/slow.txt (make check),
#   slow: those alone (make check-slow); CI runs both)
#
# Tests run JOBS at a time, each in its own subshell with a fresh scratch
# directory $T, longest first (by the times of the last run, kept in
# build/.test-times; a clone that never ran the ladder, as CI's, takes them
# from tests/test-times.tsv, a ladder's times committed: without them every
# test counts 10 s and a long one may start last and end the ladder alone;
# `sh tests/run.sh --save-times` after a full ladder writes that file from
# build/.test-times). A test file with the line "# run.sh: one at a time"
# uses something only one test may hold (the lab's namespace names and
# subnet): its tests run one after another, under the lock STLAB_LOCK
# (tests/lab/names.sh), in a lane of their own beside the others. A file's
# tests may share what is costly to make (the VM lab of tests/lab/vmtest.sh,
# kept up across them): its function after_once, if it has one, undoes that
# once every test has run.
set -u
cd "$(dirname "$0")/.."
TOP=$(pwd)
export TOP
# STLAB_LOCK and the labs' names (tests/lab/names.sh), the same for every job
. "$TOP/tests/lab/names.sh"
stlab_names_check || exit 2

# sanitizer run-time settings (used by build-san binaries only)
export ASAN_OPTIONS="fast_unwind_on_malloc=0:detect_leaks=1:abort_on_error=0"
export LSAN_OPTIONS="suppressions=$TOP/tests/lsan.supp:print_suppressions=0"
export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1"

# --- one job: sh tests/run.sh --job N (R: the run's directory) ---------------

# say STATUS NAME [SECONDS]: one result line for the summary
say() { printf '%s\t%s\t%s\n' "$1" "$2" "${3:-0}" >>"$R/res.$n"; }

# show FILE: print a job's block of output whole, not interleaved with another's
show() { flock "$R/out.lock" cat "$1"; }

job_unit() {
	out=$("$TOP/$b/unit" 2>&1)
	{
		echo "$out" | grep -E '^(ok|not ok) ' | sed "s/^\(ok\|not ok\) - /\1 - [$b] unit: /"
		echo "$out" | grep -q '^[0-9]* passed, [0-9]* failed$' || { echo "not ok - [$b] unit runner crashed"; echo "$out" | tail -30; }
		echo "$out" | grep -q '^not ok' && echo "$out" | grep -v '^ok ' | tail -40
	} >"$R/out.$n"
	echo "$out" | sed -n 's/^ok - \(.*\)/ok\t['"$b"'] unit: \1\t0/p; s/^not ok - \(.*\)/fail\t['"$b"'] unit: \1\t0/p' >>"$R/res.$n"
	echo "$out" | grep -q '^[0-9]* passed, [0-9]* failed$' || say fail "[$b] unit runner crashed"
	show "$R/out.$n"
}

# san_wrapper BUILD: the command the tests run as $ST for a sanitizer build,
# in $R. A read-only subcommand calls no MPI library, so LeakSanitizer needs
# no deep stacks there: it unwinds by frame pointers (fast_unwind_on_malloc=1),
# which makes each of SQLite's many mallocs far cheaper (effects on a 2-run
# store: 17.4 s against 0.66 s). A sweep keeps the slow unwinder the
# suppressions of Open MPI need (its libraries keep no frame pointers: with
# fast stacks their allocations show frames of no module, and leak).
san_wrapper() {
	cat >"$R/stcluster-$1" <<EOF
#!/bin/sh
case "\${1:-}" in
report | runs | query | compare | effects | history | audit | advise)
	ASAN_OPTIONS="\${ASAN_OPTIONS:-}:fast_unwind_on_malloc=1"
	export ASAN_OPTIONS
	;;
esac
exec "$TOP/$1/stcluster" "\$@"
EOF
	chmod 755 "$R/stcluster-$1"
}

job_test() {
	# ST: what the tests run; ST_BIN: the binary itself (to copy, or to find
	# what was built beside it)
	if [ "$b" = build ]; then ST_BIN="$TOP/stcluster"; else ST_BIN="$TOP/$b/stcluster"; fi
	ST=$ST_BIN
	[ "$b" = build ] || ST="$R/stcluster-$b"
	export ST ST_BIN
	if [ ! -x "$ST_BIN" ]; then
		echo "not ok - $name: binary $ST_BIN missing (run make all sanitize)" >"$R/out.$n"
		say fail "$name"
		show "$R/out.$n"
		return
	fi
	T=$(mktemp -d /tmp/stcluster-test.XXXXXX)
	export T
	start=$(date +%s)
	export file fn
	# one at a time: also never beside another checkout's lab (flock holds
	# the lock, -o keeps it from the daemons the test starts)
	lock=""
	[ "$excl" = 1 ] && lock="flock -o $STLAB_LOCK"
	$lock sh -c 'set -u; cd "$T" && . "$TOP/tests/lib.sh" && . "$TOP/$file" && "$fn"' >"$T.log" 2>&1
	rc=$?
	took=$(($(date +%s) - start))
	if [ $rc = 0 ]; then
		echo "ok - $name (${took}s)" >"$R/out.$n"
		say ok "$name" "$took"
	elif [ $rc = 77 ]; then
		if [ "${CI:-}" = true ]; then
			{ echo "not ok - $name: skipped, and CI allows no skip"; sed 's/^/    /' "$T.log" | tail -20; } >"$R/out.$n"
			say fail "$name: skipped, and CI allows no skip" "$took"
		else
			echo "skip - $name: $(tail -1 "$T.log")" >"$R/out.$n"
			say skip "$name" "$took"
		fi
	else
		{ echo "not ok - $name (${took}s)"; sed 's/^/    /' "$T.log" | tail -40; } >"$R/out.$n"
		say fail "$name" "$took"
	fi
	# the test's scratch space; umount anything it left mounted first
	grep " $T/" /proc/self/mounts | awk '{print $2}' | sort -r | while read -r m; do umount "$m"; done
	rm -rf "$T" "$T.log"
	show "$R/out.$n"
}

# the fuzz targets: each replays the inputs kept in tests/fuzz/regress/,
# then fuzzes FUZZ_SHORT_SECONDS (3) from its seed corpus, in a working
# copy made afresh (build-fuzz/short/TARGET)
job_fuzz() {
	cc=${FUZZ_CC:-clang}
	if ! command -v "$cc" >/dev/null 2>&1; then
		if [ "${CI:-}" = true ]; then
			echo "not ok - $name: no $cc, and CI allows no skip" >"$R/out.$n"
			say fail "$name: no $cc, and CI allows no skip"
		else
			echo "skip - $name: no $cc (tests/deps.sh install)" >"$R/out.$n"
			say skip "$name"
		fi
		show "$R/out.$n"
		return
	fi
	rm -rf "$TOP/build-fuzz/short/$fn"
	start=$(date +%s)
	out=$(sh "$TOP/tests/fuzz/fuzz.sh" "$fn" "${FUZZ_SHORT_SECONDS:-3}" "$TOP/build-fuzz/short/$fn" 2>&1)
	rc=$?
	took=$(($(date +%s) - start))
	runs=$(echo "$out" | sed -n "s/^$fn: \([0-9]*\) runs in .*/\1/p")
	if [ $rc = 0 ] && [ -n "$runs" ]; then
		echo "ok - $name ($runs runs)" >"$R/out.$n"
		say ok "$name" "$took"
	else
		{ echo "not ok - $name"; echo "$out" | tail -45 | sed 's/^/    /'; } >"$R/out.$n"
		say fail "$name" "$took"
	fi
	show "$R/out.$n"
}

if [ "${1:-}" = --job ]; then
	n=$2
	. "$R/job.$n"
	"job_$kind"
	exit 0
fi

# the last ladder's times as the committed hints (sorted by name: a small diff)
if [ "${1:-}" = --save-times ]; then
	[ -s "$TOP/build/.test-times" ] || { echo "tests/run.sh: no build/.test-times (run the ladder first)" >&2; exit 1; }
	sort -t '	' -k2,2 "$TOP/build/.test-times" >"$TOP/tests/test-times.tsv"
	exit 0
fi

# --- the ladder ----------------------------------------------------------------
builds=""
pattern=""
part=all
left=0
# two jobs per CPU: most tests wait more than they compute (the null engine's
# delays, deadlines, a busy timeout, a guest), and every test must pass on a
# machine that busy anyway
jobs=${ST_JOBS:-$((2 * $(nproc 2>/dev/null || echo 1)))}
while [ $# -gt 0 ]; do
	case "$1" in
	-k) pattern="$2"; shift 2 ;;
	-j) jobs="$2"; shift 2 ;;
	--part) part="$2"; shift 2 ;;
	*) builds="$builds $1"; shift ;;
	esac
done
case $jobs in '' | *[!0-9]* | 0) echo "tests/run.sh: -j wants a count of 1 or more, not '$jobs'" >&2; exit 2 ;; esac
case $part in quick | slow | all) ;; *) echo "tests/run.sh: --part wants quick, slow or all, not '$part'" >&2; exit 2 ;; esac
[ -n "$builds" ] || builds="build build-san build-fuzz"

R=$(mktemp -d /tmp/stcluster-run.XXXXXX)
export R
trap 'rm -rf "$R"' EXIT
hints=$TOP/build/.test-times
n=0

# add KIND BUILD FILE FN NAME EXCL: one job, unless NAME does not match -k
add() {
	if [ -n "$pattern" ] && ! echo "$5" | grep -q "$pattern"; then return; fi
	if [ "$part" != all ]; then
		if grep -qxF "$5" "$TOP/tests/slow.txt"; then
			[ "$part" = slow ] || { left=$((left + 1)); return; }
		elif [ "$part" = slow ]; then
			return
		fi
	fi
	n=$((n + 1))
	printf "kind=%s b=%s file=%s fn=%s excl=%s name='%s'\n" "$1" "$2" "$3" "$4" "$6" "$5" >"$R/job.$n"
	secs=$(awk -F '\t' -v k="$5" '$2 == k { print $1; exit }' "$hints" "$TOP/tests/test-times.tsv" 2>/dev/null)
	printf '%s\t%s\n' "${secs:-10}" "$n" >>"$R/list.$6"
}

# one_at_a_time FILE: 1 when FILE's tests may not run beside each other
one_at_a_time() { grep -q '^# run.sh: one at a time' "$1" && echo 1 || echo 0; }

for b in $builds; do
	[ "$b" = build-fuzz ] && continue
	[ "$b" = build ] || san_wrapper "$b"
	if [ "$part" != slow ] && { [ -z "$pattern" ] || echo "unit" | grep -q "$pattern"; }; then
		n=$((n + 1))
		printf "kind=unit b=%s file= fn= excl=0 name='[%s] unit'\n" "$b" "$b" >"$R/job.$n"
		printf '1000\t%s\n' "$n" >>"$R/list.0" # first: a minute of other tests hides it
	fi
	for file in tests/mpi/t_*.sh; do
		x=$(one_at_a_time "$file")
		for fn in $(sed -n 's/^\(t_[a-z0-9_]*\)() *{.*/\1/p' "$file"); do
			add test "$b" "$file" "$fn" "[$b] $(basename "$file" .sh): $fn" "$x"
		done
		# functions once_*, on the normal build only (valgrind memcheck cannot
		# run the ASan+UBSan build, and the same binary twice would prove
		# nothing more)
		[ "$b" = build ] || continue
		for fn in $(sed -n 's/^\(once_[a-z0-9_]*\)() *{.*/\1/p' "$file"); do
			add test build "$file" "$fn" "[build] $(basename "$file" .sh): $fn" "$x"
		done
	done
done
if echo " $builds " | grep -q " build-fuzz "; then
	for src in tests/fuzz/fuzz_*.c; do
		t=$(basename "$src" .c)
		[ "$t" = fuzz_check ] && continue
		add fuzz build-fuzz "" "$t" "fuzz: $t" 0
	done
fi

# a name of tests/slow.txt that is no test (renamed, removed) would leave nothing to run
if [ "$part" = slow ] && [ -z "$pattern" ]; then
	grep -v '^#' "$TOP/tests/slow.txt" | while IFS= read -r t; do
		[ -n "$t" ] || continue
		grep -qF "name='$t'" "$R"/job.* 2>/dev/null && continue
		echo "not ok - tests/slow.txt: '$t' is no test of this ladder"
		printf 'fail\t%s\t0\n' "tests/slow.txt: $t" >>"$R/res.slow"
	done
fi

# longest first; the one-at-a-time lane beside the others
order() { [ -f "$R/list.$1" ] && sort -t '	' -k1,1nr -k2,2n "$R/list.$1" | cut -f2; }
order 1 >"$R/lane.1"
order 0 >"$R/lane.0"
(while read -r j; do sh "$TOP/tests/run.sh" --job "$j" </dev/null; done <"$R/lane.1") &
lane=$!
xargs -r -n 1 -P "$jobs" sh "$TOP/tests/run.sh" --job <"$R/lane.0"
wait $lane

# after_once of each file that has one (under the file's lock, as its tests)
for file in tests/mpi/t_*.sh; do
	grep -q '^after_once() *{' "$file" || continue
	lock=""
	[ "$(one_at_a_time "$file")" = 1 ] && lock="flock -o $STLAB_LOCK"
	if ! out=$($lock sh -c 'set -u; cd "$TOP" && . "$TOP/tests/lib.sh" && . "$TOP/$0" && after_once' "$file" 2>&1); then
		name="$(basename "$file" .sh): after_once"
		echo "not ok - $name"
		echo "$out" | tail -20 | sed 's/^/    /'
		printf 'fail\t%s\t0\n' "$name" >>"$R/res.after"
	fi
done

cat "$R"/res.* 2>/dev/null >"$R/all"
passed=$(grep -c '^ok	' "$R/all")
failed=$(grep -c '^fail	' "$R/all")
skipped=$(grep -c '^skip	' "$R/all")
# every job left its result: one that did not (killed, a runner bug) failed
for j in $(seq 1 $n); do
	[ -s "$R/res.$j" ] && continue
	. "$R/job.$j"
	echo "not ok - $name: left no result"
	printf 'fail\t%s\t0\n' "$name: left no result" >>"$R/all"
	failed=$((failed + 1))
done
# the times of this run, for the next one's order (tests not run keep theirs)
if [ -d "$TOP/build" ]; then
	{ awk -F '\t' '$3 > 0 { print $3 "\t" $2 }' "$R/all"; cat "$hints" 2>/dev/null; } |
		awk -F '\t' '!seen[$2]++' >"$hints.tmp" && mv "$hints.tmp" "$hints"
fi

[ "$failed" = 0 ] || { echo "failed:"; grep '^fail	' "$R/all" | cut -f2 | sed 's/^/  /'; }
[ "$left" = 0 ] || echo "$left tests of tests/slow.txt left to make check-slow (sh tests/run.sh --part slow)"
if [ "$skipped" -gt 0 ]; then
	echo "$passed passed, $failed failed, $skipped skipped"
else
	echo "$passed passed, $failed failed"
fi
[ "$failed" = 0 ]
