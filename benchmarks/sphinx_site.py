#!/usr/bin/env python
"""A documentation site built by Sphinx, read as the engine reads it and with the files it leaves out read too.

A site Sphinx's HTML builders made (a ``_build/html`` folder, a zip of it) holds more than its
authors' pages: a copy of each page's source (``_sources/usage/intro.rst.txt`` beside
``usage/intro.html``; ``html_copy_source``, on by default) and pages Sphinx generates: the index of
terms (``genindex.html``), the index of modules (``py-modindex.html``), the search page and, with
``sphinx.ext.viewcode``, the highlighted code of every documented module (``_modules/``).  The
engine's readers read the authors' pages and list the others as skipped (``engine.sphinx_unread``).
This benchmark reads the site three ways:

- ``pages``: ``engine.read_zip`` / ``engine.read_folder`` as they read it now;
- ``pages+generated``: the same plus each generated page, as the readers read them before
  ``engine.sphinx_generated_pages`` (RESULTS.md run 93);
- ``pages+generated+sources``: the same plus each copied source decoded as plain text
  (``engine.decode_text``), as the readers read them before ``engine.sphinx_sources`` (run 90).

Each reading is counted by ``engine.Corpus.from_documents`` with min_df 5 and max_df 0.5 (the
app's preprocessing for 200 documents or more) and trained by the default LDA
(``engine.LDA(n_topics=K, n_words=V, seed=s)`` and ``engine.SVI`` for 10 passes, one thread).
A reading's "generated words" and "source words" are the words of the last reading of which the
generated pages (or the copied sources) hold at least 90 % of the occurrences (and that occur at
least 5 times): the code's names and keywords (``def``, ``self``), the sources' markup
(``confval``, ``automethod``).  Printed: documents, words (tokens), the shares of the words from
the generated pages and from the copied sources, and per seed the topics with such a word among
their 10 top words.

The site is not shipped; to build the one of RESULTS.md runs 90 and 93 (Sphinx's own documentation):

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

HELD_SHARE, HELD_MIN_COUNT = 0.9, 5  # a "generated" or "source" word: >= 90 % of its >= 5 occurrences there


def _files(site: Path) -> dict[str, bytes]:
    """The site's files by name (paths with "/"), from a folder or a zip."""
    if site.is_dir():
        return {path.relative_to(site).as_posix(): path.read_bytes() for path in sorted(site.rglob("*"))
                if path.is_file()}
    with zipfile.ZipFile(site) as archive:
        return {info.filename: archive.read(info) for info in archive.infolist() if not info.is_dir()}


def readings(site: Path) -> dict[str, engine.RawDocuments]:
    """The three readings of the site: as the engine reads it, plus its generated pages, plus its copied sources."""
    pages = engine.read_folder(site) if site.is_dir() else engine.read_zip(site)
    files = _files(site)

    def read(names) -> list[engine.RawDocument]:
        return [engine.RawDocument(name, Path(name).stem, engine.decode_text(files[name], name)) for name in names]

    generated = read(engine.sphinx_generated_pages(files))
    sources = read(engine.sphinx_sources(files))
    return {"pages": pages, "pages+generated": engine.RawDocuments([*pages, *generated]),
            "pages+generated+sources": engine.RawDocuments([*pages, *generated, *sources])}


def _rows(corpus: engine.Corpus, names: set[str]) -> list[int]:
    return [d for d, doc_id in enumerate(corpus.doc_ids) if doc_id in names]


def held_words(corpus: engine.Corpus, rows: list[int]) -> np.ndarray:
    """The vocabulary indices of the words the documents ``rows`` hold at least HELD_SHARE of."""
    total = np.asarray(corpus.counts.sum(axis=0)).ravel()
    held = np.asarray(corpus.counts[rows].sum(axis=0)).ravel() if rows else np.zeros_like(total)
    return np.flatnonzero((held >= HELD_SHARE * total) & (total >= HELD_MIN_COUNT))


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
    files = _files(args.site)
    kinds = {"generated": set(engine.sphinx_generated_pages(files)), "source": set(engine.sphinx_sources(files))}
    every = engine.Corpus.from_documents(read["pages+generated+sources"], min_df=5, max_df=0.5)
    words = {kind: {every.vocabulary[w] for w in held_words(every, _rows(every, names))}
             for kind, names in kinds.items()}
    print(f"engine {engine.__version__}; default LDA, K = {args.k}, {args.epochs} passes, seeds {args.seeds}")
    for name, documents in read.items():
        corpus = engine.Corpus.from_documents(documents, min_df=5, max_df=0.5)
        shares = {kind: corpus.counts[_rows(corpus, names)].sum() / corpus.n_tokens for kind, names in kinds.items()}
        counts = {kind: [] for kind in kinds}
        for seed in args.seeds:
            model = engine.LDA(n_topics=args.k, n_words=corpus.n_words, seed=seed)
            engine.SVI(model, corpus=corpus, seed=seed).run(n_docs=args.epochs * corpus.n_docs)
            top = np.argsort(-model.lambda_, axis=1)[:, :10]
            for kind in kinds:
                counts[kind].append(sum(any(corpus.vocabulary[w] in words[kind] for w in topic) for topic in top))
        print(f"{name:24s} documents {corpus.n_docs:5d}  words {corpus.n_tokens:7,d}  from generated pages "
              f"{shares['generated']:.0%}, copied sources {shares['source']:.0%}")
        for kind in kinds:
            print(f"{'':24s} topics with a {kind} word per seed {counts[kind]} (mean {np.mean(counts[kind]):.1f})")
    for kind in kinds:
        print(f"{kind} words: {len(words[kind])}, e.g. {', '.join(sorted(words[kind])[:12])}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
