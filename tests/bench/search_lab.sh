#!/bin/sh
# tests/bench/search_lab.sh - on demand, not in make check: --search halving against the full
# sweep over real NFS traffic, in a lab of our own (tests/lab/lab.sh: 2 client hosts and one
# server host running nfs-ganesha, its link shaped to SL_RATE both ways), with the libnfs engine.
#
# The matrix (SL_MATRIX): --block 64k,256k,1m x --iodepth 1,2,8,16 x --nconnect 1,2 x --rwsize
# 64k,256k,1m (72 combinations, within the 64-512 of tests/bench/search.sh's surfaces; at 16,
# the first matrix here, the last stage alone is 6-12 of the full sweep's 48 runs, 12-25 %),
# --size SL_SIZE per client, write then read. Once the full sweep with
# --iterations 3 (the truth, as the search measures: a combination's figure is the geometric
# mean over its phases of its mean aggregate), then SL_REPS halving runs (no --budget: the
# plan whole), one after another. Per halving run: its pick (the last stage's best by that
# figure, what advise names), the pick's figure in the full sweep as a share of the full
# sweep's best (1.00: the best itself), whether that is within the noise the full sweep
# measured (the best's and the pick's 95 % intervals overlap), and its cost: the stored
# combination-runs, the summed phase time (span) and the wall time, each over the full
# sweep's. On a shaped link many combinations sit at its rate: several are the best within
# noise, which is what the search has to find.
#
# At the end, `stcluster advise` of the first halving run.
# Knobs: SL_RATE (400mbit), SL_SIZE (16m), SL_REPS (3), SL_MATRIX (the matrix's options, any
# of block, iodepth, nconnect, rwsize, threads, vers), STCLUSTER (./stcluster). Needs root
# (network namespaces). It brings its lab up with a prefix and subnet of its own and takes it
# down on exit; it ends no process it did not start.
set -u
LC_ALL=C
export LC_ALL
cd "$(dirname "$0")/../.." || exit 1
ROOT=$(pwd)
ST_SRC=${STCLUSTER:-$ROOT/stcluster}
RATE=${SL_RATE:-400mbit}
SIZE=${SL_SIZE:-16m}
REPS=${SL_REPS:-3}
LAB=$ROOT/tests/lab/lab.sh
WORK='' EXPORT='' LABDIR=''

cleanup() {
	own_lab_down
	[ -n "$EXPORT" ] && rm -rf "$EXPORT"
	[ -n "$WORK" ] && rm -rf "$WORK"
}
trap cleanup EXIT
trap 'exit 130' INT TERM HUP
BENCH="search lab bench"
. tests/bench/lib.sh

[ "$(id -u)" = 0 ] || die "needs root (network namespaces)"
[ -x "$ST_SRC" ] || die "$ST_SRC is missing: run make first"
for b in mpirun ip tc ganesha.nfsd rpcbind timeout python3; do
	command -v "$b" >/dev/null || die "$b not found (see tests/lab/README.md)"
done
WORK=$(mktemp -d "${TMPDIR:-/tmp}/stbench-search-lab.XXXXXX") || die "mktemp failed"
ST=$WORK/stcluster
cp "$ST_SRC" "$ST" || die "cannot copy $ST_SRC"
EXPORT=$(mktemp -d /var/tmp/stbench-search-lab-export.XXXXXX) || die "mktemp under /var/tmp failed"
chmod 755 "$EXPORT"
echo "--search halving against the full sweep, libnfs over a link shaped to $RATE  $("$ST" --version | head -n 1)  [$(load)]"
own_lab sl --clients 2 --slots 1 --rate "$RATE" --export "$EXPORT"
URL=$(cat "$LABDIR/nfs_url")
printf '%s-c1 slots=1\n%s-c2 slots=1\n' "$PREFIX" "$PREFIX" >"$WORK/hf"
MATRIX=${SL_MATRIX:-"--block 64k,256k,1m --iodepth 1,2,8,16 --nconnect 1,2 --rwsize 64k,256k,1m"}

# sweep DB EXTRA...: the matrix on both clients; its wall time in ms on stdout
sweep() {
	db=$1
	shift
	t0=$(date +%s%N)
	timeout -k 10 1800 "$LAB" run "$LABDIR" -- mpirun -hostfile "$WORK/hf" -np 2 "$ST" \
		--engine libnfs --target "$URL" $MATRIX --size "$SIZE" --phases write,read \
		--db "$db" --quiet "$@" >"$WORK/run.log" 2>&1 ||
		{ sed 's/^/    /' "$WORK/run.log" | tail -n 20 >&2; die "the run failed: $*"; }
	echo $((($(date +%s%N) - t0) / 1000000))
}

