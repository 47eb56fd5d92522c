# compare, effects, history, report --top and --html, the man page: stores
# built by real runs (the null engine with known delays, a small posix run),
# every figure checked against one computed here by python3 from the raw
# rank_result rows, the HTML page rendered by headless Chromium.
#
# The null engine makes a phase take calls x delay: with --block 16k
# --size 128k (8 calls per thread) and --null-delay 2ms against 6ms, the
# second is three times slower, a difference no machine noise hides (the
# expected ratios have wide bounds: a loaded machine adds to every phase).

# an_run DB ARGS...: a null-engine job of 2 ranks into DB
an_run() {
	db=$1
	shift
	$MPIRUN -np 2 $ST --engine null --db "$db" --quiet "$@"
}

# an_id DB LABEL: the run id of the run with that label
an_id() { q "$1" "SELECT run_id FROM run WHERE label = '$2'"; }

# The sweep options, as the binary's own --help lists them.
an_sweep_options() { $ST --help | sed -n 's/^  --\([a-z-]*\) .*\[sweep\].*/\1/p'; }

# an_effects_check DB RUN JSON OPTION...: the effects output (JSON) against
# main effects and two-way interactions computed from the raw rows.
an_effects_check() {
	python3 - "$@" <<'EOF'
import json, sqlite3, statistics, sys, itertools
db, run, path, opts = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4:]
con = sqlite3.connect(db)
def size_text(v):
    for unit, k in (('t', 4), ('g', 3), ('m', 2), ('k', 1)):
        if v > 0 and v % 1024 ** k == 0:
            return '%d%s' % (v // 1024 ** k, unit)
    return str(v)
sizes = {'block', 'size', 'rsize', 'wsize', 'rwsize'}
level = {}
for row in con.execute('SELECT combo_id, %s FROM combo WHERE run_id = ?' % ', '.join('"%s"' % o for o in opts), (run,)):
    level[row[0]] = {o: (size_text(v) if o in sizes else str(v)) for o, v in zip(opts, row[1:])}
# the aggregate of each combination and phase, from the raw per-rank rows
obs = con.execute('''SELECT r.combo_id, r.phase, SUM(r.bytes) * 1000.0 / (MAX(r.end_ns) - MIN(r.start_ns))
                     FROM rank_result r JOIN combo c ON c.combo_id = r.combo_id
                     JOIN phase_run p ON p.combo_id = r.combo_id AND p.phase = r.phase
                     WHERE c.run_id = ? AND r.role = 'client' AND p.status = 'ok'
                     GROUP BY r.combo_id, r.phase''', (run,)).fetchall()
want = {}
for phase in {o[1] for o in obs}:
    ys = [(cid, y) for cid, ph, y in obs if ph == phase]
    grand = statistics.mean(y for _, y in ys)
    main = {}
    for o in opts:
        for lv in sorted({level[c][o] for c, _ in ys}):
            v = [y for c, y in ys if level[c][o] == lv]
            main[o, lv] = statistics.mean(v)
            want[phase, o, lv] = dict(n=len(v), mbps=main[o, lv], sd=statistics.stdev(v) if len(v) > 1 else None,
                                      min=min(v), max=max(v), departure=main[o, lv] - grand)
        ms = [m for (oo, _), m in main.items() if oo == o]
        for lv in {l for (oo, l) in main if oo == o}:
            want[phase, o, lv]['effect'] = max(ms) - min(ms) if len(ms) > 1 else None
    for a, b in itertools.combinations(opts, 2):
        cells = {}
        for c, y in ys:
            cells.setdefault((level[c][a], level[c][b]), []).append(y)
        dep = {k: statistics.mean(v) - main[a, k[0]] - main[b, k[1]] + grand for k, v in cells.items()}
        both = len({k[0] for k in cells}) > 1 and len({k[1] for k in cells}) > 1
        for k, v in cells.items():
            want[phase, a + ' x ' + b, k[0] + ' x ' + k[1]] = dict(n=len(v), mbps=statistics.mean(v), departure=dep[k],
                                                               effect=max(dep.values()) - min(dep.values()) if both else None)
got = {(r['phase'], r['option'], r['level']): r for r in json.load(open(path))['rows']}
assert set(got) == set(want), (sorted(set(got) ^ set(want)))
for k, w in want.items():
    g = got[k]
    assert g['n'] == w['n'], (k, g, w)
    assert g['figure_unit'] == 'bytes_per_s', g
    # JSON: bytes per second, unrounded (the table's MB/s are rounded to 0.1)
    for name, col in (('mbps', 'mean'), ('departure', 'departure'), ('effect', 'effect'), ('sd', 'sd'), ('min', 'min'), ('max', 'max')):
        if name in w and w[name] is None:
            assert g[col] is None, (k, col, g[col])
        elif name in w:
            assert abs(g[col] / 1e6 - w[name]) <= 1e-6 * max(1, abs(w[name])), (k, col, g[col], w[name])
print('effects: %d rows match the raw rows' % len(want))
EOF
}

