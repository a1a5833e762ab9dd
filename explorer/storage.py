"""Where the explorer keeps things on disk: checkpoints of runs and the collections they need.

Everything lives in the current :class:`~explorer.workspace.Workspace` (see
:mod:`explorer.workspace`): the browser session's own, or, outside the app (scripts,
tests) and in the desktop mode (``SVI_TOPICS_WORKSPACE=shared``), the home folder
itself.  Layout of a workspace folder::

    checkpoints/<run id>.npz    engine checkpoint (model, trainer state, history)
    checkpoints/<run id>.json   the explorer's record: settings, collection, topic labels
    corpora/<collection key>/   the collection (engine ``Corpus.save``), shared by its runs
    corpora/<collection key>.json  its name, origin and a table's other columns (year...)

The home folder is ``SVI_TOPICS_HOME`` (default ``~/.svi-topics``); isolated workspaces
are ``<home>/workspaces/<hash of the token>/``.  ``SVI_TOPICS_CHECKPOINTS`` moves the
shared workspace's checkpoint folder elsewhere.  Run ids and collection keys must match
strict patterns and every path is checked to stay inside its workspace before anything
is read, so a name taken from a model file cannot lead elsewhere.  A server that
crashes or restarts loses nothing saved: the Export page lists the workspace's checkpoints.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import time
from dataclasses import dataclass
from pathlib import Path

from explorer.engine_api import Corpus, EngineError, Vectorizer, atomic_file, settings
from explorer.workspace import Workspace, check_collection_key, check_run_id, confined

__all__ = [
    "CheckpointInfo",
    "Collection",
    "NoWorkspaceError",
    "checkpoint_dir",
    "checkpoint_path",
    "current_workspace",
    "delete_checkpoint",
    "fingerprint",
    "home",
    "list_checkpoints",
    "load_collection",
    "prune_checkpoints",
    "read_record",
    "save_collection",
    "write_record",
]


class NoWorkspaceError(RuntimeError):
    """A browser session asked for its files before it had a workspace."""


@dataclass(frozen=True, eq=False)
class Collection:
    """A corpus ready to train on, with a name for people and a key that identifies its counts."""

    corpus: Corpus
    name: str
    key: str
    origin: str = ""  # e.g. "sample:sotu" or "upload:files.zip"
    # a table's other columns (year, president...), one string per corpus row: ((name, values), ...)
    columns: tuple[tuple[str, tuple[str, ...]], ...] = ()

    @classmethod
    def of(cls, corpus: Corpus, name: str, origin: str = "",
           columns: dict[str, tuple[str, ...]] | None = None) -> Collection:
        aligned = _aligned(columns or {}, corpus.n_docs)
        return cls(corpus, name, fingerprint(corpus, aligned), origin, aligned)

    def column(self, name: str) -> tuple[str, ...]:
        """The values of the table column ``name``, one per document (KeyError if not kept)."""
        return dict(self.columns)[name]


def _aligned(columns: object, n_docs: int) -> tuple[tuple[str, tuple[str, ...]], ...]:
    """The columns that have one string per document (others, e.g. from a damaged file, are left out)."""
    if not isinstance(columns, dict):
        return ()
    return tuple((str(name), tuple(str(v) for v in values)) for name, values in columns.items()
                 if isinstance(values, (list, tuple)) and len(values) == n_docs)


def home() -> Path:
    """The explorer's folder: ``SVI_TOPICS_HOME`` or ``~/.svi-topics``."""
    configured = settings.get("SVI_TOPICS_HOME")
    return configured if configured is not None else Path.home() / ".svi-topics"


def current_workspace() -> Workspace:
    """The workspace of the browser session running this code; outside the app, the shared one.

    Inside the app only a session's script thread may ask, and the session must have
    its workspace already (:func:`explorer.session.start` gives it one first): there is
    no fallback, so one session never writes into or reads from another's.  Background
    threads do not ask: a run's checkpoint path is fixed when the run is made, in the
    script thread.  Outside the app (scripts, tests) it is the shared workspace.
    """
    from explorer import state  # at call time: storage is also used without Streamlit

    kind = state.thread_kind()
    if kind == "none":
        return Workspace.shared_at(home())
    chosen = state.workspace() if kind == "script" else None
    if chosen is None:
        raise NoWorkspaceError("the explorer's files are reached only from a browser session with a workspace; "
                               "reload the page")
    return chosen


def checkpoint_dir(workspace: Workspace | None = None) -> Path:
    """The workspace's checkpoint folder (created if missing)."""
    chosen = workspace or current_workspace()
    return chosen.make(chosen.checkpoints)


def _corpora_dir(workspace: Workspace | None = None) -> Path:
    chosen = workspace or current_workspace()
    return chosen.make(chosen.corpora)


def fingerprint(corpus: Corpus, columns: tuple[tuple[str, tuple[str, ...]], ...] = ()) -> str:
    """A short hash of everything a collection shows: its counts, vocabulary, document ids, titles and texts, its
    table's other ``columns``, and its preprocessing unless the default.

    The key names the collection in every cache shared across sessions (its texts, the
    documents' topics) and in the workspace's stored collections, so two collections that
    count the same words but read differently (other titles, other punctuation or numbers,
    another title column) must not share it.  Another stop-word language makes another
    collection even when no word changes (new documents are counted with it).  Stored
    collections keep the key they were saved under.
    """
    digest = hashlib.sha256()
    counts = corpus.counts
    for array in (counts.indptr, counts.indices, counts.data):
        digest.update(array.tobytes())
    for strings in (corpus.vocabulary, corpus.doc_ids, corpus.titles, corpus.texts or ()):
        digest.update(len(strings).to_bytes(8, "little"))
        for value in strings:  # each with its length: no two lists of strings hash alike
            data = value.encode("utf-8", "surrogatepass")
            digest.update(len(data).to_bytes(8, "little") + data)
    digest.update(json.dumps([[name, list(values)] for name, values in columns]).encode())
    if corpus.vectorizer not in (None, Vectorizer()):
        digest.update(json.dumps(corpus.vectorizer.to_dict(), sort_keys=True).encode())
    return digest.hexdigest()[:16]


