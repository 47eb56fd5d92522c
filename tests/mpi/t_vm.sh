# The kernel NFS client, for real: QEMU guests (tests/lab/vm.sh) as client hosts of the lab,
# one MPI job across the head, the server host (nfs-ganesha) and the guests. Normal build only
# (once_*): the guests share one lab (tests/lab/vmtest.sh), made by the first test, taken down
# by after_once. The first run on a machine builds the guest image (~1-2 min, cached).
# run.sh: one at a time

. "$TOP/tests/lab/vmtest.sh"

after_once() { vm_lab_release; }

# nfs_rpc GUEST: "READ WRITE" calls the guest's NFSv4 client has sent since it booted
# (/proc/net/rpc/nfs, line proc4: the count, then null, read, write, ...)
nfs_rpc() {
	vm_on "$1" cat /proc/net/rpc/nfs | awk '$1 == "proc4" { print $4, $5 }'
}

# watch_mount GUEST: in the guest, from now until the first NFS mount on VMLAB_TARGET (at most
# 5 min), look at its mountinfo every 0.1 s (bash builtins only: forks are slow under TCG);
# the line seen lands in the guest's /tmp/target.seen; stop_watch ends the watcher (by PID)
watch_mount() {
	vm_on "$1" bash -c 'rm -f /tmp/target.seen /tmp/target.tick && mkfifo -m 600 /tmp/target.tick || exit 1
		setsid bash -c "echo \$\$ > /tmp/target.pid; exec 9<> /tmp/target.tick
			for ((i = 0; i < 3000; i++)); do
				while read -r l; do
					case \$l in *\" $0 \"*\" - nfs\"*) echo \"\$l\" > /tmp/target.seen; exit 0 ;; esac
				done < /proc/self/mountinfo
				read -t 0.1 -u 9
			done" </dev/null >/dev/null 2>&1 &' "$VMLAB_TARGET"
}

stop_watch() {
	vm_on "$1" sh -c 'read -r p < /tmp/target.pid && kill $p 2>/dev/null; rm -f /tmp/target.pid /tmp/target.tick'
}

# unmount_target: nothing is left mounted on VMLAB_TARGET in the guests
unmount_target() {
	for g in $VMLAB_GUESTS; do
		vm_on $g sh -c "! mountpoint -q '$VMLAB_TARGET' || umount '$VMLAB_TARGET'"
	done
}

