"""Load the compiled kernels ahead of the first real step, compiling them out of the way if need be.

The first call of any numba function in a process costs a fixed 0.3 to 0.7 s
on this kind of machine (LLVM's set-up plus loading each kernel's cached
machine code), whatever the size of the data.  A program that knows it will
train (a benchmark before its clock starts) calls :func:`warm_up_kernels` once,
so the user's first minibatch is not the one that pays it.

After an install, or an edit of a kernel's source, numba's cache is empty and
the kernels must be compiled first, which takes far longer than any step (the
HDP's longer than LDA's), and a step would wait for it.  A program that must
stay responsive meanwhile (the explorer) calls :func:`start_warm_up` instead.
Its background thread loads each requested :class:`Workload` from numba's cache
in this process and hands those whose code is not in the cache to a separate
Python process (``engine.inference._compile_worker``), which compiles them into
the cache; this process then loads them from there.  So the compiling holds
neither this process's GIL nor the lock around the parallel kernels, and runs
that already use compiled kernels go on at full speed.  An
:class:`engine.TrainingRun` made with ``compile_in_background=True`` steps with
the NumPy reference until its model's workload is ready, then switches.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Iterable
from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp

from engine.kernels import compiled_available
from engine.kernels.cache import (
    CompileNeededError,
    compiling_here,
    guard_available,
    loading_only,
    read_reports,
    start_compile_worker,
    workload_name,
)

# start_warm_up, Workload and KernelWarmUp are used from here (by engine.TrainingRun and the explorer)
__all__ = ["warm_up_kernels"]

_TINY_COUNTS = sp.csr_matrix(np.array([[2, 1, 0, 3, 0, 1], [0, 1, 4, 0, 2, 0], [1, 0, 0, 0, 0, 0]], dtype=np.float64))
_MODELS = ("LDA", "HDP")
_LOCAL_UPDATES = ("zero_order", "mean_field", "cvb0", "auto")  # "cvb0" and "auto" (both of LDA's steps): LDA only
_DTYPES = ("float64", "float32")
_ACCELERATIONS = ("none", "squarem")  # LDA's local_acceleration; its SQUAREM loop is a kernel of its own
# what a Workload's status can be; a TrainingRun waits out the first two (loading from the cache is quick)
QUEUED, LOADING, COMPILING, READY, FAILED, UNAVAILABLE = (
    "queued", "loading", "compiling", "ready", "failed", "unavailable")
_SETTLED = (READY, FAILED, UNAVAILABLE)


@dataclass(frozen=True)
class Workload:
    """The compiled kernels one kind of SVI step calls: the model, its local update, dtype and (LDA) acceleration.

    Two models with the same values call the same compiled code, so one warm-up step of
    a tiny model of the workload loads (or compiles) everything the real one needs
    (tests/engine/test_workload_coverage.py checks it for each setting that picks other code).
    """

    model: str = "LDA"
    local_update: str = "zero_order"
    dtype: str = "float64"
    local_acceleration: str = "none"

    def __post_init__(self) -> None:
        for name, value, allowed in (("model", self.model, _MODELS), ("local_update", self.local_update,
                                     _LOCAL_UPDATES), ("dtype", self.dtype, _DTYPES),
                                     ("local_acceleration", self.local_acceleration, _ACCELERATIONS)):
            if value not in allowed:
                raise ValueError(f"{name} must be one of {', '.join(map(repr, allowed))}, got {value!r}")
        if self.model == "HDP" and self.local_update in ("cvb0", "auto"):
            raise ValueError(f"local_update={self.local_update!r} exists for LDA only, got the HDP's")
        if self.local_acceleration != "none" and (self.model, self.local_update) not in (("LDA", "zero_order"),
                                                                                          ("LDA", "auto")):
            raise ValueError(f"local_acceleration={self.local_acceleration!r} exists for LDA's zero_order and auto "
                             f"updates only, got {self.model}'s {self.local_update!r}")

    @classmethod
    def of(cls, model) -> Workload:
        """The workload of an :class:`engine.LDA` or :class:`engine.HDP` model."""
        from engine.models.hdp import HDP
        from engine.models.lda import LDA

        if not isinstance(model, (LDA, HDP)):
            raise TypeError(f"compiled kernels exist for LDA and HDP models, got {type(model).__name__}")
        acceleration = "none" if isinstance(model, HDP) else str(model.local_acceleration)
        return cls("HDP" if isinstance(model, HDP) else "LDA", str(model.local_update), np.dtype(model.dtype).name,
                   acceleration)

    def __str__(self) -> str:
        return workload_name(self.model, self.local_update, self.dtype, self.local_acceleration)

    @classmethod
    def parse(cls, text: str) -> Workload:
        """The workload ``str(workload)`` names: ``"LDA:zero_order:float64"``, ``"LDA:zero_order:float32:squarem"``."""
        parts = str(text).split(":")
        if len(parts) not in (3, 4):
            raise ValueError(f"a workload is written model:local_update:dtype[:local_acceleration], got {text!r}")
        return cls(*parts)

    def tiny_model(self):
        """A three-topic model of this workload, for a warm-up step on a three-document corpus."""
        from engine.models.hdp import HDP
        from engine.models.lda import LDA

        n_words = _TINY_COUNTS.shape[1]
        if self.model == "HDP":
            return HDP(n_topics=4, doc_truncation=2, n_words=n_words, dtype=self.dtype, local_update=self.local_update)
        # "auto": the one-word document takes the CVB0 step, the others the zero-order one (both in a fold-in)
        return LDA(n_topics=3, n_words=n_words, dtype=self.dtype, local_update=self.local_update,
                   local_acceleration=self.local_acceleration, cvb0_words=2)


def _default_workloads(dtypes: Iterable[str] | None) -> list[Workload]:
    if dtypes is None:  # the models as built with nothing set: LDA (both presets' updates) and the HDP
        from engine.models.hdp import HDP
        from engine.models.lda import LDA

        return [Workload.of(LDA()), Workload.of(LDA(preset="paper")), Workload.of(HDP())]
    return [Workload(model, update, dtype) for dtype in dtypes
            for model, update in (("LDA", "zero_order"), ("LDA", "mean_field"), ("HDP", "zero_order"))]


def warm_up_kernels(dtypes: Iterable[str] | None = None) -> float:
    """Run SVI steps of a tiny LDA and a tiny HDP with the default kernel; returns the seconds taken.

    ``dtypes`` unset: the workloads of the models as built with nothing set
    (``LDA()``'s and ``LDA(preset="paper")``'s float64 updates, ``HDP()``'s
    float32 one); given, each of LDA's two updates and the HDP's default update
    in each of those precisions.  Every compiled kernel a training step and a
    held-out score call (E[log beta], both local steps, the statistics, the lazy
    blend, the HDP's fold-in by LDA's local step and its births' mixtures) runs once on
    a three-document corpus, which loads its machine code from numba's cache
    (on the very first run after an install, once a separate process has compiled
    it there: see :mod:`engine.kernels.cache`).  Without numba this
    does nothing that lasts: the models fall back to the NumPy path.  Safe to
    call from any thread and more than once; nothing global changes except
    numba's loaded code.
    """
    started = time.perf_counter()
    for workload in _default_workloads(dtypes):
        _step(workload)
    return time.perf_counter() - started


def _step(workload: Workload) -> None:
    from engine.inference.svi import SVI

    model = workload.tiny_model()
    # the HDP's third step comes after an epoch of the three documents: its prepare_step runs a birth round
    SVI(model, _TINY_COUNTS, batch_size=2, seed=0).run(n_steps=3 if workload.model == "HDP" else 1)
    model.transform(_TINY_COUNTS)  # held-out scores and proportions: the HDP's fold-in runs LDA's local step


def _compile_here(workload: Workload) -> bool:
    with compiling_here():
        _step(workload)
    return True


def load_cached(workload: Workload) -> bool:
    """Load a workload's kernels from numba's cache in this thread; False (quickly) if any would need compiling.

    Kernels found before the first missing one stay loaded.  Without numba's
    event API this compiles what is missing, and returns True.
    """
    if not guard_available():
        _compile_here(workload)
        return True
    try:
        with loading_only():
            _step(workload)
    except CompileNeededError:
        return False
    return True


# ------------------------------------------------------------------ the background warm-up
class KernelWarmUp:
    """The background warm-up of this process's compiled kernels; one per process, from :func:`start_warm_up`.

    Each requested :class:`Workload` goes from "queued" through "loading" (from
    numba's cache, here) and, if its code is not in the cache, "compiling" (in a
    separate process, then loaded here) to "ready"; "failed" if that raised,
    "unavailable" without numba.  Thread-safe.

    Parameters
    ----------
    in_subprocess : bool
        Compile in a separate Python process (the default); False compiles in
        this process's background thread, holding the lock around the parallel
        kernels (and often the GIL) meanwhile.
    """

    def __init__(self, in_subprocess: bool = True):
        self.in_subprocess = bool(in_subprocess)
        self._changed = threading.Condition()
        self._status: dict[Workload, str] = {}
        self._errors: dict[Workload, str] = {}
        self._seconds: dict[Workload, float] = {}
        self._requested: dict[Workload, float] = {}
        self._queue: list[Workload] = []
        self._thread: threading.Thread | None = None
        self.compiler_processes = 0  # how many compile processes were started

    # ------------------------------------------------------------------ asking
    def request(self, workloads: Iterable[Workload]) -> None:
        """Queue the workloads not requested before (in this order) and make sure the thread works on them."""
        with self._changed:
            for workload in workloads:
                if not isinstance(workload, Workload):
                    raise TypeError(f"workloads must be Workload values, got {type(workload).__name__}")
                if workload not in self._status:
                    self._status[workload] = QUEUED
                    self._requested[workload] = time.monotonic()
                    self._queue.append(workload)
            if self._queue and self._thread is None:
                self._thread = threading.Thread(target=self._work, name="kernel-warm-up", daemon=True)
                self._thread.start()
            self._changed.notify_all()

    def status(self, workload: Workload) -> str | None:
        """The workload's status: "queued", "loading", "compiling", "ready", "failed", "unavailable" or None.

        None if it was never requested.
        """
        with self._changed:
            return self._status.get(workload)

    def statuses(self) -> dict[Workload, str]:
        """The status of every requested workload, in request order."""
        with self._changed:
            return dict(self._status)

    def error(self, workload: Workload) -> str | None:
        """``"ExceptionType: message"`` of a failed workload."""
        with self._changed:
            return self._errors.get(workload)

    def seconds(self, workload: Workload) -> float | None:
        """Seconds from the request to "ready" (None until then)."""
        with self._changed:
            return self._seconds.get(workload)

    @property
    def compiling(self) -> bool:
        """True while some workload is being compiled."""
        with self._changed:
            return COMPILING in self._status.values()

    def wait(self, workloads: Iterable[Workload] | None = None, timeout: float | None = None,
             until: tuple[str, ...] = _SETTLED) -> bool:
        """Wait until every workload (default: all requested) has one of the ``until`` statuses; False on timeout."""
        chosen = None if workloads is None else tuple(workloads)
        deadline = None if timeout is None else time.monotonic() + timeout

        def reached() -> bool:
            return all(self._status.get(w) in until for w in (self._status if chosen is None else chosen))

        with self._changed:
            while not reached():
                left = None if deadline is None else deadline - time.monotonic()
                if left is not None and left <= 0:
                    return False
                self._changed.wait(left)
            return True

    # --------------------------------------------------------- the worker thread
    def _set(self, workload: Workload, status: str, error: str | None = None) -> None:
        with self._changed:
            self._status[workload] = status
            if error is not None:
                self._errors[workload] = error
            self._changed.notify_all()

    def _work(self) -> None:
        while True:
            with self._changed:
                batch, self._queue = self._queue, []
                if not batch:
                    self._thread = None
                    self._changed.notify_all()
                    return
            if not compiled_available():
                for workload in batch:
                    self._set(workload, UNAVAILABLE)
                continue
            missing = []
            for workload in batch:
                self._set(workload, LOADING)
                if self._attempt(workload, load_cached):
                    self._ready(workload)
                elif self.status(workload) == LOADING:
                    missing.append(workload)
                    self._set(workload, COMPILING)
            if missing and self.in_subprocess:
                self._compile_elsewhere(missing)
            for workload in missing:  # whatever the other process did not deliver, compiled here
                if self.status(workload) == COMPILING and self._attempt(workload, _compile_here):
                    self._ready(workload)

    def _attempt(self, workload: Workload, load) -> bool:
        """``load(workload)``; a raised exception marks the workload "failed" (and gives False)."""
        try:
            return bool(load(workload))
        except Exception as exc:  # published with the status, never lost
            self._set(workload, FAILED, f"{type(exc).__name__}: {exc}")
            return False

    def _ready(self, workload: Workload) -> None:
        with self._changed:
            self._seconds[workload] = time.monotonic() - self._requested[workload]
        self._set(workload, READY)

    def _compile_elsewhere(self, missing: list[Workload]) -> None:
        """Let a separate Python process compile ``missing`` into numba's cache; load each here once it is there."""

        def load(name: str) -> None:
            # in the cache now, so loading it here is quick; if the cache could not be
            # written after all, it is compiled here (by the caller) like a failed one
            workload = Workload.parse(name)
            if workload in missing and self._attempt(workload, load_cached):
                self._ready(workload)

        names = tuple(map(str, missing))
        worker = start_compile_worker(names)
        if worker is None:
            return  # compiled in this process instead
        self.compiler_processes += 1
        read_reports(worker, names, on_compiled=load)


_process_warm_up: KernelWarmUp | None = None
_process_lock = threading.Lock()


def start_warm_up(workloads: Iterable[Workload] = (Workload(),), *, in_subprocess: bool = True) -> KernelWarmUp:
    """Load (compiling first if need be) the compiled kernels of ``workloads`` in the background.

    Returns this process's :class:`KernelWarmUp` (made by the first call;
    ``in_subprocess`` is that call's); later calls add the workloads not
    requested yet and return the same object.  Returns at once: the first
    workloads are taken first, so list the one needed soonest first.
    """
    global _process_warm_up
    with _process_lock:
        if _process_warm_up is None:
            _process_warm_up = KernelWarmUp(in_subprocess=in_subprocess)
        warm_up = _process_warm_up
    warm_up.request(workloads)
    return warm_up
