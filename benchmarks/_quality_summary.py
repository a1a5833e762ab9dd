"""The quality benchmark's summary: Markdown tables over seeds and the issue's targets as PASS / FAIL."""

from __future__ import annotations

from collections import defaultdict

import numpy as np
from _quality_config import (
    COVERING_MASS,
    HDP_DOC_TRUNCATION,
    HDP_IN_USE_RANGE,
    HDP_STABLE_CV,
    HDP_TRUNCATION,
    HDP_VS_LDA_K,
    IN_USE_WEIGHT,
    LIVE_SHARE,
    LIVE_TARGET_FRACTION,
    LIVE_TARGET_K,
    N_LARGEST,
    N_TOP,
    PANEL,
    SYSTEMS,
    VS_TOMOTOPY_K,
)


def system_name(system: str, label: str | None) -> str:
    """How a system appears in the results: engine systems carry the --label of a variant."""
    return f"{system}:{label}" if label and system.startswith("engine-") else system


def sweeps_name(system: str, sweeps: int) -> str:
    """How a tomotopy system trained for a fixed number of sweeps (``--sweeps``) appears: apart from the targets."""
    return f"{system}:{sweeps}-sweeps"


def _mean_std(values, digits: int) -> str:
    values = [v for v in values if v is not None]
    if not values:
        return "-"
    if len(values) == 1:
        return f"{values[0]:.{digits}f}"
    return f"{np.mean(values):.{digits}f} ± {np.std(values, ddof=1):.{digits}f}"


def _table(head: list[str], rows: list[list]) -> list[str]:
    return [
        "| " + " | ".join(head) + " |",
        "|" + "---|" * len(head),
        *("| " + " | ".join(map(str, r)) + " |" for r in rows),
    ]


def _order(names) -> list[str]:
    """Engine systems first (default before variants), then the peers in SYSTEMS order."""
    rank = {s: i for i, s in enumerate(SYSTEMS)}
    return sorted(set(names), key=lambda n: (rank.get(n.partition(":")[0], len(rank)), n))


def summary(records: list[dict], command: str, epochs: int | None = None) -> str:
    """Markdown: the commands, the collections, per corpus and K the systems' means ± std over seeds, the targets."""
    if not records:
        return "no results yet"
    all_epochs = sorted({r["epochs"] for r in records})
    epochs = epochs if epochs is not None else all_epochs[-1]
    records = [r for r in records if r["epochs"] == epochs]
    out = [f"# Quality summary ({epochs} epochs)\n", f"command: {command}"]
    out += [f"run: {c}" for c in dict.fromkeys(r["command"] for r in records)]
    sources = sorted({r["source"] for r in records})
    out.append(f"source: {'; '.join(sources)}")
    out.append(f"versions: {', '.join(f'{k} {v}' for k, v in records[-1]['versions'].items() if v)}")
    if len(all_epochs) > 1:
        out.append(f"(the results also hold runs of {', '.join(map(str, all_epochs))} epochs: pick with --epochs)")
    corpora = [
        c for c in dict.fromkeys([*PANEL, *(r["corpus"] for r in records)]) if any(r["corpus"] == c for r in records)
    ]
    first = {c: next(r for r in records if r["corpus"] == c) for c in corpora}
    out.append("\n## Collections\n")
    rows = []
    for c in corpora:
        s = first[c]["collection"]
        rows.append([c, s["train_docs"], s["test_docs"], s["n_words"], s["train_tokens"], s["heldout_tokens"]])
    out += _table(["collection", "training docs", "test docs", "V", "training tokens", "held-out tokens"], rows)
    fold_in = ", ".join(sorted({r.get("evaluator", {}).get("local_update", "?") for r in records}))
    out.append(
        "\nMeans ± standard deviation over seeds. LL: held-out log likelihood per word (higher is better), "
        f"every system's topics folded in by the engine's default local step ({fold_in}). "
        f"NPMI: mean over topics of the top-{N_TOP} words' NPMI in the training documents. Live: LDA topics with "
        f">= {LIVE_SHARE:g}/K of the words (min over seeds). tomotopy's sweeps fill the default engine's seconds "
        "(tomotopy-...:N-sweeps: N sweeps, whatever their seconds)."
    )
    for c in corpora:
        here = [r for r in records if r["corpus"] == c]
        out.append(f"\n## {c}\n")
        for K in sorted({r["k"] for r in here if r["kind"] == "lda"}):
            cells = [r for r in here if r["kind"] == "lda" and r["k"] == K]
            rows = []
            for name in _order(r["system"] for r in cells):
                rs = [r for r in cells if r["system"] == name]
                live = [r["live_topics"] for r in rs]
                rows.append(
                    [
                        name,
                        len(rs),
                        _mean_std([r["heldout_loglik"] for r in rs], 4),
                        _mean_std([r["npmi"] for r in rs], 4),
                        f"{_mean_std(live, 1)} (min {min(live)})",
                        _mean_std([r["seconds"] for r in rs], 2),
                        f"{np.mean([r['docs_per_second'] for r in rs]):.0f}",
                        _mean_std([r["sweeps"] for r in rs], 0) if "sweeps" in rs[0] else "",
                    ]
                )
            out.append(f"### K = {K}\n")
            out += _table(["system", "seeds", "LL/word", "NPMI", "live topics", "seconds", "docs/s", "sweeps"], rows)
            out.append("")
        cells = [r for r in here if r["kind"] == "hdp"]
        if cells:
            rows = []
            for name in _order(r["system"] for r in cells):
                rs = sorted((r for r in cells if r["system"] == name), key=lambda r: r["seed"])
                rows.append(
                    [
                        name,
                        len(rs),
                        _mean_std([r["heldout_loglik"] for r in rs], 4),
                        _mean_std([r["npmi"] for r in rs], 4),
                        _mean_std([r.get("npmi_largest") for r in rs], 4),  # "-" in records made before it
                        " / ".join(str(r["topics_in_use"]) for r in rs),
                        " / ".join(str(r["topics_covering"]) for r in rs),
                        _general(rs),
                        _mean_std([r["seconds"] for r in rs], 2),
                        f"{np.mean([r['docs_per_second'] for r in rs]):.0f}",
                        _mean_std([r["sweeps"] for r in rs], 0) if "sweeps" in rs[0] else "",
                    ]
                )
            out.append(
                f"### HDP (truncation {HDP_TRUNCATION}, T = {HDP_DOC_TRUNCATION}; per seed: in use, covering 95 %)\n"
            )
            head = [
                "system",
                "seeds",
                "LL/word",
                "NPMI (in use)",
                f"NPMI ({N_LARGEST} largest)",
                f"topics >= {IN_USE_WEIGHT:g}",
                f"topics for {COVERING_MASS:.0%}",
                "words in general topics",
                "seconds",
                "docs/s",
                "sweeps",
            ]
            out += _table(head, rows)
    out.append("\n## Targets\n")
    out += targets(records)
    return "\n".join(out)


