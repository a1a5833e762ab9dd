"""Screen LDA settings (the quality levers of issue 13) on the panel of ready corpora.

Each configuration is a name and a JSON object of ``engine.LDA`` options ("model") and
``engine.SVI`` options ("svi"), and optionally ``"adaptive": {"init_batches": n}`` to
replace the kappa/tau schedule by the adaptive step size of Ranganath, Wang, Blei & Xing
(ICML 2013): the engine's ``SVI(step_size="adaptive", adaptive_init_batches=n)``, the same
as ``"svi": {"step_size": "adaptive"}`` (it replaced a dense prototype here).  Every
(corpus, K, configuration, seed) cell trains the engine on one thread for a number of
epochs and appends one JSON line: held-out log likelihood per word
(``engine.predictive_log_likelihood``, the model's own local step; ``ll_mean_field``
re-scores the same topics with the paper's mean-field fold-in), mean top-10 NPMI against
the training documents, live topics (share >= 0.25/K) and training seconds.
``summarize`` prints mean ± std over seeds per cell.

    python benchmarks/lda_levers.py run --corpora ap foldoc sotu jargon --k 20 50 --seeds 0 1 2 \\
        --configs '{"paper": {"model": {"preset": "paper"}}, "default": {}}' --out /tmp/levers.jsonl
    python benchmarks/lda_levers.py summarize /tmp/levers.jsonl

The corpora are read from ``../shared/corpora/<name>`` (train.npz, test_obs.npz, test_ho.npz).
For the full panel with peers (tomotopy, gensim, scikit-learn) use ``benchmarks/quality.py``.
"""

from __future__ import annotations

import os

os.environ.setdefault("NUMBA_NUM_THREADS", "1")  # one thread, before numba is imported

import argparse
import collections
import itertools
import json
import time
from pathlib import Path

import numpy as np
from compare_lda import load_split  # the benchmarks' corpus loader (run from benchmarks/)

import engine

SHARED = Path(__file__).resolve().parents[1].parent / "shared" / "corpora"


def run(args) -> None:
    configs = json.loads(args.configs)
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    with out.open("a") as sink:
        for name in args.corpora:
            train, observed, heldout = load_split(SHARED / name)
            reference = engine.CoherenceReference(train)
            for K, (label, config), seed in itertools.product(args.k, configs.items(), args.seeds):
                model = engine.LDA(n_topics=K, n_words=train.shape[1], seed=seed, **config.get("model", {}))
                started = time.perf_counter()
                options = dict(config.get("svi", {}))
                if "adaptive" in config:
                    options.update(step_size="adaptive",
                                   adaptive_init_batches=config["adaptive"].get("init_batches", 5))
                trainer = engine.SVI(model, corpus=train, seed=seed, **options)
                trainer.run(n_docs=int(args.epochs * train.shape[0]))
                seconds = time.perf_counter() - started
                row = {
                    "corpus": name, "K": K, "label": label, "seed": seed, "epochs": args.epochs,
                    "secs": seconds,
                    "ll": engine.predictive_log_likelihood(model, observed, heldout),
                    "npmi": float(reference.score_model(model, n_top=10).mean()),
                    "live": int(np.sum(model.topic_weights() >= 0.25 / K)),
                }
                if model.local_update != "mean_field":
                    paper_fold_in = model.copy()
                    paper_fold_in.local_update = "mean_field"
                    row["ll_mean_field"] = engine.predictive_log_likelihood(paper_fold_in, observed, heldout)
                print(json.dumps(row), flush=True)
                sink.write(json.dumps(row) + "\n")
                sink.flush()


def summarize(args) -> None:
    cells = collections.defaultdict(list)
    for path in args.files:
        for line in Path(path).read_text().splitlines():
            row = json.loads(line)
            cells[(row["corpus"], row["K"], row["label"])].append(row)
    print("| corpus | K | setting | seeds | held-out LL | LL, mean-field fold-in | NPMI | fewest live | seconds |")
    print("|---|---|---|---|---|---|---|---|---|")
    for (corpus, K, label), rows in sorted(cells.items()):
        def column(key, rows=rows):
            return np.array([r[key] for r in rows if key in r])
        ll, npmi, mf = column("ll"), column("npmi"), column("ll_mean_field")
        mf_text = f"{mf.mean():.3f}" if mf.size else "-"
        print(f"| {corpus} | {K} | {label} | {len(rows)} | {ll.mean():.3f} ± {ll.std():.3f} | {mf_text} | "
              f"{npmi.mean():.3f} ± {npmi.std():.3f} | {column('live').min()} of {K} | {column('secs').mean():.1f} |")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    commands = parser.add_subparsers(dest="command", required=True)
    go = commands.add_parser("run", help="train and score every cell, appending JSON lines")
    go.add_argument("--corpora", nargs="+", default=["ap", "foldoc", "sotu", "jargon"])
    go.add_argument("--k", nargs="+", type=int, default=[10, 20, 50, 100])
    go.add_argument("--seeds", nargs="+", type=int, default=[0, 1, 2, 3, 4])
    go.add_argument("--epochs", type=float, default=10.0)
    go.add_argument("--configs", default='{"default": {}}', help="JSON: name -> {model: {...}, svi: {...}}")
    go.add_argument("--out", default="benchmarks/results/lda_levers.jsonl")
    go.set_defaults(func=run)
    summary = commands.add_parser("summarize", help="mean ± std over seeds per cell, as Markdown")
    summary.add_argument("files", nargs="+")
    summary.set_defaults(func=summarize)
    args = parser.parse_args()
    args.func(args)


if __name__ == "__main__":
    main()