# an_welch_check DB RUN_A RUN_B JSON OPTION: compare's figures for the
# combinations both runs share against Welch's test computed here (the p
# by integrating the t density numerically: independent of stats.c).
an_welch_check() {
	python3 - "$@" <<'EOF'
import json, math, sqlite3, statistics, sys
db, ra, rb, path, opt = sys.argv[1:6]
con = sqlite3.connect(db)
def samples(run):
    s = {}
    for v, phase, y in con.execute('''SELECT c."%s", r.phase, SUM(r.bytes) * 1000.0 / (MAX(r.end_ns) - MIN(r.start_ns))
            FROM rank_result r JOIN combo c ON c.combo_id = r.combo_id
            JOIN phase_run p ON p.combo_id = r.combo_id AND p.phase = r.phase
            WHERE c.run_id = ? AND r.role = 'client' AND p.status = 'ok'
            GROUP BY r.combo_id, r.phase''' % opt, (run,)):
        s.setdefault((phase, str(v)), []).append(y)
    return s
def pdf(x, v):
    return math.exp(math.lgamma((v + 1) / 2) - math.lgamma(v / 2)) / math.sqrt(v * math.pi) * (1 + x * x / v) ** (-(v + 1) / 2)
def p2(t, v):
    t = abs(t); n = 20000; h = t / n
    s = pdf(0, v) + pdf(t, v) + sum((4 if i % 2 else 2) * pdf(i * h, v) for i in range(1, n))
    return max(0.0, 1 - 2 * s * h / 3)
a, b = samples(ra), samples(rb)
rows = json.load(open(path))['rows']
assert rows, 'no shared combination'
for r in rows:
    k = (r['phase'], str(r['options'][opt]))
    xa, xb = a.get(k, []), b.get(k, [])
    assert r['a_n'] == len(xa) and r['b_n'] == len(xb), (r, len(xa), len(xb))
    if not xa or not xb:
        assert r['verdict'].startswith('failed in'), r
        continue
    ma, mb = statistics.mean(xa), statistics.mean(xb)
    assert abs(r['a_mean'] / 1e6 - ma) <= 1e-6 * ma and abs(r['b_mean'] / 1e6 - mb) <= 1e-6 * mb, (r, ma, mb)
    assert abs(r['change_pct'] - 100 * (mb - ma) / ma) <= 1e-6 * max(1, abs(r['change_pct'])), r
    if len(xa) < 3 or len(xb) < 3:
        assert r['verdict'].startswith('too few iterations'), r
        continue
    va, vb = statistics.variance(xa) / len(xa), statistics.variance(xb) / len(xb)
    if va + vb == 0:
        p = 1.0 if ma == mb else 0.0
    else:
        t = (mb - ma) / math.sqrt(va + vb)
        df = (va + vb) ** 2 / (va ** 2 / (len(xa) - 1) + vb ** 2 / (len(xb) - 1))
        p = p2(t, df)
    assert abs(r['p'] - p) <= 0.0002, (r, p)
    want = ('better' if mb > ma else 'worse') if p < 0.05 else 'within noise'
    assert r['verdict'] == want, (r, want)
print('compare: %d rows match Welch computed from the raw rows' % len(rows))
EOF
}

t_effects_match_raw_rows_and_null_delays() {
	# 2 ranks x threads x 64k over (64k/block) calls of 4 ms each
	an_run s.db --null-delay 4ms --block 4k,16k --threads 1,2 --size 64k --iterations 2 || return 1
	run=$(q s.db "SELECT run_id FROM run")
	$ST effects --db s.db --format json >e.json || return 1
	an_effects_check s.db "$run" e.json block threads || fail "effects against the raw rows" || return 1
	# the null engine's figures: 2 x threads x block / 4 ms at most, each
	# combination late by what it measured itself (tests/lib.sh)
	oracle_check s.db 4000000 auto || fail "effects' figures against the null engine's schedule" || return 1
	python3 - <<'EOF' || fail "effects sorted by effect" || return 1
import json
rows = json.load(open('e.json'))['rows']
for phase in ('write', 'read'):
    mains = [r for r in rows if r['phase'] == phase and r['kind'] == 'main']
    effects = [r['effect'] for r in mains]
    assert effects == sorted(effects, reverse=True), (phase, effects)
EOF
	# the same query from the sqlite3 shell, with the run as a parameter
	sqlite3 -batch -csv s.db ".param set :run \"'$run'\"" ".read $TOP/sql/queries/effects.sql" >shell.csv ||
		fail "effects.sql in the sqlite3 shell" || return 1
	expect_eq "$(wc -l <shell.csv)" "$(python3 -c "import json; print(len(json.load(open('e.json'))['rows']))")" \
		"rows from the shell and from stcluster effects" || return 1
	$ST effects --db s.db --run nosuch >/dev/null 2>err.txt
	expect_eq "$?" 2 "effects with an unknown run" || return 1
	expect_eq "$(cat err.txt)" "stcluster effects: --run: no run 'nosuch' in the store" "message" || return 1
}

# an_factors JSON: the options of effects' rows (JSON), main and interaction,
# sorted, one line
an_factors() {
	python3 -c "import json, sys; print(' '.join(sorted({r['option'] for r in json.load(open(sys.argv[1]))['rows']})))" "$1"
}

