"""The engine names the explorer uses, gathered in one place.

Pages and helpers import engine functionality from here, so a renamed or moved
engine function is adapted in one file.  Nothing here computes anything: topic order,
topics in use, topic coherence, relevance ranking, word colouring, top documents and word counts all
come from the engine's public API.
"""

from __future__ import annotations

from engine import (
    DEFAULT_BATCH_SIZE,
    DEFAULT_DOC_TRUNCATION,
    DEFAULT_HDP_TOPICS,
    DEFAULT_KAPPA,
    DEFAULT_TAU,
    GENERAL_DIVERGENCE,
    HDP,
    LDA,
    STOP_WORD_LANGUAGES,
    SVI,
    BatchVI,
    CoherenceReference,
    Corpus,
    DroppedDocument,
    EmptyCorpusError,
    EmptyVocabularyError,
    EngineError,
    Limits,
    LoadedModel,
    MissingColumnError,
    ModelFileError,
    Snapshot,
    TrainingRun,
    Vectorizer,
    VocabularyMismatchError,
    atomic_file,
    current_limits,
    decode_text,
    default_target_docs,
    detect_encoding,
    heldout_split,
    intertopic_coordinates,
    ldavis_topics,
    load_model,
    most_likely_topics,
    predictive_log_likelihood,
    read_ldac,
    read_table,
    read_txt_files,
    read_uci,
    read_zip,
    save_model,
    settings,  # the SVI_TOPICS_* environment settings, read only there
    step_size,
    text_segments,
    top_corpus_words,
    top_documents,
    top_relevant_words,
)
from engine.inference.distributed import canonical_address  # "local:01" -> "local:1", not in engine.__all__
from engine.inference.distributed import connect as connect_cluster  # a Dask client, not in engine.__all__
from engine.inference.run import (  # the default run length's parts, for the Train page's help; not in engine.__all__
    DEFAULT_PASSES,
    MAX_DEFAULT_TARGET_DOCS,
    MIN_DEFAULT_TARGET_DOCS,
)
from engine.inference.warmup import (  # the background compile, not in engine.__all__
    KernelWarmUp,
    Workload,
    start_warm_up,
)
from engine.io.exports import (  # label helpers and the zip of a full export, not in engine.__all__
    default_label,
    export_files,
    export_tables,
    unique_labels,
    zip_files,
)

__all__ = [
    "DEFAULT_BATCH_SIZE",
    "DEFAULT_DOC_TRUNCATION",
    "DEFAULT_HDP_TOPICS",
    "DEFAULT_KAPPA",
    "DEFAULT_PASSES",
    "DEFAULT_TAU",
    "GENERAL_DIVERGENCE",
    "HDP",
    "LDA",
    "MAX_DEFAULT_TARGET_DOCS",
    "MIN_DEFAULT_TARGET_DOCS",
    "STOP_WORD_LANGUAGES",
    "SVI",
    "BatchVI",
    "CoherenceReference",
    "Corpus",
    "DroppedDocument",
    "EmptyCorpusError",
    "EmptyVocabularyError",
    "EngineError",
    "KernelWarmUp",
    "Limits",
    "LoadedModel",
    "MissingColumnError",
    "ModelFileError",
    "Snapshot",
    "TrainingRun",
    "Vectorizer",
    "VocabularyMismatchError",
    "Workload",
    "atomic_file",
    "canonical_address",
    "connect_cluster",
    "current_limits",
    "decode_text",
    "default_label",
    "default_target_docs",
    "detect_encoding",
    "export_files",
    "export_tables",
    "heldout_split",
    "intertopic_coordinates",
    "ldavis_topics",
    "load_model",
    "most_likely_topics",
    "predictive_log_likelihood",
    "read_ldac",
    "read_table",
    "read_txt_files",
    "read_uci",
    "read_zip",
    "save_model",
    "settings",
    "start_warm_up",
    "step_size",
    "text_segments",
    "top_corpus_words",
    "top_documents",
    "top_relevant_words",
    "topic_order",
    "unique_labels",
    "zip_files",
]


def topic_order(model):
    """``model.topic_order()``: topic indices, heaviest corpus weight first (LDA and HDP)."""
    return model.topic_order()


