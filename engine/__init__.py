"""SVI topic engine: LDA and the HDP topic model by stochastic variational inference.

Implements Hoffman, Blei, Wang & Paisley, "Stochastic Variational Inference"
(JMLR 2013) in NumPy/SciPy.  This module re-exports the public names only; the
subpackages hold the code by concern:

- ``engine.models``: LDA and the HDP, their expectations, the lazily decayed topics;
- ``engine.inference``: the schedule, SVI and batch loops, held-out metric, coherence, runs;
- ``engine.kernels``: the local step's NumPy reference and numba implementations;
- ``engine.data``: corpora, text readers, bag-of-words formats, on-disk and synthetic corpora;
- ``engine.io``: model files, atomic writes, exports to gensim and pyLDAvis.

Training progress and warnings go to the ``engine`` logger (``logging.getLogger("engine")``),
which is silent until the application configures logging.
"""

import importlib.metadata
import logging

from engine.data.boilerplate import (
    BoilerplateBlock,
    BoilerplateReport,
    boilerplate_report,
    find_boilerplate,
    remove_boilerplate,
)
from engine.data.bow_formats import (
    load_corpus,
    read_ldac,
    read_mtx,
    read_uci,
    read_vocabulary,
    write_ldac,
    write_mtx,
    write_uci,
)
from engine.data.copies import NEAR_COPY_SIMILARITY, NearCopies, find_copies, find_near_copies, find_text_copies
from engine.data.corpus import LEFT_OUT_REASON, TOKEN_PATTERN, Corpus, DroppedDocument
from engine.data.documents import (
    DOCUMENT_SUFFIXES,
    DocumentReader,
    DocumentText,
    is_document_file,
    pdf_pages_text,
    read_documents,
)
from engine.data.gensim_corpus import from_gensim
from engine.data.language import LanguageGuess, guess_language
from engine.data.markdown import MARKDOWN_SUFFIXES, markdown_text
from engine.data.markup import holds_markup, strip_markup
from engine.data.mbox import mbox_frame, mbox_rows
from engine.data.messages import MessagesReport, holds_messages, is_message, message_text, messages_report
from engine.data.ondisk import DiskCorpus, DiskCounts
from engine.data.passages import PASSAGE_WORDS, passage_documents, passage_spans, split_passages
from engine.data.phrases import Phrase, find_phrases
from engine.data.rst import RST_SUFFIXES, rst_text
from engine.data.semisynthetic import SemiSyntheticGenerator
from engine.data.sphinx import sphinx_generated_pages, sphinx_sources, sphinx_unread
from engine.data.spreadsheets import SHEET_CELLS, SHEET_TITLE_ROWS, SPREADSHEET_SUFFIXES, Sheet, read_sheet
from engine.data.synthetic import SyntheticCorpus, make_synthetic_corpus, synthetic_themes
from engine.data.text import (
    TEXT_SUFFIXES,
    RawDocument,
    RawDocuments,
    SkippedFile,
    decode_text,
    detect_encoding,
    read_folder,
    read_table,
    read_txt_files,
    read_zip,
    skipped_by_reason,
    table_format,
)
from engine.data.vectorizer import (
    STOP_WORD_LANGUAGES,
    STORED_TOKEN_PATTERNS,
    UNICODE_TOKEN_PATTERN,
    TextCounts,
    Vectorizer,
    languages_of,
    stop_word_list,
    token_pattern_for,
)
from engine.data.word_forms import (
    WORD_FORM_LANGUAGES,
    WordForm,
    find_word_forms,
    has_word_forms,
    merged_forms,
    word_form_languages,
)
from engine.errors import (
    ClusterError,
    CorpusFormatError,
    DivergedError,
    EmptyCorpusError,
    EmptyVocabularyError,
    EngineError,
    FileDecodingError,
    LimitExceededError,
    MissingColumnError,
    ModelFileError,
    NotFittedError,
    UnsafeArchiveError,
    VocabularyMismatchError,
)
from engine.inference.coherence import CoherenceReference, topic_coherence
from engine.inference.consensus import MAX_CONSENSUS_RUNS, TopicConsensus, consensus_topics
from engine.inference.distributed import DaskLocalStep
from engine.inference.evaluation import predictive_log_likelihood
from engine.inference.heldout import HeldoutSplit, heldout_split, splittable_documents
from engine.inference.matching import MAX_MATCHED_TOPICS, TopicMatch, match_topics
from engine.inference.quality import (
    COHERENCE_TOP_WORDS,
    HDP_FEW_DOCUMENTS,
    HDP_FEW_WORDS,
    HDP_RULE_TOPICS,
    ONE_DOCUMENT_MIN_DOCUMENTS,
    ONE_DOCUMENT_SHARE,
    SHORT_DOCUMENT_WORDS,
    TopicQuality,
    hdp_rule_topics,
    hdp_small_collection,
    long_documents,
    main_documents,
    recurring_words,
    topic_quality,
)
from engine.inference.run import Snapshot, TrainingRun, default_target_docs
from engine.inference.schedule import (
    DEFAULT_ADAPTIVE_INIT_BATCHES,
    DEFAULT_BATCH_SIZE,
    DEFAULT_KAPPA,
    DEFAULT_TAU,
    MAX_ADAPTIVE_INIT_BATCHES,
    STEP_SIZES,
    AdaptiveStepSize,
    step_size,
)
from engine.inference.svi import SVI, BatchVI, StepReport
from engine.inference.warmup import warm_up_kernels
from engine.io.atomic import atomic_file
from engine.io.exports import export_files, export_tables, write_export
from engine.io.gensim_export import to_gensim
from engine.io.model_files import LoadedModel, load_model, save_model
from engine.io.pyldavis import LDAvisInputs, ldavis_inputs, ldavis_topics, to_pyldavis
from engine.io.records import EvalPoint, SettingChange
from engine.limits import Limits, current_limits
from engine.models.hdp import DEFAULT_DOC_TRUNCATION, DEFAULT_HDP_TOPICS, HDP, HDPStats
from engine.models.inspection import (
    GENERAL_DIVERGENCE,
    most_likely_topics,
    relevance,
    text_segments,
    top_corpus_words,
    top_documents,
    top_relevant_words,
    word_marginal,
)
from engine.models.intertopic import intertopic_coordinates, jensen_shannon, principal_coordinates
from engine.models.lda import LDA, LDAStats
from engine.settings import SettingError

