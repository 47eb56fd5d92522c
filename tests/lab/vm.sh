#!/bin/bash
# run as "sh FILE" (dash): the same script under bash, which it needs
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
# shellcheck disable=SC2015,SC2016
# QEMU guests as hosts of the lab (tests/lab/lab.sh up --vm-clients N): Debian's own kernel
# (linux-image-6.1, with the kernel NFS client the host lacks) and a Debian 12 root, booted
# under TCG from one cached image, each guest a lab host with its own address, hostname and
# sshd, reached by mpirun over ssh. See tests/lab/README.md ("VM clients").
#
#   vm.sh image [--rebuild]   # the cached image (built on first use); prints its directory
#   vm.sh prune               # remove cached images and roots of other recipes
#   vm.sh start LAB_DIR [IMG] # lab.sh up: boot the guests of LAB_DIR/vm/guests at once
#   vm.sh wait  LAB_DIR       # lab.sh up: until each answers over ssh (bound: STLAB_VM_BOOT_WAIT)
#   vm.sh stop  LAB_DIR       # lab.sh down: power-off over ssh, monitor quit, TERM, KILL (by PID)
#   vm.sh disk-rate LAB_DIR BPS|none  # lab.sh disk-rate: throttle each server guest's disk now
#
# Environment:
#   STLAB_VM_CACHE      image cache (default /var/cache/stcluster-vm)
#   STLAB_VM_MIRROR     Debian mirror for debootstrap (default: this machine's apt source)
#   STLAB_VM_KVER       guest kernel release (default: what linux-image-amd64 depends on)
#   STLAB_VM_MEM        MiB per guest (768)
#   STLAB_VM_SMP        vCPUs per guest (1)
#   STLAB_VM_BOOT_WAIT  seconds a guest may take to come up (300)
#
# A guest whose role in LAB_DIR/vm/guests is "server" (lab.sh up --vm-servers N) runs the
# kernel's NFS server (tests/lab/vm/init, stlab.role=server) on a second disk of its own,
# LAB_DIR/vm/NAME.disk (ext4, LAB_VM_DISK_MB of lab.env, default 512), throttled by QEMU when
# lab.env sets LAB_VM_DISK_BPS / LAB_VM_DISK_IOPS (throttling.bps-total, iops-total).
#
# The image: $STLAB_VM_CACHE/image-KEY/{vmlinux,initrd.gz,root.img}, KEY a hash of the recipe
# (the functions that build it, tests/lab/vm/*, the package list, the kernel release). The
# expensive part, the debootstrap root (~100 s), is cached on its own as root-RKEY/ (RKEY: its
# packages and how it is made), so changing the guest's init rebuilds the image in seconds.
set -u

prog=vm.sh
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
repo=$(cd "$here/../.." && pwd)

CACHE=${STLAB_VM_CACHE:-/var/cache/stcluster-vm}
SUITE=bookworm
# the guest root: the NFS client (nfs-common; netbase for /etc/protocols, without which
# mount.nfs fails "Failed to find 'tcp' protocol"), Open MPI, sshd, and stcluster's run-time
# libraries (the binary built on the host runs unchanged; libasan8/libubsan1 for build-san);
# nfs-kernel-server (rpc.nfsd, rpc.mountd, exportfs; rpcbind with it) for the guest that is a
# server host (lab.sh up --vm-servers 1): one root for every guest, so one image
PACKAGES="netbase nfs-common nfs-kernel-server openmpi-bin openssh-server kmod iproute2 procps strace
libhwloc15 libsqlite3-0 libuuid1 libnfs13 libssl3 liburing2 libaio1 libasan8 libubsan1"
# modules: the initramfs loads what mounts the root disk; the guest's init the rest
INITRD_MODULES="virtio_pci virtio_blk crc32c_generic ext4"
ROOT_MODULES="virtio_pci virtio_net virtio_rng 9pnet_virtio 9p sunrpc nfs nfsv3 nfsv4 nfsd"

die() { echo "$prog: $*" >&2; exit 1; }
say() { echo "$prog: $*" >&2; }
now_ms() { local t=${EPOCHREALTIME/./}; echo $((t / 1000)); }
secs() { local d=$(($(now_ms) - $1)); printf '%d.%d' $((d / 1000)) $((d % 1000 / 100)); }

# --- processes by PID ---------------------------------------------------------------------

