"""``svi-topics infer`` (engine/io/infer_command.py) and ``fit --stop-words/--keep-accents``."""

from __future__ import annotations

import csv
import dataclasses
import io
import re
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import engine
from engine import LDA, load_model, save_model
from engine.cli import main
from tests.engine._made_up import notes_with_own_words

OLD_FORMAT_FILE = Path(__file__).parent / "data" / "model_format1.npz"  # no preprocessing recorded

FRENCH = [
    "Le chat et la souris dans la grange.",
    "Une pêche et un péché au marché.",
    "Le marché du chat; la pêche du jour.",
    "La souris mange une pêche.",
    "Les chats du marché et la grange.",
]


@pytest.fixture
def french_model(tmp_path, capsys):
    table = tmp_path / "fr.csv"
    with table.open("w", newline="", encoding="utf-8") as file:
        writer = csv.writer(file)
        writer.writerow(["text"])
        writer.writerows([text] for text in FRENCH)
    out = tmp_path / "fr.npz"
    assert main(["fit", str(table), "--topics", "2", "--stop-words", "french", "--keep-accents", "--test-docs", "0",
                 "--out", str(out), "--no-progress"]) == 0
    capsys.readouterr()
    return out


def _rows(text: str) -> list[dict]:
    return list(csv.DictReader(io.StringIO(text)))


def test_fit_records_the_language_and_accents_and_infer_uses_them(french_model, capsys):
    loaded = load_model(french_model)
    assert {"pêche", "péché", "marché"} <= set(loaded.vocabulary)
    assert not {"le", "la", "et", "du", "une"} & set(loaded.vocabulary)
    assert (loaded.model.vectorizer_.stop_words, loaded.model.vectorizer_.strip_accents) == ("french", False)
    assert main(["infer", str(french_model), "--text", FRENCH[1], "--text", "zèbre girafe"]) == 0
    captured = capsys.readouterr()
    rows = _rows(captured.out)
    assert list(rows[0]) == ["document", "known_words", "unknown_words", "topic_0", "topic_1"]
    assert [(r["document"], r["known_words"], r["unknown_words"]) for r in rows] == [("0", "3", "0"), ("1", "0", "2")]
    expected = loaded.model.transform_texts([FRENCH[1]])[0]
    np.testing.assert_allclose([float(rows[0]["topic_0"]), float(rows[0]["topic_1"])], expected, rtol=1e-5)
    assert "document 1 has no word of the model's vocabulary" in captured.err


def test_infer_reads_one_document_per_line(french_model, tmp_path, capsys):
    lines = tmp_path / "new.txt"
    lines.write_text("la pêche\n\n   \nle chat et la souris\n", encoding="utf-8")
    assert main(["infer", str(french_model), "--file", str(lines)]) == 0
    rows = _rows(capsys.readouterr().out)
    assert [(r["document"], r["known_words"]) for r in rows] == [("0", "1"), ("1", "2")]  # blank lines skipped


def test_infer_explains_what_is_wrong(french_model, tmp_path, capsys):
    assert main(["infer", str(french_model), "--file", str(tmp_path / "missing.txt")]) == 2
    assert "is not a file" in capsys.readouterr().err
    empty = tmp_path / "empty.txt"
    empty.write_text("\n\n", encoding="utf-8")
    assert main(["infer", str(french_model), "--file", str(empty)]) == 2
    assert "has no text" in capsys.readouterr().err
    model = LDA(n_topics=2, seed=0).fit(np.eye(3, dtype=int) + 1)
    bare = save_model(tmp_path / "bare.npz", model)
    assert main(["infer", str(bare), "--text", "cat"]) == 2
    assert "holds no vocabulary" in capsys.readouterr().err


def test_infer_on_a_file_without_preprocessing_uses_the_defaults(capsys):
    assert main(["infer", str(OLD_FORMAT_FILE), "--text", "the cat"]) == 0
    captured = capsys.readouterr()
    assert "using the defaults" in captured.err
    assert _rows(captured.out)[0]["unknown_words"] == "1"  # "cat"; "the" is an English stop word


def test_an_unknown_stop_word_language_lists_the_choices(tmp_path, capsys):
    with pytest.raises(SystemExit) as exit_info:
        main(["fit", str(tmp_path), "--stop-words", "klingon"])
    assert exit_info.value.code == 2
    err = capsys.readouterr().err
    assert "unknown language 'klingon'" in err and "french" in err and "german" in err


