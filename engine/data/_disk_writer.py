"""Writing a disk corpus folder: arrays appended chunk by chunk, published atomically.

Builders append raw bytes to the ``.npy`` files, whose fixed-size header is
written last, so neither the source nor the counts are ever held whole in
memory.  The folder is built hidden next to its target and renamed at the end,
so a failure never leaves a half-built corpus.
"""

from __future__ import annotations

import json
import os
import shutil
import struct
import tempfile
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import scipy.sparse as sp

from engine.data._disk_format import DTYPES, FORMAT, VERSION
from engine.data.corpus import DroppedDocument
from engine.data.vectorizer import Vectorizer
from engine.errors import EmptyCorpusError

_HEADER_BYTES = 128  # fixed .npy header size, so the header can be written after the data
_INT32_MAX = np.iinfo(np.int32).max
Source = str | os.PathLike


class _NpyAppender:
    """A 1-D ``.npy`` file written by appending chunks; the header is filled in on close."""

    def __init__(self, path: Path, dtype: np.dtype):
        self.dtype, self.length = dtype, 0
        self._file = open(path, "wb")  # noqa: SIM115 - closed by close()
        self._file.write(b"\0" * _HEADER_BYTES)

    def append(self, values: Any) -> None:
        values = np.ascontiguousarray(values, dtype=self.dtype)
        self._file.write(memoryview(values).cast("B"))
        self.length += values.size

    def close(self, publish: bool = True) -> None:
        if publish:
            header = f"{{'descr': '{self.dtype.str}', 'fortran_order': False, 'shape': ({self.length},), }}"
            header = header.ljust(_HEADER_BYTES - 11) + "\n"  # 10 bytes of magic, version and length
            self._file.seek(0)
            self._file.write(b"\x93NUMPY\x01\x00" + struct.pack("<H", len(header)) + header.encode("latin1"))
            self._file.flush()
            os.fsync(self._file.fileno())
        self._file.close()


def _jsonl(path: Path, records: Iterable[Any]) -> int:
    """Append ``records`` one JSON line each, streaming (a long run of records is never held); return how many."""
    written = 0
    with open(path, "a", encoding="utf-8") as file:
        for record in records:
            file.write(json.dumps(record, ensure_ascii=False) + "\n")
            written += 1
    return written


class _DiskWriter:
    """Append rows of counts to a new corpus folder; publish it atomically with :meth:`finish`.

    Used as a context manager: an exception (or a missing ``finish``) removes the
    temporary folder and leaves the target untouched.
    """

    def __init__(self, folder: Source, n_words: int, overwrite: bool = False):
        self.target, self.n_words = Path(folder), n_words
        _check_target(self.target, overwrite)
        self.target.parent.mkdir(parents=True, exist_ok=True)
        self.tmp = Path(tempfile.mkdtemp(prefix=f".{self.target.name}.building.", dir=self.target.parent))
        self._arrays = {name: _NpyAppender(self.tmp / f"{name}.npy", dtype) for name, dtype in DTYPES.items()}
        self._arrays["indptr"].append([0])
        self.n_docs = self.nnz = self.n_tokens = self.n_dropped = self.n_skipped = 0
        self._with_ids: bool | None = None

    def __enter__(self) -> _DiskWriter:
        return self

    def __exit__(self, *exc_info) -> None:
        for array in self._arrays.values():
            if not array._file.closed:
                array.close(publish=False)
        shutil.rmtree(self.tmp, ignore_errors=True)

    def append(self, counts: sp.csr_matrix, doc_ids: Sequence[str] | None = None) -> None:
        """Append the rows of ``counts`` (canonical CSR: sorted indices, counts >= 1, no empty rows)."""
        if self._with_ids is None:
            self._with_ids = doc_ids is not None
        elif self._with_ids != (doc_ids is not None):
            raise ValueError("doc_ids must be given for every chunk or for none")
        if counts.nnz and counts.data.max() > _INT32_MAX:
            raise ValueError(f"a count of {counts.data.max()} does not fit the int32 counts of a disk corpus")
        self._arrays["indptr"].append(counts.indptr[1:].astype(np.int64) + self.nnz)
        self._arrays["indices"].append(counts.indices)
        self._arrays["data"].append(counts.data)
        if doc_ids is not None:
            if len(doc_ids) != counts.shape[0]:
                raise ValueError(f"doc_ids has {len(doc_ids)} entries for {counts.shape[0]} rows")
            _jsonl(self.tmp / "doc_ids.jsonl", doc_ids)
        self.n_docs += counts.shape[0]
        self.nnz += counts.nnz
        self.n_tokens += int(counts.data.sum(dtype=np.int64))

    def drop(self, documents: Iterable[DroppedDocument]) -> None:
        self.n_dropped += _jsonl(self.tmp / "dropped.jsonl", (d._asdict() for d in documents))

    def skip(self, files: Iterable[Any]) -> None:
        self.n_skipped += _jsonl(self.tmp / "skipped.jsonl", (f._asdict() for f in files))

    def finish(self, vocabulary: Sequence[str], source: dict[str, Any], vectorizer: Vectorizer | None = None) -> Path:
        """Write ``vocab.txt`` and ``manifest.json`` and publish the folder; ``vectorizer`` is recorded if given."""
        if self.n_docs == 0:
            raise EmptyCorpusError("no document has any word; a corpus needs at least one")
        if len(vocabulary) != self.n_words or any("\n" in w or "\r" in w for w in vocabulary):
            raise ValueError(f"vocabulary must hold {self.n_words} words without line breaks")
        for array in self._arrays.values():
            array.close()
        (self.tmp / "vocab.txt").write_text("".join(w + "\n" for w in vocabulary), encoding="utf-8")
        manifest = {"format": FORMAT, "version": VERSION, "n_docs": self.n_docs, "n_words": self.n_words,
                    "nnz": self.nnz, "n_tokens": self.n_tokens,
                    "dtypes": {name: dtype.name for name, dtype in DTYPES.items()},
                    "doc_ids": bool(self._with_ids), "n_dropped": self.n_dropped,
                    "n_skipped": self.n_skipped, "source": source,
                    "vectorizer": None if vectorizer is None else vectorizer.to_dict()}
        (self.tmp / "manifest.json").write_text(json.dumps(manifest, indent=1), encoding="utf-8")
        if self.target.exists():  # overwrite was allowed: the old corpus out of the way, the new one in
            old = Path(tempfile.mkdtemp(prefix=f".{self.target.name}.old.", dir=self.target.parent))
            os.replace(self.target, old / "corpus")
            os.replace(self.tmp, self.target)
            shutil.rmtree(old)
        else:
            os.replace(self.tmp, self.target)
        return self.target


def _check_target(target: Path, overwrite: bool) -> None:
    if not target.exists():
        return
    if not overwrite:
        raise FileExistsError(f"{str(target)!r} exists; choose another folder or pass overwrite=True")
    if not target.is_dir() or (any(target.iterdir()) and not (target / "manifest.json").exists()):
        raise FileExistsError(f"{str(target)!r} exists and is not a disk corpus; it is never overwritten")

