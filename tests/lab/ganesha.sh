#!/bin/bash
# run as "sh FILE" (dash): the same script under bash, which it needs
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
# Private nfs-ganesha server (NFSv3 + NFSv4, FSAL VFS) for the stcluster test lab.
#
#   ganesha.sh start STATE_DIR EXPORT_DIR [BIND_ADDR]   # BIND_ADDR default 127.0.0.1
#   ganesha.sh stop  STATE_DIR
#   ganesha.sh url   STATE_DIR [VERSION]                # VERSION default 3
#
# Environment:
#   GANESHA_NFS_PORT      NFS port (default 2049)
#   GANESHA_MNT_PORT      MOUNT port (default 20048)
#   GANESHA_WAIT          seconds start waits for the server to serve (default 15)
#   GANESHA_STOP_WAIT     seconds stop waits after SIGTERM before SIGKILL (default 6)
#   GANESHA_ATTR_EXPIRATION  export Attr_Expiration_Time (default 0: no attribute/dirent
#                         caching, so files made or removed directly in EXPORT_DIR show over
#                         NFS at once; ganesha's own default, 60, hides them for about a minute)
#   GANESHA_RPCBIND_NET   "private" (default): rpcbind runs in its own empty network namespace;
#                         ganesha still registers with it through the private /run/rpcbind.sock,
#                         and nothing listens on port 111, so any number of instances (and a
#                         host rpcbind) coexist in one network namespace. Clients must use the
#                         fixed ports (the url command's nfsport/mountport do exactly that).
#                         "shared": rpcbind listens on port 111 (0.0.0.0 and [::]) in the
#                         caller's network namespace, so rpcinfo works. Only the first such
#                         rpcbind in a network namespace gets port 111: a later one fails to bind
#                         it silently (it logs to syslog only), keeps running on its unix socket,
#                         its ganesha still starts and serves, but port 111 answers with the
#                         first instance's registrations (and vanishes when that one stops).
#                         start refuses when rpcbind does not listen on port 111 within 5 s
#                         (without netbase's /etc/services it binds no port at all).
#
# Layout: the server runs in a private mount namespace (unshare --mount) with a private tmpfs
# on /run (rpcbind socket/lock, /run/ganesha), in its own session (setsid). The process tree is
#   wrapper sh (unshare'd) -> rpcbind -f, ganesha.nfsd -F
# The wrapper reaps both and stops rpcbind when ganesha exits. Everything else lives in
# STATE_DIR: ganesha.conf, ganesha.log, ganesha.pid, recovery/, lab.log (stdout/stderr of the
# wrapper and rpcbind), pids (one PID per line: ganesha, rpcbind, wrapper) and pids.info
# (role pid starttime, used by stop to never signal a recycled PID).
set -u

prog=${0##*/}
die() { echo "$prog: $*" >&2; exit 1; }
usage() {
	cat >&2 <<EOF
usage: $prog start STATE_DIR EXPORT_DIR [BIND_ADDR]
       $prog stop  STATE_DIR
       $prog url   STATE_DIR [VERSION]
EOF
	exit 2
}

# proc_start PID: set _start to the starttime (field 22 of /proc/PID/stat) of a live, non-zombie
# process; fail otherwise. No forks: stop polls this often.
proc_start() {
	local st
	local -a fl
	_start=
	{ read -r st < "/proc/$1/stat"; } 2>/dev/null || return 1
	# fields from 3 on (comm, field 2, may contain spaces or parens): fl[0]=state, fl[19]=starttime
	read -r -a fl <<< "${st##*) }"
	case ${fl[0]} in Z | X) return 1 ;; esac
	_start=${fl[19]}
}

# alive PID STARTTIME: the very process recorded at start is still running (not a zombie)
alive() {
	proc_start "$1" && [ "$_start" = "$2" ]
}

valid_port() { [[ $1 =~ ^[0-9]+$ ]] && [ "$1" -ge 1 ] && [ "$1" -le 65535 ]; }