def test_infer_streams_the_file_in_blocks_within_its_limits(french_model, tmp_path, capsys, monkeypatch):
    """Rows are written a block at a time; documents, line length and input size are bounded."""
    from engine.io import infer_command

    lines = tmp_path / "many.txt"
    lines.write_text("\n".join(FRENCH * 3) + "\n", encoding="utf-8")
    assert main(["infer", str(french_model), "--file", str(lines)]) == 0
    whole = capsys.readouterr().out
    for encoding in ("utf-16", "windows-1252"):
        other = tmp_path / f"{encoding}.txt"
        other.write_text("\n".join(FRENCH) + "\n", encoding=encoding)
        assert main(["infer", str(french_model), "--file", str(other)]) == 0
        assert _rows(capsys.readouterr().out) == _rows(whole)[:5]

    monkeypatch.setattr(infer_command, "_CHUNK_DOCUMENTS", 2)
    monkeypatch.setattr(infer_command, "_HEAD_BYTES", 7)
    assert main(["infer", str(french_model), "--file", str(lines)]) == 0
    assert capsys.readouterr().out == whole and len(_rows(whole)) == 15

    monkeypatch.setenv("SVI_TOPICS_MAX_DOCUMENTS", "14")
    assert main(["infer", str(french_model), "--file", str(lines)]) == 2
    assert "SVI_TOPICS_MAX_DOCUMENTS" in capsys.readouterr().err
    monkeypatch.delenv("SVI_TOPICS_MAX_DOCUMENTS")
    assert main(["infer", str(french_model), "--file", str(lines), "--max-document-mb", "0.00002"]) == 2
    assert "line 1 of 'many.txt' is longer than 20 characters (--max-document-mb 2e-05)" in capsys.readouterr().err
    assert main(["infer", str(french_model), "--file", str(lines), "--max-input-mb", "0.0002"]) == 2
    assert "larger than --max-input-mb" in capsys.readouterr().err
    monkeypatch.setattr("sys.stdin", io.TextIOWrapper(io.BytesIO("\n".join(FRENCH * 3).encode("utf-8"))))
    assert main(["infer", str(french_model), "--file", "-"]) == 0
    assert capsys.readouterr().out == whole


GERMAN = [
    "Der Hund und die Katze schlafen in der Scheune, weil es draußen regnet.",
    "Die Katze fängt eine Maus in der Scheune und der Hund bellt.",
    "Auf dem Markt kauft die Bäuerin einen Korb mit Äpfeln und Birnen.",
    "Der Bauer bringt die Äpfel und die Birnen mit dem Wagen zum Markt.",
    "Im Winter schläft der Hund neben dem Ofen, und die Katze auch.",
    "Der Markt ist am Samstag voll, und die Bäuerin verkauft alle Äpfel.",
]


@pytest.fixture
def german_folder(tmp_path):
    folder = tmp_path / "texte"
    folder.mkdir()
    for i, text in enumerate(GERMAN):
        (folder / f"dok{i}.txt").write_text(text, encoding="utf-8")
    return folder


def test_fit_guesses_the_stop_words_language_and_records_it(german_folder, tmp_path, capsys):
    out = tmp_path / "de.npz"
    assert main(["fit", str(german_folder), "--topics", "2", "--epochs", "1", "--test-docs", "0", "--out", str(out),
                 "--no-progress"]) == 0
    assert "german stop words (guessed from the texts), accents kept" in capsys.readouterr().err
    loaded = load_model(out)
    assert loaded.model.vectorizer_.stop_words == "german" and loaded.extra["cli"]["stop_words"] == "german"
    assert loaded.model.vectorizer_.strip_accents is False and loaded.extra["cli"]["strip_accents"] is False
    assert {"bäuerin", "äpfel"} <= set(loaded.vocabulary)  # as written, as the app reads German
    assert not {"der", "die", "und", "mit"} & set(loaded.vocabulary)
    assert main(["fit", str(german_folder), "--topics", "2", "--epochs", "1", "--test-docs", "0", "--out", str(out),
                 "--no-progress", "--stop-words", "english"]) == 0
    err = capsys.readouterr().err
    assert "english stop words" in err and "guessed" not in err and "accents kept" not in err
    assert {"der", "die", "und", "bauerin"} <= set(load_model(out).vocabulary)


