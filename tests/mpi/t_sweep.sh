# Real MPI jobs on this host: the store holds exactly the expected
# combinations, one rank_result per rank and phase, the bytes add up,
# and nothing is left in the target.

t_posix_sweep_1_to_4_ranks() {
	mkdir target
	for np in 1 2 3 4; do
		db="$T/s$np.db"
		$MPIRUN -np $np $ST --target "$T/target" --block 4k,64k --threads 1,2 --size 128k \
			--phases write,rewrite,read,reread,randread,randwrite --db "$db" --quiet ||
			fail "np=$np: run failed" || return 1
		expect_eq "$(q "$db" 'SELECT COUNT(*) FROM combo')" 4 "np=$np combinations" || return 1
		expect_eq "$(q "$db" "SELECT COUNT(*) FROM combo WHERE status = 'ok'")" 4 "np=$np ok" || return 1
		expect_eq "$(q "$db" 'SELECT COUNT(*) FROM rank_result')" $((4 * 6 * np)) "np=$np rank rows" || return 1
		expect_eq "$(q "$db" 'SELECT COUNT(*) FROM (SELECT DISTINCT combo_id, phase, rank FROM rank_result)')" \
			$((4 * 6 * np)) "np=$np one row per rank and phase" || return 1
		# threads 1 and 2, 6 phases, np ranks, 2 block sizes
		expect_eq "$(q "$db" 'SELECT COUNT(*) FROM thread_result')" $((2 * 6 * np * 3)) "np=$np thread rows" || return 1
		expect_eq "$(q "$db" 'SELECT COUNT(*) FROM phase_summary s JOIN combo c USING (combo_id)
			WHERE s.bytes <> '$np' * c.threads * c.size OR s.clients <> '$np'')" 0 "np=$np bytes = clients x threads x size" || return 1
		expect_eq "$(q "$db" 'SELECT COUNT(*) FROM host')" $np "np=$np hosts" || return 1
		expect_eq "$(q "$db" 'SELECT status FROM run')" complete "np=$np run status" || return 1
		expect_eq "$(q "$db" 'SELECT COUNT(*) FROM thread_result WHERE cpuset IS NULL OR cpuset = ""')" 0 "np=$np bindings stored" || return 1
		expect_eq "$(ls -A "$T/target")" "" "np=$np target left clean" || return 1
	done
	# reorder: with several ranks every rank reads another rank's files
	expect_eq "$(q "$T/s3.db" 'SELECT COUNT(*) FROM host WHERE read_partner = rank')" 0 "partners differ"
}

t_dry_run_lists_and_creates_nothing() {
	out=$($ST --dry-run --block 4k,1m --threads 1,2,4 --iterations 2 --db "$T/s.db") || return 1
	echo "$out" | head -1 | grep -q "^6 combinations x 2 iterations = 12 runs" || fail "header: $(echo "$out" | head -1)" || return 1
	expect_eq "$(echo "$out" | grep -c 'block=')" 6 "combination lines" || return 1
	echo "$out" | grep -q "block=1m size=64m threads=4" || fail "a combination is missing" || return 1
	[ ! -e "$T/s.db" ] || fail "dry run created the store"
}

t_plan_file_and_iterations() {
	mkdir target
	cat >plan.conf <<PLAN
target = $T/target
block = 16k,32k
size = 64k
phases = write,read
iterations = 3
label = from a plan
PLAN
	$MPIRUN -np 2 $ST --plan plan.conf --db "$T/s.db" --threads 2 --quiet || return 1
	expect_eq "$(q s.db 'SELECT COUNT(*) FROM combo')" 6 "2 combinations x 3 iterations" || return 1
	expect_eq "$(q s.db 'SELECT COUNT(DISTINCT matrix_index) FROM combo')" 2 "matrix indexes" || return 1
	expect_eq "$(q s.db 'SELECT MAX(iteration) FROM combo')" 2 "iterations" || return 1
	expect_eq "$(q s.db 'SELECT DISTINCT threads FROM combo')" 2 "command line wins over the plan" || return 1
	expect_eq "$(q s.db 'SELECT label FROM run')" "from a plan" "label" || return 1
	q s.db 'SELECT plan FROM run' | grep -q '^block = 16k,32k$' || fail "effective plan not stored"
}

