"""Every page driven by Streamlit's AppTest: samples, uploads, training controls, topics, documents, export.

AppTest does not fire ``run_every``: the tests call ``at.run()`` in a loop while the
training thread works.  ``assert not at.exception`` after every interaction.
"""

from __future__ import annotations

import dataclasses
import re
import time

import pytest
import streamlit as st
from streamlit.testing.v1 import AppTest

import engine
from explorer import formatting, porting, quality, uploads
from explorer.engine_api import LDA
from explorer.state import Keys
from tests.engine._fake_warm_up import FakeWarmUp
from tests.engine._fake_warm_up import install as install_fake_warm_up

from . import uploads_data as data


def _app(app_path: str) -> AppTest:
    at = AppTest.from_file(app_path, default_timeout=60)
    at.run()
    assert not at.exception
    return at


def _runs(at: AppTest):
    return at.session_state[Keys.runs]


def _collection(at: AppTest):
    return at.session_state[Keys.collection]


def _until(at: AppTest, predicate, timeout: float = 30.0) -> None:
    end = time.monotonic() + timeout
    while True:
        at.run()
        assert not at.exception, at.exception
        if predicate():
            # the training thread may have changed state after that run drew the page:
            # draw it once more so the widgets match what the predicate saw
            at.run()
            assert not at.exception, at.exception
            return
        assert time.monotonic() < end, "timed out waiting for the app"
        time.sleep(0.15)


def _page(at: AppTest, name: str) -> None:
    at.switch_page(f"views/{name}.py")
    at.run()
    assert not at.exception, at.exception


def _upload(at: AppTest, files) -> None:
    """On the Data page, choose "My own files" and upload ``files`` ((name, bytes) pairs) at once."""
    _page(at, "data")
    at.radio(key=Keys.source_kind).set_value("upload").run()
    uploader = at.file_uploader(key=Keys.uploader)
    for name, content in files:
        uploader.upload(name, content)
    at.run()


def _start(at: AppTest, target_docs: int = 10**8) -> object:
    _page(at, "train")
    at.number_input(key=Keys.target_docs).set_value(target_docs)
    at.button(key=Keys.train_start).click()
    at.run()
    assert not at.exception, at.exception
    return _runs(at).latest()


def test_opens_on_the_sample_and_trains_by_itself(app_path, monkeypatch):
    monkeypatch.setenv("SVI_TOPICS_AUTOSTART", "1")
    at = _app(app_path)
    assert _collection(at).origin == "sample:synthetic"
    [record] = list(_runs(at))
    assert record.status in ("running", "finished")  # a fast machine may finish the short run already
    _until(at, lambda: len(record.curve()[0]) >= 3)
    assert any(m.label == "Held-out fit" for m in at.metric)
    assert at.dataframe  # "Topics forming" table
    record.stop()


def test_runs_train_with_the_reference_while_the_kernels_compile(app_path, monkeypatch):
    """The page says so while a run waits for the compiled kernels, and says where it switched."""
    fake = install_fake_warm_up(monkeypatch, FakeWarmUp("compiling"))
    at = _app(app_path)
    record = _start(at)
    _until(at, lambda: record.snapshot().t >= 2)
    assert record.snapshot().kernel == "numpy"
    assert any("Compiling the fast kernels" in i.value and "NumPy reference" in i.value for i in at.info)
    fake.set("ready")
    _until(at, lambda: record.curve()[1] and len(record.curve()[0]) >= 2)
    assert not any("Compiling the fast kernels" in i.value for i in at.info)
    assert any("Trained with the NumPy reference for its first" in c.value for c in at.caption)
    record.stop()


def test_a_failed_compile_is_said_and_training_goes_on(app_path, monkeypatch):
    install_fake_warm_up(monkeypatch, FakeWarmUp("failed"))
    at = _app(app_path)
    record = _start(at)
    _until(at, lambda: record.snapshot().t >= 2)
    assert any("could not be built" in w.value and "no compiler here" in w.value for w in at.warning)
    record.stop()


def test_data_page_samples_and_preprocessing_errors(app_path):
    at = _app(app_path)
    _page(at, "data")
    metrics = {m.label: m.value for m in at.metric}
    assert metrics["Documents"] == "1,000"
    before = _collection(at).key
    at.number_input(key=Keys.max_features).set_value(50).run()
    assert not at.exception
    assert {m.label: m.value for m in at.metric}["Distinct words (vocabulary)"] == "50"
    assert _collection(at).key != before
    changed = _collection(at).key
    at.number_input(key=Keys.min_df).set_value(5000).run()  # no word is in 5000 documents
    assert not at.exception
    assert any("no word is left" in e.value.lower() for e in at.error)
    assert _collection(at).key == changed  # the previous collection stays in use
    at.number_input(key=Keys.min_df).set_value(1).run()
    at.selectbox(key=Keys.sample).set_value("jargon").run()
    assert not at.exception
    assert _collection(at).origin == "sample:jargon"


UPLOADS = {"txt": data.text_files(), "zip": data.zip_of_texts(), "csv": data.csv_table(), "tsv": data.tsv_table(),
           "jsonl": data.jsonl_table(), "uci": data.uci(), "ldac": data.ldac(), "cp1252": data.cp1252_texts(),
           "pdf, docx, odt, epub": data.office_documents(), "xlsx": data.workbook(), "ods": data.workbook(".ods"),
           "pptx, odp": data.slides(), "md": data.markdown_notes(), "rst": data.rst_pages()}


@pytest.mark.parametrize("kind", list(UPLOADS))
def test_upload_each_supported_format(app_path, kind):
    at = _app(app_path)
    _upload(at, UPLOADS[kind])
    assert not at.exception, at.exception
    assert not at.error, [e.value for e in at.error]
    assert _collection(at).origin.startswith("upload:")
    assert _collection(at).corpus.n_docs == (2 if kind == "cp1252" else 6)
    assert len([c for c in at.caption if c.value.startswith("Uploaded:")]) == 1
    if kind in ("csv", "tsv", "jsonl", "xlsx", "ods"):
        assert at.selectbox(key=Keys.text_column).value in ("body", "text")


def test_a_workbooks_sheet_is_chosen_on_the_data_page(app_path):
    at = _app(app_path)
    _upload(at, data.workbook())
    assert not at.exception, at.exception
    sheet = at.selectbox(key=Keys.sheet)
    assert (sheet.value, list(sheet.options)) == ("Articles", ["Articles", "Notes"])
    assert any("a workbook of 2 sheets" in c.value for c in at.caption)
    assert not [s for s in at.selectbox if s.key == Keys.encoding]  # a spreadsheet holds no encoded text
    assert "published" in dict(_collection(at).columns)
    assert not any("title" in c.value for c in at.caption)  # no rows above this sheet's header
    sheet.set_value("Notes").run()
    assert not at.exception, at.exception
    assert not at.error, [e.value for e in at.error]
    assert at.selectbox(key=Keys.text_column).value == "remark"
    assert _collection(at).corpus.n_docs == 2


