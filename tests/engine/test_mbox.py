"""Mailboxes read as tables of their messages: engine/data/mbox.py, read_table, load_corpus and DiskCorpus."""

from __future__ import annotations

import pytest

import engine
from engine import Corpus, DiskCorpus
from engine.data import mbox
from engine.errors import CorpusFormatError, EmptyCorpusError, MissingColumnError
from tests.explorer import uploads_data as data

BOX = ("From alice@example.org Mon Jan  1 00:00:00 2024\n"
       "From: Alice <alice@example.org>\nSubject: =?utf-8?q?Caf=C3=A9_hours?=\nDate: Mon, 1 Jan 2024 09:00:00 +0000\n"
       "\nOpen at nine.\n>From the street it is the blue door.\n>>From two escapes, one goes.\n\n"
       "From here on, the prices rise.\n\n"
       "From bob@example.org Tue Jan  2 00:00:00 2024\r\n"
       "From: bob@example.org\r\nSubject: Menu\r\n\r\nSoup\x0cand bread.\r\n\r\n")


def test_messages_are_split_at_their_separator_lines_and_unescaped():
    rows = list(engine.mbox_rows(BOX.split("\n")))
    assert [row[:3] for row in rows] == [("Café hours", "Alice <alice@example.org>", "Mon, 1 Jan 2024 09:00:00 +0000"),
                                         ("Menu", "bob@example.org", "")]
    assert rows[0][3] == ("From: Alice <alice@example.org>\nSubject: =?utf-8?q?Caf=C3=A9_hours?=\n"
                          "Date: Mon, 1 Jan 2024 09:00:00 +0000\n\nOpen at nine.\nFrom the street it is the blue "
                          "door.\n>From two escapes, one goes.\n\nFrom here on, the prices rise.")  # no header after it
    assert rows[1][3] == "From: bob@example.org\nSubject: Menu\n\nSoup\x0cand bread."  # a form feed stays
    frame = engine.mbox_frame(BOX)
    assert list(frame.columns) == list(mbox.COLUMNS) and frame["text"].tolist() == [row[3] for row in rows]
    assert engine.mbox_frame(BOX, nrows=1)["subject"].tolist() == ["Café hours"]


@pytest.mark.parametrize("text", ["Dear all,\nFrom alice@x Mon\nFrom: a\n", "From alice@x Mon\nnot a header\n",
                                  "From alice@x Mon\n"])
def test_a_file_that_is_not_a_mailbox_is_refused_with_what_it_starts_with(text):
    with pytest.raises(CorpusFormatError, match="is not an mbox file: it must start with a separator line"):
        engine.mbox_frame(text, "'box.mbox'")


def test_an_empty_mailbox_is_refused():
    for text in ("", "\n\n  \n"):
        with pytest.raises(EmptyCorpusError, match="holds no messages"):
            engine.mbox_frame(text)


def test_a_malformed_header_keeps_its_raw_values():
    text = "From x Mon\nFrom: a@b\nSubject: =?bogus-charset?q?=ZZ?=\nDate: not a date\n\nbody"
    subject, sender, date, _ = next(engine.mbox_rows(text.split("\n")))
    assert sender == "a@b" and date == "not a date" and subject  # never raises, never empty


def test_a_mailbox_is_a_table_its_corpus_reads_as_messages(tmp_path):
    path = tmp_path / "list.mbox"
    path.write_bytes(data.mailbox(24))
    documents = engine.read_table(path, "text")
    assert len(documents) == 24 and documents[1].title == "Re: note 1"  # the subjects are the titles
    assert documents[0].text.startswith("Path: news.example.edu") and "\nFrom the start of spring." in documents[0].text
    assert engine.read_table(path, "text", "from")[0].title == "poster0@example.edu (Poster 0)"
    corpus = engine.load_corpus(path)
    assert corpus.vectorizer.strip_messages and corpus.n_docs == 24
    assert {"planet", "spring", "note"} <= set(corpus.vocabulary)
    assert not data.MESSAGE_WORDS & set(corpus.vocabulary)
    disk = DiskCorpus.from_texts(path, tmp_path / "disk")
    assert disk.vectorizer == corpus.vectorizer and disk.vocabulary == corpus.vocabulary
    assert (disk.counts[:] != corpus.counts).nnz == 0 and disk.n_docs == 24
    small = DiskCorpus.from_texts(path, tmp_path / "small", chunk_size=5, id_column="subject")  # chunks of 5
    assert small.doc_ids[:2] == ("Re: note 0", "Re: note 1") and (small.counts[:] != corpus.counts).nnz == 0
    whole = Corpus.from_documents(documents, strip_messages=False)
    assert set(whole.vocabulary) >= data.MESSAGE_WORDS


def test_the_streamed_mailbox_says_what_is_wrong(tmp_path):
    path = tmp_path / "list.mbox"
    path.write_bytes(data.mailbox(6))
    with pytest.raises(MissingColumnError, match=r"no column 'body'.*available columns: 'subject', 'from'"):
        DiskCorpus.from_texts(path, tmp_path / "a", text_column="body")
    with pytest.raises(CorpusFormatError, match="repeats the id"):
        DiskCorpus.from_texts(_repeated(tmp_path), tmp_path / "b", id_column="subject")
    (tmp_path / "bad.mbox").write_text("Hello\nworld\n", encoding="utf-8")
    with pytest.raises(CorpusFormatError, match=r"'.*bad\.mbox' is not an mbox file"):
        DiskCorpus.from_texts(tmp_path / "bad.mbox", tmp_path / "c")
    assert not (tmp_path / "c").exists()  # nothing half-written


def _repeated(tmp_path):
    path = tmp_path / "twice.mbox"
    path.write_bytes(data.mailbox(3) + data.mailbox(3))  # the same subjects twice
    return path
