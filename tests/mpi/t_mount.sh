# The mount driver, for real on tmpfs (no kernel NFS here): every
# combination remounts the target with its options, the options in force
# are read back and stored; without --mount they are only recorded.

t_tmpfs_remount_cycles_store_effective_options() {
	mkdir mnt
	$MPIRUN -np 2 $ST --engine posix --mount tmpfs --fstype tmpfs --target "$T/mnt" \
		--mount-opts "size=64m;size=128m,nr_inodes=5000" --block 64k --size 1m \
		--phases write,read,randread --direct off --db "$T/s.db" --quiet || return 1
	# umount what a failing run left, whatever the checks say
	trap 'umount "$T/mnt" 2>/dev/null' EXIT
	expect_eq "$(q s.db "SELECT COUNT(*) FROM combo WHERE status = 'ok'")" 2 "both combinations ran" || return 1
	expect_eq "$(q s.db "SELECT \"mount-opts\" FROM combo ORDER BY seq" | tr '\n' ' ')" \
		"size=64m size=128m,nr_inodes=5000 " "requested options" || return 1
	q s.db "SELECT mount_options FROM combo WHERE seq = 0" | grep -q "size=65536k" ||
		fail "effective size=64m not read back: $(q s.db 'SELECT mount_options FROM combo WHERE seq = 0')" || return 1
	q s.db "SELECT mount_options FROM combo WHERE seq = 1" | grep -q "size=131072k" ||
		fail "effective size=128m not read back" || return 1
	q s.db "SELECT mount_options FROM combo WHERE seq = 1" | grep -q "nr_inodes=5000" ||
		fail "effective nr_inodes not read back" || return 1
	# a memory file system is not remounted to drop caches (that would lose the files)
	expect_eq "$(q s.db "SELECT DISTINCT cache_drop FROM phase_run WHERE phase = 'read'")" none "cache drop before read" || return 1
	expect_eq "$(q s.db "SELECT COUNT(*) FROM phase_run WHERE cache_drop IS NOT NULL")" 2 "dropped before read only, not randread" || return 1
	# the target as it was before the run: stcluster's last mount taken away
	! grep -q " $T/mnt " /proc/self/mounts || fail "the run left its mount on the target: $(grep " $T/mnt " /proc/self/mounts)" || return 1
	expect_eq "$(ls -A "$T/mnt")" "" "files cleaned from the mount"
}

t_failed_mount_is_a_failed_combination() {
	mkdir mnt
	$MPIRUN -np 2 $ST --engine posix --mount tmpfs --fstype tmpfs --target "$T/mnt" \
		--mount-opts "size=16m;nr_inodes=notanumber" --block 64k --size 1m --direct off \
		--db "$T/s.db" --quiet
	trap 'umount "$T/mnt" 2>/dev/null' EXIT
	expect_eq "$(q s.db "SELECT status FROM combo ORDER BY seq" | tr '\n' ' ')" "ok failed " "statuses" || return 1
	q s.db "SELECT message FROM combo_failure WHERE rank = 0" | grep -q "mount -t tmpfs -o nr_inodes=notanumber" ||
		fail "the failure names the mount: $(q s.db 'SELECT message FROM combo_failure')"
}

t_options_in_force_recorded_without_mount() {
	mkdir d
	$ST --engine posix --target "$T/d" --block 64k --size 256k --db "$T/s.db" --quiet || return 1
	opts=$(q s.db "SELECT mount_options FROM combo")
	[ -n "$opts" ] || fail "no options recorded for the file system holding the target" || return 1
	echo "$opts" | grep -q "rw" || fail "unexpected options: $opts"
}

t_mount_options_refused_without_mount() {
	mkdir d
	$ST --engine posix --target "$T/d" --rsize 64k --db "$T/s.db" 2>err
	expect_eq $? 2 "exit" || return 1
	grep -q -- "--rsize: a mount option needs --mount" err || fail "message: $(cat err)" || return 1
	$ST --engine posix --target "$T/d" --mount tmpfs --fstype tmpfs --rsize 64k --db "$T/s.db" 2>err
	expect_eq $? 2 "exit (NFS option on tmpfs)" || return 1
	grep -q -- "--mount: " err || fail "message: $(cat err)" || return 1
	[ ! -e "$T/s.db" ] || fail "a store was created"
}

