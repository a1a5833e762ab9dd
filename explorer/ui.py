"""Pieces shared by the pages: the sidebar, readable errors, "you need data first" notes."""

from __future__ import annotations

import contextlib
import logging
from collections.abc import Iterator

import streamlit as st
from streamlit.errors import FragmentHandledException

from explorer import cached, formatting, icons, safe_text, session, state, storage
from explorer.engine_api import EngineError
from explorer.runs import RunRecord
from explorer.state import Keys

_LOG = logging.getLogger("explorer")

__all__ = ["error_text", "guard", "require_collection", "require_run", "show_error", "sidebar", "status_text"]

# plain Unicode symbols that every font has (selectbox options and tables cannot show icons)
STATUS_ICONS = {"ready": "…", "running": "▶", "paused": "‖", "stopped": "■", "finished": "✓", "failed": "✗",
                "loaded": "↥", "merged": "∪", "combined": "∩"}
STATUS_WORDS = {"ready": "ready", "running": "training", "paused": "paused", "stopped": "stopped",
                "finished": "finished", "failed": "failed", "loaded": "loaded from a file",
                "merged": "copies merged after training", "combined": "topics several runs agree on"}


def error_text(exc: BaseException) -> str:
    """A sentence for people from an exception (never a traceback), escaped for Streamlit's Markdown.

    Messages quote file names, column names and words from uploads, which must show as
    they are (``safe_text.markdown``): every place that shows this text renders Markdown.
    """
    message = safe_text.markdown(str(exc).strip().strip('"').strip())
    if isinstance(exc, KeyError) and not isinstance(exc, EngineError) and not message:
        message = "a required value is missing"
    if not message:
        message = type(exc).__name__
    if not isinstance(exc, (EngineError, ValueError, KeyError, OSError, RuntimeError, TypeError)):
        message = f"something unexpected went wrong ({type(exc).__name__}: {message})"
    message = message[0].upper() + message[1:]
    return message if message.endswith((".", "!", "?")) else message + "."


@contextlib.contextmanager
def guard() -> Iterator[None]:
    """Show an unexpected error as a sentence instead of a traceback (the traceback goes to the log)."""
    try:
        yield
    except FragmentHandledException:
        raise
    except Exception as exc:  # any error: the user sees a sentence, the server log the traceback
        _LOG.exception("unexpected error in the explorer")
        st.error(f"Sorry, this part of the page failed: {error_text(exc)} The training runs are not affected; "
                 "reload the page to try again.", icon=icons.ERROR)


def show_error(exc: BaseException, where=None) -> None:
    """Show ``exc`` as a readable error, in the container ``where`` (the control that caused it)."""
    (where or st).error(error_text(exc), icon=icons.WARNING)


def status_text(record: RunRecord) -> str:
    return f"{STATUS_ICONS.get(record.status, '')} {STATUS_WORDS.get(record.status, record.status)}"


def run_label(record: RunRecord) -> str:
    return f"{STATUS_ICONS.get(record.status, '')} {record.name}"


def require_collection():
    """The current collection, or a note pointing to the Data page (and the page stops)."""
    current = state.collection()
    if current is None:
        st.info("Choose a collection of documents first.", icon=icons.DATA)
        st.page_link("views/data.py", label="Go to the Data page", icon=icons.DATA)
        st.stop()
    return current


def require_run(what: str = "this page") -> RunRecord:
    """The run chosen in the sidebar, or a note pointing to the Train page (and the page stops)."""
    record = session.current_record()
    if record is None:
        st.info(f"Train a model first (or load one on the Export page) to use {what}.", icon=icons.TRAIN)
        st.page_link("views/train.py", label="Go to the Train page", icon=icons.TRAIN)
        st.stop()
    return record


def sidebar() -> None:
    """Collection and run chooser, shown on every page."""
    with st.sidebar:
        current = state.collection()
        if current is not None:
            corpus = current.corpus
            st.caption(f"**Collection:** {safe_text.markdown(current.name)}  \n"
                       f"{formatting.plural(corpus.n_docs, 'document')} · "
                       f"{formatting.plural(corpus.n_words, 'distinct word')}")
        session_runs = session.runs()
        records = list(session_runs)
        if records:
            ids = [r.run_id for r in records]
            if state.get(Keys.current_run) not in ids:
                state.put(Keys.current_run, ids[-1])
            names = {r.run_id: run_label(r) for r in records}
            st.selectbox("Run shown on every page", ids, key=Keys.current_run,
                         format_func=lambda run_id: names.get(run_id, run_id),
                         help="The Topics, Documents and Export pages show this run's model; the Train page's "
                              "pause, resume and stop buttons act on it.")
        _sidebar_status(session_runs.any_active())
        note = f"Training threads in use on this server: {cached.limiter().active()} of {cached.limiter().cap}"
        st.caption(note)
        _workspace_note()


def _workspace_note() -> None:
    """Where this session's runs are kept, and a refused workspace token (shown for the whole session)."""
    refused = state.notice(page="workspace")
    if refused:
        state.notice(refused, page="workspace")
        st.warning(refused, icon=icons.WARNING)
    if storage.current_workspace().shared:
        st.caption("Workspace: shared (desktop mode); the Export page lists every run saved on this computer.")
    else:
        st.caption("Workspace: private. Its key is in this page's address: bookmark the page to come back to "
                   "your runs (after a restart too). Anyone with the address can open them.")


def _sidebar_status(active: bool) -> None:
    @st.fragment(run_every=2.0 if active else None)
    def status() -> None:
        with guard():
            _status(active)
    status()


def _status(active: bool) -> None:
    session_runs = session.runs()
    session_runs.heartbeat()  # the tab is open: keep the runs alive
    if active and not session_runs.any_active():
        st.rerun()  # training ended: refresh the pages once and stop polling
    for record in session_runs:
        if record.active:
            snap = record.snapshot()
            st.caption(f"{status_text(record)} {safe_text.markdown(record.name)}: "
                       f"{formatting.count(snap.docs_seen)} documents")
