"""Model files and checkpoints: one ``.npz`` archive, arrays plus JSON metadata, no pickle.

A model file holds the global variational parameters of a model (LDA: the
topics ``lambda``; HDP: ``lambda`` and the corpus sticks) and one metadata
entry, a JSON document stored as UTF-8 bytes (a 1-d ``uint8`` array), with a format
tag and version, the model class, its settings in use and its constructor arguments
as given, the vocabulary, the topic labels, the text preprocessing
(``"preprocessing"``: the :class:`engine.Vectorizer` settings, absent from older files),
the trainer's state (so a run continues exactly where it stopped), the
training history and any extra JSON-able values.  The archive is compressed
(``np.savez_compressed``).  Files are written atomically and read with
``allow_pickle=False``; anything malformed or foreign is rejected with
:class:`engine.errors.ModelFileError`.  Files of format version 1 (uncompressed,
the metadata a 0-d UTF-32 unicode array, no labels) still load.
"""

from __future__ import annotations

import base64
import dataclasses
import io
import json
import os
import zipfile
import zlib
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any

import numpy as np

from engine.data.vectorizer import Vectorizer
from engine.errors import LimitExceededError, ModelFileError, VocabularyMismatchError
from engine.io.atomic import atomic_file
from engine.io.records import EvalPoint, SettingChange
from engine.limits import Limits, current_limits

# and metadata_text, MAX_LABEL_CHARS and topic_number, for tests, tools and the explorer
__all__ = ["LoadedModel", "load_model", "save_model"]

FORMAT_TAG = "svi-topics-model"
FORMAT_VERSION = 2  # 2: UTF-8 metadata in a compressed archive, topic labels; 1: UTF-32 metadata, uncompressed
_METADATA = "metadata"
_ADAPTIVE_G_BAR = "adaptive_g_bar"  # the adaptive trainer state's g_bar, taken out of the JSON
# Bytes the metadata entry may expand to, in either format, written or read: a vocabulary of millions
# of words still fits, and json.loads takes about ten times this in memory (a deflated entry of a few
# hundred KB can expand to all of it).
_MAX_METADATA_BYTES = 64 * 1024 * 1024
MAX_LABEL_CHARS = 200  # a topic label, wherever it is stored: the engine's labels and the explorer's
_MAX_HEADER_BYTES = 65536  # .npy headers are a few hundred bytes
# what a SettingChange may record, besides the kernel ("births": an HDP birth round -> the topics it split;
# "merges": the birth pairs an HDP judged at the end of a run -> those it merged back)
_NUMERIC_SETTINGS = ("kappa", "tau", "batch_size", "births", "merges")


# --------------------------------------------------------------- model registry
def _lda_class():
    from engine.models.lda import LDA

    return LDA


def _hdp_class():
    try:
        from engine.models.hdp import HDP
    except ImportError as exc:  # the HDP module is optional in a partial installation
        raise ModelFileError(f"the file holds an HDP model but engine.models.hdp cannot be imported ({exc})") from None
    return HDP


# class name -> (constructor getter, {array name: model attribute}, {array name: shape from params})
_MODELS = {
    "LDA": (
        _lda_class,
        {"lambda": "lambda_"},
        {"lambda": lambda p: (p["n_topics"], p["n_words"])},
    ),
    "HDP": (
        _hdp_class,
        {"lambda": "lambda_", "sticks": "sticks_"},
        {"lambda": lambda p: (p["n_topics"], p["n_words"]), "sticks": lambda p: (p["n_topics"] - 1, 2)},
    ),
}


