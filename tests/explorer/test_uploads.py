"""explorer/uploads.py: every supported upload becomes a corpus; every bad one a clear message."""

from __future__ import annotations

import dataclasses

import pytest

import engine
from engine.errors import EngineError, FileDecodingError, UnsafeArchiveError
from explorer import storage, uploads

from . import uploads_data as data

PLAIN = uploads.Preprocessing()


def test_text_files_and_zip():
    source = uploads.read_upload(data.text_files())
    assert isinstance(source, uploads.TextSource) and source.n_rows == 6
    corpus = uploads.build_corpus(source, PLAIN)
    assert corpus.n_docs == 6 and "planet" in corpus.vocabulary
    zipped = uploads.read_upload(data.zip_of_texts())
    corpus = uploads.build_corpus(zipped, PLAIN)
    assert corpus.n_docs == 6
    assert [s.name for s in corpus.skipped] == ["docs/readme.pdf"]  # reported, not silently dropped


def test_web_pages_are_uploaded_as_text_files_and_found_to_hold_markup():
    pages = [(f"page{i}.html", f"<html><body><p>{text}</p><p>end</p></body></html>".encode())
             for i, text in enumerate(data.TEXTS)]
    source = uploads.read_upload([*pages, ("style.css", b"p {}")])
    assert isinstance(source, uploads.TextSource) and source.n_rows == 6
    assert uploads.language_guess(source).markup
    assert not uploads.language_guess(uploads.read_upload(data.text_files())).markup
    corpus = uploads.build_corpus(source, dataclasses.replace(PLAIN, strip_markup=True))
    assert "planet" in corpus.vocabulary and not {"html", "body"} & set(corpus.vocabulary)
    assert [s.name for s in corpus.skipped] == ["style.css"]
    with pytest.raises(uploads.UploadError, match=r"upload .txt, Markdown \(.md\) or reStructuredText \(.rst\) "
                                                    r"files, PDF, Word \(.docx\), OpenDocument \(.odt\), EPUB or "
                                                    r"slide \(.pptx, .odp\) files"):
        uploads.read_upload([("style.css", b"p {}")])


def test_skipped_files_are_grouped_by_why_the_largest_group_first():
    corpus = uploads.build_corpus(uploads.read_upload(data.sphinx_site_zip()), PLAIN)
    assert corpus.n_docs == 6 and len(corpus.skipped) == 14
    groups = uploads.skipped_groups(corpus.skipped)
    assert list(groups.columns) == ["Files", "Why", "For example"]
    assert groups["Files"].tolist() == [6, 5, 1, 1, 1] and groups["Files"].sum() == len(corpus.skipped)
    sources, not_text = groups.iloc[0], groups.iloc[1]
    assert sources["Why"] == "Sphinx's copy of a page's source; the page is read"
    assert sources["For example"] == "site/_sources/page0.rst.txt, site/_sources/page1.rst.txt, " \
                                     "site/_sources/page2.rst.txt, …"
    assert not_text["Why"].startswith("not a .txt, .md, .rst, .html") and not_text["For example"].endswith(", …")
    singles = groups.iloc[2:]  # groups of one file each, in the order first met, named without "…"
    reasons = [s.reason for s in corpus.skipped]
    assert singles["Why"].tolist() == sorted(set(singles["Why"]), key=reasons.index)
    assert singles["For example"].tolist() == [next(s.name for s in corpus.skipped if s.reason == why)
                                              for why in singles["Why"]]
    three = uploads.skipped_groups([engine.SkippedFile(name, "why") for name in ("a", "b", "c")])
    assert uploads.SKIPPED_EXAMPLES == 3 and three["For example"].tolist() == ["a, b, c"]  # all named: no "…"
    assert uploads.skipped_groups(()).empty


