"""HTML of a document with each word coloured by its most likely topic (no Streamlit)."""

from __future__ import annotations

import html
from collections.abc import Callable, Mapping, Sequence

__all__ = ["coloured_text", "coloured_words", "legend"]

MAX_CHARACTERS = 20_000


def _span(text: str, color: str, title: str) -> str:
    return (f"<span title='{html.escape(title, quote=True)}' style='background:{color}2e;"
            f"border-bottom:2px solid {color};border-radius:2px;padding:0 1px'>{html.escape(text)}</span>")


def coloured_text(segments: Sequence[tuple[str, int | None]], word_topic: Mapping[int, int],
                  color: Callable[[int], str], label: Callable[[int], str]) -> str:
    """HTML of text segments ``(text, vocabulary index or None)``; known words get their topic's colour.

    ``word_topic`` maps a vocabulary index to the topic it is most likely drawn from in this
    document; words outside it are left plain.  Text past :data:`MAX_CHARACTERS` is cut.
    """
    parts, length = [], 0
    for text, word in segments:
        if length >= MAX_CHARACTERS:
            parts.append(" …")
            break
        length += len(text)
        topic = None if word is None else word_topic.get(word)
        parts.append(html.escape(text) if topic is None else _span(text, color(topic), label(topic)))
    body = "".join(parts).replace("\n", "<br>")
    return f"<div style='line-height:1.9;font-size:1.02em'>{body}</div>"


def coloured_words(words: Sequence[tuple[int, str, int]], word_topic: Mapping[int, int],
                   color: Callable[[int], str], label: Callable[[int], str]) -> str:
    """HTML of a bag of words ``(vocabulary index, word, count)`` when the original text is unknown."""
    chips = []
    for index, word, count in words:
        text = f"{word} ×{count}" if count > 1 else word
        topic = word_topic.get(index)
        chips.append(html.escape(text) if topic is None else _span(text, color(topic), label(topic)))
    return f"<div style='line-height:2.1'>{' '.join(chips)}</div>"


def legend(topics: Sequence[int], color: Callable[[int], str], label: Callable[[int], str]) -> str:
    """HTML legend: a colour chip and the label of each topic."""
    items = [f"<span style='white-space:nowrap;margin-right:1em'><span style='display:inline-block;width:0.9em;"
             f"height:0.9em;background:{color(k)};border-radius:2px;vertical-align:middle'></span> "
             f"{html.escape(label(k))}</span>" for k in topics]
    return f"<div style='line-height:1.8'>{' '.join(items)}</div>"
