#!/bin/sh
# tests/bench/run.sh - stcluster's benchmark suite (run on demand: make bench).
#
#   1. the same workload through stcluster (posix engine), fio (psync) and dd:
#      a. 1 MiB sequential O_DIRECT write + read on a local disk file system
#      b. 4 KiB random read + random write on a private tmpfs
#      each measurement repeated BENCH_REPS times (tools interleaved, order
#      rotated every repeat, the load kept before and after each repeat),
#      medians and ranges reported, with the ratios and where stcluster stands
#      (ahead, behind, within noise: lib.sh's standing)
#   2. phase turnaround of the coordinator (null engine, 4 and 16 ranks)
#   3. peak RSS per rank of a posix run (GNU time around every rank)
#
# Everything it creates (work directories, the tmpfs mount, background dd
# processes) is removed on exit. A figure behind fio is information: the exit
# status is 0 unless the suite itself could not run. See tests/bench/README.md.
#
# Knobs (environment): BENCH_REPS (5), BENCH_DISK_DIR (first suitable of
# /var/tmp /work $HOME), BENCH_DISK_SIZE (512m per thread), BENCH_TMPFS_SIZE
# (256m per thread), BENCH_NP ("4 16"), BENCH_ITER (10), STCLUSTER (./stcluster).

set -u
LC_ALL=C
export LC_ALL
cd "$(dirname "$0")/../.." || exit 1
ROOT=$(pwd)

ST_SRC=${STCLUSTER:-$ROOT/stcluster}
REPS=${BENCH_REPS:-5}
DISK_SIZE=${BENCH_DISK_SIZE:-512m}
TMPFS_SIZE=${BENCH_TMPFS_SIZE:-256m}
NP_LIST=${BENCH_NP:-"4 16"}
ITER=${BENCH_ITER:-10}

WORK='' DISKW='' MNT='' BGPIDS=''
T_START=$(date +%s)

cleanup() {
	for p in $BGPIDS; do kill "$p" 2>/dev/null; done
	if [ -n "$MNT" ]; then
		if grep -qs " $MNT tmpfs " /proc/mounts; then
			umount "$MNT" || echo "bench: could not unmount $MNT" >&2
		fi
		rmdir "$MNT" 2>/dev/null
	fi
	[ -n "$DISKW" ] && rm -rf "$DISKW"
	[ -n "$WORK" ] && rm -rf "$WORK"
}
trap cleanup EXIT
trap 'exit 130' INT TERM HUP
BENCH="bench"
. tests/bench/lib.sh

note() { echo "  note: $*"; }

# ---------------------------------------------------------------- helpers

# stcluster under mpirun; quiet; the run's errors go to $WORK/st.err
st_run() {
	np=$1
	shift
	mpirun -np "$np" "$ST" "$@" --quiet >"$WORK/st.out" 2>"$WORK/st.err"
}

# a number out of fio's JSON (group reports): fio_get FILE read|write bw_bytes|iops
# (the largest over the groups: a write group reports 0 for read and so on)
fio_get() {
	awk -v d="\"$2\" : {" -v k="\"$3\"" 'index($0, d) { s = 1; next }
		s && $1 == k { gsub(/,/, "", $3); if ($3 + 0 > m) m = $3 + 0; s = 0 }
		END { print m + 0 }' "$1"
}

# fio, one job per thread: fio_run OUT.json DIR THREADS RW BS SIZE DIRECT [job options
# of the first job, and further --name=... jobs]
fio_run() {
	out=$1 dir=$2 nj=$3 rw=$4 bs=$5 size=$6 direct=$7
	shift 7
	# shellcheck disable=SC2016  # $jobnum is fio's, not the shell's
	# options before the first --name are global (every job of "$@" gets them)
	fio --output-format=json --output="$out" --directory="$dir" --filename_format='fio.$jobnum' \
		--numjobs="$nj" --group_reporting --bs="$bs" --size="$size" --ioengine=psync \
		--direct="$direct" --name=bench --rw="$rw" "$@" >"$WORK/fio.err" 2>&1
}

