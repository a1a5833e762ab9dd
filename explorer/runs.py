"""The runs of a browser session: settings, the engine's TrainingRun, labels, checkpoints.

No Streamlit here.  A :class:`RunRecord` wraps one :class:`engine.TrainingRun` (or a
model loaded from a file) with what the explorer shows about it; :class:`SessionRuns`
is the list of one session's runs; :class:`ThreadLimiter` caps the training threads of
the whole server.  Training happens only in the engine's thread; this module only
starts, steers and reads it.
"""

from __future__ import annotations

import copy
import dataclasses
import threading
import time
import uuid
import warnings
import weakref
from dataclasses import dataclass
from typing import Any

from explorer import clusters, storage
from explorer.engine_api import (
    DEFAULT_BATCH_SIZE,
    DEFAULT_DOC_TRUNCATION,
    DEFAULT_HDP_TOPICS,
    DEFAULT_KAPPA,
    DEFAULT_TAU,
    HDP,
    LDA,
    SVI,
    BatchVI,
    LoadedModel,
    Snapshot,
    TrainingRun,
    Workload,
    default_label,
    default_target_docs,
    heldout_split,
    save_model,
    start_warm_up,
)
from explorer.engine_api import settings as environment
from explorer.storage import Collection

__all__ = [
    "CapReachedError",
    "RunRecord",
    "RunSettings",
    "SessionRuns",
    "ThreadLimiter",
    "create_run",
    "default_settings",
    "keep_checkpoint",
    "load_record",
    "resume_checkpoint",
    "warm_up_workloads",
]

ACTIVE = ("running", "paused")


@dataclass(frozen=True)
class RunSettings:
    """Everything chosen on the Train page for one run."""

    model: str = "LDA"  # "LDA" or "HDP"
    n_topics: int = 10  # K
    doc_truncation: int = DEFAULT_DOC_TRUNCATION  # T (HDP), the truncation the engine's HDP is judged at
    alpha: float | None = None  # None: the engine's default (LDA: 0.2 up to 25 topics, 0.1 from 50; HDP: 1)
    eta: float = 0.01
    omega: float = 1.0  # HDP corpus-level concentration
    births: bool = True  # HDP: split its largest topics after each of the first three passes (False: births=0)
    # LDA's local step: "auto", the engine's default (CVB0 on short documents, zero-order on the rest); "cvb0" or
    # "zero_order" come from model files saved before "auto" was the default
    local_update: str = "auto"
    # the engine's schedule (engine.inference.schedule): the app, the CLI and engine.SVI share it
    kappa: float = DEFAULT_KAPPA
    tau: float = DEFAULT_TAU
    batch_size: int = DEFAULT_BATCH_SIZE
    step_size: str = "schedule"  # or "adaptive" (LDA only): engine.SVI's step_size; kappa and tau then unused
    n_test: int = 300
    seed: int = 0
    target_docs: int = 50_000
    algorithm: str = "svi"  # "svi" or "batch"
    scheduler: str = ""  # where the local steps run: "" this server, else a Dask scheduler (engine.SVI's cluster)

    def label(self) -> str:
        """Short text naming the settings, for legends and the run list."""
        model = f"LDA K={self.n_topics}" if self.model == "LDA" else f"HDP K={self.n_topics} T={self.doc_truncation}"
        if self.model == "HDP" and not self.births:
            model += " no splits"
        if self.model == "LDA" and self.local_update != "auto":  # a file's run from before "auto" was the default
            model += " CVB0" if self.local_update == "cvb0" else " zero-order"
        if self.algorithm == "batch":
            return f"batch VI · {model}"
        if self.step_size == "adaptive":
            return f"{model} · adaptive ρ S={self.batch_size:,}"
        return f"{model} · κ={self.kappa:g} τ={self.tau:g} S={self.batch_size:,}"

    def to_dict(self) -> dict:
        return dataclasses.asdict(self)

    @classmethod
    def from_dict(cls, values: dict) -> RunSettings:
        names = {f.name for f in dataclasses.fields(cls)}
        return cls(**{k: v for k, v in values.items() if k in names})


