#!/bin/sh
# tests/bench/nfs.sh - stcluster's libnfs engine against fio's nfs engine and
# libnfs's nfs-cp, on one private nfs-ganesha (run on demand, not in make check).
#
#   1. 1 MiB sequential write + read, one stream, queue depth NFS_DEPTHS (1 8 32)
#      (nfs-cp: depth 1 only: it copies with synchronous 1 MiB calls)
#   2. 4 KiB random read, one stream, queue depth NFS_DEPTHS (every block once)
#
# One nfs-ganesha (tests/lab/ganesha.sh) serves a fresh directory under
# /var/tmp (a real disk) on 127.0.0.1 with non-default ports; every tool talks
# to that same server in the same run. Each figure is the median of NFS_REPS
# repeats [min-max], the tools interleaved and their order rotated every
# repeat, the 1-minute load before and after each pair (a depth's runs of a
# workload) printed and its range beside the figures. stcluster against fio:
# the ratio of the medians and "ahead", "behind" or "within noise" (the
# ranges overlap). The write twice: the whole phase (its COMMIT, the
# server's flush, included) and its data calls alone (phase_tail's
# calls_mbps: to the last WRITE's reply), which is what fio's figure is (its
# nfs engine closes the file, the COMMIT, after it took the time). CPU like
# for like: stcluster's I/O thread (phase_cpu.io_cpu_us_per_mb,
# RUSAGE_THREAD; libnfs runs in it) against fio's job thread (usr_cpu +
# sys_cpu of job_runtime), and stcluster's whole process beside them. The
# exit status is 0 unless the suite itself could not run. See
# tests/bench/README.md.
#
# fio: Debian's fio is built without libnfs (fio --enghelp=nfs: "engine nfs
# not loadable"). Give a fio built with its nfs engine in FIO_NFS=/path/to/fio
# (README.md says how one was built); without it the fio columns are skipped.
#
# Knobs (environment): FIO_NFS (none), NFS_REPS (5), NFS_SIZE (256m: file of
# the sequential runs), NFS_RR_SIZE (32m: file of the random reads),
# NFS_DEPTHS ("1 8 32"), NFS_EXPORT_BASE (/var/tmp), NFS_PORT / NFS_MNT_PORT (default: free ports
# from 20000 up), NFS_BUDGET (240 s: no repeat starts after this), STCLUSTER
# (./stcluster).
#
# Everything it creates is removed on exit: the ganesha it started (stopped
# through its own state directory), the export directory, the work directory
# and the /dev/shm copy files.

set -u
LC_ALL=C
export LC_ALL
cd "$(dirname "$0")/../.." || exit 1
ROOT=$(pwd)

ST_SRC=${STCLUSTER:-$ROOT/stcluster}
FIO=${FIO_NFS:-}
REPS=${NFS_REPS:-5}
DEPTHS=${NFS_DEPTHS:-"1 8 32"}
SIZE=${NFS_SIZE:-256m}
RR_SIZE=${NFS_RR_SIZE:-32m}
EXPORT_BASE=${NFS_EXPORT_BASE:-/var/tmp}
BUDGET=${NFS_BUDGET:-240}
GANESHA=$ROOT/tests/lab/ganesha.sh

WORK='' EXPORT='' GSTATE='' SHM=''
T_START=$(date +%s)

cleanup() {
	if [ -n "$GSTATE" ]; then
		"$GANESHA" stop "$GSTATE" || echo "nfs bench: ganesha.sh stop $GSTATE failed" >&2
	fi
	[ -n "$SHM" ] && rm -f "$SHM".src "$SHM".dst
	[ -n "$EXPORT" ] && rm -rf "$EXPORT"
	[ -n "$WORK" ] && rm -rf "$WORK"
}
trap cleanup EXIT
trap 'exit 130' INT TERM HUP
BENCH="nfs bench"
. tests/bench/lib.sh

now_ns() { date +%s%N; }

# ---------------------------------------------------------------- helpers

