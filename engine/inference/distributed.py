"""SVI's local step spread over the workers of a Dask cluster (``dask.distributed``).

The driver, the process that owns :class:`engine.SVI`, keeps the global parameters and
the schedule.  Each step it cuts the minibatch into one chunk of documents per worker
(sized by the worker's threads), and sends each worker its chunk's job (lambda on the
chunk's columns and the model's settings: ``model.local_jobs``) with the chunk's document
ids.  Workers read their documents themselves from the corpus, sent to them once when
the trainer is built: an in-memory corpus is scattered to every worker; a
:class:`engine.DiskCounts` travels as its file paths and each worker reopens it, so it
must be on storage every worker can read.  The statistics that come back are added in
chunk order, so a step's result does not depend on which worker ran which chunk, and
equals the single-process step summation order aside (each document's fit is the same).

Nothing of the model changes until every chunk is back.  Jobs go straight to their workers
(``scatter(direct=True)``: the client must reach the workers, not only the scheduler) and
the statistics come straight back.  A chunk whose task raises is rerun ``RETRIES`` times;
a step whose attempt fails anyway (a worker that dies takes its job with it) is attempted
again on the workers there are then, from the same jobs, ``RETRIES`` times (an attempt
that outlives ``timeout`` has failed); after that the step raises
:class:`engine.ClusterError` with the model as it was.  A worker that joins is used from
the next step.  Dask is imported only when a cluster is used (the ``distributed`` extra).
"""

from __future__ import annotations

import copy
import dataclasses
import functools
import os
import time
from typing import Any

import numpy as np
import scipy.sparse as sp

from engine.errors import ClusterError

__all__ = ["DaskLocalStep"]  # used through engine.SVI(cluster=...)

RETRIES = 2  # reruns of a raising task, and further attempts at a step that failed
_LOCAL = "local:"


def _import_distributed():
    try:
        import distributed
    except ImportError:
        raise ImportError('training on a Dask cluster needs dask.distributed: pip install "svi-topics[distributed]"'
                          ) from None
    return distributed


def connect(cluster: Any, timeout: float = 10.0):
    """A ``dask.distributed.Client`` for ``cluster``.

    Parameters
    ----------
    cluster : Client, str
        A client (returned as it is); ``"local:N"``: a new ``LocalCluster`` of N worker
        processes of one thread each on this machine; any other string: a scheduler's
        address (``"tcp://host:8786"``).
    timeout : float
        Seconds to wait for a scheduler's answer.
    """
    distributed = _import_distributed()
    if isinstance(cluster, distributed.Client):
        return cluster
    if not isinstance(cluster, str) or not cluster.strip():
        raise ValueError("cluster must be a dask.distributed.Client, 'local:N' or a scheduler address, "
                         f"got {cluster!r}")
    cluster = canonical_address(cluster)
    if cluster.startswith(_LOCAL):
        return distributed.Client(local_cluster(int(cluster[len(_LOCAL):])))
    try:
        return distributed.Client(cluster, timeout=timeout)
    except (OSError, TimeoutError) as exc:
        raise ClusterError(f"could not reach the Dask scheduler at {cluster!r} ({exc}); start it "
                           "(dask scheduler) and its workers, or check the address") from None


def canonical_address(cluster: str) -> str:
    """``cluster`` in one spelling: stripped; ``"local:N"`` with N a plain integer (``"local:01"``: ``"local:1"``).

    N must be in [1, ``os.cpu_count()``]: a local cluster's workers are processes on this
    machine, one thread each.  Any other string is returned stripped (a scheduler's address).
    """
    cluster = cluster.strip()
    if not cluster.startswith(_LOCAL):
        return cluster
    count = cluster[len(_LOCAL):].strip()
    most = os.cpu_count() or 1
    if not count.isascii() or not count.isdigit() or not 1 <= int(count) <= most:
        raise ValueError(f"a local cluster is 'local:N' with N in [1, {most}] workers (this machine's CPUs), "
                         f"got {cluster!r}")
    return f"{_LOCAL}{int(count)}"