# dd in N parallel streams; sets DD_MBPS to the aggregate MB/s (sum of bytes
# over the longest elapsed time dd reports; "nan" on failure). Runs in this
# shell (not in $(...)) so that cleanup knows the pids.
# dd_par N IF-PATTERN OF-PATTERN dd-args...   (%i in a pattern: stream number)
dd_par() {
	n=$1 ifp=$2 ofp=$3
	shift 3
	BGPIDS=
	i=0
	while [ "$i" -lt "$n" ]; do
		inf=$(echo "$ifp" | sed "s/%i/$i/") outf=$(echo "$ofp" | sed "s/%i/$i/")
		dd if="$inf" of="$outf" "$@" 2>"$WORK/dd.$i" &
		BGPIDS="$BGPIDS $!"
		i=$((i + 1))
	done
	ok=1
	for p in $BGPIDS; do wait "$p" || ok=0; done
	BGPIDS=
	if [ "$ok" = 0 ]; then
		cat "$WORK"/dd.* >&2
		DD_MBPS=nan
	else
		DD_MBPS=$(cat "$WORK"/dd.* | awk '/copied/ { for (i = 1; i <= NF; i++) if ($i == "s,") t = $(i - 1);
			b += $1; if (t > m) m = t } END { if (m > 0) printf "%.3f\n", b / m / 1e6; else print "nan" }')
	fi
	rm -f "$WORK"/dd.*
}

# ---------------------------------------------------------------- checks

[ -x "$ST_SRC" ] || die "$ST_SRC is missing: run make first"
command -v mpirun >/dev/null || die "mpirun not found"
# shellcheck disable=SC1091
. "$ROOT/tests/mpienv.sh"
HAVE_FIO=1
command -v fio >/dev/null || { HAVE_FIO=0; echo "bench: fio not found: fio columns are empty" >&2; }
IS_ROOT=0
[ "$(id -u)" = 0 ] && IS_ROOT=1

WORK=$(mktemp -d "${TMPDIR:-/tmp}/stbench.XXXXXX") || die "mktemp failed"
: > "$WORK/results"
# a private copy, so that a rebuild of the tree during the run changes nothing
ST=$WORK/stcluster
cp "$ST_SRC" "$ST" || die "cannot copy $ST_SRC"

DISK_BYTES=$(to_bytes "$DISK_SIZE")
TMPFS_BYTES=$(to_bytes "$TMPFS_SIZE")

# which CPUs took the disk's completion interrupts so far (virtio, nvme, ...)
irq_cpus() {
	blk=$(basename "$DISK_DEV")
	sys=/sys/class/block/$blk
	[ -e "$sys/partition" ] && sys=$(dirname "$(readlink -f "$sys")")
	drv=$(basename "$(readlink -f "$sys/device" 2>/dev/null)")
	[ -n "$drv" ] || return 0
	case $drv in nvme*) pat=$drv"q" ;; *) pat=$drv"-" ;; esac
	awk -v p="$pat" -v ncpu="$(nproc)" 'NR > 1 && index($NF, p) == 1 {
			for (i = 2; i <= ncpu + 1; i++) c[i - 2] += $i; f = 1 }
		END { if (!f) exit; s = ""; for (i = 0; i < ncpu; i++) if (c[i]) s = s (s ? "," : "") i
			print "  " p "* completion interrupts so far on CPU " s " (stcluster --bind core puts rank 0 thread 0 on core 0)" }' /proc/interrupts
}

