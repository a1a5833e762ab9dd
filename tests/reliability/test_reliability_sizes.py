"""Declared sizes are checked before allocation and against the file's real content, for every reader.

A header may ask for anything; a tiny crafted file must fail at once with a
specific error (LimitExceededError naming the limit and its SVI_TOPICS_* variable,
or CorpusFormatError saying the body cannot hold what the header declares), never a
MemoryError, and legitimate files must still load with nothing lost.
"""

import gzip
import json
import subprocess
import sys
import textwrap
import zipfile

import numpy as np
import pytest
import scipy.io
import scipy.sparse

import engine
from engine import CorpusFormatError, DiskCorpus, EmptyCorpusError, LimitExceededError, load_corpus, read_uci


def write(path, text):
    path.write_text(text, encoding="utf-8")
    return path


@pytest.fixture
def vocab10(tmp_path):
    return write(tmp_path / "vocab.txt", "".join(f"w{i}\n" for i in range(10)))


# UCI -------------------------------------------------------------------------------------


def test_uci_header_beyond_a_limit_fails_at_once(tmp_path, vocab10):
    path = write(tmp_path / "docword.txt", f"{10**12}\n10\n1\n1 1 1\n")
    with pytest.raises(LimitExceededError, match=r"documents .* is 1,000,000,000,000, above the limit "
                                                 r"max_documents .*SVI_TOPICS_MAX_DOCUMENTS"):
        read_uci(path)
    write(path, f"1\n{10**11}\n1\n1 1 1\n")
    with pytest.raises(LimitExceededError, match=r"max_vocabulary.*SVI_TOPICS_MAX_VOCABULARY"):
        read_uci(path)
    write(path, f"1\n10\n{10**10}\n1 1 1\n")
    with pytest.raises(LimitExceededError, match=r"max_entries.*SVI_TOPICS_MAX_ENTRIES"):
        read_uci(path)


def test_uci_limits_follow_the_environment(tmp_path, vocab10, monkeypatch):
    path = write(tmp_path / "docword.txt", "3\n10\n3\n1 1 1\n2 2 1\n3 3 1\n")
    assert read_uci(path).n_docs == 3
    monkeypatch.setenv("SVI_TOPICS_MAX_DOCUMENTS", "2")
    with pytest.raises(LimitExceededError, match=r"max_documents = 2; .*SVI_TOPICS_MAX_DOCUMENTS"):
        read_uci(path)


def test_tiny_uci_file_declaring_millions_of_documents_is_rejected(tmp_path, vocab10):
    path = write(tmp_path / "docword.txt", "2000000\n10\n1\n1 1 1\n")
    assert path.stat().st_size <= 20
    with pytest.raises(CorpusFormatError, match=r"docword\.txt: the header declares 2,000,000 documents but only 1 "
                                                r"can have words .*fix the number of documents"):
        read_uci(path)
    with pytest.raises(CorpusFormatError, match="declares 2,000,000 documents"):
        DiskCorpus.from_uci(path, tmp_path / "disk")
    assert not (tmp_path / "disk").exists()


def test_uci_entries_the_body_cannot_hold_are_rejected(tmp_path, vocab10):
    path = write(tmp_path / "docword.txt", "2\n10\n1000000\n1 1 1\n2 2 1\n")
    match = r"declares 1,000,000 entries, which take at least 5,999,999 bytes, but only 12 bytes follow it"
    with pytest.raises(CorpusFormatError, match=match):
        read_uci(path)
    with pytest.raises(CorpusFormatError, match=match):
        DiskCorpus.from_uci(path, tmp_path / "disk")


def test_uci_mostly_empty_documents_are_rejected_after_parsing(tmp_path, vocab10):
    # 4 declared documents, 2 entries, both in document 1: three documents would be empty
    path = write(tmp_path / "docword.txt", "4\n10\n2\n1 1 1\n1 2 1\n")
    with pytest.raises(CorpusFormatError, match=r"declares 4 documents but only 1 can have words .* 3 would be empty"):
        read_uci(path)
    with pytest.raises(CorpusFormatError, match="3 would be empty"):
        DiskCorpus.from_uci(path, tmp_path / "disk", chunk_size=1)


def test_legitimate_uci_files_keep_every_document(tmp_path, vocab10):
    # document 2 is empty: one empty document for three entries is allowed and reported
    path = write(tmp_path / "docword.txt", "3\n10\n3\n1 1 4\n3 2 1\n3 10 2\n")
    for corpus in (read_uci(path), DiskCorpus.from_uci(path, tmp_path / "disk")):
        assert corpus.n_docs == 2 and corpus.n_tokens == 7 if hasattr(corpus, "n_tokens") else True
        assert [d.doc_id for d in corpus.dropped] == ["2"]
    gz = tmp_path / "docword.z.txt.gz"
    gz.write_bytes(gzip.compress(path.read_bytes()))
    assert (read_uci(gz, vocab10).counts != read_uci(path).counts).nnz == 0
    assert DiskCorpus.from_uci(gz, tmp_path / "disk2", vocab10).n_docs == 2