t_stcluster_conf_reaches_every_rank() {
	# no arguments at all: rank 0 reads ./stcluster.conf, and every rank must
	# run what it says (ranks other than 0 once parsed the command line
	# alone, took the default posix engine and crashed); at 1, 2 and 4
	# ranks here, across the lab's hosts in t_lab.sh
	mkdir w && cd w || return 1
	printf 'engine = null\nblock = 4k, 8k\nsize = 16k\nthreads = 2\ndb = ./c.db\nquiet = on\n' >stcluster.conf
	for np in 1 2 4; do
		$MPIRUN -np $np $ST || fail "mpirun -np $np stcluster with ./stcluster.conf" || return 1
		run=$(q c.db "SELECT run_id FROM run WHERE nranks = $np")
		expect_eq "$(q c.db "SELECT GROUP_CONCAT(status) FROM combo WHERE run_id = '$run'")" "ok,ok" "np=$np combinations" || return 1
		expect_eq "$(q c.db "SELECT COUNT(*) FROM rank_result JOIN combo USING (combo_id) WHERE run_id = '$run'
			AND role = 'client' AND bytes = 2 * 16384")" $((2 * 2 * np)) \
			"np=$np: 2 combinations x $np ranks x write, read: 2 threads x 16k each" || return 1
		expect_eq "$(q c.db "SELECT engine FROM run WHERE run_id = '$run'")" null "np=$np: the run's engine" || return 1
	done
}

t_skipped_combination_is_stored() {
	$ST --engine null --block 4k,48k --size 64k --db "$T/s.db" --quiet || return 1
	expect_eq "$(q s.db "SELECT status || ': ' || message FROM combo WHERE block = 49152")" \
		"skipped: size=64k is not a multiple of block=48k" "skip reason" || return 1
	expect_eq "$(q s.db "SELECT status FROM combo WHERE block = 4096")" ok "the other one ran"
}

t_failed_preparation_on_one_rank() {
	# the run goes on through every combination, and exits 1: some failed
	expect_exit 1 $MPIRUN -np 3 $ST --engine null --block 4k --size 16k --threads 1,2 --null-fail-setup 1 \
		--db "$T/s.db" >out 2>err || return 1
	expect_eq "$(q s.db "SELECT COUNT(*) FROM combo WHERE status = 'failed'")" 2 "failed combos" || return 1
	expect_eq "$(q s.db "SELECT rank || ' ' || errno_name || ' ' || op FROM combo_failure LIMIT 1")" "1 EIO prepare" "failure per rank" || return 1
	expect_eq "$(q s.db 'SELECT COUNT(*) FROM rank_result')" 0 "no phase ran" || return 1
	grep -q "rank 1 .*injected setup failure" out || fail "the report names the rank"
}

t_phase_errors_recorded_per_rank() {
	expect_exit 1 $MPIRUN -np 2 $ST --engine null --block 4k --size 64k --null-error ENOSPC --null-error-at 3 \
		--phases write,read --db "$T/s.db" --quiet || return 1
	# each thread's 4th call fails: 3 blocks written; the read's calls (5th on) all work
	expect_eq "$(q s.db "SELECT phase, rank, errno_name, err_op, err_offset, bytes FROM rank_result ORDER BY phase DESC, rank" | tr '\n' ' ')" \
		"write|0|ENOSPC|write|12288|12288 write|1|ENOSPC|write|12288|12288 read|0||||65536 read|1||||65536 " \
		"errors per rank" || return 1
	expect_eq "$(q s.db "SELECT status FROM combo")" error "combination status" || return 1
	expect_eq "$(q s.db "SELECT status FROM phase_run WHERE phase = 'write'")" error "phase status"
}