def save_collection(collection: Collection, workspace: Workspace | None = None) -> Path:
    """Store a collection once under ``corpora/<key>`` of the workspace (kept if already there)."""
    corpora = _corpora_dir(workspace)
    folder = corpora / check_collection_key(collection.key)
    confined(folder, corpora)
    if (folder / "corpus.json").exists():
        return folder
    with contextlib.suppress(FileExistsError):  # another session of this workspace stored it meanwhile
        collection.corpus.save(folder)
    with atomic_file(corpora / f"{collection.key}.json", "w", encoding="utf-8") as file:
        json.dump({"name": collection.name, "origin": collection.origin,
                   "columns": {name: list(values) for name, values in collection.columns}}, file)
    return folder


def load_collection(key: str, workspace: Workspace | None = None) -> Collection | None:
    """The workspace's stored collection of ``key``, or None if it is missing or damaged.

    Raises :class:`~explorer.workspace.UnsafePathError` if ``key`` is not a collection key
    or its folder leads outside the workspace (a symbolic link): nothing is read then.
    """
    if key == "":
        return None
    corpora = _corpora_dir(workspace)
    folder = confined(corpora / check_collection_key(key), corpora)
    if not (folder / "corpus.json").exists():
        return None
    try:
        corpus = Corpus.load(folder)
        meta = json.loads(confined(corpora / f"{key}.json", corpora).read_text(encoding="utf-8"))
    except (OSError, ValueError, EngineError):
        return None
    if not isinstance(meta, dict):
        meta = {}
    return Collection(corpus, str(meta.get("name", "saved collection")), key, str(meta.get("origin", "")),
                      _aligned(meta.get("columns"), corpus.n_docs))


def checkpoint_path(run_id: str, workspace: Workspace | None = None) -> Path:
    """Where the checkpoint of ``run_id`` is (or will be) in the workspace."""
    return checkpoint_dir(workspace) / f"{check_run_id(run_id)}.npz"


def write_record(run_id: str, record: dict, workspace: Workspace | None = None) -> None:
    """Write the explorer's JSON record of a run atomically beside its checkpoint."""
    with atomic_file(checkpoint_dir(workspace) / f"{check_run_id(run_id)}.json", "w", encoding="utf-8") as file:
        json.dump(record, file)


def read_record(run_id: str, workspace: Workspace | None = None) -> dict | None:
    folder = checkpoint_dir(workspace)
    try:
        record = json.loads(confined(folder / f"{check_run_id(run_id)}.json", folder).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return record if isinstance(record, dict) else None


@dataclass(frozen=True)
class CheckpointInfo:
    """A checkpoint on disk, as the Export page lists it."""

    run_id: str
    name: str
    collection_name: str
    collection_key: str
    saved: float  # modification time (seconds since the epoch)
    size: int
    record: dict

    @property
    def age(self) -> float:
        return max(0.0, time.time() - self.saved)

    @property
    def started(self) -> str:
        """When the run was started, in local time ("Nov 21, 23:41")."""
        created = self.record.get("created")
        return time.strftime("%b %d, %H:%M", time.localtime(created)) if isinstance(created, (int, float)) else "–"


def list_checkpoints(workspace: Workspace | None = None) -> list[CheckpointInfo]:
    """The workspace's checkpoints that have both files, newest first (only this workspace's)."""
    found = []
    folder = checkpoint_dir(workspace)
    for model_file in folder.glob("*.npz"):
        run_id = model_file.stem
        try:
            check_run_id(run_id)
            confined(model_file, folder)
        except ValueError:  # not a name this app writes, or a link out of the folder
            continue
        record = read_record(run_id, workspace)
        if record is None:
            continue
        key = ""  # a key that is not a collection key is dropped: resuming then says the documents are missing
        with contextlib.suppress(ValueError):
            key = check_collection_key(record.get("collection_key"))
        with contextlib.suppress(OSError):
            stat = model_file.stat()
            found.append(CheckpointInfo(run_id, str(record.get("name", run_id)),
                                        str(record.get("collection_name") or ""), key, stat.st_mtime, stat.st_size,
                                        record))
    return sorted(found, key=lambda c: -c.saved)


def prune_checkpoints(keep: int, protected: set[str] = frozenset(), workspace: Workspace | None = None) -> None:
    """Delete the workspace's oldest checkpoints beyond the newest ``keep`` (never the ``protected`` run ids)."""
    for info in list_checkpoints(workspace)[keep:]:
        if info.run_id not in protected:
            delete_checkpoint(info.run_id, workspace)


def delete_checkpoint(run_id: str, workspace: Workspace | None = None) -> None:
    folder = checkpoint_dir(workspace)
    for suffix in (".npz", ".json"):
        with contextlib.suppress(FileNotFoundError):
            (folder / f"{check_run_id(run_id)}{suffix}").unlink()
