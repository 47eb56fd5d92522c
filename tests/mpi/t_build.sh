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
