#!/bin/sh
# tests/deps.sh check|install - the Debian packages stcluster builds, tests
# and demonstrates with. `install` installs what is missing when run as
# root; otherwise it prints the exact apt-get line and fails.
# (libssl-dev: libcrypto's SHA-256 for the hashes `stcluster audit` checks;
# chromium renders the HTML report in tests/mpi/t_analysis.sh; man-db
# renders stcluster(1) there; valgrind runs tests/mpi/t_valgrind.sh; zlib1g-dev:
# the real compressor tests/unit/test_workloads.c checks --data compress:PCT with; clang
# and libclang-rt-14-dev, libFuzzer's run-time, build tests/fuzz/; iproute2
# (ip, tc) makes the lab's namespaces and links (tests/lab/lab.sh); iperf3 is
# what the network baseline is measured against in tests/mpi/t_lab.sh;
# qemu-system-x86, debootstrap, e2fsprogs, xz-utils and openssh-client boot
# and reach its QEMU guests, tests/lab/vm.sh: the guests' kernel and root are
# downloaded into a cache, not installed; liburing-dev and libaio-dev: the
# posix engine's --iodepth queue (io_uring, else libaio: their headers, and
# the libraries it loads at run time); python3-seccomp: tests/mpi/t_queue.sh
# makes the kernel refuse io_uring (and libaio) to one job with a seccomp
# filter; binutils: its readelf checks the binary links neither; netbase:
# /etc/services, without which rpcbind finds no port for "sunrpc" and binds
# none, so the lab's server host answers no rpcinfo and no NFSv3 mount:
# a minimal Debian root has no netbase; strace counts the pages a report
# reads in tests/mpi/t_reports.sh;
# python3-jsonschema validates every --format json against sql/schema.json in
# tests/mpi/t_json.sh; tmux is the terminal the report is shown in by
# tests/mpi/t_reports.sh; zstd: the compressor tests/mpi/t_workloads.sh
# holds --data random's file to; procps: pgrep, with which tests/lib.sh finds
# a job's processes (a minimal Debian root has none).)
set -u
PACKAGES="gcc make pkg-config libopenmpi-dev openmpi-bin libhwloc-dev uuid-dev
libsqlite3-dev sqlite3 libssl-dev zlib1g-dev python3 util-linux iproute2
libnfs-dev libnfs-utils nfs-ganesha nfs-ganesha-vfs rpcbind netbase valgrind
chromium man-db clang libclang-rt-14-dev iperf3
qemu-system-x86 debootstrap e2fsprogs xz-utils openssh-client
liburing-dev libaio-dev python3-seccomp binutils strace python3-jsonschema tmux zstd procps"

missing=""
for p in $PACKAGES; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing="$missing $p"
done
[ -z "$missing" ] && exit 0

line="apt-get install -y --no-install-recommends$missing"
if [ "${1:-check}" != install ]; then
	echo "stcluster: missing Debian packages:$missing" >&2
	echo "  as root: apt-get update && $line" >&2
	exit 1
fi
if [ "$(id -u)" != 0 ]; then
	echo "stcluster: missing Debian packages:$missing" >&2
	echo "  run as root: apt-get update && $line" >&2
	exit 1
fi
echo "installing:$missing"
export DEBIAN_FRONTEND=noninteractive
apt-get update -q >/dev/null && $line >/dev/null || {
	echo "stcluster: '$line' failed" >&2
	exit 1
}
