"""New text counted as the training text: engine/data/vectorizer.py, ``transform_texts``, and stop-word languages."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import engine
from engine import HDP, LDA, Corpus, Vectorizer, load_model, save_model

OLD_FORMAT_FILE = Path(__file__).parent / "data" / "model_format1.npz"  # written before preprocessing was saved

TEXTS = [
    "The cat chased the mouse; the mouse hid from the cat in the old barn.",
    "Cats and mice: a cat hunts mice at night, the mouse runs.",
    "The stock market fell as investors sold stocks and bonds.",
    "Bond markets rose; investors bought bonds, the market recovered.",
    "Le café du marché: une pêche, un péché, des cafés au lait.",
    "The barn cat and the market cat met investors at night.",
]


@pytest.fixture(params=[LDA, HDP], ids=["LDA", "HDP"])
def fitted(request):
    corpus = Corpus.from_texts(TEXTS, min_df=1)
    options = {"n_topics": 3} if request.param is LDA else {"n_topics": 4, "doc_truncation": 2}
    return request.param(seed=0, n_epochs=2, **options).fit(corpus), corpus


def test_a_training_text_gets_its_training_counts_and_proportions_bit_for_bit(fitted):
    model, corpus = fitted
    counted = model.count_texts(corpus.texts)
    assert (counted.counts != corpus.counts).nnz == 0 and counted.counts.shape == corpus.counts.shape
    np.testing.assert_array_equal(counted.known, np.asarray(corpus.counts.sum(axis=1)).ravel())
    for row in (0, 4):
        np.testing.assert_array_equal(model.transform_texts([corpus.texts[row]]), model.transform(corpus.counts[[row]]))
    np.testing.assert_array_equal(model.transform_texts(corpus.texts), model.transform(corpus.counts))


def test_unknown_words_are_dropped_and_counted(fitted):
    model, _ = fitted
    counted = model.count_texts(["The cat met a zebra and a giraffe", "zebra giraffe", ""])
    assert counted.unknown.tolist() == [2, 2, 0]  # "the", "and", "a" are stop words, not unknown
    assert counted.known.tolist() == [2, 0, 0]  # "cat", "met"
    proportions = model.transform_texts(["zebra giraffe"])
    assert proportions.shape == (1, model.n_topics) and np.isclose(proportions.sum(), 1.0)


def test_a_model_without_a_vocabulary_says_what_to_pass(fitted):
    model, corpus = fitted
    bare = LDA(n_topics=2, seed=0).fit(corpus.counts)
    with pytest.raises(ValueError, match="does not know its vocabulary"):
        bare.transform_texts(["cat"])
    np.testing.assert_array_equal(bare.transform_texts(["cat"], vocabulary=corpus.vocabulary),
                                  bare.transform(model.count_texts(["cat"]).counts))
    with pytest.raises(engine.VocabularyMismatchError, match="vocabulary has 2 words"):
        bare.transform_texts(["cat"], vocabulary=["cat", "mouse"])
    with pytest.raises(TypeError, match="wrap it"):
        model.transform_texts("one string")


def test_the_preprocessing_travels_through_a_model_file(tmp_path):
    corpus = Corpus.from_texts(TEXTS, stop_words="french", strip_accents=False, extra_stop_words=["Barn"])
    model = LDA(n_topics=2, seed=0, n_epochs=1).fit(corpus)
    assert model.vectorizer_ == corpus.vectorizer
    assert corpus.vectorizer == Vectorizer(stop_words="french", extra_stop_words=("Barn",), strip_accents=False)
    loaded = load_model(save_model(tmp_path / "m.npz", model))  # vocabulary and preprocessing from the model
    assert loaded.vocabulary == corpus.vocabulary
    assert loaded.model.vectorizer_ == corpus.vectorizer
    new = ["une pêche au café", "the péché of the barn"]
    assert (loaded.model.count_texts(new).counts != model.count_texts(new).counts).nnz == 0
    assert (loaded.model.count_texts(corpus.texts).counts != corpus.counts).nnz == 0
    # the topics come back from the file rounded in the last bits (the lazily decayed store is made dense)
    np.testing.assert_allclose(loaded.model.transform_texts(new), model.transform_texts(new), rtol=1e-12)
    # the explicit argument wins over the model's own
    other = save_model(tmp_path / "o.npz", model, vectorizer=Vectorizer(stop_words=None))
    assert load_model(other).model.vectorizer_ == Vectorizer(stop_words=None)


def test_a_file_saved_before_the_preprocessing_was_recorded_uses_the_defaults():
    loaded = load_model(OLD_FORMAT_FILE)
    assert "vectorizer_" not in vars(loaded.model)
    vocabulary = ["cat", "peche"] + [f"w{i}" for i in range(2, 50)]
    counted = loaded.model.count_texts(["The cat ate a pêche"], vocabulary=vocabulary)
    assert counted.counts.toarray()[0, :2].tolist() == [1, 1]  # lower case, accents stripped
    assert counted.unknown.tolist() == [1]  # "ate"; "the" and "a" are English stop words


def test_corpora_record_their_preprocessing_and_keep_it_when_saved(tmp_path):
    corpus = Corpus.from_texts(TEXTS, stop_words="fr", strip_accents=False)
    assert corpus.vectorizer.stop_words == "french"  # the code is stored as the language's name
    assert Corpus.load(corpus.save(tmp_path / "c")).vectorizer == corpus.vectorizer
    assert corpus.subset([0, 1]).vectorizer == corpus.vectorizer
    assert Corpus.from_counts(corpus.counts).vectorizer is None


def test_french_stop_words_are_removed():
    texts = ["Le chat et la souris sont dans la grange avec les chats.", "Nous avons vu le marché et les cafés."]
    english = Corpus.from_texts(texts).vocabulary
    french = Corpus.from_texts(texts, stop_words="french").vocabulary
    assert {"le", "la", "et", "les", "dans", "avec", "nous", "sont"} <= set(english)
    assert not {"le", "la", "et", "les", "dans", "avec", "nous", "sont", "avons"} & set(french)
    assert {"chat", "souris", "grange", "marche", "cafes"} <= set(french)


def test_accents_are_kept_when_strip_accents_is_false():
    texts = ["Une pêche et un péché.", "La pêche du jour."]
    assert "peche" in Corpus.from_texts(texts, stop_words="french").vocabulary
    kept = Corpus.from_texts(texts, stop_words="french", strip_accents=False)
    assert {"pêche", "péché"} <= set(kept.vocabulary) and "peche" not in kept.vocabulary
    assert kept.counts[:, kept.vocabulary.index("pêche")].sum() == 2


def test_an_unknown_language_lists_the_choices():
    with pytest.raises(ValueError, match=r"stop_words must be a language \(one of .*french.*german") as info:
        Corpus.from_texts(TEXTS, stop_words="klingon")
    assert "'klingon'" in str(info.value)
    with pytest.raises(ValueError, match="one of arabic"):
        engine.stop_word_list("xx")
    assert "english" in engine.STOP_WORD_LANGUAGES and "french" in engine.STOP_WORD_LANGUAGES


def test_languages_joined_by_a_plus_take_the_union_of_their_lists(tmp_path):
    assert engine.languages_of("English+FR") == ("english", "french")
    assert engine.languages_of("de + german + en") == ("german", "english")  # repeats dropped, the order kept
    union = set(engine.stop_word_list("english")) | set(engine.stop_word_list("french"))
    assert engine.stop_word_list("en+fr") == tuple(sorted(union)) == engine.stop_word_list("french+english")
    with pytest.raises(ValueError, match=r"several joined by '\+'.*'english\+klingon'"):
        engine.stop_word_list("english+klingon")
    with pytest.raises(ValueError, match=r"got 'english\+'"):
        Vectorizer(stop_words="english+")
    settings = Vectorizer(stop_words="en+fr", strip_accents=False)
    assert settings.stop_words == "english+french"
    assert Vectorizer.from_dict(settings.to_dict()) == settings
    texts = ["The cat and the dog sat on the mat by the door.", "Le chat et le chien sont sur le tapis de la porte."]
    corpus = Corpus.from_texts(texts, stop_words="english+french", strip_accents="auto")
    assert set(corpus.vocabulary) == {"cat", "dog", "sat", "mat", "door", "chat", "chien", "tapis", "porte"}
    assert corpus.vectorizer.strip_accents is False  # a language other than English is among them
    model = LDA(n_topics=2, seed=0, n_epochs=1).fit(corpus)
    loaded = load_model(save_model(tmp_path / "m.npz", model)).model
    assert loaded.vectorizer_.stop_words == "english+french"
    assert loaded.transform_texts(["Les chats de la porte et the doors"]).shape == (1, 2)
    counted = loaded.vectorizer_.count(["Le chat et the cat de la porte, près du chêne"], corpus.vocabulary)
    assert counted.counts.sum() == 3 and counted.unknown.tolist() == [2]  # chat, cat, porte; près, chêne unknown


def test_each_paragraph_of_several_languages_loses_its_own_languages_stop_words():
    from engine.data.vectorizer import DOCUMENT_WORDS
    from tests.engine.test_language import TEXTS

    english = TEXTS["english"] + " The car was parked outside."  # "car": French for "because", an English noun
    french = TEXTS["french"] + " Il est parti car il pleuvait."
    short = "the car and le pont"  # under DOCUMENT_WORDS words: every list
    settings = Vectorizer(stop_words="english+french", strip_accents=False)
    analyze = settings.analyzer()
    plain = Vectorizer(stop_words=None, strip_accents=False).analyzer()
    lists = {name: Vectorizer(stop_words=name, strip_accents=False).stop_word_set() for name in ("english", "french")}
    for text in (english, french, short):
        words = plain(text)
        if len(words) >= DOCUMENT_WORDS:  # brute force: the list holding most of the words, the first on a tie
            held = {name: sum(word in stop for word in words) for name, stop in lists.items()}
            stop = lists["english" if held["english"] >= held["french"] else "french"]
        else:
            stop = lists["english"] | lists["french"]
        assert analyze(text) == [word for word in words if word not in stop]
    assert "car" in analyze(english) and "car" not in analyze(french) and analyze(short) == ["pont"]
    corpus = Corpus.from_texts([english, french], stop_words="english+french", strip_accents="auto")
    rows = corpus.counts.toarray()
    column = corpus.vocabulary.index("car")
    assert rows[0, column] == 1 and rows[1, column] == 0
    with_extra = Vectorizer(stop_words="english+french", extra_stop_words=["bridge", "pont"]).analyzer()
    assert "bridge" not in with_extra(english) and "pont" not in with_extra(french)
    counted = corpus.vectorizer.count([english, french], corpus.vocabulary)
    assert (counted.counts != corpus.counts).nnz == 0  # new text is read as the training text
    # a French page with an English paragraph, and a short one: each long paragraph takes its own language's list,
    # the short one its document's (French: "car" goes, "the" stays)
    page = f"{TEXTS['french']}\n\n{english}\n \nthe car\n\n{TEXTS['french']}"
    expected = [word for word in plain(TEXTS["french"]) if word not in lists["french"]]
    expected += [word for word in plain(english) if word not in lists["english"]] + ["the"]
    expected += [word for word in plain(TEXTS["french"]) if word not in lists["french"]]
    assert analyze(page) == expected
    assert analyze(page.replace("\n\n", " ").replace("\n \n", " ")) == [  # one paragraph: French, the most
        word for word in plain(page) if word not in lists["french"]]


def test_the_settings_are_checked_and_round_trip_through_json():
    settings = Vectorizer(stop_words=["Über", "und"], extra_stop_words=("x",), strip_accents=False, lowercase=False)
    assert Vectorizer.from_dict(settings.to_dict()) == settings
    assert settings.stop_words == ("und", "Über")  # sorted, as code points
    with pytest.raises(TypeError, match="strip_accents must be True or False"):
        Vectorizer(strip_accents="no")
    with pytest.raises(ValueError, match="not a valid regular expression"):
        Vectorizer(token_pattern="(")
    with pytest.raises(ValueError, match="unknown preprocessing settings"):
        Vectorizer.from_dict({"stem": True})
    with pytest.raises(TypeError, match="extra_stop_words must be a list of words"):
        Vectorizer(extra_stop_words="the")


def test_a_scikit_learn_pipeline_on_raw_text_is_unchanged():
    from sklearn.feature_extraction.text import CountVectorizer
    from sklearn.pipeline import make_pipeline

    pipeline = make_pipeline(CountVectorizer(), LDA(n_topics=2, seed=0, n_epochs=1)).fit(TEXTS)
    assert pipeline.transform(TEXTS[:2]).shape == (2, 2)
    model = pipeline[-1]
    assert "vectorizer_" not in vars(model) and "feature_names_in_" not in vars(model)
    with pytest.raises(ValueError, match="does not know its vocabulary"):
        model.transform_texts(TEXTS[:1])
