#!/bin/sh
# tests/layout.sh [DIR] - the layout's dependency rule, checked over the
# #include lines of DIR's common/, worker/ and coordinator/ (default: the
# repository). Prints one line per include that breaks it and exits 1, or
# prints "layout: N includes, rule holds" and exits 0.
#
# The rule (README.md, Layout, states it in the same words; t_build.sh
# checks the two agree):
RULE='coordinator/{main,cli,man}.c -> any room below
coordinator/report/ -> coordinator/store/, common/
coordinator/job/ -> coordinator/store/, worker/, common/
coordinator/store/ -> common/
worker/ -> common/
common/ -> nothing
<mpi.h>: coordinator/job/ only
<sqlite3.h>: coordinator/store/ and coordinator/report/ only
<openssl/*>: coordinator/store/ only
<nfsc/*>: worker/engine_libnfs.c, worker/lnfs_rpc.c, worker/lnfs.h only
<liburing.h>, <libaio.h>: worker/posix_aio.c only
<hwloc.h>: worker/ and coordinator/job/ only'
set -u
[ "${1:-}" = --rule ] && { echo "$RULE"; exit 0; }
cd "${1:-$(dirname "$0")/..}" || exit 2

# room PATH: the room a file belongs to
room() {
	case "$1" in
	coordinator/job/*) echo job ;;
	coordinator/store/*) echo store ;;
	coordinator/report/*) echo report ;;
	coordinator/*/*) echo unknown ;;
	coordinator/*) echo top ;;
	worker/*) echo worker ;;
	common/*) echo common ;;
	*) echo outside ;;
	esac
}

# allowed FROM TO: may room FROM include a header of room TO?
allowed() {
	[ "$1" = "$2" ] && return 0
	case "$1:$2" in
	top:job | top:store | top:report | top:worker | top:common) return 0 ;;
	report:store | report:common) return 0 ;;
	job:store | job:worker | job:common) return 0 ;;
	store:common | worker:common) return 0 ;;
	esac
	return 1
}

# system FILE ROOM HEADER: may FILE include <HEADER>?
system_ok() {
	case "$3" in
	mpi.h) [ "$2" = job ] ;;
	sqlite3.h) [ "$2" = store ] || [ "$2" = report ] ;;
	openssl/*) [ "$2" = store ] ;;
	nfsc/*) case "$1" in worker/engine_libnfs.c | worker/lnfs_rpc.c | worker/lnfs.h) ;; *) false ;; esac ;;
	liburing.h | libaio.h) [ "$1" = worker/posix_aio.c ] ;;
	hwloc.h) [ "$2" = worker ] || [ "$2" = job ] ;;
	*) true ;;
	esac
}

bad=0
count=0
for f in $(find common worker coordinator -name '*.[ch]' | sort); do
	from=$(room "$f")
	if [ "$from" = unknown ]; then
		echo "$f: in no room of the layout (common, worker, coordinator/{job,store,report})"
		bad=$((bad + 1))
		continue
	fi
	dir=$(dirname "$f")
	for inc in $(sed -n 's/^#[ \t]*include[ \t]*"\([^"]*\)".*/\1/p' "$f"); do
		count=$((count + 1))
		[ "$inc" = version.h ] && [ "$f" = coordinator/main.c -o "$f" = coordinator/store/store.c ] && continue
		target=$(realpath -m --relative-to=. "$dir/$inc")
		if [ ! -f "$target" ]; then
			echo "$f: includes \"$inc\", which is no file of the tree"
			bad=$((bad + 1))
			continue
		fi
		to=$(room "$target")
		if ! allowed "$from" "$to"; then
			echo "$f: includes $target: $from/ must not depend on $to/"
			bad=$((bad + 1))
		fi
	done
	for inc in $(sed -n 's/^#[ \t]*include[ \t]*<\([^>]*\)>.*/\1/p' "$f"); do
		count=$((count + 1))
		if ! system_ok "$f" "$from" "$inc"; then
			echo "$f: includes <$inc>, which $from/ must not"
			bad=$((bad + 1))
		fi
	done
done
if [ $bad -gt 0 ]; then
	echo "layout: $bad includes break the rule (sh tests/layout.sh --rule)"
	exit 1
fi
echo "layout: $count includes, rule holds"
