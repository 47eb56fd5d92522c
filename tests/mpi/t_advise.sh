# advise: the settings to use, checked on planted response surfaces of the
# null engine (--null-surface: the best combination, the size of every
# effect and interaction known before the run) and on a real posix run on
# a tmpfs, where a 1m transfer writes faster than a 4k one.
#
# The planted surface: rsize=64k doubles the per-call delay, 1m halves it,
# 1m with nconnect=4 takes a further x0.6 (an interaction: nconnect alone
# does nothing), sync does nothing at all (a flat option); each
# (combination, iteration, rank) draws +-3 % of noise. With one rank (two
# add the barrier's skew to every phase) and --block 64k the best, rsize=1m
# nconnect=4, moves 64k per 0.3 ms: 218.5 MB/s, and gains 66.7 % over the defaults (rsize=1m nconnect=1:
# 0.5 ms). A loaded machine only slows a phase: the figures it gives are
# lower, by what the run measured beyond its schedule.
# 512 calls a phase keep the run's own overheads (the barrier's skew, a
# late wake-up on a loaded machine) to about 1 % of the best's phase.
#
# A machine shared by many jobs can stall a rank for longer than a phase:
# advise then says "undecided" and names the smallest next run that would
# decide. That is the answer to check too: where the first run leaves the
# flat option (or the tmpfs block) undecided, the test runs the next run
# advise names, as a user would, and that run must decide it (at most twice).

adv_surface() {
	cat >"$T/planted.txt" <<'S'
# planted: rsize=1m with nconnect=4 best, sync flat
base 1ms
factor rsize=64k 2
factor rsize=1m 0.5
factor rsize=1m,nconnect=4 0.6
noise 0.03
seed 11
S
}

