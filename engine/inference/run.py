"""Background training runs: one worker thread per run, immutable snapshots for the UI.

A :class:`TrainingRun` drives a trainer (:class:`engine.SVI` or
:class:`engine.BatchVI`) in one daemon thread.  The caller (a Streamlit page,
the command line) never touches the model while it trains: it sends requests
(pause, resume, stop, schedule changes, heartbeats) and reads
:meth:`TrainingRun.snapshot`, an immutable record the worker replaces after
every step.  Held-out evaluation follows Hoffman, Blei, Wang & Paisley (2013):
the per-word predictive log likelihood of held-out words of test documents.
"""

from __future__ import annotations

import contextlib
import copy
import logging
import math
import numbers
import os
import threading
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from engine.errors import ModelFileError
from engine.inference import warmup
from engine.inference.evaluation import predictive_log_likelihood
from engine.inference.svi import SVI, BatchVI, _kappa_value
from engine.io.atomic import probe_writable
from engine.io.model_files import LoadedModel, load_model, save_model
from engine.io.records import EvalPoint, SettingChange
from engine.kernels import effective_kernel
from engine.validation import as_counts, check_int, check_non_negative

__all__ = ["EvalPoint", "SettingChange", "Snapshot", "TrainingRun", "default_target_docs"]

_logger = logging.getLogger(__name__)  # a child of the "engine" logger

STATUSES = ("ready", "running", "paused", "stopped", "finished", "failed")
_ENDED = ("stopped", "finished", "failed")
_SETTINGS = ("kappa", "tau", "batch_size")
_POLL_SECONDS = 0.05  # how often a paused worker looks at stop requests and heartbeats
_DISPLAY_SECONDS = 0.5  # top words and topic weights are recomputed at most this often while running
_LOAD_WAIT_SECONDS = 3.0  # compile_in_background: how long a run waits for kernels that load from numba's cache

# how many documents a run trains on unless told (the app and the command line alike): the
# panel's defaults were chosen after 10 passes (benchmarks/RESULTS.md, runs 13 and 18); a small
# collection gets more minibatches, a large one stops after a million documents unless that is
# less than one pass
DEFAULT_PASSES = 10
MIN_DEFAULT_TARGET_DOCS = 5_000
MAX_DEFAULT_TARGET_DOCS = 1_000_000


def default_target_docs(n_train: int) -> int:
    """Training documents a run processes unless told.

    ``DEFAULT_PASSES`` passes over the ``n_train`` documents, at least
    ``MIN_DEFAULT_TARGET_DOCS`` and at most ``MAX_DEFAULT_TARGET_DOCS``, but never less
    than one pass (a collection of more than a million documents is read once).

    >>> default_target_docs(2_000), default_target_docs(100), default_target_docs(500_000)
    (20000, 5000, 1000000)
    >>> default_target_docs(3_800_000)
    3800000
    """
    n_train = check_int("n_train", n_train, 1)
    passes = min(MAX_DEFAULT_TARGET_DOCS, max(MIN_DEFAULT_TARGET_DOCS, DEFAULT_PASSES * n_train))
    return max(n_train, passes)


