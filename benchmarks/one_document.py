#!/usr/bin/env python
"""Topics that take their words mostly from one document: how often the Topics page's flag fires (issue 13).

The Topics page marks a topic whose words come at least half (``engine.ONE_DOCUMENT_SHARE``)
from a single document, by ``engine.main_documents`` (each training document's topic
proportions, ``model.transform``, times its length).  On an ordinary collection the flag
should stay silent; on a collection where one long document holds much of the words it
should name that document (live topics only, as on the page).  For each collection and
seed the script trains the default LDA (``engine.LDA(n_topics=K, n_words=V, seed=s)`` by ``engine.SVI`` for ``--epochs``
passes) on the training documents and reports the topics flagged and the largest share
of a topic's words that one document gives it.

``copyright`` is built here from this machine's ``/usr/share/doc/*/copyright`` files (one
document per file, copies left out as the app does by default, vectorised like the shared
corpora): Debian packages' licence texts, where one file (a library's list of files and
their authors) holds a large share of the words.  For it the script trains a second time
without its longest document, as the Topics page's note suggests.  The last columns check the
Data page's warning before training (``engine.long_documents``: documents holding at least
``ONE_DOCUMENT_SHARE / K`` of the words) against the topics flagged after it, beside a stricter
rule (documents holding 1 / K).

    NUMBA_NUM_THREADS=1 python benchmarks/one_document.py \
        --corpora ap foldoc sotu jargon docstrings bible fortunes synthetic copyright --seeds 0 1 2 3 4

See benchmarks/RESULTS.md (runs 75 and 76) for results.
"""

from __future__ import annotations

import argparse
import dataclasses
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
from _quality_config import CACHE, HDP_DOC_TRUNCATION, HDP_TRUNCATION, SHARED  # noqa: E402
from _quality_panel import (  # noqa: E402
    HELDOUT_FRACTION,
    SPLIT_SEED,
    TEST_FRACTION,
    Collection,
    collection_vectorizer,
    load_collection,
    mean_sd,
    min_max,
)
from copies import train  # noqa: E402  (the default LDA for --epochs passes)

COPYRIGHT_FILES = "/usr/share/doc/*/copyright"


def copyright_collection(pattern: str = COPYRIGHT_FILES) -> tuple[Collection | None, str]:
    """One document per copyright file of this machine's packages, copies left out (the first of each kept)."""
    paths = sorted(Path("/").glob(pattern.lstrip("/")))
    texts = [path.read_text(encoding="utf-8", errors="replace") for path in paths]
    if len(texts) < 50:
        return None, f"skipping copyright: only {len(texts)} files match {pattern}"
    first = engine.find_text_copies(texts)
    texts = [text for d, text in enumerate(texts) if first[d] == d]
    counts = sp.csr_matrix(collection_vectorizer().fit_transform(texts), dtype=np.int64)
    counts = counts[np.asarray(counts.sum(axis=1)).ravel() > 0]
    train, observed, heldout = engine.heldout_split(counts, n_test=round(TEST_FRACTION * counts.shape[0]),
                                                    seed=SPLIT_SEED, heldout_fraction=HELDOUT_FRACTION)
    return Collection("copyright", train, observed, heldout, f"{pattern}, {counts.shape[0]} distinct files"), ""


def one_document_topics(model, counts: sp.csr_matrix) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Each topic's flag as the Topics page sets it (a live topic taking at least ``engine.ONE_DOCUMENT_SHARE`` of
    its words from one document), the document giving it the most words, and that document's share."""
    main, share = engine.main_documents(model.transform(counts), np.asarray(counts.sum(axis=1)).ravel())
    quality = dataclasses.replace(engine.topic_quality(model), main_document=main, main_share=share)
    return quality.one_document, main, share


