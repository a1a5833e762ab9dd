"""PDF, Word, OpenDocument, EPUB and slide files read as text (engine/data/documents.py), on files made here."""

from __future__ import annotations

import io
import random
import zipfile
from pathlib import Path

import pytest

import engine
from engine.data.documents import DocumentReader, pdf_pages_text, read_documents
from engine.data.text import SkippedFile, read_folder, read_txt_files, read_zip
from engine.limits import Limits
from tests.engine._documents import (
    damaged,
    make_docx,
    make_epub,
    make_odp,
    make_odt,
    make_pdf,
    make_pptx,
    word_paragraph,
)

REPORT = [["Annual report of the river authority", "The river rose in spring and the dams held."],
          ["Annual report 2 of 5", "Floods were expecta-", "tions of every farmer along the valley."],
          ["Annual report 3 of 5", "The valley's farms gave a fine harvest of wheat, as expectations had it."],
          ["Annual report 4 of 5", "Wheat prices fell while the dams were mended."],
          ["Annual report 5 of 5", "The authority thanks its engineers."]]


def _read(name: str, data: bytes, **limits) -> engine.DocumentText:
    (document,) = read_documents([(name, data)], Limits(**limits) if limits else None)
    return document


# ------------------------------------------------------------------------------------------------ PDF
def test_a_pdf_is_read_page_by_page_in_order():
    document = _read("report.pdf", make_pdf([["First page, first line", "first page, second line"],
                                             ["Second page"]]))
    assert document.problem is None and document.kind == "PDF" and document.pages == 2
    assert document.text == "First page, first line\nfirst page, second line\n\nSecond page"


def test_a_pdf_loses_its_running_header_and_joins_words_hyphenated_at_line_ends():
    text = _read("report.pdf", make_pdf(REPORT)).text
    # "Annual report N of 5" heads 4 of 5 pages (digits aside): left out, also the one page 1 does not repeat
    assert "Annual report" not in text.replace("Annual report of the river authority", "")
    assert "Annual report of the river authority" in text  # page 1's own first line differs: kept
    assert "Floods were expectations of every farmer" in text
    assert "expecta-" not in text and "\ufffe" not in text


def test_running_lines_need_three_pages_and_half_of_them():
    two = [["Header", "body one"], ["Header", "body two"]]
    assert pdf_pages_text(["\r\n".join(p) for p in two]).count("Header") == 2
    three = [["Title", "body one"], ["Header 2", "body two"], ["Header 3", "body three"]]
    assert pdf_pages_text(["\r\n".join(p) for p in three]) == "Title\nbody one\n\nbody two\n\nbody three"
    four = [["Header 1", "body one"], ["Header 2", "body two"], ["Other 3", "body three"], ["Other 4", "body four"]]
    text = pdf_pages_text(["\r\n".join(p) for p in four])
    assert "Header" not in text and "Other" not in text  # each repeats on half of the pages, digits aside
    once = [["Header", "body one"], ["Title", "body two"], ["x", "body three"], ["y", "body four"]]
    assert pdf_pages_text(["\r\n".join(p) for p in once]).count("body") == 4


def test_a_header_and_footer_written_after_the_page_text_are_left_out():
    """Chromium's "Save as PDF" writes the page header and footer after the page's own text."""
    words = ["rivers", "wheat", "stars", "floods"]
    pages = [f"{w} rose\r\n{w} fell\r\nAddress of 1934\r\nPage {i} of 4" for i, w in enumerate(words, 1)]
    assert pdf_pages_text(pages) == "\n\n".join(f"{w} rose\n{w} fell" for w in words)


def test_a_hyphen_the_text_writes_elsewhere_is_kept_at_a_line_end():
    pages = ["The land\ufffeuse plan and other land-use rules.", "Expecta\ufffetions ran high; expectations fell."]
    text = pdf_pages_text(pages)
    assert "land-use plan" in text and "Expectations ran high" in text


def test_without_a_joined_word_written_elsewhere_every_line_end_hyphen_is_the_writers():
    """A browser's "Save as PDF" never hyphenates: when the text writes none of the joined words, PDFium's marks
    are the writer's hyphens (and dashes), kept."""
    text = pdf_pages_text(["A self\ufffereliant and peace\ufffeloving people; they seek\ufffethis peace."])
    assert text == "A self-reliant and peace-loving people; they seek-this peace."