def test_a_few_long_texts_are_cut_into_passages_by_default():
    source = uploads.read_upload([("book.txt", data.book().encode())])
    count = uploads.passages_suggested(source)
    chosen = uploads.Preprocessing.suggested(count, "english", passages=True)
    assert chosen.passage_words == 300 and chosen.options()["passage_words"] == 300
    corpus = uploads.build_corpus(source, chosen)
    assert corpus.n_docs == count == 15 and corpus.doc_ids[:2] == ("book.txt#1", "book.txt#2")  # 5,280 words
    assert uploads.passages_note(corpus) == ("Cut into passages: 1 document became 15 passages of about 300 words, "
                                             "each read as a document.")
    assert uploads.build_corpus(source, PLAIN).n_docs == 1 and PLAIN.options()["passage_words"] is None
    assert uploads.passages_suggested(uploads.read_upload(data.text_files())) is None  # short texts: whole
    many = [(f"b{i}.txt", data.book().encode()) for i in range(20)]
    assert uploads.passages_suggested(uploads.read_upload(many)) is None  # 20 documents: read whole
    table = uploads.read_upload([("t.csv", ('text,year\n"' + data.book(20) + '",1990\n"'
                                            + data.book(20, first=20) + '",1991\n').encode())])
    assert uploads.passages_suggested(table, "text") == 10 and uploads.passages_suggested(table, "year") is None
    cut = uploads.build_corpus(table, chosen, "text")
    assert cut.doc_ids[:2] == ("1#1", "1#2") and cut.n_docs == 10
    assert uploads.table_columns(table, cut, "text")["year"] == ("1990",) * 5 + ("1991",) * 5  # rows' values


def test_e_mails_and_mailboxes_are_read_as_their_senders_wrote_them():
    emails = data.zip_upload("mail.zip", {f"inbox/{i}.eml": data.message(i, text).encode()
                                          for i, text in enumerate(data.TEXTS * 4)})
    for source in (uploads.read_upload(emails), uploads.read_upload([("list.mbox", data.mailbox(24))])):
        guess = uploads.language_guess(source, source.text_columns[0] if source.kind == "table" else None)
        assert guess.messages and guess.language == "english"
        chosen = uploads.Preprocessing.suggested(source.n_rows, guess.language, guess.markup, guess.messages)
        assert chosen.strip_messages and chosen.options()["strip_messages"] is True
        columns = (source.text_columns[0], source.suggested_title) if source.kind == "table" else ()
        every = dataclasses.replace(chosen, max_df=1.0)  # words in every message stay, to be seen
        corpus = uploads.build_corpus(source, every, *columns)
        assert corpus.n_docs == 24 and {"planet", "oven", "note"} <= set(corpus.vocabulary)
        assert not data.MESSAGE_WORDS & set(corpus.vocabulary)
        whole = uploads.build_corpus(source, dataclasses.replace(every, strip_messages=False), *columns)
        assert set(whole.vocabulary) >= data.MESSAGE_WORDS
    box = uploads.read_upload([("list.mbox", data.mailbox(24))])
    assert isinstance(box, uploads.TableSource) and box.text_columns[0] == "text"
    assert box.suggested_title == "subject" and list(box.preview.columns) == ["subject", "from", "date", "text"]
    assert not uploads.language_guess(uploads.read_upload(data.text_files())).messages
    with pytest.raises(uploads.UploadError, match=r"^'notes.mbox' is not an mbox file: it must start with a "
                                                  r"separator line"):
        uploads.read_upload([("notes.mbox", b"Dear all,\nhello\n")])
    with pytest.raises(uploads.UploadError, match=r"'empty.mbox' is empty; a mailbox holds messages"):
        uploads.read_upload([("empty.mbox", b"\n")])


def test_repeated_footers_are_left_out_unless_the_preprocessing_keeps_them():
    assert PLAIN.strip_boilerplate is True and PLAIN.options()["strip_boilerplate"] is True
    for n_docs, language, markup in [(5, "english", False), (50, "french", True), (500, "german", False)]:
        assert uploads.Preprocessing.suggested(n_docs, language, markup).options()["strip_boilerplate"] is True
    keep = dataclasses.replace(PLAIN, strip_boilerplate=False)
    assert keep.options()["strip_boilerplate"] is False
    source = uploads.read_upload(data.footer_zip())
    corpus = uploads.build_corpus(source, PLAIN)
    assert corpus.vectorizer.boilerplate == data.FOOTER
    assert "planet" in corpus.vocabulary and not data.FOOTER_WORDS & set(corpus.vocabulary)
    kept = uploads.build_corpus(source, keep)
    assert kept.vectorizer.boilerplate == () and set(kept.vocabulary) >= data.FOOTER_WORDS


