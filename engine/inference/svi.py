"""The stochastic and batch variational inference loops, shared by LDA and the HDP.

A model plugs in through four methods: ``initialize(n_docs, n_words=...)``,
``local_step(X, rng, warm_start) -> stats``, ``global_step(stats, scale, rho)``
and ``batch_update(stats)``.  The loop, the minibatch sampling and the step-size
schedule live here and only here.
"""

from __future__ import annotations

import time
import warnings
from contextlib import nullcontext
from dataclasses import dataclass

import numpy as np
from threadpoolctl import ThreadpoolController

from engine.errors import DivergedError
from engine.inference.schedule import DEFAULT_BATCH_SIZE, DEFAULT_KAPPA, DEFAULT_TAU, step_size
from engine.validation import as_counts, check_choice, check_int

__all__ = ["SVI", "BatchVI", "StepReport"]

_SAMPLINGS = ("epoch", "replacement")
# stream labels keep the random streams of a run independent of each other
_STREAM_PERMUTATION, _STREAM_REPLACEMENT, _STREAM_LOCAL = 1, 2, 3


@dataclass(frozen=True)
class StepReport:
    """What one update did.

    Attributes
    ----------
    t : int
        Number of global updates made so far (this one included).
    rho : float
        Step size used by this update.
    docs_seen : int
        Documents analysed so far, counting repeats.
    epoch : float
        docs_seen / number of training documents.
    batch_size : int
        Documents in this update's minibatch.
    local_iterations : float
        Mean local iterations per document in this update.
    seconds : float
        Wall-clock seconds this update took.
    """

    t: int
    rho: float
    docs_seen: int
    epoch: float
    batch_size: int
    local_iterations: float
    seconds: float


def _check_kappa(kappa) -> float:
    if isinstance(kappa, bool) or not isinstance(kappa, (int, float, np.floating)) or not 0.0 <= kappa <= 1.0:
        raise ValueError(f"kappa must be in [0, 1], got {kappa!r}")
    if not 0.5 < kappa <= 1.0:
        warnings.warn(
            f"kappa={kappa} is outside (0.5, 1]: the step sizes no longer satisfy the Robbins-Monro "
            "conditions and convergence is not guaranteed (fine for teaching)",
            UserWarning,
            stacklevel=3,
        )
    return float(kappa)


def _check_tau(tau) -> float:
    if isinstance(tau, bool) or not isinstance(tau, (int, float, np.floating)) or not np.isfinite(tau) or tau < 0:
        raise ValueError(f"tau must be a finite number >= 0, got {tau!r}")
    return float(tau)


_controller: ThreadpoolController | None = None


def _blas_limit(threads: int | None):
    """Limit BLAS to ``threads`` during a step (None: leave it alone).

    The thread pools are looked up once per process: a fresh lookup scans
    every loaded library, which is slow next to a small step.
    """
    global _controller
    if not threads:
        return nullcontext()
    if _controller is None:
        _controller = ThreadpoolController()
    return _controller.limit(limits=threads, user_api="blas")


def _check_finite(stats) -> None:
    # old topics are finite, so the blended ones are iff the new statistics are
    if not np.isfinite(stats.topic_word.sum()):  # a NaN or inf anywhere makes the sum non-finite
        raise DivergedError(
            "the topics became non-finite after an update; lower the step size (raise tau or kappa) "
            "or check the corpus for corrupt counts"
        )


def minibatch_update(model, counts, t: int, n_docs: int, rho: float, seed: int, blas_threads: int | None = 1):
    """The t-th SVI update of ``model`` on the minibatch ``counts`` (CSR rows), in place; returns the statistics.

    The local step fits the minibatch's documents (random starts from the stream of
    ``(seed, t)``), then the global step blends in the intermediate parameters with
    step size ``rho``, the minibatch scaled by n_docs / S as if it were the corpus
    repeated.  :meth:`SVI.step` and the models' ``partial_fit`` both call this.
    """
    rng = np.random.default_rng([seed, _STREAM_LOCAL, t])
    with _blas_limit(blas_threads):
        stats = model.local_step(counts, rng=rng)
        _check_finite(stats)  # before the update, so a failed step leaves the model as it was
        model.global_step(stats, scale=n_docs / counts.shape[0], rho=rho)
    return stats


