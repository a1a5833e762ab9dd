"""The stochastic and batch variational inference loops, shared by LDA and the HDP.

A model plugs in through four methods: ``initialize(n_docs, n_words=..., documents=...)``,
``local_step(X, rng, warm_start) -> stats``, ``global_step(stats, scale, rho)``
and ``batch_update(stats)``; SVI also calls ``prepare_step(draw_documents)`` before each
step when the model has it (the HDP's topic births read a sample of training documents), and
every SVI update (``SVI.step``, ``partial_fit``) runs its local and global steps inside
``with model.updating():`` when the model has it (the HDP's warm-up).
The loop, the minibatch sampling and the step-size schedule live here and only here.
"""

from __future__ import annotations

import base64
import functools
import numbers
import time
import warnings
from collections.abc import Callable
from contextlib import nullcontext
from dataclasses import dataclass

import numpy as np
from threadpoolctl import ThreadpoolController

from engine.errors import DivergedError
from engine.inference.distributed import DaskLocalStep
from engine.inference.schedule import (
    DEFAULT_ADAPTIVE_INIT_BATCHES,
    DEFAULT_BATCH_SIZE,
    DEFAULT_KAPPA,
    DEFAULT_TAU,
    MAX_ADAPTIVE_INIT_BATCHES,
    STEP_SIZES,
    AdaptiveStepSize,
    step_size,
)
from engine.validation import as_counts, check_choice, check_int, check_non_negative

__all__ = ["SVI", "BatchVI", "StepReport"]

_SAMPLINGS = ("epoch", "replacement")
# stream labels keep the random streams of a run independent of each other
_STREAM_PERMUTATION, _STREAM_REPLACEMENT, _STREAM_LOCAL, _STREAM_ADAPTIVE, _STREAM_SAMPLE = 1, 2, 3, 4, 6


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


def _kappa_value(kappa) -> float:
    """``kappa`` as float if it is a number in [0, 1] (outside (0.5, 1] the schedule is allowed, for teaching)."""
    if isinstance(kappa, bool) or not isinstance(kappa, numbers.Real) or not 0.0 <= kappa <= 1.0:
        raise ValueError(f"kappa must be in [0, 1], got {kappa!r}")
    return float(kappa)


def _check_kappa(kappa) -> float:
    """``_kappa_value``, with a warning outside (0.5, 1], where convergence is not guaranteed."""
    kappa = _kappa_value(kappa)
    if not 0.5 < kappa <= 1.0:
        warnings.warn(
            f"kappa={kappa} is outside (0.5, 1]: the step sizes no longer satisfy the Robbins-Monro "
            "conditions and convergence is not guaranteed (fine for teaching)",
            UserWarning,
            stacklevel=3,
        )
    return float(kappa)


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


def scheduled_rho(model, t: int, kappa: float, tau: float) -> float:
    """Step size of update ``t`` on the schedule: (t + tau) ** -kappa, as ``model.step_size_for`` takes it.

    The one place the schedule meets the model, for :meth:`SVI.step`, :attr:`SVI.rho` and the
    models' ``partial_fit``: the model raises update t from its random start to at least 1/(t + 1)
    (``step_floor``; the HDP's first also to ``first_step_min``).
    """
    return model.step_size_for(step_size(t, kappa, tau))


def minibatch_update(model, counts, t: int, n_docs: int, rho: float | Callable, seed: int,
                     blas_threads: int | None = 1, local_step=None):
    """The t-th SVI update of ``model`` on the minibatch ``counts`` (CSR rows), in place; returns the statistics.

    The local step fits the minibatch's documents (random starts from the stream of
    ``(seed, t)``), then the global step blends in the intermediate parameters with
    step size ``rho``, the minibatch scaled by n_docs / S as if it were the corpus
    repeated.  :meth:`SVI.step` and the models' ``partial_fit`` both call this.
    ``local_step(counts, rng=...)`` replaces ``model.local_step`` (a cluster's).
    ``rho`` may also be a function ``rho(stats, scale) -> float`` called between the
    two steps (the adaptive step size needs the minibatch's statistics).
    """
    rng = np.random.default_rng([seed, _STREAM_LOCAL, t])
    updating = getattr(model, "updating", None)
    with _blas_limit(blas_threads), (nullcontext() if updating is None else updating()):
        stats = (model.local_step if local_step is None else local_step)(counts, rng=rng)
        _check_finite(stats)  # before the update, so a failed step leaves the model as it was
        scale = n_docs / counts.shape[0]
        if callable(rho):
            rho = rho(stats, scale)
        model.global_step(stats, scale=scale, rho=rho)
    return stats


