"""The files of a disk corpus folder: format constants, the manifest, and their validation.

:meth:`engine.DiskCorpus.open` reads the manifest, maps the arrays and checks
that files, dtypes and sizes agree; the full check also scans every array in
chunks of ``_SCAN`` entries with ordinary reads, so it needs little memory and
maps no pages.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np

from engine.data._disk_arrays import DiskCounts, _reader
from engine.errors import CorpusFormatError
from engine.limits import current_limits

FORMAT, VERSION = "engine-disk-corpus", 1
DTYPES = {"indptr": np.dtype(np.int64), "indices": np.dtype(np.int32), "data": np.dtype(np.int32)}
_SCAN = 1 << 22  # entries per read when validating (keeps the memory of a full check small)


def _read_manifest(folder: Path) -> dict[str, Any]:
    """The parsed ``manifest.json`` of ``folder``, its format, version, counts and dtypes checked."""
    path = folder / "manifest.json"
    if not folder.is_dir():
        raise CorpusFormatError(f"{str(folder)!r} is not a folder; a disk corpus is a folder with manifest.json")
    if not path.is_file():
        raise CorpusFormatError(f"{str(folder)!r} is not a disk corpus: manifest.json is missing; build one with "
                                "DiskCorpus.from_texts, from_uci or from_counts")
    try:
        manifest = json.loads(path.read_text(encoding="utf-8"))
    except (ValueError, UnicodeDecodeError) as exc:
        raise CorpusFormatError(f"{str(folder)!r}: manifest.json is not valid JSON ({exc}); "
                                "rebuild the corpus") from None
    if not isinstance(manifest, dict) or manifest.get("format") != FORMAT or manifest.get("version") != VERSION:
        raise CorpusFormatError(f"{str(folder)!r}: manifest.json is not a version-{VERSION} {FORMAT!r} manifest")
    for key in ("n_docs", "n_words", "nnz", "n_tokens"):
        value = manifest.get(key)
        if isinstance(value, bool) or not isinstance(value, int) or value < (1 if key == "n_words" else 0):
            raise CorpusFormatError(f"{str(folder)!r}: manifest.json has {key}={value!r}; expected a count")
    limits = current_limits()  # a manifest's sizes are declared: held to the limits before anything is mapped
    for key, limit in (("n_docs", "max_documents"), ("n_words", "max_vocabulary"), ("nnz", "max_entries")):
        limits.check(limit, manifest[key], f"{key} in the manifest.json of {str(folder)!r}")
    expected = {name: dtype.name for name, dtype in DTYPES.items()}
    if manifest.get("dtypes") != expected:
        raise CorpusFormatError(f"{str(folder)!r}: manifest.json declares dtypes {manifest.get('dtypes')!r}; "
                                f"version {VERSION} stores {expected}")
    return manifest


def _open_array(folder: Path, name: str, length: int) -> np.memmap:
    path = folder / f"{name}.npy"
    if not path.is_file():
        raise CorpusFormatError(f"{str(folder)!r} is not a complete disk corpus: {path.name} is missing; rebuild it")
    try:
        array = np.load(path, mmap_mode="r", allow_pickle=False)
    except (ValueError, OSError, EOFError) as exc:
        raise CorpusFormatError(f"{str(folder)!r}: {path.name} is not a valid .npy file ({exc}); rebuild it") from None
    if array.dtype != DTYPES[name] or array.shape != (length,):
        raise CorpusFormatError(
            f"{str(folder)!r}: {path.name} holds {array.dtype} of shape {array.shape} but manifest.json expects "
            f"{DTYPES[name]} of shape ({length},); the folder is damaged or mixed up: rebuild it"
        )
    return array


def _open_counts(folder: Path, manifest: dict[str, Any]) -> DiskCounts:
    """The counts of ``folder``, their files' dtypes and sizes and the ends of indptr checked against the manifest."""
    n_docs, nnz = manifest["n_docs"], manifest["nnz"]
    arrays = {name: _open_array(folder, name, length)
              for name, length in (("indptr", n_docs + 1), ("indices", nnz), ("data", nnz))}
    counts = DiskCounts(arrays["indptr"], arrays["indices"], arrays["data"], manifest["n_words"])
    indptr = _reader(counts.indptr)
    ends = (int(indptr.read(0, 1)[0]), int(indptr.read(n_docs, n_docs + 1)[0]))
    if ends != (0, nnz):
        raise CorpusFormatError(f"{str(folder)!r}: indptr.npy runs from {ends[0]} to {ends[1]}, not from 0 to "
                                f"nnz={nnz}; rebuild the corpus")
    return counts


