"""Session setup: defaults, the demo run, the collection in use, starting and resetting runs.

Built on :mod:`explorer.state` (the keys and the getters and setters of the session
state), which this module never bypasses.  The runs of a session live in a
:class:`SessionRuns` kept in the session state; a session-scoped cache resource (a
"lease") notices when the browser tab goes away and stops the session's runs unless it
comes back within a grace period.
"""

from __future__ import annotations

import uuid

import streamlit as st

from explorer import cached, charts, samples, state, storage, uploads, workspace
from explorer.engine_api import DEFAULT_HDP_TOPICS, PASSAGE_WORDS
from explorer.engine_api import settings as environment
from explorer.runs import (
    CapReachedError,
    RunRecord,
    RunSettings,
    SessionRuns,
    create_run,
    default_scheduler,
    default_settings,
)
from explorer.state import Keys
from explorer.storage import Collection
from explorer.uploads import Preprocessing, Source

__all__ = [
    "collection_for", "current_record", "preprocessing", "reset", "runs", "settings", "start", "start_run",
    "use_collection", "use_guessed_language", "use_sample_preprocessing", "use_source",
]


# ------------------------------------------------------------------- session
class _Lease:
    """Lives in a session-scoped cache; released when the browser session disconnects."""

    def __init__(self, session_runs: SessionRuns):
        self.runs = session_runs


def _release(lease: _Lease) -> None:
    grace = environment.get("SVI_TOPICS_ORPHAN_GRACE")
    lease.runs.orphaned(grace)


@st.cache_resource(scope="session", on_release=_release, show_spinner=False)
def _lease(_session_runs: SessionRuns) -> _Lease:
    _session_runs.reconnected()
    return _Lease(_session_runs)


def runs() -> SessionRuns:
    """This session's runs (made on first use)."""
    current = state.session_runs()
    if current is None:
        current = SessionRuns()
        state.set_session_runs(current)
    return current


def start() -> None:
    """Called at the top of every script run, before any widget."""
    _workspace()
    state.keep(state.PERSISTENT_KEYS)  # keep widget values while their page is not shown
    state.apply_pending()
    session_runs = runs()
    _lease(session_runs)
    session_runs.heartbeat()
    if state.collection() is None:
        available = samples.available_samples()
        if available:
            sample = available[0]
            state.put(Keys.source_kind, "sample")
            state.put(Keys.sample, sample.key)
            _set_preprocessing_widgets(sample.preprocessing)
            use_collection(cached.sample_collection(sample.key), sample.n_topics)
            state.apply_pending()
    _ensure_defaults()
    _autostart()


def _workspace() -> None:
    """Give the session its workspace (first run) and keep its token in the page address (every run).

    Runs in the script thread, before anything reads or writes files: the runs made
    later take their checkpoint paths from this workspace.  A valid token in the
    address opens that workspace (a bookmark, a reload, a restarted server); a
    malformed one is refused and a new workspace is made, with a notice.  Page
    navigation clears the address's parameters, so the token is put back on every run.
    """
    if state.workspace() is None:
        if workspace.mode() == workspace.SHARED:
            state.set_workspace(workspace.Workspace.shared_at(storage.home()), None)
            return
        token = state.url_value(workspace.QUERY_PARAMETER)
        if not workspace.valid_token(token):
            if token is not None:
                state.notice("The workspace in this page's address is not valid, so a new, empty workspace was "
                             "opened. Bookmark this page to come back to it.", page="workspace")
            token = workspace.new_token()
        state.set_workspace(workspace.Workspace.of_token(token, storage.home()), token)
    token = state.workspace_token()
    if token is not None:
        state.set_url_value(workspace.QUERY_PARAMETER, token)


def _ensure_defaults() -> None:
    """Give every persistent widget its default value if it has none (widgets pass no ``value=``)."""
    current = state.collection()
    base = default_settings(current.corpus.n_docs if current else 1000)
    state.set_defaults({
        Keys.source_kind: "sample", Keys.stop_words: "", Keys.language: "english", Keys.strip_accents: True,
        Keys.strip_markup: False, Keys.strip_boilerplate: True, Keys.strip_messages: False, Keys.split_passages: False,
        Keys.join_phrases: False, Keys.merge_word_forms: True, Keys.drop_copies: True, Keys.left_out: [],
        Keys.min_df: 1, Keys.max_df: 1.0, Keys.max_features: 0, Keys.near_copies: False,
        Keys.model: "LDA", Keys.n_topics: base.n_topics, Keys.hdp_topics: DEFAULT_HDP_TOPICS,
        Keys.doc_truncation: base.doc_truncation, Keys.births: base.births,
        Keys.alpha: 0.0, Keys.eta: base.eta, Keys.omega: base.omega, Keys.kappa: base.kappa, Keys.tau: base.tau,
        Keys.step_size: base.step_size, Keys.show_clouds: True,
        Keys.batch_size: base.batch_size, Keys.n_test: base.n_test, Keys.seed: 0, Keys.target_docs: base.target_docs,
        Keys.x_axis: charts.DEFAULT_X_AXIS, Keys.relevance: 0.6, Keys.n_words: 10, Keys.compare_seconds: 10,
        Keys.compare_kappa: base.kappa, Keys.compare_tau: base.tau, Keys.scheduler: default_scheduler(),
    })