# rpc_sent GUEST BEFORE: the guest's NFSv4 client sent at least 32 READs and 32 WRITEs (2m in
# 64k calls) since nfs_rpc said BEFORE ("READ WRITE")
rpc_sent() {
	after=$(nfs_rpc "$1")
	r=$((${after% *} - ${2% *})) w=$((${after#* } - ${2#* }))
	echo "$1: $r NFSv4 READ and $w WRITE calls"
	[ $r -ge 32 ] && [ $w -ge 32 ] || fail "$1 sent $r READs and $w WRITEs"
}

# One job across the head (mpirun), the server host (rank 0: the store, the server rank) and
# both guests, whose ranks do their I/O through their own kernel's NFSv4.2 mounts.
once_vm_one_job_spans_head_server_and_guests() {
	vm_lab || return $?
	expect_eq "$(awk '$4 == "vm" { print $1 ":" $3 }' "$VMLAB_DIR/hosts" | tr '\n' ' ')" \
		"stv-v1:client stv-v2:client " "the guests in the lab's hosts" || return 1
	expect_eq "$(grep -v '^#' "$VMLAB_DIR/hostfile" | awk '{ print $1 }' | tr '\n' ' ')" \
		"stv-s1 stv-v1 stv-v2 " "the hostfile: the server (rank 0, the store), then the guests" || return 1
	trap 'unmount_target' EXIT
	for g in $VMLAB_GUESTS; do
		vm_on $g mount -t nfs4 -o vers=4.2 "$VMLAB_SERVER:/export" "$VMLAB_TARGET" ||
			fail "mount in $g" || return 1
	done
	b1=$(nfs_rpc stv-v1) b2=$(nfs_rpc stv-v2)
	# the guests' ranks run the stcluster of this tree, shared read-only into them at its path
	vm_mpirun -np $VMLAB_NP $ST --engine posix --target "$VMLAB_TARGET" --servers $VMLAB_S1 \
		--block 64k --size 2m --phases write,read --baseline off --db "$T/s.db" --quiet >out 2>&1 ||
		fail "the job: $(tail -5 out)" || return 1
	expect_eq "$(q s.db "SELECT status FROM run")" complete "run status" || return 1
	expect_eq "$(q s.db "SELECT status FROM combo")" ok "the combination" || return 1
	expect_eq "$(q s.db "SELECT group_concat(rank || ':' || hostname || ':' || role, ' ') FROM (SELECT * FROM host ORDER BY rank)")" \
		"0:stv-s1:server 1:stv-v1:client 2:stv-v2:client" "host rows" || return 1
	# the guests' ranks ran on the guests' kernel (Debian 6.1, with sunrpc), not the host's
	expect_eq "$(q s.db "SELECT COUNT(*) FROM host WHERE role = 'client' AND kernel LIKE '6.1.%' AND kernel NOT LIKE '$(uname -r)%' AND sunrpc_slots > 0 AND iface = 'eth0'")" \
		2 "the guests' kernel, sunrpc and interface" || return 1
	# what stcluster read of the target: the guests' NFS mount
	q s.db "SELECT mount_options FROM combo" | grep -q "vers=4.2,.*addr=$VMLAB_SERVER" ||
		fail "the options in force: $(q s.db 'SELECT mount_options FROM combo')" || return 1
	rpc_sent stv-v1 "$b1" && rpc_sent stv-v2 "$b2" || return 1
	expect_eq "$(ls -A "$VMLAB_EXPORT")" "" "the export left clean"
}

# stcluster's mount driver (--mount) on the guests' real kernel: each guest mounts the export
# with the combination's options. Rank 0 is a guest here, with the store on its own disk
# (copied back with cat): a rank on the server host cannot take part in a --mount job yet
# (its posix engine demands the NFS mount the server host never makes; tests/lab/README.md).
once_vm_mount_driver_mounts_in_the_guests() {
	vm_lab || return $?
	printf 'stv-v1 slots=1\nstv-v2 slots=1\n' >guests
	for g in $VMLAB_GUESTS; do watch_mount $g || fail "cannot start the mount watcher in $g" || return 1; done
	b1=$(nfs_rpc stv-v1) b2=$(nfs_rpc stv-v2)
	vm_on stv-v1 rm -f /root/m.db /root/m.db-wal /root/m.db-shm
	"$TOP/tests/lab/lab.sh" run "$VMLAB_DIR" -- mpirun -hostfile "$T/guests" -np 2 $ST --engine posix \
		--mount "$VMLAB_SERVER:/export" --target "$VMLAB_TARGET" --vers 4.2 --mount-opts hard \
		--block 64k --size 2m --phases write,read --baseline off --db /root/m.db --quiet >out 2>&1
	rc=$?
	# the last combination's mount may stay (today it does): take it away whatever happened
	unmount_target
	for g in $VMLAB_GUESTS; do stop_watch $g; done
	[ $rc = 0 ] || fail "the job (exit $rc): $(tail -5 out)" || return 1
	vm_on stv-v1 cat /root/m.db >m.db || fail "no store on stv-v1" || return 1
	expect_eq "$(q m.db "SELECT status || ' ' || (SELECT group_concat(status) FROM combo) FROM run")" "complete ok" "run and combination" || return 1
	expect_eq "$(q m.db "SELECT group_concat(rank || ':' || hostname || ':' || role, ' ') FROM (SELECT * FROM host ORDER BY rank)")" \
		"0:stv-v1:client 1:stv-v2:client" "host rows" || return 1
	expect_eq "$(q m.db "SELECT vers_eff FROM combo")" 4.2 "effective vers" || return 1
	# each guest's kernel mounted the export (its own mountinfo, seen during the job) and its
	# NFS client carried the data
	for g in $VMLAB_GUESTS; do
		seen=$(vm_on $g cat /tmp/target.seen 2>/dev/null)
		echo "$g: $seen"
		case "$seen" in
		*" $VMLAB_TARGET "*" - nfs4 $VMLAB_SERVER:/export "*vers=4.2*) ;;
		*) fail "$g: no NFSv4.2 mount of $VMLAB_SERVER:/export on $VMLAB_TARGET in its mountinfo: '$seen'"; return 1 ;;
		esac
	done
	rpc_sent stv-v1 "$b1" && rpc_sent stv-v2 "$b2" || return 1
	expect_eq "$(ls -A "$VMLAB_EXPORT")" "" "the export left clean"
}

# What the lab promises the mount driver's tests, with mount(8) itself in a guest: NFSv4.2
# and NFSv3 mounts of the server host; v3 finds the server's rpcbind (port 111) and needs
# nolock, the guest running no rpc.statd; drop_caches, umount; LAB_DIR and the tree shared in.
once_vm_guest_kernel_mounts_v3_and_v4() {
	vm_lab || return $?
	g=stv-v2
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
once_vm_guest_that_never_comes_up_is_one_line() {
	command -v qemu-system-x86_64 >/dev/null || { echo "qemu-system-x86_64 is not installed"; return 77; }
	STLAB_VM_BOOT_WAIT=1 "$TOP/tests/lab/lab.sh" up "$T/lab" --clients 1 --vm-clients 1 \
		--prefix stw --subnet 10.77.211 >out 2>err
	rc=$?
	cat out err
	[ $rc != 0 ] || fail "lab.sh up succeeded" || return 1
	expect_eq "$(grep -c . err)" 1 "lines on stderr" || return 1
	grep -q "^vm.sh: guest stw-v1 did not come up within 1s (STLAB_VM_BOOT_WAIT); console: " err ||
		fail "the message: $(cat err)" || return 1
	[ ! -e "$T/lab" ] || fail "LAB_DIR left: $(ls -A "$T/lab")" || return 1
	for ns in /run/netns/stw-*; do
		[ ! -e "$ns" ] || fail "namespace left: $ns" || return 1
	done
	for c in /proc/[0-9]*/cmdline; do
		if tr '\0' ' ' <"$c" 2>/dev/null | grep -q "qemu-system.*stlab.host=stw-v1"; then
			fail "a qemu of stw-v1 still runs: ${c%/cmdline}"
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
# thread used io_uring, every byte moved and verified, O_DIRECT granted; and the kernel client
# really had several READs in flight: their execution times, summed (mountstats), exceed the
# read phases' own span on that guest (one at a time they could not).
once_vm_posix_iodepth_on_the_kernel_nfs_client() {
	vm_lab || return $?
	trap 'unmount_target' EXIT
	for g in $VMLAB_GUESTS; do
		vm_on $g mount -t nfs4 -o vers=4.2 "$VMLAB_SERVER:/export" "$VMLAB_TARGET" ||
			fail "mount in $g" || return 1
	done
	b1=$(read_exec stv-v1) b2=$(read_exec stv-v2)
	vm_mpirun -np $VMLAB_NP $ST --engine posix --target "$VMLAB_TARGET" --servers $VMLAB_S1 \
		--block 64k --size 2m --iodepth 8 --direct on --phases write,randread,read --verify on \
		--data random --baseline off --db "$T/q.db" --quiet >out 2>&1 ||
		fail "the job: $(tail -5 out)" || return 1
	expect_eq "$(q q.db "SELECT status FROM run")" complete "run status" || return 1
	expect_eq "$(q q.db "SELECT COUNT(*) || ' ' || group_concat(DISTINCT io_mode) FROM thread_result
		WHERE bytes = 2097152 AND ops = 32 AND errno = 0")" "6 io_uring" "client threads: mode, bytes" || return 1
	expect_eq "$(q q.db "SELECT SUM(bad_blocks) || ' ' || SUM(direct_fallback) || ' ' || SUM(errno <> 0) FROM rank_result")" \
		"0 0 0" "--verify, O_DIRECT, errors" || return 1
	for g in stv-v1 stv-v2; do
		[ $g = stv-v1 ] && b=$b1 || b=$b2
		a=$(read_exec $g)
		rank=$(q q.db "SELECT rank FROM host WHERE hostname = '$g'")
		span=$(q q.db "SELECT SUM(end_ns - start_ns) / 1000000 FROM rank_result WHERE rank = $rank AND phase IN ('randread', 'read')")
		ops=$((${a% *} - ${b% *})) exec_ms=$((${a#* } - ${b#* }))
		echo "$g: $ops READs, executing $exec_ms ms in all, in read phases of $span ms"
		[ "$ops" -ge 64 ] && [ "$exec_ms" -gt $((span * 3 / 2)) ] ||
			fail "$g: $ops READs executing $exec_ms ms in $span ms: not several in flight" || return 1
	done
	expect_eq "$(ls -A "$VMLAB_EXPORT")" "" "the export left clean"
}
