"""HTML and XML markup removed before counting: engine/data/markup.py and ``strip_markup`` of the corpora."""

from __future__ import annotations

import re

import numpy as np
import pytest

import engine
from engine import Corpus, DiskCorpus, Vectorizer
from engine.data import markup
from engine.data.markup import holds_markup, strip_markup

PAGE = ("<!DOCTYPE html>\n<html><head><title>Bridges &amp; rivers</title><meta charset='utf-8'>"
        "<style>p { color: red }</style><script>var x = '</p>'; if (a < b) {}</script></head>"
        "<body><div class=\"menu\" id=nav><a href='/home'>Home</a></div><!-- hidden comment -->"
        "<p>The <b>new</b> bridge<br/>over the river</p><table><tr><td>cost</td><td>caf&eacute;</td></tr></table>"
        "<pre>&lt;div&gt; is written here</pre><![CDATA[x < y]]><?php echo 1; ?></body></html>")


def words(text: str) -> list[str]:
    return re.findall(r"\S+", text)


def test_tags_comments_scripts_and_styles_go_and_references_are_read():
    assert words(strip_markup(PAGE)) == ["Bridges", "&", "rivers", "Home", "The", "new", "bridge", "over", "the",
                                         "river", "cost", "café", "<div>", "is", "written", "here", "x", "<", "y"]
    assert strip_markup("<td>a</td><td>b</td>") == "a\n\nb"  # block tags: line breaks
    assert strip_markup("<span>a</span><span>b</span>") == "a  b"  # others: spaces, so words never join
    assert strip_markup("a<!-- c -->b") == "a b"
    assert strip_markup("<p>a</p>\n\n \n<p>b</p>\n<div>\n<p>c</p></div>") == "a\n\nb\n\nc"  # one blank line


@pytest.mark.parametrize("text", ["x<y) and z>w", "a < b > c", "I <3 maps", "if (i<n) i++;", "5 > 3 < 7",
                                  "plain text", "", "a&b", "<<>>", "</ p>", "< p>"])
def test_text_that_is_not_markup_stays_as_written(text):
    assert strip_markup(text) == text


@pytest.mark.parametrize("text", ["<script>" * 50, "<script " * 50, "<style>a " * 50, "<!--" * 50, "<!a" * 50,
                                  "<a x='" * 50, "<a" + " x=1" * 50])
def test_unclosed_and_repeated_constructs_end_the_text_or_stay(text):
    out = strip_markup(text)
    assert markup._TAG.search(out) is None and markup._SPANS.search(out) is None


def test_every_removal_leaves_no_tag_behind_in_random_text():
    rng = np.random.default_rng(0)
    pieces = ["<", ">", "/", "a", "b", "p", "script", "style", "!--", "--", " ", "=", "'", '"', "x", "?", "!", "\n"]
    for _ in range(2000):
        text = "".join(rng.choice(pieces, size=rng.integers(1, 40)))
        out = strip_markup(text)
        assert markup._TAG.search(out) is None and markup._DECLARATION.search(out) is None, (text, out)
        if "<" not in text:
            assert out == text


def test_a_collection_holds_markup_when_a_tenth_of_its_documents_have_two_closing_tags():
    marked, one, plain = "<p>a</p><p>b</p>", "<p>only one</p>", "no markup at all"
    assert holds_markup([marked] + [plain] * 9)  # 1 of 10
    assert not holds_markup([marked] + [plain] * 10)  # 1 of 11
    assert not holds_markup([one] * 10)  # one closing tag is not enough ("a </b> c" in prose)
    assert not holds_markup([]) and not holds_markup(["", None])
    assert holds_markup([marked, "", None, float("nan")])  # empty documents are not counted
    late = "x" * markup.SAMPLE_CHARACTERS + marked  # only the start of each document is read
    assert not holds_markup([late])