def _autostart() -> None:
    """Start one run on the sample the first time a session opens, so topics form right away."""
    if state.autostarted() or not environment.get("SVI_TOPICS_AUTOSTART"):
        return
    state.set_autostarted()
    current = state.collection()
    if current is None or len(runs()):
        return
    sample = _sample_of(current)
    base = default_settings(current.corpus.n_docs, sample.n_topics if sample else 10)
    record = create_run(current, base, runs().next_name(base))
    try:
        start_run(record)
    except CapReachedError as exc:
        state.notice(f"Training did not start by itself: {exc}")
        record.stop()
        return
    state.notice(f"Welcome! The app is already finding {base.n_topics} topics in a sample collection, "
                 f"“{current.name}”. Watch the curve climb and the topic words below sharpen; the Topics page "
                 "shows each topic in detail, and the Data page takes your own documents.")
    state.apply_pending()


def _sample_of(current: Collection) -> samples.Sample | None:
    """The sample a collection was read from (None for an upload)."""
    return next((s for s in samples.SAMPLES if f"sample:{s.key}" == current.origin), None)


# ---------------------------------------------------------------- collection
def use_collection(new: Collection, n_topics: int | None = None) -> bool:
    """Use ``new`` for the next runs; True if it changed (other documents, or the same under another name).
    Other documents reset the collection-dependent settings; the same ones read again keep them."""
    old = state.collection()
    state.set_collection(new)  # the same documents too: the new reading's name and skipped files
    if old is not None and old.key == new.key:
        return old.name != new.name
    defaults = default_settings(new.corpus.n_docs, n_topics or 10)
    values = {Keys.batch_size: defaults.batch_size, Keys.n_test: defaults.n_test,
              Keys.target_docs: defaults.target_docs}
    if n_topics is not None:
        values[Keys.n_topics] = n_topics
    state.set_widgets(values)
    return True


def use_source(new: Source | None, keep_choices: bool = False) -> None:
    """Keep an uploaded source for the Data page and suggest its columns and preprocessing.

    With ``keep_choices`` (the same files read again in another encoding) the chosen
    columns and preprocessing stay.
    """
    if new is None:
        state.set_source(None)
        return
    new_id = f"upload:{uuid.uuid4().hex}"  # names the source in caches shared by every session: never reused
    state.set_source((new_id, new))
    if keep_choices:
        return
    text_column = new.text_columns[0] if new.kind == "table" else None
    if new.kind == "table":
        state.set_widgets({Keys.text_column: text_column, Keys.title_column: new.suggested_title or ""})
    guess = cached.language_guess(new_id, text_column, new)
    found = guess.language if guess is not None else None
    passages = uploads.passages_suggested(new, text_column)
    _set_preprocessing_widgets(Preprocessing.suggested(passages or new.n_rows, found or "english",
                                                       guess is not None and guess.markup,
                                                       guess is not None and guess.messages, passages is not None))


def use_guessed_language() -> None:
    """Set the stop words' language to the one guessed for the text column now chosen (if one was), and whether
    its markup and e-mail headers are left out."""
    current = state.source()
    if current is None:
        return
    guess = cached.language_guess(current[0], state.get(Keys.text_column), current[1])
    state.put(Keys.strip_markup, guess is not None and guess.markup)
    state.put(Keys.strip_messages, guess is not None and guess.messages)
    state.put(Keys.split_passages, uploads.passages_suggested(current[1], state.get(Keys.text_column)) is not None)
    if guess is not None and guess.language is not None:
        chosen = Preprocessing.suggested(current[1].n_rows, guess.language)
        state.put(Keys.language, chosen.language)
        state.put(Keys.strip_accents, chosen.strip_accents)