echo "  full sweep, --iterations 3  [$(load)]"
full_ms=$(sweep "$WORK/full.db" --iterations 3)
: >"$WORK/halving"
r=0
while [ "$r" -lt "$REPS" ]; do
	echo "  halving run $((r + 1)) of $REPS  [$(load)]"
	ms=$(sweep "$WORK/h$r.db" --search halving)
	echo "$WORK/h$r.db $ms" >>"$WORK/halving"
	r=$((r + 1))
done
echo "  done  [$(load)]"

FULL_MS=$full_ms WORK=$WORK MATRIX=$MATRIX python3 - <<'PY'
import math, os, sqlite3, statistics
work = os.environ['WORK']
KEYS = tuple(w[2:] for w in os.environ['MATRIX'].split() if w.startswith('--'))

def figures(db, last_stage):
    """per combination (its options): the geometric mean over its phases of the
    mean aggregate of its runs (halving: of its last stage's runs), and per
    phase the runs' MB/s"""
    con = sqlite3.connect(db)
    where = ''
    if last_stage:
        where = ('AND c.stage = (SELECT MAX(k.stage) FROM combo k WHERE k.run_id = c.run_id '
                 'AND k.matrix_index = c.matrix_index)')
    runs = {}
    for row in con.execute('SELECT %s, p.phase, p.agg_mbps FROM combo c JOIN phase_summary p '
                           'USING (combo_id) WHERE p.status = \'ok\' %s' % (
                               ', '.join('c.' + k for k in KEYS), where)):
        runs.setdefault(tuple(row[:len(KEYS)]), {}).setdefault(row[len(KEYS)], []).append(
            row[len(KEYS) + 1])
    out = {}
    for k, ph in runs.items():
        if len(ph) == 2:
            out[k] = (math.exp(sum(math.log(statistics.mean(v)) for v in ph.values()) / 2), ph)
    span = con.execute('SELECT SUM(span_ns) FROM phase_summary').fetchone()[0]
    n = con.execute('SELECT COUNT(*) FROM combo').fetchone()[0]
    return out, span, n

def ci95(v):
    # the half width of a mean's 95 % interval (t, 2 degrees of freedom and up)
    t = {2: 12.71, 3: 4.30, 4: 3.18, 5: 2.78, 6: 2.57}.get(len(v), 2.0)
    return t * statistics.stdev(v) / math.sqrt(len(v)) if len(v) > 1 else float('inf')

def geo_range(ph):
    # the figure's interval: each phase's mean +- its interval, combined as the figure is
    lo = math.exp(sum(math.log(max(1e-9, statistics.mean(v) - ci95(v))) for v in ph.values()) / 2)
    hi = math.exp(sum(math.log(statistics.mean(v) + ci95(v)) for v in ph.values()) / 2)
    return lo, hi

full, fspan, fn = figures(os.path.join(work, 'full.db'), False)
best = max(full, key=lambda k: full[k][0])
blo, bhi = geo_range(full[best][1])
name = lambda k: ' '.join('%s=%s' % (a, b) for a, b in zip(KEYS, k))
print()
print('  full sweep: %d combination-runs, the best %s at %.1f MB/s (geometric mean of write and read; '
      '95 %% interval %.1f-%.1f)' % (fn, name(best), full[best][0], blo, bhi))
alike = [k for k in full if geo_range(full[k][1])[1] >= blo]
print('  within the noise of it in the full sweep: %d of %d: %s' % (len(alike), len(full),
      ', '.join(name(k) for k in sorted(alike, key=lambda k: -full[k][0]))))
print()
print('  %-4s %-50s %-9s %-8s %-12s %-10s %-10s' % ('run', 'pick', 'MB/s', 'of best', 'within noise',
      'runs', 'span, wall'))
full_ms = float(os.environ['FULL_MS'])
within, spans, walls = 0, [], []
for i, line in enumerate(open(os.path.join(work, 'halving'))):
    db, ms = line.split()
    h, hspan, hn = figures(db, True)
    pick = max(h, key=lambda k: h[k][0])
    share = full[pick][0] / full[best][0]
    plo, phi = geo_range(full[pick][1])
    within += phi >= blo
    spans.append(hspan / fspan)
    walls.append(float(ms) / full_ms)
    print('  %-4d %-50s %-9.1f %-8.2f %-12s %-10s %.2f, %.2f' % (
        i + 1, name(pick), full[pick][0], share, 'yes' if phi >= blo else 'NO',
        '%d/%d' % (hn, fn), spans[-1], walls[-1]))
print()
print('  %d of %d picks within the full sweep\'s noise of its best; phase time %.2f [%.2f-%.2f], '
      'wall time %.2f [%.2f-%.2f] of the full sweep\'s (median [range])' % (
          within, len(spans), statistics.median(spans), min(spans), max(spans),
          statistics.median(walls), min(walls), max(walls)))
PY
# what the admin reads after the first halving run: advise, as a user runs it
echo
echo "  stcluster advise of halving run 1:"
"$ST" advise --db "$WORK/h0.db" | sed 's/^/    /'
