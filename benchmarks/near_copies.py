#!/usr/bin/env python
"""Documents that nearly repeat another: how many collections hold, what they do to the default LDA, and what
leaving them out gives back (issue 13).

A near-copy is a text that repeats another but for a sentence or a few words: a revised
version, a page with another date (``engine.find_near_copies``: at least a share of the
runs of five words in either text are in both).  The script prints two tables.

**What the collections hold.**  For each collection of raw text, the texts that are copies
word for word (``engine.find_text_copies``) and, beyond them, the near-copies at each
``--thresholds`` share, each with the seconds ``find_near_copies`` took against the seconds
``engine.Corpus.from_texts(texts, keep_copies=False)`` took to read the same texts, as a ratio.

**What near-copies do.**  Each collection is counted once with the quality panel's vectoriser
(``_quality_panel.collection_vectorizer``) and split into training and test documents as the
panel's built collections are (10 % test documents, 20 % of their word types held out,
split seed 0), so that every condition is scored on the same test words over the same
vocabulary.  For each seed, ``--sources`` of the training texts of at least ``--min-words``
words (1 % of them, at least 5, unless given) get ``--copies`` near-copies each, as a
collection gathered from many places holds revised versions of one text: each copy has one
run of ``--edit`` of its words (at a random place) replaced by as many words from another
training text.  The default LDA (``engine.LDA(n_topics=K, n_words=V, seed=s)`` trained by
``engine.SVI`` for ``--epochs`` passes) is trained on

- the training texts, copies word for word left out (the app's and ``svi-topics fit``'s default);
- the same, near-copies at ``--similarity`` left out too (the collection's own near-copies);
- the training texts with the near-copies appended, copies word for word left out;
- the same, near-copies left out too.

Each run is scored by held-out log likelihood per word on the test split (the paper's
metric), by the mean NPMI of its topics' 10 top words over the training texts as given, by
its live topics (share >= 0.25/K) and by the largest share of a topic's words that comes from
the drawn texts and their near-copies (``model.transform``).  Differences are paired by seed
against the first condition.

    NUMBA_NUM_THREADS=1 python benchmarks/near_copies.py --corpora sotu jargon docstrings fortunes manpages \\
        --seeds 0 1 2 3 4

See benchmarks/RESULTS.md (run 78) for results.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np
import scipy.sparse as sp

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
try:
    import engine
except ImportError:  # run from a checkout without installing it
    sys.path.insert(0, str(HERE.parent))
    import engine

import _report  # noqa: E402
from _quality_config import HELDOUT_FRACTION, LIVE_SHARE, SPLIT_SEED, TEST_FRACTION  # noqa: E402
from _quality_panel import coherence_reference, collection_vectorizer, mean_sd, min_max, raw_texts  # noqa: E402
from copies import train  # noqa: E402  (the default LDA for --epochs passes)

CONDITIONS = ("copies left out", "near-copies left out", "with near-copies", "with near-copies, left out")


def near_copy(text: str, other: str, edit: float, rng: np.random.Generator) -> str:
    """``text`` with one run of ``edit`` of its words, at a random place, replaced by as many words of ``other``."""
    words, donor = text.split(), other.split()
    n = max(1, round(edit * len(words)))
    at = int(rng.integers(0, len(words) - n + 1))
    start = int(rng.integers(0, max(len(donor) - n, 0) + 1))
    return " ".join(words[:at] + donor[start:start + n] + words[at + n:])


def census(name: str, texts: list[str], thresholds: list[float]) -> str:
    """One row of the first table: copies word for word and near-copies beyond them, and their seconds."""
    n = len(texts)
    exact = int((engine.find_text_copies(texts) != np.arange(n)).sum())
    started = time.perf_counter()
    engine.Corpus.from_texts(texts, keep_copies=False)
    reading = time.perf_counter() - started
    cells = []
    for threshold in thresholds:
        started = time.perf_counter()
        found = engine.find_near_copies(texts, threshold)
        seconds = time.perf_counter() - started
        cells.append(f"{int((found.first != np.arange(n)).sum()) - exact:,} ({seconds / reading:.2f}x)")
    return f"| {name} | {n:,} | {exact:,} | {' | '.join(cells)} |"


def template_texts(n: int, changed: int = 2, words: int = 100) -> list[str]:
    """A hostile upload: ``n`` texts of one template of ``words`` words, each with ``changed`` of them replaced by
    words of its own, so that every pair is close (about 0.7 at 2 of 100) and shares min-hash bands."""
    rng = np.random.default_rng(0)

    def word(i: int) -> str:  # letters only, which every token pattern reads as a word
        out = ""
        while True:
            out, i = chr(97 + i % 26) + out, i // 26
            if not i:
                return out

    template = ["tt" + word(i) for i in range(words)]
    texts = []
    for d in range(n):
        filled = list(template)
        for p in rng.choice(words, changed, replace=False):
            filled[p] = "uu" + word(d * words + int(p))
        texts.append(" ".join(filled))
    return texts


def largest_share(model, counts: sp.csr_matrix, marked: np.ndarray) -> float:
    """The largest share of a topic's expected words in ``counts`` that come from the ``marked`` rows."""
    words = model.transform(counts) * np.asarray(counts.sum(axis=1))
    return float((words[marked].sum(axis=0) / np.maximum(words.sum(axis=0), 1e-300)).max())


