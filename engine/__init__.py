"""SVI topic engine: LDA and the HDP topic model by stochastic variational inference.

Implements Hoffman, Blei, Wang & Paisley, "Stochastic Variational Inference"
(JMLR 2013) in NumPy/SciPy.  This module re-exports the public names only.
"""

from engine.errors import (
    CorpusFormatError,
    DivergedError,
    EmptyCorpusError,
    EmptyVocabularyError,
    EngineError,
    FileDecodingError,
    MissingColumnError,
    ModelFileError,
    UnsafeArchiveError,
    VocabularyMismatchError,
)
from engine.evaluation import predictive_log_likelihood
from engine.lda import LDA
from engine.schedule import step_size
from engine.svi import SVI, BatchVI, StepReport

__all__ = [
    "LDA",
    "SVI",
    "BatchVI",
    "CorpusFormatError",
    "DivergedError",
    "EmptyCorpusError",
    "EmptyVocabularyError",
    "EngineError",
    "FileDecodingError",
    "MissingColumnError",
    "ModelFileError",
    "StepReport",
    "UnsafeArchiveError",
    "VocabularyMismatchError",
    "predictive_log_likelihood",
    "step_size",
]