# a local disk file system that grants O_DIRECT and has room for 2 threads
pick_disk_dir() {
	need_kb=$((DISK_BYTES / 1024 * 2 + 262144))
	for d in ${BENCH_DISK_DIR:-} /var/tmp /work "${HOME:-/root}"; do
		[ -d "$d" ] && [ -w "$d" ] || continue
		fs=$(stat -f -c %T "$d" 2>/dev/null)
		case $fs in
		tmpfs | ramfs | overlayfs | nfs* | fuse* | 9p | v9fs | cifs | smb* | ceph | UNKNOWN*) continue ;;
		esac
		avail=$(df -Pk "$d" | awk 'NR == 2 { print $4 }')
		[ "${avail:-0}" -ge "$need_kb" ] || continue
		probe=$(mktemp -d "$d/stbench.XXXXXX") || continue
		if dd if=/dev/zero of="$probe/probe" bs=4096 count=1 oflag=direct 2>/dev/null; then
			DISKW=$probe
			DISK_FS=$fs
			DISK_DEV=$(df -P "$d" | awk 'NR == 2 { print $1 }')
			rm -f "$probe/probe"
			return 0
		fi
		rm -rf "$probe"
	done
	return 1
}

echo "stcluster bench  $(date -u +%Y-%m-%dT%H:%M:%SZ)  $("$ST" --version 2>/dev/null | head -n 1)"
echo "host: $(uname -n), $(nproc) CPUs ($(awk -F': ' '/model name/ { print $2; exit }' /proc/cpuinfo)), kernel $(uname -r), $(awk '/MemTotal/ { printf "%.0f GiB", $2 / 1048576 }' /proc/meminfo)"
echo "tools: $(fio --version 2>/dev/null || echo 'no fio'), $(dd --version | head -n 1), $(mpirun --version 2>/dev/null | head -n 1)"
echo "medians of $REPS repeats (range in brackets); tools interleaved, their order rotated every repeat"
echo "MB/s = 10^6 bytes/s; stcluster = agg_mbps / iops of the result view (open..close timed)"

# ---------------------------------------------------------------- 1a. disk

echo
echo "== 1a. 1 MiB sequential O_DIRECT, local disk ==  [$(load)]"
if ! pick_disk_dir; then
	echo "  skipped: no local disk directory with O_DIRECT and $((DISK_BYTES * 2 / 1048576)) MiB free (set BENCH_DISK_DIR)"
