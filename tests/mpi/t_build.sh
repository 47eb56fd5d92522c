# What the build promises: --version follows the commit, the optional
# libnfs engine is optional, ranks of other wire structs are refused, and
# the layout's dependency rule holds.
# the build without libnfs (make nolibnfs, which make check runs): as on a
# machine without libnfs-dev, it builds, runs, and says what it lacks
once_built_without_libnfs() {
	B="$TOP/build-nolibnfs"
	if [ ! -x "$B/stcluster" ]; then
		echo "no $B/stcluster (make nolibnfs)"
		return 77
	fi
	(cd "$TOP" && "$B/unit") >unit.out 2>&1 || { tail -20 unit.out; fail "$B/unit"; return 1; }
	mkdir target
	"$B/stcluster" --engine libnfs --target nfs://127.0.0.1/export --db "$T/s.db" >out 2>err
	expect_eq $? 2 "--engine libnfs: exit status" || return 1
	expect_eq "$(wc -l <err)" 1 "--engine libnfs: lines on stderr" || return 1
	grep -q "^stcluster: --engine: 'libnfs' is not built into this stcluster (it was built without libnfs" err ||
		fail "--engine libnfs: $(cat err)" || return 1
	[ ! -e "$T/s.db" ] || fail "a refused run created the store" || return 1
	$MPIRUN -np 2 "$B/stcluster" --target "$T/target" --block 4k --size 16k --db "$T/s.db" --quiet ||
		fail "a posix run on the build without libnfs" || return 1
	expect_eq "$(q s.db "SELECT status FROM combo")" ok "its combination"
}

# --version is git describe of the tree the binary was built from: a new
# commit, or an uncommitted change (-dirty), rebuilds the two objects that
# include the generated version header, and nothing else. In a clone at
# the tree under test: its tracked files as they are now, committed there
# as they would be (git stash create: no ref or file of $TOP changes).
once_version_follows_the_commit() {
	command -v git >/dev/null && git -C "$TOP" rev-parse HEAD >/dev/null 2>&1 ||
		{ echo "no git repository at $TOP"; return 77; }
	rev=$(git -C "$TOP" stash create)
	git clone -q --shared "$TOP" repo && cd repo && git checkout -q "${rev:-HEAD}" || return 1
	make -j2 stcluster >build.log 2>&1 || { tail build.log; fail "make in the clone"; return 1; }
	expect_eq "$(./stcluster --version)" "stcluster $(git describe --always)" "--version of a clean tree" ||
		return 1
	echo "an uncommitted change" >>README.md
	make -j2 stcluster >build.log 2>&1 || return 1
	expect_eq "$(./stcluster --version)" "stcluster $(git describe --always)-dirty" "--version, dirty" ||
		return 1
	expect_eq "$(grep -c '^  CC' build.log)" 2 "objects rebuilt for a new version" || { cat build.log; return 1; }
	grep -q '^  CC      coordinator/main.c' build.log || fail "main.c not rebuilt" || return 1
	git -c user.name=t -c user.email=t@example.org commit -qam "a new commit" || return 1
	make -j2 stcluster >build.log 2>&1 || return 1
	expect_eq "$(./stcluster --version)" "stcluster $(git describe --always)" "--version after a commit" ||
		return 1
	make -j2 stcluster >build.log 2>&1 || return 1
	expect_eq "$(grep -c '^  CC' build.log)" 0 "objects rebuilt when nothing changed"
}

# A job whose ranks were built with other wire structs (make wire-other:
# another ST_WIRE_VERSION) ends before anything crosses MPI or is created,
# naming the rank; a build of the same wire structs without libnfs joins a
# job of the full build.
once_mixed_install_is_refused() {
	W="$TOP/build-wire/stcluster" N="$TOP/build-nolibnfs/stcluster"
	[ -x "$W" ] || { echo "no $W (make wire-other)"; return 77; }
	[ -x "$N" ] || { echo "no $N (make nolibnfs)"; return 77; }
	mkdir target
	args="--target $T/target --block 4k --size 16k --db $T/s.db --quiet"
	if $MPIRUN -np 1 $ST $args : -np 1 "$W" $args >out 2>err; then
		fail "a job with another wire version ran"
		return 1
	fi
	grep -q "rank 1 runs another stcluster (wire version 999, " err ||
		fail "the refusal does not name rank 1: $(head -3 err)" || return 1
	[ ! -e "$T/s.db" ] || fail "a refused job created the store" || return 1
	[ -z "$(ls -A target)" ] || fail "a refused job created $(ls -A target)" || return 1
	$MPIRUN -np 1 $ST $args : -np 1 "$N" $args || fail "the full build and the one without libnfs" ||
		return 1
	expect_eq "$(q s.db "SELECT COUNT(*) FROM rank_result WHERE bytes = 16384")" 4 \
		"both ranks wrote and read"
}

