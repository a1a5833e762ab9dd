"""E-mail and newsgroup messages read as their senders wrote them: engine/data/messages.py and ``strip_messages``."""

from __future__ import annotations

import base64
import json
import re
import time
from email.message import EmailMessage

import numpy as np
import pytest

import engine
from engine import Corpus, DiskCorpus, Vectorizer
from engine.data import messages
from engine.data.messages import holds_messages, is_message, message_text

POST = """Path: cantaloupe.srv.cs.cmu.edu!crabapple.srv.cs.cmu.edu!europa.eng.gtefsd.com
From: strom@watson.ibm.com (Rob Strom)
Newsgroups: sci.space
Subject: Re: Re: Lunar base costs
Message-ID: <1993Apr05.174537.14962@watson.ibm.com>
References: <16BA8C146.I3150101@dbstu1.rz.tu-bs.de>
 <1993Apr01.184110.33851@watson.ibm.com>
Date: Tue, 6 Apr 1993 12:44:38 GMT
Lines: 14

In article <16BA8C146.I3150101@dbstu1.rz.tu-bs.de>,
henry@zoo.toronto.edu (Henry Spencer) writes:
>A base on the moon would cost
>> far more than a station.

The station budget covers
the lunar lander too.
|> an older quote
Cheers, Rob
--
Rob Strom, strom@watson.ibm.com
IBM Research, Yorktown Heights
"""


def words(text: str) -> list[str]:
    return re.findall(r"\S+", text)


def test_a_post_keeps_its_subject_and_what_its_sender_wrote():
    assert message_text(POST) == ("Lunar base costs\n\nThe station budget covers\nthe lunar lander too.\n"
                                  "Cheers, Rob")
    assert is_message(POST)


def test_the_header_block_is_all_that_goes_when_nothing_is_quoted():
    text = "From: a@b.org\nTo: c@d.org\nDate: Mon, 1 Jan 2024 00:00:00 +0000\n\nFirst line.\n\nSecond: a colon.\n"
    assert message_text(text) == "First line.\n\nSecond: a colon."  # no subject: the body alone


@pytest.mark.parametrize("text", [
    "plain text", "", "Title: A report\nAuthor: Someone\n\nBody text.",  # fields no mail system writes
    "Subject: only one mail field\n\nbody",  # fewer than MIN_FIELDS
    "From: a@b\nSubject: x\nnot a header line\n\nbody",  # a line inside the block that is no header
    " From: a@b\nSubject: x\n\nbody",  # starts with a continuation
    "Note: From: a@b\n\nSubject: x",  # the second field is after the blank line
    "From here on we go.\nIt was a long day.\n\nThe end.",  # a sentence, not a mailbox separator
])
def test_a_text_that_is_not_a_message_is_read_as_it_is(text):
    assert not is_message(text)
    assert message_text(text) is text


def test_header_lines_are_recognised_by_their_field_names():
    assert is_message("FROM: a@b\nsubject: x\n\nbody")  # field names in any case
    assert is_message("From: a@b\nX-Spam-Score: 0.1\nSubject: x")  # other fields may sit among them; no body
    assert message_text("From: a@b\nX-Spam-Score: 0.1\nSubject: x") == "x"
    assert message_text("From: a@b\r\nSubject: s\r\n\r\nline one\r\nline two\r\n") == "s\n\nline one\nline two"
    long = "From: a@b\nSubject: x\nReferences: " + "<id@host> " * 400 + "\n\nbody"  # 4,000 characters
    assert not is_message(long) and message_text(long) is long  # no header line is that long
    many = "From: a@b\nSubject: x\n" + "X-Field: 1\n" * messages.MAX_HEADER_LINES + "\nbody"
    assert not is_message(many)


def test_a_mailbox_separator_line_may_come_first():
    text = "From alice@example.org Mon Jan  1 00:00:00 2024\nFrom: Alice <alice@example.org>\nSubject: Hi\n\nHello."
    assert is_message(text) and message_text(text) == "Hi\n\nHello."


@pytest.mark.parametrize("attribution", [
    "On Mon, 1 Jan 2024, Alice <alice@example.org> wrote:",
    "Alice Smith schrieb:",
    "In article <abc@host>, bob@host (Bob) writes:",
    "In article <abc@host>,\nbob@host (Bob) writes:",
])
def test_the_short_paragraph_that_introduces_a_quote_goes_with_it(attribution):
    text = f"From: a@b\nSubject: s\n\nBefore.\n\n{attribution}\n\n> quoted\n> more\n\nAfter."
    assert message_text(text) == "s\n\nBefore.\n\n\nAfter."