else
	echo "  dir $DISKW ($DISK_FS on $DISK_DEV), $DISK_SIZE per thread, write with fsync before close"
	echo "  stcluster --block 1m --direct on --fsync on --phases write,read, with --bind core and --bind none (stcluster's default is --bind numa)"
	echo "  fio rw=write refill_buffers=1 (every block unique, as stcluster's --data random) then (stonewall) rw=read,"
	echo "  bs=1m psync direct=1 end_fsync=1, not pinned | dd bs=1M oflag=direct conv=fsync (zeros), then iflag=direct"
	irq_cpus
	nblk=$((DISK_BYTES / 1048576))
	for t in 1 2; do
		r=0
		while [ "$r" -lt "$REPS" ]; do
			keep_load "d$t"
			for tool in $(rot "st fio dd stn" "$r"); do
				case $tool in
				stn)
					db=$WORK/disk-none-$t-$r.db
					if st_run 1 --target "$DISKW" --engine posix --block 1m --threads "$t" \
						--size "$DISK_SIZE" --db "$db" --phases write,read --direct on \
						--fsync on --reorder on --bind none; then
						putv "d$t.stn.write" "$(stq "$db" "SELECT agg_mbps FROM result WHERE phase = 'write'")"
						putv "d$t.stn.read" "$(stq "$db" "SELECT agg_mbps FROM result WHERE phase = 'read'")"
						put "d$t.st.fallback" "$(stq "$db" "SELECT MAX(direct_fallback) FROM result")"
					else
						echo "  stcluster failed:" >&2
						cat "$WORK/st.err" >&2
					fi
					;;
				st)
					db=$WORK/disk-$t-$r.db
					if st_run 1 --target "$DISKW" --engine posix --block 1m --threads "$t" \
						--size "$DISK_SIZE" --db "$db" --phases write,read --direct on \
						--fsync on --reorder on --bind core; then
						putv "d$t.st.write" "$(stq "$db" "SELECT agg_mbps FROM result WHERE phase = 'write'")"
						putv "d$t.st.read" "$(stq "$db" "SELECT agg_mbps FROM result WHERE phase = 'read'")"
						put "d$t.st.fallback" "$(stq "$db" "SELECT MAX(direct_fallback) FROM result")"
						put "d$t.st.wlat" "$(stq "$db" "SELECT lat_p50_ns FROM result WHERE phase = 'write'")"
						put "d$t.st.rlat" "$(stq "$db" "SELECT lat_p50_ns FROM result WHERE phase = 'read'")"
					else
						echo "  stcluster failed:" >&2
						cat "$WORK/st.err" >&2
					fi
					;;
				fio)
					[ "$HAVE_FIO" = 1 ] || continue
					# one fio, two groups: the write, then (stonewall) the read
					# of the same files, back to back like stcluster's phases
					rm -f "$DISKW"/fio.*
					if fio_run "$WORK/f.json" "$DISKW" "$t" write 1m "$DISK_SIZE" 1 --end_fsync=1 \
						--refill_buffers=1 --name=bench --stonewall --rw=read --end_fsync=0; then
						putv "d$t.fio.write" "$(awk -v b="$(fio_get "$WORK/f.json" write bw_bytes)" 'BEGIN { print b / 1e6 }')"
						putv "d$t.fio.read" "$(awk -v b="$(fio_get "$WORK/f.json" read bw_bytes)" 'BEGIN { print b / 1e6 }')"
					else
						echo "  fio failed:" >&2
						cat "$WORK/fio.err" "$WORK/f.json" >&2
					fi
					rm -f "$DISKW"/fio.*
					;;
				dd)
					dd_par "$t" /dev/zero "$DISKW/dd.%i" bs=1M count="$nblk" oflag=direct conv=fsync
					putv "d$t.dd.write" "$DD_MBPS"
					dd_par "$t" "$DISKW/dd.%i" /dev/null bs=1M iflag=direct
					putv "d$t.dd.read" "$DD_MBPS"
					rm -f "$DISKW"/dd.*
					;;
				esac
			done
			keep_load "d$t"
			r=$((r + 1))
		done
	done

	# the device's own limit: queue depth 16 (libaio) on the same file system;
	# the raw device where this container may read it
	lim_w=nan lim_r=nan raw=nan
	if [ "$HAVE_FIO" = 1 ]; then
		rm -f "$DISKW"/fio.*
		fio_run "$WORK/f.json" "$DISKW" 1 write 1m "$DISK_SIZE" 1 --end_fsync=1 --ioengine=libaio --iodepth=16 &&
			lim_w=$(awk -v b="$(fio_get "$WORK/f.json" write bw_bytes)" 'BEGIN { print b / 1e6 }')
		fio_run "$WORK/f.json" "$DISKW" 1 read 1m "$DISK_SIZE" 1 --ioengine=libaio --iodepth=16 &&
			lim_r=$(awk -v b="$(fio_get "$WORK/f.json" read bw_bytes)" 'BEGIN { print b / 1e6 }')
		rm -f "$DISKW"/fio.*
	fi
	if [ -b "$DISK_DEV" ] && dd if="$DISK_DEV" of=/dev/null bs=1M count=1 iflag=direct 2>/dev/null; then
		dd_par 1 "$DISK_DEV" /dev/null bs=1M count="$nblk" iflag=direct
		raw=$DD_MBPS
	fi

	echo
	printf '  %-3s %-6s %-17s %-17s %-17s %-17s %-6s %-12s %-8s %-12s %-6s %s\n' thr phase "st core MB/s" "st none MB/s" \
		"fio MB/s" "dd MB/s" "st/fio" "st vs fio" "none/fio" "none vs fio" "st/dd" "load"
	for t in 1 2; do
		for ph in write read; do
			s=$(med "d$t.st.$ph") n=$(med "d$t.stn.$ph") f=$(med "d$t.fio.$ph") d=$(med "d$t.dd.$ph")
			printf '  %-3s %-6s %-17s %-17s %-17s %-17s %-6s %-12s %-8s %-12s %-6s %s\n' "$t" "$ph" \
				"$(cell "d$t.st.$ph")" "$(cell "d$t.stn.$ph")" "$(cell "d$t.fio.$ph")" "$(cell "d$t.dd.$ph")" \
				"$(ratio "$s" "$f")" "$(standing "d$t.st.$ph" "d$t.fio.$ph")" "$(ratio "$n" "$f")" \
				"$(standing "d$t.stn.$ph" "d$t.fio.$ph")" "$(ratio "$s" "$d")" "$(lrange "d$t")"
		done
	done
	echo "  st = --bind core, none = --bind none; 'vs fio': ahead or behind when the ranges of $REPS repeats do not"
	echo "  overlap (5 at least), else within noise; load: the 1-minute load before and after each repeat"
	fb=$(awk '$1 ~ /^d.\.st\.fallback$/ && $2 + 0 > 0 { n++ } END { print n + 0 }' "$WORK/results")
	echo "  stcluster direct_fallback: $([ "$fb" = 0 ] && echo "0 in every run (O_DIRECT granted)" || echo "$fb runs fell back to buffered I/O: figures are NOT O_DIRECT")"
	echo "  stcluster per-call p50 latency, 1 thread: write $(awk -v v="$(med d1.st.wlat)" 'BEGIN { printf "%.0f", v / 1000 }') us, read $(awk -v v="$(med d1.st.rlat)" 'BEGIN { printf "%.0f", v / 1000 }') us"
	echo "  device limit (same run): fio libaio iodepth=16 bs=1m direct: write $(fmt "$lim_w") MB/s, read $(fmt "$lim_r") MB/s;"
	if [ "$raw" != nan ]; then
		echo "                           raw $DISK_DEV dd bs=1M iflag=direct: read $(fmt "$raw") MB/s"
	else
		echo "                           raw $DISK_DEV not readable here (container); dd rows above are the queue-depth-1 limit"
	fi
