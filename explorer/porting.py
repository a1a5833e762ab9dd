"""Export/import helpers: file contents for downloads, model files in, checkpoints resumed.

Model files are untrusted: the explorer's part of their metadata is checked by
:mod:`explorer.model_extra` before use, a collection key in it only ever names a folder
of the current workspace, and a collection is attached to a model (to browse its
documents or continue training) only if its words are the model's, word for word.
"""

from __future__ import annotations

import dataclasses
import re
import tempfile
from collections.abc import Callable
from pathlib import Path

from explorer import model_extra, safe_text, session, state, storage
from explorer.engine_api import (
    LoadedModel,
    current_limits,
    export_tables,
    load_model,
    save_model,
    zip_files,
)
from explorer.runs import RunRecord, keep_checkpoint, load_record, resume_checkpoint
from explorer.storage import CheckpointInfo, Collection

__all__ = ["checkpoint_action", "checkpoints", "doc_topic_csv", "full_export", "full_export_refusal", "import_model",
           "keep_import", "model_bytes", "slug"]


def slug(name: str) -> str:
    """A file-name friendly version of a run name."""
    return re.sub(r"[^A-Za-z0-9]+", "-", name).strip("-").lower()[:60] or "model"


def _tables(model, vocabulary, labels: dict[int, str], collection: Collection | None, coherence=None):
    """:func:`engine.export_tables` of a model, with the collection's id and other columns (year, president...).

    ``coherence``: each topic's NPMI as the Topics page shows it (against the run's training
    documents), or None (none without a collection).
    """
    if collection is None:
        return export_tables(model, vocabulary, labels, coherence=coherence)
    corpus = collection.corpus
    columns = {"title": corpus.titles, **dict(collection.columns)}  # a table's own title column wins
    return export_tables(model, vocabulary, labels, counts=corpus.counts, doc_ids=corpus.doc_ids, columns=columns,
                         coherence=coherence)


def doc_topic_csv(model, collection: Collection, labels: dict[int, str], coherence=None) -> Callable[[], bytes]:
    """The document-topic CSV (keyed by the collection's ``id``), computed when the button is clicked."""
    def build() -> bytes:
        frame = _tables(model, collection.corpus.vocabulary, labels, collection, coherence)["documents.csv"]
        return frame.to_csv(index=False).encode("utf-8")
    return build


def full_export(model, vocabulary, labels: dict[int, str], collection: Collection | None,
                coherence=None) -> Callable[[], bytes]:
    """A zip of every export file (what ``svi-topics export`` writes), made on click; ``coherence`` as in _tables."""
    def build() -> bytes:  # the topic-word table is compressed a block of topics at a time
        return zip_files(_tables(model, vocabulary, labels, collection, coherence))
    return build


def full_export_refusal(model) -> str | None:
    """Why the full export of ``model`` is refused (its topic-word table is above ``max_export_cells``), or None."""
    try:
        current_limits().check("max_export_cells", model.n_topics * model.n_words,
                               f"the full export's topic-word table (topics x words = {model.n_topics:,} x "
                               f"{model.n_words:,} rows)")
    except ValueError as exc:  # engine.LimitExceededError
        return str(exc)
    return None


def _with_labels(data: bytes | LoadedModel, labels: dict[int, str]) -> bytes:
    """The model file ``data`` (or a model made here) with the current labels (the file's and the explorer's)."""
    loaded = data if isinstance(data, LoadedModel) else load_model(data)
    extra = dict(loaded.extra)
    if isinstance(extra.get("explorer"), dict):
        extra["explorer"] = {**extra["explorer"], "labels": {str(k): v for k, v in labels.items()}}
    with tempfile.TemporaryDirectory(prefix="svi-export-") as folder:
        path = Path(folder) / "model.npz"
        save_model(path, loaded.model, loaded.vocabulary, trainer=loaded.trainer_state,
                   history=[*loaded.history, *loaded.changes], extra=extra, labels=labels)
        # save_model keeps the preprocessing from loaded.model.vectorizer_, restored by load_model
        return path.read_bytes()


def model_bytes(record: RunRecord) -> Callable[[], bytes]:
    """The model file of a run (a consistent copy taken between two steps) with its current labels, made on click.

    Labels edited after the run started (or after the file was loaded) are written into the file.
    """
    def build() -> bytes:
        if record.run is None:  # a loaded file, or a model made here (merged copies): no file yet
            source = record.file_bytes if record.file_bytes is not None else record.loaded
            return _with_labels(source, dict(record.labels))
        with tempfile.TemporaryDirectory(prefix="svi-export-") as folder:
            path = Path(folder) / "model.npz"
            record.run.save(path)
            return _with_labels(path.read_bytes(), dict(record.labels))
    return build


def _matches(loaded: LoadedModel, collection: Collection | None) -> bool:
    """Whether ``collection`` has the model's words, word for word (``LoadedModel.check_vocabulary``)."""
    if collection is None:
        return False
    try:
        loaded.check_vocabulary(collection.corpus.vocabulary)
    except ValueError:
        return False
    return True


