#!/bin/sh
# tests/demo.sh - `make demo`: a 4-rank sweep on this machine, then its
# report. The store is ./stcluster.db, so `./stcluster report`, `runs` and
# `query` work on it afterwards.
set -eu
cd "$(dirname "$0")/.."
. tests/mpienv.sh
target=$(mktemp -d /var/tmp/stcluster-demo.XXXXXX)
trap 'rmdir "$target" 2>/dev/null || rm -rf "$target"' EXIT INT TERM
echo "== stcluster demo: 4 ranks, posix engine, O_DIRECT files in $target"
echo "== mpirun -np 4 ./stcluster --target $target --block 4k,64k,1m --threads 1,2 --size 32m --phases write,read,randread"
mpirun -np 4 --bind-to none ./stcluster --target "$target" --block 4k,64k,1m --threads 1,2 \
	--size 32m --phases write,read,randread --label "make demo"
echo
echo "== the best read combinations: ./stcluster report --phase read --top 3"
./stcluster report --phase read --top 3
echo
echo "== every run stored so far: ./stcluster runs"
./stcluster runs
