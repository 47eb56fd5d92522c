#!/bin/sh
# embed.sh NAME FILE [NAME FILE ...]: print C definitions of NAME as the
# text of FILE, so the binary carries sql/*.sql.
set -eu
while [ $# -ge 2 ]; do
	printf 'const char %s[] =\n' "$1"
	sed -e 's/\\/\\\\/g' -e 's/"/\\"/g' -e 's/^/\t"/' -e 's/$/\\n"/' "$2"
	printf ';\n'
	shift 2
done
