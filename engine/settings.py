"""Every ``SVI_TOPICS_*`` environment setting, in one registry: name, type, default, meaning.

This is the only module of ``engine`` and ``explorer`` that reads the environment
(``tests/engine/test_settings.py`` checks it, and checks that the README's table of settings is
:func:`markdown_table`).  A setting is read when it is asked for, so a change to the
environment applies to the next read; a value that cannot be parsed or is out of range
raises :class:`SettingError` naming the variable, the value and what is allowed.

Examples
--------
>>> from engine import settings
>>> settings.get("SVI_TOPICS_MAX_TRAINING_THREADS")  # unset: the default
2
"""

from __future__ import annotations

import math
import os
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from engine.errors import EngineError

__all__ = ["SettingError"]  # the rest is used as settings.get(...), settings.SETTINGS

_TRUE = ("1", "true", "yes", "on")
_FALSE = ("0", "false", "no", "off")


class SettingError(EngineError, ValueError):
    """An ``SVI_TOPICS_*`` environment variable holds a value its setting does not allow."""


def _number(kind: type, minimum: float, inclusive: bool) -> Callable[[str, str], Any]:
    what = ("a non-negative number" if inclusive and minimum == 0 else "a positive number") + (
        " (a whole number)" if kind is int else "")

    def parse(name: str, raw: str) -> int | float:
        try:
            value = float(raw)
        except ValueError:
            value = math.nan
        ok = math.isfinite(value) and (value >= minimum if inclusive else value > minimum)
        if not ok or (kind is int and not value.is_integer()):
            raise SettingError(f"{name} must be {what}, got {raw!r}")
        return int(value) if kind is int else value
    parse.allowed = what  # type: ignore[attr-defined]
    return parse


def _text(name: str, raw: str) -> str:
    return raw


_text.allowed = "a text"  # type: ignore[attr-defined]


def _path(name: str, raw: str) -> Path:
    return Path(raw).expanduser()


_path.allowed = "a folder path (``~`` expanded)"  # type: ignore[attr-defined]


def _flag(name: str, raw: str) -> bool:
    value = raw.strip().lower()
    if value in _TRUE or value in _FALSE:
        return value in _TRUE
    raise SettingError(f"{name} must be one of {', '.join(_TRUE + _FALSE)}, got {raw!r}")


_flag.allowed = "1/0, true/false, yes/no, on/off"  # type: ignore[attr-defined]


def _choice(*choices: str) -> Callable[[str, str], str]:
    def parse(name: str, raw: str) -> str:
        value = raw.strip().lower()
        if value not in choices:
            raise SettingError(f"{name} must be one of {', '.join(choices)}, got {raw!r}")
        return value
    parse.allowed = " or ".join(choices)  # type: ignore[attr-defined]
    return parse


@dataclass(frozen=True)
class Setting:
    """One environment setting.

    Attributes
    ----------
    name : str
        The variable, ``SVI_TOPICS_...``.
    parse : callable
        ``parse(name, raw) -> value``; raises :class:`SettingError` for a bad value.
    default : object
        The value when the variable is unset or blank (None: "not set", the reader decides).
    shown_default : str
        The default as the README shows it.
    description : str
        What it does, one sentence or two (the README's text).
    used_by : str
        ``"engine"`` or ``"explorer"``.
    """

    name: str
    parse: Callable[[str, str], Any]
    default: Any
    shown_default: str
    description: str
    used_by: str

    @property
    def allowed(self) -> str:
        return getattr(self.parse, "allowed", "")

    def read(self, environ: Mapping[str, str] | None = None) -> Any:
        """The value in ``environ`` (default ``os.environ``), parsed and checked, or the default."""
        raw = (os.environ if environ is None else environ).get(self.name)
        if raw is None or not raw.strip():
            return self.default
        return self.parse(self.name, raw.strip() if self.parse is not _text else raw)


_POSITIVE_INT = _number(int, 0, inclusive=False)
_POSITIVE = _number(float, 0, inclusive=False)
_NON_NEGATIVE = _number(float, 0, inclusive=True)

