#!/usr/bin/env python
"""Issue 13's first report, rebuilt: an uploaded collection of five known sections, K = 10, the defaults.

The issue opened with a 2,225-article news collection of five sections trained in the app with
its defaults at K = 10: four of the ten topics ended with 0.13-0.59 % of the words and one mixed
two themes.  That collection is not reachable here, so this script builds one like it from texts
that are: 450 documents from each of five sources, each source a section —

- politics: paragraphs of State of the Union addresses (``sample_data/sotu_paragraphs.csv``);
- computing slang: entries of the Jargon File (``sample_data/jargon_file.zip``);
- religion: the King James Bible in blocks of 8 verses (Debian's ``bible-kjv``);
- Unix manuals: the Linux man pages, their first 250 words (Debian's ``manpages``, ``manpages-dev``);
- Python documentation: docstrings of this Python's standard library of at least 25 words.

Documents of fewer than 15 words are left out; a source that is not installed is skipped (at least
three must remain).  The texts are counted with the app's preprocessing (English stop words,
words in at least 5 documents and at most half of them), and each configuration trains on all of
them for ``--passes`` passes, one run per seed:

- "defaults": ``engine.LDA(n_topics=K, n_words=V, seed=s)`` and ``engine.SVI(model, corpus=X, seed=s)``;
- "filing app": what the app ran when the issue was filed, ``preset="paper"`` at kappa 0.7, tau 64;
- with ``--hdp``, "HDP defaults": ``engine.HDP(n_topics=150, doc_truncation=20, ...)``, its topics in
  use (at least 1 % of the words, as the app counts them) counted as live and their mean NPMI.

Per run it prints the topics live (at least 0.25 / K of the words), those under 1 % of the words,
the smallest share, the sections no live topic belongs to (a topic belongs to the section that
gives it at least 60 % of its words, weighing each document's topic proportions by its length),
the live topics that mix sections (no section gives 60 %) and the mean NPMI of the top 10 words.
Then the means and ranges over the seeds, as a Markdown table::

    python benchmarks/sections_case.py --seeds 0 1 2 3 4
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import Counter
from collections.abc import Callable
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
import _quality_panel  # the check collections' readers (bible, man pages, docstrings)

import engine

ROOT = Path(__file__).resolve().parents[1]
MIN_WORDS = 15  # shorter documents are left out
BELONGS = 0.6  # a topic belongs to a section that gives it at least this share of its words
MANPAGE_WORDS = 250
VERSES_PER_DOCUMENT = 8
DOCSTRING_WORDS = 25


def _sotu() -> list[str]:
    return [document.text for document in engine.read_table(ROOT / "sample_data" / "sotu_paragraphs.csv", "text")]


def _jargon() -> list[str]:  # read as the app reads an uploaded .zip
    return [document.text for document in engine.read_zip(ROOT / "sample_data" / "jargon_file.zip")]


def _bible() -> list[str]:
    verses, _ = _quality_panel.bible_verses()
    return [" ".join(verses[i:i + VERSES_PER_DOCUMENT]) for i in range(0, len(verses), VERSES_PER_DOCUMENT)]


def _manuals() -> list[str]:
    pages, _ = _quality_panel.manpage_texts()
    return [" ".join(page.split()[:MANPAGE_WORDS]) for page in pages]


def _python_docs() -> list[str]:
    texts, _ = _quality_panel.docstring_texts()
    return [text for text in texts if len(text.split()) >= DOCSTRING_WORDS]


SOURCES: dict[str, Callable[[], list[str]]] = {
    "politics": _sotu, "computing slang": _jargon, "religion": _bible, "Unix manuals": _manuals,
    "Python documentation": _python_docs,
}


def build(per_section: int, seed: int) -> tuple[list[str], np.ndarray, list[str]]:
    """(texts, each text's section index, section names): ``per_section`` texts drawn from each source."""
    rng = np.random.default_rng(seed)
    texts, labels, names = [], [], []
    for name, read in SOURCES.items():
        try:
            pool = [text for text in read() if len(text.split()) >= MIN_WORDS]
        except OSError as exc:  # the source is not installed
            print(f"skipping {name}: {exc}", file=sys.stderr)
            continue
        if len(pool) < per_section:
            print(f"skipping {name}: {len(pool)} texts of {MIN_WORDS} words or more", file=sys.stderr)
            continue
        chosen = rng.choice(len(pool), per_section, replace=False)
        texts += [pool[i] for i in chosen]
        labels += [len(names)] * per_section
        names.append(name)
    if len(names) < 3:
        sys.exit(f"only {len(names)} sources are available ({', '.join(names)}); at least 3 are needed")
    return texts, np.array(labels), names


CONFIGS = {"defaults": ({}, {}), "filing app": ({"preset": "paper"}, {"kappa": 0.7, "tau": 64.0})}


def measure(model, counts, labels: np.ndarray, names: list[str], reference: engine.CoherenceReference) -> dict:
    """The run's figures (see the module docstring); ``labels`` index ``names``.

    Shares, live topics and mean NPMI are :func:`engine.topic_quality`'s, as the app shows them:
    for an HDP, "live" are its topics in use and NPMI is their mean.
    """
    quality = engine.topic_quality(model, reference)
    theta = model.transform(counts)
    lengths = np.asarray(counts.sum(axis=1)).ravel()
    words = np.stack([(theta[labels == s] * lengths[labels == s, None]).sum(axis=0) for s in range(len(names))])
    purity = words.max(axis=0) / np.maximum(words.sum(axis=0), np.finfo(float).tiny)  # a topic no one uses: 0
    owned = set(words.argmax(axis=0)[quality.live & (purity >= BELONGS)].tolist())
    return {"live": quality.n_live, "under_1pct": int((quality.weights < 0.01).sum()),
            "smallest_share": float(quality.weights.min()),
            "sections_without_topic": [name for s, name in enumerate(names) if s not in owned],
            "mixed": int((quality.live & (purity < BELONGS)).sum()), "npmi": quality.mean_coherence}


def _spread(runs: list[dict], key: str, fmt: str) -> str:
    """"mean (smallest-largest)" of a figure over the runs (of a list: its length)."""
    values = [len(run[key]) if isinstance(run[key], list) else run[key] for run in runs]
    return f"{fmt.format(np.mean(values))} ({fmt.format(min(values))}-{fmt.format(max(values))})"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, nargs="+", default=[0, 1, 2, 3, 4])
    parser.add_argument("--k", type=int, default=10, help="topics (default 10, the app's)")
    parser.add_argument("--per-section", type=int, default=450, help="documents drawn from each source")
    parser.add_argument("--passes", type=int, default=10, help="passes over the collection (the app's default run)")
    parser.add_argument("--draw-seed", type=int, default=12345, help="seed of the documents' draw")
    parser.add_argument("--hdp", action="store_true", help="also the default HDP (K = 150, T = 20)")
    args = parser.parse_args(argv)
    texts, labels, names = build(args.per_section, args.draw_seed)
    corpus = engine.Corpus.from_texts(texts, ids=[str(i) for i in range(len(texts))], min_df=5, max_df=0.5)
    counts = corpus.counts  # the app's preprocessing; documents left with no words are dropped (listed)
    labels = labels[[int(i) for i in corpus.doc_ids]]
    print(f"{len(names)} sections ({', '.join(names)}), {counts.shape[0]} documents ({len(corpus.dropped)} left "
          f"empty), {counts.shape[1]} words, {int(counts.sum())} tokens; LDA at K = {args.k}, {args.passes} passes",
          flush=True)
    reference = engine.CoherenceReference(counts)
    rows: dict[str, list[dict]] = {}
    configs = {name: (engine.LDA, {"n_topics": args.k, **options}, svi) for name, (options, svi) in CONFIGS.items()}
    if args.hdp:
        configs["HDP defaults"] = (engine.HDP, {"n_topics": 150, "doc_truncation": 20}, {})
    for config, (kind, model_options, svi_options) in configs.items():
        for seed in args.seeds:
            model = kind(n_words=counts.shape[1], seed=seed, **model_options)
            engine.SVI(model, corpus=counts, seed=seed, **svi_options).run(n_docs=args.passes * counts.shape[0])
            if kind is engine.HDP:
                model.judge_births()  # as the app does when a run ends
            figures = measure(model, counts, labels, names, reference)
            rows.setdefault(config, []).append(figures)
            print(json.dumps({"config": config, "seed": seed, **figures}), flush=True)
    print(f"\n| configuration (LDA: K = {args.k}; {len(args.seeds)} seeds) | topics live (HDP: in use) | "
          "under 1 % of the words | smallest share | sections without a topic | topics mixing sections | NPMI |")
    print("|---|---|---|---|---|---|---|")
    for config, runs in rows.items():
        spare = configs[config][0] is engine.HDP  # its topics past those in use are spare, not dead
        cells = [_spread(runs, "live", "{:.1f}"), "-" if spare else _spread(runs, "under_1pct", "{:.1f}"),
                 "-" if spare else _spread(runs, "smallest_share", "{:.2%}"),
                 _spread(runs, "sections_without_topic", "{:.1f}"), _spread(runs, "mixed", "{:.1f}"),
                 _spread(runs, "npmi", "{:.3f}")]
        print(f"| {config} | " + " | ".join(cells) + " |")
    for config, runs in rows.items():
        orphans = Counter(name for run in runs for name in run["sections_without_topic"])
        print(f"{config}: sections without a topic of their own: "
              + (", ".join(f"{name} in {n} of {len(runs)} runs" for name, n in orphans.most_common()) or "none"))
    return 0


if __name__ == "__main__":
    sys.exit(main())
