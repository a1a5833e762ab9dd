"""Minibatch reads from an on-disk corpus: reads/second and resident memory, memmap against pread.

SVI reads the rows of a random minibatch from disk at every step.  Reading them
through a memory map leaves every touched page mapped in the process, so its
peak resident memory (``ru_maxrss``) grows towards the size of the corpus;
positional reads (``os.pread``, what :class:`engine.DiskCounts` does) copy only
the bytes asked for and leave the file pages to the kernel's page cache.

This script reads the minibatches of SVI's epoch sampling (consecutive slices
of a random permutation) both ways, each reader in a fresh process so each has
its own peak, and prints minibatch reads per second (wall clock, and per CPU
second, which other processes on the machine disturb less), ``ru_maxrss``, the
process's own anonymous memory (``RssAnon``, sampled peak) and the mapped file
pages (``RssFile``).  With ``--train-steps`` it also trains LDA for that many
SVI steps with each reader (memory), then once more with both readers taking
turns step by step in one process (speed: other processes then slow both
alike), to show what the reads cost in training.

    python benchmarks/build_scale_corpus.py /tmp/scale400k --n-docs 400000 --overwrite
    python benchmarks/ondisk_rss.py /tmp/scale400k --batch-size 500 --passes 1 --repeats 2
    python benchmarks/ondisk_rss.py /tmp/scale400k --passes 0 --train-steps 200

``--cache warm`` (default) reads the corpus files once before each measurement,
so every reader starts from the page cache; ``--cache cold`` evicts them first
(``posix_fadvise(DONTNEED)``, Linux).
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
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

READERS = ("mmap", "pread")


class MemmapRows:
    """Rows gathered through the memory maps, as DiskCounts read them before positional reads."""

    out_of_core = True  # engine.SVI takes it as it takes a DiskCounts
    ndim = 2

    def __init__(self, counts: engine.DiskCounts):
        self.disk, self.shape = counts, counts.shape  # not "counts": SVI would take that attribute's rows

    def __getitem__(self, rows: np.ndarray) -> sp.csr_matrix:
        counts = self.disk
        starts = np.asarray(counts.indptr[rows])
        lengths = np.asarray(counts.indptr[rows + 1]) - starts
        indptr = np.zeros(rows.size + 1, dtype=np.int64)
        np.cumsum(lengths, out=indptr[1:])
        positions = np.arange(indptr[-1], dtype=np.int64) + np.repeat(starts - indptr[:-1], lengths)
        return sp.csr_matrix((np.asarray(counts.data[positions], dtype=np.int64),
                              np.asarray(counts.indices[positions]), indptr), shape=(rows.size, self.shape[1]))


def rss_mib() -> dict[str, float]:
    """Current RssAnon and RssFile (Linux /proc/self/status), MiB."""
    fields = dict(line.split(":", 1) for line in Path("/proc/self/status").read_text().splitlines())
    return {key: int(fields[key].split()[0]) / 1024 for key in ("RssAnon", "RssFile")}


def minibatches(n_docs: int, batch_size: int, n_batches: int, seed: int):
    """SVI's epoch sampling: consecutive slices of a random permutation, a new permutation per epoch."""
    rng = np.random.default_rng(seed)
    permutation, position = rng.permutation(n_docs), 0
    for _ in range(n_batches):
        if position + batch_size > n_docs:
            permutation, position = rng.permutation(n_docs), 0
        yield permutation[position:position + batch_size]
        position += batch_size


def measure(folder: Path, reader: str, task: str, args: argparse.Namespace) -> dict:
    """Read minibatches (task "read") or train LDA (task "train") with one reader: time, memory, a checksum."""
    corpus = engine.DiskCorpus.open(folder, check="quick")
    rows = MemmapRows(corpus.counts) if reader == "mmap" else corpus.counts
    peak_anon, checksum = rss_mib()["RssAnon"], 0
    if task == "read":
        steps = n_batches(corpus.n_docs, args)
        batches = minibatches(corpus.n_docs, args.batch_size, steps, args.seed)
    else:
        steps = args.train_steps
        model = engine.LDA(n_topics=args.topics, n_words=corpus.n_words, seed=args.seed)
        trainer = engine.SVI(model, rows, batch_size=args.batch_size, seed=args.seed)
    started, cpu_started = time.perf_counter(), time.process_time()
    for step in range(steps):
        if task == "read":
            matrix = rows[next(batches)]
            checksum = (checksum + int(matrix.data @ (matrix.indices.astype(np.int64) + 1))) % 1_000_003
        else:
            trainer.step()
        if step % 20 == 0:
            peak_anon = max(peak_anon, rss_mib()["RssAnon"])
    seconds, cpu_seconds = time.perf_counter() - started, time.process_time() - cpu_started
    if task == "train":
        checksum = float(model.lambda_.sum())
    now = rss_mib()
    return {"reader": reader, "task": task, "steps": steps, "per_s": steps / seconds, "per_cpu_s": steps / cpu_seconds,
            "ru_maxrss_mib": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
            "peak_rss_anon_mib": max(peak_anon, now["RssAnon"]), "rss_file_mib": now["RssFile"],
            "checksum": checksum}