def _set_preprocessing_widgets(chosen: Preprocessing) -> None:
    state.set_widgets({Keys.stop_words: ", ".join(chosen.extra_stop_words), Keys.language: chosen.language,
                       Keys.strip_accents: chosen.strip_accents, Keys.strip_markup: chosen.strip_markup,
                       Keys.strip_boilerplate: chosen.strip_boilerplate, Keys.strip_messages: chosen.strip_messages,
                       Keys.split_passages: bool(chosen.passage_words), Keys.join_phrases: chosen.join_phrases,
                       Keys.merge_word_forms: chosen.merge_word_forms, Keys.drop_copies: chosen.drop_copies,
                       Keys.left_out: list(chosen.left_out), Keys.min_df: chosen.min_df, Keys.max_df: chosen.max_df,
                       Keys.max_features: chosen.max_features or 0, Keys.near_copies: chosen.drop_near_copies})


def use_sample_preprocessing(sample_key: str) -> None:
    sample = next(s for s in samples.SAMPLES if s.key == sample_key)
    _set_preprocessing_widgets(sample.preprocessing)


def preprocessing() -> Preprocessing:
    """The preprocessing chosen by the Data page widgets."""
    words = tuple(w.strip() for w in str(state.get(Keys.stop_words, "")).replace("\n", ",").split(",") if w.strip())
    cap = int(state.get(Keys.max_features, 0) or 0)
    return Preprocessing(words, int(state.get(Keys.min_df, 1)), float(state.get(Keys.max_df, 1.0)), cap or None,
                         str(state.get(Keys.language) or "english"), bool(state.get(Keys.strip_accents, True)),
                         bool(state.get(Keys.strip_markup, False)), bool(state.get(Keys.strip_boilerplate, True)),
                         bool(state.get(Keys.strip_messages, False)),
                         PASSAGE_WORDS if state.get(Keys.split_passages) else 0, bool(state.get(Keys.join_phrases)),
                         bool(state.get(Keys.merge_word_forms)), bool(state.get(Keys.drop_copies, True)),
                         tuple(state.get(Keys.left_out) or ()), bool(state.get(Keys.near_copies)))


# --------------------------------------------------------------------- runs
def settings() -> RunSettings:
    """The settings chosen on the Train page (defaults for the collection where untouched)."""
    get = state.get
    current = state.collection()
    base = default_settings(current.corpus.n_docs if current else 1000)
    model = get(Keys.model, "LDA")
    n_topics = int(get(Keys.n_topics, base.n_topics) if model == "LDA" else get(Keys.hdp_topics, 150))
    alpha = get(Keys.alpha)
    return RunSettings(
        model=model, n_topics=n_topics, doc_truncation=int(get(Keys.doc_truncation, base.doc_truncation)),
        births=bool(get(Keys.births, base.births)) if model == "HDP" else base.births,  # LDA makes no births
        alpha=None if alpha in (None, 0) else float(alpha), eta=float(get(Keys.eta, base.eta)),
        omega=float(get(Keys.omega, base.omega)), kappa=float(get(Keys.kappa, base.kappa)),
        # the adaptive step size is the engine's for LDA only; the HDP always trains on the schedule
        step_size=get(Keys.step_size, base.step_size) if model == "LDA" else "schedule",
        tau=float(get(Keys.tau, base.tau)),
        batch_size=int(get(Keys.batch_size, base.batch_size)), n_test=int(get(Keys.n_test, base.n_test)),
        seed=int(get(Keys.seed, 0)), target_docs=int(get(Keys.target_docs, base.target_docs)),
        scheduler=str(get(Keys.scheduler, "") or "").strip(),
    )


def current_record() -> RunRecord | None:
    """The run chosen in the sidebar (the latest one by default)."""
    session_runs = runs()
    chosen = session_runs.get(state.get(Keys.current_run))
    return chosen or session_runs.latest()


def collection_for(record: RunRecord) -> Collection | None:
    """The documents of a run: its own collection, or the current one if the vocabulary matches."""
    if record.collection is not None:
        return record.collection
    current = state.collection()
    if current is not None and record.vocabulary == current.corpus.vocabulary:
        return current
    return None


def start_run(record: RunRecord) -> None:
    """Add a built run to the session, start it (within the server's cap) and select it."""
    cached.limiter().start(record.run)
    runs().add(record)
    overlay = [run_id for run_id in state.get(Keys.overlay) or [] if runs().get(run_id)]
    state.set_widgets({Keys.current_run: record.run_id, Keys.overlay: [*overlay, record.run_id][-6:]})


def reset() -> None:
    """Stop and forget every run of the session, and restore the default settings."""
    runs().clear()
    state.set_widgets({key: None for key in (*state.TRAINING_KEYS, Keys.current_run, Keys.overlay)})
    current = state.collection()
    if current is not None:
        state.set_collection(None)
        sample = _sample_of(current)
        use_collection(current, sample.n_topics if sample else None)
