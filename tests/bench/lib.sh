# tests/bench/lib.sh - sourced by the benchmark scripts (run.sh, nfs.sh,
# lab.sh): the results file and the figures made from it. Each script sets
# BENCH (its name, for messages) and WORK (its scratch directory) first.

die() { echo "$BENCH: $*" >&2; exit 1; }

# the 1-minute load average, flagged when other work competes for the CPUs
load() {
	awk -v n="$(nproc)" '{ printf "load %s%s", $1, ($1 > n / 2 ? " (BUSY: other work competes, figures skewed)" : "") }' /proc/loadavg
}

# bytes of a size such as 512m, 4k, 1g (binary, like stcluster)
to_bytes() {
	echo "$1" | awk '{ n = $1 + 0; u = tolower(substr($1, length($1)));
		m = u == "k" ? 1024 : u == "m" ? 1048576 : u == "g" ? 1073741824 : 1;
		printf "%.0f\n", n * m }'
}

# append "key value" to the results file
put() { echo "$1 ${2:-nan}" >> "$WORK/results"; }
# the same for a figure: anything but a positive number is stored as missing
putv() { put "$1" "$(awk -v v="${2:-nan}" 'BEGIN { print (v ~ /^[0-9.eE+-]+$/ && v + 0 > 0) ? v : "nan" }')"; }

# median of the values stored under a key ("nan" if none)
med() {
	awk -v k="$1" '$1 == k && $2 != "nan" { print $2 }' "$WORK/results" | sort -g |
		awk '{ v[NR] = $1 } END { if (!NR) print "nan";
			else if (NR % 2) print v[(NR + 1) / 2];
			else print (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}

# "min-max" of the values stored under a key
range() {
	awk -v k="$1" '$1 == k && $2 != "nan" { v = $2 + 0; if (!n++ || v < lo) lo = v;
		if (n == 1 || v > hi) hi = v } END { if (n) printf "%.0f-%.0f", lo, hi; else printf "-" }' \
		"$WORK/results"
}

# sum of the values of a key (0 if none)
total() { awk -v k="$1" '$1 == k && $2 != "nan" { s += $2 } END { print s + 0 }' "$WORK/results"; }

# a / b to 2 decimals, "-" when either is missing
ratio() {
	awk -v a="$1" -v b="$2" 'BEGIN { if (a == "nan" || b == "nan" || b + 0 == 0) print "-";
		else printf "%.2f\n", a / b }'
}

# "*" when the ranges of two keys overlap (the difference is within noise);
# missing values take no part
overlap() {
	awk -v a="$1" -v b="$2" '($1 == a || $1 == b) && $2 != "nan" { v = $2 + 0; k = $1;
		if (!(k in lo) || v < lo[k]) lo[k] = v; if (!(k in hi) || v > hi[k]) hi[k] = v }
		END { if ((a in lo) && (b in lo) && lo[a] <= hi[b] && lo[b] <= hi[a]) print "*" }' "$WORK/results"
}

# count KEY: how many figures are stored under KEY
count() { awk -v k="$1" '$1 == k && $2 != "nan" { n++ } END { print n + 0 }' "$WORK/results"; }

# standing A B [MORE LESS]: how the figures under key A stand to those under key B: "within
# noise" when their ranges overlap, else MORE (ahead) or LESS (behind) by the medians, a
# claim made from 5 repeats of each at least ("few repeats" below); "-" when either is missing
standing() {
	if [ "$(med "$1")" = nan ] || [ "$(med "$2")" = nan ]; then
		echo "-"
	elif [ "$(overlap "$1" "$2")" = "*" ]; then
		echo "within noise"
	elif [ "$(count "$1")" -lt 5 ] || [ "$(count "$2")" -lt 5 ]; then
		echo "few repeats"
	else
		awk -v a="$(med "$1")" -v b="$(med "$2")" -v m="${3:-ahead}" -v l="${4:-behind}" \
			'BEGIN { print (a + 0 > b + 0 ? m : l) }'
	fi
}

# keep_load KEY: the 1-minute load kept under KEY.load (before and after each pair or
# repeat of a bench; lrange gives their range)
keep_load() { put "$1.load" "$(cut -d' ' -f1 /proc/loadavg)"; }

# pair_load KEY TEXT: keep_load KEY, and the load printed after TEXT
pair_load() {
	keep_load "$1"
	echo "  $2 [$(load)]"
}

# lrange KEY: the "min-max" (2 decimals) of the loads keep_load kept under KEY
lrange() {
	awk -v k="$1.load" '$1 == k { v = $2 + 0; if (!n++ || v < lo) lo = v; if (n == 1 || v > hi) hi = v }
		END { if (n) printf "%.2f-%.2f", lo, hi; else printf "-" }' "$WORK/results"
}

# cell KEY: "median [min-max]"
cell() { echo "$(fmt "$(med "$1")") [$(range "$1")]"; }

fmt() { awk -v v="$1" 'BEGIN { if (v == "nan") print "-"; else printf "%.0f\n", v }'; }

# rotate a word list by k: rot "a b c" 1 -> "b c a"
rot() { echo "$1" | awk -v k="$2" '{ for (i = 0; i < NF; i++) printf "%s ", $((i + k) % NF + 1); print "" }'; }

# one value from an stcluster store (csv, header dropped)
stq() { "$ST" query --db "$1" "$2" --format csv 2>/dev/null | sed 1d | head -n 1; }

# ns values on stdin -> "p50 / pHI" in us (HI a fraction such as 0.9, or max)
q_us() {
	sort -g | awk -v hi="$1" '{ v[NR] = $1 } END { if (!NR) { print "-"; exit }
		a = int(0.5 * NR + 0.999999); if (a < 1) a = 1
		if (hi == "max") b = NR; else { b = int(hi * NR + 0.999999); if (b < 1) b = 1 }
		printf "%.0f / %.0f\n", v[a] / 1000, v[b] / 1000 }'
}

# A lab of the bench's own (tests/lab/lab.sh at $LAB), in $WORK/lab, with a prefix TAG<n> and a
# subnet no other lab on this machine has: own_lab TAG LAB_UP_ARGS... brings it up (PREFIX,
# SUBNET and LABDIR set; lab.sh's lines indented) and dies unless it came up with its NFS URL;
# own_lab_down (in the bench's cleanup) takes it down if it came up.
own_lab() {
	tag=$1
	shift
	n=$(($$ % 100000))
	while [ -e "/run/netns/$tag$n-br" ] || [ -e "/run/netns/$tag$n-h" ]; do n=$((n + 1)); done
	PREFIX=$tag$n
	SUBNET=10.$((120 + $$ % 100)).$(($$ / 100 % 250 + 1))
	LABDIR=$WORK/lab
	"$LAB" up "$LABDIR" --prefix "$PREFIX" --subnet "$SUBNET" "$@" | sed 's/^/  /'
	[ -f "$LABDIR/journal" ] && [ -f "$LABDIR/nfs_url" ] || die "lab.sh up failed"
}
own_lab_down() {
	if [ -n "${LABDIR:-}" ] && [ -f "$LABDIR/journal" ]; then
		"$LAB" down "$LABDIR" >/dev/null || echo "$BENCH: lab.sh down $LABDIR failed" >&2
	fi
}