def test_a_sheets_title_is_named_on_the_data_page(app_path):
    at = _app(app_path)
    _upload(at, data.titled_sheet())
    assert not at.exception, at.exception
    assert any("“Articles of the spring issue”; “Compiled by the editors”, are the sheet's title" in c.value
               for c in at.caption)
    assert at.selectbox(key=Keys.text_column).value == "body" and _collection(at).corpus.n_docs == 6


def test_pdf_and_word_files_are_read_and_an_unreadable_one_says_why(app_path):
    at = _app(app_path)
    _upload(at, [*data.office_documents(), *data.BAD["scanned pdf"][:1]])
    assert not at.exception, at.exception
    assert _collection(at).corpus.n_docs == 6
    captions = [c.value for c in at.caption]
    assert any("Uploaded: **7 files** — 6 documents" in c for c in captions)
    assert any(c.startswith("Read the text of 2 PDF files, 2 Word documents") for c in captions)
    assert any("scan.pdf: this PDF holds no text on its 2 pages" in m.value and "OCR" in m.value
               for m in at.markdown)


def test_the_stop_words_language_follows_the_uploaded_text(app_path):
    """German files take German stop words by themselves; choosing English then warns and offers German back;
    a table's text column in French takes French."""
    at = _app(app_path)
    _upload(at, data.german_zip())
    assert not at.exception, at.exception
    assert at.selectbox(key=Keys.language).value == "german"
    assert at.checkbox(key=Keys.strip_accents).value is False  # German words shown as written
    assert {"köcheln", "würzen"} <= set(_collection(at).corpus.vocabulary)
    assert any("look German" in c.value for c in at.caption)
    assert "und" not in _collection(at).corpus.vocabulary
    assert not at.warning
    at.selectbox(key=Keys.language).set_value("english").run()
    assert "und" in _collection(at).corpus.vocabulary  # what the warning is about
    assert any("look German" in w.value and "“die”" in w.value for w in at.warning)
    button = at.button(key=Keys.use_language)
    assert button.label == "Use German stop words"
    button.click().run()
    assert not at.exception, at.exception
    assert at.selectbox(key=Keys.language).value == "german"
    assert "und" not in _collection(at).corpus.vocabulary and not at.warning

    uploader = at.file_uploader(key=Keys.uploader).clear()
    for name, content in data.bilingual_table():
        uploader.upload(name, content)
    at.run()
    assert at.selectbox(key=Keys.text_column).value == "english"
    assert at.selectbox(key=Keys.language).value == "english"
    assert at.checkbox(key=Keys.strip_accents).value is True
    at.selectbox(key=Keys.text_column).set_value("french").run()
    assert not at.exception, at.exception
    assert at.selectbox(key=Keys.language).value == "french"
    assert at.checkbox(key=Keys.strip_accents).value is False
    assert "planète" in _collection(at).corpus.vocabulary
    assert "les" not in _collection(at).corpus.vocabulary


def test_files_in_two_languages_take_the_stop_words_of_both(app_path):
    """English reports with some French ones: both lists, said in a note; English alone warns and offers both."""
    from tests.engine.test_language import TEXTS

    at = _app(app_path)
    files = {f"reports/{i}.txt": (TEXTS["french" if i % 4 == 0 else "english"] + f" ({i})").encode("utf-8")
             for i in range(24)}  # 6 French, 18 English
    _upload(at, data.zip_upload("reports.zip", files))
    assert not at.exception, at.exception
    assert at.selectbox(key=Keys.language).value == "english+french"
    assert at.checkbox(key=Keys.strip_accents).value is False  # French words shown as written
    vocabulary = set(_collection(at).corpus.vocabulary)
    assert {"bridge", "pont", "rivière"} <= vocabulary and not {"the", "que", "les", "et"} & vocabulary
    assert any("look English, and 25% of them French" in c.value for c in at.caption)
    at.selectbox(key=Keys.language).set_value("english").run()
    assert {"que", "les"} <= set(_collection(at).corpus.vocabulary)
    assert any("25% of these documents look French" in w.value for w in at.warning)
    button = at.button(key=Keys.use_language)
    assert button.label == "Use English + French stop words"
    button.click().run()
    assert not at.exception, at.exception
    assert at.selectbox(key=Keys.language).value == "english+french" and not at.warning


def test_web_pages_are_read_without_their_markup(app_path):
    """A .zip of saved web pages: the box is ticked and tags are no words; unticked, they are; a table's column
    of HTML ticks it too."""
    at = _app(app_path)
    pages = {f"site/page{i}.html": (f"<html><head><title>Page {i}</title></head><body><div class='menu'>"
                                    f"<a href='/home'>Home</a></div><table><tr><td>{text}</td></tr></table>"
                                    + ("<span class='note'>x</span>" if i % 2 else "")  # in half the pages
                                    + "</body></html>").encode("utf-8") for i, text in enumerate(data.TEXTS * 4)}
    _upload(at, data.zip_upload("site.zip", pages))
    assert not at.exception, at.exception
    assert at.checkbox(key=Keys.strip_markup).value is True
    assert any("hold HTML or XML markup; its tags are left out" in c.value for c in at.caption)
    vocabulary = set(_collection(at).corpus.vocabulary)
    assert {"planet", "oven", "goal"} <= vocabulary and not {"span", "note", "td", "div", "href"} & vocabulary
    at.checkbox(key=Keys.strip_markup).uncheck().run()
    assert {"span", "note"} <= set(_collection(at).corpus.vocabulary)  # in every page, "td" is above max_df
    assert any("tick the box above" in c.value for c in at.caption)

    uploader = at.file_uploader(key=Keys.uploader).clear()
    rows = "".join(f'"<p>{text} {i}</p><p>end</p>{"<section class=x>appendix</section>" if i % 2 else ""}","t{i}"\n'
                   for i, text in enumerate(data.TEXTS * 4))  # "section" and "class" in half the rows: not over max_df;
    # each row numbered, so that none is a copy of another
    uploader.upload("pages.csv", ("body,title\n" + rows).encode("utf-8"))
    at.run()
    assert not at.exception, at.exception
    assert at.checkbox(key=Keys.strip_markup).value is True
    vocabulary = set(_collection(at).corpus.vocabulary)
    assert {"planet", "appendix"} <= vocabulary and not {"section", "class"} & vocabulary
    at.checkbox(key=Keys.strip_markup).uncheck().run()
    assert {"section", "class"} <= set(_collection(at).corpus.vocabulary)


