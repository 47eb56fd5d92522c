# Bad input: one line naming the option and the value, exit 2, before any
# I/O; nothing created, an existing store byte for byte unchanged.

# setup: a real store from a real run, a target, files that are not stores
bad_setup() {
	mkdir -p "$T/target" "$T/ro"
	$ST --engine null --block 4k --size 16k --db "$T/s.db" --quiet >/dev/null || return 1
	[ -f "$T/s.db" ] || return 1
	echo "my notes" >"$T/notes.txt"
	sqlite3 "$T/newer.db" "CREATE TABLE t(a); PRAGMA user_version = 99;"
	printf 'block = 4k\nblok = 8k\n' >"$T/typo.conf"
	printf 'block = 4k\n# a comment\nblock = 8k\n' >"$T/twice.conf"
	printf 'size = 16k\nengine null\n' >"$T/noeq.conf"
	printf 'API_KEY=s3cr3t\n' >"$T/secret.conf"
	printf 'quiet = maybe\n' >"$T/flag.conf"
	printf 'size = 4k, , 8k\n' >"$T/list.conf"
	printf 'base 1ms\nfactor rsize=1m 0\n' >"$T/bad-surface.txt"
	printf 'base 1ms\n' >"$T/surface.txt"
	mount -t tmpfs -o ro,size=1m tmpfs "$T/ro" || return 77
}

# bad_case EXPECTED-TEXT ARGS...: run, then check exit, message, no change
bad_case() {
	want="$1"
	shift
	# the scratch directory as bad_setup left it: every case must leave it so
	[ -n "${bad_before:-}" ] || bad_before=$(tree_sum "$T")
	before=$bad_before
	# refusals end before the work starts: under the sanitizers, fast stacks
	# and no leak scan make each of these ~4x quicker (leaks are checked by
	# every other test). And before MPI starts (issue 19): with a component
	# that does not exist, MPI_Init would fail in many lines of its own
	ASAN_OPTIONS="fast_unwind_on_malloc=1:detect_leaks=0" OMPI_MCA_pml=${bad_pml:-st-none} \
		$ST "$@" >"$T.out" 2>"$T.err"
	rc=$?
	after=$(tree_sum "$T")
	lines=$(grep -c . "$T.err")
	if [ $rc != 2 ] || [ "$lines" != 1 ] || ! grep -qF -- "$want" "$T.err" || [ "$before" != "$after" ]; then
		echo "    case: $*" >&2
		echo "    exit $rc, $lines line(s) on stderr, want '$want':" >&2
		sed 's/^/      /' "$T.err" >&2
		[ "$before" = "$after" ] || echo "    the scratch directory changed" >&2
		bad_failed=$((bad_failed + 1))
	fi
	rm -f "$T.out" "$T.err"
	bad_cases=$((bad_cases + 1))
}

