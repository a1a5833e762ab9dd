"""Session state: the only module that reads or writes ``st.session_state``.

Pages use the widget keys of :class:`Keys` and the functions below; they never index
``st.session_state`` themselves.  The runs of a session live in a :class:`SessionRuns`
kept in the session state; a session-scoped cache resource (a "lease") notices when the
browser tab goes away and stops the session's runs unless it comes back within a
grace period.
"""

from __future__ import annotations

import os
import time
from typing import Any

import streamlit as st

from explorer import cached, samples
from explorer.engine_api import DEFAULT_HDP_TOPICS
from explorer.runs import CapReachedError, RunRecord, RunSettings, SessionRuns, create_run, default_settings
from explorer.storage import Collection
from explorer.uploads import Preprocessing, Source

__all__ = ["Keys", "collection", "runs", "start_session"]


class Keys:
    """Widget keys (tests find widgets by these)."""

    # Data page
    source_kind = "data.source_kind"
    sample = "data.sample"
    uploader = "data.uploader"
    text_column = "data.text_column"
    title_column = "data.title_column"
    stop_words = "data.stop_words"
    min_df = "data.min_df"
    max_df = "data.max_df"
    max_features = "data.max_features"
    # Train page
    model = "train.model"
    n_topics = "train.n_topics"
    hdp_topics = "train.hdp_topics"
    doc_truncation = "train.doc_truncation"
    alpha = "train.alpha"
    eta = "train.eta"
    omega = "train.omega"
    kappa = "train.kappa"
    tau = "train.tau"
    batch_size = "train.batch_size"
    n_test = "train.n_test"
    seed = "train.seed"
    target_docs = "train.target_docs"
    x_axis = "train.x_axis"
    overlay = "train.overlay"
    # all pages (sidebar)
    current_run = "run.current"
    # Topics page
    relevance = "topics.relevance"
    n_words = "topics.n_words"
    n_shown = "topics.n_shown"
    # Documents page
    search = "docs.search"
    document = "docs.document"
    topic = "docs.topic"
    # Stochastic vs batch page
    compare_seconds = "compare.seconds"
    compare_kappa = "compare.kappa"
    compare_tau = "compare.tau"
    # Export page
    model_upload = "export.model_upload"
    model_upload_done = "_export.model_upload_done"  # the last model file read (not a widget)

    @staticmethod
    def label(topic: int) -> str:
        return f"topics.label.{topic}"


TRAINING_KEYS = (Keys.model, Keys.n_topics, Keys.hdp_topics, Keys.doc_truncation, Keys.alpha, Keys.eta, Keys.omega,
                 Keys.kappa, Keys.tau, Keys.batch_size, Keys.n_test, Keys.seed, Keys.target_docs)
PREPROCESSING_KEYS = (Keys.stop_words, Keys.min_df, Keys.max_df, Keys.max_features)
# widget values that survive a visit to another page
PERSISTENT_KEYS = (Keys.source_kind, Keys.sample, Keys.text_column, Keys.title_column, *PREPROCESSING_KEYS,
                   *TRAINING_KEYS, Keys.x_axis, Keys.overlay, Keys.current_run, Keys.relevance, Keys.n_words,
                   Keys.n_shown, Keys.search, Keys.compare_seconds, Keys.compare_kappa, Keys.compare_tau)

_RUNS = "_runs"
_COLLECTION = "_collection"
_SOURCE = "_source"
_AUTOSTART = "_autostart"
_PENDING = "_pending_widgets"
_NOTICE = "_notice"
_CLOUDS = "_clouds"
_UPLOAD_SIGNATURE = "_upload_signature"
_UPLOAD_ERROR = "_upload_error"


# ------------------------------------------------------------------- session
class _Lease:
    """Lives in a session-scoped cache; released when the browser session disconnects."""

    def __init__(self, session_runs: SessionRuns):
        self.runs = session_runs


def _release(lease: _Lease) -> None:
    grace = float(os.environ.get("SVI_TOPICS_ORPHAN_GRACE", "120"))
    lease.runs.orphaned(grace)


@st.cache_resource(scope="session", on_release=_release, show_spinner=False)
def _lease(_session_runs: SessionRuns) -> _Lease:
    _session_runs.reconnected()
    return _Lease(_session_runs)


def runs() -> SessionRuns:
    """This session's runs."""
    if _RUNS not in st.session_state:
        st.session_state[_RUNS] = SessionRuns()
    return st.session_state[_RUNS]


