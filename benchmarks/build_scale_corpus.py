"""Build a semi-synthetic corpus at the paper's scale on disk (out of core).

Hoffman, Blei, Wang & Paisley (JMLR 2013) train on 3.8M Wikipedia articles
(~480M tokens, V ~ 8,000, ~126 tokens per document).  This script makes a
corpus of that shape without the data:

1. reads a real source corpus (default: the AP training split) and keeps its
   ``--n-words`` most frequent words;
2. fits LDA with ``--n-topics`` topics on it by SVI for ``--epochs`` passes;
3. draws ``--n-docs`` documents from the fitted topics and topic weights with the
   source's document lengths (rescaled to ``--mean-length``) and writes them to
   OUTPUT as an :class:`engine.data.ondisk.DiskCorpus`, block by block;
4. prints build time, tokens/s, peak RSS and the time extrapolated to 3.8M documents.

Example (small run, ~1 minute on one core)::

    python benchmarks/build_scale_corpus.py /tmp/scale --n-docs 20000 --overwrite

The full corpus (``--n-docs 3800000``, the default) needs ~3 GB of disk.
"""

from __future__ import annotations

import argparse
import resource
import sys
import time
from pathlib import Path

import numpy as np
import scipy.sparse as sp

HERE = Path(__file__).resolve().parent
try:
    import engine
except ImportError:  # a plain checkout: the project root is the parent of this folder
    sys.path.insert(0, str(HERE.parent))
    import engine
from engine.data.ondisk import DiskCorpus  # noqa: E402  (after the sys.path fallback)
from engine.data.semisynthetic import SemiSyntheticGenerator  # noqa: E402

PAPER_DOCS, PAPER_TOKENS = 3_800_000, 480_000_000
AP = HERE.parent.parent / "shared" / "corpora" / "ap"  # ../shared/corpora/ap beside the project root


def peak_rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # Linux reports KiB


def current_rss_mb(kind: str = "VmRSS") -> float:
    """Current resident memory (Linux): VmRSS in all, RssAnon (heap) or RssFile (mapped files, reclaimable)."""
    with open("/proc/self/status") as status:
        line = next(line for line in status if line.startswith(f"{kind}:"))
    return int(line.split()[1]) / 1024