# adv_decide ARGS -- CHECK: run the job of ARGS into s.db; while advise's
# JSON (a.json) leaves undecided what the python CHECK asks (it exits 3;
# 0 decided, else failed) and names a next run, run that (ARGS without the
# options it names, with its own; its iterations at most 15, or 120 phases,
# to bound the test's time: a round that does not decide leads to another),
# 3 at most.
# With s.db there already, its last run is round 0.
adv_decide() {
	args=
	while [ "$1" != -- ]; do args="$args $1"; shift; done
	check=$2
	sweep=$args
	for round in 0 1 2 3; do
		# round 0 of a store made already: its last run is the first answer
		if [ $round != 0 ] || [ ! -f s.db ]; then
			eval "$MPIRUN -np ${ADV_NP:-2} $ST $sweep --db s.db --quiet" >/dev/null || return 1
		fi
		$ST advise --db s.db --phase write --format json >a.json || fail "advise --format json" || return 1
		python3 -c "$check"
		rc=$?
		[ $rc = 0 ] && return 0
		[ $rc = 3 ] || return 1 # a check failed; 3: undecided
		[ $round -lt 3 ] || return 1
		sweep=$(python3 - "$args" <<'PY'
import json, re, shlex, sys
n = json.load(open('a.json'))['rows'][0]['next_run']
if not n:
    sys.exit(1)
nxt = shlex.split(n['arguments'])
# the options the next run names, and those its --set sets give, replace the run's
names = {w[2:] for w in nxt if w.startswith('--')}
for i, w in enumerate(nxt):
    if w == '--set':
        names |= {kv.split('=')[0] for kv in nxt[i + 1].split(',')}
    if w == '--iterations':
        nxt[i + 1] = str(min(int(nxt[i + 1]), max(15, 120 // n['combinations'])))
old = shlex.split(sys.argv[1])
keep = []
i = 0
while i < len(old):
    if old[i].startswith('--') and old[i][2:] in names:
        i += 2
        continue
    keep.append(old[i])
    i += 1
print(' '.join(shlex.quote(w) for w in keep + nxt))
PY
		) || return 1
		echo "    round $round undecided; the next run advise names, as run: $sweep" >&2
	done
	return 1
}

# adv_quiet_run DB ARGS: the job of ARGS into DB, up to 3 times while the
# best's 95 % interval is wider than +-10 % of it or that of a difference
# from it (of rsize, nconnect: the flat sync is decided by adv_decide)
# wider than +-15 %: a run the machine's load made too noisy to decide is
# repeated (and said), not judged; one rank
adv_quiet_run() {
	db=$1
	shift
	for try in 1 2 3; do
		rm -f "$db" "$db-wal" "$db-shm"
		$MPIRUN -np 1 $ST "$@" --db "$db" --quiet >/dev/null || return 1
		$ST advise --db "$db" --format json | python3 -c "
import json, sys
w = json.load(sys.stdin)['rows'][0]
lo, hi = w['best']['ci95']
ds = [v['diff_ci95_pct'] for o in w['options'] if o['option'] != 'sync' for v in o['values']]
quiet = (hi - lo) / 2 < 0.10 * w['best']['figure'] and all(d and d[1] - d[0] < 30 for d in ds)
sys.exit(0 if quiet else 3)
" && return 0
		echo "    run $try: too noisy (an interval over +-10 % of the best, or a difference's over +-15 %; load $(cut -d' ' -f1 /proc/loadavg)); again" >&2
	done
	fail "3 runs, each too noisy to decide"
}

t_advise_names_the_planted_best() {
	adv_surface
	# 5 iterations: the interval of 3 is t(0.975, 2) = 4.3 standard errors wide each way
	adv_quiet_run s.db --engine null --null-surface "$T/planted.txt" --block 64k --size 32m \
		--phases write --rsize 64k,256k,1m --nconnect 1,4 --sync sync,async --iterations 5 \
		--shuffle 1 || return 1
	first=$(q s.db "SELECT run_id FROM run")
	$ST advise --db s.db --format json >a.json || fail "advise --format json" || return 1
	python3 - <<'PY' || fail "advise against the planted surface" || return 1
import json
a = json.load(open('a.json'))
assert a['schema_version'] == 1 and a['command'] == 'advise', a
assert a['summary']['test'] == 'welch' and a['summary']['shuffled'] is True and len(a['rows']) == 1, a
w = a['rows'][0]
b = w['best']
assert w['phase'] == 'write' and w['figure_unit'] == 'bytes_per_s'
# the planted best, and its interval covers the planted figure
assert b['options']['rsize'] == 1048576 and b['options']['nconnect'] == 4, b
assert b['iterations'] == 5
lo, hi = b['ci95']
planted = 65536 / 0.3e-3  # bytes per second
# nothing beats the schedule (the noise at most 3 % faster): the interval
# starts below it; it reaches it, less what the run measured beyond its
# schedule (the best's mean span past 512 calls of 0.3 ms: a loaded
# machine's wake-ups, the barrier's skew), which only slows a phase
import sqlite3
spans = [r[0] for r in sqlite3.connect('s.db').execute(
    """SELECT s.span_ns FROM phase_summary s JOIN combo c USING (combo_id)
       WHERE c.rsize = 1048576 AND c.nconnect = 4 AND c.sync = ?""", (b['options']['sync'],))]
late = max(0, sum(spans) / len(spans) / (512 * 0.3e6) - 1)
assert len(spans) == 5 and lo <= planted * 1.03 and hi >= planted / (1 + late), ('interval', lo, hi, planted, late)
assert w['line'] == 'stcluster --engine null --rsize 1m --sync %s --nconnect 4' % b['options']['sync'], w['line']
# the defaults (nfs(5): rsize=1m, nconnect=1, async) are in the run: the gain is against them
ref = w['reference']
assert ref['kind'] == 'defaults' and {k: ref['options'][k] for k in ('rsize', 'nconnect', 'sync')} == \
    {'rsize': 1048576, 'nconnect': 1, 'sync': 'async'}, ref
assert ref['significant'] is True and ref['p'] < 0.05, ref
# the planted gain, 0.5 ms / 0.3 ms - 1 = 66.7 %, less what the run's own
# overheads take: a phase's fixed cost (its barrier, a late wake-up) is a
# larger part of the faster combination's, so the gain comes out lower,
# never above its interval
glo, ghi = ref['gain_ci95_pct']
planted_gain = 100 * (0.5 / 0.3 - 1)
# the interval advise states must hold the planted gain as this run could
# measure it: each phase's own cost beyond its 512 calls (its barrier, late
# wake-ups; from the spans stored) lowers the gain when it slows the best
# (64.0 % [61.4, 66.6] once on build-san beside the ladder: its 2 % of
# fixed cost), raises it when it slows the defaults (a fixed +5 % above the
# planted gain held only on an idle machine: 74.3 % [58.6, 89.9] once)
def over(rsize, nconnect, sync, calls_ns):
    v = [r[0] for r in sqlite3.connect('s.db').execute(
        """SELECT s.span_ns FROM phase_summary s JOIN combo c USING (combo_id)
           WHERE c.rsize = ? AND c.nconnect = ? AND c.sync = ?""", (rsize, nconnect, sync))]
    return max(0.0, sum(v) / len(v) - calls_ns)
tb, td = 512 * 0.3e6, 512 * 0.5e6
ob = over(1048576, 4, b['options']['sync'], tb)
od = over(1048576, 1, 'async', td)
low_gain = 100 * (td / (tb + ob) - 1)          # the best slowed alone
high_gain = 100 * ((td + od) / tb - 1)         # the defaults slowed alone
assert 0 < glo <= max(planted_gain, high_gain) and ghi >= min(planted_gain, low_gain), \
    ('gain', ref, planted_gain, low_gain, high_gain)
assert 0.85 * min(planted_gain, low_gain) < ref['gain_pct'], ('gain', ref, low_gain)
opts = {o['option']: o for o in w['options']}
# a planted flat option never matters; the rest are decided below if open
assert opts['sync']['verdict'] in ('does not matter', 'undecided'), opts['sync']
assert opts['rsize']['verdict'] == 'matters' and opts['nconnect']['verdict'] == 'matters', opts
assert opts['rsize']['values'][0]['class'] == 'worse', opts['rsize']
# the planted interaction is named; the flat option is in none
pairs = [set(i['options']) for i in w['interactions']]
assert {'rsize', 'nconnect'} in pairs, w['interactions']
assert not any('sync' in p for p in pairs), w['interactions']
assert w['bottleneck'] is None
PY
	$ST advise --db s.db >a.txt || fail "advise (table)" || return 1
	for want in "  use          stcluster --engine null --rsize 1m --sync" \
		"rsize x nconnect interact: rsize " "over the defaults (rsize=1m, sync=async, nconnect=1"; do
		grep -qF -- "$want" a.txt || { cat a.txt >&2; fail "advise's table lacks '$want'"; return 1; }
	done
	$ST advise --db s.db --format markdown >a.md || fail "advise --format markdown" || return 1
	grep -q '^### write$' a.md && grep -q '^- \*\*use\*\*: `stcluster --engine null --rsize 1m' a.md ||
		{ cat a.md >&2; fail "advise's markdown"; return 1; }
	# --where: within nconnect=1 the best is rsize=1m still, nconnect no longer varies
	$ST advise --db s.db --where "nconnect=1" --format json >w.json || fail "advise --where" || return 1
	python3 -c "
import json
w = json.load(open('w.json'))['rows'][0]
o = w['best']['options']
assert o['rsize'] == 1048576 and o['nconnect'] == 1 and o['sync'] in ('sync', 'async'), w['best']
assert w['interactions'] == [], w['interactions']
" || fail "advise --where nconnect=1" || return 1
	# the bottleneck: a copy of the store given a network baseline 2 % above
	# the best (the verdict view makes it network-bound at 98 % of it)
	cp s.db b.db || return 1
	lim=$(python3 -c "import json; print(round(json.load(open('a.json'))['rows'][0]['best']['figure'] / 1e6 * 1.02, 1))")
	sqlite3 b.db "INSERT INTO baseline (run_id, kind, direction, server_rank, mbps) VALUES ('$first', 'net_all', 'c2s', 0, $lim)" ||
		return 1
	$ST advise --db b.db >b.txt || fail "advise with a baseline" || return 1
	grep -q "^  bottleneck   network-bound: at 9[0-9] % of the measured limit, further tuning of the client will not help$" b.txt ||
		{ cat b.txt >&2; fail "advise's bottleneck at the network's limit"; return 1; }
	# the flat option: does not matter, at once or after the next runs advise names
	ADV_NP=1 adv_decide --engine null --null-surface "$T/planted.txt" --block 64k --size 32m --phases write \
		--rsize 64k,256k,1m --nconnect 1,4 --sync sync,async --iterations 3 --shuffle 1 -- "
import json
o = {o['option']: o for o in json.load(open('a.json'))['rows'][0]['options']}
assert o['sync']['verdict'] in ('does not matter', 'undecided', 'not paired'), o['sync']
exit(0 if o['sync']['verdict'] == 'does not matter' else 3)
" || fail "advise never says the flat option sync does not matter" || return 1
	$ST advise --db s.db >a.txt
	grep -qF "sync: does not matter" a.txt || { cat a.txt >&2; fail "the table does not say it"; return 1; }
}

# --rwsize is one dimension: each combination's rsize and wsize are its
# value, and advise judges it as the one option it is (before: rsize, wsize
# and rwsize each "not paired", as no combination differs in one alone;
# "use ... --rsize 1m --wsize 1m --rwsize 1m"; and a next run of sets such
# as 'rsize=64k,wsize=1m,rwsize=1m', which --set refuses). Planted: 64k
# calls take 4 times as long as 1m's.
t_advise_rwsize_is_one_option() {
	cat >"$T/planted.txt" <<'S'
base 1ms
factor rsize=64k 2
factor rsize=1m 0.5
noise 0.03
seed 5
S
	$ST --engine null --null-surface "$T/planted.txt" --block 64k --size 8m --phases write \
		--rwsize 64k,1m --iterations 3 --shuffle 1 --db "$T/s.db" --quiet || return 1
	$ST advise --db s.db --format json >a.json || fail "advise --format json" || return 1
	python3 - <<'PY' || fail "advise over --rwsize" || return 1
import json, shlex
w = json.load(open('a.json'))['rows'][0]
assert [o['option'] for o in w['options']] == ['rwsize'], w['options']
o = w['options'][0]
assert o['verdict'] == 'matters' and o['values'][0]['class'] == 'worse', o
# (the JSON's options are every option, always: rsize and wsize as given)
b = w['best']['options']
assert b['rwsize'] == b['rsize'] == b['wsize'] == 1048576, b
assert w['line'] == 'stcluster --engine null --rwsize 1m', w['line']
n = w['next_run'] or ''
assert 'rsize=' not in n and 'wsize=' not in n and '--rsize' not in n, n
PY
	$ST advise --db s.db >a.txt || fail "advise (table)" || return 1
	grep -q "^  use          stcluster --engine null --rwsize 1m$" a.txt &&
		! grep -q -- "--rsize\|--wsize\|option       [rw]size" a.txt ||
		{ cat a.txt >&2; fail "advise's table names rsize or wsize apart from --rwsize"; return 1; }
}

# Two iterations far apart: the best's 95 % interval (t = 12.7 standard
# errors each way) reaches below 0, which no throughput is: advise says the
# interval is too wide to use instead of printing a negative MB/s (before:
# "95 % interval -976.3 to 2733.8"); its JSON keeps the interval as computed
t_advise_interval_below_zero_is_too_wide() {
	$ST --engine null --null-delay 1ms --block 1m --size 4m --iterations 2 --phases write \
		--db "$T/s.db" --quiet || return 1
	# the first iteration as if it had moved 0.01 % of its bytes (the other
	# would have to be 10,000 times slower for the two to agree)
	sqlite3 s.db "UPDATE rank_result SET bytes = bytes / 10000 WHERE phase = 'write' AND
		combo_id = (SELECT MIN(combo_id) FROM combo)" || return 1
	$ST advise --db s.db >a.txt || fail "advise" || return 1
	grep -q "^  expect       [0-9.]* MB/s, 95 % interval up to [0-9.]*, its lower end below 0: too wide to use (2 iterations)" a.txt ||
		{ cat a.txt >&2; fail "advise printed no too-wide interval"; return 1; }
	grep -q "interval -" a.txt && { cat a.txt >&2; fail "a negative throughput printed"; return 1; }
	$ST advise --db s.db --format json | python3 -c "
import json, sys
b = json.load(sys.stdin)['rows'][0]['best']
assert b['ci95'][0] < 0 < b['figure'] < b['ci95'][1], b
" || fail "advise --format json: the interval as computed" || return 1
}

# One iteration: nothing is decided; the next run repeats with 3
t_advise_one_iteration_says_what_is_undecided() {
	adv_surface
	$MPIRUN -np 2 $ST --engine null --null-surface "$T/planted.txt" --block 64k --size 2m \
		--rsize 64k,1m --db s.db --quiet >/dev/null || return 1
	$ST advise --db s.db --phase read >a.txt || fail "advise --phase read" || return 1
	for want in "phase read" "(1 iteration: no interval)" "rsize: undecided (best 1m; 64k " \
		"next run: --rsize 1m,64k --iterations 3 --shuffle 1 (2 combinations); the noise is unknown" \
		"(the run had no --shuffle: a combination's iterations ran back to back"; do
		grep -qF -- "$want" a.txt || { cat a.txt >&2; fail "advise lacks '$want'"; return 1; }
	done
	grep -q "^phase write" a.txt && fail "--phase read printed the write phase" && return 1
	$ST advise --db s.db --format json | python3 -c "
import json, sys
a = json.load(sys.stdin)
assert [p['phase'] for p in a['rows']] == ['write', 'read'], a
for p in a['rows']:
    assert p['best']['ci95'] is None and p['reference']['significant'] is None, p
    assert p['next_run'] == {'arguments': '--rsize 1m,64k --iterations 3 --shuffle 1', 'combinations': 2, 'iterations': 3}, p['next_run']
" || fail "advise --format json with one iteration" || return 1
	# bad input: one line, exit 2
	$ST advise --db s.db --format csv >/dev/null 2>err.txt
	expect_eq "$?" 2 "advise --format csv" || return 1
	grep -q -- "--format" err.txt || fail "the message names --format" || return 1
	$ST advise --db s.db --run nosuch >/dev/null 2>err.txt
	expect_eq "$?" 2 "advise --run nosuch" || return 1
	expect_eq "$(cat err.txt)" "stcluster advise: --run: no run 'nosuch' in the store" "message" || return 1
	$ST advise --db s.db --where "nosuchcolumn = 1" >/dev/null 2>err.txt
	expect_eq "$?" 2 "advise --where over an unknown column" || return 1
	expect_eq "$(wc -l <err.txt)" 1 "one line" || return 1
}

# posix on a tmpfs: a 1m transfer writes faster than a 4k one
t_advise_posix_tmpfs_recommends_1m_for_write() {
	mkdir -p "$T/fs"
	mount -t tmpfs -o size=256m tmpfs "$T/fs" || { echo "cannot mount a tmpfs (root?)"; return 77; }
	trap 'umount "$T/fs" 2>/dev/null' EXIT
	# time-based phases of 0.5 s: a rank's late start is a small part of one
	adv_decide --target "$T/fs" --block 4k,1m --size 16m --runtime 500ms --phases write \
		--iterations 3 --shuffle 1 -- "
import json
w = json.load(open('a.json'))['rows'][0]
o = w['options'][0]
assert w['phase'] == 'write' and o['option'] == 'block', w
# undecided (a loaded machine): the next run decides; never 4k as decided
if o['verdict'] != 'matters':
    assert o['verdict'] in ('undecided', 'not paired'), o
    exit(3)
assert w['best']['options']['block'] == 1048576, w['best']
assert w['line'].startswith('stcluster --engine posix --target ') and w['line'].endswith(' --block 1m'), w['line']
" || { $ST advise --db s.db --phase write >&2; fail "advise on tmpfs"; return 1; }
}

# --mount-opts swept is an option like any other (it was not analysed: two
# mount option lists made one cell, and the line to paste had no -o), and a
# set is named by its name in JSON (it was null). On a tmpfs stcluster
# mounts itself (size= does not change a write's speed: the test checks what
# advise says of each list, not which is faster): the best's list is in the
# line's -o, mount-opts is among the options with the other list as its
# alternative, and the next run advise names is one stcluster takes (--dry-run
# with its combinations). The null engine with 1 ms calls and sets of 1 and 2
# threads: the set "two" (twice the calls at once) is the best's.
t_advise_mount_opts_are_an_option_and_sets_have_names() {
	mkdir -p "$T/fs"
	o1='size=64m' o2='size=128m,nr_inodes=100000'
	$ST --engine posix --mount tmpfs --fstype tmpfs --target "$T/fs" --mount-opts "$o1;$o2" \
		--block 4k,1m --size 4m --phases write --iterations 2 --db m.db --quiet >out 2>&1 ||
		{ grep -q "must be root\|Operation not permitted" out && { echo "cannot mount (root?)"; return 77; }
		  fail "the run: $(cat out)"; return 1; }
	$ST advise --db m.db --format json >m.json || fail "advise --format json" || return 1
	python3 - "$o1" "$o2" <<'PY' || { $ST advise --db m.db >&2; fail "advise of --mount-opts"; return 1; }
import json, sys
o1, o2 = sys.argv[1:]
w = json.load(open('m.json'))['rows'][0]
best = w['best']['options']['mount_opts']
assert best in (o1, o2), w['best']
assert ' -o %s tmpfs ' % best in w['line'], w['line']
opts = {o['option']: o for o in w['options']}
assert set(opts) == {'block', 'mount_opts'}, list(opts)
assert [v['value'] for v in opts['mount_opts']['values']] == [o2 if best == o1 else o1], opts['mount_opts']
n = w['next_run']
open('next', 'w').write(n['arguments'] if n else '')
PY
	if [ -s next ]; then
		eval "set -- $(cat next)"
		$ST --engine posix --mount tmpfs --fstype tmpfs --target "$T/fs" --size 4m --phases write \
			"$@" --dry-run >dry 2>&1 || fail "the next run advise names: $(cat next): $(cat dry)" || return 1
		echo "next run: $(cat next): $(head -1 dry)"
	fi
	$ST --engine null --null-delay 1ms --block 64k --size 1m --set 'one:threads=1;two:threads=2' \
		--iterations 2 --db n.db --quiet || fail "the null run" || return 1
	$ST advise --db n.db --format json | python3 -c "
import json, sys
w = json.load(sys.stdin)['rows'][0]
assert w['best']['options']['set'] == 'two' and w['best']['options']['threads'] == 2, w['best']
assert w['reference']['options']['set'] == 'one', w['reference']
" || fail "advise of sets" || return 1
}
