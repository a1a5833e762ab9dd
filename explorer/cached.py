"""Streamlit caches around engine calls: samples, corpora, document-topic matrices, clouds.

Everything here is keyed by values (sample key, preprocessing, run id and training step),
so a cache entry is never wrong for another session; objects that cannot be hashed are
passed with a leading underscore and identified by the key arguments.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
import pandas as pd
import streamlit as st

from explorer import clouds, quality, samples, tables, timeline, uploads
from explorer.engine_api import (
    BoilerplateReport,
    CoherenceReference,
    KernelWarmUp,
    LanguageGuess,
    MessagesReport,
    TopicMatch,
    ldavis_topics,
    match_topics,
    messages_report,
    most_likely_topics,
    recurring_words,
    start_warm_up,
)
from explorer.runs import RunRecord, RunSettings, ThreadLimiter, warm_up_workloads
from explorer.storage import Collection

__all__ = [
    "boilerplate_report", "coherence_reference", "doc_topic", "kernel_warm_up", "language_guess", "limiter",
    "messages_left_out", "run_quality", "sample_collection", "sample_source", "searchable_texts", "source_collection",
    "time_columns", "topic_match", "word_cloud",
]


@st.cache_resource(show_spinner=False)
def limiter() -> ThreadLimiter:
    """The server-wide cap on training threads (one object for all sessions)."""
    return ThreadLimiter()


@st.cache_resource(show_spinner=False)
def kernel_warm_up() -> KernelWarmUp:
    """Load the engine's compiled kernels in the background, once per server, the first run's first.

    numba's first call costs a fixed fraction of a second, paid here while the visitor
    looks at the first page.  After an install the kernels must be compiled first (about a
    minute); the engine does that in a process of its own, and the runs, which the
    explorer makes with ``compile_in_background``, train with the NumPy reference meanwhile.
    """
    return start_warm_up(warm_up_workloads())


@st.cache_resource(show_spinner="Reading the sample collection…")
def sample_source(key: str) -> uploads.Source:
    sample = next(s for s in samples.SAMPLES if s.key == key)
    path = sample.file()
    return uploads.read_upload([(path.name, path.read_bytes())])


@st.cache_resource(show_spinner="Counting words…", max_entries=8)
def source_collection(source_id: str, name: str, origin: str, preprocessing: uploads.Preprocessing,
                      text_column: str | None, title_column: str | None, _source: uploads.Source) -> Collection:
    """The collection of a source under the given preprocessing (``source_id`` identifies ``_source``)."""
    corpus = uploads.build_corpus(_source, preprocessing, text_column, title_column)
    columns = (uploads.table_columns(_source, corpus, text_column)
               if isinstance(_source, uploads.TableSource) and text_column else None)
    return Collection.of(corpus, name, origin, columns)


@st.cache_resource(show_spinner=False, max_entries=16)
def language_guess(source_id: str, text_column: str | None, _source: uploads.Source) -> LanguageGuess | None:
    """:func:`uploads.language_guess` of a source's text, once per source (``source_id`` identifies ``_source``)."""
    return uploads.language_guess(_source, text_column)


def sample_collection(key: str, preprocessing: uploads.Preprocessing | None = None) -> Collection:
    sample = next(s for s in samples.SAMPLES if s.key == key)
    return source_collection(f"sample:{key}", sample.title, f"sample:{key}",
                             preprocessing or sample.preprocessing, sample.text_column, sample.title_column,
                             sample_source(key))


@st.cache_resource(show_spinner=False, max_entries=8)
def _time_columns(collection_key: str, columns_hash: int, _collection: Collection) -> list[str]:
    return timeline.time_columns(_collection.columns)


def time_columns(collection: Collection) -> list[str]:
    """The collection's columns of years or dates (see :func:`explorer.timeline.time_columns`)."""
    return _time_columns(collection.key, hash(collection.columns), collection)


@st.cache_resource(show_spinner="Reading the pages' text…", max_entries=4)
def _searchable_texts(collection_key: str, _collection: Collection) -> tuple[str, ...]:
    vectorizer = _collection.corpus.vectorizer  # None: a corpus saved before its reading was recorded
    readable = vectorizer.readable if vectorizer is not None else str
    return tuple(readable(text).lower() for text in _collection.corpus.texts or ())