fi

# ---------------------------------------------------------------- 1b. tmpfs

echo
echo "== 1b. 4 KiB random read / random write, tmpfs, buffered (--direct off, fio direct=0) ==  [$(load)]"
if [ "$IS_ROOT" != 1 ]; then
	echo "  skipped: mounting a tmpfs needs root"
else
	MNT=$(mktemp -d "${TMPDIR:-/tmp}/stbench-tmpfs.XXXXXX") || die "mktemp failed"
	msize=$((TMPFS_BYTES * 2 / 1048576 + 64))
	if ! mount -t tmpfs -o "size=${msize}m,mode=0700" stbench-tmpfs "$MNT"; then
		rmdir "$MNT"
		MNT=
		echo "  skipped: mount -t tmpfs failed"
	else
		echo "  private tmpfs $MNT (${msize} MiB), $TMPFS_SIZE per thread = $((TMPFS_BYTES / 4096)) blocks, every block once in random order"
		echo "  stcluster --block 4k --direct off --fsync on --phases randread,randwrite | fio rw=randread/randwrite bs=4k psync direct=0 end_fsync=1"
		echo "  (random map; the randwrite with refill_buffers=1: every block unique, as stcluster's --data random)"
		echo "  dd: SEQUENTIAL bs=4k (dd has no random mode; two syscalls per block: read + write)"
		n4k=$((TMPFS_BYTES / 4096))
		n1m=$((TMPFS_BYTES / 1048576))
		for t in 1 2; do
			r=0
			while [ "$r" -lt "$REPS" ]; do
				keep_load "m$t"
				for tool in $(rot "st fio dd" "$r"); do
					case $tool in
					st)
						db=$WORK/tmpfs-$t-$r.db
						if st_run 1 --target "$MNT" --engine posix --block 4k --threads "$t" \
							--size "$TMPFS_SIZE" --db "$db" --phases randread,randwrite \
							--direct off --fsync on --reorder on --bind core; then
							putv "m$t.st.randread" "$(stq "$db" "SELECT iops FROM result WHERE phase = 'randread'")"
							putv "m$t.st.randwrite" "$(stq "$db" "SELECT iops FROM result WHERE phase = 'randwrite'")"
							put "m$t.st.rrlat" "$(stq "$db" "SELECT lat_mean_ns FROM result WHERE phase = 'randread'")"
							put "m$t.st.rwlat" "$(stq "$db" "SELECT lat_mean_ns FROM result WHERE phase = 'randwrite'")"
						else
							echo "  stcluster failed:" >&2
							cat "$WORK/st.err" >&2
						fi
						;;
					fio)
						[ "$HAVE_FIO" = 1 ] || continue
						rm -f "$MNT"/fio.*
						# randread lays the files out (untimed); randwrite overwrites them
						if fio_run "$WORK/f.json" "$MNT" "$t" randread 4k "$TMPFS_SIZE" 0; then
							putv "m$t.fio.randread" "$(fio_get "$WORK/f.json" read iops)"
						else
							cat "$WORK/fio.err" >&2
						fi
						if fio_run "$WORK/f.json" "$MNT" "$t" randwrite 4k "$TMPFS_SIZE" 0 --end_fsync=1 \
							--refill_buffers=1; then
							putv "m$t.fio.randwrite" "$(fio_get "$WORK/f.json" write iops)"
						else
							cat "$WORK/fio.err" >&2
						fi
						rm -f "$MNT"/fio.*
						;;
					dd)
						dd_par "$t" /dev/zero "$MNT/dd.%i" bs=4k count="$n4k" conv=fsync
						w=$DD_MBPS
						dd_par "$t" "$MNT/dd.%i" /dev/null bs=4k
						rd=$DD_MBPS
						putv "m$t.dd.randwrite" "$(awk -v v="$w" 'BEGIN { print v == "nan" ? "nan" : v * 1e6 / 4096 }')"
						putv "m$t.dd.randread" "$(awk -v v="$rd" 'BEGIN { print v == "nan" ? "nan" : v * 1e6 / 4096 }')"
						rm -f "$MNT"/dd.*
						;;
					esac
				done
				keep_load "m$t"
				r=$((r + 1))
			done
		done
		# memcpy bound: one stream, 1 MiB calls, as 4 KiB-IOPS equivalent
		r=0
		while [ "$r" -lt "$REPS" ]; do
			dd_par 1 /dev/zero "$MNT/dd.%i" bs=1M count="$n1m"
			putv "m.memw" "$DD_MBPS"
			dd_par 1 "$MNT/dd.%i" /dev/null bs=1M
			putv "m.memr" "$DD_MBPS"
			rm -f "$MNT"/dd.*
			r=$((r + 1))
		done

		echo
		printf '  %-7s %-10s %-22s %-22s %-22s %-6s %-12s %-6s %s\n' threads phase "stcluster IOPS" "fio IOPS" \
			"dd seq-4k IOPS" "st/fio" "st vs fio" "st/dd" "load"
		for t in 1 2; do
			for ph in randread randwrite; do
				s=$(med "m$t.st.$ph") f=$(med "m$t.fio.$ph") d=$(med "m$t.dd.$ph")
				printf '  %-7s %-10s %-22s %-22s %-22s %-6s %-12s %-6s %s\n' "$t" "$ph" \
					"$(cell "m$t.st.$ph")" "$(cell "m$t.fio.$ph")" "$(cell "m$t.dd.$ph")" \
					"$(ratio "$s" "$f")" "$(standing "m$t.st.$ph" "m$t.fio.$ph")" "$(ratio "$s" "$d")" "$(lrange "m$t")"
			done
		done
		echo "  'vs fio': ahead or behind when the ranges of $REPS repeats do not overlap (5 at least), else within noise"
		mw=$(med m.memw) mr=$(med m.memr)
		echo "  stcluster mean time per call, 1 thread: randread $(med m1.st.rrlat) ns, randwrite $(med m1.st.rwlat) ns (clock to clock around pread/pwrite)"
		echo "  memcpy bound (same run, 1 stream, dd bs=1M): write $(fmt "$mw") MB/s = $(awk -v v="$mw" 'BEGIN { printf "%.0f", v * 1e6 / 4096 }') 4k-IOPS equivalent;" \
			"read $(fmt "$mr") MB/s = $(awk -v v="$mr" 'BEGIN { printf "%.0f", v * 1e6 / 4096 }') 4k-IOPS equivalent (a rough per-stream upper bound)"
		umount "$MNT" || echo "bench: could not unmount $MNT" >&2
		rmdir "$MNT"
		MNT=
	fi