def test_a_footer_every_file_ends_with_is_left_out_as_boilerplate(app_path):
    """Twelve reports ending with the same two-line footer: the box is ticked, the two lines are counted, listed
    and no words; unticked, their words are back and nothing is said."""
    at = _app(app_path)
    _upload(at, data.footer_zip())
    assert not at.exception, at.exception
    assert at.checkbox(key=Keys.strip_boilerplate).value is True
    assert _collection(at).corpus.n_docs == 12
    words = [len(re.findall(r"(?u)\b[^\W\d_]{2,}\b", text)) for text in _collection(at).corpus.texts]
    footer = len(re.findall(r"(?u)\b[^\W\d_]{2,}\b", " ".join(data.FOOTER)))
    assert footer == 21
    share = formatting.percent(12 * footer / sum(words), 2)
    assert (f"Left out as boilerplate: {share} of the words, in 12 of 12 documents: 1 block of lines that many "
            "documents share word for word.") in [c.value for c in at.caption]
    assert [e.label for e in at.expander] == ["Blocks left out as boilerplate"]
    table = at.expander[0].dataframe[0].value
    assert table.to_dict("list") == {"Block": [" / ".join(data.FOOTER)], "Documents": [12], "Words": [21]}
    vocabulary = set(_collection(at).corpus.vocabulary)
    assert {"planet", "report"} <= vocabulary and not data.FOOTER_WORDS & vocabulary
    at.checkbox(key=Keys.strip_boilerplate).uncheck().run()
    assert not at.exception, at.exception
    assert set(_collection(at).corpus.vocabulary) >= data.FOOTER_WORDS
    assert _collection(at).corpus.vectorizer.boilerplate == ()
    assert not any("boilerplate" in c.value for c in at.caption) and not at.expander


def test_copies_of_a_document_are_read_once_and_listed_unless_asked(app_path):
    """Six distinct texts and three copies (one in capitals, one with other punctuation and spacing): the box is
    ticked, the copies are left out, counted and listed with the document they repeat; unticked, all nine are read
    and nothing is said."""
    at = _app(app_path)
    files = {f"notes/{i}.txt": text.encode() for i, text in enumerate(data.TEXTS[:6])}
    files |= {"notes/6.txt": data.TEXTS[0].upper().encode(), "notes/7.txt": data.TEXTS[1].replace(",", " ;").encode(),
              "notes/8.txt": data.TEXTS[0].encode()}
    _upload(at, data.zip_upload("notes.zip", files))
    assert not at.exception, at.exception
    assert at.checkbox(key=Keys.drop_copies).value is True
    corpus = _collection(at).corpus
    assert corpus.n_docs == 6 and [(d.title, d.copy_of) for d in corpus.copies] == [
        ("6", corpus.doc_ids[0]), ("7", corpus.doc_ids[1]), ("8", corpus.doc_ids[0])]
    captions = [c.value for c in at.caption]
    assert ("Left out as copies: 3 documents of 9 repeat an earlier document word for word (the same words in the "
            "same order); the first of each is kept. They are listed under the preview.") in captions
    assert at.metric[3].value == "0"  # none became empty: copies are not counted there
    listed = next(frame.value for frame in at.dataframe if "Repeats" in frame.value.columns)
    assert listed.to_dict("list") == {"Document": ["6", "7", "8"], "Repeats": ["0", "1", "0"],
                                      "How": ["word for word"] * 3}
    assert at.checkbox(key=Keys.near_copies).value is False and not at.checkbox(key=Keys.near_copies).disabled
    at.checkbox(key=Keys.drop_copies).uncheck().run()
    assert not at.exception, at.exception
    assert _collection(at).corpus.n_docs == 9 and _collection(at).corpus.copies == ()
    assert not any("copies" in c.value for c in at.caption)
    assert not any("Repeats" in frame.value.columns for frame in at.dataframe)
    assert at.checkbox(key=Keys.near_copies).disabled  # near-copies go only with the copies


def test_the_data_page_groups_many_skipped_files_by_why_and_lists_every_one_below(app_path):
    at = _app(app_path)
    _upload(at, data.sphinx_site_zip())
    assert not at.exception, at.exception
    corpus = _collection(at).corpus
    assert corpus.n_docs == 6 and len(corpus.skipped) == 14
    assert any(m.value == "**14 files skipped**" for m in at.markdown)
    # five reasons: each in full, with how many files and a few of their names (escaped: names are the uploader's)
    listed = next(m.value for m in at.markdown if m.value.startswith("- 6 files: "))
    assert listed.split("\n") == [
        "- 6 files: Sphinx's copy of a page's source; the page is read (site/\\_sources/page0.rst.txt, "
        "site/\\_sources/page1.rst.txt, site/\\_sources/page2.rst.txt, …)",
        "- 5 files: not a .txt, .md, .rst, .html, .eml, .pdf, .docx, .odt, .epub, .pptx or .odp file "
        "(site/objects.inv, site/\\_static/basic.css, site/\\_static/doctools.js, …)",
        "- 1 file: macOS metadata (\\_\\_MACOSX/site/.\\_page0.html)",
        "- 1 file: Sphinx's index of the site's terms, generated from its pages, which are read (site/genindex.html)",
        "- 1 file: Sphinx's search page, which holds no text of the site (site/search.html)"]
    assert not any("For example" in frame.value.columns for frame in at.dataframe)
    every = [e for e in at.expander if e.label == "Every skipped file (14)"]
    assert len(every) == 1
    assert every[0].dataframe[0].value.to_dict("list") == {"File": [s.name for s in corpus.skipped],
                                                           "Why": [s.reason for s in corpus.skipped]}
    # more reasons than that: a table of the groups.  The same documents under another name: the collection kept is
    # the new reading (its name and skipped files), and the settings chosen for the documents stay
    _page(at, "train")
    at.number_input(key=Keys.batch_size).set_value(3).run()
    generated = {"site/py-modindex.html": b"<p>m</p>", "site/404.html": b"<p>x</p>",
                 "site/_modules/index.html": b"<p>l</p>", "site/_modules/pkg/core.html": b"<pre>def f(): pass</pre>"}
    key = _collection(at).key
    _upload(at, [("site-v2.zip", data.sphinx_site_zip(generated)[0][1])])
    assert not at.exception, at.exception
    corpus = _collection(at).corpus
    assert _collection(at).key == key and _collection(at).name == "site-v2.zip" and len(corpus.skipped) == 18
    assert any(c.value.startswith("**Collection:** site-v2.zip") for c in at.sidebar.caption)
    _page(at, "train")
    assert at.number_input(key=Keys.batch_size).value == 3
    _page(at, "data")
    groups = next(frame.value for frame in at.dataframe if "For example" in frame.value.columns)
    assert groups.equals(uploads.skipped_groups(corpus.skipped)) and groups["Files"].tolist() == [6, 5] + [1] * 7
    assert any(e.label == "Every skipped file (18)" for e in at.expander)
    _upload(at, data.zip_of_texts())  # one skipped file: its reason in full, no table
    assert not at.exception, at.exception
    assert [s.name for s in _collection(at).corpus.skipped] == ["docs/readme.pdf"]
    assert not any("For example" in frame.value.columns for frame in at.dataframe)
    assert not any(e.label.startswith("Every skipped file") for e in at.expander)
    assert any(m.value.startswith("- docs/readme.pdf: ") for m in at.markdown)


