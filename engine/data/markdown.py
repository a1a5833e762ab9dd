"""Markdown files (``.md``) read as the text their reader sees.

Notes apps (Obsidian, Joplin, Bear), wikis and project documentation keep text as Markdown.
Read as it is, its syntax adds words that nobody reads: a link's address ("https", "com",
"github"), a code fence's language, the keys of a front matter block, the address of a
reference definition.  :func:`markdown_text` keeps what a rendered page shows:

- links and images as their text (``[the paper](https://...)`` -> "the paper", ``![a chart](c.png)``
  -> "a chart"), wiki links as their page or alias (``[[Topic models|LDA]]`` -> "LDA"),
  reference links as their text; reference definitions (``[1]: https://...``) and autolinks
  (``<https://...>``) are left out;
- a front matter block (between ``---`` lines at the top) as its values, without the keys;
- code blocks as their code, without the fence lines and their language; HTML comments and
  script or style elements left out (other HTML is left to :func:`engine.strip_markup`).

Headings, emphasis and list marks stay: they are punctuation, which the tokenizer skips.  Each
pattern matches in linear time, so a hostile file costs no more than its length.
"""

from __future__ import annotations

import re

from engine.data.markup import _without_spans

__all__ = ["MARKDOWN_SUFFIXES", "markdown_text"]

MARKDOWN_SUFFIXES = (".md", ".markdown")

_FRONT_MATTER = re.compile(r"\A---[ \t]*\n(.*?)\n(?:---|\.\.\.)[ \t]*(?:\n|\Z)", re.DOTALL)
_KEY = re.compile(r"^([ \t]*)[\w.-]+:[ \t]*", re.MULTILINE)
_FENCE = re.compile(r"^[ \t]{0,3}(?:```|~~~)[^\n]*$", re.MULTILINE)
# no bracket inside brackets: each search stops at the next "[", so a run of brackets costs linear time
_WIKI_LINK = re.compile(r"\[\[([^\[\]|\n]*)(?:\|([^\[\]\n]*))?\]\]")
_TARGET = r"\((?:[^()\n]|\([^()\n]*\))*\)"  # a link's address and title: one level of parentheses inside
_IMAGE = re.compile(r"!\[([^\[\]\n]*)\]" + _TARGET)
_LINK = re.compile(r"\[([^\[\]\n]*)\]" + _TARGET)
_REFERENCE_LINK = re.compile(r"\[([^\[\]\n]+)\]\[[^\[\]\n]*\]")
_DEFINITION = re.compile(r"^[ \t]{0,3}\[[^\]\n]+\]:[ \t]*\S[^\n]*$", re.MULTILINE)
_AUTOLINK = re.compile(r"<(?:https?|ftp|mailto):[^<>\s]*>", re.IGNORECASE)


def markdown_text(text: str) -> str:
    """The text a reader of the rendered Markdown ``text`` sees (see the module's notes)."""
    front = _FRONT_MATTER.match(text)
    if front:
        text = _KEY.sub(r"\1", front.group(1)) + "\n\n" + text[front.end():]
    if "<" in text:
        text = _AUTOLINK.sub(" ", _without_spans(text))
    text = _FENCE.sub("", text)
    if "[" in text:
        text = _WIKI_LINK.sub(lambda match: match.group(2) or match.group(1), text)
        text = _LINK.sub(r"\1", _IMAGE.sub(r"\1", text))
        text = _DEFINITION.sub("", _REFERENCE_LINK.sub(r"\1", text))
    return text
