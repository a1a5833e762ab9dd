"""reStructuredText files (``.rst``) read as the text their reader sees.

Python projects write their documentation in reStructuredText (Sphinx, Read the Docs), and
so do many READMEs and change logs.  Read as it is, its markup adds words that nobody reads
on the rendered page: the names of roles (``:func:`len``` -> "func") and directives
(``.. code-block:: python`` -> "code", "block", "python"), directive options
(``:maxdepth: 2``), the addresses of links and link targets, comments.  :func:`rst_text`
keeps what a rendered page shows:

- roles as their text (``:func:`os.path.join``` -> "os.path.join", ``:ref:`the guide
  <install>``` -> "the guide", ``:class:`~engine.LDA``` -> "LDA"), links as their text
  (```the paper <https://...>`_`` -> "the paper", ``Python_`` -> "Python");
- directives without their names, their options (but for an image's ``:alt:`` text and a
  block's ``:caption:``) and, for those whose argument is a file, a language or a module
  (``image``, ``include``, ``code-block``, ``toctree``, ``automodule``...), without their
  argument; a note's, a function's (``autofunction`` too) or a version's argument stays, as
  the page shows it; the content of ``toctree`` (documents' paths), graphs, hidden test code
  and ``raw`` output (HTML, LaTeX) is left out;
- comments, link targets (``.. _install:``, ``.. _Python: https://...``, ``__ https://...``)
  and substitution definitions left out; a footnote's text kept without its label, a
  reference to it as its label (``[1]_`` -> "[1]");
- literal blocks and code as their code (as :func:`engine.markdown_text` keeps code).

Section titles' underlines, tables' borders and list marks stay: they are punctuation, which
the tokenizer skips.  The lines are read once and each pattern matches in linear time, so a
hostile file costs no more than its length.
"""

from __future__ import annotations

import re

__all__ = ["RST_SUFFIXES", "rst_text"]

RST_SUFFIXES = (".rst", ".rest")

# directives whose content the page does not show as text: documents' paths, graphs, hidden test code, raw output
# (HTML's tags, LaTeX's commands); the whole directive is left out
_HIDDEN_CONTENT = frozenset({"toctree", "graphviz", "digraph", "graph", "testsetup", "testcleanup", "meta",
                             "tabularcolumns", "highlight", "index", "default-role", "role", "raw"})
# directives whose content is shown but whose argument is a file, a language, a module or other markup
_NO_TEXT_ARGUMENT = frozenset({
    "image", "figure", "include", "literalinclude", "code", "code-block", "sourcecode", "highlightlang", "only",
    "ifconfig", "module", "currentmodule", "automodule", "autosummary", "autoprogram", "program", "sectnum",
    "section-numbering", "class", "container", "target-notes", "plot", "math", "doctest", "testcode", "testoutput",
    "date", "unicode", "replace", "title",
})
_KEPT_OPTIONS = frozenset({"alt", "caption"})  # options whose value the page shows
_BODY, _HIDDEN = "body", "hidden"
# Sphinx's file-wide fields, which the page does not show
_METADATA = re.compile(r":(?:orphan|nosearch|nocomments|tocdepth)(?::[ \t]*$|:[ \t]+\d+[ \t]*$)")

_EXPLICIT = re.compile(r"([ \t]*)\.\.(?:[ \t]+(.*))?$")  # ".. something" or a lone ".."
_DIRECTIVE = re.compile(r"((?:[\w-]+:)*[\w-]+)[ \t]*::(?:[ \t]+(.*))?$")
_FOOTNOTE = re.compile(r"\[(?:#?[\w.-]*|\*)\][ \t]*(.*)$")
_OPTION = re.compile(r"[ \t]*:([\w-]+(?:[ \t][\w-]+)*):(?:[ \t]+(.*))?$")
_ANONYMOUS_TARGET = re.compile(r"[ \t]*__[ \t]+\S")
# inline markup: roles (before or after their text), references with a target, simple references
_ROLE_BEFORE = re.compile(r"(?<![\w`:]):(?:[\w.+-]+:)*[\w.+-]+:`([^`]+)`")
_ROLE_AFTER = re.compile(r"(?<![\w`])`([^`]+)`:(?:[\w.+-]+:)*[\w.+-]+:(?![\w`])")
_REFERENCE = re.compile(r"(?<![\w`])`([^`]+)`__?(?![\w`])")
# a name starts after a character that cannot be inside one, so each word is scanned once
_SIMPLE_REFERENCE = re.compile(r"(?<![\w`|.+:-])([^\W_](?:[^\W_]|[-_.+:](?=[^\W_]))*)__?(?![\w`])")
_FOOTNOTE_REFERENCE = re.compile(r"\[(#?[\w.-]*|\*)\]_(?![\w`])")
_SUBSTITUTION_REFERENCE = re.compile(r"\|([^|\n]+)\|__?(?![\w`])")
_TARGET = re.compile(r"<([^<>]*)>\s*$")


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip(" \t"))