def test_fit_guesses_both_languages_of_a_mixed_folder(tmp_path, capsys):
    from tests.engine.test_language import TEXTS

    folder = tmp_path / "mixed"
    folder.mkdir()
    for i in range(25):  # 20 German documents and 5 English ones
        (folder / f"{i}.txt").write_text(TEXTS["german" if i % 5 else "english"] + f" Nummer {i}.", encoding="utf-8")
    out = tmp_path / "mixed.npz"
    assert main(["fit", str(folder), "--topics", "2", "--epochs", "1", "--test-docs", "0", "--out", str(out),
                 "--no-progress"]) == 0
    assert "german+english stop words (guessed from the texts), accents kept" in capsys.readouterr().err
    loaded = load_model(out)
    assert loaded.extra["cli"]["stop_words"] == loaded.model.vectorizer_.stop_words == "german+english"
    assert {"brücke", "bridge", "committee", "ausschuss"} <= set(loaded.vocabulary)
    assert not {"der", "und", "the", "and", "that"} & set(loaded.vocabulary)
    with pytest.raises(SystemExit):
        main(["fit", str(folder), "--stop-words", "english+klingon"])
    assert "several joined by '+'" in capsys.readouterr().err


def test_fit_leaves_out_the_markup_of_web_pages_unless_asked(tmp_path, capsys):
    from tests.engine.test_language import TEXTS

    folder = tmp_path / "site"
    folder.mkdir()
    for i, language in enumerate(["english", "german", "french", "spanish"] * 2):
        page = (f"<html><head><title>Seite {i}</title><style>td {{ color: red }}</style></head><body>"
                f"<table><tr><td class='cell'>{TEXTS[language]}</td></tr></table></body></html>")
        (folder / f"page{i}.html").write_text(page, encoding="utf-8")
    out = tmp_path / "site.npz"
    assert main(["fit", str(folder), "--topics", "2", "--epochs", "1", "--test-docs", "0", "--out", str(out),
                 "--no-progress", "--stop-words", "none"]) == 0
    assert "HTML/XML markup left out" in capsys.readouterr().err
    loaded = load_model(out)
    assert loaded.extra["cli"]["strip_markup"] is True and loaded.model.vectorizer_.strip_markup is True
    assert not {"td", "tr", "class", "cell", "color", "red", "html"} & set(loaded.vocabulary)
    assert {"bridge", "brucke", "pont", "puente"} <= set(loaded.vocabulary)  # no stop words: accents stripped
    assert main(["fit", str(folder), "--topics", "2", "--epochs", "1", "--test-docs", "0", "--out", str(out),
                 "--no-progress", "--stop-words", "none", "--keep-markup"]) == 0
    assert "markup left out" not in capsys.readouterr().err
    assert {"td", "class", "cell"} <= set(load_model(out).vocabulary)


def test_fit_leaves_out_repeated_footers_unless_asked(tmp_path, capsys):
    from tests.engine.test_language import TEXTS

    footer = ("You receive this letter because you subscribed to the parish newsletter.\n"
              "Write to the editor to unsubscribe or to change your address.")
    folder = tmp_path / "letters"
    folder.mkdir()
    for i in range(12):
        body = (TEXTS["english"] if i % 2 else TEXTS["german"]) + f" Number {i}."  # each letter its own
        (folder / f"{i}.txt").write_text(f"Letter {i}\n{body}\n\n{footer}\n", encoding="utf-8")
    out = tmp_path / "letters.npz"
    assert main(["fit", str(folder), "--topics", "2", "--epochs", "1", "--test-docs", "0", "--out", str(out),
                 "--no-progress", "--stop-words", "none"]) == 0
    err = capsys.readouterr().err
    loaded = load_model(out)
    texts = [(folder / f"{i}.txt").read_text(encoding="utf-8") for i in range(12)]
    words = sum(len(re.findall(r"(?u)\b[^\W\d_]{2,}\b", text)) for text in texts)
    footer_words = len(re.findall(r"(?u)\b[^\W\d_]{2,}\b", footer))
    assert (f"; boilerplate left out: {12 * footer_words / words:.1%} of the words, 12 documents, 1 distinct block "
            "of repeated lines") in err
    assert loaded.extra["cli"]["strip_boilerplate"] is True
    assert loaded.model.vectorizer_.boilerplate == tuple(sorted(footer.splitlines()))
    assert not {"parish", "newsletter", "unsubscribe", "editor"} & set(loaded.vocabulary)
    assert {"bridge", "brucke", "letter"} <= set(loaded.vocabulary)
    assert main(["fit", str(folder), "--topics", "2", "--epochs", "1", "--test-docs", "0", "--out", str(out),
                 "--no-progress", "--stop-words", "none", "--keep-boilerplate"]) == 0
    assert "boilerplate" not in capsys.readouterr().err
    kept = load_model(out)
    assert {"parish", "newsletter", "unsubscribe"} <= set(kept.vocabulary)
    assert kept.extra["cli"]["strip_boilerplate"] is False and kept.model.vectorizer_.boilerplate == ()


