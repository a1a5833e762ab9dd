"""The command line the issue-13 probes share: panel collections x seeds x named configurations, one JSON line each.

A probe module gives ``train(collection, seed, epochs, config) -> dict`` and the help for its
configurations; :func:`main` loads each collection as ``quality.py`` does (optionally a
subsample of its training documents), runs every (seed, configuration) and prints and
appends one record per run (``quality.append_record``).
"""

from __future__ import annotations

import argparse
import json
from collections.abc import Callable

import quality
from _quality_config import CACHE, PANEL, SHARED
from _quality_panel import Collection, load_collection


def repeated_topics(top_words, shared: int = 7) -> int:
    """How many rows of ``top_words`` (each topic's top words, in the caller's order) share at least
    ``shared`` words with an earlier row: the topics a reader sees twice."""
    words = [set(row) for row in top_words]
    return sum(any(len(words[i] & words[j]) >= shared for j in range(i)) for i in range(len(words)))


def main(description: str, train: Callable[[Collection, int, int, dict], dict], configs_help: str) -> None:
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument("--corpora", nargs="+", default=list(PANEL))
    parser.add_argument("--seeds", nargs="+", type=int, default=[0, 1, 2])
    parser.add_argument("--epochs", type=int, default=10)
    parser.add_argument("--configs", required=True, help=f"JSON: label -> {configs_help}")
    parser.add_argument("--out", required=True)
    parser.add_argument("--subsample", type=int, default=None,
                        help="train on this many of each collection's training documents (a small collection)")
    args = parser.parse_args()
    configs = json.loads(args.configs)
    where = argparse.Namespace(shared=SHARED, cache=CACHE)
    for name in args.corpora:
        collection, why = load_collection(name, where)
        if collection is None:
            print(why)
            continue
        if args.subsample:
            collection = collection.subsample(args.subsample)
        for seed in args.seeds:
            for label, config in configs.items():
                record = {"corpus": collection.name, "seed": seed, "label": label,
                          **train(collection, seed, args.epochs, config)}
                print(json.dumps(record), flush=True)
                quality.append_record(args.out, record)
