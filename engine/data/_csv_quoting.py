"""Detect CSV/TSV quoting mistakes that would silently merge rows.

A quote that opens a field and is never closed where the writer meant it to be
makes the parser read the following lines, delimiters and all, as the text of
that one field, until the next quote character: rows vanish into one document.
pandas accepts such files; this check, run before parsing, refuses them with the
line where the quoted field starts.  Two signs give a merge away:

* the quote that ends the runaway field is followed by more text instead of a
  delimiter or a line break (strict RFC 4180 parsing fails there), or the file
  ends inside the quoted field;
* a line inside a multi-line quoted field looks like a row of the table: it has
  as many fields as the header and each field looks like its column (numbers
  where the column holds numbers, single tokens where it holds tokens, an id in
  the range of the ids seen).  At least one column must be such a number or token
  column, so a multi-line text that merely contains the delimiter is accepted.

Legitimate multi-line quoted fields and doubled quotes ("") pass unchanged.
"""

from __future__ import annotations

import csv
import io
import re
import sys
from collections.abc import Iterable
from pathlib import Path
from typing import IO

from engine.errors import CorpusFormatError

_INTEGER = re.compile(r"-?\d+")
_MAX_TOKEN = 64
_MAX_CANDIDATES = 10_000  # lines inside quoted fields kept for the final check; enough to catch a merge

# the csv module refuses fields over 128 kB by default; documents are longer.  The limit is
# process-wide and only ever raised here, so concurrent readers are not affected.
csv.field_size_limit(max(csv.field_size_limit(), min(sys.maxsize, 2**31 - 1)))


class _Column:
    """What the values of one column look like: integers (with their range), tokens, or free text."""

    def __init__(self) -> None:
        self.integers = self.tokens = True
        self.low, self.high = None, None

    def add(self, value: str) -> None:
        if self.integers and _INTEGER.fullmatch(value):
            number = int(value)
            self.low = number if self.low is None else min(self.low, number)
            self.high = number if self.high is None else max(self.high, number)
        else:
            self.integers = False
        if self.tokens and not (value and len(value) <= _MAX_TOKEN and not any(c.isspace() for c in value)):
            self.tokens = False

    @property
    def is_text(self) -> bool:
        return not (self.integers and self.low is not None) and not self.tokens

    def matches(self, value: str, n_rows: int) -> bool:
        if self.integers and self.low is not None:
            return bool(_INTEGER.fullmatch(value)) and self.low <= int(value) <= self.high + n_rows
        if self.tokens:
            return bool(value) and len(value) <= _MAX_TOKEN and not any(c.isspace() for c in value)
        return True


def check_quoting(source: str | Path, delimiter: str, label: str, encoding: str = "utf-8") -> None:
    """Raise CorpusFormatError if the quoting of a CSV/TSV table would merge rows.

    ``source`` is the table's text, or the path of a table file (read as it
    streams, in ``encoding``).  One strict parse finds the multi-line fields; only
    if one of them holds a line shaped like a row is the table read again to learn
    what its columns look like.
    """
    if isinstance(source, str) and '"' not in source:
        return  # without quotes every line break ends a row
    with _lines(source, encoding) as lines:
        candidates = _candidates(lines, delimiter, label)
    if not candidates:
        return
    with _lines(source, encoding) as lines:
        columns, n_rows = _columns(csv.reader(lines, delimiter=delimiter))
    if not any(not c.is_text for c in columns):
        return  # free-text columns only: a line inside a text cannot be told from a row
    for line, start, inner, fields in candidates:
        if all(c.matches(v, n_rows) for c, v in zip(columns, fields, strict=True)):
            raise CorpusFormatError(
                f"{label} line {start}: a quoted field starts here and runs on over line {line}, which looks "
                f"like a row of its own ({inner[:60]!r}); rows would be merged silently. Close the quote where "
                'the text ends, remove the stray quote, or double the quotes inside a quoted text ("")'
            )


def _lines(source: str | Path, encoding: str) -> IO[str]:
    return io.StringIO(source, newline="") if isinstance(source, str) else open(source, encoding=encoding, newline="")


def _candidates(lines: Iterable[str], delimiter: str, label: str) -> list[tuple[int, int, str, list[str]]]:
    """Parse strictly; return the lines inside multi-line fields that have as many fields as the header."""
    reader = csv.reader(lines, delimiter=delimiter, strict=True)
    n_columns, end = 0, 0
    candidates: list[tuple[int, int, str, list[str]]] = []
    try:
        for fields in reader:
            start, end = end + 1, reader.line_num
            if not fields:
                continue
            if not n_columns:  # the header
                n_columns = len(fields)
            elif end > start and len(candidates) < _MAX_CANDIDATES:
                candidates += _inner_rows(fields, start, n_columns, delimiter)
    except csv.Error as exc:
        raise CorpusFormatError(
            f"{label} line {end + 1}: a quoted field starts here and is not closed properly "
            f"(the parser stopped at line {reader.line_num}: {exc}); everything up to there would be read as "
            'one row. Close the quote, remove the stray quote, or double the quotes inside a quoted text ("")'
        ) from None
    return candidates


def _columns(rows: Iterable[list[str]]) -> tuple[list[_Column], int]:
    """What each column of the table looks like, and the number of rows."""
    columns: list[_Column] = []
    n_rows = 0
    for fields in rows:
        if not fields:
            continue
        if not columns:
            columns = [_Column() for _ in fields]
            continue
        n_rows += 1
        if len(fields) == len(columns):
            for column, value in zip(columns, fields, strict=True):
                column.add(value)
    return columns, n_rows


def _inner_rows(fields: list[str], start: int, n_columns: int,
                delimiter: str) -> list[tuple[int, int, str, list[str]]]:
    """Lines inside the multi-line fields of a row that would parse as a row of ``n_columns`` fields.

    The last line of a field continues with the row's later fields (the runaway
    field ended mid-line, at the quote that closed it), so they complete it.
    """
    found, line = [], start
    for index, value in enumerate(fields):
        inner_lines = [inner.rstrip("\r") for inner in value.split("\n")]
        for offset, inner in enumerate(inner_lines[1:], start=1):
            rest = fields[index + 1:] if offset == len(inner_lines) - 1 else []
            parsed = next(csv.reader([inner], delimiter=delimiter), []) + rest
            if len(parsed) == n_columns:
                found.append((line + offset, start, delimiter.join([inner, *rest]), parsed))
        line += value.count("\n")
    return found