def test_fit_reads_word_pairs_as_one_word_when_asked_and_a_resumed_run_reads_them_again(tmp_path, capsys):
    from tests.engine.test_phrases import planted_texts

    table = tmp_path / "notes.csv"
    pd.DataFrame({"text": planted_texts()}).to_csv(table, index=False)
    out, checkpoint = tmp_path / "notes.npz", tmp_path / "ck.npz"
    common = ["--topics", "2", "--no-progress", "--max-df", "1.0", "--out", str(out)]
    assert main(["fit", str(table), *common, "--epochs", "1", "--phrases", "--checkpoint", str(checkpoint)]) == 0
    assert "; 1 phrase read as one word (health care)" in capsys.readouterr().err
    loaded = load_model(out)
    assert loaded.extra["cli"]["join_phrases"] is True and loaded.model.vectorizer_.phrases == ("health care",)
    assert "health care" in loaded.vocabulary
    assert main(["fit", str(table), "--no-progress", "--max-df", "1.0", "--out", str(out), "--epochs", "2",
                 "--resume", str(checkpoint)]) == 0
    assert "; 1 phrase read as one word (health care)" in capsys.readouterr().err  # the words it trained on
    assert main(["fit", str(table), *common, "--epochs", "1"]) == 0
    assert "read as one word" not in capsys.readouterr().err
    plain = load_model(out)
    assert plain.extra["cli"]["join_phrases"] is False and "health care" not in plain.vocabulary


def test_fit_counts_a_words_forms_as_one_word_unless_asked_and_a_resumed_run_as_it_was(tmp_path, capsys):
    from tests.engine.test_word_forms import TEXTS

    table = tmp_path / "notes.csv"
    pd.DataFrame({"text": TEXTS}).to_csv(table, index=False)
    out, checkpoint = tmp_path / "notes.npz", tmp_path / "ck.npz"
    common = ["--topics", "2", "--no-progress", "--max-df", "1.0", "--out", str(out)]
    assert main(["fit", str(table), *common, "--epochs", "1", "--checkpoint", str(checkpoint)]) == 0
    message = capsys.readouterr().err
    assert "forms counted as another word (" in message and "taxes: tax" in message and "rivers: river" in message
    loaded = load_model(out)
    assert loaded.extra["cli"]["merge_word_forms"] is True
    assert dict(loaded.model.vectorizer_.word_forms)["tax"] == "taxes"
    assert "taxes" in loaded.vocabulary and "tax" not in loaded.vocabulary
    assert main(["fit", str(table), "--no-progress", "--max-df", "1.0", "--out", str(out), "--epochs", "2",
                 "--resume", str(checkpoint)]) == 0
    assert "taxes: tax" in capsys.readouterr().err  # the words it trained on
    assert main(["fit", str(table), *common, "--epochs", "1", "--keep-word-forms", "--checkpoint",
                 str(checkpoint)]) == 0
    assert "counted as another word" not in capsys.readouterr().err
    plain = load_model(out)
    assert plain.extra["cli"]["merge_word_forms"] is False and "tax" in plain.vocabulary
    assert main(["fit", str(table), "--no-progress", "--max-df", "1.0", "--out", str(out), "--epochs", "2",
                 "--resume", str(checkpoint)]) == 0
    assert "counted as another word" not in capsys.readouterr().err and "tax" in load_model(out).vocabulary
    assert main(["fit", str(table), *common, "--epochs", "1", "--stop-words", "chinese"]) == 0
    assert "; the forms of chinese words are not known: each is counted as written" in capsys.readouterr().err


def test_fit_reads_a_mailbox_as_what_its_senders_wrote_unless_asked(tmp_path, capsys):
    from tests.explorer import uploads_data as data

    box = tmp_path / "list.mbox"
    box.write_bytes(data.mailbox(24))
    out = tmp_path / "list.npz"
    common = ["--topics", "2", "--epochs", "1", "--test-docs", "0", "--out", str(out), "--no-progress",
              "--max-df", "1.0"]
    assert main(["fit", str(box), *common]) == 0
    read = engine.messages_report(engine.mbox_frame(box.read_text(encoding="utf-8"))["text"].tolist())
    assert read.messages == 24 and 0 < read.words_removed < read.words
    assert (f"; 24 e-mail messages read without their headers, quoted replies and signatures "
            f"({read.words_removed / read.words:.1%} of the words)") in capsys.readouterr().err
    loaded = load_model(out)
    assert loaded.extra["cli"]["strip_messages"] is True and loaded.model.vectorizer_.strip_messages is True
    assert "planet" in loaded.vocabulary and not data.MESSAGE_WORDS & set(loaded.vocabulary)
    assert main(["fit", str(box), *common, "--keep-headers"]) == 0
    assert "e-mail messages" not in capsys.readouterr().err
    kept = load_model(out)
    assert kept.extra["cli"]["strip_messages"] is False and set(kept.vocabulary) >= data.MESSAGE_WORDS


