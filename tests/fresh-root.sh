#!/bin/sh
# tests/fresh-root.sh - the README's promise checked on a machine that never ran it: a
# brand-new Debian 12 root (debootstrap --variant=minbase from this machine's apt source, with
# git, make and ca-certificates only, as a newcomer's machine), a clean clone of the commit
# checked out here, and the README's two commands in it, `make demo` then `make check`, in a
# chroot with the mounts a real machine has (/proc, /sys, /dev, /dev/pts; tmpfs on /run and
# /dev/shm). Prints each command's result and wall time, then one result line; exit 0 when
# both passed. As root; 25-50 min on 2 cores (the packages, the build, the cold guest image,
# the ladder). Run it before an issue that changes dependencies, the lab or the ladder is
# called resolved (issue 24), and quote its result line.
#
#   sh tests/fresh-root.sh
#
# Environment:
#   FRESH_ROOT_DIR   where the root is made (default: a new /var/tmp/stcluster-fresh-root.XXXXXX);
#                    if given, it must not exist, be empty, or be one this script made
#   FRESH_MIRROR     Debian mirror (default: this machine's apt source, as tests/lab/vm.sh)
#   FRESH_KEEP=1     keep the root afterwards (default: removed once nothing is mounted in it)
#   FRESH_COMMANDS   what runs in the clone, ';'-separated (default "make demo;make check")
#
# The mounts are made in a mount namespace of the script's own (unshare --mount), so none
# shows on the machine and none outlives the run; the script's trap unmounts them, and ends
# every process left running in the root (only the commands' own: their root is this one),
# however it ends. The machine's lab lock (STLAB_LOCK, tests/lab/names.sh) is bound into the
# root, so the root's lab tests take turns with the machine's. A real machine has an
# /etc/hosts (the installer writes it; debootstrap does not): the root gets localhost and its
# hostname there, and this machine's /etc/resolv.conf. One run at a time (a lock beside the
# directory). The logs stay in the root's parent: NAME.demo.log, NAME.check.log.
set -u
prog=fresh-root.sh
say() { echo "$prog: $*"; }
die() { echo "$prog: $*" >&2; exit 1; }

# kill_rooted DIR: end every process whose root is DIR (what the commands left running)
kill_rooted() {
	for p in /proc/[0-9]*; do
		[ "$(readlink "$p/root" 2>/dev/null)" = "$1" ] && kill -9 "${p#/proc/}" 2>/dev/null
	done
}

# --- inside: the private mount namespace (run by the outer part, below) ------------------
if [ "${1:-}" = --inside ]; then
	root=$2 logs=$3
	# the end, however it comes: every process left in the root (the commands' own), then
	# every mount, deepest first, lazily so a busy one still goes
	end_inside() {
		kill_rooted "$root"
		awk -v r="$root" '$2 == r || index($2, r "/") == 1 { print $2 }' /proc/self/mounts |
			sort -r | while read -r m; do umount -l "$m" 2>/dev/null; done
	}
	trap end_inside EXIT
	trap 'exit 130' INT TERM HUP
	# the root a mount point of its own, as / is on a real machine (unshare --propagation,
	# which ganesha.sh runs, fails "Invalid argument" in a root that is a mere directory)
	mount --bind "$root" "$root" && mount --make-private "$root" &&
		mount -t proc proc "$root/proc" &&
		mount --rbind /sys "$root/sys" && mount --make-rslave "$root/sys" &&
		mount --bind /dev "$root/dev" && mount --make-rslave "$root/dev" &&
		mount -t devpts -o newinstance,ptmxmode=0666,mode=620 devpts "$root/dev/pts" &&
		mount -t tmpfs -o mode=1777,nosuid,nodev shm "$root/dev/shm" &&
		mount -t tmpfs -o mode=0755,nosuid,nodev run "$root/run" || die "the root's mounts failed"
	mkdir -p "$root/run/lock" "$root/tmp"
	# the lock the root's ladder takes is its default STLAB_LOCK; this machine's is ours
	. "$(dirname "$0")/lab/names.sh"
	inner_lock=$(env -u STLAB_LOCK sh -c '. "$1"; echo "$STLAB_LOCK"' x "$(dirname "$0")/lab/names.sh")
	touch "$STLAB_LOCK" "$root$inner_lock" &&
		mount --bind "$STLAB_LOCK" "$root$inner_lock" || die "binding the lab lock failed"
	head=$(cat "$root/root/stcluster.commit")
	status=0 summary=""
	old_ifs=$IFS
	IFS=';'
	# shellcheck disable=SC2086
	set -- ${FRESH_COMMANDS:-make demo;make check}
	IFS=$old_ifs
	for cmd in "$@"; do
		name=$(echo "$cmd" | sed 's/^ *make //' | tr -c 'a-z0-9\n' - | cut -c1-24)
		log=$logs.$name.log
		t0=$(date +%s)
		# a newcomer's login shell: root's home, the default PATH, nothing of this one's
		# (in the background: a signal to this shell is handled at once, not once it ends)
		chroot "$root" /usr/bin/env -i HOME=/root TERM=dumb LANG=C.UTF-8 \
			PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
			sh -c "cd /root/stcluster && $cmd" </dev/null >"$log" 2>&1 &
		wait $!
		rc=$?
		took=$(($(date +%s) - t0))
		last=$(grep -E '^[0-9]+ passed, [0-9]+ failed' "$log" | tail -1)
		say "$cmd: exit $rc in $took s${last:+ ($last)}; log $log"
		[ $rc = 0 ] || { status=1; grep -A40 '^failed:$' "$log" | head -40 | sed 's/^/    /'; }
		summary="$summary${summary:+, }$cmd: exit $rc${last:+ ($last)} in $took s"
	done
	say "result at $head: $summary"
	exit $status