fi

# ---------------------------------------------------------------- 2. turnaround

echo
echo "== 2. phase turnaround (null engine --null-delay 1ms --block 4k,8k --size 64k --threads 1,2 --iterations $ITER --phases write,read) ==  [$(load)]"
echo "  gather   = phase_run.gathered_ns - MAX(rank_result.end_ns)        (last I/O done -> every result at rank 0)"
echo "  store    = combo.stored_ns - MAX(end_ns of the combination's last phase) (-> about to commit; includes the final barrier, file removal)"
echo "  dispatch = MAX over ranks (rank_result.start_ns - release_ns)      (barrier release -> first I/O of the rank)"
echo "  skew     = phase_run.skew_ns = release_max_ns - release_min_ns"
mkdir -p "$WORK/null"
printf '\n  %-5s %-7s %-20s %-20s %-20s %-20s %-8s\n' ranks phases "gather p50/p90 us" "store p50/p90 us" "dispatch p50/p90 us" "skew p50/max us" "I/O ms"
for np in $NP_LIST; do
	db=$WORK/null-$np.db
	if ! st_run "$np" --target "$WORK/null" --engine null --null-delay 1ms --block 4k,8k --size 64k \
		--threads 1,2 --iterations "$ITER" --phases write,read --db "$db"; then
		echo "  $np ranks: stcluster failed:"
		sed 's/^/    /' "$WORK/st.err"
		continue
	fi
	all() { "$ST" query --db "$db" "$1" --format csv 2>/dev/null | sed 1d; }
	nph=$(all "SELECT COUNT(*) FROM phase_run")
	g=$(all "SELECT p.gathered_ns - MAX(r.end_ns) FROM phase_run p JOIN rank_result r USING (combo_id, phase) GROUP BY p.combo_id, p.phase" | q_us 0.9)
	s=$(all "SELECT c.stored_ns - (SELECT MAX(r.end_ns) FROM rank_result r JOIN phase_run p USING (combo_id, phase)
		WHERE p.combo_id = c.combo_id AND p.phase_order = (SELECT MAX(phase_order) FROM phase_run q WHERE q.combo_id = c.combo_id))
		FROM combo c WHERE c.status = 'ok'" | q_us 0.9)
	dsp=$(all "SELECT MAX(start_ns - release_ns) FROM rank_result GROUP BY combo_id, phase" | q_us 0.9)
	sk=$(all "SELECT skew_ns FROM phase_run" | q_us max)
	io=$(all "SELECT (MAX(end_ns) - MIN(start_ns)) / 1e6 FROM rank_result GROUP BY combo_id, phase" |
		sort -g | awk '{ v[NR] = $1 } END { if (NR) printf "%.1f-%.1f", v[1], v[NR] }')
	printf '  %-5s %-7s %-20s %-20s %-20s %-20s %-8s\n' "$np" "$nph" "$g" "$s" "$dsp" "$sk" "$io"
