"""reStructuredText files read as the text a reader of the rendered page sees (engine.rst_text).

docutils, the reference parser of reStructuredText, is the oracle: on documents built of the
constructs both know, the words of ``rst_text`` are the words of docutils' document tree
(without its comments, which the page does not show).
"""

from __future__ import annotations

import re
import zipfile
from collections import Counter

from docutils import nodes
from docutils.core import publish_doctree
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import engine
from engine import rst_text
from tests.engine._readers import assert_every_reader_reads_alike

PAGE = """:orphan:

.. _install:

Installing the package
======================

.. note:: Read :ref:`the guide <install>` first, or :doc:`usage/quickstart`.

Call :func:`os.path.join` or :py:class:`~engine.LDA`, see `the paper <https://jmlr.org/x>`_
and Python_ or `Read the Docs`__.

.. code-block:: python
   :linenos:
   :caption: An example

   import engine

.. image:: images/chart.png
   :alt: the held-out curve
   :width: 80%

.. toctree::
   :maxdepth: 2

   install
   api/modules

.. This is a comment
   spanning lines.

..
   A hidden block.

.. |logo| image:: logo.png
.. _Python: https://www.python.org
__ https://readthedocs.org

.. [1] A footnote's text.

.. versionadded:: 3.2
   The ``n_topics`` argument.

.. contents:: :depth: 2

.. raw:: html

   <div class="banner">hidden</div>

A |logo| and __init__ and snake_case_ [1]_.
"""


def _words(text: str) -> list[str]:
    return re.findall(r"\w+", text.lower())


def test_a_sphinx_page_reads_as_its_rendered_text():
    text = rst_text(PAGE)
    assert _words(text) == [
        "installing", "the", "package", "read", "the", "guide", "first", "or", "usage", "quickstart", "call", "os",
        "path", "join", "or", "lda", "see", "the", "paper", "and", "python", "or", "read", "the", "docs", "an",
        "example", "import", "engine", "the", "held", "out", "curve", "a", "footnote", "s", "text", "3", "2", "the",
        "n_topics", "argument", "a", "logo", "and", "__init__", "and", "snake_case", "1"]
    for gone in ("orphan", "func", "class", "ref", "doc", "https", "jmlr", "linenos", "maxdepth", "png", "width",
                 "toctree", "modules", "comment", "hidden", "versionadded", "code-block", "www", "div", "banner",
                 "depth"):
        assert gone not in _words(text) and f":{gone}:" not in text
    assert text.endswith("[1].\n")


def test_text_without_rst_markup_is_unchanged():
    plain = ("Prices rose 3% in May [citation needed]; see (Smith, 2020) and a < b...\n\n"
             "A second paragraph: e.g. x_y, __init__ and 10:30.\n   An indented line.\n")
    assert rst_text(plain) == plain


def test_a_lone_comment_mark_then_a_blank_line_hides_nothing():
    assert _words(rst_text("..\n\n   A block quote.\n")) == ["a", "block", "quote"]
    assert _words(rst_text("..\n   A hidden block.\n\n   Still hidden.\n\nShown.\n")) == ["shown"]


def test_hostile_runs_of_markup_are_read_in_one_pass():
    """Each pattern is linear: these would take minutes if any were quadratic."""
    for text in ("a." * 100_000 + "b", "`" * 200_000, ":a:`" * 100_000, "|" * 200_000, "`x <" * 100_000,
                 "`" + " " * 200_000 + "x", ":a" * 100_000, "a_" * 100_000, ".. a::\n" * 50_000,
                 ".. _x:\n" + "   y\n" * 50_000, "a-b+c:d." * 50_000, "<" * 200_000 + "`_"):
        assert len(rst_text(text)) <= len(text) + 1


def test_rst_files_are_read_as_rendered_by_every_reader(tmp_path):
    files = [("page.rst", PAGE.encode()), ("plain.txt", b":func:`kept` as written"), ("more.rest", b"`x <y>`_ z")]
    documents = engine.read_txt_files(files)
    assert [d.text for d in documents] == [rst_text(PAGE), ":func:`kept` as written", "x z"]
    assert [d.title for d in documents] == ["page", "plain", "more"]
    assert_every_reader_reads_alike(tmp_path, files, documents, {"https", "linenos", "toctree"})