fi

# --- outside ----------------------------------------------------------------------------
[ "$(id -u)" = 0 ] || die "needs root (debootstrap, chroot, mounts)"
for b in debootstrap chroot unshare git flock; do
	command -v "$b" >/dev/null || die "$b not found (tests/deps.sh install; git, util-linux)"
done
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/.." && pwd)
head=$(git -C "$top" rev-parse HEAD) || die "$top is not a git checkout"
[ -z "$(git -C "$top" status --porcelain)" ] ||
	say "note: $top has uncommitted changes; the root gets the commit $head only"

mirror=${FRESH_MIRROR:-}
if [ -z "$mirror" ]; then
	mirror=$(sed -n 's/^URIs: *\(http[^ ]*\/debian\)\/\{0,1\}$/\1/p; s/^deb  *\(http[^ ]*\/debian\)\/\{0,1\}  *bookworm .*/\1/p' \
		/etc/apt/sources.list.d/*.sources /etc/apt/sources.list 2>/dev/null | head -1)
	mirror=${mirror:-http://deb.debian.org/debian}
fi

mark=.stcluster-fresh-root
if [ -n "${FRESH_ROOT_DIR:-}" ]; then
	root=$FRESH_ROOT_DIR
	case $root in /*) ;; *) echo "FRESH_ROOT_DIR: '$root' is not an absolute path" >&2; exit 2 ;; esac
	if [ -e "$root" ] && [ ! -f "$root/$mark" ] && [ -n "$(ls -A "$root" 2>/dev/null)" ]; then
		echo "FRESH_ROOT_DIR: '$root' exists and is not a root this script made" >&2
		exit 2
	fi
	mkdir -p "$root" || die "cannot make $root"
else
	root=$(mktemp -d /var/tmp/stcluster-fresh-root.XXXXXX) || die "mktemp under /var/tmp failed"
fi
root=$(cd "$root" && pwd)
# / is 0755 on a real machine; mktemp -d makes 0700, and then whatever drops root in the
# chroot (rpcbind as _rpc, runuser nobody) cannot reach /etc: t_unprivileged failed
# "runuser: failed to execute env: Permission denied", and rpcbind answered "Authentication
# error" ("can't get local ip4 address" in its debug output)
chmod 755 "$root" || die "chmod 755 $root failed"
exec 9>"$root.lock" || die "cannot write $root.lock"
flock -n 9 || die "another fresh-root.sh uses $root"

# cleanup: every process whose root is ours (the commands' daemons), then, once nothing is
# mounted under it, the root itself (unless FRESH_KEEP=1)
cleanup() {
	[ -z "${inside:-}" ] || kill -TERM "$inside" 2>/dev/null
	kill_rooted "$root"
	[ -z "${inside:-}" ] || wait "$inside" 2>/dev/null
	if awk -v r="$root" '$2 == r || index($2, r "/") == 1 { f = 1 } END { exit !f }' /proc/self/mounts; then
		say "something is still mounted under $root: left in place"
	elif [ "${FRESH_KEEP:-0}" = 1 ]; then
		say "the root is kept in $root"
	else
		rm -rf "$root"
	fi
	rm -f "$root.lock"
}
trap cleanup EXIT
trap 'exit 130' INT TERM HUP

t0=$(date +%s)
if [ ! -f "$root/$mark" ]; then
	say "debootstrap --variant=minbase bookworm from $mirror into $root (git, make, ca-certificates)"
	debootstrap --variant=minbase --include=git,make,ca-certificates bookworm "$root" "$mirror" \
		>"$root.debootstrap.log" 2>&1 || { tail -5 "$root.debootstrap.log"; die "debootstrap failed (log $root.debootstrap.log)"; }
	touch "$root/$mark"
fi
# what a real machine has beside its packages: a resolver to reach its mirror, and the
# /etc/hosts an installer writes
cp /etc/resolv.conf "$root/etc/resolv.conf" 2>/dev/null
[ -e "$root/etc/hosts" ] || printf '127.0.0.1\tlocalhost\n127.0.1.1\t%s\n::1\tlocalhost ip6-localhost ip6-loopback\n' \
	"$(hostname)" >"$root/etc/hosts"
rm -rf "$root/root/stcluster"
git clone -q --no-hardlinks "$top" "$root/root/stcluster" &&
	git -C "$root/root/stcluster" checkout -q --detach "$head" || die "cloning $top failed"
echo "$head" >"$root/root/stcluster.commit"
say "root ready in $(($(date +%s) - t0)) s; the clone at $head"

logs=$root
unshare --mount --propagation private sh "$here/fresh-root.sh" --inside "$root" "$logs" &
inside=$!
wait $inside
rc=$?
inside=
say "$([ $rc = 0 ] && echo passed || echo FAILED) in $(($(date +%s) - t0)) s in all"
exit $rc
