# Many ranks against rank 0's limits (issue 14): a lifeline per rank.

# Rank 0 holds one descriptor per rank's lifeline: with its soft limit at the ranks' count
# (1024 by default, below a 1,024-rank job's need) it raises the limit itself, takes every
# lifeline and the job ends in order (before, the lifelines it could not accept were reset
# at its end, and those ranks ended with "rank 0 is gone": exit 3, the run left running).
t_lifelines_beyond_the_soft_descriptor_limit() {
	mkdir t
	$MPIRUN -np 20 sh -c 'if [ "$OMPI_COMM_WORLD_RANK" = 0 ]; then ulimit -Sn 20; fi; exec "$0" "$@"' \
		$ST --engine null --block 4k --size 8k --phases write --target "$T/t" --db "$T/s.db" \
		--quiet >out 2>&1 || fail "the job (exit $?): $(tail -5 out)" || return 1
	expect_eq "$(q s.db "SELECT status || ' ' || nranks FROM run")" "complete 20" "the run" || return 1
	! grep -q "rank 0 is gone" out || fail "a rank lost its lifeline: $(grep -m1 'gone' out)"
}