def conditions(collection: Collection) -> list[tuple[str, sp.csr_matrix]]:
    """The training documents as given, and for the copyright files also without the longest of them."""
    found = [("as given", collection.train)]
    if collection.name == "copyright":
        lengths = np.asarray(collection.train.sum(axis=1)).ravel()
        found.append(("longest left out", collection.train[np.arange(lengths.size) != np.argmax(lengths)]))
    return found


def train_hdp(counts: sp.csr_matrix, seed: int, epochs: int):
    """The default HDP (``engine.HDP(n_topics=150, doc_truncation=20, n_words=V, seed=s)``) for ``epochs`` passes."""
    model = engine.HDP(n_topics=HDP_TRUNCATION, doc_truncation=HDP_DOC_TRUNCATION, n_words=counts.shape[1], seed=seed)
    engine.SVI(model, corpus=counts, seed=seed).run(n_docs=epochs * counts.shape[0])
    return model


def run_collection_hdp(collection: Collection, args) -> list[str]:
    """The HDP's rows: topics in use, topics flagged, and for each K of ``--rule-k`` the documents the Data page's
    rule (share >= ONE_DOCUMENT_SHARE / K) names and the flagged topics they account for."""
    rows = []
    started = time.perf_counter()
    for condition, counts in conditions(collection):
        own = np.asarray(counts.sum(axis=1)).ravel()
        warned = {k: engine.long_documents(own, k)[0] for k in args.rule_k}
        in_use, flagged, largest, behind = [], [], [], []
        by_warned: dict[int, list[int]] = {k: [] for k in args.rule_k}
        for seed in args.seeds:
            model = train_hdp(counts, seed, args.epochs)
            flags, main, share = one_document_topics(model, counts)
            quality = engine.topic_quality(model)
            in_use.append(quality.n_live)
            flagged.append(int(flags.sum()))
            largest.append(float(share[quality.live].max(initial=0.0)))  # none in use: an HDP on a few documents
            behind.extend((own[main[flags]] / own.sum()).tolist())  # the shares of the documents behind them
            for k in args.rule_k:
                by_warned[k].append(int((flags & np.isin(main, warned[k])).sum()))
            print(f"  {collection.name} {condition} HDP seed {seed}: {time.perf_counter() - started:.0f} s",
                  file=sys.stderr, flush=True)
        rows.append(f"| {collection.name} | {condition} | {counts.shape[0]:,} | {100 * own.max() / own.sum():.1f} % | "
                    f"{min_max(in_use)} | {min_max(flagged)} | {mean_sd(100 * np.array(largest), 0)} % | "
                    + (f"{100 * min(behind):.2f}-{100 * max(behind):.1f} % ({min(behind) * own.size:.1f}x-"
                       f"{max(behind) * own.size:.0f}x)" if behind else "-") + " | "
                    + " | ".join(f"{warned[k].size}: {min_max(by_warned[k])}" for k in args.rule_k) + " |")
    return rows


