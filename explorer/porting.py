"""Export/import helpers: file contents for downloads, model files in, checkpoints resumed."""

from __future__ import annotations

import dataclasses
import re
import tempfile
from collections.abc import Callable
from pathlib import Path

from explorer import session, state, storage, tables
from explorer.engine_api import load_model
from explorer.runs import RunRecord, RunSettings, load_record, resume_checkpoint
from explorer.storage import CheckpointInfo, Collection

__all__ = ["checkpoint_action", "checkpoints", "doc_topic_csv", "import_model", "model_bytes", "slug"]


def slug(name: str) -> str:
    """A file-name friendly version of a run name."""
    return re.sub(r"[^A-Za-z0-9]+", "-", name).strip("-").lower()[:60] or "model"


def doc_topic_csv(model, collection: Collection, labels: list[str]) -> Callable[[], str]:
    """The document-topic CSV, computed when the download button is clicked (in another thread)."""
    corpus = collection.corpus

    def build() -> str:
        frame = tables.doc_topic_frame(model.transform(corpus.counts), corpus.doc_ids, corpus.titles, labels)
        return frame.to_csv(index=False)
    return build


def model_bytes(record: RunRecord) -> Callable[[], bytes]:
    """The model file of a run (a consistent copy taken between two steps), made on click."""
    def build() -> bytes:
        if record.run is None:
            return record.file_bytes
        with tempfile.TemporaryDirectory(prefix="svi-export-") as folder:
            path = Path(folder) / "model.npz"
            record.run.save(path)
            return path.read_bytes()
    return build


def _collection_of(extra: dict, vocabulary) -> Collection | None:
    info = extra.get("explorer") if isinstance(extra.get("explorer"), dict) else {}
    if info.get("collection_key"):
        stored = storage.load_collection(str(info["collection_key"]))
        if stored is not None:
            return stored
    current = state.collection()
    if current is not None and vocabulary is not None and tuple(vocabulary) == current.corpus.vocabulary:
        return current
    return None


def import_model(file_name: str, data: bytes) -> RunRecord:
    """A browse-only run of an uploaded model file (raises ModelFileError for a bad file)."""
    loaded = load_model(data)
    collection = _collection_of(loaded.extra, loaded.vocabulary)
    record = load_record(loaded, f"{file_name} (loaded)", collection)
    record.file_bytes = data
    return record


def import_message(record: RunRecord) -> str:
    text = f"Loaded “{record.name}”: the Topics page shows it"
    if record.collection is None:
        return text + ". Its documents are not here: load the collection it was trained on to see them."
    if record.can_continue:
        return text + "; the Train page can continue training it."
    return text + "."


def checkpoint_folder() -> str:
    return str(storage.checkpoint_dir())


def checkpoints() -> list[CheckpointInfo]:
    return storage.list_checkpoints()


def checkpoint_action(action: str, info: CheckpointInfo) -> None:
    """Resume, open or delete a checkpoint (raises with a readable message on failure)."""
    if action == "delete":
        storage.delete_checkpoint(info.run_id)
        return
    path = storage.checkpoint_path(info.run_id)
    collection = storage.load_collection(info.collection_key)
    settings = RunSettings.from_dict(info.record.get("settings", {}))
    labels = {int(k): str(v) for k, v in (info.record.get("labels") or {}).items() if str(k).isdigit()}
    if action == "open":
        record = load_record(load_model(path), f"{info.name} (checkpoint)", collection)
        record.labels.update(labels)
        record.file_bytes = path.read_bytes()
        session.runs().add(record)
        state.select_run(record.run_id)
        return
    if collection is None:
        raise FileNotFoundError(f"the documents of “{info.name}” are no longer stored in {storage.home()}; "
                                "open the checkpoint to browse its topics instead")
    state_dict = load_model(path).trainer_state or {}
    seen = int(state_dict.get("docs_seen", 0))
    if seen >= settings.target_docs:  # it had finished: go on for as many documents again
        settings = dataclasses.replace(settings, target_docs=seen + settings.target_docs)
    record = resume_checkpoint(path, collection, settings, f"{info.name} (resumed)", labels=labels)
    session.start_run(record)
