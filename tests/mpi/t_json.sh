# --format json as a program reads it (issue 21 item 5): every subcommand's
# document validates against sql/schema.json (python3-jsonschema) on four
# kinds of runs, data, metadata, rwmix and option sets, with the same keys
# in every run; and the latency percentiles report asks the stored
# histograms for (--percentiles), against the null engine's known delays.

# js_runs DB: the four kinds of runs, null engine, 2 ranks, labelled
js_runs() {
	$MPIRUN -np 2 $ST --engine null --block 4k,16k --size 64k --label data --db "$1" --quiet &&
		$MPIRUN -np 2 $ST --engine null --files 8 --phases create,stat --threads 1,2 --label meta \
			--db "$1" --quiet &&
		$MPIRUN -np 2 $ST --engine null --phases rw --rwmix 70 --block 4k --size 64k --threads 1,2 \
			--label rwmix --db "$1" --quiet &&
		$MPIRUN -np 2 $ST --engine null --size 64k --set 'block=4k,threads=2' --set 'threads=1' \
			--label sets --db "$1" --quiet
}

t_json_every_subcommand_validates_with_the_same_keys() {
	js_runs "$T/s.db" || return 1
	for label in data meta rwmix sets; do
		run=$(q s.db "SELECT run_id FROM run WHERE label = '$label'")
		$ST report --run "$run" --db s.db --format json >"report.$label.json" &&
			$ST report --run "$run" --top 2 --db s.db --format json >"top.$label.json" &&
			$ST report --run "$run" --percentiles 50,90,99.9 --db s.db --format json >"pct.$label.json" &&
			$ST effects --run "$run" --db s.db --format json >"effects.$label.json" &&
			$ST compare "$run" "$run" --db s.db --format json >"compare.$label.json" &&
			$ST history --where "1" --db s.db --format json >"history.$label.json" &&
			$ST audit "$run" --db s.db --format json >"audit.$label.json" &&
			$ST advise --run "$run" --db s.db --format json >"advise.$label.json" &&
			$ST runs --db s.db --format json >"runs.$label.json" &&
			$ST query "SELECT run_id, label FROM run WHERE label = '$label'" --db s.db \
				--format json >"query.$label.json" || fail "$label: a subcommand failed" || return 1
	done
	python3 - "$TOP/sql/schema.json" <<'EOF' || fail "the documents against the schema" || return 1
import copy, json, sys
import jsonschema
schema = json.load(open(sys.argv[1]))
jsonschema.Draft202012Validator.check_schema(schema)
v = jsonschema.Draft202012Validator(schema)
def keys(x, at='', lists=True):
    """every key path of a document's rows (options and percentiles within;
    without lists, not the keys inside arrays: advise's hold one item per
    option that varied, which the schema checks)"""
    out = set()
    if isinstance(x, dict):
        for k, y in x.items():
            out.add(at + k)
            out |= keys(y, at + k + '.', lists)
    elif isinstance(x, list) and lists:
        for y in x:
            out |= keys(y, at + '[].', lists)
    return out
cmds = {'report': 'report', 'top': 'top', 'pct': 'report', 'effects': 'effects', 'compare': 'compare',
        'history': 'history', 'audit': 'audit', 'runs': 'runs', 'query': 'query', 'advise': 'advise'}
for f, cmd in cmds.items():
    seen = {}
    for label in ('data', 'meta', 'rwmix', 'sets'):
        d = json.load(open('%s.%s.json' % (f, label)))
        errs = list(v.iter_errors(d))
        assert not errs, (f, label, [e.message for e in errs[:3]])
        assert d['schema_version'] == 1 and d['command'] == cmd, (f, label, d['command'])
        assert d['rows'], (f, label, 'no rows')
        rows = set(frozenset(keys(r, lists=cmd != 'advise')) for r in d['rows'])
        assert len(rows) == 1, (f, label, 'rows of different keys', rows)
        seen[label] = rows.pop()
    ref = seen['data']
    for label, k in seen.items():
        assert k == ref, (f, label, sorted(k ^ ref))
    # the schema can fail: a row without one of its keys, or with one more
    d = json.load(open('%s.data.json' % f))
    if cmd != 'query':
        bad = copy.deepcopy(d)
        bad['rows'][0].pop(sorted(bad['rows'][0])[0])
        assert list(v.iter_errors(bad)), (f, 'a missing key passed')
        bad = copy.deepcopy(d)
        bad['rows'][0]['extra_key'] = 1
        assert list(v.iter_errors(bad)), (f, 'an extra key passed')
    print('%s: 4 runs valid, %d keys a row' % (f, len(ref)))
EOF
	# base units: the report's bytes per second are the raw rows' bytes / span
	python3 - <<'EOF' || fail "base units" || return 1
import json, sqlite3
con = sqlite3.connect('s.db')
for label in ('data', 'rwmix'):
    d = json.load(open('report.%s.json' % label))
    for r in d['rows']:
        b, lo, hi = con.execute("SELECT SUM(bytes), MIN(start_ns), MAX(end_ns) FROM rank_result "
                                "WHERE combo_id = ? AND phase = ? AND role = 'client'",
                                (r['combo_id'], r['phase'])).fetchone()
        assert r['bytes'] == b and r['span_ns'] == hi - lo, r
        assert abs(r['bytes_per_s'] - b * 1e9 / (hi - lo)) <= 1e-6 * r['bytes_per_s'], r
        assert isinstance(r['options']['block'], int) and r['options']['block'] in (4096, 16384), r
        mixed = r['phase'] in ('rw', 'randrw')
        assert (r['read_pct'] is not None) == mixed, r
d = json.load(open('report.meta.json'))
assert all(r['phase'] in ('create', 'stat') and r['ops_per_s'] > 0 for r in d['rows']), d['rows']
t = json.load(open('top.meta.json'))
assert all(r['figure_unit'] == 'ops_per_s' for r in t['rows']), t['rows']
EOF
}

