# The kernel NFS client, for real: QEMU guests (tests/lab/vm.sh) as client hosts of the lab,
# one MPI job across the head, the server host (nfs-ganesha) and the guests, stcluster's mount
# driver on the guests' Linux 6.1 NFS client. Normal build only (once_*): the guests share one
# lab (tests/lab/vmtest.sh), made by the first test, taken down by after_once. The first run on
# a machine builds the guest image (~1-2 min, cached).
# run.sh: one at a time

. "$TOP/tests/lab/vmtest.sh"

after_once() { vm_lab_release; }

# unmount_target: nothing is left mounted on VMLAB_TARGET in the guests (a test's own mounts)
unmount_target() {
	for g in $VMLAB_GUESTS; do
		vm_on $g sh -c "while mountpoint -q '$VMLAB_TARGET'; do umount '$VMLAB_TARGET' || umount -l '$VMLAB_TARGET' || exit 1; done"
	done
}

# nothing_mounted WHAT: no guest has anything mounted on VMLAB_TARGET
nothing_mounted() {
	for g in $VMLAB_GUESTS; do
		vm_on $g sh -c "! mountpoint -q '$VMLAB_TARGET'" ||
			fail "$1: $g still has a mount on $VMLAB_TARGET: $(vm_on $g grep " $VMLAB_TARGET " /proc/self/mountinfo)" || return 1
	done
}

# watch_mounts GUEST: in the guest, from now on, every change of the options of the top NFS
# mount on VMLAB_TARGET (a new combination's mount; a remount with the same options is no
# change) is appended to /tmp/mounts.log, polled every 50 ms with bash builtins only (forks
# are slow under TCG); stop_watch ends the watcher (by PID)
watch_mounts() {
	vm_on "$1" bash -c 'rm -f /tmp/mounts.log /tmp/watch.tick && mkfifo -m 600 /tmp/watch.tick || exit 1
		setsid bash -c "echo \$\$ > /tmp/watch.pid; exec 9<> /tmp/watch.tick; last=
			for ((;;)); do
				top=
				while read -r l; do
					case \$l in *\" $0 \"*\" - nfs\"*) top=\$l ;; esac
				done < /proc/self/mountinfo
				if [ -n \"\$top\" ] && [ \"\${top#* - }\" != \"\$last\" ]; then
					echo \"\$top\" >> /tmp/mounts.log; last=\${top#* - }
				fi
				read -t 0.05 -u 9
			done" </dev/null >/dev/null 2>&1 &' "$VMLAB_TARGET"
}

stop_watch() {
	vm_on "$1" sh -c 'read -r p < /tmp/watch.pid && kill $p 2>/dev/null; rm -f /tmp/watch.pid /tmp/watch.tick'
}

# mount_opts: the test's own reading of mountinfo lines (stdin): per line "vers rsize wsize
# sync|async hard|soft timeo retrans lock|nolock" from the superblock options, as nfs(5)
# names them (vers=4.0 as stcluster stores it: 4)
mount_opts() {
	awk '{
		i = 1; while ($i != "-") i++
		n = split($(i + 3), o, ","); split($6, m, ",")
		v = ""; r = ""; w = ""; s = "async"; h = "hard"; t = ""; x = ""; l = "lock"
		for (k = 1; k <= n; k++) {
			split(o[k], kv, "=")
			if (kv[1] == "vers") v = kv[2] == "4.0" ? "4" : kv[2]
			else if (kv[1] == "rsize") r = kv[2]
			else if (kv[1] == "wsize") w = kv[2]
			else if (kv[1] == "sync") s = "sync"
			else if (kv[1] == "soft" || kv[1] == "softerr") h = "soft"
			else if (kv[1] == "timeo") t = kv[2]
			else if (kv[1] == "retrans") x = kv[2]
			else if (kv[1] == "nolock" || o[k] == "local_lock=all") l = "nolock"
		}
		for (k in m) if (m[k] == "sync") s = "sync"
		print v, r, w, s, h, t, x, l
	}'
}

# stored_opts DB RANK: the same fields from the store, per combination in seq order: what the
# run says the kernel granted rank RANK
stored_opts() {
	q "$1" "SELECT (SELECT group_concat(v, ' ') FROM (SELECT COALESCE(e.effective, '?') AS v
			FROM (SELECT 'vers' AS o, 1 AS k UNION SELECT 'rsize', 2 UNION SELECT 'wsize', 3
			      UNION SELECT 'sync', 4 UNION SELECT 'hard', 5 UNION SELECT 'timeo', 6
			      UNION SELECT 'retrans', 7) w
			LEFT JOIN effective_option e ON e.combo_id = c.combo_id AND e.rank = $2 AND e.option = w.o
			ORDER BY w.k)) || ' ' ||
		COALESCE((SELECT effective FROM effective_option WHERE combo_id = c.combo_id AND rank = $2 AND option = 'lock'), 'lock')
		FROM combo c ORDER BY c.seq" |
		awk '{ for (i = 2; i <= 3; i++) { u = substr($i, length($i)); n = $i + 0
			if (u == "k") $i = n * 1024; else if (u == "m") $i = n * 1048576 }; print }'
}

# The issue's sweep, lockstep across both guests in ONE job with the server host's rank (rank
# 0: the store, sampling the server): vers 3, 4(.0), 4.1, 4.2 x rsize 64k, 1m x sync, async x
# hard, soft, each combination mounted by the mount driver on each guest. Every combination
# runs; NFSv3 without rpc.statd gets nolock, stored as added; what the store says the kernel
# granted is what the guests' own mountinfo showed; every rank and phase says what went over
# the wire (WRITE bytes as written, READ bytes as read); the read after the write remounted
# (its READs went out); and at the end nothing of stcluster's is mounted on the target.
once_vm_sweep_on_the_kernel_client_with_the_server_rank() {
	vm_lab || return $?
	trap 'for g in $VMLAB_GUESTS; do stop_watch $g; done; unmount_target' EXIT
	for g in $VMLAB_GUESTS; do watch_mounts $g || fail "cannot watch $g's mounts" || return 1; done
	t0=$(date +%s)
	vm_mpirun -np $VMLAB_NP $ST --engine posix --mount "$VMLAB_SERVER:/export" --target "$VMLAB_TARGET" \
		--vers 3,4,4.1,4.2 --rsize 64k,1m --sync sync,async --hard hard,soft \
		--block 1m --size 2m --phases write,read --baseline off --db "$T/s.db" >out 2>&1 ||
		vm_job_failed $? out "$T/s.db" || return 1
	echo "the sweep: $(($(date +%s) - t0)) s"
	for g in $VMLAB_GUESTS; do stop_watch $g; done
	expect_eq "$(q s.db "SELECT status FROM run")" complete "run status" || return 1
	expect_eq "$(q s.db "SELECT group_concat(rank || ':' || hostname || ':' || role, ' ') FROM (SELECT * FROM host ORDER BY rank)")" \
		"0:$VMLAB_S1:server 1:$VMLAB_V1:client 2:$VMLAB_V2:client" "host rows: the server host's rank in the job" || return 1
	expect_eq "$(q s.db "SELECT COUNT(*) FROM combo WHERE status = 'ok'")" 32 "combinations ok" || return 1
	sed -n '/^$/,$p' out | head -12
	# NFSv3: nolock added (no rpc.statd in the guests), recorded as unasked, with mount.nfs's reason
	expect_eq "$(q s.db "SELECT COUNT(*) FROM effective_option e JOIN combo c USING (combo_id) WHERE c.vers = '3' AND e.option = 'lock' AND e.requested IS NULL AND e.effective = 'nolock' AND e.note LIKE 'nolock added by stcluster%rpc.statd is not running%'")" \
		16 "nolock added to every NFSv3 mount of both guests" || return 1
	expect_eq "$(q s.db "SELECT COUNT(*) FROM effective_option WHERE option = 'lock'")" 16 "and to no other" || return 1
	# the store's effective options are the guest's mountinfo, one line per combination in order
	for r in 1 2; do
		g=$VMLAB_PREFIX-v$r
		vm_on $g cat /tmp/mounts.log >mounts.$r || fail "no mount log in $g" || return 1
		mount_opts <mounts.$r >seen.$r
		stored_opts s.db $r >stored.$r
		cmp -s seen.$r stored.$r || { diff seen.$r stored.$r | head; fail "$g: stored effective options differ from its mountinfo"; return 1; }
	done
	expect_eq "$(wc -l <seen.1)" 32 "distinct mounts seen in $VMLAB_V1" || return 1
	head -3 seen.1
	# what went over the wire: every client rank and phase, from its kernel's mountstats
	expect_eq "$(q s.db "SELECT COUNT(*) FROM rpc_stat WHERE op = 'xprt' AND source = 'mountstats' AND rank IN (1, 2)")" \
		$((32 * 2 * 2)) "RPC rows: every combination, phase and client rank" || return 1
	expect_eq "$(q s.db "SELECT COUNT(*) FROM rpc_stat WHERE rank = 0")" 0 "none for the server rank" || return 1
	# WRITE bytes as written, READ bytes as read: 2 MiB each, plus RPC headers (< 2 %)
	expect_eq "$(q s.db "SELECT COUNT(*) FROM rpc_stat r JOIN rank_result x USING (combo_id, phase, rank)
		WHERE r.op = 'WRITE' AND r.phase = 'write' AND x.bytes = 2097152 AND r.bytes_sent BETWEEN x.bytes AND x.bytes * 1.02")" \
		64 "WRITE bytes of every write phase" || return 1
	expect_eq "$(q s.db "SELECT COUNT(*) FROM rpc_stat r JOIN rank_result x USING (combo_id, phase, rank)
		WHERE r.op = 'READ' AND r.phase = 'read' AND x.bytes = 2097152 AND r.bytes_recv BETWEEN x.bytes AND x.bytes * 1.02
		  AND r.ops = 2097152 / (SELECT CAST(effective AS INTEGER) * CASE WHEN effective LIKE '%k' THEN 1024 ELSE 1048576 END
		                         FROM effective_option e WHERE e.combo_id = r.combo_id AND e.rank = r.rank AND e.option = 'rsize')")" \
		64 "READ bytes and calls (one per rsize) of every read phase" || return 1
	# the cache drop before each read remounted, said why, and the read then went to the server
	expect_eq "$(q s.db "SELECT COUNT(*) FROM rank_result WHERE phase = 'read' AND cache_drop = 'remount' AND cache_drop_note LIKE 'remounted (a new superblock%no drop_caches%'")" \
		64 "remounts before the reads, with the reason" || return 1
	expect_eq "$(q s.db "SELECT COUNT(*) FROM phase_run WHERE phase = 'read' AND cache_drop = 'remount'")" 32 "phase_run.cache_drop" || return 1
	expect_eq "$(q s.db "SELECT COUNT(*) FROM rpc_flag WHERE flag LIKE 'read after%'")" 0 "no read answered by the cache" || return 1
	# 1 MiB O_DIRECT writes, wsize 1 MiB: one WRITE each, FILE_SYNC whatever --sync said
	expect_eq "$(q s.db "SELECT DISTINCT ops || ' ' || file_sync || ' ' || unstable FROM rpc_stat WHERE op = 'WRITE' AND phase = 'write'")" \
		"2 2 0" "WRITEs per rank and write phase: FILE_SYNC" || return 1
	expect_eq "$(q s.db "SELECT COUNT(*) || ' ' || SUM(k.sync = 'async') FROM rpc_flag f JOIN combo k USING (combo_id) WHERE f.flag = 'async asked, FILE_SYNC sent'")" \
		"16 16" "async combinations flagged: FILE_SYNC sent" || return 1
	$ST report --db s.db --phase write --format csv >w.csv || return 1
	grep -q 'WRITE 4 x 1024 KiB ~FILE_SYNC, COMMIT 0' w.csv && grep -q 'async asked, FILE_SYNC sent' w.csv ||
		fail "the report shows the RPC mix and the flag: $(head -3 w.csv)" || return 1
	$ST report --db s.db --html r.html || return 1
	grep -q "What went over the wire" r.html && grep -q 'class="flag"' r.html || fail "the html report's wire section" || return 1
	# advise names the kernel mount line to paste: -o the write phase's best combination as
	# stored (one iteration: its mean is its one figure), the server's export, the target
	$ST advise --db s.db --phase write >adv.txt || return 1
	use=$(sed -n 's/^ *use  *//p' adv.txt)
	best=$(q s.db "SELECT 'vers=' || vers || ' rsize=' || rsize || ' ' || sync || ' ' || hard FROM result
		WHERE phase = 'write' ORDER BY agg_mbps DESC LIMIT 1")
	case $use in "mount -t nfs -o "*" $VMLAB_SERVER:/export $VMLAB_TARGET"*) ;; *)
		fail "advise's line is no kernel mount of the export: $(cat adv.txt)"; return 1 ;; esac
	opts=,$(echo "$use" | awk '{ print $5 }'),
	for w in $best; do
		case $opts in *",$w,"*) ;; *) fail "advise's -o lacks $w of the best ($best): $use"; return 1 ;; esac
	done
	echo "advise: $use"
	nothing_mounted "after the run" || return 1
	expect_eq "$(ls -A "$VMLAB_EXPORT")" "" "the export left clean"
}

