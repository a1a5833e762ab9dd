#!/usr/bin/env python
"""Issue 13's speed line from benchmark records: a build's documents/second against a peer, over a baseline build's.

The line is "no loss of speed": the engine's documents/second as a multiple of a peer's
(gensim's HdpModel, scikit-learn's online LDA), measured in one run, at or above what the
baseline build (the commit the issue was filed at) gets in the same benchmark.  Absolute
seconds move with the machine's load; the peer in the same run takes the same load, so the
ratio is what carries over between runs.  Give the rounds in the order they ran, the
builds taking turns (baseline, candidate, baseline, candidate, ...):

    python benchmarks/speed_line.py --baseline filing_r1.json filing_r2.json --candidate head_r1.json head_r2.json

Each file is a ``--json`` record of ``compare_hdp.py`` or ``compare_lda.py`` (the same script,
collection, epochs and seeds in all of them).  The script prints each file's ratio to the
peer, each round's candidate ratio over the baseline's (the i-th candidate file against
the i-th baseline file), and PASS when every round is at or above ``--target`` (1.0).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import _report  # the benchmarks' own speed rules

HDP_PEER, LDA_PEER = "gensim HDP", "sklearn"


class RecordError(ValueError):
    """A benchmark record that cannot be read, or files that do not measure the same thing."""


def load(path: Path) -> dict:
    """The ``{"meta": ..., "records": [...]}`` payload a benchmark wrote with ``--json``."""
    try:
        payload = json.loads(path.read_text())
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise RecordError(f"{path}: not a readable JSON record ({exc}); give files written by compare_hdp.py "
                          "--json or compare_lda.py --json") from exc
    if not isinstance(payload, dict) or not isinstance(payload.get("records"), list) or not payload["records"]:
        raise RecordError(f"{path}: holds no records; give files written by compare_hdp.py --json or "
                          "compare_lda.py --json")
    return payload


def _kind(records: list[dict]) -> str:
    """"hdp" for compare_hdp.py's records (cumulative seconds), "lda" for compare_lda.py's (seconds per epoch)."""
    return "hdp" if "kind" in records[0] else "lda"


def speeds(records: list[dict]) -> dict[tuple, dict[str, float]]:
    """Documents/second of each system over all epochs and seeds, per setting, as the benchmark's summary has it.

    compare_hdp.py's records are one setting (the key ``()``); compare_lda.py's are keyed
    by (kappa, tau, K).
    """
    if _kind(records) == "hdp":
        return {(): _report.hdp_speeds(records)}
    found: dict[tuple, dict[str, float]] = {}
    for (*setting, system), speed in _report.lda_speeds(records).items():
        found.setdefault(tuple(setting), {})[system] = speed
    return found


def _shape(payload: dict) -> tuple:
    """What two files must share to be compared: the script, the collection's name, the epochs and the seeds."""
    records = payload["records"]
    corpus = str(payload.get("meta", {}).get("corpus", ""))
    return (_kind(records), Path(corpus).name, max(r["epoch"] for r in records),
            tuple(sorted({r["seed"] for r in records})))


def engine_system(systems: dict[str, float], wanted: str | None, path: Path) -> str:
    """``wanted`` if given, else the one system whose name starts with "engine"; RecordError otherwise."""
    if wanted is not None:
        if wanted not in systems:
            raise RecordError(f"{path}: no system {wanted!r}; it holds {', '.join(sorted(systems))}")
        return wanted
    engines = [name for name in systems if name.startswith("engine")]
    if len(engines) != 1:
        raise RecordError(f"{path}: {len(engines)} engine systems ({', '.join(engines) or 'none'}); "
                          "name the one to compare with --system (or --baseline-system)")
    return engines[0]


def ratios(payload: dict, path: Path, system: str | None, peer: str | None) -> dict[tuple, float]:
    """The engine system's documents/second over the peer's, per setting."""
    records = payload["records"]
    peer = peer or (HDP_PEER if _kind(records) == "hdp" else LDA_PEER)
    out = {}
    for key, systems in speeds(records).items():
        if peer not in systems:
            raise RecordError(f"{path}: no peer {peer!r} to take the ratio to (run the benchmark with it, or name "
                              f"another with --peer); it holds {', '.join(sorted(systems))}")
        out[key] = systems[engine_system(systems, system, path)] / systems[peer]
    return out


