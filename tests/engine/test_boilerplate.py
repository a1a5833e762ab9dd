"""Repeated lines (engine.find_boilerplate, remove_boilerplate) and how corpora and vectorizers record them."""

from __future__ import annotations

import itertools
import re

import numpy as np
import pytest

import engine
from engine.data import boilerplate as module

FOOTER = ("This letter is confidential and meant only for the people it is addressed to.\n"
          "If it reached you by mistake, please tell the sender and delete it.")
WORDS = ["river", "bridge", "winter", "council", "budget", "harvest", "school", "music", "garden", "railway",
         "station", "market", "doctor", "letter", "museum", "weather", "orchard"]


def _letters(n: int, with_footer: int, seed: int = 0) -> list[str]:
    """``n`` letters of two or three lines of distinct words; the first ``with_footer`` end with FOOTER."""
    rng = np.random.default_rng(seed)
    texts = []
    for i in range(n):
        body = "\n".join(" ".join(rng.choice(WORDS, 8)) + f" number {i} line {j}" for j in range(rng.integers(2, 4)))
        texts.append(f"{body}\n\n{FOOTER}" if i < with_footer else body)
    return texts


def test_a_footer_in_enough_documents_is_found_and_removed_exactly():
    texts = _letters(100, 10)
    lines = engine.find_boilerplate(texts)
    assert sorted(lines) == sorted(FOOTER.splitlines())
    for text in texts:
        body = text.split(FOOTER)[0].rstrip("\n")
        assert engine.remove_boilerplate(text, lines) == (body + "\n" if FOOTER in text else body)
    assert engine.find_boilerplate(_letters(100, 1)) == ()  # in fewer than MIN_DOCUMENTS
    assert engine.find_boilerplate(_letters(400, 7)) == ()  # 1.75 % of the documents: under MIN_SHARE
    assert sorted(engine.find_boilerplate(_letters(400, 8))) == sorted(FOOTER.splitlines())  # 2 %


def test_short_repeated_lines_refrains_and_one_line_documents_are_not_boilerplate():
    heading = "SEE ALSO"  # a common line of 2 words
    signature = "-- Mark Twain, in a letter"  # 5 words
    texts = [f"{body}\n{heading}\n{signature}" for body in _letters(50, 0)]
    assert engine.find_boilerplate(texts) == ()  # a run of 7 words: under MIN_WORDS
    refrain = "and the river runs down to the sea and the sea runs up to the river"
    songs = [f"{body}\n{refrain}\n{refrain}\n{refrain}" for body in _letters(3, 0)] + _letters(47, 0)
    assert engine.find_boilerplate(songs) == ()  # in three documents, however often in each
    one_line = ["the same notice repeated word for word in every single posting of the board"] * 40
    assert engine.find_boilerplate(one_line + _letters(10, 0)) == ()  # documents of one line are their own content


def test_blank_lines_inside_a_block_join_it_and_other_lines_end_it():
    first, second = FOOTER.splitlines()
    spaced = [f"{body}\n{first}\n\n   \n{second}" for body in _letters(20, 0)]
    assert sorted(engine.find_boilerplate(spaced)) == sorted([first, second])
    # the same two lines split by a line of each letter's own: two runs of 14 and 11 words, each a block
    split = [f"{first}\n{body}\n{second}" for body in _letters(20, 0)]
    assert sorted(engine.find_boilerplate(split)) == sorted([first, second])
    assert engine.find_boilerplate(split, min_words=15) == ()
    assert sorted(engine.find_boilerplate(spaced, min_words=25)) == sorted([first, second])  # 25 words together


def test_whitespace_is_collapsed_and_the_other_lines_are_kept_as_written():
    texts = [f"  Dear {name}, the river rose again overnight and the bridge is closed,\r\n"
             f"{FOOTER.replace(' ', '   ')}\t\r\nYours,  {name}" for name in ("Ann", "Bob", "Cy", "Di", "Ed", "Flo")]
    lines = engine.find_boilerplate(texts)
    assert sorted(lines) == sorted(FOOTER.splitlines())
    assert engine.remove_boilerplate(texts[0], lines) == ("  Dear Ann, the river rose again overnight and the bridge "
                                                         "is closed,\nYours,  Ann")


def test_a_document_made_only_of_boilerplate_keeps_its_text():
    texts = _letters(30, 10) + [FOOTER] * 3
    lines = engine.find_boilerplate(texts)
    assert engine.remove_boilerplate(FOOTER, lines) == FOOTER
    assert engine.remove_boilerplate("one line only", lines) == "one line only"
    assert engine.remove_boilerplate("", lines) == ""