# pid_start PID: set _start to the starttime of a live, non-zombie process; fail otherwise
pid_start() {
	local st
	local -a f
	_start=
	{ read -r st < "/proc/$1/stat"; } 2>/dev/null || return 1
	read -r -a f <<< "${st##*) }"
	case ${f[0]} in Z | X) return 1 ;; esac
	_start=${f[19]}
}
# alive FILE: the process recorded in FILE ("pid starttime") still runs
alive() {
	local pid st
	[ -s "$1" ] || return 1
	read -r pid st < "$1" || return 1
	pid_start "$pid" && [ "$_start" = "$st" ]
}
record() { # FILE PID
	pid_start "$2" || return 1
	echo "$2 $_start" > "$1"
}

# closed_fds CMD...: run CMD with every inherited descriptor above 2 closed, stdin from
# /dev/null, in /. For what outlives this script (qemu, the ssh masters): an inherited
# descriptor would keep its lock (flock /work/lab.lock, LAB_DIR/.lock) held, or a caller's pipe
# open (a "$(lab.sh up ...)" waiting for EOF), for the guest's whole life; and the caller's
# directory (a test's $T) is removed while they run.
closed_fds() {
	(
		local f n
		for f in /proc/$BASHPID/fd/*; do
			n=${f##*/}
			[ "$n" -gt 2 ] 2> /dev/null && eval "exec $n>&-"
		done
		cd / && exec "$@" < /dev/null
	)
}

# --- the image ----------------------------------------------------------------------------

kernel_release() {
	if [ -n "${STLAB_VM_KVER:-}" ]; then echo "$STLAB_VM_KVER"; return; fi
	local k
	k=$(apt-cache depends linux-image-amd64 2>/dev/null | sed -n 's/^ *Depends: linux-image-\([0-9].*-amd64\)$/\1/p' | head -1)
	[ -n "$k" ] || die "cannot tell the Debian kernel release (no apt lists? run apt-get update, or set STLAB_VM_KVER)"
	echo "$k"
}

