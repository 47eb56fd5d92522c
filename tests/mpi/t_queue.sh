# The posix engine's --iodepth queue (worker/posix_aio.c) in real jobs: on a tmpfs of the test's
# own, with the kernel refusing io_uring (and libaio) to the job, with the kernel refusing to
# register its buffers, and on a host without liburing and libaio.

# refuse WHAT CMD...: CMD with the kernel refusing io_uring_setup (EPERM), and with WHAT=both
# io_setup too (ENOSYS): a seccomp filter (python3-seccomp) on this process and what it runs,
# as kernel.io_uring_disabled=2 would refuse it to every process of the machine
refuse() {
	what=$1
	shift
	/usr/bin/python3 - "$what" "$@" <<'EOF'
import errno, os, sys
import seccomp
f = seccomp.SyscallFilter(defaction=seccomp.ALLOW)
f.add_rule(seccomp.ERRNO(errno.EPERM), "io_uring_setup")
if sys.argv[1] == "both":
    f.add_rule(seccomp.ERRNO(errno.ENOSYS), "io_setup")
f.load()
os.execvp(sys.argv[2], sys.argv[2:])
EOF
}

# Two ranks x two threads, 8 requests in flight each, on a private tmpfs: every byte of every
# phase is moved (every block once: the random phases' bytes and calls are whole files), each
# request is timed, --verify holds, and each thread says it used io_uring.
t_posix_iodepth_8_on_tmpfs() {
	mkdir m && mount -t tmpfs -o size=64m tmpfs "$T/m" || fail "mount tmpfs" || return 1
	$MPIRUN -np 2 $ST --engine posix --target "$T/m" --block 4k,64k --size 1m --threads 2 \
		--iodepth 8 --phases write,read,randread,randwrite --verify on --data random \
		--direct off --db "$T/s.db" >out 2>&1 || fail "the job: $(tail -5 out)" || return 1
	expect_eq "$(q s.db "SELECT status FROM run")" complete "run status" || return 1
	# 2 blocks x 4 phases x 2 ranks x 2 threads
	expect_eq "$(q s.db "SELECT COUNT(*) FROM thread_result WHERE bytes = 1048576 AND errno = 0
		AND ops = 1048576 / (SELECT block FROM combo c WHERE c.combo_id = thread_result.combo_id)")" \
		32 "threads that moved their whole file" || return 1
	expect_eq "$(q s.db "SELECT group_concat(DISTINCT io_mode) FROM thread_result")" "io_uring fixed" \
		"how the threads issued their calls (registered buffers)" || return 1
	expect_eq "$(q s.db "SELECT SUM(bad_blocks), SUM(errno <> 0) FROM rank_result")" "0|0" \
		"--verify and errors" || return 1
	# every request timed: as many latencies as calls, each a positive time
	expect_eq "$(q s.db "SELECT COUNT(*) FROM phase_run WHERE lat_count = 2 * 2 * 1048576 /
		(SELECT block FROM combo c WHERE c.combo_id = phase_run.combo_id) AND lat_p50_ns > 0")" 8 \
		"phases with every request timed" || return 1
	! grep -q "note: --iodepth" out || fail "a fallback was noted: $(grep note out)"
}

# The kernel refuses io_uring to the job: its threads fall back to libaio, record why and the
# run says so; refusing libaio too, they issue one call at a time. The bytes are whole either way.
t_posix_iodepth_when_the_kernel_refuses_io_uring() {
	/usr/bin/python3 -c 'import seccomp' 2>/dev/null ||
		{ echo "python3-seccomp is not installed (tests/deps.sh install)"; return 77; }
	mkdir d
	refuse uring $ST --engine posix --target "$T/d" --block 4k --size 256k --threads 2 --iodepth 8 \
		--phases write,randread --verify on --data random --direct off --db "$T/s.db" >out 2>&1 ||
		fail "the job: $(tail -5 out)" || return 1
	grep -q "^    note: --iodepth 8: rank 0 thread [01] issued its calls by libaio (io_uring_setup: EPERM)" out ||
		fail "no note of the fallback: $(cat out)" || return 1
	expect_eq "$(q s.db "SELECT group_concat(DISTINCT io_mode) || ' ' || SUM(bytes) || ' ' || SUM(ops) FROM thread_result")" \
		"libaio (io_uring_setup: EPERM) 1048576 256" "mode, bytes and calls" || return 1
	refuse both $ST --engine posix --target "$T/d" --block 4k --size 256k --threads 1 --iodepth 8 \
		--phases write,read --verify on --data random --direct off --db "$T/s2.db" >out 2>&1 ||
		fail "the job: $(tail -5 out)" || return 1
	grep -q "issued its calls by sync (io_uring_setup: EPERM; io_setup: ENOSYS)" out ||
		fail "no note of the fallback: $(cat out)" || return 1
	expect_eq "$(q s2.db "SELECT group_concat(DISTINCT io_mode) || ' ' || SUM(t.bytes) || ' ' || SUM(r.bad_blocks) FROM thread_result t JOIN rank_result r USING (combo_id, phase, rank)")" \
		"sync (io_uring_setup: EPERM; io_setup: ENOSYS) 524288 0" "mode, bytes, --verify" || return 1
	expect_eq "$(ls -A d)" "" "the target left clean"
}