@pytest.mark.parametrize("files", [data.csv_table(), data.tsv_table(), data.jsonl_table()],
                         ids=["csv", "tsv", "jsonl"])
def test_tables_offer_their_text_columns(files):
    source = uploads.read_upload(files)
    assert isinstance(source, uploads.TableSource)
    text_column = source.text_columns[0]
    assert text_column in ("body", "text")
    assert source.suggested_title in ("headline", "title")
    corpus = uploads.build_corpus(source, PLAIN, text_column, source.suggested_title)
    assert corpus.n_docs == 6
    assert corpus.titles[0] in ("Title 0", "T0")


@pytest.mark.parametrize("suffix", [".xlsx", ".ods"])
def test_a_spreadsheet_is_read_sheet_by_sheet_with_its_other_columns(suffix):
    source = uploads.read_upload(data.workbook(suffix))
    assert isinstance(source, uploads.TableSource)
    assert (source.sheet, source.sheets, source.text_columns[0], source.suggested_title) == \
        ("Articles", ("Articles", "Notes"), "body", "headline")
    assert uploads.encodings_of(source) == {} and uploads.encoding_note(source) is None  # no text was decoded
    corpus = uploads.build_corpus(source, PLAIN, "body", "headline")
    assert corpus.n_docs == 6 and corpus.titles[:2] == ("Title 0", "Title 1")
    columns = uploads.table_columns(source, corpus, "body")
    assert columns["published"][:2] == ("2024-05-01", "2024-05-02") and columns["id"][:2] == ("0", "1")
    notes = uploads.read_upload(data.workbook(suffix), sheet="Notes")
    assert (notes.sheet, notes.text_columns) == ("Notes", ("remark",))
    assert uploads.build_corpus(notes, PLAIN, "remark").n_docs == 2
    with pytest.raises(EngineError, match=r"has no sheet 'Budget'; its sheets: 'Articles', 'Notes'"):
        uploads.read_upload(data.workbook(suffix), sheet="Budget")


def test_a_sheets_title_rows_are_named_and_left_out():
    source = uploads.read_upload(data.titled_sheet())
    assert source.title == ("Articles of the spring issue", "Compiled by the editors")
    assert (source.text_columns[0], source.suggested_title) == ("body", "headline")
    assert uploads.title_note(source) == ("The 2 rows above the header, “Articles of the spring issue”; “Compiled by "
                                          "the editors”, are the sheet's title: neither column names nor documents.")
    assert uploads.build_corpus(source, PLAIN, "body", "headline").n_docs == 6
    assert uploads.title_note(uploads.read_upload(data.csv_table())) is None


@pytest.mark.parametrize("files", [data.uci(), data.ldac()], ids=["uci", "ldac"])
def test_bags_of_words_are_used_as_they_are(files):
    source = uploads.read_upload(files)
    assert isinstance(source, uploads.BagOfWordsSource)
    corpus = uploads.build_corpus(source, uploads.Preprocessing(min_df=3))  # preprocessing does not apply
    assert corpus.n_docs == 6 and corpus.texts is None


def test_other_encodings_are_decoded():
    corpus = uploads.build_corpus(uploads.read_upload(data.cp1252_texts()), PLAIN)
    assert "café" in corpus.vocabulary or "cafe" in corpus.vocabulary
    corpus = uploads.build_corpus(uploads.read_upload(data.utf16_text()), PLAIN)
    assert "planets" in corpus.vocabulary


@pytest.mark.parametrize(("kind", "error", "words"), [
    ("empty", uploads.UploadError, "empty"),
    ("binary", FileDecodingError, "binary"),
    ("csv without text", uploads.UploadError, "no column with text"),
    ("unsupported", uploads.UploadError, r"Cannot read 'slides.ppt': save it as .pptx or PDF, and upload that"),
    ("old excel", uploads.UploadError, r"Cannot read 'budget.xls': save it as .xlsx \(Excel: File, Save As\)"),
    ("locked workbook", EngineError, "'locked.xlsx' is protected by a password, or is an older binary Excel"),
    ("damaged pdf", uploads.UploadError, "Cannot read 'slides.pdf': this PDF is damaged or not a PDF"),
    ("scanned pdf", uploads.UploadError, r"Cannot read 'scan.pdf': this PDF holds no text on its 2 pages \(a scan.*"
                                         r"OCR.*\(1 other file could not be read either\)"),
    ("bag of words without vocabulary", uploads.UploadError, "vocabulary"),
    ("not a zip", EngineError, "not a valid zip"),
])
def test_bad_uploads_say_what_is_wrong(kind, error, words):
    with pytest.raises(error, match=words):
        uploads.build_corpus(uploads.read_upload(data.BAD[kind]), PLAIN)