# guest_trace_start GUEST / guest_trace GUEST: the guest kernel's own record of every NFS
# WRITE it sent (tracepoint nfs:nfs_initiate_write, CLOCK_MONOTONIC), as "ns stable_how" lines
guest_trace_start() {
	vm_on "$1" sh -c 'T=/sys/kernel/tracing; [ -d $T/events/nfs ] || mount -t tracefs nodev $T || exit 1
		echo 0 > $T/tracing_on; echo mono > $T/trace_clock; echo 8192 > $T/buffer_size_kb; echo > $T/trace
		echo 1 > $T/events/nfs/nfs_initiate_write/enable && echo 1 > $T/tracing_on'
}
guest_trace() {
	vm_on "$1" sh -c 'T=/sys/kernel/tracing; echo 0 > $T/tracing_on; echo 0 > $T/events/nfs/nfs_initiate_write/enable
		cat $T/trace; echo > $T/trace' |
		awk '/nfs_initiate_write:/ { for (i = 1; i <= NF; i++) if ($i ~ /^[0-9]+\.[0-9]+:$/) t = $i
			sub(/:$/, "", t); split(t, p, "."); st = $0; sub(/.*stable=/, "", st); sub(/ .*/, "", st)
			printf "%d%06d000 %s\n", p[1], p[2], st }'
}

# sync, async x O_DIRECT on, off x a write that fits one WRITE (1 MiB, wsize 1 MiB) or not
# (4 MiB): the stable_how the store gives each write phase is what the guest's kernel sent,
# as its tracepoint saw every WRITE in that rank's phase (on the common timeline: the store's
# times plus the rank's clock offset are the guest's CLOCK_MONOTONIC).
once_vm_stable_how_is_what_the_kernel_sent() {
	vm_lab || return $?
	trap 'unmount_target' EXIT
	for g in $VMLAB_GUESTS; do guest_trace_start $g || fail "no tracefs in $g" || return 1; done
	vm_mpirun -np $VMLAB_NP $ST --engine posix --mount "$VMLAB_SERVER:/export" --target "$VMLAB_TARGET" \
		--vers 4.2 --wsize 1m --block 1m,4m --size 4m --direct on,off --sync sync,async \
		--phases write --baseline off --db "$T/s.db" --quiet >out 2>&1 ||
		vm_job_failed $? out "$T/s.db" || return 1
	expect_eq "$(q s.db "SELECT COUNT(*) FROM combo WHERE status = 'ok'")" 8 "combinations ok" || return 1
	for r in 1 2; do
		guest_trace $VMLAB_PREFIX-v$r >trace.$r
		[ -s trace.$r ] || fail "$VMLAB_PREFIX-v$r's trace is empty" || return 1
		q s.db "SELECT c.seq, x.start_ns - 50000000 + h.clock_offset_ns, x.end_ns + 50000000 + h.clock_offset_ns,
			r.file_sync, r.unstable, c.block || '/' || c.direct || '/' || c.sync
			FROM rank_result x JOIN combo c USING (combo_id) JOIN host h ON h.run_id = c.run_id AND h.rank = x.rank
			JOIN rpc_stat r ON r.combo_id = x.combo_id AND r.phase = x.phase AND r.rank = x.rank AND r.op = 'WRITE'
			WHERE x.rank = $r ORDER BY c.seq" | tr '|' ' ' >phases.$r
		awk 'NR == FNR { t[NR] = $1; s[NR] = $2; n = NR; next }
			{ fs = 0; un = 0
			  for (i = 1; i <= n; i++) if (t[i] >= $2 && t[i] <= $3) { if (s[i] == "UNSTABLE") un++; else fs++ }
			  printf "%s %s stored %d FILE_SYNC %d UNSTABLE, sent %d %d\n", $1, $6, $4, $5, fs, un
			  if (fs != $4 || un != $5) bad = 1 }
			END { exit bad }' trace.$r phases.$r >cmp.$r
		rc=$?
		cat cmp.$r
		[ $rc = 0 ] || fail "$VMLAB_PREFIX-v$r: the stored stable_how is not what the kernel sent" || return 1
	done
	# and the rule, as Linux 6.1 applies it: a write that fits one WRITE goes FILE_SYNC, a larger
	# one UNSTABLE + COMMIT, with O_DIRECT (whatever --sync says) and on a sync mount; buffered
	# on an async mount: UNSTABLE, COMMIT at fsync or close
	expect_eq "$(q s.db "SELECT group_concat(x, ' ') FROM (SELECT c.block || '/' || c.direct || '/' || c.sync || '=' ||
			CASE WHEN r.unstable = 0 THEN 'F' WHEN r.file_sync = 0 THEN 'U' ELSE 'mixed' END AS x
		FROM rpc_stat r JOIN combo c USING (combo_id) WHERE r.op = 'WRITE' AND r.rank = 1 ORDER BY c.seq)")" \
		"1048576/on/sync=F 1048576/on/async=F 1048576/off/sync=F 1048576/off/async=U 4194304/on/sync=U 4194304/on/async=U 4194304/off/sync=U 4194304/off/async=U" \
		"FILE_SYNC (F) or UNSTABLE (U) per block/direct/sync" || return 1
	expect_eq "$(q s.db "SELECT group_concat(c.seq || ':' || f.flag, ' ') FROM (SELECT * FROM rpc_flag ORDER BY combo_id) f JOIN combo c USING (combo_id) WHERE f.flag LIKE '%sync%'")" \
		"1:async asked, FILE_SYNC sent 4:sync asked, UNSTABLE sent 6:sync asked, UNSTABLE sent" "the contradictions flagged" || return 1
	expect_eq "$(q s.db "SELECT group_concat(c.seq, ' ') FROM (SELECT * FROM rpc_flag ORDER BY combo_id) f JOIN combo c USING (combo_id)
		WHERE (c.direct = 'on' AND f.detail LIKE '%(O_DIRECT: a write larger than wsize goes UNSTABLE + COMMIT, whatever sync says)')
		   OR (c.direct = 'off' AND f.detail LIKE '%(a sync mount sends a write larger than wsize UNSTABLE + COMMIT)')")" \
		"4 6" "the flags explain the rule that applied" || return 1
	nothing_mounted "after the run" || return 1
	expect_eq "$(ls -A "$VMLAB_EXPORT")" "" "the export left clean"
}

