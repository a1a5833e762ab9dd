"""Limits on what an input may declare or expand to, in one place.

Every reader checks a file's declared sizes (a UCI or Matrix Market header, an
``.npy`` header inside a model file, a zip entry's uncompressed size) against these
limits *before* it allocates anything, and checks the declared sizes against the
file's real content, so a 20-byte file cannot ask for gigabytes.  Each limit can be
set by an environment variable (read when :func:`current_limits` is called) or passed
explicitly; an input beyond a limit raises :class:`engine.LimitExceededError`, whose
message names the limit, its setting and the value that exceeded it.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

from engine import settings
from engine.errors import LimitExceededError

__all__ = ["Limits", "current_limits"]

_MB = 1_000_000  # megabytes as the explorer's upload limits count them


@dataclass(frozen=True)
class Limits:
    """Upper bounds on inputs; the defaults fit a collection of millions of documents on one machine.

    Attributes
    ----------
    max_documents : int
        Documents (rows) a file may declare or hold (``SVI_TOPICS_MAX_DOCUMENTS``).
    max_vocabulary : int
        Words (columns) a file may declare or hold (``SVI_TOPICS_MAX_VOCABULARY``).
    max_entries : int
        Nonzero (document, word) entries a bag-of-words file may declare
        (``SVI_TOPICS_MAX_ENTRIES``).
    max_dense_cells : int
        Cells of a dense array (a Matrix Market "array" file, or one array of a model
        file: lambda is n_topics x n_words) (``SVI_TOPICS_MAX_DENSE_CELLS``).
    max_expanded_mb : float
        Megabytes (10^6 bytes) any compressed input may expand to: a zip archive's
        entries together, a gzip file, the arrays of a model file
        (``SVI_TOPICS_MAX_EXPANDED_MB``).  On a shared server set it lower.
    max_export_cells : int
        Rows of a full export's topic-word table, n_topics x n_words: the explorer builds the
        export's zip in memory (``SVI_TOPICS_MAX_EXPORT_CELLS``).
    max_document_seconds : float
        Seconds the reader may spend on one PDF file before it is reported as unreadable
        (``SVI_TOPICS_MAX_DOCUMENT_SECONDS``; :mod:`engine.data.documents`).
    """

    max_documents: int = 50_000_000
    max_vocabulary: int = 10_000_000
    max_entries: int = 2_000_000_000
    max_dense_cells: int = 500_000_000
    max_expanded_mb: float = 1000.0
    max_export_cells: int = 10_000_000
    max_document_seconds: float = 60.0

    @property
    def max_expanded_bytes(self) -> int:
        return int(self.max_expanded_mb * _MB)

    def check(self, name: str, value: int | float, what: str) -> None:
        """Raise LimitExceededError if ``value`` exceeds the limit ``name``; ``what`` names the value.

        ``name`` is a field or ``"max_expanded_bytes"`` (``max_expanded_mb`` in bytes).
        """
        limit = getattr(self, name)
        if value <= limit:
            return
        setting = name
        shown = f"{name} = {_format(limit)}"
        if name == "max_expanded_bytes":  # set in megabytes
            setting = "max_expanded_mb"
            shown = f"max_expanded_mb = {_format(self.max_expanded_mb)} ({_format(limit)} bytes)"
        raise LimitExceededError(
            f"{what} is {_format(value)}, above the limit {shown}; "
            f"if the input is genuine, raise it with the environment variable {setting_name(setting)}"
        )


def setting_name(limit: str) -> str:
    """The environment variable that sets ``limit`` (``max_documents`` -> ``SVI_TOPICS_MAX_DOCUMENTS``)."""
    return "SVI_TOPICS_" + limit.upper()


def current_limits() -> Limits:
    """The limits in force: the defaults, overridden by the ``SVI_TOPICS_MAX_*`` environment variables.

    Raises :class:`engine.settings.SettingError` (a ``ValueError``) naming the variable if one is set to
    something other than a positive number (see :mod:`engine.settings`, which reads them).
    """
    values = {field.name: settings.get(setting_name(field.name)) for field in dataclasses.fields(Limits)
              if settings.is_set(setting_name(field.name))}
    return Limits(**values)


def _format(value: int | float) -> str:
    return f"{value:,}" if float(value).is_integer() else f"{value:,.1f}"