def test_markdown_notes_are_read_as_rendered():
    source = uploads.read_upload(data.markdown_notes())
    assert source.documents[0].text == f"Note 0\n\n# Note 0\n\n{data.TEXTS[0]} Source.\n"
    assert uploads.documents_note(source) == ("Read 6 Markdown files as rendered: links and images as their text "
                                              "without their addresses, code without its fences, front matter "
                                              "without its keys.")
    corpus = uploads.build_corpus(source, PLAIN)
    assert corpus.n_docs == 6 and not {"https", "example", "com", "title"} & set(corpus.vocabulary)


def test_rst_pages_are_read_as_rendered():
    source = uploads.read_upload(data.rst_pages())
    page = f"\nPage 0\n======\n\n{data.TEXTS[0]} See Source and the site.\n\n\n   print(0)\n"
    assert source.documents[0].text == page
    assert uploads.documents_note(source) == ("Read 6 reStructuredText files as rendered: roles and links as their "
                                              "text, directives without their names and options, comments and link "
                                              "targets left out.")
    corpus = uploads.build_corpus(source, PLAIN)
    assert corpus.n_docs == 6 and "print" in corpus.vocabulary
    assert not {"https", "example", "com", "ref", "code", "block", "python", "linenos"} & set(corpus.vocabulary)


def test_slides_are_read_as_documents_with_their_notes():
    source = uploads.read_upload(data.slides())
    assert [d.text for d in source.documents] == [f"{t[:40]}\n{t[40:]}" if i < 3 else t
                                                  for i, t in enumerate(data.TEXTS)]
    assert uploads.documents_note(source) == ("Read the text of 3 PowerPoint presentations and 3 OpenDocument "
                                              "presentations.")
    assert uploads.build_corpus(source, PLAIN).n_docs == 6


def test_pdf_word_opendocument_and_epub_files_are_read_as_documents():
    source = uploads.read_upload(data.office_documents())
    assert isinstance(source, uploads.TextSource) and source.n_rows == 6 and source.name == "6 files"
    assert [d.text for d in source.documents] == [t if i % 4 else f"{t[:60]}\n{t[60:]}"
                                                  for i, t in enumerate(data.TEXTS)]
    corpus = uploads.build_corpus(source, PLAIN)
    assert corpus.n_docs == 6 and {"planet", "bread", "garlic"} <= set(corpus.vocabulary)
    assert uploads.encodings_of(source) == {}  # nothing was decoded as text, so no encoding is named
    assert uploads.documents_note(source) == (
        "Read the text of 2 PDF files, 2 Word documents, 1 OpenDocument text and 1 EPUB book: words hyphenated at "
        "line ends are joined, and the lines that head or foot most pages (titles, page numbers) are left out.")
    assert uploads.documents_note(uploads.read_upload(data.text_files())) is None
    assert uploads.documents_note(uploads.read_upload(data.office_documents()[1:2])) == \
        "Read the text of 1 Word document."


def test_limits():
    small = uploads.UploadLimits(max_files=3, max_file_bytes=1000, max_total_bytes=2000, max_expanded_bytes=10_000)
    with pytest.raises(uploads.UploadError, match="6 files were uploaded; the limit is 3"):
        uploads.read_upload(data.text_files(), small)
    with pytest.raises(uploads.UploadError, match="limit per file"):
        uploads.read_upload([("big.txt", b"word " * 500)], small)
    with pytest.raises(uploads.UploadError, match="add up to"):
        uploads.read_upload([(f"f{i}.txt", b"word " * 150) for i in range(3)], small)
    with pytest.raises(UnsafeArchiveError, match="zip bomb"):
        uploads.read_upload(data.zip_bomb(50_000), small)


def test_limits_from_environment(monkeypatch):
    monkeypatch.setenv("SVI_TOPICS_MAX_UPLOAD_FILES", "7")
    monkeypatch.setenv("SVI_TOPICS_MAX_EXPANDED_MB", "0.5")
    limits = uploads.UploadLimits.from_env()
    assert limits.max_files == 7 and limits.max_expanded_bytes == 500_000