# A target that is a mount point already (a production mount): refused by default, one line
# naming the guest, nothing created; with --mount-over stcluster mounts over it and at the end
# it is back as it was - the same mount, its options. The mount below is of the same server
# with nconnect=2, so the kernel's one client per server gives stcluster's mount nconnect=2
# too: stored as an override, explained, flagged. mount.nfs's refusals keep their errno and
# text: NFSv3 over udp (ganesha has none), an option the kernel does not know.
once_vm_premounted_target_refused_or_restored() {
	vm_lab || return $?
	trap 'unmount_target' EXIT
	for g in $VMLAB_GUESTS; do
		vm_on $g mount -t nfs4 -o vers=4.1,nconnect=2,actimeo=7 "$VMLAB_SERVER:/export" "$VMLAB_TARGET" ||
			fail "the pre-existing mount in $g" || return 1
		vm_on $g grep " $VMLAB_TARGET " /proc/self/mountinfo >before.$g
	done
	vm_mpirun -np $VMLAB_NP $ST --engine posix --mount "$VMLAB_SERVER:/export" --target "$VMLAB_TARGET" \
		--vers 4.1 --block 1m --size 1m --baseline off --db "$T/s.db" --quiet >out 2>err
	expect_eq $? 2 "exit status of the refusal" || return 1
	expect_eq "$(grep -c '^stcluster:' err)" 1 "lines of the refusal" || return 1
	grep -q "^stcluster: --target: '$VMLAB_TARGET' on host $VMLAB_V1 (rank 1): $VMLAB_TARGET is already a mount point (nfs4 $VMLAB_SERVER:/export): stcluster mounts over it only with --mount-over" err ||
		fail "the refusal: $(cat err)" || return 1
	[ ! -e s.db ] || fail "a store was created" || return 1
	# exit 1: it finishes, one combination failed (the bogus option)
	vm_mpirun -np $VMLAB_NP $ST --engine posix --mount "$VMLAB_SERVER:/export" --target "$VMLAB_TARGET" \
		--mount-over --vers 4.1 --mount-opts "noatime;bogus_option" --block 1m --size 1m \
		--baseline off --db "$T/s.db" --quiet >out 2>&1
	rc=$?
	[ $rc = 1 ] || fail "the run with --mount-over: exit $rc: $(tail -5 out)" || return 1
	# NFSv3 over UDP, which ganesha does not serve (NFSv4 over UDP is an invalid option, EINVAL)
	vm_mpirun -np $VMLAB_NP $ST --engine posix --mount "$VMLAB_SERVER:/export" --target "$VMLAB_TARGET" \
		--mount-over --vers 3 --proto udp --block 1m --size 1m --baseline off --db "$T/u.db" --quiet >out 2>&1
	for g in $VMLAB_GUESTS; do
		vm_on $g grep " $VMLAB_TARGET " /proc/self/mountinfo >after.$g
		cmp -s before.$g after.$g || fail "$g: the mount below is not as it was: $(cat before.$g) / $(cat after.$g)" || return 1
	done
	expect_eq "$(q s.db "SELECT group_concat(status, ' ') FROM (SELECT status FROM combo ORDER BY seq)")" "ok failed" "statuses" || return 1
	expect_eq "$(q u.db "SELECT status || ' ' || f.errno_name FROM combo_failure f JOIN combo c USING (combo_id) WHERE f.rank = 1")" \
		"failed EPROTONOSUPPORT" "udp refused: errno" || return 1
	q u.db "SELECT f.message FROM combo_failure f WHERE f.rank = 1" |
		grep -q "mount.nfs: requested NFS version or transport protocol is not supported" ||
		fail "udp refused: mount.nfs's text: $(q u.db 'SELECT message FROM combo_failure')" || return 1
	expect_eq "$(q s.db "SELECT DISTINCT f.errno_name FROM combo_failure f JOIN combo c USING (combo_id) WHERE c.seq = 1")" \
		EINVAL "an unknown option refused: errno" || return 1
	q s.db "SELECT f.message FROM combo_failure f JOIN combo c USING (combo_id) WHERE c.seq = 1" |
		grep -q "mount.nfs: an incorrect mount option was specified" || fail "an unknown option refused: mount.nfs's text" || return 1
	# the kernel's one client per server: nconnect 2 from the mount below, explained and flagged
	expect_eq "$(q s.db "SELECT COUNT(*) FROM effective_option e JOIN combo c USING (combo_id) WHERE c.seq = 0 AND e.option = 'nconnect' AND e.effective = '2' AND e.note LIKE '%shares one client per server%$VMLAB_SERVER:/export on $VMLAB_TARGET made it'")" \
		2 "inherited nconnect explained" || return 1
	q s.db "SELECT detail FROM rpc_flag f JOIN combo c USING (combo_id) WHERE c.seq = 0 AND flag = 'requested != effective'" |
		grep -q "nconnect: (not asked) -> 2" || fail "inherited nconnect flagged" || return 1
	unmount_target || return 1
	expect_eq "$(ls -A "$VMLAB_EXPORT")" "" "the export left clean"
}

# A hard mount whose server stops answering, with --progress plain and rank 0 a client on a
# guest: its own I/O thread hangs in the kernel, and the job still ends by --deadline + grace
# (5 s + 5 s + 10 %), exit status 3, the run aborted naming rank 0; rank 0's host detaches
# its mount on the way out.
once_vm_hung_hard_mount_ends_by_the_deadline() {
	vm_lab || return $?
	gpid=$(awk '$1 == "ganesha" { print $2 }' "$VMLAB_DIR/ganesha/pids.info")
	[ -n "$gpid" ] || fail "no ganesha pid" || return 1
	trap 'kill -CONT $gpid 2>/dev/null; unmount_target; rm -rf "$VMLAB_EXPORT"/stcluster-*' EXIT
	printf '%s slots=1\n' $VMLAB_GUESTS >guests
	vm_on $VMLAB_V1 rm -f /root/h.db /root/h.db-wal /root/h.db-shm || return 1
	t0=$(date +%s%N)
	timeout 150 "$TOP/tests/lab/lab.sh" run "$VMLAB_DIR" -- mpirun -hostfile "$T/guests" -np 2 $ST --engine posix \
		--mount "$VMLAB_SERVER:/export" --target "$VMLAB_TARGET" --vers 4.2 --hard hard --block 1m --size 256m \
		--phases write --deadline 5 --progress plain --baseline off --db /root/h.db >out 2>&1 &
	job=$!
	# once both ranks write, the server stops answering
	k=0
	while [ "$(find "$VMLAB_EXPORT" -name 'r*.t0' -size +1024k 2>/dev/null | wc -l)" -lt 2 ]; do
		k=$((k + 1))
		[ $k -lt 600 ] && kill -0 $job 2>/dev/null || { kill $job; fail "the write phase never began: $(tail -5 out)"; return 1; }
		sleep 0.1
	done
	kill -STOP $gpid
	frozen=$(date +%s%N)
	wait $job
	rc=$?
	took=$((($(date +%s%N) - frozen) / 1000000))
	kill -CONT $gpid
	cat out | tail -5
	echo "the job ended $took ms after the server stopped answering (exit $rc)"
	[ $rc = 3 ] || fail "exit status $rc, want 3 (124: still running after 150 s)" || return 1
	# the bound: the phase's deadline (5 s from its start, before the freeze) + 5 s + 10 %,
	# and MPI's teardown
	[ $took -lt 40000 ] || fail "the job took $took ms after the freeze" || return 1
	# the abort was marked in the WAL of the store (rank 0 ended before a checkpoint)
	vm_on $VMLAB_V1 cat /root/h.db >h.db || fail "no store on $VMLAB_V1" || return 1
	vm_on $VMLAB_V1 cat /root/h.db-wal >h.db-wal 2>/dev/null || rm -f h.db-wal
	expect_eq "$(q h.db "SELECT status || ' ' || abort_rank FROM run")" "aborted 0" "the run aborted, naming rank 0" || return 1
	q h.db "SELECT abort_reason FROM run" | grep -q "^rank 0 (host $VMLAB_V1).* did not reach the end of phase write within" ||
		fail "the reason: $(q h.db 'SELECT abort_reason FROM run')" || return 1
	vm_on $VMLAB_V1 sh -c "! mountpoint -q '$VMLAB_TARGET'" || fail "rank 0's host did not detach its mount" || return 1
	# the ranks end together (issue 19 item 6): rank 1's host detached its
	# mount too, and what neither could remove is in the run, host by host
	vm_on $VMLAB_V2 sh -c "! mountpoint -q '$VMLAB_TARGET'" || fail "rank 1's host kept its mount" || return 1
	left=$(q h.db "SELECT cleanup FROM run")
	echo "run.cleanup: $left"
	for r in "0 (host $VMLAB_V1)" "1 (host $VMLAB_V2)"; do
		case "$left" in
		*"rank $r: "*"stcluster-"*) ;;
		*) fail "run.cleanup does not say what rank $r left: '$left'"; return 1 ;;
		esac
	done
	unmount_target
}