def test_near_copies_are_left_out_when_asked_and_listed_with_how_nearly(app_path):
    """A long note, a revised version of it (one word changed, a line added) and a copy of the revision word for
    word: unticked, only the copy goes; ticked, the revision goes too, listed as 84% the same as the note, and the
    copy as a copy of the revision."""
    at = _app(app_path)
    note = " ".join(data.TEXTS)
    words = note.split()
    revised = " ".join([*words[:10], "amended", *words[11:]]) + " Revised on Tuesday."
    files = {f"notes/{i}.txt": text.encode() for i, text in enumerate(data.TEXTS[4:])}
    files |= {"notes/a.txt": note.encode(), "notes/b.txt": revised.encode(), "notes/c.txt": revised.upper().encode()}
    _upload(at, data.zip_upload("notes.zip", files))
    assert not at.exception, at.exception
    assert _collection(at).corpus.n_docs == 4  # the copy of the revision only
    at.checkbox(key=Keys.near_copies).check().run()
    assert not at.exception, at.exception
    corpus = _collection(at).corpus
    ids = dict(zip(corpus.titles, corpus.doc_ids, strict=True))
    assert corpus.n_docs == 3 and "b" not in ids
    assert [(d.title, d.copy_of) for d in corpus.copies] == [("b", ids["a"]), ("c", "notes/b.txt")]
    runs = len(words) - 4  # one word changed: 5 runs of the note's are not in the revision, 3 + 5 of its are new
    assert corpus.copies[0].similarity == pytest.approx((runs - 5) / (runs + 8))
    assert ("Left out as copies: 2 documents of 5 repeat an earlier document, 1 word for word and 1 nearly (at least "
            "80% of their runs of five words the same); the first of each is kept. They are listed under the "
            "preview.") in [c.value for c in at.caption]
    listed = next(frame.value for frame in at.dataframe if "Repeats" in frame.value.columns)
    assert listed.to_dict("list") == {"Document": ["b", "c"], "Repeats": ["a", "b"],
                                      "How": [f"{formatting.whole_percent((runs - 5) / (runs + 8))} the same",
                                              "word for word"]}


def _long_document_upload() -> dict[str, bytes]:
    """24 short notes (two sample texts each) and one long one repeating a sample text 80 times: over half the words."""
    files = {f"notes/{a}{b}.txt": f"{data.TEXTS[a]} {data.TEXTS[b]}".encode()
             for a in range(6) for b in range(6) if a < b or (a, b) in ((0, 0), (1, 1), (2, 2), (3, 3), (4, 4))}
    files |= {"notes/long.txt": " ".join([data.TEXTS[0]] * 80).encode()}
    return files


def test_a_document_long_enough_to_fill_topics_is_named_before_training_and_left_out_on_request(app_path):
    """The Data page warns about the long note, leaves it out with one click (listed under the preview, kept across
    a visit to another page), and puts it back when it is taken off the list."""
    at = _app(app_path)
    _upload(at, data.zip_upload("notes.zip", _long_document_upload()))
    assert not at.exception, at.exception
    corpus = _collection(at).corpus
    assert corpus.n_docs == 21 and "long" in corpus.titles
    warning = next(w.value for w in at.warning if "large share of the words" in w.value)
    share = corpus.counts[corpus.titles.index("long")].sum() / corpus.n_tokens
    k = at.session_state[Keys.n_topics]
    assert warning.startswith(f"One document holds a large share of the words: “long” "
                              f"({formatting.percent(share, 2)}). With {k} topics a topic holds "
                              f"{formatting.percent(1 / k, 2)} of the words on average, so this document is long")
    at.button(key=Keys.leave_long_out).click().run()
    assert not at.exception, at.exception
    corpus = _collection(at).corpus
    assert corpus.n_docs == 20 and "long" not in corpus.titles
    assert [d.title for d in corpus.left_out] == ["long"] and corpus.emptied == ()
    assert not any("large share of the words" in w.value for w in at.warning)
    assert at.multiselect(key=Keys.left_out).value == [corpus.left_out[0].doc_id]
    listed = next(frame.value for frame in at.dataframe if list(frame.value.columns) == ["Document"])
    assert listed["Document"].tolist() == ["long"]
    _page(at, "train")
    _page(at, "data")
    assert [d.title for d in _collection(at).corpus.left_out] == ["long"]
    at.multiselect(key=Keys.left_out).set_value([]).run()
    assert not at.exception, at.exception
    assert _collection(at).corpus.n_docs == 21 and _collection(at).corpus.left_out == ()


def _upload_with_long_note(at, repeats: int) -> float:
    """:func:`_long_document_upload` with the long note repeating a sample text ``repeats`` times; its share of the
    words."""
    files = {name: text for name, text in _long_document_upload().items() if name != "notes/long.txt"}
    _upload(at, data.zip_upload("notes.zip", files | {"notes/long.txt": " ".join([data.TEXTS[0]] * repeats).encode()}))
    assert not at.exception, at.exception
    corpus = _collection(at).corpus
    assert corpus.n_docs == 21
    return float(corpus.counts[corpus.titles.index("long")].sum() / corpus.n_tokens)


def test_before_an_hdp_run_the_data_page_reads_one_topic_for_every_ten_documents(app_path):
    """A note holding about a tenth of the words is long for LDA's 8 topics (6.25 % and more) but not for an HDP
    trained on 19 of the 21 documents (2 held out), which the rule reads as 1 topic (50 % and more); the long note's
    words hold over half of them and are named either way, the HDP's warning without a number of topics."""
    at = _app(app_path)
    share = _upload_with_long_note(at, 4)
    assert 0.05 < share < 0.25

    def warned() -> list[str]:
        return [w.value for w in at.warning if "large share of the words" in w.value]

    k = at.session_state[Keys.n_topics]  # the Train page's K for 21 documents (8)
    assert len(warned()) == 1 and "“long”" in warned()[0] and f"With {k} topics" in warned()[0]
    at.session_state[Keys.model] = "HDP"
    at.run()
    assert not at.exception, at.exception
    assert warned() == []
    _upload(at, data.zip_upload("notes.zip", _long_document_upload()))
    [note] = warned()
    assert note.startswith("One document holds a large share of the words: “long”") and "topics a topic" not in note


def test_before_an_hdp_run_the_rule_counts_the_documents_trained_on(app_path):
    """As fit's rule does, the Data page's reads the documents left after the Train page's test documents: a note
    holding a third of the words is long for 2 topics (20 training documents) but not for 1 (19)."""
    at = _app(app_path)
    share = _upload_with_long_note(at, 15)
    assert 0.25 < share < 0.5 and at.session_state[Keys.n_test] == 2
    at.session_state[Keys.model] = "HDP"
    at.run()
    assert not at.exception, at.exception
    assert not any("large share of the words" in w.value for w in at.warning)  # 19 training documents: 1 topic
    at.session_state[Keys.n_test] = 1
    at.run()
    assert not at.exception, at.exception
    assert sum("large share of the words" in w.value and "“long”" in w.value for w in at.warning) == 1