t_effects_tied_dimensions_are_one_factor() {
	# rwsize gives rsize and wsize: one factor, not three "interacting";
	# a set gives vers and rsize: one factor 'set', its levels the names
	an_run s.db --null-delay 2ms --block 16k --size 64k --threads 1,2 --rwsize 64k,1m --label rw || return 1
	an_run s.db --null-delay 2ms --block 16k --size 64k --threads 1,2 \
		--set 'v3:vers=3,rsize=64k' --set 'v4:vers=4,rsize=1m' --label sets || return 1
	rw=$(an_id s.db rw)
	sets=$(an_id s.db sets)
	expect_eq "$(q s.db "SELECT group_concat(v) FROM (SELECT DISTINCT \"set\" || '/' || vers || '/' || rsize AS v FROM combo WHERE run_id = '$sets' ORDER BY v)")" \
		"v3/3/65536,v4/4/1048576" "the sets' names stored, their options beside them" || return 1
	for r in rw sets; do
		eval id=\$$r
		$ST effects --db s.db --run "$id" --format json >e-$r.json || return 1
		$ST report --db s.db --run "$id" --html $r.html || return 1
	done
	expect_eq "$(an_factors e-rw.json)" "rwsize threads threads x rwsize" "effects over --rwsize" || return 1
	an_effects_check s.db "$rw" e-rw.json threads rwsize || fail "effects over --rwsize against the raw rows" || return 1
	expect_eq "$(an_factors e-sets.json)" "set threads threads x set" "effects over two sets" || return 1
	an_effects_check s.db "$sets" e-sets.json threads set || fail "effects over the sets against the raw rows" || return 1
	expect_eq "$(python3 -c "import json; print(' '.join(sorted({r['level'] for r in json.load(open('e-sets.json'))['rows'] if r['option'] == 'set'})))")" \
		"v3 v4" "the sets' levels are their names" || return 1
	# report's columns: the one factor, not the options it gives (the table's
	# header; JSON's options object has every sweep option, tied ones too)
	for r in rw sets; do
		$ST report --db s.db --run "$(an_id s.db $r)" --top 9 --format csv >top-$r.csv || return 1
	done
	python3 - <<'PY' || fail "report --top's columns" || return 1
import csv
for r, want, gone in (('rw', 'rwsize', ('rsize', 'wsize')), ('sets', 'set', ('vers', 'rsize'))):
    head = next(csv.reader(open('top-%s.csv' % r)))
    assert want in head and not any(g in head for g in gone), (r, head)
PY
	# the page: rwsize's size chart and its effects, no rsize or wsize at all
	grep -q 'rwsize (log scale)' rw.html || fail "the page charts rwsize" || return 1
	expect_eq "$(grep -ow 'rsize\|wsize' rw.html | wc -l)" 0 "rsize or wsize on the page of an --rwsize run" || return 1
	# the sets' page: set=v3 and set=v4 as levels; vers and rsize only in the command line
	grep -q 'set=v3: ' sets.html && grep -q 'set=v4: ' sets.html || fail "the page's levels of set" || return 1
	expect_eq "$(grep -o 'vers=[34][ :]\|&#215; vers\|&#215; rsize\|rsize &#215;\|"vers"' sets.html | wc -l)" 0 \
		"vers or rsize as a factor on the sets' page" || return 1
}

t_compare_welch_verdicts() {
	# 32 calls a phase: the null engine's schedule absorbs a stall shorter
	# than what is left of it, so a longer one keeps a busy machine's noise
	# below the 3x difference (at 8 calls, A read 27 +- 22 MB/s at load 6)
	common="--null-delay 2ms --block 16k --size 512k"
	an_run s.db $common --threads 1,2 --iterations 3 --label A || return 1
	an_run s.db --null-delay 6ms --block 16k --size 512k --threads 2,4 --iterations 3 --label B || return 1
	an_run s.db $common --threads 2 --label C || return 1
	expect_exit 1 an_run s.db $common --threads 2 --iterations 3 --null-error EIO --null-error-at 3 --label D || return 1
	A=$(an_id s.db A)
	B=$(an_id s.db B)
	C=$(an_id s.db C)
	D=$(an_id s.db D)
	# B is three times slower: worse, beyond any noise, on the one shared combination
	$ST compare --db s.db "$A" "$(echo "$B" | cut -c1-8)" --format json >ab.json || return 1
	python3 -c "
import json
d = json.load(open('ab.json'))['rows']
assert [(r['phase'], r['options']['threads']) for r in d] == [('write', 2), ('read', 2)], d
for r in d:
    assert r['verdict'] == 'worse' and -85 < r['change_pct'] < -30 and r['p'] < 0.05, r
" || fail "A against B" || return 1
	an_welch_check s.db "$A" "$B" ab.json threads || fail "compare's Welch figures" || return 1
	# a run against itself: no change, p = 1
	$ST compare --db s.db "$A" "$A" --format json >aa.json || return 1
	python3 -c "
import json
d = json.load(open('aa.json'))['rows']
assert len(d) == 4 and all(r['verdict'] == 'within noise' and r['change_pct'] == 0 and r['p'] == 1 for r in d), d
" || fail "A against itself" || return 1
	# one iteration in C: no verdict but an honest one
	$ST compare --db s.db "$A" "$C" --format json >ac.json || return 1
	an_welch_check s.db "$A" "$C" ac.json threads || fail "A against C" || return 1
	grep -q '"too few iterations' ac.json || fail "too few iterations" || return 1
	# D's writes all failed: said so, and its reads still compared
	$ST compare --db s.db "$A" "$D" --format json >ad.json || return 1
	an_welch_check s.db "$A" "$D" ad.json threads || fail "A against D" || return 1
	python3 -c "
import json
d = {r['phase']: r for r in json.load(open('ad.json'))['rows']}
assert d['write']['verdict'] == 'failed in B' and d['write']['b_mean'] is None, d
assert d['read']['b_n'] == 3, d
" || fail "failed phases in compare" || return 1
	$ST compare --db s.db "$A" "$B" >ab.txt || return 1
	grep -q "^# A = $(echo "$A" | cut -c1-8) (A, " ab.txt || fail "table note names the runs" || return 1
	$ST compare --db s.db "$A" nosuch >/dev/null 2>err.txt
	expect_eq "$?" 2 "compare with an unknown run" || return 1
	expect_eq "$(cat err.txt)" "stcluster compare: RUN_B: no run 'nosuch' in the store" "message" || return 1
	$ST compare --db s.db "$A" >/dev/null 2>&1
	expect_eq "$?" 2 "compare with one run" || return 1
}