# What the lab promises the mount driver's tests, with mount(8) itself in a guest: NFSv4.2
# and NFSv3 mounts of the server host; v3 finds the server's rpcbind (port 111) and needs
# nolock, the guest running no rpc.statd; drop_caches, umount; LAB_DIR and the tree shared in.
once_vm_guest_kernel_mounts_v3_and_v4() {
	vm_lab || return $?
	g=$VMLAB_V2
	vm_on $g bash -s "$VMLAB_SERVER" "$VMLAB_DIR" "$TOP" >out 2>&1 <<'EOF'
	s=$1 lab=$2 top=$3
	set -x
	mkdir -p /mnt/k || exit 1
	rpcinfo -p "$s" | grep -q ' 100005 *3 *tcp *20048 *mountd' || exit 11
	rpcinfo -p "$s" | grep -q ' 100003 *3 *tcp *2049 *nfs' || exit 12
	mount -t nfs -o vers=3 "$s:/export" /mnt/k 2>/tmp/nolock.err && exit 13
	cat /tmp/nolock.err
	grep -q 'statd' /tmp/nolock.err || exit 14
	mount -t nfs -o vers=3,nolock "$s:/export" /mnt/k || exit 15
	grep " /mnt/k " /proc/self/mountinfo | grep -q " - nfs $s:/export .*vers=3,.*nolock" || exit 16
	dd if=/dev/zero of=/mnt/k/v3 bs=64k count=4 oflag=direct 2>/dev/null || exit 17
	echo 3 > /proc/sys/vm/drop_caches || exit 18
	umount /mnt/k || exit 19
	mount -t nfs -o vers=4.2 "$s:/export" /mnt/k || exit 20
	grep " /mnt/k " /proc/self/mountinfo | grep -q " - nfs4 $s:/export .*vers=4.2," || exit 21
	[ "$(stat -c %s /mnt/k/v3)" = 262144 ] || exit 22
	rm /mnt/k/v3 && umount /mnt/k || exit 23
	[ -x "$top/stcluster" ] && [ -x "$lab/launcher" ] || exit 24
	echo ok
EOF
	rc=$?
	[ $rc = 0 ] && grep -qx ok out || { cat out; fail "in $g: exit $rc"; return 1; }
	expect_eq "$(ls -A "$VMLAB_EXPORT")" "" "the export left clean"
}

# A guest that does not come up within the bound: one line, and nothing is left behind.
once_vm_guest_that_never_comes_up_is_one_line() { never_up_is_one_line v1 --vm-clients 1; }

# the same for a knfsd server guest: its disk and all go with the lab
once_vm_knfsd_guest_that_never_comes_up_is_one_line() { never_up_is_one_line n1 --vm-servers 1 --vm-disk-bps 20000000; }

# never_up_is_one_line GUEST LAB.SH-OPTIONS...: a lab whose guest PREFIX-GUEST is not up within
# 1 s is one line naming it, and leaves nothing behind
never_up_is_one_line() {
	command -v qemu-system-x86_64 >/dev/null || { echo "qemu-system-x86_64 is not installed"; return 77; }
	guest=$1
	shift
	STLAB_VM_BOOT_WAIT=1 "$TOP/tests/lab/lab.sh" up "$T/lab" --clients 1 "$@" \
		--prefix "$STLAB_VM2_PREFIX" --subnet "$STLAB_VM2_NET" >out 2>err
	rc=$?
	cat out err
	[ $rc != 0 ] || fail "lab.sh up succeeded" || return 1
	expect_eq "$(grep -c . err)" 1 "lines on stderr" || return 1
	grep -q "^vm.sh: guest $STLAB_VM2_PREFIX-$guest did not come up within 1s (STLAB_VM_BOOT_WAIT); console: " err ||
		fail "the message: $(cat err)" || return 1
	[ ! -e "$T/lab" ] || fail "LAB_DIR left: $(ls -A "$T/lab")" || return 1
	for ns in /run/netns/$STLAB_VM2_PREFIX-*; do
		[ ! -e "$ns" ] || fail "namespace left: $ns" || return 1
	done
	for c in /proc/[0-9]*/cmdline; do
		if tr '\0' ' ' <"$c" 2>/dev/null | grep -q "qemu-system.*stlab.host=$STLAB_VM2_PREFIX-$guest"; then
			fail "a qemu of $STLAB_VM2_PREFIX-$guest still runs: ${c%/cmdline}"
			return 1
		fi
	done
}

# read_exec GUEST: "READs execute_ms" of the guest's NFS mount on VMLAB_TARGET so far
# (/proc/self/mountstats, per-op line "READ: ops trans timeouts sent recv queue rtt execute")
read_exec() {
	vm_on "$1" cat /proc/self/mountstats | awk -v m="$VMLAB_TARGET" '
		$1 == "device" { on = ($5 == m) } on && $1 == "READ:" { print $2, $9; exit }'
}

# The posix engine's --iodepth queue on the guests' kernel NFS client (O_DIRECT, NFSv4.2): every
# thread used io_uring with its buffers registered, every byte moved and verified, O_DIRECT granted; and the kernel client
# really had several READs in flight: their execution times, summed (mountstats), exceed the
# read phases' own span on that guest (one at a time they could not: each call's execution lies
# inside the phases, disjoint from the others'). Not by a margin: a guest slowed by a busy host
# issues its calls slowly, so the overlap is small (1.18x once, beside a full ladder), but any
# sum above the span is overlap; a guest that shows none runs the job again (3 runs at most).
once_vm_posix_iodepth_on_the_kernel_nfs_client() {
	vm_lab || return $?
	trap 'unmount_target' EXIT
	for g in $VMLAB_GUESTS; do
		vm_on $g mount -t nfs4 -o vers=4.2 "$VMLAB_SERVER:/export" "$VMLAB_TARGET" ||
			fail "mount in $g" || return 1
	done
	# a guest whose overlap does not show (64 READs executing 59 ms in 62 ms once, the other
	# guest's 287 in 99) runs the job again, 3 times at most: one at a time the sum can never
	# exceed the span, so a guest that never shows it fails
	shown=
	for try in 1 2 3; do
		rm -f "$T/q.db"
		b1=$(read_exec $VMLAB_V1) b2=$(read_exec $VMLAB_V2)
		vm_mpirun -np $VMLAB_NP $ST --engine posix --target "$VMLAB_TARGET" --servers $VMLAB_S1 \
			--block 64k --size 2m --iodepth 8 --direct on --phases write,randread,read --verify on \
			--data random --baseline off --db "$T/q.db" --quiet >out 2>&1 ||
			vm_job_failed $? out "$T/q.db" || return 1
		expect_eq "$(q q.db "SELECT status FROM run")" complete "run status" || return 1
		expect_eq "$(q q.db "SELECT COUNT(*) || ' ' || group_concat(DISTINCT io_mode) FROM thread_result
			WHERE bytes = 2097152 AND ops = 32 AND errno = 0")" "6 io_uring fixed" "client threads: mode, bytes" || return 1
		expect_eq "$(q q.db "SELECT SUM(bad_blocks) || ' ' || SUM(direct_fallback) || ' ' || SUM(errno <> 0) FROM rank_result")" \
			"0 0 0" "--verify, O_DIRECT, errors" || return 1
		for g in $VMLAB_V1 $VMLAB_V2; do
			[ $g = $VMLAB_V1 ] && b=$b1 || b=$b2
			a=$(read_exec $g)
			rank=$(q q.db "SELECT rank FROM host WHERE hostname = '$g'")
			span=$(q q.db "SELECT SUM(end_ns - start_ns) / 1000000 FROM rank_result WHERE rank = $rank AND phase IN ('randread', 'read')")
			ops=$((${a% *} - ${b% *})) exec_ms=$((${a#* } - ${b#* }))
			echo "$g, run $try: $ops READs, executing $exec_ms ms in all, in read phases of $span ms"
			[ "$ops" -ge 64 ] || fail "$g: $ops READs, not 64" || return 1
			[ "$exec_ms" -gt "$span" ] && case " $shown " in *" $g "*) ;; *) shown="$shown $g" ;; esac
		done
		[ "$(echo $shown | wc -w)" = 2 ] && break
	done
	for g in $VMLAB_V1 $VMLAB_V2; do
		case " $shown " in *" $g "*) ;; *) fail "$g: in $try runs its READs never executed longer than the read phases: not several in flight"; return 1 ;; esac
	done
	expect_eq "$(ls -A "$VMLAB_EXPORT")" "" "the export left clean"
}

# nfsd_counts: the test's own reading of the kernel NFS server's /proc/net/rpc/nfsd (stdin):
# "vers OP count" of READ, WRITE, COMMIT for NFSv3 (proc3: null getattr setattr lookup access
# readlink read write ... commit) and NFSv4 (proc4ops, indexed by operation number: COMMIT 5,
# READ 25, WRITE 38; RFC 8881, nfs4.h)
nfsd_counts() {
	awk '$1 == "proc3" { print "3 READ", $9; print "3 WRITE", $10; print "3 COMMIT", $24 }
		$1 == "proc4ops" { print "4.2 READ", $28; print "4.2 WRITE", $41; print "4.2 COMMIT", $8 }'
}