# The kernel refuses to register the threads' buffers (the pinned pages count against
# RLIMIT_MEMLOCK for a process without CAP_IPC_LOCK: 256 KiB holds the rings, not 8 buffers of 1
# MiB): io_uring with plain reads and writes, saying why; every byte moved and verified.
t_posix_iodepth_when_the_kernel_refuses_registered_buffers() {
	mkdir d
	prlimit --memlock=262144:262144 setpriv --inh-caps=-ipc_lock --bounding-set=-ipc_lock \
		$ST --engine posix --target "$T/d" --block 1m --size 16m --threads 2 --iodepth 8 \
		--phases write,read --verify on --data random --direct off --db "$T/s.db" >out 2>&1 ||
		fail "the job: $(tail -5 out)" || return 1
	grep -q "^    note: --iodepth 8: rank 0 thread [01] issued its calls by io_uring (register_buffers: ENOMEM)" out ||
		fail "no note of the fallback: $(cat out)" || return 1
	expect_eq "$(q s.db "SELECT group_concat(DISTINCT io_mode) || ' ' || SUM(t.bytes) || ' ' || SUM(r.bad_blocks) FROM thread_result t JOIN rank_result r USING (combo_id, phase, rank)")" \
		"io_uring (register_buffers: ENOMEM) 67108864 0" "mode, bytes, --verify" || return 1
	expect_eq "$(ls -A d)" "" "the target left clean"
}

# A client host without liburing2 and libaio1 (issue 19): the binary does not need them to load
# (no NEEDED entry), and where neither exists a 2-rank job at --iodepth 8 runs every thread one
# call at a time, each saying why in its io_mode and the run saying so; where only liburing is
# missing, libaio serves. Every byte moved and verified either way.
t_posix_iodepth_on_a_host_without_liburing_and_libaio() {
	[ "$(id -u)" = 0 ] || { echo "needs root (a mount namespace and overlay mounts)"; return 77; }
	command -v readelf >/dev/null || { echo "readelf is not installed (binutils)"; return 77; }
	expect_eq "$(readelf -d "$ST_BIN" | grep NEEDED | grep -cE 'liburing|libaio')" 0 \
		"NEEDED entries for liburing or libaio: $(readelf -d "$ST_BIN" | grep NEEDED)" || return 1
	mkdir d
	without "liburing.so libaio.so" $MPIRUN -np 2 $ST --engine posix --target "$T/d" --block 64k \
		--size 1m --threads 2 --iodepth 8 --phases write,read,randread --verify on --data random \
		--direct off --db "$T/s.db" >out 2>&1 || fail "the job: $(tail -5 out)" || return 1
	why="sync (liburing.so.2 not found; libaio.so.1 not found)"
	grep -qF "note: --iodepth 8: rank 0 thread 0 issued its calls by $why" out ||
		fail "no note of the fallback: $(cat out)" || return 1
	expect_eq "$(q s.db "SELECT group_concat(DISTINCT io_mode) || ' ' || COUNT(*) || ' ' || SUM(t.bytes) FROM thread_result t")" \
		"$why 12 12582912" "mode, threads x phases, bytes" || return 1
	expect_eq "$(q s.db "SELECT status || ' ' || (SELECT SUM(bad_blocks) + SUM(errno <> 0) FROM rank_result) FROM run")" \
		"complete 0" "run status, bad blocks and errors" || return 1
	without "liburing.so" $ST --engine posix --target "$T/d" --block 64k --size 1m --iodepth 8 \
		--phases write,read --verify on --data random --direct off --db "$T/s2.db" >out 2>&1 ||
		fail "the job without liburing: $(tail -5 out)" || return 1
	expect_eq "$(q s2.db "SELECT group_concat(DISTINCT io_mode) || ' ' || SUM(t.bytes) || ' ' || SUM(r.bad_blocks) FROM thread_result t JOIN rank_result r USING (combo_id, phase, rank)")" \
		"libaio (liburing.so.2 not found) 2097152 0" "mode, bytes, --verify without liburing" || return 1
	expect_eq "$(ls -A d)" "" "the target left clean"
}

