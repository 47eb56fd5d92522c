#!/bin/sh
# tests/fuzz/fuzz.sh TARGET SECONDS CORPUS - run one libFuzzer target of
# build-fuzz/ (make fuzz-build):
#   1. replay every input kept in tests/fuzz/regress/TARGET/ once (each was
#      a crash, a leak, a sanitizer report or a broken invariant once);
#   2. fuzz for SECONDS on the working corpus CORPUS, created and seeded with
#      tests/fuzz/corpus/TARGET/ (files CORPUS lacks), so the tree's seeds
#      are never written.
# One process, no -jobs/-workers: the machine is shared. A failing input is
# kept in build-fuzz/artifacts/TARGET/. The last line sums the run up:
#   TARGET: N runs in S s, E exec/s, cov C, ft F, corpus K inputs (+A new)
# Exit status 0, or 1 with the fuzzer's report.
set -u
cd "$(dirname "$0")/../.."
[ $# = 3 ] || { echo "usage: $0 TARGET SECONDS CORPUS" >&2; exit 2; }
t=$1 secs=$2 corpus=$3
bin=build-fuzz/$t
[ -x "$bin" ] || { echo "$t: $bin missing (make fuzz-build)"; exit 1; }
art=build-fuzz/artifacts/$t
log=build-fuzz/$t.log
mkdir -p "$corpus" "$art" || exit 1

# a mountinfo or mountstats text is longer than an option or a URL
case $t in
fuzz_mount) max_len=16384 ;;
fuzz_units) max_len=256 ;;
*) max_len=4096 ;;
esac
# the run-time settings of tests/run.sh slow every malloc down: not here
export ASAN_OPTIONS="detect_leaks=1:abort_on_error=0"
export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1"
opts="-timeout=10 -rss_limit_mb=2048 -max_len=$max_len -print_final_stats=1 -artifact_prefix=$art/"

report() { # report WHAT
	echo "$t: $1"
	# what follows the last progress line, without the frames of libFuzzer
	# and libc
	awk '/^(#[0-9]+[ \t]|INFO:|Running:)/ { n = NR } { line[NR] = $0 }
		END { for (i = n + 1; i <= NR; i++) print line[i] }' "$log" |
		grep -v -E 'fuzzer::|libc\.so|libc_start|_start |__sanitizer_print_stack|pthread_kill|raise\.c|abort\.c|^(MS|Base64):|^0x|^stat::|rudimentary|Combine libFuzzer' |
		head -40 | sed 's/^/    /'
	echo "    (whole log: $log)"
}

if [ -d "tests/fuzz/regress/$t" ] && [ -n "$(ls -A "tests/fuzz/regress/$t")" ]; then
	kept=$(ls -A "tests/fuzz/regress/$t" | wc -l)
	if ! "$bin" $opts "tests/fuzz/regress/$t"/* >"$log" 2>&1; then
		report "a kept input of tests/fuzz/regress/$t fails again"
		exit 1
	fi
	echo "$t: $kept kept inputs of tests/fuzz/regress/$t pass"
fi

for f in "tests/fuzz/corpus/$t"/*; do
	[ -f "$f" ] && [ ! -e "$corpus/$(basename "$f")" ] && cp "$f" "$corpus/"
done
before=$(ls -A "$corpus" | wc -l)
start=$(date +%s)
"$bin" $opts -max_total_time="$secs" "$corpus" >"$log" 2>&1
rc=$?
took=$(( $(date +%s) - start ))
if [ $rc != 0 ]; then
	report "failed after ${took}s (exit $rc; input kept in $art/)"
	exit 1
fi
runs=$(sed -n 's/^Done \([0-9]*\) runs in.*/\1/p' "$log" | tail -1)
eps=$(sed -n 's/^stat::average_exec_per_sec: *\([0-9]*\).*/\1/p' "$log" | tail -1)
last=$(grep -E '^#[0-9]+' "$log" | grep 'cov:' | tail -1)
cov=$(echo "$last" | sed -n 's/.*cov: \([0-9]*\).*/\1/p')
ft=$(echo "$last" | sed -n 's/.* ft: \([0-9]*\).*/\1/p')
after=$(ls -A "$corpus" | wc -l)
echo "$t: ${runs:-?} runs in ${took} s, ${eps:-?} exec/s, cov ${cov:-?}, ft ${ft:-?}, corpus $after inputs (+$((after - before)) new)"