def searchable_texts(collection: Collection) -> tuple[str, ...] | None:
    """Each document's text in lower case, as the Documents page searches it: without its markup when the
    collection's words were read without it (a search for "table" must not find every page's <table> tag).
    None for a collection of counts only."""
    if collection.corpus.texts is None:
        return None
    return _searchable_texts(collection.key, collection)


@st.cache_resource(show_spinner=False, max_entries=8)
def long_documents(collection_key: str, n_topics: int, _collection: Collection) -> tuple[uploads.LongDocument, ...]:
    """The documents long enough to fill one of ``n_topics`` topics (``uploads.long_documents_of``), once per
    collection and K (read-only)."""
    return tuple(uploads.long_documents_of(_collection.corpus, n_topics))


@st.cache_resource(show_spinner=False, max_entries=8)
def longest_documents(collection_key: str, _collection: Collection) -> tuple[uploads.LongDocument, ...]:
    """The documents the Data page offers to leave out (``uploads.longest_documents``), once per collection
    (read-only)."""
    return tuple(uploads.longest_documents(_collection.corpus))


@st.cache_resource(show_spinner="Finding the repeated lines left out…", max_entries=4)
def _boilerplate_report(collection_key: str, _collection: Collection) -> BoilerplateReport:
    return _collection.corpus.vectorizer.boilerplate_report(_collection.corpus.texts)


def boilerplate_report(collection: Collection) -> BoilerplateReport | None:
    """The blocks of repeated lines the collection's words were read without, how many documents hold each and the
    words they took (:meth:`engine.Vectorizer.boilerplate_report`); None when none were left out."""
    vectorizer = collection.corpus.vectorizer
    if collection.corpus.texts is None or vectorizer is None or not vectorizer.boilerplate:
        return None
    return _boilerplate_report(collection.key, collection)


@st.cache_resource(show_spinner="Counting what the messages' headers, quotes and signatures held…", max_entries=4)
def _messages_report(collection_key: str, _collection: Collection) -> MessagesReport:
    return messages_report(_collection.corpus.texts)


def messages_left_out(collection: Collection) -> MessagesReport | None:
    """How many documents were read as e-mail messages and the words their headers, quotes and signatures held
    (:func:`engine.messages_report`); None when the collection was not read as messages."""
    vectorizer = collection.corpus.vectorizer
    if collection.corpus.texts is None or vectorizer is None or not vectorizer.strip_messages:
        return None
    return _messages_report(collection.key, collection)


@st.cache_resource(show_spinner="Working out the topics of every document…", max_entries=6)
def doc_topic(run_id: str, step: int, collection_key: str, _model, _counts) -> np.ndarray:
    """E[theta_d] of every document of the collection under the model at ``step``."""
    return np.asarray(_model.transform(_counts))


@st.cache_resource(show_spinner=False, max_entries=6)
def main_documents(run_id: str, step: int, collection_key: str, _model, _corpus) -> quality.MainDocuments:
    """The document giving each of the model's topics the most words at ``step`` (``quality.main_documents_of``),
    from :func:`doc_topic`'s proportions: once per step, not on every rerun of the Topics page."""
    return quality.main_documents_of(doc_topic(run_id, step, collection_key, _model, _corpus.counts), _corpus)


@st.cache_resource(show_spinner="Counting which words share documents…", max_entries=4)
def coherence_reference(collection_key: str, n_test: int, seed: int, _collection: Collection) -> CoherenceReference:
    """The coherence reference of a run's training documents, built once per collection and split.

    Keyed by the collection's content key (a hash of its counts, vocabulary and document ids)
    and the split's size and seed, so runs on the same documents share it, across sessions
    too, and no session ever gets a reference built from other documents.  Read-only.
    """
    return quality.coherence_reference(_collection, n_test, seed)