def test_fit_cuts_a_long_text_into_passages_when_asked_and_a_resumed_run_reads_them_again(tmp_path, capsys):
    from tests.explorer import uploads_data as data

    book = tmp_path / "book.txt"
    book.write_text(data.book(), encoding="utf-8")
    out, checkpoint = tmp_path / "book.npz", tmp_path / "ck.npz"
    common = ["--topics", "3", "--no-progress", "--max-df", "1.0"]
    assert main(["fit", str(book), *common, "--epochs", "1", "--passages", "300", "--out", str(out),
                 "--checkpoint", str(checkpoint)]) == 0
    assert "corpus: 15 documents" in capsys.readouterr().err
    loaded = load_model(out)
    assert loaded.extra["cli"]["passage_words"] == 300 and loaded.extra["cli"]["test_docs"] == 1
    assert main(["fit", str(book), "--no-progress", "--max-df", "1.0", "--epochs", "2", "--resume", str(checkpoint),
                 "--out", str(out)]) == 0
    assert "corpus: 15 documents" in capsys.readouterr().err  # the passages it trained on, again
    assert main(["fit", str(book), *common, "--epochs", "1", "--out", str(out)]) == 0
    assert "corpus: 1 documents" in capsys.readouterr().err and load_model(out).extra["cli"]["passage_words"] is None
    assert main(["fit", str(book), "--passages", "0", "--out", str(out)]) == 2
    assert "--passages must be a number of words, 1 or more" in capsys.readouterr().err


def test_fit_reads_chinese_as_pairs_of_characters_and_says_so(tmp_path, capsys):
    from tests.engine.test_unicode_tokens import CHINESE

    folder = tmp_path / "zh"
    folder.mkdir()
    for i, text in enumerate(CHINESE):
        (folder / f"{i}.txt").write_text(text, encoding="utf-8")
    out = tmp_path / "zh.npz"
    assert main(["fit", str(folder), "--topics", "2", "--epochs", "1", "--test-docs", "0", "--out", str(out),
                 "--no-progress"]) == 0
    assert "read with UNICODE_TOKEN_PATTERN" in capsys.readouterr().err
    loaded = load_model(out)
    assert loaded.model.vectorizer_.token_pattern == engine.UNICODE_TOKEN_PATTERN
    assert {"文件", "管理", "内核"} <= set(loaded.vocabulary)


def test_a_resumed_run_reads_its_text_with_the_checkpoints_stop_words(german_folder, tmp_path, capsys, monkeypatch):
    """A checkpoint records the language; one made before the guess existed (no record) was read in English."""
    checkpoint = tmp_path / "ck.npz"
    common = ["--topics", "2", "--test-docs", "0", "--no-progress"]
    assert main(["fit", str(german_folder), "--epochs", "1", "--checkpoint", str(checkpoint), "--out",
                 str(tmp_path / "a.npz"), "--stop-words", "english", *common]) == 0
    assert main(["fit", str(german_folder), "--resume", str(checkpoint), "--epochs", "2", "--out",
                 str(tmp_path / "b.npz"), "--no-progress"]) == 0
    assert load_model(tmp_path / "b.npz").model.vectorizer_.stop_words == "english"  # as recorded, not guessed
    monkeypatch.setattr("engine.cli.STOP_WORDS_KEY", "not recorded")  # a checkpoint of an older version
    assert main(["fit", str(german_folder), "--epochs", "1", "--checkpoint", str(checkpoint), "--out",
                 str(tmp_path / "c.npz"), "--stop-words", "english", *common]) == 0
    monkeypatch.undo()
    assert "stop_words" not in load_model(checkpoint).extra["cli"]
    assert main(["fit", str(german_folder), "--resume", str(checkpoint), "--epochs", "2", "--out",
                 str(tmp_path / "d.npz"), "--no-progress"]) == 0
    assert load_model(tmp_path / "d.npz").model.vectorizer_.stop_words == "english"
    capsys.readouterr()


