#!/bin/sh
# tests/bench/ior-build.sh SRC PREFIX - build IOR and mdtest (github:hpc/ior,
# a clone in SRC) with their libnfs backend into PREFIX/bin, for
# tests/bench/workloads.sh (IOR_BIN=PREFIX/bin). Outside the project: the
# source is IOR's, nothing of it is kept here.
#
# IOR's LIBNFS backend calls nfs_read and nfs_write as libnfs 5 and later
# declare them (buffer, then count); Debian 12's libnfs 4.0 takes the count
# first, and those calls crash. This script swaps the two arguments in its
# copy before building (facts: /usr/include/nfsc/libnfs.h).
set -eu
src=${1:?usage: ior-build.sh SRC PREFIX}
prefix=${2:?usage: ior-build.sh SRC PREFIX}
cd "$src"
if grep -q '^EXTERN int nfs_write(struct nfs_context \*nfs, struct nfsfh \*nfsfh,$' /usr/include/nfsc/libnfs.h &&
	grep -A1 '^EXTERN int nfs_write(' /usr/include/nfsc/libnfs.h | grep -q 'uint64_t count, const void \*buf'; then
	sed -i 's|nfs_write(nfs_context, file, (void \*)buffer, (uint64_t)size)|nfs_write(nfs_context, file, (uint64_t)size, (void *)buffer)|;
		s|nfs_read(nfs_context, file, (void\*)buffer, (size_t)size)|nfs_read(nfs_context, file, (uint64_t)size, (void *)buffer)|' \
		src/aiori-LIBNFS.c
fi
./bootstrap
./configure --with-libnfs --prefix="$prefix"
make -j"$(nproc)"
make install
echo "built: $prefix/bin/ior $prefix/bin/mdtest (IOR_BIN=$prefix/bin)"