def start_session() -> None:
    """Called at the top of every script run, before any widget."""
    ss = st.session_state
    for key in PERSISTENT_KEYS:  # keep widget values while their page is not shown
        if key in ss:
            ss[key] = ss[key]
    _apply_pending()
    session_runs = runs()
    _lease(session_runs)
    session_runs.heartbeat()
    if _COLLECTION not in ss:
        available = samples.available_samples()
        if available:
            sample = available[0]
            ss[Keys.source_kind] = "sample"
            ss[Keys.sample] = sample.key
            _set_preprocessing_widgets(sample.preprocessing)
            set_collection(cached.sample_collection(sample.key), sample.n_topics)
            _apply_pending()
    _ensure_defaults()
    _autostart()


def _ensure_defaults() -> None:
    """Give every persistent widget its default value if it has none (widgets pass no ``value=``)."""
    current = collection()
    base = default_settings(current.corpus.n_docs if current else 1000)
    defaults = {
        Keys.source_kind: "sample", Keys.stop_words: "", Keys.min_df: 1, Keys.max_df: 1.0, Keys.max_features: 0,
        Keys.model: "LDA", Keys.n_topics: base.n_topics, Keys.hdp_topics: DEFAULT_HDP_TOPICS,
        Keys.doc_truncation: base.doc_truncation,
        Keys.alpha: 0.0, Keys.eta: base.eta, Keys.omega: base.omega, Keys.kappa: base.kappa, Keys.tau: base.tau,
        Keys.batch_size: base.batch_size, Keys.n_test: base.n_test, Keys.seed: 0, Keys.target_docs: base.target_docs,
        Keys.x_axis: "docs_seen", Keys.relevance: 0.6, Keys.n_words: 10, Keys.compare_seconds: 10,
        Keys.compare_kappa: base.kappa, Keys.compare_tau: base.tau,
    }
    for key, value in defaults.items():
        st.session_state.setdefault(key, value)


def _apply_pending() -> None:
    for key, value in st.session_state.pop(_PENDING, {}).items():
        if value is None:
            st.session_state.pop(key, None)
        else:
            st.session_state[key] = value


def get(key: str, default: Any = None) -> Any:
    """The value of a widget (by its :class:`Keys` key)."""
    return st.session_state.get(key, default)


def put(key: str, value: Any) -> None:
    """Set a widget's value (allowed before the widget is drawn in this run)."""
    st.session_state[key] = value


def set_widgets(values: dict[str, Any]) -> None:
    """Set widget values at the start of the next script run (a widget shown now cannot change)."""
    pending = st.session_state.setdefault(_PENDING, {})
    pending.update(values)


def notice(message: str | None = None, page: str = "train") -> str | None:
    """Leave a message for a page (``notice(text, page)``) or take it there (``notice(page=page)``)."""
    key = f"{_NOTICE}.{page}"
    if message is not None:
        st.session_state[key] = message
        return message
    return st.session_state.pop(key, None)


# ---------------------------------------------------------------- collection
def collection() -> Collection | None:
    """The collection new runs train on."""
    return st.session_state.get(_COLLECTION)


def set_collection(new: Collection, n_topics: int | None = None) -> bool:
    """Use ``new`` for the next runs; resets the collection-dependent settings. Returns True if changed."""
    old = collection()
    if old is not None and old.key == new.key:
        return False
    st.session_state[_COLLECTION] = new
    settings = default_settings(new.corpus.n_docs, n_topics or 10)
    values = {Keys.batch_size: settings.batch_size, Keys.n_test: settings.n_test,
              Keys.target_docs: settings.target_docs}
    if n_topics is not None:
        values[Keys.n_topics] = n_topics
    set_widgets(values)
    return True


def source() -> tuple[str, Source] | None:
    """The uploaded source on the Data page: (an id, the source)."""
    return st.session_state.get(_SOURCE)


def upload_signature() -> tuple | None:
    """Which uploaded files were read last (so they are read once)."""
    return st.session_state.get(_UPLOAD_SIGNATURE)


def set_upload_signature(signature: tuple) -> None:
    st.session_state[_UPLOAD_SIGNATURE] = signature
    st.session_state.pop(_UPLOAD_ERROR, None)


def upload_error() -> str | None:
    return st.session_state.get(_UPLOAD_ERROR)


def set_upload_error(message: str) -> None:
    st.session_state[_UPLOAD_ERROR] = message


def set_source(new: Source | None) -> None:
    if new is None:
        st.session_state.pop(_SOURCE, None)
        return
    st.session_state[_SOURCE] = (f"upload:{time.time_ns()}", new)
    columns = {}
    if new.kind == "table":
        columns = {Keys.text_column: new.text_columns[0], Keys.title_column: new.suggested_title or ""}
    set_widgets(columns)
    _set_preprocessing_widgets(Preprocessing.suggested(new.n_rows))


def _set_preprocessing_widgets(preprocessing: Preprocessing) -> None:
    set_widgets({Keys.stop_words: ", ".join(preprocessing.extra_stop_words), Keys.min_df: preprocessing.min_df,
                 Keys.max_df: preprocessing.max_df, Keys.max_features: preprocessing.max_features or 0})


