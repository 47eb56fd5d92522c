# The libnfs engine against a real NFS server: each test starts its own
# nfs-ganesha (tests/lab/ganesha.sh) exporting $T/export on 127.0.0.1, on
# free ports in 12000-12999 (never a real NFS server's, and not another
# test run's), and stops it however the test ends. The export directory is
# the server's side of the files, so a test can look at what really reached
# the server.

GANESHA="$TOP/tests/lab/ganesha.sh"

port_free() { ! ss -Htln "sport = :$1" 2>/dev/null | grep -q .; }

# nfs_up [tmpfs]: the server, or 77 (skip) when the machine cannot run one.
# Sets URL (NFSv3, both ports fixed) and GANESHA_PID. The server goes when
# the test's shell exits (each test runs in its own subshell). With tmpfs
# the export is a tmpfs of its own: a COMMIT then costs no disk time (on a
# slow disk a COMMIT of 48 MiB can outlast every WRITE; run.sh unmounts it)
nfs_up() {
	command -v ganesha.nfsd >/dev/null || { echo "nfs-ganesha is not installed"; return 77; }
	[ "$(id -u)" = 0 ] || { echo "ganesha needs root (FSAL VFS, a private mount namespace)"; return 77; }
	if ! $ST --engine libnfs --target nfs://h/x --dry-run --db "$T/probe.db" >/dev/null 2>"$T/probe.err"; then
		if grep -q "not built" "$T/probe.err" && ! pkg-config --exists libnfs; then
			echo "libnfs is not installed"; return 77
		fi
		fail "the libnfs engine is missing from $ST although libnfs is installed: $(cat "$T/probe.err")"
		return 1
	fi
	mkdir -p "$T/export"
	[ "${1:-}" != tmpfs ] || mount -t tmpfs -o size=1g stcluster-test "$T/export" ||
		fail "no tmpfs on $T/export" || return 1
	trap 'nfs_down' EXIT
	trap 'nfs_down; exit 130' INT TERM
	# a random free pair; another run may take it between the check and the
	# bind, so a failed start tries another
	for try in 1 2 3 4 5; do
		NFS_PORT=$((12001 + 2 * ($(od -An -N2 -tu2 /dev/urandom) % 499)))
		NFS_MNT_PORT=$((NFS_PORT - 1))
		port_free $NFS_PORT && port_free $NFS_MNT_PORT || continue
		GANESHA_NFS_PORT=$NFS_PORT GANESHA_MNT_PORT=$NFS_MNT_PORT \
			bash "$GANESHA" start "$T/ganesha" "$T/export" 127.0.0.1 >"$T/ganesha.out" 2>&1 && break
		grep -q "Address already in use" "$T/ganesha.out" || { cat "$T/ganesha.out"; return 1; }
	done
	[ -f "$T/ganesha/pids.info" ] || { cat "$T/ganesha.out"; return 1; }
	URL=$(bash "$GANESHA" url "$T/ganesha" 3) || return 1
	GANESHA_PID=$(awk '$1 == "ganesha" { print $2 }' "$T/ganesha/pids.info")
	[ -n "$GANESHA_PID" ] || fail "no ganesha pid in $T/ganesha/pids.info"
}

nfs_down() {
	# a server a test froze would ignore SIGTERM until SIGKILL
	[ -z "${GANESHA_PID:-}" ] || kill -CONT "$GANESHA_PID" 2>/dev/null
	bash "$GANESHA" stop "$T/ganesha" >/dev/null 2>&1
}

# ms since the epoch
now_ms() { date +%s%3N; }

# the export is empty: every file and directory the run made was removed through NFS
export_clean() { expect_eq "$(ls -A "$T/export")" "" "export left clean"; }

t_nfs_sweep_rsize_sync_all_phases() {
	nfs_up || return $?
	$MPIRUN -np 2 $ST --engine libnfs --target "$URL" --block 1m --size 4m --threads 2 \
		--rsize 64k,2m --sync sync,async --phases write,rewrite,read,reread,randread,randwrite \
		--verify on --db "$T/s.db" --quiet || fail "run failed" || return 1
	expect_eq "$(q s.db "SELECT COUNT(*) FROM combo WHERE status = 'ok'")" 4 "combinations ok" || return 1
	expect_eq "$(q s.db 'SELECT COUNT(*) FROM rank_result')" $((4 * 6 * 2)) "rank rows" || return 1
	# 2 ranks x 2 threads x 4 MiB in every phase of every combination
	expect_eq "$(q s.db "SELECT COUNT(*) FROM phase_summary WHERE bytes = 2 * 2 * 4194304")" 24 "bytes per phase" || return 1
	expect_eq "$(q s.db 'SELECT SUM(bad_blocks) FROM rank_result')" 0 "every byte read back matches" || return 1
	# rsize: 64k as asked; 2m clamped to the server's (libnfs's) 1 MiB and stored so
	expect_eq "$(q s.db "SELECT DISTINCT rsize || '>' || rsize_eff FROM combo ORDER BY rsize" | tr '\n' ' ')" \
		"65536>65536 2097152>1048576 " "effective rsize" || return 1
	expect_eq "$(q s.db "SELECT DISTINCT maximum FROM effective_option WHERE option IN ('rsize', 'wsize')")" \
		1048576 "server maximum" || return 1
	expect_eq "$(q s.db "SELECT COUNT(*) FROM effective_option WHERE option = 'rsize' AND requested = '2m' AND effective = '1m'")" \
		4 "clamp recorded per rank" || return 1
	expect_eq "$(q s.db "SELECT DISTINCT sync || '=' || sync_eff FROM combo ORDER BY sync" | tr '\n' ' ')" \
		"async=async sync=sync " "effective sync" || return 1
	# not asked: the defaults in force are stored as effective values
	expect_eq "$(q s.db "SELECT DISTINCT vers_eff || ' ' || hard_eff || ' ' || timeo_eff || ' ' || retrans_eff || ' ' || iodepth_eff || ' ' || nconnect_eff FROM combo")" \
		"3 hard 600 2 1 2" "defaults in force" || return 1
	q s.db 'SELECT mount_options FROM combo LIMIT 1' | grep -q "nconnect=2 (one context per thread" ||
		fail "nconnect reason missing: $(q s.db 'SELECT mount_options FROM combo LIMIT 1')" || return 1
	nfs_rpc_counts || return 1
	export_clean
}