# The verdict from the server's parts (issue 23 item 3), each rule against planted samples of
# a server rank (the VM lab's knfsd test measures them for real): a null run without
# baselines has no verdict; a phase whose export disk was busy 95 % is disk-bound with the
# disk and its figures; one whose knfsd host's CPUs were 95 % busy is "server CPU"; one where
# 70 of 100 calls found all 4 nfsd threads busy is "nfsd threads"; a disk that is not the
# export's (no export_disk point) names nothing. report, its JSON and the HTML show them.
t_verdict_from_the_server_parts() {
	an_run s.db --null-delay 1ms --block 64k --size 1m --phases write,read,rewrite,randread \
		--baseline off || return 1
	expect_eq "$(q s.db "SELECT COUNT(verdict) FROM verdict")" 0 "no baselines, no parts: no verdict" || return 1
	c=$(q s.db "SELECT combo_id FROM combo")
	sqlite3 s.db "INSERT INTO sample (combo_id, phase, rank, t_ns, metric, device, value) VALUES
		($c, 'write', 2, 1, 'export_disk', 'vdb', 1), ($c, 'write', 2, 1, 'disk_busy_pct', 'vdb', 94),
		($c, 'write', 2, 2, 'export_disk', 'vdb', 1), ($c, 'write', 2, 2, 'disk_busy_pct', 'vdb', 96),
		($c, 'write', 2, 1, 'disk_write_mbps', 'vdb', 19), ($c, 'write', 2, 2, 'disk_write_mbps', 'vdb', 20),
		($c, 'write', 2, 1, 'disk_busy_pct', 'vda', 100),
		($c, 'read', 2, 1, 'nfsd_threads', '', 4), ($c, 'read', 2, 1, 'nfsd_pool', 'packets', 60),
		($c, 'read', 2, 2, 'nfsd_pool', 'packets', 40), ($c, 'read', 2, 1, 'nfsd_pool', 'woken', 30),
		($c, 'read', 2, 1, 'cpu_user_pct', '', 20), ($c, 'read', 2, 1, 'cpu_sys_pct', '', 20),
		($c, 'rewrite', 2, 1, 'nfsd_threads', '', 8), ($c, 'rewrite', 2, 1, 'nfsd_pool', 'packets', 50),
		($c, 'rewrite', 2, 1, 'nfsd_pool', 'woken', 48),
		($c, 'rewrite', 2, 1, 'cpu_user_pct', '', 60), ($c, 'rewrite', 2, 1, 'cpu_sys_pct', '', 35),
		($c, 'randread', 2, 1, 'disk_busy_pct', 'vda', 100)" || return 1
	q s.db "SELECT phase, COALESCE(verdict, '-') FROM verdict ORDER BY phase" >v.txt
	cat >want.txt <<'EOF'
randread|-
read|nfsd threads: 70 % of the calls found all 4 of the server's threads busy: more of them (--server-threads) may help
rewrite|server CPU: the kernel NFS server's host had its CPUs 95 % busy
write|disk-bound: the export's disk vdb was busy 95 % of the phase, 19.5 MB/s written
EOF
	cmp -s v.txt want.txt || fail "verdicts: $(diff want.txt v.txt)" || return 1
	expect_eq "$(q s.db "SELECT export_disk || ' ' || disk_busy_pct || ' ' || disk_write_mbps FROM server_parts
		WHERE phase = 'write'")" "vdb 95.0 19.5" "server_parts of the write" || return 1
	$ST report --db s.db >r.txt || return 1
	grep -q "disk-bound: the export's disk vdb was busy 95 % of the phase" r.txt ||
		fail "report does not show the disk verdict: $(cat r.txt)" || return 1
	$ST report --db s.db --format json >r.json || return 1
	python3 -c "
import json
v = {r['phase']: r['verdict'] for r in json.load(open('r.json'))['rows']}
assert v['read'].startswith('nfsd threads: 70 %') and v['randread'] is None, v" ||
		fail "report --format json's verdicts" || return 1
	$ST report --db s.db --html r.html || return 1
	for want in "<h2>The server's side</h2>" '<td>vdb</td><td class="num">95</td>' \
		"nfsd threads: 70 % of the calls"; do
		grep -qF "$want" r.html || fail "the HTML lacks '$want'" || return 1
	done
}