@dataclass(frozen=True)
class Snapshot:
    """What a UI needs to show a run, copied out of the worker (immutable).

    Attributes
    ----------
    name : str
    status : {"ready", "running", "paused", "stopped", "finished", "failed"}
    t : int
        Global updates so far.
    docs_seen : int
        Documents analysed so far, counting repeats.
    epoch : float
        Passes over the training documents.
    seconds : float
        Training time: evaluation, checkpoints and pauses are not counted.
    rho : float
        Step size of the latest update (of the first update before any).
    kappa, tau : float or None
        Current schedule (None for batch VI).
    batch_size : int
        Current minibatch size S (the corpus size for batch VI).
    docs_per_second : float
        docs_seen / seconds.
    target_docs : int or None
        The run finishes once docs_seen reaches it.
    history : tuple of EvalPoint
    changes : tuple of SettingChange
    top_words : tuple of tuple of str
        Most probable words of each topic (column indices as str without a vocabulary).
    topic_weights : tuple of float
        The model's ``topic_weights()``.
    error : str or None
        ``"ExceptionType: message"`` when the worker failed.
    reason : str or None
        Why the run paused or ended ("no heartbeat for 30 s", "reached the target"...).
    kernel : {"compiled", "numpy"}
        The local-step implementation the steps use now (see ``compile_in_background``).
    kernel_wait : str or None
        With ``compile_in_background``, while the steps use the NumPy reference instead of
        the model's kernel: the warm-up status of its compiled kernels ("compiling",
        "failed"...; see :class:`engine.inference.warmup.KernelWarmUp`); None otherwise.
    checkpoint_error : str or None
        Why the latest checkpoint could not be written (one line, with what to do); the
        run trains on, the previous checkpoint file is kept, and the next interval tries
        again.  None once a checkpoint is written.
    """

    name: str
    status: str
    t: int
    docs_seen: int
    epoch: float
    seconds: float
    rho: float
    kappa: float | None
    tau: float | None
    batch_size: int
    docs_per_second: float
    target_docs: int | None
    history: tuple[EvalPoint, ...]
    changes: tuple[SettingChange, ...]
    top_words: tuple[tuple[str, ...], ...]
    topic_weights: tuple[float, ...]
    error: str | None = None
    reason: str | None = None
    kernel: str = "numpy"
    kernel_wait: str | None = None
    checkpoint_error: str | None = None

    @property
    def active(self) -> bool:
        """True while the worker thread is running or paused."""
        return self.status in ("running", "paused")

    @property
    def progress(self) -> float | None:
        """docs_seen / target_docs in [0, 1], or None without a target."""
        return None if not self.target_docs else min(1.0, self.docs_seen / self.target_docs)

    @property
    def heldout_loglik(self) -> float | None:
        """The latest held-out log likelihood, or None before the first evaluation."""
        return self.history[-1].heldout_loglik if self.history else None


class _TrainerState:
    """A trainer's state captured between two steps, for :func:`save_model`."""

    def __init__(self, state: dict):
        self._state = state

    def state_dict(self) -> dict:
        return self._state


def _optional_positive(name: str, value: Any) -> float | None:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, numbers.Real) or not math.isfinite(value) or value <= 0:
        raise ValueError(f"{name} must be None or a finite number > 0, got {value!r}")
    return float(value)


def _trainer_state(trainer: Any) -> dict:
    if hasattr(trainer, "state_dict"):
        return trainer.state_dict()
    return {"algorithm": "batch", "t": int(trainer.t), "docs_seen": int(trainer.docs_seen),
            "n_docs": int(trainer.n_docs)}