def default_settings(n_docs: int, n_topics: int = 10) -> RunSettings:
    """Good defaults for a collection of ``n_docs`` documents."""
    n_test = max(1, min(300, n_docs // 10))
    n_train = max(1, n_docs - n_test)
    return RunSettings(n_topics=n_topics, batch_size=min(DEFAULT_BATCH_SIZE, n_train), n_test=n_test,
                       target_docs=default_target_docs(n_train))


def eval_every(n_train: int, batch_size: int) -> int:
    """Documents between two held-out evaluations: about a fifth of a pass, at least one minibatch."""
    return max(batch_size, min(n_train // 5, 20 * batch_size))


class CapReachedError(RuntimeError):
    """The server already trains as many runs as it allows."""


class ThreadLimiter:
    """Caps the number of live training threads on the whole server (all sessions)."""

    def __init__(self, cap: int | None = None):
        self.cap = environment.get("SVI_TOPICS_MAX_TRAINING_THREADS") if cap is None else int(cap)
        self._lock = threading.Lock()
        self._runs: weakref.WeakSet = weakref.WeakSet()

    def active(self) -> int:
        return sum(1 for run in list(self._runs) if run.is_alive)

    def has_room(self) -> bool:
        return self.active() < self.cap

    def message(self) -> str:
        return (f"This server already trains {self.active()} runs at once, its limit "
                f"(SVI_TOPICS_MAX_TRAINING_THREADS={self.cap}). Stop a run first — a paused run "
                "still holds its place — or wait until one finishes.")

    def start(self, run: TrainingRun) -> None:
        """Start ``run`` if the cap allows; raises :class:`CapReachedError` otherwise."""
        with self._lock:
            if self.active() >= self.cap:
                raise CapReachedError(self.message())
            run.start()
            self._runs.add(run)


class RunRecord:
    """One run as the explorer knows it: name, settings, collection, labels and the engine run."""

    def __init__(self, run_id: str, name: str, settings: RunSettings, collection: Collection | None,
                 run: TrainingRun | None = None, loaded: LoadedModel | None = None,
                 labels: dict[int, str] | None = None, checkpointed: bool = True):
        self.run_id = run_id
        self.name = name
        self.settings = settings
        self.collection = collection
        self.run = run
        self.loaded = loaded
        self.labels: dict[int, str] = dict(labels or {})
        self.created = time.time()
        self.checkpointed = checkpointed
        self.file_bytes: bytes | None = None  # the model file a loaded run came from
        self.merged_from: str | None = None  # the run whose copies of the overall word use it merged
        self.merged_into: dict[int, int] = {}  # its emptied topics, each with the topic that holds its words
        self.combined_from: list[str] = []  # the runs whose shared topics it holds (explorer.combining)
        self.found_in: list[int] = []  # per topic, in how many of them it was found
        self._model: Any = None
        self._model_key: tuple[int, bool] | None = None

    # ------------------------------------------------------------ reading
    def snapshot(self) -> Snapshot | None:
        return None if self.run is None else self.run.snapshot()

    @property
    def status(self) -> str:
        snap = self.snapshot()
        if snap is None:
            return "merged" if self.merged_from else "combined" if self.combined_from else "loaded"
        return snap.status

    @property
    def active(self) -> bool:
        return self.status in ACTIVE

    @property
    def can_continue(self) -> bool:
        """A stopped or loaded run with a trainer state can go on training."""
        if self.run is not None:
            return self.status in ("stopped", "finished") and self.collection is not None
        return self.loaded is not None and self.loaded.trainer_state is not None and self.collection is not None

    def curve(self) -> tuple[tuple, tuple]:
        """(held-out evaluations, setting changes) recorded so far."""
        snap = self.snapshot()
        if snap is not None:
            return snap.history, snap.changes
        if self.loaded is not None:
            return tuple(self.loaded.history), tuple(self.loaded.changes)
        return (), ()

    def model(self) -> Any:
        """A model to browse: a copy taken between two steps, refreshed when training advanced.

        Until its compiled kernels are ready in this server, the copy computes with the
        NumPy reference, so a page never waits for a compile.
        """
        if self.run is None and self.loaded is None:
            return None
        if self.run is None:
            ready = self.loaded.model.kernel == "numpy" or _compiled_ready(self.loaded.model)
        else:  # the live model's kernel may be the reference for now: ask about its workload
            ready = _compiled_ready(self.run.model)
        key = (self.model_step, ready)
        if self._model is None or key != self._model_key:
            if self.run is None:  # a shallow copy: the pages only read the model
                model = self.loaded.model if ready else copy.copy(self.loaded.model)
            else:
                model = self.run.model_copy()
                # the explorer's models keep the default kernel; the run may step with the reference for now
                model.kernel = "auto"
            if not ready:
                model.kernel = "numpy"
            self._model, self._model_key = model, key
        return self._model

    @property
    def model_step(self) -> int:
        snap = self.snapshot()
        return snap.t if snap is not None else int((self.loaded.trainer_state or {}).get("t", 0))

    @property
    def vocabulary(self) -> tuple[str, ...] | None:
        if self.collection is not None:
            return self.collection.corpus.vocabulary
        return None if self.loaded is None else self.loaded.vocabulary

    def label(self, topic: int, top_words: tuple[str, ...] | list[str] = ()) -> str:
        """The user's label of a topic, or "Topic 3: tax, income, million" by default (topics numbered from 0)."""
        custom = self.labels.get(int(topic), "").strip()
        if custom:
            return custom
        if int(topic) in self.merged_into:  # emptied: its "top words" would be arbitrary
            return f"Topic {topic} (merged into topic {self.merged_into[int(topic)]})"
        return default_label(topic, top_words)  # topics are numbered from 0 everywhere

    # ------------------------------------------------------------ steering
    def stop(self, timeout: float = 5.0) -> None:
        if self.run is not None and self.run.is_alive:
            self.run.stop(timeout=timeout)

    def save_record(self) -> None:
        """Write the explorer's record beside the checkpoint (labels included)."""
        if not self.checkpointed:
            return
        # a merged run may have no documents here (no collection key): the Export page lists it without one
        resumable = self.run is not None or (self.loaded is not None and self.loaded.trainer_state is not None)
        storage.write_record(self.run_id, {**self.explorer_extra()["explorer"], "created": self.created,
                                           "resumable": resumable})

    def explorer_extra(self) -> dict:
        """What a model file needs for the explorer to browse it and continue training."""
        info = {
            "run_id": self.run_id, "name": self.name, "settings": self.settings.to_dict(),
            "collection_key": None if self.collection is None else self.collection.key,
            "collection_name": None if self.collection is None else self.collection.name,
            "labels": {str(k): v for k, v in self.labels.items()},
        }
        if self.merged_from:  # its emptied topics keep saying where their words went
            info["merged_from"] = self.merged_from
            info["merged_into"] = {str(k): v for k, v in self.merged_into.items()}
        if self.combined_from:  # its topics keep saying in how many runs each was found
            info["combined_from"], info["found_in"] = list(self.combined_from), list(self.found_in)
        return {"explorer": info}


def _compiled_ready(model) -> bool:
    """True once the compiled kernels of ``model`` are loaded in this server (or numba is missing: nothing to wait for).

    Asking also requests them, in case nothing did yet.
    """
    workload = Workload.of(model)
    return start_warm_up([workload]).status(workload) in ("ready", "unavailable")


def warm_up_workloads() -> tuple[Workload, ...]:
    """The compiled kernels the explorer's models use, the automatic first run's first."""
    settings = (RunSettings(model="LDA"), RunSettings(model="HDP", n_topics=DEFAULT_HDP_TOPICS))
    return tuple(Workload.of(_make_model(chosen, n_words=2)) for chosen in settings)


def lda_update(model: Any) -> str | None:
    """An LDA model's local step as the app names it ("auto", "cvb0" or "zero_order", which stands for any other).

    None for any other model.
    """
    if type(model).__name__ != "LDA":
        return None
    update = getattr(model, "local_update", None)
    return update if update in ("auto", "cvb0") else "zero_order"


def _make_model(settings: RunSettings, n_words: int):
    if settings.model == "HDP":
        return HDP(n_topics=settings.n_topics, doc_truncation=settings.doc_truncation, n_words=n_words,
                   alpha=1.0 if settings.alpha is None else settings.alpha, omega=settings.omega,
                   eta=settings.eta, seed=settings.seed, births=None if settings.births else 0)
    update = None if settings.local_update == "auto" else settings.local_update  # None: the engine's default
    return LDA(n_topics=settings.n_topics, n_words=n_words, alpha=settings.alpha, eta=settings.eta,
               seed=settings.seed, local_update=update)


def split(collection: Collection, settings: RunSettings):
    """The held-out split of a run: (train, observed, heldout), the same for the same settings."""
    return heldout_split(collection.corpus.counts, n_test=settings.n_test, seed=settings.seed)


def _heartbeat_timeout() -> float:
    return environment.get("SVI_TOPICS_HEARTBEAT_TIMEOUT")


def default_scheduler() -> str:
    """``SVI_TOPICS_DASK_SCHEDULER``: the Dask scheduler runs train on by default ("" or unset: this server).

    A scheduler's address (``tcp://host:8786``) or ``local:N`` (N worker processes started
    on this server, once).  The Train page's advanced setting starts from it; on a shared
    server (isolated workspaces) it is the only scheduler a run may use (:mod:`explorer.clusters`).
    """
    return clusters.default()


def _cluster(settings: RunSettings) -> Any:
    """The Dask client of the run's scheduler (one per address for the whole app), or None to train here.

    Refuses a scheduler this server does not allow in its workspace mode, whatever the page sent.
    """
    if settings.algorithm != "svi":
        return None
    address = clusters.check(settings.scheduler)
    return clusters.client(address) if address else None


close_clients = clusters.close_clients


def where_text(settings: RunSettings) -> str:
    """Where a run's local steps run, for the run list."""
    address = settings.scheduler.strip()
    return f"Dask {address}" if address and settings.algorithm == "svi" else "this server"


def create_run(collection: Collection, settings: RunSettings, name: str, *, max_seconds: float | None = None,
               checkpoint: bool = True, one_kernel: bool = False) -> RunRecord:
    """Build (not start) a run of ``settings`` on ``collection``.

    The run steps with the NumPy reference while the compiled kernels are still being
    compiled, and switches when they are ready; with ``one_kernel`` (runs whose speeds are
    compared) it keeps one kernel throughout: the compiled one if ready now, else the reference.
    """
    train, observed, heldout = split(collection, settings)
    model = _make_model(settings, collection.corpus.n_words)
    if collection.corpus.vectorizer is not None:  # kept in its model files: `svi-topics infer`, transform_texts
        model.vectorizer_ = collection.corpus.vectorizer
    if one_kernel and not _compiled_ready(model):
        model.kernel = "numpy"
    run_id = uuid.uuid4().hex[:12]
    with warnings.catch_warnings():
        # kappa at 0.5 is allowed for teaching; the Train page explains the convergence range
        warnings.simplefilter("ignore", UserWarning)
        if settings.algorithm == "batch":
            trainer = BatchVI(model, train)
            every = train.shape[0]
        else:
            batch_size = min(settings.batch_size, train.shape[0])
            trainer = SVI(model, train, batch_size=batch_size, kappa=settings.kappa, tau=settings.tau,
                          seed=settings.seed, step_size=settings.step_size, cluster=_cluster(settings))
            every = eval_every(train.shape[0], batch_size)
    record = RunRecord(run_id, name, settings, collection, checkpointed=checkpoint)
    record.run = TrainingRun(
        trainer, observed, heldout, vocabulary=collection.corpus.vocabulary, eval_every_docs=every,
        target_docs=settings.target_docs if settings.algorithm == "svi" else None,
        checkpoint_path=storage.checkpoint_path(run_id) if checkpoint else None, name=name,
        checkpoint_every_seconds=environment.get("SVI_TOPICS_CHECKPOINT_SECONDS"), max_seconds=max_seconds,
        heartbeat_timeout=_heartbeat_timeout(), extra=record.explorer_extra(),
        compile_in_background=not one_kernel,  # never wait for a compile: the NumPy reference trains meanwhile
    )
    if checkpoint:
        storage.prune_checkpoints(environment.get("SVI_TOPICS_MAX_CHECKPOINTS") - 1)
        storage.save_collection(collection)
        record.save_record()
    return record


def resume_checkpoint(source: Any, collection: Collection, settings: RunSettings, name: str,
                      labels: dict[int, str] | None = None) -> RunRecord:
    """A new run that continues a checkpoint (a path or a model file's bytes) exactly.

    The new run gets its own id and checkpoint file, so the original stays as it was.
    """
    train, observed, heldout = split(collection, settings)
    run_id = uuid.uuid4().hex[:12]
    record = RunRecord(run_id, name, settings, collection, labels=labels)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        record.run = TrainingRun.resume_from(
            source, train, observed, heldout, name=name, checkpoint_path=storage.checkpoint_path(run_id),
            vocabulary=collection.corpus.vocabulary,
            checkpoint_every_seconds=environment.get("SVI_TOPICS_CHECKPOINT_SECONDS"),
            heartbeat_timeout=_heartbeat_timeout(), extra=record.explorer_extra(),
            target_docs=settings.target_docs if settings.algorithm == "svi" else None, compile_in_background=True,
            cluster=_cluster(settings),
        )
    storage.save_collection(collection)
    record.save_record()
    return record


def keep_checkpoint(record: RunRecord) -> None:
    """Save a run that is not training (merged copies, a loaded file) with the workspace's checkpoints.

    So it outlives the session: the Export page lists it after a reload or a restart.  The
    model file (written atomically) keeps what the run has: a loaded file's trainer state and
    history (so it can be resumed, with its documents, which are stored too), none for merged
    copies (browse only).  Raises OSError if the disk refuses; nothing half-written is left,
    and the run stays in the session.
    """
    loaded = record.loaded
    storage.prune_checkpoints(environment.get("SVI_TOPICS_MAX_CHECKPOINTS") - 1)
    path = storage.checkpoint_path(record.run_id)
    try:
        save_model(path, loaded.model, loaded.vocabulary, trainer=loaded.trainer_state,
                   history=[*loaded.history, *loaded.changes], extra={**loaded.extra, **record.explorer_extra()},
                   labels=record.labels)
        if loaded.trainer_state is not None and record.collection is not None:
            storage.save_collection(record.collection)  # what resuming it after a restart needs
        record.checkpointed = True
        record.save_record()
    except OSError:
        record.checkpointed = False
        storage.delete_checkpoint(record.run_id)
        raise


def load_record(loaded: LoadedModel, name: str, collection: Collection | None) -> RunRecord:
    """A browse-only record of a model read from a file."""
    info = loaded.extra.get("explorer", {}) if isinstance(loaded.extra.get("explorer"), dict) else {}
    kind = type(loaded.model).__name__
    settings = RunSettings.from_dict(info.get("settings", {})) if info.get("settings") else RunSettings(
        model=kind if kind in ("LDA", "HDP") else "LDA", n_topics=loaded.model.n_topics,
        **({"doc_truncation": loaded.model.doc_truncation, "births": loaded.model.births > 0} if kind == "HDP" else
           {"local_update": lda_update(loaded.model)} if kind == "LDA" else {}))
    labels = {int(k): str(v) for k, v in (info.get("labels") or {}).items() if str(k).isdigit()}
    labels.update(loaded.labels)  # the file's own labels (format 2) are the current ones
    record = RunRecord(uuid.uuid4().hex[:12], name, settings, collection, loaded=loaded, labels=labels,
                       checkpointed=False)
    if info.get("merged_from"):  # checked by explorer.model_extra when the file came from outside
        record.merged_from = str(info["merged_from"])
        record.merged_into = {int(k): int(v) for k, v in (info.get("merged_into") or {}).items()}
    if info.get("combined_from"):
        record.combined_from = [str(name) for name in info["combined_from"]]
        record.found_in = [int(count) for count in info.get("found_in") or []]
    return record


class SessionRuns:
    """The runs of one browser session, in the order they were made."""

    def __init__(self) -> None:
        self.records: dict[str, RunRecord] = {}
        self.comparison: Any = None  # explorer.comparison.Comparison
        self._counter = 0
        self._orphan_timer: threading.Timer | None = None
        self._lock = threading.Lock()

    def __len__(self) -> int:
        return len(self.records)

    def __iter__(self):
        return iter(list(self.records.values()))

    def next_name(self, settings: RunSettings) -> str:
        self._counter += 1
        return f"#{self._counter} {settings.label()}"

    def add(self, record: RunRecord) -> RunRecord:
        self.records[record.run_id] = record
        return record

    def get(self, run_id: str | None) -> RunRecord | None:
        return self.records.get(run_id) if run_id else None

    def latest(self) -> RunRecord | None:
        return next(reversed(self.records.values()), None) if self.records else None

    def remove(self, run_id: str) -> None:
        record = self.records.pop(run_id, None)
        if record is not None:
            record.stop()

    def any_active(self) -> bool:
        comparison_active = self.comparison is not None and self.comparison.active
        return comparison_active or any(record.active for record in self)

    def heartbeat(self) -> None:
        for record in self:
            if record.run is not None and record.active:
                record.run.heartbeat()

    def stop_all(self, timeout: float = 5.0) -> None:
        if self.comparison is not None:
            self.comparison.stop()
        for record in self:
            record.stop(timeout)

    def clear(self) -> None:
        self.stop_all()
        self.records.clear()
        self.comparison = None

    # ---------------------------------------------- the browser tab went away
    def orphaned(self, grace_seconds: float) -> None:
        """The session disconnected: stop everything unless it reconnects within the grace period."""
        with self._lock:
            if self._orphan_timer is not None:
                self._orphan_timer.cancel()
            if grace_seconds <= 0:
                self._orphan_timer = None
                self.stop_all()
                return
            self._orphan_timer = threading.Timer(grace_seconds, self.stop_all)
            self._orphan_timer.daemon = True
            self._orphan_timer.start()

    def reconnected(self) -> None:
        with self._lock:
            if self._orphan_timer is not None:
                self._orphan_timer.cancel()
                self._orphan_timer = None