class SVI:
    """Stochastic variational inference (Hoffman, Blei, Wang & Paisley 2013).

    Each step samples a minibatch of S documents, fits their local parameters
    against the current global parameters, forms intermediate global
    parameters as if the minibatch were the corpus repeated D/S times, and
    blends them in with step size rho_t = (t + tau) ** -kappa.

    Parameters
    ----------
    model : LDA or HDP
        The model to train; its topics are initialised here if it has none (a model
        built without ``n_words`` takes the corpus's).
    corpus : Corpus or sparse matrix of shape (n_docs, n_words)
        Training documents.
    batch_size : int
        Minibatch size S, in [1, n_docs].
    kappa : float
        Forgetting rate in [0, 1]; (0.5, 1] guarantees convergence.
    tau : float
        Delay >= 0.
    seed : int
        Seed of minibatch sampling and of random local initialisations.
    sampling : {"epoch", "replacement"}
        Uniform without replacement within each epoch, reshuffled every epoch,
        or uniform with replacement.
    blas_threads : int or None
        BLAS threads during a step; the local step's small products run
        fastest on one.  None leaves the BLAS setting alone.
    """

    def __init__(
        self,
        model,
        corpus,
        batch_size: int = DEFAULT_BATCH_SIZE,
        kappa: float = DEFAULT_KAPPA,
        tau: float = DEFAULT_TAU,
        seed: int = 0,
        sampling: str = "epoch",
        blas_threads: int | None = 1,
    ):
        self.model = model
        # an on-disk corpus stays on disk: step() reads each minibatch's rows
        self.counts = as_counts(corpus, model.n_words, out_of_core=True)
        self.n_docs = self.counts.shape[0]
        self.batch_size = check_int("batch_size", batch_size, 1, self.n_docs)
        self.kappa = _check_kappa(kappa)
        self.tau = _check_tau(tau)
        self.seed = check_int("seed", seed, 0)
        self.sampling = check_choice("sampling", sampling, _SAMPLINGS)
        self.blas_threads = blas_threads
        self.t = 0
        self.docs_seen = 0
        self._epoch_index = 0  # which permutation is being consumed
        self._position = 0  # next unused index of that permutation
        self._permutation: np.ndarray | None = None
        if model.lambda_ is None:
            model.initialize(self.n_docs, n_words=self.counts.shape[1])

    @property
    def epoch(self) -> float:
        """Passes over the training documents so far (docs_seen / n_docs)."""
        return self.docs_seen / self.n_docs

    @property
    def rho(self) -> float:
        """Step size the next update will use."""
        return step_size(self.t + 1, self.kappa, self.tau)

    def set_schedule(self, kappa: float | None = None, tau: float | None = None, batch_size: int | None = None) -> None:
        """Change kappa, tau or S; the next step uses them (t keeps counting)."""
        new_kappa = self.kappa if kappa is None else _check_kappa(kappa)
        new_tau = self.tau if tau is None else _check_tau(tau)
        new_size = self.batch_size if batch_size is None else check_int("batch_size", batch_size, 1, self.n_docs)
        self.kappa, self.tau, self.batch_size = new_kappa, new_tau, new_size

    # ------------------------------------------------------------ sampling
    def _epoch_permutation(self) -> np.ndarray:
        if self._permutation is None:
            rng = np.random.default_rng([self.seed, _STREAM_PERMUTATION, self._epoch_index])
            self._permutation = rng.permutation(self.n_docs)
        return self._permutation

    def _next_batch(self, size: int) -> np.ndarray:
        if self.sampling == "replacement":
            rng = np.random.default_rng([self.seed, _STREAM_REPLACEMENT, self.t + 1])
            return rng.integers(0, self.n_docs, size=size)
        parts, needed = [], size
        while needed:
            perm = self._epoch_permutation()
            take = perm[self._position:self._position + needed]
            parts.append(take)
            needed -= take.size
            self._position += take.size
            if self._position == self.n_docs:
                self._epoch_index += 1
                self._position = 0
                self._permutation = None
        return np.concatenate(parts)

    # ---------------------------------------------------------------- steps
    def step(self, doc_ids=None) -> StepReport:
        """One SVI update on the next minibatch, or on the documents ``doc_ids``."""
        started = time.perf_counter()
        if doc_ids is None:
            batch = self._next_batch(self.batch_size)
        else:
            batch = np.asarray(doc_ids, dtype=np.int64).ravel()
            if batch.size == 0 or batch.min() < 0 or batch.max() >= self.n_docs:
                raise ValueError(f"doc_ids must be a non-empty list of indices in [0, {self.n_docs - 1}]")
        t = self.t + 1
        rho = step_size(t, self.kappa, self.tau)
        stats = minibatch_update(self.model, self.counts[batch], t, self.n_docs, rho, self.seed, self.blas_threads)
        self.t = t
        self.docs_seen += int(batch.size)
        return StepReport(
            t=t,
            rho=rho,
            docs_seen=self.docs_seen,
            epoch=self.epoch,
            batch_size=int(batch.size),
            local_iterations=float(np.mean(stats.n_iter)),
            seconds=time.perf_counter() - started,
        )

    def run(self, n_docs: int | None = None, n_steps: int | None = None, callback=None) -> StepReport | None:
        """Step until ``n_docs`` more documents or ``n_steps`` more updates are done.

        ``callback(report)`` is called after every step; returning False stops.
        Returns the last report (None if no step ran).
        """
        if (n_docs is None) == (n_steps is None):
            raise ValueError("give exactly one of n_docs or n_steps")
        if n_docs is not None:
            n_docs = check_int("n_docs", n_docs, 1)
            target_docs, target_steps = self.docs_seen + n_docs, None
        else:
            target_steps, target_docs = self.t + check_int("n_steps", n_steps, 1), None
        report = None
        while (target_docs is not None and self.docs_seen < target_docs) or (
            target_steps is not None and self.t < target_steps
        ):
            report = self.step()
            if callback is not None and callback(report) is False:
                break
        return report

    # ---------------------------------------------------------- checkpoints
    def state_dict(self) -> dict:
        """Everything needed to continue this run exactly (JSON-able)."""
        return {
            "algorithm": "svi",
            "t": self.t,
            "docs_seen": self.docs_seen,
            "kappa": self.kappa,
            "tau": self.tau,
            "batch_size": self.batch_size,
            "seed": self.seed,
            "sampling": self.sampling,
            "epoch_index": self._epoch_index,
            "position": self._position,
            "n_docs": self.n_docs,
        }

    def load_state_dict(self, state: dict) -> None:
        """Continue from :meth:`state_dict` output (same corpus required)."""
        if state.get("algorithm") != "svi":
            raise ValueError(f"not an SVI trainer state: algorithm={state.get('algorithm')!r}")
        if state["n_docs"] != self.n_docs:
            raise ValueError(
                f"the checkpoint was trained on {state['n_docs']} documents, this corpus has {self.n_docs}"
            )
        self.set_schedule(kappa=state["kappa"], tau=state["tau"], batch_size=state["batch_size"])
        self.seed = check_int("seed", state["seed"], 0)
        self.sampling = state["sampling"]
        self.t = int(state["t"])
        self.docs_seen = int(state["docs_seen"])
        self._epoch_index = int(state["epoch_index"])
        self._position = int(state["position"])
        self._permutation = None