# ---------------------------------------------------------------- docutils as the oracle
_WORD = st.sampled_from(["topic", "model", "words", "corpus", "step", "size", "prior", "document", "sample", "gamma"])
_PHRASE = st.lists(_WORD, min_size=1, max_size=3).map(" ".join)


def _address(name: str) -> str:
    """The one address of the link target ``name``: a name given two addresses (an embedded link and an explicit
    target) is an error to docutils, which then prints a reference to it as its markup."""
    return f"https://example.com/{name.replace(' ', '-')}/page.html"


@st.composite
def _inline(draw) -> tuple[str, list[str]]:
    """A piece of a paragraph, and the link targets it needs defined."""
    kind = draw(st.sampled_from(["plain", "emphasis", "strong", "literal", "role", "role_after", "link", "named",
                                 "simple"]))
    phrase, word = draw(_PHRASE), draw(_WORD)
    role = draw(st.sampled_from(["emphasis", "strong", "literal", "sub", "sup", "title-reference"]))
    if kind == "emphasis":
        return f"*{phrase}*", []
    if kind == "strong":
        return f"**{phrase}**", []
    if kind == "literal":
        return f"``{phrase}``", []
    if kind == "role":
        return f":{role}:`{phrase}`", []
    if kind == "role_after":
        return f"`{phrase}`:{role}:", []
    if kind == "link":  # defines the target ``phrase`` too, at the one address every definition of it gives
        return f"`{phrase} <{_address(phrase)}>`_", []
    if kind == "named":
        return f"`{phrase}`_", [phrase]
    if kind == "simple":
        return f"{word}_", [word]
    return phrase, []


@st.composite
def _block(draw) -> tuple[str, list[str]]:
    """A block of a page (paragraphs, titles, lists, directives, comments), and the link targets it needs."""
    kind = draw(st.sampled_from(["paragraph", "title", "bullets", "literal", "note", "code", "image", "topic",
                                 "rubric", "comment", "lone_comment", "target"]))
    phrase, other = draw(_PHRASE), draw(_PHRASE)
    if kind == "paragraph":
        pieces = draw(st.lists(_inline(), min_size=1, max_size=4))
        return " ".join(text for text, _ in pieces) + ".", [name for _, names in pieces for name in names]
    if kind == "title":
        return f"{phrase}\n{'=' * len(phrase)}", []
    if kind == "bullets":
        return f"- {phrase}\n- {other}", []
    if kind == "literal":
        return f"{phrase}::\n\n   {other} = 1", []
    if kind == "note":
        return f".. {draw(st.sampled_from(['note', 'warning', 'tip']))}:: {phrase}\n\n   {other}", []
    if kind == "code":
        return f".. code:: python\n   :class: example\n\n   {phrase} = {other!r}", []
    if kind == "image":
        return f".. image:: images/{draw(_WORD)}.png\n   :alt: {phrase}\n   :width: 50%", []
    if kind == "topic":
        return f".. topic:: {phrase}\n\n   {other}", []
    if kind == "rubric":
        return f".. rubric:: {phrase}", []
    if kind == "comment":
        return f".. {phrase}\n   {other}", []
    if kind == "lone_comment":
        return f"..\n   {phrase}\n\n   {other}", []
    return f".. _{draw(_WORD)}x: https://example.com/{draw(_WORD)}", []


def _rendered_words(source: str) -> Counter:
    """The words of docutils' document tree, its comments (and its parser's messages) left out."""
    tree = publish_doctree(source, settings_overrides={"report_level": 5, "halt_level": 5,
                                                       "file_insertion_enabled": False, "raw_enabled": False})
    for hidden in [*tree.findall(nodes.comment), *tree.findall(nodes.system_message)]:
        hidden.parent.remove(hidden)
    return Counter(_words(tree.astext()))


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(_block(), min_size=1, max_size=8))
def test_the_words_are_those_docutils_renders(blocks):
    needed = sorted({name for _, names in blocks for name in names})
    source = "\n\n".join([text for text, _ in blocks] + [f".. _{name}: {_address(name)}" for name in needed]) + "\n"
    assert Counter(_words(rst_text(source))) == _rendered_words(source), source


_MARKUP = st.sampled_from([" ", "\t", "\n", ".", "_", ":", "`", "|", "<", ">", "[", "]", "#", "*", "~", "!", "-", "a",
                           "1", "..", ".. ", "::", "`_", "__", ":a:`", "\n   ", "\n.. ", "|x|", "[1]_", "<http://e>"])


