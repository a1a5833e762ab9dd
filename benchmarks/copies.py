#!/usr/bin/env python
"""Documents repeated word for word: what copies do to the default LDA, and what keeping one copy gives back (issue 13).

For each collection the script counts the copies its training documents already hold
(``engine.find_copies``: the same words, each the same number of times), then, for each
seed, draws ``--sources`` of the training documents of at least ``--min-words`` words
(1 % of the documents, at least 5, unless given) and appends ``--copies`` more copies of
each, as a collection gathered from many places holds reposted articles or a licence
shipped with every package.  The default LDA (``engine.LDA(n_topics=K, n_words=V,
seed=s)`` trained by ``engine.SVI`` for ``--epochs`` passes) is trained on

- the training documents as given;
- the same with the copies appended;
- the latter with every copy left out (the first of each group kept, as the app and
  ``svi-topics fit`` do by default): the documents as given, less any copies they held.

Each run is scored on the collection's untouched test split (held-out log likelihood per
word, the paper's metric), by the mean NPMI of its topics' 10 top words over the training
documents as given, by its live topics (share >= 0.25/K) and by the topics the drawn
documents hold: a topic whose expected words come at least half from them (their copies
included), from each document's topic proportions (``model.transform``) times its length,
and the largest share of any topic's words that comes from them.

    NUMBA_NUM_THREADS=1 python benchmarks/copies.py --corpora ap foldoc sotu jargon --seeds 0 1 2 3 4

See benchmarks/RESULTS.md (run 74) for results.
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
from _quality_config import CACHE, LIVE_SHARE, SHARED  # noqa: E402
from _quality_panel import coherence_reference, load_collection, mean_sd, min_max  # noqa: E402

CONDITIONS = ("as given", "with copies", "copies left out")
HELD_SHARE = 0.5  # a topic is held by the drawn documents when at least this share of its words come from them


def with_copies(train: sp.csr_matrix, sources: np.ndarray, copies: int) -> sp.csr_matrix:
    """``train`` with ``copies`` more copies of each row in ``sources`` appended, in the order of the sources."""
    return sp.vstack([train, *([train[sources]] * copies)], format="csr")


def draw_sources(train: sp.csr_matrix, n: int, min_words: int, seed: int) -> np.ndarray:
    """``n`` distinct training rows of at least ``min_words`` tokens, drawn with ``seed``."""
    lengths = np.asarray(train.sum(axis=1)).ravel()
    eligible = np.flatnonzero(lengths >= min_words)
    if eligible.size < n:
        raise SystemExit(f"only {eligible.size} training documents have {min_words} words or more; lower "
                         f"--min-words or --sources")
    return np.sort(np.random.default_rng([seed, 74]).choice(eligible, n, replace=False))


def marked_shares(model, counts: sp.csr_matrix, marked: np.ndarray) -> np.ndarray:
    """Each topic's share of its expected words in ``counts`` that come from the ``marked`` rows."""
    theta = model.transform(counts)
    words = theta * np.asarray(counts.sum(axis=1))
    return words[marked].sum(axis=0) / np.maximum(words.sum(axis=0), 1e-300)


def score(model, collection, counts: sp.csr_matrix, marked: np.ndarray, reference, k: int) -> dict:
    shares = np.asarray(model.word_shares())
    return {"loglik": engine.predictive_log_likelihood(model, collection.observed, collection.heldout),
            "npmi": float(np.mean(reference.score_model(model))),
            "live": int((shares >= LIVE_SHARE / k).sum()),
            **dict(zip(("held", "largest"), _held(marked_shares(model, counts, marked)), strict=True))}


def _held(shares: np.ndarray) -> tuple[int, float]:
    """Topics held by the drawn documents (:data:`HELD_SHARE`), and the largest share any topic has from them."""
    return int((shares >= HELD_SHARE).sum()), float(shares.max())


def train(counts: sp.csr_matrix, k: int, seed: int, epochs: int):
    model = engine.LDA(n_topics=k, n_words=counts.shape[1], seed=seed)
    engine.SVI(model, corpus=counts, seed=seed).run(n_docs=epochs * counts.shape[0])
    return model