# The system's own places are never mounted on nor measured (issue 19): with
# --mount (and --mount-over) /proc, a link to /proc/sys, /etc through "..",
# and without a mount /sys: one line, exit 2, no store, /proc's mounts as
# they were. Before, the tmpfs stayed over /proc after the run.
t_system_paths_are_refused_before_any_io() {
	grep ' /proc' /proc/self/mountinfo >before
	ln -s /proc/sys l
	mkdir d
	for t in /proc "$T/l" "$T/d/../../../etc"; do
		$ST --engine posix --mount tmpfs --fstype tmpfs --mount-over --target "$t" \
			--block 64k --size 1m --direct off --db "$T/s.db" >out 2>err
		rc=$?
		# whatever the checks say, nothing of a failing run stays on /proc
		grep -q ' /proc .* - tmpfs tmpfs ' /proc/self/mountinfo && umount /proc
		expect_eq $rc 2 "exit, --target $t" || return 1
		expect_eq "$(grep -c . err)" 1 "lines on stderr, --target $t: $(cat err)" || return 1
		grep -q "^stcluster: --target: '$t': /[a-z/]* is \(under /[a-z]*, \)\?the system's own: stcluster mounts on none of the system's places" err ||
			fail "message for $t: $(cat err)" || return 1
	done
	$ST --engine posix --target /sys --block 64k --size 1m --db "$T/s.db" 2>err
	expect_eq $? 2 "exit, --target /sys without --mount" || return 1
	grep -qx "stcluster: --target: '/sys': /sys is the system's own: not a file system to measure (give a directory on the one to measure)" err ||
		fail "message for /sys: $(cat err)" || return 1
	grep ' /proc' /proc/self/mountinfo >after
	cmp -s before after || fail "/proc's mounts changed: $(diff before after)" || return 1
	[ ! -e "$T/s.db" ] || fail "a store was created"
}

# A mount(8) that exits 0 and mounts nothing (issue 19: NFS over a mount of
# the same export with the same options, whose superblock the kernel
# shares) is a failed combination that says so, never a run on what was
# there. In a mount namespace of the test's own, mount(8) is one that
# mounts the first time and then only exits 0. Before, the second
# combination ran in the bare directory, and over the user's own mount,
# stored ok with no flag, exit 0.
t_mount_that_mounted_nothing_is_a_failed_combination() {
	mkdir mnt
	cp /usr/bin/mount realmount || return 1
	cat >fake <<EOF2
#!/bin/sh
[ -e "$T/mounted" ] && exit 0
: >"$T/mounted"
exec "$T/realmount" "\$@"
EOF2
	chmod 755 fake
	unshare -m --propagation private sh -c "
		mount --bind '$T/fake' /usr/bin/mount || exit 9
		$ST --engine posix --mount tmpfs --fstype tmpfs --target '$T/mnt' --mount-opts 'size=16m;size=32m' \
			--block 64k --size 1m --direct off --db '$T/s.db' --quiet >'$T/out' 2>&1
		echo \$? >'$T/rc'
		# over a mount of the user's: the fake mounts nothing from the start
		'$T/realmount' -t tmpfs -o size=8m users-own '$T/mnt' || exit 9
		echo mine >'$T/mnt/keep'
		$ST --engine posix --mount tmpfs --fstype tmpfs --mount-over --target '$T/mnt' \
			--block 64k --size 1m --direct off --db '$T/o.db' --quiet >>'$T/out' 2>&1
		echo \$? >'$T/rc2'
		grep ' $T/mnt ' /proc/self/mountinfo >'$T/left'
		ls -A '$T/mnt' >'$T/files'
	" || fail "the namespace's setup: $(cat out 2>/dev/null)" || return 1
	expect_eq "$(cat rc)" 1 "exit, a combination failed: $(cat out)" || return 1
	expect_eq "$(q s.db "SELECT status FROM combo ORDER BY seq" | tr '\n' ' ')" "ok failed " "statuses" || return 1
	q s.db "SELECT message FROM combo_failure WHERE rank = 0" | grep -q "mount(8) exited 0 but mounted nothing: $T/mnt is no mount point" ||
		fail "the failure's reason: $(q s.db 'SELECT message FROM combo_failure')" || return 1
	expect_eq "$(ls -A mnt)" "" "nothing of the run in the bare directory" || return 1
	expect_eq "$(cat rc2)" 1 "exit over the user's mount: $(cat out)" || return 1
	expect_eq "$(q o.db "SELECT status FROM combo")" failed "status over the user's mount" || return 1
	q o.db "SELECT message FROM combo_failure WHERE rank = 0" | grep -q "mounted nothing: the mount found there (id [0-9]*, tmpfs users-own) is still on top" ||
		fail "the failure's reason: $(q o.db 'SELECT message FROM combo_failure')" || return 1
	expect_eq "$(wc -l <left)" 1 "mounts on the target at the end (the user's): $(cat left)" || return 1
	expect_eq "$(cat files)" keep "the user's mount holds only the user's file"
}

