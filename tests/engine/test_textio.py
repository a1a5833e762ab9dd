"""Tests of engine/data/text.py: decoding and the raw-document readers."""

from __future__ import annotations

import codecs
import io
import json
import warnings
import zipfile

import numpy as np
import pytest

import engine
from engine.data.ondisk import DiskCorpus
from engine.data.text import (
    NOT_TEXT,
    RawDocument,
    RawDocuments,
    SkippedFile,
    decode_text,
    read_folder,
    read_table,
    read_txt_files,
    read_zip,
    table_format,
)
from engine.errors import (
    CorpusFormatError,
    EmptyCorpusError,
    FileDecodingError,
    MissingColumnError,
    UnsafeArchiveError,
)


def make_zip(path, entries):
    with zipfile.ZipFile(path, "w", compression=zipfile.ZIP_DEFLATED) as archive:
        for name, data in entries:
            archive.writestr(name, data)
    return path


# decoding -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("data", "expected"),
    [
        ("héllo wörld".encode(), "héllo wörld"),
        (codecs.BOM_UTF8 + "café".encode(), "café"),
        ("naïve text".encode("utf-16"), "naïve text"),  # BOM written by the codec
        ("Le café est très bon, à Paris. Élève déçu.".encode("latin-1"),
         "Le café est très bon, à Paris. Élève déçu."),
        ("He said “hello” – it’s fine".encode("cp1252"), "He said “hello” – it’s fine"),
        ("これは日本語のテキストです。".encode("shift_jis"), "これは日本語のテキストです。"),
    ],
)
def test_decode_text_utf8_bom_and_detected_encodings(data, expected):
    assert decode_text(data, "doc.txt") == expected