t_real_enospc_on_small_tmpfs() {
	# a 2 MiB tmpfs: 2 ranks x 4m cannot fit (ENOSPC), 2 x 256k can, but only
	# if the first combination's partial files were removed
	mkdir small
	mount -t tmpfs -o size=2m tmpfs "$T/small" || fail "mount tmpfs" || return 1
	trap 'umount "$T/small" 2>/dev/null' EXIT
	free0=$(stat -f -c %f "$T/small")
	# a full file system ends no run: every combination is stored, exit 1
	expect_exit 1 $MPIRUN -np 2 $ST --engine posix --target "$T/small" --size 4m,256k --block 64k \
		--phases write,read --db "$T/s.db" --quiet || return 1
	big="combo_id = (SELECT combo_id FROM combo WHERE size = 4194304)"
	# which rank fills the file system first is a race: at least one rank
	# hit ENOSPC, and every write error is ENOSPC (28) from write, also when
	# it came part-way through a block; the message names file and offset
	expect_eq "$(q s.db "SELECT COUNT(*) > 0 FROM rank_result WHERE $big AND phase = 'write' AND errno <> 0")" 1 \
		"a rank hit ENOSPC" || return 1
	expect_eq "$(q s.db "SELECT GROUP_CONCAT(DISTINCT errno || ' ' || errno_name || ' ' || err_op)
		FROM rank_result WHERE $big AND phase = 'write' AND errno <> 0")" "28 ENOSPC write" "write errors" || return 1
	expect_eq "$(q s.db "SELECT COUNT(*) FROM rank_result WHERE $big AND phase = 'write' AND errno <> 0
		AND (message NOT LIKE '%r' || rank || '.t0 at offset ' || err_offset || ': No space left on device'
		     OR err_offset <> bytes)")" 0 "message names the file and the offset reached" || return 1
	# a rank without an error wrote its whole file; together no more than 2 MiB
	expect_eq "$(q s.db "SELECT COUNT(*) FROM rank_result WHERE $big AND phase = 'write' AND errno = 0 AND bytes <> 4194304")" 0 \
		"ranks without an error wrote everything" || return 1
	expect_eq "$(q s.db "SELECT SUM(bytes) <= 2097152 FROM rank_result WHERE $big AND phase = 'write'")" 1 "bytes written" || return 1
	# both files are short, so both reads end early: ENODATA from a short read
	expect_eq "$(q s.db "SELECT GROUP_CONCAT(errno_name || ' ' || err_op, ', ') FROM rank_result WHERE $big AND phase = 'read'")" \
		"ENODATA short, ENODATA short" "reads of the short files" || return 1
	expect_eq "$(q s.db "SELECT status || ' ' || (SELECT GROUP_CONCAT(status) FROM phase_run WHERE $big ORDER BY phase)
		FROM combo WHERE $big")" "error error,error" "first combination" || return 1
	# the next combination ran, in the space the first one's files had taken
	expect_eq "$(q s.db "SELECT status FROM combo WHERE size = 262144")" ok "second combination" || return 1
	expect_eq "$(q s.db "SELECT COUNT(*) || ' ' || SUM(bytes) || ' ' || SUM(errno) FROM rank_result JOIN combo USING (combo_id)
		WHERE size = 262144")" "4 1048576 0" "second combination: 2 ranks x 2 phases x 256k, no error" || return 1
	expect_eq "$(q s.db "SELECT status FROM run")" complete "run status" || return 1
	# nothing stcluster created is left, and all the space is back
	expect_eq "$(ls -A small)" "" "tmpfs left empty" || return 1
	expect_eq "$(stat -f -c %f "$T/small")" "$free0" "free blocks after the run" || return 1
	umount "$T/small"
}