t_history_flags_regression() {
	common="--block 16k --size 128k --sync sync,async --iterations 3"
	an_run s.db --null-delay 2ms $common --label H1 || return 1
	an_run s.db --null-delay 2ms $common --label H2 || return 1
	an_run s.db --null-delay 6ms $common --label H3 || return 1
	$ST history --db s.db --where "sync=async AND block=16k" --phase read --format json >h.json || return 1
	python3 - <<'EOF' || fail "history against the raw rows" || return 1
import json, sqlite3, statistics
d = json.load(open('h.json'))['rows']
assert [r['label'] for r in d] == ['H1', 'H2', 'H3'], d
assert all(r['options']['sync'] == 'async' for r in d), d
con = sqlite3.connect('s.db')
def mbps(label):
    return [y for (y,) in con.execute('''SELECT SUM(r.bytes) * 1000.0 / (MAX(r.end_ns) - MIN(r.start_ns))
        FROM rank_result r JOIN combo c ON c.combo_id = r.combo_id JOIN run USING (run_id)
        WHERE run.label = ? AND c.sync = 'async' AND r.phase = 'read' AND r.role = 'client'
        GROUP BY r.combo_id''', (label,))]
h1, h2, h3 = mbps('H1'), mbps('H2'), mbps('H3')
close = lambda got, want: abs(got - want) <= 1e-6 * max(1, abs(want))
assert d[0]['verdict'] == 'first run' and d[0]['earlier_runs'] == 0, d[0]
assert close(d[1]['earlier_mean'] / 1e6, statistics.mean(h1)), d[1]
prev = statistics.mean(h1 + h2)
assert d[2]['earlier_runs'] == 2 and close(d[2]['earlier_mean'] / 1e6, prev), (d[2], prev)
assert close(d[2]['mean'] / 1e6, statistics.mean(h3)), d[2]
assert close(d[2]['change_pct'], 100 * (statistics.mean(h3) - prev) / prev), d[2]
# the change itself is the raw rows' (above): planted 2 ms -> 6 ms calls, -67 %, which a
# loaded machine moves either way (-85.1 % once on a fresh root at load 8-10); a regression
assert d[2]['verdict'] == 'regression' and -100 < d[2]['change_pct'] < 0, d[2]
EOF
	# the whole history: both sync values, both phases, three runs each
	$ST history --db s.db --format csv >all.csv || return 1
	expect_eq "$(tail -n +2 all.csv | wc -l)" 12 "history rows (2 configurations x 2 phases x 3 runs)" || return 1
	$ST history --db s.db --where "rsize=1m" --format csv >none.csv || return 1
	expect_eq "$(tail -n +2 none.csv | wc -l)" 0 "no run had rsize=1m" || return 1
	$ST history --db s.db --where "bogus=1" >/dev/null 2>err.txt
	expect_eq "$?" 2 "history with a bad column" || return 1
	expect_eq "$(cat err.txt)" "stcluster history: --where: no such column: bogus" "message" || return 1
	$ST history --db s.db --where "1; DROP TABLE run" >/dev/null 2>&1
	expect_eq "$?" 2 "a second statement in --where" || return 1
	expect_eq "$(q s.db "SELECT COUNT(*) FROM run")" 3 "the store is untouched" || return 1
}