# The layout's dependency rule (tests/layout.sh, over the #include lines):
# it holds for the tree, it catches a header of another room included
# against it, and README's Layout states the same rule.
once_dependency_rule_holds() {
	sh "$TOP/tests/layout.sh" "$TOP" || fail "the tree breaks the layout's dependency rule" || return 1
	mkdir tree
	cp -r "$TOP/common" "$TOP/worker" "$TOP/coordinator" tree/ || return 1
	echo '#include "../coordinator/store/store.h"' >>tree/common/util.c
	echo '#include <mpi.h>' >>tree/coordinator/store/runs.c
	echo '#include "../job/state.h"' >>tree/coordinator/report/report.c
	echo '#include <sqlite3.h>' >>tree/worker/worker.c
	sh "$TOP/tests/layout.sh" tree >out && fail "four breaks of the rule went unseen" && return 1
	for want in "common/util.c: includes coordinator/store/store.h: common/ must not depend on store/" \
		"coordinator/store/runs.c: includes <mpi.h>, which store/ must not" \
		"coordinator/report/report.c: includes coordinator/job/state.h: report/ must not depend on job/" \
		"worker/worker.c: includes <sqlite3.h>, which worker/ must not"; do
		grep -qxF "$want" out || { cat out; fail "not reported: $want"; return 1; }
	done
	sh "$TOP/tests/layout.sh" --rule | while read -r line; do
		sed 's/^ *//' "$TOP/README.md" | grep -qxF "$line" || { fail "README.md's Layout lacks: $line"; exit 1; }
	done
}

# The size rule (tests/size.sh): no file of the product over 1,000 lines, no
# function over 100, none of the phase script (coordinator/job/) over 80. It
# holds for the tree and catches each kind of breach in a copy.
once_size_rule_holds() {
	sh "$TOP/tests/size.sh" "$TOP" >out || { cat out; fail "the tree breaks the size rule"; return 1; }
	mkdir tree
	cp -r "$TOP/common" "$TOP/worker" "$TOP/coordinator" tree/ || return 1
	body() { printf '%s\n{\n' "$1"; i=0; while [ $i -lt "$2" ]; do echo "	(void)0;"; i=$((i + 1)); done; echo "}"; }
	body "static void long_worker(void)" 99 >>tree/worker/worker.c
	body "static void long_step(void)" 79 >>tree/coordinator/job/steps.c
	i=0; while [ $i -lt 1001 ]; do echo; i=$((i + 1)); done >>tree/common/util.c
	sh "$TOP/tests/size.sh" tree >out && fail "three breaches of the size rule went unseen" && return 1
	for want in "worker/worker.c:.*: 101 lines (at most 100): static void long_worker(void)" \
		"coordinator/job/steps.c:.*: 81 lines (at most 80): static void long_step(void)" \
		"common/util.c: [0-9]* lines (at most 1,000)"; do
		grep -q "^$want\$" out || { cat out; fail "not reported: $want"; return 1; }
	done
}

# README's Layout names every source file of the tree, in its folder's
# entry (its stem: worker/engine_posix.c and .h are "engine_posix").
once_readme_layout_names_every_file() {
	# the Layout's tree: the code block after the rule, one entry per folder
	sed -n '/^## Layout/,/^`make` builds/p' "$TOP/README.md" | sed -n '/^```$/,/^```$/p' >layout.txt
	[ -s layout.txt ] || fail "no tree in README's Layout" || return 1
	awk '/^[a-z]/ { split($1, p, "/"); top = p[1]; room = "" } /^  [a-z]+\// { split($1, p, "/"); room = p[1] }
		/^ *[a-z]/ { print (room == "" ? top : "coordinator/" room) "\t" $0 }' layout.txt >entries.txt
	missing=""
	for f in $(cd "$TOP" && find common worker coordinator -name '*.[ch]' | sort); do
		dir=$(dirname "$f") stem=$(basename "$f" | sed 's/\.[ch]$//')
		grep "^$dir	" entries.txt | cut -f2 | grep -qw -- "$stem" || missing="$missing $f"
	done
	[ -z "$missing" ] || fail "README's Layout does not name:$missing"
}

