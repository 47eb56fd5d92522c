# Nothing stored is ever lost: rank 0 killed in the middle of commits, again
# and again; several runs writing one store at once.

t_kill_rank0_during_commits() {
	n=100
	case "$ST" in *build-san*) n=10 ;; esac # the sanitizer build starts ~10x slower (100 on the normal build)
	# a store to begin with, so every kill below lands on a live store
	$ST --engine null --block 4k --size 8k --phases write,read --db "$T/s.db" --quiet || return 1
	i=0
	while [ $i -lt $n ]; do
		had=$(q s.db 'SELECT COUNT(*) FROM combo')
		$ST --engine null --block 4k --size 8k --threads 1,2,3,4,5,6,7,8 --iterations 50 \
			--phases write,read --db "$T/s.db" --quiet >/dev/null 2>&1 &
		pid=$!
		# once it commits, kill it a different few ms later each time
		k=0
		while [ "$(q s.db 'SELECT COUNT(*) FROM combo')" = "$had" ] && [ $k -lt 400 ] &&
			kill -0 $pid 2>/dev/null; do
			sleep 0.05
			k=$((k + 1))
		done
		sleep "0.0$(( (i * 37) % 10 ))"
		kill -9 $pid 2>/dev/null
		wait $pid 2>/dev/null
		i=$((i + 1))
	done
	expect_eq "$(q s.db 'PRAGMA integrity_check')" ok "integrity after $n kills" || return 1
	stored=$(q s.db 'SELECT COUNT(*) FROM combo')
	[ "$stored" -gt 0 ] || fail "no combination was ever committed" || return 1
	# exactly what was committed: every stored combination is whole
	expect_eq "$(q s.db "SELECT COUNT(*) FROM combo c WHERE (SELECT COUNT(*) FROM rank_result r WHERE r.combo_id = c.combo_id) <> 2
		OR (SELECT COUNT(*) FROM phase_run p WHERE p.combo_id = c.combo_id) <> 2
		OR (SELECT COUNT(*) FROM thread_result t WHERE t.combo_id = c.combo_id) <> 2 * c.threads")" 0 "partial combinations" || return 1
	expect_eq "$(q s.db 'SELECT COUNT(*) FROM rank_result WHERE combo_id NOT IN (SELECT combo_id FROM combo)')" 0 "orphan rows" || return 1
	# every combination committed with its hash, every killed run's hashes match its rows
	expect_eq "$(q s.db 'SELECT COUNT(*) FROM combo WHERE row_hash IS NULL')" 0 "combinations without a hash" || return 1
	for run in $(q s.db 'SELECT run_id FROM run'); do
		ASAN_OPTIONS="fast_unwind_on_malloc=1:detect_leaks=0" $ST audit "$run" --db s.db >audit.out ||
			fail "audit of killed run $run: $(grep -v '^ok ' audit.out)" || return 1
	done
	echo "$n kills, $stored combinations stored"
	$ST runs --db s.db >/dev/null || fail "the store does not open"
}

t_concurrent_runs_share_a_store() {
	# six runs, started a little apart, so that some open the store while
	# others are closing it (and switching it out of WAL)
	for k in 1 2 3 4 5 6; do
		sleep 0.0$k
		$ST --engine null --null-delay 200us --block 4k --size 32k --threads 1,2,3 --iterations 4 \
			--label "run $k" --db "$T/s.db" --quiet >out.$k 2>&1 &
		eval "pid$k=\$!"
	done
 	for k in 1 2 3 4 5 6; do
		eval "wait \$pid$k" || fail "run $k failed: $(cat out.$k)" || return 1
	done
	expect_eq "$(q s.db "SELECT COUNT(*) FROM run WHERE status = 'complete'")" 6 "complete runs" || return 1
	expect_eq "$(q s.db 'SELECT COUNT(*) FROM combo')" 72 "every combination of every run" || return 1
	expect_eq "$(q s.db 'PRAGMA integrity_check')" ok "integrity"
}