def _shown(text: str) -> str:
    """A role's or reference's text as the page shows it: the title of ``title <target>``, else the target
    (``~a.b.c`` as ``c``, a leading ``!`` dropped)."""
    target = _TARGET.search(text)
    if target is not None:
        title = text[:target.start()].strip()
        if title:
            return title
        text = target.group(1)
    text = text.strip().lstrip("!")
    return text.rsplit(".", 1)[-1] if text.startswith("~") and "." in text else text.lstrip("~")


def _explicit_markup(head: str) -> tuple[str | None, str]:
    """What the page shows of an explicit markup line ``.. <head>`` (None: nothing), and what the lines indented
    under it are: ``"body"`` (a directive's options, then its content, kept), ``"hidden"`` (a comment, target,
    definition or a directive whose content the page does not show as text, left out)."""
    if head.startswith("_") or head.startswith("|"):  # a link target; a substitution definition
        return None, _HIDDEN
    footnote = _FOOTNOTE.match(head)
    if footnote is not None:
        return footnote.group(1), _BODY
    directive = _DIRECTIVE.match(head)
    if directive is None:  # a comment
        return None, _HIDDEN
    name = directive.group(1).rsplit(":", 1)[-1].lower()  # "py:function" -> "function"
    argument = (directive.group(2) or "").strip()
    if _OPTION.match(argument):  # options begun on the directive's line (".. contents:: :depth: 2")
        argument = ""
    if name in _HIDDEN_CONTENT:
        return None, _HIDDEN
    return ("" if name in _NO_TEXT_ARGUMENT else argument), _BODY


def rst_text(text: str) -> str:
    """The text a reader of the rendered reStructuredText ``text`` sees (see the module's notes)."""
    out: list[str] = []
    hidden_under = -1  # the indentation of the markup whose indented lines are left out
    hidden_lines = 0  # ... and how many were left out: a lone ".." then a blank line hides nothing
    lone = False
    options_under = -1  # the indentation of a directive whose option lines (":name: value") follow
    for line in text.splitlines():
        if not line.strip():
            options_under = -1  # options end at the first blank line
            if lone and hidden_lines == 0:  # an empty comment ends at a blank line
                hidden_under = -1
            out.append("")
            continue
        indent = _indent(line)
        if hidden_under >= 0:
            if indent > hidden_under:
                hidden_lines += 1
                continue
            hidden_under = -1
        if options_under >= 0:
            option = _OPTION.match(line) if indent > options_under else None
            if option is not None:
                if option.group(1).lower() in _KEPT_OPTIONS and option.group(2):
                    out.append(option.group(2))
                continue
            options_under = -1
        explicit = _EXPLICIT.match(line)
        if explicit is not None:
            shown, under = _explicit_markup(explicit.group(2) or "")
            if under == _BODY:
                options_under = indent
                if shown:
                    out.append(explicit.group(1) + shown)
            else:
                hidden_under, hidden_lines, lone = indent, 0, not explicit.group(2)
            continue
        if _ANONYMOUS_TARGET.match(line) or (indent == 0 and _METADATA.match(line)):
            continue
        out.append(line)
    joined = "\n".join(out) + ("\n" if text.endswith(("\n", "\r")) else "")
    if "`" in joined:
        joined = _ROLE_BEFORE.sub(lambda match: _shown(match.group(1)), joined)
        joined = _ROLE_AFTER.sub(lambda match: _shown(match.group(1)), joined)
        joined = _REFERENCE.sub(lambda match: _shown(match.group(1)), joined)
    if "|" in joined:
        joined = _SUBSTITUTION_REFERENCE.sub(r"|\1|", joined)
    if "_" in joined:
        joined = _FOOTNOTE_REFERENCE.sub(r"[\1]", _SIMPLE_REFERENCE.sub(r"\1", joined))
    return joined