def test_leaving_out_every_document_says_so_and_puts_them_back_on_request(app_path):
    at = _app(app_path)
    _upload(at, data.zip_upload("notes.zip", _long_document_upload()))
    before = _collection(at).key
    every = list(at.multiselect(key=Keys.left_out).options)
    at.multiselect(key=Keys.left_out).set_value(list(_collection(at).corpus.doc_ids)).run()
    assert not at.exception, at.exception
    assert any("leave at least one in" in e.value for e in at.error) and _collection(at).key == before
    at.button(key=Keys.put_back).click().run()
    assert not at.exception, at.exception
    assert at.multiselect(key=Keys.left_out).value == [] and _collection(at).key == before
    assert len(every) == 21


def test_preprocessing_choices_survive_a_visit_to_another_page(app_path):
    """Streamlit drops the values of widgets a page does not draw: the Data page's choices are kept, so the
    collection is not rebuilt with the defaults when the user comes back."""
    at = _app(app_path)
    _page(at, "data")
    at.checkbox(key=Keys.strip_boilerplate).uncheck().run()
    at.checkbox(key=Keys.join_phrases).check().run()
    at.selectbox(key=Keys.language).set_value("french").run()
    key = _collection(at).key
    _page(at, "train")
    _page(at, "data")
    assert at.checkbox(key=Keys.strip_boilerplate).value is False and at.checkbox(key=Keys.join_phrases).value
    assert at.selectbox(key=Keys.language).value == "french" and _collection(at).key == key


def test_word_pairs_are_read_as_one_word_when_asked(app_path):
    """A table whose rows write "health care" side by side in every other row: the box starts unticked and every word
    is read alone; ticked, the phrase is one word, named with its share of the words and listed with its counts."""
    from tests.engine.test_phrases import planted_texts

    at = _app(app_path)
    rows = "".join(f"{text},t{i}\n" for i, text in enumerate(planted_texts()))
    _upload(at, [("notes.csv", ("text,title\n" + rows).encode("utf-8"))])
    assert not at.exception, at.exception
    assert at.checkbox(key=Keys.join_phrases).value is False
    assert "health care" not in _collection(at).corpus.vocabulary and not at.expander
    at.checkbox(key=Keys.join_phrases).check().run()
    assert not at.exception, at.exception
    corpus = _collection(at).corpus
    assert corpus.vectorizer.phrases == ("health care",) and "health care" in corpus.vocabulary
    share = formatting.percent(30 / corpus.n_tokens, 2)
    assert f"Read as one word: 1 phrase (“health care”), {share} of the words." in [c.value for c in at.caption]
    assert [e.label for e in at.expander] == ["Phrases read as one word"]
    assert at.expander[0].dataframe[0].value.to_dict("list") == {"Phrase": ["health care"], "Times": [30],
                                                                 "Documents": [30]}
    at.checkbox(key=Keys.join_phrases).uncheck().run()
    assert _collection(at).corpus.vectorizer.phrases == () and not at.expander


def test_a_words_forms_are_counted_as_one_word_unless_unticked(app_path):
    """The box starts ticked: "tax" counts as "taxes" (written more), named in a caption and listed with its forms;
    unticked, every form is a word; in a language whose forms are not known, the caption says every form counts as
    written."""
    from tests.engine.test_word_forms import TEXTS

    at = _app(app_path)
    rows = "".join(f"{text.replace(',', ' ')} {i},t{i}\n" for i, text in enumerate(TEXTS))  # numbered: no copies
    _upload(at, [("notes.csv", ("text,title\n" + rows).encode("utf-8"))])
    assert not at.exception, at.exception
    assert at.checkbox(key=Keys.merge_word_forms).value is True
    corpus = _collection(at).corpus
    assert "taxes" in corpus.vocabulary and "tax" not in corpus.vocabulary
    assert dict(corpus.vectorizer.word_forms)["tax"] == "taxes"
    table = at.expander[0].dataframe[0].value
    assert at.expander[0].label == "Words counted with their other forms"
    assert table.set_index("Word").loc["taxes"].to_dict() == {"Other forms": "tax", "Times": 12}
    note = next(c.value for c in at.caption if c.value.startswith("Counted with their other forms:"))
    forms = sum(len(others.split(", ")) for others in table["Other forms"])
    assert note.startswith(f"Counted with their other forms: {len(table)} words (“") and "“taxes” (tax)" in note
    assert note.endswith(f"), {forms} other forms in all.") and forms > len(table)
    at.checkbox(key=Keys.merge_word_forms).uncheck().run()
    assert not at.exception, at.exception
    assert {"tax", "taxes"} <= set(_collection(at).corpus.vocabulary) and not at.expander
    at.checkbox(key=Keys.merge_word_forms).check().run()
    at.selectbox(key=Keys.language).set_value("chinese").run()
    assert not at.exception, at.exception
    assert _collection(at).corpus.vectorizer.word_forms == ()
    assert ("The forms of words in Chinese are not known here: every form is counted as written."
            in [c.value for c in at.caption])


def test_a_mailbox_is_read_as_what_its_senders_wrote(app_path):
    """An .mbox upload: a table of its messages titled by their subjects; the box is ticked, so header, quote and
    signature words are no words; unticked, they are."""
    at = _app(app_path)
    _upload(at, [("list.mbox", data.mailbox(24))])
    assert not at.exception, at.exception
    assert at.selectbox(key=Keys.text_column).value == "text" and at.selectbox(key=Keys.title_column).value == "subject"
    assert at.checkbox(key=Keys.strip_messages).value is True
    assert any("e-mail or newsgroup messages; each is read without its headers" in c.value for c in at.caption)
    read = engine.messages_report(_collection(at).corpus.texts)
    assert (f"Read as e-mail messages: 24 of 24 documents. Their headers, quoted replies and signatures held "
            f"{formatting.percent(read.words_removed / read.words, 2)} of the words, which are left out."
            in [c.value for c in at.caption])
    corpus = _collection(at).corpus
    assert corpus.n_docs == 24 and corpus.titles[:2] == ("Re: note 0", "Re: note 1")
    assert "planet" in corpus.vocabulary and not data.MESSAGE_WORDS & set(corpus.vocabulary)
    at.slider(key=Keys.max_df).set_value(1.0).run()
    at.checkbox(key=Keys.strip_messages).uncheck().run()
    assert not at.exception, at.exception
    assert set(_collection(at).corpus.vocabulary) >= data.MESSAGE_WORDS
    assert any("tick the box above to leave their headers" in c.value for c in at.caption)
    assert not any(c.value.startswith("Read as e-mail messages") for c in at.caption)


