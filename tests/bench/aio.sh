#!/bin/sh
# tests/bench/aio.sh - the posix engine's --iodepth queue against fio at the same depth (run on
# demand, as root: it mounts a tmpfs and a loop-mounted ext4 of its own; not in make check).
#
#   on a private tmpfs (buffered: --direct off, fio direct=0) and on ext4 in a loop-mounted file
#   (O_DIRECT: --direct on, fio direct=1; the loop device with direct-io on, so O_DIRECT reaches
#   the backing disk), at depth AIO_DEPTHS ("1 8 32"):
#     4 KiB random read and random write (every block once; write with fsync at the end)
#     1 MiB sequential write (fsync at the end) then read
#   and, with vmnfs in AIO_FS, on the kernel NFS client of a VM lab guest (tests/lab: a QEMU
#   guest mounting nfs-ganesha with vers=4.2; O_DIRECT, so every call crosses the wire), at
#   depth AIO_VM_DEPTHS ("1 8"), file AIO_VM_SIZE (16m): there the ratio is the point (a guest
#   under TCG emulation is slow), and the fio is AIO_GUEST_FIO, one that runs in the guest
#   (Debian's links some 60 libraries a lab guest lacks: build one outside the project, e.g.
#   ./configure --disable-rados --disable-rbd --disable-gfapi --disable-numa --disable-rdma
#   --disable-http --disable-pmem --disable-libnfs && make, which needs only libc, libm, zlib
#   and libaio)
#   stcluster: one rank, one thread, --iodepth D (io_uring into registered buffers; depth 1 =
#   pread/pwrite); fio: ioengine=io_uring with fixedbufs=1 (registered buffers, its best io_uring
#   option here) and ioengine=libaio, iodepth=D (at depth 1 also psync), one job.
#   With AIO_BASELINE, another stcluster binary (an older build: before/after) runs beside it.
#   IOR (-a POSIX, depth 1 only: it has no queue) when AIO_IOR points to an ior binary built
#   outside the project.
# Each pair (a depth and a workload: the 4 KiB random pair or the 1 MiB sequential pair) runs
# AIO_REPS times (>= 5 asked: tools interleaved, their order rotated every repeat), with the
# 1-minute load printed before and after it. Every figure is the median [min-max] of its
# repeats; st/best is stcluster / the best fio engine at that depth (psync too at depth 1):
# "within noise" when the two ranges overlap, else "ahead" or "behind"; the same for
# stcluster against AIO_BASELINE (after/before), and for stcluster's CPU per MB (the process's,
# per phase, as it stores it). The CPU like for like beside it: stcluster's I/O thread's own per
# phase (rank_result.io_cpu_*: RUSAGE_THREAD) against fio's job thread (its JSON's usr_cpu +
# sys_cpu of job_runtime, without io-wq) of the engine that works as stcluster does at that
# depth: psync at depth 1 (stcluster's pread/pwrite: the copy in the thread; fio's io_uring
# there hands a buffered call to io-wq), io_uring with fixedbufs above; both in us per MB,
# "less" where stcluster's range is below fio's. What the writes write, AIO_DATA: default,
# stcluster's --data random (each block filled anew: a block's bytes a function of its offset,
# no two alike) against fio's default (one buffer filled once, a few bytes of it changed per
# block); unique, the same against fio --refill_buffers=1 (every block filled anew by both);
# zero, stcluster --data zero against fio --zero_buffers=1 (neither fills). Figures made under
# load (load > CPUs / 2) say more about the scheduler than about the queue: rerun them on a
# quiet machine.
#
# Knobs: AIO_DEPTHS ("1 8 32"), AIO_REPS (5), AIO_SIZE (128m: the file), AIO_FS ("tmpfs ext4";
# also vmnfs), AIO_IOR (none), AIO_BACKING_DIR (/var/tmp: where the ext4 image lives),
# AIO_VM_DEPTHS, AIO_VM_SIZE, AIO_GUEST_FIO, AIO_KINDS ("4k 1m": the 4 KiB random pair, the
# 1 MiB sequential pair, or one of them), AIO_BASELINE (none), AIO_DATA (default; unique,
# zero), STCLUSTER.
# Everything it creates (mounts, the loop device, the image, work files) is removed on exit.

