"""Session state: the widget and session keys, and small typed getters and setters.

The only module that reads or writes ``st.session_state`` and the page address's query parameters (the
workspace token).  Pages name widgets by the keys of :class:`Keys` and use the functions below; the session
setup built on them (defaults, the demo run, the workspace, runs) is :mod:`explorer.session`.  Nothing from
``explorer`` is imported here at run time, so every module can import this one.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import streamlit as st
from streamlit import runtime
from streamlit.runtime.scriptrunner import get_script_run_ctx

if TYPE_CHECKING:
    from explorer.runs import SessionRuns
    from explorer.storage import Collection
    from explorer.uploads import Source
    from explorer.workspace import Workspace

__all__ = [
    "PERSISTENT_KEYS", "PREPROCESSING_KEYS", "TRAINING_KEYS", "Keys", "apply_pending", "autostarted",
    "cloud_memory", "collection", "get", "keep", "notice", "put", "select_run", "session_runs", "set_autostarted",
    "set_collection", "set_defaults", "set_session_runs", "set_source", "set_upload_error", "set_upload_signature",
    "set_url_value", "set_widgets", "set_workspace", "source", "thread_kind", "upload_error", "upload_signature",
    "url_value", "workspace", "workspace_token"]


class Keys:
    """Every widget key (tests find widgets by these) and every session key."""

    # Data page
    source_kind, sample, uploader = "data.source_kind", "data.sample", "data.uploader"
    encoding, sheet = "data.encoding", "data.sheet"  # the sheet of a spreadsheet (.xlsx, .ods)
    text_column, title_column = "data.text_column", "data.title_column"
    stop_words, language, strip_accents = "data.stop_words", "data.language", "data.strip_accents"  # extra stop words
    strip_markup, strip_boilerplate = "data.strip_markup", "data.strip_boilerplate"  # tags; repeated lines
    strip_messages, split_passages = "data.strip_messages", "data.split_passages"  # e-mail headers; long texts cut
    use_language, join_phrases, merge_word_forms = "data.use_language", "data.join_phrases", "data.merge_word_forms"
    drop_copies, near_copies, left_out = "data.drop_copies", "data.near_copies", "data.left_out"  # ids left out
    leave_long_out, put_back = "data.leave_long_out", "data.put_back"  # buttons: leave the long ones out; undo all
    min_df, max_df, max_features = "data.min_df", "data.max_df", "data.max_features"
    # Train page
    model, n_topics, hdp_topics = "train.model", "train.n_topics", "train.hdp_topics"
    doc_truncation, births = "train.doc_truncation", "train.births"  # the HDP's T; its topic splits on or off
    alpha = "train.alpha"
    eta, omega = "train.eta", "train.omega"
    step_size = "train.step_size"  # "schedule" (kappa/tau) or "adaptive"
    kappa, tau = "train.kappa", "train.tau"
    batch_size = "train.batch_size"
    n_test = "train.n_test"
    seed = "train.seed"
    target_docs = "train.target_docs"
    scheduler = "train.scheduler"  # "" (this server), or a Dask scheduler explorer.clusters allows
    x_axis = "train.x_axis"
    overlay = "train.overlay"
    train_start = "train.start"
    train_reset = "train.reset"
    train_pause, train_resume = "train.pause", "train.resume"
    train_stop = "train.stop"
    train_continue = "train.continue"
    schedule_chart = "train.schedule"
    heldout_chart = "train.curve"
    # all pages (sidebar)
    current_run = "run.current"
    # Topics page
    relevance = "topics.relevance"
    n_words, show_clouds = "topics.n_words", "topics.clouds"
    merge_copies, match_run, train_again = "topics.merge", "topics.match", "topics.again"  # copies; other run; seed
    leave_flagged_out = "topics.leave_out"  # leaves the documents one-document topics come from out of new runs
    combine_make = "topics.combine_make"  # the "Combine runs" button; its choices are Keys.combine(...)
    alpha_chart, sticks_chart = "topics.alpha", "topics.sticks"
    intertopic_chart, intertopic_topic, intertopic_words = "topics.map", "topics.map_topic", "topics.map_words"
    # Documents page
    search = "docs.search"
    document = "docs.document"
    topic = "docs.topic"
    docs_refresh = "docs.refresh"
    doc_topics_chart = "docs.proportions"
    new_document, new_document_chart = "docs.new_document", "docs.new_document_chart"  # pasted text, its topics
    time_column, time_top_n, time_chart = "docs.time_column", "docs.time_top_n", "docs.time_chart"  # over time
    # Stochastic vs batch page
    compare_seconds = "compare.seconds"
    compare_kappa, compare_tau = "compare.kappa", "compare.tau"
    compare_start, compare_stop, compare_chart = "compare.start", "compare.stop", "compare.curve"
    # Export page
    model_upload = "export.model_upload"
    export_topics, export_documents, export_curves = "export.topics", "export.documents", "export.curves"
    export_model, export_full = "export.model", "export.full"  # the model file; every export file in a zip
    checkpoint = "export.checkpoint"
    checkpoint_resume, checkpoint_open, checkpoint_delete = "export.resume", "export.open", "export.delete"
    # session values (not widgets)
    runs = "_runs"
    collection = "_collection"
    source = "_source"
    autostart = "_autostart"
    pending = "_pending_widgets"
    clouds = "_clouds"
    upload_signature = "_upload_signature"
    upload_error = "_upload_error"
    model_upload_done = "_export.model_upload_done"  # the last model file read
    workspace = "_workspace"  # the session's explorer.workspace.Workspace
    workspace_token = "_workspace_token"  # its secret token (also in the page address)

    @staticmethod
    def n_shown(run_id: str) -> str:
        """The Topics page's "Topics to show" of one run."""
        return f"topics.n_shown.{run_id}"

    @staticmethod
    def combine(what: str, size: int) -> str:
        """"Combine runs": the runs chosen ("runs.<shown run>", per number offered), or "min" (per number chosen)."""
        return f"topics.combine_{what}.{size}"

    @staticmethod
    def topic_card(topic: int) -> str:
        return f"topics.card.{topic}"

    @staticmethod
    def topic_chart(topic: int) -> str:
        return f"topics.chart.{topic}"

    @staticmethod
    def topic_label(run_id: str, topic: int) -> str:
        """The label text input of a topic of one run."""
        return f"topics.label.{run_id}.{topic}"

    @staticmethod
    def notice(page: str) -> str:
        """A message waiting for ``page`` (not a widget)."""
        return f"_notice.{page}"