def run_collection(name: str, texts: list[str], args) -> dict:
    vectorizer = collection_vectorizer()
    counts = sp.csr_matrix(vectorizer.fit_transform(texts), dtype=np.int64)
    split = engine.heldout_split(counts, n_test=round(TEST_FRACTION * counts.shape[0]), seed=SPLIT_SEED,
                                 heldout_fraction=HELDOUT_FRACTION)
    train_texts = [texts[d] for d in split.train_indices]
    given = split.train
    reference = coherence_reference(given)
    lengths = np.array([len(t.split()) for t in train_texts])
    eligible = np.flatnonzero(lengths >= args.min_words)
    n_sources = args.sources or max(5, len(train_texts) // 100)
    if eligible.size < n_sources:
        raise SystemExit(f"{name}: only {eligible.size} training texts have {args.min_words} words or more")
    results = {c: [] for c in CONDITIONS}
    similarity = []
    found_share = []
    started = time.perf_counter()
    for seed in args.seeds:
        rng = np.random.default_rng([seed, 78])
        sources = np.sort(rng.choice(eligible, n_sources, replace=False))
        added = [near_copy(train_texts[s], train_texts[int(rng.integers(len(train_texts)))], args.edit, rng)
                 for s in sources for _ in range(args.copies)]
        all_texts = train_texts + added
        rows = sp.vstack([given, sp.csr_matrix(vectorizer.transform(added), dtype=np.int64)], format="csr")
        marked = np.concatenate([sources, len(train_texts) + np.arange(len(added))])
        exact = engine.find_text_copies(all_texts) == np.arange(len(all_texts))
        near = engine.find_near_copies(all_texts, args.similarity)
        planted = near.first[len(train_texts):]
        similarity.extend(near.similarity[len(train_texts):][planted != np.arange(len(train_texts), len(all_texts))])
        found_share.append(float(np.mean(planted != np.arange(len(train_texts), len(all_texts)))))
        kept_near = near.first == np.arange(len(all_texts))
        n_given = len(train_texts)
        for condition, keep in (("copies left out", exact[:n_given]), ("near-copies left out", None),
                                ("with near-copies", exact), ("with near-copies, left out", kept_near)):
            if keep is None:  # the collection's own near-copies, without the planted ones
                own = engine.find_near_copies(train_texts, args.similarity)
                keep = own.first == np.arange(n_given)
            pick = np.flatnonzero(keep)
            if condition == "near-copies left out" and pick.size == results[CONDITIONS[0]][-1]["docs"]:
                results[condition].append(dict(results[CONDITIONS[0]][-1]))  # no near-copy: the same run
                continue
            train_rows = rows[pick]
            model = train(train_rows, args.k, seed, args.epochs)
            shares = np.asarray(model.word_shares())
            results[condition].append({
                "loglik": engine.predictive_log_likelihood(model, split.observed, split.heldout),
                "npmi": float(np.mean(reference.score_model(model))),
                "live": int((shares >= LIVE_SHARE / args.k).sum()),
                "largest": largest_share(model, train_rows, np.flatnonzero(np.isin(pick, marked))),
                "docs": int(pick.size)})
        print(f"  {name} seed {seed}: {time.perf_counter() - started:.0f} s", file=sys.stderr, flush=True)
    return {"docs": len(train_texts), "sources": n_sources, "results": results,
            "similarity": np.array(similarity), "found": np.array(found_share)}


def paired(results: dict, key: str, condition: str) -> str:
    """The condition minus the first, mean ± standard error over the seeds."""
    diff = np.array([r[key] for r in results[condition]]) - np.array([r[key] for r in results[CONDITIONS[0]]])
    se = diff.std(ddof=1) / np.sqrt(diff.size) if diff.size > 1 else 0.0
    return f"{diff.mean():+.3f} ± {se:.3f}"


def report(name: str, found: dict) -> list[str]:
    results = found["results"]
    lines = []
    for condition in CONDITIONS:
        rows = results[condition]
        first = condition == CONDITIONS[0]
        lines.append(
            f"| {name} | {condition} | {min_max(r['docs'] for r in rows)} | "
            f"{mean_sd(np.array([r['loglik'] for r in rows]), 3)} | "
            f"{'' if first else paired(results, 'loglik', condition)} | "
            f"{mean_sd(np.array([r['npmi'] for r in rows]), 3)} | "
            f"{'' if first else paired(results, 'npmi', condition)} | "
            f"{min_max(r['live'] for r in rows)} | {mean_sd(np.array([100 * r['largest'] for r in rows]), 0)} % |")
    return lines


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--corpora", nargs="*", default=["sotu", "jargon", "docstrings", "fortunes", "manpages"])
    p.add_argument("--k", type=int, default=20, help="LDA topics")
    p.add_argument("--seeds", type=int, nargs="+", default=[0, 1, 2, 3, 4])
    p.add_argument("--epochs", type=int, default=10, help="passes over the documents")
    p.add_argument("--sources", type=int, default=None,
                   help="texts given near-copies in each seed (default: 1 %% of the training texts, at least 5)")
    p.add_argument("--copies", type=int, default=10, help="near-copies appended of each drawn text")
    p.add_argument("--edit", type=float, default=0.05, help="share of a near-copy's words replaced, in one run")
    p.add_argument("--min-words", type=int, default=100, help="words a drawn text has at least")
    p.add_argument("--similarity", type=float, default=0.8, help="the least similarity of a near-copy left out")
    p.add_argument("--thresholds", type=float, nargs="+", default=[0.5, 0.7, 0.8, 0.9])
    p.add_argument("--census-only", action="store_true", help="print the first table only")
    p.add_argument("--hostile", type=int, nargs="*", default=[],
                   help="also time texts of one template filled in N ways (template_texts), for each N given")
    args = p.parse_args(argv)
    if not 0 < args.edit < 1 or not 0 < args.similarity <= 1:
        p.error("--edit must be in (0, 1) and --similarity in (0, 1]")
    for name in ("k", "epochs", "copies", "min_words"):
        if getattr(args, name) < 1:
            p.error(f"--{name.replace('_', '-')} must be >= 1")
    collections = {name: texts for name in args.corpora if (texts := raw_texts(name)) is not None}
    first = ["| collection | texts | copies word for word | "
             + " | ".join(f"near-copies beyond them at {t} (seconds / reading's)" for t in args.thresholds)
             + " |", "|---" * (3 + len(args.thresholds)) + "|"]
    first.extend(census(name, texts, args.thresholds) for name, texts in collections.items())
    first.extend(census(f"one template, {n:,} ways", template_texts(n), args.thresholds) for n in args.hostile)
    print("\n".join([f"# near_copies.py: what the collections hold (thresholds {args.thresholds})", "", *first]),
          flush=True)
    if args.census_only:
        return 0
    print(_report.warm_up(["float64"], cold=False), flush=True)
    header = [f"# near_copies.py, K = {args.k}, {args.epochs} passes, seeds {' '.join(map(str, args.seeds))}, "
              f"{args.copies} near-copies of each drawn text (at least {args.min_words} words, {args.edit:.0%} of "
              f"the words replaced in one run), left out at similarity {args.similarity}", "",
              "| collection | training texts | texts drawn | planted near-copies found | their similarity |",
              "|---|---|---|---|---|"]
    table = ["| collection | condition | training documents | held-out LL | minus the first (± se) | NPMI | "
             "minus the first (± se) | live topics | largest share of a topic from the drawn texts |",
             "|---|---|---|---|---|---|---|---|---|"]
    from threadpoolctl import threadpool_limits

    with threadpool_limits(limits=1):
        for name, texts in collections.items():
            found = run_collection(name, texts, args)
            header.append(f"| {name} | {found['docs']:,} | {found['sources']:,} | "
                          f"{mean_sd(100 * found['found'], 1)} % | {mean_sd(found['similarity'], 3)} |")
            table.extend(report(name, found))
    print("\n".join([*header, "", *table]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
