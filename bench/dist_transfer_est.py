"""Estimated ours/openGJK per row from the run pairs of dist_transfer.sh:
(ours now / ours then, same run pair and mode) x (anchors' rve / openGJK).
Default path: the lean call now against the full call then for 8, 32 and
the point rows (their only path), the brute-force support from 128."""
import sys

# ../shared/anchors.md, openGJK section: (distant, touching) rve default / openGJK
ANCHOR = {8: (178 / 133, 458 / 428), 32: (392 / 341, 985 / 956), 128: (1340 / 1250, 3170 / 2960),
          512: (5150 / 4890, 12600 / 11500), 2048: (24500 / 23300, 68000 / 62300), 'pt': (174 / 189, 461 / 495)}


def parse(path):
    rows = {}
    for line in open(path):
        if (' vs ' in line or line.startswith('point')) and len(line) > 60:
            label = line[:26].strip()
            cols = [None if x == '-' else float(x) for x in line[26:26 + 13 * 3].split()]
            rows[label] = (cols, line.split()[-2])
    return rows


def estimates(now, then):
    out = {}
    for label, (v, calls) in now.items():
        if 'overlapping' in label or 'per call' in label or label not in then:
            continue
        t = then[label][0]
        key = 'pt' if label.startswith('point') else int(label.split()[0])
        touching = 1 if 'touch' in label else 0
        ns_now, ns_then = (v[1], t[0]) if key in (8, 32, 'pt') else (v[2], t[2])
        out[label] = (ns_now, ns_then, ns_now / ns_then * ANCHOR[key][touching], calls)
    return out


def main():
    d, runs = sys.argv[1], int(sys.argv[2])
    for mode in ('posed', 'world'):
        print('\n%s (%s)' % ('posed bodies' if mode == 'posed' else 'bare vertex arrays, identity poses', mode))
        print('%-26s %18s %18s %14s %s' % ('row', 'ours now (ns)', 'ours then (ns)', 'est. /openGJK', 'calls'))
        per = [estimates(parse('%s/now_%s_%d' % (d, mode, r)), parse('%s/then_%s_%d' % (d, mode, r)))
               for r in range(1, runs + 1)]
        for label in per[0]:
            vals = [p[label] for p in per if label in p]
            fmt = lambda i, f: ', '.join(f % x[i] for x in vals)
            worst = max(x[2] for x in vals)
            print('%-26s %18s %18s %14s %s%s' % (label, fmt(0, '%.0f'), fmt(1, '%.0f'), fmt(2, '%.2f'),
                                                vals[0][3], '' if worst <= 0.9 else '  above 0.9'))


if __name__ == '__main__':
    main()
