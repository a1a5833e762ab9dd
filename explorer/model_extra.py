"""The explorer's part of a model file (``extra["explorer"]``), checked before anything uses it.

No Streamlit here.  A model file or checkpoint may come from anyone: the engine checks
its own metadata (arrays, vocabulary, history), and :func:`checked_extra` checks what
the explorer stored beside it (run settings, topic labels, the collection's key and
name) for types, ranges, finiteness and sizes.  The first bad field raises
:class:`ExplorerSettingsError`, whose message names it, so a tampered file is refused
at import with one sentence instead of failing later somewhere on a page.
"""

from __future__ import annotations

import dataclasses
import math
from typing import Any

# the one label limit and key check, with the engine's model files (not in engine.__all__)
from engine.io.model_files import MAX_LABEL_CHARS, topic_number
from explorer.engine_api import MAX_CONSENSUS_RUNS
from explorer.runs import RunSettings, lda_update
from explorer.workspace import _shown, check_collection_key

__all__ = ["MAX_LABEL_CHARS", "MAX_TEXT", "ExplorerSettingsError", "checked_combined", "checked_extra",
           "checked_labels", "checked_merged_into", "checked_settings"]

MAX_TEXT = 200  # characters of a name
_MAX_INT = 2**63 - 1

# field -> (kind, lowest, highest, whether the lowest is allowed)
_NUMBERS = {
    "n_topics": ("int", 1, 100_000, True),
    "doc_truncation": ("int", 1, 100_000, True),
    "eta": ("float", 0.0, 1e6, False),
    "omega": ("float", 0.0, 1e6, False),
    "kappa": ("float", 0.0, 1.0, True),
    "tau": ("float", 0.0, 1e9, True),
    "batch_size": ("int", 1, _MAX_INT, True),
    "n_test": ("int", 1, _MAX_INT, True),
    "seed": ("int", 0, _MAX_INT, True),
    "target_docs": ("int", 1, _MAX_INT, True),
}
_CHOICES = {"model": ("LDA", "HDP"), "algorithm": ("svi", "batch"), "step_size": ("schedule", "adaptive"),
            "local_update": ("auto", "zero_order", "cvb0")}


class ExplorerSettingsError(ValueError):
    """A model file's explorer settings are malformed; the message names the field."""


def _fail(field: str, rule: str, value: Any) -> ExplorerSettingsError:
    return ExplorerSettingsError(f"this model file's explorer settings are damaged: {field} must be {rule}, "
                                 f"got {_shown(value)}; the file was not loaded")


def _number(field: str, value: Any, kind: str, low: float, high: float, low_allowed: bool) -> int | float:
    is_int = isinstance(value, int) and not isinstance(value, bool)
    is_number = is_int or (isinstance(value, float) and math.isfinite(value))
    bracket = "[" if low_allowed else "("
    rule = (f"a whole number from {low:,} to {high:,}" if kind == "int"
            else f"a finite number in {bracket}{low:g}, {high:g}]")
    if not (is_int if kind == "int" else is_number):
        raise _fail(field, rule, value)
    if value > high or value < low or (value == low and not low_allowed):
        raise _fail(field, rule, value)
    return int(value) if kind == "int" else float(value)


def _text(field: str, value: Any, optional: bool = True, limit: int = MAX_TEXT) -> str | None:
    if value is None and optional:
        return None
    if not isinstance(value, str) or len(value) > limit:
        raise _fail(field, f"a text of at most {limit} characters", value)
    return value