TRAINING_KEYS = (Keys.model, Keys.n_topics, Keys.hdp_topics, Keys.doc_truncation, Keys.births, Keys.alpha, Keys.eta,
                 Keys.omega, Keys.step_size, Keys.kappa, Keys.tau, Keys.batch_size, Keys.n_test, Keys.seed,
                 Keys.target_docs)
PREPROCESSING_KEYS = (Keys.stop_words, Keys.language, Keys.strip_accents, Keys.strip_markup, Keys.strip_boilerplate,
                      Keys.strip_messages, Keys.split_passages, Keys.join_phrases, Keys.merge_word_forms,
                      Keys.drop_copies, Keys.near_copies, Keys.left_out, Keys.min_df, Keys.max_df, Keys.max_features)
PERSISTENT_KEYS = (Keys.source_kind, Keys.sample, Keys.encoding, Keys.sheet, Keys.text_column, Keys.title_column,
                   Keys.scheduler, *PREPROCESSING_KEYS, *TRAINING_KEYS, Keys.x_axis, Keys.overlay, Keys.current_run,
                   Keys.relevance, Keys.n_words, Keys.show_clouds, Keys.match_run, Keys.search, Keys.document,
                   Keys.topic, Keys.time_column, Keys.time_top_n, Keys.compare_seconds, Keys.compare_kappa,
                   Keys.compare_tau)  # widget values that survive a visit to another page


# ------------------------------------------------------------------ widgets
def get(key: str, default: Any = None) -> Any:
    """The value of a widget (by its :class:`Keys` key)."""
    return st.session_state.get(key, default)


def put(key: str, value: Any) -> None:
    """Set a widget's value (allowed before the widget is drawn in this run)."""
    st.session_state[key] = value


def set_defaults(values: dict[str, Any]) -> None:
    """Give the widgets of ``values`` these values unless they have one already."""
    for key, value in values.items():
        st.session_state.setdefault(key, value)