@dataclass(frozen=True)
class LoadedModel:
    """What :func:`load_model` read from a model file or checkpoint.

    Attributes
    ----------
    model : LDA or HDP
        The model with its learned arrays restored.
    vocabulary : tuple of str or None
        ``vocabulary[w]`` is the word of column ``w``.
    trainer_state : dict or None
        ``trainer.state_dict()`` at save time; pass it to ``trainer.load_state_dict``
        to continue training exactly.
    history : tuple of EvalPoint
        Held-out evaluations recorded during training.
    changes : tuple of SettingChange
        Schedule changes recorded during training.
    extra : dict
        The ``extra`` values given to :func:`save_model`.
    labels : dict of int to str
        Topic labels given to :func:`save_model`, by topic index (0-based); topics
        without a label are absent.
    """

    model: Any
    vocabulary: tuple[str, ...] | None
    trainer_state: dict | None
    history: tuple = ()
    changes: tuple = ()
    extra: dict = field(default_factory=dict)
    labels: dict = field(default_factory=dict)

    def check_vocabulary(self, vocabulary: Iterable[str]) -> None:
        """Raise VocabularyMismatchError unless ``vocabulary`` is the model's, word for word and in order.

        Resuming a checkpoint or scoring documents needs the same words in the same
        columns: a collection with as many words but different ones would train on
        silently with every topic scrambled.  A file saved without a vocabulary cannot
        be checked and passes if the sizes agree.
        """
        words = tuple(vocabulary)
        if len(words) != self.model.n_words:
            raise VocabularyMismatchError(
                f"the collection has {len(words):,} words but the model was trained on {self.model.n_words:,}; "
                "resume it on the collection it was trained on"
            )
        if self.vocabulary is None or words == self.vocabulary:
            return
        differ = [w for w, (a, b) in enumerate(zip(words, self.vocabulary, strict=True)) if a != b]
        first = differ[0]
        raise VocabularyMismatchError(
            f"the collection's words differ from the model's in {len(differ):,} of {len(words):,} columns "
            f"(column {first}: {words[first]!r} here, {self.vocabulary[first]!r} in the model); resume it on "
            "the collection it was trained on, with the same preprocessing"
        )


# ----------------------------------------------------------------------- saving
def _json_default(value: Any) -> Any:
    if isinstance(value, np.integer):
        return int(value)
    if isinstance(value, np.floating):
        return float(value)
    if isinstance(value, np.bool_):
        return bool(value)
    if isinstance(value, np.ndarray):
        return value.tolist()
    raise TypeError(f"{type(value).__name__} values cannot be stored in a model file (JSON only)")


def _record_dict(record: Any) -> dict:
    if dataclasses.is_dataclass(record) and not isinstance(record, type):
        return dataclasses.asdict(record)
    if hasattr(record, "_asdict"):
        return dict(record._asdict())
    if isinstance(record, Mapping):
        return dict(record)
    raise TypeError(f"history entries must be EvalPoint or SettingChange records, got {type(record).__name__}")


def _split_history(history: Any) -> tuple[list[dict], list[dict]]:
    """Return (evaluation points, setting changes) as lists of dicts."""
    if history is None:
        return [], []
    if hasattr(history, "history") and hasattr(history, "changes"):  # a run Snapshot
        return [_record_dict(r) for r in history.history], [_record_dict(r) for r in history.changes]
    points, changes = [], []
    for record in history:
        row = _record_dict(record)
        (changes if "name" in row else points).append(row)
    return points, changes


def _trainer_state(trainer: Any) -> dict | None:
    if trainer is None:
        return None
    if isinstance(trainer, Mapping):  # a state read back from a file (LoadedModel.trainer_state)
        return dict(trainer)
    if hasattr(trainer, "state_dict"):
        return trainer.state_dict()
    # a batch trainer: re-fitting the local parameters is how it starts anyway
    return {"algorithm": "batch", "t": int(trainer.t), "docs_seen": int(trainer.docs_seen),
            "n_docs": int(trainer.n_docs)}


def _split_adaptive(state: dict | None, shape: tuple[int, int]) -> tuple[dict | None, dict[str, np.ndarray]]:
    """The trainer state without the adaptive average gradient, and that gradient as an array entry.

    ``state_dict`` gives g_bar as base64 (JSON-able); a state read by :func:`load_model` holds it
    as an array.  As JSON it would take ~10.7 bytes a cell and outgrow the metadata limit.
    """
    adaptive = None if state is None else state.get("adaptive")
    if not isinstance(adaptive, Mapping) or "g_bar" not in adaptive:
        return state, {}
    g_bar = adaptive["g_bar"]
    if isinstance(g_bar, str):
        g_bar = np.frombuffer(base64.b64decode(g_bar, validate=True), dtype="<f8")
    g_bar = np.asarray(g_bar, dtype=np.float64)
    if g_bar.size != shape[0] * shape[1]:
        raise ValueError(f"the trainer state's adaptive g_bar has {g_bar.size} values; the topics have shape {shape}")
    rest = {key: value for key, value in adaptive.items() if key != "g_bar"}
    return {**state, "adaptive": rest}, {_ADAPTIVE_G_BAR: g_bar.reshape(shape)}