t_bad_run_options() {
	bad_setup || return $?
	bad_failed=0
	bad_cases=0
	D="--db $T/s.db"
	TG="--target $T/target"
	bad_case "unknown option '--blok'" $TG $D --blok 4k
	bad_case "--block: invalid size '12q'" $TG $D --block 12q
	bad_case "--block: invalid size '-1m'" $TG $D --block -1m
	bad_case "--block: '0' is out of range" $TG $D --block 0
	bad_case "--size: invalid size '99999999999999999999999' (too large)" $TG $D --size 99999999999999999999999
	bad_case "--block: invalid size '8388608t' (too large)" $TG $D --block 8388608t
	bad_case "--block: empty element in list '4k,,1m'" $TG $D --block 4k,,1m
	bad_case "--block: empty element" $TG $D --block 4k,
	bad_case "--block: value '4k' is listed twice" $TG $D --block 4k,4k
	bad_case "--threads: '0' is out of range" $TG $D --threads 0
	bad_case "--threads: '100000' is out of range" $TG $D --threads 100000
	bad_case "--threads: invalid number 'two'" $TG $D --threads two
	bad_case "--target: missing" $D --block 4k
	bad_case "--target: '$T/nonexistent' does not exist" --target "$T/nonexistent" $D
	bad_case "--target: '$T/notes.txt' is not a directory" --target "$T/notes.txt" $D
	bad_case "--target: '/' is the root directory" --target / $D
	bad_case "--target: '$T/ro' is not writable" --target "$T/ro" $D
	bad_case "--db: directory '$T/missing' does not exist" $TG --db "$T/missing/s.db"
	bad_case "--db: directory '$T/ro' is not writable" $TG --db "$T/ro/s.db"
	bad_case "--db: '$T/notes.txt' is not a SQLite database" $TG --db "$T/notes.txt"
	bad_case "--db: '$T/target' is not a regular file" $TG --db "$T/target"
	bad_case "schema version 99" $TG --db "$T/newer.db"
	bad_case "--engine: unknown value 'ceph'" $TG $D --engine ceph
	bad_case "--phases: unknown value 'erase'" $TG $D --phases write,erase
	bad_case "--direct: unknown value 'maybe' (one of: off, on)" $TG $D --direct maybe
	bad_case "--bind: unknown value 'socket'" $TG $D --bind socket
	bad_case "--data: invalid pattern 'ones'" $TG $D --data ones
	bad_case "--iterations: '0' is out of range" $TG $D --iterations 0
	bad_case "--deadline: invalid duration '5x'" $TG $D --deadline 5x
	bad_case "--null-delay: only for --engine null" $TG $D --null-delay 1ms
	bad_case "--null-error: unknown errno 'EWHAT'" $D --engine null --null-error EWHAT
	bad_case "--null-surface: $T/bad-surface.txt:2: factor: a number above 0, not '0'" $D --engine null --null-surface "$T/bad-surface.txt"
	bad_case "--null-surface: cannot read '$T/none.txt'" $D --engine null --null-surface "$T/none.txt"
	bad_case "--null-surface: '$T/surface.txt' gives the delay; --null-delay cannot be given with it" $D --engine null --null-surface "$T/surface.txt" --null-delay 1ms
	bad_case "--null-surface: only for --engine null" $TG $D --null-surface "$T/surface.txt"
	bad_case "--plan: cannot read '$T/missing.conf'" --plan "$T/missing.conf"
	bad_case "$T/typo.conf:2: unknown key 'blok'" $TG $D --plan "$T/typo.conf"
	bad_case "unexpected argument 'foo'" $TG $D foo
	bad_case "--label: missing value" $TG $D --label
	bad_case "--dry-run takes no value" $TG $D --dry-run=yes
	# given twice: which one was meant?
	bad_case "--target: given twice (give it once)" $TG $TG $D
	bad_case "--block: given twice (give it once, with a list: a,b)" $TG $D --block 4k --block 8k
	bad_case "--quiet: given twice" $TG $D --quiet --quiet
	bad_case "--db: given twice" $TG $D $D
	# plan files
	bad_case "$T/twice.conf:3: key 'block' is given twice (first on line 1)" $TG $D --plan "$T/twice.conf"
	bad_case "$T/noeq.conf:2: expected 'key = value', got 'engine null'" $TG $D --plan "$T/noeq.conf"
	# a file that is not a plan: its line number, never its text
	bad_case "$T/notes.txt:1: expected 'key = value' (not a plan file?)" $TG $D --plan "$T/notes.txt"
	bad_case "$T/secret.conf:1: unknown key (not a plan file?)" $TG $D --plan "$T/secret.conf"
	bad_case "$T/flag.conf:1: --quiet: expected on or off, got 'maybe'" $TG $D --plan "$T/flag.conf"
	bad_case "$T/list.conf:1: --size: empty element in list '4k,,8k'" $TG $D --plan "$T/list.conf"
	bad_case "--plan: '$T/target' is not a regular file" $TG $D --plan "$T/target"
	# sizes, durations, lists
	bad_case "--size: invalid size '1.5k'" $TG $D --size 1.5k
	bad_case "--size: invalid size '1e3'" $TG $D --size 1e3
	bad_case "--deadline: '0' is out of range" $TG $D --deadline 0
	bad_case "--threads: invalid number '1-4'" $TG $D --threads 1-4
	bad_case "--rsize: '3000' is not a multiple of 4k" $TG $D --rsize 3000
	bad_case "--nconnect: '17' is out of range" $TG $D --nconnect 17
	bad_case "--mount-opts: empty element in list 'hard;;soft'" $TG $D --mount-opts "hard;;soft"
	# hostfiles: a server the job has no rank on (the job's hosts are known
	# once MPI has started)
	bad_pml=ob1
	bad_case "--servers: no rank of this job runs on 'nosuchhost' (is it in the hostfile?)" $TG $D --servers nosuchhost
	bad_case "--servers: no rank of this job runs on 'bad/name'" $TG $D --servers "$(hostname),bad/name"
	bad_case "--servers: every rank is on a server host" $TG $D --servers "$(hostname)"
	bad_pml=
	# store paths and --resume
	bad_case "--db: '$T' is not a regular file" $TG --db "$T"
	bad_case "--resume: no run 'nosuch' in $T/s.db" $D --resume nosuch
	# nfs:// URLs (refused before any traffic)
	bad_case "--target: 'http://x/y' is not an nfs:// URL" $D --engine libnfs --target http://x/y
	bad_case "--target: 'nfs://' has no server" $D --engine libnfs --target nfs://
	bad_case "--target: 'nfs://127.0.0.1' has no export path" $D --engine libnfs --target nfs://127.0.0.1
	bad_case "has a port in the server part (give ?nfsport=N&mountport=N)" $D --engine libnfs --target nfs://127.0.0.1:99999/export
	bad_case "version must be 3 or 4, not '7'" $D --engine libnfs --target "nfs://127.0.0.1/export?version=7"
	bad_case "has an unknown parameter 'foo'" $D --engine libnfs --target "nfs://127.0.0.1/export?foo=1"
	bad_case "nfsport must be a port number (1-65535), not 'x'" $D --engine libnfs --target "nfs://127.0.0.1/export?nfsport=x"
	bad_case "--mount: only for --engine posix" $D --engine libnfs --target nfs://127.0.0.1/export --mount 127.0.0.1:/x
	# issue 13's workloads: each option's value, and where it means nothing
	M="--phases create,stat"
	bad_case "--files: '0' is out of range" $TG $D $M --files 0
	bad_case "--file-size: invalid size '4q'" $TG $D $M --file-size 4q
	bad_case "--file-size: '65m' is out of range" $TG $D $M --file-size 65m
	bad_case "--fanout: '0' is out of range" $TG $D $M --fanout 0
	bad_case "--dir-mode: unknown value 'private' (one of: unique, shared)" $TG $D $M --dir-mode private
	bad_case "--depth: invalid number '-1' (not a whole number)" $TG $D $M --depth -1
	bad_case "--depth: '17' is out of range (0 to 16)" $TG $D $M --depth 17
	bad_case "--fanout: '0' is out of range (1 to 1000000)" $TG $D $M --depth 2 --fanout 0
	bad_case "--depth 7 with --fanout 10: more than 1000000 leaf directories per thread" $TG $D $M --depth 7 --fanout 10
	bad_case "--depth: only for the metadata phases" $TG $D --depth 2
	bad_case "--dir-mode: only for the metadata phases (create, stat, readdir, open, remove, mkdir, dirstat, rmdir), and --phases has none" $TG $D --dir-mode shared
	bad_case "--layout: unknown value 'striped' (one of: file-per-thread, shared)" $TG $D --layout striped
	bad_case "--access: unknown value 'random' (one of: segmented, strided)" $TG $D --layout shared --access random
	bad_case "--rwmix: '101' is out of range" $TG $D --phases rw --rwmix 101
	bad_case "--runtime: invalid duration '5x'" $TG $D --runtime 5x
	bad_case "--runtime: '0' is out of range" $TG $D --runtime 0
	bad_case "--ramp: invalid duration 'soon'" $TG $D --ramp soon
	bad_case "--stonewall: unknown value 'yes' (one of: off, on, wearout)" $TG $D --stonewall yes
	bad_case "--rwsize: '3000' is not a multiple of 4k" $D --engine null --rwsize 3000
	bad_case "--set 'vers': 'vers' is not KEY=VALUE" $D --engine null --set vers
	bad_case "--set 'vers=5': --vers: unknown value '5'" $D --engine null --set vers=5
	bad_case "--set 'target=/x': 'target' is not an option a set can give" $D --engine null --set target=/x
	bad_case "--interval: '5ms' is out of range" $TG $D --interval 5ms
	bad_case "--keep: unknown value 'maybe' (one of: off, on)" $TG $D --keep maybe
	bad_case "--null-delay-step: only for --engine null" $TG $D --null-delay-step 1ms
	bad_case "--data: invalid pattern 'compress:0'" $TG $D --data compress:0
	bad_case "--data: invalid pattern 'dedupe:50+dedupe:5'" $TG $D --data dedupe:50+dedupe:5
	bad_case "--files: only for the metadata phases (create, stat, readdir, open, remove, mkdir, dirstat, rmdir), and --phases has none" $TG $D --files 10
	bad_case "--rwmix: only for the mixed phases (rw, randrw), and --phases has none" $TG $D --rwmix 70
	bad_case "--layout: only for the data phases, and --phases has none" $TG $D $M --layout shared
	bad_case "--access: only with --layout shared" $TG $D --access strided
	bad_case "--stonewall on: a time-based phase (--runtime) has no first client" $TG $D --stonewall on --runtime 5
	bad_case "--runtime: 20s of runtime and ramp does not end before --deadline 10s" $TG $D --runtime 15 --ramp 5 --deadline 10
	bad_case "--rwsize: sets rsize and wsize together" $D --engine null --rwsize 64k --wsize 1m
	bad_case "--block: given as an option and in --set 'block=4k'" $D --engine null --block 8k --set block=4k
	bad_case "--rwsize: a mount option needs --mount SOURCE" $TG $D --rwsize 64k
	bad_case "--vers: a mount option needs --mount SOURCE" $TG $D --set vers=3
	# issue 19: a store that would be no file, combinations the same by
	# value, a URL where mount(8) takes server:/export
	bad_case "--db: 'file::memory:' is SQLite's name of a memory or URI store" $TG --db file::memory:
	bad_case "--db: ':memory:' is SQLite's name" $TG --db :memory:
	bad_case "--db: 'file:$T/u.db?mode=rwc' is SQLite's name" $TG --db "file:$T/u.db?mode=rwc"
	bad_case "--set 'block=4096': the same combination as --set 'block=4k'" $D --engine null --set block=4k --set block=4096
	bad_case "--set 'threads=1': the same combination as --set 'block=1m'" $D --engine null --set block=1m --set threads=1
	bad_case "--mount: 'nfs://127.0.0.1/x' is a URL" $TG $D --mount nfs://127.0.0.1/x
	bad_case "every combination would be skipped, nothing measured (the first: size=1m is not a multiple of block=3)" $D --engine null --size 1m --block 3
	bad_case "every combination would be skipped, nothing measured (the first: size=64k is not a multiple of block=48k)" $D --engine null --size 64k --block 48k,40k
	echo "$bad_cases bad inputs refused"
	[ $bad_cases -ge 95 ] || fail "the table has only $bad_cases cases" || return 1
	[ $bad_failed = 0 ] || fail "$bad_failed bad inputs were not refused cleanly"
}