@pytest.mark.parametrize("mark", [":", "|", "}", "#"])
def test_other_quoting_marks_count_right_after_an_attribution(mark):
    text = (f"From: a@b\nSubject: s\n\nbob@example.org (Bob) wrote:\n{mark} quoted one\n{mark}\n {mark} quoted two\n"
            f"\nMy answer.\n{mark} my own line\n")
    assert message_text(text) == f"s\n\nMy answer.\n{mark} my own line"  # after the quote: the sender's own


def test_a_table_or_a_code_comment_of_the_sender_is_kept():
    text = "From: a@b\nSubject: s\n\nThe plan:\n| step | cost |\n# set up\n: a note\n"
    assert message_text(text) == "s\n\nThe plan:\n| step | cost |\n# set up\n: a note"


def test_an_attribution_whose_quote_was_cut_goes():
    for attribution in ("In article <1@host>, bob@host (Bob) writes...", "In article <1@host>\nBob writes:",
                        "bob@example.org (Bob) writes:"):
        text = f"From: a@b\nSubject: s\n\n{attribution}\n\nMy answer."
        assert message_text(text) == "s\n\nMy answer."
    kept = "From: a@b\nSubject: s\n\nThe reviewer writes:\n\nMy answer."  # no address, no article: kept
    assert message_text(kept) == "s\n\nThe reviewer writes:\n\nMy answer."


def test_a_long_paragraph_ending_in_a_colon_is_kept():
    said = "One.\nTwo.\nThree.\nAnd then he said:"  # four lines: not an attribution
    text = f"From: a@b\nSubject: s\n\n{said}\n> quoted\n"
    assert message_text(text) == f"s\n\n{said}"
    kept = "From: a@b\nSubject: s\n\nThe rules are:\n1. one"  # no quote after it: kept
    assert message_text(kept) == "s\n\nThe rules are:\n1. one"


def test_a_forwarded_original_and_a_short_signature_go():
    text = ("From: a@b\nSubject: Fwd: notes\n\nSee below.\n\n-----Original Message-----\nFrom: c@d\nSubject: notes"
            "\n\nThe notes.")
    assert message_text(text) == "notes\n\nSee below."
    signed = "From: a@b\nSubject: s\n\nBody.\n--\nAlice\nExample Inc."
    assert message_text(signed) == "s\n\nBody."
    long_tail = "From: a@b\nSubject: s\n\nBody.\n-- \n" + "\n".join(f"line {i}" for i in range(20))
    assert message_text(long_tail).endswith("line 19")  # more than a signature: kept
    assert "-- " in message_text(long_tail)


def test_reply_and_forward_prefixes_leave_the_subject():
    for subject in ("Re: plan", "RE: Re: plan", "Fwd: plan", "AW: plan", "Re[2]: plan", "re : Fw: plan"):
        assert message_text(f"From: a@b\nSubject: {subject}\n\nx").startswith("plan\n")
    assert message_text("From: a@b\nSubject: Reader: plan\n\nx").startswith("Reader: plan\n")


def test_mime_messages_are_decoded():
    message = EmailMessage()
    message["From"], message["To"], message["Subject"] = "Zoë <z@example.org>", "y@example.org", "Café prices"
    message.set_content("Le café coûte plus cher.\n> cité\nMerci.\n", charset="utf-8", cte="base64")
    message.add_alternative("<html><body><p>HTML version</p></body></html>", subtype="html")
    message.add_attachment(b"\x00\x01binary", maintype="application", subtype="octet-stream", filename="a.bin")
    text = message.as_string()
    assert base64.b64encode("Le café".encode()).decode()[:8] in text  # the body is base64 in the file
    assert message_text(text) == "Café prices\n\nLe café coûte plus cher.\nMerci."
    html_only = EmailMessage()
    html_only["From"], html_only["Subject"] = "a@b", "=?utf-8?q?Caf=C3=A9?="
    html_only.set_content("<p>Only <b>HTML</b> here</p>", subtype="html", cte="quoted-printable")
    assert words(message_text(html_only.as_string())) == ["Café", "Only", "HTML", "here"]


@pytest.mark.parametrize(("header", "body"), [
    ("Content-Type: text/plain; charset=no-such-charset\nContent-Transfer-Encoding: base64", "@@@not base64@@@"),
    ("Content-Type: multipart/mixed; boundary=\"x\"", "--x\nContent-Type: text/plain\n\nunterminated"),
    ("Content-Type: text/plain; charset=utf-8\nContent-Transfer-Encoding: quoted-printable", "caf=C3=A9 =ZZ="),
    ("Content-Type: image/png", "iVBORw0KGgo="),
    ("Content-Type: text/plain; charset=\"=?utf-8?q?x?=\"\nSubject: =?bogus?q?=ZZ?=", "body"),
])
def test_broken_or_hostile_mime_never_raises(header, body):
    text = f"From: a@b\nTo: c@d\n{header}\n\n{body}"
    read = message_text(text)
    assert isinstance(read, str) and "Content-Type" not in read and "From:" not in read