# js_hist_pcts DB QS...: per combination and phase, the percentiles QS
# (0-100) of the client ranks' stored histograms merged, and the max,
# computed here from the blobs as store/histblob.h and common/hist.h
# describe them (varints: count, sum, min, max, then per bucket its index
# step and count; a value is the middle of its bucket, by nearest rank),
# not by stcluster's code
js_hist_pcts() {
	python3 - "$@" <<'EOF'
import json, math, sqlite3, sys
con = sqlite3.connect(sys.argv[1])
qs = [float(q) for q in sys.argv[2:]]
def varints(b):
    v = shift = 0
    for x in b:
        v |= (x & 0x7f) << shift
        shift += 7
        if not x & 0x80:
            yield v
            v = shift = 0
def bucket_mid(i):
    if i < 8:
        return i
    e, sub = (i - 8) // 8 + 3, (i - 8) % 8
    w = 1 << (e - 3)
    lo = (1 << e) + sub * w
    return lo + (w - 1) // 2
out = {}
for cid, phase in con.execute("SELECT DISTINCT combo_id, phase FROM rank_result WHERE role = 'client'"):
    n, lo, hi, buckets = 0, None, 0, {}
    for blob, enc in con.execute("SELECT hist, hist_enc FROM rank_result WHERE combo_id = ? AND phase = ? "
                                 "AND role = 'client' AND hist IS NOT NULL", (cid, phase)):
        assert enc == 1, enc
        v = list(varints(blob))
        n += v[0]
        lo = v[2] if lo is None else min(lo, v[2])
        hi = max(hi, v[3])
        i = -1
        for step, c in zip(v[4::2], v[5::2]):
            i += step
            buckets[i] = buckets.get(i, 0) + c
    got = []
    for q in qs:
        want = max(1, math.ceil(q / 100 * n))
        seen = 0
        for i in sorted(buckets):
            seen += buckets[i]
            if seen >= want:
                got.append(min(max(bucket_mid(i), lo), hi))
                break
    out['%d %s' % (cid, phase)] = got + [hi]
print(json.dumps(out))
EOF
}