t_shuffle_orders_and_resume_finishes() {
	# 3 x 2 combinations x 2 iterations, shuffled: every (index, iteration) once
	$ST --engine null --block 4k,8k,16k --threads 1,2 --size 16k --iterations 2 --shuffle 7 \
		--db "$T/s.db" --quiet || return 1
	expect_eq "$(q s.db 'SELECT COUNT(DISTINCT matrix_index || "/" || iteration) FROM combo')" 12 "every combination and iteration once" || return 1
	order=$(q s.db 'SELECT matrix_index || "/" || iteration FROM combo ORDER BY seq' | tr '\n' ' ')
	[ "$order" != "0/0 0/1 1/0 1/1 2/0 2/1 3/0 3/1 4/0 4/1 5/0 5/1 " ] || fail "not shuffled: $order" || return 1
	# the same seed gives the same order
	$ST --engine null --block 4k,8k,16k --threads 1,2 --size 16k --iterations 2 --shuffle 7 \
		--db "$T/t.db" --quiet || return 1
	expect_eq "$(q t.db 'SELECT matrix_index || "/" || iteration FROM combo ORDER BY seq' | tr '\n' ' ')" "$order" "same seed, same order" || return 1

	# an interrupted run: remove the last 5 combinations and mark it running, as a
	# crash after 7 commits leaves it; --resume stores exactly the 5 missing ones
	run=$(q s.db 'SELECT run_id FROM run')
	cut_run s.db 7
	before=$(q s.db 'SELECT GROUP_CONCAT(combo_id) FROM combo ORDER BY seq')
	$ST --resume "$run" --db "$T/s.db" --block 1m 2>err; expect_eq $? 2 "resume with options" || return 1
	grep -q -- "--block: a resumed run keeps its stored options" err || fail "message: $(cat err)" || return 1
	$ST --resume "$(echo "$run" | cut -c1-8)" --db "$T/s.db" --quiet || fail "resume" || return 1
	expect_eq "$(q s.db 'SELECT COUNT(*) FROM combo')" 12 "all combinations after resume" || return 1
	expect_eq "$(q s.db 'SELECT matrix_index || "/" || iteration FROM combo ORDER BY seq' | tr '\n' ' ')" "$order" "the resumed order" || return 1
	expect_eq "$(q s.db 'SELECT GROUP_CONCAT(combo_id) FROM combo WHERE seq < 7 ORDER BY seq')" "$before" "stored ones untouched" || return 1
	expect_eq "$(q s.db 'SELECT status FROM run')" complete "status" || return 1
	expect_eq "$(q s.db 'SELECT COUNT(*) FROM run')" 1 "one run" || return 1
	# nothing left to resume; other options are refused
	$ST --resume "$run" --db "$T/s.db" 2>err; expect_eq $? 2 "resume of a complete run" || return 1
	grep -q "is complete" err || fail "message: $(cat err)"
}

t_progress_live_plain_none() {
	# plain (not a terminal): one line per finished phase
	$MPIRUN -np 2 $ST --engine null --null-delay 1ms --block 4k --size 64k --threads 1,2 \
		--phases write,read --db "$T/s.db" >plain.out || return 1
	expect_eq "$(grep -c '^\[[12]/2\] .* : \(write\|read\) [0-9.]* MB/s$' plain.out)" 4 "plain lines" || return 1
	# live: an updating line with the phase, the live aggregate and the ETA
	$MPIRUN -np 2 $ST --engine null --null-delay 2ms --block 4k --size 512k --threads 1,2 \
		--phases write,read --progress live --db "$T/s.db" >live.out || return 1
	grep -q "$(printf '\r\033\\[K')\[2/2\] write .* MB/s  ETA [0-9]" live.out || fail "no live line: $(head -c 300 live.out | od -c | head)" || return 1
	# none
	$MPIRUN -np 2 $ST --engine null --block 4k --size 64k --progress none --quiet --db "$T/s.db" >none.out || return 1
	expect_eq "$(wc -c <none.out)" 0 "quiet output"
}