# The libnfs engine's own RPC counts of that sweep against what it must have
# sent ganesha: per rank (2 threads x 4 MiB) and phase, WRITE calls of the
# server's 1 MiB wsize (8), all FILE_SYNC with sync and UNSTABLE with async,
# a COMMIT per file (fsync) with async and none with sync; READ calls of the
# effective rsize (64k: 128; 2m clamped to 1m: 8); the payload bytes exactly;
# one time in the histogram per call; the clamp flagged, no stable_how flag.
nfs_rpc_counts() {
	expect_eq "$(q s.db "SELECT COUNT(*) FROM rpc_stat WHERE source = 'libnfs' AND op = 'xprt'")" \
		$((4 * 6 * 2)) "an RPC row per combination, phase and rank" || return 1
	expect_eq "$(q s.db "SELECT DISTINCT k.sync || ' ' || r.ops || ' ' || r.bytes_sent || ' ' || r.file_sync || ' ' || r.unstable || ' ' || r.stable_basis
		FROM rpc_stat r JOIN combo k USING (combo_id) WHERE r.op = 'WRITE' AND r.phase IN ('write', 'rewrite', 'randwrite') ORDER BY 1" | tr '\n' ',')" \
		"async 8 8388608 0 8 measured,sync 8 8388608 8 0 measured," "WRITE calls, bytes, stable_how" || return 1
	expect_eq "$(q s.db "SELECT DISTINCT k.sync || ' ' || r.ops FROM rpc_stat r JOIN combo k USING (combo_id) WHERE r.op = 'COMMIT' AND r.phase IN ('write', 'rewrite', 'randwrite') ORDER BY 1" | tr '\n' ',')" \
		"async 2,sync 0," "COMMITs" || return 1
	expect_eq "$(q s.db "SELECT DISTINCT k.rsize_eff || ' ' || r.ops || ' ' || r.bytes_recv FROM rpc_stat r JOIN combo k USING (combo_id) WHERE r.op = 'READ' AND r.phase IN ('read', 'reread', 'randread') ORDER BY 1" | tr '\n' ',')" \
		"1048576 8 8388608,65536 128 8388608," "READ calls and bytes" || return 1
	expect_eq "$(q s.db "SELECT COUNT(*) FROM rpc_stat WHERE trans <> ops OR major_timeouts <> 0 OR errors <> 0")" 0 "no retransmission, timeout or error" || return 1
	python3 - "$T/s.db" <<'PY' || fail "RTT histograms" || return 1
import sqlite3, struct, sys
rows = sqlite3.connect(sys.argv[1]).execute("SELECT op, ops, rtt_us, rtt_hist FROM rpc_stat WHERE op IN ('READ', 'WRITE', 'COMMIT') AND ops > 0").fetchall()
assert rows
for op, ops, rtt_us, h in rows:
    count, total_ns = struct.unpack_from("<QQ", h)
    assert count == ops, (op, count, ops)
    assert abs(total_ns / 1000 - rtt_us) <= ops, (op, total_ns, rtt_us)
PY
	expect_eq "$(q s.db "SELECT COUNT(*) FROM rpc_flag WHERE flag LIKE '%sync%'")" 0 "no stable_how contradicts --sync" || return 1
	expect_eq "$(q s.db "SELECT COUNT(DISTINCT combo_id) FROM rpc_flag WHERE flag = 'requested != effective' AND detail LIKE 'rsize: 2m -> 1m%'")" \
		2 "the rsize clamp flagged" || return 1
	$ST report --db s.db --format csv >r.csv || return 1
	python3 -c "
import csv
r = list(csv.DictReader(open('r.csv')))
assert all(x['rpc'] for x in r), r[0]
w = [x for x in r if x['phase'] == 'write' and x['sync'] == 'sync']
assert w and all(x['rpc'].startswith('WRITE 16 x 1024 KiB FILE_SYNC, COMMIT 0') for x in w), w[0]['rpc']
assert any('rsize: 2m -> 1m' in x['flags'] for x in r)
" || fail "the report's rpc and flags columns: $(head -3 r.csv)"
}

# The page's wire section joins phase_summary, which has a threads column
# of its own: with --threads swept, the label's bare "threads" was
# ambiguous, the statement failed and the section was left out.
t_nfs_html_wire_section_when_threads_vary() {
	nfs_up || return $?
	$MPIRUN -np 2 $ST --engine libnfs --target "$URL" --block 64k --size 1m --threads 1,2 \
		--db "$T/s.db" --quiet || fail "run failed" || return 1
	$ST report --db s.db --html p.html || return 1
	# one row per phase with NFS calls (view rpc_mix), labelled, in run order
	$ST query --db s.db --format csv "SELECT (c.seq + 1) || '|threads=' || c.threads || '|' || s.phase
		FROM phase_summary s JOIN combo c USING (combo_id) WHERE EXISTS (SELECT 1 FROM rpc_mix m
		WHERE m.combo_id = s.combo_id AND m.phase = s.phase) ORDER BY c.seq, s.phase_order" | sed 1d >want.txt
	expect_eq "$(wc -l <want.txt)" 4 "phases with NFS calls" || return 1
	python3 "$TOP/tests/html_table.py" p.html 'What went over the wire' 0,1,2 >got.txt ||
		fail "the wire table" || return 1
	cmp -s got.txt want.txt || fail "the wire table against the store: $(diff got.txt want.txt | head -5)" || return 1
	# each row's calls are its phase's own
	python3 "$TOP/tests/html_table.py" p.html 'What went over the wire' 2,5 >calls.txt || return 1
	expect_eq "$(grep -c '^write|.*WRITE [0-9]*/s' calls.txt) $(grep -c '^read|.*READ [0-9]*/s' calls.txt)" "2 2" \
		"WRITE calls in the write rows, READ in the read rows: $(cat calls.txt)"
}

t_nfs_html_wire_rows_carry_the_phase_s_own_values() {
	nfs_up || return $?
	# the run sweeps block 64k,128k; the read has 16k of its own (a [read]
	# section): the wire table's read rows say 16k, its write rows the sweep's
	printf '%s\n' "block = 64k,128k" "size = 512k" "[read]" "block = 16k" >"$T/p.conf"
	$MPIRUN -np 1 $ST --plan "$T/p.conf" --engine libnfs --target "$URL" --db "$T/s.db" --quiet ||
		fail "run failed" || return 1
	$ST report --db s.db --html p.html || return 1
	python3 "$TOP/tests/html_table.py" p.html 'What went over the wire' 1,2 >rows.txt ||
		fail "the wire table" || return 1
	expect_eq "$(sort rows.txt | tr '\n' ' ')" "block=128k|write block=16k|read block=16k|read block=64k|write " \
		"the wire table's labels: each phase's block" || return 1
	# and what went over the wire is that block: READ calls of 16 KiB
	expect_eq "$(q s.db "SELECT DISTINCT CAST(ROUND(bytes_recv * 1.0 / ops / 1024) AS INTEGER) FROM rpc_stat WHERE phase = 'read' AND op = 'READ' AND ops > 0")" \
		16 "KiB per READ" || return 1
}

t_nfs_depth_and_connections() {
	nfs_up || return $?
	# a 1 MiB block in 64 KiB calls: 16 calls a block, 1 or 8 in flight, over 1 or 2
	# connections a thread; write-behind must still end with every byte durable
	$MPIRUN -np 1 $ST --engine libnfs --target "$URL" --block 1m --size 8m --threads 2 \
		--wsize 64k --rsize 64k --iodepth 1,8 --nconnect 1,4 --sync async --fsync off \
		--phases write,read,randwrite,randread --verify on --db "$T/s.db" --quiet || fail "run failed" || return 1
	expect_eq "$(q s.db "SELECT COUNT(*) FROM combo WHERE status = 'ok'")" 4 "combinations ok" || return 1
	expect_eq "$(q s.db 'SELECT SUM(bad_blocks) FROM rank_result')" 0 "verified" || return 1
	expect_eq "$(q s.db "SELECT COUNT(*) FROM phase_summary WHERE bytes = 2 * 8388608")" 16 "bytes" || return 1
	expect_eq "$(q s.db "SELECT DISTINCT iodepth || '/' || nconnect || '>' || iodepth_eff || '/' || nconnect_eff FROM combo ORDER BY 1" | tr '\n' ' ')" \
		"1/1>1/2 1/4>1/4 8/1>8/2 8/4>8/4 " "effective depth and connections" || return 1
	export_clean
}

t_nfs_latency_is_issue_to_completion_at_depth() {
	# the export on tmpfs: a FILE_SYNC write to a disk export costs a journal commit, and the
	# disk's file system commits 8 at once for little more than one (group commit), so there
	# 8 in flight could each take less than one alone (seen: 1.4 ms against 3.5 ms, the disk
	# busy with another job); on tmpfs each call costs the server's CPU only
	nfs_up tmpfs || return $?
	# 4 KiB calls, 1 or 8 in flight: each read (read ahead) and write (written behind)
	# is timed from its issue to its answer, so 8 in flight take at least as long
	# each as one alone (the server has 8 at once); a wait for data already there
	# (or a write's queueing alone) would be far shorter
	$MPIRUN -np 1 $ST --engine libnfs --target "$URL" --block 4k --size 2m --iodepth 1,8 \
		--sync sync --phases write,randread --db "$T/s.db" --quiet || fail "run failed" || return 1
	expect_eq "$(q s.db "SELECT COUNT(*) FROM phase_run WHERE lat_count = 512")" 4 "every call timed" || return 1
	for phase in write randread; do
		one=$(q s.db "SELECT lat_p50_ns FROM result WHERE iodepth = 1 AND phase = '$phase'")
		eight=$(q s.db "SELECT lat_p50_ns FROM result WHERE iodepth = 8 AND phase = '$phase'")
		echo "$phase p50: $one ns at depth 1, $eight ns at depth 8"
		[ "$eight" -gt $((one / 2)) ] || fail "$phase p50 at depth 8 ($eight ns) against $one ns at depth 1: not a call's time" || return 1
	done
	export_clean
}