logging.getLogger(__name__).addHandler(logging.NullHandler())

try:
    __version__ = importlib.metadata.version("svi-topics")
except importlib.metadata.PackageNotFoundError:  # a checkout that was never installed
    __version__ = "unknown"

__all__ = [
    "COHERENCE_TOP_WORDS",
    "DEFAULT_ADAPTIVE_INIT_BATCHES",
    "DEFAULT_BATCH_SIZE",
    "DEFAULT_DOC_TRUNCATION",
    "DEFAULT_HDP_TOPICS",
    "DEFAULT_KAPPA",
    "DEFAULT_TAU",
    "DOCUMENT_SUFFIXES",
    "GENERAL_DIVERGENCE",
    "HDP",
    "HDP_FEW_DOCUMENTS",
    "HDP_FEW_WORDS",
    "HDP_RULE_TOPICS",
    "LDA",
    "LEFT_OUT_REASON",
    "MARKDOWN_SUFFIXES",
    "MAX_ADAPTIVE_INIT_BATCHES",
    "MAX_CONSENSUS_RUNS",
    "MAX_MATCHED_TOPICS",
    "NEAR_COPY_SIMILARITY",
    "ONE_DOCUMENT_MIN_DOCUMENTS",
    "ONE_DOCUMENT_SHARE",
    "PASSAGE_WORDS",
    "RST_SUFFIXES",
    "SHEET_CELLS",
    "SHEET_TITLE_ROWS",
    "SHORT_DOCUMENT_WORDS",
    "SPREADSHEET_SUFFIXES",
    "STEP_SIZES",
    "STOP_WORD_LANGUAGES",
    "STORED_TOKEN_PATTERNS",
    "SVI",
    "TEXT_SUFFIXES",
    "TOKEN_PATTERN",
    "UNICODE_TOKEN_PATTERN",
    "WORD_FORM_LANGUAGES",
    "AdaptiveStepSize",
    "BatchVI",
    "BoilerplateBlock",
    "BoilerplateReport",
    "ClusterError",
    "CoherenceReference",
    "Corpus",
    "CorpusFormatError",
    "DaskLocalStep",
    "DiskCorpus",
    "DiskCounts",
    "DivergedError",
    "DocumentReader",
    "DocumentText",
    "DroppedDocument",
    "EmptyCorpusError",
    "EmptyVocabularyError",
    "EngineError",
    "EvalPoint",
    "FileDecodingError",
    "HDPStats",
    "HeldoutSplit",
    "LDAStats",
    "LDAvisInputs",
    "LanguageGuess",
    "LimitExceededError",
    "Limits",
    "LoadedModel",
    "MessagesReport",
    "MissingColumnError",
    "ModelFileError",
    "NearCopies",
    "NotFittedError",
    "Phrase",
    "RawDocument",
    "RawDocuments",
    "SemiSyntheticGenerator",
    "SettingChange",
    "SettingError",
    "Sheet",
    "SkippedFile",
    "Snapshot",
    "StepReport",
    "SyntheticCorpus",
    "TextCounts",
    "TopicConsensus",
    "TopicMatch",
    "TopicQuality",
    "TrainingRun",
    "UnsafeArchiveError",
    "Vectorizer",
    "VocabularyMismatchError",
    "WordForm",
    "atomic_file",
    "boilerplate_report",
    "consensus_topics",
    "current_limits",
    "decode_text",
    "default_target_docs",
    "detect_encoding",
    "export_files",
    "export_tables",
    "find_boilerplate",
    "find_copies",
    "find_near_copies",
    "find_phrases",
    "find_text_copies",
    "find_word_forms",
    "from_gensim",
    "guess_language",
    "has_word_forms",
    "hdp_rule_topics",
    "hdp_small_collection",
    "heldout_split",
    "holds_markup",
    "holds_messages",
    "intertopic_coordinates",
    "is_document_file",
    "is_message",
    "jensen_shannon",
    "languages_of",
    "ldavis_inputs",
    "ldavis_topics",
    "load_corpus",
    "load_model",
    "long_documents",
    "main_documents",
    "make_synthetic_corpus",
    "markdown_text",
    "match_topics",
    "mbox_frame",
    "mbox_rows",
    "merged_forms",
    "message_text",
    "messages_report",
    "most_likely_topics",
    "passage_documents",
    "passage_spans",
    "pdf_pages_text",
    "predictive_log_likelihood",
    "principal_coordinates",
    "read_documents",
    "read_folder",
    "read_ldac",
    "read_mtx",
    "read_sheet",
    "read_table",
    "read_txt_files",
    "read_uci",
    "read_vocabulary",
    "read_zip",
    "recurring_words",
    "relevance",
    "remove_boilerplate",
    "rst_text",
    "save_model",
    "skipped_by_reason",
    "sphinx_generated_pages",
    "sphinx_sources",
    "sphinx_unread",
    "split_passages",
    "splittable_documents",
    "step_size",
    "stop_word_list",
    "strip_markup",
    "synthetic_themes",
    "table_format",
    "text_segments",
    "to_gensim",
    "to_pyldavis",
    "token_pattern_for",
    "top_corpus_words",
    "top_documents",
    "top_relevant_words",
    "topic_coherence",
    "topic_quality",
    "warm_up_kernels",
    "word_form_languages",
    "word_marginal",
    "write_export",
    "write_ldac",
    "write_mtx",
    "write_uci",
]
