"""SVI on a Dask LocalCluster against the in-process run, and a throughput model for a real cluster (issue 17).

Measures, on AP (../shared/corpora/ap, as benchmarks/compare_lda.py loads it), LDA with the
engine's defaults at S = 1024:

1. docs/second of the in-process run on two numba threads against ``engine.SVI(...,
   cluster=client)`` on a LocalCluster of 1 and of 2 single-threaded worker processes, and
   the bytes a step sends (jobs and ids) and receives (statistics);
2. the parts of a step that the model below is built from: the driver's serial work
   (sampling, ``local_jobs``, ``combine``, the global step), the local step's compute per
   document on one core (at K and at ``--calibrate-k``), the loopback's transfer rate and a
   task's round-trip latency;
3. the throughput model: per step on W workers,
       T(S, W) = t_driver(S) + latency + S c / W + bytes(S, W) / bandwidth,
   bytes(S, W) = what the driver's link carries (the larger of out and back), with the
   distinct words of a chunk of n documents from a Heaps fit on AP, v(n) = a n^b, capped at V;
   printed for a 100M-document corpus with V = 100,000 at K = 100 and 1,000 on 10 Gbit/s, with
   the S at which compute S c / W overtakes communication; and its prediction for 1 and 2
   local workers against the measured docs/s.

    python benchmarks/compare_dask.py                      # AP, K = 100, S = 1024
    python benchmarks/compare_dask.py --steps 6 --calibrate-k 1000

Timings on a shared machine are noisy: each configuration alternates with the others
over ``--repeats`` rounds and the best round is kept.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

os.environ.setdefault("NUMBA_NUM_THREADS", "2")
HERE = Path(__file__).resolve().parent
# run as a script, this folder comes first on sys.path, where this file would shadow the distributed package
# (in this process and in the worker processes, which inherit sys.path)
sys.path[:] = [entry for entry in sys.path if Path(entry or ".").resolve() != HERE]

import numpy as np  # noqa: E402
import scipy.sparse as sp  # noqa: E402

import engine  # noqa: E402
from engine.inference.distributed import chunk_bounds  # noqa: E402
from engine.models.lda import LDAStats  # noqa: E402

DEFAULT_CORPUS = HERE.parent.parent / "shared" / "corpora" / "ap"  # as benchmarks/compare_lda.py
NETWORK = 10e9 / 8  # 10 Gbit/s in bytes/s
BIG_CORPUS, BIG_VOCABULARY = 100_000_000, 100_000


def _steps_per_second(trainer, steps: int) -> float:
    started = time.perf_counter()
    for _ in range(steps):
        trainer.step()
    return steps / (time.perf_counter() - started)


def _parts_of_a_step(train: sp.csr_matrix, n_topics: int, batch_size: int, n_chunks: int, seed: int = 0) -> dict:
    """Driver-side seconds and one-core local-step seconds per document, from one step done by hand."""
    import numba

    model = engine.LDA(n_topics=n_topics, seed=seed)
    trainer = engine.SVI(model, train, batch_size=batch_size, seed=seed)
    trainer.step()  # compile, and leave the random start
    started = time.perf_counter()
    batch = trainer._next_batch(batch_size)
    counts = trainer.counts[batch]
    bounds = chunk_bounds(counts, [1] * n_chunks)
    jobs = model.local_jobs(counts, bounds)
    prepare = time.perf_counter() - started
    previous = numba.get_num_threads()
    numba.set_num_threads(1)
    parts, compute = [], 0.0
    for job, low, high in zip(jobs, bounds[:-1], bounds[1:], strict=True):
        rows = counts[low:high]
        local = sp.csr_matrix((rows.data, np.searchsorted(job.columns, rows.indices), rows.indptr),
                              shape=(rows.shape[0], job.columns.size))
        started = time.perf_counter()
        parts.append(job.run(local).compact())
        compute += time.perf_counter() - started
    numba.set_num_threads(previous)
    started = time.perf_counter()
    stats = LDAStats.combine(parts, counts)
    model.global_step(stats, scale=train.shape[0] / batch_size, rho=trainer.rho)
    finish = time.perf_counter() - started
    columns = [job.columns.size for job in jobs]
    # the driver's work is gathering lambda's columns for the chunks and blending the minibatch's columns back
    touched = (sum(columns) + stats.columns.size) * n_topics
    return {"driver": prepare + finish, "per_doc": compute / batch_size, "columns": columns,
            "driver_per_entry": (prepare + finish) / touched}


def _heaps(train: sp.csr_matrix, rng: np.random.Generator) -> tuple[float, float]:
    """v(n) = a n^b: distinct words of n random documents, fitted over n = 8..256 (before AP's vocabulary fills)."""
    sizes = np.array([8, 16, 32, 64, 128, 256])
    distinct = [np.mean([np.unique(train[rng.choice(train.shape[0], n, replace=False)].indices).size
                         for _ in range(5)]) for n in sizes]
    b, log_a = np.polyfit(np.log(sizes), np.log(distinct), 1)
    return float(np.exp(log_a)), float(b)


def step_bytes(batch_size: int, workers: int, n_topics: int, distinct) -> tuple[float, float]:
    """(out, back) bytes on the driver's link for one step: jobs and ids out, statistics back (float64)."""
    per_chunk = batch_size / workers
    columns = distinct(per_chunk)
    out = workers * (columns * (n_topics * 8 + 3 * 8) + n_topics * 8 + per_chunk * 8)
    back = workers * (columns * (n_topics * 8 + 8) + per_chunk * (n_topics * 8 + 8))
    return out, back


def step_seconds(batch_size, workers, n_topics, per_doc, driver_per_entry, latency, bandwidth,
                 distinct) -> tuple[float, float, float]:
    """(compute, communication, driver) seconds of one step on ``workers`` single-core workers; the step is their sum.

    compute = S c / W; communication = one task round trip + the driver link's larger
    direction / bandwidth; driver = its per-entry cost x K x (the chunks' columns + the
    minibatch's columns).
    """
    compute = batch_size * per_doc / workers
    communication = latency + max(step_bytes(batch_size, workers, n_topics, distinct)) / bandwidth
    driver = driver_per_entry * n_topics * (workers * distinct(batch_size / workers) + distinct(batch_size))
    return compute, communication, driver


def _loopback(client) -> tuple[float, float]:
    """(bytes/s, seconds): a 32 MB round trip through a worker, and a tiny task's round trip."""
    payload = np.ones(4 << 20)
    client.submit(np.sum, client.scatter(payload, direct=True), pure=False).result()  # warm
    started = time.perf_counter()
    for _ in range(3):
        future = client.scatter(payload, direct=True)
        client.submit(np.copy, future, pure=False).result()
    rate = 3 * 2 * payload.nbytes / (time.perf_counter() - started)
    started = time.perf_counter()
    for _ in range(20):
        client.submit(int, 1, pure=False).result()
    return rate, (time.perf_counter() - started) / 20


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--corpus", type=Path, default=DEFAULT_CORPUS)
    parser.add_argument("--k", type=int, default=100)
    parser.add_argument("--batch-size", type=int, default=1024)
    parser.add_argument("--steps", type=int, default=8, help="timed steps per configuration and round")
    parser.add_argument("--repeats", type=int, default=3, help="rounds; the best is kept")
    parser.add_argument("--calibrate-k", type=int, default=1000, help="also measure the local step at this K")
    args = parser.parse_args()
    from distributed import Client, LocalCluster

    if not (args.corpus / "train.npz").is_file():
        sys.exit(f"{args.corpus / 'train.npz'} not found: pass --corpus DIR holding train.npz (scipy.sparse CSR "
                 "counts), as ../shared/corpora/ap/ beside the project root")
    train = sp.load_npz(args.corpus / "train.npz").tocsr()
    S, K = args.batch_size, args.k
    print(f"AP train {train.shape[0]} docs, V = {train.shape[1]}, nnz = {train.nnz}; LDA K = {K}, S = {S}; "
          f"driver numba threads {os.environ['NUMBA_NUM_THREADS']}")

    clusters = {n: LocalCluster(n_workers=n, threads_per_worker=1, processes=True, dashboard_address=":0")
                for n in (1, 2)}
    clients = {n: Client(cluster) for n, cluster in clusters.items()}
    trainers = {"in-process, 2 threads": engine.SVI(engine.LDA(n_topics=K, seed=0), train, batch_size=S, seed=0)}
    for n, client in clients.items():
        trainers[f"LocalCluster {n} x 1 thread"] = engine.SVI(engine.LDA(n_topics=K, seed=0), train, batch_size=S,
                                                             seed=0, cluster=client)
    for trainer in trainers.values():  # compile and load the kernels everywhere
        trainer.step()
        trainer.step()
    best = dict.fromkeys(trainers, 0.0)
    for _ in range(args.repeats):
        for name, trainer in trainers.items():
            best[name] = max(best[name], _steps_per_second(trainer, args.steps))
    base = best["in-process, 2 threads"] * S
    print(f"\n{'configuration':<28} {'docs/s':>9} {'vs in-process':>14} {'sent/step':>12} {'received/step':>14}")
    for name, trainer in trainers.items():
        sent, received = trainer.cluster.last_bytes if trainer.cluster is not None else (0, 0)
        print(f"{name:<28} {best[name] * S:9.0f} {best[name] * S / base:13.2f}x {sent / 1e6:10.2f} MB "
              f"{received / 1e6:12.2f} MB")

    rate, latency = _loopback(clients[2])
    parts = {n: _parts_of_a_step(train, K, S, n) for n in (1, 2)}
    per_doc = min(p["per_doc"] for p in parts.values())
    calibrated = _parts_of_a_step(train, args.calibrate_k, S // 2, 1)["per_doc"]
    a, b = _heaps(train, np.random.default_rng(0))
    print(f"\nparts: driver {parts[2]['driver'] * 1e3:.1f} ms/step (sampling, local_jobs, combine, global step); "
          f"local step {per_doc * 1e3:.3f} ms/doc on one core at K = {K}, {calibrated * 1e3:.3f} ms/doc at "
          f"K = {args.calibrate_k} (S = {S // 2}); loopback {rate / 1e9:.2f} GB/s, task round trip "
          f"{latency * 1e3:.1f} ms; chunk columns {parts[2]['columns']}; Heaps fit on AP v(n) = {a:.1f} n^{b:.3f}")

    local_distinct = lambda n: min(train.shape[1], a * n**b)  # noqa: E731
    print("\nmodel check on this machine (loopback rate and latency as measured):")
    for n in (1, 2):
        compute, communication, driver = step_seconds(S, n, K, per_doc, parts[n]["driver_per_entry"], latency, rate,
                                                      local_distinct)
        print(f"  {n} worker(s): predicted {S / (compute + communication + driver):6.0f} docs/s (compute "
              f"{compute * 1e3:.0f} ms, transfer {communication * 1e3:.0f} ms, driver {driver * 1e3:.0f} ms); "
              f"measured {best[f'LocalCluster {n} x 1 thread'] * S:6.0f}")

    big_distinct = lambda n: min(BIG_VOCABULARY, a * n**b)  # noqa: E731
    driver_per_entry = parts[2]["driver_per_entry"]
    for n_topics, cost in ((K, per_doc), (args.calibrate_k, calibrated)):
        print(f"\nmodel: {BIG_CORPUS:,} documents, V = {BIG_VOCABULARY:,}, K = {n_topics}, 10 Gbit/s, "
              f"{cost * 1e3:.2f} ms/doc/core")
        print(f"  {'workers':>7} {'S where compute >= comm':>24} {'docs/s at that S':>17} {'hours/epoch':>12}")
        for workers in (1, 2, 4, 8, 16, 32, 64, 128, 256):
            for exponent in range(6, 25):
                size = 2**exponent
                if size < workers:
                    continue
                compute, communication, driver = step_seconds(size, workers, n_topics, cost, driver_per_entry,
                                                              latency, NETWORK, big_distinct)
                if compute >= communication:
                    rate_docs = size / (compute + communication + driver)
                    print(f"  {workers:>7} {size:>24,} {rate_docs:>17,.0f} {BIG_CORPUS / rate_docs / 3600:>12.1f}")
                    break
            else:
                print(f"  {workers:>7} {'> 2^24':>24}")
    for client in clients.values():
        client.close()
    for cluster in clusters.values():
        cluster.close()


if __name__ == "__main__":
    main()