# mpirun's SIGTERM (Ctrl-C, or a rank that failed or hung elsewhere) ends
# every rank: each removes its files, and the rank holding stcluster's mount
# on its host detaches it (it stayed on the target before, with the run's
# directory in it)
t_tmpfs_mount_released_when_the_job_is_ended_by_a_signal() {
	mkdir mnt
	$MPIRUN -np 2 $ST --engine posix --mount tmpfs --fstype tmpfs --target "$T/mnt" --baseline off \
		--block 4k --size 64m,65m,66m,67m,68m,69m,70m,71m --iterations 8 --phases write,read,rewrite,reread \
		--direct off --db "$T/s.db" --quiet >out 2>&1 &
	mp=$!
	trap 'umount -l "$T/mnt" 2>/dev/null' EXIT
	wait_stored "$T/s.db" 1 || { kill $mp; fail "the first combination was never stored"; return 1; }
	# (between two combinations, and in a cache drop's remount, there is a
	# moment with none: looked for again, up to 5 s)
	k=0
	while ! grep -q " $T/mnt " /proc/self/mounts && [ $k -lt 250 ]; do
		k=$((k + 1))
		sleep 0.02
	done
	grep -q " $T/mnt " /proc/self/mounts || { kill $mp; fail "no mount of the run on the target"; return 1; }
	kill -TERM $mp
	wait $mp
	rc=$?
	[ $rc != 0 ] || fail "mpirun exited 0 after SIGTERM" || return 1
	expect_eq "$(q s.db "SELECT status FROM run")" aborted "run status" || return 1
	! grep -q " $T/mnt " /proc/self/mounts || fail "the job left its mount on the target: $(grep " $T/mnt " /proc/self/mounts)" || return 1
	expect_eq "$(ls -A "$T/mnt")" "" "the target as it was"
}

# stopped PID: 0 once PID is in state T (a SIGSTOP is not taken at once), within 2 s
stopped() {
	i=0
	while [ "$(cut -d' ' -f3 "/proc/$1/stat" 2>/dev/null)" != T ] && [ $i -lt 200 ]; do
		sleep 0.01
		i=$((i + 1))
	done
	[ $i -lt 200 ]
}

# stop_quiet PID CMD [ARGS...]: PID left stopped when it is (state T), has no mount(8) or
# umount(8) child of its own in flight (SIGSTOP does not stop one, and a SIGKILL of PID would
# not end it: it goes on, and remounts) and CMD is true; else let go on and tried again, 250
# times at most
stop_quiet() {
	sq_pid=$1
	shift
	sq_k=0
	while kill -STOP $sq_pid && ! { stopped $sq_pid && ! pgrep -x -P $sq_pid "u?mount" >/dev/null &&
		"$@"; } && [ $sq_k -lt 250 ]; do
		kill -CONT $sq_pid
		sq_k=$((sq_k + 1))
		sleep 0.02
	done
}

# mounted_and_recorded: stcluster's mount on $T/mnt and the host's record of it both there
mounted_and_recorded() {
	grep -q " $T/mnt " /proc/self/mounts && grep -qs "^target $T/mnt\$" state/mount-*
}

