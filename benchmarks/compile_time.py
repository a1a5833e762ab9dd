"""Seconds to compile the engine's numba kernels from an empty cache, per workload, for one or more checkouts.

What a fresh install pays once (the app's background compile, the command line's first
run, and the warm-up of a full test run) before the kernels load from numba's cache. For
each round and each checkout in turn: a new empty ``NUMBA_CACHE_DIR`` and one Python
process that imports that checkout's engine and compiles the workloads one after the
other, as the engine's compile worker does (``engine.inference.warmup``), timing each.
A workload that shares kernels with an earlier one in the list pays only for the rest,
as in the worker.  With two checkouts it prints each round's total of the second over the
first; the two run in turn, so a busy machine slows both alike.

    python benchmarks/compile_time.py                                  # this checkout, 1 round
    git worktree add /tmp/parent HEAD~1
    python benchmarks/compile_time.py --checkout /tmp/parent --checkout . --rounds 3
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

# every workload a full test run compiles, the default ones first
WORKLOADS = (
    "LDA:auto:float64", "HDP:zero_order:float32", "HDP:mean_field:float32", "HDP:zero_order:float64",
    "HDP:mean_field:float64", "LDA:zero_order:float32", "LDA:cvb0:float32", "LDA:mean_field:float32",
    "LDA:mean_field:float64", "LDA:zero_order:float64:squarem", "LDA:zero_order:float32:squarem",
)

_CHILD = """
import json, sys, time
sys.path.insert(0, sys.argv[1])
import engine
from engine.inference.warmup import Workload, _step
from engine.kernels.cache import compiling_here

assert engine.__file__.startswith(sys.argv[1]), engine.__file__
for name in sys.argv[2:]:
    started = time.perf_counter()
    with compiling_here():
        _step(Workload.parse(name))
    print(json.dumps({"workload": name, "seconds": time.perf_counter() - started}), flush=True)
"""


def compile_seconds(checkout: Path, workloads: list[str]) -> dict[str, float]:
    """Each workload's compile seconds in one fresh process with an empty cache of its own."""
    with tempfile.TemporaryDirectory(prefix="compile-time-") as cache:
        env = {**os.environ, "NUMBA_CACHE_DIR": cache}
        done = subprocess.run([sys.executable, "-c", _CHILD, str(checkout), *workloads], capture_output=True,
                              text=True, env=env, cwd=tempfile.gettempdir())
    if done.returncode != 0:
        raise SystemExit(f"{checkout}: the compile failed:\n{done.stderr[-3000:]}")
    records = [json.loads(line) for line in done.stdout.splitlines() if line.startswith("{")]
    return {record["workload"]: record["seconds"] for record in records}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--checkout", action="append", type=Path,
                        help="a checkout of the project (repeat for several; default: this one)")
    parser.add_argument("--rounds", type=int, default=1, help="rounds of all checkouts in turn (default 1)")
    parser.add_argument("--workloads", nargs="+", default=list(WORKLOADS), help="in the order compiled")
    args = parser.parse_args(argv)
    checkouts = [path.resolve() for path in (args.checkout or [ROOT])]
    for path in checkouts:
        if not (path / "engine" / "__init__.py").is_file():
            parser.error(f"{path} is not a checkout of this project (no engine/__init__.py)")
    results: list[list[dict[str, float]]] = []
    for round_ in range(1, args.rounds + 1):
        results.append([])
        for path in checkouts:
            seconds = compile_seconds(path, args.workloads)
            results[-1].append(seconds)
            print(f"round {round_}  {path}: {sum(seconds.values()):.1f} s", flush=True)
    print("\n| workload | " + " | ".join(f"`{path.name}` s (rounds)" for path in checkouts) + " |")
    print("|---|" + "---|" * len(checkouts))
    for workload in [*args.workloads, "total"]:
        cells = []
        for i in range(len(checkouts)):
            values = [sum(r[i].values()) if workload == "total" else r[i][workload] for r in results]
            cells.append(", ".join(f"{v:.1f}" for v in values))
        print(f"| {workload} | " + " | ".join(cells) + " |")
    if len(checkouts) >= 2:
        for i in range(1, len(checkouts)):
            ratios = [sum(r[i].values()) / sum(r[0].values()) for r in results]
            print(f"\n`{checkouts[i].name}` / `{checkouts[0].name}`, total compile seconds per round: "
                  + ", ".join(f"{ratio:.2f}x" for ratio in ratios))
    return 0


if __name__ == "__main__":
    sys.exit(main())