mirror() {
	if [ -n "${STLAB_VM_MIRROR:-}" ]; then echo "$STLAB_VM_MIRROR"; return; fi
	local m
	m=$(sed -n 's/^URIs: *\(http[^ ]*\/debian\)\/\{0,1\}$/\1/p; s/^deb  *\(http[^ ]*\/debian\)\/\{0,1\}  *bookworm .*/\1/p' \
		/etc/apt/sources.list.d/*.sources /etc/apt/sources.list 2>/dev/null | head -1)
	echo "${m:-http://deb.debian.org/debian}"
}

# build_root DIR: the debootstrap root (the part that takes ~100 s)
build_root() {
	local dir=$1 log=$2
	debootstrap --variant=minbase --include="${PACKAGES//[[:space:]]/,}" "$SUITE" "$dir" "$(mirror)" \
		>> "$log" 2>&1 || return 1
	# nothing of the build machine's package cache is needed in the guest
	rm -rf "$dir"/var/cache/apt/archives/*.deb "$dir"/var/lib/apt/lists/* "$dir"/usr/share/doc \
		"$dir"/usr/share/man "$dir"/usr/share/locale
}

# modules_closure CHROOT KVER MODULE...: the .ko files (relative to lib/modules/KVER) that
# loading these needs, dependencies first
modules_closure() {
	local r=$1 k=$2 m
	shift 2
	for m; do
		chroot "$r" modprobe -S "$k" --show-depends "$m" || return 1
	done | awk '$1 == "insmod" { sub("^/lib/modules/[^/]*/", "", $2); if (!seen[$2]++) print $2 }'
}

# build_image DIR ROOT KVER LOG: kernel, initramfs and root disk of the guests
build_image() {
	local out=$1 root=$2 kver=$3 log=$4 w=$1/work
	mkdir -p "$w/debs" || return 1
	(cd "$w/debs" && apt-get -o APT::Sandbox::User=root download "linux-image-$kver" busybox-static) >> "$log" 2>&1 ||
		{ say "apt-get download linux-image-$kver busybox-static failed"; return 1; }
	dpkg -x "$w"/debs/linux-image-"$kver"_*.deb "$w/kernel" && dpkg -x "$w"/debs/busybox-static_*.deb "$w/bb" ||
		return 1
	# the uncompressed kernel (an ELF with the PVH entry note): no firmware, no decompression
	local z=$w/kernel/boot/vmlinuz-$kver off
	off=$(LC_ALL=C grep -obUaP '\xfd7zXZ\x00' "$z" | cut -d: -f1 | head -1)
	[ -n "$off" ] && tail -c +$((off + 1)) "$z" | xz -dc --single-stream > "$out/vmlinux" 2>> "$log" &&
		[ "$(head -c 4 "$out/vmlinux" | od -An -c | tr -d ' ')" = 177ELF ] ||
		{ say "no xz-compressed ELF kernel in $z"; return 1; }
	# the guest's root: a copy of the debootstrap tree with the kernel's modules (only those
	# a lab client loads), the lab's init, sshd settings; host keys come from the lab
	local s=$w/stage
	cp -a "$root" "$s" || return 1
	mkdir -p "$s/lib/modules" && mv "$w/kernel/lib/modules/$kver" "$s/lib/modules/" || return 1
	chroot "$s" depmod "$kver" || return 1
	local keep
	keep=$(modules_closure "$s" "$kver" $ROOT_MODULES $INITRD_MODULES) || return 1
	(cd "$s/lib/modules/$kver" && find kernel -name '*.ko' | grep -vxF "$keep" | xargs -r rm -f) || return 1
	find "$s/lib/modules/$kver/kernel" -type d -empty -delete
	chroot "$s" depmod "$kver" || return 1
	install -m 0755 "$here/vm/init" "$s/sbin/stlab-init" &&
		install -m 0755 "$here/vm/poweroff" "$s/usr/local/sbin/stlab-poweroff" || return 1
	rm -f "$s"/etc/ssh/ssh_host_*
	cat > "$s/etc/ssh/sshd_config.d/stlab.conf" <<-'EOF' || return 1
	# the lab's sshd: root by the key the lab made, host key from the lab share
	HostKey /run/stlab/ssh_host_ed25519_key
	AuthorizedKeysFile /run/stlab/authorized_keys
	PermitRootLogin prohibit-password
	PasswordAuthentication no
	KbdInteractiveAuthentication no
	UsePAM no
	UseDNS no
	PrintMotd no
	PrintLastLog no
	MaxSessions 200
	MaxStartups 100:30:200
	LogLevel ERROR
	EOF
	: > "$s/etc/fstab"
	echo stlab-guest > "$s/etc/hostname"
	# the disk: ext4 without a journal (the guests use it as a throw-away snapshot)
	local mb
	mb=$(du -sm "$s" | cut -f1)
	mkfs.ext4 -q -F -L stlab -O ^has_journal -d "$s" "$out/root.img" "$((mb + mb / 4 + 256))M" >> "$log" 2>&1 ||
		{ say "mkfs.ext4 -d failed"; return 1; }
	# the initramfs: busybox-static, the disk's modules, /init
	local i=$w/initrd m
	mkdir -p "$i/bin" "$i/lib/modules" && cp "$w/bb/bin/busybox" "$i/bin/busybox" &&
		install -m 0755 "$here/vm/initramfs-init" "$i/init" || return 1
	modules_closure "$s" "$kver" $INITRD_MODULES > "$i/modules" || return 1
	while read -r m; do
		mkdir -p "$i/lib/modules/${m%/*}" && cp "$s/lib/modules/$kver/$m" "$i/lib/modules/$m" || return 1
	done < "$i/modules"
	(cd "$i" && find . | "$w/bb/bin/busybox" cpio -o -H newc 2>/dev/null | gzip -1) > "$out/initrd.gz" || return 1
	echo "$kver" > "$out/kernel-release"
	rm -rf "$w"
}

# root_key, image_key: hashes of what makes each part (a change of any rebuilds it)
root_key() {
	{ echo "$SUITE"; echo $PACKAGES; declare -f build_root; } | sha256sum | cut -c1-16
}
image_key() { # KVER
	{ root_key; echo "$1"; echo $INITRD_MODULES; echo $ROOT_MODULES
	  declare -f build_image modules_closure; cat "$here"/vm/*; } | sha256sum | cut -c1-16
}

# image_dir: set IMG to the image for this recipe, building what is missing (flock'ed)
image_dir() {
	local rebuild=${1:-0} kver rk ik
	kver=$(kernel_release) || exit 1
	rk=$(root_key) ik=$(image_key "$kver")
	IMG=$CACHE/image-$ik
	[ $rebuild = 0 ] && [ -s "$IMG/root.img" ] && return 0
	[ "$(id -u)" = 0 ] || die "building the guest image needs root (debootstrap, chroot)"
	local b
	for b in debootstrap chroot mkfs.ext4 xz apt-get dpkg; do
		command -v $b > /dev/null || die "$b not found (tests/deps.sh install)"
	done
	mkdir -p "$CACHE" || die "cannot create $CACHE"
	exec 8> "$CACHE/.lock" || die "cannot write $CACHE/.lock"
	flock -w 1800 8 || die "$CACHE is locked by another build for 30 min"
	if [ $rebuild = 1 ]; then
		rm -rf "$IMG" "$CACHE/root-$rk"
	elif [ -s "$IMG/root.img" ]; then
		exec 8>&-
		return 0 # built by someone else meanwhile
	fi
	local t0 log=$CACHE/build.log tmp
	t0=$(now_ms)
	: > "$log"
	trap 'rm -rf "$CACHE"/tmp.*; exit 130' INT TERM HUP
	if [ ! -f "$CACHE/root-$rk/.stlab-root" ]; then
		say "building the guest root (debootstrap $SUITE from $(mirror); once, about 2 min)"
		tmp=$(mktemp -d "$CACHE/tmp.XXXXXX") || die "cannot create a directory in $CACHE"
		build_root "$tmp/root" "$log" || { rm -rf "$tmp"; die "debootstrap failed (see $log)"; }
		touch "$tmp/root/.stlab-root" && rm -rf "$CACHE/root-$rk" && mv "$tmp/root" "$CACHE/root-$rk" &&
			rmdir "$tmp" || die "cannot store the root in $CACHE"
		say "guest root root-$rk built in $(secs "$t0") s"
	fi
	local t1; t1=$(now_ms)
	tmp=$(mktemp -d "$CACHE/tmp.XXXXXX") || die "cannot create a directory in $CACHE"
	build_image "$tmp" "$CACHE/root-$rk" "$kver" "$log" || { rm -rf "$tmp"; die "image build failed (see $log)"; }
	rm -rf "$IMG" && mv "$tmp" "$IMG" || die "cannot store the image in $CACHE"
	trap - INT TERM HUP
	exec 8>&-
	say "guest image image-$ik (kernel $kver) built in $(secs "$t1") s"
	local others
	others=$(find "$CACHE" -maxdepth 1 \( -name 'image-*' -o -name 'root-*' \) ! -name "image-$ik" ! -name "root-$rk" | wc -l)
	[ "$others" = 0 ] || say "$others cached image/root dir(s) of other recipes in $CACHE ($0 prune removes them)"
	return 0
}

cmd_image() {
	local rebuild=0
	case ${1:-} in --rebuild) rebuild=1 ;; "") ;; *) die "image: unknown argument '$1'" ;; esac
	image_dir $rebuild
	echo "$IMG"
}

cmd_prune() {
	local kver rk ik d n=0
	kver=$(kernel_release) || exit 1
	rk=$(root_key) ik=$(image_key "$kver")
	[ -d "$CACHE" ] || return 0
	exec 8> "$CACHE/.lock" && flock -w 60 8 || die "$CACHE is busy"
	for d in "$CACHE"/image-* "$CACHE"/root-* "$CACHE"/tmp.*; do
		[ -e "$d" ] || continue
		case ${d##*/} in "image-$ik" | "root-$rk") continue ;; esac
		rm -rf "$d" && n=$((n + 1))
	done
	echo "$prog: removed $n cached dir(s); kept image-$ik, root-$rk"
}

