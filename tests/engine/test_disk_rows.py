"""Tests of engine/data/_disk_arrays.py: rows of a disk corpus read with positional file reads."""

from __future__ import annotations

import copy
import pickle
import threading

import numpy as np
import pytest
import scipy.sparse as sp

from engine.data import _disk_arrays
from engine.data._disk_arrays import DiskCounts, _ArrayReader, _FileArray, _reader
from engine.data.ondisk import DiskCorpus
from engine.errors import CorpusFormatError
from tests.engine._disk import assert_same_csr, disk_counts

# 0: every span its own read; 8: only near spans merge; 4 KiB: the default; 1 GiB: one read per sorted run
GAPS = [0, 8, 1 << 12, 1 << 30]


@pytest.fixture
def matrix():
    """300 x 40 counts with about a quarter of the rows empty, the first and the last among them."""
    rng = np.random.default_rng(7)
    dense = rng.poisson(0.5, size=(300, 40)) * (rng.random((300, 1)) < 0.75)
    dense[[0, -1]] = 0
    dense[1] = 1  # a full row
    return sp.csr_matrix(dense)


def row_keys(n_rows: int, rng: np.random.Generator) -> list:
    empty = np.flatnonzero(np.arange(n_rows) % 7 == 0)
    return [
        rng.permutation(n_rows),  # every row, random order
        rng.integers(0, n_rows, size=500),  # sampling with replacement: many repeats
        rng.choice(n_rows, size=50, replace=False),  # an SVI minibatch
        np.sort(rng.choice(n_rows, size=50, replace=False)),
        np.repeat(empty, 2)[::-1],
        np.array([n_rows - 1]), np.array([n_rows - 1, 0, n_rows - 1]), np.array([-1, -n_rows]),
        np.arange(n_rows), np.arange(n_rows)[::-1], np.array([], dtype=np.int64),
        rng.random(n_rows) < 0.3,
        slice(None), slice(3, 3), slice(n_rows - 1, None), slice(10, 290, 3), slice(None, None, -1),
        n_rows - 1, 0, -2,
    ]


@pytest.mark.parametrize("gap", GAPS)
def test_rows_equal_the_in_memory_csr_rows(tmp_path, monkeypatch, matrix, gap):
    monkeypatch.setattr(_disk_arrays, "_GAP_BYTES", gap)
    counts = disk_counts(tmp_path, matrix)
    assert all(isinstance(r, _FileArray) for r in (counts._indptr, counts._indices, counts._data))
    for key in row_keys(matrix.shape[0], np.random.default_rng(gap)):
        expected = matrix[[key]] if isinstance(key, int) else matrix[key]
        assert_same_csr(counts[key], expected)


def test_rows_are_read_from_the_files_not_the_memory_maps(tmp_path, matrix):
    counts = disk_counts(tmp_path, matrix)

    class Untouchable:
        def __getitem__(self, key):
            raise AssertionError("a row read went through the memory map")

        __array__ = __getitem__

    shape = (counts.indptr.shape, counts.indices.shape)
    counts.indptr, counts.indices, counts.data = Untouchable(), Untouchable(), Untouchable()
    counts.indptr.shape, counts.indices.shape = shape
    rows = np.random.default_rng(0).permutation(matrix.shape[0])
    assert_same_csr(counts[rows], matrix[rows])
    assert_same_csr(counts[5:50], matrix[5:50])
    assert np.array_equal(counts.row_sums(), matrix.sum(axis=1).A1)


