"""Rows of an on-disk CSR count matrix, read with positional file reads.

A minibatch of SVI touches a few hundred random rows.  Reading them through a
memory map leaves every touched page mapped in the process, so its resident
set (``ru_maxrss``) grows towards the size of the corpus (benchmarks/RESULTS.md,
"The paper's scale") although the process itself needs little memory.  Positional
reads (``os.pread`` on descriptors kept open) copy only the requested bytes into
the process; the file's pages stay in the kernel's page cache, shared and
reclaimable.

A minibatch of S rows costs at most 3 S reads: the rows' ``indptr`` pairs are
read in file order, and neighbours less than ``_GAP_BYTES`` apart share a read;
then each row's word indices and counts are read in the order asked (adjacent
rows share a read), so no reordering copy is needed.  The reads cost more CPU
than touching pages that are already mapped (one system call each), but little
beside the local step of a training minibatch; ``benchmarks/ondisk_rss.py``
measures both.
"""

from __future__ import annotations

import mmap
import numbers
import os
import threading
import weakref
from collections.abc import Iterator
from typing import Any

import numpy as np
import scipy.sparse as sp

from engine.errors import CorpusFormatError

__all__ = ["DiskCounts"]

# one more read costs about as much as copying a few KiB from the page cache, so nearer ranges are merged
_GAP_BYTES = 1 << 12
_ROWS_PER_READ = 1 << 16  # rows per read in DiskCounts.row_sums

if hasattr(os, "pread"):
    _pread = os.pread
else:  # Windows has no positional reads: a lock keeps each seek and its read together
    _SEEK_LOCK = threading.Lock()

    def _pread(fd: int, size: int, position: int) -> bytes:
        with _SEEK_LOCK:
            os.lseek(fd, position, os.SEEK_SET)
            return os.read(fd, size)


_HAS_PREADV = hasattr(os, "preadv")


def _pread_into(fd: int, view: memoryview, position: int) -> int:
    """Read into ``view`` from byte ``position``; the number of bytes read (0 at the end of the file)."""
    if _HAS_PREADV:  # straight into the buffer, no copy
        return os.preadv(fd, [view], position)
    chunk = _pread(fd, view.nbytes, position)
    view[:len(chunk)] = chunk
    return len(chunk)