def test_a_resumed_run_reads_its_text_with_the_checkpoints_accents(german_folder, tmp_path, capsys, monkeypatch):
    """German read with its accents is resumed so; a checkpoint of a version that stripped them and did not
    record it is resumed stripped (else its vocabulary would not match)."""
    checkpoint = tmp_path / "ck.npz"
    common = ["--topics", "2", "--test-docs", "0", "--no-progress"]
    assert main(["fit", str(german_folder), "--epochs", "1", "--checkpoint", str(checkpoint), "--out",
                 str(tmp_path / "a.npz"), *common]) == 0
    assert main(["fit", str(german_folder), "--resume", str(checkpoint), "--epochs", "2", "--out",
                 str(tmp_path / "b.npz"), "--no-progress"]) == 0
    resumed = load_model(tmp_path / "b.npz")
    assert resumed.model.vectorizer_.strip_accents is False and "bäuerin" in resumed.vocabulary
    monkeypatch.setattr("engine.cli.STRIP_ACCENTS_KEY", "not recorded")  # an older version: stripped, unrecorded
    monkeypatch.setattr("engine.cli.AUTO_ACCENTS", True)
    assert main(["fit", str(german_folder), "--epochs", "1", "--checkpoint", str(checkpoint), "--out",
                 str(tmp_path / "c.npz"), *common]) == 0
    monkeypatch.undo()
    assert "strip_accents" not in load_model(checkpoint).extra["cli"]
    assert main(["fit", str(german_folder), "--resume", str(checkpoint), "--epochs", "2", "--out",
                 str(tmp_path / "d.npz"), "--no-progress"]) == 0
    old = load_model(tmp_path / "d.npz")
    assert old.model.vectorizer_.strip_accents is True and "bauerin" in old.vocabulary
    capsys.readouterr()


def test_counts_train_without_a_guess_and_refuse_stop_words(tmp_path, capsys):
    from engine import Corpus, write_uci

    write_uci(Corpus.from_texts(GERMAN, stop_words="german"), tmp_path / "docword.de.txt", tmp_path / "vocab.de.txt")
    out = tmp_path / "bow.npz"
    assert main(["fit", str(tmp_path / "docword.de.txt"), "--topics", "2", "--epochs", "1", "--test-docs", "0",
                 "--out", str(out), "--no-progress"]) == 0
    assert "stop words" not in capsys.readouterr().err
    assert "stop_words" not in load_model(out).extra["cli"]
    assert main(["fit", str(tmp_path / "docword.de.txt"), "--stop-words", "german", "--out", str(out)]) == 2
    assert "already a bag of words" in capsys.readouterr().err
    saved = Corpus.from_texts(GERMAN, stop_words="german").save(tmp_path / "saved")  # counts that remember the list
    assert main(["fit", str(saved), "--topics", "2", "--epochs", "1", "--test-docs", "0", "--out", str(out),
                 "--no-progress"]) == 0
    err = capsys.readouterr().err
    assert "german stop words" in err and "guessed" not in err  # read as saved, not guessed


def test_fit_reads_each_repeated_document_once_unless_asked_and_a_resumed_run_as_it_was(tmp_path, capsys):
    originals = [f"{first} {second} harbour lighthouse {i}" for i, (first, second) in enumerate(
        zip(["river", "mountain", "forest", "desert", "island", "valley"],
            ["boats", "goats", "trees", "camels", "ships", "farms"], strict=True))]
    texts = [*originals, originals[0], originals[0].upper() + "!", originals[1]]  # three copies of two documents
    table = tmp_path / "notes.csv"
    pd.DataFrame({"text": texts}).to_csv(table, index=False)
    out, checkpoint = tmp_path / "notes.npz", tmp_path / "ck.npz"
    common = ["--topics", "2", "--no-progress", "--max-df", "1.0", "--test-docs", "0", "--out", str(out)]
    assert main(["fit", str(table), *common, "--epochs", "1", "--checkpoint", str(checkpoint)]) == 0
    message = capsys.readouterr().err
    assert f"corpus: {len(originals)} documents" in message
    assert ("; 3 copies of other documents left out (the same words in the same order; --keep-copies keeps them)"
            in message)
    assert load_model(out).extra["cli"]["keep_copies"] is False
    assert main(["fit", str(table), "--no-progress", "--max-df", "1.0", "--out", str(out), "--epochs", "2",
                 "--resume", str(checkpoint)]) == 0
    assert f"corpus: {len(originals)} documents" in capsys.readouterr().err  # the documents it trained on
    assert main(["fit", str(table), *common, "--epochs", "1", "--keep-copies", "--checkpoint", str(checkpoint)]) == 0
    message = capsys.readouterr().err
    assert f"corpus: {len(texts)} documents" in message and "copies of other documents" not in message
    assert load_model(out).extra["cli"]["keep_copies"] is True
    assert main(["fit", str(table), "--no-progress", "--max-df", "1.0", "--out", str(out), "--epochs", "2",
                 "--resume", str(checkpoint)]) == 0
    assert f"corpus: {len(texts)} documents" in capsys.readouterr().err