set -u
LC_ALL=C
export LC_ALL
cd "$(dirname "$0")/../.." || exit 1
ROOT=$(pwd)
ST_SRC=${STCLUSTER:-$ROOT/stcluster}
DEPTHS=${AIO_DEPTHS:-"1 8 32"}
REPS=${AIO_REPS:-5}
SIZE=${AIO_SIZE:-128m}
FSES=${AIO_FS:-"tmpfs ext4"}
IOR=${AIO_IOR:-}
BACKING=${AIO_BACKING_DIR:-/var/tmp}
VM_DEPTHS=${AIO_VM_DEPTHS:-"1 8"}
KINDS=${AIO_KINDS:-"4k 1m"}
# kind K: 0 when AIO_KINDS has K
kind() { case " $KINDS " in *" $1 "*) return 0 ;; esac; return 1; }
DATA=${AIO_DATA:-default}
# stcluster's --data and fio's buffer option for writes, by AIO_DATA
case $DATA in
default) ST_DATA=random FIO_FILL='' ;;
unique) ST_DATA=random FIO_FILL=--refill_buffers=1 ;;
zero) ST_DATA=zero FIO_FILL=--zero_buffers=1 ;;
*) echo "aio bench: AIO_DATA=$DATA: one of default, unique, zero" >&2; exit 2 ;;
esac
VM_SIZE=${AIO_VM_SIZE:-16m}
GUEST_FIO=${AIO_GUEST_FIO:-}
BASE_SRC=${AIO_BASELINE:-}
WORK='' MNT_T='' MNT_E='' LOOP='' IMG='' VM_UP='' VM_MNT=''
# where a tool runs: ON (empty: here; else the guest's prefix), SCR its scratch directory, FIO
ON='' SCR='' FIO=fio
T_START=$(date +%s)
# mpirun as the tests run it (as root here): without it IOR's column stayed empty
# shellcheck disable=SC1091
. "$ROOT/tests/mpienv.sh"

cleanup() {
	[ -n "$VM_MNT" ] && { vm_on "$VM_GUEST" umount "$VM_MNT" || echo "aio bench: could not unmount $VM_MNT in $VM_GUEST" >&2; }
	[ -n "$VM_UP" ] && { vm_lab_down || echo "aio bench: the VM lab did not come down" >&2; }
	for m in $MNT_T $MNT_E; do
		grep -qs " $m " /proc/mounts && { umount "$m" || echo "aio bench: could not unmount $m" >&2; }
	done
	[ -n "$LOOP" ] && losetup -d "$LOOP" 2>/dev/null
	[ -n "$IMG" ] && rm -f "$IMG"
	[ -n "$WORK" ] && rm -rf "$WORK"
}
trap cleanup EXIT
trap 'exit 130' INT TERM HUP
BENCH="aio bench"
. tests/bench/lib.sh

[ "$(id -u)" = 0 ] || die "needs root (tmpfs and loop mounts)"
[ -x "$ST_SRC" ] || die "$ST_SRC is missing: run make first"
[ -z "$BASE_SRC" ] || [ -x "$BASE_SRC" ] || die "AIO_BASELINE $BASE_SRC is not an executable"
command -v fio >/dev/null || die "fio not found (apt-get install fio)"
case " $FSES " in *" vmnfs "*)
	[ -n "$GUEST_FIO" ] && [ -x "$GUEST_FIO" ] ||
		die "vmnfs needs AIO_GUEST_FIO, a fio binary that runs in a lab guest (see the head of $0)"
	ldd "$GUEST_FIO" | awk '$3 ~ /^\// { print $3 }' | xargs -r dpkg -S 2>/dev/null | cut -d: -f1 | sort -u |
		grep -vxE 'libc6|zlib1g|libaio1|liburing2' | grep . &&
		die "$GUEST_FIO needs the packages above, which a lab guest does not have"
	;;