t_top_and_every_format_with_failures() {
	common="--null-delay 2ms --block 16k --size 128k --threads 1,2 --iterations 3"
	an_run s.db $common --label X || return 1
	expect_exit 1 an_run s.db $common --null-error EIO --null-error-at 3 --label Y || return 1
	X=$(an_id s.db X)
	Y=$(an_id s.db Y)
	# the admins' table: phase, the swept options, bytes, time, MB/s, clients, verdict
	$ST report --db s.db --run "$X" --top 1 --phase read --format csv >top.csv || return 1
	expect_eq "$(head -1 top.csv)" "phase,threads,iters,bytes,time s,MB/s,+-95%,min client,max client,client CPU %,client CPU us/MB,I/O threads us/MB,server CPU %,server CPU us/MB,verdict" \
		"report --top columns" || return 1
	expect_eq "$(tail -n +2 top.csv | wc -l)" 1 "one row" || return 1
	# the same row from the sqlite3 shell
	shell=$(sqlite3 -batch -noheader s.db ".param set :run \"'$X'\"" ".param set :phase \"'read'\"" \
		".param set :top 1" ".mode list" ".read $TOP/sql/queries/top.sql" | awk -F'|' '{print NF}')
	[ -n "$shell" ] || fail "top.sql in the sqlite3 shell" || return 1
	best=$(q s.db "SELECT ROUND(AVG(agg_mbps), 1) FROM phase_summary s JOIN combo c USING (combo_id)
		WHERE c.run_id = '$X' AND s.phase = 'read' GROUP BY c.matrix_index ORDER BY 1 DESC LIMIT 1")
	python3 -c "import csv; r = list(csv.DictReader(open('top.csv')))[0]; assert abs(float(r['MB/s']) - $best) < 0.06 and int(r['bytes']) == 2 * int(r['threads']) * 131072, r" ||
		fail "top 1 is the best mean" || return 1
	# every command, every format, with Y's failed writes in the store
	for cmd in "report --run $Y --top 5" "compare $X $Y" "effects --run $Y" "history" "history --where threads=2"; do
		for f in table csv json markdown; do
			$ST $cmd --db s.db --format $f >out.$f 2>err.txt || { cat err.txt; fail "$cmd --format $f"; return 1; }
		done
		python3 - "$cmd" <<'EOF' || fail "$cmd: output not valid" || return 1
import csv, json, sys
cmd = sys.argv[1]
j = json.load(open('out.json'))['rows']
c = list(csv.reader(open('out.csv')))
assert len(c) == len(j) + 1 and all(len(r) == len(c[0]) for r in c), cmd
md = [l for l in open('out.markdown') if l.startswith('|')]
assert len(md) == len(j) + 2, (cmd, len(md), len(j))
t = open('out.table').read().splitlines()
assert len(t) == len(j) + 2, (cmd, len(t), len(j))
if cmd.startswith('report'):
    w = [r for r in j if r['phase'] == 'write']
    assert w and all(r['mean'] is None and r['verdict'].startswith('error in 3 of 3') for r in w), w
if cmd.startswith('compare'):
    assert all(r['verdict'] == 'failed in B' for r in j if r['phase'] == 'write'), j
EOF
	done
	# the named queries run from the sqlite3 shell as they are
	for f in compare effects history top; do
		sqlite3 -batch s.db ".param set :run_a \"'$X'\"" ".param set :run_b \"'$Y'\"" \
			".read $TOP/sql/queries/$f.sql" >/dev/null 2>err.txt && [ ! -s err.txt ] ||
			{ cat err.txt; fail "sql/queries/$f.sql in the sqlite3 shell"; return 1; }
	done
}

t_posix_run_feeds_every_query() {
	mkdir target
	$MPIRUN -np 2 $ST --target "$T/target" --block 4k,64k --threads 1,2 --size 256k --iterations 3 \
		--db s.db --quiet || return 1
	run=$(q s.db "SELECT run_id FROM run")
	$ST effects --db s.db --format json >e.json || return 1
	an_effects_check s.db "$run" e.json block threads || fail "effects of the posix run" || return 1
	$ST compare --db s.db last last --format json >c.json || return 1
	expect_eq "$(python3 -c "import json; print(len(json.load(open('c.json'))['rows']))")" 8 \
		"compare: 4 combinations x 2 phases" || return 1
	$ST report --db s.db --top 2 --format json >t.json || return 1
	expect_eq "$(python3 -c "import json; print(len(json.load(open('t.json'))['rows']))")" 4 "top 2 per phase" || return 1
	$ST history --db s.db --where "block=64k AND threads=2" --format json >h.json || return 1
	python3 -c "import json; d = json.load(open('h.json'))['rows']; assert len(d) == 2 and all(r['verdict'] == 'first run' for r in d), d" ||
		fail "history of the posix run" || return 1
	$ST report --db s.db --html r.html || return 1
	grep -q "Main effects" r.html || fail "html of the posix run"
}

# At 192 combinations the page was one 9000-px chart, in matrix order. Per
# phase now: the best charted in descending MB/s, every combination in the
# phase's table with the store's figure; the page well formed.
t_html_many_combinations_sorted_per_phase_all_in_the_tables() {
	# 5 x 4 x 3 = 60 combinations: more than a phase's chart holds (20)
	an_run s.db --block 4k,8k,16k,32k,64k --threads 1,2,3,4 --size 64k,128k,256k \
		--phases write,read || return 1
	$ST report --db s.db --html p.html || return 1
	q s.db "SELECT phase || '|' || matrix_index || '|' || agg_mbps FROM result" >want.txt
	python3 - p.html want.txt <<'EOF' || fail "the page at 60 combinations" || return 1
import sys
from html.parser import HTMLParser
VOID = {'meta', 'br', 'hr', 'img', 'input', 'link', 'col', 'wbr'}
class Page(HTMLParser):
    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.stack, self.bars, self.tables, self.h3 = [], [], {}, []
        self.table = self.row = self.cell = None
    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag not in VOID:
            self.stack.append(tag)
        if tag == 'g' and a.get('class') == 'bar':
            self.bars.append((a['data-phase'], int(a['data-combo']), float(a['data-mbps'])))
        if tag == 'table' and 'ranking' in (a.get('class') or ''):
            self.table = self.tables.setdefault(a['data-phase'], [])
        if tag == 'tr' and self.table is not None and 'data-combo' in a:
            self.row = [int(a['data-combo'])]
            self.table.append(self.row)
        if tag == 'td' and self.row is not None:
            self.cell = ''
        if tag == 'h3':
            self.h3.append('')
    def handle_startendtag(self, tag, attrs):
        # <x/> is for SVG shapes only; an HTML element written so stays open
        assert tag in ('rect', 'line', 'circle', 'path', 'polyline', 'polygon') or tag in VOID, tag
    def handle_endtag(self, tag):
        assert self.stack and self.stack[-1] == tag, ('</%s>' % tag, self.stack[-5:])
        self.stack.pop()
        if tag == 'td' and self.row is not None:
            self.row.append(self.cell)
            self.cell = None
        if tag == 'tr':
            self.row = None
        if tag == 'table':
            self.table = None
    def handle_data(self, d):
        if self.cell is not None:
            self.cell += d
        if self.stack and self.stack[-1] == 'h3':
            self.h3[-1] += d
text = open(sys.argv[1]).read()
assert text.startswith('<!DOCTYPE html>'), 'no doctype'
p = Page()
p.feed(text)
p.close()
assert p.stack == [], ('unclosed', p.stack)
want = {}
for l in open(sys.argv[2]).read().split():
    ph, combo, mbps = l.split('|')
    want.setdefault(ph, {})[int(combo)] = float(mbps)
assert sorted(want) == ['read', 'write'] and all(len(v) == 60 for v in want.values()), want.keys()
# grouped: one heading and one table per phase, write before read
assert [h.split(':')[0].strip() for h in p.h3] == ['write', 'read'], p.h3
assert list(p.tables) == ['write', 'read'], list(p.tables)
for ph in ('write', 'read'):
    bars = [b for b in p.bars if b[0] == ph]
    # the chart: the phase's 20 best, in descending MB/s, with the store's figures
    assert len(bars) == 20, (ph, len(bars))
    assert all(x[2] >= y[2] for x, y in zip(bars, bars[1:])), (ph, [b[2] for b in bars])
    best = sorted(want[ph].values(), reverse=True)
    assert all(abs(b[2] - w) <= 1e-9 * w for b, w in zip(bars, best)), (ph, bars[:3], best[:3])
    assert all(abs(want[ph][c] - m) <= 1e-9 * m for _, c, m in bars), ph
    # the table: every combination once, best first, places 1.., the store's MB/s
    rows = p.tables[ph]
    assert sorted(r[0] for r in rows) == sorted(want[ph]), (ph, len(rows))
    assert [int(r[1]) for r in rows] == list(range(1, 61)), ph
    mb = [float(r[3]) for r in rows]
    assert all(x >= y for x, y in zip(mb, mb[1:])), (ph, mb)
    assert all(abs(float(r[3]) - round(want[ph][r[0]], 1)) < 0.051 for r in rows), ph
    assert [r[0] for r in rows[:20]] == [b[1] for b in bars], ph
print('60 combinations per phase: 20 charted best first, all 60 in each table')
EOF
}

# The metadata section joins phase_summary, which has a threads column of
# its own: with --threads swept, the label's bare "threads" was ambiguous,
# the statement failed and the section was left out of the page.
t_html_metadata_table_when_threads_vary() {
	an_run s.db --phases create,stat --files 10 --fanout 1,2 --threads 1,2 || return 1
	$ST report --db s.db --html p.html || return 1
	q s.db "SELECT (c.seq + 1) || '|threads=' || c.threads || ' fanout=' || c.fanout || '|' || s.phase || '|' ||
		s.ops FROM combo c JOIN phase_summary s USING (combo_id) ORDER BY c.seq, s.phase_order" >want.txt
	python3 "$TOP/tests/html_table.py" p.html 'Metadata operations per second' 0,1,2,8 >got.txt ||
		fail "the metadata table" || return 1
	expect_eq "$(wc -l <want.txt)" 8 "metadata phases in the store" || return 1
	cmp -s got.txt want.txt || fail "the metadata table against the store: $(diff got.txt want.txt | head -5)"
}

t_html_report_renders_in_chromium() {
	command -v chromium >/dev/null || { echo "chromium missing (sh tests/deps.sh install)"; return 77; }
	# a label to escape, and the 4k combinations' writes failing (16 calls; 16k: 4)
	expect_exit 1 an_run s.db --null-delay 2ms --block 4k,16k --threads 1,2 --size 64k --iterations 2 \
		--null-error EIO --null-error-at 5 --label '<script>alert("x")</script> & co' || return 1
	$ST report --db s.db --html r.html || return 1
	# self-contained: nothing fetched, no script
	grep -o 'https\?://[^"]*' r.html | grep -v '^http://www.w3.org/2000/svg$' && fail "a URL in the page" && return 1
	grep -qi '<script\|<link\|src=' r.html && fail "script, link or src in the page" && return 1
	grep -q '&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt; &amp; co' r.html || fail "label not escaped" || return 1
	profile=$(mktemp -d)
	chromium --headless --no-sandbox --disable-gpu --disable-quic --no-first-run \
		--disable-background-networking --disable-component-update --disable-sync \
		--user-data-dir="$profile" --screenshot="$T/shot.png" --window-size=1400,2000 \
		--dump-dom "file://$T/r.html" >dom.html 2>chromium.log
	rc=$?
	rm -rf "$profile"
	[ $rc = 0 ] || { tail -5 chromium.log; fail "chromium failed"; return 1; }
	for text in "Aggregate MB/s per combination and phase" "Main effects" \
		"Interaction of the two strongest options" "Throughput against size" "Which option matters" \
		"Bottleneck verdicts" "Failures" "Hosts" "Command line" "$(hostname)" \
		"$(q s.db 'SELECT run_id FROM run')" "no figure (errors)" "--null-error-at 5"; do
		grep -qF -- "$text" dom.html || fail "rendered page lacks '$text'" || return 1
	done
	grep -qi '<script' dom.html && fail "a script element in the rendered DOM" && return 1
	# the screenshot: a real page (many colours), with the write and read bars drawn
	python3 - "$T/shot.png" <<'EOF' || fail "screenshot" || return 1
import collections, struct, sys, zlib
d = open(sys.argv[1], 'rb').read()
assert d[:8] == b'\x89PNG\r\n\x1a\n', 'not a PNG'
pos, idat = 8, b''
while pos < len(d):
    l, = struct.unpack('>I', d[pos:pos + 4]); t = d[pos + 4:pos + 8]; c = d[pos + 8:pos + 8 + l]; pos += 12 + l
    if t == b'IHDR': w, h, depth, ctype, _, _, interlace = struct.unpack('>IIBBBBB', c)
    elif t == b'IDAT': idat += c
assert (w, h) == (1400, 2000) and depth == 8 and ctype in (2, 6) and interlace == 0, (w, h, depth, ctype)
bpp = 3 if ctype == 2 else 4
stride = w * bpp
raw = zlib.decompress(idat)
# undo the PNG row filters; "Up" rows (most of them) as one big-integer
# bytewise addition, the others byte by byte
lo = int.from_bytes(b'\x7f' * stride, 'big'); hi = int.from_bytes(b'\x80' * stride, 'big')
prev, colours = bytes(stride), collections.Counter()
for y in range(h):
    f = raw[y * (stride + 1)]; line = raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)]
    if f == 2:
        x = int.from_bytes(line, 'big'); p = int.from_bytes(prev, 'big')
        line = (((x & lo) + (p & lo)) ^ ((x ^ p) & hi)).to_bytes(stride, 'big')
    elif f != 0:
        out = bytearray(line)
        for i in range(stride):
            a = out[i - bpp] if i >= bpp else 0; b = prev[i]; c = prev[i - bpp] if i >= bpp else 0
            if f == 1: out[i] = (out[i] + a) & 255
            elif f == 3: out[i] = (out[i] + ((a + b) >> 1)) & 255
            else:
                pp = a + b - c; pa, pb, pc = abs(pp - a), abs(pp - b), abs(pp - c)
                out[i] = (out[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
        line = bytes(out)
    prev = line
    for x in range(0, stride, bpp):
        colours[line[x:x + 3]] += 1
white = colours[b'\xff\xff\xff']
assert len(colours) > 50 and white < 0.97 * w * h, (len(colours), white)
write, read = colours[bytes.fromhex('4e79a7')], colours[bytes.fromhex('f28e2b')]
assert write > 500 and read > 500, ('bars not drawn', write, read)
print('screenshot: %d colours, %d write and %d read bar pixels' % (len(colours), write, read))
EOF
	# keep the picture where a developer can look at it
	[ -z "${ST_KEEP_SCREENSHOT:-}" ] || cp "$T/shot.png" "$ST_KEEP_SCREENSHOT"
}

t_man_page_covers_every_option_and_subcommand() {
	$ST --help-man >stcluster.1 || return 1
	for opt in $($ST --help | sed -n 's/^  --\([a-z-]*\).*/\1/p'); do
		grep -q "^\\\\fB\\\\-\\\\-$(echo "$opt" | sed 's/-/\\\\-/g')\\\\fR" stcluster.1 ||
			fail "man page lacks --$opt" || return 1
	done
	for cmd in report runs query compare effects history audit advise; do
		grep -q "^\\\\fBstcluster $cmd\\\\fR" stcluster.1 || fail "man page lacks $cmd" || return 1
	done
	# the page the build made is the one this binary writes
	case "$ST" in
	"$TOP/stcluster") built="$TOP/build/stcluster.1" ;;
	*) built="$(dirname "$ST_BIN")/stcluster.1" ;;
	esac
	cmp -s stcluster.1 "$built" || fail "$built is not what $ST --help-man writes" || return 1
	if command -v man >/dev/null; then
		warnings=$(MANWIDTH=80 man --warnings -l stcluster.1 2>&1 >rendered.txt)
		expect_eq "$warnings" "" "man warnings" || return 1
		grep -q "Welch" rendered.txt || fail "rendered man page" || return 1
	fi
}

t_named_queries_name_every_sweep_option() {
	# compare, effects and history list the options by name (plain SQL has
	# no "every column but"): a new sweep option must be added there too
	for opt in $(an_sweep_options); do
		for f in compare effects history; do
			grep -qF "\"$opt\"" "$TOP/sql/queries/$f.sql" ||
				fail "sql/queries/$f.sql does not name the sweep option $opt" || return 1
		done
	done
	[ "$(an_sweep_options | wc -l)" -gt 10 ] || fail "no sweep options found in --help"
}