def test_ligatures_control_characters_and_surrogates_are_cleaned():
    text = pdf_pages_text(["\ufb01rst e\ufb00ort, \ufb02ow\x00\x07 and \ud800odd"])
    assert text == "first effort, flow and odd"


def test_a_password_protected_pdf_says_so():
    pdf = make_pdf([["Secret words"]])
    encrypted = pdf.replace(b"/Root 1 0 R", b"/Root 1 0 R /Encrypt << /Filter /Standard /V 1 /R 2 /O <"
                            + b"11" * 32 + b"> /U <" + b"22" * 32 + b"> /P -4 >> /ID [<" + b"ab" * 16 + b"> <"
                            + b"ab" * 16 + b">]")
    document = _read("secret.pdf", encrypted)
    assert document.text is None and document.problem.startswith("is protected by a password")


def test_a_pdf_without_text_is_reported_as_a_possible_scan():
    document = _read("scan.pdf", make_pdf([[], []]))
    assert document.text is None and "holds no text on its 2 pages" in document.problem
    assert "OCR" in document.problem


@pytest.mark.parametrize(("data", "words"), [
    (b"%PDF-1.7\nnot really a pdf", "is damaged or not a PDF (PDFium: "),
    (b"PK\x03\x04 a zip", "has no PDF header"),
    (b"", "has no PDF header"),
])
def test_a_damaged_pdf_says_what_to_do(data, words):
    document = _read("bad.pdf", data)
    assert document.text is None and words in document.problem and "save or export it as PDF again" in \
        document.problem


def test_a_pdf_that_takes_too_long_is_reported_and_the_next_is_read():
    with DocumentReader(Limits(max_document_seconds=1e-9)) as reader:
        slow = reader.read("slow.pdf", make_pdf(REPORT))
        assert slow.text is None and "took more than" in slow.problem
        assert "SVI_TOPICS_MAX_DOCUMENT_SECONDS" in slow.problem
        reader._pdf.seconds = 60  # the child was killed; a new one starts for the next file
        assert reader.read("next.pdf", make_pdf([["Next file"]])).text == "Next file"


def test_the_reader_starts_a_new_child_when_one_dies():
    with DocumentReader() as reader:
        assert reader.read("a.pdf", make_pdf([["one"]])).text == "one"
        process = reader._pdf.process
        process.kill()
        process.wait()
        assert reader.read("b.pdf", make_pdf([["two"]])).text == "two"
        assert reader._pdf.process is not process
    assert reader._pdf.process is None and process.returncode is not None


def test_a_pdf_that_kills_the_reader_is_reported_and_the_next_is_read(tmp_path, monkeypatch):
    from engine.data import documents

    real = documents._CHILD
    dying = tmp_path / "dying_child.py"  # dies on a file holding "CRASH", as PDFium might on a crafted one
    dying.write_text("import os, runpy, sys\n"
                     "real = runpy.run_path(" + repr(real) + ")\n"
                     "pages = real['_pages']\n"
                     "def crash(pdfium, data):\n"
                     "    if b'CRASH' in data:\n"
                     "        os._exit(3)\n"
                     "    return pages(pdfium, data)\n"
                     "real['main'].__globals__['_pages'] = crash\n"
                     "real['main']()\n")
    monkeypatch.setattr(documents, "_CHILD", str(dying))
    with DocumentReader() as reader:
        crashed = reader.read("crafted.pdf", make_pdf([["CRASH"]]))
        assert crashed.text is None and crashed.problem.startswith("stopped the PDF reader")
        assert reader.read("next.pdf", make_pdf([["next"]])).text == "next"