t_nfs_verify_failure_is_named_and_exits_1() {
	nfs_up || return $?
	# positive: the pattern read back through NFS is the one written, also from another rank
	$MPIRUN -np 2 $ST --engine libnfs --target "$URL" --block 256k --size 4m --reorder on \
		--phases write,read,randread --verify on --db "$T/s.db" --quiet || fail "run failed" || return 1
	expect_eq "$(q s.db "SELECT COUNT(*) || ' ' || SUM(bad_blocks) || ' ' || MIN(bytes) FROM rank_result WHERE phase <> 'write'")" \
		"4 0 4194304" "clean reads" || return 1
	expect_eq "$(q s.db 'SELECT status FROM combo')" ok "combination ok" || return 1
	# negative control: the first byte of the file is changed on the server's disk
	# behind the server's back while the (slow, FILE_SYNC 4 KiB) write phase still
	# runs; the read phase must see it
	cat >corrupt.py <<'EOF'
import glob, os, sys, time
open("started", "w").close()
while not os.path.exists("done"):
    for f in glob.glob(sys.argv[1] + "/stcluster-*/r0.t0"):
        try:
            with open(f, "r+b") as fd:  # never creates: the run's cleanup stays clean
                b = fd.read(1)
                if b:
                    fd.seek(0)
                    fd.write(bytes([b[0] ^ 0xff]))
                    open("flipped", "w").close()
                    sys.exit(0)
        except OSError:
            pass
    time.sleep(0.005)
EOF
	rm -f started done flipped
	python3 corrupt.py "$T/export" &
	cpid=$!
	while [ ! -e started ]; do sleep 0.05; done
	$ST --engine libnfs --target "$URL" --block 4k --size 2m --sync sync --phases write,read \
		--verify on --deadline 60 --db "$T/bad.db" --quiet
	rc=$?
	touch done
	wait $cpid
	[ -e flipped ] || fail "the byte was never changed" || return 1
	# the run finished, and its data did not verify: exit status 1
	[ $rc = 1 ] || fail "the run with a corrupted file: exit $rc, want 1" || return 1
	# one byte of block 0 changed: exactly one bad block, at offset 0
	expect_eq "$(q bad.db "SELECT bad_blocks, first_bad_offset FROM rank_result WHERE phase = 'read'")" \
		"1|0" "the changed block is found" || return 1
	expect_eq "$(q bad.db 'SELECT status FROM combo')" error "combination status" || return 1
	# said in words: the combination, the read phase; the write row has no note
	expect_eq "$(q bad.db 'SELECT message FROM combo')" \
		"read: rank 0 ($(hostname)): 1 block read did not verify (--verify), the first at offset 0 of thread 0's file" \
		"combination message" || return 1
	$ST report --db bad.db --format json >r.json || return 1
	python3 -c "
import json
rows = {r['phase']: r for r in json.load(open('r.json'))['rows']}
assert rows['write']['note'] is None and rows['write']['errors'] == 0, rows['write']
assert rows['read']['errors'] == 1 and 'did not verify' in rows['read']['note'], rows['read']
" || fail "report rows of the run that did not verify" || return 1
	$ST runs --db bad.db --format csv | tail -1 | grep -q ',0,0,0,0,1,complete,' ||
		fail "runs: $($ST runs --db bad.db --format csv)"
}

t_nfs_v4_reads_run_writes_skipped() {
	nfs_up || return $?
	$MPIRUN -np 2 $ST --engine libnfs --target "$URL" --block 1m --size 4m --threads 2 \
		--vers 3,4,4.1 --phases write,read,randread --verify on --db "$T/s.db" --quiet ||
		fail "run failed" || return 1
	expect_eq "$(q s.db "SELECT vers || ' ' || status FROM combo ORDER BY vers" | tr '\n' ' ')" \
		"3 ok 4 ok 4.1 skipped " "combinations" || return 1
	q s.db "SELECT message FROM combo WHERE vers = '4.1'" | grep -q "NFSv4.0 only" ||
		fail "4.1 reason: $(q s.db "SELECT message FROM combo WHERE vers = '4.1'")" || return 1
	expect_eq "$(q s.db "SELECT p.phase || ' ' || p.status FROM phase_run p JOIN combo c USING (combo_id) WHERE c.vers = '4' ORDER BY p.phase_order" | tr '\n' ' ')" \
		"write skipped read ok randread ok " "v4 phases" || return 1
	q s.db "SELECT p.message FROM phase_run p JOIN combo c USING (combo_id) WHERE c.vers = '4' AND p.phase = 'write'" |
		grep -q "cannot write over NFSv4" || fail "v4 write reason missing" || return 1
	expect_eq "$(q s.db "SELECT COUNT(*) FROM rank_result r JOIN combo c USING (combo_id) WHERE c.vers = '4' AND r.bytes = 2 * 4194304 AND r.bad_blocks = 0")" \
		4 "v4 reads: bytes, verified" || return 1
	expect_eq "$(q s.db "SELECT vers_eff FROM combo WHERE vers = '4'")" 4 "effective vers" || return 1
	# vers not given: the URL's version= decides, and is stored as in force
	url4=$(echo "$URL" | sed 's/version=3/version=4/')
	$ST --engine libnfs --target "$url4" --block 1m --size 2m --phases write,read --db "$T/u4.db" --quiet ||
		fail "version=4 URL run failed" || return 1
	expect_eq "$(q u4.db "SELECT status || ' ' || IFNULL(vers, '-') || ' ' || vers_eff FROM combo")" "ok - 4" "URL version" || return 1
	q u4.db "SELECT message FROM phase_run WHERE phase = 'write'" | grep -q "^vers=4 (the URL's version)" ||
		fail "URL version reason: $(q u4.db "SELECT message FROM phase_run WHERE phase = 'write'")" || return 1
	export_clean
}

t_nfs_unsupported_options_skipped() {
	nfs_up || return $?
	$ST --engine libnfs --target "$URL" --block 1m --size 1m --proto tcp,udp --phases write,read \
		--db "$T/s.db" --quiet || fail "run failed" || return 1
	expect_eq "$(q s.db "SELECT proto || ' ' || status || ' ' || IFNULL(message, '') FROM combo ORDER BY proto" | tr '\n' '|')" \
		"tcp ok |udp skipped proto=udp: the libnfs engine speaks TCP only|" "proto" || return 1
	# every combination skipped: nothing would be measured, refused before
	# any I/O (issue 19)
	$ST --engine libnfs --target "$URL" --block 1m --size 1m --ac noac --db "$T/ac.db" --quiet 2>err
	expect_eq $? 2 "--ac noac alone: exit status" || return 1
	grep -q "every combination would be skipped, nothing measured (the first: noac: .*no attribute cache" err ||
		fail "ac: $(cat err)" || return 1
	[ ! -e ac.db ] || fail "a store was made" || return 1
	export_clean
}