# The kernel's own NFS server (knfsd) in a guest of the lab, its rank a server rank: one job
# with the namespace server host (rank 0, the store), a client guest and the knfsd guest,
# NFSv3 and 4.2, buffered write (UNSTABLE WRITEs and a COMMIT) and read, on the knfsd guest's
# ext4 export. Both combinations ok, every byte moved; and the server received what the client
# sent: the READ, WRITE and COMMIT counts of the server's /proc/net/rpc/nfsd over the job equal,
# per version, the client kernel's mountstats counts stcluster stored for its phases (each op
# goes out in one phase of a version: WRITE and COMMIT in the write phase, READ in the read's);
# and the server rank's stored samples of those calls (nfsd_calls) equal them phase by phase.
# A namespace host reaches the knfsd guest too (libnfs, v3 write and v4 read, fixed ports).
once_vm_knfsd_server_counts_equal_the_clients() {
	vm_lab || return $?
	trap 'vm_on $VMLAB_V1 sh -c "! mountpoint -q $VMLAB_TARGET || umount $VMLAB_TARGET"' EXIT
	printf '%s slots=1\n' $VMLAB_S1 $VMLAB_V1 $VMLAB_N1 >hf
	vm_on $VMLAB_N1 cat /proc/net/rpc/nfsd >nfsd.0 || fail "no /proc/net/rpc/nfsd on $VMLAB_N1" || return 1
	t0=$(date +%s%N)
	"$TOP/tests/lab/lab.sh" run "$VMLAB_DIR" -- mpirun -hostfile "$T/hf" -np 3 $ST --engine posix \
		--mount "$VMLAB_KNFSD:/export" --target "$VMLAB_TARGET" --servers $VMLAB_S1,$VMLAB_N1 \
		--vers 3,4.2 --direct off --block 1m --size 4m --phases write,read --baseline off \
		--db "$T/k.db" --quiet >out 2>&1 || vm_job_failed $? out "$T/k.db" || return 1
	echo "the job on the knfsd guest: $((($(date +%s%N) - t0) / 1000000)) ms"
	vm_on $VMLAB_N1 cat /proc/net/rpc/nfsd >nfsd.1 || return 1
	expect_eq "$(q k.db "SELECT group_concat(rank || ':' || hostname || ':' || role, ' ') FROM (SELECT * FROM host ORDER BY rank)")" \
		"0:$VMLAB_S1:server 1:$VMLAB_V1:client 2:$VMLAB_N1:server" "host rows: the knfsd guest's rank is a server rank" || return 1
	expect_eq "$(q k.db "SELECT group_concat(vers || ':' || status, ' ') FROM (SELECT * FROM combo ORDER BY seq)")" \
		"3:ok 4.2:ok" "combinations" || return 1
	expect_eq "$(q k.db "SELECT COUNT(*) FROM rank_result WHERE rank = 1 AND bytes = 4194304 AND errno = 0")" 4 \
		"the client's phases moved every byte" || return 1
	nfsd_counts <nfsd.0 >c.0 && nfsd_counts <nfsd.1 >c.1 || return 1
	paste -d' ' c.0 c.1 | awk '{ print $1, $2, $6 - $3 }' | sort >server
	q k.db "SELECT c.vers, o.op, COALESCE((SELECT SUM(r.ops) FROM rpc_stat r JOIN combo k USING (combo_id)
			WHERE k.vers = c.vers AND r.op = o.op AND r.rank = 1 AND r.source = 'mountstats'), 0)
		FROM (SELECT DISTINCT vers FROM combo) c, (SELECT 'READ' AS op UNION SELECT 'WRITE' UNION SELECT 'COMMIT') o" |
		tr '|' ' ' | sort >client
	echo "server (/proc/net/rpc/nfsd) and client (mountstats), per version and op:"
	paste -d' ' server client | sed 's/^/    /'
	cmp -s server client || fail "the server's counts differ from the client's: $(diff server client | tr '\n' ' ')" || return 1
	expect_eq "$(awk '$2 != "COMMIT" && $3 >= 4 || $2 == "COMMIT" && $3 >= 1 { n++ } END { print n + 0 }' server)" 6 \
		"at least 4 READs and WRITEs (4 MiB, 1 MiB calls) and a COMMIT per version" || return 1
	# and per phase as the server rank stored them (its sampler of /proc/net/rpc/nfsd: nfsd_calls,
	# a count per interval and operation), beside the client's per phase, only ops that had calls
	q k.db "SELECT c.vers, s.phase, s.device, CAST(SUM(s.value) AS INTEGER) FROM sample s JOIN combo c USING (combo_id)
		WHERE s.metric = 'nfsd_calls' AND s.rank = 2 AND substr(s.device, 4) IN ('READ', 'WRITE', 'COMMIT')
		GROUP BY c.vers, s.phase, s.device" | tr '|' ' ' | sort >stored
	q k.db "SELECT c.vers, r.phase, CASE WHEN c.vers = '3' THEN 'v3 ' ELSE 'v4 ' END || r.op, r.ops
		FROM rpc_stat r JOIN combo c USING (combo_id)
		WHERE r.rank = 1 AND r.source = 'mountstats' AND r.op IN ('READ', 'WRITE', 'COMMIT') AND r.ops > 0" |
		tr '|' ' ' | sort >sent
	echo "per phase, stored by the server rank and by the client:"
	paste -d' ' stored sent | sed 's/^/    /'
	[ "$(wc -l <sent)" = 6 ] && cmp -s stored sent ||
		fail "the server rank's stored calls per phase differ from the client's: $(diff stored sent | tr '\n' ' ')" || return 1
	expect_eq "$(q k.db "SELECT COUNT(*) FROM sample WHERE metric = 'nfsd_calls' AND rank != 2")" 0 \
		"no nfsd_calls where no kernel NFS server runs (rank 0's namespace host)" || return 1
	vm_on $VMLAB_N1 ls -A /export >left || return 1
	expect_eq "$(cat left)" lost+found "the export left clean" || return 1
	u="nfs://$VMLAB_KNFSD/export-tmpfs/ns?nfsport=2049&mountport=20048"
	head -c 100000 /dev/urandom >x || return 1
	"$TOP/tests/lab/lab.sh" run "$VMLAB_DIR" --on $VMLAB_S1 -- sh -c "nfs-cp '$T/x' '$u&version=3' &&
		nfs-cp '$u&version=4' '$T/y'" >libnfs.out 2>&1 && cmp -s x y || fail "libnfs from $VMLAB_S1 to the knfsd guest: $(cat libnfs.out)" || return 1
	vm_on $VMLAB_N1 rm -f /export-tmpfs/ns
}