def test_a_copy_under_another_title_keeps_its_body_unless_enough_words_are_left():
    """A syndicated article: the same body under six titles.  Cut, a copy must keep MIN_WORDS words of its own."""
    body = "\n".join(" ".join(WORDS[i:i + 6]) for i in range(0, 12, 3))  # 4 lines, 24 words
    short = [f"Gazette {name}\n{body}" for name in ("north", "south", "east", "west", "city", "valley")]
    lines = engine.find_boilerplate(short + _letters(30, 0))
    assert sorted(lines) == sorted(body.splitlines())
    assert [engine.remove_boilerplate(text, lines) for text in short] == short  # 2 words left: kept whole
    long = f"Gazette north, printed on Tuesday by the valley press for the readers\n{body}"
    assert engine.remove_boilerplate(long, lines) == long.splitlines()[0]  # 11 words left: the body goes
    line = " ".join(["river"] * 500)  # a line too long to compare still counts its words
    assert len(line) > module.MAX_LINE_CHARACTERS
    assert engine.remove_boilerplate(f"{line}\n{body}", lines) == line
    assert engine.boilerplate_report(short, lines).documents == 0
    assert module._find_and_remove(short + _letters(30, 0))[1][:6] == short


def _brute_force(texts: list[str], min_share: float, min_documents: int, min_words: int) -> set[str]:
    """The rule of the module's notes, written another way: groupby over each text's lines."""
    normal = [[" ".join(line.split()) for line in re.split(r"\r\n|\r|\n", text)] for text in texts]
    counted = [set(lines) - {""} for lines in normal]
    counted = [lines for lines in counted if len(lines) >= 2]
    common = {line for line in set().union(*counted)
              if sum(line in lines for lines in counted) >= max(min_documents, min_share * len(counted))}
    found = set()
    for lines in normal:
        if len([line for line in lines if line]) < 2:
            continue
        for inside, run in itertools.groupby(lines, key=lambda line: line == "" or line in common):
            run = [line for line in run if line]
            if inside and sum(len(re.findall(r"(?u)\b[^\W\d_]{2,}\b", line)) for line in run) >= min_words:
                found.update(run)
    return found


@pytest.mark.parametrize("seed", range(4))
def test_the_lines_found_match_a_brute_force_count(seed):
    rng = np.random.default_rng(seed)
    pool = [" ".join(rng.choice(WORDS, rng.integers(1, 9))) for _ in range(30)]  # lines of 1-8 words
    texts = []
    for _ in range(120):
        lines = [str(rng.choice(pool)) if rng.random() < 0.5 else f"own words {rng.integers(10**9)}"
                 for _ in range(rng.integers(1, 8))]
        texts.append("\n".join(line if rng.random() < 0.8 else "" for line in lines))
    for min_share, min_documents, min_words in ((0.02, 5, 10), (0.1, 3, 4), (0.0, 20, 1)):
        found = engine.find_boilerplate(texts, min_share, min_documents, min_words)
        assert set(found) == _brute_force(texts, min_share, min_documents, min_words)
        assert len(found) == len(set(found))
    assert engine.find_boilerplate(texts, 0.02, 5, 10)  # the draw holds boilerplate


def test_bad_settings_are_refused():
    with pytest.raises(ValueError, match="min_share"):
        engine.find_boilerplate(["a"], min_share=2)
    with pytest.raises(ValueError, match="at least 1"):
        engine.find_boilerplate(["a"], min_words=0)


# ------------------------------------------------------------------ corpora and vectorizers
def test_a_corpus_leaves_out_the_boilerplate_and_records_it():
    texts = _letters(60, 12)
    corpus = engine.Corpus.from_texts(texts)
    assert sorted(corpus.vectorizer.boilerplate) == sorted(FOOTER.splitlines())
    assert not {"confidential", "mistake", "sender", "delete"} & set(corpus.vocabulary)
    assert corpus.texts == tuple(texts)  # the texts themselves are kept whole
    # new text is read the same way: each training text's row again
    again = corpus.vectorizer.count(texts, corpus.vocabulary)
    assert (again.counts != corpus.counts).nnz == 0 and not again.unknown.any()
    kept = engine.Corpus.from_texts(texts, strip_boilerplate=False)
    assert kept.vectorizer.boilerplate == () and {"confidential", "sender"} <= set(kept.vocabulary)
    assert engine.Corpus.from_texts(_letters(60, 0)).vectorizer.boilerplate == ()
    with pytest.raises(TypeError, match="strip_boilerplate"):
        engine.Corpus.from_texts(texts, strip_boilerplate="auto")


