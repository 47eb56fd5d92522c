#!/bin/sh
# tests/size.sh - the size rule of the product's code (issue 18): no file of
# common/, worker/ or coordinator/ over 1,000 lines, no function over 100,
# and none of the phase script (coordinator/job/) over 80. A function is
# counted from its opening "{" at column 0 to the "}" at column 0 that ends
# it (the project's style; an initializer's "};" is not a function). Prints
# one line per breach and exits 1 if there is any; with -l, prints the
# figures instead (largest files, functions over 80 and 100).
#   sh tests/size.sh [-l] [TREE]   (TREE: the top of a tree, default this one)
set -u
list=0
[ "${1:-}" = -l ] && { list=1; shift; }
cd "${1:-$(dirname "$0")/..}" || exit 2
files=$(find common worker coordinator -name '*.[ch]' | sort)

funcs() {
	for f in $files; do
		awk -v f="$f" '
			/^\{/ { start = FNR; name = prev }
			/^\}$/ && start { print FNR - start + 1 "\t" f ":" start "\t" name; start = 0 }
			{ if ($0 !~ /^[ \t]/ && $0 != "{") prev = $0 }' "$f"
	done
}

if [ $list = 1 ]; then
	echo "largest files:"; wc -l $files | sort -rn | sed -n '2,6p'
	echo "functions over 80 lines: $(funcs | awk -F'\t' '$1 > 80' | wc -l)"
	echo "functions over 100 lines: $(funcs | awk -F'\t' '$1 > 100' | wc -l)"
	for d in common worker coordinator; do
		echo "$d: $(find $d -name '*.[ch]' -exec cat {} + | wc -l) lines"
	done
	exit 0
fi

bad=0
for f in $files; do
	n=$(wc -l <"$f")
	[ "$n" -le 1000 ] || { echo "$f: $n lines (at most 1,000)"; bad=1; }
done
over=$(funcs | awk -F'\t' '{ lim = ($2 ~ /^coordinator\/job\//) ? 80 : 100 }
	$1 > lim { print $2 ": " $1 " lines (at most " lim "): " $3 }')
[ -z "$over" ] || { echo "$over"; bad=1; }
exit $bad