class _ArrayReader:
    """Read ranges of a 1-D array: :meth:`read` one range, :meth:`spans` many at once.

    This base class reads an array in memory; :class:`_FileArray` reads a file.
    """

    def __init__(self, array: np.ndarray):
        self.array, self.dtype, self.length = array, array.dtype, array.shape[0]

    def _fetch(self, starts: np.ndarray, stops: np.ndarray) -> np.ndarray:
        """The ranges ``starts[i]:stops[i]`` (disjoint, non-empty), concatenated."""
        return np.concatenate([self.array[a:b] for a, b in zip(starts.tolist(), stops.tolist(), strict=True)])

    def read(self, start: int, stop: int) -> np.ndarray:
        """Entries ``start:stop`` (0 <= start <= stop <= length) as a new array."""
        if stop <= start:
            return np.empty(0, dtype=self.dtype)
        return self._fetch(np.array([start]), np.array([stop]))

    def chunks(self, size: int) -> Iterator[tuple[int, np.ndarray]]:
        """Yield (start, entries) of consecutive pieces of ``size`` entries: a full scan in small memory."""
        for start in range(0, self.length, size):
            yield start, self.read(start, min(start + size, self.length))

    def spans(self, starts: np.ndarray, stops: np.ndarray) -> np.ndarray:
        """The entries ``starts[i]:stops[i]`` for every i, concatenated, in any order.

        A span that starts at or after its predecessor's start, less than
        ``_GAP_BYTES`` past its end, joins its read: sorted spans cost few reads.
        """
        lengths = stops - starts
        keep = lengths > 0
        starts, stops, lengths = starts[keep], stops[keep], lengths[keep]
        if starts.size == 0:
            return np.empty(0, dtype=self.dtype)
        opens = np.ones(starts.size, dtype=bool)  # span i begins a new read
        opens[1:] = (starts[1:] < starts[:-1]) | (starts[1:] - stops[:-1] > _GAP_BYTES // self.dtype.itemsize)
        firsts = np.flatnonzero(opens)
        read_starts, read_stops = starts[firsts], np.maximum.reduceat(stops, firsts)
        buffer = self._fetch(read_starts, read_stops)
        if np.all(opens[1:] | (starts[1:] == stops[:-1])):  # the reads hold exactly the spans, in order
            return buffer
        # entry j of span i sits at read_offsets[g] + starts[i] - read_starts[g] + j, g the read of span i
        read_lengths = read_stops - read_starts
        group = np.cumsum(opens) - 1
        first = (np.cumsum(read_lengths) - read_lengths)[group] + starts - read_starts[group]
        return buffer[np.repeat(first - (np.cumsum(lengths) - lengths), lengths) + np.arange(int(lengths.sum()))]


class _FileArray(_ArrayReader):
    """A 1-D array stored in a file at byte ``offset``, read by ``os.pread`` on a descriptor kept open.

    Reads are positional (no shared file position), so threads may share one
    reader.  Pickling or copying reopens the file.
    """

    def __init__(self, path: str, offset: int, dtype: Any, length: int):
        self.path, self.offset, self.dtype, self.length = str(path), int(offset), np.dtype(dtype), int(length)
        self._fd = os.open(self.path, os.O_RDONLY | getattr(os, "O_BINARY", 0))
        weakref.finalize(self, os.close, self._fd)

    def __reduce__(self):
        return (_FileArray, (self.path, self.offset, self.dtype.str, self.length))

    def _fetch(self, starts: np.ndarray, stops: np.ndarray) -> np.ndarray:
        size = self.dtype.itemsize
        positions, nbytes = (self.offset + starts * size).tolist(), ((stops - starts) * size).tolist()
        fd, expected = self._fd, sum(nbytes)
        if len(nbytes) == 1:  # one read, possibly large, which the kernel may return in parts
            data, done = bytearray(expected), 0
            view = memoryview(data)
            while done < expected:
                got = _pread_into(fd, view[done:], positions[0] + done)
                if got == 0:
                    break
                done += got
        else:  # many small reads, one system call each (fewer Python steps than reading into a buffer)
            data = bytearray().join([_pread(fd, n, p) for n, p in zip(nbytes, positions, strict=True)])
            done = len(data)
        if done != expected:
            raise CorpusFormatError(f"{self.path!r} ends before the {self.length} entries its header announces; "
                                    "the file was truncated: rebuild the corpus")
        return np.frombuffer(data, dtype=self.dtype)


def _reader(array: np.ndarray) -> _ArrayReader:
    """A file reader for an array memory-mapped whole from a file (``np.load(mmap_mode="r")``), else in memory."""
    if isinstance(array, np.memmap) and isinstance(array.base, mmap.mmap) and array.ndim == 1 and array.filename:
        return _FileArray(array.filename, array.offset, array.dtype, array.shape[0])
    return _ArrayReader(np.asarray(array))


def _reopen(files: tuple[tuple[str, int, str, int], ...], n_words: int) -> DiskCounts:
    """A DiskCounts over the same files (how pickling and copying restore one)."""
    arrays = [np.memmap(path, dtype=np.dtype(dtype), mode="r", offset=offset, shape=(length,))
              for path, offset, dtype, length in files]
    return DiskCounts(*arrays, n_words)


class DiskCounts:
    """A CSR count matrix whose arrays stay on disk.

    Indexing rows (an int, a slice, an integer array in any order with repeats,
    or a boolean mask) gathers them into an in-memory ``scipy.sparse.csr_matrix``
    of int64 counts.  Rows are read with positional file reads of just their
    bytes (see the module docstring), so reading minibatches does not grow the
    resident memory of the process; reads are thread-safe.  Columns cannot be
    indexed.  Pickling or copying reopens the files.

    Attributes
    ----------
    indptr, indices, data : numpy.memmap
        The CSR arrays (int64, int32, int32), for inspection; touching their
        pages maps them into the process, which row reads avoid.
    shape : tuple of int
        (n_docs, n_words).
    """

    ndim = 2
    out_of_core = True  # tells engine.validation.as_counts to pass it through (rows are read per minibatch)

    def __init__(self, indptr: np.ndarray, indices: np.ndarray, data: np.ndarray, n_words: int):
        self.indptr, self.indices, self.data = indptr, indices, data
        self.shape = (indptr.shape[0] - 1, int(n_words))
        self._indptr, self._indices, self._data = _reader(indptr), _reader(indices), _reader(data)

    def __reduce__(self):
        readers = (self._indptr, self._indices, self._data)
        if all(isinstance(r, _FileArray) for r in readers):
            return (_reopen, (tuple((r.path, r.offset, r.dtype.str, r.length) for r in readers), self.shape[1]))
        return (DiskCounts, (self.indptr, self.indices, self.data, self.shape[1]))

    @property
    def nnz(self) -> int:
        """Number of stored (document, word) entries."""
        return int(self.indices.shape[0])

    def __repr__(self) -> str:
        return f"DiskCounts(shape={self.shape}, nnz={self.nnz})"

    def _rows(self, key: Any) -> np.ndarray:
        """The row numbers ``key`` selects, as an int64 array in [0, n_docs)."""
        n_docs = self.shape[0]
        if isinstance(key, slice):
            return np.arange(*key.indices(n_docs), dtype=np.int64)
        if isinstance(key, numbers.Integral) and not isinstance(key, bool):
            rows = np.array([key], dtype=np.int64)
        else:
            rows = np.asarray(key)
            if rows.dtype == bool:
                if rows.shape != (n_docs,):
                    raise IndexError(f"a boolean row mask must have shape ({n_docs},), got {rows.shape}")
                return np.flatnonzero(rows)
            if rows.ndim != 1 or (rows.size and rows.dtype.kind not in "iu"):
                raise IndexError(f"rows must be an int, a slice or a 1-D array of ints, got {key!r:.80}")
            rows = rows.astype(np.int64)
        if rows.size and (rows.min() < -n_docs or rows.max() >= n_docs):
            bad = rows[(rows < -n_docs) | (rows >= n_docs)][0]
            raise IndexError(f"row {bad} is out of range for {n_docs} documents")
        return np.where(rows < 0, rows + n_docs, rows)

    def __getitem__(self, key: Any) -> sp.csr_matrix:
        if isinstance(key, tuple):
            raise IndexError("DiskCounts selects rows only: take counts[rows], then index the columns in memory")
        if isinstance(key, slice) and key.indices(self.shape[0])[2] == 1:
            start, stop, _ = key.indices(self.shape[0])
            return self._row_range(start, max(start, stop))
        return self._gather(self._rows(key))

    def _row_range(self, start: int, stop: int) -> sp.csr_matrix:
        """Rows start..stop-1: three reads."""
        offsets = self._indptr.read(start, stop + 1)
        first, last = int(offsets[0]), int(offsets[-1])
        return sp.csr_matrix((self._data.read(first, last).astype(np.int64), self._indices.read(first, last),
                              offsets - first), shape=(stop - start, self.shape[1]))

    def _gather(self, rows: np.ndarray) -> sp.csr_matrix:
        """Rows in any order, with repeats: their bounds read in file order, their entries in the order asked."""
        order = np.argsort(rows, kind="stable")
        bounds = np.empty((rows.size, 2), dtype=np.int64)  # indptr[r], indptr[r + 1] of each row asked
        bounds[order] = self._indptr.spans(rows[order], rows[order] + 2).reshape(-1, 2)
        starts, stops = bounds[:, 0], bounds[:, 1]
        indptr = np.zeros(rows.size + 1, dtype=np.int64)
        np.cumsum(stops - starts, out=indptr[1:])
        return sp.csr_matrix((self._data.spans(starts, stops).astype(np.int64), self._indices.spans(starts, stops),
                              indptr), shape=(rows.size, self.shape[1]))

    def row_sums(self) -> np.ndarray:
        """Tokens per document, ndarray of shape (n_docs,), read in chunks."""
        sums = np.empty(self.shape[0], dtype=np.int64)
        for start in range(0, self.shape[0], _ROWS_PER_READ):
            sums[start:start + _ROWS_PER_READ] = self[start:start + _ROWS_PER_READ].sum(axis=1).A1
        return sums