def test_one_long_text_is_cut_into_passages_and_a_run_without_two_documents_says_why(app_path):
    """A book uploaded alone: the box is ticked and it becomes passages a run trains on; unticked, it is one document
    and starting a run says what to do instead of the held-out split's error."""
    at = _app(app_path)
    _upload(at, [("book.txt", data.book().encode())])
    assert not at.exception, at.exception
    assert at.checkbox(key=Keys.split_passages).value is True
    assert _collection(at).corpus.n_docs == 15
    assert ("Cut into passages: 1 document became 15 passages of about 300 words, each read as a document."
            in [c.value for c in at.caption])
    at.checkbox(key=Keys.split_passages).uncheck().run()
    assert not at.exception, at.exception
    assert _collection(at).corpus.n_docs == 1 and not any(c.value.startswith("Cut into") for c in at.caption)
    _page(at, "train")
    at.button(key=Keys.train_start).click().run()
    assert not at.exception, at.exception
    assert [e.value for e in at.error] == [
        "This collection has 1 document with two or more different words; a run needs at least 2: one to learn "
        "from and one held out to score the model. Upload more documents, or tick “Cut long documents into "
        "passages” on the Data page to read a long one as many."]
    assert not len(at.session_state[Keys.runs])


def test_chinese_and_japanese_files_are_read_as_pairs_of_characters(app_path):
    at = _app(app_path)
    _upload(at, data.cjk_zip())
    assert not at.exception, at.exception
    assert not at.error, [e.value for e in at.error]
    corpus = _collection(at).corpus
    assert corpus.n_docs == 5 and corpus.vectorizer.token_pattern == engine.UNICODE_TOKEN_PATTERN
    assert {"文件", "管理", "标准", "データベース", "ファイルシステム", "権限"} <= set(corpus.vocabulary)
    assert any("Chinese or Japanese characters" in c.value for c in at.caption)


def test_hindi_files_keep_their_words_whole_and_take_hindi_stop_words(app_path):
    at = _app(app_path)
    _upload(at, data.hindi_zip())
    assert not at.exception, at.exception
    assert at.selectbox(key=Keys.language).value == "hindi"
    assert at.checkbox(key=Keys.strip_accents).value is False
    corpus = _collection(at).corpus
    assert corpus.vectorizer.token_pattern == engine.UNICODE_TOKEN_PATTERN
    assert {"भाषा", "परीक्षण", "शब्द"} <= set(corpus.vocabulary)  # the old reading gave "पर", "षण" and no "भाषा"
    assert not {"में", "है"} & set(corpus.vocabulary)
    assert any("look Hindi" in c.value for c in at.caption)


@pytest.mark.parametrize("kind", [*data.BAD, "zip bomb"])
def test_bad_uploads_keep_the_previous_collection(app_path, kind, monkeypatch):
    monkeypatch.setenv("SVI_TOPICS_MAX_EXPANDED_MB", "0.01")
    at = _app(app_path)
    before = _collection(at).key
    _upload(at, data.zip_bomb(50_000) if kind == "zip bomb" else data.BAD[kind])
    assert not at.exception, at.exception
    assert at.error and "has not changed" in at.error[0].value
    assert _collection(at).key == before


def test_train_start_pause_resume_change_kappa_stop(app_path):
    at = _app(app_path)
    record = _start(at)
    _until(at, lambda: record.snapshot().docs_seen > 0)
    at.button(key=Keys.train_pause).click().run()
    _until(at, lambda: record.status == "paused")
    at.button(key=Keys.train_resume).click().run()
    _until(at, lambda: record.status == "running")
    at.slider(key=Keys.kappa).set_value(0.5).run()
    assert not at.exception
    assert any("not guaranteed" in w.value for w in at.warning)  # kappa <= 0.5 is allowed, with a warning
    _until(at, lambda: any(c.name == "kappa" for c in record.curve()[1]))
    at.number_input(key=Keys.batch_size).set_value(64).run()
    _until(at, lambda: record.snapshot().batch_size == 64)
    at.button(key=Keys.train_stop).click().run()
    _until(at, lambda: record.status == "stopped")
    second = _start(at, target_docs=2_000)
    _until(at, lambda: second.status == "finished")
    assert at.multiselect(key=Keys.overlay).value == [record.run_id, second.run_id]
    at.segmented_control(key=Keys.x_axis).set_value("seconds").run()
    assert not at.exception
    at.button(key=Keys.train_continue).click().run()
    assert not at.exception
    assert len(_runs(at)) == 3
    _runs(at).stop_all()


def test_train_offers_the_adaptive_step_size_beside_the_default_schedule(app_path):
    at = _app(app_path)
    _page(at, "train")
    assert at.radio(key=Keys.step_size).value == "schedule"  # the default stays the paper's schedule
    assert any("lost held-out likelihood on 6 of 11" in c.value for c in at.caption)
    assert any(s.key == Keys.kappa for s in at.slider)
    at.radio(key=Keys.step_size).set_value("adaptive").run()
    assert not at.exception
    assert not any(s.key == Keys.kappa for s in at.slider) and not any(n.key == Keys.tau for n in at.number_input)
    record = _start(at, target_docs=3_000)
    assert record.settings.step_size == "adaptive" and record.run.trainer.step_size == "adaptive"
    assert "adaptive ρ" in record.name or "adaptive ρ" in record.settings.label()
    _until(at, lambda: record.snapshot().t >= 2)
    shown = next(m for m in at.metric if m.label == "Adaptive ρ")
    rho = float(shown.value)
    assert 0 < rho <= 1
    _until(at, lambda: record.status == "finished")
    assert all(0 < point.rho <= 1 for point in record.snapshot().history)
    at.segmented_control(key=Keys.model).set_value("HDP").run()
    assert not at.exception and at.radio(key=Keys.step_size).disabled
    assert any("The HDP trains with the paper's schedule" in c.value for c in at.caption)
    assert any(s.key == Keys.kappa for s in at.slider)
    # the HDP's topic births are explained where its settings are
    assert any("splits its largest topics in two" in c.value and "judged then" in c.value for c in at.caption)
    at.segmented_control(key=Keys.model).set_value("LDA").run()
    assert not any("splits its largest topics" in c.value for c in at.caption)


def test_thread_cap_gives_a_clear_message(app_path, monkeypatch):
    monkeypatch.setenv("SVI_TOPICS_MAX_TRAINING_THREADS", "1")
    at = _app(app_path)
    _start(at)
    at.button(key=Keys.train_start).click().run()
    assert not at.exception
    assert any("limit" in w.value for w in at.warning)
    assert len(_runs(at)) == 1
    # the browser session goes away: its session-scoped lease is released and its runs stop
    record = _runs(at).latest()
    st.cache_resource.clear()
    deadline = time.monotonic() + 10
    while record.run.is_alive and time.monotonic() < deadline:
        time.sleep(0.05)
    assert record.status == "stopped"


def test_topics_and_documents_pages(app_path):
    at = _app(app_path)
    record = _start(at, target_docs=3_000)
    _until(at, lambda: record.status == "finished")
    _page(at, "topics")
    label_key = Keys.topic_label(record.run_id, 0)
    assert len(at.text_input) == record.model().n_topics
    at.text_input(key=label_key).input("Space travel").run()
    assert not at.exception
    assert record.labels[0] == "Space travel"
    at.slider(key=Keys.relevance).set_value(0.2).run()
    assert not at.exception and len(at.image) == record.model().n_topics
    _page(at, "documents")
    at.text_input(key=Keys.search).input("planet").run()
    assert not at.exception
    assert any("border-bottom" in h.proto.body for h in at.get("html"))  # words coloured by topic
    assert at.selectbox(key=Keys.topic).options[0] == "Space travel"
    at.text_input(key=Keys.search).input("no such words anywhere").run()
    assert any("No document contains" in w.value for w in at.warning)