esac
WORK=$(mktemp -d "${TMPDIR:-/tmp}/stbench-aio.XXXXXX") || die "mktemp failed"
SCR=$WORK
: >"$WORK/results"
ST=$WORK/stcluster STENV='' SIZE0=$SIZE DEPTHS0=$DEPTHS IOR0=$IOR ST0=''
cp "$ST_SRC" "$ST" || die "cannot copy $ST_SRC"
if [ -n "$BASE_SRC" ]; then
	ST0=$WORK/stcluster-baseline
	cp "$BASE_SRC" "$ST0" || die "cannot copy $BASE_SRC"
fi
ST00=$ST0
BYTES=$(to_bytes "$SIZE")

# fio_num FILE read|write iops|bw_bytes: the job's figure from fio's JSON
fio_num() {
	awk -v d="\"$2\" : {" -v k="\"$3\"" 'index($0, d) { s = 1; next }
		s && $1 == k { gsub(/,/, "", $3); if ($3 + 0 > m) m = $3 + 0; s = 0 } END { print m + 0 }' "$1"
}

# run_st BIN DIR DIRECT DEPTH BLOCK PHASES MODEFILE -> "phase figure" lines (iops for 4k, MB/s
# for 1m); the threads' io_mode into MODEFILE, "phase CPU" lines into $WORK/cpu (the process's
# CPU, user + sys, in us per MB moved in the phase: getrusage RUSAGE_SELF, io-wq workers
# included; the same measure for AIO_BASELINE, so before and after compare like for like)
run_st() {
	db=$SCR/st.db
	$ON rm -f "$db"
	$ON $STENV "$1" --engine posix --target "$2" --direct "$3" --iodepth "$4" --block "$5" --size "$SIZE" \
		--phases "$6" --fsync on --bind none --data "$ST_DATA" --db "$db" --quiet >"$WORK/st.out" 2>&1 ||
		{ sed 's/^/    st: /' "$WORK/st.out" | tail -3 >&2; return 1; }
	col=iops
	[ "$5" = 1m ] && col=agg_mbps
	$ON "$1" query --db "$db" "SELECT phase, $col FROM result" --format csv | sed 1d | tr ',' ' '
	$ON "$1" query --db "$db" "SELECT DISTINCT io_mode FROM thread_result" --format csv | sed 1d >"$7"
	$ON "$1" query --db "$db" "SELECT phase, (cpu_user_us + cpu_sys_us) / (bytes / 1e6) FROM rank_result
		WHERE bytes > 0" --format csv | sed 1d | tr ',' ' ' >"$WORK/cpu"
	# the I/O thread's own (NULL from a binary before it was stored: no line)
	$ON "$1" query --db "$db" "SELECT phase, (io_cpu_user_us + io_cpu_sys_us) / (bytes / 1e6)
		FROM rank_result WHERE bytes > 0 AND io_cpu_user_us IS NOT NULL" --format csv 2>/dev/null |
		sed 1d | tr ',' ' ' >"$WORK/iocpu"
}

# fio_cpu FILE read|write: the job thread's CPU (usr_cpu + sys_cpu, % of job_runtime ms) in us
# per MB of the direction's io_bytes
fio_cpu() {
	awk -v d="\"$2\" : {" 'index($0, d) { s = 1; next }
		s && $1 == "\"io_bytes\"" { gsub(/,/, "", $3); b = $3 + 0; s = 0 }
		$1 == "\"job_runtime\"" { gsub(/,/, "", $3); rt = $3 + 0 }
		$1 == "\"usr_cpu\"" { gsub(/,/, "", $3); u = $3 + 0 }
		$1 == "\"sys_cpu\"" { gsub(/,/, "", $3); y = $3 + 0 }
		END { if (b > 0) print (u + y) / 100 * rt * 1000 / (b / 1e6); else print "nan" }' "$1"
}

