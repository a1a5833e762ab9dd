"""A check shared by the tests of the formats read as rendered (Markdown, reStructuredText)."""

from __future__ import annotations

import zipfile
from pathlib import Path

import numpy as np

import engine


def assert_every_reader_reads_alike(tmp_path: Path, files: list[tuple[str, bytes]], documents,
                                    absent: set[str]) -> None:
    """``files`` (name, bytes) written to a folder and a .zip are read as ``read_txt_files`` read them
    (``documents``) by ``read_folder`` and ``read_zip``; ``load_corpus`` and ``DiskCorpus.from_texts`` count the
    same words, none of ``absent`` among them."""
    folder = tmp_path / "docs"
    folder.mkdir()
    for name, data in files:
        (folder / name).write_bytes(data)
    with zipfile.ZipFile(tmp_path / "docs.zip", "w") as archive:
        for name, data in files:
            archive.writestr(f"docs/{name}", data)
    assert sorted(d.text for d in engine.read_folder(folder)) == sorted(d.text for d in documents)
    assert sorted(d.text for d in engine.read_zip(tmp_path / "docs.zip")) == sorted(d.text for d in documents)
    memory = engine.load_corpus(folder, min_df=1)
    disk = engine.DiskCorpus.from_texts(folder, tmp_path / "disk", min_df=1)
    assert disk.vocabulary == memory.vocabulary and not absent & set(memory.vocabulary)
    np.testing.assert_array_equal(disk.subset_to_memory(slice(None)).counts.toarray(), memory.counts.toarray())
