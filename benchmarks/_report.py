"""Text tables for compare_lda.py (Markdown, so they paste into RESULTS.md as they are); both benchmarks' speeds."""

from __future__ import annotations

import os
from collections import defaultdict
from importlib import metadata

import numpy as np

__all__ = ["cores", "hdp_speeds", "header", "lda_speeds", "progress", "source_state", "summary", "versions", "warm_up"]

PEERS = ("sklearn", "gensim")
LL_TOLERANCE = 0.01  # the target: within 0.01 nats/word of the better peer
TIE = 0.005  # gamma_init differences below this (nats/word) are called a tie


def versions() -> dict:
    found = {}
    for package in ("numpy", "scipy", "scikit-learn", "gensim", "threadpoolctl", "svi-topics"):
        try:
            found[package] = metadata.version(package)
        except metadata.PackageNotFoundError:
            found[package] = None
    return found


def source_state() -> str:
    """The project's git commit, and whether engine/ differs from it (the kernel changes often)."""
    import subprocess
    from pathlib import Path

    root = Path(__file__).resolve().parent.parent
    try:
        commit = subprocess.run(
            ["git", "-C", str(root), "rev-parse", "--short", "HEAD"], capture_output=True, text=True, check=True
        ).stdout.strip()
        dirty = subprocess.run(
            ["git", "-C", str(root), "status", "--porcelain", "--", "engine"],
            capture_output=True,
            text=True,
            check=True,
        ).stdout.split("\n")
    except (OSError, subprocess.CalledProcessError):
        return "not a git checkout"
    changed = [line[3:] for line in dirty if line.startswith(" M") or line.startswith("M")]
    return f"commit {commit}" + (f", uncommitted changes in {', '.join(changed)}" if changed else "")


def warm_up(dtypes, cold: bool) -> str:
    """Load the engine's compiled kernels before any clock starts, unless ``cold``; a line saying what was done.

    ``dtypes`` None: the kernels of the models as built with nothing set (see ``engine.warm_up_kernels``).

    numba's first call in a process costs a fixed 0.3 - 0.7 s (LLVM's set-up
    and loading the cached kernels), a start-up cost like ``import`` that no
    peer is charged for; ``--cold`` counts it in the engine's first epoch instead.
    """
    if cold:
        return "engine kernels: cold (numba's one-time start-up counted in the engine's first epoch)"
    import engine

    seconds = engine.warm_up_kernels(None if dtypes is None else tuple(dtypes))
    return f"engine kernels: loaded before timing in {seconds:.2f} s (not counted; --cold counts it)"


def cores() -> int:
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)


def header(meta: dict) -> str:
    v = ", ".join(f"{k} {val}" for k, val in meta["versions"].items() if val)
    d = meta["engine_default"]
    return (
        f"# compare_lda {meta['date']}\n"
        f"command: {meta['command']}\n"
        f"corpus: {meta['corpus']} (D = {meta['train_docs']} training documents, V = {meta['n_words']}, "
        f"{meta['test_docs']} test documents, {meta['heldout_words']} held-out words)\n"
        f"machine: {meta['machine']}; {meta['threads']} BLAS thread(s); best of {meta['repeats']} run(s)\n"
        f"versions: {v}\n"
        f"source: {meta.get('source', '?')}\n"
        f"engine defaults: gamma_init={d['gamma_init']!r}, topic_init={d['topic_init']!r}\n"
        + (
            f"shared start: the peers begin from engine[*,{meta['shared_start']}]'s initial topics\n"
            if meta.get("shared_start")
            else ""
        )
    )


def _fmt_delta(x: float | None) -> str:
    return "" if x is None else f"{x:+.4f}"


def _fmt_ratio(x: float | None) -> str:
    return "" if x is None else f"{x:.2f}x"