class BatchVI:
    """Classical coordinate-ascent variational inference (the paper's batch algorithm).

    Each :meth:`step` is one sweep: fit the local parameters of every document
    against the current topics (starting from where the previous sweep left
    them, as coordinate ascent does), then set the global parameters to their
    optimum given all local parameters.  The ELBO never decreases.
    """

    def __init__(self, model, corpus, blas_threads: int | None = 1):
        self.model = model
        self.counts = as_counts(corpus, model.n_words)
        self.n_docs = self.counts.shape[0]
        self.blas_threads = blas_threads
        self.t = 0
        self.docs_seen = 0
        self._local = None
        if model.lambda_ is None:
            model.initialize(self.n_docs, n_words=self.counts.shape[1])

    @property
    def epoch(self) -> float:
        return float(self.t)

    def step(self) -> StepReport:
        """One full sweep over the corpus."""
        started = time.perf_counter()
        with _blas_limit(self.blas_threads):
            stats = self.model.local_step(
                self.counts, rng=np.random.default_rng([self.model.seed, _STREAM_LOCAL, self.t + 1]),
                warm_start=self._local,
            )
            _check_finite(stats)
            self.model.batch_update(stats)
        self._local = stats
        self.t += 1
        self.docs_seen += self.n_docs
        return StepReport(
            t=self.t,
            rho=1.0,
            docs_seen=self.docs_seen,
            epoch=self.epoch,
            batch_size=self.n_docs,
            local_iterations=float(np.mean(stats.n_iter)),
            seconds=time.perf_counter() - started,
        )

    def elbo(self) -> float:
        """ELBO of the corpus at the current global and local parameters."""
        return self.model.elbo(self.counts, self._local)