def _model_arrays(model: Any) -> tuple[str, dict[str, np.ndarray]]:
    name = type(model).__name__
    if name not in _MODELS:
        raise TypeError(f"cannot save a {name} model; model files hold {sorted(_MODELS)} models")
    arrays = {}
    for key, attribute in _MODELS[name][1].items():
        value = getattr(model, attribute, None)
        if value is None:
            raise ValueError(f"the model has no {attribute} yet; train it or call initialize(n_docs) before saving")
        arrays[key] = np.asarray(value)
    return name, arrays


def _arguments(model: Any) -> dict | None:
    """The model's constructor arguments as given (``get_params``), or None if they are not JSON-able."""
    arguments = model.get_params()
    try:
        json.dumps(arguments, default=_json_default)
    except (TypeError, ValueError):
        return None
    return arguments


def _label_table(labels: Mapping[int, str] | Iterable[str] | None, n_topics: int) -> dict[str, str]:
    """Labels as stored: ``{"3": "Economy"}`` by 0-based topic index, empty labels left out."""
    if labels is None:
        return {}
    items = labels.items() if isinstance(labels, Mapping) else enumerate(labels)
    table = {}
    for topic, label in items:
        if isinstance(topic, bool) or not isinstance(topic, (int, np.integer)) or not 0 <= topic < n_topics:
            raise ValueError(f"labels must be keyed by topic indices 0 to {n_topics - 1}, got {topic!r}")
        if not isinstance(label, str):
            raise ValueError(f"labels must be strings, got {type(label).__name__} for topic {topic}")
        if len(label) > MAX_LABEL_CHARS:
            raise ValueError(f"the label of topic {topic} has {len(label)} characters, at most {MAX_LABEL_CHARS}")
        if label.strip():
            table[str(int(topic))] = label
    return table


def metadata_text(entry: np.ndarray) -> str:
    """The JSON text of a model file's metadata entry, in either format (UTF-8 bytes or a 0-d unicode array)."""
    if entry.dtype == np.uint8 and entry.ndim == 1:
        return entry.tobytes().decode("utf-8")
    return str(entry[()])