def test_corpora_count_the_text_without_its_markup_and_record_it(tmp_path):
    pages = [PAGE, "<p>The old bridge</p><p>river and cost</p>", "<div>rivers <i>and</i> bridges</div><br></br>"]
    corpus = Corpus.from_texts(pages, min_df=1)  # "auto": every page holds markup
    assert corpus.vectorizer.strip_markup is True
    plain = Corpus.from_texts([strip_markup(text) for text in pages], min_df=1, strip_markup=False)
    assert corpus.vocabulary == plain.vocabulary and (corpus.counts != plain.counts).nnz == 0
    assert not {"td", "href", "class", "menu", "nav", "charset", "color", "var", "php"} & set(corpus.vocabulary)
    assert "div" in corpus.vocabulary  # "&lt;div&gt;" is the page's text, not a tag
    # new text counted as the training text: the recorded settings' analyzer gives the same rows
    again = corpus.vectorizer.count(pages, corpus.vocabulary)
    assert (again.counts != corpus.counts).nnz == 0 and again.unknown.tolist() == [0, 0, 0]
    raw = Corpus.from_texts(pages, min_df=1, strip_markup=False)
    assert {"td", "href", "div", "class"} <= set(raw.vocabulary) and raw.vectorizer.strip_markup is False
    for source in (tmp_path / "pages", tmp_path / "plain"):
        source.mkdir()
    for i, text in enumerate(pages):
        (tmp_path / "pages" / f"{i}.txt").write_text(text, encoding="utf-8")
    disk = DiskCorpus.from_texts(tmp_path / "pages", tmp_path / "disk", min_df=1)
    assert disk.vectorizer == corpus.vectorizer and disk.vocabulary == corpus.vocabulary
    assert (disk.counts[:] != corpus.counts).nnz == 0
    with pytest.raises(TypeError, match="strip_markup must be True, False or 'auto'"):
        Corpus.from_texts(pages, strip_markup="yes")


def test_the_setting_round_trips_and_old_settings_read_false(tmp_path):
    settings = Vectorizer(strip_markup=True)
    assert Vectorizer.from_dict(settings.to_dict()) == settings
    old = settings.to_dict()
    del old["strip_markup"]
    assert Vectorizer.from_dict(old).strip_markup is False
    with pytest.raises(TypeError, match="strip_markup must be True or False"):
        Vectorizer(strip_markup="auto")
    corpus = Corpus.from_texts(["<p>cat and dog</p><p>x</p>", "<p>dog and bird</p><p>y</p>"], min_df=1)
    model = engine.LDA(n_topics=2, seed=0, n_epochs=1).fit(corpus)
    loaded = engine.load_model(engine.save_model(tmp_path / "m.npz", model)).model
    assert loaded.vectorizer_.strip_markup is True
    counted = loaded.vectorizer_.count(["<td class='cat'>bird</td><td>cat</td>"], corpus.vocabulary)
    assert counted.counts.sum() == 2 and counted.unknown.tolist() == [0]  # "td" and "class" are markup


def test_the_documents_page_segments_the_text_without_its_markup():
    corpus = Corpus.from_texts([PAGE, "<p>The old bridge</p><p>table of costs</p>"], min_df=1)
    segments = engine.text_segments(PAGE, corpus.vocabulary, corpus.vectorizer)
    assert "".join(text for text, _ in segments) == strip_markup(PAGE)
    tagged = [text.lower() for text, column in segments if column is not None]
    assert "bridge" in tagged and "table" not in tagged  # the page's <table> tag is not its word "table"


def test_the_language_of_web_pages_is_guessed_from_their_text_not_their_head():
    from tests.engine.test_language import TEXTS

    head = "<head><style>" + "td.cell { color: red; } " * 200 + "</style></head>"  # 4,800 characters of style
    pages = [f"<html>{head}<body><p>{TEXTS['german']}</p></body></html>"] * 20
    assert len(head) > engine.data.language.SAMPLE_CHARACTERS
    guess = engine.guess_language(pages)
    assert guess.language == "german" and guess.examples[0] == "die"
    mixed = [pages[0], None, "", "plain text " * 30] * 3  # the guess's answer is holds_markup's, on any collection
    assert guess.markup and holds_markup(mixed) and engine.guess_language(mixed).markup
    one_tag = ["plain text " * 30, "<p>one</p>"] * 10  # a single closing tag a document: not markup
    assert not holds_markup(one_tag) and not engine.guess_language(one_tag).markup
    assert engine.guess_language([page.replace("</", "<") for page in pages]).language is None  # not markup: no text
