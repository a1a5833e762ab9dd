"""The numba cache of engine/kernels/compiled is cleared when any of its source files changes."""

from __future__ import annotations

import pytest

pytest.importorskip("numba")

from engine.kernels.compiled import _SOURCES, _source_hash, clear_stale_cache


def _cache_files(cache):
    return sorted(path.name for path in cache.iterdir() if path.suffix in {".nbi", ".nbc"})


def test_edit_of_a_helper_clears_the_cache(tmp_path):
    kernel, helper = tmp_path / "kernel.py", tmp_path / "helper.py"
    kernel.write_text("def kernel(): pass\n")
    helper.write_text("def helper(): return 1\n")
    cache = tmp_path / "__pycache__"
    cache.mkdir()
    (cache / "kernel.kernel-1.py311.nbi").write_bytes(b"index")
    (cache / "kernel.kernel-1.py311.1.nbc").write_bytes(b"code")
    sources = (kernel, helper)

    assert clear_stale_cache(cache, sources) is True  # no stamp yet: the cache's origin is unknown
    assert _cache_files(cache) == []
    (cache / "kernel.kernel-1.py311.nbi").write_bytes(b"index")  # numba fills it again
    assert clear_stale_cache(cache, sources) is False  # nothing changed: kept
    assert _cache_files(cache) == ["kernel.kernel-1.py311.nbi"]

    helper.write_text("def helper(): return 2\n")  # only the helper's file changes
    assert clear_stale_cache(cache, sources) is True
    assert _cache_files(cache) == []
    assert (cache / "sources.sha256").read_text().strip() == _source_hash(sources)


def test_the_stamp_covers_every_kernel_file_and_the_flags():
    names = {path.name for path in _SOURCES}
    assert {"lda.py", "hdp.py", "hdp_rows.py", "numerics.py", "lazy_topics.py", "flags.py"} <= names
