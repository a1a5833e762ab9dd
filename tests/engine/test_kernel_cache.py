"""The numba cache of engine/kernels/compiled is cleared when any of its source files changes."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

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


_WHERE = """
import json
from engine.kernels import compiled
from engine.kernels.compiled import lda
print(json.dumps({"folder": str(compiled.cache_folder()), "numba": lda._fit_all._cache._cache_path}))
"""


def test_a_cache_under_numba_cache_dir_is_cleared_too(tmp_path):
    """With NUMBA_CACHE_DIR set, numba caches elsewhere, and an edited helper must still clear that cache."""
    env = {**os.environ, "NUMBA_CACHE_DIR": str(tmp_path)}

    def where() -> dict:
        done = subprocess.run([sys.executable, "-c", _WHERE], capture_output=True, text=True, env=env, timeout=120)
        assert done.returncode == 0, done.stderr[-2000:]
        return json.loads(done.stdout.strip().splitlines()[-1])

    first = where()
    folder = Path(first["folder"])
    assert folder == Path(first["numba"]) and folder.parent == tmp_path  # where numba's own kernels cache
    assert (folder / "sources.sha256").read_text().strip() == _source_hash()
    stale = [folder / "lda._fit_all-229.py311.nbi", folder / "lda._fit_all-229.py311.1.nbc"]
    for path in stale:
        path.write_bytes(b"machine code of older sources")
    where()  # same sources: kept
    assert all(path.exists() for path in stale)
    (folder / "sources.sha256").write_text("0" * 64 + "\n")  # as if a helper file had been edited since
    where()
    assert not any(path.exists() for path in stale)
    assert (folder / "sources.sha256").read_text().strip() == _source_hash()


def test_without_numbas_locator_the_in_tree_folder_is_cleared(tmp_path, monkeypatch):
    """A numba without the internal the folder is asked of falls back to __pycache__ beside the kernels."""
    from numba.core import caching

    from engine.kernels import compiled

    monkeypatch.delattr(caching, "CompileResultCacheImpl")
    assert compiled.cache_folder() is None
    monkeypatch.setattr(compiled, "_HERE", tmp_path)
    monkeypatch.setattr(compiled, "_source_hash", lambda sources=None: "0" * 64)  # unlike any stamp there
    (tmp_path / "__pycache__").mkdir()
    (tmp_path / "__pycache__" / "lda._fit_all-1.py311.nbi").write_bytes(b"index")
    assert compiled.clear_stale_cache() is True
    assert not (tmp_path / "__pycache__" / "lda._fit_all-1.py311.nbi").exists()
    assert (tmp_path / "__pycache__" / "sources.sha256").read_text().strip() == "0" * 64