@settings(max_examples=500, deadline=None)
@given(st.lists(_MARKUP, max_size=60).map("".join))
def test_any_run_of_markup_reads_without_error_and_adds_nothing(text):
    assert len(rst_text(text)) <= len(text) + 1


# ---------------------------------------------------------------- a site built by Sphinx
_SITE = {
    "index.html": "<html><body><h1>Welcome</h1><p>Topic models for documents.</p></body></html>",
    "usage/intro.html": "<html><body><h1>Introduction</h1><p>Training a model step by step.</p></body></html>",
    "usage/guide/index.html": "<html><body><h1>Guide</h1><p>Priors, sizes and samples.</p></body></html>",
    "_sources/index.rst.txt": "Welcome\n=======\n\nTopic models for :doc:`documents <usage/intro>`.\n",
    "_sources/usage/intro.rst.txt": "Introduction\n============\n\n.. toctree::\n   :maxdepth: 2\n\nTraining.\n",
    "_sources/usage/guide.txt": "Guide\n=====\n\nPriors, :term:`sizes` and samples.\n",  # before Sphinx 1.5, dirhtml
    "_sources/draft.rst.txt": "Draft\n=====\n\nSee :func:`fit_model` now.\n",  # a source without its page
    "_sources/notes.md.txt": "# Notes\n\nA [linked](https://example.com/page) word.\n",
    "_static/basic.css": "body { margin: 0 }",
    # the pages Sphinx generates: indexes, the search page, sphinx.ext.viewcode's highlighted code
    "genindex.html": "<html><body><h1>Index</h1><p>fit_model() priors samples sizes step training</p></body></html>",
    "py-modindex.html": "<html><body><h1>Python Module Index</h1><p>engine.core</p></body></html>",
    "search.html": "<html><body><h1>Search</h1><p>Please activate JavaScript.</p></body></html>",
    "_modules/index.html": "<html><body><h1>All modules for which code is available</h1></body></html>",
    "_modules/engine/core.html": "<html><body><pre>def fit_model(self):\n    return self</pre></body></html>",
    "objects.inv": "# Sphinx inventory version 2\n",
}
_GENERATED = {
    "genindex.html": "Sphinx's index of the site's terms, generated from its pages, which are read",
    "py-modindex.html": "Sphinx's index of the site's modules, generated from its pages, which are read",
    "search.html": "Sphinx's search page, which holds no text of the site",
    "_modules/index.html": "Sphinx's list of the Python modules whose code the site shows (sphinx.ext.viewcode)",
    "_modules/engine/core.html": "Sphinx's highlighted copy of a Python module's code (sphinx.ext.viewcode), "
                                 "not documentation",
}
_SOURCE_REASON = "Sphinx's copy of a page's source; the page is read"  # one reason for every file of a kind
_COPIED = {"_sources/index.rst.txt": "index.html", "_sources/usage/intro.rst.txt": "usage/intro.html",
           "_sources/usage/guide.txt": "usage/guide/index.html"}


def test_sphinx_sources_pairs_each_copied_source_with_its_page():
    assert engine.sphinx_sources(_SITE) == _COPIED
    assert engine.sphinx_sources(f"site/html/{name}" for name in _SITE) == {  # a site inside a folder
        f"site/html/{name}": f"site/html/{page}" for name, page in _COPIED.items()}
    assert engine.sphinx_sources(["_sources/a.rst.txt"]) == {}  # no page: read
    assert engine.sphinx_sources(["a.html", "_sources.rst.txt", "other/a.rst.txt", "_sources/a.rst"]) == {}
    assert engine.sphinx_sources(["b/a.html", "_sources/b/a.ipynb.txt", "_sources/c.rst.txt", "c.htm"]) == {
        "_sources/b/a.ipynb.txt": "b/a.html", "_sources/c.rst.txt": "c.htm"}