def test_uci_no_entries_is_an_empty_corpus(tmp_path, vocab10):
    with pytest.raises(EmptyCorpusError, match="all 2,000,000 rows of counts are empty"):
        read_uci(write(tmp_path / "docword.txt", "2000000\n10\n0\n"))


# gzip ------------------------------------------------------------------------------------


def test_gzip_expansion_is_bounded(tmp_path, vocab10, monkeypatch):
    monkeypatch.setenv("SVI_TOPICS_MAX_EXPANDED_MB", "1")
    body = b"1\n10\n1\n1 1 1\n" + b"\n" * (3 * 2**20)  # 3 MB of blank lines compress to a few kB
    path = tmp_path / "docword.bomb.txt.gz"
    path.write_bytes(gzip.compress(body))
    assert path.stat().st_size < 10_000
    match = r"docword\.bomb\.txt\.gz expands to more than 1 MB .*max_expanded_mb .*SVI_TOPICS_MAX_EXPANDED_MB"
    with pytest.raises(LimitExceededError, match=match):
        read_uci(path, vocab10)
    with pytest.raises(LimitExceededError, match=match):
        DiskCorpus.from_uci(path, tmp_path / "disk", vocab10)
    mtx = tmp_path / "m.mtx.gz"
    mtx.write_bytes(gzip.compress(b"%%MatrixMarket matrix coordinate integer general\n" + b"%\n" * 2**20))
    with pytest.raises(LimitExceededError, match=r"m\.mtx\.gz expands to more than 1 MB"):
        engine.read_mtx(mtx)


def test_truncated_gzip_is_a_format_error(tmp_path, vocab10):
    path = tmp_path / "docword.cut.txt.gz"
    path.write_bytes(gzip.compress(b"1\n10\n1\n1 1 1\n" * 100)[:-30])
    with pytest.raises(CorpusFormatError, match="not a valid gzip file"):
        read_uci(path, vocab10)


# LDA-C -----------------------------------------------------------------------------------


def test_ldac_is_held_to_the_limits(tmp_path, vocab10, monkeypatch):
    path = write(tmp_path / "c.ldac", "1 0:1\n2 1:1 2:3\n1 9:1\n")
    assert engine.read_ldac(path).n_tokens == 6
    monkeypatch.setenv("SVI_TOPICS_MAX_DOCUMENTS", "2")
    with pytest.raises(LimitExceededError, match=r"documents \(lines\) in c\.ldac is 3, above .*max_documents"):
        engine.read_ldac(path)
    monkeypatch.delenv("SVI_TOPICS_MAX_DOCUMENTS")
    monkeypatch.setenv("SVI_TOPICS_MAX_ENTRIES", "3")
    with pytest.raises(LimitExceededError, match=r"'id:count' entries in c.ldac is 4.*SVI_TOPICS_MAX_ENTRIES"):
        engine.read_ldac(path)
    monkeypatch.setenv("SVI_TOPICS_MAX_VOCABULARY", "5")
    with pytest.raises(LimitExceededError, match=r"words in vocab\.txt is 10.*SVI_TOPICS_MAX_VOCABULARY"):
        engine.read_ldac(path)


# Matrix Market ---------------------------------------------------------------------------


def mtx(tmp_path, text, name="m.mtx"):
    return write(tmp_path / name, text)


def test_dense_matrix_market_header_fails_fast(tmp_path):
    path = mtx(tmp_path, "%%MatrixMarket matrix array integer general\n100000 100000\n1\n")
    with pytest.raises(LimitExceededError, match=r"cells of the dense \('array'\) matrix m\.mtx declares "
                                                 r"\(100,000 x 100,000\) is 10,000,000,000, above the limit "
                                                 r"max_dense_cells .*SVI_TOPICS_MAX_DENSE_CELLS"):
        load_corpus(path)
    path = mtx(tmp_path, "%%MatrixMarket matrix array integer general\n1000 1000\n1\n2\n")
    with pytest.raises(CorpusFormatError, match=r"dense 1,000 x 1,000 matrix \(1,000,000 values, at least "
                                                r"1,999,999 bytes\) but only 4 bytes follow"):
        load_corpus(path)


@pytest.mark.parametrize(("size_line", "error", "match"), [
    (f"{10**12} 10 1", LimitExceededError, "max_documents"),
    (f"10 {10**12} 1", LimitExceededError, "max_vocabulary"),
    (f"10 10 {10**12}", LimitExceededError, "max_entries"),
    ("10 10 1000000", CorpusFormatError, r"size line declares 1,000,000 entries, .* but only 6 bytes follow"),
    ("2000000 10 1", CorpusFormatError, r"size line declares 2,000,000 documents but only 1 can have words"),
    ("10 10", CorpusFormatError, r"size line must be 'rows columns entries'"),
])
def test_coordinate_matrix_market_header_is_checked(tmp_path, size_line, error, match):
    path = mtx(tmp_path, f"%%MatrixMarket matrix coordinate integer general\n% a comment\n{size_line}\n1 1 1\n")
    with pytest.raises(error, match=match):
        engine.read_mtx(path)