def _setting(key: tuple) -> str:
    return "all" if not key else f"kappa {key[0]:g}, tau {key[1]:g}, K = {key[2]}"


def compare(baseline: list[Path], candidate: list[Path], system: str | None = None,
            baseline_system: str | None = None, peer: str | None = None, target: float = 1.0) -> tuple[str, bool]:
    """(the report, whether every round meets ``target``) for the paired files; RecordError if they do not pair."""
    if len(baseline) != len(candidate):
        raise RecordError(f"give as many --candidate files as --baseline files (one of each per round), got "
                          f"{len(candidate)} and {len(baseline)}")
    payloads = {path: load(path) for path in [*baseline, *candidate]}
    shapes = {path: _shape(payload) for path, payload in payloads.items()}
    first = shapes[baseline[0]]
    for path, shape in shapes.items():
        if shape != first:
            raise RecordError(f"{path} measures {shape[0]} on {shape[1]!r}, {shape[2]} epochs, seeds {list(shape[3])}, "
                              f"but {baseline[0]} {first[0]} on {first[1]!r}, {first[2]} epochs, seeds "
                              f"{list(first[3])}: compare runs of the same benchmark only")
    base = [ratios(payloads[p], p, baseline_system or system, peer) for p in baseline]
    cand = [ratios(payloads[p], p, system, peer) for p in candidate]
    settings = sorted(set(base[0]))
    for path, found in zip([*baseline, *candidate], [*base, *cand], strict=True):
        if sorted(found) != settings:
            raise RecordError(f"{path} holds the settings {', '.join(map(_setting, sorted(found)))}, "
                              f"{baseline[0]} {', '.join(map(_setting, settings))}")
    kind, corpus, epochs, seeds = first
    lines = [f"{kind.upper()} on {corpus!r}, {epochs} epochs, seeds {', '.join(map(str, seeds))}; "
             f"documents/second as a multiple of the peer's in the same run", ""]
    lines += ["| setting | round | baseline | candidate | candidate / baseline |", "|---|---|---|---|---|"]
    met = True
    for key in settings:
        for i, (b, c) in enumerate(zip(base, cand, strict=True), start=1):
            share = c[key] / b[key]
            met &= share >= target
            lines.append(f"| {_setting(key)} | {i} | {b[key]:.2f}x | {c[key]:.2f}x | {share:.2f}x |")
    every = [c[key] / b[key] for key in settings for b in base for c in cand]
    lines += ["", f"candidate / baseline over every pairing of rounds: {min(every):.2f}x to {max(every):.2f}x",
              f"speed line (every round >= {target:.2f}x the baseline's ratio): {'PASS' if met else 'FAIL'}"]
    return "\n".join(lines), met


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--baseline", type=Path, nargs="+", required=True,
                   help="--json files of the baseline build (e.g. the commit an issue was filed at), one per round")
    p.add_argument("--candidate", type=Path, nargs="+", required=True,
                   help="--json files of the build measured, one per round, in the baseline files' order")
    p.add_argument("--system", help="the engine system to compare (default: the one named engine...)")
    p.add_argument("--baseline-system", help="the baseline's engine system, if named differently (default: --system)")
    p.add_argument("--peer", help=f"the peer the ratio is taken to (default: {HDP_PEER!r} or {LDA_PEER!r})")
    p.add_argument("--target", type=float, default=1.0, help="the lowest candidate / baseline ratio that passes")
    args = p.parse_args(argv)
    if not args.target > 0:
        p.error(f"--target must be > 0, got {args.target}")
    try:
        report, _ = compare(args.baseline, args.candidate, args.system, args.baseline_system, args.peer, args.target)
    except RecordError as exc:
        sys.exit(f"speed_line.py: {exc}")
    print(report)
    return 0


if __name__ == "__main__":
    sys.exit(main())
