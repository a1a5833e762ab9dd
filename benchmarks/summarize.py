#!/usr/bin/env python
"""Print compare_lda.py's summary tables again from one or more --json files, merged.

    python benchmarks/summarize.py run1.json run2.json                # all records
    python benchmarks/summarize.py run*.json --systems "engine[ones,gamma]" "engine[random,gamma]" sklearn

Records of the same (system, K, kappa, tau, seed, epoch) in several files: the later file wins.
Means are over the seeds each system has, so compare systems run with the same seeds.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import _report


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("files", type=Path, nargs="+", help="JSON files written by compare_lda.py --json")
    p.add_argument("--systems", nargs="+", help="keep only these systems (names as in the tables)")
    args = p.parse_args(argv)
    merged, default = {}, None
    for path in args.files:
        if not path.is_file():
            sys.exit(f"{path}: no such file (give JSON files written by compare_lda.py --json)")
        data = json.loads(path.read_text())
        d = data["meta"]["engine_default"]
        default = (d["gamma_init"], d["topic_init"])
        for r in data["records"]:
            if args.systems is None or r["system"] in args.systems:
                merged[r["system"], r["k"], r["kappa"], r["tau"], r["seed"], r["epoch"]] = r
    if not merged:
        sys.exit("no records left to summarise")
    print(f"merged {len(merged)} records from {', '.join(map(str, args.files))}")
    print(_report.summary(list(merged.values()), default))
    return 0


if __name__ == "__main__":
    sys.exit(main())
