"""Exceptions raised by the engine.

Every engine error subclasses :class:`EngineError` *and* the builtin exception it
specialises, so callers can catch either ``EngineError`` (anything the engine
rejected) or the familiar builtin (``ValueError``, ``OSError``...).  Messages say
what was wrong and what to do about it; the explorer shows them verbatim.
"""

from __future__ import annotations

from sklearn.exceptions import NotFittedError as _SklearnNotFittedError

__all__ = [
    "ClusterError",
    "CorpusFormatError",
    "DivergedError",
    "EmptyCorpusError",
    "EmptyVocabularyError",
    "EngineError",
    "FileDecodingError",
    "LimitExceededError",
    "MissingColumnError",
    "ModelFileError",
    "NotFittedError",
    "UnsafeArchiveError",
    "VocabularyMismatchError",
]


class EngineError(Exception):
    """Base class of every error the engine raises on purpose."""


class ClusterError(EngineError, RuntimeError):
    """A Dask cluster could not be reached or could not finish a step; the model was not updated."""


class EmptyCorpusError(EngineError, ValueError):
    """The input holds no documents (or no document with any text)."""


class EmptyVocabularyError(EngineError, ValueError):
    """No word survived tokenisation and the frequency filters."""


class FileDecodingError(EngineError, ValueError):
    """A file is binary or in an encoding that could not be detected."""


class MissingColumnError(EngineError, KeyError):
    """A table has no column of the requested name."""

    def __str__(self) -> str:  # KeyError would otherwise quote the message
        return str(self.args[0]) if self.args else ""


class UnsafeArchiveError(EngineError, ValueError):
    """A zip archive has an absolute or ``..`` entry, or is too large once expanded."""


class LimitExceededError(EngineError, ValueError):
    """An input declares or expands to more than a limit of :mod:`engine.limits` allows."""


class CorpusFormatError(EngineError, ValueError):
    """A bag-of-words or corpus file is malformed."""


class VocabularyMismatchError(EngineError, ValueError):
    """Documents and model disagree on the number of words in the vocabulary."""


class ModelFileError(EngineError, ValueError):
    """A model or checkpoint file is malformed, foreign, or from an unknown version."""


class NotFittedError(EngineError, RuntimeError, _SklearnNotFittedError):
    """The model has no topics yet: fit it, train it with :class:`engine.SVI`, or call ``initialize``.

    Also scikit-learn's ``NotFittedError`` (a ``ValueError`` and ``AttributeError``), so
    ``sklearn.utils.validation.check_is_fitted`` and ``hasattr`` treat the models as
    scikit-learn estimators; ``RuntimeError`` is what the engine raised before.
    """


class DivergedError(EngineError, FloatingPointError):
    """The global parameters became non-finite after an update."""
