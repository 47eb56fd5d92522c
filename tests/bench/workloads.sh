#!/bin/sh
# tests/bench/workloads.sh - issue 13's workloads against IOR's own tools on
# the same work (run on demand, as root; not in make check or make bench):
#
#   1. metadata: stcluster --phases create,stat,open,remove against mdtest -F -u
#      (each task its own directory of WL_FILES empty files; creation, stat,
#      read = open + close, removal), WL_NP ranks of one thread
#      a. posix on a private tmpfs      b. libnfs / mdtest -a LIBNFS, one ganesha
#      then the same files in one shared directory (--dir-mode shared against
#      mdtest -F without -u, its default), and directories (--phases
#      mkdir,dirstat,rmdir against mdtest -D -u: creation, stat, removal)
#      c. on the tmpfs                  d. over libnfs; with both tools' calls
#      on the wire, counted from a capture of the last repeat (tcpdump on lo,
#      tests/bench/rpc_calls.py), beside stcluster's own count (rpc_stat)
#   2. one shared file: stcluster --layout shared --access segmented against
#      IOR -F off (its default, one segment): WL_SIZE per task in WL_BLOCK
#      calls, write with fsync (-e), read back by the next task (-C)
#      a. posix on the tmpfs            b. libnfs / ior -a LIBNFS, the ganesha
#
# Every figure is the median [min-max] of WL_REPS repeats, the two tools one
# after the other, their order swapped every repeat, the 1-minute load printed
# before and after each repeat's pair and its range in each section's head.
# stcluster against the other tool: the medians' ratio and "ahead", "behind"
# or "within noise" (the ranges overlap). Information, not a failure: the
# exit status is 0 unless the suite itself could not run.
#
# IOR and mdtest are no Debian package: build them outside the project from
# github:hpc/ior with tests/bench/ior-build.sh SRC PREFIX, and give the
# directory of the binaries in IOR_BIN (README.md has the details).
#
# Knobs (environment): IOR_BIN (required), WL_REPS (5), WL_NP (2), WL_FILES
# (5000 per task, tmpfs), WL_NFS_FILES (1000 per task, ganesha), WL_SIZE (256m
# per task), WL_NFS_SIZE (128m), WL_BLOCK (1m), WL_EXPORT_BASE (/var/tmp),
# STCLUSTER (./stcluster).
#
# Everything it creates is removed on exit: the tmpfs it mounted, the
# ganesha it started (through its own state directory), the export
# directory and the work directory.

set -u
LC_ALL=C
export LC_ALL
cd "$(dirname "$0")/../.." || exit 1
ROOT=$(pwd)

ST_SRC=${STCLUSTER:-$ROOT/stcluster}
IOR_BIN=${IOR_BIN:-}
REPS=${WL_REPS:-5}
NP=${WL_NP:-2}
FILES=${WL_FILES:-5000}
NFS_FILES=${WL_NFS_FILES:-1000}
SIZE=${WL_SIZE:-256m}
NFS_SIZE=${WL_NFS_SIZE:-128m}
BLOCK=${WL_BLOCK:-1m}
EXPORT_BASE=${WL_EXPORT_BASE:-/var/tmp}
GANESHA=$ROOT/tests/lab/ganesha.sh

WORK='' MNT='' EXPORT='' GSTATE=''
cleanup() {
	if [ -n "$GSTATE" ]; then
		bash "$GANESHA" stop "$GSTATE" >/dev/null 2>&1 || echo "workloads bench: ganesha stop failed" >&2
	fi
	[ -n "$EXPORT" ] && rm -rf "$EXPORT"
	if [ -n "$MNT" ]; then
		grep -qs " $MNT tmpfs " /proc/mounts && { umount "$MNT" || echo "workloads bench: could not unmount $MNT" >&2; }
		rmdir "$MNT" 2>/dev/null
	fi
	[ -n "$WORK" ] && rm -rf "$WORK"
}
trap cleanup EXIT
trap 'exit 130' INT TERM HUP
BENCH="workloads bench"
. tests/bench/lib.sh
. tests/mpienv.sh

[ "$(id -u)" = 0 ] || die "needs root (a tmpfs mount, nfs-ganesha)"
[ -x "$ST_SRC" ] || die "no stcluster at $ST_SRC (make)"
[ -n "$IOR_BIN" ] && [ -x "$IOR_BIN/mdtest" ] && [ -x "$IOR_BIN/ior" ] ||
	die "give IOR_BIN=DIR holding ior and mdtest (tests/bench/ior-build.sh builds them)"
