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
