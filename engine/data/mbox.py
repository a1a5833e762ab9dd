"""Mailbox files (``.mbox``) read as tables: one row per message.

An mbox file (what mail programs and Google Takeout export) holds messages one after another,
each starting with a separator line "From <sender> <date>" at the start of the file or after a
blank line; a body line that itself starts with "From " is written ">From " (and ">From " as
">>From ", in the mboxrd variant), and reading takes one ">" off again.  Each message becomes a
row of :data:`COLUMNS`: its subject, sender and date as the headers give them (encoded words,
"=?utf-8?q?...?=", decoded) and its whole text without the separator line, headers included,
which the corpus then reads as its sender wrote it (``strip_messages``,
:func:`engine.data.messages.message_text`).  So a mailbox is read as any other table is: by
:func:`engine.read_table`, by :class:`engine.DiskCorpus` a chunk of messages at a time, and by
the app, which shows its rows and suggests "subject" as the titles.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator

import pandas as pd

from engine.data.messages import _FIELD, _MBOX_SEPARATOR, header_values
from engine.errors import CorpusFormatError, EmptyCorpusError

__all__ = ["mbox_frame", "mbox_rows"]

COLUMNS = ("subject", "from", "date", "text")
_ESCAPED = re.compile(r">+From ")
_HEADER_CHARACTERS = 20_000  # of a message read for its subject, sender and date


def _messages(lines: Iterable[str], label: str) -> Iterator[str]:
    """The texts of the messages in ``lines`` (each with or without its line break), separators dropped.

    A line is a separator when it starts with "From ", follows a blank line (or starts the
    file) and the next line is a header line ("Name: value"): a body paragraph that starts
    with an unescaped "From here on" stays in its message.
    """
    current: list[str] | None = None
    blank_before, candidate = True, None
    for line in lines:
        line = line.rstrip("\r\n")
        if candidate is not None:
            if _FIELD.match(line):  # a header line: a field name, then a colon
                if current is not None:
                    yield "\n".join(current).rstrip("\n")
                current = []
            elif current is None:
                raise _not_mbox(label, candidate)
            else:
                current.append(candidate)
            candidate = None
        if _MBOX_SEPARATOR.match(line) and blank_before:
            candidate = line
        elif current is None:
            if line.strip():
                raise _not_mbox(label, line)
        else:
            current.append(line[1:] if _ESCAPED.match(line) else line)
        blank_before = not line.strip()
    if candidate is not None:
        if current is None:
            raise _not_mbox(label, candidate)
        current.append(candidate)
    if current is not None:
        yield "\n".join(current).rstrip("\n")


def _not_mbox(label: str, line: str) -> CorpusFormatError:
    return CorpusFormatError(f"{label} is not an mbox file: it must start with a separator line "
                             f"\"From <sender> <date>\" followed by header lines, and starts with {line[:60]!r}")


def _fields(text: str) -> tuple[str, ...]:
    """The subject, sender and date of a message's headers ("" where absent; encoded words decoded)."""
    return header_values(text[:_HEADER_CHARACTERS].split("\n\n", 1)[0], COLUMNS[:3])


def mbox_rows(lines: Iterable[str], label: str = "the mailbox") -> Iterator[tuple[str, str, str, str]]:
    """The (subject, sender, date, text) of each message in an mbox file's ``lines``, in order.

    Raises CorpusFormatError, naming ``label``, when the first line that is not blank is no
    separator line.  Reads one message at a time, so a file of any size streams.
    """
    for text in _messages(lines, label):
        yield (*_fields(text), text)


def mbox_frame(text: str, label: str = "the mailbox", nrows: int | None = None) -> pd.DataFrame:
    """The messages of an mbox file's decoded ``text`` as a table of :data:`COLUMNS` (the first ``nrows`` rows, or
    all of them); EmptyCorpusError if it holds none, CorpusFormatError if it is not an mbox file."""
    rows = []
    for row in mbox_rows(text.split("\n"), label):  # only line breaks: a form feed stays in its message
        if nrows is not None and len(rows) >= nrows:
            break
        rows.append(row)
    if not rows:
        raise EmptyCorpusError(f"{label} holds no messages; an mbox file holds messages, each after a line "
                               "\"From <sender> <date>\"")
    return pd.DataFrame(rows, columns=list(COLUMNS), dtype=str)