def test_preprocessing_errors_come_from_the_engine():
    source = uploads.read_upload(data.text_files())
    with pytest.raises(EngineError, match="no word is left"):
        uploads.build_corpus(source, uploads.Preprocessing(min_df=6))
    with pytest.raises(ValueError, match="max_df"):
        uploads.build_corpus(source, uploads.Preprocessing(min_df=3, max_df=0.1))
    with pytest.raises(uploads.UploadError, match="Choose the column"):
        uploads.build_corpus(uploads.read_upload(data.csv_table()), PLAIN, None)


def test_a_tables_other_columns_are_kept_per_document_and_persisted(explorer_env):
    rows = ["text,year,who", '"stars and planets orbit",1950,Ann', '"",1951,Bob', '"bread and butter oven",1952,Cy']
    source = uploads.read_upload([("t.csv", "\n".join(rows).encode())])
    corpus = uploads.build_corpus(source, PLAIN, "text")
    columns = uploads.table_columns(source, corpus, "text")
    assert columns == {"year": ("1950", "1952"), "who": ("Ann", "Cy")}  # the empty row is not a document
    collection = storage.Collection.of(corpus, "t", "upload:t.csv", columns)
    assert collection.column("year") == ("1950", "1952")
    storage.save_collection(collection)
    assert storage.load_collection(collection.key).columns == collection.columns


def test_text_files_have_no_other_columns():
    corpus = uploads.build_corpus(uploads.read_upload(data.text_files()), PLAIN)
    assert storage.Collection.of(corpus, "texts").columns == ()


def test_the_language_is_guessed_from_the_text_of_each_kind_of_source():
    assert uploads.language_guess(uploads.read_upload(data.german_zip())).language == "german"
    assert uploads.language_guess(uploads.read_upload(data.text_files())).language == "english"
    table = uploads.read_upload(data.bilingual_table())
    assert uploads.language_guess(table, "english").language == "english"
    assert uploads.language_guess(table, "french").language == "french"
    assert uploads.language_guess(table, None) is None  # no text column chosen yet
    assert uploads.language_guess(table, "no such column") is None  # building the corpus says what is wrong
    assert uploads.language_guess(uploads.read_upload(data.uci())) is None  # a bag of words has no text
    assert uploads.Preprocessing.suggested(500, "german") == uploads.Preprocessing(
        min_df=5, max_df=0.5, language="german", strip_accents=False)  # "für" shown as written
    assert uploads.Preprocessing.suggested(5, "french") == uploads.Preprocessing(language="french",
                                                                               strip_accents=False)
    assert uploads.Preprocessing.suggested(50) == uploads.Preprocessing(min_df=2, max_df=0.8)  # English: stripped


def _guess(language, share, shares, examples=("der", "die", "und")):
    from explorer.engine_api import LanguageGuess

    return LanguageGuess(language, share, dict(sorted(shares.items(), key=lambda kv: -kv[1])), 1000, examples)


def test_the_language_note_says_what_was_found_and_warns_of_a_wrong_choice():
    german = _guess("german", 0.4, {"german": 0.4, "english": 0.05, "dutch": 0.25})
    note = uploads.language_note(german, "german")
    assert note == uploads.LanguageNote("info", "The documents look German: 40% of their words are German stop "
                                                "words.")
    wrong = uploads.language_note(german, "english")
    assert wrong.level == "warning" and wrong.suggestion == "german"
    assert "40% of their words are German stop words and 5% English ones" in wrong.text
    assert "“der”, “die”, “und”" in wrong.text
    close = uploads.language_note(german, "dutch")  # 0.25 >= half of 0.4: a neighbour's list, not an error
    assert close.level == "info" and close.suggestion is None and "25% of the words are Dutch" in close.text
    unknown = uploads.language_note(_guess(None, 0.05, {"english": 0.05}), "english")
    assert unknown.level == "info" and "not recognised" in unknown.text and unknown.suggestion is None
    assert uploads.language_note(None, "english") is None