def sample_documents(counts, n: int, seed: int, t: int):
    """The rows of ``n`` of the documents ``counts`` (all if fewer), drawn without replacement, in corpus order.

    What :meth:`SVI.step` hands a model's ``prepare_step`` before update ``t``: drawn from
    their own random stream of ``(seed, t)``, so a resumed run draws the same.
    """
    n_docs = counts.shape[0]
    rng = np.random.default_rng([seed, _STREAM_SAMPLE, t])
    return counts[np.sort(rng.choice(n_docs, size=min(n, n_docs), replace=False))]


def natural_gradient(model, stats, scale: float) -> np.ndarray:
    """lambda_hat - lambda of the topics, dense float64 of shape (n_topics, n_words).

    lambda_hat = eta + scale * sum_d sum_n phi_dn w_dn is the intermediate topics of the
    minibatch whose statistics are ``stats``; the difference is the noisy natural
    gradient of the ELBO with respect to lambda (Hoffman et al. 2013).  It reads the
    topics with every pending lazy decay applied (``model.lambda_``), so its cost is
    O(n_topics x n_words) whatever the minibatch.
    """
    gradient = model.eta - np.asarray(model.lambda_, dtype=np.float64)
    gradient[:, stats.columns] += scale * stats.topic_word
    return gradient


