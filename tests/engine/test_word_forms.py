"""Word forms: a word's forms found (engine.find_word_forms) and counted as one word (merge_word_forms)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
import scipy.sparse as sp

import engine
from engine.data import word_forms as word_forms_module
from engine.data.vectorizer import MAX_WORD_FORMS
from engine.io.model_files import load_model, save_model
from engine.models.inspection import text_segments

TEXTS = [
    "Taxes rose again; the tax bill raised taxes.",
    "Their children played while one child read.",
    "He said it and she says it; they say it often.",
    "Better roads are good roads, the best of goods.",
    "The taxes office and the children of the rivers.",
    "A river, two rivers, many rivers and a stone.",
] * 3


def test_the_forms_of_a_word_form_one_group_shown_as_its_most_written_form():
    groups = {group.word: group for group in engine.find_word_forms(TEXTS)}
    assert groups["taxes"].forms == ("taxes", "tax") and groups["taxes"].counts == (9, 3)
    assert groups["rivers"].forms == ("rivers", "river") and groups["rivers"].counts == (9, 3)
    assert set(groups["children"].forms) == {"children", "child"}
    assert set(groups["said"].forms) == {"said", "says", "say"}
    assert groups["children"].counts == (6, 3)


def test_irregular_forms_that_start_otherwise_stay_apart():
    forms = {form for group in engine.find_word_forms(TEXTS) for form in group.forms}
    assert "better" not in forms and "best" not in forms  # "good"'s lemma starts otherwise
    assert {"good", "goods"} <= forms  # plural of the same letters: merged, as a lemmatizer reads it


def test_a_token_too_long_to_be_a_word_is_never_looked_up_or_merged():
    long = "ab" * 60  # 120 letters: longer than a stored form may be
    groups = engine.find_word_forms([f"{long} {long}s {long}es taxes tax"] * 3)
    assert [group.forms for group in groups] == [("tax", "taxes")]


def test_groups_are_ordered_by_their_words_count_and_hold_no_single_form():
    groups = engine.find_word_forms(TEXTS)
    totals = [sum(group.counts) for group in groups]
    assert totals == sorted(totals, reverse=True)
    assert all(len(group.forms) >= 2 and group.forms[0] == group.word for group in groups)
    assert all(list(group.counts) == sorted(group.counts, reverse=True) for group in groups)


def test_a_corpus_with_merged_forms_sums_the_columns_of_each_group():
    plain = engine.Corpus.from_texts(TEXTS)
    merged = engine.Corpus.from_texts(TEXTS, merge_word_forms=True)
    heads = dict(merged.vectorizer.word_forms)
    assert heads["tax"] == "taxes" and heads["child"] == "children" and heads["says"] in ("said", "say")
    column = {word: w for w, word in enumerate(merged.vocabulary)}
    expected = sp.csr_matrix((np.ones(plain.n_words), ([w for w in range(plain.n_words)],
                                                       [column[heads.get(word, word)] for word in plain.vocabulary])),
                             shape=(plain.n_words, merged.n_words))
    assert (plain.counts @ expected != merged.counts).nnz == 0  # brute force: each form's column added to its word's
    assert not set(heads) & set(merged.vocabulary) and merged.n_tokens == plain.n_tokens


def test_the_filters_count_a_word_with_all_its_forms():
    texts = ["one tax here", "taxes there", "taxes again", "a river"]
    merged = engine.Corpus.from_texts(texts, merge_word_forms=True, min_df=3)
    assert merged.vocabulary == ("taxes",)  # in 3 documents only with its form "tax"
    with pytest.raises(engine.EmptyVocabularyError):  # read as written, no form is in 3 documents
        engine.Corpus.from_texts(texts, min_df=3)


def test_accented_forms_are_looked_up_as_written_then_stripped():
    texts = ["Il a été là. Être ou ne pas être. Il était une fois; les maisons et la maison."] * 3
    groups = {group.word: group.forms for group in engine.find_word_forms(texts, language="french",
                                                                           vectorizer=engine.Vectorizer(None))}
    merged = {form for forms in groups.values() for form in forms}
    assert {"ete", "etre", "etait"} <= merged  # "été" is read as a form of "être" before its accents go
    assert {"maisons", "maison"} <= merged


def test_a_language_without_word_forms_or_without_a_name_is_refused():
    with pytest.raises(ValueError, match="no word forms are known for chinese; they are for arabic"):
        engine.find_word_forms(["文件系统"], engine.Vectorizer(stop_words="chinese"))
    with pytest.raises(ValueError, match="say which language the texts are in"):
        engine.find_word_forms(TEXTS, engine.Vectorizer(stop_words=None))
    with pytest.raises(ValueError, match="set stop_words to a language"):
        engine.Corpus.from_texts(TEXTS, stop_words=["the"], merge_word_forms=True)
    assert engine.word_form_languages("chinese+english") == ("english",)
    assert engine.has_word_forms("chinese+english") and engine.has_word_forms("de")
    assert not any(engine.has_word_forms(language) for language in ("chinese", "japanese+korean", None, ["the"]))
    assert len(engine.WORD_FORM_LANGUAGES) == 28 and set(engine.WORD_FORM_LANGUAGES) <= set(engine.STOP_WORD_LANGUAGES)


def test_auto_merges_where_the_language_has_word_forms_and_reads_as_written_where_not():
    merged = engine.Corpus.from_texts(TEXTS, merge_word_forms="auto")
    assert merged.vectorizer == engine.Corpus.from_texts(TEXTS, merge_word_forms=True).vectorizer
    assert merged.vectorizer.word_forms != ()
    for stop_words in (None, ["the"], "chinese"):
        plain = engine.Corpus.from_texts(TEXTS, stop_words=stop_words, merge_word_forms="auto")
        assert plain.vectorizer.word_forms == () and "tax" in plain.vocabulary and "taxes" in plain.vocabulary
    guessed = engine.Corpus.from_texts(TEXTS, stop_words="auto", merge_word_forms="auto")
    assert guessed.vectorizer.stop_words == "english" and "tax" not in guessed.vocabulary


def test_several_languages_take_the_first_dictionary_that_knows_a_word():
    texts = ["The houses and a house. Les maisons et une maison."] * 3
    groups = engine.find_word_forms(texts, engine.Vectorizer("english+french"))
    forms = {form for group in groups for form in group.forms}
    assert {"houses", "house", "maisons", "maison"} <= forms


def test_a_phrase_is_never_merged_and_an_extra_stop_word_stops_its_forms():
    texts = ["health care costs and health care plans", "health care for the costs", "cost and costs"] * 4
    vectorizer = engine.Vectorizer(phrases=("health care",))
    forms = {form for group in engine.find_word_forms(texts, vectorizer) for form in group.forms}
    assert "health care" not in forms and {"cost", "costs"} <= forms
    stopped = engine.Vectorizer(word_forms={"cost": "costs"}, extra_stop_words=["costs"])
    assert stopped.analyzer()("cost and costs and plans") == ["plans"]
    stopped = engine.Vectorizer(word_forms={"cost": "costs"}, extra_stop_words=["Cost"])  # a form stops its word
    assert stopped.analyzer()("cost and costs and plans") == ["plans"]


def test_any_form_of_a_word_given_as_an_extra_stop_word_leaves_out_the_word_and_all_its_forms():
    plain = engine.Corpus.from_texts(TEXTS, merge_word_forms=True)
    assert dict(plain.vectorizer.word_forms)["say"] in plain.vocabulary
    for listed in ("say", "says", "said"):
        corpus = engine.Corpus.from_texts(TEXTS, merge_word_forms=True, extra_stop_words=[listed])
        assert not {"say", "says", "said"} & set(corpus.vocabulary)
        assert "taxes" in corpus.vocabulary and dict(corpus.vectorizer.word_forms)["tax"] == "taxes"


def test_new_text_is_counted_as_the_training_text_was(tmp_path):
    corpus = engine.Corpus.from_texts(TEXTS, merge_word_forms=True)
    counted = corpus.vectorizer.count(TEXTS[:6], corpus.vocabulary).counts
    assert (counted != corpus.counts[:6]).nnz == 0
    model = engine.LDA(n_topics=2, n_words=corpus.n_words, seed=0)
    engine.SVI(model, corpus=corpus, seed=0).run(n_docs=corpus.n_docs)
    loaded = load_model(save_model(tmp_path / "model.npz", model, corpus.vocabulary, vectorizer=corpus.vectorizer))
    assert loaded.model.vectorizer_.word_forms == corpus.vectorizer.word_forms
    new = loaded.model.count_texts(["A child and a tax."])
    assert new.counts[0, corpus.vocabulary.index("children")] == 1
    assert new.counts[0, corpus.vocabulary.index("taxes")] == 1
    assert engine.Corpus.load(corpus.save(tmp_path / "corpus")).vectorizer == corpus.vectorizer


def test_the_disk_corpus_merges_the_same_forms(tmp_path):
    table = tmp_path / "texts.csv"
    pd.DataFrame({"text": TEXTS}).to_csv(table, index=False)
    disk = engine.DiskCorpus.from_texts(table, tmp_path / "disk", merge_word_forms=True)
    memory = engine.Corpus.from_texts(TEXTS, merge_word_forms=True)
    assert disk.vectorizer.word_forms == memory.vectorizer.word_forms != ()
    assert list(disk.vocabulary) == list(memory.vocabulary)
    assert (disk.counts[np.arange(disk.n_docs)] != memory.counts).nnz == 0
    assert engine.DiskCorpus.open(tmp_path / "disk").vectorizer == memory.vectorizer
    with pytest.raises(ValueError, match="set stop_words to a language"):
        engine.DiskCorpus.from_texts(table, tmp_path / "other", stop_words=None, merge_word_forms=True)
    auto = engine.DiskCorpus.from_texts(table, tmp_path / "auto", stop_words="chinese", merge_word_forms="auto")
    assert auto.vectorizer.word_forms == () and {"tax", "taxes"} <= set(auto.vocabulary)


def test_highlighted_segments_tag_a_form_with_its_word_and_give_the_text_back():
    vectorizer = engine.Vectorizer(word_forms={"tax": "taxes", "child": "children"})
    text = "A Tax on the child, and taxes."
    segments = text_segments(text, ["taxes", "children"], vectorizer)
    assert "".join(part for part, _ in segments) == text
    assert [(part, column) for part, column in segments if column is not None] == [
        ("Tax", 0), ("child", 1), ("taxes", 0)]


def test_the_groups_kept_stop_before_the_bound_on_forms(monkeypatch):
    monkeypatch.setattr(word_forms_module, "MAX_WORD_FORMS", 2)
    groups = engine.find_word_forms(TEXTS)
    monkeypatch.undo()
    everything = engine.find_word_forms(TEXTS)
    assert groups == everything[:len(groups)] and 0 < len(groups) < len(everything)
    forms = [len(group.forms) - 1 for group in everything]
    assert sum(forms[:len(groups)]) <= 2 < sum(forms[:len(groups) + 1])  # the most frequent groups, while they fit


@pytest.mark.parametrize(("forms", "error", "message"), [
    ({"tax": "tax"}, ValueError, "maps 'tax' to 'tax': map each form once, to another word"),
    ([("tax", "taxes"), ("tax", "taxed")], ValueError, "map each form once"),
    ({"taxing": "tax", "tax": "taxes"}, ValueError, "which is itself mapped to 'taxes'"),
    ({"health care": "health"}, ValueError, "single words of at most 100 characters, without spaces"),
    ({"x" * 101: "x"}, ValueError, "at most 100 characters"),
    ({"": "x"}, ValueError, "single words"),
    ({"tax": 1}, TypeError, "strings each"),
    ("taxes", TypeError, "not the string 'taxes'"),
    ([("tax",)], TypeError, "must map forms to words"),
    ({f"w{i}": "v" for i in range(MAX_WORD_FORMS + 1)}, ValueError, "at most 100,000 are kept"),
])
def test_bad_word_forms_are_refused_with_what_to_fix(forms, error, message):
    with pytest.raises(error, match=message):
        engine.Vectorizer(word_forms=forms)


def test_stored_settings_round_trip_and_older_ones_read_no_word_forms():
    vectorizer = engine.Vectorizer(word_forms={"taxes": "tax", "children": "child"})
    assert vectorizer.word_forms == (("children", "child"), ("taxes", "tax"))
    assert vectorizer.other_forms() == {"child": ("children",), "tax": ("taxes",)}
    assert engine.Vectorizer(word_forms={"taxes": "tax", "taxed": "tax"}).other_forms() == {"tax": ("taxed", "taxes")}
    assert engine.Vectorizer().other_forms() == {}
    stored = vectorizer.to_dict()
    assert stored["word_forms"] == {"children": "child", "taxes": "tax"}
    assert engine.Vectorizer.from_dict(stored) == vectorizer
    assert engine.Vectorizer.from_dict({k: v for k, v in stored.items() if k != "word_forms"}).word_forms == ()
    with pytest.raises(TypeError, match="word_forms must be a JSON object"):
        engine.Vectorizer.from_dict({**stored, "word_forms": [["taxes", "tax"]]})
    with pytest.raises(ValueError, match="itself mapped"):
        engine.Vectorizer.from_dict({**stored, "word_forms": {"a": "b", "b": "c"}})


def test_bad_arguments_say_what_to_fix():
    with pytest.raises(TypeError, match="merge_word_forms must be True, False or 'auto'"):
        engine.Corpus.from_texts(["a text"], merge_word_forms="yes")
    with pytest.raises(TypeError, match="not one string"):
        engine.find_word_forms("taxes and tax")
    with pytest.raises(TypeError, match="texts must be strings"):
        engine.find_word_forms(["taxes", 3])
    with pytest.raises(TypeError, match=r"engine\.Vectorizer"):
        engine.find_word_forms(["tax"], vectorizer="english")
    with pytest.raises(TypeError, match="language must be a language name"):
        engine.find_word_forms(["tax"], language=3)
    assert engine.find_word_forms([]) == [] and engine.find_word_forms(["", "the of"]) == []
    assert engine.merged_forms(engine.find_word_forms(["tax taxes", "children child"])) == {
        "taxes": "tax", "children": "child"}