def checked_settings(values: Any, model: Any = None, field: str = "settings") -> RunSettings:
    """The run settings of ``values`` (a dict from a file), every field checked.

    Missing fields take their defaults, unknown ones are ignored; with ``model`` (the
    file's model) the model kind, ``n_topics``, the HDP's ``doc_truncation`` and
    ``births`` (whether it splits topics) and an LDA's ``local_update`` default to the
    model's and must match it.
    """
    if not isinstance(values, dict):
        raise _fail(field, "a table of settings", values)
    names = {f.name for f in dataclasses.fields(RunSettings)}
    known = {k: v for k, v in values.items() if k in names}
    checked: dict[str, Any] = {}
    for name, value in known.items():
        where = f"{field}.{name}"
        if name in _CHOICES:
            if not isinstance(value, str) or value not in _CHOICES[name]:
                raise _fail(where, " or ".join(repr(c) for c in _CHOICES[name]), value)
            checked[name] = value
        elif name == "alpha":
            checked[name] = None if value is None else _number(where, value, "float", 0.0, 1e6, False)
        elif name == "births":
            if not isinstance(value, bool):
                raise _fail(where, "true or false", value)
            checked[name] = value
        elif name == "scheduler":
            continue  # where runs train is this server's setting, never a file's (no address from a file)
        else:
            checked[name] = _number(where, value, *_NUMBERS[name])
    births = getattr(model, "births", None)  # an HDP's births a round (None: no model, or LDA)
    update = lda_update(model)  # an LDA's local step (None: no model, or the HDP)
    if model is not None:  # what the file leaves out is the model's
        checked.setdefault("model", type(model).__name__)
        checked.setdefault("n_topics", model.n_topics)
        if getattr(model, "doc_truncation", None) is not None:
            checked.setdefault("doc_truncation", model.doc_truncation)
        if births is not None:  # whether an HDP splits topics is its model's
            checked.setdefault("births", births > 0)
        if update is not None:  # so is an LDA's local step
            checked.setdefault("local_update", update)
    settings = RunSettings(**checked)
    if model is not None:
        kind = type(model).__name__
        if settings.model != kind:
            raise _fail(f"{field}.model", f"the file's model, {kind!r}", settings.model)
        if settings.n_topics != model.n_topics:
            raise _fail(f"{field}.n_topics", f"the file's number of topics, {model.n_topics}", settings.n_topics)
        truncation = getattr(model, "doc_truncation", None)
        if kind == "HDP" and truncation is not None and settings.doc_truncation != truncation:
            raise _fail(f"{field}.doc_truncation", f"the file's document truncation, {truncation}",
                        settings.doc_truncation)
        if update is not None and settings.local_update != update:
            raise _fail(f"{field}.local_update", f"{update!r}, the file's model's local step", settings.local_update)
        if births is not None and settings.births != (births > 0):
            raise _fail(f"{field}.births", f"{'true' if births > 0 else 'false'}, as the file's model makes "
                        f"{births} births a round", settings.births)
    return settings


def checked_labels(values: Any, n_topics: int, field: str = "labels") -> dict[int, str]:
    """Topic labels ``{"3": "taxes"}`` from a file: at most one per topic, texts of at most :data:`MAX_LABEL_CHARS`.

    The limit and the key check are the engine's (:mod:`engine.io.model_files`), so the labels a
    model file carries and the explorer's are held to one rule.
    """
    if values is None:
        return {}
    if not isinstance(values, dict):
        raise _fail(field, "a table of topic labels", values)
    if len(values) > n_topics:
        raise _fail(field, f"at most one label for each of the {n_topics} topics", f"{len(values)} labels")
    labels = {}
    for key, label in values.items():
        topic = topic_number(key, n_topics)
        if topic is None:
            raise _fail(f"{field} (a topic number)", f"a topic number from 0 to {n_topics - 1}", key)
        labels[topic] = _text(f"{field}[{key}]", label, optional=False, limit=MAX_LABEL_CHARS)
    return labels


