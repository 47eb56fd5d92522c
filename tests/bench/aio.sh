#!/bin/sh
# tests/bench/aio.sh - the posix engine's --iodepth queue against fio at the same depth (run on
# demand, as root: it mounts a tmpfs and a loop-mounted ext4 of its own; not in make check).
#
#   on a private tmpfs (buffered: --direct off, fio direct=0) and on ext4 in a loop-mounted file
#   (O_DIRECT: --direct on, fio direct=1; the loop device with direct-io on, so O_DIRECT reaches
#   the backing disk), at depth AIO_DEPTHS ("1 8 32"):
#     4 KiB random read and random write (every block once; write with fsync at the end)
#     1 MiB sequential write (fsync at the end) then read
#   stcluster: one rank, one thread, --iodepth D (io_uring; depth 1 = pread/pwrite);
#   fio: ioengine=io_uring and ioengine=libaio, iodepth=D (at depth 1 also psync), one job.
#   IOR (-a POSIX, depth 1 only: it has no queue) when AIO_IOR points to an ior binary built
#   outside the project.
# Every figure is the median of AIO_REPS repeats (tools interleaved, their order rotated); the
# ratio is stcluster / the better fio engine at that depth; target >= 1.0. A MISS is information.
#
# Knobs: AIO_DEPTHS ("1 8 32"), AIO_REPS (3), AIO_SIZE (128m: the file), AIO_FS ("tmpfs ext4"),
# AIO_IOR (none), AIO_BACKING_DIR (/var/tmp: where the ext4 image lives), STCLUSTER.
# Everything it creates (mounts, the loop device, the image, work files) is removed on exit.

set -u
LC_ALL=C
export LC_ALL
cd "$(dirname "$0")/../.." || exit 1
ROOT=$(pwd)
ST_SRC=${STCLUSTER:-$ROOT/stcluster}
DEPTHS=${AIO_DEPTHS:-"1 8 32"}
REPS=${AIO_REPS:-3}
SIZE=${AIO_SIZE:-128m}
FSES=${AIO_FS:-"tmpfs ext4"}
IOR=${AIO_IOR:-}
BACKING=${AIO_BACKING_DIR:-/var/tmp}
WORK='' MNT_T='' MNT_E='' LOOP='' IMG=''
T_START=$(date +%s)
# mpirun as the tests run it (as root here): without it IOR's column stayed empty
# shellcheck disable=SC1091
. "$ROOT/tests/mpienv.sh"

cleanup() {
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
command -v fio >/dev/null || die "fio not found (apt-get install fio)"
WORK=$(mktemp -d "${TMPDIR:-/tmp}/stbench-aio.XXXXXX") || die "mktemp failed"
: >"$WORK/results"
ST=$WORK/stcluster
cp "$ST_SRC" "$ST" || die "cannot copy $ST_SRC"
BYTES=$(to_bytes "$SIZE")

# fio_num FILE read|write iops|bw_bytes: the job's figure from fio's JSON
fio_num() {
	awk -v d="\"$2\" : {" -v k="\"$3\"" 'index($0, d) { s = 1; next }
		s && $1 == k { gsub(/,/, "", $3); if ($3 + 0 > m) m = $3 + 0; s = 0 } END { print m + 0 }' "$1"
}

# run_st DIR DIRECT DEPTH BLOCK PHASES -> "phase figure" lines (iops for 4k, MB/s for 1m)
run_st() {
	db=$WORK/st.db
	rm -f "$db"
	"$ST" --engine posix --target "$1" --direct "$2" --iodepth "$3" --block "$4" --size "$SIZE" \
		--phases "$5" --fsync on --bind none --db "$db" --quiet >"$WORK/st.out" 2>&1 ||
		{ sed 's/^/    st: /' "$WORK/st.out" | tail -3 >&2; return 1; }
	col=iops
	[ "$4" = 1m ] && col=agg_mbps
	"$ST" query --db "$db" "SELECT phase, $col FROM result" --format csv | sed 1d | tr ',' ' '
	"$ST" query --db "$db" "SELECT DISTINCT io_mode FROM thread_result" --format csv | sed 1d >"$WORK/mode"
}

# run_fio DIR DIRECT DEPTH ENGINE RW BS -> the figure (iops for 4k, MB/s for 1m)
run_fio() {
	f=$WORK/f.json
	rm -f "$1"/fio.*
	# writes: into a fresh file, allocated as it is written (stcluster's write phase
	# creates its file inside the timed phase; fio would otherwise fallocate it first)
	# random writes overwrite a file laid out before, as stcluster's randwrite does
	fsync=""
	case $5 in write) fsync="--end_fsync=1 --fallocate=none" ;; randwrite) fsync=--end_fsync=1 ;; esac
	if [ "$5" != write ]; then # lay it out first, untimed
		fio --name=lay --directory="$1" --filename=fio.0 --rw=write --bs=1m --size="$SIZE" \
			--ioengine=psync --direct="$2" >/dev/null 2>&1
	fi
	fio --output-format=json --output="$f" --name=j --directory="$1" --filename=fio.0 --rw="$5" \
		--bs="$6" --size="$SIZE" --ioengine="$4" --iodepth="$3" --direct="$2" $fsync >"$WORK/fio.err" 2>&1 ||
		{ head -3 "$WORK/fio.err" >&2; rm -f "$1"/fio.*; return 1; }
	rm -f "$1"/fio.*
	d=read
	case $5 in *write) d=write ;; esac
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
	esac
}