# The readdir phase on the kernel client (issue 20 item 5): a client guest's 2 threads each list
# their directory of 100 files on the knfsd guest's export over NFSv3, as `ls -l` does
# (getdents, then fstatat of each entry): 200 entries listed; the client's mountstats counts
# the listing's calls (READDIR or READDIRPLUS, at least one a directory), and the server's
# /proc/net/rpc/nfsd, as its rank sampled it over the phase, counts the same.
once_vm_readdir_on_the_kernel_client() {
	vm_lab || return $?
	trap 'vm_on $VMLAB_V1 sh -c "! mountpoint -q $VMLAB_TARGET || umount $VMLAB_TARGET"' EXIT
	printf '%s slots=1\n' $VMLAB_S1 $VMLAB_V1 $VMLAB_N1 >hf
	"$TOP/tests/lab/lab.sh" run "$VMLAB_DIR" -- mpirun -hostfile "$T/hf" -np 3 $ST --engine posix \
		--mount "$VMLAB_KNFSD:/export" --target "$VMLAB_TARGET" --servers $VMLAB_S1,$VMLAB_N1 \
		--vers 3 --threads 2 --files 100 --phases create,readdir --baseline off \
		--db "$T/r.db" --quiet >out 2>&1 || vm_job_failed $? out "$T/r.db" || return 1
	expect_eq "$(q r.db "SELECT ops || ' ' || errors FROM phase_summary WHERE phase = 'readdir'")" "200 0" \
		"entries listed" || return 1
	sent=$(q r.db "SELECT COALESCE(SUM(ops), 0) FROM rpc_stat WHERE rank = 1 AND source = 'mountstats'
		AND phase = 'readdir' AND op IN ('READDIR', 'READDIRPLUS')")
	got=$(q r.db "SELECT CAST(COALESCE(SUM(value), 0) AS INTEGER) FROM sample WHERE rank = 2 AND phase = 'readdir'
		AND metric = 'nfsd_calls' AND device IN ('v3 READDIR', 'v3 READDIRPLUS')")
	echo "readdir phase: the client's mountstats $sent listing calls, the server's nfsd $got;" \
		"the mix: $(q r.db "SELECT mix FROM rpc_mix WHERE phase = 'readdir' AND source = 'mountstats'")"
	[ "$sent" -ge 2 ] && [ "$sent" = "$got" ] ||
		fail "the listing's calls: the client sent $sent, the server counted $got (want equal, >= 2)" || return 1
	vm_on $VMLAB_N1 ls -A /export >left || return 1
	expect_eq "$(cat left)" lost+found "the export left clean" || return 1
}

# A time-based write, then reads, on the kernel client (issue 20 item 1's kernel case): two
# client guests mount the knfsd guest's export (NFSv3, O_DIRECT), a 1 s write of 1 MiB calls
# stops short of --size 32m (about 20 MB/s under TCG; 37-40 MB/s on a quiet host, then 192m:
# a rank's write cut short, or the test proves nothing), and the reads after it, sequential, random and of the other rank's file
# (--reorder), read only what is there: the files were laid out to --size first. 0 errors,
# every block read verified.
once_vm_time_based_write_then_reads_on_the_kernel_client() {
	vm_lab || return $?
	trap 'for g in $VMLAB_GUESTS; do vm_on $g sh -c "! mountpoint -q $VMLAB_TARGET || umount $VMLAB_TARGET"; done' EXIT
	printf '%s slots=1\n' $VMLAB_S1 $VMLAB_V1 $VMLAB_V2 $VMLAB_N1 >hf
	# a write cut short by the 1 s, or the test proves nothing: a guest that wrote the whole
	# --size in it (a ladder at 234dcb3: 37 and 39 MB of 32m, wrapping) runs again
	# with a file 6 times as long (2 x 192m of the export's 512m disk)
	for mb in 32 192; do
		rm -f "$T/t.db"
		"$TOP/tests/lab/lab.sh" run "$VMLAB_DIR" -- mpirun -hostfile "$T/hf" -np 4 $ST --engine posix \
			--mount "$VMLAB_KNFSD:/export" --target "$VMLAB_TARGET" --servers $VMLAB_S1,$VMLAB_N1 \
			--vers 3 --direct on --runtime 1 --size ${mb}m --block 1m --reorder on --verify on \
			--phases write,read,randread --baseline off --db "$T/t.db" --quiet >out 2>&1 ||
			vm_job_failed $? out "$T/t.db" || return 1
		q t.db "SELECT rank, phase, bytes, errno, bad_blocks FROM rank_result WHERE role = 'client'
			ORDER BY rank, phase" | sed 's/^/    /'
		expect_eq "$(q t.db "SELECT COUNT(*) || ' ' || SUM(errno > 0) || ' ' || SUM(bad_blocks) FROM rank_result
			WHERE role = 'client'")" "6 0 0" "phases without an error, every block read verified" || return 1
		[ "$(q t.db "SELECT COUNT(*) FROM rank_result WHERE phase = 'write' AND bytes > 0 AND bytes < $mb * 1048576")" -ge 1 ] &&
			break
		[ $mb = 32 ] || fail "no write cut short by --runtime (the test proves nothing)" || return 1
		echo "    --size ${mb}m: every write whole in the 1 s; again with a longer file"
	done
	vm_on $VMLAB_N1 ls -A /export >left || return 1
	expect_eq "$(cat left)" lost+found "the export left clean" || return 1
}

# Namespace clients with libnfs against the knfsd guest (issue 23): two client ranks on the lab's
# namespace host, the knfsd guest's rank a server rank, NFSv3 over the fixed ports: every byte
# written and read, and the engine's own count of its WRITEs and READs equal to what the
# server's nfsd counted over each phase (its rank's samples), the export's disk found (vdb).
once_vm_libnfs_from_a_namespace_host_against_knfsd() {
	vm_lab || return $?
	printf '%s slots=2\n%s slots=1\n' $VMLAB_S1 $VMLAB_N1 >hf
	"$TOP/tests/lab/lab.sh" run "$VMLAB_DIR" -- mpirun -hostfile "$T/hf" -np 3 $ST --engine libnfs \
		--target "nfs://$VMLAB_KNFSD/export?version=3&nfsport=2049&mountport=20048" \
		--servers $VMLAB_N1 --block 1m --size 8m --phases write,read --baseline off \
		--db "$T/l.db" --quiet >out 2>&1 || vm_job_failed $? out "$T/l.db" || return 1
	expect_eq "$(q l.db "SELECT group_concat(rank || ':' || role, ' ') FROM (SELECT * FROM host ORDER BY rank)")" \
		"0:client 1:client 2:server" "the ranks" || return 1
	expect_eq "$(q l.db "SELECT COUNT(*) FROM rank_result WHERE role = 'client' AND bytes = 8388608 AND errno = 0")" 4 \
		"each client's write and read moved every byte" || return 1
	q l.db "SELECT r.phase, r.op, SUM(r.ops), (SELECT CAST(SUM(s.value) AS INTEGER) FROM sample s
			WHERE s.combo_id = r.combo_id AND s.phase = r.phase AND s.rank = 2 AND s.metric = 'nfsd_calls'
			AND s.device = 'v3 ' || r.op)
		FROM rpc_stat r WHERE r.source = 'libnfs' AND r.op IN ('WRITE', 'READ') AND r.ops > 0
		GROUP BY r.phase, r.op ORDER BY r.phase" | tr '|' ' ' >calls
	echo "phase, op, the engine's count, the server's count:"
	sed 's/^/    /' calls
	expect_eq "$(awk '$3 == $4 && $3 >= 16 { n++ } END { print n + 0 }' calls)" 2 \
		"READ and WRITE: the server counted what libnfs sent (16 calls or more each)" || return 1
	expect_eq "$(q l.db "SELECT DISTINCT export_disk FROM server_parts WHERE rank = 2")" vdb "the export's disk" || return 1
	vm_on $VMLAB_N1 ls -A /export >left || return 1
	expect_eq "$(cat left)" lost+found "the export left clean" || return 1
}

# Issue 23 item 4: the server options as dimensions, on the knfsd guest. Two client guests and
# the knfsd guest in one job, --vers 3 x --server-threads 1,8 x --server-export sync;async, a
# buffered write with its fsync (UNSTABLE WRITEs, then a COMMIT). The knfsd guest's rank applies
# them before the clients mount: the threads and export options stored as in force are what
# was asked, and what the guest shows (/proc/fs/nfsd/threads, exportfs -v) while the job runs;
# a sync export's COMMIT writes the data out (nfsd_commit fsyncs only when the export is sync),
# an async one's returns at once: at each thread count the export's disk wrote the clients'
# data in the phase when sync, and not when async, as the guest's diskstats counted it (the
# COMMIT's time per call is shown: at one thread it is the other client's queue). The ganesha
# host's rank (a --servers host that serves no export the clients use) changes nothing. After
# the run the guest has its own thread count (set to 5 before, so the restore is seen) and
# exports back.
once_vm_knfsd_server_options_applied_read_back_and_restored() {
	vm_lab || return $?
	trap 'for g in $VMLAB_GUESTS; do vm_on $g sh -c "! mountpoint -q $VMLAB_TARGET || umount $VMLAB_TARGET"; done
		vm_on $VMLAB_N1 sh -c "echo 8 >/proc/fs/nfsd/threads; exportfs -ra"' EXIT
	printf '%s slots=1\n' $VMLAB_S1 $VMLAB_V1 $VMLAB_V2 $VMLAB_N1 >hf
	vm_on $VMLAB_N1 sh -c 'echo 5 >/proc/fs/nfsd/threads' || return 1
	vm_on $VMLAB_N1 sh -c 'cat /proc/fs/nfsd/threads; exportfs -v' >before || return 1
	# the guest as the job leaves it at each combination's start: polled while it runs
	vm_on $VMLAB_N1 sh -c 'for i in $(seq 600); do echo "$(cat /proc/fs/nfsd/threads)" \
		"$(exportfs -v | awk "\$1 == \"/export\" { print \$2 }" | tr "()," "\n\n\n" | grep -x "sync\|async")";
		sleep 0.5; done' >seen 2>/dev/null &
	poll=$!
	t0=$(date +%s%N)
	"$TOP/tests/lab/lab.sh" run "$VMLAB_DIR" -- mpirun -hostfile "$T/hf" -np 4 $ST --engine posix \
		--mount "$VMLAB_KNFSD:/export" --target "$VMLAB_TARGET" --servers $VMLAB_S1,$VMLAB_N1 \
		--vers 3 --server-threads 1,8 --server-export 'sync;async' --direct off --fsync on \
		--block 1m --size 8m --phases write --baseline off --sample-hz 10 \
		--db "$T/k.db" --quiet >out 2>&1
	rc=$?
	kill $poll 2>/dev/null
	wait $poll 2>/dev/null
	echo "the job: $((($(date +%s%N) - t0) / 1000000)) ms"
	[ $rc = 0 ] || vm_job_failed $rc out "$T/k.db" || return 1
	vm_on $VMLAB_N1 sh -c 'cat /proc/fs/nfsd/threads; exportfs -v' >after || return 1
	expect_eq "$(q k.db "SELECT group_concat(\"server-threads\" || ':' || \"server-export\" || ':' || status, ' ')
		FROM (SELECT * FROM combo ORDER BY seq)")" "1:sync:ok 1:async:ok 8:sync:ok 8:async:ok" "combinations" || return 1
	echo "stored as in force (rank 3, the knfsd guest):"
	q k.db "SELECT c.seq, e.option, e.requested, e.effective FROM effective_option e JOIN combo c USING (combo_id)
		WHERE e.option LIKE 'server-%' ORDER BY c.seq, e.option, e.rank" | sed 's/^/    /'
	expect_eq "$(q k.db "SELECT COUNT(*) FROM effective_option WHERE option LIKE 'server-%' AND rank != 3")" 0 \
		"server options stored only for the rank that applied them" || return 1
	expect_eq "$(q k.db "SELECT COUNT(*) FROM effective_option WHERE option = 'server-threads' AND effective = requested")" 4 \
		"the thread count read back is the one asked, every combination" || return 1
	expect_eq "$(q k.db "SELECT COUNT(*) FROM effective_option WHERE option = 'server-export'
		AND ',' || effective || ',' LIKE '%,' || requested || ',%'
		AND ',' || effective || ',' NOT LIKE '%,' || CASE requested WHEN 'sync' THEN 'async' ELSE 'sync' END || ',%'
		AND ',' || effective || ',' LIKE '%,rw,%'")" 4 \
		"exportfs -v shows the export sync or async as asked, still rw, every combination" || return 1
	# what the guest showed while the job ran: every pair the job asked for, the
	# server's own (5 threads, its export's own sync or async: the lab's
	# /etc/exports says sync), and between two combinations a pair of one's threads and the
	# other's export (the two are set one after the other); no other count
	own=$(awk 'NR == 1 { t = $1 } $1 == "/export" { n = split($2, o, "[(),]");
		for (i = 1; i <= n; i++) if (o[i] == "sync" || o[i] == "async") e = o[i] } END { print t, e }' before)
	echo "the server's own: $own"
	sort -u seen | grep . >pairs
	echo "seen in the guest during the job: $(tr '\n' ' ' <pairs)"
	for p in "1 sync" "1 async" "8 sync" "8 async" "$own"; do
		grep -qx "$p" pairs || fail "the guest never showed '$p' during the job" || return 1
	done
	expect_eq "$(grep -vx '[158] sync\|[158] async' pairs | tr '\n' ' ')" "" \
		"the guest showed no other threads and export" || return 1
	# the COMMIT's time per call of each combination, the two clients' together: shown, not
	# asserted (with one nfsd thread a COMMIT waits behind the other client's WRITEs, so its
	# time is the load's as much as the export's)
	q k.db "SELECT c.\"server-export\", c.\"server-threads\", SUM(r.ops), SUM(r.rtt_us) * 1.0 / SUM(r.ops)
		FROM rpc_stat r JOIN combo c USING (combo_id) WHERE r.op = 'COMMIT' AND r.source = 'mountstats'
		GROUP BY c.combo_id ORDER BY c.seq" | tr '|' ' ' >commit
	echo "COMMIT per combination (export threads calls us/call):"
	sed 's/^/    /' commit
	expect_eq "$(awk '$3 >= 2 { n++ } END { print n + 0 }' commit)" 4 "a COMMIT from each client, every combination" || return 1
	# what the export option means, on the guest's own disk: a sync export's COMMIT fsyncs,
	# so the clients' 2 x 8 MB are on the export's disk (vdb) before the phase ends; an async
	# one's returns at once and the data stays in the guest's page cache (16 MB is far below
	# its 768 MB's dirty thresholds, and a phase far shorter than the 30 s a page may stay
	# dirty). The MB the disk wrote in the phase: each interval's rate (diskstats, --sample-hz
	# 10 as the job asks) times its length, the first interval taken as one period (0.1 s)
	q k.db "SELECT c.\"server-export\", c.\"server-threads\", ROUND(SUM(x.value * x.dt), 2) FROM (
			SELECT combo_id, value, COALESCE((t_ns - LAG(t_ns) OVER (PARTITION BY combo_id
				ORDER BY t_ns)) / 1e9, 0.1) AS dt
			FROM sample WHERE rank = 3 AND phase = 'write' AND metric = 'disk_write_mbps'
				AND device = 'vdb') x
		JOIN combo c USING (combo_id) GROUP BY c.combo_id ORDER BY c.seq" | tr '|' ' ' >disk
	echo "the export's disk in the write phase (export threads MB written):"
	sed 's/^/    /' disk
	expect_eq "$(wc -l <disk)" 4 "the export's disk sampled in every combination" || return 1
	awk '$1 == "sync" && $3 < 0.8 * 16.8 { bad = 1; print "sync at " $2 " threads: " $3 " MB" }
		$1 == "async" && $3 > 0.3 * 16.8 { bad = 1; print "async at " $2 " threads: " $3 " MB" }
		END { exit bad }' disk ||
		fail "the sync export's disk did not write the clients' 16.8 MB (2 x 8 MiB) in the phase, or the async one's did" || return 1
	q k.db "SELECT c.\"server-export\", c.\"server-threads\", ROUND(p.agg_mbps, 1) FROM phase_summary p JOIN combo c USING (combo_id)
		ORDER BY c.seq" | tr '|' ' ' | sed 's/^/    write MB\/s (export threads MB\/s): /'
	diff before after >/dev/null || fail "the guest's threads and exports after the run differ: $(diff before after | tr '\n' ' ')" || return 1
	expect_eq "$(head -1 after)" 5 "the guest's own thread count back" || return 1
	vm_on $VMLAB_N1 ls -A /export >left || return 1
	expect_eq "$(cat left)" lost+found "the export left clean" || return 1
}

# Issue 23 items 2-3: the server's parts per phase, and the verdict they give, on the knfsd
# guest. Job 1, its disk free: two client guests x 16 threads of O_DIRECT 1 MiB writes against
# --server-threads 1,8: with one nfsd thread most calls arrive while it is busy (pool_stats:
# arrived, threads woken), with eight fewer do; the verdict names "nfsd threads" at 1 and not
# at 8 (where the guest's one CPU may be named). Job 2: the guest's export disk throttled by
# QEMU to 4 MB/s (lab.sh disk-rate; at 20 the guest's CPU under TCG, 16 MB/s of sync WRITEs,
# is the limit before its disk), the export sync and the clients' mounts sync (every WRITE on
# the disk before its reply), 4 writers per client, with the disk baseline on the export
# (--server-dir): the write phase is named disk-bound with the export's disk (vdb, found from
# the export's path), its busy share and MB/s, and the baseline's; the phase and the baseline
# at 4 MB/s +- 10 %.
once_vm_knfsd_verdict_from_the_parts() {
	vm_lab || return $?
	trap 'for g in $VMLAB_GUESTS; do vm_on $g sh -c "! mountpoint -q $VMLAB_TARGET || umount $VMLAB_TARGET"; done
		"$TOP/tests/lab/lab.sh" disk-rate "$VMLAB_DIR" none >/dev/null' EXIT
	printf '%s slots=1\n' $VMLAB_S1 $VMLAB_V1 $VMLAB_V2 $VMLAB_N1 >hf
	job() { # DB ARGS...: the job on the knfsd guest's export
		db=$1; shift
		"$TOP/tests/lab/lab.sh" run "$VMLAB_DIR" -- mpirun -hostfile "$T/hf" -np 4 $ST --engine posix \
			--mount "$VMLAB_KNFSD:/export" --target "$VMLAB_TARGET" --servers $VMLAB_S1,$VMLAB_N1 \
			--vers 3 --phases write --db "$T/$db" --quiet "$@" >out 2>&1 ||
			vm_job_failed $? out "$T/$db"
	}
	t0=$(date +%s%N)
	job p.db --server-threads 1,8 --threads 16 --direct on --block 1m --size 4m --baseline off || return 1
	echo "job 1 (threads 1, 8): $((($(date +%s%N) - t0) / 1000000)) ms"
	q p.db "SELECT c.\"server-threads\", CAST(p.nfsd_threads AS INTEGER), CAST(p.nfsd_arrived AS INTEGER),
			ROUND(p.nfsd_waited_pct, 1), CAST(p.nfsd_calls AS INTEGER), ROUND(p.cpu_busy_pct),
			ROUND(s.agg_mbps, 1), COALESCE(v.verdict, '-')
		FROM combo c JOIN server_parts p USING (combo_id) JOIN phase_summary s USING (combo_id, phase)
		JOIN verdict v USING (combo_id, phase) WHERE p.rank = 3 ORDER BY c.seq" | tr '|' ' ' >pool
	echo "threads asked, threads, calls arrived, % waited, nfsd calls, host CPU %, MB/s, verdict:"
	sed 's/^/    /' pool
	expect_eq "$(awk '{ print $1, $2 }' pool | tr '\n' ' ')" "1 1 8 8 " "the pool's threads as sampled" || return 1
	# 2 clients x 16 threads x 4 WRITEs of 1 MiB (and their LOOKUPs, GETATTRs...) arrived
	awk 'NR == 1 { a = $4 } NR == 2 { b = $4 } $5 < 64 { low = 1 } END { exit !(a > b && !low) }' pool ||
		fail "more calls waited for a thread at 1 than at 8 (and 64 nfsd calls or more)" || return 1
	# the verdict names the threads at 1 (as the limit, or beside a busy CPU), never at 8
	grep -q "^1 .* \(nfsd threads: [0-9]* % of the calls found all 1 \|server CPU: .* % of the calls found all 1 nfsd threads busy\)" pool ||
		fail "the verdict at 1 thread does not name the threads" || return 1
	# at 8 the threads are not the limit: no "nfsd threads" verdict (the guest's one CPU under
	# TCG may be: "server CPU", which says more threads will not help)
	! grep -q "^8 [^a-z]* nfsd threads:" pool || fail "the verdict at 8 threads names the threads" || return 1
	# the HTML's wire table: the clients' WRITEs (their mountstats) beside what the server's
	# nfsd counted, equal in each combination
	$ST report --db p.db --html p.html || return 1
	python3 - <<'PY' || fail "the HTML's wire table: the server's calls beside the clients'" || return 1
import re
html = open('p.html').read()
wire = html[html.index('<h2>What went over the wire</h2>'):]
wire = wire[:wire.index('</table>')]
rows = re.findall(r'<tr[^>]*><td class="num">(\d+)</td>(.*?)</tr>', wire)
assert len(rows) == 2, rows
for seq, cells in rows:
    td = re.findall(r'<td[^>]*>(.*?)</td>', cells)
    sent = re.search(r'WRITE (\d+) x', td[3]).group(1)
    got = re.search(r'\bWRITE (\d+)', td[6]).group(1)
    print('combination %s: the clients sent WRITE %s, the server counted WRITE %s' % (seq, sent, got))
    assert sent == got, (td[3], td[6])
PY
	# job 2, run again (2 runs at most) when the verdict is not disk-bound: a CI ladder at
	# aa86f04 (one writer per client then) had the disk busy 62 % of the phase and the clients
	# at 0.83 of its baseline, "below the parts", which the verdict says of such a phase; the
	# guests' time under TCG on a loaded host left the disk idle between calls
	for k in 1 2; do
		"$TOP/tests/lab/lab.sh" disk-rate "$VMLAB_DIR" 4000000 || return 1
		t0=$(date +%s%N)
		rm -f d.db d.db-wal d.db-shm
		job d.db --server-export sync --sync sync --direct on --block 1m --threads 4 --size 2m \
			--baseline on --server-dir /export --baseline-size 8m --baseline-time 0.5 || return 1
		echo "job 2, run $k (disk at 4 MB/s): $((($(date +%s%N) - t0) / 1000000)) ms"
		"$TOP/tests/lab/lab.sh" disk-rate "$VMLAB_DIR" none || return 1
		q d.db "SELECT p.export_disk, ROUND(p.disk_busy_pct), ROUND(p.disk_write_mbps + p.disk_read_mbps, 2),
				ROUND(p.disk_queue, 2), ROUND(s.agg_mbps, 2), ROUND(v.disk_mbps, 2), v.verdict
			FROM server_parts p JOIN phase_summary s USING (combo_id, phase) JOIN verdict v USING (combo_id, phase)
			WHERE p.rank = 3" | tr '|' ' ' >disk
		echo "disk, busy %, its MB/s, queue, the clients' MB/s, its baseline MB/s, verdict:"
		sed 's/^/    /' disk
		q d.db "SELECT kind, direction, server_rank, ROUND(mbps, 2), COALESCE(note, '') FROM baseline
			WHERE kind = 'disk'" | sed 's/^/    baseline: /'
		read -r dev busy mbps queue agg base verdict <disk
		case $verdict in "disk-bound: "*) break ;; esac
		echo "    run $k: not disk-bound (busy $busy %, the clients at $agg of $base MB/s)"
	done
	expect_eq "$dev" vdb "the export's disk" || return 1
	# the throttle is the oracle: the disk's O_DIRECT write baseline is 4 MB/s +- 10 %, and the
	# phase at least 0.8 of it (a fresh root's: 3.54 MB/s, baseline 4.12, with one writer per
	# client), which is no more than the disk can carry (the clients' figure) and the disk
	# moved as the guest's diskstats counted it (data and journal, the mean of the intervals'
	# rates). A sync write has a round trip between calls, which a loaded host's guests are
	# slow to make: 4 writers per client keep WRITEs waiting for the disk (its queue 1.8 against
	# 1.1 with one writer, here under 4 busy loops and a ladder; the clients at 0.94 and 0.95 of
	# the baseline alike: CI's 0.83 was not seen here). Busy stays near 90 %, so the verdict
	# may come from the baseline, with the figures
	awk -v m="$mbps" -v b="$base" -v a="$agg" 'BEGIN { exit !(b >= 3.6 && b <= 4.4 && a >= 0.8 * b &&
		a <= 1.05 * b && m >= 3.2 && m <= 4.4) }' ||
		fail "the throttled disk: the clients $agg MB/s, the disk $mbps MB/s in the phase, $base MB/s alone (want 4 MB/s +- 10 %)" || return 1
	case $verdict in
	"disk-bound: the export's disk vdb was busy "*" % of the phase, "*" MB/s written (its baseline "*" MB/s)") ;;
	*) fail "the verdict of the throttled write: '$verdict'"; return 1 ;;
	esac
	$ST report --db d.db >report.txt || return 1
	grep -q "disk-bound: the export's disk vdb" report.txt || fail "report does not show the verdict" || return 1
	vm_on $VMLAB_N1 ls -A /export >left || return 1
	expect_eq "$(cat left)" lost+found "the export left clean" || return 1
}

