#!/usr/bin/env python3
"""gen-scaled.py: a large trace from a shared one, for the load and memory
benchmarks (docs/benchmarks.md, "Scale").

    gen-scaled.py IN.json[.gz] OUT.json N [--rank R]

Writes the traceEvents of IN N times one after the other in time (copy k
shifted by k x the trace's span, plus 1 ms), correlation / External id /
flow ids offset per copy so they stay unique, metadata ("M") events once;
the other top-level keys as in IN (distributedInfo.rank set to R when
given, for multi-rank sets). One event per line, as Kineto writes them."""
import gzip
import json
import sys


def main():
    args = sys.argv[1:]
    rank = None
    if "--rank" in args:
        i = args.index("--rank")
        rank = int(args[i + 1])
        del args[i:i + 2]
    if len(args) != 3:
        sys.exit(__doc__)
    src, dst, n = args[0], args[1], int(args[2])
    opener = gzip.open if src.endswith(".gz") else open
    with opener(src, "rt") as f:
        doc = json.load(f)
    events = doc.pop("traceEvents")
    timed = [e for e in events if isinstance(e.get("ts"), (int, float))]
    lo = min(e["ts"] for e in timed)
    hi = max(e["ts"] + (e.get("dur") or 0) for e in timed)
    span = (hi - lo) + 1000
    if rank is not None and isinstance(doc.get("distributedInfo"), dict):
        doc["distributedInfo"]["rank"] = rank
    ids = 100000000
    with open(dst, "w") as out:
        out.write("{\n")
        for k, v in doc.items():
            out.write("  %s: %s,\n" % (json.dumps(k), json.dumps(v)))
        out.write('  "traceEvents": [\n')
        first = True
        for c in range(n):
            for e in events:
                if c > 0 and e.get("ph") == "M":
                    continue
                if c > 0:
                    e = dict(e)
                    if isinstance(e.get("ts"), int) and isinstance(span, int):
                        e["ts"] = e["ts"] + c * span
                    elif isinstance(e.get("ts"), (int, float)):
                        e["ts"] = round(e["ts"] + c * span, 3)
                    if isinstance(e.get("id"), int):
                        e["id"] += c * ids
                    a = e.get("args")
                    if isinstance(a, dict):
                        a = dict(a)
                        for key in ("correlation", "External id"):
                            if isinstance(a.get(key), int):
                                a[key] += c * ids
                        e["args"] = a
                out.write(("    " if first else ",\n    ") + json.dumps(e))
                first = False
        out.write("\n  ]\n}\n")


main()