def test_fit_leaves_near_copies_out_when_asked_and_a_resumed_run_as_it_was(tmp_path, capsys):
    """Six notes of 24 words, a revision of the first (one word changed: 15 of the 25 runs of five words in either
    are in both, 0.6) and a copy of it word for word: --near-copies 0.6 leaves both out and says so; a resumed run
    reads them as it did."""
    words = {i: [f"{w}{i}" for w in ("river", "boats", "harbour", "light", "tide", "storm")] for i in range(6)}
    originals = [" ".join(["the harbour board met and agreed the budget for the lighthouse after a long debate",
                           *words[i], "on the rocks"]) for i in range(6)]
    revised = originals[0].replace("agreed", "approved")
    table = tmp_path / "notes.csv"
    pd.DataFrame({"text": [*originals, revised, revised.upper()]}).to_csv(table, index=False)
    out, checkpoint = tmp_path / "notes.npz", tmp_path / "ck.npz"
    common = ["--topics", "2", "--no-progress", "--max-df", "1.0", "--test-docs", "0", "--out", str(out)]
    assert main(["fit", str(table), *common, "--epochs", "1", "--near-copies", "0.6", "--checkpoint",
                 str(checkpoint)]) == 0
    message = capsys.readouterr().err
    assert f"corpus: {len(originals)} documents" in message
    assert "; 1 copy of other documents left out" in message and "; 1 near-copy left out (--near-copies)" in message
    assert load_model(out).extra["cli"]["near_copies"] == 0.6
    assert main(["fit", str(table), "--no-progress", "--max-df", "1.0", "--out", str(out), "--epochs", "2",
                 "--resume", str(checkpoint)]) == 0
    assert "1 near-copy left out" in capsys.readouterr().err  # the documents it trained on
    assert main(["fit", str(table), *common, "--epochs", "1"]) == 0  # by default only copies word for word go
    assert f"corpus: {len(originals) + 1} documents" in capsys.readouterr().err
    for flags, says in ((["--near-copies", "1.5"], "--near-copies must be a share in (0, 1]"),
                        (["--near-copies", "--keep-copies"], "it cannot go with --keep-copies")):
        assert main(["fit", str(table), *common, *flags]) == 2
        assert says in capsys.readouterr().err

NOTES = ["The planet orbits a distant star; the rocket launch was delayed by the comet.",
         "Bake the bread in a hot oven with butter, flour and a pinch of salt.",
         "The team scored a late goal and the coach praised the players after the match.",
         "Voters elected a new mayor and the council passed the city budget.",
         "The river flooded the valley after a week of heavy rain and storms.",
         "Doctors tested a vaccine and the hospital opened a new clinic."]


def _notes_with_a_long_one(folder: Path) -> Path:
    """36 notes of three sample sentences each, and long.txt repeating two of them 80 times (about 60 % of the
    words)."""
    folder.mkdir()
    for a in range(6):
        for b in range(6):
            (folder / f"n{a}{b}.txt").write_text(f"{NOTES[a]} {NOTES[b]} {NOTES[(a + b) % 6]}", encoding="utf-8")
    (folder / "long.txt").write_text(" ".join([NOTES[0], NOTES[3]] * 80), encoding="utf-8")
    return folder