done

# ---------------------------------------------------------------- 3. RSS

echo
echo "== 3. peak RSS per rank (GNU time %M = ru_maxrss of each stcluster process; 2 ranks, posix O_DIRECT, 256m per thread, write,read) ==  [$(load)]"
TIME=/usr/bin/time
if ! "$TIME" --version 2>&1 | grep -q GNU; then
	if [ "$IS_ROOT" = 1 ] && command -v apt-get >/dev/null; then
		apt-get install -y -qq time >/dev/null 2>&1
	fi
fi
if ! "$TIME" --version 2>&1 | grep -q GNU; then
	echo "  skipped: GNU time (/usr/bin/time) is missing (apt-get install time)"
else
	rss_dir=${DISKW:-$WORK}
	# each rank writes its own ru_maxrss (KiB, GNU time) to PREFIX.<rank> and
	# the largest RssAnon seen while sampling its /proc status every 20 ms to
	# PREFIX.anon.<rank> (anonymous memory: heap, stacks, buffers; the rest of
	# the RSS is mostly shared-library text, shared between processes)
	cat > "$WORK/rsswrap.sh" <<'EOF'
#!/bin/sh
out=$1
shift
r=${OMPI_COMM_WORLD_RANK:-${PMIX_RANK:-0}}
/usr/bin/time -o "$out.$r" -f %M "$@" &
tp=$!
amax=0
while kill -0 "$tp" 2>/dev/null; do
	for c in $(pgrep -P "$tp"); do
		a=$(awk '/^RssAnon:/ { print $2 }' "/proc/$c/status" 2>/dev/null)
		[ -n "$a" ] && [ "$a" -gt "$amax" ] && amax=$a
	done
	sleep 0.02