# A crash that leaves stcluster's own mount on the target (issue 19 item 6): rank 0 killed
# with SIGKILL cannot detach it. --resume of that run finds the host's record of the mount
# (the same mount id, st_dev, source and type still on top), says so, detaches it and finishes
# the run; the target is as it was afterwards. A mount that is not the record's (the user's,
# here a tmpfs of the same source mounted by hand) is refused as before, and stays.
t_resume_replaces_its_own_mount_left_by_a_crash() {
	[ "$(id -u)" = 0 ] || { echo "needs root (mounts)"; return 77; }
	export STCLUSTER_STATE_DIR="$T/state"
	mkdir mnt
	trap 'umount -l "$T/mnt" 2>/dev/null; umount -l "$T/mnt" 2>/dev/null' EXIT
	$ST --engine posix --mount tmpfs --fstype tmpfs --target "$T/mnt" --baseline off --block 4k \
		--size 64m --runtime 300ms --iterations 12 --phases write,read --direct off --db "$T/s.db" --quiet >out 2>&1 &
	pid=$!
	# (0.3 s phases: the job is in its second combination or later when it is killed)
	wait_stored "$T/s.db" 1 || { kill $pid; fail "the first combination was never stored"; return 1; }
	# killed while its mount and the record are both there: looked at with the run stopped
	# (a cache drop's remount has a moment with neither, and one with the mount alone), and
	# with no mount(8) or umount(8) of its own in flight (else --resume found a mount that is
	# not the one recorded: a fresh root's ladder, build-san)
	stop_quiet $pid mounted_and_recorded
	kill -9 $pid
	wait $pid 2>/dev/null
	grep -q " $T/mnt " /proc/self/mounts || fail "no mount left on the target after SIGKILL" || return 1
	grep -qs "^id $(awk -v t="$T/mnt" '$5 == t { id = $1 } END { print id }' /proc/self/mountinfo)\$" state/mount-* ||
		fail "the host's record is not of the mount on top: $(cat state/mount-* 2>&1)" || return 1
	run=$(q s.db 'SELECT run_id FROM run')
	done_before=$(q s.db 'SELECT COUNT(*) FROM combo')
	$ST --resume "$run" --db "$T/s.db" --quiet >out 2>err || fail "--resume: exit $?: $(cat err)" || return 1
	grep -qF "note: host $(hostname): stcluster's own mount of run $run (id " err ||
		fail "no note of the replaced mount: $(cat err)" || return 1
	expect_eq "$(q s.db "SELECT status || ' ' || (SELECT COUNT(*) FROM combo) FROM run")" "complete 12" \
		"the run finished (it had $done_before)" || return 1
	! grep -q " $T/mnt " /proc/self/mounts || fail "a mount left on the target: $(grep " $T/mnt " /proc/self/mounts)" || return 1
	expect_eq "$(ls -A state)" "" "the host's records after the run" || return 1
	# the user's own mount: refused, and left alone
	$ST --engine posix --mount tmpfs --fstype tmpfs --target "$T/mnt" --baseline off --block 4k \
		--size 64m --runtime 300ms --iterations 12 --phases write --direct off --db "$T/s2.db" --quiet >out 2>&1 &
	pid=$!
	wait_stored "$T/s2.db" 1 || { kill $pid; fail "the second run's first combination"; return 1; }
	# killed with no mount(8) or umount(8) of its own in flight (one would go on after it),
	# then whatever it left on the target replaced by the user's own tmpfs
	stop_quiet $pid true
	kill -9 $pid
	wait $pid 2>/dev/null
	while mountpoint -q "$T/mnt"; do umount -l "$T/mnt" || break; done
	mount -t tmpfs tmpfs "$T/mnt" || fail "the user's own mount" || return 1
	run2=$(q s2.db 'SELECT run_id FROM run')
	$ST --resume "$run2" --db "$T/s2.db" --quiet >out 2>err
	expect_eq "$?" 2 "exit of --resume over the user's mount: $(cat err)" || return 1
	grep -q "is already a mount point (tmpfs tmpfs)" err || fail "the refusal: $(cat err)" || return 1
	grep -q " $T/mnt " /proc/self/mounts || fail "the user's mount was removed" || return 1
}