def test_fit_names_a_document_long_enough_to_fill_topics_and_leaves_it_out_when_asked(tmp_path, capsys):
    notes = _notes_with_a_long_one(tmp_path / "notes")
    out, checkpoint = tmp_path / "m.npz", tmp_path / "ck.npz"
    common = ["--topics", "5", "--no-progress", "--test-docs", "0", "--out", str(out), "--epochs", "20"]
    assert main(["fit", str(notes), *common]) == 0
    err = capsys.readouterr().err
    assert ("warning: 1 training document holds at least 10.0% of the words, half of what one of 5 topics holds on "
            "average: 'long' (") in err
    assert "it may fill topics of its own; --leave-out long.txt trains without it" in err
    flagged = re.search(r"take 50% or more of their words from one document, which they describe rather than a "
                        r"theme the documents share: topics? ([\d, ]+)\n  the document they come from: 'long' "
                        r"\((\d+) topics?\); --leave-out long.txt trains without it\n", err)
    assert flagged is not None, err
    assert len(flagged.group(1).split(", ")) == int(flagged.group(2)) >= 1
    assert main(["fit", str(notes), *common, "--leave-out", "long.txt", "--checkpoint", str(checkpoint)]) == 0
    err = capsys.readouterr().err
    assert "corpus: 36 documents" in err and "; 1 document left out (--leave-out)" in err
    assert "warning:" not in err and "from one document" not in err
    assert load_model(out).extra["cli"]["leave_out"] == ["long.txt"]
    assert main(["fit", str(notes), "--no-progress", "--out", str(out), "--epochs", "21", "--resume",
                 str(checkpoint)]) == 0
    assert "; 1 document left out (--leave-out)" in capsys.readouterr().err  # the documents it trained on
    # before an HDP run the rule reads K from the training documents (37: 3 topics) and names the long one too
    assert main(["fit", str(notes), "--model", "hdp", "--no-progress", "--test-docs", "0", "--out", str(out),
                 "--epochs", "1"]) == 0
    err = capsys.readouterr().err
    assert ("warning: 1 training document holds at least 16.7% of the words, half of what one of 3 topics would "
            "hold, as many as an HDP may use on 37 documents: 'long' (") in err
    assert "warning: the HDP trains on 37 documents sharing " in err  # under 500 documents, whatever their words
    assert "; on fewer than 500 documents or 20,000 such words it may leave most words in many near-identical" in err
    assert main(["fit", str(notes), *common, "--leave-out", "n00.txt", "--leave-out", "gone.txt"]) == 2
    assert ("--leave-out names 1 id(s) of no document: 'gone.txt'; a document's id is its file's path in the folder "
            "or archive read") in capsys.readouterr().err


def test_fit_warns_before_an_hdp_run_on_documents_holding_few_words(tmp_path, capsys):
    rows = pd.DataFrame({"text": notes_with_own_words(600)})
    rows.to_csv(tmp_path / "notes.csv", index=False)
    common = ["--test-docs", "0", "--no-progress", "--epochs", "1", "--out", str(tmp_path / "m.npz")]
    assert main(["fit", str(tmp_path / "notes.csv"), "--model", "hdp", *common]) == 0
    err = capsys.readouterr().err
    # 600 rows of eight of 75 made-up words, none a stop word and each in many rows, and a word of the row's own:
    # 4,800 words shared, the rows' own 600 not
    assert ("warning: the HDP trains on 600 documents sharing 4,800 words (those of words found in two or more of "
            "them); on fewer than 500 documents or 20,000 such words it may leave most words in many near-identical "
            "topics that repeat the collection's commonest words (`svi-topics topics` flags them); LDA with about 20 "
            "topics (--model lda --topics 20) may fit such collections better") in err
    assert main(["fit", str(tmp_path / "notes.csv"), "--topics", "5", *common]) == 0
    assert "the HDP trains on" not in capsys.readouterr().err  # LDA: no such warning


def test_fit_prints_hostile_titles_and_ids_escaped():
    """A title or id holding a terminal escape sequence or a line break is printed escaped; an id with a space is
    quoted for the shell, so the printed --leave-out flag can be pasted back."""
    from engine.io import topics_command

    documents = topics_command.TrainingDocuments(np.arange(3), ["a b.txt", "x\x1b[2J.txt", "c.txt"],
                                                 ["Long one", "evil\x1b[2J\nline", "it's"])
    quality = dataclasses.replace(
        engine.TopicQuality(np.array([0.5, 0.3, 0.2]), np.array([True, True, True]), None, False),
        main_document=np.array([0, 1, 2]), main_share=np.array([0.9, 0.8, 0.7]))
    lines = topics_command.one_document_lines(quality, documents)
    assert len(lines) == 1 and "\x1b" not in lines[0] and "\n" not in lines[0]
    assert "'Long one' (1 topic)" in lines[0] and "'evil\\x1b[2J\\nline' (1 topic)" in lines[0]
    assert '"it\'s" (1 topic)' in lines[0]
    assert "--leave-out 'a b.txt' --leave-out 'x\\x1b[2J.txt' --leave-out c.txt trains without them" in lines[0]


def test_fit_prints_a_skipped_file_whose_name_holds_an_escape_sequence_escaped(tmp_path, capsys):
    import zipfile

    archive = tmp_path / "notes.zip"
    with zipfile.ZipFile(archive, "w") as zipped:
        for i, note in enumerate(NOTES):
            zipped.writestr(f"n{i}.txt", f"{note} {NOTES[(i + 1) % 6]}")
        zipped.writestr("bad\x1b[2J.pdf", b"not a pdf at all")
    assert main(["fit", str(archive), "--topics", "2", "--epochs", "1", "--test-docs", "0", "--no-progress",
                 "--out", str(tmp_path / "m.npz")]) == 0
    err = capsys.readouterr().err
    assert "\x1b" not in err and "skipped bad\\x1b[2J.pdf: " in err
