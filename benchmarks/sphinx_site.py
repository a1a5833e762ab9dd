#!/usr/bin/env python
"""A documentation site built by Sphinx, read page by page against read with the sources Sphinx copies beside them.

Sphinx's HTML builders copy the source of every page into the site (``_sources/usage/intro.rst.txt``
beside ``usage/intro.html``; ``html_copy_source``, on by default), so a site downloaded from Read
the Docs or zipped from ``_build/html`` holds each page twice.  The engine's readers read the
page and skip its copied source (``engine.sphinx_sources``).  Before they did, the source was
read too, as plain text with its markup; this benchmark reads the site both ways:

- ``pages``: ``engine.read_zip`` / ``engine.read_folder`` as they read it now;
- ``pages+sources``: the same documents plus each copied source decoded as plain text
  (``engine.decode_text``), as the readers read them before.

Each reading is counted by ``engine.Corpus.from_documents`` with min_df 5 and max_df 0.5 (the
app's preprocessing for 200 documents or more) and trained by the default LDA
(``engine.LDA(n_topics=K, n_words=V, seed=s)`` and ``engine.SVI`` for 10 passes, one thread).
"Source words" are the words of the second reading of which the copied sources hold at least 90 %
of the occurrences (and that occur at least 5 times): the markup's (``confval``, ``automethod``)
and what only a source shows.  Printed: documents, words (tokens), the share of the words from
the copied sources, and per seed the topics with a source word among their 10 top words.

The site is not shipped; to build the one of RESULTS.md run 90 (Sphinx's own documentation):

    python -m venv /tmp/sphx && /tmp/sphx/bin/pip install sphinx
    /tmp/sphx/bin/pip download --no-deps --no-binary :all: sphinx==9.0.4 -d /tmp/sdist
    tar xzf /tmp/sdist/sphinx-9.0.4.tar.gz -C /tmp/sdist
    /tmp/sphx/bin/sphinx-build -q -b html /tmp/sdist/sphinx-9.0.4/doc /tmp/sdist/html
    NUMBA_NUM_THREADS=1 python benchmarks/sphinx_site.py /tmp/sdist/html --seeds 0 1 2 3 4
"""

from __future__ import annotations

import argparse
import sys
import zipfile
from pathlib import Path

import numpy as np

import engine

SOURCE_SHARE, SOURCE_MIN_COUNT = 0.9, 5  # a "source word": >= 90 % of its >= 5 occurrences in the copied sources


def _files(site: Path) -> dict[str, bytes]:
    """The site's files by name (paths with "/"), from a folder or a zip."""
    if site.is_dir():
        return {path.relative_to(site).as_posix(): path.read_bytes() for path in sorted(site.rglob("*"))
                if path.is_file()}
    with zipfile.ZipFile(site) as archive:
        return {info.filename: archive.read(info) for info in archive.infolist() if not info.is_dir()}


def readings(site: Path) -> dict[str, engine.RawDocuments]:
    """The two readings of the site: its pages as the engine reads it, and the same plus the copied sources as text."""
    pages = engine.read_folder(site) if site.is_dir() else engine.read_zip(site)
    files = _files(site)
    sources = [engine.RawDocument(name, Path(name).stem, engine.decode_text(files[name], name))
               for name in engine.sphinx_sources(files)]
    return {"pages": pages, "pages+sources": engine.RawDocuments([*pages, *sources])}


def source_words(corpus: engine.Corpus) -> np.ndarray:
    """The vocabulary indices of the words the copied sources hold at least SOURCE_SHARE of."""
    rows = [d for d, doc_id in enumerate(corpus.doc_ids) if "_sources/" in f"/{doc_id}"]
    total = np.asarray(corpus.counts.sum(axis=0)).ravel()
    held = np.asarray(corpus.counts[rows].sum(axis=0)).ravel() if rows else np.zeros_like(total)
    return np.flatnonzero((held >= SOURCE_SHARE * total) & (total >= SOURCE_MIN_COUNT))


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("site", type=Path, help="a site built by Sphinx: its folder or a .zip of it")
    parser.add_argument("--seeds", type=int, nargs="+", default=[0, 1, 2, 3, 4])
    parser.add_argument("--k", type=int, default=20)
    parser.add_argument("--epochs", type=int, default=10)
    args = parser.parse_args(argv)
    if not args.site.exists():
        parser.error(f"no such folder or zip: {args.site} (the module docstring says how to build one)")
    read = readings(args.site)
    both = engine.Corpus.from_documents(read["pages+sources"], min_df=5, max_df=0.5)
    words = {both.vocabulary[w] for w in source_words(both)}
    print(f"engine {engine.__version__}; default LDA, K = {args.k}, {args.epochs} passes, seeds {args.seeds}")
    for name, documents in read.items():
        corpus = engine.Corpus.from_documents(documents, min_df=5, max_df=0.5)
        rows = [d for d, doc_id in enumerate(corpus.doc_ids) if "_sources/" in f"/{doc_id}"]
        from_sources = corpus.counts[rows].sum() / corpus.n_tokens if rows else 0.0
        counts = []
        for seed in args.seeds:
            model = engine.LDA(n_topics=args.k, n_words=corpus.n_words, seed=seed)
            engine.SVI(model, corpus=corpus, seed=seed).run(n_docs=args.epochs * corpus.n_docs)
            top = np.argsort(-model.lambda_, axis=1)[:, :10]
            counts.append(sum(any(corpus.vocabulary[w] in words for w in topic) for topic in top))
        print(f"{name:14s} documents {corpus.n_docs:5d}  words {corpus.n_tokens:7,d}  from the copied sources "
              f"{from_sources:.0%}  topics with a source word per seed {counts} (mean {np.mean(counts):.1f})")
    print(f"source words: {len(words)}, e.g. {', '.join(sorted(words)[:12])}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