# The CPU a phase cost, split (issue 22): the whole process's (every thread, the kernel's io-wq
# workers of its io_uring too) and, of it, the I/O threads' own (RUSAGE_THREAD, as fio counts
# its job thread). Each rank's I/O figure is its threads' sum, never above the process's; one
# call at a time the I/O threads are nearly all of it; with 16 buffered tmpfs writes in
# flight the kernel copies in its io-wq workers (measured here: process 113,669 us, I/O
# threads 19,759), which the process's figure holds and the threads' does not.
t_posix_cpu_of_the_io_threads_apart_from_the_process() {
	mkdir m && mount -t tmpfs -o size=300m tmpfs "$T/m" || fail "mount tmpfs" || return 1
	for d in 1 16; do
		$ST --engine posix --target "$T/m" --block 64k --size 128m --threads 2 --iodepth $d \
			--phases write,read --direct off --db "$T/s.db" --label d$d >out 2>&1 ||
			fail "the job at --iodepth $d: $(tail -5 out)" || return 1
	done
	expect_eq "$(q s.db "SELECT COUNT(*) FROM rank_result r WHERE io_cpu_user_us = (SELECT SUM(cpu_user_us)
		FROM thread_result t WHERE t.combo_id = r.combo_id AND t.phase = r.phase AND t.rank = r.rank)
		AND io_cpu_sys_us = (SELECT SUM(cpu_sys_us) FROM thread_result t WHERE t.combo_id = r.combo_id
		AND t.phase = r.phase AND t.rank = r.rank)")" 4 "rank figures that are their threads' sums" ||
		return 1
	# (user and sys are each truncated to 1 us: 2 us a thread)
	expect_eq "$(q s.db "SELECT COUNT(*) FROM rank_result
		WHERE io_cpu_user_us + io_cpu_sys_us <= cpu_user_us + cpu_sys_us + 2 * nthreads")" 4 \
		"phases whose I/O threads' CPU is within the process's" || return 1
	q s.db "SELECT run.label || ' ' || r.phase || ' ' || (SELECT group_concat(DISTINCT io_mode)
		FROM thread_result t WHERE t.combo_id = r.combo_id AND t.phase = r.phase) || ': process ' ||
		(r.cpu_user_us + r.cpu_sys_us) || ' us, I/O threads ' || (r.io_cpu_user_us + r.io_cpu_sys_us)
		FROM rank_result r JOIN combo c USING (combo_id) JOIN run USING (run_id) ORDER BY 1"
	got=$(q s.db "SELECT
		SUM(CASE WHEN run.label = 'd1' THEN io_cpu_user_us + io_cpu_sys_us END) * 1.0 /
		SUM(CASE WHEN run.label = 'd1' THEN cpu_user_us + cpu_sys_us END) >= 0.5,
		SUM(CASE WHEN run.label = 'd16' AND r.phase = 'write' THEN cpu_user_us + cpu_sys_us -
		    io_cpu_user_us - io_cpu_sys_us END) >
		MAX(10000, 4 * SUM(CASE WHEN run.label = 'd1' AND r.phase = 'write' THEN cpu_user_us +
		    cpu_sys_us - io_cpu_user_us - io_cpu_sys_us END))
		FROM rank_result r JOIN combo c USING (combo_id) JOIN run USING (run_id)")
	expect_eq "$got" "1|1" "I/O threads most of the process one call at a time; io-wq beside them at depth 16" ||
		return 1
	expect_eq "$(q s.db "SELECT group_concat(DISTINCT io_mode) FROM thread_result t JOIN combo c
		USING (combo_id) WHERE c.iodepth = 16")" "io_uring fixed" "the queue at depth 16"
}