def save_model(
    path: str | os.PathLike,
    model: Any,
    vocabulary: Iterable[str] | None = None,
    trainer: Any = None,
    history: Any = None,
    extra: Mapping[str, Any] | None = None,
    labels: Mapping[int, str] | Iterable[str] | None = None,
    vectorizer: Vectorizer | None = None,
) -> Path:
    """Write a model (and optionally its trainer state and history) to one ``.npz`` file.

    The file is written to a temporary file in the same folder, flushed to disk
    and renamed over ``path``, so ``path`` holds either the old or the new
    file, never half of one.

    Parameters
    ----------
    path : str or path-like
        Destination (kept as given; ``.npz`` is the customary suffix).
    model : LDA or HDP
        A model with learned (or initialised) arrays.
    vocabulary : sequence of str, optional
        One word per column of the model's topics; by default the model's
        ``feature_names_in_`` if it has them.
    trainer : SVI or BatchVI or dict, optional
        Its state (or a ``state_dict()`` already taken, e.g. ``LoadedModel.trainer_state``)
        is stored so that training can continue exactly (checkpoint).
    history : Snapshot or iterable of EvalPoint / SettingChange, optional
        The training record shown by the explorer.
    extra : mapping, optional
        Any other JSON-able values (corpus name, split seed...).
    labels : mapping of int to str, or sequence of str, optional
        Topic labels by 0-based topic index (blank ones are not stored).
    vectorizer : Vectorizer, optional
        How the training text became words (``corpus.vectorizer``), so the loaded
        model's ``transform_texts`` preprocesses new text the same way; by default the
        model's ``vectorizer_`` if it has one.

    Returns
    -------
    Path
        The path written.
    """
    path = Path(path)
    class_name, arrays = _model_arrays(model)
    params = model.settings()
    if vocabulary is None:
        vocabulary = getattr(model, "__dict__", {}).get("feature_names_in_")
    if vectorizer is None:
        vectorizer = getattr(model, "__dict__", {}).get("vectorizer_")
    elif not isinstance(vectorizer, Vectorizer):
        raise TypeError(f"vectorizer must be an engine.Vectorizer or None, got {type(vectorizer).__name__}")
    if vocabulary is not None:
        vocabulary = [str(word) for word in vocabulary]
        if len(vocabulary) != model.n_words:
            raise ValueError(
                f"vocabulary has {len(vocabulary)} words but the model has n_words={model.n_words}; "
                "pass the vocabulary of the corpus the model was trained on"
            )
    points, changes = _split_history(history)
    trainer_state, state_arrays = _split_adaptive(_trainer_state(trainer), arrays["lambda"].shape)
    meta = {
        "format": FORMAT_TAG,
        "version": FORMAT_VERSION,
        "model_class": class_name,
        "params": params,
        "arguments": _arguments(model),
        "arrays": sorted(arrays),
        "vocabulary": vocabulary,
        "preprocessing": None if vectorizer is None else vectorizer.to_dict(),
        "trainer": trainer_state,
        "history": points,
        "changes": changes,
        "extra": dict(extra) if extra is not None else {},
        "labels": _label_table(labels, model.n_topics),
        "clock": model.training_clock(),
    }
    try:
        text = json.dumps(meta, default=_json_default)
    except (TypeError, ValueError) as exc:
        raise ValueError(f"cannot store the metadata of {path.name!r}: {exc}") from None
    # UTF-8 bytes as a uint8 array: a quarter of a UTF-32 unicode array, and no pickle
    metadata = np.frombuffer(text.encode("utf-8"), dtype=np.uint8)
    if metadata.size > _MAX_METADATA_BYTES:  # load_model would refuse it: never write such a file
        raise ValueError(f"cannot save {path.name!r}: its metadata (vocabulary, history, labels, extra values) "
                         f"takes {metadata.size:,} bytes, above the {_MAX_METADATA_BYTES:,} a model file may hold")
    with atomic_file(path) as file:
        np.savez_compressed(file, allow_pickle=False, **arrays, **state_arrays, **{_METADATA: metadata})
    return path


# ---------------------------------------------------------------------- loading
def _open_source(source: Any) -> tuple[IO[bytes] | Path, str]:
    """Return something ``zipfile``/``np.load`` read, and a name for messages."""
    if isinstance(source, (bytes, bytearray, memoryview)):
        return io.BytesIO(bytes(source)), "the uploaded model file"
    if isinstance(source, (str, os.PathLike)):
        path = Path(source)
        if not path.exists():
            raise FileNotFoundError(f"no such model file: {str(path)!r}")
        if path.is_dir():
            raise ModelFileError(f"{str(path)!r} is a folder, not a model file (.npz)")
        return path, repr(str(path))
    if hasattr(source, "read"):
        name = repr(str(getattr(source, "name", "the uploaded model file")))
        if not (hasattr(source, "seek") and getattr(source, "seekable", lambda: True)()):
            source = io.BytesIO(source.read())
        return source, name
    raise TypeError(f"load_model needs a path, bytes or a binary file object, got {type(source).__name__}")


def _check_header(archive: zipfile.ZipFile, key: str, name: str) -> tuple[tuple[int, ...], np.dtype]:
    """Read a member's .npy header (shape, dtype) without reading its data."""
    with archive.open(f"{key}.npy") as member:
        version = np.lib.format.read_magic(member)
        if version == (1, 0):
            shape, _, dtype = np.lib.format.read_array_header_1_0(member, max_header_size=_MAX_HEADER_BYTES)
        elif version == (2, 0):
            shape, _, dtype = np.lib.format.read_array_header_2_0(member, max_header_size=_MAX_HEADER_BYTES)
        else:
            raise ModelFileError(f"{name}: array {key!r} uses an unsupported .npy version {version}")
    if dtype.hasobject:
        raise ModelFileError(f"{name}: array {key!r} holds Python objects; model files never do (refusing to unpickle)")
    return shape, dtype


