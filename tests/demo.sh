#!/bin/sh
# tests/demo.sh - `make demo`: the embedded default a newcomer sees first.
# A private nfs-ganesha on loopback exports a scratch directory; four ranks
# sweep rsize/wsize x sync x transfer size over real NFS (the libnfs engine: no
# mount, no kernel NFS needed), then the report. The store is
# ./stcluster.db, so `./stcluster report`, `runs` and `query` work on it.
set -eu
cd "$(dirname "$0")/.."
. tests/mpienv.sh
state=$(mktemp -d /var/tmp/stcluster-demo-state.XXXXXX)
export_dir=$(mktemp -d /var/tmp/stcluster-demo-export.XXXXXX)
cleanup() {
	tests/lab/ganesha.sh stop "$state" >/dev/null 2>&1 || true
	rm -rf "$state"
	rmdir "$export_dir" 2>/dev/null || rm -rf "$export_dir"
}
trap cleanup EXIT INT TERM
export GANESHA_NFS_PORT=${GANESHA_NFS_PORT:-12049} GANESHA_MNT_PORT=${GANESHA_MNT_PORT:-12048}
tests/lab/ganesha.sh start "$state" "$export_dir" 127.0.0.1
url=$(tests/lab/ganesha.sh url "$state" 3)
echo "== nfs-ganesha serves $export_dir as $url"
# time-based phases (--runtime/--ramp): each phase lasts 2 s of figures
# after a 0.5 s ramp, so its barrier skew and clock offsets (milliseconds)
# stay well under 1 % of it (a 16m file at 200 MB/s lasted 0.08 s, and the
# report flagged its own figures); rsize and wsize as one dimension (a write
# uses only wsize, a read only rsize): 8 combinations, about a minute.
demo_opts="--rwsize 64k,1m --sync sync,async --block 64k,1m --size 16m --runtime 2 --ramp 0.5 --phases write,read"
echo "== mpirun -np 4 ./stcluster --engine libnfs --target '$url' \\"
echo "==     $demo_opts"
# shellcheck disable=SC2086 # the options are words
mpirun -np 4 --bind-to none ./stcluster --engine libnfs --target "$url" $demo_opts --label "make demo"
echo
echo "== every combination and phase: ./stcluster report"
./stcluster report
echo
echo "== the best write settings: ./stcluster report --phase write --top 3"
./stcluster report --phase write --top 3
echo
echo "== every run stored so far: ./stcluster runs"
./stcluster runs
