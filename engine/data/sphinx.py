"""The files of a site built by Sphinx that are not pages of their own: copied sources and generated pages.

A documentation site built by Sphinx's HTML builders (a ``_build/html`` folder, a zip of it, a
mirror of a Read the Docs site) holds, beside the pages its authors wrote:

- a copy of each page's source, ``_sources/usage/intro.rst.txt`` beside ``usage/intro.html``
  (``html_copy_source``, on by default): the same text a second time, with its markup;
- pages Sphinx generates from the others: the index of terms (``genindex.html``), the index of
  Python modules (``py-modindex.html``), the search page (``search.html``) and, with
  ``sphinx.ext.viewcode``, a highlighted copy of each documented module's code
  (``_modules/pkg/mod.html``) and their list (``_modules/index.html``); on many sites also the
  page shown for a missing address (``404.html``, from ``sphinx-notfound-page``).

The readers read the authors' pages and list these files as skipped, each with the reason
:func:`sphinx_unread` gives.  Generated pages are recognised only at the root of a site Sphinx
built, one holding a file only Sphinx writes there (``objects.inv``, ``searchindex.js``,
``_static/documentation_options.js``) or a copied source whose page is there: a page named
``search.html`` elsewhere is read.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from engine.data.markdown import MARKDOWN_SUFFIXES
from engine.data.rst import RST_SUFFIXES

__all__ = ["sphinx_generated_pages", "sphinx_sources", "sphinx_unread"]

# Sphinx's HTML builders copy each page's source into this folder of the site (html_copy_source, on by default), as
# the source's name plus ".txt": the page usage/intro.html has _sources/usage/intro.rst.txt
SPHINX_SOURCES = "_sources"
_SOURCE_SUFFIXES = (*RST_SUFFIXES, *MARKDOWN_SUFFIXES, ".txt", ".ipynb")
# files only Sphinx's HTML builders write at a site's root: the inventory intersphinx reads, the search index and the
# options of the theme's scripts
_SITE_MARKERS = ("objects.inv", "searchindex.js", "_static/documentation_options.js")
_MODULE_CODE = "_modules"  # sphinx.ext.viewcode's pages
# a generated page's name at the site's root, without ".html" or "/index.html" (the dirhtml builder's form):
# the index of terms (split by letter with html_split_index), a domain's index of modules, the search page, the page
# for a missing address (sphinx-notfound-page's, which Read the Docs serves)
_GENERATED = {
    "index": re.compile(r"genindex(-[^/]+)?"),
    "modules": re.compile(r"[a-z]+-modindex"),
    "search": re.compile(r"search"),
    "not found": re.compile(r"404"),
}
_REASONS = {
    "index": "Sphinx's index of the site's terms, generated from its pages, which are read",
    "modules": "Sphinx's index of the site's modules, generated from its pages, which are read",
    "search": "Sphinx's search page, which holds no text of the site",
    "not found": "the page a site Sphinx built shows for an address it does not have",
    "code list": "Sphinx's list of the Python modules whose code the site shows (sphinx.ext.viewcode)",
    "code": "Sphinx's highlighted copy of a Python module's code (sphinx.ext.viewcode), not documentation",
    "source": "Sphinx's copy of a page's source; the page is read",
}


def _is_page(name: str) -> bool:
    return name.lower().endswith((".html", ".htm"))


def sphinx_sources(names: Iterable[str]) -> dict[str, str]:
    """The files among ``names`` that are Sphinx's copies of a page's source, each with its page (also in ``names``).

    A site built by Sphinx (a Read the Docs download, a ``_build/html`` folder) holds each page
    twice: ``usage/intro.html`` and its source ``_sources/usage/intro.rst.txt`` (``intro.txt``
    before Sphinx 1.5; the page is ``usage/intro/index.html`` from the ``dirhtml`` builder).  The
    readers read the page and list its source in ``skipped``: the page shows what the source
    pulls in (an ``autoclass`` directive's docstrings) and read twice, every page would weigh
    double in the topics.  A source whose page is not among ``names`` is not listed here: it is
    read, a ``.rst.txt`` or ``.md.txt`` file as rendered.

    Parameters
    ----------
    names : iterable of str
        Paths with ``/`` separators, as the readers name documents.

    Returns
    -------
    dict of str to str
        Each copied source's name -> the name of its page.

    Examples
    --------
    >>> from engine import sphinx_sources
    >>> sphinx_sources(["index.html", "usage/intro.html", "_sources/index.rst.txt", "_sources/usage/intro.rst.txt",
    ...                 "_sources/draft.rst.txt", "notes.txt"])
    {'_sources/index.rst.txt': 'index.html', '_sources/usage/intro.rst.txt': 'usage/intro.html'}
    """
    names = [str(name) for name in names]
    pages = {name for name in names if _is_page(name)}
    found = {}
    for name in names:
        parts = name.split("/")
        if SPHINX_SOURCES not in parts[:-1] or not name.lower().endswith(".txt"):
            continue
        at = parts.index(SPHINX_SOURCES)
        page = "/".join(parts[at + 1:])[:-len(".txt")]
        for suffix in _SOURCE_SUFFIXES:
            if page.lower().endswith(suffix):
                page = page[:-len(suffix)]
                break
        prefix = "".join(f"{part}/" for part in parts[:at])
        for candidate in (f"{prefix}{page}.html", f"{prefix}{page}/index.html", f"{prefix}{page}.htm"):
            if candidate in pages:
                found[name] = candidate
                break
    return found


def _site_roots(names: list[str], sources: dict[str, str]) -> dict:
    """The folders of ``names`` at which Sphinx built a site, as a tree: each folder's name -> its subtree, and the
    key None in the subtree of a site's root (the top one for a site at the top)."""
    roots: dict = {}

    def add(parts: list[str]) -> None:
        node = roots
        for part in parts:
            node = node.setdefault(part, {})
        node[None] = True

    for name in names:
        for marker in _SITE_MARKERS:
            if name == marker or name.endswith(f"/{marker}"):
                add(name[:-len(marker)].split("/")[:-1])
    for source in sources:
        parts = source.split("/")
        add(parts[:parts.index(SPHINX_SOURCES)])
    return roots


def _generated_reason(parts: list[str], root: int) -> str | None:
    """Why the page ``parts`` (its name split at "/") is not read, if a Sphinx site's root is the folder of its
    first ``root`` parts; None for an authors' page.  Takes time linear in the name's length."""
    rest = len(parts) - root
    if rest >= 2 and parts[root] == _MODULE_CODE:
        page = parts[root + 1:]  # below _modules/
        if len(page) == 2 and page[1].lower() == "index.html":  # the dirhtml builder's form of page[0].html
            page = [f"{page[0]}.html"]
        return _REASONS["code list" if len(page) == 1 and page[0].rpartition(".")[0] == "index" else "code"]
    if rest == 1 and parts[-1].lower().endswith(".html"):
        stem = parts[-1][:-len(".html")]
    elif rest == 2 and parts[-1].lower() == "index.html":
        stem = parts[-2]
    else:
        return None
    for kind, pattern in _GENERATED.items():
        if pattern.fullmatch(stem):
            return _REASONS[kind]
    return None


def sphinx_generated_pages(names: Iterable[str]) -> dict[str, str]:
    """The pages among ``names`` that Sphinx generated rather than its authors wrote, each with what it is.

    At the root of a site Sphinx built (see the module docstring): the index of terms
    (``genindex.html``, ``genindex-A.html``), a domain's index of modules (``py-modindex.html``),
    the search page (``search.html``), the page for a missing address (``404.html``), and
    ``sphinx.ext.viewcode``'s pages under ``_modules/``: the highlighted code of each documented
    Python module and their list.  Read as documents, an index repeats every term of the site in
    one document, and the code pages bring the code's names and keywords, which the pages
    documenting the modules do not hold, in pages as long as a module.
    The dirhtml builder's forms (``genindex/index.html``) are recognised too.

    Parameters
    ----------
    names : iterable of str
        Paths with ``/`` separators, as the readers name documents, with the site's other files
        (``objects.inv``, ``searchindex.js``), by which the site's root is found.

    Returns
    -------
    dict of str to str
        Each generated page's name -> what it is, as the readers list it in ``skipped``.

    Examples
    --------
    >>> from engine import sphinx_generated_pages
    >>> sorted(sphinx_generated_pages(["objects.inv", "index.html", "genindex.html", "search.html",
    ...                                "_modules/pkg/core.html", "guide/search.html"]))
    ['_modules/pkg/core.html', 'genindex.html', 'search.html']
    """
    names = [str(name) for name in names]
    return _generated(names, sphinx_sources(names))


def _generated(names: list[str], sources: dict[str, str]) -> dict[str, str]:
    """sphinx_generated_pages' work, given the copied sources among ``names``."""
    roots = _site_roots(names, sources)
    found = {}
    for name in names:
        if not _is_page(name):
            continue
        parts = name.split("/")
        node = roots
        for depth in range(len(parts)):  # the site roots above the page, the outermost first: one walk down the tree
            if None in node:
                reason = _generated_reason(parts, depth)
                if reason is not None:
                    found[name] = reason
                    break
            node = node.get(parts[depth])
            if node is None:
                break
    return found


def sphinx_unread(names: Iterable[str]) -> dict[str, str]:
    """The files among ``names`` the readers skip as parts of a site Sphinx built, each with why: one reason for
    all the files of a kind (their names say which page or module each is), so that a list of them groups by it.

    The copied sources of pages that are read (:func:`sphinx_sources`) and the generated pages
    (:func:`sphinx_generated_pages`).
    """
    names = [str(name) for name in names]
    sources = sphinx_sources(names)
    unread = dict.fromkeys(sources, _REASONS["source"])
    unread.update(_generated(names, sources))
    return unread