SETTINGS: tuple[Setting, ...] = (
    # engine/limits.py: what an input may declare or expand to
    Setting("SVI_TOPICS_MAX_DOCUMENTS", _POSITIVE_INT, 50_000_000, "50000000",
            "Documents (rows) a corpus file may declare or hold.", "engine"),
    Setting("SVI_TOPICS_MAX_VOCABULARY", _POSITIVE_INT, 10_000_000, "10000000",
            "Words (columns) a corpus or model file may declare or hold.", "engine"),
    Setting("SVI_TOPICS_MAX_ENTRIES", _POSITIVE_INT, 2_000_000_000, "2000000000",
            "Nonzero (document, word) entries a bag-of-words file may declare.", "engine"),
    Setting("SVI_TOPICS_MAX_DENSE_CELLS", _POSITIVE_INT, 500_000_000, "500000000",
            "Cells of one dense array (a Matrix Market array file, a model file's topics).", "engine"),
    Setting("SVI_TOPICS_MAX_EXPANDED_MB", _POSITIVE, 1000.0, "1000",
            "Megabytes any compressed input (zip, gzip, model file, upload) may expand to; lower it on a "
            "shared server.", "engine"),
    Setting("SVI_TOPICS_MAX_EXPORT_CELLS", _POSITIVE_INT, 10_000_000, "10000000",
            "Rows (topics x words) of a full export's topic-word table; a bigger model's export is refused.",
            "engine"),
    Setting("SVI_TOPICS_MAX_DOCUMENT_SECONDS", _POSITIVE, 60.0, "60",
            "Seconds the reader may spend on one PDF file; a slower one is listed as unreadable.", "engine"),
    # explorer: folders, samples, workspaces
    Setting("SVI_TOPICS_HOME", _path, None, "`~/.svi-topics`",
            "The explorer's folder: collections, checkpoints, workspaces.", "explorer"),
    Setting("SVI_TOPICS_CHECKPOINTS", _path, None, "`<home>/checkpoints`",
            "Where the desktop mode (`SVI_TOPICS_WORKSPACE=shared`) keeps checkpoints.", "explorer"),
    Setting("SVI_TOPICS_WORKSPACE", _choice("isolated", "shared"), "isolated", "`isolated`",
            "`isolated`: each browser session has a private workspace (a server); `shared`: one workspace "
            "for every session (a single-user desktop).", "explorer"),
    Setting("SVI_TOPICS_SAMPLE_DATA", _path, None, "the bundled `sample_data/`",
            "Folder holding the sample collections.", "explorer"),
    Setting("SVI_TOPICS_DEFAULT_SAMPLE", _text, None, "the first available (`sotu`)",
            "The sample a new session opens: `sotu`, `synthetic` or `jargon`.", "explorer"),
    Setting("SVI_TOPICS_AUTOSTART", _flag, True, "`1`",
            "Start a training run on the sample when a session opens.", "explorer"),
    # explorer: uploads
    Setting("SVI_TOPICS_MAX_UPLOAD_FILES", _POSITIVE_INT, 5_000, "5000",
            "Files one upload (a zip archive included) may hold.", "explorer"),
    Setting("SVI_TOPICS_MAX_UPLOAD_MB", _POSITIVE, 100.0, "100",
            "Megabytes one uploaded file may have.", "explorer"),
    Setting("SVI_TOPICS_MAX_TOTAL_UPLOAD_MB", _POSITIVE, 200.0, "200",
            "Megabytes the files of one upload may have together.", "explorer"),
    # explorer: training runs
    Setting("SVI_TOPICS_MAX_TRAINING_THREADS", _POSITIVE_INT, 2, "2",
            "Runs that may train at once on the server (paused runs count).", "explorer"),
    Setting("SVI_TOPICS_CHECKPOINT_SECONDS", _POSITIVE, 30.0, "30",
            "Seconds between two checkpoints of a training run.", "explorer"),
    Setting("SVI_TOPICS_MAX_CHECKPOINTS", _POSITIVE_INT, 30, "30",
            "Checkpoints a workspace keeps (the oldest are deleted).", "explorer"),
    Setting("SVI_TOPICS_HEARTBEAT_TIMEOUT", _POSITIVE, 600.0, "600",
            "Seconds a run trains on without a page asking for it (a closed tab) before it stops.", "explorer"),
    Setting("SVI_TOPICS_ORPHAN_GRACE", _NON_NEGATIVE, 120.0, "120",
            "Seconds the runs of a closed browser session keep training before they stop.", "explorer"),
    Setting("SVI_TOPICS_DASK_SCHEDULER", _text, "", "unset (this server)",
            "The Dask scheduler runs train on: an address (`tcp://host:8786`) or `local:N` (N worker "
            "processes on this server, N at most its CPUs). Chosen by the server's operator: with isolated "
            "workspaces (a shared server) the Train page offers only this server and this scheduler, and the "
            "server refuses any other; any address or `local:N` only with `SVI_TOPICS_WORKSPACE=shared`.",
            "explorer"),
)

_BY_NAME = {setting.name: setting for setting in SETTINGS}


def _setting(name: str) -> Setting:
    try:
        return _BY_NAME[name]
    except KeyError:
        raise KeyError(f"{name!r} is not a registered setting; engine/settings.py lists them") from None


def get(name: str) -> Any:
    """The value of the setting ``name`` now (parsed, checked), or its default if unset or blank."""
    return _setting(name).read()


def is_set(name: str) -> bool:
    """Whether the variable ``name`` (a registered setting) is set to something not blank."""
    return bool(os.environ.get(_setting(name).name, "").strip())


def markdown_table() -> str:
    """The README's table of settings: variable, default, allowed values, meaning."""
    lines = ["| variable | default | allowed | meaning |", "| --- | --- | --- | --- |"]
    lines += [f"| `{s.name}` | {s.shown_default} | {s.allowed} | {s.description} |" for s in SETTINGS]
    return "\n".join(lines) + "\n"