# README's options table says what the code does: every option it names is
# one --help lists, [sweep] where --help says [sweep] and only there, the
# words of a choice option are its words, the engines are the registry's.
once_readme_options_table_matches_help() {
	$ST --help >help.txt || return 1
	sed -n '/^| option | values | meaning |$/,/^$/p' "$TOP/README.md" | tail -n +3 >table.txt
	[ "$(wc -l <table.txt)" -ge 20 ] || fail "no options table in README" || return 1
	named=0
	while IFS='|' read -r _ opts vals _; do
		set -- $(echo "$opts" | grep -o -- '--[a-z][a-z-]*')
		# the values column: a group per option, ';' between them
		groups=$(echo "$vals" | sed 's/\[sweep\]//' | tr -d ' `')
		[ "$(echo "$groups" | tr -cd ';' | wc -c)" = $(($# - 1)) ] || groups=""
		k=0
		for o in "$@"; do
			named=$((named + 1))
			k=$((k + 1))
			line=$(grep -- "^  $o " help.txt) || { fail "README names $o, --help has no such option"; return 1; }
			case "$vals" in *"[sweep]"*) want=yes ;; *) want=no ;; esac
			case "$line" in *"[sweep]"*) got=yes ;; *) got=no ;; esac
			[ $want = $got ] || { fail "README: $o [sweep] $want, --help: $got"; return 1; }
			# a choice option's words (on|off), where the row lists them (on,off)
			arg=$(echo "$line" | awk '{ print $2 }')
			words=$(echo "$groups" | cut -d';' -f$k)
			case "$arg:$words" in *"|"*:*,*) ;; *) continue ;; esac
			expect_eq "$(echo "$words" | tr ',' '\n' | sort | tr '\n' ' ')" \
				"$(echo "$arg" | tr '|' '\n' | sort | tr '\n' ' ')" "README's words of $o" || return 1
		done
	done <table.txt
	[ $named -ge 50 ] || fail "README's table names only $named options" || return 1
	engines=$(grep '^| `--engine`' table.txt | cut -d'|' -f3 | tr -d ' ' | tr ',' '\n' | sort | tr '\n' ' ')
	expect_eq "$engines" "$(sed -n '/^Engines/,$p' help.txt | sed -n 's/^  \([a-z][a-z0-9]*\) .*/\1/p' |
		sort | tr '\n' ' ')" "README's engines" || return 1
}

# Every wait on a limit is on the monotonic clock: condition variables are
# made by st_cond_init (pthread_condattr_setclock CLOCK_MONOTONIC) and
# waited on by st_cond_wait_until, both in common/util.c; no other file
# makes one, waits with a timeout or reads CLOCK_REALTIME (a wait on it
# for a monotonic limit is lengthened by a step of the wall clock). The
# check catches a planted break of each kind.
realtime_waits() {
	grep -rn 'pthread_cond_init\|pthread_cond_timedwait\|pthread_condattr\|CLOCK_REALTIME\|sem_timedwait\|pthread_mutex_timedlock' \
		"$1/common" "$1/worker" "$1/coordinator" --include='*.c' --include='*.h' |
		grep -v "^$1/common/util\.[ch]:" | sed "s#^$1/##"
}
once_waits_are_on_the_monotonic_clock() {
	realtime_waits "$TOP" >found
	[ ! -s found ] || fail "made or waited on outside common/util.c: $(cat found)" || return 1
	grep -q 'pthread_condattr_setclock(&at, CLOCK_MONOTONIC)' "$TOP/common/util.c" ||
		fail "st_cond_init sets no monotonic clock" || return 1
	mkdir tree
	cp -r "$TOP/common" "$TOP/worker" "$TOP/coordinator" tree/ || return 1
	echo 'static void f(pthread_cond_t *c) { pthread_cond_init(c, NULL); }' >>tree/worker/worker.c
	echo 'static int g(void) { return CLOCK_REALTIME; }' >>tree/coordinator/job/steps.c
	realtime_waits tree >found
	expect_eq "$(cut -d: -f1 found | sort | tr '\n' ' ')" "coordinator/job/steps.c worker/worker.c " "planted breaks found"
}

