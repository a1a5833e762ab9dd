"""Markdown files read as the text a reader of the rendered page sees (engine.markdown_text)."""

from __future__ import annotations

import engine
from engine import markdown_text
from tests.engine._readers import assert_every_reader_reads_alike

NOTE = """---
title: Topic models
tags: [lda, svi]
---
# Notes on [SVI](https://arxiv.org/abs/1206.7051 "the paper")

See ![a chart](img/chart.png) and [[Gibbs sampling|Gibbs]] or [[HDP]].
A [reference link][1] and <https://example.com/page>.

```python
print("code stays")
```
<!-- a hidden note -->
[1]: https://jmlr.org/papers/v14/hoffman13a.html
On Wikipedia: [LDA](https://en.wikipedia.org/wiki/Latent_Dirichlet_allocation_(model)).
"""


def test_a_note_reads_as_its_rendered_text():
    text = markdown_text(NOTE)
    assert text.split() == ["Topic", "models", "[lda,", "svi]", "#", "Notes", "on", "SVI", "See", "a", "chart", "and",
                            "Gibbs", "or", "HDP.", "A", "reference", "link", "and", ".", 'print("code', 'stays")',
                            "On", "Wikipedia:", "LDA."]
    for gone in ("https", "arxiv", "png", "python", "title:", "hidden", "jmlr", "wikipedia.org", "the paper"):
        assert gone not in text


def test_text_without_markdown_syntax_is_unchanged():
    plain = "Prices rose 3% in May [citation needed]; see (Smith, 2020) and a < b.\n\nA second paragraph."
    assert markdown_text(plain) == plain


def test_hostile_runs_of_brackets_and_parentheses_are_read_in_one_pass():
    """Each of these took seconds at 20,000 characters with brackets allowed inside link text (quadratic)."""
    for text in ("[" * 200_000, "[a](" * 100_000, "![" * 100_000 + "]", "[[a|" * 100_000, "[x][" * 100_000,
                 "[a](" + "(" * 200_000, "<!--" * 100_000, "```\n" * 100_000):
        assert len(markdown_text(text)) <= len(text)


def test_markdown_files_are_read_as_rendered_by_every_reader(tmp_path):
    files = [("note.md", NOTE.encode()), ("plain.txt", b"[kept](as written)"), ("more.markdown", b"[x](y) z")]
    documents = engine.read_txt_files(files)
    assert [d.text for d in documents] == [markdown_text(NOTE), "[kept](as written)", "x z"]
    assert [d.title for d in documents] == ["note", "plain", "more"]
    assert_every_reader_reads_alike(tmp_path, files, documents, {"https"})