def keep(keys: tuple[str, ...]) -> None:
    """Keep the values of these widgets while their page is not shown (Streamlit drops them otherwise)."""
    ss = st.session_state
    for key in keys:
        if key in ss:
            ss[key] = ss[key]


def set_widgets(values: dict[str, Any]) -> None:
    """Set widget values at the start of the next script run (a widget shown now cannot change).

    A value of None removes the widget's value (it gets its default again).
    """
    st.session_state.setdefault(Keys.pending, {}).update(values)


def apply_pending() -> None:
    """Apply the values left by :func:`set_widgets` (before any widget is drawn)."""
    for key, value in st.session_state.pop(Keys.pending, {}).items():
        if value is None:
            st.session_state.pop(key, None)
        else:
            st.session_state[key] = value


def select_run(run_id: str) -> None:
    """Show this run on every page (from the next script run)."""
    set_widgets({Keys.current_run: run_id})


def notice(message: str | None = None, page: str = "train") -> str | None:
    """Leave a message for a page (``notice(text, page)``) or take it there (``notice(page=page)``)."""
    key = Keys.notice(page)
    if message is not None:
        st.session_state[key] = message
        return message
    return st.session_state.pop(key, None)


# ------------------------------------------------------------ session values
def session_runs() -> SessionRuns | None:
    """This session's runs, if it has any yet (:func:`explorer.session.runs` makes them)."""
    return st.session_state.get(Keys.runs)


def set_session_runs(value: SessionRuns) -> None:
    st.session_state[Keys.runs] = value


def collection() -> Collection | None:
    """The collection new runs train on."""
    return st.session_state.get(Keys.collection)


def set_collection(value: Collection | None) -> None:
    """Store the collection new runs train on (None: no collection)."""
    if value is None:
        st.session_state.pop(Keys.collection, None)
    else:
        st.session_state[Keys.collection] = value


def source() -> tuple[str, Source] | None:
    """The uploaded source on the Data page: (an id, the source)."""
    return st.session_state.get(Keys.source)


def set_source(value: tuple[str, Source] | None) -> None:
    if value is None:
        st.session_state.pop(Keys.source, None)
    else:
        st.session_state[Keys.source] = value


def upload_signature() -> tuple | None:
    """Which uploaded files were read last (so they are read once)."""
    return st.session_state.get(Keys.upload_signature)


def set_upload_signature(signature: tuple) -> None:
    """Remember the files being read now; forgets the error of the previous ones."""
    st.session_state[Keys.upload_signature] = signature
    st.session_state.pop(Keys.upload_error, None)


def upload_error() -> str | None:
    return st.session_state.get(Keys.upload_error)


def set_upload_error(message: str) -> None:
    st.session_state[Keys.upload_error] = message


def autostarted() -> bool:
    """Whether this session has had its chance to start the demo run."""
    return bool(st.session_state.get(Keys.autostart))


def set_autostarted() -> None:
    st.session_state[Keys.autostart] = True


def cloud_memory() -> dict:
    """Per-session memory of the last word cloud of each topic (to redraw them at most every few seconds)."""
    return st.session_state.setdefault(Keys.clouds, {})


# ------------------------------------------------------------- the workspace
def thread_kind() -> str:
    """"script": a browser session's script thread; "server": another thread of the app; "none": no app runs."""
    if get_script_run_ctx(suppress_warning=True) is not None:
        return "script"
    return "server" if runtime.exists() else "none"


def workspace() -> Workspace | None:
    """This session's workspace (:func:`explorer.session.start` chooses it before anything else)."""
    return st.session_state.get(Keys.workspace)


def workspace_token() -> str | None:
    return st.session_state.get(Keys.workspace_token)  # None in the shared workspace


def set_workspace(chosen: Workspace, token: str | None) -> None:
    st.session_state[Keys.workspace], st.session_state[Keys.workspace_token] = chosen, token


def url_value(name: str) -> str | None:
    return st.query_params.get(name)  # the last one if repeated


def set_url_value(name: str, value: str) -> None:
    if st.query_params.get(name) != value:  # in the page address: kept by bookmarks and reloads
        st.query_params[name] = value