def local_cluster(n_workers: int, threads_per_worker: int = 1):
    """A ``LocalCluster`` of ``n_workers`` processes on this machine (what ``"local:N"`` starts).

    Worker processes are spawned (Dask's default), and a spawned process first re-runs
    the file of this process's ``__main__`` module unless that module names itself
    ``__main__`` through ``__spec__``: a script that starts a cluster needs an
    ``if __name__ == "__main__":`` guard, and the Streamlit app sets its ``__spec__``
    (``explorer/app.py``).  The dashboard takes a free port.
    """
    distributed = _import_distributed()
    return distributed.LocalCluster(n_workers=n_workers, threads_per_worker=threads_per_worker, processes=True,
                                    dashboard_address=":0")


def describe(client) -> str:
    """Where a client's work runs, for people: the scheduler's address and the workers and threads it has now."""
    threads = client.nthreads()
    return (f"Dask {client.scheduler.address} ({len(threads)} workers, "
            f"{sum(threads.values())} threads)")


@functools.cache
def _numba():
    try:
        import numba
    except ImportError:
        return None
    return numba


def fit_chunk(job, corpus, doc_ids: np.ndarray):
    """On a worker: read the documents ``doc_ids`` of ``corpus`` and run ``job`` on them; returns compact statistics.

    The compiled kernels use as many threads as the worker has (``--nthreads``).
    """
    numba = _numba()
    if numba is not None:
        from distributed import get_worker

        numba.set_num_threads(max(1, min(get_worker().state.nthreads, numba.config.NUMBA_NUM_THREADS)))
    rows = corpus[doc_ids]
    counts = sp.csr_matrix((rows.data, np.searchsorted(job.columns, rows.indices), rows.indptr),
                           shape=(rows.shape[0], job.columns.size))
    return job.run(counts).compact()


def _nbytes(value) -> int:
    """Bytes of the arrays in a job or statistics (what crosses the network, framing aside)."""
    if isinstance(value, np.ndarray):
        return value.nbytes
    if dataclasses.is_dataclass(value):
        return sum(_nbytes(getattr(value, field.name)) for field in dataclasses.fields(value))
    return 0


def chunk_bounds(counts: sp.csr_matrix, weights: list[int]) -> np.ndarray:
    """Document boundaries cutting the rows of ``counts`` into chunks with entries about proportional to ``weights``."""
    n_docs = counts.shape[0]
    n_chunks = min(len(weights), n_docs)
    shares = np.cumsum(np.asarray(weights[:n_chunks], dtype=np.float64))
    bounds = [0]
    for i, share in enumerate(shares[:-1]):
        cut = int(np.searchsorted(counts.indptr, counts.nnz * share / shares[-1]))
        # at least one document per chunk
        bounds.append(min(max(cut, bounds[-1] + 1), n_docs - (n_chunks - 1 - i)))
    bounds.append(n_docs)
    return np.asarray(bounds, dtype=np.int64)