echo "stcluster posix queue vs fio  $(date -u +%Y-%m-%dT%H:%M:%SZ)  $("$ST" --version | head -n 1), $(fio --version)$([ -n "$IOR" ] && echo ", IOR $IOR")"
echo "file $SIZE, one thread, medians of $REPS (tools interleaved); 4k: IOPS, 1m: MB/s (10^6); depths: $DEPTHS"
for fs in $FSES; do
	mount_fs "$fs"
	echo
	echo "== $fs ($DIR, direct=$FDIRECT) ==  [$(load)]"
	for d in $DEPTHS; do
		r=0
		while [ "$r" -lt "$REPS" ]; do
			tools="st uring aio"
			[ "$d" = 1 ] && tools="st uring aio psync${IOR:+ ior}"
			for tool in $(rot "$tools" "$r"); do
				case $tool in
				st)
					run_st "$DIR" "$DIRECT" "$d" 4k randread,randwrite >"$WORK/o" &&
						while read -r ph v; do put "$fs.$d.st.$ph" "$v"; done <"$WORK/o"
					put "$fs.$d.mode" "$(tr ' ' '_' <"$WORK/mode" | head -n 1)"
					run_st "$DIR" "$DIRECT" "$d" 1m write,read >"$WORK/o" &&
						while read -r ph v; do put "$fs.$d.st.$ph" "$v"; done <"$WORK/o"
					;;
				uring | aio | psync)
					eng=$tool
					[ $tool = uring ] && eng=io_uring
					[ $tool = aio ] && eng=libaio
					for w in "randread 4k" "randwrite 4k" "write 1m" "read 1m"; do
						# shellcheck disable=SC2086
						set -- $w
						putv "$fs.$d.$tool.$1" "$(run_fio "$DIR" "$FDIRECT" "$d" "$eng" "$1" "$2")"
					done
					;;
				ior)
					putv "$fs.$d.ior.write" "$(run_ior "$DIR" "$FDIRECT" write)"
					putv "$fs.$d.ior.read" "$(run_ior "$DIR" "$FDIRECT" read)"
					rm -f "$DIR"/ior.*
					;;
				esac
			done
			r=$((r + 1))
		done
	done
	printf '\n  %-5s %-9s %-16s %-16s %-16s %-16s %-10s %-7s %-6s %s\n' depth workload stcluster "fio io_uring" "fio libaio" "fio psync/IOR" "st/best" target "" "st mode"
	for d in $DEPTHS; do
		for ph in randread randwrite write read; do
			s=$(med "$fs.$d.st.$ph") u=$(med "$fs.$d.uring.$ph") a=$(med "$fs.$d.aio.$ph")
			best=$(awk -v u="$u" -v a="$a" 'BEGIN { if (u == "nan") print a; else if (a == "nan" || u + 0 > a + 0) print u; else print a }')
			rb=$(ratio "$s" "$best")
			other="-"
			if [ "$d" = 1 ]; then
				p=$(med "$fs.$d.psync.$ph") i=$(med "$fs.$d.ior.$ph")
				other="$(fmt "$p")$([ "$i" != nan ] && echo "/$(fmt "$i")")"
			fi
			label=$ph
			case $ph in rand*) label="4k $ph" ;; *) label="1m $ph" ;; esac
			printf '  %-5s %-14s %-16s %-16s %-16s %-16s %-10s %-7s %s\n' "$d" "$label" \
				"$(fmt "$s") [$(range "$fs.$d.st.$ph")]" "$(fmt "$u") [$(range "$fs.$d.uring.$ph")]" \
				"$(fmt "$a") [$(range "$fs.$d.aio.$ph")]" "$other" "$rb" "$(verdict "$rb" 1.0)" \
				"$(awk -v k="$fs.$d.mode" '$1 == k { print $2; exit }' "$WORK/results" | tr '_' ' ')"
		done
	done
done
echo
echo "aio bench done in $(($(date +%s) - T_START)) s  [$(load)]"
