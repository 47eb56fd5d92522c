# tests/lab/vmtest.sh - sourced (POSIX sh) by the tests that run on the VM lab: two QEMU guests
# (the kernel NFS client), a server host with nfs-ganesha and a third guest that is a server
# host with the kernel's NFS server (knfsd), in one lab. Booting the guests
# takes ~15-20 s here, so the tests of a run share one lab: the first that calls vm_lab brings
# it up, the others reuse it, and after_once (tests/run.sh calls each file's once every test has
# run) takes it down. A lab left by another run is taken down and made afresh. Names, subnet
# and directory are tests/lab/names.sh's (STLAB_VM_PREFIX, STLAB_VM_NET, STLAB_VM_DIR: the environment's,
# else its defaults): a file that uses it says "# run.sh: one at a time", and by hand run
# under flock "$STLAB_LOCK".
#
#   vm_lab               bring the lab up, or reuse the one this run of tests/run.sh made
#                        (outside run.sh, without $R: a fresh one each time); returns 77 (a
#                        skip; a failure under CI=true) without qemu or ganesha
#   vm_on GUEST CMD...   run CMD in a guest as root (ssh; the words keep their boundaries)
#   vm_mpirun ARGS...    mpirun in the head with the lab's env.sh and hostfile:
#                        vm_mpirun -np 3 $ST ...  (rank 0 = VMLAB_S1, then the guests)
#   vm_lab_release       take it down if this run made it, or if the run that did has ended
#                        (a file's after_once)
#   vm_lab_down          take it down
#
# After vm_lab: VMLAB_DIR (LAB_DIR: hosts, hostfile, env.sh, launcher, ...), VMLAB_EXPORT (the
# directory ganesha serves, as the host sees it), VMLAB_SERVER (its address: mount
# $VMLAB_SERVER:/export), VMLAB_S1 (the server host), VMLAB_GUESTS (the guests' names,
# VMLAB_V1 and VMLAB_V2), VMLAB_PREFIX and VMLAB_NET (its --prefix and --subnet),
# VMLAB_NP (ranks of the hostfile's first hosts: the server host and the client guests; the
# knfsd guest comes last), VMLAB_N1 (the knfsd guest: /export on its own ext4 disk and
# /export-tmpfs, mount $VMLAB_KNFSD:/export), VMLAB_TARGET (an empty directory at the same path on
# the host and in every guest: a --target that rank 0 finds wherever it runs). The store
# (--db) belongs on rank 0: VMLAB_S1, under $T as usual; on a guest only on its own disk
# (e.g. /root, copied back with vm_on GUEST cat), never on a 9p share (SQLite fails there).

. "$TOP/tests/lab/names.sh"
VMLAB_ROOT=$STLAB_VM_DIR
VMLAB_DIR=$VMLAB_ROOT/lab
VMLAB_EXPORT=$VMLAB_ROOT/export
VMLAB_PREFIX=$STLAB_VM_PREFIX
VMLAB_NET=$STLAB_VM_NET
VMLAB_SERVER=$STLAB_VM_NET.1
VMLAB_S1=$STLAB_VM_PREFIX-s1
VMLAB_V1=$STLAB_VM_PREFIX-v1
VMLAB_V2=$STLAB_VM_PREFIX-v2
VMLAB_GUESTS="$VMLAB_V1 $VMLAB_V2"
VMLAB_N1=$STLAB_VM_PREFIX-n1
VMLAB_KNFSD=$STLAB_VM_NET.4
VMLAB_NP=3
VMLAB_TARGET=$VMLAB_ROOT/mnt

# vm_lab_owner: this run of tests/run.sh (its directory $R, gone when the run ends)
vm_lab_owner() { echo "${R:-/nonexistent/pid-$$}"; }

# vm_lab_healthy: the lab this run made is up: its guests' qemu and ganesha still run
vm_lab_healthy() {
	[ -f "$VMLAB_DIR/journal" ] && [ "$(cat "$VMLAB_ROOT/owner" 2>/dev/null)" = "$(vm_lab_owner)" ] || return 1
	[ -f "$VMLAB_DIR/ganesha/pids.info" ] || return 1
	for g in $VMLAB_GUESTS $VMLAB_N1; do
		read -r p s <"$VMLAB_DIR/vm/$g.pid" 2>/dev/null || return 1
		[ "$(cut -d' ' -f22 "/proc/$p/stat" 2>/dev/null)" = "$s" ] || return 1
	done
}

