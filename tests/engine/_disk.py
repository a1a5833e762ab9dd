"""Helpers shared by the on-disk corpus tests: CSR counts saved as .npy files, and an exact CSR comparison."""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp

from engine.data.ondisk import DiskCounts


def disk_counts(folder, matrix) -> DiskCounts:
    """``matrix`` written as indptr/indices/data .npy files in ``folder`` (the corpus format's dtypes), opened."""
    arrays = {"indptr": matrix.indptr.astype(np.int64), "indices": matrix.indices.astype(np.int32),
              "data": matrix.data.astype(np.int32)}
    for name, array in arrays.items():
        np.save(folder / f"{name}.npy", array)
    mapped = {name: np.load(folder / f"{name}.npy", mmap_mode="r") for name in arrays}
    return DiskCounts(mapped["indptr"], mapped["indices"], mapped["data"], matrix.shape[1])


def assert_same_csr(got, expected):
    """The same CSR structure and values, with counts returned as int64."""
    assert isinstance(got, sp.csr_matrix) and got.shape == expected.shape
    assert np.array_equal(got.indptr, expected.indptr) and np.array_equal(got.indices, expected.indices)
    assert np.array_equal(got.data, expected.data) and got.data.dtype == np.int64