WORK=$(mktemp -d /tmp/stcluster-wl.XXXXXX) || die "mktemp"
ST=$WORK/stcluster
cp "$ST_SRC" "$ST" || die "copy $ST_SRC"
MNT=$(mktemp -d /tmp/stcluster-wl-fs.XXXXXX) || die "mktemp"
mount -t tmpfs -o size=2g tmpfs "$MNT" || die "mount a tmpfs on $MNT"
MPI="mpirun --bind-to none -np $NP"

# ---- one measurement each; every figure into $WORK/results ------------------

# mdtest_run KEY FILES MODE ARGS...: its rates (mean of its one iteration);
# MODE unique (-F -u: the four file rates), shared (-F: one directory) or
# dirs (-D -u: directory creation, stat, removal)
mdtest_run() {
	key=$1 files=$2 mode=$3
	shift 3
	case $mode in
	unique) set -- "$@" -F -u ;;
	shared) set -- "$@" -F ;;
	dirs) set -- "$@" -D -u ;;
	esac
	$MPI "$IOR_BIN/mdtest" "$@" -n "$files" -i 1 >"$WORK/md.out" 2>&1 ||
		{ echo "  mdtest failed: $(tail -3 "$WORK/md.out")"; return; }
	if [ "$mode" = dirs ]; then
		ops="creation:mkdir stat:dirstat removal:rmdir" what=Directory
	else
		ops="creation:create stat:stat read:open removal:remove" what=File
	fi
	for op in $ops; do
		putv "$key.md.${op#*:}" "$(awk -v w="${op%:*}" -v k="$what" '$1 == k && $2 == w { print $5 }' "$WORK/md.out")"
	done
}

# st_meta KEY FILES PHASES ARGS...: stcluster's metadata phases, ops/s, and
# on NFS its calls per operation (into $WORK/calls.KEY, the last repeat's)
st_meta() {
	key=$1 files=$2 phases=$3
	shift 3
	rm -f "$WORK/m.db"
	$MPI "$ST" "$@" --phases "$phases" --files "$files" --threads 1 --reorder off \
		--bind none --db "$WORK/m.db" --quiet >"$WORK/st.out" 2>&1 ||
		{ echo "  stcluster failed: $(tail -3 "$WORK/st.out")"; return; }
	for p in $(echo "$phases" | tr , ' '); do
		putv "$key.st.$p" "$(stq "$WORK/m.db" "SELECT iops FROM phase_summary WHERE phase = '$p' AND errors = 0")"
	done
	"$ST" query --db "$WORK/m.db" --format csv "SELECT p.phase || ': ' || group_concat(r.op || ' ' || printf('%.2f', r.n * 1.0 / p.ops), '; ')
		FROM phase_summary p JOIN (SELECT combo_id, phase, op, SUM(ops) AS n FROM rpc_stat
		WHERE op <> 'xprt' AND ops > 0 GROUP BY 1, 2, 3 ORDER BY n DESC) r USING (combo_id, phase)
		GROUP BY p.phase ORDER BY p.phase_order" 2>/dev/null | sed 1d >"$WORK/calls.$key"
}

# ior_run KEY ARGS...: write and read MB/s (10^6 bytes/s; IOR says MiB/s)
ior_run() {
	key=$1
	shift
	$MPI "$IOR_BIN/ior" "$@" -w -r -C -e -b "$SIZE_NOW" -t "$BLOCK" -s 1 -i 1 -O summaryFormat=CSV \
		>"$WORK/ior.out" 2>&1 || { echo "  ior failed: $(tail -3 "$WORK/ior.out")"; return; }
	for d in write read; do
		putv "$key.ior.$d" "$(awk -F, -v d=$d '$1 == d { printf "%.1f\n", $2 * 1.048576 }' "$WORK/ior.out")"
	done
}

# st_shared KEY ARGS...: stcluster's shared file, write and read MB/s
st_shared() {
	key=$1
	shift
	rm -f "$WORK/s.db"
	$MPI "$ST" "$@" --layout shared --access segmented --block "$BLOCK" --size "$SIZE_NOW" --threads 1 \
		--phases write,read --fsync on --reorder on --bind none --db "$WORK/s.db" --quiet \
		>"$WORK/st.out" 2>&1 || { echo "  stcluster failed: $(tail -3 "$WORK/st.out")"; return; }
	for d in write read; do
		putv "$key.st.$d" "$(stq "$WORK/s.db" "SELECT agg_mbps FROM phase_summary WHERE phase = '$d' AND errors = 0")"
	done
}