def _check_entry_size(archive: zipfile.ZipFile, key: str, data_bytes: int, name: str) -> None:
    """The zip entry's declared (uncompressed) size must be what its .npy header says it holds.

    A crafted entry could declare less and inflate to more, or the reverse; zipfile stops
    reading a compressed entry at its declared size, so the declared sizes, checked against
    the limits before anything is read, bound what is expanded.
    """
    info = archive.getinfo(f"{key}.npy")
    if not data_bytes <= info.file_size <= data_bytes + _MAX_HEADER_BYTES:
        raise ModelFileError(f"{name}: array {key!r} declares {info.file_size:,} bytes but its header describes "
                             f"{data_bytes:,}; the file is damaged or crafted")


def topic_number(key: Any, n_topics: int) -> int | None:
    """The topic a label's key names (``"3"`` -> 3), or None unless it is a plain number below ``n_topics``.

    Keys come from files: the text is checked (ASCII digits, no leading zero, no longer than
    ``n_topics - 1`` written out) before ``int`` sees it, so a key of thousands of digits is
    refused, not a ValueError from Python's limit on converting long digit strings.
    """
    if not (isinstance(key, str) and key.isascii() and key.isdecimal()):
        return None
    if len(key) > len(str(max(n_topics - 1, 0))) or (len(key) > 1 and key[0] == "0"):
        return None
    topic = int(key)
    return topic if topic < n_topics else None


def _labels(value: Any, n_topics: int, name: str) -> dict[int, str]:
    if value is None:
        return {}
    if not isinstance(value, dict):
        raise ModelFileError(f"{name}: the labels must be a JSON object of topic numbers and texts")
    labels = {}
    for key, label in value.items():
        if topic_number(key, n_topics) is None:
            shown = key if len(key) <= 20 else f"{key[:20]}... ({len(key):,} characters)"
            raise ModelFileError(f"{name}: the labels name topic {shown!r}; the model has topics 0 to {n_topics - 1}")
        if not isinstance(label, str) or len(label) > MAX_LABEL_CHARS:
            raise ModelFileError(f"{name}: the label of topic {key} must be a text of at most "
                                 f"{MAX_LABEL_CHARS} characters")
        labels[int(key)] = label
    return labels


def _reject_constant(token: str) -> Any:
    raise ValueError(f"it holds {token}, which model files never store")


def _read_metadata(archive: zipfile.ZipFile, npz: Any, name: str) -> dict:
    shape, dtype = _check_header(archive, _METADATA, name)
    utf8 = dtype == np.uint8 and len(shape) == 1  # format 2
    utf32 = shape == () and dtype.kind == "U"  # format 1
    if not (utf8 or utf32):
        raise ModelFileError(f"{name}: the metadata entry is not a JSON string; the file is not a model file")
    size = (shape[0] if utf8 else 1) * dtype.itemsize
    if size > _MAX_METADATA_BYTES:  # checked before the entry is expanded
        raise ModelFileError(f"{name}: the metadata entry holds {size:,} bytes, above the {_MAX_METADATA_BYTES:,} "
                             "a model file may hold; the file is damaged or crafted")
    _check_entry_size(archive, _METADATA, size, name)
    try:
        meta = json.loads(metadata_text(npz[_METADATA]), parse_constant=_reject_constant)
    except ValueError as exc:
        raise ModelFileError(f"{name}: the metadata entry is not valid JSON ({exc})") from None
    if not isinstance(meta, dict) or meta.get("format") != FORMAT_TAG:
        found = meta.get("format") if isinstance(meta, dict) else None
        raise ModelFileError(f"{name} is not an svi-topics model file (format tag {found!r}, expected {FORMAT_TAG!r})")
    version = meta.get("version")
    if isinstance(version, bool) or not isinstance(version, int) or version < 1:
        raise ModelFileError(f"{name}: invalid format version {version!r}")
    if version > FORMAT_VERSION:
        raise ModelFileError(
            f"{name} was written by a newer version of the engine (format version {version}, this one reads "
            f"up to {FORMAT_VERSION}); upgrade svi-topics to open it"
        )
    return meta