# When a job on the VM lab fails, the test says what stcluster said and what the run stored,
# not mpirun's banner only (issue 24: the sweep failed with "the job (exit 1)" and the banner,
# which names no cause). vm_job_failed on a recorded job's output and a real store with a
# failed write; no lab needed.
once_vm_job_failure_says_what_stcluster_said() {
	$ST --engine null --null-error EIO --block 4k --size 16k --db "$T/e.db" --quiet >/dev/null 2>&1
	expect_eq $? 1 "the run with a failed write" || return 1
	dashes=--------------------------------------------------------------------------
	printf '%s\n' "stcluster: --target: on host g1 (rank 1): what went wrong" "$dashes" \
		"Primary job  terminated normally, but 1 process returned" "a non-zero exit code." "$dashes" \
		"$dashes" "mpirun detected that one or more processes exited with non-zero status" "$dashes" >out
	vm_job_failed 1 out "$T/e.db" >said 2>&1 && { cat said; fail "vm_job_failed returned 0"; return 1; }
	cat said
	grep -q "^      stcluster: --target: on host g1 (rank 1): what went wrong$" said || fail "stcluster's line is not said" || return 1
	! grep -q "mpirun detected\|non-zero exit\|$dashes" said || fail "mpirun's banner is said" || return 1
	grep -q "^      run complete$" said || fail "the run's status is not said" || return 1
	grep -q "^      combination 0 error: write: rank 0 .*Input/output error$" said || fail "the combination's message is not said" || return 1
	grep -q "^      combination 0 write rank 0: EIO in write x1$" said || fail "the rank's first error is not said" || return 1
	grep -q "FAIL: the job (exit 1)" said || fail "no failure line" || return 1
}