# --- guests of a lab ----------------------------------------------------------------------

# open_lab LAB_DIR: load lab.env, the guests (G_NAME, G_ADDR, G_MAC) and paths
open_lab() {
	LAB_DIR=$1
	[ -r "$LAB_DIR/lab.env" ] || die "$LAB_DIR is not a lab (no lab.env)"
	# shellcheck disable=SC1091
	. "$LAB_DIR/lab.env"
	VD=$LAB_DIR/vm SD=$LAB_DIR/ssh
	G_NAME=() G_ADDR=() G_MAC=() G_ROLE=()
	local n a m r
	if [ -r "$VD/guests" ]; then
		while read -r n a m r; do G_NAME+=("$n") G_ADDR+=("$a") G_MAC+=("$m") G_ROLE+=("${r:-client}"); done < "$VD/guests"
	fi
}

# ssh_to NAME ARGS...: ssh to a guest from the head's network namespace (over the master
# connection when there is one)
ssh_to() {
	local n=$1; shift
	nsenter --net="/run/netns/$LAB_HEAD" ssh -F "$SD/config" "$n" "$@"
}

# keys and files the guests and the launcher use: LAB_DIR/ssh (client key, known_hosts,
# config, control sockets) and LAB_DIR/vm/share (the guests' read-only lab share)
prepare() {
	local i
	case $repo in *[!A-Za-z0-9._/+-]*) say "the repository's path '$repo' may only contain letters, digits and . _ / + - (a 9p share)"; return 1 ;; esac
	mkdir -p "$VD/share" "$SD" && chmod 700 "$SD" || return 1
	ssh-keygen -q -t ed25519 -N '' -C "stlab-$LAB_PREFIX" -f "$SD/id_ed25519" < /dev/null &&
		ssh-keygen -q -t ed25519 -N '' -C "stlab-$LAB_PREFIX-host" -f "$VD/share/ssh_host_ed25519_key" < /dev/null ||
		{ say "ssh-keygen failed"; return 1; }
	cp "$SD/id_ed25519.pub" "$VD/share/authorized_keys" || return 1
	local hk
	read -r hk < "$VD/share/ssh_host_ed25519_key.pub"
	hk=${hk% *}
	: > "$SD/known_hosts"
	{
		echo "# generated by $prog for lab $LAB_PREFIX: the guests, over the lab network"
		echo "Host *"
		echo "	User root"
		echo "	IdentityFile $SD/id_ed25519"
		echo "	IdentitiesOnly yes"
		echo "	UserKnownHostsFile $SD/known_hosts"
		echo "	GlobalKnownHostsFile /dev/null"
		echo "	StrictHostKeyChecking yes"
		echo "	CheckHostIP no"
		echo "	UpdateHostKeys no"
		echo "	BatchMode yes"
		echo "	ControlMaster no"
		echo "	ControlPath $SD/%n.ctl"
		echo "	ConnectTimeout 10"
		echo "	ServerAliveInterval 10"
		echo "	ServerAliveCountMax 6"
		echo "	LogLevel ERROR"
		for ((i = 0; i < ${#G_NAME[@]}; i++)); do
			echo "Host ${G_NAME[$i]}"
			echo "	HostName ${G_ADDR[$i]}"
			echo "${G_NAME[$i]},${G_ADDR[$i]} $hk" >> "$SD/known_hosts"
		done
	} > "$SD/config" || return 1
	# /etc/hosts of the guests: every host of the lab
	{
		echo "127.0.0.1 localhost"
		awk '{ print $2, $1 }' "$LAB_DIR/hosts"
	} > "$VD/share/hosts" || return 1
	# the host directories every guest mounts at the same path, parents first: the repository
	# (read-only: $TOP/stcluster and $TOP/build-san/stcluster work as on the host), LAB_DIR
	# (read-only: the orted that mpirun starts in a guest is handed the launcher's path in
	# plm_rsh_agent and fails if that path is missing there), --vm-share ones (read-write)
	{
		echo "$repo ro"
		case $LAB_DIR/ in "$repo"/*) ;; *) echo "$LAB_DIR ro" ;; esac
		[ ! -s "$VD/extra-shares" ] || sed 's/$/ rw/' "$VD/extra-shares"
	} | sort -k1,1 > "$VD/share/shares"
}

# server_disk NAME: the export disk of a server guest, VD/NAME.disk: a sparse raw file with
# an ext4 made here (fast; under TCG mkfs would take seconds), its inode tables and journal
# initialised now so that no lazy init writes to it while a test measures; DISK_THROTTLE:
# QEMU's throttling of it (lab.env's LAB_VM_DISK_BPS, LAB_VM_DISK_IOPS; empty: none)
server_disk() {
	local f=$VD/$1.disk mb=${LAB_VM_DISK_MB:-512}
	[[ $mb =~ ^[0-9]+$ ]] && [ "$mb" -ge 64 ] || { say "LAB_VM_DISK_MB must be MiB >= 64, got '$mb'"; return 1; }
	truncate -s "${mb}M" "$f" &&
		mkfs.ext4 -q -F -L stlab-export -E lazy_itable_init=0,lazy_journal_init=0 "$f" > /dev/null ||
		{ say "mkfs.ext4 of $f failed"; return 1; }
	DISK_THROTTLE=
	[ -z "${LAB_VM_DISK_BPS:-}" ] || DISK_THROTTLE+=",throttling.bps-total=$LAB_VM_DISK_BPS"
	[ -z "${LAB_VM_DISK_IOPS:-}" ] || DISK_THROTTLE+=",throttling.iops-total=$LAB_VM_DISK_IOPS"
	return 0
}

cmd_start() {
	[ $# = 1 ] || [ $# = 2 ] || die "usage: $prog start LAB_DIR [IMAGE_DIR]"
	open_lab "$1"
	[ ${#G_NAME[@]} -gt 0 ] || die "$LAB_DIR/vm/guests lists no guest"
	command -v qemu-system-x86_64 > /dev/null || die "qemu-system-x86_64 not found (apt-get install qemu-system-x86)"
	command -v ssh > /dev/null && command -v ssh-keygen > /dev/null || die "ssh not found (apt-get install openssh-client)"
	[ -c /dev/net/tun ] || die "no /dev/net/tun (the guests' taps)"
	# the image `vm.sh image` just printed (lab.sh passes it on: finding the kernel release
	# again would cost a second), or this recipe's
	if [ -n "${2:-}" ] && [ -s "$2/root.img" ]; then IMG=$2; else image_dir 0; fi
	prepare || die "cannot prepare $VD and $SD"
	local mem=${STLAB_VM_MEM:-768} smp=${STLAB_VM_SMP:-1}
	[[ $mem =~ ^[0-9]+$ ]] && [ "$mem" -ge 256 ] || die "STLAB_VM_MEM must be MiB >= 256, got '$mem'"
	[[ $smp =~ ^[0-9]+$ ]] && [ "$smp" -ge 1 ] && [ "$smp" -le 8 ] || die "STLAB_VM_SMP must be 1..8, got '$smp'"
	local -a fs=()
	local path mode ro k=0
	fs+=(-fsdev "local,id=fsl,path=$VD/share,security_model=passthrough,readonly=on"
		-device "virtio-9p-pci,fsdev=fsl,mount_tag=stlab")
	while read -r path mode; do
		ro=
		[ "$mode" = ro ] && ro=,readonly=on
		fs+=(-fsdev "local,id=fs$k,path=$path,security_model=passthrough$ro"
			-device "virtio-9p-pci,fsdev=fs$k,mount_tag=share$k")
		k=$((k + 1))
	done < "$VD/share/shares"
	local i n pids=()
	local -a srv
	for ((i = 0; i < ${#G_NAME[@]}; i++)); do
		n=${G_NAME[$i]}
		rm -f "$VD/$n".*
		mkfifo "$VD/$n.mon.in" "$VD/$n.mon.out" || die "mkfifo in $VD failed"
		srv=()
		if [ "${G_ROLE[$i]}" = server ]; then
			server_disk "$n" || die "cannot make the export disk of $n"
			srv=(-drive "id=data,file=$VD/$n.disk,if=virtio,format=raw,cache=writeback$DISK_THROTTLE")
		fi
		# in the bridge's namespace, where the guest's tap is a port of br0; TMPDIR: the
		# snapshot overlay of root.img stays inside the lab (removed even after a SIGKILL)
		closed_fds env TMPDIR="$VD" nsenter --net="/run/netns/$LAB_BRIDGE_NS" qemu-system-x86_64 \
			-name "$n" -nodefaults -no-user-config -no-reboot \
			-machine pc -accel tcg -cpu max -smp "$smp" -m "$mem" -display none \
			-serial "file:$VD/$n.console" -monitor "pipe:$VD/$n.mon" \
			-kernel "$IMG/vmlinux" -initrd "$IMG/initrd.gz" \
			-append "console=ttyS0 quiet panic=-1 stlab.host=$n stlab.addr=${G_ADDR[$i]}/24 stlab.role=${G_ROLE[$i]}" \
			-drive "file=$IMG/root.img,if=virtio,format=raw,snapshot=on,cache=unsafe" \
			"${srv[@]}" \
			"${fs[@]}" \
			-netdev "tap,id=n0,ifname=t-${n#"$LAB_PREFIX"-},script=no,downscript=no" \
			-device "virtio-net-pci,netdev=n0,mac=${G_MAC[$i]}" \
			-device virtio-rng-pci \
			-daemonize -pidfile "$VD/$n.qpid" > "$VD/$n.err" 2>&1 &
		pids+=($!)
	done
	local rc=0 p
	for ((i = 0; i < ${#G_NAME[@]}; i++)); do
		n=${G_NAME[$i]}
		wait "${pids[$i]}" || { say "qemu for $n did not start: $(tr '\n' ' ' < "$VD/$n.err")"; rc=1; }
		p=
		[ -s "$VD/$n.qpid" ] && read -r p < "$VD/$n.qpid"
		[ -n "$p" ] && record "$VD/$n.pid" "$p" || { [ $rc = 1 ] || say "qemu for $n: no PID"; rc=1; }
	done
	return $rc
}

# console_says FILE TEXT: set LINE to the first console line holding TEXT (no forks)
console_says() {
	local -a lines
	local l
	LINE=
	[ -s "$1" ] || return 1
	mapfile -t lines < "$1"
	for l in "${lines[@]}"; do
		case $l in *"$2"*) LINE=${l%$'\r'}; return 0 ;; esac
	done
	return 1
}
last_line() { # FILE: the last non-empty console line, for a message
	local -a lines
	local i
	mapfile -t lines < "$1" 2>/dev/null
	for ((i = ${#lines[@]} - 1; i >= 0; i--)); do
		[ -n "${lines[$i]//[[:space:]]/}" ] && { echo "${lines[$i]%$'\r'}"; return; }
	done
	echo "(nothing)"
}

cmd_wait() {
	[ $# = 1 ] || die "usage: $prog wait LAB_DIR"
	open_lab "$1"
	local bound=${STLAB_VM_BOOT_WAIT:-300} t0 i n p up=0 msg
	[[ $bound =~ ^[0-9]+$ ]] || die "STLAB_VM_BOOT_WAIT must be seconds, got '$bound'"
	t0=$(now_ms)
	local -a isup=()
	while [ $up -lt ${#G_NAME[@]} ]; do
		for ((i = 0; i < ${#G_NAME[@]}; i++)); do
			[ -z "${isup[$i]:-}" ] || continue
			n=${G_NAME[$i]}
			if console_says "$VD/$n.console" "stlab-init: FAILED"; then
				die "guest $n failed to start: ${LINE#*FAILED: } (console $VD/$n.console)"
			fi
			alive "$VD/$n.pid" || die "guest $n: qemu exited during boot; console: $(last_line "$VD/$n.console")"
			console_says "$VD/$n.console" "stlab-init: ready" || continue
			# sshd runs: the master connection every later ssh to the guest rides on
			if closed_fds nsenter --net="/run/netns/$LAB_HEAD" ssh -F "$SD/config" "$n" \
				-M -N -f -o ControlPersist=no -o ConnectTimeout=5 > /dev/null 2> "$VD/$n.ssh"; then
				msg=$(ssh_to "$n" -O check 2>&1)
				p=${msg##*pid=}
				p=${p%%)*}
				[[ $p =~ ^[0-9]+$ ]] && record "$SD/$n.master" "$p" || die "guest $n: no ssh master PID ($msg)"
				isup[$i]=1
				up=$((up + 1))
				echo "guest $n up: ${LINE#*stlab-init: } (ssh after $(secs "$t0") s)"
			fi
		done
		[ $up -lt ${#G_NAME[@]} ] || break
		if [ $(($(now_ms) - t0)) -ge $((bound * 1000)) ]; then
			for ((i = 0; i < ${#G_NAME[@]}; i++)); do
				[ -z "${isup[$i]:-}" ] || continue
				n=${G_NAME[$i]}
				if console_says "$VD/$n.console" "stlab-init: ready"; then
					msg="its sshd does not answer: $(tail -n 1 "$VD/$n.ssh" 2>/dev/null)"
				else
					msg="console: $(last_line "$VD/$n.console")"
				fi
				die "guest $n did not come up within ${bound}s (STLAB_VM_BOOT_WAIT); $msg"
			done
		fi
		sleep 0.2
	done
}

# wait_gone SECONDS NAME...: until the guests' qemu processes are gone; set LEFT to the rest
wait_gone() {
	local t=$(($(now_ms) + $1 * 1000)) n
	shift
	while :; do
		LEFT=()
		for n; do alive "$VD/$n.pid" && LEFT+=("$n"); done
		[ ${#LEFT[@]} -gt 0 ] && [ "$(now_ms)" -lt $t ] || break
		sleep 0.1
	done
	[ ${#LEFT[@]} = 0 ]
}

cmd_stop() {
	[ $# = 1 ] || die "usage: $prog stop LAB_DIR"
	open_lab "$1"
	local n p st rc=0 i
	local -a live=() asked=() rest=() jobs=()
	for n in "${G_NAME[@]}"; do alive "$VD/$n.pid" && live+=("$n"); done
	# 1. the guest powers itself off, asked over its ssh master connection (all at once)
	for n in "${live[@]}"; do
		if [ -S "$SD/$n.ctl" ]; then
			timeout 10 nsenter --net="/run/netns/$LAB_HEAD" ssh -F "$SD/config" "$n" stlab-poweroff \
				> /dev/null 2>&1 < /dev/null &
			jobs+=($!) asked+=("$n")
		else
			rest+=("$n")
		fi
	done
	local -a ok=()
	for ((i = 0; i < ${#jobs[@]}; i++)); do
		if wait "${jobs[$i]}"; then ok+=("${asked[$i]}"); else rest+=("${asked[$i]}"); fi
	done
	wait_gone 20 "${ok[@]}"
	LEFT+=("${rest[@]}")
	[ ${#LEFT[@]} = 0 ] || {
		# 2. the QEMU monitor's quit (an O_RDWR open of the fifo never blocks)
		for n in "${LEFT[@]}"; do
			{ echo quit >&7; } 7<> "$VD/$n.mon.in" 2>/dev/null
		done
		wait_gone 5 "${LEFT[@]}"
	} || {
		# 3. SIGTERM, then SIGKILL, to the recorded PID (still the same process)
		for n in "${LEFT[@]}"; do
			read -r p st < "$VD/$n.pid" && say "guest $n: qemu pid $p still running, SIGTERM" && kill -TERM "$p"
		done
		wait_gone 5 "${LEFT[@]}"
	} || {
		for n in "${LEFT[@]}"; do
			read -r p st < "$VD/$n.pid" && say "guest $n: qemu pid $p still running, SIGKILL" && kill -KILL "$p"
		done
		wait_gone 5 "${LEFT[@]}"
	} || { say "qemu of ${LEFT[*]} could not be stopped"; rc=1; }
	# 4. the ssh master connections (their guests are gone)
	for n in "${G_NAME[@]}"; do
		alive "$SD/$n.master" || continue
		read -r p st < "$SD/$n.master" && kill -TERM "$p"
		for _ in 1 2 3 4 5 6 7 8 9 10; do alive "$SD/$n.master" || break; sleep 0.1; done
		alive "$SD/$n.master" && { say "ssh master pid $p of $n still running"; rc=1; }
	done
	[ $rc = 0 ] || return 1
	rm -rf "$VD" "$SD"
}

# disk-rate: the export disk of every server guest (its drive "data") throttled to BPS bytes/s
# both ways together, or unthrottled (none), while it runs: the QEMU monitor's
# block_set_io_throttle, then its info block read back from the monitor's output, which must
# show the rate (or no throttling)
cmd_disk_rate() {
	[ $# = 2 ] || die "usage: $prog disk-rate LAB_DIR BPS|none"
	open_lab "$1"
	local bps=$2 n i out line
	[ "$bps" = none ] && bps=0
	[[ $bps =~ ^[0-9]+$ ]] || die "disk-rate: BPS must be bytes/s or none, got '$2'"
	for ((i = 0; i < ${#G_NAME[@]}; i++)); do
		[ "${G_ROLE[$i]}" = server ] || continue
		n=${G_NAME[$i]}
		exec 7<> "$VD/$n.mon.out" 8<> "$VD/$n.mon.in" || die "guest $n: no monitor"
		while read -r -t 0.2 -u 7 line; do :; done # what it said before
		printf 'block_set_io_throttle data %s 0 0 0 0 0\ninfo block data\n' "$bps" >&8
		out=
		# its answer: info block's lines up to the next prompt (the throttle's line comes
		# after the cache mode's), or what came within 2 s
		while read -r -t 2 -u 7 line; do
			out+="$line"$'\n'
			case $out in *"Cache mode"*"(qemu)"*) break ;; esac
		done
		exec 7<&- 8>&-
		if [ "$bps" = 0 ]; then
			! grep -q "I/O throttling" <<<"$out"
		else
			grep -q "I/O throttling:.*bps=$bps\b" <<<"$out"
		fi || die "guest $n: its disk's throttle is not $2: $(tr -s '\r\n' ' ' <<<"$out" | tail -c 300)"
		if [ "$bps" = 0 ]; then say "guest $n: its disk not throttled"; else say "guest $n: its disk at $bps B/s"; fi
	done
}

[ $# -ge 1 ] || { sed -n '/^#   vm.sh image/,/^#   vm.sh disk-rate/s/^#   //p' "${BASH_SOURCE[0]}" >&2; exit 2; }
cmd=$1; shift
case $cmd in
	image) cmd_image "$@" ;;
	prune) cmd_prune "$@" ;;
	start) cmd_start "$@" ;;
	wait) cmd_wait "$@" ;;
	stop) cmd_stop "$@" ;;
	disk-rate) cmd_disk_rate "$@" ;;
	*) die "unknown command '$cmd' (image, prune, start, wait, stop)" ;;
esac