class SVI:
    """Stochastic variational inference (Hoffman, Blei, Wang & Paisley 2013).

    Each step samples a minibatch of S documents, fits their local parameters
    against the current global parameters, forms intermediate global
    parameters as if the minibatch were the corpus repeated D/S times, and
    blends them in with step size rho_t = (t + tau) ** -kappa, or with the
    adaptive step size of Ranganath, Wang, Blei & Xing (ICML 2013) when
    ``step_size="adaptive"``.  The model raises the steps of the schedule
    from its random start to at least 1/(t + 1) at update t
    (``model.step_size_for``, ``step_floor``; never binding when tau <= 1);
    each step's report gives the rho used.

    Parameters
    ----------
    model : LDA or HDP
        The model to train; its topics are initialised here if it has none (a model
        built without ``n_words`` takes the corpus's).
    corpus : Corpus or sparse matrix of shape (n_docs, n_words)
        Training documents.
    batch_size : int, optional
        Minibatch size S, in [1, n_docs]; unset, ``engine.DEFAULT_BATCH_SIZE`` (256) or the
        whole corpus if it holds fewer documents (as ``fit``, the CLI and the app do).  An LDA
        takes smaller minibatches in its first pass over a small collection
        (``engine.LDA(first_pass_steps=16)``; see :attr:`next_batch_size`).
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
    cluster : dask.distributed.Client or str, optional
        Run each minibatch's local step on the workers of a Dask cluster: a client,
        a scheduler address ("tcp://host:8786") or "local:N" (a LocalCluster of N
        single-threaded worker processes).  The global step, the schedule and
        everything else stay here; the result equals the in-process one,
        summation order aside.  The corpus is sent to the workers once, here (a
        DiskCorpus as its paths: it must be on storage every worker reads).  See
        :mod:`engine.inference.distributed`.  Needs the ``distributed`` extra.
    step_size : {"schedule", "adaptive"}
        How rho_t is chosen.  "schedule": (t + tau) ** -kappa.  "adaptive": the
        rule of Ranganath et al. (:class:`engine.inference.schedule.AdaptiveStepSize`),
        rho_t = g_bar . g_bar / h_bar from moving averages of the noisy natural
        gradient g_t = lambda_hat - lambda of the topics and of its squared
        norm; kappa and tau are then kept but unused.  LDA only: the HDP's
        global step also moves the corpus sticks and reorders the topics,
        which topic averages would not follow.  The averages are dense
        (n_topics x n_words), so an adaptive step costs O(n_topics x n_words)
        more than a scheduled one, and checkpoints carry them.
    adaptive_init_batches : int
        Minibatches of S documents, drawn from their own random stream at the
        topics of the first adaptive step, whose gradients start g_bar and
        h_bar; tau_1 is their number (the paper's start).  They are not counted
        in ``docs_seen``.  With 1, tau stays 1 and rho stays 1.  At most
        ``MAX_ADAPTIVE_INIT_BATCHES`` (100), also in a loaded trainer state.
    """

    def __init__(
        self,
        model,
        corpus,
        batch_size: int | None = None,
        kappa: float = DEFAULT_KAPPA,
        tau: float = DEFAULT_TAU,
        seed: int = 0,
        sampling: str = "epoch",
        blas_threads: int | None = 1,
        cluster=None,
        step_size: str = "schedule",
        adaptive_init_batches: int = DEFAULT_ADAPTIVE_INIT_BATCHES,
    ):
        self.model = model
        # an on-disk corpus stays on disk: step() reads each minibatch's rows
        self.counts = as_counts(corpus, model.n_words, out_of_core=True)
        self.n_docs = self.counts.shape[0]
        if batch_size is None:
            batch_size = min(DEFAULT_BATCH_SIZE, self.n_docs)
        self.batch_size = check_int("batch_size", batch_size, 1, self.n_docs)
        self.kappa = _check_kappa(kappa)
        self.tau = check_non_negative("tau", tau)
        self.seed = check_int("seed", seed, 0)
        self.sampling = check_choice("sampling", sampling, _SAMPLINGS)
        self.blas_threads = blas_threads
        # where the local steps run: None in this process, else the cluster's (its corpus is sent here, once)
        self.cluster = None if cluster is None else DaskLocalStep(cluster, self.counts)
        self.step_size = _check_step_size(step_size, model)
        self.adaptive_init_batches = check_int("adaptive_init_batches", adaptive_init_batches, 1,
                                               MAX_ADAPTIVE_INIT_BATCHES)
        self._adaptive: AdaptiveStepSize | None = None  # the adaptive rule's averages, once started
        self._last_rho: float | None = None  # rho of the latest update
        self.t = 0
        self.docs_seen = 0
        self._epoch_index = 0  # which permutation is being consumed
        self._position = 0  # next unused index of that permutation
        self._permutation: np.ndarray | None = None
        if model.lambda_ is None:
            model.initialize(self.n_docs, n_words=self.counts.shape[1], documents=self.counts)

    @property
    def epoch(self) -> float:
        """Passes over the training documents so far (docs_seen / n_docs)."""
        return self.docs_seen / self.n_docs

    @property
    def rho(self) -> float:
        """Step size the next update will use.

        With the adaptive step size the next rho depends on the next minibatch: this is
        the latest update's (1.0 before the first).
        """
        if self.step_size == "adaptive":
            return 1.0 if self._last_rho is None else self._last_rho
        return scheduled_rho(self.model, self.t + 1, self.kappa, self.tau)

    @property
    def next_batch_size(self) -> int:
        """How many documents the next minibatch holds: ``batch_size``, or fewer in an LDA's first pass.

        The model may ask for smaller minibatches (:meth:`engine.LDA.minibatch_size`:
        at least ``first_pass_steps`` updates in the first pass from the random start).
        """
        choose = getattr(self.model, "minibatch_size", None)
        return self.batch_size if choose is None else min(self.batch_size, choose(self.n_docs, self.batch_size))

    @property
    def adaptive_state(self) -> AdaptiveStepSize | None:
        """The adaptive step size's averages and window tau_t (None until its first step, or on the schedule)."""
        return self._adaptive

    def set_schedule(self, kappa: float | None = None, tau: float | None = None, batch_size: int | None = None,
                     step_size: str | None = None) -> None:
        """Change kappa, tau, S or the step-size rule; the next step uses them (t keeps counting).

        Switching to ``step_size="adaptive"`` starts the adaptive averages afresh at the
        next step, from the topics as they are then; switching back to "schedule"
        drops them and continues rho_t = (t + tau) ** -kappa at the current t.
        """
        new_kappa = self.kappa if kappa is None else _check_kappa(kappa)
        new_tau = self.tau if tau is None else check_non_negative("tau", tau)
        new_size = self.batch_size if batch_size is None else check_int("batch_size", batch_size, 1, self.n_docs)
        new_rule = self.step_size if step_size is None else _check_step_size(step_size, self.model)
        if new_rule != self.step_size:
            self._adaptive = None
        self.kappa, self.tau, self.batch_size, self.step_size = new_kappa, new_tau, new_size, new_rule

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
        prepare = getattr(self.model, "prepare_step", None)
        if prepare is not None:
            with _blas_limit(self.blas_threads):
                prepare(self._draw_documents)
        if doc_ids is None:
            batch = self._next_batch(self.next_batch_size)
        else:
            batch = np.asarray(doc_ids, dtype=np.int64).ravel()
            if batch.size == 0 or batch.min() < 0 or batch.max() >= self.n_docs:
                raise ValueError(f"doc_ids must be a non-empty list of indices in [0, {self.n_docs - 1}]")
        t = self.t + 1
        local_step = None if self.cluster is None else functools.partial(self.cluster.local_step, self.model, batch)
        if self.step_size == "adaptive":
            rule = _AdaptiveRule(self, t, int(batch.size))
            stats = minibatch_update(self.model, self.counts[batch], t, self.n_docs, rule, self.seed,
                                     self.blas_threads, local_step)
            rho, self._adaptive = rule.rho, rule.state
        else:
            rho = scheduled_rho(self.model, t, self.kappa, self.tau)
            stats = minibatch_update(self.model, self.counts[batch], t, self.n_docs, rho, self.seed,
                                     self.blas_threads, local_step)
        self._last_rho = rho
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

    def _draw_documents(self, n: int):
        """:func:`sample_documents` of this run's training documents before the next update."""
        return sample_documents(self.counts, n, self.seed, self.t + 1)

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
        """Everything needed to continue this run exactly (JSON-able).

        With the adaptive step size, ``"adaptive"`` holds its averages once started:
        ``g_bar`` as base64 of little-endian float64 (exact and compact; it is
        n_topics x n_words), ``h_bar`` and ``window``; :func:`engine.save_model` stores
        ``g_bar`` as an array entry of the file instead, and :meth:`load_state_dict` takes either.
        """
        state = {
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
        state["step_size"] = self.step_size
        state["adaptive_init_batches"] = self.adaptive_init_batches
        state["last_rho"] = self._last_rho
        state["adaptive"] = None if self._adaptive is None else _adaptive_to_json(self._adaptive)
        return state

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
        # states written before the adaptive step size existed are scheduled runs
        self.set_schedule(step_size=state.get("step_size", "schedule"))
        # a state read from a file names this number: bounded, as each is a local step of a minibatch
        self.adaptive_init_batches = check_int("adaptive_init_batches",
                                               state.get("adaptive_init_batches", DEFAULT_ADAPTIVE_INIT_BATCHES), 1,
                                               MAX_ADAPTIVE_INIT_BATCHES)
        last_rho = state.get("last_rho")
        self._last_rho = None if last_rho is None else float(last_rho)
        adaptive = state.get("adaptive")
        self._adaptive = None if adaptive is None else _adaptive_from_json(adaptive, self.model.lambda_.shape)


def _check_step_size(rule, model) -> str:
    rule = check_choice("step_size", rule, STEP_SIZES)
    # the HDP's global step also moves the corpus sticks and reorders the topics, which
    # averages of the topics' gradient would not follow
    if rule == "adaptive" and hasattr(model, "sticks_"):
        raise ValueError(f"adaptive step size is available for LDA only, not for {type(model).__name__}; "
                         "use step_size='schedule' (kappa, tau)")
    return rule


class _AdaptiveRule:
    """The ``rho(stats, scale)`` of one adaptive SVI step: starts the averages if needed, then folds the step in."""

    def __init__(self, trainer: SVI, t: int, batch_size: int):
        self.trainer, self.t, self.batch_size = trainer, t, batch_size
        self.rho: float | None = None
        self.state: AdaptiveStepSize | None = None

    def __call__(self, stats, scale: float) -> float:
        trainer = self.trainer
        state = trainer._adaptive
        if state is None:
            # a generator: the start sums the gradients as they are drawn, holding one at a time
            state = AdaptiveStepSize.start(self._draw(i) for i in range(trainer.adaptive_init_batches))
        self.rho, self.state = state.update(natural_gradient(trainer.model, stats, scale))
        return self.rho

    def _draw(self, index: int) -> np.ndarray:
        """The gradient of a minibatch drawn for the start (own stream, topics unchanged)."""
        trainer = self.trainer
        rng = np.random.default_rng([trainer.seed, _STREAM_ADAPTIVE, self.t, index])
        batch = np.sort(rng.choice(trainer.n_docs, size=self.batch_size, replace=False))
        stats = trainer.model.local_step(trainer.counts[batch], rng=rng)
        _check_finite(stats)
        return natural_gradient(trainer.model, stats, trainer.n_docs / self.batch_size)


def _adaptive_to_json(state: AdaptiveStepSize) -> dict:
    g_bar = np.ascontiguousarray(state.g_bar, dtype="<f8")
    return {"g_bar": base64.b64encode(g_bar.tobytes()).decode("ascii"), "h_bar": state.h_bar,
            "window": state.window}


def _adaptive_from_json(saved: dict, shape: tuple[int, int]) -> AdaptiveStepSize:
    try:
        g_bar = saved["g_bar"]  # base64 from state_dict, or an array as load_model reads it from its own entry
        g_bar = (np.frombuffer(base64.b64decode(g_bar, validate=True), dtype="<f8") if isinstance(g_bar, str)
                 else np.asarray(g_bar, dtype=np.float64).ravel())
        h_bar, window = float(saved["h_bar"]), float(saved["window"])
    except (KeyError, TypeError, ValueError) as exc:
        raise ValueError(f"the adaptive step size state is damaged ({exc})") from None
    if (g_bar.size != shape[0] * shape[1] or not np.all(np.isfinite(g_bar)) or not np.isfinite(h_bar) or h_bar < 0
            or not window >= 1.0):
        raise ValueError(f"the adaptive step size state does not fit topics of shape {shape} "
                         f"(g_bar has {g_bar.size} values, h_bar={h_bar!r}, window={window!r})")
    return AdaptiveStepSize(g_bar=g_bar.reshape(shape).astype(np.float64), h_bar=h_bar, window=window)


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
            model.initialize(self.n_docs, n_words=self.counts.shape[1], documents=self.counts)

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