def use_sample_preprocessing(sample_key: str) -> None:
    sample = next(s for s in samples.SAMPLES if s.key == sample_key)
    _set_preprocessing_widgets(sample.preprocessing)


def preprocessing() -> Preprocessing:
    """The preprocessing chosen by the Data page widgets."""
    ss = st.session_state
    words = tuple(w.strip() for w in str(ss.get(Keys.stop_words, "")).replace("\n", ",").split(",") if w.strip())
    cap = int(ss.get(Keys.max_features, 0) or 0)
    return Preprocessing(words, int(ss.get(Keys.min_df, 1)), float(ss.get(Keys.max_df, 1.0)), cap or None)


# --------------------------------------------------------------------- runs
def settings() -> RunSettings:
    """The settings chosen on the Train page (defaults for the collection where untouched)."""
    ss = st.session_state
    current = collection()
    base = default_settings(current.corpus.n_docs if current else 1000)
    model = ss.get(Keys.model, "LDA")
    n_topics = int(ss.get(Keys.n_topics, base.n_topics) if model == "LDA" else ss.get(Keys.hdp_topics, 150))
    alpha = ss.get(Keys.alpha)
    return RunSettings(
        model=model, n_topics=n_topics, doc_truncation=int(ss.get(Keys.doc_truncation, 15)),
        alpha=None if alpha in (None, 0) else float(alpha), eta=float(ss.get(Keys.eta, base.eta)),
        omega=float(ss.get(Keys.omega, base.omega)), kappa=float(ss.get(Keys.kappa, base.kappa)),
        tau=float(ss.get(Keys.tau, base.tau)),
        batch_size=int(ss.get(Keys.batch_size, base.batch_size)), n_test=int(ss.get(Keys.n_test, base.n_test)),
        seed=int(ss.get(Keys.seed, 0)), target_docs=int(ss.get(Keys.target_docs, base.target_docs)),
    )


def current_record() -> RunRecord | None:
    """The run chosen in the sidebar (the latest one by default)."""
    session_runs = runs()
    chosen = session_runs.get(st.session_state.get(Keys.current_run))
    return chosen or session_runs.latest()


def collection_for(record: RunRecord) -> Collection | None:
    """The documents of a run: its own collection, or the current one if the vocabulary matches."""
    if record.collection is not None:
        return record.collection
    current = collection()
    if current is not None and record.vocabulary == current.corpus.vocabulary:
        return current
    return None


def select_run(run_id: str) -> None:
    set_widgets({Keys.current_run: run_id})


def start_run(record: RunRecord) -> None:
    """Add a built run to the session, start it (within the server's cap) and select it."""
    cached.limiter().start(record.run)
    runs().add(record)
    overlay = [run_id for run_id in st.session_state.get(Keys.overlay) or [] if runs().get(run_id)]
    set_widgets({Keys.current_run: record.run_id, Keys.overlay: [*overlay, record.run_id][-6:]})


def reset_session() -> None:
    """Stop and forget every run of the session, and restore the default settings."""
    runs().clear()
    set_widgets({key: None for key in (*TRAINING_KEYS, Keys.current_run, Keys.overlay)})
    current = collection()
    if current is not None:
        st.session_state.pop(_COLLECTION)
        sample = next((s for s in samples.SAMPLES if f"sample:{s.key}" == current.origin), None)
        set_collection(current, sample.n_topics if sample else None)


def _autostart() -> None:
    """Start one run on the sample the first time a session opens, so topics form right away."""
    ss = st.session_state
    if ss.get(_AUTOSTART) or os.environ.get("SVI_TOPICS_AUTOSTART", "1") in ("0", "false", "no"):
        return
    ss[_AUTOSTART] = True
    current = collection()
    if current is None or len(runs()):
        return
    sample = next((s for s in samples.SAMPLES if f"sample:{s.key}" == current.origin), None)
    base = default_settings(current.corpus.n_docs, sample.n_topics if sample else 10)
    record = create_run(current, base, runs().next_name(base))
    try:
        start_run(record)
    except CapReachedError as exc:
        notice(f"Training did not start by itself: {exc}")
        record.stop()
        return
    notice(f"Welcome! The app is already finding {base.n_topics} topics in a sample collection, "
           f"“{current.name}”. Watch the curve climb and the topic words below sharpen; the Topics page "
           "shows each topic in detail, and the Data page takes your own documents.")
    _apply_pending()


def cloud_memory() -> dict:
    """Per-session memory of the last word cloud of each topic (to redraw them at most every few seconds)."""
    return st.session_state.setdefault(_CLOUDS, {})
