# Figures against an oracle: the null engine makes every call take a known
# time on an absolute schedule, so the aggregate of a phase is known in
# advance: clients x threads x size / (calls per thread x delay).

t_null_engine_aggregate_matches_the_delays() {
	# 3 ranks x 2 threads, 100 calls of 4 KiB at 2 ms each: 0.2 s per phase
	# aggregate = 3 * 2 * 409600 B / 0.2 s = 12.288 MB/s; IOPS = 600 / 0.2 s = 3000
	$MPIRUN -np 3 $ST --engine null --null-delay 2ms --block 4k --size 400k --threads 2 \
		--phases write,read --bind none --db "$T/s.db" --quiet || return 1
	for phase in write read; do
		agg=$(q s.db "SELECT agg_mbps FROM phase_summary WHERE phase = '$phase'")
		# tolerance 5 %: barrier-release skew and thread wake-up (< 1 ms here)
		# are the only time not in the schedule, against 200 ms of phase
		within "$agg" 12.288 5 "$phase aggregate MB/s" || return 1
		iops=$(q s.db "SELECT iops FROM phase_summary WHERE phase = '$phase'")
		within "$iops" 3000 5 "$phase IOPS" || return 1
		for r in 0 1 2; do
			c=$(q s.db "SELECT mbps FROM client_result WHERE phase = '$phase' AND rank = $r")
			within "$c" 4.096 5 "$phase rank $r MB/s" || return 1
		done
		# each call lasts one delay (plus a wake-up): p50 within a bucket of 2 ms
		p50=$(q s.db "SELECT lat_p50_ns FROM phase_summary WHERE phase = '$phase'")
		within "$p50" 2000000 10 "$phase p50 latency" || return 1
		f=$(q s.db "SELECT fairness FROM phase_summary WHERE phase = '$phase'")
		within "$f" 1 5 "$phase fairness" || return 1
	done
	# the skew and clock offsets are stored and small against the phase
	skew=$(q s.db "SELECT MAX(skew_ns) FROM phase_run")
	[ "$skew" -lt 20000000 ] || fail "barrier-release skew $skew ns"
}

t_null_engine_uneven_clients() {
	# the same delays, but a 3:1 imbalance in size between two runs shows
	# the per-client spread: one combination with 100 calls, one with 300
	$MPIRUN -np 2 $ST --engine null --null-delay 1ms --block 4k --size 400k,1200k --threads 1 \
		--phases write --bind none --db "$T/s.db" --quiet || return 1
	a=$(q s.db "SELECT s.agg_mbps FROM phase_summary s JOIN combo c USING (combo_id) WHERE c.size = 409600")
	b=$(q s.db "SELECT s.agg_mbps FROM phase_summary s JOIN combo c USING (combo_id) WHERE c.size = 1228800")
	# both: 2 x 4096 B / 1 ms = 8.192 MB/s, whatever the size
	within "$a" 8.192 5 "aggregate at 400k" || return 1
	within "$b" 8.192 5 "aggregate at 1200k"
}

t_iodepth_keeps_reads_in_flight() {
	# every call takes 2 ms; with --iodepth 8 the worker announces the next 7
	# blocks (sequential and random order alike) and 8 calls are in flight:
	# 100 reads take ~100/8 + 1 delays instead of 100
	$ST --engine null --null-delay 2ms --block 4k --size 400k --iodepth 1,8 \
		--phases write,read,randread --db "$T/s.db" --quiet || return 1
	for phase in read randread; do
		one=$(q s.db "SELECT agg_mbps FROM result WHERE iodepth = 1 AND phase = '$phase'")
		eight=$(q s.db "SELECT agg_mbps FROM result WHERE iodepth = 8 AND phase = '$phase'")
		within "$one" 2.048 5 "$phase at depth 1" || return 1
		awk -v a="$eight" -v b="$one" 'BEGIN { r = a / b; exit !(r > 6 && r < 8.2) }' ||
			fail "$phase: depth 8 gave $eight MB/s against $one at depth 1" || return 1
		# each call's latency is its issue to its completion, one delay at either
		# depth: not the wait for a block already read ahead (near 0 at depth 8)
		for d in 1 8; do
			p50=$(q s.db "SELECT lat_p50_ns FROM result WHERE iodepth = $d AND phase = '$phase'")
			within "$p50" 2000000 10 "$phase p50 latency at depth $d" || return 1
		done
	done
	expect_eq "$(q s.db "SELECT COUNT(*) FROM rank_result WHERE errno <> 0")" 0 "errors"
}