t_json_percentiles_from_the_stored_histograms() {
	# rank 1's calls take 30 ms more than rank 0's: a spread of latencies
	$MPIRUN -np 2 $ST --engine null --null-delay 1ms --null-delay-step 30ms --block 4k --size 64k,128k \
		--phases write,read --db "$T/s.db" --quiet || return 1
	js_hist_pcts s.db 25 75 99.9 >want.json || return 1
	js_hist_pcts s.db 50 99 >want_def.json || return 1
	$ST report --db s.db --percentiles 25,75,99.9 --format json >p.json || return 1
	$ST report --db s.db --percentiles 25,75,99.9 --format csv >p.csv || return 1
	$ST report --db s.db --format csv >def.csv || return 1
	python3 - <<'EOF' || fail "percentiles against the stored histograms" || return 1
import csv, json, sqlite3
con = sqlite3.connect('s.db')
want, want_def = json.load(open('want.json')), json.load(open('want_def.json'))
rows = json.load(open('p.json'))['rows']
assert len(rows) == 4, rows
for r in rows:
    p = r['latency_percentiles_ns']
    assert [x['percentile'] for x in p] == [25, 75, 99.9], p
    got = [x['ns'] for x in p] + [r['latency_max_ns']]
    assert got == want['%d %s' % (r['combo_id'], r['phase'])], (r['combo_id'], r['phase'], got, want)
    assert got == sorted(got), got
c = list(csv.DictReader(open('p.csv')))
assert [k for k in c[0] if k.endswith(' us')] == ['p25 us', 'p75 us', 'p99.9 us', 'max us'], list(c[0])
for row, r in zip(c, rows):
    us = [float(row[k]) for k in ('p25 us', 'p75 us', 'p99.9 us', 'max us')]
    ns = [x['ns'] for x in r['latency_percentiles_ns']] + [r['latency_max_ns']]
    assert all(abs(u - n / 1e3) <= 0.051 for u, n in zip(us, ns)), (us, ns)
# the default, 50 and 99: the figures the run stored in phase_run too
d = list(csv.DictReader(open('def.csv')))
assert [k for k in d[0] if k.endswith(' us')] == ['p50 us', 'p99 us', 'max us'], list(d[0])
stored = con.execute("SELECT c.combo_id, p.phase, lat_p50_ns, lat_p99_ns, lat_max_ns FROM phase_run p "
                     "JOIN combo c USING (combo_id) ORDER BY c.seq, p.phase_order").fetchall()
assert len(stored) == len(d) == 4, (stored, d)
for row, (cid, phase, p50, p99, mx) in zip(d, stored):
    assert want_def['%d %s' % (cid, phase)] == [p50, p99, mx], (cid, phase, p50, p99, mx)
    for k, v in (('p50 us', p50), ('p99 us', p99), ('max us', mx)):
        assert abs(float(row[k]) - v / 1e3) <= 0.051, (row, k, v)
EOF
	for bad in 0 100 x 50,,99 -1; do
		$ST report --db s.db --percentiles "$bad" >out.txt 2>err.txt
		expect_eq "$?" 2 "--percentiles $bad: exit status" || return 1
		expect_eq "$(wc -l <err.txt) $(wc -c <out.txt)" "1 0" "--percentiles $bad: one line, no output" || return 1
	done
	grep -q "^stcluster report: --percentiles: '-1' is not a percentile" err.txt || fail "message: $(cat err.txt)"
}

t_json_run_output_file_is_the_report_document() {
	$MPIRUN -np 2 $ST --engine null --block 4k,16k --size 64k --db "$T/s.db" --quiet \
		--output "$T/run.json" --output-format json || return 1
	run=$(q s.db "SELECT run_id FROM run")
	$ST report --run "$run" --db s.db --format json >report.json || return 1
	cmp -s run.json report.json || fail "--output differs from report --format json: $(diff run.json report.json | head -3)" ||
		return 1
	python3 -c "import json; d = json.load(open('run.json')); assert d['run_id'] == '$run' and len(d['rows']) == 4, d" ||
		fail "the run's document" || return 1
	# a file that exists is never written over: refused before the run, as it was
	sum=$(sha256sum <run.json)
	$MPIRUN -np 2 $ST --engine null --block 4k --size 16k --db "$T/s.db" --quiet --output "$T/run.json" \
		--output-format json >out.txt 2>err.txt
	expect_eq "$?" 2 "--output over a file: exit status" || return 1
	grep -q "^stcluster: --output: '$T/run.json' exists" err.txt || fail "message: $(cat err.txt)" || return 1
	expect_eq "$(sha256sum <run.json)" "$sum" "the file that was there" || return 1
	expect_eq "$(q s.db "SELECT COUNT(*) FROM run")" 1 "no run stored" || return 1
	# the table, with --quiet too
	$ST --engine null --block 4k --size 16k --db "$T/s.db" --quiet --output "$T/run.txt" || return 1
	grep -q "^# run $(q s.db "SELECT run_id FROM run ORDER BY started_at DESC LIMIT 1");" run.txt ||
		fail "--output table: $(head -2 run.txt)"
}
