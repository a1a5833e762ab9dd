"""Topic explorer: ``streamlit run explorer/app.py``.

Builds the page navigation; every page is a short script in ``explorer/views/``.  (Not
``pages/``: Streamlit 1.67 still runs a ``pages/`` folder beside the main script the old
way when a fresh server's first visitor opens a page's URL directly, skipping this script.)
"""

from __future__ import annotations

import importlib.machinery
from pathlib import Path

import streamlit as st

from explorer import cached, icons, session, ui

PAGES = Path(__file__).resolve().parent / "views"

# Streamlit runs this file as the __main__ module.  A process that multiprocessing spawns
# (a Dask worker of a "local:N" cluster) re-runs __main__'s file unless __main__ names
# itself "__main__" in its spec; re-run outside a session, this script would fail.
__spec__ = importlib.machinery.ModuleSpec("__main__", None)

st.set_page_config(page_title="Topic explorer", page_icon=icons.APP, layout="wide")
cached.kernel_warm_up()
session.start()
navigation = st.navigation([
    st.Page(PAGES / "data.py", title="Data", icon=icons.DATA, url_path="data"),
    st.Page(PAGES / "train.py", title="Train", icon=icons.TRAIN, url_path="train", default=True),
    st.Page(PAGES / "compare.py", title="Stochastic vs batch", icon=icons.COMPARE, url_path="compare"),
    st.Page(PAGES / "topics.py", title="Topics", icon=icons.TOPICS, url_path="topics"),
    st.Page(PAGES / "documents.py", title="Documents", icon=icons.DOCUMENTS, url_path="documents"),
    st.Page(PAGES / "export.py", title="Export / import", icon=icons.EXPORT, url_path="export"),
])
with ui.guard():
    ui.sidebar()
with ui.guard():
    navigation.run()