# issue 23: the server options, refused before MPI starts (a typo must not
# fail every combination on the server host later)
t_bad_server_options() {
	bad_setup || return $?
	bad_failed=0
	bad_cases=0
	D="--db $T/s.db --engine null"
	bad_case "--server-threads: '0' is out of range (1 to 8192)" $D --server-threads 0
	bad_case "--server-threads: '8193' is out of range (1 to 8192)" $D --server-threads 1,8193
	bad_case "--server-threads: invalid number 'many'" $D --server-threads many
	bad_case "--server-export 'asink': 'asink' is not an exportfs -o option" $D --server-export "sync;asink"
	bad_case "--server-export 'async,fsid=': 'fsid=' is not an exportfs -o option" $D --server-export "async,fsid="
	bad_case "--server-export 'sync=1': 'sync=1' is not an exportfs -o option" $D --server-export "sync=1"
	bad_case "--server-export: empty element in list 'sync;;async'" $D --server-export "sync;;async"
	bad_case "--server-export: value 'sync' is listed twice" $D --server-export "sync;sync"
	[ $bad_failed = 0 ] || fail "$bad_failed bad inputs were not refused cleanly"
}

t_bad_report_options() {
	bad_setup || return $?
	bad_failed=0
	bad_case "--db: no store at '$T/none.db'" report --db "$T/none.db"
	bad_case "--db: '$T/notes.txt' is not a SQLite database" runs --db "$T/notes.txt"
	bad_case "runs: --db: 'file::memory:' is SQLite's name" runs --db file::memory:
	bad_case "query: --db: ':memory:' is SQLite's name" query --db :memory: "SELECT 1"
	bad_case "--format: unknown value 'xml'" report --db "$T/s.db" --format xml
	bad_case "--phase: unknown phase 'erase'" report --db "$T/s.db" --phase erase
	bad_case "--top: invalid count '-3'" report --db "$T/s.db" --top -3
	bad_case "--run: no run 'feedbeef' in the store" report --db "$T/s.db" --run feedbeef
	# options that would be ignored
	bad_case "report: --force: only with --html" report --db "$T/s.db" --force
	bad_case "report: --top: not with --html (it would be ignored)" report --db "$T/s.db" --top 5 --html "$T/p.html"
	bad_case "report: --phase: not with --html" report --db "$T/s.db" --html - --phase read
	bad_case "report: --format: not with --html" report --db "$T/s.db" --format json --html -
	bad_case "unknown option '--colour'" runs --db "$T/s.db" --colour
	bad_case "no such table: nosuchtable" query --db "$T/s.db" "SELECT * FROM nosuchtable"
	bad_case "not authorized" query --db "$T/s.db" "DELETE FROM run"
	bad_case "missing SQL" query --db "$T/s.db"
	bad_case "audit: needs a run" audit --db "$T/s.db"
	bad_case "audit: no run 'feedbeef' in the store" audit feedbeef --db "$T/s.db"
	bad_case "audit: --format: unknown value 'csv' (one of: table, json)" audit last --db "$T/s.db" --format csv
	bad_case "audit: unknown option '--colour'" audit last --db "$T/s.db" --colour
	bad_case "audit: unexpected argument 'again'" audit last again --db "$T/s.db"
	bad_case "--db: no store at '$T/none.db'" audit last --db "$T/none.db"
	bad_case "--db: '$T/notes.txt' is not a SQLite database" audit last --db "$T/notes.txt"
	[ $bad_failed = 0 ] || fail "$bad_failed bad inputs were not refused cleanly"
}

