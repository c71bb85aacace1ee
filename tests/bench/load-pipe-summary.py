#!/usr/bin/env python3
"""Summary of load-pipe-rounds.sh output: rounds whose two probes both show two cores free
(CPU / wall >= 1.5), and those where both show one (< 1.15); wall, CPU and the scanner's thread CPU
(bench-load's last column), best / median, per file and build."""
import collections
import statistics as st
import sys

rounds, cur = [], None
for line in open(sys.argv[1]):
    f = line.split()
    if line.startswith('# round'):
        cur = {'probes': [], 'rows': []}
        rounds.append(cur)
        continue
    if line.startswith('#') or cur is None or len(f) < 9:
        continue
    if f[0] == 'probe':
        cur['probes'].append(float(f[7]) / float(f[4]))
    else:
        cur['rows'].append(f)
for gate, name in ((lambda p: min(p) >= 1.5, 'two cores free'), (lambda p: max(p) < 1.15, 'one core free')):
    d, n = collections.defaultdict(list), 0
    for r in rounds:
        if len(r['probes']) < 2 or not gate(r['probes']):
            continue
        n += 1
        for f in r['rows']:
            d[(f[2], f[0])].append((float(f[4]), float(f[7]), float(f[9]) if len(f) > 9 else None))
    print('==', name, 'rounds', n)
    for k in sorted(d):
        w = [x[0] for x in d[k]]
        c = [x[1] for x in d[k]]
        m = [x[2] for x in d[k] if x[2] is not None]
        print('%-26s %-4s n=%2d wall %.3f / %.3f  CPU %.3f / %.3f  scanner thread CPU %s' %
              (k[0], k[1], len(w), min(w), st.median(w), min(c), st.median(c),
               '%.3f' % st.median(m) if m else '-'))