# a free TCP port on 127.0.0.1 from $1 up (nothing listening on it)
free_port() {
	p=$1
	while ss -Htln "sport = :$p" 2>/dev/null | grep -q .; do p=$((p + 1)); done
	echo "$p"
}

# fio's JSON, flattened: "JOB.SECTION.KEY value" for io_bytes, bw_bytes, iops and
# runtime of the read and write sections (the first of each, not the nested
# ones), and "JOB.cpu_us value" = (usr_cpu + sys_cpu) % of job_runtime
fio_flat() {
	awk '
		/"jobname" :/ { gsub(/[",]/, "", $3); job = $3; sec = "" }
		/^      "(read|write)" : \{/ { gsub(/"/, "", $1); sec = $1; delete seen; next }
		/^      "[a-z_]+" : \{/ { sec = "" }
		sec != "" && ($1 == "\"io_bytes\"" || $1 == "\"bw_bytes\"" || $1 == "\"iops\"" || $1 == "\"runtime\"") {
			k = $1; gsub(/"/, "", k); v = $3; gsub(/,/, "", v)
			if (!(k in seen)) { seen[k] = 1; print job "." sec "." k, v }
		}
		/^      "error" :/ { v = $3; gsub(/,/, "", v); print job ".error", v }
		/"job_runtime" :/ { v = $3; gsub(/,/, "", v); jr[job] = v }
		/"usr_cpu" :/ { v = $3; gsub(/,/, "", v); uc[job] = v }
		/"sys_cpu" :/ { v = $3; gsub(/,/, "", v); sc[job] = v }
		END { for (j in jr) printf "%s.cpu_us %.0f\n", j, (uc[j] + sc[j]) / 100 * jr[j] * 1000 }' "$1"
}
ffv() { awk -v k="$1" '$1 == k { print $2; exit }' "$WORK/fio.flat"; }

# --------------------------------------------------------------- the tools

ST_ERRS=0
# stcluster, one rank, one thread: st_run DB args...
st_run() {
	db=$1
	shift
	rm -f "$db"
	if timeout -k 5 150 mpirun -np 1 "$ST" --engine libnfs --target "$URL" --threads 1 --reorder off \
		--deadline 120 --db "$db" --quiet "$@" >"$WORK/st.out" 2>"$WORK/st.err"; then
		return 0
	fi
	ST_ERRS=$((ST_ERRS + 1))
	if [ "$ST_ERRS" -le 2 ]; then
		echo "  stcluster failed ($*):"
		sed 's/^/    /' "$WORK/st.err" | head -n 15
	fi
	return 1
}

FIO_ERRS=0
FIO_HUNG=0 FIO_CRASHED=0
# fio with its nfs engine: fio_nfs OUT.json options... (stderr kept in $WORK/fio.err).
# A run normally takes seconds; one still running after FIO_TIMEOUT is killed
# (fio's nfs engine can hang at iodepth > 1, see the notes).
FIO_TIMEOUT=${NFS_FIO_TIMEOUT:-45}
fio_nfs() {
	out=$1
	shift
	rm -f "$out"
	timeout -k 5 "$FIO_TIMEOUT" "$FIO" --output-format=json --output="$out" --ioengine=nfs --nfs_url="$URL" "$@" \
		>"$WORK/fio.out" 2>"$WORK/fio.err"
	rc=$?
	: > "$WORK/fio.flat"
	[ -s "$out" ] && fio_flat "$out" > "$WORK/fio.flat" 2>/dev/null
	# fio's nfs engine reports every call that failed or was cancelled on stderr
	FIO_LOST=$(grep -c 'Failed NFS operation' "$WORK/fio.err")
	why=
	if [ "$rc" = 124 ] || [ "$rc" = 137 ]; then
		FIO_HUNG=$((FIO_HUNG + 1))
		why="still running after ${FIO_TIMEOUT}s: killed"
	elif grep -q 'got signal' "$WORK/fio.err"; then
		FIO_CRASHED=$((FIO_CRASHED + 1))
		why="a job crashed: $(grep 'got signal' "$WORK/fio.err" | head -n 1)"
	elif [ "$rc" != 0 ] || ! [ -s "$WORK/fio.flat" ]; then
		why="status $rc"
	elif awk '$1 ~ /\.error$/ && $2 != 0 { bad = 1 } END { exit !bad }' "$WORK/fio.flat"; then
		why="a job reported an error: $(awk '$1 ~ /\.error$/ && $2 != 0' "$WORK/fio.flat" | tr '\n' ' ')"
	fi
	if [ -n "$why" ]; then
		FIO_ERRS=$((FIO_ERRS + 1))
		echo "  fio run discarded ($why): $*"
		[ "$FIO_ERRS" -le 2 ] && grep -v 'Failed NFS operation' "$WORK/fio.err" | sed 's/^/    /' | head -n 6
		return 1
	fi
	return 0
}

# nfs-cp SRC DST, timed from outside (process start, mount and the final COMMIT included)
CP_ERRS=0
cp_run() {
	t0=$(now_ns)
	if ! timeout -k 5 150 nfs-cp "$1" "$2" >"$WORK/cp.out" 2>&1; then
		CP_ERRS=$((CP_ERRS + 1))
		[ "$CP_ERRS" -le 2 ] && { echo "  nfs-cp $1 $2 failed:"; sed 's/^/    /' "$WORK/cp.out"; }
		CP_MBPS=nan
		return 1
	fi
	t1=$(now_ns)
	CP_MBPS=$(awk -v b="$3" -v t="$((t1 - t0))" 'BEGIN { printf "%.3f\n", b / (t / 1e9) / 1e6 }')
}

# after every measurement: the tools' files go, and the server's disk is flushed
# (untimed), so no tool pays for the previous one's unstable writes
settle() {
	rm -f "$EXPORT"/fio.* "$EXPORT"/cp.*
	sync -f "$EXPORT" 2>/dev/null || sync
}

# ---------------------------------------------------------------- checks

[ "$(id -u)" = 0 ] || die "needs root (tests/lab/ganesha.sh runs nfs-ganesha in a private mount namespace)"
[ -x "$ST_SRC" ] || die "$ST_SRC is missing: run make first"
for b in mpirun ganesha.nfsd rpcbind nfs-cp nfs-ls ss timeout; do
	command -v "$b" >/dev/null || die "$b not found (packages: openmpi-bin nfs-ganesha nfs-ganesha-vfs rpcbind libnfs-utils iproute2 coreutils)"
done
[ -x "$GANESHA" ] || die "$GANESHA missing"
# shellcheck disable=SC1091
. "$ROOT/tests/mpienv.sh"

HAVE_FIO=0
FIO_WHY=
if [ -z "$FIO" ]; then
	FIO_WHY="FIO_NFS is not set. Debian's fio is built without libnfs ($(fio --enghelp=nfs 2>&1 | head -n 1 || true)); give a fio built with its nfs engine: FIO_NFS=/path/to/fio (README.md)"
elif ! [ -x "$FIO" ]; then
	FIO_WHY="FIO_NFS=$FIO is not an executable"
elif ! "$FIO" --enghelp=nfs 2>&1 | grep -q nfs_url; then
	FIO_WHY="FIO_NFS=$FIO has no nfs engine (--enghelp=nfs: $("$FIO" --enghelp=nfs 2>&1 | head -n 1))"
else
	HAVE_FIO=1
fi

WORK=$(mktemp -d "${TMPDIR:-/tmp}/stbench-nfs.XXXXXX") || die "mktemp failed"
: > "$WORK/results"
ST=$WORK/stcluster
cp "$ST_SRC" "$ST" || die "cannot copy $ST_SRC"
EXPORT=$(mktemp -d "$EXPORT_BASE/stbench-nfs-export.XXXXXX") || die "cannot make a directory under $EXPORT_BASE"
chmod 755 "$EXPORT"
BYTES=$(to_bytes "$SIZE")
RR_BYTES=$(to_bytes "$RR_SIZE")
# the nfs-cp source (and read destination) live in memory, not on a disk
shm_free=$(df -P /dev/shm 2>/dev/null | awk 'NR == 2 { printf "%.0f\n", $4 / 1024 }')
if [ -d /dev/shm ] && [ "${shm_free:-0}" -gt $((BYTES * 2 / 1048576 + 64)) ] 2>/dev/null; then
	SHM=/dev/shm/stbench-nfs.$$
else
	SHM=$WORK/cp
fi

# ---------------------------------------------------------------- the server

NFS_PORT=${NFS_PORT:-$(free_port 20049)}
NFS_MNT_PORT=${NFS_MNT_PORT:-$(free_port $((NFS_PORT + 1)))}
GSTATE=$WORK/ganesha
if ! GANESHA_NFS_PORT=$NFS_PORT GANESHA_MNT_PORT=$NFS_MNT_PORT "$GANESHA" start "$GSTATE" "$EXPORT" 127.0.0.1; then
	die "nfs-ganesha did not start (ports $NFS_PORT/$NFS_MNT_PORT)"
fi
URL=$("$GANESHA" url "$GSTATE" 3) || die "ganesha.sh url failed"
# nfs-cp takes the file in the URL's path: nfs://127.0.0.1/export/FILE?version=3&...
url_file() { echo "$URL" | sed "s|/export?|/export/$1?|"; }

echo "stcluster libnfs vs fio nfs vs nfs-cp, one nfs-ganesha on 127.0.0.1  [$(load)]"
echo "  server:  $(ganesha.nfsd -v 2>&1 | sed -n 's/.*Release = /nfs-ganesha /p' | head -n 1) FSAL VFS, export $EXPORT ($(df -P "$EXPORT" | awk 'NR == 2 { print $1 }'), $(stat -f -c %T "$EXPORT")), $URL"
echo "  stcluster: $ST_SRC ($("$ST" --version 2>/dev/null | head -n 1)), --engine libnfs --threads 1 --sync async (UNSTABLE writes + COMMIT at close, inside the phase)"
if [ "$HAVE_FIO" = 1 ]; then
	echo "  fio:     $FIO ($("$FIO" --version)), ioengine=nfs (libnfs nfs_pread_async/nfs_pwrite_async, iodepth = calls in flight)"
else
	echo "  fio:     column skipped: $FIO_WHY"
fi
echo "  nfs-cp:  $(command -v nfs-cp) (libnfs $(dpkg-query -W -f '${Version}' libnfs-utils 2>/dev/null || echo '?')): synchronous 1 MiB nfs_pwrite/nfs_pread, depth 1; timed from outside (process start + mount included)"
echo "  files: $SIZE sequential (1 MiB calls), $RR_SIZE for 4 KiB random reads ($((RR_BYTES / 4096)) reads, every block once); $REPS repeats, order rotated; disk flushed (sync -f) between runs, untimed"
echo "  nfs-cp memory side: $SHM.src / .dst"

# source file of nfs-cp: random bytes, in memory
head -c "$BYTES" /dev/urandom > "$SHM.src" || die "cannot write $SHM.src"

# ---------------------------------------------------------------- the runs

r=0
while [ "$r" -lt "$REPS" ]; do
	if [ "$r" -gt 0 ] && [ $(($(date +%s) - T_START)) -ge "$BUDGET" ]; then
		echo "  note: stopped after $r of $REPS repeats: NFS_BUDGET=${BUDGET}s reached"
		break
	fi
	for d in $DEPTHS; do
		# ---- 1 MiB sequential write + read
		tools="st fio"
		[ "$d" = 1 ] && tools="st fio cp"
		pair_load s$d "repeat $((r + 1)), depth $d, 1 MiB sequential pair: before"
		for tool in $(rot "$tools" "$r"); do
			case $tool in
			st)
				db=$WORK/seq-$d-$r.db
				if st_run "$db" --block 1m --size "$SIZE" --phases write,read --sync async --iodepth "$d"; then
					putv "s$d.st.write" "$(stq "$db" "SELECT agg_mbps FROM result WHERE phase = 'write'")"
					putv "s$d.st.wcalls" "$(stq "$db" "SELECT calls_mbps FROM phase_tail WHERE phase = 'write'")"
					putv "s$d.st.read" "$(stq "$db" "SELECT agg_mbps FROM result WHERE phase = 'read'")"
					putv "s$d.st.wcpu" "$(stq "$db" "SELECT cpu_us * 1.0 / ops FROM result WHERE phase = 'write'")"
					putv "s$d.st.rcpu" "$(stq "$db" "SELECT cpu_us * 1.0 / ops FROM result WHERE phase = 'read'")"
					putv "s$d.st.wio" "$(stq "$db" "SELECT io_cpu_us_per_mb * 1.048576 FROM phase_cpu WHERE phase = 'write'")"
					putv "s$d.st.rio" "$(stq "$db" "SELECT io_cpu_us_per_mb * 1.048576 FROM phase_cpu WHERE phase = 'read'")"
					[ "$r" = 0 ] && put "s$d.st.opts" "$(stq "$db" "SELECT mount_options FROM combo" | tr ' ' '_')"
				fi
				;;
			fio)
				[ "$HAVE_FIO" = 1 ] || continue
				# w: the timed write; lay (untimed): the file again at depth 1, whole (at
				# depth > 1 fio's nfs engine drops the last calls of a job); r: the timed read
				if fio_nfs "$WORK/f.json" --bs=1m --size="$SIZE" --filename=fio.seq \
					--name=w --rw=write --iodepth="$d" \
					--name=lay --stonewall --rw=write --iodepth=1 \
					--name=r --stonewall --rw=read --iodepth="$d"; then
					putv "s$d.fio.write" "$(awk -v b="$(ffv w.write.bw_bytes)" 'BEGIN { print b / 1e6 }')"
					putv "s$d.fio.read" "$(awk -v b="$(ffv r.read.bw_bytes)" 'BEGIN { print b / 1e6 }')"
					put "s$d.fio.wlost" "$(awk -v b="$(ffv w.write.io_bytes)" -v s="$BYTES" 'BEGIN { print (s - b) / 1048576 }')"
					put "s$d.fio.rlost" "$(awk -v b="$(ffv r.read.io_bytes)" -v s="$BYTES" 'BEGIN { print (s - b) / 1048576 }')"
					put "s$d.fio.failed" "$FIO_LOST"
					putv "s$d.fio.wcpu" "$(awk -v c="$(ffv w.cpu_us)" -v b="$(ffv w.write.io_bytes)" 'BEGIN { if (b > 0) print c / (b / 1048576) }')"
					putv "s$d.fio.rcpu" "$(awk -v c="$(ffv r.cpu_us)" -v b="$(ffv r.read.io_bytes)" 'BEGIN { if (b > 0) print c / (b / 1048576) }')"
				fi
				;;
			cp)
				cp_run "$SHM.src" "$(url_file cp.seq)" "$BYTES" && putv "s$d.cp.write" "$CP_MBPS"
				rm -f "$SHM.dst"
				cp_run "$(url_file cp.seq)" "$SHM.dst" "$BYTES" && putv "s$d.cp.read" "$CP_MBPS"
				if [ "$r" = 0 ] && ! cmp -s "$SHM.src" "$SHM.dst"; then
					echo "  note: nfs-cp read back differs from what it wrote"
				fi
				rm -f "$SHM.dst"
				;;
			esac
			settle
		done
		pair_load s$d "repeat $((r + 1)), depth $d, 1 MiB sequential pair: after"
		# ---- 4 KiB random read
		pair_load r$d "repeat $((r + 1)), depth $d, 4 KiB random read pair: before"
		for tool in $(rot "st fio" "$r"); do
			case $tool in
			st)
				db=$WORK/rr-$d-$r.db
				if st_run "$db" --block 4k --size "$RR_SIZE" --phases randread --sync async --iodepth "$d"; then
					putv "r$d.st.iops" "$(stq "$db" "SELECT iops FROM result WHERE phase = 'randread'")"
					putv "r$d.st.cpu" "$(stq "$db" "SELECT cpu_us * 1.0 / ops FROM result WHERE phase = 'randread'")"
					putv "r$d.st.io" "$(stq "$db" "SELECT io_cpu_us_per_mb * 4096 / 1e6 FROM phase_cpu WHERE phase = 'randread'")"
					putv "r$d.st.lat" "$(stq "$db" "SELECT lat_p50_ns / 1000.0 FROM result WHERE phase = 'randread'")"
				fi
				;;
			fio)
				[ "$HAVE_FIO" = 1 ] || continue
				# the first job lays the file out (untimed here); the second reads it
				if fio_nfs "$WORK/f.json" --size="$RR_SIZE" --filename=fio.rr \
					--name=lay --bs=1m --rw=write --iodepth=1 \
					--name=rr --stonewall --bs=4k --rw=randread --iodepth="$d"; then
					putv "r$d.fio.iops" "$(ffv rr.read.iops)"
					put "r$d.fio.lost" "$(awk -v b="$(ffv rr.read.io_bytes)" -v s="$RR_BYTES" 'BEGIN { print (s - b) / 4096 }')"
					put "r$d.fio.failed" "$FIO_LOST"
					putv "r$d.fio.cpu" "$(awk -v c="$(ffv rr.cpu_us)" -v b="$(ffv rr.read.io_bytes)" 'BEGIN { if (b > 0) print c / (b / 4096) }')"
				fi
				;;
			esac
			settle
		done
		pair_load r$d "repeat $((r + 1)), depth $d, 4 KiB random read pair: after"
	done
	r=$((r + 1))
done
REPS_DONE=$r

# ---------------------------------------------------------------- report

# "!" after a fio figure: fio lost calls at the end of its jobs (see the notes)
lostmark() { awk -v n="$(total "$1")" 'BEGIN { if (n > 0) print "!" }'; }

echo
echo "== 1. 1 MiB sequential, $SIZE, one stream: MB/s, median [min-max] of $REPS_DONE ==  [$(load)]"
echo "  (write: the whole phase, its COMMIT included; write-calls: stcluster's WRITEs alone, to the"
echo "  last reply, as fio's nfs engine times its write; st/fio: the medians' ratio)"
printf '  %-5s %-11s %-18s %-19s %-18s %-7s %-13s %-6s %s\n' depth phase "stcluster" "fio nfs" "nfs-cp" \
	"st/fio" "st vs fio" "st/cp" "load"
BANG=''
for d in $DEPTHS; do
	for ph in write write-calls read; do
		sk=s$d.st.$ph fk=s$d.fio.$ph ck=s$d.cp.$ph
		case $ph in write-calls) sk=s$d.st.wcalls fk=s$d.fio.write ck=none ;; esac
		s=$(med "$sk") f=$(med "$fk") c=$(med "$ck")
		lm=$(lostmark "s$d.fio.failed")
		[ "$HAVE_FIO" = 1 ] && [ "$ph" = write ] && lm="$lm+"
		[ -n "$lm" ] && BANG=1
		ccol="$(cell "$ck")"
		{ [ "$d" != 1 ] || [ "$ph" = write-calls ]; } && ccol="-"
		fcol="$(fmt "$f")$lm [$(range "$fk")]"
		[ "$HAVE_FIO" = 1 ] || fcol="skipped"
		printf '  %-5s %-11s %-18s %-19s %-18s %-7s %-13s %-6s %s\n' "$d" "$ph" "$(cell "$sk")" "$fcol" \
			"$ccol" "$(ratio "$s" "$f")" "$(standing "$sk" "$fk")" "$(ratio "$s" "$c")" "$(lrange "s$d")"
	done
done
echo
echo "== 2. 4 KiB random read, $RR_SIZE file ($((RR_BYTES / 4096)) reads), one stream: IOPS, median [min-max] of $REPS_DONE ==  [$(load)]"
printf '  %-5s %-20s %-21s %-7s %-13s %-14s %s\n' depth "stcluster" "fio nfs" "st/fio" "st vs fio" "st p50 lat us" load
for d in $DEPTHS; do
	s=$(med "r$d.st.iops") f=$(med "r$d.fio.iops")
	lm=$(lostmark "r$d.fio.failed")
	[ -n "$lm" ] && BANG=1
	fcol="$(fmt "$f")$lm [$(range "r$d.fio.iops")]"
	[ "$HAVE_FIO" = 1 ] || fcol="skipped"
	printf '  %-5s %-20s %-21s %-7s %-13s %-14s %s\n' "$d" "$(cell "r$d.st.iops")" "$fcol" \
		"$(ratio "$s" "$f")" "$(standing "r$d.st.iops" "r$d.fio.iops")" "$(fmt "$(med "r$d.st.lat")")" "$(lrange "r$d")"
done

echo
echo "== 3. client CPU, median [min-max]: stcluster's I/O thread (RUSAGE_THREAD: libnfs runs in it)"
echo "  against fio's job thread ((usr+sys)% x job_runtime), stcluster's whole process beside them"
printf '  %-24s %-16s %-16s %-13s %s\n' "" "st I/O thread" "fio job thread" "st vs fio" "st process"
for d in $DEPTHS; do
	for x in "seq_write_d${d}_us/MiB s$d.st.wio s$d.fio.wcpu s$d.st.wcpu" \
		"seq_read_d${d}_us/MiB s$d.st.rio s$d.fio.rcpu s$d.st.rcpu" \
		"randread_d${d}_us/call r$d.st.io r$d.fio.cpu r$d.st.cpu"; do
		# shellcheck disable=SC2086
		set -- $x
		printf '  %-24s %-16s %-16s %-13s %s\n' "$(echo "$1" | tr _ ' ')" "$(cell "$2")" "$(cell "$3")" \
			"$(standing "$2" "$3" more less)" "$(cell "$4")"
	done
done
opts=$(awk '$1 == "s8.st.opts" { print $2; exit }' "$WORK/results" | tr '_' ' ' | tr -d '"')
[ -n "$opts" ] && echo "  stcluster effective options (depth 8): $opts"
if [ "$HAVE_FIO" = 1 ]; then
	echo "  + fio's write figure stops before the COMMIT: its nfs engine closes the file (nfs_close = COMMIT)"
	echo "    after fio took the job's runtime, so fio times unstable writes only; stcluster's --sync async"
	echo "    phase and nfs-cp include the COMMIT (the server's flush to disk)."
	if [ -n "$BANG" ]; then
		lost=$(awk '$1 ~ /fio\.failed$/ { n += $2 } END { print n + 0 }' "$WORK/results")
		echo "  ! fio lost $lost calls in all (\"Failed NFS operation\"): at iodepth > 1 its nfs engine ends a job"
		echo "    with the last calls still in flight (getevents returns 0 events instead of waiting), and"
		echo "    destroying the context cancels them; fio's figure leaves those calls and their time out."
		for k in s8.fio.wlost s8.fio.rlost; do
			v=$(total "$k")
			[ "$v" != 0 ] && echo "    $k: $v MiB of $SIZE x $REPS_DONE repeats not done"
		done
	fi
	[ "$FIO_HUNG" != 0 ] && echo "  fio hung $FIO_HUNG time(s) (killed after ${FIO_TIMEOUT}s; those repeats have no fio figure)"
	[ "$FIO_CRASHED" != 0 ] && echo "  a fio job crashed (SIGSEGV) $FIO_CRASHED time(s); those repeats have no fio figure"
else
	echo "  fio column skipped: $FIO_WHY"
fi

echo
echo "nfs bench done in $(($(date +%s) - T_START)) s  [$(load)]"
