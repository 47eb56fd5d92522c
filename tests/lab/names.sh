# tests/lab/names.sh - sourced (POSIX sh) by whatever makes a lab of fixed names: the
# names, subnets, directory and lock of the tests' and benches' labs, each taken from the
# environment, today's value by default. Two ladders run side by side on one machine when
# each has its own set, e.g.
#   STLAB_VM_PREFIX=sxv STLAB_VM2_PREFIX=sxw STLAB_NS_PREFIX=sxt STLAB_VM_NET=10.78.210 \
#   STLAB_VM2_NET=10.78.211 STLAB_NS_NET=10.78.201 STLAB_VM_DIR=/tmp/sx-vmlab \
#   STLAB_LOCK=/tmp/sx-lab.lock make check
# (a ladder's labs: the VM lab, the short-lived lab of the boot-wait test, the namespace lab of
# tests/mpi/t_lab.sh). No file of tests/ but this one spells these values (t_build checks it).
#
#   STLAB_VM_PREFIX   the VM lab (tests/lab/vmtest.sh): namespaces and guests PREFIX-* (stv)
#   STLAB_VM_NET      its subnet, SUBNET.0/24; the server host is SUBNET.1 (10.77.210)
#   STLAB_VM_DIR      its directory (/tmp/stcluster-vmlab)
#   STLAB_VM2_PREFIX  t_vm's lab whose guest never comes up (stw)
#   STLAB_VM2_NET     its subnet (10.77.211)
#   STLAB_NS_PREFIX   tests/mpi/t_lab.sh's lab of network namespaces (stt)
#   STLAB_NS_NET      its subnet, also tests/lab/selftest.sh's first lab's (10.77.201)
#   STLAB_LOCK        the lock every test of a "one at a time" file holds (tests/run.sh), and
#                     by hand a run of anything that makes one of these labs
#                     (/tmp/stcluster-lab.lock)
# (Not STLAB_PREFIX, STLAB_DIR: a lab's env.sh exports those for the lab it describes.)
#
# A prefix is what tests/lab/lab.sh --prefix takes (a lower-case letter, then up to 19
# letters or digits), a subnet three octets; anything else is refused here, in one line
# naming the variable (status 2), before a lab is made.

STLAB_VM_PREFIX=${STLAB_VM_PREFIX:-stv}
STLAB_VM_NET=${STLAB_VM_NET:-10.77.210}
STLAB_VM2_PREFIX=${STLAB_VM2_PREFIX:-stw}
STLAB_VM2_NET=${STLAB_VM2_NET:-10.77.211}
STLAB_NS_PREFIX=${STLAB_NS_PREFIX:-stt}
STLAB_NS_NET=${STLAB_NS_NET:-10.77.201}
STLAB_VM_DIR=${STLAB_VM_DIR:-/tmp/stcluster-vmlab}
STLAB_LOCK=${STLAB_LOCK:-/tmp/stcluster-lab.lock}
export STLAB_VM_PREFIX STLAB_VM_NET STLAB_VM2_PREFIX STLAB_VM2_NET STLAB_NS_PREFIX STLAB_NS_NET STLAB_VM_DIR STLAB_LOCK

# stlab_names_check: every value well formed, or one line on stderr and status 2
stlab_names_check() {
	for _v in STLAB_VM_PREFIX STLAB_VM2_PREFIX STLAB_NS_PREFIX; do
		eval "_x=\$$_v"
		if ! printf '%s\n' "$_x" | grep -Eqx '[a-z][a-z0-9]{0,19}'; then
			echo "$_v: '$_x' is not a lab prefix (a lower-case letter, then up to 19 letters or digits)" >&2
			return 2
		fi
	done
	for _v in STLAB_VM_NET STLAB_VM2_NET STLAB_NS_NET; do
		eval "_x=\$$_v"
		if ! printf '%s\n' "$_x" | grep -Eqx '(25[0-5]|2[0-4][0-9]|1?[0-9]?[0-9])(\.(25[0-5]|2[0-4][0-9]|1?[0-9]?[0-9])){2}'; then
			echo "$_v: '$_x' is not a subnet (three octets, e.g. 10.78.5)" >&2
			return 2
		fi
	done
	for _v in STLAB_VM_DIR STLAB_LOCK; do
		eval "_x=\$$_v"
		case $_x in
		*[[:space:]]*) echo "$_v: '$_x' has a space (the ladder splits its lock command on spaces)" >&2; return 2 ;;
		/*) ;;
		*) echo "$_v: '$_x' is not an absolute path" >&2; return 2 ;;
		esac
	done
}
