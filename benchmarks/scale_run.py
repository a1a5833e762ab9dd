"""One pass of LDA SVI over an on-disk corpus at the paper's scale (a benchmark, not a test).

Build the corpus first (about 2 minutes for 3.8M documents), then time one pass:

    python benchmarks/build_scale_corpus.py /tmp/scale --n-docs 3800000
    python benchmarks/scale_run.py /tmp/scale --topics 100 --batch-size 500

Prints progress every ``--report-every`` steps and, at the end, documents per
second, wall time and the peak resident memory of the training process
(``ru_maxrss``), split into the process's own anonymous memory and mapped file
pages.  Minibatch rows are read with ``pread``, so the corpus itself goes to
the page cache, not into the process's resident memory.
"""

from __future__ import annotations

import argparse
import resource
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
try:
    import engine
except ImportError:  # a plain checkout: the project root is the parent of this folder
    sys.path.insert(0, str(HERE.parent))
    import engine


def _peak_rss_mib() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def _rss_split_mib() -> str:
    """Current anonymous (the process's own) and file-backed (mapped corpus pages) resident memory."""
    try:
        fields = dict(line.split(":", 1) for line in Path("/proc/self/status").read_text().splitlines())
    except OSError:  # not Linux
        return "n/a"
    anon, file = (int(fields[key].split()[0]) / 1024 for key in ("RssAnon", "RssFile"))
    return f"anon {anon:,.0f} MiB + mapped file {file:,.0f} MiB"


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("corpus", type=Path, help="folder written by build_scale_corpus.py (an engine.DiskCorpus)")
    parser.add_argument("--topics", type=int, default=100, help="K")
    parser.add_argument("--batch-size", type=int, default=500, help="S")
    parser.add_argument("--kappa", type=float, default=0.9)
    parser.add_argument("--tau", type=float, default=1.0)
    parser.add_argument("--dtype", default="float64", choices=["float64", "float32"])
    parser.add_argument("--max-docs", type=int, help="stop after this many documents (default: one pass)")
    parser.add_argument("--report-every", type=int, default=500, help="steps between progress lines")
    args = parser.parse_args(argv)

    corpus = engine.DiskCorpus.open(args.corpus, check="quick")
    print(f"corpus: {corpus.n_docs:,} documents, {corpus.n_words:,} words, {corpus.n_tokens:,} tokens; "
          f"peak RSS after opening {_peak_rss_mib():,.0f} MiB", flush=True)
    model = engine.LDA(n_topics=args.topics, n_words=corpus.n_words, dtype=args.dtype)
    trainer = engine.SVI(model, corpus, batch_size=args.batch_size, kappa=args.kappa, tau=args.tau, seed=0)
    target = min(args.max_docs or corpus.n_docs, corpus.n_docs)
    started = time.perf_counter()

    def progress(report) -> bool:
        if report.t % args.report_every == 0:
            elapsed = time.perf_counter() - started
            rate = report.docs_seen / elapsed
            print(f"step {report.t:>6,}  docs {report.docs_seen:>10,}  {elapsed:>7.0f} s  {rate:>7,.0f} docs/s  "
                  f"eta {(target - report.docs_seen) / rate:>6.0f} s  peak RSS {_peak_rss_mib():,.0f} MiB "
                  f"({_rss_split_mib()})",
                  flush=True)
        return True

    trainer.run(n_docs=target, callback=progress)
    elapsed = time.perf_counter() - started
    print(f"done: {trainer.docs_seen:,} documents in {elapsed:,.0f} s ({trainer.docs_seen / elapsed:,.0f} docs/s), "
          f"{trainer.t:,} steps; peak RSS {_peak_rss_mib():,.0f} MiB", flush=True)
    for words in model.top_words(8, vocabulary=corpus.vocabulary)[:5]:
        print("  " + " ".join(words))


if __name__ == "__main__":
    main()