def _hdp_on_the_train_page(app_path: str, topics: int, per_document: int) -> AppTest:
    """The app on its Train page with the HDP chosen: K = ``topics``, T = ``per_document``."""
    at = _app(app_path)
    _page(at, "train")
    at.segmented_control(key=Keys.model).set_value("HDP").run()
    at.number_input(key=Keys.hdp_topics).set_value(topics).run()
    at.number_input(key=Keys.doc_truncation).set_value(per_document).run()
    return at


def test_hdp_run_shows_stick_weights(app_path):
    at = _hdp_on_the_train_page(app_path, topics=20, per_document=5)
    record = _start(at, target_docs=1_000)
    assert record.settings.model == "HDP"
    _until(at, lambda: record.status == "finished")
    _page(at, "topics")
    shares = record.model().word_shares()
    in_use = int((shares >= 0.01).sum())  # the topics explaining at least 1 % of the words, as in the run list
    [metric] = [m for m in at.metric if m.label == "Topics in use"]
    assert metric.value == f"{in_use} of 20"
    if in_use < 20:
        spare = formatting.percent(float(shares[shares < 0.01].sum()))
        assert f"The other {20 - in_use} hold {spare} of the words." in [c.value for c in at.caption]


def test_an_hdp_with_more_topics_per_document_than_topics_is_refused_in_plain_words(app_path):
    at = _hdp_on_the_train_page(app_path, topics=10, per_document=20)
    before = len(list(_runs(at)))
    at.button(key=Keys.train_start).click().run()
    assert not at.exception
    assert [e.value for e in at.error] == ["Topics per document at most (T) is 20, more than Topics at most (K), 10: "
                                           "set T to 10 or less, or raise K."]
    assert len(list(_runs(at))) == before  # no run was made
    at.number_input(key=Keys.doc_truncation).set_value(10).run()
    record = _start(at, target_docs=500)
    assert (record.settings.n_topics, record.settings.doc_truncation) == (10, 10)
    _until(at, lambda: record.status == "finished")


def test_the_hdp_topic_splits_can_be_switched_off(app_path):
    at = _hdp_on_the_train_page(app_path, topics=20, per_document=5)
    assert at.toggle(key=Keys.births).value  # on by default, as in the engine and the command line
    at.toggle(key=Keys.births).set_value(False).run()
    assert not at.exception
    assert not any("splits its largest topics in two" in c.value for c in at.caption)  # what no longer happens
    record = _start(at, target_docs=1_000)
    assert record.settings.births is False and record.model().births == 0
    assert "no splits" in record.settings.label()
    _until(at, lambda: record.status == "finished")
    assert record.model().training_clock()["birth_rounds"] == 0
    at.toggle(key=Keys.births).set_value(True).run()
    assert any("splits its largest topics in two" in c.value for c in at.caption)
    assert _start(at, target_docs=1_000).model().births == 10  # the engine's: 20 a round, at most half of K
    # LDA never splits: the switch is not shown
    at.segmented_control(key=Keys.model).set_value("LDA").run()
    assert not [t for t in at.toggle if t.key == Keys.births]


def test_the_train_page_says_when_the_first_steps_are_raised(app_path):
    """With tau = 64 the first steps are 1/(t + 1), not (t + 64)^-kappa: the caption says so, and the run uses it."""
    at = _hdp_on_the_train_page(app_path, topics=20, per_document=5)
    raised = re.compile(r"The first [\d,]+ steps are larger than the schedule's: step t is at least 1/\(t \+ 1\)")
    assert not [c for c in at.caption if "larger than the schedule's" in c.value]  # the engine's schedule
    at.number_input(key=Keys.tau).set_value(64.0).run()
    assert not at.exception
    assert [c for c in at.caption if raised.match(c.value)]
    record = _start(at, target_docs=300)
    _until(at, lambda: record.status == "finished")
    assert record.settings.tau == 64.0
    first = [point for point in record.curve()[0] if point.step == 1]
    assert [point.rho for point in first] in ([], [0.5])  # where the first step was evaluated, its rho is 0.5
    at.segmented_control(key=Keys.model).set_value("LDA").run()  # LDA's steps are floored the same way
    assert [c for c in at.caption if raised.match(c.value)]


def test_export_reimport_and_resume_checkpoint(app_path):
    at = _app(app_path)
    record = _start(at, target_docs=2_000)
    _until(at, lambda: record.status == "finished")
    _page(at, "export")
    assert {b.proto.label for b in at.download_button} >= {"Topics (CSV)", "Model file (.npz)", "Full export (.zip)",
                                                          "Document–topic proportions (CSV)"}
    model_file = porting.model_bytes(record)()
    at.file_uploader(key=Keys.model_upload).upload("saved.npz", model_file)
    at.run()
    assert not at.exception
    loaded = _runs(at).latest()
    assert loaded.loaded is not None and loaded.can_continue
    assert any("Loaded" in s.value and "It is kept with this workspace's checkpoints" in s.value for s in at.success)
    at.file_uploader(key=Keys.model_upload).clear().upload("bad.npz", b"not a model").run()
    assert not at.exception
    assert any("not a model file" in e.value for e in at.error)
    # the loaded file is kept as a checkpoint (for a reload), and it can be resumed: it has its trainer state
    assert at.selectbox(key=Keys.checkpoint).options[0].startswith("saved.npz (loaded) — started")
    at.selectbox(key=Keys.checkpoint).set_value(loaded.run_id).run()
    assert not at.button(key=Keys.checkpoint_resume).disabled
    at.button(key=Keys.checkpoint_resume).click().run()
    assert not at.exception
    resumed = _runs(at).latest()
    assert resumed.name == "saved.npz (loaded) (resumed)" and resumed.labels == loaded.labels
    _runs(at).stop_all()


def test_compare_page_runs_svi_and_batch(app_path):
    at = _app(app_path)
    _page(at, "compare")
    at.slider(key=Keys.compare_seconds).set_value(2).run()
    at.button(key=Keys.compare_start).click().run()
    assert not at.exception
    _until(at, lambda: _runs(at).comparison.finished, timeout=40)
    at.run()
    assert any("Stochastic VI" in m.value for m in at.markdown)
    # whether batch VI found stochastic VI's topics, by engine.match_topics on the legs' models
    svi, *batches = _runs(at).comparison.records
    found = [engine.match_topics(svi.model(), batch.model()) for batch in batches]
    [line] = [m.value for m in at.markdown if m.value.startswith("Do they find the same topics?")]
    parts = " and ".join(f"**{match.n_recurring()} of the {match.n_topics}** in b{batch.name[1:]}"
                         for match, batch in zip(found, batches, strict=True))
    assert line.startswith(f"Do they find the same topics? Of stochastic VI's topics, {parts} are found again: ")
    assert batches[0].name.startswith("Batch VI on all")