def test_the_language_note_says_how_chinese_and_japanese_characters_are_read():
    from explorer.engine_api import guess_language

    chinese = guess_language(["文件系统的挂载点由管理员设置，用户可以读取文件。 The file system."] * 40)
    note = uploads.language_note(chinese, "english")
    assert note.level == "info" and "Chinese or Japanese characters" in note.text and "pair" in note.text
    assert note.suggestion is None
    english = uploads.language_note(guess_language(["The committee met on Tuesday and agreed."] * 40), "english")
    assert "Chinese" not in english.text


def test_the_warning_names_the_stop_words_the_chosen_list_leaves_in_the_vocabulary():
    from explorer.engine_api import Corpus, Vectorizer, guess_language

    texts = data.GERMAN * 4
    guess = guess_language(texts)
    assert guess.language == "german" and guess.examples[:2] == ("die", "der")
    corpus = Corpus.from_texts(texts, stop_words="english", max_df=0.5)  # "die" is in more than half the texts
    assert "die" not in corpus.vocabulary
    german = Vectorizer(stop_words="german").stop_word_set()
    totals = corpus.counts.sum(axis=0).A1
    kept = sorted((-totals[i], w) for i, w in enumerate(corpus.vocabulary) if w in german)  # by count, then name
    expected = [w for _, w in kept[:3]]
    note = uploads.language_note(guess, "english", corpus)
    assert note.level == "warning" and note.suggestion == "german"
    assert "stay in the vocabulary (" + ", ".join(f"“{w}”" for w in expected) + ")" in note.text
    bare = Corpus.from_texts(["Brücke Fluss Winter Kosten"] * 3, stop_words="english")  # no German stop word left
    assert "can stay in and crowd the topics" in uploads.language_note(guess, "english", bare).text


def test_documents_in_two_languages_are_offered_and_noted_both_lists():
    from explorer.engine_api import Corpus, guess_language
    from tests.engine.test_language import TEXTS

    texts = [TEXTS["english"]] * 20 + [TEXTS["french"]] * 6
    guess = guess_language(texts)
    assert guess.language == "english+french"
    assert uploads.language_label(guess.language) == "English + French" and uploads.language_label("fr") == "French"
    options = uploads.language_options(guess, "english")
    assert options[0] == "english+french" and options.count("english") == 1 and "german" in options
    assert uploads.language_options(None, "german+english")[0] == "german+english"  # a choice kept from before
    note = uploads.language_note(guess, "english+french")
    assert note.level == "info" and note.suggestion is None
    assert note.text.startswith("These documents look English, and 23% of them French: each paragraph loses the "
                                f"stop words of its own language ({round(100 * guess.share)}% of the words are "
                                "English + French stop words).")
    corpus = Corpus.from_texts(texts, stop_words="english")
    wrong = uploads.language_note(guess, "english", corpus)
    assert wrong.level == "warning" and wrong.suggestion == "english+french"
    assert wrong.text.startswith("23% of these documents look French. With English stop words alone, their common "
                                 "words stay in the vocabulary (“que”, ")
    assert uploads.language_note(guess, "french").suggestion == "english+french"  # English left out now
    three = uploads.language_note(guess, "french+english+german")  # both lists in it: no warning
    assert three.level == "info" and "English + French" in three.text


def test_passages_in_another_language_are_noted_as_a_share_of_the_paragraphs():
    """French pages that keep English paragraphs: the note counts paragraphs, since no page is English."""
    from explorer.engine_api import guess_language
    from tests.engine.test_language import TEXTS

    mixed = "\n\n".join([TEXTS["french"]] * 2 + [TEXTS["english"]])
    guess = guess_language([mixed] * 8 + ["\n\n".join([TEXTS["french"]] * 2)] * 92)
    assert guess.language == "french+english" and guess.documents == {}
    note = uploads.language_note(guess, "french+english")
    assert note.text.startswith("These documents look French, and 3.8% of their paragraphs English: each paragraph ")
    wrong = uploads.language_note(guess, "french")
    assert wrong.level == "warning" and wrong.suggestion == "french+english"
    assert wrong.text.startswith("3.8% of these documents’ paragraphs look English. With French stop words alone")


