"""Checks of what a file declares (header sizes, compressed sizes) before anything is allocated.

Every bag-of-words reader calls these before it builds arrays, so a tiny crafted
file cannot ask for gigabytes: a declared size beyond a limit of
:mod:`engine.limits` raises :class:`~engine.errors.LimitExceededError` (naming the
limit and its environment variable), and a declared size the file's real content
cannot hold raises :class:`~engine.errors.CorpusFormatError`.  Gzip input is
decompressed with a bound on the bytes it may expand to.
"""

from __future__ import annotations

import io
import struct
import zipfile
import zlib
from typing import IO

from engine.errors import CorpusFormatError, EmptyCorpusError, LimitExceededError
from engine.limits import Limits, current_limits, setting_name

# what a damaged or crafted zip archive makes zipfile raise: a bad header, an unknown version or method, a seek
# before the start, a bad name encoding...
ZIP_ERRORS = (zipfile.BadZipFile, zlib.error, EOFError, RuntimeError, NotImplementedError, OSError, ValueError,
              struct.error, LookupError)

# the shortest line of a "docID wordID count" entry: "1 1 1" and its line break
MIN_ENTRY_BYTES = 6


def check_declared_sizes(name: str, n_docs: int, n_words: int, nnz: int, limits: Limits,
                         body_bytes: int | None, min_entry_bytes: int = MIN_ENTRY_BYTES,
                         what: str = "header") -> None:
    """Check a header's D, W and NNZ against the limits and against the ``body_bytes`` that follow it.

    ``body_bytes`` is None when the size is not known in advance (a gzip stream):
    the caller then checks the entries it reads against NNZ.
    """
    limits.check("max_documents", n_docs, f"the number of documents the {what} of {name} declares")
    limits.check("max_vocabulary", n_words, f"the number of words the {what} of {name} declares")
    limits.check("max_entries", nnz, f"the number of entries the {what} of {name} declares")
    if body_bytes is not None and nnz and body_bytes + 1 < nnz * min_entry_bytes:
        raise CorpusFormatError(
            f"{name}: the {what} declares {nnz:,} entries, which take at least {nnz * min_entry_bytes - 1:,} "
            f"bytes, but only {body_bytes:,} bytes follow it; the file is truncated or its {what} is wrong"
        )
    check_empty_documents(name, n_docs, min(n_docs, nnz), nnz, what)


def check_empty_documents(name: str, n_docs: int, n_present: int, nnz: int, what: str = "header") -> None:
    """Documents a header declares without any entry may be at most as many as its entries.

    A few empty documents are legitimate (they are reported as dropped), but a
    file whose declared documents are mostly empty is a wrong header: each would
    cost memory with no content behind it.
    """
    empty = n_docs - n_present
    if nnz == 0 and n_docs:
        raise EmptyCorpusError(f"{name}: all {n_docs:,} rows of counts are empty (the {what} declares no "
                               "entries); a corpus needs words")
    if empty > nnz:
        raise CorpusFormatError(
            f"{name}: the {what} declares {n_docs:,} documents but only {n_present:,} can have words "
            f"(it has {nnz:,} {'entry' if nnz == 1 else 'entries'}), so {empty:,} would be empty; a file may "
            f"declare at most as many empty documents as it has entries: fix the number of documents in the {what}"
        )


def expanded_too_large(name: str, limits: Limits) -> LimitExceededError:
    return LimitExceededError(
        f"{name} expands to more than {limits.max_expanded_mb:,.0f} MB when decompressed, above the limit "
        f"max_expanded_mb = {limits.max_expanded_mb:,.0f}; if the input is genuine, raise it with the "
        f"environment variable {setting_name('max_expanded_mb')}"
    )


def gunzip(data: bytes, name: str, limits: Limits | None = None) -> bytes:
    """Decompress gzip ``data`` (all its members), never past ``limits.max_expanded_bytes``."""
    limits = limits or current_limits()
    limit = limits.max_expanded_bytes
    parts, total, rest = [], 0, data
    try:
        while rest:
            decompressor = zlib.decompressobj(16 + zlib.MAX_WBITS)
            part = decompressor.decompress(rest, limit + 1 - total)
            total += len(part)
            if total > limit:
                raise expanded_too_large(name, limits)
            if not decompressor.eof:
                raise CorpusFormatError(f"{name} is not a valid gzip file (it ends in the middle of its data); "
                                        "compress it again")
            parts.append(part)
            rest = decompressor.unused_data
            if not rest.strip(b"\x00"):  # gzip allows zero padding after the last member
                break
    except zlib.error as exc:
        raise CorpusFormatError(f"{name} is not a valid gzip file ({exc})") from None
    return b"".join(parts)