# run_fio DIR DIRECT DEPTH ENGINE RW BS [OPTION] -> the figure (iops for 4k, MB/s for 1m)
run_fio() {
	f=$WORK/f.json
	rm -f "$WORK/fio.cpu"
	$ON sh -c "rm -f '$1'/fio.*"
	# writes: into a fresh file, allocated as it is written (stcluster's write phase
	# creates its file inside the timed phase; fio would otherwise fallocate it first)
	# random writes overwrite a file laid out before, as stcluster's randwrite does
	fsync=""
	case $5 in write) fsync="--end_fsync=1 --fallocate=none $FIO_FILL" ;; randwrite) fsync="--end_fsync=1 $FIO_FILL" ;; esac
	if [ "$5" != write ]; then # lay it out first, untimed
		$ON "$FIO" --name=lay --directory="$1" --filename=fio.0 --rw=write --bs=1m --size="$SIZE" \
			--ioengine=psync --direct="$2" >/dev/null 2>&1
	fi
	$ON "$FIO" --output-format=json --name=j --directory="$1" --filename=fio.0 --rw="$5" \
		--bs="$6" --size="$SIZE" --ioengine="$4" --iodepth="$3" --direct="$2" $fsync ${7:-} >"$f" 2>"$WORK/fio.err" ||
		{ head -3 "$WORK/fio.err" >&2; $ON sh -c "rm -f '$1'/fio.*"; return 1; }
	$ON sh -c "rm -f '$1'/fio.*"
	d=read
	case $5 in *write) d=write ;; esac
	fio_cpu "$f" $d >"$WORK/fio.cpu"
	if [ "$6" = 1m ]; then
		awk -v b="$(fio_num "$f" $d bw_bytes)" 'BEGIN { print b / 1e6 }'
	else
		fio_num "$f" $d iops
	fi
}

# ior DIR RW (1 MiB sequential, one process, O_DIRECT when DIRECT=1): MB/s
run_ior() {
	dflag=""
	[ "$2" = 1 ] && dflag="--posix.odirect"
	rw="-w -k"
	[ "$3" = read ] && rw="-r"
	mpirun -np 1 "$IOR" -a POSIX $dflag $rw -e -t 1m -b "$SIZE" -o "$1/ior.0" -i 1 >"$WORK/ior.out" 2>&1 ||
		{ tail -3 "$WORK/ior.out" >&2; return 1; }
	awk '$1 == "'"$( [ "$3" = read ] && echo read || echo write)"'" && $2 + 0 > 0 { print $2 * 1.048576; exit }' "$WORK/ior.out"
}

mount_fs() {
	ON='' SCR=$WORK FIO=fio ST=$WORK/stcluster STENV='' SIZE=$SIZE0 DEPTHS=$DEPTHS0 IOR=$IOR0 ST0=$ST00
	case $1 in
	tmpfs)
		MNT_T=$(mktemp -d "$WORK/tmpfs.XXXXXX")
		mount -t tmpfs -o size=$((BYTES * 2 / 1048576 + 64))m stbench-aio "$MNT_T" || die "mount tmpfs failed"
		DIR=$MNT_T DIRECT=off FDIRECT=0
		;;
	ext4)
		IMG=$(mktemp "$BACKING/stbench-aio.XXXXXX.img") || die "mktemp in $BACKING failed"
		truncate -s $((BYTES * 2 + 268435456)) "$IMG"
		mkfs.ext4 -q -F "$IMG" || die "mkfs.ext4 failed"
		LOOP=$(losetup -f --show --direct-io=on "$IMG") || die "losetup failed"
		MNT_E=$(mktemp -d "$WORK/ext4.XXXXXX")
		mount "$LOOP" "$MNT_E" || die "mount $LOOP failed"
		DIR=$MNT_E DIRECT=on FDIRECT=1
		;;
	vmnfs)
		# the project's VM lab (tests/lab/vmtest.sh), one guest; its stcluster is the
		# repository's, over the lab's share, and runs as a singleton
		TOP=$ROOT
		fail() { echo "$BENCH: $*" >&2; return 1; }
		# shellcheck disable=SC1091
		. "$ROOT/tests/lab/vmtest.sh"
		VM_UP=1
		vm_lab >"$WORK/vm.log" 2>&1 || { tail -20 "$WORK/vm.log" >&2; die "the VM lab did not come up"; }
		VM_GUEST=${VMLAB_GUESTS%% *}
		ON="vm_on $VM_GUEST" SCR=/root/stbench FIO=$SCR/fio ST=$ST_SRC
		STENV="env OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1"
		$ON mkdir -p "$SCR/nfs" || die "mkdir in $VM_GUEST failed"
		$ON sh -c "cat >'$FIO' && chmod 755 '$FIO'" <"$GUEST_FIO" || die "copying fio into $VM_GUEST failed"
		$ON mount -t nfs -o vers=4.2 "$VMLAB_SERVER:/export" "$SCR/nfs" || die "the NFS mount in $VM_GUEST failed"
		VM_MNT=$SCR/nfs
		DIR=$VM_MNT DIRECT=on FDIRECT=1 SIZE=$VM_SIZE DEPTHS=$VM_DEPTHS IOR='' ST0=''
		;;
	esac
}

