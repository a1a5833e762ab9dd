"""Runs made from other runs after training (merged copies, combined runs): kept, added and shown in one way."""

from __future__ import annotations

import streamlit as st

from explorer import safe_text, session, state
from explorer.runs import RunRecord, keep_checkpoint

__all__ = ["add_made_run"]


def add_made_run(record: RunRecord, message: str, widgets: dict) -> None:
    """Keep a run made from others (merged copies, combined runs) with the checkpoints, add it, show it, and say so.

    ``message`` (Markdown) is shown on the Topics page with a sentence on where the run is
    kept; ``widgets`` are set with the run's selection.  Reruns the app.
    """
    try:
        keep_checkpoint(record)
    except OSError as exc:  # the run is still here; only its copy on the server is missing
        message += (f" It could not be saved on the server ({safe_text.markdown(str(exc))}): download its "
                    "model file from the Export page to keep it.")
    else:
        message += " It is kept with this workspace's checkpoints (Export page)."
    session.runs().add(record)
    state.select_run(record.run_id)
    state.set_widgets(widgets)
    state.notice(message, page="topics")
    st.rerun(scope="app")