def test_a_tables_rows_that_copy_an_earlier_row_are_left_out_and_the_other_columns_still_line_up():
    rows = [(data.TEXTS[0], 1990), (data.TEXTS[1], 1991), (data.TEXTS[0].upper(), 1992), (data.TEXTS[2], 1993)]
    table = uploads.read_upload([("t.csv", ("text,year\n" + "".join(f'"{t}",{y}\n' for t, y in rows)).encode())])
    corpus = uploads.build_corpus(table, PLAIN, "text")
    assert corpus.doc_ids == ("1", "2", "4") and [(d.doc_id, d.copy_of) for d in corpus.copies] == [("3", "1")]
    assert uploads.table_columns(table, corpus, "text")["year"] == ("1990", "1991", "1993")
    kept = uploads.build_corpus(table, dataclasses.replace(PLAIN, drop_copies=False), "text")
    assert kept.n_docs == 4 and uploads.table_columns(table, kept, "text")["year"] == ("1990", "1991", "1992", "1993")


def test_long_documents_count_a_documents_passages_together_and_need_enough_documents():
    """A book cut into four passages of 3 words among 20 notes of 2: named whole, with its share (12 of 52 words),
    by its id before it was cut; below ONE_DOCUMENT_MIN_DOCUMENTS documents nothing is named; longest_documents
    ranks them."""
    texts = ["river dam flood"] * 4 + [f"court {word}" for word in _distinct_words(20)]
    ids = [f"book.txt#{i}" for i in range(1, 5)] + [f"n{i}" for i in range(20)]
    titles = [f"Book ({i})" for i in range(1, 5)] + [f"note {i}" for i in range(20)]
    corpus = engine.Corpus.from_texts(texts, ids=ids, titles=titles, stop_words=None)
    assert uploads.long_documents_of(corpus, 10) == [uploads.LongDocument("book.txt", "Book", 12 / 52)]
    assert uploads.long_documents_of(corpus, 2) == []  # 12 / 52 < 0.5 / 2
    assert uploads.longest_documents(corpus, 3) == [uploads.LongDocument("book.txt", "Book", 12 / 52),
                                                    uploads.LongDocument("n0", "note 0", 2 / 52),
                                                    uploads.LongDocument("n1", "note 1", 2 / 52)]
    few = engine.Corpus.from_texts(texts[:6], ids=ids[:6], titles=titles[:6], stop_words=None)
    assert uploads.long_documents_of(few, 10) == []
    note = uploads.long_documents_note(uploads.long_documents_of(corpus, 10), 10)
    assert note.startswith("One document holds a large share of the words: “Book” (23%). With 10 topics a topic "
                           "holds 10% of the words on average, so this document is long enough")
    as_hdp = uploads.long_documents_note(uploads.long_documents_of(corpus, 10), 10, hdp=True)
    assert as_hdp.startswith("One document holds a large share of the words: “Book” (23%). This document is long "
                             "enough to fill topics of its own, which would describe it")


def _distinct_words(n: int) -> list[str]:
    letters = "abcdefghijklmnopqrstuvwxyz"
    return [letters[i % 26] * 2 + letters[i // 26] for i in range(n)]


def test_collections_that_count_the_same_words_but_read_differently_have_different_keys():
    """Other titles, other numbers or punctuation (not counted as words) or another table column make another key: the
    key names the collection in caches shared across sessions, which must never hand one user's text to another."""
    texts = ["Account 12345 was closed.", "Bees make honey in summer meadows."]
    base = engine.Corpus.from_texts(texts, ids=["a", "b"], titles=["A", "B"])
    same = engine.Corpus.from_texts(list(texts), ids=["a", "b"], titles=["A", "B"])
    other_numbers = engine.Corpus.from_texts(["Account 99999 was closed!", texts[1]], ids=["a", "b"],
                                             titles=["A", "B"])
    other_titles = engine.Corpus.from_texts(texts, ids=["a", "b"], titles=["X", "B"])
    assert (other_numbers.counts != base.counts).nnz == 0 and other_numbers.vocabulary == base.vocabulary
    keys = {storage.Collection.of(c, "n").key for c in (base, other_numbers, other_titles)}
    assert len(keys) == 3 and storage.Collection.of(same, "another name").key == storage.Collection.of(base, "n").key
    with_year = storage.Collection.of(base, "n", columns={"year": ("1990", "1991")}).key
    other_year = storage.Collection.of(base, "n", columns={"year": ("1990", "1992")}).key
    assert with_year not in keys and with_year != other_year