# the 1-minute load average alone
load1() { cut -d' ' -f1 /proc/loadavg; }

# run_tool TOOL KIND: one repeat of TOOL (st, st0, uring, aio, psync, ior) on the pair KIND
# (4k: random read and write; 1m: sequential write and read) at depth $d on $fs
run_tool() {
	case $1 in
	st | st0)
		bin=$ST
		[ "$1" = st0 ] && bin=$ST0
		phs=write,read
		[ "$2" = 4k ] && phs=randread,randwrite
		if run_st "$bin" "$DIR" "$DIRECT" "$d" "$2" "$phs" "$WORK/mode" >"$WORK/o"; then
			while read -r ph v; do put "$fs.$d.$1.$ph" "$v"; done <"$WORK/o"
			while read -r ph v; do put "$fs.$d.$1.cpu.$ph" "$v"; done <"$WORK/cpu"
			while read -r ph v; do put "$fs.$d.$1.iocpu.$ph" "$v"; done <"$WORK/iocpu"
		fi
		put "$fs.$d.$1.mode.$2" "$(tr ' ' '~' <"$WORK/mode" | head -n 1)"
		;;
	uring | aio | psync)
		eng=$1 opt=''
		[ "$1" = uring ] && eng=io_uring opt=--fixedbufs=1
		[ "$1" = aio ] && eng=libaio
		ws="write read"
		[ "$2" = 4k ] && ws="randread randwrite"
		for w in $ws; do
			putv "$fs.$d.$1.$w" "$(run_fio "$DIR" "$FDIRECT" "$d" "$eng" "$w" "$2" $opt)"
			putv "$fs.$d.$1.cpu.$w" "$(cat "$WORK/fio.cpu" 2>/dev/null)"
		done
		;;
	ior)
		[ "$2" = 1m ] || return 0
		putv "$fs.$d.ior.write" "$(run_ior "$DIR" "$FDIRECT" write)"
		putv "$fs.$d.ior.read" "$(run_ior "$DIR" "$FDIRECT" read)"
		rm -f "$DIR"/ior.*
		;;
	esac
}

