#!/bin/bash
# run as "sh FILE" (dash): the same script under bash, which it needs
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
# shellcheck disable=SC2015,SC2016
# A pretend cluster on one machine: one network + UTS namespace per host, all on a bridge
# that lives in its own namespace, reachable by mpirun through a plm_rsh_agent script.
#
#   lab.sh up     LAB_DIR --clients N [--servers 0|1|2] [--prefix NAME] [--subnet A.B.C]
#                         [--rate RATE] [--export DIR] [--slots N]
#                         [--vm-clients N] [--vm-share DIR]...
#                         [--vm-servers N] [--vm-disk MB] [--vm-disk-bps N] [--vm-disk-iops N]
#   lab.sh run    LAB_DIR [--on HOST] -- COMMAND...  # in the head (or HOST), env.sh loaded
#   lab.sh rate   LAB_DIR RATE|none                 # shape every server's link, both ways
#   lab.sh disk-rate LAB_DIR BPS|none               # throttle each knfsd guest's export disk
#   lab.sh status LAB_DIR
#   lab.sh down   LAB_DIR                           # idempotent; cleans a half-made lab too
#
# Hosts: PREFIX-c1..cN (clients, SUBNET.1..N), then PREFIX-s1[,s2] (servers, SUBNET.N+1..),
# then PREFIX-v1..vM (clients that are QEMU guests, --vm-clients M, after the servers),
# PREFIX-n1..nK (servers that are QEMU guests running the kernel's NFS server, knfsd,
# --vm-servers K, after those), and the head PREFIX-h (SUBNET.254): the "login node" where `run` starts mpirun; it is on the
# lab network but not in the hostfile. The bridge (br0) lives in the namespace PREFIX-br, the
# hosts' veths are eth0 in theirs and v-c1.., v-s1.., v-h in the bridge's. The root
# namespace's interfaces and routes are never touched; the lab's namespaces have no route out:
# only the lab /24 exists in them (IPv6 is switched off there).
#
# Defaults: --servers 1, --prefix lab, --subnet 10.77.0, no rate limit, no NFS server,
# --slots 1 (slots of each client in the hostfile; servers always get 1).
# --rate applies tc tbf to both ends of every server's veth: the end in the server namespace
# shapes server->clients (reads), the end in the bridge namespace clients->server (writes).
# --export DIR starts nfs-ganesha (tests/lab/ganesha.sh) on PREFIX-s1, serving DIR, with
# rpcbind on port 111 of PREFIX-s1 (GANESHA_RPCBIND_NET=shared unless set: a kernel NFSv3 mount
# asks it). --vm-clients M boots M QEMU guests (tests/lab/vm.sh: Debian's kernel with the NFS
# client) that are client hosts reached over ssh; the repository is shared into them read-only
# at its own path, --vm-share DIR shares DIR read-write the same way. --vm-servers K boots K
# guests that export /export (ext4 on a disk of their own: --vm-disk MB, default 512, throttled
# by QEMU to --vm-disk-bps bytes/s and --vm-disk-iops ops/s when given) and /export-tmpfs with
# knfsd (NFSv3 with MOUNT on 20048, NFSv4.x). --clients 0 is allowed with guests and a
# namespace server (rank 0, the store, is then PREFIX-s1: never a guest).
# Environment: LAB_GANESHA (path of ganesha.sh, default: next to this script); GANESHA_* is
# passed on to ganesha.sh; STLAB_VM_* to vm.sh.
#
# LAB_DIR afterwards: hosts, hostfile, env.sh, launcher, lab.env, rate, journal, uts/, and with
# --export also ganesha/, nfs_url (NFSv3), nfs_url4. See tests/lab/README.md.
set -u

prog=lab.sh
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
repo=$(cd "$here/../.." && pwd)
GANESHA=${LAB_GANESHA:-$here/ganesha.sh}
VM=$here/vm.sh

die() { echo "$prog: $*" >&2; exit 1; }
usage() {
	sed -n '/^#   lab.sh up/,/^#   lab.sh down/s/^#   //p' "${BASH_SOURCE[0]}" >&2
	exit 2
}
now_ms() { local t=${EPOCHREALTIME/./}; echo $((t / 1000)); }

# --- shared helpers -----------------------------------------------------------------------
# (this machine forks slowly, ~15-20 ms a process: the steps below batch and use builtins)