done
wait "$tp"
rc=$?
echo "$amax" > "$out.anon.$r"
exit "$rc"
EOF
	printf '\n  %-22s %-5s %-13s %-12s %-16s %-6s %s\n' run rank "peak RSS MiB" "buffers MiB" "RSS-buffers MiB" "<16?" "RssAnon MiB (sampled)"
	for cfg in "1m 2" "4k 1"; do
		# shellcheck disable=SC2086  # split on purpose
		set -- $cfg
		blk=$1 nt=$2
		rm -f "$WORK"/rss.*
		if ! mpirun -np 2 sh "$WORK/rsswrap.sh" "$WORK/rss" "$ST" --target "$rss_dir" --engine posix \
			--block "$blk" --threads "$nt" --size 256m --phases write,read --direct on --db "$WORK/rss.db" \
			--quiet >"$WORK/st.out" 2>"$WORK/st.err"; then
			echo "  --block $blk --threads $nt: run failed:"
			sed 's/^/    /' "$WORK/st.err"
			continue
		fi
		buf=$(($(to_bytes "$blk") * nt))
		for rk in 0 1; do
			kb=$(tail -n 1 "$WORK/rss.$rk" 2>/dev/null)
			[ -n "$kb" ] || continue
			an=$(cat "$WORK/rss.anon.$rk" 2>/dev/null)
			printf '  %-22s %-5s %-13s %-12s %-16s %-6s %s\n' "--block $blk --threads $nt" "$rk" \
				"$(awk -v k="$kb" 'BEGIN { printf "%.1f", k / 1024 }')" \
				"$(awk -v b="$buf" 'BEGIN { printf "%.3f", b / 1048576 }')" \
				"$(awk -v k="$kb" -v b="$buf" 'BEGIN { printf "%.1f", k / 1024 - b / 1048576 }')" \
				"$(awk -v k="$kb" -v b="$buf" -v s="$blk" 'BEGIN { if (s != "1m") print "(base)"; else print (k / 1024 - b / 1048576 < 16 ? "yes" : "no") }')" \
				"$(awk -v a="${an:-0}" 'BEGIN { printf "%.1f", a / 1024 }')"
		done
	done
	echo "  the 4k x 1 run is the fixed cost (MPI, PMIx, hwloc, SQLite on rank 0) for comparison; RSS counts"
	echo "  shared-library pages too, RssAnon (heap, stacks, buffers) is what stcluster itself allocates"
fi

echo
echo "bench done in $(($(date +%s) - T_START)) s  [$(load)]"