echo "stcluster posix queue vs fio  $(date -u +%Y-%m-%dT%H:%M:%SZ)  $("$ST" --version | head -n 1), $(fio --version)$([ -n "$IOR" ] && echo ", IOR $IOR")$([ -n "$ST0" ] && echo ", baseline $("$ST0" --version | head -n 1)")"
echo "$(uname -r), $(nproc) CPUs; file $SIZE, one thread; each pair $REPS times, tools interleaved; 4k: IOPS, 1m: MB/s (10^6); depths: $DEPTHS; writes: AIO_DATA=$DATA (stcluster --data $ST_DATA, fio ${FIO_FILL:-its default buffers})"
for fs in $FSES; do
	mount_fs "$fs"
	echo
	echo "== $fs ($DIR, direct=$FDIRECT, file $SIZE$([ -n "$ON" ] && echo ", in guest $VM_GUEST: $($ON "$FIO" --version), $($ON uname -r)")) ==  [$(load)]"
	for d in $DEPTHS; do
		for k in $KINDS; do
			put "$fs.$d.$k.load0" "$(load1)"
			echo "  depth $d, $k pair: before [$(load)]"
			r=0
			while [ "$r" -lt "$REPS" ]; do
				tools="st${ST0:+ st0} uring aio"
				[ "$d" = 1 ] && tools="$tools psync${IOR:+ ior}"
				for tool in $(rot "$tools" "$r"); do
					run_tool "$tool" "$k"
				done
				r=$((r + 1))
			done
			put "$fs.$d.$k.load1" "$(load1)"
			echo "  depth $d, $k pair: after  [$(load)]"
		done
	done
	echo
	printf '  %-5s %-13s %-24s %-24s %-24s %-24s %-7s %-13s' depth workload stcluster "fio io_uring fb" "fio libaio" "fio psync/IOR" st/best "vs best"
	[ -n "$ST0" ] && printf ' %-24s %-7s %-13s' "st before" aft/bef "vs before"
	printf ' %-18s' "st CPU us/MB"
	[ -n "$ST0" ] && printf ' %-18s %-13s' "before CPU" "CPU vs before"
	printf ' %-18s %-18s %-13s' "st I/O us/MB" "fio us/MB" "I/O vs fio"
	printf ' %-11s %s\n' "load" "st mode"
	for d in $DEPTHS; do
		for ph in randread randwrite write read; do
			k=1m
			case $ph in rand*) k=4k ;; esac
			kind "$k" || continue
			# the best fio engine at this depth: psync too at depth 1, where stcluster is
			# synchronous
			best='' bm=nan
			for e in uring aio psync; do
				[ "$e" = psync ] && [ "$d" != 1 ] && continue
				m=$(med "$fs.$d.$e.$ph")
				[ "$m" = nan ] && continue
				if [ "$bm" = nan ] || awk -v a="$m" -v b="$bm" 'BEGIN { exit !(a + 0 > b + 0) }'; then
					best=$e bm=$m
				fi
			done
			other="-"
			if [ "$d" = 1 ]; then
				other=$(cell "$fs.$d.psync.$ph")
				i=$(med "$fs.$d.ior.$ph")
				[ "$i" != nan ] && other="$other/$(fmt "$i")"
			fi
			printf '  %-5s %-13s %-24s %-24s %-24s %-24s %-7s %-13s' "$d" "$k $ph" "$(cell "$fs.$d.st.$ph")" \
				"$(cell "$fs.$d.uring.$ph")" "$(cell "$fs.$d.aio.$ph")" "$other" \
				"$(ratio "$(med "$fs.$d.st.$ph")" "$bm")" "$([ -n "$best" ] && standing "$fs.$d.st.$ph" "$fs.$d.$best.$ph" || echo -)"
			[ -n "$ST0" ] && printf ' %-24s %-7s %-13s' "$(cell "$fs.$d.st0.$ph")" \
				"$(ratio "$(med "$fs.$d.st.$ph")" "$(med "$fs.$d.st0.$ph")")" "$(standing "$fs.$d.st.$ph" "$fs.$d.st0.$ph")"
			printf ' %-18s' "$(cell "$fs.$d.st.cpu.$ph")"
			[ -n "$ST0" ] && printf ' %-18s %-13s' "$(cell "$fs.$d.st0.cpu.$ph")" \
				"$(standing "$fs.$d.st.cpu.$ph" "$fs.$d.st0.cpu.$ph" more less)"
			fe=uring
			[ "$d" = 1 ] && fe=psync
			printf ' %-18s %-18s %-13s' "$(cell "$fs.$d.st.iocpu.$ph")" "$(cell "$fs.$d.$fe.cpu.$ph")" \
				"$(standing "$fs.$d.st.iocpu.$ph" "$fs.$d.$fe.cpu.$ph" more less)"
			printf ' %-11s %s\n' "$(awk -v k0="$fs.$d.$k.load0" -v k1="$fs.$d.$k.load1" \
				'$1 == k0 { a = $2 } $1 == k1 { b = $2 } END { print a "->" b }' "$WORK/results")" \
				"$(awk -v k="$fs.$d.st.mode.$k" '$1 == k { print $2; exit }' "$WORK/results" | tr '~' ' ')"
		done
	done
done
echo
echo "aio bench done in $(($(date +%s) - T_START)) s  [$(load)]"