# The store and the read-only subcommands with common/ link, and run, with
# SQLite and libcrypto alone: no MPI, hwloc, libuuid or libnfs.
once_store_and_reports_link_without_mpi() {
	B="$TOP/build"
	cat >runs.c <<'C'
#include "coordinator/report/subcmd.h"
int main(int argc, char **argv)
{
	struct st_subargs a = { .cmd = "runs", .db = argv[argc - 1], .format = ST_FMT_CSV };
	return st_cmd_runs(&a);
}
C
	objs=$(cd "$TOP" && ls common/*.c coordinator/store/*.c coordinator/report/*.c | sed "s#^#$B/#; s#\.c\$#.o#")
	cc -std=c11 -D_GNU_SOURCE -I"$TOP" -o runs runs.c $objs "$B/sql_embed.o" -lsqlite3 -lcrypto -lm ||
		fail "common/, store/ and report/ do not link without MPI" || return 1
	ldd ./runs | grep -q 'libmpi\|libhwloc\|libnfs\|libuuid' && fail "linked: $(ldd ./runs)" && return 1
	$ST --engine null --block 4k --size 8k --db "$T/s.db" --quiet || return 1
	./runs "$T/s.db" >runs.csv || fail "runs, without MPI" || return 1
	expect_eq "$(grep -c ",1/1,1,0,0,0,0,complete," runs.csv)" 1 "the run, read without MPI"
}

# The labs' names, subnets, directory and lock are tests/lab/names.sh's alone
# (issue 18 item 7): no other file of tests/ spells one, so each comes from
# the environment and two ladders can run side by side. Recorded inputs
# (fixtures, fuzz corpora) and the READMEs, which cite the defaults, aside.
once_lab_names_live_in_names_sh_alone() {
	pat='\bst[vwt]\b|10\.77\.(210|211|201)\b|stcluster-(lab\.lock|vmlab)'
	# the pattern finds the defaults where names.sh sets them (else it finds nothing)
	for v in STLAB_VM_PREFIX STLAB_VM2_PREFIX STLAB_NS_PREFIX STLAB_VM_NET STLAB_VM2_NET STLAB_NS_NET STLAB_VM_DIR STLAB_LOCK; do
		grep "^$v=" "$TOP/tests/lab/names.sh" | grep -qE "$pat" || fail "the pattern misses $v's default in names.sh" || return 1
	done
	(cd "$TOP" && git ls-files tests Makefile) |
		grep -v '^tests/lab/names\.sh$\|\.md$\|^tests/fixtures/\|^tests/fuzz/corpus/\|^tests/fuzz/regress/' |
		(cd "$TOP" && xargs grep -nE "$pat") >spelt
	[ ! -s spelt ] || { cat spelt; fail "$(wc -l <spelt) lines spell a lab name outside tests/lab/names.sh"; return 1; }
	# a bad value is one line naming the variable, status 2, before any lab
	STLAB_VM_PREFIX=Bad sh -c '. "$TOP/tests/lab/names.sh" && stlab_names_check' 2>err
	expect_eq "$?" 2 "STLAB_VM_PREFIX=Bad: status" || return 1
	expect_eq "$(cat err)" "STLAB_VM_PREFIX: 'Bad' is not a lab prefix (a lower-case letter, then up to 19 letters or digits)" "its line" || return 1
	STLAB_VM2_NET=10.77.300 sh -c '. "$TOP/tests/lab/names.sh" && stlab_names_check' 2>err
	expect_eq "$?" 2 "STLAB_VM2_NET=10.77.300: status" || return 1
	expect_eq "$(cat err)" "STLAB_VM2_NET: '10.77.300' is not a subnet (three octets, e.g. 10.78.5)" "its line" || return 1
	STLAB_LOCK=rel sh "$TOP/tests/run.sh" build -k nothing-matches >out 2>err
	expect_eq "$?" 2 "run.sh with STLAB_LOCK=rel: status" || return 1
	expect_eq "$(cat err)" "STLAB_LOCK: 'rel' is not an absolute path" "its line" || return 1
}

# The tests' MPI environment (tests/mpienv.sh) keeps hwloc's gl and opencl
# components out of every rank: they probe X displays and look names up,
# which stalls a job's start for the resolver's timeouts where no resolver
# answers (issue 24). hwloc names the components it enables when asked.
once_mpi_env_leaves_hwloc_display_probes_out() {
	HWLOC_COMPONENTS_VERBOSE=1 $MPIRUN -np 2 $ST --engine null --block 4k --size 4k --baseline off \
		--db "$T/h.db" --quiet >out 2>&1 || { tail -5 out; fail "the job failed"; return 1; }
	grep "Final list of enabled discovery components" out >final || { tail -5 out; fail "hwloc listed no components"; return 1; }
	grep -q 'linux' final || fail "the list lacks linux: $(head -1 final)" || return 1
	! grep -q 'gl(\|opencl(' final || fail "gl or opencl enabled: $(head -1 final)" || return 1
}
