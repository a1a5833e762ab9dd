"""HTML and Markdown injection (issue 15): words, labels and names from files render as text.

A model file's vocabulary and topic labels reach a Markdown body rendered with
``unsafe_allow_html`` on the Topics page; a word ``<img src=x>`` became an element there.
They are now escaped for HTML and for the Markdown around them; names shown in other
Markdown (captions, alerts) are escaped for Markdown, so ``![x](http://...)`` fetches nothing.
"""

from __future__ import annotations

import pytest

from explorer import highlight, safe_text, ui
from explorer.state import Keys
from tests.reliability import _explorer_app as app

IMG = "<img src=x onerror=alert(1)>"
LABEL = "<img src=x> **bold** [link](http://example.invalid) ![pixel](http://example.invalid/p.png) $x$"
WORDS = [IMG, "harbour", "ship", "cargo", "crane", "orchard"]


@pytest.fixture(autouse=True)
def home(tmp_path, monkeypatch):
    yield from app.private_home(tmp_path, monkeypatch)


def test_safe_text_escapes_html_and_markdown():
    assert safe_text.html("<img src=x>") == "&lt;img src=x&gt;"
    assert safe_text.html("a_b *c* [d](e) `f` $g$ it's") == r"a\_b \*c\* \[d\](e) \`f\` \$g\$ it&#x27;s"
    assert safe_text.markdown("![p](http://x/p.png) <b>") == r"!\[p\](http://x/p.png) \<b\>"
    assert safe_text.markdown("line\n# heading\r\x00") == r"line \# heading "  # runs of controls: one space
    assert safe_text.markdown("plain words, 3.5 (ok)") == "plain words, 3.5 (ok)"


def test_a_word_and_a_label_from_a_model_file_render_escaped_on_the_topics_page(tmp_path):
    at = app.app()
    data = app.model_file(tmp_path / "m.npz", WORDS, explorer={"labels": {"0": LABEL}})
    app.upload_model(at, "model.npz", data)
    app.page(at, "topics")
    bodies = [m.value for m in at.markdown if m.proto.allow_html]
    assert bodies, "the topic cards' titles are Markdown with HTML allowed"
    joined = "\n".join(bodies)
    assert "<img" not in joined  # no element: every '<' of a file's text is an entity
    assert "&lt;img src=x&gt; \\*\\*bold\\*\\* \\[link\\](http://example.invalid)" in joined
    assert "!\\[pixel\\](http://example.invalid/p.png) \\$x\\$" in joined
    assert "&lt;img src=x onerror=alert(1)&gt;" in joined  # the word, in another topic's default label
    # the label is also the text input's value, shown as plain text
    assert at.text_input(key=Keys.topic_label(app.runs(at).latest().run_id, 0)).value == LABEL


def test_the_documents_page_and_the_legend_escape_words_and_labels():
    html = highlight.coloured_words([(0, IMG, 2)], {0: 0}, lambda k: "#123456", lambda k: LABEL)
    assert "<img" not in html and "&lt;img src=x onerror=alert(1)&gt; ×2" in html
    assert "title='&lt;img src=x&gt;" in html
    assert "<img" not in highlight.legend([0], lambda k: "#123456", lambda k: LABEL)


def test_names_of_uploads_are_escaped_where_markdown_shows_them():
    at = app.app()
    app.page(at, "data")
    at.radio(key=Keys.source_kind).set_value("upload").run()
    name = "notes_[x](http:example.invalid)![p](http:example.invalid).csv"
    rows = ["title,text", "a,the harbour ship cargo crane", "b,the orchard apple pear harvest"]
    at.file_uploader(key=Keys.uploader).upload(name, "\n".join(rows).encode())
    at.run()
    assert not at.exception, at.exception
    [caption] = [c.value for c in at.caption if c.value.startswith("Uploaded:")]
    assert caption.startswith(r"Uploaded: **notes\_\[x\](http:example.invalid)!\[p\](http:example.invalid).csv**")
    sidebar = [c.value for c in at.sidebar.caption if c.value.startswith("**Collection:**")]
    assert sidebar and r"!\[p\]" in sidebar[0] and "![p]" not in sidebar[0].replace(r"!\[p\]", "")


def test_error_messages_quote_names_escaped():
    text = ui.error_text(ValueError("'![p](http://example.invalid/p.png)' is not valid utf-8"))
    assert text == r"'!\[p\](http://example.invalid/p.png)' is not valid utf-8."