# cap NAME CMD...: CMD with the calls to the ganesha captured into
# $WORK/cap.NAME.pcap (the last repeat only: the others run CMD alone)
cap() {
	name=$1
	shift
	if [ "$rep" != "$REPS" ] || ! command -v tcpdump >/dev/null; then
		"$@"
		return
	fi
	tcpdump -i lo -s 0 -B 262144 -U -w "$WORK/cap.$name.pcap" "tcp dst port $port" >/dev/null \
		2>"$WORK/cap.$name.err" &
	cpid=$!
	for _ in 1 2 3 4 5 6 7 8 9 10; do [ -s "$WORK/cap.$name.pcap" ] && break; sleep 0.2; done
	sleep 0.3
	"$@"
	# what the kernel holds for it is read before it stops (SIGINT: it drains and says what it dropped)
	sleep 1
	kill -INT "$cpid" 2>/dev/null
	wait "$cpid" 2>/dev/null
}

# ---- the table of one section ------------------------------------------------

# show KEY OTHER LABEL UNIT OPS...: medians, ranges, ratio, standing
show() {
	key=$1 other=$2 label=$3 unit=$4
	shift 4
	printf '  %-8s %16s %16s %7s\n' "$label" "stcluster $unit" "$other $unit" "st/$other"
	for op in "$@"; do
		case $key in *ior*) a="$key.st.$op" b="$key.ior.$op" ;; *) a="$key.st.$op" b="$key.md.$op" ;; esac
		r=$(ratio "$(med "$a")" "$(med "$b")")
		printf '  %-8s %7s [%s] %7s [%s] %7s %s\n' "$op" "$(fmt "$(med "$a")")" "$(range "$a")" \
			"$(fmt "$(med "$b")")" "$(range "$b")" "$r" "$(standing "$a" "$b")"
	done
}

echo "stcluster $($ST --version 2>/dev/null | head -1) against $IOR_BIN (mdtest, ior); $NP ranks, $REPS repeats; $(load)"