class _Below:
    """The values of increasing chunks, handed out in order: :meth:`take` returns those below a bound."""

    def __init__(self, chunks: Iterator[tuple[int, np.ndarray]]):
        self._chunks, self._pending = chunks, np.empty(0, dtype=np.int64)

    def take(self, bound: int) -> np.ndarray:
        parts = []
        while True:
            cut = int(np.searchsorted(self._pending, bound))
            parts.append(self._pending[:cut])
            self._pending = self._pending[cut:]
            if self._pending.size:
                return np.concatenate(parts)
            chunk = next(self._chunks, None)
            if chunk is None:
                return np.concatenate(parts)
            self._pending = chunk[1]


def _check_arrays(folder: Path, counts: DiskCounts, manifest: dict[str, Any]) -> None:
    """Full scan: rows non-empty and in order, words in range and sorted per row, counts >= 1."""
    where = repr(str(folder))
    previous = None
    for start, values in _reader(counts.indptr).chunks(_SCAN):
        steps = np.diff(values if previous is None else np.concatenate([[previous], values]))
        bad = np.flatnonzero(steps <= 0)
        if bad.size:
            row = start + bad[0] - (previous is not None)
            what = "is empty" if steps[bad[0]] == 0 else "ends before it starts (indptr is not monotone)"
            raise CorpusFormatError(f"{where}: indptr.npy is damaged: row {row} {what}; rebuild the corpus")
        previous = values[-1]
    n_words, tokens, previous = manifest["n_words"], 0, None
    row_starts = _Below(_reader(counts.indptr).chunks(_SCAN))  # indptr is strictly increasing now
    for start, values in _reader(counts.indices).chunks(_SCAN):
        outside = np.flatnonzero((values < 0) | (values >= n_words))
        if outside.size:
            i = outside[0]
            raise CorpusFormatError(f"{where}: indices.npy entry {start + i} is word {values[i]}, outside "
                                    f"[0, {n_words}) (vocab.txt has {n_words} words); rebuild the corpus")
        extended = values if previous is None else np.concatenate([[previous], values])
        # a word index not above its predecessor is only allowed where a new row starts
        unsorted = np.flatnonzero(extended[1:] <= extended[:-1]) + start + (previous is None)
        bad = np.setdiff1d(unsorted, row_starts.take(start + values.size), assume_unique=True)
        if bad.size:
            raise CorpusFormatError(f"{where}: indices.npy is not sorted (or repeats a word) within a row at "
                                    f"entry {bad[0]}; rebuild the corpus")
        previous = values[-1]
    for start, values in _reader(counts.data).chunks(_SCAN):
        if values.size and values.min() < 1:
            i = int(np.argmin(values))
            raise CorpusFormatError(f"{where}: data.npy entry {start + i} is the count {values[i]}; counts must "
                                    "be >= 1; rebuild the corpus")
        tokens += int(values.sum(dtype=np.int64))
    if tokens != manifest["n_tokens"]:
        raise CorpusFormatError(f"{where}: data.npy sums to {tokens} tokens but manifest.json says "
                                f"n_tokens={manifest['n_tokens']}; rebuild the corpus")


def _read_lines(path: Path, what: str, n: int, folder: Path) -> list[str]:
    """The ``n`` lines of a UTF-8 text file of the corpus (``what`` names them in errors)."""
    try:
        with open(path, encoding="utf-8", newline="\n") as file:
            lines = [line.rstrip("\n") for line in file]
    except UnicodeDecodeError as exc:
        raise CorpusFormatError(f"{str(folder)!r}: {path.name} is not UTF-8 ({exc}); rebuild the corpus") from None
    if len(lines) != n:
        raise CorpusFormatError(f"{str(folder)!r}: {path.name} has {len(lines)} lines but manifest.json "
                                f"expects {n} {what}; rebuild the corpus")
    return lines