def _collection_of(loaded: LoadedModel) -> Collection | None:
    """The collection a model was trained on: stored in this workspace under its key, or the one in use."""
    key = loaded.extra.get("explorer", {}).get("collection_key")
    stored = storage.load_collection(key) if key else None
    if _matches(loaded, stored):
        return stored
    current = state.collection()
    if loaded.vocabulary is not None and _matches(loaded, current):
        return current
    return None


def _checked(loaded: LoadedModel) -> LoadedModel:
    """``loaded`` with its explorer metadata checked (raises ExplorerSettingsError naming a bad field)."""
    return dataclasses.replace(loaded, extra=model_extra.checked_extra(loaded.extra, loaded.model))


def display_name(file_name: str) -> str:
    """An uploaded file's name as a run's name: one line, at most 80 characters."""
    name = safe_text.one_line(file_name).strip() or "model file"
    return name if len(name) <= 80 else name[:77] + "..."


def import_model(file_name: str, data: bytes) -> RunRecord:
    """A browse-only run of an uploaded model file (raises ModelFileError or ExplorerSettingsError for a bad file)."""
    loaded = _checked(load_model(data))
    record = load_record(loaded, f"{display_name(file_name)} (loaded)", _collection_of(loaded))
    record.file_bytes = data
    return record


def keep_import(record: RunRecord) -> str:
    """Keep a loaded model file with the workspace's checkpoints; the sentence saying so (Markdown).

    A file that cannot be kept (the disk refuses) stays loaded in this session; the user
    still has the file to load again.
    """
    try:
        keep_checkpoint(record)
    except OSError as exc:
        return (f" It could not be kept on the server ({safe_text.markdown(str(exc))}), so after a reload "
                "load the file again.")
    return " It is kept with this workspace's checkpoints below, to open again after a reload."


def import_message(record: RunRecord) -> str:
    """What the Export page says after loading a model file (Markdown, the name escaped)."""
    text = f"Loaded “{safe_text.markdown(record.name)}”: the Topics page shows it"
    if record.collection is None:
        return text + ". Its documents are not here: load the collection it was trained on to see them."
    if record.can_continue:
        return text + "; the Train page can continue training it."
    return text + "."


def checkpoint_folder() -> str:
    """Where checkpoints are kept, as the Export page says it (no server path for a private workspace)."""
    if storage.current_workspace().shared:
        return f"in {safe_text.markdown(storage.checkpoint_dir())}"
    return "in this page's private workspace on the server (its key is in the page's address)"


def checkpoints() -> list[CheckpointInfo]:
    """The checkpoints of this session's workspace (never another's)."""
    return storage.list_checkpoints()


def browse_only_reason(info: CheckpointInfo) -> str | None:
    """Why a checkpoint can only be opened to browse, as the Resume button's help says it, or None.

    From its record (written by this server); :func:`checkpoint_action` checks the file itself.
    """
    if info.record.get("merged_from"):
        return "Its topics were merged after training, so there is no training to continue: open it to browse."
    if info.record.get("combined_from"):
        return "Its topics were combined from several runs, so there is no training to continue: open it to browse."
    if info.record.get("resumable") is False:  # records older than the key are training runs
        return ("It was loaded from a model file saved without its training state, so there is no training to "
                "continue: open it to browse.")
    if not info.collection_key:  # a loaded file whose documents were not here
        return ("Its documents are not stored in this workspace, so it cannot go on training: open it to browse, "
                "or load the collection it was trained on and then the model file again.")
    return None


def checkpoint_action(action: str, info: CheckpointInfo) -> None:
    """Resume, open or delete a checkpoint of this workspace (raises with a readable message on failure)."""
    if action == "delete":
        storage.delete_checkpoint(info.run_id)
        return
    path = storage.checkpoint_path(info.run_id)
    loaded = _checked(load_model(path))
    settings = model_extra.checked_settings(info.record.get("settings", {}), loaded.model)
    labels = model_extra.checked_labels(info.record.get("labels"), loaded.model.n_topics)
    collection = storage.load_collection(info.collection_key)
    if action == "open":
        attached = collection if _matches(loaded, collection) else None
        record = load_record(loaded, f"{display_name(info.name)} (checkpoint)", attached)
        record.labels.update(labels)
        record.file_bytes = path.read_bytes()
        session.runs().add(record)
        state.select_run(record.run_id)
        return
    if loaded.trainer_state is None:  # merged copies, combined runs, or a loaded file saved without it
        made_by = loaded.extra.get("explorer", {})
        made = ("was made by merging topics after training" if made_by.get("merged_from")
                else "was made by combining the topics of several runs" if made_by.get("combined_from")
                else "holds a model without its training state")
        raise ValueError(f"“{info.name}” {made}, so it cannot be resumed; open it to browse its topics instead")
    if collection is None:
        raise FileNotFoundError(f"the documents of “{info.name}” are no longer stored in this workspace; "
                                "open the checkpoint to browse its topics instead")
    loaded.check_vocabulary(collection.corpus.vocabulary)  # the same words in the same columns, or no resume
    seen = int((loaded.trainer_state or {}).get("docs_seen", 0))
    if seen >= settings.target_docs:  # it had finished: go on for as many documents again
        settings = dataclasses.replace(settings, target_docs=seen + settings.target_docs)
    record = resume_checkpoint(path, collection, settings, f"{display_name(info.name)} (resumed)", labels=labels)
    session.start_run(record)
