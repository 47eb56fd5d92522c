# Issue 13's workloads on this host: the metadata phases, the shared file,
# the data patterns, the mixed phases, time-based phases with ramp and the
# stonewall, throughput over time and its stalls, option sets. Oracles with
# the null engine (every call takes a known time), real runs on a tmpfs the
# test mounts (the libnfs/ganesha ones are in t_nfs.sh).

# tmpfs_up DIR [SIZE]: a private tmpfs of SIZE (256m) on $T/DIR (root), gone
# when the test ends
tmpfs_up() {
	mkdir -p "$T/$1"
	mount -t tmpfs -o size="${2:-256m}" tmpfs "$T/$1" || { echo "cannot mount a tmpfs (root?)"; return 77; }
	trap 'umount "$T/'"$1"'" 2>/dev/null' EXIT
}

# intervals_fit DB: every interval lies inside its rank's phase (from its
# barrier release to its end) and the intervals of each rank and phase sum
# to its calls and bytes; prints nothing and returns 0 when they do
intervals_fit() {
	bad=$(q "$1" "SELECT COUNT(*) FROM interval i JOIN rank_result r USING (combo_id, phase, rank)
		WHERE i.t_ns < r.release_ns OR i.end_ns > r.end_ns OR i.end_ns < i.t_ns")
	expect_eq "$bad" 0 "intervals outside their phase" || return 1
	bad=$(q "$1" "SELECT COUNT(*) FROM rank_result r LEFT JOIN (SELECT combo_id, phase, rank,
		SUM(bytes) AS b, SUM(ops) AS o, SUM(read_bytes) AS rb FROM interval GROUP BY 1, 2, 3) i
		USING (combo_id, phase, rank) WHERE r.role = 'client' AND r.ops > 0 AND
		(i.o IS NOT r.ops OR i.b IS NOT r.bytes OR i.rb IS NOT r.read_bytes)")
	expect_eq "$bad" 0 "phases whose intervals do not sum to their calls and bytes"
}

t_meta_null_ops_match_the_delays() {
	# 2 ranks x 2 threads x 60 files, every operation 2 ms: each phase takes
	# 120 ms and does 4 / 2 ms = 2000 operations per second (1000 per client),
	# with a directory fan-out too (the directory opens are outside the calls)
	$MPIRUN -np 2 $ST --engine null --null-delay 2ms --threads 2 --files 60 --fanout 1,6 \
		--phases create,stat,open,remove --bind none --interval 20ms --db "$T/s.db" --quiet || return 1
	expect_eq "$(q s.db "SELECT COUNT(*) FROM phase_summary WHERE ops = 240 AND errors = 0")" 8 "phases of 240 operations" || return 1
	for phase in create stat open remove; do
		for fan in 1 6; do
			w="phase = '$phase' AND c.fanout = $fan"
			# each thread, on its own absolute schedule: 60 operations in 120 ms,
			# 500 a second at most, on any machine (1 %: the clocks); a busy one
			# only adds time, which the run measured: the phase's span beyond the
			# schedule is the tolerance below the schedule's rate
			sched=120000000
			span=$(q s.db "SELECT span_ns FROM result c WHERE $w")
			for rate in $(q s.db "SELECT t.ops * 1e9 / (t.end_ns - t.start_ns) FROM thread_result t JOIN combo c USING (combo_id) WHERE $w"); do
				awk -v r="$rate" -v p="$span" 'BEGIN { exit !(r <= 505 && r >= 60e9 / p * 0.99) }' ||
					fail "$phase fanout $fan: a thread's ops/s $rate against 500 at most, $span ns of phase" || return 1
			done
			# one operation is one delay on the schedule; late ones make the next
			# shorter: the median no longer than a bucket (12.5 %) plus the lateness
			p50=$(q s.db "SELECT lat_p50_ns FROM result c WHERE $w")
			awk -v m="$p50" -v s="$sched" -v p="$span" 'BEGIN { exit !(m > 0 && m <= 2000000 * (1.13 + (p - s) / s)) }' ||
				fail "$phase fanout $fan: p50 $p50 ns against 2 ms, $span ns of phase" || return 1
			# the aggregate: all operations over the span from the first start to the last end
			within "$(q s.db "SELECT iops FROM result c WHERE $w")" \
				"$(q s.db "SELECT SUM(r.ops) * 1e9 / (MAX(r.end_ns) - MIN(r.start_ns)) FROM rank_result r JOIN combo c USING (combo_id) WHERE r.$w")" \
				0.1 "$phase fanout $fan: aggregate ops/s" || return 1
		done
	done
	intervals_fit s.db || return 1
	expect_eq "$(q s.db "SELECT COUNT(*) FROM interval WHERE width_ns = 20000000")" \
		"$(q s.db 'SELECT COUNT(*) FROM interval')" "20 ms intervals" || return 1
}

t_meta_posix_counts_the_files() {
	tmpfs_up fs || return $?
	# created, then left (--keep): every file of every thread is there, with its bytes
	$MPIRUN -np 2 $ST --target "$T/fs" --threads 2 --files 50 --file-size 4k --fanout 5 \
		--phases create,stat,open --verify on --keep on --db "$T/s.db" --quiet || return 1
	expect_eq "$(find "$T/fs" -type f -name 'f*' | wc -l)" 200 "files on the file system" || return 1
	expect_eq "$(find "$T/fs" -type f -name 'f*' -size 4k | wc -l)" 200 "files of 4k" || return 1
	expect_eq "$(find "$T/fs" -type d -name 'd[0-9]*' | wc -l)" 20 "fan-out directories" || return 1
	expect_eq "$(q s.db "SELECT COUNT(*) || ' ' || SUM(ops) || ' ' || SUM(bad_blocks) FROM rank_result")" \
		"6 600 0" "operations, every file read back verified" || return 1
	# created and removed: none left, and remove did one operation per file
	rm -rf "$T/fs"/stcluster-*
	$MPIRUN -np 2 $ST --target "$T/fs" --threads 2 --files 50 --phases create,remove \
		--keep on --db "$T/s2.db" --quiet || return 1
	expect_eq "$(find "$T/fs" -type f | wc -l)" 0 "files left after remove" || return 1
	expect_eq "$(q s2.db "SELECT ops FROM phase_summary WHERE phase = 'remove'")" 200 "removes" || return 1
	# without --keep the run leaves nothing at all, whatever the phases
	rm -rf "$T/fs"/stcluster-*
	$MPIRUN -np 2 $ST --target "$T/fs" --threads 2 --files 20 --phases stat,open \
		--db "$T/s3.db" --quiet || return 1
	expect_eq "$(q s3.db "SELECT COUNT(*) FROM phase_summary WHERE ops = 80 AND errors = 0")" 2 \
		"stat and open of files made untimed" || return 1
	expect_eq "$(ls -A "$T/fs")" "" "target left clean"
}

t_meta_shared_dir_null_counts() {
	# --dir-mode shared at 3 ranks x 2 threads x 30 files (directories in
	# mkdir, dirstat, rmdir), every operation 2 ms: each phase does exactly
	# 180 operations in each mode, each thread at most 500 a second (its own
	# schedule: every operation is one call of the engine, rmdir too), and
	# the mode is stored
	$MPIRUN -np 3 $ST --engine null --null-delay 2ms --threads 2 --files 30 --fanout 1,3 \
		--dir-mode unique,shared --phases create,stat,open,remove,mkdir,dirstat,rmdir --bind none \
		--db "$T/s.db" --quiet || return 1
	expect_eq "$(q s.db "SELECT group_concat(\"dir-mode\" || ' ' || fanout, ', ') FROM (SELECT * FROM combo ORDER BY seq)")" \
		"unique 1, shared 1, unique 3, shared 3" "the combinations" || return 1
	expect_eq "$(q s.db "SELECT COUNT(*) FROM phase_summary WHERE ops = 180 AND errors = 0")" 28 \
		"phases of 180 operations" || return 1
	expect_eq "$(q s.db "SELECT group_concat(phase, ',') FROM (SELECT DISTINCT phase FROM phase_run ORDER BY phase_order)")" \
		"create,stat,open,remove,mkdir,dirstat,rmdir" "the phases, in their order" || return 1
	for ph in create stat open remove mkdir dirstat rmdir; do
		expect_eq "$(q s.db "SELECT COUNT(*) FROM thread_result WHERE phase = '$ph' AND ops = 30 AND ops * 1e9 / (end_ns - start_ns) <= 505")" \
			24 "$ph: threads of 30 operations, none faster than its schedule" || return 1
	done
}

t_meta_top_prints_ops_per_client() {
	# report --top with metadata phases: their figure in the ops/s column
	# (MB/s empty), the slowest and fastest client in ops/s and their ratio;
	# a data phase beside them keeps MB/s. Rank r's calls take (1 + r) ms, so
	# a client's 2 threads do at most 2000 / (1 + r) operations a second:
	# rank 0 at most 2000, rank 2 at most 667 (a busy machine only slows them)
	$MPIRUN -np 3 $ST --engine null --null-delay 1ms --null-delay-step 1ms --threads 2 --files 40 \
		--size 256k --block 64k --phases write,create,mkdir --bind none --db "$T/s.db" --quiet || return 1
	$ST report --db "$T/s.db" --top 1 --format csv >top.csv || return 1
	python3 - "$T/s.db" <<'PY' || fail "report --top: $(cat top.csv)" || return 1
import csv, sqlite3, sys
rows = {r["phase"]: r for r in csv.DictReader(open("top.csv"))}
db = sqlite3.connect(sys.argv[1])
assert set(rows) == {"write", "create", "mkdir"}, rows
w = rows["write"]
assert w["MB/s"] != "" and w["ops/s"] == "", w
for ph in ("create", "mkdir"):
    r = rows[ph]
    assert r["MB/s"] == "", r
    ops, lo, hi = db.execute("SELECT iops, min_client_iops, max_client_iops FROM phase_summary "
                             "WHERE phase = ?", (ph,)).fetchone()
    assert abs(float(r["ops/s"]) - ops) <= 0.5, (r, ops)
    assert abs(float(r["min client"]) - lo) <= 0.5 and abs(float(r["max client"]) - hi) <= 0.5, (r, lo, hi)
    assert abs(float(r["fair"]) - round(lo / hi, 2)) <= 0.005, (r, lo, hi)
    assert 0 < lo <= 2000 / 3 * 1.01 and hi <= 2000 * 1.01 and lo < hi, (ph, lo, hi)
    # each client's ops/s is its operations over its own span
    n = db.execute("SELECT COUNT(*) FROM client_result WHERE phase = ? AND "
                   "abs(iops - ops * 1e9 / (end_ns - start_ns)) < 1e-6 * iops", (ph,)).fetchone()[0]
    assert n == 3, (ph, n)
PY
	# the same figures in --format json, in base units: each client's ops/s
	# and the fairness in the row's unit (before: only bytes per second, 0)
	$ST report --db "$T/s.db" --top 1 --format json >top.json || return 1
	python3 - "$T/s.db" <<'PY' || fail "report --top --format json: $(cat top.json)" || return 1
import json, sqlite3, sys
rows = {r["phase"]: r for r in json.load(open("top.json"))["rows"]}
db = sqlite3.connect(sys.argv[1])
for ph in ("write", "create", "mkdir"):
    r = rows[ph]
    ops, lo, hi, mlo, mhi = db.execute("SELECT iops, min_client_iops, max_client_iops, min_client_mbps, "
                                       "max_client_mbps FROM phase_summary WHERE phase = ?", (ph,)).fetchone()
    assert abs(r["min_client_ops_per_s"] - lo) <= 1e-6 * lo and abs(r["max_client_ops_per_s"] - hi) <= 1e-6 * hi, (r, lo, hi)
    want = (mlo / mhi) if ph == "write" else (lo / hi)
    assert abs(r["fairness"] - want) <= 1e-9, (r, want)
    assert r["figure_unit"] == ("bytes_per_s" if ph == "write" else "ops_per_s"), r
    if ph != "write":
        assert abs(r["mean"] - ops) <= 1e-6 * ops, (r, ops)
PY
}

t_meta_shared_dir_posix_no_collision() {
	tmpfs_up fs || return $?
	# 3 ranks x 2 threads in one directory: every name the run should make
	# is there once, with its bytes (--verify: read back by another rank,
	# --reorder), and nothing else is
	$MPIRUN -np 3 $ST --target "$T/fs" --threads 2 --files 40 --file-size 4k --dir-mode shared \
		--phases create,stat,open --reorder on --verify on --keep on --db "$T/s.db" --quiet || return 1
	dir=$(echo "$T"/fs/stcluster-*/c*/shared.d)
	[ -d "$dir" ] || fail "no shared directory: $(find "$T/fs" -type d)" || return 1
	for r in 0 1 2; do for t in 0 1; do i=0; while [ $i -lt 40 ]; do
		echo "f$i.r$r.t$t"; i=$((i + 1)); done; done; done | sort >want
	(cd "$dir" && ls -A) | sort >have
	cmp -s want have || fail "names in the shared directory: $(diff want have | head -5)" || return 1
	expect_eq "$(find "$T/fs" -type f -size 4k | wc -l) $(find "$T/fs" -type f | wc -l)" "240 240" \
		"files of 4k on the file system" || return 1
	expect_eq "$(find "$T/fs" -type d | wc -l)" 4 "directories (fs, run, combination, shared.d)" || return 1
	expect_eq "$(q s.db "SELECT COUNT(*) || ' ' || SUM(ops) || ' ' || SUM(bad_blocks) || ' ' || SUM(errors) FROM phase_summary")" \
		"3 720 0 0" "operations, every file read back verified" || return 1
	# over --fanout 3 subdirectories: each holds its equal run of every
	# thread's files (14, 14, 12 of 40), 6 threads' worth; without --keep and
	# without a remove phase the run leaves nothing
	rm -rf "$T/fs"/stcluster-*
	$MPIRUN -np 3 $ST --target "$T/fs" --threads 2 --files 40 --fanout 3 --dir-mode shared \
		--phases create,stat --keep on --db "$T/s2.db" --quiet || return 1
	for k in 0 1 2; do
		n=$(ls -A "$T"/fs/stcluster-*/c*/shared.d/d$k | wc -l)
		expect_eq "$n" "$(( k < 2 ? 84 : 72 ))" "files in shared.d/d$k" || return 1
	done
	rm -rf "$T/fs"/stcluster-*
	$MPIRUN -np 3 $ST --target "$T/fs" --threads 2 --files 40 --fanout 3 --dir-mode shared \
		--phases create,stat --db "$T/s3.db" --quiet || return 1
	expect_eq "$(q s3.db "SELECT COUNT(*) FROM phase_summary WHERE ops = 240 AND errors = 0")" 2 \
		"create and stat" || return 1
	expect_eq "$(ls -A "$T/fs")" "" "target left clean"
}

t_meta_dir_phases_posix_counts_the_dirs() {
	tmpfs_up fs || return $?
	# mkdir (left by --keep): every thread's 30 directories, in one shared
	# directory at 3 ranks x 2 threads, each name once, empty
	$MPIRUN -np 3 $ST --target "$T/fs" --threads 2 --files 30 --dir-mode shared \
		--phases mkdir,dirstat --reorder on --keep on --db "$T/s.db" --quiet || return 1
	for r in 0 1 2; do for t in 0 1; do i=0; while [ $i -lt 30 ]; do
		echo "m$i.r$r.t$t"; i=$((i + 1)); done; done; done | sort >want
	(cd "$T"/fs/stcluster-*/c*/shared.d && ls -A) | sort >have
	cmp -s want have || fail "names in the shared directory: $(diff want have | head -5)" || return 1
	expect_eq "$(find "$T/fs" -mindepth 4 | wc -l) $(find "$T/fs" -type f | wc -l)" "180 0" \
		"directories, nothing in them" || return 1
	expect_eq "$(q s.db "SELECT group_concat(phase || ' ' || ops || ' ' || errors, ', ') FROM phase_summary")" \
		"dirstat 180 0, mkdir 180 0" "operations" || return 1
	# unique directories over --fanout 3: each thread's 10 + 10 + 10; then
	# rmdir: none left, and rmdir did one operation per directory
	rm -rf "$T/fs"/stcluster-*
	$MPIRUN -np 3 $ST --target "$T/fs" --threads 2 --files 30 --fanout 3 --phases mkdir \
		--keep on --db "$T/s2.db" --quiet || return 1
	expect_eq "$(find "$T/fs" -type d -name 'm[0-9]*' | wc -l) $(find "$T/fs" -type d -path '*/r*.t*.d/d1/m*' | wc -l)" \
		"180 60" "directories, a third in each d<k>" || return 1
	rm -rf "$T/fs"/stcluster-*
	$MPIRUN -np 3 $ST --target "$T/fs" --threads 2 --files 30 --fanout 3 --dir-mode unique,shared \
		--phases mkdir,dirstat,rmdir --keep on --db "$T/s3.db" --quiet || return 1
	expect_eq "$(find "$T/fs" -name 'm*' | wc -l)" 0 "directories left after rmdir" || return 1
	expect_eq "$(q s3.db "SELECT COUNT(*) FROM phase_summary WHERE ops = 180 AND errors = 0")" 6 \
		"mkdir, dirstat, rmdir of 180 in each mode" || return 1
	# dirstat and rmdir alone: the directories made untimed; nothing left after
	rm -rf "$T/fs"/stcluster-*
	$MPIRUN -np 3 $ST --target "$T/fs" --threads 2 --files 30 --dir-mode shared --phases dirstat \
		--db "$T/s4.db" --quiet || return 1
	expect_eq "$(q s4.db "SELECT ops || ' ' || errors FROM phase_summary")" "180 0" \
		"dirstat of directories made untimed" || return 1
	expect_eq "$(ls -A "$T/fs")" "" "target left clean"
}

t_meta_readdir_posix_lists_every_entry() {
	tmpfs_up fs || return $?
	# 2 ranks x 2 threads x 25 files, unique and shared, in one directory
	# and over --fanout 3: every thread lists its own directories (each
	# entry one operation, its attributes fetched): 100 entries; shared, each
	# rank lists the one directory once (its threads share the leaves): 100
	# each, 200 in all; each figure what create made, none an error
	$MPIRUN -np 2 $ST --target "$T/fs" --threads 2 --files 25 --dir-mode unique,shared \
		--depth 1 --fanout 1,3 --phases create,readdir,remove --db "$T/s.db" --quiet || return 1
	expect_eq "$(q s.db "SELECT group_concat(\"dir-mode\" || ' ' || fanout || ' ' || ops || ' ' || errors, ', ')
		FROM (SELECT c.*, s.ops, s.errors FROM phase_summary s JOIN combo c USING (combo_id)
		WHERE s.phase = 'readdir' ORDER BY c.seq)")" \
		"unique 1 100 0, shared 1 200 0, unique 3 100 0, shared 3 200 0" "entries listed" || return 1
	expect_eq "$(q s.db "SELECT COUNT(*) FROM phase_summary WHERE phase = 'create' AND ops = 100")" 4 \
		"files created" || return 1
	expect_eq "$(q s.db "SELECT group_concat(ops, ' ') FROM (SELECT t.ops FROM thread_result t JOIN combo c
		USING (combo_id) WHERE t.phase = 'readdir' AND c.seq = 1 ORDER BY t.rank, t.thread)")" \
		"100 0 100 0" "shared, one directory: thread 0 of each rank lists it all" || return 1
	# readdir alone: the files laid out untimed, with dirstat's directories
	# beside them, each entry listed (50 + 50 a thread); nothing left after
	$MPIRUN -np 2 $ST --target "$T/fs" --threads 2 --files 50 --phases readdir,dirstat \
		--db "$T/s2.db" --quiet || return 1
	expect_eq "$(q s2.db "SELECT group_concat(phase || ' ' || ops || ' ' || errors, ', ') FROM
		(SELECT * FROM phase_summary ORDER BY phase)")" "dirstat 200 0, readdir 400 0" \
		"readdir of files and directories made untimed" || return 1
	expect_eq "$(ls -A "$T/fs")" "" "target left clean" || return 1
	# the null engine lists what was made, one delay an entry
	$MPIRUN -np 2 $ST --engine null --null-delay 1ms --threads 2 --files 30 --dir-mode unique,shared \
		--phases create,readdir --bind none --db "$T/n.db" --quiet || return 1
	expect_eq "$(q n.db "SELECT group_concat(ops || ' ' || errors, ', ') FROM (SELECT s.* FROM phase_summary s
		JOIN combo c USING (combo_id) WHERE s.phase = 'readdir' ORDER BY c.seq)")" "120 0, 240 0" \
		"null: entries listed" || return 1
}

t_meta_tree_posix_counts_every_level() {
	tmpfs_up fs || return $?
	# --depth 2 --fanout 3 in one shared directory, 3 ranks x 2 threads x 27
	# files: 3 + 9 directories, the 9 leaves 3 files of each thread each (18),
	# the inner levels none; every file once, at its leaf i / 3 (digits
	# i / 9, i / 3 % 3), read back verified
	$MPIRUN -np 3 $ST --target "$T/fs" --threads 2 --files 27 --file-size 1k --fanout 3 --depth 2 \
		--dir-mode shared --phases create,open --verify on --keep on --db "$T/s.db" --quiet || return 1
	top=$(echo "$T"/fs/stcluster-*/c*/shared.d)
	expect_eq "$(find "$top" -mindepth 1 -type d | wc -l) $(find "$top" -mindepth 1 -maxdepth 2 -type f | wc -l)" \
		"12 0" "tree directories, files above the leaves" || return 1
	for r in 0 1 2; do for t in 0 1; do i=0; while [ $i -lt 27 ]; do
		echo "d$((i / 9))/d$((i / 3 % 3))/f$i.r$r.t$t"; i=$((i + 1)); done; done; done | sort >want
	(cd "$top" && find . -type f | sed 's#^\./##') | sort >have
	cmp -s want have || fail "files in the tree: $(diff want have | head -5)" || return 1
	expect_eq "$(q s.db "SELECT group_concat(phase || ' ' || ops || ' ' || errors || ' ' || bad_blocks, ', ') FROM (SELECT * FROM phase_summary ORDER BY phase)")" \
		"create 162 0 0, open 162 0 0" "operations, every file verified" || return 1
	# unique directories 3 levels deep: 3 + 9 + 27 per thread, each leaf one
	# directory of its thread's (mkdir); without --keep nothing is left
	rm -rf "$T/fs"/stcluster-*
	$MPIRUN -np 3 $ST --target "$T/fs" --threads 2 --files 27 --fanout 3 --depth 3 --phases mkdir \
		--keep on --db "$T/s2.db" --quiet || return 1
	expect_eq "$(find "$T"/fs/stcluster-*/c*/r1.t0.d -mindepth 1 -type d -name 'd*' | wc -l) $(find "$T/fs" -type d -name 'm*' -path '*/d?/d?/d?/m*' | wc -l)" \
		"39 162" "a thread's tree, directories at the leaves" || return 1
	rm -rf "$T/fs"/stcluster-*
	$MPIRUN -np 3 $ST --target "$T/fs" --threads 2 --files 27 --fanout 3 --depth 0,3 --dir-mode unique,shared \
		--phases create,stat,mkdir,rmdir --db "$T/s3.db" --quiet || return 1
	expect_eq "$(q s3.db "SELECT COUNT(*) FROM phase_summary WHERE ops = 162 AND errors = 0")" 16 \
		"each phase of each combination" || return 1
	expect_eq "$(ls -A "$T/fs")" "" "target left clean"
}

t_shared_file_verified_at_3_ranks() {
	tmpfs_up fs || return $?
	# 3 ranks x 2 threads, each its region of one file, segmented and strided;
	# the reads (and reorder's reads of another rank's region) verified
	$MPIRUN -np 3 $ST --target "$T/fs" --layout shared --access segmented,strided --threads 2 \
		--block 16k --size 256k --phases write,read,randread,rw --verify on --keep on \
		--db "$T/s.db" --quiet || return 1
	expect_eq "$(q s.db "SELECT COUNT(*) FROM combo WHERE status = 'ok'")" 2 "combinations ok" || return 1
	expect_eq "$(q s.db "SELECT COUNT(*) || ' ' || SUM(bad_blocks) || ' ' || MIN(bytes) FROM rank_result")" \
		"24 0 524288" "every byte of every rank's region read back" || return 1
	# one file of 3 x 2 x 256k for each combination (--keep: each in its own
	# directory), and nothing else
	expect_eq "$(find "$T/fs" -type f | wc -l)" 2 "files" || return 1
	expect_eq "$(stat -c %s "$T"/fs/stcluster-*/c*/shared | sort -u)" $((3 * 2 * 262144)) "shared file size" || return 1
	# --access means nothing beside file-per-thread: one combination of it,
	# without access, beside each access of shared (issue 19: 3, not 4)
	$ST --target "$T/fs" --layout file-per-thread,shared --access segmented,strided --phases write \
		--size 64k --block 64k --db "$T/s2.db" --quiet || return 1
	expect_eq "$(q s2.db "SELECT group_concat(layout || ' ' || coalesce(access, '-') || ' ' || status, ', ') FROM (SELECT * FROM combo ORDER BY seq)")" \
		"file-per-thread - ok, shared segmented ok, shared strided ok" "the combinations"
}

t_data_patterns_compress_and_dedupe() {
	tmpfs_up fs || return $?
	# every pattern is verified on read, with units and chunks of the block
	# (the default) and of 12k across 64k blocks
	$ST --target "$T/fs" --data zero,random,compress:50,dedupe:50,compress:50+dedupe:50 \
		--block 64k --size 1m --phases write,read --verify on --db "$T/s.db" --quiet || return 1
	expect_eq "$(q s.db "SELECT COUNT(*) || ' ' || SUM(bad_blocks) FROM rank_result WHERE phase = 'read'")" "5 0" "verified" || return 1
	expect_eq "$(q s.db "SELECT group_concat(data, ' ') FROM (SELECT data FROM combo ORDER BY seq)")" \
		"zero random compress:50 dedupe:50 compress:50+dedupe:50" "stored patterns" || return 1
	$ST --target "$T/fs" --data compress:30+dedupe:40 --dedupe-unit 12k --compress-chunk 12k \
		--block 64k --size 1m --phases write,read,randread --verify on --db "$T/u.db" --quiet || return 1
	expect_eq "$(q u.db "SELECT COUNT(*) || ' ' || SUM(bad_blocks) FROM rank_result WHERE phase <> 'write'")" "2 0" "verified in 12k units" || return 1
	# 64 MiB files as file systems see them: dedupe:50 in 128 KiB units (the
	# block, by default) by sha256 of 128 KiB units, 512 of which 256 are the
	# one duplicate: 512 / 257 = 1.99; compress:50 in 128 KiB chunks with
	# zlib per 128 KiB record (before: dedupe worked in 4 KiB units only and
	# gave 1.00 here)
	for d in "dedupe:50 --block 128k" "compress:50 --block 1m --compress-chunk 128k"; do
		rm -rf "$T/fs"/stcluster-*
		$ST --target "$T/fs" --data $d --size 64m --phases write --keep on \
			--db "$T/k.db" --quiet || return 1
		python3 - "${d%% *}" "$T"/fs/stcluster-*/c0/r0.t0 <<'EOF' || return 1
import hashlib, sys, zlib
want, path = sys.argv[1], sys.argv[2]
data = open(path, 'rb').read()
assert len(data) == 64 << 20, len(data)
rec = 128 << 10
z = len(data) / sum(len(zlib.compress(data[i:i + rec], 6)) for i in range(0, len(data), rec))
units = [hashlib.sha256(data[i:i + rec]).digest() for i in range(0, len(data), rec)]
d = len(units) / len(set(units))
print('    %s: zlib per 128k %.3f:1, dedupe of 128k units %.3f:1' % (want, z, d))
if want == 'compress:50':
    assert abs(z - 2.0) <= 0.1 and d == 1.0, (z, d)
else:
    assert abs(d - 512 / 257) <= 0.001, d
EOF
	done
}

# Once, on the normal build: the file's bytes are the same from either
# build, and the checks read 64 MiB three times (the ASan build's generator
# runs in t_data_patterns_compress_and_dedupe)
once_data_random_never_repeats() {
	tmpfs_up fs || return $?
	# a 64 MiB random file does not compress: zstd's long-distance matcher with
	# a 128 MiB window (--long=27) sees the whole file and keeps >= 0.99 of it
	# (before: the random bytes repeated every 1 MiB, but for a 16-byte stamp
	# per 4 KiB, and zstd -3 alone made 9.48:1 of them); level 3, not 19: the
	# matcher finds a repeat at any distance in the window at either level
	# (random 1 MiB or 4 MiB repeated to 64 MiB: 64:1 and 16:1 at -3 in 0.1 s;
	# checked below on the file itself), and -19 took 153 s of a loaded ladder; zlib per 128k and dedupe of 4k
	# units find nothing either
	command -v zstd >/dev/null || fail "no zstd (tests/deps.sh install)" || return 1
	$ST --target "$T/fs" --data random --block 1m --size 64m --phases write --keep on \
		--db "$T/k.db" --quiet || return 1
	f=$(echo "$T"/fs/stcluster-*/c0/r0.t0)
	# the matcher at work in this zstd: the file's first 4 MiB twice make
	# about 4 MiB, not 8 (so a repeat 4 MiB apart would have been seen)
	c=$( (head -c 4m "$f"; head -c 4m "$f") | zstd -3 --long=27 -c | wc -c)
	[ "$c" -le $((4 * 1048576 * 102 / 100)) ] || fail "zstd -3 --long=27 left $c bytes of a 4 MiB repeat" || return 1
	z=$(zstd -3 --long=27 -c "$f" | wc -c)
	echo "    random: zstd -3 --long=27 keeps $z of $((64 << 20)) bytes"
	[ "$z" -ge $((64 * 1048576 * 99 / 100)) ] || fail "zstd made $z bytes of a 64 MiB random file" || return 1
	python3 - "$f" <<'EOF'
import sys, zlib
data = open(sys.argv[1], 'rb').read()
rec = 128 << 10
z = len(data) / sum(len(zlib.compress(data[i:i + rec], 6)) for i in range(0, len(data), rec))
units = [data[i:i + 4096] for i in range(0, len(data), 4096)]
d = len(units) / len(set(units))
print('    random: zlib per 128k %.3f:1, dedupe of 4k units %.3f:1' % (z, d))
assert z < 1.01 and d == 1.0, (z, d)
EOF
}

t_rwmix_70_reads_by_bytes() {
	tmpfs_up fs || return $?
	$MPIRUN -np 2 $ST --target "$T/fs" --phases rw,randrw --rwmix 70,20 --block 16k --size 2m \
		--threads 2 --verify on --db "$T/s.db" --quiet || return 1
	for mix in 70 20; do
		for phase in rw randrw; do
			w="phase = '$phase' AND rwmix = $mix"
			within "$(q s.db "SELECT read_pct FROM result WHERE $w")" $mix 5 "$phase rwmix $mix reads by bytes" || return 1
			expect_eq "$(q s.db "SELECT read_bytes + write_bytes = bytes AND read_lat_p50_ns > 0 AND write_lat_p50_ns > 0 FROM result WHERE $w")" \
				1 "$phase: each direction's bytes and latency" || return 1
		done
	done
	expect_eq "$(q s.db 'SELECT SUM(bad_blocks) FROM rank_result')" 0 "verified" || return 1
	expect_eq "$(q s.db "SELECT COUNT(*) FROM rank_result WHERE read_lat_p99_ns IS NULL")" 0 "per rank" || return 1
	intervals_fit s.db
}

t_stonewall_bytes_from_known_rates() {
	# rank 0: 2 ms a call, rank 1: 20 ms (--null-delay-step 18ms); 50 calls
	# each. With the stonewall rank 1 stops when rank 0 is done at 100 ms,
	# having made ~5; without, it makes all 50 (in a second)
	$MPIRUN -np 2 $ST --engine null --null-delay 2ms --null-delay-step 18ms --block 4k --size 200k \
		--stonewall on,off --phases write --bind none --db "$T/s.db" --quiet || return 1
	on="r.combo_id = (SELECT combo_id FROM combo WHERE stonewall = 'on')"
	# what rank 1's 20 ms calls fit in from its start to rank 0's end (whenever
	# each was woken), and at most 2 more (40 ms): the stop is seen within a
	# millisecond on each side, and the call in flight ends
	could=$(q s.db "SELECT CAST((r0.end_ns - r.start_ns) / 20000000 AS INTEGER) FROM rank_result r
		JOIN rank_result r0 USING (combo_id, phase) WHERE r0.rank = 0 AND r.rank = 1 AND $on")
	got=$(q s.db "SELECT r.bytes / 4096 FROM rank_result r WHERE $on AND r.rank = 1")
	[ "$got" -ge "$could" ] && [ "$got" -le $((could + 2)) ] && [ "$got" -lt 50 ] ||
		fail "rank 1 made $got calls, and could make $could by the time rank 0 was done" || return 1
	expect_eq "$(q s.db "SELECT r.bytes / 4096 FROM rank_result r WHERE $on AND r.rank = 0")" 50 "rank 0 did all" || return 1
	expect_eq "$(q s.db "SELECT group_concat(r.stonewall_hit, ' ') FROM (SELECT * FROM rank_result r WHERE $on ORDER BY rank) r")" \
		"0 1" "who was stopped" || return 1
	expect_eq "$(q s.db "SELECT bytes / 4096 FROM result WHERE stonewall = 'off'")" 100 "calls without" || return 1
	# the slow client's tail is not in the stonewalled aggregate: ~55 calls in
	# ~0.12 s against 100 in 1 s
	awk -v a="$(q s.db "SELECT agg_mbps FROM result WHERE stonewall = 'on'")" \
		-v b="$(q s.db "SELECT agg_mbps FROM result WHERE stonewall = 'off'")" 'BEGIN { exit !(a > 2 * b) }' ||
		fail "the stonewalled aggregate is not above twice the other" || return 1
	intervals_fit s.db
}

t_runtime_write_then_read_every_block_written() {
	tmpfs_up fs 1g || return $?
	# a 0.1 s write of 4k calls stops short of 400m (an idle machine wrote
	# 196 MB of 160m in it: at least one rank, not each, must be cut short,
	# and the tmpfs holds both files); the reads after it
	# (time-based too, sequential, random, mixed, and each of another rank's
	# file) read only what was written: the files were laid out to --size
	# first, as fio lays out a time_based job's. Before: "short ... No data
	# available" at the end of the write's bytes
	$MPIRUN -np 2 $ST --target "$T/fs" --runtime 0.1 --size 400m --block 4k --reorder on \
		--phases write,read,randread,rw --verify on --keep on --bind none --db "$T/s.db" --quiet ||
		fail "run failed: $(q s.db "SELECT message FROM rank_result WHERE errno > 0 LIMIT 1")" || { show_ranks s.db; return 1; }
	expect_eq "$(q s.db "SELECT status FROM combo")" ok "combination" || { show_ranks s.db; return 1; }
	expect_eq "$(q s.db "SELECT COUNT(*) || ' ' || SUM(errno > 0) || ' ' || SUM(bad_blocks) FROM rank_result")" \
		"8 0 0" "phases without an error, every block read verified" || { show_ranks s.db; return 1; }
	[ "$(q s.db "SELECT COUNT(*) FROM rank_result WHERE phase = 'write' AND bytes > 0 AND bytes < 400 * 1048576")" -ge 1 ] ||
		fail "no write cut short by --runtime (the test proves nothing)" || { show_ranks s.db; return 1; }
	no_holes "$T/fs" $((400 << 20))
}

t_stonewall_at_3_ranks_then_reads() {
	tmpfs_up fs 1g || return $?
	# rank 2 a slow client (stopped 40 ms of every 50): the first rank done
	# stops its write (and read) short of 48m; the reads that follow read
	# every block of every rank's file, verified. Before: "short ... No data
	# available" where the slow rank's write had stopped
	# (the slow one's, as a rule; under load another may be slower still)
	slow_last_stonewalled 3 s.db $((48 << 20)) "$T/fs" --target "$T/fs" --stonewall on --size 48m \
		--block 4k --phases write,read,randread --verify on --keep on --bind none --quiet ||
		{ show_ranks s.db; return 1; }
	expect_eq "$(q s.db "SELECT COUNT(*) || ' ' || SUM(errno > 0) || ' ' || SUM(bad_blocks) FROM rank_result")" \
		"9 0 0" "phases without an error, every block read verified" || { show_ranks s.db; return 1; }
	expect_eq "$(q s.db "SELECT COUNT(*) FROM rank_result WHERE phase <> 'write' AND bytes > 48 * 1048576")" \
		0 "reads beyond the file" || { show_ranks s.db; return 1; }
	no_holes "$T/fs" $((48 << 20))
}

t_shared_runtime_verified() {
	tmpfs_up fs 2g || return $?
	# 3 ranks x 2 threads, each its region of 80m of one file (segmented and
	# strided), written for 0.1 s: the reads find no hole in any region
	# (before: a rank "read" zeros of regions never written, and --verify
	# failed them)
	$MPIRUN -np 3 $ST --target "$T/fs" --layout shared --access segmented,strided --threads 2 \
		--runtime 0.1 --size 80m --block 4k --phases write,read,randread --verify on --keep on \
		--bind none --db "$T/s.db" --quiet ||
		fail "run failed: $(q s.db "SELECT message FROM rank_result WHERE errno > 0 OR bad_blocks > 0 LIMIT 1")" || { show_ranks s.db; return 1; }
	expect_eq "$(q s.db "SELECT COUNT(*) || ' ' || SUM(errno > 0) || ' ' || SUM(bad_blocks) FROM rank_result")" \
		"18 0 0" "phases without an error, every block read verified" || { show_ranks s.db; return 1; }
	expect_eq "$(q s.db "SELECT COUNT(*) FROM rank_result WHERE phase = 'write' AND bytes < 2 * 80 * 1048576")" \
		6 "writes cut short by --runtime (else this test proves nothing)" || { show_ranks s.db; return 1; }
	no_holes "$T/fs" $((3 * 2 * 80 << 20))
}

t_stonewall_wearout_from_known_rates() {
	# rank 0: 1 ms a call, rank 1: 5 ms (--null-delay-step 4ms), 2 threads
	# each, --runtime 0.5 over a file of 100 blocks (wrapping). Without the
	# stonewall rank 1's threads make ~100 calls to rank 0's ~500; with
	# wearout (IOR -D 0.5 -O stoneWallingWearOut=1) every thread goes on
	# after the 0.5 s to the most any thread had made then: rank 0's
	$MPIRUN -np 2 $ST --engine null --null-delay 1ms --null-delay-step 4ms --block 4k --size 400k \
		--threads 2 --runtime 0.5 --stonewall wearout,off --phases write,read --bind none \
		--db "$T/s.db" --quiet || return 1
	w="combo_id = (SELECT combo_id FROM combo WHERE stonewall = 'wearout')"
	for p in write read; do
		most=$(q s.db "SELECT MAX(ops) FROM thread_result WHERE $w AND phase = '$p'")
		# what rank 0's 1 ms calls fit in 0.5 s, a few lost to the load
		[ "$most" -ge 250 ] && [ "$most" -le 502 ] || fail "$p: the most calls $most, not ~500" || return 1
		expect_eq "$(q s.db "SELECT COUNT(*) || ' ' || MIN(ops) FROM thread_result WHERE $w AND phase = '$p'")" \
			"4 $most" "$p: every thread of both ranks to the most" || return 1
		# rank 1 took ~5 ms a call for them
		q s.db "SELECT (end_ns - start_ns) >= $most * 5000000 * 0.95 FROM rank_result WHERE $w AND phase = '$p' AND rank = 1" |
			grep -qx 1 || fail "$p: rank 1 went on for less than its calls take" || return 1
	done
	o="combo_id = (SELECT combo_id FROM combo WHERE stonewall = 'off')"
	expect_eq "$(q s.db "SELECT r1.ops * 3 < r0.ops FROM rank_result r0 JOIN rank_result r1 USING (combo_id, phase)
		WHERE r0.rank = 0 AND r1.rank = 1 AND r0.$o AND r0.phase = 'write'")" 1 "without: rank 1 far behind" || return 1
	expect_eq "$(q s.db "SELECT COUNT(*) FROM rank_result WHERE errno > 0")" 0 "errors" || return 1
	# wearout goes on after --runtime: without it, refused
	expect_exit 2 $ST --engine null --stonewall wearout --db "$T/x.db" || return 1
	[ ! -e "$T/x.db" ] || fail "a store was made"
}

t_runtime_ramp_and_a_stall() {
	# 2 ranks, a call per ms, a file of 10 blocks: --runtime 2 wraps around it
	# for 2 s after a 0.3 s ramp, in a write and then a read phase; once the
	# write phase is over (its progress line), both ranks are stopped for
	# 0.6 s inside the read phase: those intervals are flagged as stalls, per
	# rank and of all
	$MPIRUN -np 2 $ST --engine null --null-delay 1ms --block 4k --size 40k --phases write,read \
		--runtime 2 --ramp 0.3 --bind none --progress plain --db "$T/s.db" >progress.out 2>&1 &
	job=$!
	# the ranks' PIDs first, during the write phase: their search forks per
	# process (seconds on a loaded machine), and made after the write's line
	# it ate into the 2.3 s the read phase has for the stop to land in
	k=0
	until r0=$(rank_pid $job 0) && r1=$(rank_pid $job 1); do
		k=$((k + 1))
		[ $k -lt 600 ] && kill -0 $job 2>/dev/null || { kill $job; fail "ranks not found"; return 1; }
		sleep 0.05
	done
	k=0
	until grep -q ' : write ' progress.out; do
		k=$((k + 1))
		[ $k -lt 600 ] && kill -0 $job 2>/dev/null || { kill $job; fail "no write phase: $(cat progress.out)"; return 1; }
		sleep 0.05
	done
	sleep 0.8
	kill -STOP "$r0" "$r1"
	sleep 0.6
	kill -CONT "$r0" "$r1"
	wait $job || fail "run: $(tail -5 progress.out)" || return 1
	# the figures start after the ramp (the first call that starts after it)
	# and end with the runtime (the calls in flight then, and the close)
	expect_eq "$(q s.db "SELECT COUNT(*) FROM rank_result WHERE start_ns - release_ns BETWEEN 300000000 AND 400000000")" 4 "ramp left out" || return 1
	expect_eq "$(q s.db "SELECT COUNT(*) FROM rank_result WHERE end_ns - release_ns BETWEEN 2300000000 AND 2800000000")" 4 "runtime" || return 1
	intervals_fit s.db || return 1
	# at least 3 consecutive 100 ms intervals of the read phase stalled on each rank, and of all
	for r in 0 1; do
		n=$(q s.db "SELECT COUNT(*) FROM interval_rank a JOIN interval_rank b USING (combo_id, phase, rank)
			JOIN interval_rank c USING (combo_id, phase, rank) WHERE a.phase = 'read' AND a.rank = $r AND
			b.idx = a.idx + 1 AND c.idx = a.idx + 2 AND a.stall AND b.stall AND c.stall")
		[ "$n" -ge 1 ] || fail "rank $r: no three stalled intervals in a row" || return 1
	done
	[ "$(q s.db "SELECT COUNT(*) FROM interval_summary WHERE phase = 'read' AND stall")" -ge 3 ] ||
		fail "no stall of all clients" || return 1
	# the report and the page say so
	[ "$($ST report --db s.db --format json | python3 -c 'import json,sys; print([r["stalls"] >= 6 for r in json.load(sys.stdin)["rows"] if r["phase"] == "read"])')" = "[True]" ] ||
		fail "report: stalls" || return 1
	$ST report --db s.db --html page.html || return 1
	grep -q '<h2>Throughput over time</h2>' page.html && [ "$(grep -c 'class="stall"' page.html)" -ge 9 ] ||
		fail "the page draws no stalls" || return 1
}

t_stalls_at_low_call_rates() {
	# a stall is the rank's own: no call ended for 4 of its mean times
	# between calls (or far fewer than its rate, where an interval holds >= 4
	# calls). 2 threads of 190 ms calls end together: intervals of 2, 0, 2, 0
	# calls (1.05 an interval, a 1 MiB write's rate at wsize 64k), steady:
	# none flagged (half the median flagged every empty one, 15 of 31), nor
	# the last, partial interval of the time-based phase
	$ST --engine null --null-delay 190ms --threads 2 --block 1m --size 1g --runtime 3 --phases write \
		--bind none --db "$T/s.db" --quiet || return 1
	expect_eq "$(q s.db "SELECT SUM(ops = 0) >= 5, SUM(stall) FROM interval_rank")" "1|0" \
		"empty intervals in a steady phase, and the stalls flagged" || return 1
	expect_eq "$(q s.db "SELECT full, stall FROM interval_rank ORDER BY idx DESC LIMIT 1")" "0|0" \
		"the last interval: partial, not a stall" || return 1
	expect_eq "$(q s.db "SELECT COUNT(*) FROM interval_summary WHERE stall")" 0 "stalls of all clients" || return 1
	# the same with the rank stopped for 1.2 s, 1 s into the read phase
	# (after the write's progress line): the empty intervals in a row around
	# the stop are flagged, and nothing else
	$MPIRUN -np 1 $ST --engine null --null-delay 190ms --threads 2 --block 1m --size 1g --runtime 4 \
		--phases write,read --bind none --progress plain --db "$T/p.db" >progress.out 2>&1 &
	job=$!
	k=0
	until grep -q ' : write ' progress.out; do
		k=$((k + 1))
		[ $k -lt 600 ] && kill -0 $job 2>/dev/null || { kill $job; fail "no write phase: $(cat progress.out)"; return 1; }
		sleep 0.05
	done
	sleep 1
	r0=$(rank_pid $job 0) || { kill $job; fail "rank not found"; return 1; }
	kill -STOP "$r0"
	t0=$(date +%s%N)
	sleep 1.2
	kill -CONT "$r0"
	stopped=$(since_ms "$t0")
	wait $job || fail "run: $(tail -5 progress.out)" || return 1
	intervals_fit p.db || return 1
	got=$(q p.db "SELECT COUNT(*), MAX(idx) - MIN(idx) + 1, SUM(ops), MIN(phase) FROM interval_rank WHERE stall")
	n=${got%%|*}
	[ "$n" -ge 10 ] && [ "$n" -le $((stopped / 100 + 3)) ] && [ "$got" = "$n|$n|0|read" ] ||
		fail "stopped $stopped ms: stalls, their span in intervals, their calls: $got" || return 1
	expect_eq "$(q p.db "SELECT COUNT(*) FROM interval_summary WHERE stall")" "$n" "stalls of all clients (the one)"
}

t_phase_tail_is_an_interval_of_its_own() {
	# 10 calls of 100 ms and an fsync of one more (the null engine's): the
	# write phase's last 100 ms have no call, and are its tail, a row of
	# their own (issue 20: the COMMIT and close of a libnfs write were in no
	# interval, and its chart showed 350 MB/s where the phase's figure was
	# 209); the read phase's close is a few us, under 1 % of it: no tail
	$MPIRUN -np 2 $ST --engine null --null-delay 100ms --block 4k --size 40k --fsync on \
		--phases write,read --bind none --db "$T/s.db" --quiet || return 1
	intervals_fit s.db || return 1
	expect_eq "$(q s.db "SELECT phase || ':' || COUNT(*) || ':' || SUM(ops) FROM interval_rank WHERE tail GROUP BY phase")" \
		"write:2:0" "tails, and their calls" || return 1
	# each rank's tail: ~one delay, ending with the rank; its rows tile the
	# phase without a gap, and their rate is the rank's bytes over the time
	# from the series' start to the rank's end, within the 1 % a tail not
	# stored may leave out (the rank's own start, its open, may come some ms
	# after the series' start under load)
	bad=$(q s.db "SELECT COUNT(*) FROM interval_rank i JOIN rank_result r USING (combo_id, phase, rank)
		WHERE i.tail AND NOT (i.end_ns = r.end_ns AND i.end_ns - i.t_ns >= 50000000 AND NOT i.full
		AND NOT i.stall)")
	expect_eq "$bad" 0 "tails not from the last call to the rank's end ($(q s.db "SELECT group_concat(
		i.rank || ': ' || (i.end_ns - r.end_ns) || ' ns from the end, ' || (i.end_ns - i.t_ns) || ' ns wide, full '
		|| i.full || ', stall ' || i.stall, '; ') FROM interval_rank i JOIN rank_result r USING (combo_id, phase, rank)
		WHERE i.tail"))" || return 1
	bad=$(q s.db "SELECT COUNT(*) FROM (SELECT combo_id, phase, rank, SUM(end_ns - t_ns) AS covered,
		MIN(t_ns) AS t0, MAX(end_ns) - MIN(t_ns) AS span, SUM(bytes) * 1.0 / SUM(end_ns - t_ns) AS rate
		FROM interval GROUP BY 1, 2, 3) i JOIN rank_result r USING (combo_id, phase, rank)
		WHERE i.covered <> i.span OR ABS(i.rate / (r.bytes * 1.0 / (r.end_ns - i.t0)) - 1) > 0.0101")
	expect_eq "$bad" 0 "rank-phases whose intervals miss part of it, or whose rate is not its figure's" || return 1
	expect_eq "$(q s.db "SELECT COUNT(*) || ':' || SUM(clients) || ':' || SUM(stall) FROM interval_summary WHERE tail")" \
		"1:2:0" "all clients' tail" || return 1
}

t_sets_and_tied_sizes() {
	# two option sets x two blocks, and rwsize as one dimension: the matrix
	# and the store's columns
	$ST --engine null --dry-run --block 4k,8k --set 'block=16k,threads=2' --set 'threads=3' >sets.out 2>&1 &&
		fail "--block given as an option and in a set must be refused" || true
	$ST --engine null --dry-run --size 1m,2m --set 'block=16k,threads=2' --set 'threads=3' --db "$T/s.db" >sets.out || return 1
	grep -q '^4 combinations' sets.out || fail "dry run: $(head -1 sets.out)" || return 1
	grep -q 'block=16k size=1m threads=2' sets.out && grep -q 'block=1m size=2m threads=3' sets.out ||
		fail "dry run lists: $(cat sets.out)" || return 1
	$ST --engine null --size 1m,2m --set 'block=16k,threads=2' --set 'threads=3' --db "$T/s.db" --quiet || return 1
	expect_eq "$(q s.db "SELECT group_concat(\"set\" || ':' || block || ':' || threads, ' ') FROM (SELECT * FROM combo ORDER BY seq)")" \
		"block=16k,threads=2:16384:2 threads=3:1048576:3 block=16k,threads=2:16384:2 threads=3:1048576:3" "sets stored" || return 1
	expect_eq "$(q s.db "SELECT COUNT(*) FROM result WHERE phase = 'write' AND bytes = threads * size")" 4 "bytes" || return 1
	$ST --engine null --dry-run --rwsize 64k,1m --iodepth 2 --db "$T/s.db" >rw.out || return 1
	grep -q 'rsize=64k wsize=64k' rw.out && grep -q 'rsize=1m wsize=1m' rw.out || fail "rwsize: $(cat rw.out)"
}
