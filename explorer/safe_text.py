"""Text from users and files made inert before Streamlit renders it as Markdown or HTML.

No Streamlit here.  Names of files, collections and runs, topic labels, vocabulary
words and messages that quote them can hold anything.  Streamlit renders the body of
``st.markdown``, ``st.caption``, ``st.error`` (and the other alerts), ``st.toast`` and
widget labels as Markdown, where ``[a](url)`` is a link, ``![a](url)`` an image fetched
from anywhere and ``$x$`` LaTeX; with ``unsafe_allow_html=True`` raw HTML becomes
elements.  :func:`markdown` escapes what Markdown would interpret; :func:`html` escapes
for HTML first, then for the Markdown around it.  Tables, charts, selectboxes and word
clouds show text as text and need neither.
"""

from __future__ import annotations

import html as _html
import re

__all__ = ["html", "markdown", "one_line"]

_CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f\u2028\u2029]+")
# characters that start Markdown (or Streamlit's :color[...], LaTeX, tables, HTML) anywhere in a line
_MARKDOWN = re.compile(r"([\\`*_~\[\]<>#|$&])")
_MARKDOWN_AFTER_HTML = re.compile(r"([\\`*_~\[\]|$])")  # '&', '#', '<', '>' are entities by then


def one_line(text: object) -> str:
    """``text`` as one line: control characters and line breaks become spaces."""
    return _CONTROL.sub(" ", str(text))


def markdown(text: object) -> str:
    """``text`` escaped so that Streamlit's Markdown shows it as it is, on one line."""
    return _MARKDOWN.sub(r"\\\1", one_line(text))


def html(text: object) -> str:
    """``text`` escaped for a Markdown body rendered with ``unsafe_allow_html=True``."""
    return _MARKDOWN_AFTER_HTML.sub(r"\\\1", _html.escape(one_line(text), quote=True))