def test_decode_text_rejects_nul_bytes_naming_the_file():
    with pytest.raises(FileDecodingError, match=r"'image\.txt' looks like a binary file .*NUL"):
        decode_text(b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR", "image.txt")


def test_decode_text_rejects_undetectable_bytes_naming_the_file():
    noise = bytes(np.random.default_rng(0).integers(1, 256, 400, dtype=np.uint8))
    with pytest.raises(FileDecodingError, match=r"'noise\.txt' is not UTF-8 .*re-save it as UTF-8"):
        decode_text(noise, "noise.txt")


def test_decode_text_rejects_a_lying_bom():
    with pytest.raises(FileDecodingError, match="byte-order mark"):
        decode_text(codecs.BOM_UTF8 + b"\xff\xfe\xfa", "bom.txt")


# txt files and folders ------------------------------------------------------------------


def test_read_txt_files_reports_non_txt_files():
    documents = read_txt_files([("a.txt", b"alpha"), ("notes.xlsx", b"PK"), ("B.TXT", b"beta")])
    assert isinstance(documents, RawDocuments) and isinstance(documents, list)
    assert documents == [RawDocument("a.txt", "a", "alpha"), RawDocument("B.TXT", "B", "beta")]
    assert documents.skipped == (SkippedFile("notes.xlsx", "not a .txt, .md, .rst, .html, .eml, .pdf, .docx, .odt, "
                                                           ".epub, .pptx or .odp file"),)
    assert NOT_TEXT == "not a .txt, .md, .rst, .html, .eml, .pdf, .docx, .odt, .epub, .pptx or .odp file"


def test_skipped_files_group_by_reason_the_largest_group_first():
    files = [SkippedFile("a.css", "not text"), SkippedFile("._a.txt", "macOS metadata"),
             SkippedFile("b.js", "not text"), SkippedFile("search.html", "search page"),
             SkippedFile("c.png", "not text"), SkippedFile("._b.txt", "macOS metadata")]
    assert engine.skipped_by_reason(files) == [("not text", ("a.css", "b.js", "c.png")),
                                               ("macOS metadata", ("._a.txt", "._b.txt")),
                                               ("search page", ("search.html",))]
    ties = [SkippedFile("x", "second"), SkippedFile("y", "first"), SkippedFile("z", "second"),
            SkippedFile("w", "first")]
    assert engine.skipped_by_reason(ties) == [("second", ("x", "z")), ("first", ("y", "w"))]  # ties: first met first
    assert engine.skipped_by_reason(iter(files[:1])) == [("not text", ("a.css",))]
    assert engine.skipped_by_reason([]) == []


def test_web_pages_are_read_as_documents_and_other_files_skipped(tmp_path):
    page = "<html><head><title>Caf\u00e9</title></head><body><p>Un caf\u00e9</p></body></html>"
    documents = read_txt_files([("a.html", page.encode("utf-8")), ("b.HTM", b"<p>x</p>"), ("c.xhtml", b"<p>y</p>"),
                                ("notes.css", b"p {}")])
    assert [(d.doc_id, d.title) for d in documents] == [("a.html", "a"), ("b.HTM", "b"), ("c.xhtml", "c")]
    assert documents[0].text == page  # read as written: the corpus leaves the markup out
    assert documents.skipped == (SkippedFile("notes.css", NOT_TEXT),)
    (tmp_path / "site").mkdir()
    (tmp_path / "site" / "index.html").write_text(page, encoding="utf-8")
    (tmp_path / "site" / "style.css").write_text("p {}", encoding="utf-8")
    folder = read_folder(tmp_path / "site")
    assert [d.doc_id for d in folder] == ["index.html"]
    assert folder.skipped == (SkippedFile("style.css", NOT_TEXT),)
    corpus = engine.Corpus.from_documents(folder)
    assert corpus.vectorizer.strip_markup and corpus.vocabulary == ("cafe",) and corpus.n_tokens == 2  # title, body


def test_read_folder_recursive_sorted_with_skipped(tmp_path):
    (tmp_path / "sub").mkdir()
    (tmp_path / "b.txt").write_text("bravo", encoding="utf-8")
    (tmp_path / "a.txt").write_text("alpha", encoding="utf-8")
    (tmp_path / "sub" / "c.txt").write_bytes("charlie café".encode("utf-8-sig"))
    (tmp_path / "image.png").write_bytes(b"\x89PNG\x00")
    documents = read_folder(tmp_path)
    assert [d.doc_id for d in documents] == ["a.txt", "b.txt", "sub/c.txt"]
    assert documents[2] == RawDocument("sub/c.txt", "c", "charlie café")
    assert documents.skipped == (SkippedFile("image.png", NOT_TEXT),)


def test_read_folder_binary_txt_is_reported_by_name(tmp_path):
    (tmp_path / "fine.txt").write_text("fine", encoding="utf-8")
    (tmp_path / "broken.txt").write_bytes(b"\x00\x01\x02binary")
    with pytest.raises(FileDecodingError, match=r"broken.txt"):
        read_folder(tmp_path)


def test_read_folder_needs_a_folder(tmp_path):
    with pytest.raises(NotADirectoryError, match=r"folder of text files \(.txt, .html, .eml, .pdf"):
        read_folder(tmp_path / "missing")


# zip archives ---------------------------------------------------------------------------


def test_read_zip_path_and_bytes(tmp_path):
    path = make_zip(tmp_path / "docs.zip", [("docs/", b""), ("docs/one.txt", "première".encode()),
                                            ("docs/two.txt", b"second"), ("docs/table.csv", b"a,b"),
                                            ("__MACOSX/docs/._one.txt", b"\x00\x05")])
    for source in (path, str(path), path.read_bytes()):
        documents = read_zip(source)
        assert documents == [RawDocument("docs/one.txt", "one", "première"),
                             RawDocument("docs/two.txt", "two", "second")]
        assert documents.skipped == (SkippedFile("docs/table.csv", NOT_TEXT),
                                     SkippedFile("__MACOSX/docs/._one.txt", "macOS metadata"))


@pytest.mark.parametrize("name", ["/etc/passwd.txt", "../escape.txt", "docs/../../escape.txt",
                                  "C:/windows.txt", "\\server\\share.txt"])
def test_read_zip_rejects_unsafe_paths(tmp_path, name):
    path = make_zip(tmp_path / "evil.zip", [("ok.txt", b"fine"), (name, b"evil")])
    with pytest.raises(UnsafeArchiveError, match=r"absolute or '..' path"):
        read_zip(path)


def test_read_zip_rejects_too_many_files(tmp_path):
    path = make_zip(tmp_path / "many.zip", [(f"{i}.txt", b"x") for i in range(6)])
    with pytest.raises(UnsafeArchiveError, match="6 entries, more than max_files=5"):
        read_zip(path, max_files=5)
    assert len(read_zip(path, max_files=6)) == 6


def test_read_zip_rejects_large_declared_total(tmp_path):
    path = make_zip(tmp_path / "bomb.zip", [("a.txt", b"a" * 600), ("b.txt", b"b" * 600)])
    assert path.stat().st_size < 600  # compresses well: the expanded size is what counts
    with pytest.raises(UnsafeArchiveError, match=r"max_total_bytes=1000.*zip bomb"):
        read_zip(path, max_total_bytes=1000)


def test_read_zip_enforces_the_budget_while_reading(tmp_path, monkeypatch):
    path = make_zip(tmp_path / "liar.zip", [("a.txt", b"tiny")])
    # an entry that yields more than it declares: the budget stops the read
    monkeypatch.setattr(zipfile.ZipFile, "open", lambda self, info, *a, **k: io.BytesIO(b"x" * 5000))
    with pytest.raises(UnsafeArchiveError, match=r"max_total_bytes=1000|expands past the 4 bytes it declares"):
        read_zip(path, max_total_bytes=1000)


def test_read_zip_forged_size_or_corrupt_data_is_a_format_error(tmp_path):
    text = " ".join(f"word{i}" for i in range(2000)).encode()
    path = make_zip(tmp_path / "forged.zip", [("a.txt", text)])
    data = bytearray(path.read_bytes())
    central = data.rindex(b"PK\x01\x02")
    forged = data.copy()
    forged[central + 24:central + 28] = (10).to_bytes(4, "little")  # uncompressed size field
    with pytest.raises(CorpusFormatError, match=r"cannot read 'a\.txt'"):
        read_zip(bytes(forged))
    corrupt = data.copy()
    corrupt[100:140] = bytes(40)  # inside the compressed stream
    with pytest.raises(CorpusFormatError, match=r"cannot read 'a\.txt'"):
        read_zip(bytes(corrupt))


def test_read_zip_unknown_version_or_bad_offset_is_a_format_error(tmp_path):
    """What zipfile raises beyond BadZipFile for a crafted archive (NotImplementedError, ValueError) is reported
    like any damage, by read_zip and by DiskCorpus, which streams the archive."""
    path = make_zip(tmp_path / "ok.zip", [("a.txt", b"alpha beta"), ("b.txt", b"beta gamma")])
    data = bytearray(path.read_bytes())
    central = data.rindex(b"PK\x01\x02")
    version = data.copy()
    version[central + 6:central + 8] = (99).to_bytes(2, "little")  # "version needed to extract": 9.9
    offset = data.copy()
    end = data.rindex(b"PK\x05\x06")
    offset[end + 16:end + 20] = (2**31).to_bytes(4, "little")  # the central directory's offset, far past the end
    for crafted, name in ((version, "version.zip"), (offset, "offset.zip")):
        damage = "not a valid zip archive" if name == "version.zip" else r"cannot read 'a\.txt'"
        with pytest.raises(CorpusFormatError, match=damage):
            read_zip(bytes(crafted))
        (tmp_path / name).write_bytes(bytes(crafted))
        with pytest.raises(CorpusFormatError, match=damage):
            DiskCorpus.from_texts(tmp_path / name, tmp_path / f"out-{name}")


def test_read_zip_rejects_non_zip_and_duplicates(tmp_path):
    with pytest.raises(CorpusFormatError, match="not a valid zip archive"):
        read_zip(b"this is not a zip")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # zipfile warns about the duplicate we make on purpose
        path = make_zip(tmp_path / "dup.zip", [("a.txt", b"one"), ("a.txt", b"two")])
    with pytest.raises(CorpusFormatError, match=r"'a.txt' twice"):
        read_zip(path)


# tables ---------------------------------------------------------------------------------


def test_read_table_csv_with_title_and_ids(tmp_path):
    path = tmp_path / "docs.csv"
    path.write_text('id,title,body\n7,First,"hello, world"\n9,,second text\n', encoding="utf-8")
    documents = read_table(path, "body", title_column="title", id_column="id")
    assert documents == [RawDocument("7", "First", "hello, world"), RawDocument("9", "9", "second text")]
    assert read_table(path, "body")[1] == RawDocument("2", "2", "second text")


def test_read_table_tsv_jsonl_and_bytes(tmp_path):
    (tmp_path / "d.tsv").write_text("text\tname\nalpha beta\tA\n", encoding="utf-8")
    assert read_table(tmp_path / "d.tsv", "text", "name") == [RawDocument("1", "A", "alpha beta")]
    lines = [json.dumps({"text": "gamma", "n": 1}), json.dumps({"text": None, "n": 2})]
    data = "\n".join(lines).encode()
    assert read_table(data, "text", format="jsonl") == [RawDocument("1", "1", "gamma"), RawDocument("2", "2", "")]
    assert table_format("upload.JSONL") == "jsonl" and table_format("x.txt") is None
    with pytest.raises(ValueError, match="format must be 'csv', 'tsv', 'jsonl', 'mbox', 'xlsx' or 'ods'"):
        read_table(data, "text")


def test_read_table_non_utf8_csv(tmp_path):
    path = tmp_path / "legacy.csv"
    path.write_bytes('text\n"Le café est très bon, à Paris. Élève déçu."\n'.encode("cp1252"))
    assert read_table(path, "text")[0].text == "Le café est très bon, à Paris. Élève déçu."


def test_read_table_missing_column_lists_available(tmp_path):
    path = tmp_path / "docs.csv"
    path.write_text("id,body\n1,hello\n", encoding="utf-8")
    with pytest.raises(MissingColumnError, match=r"no column 'text' \(text_column\); available columns: 'id', 'body'"):
        read_table(path, "text")
    with pytest.raises(KeyError, match="title_column"):
        read_table(path, "body", title_column="headline")


def test_read_table_bad_inputs(tmp_path):
    with pytest.raises(EmptyCorpusError, match="is empty"):
        read_table(b"", "text", format="csv")
    with pytest.raises(CorpusFormatError, match="not valid JSONL"):
        read_table(b'{"text": "a"}\n{broken', "text", format="jsonl")
    with pytest.raises(CorpusFormatError, match="more fields than the header"):
        read_table(b"text\nunquoted, comma\n", "text", format="csv")
    with pytest.raises(CorpusFormatError, match="not valid CSV"):
        read_table(b"text,x\na,b\nc,d,e\n", "text", format="csv")
    with pytest.raises(CorpusFormatError, match="repeats the id '1'"):
        read_table(b"id,text\n1,a\n1,b\n", "text", format="csv", id_column="id")