def restrict(counts: sp.csr_matrix, vocabulary: list[str], n_words: int) -> tuple[sp.csr_matrix, list[str]]:
    """Keep the ``n_words`` most frequent columns (in their original order) and the non-empty rows."""
    totals = np.asarray(counts.sum(axis=0)).ravel()
    columns = np.sort(np.argsort(-totals, kind="stable")[:n_words])
    kept = counts[:, columns].tocsr()
    kept = kept[np.diff(kept.indptr) > 0]
    return kept, [vocabulary[c] for c in columns]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("output", type=Path, help="folder to write the disk corpus to")
    parser.add_argument("--n-docs", type=int, default=PAPER_DOCS)
    parser.add_argument("--source", type=Path, default=AP / "train.npz", help="CSR .npz (scipy.sparse.save_npz)")
    parser.add_argument("--vocab", type=Path, default=AP / "vocab.txt", help="vocabulary of --source")
    parser.add_argument("--n-topics", type=int, default=100)
    parser.add_argument("--n-words", type=int, default=8000)
    parser.add_argument("--epochs", type=float, default=2.0, help="SVI passes over the source corpus")
    parser.add_argument("--batch-size", type=int, default=256)
    parser.add_argument("--mean-length", type=float, default=126.0,
                        help="rescale the source's document lengths to this mean (0 keeps them)")
    parser.add_argument("--block-size", type=int, default=4096)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--train-steps", type=int, default=0,
                        help="then time this many SVI steps sampling minibatches from the disk corpus")
    parser.add_argument("--overwrite", action="store_true")
    args = parser.parse_args()

    source = sp.load_npz(args.source).tocsr()
    vocabulary = args.vocab.read_text(encoding="utf-8").split("\n")[: source.shape[1]]
    counts, vocabulary = restrict(source, vocabulary, args.n_words)
    print(f"source: {args.source} -> {counts.shape[0]} docs, V={counts.shape[1]}, {counts.sum()} tokens")

    started = time.perf_counter()
    model = engine.LDA(args.n_topics, counts.shape[1], seed=args.seed)
    trainer = engine.SVI(model, counts, batch_size=min(args.batch_size, counts.shape[0]), kappa=0.7, tau=1.0,
                         seed=args.seed)
    trainer.run(n_docs=max(1, int(args.epochs * counts.shape[0])))
    print(f"fit: LDA K={args.n_topics} by SVI, {trainer.t} steps ({trainer.epoch:.1f} epochs) "
          f"in {time.perf_counter() - started:.1f} s")

    lengths = np.asarray(counts.sum(axis=1)).ravel()
    if args.mean_length > 0:
        lengths = np.maximum(1, np.rint(lengths * (args.mean_length / lengths.mean()))).astype(np.int64)
    generator = SemiSyntheticGenerator.from_model(model, lengths, block_size=args.block_size)
    rss_before = current_rss_mb()

    started = time.perf_counter()
    next_report = [0.0]

    def progress(done: int) -> None:
        if done / args.n_docs >= next_report[0]:
            elapsed = time.perf_counter() - started
            print(f"  {done:>10,} docs  {elapsed:7.1f} s  {done / elapsed:9.0f} docs/s", flush=True)
            next_report[0] += 0.1

    disk = generator.build(args.output, args.n_docs, seed=args.seed, vocabulary=vocabulary,
                           overwrite=args.overwrite, progress=progress)
    seconds = time.perf_counter() - started
    size = sum(f.stat().st_size for f in args.output.iterdir()) / 2**20
    tokens_per_second = disk.n_tokens / seconds
    print(f"built: {disk.n_docs:,} docs, {disk.n_tokens:,} tokens (mean {disk.n_tokens / disk.n_docs:.1f}), "
          f"nnz {disk.nnz:,}, V={disk.n_words}, {size:.0f} MiB on disk")
    print(f"build time {seconds:.1f} s: {disk.n_docs / seconds:,.0f} docs/s, {tokens_per_second / 1e6:.2f}M tokens/s")
    print(f"RSS before the build {rss_before:.0f} MiB, peak RSS of the process {peak_rss_mb():.0f} MiB")
    scale = PAPER_DOCS / disk.n_docs
    print(f"extrapolated to {PAPER_DOCS:,} docs: {seconds * scale / 60:.1f} min, "
          f"{size * scale / 1024:.1f} GiB (at {disk.n_tokens / disk.n_docs:.0f} tokens/doc; the paper has "
          f"{PAPER_TOKENS / PAPER_DOCS:.0f})")

    started = time.perf_counter()
    DiskCorpus.open(args.output, check="full")
    print(f"full validation (DiskCorpus.open): {time.perf_counter() - started:.2f} s")
    if args.train_steps:
        model = engine.LDA(args.n_topics, disk.n_words, seed=args.seed)
        trainer = engine.SVI(model, disk, batch_size=args.batch_size, seed=args.seed)
        started = time.perf_counter()
        trainer.run(n_steps=args.train_steps)
        elapsed = time.perf_counter() - started
        print(f"SVI from disk: {args.train_steps} steps of {args.batch_size} docs in {elapsed:.1f} s "
              f"({trainer.docs_seen / elapsed:.0f} docs/s), peak RSS {peak_rss_mb():.0f} MiB; now "
              f"{current_rss_mb('RssAnon'):.0f} MiB anonymous + {current_rss_mb('RssFile'):.0f} MiB of mapped "
              "files (page cache the kernel can reclaim)")


if __name__ == "__main__":
    main()