vm_lab() {
	command -v qemu-system-x86_64 >/dev/null || { echo "qemu-system-x86_64 is not installed (tests/deps.sh install)"; return 77; }
	command -v ganesha.nfsd >/dev/null || { echo "nfs-ganesha is not installed (tests/deps.sh install)"; return 77; }
	vm_lab_healthy && return 0
	vm_lab_down || return 1
	mkdir -p "$VMLAB_EXPORT" "$VMLAB_TARGET" || return 1
	t=$(date +%s%N)
	stlab_names_check || return 2
	"$TOP/tests/lab/lab.sh" up "$VMLAB_DIR" --clients 0 --vm-clients 2 --vm-servers 1 --prefix "$VMLAB_PREFIX" \
		--subnet "$VMLAB_NET" --export "$VMLAB_EXPORT" >"$VMLAB_ROOT/up.log" 2>&1 ||
		{ cat "$VMLAB_ROOT/up.log"; fail "the VM lab did not come up"; return 1; }
	cat "$VMLAB_ROOT/up.log"
	for g in $VMLAB_GUESTS; do
		vm_on $g mkdir -p "$VMLAB_TARGET" || { fail "mkdir $VMLAB_TARGET in $g"; return 1; }
	done
	echo "VM lab up in $((($(date +%s%N) - t) / 1000000)) ms (image build included, if any)"
	vm_lab_owner >"$VMLAB_ROOT/owner"
}

vm_lab_release() {
	[ -d "$VMLAB_ROOT" ] || return 0
	o=$(cat "$VMLAB_ROOT/owner" 2>/dev/null)
	[ "$o" = "$(vm_lab_owner)" ] || [ ! -d "$o" ] || return 0
	vm_lab_down
}

vm_lab_down() {
	[ -d "$VMLAB_ROOT" ] || return 0
	"$TOP/tests/lab/lab.sh" down "$VMLAB_DIR" >"$VMLAB_ROOT/down.log" 2>&1 ||
		{ cat "$VMLAB_ROOT/down.log"; fail "the VM lab did not come down"; return 1; }
	rm -rf "$VMLAB_ROOT"
}

vm_on() {
	g=$1
	shift
	"$TOP/tests/lab/lab.sh" run "$VMLAB_DIR" --on "$g" -- "$@"
}

vm_mpirun() { "$TOP/tests/lab/lab.sh" run "$VMLAB_DIR" -- mpirun -hostfile "$VMLAB_DIR/hostfile" "$@"; }

# vm_job_failed RC OUT DB: why a job on the VM lab failed, as stcluster said it: its own
# lines of OUT (stderr and stdout of the job, mpirun's banner left out: it says only that a
# rank exited), then what the store DB kept of the run: its status and abort reason, each
# combination and phase not ok with its message, each rank's failure and first error
# (combo_failure, rank_result's errno columns).
# Always fails (returns 1), so: vm_mpirun ... >out 2>&1 || vm_job_failed $? out s.db || return 1
vm_job_failed() {
	echo "    the job exited $1; stcluster said:"
	# mpirun's banners are blocks between two lines of dashes
	awk '/^--------------------+$/ { inb = !inb; next } !inb' "$2" | grep -v '^ *$' | tail -25 | sed 's/^/      /'
	if [ -s "$3" ]; then
		echo "    the store $3:"
		q "$3" "SELECT 'run ' || status || IFNULL(': rank ' || abort_rank, '') || IFNULL(': ' || abort_reason, '') FROM run;
			SELECT 'combination ' || seq || ' ' || status || IFNULL(': ' || message, '') FROM combo WHERE status != 'ok' ORDER BY seq;
			SELECT 'combination ' || c.seq || ' rank ' || f.rank || ': ' || IFNULL(f.errno_name, '') || ' ' || IFNULL(f.op, '') || ' ' || IFNULL(f.message, '')
				FROM combo_failure f JOIN combo c USING (combo_id) ORDER BY c.seq, f.rank;
			SELECT 'combination ' || c.seq || ' ' || p.phase || ' ' || p.status || IFNULL(': ' || p.message, '')
				FROM phase_run p JOIN combo c USING (combo_id) WHERE p.status != 'ok' ORDER BY c.seq, p.phase_order;
			SELECT 'combination ' || c.seq || ' ' || r.phase || ' rank ' || r.rank || ': ' || r.errno_name || ' in ' || IFNULL(r.err_op, '?') || ' x' || IFNULL(r.err_count, 1)
				FROM rank_result r JOIN combo c USING (combo_id) WHERE r.errno != 0 ORDER BY c.seq, r.rank;" 2>&1 |
			head -40 | sed 's/^/      /'
	else
		echo "    no store at $3"
	fi
	fail "the job (exit $1)"
}