# ---- 1a, 2a: the tmpfs -------------------------------------------------------
SIZE_NOW=$SIZE
for rep in $(seq 1 "$REPS"); do
	pair_load tmpfs "tmpfs repeat $rep: before"
	for tool in $(rot "st other" $((rep % 2))); do
		rm -rf "$MNT"/*
		if [ "$tool" = st ]; then
			st_meta tmpfs "$FILES" create,stat,open,remove --target "$MNT"
			st_shared tmpfs.ior --target "$MNT" --direct off
			rm -rf "$MNT"/*
			st_meta tmpfs.shared "$FILES" create,stat,open,remove --target "$MNT" --dir-mode shared
			st_meta tmpfs.dirs "$FILES" mkdir,dirstat,rmdir --target "$MNT"
		else
			mdtest_run tmpfs "$FILES" unique -d "$MNT/md"
			ior_run tmpfs.ior -a POSIX -o "$MNT/iorfile"
			rm -rf "$MNT"/*
			mdtest_run tmpfs.shared "$FILES" shared -d "$MNT/mds"
			mdtest_run tmpfs.dirs "$FILES" dirs -d "$MNT/mdd"
		fi
	done
	pair_load tmpfs "tmpfs repeat $rep: after"
done
rm -rf "$MNT"/*
echo
echo "1a. metadata on a tmpfs: $NP tasks x $FILES empty files, ops/s, median [min-max] of $REPS (load $(lrange tmpfs))"
show tmpfs mdtest op ops/s create stat open remove
echo
echo "2a. one shared file on a tmpfs: $NP tasks x $SIZE in $BLOCK calls, MB/s (buffered, fsync, read by the next task)"
show tmpfs.ior ior phase MB/s write read
echo
echo "1c. on the tmpfs: $NP tasks x $FILES files in one shared directory (--dir-mode shared; mdtest -F), then $FILES directories a task (mdtest -D -u), ops/s"
show tmpfs.shared mdtest op ops/s create stat open remove
show tmpfs.dirs mdtest op ops/s mkdir dirstat rmdir

# ---- 1b, 2b: one nfs-ganesha -------------------------------------------------
if ! command -v ganesha.nfsd >/dev/null; then
	echo
	echo "1b, 2b: skipped: nfs-ganesha is not installed"
	exit 0
fi
EXPORT=$(mktemp -d "$EXPORT_BASE/stcluster-wl-export.XXXXXX") || die "mktemp under $EXPORT_BASE"
GSTATE=$WORK/ganesha
port=$((22001 + 2 * ($(od -An -N2 -tu2 /dev/urandom) % 400)))
GANESHA_NFS_PORT=$port GANESHA_MNT_PORT=$((port - 1)) bash "$GANESHA" start "$GSTATE" "$EXPORT" 127.0.0.1 \
	>"$WORK/g.out" 2>&1 || die "ganesha: $(tail -3 "$WORK/g.out")"
URL=$(bash "$GANESHA" url "$GSTATE" 3) || die "ganesha url"
# IOR's LIBNFS backend mounts the URL's directory part: the export, with a slash
URL_IOR=$(echo "$URL" | sed 's|/export?|/export/?|')
SIZE_NOW=$NFS_SIZE
for rep in $(seq 1 "$REPS"); do
	pair_load nfs "nfs repeat $rep: before"
	for tool in $(rot "st other" $((rep % 2))); do
		if [ "$tool" = st ]; then
			cap st.nfs st_meta nfs "$NFS_FILES" create,stat,open,remove --engine libnfs --target "$URL"
			st_shared nfs.ior --engine libnfs --target "$URL"
			cap st.nfs.shared st_meta nfs.shared "$NFS_FILES" create,stat,open,remove --engine libnfs \
				--target "$URL" --dir-mode shared
			cap st.nfs.dirs st_meta nfs.dirs "$NFS_FILES" mkdir,dirstat,rmdir --engine libnfs --target "$URL"
		else
			cap md.nfs mdtest_run nfs "$NFS_FILES" unique -a LIBNFS --libnfs.url="$URL_IOR" -d "/md$rep"
			ior_run nfs.ior -a LIBNFS --libnfs.url="$URL_IOR" -o "/iorfile$rep"
			cap md.nfs.shared mdtest_run nfs.shared "$NFS_FILES" shared -a LIBNFS --libnfs.url="$URL_IOR" \
				-d "/mds$rep"
			cap md.nfs.dirs mdtest_run nfs.dirs "$NFS_FILES" dirs -a LIBNFS --libnfs.url="$URL_IOR" -d "/mdd$rep"
		fi
	done
	pair_load nfs "nfs repeat $rep: after"
done
echo
echo "1b. metadata over NFSv3 (libnfs, one nfs-ganesha on loopback): $NP tasks x $NFS_FILES files, ops/s (load $(lrange nfs))"
show nfs mdtest op ops/s create stat open remove
echo
echo "2b. one shared file over NFSv3 (libnfs): $NP tasks x $NFS_SIZE in $BLOCK calls, MB/s (COMMIT, read by the next task)"
show nfs.ior ior phase MB/s write read
echo
echo "1d. over NFSv3 (libnfs): $NP tasks x $NFS_FILES files in one shared directory, then $NFS_FILES directories a task, ops/s"
show nfs.shared mdtest op ops/s create stat open remove
show nfs.dirs mdtest op ops/s mkdir dirstat rmdir
echo
echo "stcluster's calls per operation by its own count (rpc_stat, the last repeat):"
for k in nfs nfs.shared nfs.dirs; do
	sed "s/^/  $k  /" "$WORK/calls.$k" 2>/dev/null
done
echo
echo "calls on the wire in the last repeat (tcpdump on lo, every phase of the run; per op: over $NP x $NFS_FILES"
echo "operations a phase x its phases; mdtest -a LIBNFS resolves the whole path of each operation):"
for k in nfs nfs.shared nfs.dirs; do
	case $k in *dirs) nph=3 ;; *) nph=4 ;; esac
	for t in st md; do
		[ -s "$WORK/cap.$t.$k.pcap" ] || { echo "  $k $t: no capture (tcpdump missing?)"; continue; }
		drop=$(awk '/dropped by kernel/ { print $1 }' "$WORK/cap.$t.$k.err")
		[ "${drop:-0}" = 0 ] || echo "  $k $t: tcpdump says the kernel dropped $drop packets: the count is short"
		python3 "$ROOT/tests/bench/rpc_calls.py" "$WORK/cap.$t.$k.pcap" |
			awk -v k="$k" -v t="$([ $t = st ] && echo stcluster || echo mdtest)" -v ops=$((NP * NFS_FILES * nph)) '
			{ n += $2; s = s sprintf("%s%s %d", NR > 1 ? ", " : "", $1, $2) }
			END { printf "  %-10s %-9s %6.2f calls per op: %s\n", k, t, n / ops, s }'
	done
done
echo
echo "$(load)"
