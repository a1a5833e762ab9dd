"""Where the explorer keeps things on disk: checkpoints of runs and the collections they need.

Layout under the home folder (``SVI_TOPICS_HOME``, default ``~/.svi-topics``)::

    checkpoints/<run id>.npz    engine checkpoint (model, trainer state, history)
    checkpoints/<run id>.json   the explorer's record: settings, collection, topic labels
    corpora/<collection key>/   the collection (engine ``Corpus.save``), shared by runs

``SVI_TOPICS_CHECKPOINTS`` moves the checkpoint folder elsewhere.  A server that
crashes or restarts loses nothing saved: the Export page lists these checkpoints.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import time
from dataclasses import dataclass
from pathlib import Path

from explorer.engine_api import Corpus, EngineError, atomic_file

__all__ = [
    "CheckpointInfo",
    "Collection",
    "checkpoint_dir",
    "checkpoint_path",
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


@dataclass(frozen=True, eq=False)
class Collection:
    """A corpus ready to train on, with a name for people and a key that identifies its counts."""

    corpus: Corpus
    name: str
    key: str
    origin: str = ""  # e.g. "sample:sotu" or "upload:files.zip"

    @classmethod
    def of(cls, corpus: Corpus, name: str, origin: str = "") -> Collection:
        return cls(corpus, name, fingerprint(corpus), origin)


def home() -> Path:
    """The explorer's folder: ``SVI_TOPICS_HOME`` or ``~/.svi-topics``."""
    configured = os.environ.get("SVI_TOPICS_HOME")
    return Path(configured).expanduser() if configured else Path.home() / ".svi-topics"


def checkpoint_dir() -> Path:
    """``SVI_TOPICS_CHECKPOINTS`` or ``<home>/checkpoints`` (created if missing)."""
    configured = os.environ.get("SVI_TOPICS_CHECKPOINTS")
    folder = Path(configured).expanduser() if configured else home() / "checkpoints"
    folder.mkdir(parents=True, exist_ok=True)
    return folder


def _corpora_dir() -> Path:
    folder = home() / "corpora"
    folder.mkdir(parents=True, exist_ok=True)
    return folder


def fingerprint(corpus: Corpus) -> str:
    """A short hash of a corpus's counts, vocabulary and document ids."""
    digest = hashlib.sha256()
    counts = corpus.counts
    for array in (counts.indptr, counts.indices, counts.data):
        digest.update(array.tobytes())
    digest.update("\x1f".join(corpus.vocabulary).encode())
    digest.update("\x1f".join(corpus.doc_ids).encode())
    return digest.hexdigest()[:16]


def save_collection(collection: Collection) -> Path:
    """Store a collection once under ``corpora/<key>`` (kept if already there)."""
    folder = _corpora_dir() / collection.key
    if (folder / "corpus.json").exists():
        return folder
    with contextlib.suppress(FileExistsError):  # another session stored it meanwhile
        collection.corpus.save(folder)
    (folder.parent / f"{collection.key}.json").write_text(
        json.dumps({"name": collection.name, "origin": collection.origin}), encoding="utf-8")
    return folder


def load_collection(key: str) -> Collection | None:
    """The stored collection of ``key``, or None if it is missing or damaged."""
    folder = _corpora_dir() / key
    if not (folder / "corpus.json").exists():
        return None
    try:
        corpus = Corpus.load(folder)
        meta = json.loads((folder.parent / f"{key}.json").read_text(encoding="utf-8"))
    except (OSError, ValueError, EngineError):
        return None
    return Collection(corpus, str(meta.get("name", "saved collection")), key, str(meta.get("origin", "")))


def checkpoint_path(run_id: str) -> Path:
    return checkpoint_dir() / f"{run_id}.npz"


def write_record(run_id: str, record: dict) -> None:
    """Write the explorer's JSON record of a run atomically beside its checkpoint."""
    with atomic_file(checkpoint_dir() / f"{run_id}.json", "w", encoding="utf-8") as file:
        json.dump(record, file)


def read_record(run_id: str) -> dict | None:
    try:
        return json.loads((checkpoint_dir() / f"{run_id}.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None


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


def list_checkpoints() -> list[CheckpointInfo]:
    """Checkpoints that have both files, newest first."""
    found = []
    for model_file in checkpoint_dir().glob("*.npz"):
        run_id = model_file.stem
        record = read_record(run_id)
        if record is None:
            continue
        with contextlib.suppress(OSError):
            stat = model_file.stat()
            found.append(CheckpointInfo(run_id, str(record.get("name", run_id)),
                                        str(record.get("collection_name", "")),
                                        str(record.get("collection_key", "")), stat.st_mtime, stat.st_size,
                                        record))
    return sorted(found, key=lambda c: -c.saved)


def prune_checkpoints(keep: int, protected: set[str] = frozenset()) -> None:
    """Delete the oldest checkpoints beyond the newest ``keep`` (never the ``protected`` run ids)."""
    for info in list_checkpoints()[keep:]:
        if info.run_id not in protected:
            delete_checkpoint(info.run_id)


def delete_checkpoint(run_id: str) -> None:
    for suffix in (".npz", ".json"):
        with contextlib.suppress(FileNotFoundError):
            (checkpoint_dir() / f"{run_id}{suffix}").unlink()