def test_a_sphinx_site_is_read_page_by_page_by_every_reader(tmp_path):
    """Each page once, as its HTML; the sources Sphinx copied beside them skipped; a source
    without its page read as rendered (.rst.txt as reStructuredText, .md.txt as Markdown)."""
    files = [(name, text.encode()) for name, text in _SITE.items()]
    folder = tmp_path / "site"
    for name, data in files:
        (folder / name).parent.mkdir(parents=True, exist_ok=True)
        (folder / name).write_bytes(data)
    with zipfile.ZipFile(tmp_path / "site.zip", "w") as archive:
        for name, data in files:
            archive.writestr(name, data)
    expected = {"index.html", "usage/intro.html", "usage/guide/index.html", "_sources/draft.rst.txt",
                "_sources/notes.md.txt"}
    for documents in (engine.read_txt_files(files), engine.read_folder(folder), engine.read_zip(tmp_path / "site.zip")):
        assert {d.doc_id for d in documents} == expected
        texts = {d.doc_id: d.text for d in documents}
        assert texts["_sources/draft.rst.txt"] == rst_text(_SITE["_sources/draft.rst.txt"])
        assert "fit_model" in texts["_sources/draft.rst.txt"] and ":func:" not in texts["_sources/draft.rst.txt"]
        assert "https" not in texts["_sources/notes.md.txt"] and "linked word" in texts["_sources/notes.md.txt"]
        skipped = {s.name: s.reason for s in documents.skipped}
        assert {name: skipped[name] for name in _COPIED} == dict.fromkeys(_COPIED, _SOURCE_REASON)
        assert {name: skipped[name] for name in _GENERATED} == _GENERATED
        assert "_static/basic.css" in skipped
    memory = engine.load_corpus(folder, min_df=1)
    disk = engine.DiskCorpus.from_texts(folder, tmp_path / "disk", min_df=1)
    assert set(memory.doc_ids) == expected and disk.doc_ids == memory.doc_ids
    assert disk.skipped == memory.skipped and not {"toctree", "maxdepth", "term", "func"} & set(memory.vocabulary)
    assert not {"def", "self", "javascript"} & set(memory.vocabulary)  # the generated pages' words are not read


def test_sphinx_generated_pages_are_known_only_at_the_root_of_a_site_sphinx_built():
    assert engine.sphinx_generated_pages(_SITE) == _GENERATED
    assert engine.sphinx_unread(_SITE) == _GENERATED | dict.fromkeys(_COPIED, _SOURCE_REASON)
    inside = {f"docs/html/{name}": reason for name, reason in _GENERATED.items()}
    assert engine.sphinx_generated_pages(f"docs/html/{name}" for name in _SITE) == inside
    pages = ["genindex.html", "search.html", "py-modindex.html", "_modules/a.html", "guide/search.html"]
    assert engine.sphinx_generated_pages(pages) == {}  # no sign of Sphinx: every page is read
    for marker in ("objects.inv", "searchindex.js", "_static/documentation_options.js"):
        assert set(engine.sphinx_generated_pages([marker, *pages])) == set(pages) - {"guide/search.html"}
    # sites inside sites, and as many sites as an upload may hold files (each page looked up along its own folders)
    nested = engine.sphinx_generated_pages(["objects.inv", "docs/objects.inv", "docs/search.html", "docs/guide.html",
                                            "docs/_modules/m.html", "other/search.html"])
    assert set(nested) == {"docs/search.html", "docs/_modules/m.html"}
    many = engine.sphinx_generated_pages([f"site{i}/{name}" for i in range(10_000)
                                          for name in ("objects.inv", "search.html", "guide.html")])
    assert len(many) == 10_000 and all(name.endswith("/search.html") for name in many)
    # a copied source whose page is there marks the site too; a source without its page does not
    assert set(engine.sphinx_generated_pages(["a.html", "_sources/a.rst.txt", "search.html"])) == {"search.html"}
    assert engine.sphinx_generated_pages(["_sources/a.rst.txt", "search.html"]) == {}
    # the dirhtml builder's forms, the index split by letter, another domain's index; authors' pages named alike
    dirhtml = ["searchindex.js", "genindex/index.html", "genindex-A/index.html", "search/index.html",
               "js-modindex.html", "_modules/pkg/mod/index.html", "searching.html", "genindex.txt",
               "usage/genindex.html", "modindex.html", "_modules.html", "404/index.html", "usage/404.html",
               "_modules/index/index.html"]
    assert engine.sphinx_generated_pages(dirhtml) == {
        "genindex/index.html": _GENERATED["genindex.html"], "genindex-A/index.html": _GENERATED["genindex.html"],
        "search/index.html": _GENERATED["search.html"],
        "js-modindex.html": _GENERATED["py-modindex.html"],
        "404/index.html": "the page a site Sphinx built shows for an address it does not have",
        "_modules/pkg/mod/index.html": _GENERATED["_modules/engine/core.html"],
        "_modules/index/index.html": _GENERATED["_modules/index.html"]}