t_nfs_bad_targets() {
	nfs_up || return $?
	bad=0
	# nfs_bad WANT ARGS...: exit 2, one line naming the problem, no store
	nfs_bad() {
		want="$1"
		shift
		$ST --engine libnfs --db "$T/none.db" "$@" >out 2>err
		rc=$?
		if [ $rc != 2 ] || [ "$(grep -c . err)" != 1 ] || ! grep -qF -- "$want" err || [ -e "$T/none.db" ]; then
			echo "    case: $*: exit $rc, want '$want', got: $(cat err)" >&2
			bad=$((bad + 1))
		fi
	}
	base="nfs://127.0.0.1"
	ports="nfsport=$NFS_PORT&mountport=$NFS_MNT_PORT"
	nfs_bad "--target: 'http://127.0.0.1/export' is not an nfs:// URL" --target http://127.0.0.1/export
	nfs_bad "--target: 'nfs://' has no server" --target nfs://
	nfs_bad "--target: 'nfs:///export' has no server" --target nfs:///export
	nfs_bad "--target: 'nfs://127.0.0.1' has no export path" --target nfs://127.0.0.1
	nfs_bad "has a port in the server part" --target "nfs://127.0.0.1:$NFS_PORT/export"
	nfs_bad "version must be 3 or 4, not '5'" --target "$base/export?version=5&$ports"
	nfs_bad "nfsport must be a port number (1-65535), not 'abc'" --target "$base/export?nfsport=abc"
	nfs_bad "has an unknown parameter 'bogus'" --target "$base/export?$ports&bogus=1"
	nfs_bad "ends with '&'" --target "$base/export?$ports&"
	nfs_bad "sets autoreconnect: --hard decides it" --target "$base/export?$ports&autoreconnect=3"
	nfs_bad "cannot mount export '/nope'" --target "$base/nope?$ports"
	nfs_bad "directory '/missing' in export '/export': does not exist" --target "$base/export/missing?$ports"
	echo data >"$T/export/file"
	nfs_bad "'/file' in export '/export' is not a directory" --target "$base/export/file?$ports"
	rm -f "$T/export/file"
	nfs_bad "directory '/export' is not writable" --target "$base/export?$ports&uid=65534&gid=65534"
	# (what a refusal that goes as far as the connection costs this machine
	# now: the job's start, the store's check, libnfs, a refused connect and
	# the end; the silent server below is the same and 10 s of waiting)
	t0=$(now_ms)
	nfs_bad "cannot connect to 127.0.0.1" --target "$base/export?nfsport=1&mountport=1"
	cost=$(($(now_ms) - t0))
	echo "a refused connection costs $cost ms here"
	nfs_bad "--rsize: '0' is out of range" --target "$URL" --rsize 0
	nfs_bad "--wsize: '6k' is not a multiple of 4k" --target "$URL" --wsize 6k
	nfs_bad "--sync: unknown value 'often' (one of: sync, async)" --target "$URL" --sync often
	nfs_bad "--hard: unknown value 'firm'" --target "$URL" --hard firm
	# a server that takes the connection and never answers: told within the
	# 10 s cap, and the rest of the job costs what the refused connection did
	# (twice that, and 2 s, for a load that changes meanwhile)
	cat >mute.py <<'EOF'
import os, socket, sys
s = socket.socket()
s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind(("127.0.0.1", 0))
s.listen(16)
with open(sys.argv[1] + ".tmp", "w") as f:
    f.write("%d %d\n" % (os.getpid(), s.getsockname()[1]))
os.rename(sys.argv[1] + ".tmp", sys.argv[1])
held = []
while True:
    held.append(s.accept()[0])
EOF
	python3 mute.py mute.pid &
	while [ ! -s mute.pid ]; do sleep 0.05; done
	read -r mpid mport <mute.pid
	t0=$(now_ms)
	nfs_bad "server 127.0.0.1 did not answer within 10 s" --target "$base/export?nfsport=$mport&mountport=$mport"
	took=$(($(now_ms) - t0))
	kill "$mpid"
	echo "the silent server: told in $took ms"
	[ $took -lt $((10000 + 2 * cost + 2000)) ] ||
		fail "the silent server took $took ms to report (cap 10 s; a refused connection costs $cost ms here)" || return 1
	[ $bad = 0 ] || fail "$bad bad targets were not refused cleanly" || return 1
	export_clean
}

# nfs_freeze_when_written FILE-GLOB: SIGSTOP the server once a file under the
# export holds 1 MiB (the write phase is well under way); in the background
nfs_freeze_when_written() {
	(
		while :; do
			for f in $1; do
				[ -f "$f" ] && [ "$(stat -c %s "$f")" -ge 1048576 ] &&
					{ kill -STOP "$GANESHA_PID"; now_ms >frozen; exit 0; }
			done
			sleep 0.01
		done
	) &
}

# short_run_ms: what a job that writes 64 KiB to the server costs this
# machine now (start, store, one call, cleanup, end), in ms: the tolerance of
# a cap on a longer job's time
short_run_ms() {
	s0=$(now_ms)
	$ST --engine libnfs --target "$URL" --block 64k --size 64k --phases write \
		--db "$T/short.db" --quiet >short.out 2>&1 || { cat short.out >&2; return 1; }
	echo $(($(now_ms) - s0))
}

t_nfs_frozen_server_ends_by_the_deadline_and_what_is_left_is_named() {
	nfs_up || return $?
	cost=$(short_run_ms) || fail "a short run failed" || return 1
	echo "a short run costs $cost ms here"
	# soft, timeo 1 s, retrans 1: a call fails 1 + 2 s after the server stops answering
	nfs_freeze_when_written "$T/export/stcluster-*/r0.t0"
	fpid=$!
	t0=$(now_ms)
	$ST --engine libnfs --target "$URL" --block 64k --size 1g --sync sync --phases write \
		--hard soft --timeo 10 --retrans 1 --deadline 30 --db "$T/soft.db" --quiet >out 2>&1
	rc=$?
	took=$(($(now_ms) - t0))
	wait $fpid
	kill -CONT "$GANESHA_PID"
	[ $rc = 1 ] || fail "soft run: exit $rc (want 1: a combination with errors): $(cat out)" || return 1
	expect_eq "$(q soft.db "SELECT errno_name || ' ' || err_op FROM rank_result")" "ETIMEDOUT write" "soft error" || return 1
	# the engine's count: the WRITE libnfs expired, as a major timeout and an error
	expect_eq "$(q soft.db "SELECT major_timeouts || ' ' || errors FROM rpc_stat WHERE op = 'WRITE'")" "1 1" "soft: the timeout counted" || return 1
	# after the freeze: the write fails after 3 s, then unlink and the run
	# directory's removal give up after 3 s each; the job's own end costs
	# what a short run does (twice that, and 2 s, for a load that changes)
	after=$(($(now_ms) - $(cat frozen)))
	echo "soft: the run ended $after ms after the freeze"
	[ $after -lt $((9000 + 2 * cost + 2000)) ] ||
		fail "soft: the run ended $after ms after the freeze (a short run costs $cost ms)" || return 1
	end=$(q soft.db "SELECT (end_ns - start_ns) / 1000000 FROM rank_result")
	frz=$(($(cat frozen) - t0))
	[ "$end" -lt $((frz + 3000 + 2500)) ] || fail "soft: phase took $end ms (frozen after $frz ms)" || return 1
	# FILE_SYNC: every byte counted was stable on the server before it froze, and
	# at most the one call in flight more (the unlink failed, so the file is
	# still there to look at)
	f=$(ls "$T"/export/stcluster-*/r0.t0)
	size=$(stat -c %s "$f")
	bytes=$(q soft.db "SELECT bytes FROM rank_result")
	[ "$bytes" -gt 0 ] && [ "$size" -ge "$bytes" ] && [ "$size" -le $((bytes + 65536)) ] ||
		fail "server has $size bytes, the run counted $bytes" || return 1
	# what the run could not remove is said in it: the store and runs name the file
	run=$(q soft.db 'SELECT run_id FROM run')
	q soft.db 'SELECT cleanup FROM run' | grep -q "^rank 0 (host $(hostname)): stcluster-$run/r0.t0.*: ETIMEDOUT$" ||
		fail "the run's cleanup: $(q soft.db 'SELECT cleanup FROM run')" || return 1
	$ST runs --db soft.db --format csv | tail -1 | grep -q "left behind: rank 0 .*r0.t0" ||
		fail "runs does not say what is left: $($ST runs --db soft.db --format csv)" || return 1
	grep -q "left behind on the target" out || fail "no line on stderr: $(cat out)" || return 1
	rm -rf "$T"/export/stcluster-*

	# hard: no call outlives --deadline (3 s), even with the server gone
	cost=$(short_run_ms) || fail "a short run failed" || return 1
	echo "a short run costs $cost ms here"
	rm -f frozen
	nfs_freeze_when_written "$T/export/stcluster-*/r0.t0"
	fpid=$!
	t0=$(now_ms)
	$ST --engine libnfs --target "$URL" --block 1m --size 1g --sync async --iodepth 4 \
		--phases write --deadline 3 --db "$T/hard.db" --quiet >out 2>&1
	rc=$?
	took=$(($(now_ms) - t0))
	wait $fpid
	kill -CONT "$GANESHA_PID"
	[ $rc = 1 ] || fail "hard run: exit $rc (want 1: a combination with errors): $(cat out)" || return 1
	expect_eq "$(q hard.db "SELECT errno_name || ' ' || err_op FROM rank_result")" "ETIMEDOUT write" "hard error" || return 1
	end=$(q hard.db "SELECT (end_ns - start_ns) / 1000000 FROM rank_result")
	# (1.5 s for the deadline's own check and the calls' end, and half a
	# short run for a machine that stalls the process meanwhile)
	[ "$end" -lt $((3000 + 1500 + cost / 2)) ] ||
		fail "hard: the phase took $end ms with --deadline 3 (a short run costs $cost ms)" || return 1
	# up to the freeze, then phase 3 s, unlink 3 s, the run directory's mount
	# 3 s, then the job's end (it failed at 25 s fixed, under load 18)
	frz=$(($(cat frozen) - t0))
	echo "hard: the run took $took ms, frozen after $frz ms"
	[ $took -lt $((frz + 9000 + 2 * cost + 2000)) ] ||
		fail "hard: the run took $took ms (frozen after $frz ms; a short run costs $cost ms)" || return 1
	rm -rf "$T"/export/stcluster-*
}