class TrainingRun:
    """Train a model in one background thread and publish immutable snapshots.

    Parameters
    ----------
    trainer : SVI or BatchVI
        The trainer to drive (its ``model`` is trained in place).
    observed, heldout : sparse matrices of shape (n_test, n_words), optional
        A fixed test split (see :func:`engine.heldout_split`); without it no
        held-out likelihood is computed.
    vocabulary : sequence of str, optional
        Words of the model's columns, for ``Snapshot.top_words`` and checkpoints.
    eval_every_docs : int, optional
        Evaluate after every this many training documents (default: once per
        pass over the training documents), plus before the first step and at the end.
    target_docs : int, optional
        Finish (status "finished") once this many documents have been seen.
    checkpoint_path : str or path-like, optional
        Write a checkpoint (:func:`engine.save_model` with trainer state and
        history) here every ``checkpoint_every_seconds`` and when the run ends.
    name : str
        Label of the run (the explorer overlays several runs).
    checkpoint_every_seconds : float
        Wall-clock seconds between checkpoints.
    max_seconds : float, optional
        Training-time budget: the run stops itself once it has trained this long.
    heartbeat_timeout : float, optional
        If :meth:`heartbeat` is not called for this many seconds (a closed
        browser tab sends nothing), the run stops or pauses itself.
    on_heartbeat_timeout : {"stop", "pause"}
        What a missed heartbeat does.
    n_top_words : int
        Words per topic in ``Snapshot.top_words``.
    extra : mapping, optional
        JSON-able values stored in checkpoints.
    compile_in_background : bool
        While the compiled kernels of the model are not loaded in this process,
        step with the NumPy reference (``kernel="numpy"``, the same equations)
        instead of waiting for them: they are loaded, or compiled in another
        process, by :func:`engine.inference.warmup.start_warm_up` (started here
        if nothing requested them yet), and the steps switch back to the
        model's own kernel between two steps once they are ready.  The switch
        is recorded as a :class:`SettingChange` named "kernel" (old "numpy",
        new "compiled"); kernels that load from numba's cache are waited for
        instead (a fraction of a second).  Checkpoints and :meth:`save` keep the
        model's own ``kernel``; :meth:`model_copy` gives the one in use.  Off by
        default, so that which kernel computes a step never depends on timing.
    history, changes, seconds :
        The record of an earlier run to continue (used by :meth:`resume_from`).

    Notes
    -----
    When the run finishes or is stopped, an HDP judges the birth pairs still pending
    (:meth:`engine.HDP.judge_births`), so a short run keeps no split pair that stayed
    alike; the pairs merged back are recorded as a :class:`SettingChange` named "merges"
    and the merged model is scored again (a second point at the last step).

    Examples
    --------
    >>> run = TrainingRun(engine.SVI(model, train), observed, heldout, target_docs=10_000)
    >>> run.start()
    >>> run.snapshot().status
    'running'
    >>> run.stop(timeout=5.0)
    True
    """

    def __init__(
        self,
        trainer: SVI | BatchVI,
        observed: Any = None,
        heldout: Any = None,
        vocabulary: Sequence[str] | None = None,
        eval_every_docs: int | None = None,
        target_docs: int | None = None,
        checkpoint_path: str | os.PathLike | None = None,
        name: str = "",
        *,
        checkpoint_every_seconds: float = 60.0,
        max_seconds: float | None = None,
        heartbeat_timeout: float | None = None,
        on_heartbeat_timeout: str = "stop",
        n_top_words: int = 10,
        extra: dict | None = None,
        history: Sequence[EvalPoint] = (),
        changes: Sequence[SettingChange] = (),
        seconds: float = 0.0,
        compile_in_background: bool = False,
    ):
        self.trainer = trainer
        self.model = trainer.model
        self.name = str(name)
        if (observed is None) != (heldout is None):
            raise ValueError("give both observed and heldout (a test split), or neither")
        self._observed = None if observed is None else as_counts(observed, self.model.n_words, name="observed")
        self._heldout = None if heldout is None else as_counts(heldout, self.model.n_words, name="heldout")
        if self._observed is not None and self._observed.shape[0] != self._heldout.shape[0]:
            raise ValueError(
                f"observed has {self._observed.shape[0]} documents but heldout has {self._heldout.shape[0]}; "
                "they must be the two halves of the same test documents"
            )
        if vocabulary is not None:
            vocabulary = tuple(str(word) for word in vocabulary)
            if len(vocabulary) != self.model.n_words:
                raise ValueError(
                    f"vocabulary has {len(vocabulary)} words but the model has n_words={self.model.n_words}"
                )
        self.vocabulary = vocabulary
        self.eval_every_docs = (
            int(trainer.n_docs) if eval_every_docs is None else check_int("eval_every_docs", eval_every_docs, 1)
        )
        self.target_docs = None if target_docs is None else check_int("target_docs", target_docs, 1)
        self.checkpoint_path = None if checkpoint_path is None else Path(checkpoint_path)
        if self.checkpoint_path is not None:
            _check_writable(self.checkpoint_path)
        self._checkpoint_error: str | None = None
        self.checkpoint_every_seconds = _optional_positive("checkpoint_every_seconds", checkpoint_every_seconds)
        if self.checkpoint_every_seconds is None:
            raise ValueError("checkpoint_every_seconds must be a finite number > 0, got None")
        self.max_seconds = _optional_positive("max_seconds", max_seconds)
        self.heartbeat_timeout = _optional_positive("heartbeat_timeout", heartbeat_timeout)
        if on_heartbeat_timeout not in ("stop", "pause"):
            raise ValueError(f'on_heartbeat_timeout must be "stop" or "pause", got {on_heartbeat_timeout!r}')
        self.on_heartbeat_timeout = on_heartbeat_timeout
        self.n_top_words = check_int("n_top_words", n_top_words, 1)
        self.extra = dict(extra or {})
        self.compile_in_background = bool(compile_in_background)
        # the workload whose kernels the run waits for (None: it steps with the model's kernel throughout)
        self._workload = None
        if self.compile_in_background and getattr(self.model, "kernel", "numpy") != "numpy":
            try:
                self._workload = warmup.Workload.of(self.model)
            except TypeError as exc:
                raise TypeError(f"compile_in_background: {exc}") from None
        self._warm_up: warmup.KernelWarmUp | None = None
        self._own_kernel: str | None = None  # the model's kernel while the steps use the reference instead
        self._kernel_wait: str | None = None
        self.exception: BaseException | None = None  # the worker's exception, if it failed

        # control: written by callers, read by the worker
        self._control = threading.Lock()
        self._pending: list[tuple[str, float]] = []
        self._stop_requested = threading.Event()
        self._go = threading.Event()  # set = not paused
        self._go.set()
        self._last_heartbeat = time.monotonic()
        self._thread: threading.Thread | None = None
        # the model changes only under this lock (short: one step), so copies are consistent
        self._model_lock = threading.Lock()

        # worker state: written by the worker only once started
        self._seconds = float(seconds)
        self._history = list(history)
        self._changes = list(changes)
        self._history_view = tuple(self._history)
        self._changes_view = tuple(self._changes)
        self._last_rho = float(getattr(trainer, "rho", 1.0))
        self._next_eval = self._first_eval_threshold()
        self._last_checkpoint = time.monotonic()
        self._status = "ready"
        self._error: str | None = None
        self._reason: str | None = None
        self._top_words: tuple[tuple[str, ...], ...] = ()
        self._topic_weights: tuple[float, ...] = ()
        self._display_time = -math.inf
        self._snapshot = self._publish("ready", force_display=True)

    # ------------------------------------------------------------- building
    @classmethod
    def resume_from(
        cls,
        checkpoint: str | os.PathLike | bytes | LoadedModel,
        corpus: Any,
        observed: Any = None,
        heldout: Any = None,
        cluster: Any = None,
        **options: Any,
    ) -> TrainingRun:
        """Build a run that continues a checkpoint exactly (same t, schedule, sampling and history).

        Parameters
        ----------
        checkpoint : path, bytes or LoadedModel
            A file written by a run's checkpointing or by :func:`engine.save_model` with a trainer,
            or such a file as :func:`engine.load_model` returned it (not read again; its model
            is trained on).
        corpus : Corpus or sparse matrix
            The same training documents the checkpoint was trained on.
        observed, heldout : optional
            The test split (the same one, for a continuous held-out curve).
        cluster : dask.distributed.Client or str, optional
            Continue on a Dask cluster (:class:`engine.SVI`'s ``cluster``); SVI runs only.
        **options
            Other :class:`TrainingRun` arguments; by default the name, vocabulary,
            evaluation interval and target are those stored in the checkpoint,
            and checkpoints go on being written to ``checkpoint`` if it is a path.
        """
        loaded = checkpoint if isinstance(checkpoint, LoadedModel) else load_model(checkpoint)
        state = loaded.trainer_state
        if state is None:
            raise ModelFileError(
                "the file holds a model but no trainer state, so training cannot continue exactly; "
                "use a checkpoint written by a training run"
            )
        try:
            if state.get("algorithm") == "svi":
                trainer = SVI(loaded.model, corpus, batch_size=min(state["batch_size"], _n_rows(corpus)),
                              kappa=state["kappa"], tau=state["tau"], seed=state["seed"],
                              sampling=state["sampling"], cluster=cluster)
                trainer.load_state_dict(state)
            elif state.get("algorithm") == "batch":
                trainer = BatchVI(loaded.model, corpus)
                if state["n_docs"] != trainer.n_docs:
                    raise ValueError(
                        f"the checkpoint was trained on {state['n_docs']} documents, this corpus has {trainer.n_docs}"
                    )
                trainer.t, trainer.docs_seen = int(state["t"]), int(state["docs_seen"])
            else:
                raise ModelFileError(f"unknown trainer algorithm {state.get('algorithm')!r} in the checkpoint")
        except (KeyError, TypeError) as exc:
            raise ModelFileError(f"the checkpoint's trainer state is incomplete ({exc!r})") from None
        if options.get("vocabulary") is not None:  # the same words in the same columns
            loaded.check_vocabulary(options["vocabulary"])
        extra = dict(loaded.extra)
        info = extra.pop("run", {}) if isinstance(extra.get("run"), dict) else {}
        options.setdefault("vocabulary", loaded.vocabulary)
        options.setdefault("name", info.get("name", ""))
        options.setdefault("eval_every_docs", info.get("eval_every_docs"))
        options.setdefault("target_docs", info.get("target_docs"))
        options.setdefault("extra", extra)
        if isinstance(checkpoint, (str, os.PathLike)):
            options.setdefault("checkpoint_path", checkpoint)
        seconds = info.get("seconds", 0.0)
        return cls(trainer, observed, heldout, history=loaded.history, changes=loaded.changes,
                   seconds=float(seconds) if isinstance(seconds, (int, float)) else 0.0, **options)

    # ------------------------------------------------------- caller's side
    def start(self) -> None:
        """Start training in the background (a run starts once)."""
        with self._control:
            if self._thread is not None or self._status != "ready":
                raise RuntimeError(
                    f"this run is {self._status} and cannot be started again; build a new run "
                    "or continue from a checkpoint with TrainingRun.resume_from"
                )
            self._last_heartbeat = time.monotonic()
            if self._workload is not None:
                self._warm_up = warmup.start_warm_up([self._workload])
            self._snapshot = self._publish("running")
            self._thread = threading.Thread(target=self._work, name=f"TrainingRun {self.name}".strip(),
                                            daemon=True)
            self._thread.start()

    def pause(self) -> None:
        """Ask the worker to pause after the current step (the snapshot says "paused" then)."""
        self._go.clear()

    def resume(self) -> None:
        """Continue a paused run (also counts as a heartbeat)."""
        if self._snapshot.status in _ENDED:
            raise RuntimeError(f"the run has {self._snapshot.status}; it cannot be resumed")
        self.heartbeat()
        self._go.set()

    def stop(self, timeout: float | None = 5.0) -> bool:
        """Stop after the current step and wait up to ``timeout`` seconds for the thread to end.

        The model is left as after a complete step.  Returns True if the
        worker has ended (or never started).
        """
        self._stop_requested.set()
        self._go.set()
        with self._control:
            thread = self._thread
            if thread is None and self._status == "ready":
                self._reason = "stopped before it started"
                self._snapshot = self._publish("stopped", force_display=False)
        if thread is None:
            return True
        thread.join(timeout)
        return not thread.is_alive()

    def wait(self, timeout: float | None = None) -> bool:
        """Wait for the worker to end (target reached, budget used, stopped, failed)."""
        if self._thread is None:
            return self._status in _ENDED
        self._thread.join(timeout)
        return not self._thread.is_alive()

    @property
    def is_alive(self) -> bool:
        """True while the worker thread exists and has not ended."""
        return self._thread is not None and self._thread.is_alive()

    def heartbeat(self) -> None:
        """Tell the run its viewer is still there (see ``heartbeat_timeout``)."""
        self._last_heartbeat = time.monotonic()

    def set_schedule(self, kappa: float | None = None, tau: float | None = None,
                     batch_size: int | None = None) -> None:
        """Queue a change of kappa, tau or minibatch size S.

        The worker applies it between two steps with ``trainer.set_schedule``
        and records a :class:`SettingChange` per changed value.  Values are
        checked here; kappa outside (0.5, 1] is allowed (convergence is then not
        guaranteed; the UI explains that).
        """
        if not hasattr(self.trainer, "set_schedule"):
            raise TypeError(f"a {type(self.trainer).__name__} run has no step-size schedule to change")
        requested = []
        if kappa is not None:
            requested.append(("kappa", _kappa_value(kappa)))
        if tau is not None:
            requested.append(("tau", check_non_negative("tau", tau)))
        if batch_size is not None:
            requested.append(("batch_size", check_int("batch_size", batch_size, 1, self.trainer.n_docs)))
        with self._control:
            if self._snapshot.status in _ENDED:
                raise RuntimeError(f"the run has {self._snapshot.status}; settings can no longer change")
            self._pending.extend(requested)

    def snapshot(self) -> Snapshot:
        """The latest published :class:`Snapshot` (never waits for training)."""
        return self._snapshot

    def model_copy(self) -> Any:
        """A deep copy of the model taken between two steps, safe to use while training goes on.

        Its ``kernel`` is the one the steps use now (see ``compile_in_background``).
        """
        with self._model_lock:
            return copy.deepcopy(self.model)

    def save(self, path: str | os.PathLike) -> Path:
        """Write the model, trainer state and history (taken between two steps) to ``path``."""
        with self._model_lock:
            model = copy.deepcopy(self.model)
            if self._own_kernel is not None:
                model.kernel = self._own_kernel
            state = _trainer_state(self.trainer)
            history = [*self._history, *self._changes]
            seconds = self._seconds
        return save_model(path, model, self.vocabulary, trainer=_TrainerState(state), history=history,
                          extra=self._checkpoint_extra(seconds))

    # -------------------------------------------------------- worker's side
    def _work(self) -> None:
        try:
            self._last_checkpoint = time.monotonic()
            self._apply_pending()
            self._choose_kernel(wait=True)
            if self._observed is not None and not (self._history and self._history[-1].step == self.trainer.t):
                self._evaluate()
            self._snapshot = self._publish("paused" if not self._go.is_set() else "running", force_display=True)
            status, reason = self._loop()
            merged = self._judge_births()
            if self._observed is not None and (merged or not (self._history
                                                              and self._history[-1].step == self.trainer.t)):
                self._evaluate()
            if self.checkpoint_path is not None:
                self._checkpoint()
            self._reason = reason
            self._restore_kernel()
            self._release_cluster()
            self._snapshot = self._publish(status, force_display=True)
            _logger.info("run %r %s: %s after %d updates, %d documents", self.name, status, reason,
                         int(self.trainer.t), int(self.trainer.docs_seen))
        except BaseException as exc:  # shown in the snapshot, never lost
            _logger.error("run %r failed: %s: %s", self.name, type(exc).__name__, exc)
            self.exception = exc
            self._error = f"{type(exc).__name__}: {exc}"
            self._reason = "the training thread raised an exception"
            self._restore_kernel()
            self._release_cluster()
            self._snapshot = self._publish("failed")

    def _release_cluster(self) -> None:
        """An ended run's corpus leaves the Dask workers' memory (the cluster is shared; a later step resends it)."""
        cluster = getattr(self.trainer, "cluster", None)
        if cluster is not None:
            try:
                cluster.release()
            except Exception as exc:  # a cluster already gone holds nothing: never turn an ended run into a failure
                _logger.warning("run %r: could not release its corpus on the Dask cluster: %s", self.name, exc)

    def _loop(self) -> tuple[str, str]:
        """Step until something ends the run; returns (status, reason)."""
        while True:
            self._apply_pending()
            if self._stop_requested.is_set():
                return "stopped", "stopped on request"
            if self.target_docs is not None and self.trainer.docs_seen >= self.target_docs:
                return "finished", f"reached the target of {self.target_docs} documents"
            if self.max_seconds is not None and self._seconds >= self.max_seconds:
                return "stopped", f"used the training-time budget of {self.max_seconds:g} s"
            timeout = self.heartbeat_timeout
            if timeout is not None and time.monotonic() - self._last_heartbeat > timeout:
                message = f"no heartbeat for {timeout:g} s (the page was probably closed)"
                if self.on_heartbeat_timeout == "stop":
                    return "stopped", message
                if self._go.is_set():
                    self._go.clear()
                    self._reason = f"paused: {message}"
            if not self._go.is_set():
                if self._status != "paused":
                    self._reason = self._reason or "paused on request"
                    self._snapshot = self._publish("paused", force_display=True)
                self._go.wait(_POLL_SECONDS)
                continue
            if self._status != "running":
                self._reason = None
            self._choose_kernel()
            self._step()

    def _step(self) -> None:
        rounds = self._birth_rounds()
        with self._model_lock:
            report = self.trainer.step()
        self._seconds += report.seconds
        self._note_births(rounds)
        self._last_rho = float(report.rho)
        if self._observed is not None and self.trainer.docs_seen >= self._next_eval:
            self._evaluate()
        if (self.checkpoint_path is not None
                and time.monotonic() - self._last_checkpoint >= self.checkpoint_every_seconds):
            self._checkpoint()
        self._snapshot = self._publish("running")

    def _birth_rounds(self) -> int | None:
        """The HDP's topic-birth rounds so far (None for a model without births)."""
        rounds = self.model.training_clock().get("birth_rounds")
        return rounds if isinstance(rounds, int) else None

    def _note_births(self, before: int | None) -> None:
        """Mark the step in which the HDP split topics as a change: "births", round number -> topics split (> 0)."""
        after = self._birth_rounds()
        if before is None or after is None or after <= before:
            return
        born = sum(1 for pair in self.model.training_clock()["pairs"] if pair[0] == after)
        if not born:  # a round that found nothing to split leaves no mark
            return
        self._changes.append(SettingChange(int(self.trainer.t), int(self.trainer.docs_seen), self._seconds,
                                           "births", after, born))
        self._changes_view = tuple(self._changes)

    def _judge_births(self) -> bool:
        """At the end of the run the HDP judges its pending birth pairs (:meth:`engine.HDP.judge_births`).

        Pairs merged back are marked as a "merges" change: pairs judged -> pairs merged.
        Returns whether any were (the model changed).
        """
        judge = getattr(self.model, "judge_births", None)
        if judge is None:
            return False
        with self._model_lock:
            pending = len(self.model.training_clock().get("pairs", []))
            merged = judge()
        if merged:
            self._changes.append(SettingChange(int(self.trainer.t), int(self.trainer.docs_seen), self._seconds,
                                               "merges", pending, len(merged)))
            self._changes_view = tuple(self._changes)
        return bool(merged)

    def _choose_kernel(self, wait: bool = False) -> None:
        """compile_in_background: the NumPy reference until the model's compiled kernels are ready, then its own."""
        warm_up, workload = self._warm_up, self._workload
        if warm_up is None:
            return
        if wait:  # kernels in numba's cache load in a fraction of a second: worth waiting for
            warm_up.wait([workload], timeout=_LOAD_WAIT_SECONDS,
                         until=(warmup.COMPILING, warmup.READY, warmup.FAILED, warmup.UNAVAILABLE))
        status = warm_up.status(workload)
        if status in (warmup.READY, warmup.UNAVAILABLE):
            if self._own_kernel is not None:
                with self._model_lock:
                    self.model.kernel, self._own_kernel = self._own_kernel, None
                self._changes.append(SettingChange(int(self.trainer.t), int(self.trainer.docs_seen), self._seconds,
                                                   "kernel", "numpy", effective_kernel(self.model.kernel)))
                self._changes_view = tuple(self._changes)
            self._warm_up, self._kernel_wait = None, None
            return
        if self._own_kernel is None:
            with self._model_lock:
                self._own_kernel, self.model.kernel = self.model.kernel, "numpy"
        self._kernel_wait = status

    def _restore_kernel(self) -> None:
        """At the end of the run: the model gets its own kernel back (no step uses it, so nothing is recorded)."""
        with self._model_lock:
            if self._own_kernel is not None:
                self.model.kernel, self._own_kernel = self._own_kernel, None
        self._warm_up, self._kernel_wait = None, None

    @contextlib.contextmanager
    def _own_kernel_set(self):
        """The model, under the lock, with its own kernel setting, for writing it to a file (the steps may use the
        reference meanwhile)."""
        with self._model_lock:
            if self._own_kernel is None:
                yield
                return
            self.model.kernel = self._own_kernel
            try:
                yield
            finally:
                self.model.kernel = "numpy"

    def _apply_pending(self) -> None:
        with self._control:
            pending, self._pending = self._pending, []
        for name, value in pending:
            old = getattr(self.trainer, name)
            if old == value:
                continue
            if name == "kappa" and not 0.5 < value <= 1.0:
                # checked in set_schedule; SVI.set_schedule would warn from this thread, where
                # nobody reads warnings (the explorer explains the Robbins-Monro range instead)
                self.trainer.kappa = value
            else:
                self.trainer.set_schedule(**{name: value})
            new = getattr(self.trainer, name)
            self._changes.append(SettingChange(int(self.trainer.t), int(self.trainer.docs_seen),
                                               self._seconds, name, old, new))
            self._changes_view = tuple(self._changes)
        if pending and self._status in ("running", "paused"):
            self._snapshot = self._publish(self._status)

    def _first_eval_threshold(self) -> int:
        return (int(self.trainer.docs_seen) // self.eval_every_docs + 1) * self.eval_every_docs

    def _evaluate(self) -> None:
        # under the lock, as every use of the model here: reading it may fill its lazily resolved settings (after a
        # kernel switch), and a model_copy() deep-copying it meanwhile would see its attributes change
        with self._model_lock:
            loglik = predictive_log_likelihood(self.model, self._observed, self._heldout)
        point = EvalPoint(int(self.trainer.t), int(self.trainer.docs_seen), self._seconds, float(loglik),
                          self._last_rho)
        self._history.append(point)
        self._history_view = tuple(self._history)
        _logger.info("run %r: %d updates, %d documents, held-out log likelihood %.4f", self.name,
                     point.step, point.docs_seen, point.heldout_loglik)
        self._next_eval = self._first_eval_threshold()

    def _checkpoint_extra(self, seconds: float) -> dict:
        run_info = {"name": self.name, "seconds": seconds, "eval_every_docs": self.eval_every_docs,
                    "target_docs": self.target_docs}
        return {**self.extra, "run": run_info}

    def _checkpoint(self) -> None:
        """Write a checkpoint; a failed write (disk full, folder gone) is reported, not fatal.

        save_model writes atomically, so the previous checkpoint stays whole; the model
        and trainer are untouched, and the next interval tries again.
        """
        try:
            with self._own_kernel_set():
                save_model(self.checkpoint_path, self.model, self.vocabulary, trainer=self.trainer,
                           history=[*self._history, *self._changes], extra=self._checkpoint_extra(self._seconds))
        except OSError as exc:
            _logger.warning("run %r: checkpoint not written to %s: %s", self.name, self.checkpoint_path, exc)
            self._checkpoint_error = (
                f"checkpoint not written to {str(self.checkpoint_path)!r} ({exc.strerror or exc}); training goes "
                "on and the previous checkpoint is kept: free disk space or make the folder writable"
            )
        else:
            self._checkpoint_error = None
        self._last_checkpoint = time.monotonic()

    # ------------------------------------------------------------- publishing
    def _refresh_display(self) -> None:
        with self._model_lock:  # as in _evaluate: reading the model may fill what it resolves lazily
            lambda_ = np.asarray(self.model.lambda_)
            n = min(self.n_top_words, lambda_.shape[1])
            # the order of lambda_k equals that of E[beta_k] = lambda_k / sum_v lambda_kv
            top = np.argpartition(-lambda_, n - 1, axis=1)[:, :n]
            values = np.take_along_axis(lambda_, top, axis=1)
            weights = tuple(float(w) for w in self.model.topic_weights())
        top = np.take_along_axis(top, np.lexsort((top, -values), axis=1), axis=1)
        if self.vocabulary is None:
            self._top_words = tuple(tuple(str(i) for i in row) for row in top.tolist())
        else:
            self._top_words = tuple(tuple(self.vocabulary[i] for i in row) for row in top.tolist())
        self._topic_weights = weights
        self._display_time = time.monotonic()

    def _publish(self, status: str, force_display: bool = False) -> Snapshot:
        """Build the snapshot of the current state (the caller assigns it in one step)."""
        self._status = status
        if status == "failed":
            pass  # keep the last top words: the model may be what failed
        elif force_display or time.monotonic() - self._display_time >= _DISPLAY_SECONDS:
            self._refresh_display()
        trainer = self.trainer
        seconds = self._seconds
        return Snapshot(
            name=self.name,
            status=status,
            t=int(trainer.t),
            docs_seen=int(trainer.docs_seen),
            epoch=float(trainer.epoch),
            seconds=seconds,
            rho=self._last_rho,
            kappa=getattr(trainer, "kappa", None),
            tau=getattr(trainer, "tau", None),
            batch_size=int(getattr(trainer, "batch_size", trainer.n_docs)),
            docs_per_second=trainer.docs_seen / seconds if seconds > 0 else 0.0,
            target_docs=self.target_docs,
            history=self._history_view,
            changes=self._changes_view,
            top_words=self._top_words,
            topic_weights=self._topic_weights,
            error=self._error,
            reason=self._reason,
            kernel=effective_kernel(getattr(self.model, "kernel", "numpy")),
            kernel_wait=self._kernel_wait,
            checkpoint_error=self._checkpoint_error,
        )


def _check_writable(path: Path) -> None:
    """Refuse a checkpoint path that cannot be written, before any training is done."""
    if path.is_dir():
        raise ValueError(f"checkpoint_path {str(path)!r} is a folder; give a file name such as "
                         f"{str(path / 'checkpoint.npz')!r}")
    if not path.parent.is_dir():
        raise FileNotFoundError(f"the folder of checkpoint_path {str(path)!r} does not exist; create it first")
    try:
        probe_writable(path)
    except OSError as exc:
        raise OSError(exc.errno, f"checkpoint_path {str(path)!r} cannot be written ({exc.strerror or exc}); "
                      "choose a writable folder") from None


def _n_rows(corpus: Any) -> int:
    return int(getattr(corpus, "counts", corpus).shape[0])