def test_without_pypdfium2_every_pdf_says_what_to_install(tmp_path, monkeypatch):
    from engine.data import documents

    blocked = tmp_path / "blocked_child.py"
    blocked.write_text(f"import runpy, sys\nsys.modules['pypdfium2'] = None\n"
                       f"runpy.run_path({documents._CHILD!r}, run_name='__main__')\n")
    monkeypatch.setattr(documents, "_CHILD", str(blocked))
    with DocumentReader() as reader:
        for name in ("a.pdf", "b.pdf"):
            document = reader.read(name, make_pdf([["words"]]))
            assert document.text is None and "pip install pypdfium2" in document.problem
        assert reader.read("c.docx", make_docx(word_paragraph("still read"))).text == "still read"


def test_the_child_ends_with_the_reader():
    reader = DocumentReader()
    reader.read("a.pdf", make_pdf([["one"]]))
    process = reader._pdf.process
    reader.close()
    assert process.poll() is not None


# ------------------------------------------------------------------------------------------------ Word
def test_a_word_document_reads_paragraphs_tabs_and_footnotes():
    body = word_paragraph("Dear reader,\tthe harvest") + word_paragraph("was good.")
    document = _read("letter.docx", make_docx(body, footnotes_xml='<w:footnote w:id="1"><w:p><w:r><w:t>Wheat, '
                                                                   "mostly.</w:t></w:r></w:p></w:footnote>"))
    assert document.problem is None and document.kind == "Word document"
    assert document.text == "Dear reader,\tthe harvest\nwas good.\nWheat, mostly."


def test_a_word_document_leaves_out_deletions_moves_field_codes_and_fallback_copies():
    body = ("<w:p><w:r><w:t>kept</w:t></w:r><w:del><w:r><w:delText> deleted</w:delText></w:r></w:del>"
            "<w:ins><w:r><w:t> inserted</w:t></w:r></w:ins></w:p>"
            "<w:p><w:moveFrom><w:r><w:t>moved away</w:t></w:r></w:moveFrom></w:p>"
            "<w:p><w:moveTo><w:r><w:t>moved here</w:t></w:r></w:moveTo></w:p>"
            "<w:p><w:r><w:fldChar/></w:r><w:r><w:instrText> PAGE </w:instrText></w:r><w:r><w:t>7</w:t></w:r></w:p>"
            "<w:p><w:r><w:t>in</w:t></w:r><w:r><w:noBreakHyphen/><w:t>line</w:t></w:r></w:p>"
            "<w:p><mc:AlternateContent><mc:Choice><w:r><w:t>a text box</w:t></w:r></mc:Choice><mc:Fallback><w:r>"
            "<w:t>a text box</w:t></w:r></mc:Fallback></mc:AlternateContent></w:p>")
    text = _read("draft.docx", make_docx(body)).text
    assert text.split("\n") == ["kept inserted", "", "moved here", "7", "in-line", "a text box"]


def test_a_word_document_follows_its_relationships_to_the_main_part():
    data = make_docx(word_paragraph("from the named part"), main="word/document2.xml")
    assert _read("named.docx", data).text == "from the named part"