# A client rank killed with SIGKILL on the kernel path (issue 19 item 6): its host keeps
# stcluster's NFS mount on the target, as nothing is left to detach it. --resume of the run
# finds that host's record of the mount (on Linux 6.1 the stamp is the NFS client's mount time,
# from mountstats), says so, detaches it, finishes the run, and leaves nothing mounted and
# nothing on the export. Before, --resume was refused there ("already a mount point").
once_vm_resume_replaces_the_mount_a_killed_rank_left() {
	vm_lab || return $?
	trap 'unmount_target; rm -rf "$VMLAB_EXPORT"/stcluster-*' EXIT
	vm_mpirun -np $VMLAB_NP $ST --engine posix --mount "$VMLAB_SERVER:/export" --target "$VMLAB_TARGET" \
		--vers 4.2 --block 1m --size 16m --runtime 1s --iterations 6 --phases write --baseline off \
		--db "$T/s.db" --quiet >out 2>&1 &
	job=$!
	# in the guest: the rank is stopped while its mount and the record of it are both there
	# (a combination's mount comes before its record), then killed. Stopped means its state is
	# T (kill -STOP only sends the signal), and with no mount(8) or umount(8) of its own in
	# flight: a umount(8) the rank waits for goes on when the rank is stopped or killed
	vm_on $VMLAB_V2 sh -c 'for i in $(seq 600); do
		p=$(pgrep -x stcluster)
		if [ -n "$p" ] && kill -STOP $p 2>/dev/null; then
			for j in 1 2 3 4 5 6 7 8 9 10; do
				[ "$(cut -d" " -f3 /proc/$p/stat)" = T ] && break
				sleep 0.05
			done
			if [ "$(cut -d" " -f3 /proc/$p/stat)" = T ] && ! pgrep -P $p >/dev/null &&
				mountpoint -q "$0" && grep -qs "^target $0\$" /run/stcluster/mount-*; then
				kill -9 $p && exit 0
			fi
			kill -CONT $p
		fi
		sleep 0.1
	done; exit 1' "$VMLAB_TARGET" || { kill $job; fail "no mount of the run with its record in $VMLAB_V2: $(tail -5 out)"; return 1; }
	wait $job
	rc=$?
	[ $rc != 0 ] || fail "the job with a killed rank exited 0" || return 1
	vm_on $VMLAB_V2 mountpoint -q "$VMLAB_TARGET" || fail "no mount left in $VMLAB_V2 (nothing to replace)" || return 1
	# Linux 6.1 has no unique mount id: the NFS client's mount time is the stamp
	vm_on $VMLAB_V2 sh -c 'cat /run/stcluster/mount-*' >rec
	grep -q '^stamp nfs_born:[0-9][0-9]*$' rec || fail "the host's record: $(cat rec)" || return 1
	run=$(q s.db 'SELECT run_id FROM run')
	vm_mpirun -np $VMLAB_NP $ST --resume "$run" --db "$T/s.db" --quiet >out 2>err ||
		vm_job_failed $? err s.db || return 1
	grep -qF "note: host $VMLAB_V2: stcluster's own mount of run $run (id " err ||
		fail "no note of the replaced mount: $(cat err)" || return 1
	expect_eq "$(q s.db "SELECT status || ' ' || (SELECT COUNT(*) FROM combo WHERE status = 'ok') FROM run")" \
		"complete 6" "the resumed run" || return 1
	nothing_mounted "after the resume" || return 1
	expect_eq "$(ls -A "$VMLAB_EXPORT")" "" "the export left clean"
}