def _build_model(meta: dict, name: str, limits: Limits) -> tuple[Any, dict]:
    class_name = meta.get("model_class")
    if class_name not in _MODELS:
        raise ModelFileError(f"{name}: unknown model class {class_name!r}; expected one of {sorted(_MODELS)}")
    params = meta.get("params")
    if not isinstance(params, dict):
        raise ModelFileError(f"{name}: the model parameters are missing")
    getter, attributes, shapes = _MODELS[class_name]
    # files from before these options were saved were fitted with the paper's updates
    params = {"local_update": "mean_field",
              **({"revive_topics": False, "local_acceleration": "none", "local_max_iter": 100, "first_pass_steps": 0}
                 if class_name == "LDA" else {"stick_atoms": "all", "first_step_min": 0.0, "warmup_epochs": 0.0}),
              "step_floor": "none", **params}
    if class_name == "HDP" and "gamma" in params and "omega" not in params:  # files before the rename
        params["omega"] = params.pop("gamma")
    try:
        model = getter()(**params)
        model.settings()  # the arguments are validated when first used
        expected = {key: tuple(shape(params)) for key, shape in shapes.items()}
    except (TypeError, ValueError, KeyError) as exc:
        raise ModelFileError(f"{name}: invalid {class_name} parameters ({exc})") from None
    limits.check("max_vocabulary", model.n_words, f"{name}: the model's vocabulary")
    for key, shape in expected.items():
        limits.check("max_dense_cells", int(np.prod(shape, dtype=np.float64)), f"{name}: the size of array {key!r}")
    return model, {key: (attributes[key], expected[key]) for key in attributes}


def _as_given(model: Any, arguments: Any, arrays: dict[str, np.ndarray]) -> Any:
    """The model rebuilt from the arguments it was given, if they still lead to the settings it was trained with.

    Files store both the settings in use ("params", what the model is rebuilt from) and
    the constructor arguments as given ("arguments"), so that a loaded model's
    ``get_params`` is the saved model's (``LDA()`` stays ``alpha=None``).  When the
    arguments resolve differently (a default changed since, or a learned prior), the
    settings win.
    """
    if not isinstance(arguments, dict):
        return model
    try:
        candidate = type(model)(**arguments)
        for attribute, values in arrays.items():
            setattr(candidate, attribute, values)
        same = candidate.settings() == model.settings()
    except (TypeError, ValueError, KeyError, AttributeError):
        return model
    return candidate if same else model


def _read_arrays(archive: zipfile.ZipFile, npz: Any, wanted: dict, name: str) -> dict[str, np.ndarray]:
    members = set(npz.files)
    missing = sorted(set(wanted) - members)
    if missing:
        raise ModelFileError(f"{name}: missing array(s) {missing}; the file is damaged or not a model file")
    unknown = sorted(members - set(wanted) - {_METADATA, _ADAPTIVE_G_BAR})
    if unknown:
        raise ModelFileError(f"{name}: unexpected array(s) {unknown}; the file is not a model file")
    arrays = {}
    for key, (_, shape) in wanted.items():
        found_shape, dtype = _check_header(archive, key, name)
        if found_shape != shape:
            raise ModelFileError(f"{name}: array {key!r} has shape {found_shape}, the model parameters say {shape}")
        if dtype.kind != "f":
            raise ModelFileError(f"{name}: array {key!r} has dtype {dtype}, expected floating point numbers")
        _check_entry_size(archive, key, int(np.prod(shape, dtype=np.int64)) * dtype.itemsize, name)
        values = npz[key]
        if not np.all(np.isfinite(values)) or (values.size and values.min() <= 0):
            raise ModelFileError(f"{name}: array {key!r} holds non-finite or non-positive values")
        arrays[key] = values
    return arrays