def test_an_encrypted_or_old_word_file_says_what_to_do():
    document = _read("old.docx", b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1" + bytes(512))
    assert document.text is None and "protected by a password, or is an older binary Word document" in \
        document.problem and "save it as .docx" in document.problem


def test_a_damaged_word_file_says_so():
    assert "is damaged or not a Word document" in _read("x.docx", b"not a zip").problem
    empty = io.BytesIO()
    with zipfile.ZipFile(empty, "w") as archive:
        archive.writestr("hello.txt", "hi")
    assert "has no part 'word/document.xml'" in _read("x.docx", empty.getvalue()).problem
    broken = make_docx("<w:p><w:r><w:t>unclosed")
    assert "is not valid XML" in _read("x.docx", broken).problem


def test_xml_entities_are_refused():
    laughs = ('<?xml version="1.0"?><!DOCTYPE lolz [<!ENTITY lol "lol"><!ENTITY lol2 "&lol;&lol;&lol;">]>'
              '<w:document xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"><w:body><w:p><w:r>'
              "<w:t>&lol2;</w:t></w:r></w:p></w:body></w:document>")
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w") as archive:
        archive.writestr("word/document.xml", laughs)
    document = _read("bomb.docx", out.getvalue())
    assert document.text is None and "is not valid XML" in document.problem


def test_a_part_larger_than_the_limit_is_refused_before_it_is_read():
    data = make_docx(word_paragraph("x" * 50_000))
    document = _read("big.docx", data, max_expanded_mb=0.01)
    assert document.text is None and "SVI_TOPICS_MAX_EXPANDED_MB" in document.problem


def test_a_package_part_larger_than_such_parts_are_is_refused():
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("META-INF/container.xml", "<container>" + " " * 10_000_001 + "</container>")
    document = _read("huge.epub", out.getvalue())
    assert document.text is None and "declares 10,000,024 bytes" in document.problem


def test_a_deep_tree_is_walked_without_recursion():
    depth = 5000
    body = "<w:p>" + "<w:ins>" * depth + "<w:r><w:t>deep</w:t></w:r>" + "</w:ins>" * depth + "</w:p>"
    assert _read("deep.docx", make_docx(body)).text == "deep"


# ------------------------------------------------------------------------------------------------ OpenDocument
def test_an_opendocument_text_reads_spaces_notes_and_leaves_out_deletions_and_comments():
    body = ('<text:h>River report</text:h><text:p>One<text:s text:c="3"/>two <text:span>three</text:span>'
            "<text:tab/>four<text:line-break/>five<text:note><text:note-citation>1</text:note-citation>"
            "<text:note-body><text:p>a note</text:p></text:note-body></text:note> six</text:p>"
            "<text:tracked-changes><text:changed-region><text:deletion><text:p>deleted words</text:p>"
            "</text:deletion></text:changed-region></text:tracked-changes>"
            '<text:p>seven<office:annotation xmlns:office="urn:oasis:names:tc:opendocument:xmlns:office:1.0">'
            "<text:p>a comment</text:p></office:annotation> eight</text:p>")
    document = _read("report.odt", make_odt(body))
    assert document.problem is None and document.kind == "OpenDocument text"
    assert document.text == "River report\nOne   two three\tfour\nfive a note\n six\nseven eight"


# ------------------------------------------------------------------------------------------------ EPUB
def test_an_epub_is_read_in_spine_order_without_markup_or_head():
    data = make_epub(["<h1>Chapter One</h1><p>It was a dark &amp; stormy night.</p>", "<p>Chapter two.</p>"])
    document = _read("novel.epub", data)
    assert document.problem is None and document.kind == "EPUB book"
    assert document.text == "Chapter One\n\nIt was a dark & stormy night.\n\nChapter two."


def test_an_epub_with_encrypted_chapters_says_it_has_drm_but_obfuscated_fonts_are_fine():
    locked = _read("locked.epub", make_epub(["<p>text</p>"], encrypted=["c1.xhtml"]))
    assert locked.text is None and "protected by DRM" in locked.problem
    fonts = make_epub(["<p>text</p>"], encrypted=["c1.xhtml"], algorithm="http://www.idpf.org/2008/embedding")
    assert _read("fonts.epub", fonts).text == "text"


def test_an_epub_without_a_package_says_so():
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w") as archive:
        archive.writestr("META-INF/container.xml", '<container xmlns="urn:oasis:names:tc:opendocument:xmlns:'
                                                   'container"><rootfiles/></container>')
    assert "names no package file" in _read("x.epub", out.getvalue()).problem


# ------------------------------------------------------------------------------------------------ the readers
def test_a_presentation_written_by_python_pptx_reads_slide_by_slide_with_its_notes():
    pptx = pytest.importorskip("pptx")
    deck = pptx.Presentation()
    first = deck.slides.add_slide(deck.slide_layouts[1])
    first.shapes.title.text = "Stochastic inference"
    first.placeholders[1].text_frame.text = "Sample a minibatch"
    first.placeholders[1].text_frame.add_paragraph().text = "Blend the topics"
    first.notes_slide.notes_text_frame.text = "Say why the step size decays."
    second = deck.slides.add_slide(deck.slide_layouts[5])
    second.shapes.title.text = "Results"
    table = second.shapes.add_table(2, 2, 914400, 1828800, 3657600, 914400).table
    table.cell(0, 0).text, table.cell(1, 1).text = "held-out", "likelihood"
    out = io.BytesIO()
    deck.save(out)
    assert _read("talk.pptx", out.getvalue()).text == ("Stochastic inference\nSample a minibatch\nBlend the topics\n"
                                                       "Say why the step size decays.\nResults\nheld-out\n\nlikelihood")


def test_slides_follow_the_presentations_order_without_fields():
    slides = [("<a:p><a:r><a:t>made first</a:t></a:r></a:p>", None),
              ('<a:p><a:r><a:t>shown first</a:t></a:r><a:br/><a:r><a:t>next line</a:t></a:r></a:p>'
               '<a:p><a:fld type="slidenum"><a:t>7</a:t></a:fld></a:p>', "the speaker's note")]
    document = _read("deck.pptx", make_pptx(slides, order=[1, 0]))
    assert document.text == "shown first\nnext line\nthe speaker's note\nmade first"
    damaged = _read("nodeck.pptx", make_docx(word_paragraph("not slides")))
    assert damaged.text is None and "not a PowerPoint presentation: it has no presentation part" in damaged.problem


def test_an_opendocument_presentation_reads_its_pages_and_notes():
    pages = ('<draw:page draw:name="one"><draw:frame><draw:text-box><text:p>Topic models</text:p>'
             "<text:p>find themes</text:p></draw:text-box></draw:frame><presentation:notes><draw:frame>"
             "<draw:text-box><text:p>mention the paper</text:p></draw:text-box></draw:frame></presentation:notes>"
             '</draw:page><draw:page draw:name="two"><draw:frame><draw:text-box><text:p>Questions?</text:p>'
             "</draw:text-box></draw:frame></draw:page>")
    document = _read("talk.odp", make_odp(pages))
    assert (document.text, document.kind) == ("Topic models\nfind themes\nmention the paper\nQuestions?",
                                              "OpenDocument presentation")


def test_uploaded_files_mix_text_and_documents_and_list_the_unreadable_with_why():
    files = [("a.txt", b"plain text"), ("b.pdf", make_pdf([["a pdf"]])), ("c.docx", make_docx(word_paragraph(
        "a word file"))), ("scan.pdf", make_pdf([[]])), ("d.epub", make_epub(["<p>a book</p>"])),
             ("e.odt", make_odt("<text:p>an odt</text:p>"))]
    documents = read_txt_files(files)
    assert [(d.doc_id, d.title, d.text) for d in documents] == [
        ("a.txt", "a", "plain text"), ("b.pdf", "b", "a pdf"), ("c.docx", "c", "a word file"),
        ("d.epub", "d", "a book"), ("e.odt", "e", "an odt")]
    (skipped,) = documents.skipped
    assert skipped.name == "scan.pdf" and skipped.reason.startswith("this PDF holds no text")
    assert documents.encodings == {"a.txt": "utf-8"}


def test_zip_archives_and_folders_hold_documents(tmp_path):
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w") as archive:
        archive.writestr("docs/one.pdf", make_pdf([["first"]]))
        archive.writestr("docs/two.docx", make_docx(word_paragraph("second")))
    documents = read_zip(out.getvalue())
    assert [(d.doc_id, d.text) for d in documents] == [("docs/one.pdf", "first"), ("docs/two.docx", "second")]
    (tmp_path / "sub").mkdir()
    (tmp_path / "a.pdf").write_bytes(make_pdf([["alpha"]]))
    (tmp_path / "sub" / "b.epub").write_bytes(make_epub(["<p>beta</p>"]))
    (tmp_path / "c.docx").write_bytes(b"broken")
    documents = read_folder(tmp_path)
    assert [(d.doc_id, d.text) for d in documents] == [("a.pdf", "alpha"), ("sub/b.epub", "beta")]
    assert [s.name for s in documents.skipped] == ["c.docx"]


def test_a_disk_corpus_streams_documents_as_the_corpus_reads_them(tmp_path):
    source = tmp_path / "docs"
    source.mkdir()
    for i, (words, kind) in enumerate([("rivers dams floods", "pdf"), ("wheat farms harvest", "docx"),
                                       ("rivers wheat valley", "epub"), ("floods farms valley", "odt")]):
        data = {"pdf": lambda w: make_pdf([[w]]), "docx": lambda w: make_docx(word_paragraph(w)),
                "epub": lambda w: make_epub([f"<p>{w}</p>"]), "odt": lambda w: make_odt(f"<text:p>{w}</text:p>")}
        (source / f"{i}.{kind}").write_bytes(data[kind](words))
    (source / "scan.pdf").write_bytes(make_pdf([[]]))
    disk = engine.DiskCorpus.from_texts(source, tmp_path / "out", stop_words=None)
    memory = engine.Corpus.from_documents(read_folder(source), stop_words=None)
    assert disk.vocabulary == memory.vocabulary and disk.doc_ids == tuple(memory.doc_ids)
    assert (disk.subset_to_memory(slice(None)).counts != memory.counts).nnz == 0
    assert [s.name for s in disk.skipped] == ["scan.pdf"]
    assert disk.skipped[0] == SkippedFile("scan.pdf", memory.skipped[0].reason)


def test_damaged_files_of_every_kind_are_reported_never_raised():
    """Bytes changed, cut out or put in at random (a fixed seed): each file is read or reported, nothing raised."""
    rng = random.Random(0)
    seeds = {"a.pdf": make_pdf([["Hello world", "expecta-", "tions"], ["Page two"]]),
             "b.docx": make_docx(word_paragraph("Hello\tworld") + word_paragraph("second")),
             "c.odt": make_odt('<text:p>One<text:s text:c="3"/>two</text:p>'),
             "d.epub": make_epub(["<p>chapter</p>", "<p>two</p>"]),
             "e.pptx": make_pptx([("<a:p><a:r><a:t>slide</a:t></a:r></a:p>", "notes")]),
             "f.odp": make_odp("<draw:page><draw:frame><draw:text-box><text:p>page</text:p></draw:text-box>"
                               "</draw:frame></draw:page>")}
    outcomes = set()
    with DocumentReader() as reader:
        for _ in range(1000):
            name, data = rng.choice(sorted(seeds.items()))
            document = reader.read(name, damaged(data, rng, 20))
            assert (document.text is None) != (document.problem is None)
            if document.text is not None:
                assert "\x00" not in document.text and any(c.isalnum() for c in document.text)
                document.text.encode("utf-8")  # no lone surrogate
            outcomes.add((name, document.text is None))
    assert len(outcomes) == 12  # every kind was both read and refused at least once


def test_a_disk_corpus_parses_each_document_once(tmp_path, monkeypatch):
    """DiskCorpus.from_texts goes over a folder or an archive two or three times; its PDFs are parsed on the first
    pass only (their bytes not read again), and the temporary folder holding their text is gone afterwards."""
    import tempfile

    from engine.data import documents

    source = tmp_path / "docs"
    source.mkdir()
    for i in range(6):
        (source / f"{i}.pdf").write_bytes(make_pdf([[f"rivers dams floods {i}", "wheat farms valley"]]))
    read = []
    original = documents._PdfReader.read
    monkeypatch.setattr(documents._PdfReader, "read", lambda self, name, data: read.append(name) or
                        original(self, name, data))
    opened = []
    read_bytes = Path.read_bytes
    monkeypatch.setattr(Path, "read_bytes", lambda path: opened.append(path.name) or read_bytes(path))
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path / "temporary"))
    (tmp_path / "temporary").mkdir()
    disk = engine.DiskCorpus.from_texts(source, tmp_path / "out", stop_words=None)
    assert disk.n_docs == 6 and sorted(read) == [f"{i}.pdf" for i in range(6)]
    assert sorted(name for name in opened if name.endswith(".pdf")) == [f"{i}.pdf" for i in range(6)]
    assert not list((tmp_path / "temporary").iterdir())
    archive = tmp_path / "docs.zip"
    with zipfile.ZipFile(archive, "w") as out:
        for path in sorted(source.iterdir()):
            out.write(path, path.name)
    read.clear()
    from_zip = engine.DiskCorpus.from_texts(archive, tmp_path / "out-zip", stop_words=None)
    assert from_zip.vocabulary == disk.vocabulary and sorted(read) == [f"{i}.pdf" for i in range(6)]