def test_matrix_market_banner_is_checked(tmp_path):
    with pytest.raises(CorpusFormatError, match="first line must be '%%MatrixMarket matrix"):
        engine.read_mtx(mtx(tmp_path, "2 2 1\n1 1 1\n"))


def test_legitimate_matrix_market_files_load_in_full(tmp_path):
    counts = np.array([[1, 0, 2], [0, 0, 0], [0, 3, 0], [4, 0, 1]])
    scipy.io.mmwrite(tmp_path / "c.mtx", scipy.sparse.coo_matrix(counts), field="integer")
    (tmp_path / "c.mtx.gz").write_bytes(gzip.compress((tmp_path / "c.mtx").read_bytes()))
    dense = mtx(tmp_path, "%%MatrixMarket matrix array integer general\n% dense\n4 3\n"
                + "".join(f"{v}\n" for v in counts.T.ravel()), "d.mtx")
    for path in (tmp_path / "c.mtx", tmp_path / "c.mtx.gz", dense):
        loaded = load_corpus(path)
        assert loaded.n_tokens == 11 and loaded.n_docs == 3 and [d.doc_id for d in loaded.dropped] == ["2"]


# saved corpora ---------------------------------------------------------------------------


def forge_npz_member(folder, key, shape, payload=b""):
    """Replace ``key`` in ``counts.npz`` by an array header declaring ``shape``, followed by ``payload``."""
    path = folder / "counts.npz"
    with zipfile.ZipFile(path) as archive:
        members = {name: archive.read(name) for name in archive.namelist()}
    header = {"descr": "<i8", "fortran_order": False, "shape": shape}
    import io

    buffer = io.BytesIO()
    np.lib.format.write_array_header_1_0(buffer, header)
    members[f"{key}.npy"] = buffer.getvalue() + payload
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, data in members.items():
            archive.writestr(name, data)


def test_saved_corpus_arrays_are_checked_before_loading(tmp_path):
    folder = engine.Corpus.from_texts(["alpha beta", "beta gamma"]).save(tmp_path / "c")
    forge_npz_member(folder, "data", (10**10,))
    with pytest.raises(LimitExceededError, match=r"data\.npy in counts\.npz declares 10,000,000,000 values"):
        engine.Corpus.load(folder)
    forge_npz_member(folder, "data", (1000,), b"\0" * 16)
    with pytest.raises(CorpusFormatError, match="declares more data than it holds"):
        engine.Corpus.load(folder)


def test_disk_corpus_manifest_sizes_are_held_to_the_limits(tmp_path):
    disk = DiskCorpus.from_counts(np.array([[1, 2], [0, 3]]), tmp_path / "disk")
    manifest = json.loads((disk.folder / "manifest.json").read_text())
    manifest["n_docs"] = 10**12
    (disk.folder / "manifest.json").write_text(json.dumps(manifest))
    with pytest.raises(LimitExceededError, match=r"n_docs in the manifest.json .*SVI_TOPICS_MAX_DOCUMENTS"):
        DiskCorpus.open(disk.folder)


# peak memory -----------------------------------------------------------------------------


PEAK_SCRIPT = textwrap.dedent("""
    import resource, sys
    from pathlib import Path
    import engine
    folder = Path(sys.argv[1])
    engine.read_uci(folder / "docword.ok.txt")  # warm up the parsers the crafted files reach
    engine.read_mtx(folder / "ok.mtx")
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    errors = []
    for name in ("docword.txt", "docword.huge.txt", "dense.mtx", "coord.mtx"):
        reader = engine.read_mtx if name.endswith(".mtx") else engine.read_uci
        try:
            reader(folder / name)
        except engine.EngineError as exc:
            errors.append(type(exc).__name__)
    after = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    print(",".join(errors), (after - before) // 1024)
""")


def test_crafted_tiny_files_keep_peak_memory_small(tmp_path, vocab10):
    write(tmp_path / "docword.ok.txt", "2\n10\n2\n1 1 1\n2 2 1\n")
    write(tmp_path / "ok.mtx", "%%MatrixMarket matrix coordinate integer general\n2 10 2\n1 1 1\n2 2 1\n")
    write(tmp_path / "docword.txt", "2000000\n10\n1\n1 1 1\n")
    write(tmp_path / "docword.huge.txt", f"{10**12}\n10\n1\n1 1 1\n")
    write(tmp_path / "dense.mtx", "%%MatrixMarket matrix array real general\n100000 100000\n1\n")
    write(tmp_path / "coord.mtx", "%%MatrixMarket matrix coordinate real general\n2000000 100000 1\n1 1 1\n")
    result = subprocess.run([sys.executable, "-c", PEAK_SCRIPT, str(tmp_path)], capture_output=True, text=True,
                            timeout=60, check=True)
    errors, grown_mb = result.stdout.split()
    assert errors == "CorpusFormatError,LimitExceededError,LimitExceededError,CorpusFormatError"
    assert int(grown_mb) < 32, f"peak memory grew by {grown_mb} MB"