# nfs_restart_when_written: once the run's file has data, stop the server and
# start it again on the same ports (a new boot: a new write verifier); in the
# background
nfs_restart_when_written() {
	(
		while ! ls "$T"/export/stcluster-*/r0.t0 >/dev/null 2>&1; do sleep 0.02; done
		sleep 0.3
		bash "$GANESHA" stop "$T/ganesha" >/dev/null 2>&1
		# the port may still be held a moment after the server is gone (a ladder had the
		# restarted ganesha's tcp6 bind fail with EADDRINUSE 1 s on): a start refused so
		# tries again, 5 times at most, a second apart
		for try in 1 2 3 4 5; do
			sleep 1
			GANESHA_NFS_PORT=$NFS_PORT GANESHA_MNT_PORT=$NFS_MNT_PORT \
				bash "$GANESHA" start "$T/ganesha" "$T/export" 127.0.0.1 >"$T/restart.out" 2>&1
			rc=$?
			[ $rc = 0 ] && break
			grep -q "Address already in use" "$T/restart.out" || break
			cat "$T/restart.out" >>"$T/restart.tries"
		done
		echo $rc >restarted
	) &
}

t_nfs_server_restart_in_a_phase_is_flagged_and_hard_rides_it_out() {
	nfs_up || return $?
	# FILE_SYNC writes lose nothing: hard reconnects, resends, and every byte
	# verifies; but the phase ran across the outage, and says so (it was
	# stored as ok, at a third of the rate, with no note)
	nfs_restart_when_written
	rpid=$!
	$ST --engine libnfs --target "$URL" --block 1m --size 512m --sync sync --phases write,read \
		--verify on --deadline 30 --db "$T/sync.db" --quiet >out 2>&1
	rc=$?
	wait $rpid
	expect_eq "$(cat restarted)" 0 "server restarted" || { cat restart.out; return 1; }
	GANESHA_PID=$(awk '$1 == "ganesha" { print $2 }' "$T/ganesha/pids.info")
	[ $rc = 1 ] || fail "sync run: exit $rc (want 1: a phase across a restart): $(cat out)" || return 1
	expect_eq "$(q sync.db "SELECT message FROM phase_run WHERE phase = 'write'")" \
		"the NFS server restarted during the phase: the figure includes the outage" \
		"sync: the write phase's note" || return 1
	expect_eq "$(q sync.db "SELECT COUNT(*) FROM rank_result WHERE phase = 'write' AND errno <> 0")" 0 \
		"sync: no call failed" || return 1
	expect_eq "$(q sync.db "SELECT status FROM phase_run WHERE phase = 'write'")" error "sync: write phase status" || return 1
	expect_eq "$(q sync.db "SELECT status FROM phase_run WHERE phase = 'read'")" ok "sync: read phase status" || return 1
	expect_eq "$(q sync.db "SELECT COUNT(*) FROM rank_result WHERE bytes = 536870912 AND bad_blocks = 0")" 2 "sync: all bytes, verified" || return 1
	export_clean || return 1
	# UNSTABLE writes die with the server: the verifier changes before COMMIT -> EIO
	rm -f restarted
	nfs_restart_when_written
	rpid=$!
	$ST --engine libnfs --target "$URL" --block 1m --size 2g --sync async --phases write \
		--deadline 30 --db "$T/async.db" --quiet >out 2>&1
	rc=$?
	[ $rc = 1 ] || fail "async run: exit $rc (want 1: lost writes are errors): $(cat out)" || return 1
	wait $rpid
	expect_eq "$(cat restarted)" 0 "server restarted" || { cat restart.out; return 1; }
	GANESHA_PID=$(awk '$1 == "ganesha" { print $2 }' "$T/ganesha/pids.info")
	expect_eq "$(q async.db "SELECT errno_name FROM rank_result")" EIO "async: lost unstable writes reported" || return 1
	expect_eq "$(q async.db "SELECT status FROM combo")" error "async: combination" || return 1
	export_clean
}

t_nfs_soft_run_goes_on_when_the_server_returns() {
	nfs_up || return $?
	# soft, timeo 1 s, retrans 1; the server stops answering during the first
	# combination's write and comes back once that combination is stored
	nfs_freeze_when_written "$T/export/stcluster-*/r0.t0"
	fpid=$!
	(
		k=0
		while [ "$(q "$T/soft.db" 'SELECT COUNT(*) FROM combo' 2>/dev/null)" != 1 ] && [ $k -lt 600 ]; do
			sleep 0.1
			k=$((k + 1))
		done
		kill -CONT "$GANESHA_PID"
	) &
	tpid=$!
	# 2 threads, then 1: the second thread's file of the first combination is
	# not written again, so only the cleanup at the end of the run removes it
	$ST --engine libnfs --target "$URL" --block 64k --size 64m --threads 2,1 --sync sync \
		--phases write,read --hard soft --timeo 10 --retrans 1 --deadline 30 \
		--db "$T/soft.db" --quiet >out 2>&1
	rc=$?
	wait $fpid $tpid
	[ $rc = 1 ] || fail "soft run: exit $rc (want 1: a combination with errors): $(cat out)" || return 1
	expect_eq "$(q soft.db "SELECT c.seq || ' ' || c.status || ' ' || r.phase || ' ' || COALESCE(r.errno_name, '-') || ' ' || COALESCE(r.err_op, '-') FROM rank_result r JOIN combo c USING (combo_id) ORDER BY c.seq, r.phase DESC")" \
		"0 error write ETIMEDOUT write
0 error read ETIMEDOUT open
1 ok write - -
1 ok read - -" "per combination and phase" || return 1
	expect_eq "$(q soft.db "SELECT status FROM run")" complete "run status" || return 1
	# the first combination's files, whose removal timed out, are gone by the end
	export_clean
}