def run_collection(collection: Collection, args) -> list[str]:
    longest = int(np.argmax(np.asarray(collection.train.sum(axis=1)).ravel()))
    rows = []
    started = time.perf_counter()
    for condition, counts in conditions(collection):
        flagged, largest, by_longest, by_warned, by_whole, loglik = [], [], [], [], [], []
        own = np.asarray(counts.sum(axis=1)).ravel()
        # the Data page's warning before training: documents holding ONE_DOCUMENT_SHARE / K of the words; and,
        # to compare, those holding a whole topic's average share (1 / K)
        warned, _ = engine.long_documents(own, args.k)
        whole = np.flatnonzero(own / own.sum() >= 1.0 / args.k)
        for seed in args.seeds:
            model = train(counts, args.k, seed, args.epochs)
            flags, main, share = one_document_topics(model, counts)
            flagged.append(int(flags.sum()))
            largest.append(float(share.max()))
            by_longest.append(int((flags & (main == longest)).sum()))
            by_warned.append(int((flags & np.isin(main, warned)).sum()))
            by_whole.append(int((flags & np.isin(main, whole)).sum()))
            loglik.append(engine.predictive_log_likelihood(model, collection.observed, collection.heldout))
            print(f"  {collection.name} {condition} seed {seed}: {time.perf_counter() - started:.0f} s",
                  file=sys.stderr, flush=True)
        rows.append(f"| {collection.name} | {condition} | {counts.shape[0]:,} | "
                    f"{100 * own.max() / own.sum():.1f} % | {mean_sd(np.array(loglik), 3)} | "
                    f"{min_max(flagged)} | {min_max(by_longest) if condition == 'as given' else '-'} | "
                    f"{mean_sd(100 * np.array(largest), 0)} % | {warned.size} | {min_max(by_warned)} | "
                    f"{whole.size} | {min_max(by_whole)} |")
    return rows


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--corpora", nargs="+", default=["ap", "foldoc", "sotu", "jargon", "copyright"])
    p.add_argument("--k", type=int, default=20, help="LDA topics")
    p.add_argument("--seeds", type=int, nargs="+", default=[0, 1, 2, 3, 4])
    p.add_argument("--epochs", type=int, default=10, help="passes over the documents")
    p.add_argument("--model", choices=("lda", "hdp"), default="lda",
                   help="hdp: the default HDP instead, and the Data page's rule at each K of --rule-k")
    p.add_argument("--rule-k", type=int, nargs="+", default=[10, 20, 30, 50],
                   help="with --model hdp: the numbers of topics the rule (share >= 0.5 / K) is read at")
    p.add_argument("--subsample", type=int, nargs="+", default=None, metavar="N",
                   help="train on N of each collection's training documents instead (each N given; drawn once)")
    p.add_argument("--shared", type=Path, default=SHARED)
    p.add_argument("--cache", type=Path, default=CACHE)
    args = p.parse_args(argv)
    if args.k < 1 or args.epochs < 1:
        p.error("--k and --epochs must be >= 1")
    print(_report.warm_up(["float64"], cold=False), flush=True)
    table = [f"# one_document.py, default LDA, K = {args.k}, {args.epochs} passes, seeds "
             f"{' '.join(map(str, args.seeds))}; a topic is flagged when one training document gives it at least "
             f"{engine.ONE_DOCUMENT_SHARE:.0%} of its words", "",
             "| collection | trained on | documents | longest document's share of the words | held-out LL | "
             "topics flagged (min-max) | of them by the longest document | largest share one document gives a "
             "topic | documents warned about (share >= 0.5 / K) | flagged topics by them | documents holding 1 / K | "
             "flagged topics by them |", "|---|---|---|---|---|---|---|---|---|---|---|---|"]
    from threadpoolctl import threadpool_limits

    if args.model == "hdp":
        table = [f"# one_document.py, default HDP, {args.epochs} passes, seeds {' '.join(map(str, args.seeds))}; a "
                 f"topic in use is flagged when one training document gives it at least "
                 f"{engine.ONE_DOCUMENT_SHARE:.0%} of its words", "",
                 "| collection | trained on | documents | longest document's share of the words | topics in use | "
                 "topics flagged | largest share one document gives a topic in use | the flagged topics' documents' "
                 "shares of the words (x the average document's) | "
                 + " | ".join(f"K = {k}: documents the rule names: flagged topics by them" for k in args.rule_k)
                 + " |", "|---" * (8 + len(args.rule_k)) + "|"]
    with threadpool_limits(limits=1):
        for name in args.corpora:
            collection, why = copyright_collection() if name == "copyright" else load_collection(name, args)
            if collection is None:
                print(why, file=sys.stderr)
                continue
            for part in [collection] if args.subsample is None else [collection.subsample(n) for n in args.subsample]:
                table.extend(run_collection_hdp(part, args) if args.model == "hdp" else run_collection(part, args))
    print("\n".join(table))
    return 0


if __name__ == "__main__":
    sys.exit(main())