class BoundedReader(io.RawIOBase):
    """A readable stream that raises LimitExceededError once more than ``limits.max_expanded_bytes`` come out."""

    def __init__(self, raw: IO[bytes], name: str, limits: Limits | None = None):
        self._raw, self._name = raw, name
        self._limits = limits or current_limits()
        self._seen = 0

    def readable(self) -> bool:
        return True

    def readinto(self, buffer) -> int:
        n = self._raw.readinto(buffer)
        self._seen += n or 0
        if self._seen > self._limits.max_expanded_bytes:
            raise expanded_too_large(self._name, self._limits)
        return n

    def close(self) -> None:
        self._raw.close()
        super().close()


def check_mtx_header(data: bytes, name: str, limits: Limits) -> None:
    """Check the banner and size line of a Matrix Market file against the limits and the bytes after them.

    ``coordinate`` files declare rows, columns and entries (each entry is a line
    of at least "1 1 1"); ``array`` files declare rows and columns and hold every
    value of the dense matrix (a line of at least "0"), so their cells are checked
    against ``max_dense_cells`` before :func:`scipy.io.mmread` allocates them.
    """
    banner, _, rest = data.partition(b"\n")
    fields = banner.decode("ascii", errors="replace").lower().split()
    if len(fields) != 5 or fields[0] != "%%matrixmarket" or fields[1] != "matrix":
        raise CorpusFormatError(f"{name} is not a valid Matrix Market file: the first line must be "
                                "'%%MatrixMarket matrix <format> <field> <symmetry>'")
    layout, field, symmetry = fields[2:]
    if layout not in ("coordinate", "array"):
        raise CorpusFormatError(f"{name} is not a valid Matrix Market file: format {layout!r} is neither "
                                "'coordinate' nor 'array'")
    position = len(banner) + 1
    for line in rest.split(b"\n"):
        position += len(line) + 1
        text = line.strip()
        if text and not text.startswith(b"%"):
            break
    else:
        raise CorpusFormatError(f"{name} is not a valid Matrix Market file: the size line is missing")
    sizes = text.decode("ascii", errors="replace").split()
    expected = 3 if layout == "coordinate" else 2
    if len(sizes) != expected or not all(s.isascii() and s.isdigit() for s in sizes):
        what = "'rows columns entries'" if layout == "coordinate" else "'rows columns'"
        raise CorpusFormatError(f"{name} is not a valid Matrix Market file: the size line must be {what} "
                                f"(non-negative integers), got {text[:80].decode('ascii', errors='replace')!r}")
    rows, columns = int(sizes[0]), int(sizes[1])
    body_bytes = max(len(data) - position, 0)
    if layout == "array":
        limits.check("max_documents", rows, f"the number of rows (documents) the size line of {name} declares")
        limits.check("max_vocabulary", columns, f"the number of columns (words) the size line of {name} declares")
        limits.check("max_dense_cells", rows * columns,
                     f"the number of cells of the dense ('array') matrix {name} declares ({rows:,} x {columns:,})")
        stored = rows * columns
        if symmetry in ("symmetric", "hermitian"):
            stored = rows * (rows + 1) // 2
        elif symmetry == "skew-symmetric":
            stored = rows * (rows - 1) // 2
        per_value = 4 if field == "complex" else 2  # "0\n", or "0 0\n"
        if body_bytes + 1 < stored * per_value:
            raise CorpusFormatError(
                f"{name}: the size line declares a dense {rows:,} x {columns:,} matrix ({stored:,} values, at "
                f"least {stored * per_value - 1:,} bytes) but only {body_bytes:,} bytes follow it; the file is "
                "truncated or its size line is wrong")
        return
    per_entry = {"pattern": 4, "complex": 8}.get(field, MIN_ENTRY_BYTES)
    entries = int(sizes[2])
    check_declared_sizes(name, rows, columns, entries, limits, body_bytes, per_entry, what="size line")
    if symmetry != "general":  # the other triangle is implied: up to twice the stored entries
        limits.check("max_entries", 2 * entries, f"the number of entries the symmetric matrix {name} implies")