def progress(records: list[dict]) -> str:
    """Per-epoch table of one configuration (K, S, kappa, tau, seed)."""
    r0 = records[0]
    lines = [
        f"\n## K={r0['k']} S={r0['batch_size']} kappa={r0['kappa']} tau={r0['tau']:g} seed={r0['seed']}\n",
        "| epoch | docs seen | system | LL/word | - sklearn | - gensim | docs/s | / sklearn | / gensim | local it. |",
        "|---|---|---|---|---|---|---|---|---|---|",
    ]
    by_epoch = defaultdict(dict)
    for r in records:
        by_epoch[r["epoch"]][r["system"]] = r
    for epoch, systems in by_epoch.items():
        for name, r in systems.items():
            cells = [str(epoch), str(r["docs_seen"]), name, f"{r['heldout_loglik']:.4f}"]
            for peer in PEERS:
                cells.append(
                    _fmt_delta(r["heldout_loglik"] - systems[peer]["heldout_loglik"])
                    if peer in systems and peer != name
                    else ""
                )
            cells.append(f"{r['docs_per_second']:.0f}")
            for peer in PEERS:
                cells.append(
                    _fmt_ratio(r["docs_per_second"] / systems[peer]["docs_per_second"])
                    if peer in systems and peer != name
                    else ""
                )
            its = r["engine_local_iterations"]
            cells.append("" if its is None else f"{its:.1f}")
            lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


def _group(records, keys):
    groups = defaultdict(list)
    for r in records:
        groups[tuple(r[k] for k in keys)].append(r)
    return groups


def lda_speeds(records: list[dict]) -> dict[tuple, float]:
    """compare_lda.py's documents/second over all epochs and seeds, per (kappa, tau, K, system).

    Each record holds its own epoch's seconds, and every epoch is one pass over the D
    training documents (docs_seen / epoch).
    """
    return {key: sum(r["docs_seen"] / r["epoch"] for r in rs) / sum(r["seconds"] for r in rs)
            for key, rs in _group(records, ("kappa", "tau", "k", "system")).items()}


def hdp_speeds(records: list[dict]) -> dict[str, float]:
    """compare_hdp.py's documents/second over all epochs and seeds, per system.

    Its records hold the seconds since the start: the documents seen after the last
    epoch over the seconds then, each summed over the seeds.
    """
    last = max(r["epoch"] for r in records)
    return {system: sum(r["docs_seen"] for r in rs) / sum(r["seconds"] for r in rs)
            for (system,), rs in _group([r for r in records if r["epoch"] == last], ("system",)).items()}