@pytest.mark.parametrize("gap", GAPS)
def test_spans_concatenate_any_spans(tmp_path, monkeypatch, gap):
    monkeypatch.setattr(_disk_arrays, "_GAP_BYTES", gap)
    values = np.arange(1000, dtype=np.int64) * 3
    np.save(tmp_path / "values.npy", values)
    readers = (_reader(np.load(tmp_path / "values.npy", mmap_mode="r")), _ArrayReader(values))
    assert isinstance(readers[0], _FileArray) and not isinstance(readers[1], _FileArray)
    rng = np.random.default_rng(gap)
    cases = [([0, 10, 10, 12], [5, 10, 12, 20]),  # touching and empty spans
             ([0, 1, 2, 3], [2, 3, 4, 5]),  # overlapping, as indptr[r:r + 2] of consecutive rows
             ([0, 2, 4], [10, 3, 5]),  # nested in the first
             ([500, 0, 999, 0], [510, 1000, 1000, 1]),  # unsorted, the whole array, the last entry
             ([7], [7]), ([], [])]
    starts = np.sort(rng.integers(0, 1000, size=200))
    cases += [(starts, np.minimum(starts + rng.integers(0, 30, size=200), 1000))]
    starts = rng.integers(0, 1000, size=200)
    cases += [(starts, np.minimum(starts + rng.integers(0, 30, size=200), 1000))]
    for starts, stops in cases:
        starts, stops = np.asarray(starts, dtype=np.int64), np.asarray(stops, dtype=np.int64)
        expected = np.concatenate([values[:0], *(values[a:b] for a, b in zip(starts, stops, strict=True))])
        for reader in readers:
            got = reader.spans(starts, stops)
            assert got.dtype == values.dtype and np.array_equal(got, expected)
    assert np.array_equal(readers[0].read(990, 1000), values[990:])
    assert [start for start, _ in readers[0].chunks(300)] == [0, 300, 600, 900]


def test_a_view_of_a_memory_map_is_read_in_memory(tmp_path, matrix):
    disk_counts(tmp_path, matrix)
    mapped = np.load(tmp_path / "indices.npy", mmap_mode="r")
    view = _reader(mapped[10:])  # its offset attribute would be wrong for a file read
    assert not isinstance(view, _FileArray) and np.array_equal(view.read(0, 5), matrix.indices[10:15])


def test_in_memory_arrays_still_work(matrix):
    counts = DiskCounts(matrix.indptr.astype(np.int64), matrix.indices, matrix.data, matrix.shape[1])
    rows = np.random.default_rng(1).integers(0, matrix.shape[0], size=100)
    assert_same_csr(counts[rows], matrix[rows])
    assert_same_csr(pickle.loads(pickle.dumps(counts))[rows], matrix[rows])


def test_row_sums_read_in_chunks(tmp_path, monkeypatch, matrix):
    monkeypatch.setattr(_disk_arrays, "_ROWS_PER_READ", 7)
    assert np.array_equal(disk_counts(tmp_path, matrix).row_sums(), matrix.sum(axis=1).A1)


def test_pickling_and_copying_reopen_the_files(tmp_path, matrix):
    counts = disk_counts(tmp_path, matrix)
    rows = np.random.default_rng(2).integers(0, matrix.shape[0], size=80)
    assert len(pickle.dumps(counts)) < 1000  # the paths, not the arrays
    for other in (pickle.loads(pickle.dumps(counts)), copy.copy(counts), copy.deepcopy(counts)):
        assert other._data._fd != counts._data._fd and isinstance(other.data, np.memmap)
        assert_same_csr(other[rows], matrix[rows])
    disk = DiskCorpus.from_counts(matrix[matrix.getnnz(axis=1) > 0], tmp_path / "disk")
    copied = pickle.loads(pickle.dumps(disk))
    assert_same_csr(copied.counts[rows % disk.n_docs], disk.counts[rows % disk.n_docs])
    del disk, counts  # closing the originals' files leaves the copies readable
    assert_same_csr(copied.counts[[0, -1]], copied.subset_to_memory([0, copied.n_docs - 1]).counts)


def test_two_threads_read_concurrently(tmp_path, matrix):
    counts = disk_counts(tmp_path, matrix)
    failures, start = [], threading.Barrier(2)

    def read(seed: int) -> None:
        rng = np.random.default_rng(seed)
        start.wait()
        for _ in range(200):
            rows = rng.integers(0, matrix.shape[0], size=int(rng.integers(1, 60)))
            got, expected = counts[rows], matrix[rows]
            if not (np.array_equal(got.indptr, expected.indptr) and np.array_equal(got.indices, expected.indices)
                    and np.array_equal(got.data, expected.data)):
                failures.append(seed)

    threads = [threading.Thread(target=read, args=(seed,)) for seed in (1, 2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
    assert not failures and not any(thread.is_alive() for thread in threads)


def test_a_truncated_file_is_reported(tmp_path, matrix):
    counts = disk_counts(tmp_path, matrix)
    with open(tmp_path / "indices.npy", "r+b") as file:
        file.truncate(128 + 4 * (matrix.nnz // 2))
    with pytest.raises(CorpusFormatError, match="truncated"):
        counts[matrix.shape[0] - 2:]
    with pytest.raises(CorpusFormatError, match="truncated"):
        counts[[1, matrix.shape[0] - 2]]