class DaskLocalStep:
    """The local step of :class:`engine.SVI` on a Dask cluster (see the module docstring).

    Parameters
    ----------
    cluster : Client or str
        What :func:`connect` takes.
    counts : csr_matrix or DiskCounts
        The training documents, sent to the workers once, here.
    timeout : float, optional
        Seconds a step may take on the cluster before it fails (None: no limit).

    Attributes
    ----------
    client : dask.distributed.Client
    address : str
        The scheduler's address.
    last_bytes : tuple of int
        (sent, received) array bytes of the latest step: jobs and document ids out,
        statistics back.
    last_workers : int
        Chunks (one per worker) of the latest step.
    """

    def __init__(self, cluster: Any, counts, timeout: float | None = None):
        self.client = connect(cluster)
        self._owns_client = self.client is not cluster  # made from an address or "local:N": closed by close()
        self.address = self.client.scheduler.address
        self.timeout = timeout
        self._counts = counts
        self._corpus = None  # the corpus on the workers: sent here, dropped by release(), sent again if needed
        self._send_corpus()
        self.last_bytes = (0, 0)
        self.last_workers = 0

    def _send_corpus(self):
        if self._corpus is None:
            # a DiskCounts pickles as its file paths: each worker reopens the files
            self._corpus = self.client.scatter(self._counts, broadcast=True, hash=False)
        return self._corpus

    def release(self) -> None:
        """Drop the corpus from the workers' memory (a run that ended); a later step sends it again."""
        corpus, self._corpus = self._corpus, None
        if corpus is not None:
            corpus.release()

    def __repr__(self) -> str:
        return f"DaskLocalStep({self.address!r})"

    def describe(self) -> str:
        return describe(self.client)

    def close(self) -> None:
        """Drop the corpus from the workers; close the client (and its LocalCluster) if made here."""
        self.release()
        if self._owns_client:
            cluster = getattr(self.client, "cluster", None)
            self.client.close()
            if cluster is not None:
                cluster.close()

    def _workers(self) -> list[tuple[str, int]]:
        threads = self.client.nthreads()
        if not threads:
            try:
                self.client.wait_for_workers(1, timeout=self.timeout or 60.0)
            except (OSError, TimeoutError):
                raise ClusterError(f"the Dask cluster at {self.address} has no workers; start some "
                                   "(dask worker ADDRESS) and try again") from None
            threads = self.client.nthreads()
        return sorted(threads.items())

    def local_step(self, model, doc_ids: np.ndarray, counts: sp.csr_matrix, rng: np.random.Generator | None = None):
        """The statistics of ``model.local_step(counts, rng)``, ``counts`` being the documents ``doc_ids``.

        A failed attempt (a worker lost with its job, a task that raised ``RETRIES`` times)
        is made again on the workers there are then, from the same jobs and with the corpus
        sent again (a worker lost may have held the only copy), up to ``RETRIES`` times;
        nothing of the model changes before one attempt succeeds.
        """
        error: Exception | None = None
        for attempt in range(1 + RETRIES):
            if attempt:
                time.sleep(0.5 * 2 ** (attempt - 1))  # the scheduler notices a lost worker
                self.release()  # the corpus may have been lost with that worker: the next attempt sends it again
            try:
                # the same random starts every attempt
                parts, jobs = self._attempt(model, doc_ids, counts, copy.deepcopy(rng))
            except ClusterError:
                raise
            except Exception as exc:
                error = exc
                continue
            sent = sum(_nbytes(job) for job in jobs) + doc_ids.nbytes
            self.last_bytes = (sent, sum(_nbytes(part) for part in parts))
            self.last_workers = len(parts)
            return type(parts[0]).combine(parts, counts)
        raise ClusterError(f"a step failed on the Dask cluster at {self.address} {1 + RETRIES} times (last: "
                           f"{type(error).__name__}: {error}); the model was not updated") from error

    def _attempt(self, model, doc_ids, counts, rng) -> tuple[list, list]:
        """One try: each worker's job sent straight to it (not through the scheduler), its statistics fetched back."""
        distributed = _import_distributed()
        workers = self._workers()
        bounds = chunk_bounds(counts, [threads for _, threads in workers])
        jobs = model.local_jobs(counts, bounds, rng)
        futures = []
        try:
            # one scatter sends the jobs to the workers at once, one each; a task runs where its job is
            placed = self.client.scatter(jobs, workers=[address for address, _ in workers], direct=True, hash=False)
            corpus = self._send_corpus()
            futures = [self.client.submit(fit_chunk, job_data, corpus, doc_ids[low:high], retries=RETRIES,
                                          pure=False)
                       for job_data, low, high in zip(placed, bounds[:-1], bounds[1:], strict=True)]
            distributed.wait(futures, timeout=self.timeout)
            return self.client.gather(futures, direct=True), jobs
        except BaseException:
            self.client.cancel(futures)
            raise