def test_training_again_with_another_seed_compares_the_topics_with_the_new_run(app_path):
    at = _app(app_path)
    first = _start(at, target_docs=2_000)
    _until(at, lambda: first.status == "finished")
    _page(at, "topics")
    at.button(key=Keys.train_again).click().run()
    assert not at.exception, at.exception
    second = _runs(at).latest()
    assert second is not first and second.settings.seed == first.settings.seed + 1
    assert second.settings == dataclasses.replace(first.settings, seed=first.settings.seed + 1)
    assert at.session_state[Keys.current_run] == first.run_id  # the page still shows the first run
    assert at.session_state[Keys.match_run] == second.run_id
    _until(at, lambda: second.status == "finished")
    found = engine.match_topics(first.model(), second.model())
    assert f"{found.n_recurring()} of the {found.n_topics} topics are found again in **" in " ".join(
        i.value for i in at.info)
    # once more: the next seed no run has
    at.button(key=Keys.train_again).click().run()
    assert _runs(at).latest().settings.seed == first.settings.seed + 2
    _runs(at).stop_all()


def test_the_chart_survives_streamlit_emptying_its_axis_widget(app_path):
    """st.rerun inside the live fragment can reset the axis control to no value (Streamlit issue 11266).

    The browser test caught the Train page's chart part failing with "X must be one of
    ['docs_seen', 'seconds'], got None" after the first run finished; the chart now falls
    back to documents and the control gets its default at the next full run.
    """
    at = _app(app_path)
    record = _start(at, target_docs=2_000)
    _until(at, lambda: record.status == "finished")
    at.session_state[Keys.x_axis] = None  # what the reset leaves
    at.run()
    assert not at.exception, at.exception
    assert not [e.value for e in at.error], [e.value for e in at.error]
    assert any(c.value.startswith("Held-out measurements of") for c in at.caption)  # the chart part was drawn
    at.run()  # the next full run restores the default
    assert at.segmented_control(key=Keys.x_axis).value == "docs_seen"


def test_the_train_page_warns_before_an_hdp_run_on_few_documents(app_path):
    at = _app(app_path)
    at.segmented_control(key=Keys.model).set_value("HDP").run()

    def notes() -> list[str]:
        return [c.value for c in at.caption if "near-identical topics" in c.value]

    assert not notes()  # the sample has thousands of training documents
    at.number_input(key=Keys.n_test).set_value(_collection(at).corpus.n_docs - 300).run()
    assert not at.exception
    [note] = notes()
    assert note.startswith("With 300 training documents, the HDP may leave most words in many near-identical topics")
    at.segmented_control(key=Keys.model).set_value("LDA").run()
    assert not notes()


def test_the_train_page_warns_before_an_hdp_run_on_few_words(app_path):
    """700 notes of eight common words and one of their own: enough documents, too few words; the note counts the
    training documents' words that recur across them, not the ones of a single note."""
    from explorer.engine_api import heldout_split
    from tests.engine._made_up import COMMON, notes_with_own_words

    rows = "".join(f"{note}\n" for note in notes_with_own_words(700))
    at = _app(app_path)
    _upload(at, [("notes.csv", ("text\n" + rows).encode())])
    at.number_input(key=Keys.min_df).set_value(1).run()  # keep the words of one note (suggested: 5 documents)
    assert not at.exception, at.exception
    corpus = _collection(at).corpus
    assert corpus.n_words == len(COMMON) + 700
    _page(at, "train")
    at.segmented_control(key=Keys.model).set_value("HDP").run()
    n_test, seed = at.number_input(key=Keys.n_test).value, at.number_input(key=Keys.seed).value
    assert corpus.n_docs - n_test >= quality.HDP_FEW_DOCUMENTS
    train = heldout_split(corpus.counts, n_test=n_test, seed=seed)[0].toarray()
    words = int(train[:, (train > 0).sum(axis=0) >= 2].sum())  # those of words in two or more training documents
    assert 0 < words < quality.HDP_FEW_WORDS and words < train.sum() - 500  # the notes' own words left out
    [note] = [c.value for c in at.caption if "near-identical topics" in c.value]
    assert note.startswith(f"With only {words:,} words that recur across the training documents")


def test_lda_trains_with_the_engines_default_local_step(app_path):
    at = _app(app_path)
    _page(at, "train")
    assert not [t for t in at.toggle if "CVB0" in t.label]  # short documents need no switch: "auto" does it
    record = _start(at, target_docs=500)
    model = record.model()
    assert record.settings.local_update == "auto" and model.local_update == "auto"
    assert model.local_update == LDA().local_update and "CVB0" not in record.settings.label()


def test_a_long_document_of_a_bag_of_words_is_named_and_left_out_too(app_path):
    """UCI counts of 24 notes and one long one: counted already, so only the documents change; the long one is named
    and leaves with one click, the vocabulary staying the file's."""
    import tempfile
    from pathlib import Path

    from explorer.engine_api import Corpus
    from tests.explorer.uploads_data import write_uci

    texts = [f"{data.TEXTS[a]} {data.TEXTS[b]}" for a in range(6) for b in range(4)]
    corpus = Corpus.from_texts([*texts, " ".join([data.TEXTS[0]] * 80)])
    with tempfile.TemporaryDirectory() as folder:
        counts, vocab = Path(folder) / "docword.notes.txt", Path(folder) / "vocab.txt"
        write_uci(corpus, counts, vocab)
        files = [(counts.name, counts.read_bytes()), (vocab.name, vocab.read_bytes())]
    at = _app(app_path)
    _upload(at, files)
    assert not at.exception, at.exception
    uploaded = _collection(at).corpus
    assert uploaded.n_docs == 25 and any("large share of the words" in w.value for w in at.warning)
    at.button(key=Keys.leave_long_out).click().run()
    assert not at.exception, at.exception
    kept = _collection(at).corpus
    assert kept.n_docs == 24 and kept.vocabulary == uploaded.vocabulary and len(kept.left_out) == 1
    assert kept.counts.sum() == uploaded.counts.sum() - uploaded.counts[-1].sum()
    assert not any("large share of the words" in w.value for w in at.warning)


def test_choosing_another_title_column_names_the_documents_by_it(app_path):
    """The title column does not change the counts: the collection in use still follows it."""
    at = _app(app_path)
    rows = "".join(f'"{text}",A{i},B{i}\n' for i, text in enumerate(data.TEXTS))
    _upload(at, [("notes.csv", ("text,first,second\n" + rows).encode())])
    at.selectbox(key=Keys.title_column).set_value("first").run()
    assert not at.exception, at.exception
    assert _collection(at).corpus.titles[:2] == ("A0", "A1")
    at.selectbox(key=Keys.title_column).set_value("second").run()
    assert not at.exception, at.exception
    assert _collection(at).corpus.titles[:2] == ("B0", "B1")