def test_boilerplate_is_found_after_the_markup_is_removed():
    pages = [f"<html><body><p>{body}</p><div class='foot'>\n{FOOTER}\n</div></body></html>"
             for body in _letters(40, 0)]
    corpus = engine.Corpus.from_texts(pages)
    assert corpus.vectorizer.strip_markup
    assert sorted(corpus.vectorizer.boilerplate) == sorted(FOOTER.splitlines())
    assert "confidential" not in corpus.vocabulary and "river" in corpus.vocabulary


def test_an_on_disk_corpus_reads_as_the_corpus_in_memory(tmp_path):
    texts = _letters(60, 12, seed=3)
    folder = tmp_path / "letters"
    folder.mkdir()
    for i, text in enumerate(texts):
        (folder / f"{i:03d}.txt").write_text(text, encoding="utf-8")
    disk = engine.DiskCorpus.from_texts(folder, tmp_path / "disk")
    memory = engine.Corpus.from_texts(texts)
    assert disk.vectorizer.boilerplate == memory.vectorizer.boilerplate != ()
    assert list(disk.vocabulary) == list(memory.vocabulary)
    assert (disk.counts[:] != memory.counts).nnz == 0
    plain = engine.DiskCorpus.from_texts(folder, tmp_path / "plain", strip_boilerplate=False)
    assert plain.vectorizer.boilerplate == () and "confidential" in plain.vocabulary