def summary(records: list[dict], default: tuple[str, str], engine_threads: int = 1) -> str:
    """Tables over K (means over seeds): likelihood, speed, gamma_init ones vs random, targets.

    The speed target against one-thread scikit-learn is 3x with the engine on
    one thread and 5x with it on two or more (issue 5).
    """
    default_name = f"engine[{default[0]},{default[1]}]"
    systems = list(dict.fromkeys(r["system"] for r in records))
    engines = [s for s in systems if s.startswith("engine")]
    peers = [s for s in systems if s in PEERS]
    n_seeds = len({r["seed"] for r in records})
    seeds_note = f"mean over {n_seeds} seeds" if n_seeds > 1 else "one seed"
    ll = {
        key: float(np.mean([r["heldout_loglik"] for r in rs]))
        for key, rs in _group(records, ("kappa", "tau", "k", "epoch", "system")).items()
    }
    out = [f"\n# Summary ({seeds_note}; LL = held-out log likelihood per word, higher is better)\n"]

    out.append("## Held-out LL/word after each epoch\n")
    head = ["kappa", "tau", "K", "epoch", *systems]
    show_default = bool(peers) and default_name in systems
    if peers:
        head += ["best engine - best peer"] + ([f"{default_name} - best peer"] if show_default else [])
    out += ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    configs = sorted({k[:4] for k in ll})
    for c in configs:
        row = [f"{c[0]:g}", f"{c[1]:g}", str(c[2]), str(c[3])]
        row += [f"{ll[(*c, s)]:.4f}" if (*c, s) in ll else "" for s in systems]
        if peers:
            best_peer = max(ll[(*c, p)] for p in peers if (*c, p) in ll)
            best_engine = max(ll[(*c, e)] for e in engines if (*c, e) in ll) if engines else None
            row.append(_fmt_delta(None if best_engine is None else best_engine - best_peer))
            if show_default:
                row.append(_fmt_delta(ll[(*c, default_name)] - best_peer) if (*c, default_name) in ll else "")
        out.append("| " + " | ".join(row) + " |")

    out.append("\n## Training speed, docs/second over all epochs (ratio to sklearn / gensim)\n")
    speed = lda_speeds(records)
    head = ["kappa", "tau", "K", *systems]
    out += ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for c in sorted({k[:3] for k in speed}):
        row = [f"{c[0]:g}", f"{c[1]:g}", str(c[2])]
        for s in systems:
            cell = f"{speed[(*c, s)]:.0f}"
            if s.startswith("engine") and peers:
                cell += " (" + " / ".join(_fmt_ratio(speed[(*c, s)] / speed[(*c, p)]) for p in peers) + ")"
            row.append(cell)
        out.append("| " + " | ".join(row) + " |")

    pairs = [(t, f"engine[ones,{t}]", f"engine[random,{t}]") for t in ("exponential", "gamma")]
    pairs = [p for p in pairs if p[1] in systems and p[2] in systems]
    if pairs:
        out.append("\n## gamma_init: LL(random) - LL(ones), nats/word (positive: random is better)\n")
        head = ["kappa", "tau", "K", "epoch"] + [f"topic_init={t}" for t, _, _ in pairs]
        out += ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
        per_seed = {
            (r["kappa"], r["tau"], r["k"], r["epoch"], r["seed"], r["system"]): r["heldout_loglik"] for r in records
        }
        seeds = sorted({r["seed"] for r in records})
        for c in configs:
            row = [f"{c[0]:g}", f"{c[1]:g}", str(c[2]), str(c[3])]
            for _, ones, rand in pairs:
                diffs = [
                    per_seed[(*c, s, rand)] - per_seed[(*c, s, ones)]
                    for s in seeds
                    if (*c, s, rand) in per_seed and (*c, s, ones) in per_seed
                ]
                if not diffs:
                    row.append("")
                    continue
                mean = float(np.mean(diffs))
                verdict = "tie" if abs(mean) < TIE else ("random" if mean > 0 else "ones")
                spread = f" [{min(diffs):+.4f}, {max(diffs):+.4f}]" if len(diffs) > 1 else ""
                row.append(f"{mean:+.4f}{spread} {verdict}" + (f" (n={len(diffs)})" if len(diffs) > 1 else ""))
            out.append("| " + " | ".join(row) + " |")

    if peers and default_name in systems:
        out.append(f"\n## Targets for the default engine {default_name}\n")
        for c in configs:
            best_peer = max(ll[(*c, p)] for p in peers if (*c, p) in ll)
            gap = ll[(*c, default_name)] - best_peer
            ok = "PASS" if gap >= -LL_TOLERANCE else "FAIL"
            out.append(
                f"- LL kappa={c[0]:g} tau={c[1]:g} K={c[2]} epoch {c[3]}: {gap:+.4f} vs best peer "
                f"(target >= -{LL_TOLERANCE}) {ok}"
            )
        for c in sorted({k[:3] for k in speed}):
            if c[2] == 100 and (*c, "sklearn") in speed:
                ratio = speed[(*c, default_name)] / speed[(*c, "sklearn")]
                target = 3.0 if engine_threads == 1 else 5.0
                out.append(
                    f"- speed kappa={c[0]:g} tau={c[1]:g} K=100, engine on {engine_threads} thread(s): "
                    f"{ratio:.2f}x sklearn (target >= {target:g}x) {'PASS' if ratio >= target else 'FAIL'}"
                )
    return "\n".join(out)