def interleaved(folder: Path, args: argparse.Namespace) -> dict:
    """Median read and SVI step times of both readers, alternating step by step in one process.

    Other processes on the machine then slow both readers alike, which separate
    runs cannot promise; the memory figures of this process mean nothing.
    """
    corpus = engine.DiskCorpus.open(folder, check="quick")
    readers = {"mmap": MemmapRows(corpus.counts), "pread": corpus.counts}
    trainers = {name: engine.SVI(engine.LDA(n_topics=args.topics, n_words=corpus.n_words, seed=args.seed), rows,
                                 batch_size=args.batch_size, seed=args.seed) for name, rows in readers.items()}
    times: dict[str, dict[str, list[float]]] = {name: {"read": [], "step": []} for name in readers}
    for i, batch in enumerate(minibatches(corpus.n_docs, args.batch_size, args.train_steps, args.seed)):
        for name in READERS[::-1] if i % 2 else READERS:
            started = time.perf_counter()
            readers[name][batch]
            times[name]["read"].append(time.perf_counter() - started)
            started = time.perf_counter()
            trainers[name].step(doc_ids=batch)  # reads the batch again, as training does
            times[name]["step"].append(time.perf_counter() - started)
    same = np.array_equal(trainers["mmap"].model.lambda_, trainers["pread"].model.lambda_)
    return {name: {key: float(np.median(values)) for key, values in kinds.items()} for name, kinds in times.items()
            } | {"same": bool(same)}


def n_batches(n_docs: int, args: argparse.Namespace) -> int:
    steps = int(args.passes * n_docs / args.batch_size)
    return min(steps, args.max_batches) if args.max_batches else steps


def prepare_cache(folder: Path, cache: str) -> None:
    """Read the array files once (warm) or evict them from the page cache (cold)."""
    for name in ("indptr.npy", "indices.npy", "data.npy"):
        with open(folder / name, "rb") as file:
            if cache == "cold":
                os.posix_fadvise(file.fileno(), 0, 0, os.POSIX_FADV_DONTNEED)
            else:
                while file.read(1 << 24):
                    pass


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("corpus", type=Path, help="a DiskCorpus folder (e.g. from build_scale_corpus.py)")
    parser.add_argument("--batch-size", type=int, default=500, help="documents per minibatch")
    parser.add_argument("--passes", type=float, default=1.0, help="documents read / n_docs (0: no read test)")
    parser.add_argument("--max-batches", type=int, help="read at most this many minibatches")
    parser.add_argument("--train-steps", type=int, default=0, help="then time this many LDA SVI steps per reader")
    parser.add_argument("--topics", type=int, default=100, help="K of the timed LDA")
    parser.add_argument("--reader", choices=[*READERS, "both"], default="both")
    parser.add_argument("--cache", choices=["warm", "cold"], default="warm")
    parser.add_argument("--repeats", type=int, default=1, help="alternate the readers this many times")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--child", choices=["read", "train", "interleaved"], help=argparse.SUPPRESS)  # as JSON
    args = parser.parse_args(argv)
    if args.child:
        if args.child == "interleaved":
            print(json.dumps(interleaved(args.corpus, args)))
        else:
            print(json.dumps(measure(args.corpus, args.reader, args.child, args)))
        return

    manifest = json.loads((args.corpus / "manifest.json").read_text())
    size = sum((args.corpus / f"{n}.npy").stat().st_size for n in ("indptr", "indices", "data")) / 2**20
    print(f"corpus {args.corpus}: {manifest['n_docs']:,} docs, nnz {manifest['nnz']:,}, arrays {size:,.0f} MiB; "
          f"minibatches of {args.batch_size}; page cache {args.cache}")
    print(f"{'task':>5} {'reader':>6} {'steps':>6} {'per s':>8} {'per cpu-s':>10} {'ru_maxrss MiB':>14} "
          f"{'peak RssAnon MiB':>17} {'RssFile MiB':>12}")
    tasks = [("read", n_batches(manifest["n_docs"], args))] * (args.passes > 0)
    tasks += [("train", args.train_steps)] * (args.train_steps > 0)
    results: dict[tuple[str, str], list[dict]] = {}

    def child(task: str, reader: str) -> dict:
        prepare_cache(args.corpus, args.cache)
        command = [sys.executable, __file__, *(argv if argv is not None else sys.argv[1:]),
                   "--child", task, "--reader", reader]
        return json.loads(subprocess.run(command, capture_output=True, text=True, check=True).stdout)

    for task, _ in tasks:
        for _ in range(args.repeats):
            for reader in READERS if args.reader == "both" else (args.reader,):
                result = child(task, reader)
                results.setdefault((task, reader), []).append(result)
                print(f"{task:>5} {reader:>6} {result['steps']:>6,} {result['per_s']:>8,.1f} "
                      f"{result['per_cpu_s']:>10,.1f} {result['ru_maxrss_mib']:>14,.0f} "
                      f"{result['peak_rss_anon_mib']:>17,.0f} {result['rss_file_mib']:>12,.0f}", flush=True)
    for task, _ in tasks:
        if args.reader == "both":
            best = {key: [max(r[key] for r in results[task, reader]) for reader in ("pread", "mmap")]
                    for key in ("per_s", "per_cpu_s")}
            same = len({r["checksum"] for reader in READERS for r in results[task, reader]}) == 1
            print(f"{task}: best pread / best mmap, per second {best['per_s'][0] / best['per_s'][1]:.2f}, "
                  f"per CPU second {best['per_cpu_s'][0] / best['per_cpu_s'][1]:.2f}; same result: {same}")
    if args.train_steps and args.reader == "both":
        medians = child("interleaved", "both")
        (read, step), (mmap_read, mmap_step) = ((medians[r]["read"], medians[r]["step"]) for r in ("pread", "mmap"))
        print(f"train, both readers alternating in one process, median ms: pread read {read * 1e3:.2f} step "
              f"{step * 1e3:.1f}, mmap read {mmap_read * 1e3:.2f} step {mmap_step * 1e3:.1f}; steps/s pread / mmap "
              f"{mmap_step / step:.2f}; same topics: {medians['same']}")


if __name__ == "__main__":
    main()