def test_the_lines_are_stored_and_read_back_and_bad_ones_refused():
    lines = tuple(FOOTER.splitlines())
    vectorizer = engine.Vectorizer(boilerplate=lines)
    stored = vectorizer.to_dict()
    assert stored["boilerplate"] == list(lines)
    assert engine.Vectorizer.from_dict(stored) == vectorizer
    older = {key: value for key, value in stored.items() if key != "boilerplate"}  # a file from before
    assert engine.Vectorizer.from_dict(older).boilerplate == ()
    for bad, error in (("one string", TypeError), ([""], ValueError), (["two\nlines"], ValueError),
                       (["  padded"], ValueError), ([lines[0], lines[0]], ValueError), ([3], ValueError),
                       (["x" * (module.MAX_LINE_CHARACTERS + 1)], ValueError),
                       ([f"line {i}" for i in range(module.MAX_LINES + 1)], ValueError),
                       ([f"{i} " + "x" * (module.MAX_LINE_CHARACTERS - 10) for i in
                         range(module.MAX_CHARACTERS // (module.MAX_LINE_CHARACTERS - 10) + 1)], ValueError)):
        with pytest.raises(error):
            engine.Vectorizer.from_dict({**stored, "boilerplate": bad})


def test_a_model_file_keeps_the_lines_and_reads_new_text_without_them(tmp_path):
    texts = _letters(60, 12)
    corpus = engine.Corpus.from_texts(texts)
    model = engine.LDA(n_topics=2, n_words=corpus.n_words, seed=0)
    engine.SVI(model, corpus=corpus, seed=0).run(n_docs=60)
    engine.save_model(tmp_path / "m.npz", model, vocabulary=corpus.vocabulary, vectorizer=corpus.vectorizer)
    loaded = engine.load_model(tmp_path / "m.npz").model
    assert loaded.vectorizer_.boilerplate == corpus.vectorizer.boilerplate
    fresh = "garden museum orchard number 7 line 0\nschool market railway doctor letter weather garden\n\n" + FOOTER
    assert np.allclose(loaded.transform_texts([fresh]), loaded.transform_texts([fresh.split("\n\n")[0]]))


def test_the_lines_kept_are_capped_the_most_common_first(monkeypatch):
    first, second = FOOTER.splitlines()
    texts = [f"{body}\n{first}\n{second}" for body in _letters(20, 0)] + [f"{body}\n{first}" for body in
                                                                        _letters(10, 0, seed=1)]
    assert engine.find_boilerplate(texts) == (first, second)  # first in 30 documents, second in 20
    monkeypatch.setattr(module, "MAX_CHARACTERS", len(first) + len(second) - 1)
    assert engine.find_boilerplate(texts) == (first,)
    monkeypatch.setattr(module, "MAX_LINES", 0)
    assert engine.find_boilerplate(texts) == ()


def _words(text: str) -> int:
    return len(re.findall(r"(?u)\b[^\W\d_]{2,}\b", text))


@pytest.mark.parametrize("seed", range(3))
def test_the_report_counts_what_removal_takes_out(seed):
    rng = np.random.default_rng(seed)
    pool = [" ".join(rng.choice(WORDS, rng.integers(3, 9))) for _ in range(12)]
    texts = ["\n".join(str(rng.choice(pool)) if rng.random() < 0.6 else f"own words {rng.integers(10**9)}"
                       for _ in range(rng.integers(1, 9))) for _ in range(150)]
    texts += ["\n".join(pool[:3])] * 2  # made only of boilerplate: kept whole
    lines = engine.find_boilerplate(texts)
    report = engine.boilerplate_report(texts, lines)
    changed = [text for text in texts if engine.remove_boilerplate(text, lines) != text]
    assert changed and report.documents == len(changed)
    assert report.words == sum(_words(text) for text in texts)
    assert report.words_removed == sum(_words(text) - _words(engine.remove_boilerplate(text, lines)) for text in texts)
    assert sum(block.documents * block.words for block in report.blocks) == report.words_removed
    assert all(set(block.lines) <= set(lines) and block.words >= module.MIN_WORDS for block in report.blocks)
    assert [(-b.documents, -b.words, b.lines) for b in report.blocks] == sorted((-b.documents, -b.words, b.lines)
                                                                               for b in report.blocks)
    assert len({block.lines for block in report.blocks}) == len(report.blocks)
    assert engine.boilerplate_report(texts, ()) == (((), 0, 0, report.words))


def test_a_vectorizer_reports_its_blocks_in_the_text_without_markup():
    pages = [f"<html><body><p>{body}</p><div class='foot'>\n{FOOTER}\n</div></body></html>"
             for body in _letters(40, 0)]
    corpus = engine.Corpus.from_texts(pages)
    report = corpus.vectorizer.boilerplate_report(pages)
    assert report.documents == 40 and len(report.blocks) == 1
    assert report.blocks[0] == (tuple(FOOTER.splitlines()), 40, _words(FOOTER))
    assert report.words_removed == 40 * _words(FOOTER)


@pytest.mark.parametrize("seed", range(3))
def test_finding_and_removing_at_once_gives_what_removal_gives(seed, monkeypatch):
    """Corpus.from_texts reads each text's lines once (_find_and_remove): the texts must be remove_boilerplate's,
    also when the lines kept are capped."""
    rng = np.random.default_rng(seed)
    pool = [" ".join(rng.choice(WORDS, rng.integers(3, 9))) for _ in range(12)]
    texts = ["\r\n".join(str(rng.choice(pool)) if rng.random() < 0.6 else f"  own   words {rng.integers(10**9)}"
                         for _ in range(rng.integers(1, 9))) for _ in range(150)] + ["\n".join(pool[:3])] * 2
    lines, removed = module._find_and_remove(texts)
    assert lines == engine.find_boilerplate(texts) and lines
    assert removed == [engine.remove_boilerplate(text, lines) for text in texts]
    assert removed != texts
    monkeypatch.setattr(module, "MAX_LINES", len(lines) // 2)
    capped, removed = module._find_and_remove(texts)
    assert capped == lines[: len(lines) // 2]
    assert removed == [engine.remove_boilerplate(text, capped) for text in texts]


def test_a_line_too_long_to_compare_ends_a_run_and_is_kept():
    first, second = FOOTER.splitlines()
    long = " ".join(["orchard"] * 400)  # one paragraph on one line, longer than MAX_LINE_CHARACTERS
    assert len(long) > module.MAX_LINE_CHARACTERS
    texts = [f"{body}\n{first}\n{second}" for body in _letters(20, 0)]
    lines = engine.find_boilerplate(texts)
    assert sorted(lines) == sorted([first, second])
    tail = "more words of this letter about the garden and the school"
    between = f"{first}\n{long}\n{second}\n{tail}"
    assert engine.remove_boilerplate(between, lines) == f"{long}\n{tail}"  # two runs of 14 and 11 words: two blocks
    # a run of 25 words if the long line joined it; two runs of 14 and 11 words, under 20, as it does not
    assert engine.remove_boilerplate(between, lines, min_words=20) == between
    longer = f"{tail} and of the weather at the station, the market and the museum this week"  # 21 words left
    assert engine.remove_boilerplate(f"{first}\n\n{second}\n{longer}", lines, min_words=20) == longer  # blank joins
    assert engine.find_boilerplate([f"{body}\n{long}" for body in _letters(20, 0)]) == ()  # never common itself