t_nfs_frozen_server_is_a_stall_at_1m_and_4k() {
	nfs_up || return $?
	# the server stopped for 2.5 s of a 6 s time-based write (>= 30 %), hard
	# (the calls wait, then end): the rank's empty intervals in a row are a
	# stall, with 1 MiB and with 4 KiB calls (issue 20: a 12 s freeze of a
	# 20 s phase had 0 stall flags, the median of calls per interval being 0)
	for bs in 1m 4k; do
		rm -f frozen
		nfs_freeze_when_written "$T/export/stcluster-*/r0.t0"
		fpid=$!
		$ST --engine libnfs --target "$URL" --block $bs --size 16m --runtime 6 --phases write \
			--db "$T/f$bs.db" --quiet >out 2>&1 &
		job=$!
		wait $fpid
		sleep 2.5
		kill -CONT "$GANESHA_PID"
		wait $job || fail "$bs: $(cat out)" || return 1
		# the longest run of stalled intervals without a call: the freeze's
		# (a client starved of CPU, as under ASan at load 16, may stall too)
		n=$(q f$bs.db "SELECT COALESCE(MAX(n), 0) FROM (SELECT COUNT(*) AS n FROM (SELECT idx,
			idx - ROW_NUMBER() OVER (ORDER BY idx) AS g FROM interval_rank WHERE stall AND ops = 0)
			GROUP BY g)")
		[ "$n" -ge 15 ] && [ "$n" -le 30 ] ||
			fail "$bs: $n stalled intervals in a row: $(q f$bs.db "SELECT group_concat(ops || ':' || stall, ' ') FROM interval_rank")" || return 1
		expect_eq "$(q f$bs.db "SELECT status FROM phase_run")" ok "$bs: the phase" || return 1
	done
	export_clean
}

t_nfs_workloads_metadata_and_shared_file() {
	nfs_up || return $?
	# the metadata phases as NFSv3 calls (CREATE; LOOKUP + GETATTR; LOOKUP +
	# READ; REMOVE) from 2 ranks x 2 threads; the server's directory holds
	# what they made: with --keep every file of the phases that create
	$MPIRUN -np 2 $ST --engine libnfs --target "$URL" --threads 2 --files 30 --file-size 4k \
		--fanout 1,3 --phases create,stat,open --verify on --keep on --db "$T/m.db" --quiet ||
		fail "metadata run failed" || return 1
	expect_eq "$(q m.db "SELECT COUNT(*) || ' ' || SUM(ops) || ' ' || SUM(bad_blocks) FROM rank_result")" \
		"12 720 0" "operations, every file read back verified" || return 1
	for c in 0 1; do
		expect_eq "$(find "$T"/export/stcluster-*/c$c -type f -name 'f*' -size 4k | wc -l)" 120 \
			"combination $c: files on the server" || return 1
	done
	expect_eq "$(find "$T"/export/stcluster-*/c1 -type d -name 'd[0-9]*' | wc -l)" 12 "fan-out directories" || return 1
	# created and removed through NFS: nothing left on the server
	$MPIRUN -np 2 $ST --engine libnfs --target "$URL" --threads 2 --files 30 --phases create,remove \
		--db "$T/r.db" --quiet || fail "remove run failed" || return 1
	expect_eq "$(q r.db "SELECT ops FROM phase_summary WHERE phase = 'remove'")" 120 "removes" || return 1
	# the engine's own RPC counts name each metadata call (they were once all READs)
	expect_eq "$(q r.db "SELECT GROUP_CONCAT(op || ' ' || n, ', ') FROM (SELECT op, SUM(ops) AS n
		FROM rpc_stat WHERE source = 'libnfs' AND phase = 'remove' AND ops > 0 GROUP BY op ORDER BY op)")" \
		"REMOVE 120" "the remove phase's calls on the wire" || return 1
	expect_eq "$(find "$T"/export -newer "$T/m.db" -type f | wc -l)" 0 "files left by the remove run" || return 1
	# one shared file, 3 ranks, strided, every byte read back (also another rank's region)
	$MPIRUN -np 3 $ST --engine libnfs --target "$URL" --layout shared --access strided --threads 2 \
		--block 64k --size 512k --phases write,read,rw --verify on --db "$T/s.db" --quiet ||
		fail "shared run failed" || return 1
	expect_eq "$(q s.db "SELECT COUNT(*) || ' ' || SUM(bad_blocks) || ' ' || MIN(bytes) FROM rank_result")" \
		"9 0 1048576" "shared file verified" || return 1
	expect_eq "$(q s.db "SELECT status FROM combo")" ok "shared combination" || return 1
	rm -rf "$T"/export/stcluster-*
}