# check_lab_dir PATH: the lab dir ends up in an Open MPI agent string and in sh -c words
check_lab_dir() {
	[ -n "$1" ] || die "LAB_DIR missing"
	case $1 in *[!A-Za-z0-9._/+-]*) die "LAB_DIR '$1' may only contain letters, digits and . _ / + -" ;; esac
	case $1/ in /run/* | /var/run/*) die "LAB_DIR must not be under /run" ;; esac
}

load_env() { # LAB_DIR (absolute)
	[ -r "$1/lab.env" ] || return 1
	# shellcheck disable=SC1091
	. "$1/lab.env"
}

# lab_hosts: fill H_NAME, H_ROLE, H_ADDR, H_KIND (ns: namespaces, vm: a QEMU guest):
# clients, servers, guests (the hostfile order), the head
lab_hosts() {
	local i
	H_NAME=() H_ROLE=() H_ADDR=() H_KIND=()
	for ((i = 1; i <= LAB_CLIENTS; i++)); do
		H_NAME+=("$LAB_PREFIX-c$i") H_ROLE+=(client) H_ADDR+=("$LAB_SUBNET.$i") H_KIND+=(ns)
	done
	for ((i = 1; i <= LAB_SERVERS; i++)); do
		H_NAME+=("$LAB_PREFIX-s$i") H_ROLE+=(server) H_ADDR+=("$LAB_SUBNET.$((LAB_CLIENTS + i))") H_KIND+=(ns)
	done
	for ((i = 1; i <= ${LAB_VMS:-0}; i++)); do
		H_NAME+=("$LAB_PREFIX-v$i") H_ROLE+=(client) H_KIND+=(vm)
		H_ADDR+=("$LAB_SUBNET.$((LAB_CLIENTS + LAB_SERVERS + i))")
	done
	for ((i = 1; i <= ${LAB_VM_SERVERS:-0}; i++)); do
		H_NAME+=("$LAB_PREFIX-n$i") H_ROLE+=(server) H_KIND+=(vm)
		H_ADDR+=("$LAB_SUBNET.$((LAB_CLIENTS + LAB_SERVERS + ${LAB_VMS:-0} + i))")
	done
	H_NAME+=("$LAB_PREFIX-h") H_ROLE+=(head) H_ADDR+=("$LAB_SUBNET.254") H_KIND+=(ns)
}

# is_vm NAME: NAME is one of the lab's guests
is_vm() {
	local i
	for ((i = 0; i < ${#H_NAME[@]}; i++)); do
		[ "${H_NAME[$i]}" = "$1" ] && { [ "${H_KIND[$i]}" = vm ]; return; }
	done
	return 1
}

# rate_params RATE: set RATE_ARGS to the tc tbf arguments for RATE (200mbit, 1gbit, 50mbps..)
rate_params() {
	local r=$1 n u mult
	[[ $r =~ ^([0-9]+)(bit|kbit|mbit|gbit|bps|kbps|mbps|gbps)$ ]] ||
		die "bad rate '$r' (want e.g. 200mbit, 1gbit, 50mbps, or none)"
	n=${BASH_REMATCH[1]} u=${BASH_REMATCH[2]}
	case $u in
		bit) mult=1 ;; kbit) mult=1000 ;; mbit) mult=1000000 ;; gbit) mult=1000000000 ;;
		bps) mult=8 ;; kbps) mult=8000 ;; mbps) mult=8000000 ;; gbps) mult=8000000000 ;;
	esac
	[ ${#n} -le 12 ] || die "rate '$r' out of range"
	local bps=$((n * mult)) # bits/s
	[ "$bps" -ge 100000 ] || die "rate '$r' below 100kbit"
	[ "$bps" -le 100000000000 ] || die "rate '$r' above 100gbit"
	# burst: 10 ms worth, at least 128 KiB (a veth passes GSO packets of up to 64 KiB; with
	# a 64 KiB burst TCP got 93% of 100mbit, with 128 KiB 95.7%, the payload ceiling being
	# 96.5%); queue: 50 ms worth
	local burst=$((bps / 8 / 100))
	[ $burst -ge 131072 ] || burst=131072
	RATE_ARGS="tbf rate $r burst $burst latency 50ms"
}

# set_rate RATE|none: both ends of every server's veth (tc shapes egress only)
set_rate() {
	local rate=$1 i
	[ "$rate" = none ] || rate_params "$rate"
	for ((i = 1; i <= LAB_SERVERS; i++)); do
		local sns=$LAB_PREFIX-s$i
		if [ "$rate" = none ]; then
			tc -n "$sns" qdisc del dev eth0 root 2>/dev/null
			tc -n "$LAB_BRIDGE_NS" qdisc del dev "v-s$i" root 2>/dev/null
		else
			# shellcheck disable=SC2086
			tc -n "$sns" qdisc replace dev eth0 root $RATE_ARGS || return 1
			# shellcheck disable=SC2086
			tc -n "$LAB_BRIDGE_NS" qdisc replace dev "v-s$i" root $RATE_ARGS || return 1
		fi
	done
	echo "$rate" > "$LAB_DIR/rate"
	return 0
}

# ns_pids NETNS...: set PIDS to the processes whose network namespace is one of these
# (compares /proc/PID/ns/net with the pinned file: same device and inode; no forks)
ns_pids() {
	local ns p
	PIDS=()
	for p in /proc/[0-9]*; do
		p=${p#/proc/}
		[ "$p" = $$ ] && continue
		for ns in "$@"; do
			if [ -e "/run/netns/$ns" ] && [ "/proc/$p/ns/net" -ef "/run/netns/$ns" ]; then
				PIDS+=("$p")
				break
			fi
		done 2>/dev/null
	done
}

# kill_ns_procs NETNS...: end what still runs in the lab's namespaces (mpirun, orted, ranks
# started with run or the launcher). Only processes inside these namespaces, which only this
# lab enters; by PID, TERM first, KILL after 3 s.
kill_ns_procs() {
	local p n st
	ns_pids "$@"
	[ ${#PIDS[@]} -gt 0 ] || return 0
	local pids=("${PIDS[@]}") left=()
	echo "$prog: stopping ${#pids[@]} process(es) still in the lab: ${pids[*]}" >&2
	kill -TERM "${pids[@]}" 2>/dev/null
	for ((n = 0; n < 30; n++)); do
		left=()
		for p in "${pids[@]}"; do
			st=
			{ read -r st < "/proc/$p/stat"; } 2>/dev/null || continue
			st=${st##*) }
			case ${st%% *} in Z | X) ;; *) left+=("$p") ;; esac
		done
		[ ${#left[@]} -gt 0 ] || return 0
		sleep 0.1
	done
	echo "$prog: sending SIGKILL to ${left[*]}" >&2
	kill -KILL "${left[@]}" 2>/dev/null
	return 0
}

# teardown LAB_DIR: undo everything the journal records (newest first); safe to repeat
teardown() {
	local j=$1/journal kind what rc=0 i
	[ -f "$j" ] || return 0
	local -a lines=() nss=() utss=() files=() dirs=() ganeshas=() labvms=()
	mapfile -t lines < "$j"
	for ((i = ${#lines[@]} - 1; i >= 0; i--)); do
		read -r kind what <<< "${lines[$i]}"
		case $kind in
			netns) nss+=("$what") ;;
			uts) utss+=("$what") ;;
			file) files+=("$what") ;;
			dir) dirs+=("$what") ;;
			ganesha) ganeshas+=("$what") ;;
			vm) labvms+=("$what") ;;
		esac
	done
	# 0. the guests (power-off, monitor quit, TERM, KILL by PID; vm.sh stop) while the head's
	#    namespace, whence ssh reaches them, still exists
	for what in "${labvms[@]}"; do
		if [ -d "$what/vm" ] || [ -d "$what/ssh" ]; then
			"$VM" stop "$what" || { echo "$prog: vm.sh stop $what failed" >&2; rc=1; }
		fi
	done
	# 1. the NFS server (before its namespace goes)
	for what in "${ganeshas[@]}"; do
		if [ -f "$what/pids.info" ]; then
			"$GANESHA" stop "$what" || { echo "$prog: ganesha.sh stop $what failed" >&2; rc=1; }
		fi
	done
	# 2. leftover processes in the lab's network namespaces
	[ ${#nss[@]} -eq 0 ] || kill_ns_procs "${nss[@]}"
	# 3. network namespaces (their veths and the bridge go with them), in one ip process
	local del=()
	for what in "${nss[@]}"; do [ -e "/run/netns/$what" ] && del+=("netns del $what"); done
	if [ ${#del[@]} -gt 0 ]; then
		printf '%s\n' "${del[@]}" | ip -force -batch - || rc=1
		for what in "${nss[@]}"; do
			[ -e "/run/netns/$what" ] && { echo "$prog: could not delete netns $what" >&2; rc=1; }
		done
	fi
	# 4. pinned UTS namespaces: unmount (one umount process), remove
	local mounted=() line mp
	while read -r line; do
		mp=${line#* * * * }
		mp=${mp%% *}
		for what in "${utss[@]}"; do [ "$mp" = "$what" ] && mounted+=("$what"); done
	done < /proc/self/mountinfo
	if [ ${#mounted[@]} -gt 0 ]; then
		umount "${mounted[@]}" || { echo "$prog: umount of UTS files failed" >&2; rc=1; }
	fi
	# 5. generated files and the ganesha state dir
	[ ${#ganeshas[@]} -eq 0 ] || rm -rf "${ganeshas[@]}"
	[ $rc = 0 ] || return 1
	rm -f "${files[@]}" "${utss[@]}" "$j" || return 1
	# directories last (LAB_DIR itself only if up made it, and only if empty)
	for what in "${dirs[@]}"; do rmdir "$what" 2>/dev/null; done
	return 0
}

# --- up -------------------------------------------------------------------------------------

journal() { echo "$1 $2" >> "$LAB_DIR/journal"; }
# gen FILE: record a file this lab writes (removed by down)
gen() { journal file "$1"; }

# excl_create FILE: create FILE, failing if it exists
excl_create() {
	local rc
	set -C
	{ : > "$1"; } 2>/dev/null
	rc=$?
	set +C
	return $rc
}

cmd_up() {
	[ $# -ge 1 ] || usage
	local lab=$1; shift
	local clients="" servers=1 prefix=lab subnet=10.77.0 rate=none export_dir="" slots=1 vms=0
	local vmsrv=0 disk_mb=512 disk_bps="" disk_iops=""
	local -a vm_shares=()
	while [ $# -gt 0 ]; do
		case $1 in
			--clients) clients=${2:-}; shift 2 || usage ;;
			--servers) servers=${2:-}; shift 2 || usage ;;
			--prefix) prefix=${2:-}; shift 2 || usage ;;
			--subnet) subnet=${2:-}; shift 2 || usage ;;
			--rate) rate=${2:-}; shift 2 || usage ;;
			--export) export_dir=${2:-}; shift 2 || usage ;;
			--slots) slots=${2:-}; shift 2 || usage ;;
			--vm-clients) vms=${2:-}; shift 2 || usage ;;
			--vm-share) vm_shares+=("${2:-}"); shift 2 || usage ;;
			--vm-servers) vmsrv=${2:-}; shift 2 || usage ;;
			--vm-disk) disk_mb=${2:-}; shift 2 || usage ;;
			--vm-disk-bps) disk_bps=${2:-}; shift 2 || usage ;;
			--vm-disk-iops) disk_iops=${2:-}; shift 2 || usage ;;
			*) die "up: unknown argument '$1'" ;;
		esac
	done
	[ "$(id -u)" = 0 ] || die "must run as root (namespaces, veth, tc)"
	[[ $vms =~ ^[0-9]+$ ]] && [ "${#vms}" -le 3 ] || die "--vm-clients must be a count, got '$vms'"
	[[ $servers =~ ^[0-2]$ ]] || die "--servers must be 0, 1 or 2"
	[[ $vmsrv =~ ^[0-2]$ ]] || die "--vm-servers must be 0, 1 or 2, got '$vmsrv'"
	[[ $disk_mb =~ ^[0-9]{1,7}$ ]] && [ "$disk_mb" -ge 64 ] || die "--vm-disk must be MiB >= 64, got '$disk_mb'"
	[ -z "$disk_bps" ] || { [[ $disk_bps =~ ^[0-9]{1,12}$ ]] && [ "$disk_bps" -ge 4096 ]; } ||
		die "--vm-disk-bps must be bytes/s >= 4096, got '$disk_bps'"
	[ -z "$disk_iops" ] || { [[ $disk_iops =~ ^[0-9]{1,9}$ ]] && [ "$disk_iops" -ge 1 ]; } ||
		die "--vm-disk-iops must be a count >= 1, got '$disk_iops'"
	[ "$vmsrv" -ge 1 ] || { [ "$disk_mb" = 512 ] && [ -z "$disk_bps$disk_iops" ]; } ||
		die "--vm-disk, --vm-disk-bps and --vm-disk-iops need --vm-servers"
	if [ "$((vms + vmsrv))" -ge 1 ] && [ "$servers" -ge 1 ]; then
		[[ $clients =~ ^[0-9]+$ ]] || die "--clients N (N >= 0 with guests and a server) is required"
	else
		[[ $clients =~ ^[0-9]+$ ]] && [ "$clients" -ge 1 ] ||
			die "--clients N (N >= 1; 0 only with guests (--vm-clients, --vm-servers) and --servers 1 or 2: rank 0 must not be a guest) is required"
	fi
	[ $((clients + servers + vms + vmsrv)) -le 250 ] || die "at most 250 hosts (SUBNET.1 .. SUBNET.250)"
	[ ${#vm_shares[@]} = 0 ] || [ "$vms" -ge 1 ] || die "--vm-share needs --vm-clients"
	[[ $slots =~ ^[0-9]+$ ]] && [ "$slots" -ge 1 ] && [ "$slots" -le 64 ] || die "--slots must be a count 1..64"
	[[ $prefix =~ ^[a-z][a-z0-9]{0,19}$ ]] ||
		die "--prefix must be a lower-case letter then up to 19 letters/digits, got '$prefix'"
	[[ $subnet =~ ^([0-9]{1,3})\.([0-9]{1,3})\.([0-9]{1,3})$ ]] ||
		die "--subnet must be three octets (the lab is SUBNET.0/24), e.g. 10.77.5; got '$subnet'"
	local o
	for o in "${BASH_REMATCH[@]:1}"; do [ "$((10#$o))" -le 255 ] || die "--subnet octet $o > 255"; done
	subnet=$((10#${BASH_REMATCH[1]})).$((10#${BASH_REMATCH[2]})).$((10#${BASH_REMATCH[3]}))
	case $subnet in 0.* | 127.* | 22[4-9].* | 2[3-5][0-9].*) die "--subnet $subnet: not a unicast range" ;; esac
	[ "$rate" = none ] || rate_params "$rate"
	if [ -n "$export_dir" ]; then
		[ "$servers" -ge 1 ] || die "--export needs a server (--servers 1 or 2)"
		[ -d "$export_dir" ] || die "--export $export_dir is not a directory"
		export_dir=$(realpath "$export_dir") || die "cannot resolve $export_dir"
		[ -x "$GANESHA" ] || die "$GANESHA not found or not executable"
	fi
	local b
	for b in ip tc nsenter unshare hostname flock; do command -v $b >/dev/null || die "$b not found"; done
	check_lab_dir "$lab"
	LAB_DIR=$(realpath -m "$lab") || die "cannot resolve $lab"
	check_lab_dir "$LAB_DIR"
	[ "$LAB_DIR" != / ] || die "LAB_DIR must not be /"
	[ "$export_dir" != "$LAB_DIR" ] || die "--export must not be LAB_DIR itself"
	local d shares=() img=
	for d in "${vm_shares[@]}"; do
		[ -d "$d" ] || die "--vm-share $d is not a directory"
		d=$(realpath "$d") || die "cannot resolve $d"
		case $d in *[!A-Za-z0-9._/+-]*) die "--vm-share '$d' may only contain letters, digits and . _ / + -" ;; esac
		case $d/ in / | /proc/* | /sys/* | /dev/* | /run/* | "$repo"/*) die "--vm-share $d: not a directory to share (/, /proc, /sys, /dev, /run or inside the repository)" ;; esac
		shares+=("$d")
	done
	if [ "$((vms + vmsrv))" -ge 1 ]; then
		for b in qemu-system-x86_64 ssh ssh-keygen timeout; do
			command -v $b >/dev/null || die "$b not found (tests/deps.sh install: qemu-system-x86, openssh-client)"
		done
		# the cached guest image, built now if this recipe has none (once: ~2 min)
		img=$("$VM" image) || die "no guest image (see above)"
	fi

	LAB_PREFIX=$prefix LAB_SUBNET=$subnet LAB_CLIENTS=$clients LAB_SERVERS=$servers LAB_VMS=$vms
	LAB_VM_SERVERS=$vmsrv
	LAB_BRIDGE_NS=$prefix-br LAB_HEAD=$prefix-h
	lab_hosts
	local n=${#H_NAME[@]} i name
	[ ! -f "$LAB_DIR/journal" ] || die "$LAB_DIR holds a lab already (journal exists); run: $0 down $LAB_DIR"
	# every name must be free before anything is made (a lab with this prefix is up?)
	for ((i = 0; i < n; i++)); do
		[ "${H_KIND[$i]}" = ns ] || continue
		[ ! -e "/run/netns/${H_NAME[$i]}" ] || die "network namespace ${H_NAME[$i]} exists already (another lab with --prefix $prefix is up?)"
	done
	[ ! -e "/run/netns/$LAB_BRIDGE_NS" ] || die "network namespace $LAB_BRIDGE_NS exists already (another lab with --prefix $prefix is up?)"

	local made_dir=0
	if [ ! -d "$LAB_DIR" ]; then
		mkdir -p "$LAB_DIR" || die "cannot create $LAB_DIR"
		made_dir=1
	fi
	exec 9> "$LAB_DIR/.lock" || die "cannot write $LAB_DIR/.lock"
	flock -n 9 || die "$LAB_DIR is busy (another lab.sh up/down/rate on it)"
	# until the journal exists, a failure removes just the lock (and the dir if made here)
	trap 'rm -f "$LAB_DIR/.lock"; [ $made_dir = 0 ] || rmdir "$LAB_DIR" 2>/dev/null' EXIT
	[ ! -f "$LAB_DIR/journal" ] || die "$LAB_DIR holds a lab already (journal exists); run: $0 down $LAB_DIR"

	local t0; t0=$(now_ms)
	: > "$LAB_DIR/journal" || die "cannot write $LAB_DIR/journal"
	[ $made_dir = 1 ] && journal dir "$LAB_DIR"
	gen "$LAB_DIR/.lock"
	# from here on, any failure or signal tears down what was made
	VMWAIT=
	trap 'st=$?; [ -z "${VMWAIT:-}" ] || kill "$VMWAIT" 2>/dev/null; teardown "$LAB_DIR"; exit $st' EXIT
	trap 'exit 130' INT TERM HUP

	mkdir -p "$LAB_DIR/uts" || die "cannot create $LAB_DIR/uts"
	journal dir "$LAB_DIR/uts"
	gen "$LAB_DIR/lab.env"
	printf '%s\n' "# generated by lab.sh up: the lab's parameters" \
		"LAB_DIR=$LAB_DIR" "LAB_PREFIX=$LAB_PREFIX" "LAB_SUBNET=$LAB_SUBNET" \
		"LAB_CIDR=$LAB_SUBNET.0/24" "LAB_CLIENTS=$LAB_CLIENTS" "LAB_SERVERS=$LAB_SERVERS" \
		"LAB_SLOTS=$slots" "LAB_BRIDGE_NS=$LAB_BRIDGE_NS" "LAB_HEAD=$LAB_HEAD" \
		"LAB_EXPORT=$export_dir" "LAB_VMS=$LAB_VMS" "LAB_VM_SERVERS=$LAB_VM_SERVERS" \
		"LAB_VM_DISK_MB=$disk_mb" "LAB_VM_DISK_BPS=$disk_bps" "LAB_VM_DISK_IOPS=$disk_iops" \
		> "$LAB_DIR/lab.env" || die "cannot write $LAB_DIR/lab.env"

	# 1. the bridge's namespace, made by ip (which also makes /run/netns a shared mount)
	journal netns "$LAB_BRIDGE_NS"
	ip netns add "$LAB_BRIDGE_NS" || die "cannot create namespace $LAB_BRIDGE_NS"
	# 2. each host: a network namespace pinned in /run/netns, a UTS namespace pinned in
	#    LAB_DIR/uts with the host's name, IPv6 off (no link-local addresses or router
	#    solicitations); one unshare each
	local ipv6=0
	[ -e /proc/sys/net/ipv6/conf/default/disable_ipv6 ] && ipv6=1
	local nosix='[ "$1" = 1 ] || exit 0; echo 1 > /proc/sys/net/ipv6/conf/all/disable_ipv6 && echo 1 > /proc/sys/net/ipv6/conf/default/disable_ipv6'
	for ((i = 0; i < n; i++)); do
		[ "${H_KIND[$i]}" = ns ] || continue
		name=${H_NAME[$i]}
		excl_create "/run/netns/$name" || die "cannot create /run/netns/$name (exists?)"
		journal netns "$name"
		: > "$LAB_DIR/uts/$name" || die "cannot create $LAB_DIR/uts/$name"
		journal uts "$LAB_DIR/uts/$name"
		unshare --net="/run/netns/$name" --uts="$LAB_DIR/uts/$name" \
			sh -c "$nosix && exec hostname \"\$2\"" sh "$ipv6" "$name" ||
			die "cannot create the namespaces of $name"
	done
	# 3. the bridge and every host's veth (a guest's tap, t-v1.., that its qemu opens), in one
	#    ip process inside the bridge's namespace
	{
		echo "link set lo up"
		echo "link add br0 type bridge stp_state 0 forward_delay 0"
		echo "link set br0 up"
		for ((i = 0; i < n; i++)); do
			name=${H_NAME[$i]}
			if [ "${H_KIND[$i]}" = vm ]; then
				echo "tuntap add dev t-${name#"$LAB_PREFIX"-} mode tap"
				echo "link set t-${name#"$LAB_PREFIX"-} master br0 up"
				continue
			fi
			echo "link add v-${name#"$LAB_PREFIX"-} type veth peer name eth0 netns $name"
			echo "link set v-${name#"$LAB_PREFIX"-} master br0 up"
		done
	} | nsenter --net="/run/netns/$LAB_BRIDGE_NS" sh -c "$nosix && exec ip -batch -" sh "$ipv6" ||
		die "bridge set-up failed"
	# 4. each host's address (a guest sets its own)
	for ((i = 0; i < n; i++)); do
		[ "${H_KIND[$i]}" = ns ] || continue
		printf '%s\n' "link set lo up" "addr add ${H_ADDR[$i]}/24 dev eth0" "link set eth0 up" |
			ip -n "${H_NAME[$i]}" -batch - || die "network set-up of ${H_NAME[$i]} failed"
	done

	# files for users and mpirun
	gen "$LAB_DIR/hosts"
	for ((i = 0; i < n; i++)); do
		echo "${H_NAME[$i]} ${H_ADDR[$i]} ${H_ROLE[$i]} ${H_KIND[$i]}"
	done > "$LAB_DIR/hosts"
	gen "$LAB_DIR/hostfile"
	{
		echo "# Open MPI hostfile of lab $LAB_PREFIX ($LAB_SUBNET.0/24), generated by lab.sh up"
		echo "# clients first (rank 0 = ${H_NAME[0]}, the coordinator), then servers, then guests"
		for ((i = 0; i < n; i++)); do
			case ${H_ROLE[$i]} in
				client) echo "${H_NAME[$i]} slots=$slots" ;;
				server) echo "${H_NAME[$i]} slots=1" ;;
			esac
		done
	} > "$LAB_DIR/hostfile"
	write_launcher
	write_env
	local guests=() knfsd=()
	for ((i = 0; i < n; i++)); do
		[ "${H_KIND[$i]}" = vm ] && guests+=("${H_NAME[$i]}")
		[ "${H_KIND[$i]}" = vm ] && [ "${H_ROLE[$i]}" = server ] && knfsd+=("${H_NAME[$i]}")
	done
	echo "export STLAB_GUESTS='${guests[*]}' STLAB_KNFSD='${knfsd[*]}'" >> "$LAB_DIR/env.sh"

	gen "$LAB_DIR/rate"
	if [ "$rate" != none ]; then
		set_rate "$rate" || die "setting rate $rate failed"
	else
		echo none > "$LAB_DIR/rate"
	fi

	gen "$LAB_DIR/.check"
	# every host answers on the lab network, seen from the head: a TCP connect to port 9 is
	# refused (RST) by a reachable host (there is no ping here); builtins only
	nsenter --net="/run/netns/$LAB_HEAD" bash -c '
		e=$1; shift
		for a; do
			: 2> "$e" 3<> "/dev/tcp/$a/9" && continue
			read -r r < "$e"
			case $r in *refused*) continue ;; esac
			echo "host $a does not answer from the head: $r" >&2
			exit 1
		done' _ "$LAB_DIR/.check" "${H_ADDR[@]:0:LAB_CLIENTS+LAB_SERVERS}" || die "lab network check failed"
	rm -f "$LAB_DIR/.check"

	# the guests boot (in parallel, in the background) while the NFS server starts
	if [ ${#guests[@]} -ge 1 ]; then
		journal vm "$LAB_DIR"
		mkdir -p "$LAB_DIR/vm" || die "cannot create $LAB_DIR/vm"
		for ((i = 0; i < n; i++)); do
			[ "${H_KIND[$i]}" = vm ] || continue
			local o
			IFS=. read -r -a o <<< "${H_ADDR[$i]}"
			printf '%s %s 52:54:00:%02x:%02x:%02x %s\n' "${H_NAME[$i]}" "${H_ADDR[$i]}" "${o[1]}" "${o[2]}" "${o[3]}" "${H_ROLE[$i]}"
		done > "$LAB_DIR/vm/guests"
		[ ${#shares[@]} = 0 ] || printf '%s\n' "${shares[@]}" > "$LAB_DIR/vm/extra-shares"
		"$VM" start "$LAB_DIR" "$img" || die "the guests did not start"
	fi

	if [ -n "$export_dir" ]; then
		local s1=$LAB_PREFIX-s1 saddr=$LAB_SUBNET.$((LAB_CLIENTS + 1)) url
		journal ganesha "$LAB_DIR/ganesha"
		ip netns exec "$s1" nsenter --uts="$LAB_DIR/uts/$s1" \
			env GANESHA_RPCBIND_NET="${GANESHA_RPCBIND_NET:-shared}" \
			"$GANESHA" start "$LAB_DIR/ganesha" "$export_dir" "$saddr" ||
			die "nfs-ganesha did not start on $s1"
		gen "$LAB_DIR/nfs_url"
		gen "$LAB_DIR/nfs_url4"
		"$GANESHA" url "$LAB_DIR/ganesha" 4 > "$LAB_DIR/nfs_url4" || die "ganesha.sh url failed"
		url=$("$GANESHA" url "$LAB_DIR/ganesha" 3) || die "ganesha.sh url failed"
		echo "$url" > "$LAB_DIR/nfs_url"
		echo "LAB_NFS_URL='$url'" >> "$LAB_DIR/lab.env"
		echo "export STLAB_NFS_URL='$url'" >> "$LAB_DIR/env.sh"
	fi

	if [ ${#guests[@]} -ge 1 ]; then
		# in the background: a signal to lab.sh then interrupts the wait (a foreground
		# child would delay the teardown until every guest had booted)
		"$VM" wait "$LAB_DIR" &
		VMWAIT=$!
		wait $VMWAIT || exit 1
		VMWAIT=
	fi

	trap - EXIT INT TERM HUP
	local t1; t1=$(now_ms)
	echo "lab $LAB_PREFIX up in $((t1 - t0)) ms: $LAB_CLIENTS client(s), $LAB_SERVERS server(s)${guests[*]:+, ${#guests[@]} guest(s)}, head $LAB_HEAD, $LAB_SUBNET.0/24, rate $rate${export_dir:+, nfs $(cat "$LAB_DIR/nfs_url")}"
}

write_launcher() {
	local f=$LAB_DIR/launcher i all="${H_NAME[*]}"
	gen "$f"
	{
		cat <<EOF
#!/bin/sh
# generated by lab.sh up for lab $LAB_PREFIX ($LAB_DIR): Open MPI's plm_rsh_agent.
# Called as ssh would be:  launcher [ssh options] [user@]HOST COMMAND...
# Runs sh -c "COMMAND..." inside HOST's network and UTS namespaces (the words are joined with
# spaces, as ssh does: they carry shell quoting). HOST is a lab host name or address. The
# environment and working directory of the caller are kept (unlike ssh). Errors of the
# launcher itself exit with 255, as ssh's do. ip netns exec (not nsenter --net) so that /sys
# is the host's own (a fresh mount namespace per command with sysfs remounted): with plain
# nsenter, /sys/class/net/eth0 would be the root namespace's eth0, not the host's veth.
# A guest (QEMU) is reached with ssh itself, from the head's network namespace, over the
# master connection vm.sh opened (LAB_DIR/ssh/config); there the guest's environment and
# home directory apply, as on a real cluster.
while [ \$# -gt 0 ]; do
	case \$1 in
		--) shift; break ;;
		-[BbcDEeFIiJLlmOopQRSWw]) [ \$# -ge 2 ] || break; shift 2 ;;
		-*) shift ;;
		*) break ;;
	esac
done
if [ \$# -eq 0 ]; then
	echo "launcher: no host given" >&2
	exit 255
fi
host=\${1##*@} ns= vm=
shift
case \$host in
EOF
		for ((i = 0; i < ${#H_NAME[@]}; i++)); do
			if [ "${H_KIND[$i]}" = vm ]; then
				printf '\t%s | %s) vm=%s ;;\n' "${H_NAME[$i]}" "${H_ADDR[$i]}" "${H_NAME[$i]}"
			else
				printf '\t%s | %s) ns=%s ;;\n' "${H_NAME[$i]}" "${H_ADDR[$i]}" "${H_NAME[$i]}"
			fi
		done
		cat <<EOF
	*)
		echo "launcher: unknown host \$host (lab $LAB_PREFIX has: $all)" >&2
		exit 255
		;;
esac
if [ \$# -eq 0 ]; then
	echo "launcher: no command for \$host (no interactive logins in the lab)" >&2
	exit 255
fi
if [ -n "\$vm" ]; then
	if [ ! -e "$LAB_DIR/vm/\$vm.pid" ]; then
		echo "launcher: guest \$host is down (no $LAB_DIR/vm/\$vm.pid)" >&2
		exit 255
	fi
	exec nsenter --net=/run/netns/$LAB_HEAD ssh -F "$LAB_DIR/ssh/config" "\$vm" "\$@"
fi
if [ ! -e "/run/netns/\$ns" ]; then
	echo "launcher: host \$host is down (no /run/netns/\$ns)" >&2
	exit 255
fi
exec ip netns exec "\$ns" nsenter --uts="$LAB_DIR/uts/\$ns" sh -c "\$*"
EOF
	} > "$f" || die "cannot write $f"
	chmod 755 "$f" || die "cannot chmod $f"
}

write_env() {
	local f=$LAB_DIR/env.sh
	gen "$f"
	cat > "$f" <<EOF || die "cannot write $f"
# generated by lab.sh up: Open MPI settings for lab $LAB_PREFIX. Source it in a lab namespace
# (lab.sh run does), then: mpirun -hostfile \$STLAB_HOSTFILE -np N COMMAND
# The one-host settings of the tests (root allowance, no binding, oversubscribe, ob1,
# btl self,vader,tcp):
. $repo/tests/mpienv.sh
# Start the daemons of the hosts through the lab's launcher, all from mpirun:
export OMPI_MCA_plm_rsh_agent=$LAB_DIR/launcher
export OMPI_MCA_plm_rsh_no_tree_spawn=1
# Out-of-band and MPI traffic over the lab network only:
export OMPI_MCA_oob_tcp_if_include=$LAB_SUBNET.0/24
export OMPI_MCA_btl_tcp_if_include=$LAB_SUBNET.0/24
# For scripts:
export STLAB_DIR=$LAB_DIR STLAB_PREFIX=$LAB_PREFIX STLAB_SUBNET=$LAB_SUBNET
export STLAB_HOSTFILE=$LAB_DIR/hostfile STLAB_LAUNCHER=$LAB_DIR/launcher
EOF
}

# --- other commands -------------------------------------------------------------------------

open_lab() { # LAB_DIR: set LAB_DIR (absolute) and load lab.env, or die
	check_lab_dir "$1"
	LAB_DIR=$(realpath -m "$1")
	load_env "$LAB_DIR" || die "$LAB_DIR is not a lab (no lab.env); run: $0 up $1 --clients N"
	[ -f "$LAB_DIR/journal" ] || die "$LAB_DIR: lab is down"
	lab_hosts
}

cmd_run() {
	[ $# -ge 1 ] || usage
	open_lab "$1"; shift
	local on=$LAB_HEAD h ok=0
	while [ $# -gt 0 ]; do
		case $1 in
			--on) on=${2:-}; shift 2 || usage ;;
			--) shift; break ;;
			*) break ;;
		esac
	done
	[ $# -ge 1 ] || die "run: no command (lab.sh run LAB_DIR [--on HOST] -- COMMAND...)"
	for h in "${H_NAME[@]}"; do [ "$h" = "$on" ] && ok=1; done
	[ $ok = 1 ] || die "run: unknown host $on (lab $LAB_PREFIX has: ${H_NAME[*]})"
	if is_vm "$on"; then
		# a guest: over ssh, in this directory when the guest has it (the repository, LAB_DIR
		# and --vm-share ones), else root's home; the words keep their boundaries (bash quoting)
		[ -e "$LAB_DIR/vm/$on.pid" ] || die "run: guest $on is down"
		local cmd
		printf -v cmd '%q ' "$@"
		exec nsenter --net="/run/netns/$LAB_HEAD" ssh -F "$LAB_DIR/ssh/config" "$on" \
			"cd $(printf %q "$PWD") 2>/dev/null; $cmd"
	fi
	[ -e "/run/netns/$on" ] || die "run: host $on is down"
	exec ip netns exec "$on" nsenter --uts="$LAB_DIR/uts/$on" \
		bash -c '. "$0" || exit 1; exec "$@"' "$LAB_DIR/env.sh" "$@"
}

cmd_rate() {
	[ $# -eq 2 ] || usage
	open_lab "$1"
	exec 9> "$LAB_DIR/.lock" && flock -w 10 9 || die "$LAB_DIR is busy"
	[ "$LAB_SERVERS" -ge 1 ] || die "lab $LAB_PREFIX has no server to shape"
	set_rate "$2" || die "setting rate $2 failed"
	echo "lab $LAB_PREFIX: server link rate $2"
}

cmd_disk_rate() {
	[ $# -eq 2 ] || usage
	open_lab "$1"
	exec 9> "$LAB_DIR/.lock" && flock -w 10 9 || die "$LAB_DIR is busy"
	[ "${LAB_VM_SERVERS:-0}" -ge 1 ] || die "lab $LAB_PREFIX has no knfsd guest (--vm-servers)"
	"$VM" disk-rate "$LAB_DIR" "$2" || die "setting the disk rate $2 failed"
}

cmd_status() {
	[ $# -eq 1 ] || usage
	open_lab "$1"
	echo "lab $LAB_PREFIX in $LAB_DIR: $LAB_SUBNET.0/24, server link rate $(cat "$LAB_DIR/rate" 2>/dev/null || echo '?')"
	local i st
	for ((i = 0; i < ${#H_NAME[@]}; i++)); do
		if [ "${H_KIND[$i]}" = vm ]; then
			local p=
			[ -s "$LAB_DIR/vm/${H_NAME[$i]}.pid" ] && read -r p _ < "$LAB_DIR/vm/${H_NAME[$i]}.pid"
			if [ -n "$p" ] && [ -d "/proc/$p" ]; then st="guest, qemu pid $p"; else st="guest, down"; fi
		elif [ -e "/run/netns/${H_NAME[$i]}" ]; then
			ns_pids "${H_NAME[$i]}"
			st="up, ${#PIDS[@]} process(es)"
		else
			st=missing
		fi
		printf '  %-16s %-15s %-6s %s\n' "${H_NAME[$i]}" "${H_ADDR[$i]}" "${H_ROLE[$i]}" "$st"
	done
	if [ -f "$LAB_DIR/nfs_url" ]; then
		if [ -f "$LAB_DIR/ganesha/pids.info" ]; then st=running; else st=stopped; fi
		echo "  nfs-ganesha on $LAB_PREFIX-s1: $st, $(cat "$LAB_DIR/nfs_url")"
	fi
}

cmd_down() {
	[ $# -eq 1 ] || usage
	check_lab_dir "$1"
	LAB_DIR=$(realpath -m "$1")
	if [ ! -f "$LAB_DIR/journal" ]; then
		echo "lab in $LAB_DIR: nothing to take down"
		return 0
	fi
	load_env "$LAB_DIR" || true
	exec 9> "$LAB_DIR/.lock" && flock -w 30 9 || die "$LAB_DIR is busy"
	local t0; t0=$(now_ms)
	teardown "$LAB_DIR" || die "down: some parts remain (see above); run it again"
	exec 9>&-
	echo "lab ${LAB_PREFIX:-?} down in $(($(now_ms) - t0)) ms"
}

[ $# -ge 1 ] || usage
cmd=$1; shift
case $cmd in
	up) cmd_up "$@" ;;
	down) cmd_down "$@" ;;
	run) cmd_run "$@" ;;
	rate) cmd_rate "$@" ;;
	disk-rate) cmd_disk_rate "$@" ;;
	status) cmd_status "$@" ;;
	*) usage ;;
esac