def _general(records: list[dict]) -> str:
    """Per seed, the share of the words in topics that repeat the overall word use ("-": not recorded)."""
    if any("general_share" not in r for r in records):
        return "-"
    return " / ".join(f"{r['general_share']:.0%}" for r in records)


def _verdict(statuses) -> str:
    """FAIL if any part fails, else INCOMPLETE if a part was not run (MISSING / INCOMPLETE), else PASS."""
    statuses = set(statuses)
    if "FAIL" in statuses:
        return "FAIL"
    return "INCOMPLETE" if statuses & {"MISSING", "INCOMPLETE"} or not statuses else "PASS"


def _close_target(out: list[str], title: str, lines: list[str], statuses: list[str], absent: list[str]) -> None:
    """Append a target's verdict line, then its per-collection lines (collections with no results: MISSING)."""
    if absent:
        statuses.append("MISSING")
        lines.append(f"  - no results for {', '.join(absent)}: INCOMPLETE")
    out.append(f"{title}: {_verdict(statuses)}")
    out += lines


def targets(records: list[dict], panel=PANEL) -> list[str]:
    """The issue's three targets for each engine variant in the results, PASS / FAIL / INCOMPLETE.

    1. every panel collection, K = 10, 20, 50: >= 90 % of the engine LDA's topics live, in every seed;
    2. K = 20 and 50, every collection: engine LDA's mean LL >= tomotopy LDA's and mean NPMI >= tomotopy's;
    3. every collection: engine HDP's mean LL >= the best engine LDA over K = 10, 20, 50, 100, >= gensim's
       HdpModel's and >= tomotopy's HDPModel's; its topics in use in [5, 75] in every seed and stable
       (std over seeds <= 20 % of the mean).

    Means are over the seeds both systems have; a cell not in the results makes a line MISSING.
    """
    by = defaultdict(list)
    for r in records:
        by[r["system"], r["corpus"], r["k"]].append(r)
    labels = sorted({r["label"] for r in records if r["base"] in ("engine-lda", "engine-hdp")}, key=lambda x: x or "")
    present = [c for c in panel if any(r["corpus"] == c for r in records)]
    absent = [c for c in panel if c not in present]
    out = []
    for label in labels or [None]:
        lda, hdp = system_name("engine-lda", label), system_name("engine-hdp", label)
        # a variant of one model only is held against the default of the other
        if label and not any(s == lda for s, _, _ in by):
            lda = "engine-lda"
        if label and not any(s == hdp for s, _, _ in by):
            hdp = "engine-hdp"
        out.append(f"### {lda} and {hdp}")

        lines, statuses = [], []
        for c in present:
            parts = []
            for K in LIVE_TARGET_K:
                rs = by.get((lda, c, K), [])
                if not rs:
                    parts.append((f"K={K} not run", "MISSING"))
                    continue
                worst = min(rs, key=lambda r: r["live_fraction"])
                ok = worst["live_fraction"] >= LIVE_TARGET_FRACTION
                parts.append((f"K={K} min {worst['live_topics']}/{K} over {len(rs)} seeds", "PASS" if ok else "FAIL"))
            status = _verdict(s for _, s in parts)
            statuses.append(status)
            lines.append(f"  - {c}: " + ", ".join(t for t, _ in parts) + f": {status}")
        _close_target(
            out,
            f"1. >= {LIVE_TARGET_FRACTION:.0%} of the topics live at K = 10, 20, 50 in every seed",
            lines,
            statuses,
            absent,
        )

        lines, statuses = [], []
        for c in present:
            for K in VS_TOMOTOPY_K:
                mine, theirs = by.get((lda, c, K), []), by.get(("tomotopy-lda", c, K), [])
                seeds = sorted({r["seed"] for r in mine} & {r["seed"] for r in theirs})
                if not seeds:
                    statuses.append("MISSING")
                    lines.append(f"  - {c} K={K}: {'tomotopy-lda' if mine else lda} not run: MISSING")
                    continue
                m = {f: _mean_at(mine, seeds, f) for f in ("heldout_loglik", "npmi")}
                t = {f: _mean_at(theirs, seeds, f) for f in ("heldout_loglik", "npmi")}
                ok = m["heldout_loglik"] >= t["heldout_loglik"] and m["npmi"] >= t["npmi"]
                statuses.append("PASS" if ok else "FAIL")
                lines.append(
                    f"  - {c} K={K} ({len(seeds)} seeds): LL {m['heldout_loglik'] - t['heldout_loglik']:+.4f}, "
                    f"NPMI {m['npmi'] - t['npmi']:+.4f} vs tomotopy: {'PASS' if ok else 'FAIL'}"
                )
        _close_target(out, "2. K = 20, 50: LL and NPMI >= tomotopy LDA's (means over seeds)", lines, statuses, absent)

        lines, statuses = [], []
        for c in present:
            mine = by.get((hdp, c, None), [])
            if not mine:
                statuses.append("MISSING")
                lines.append(f"  - {c}: {hdp} not run: MISSING")
                continue
            ll = float(np.mean([r["heldout_loglik"] for r in mine]))
            parts = []
            best, missing = None, []
            for K in HDP_VS_LDA_K:
                rs = by.get((lda, c, K), [])
                if rs:
                    value = float(np.mean([r["heldout_loglik"] for r in rs]))
                    best = (K, value) if best is None or value > best[1] else best
                else:
                    missing.append(K)
            if best is None:
                parts.append((f"{lda} not run", "MISSING"))
            else:
                status = "FAIL" if ll < best[1] else ("MISSING" if missing else "PASS")
                note = f" (K={','.join(map(str, missing))} not run)" if missing else ""
                parts.append((f"{ll - best[1]:+.4f} vs best LDA (K={best[0]}){note}", status))
            for peer in ("gensim-hdp", "tomotopy-hdp"):
                theirs = by.get((peer, c, None), [])
                seeds = sorted({r["seed"] for r in mine} & {r["seed"] for r in theirs})
                if not seeds:
                    parts.append((f"{peer} not run", "MISSING"))
                    continue
                diff = _mean_at(mine, seeds, "heldout_loglik") - _mean_at(theirs, seeds, "heldout_loglik")
                parts.append((f"{diff:+.4f} vs {peer}", "PASS" if diff >= 0 else "FAIL"))
            in_use = [r["topics_in_use"] for r in sorted(mine, key=lambda r: r["seed"])]
            low, high = HDP_IN_USE_RANGE[0], (mine[0].get("truncation") or HDP_TRUNCATION) // 2
            in_range = all(low <= n <= high for n in in_use)
            stable = len(in_use) < 2 or np.std(in_use, ddof=1) <= HDP_STABLE_CV * np.mean(in_use)
            parts.append(
                (
                    f"topics in use {' / '.join(map(str, in_use))} ({'in' if in_range else 'outside'} [{low}, {high}]"
                    + ("" if len(in_use) > 1 else ", one seed: stability not judged")
                    + ("" if stable else ", unstable")
                    + ")",
                    "PASS" if in_range and stable else "FAIL",
                )
            )
            status = _verdict(s for _, s in parts)
            statuses.append(status)
            lines.append(f"  - {c}: LL {ll:.4f}: " + "; ".join(t for t, _ in parts) + f": {status}")
        _close_target(
            out,
            f"3. HDP LL >= best LDA (K = 10, 20, 50, 100), gensim's and tomotopy's HDP; topics in use in "
            f"[{HDP_IN_USE_RANGE[0]}, {HDP_IN_USE_RANGE[1]}], std <= {HDP_STABLE_CV:.0%} of the mean",
            lines,
            statuses,
            absent,
        )
        out.append("")
    return out


def _mean_at(records: list[dict], seeds, field_name: str) -> float:
    return float(np.mean([r[field_name] for r in records if r["seed"] in seeds]))