@st.cache_resource(show_spinner="Counting the words the training documents share…", max_entries=16)
def recurring_training_words(collection_key: str, n_test: int, seed: int, _collection: Collection) -> int:
    """The words (tokens) of a run's training documents whose word is in two or more of them
    (``engine.recurring_words``), once per collection (its content key) and split."""
    settings = dataclasses.replace(RunSettings(), n_test=n_test, seed=seed)
    return recurring_words(quality.training_documents(_collection, settings))


@st.cache_resource(show_spinner=False, max_entries=64)
def _quality(run_id: str, version: tuple, hdp: bool, collection_key: str | None, _model_of: Callable[[], Any],
             _reference_of: Callable[[], CoherenceReference | None]) -> quality.TopicQuality:
    """Topic quality of a run's model at ``version`` (``collection_key`` identifies the reference).

    The model and the reference are asked for only here, on a miss: a training run's model
    is a fresh copy each time it is read.
    """
    return quality.topic_quality(_model_of(), _reference_of(), hdp)


def _topics_version(record: RunRecord) -> tuple:
    """What identifies a run's topics for a cache: its step, or while it trains the top words it publishes.

    A training run's step moves on many times between two redraws (every second); its
    published top words (quality.N_TOP per topic) change only when its topics do.
    """
    snap = record.snapshot()
    if snap is not None and snap.active and snap.top_words:
        return ("topics", snap.top_words)
    return ("step", record.model_step)  # read before the model: a newer model under an older step is redone next time


@st.cache_resource(show_spinner=False, max_entries=16)
def _intertopic(run_id: str, version: tuple, labels: tuple[str, ...], _model) -> pd.DataFrame:
    return tables.intertopic_frame(_model, labels, ldavis_topics(_model))


def intertopic_points(record: RunRecord, model, labels: Sequence[str]) -> pd.DataFrame:
    """The intertopic map's circles for ``model``, the run's current model; computed once per version of its topics."""
    return _intertopic(record.run_id, _topics_version(record), tuple(labels), model)


@st.cache_resource(show_spinner=False, max_entries=16)
def _match(run_id: str, version: tuple, other_id: str, other_version: tuple,
           _models: Callable[[], tuple]) -> TopicMatch:
    model, vocabulary, other, other_vocabulary = _models()
    # a vocabulary not known (None) is the model's own, if it has one: runs of other collections line up by word
    return match_topics(model, other, vocabulary=vocabulary, other_vocabulary=other_vocabulary)


def topic_match(record: RunRecord, other: RunRecord) -> TopicMatch:
    """``record``'s topics paired with ``other``'s (``engine.match_topics``), once per version of both runs' topics."""
    version, other_version = _topics_version(record), _topics_version(other)  # before the models, as run_quality
    return _match(record.run_id, version, other.run_id, other_version,
                  lambda: (record.model(), record.vocabulary, other.model(), other.vocabulary))


def run_quality(record: RunRecord) -> quality.TopicQuality | None:
    """Shares, live topics and coherence of a run's model, computed once per version of its topics.

    A stopped, finished or loaded run's version is its step; a training run's is the top
    words it publishes (the words coherence is scored on): it is scored again only when the
    run has new topics, and its live count is refreshed with them.
    """
    if record.run is None and record.loaded is None:
        return None
    version = _topics_version(record)
    collection, settings = record.collection, record.settings

    def reference() -> CoherenceReference | None:
        return None if collection is None else coherence_reference(
            collection.key, settings.n_test, settings.seed, collection)

    return _quality(record.run_id, version, settings.model == "HDP",
                    None if collection is None else collection.key, record.model, reference)


@st.cache_resource(show_spinner=False, max_entries=12)
def word_topic_of_document(run_id: str, step: int, row: int, _model, _counts, _theta) -> dict[int, int]:
    """Most likely topic of each word (vocabulary index) of one document."""
    document = _counts[row]
    topics = most_likely_topics(_model, document, doc_topic=_theta[None, :])
    return {int(w): int(k) for w, k in zip(document.indices, topics, strict=True)}


@st.cache_data(show_spinner=False, max_entries=300)
def word_cloud(words: tuple[tuple[str, float], ...], color: str) -> clouds.CloudPicture:
    """A topic's word cloud and the words it left out (cached on the rounded weights: redrawn only on change)."""
    return clouds.word_cloud(dict(words), color)
