#!/bin/sh
# tests/run.sh - the test ladder `make check` runs: unit tests, then MPI
# jobs on this host, first on the normal build and then on the ASan+UBSan
# build (functions t_*), then the tests that run once, on the normal build
# (functions once_*: valgrind), then a short run of each fuzz target
# (build-fuzz: make fuzz-build). Prints one line per test and ends with
# "N passed, N failed".
#
#   sh tests/run.sh [BUILD ...] [-k PATTERN]   (BUILD: build, build-san, build-fuzz)
set -u
cd "$(dirname "$0")/.."
TOP=$(pwd)
export TOP
builds=""
pattern=""
while [ $# -gt 0 ]; do
	case "$1" in
	-k) pattern="$2"; shift 2 ;;
	*) builds="$builds $1"; shift ;;
	esac
done
[ -n "$builds" ] || builds="build build-san build-fuzz"
# build-fuzz is no build of stcluster: its step follows the loop
fuzz=0
list=""
for b in $builds; do
	if [ "$b" = build-fuzz ]; then fuzz=1; else list="$list $b"; fi
done
builds=$list

passed=0
failed=0
skipped=0
failures=""

# sanitizer run-time settings (used by build-san binaries only)
export ASAN_OPTIONS="fast_unwind_on_malloc=0:detect_leaks=1:abort_on_error=0"
export LSAN_OPTIONS="suppressions=$TOP/tests/lsan.supp:print_suppressions=0"
export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1"

record() { # record STATUS NAME
	case "$1" in
	ok) passed=$((passed + 1)); echo "ok - $2" ;;
	skip) skipped=$((skipped + 1)); echo "skip - $2" ;;
	*) failed=$((failed + 1)); failures="$failures
  $2"; echo "not ok - $2" ;;
	esac
}

# run_test FILE FUNCTION NAME: one shell test, in a subshell with a fresh
# scratch directory $T, unless NAME does not match -k
run_test() {
	file=$1 fn=$2 name=$3
	if [ -n "$pattern" ] && ! echo "$name" | grep -q "$pattern"; then return; fi
	T=$(mktemp -d /tmp/stcluster-test.XXXXXX)
	export T
	start=$(date +%s)
	( cd "$T" && . "$TOP/tests/lib.sh" && . "$TOP/$file" && "$fn" ) >"$T.log" 2>&1
	rc=$?
	took=$(( $(date +%s) - start ))
	if [ $rc = 0 ]; then
		record ok "$name (${took}s)"
	elif [ $rc = 77 ]; then
		if [ "${CI:-}" = true ]; then
			record fail "$name: skipped, and CI allows no skip"
			sed 's/^/    /' "$T.log" | tail -20
		else
			record skip "$name: $(tail -1 "$T.log")"
		fi
	else
		record fail "$name (${took}s)"
		sed 's/^/    /' "$T.log" | tail -40
	fi
	# the test's scratch space; umount anything it left mounted first
	grep " $T/" /proc/self/mounts | awk '{print $2}' | sort -r | while read -r m; do umount "$m"; done
	rm -rf "$T" "$T.log"
}

for b in $builds; do
	if [ "$b" = build ]; then ST="$TOP/stcluster"; else ST="$TOP/$b/stcluster"; fi
	[ -x "$ST" ] || { record fail "[$b] binary $ST missing (run make all sanitize)"; continue; }
	export ST

	# unit tests: their own runner prints ok/not ok lines
	if [ -z "$pattern" ] || echo "unit" | grep -q "$pattern"; then
		out=$("$TOP/$b/unit" 2>&1)
		echo "$out" | grep -E '^(ok|not ok) ' | while read -r line; do echo "$line" | sed "s/^\(ok\|not ok\) - /\1 - [$b] unit: /"; done
		p=$(echo "$out" | sed -n 's/^\([0-9]*\) passed, \([0-9]*\) failed$/\1/p')
		f=$(echo "$out" | sed -n 's/^\([0-9]*\) passed, \([0-9]*\) failed$/\2/p')
		if [ -z "$p" ]; then
			record fail "[$b] unit runner crashed"
			echo "$out" | tail -30
		else
			passed=$((passed + p))
			failed=$((failed + f))
			[ "$f" = 0 ] || { failures="$failures
  [$b] unit ($f failed)"; echo "$out" | grep -v '^ok ' | tail -40; }
		fi
	fi

	for file in tests/mpi/t_*.sh; do
		for fn in $(sed -n 's/^\(t_[a-z0-9_]*\)() *{.*/\1/p' "$file"); do
			run_test "$file" "$fn" "[$b] $(basename "$file" .sh): $fn"
		done
	done
done

# Tests run once, on the normal build only: functions named once_* (valgrind
# memcheck cannot run the ASan+UBSan build, and the same binary twice would
# prove nothing more)
if echo " $builds " | grep -q " build " && [ -x "$TOP/stcluster" ]; then
	ST="$TOP/stcluster"
	export ST
	for file in tests/mpi/t_*.sh; do
		for fn in $(sed -n 's/^\(once_[a-z0-9_]*\)() *{.*/\1/p' "$file"); do
			run_test "$file" "$fn" "[build] $(basename "$file" .sh): $fn"
		done
	done
fi

# the fuzz targets: each replays the inputs kept in tests/fuzz/regress/,
# then fuzzes FUZZ_SHORT_SECONDS (3) from its seed corpus, in a working
# copy made afresh (build-fuzz/short/TARGET)
if [ "$fuzz" = 1 ]; then
	cc=${FUZZ_CC:-clang}
	for src in tests/fuzz/fuzz_*.c; do
		t=$(basename "$src" .c)
		[ "$t" = fuzz_check ] && continue
		name="fuzz: $t"
		if [ -n "$pattern" ] && ! echo "$name" | grep -q "$pattern"; then continue; fi
		if ! command -v "$cc" >/dev/null 2>&1; then
			if [ "${CI:-}" = true ]; then
				record fail "$name: no $cc, and CI allows no skip"
			else
				record skip "$name: no $cc (tests/deps.sh install)"
			fi
			continue
		fi
		rm -rf "$TOP/build-fuzz/short/$t"
		out=$(sh "$TOP/tests/fuzz/fuzz.sh" "$t" "${FUZZ_SHORT_SECONDS:-3}" "$TOP/build-fuzz/short/$t" 2>&1)
		rc=$?
		runs=$(echo "$out" | sed -n "s/^$t: \([0-9]*\) runs in .*/\1/p")
		if [ $rc = 0 ] && [ -n "$runs" ]; then
			record ok "$name ($runs runs)"
		else
			record fail "$name"
			echo "$out" | tail -45 | sed 's/^/    /'
		fi
	done
fi

[ -z "$failures" ] || printf 'failed:%s\n' "$failures"
if [ "$skipped" -gt 0 ]; then
	echo "$passed passed, $failed failed, $skipped skipped"
else
	echo "$passed passed, $failed failed"
fi
[ "$failed" = 0 ]