def _read_adaptive(archive: zipfile.ZipFile, npz: Any, state: Any, shape: tuple[int, ...], name: str) -> Any:
    """The trainer state with its adaptive g_bar put back from the array entry (checked: shape, finite)."""
    adaptive = state.get("adaptive") if isinstance(state, dict) else None
    if _ADAPTIVE_G_BAR not in npz.files:
        if isinstance(adaptive, dict) and "g_bar" not in adaptive:
            raise ModelFileError(f"{name}: the trainer state's adaptive step size has no g_bar (array "
                                 f"{_ADAPTIVE_G_BAR!r} is missing); the file is damaged")
        return state
    if not isinstance(adaptive, dict) or "g_bar" in adaptive:
        raise ModelFileError(f"{name}: array {_ADAPTIVE_G_BAR!r} belongs to no adaptive trainer state; "
                             "the file is damaged or was edited")
    found_shape, dtype = _check_header(archive, _ADAPTIVE_G_BAR, name)
    if found_shape != shape or dtype.kind != "f":
        raise ModelFileError(f"{name}: array {_ADAPTIVE_G_BAR!r} has shape {found_shape} and dtype {dtype}; "
                             f"expected floating point numbers of the topics' shape {shape}")
    _check_entry_size(archive, _ADAPTIVE_G_BAR, int(np.prod(shape, dtype=np.int64)) * dtype.itemsize, name)
    g_bar = npz[_ADAPTIVE_G_BAR]
    if not np.all(np.isfinite(g_bar)):
        raise ModelFileError(f"{name}: array {_ADAPTIVE_G_BAR!r} holds non-finite values")
    return {**state, "adaptive": {**adaptive, "g_bar": g_bar.astype(np.float64, copy=False)}}


def _strings_or_none(value: Any, what: str, name: str, length: int | None = None) -> tuple[str, ...] | None:
    if value is None:
        return None
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise ModelFileError(f"{name}: the {what} must be a list of strings")
    if length is not None and len(value) != length:
        raise ModelFileError(f"{name}: the {what} has {len(value)} words but the model has {length}")
    if len(set(value)) != len(value):
        raise ModelFileError(f"{name}: the {what} lists a word twice; the file is damaged or was edited")
    return tuple(value)


def _records(rows: Any, record: type, what: str, name: str) -> tuple:
    if not isinstance(rows, list):
        raise ModelFileError(f"{name}: the {what} must be a list")
    try:
        records = tuple(record(**row) for row in rows)
    except TypeError as exc:
        raise ModelFileError(f"{name}: malformed {what} entry ({exc})") from None
    for i, entry in enumerate(records):
        problem = _record_problem(entry)
        if problem:
            raise ModelFileError(f"{name}: {what} entry {i} is invalid ({problem}); the file is damaged or was edited")
    return records


def _is_count(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value >= 0


def _is_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool) and np.isfinite(value)


def _record_problem(entry: Any) -> str | None:
    """What is wrong with a history or change record read from a file, or None."""
    if not (_is_count(entry.step) and _is_count(entry.docs_seen)):
        return "step and docs_seen must be whole numbers >= 0"
    if not (_is_number(entry.seconds) and entry.seconds >= 0):
        return f"seconds must be a finite number >= 0, got {entry.seconds!r}"
    if isinstance(entry, EvalPoint):
        if not _is_number(entry.heldout_loglik):
            return f"heldout_loglik must be a finite number, got {entry.heldout_loglik!r}"
        if not (_is_number(entry.rho) and 0 < entry.rho <= 1):
            return f"rho must be in (0, 1], got {entry.rho!r}"
        return None
    if entry.name in _NUMERIC_SETTINGS:
        if not (_is_number(entry.old) and _is_number(entry.new)):
            return f"a {entry.name} change must go between finite numbers, got {entry.old!r} -> {entry.new!r}"
        return None
    if entry.name == "kernel":
        if not (isinstance(entry.old, str) and isinstance(entry.new, str)):
            return "a kernel change must go between kernel names"
        return None
    return f"unknown setting {entry.name!r}"


def _restore_preprocessing(model: Any, vocabulary: tuple[str, ...] | None, settings: Any, name: str,
                           trust_token_pattern: bool) -> None:
    """Give the model its words and preprocessing back, for ``transform_texts`` (older files lack the latter)."""
    if vocabulary is not None:
        model.feature_names_in_ = np.asarray(vocabulary, dtype=object)
    if settings is not None:
        try:
            model.vectorizer_ = Vectorizer.from_dict(settings, trust_token_pattern)
        except (TypeError, ValueError) as exc:
            raise ModelFileError(f"{name}: invalid preprocessing settings ({exc})") from None


