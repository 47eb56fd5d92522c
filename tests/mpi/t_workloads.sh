# Issue 13's workloads on this host: the metadata phases, the shared file,
# the data patterns, the mixed phases, time-based phases with ramp and the
# stonewall, throughput over time and its stalls, option sets. Oracles with
# the null engine (every call takes a known time), real runs on a tmpfs the
# test mounts (the libnfs/ganesha ones are in t_nfs.sh).

# tmpfs_up DIR: a private tmpfs on $T/DIR (root), gone when the test ends
tmpfs_up() {
	mkdir -p "$T/$1"
	mount -t tmpfs -o size=256m tmpfs "$T/$1" || { echo "cannot mount a tmpfs (root?)"; return 77; }
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
	# file-per-thread with access: the same work as without, stored once as skipped
	$ST --target "$T/fs" --layout file-per-thread,shared --access strided --phases write \
		--size 64k --block 64k --db "$T/s2.db" --quiet || return 1
	expect_eq "$(q s2.db "SELECT status || ': ' || message FROM combo WHERE layout = 'file-per-thread'")" \
		"skipped: access=strided: only with layout=shared (a file per thread is one piece)" "skipped"
}

t_data_patterns_compress_and_dedupe() {
	tmpfs_up fs || return $?
	# every pattern is verified on read; compress:50's file compresses 2:1 with
	# zlib (python's, Debian's zlib1g) per 128 KiB record, dedupe:50's 4k chunks
	# dedupe 2:1
	$ST --target "$T/fs" --data zero,random,compress:50,dedupe:50,compress:50+dedupe:50 \
		--block 64k --size 1m --phases write,read --verify on --db "$T/s.db" --quiet || return 1
	expect_eq "$(q s.db "SELECT COUNT(*) || ' ' || SUM(bad_blocks) FROM rank_result WHERE phase = 'read'")" "5 0" "verified" || return 1
	expect_eq "$(q s.db "SELECT group_concat(data, ' ') FROM (SELECT data FROM combo ORDER BY seq)")" \
		"zero random compress:50 dedupe:50 compress:50+dedupe:50" "stored patterns" || return 1
	for d in compress:50 dedupe:50 random; do
		rm -rf "$T/fs"/stcluster-*
		$ST --target "$T/fs" --data $d --block 64k --size 4m --phases write --keep on \
			--db "$T/k.db" --quiet || return 1
		python3 - "$d" "$T"/fs/stcluster-*/c0/r0.t0 <<'EOF' || return 1
import sys, zlib
want, path = sys.argv[1], sys.argv[2]
data = open(path, 'rb').read()
assert len(data) == 4 << 20, len(data)
rec = 128 << 10
z = len(data) / sum(len(zlib.compress(data[i:i + rec], 6)) for i in range(0, len(data), rec))
chunks = [data[i:i + 4096] for i in range(0, len(data), 4096)]
d = len(chunks) / len(set(chunks))
print('    %s: zlib %.3f:1, dedupe %.3f:1' % (want, z, d))
if want == 'compress:50':
    assert abs(z - 2.0) <= 0.1 and d == 1.0, (z, d)
elif want == 'dedupe:50':
    assert abs(d - 2.0) <= 0.02, d
else:
    assert z < 1.01 and d == 1.0, (z, d)
EOF
	done
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

t_runtime_ramp_and_a_stall() {
	# 2 ranks, a call per ms, a file of 10 blocks: --runtime 2 wraps around it
	# for 2 s after a 0.3 s ramp, in a write and then a read phase; once the
	# write phase is over (its progress line), both ranks are stopped for
	# 0.6 s inside the read phase: those intervals are flagged as stalls, per
	# rank and of all
	$MPIRUN -np 2 $ST --engine null --null-delay 1ms --block 4k --size 40k --phases write,read \
		--runtime 2 --ramp 0.3 --bind none --progress plain --db "$T/s.db" >progress.out 2>&1 &
	job=$!
	k=0
	until grep -q ' : write ' progress.out; do
		k=$((k + 1))
		[ $k -lt 600 ] && kill -0 $job 2>/dev/null || { kill $job; fail "no write phase: $(cat progress.out)"; return 1; }
		sleep 0.05
	done
	sleep 0.8
	r0=$(rank_pid $job 0) && r1=$(rank_pid $job 1) || { kill $job; fail "ranks not found"; return 1; }
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
	[ "$($ST report --db s.db --format json | python3 -c 'import json,sys; print([r["stalls"] >= 6 for r in json.load(sys.stdin) if r["phase"] == "read"])')" = "[True]" ] ||
		fail "report: stalls" || return 1
	$ST report --db s.db --html page.html || return 1
	grep -q '<h2>Throughput over time</h2>' page.html && [ "$(grep -c 'class="stall"' page.html)" -ge 9 ] ||
		fail "the page draws no stalls" || return 1
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
