#!/bin/bash
# run as "sh FILE" (dash): the same script under bash, which it needs
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
# shellcheck disable=SC2015,SC2016
# Self-test of tests/lab/lab.sh (root; no C needed): two labs side by side, each running an
# MPI job across all its hosts; the launcher's unknown-host error; rate limits set/removed
# (measured with iperf3 when installed); down leaves nothing behind. Prints timings.
#
#   tests/lab/selftest.sh [WORK_DIR]      # default: a fresh mktemp -d, removed at the end
#
# With nfs-ganesha installed the first lab also exports a directory (--export).
set -u
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
LAB=$here/lab.sh
# the first lab's subnet is the ladder's namespace lab's (t_lab): run this under "$STLAB_LOCK"
. "$here/names.sh"
work=${1:-}
own_work=0
if [ -z "$work" ]; then work=$(mktemp -d /tmp/labselftest.XXXXXX) || exit 1; own_work=1; fi
fails=0
ok() { echo "ok   $*"; }
bad() { echo "FAIL $*"; fails=$((fails + 1)); }
ms() { local t=${EPOCHREALTIME/./}; echo $((t / 1000)); }
A=$work/a B=$work/b PA=st$$a PB=st$$b
cleanup() {
	"$LAB" down "$A" >/dev/null 2>&1
	"$LAB" down "$B" >/dev/null 2>&1
	[ $own_work = 0 ] || rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 130' INT TERM HUP
[ "$(id -u)" = 0 ] || { echo "selftest: needs root" >&2; exit 2; }

export_args=()
if command -v ganesha.nfsd >/dev/null && command -v nfs-ls >/dev/null; then
	mkdir -p "$work/export" && export_args=(--export "$work/export")
fi

t0=$(ms)
if "$LAB" up "$A" --clients 3 --prefix "$PA" --subnet "$STLAB_NS_NET" "${export_args[@]}" >/dev/null; then
	ok "lab A up ($(($(ms) - t0)) ms${export_args[*]:+, with nfs-ganesha})"
else
	bad "lab A up"; exit 1
fi
t0=$(ms)
if "$LAB" up "$B" --clients 2 --servers 2 --prefix "$PB" --subnet 10.77.202 --rate 100mbit >/dev/null; then
	ok "lab B up ($(($(ms) - t0)) ms)"
else
	bad "lab B up"; exit 1
fi

# both labs run an MPI job at the same time; each rank must report its own host
t0=$(ms)
"$LAB" run "$A" -- mpirun -hostfile "$A/hostfile" -np 4 hostname > "$work/a.out" 2>&1 &
pa=$!
"$LAB" run "$B" -- mpirun -hostfile "$B/hostfile" -np 4 hostname > "$work/b.out" 2>&1 &
pb=$!
wait $pa; ra=$?
wait $pb; rb=$?
el=$(($(ms) - t0))
want_a=$(printf '%s\n' "$PA-c1" "$PA-c2" "$PA-c3" "$PA-s1")
want_b=$(printf '%s\n' "$PB-c1" "$PB-c2" "$PB-s1" "$PB-s2")
[ $ra = 0 ] && [ "$(sort "$work/a.out")" = "$want_a" ] && ok "lab A: mpirun -np 4 hostname on 4 hosts" ||
	{ bad "lab A mpirun (rc $ra)"; cat "$work/a.out"; }
[ $rb = 0 ] && [ "$(sort "$work/b.out")" = "$want_b" ] && ok "lab B: mpirun -np 4 hostname on 4 hosts" ||
	{ bad "lab B mpirun (rc $rb)"; cat "$work/b.out"; }
echo "     (both jobs at once: $el ms)"
t0=$(ms)
"$LAB" run "$A" -- mpirun -hostfile "$A/hostfile" -np 4 true && ok "4-host mpirun start alone: $(($(ms) - t0)) ms" ||
	bad "mpirun true"

# the launcher
out=$("$A/launcher" -x -o BatchMode=yes "$PA-c2" 'echo $(hostname) "a b"' 2>&1)
[ "$out" = "$PA-c2 a b" ] && ok "launcher runs sh -c of its words on the host" || bad "launcher: '$out'"
out=$("$A/launcher" nosuchhost true 2>&1); rc=$?
[ $rc -ne 0 ] && [[ $out == "launcher: unknown host nosuchhost"* ]] && ok "launcher: unknown host fails (rc $rc)" ||
	bad "launcher unknown host: rc $rc '$out'"
out=$("$A/launcher" "$PB-c1" true 2>&1); rc=$?
[ $rc -ne 0 ] && ok "lab A's launcher does not know lab B's hosts" || bad "cross-lab launcher: rc $rc"
# the labs do not see each other
if "$LAB" run "$A" -- bash -c ': 3<>/dev/tcp/10.77.202.1/9' 2>/dev/null; then
	bad "lab A reaches lab B"
else
	ok "lab A cannot reach lab B"
fi

# rate limits
q=$(tc -n "$PB-s1" qdisc show dev eth0; tc -n "$PB-br" qdisc show dev v-s1)
[ "$(grep -c 'tbf.*rate 100Mbit' <<< "$q")" = 2 ] && ok "lab B: both ends of the server veth shaped" || bad "rate: $q"
"$LAB" rate "$B" none >/dev/null
q=$(tc -n "$PB-s2" qdisc show dev eth0; tc -n "$PB-br" qdisc show dev v-s2)
grep -q tbf <<< "$q" && bad "rate none left: $q" || ok "rate none removes the shaping"
if command -v iperf3 >/dev/null; then
	iperf() { # LAB CLIENT SERVER ADDR [-R]: Mbit/s received by the other end
		"$LAB" run "$1" --on "$3" -- iperf3 -s -1 -B "$4" >/dev/null 2>&1 &
		local sp=$!
		sleep 0.7
		"$LAB" run "$1" --on "$2" -- iperf3 -c "$4" -t 4 ${5:+"$5"} -J 2>/dev/null |
			python3 -c 'import json,sys; print(round(json.load(sys.stdin)["end"]["sum_received"]["bits_per_second"]/1e6))'
		wait $sp 2>/dev/null
	}
	s1=$(awk '$3 == "server" {print $2; exit}' "$B/hosts")
	u=$(iperf "$B" "$PB-c1" "$PB-s1" "$s1"); ur=$(iperf "$B" "$PB-c1" "$PB-s1" "$s1" -R)
	"$LAB" rate "$B" 200mbit >/dev/null
	w=$(iperf "$B" "$PB-c1" "$PB-s1" "$s1"); r=$(iperf "$B" "$PB-c1" "$PB-s1" "$s1" -R)
	echo "     iperf3 unshaped: client->server ${u:-?} Mbit/s, server->client ${ur:-?} Mbit/s"
	echo "     iperf3 200mbit:  client->server ${w:-?} Mbit/s, server->client ${r:-?} Mbit/s"
	for v in "${w:-0}" "${r:-0}"; do
		[ "$v" -ge 170 ] && [ "$v" -le 200 ] && ok "shaped throughput $v Mbit/s within 170..200" ||
			bad "shaped throughput $v Mbit/s not within 170..200"
	done
else
	echo "     (no iperf3: throughput not measured; apt-get install iperf3)"
fi

# down: nothing left
for l in A B; do
	d=${!l}
	t0=$(ms)
	"$LAB" down "$d" >/dev/null && ok "lab $l down ($(($(ms) - t0)) ms)" || bad "lab $l down"
done
left=$(ip netns list | grep -E "^($PA|$PB)-")
[ -z "$left" ] && ok "no namespaces left" || bad "namespaces left: $left"
grep -q " $work/" /proc/self/mountinfo && bad "mounts left under $work" || ok "no mounts left"
[ ! -e "$A" ] && [ ! -e "$B" ] && ok "lab dirs removed" || bad "lab dirs left: $(ls -A "$A" "$B" 2>&1)"
"$LAB" down "$A" >/dev/null && ok "down again is a no-op" || bad "second down"

[ $fails = 0 ] && echo "selftest: all passed" || echo "selftest: $fails failed"
[ $fails = 0 ]