read_env() {
	local f=$1/lab.env
	[ -r "$f" ] || die "$1 is not a ganesha lab state dir (no lab.env)"
	# shellcheck disable=SC1090
	. "$f"
}

url_of() { # ADDR NFSPORT MNTPORT VERSION
	if [ "$4" = 3 ]; then
		echo "nfs://$1/export?version=3&nfsport=$2&mountport=$3"
	else
		echo "nfs://$1/export?version=$4&nfsport=$2"
	fi
}

cmd_url() {
	if [ $# -lt 1 ] || [ $# -gt 2 ]; then usage; fi
	local ver=${2:-3}
	[ "$ver" = 3 ] || [ "$ver" = 4 ] || die "VERSION must be 3 or 4"
	read_env "$1"
	url_of "$LAB_ADDR" "$LAB_NFS_PORT" "$LAB_MNT_PORT" "$ver"
}

# all_dead IDX...: none of the recorded processes with these indexes is alive
all_dead() {
	local i
	for i in "$@"; do alive "${pids[$i]}" "${starts[$i]}" && return 1; done
	return 0
}

# term_wait DEADLINE IDX...: SIGTERM these, wait until gone or SECONDS >= DEADLINE
term_wait() {
	local deadline=$1 i; shift
	for i in "$@"; do alive "${pids[$i]}" "${starts[$i]}" && kill -TERM "${pids[$i]}" 2>/dev/null; done
	while ! all_dead "$@"; do
		[ $SECONDS -ge "$deadline" ] && return 1
		sleep 0.05
	done
	return 0
}

cmd_stop() {
	[ $# -eq 1 ] || usage
	local sd=$1 info=$1/pids.info wait=${GANESHA_STOP_WAIT:-6}
	[[ $wait =~ ^[0-9]+$ ]] || die "bad GANESHA_STOP_WAIT '$wait'"
	[ -f "$info" ] || return 0            # never started, or already stopped
	local -a pids=() starts=() roles=() first=() rest=()
	local role pid st i n
	while read -r role pid st; do
		[ -n "${pid:-}" ] || continue
		roles+=("$role"); pids+=("$pid"); starts+=("$st")
	done < "$info"
	for i in "${!pids[@]}"; do
		if [ "${roles[$i]}" = ganesha ]; then first+=("$i"); else rest+=("$i"); fi
	done
	# ganesha first, while rpcbind still runs (it unregisters on the way out); then rpcbind
	# and the wrapper (which stops rpcbind by itself once ganesha is gone).
	local deadline=$((SECONDS + wait + 1))
	[ ${#first[@]} -eq 0 ] || term_wait "$deadline" "${first[@]}"
	term_wait "$deadline" "${!pids[@]}"
	if ! all_dead "${!pids[@]}"; then
		for i in "${!pids[@]}"; do
			if alive "${pids[$i]}" "${starts[$i]}"; then
				echo "$prog: ${roles[$i]} pid ${pids[$i]} still running ${wait}s after SIGTERM, sending SIGKILL" >&2
				kill -KILL "${pids[$i]}" 2>/dev/null
			fi
		done
		for n in $(seq 50); do all_dead "${!pids[@]}" && break; sleep 0.1; done
		all_dead "${!pids[@]}" || { echo "$prog: could not kill: ${pids[*]}" >&2; return 1; }
	fi
	rm -f "$info" "$sd/pids"
	return 0
}

# record_pids: write STATE_DIR/pids.info and pids for whatever cmd_start has started so far
# (uses cmd_start's locals sd launcher gp rp wp)
record_pids() {
	local r p
	[ -z "$wp" ] && [ -s "$sd/wrapper.pid" ] && wp=$(cat "$sd/wrapper.pid")
	[ -z "$rp" ] && [ -s "$sd/rpcbind.pid" ] && rp=$(cat "$sd/rpcbind.pid")
	[ -z "$gp" ] && [ -s "$sd/ganesha.child.pid" ] && gp=$(cat "$sd/ganesha.child.pid")
	[ -z "$wp" ] && wp=$launcher
	for r in ganesha:$gp rpcbind:$rp wrapper:$wp; do
		p=${r#*:}
		[ -n "$p" ] || continue
		proc_start "$p" || continue
		echo "${r%%:*} $p $_start"
	done > "$sd/pids.info"
	awk '{print $2}' "$sd/pids.info" > "$sd/pids"
}

cmd_start() {
	if [ $# -lt 2 ] || [ $# -gt 3 ]; then usage; fi
	local sd=$1 ex=$2 addr=${3:-127.0.0.1}
	local nfsport=${GANESHA_NFS_PORT:-2049} mntport=${GANESHA_MNT_PORT:-20048}
	local waitmax=${GANESHA_WAIT:-15} rpcnet=${GANESHA_RPCBIND_NET:-private}
	local attrexp=${GANESHA_ATTR_EXPIRATION:-0}
	[[ $waitmax =~ ^[0-9]+$ ]] || die "bad GANESHA_WAIT '$waitmax'"
	[[ $attrexp =~ ^-?[0-9]+$ ]] || die "bad GANESHA_ATTR_EXPIRATION '$attrexp'"
	valid_port "$nfsport" || die "bad GANESHA_NFS_PORT '$nfsport'"
	valid_port "$mntport" || die "bad GANESHA_MNT_PORT '$mntport'"
	[ "$rpcnet" = private ] || [ "$rpcnet" = shared ] || die "GANESHA_RPCBIND_NET must be private or shared"
	[[ $addr =~ ^[0-9]+\.[0-9]+\.[0-9]+\.[0-9]+$ ]] || die "BIND_ADDR must be an IPv4 address, got '$addr'"
	[ "$(id -u)" = 0 ] || die "must run as root (unshare --mount, FSAL VFS)"
	local b
	for b in ganesha.nfsd rpcbind unshare setsid nfs-ls; do
		command -v "$b" >/dev/null || die "$b not found (packages nfs-ganesha nfs-ganesha-vfs rpcbind libnfs-utils)"
	done
	[ -d "$ex" ] || die "EXPORT_DIR $ex is not a directory"
	ex=$(realpath "$ex") || die "cannot resolve $ex"
	sd=$(realpath -m "$sd") || die "cannot resolve $sd"
	# /run is replaced by a private tmpfs inside the server's mount namespace
	case $sd/ in /run/* | /var/run/*) die "STATE_DIR must not be under /run (hidden from the server)" ;; esac
	case $ex/ in /run/* | /var/run/*) die "EXPORT_DIR must not be under /run (hidden from the server)" ;; esac
	case $sd in *[[:space:]\"\\]*) die "STATE_DIR must not contain spaces, quotes or backslashes" ;; esac
	case $ex in *[[:space:]\"\\]*) die "EXPORT_DIR must not contain spaces, quotes or backslashes" ;; esac
	mkdir -p "$sd" || die "cannot create $sd"
	# an instance already recorded here?
	if [ -f "$sd/pids.info" ]; then
		local role pid st
		while read -r role pid st; do
			alive "$pid" "$st" && die "already running from $sd ($role pid $pid); stop it first"
		done < "$sd/pids.info"
		rm -f "$sd/pids.info" "$sd/pids"
	fi
	# the address must be local, or ganesha's bind fails with a less obvious message
	if command -v ip >/dev/null && ! ip -o addr show 2>/dev/null | grep -q "inet $addr/" &&
		! [[ $addr =~ ^127\. ]]; then
		die "BIND_ADDR $addr is not assigned to any interface in this network namespace"
	fi

	rm -f "$sd"/ganesha.pid "$sd"/ganesha.child.pid "$sd"/rpcbind.pid "$sd"/wrapper.pid "$sd"/inner.failed
	mkdir -p "$sd/recovery" || die "cannot create $sd/recovery"
	: > "$sd/ganesha.log"
	: > "$sd/lab.log"
	cat > "$sd/lab.env" <<EOF
LAB_ADDR=$addr
LAB_NFS_PORT=$nfsport
LAB_MNT_PORT=$mntport
LAB_EXPORT=$ex
EOF
	cat > "$sd/ganesha.conf" <<EOF
# generated by $prog
NFS_CORE_PARAM {
	Bind_Addr = $addr;
	NFS_Port = $nfsport;
	MNT_Port = $mntport;
	Protocols = 3, 4;
	Enable_NLM = false;
	Enable_RQUOTA = false;
	Enable_UDP = false;
	Mount_Path_Pseudo = true;
}
NFS_KRB5 {
	Active_krb5 = false;
}
NFSV4 {
	Graceless = true;
	RecoveryBackend = fs;
	RecoveryRoot = "$sd/recovery";
	Only_Numeric_Owners = true;
}
EXPORT_DEFAULTS {
	Access_Type = RW;
	Squash = No_Root_Squash;
	SecType = sys;
}
EXPORT {
	Export_Id = 1;
	Path = "$ex";
	Pseudo = /export;
	Protocols = 3, 4;
	Transports = TCP;
	Access_Type = RW;
	Squash = No_Root_Squash;
	SecType = sys;
	Attr_Expiration_Time = $attrexp;
	FSAL {
		Name = VFS;
	}
}
LOG {
	Default_Log_Level = EVENT;
}
EOF
	# The wrapper: runs inside the new mount namespace, private /run, starts rpcbind and
	# ganesha, records their PIDs, reaps them, stops rpcbind when ganesha ends.
	cat > "$sd/inner.sh" <<'EOF'
#!/bin/sh
# generated by ganesha.sh: $1 = STATE_DIR, $2 = rpcbind network (private|shared)
S=$1 gp= rp= stopping=0
echo $$ > "$S/wrapper.pid.tmp" && mv "$S/wrapper.pid.tmp" "$S/wrapper.pid"
trap 'stopping=1; kill -TERM $gp $rp 2>/dev/null' TERM INT HUP
fail() {
	echo "inner: $*" >&2
	echo "$*" > "$S/inner.failed"
	[ -n "$rp" ] && kill -TERM $rp 2>/dev/null && wait $rp
	exit 1
}
mount -t tmpfs -o mode=0755,size=16m ganesha-lab-run /run || fail "mount tmpfs on /run failed"
mkdir -p /run/rpcbind /run/ganesha /run/lock || fail "mkdir in /run failed"
chown _rpc /run/rpcbind 2>/dev/null
[ $stopping = 0 ] || exit 0
if [ "$2" = private ]; then
	unshare --net rpcbind -f </dev/null &
else
	rpcbind -f </dev/null &
fi
rp=$!
echo $rp > "$S/rpcbind.pid"
i=0
while [ ! -S /run/rpcbind.sock ]; do
	[ $stopping = 0 ] || fail "stopped during start"
	kill -0 $rp 2>/dev/null || fail "rpcbind exited at start"
	i=$((i + 1)); [ $i -gt 100 ] && fail "rpcbind did not create /run/rpcbind.sock within 5 s"
	sleep 0.05
done
[ $stopping = 0 ] || fail "stopped during start"
# shared: rpcbind must listen on port 111 here. Without the service "sunrpc" (a minimal Debian
# has no /etc/services: package netbase) it binds no port at all, yet runs and serves its unix
# socket, so everything after would start and only a client's rpcinfo or v3 mount would fail.
# /proc/net/tcp{,6} are this network namespace's sockets; 006F is port 111, 0A is LISTEN.
if [ "$2" = shared ]; then
	i=0
	until cat /proc/net/tcp /proc/net/tcp6 2>/dev/null | grep -q '^ *[0-9]*: [0-9A-F]*:006F [0-9A-F]*:0000 0A '; do
		kill -0 $rp 2>/dev/null || fail "rpcbind exited at start"
		i=$((i + 1))
		if [ $i -gt 100 ]; then
			why="no 'sunrpc' in /etc/services: install netbase"
			getent services sunrpc >/dev/null && why="rpcbind logs why to syslog only"
			fail "rpcbind does not listen on port 111 within 5 s ($why)"
		fi
		sleep 0.05
	done
fi
ganesha.nfsd -F -f "$S/ganesha.conf" -p "$S/ganesha.pid" -L "$S/ganesha.log" -N NIV_EVENT </dev/null &
gp=$!
echo $gp > "$S/ganesha.child.pid"
[ $stopping = 0 ] || kill -TERM $gp
# reap ganesha (wait returns early when a trapped signal arrives), then stop rpcbind
while kill -0 $gp 2>/dev/null; do wait $gp; done
kill -TERM $rp 2>/dev/null
while kill -0 $rp 2>/dev/null; do wait $rp; done
exit 0
EOF
	local t0=$EPOCHREALTIME launcher="" gp="" rp="" wp=""
	# interrupted from here on: stop what was started, do not leave it running unrecorded
	trap 'record_pids; cmd_stop "$sd" >/dev/null 2>&1; exit 130' INT TERM HUP
	# setsid: own session, so a Ctrl-C in the caller's terminal does not hit the server
	# Close every inherited fd above 2 first: a daemon holding e.g. the caller's pipe would make
	# a "$(...)" or a test runner wait for EOF forever.
	(
		for f in "/proc/$BASHPID/fd"/*; do
			n=${f##*/}
			[ "$n" -gt 2 ] 2>/dev/null && eval "exec $n>&-"
		done
		exec setsid unshare --mount --propagation private /bin/sh "$sd/inner.sh" "$sd" "$rpcnet"
	) </dev/null >>"$sd/lab.log" 2>&1 &
	launcher=$!

	local url3 url4
	url3=$(url_of "$addr" "$nfsport" "$mntport" 3)
	url4=$(url_of "$addr" "$nfsport" "$mntport" 4)
	local deadline=$((SECONDS + waitmax)) why="" ok=0
	while :; do
		[ -z "$wp" ] && [ -s "$sd/wrapper.pid" ] && wp=$(cat "$sd/wrapper.pid")
		[ -z "$rp" ] && [ -s "$sd/rpcbind.pid" ] && rp=$(cat "$sd/rpcbind.pid")
		[ -z "$gp" ] && [ -s "$sd/ganesha.child.pid" ] && gp=$(cat "$sd/ganesha.child.pid")
		if [ -f "$sd/inner.failed" ]; then why=$(cat "$sd/inner.failed"); break; fi
		if [ -n "$gp" ]; then
			if ! proc_start "$gp"; then
				why="ganesha.nfsd exited during start"; break
			fi
			if timeout 5 nfs-ls "$url3" >/dev/null 2>&1 && timeout 5 nfs-ls "$url4" >/dev/null 2>&1; then
				ok=1; break
			fi
		elif ! kill -0 "$launcher" 2>/dev/null; then
			why="wrapper exited during start"; break
		fi
		if [ $SECONDS -ge $deadline ]; then
			why="server not serving $url3 within ${waitmax}s"; break
		fi
		sleep 0.05
	done
	trap - INT TERM HUP
	record_pids
	if [ $ok = 1 ]; then
		local ms=$(( (${EPOCHREALTIME/./} - ${t0/./}) / 1000 ))
		echo "started in ${ms} ms: ganesha $gp, rpcbind $rp, wrapper $wp; $url3" >> "$sd/lab.log"
		return 0
	fi
	{
		echo "$prog: start failed: $why (state in $sd)"
		echo "--- tail of $sd/ganesha.log"
		tail -n 15 "$sd/ganesha.log"
		if [ -s "$sd/lab.log" ]; then
			echo "--- tail of $sd/lab.log"
			tail -n 10 "$sd/lab.log"
		fi
	} >&2
	cmd_stop "$sd" >/dev/null 2>&1
	# the launcher may have died before writing wrapper.pid; reap our own child
	wait "$launcher" 2>/dev/null
	return 1
}

[ $# -ge 1 ] || usage
cmd=$1; shift
case $cmd in
	start) cmd_start "$@" ;;
	stop) cmd_stop "$@" ;;
	url) cmd_url "$@" ;;
	*) usage ;;
esac