t_no_arguments_and_conf() {
	mkdir w && cd w || return 1
	$ST >out 2>err
	expect_eq $? 2 "exit without stcluster.conf" || return 1
	grep -q "example" err || fail "no usage example" || return 1
	[ "$(ls -A)" = "out
err" ] || [ "$(ls -A | sort | tr '\n' ' ')" = "err out " ] || fail "files created: $(ls -A)" || return 1
	cat >stcluster.conf <<CONF
# the plan of this directory
engine = null
block = 4k, 8k
size = 32k
db = ./from-conf.db
quiet = on
CONF
	$ST || fail "run from stcluster.conf" || return 1
	expect_eq "$(q from-conf.db 'SELECT COUNT(*) FROM combo')" 2 "combinations from the conf"
}

t_every_subcommand_takes_help() {
	# the subcommands as --help lists them (from the one subcommand table)
	cmds=$($ST --help | sed -n 's/^       stcluster \([a-z][a-z]*\) .*/\1/p')
	[ "$(echo $cmds | wc -w)" -ge 7 ] || fail "subcommands in --help: $cmds" || return 1
	for c in $cmds; do
		for h in --help -h; do
			$ST $c $h >out 2>err
			expect_eq $? 0 "$c $h: exit status" || return 1
			[ ! -s err ] || fail "$c $h wrote to stderr: $(cat err)" || return 1
			head -1 out | grep -q "^usage: stcluster $c " || fail "$c $h: $(head -1 out)" || return 1
			[ "$(wc -l <out)" -gt 2 ] || fail "$c $h: no help text" || return 1
		done
		# and the same parser refuses in one line
		$ST $c --colour >out 2>err
		expect_eq $? 2 "$c --colour: exit status" || return 1
		expect_eq "$(wc -l <err)" 1 "$c --colour: lines on stderr" || return 1
		grep -q "^stcluster $c: unknown option '--colour'$" err || fail "$c --colour: $(cat err)" || return 1
	done
}


t_refusals_come_before_mpi_starts() {
	# every rank refuses before MPI_Init: under mpirun, one line from rank 0
	# and exit 2 (Open MPI adds its own banner about the exit status)
	$MPIRUN -np 2 $ST --engine null --phases rw --rwmix 101 >out 2>err
	expect_eq $? 2 "mpirun, --rwmix 101: exit status" || return 1
	expect_eq "$(grep -c '^stcluster' err)" 1 "lines of stcluster" || return 1
	grep -q "^stcluster: --rwmix: '101' is out of range" err || fail "$(cat err)" || return 1
	# a plan only rank 0 reads: the others were waiting in MPI_Init
	printf 'blok = 4k\n' >typo.conf
	$MPIRUN -np 2 $ST --plan typo.conf >out 2>err
	expect_eq $? 2 "mpirun, a typo in the plan: exit status" || return 1
	grep -q "^stcluster: typo.conf:1: unknown key 'blok'" err || fail "$(cat err)" || return 1
	# a working directory that is gone: one line, not Open MPI's
	mkdir gone && cd gone && rmdir "$T/gone" || return 1
	$ST --engine null --block 4k --size 16k --db "$T/s.db" >"$T/out" 2>"$T/err"
	rc=$?
	cd "$T" || return 1
	expect_eq $rc 2 "deleted working directory: exit status" || return 1
	# (the sanitizer build's wrapper is a shell script, which says so too)
	expect_eq "$(grep -v '^sh: .*getcwd' err)" "stcluster: the working directory no longer exists (cd to one that does)" \
		"deleted working directory" || return 1
	[ ! -e s.db ] || fail "a store was made"
}