def checked_merged_into(values: Any, n_topics: int, field: str = "merged_into") -> dict[int, int]:
    """The emptied topics of a merged run, ``{"7": 4}`` (topic 7's words are in topic 4), from a file.

    Every key and value a topic number of the model, no topic merged into itself, and no
    topic that holds others emptied itself (what ``model.merge_topics`` makes).
    """
    if values is None:
        return {}
    if not isinstance(values, dict) or len(values) >= n_topics:
        raise _fail(field, f"a table of at most {n_topics - 1} emptied topics, each with the topic holding its "
                    "words", values if not isinstance(values, dict) else f"{len(values)} entries")
    merged = {}
    for key, into in values.items():
        topic = topic_number(key, n_topics)
        if topic is None:
            raise _fail(f"{field} (a topic number)", f"a topic number from 0 to {n_topics - 1}", key)
        if isinstance(into, bool) or not isinstance(into, int) or not 0 <= into < n_topics or into == topic:
            raise _fail(f"{field}[{key}]", f"the number of another topic, from 0 to {n_topics - 1}", into)
        merged[topic] = into
    emptied_and_kept = sorted(set(merged) & set(merged.values()))
    if emptied_and_kept:
        raise _fail(field, "a table whose topics holding others' words are not emptied themselves",
                    f"topic {emptied_and_kept[0]} in both roles")
    return merged


def checked_combined(runs: Any, found_in: Any, n_topics: int) -> tuple[list[str], list[int]]:
    """A combined run's sources and, per topic, in how many of them it was found (explorer.combining), from a file.

    ``runs``: the names of 2 to ``MAX_CONSENSUS_RUNS`` runs; ``found_in``: one whole number per
    topic, from 2 to the number of runs.
    """
    if not isinstance(runs, list) or not 2 <= len(runs) <= MAX_CONSENSUS_RUNS:
        raise _fail("combined_from", f"a list of 2 to {MAX_CONSENSUS_RUNS} run names",
                    runs if not isinstance(runs, list) else f"{len(runs)} entries")
    names = [_text(f"combined_from[{i}]", name, optional=False) for i, name in enumerate(runs)]
    if not isinstance(found_in, list) or len(found_in) != n_topics:
        raise _fail("found_in", f"a list of {n_topics} counts of runs, one per topic",
                    found_in if not isinstance(found_in, list) else f"{len(found_in)} entries")
    for i, count in enumerate(found_in):
        if isinstance(count, bool) or not isinstance(count, int) or not 2 <= count <= len(names):
            raise _fail(f"found_in[{i}]", f"a whole number from 2 to {len(names)}", count)
    return names, list(found_in)


def checked_extra(extra: Any, model: Any) -> dict:
    """A model file's ``extra`` with its ``"explorer"`` entry checked and normalised (raises on a bad field).

    The entry is optional (files saved by the command line have none); present, it must be a table.
    """
    if not isinstance(extra, dict):
        return {}
    if extra.get("explorer") is None:
        return {k: v for k, v in extra.items() if k != "explorer"}
    info = extra["explorer"]
    if not isinstance(info, dict):
        raise _fail("explorer", "a table of the explorer's settings", info)
    checked: dict[str, Any] = {}
    for name in ("run_id", "name", "collection_name"):
        checked[name] = _text(name, info.get(name))
    key = info.get("collection_key")
    if key is not None:
        try:
            key = check_collection_key(key)
        except ValueError:
            raise _fail("collection_key", "16 hexadecimal digits (a collection's key)", key) from None
    checked["collection_key"] = key
    if info.get("settings") is not None:
        checked["settings"] = checked_settings(info["settings"], model).to_dict()
    checked["labels"] = {str(k): v for k, v in checked_labels(info.get("labels"), model.n_topics).items()}
    if info.get("merged_from") is not None:  # a run made by merging another's topics (explorer.merging)
        checked["merged_from"] = _text("merged_from", info["merged_from"], optional=False)
        merged = checked_merged_into(info.get("merged_into"), model.n_topics)
        checked["merged_into"] = {str(k): v for k, v in merged.items()}
    if info.get("combined_from") is not None:  # a run of the topics several runs agree on (explorer.combining)
        checked["combined_from"], checked["found_in"] = checked_combined(info["combined_from"], info.get("found_in"),
                                                                         model.n_topics)
    return {**extra, "explorer": checked}