def load_model(source: str | os.PathLike | bytes | IO[bytes], *, limits: Limits | None = None,
               trust_token_pattern: bool = False) -> LoadedModel:
    """Read a file written by :func:`save_model`.

    Parameters
    ----------
    source : str, path-like, bytes or binary file object
        A path, or the file's content (e.g. an upload in the explorer).
    limits : Limits, optional
        Bounds on the declared sizes (vocabulary, cells of each array) and on the bytes
        the archive expands to, checked before any array is read; by default
        :func:`engine.current_limits` (the ``SVI_TOPICS_MAX_*`` settings).
    trust_token_pattern : bool
        Accept any token pattern in the file's preprocessing.  By default only the
        patterns this project writes (:data:`engine.data.vectorizer.STORED_TOKEN_PATTERNS`)
        load, because a hostile regular expression can run for hours on a short text;
        a file written with your own ``token_pattern`` loads with True.

    Returns
    -------
    LoadedModel
        The model, vocabulary, trainer state, history, changes and extra values.

    Raises
    ------
    ModelFileError
        The file is not an ``.npz`` archive, lacks the metadata, carries another
        format tag or a newer version, names an unknown model class, or holds
        arrays of the wrong shape, of objects, or with non-finite values.
    LimitExceededError
        The file declares or expands to more than ``limits`` allow.
    FileNotFoundError
        ``source`` is a path that does not exist.
    """
    limits = current_limits() if limits is None else limits
    source, name = _open_source(source)
    if not zipfile.is_zipfile(source):
        raise ModelFileError(
            f"{name} is not a model file (not an .npz archive, or truncated); save models with engine.save_model"
        )
    if not isinstance(source, Path):
        source.seek(0)
    try:
        with np.load(source, allow_pickle=False) as npz:
            archive = npz.zip
            limits.check("max_expanded_bytes", sum(info.file_size for info in archive.infolist()),
                         f"{name}: the bytes its arrays expand to")
            if _METADATA not in npz.files:
                raise ModelFileError(f"{name} has no metadata entry; it is not an svi-topics model file")
            meta = _read_metadata(archive, npz, name)
            model, wanted = _build_model(meta, name, limits)
            arrays = _read_arrays(archive, npz, wanted, name)
            trainer_state = _read_adaptive(archive, npz, meta.get("trainer"), wanted["lambda"][1], name)
    except (ModelFileError, LimitExceededError):
        raise
    except (OSError, ValueError, EOFError, KeyError, RuntimeError, NotImplementedError,
            zipfile.BadZipFile, zlib.error) as exc:
        raise ModelFileError(f"{name} is damaged or not a model file ({type(exc).__name__}: {exc})") from None
    for key, values in arrays.items():
        try:
            setattr(model, wanted[key][0], values)
        except (ValueError, TypeError, AttributeError) as exc:
            raise ModelFileError(f"{name}: cannot restore {wanted[key][0]} ({exc})") from None
    model = _as_given(model, meta.get("arguments"), {wanted[key][0]: values for key, values in arrays.items()})
    clock = meta.get("clock", {})  # files before the clock was saved have none
    if not isinstance(clock, dict):
        raise ModelFileError(f"{name}: the training clock must be a JSON object")
    try:
        model.restore_training_clock(clock)
    except ValueError as exc:
        raise ModelFileError(f"{name}: invalid training clock ({exc})") from None
    if trainer_state is not None and not isinstance(trainer_state, dict):
        raise ModelFileError(f"{name}: the trainer state must be a JSON object")
    extra = meta.get("extra", {})
    if not isinstance(extra, dict):
        raise ModelFileError(f"{name}: the extra values must be a JSON object")
    vocabulary = _strings_or_none(meta.get("vocabulary"), "vocabulary", name, model.n_words)
    _restore_preprocessing(model, vocabulary, meta.get("preprocessing"), name, trust_token_pattern)
    return LoadedModel(
        model=model,
        vocabulary=vocabulary,
        trainer_state=trainer_state,
        history=_records(meta.get("history", []), EvalPoint, "history", name),
        changes=_records(meta.get("changes", []), SettingChange, "changes", name),
        extra=extra,
        labels=_labels(meta.get("labels"), model.n_topics, name),
    )