# The readdir phase over libnfs (issue 20 item 5): each thread's directory of 30 files listed
# as Linux lists over NFSv3, READDIRPLUS from cookie 0 with every entry's attributes: one
# operation per file, one READDIRPLUS a directory (30 entries fit a reply), no LOOKUP or
# GETATTR after; in one shared directory of 1,200 files (3 ranks x 2 threads x 200) each
# rank lists it once and the replies are many: the cookie loop must come back with every name
# (the phase fails on a missing or extra one), in more calls than one per rank.
t_nfs_readdir_lists_with_readdirplus() {
	nfs_up || return $?
	$MPIRUN -np 2 $ST --engine libnfs --target "$URL" --threads 2 --files 30 --phases create,readdir \
		--db "$T/u.db" --quiet || fail "unique directories run failed" || return 1
	expect_eq "$(q u.db "SELECT ops || ' ' || errors FROM phase_summary WHERE phase = 'readdir'")" "120 0" \
		"entries listed" || return 1
	expect_eq "$(q u.db "SELECT GROUP_CONCAT(op || ' ' || n, ', ') FROM (SELECT op, SUM(ops) AS n
		FROM rpc_stat WHERE source = 'libnfs' AND phase = 'readdir' AND ops > 0 GROUP BY op ORDER BY op)")" \
		"READDIRPLUS 4" "the readdir phase's calls on the wire (4 directories)" || return 1
	$MPIRUN -np 3 $ST --engine libnfs --target "$URL" --threads 2 --files 200 --dir-mode shared \
		--phases create,readdir,remove --db "$T/s.db" --quiet || fail "shared directory run failed" || return 1
	expect_eq "$(q s.db "SELECT ops || ' ' || errors FROM phase_summary WHERE phase = 'readdir'")" "3600 0" \
		"entries listed (3 ranks x 1,200)" || return 1
	calls=$(q s.db "SELECT SUM(ops) FROM rpc_stat WHERE source = 'libnfs' AND phase = 'readdir' AND op = 'READDIRPLUS'")
	others=$(q s.db "SELECT COALESCE(SUM(ops), 0) FROM rpc_stat WHERE source = 'libnfs' AND phase = 'readdir'
		AND op != 'READDIRPLUS'")
	echo "1,200 entries listed by each of 3 ranks in $calls READDIRPLUS calls"
	# an entry is at least 100 bytes of a reply (fileid, name, cookie, 84 of attributes, the
	# handle): 1,200 need 4 replies or more of 32 KiB, for each rank
	[ "$(q s.db "SELECT MIN(n) FROM (SELECT SUM(ops) AS n FROM rpc_stat WHERE source = 'libnfs'
		AND phase = 'readdir' AND op = 'READDIRPLUS' GROUP BY rank)")" -ge 4 ] && [ "$others" = 0 ] ||
		fail "the shared listing: $calls READDIRPLUS and $others other calls" || return 1
	expect_eq "$(find "$T"/export -mindepth 1 | wc -l)" 0 "left on the server" || return 1
}

t_nfs_shared_dir_and_dir_phases_on_the_wire() {
	nfs_up || return $?
	# 3 ranks x 2 threads x 20 in one directory (--dir-mode shared): each
	# phase's own RPC counts (the engine's rpc_stat) are what the phase says
	# it did, one call (two for a stat) per operation, and no name collides
	$MPIRUN -np 3 $ST --engine libnfs --target "$URL" --threads 2 --files 20 --dir-mode shared \
		--phases create,stat,remove,mkdir,dirstat,rmdir --db "$T/w.db" --quiet ||
		fail "shared directory run failed" || return 1
	expect_eq "$(q w.db "SELECT group_concat(phase || ' ' || ops || ' ' || errors, ', ') FROM (SELECT * FROM phase_summary ORDER BY phase)")" \
		"create 120 0, dirstat 120 0, mkdir 120 0, remove 120 0, rmdir 120 0, stat 120 0" \
		"operations of each phase" || return 1
	for pc in "create|CREATE 120" "stat|GETATTR 120, LOOKUP 120" "remove|REMOVE 120" \
		"mkdir|MKDIR 120" "dirstat|GETATTR 120, LOOKUP 120" "rmdir|RMDIR 120"; do
		ph=${pc%%|*}
		expect_eq "$(q w.db "SELECT GROUP_CONCAT(op || ' ' || n, ', ') FROM (SELECT op, SUM(ops) AS n
			FROM rpc_stat WHERE source = 'libnfs' AND phase = '$ph' AND ops > 0 GROUP BY op ORDER BY op)")" \
			"${pc#*|}" "the $ph phase's calls on the wire" || return 1
	done
	# report's rpc column names each of them, none lumped as "other"
	expect_eq "$(q w.db "SELECT group_concat(phase || ': ' || mix, '; ') FROM (SELECT m.phase, m.mix FROM rpc_mix m
		JOIN phase_run p USING (combo_id, phase) WHERE m.source = 'libnfs' ORDER BY p.phase_order)")" \
		"create: CREATE 120; stat: GETATTR 120, LOOKUP 120; remove: REMOVE 120; mkdir: MKDIR 120; dirstat: GETATTR 120, LOOKUP 120; rmdir: RMDIR 120" \
		"the rpc column" || return 1
	$ST report --db "$T/w.db" --wide --format csv >report.csv || fail "report" || return 1
	grep -q "MKDIR 120" report.csv || fail "report's rpc column: $(cat report.csv)" || return 1
	expect_eq "$(find "$T"/export -mindepth 1 | wc -l)" 0 "left on the server" || return 1
	# a tree, --depth 2 --fanout 2: each thread enters each of its 4 leaves
	# once, a LOOKUP a level, 6 x 4 x 2 = 48 beyond the 120 of the stats
	$MPIRUN -np 3 $ST --engine libnfs --target "$URL" --threads 2 --files 20 --dir-mode shared \
		--depth 2 --fanout 2 --phases create,stat --db "$T/d.db" --quiet || fail "tree run failed" || return 1
	expect_eq "$(q d.db "SELECT group_concat(phase || ': ' || mix, '; ') FROM (SELECT m.phase, m.mix FROM rpc_mix m
		JOIN phase_run p USING (combo_id, phase) WHERE m.source = 'libnfs' ORDER BY p.phase_order)")" \
		"create: CREATE 120, LOOKUP 48; stat: LOOKUP 168, GETATTR 120" "the tree's calls on the wire" || return 1
	expect_eq "$(find "$T"/export -mindepth 1 | wc -l)" 0 "left on the server by the tree" || return 1
	# kept: the server's one directory holds every thread's directories once
	$MPIRUN -np 3 $ST --engine libnfs --target "$URL" --threads 2 --files 20 --dir-mode shared \
		--phases mkdir --keep on --db "$T/k.db" --quiet || fail "kept run failed" || return 1
	for r in 0 1 2; do for t in 0 1; do i=0; while [ $i -lt 20 ]; do
		echo "m$i.r$r.t$t"; i=$((i + 1)); done; done; done | sort >want
	(cd "$T"/export/stcluster-*/c*/shared.d && ls -A) | sort >have
	cmp -s want have || fail "names on the server: $(diff want have | head -5)" || return 1
	rm -rf "$T"/export/stcluster-*
}

# ganesha.sh's shared rpcbind (the lab's server host, tests/lab/lab.sh) must
# answer on port 111 or start must refuse: on a minimal Debian without
# netbase's /etc/services rpcbind binds no port, yet ran and let ganesha
# start, and only the VM guests' v3 mounts and rpcinfo failed, long after
# (issue 24). Each case runs in a network namespace of its own (port 111
# free, nothing reaches the machine's; with loopback alone ganesha refuses
# 127.0.0.1, "No IP address found", hence a veth with a documentation
# address), and in a mount namespace of its own, where /dev/null stands for
# the missing /etc/services.
t_nfs_shared_rpcbind_that_binds_no_port_is_refused() {
	command -v ganesha.nfsd >/dev/null || { echo "nfs-ganesha is not installed"; return 77; }
	[ "$(id -u)" = 0 ] || { echo "ganesha needs root (FSAL VFS, a private mount namespace)"; return 77; }
	mkdir -p "$T/export"
	# shared_start NAME SERVICES-FILE-OR-EMPTY: ganesha.sh start in a fresh netns;
	# prints "rc=" its exit status (its output in $T/NAME.out), then rpcinfo's
	# first line, then stops it
	shared_start() {
		unshare --mount --net --propagation private sh -c '
			ip link set lo up && ip link add st0 type veth peer name st1 &&
				ip addr add 192.0.2.1/24 dev st0 && ip link set st0 up && ip link set st1 up || exit 9
			[ -z "$2" ] || mount --bind "$2" /etc/services || exit 9
			GANESHA_RPCBIND_NET=shared bash "$TOP/tests/lab/ganesha.sh" start "$T/$1" "$T/export" 192.0.2.1 >"$T/$1.out" 2>&1
			echo "rc=$?"
			rpcinfo -p 192.0.2.1 2>&1 | head -1
			bash "$TOP/tests/lab/ganesha.sh" stop "$T/$1" >/dev/null 2>&1
			exit 0' x "$@"
	}
	out=$(shared_start plain "")
	echo "with /etc/services: $out"
	echo "$out" | grep -qx "rc=0" || { cat "$T/plain.out"; fail "start with /etc/services failed"; return 1; }
	echo "$out" | grep -q "program vers proto" || fail "rpcinfo got no answer on port 111: $out" || return 1
	out=$(shared_start bare /dev/null)
	echo "without: $out"
	echo "$out" | grep -qx "rc=1" || { cat "$T/bare.out"; fail "start without /etc/services: want exit 1, got $out"; return 1; }
	grep -q "^ganesha.sh: start failed: rpcbind does not listen on port 111 within 5 s (no 'sunrpc' in /etc/services: install netbase)" \
		"$T/bare.out" || { cat "$T/bare.out"; fail "no line naming port 111 and netbase"; return 1; }
	# nothing left running: every process that start recorded is gone
	for p in $(awk '{ print $2 }' "$T/bare/pids.info" 2>/dev/null); do
		! kill -0 "$p" 2>/dev/null || fail "pid $p of the refused start still runs" || return 1
	done
}

t_nfs_runtime_and_stonewall_reads_what_was_written() {
	nfs_up tmpfs || return $?
	# 3 ranks: a 0.2 s write stops short of 128m (loopback ganesha moves a few
	# hundred MB/s in all; an idle machine let one rank write 64m whole in
	# 0.2 s, so at least one, not every rank, must be cut short); then the stonewall, where the first rank done
	# stops the slow one. The reads after each (of another rank's file too)
	# find every block written and verified: the files were laid out to
	# --size first. Before: "short ... No data available"
	$MPIRUN -np 3 $ST --engine libnfs --target "$URL" --runtime 0.2 --size 128m --block 64k \
		--reorder on --phases write,read,randread --verify on --keep on --db "$T/r.db" --quiet ||
		fail "runtime run failed: $(q r.db "SELECT message FROM rank_result WHERE errno > 0 LIMIT 1")" || { show_ranks r.db; return 1; }
	expect_eq "$(q r.db "SELECT COUNT(*) || ' ' || SUM(errno > 0) || ' ' || SUM(bad_blocks) FROM rank_result")" \
		"9 0 0" "runtime: phases without an error, every block read verified" || { show_ranks r.db; return 1; }
	[ "$(q r.db "SELECT COUNT(*) FROM rank_result WHERE phase = 'write' AND bytes < 128 * 1048576")" -ge 1 ] ||
		fail "no write cut short by --runtime (the test proves nothing)" || { show_ranks r.db; return 1; }
	no_holes "$T/export" $((128 << 20)) || { show_ranks r.db; return 1; }
	rm -rf "$T"/export/stcluster-*
	# rank 2 a slow client (stopped 40 ms of every 50: ganesha on loopback
	# otherwise serves the three in step, and they end within a millisecond).
	# The export is a tmpfs: on a disk export the first ranks' COMMIT (the
	# phase's end) can take longer than the slow rank's WRITEs, and then no
	# rank is stopped (CI, a slow disk: 16m each, every write whole)
	# (the slow one's, as a rule; under load another may be slower still)
	slow_last_stonewalled 3 s.db $((32 << 20)) "$T/export" --engine libnfs --target "$URL" \
		--stonewall on --size 32m --block 64k --phases write,read --verify on --keep on --quiet ||
		{ show_ranks s.db; return 1; }
	expect_eq "$(q s.db "SELECT COUNT(*) || ' ' || SUM(errno > 0) || ' ' || SUM(bad_blocks) FROM rank_result")" \
		"6 0 0" "stonewall: phases without an error, every block read verified" || { show_ranks s.db; return 1; }
	expect_eq "$(q s.db "SELECT COUNT(*) FROM rank_result WHERE phase = 'read' AND bytes > 32 * 1048576")" \
		0 "reads beyond the file" || { show_ranks s.db; return 1; }
	no_holes "$T/export" $((32 << 20)) || { show_ranks s.db; return 1; }
	rm -rf "$T"/export/stcluster-*
}

# A cluster node without libnfs (issue 19): the binary has no NEEDED entry for it, starts and
# runs the posix engine there; --engine libnfs on such a rank 0 is refused before anything is
# made (one line naming the library and the package, exit 2, no store); a client rank without
# it fails each combination with its own stored error naming the library, while the rank that
# has it and the server it reaches are real (the job's exit: 1, failed combinations).
t_nfs_host_without_libnfs_runs_posix_and_says_what_is_missing() {
	command -v readelf >/dev/null || { echo "readelf is not installed (binutils)"; return 77; }
	expect_eq "$(readelf -d "$ST_BIN" | grep NEEDED | grep -c libnfs)" 0 \
		"NEEDED entries for libnfs: $(readelf -d "$ST_BIN" | grep NEEDED)" || return 1
	nfs_up || return $?
	so=$(objdump -p "$(pkg-config --variable=libdir libnfs)/libnfs.so" | awk '$1 == "SONAME" { print $2 }')
	[ -n "$so" ] || fail "no SONAME of libnfs.so" || return 1
	mkdir d
	without "libnfs.so" $MPIRUN -np 2 $ST --engine posix --target "$T/d" --block 64k --size 1m \
		--phases write,read --db "$T/s.db" >out 2>&1 || fail "posix without libnfs: $(tail -5 out)" || return 1
	expect_eq "$(q s.db "SELECT status || ' ' || (SELECT SUM(bytes) FROM rank_result) FROM run")" \
		"complete 4194304" "posix run without libnfs" || return 1
	without "libnfs.so" $ST --engine libnfs --target "$URL" --size 1m --db "$T/s2.db" >out 2>err
	expect_eq "$? $(wc -l <err)" "2 1" "exit and lines of --engine libnfs without libnfs: $(cat err)" || return 1
	grep -qxF "stcluster: --engine libnfs: $so not found (the libnfs engine loads it at run time: install libnfs${so##*.})" err ||
		fail "the refusal: $(cat err)" || return 1
	[ ! -e s2.db ] || fail "a store was made for a refused run" || return 1
	without "libnfs.so" $ST --help | grep -qF "not usable on this host: $so not found" ||
		fail "--help does not say libnfs is missing here" || return 1
	without_prepare "libnfs.so" || return 1
	$MPIRUN -np 1 $ST --engine libnfs --target "$URL" --size 1m --phases write --db "$T/s3.db" : \
		-np 1 sh "$T/without.sh" $ST --engine libnfs --target "$URL" --size 1m --phases write \
		--db "$T/s3.db" >out 2>&1
	expect_eq "$?" 1 "exit of a job with a rank without libnfs: $(tail -5 out)" || return 1
	expect_eq "$(q s3.db "SELECT status FROM combo")" failed "the combination" || return 1
	expect_eq "$(q s3.db "SELECT group_concat(rank) FROM combo_failure WHERE message LIKE '%$so not found%'")" \
		1 "the rank whose error names $so: $(q s3.db 'SELECT * FROM combo_failure'; tail -5 out)" || return 1
	export_clean
}

# A write's calls apart from its tail (issue 22 item 3): libnfs sends its WRITEs UNSTABLE and the
# COMMIT at close, after the last WRITE's answer, so each rank's tail (its end minus its last
# call's end: view phase_tail) holds its COMMIT's round trip as rpc_stat counted it on the
# wire, and the figure without the tail (fio's for its nfs engine) is at least the whole one.
t_nfs_write_calls_apart_from_the_commit() {
	nfs_up || return $?
	$MPIRUN -np 2 $ST --engine libnfs --target "$URL" --block 1m --size 16m --wsize 256k \
		--sync async --fsync off --phases write,read --db "$T/s.db" --quiet ||
		fail "run failed" || return 1
	expect_eq "$(q s.db "SELECT SUM(ops) FROM rpc_stat WHERE phase = 'write' AND op = 'COMMIT'")" 2 \
		"COMMITs (one a rank, at close)" || return 1
	# each rank: its tail against its COMMIT's round trip (rtt_us: one call's, us)
	q s.db "SELECT r.rank, r.end_ns - k.e, s.rtt_us FROM rank_result r
		JOIN (SELECT combo_id, phase, rank, MAX(end_ns) AS e FROM interval WHERE ops > 0
		      GROUP BY combo_id, phase, rank) k USING (combo_id, phase, rank)
		JOIN rpc_stat s USING (combo_id, phase, rank)
		WHERE r.phase = 'write' AND s.op = 'COMMIT'" >tails
	cat tails
	expect_eq "$(awk -F'|' '$2 >= $3 * 1000 && $3 > 0' tails | wc -l)" 2 \
		"ranks whose tail holds their COMMIT's round trip" || return 1
	expect_eq "$(q s.db "SELECT COUNT(*) FROM phase_tail t JOIN phase_summary s USING (combo_id, phase)
		WHERE t.calls_mbps >= s.agg_mbps AND t.tail_ns = (SELECT MAX(r.end_ns - k.e) FROM rank_result r
		JOIN (SELECT combo_id, phase, rank, MAX(end_ns) AS e FROM interval WHERE ops > 0
		GROUP BY combo_id, phase, rank) k USING (combo_id, phase, rank)
		WHERE r.combo_id = t.combo_id AND r.phase = t.phase)")" 2 \
		"phases whose calls figure is at least the whole and whose tail is the longest rank's" || return 1
	$ST report --db s.db --format csv >r.csv || return 1
	python3 - <<'PY' || fail "the report's calls MB/s and tail ms: $(cat r.csv)"
import csv, sqlite3
con = sqlite3.connect('s.db')
want = dict(con.execute("SELECT phase, ROUND(tail_ns / 1e6, 1) FROM phase_tail"))
rows = list(csv.DictReader(open('r.csv')))
assert len(rows) == 2, rows
for r in rows:
    assert abs(float(r['tail ms']) - want[r['phase']]) < 1e-9, (r, want)
    assert float(r['calls MB/s']) >= float(r['MB/s']), r
PY
	export_clean
}