def test_the_reading_takes_linear_time_on_hostile_text():
    head = "From: a@b\nSubject: s\n\n"
    hostile = [head + ">\n" * 100_000 + "x writes:\n" * 100_000 + "-- \n" * 100_000,
               head + "\n" * 100_000 + ">\n" * 100_000,  # each quote would look back over every blank line
               head + "line\nline\nline\nx writes:\n>\n" * 50_000]  # ... or over one long paragraph
    started = time.perf_counter()
    for text in hostile:
        message_text(text)
    holds_messages(hostile)
    assert time.perf_counter() - started < 5.0  # quadratic scans would take minutes


def test_the_report_counts_the_messages_and_the_words_they_lose():
    note = "a plain note about apples and pears"
    report = engine.messages_report([POST, note, POST])
    post_words = len(re.findall(r"[^\W\d_]{2,}", POST))  # runs of two letters or more, as documented
    kept_words = len(re.findall(r"[^\W\d_]{2,}", message_text(POST)))
    assert report == engine.MessagesReport(2, 2 * (post_words - kept_words), 2 * post_words + 6)  # "a" is no word
    assert kept_words == 13 and post_words > 60  # "Lunar base costs", then ten words of the sender's
    assert engine.messages_report([]) == (0, 0, 0) and engine.messages_report([note]) == (0, 0, 6)


def test_holds_messages_needs_a_tenth_of_the_documents():
    notes = [f"note {i} about apples" for i in range(90)]
    assert not holds_messages(notes)
    assert not holds_messages(notes + [POST] * 9)
    assert holds_messages(notes + [POST] * 10)
    assert not holds_messages([]) and not holds_messages(["", "  "])


def test_a_corpus_reads_messages_by_default_and_records_it():
    texts = [POST.replace("Lunar base costs", f"topic {i}") for i in range(5)] + ["plain note about a lander"]
    corpus = Corpus.from_texts(texts)
    assert corpus.vectorizer.strip_messages
    assert not {"cantaloupe", "watson", "ibm", "strom", "writes", "henry", "moon", "yorktown"} & set(corpus.vocabulary)
    assert {"station", "budget", "lunar", "lander", "note"} <= set(corpus.vocabulary)
    assert corpus.texts == tuple(texts)  # the texts are kept whole; only their reading changes
    whole = Corpus.from_texts(texts, strip_messages=False)
    assert not whole.vectorizer.strip_messages and {"cantaloupe", "watson", "moon"} <= set(whole.vocabulary)
    again = corpus.vectorizer.count(texts, corpus.vocabulary)  # new text is read the same way
    np.testing.assert_array_equal(again.counts.toarray(), corpus.counts.toarray())
    assert engine.guess_language(texts).messages and not engine.guess_language(["plain text"] * 5).messages
    with pytest.raises(TypeError, match="strip_messages"):
        Corpus.from_texts(texts, strip_messages="yes")


def test_the_setting_is_stored_and_older_files_read_false(tmp_path):
    vectorizer = Vectorizer(strip_messages=True)
    assert Vectorizer.from_dict(json.loads(json.dumps(vectorizer.to_dict()))) == vectorizer
    older = {key: value for key, value in vectorizer.to_dict().items() if key != "strip_messages"}
    assert Vectorizer.from_dict(older).strip_messages is False
    with pytest.raises(TypeError, match="strip_messages"):
        Vectorizer(strip_messages="yes")
    corpus = Corpus.from_texts([POST] * 3 + ["a plain lander note"])
    loaded = Corpus.load(corpus.save(tmp_path / "saved"))
    assert loaded.vectorizer.strip_messages and loaded.vocabulary == corpus.vocabulary


def test_a_disk_corpus_reads_messages_as_the_corpus_does(tmp_path):
    folder = tmp_path / "mail"
    folder.mkdir()
    texts = [POST.replace("budget", f"budget{chr(97 + i)}") for i in range(6)] + ["a plain lander note"]
    for i, text in enumerate(texts):
        (folder / f"{i}.eml").write_text(text, encoding="utf-8")
    disk = DiskCorpus.from_texts(folder, tmp_path / "disk")
    memory = Corpus.from_documents(engine.read_folder(folder))
    assert disk.vectorizer == memory.vectorizer and disk.vectorizer.strip_messages
    assert disk.vocabulary == memory.vocabulary and (disk.counts[:] != memory.counts).nnz == 0
    kept = DiskCorpus.from_texts(folder, tmp_path / "kept", strip_messages=False)
    assert not kept.vectorizer.strip_messages and "cantaloupe" in kept.vocabulary