def run_collection(collection, args) -> dict:
    given = collection.train
    first = engine.find_copies(given)
    natural = int((first != np.arange(given.shape[0])).sum())
    n_sources = args.sources or max(5, given.shape[0] // 100)
    reference = coherence_reference(given)
    results = {c: [] for c in CONDITIONS}
    started = time.perf_counter()
    for seed in args.seeds:
        sources = draw_sources(given, n_sources, args.min_words, seed)
        copied = with_copies(given, sources, args.copies)
        marked_copied = np.concatenate([sources, given.shape[0] + np.arange(sources.size * args.copies)])
        kept = np.flatnonzero(engine.find_copies(copied) == np.arange(copied.shape[0]))
        left_out = copied[kept]
        marked_left_out = np.flatnonzero(np.isin(kept, sources))  # the sources are never copies of a later row
        for condition, counts, marked in (("as given", given, sources), ("with copies", copied, marked_copied),
                                          ("copies left out", left_out, marked_left_out)):
            if condition == "copies left out" and natural == 0:  # the same matrix as given: the same run
                results[condition].append(dict(results["as given"][-1]))
                continue
            model = train(counts, args.k, seed, args.epochs)
            results[condition].append(score(model, collection, counts, marked, reference, args.k))
        print(f"  {collection.name} seed {seed}: {time.perf_counter() - started:.0f} s", file=sys.stderr, flush=True)
    return {"natural": natural, "docs": given.shape[0], "sources": n_sources, "results": results}


def paired(results: dict, key: str, condition: str) -> str:
    """The condition minus "as given", mean ± standard error over the seeds."""
    diff = np.array([r[key] for r in results[condition]]) - np.array([r[key] for r in results["as given"]])
    se = diff.std(ddof=1) / np.sqrt(diff.size) if diff.size > 1 else 0.0
    return f"{diff.mean():+.3f} ± {se:.3f}"


def report(name: str, found: dict, args) -> list[str]:
    results = found["results"]
    lines = []
    for condition in CONDITIONS:
        rows = results[condition]
        lines.append(
            f"| {name} | {condition} | {mean_sd(np.array([r['loglik'] for r in rows]), 3)} | "
            f"{'' if condition == 'as given' else paired(results, 'loglik', condition)} | "
            f"{mean_sd(np.array([r['npmi'] for r in rows]), 3)} | "
            f"{'' if condition == 'as given' else paired(results, 'npmi', condition)} | "
            f"{min_max(r['live'] for r in rows)} | {min_max(r['held'] for r in rows)} | "
            f"{mean_sd(np.array([100 * r['largest'] for r in rows]), 0)} % |")
    return lines


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--corpora", nargs="+", default=["ap", "foldoc", "sotu", "jargon"])
    p.add_argument("--k", type=int, default=20, help="LDA topics")
    p.add_argument("--seeds", type=int, nargs="+", default=[0, 1, 2, 3, 4])
    p.add_argument("--epochs", type=int, default=10, help="passes over the documents")
    p.add_argument("--sources", type=int, default=None,
                   help="documents copied in each seed (default: 1 %% of the training documents, at least 5)")
    p.add_argument("--copies", type=int, default=10, help="copies appended of each drawn document")
    p.add_argument("--min-words", type=int, default=50, help="tokens a drawn document has at least")
    p.add_argument("--shared", type=Path, default=SHARED)
    p.add_argument("--cache", type=Path, default=CACHE)
    args = p.parse_args(argv)
    for name in ("k", "epochs", "copies", "min_words"):
        if getattr(args, name) < 1:
            p.error(f"--{name.replace('_', '-')} must be >= 1")
    if args.sources is not None and args.sources < 1:
        p.error("--sources must be >= 1")
    print(_report.warm_up(["float64"], cold=False), flush=True)
    header = [f"# copies.py, K = {args.k}, {args.epochs} passes, seeds {' '.join(map(str, args.seeds))}, "
              f"{args.copies} more copies of each drawn document (at least {args.min_words} words)", "",
              "| collection | training documents | copies already in them | documents drawn |", "|---|---|---|---|"]
    table = ["| collection | documents | held-out LL | minus as given (± se) | NPMI | minus as given (± se) | "
             "live topics | topics the drawn documents hold | largest share of a topic from them |",
             "|---|---|---|---|---|---|---|---|---|"]
    from threadpoolctl import threadpool_limits

    with threadpool_limits(limits=1):
        for name in args.corpora:
            collection, why = load_collection(name, args)
            if collection is None:
                print(why, file=sys.stderr)
                continue
            found = run_collection(collection, args)
            header.append(f"| {name} | {found['docs']:,} | {found['natural']:,} | {found['sources']:,} |")
            table.extend(report(name, found, args))
    print("\n".join([*header, "", *table]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
