"""Words of every script: engine.UNICODE_TOKEN_PATTERN (combining marks in words, Chinese and Japanese as pairs of
characters) and where it is chosen."""

from __future__ import annotations

import random
import re
import unicodedata

import numpy as np
import pytest

import engine
from engine import TOKEN_PATTERN, UNICODE_TOKEN_PATTERN, Corpus, DiskCorpus, Vectorizer
from engine.data import vectorizer as module
from engine.models.inspection import text_segments

CHINESE = [
    "文件系统的挂载点由管理员设置，用户可以读取文件。",
    "命令行程序读取标准输入，并把结果写到标准输出。",
    "网络接口的地址由管理员配置，内核负责转发数据包。",
    "进程调度由内核完成，每个进程都有自己的优先级。",
]
JAPANESE = [
    "コンピュータをスタンバイモードにして、後で復帰する。",
    "ファイルシステムをマウントするには管理者の権限が必要です。",
    "データベースのバックアップを毎日取得してください。",
    "ネットワークの設定ファイルを編集して再起動します。",
]
ENGLISH = ["The kernel schedules each process by its priority.", "Mount the file system before reading files."]


def kind(c: str) -> str:
    """Each character's class, from Unicode names and properties alone (no regular expression)."""
    name = unicodedata.name(c, "")
    if c in "\u3005\u3006" or name.startswith(("CJK UNIFIED IDEOGRAPH", "CJK COMPATIBILITY IDEOGRAPH")):
        return "han"
    if name.startswith(("KATAKANA", "HALFWIDTH KATAKANA")) and c != "\u30fb" and unicodedata.category(c)[0] == "L":
        return "katakana"
    if name.startswith("HIRAGANA") and unicodedata.category(c)[0] == "L":
        return "hiragana"
    if unicodedata.category(c).startswith("M") and not any(a <= ord(c) <= b for a, b in module._UNSPACED_SCRIPTS):
        return "mark"
    if c.isalnum() or c == "_":
        return "digit" if c == "_" or unicodedata.category(c) == "Nd" else "letter"
    return "space"


def brute_force_tokens(text: str) -> list[str]:
    """The tokens the pattern's rule gives, by walking runs of characters of one class.

    A run of letters, marks and digits of other scripts is a token if it has no digit, begins with a letter and
    has 2+ characters (TOKEN_PATTERN's word, with the marks it cut at); a run of Han characters gives every
    adjacent pair; a run of katakana of 2+ is one token; hiragana and everything else separates tokens.
    """
    tokens, i = [], 0
    kinds = [kind(c) for c in text]
    word = {"letter": "word", "digit": "word", "mark": "word"}
    while i < len(text):
        j = i
        group = word.get(kinds[i], kinds[i])
        while j < len(text) and word.get(kinds[j], kinds[j]) == group:
            j += 1
        run = text[i:j]
        if group == "word" and j - i >= 2 and "digit" not in kinds[i:j] and kinds[i] == "letter":
            tokens.append(run)
        elif group == "han":
            tokens += [run[n:n + 2] for n in range(len(run) - 1)]
        elif group == "katakana" and j - i >= 2:
            tokens.append(run)
        i = j
    return tokens


ALPHABET = ("ab cé1_-'ÀZ\n.ß" "дом" "한국" "αβ" "文件系统的" "ファイルー・" "をはにすﾞｶ" "々" "，。" "𠀋"
            "हिंदी" "\u0301\u05b8" "ש" "١" "ภาษ")  # Devanagari letters and signs, marks, Hebrew, an Arabic digit, Thai


def random_texts(alphabet: str, n: int, seed: int) -> list[str]:
    rng = random.Random(seed)
    return ["".join(rng.choice(alphabet) for _ in range(rng.randint(0, 24))) for _ in range(n)]


def test_the_pattern_gives_the_brute_force_tokens_on_random_mixed_text():
    pattern = re.compile(UNICODE_TOKEN_PATTERN)
    for text in random_texts(ALPHABET, 5_000, seed=0) + CHINESE + JAPANESE:
        assert pattern.findall(text) == brute_force_tokens(text), text
        assert module.unicode_tokens(text) == pattern.findall(text), text  # what the vectorizer runs, per text


def test_the_vectorizer_reads_each_text_with_the_faster_pattern_it_allows():
    counter = Vectorizer(token_pattern=UNICODE_TOKEN_PATTERN, stop_words=None).count_vectorizer()
    assert counter.tokenizer is module.unicode_tokens and counter.token_pattern is None
    texts = [*ENGLISH, *CHINESE, "हिंदी भाषा"]
    by_pattern = [re.findall(UNICODE_TOKEN_PATTERN, t.lower()) for t in texts]
    assert [counter.build_analyzer()(t) for t in texts] == by_pattern


def test_text_without_chinese_japanese_or_combining_marks_is_read_exactly_as_before():
    old, new = re.compile(TOKEN_PATTERN), re.compile(UNICODE_TOKEN_PATTERN)
    for text in random_texts("ab cé1_-'ÀZ\n.ßдом한국αβ²ש١", 5_000, seed=1) + ENGLISH:
        assert new.findall(text) == old.findall(text), text


def test_the_letters_of_the_scripts_are_word_characters_and_the_marks_are_marks():
    for ranges in (module._HAN, module._KATAKANA, module._HIRAGANA):
        members = re.compile(f"[{ranges}]")
        letters = [chr(i) for i in range(0x3000, 0x32000) if members.match(chr(i))]
        assert letters and all(re.match(r"\w", c) and not re.match(r"[\d_]", c) for c in letters)
    marks = re.compile(f"[{module._MARKS}]")
    listed = [chr(i) for i in range(0x110000) if marks.match(chr(i))]
    # every listed code point is a mark (or unassigned in an older Unicode than the list's 14.0) ...
    assert all(unicodedata.category(c)[0] == "M" or unicodedata.category(c) == "Cn" for c in listed)
    # ... and every mark of Unicode 14.0 is listed but those of the unspaced scripts (a newer Python may know
    # marks the list does not)
    assert not any(a <= ord(c) <= b for c in listed for a, b in module._UNSPACED_SCRIPTS)
    if unicodedata.unidata_version == "14.0.0":
        assert len(listed) == sum(unicodedata.category(chr(i))[0] == "M"
                                  and not any(a <= i <= b for a, b in module._UNSPACED_SCRIPTS)
                                  for i in range(0x110000))


def test_the_fast_search_finds_exactly_the_class():
    """token_pattern_for searches the class in two parts (in and beyond the BMP, for speed): every code point is
    found by them exactly when it is in the whole class."""
    whole = re.compile(f"[{module._HAN}{module._KATAKANA}{module._MARKS}]").match
    for i in range(0x80, 0x110000, 3):
        assert module._holds(module._NEEDS_UNICODE, chr(i)) == bool(whole(chr(i))), hex(i)
        assert module._holds(module._NEEDS_UNICODE, f"ab {chr(i)}") == bool(whole(chr(i))), hex(i)


def test_the_choice_is_the_brute_force_one_on_random_text():
    for text in random_texts(ALPHABET + "😀é’", 3_000, seed=2):
        needs = any(kind(c) in ("han", "katakana", "mark") for c in text)
        assert engine.token_pattern_for([text]) == (UNICODE_TOKEN_PATTERN if needs else TOKEN_PATTERN), text
        assert module.holds_pairs(text) == any(kind(c) in ("han", "katakana") for c in text)
        expected = UNICODE_TOKEN_PATTERN if needs else TOKEN_PATTERN
        assert engine.token_pattern_for([text]) == expected, text


@pytest.mark.parametrize(("text", "words"), [
    ("हिंदी भाषा में लिखा गया पाठ। यह एक परीक्षण है।",
     ["हिंदी", "भाषा", "में", "लिखा", "गया", "पाठ", "यह", "एक", "परीक्षण", "है"]),
    ("বাংলা ভাষা", ["বাংলা", "ভাষা"]),
    ("தமிழ் மொழி", ["தமிழ்", "மொழி"]),
    ("שָׁלוֹם עוֹלָם", ["שָׁלוֹם", "עוֹלָם"]),
    ("مَرْحَبًا بِالْعَالَم", ["مَرْحَبًا", "بِالْعَالَم"]),
])
def test_words_keep_their_vowel_signs_and_points(text, words):
    """TOKEN_PATTERN cut these at every combining mark ("हिंदी" gave nothing, "परीक्षण" "पर" and "षण")."""
    assert re.findall(UNICODE_TOKEN_PATTERN, text) == words
    analyze = Vectorizer(token_pattern=UNICODE_TOKEN_PATTERN, stop_words=None).analyzer()
    kept = [unicodedata.normalize("NFC", w) for w in words]
    if unicodedata.name(text[0]).startswith(("HEBREW", "ARABIC")):  # vowel points go with the accents
        kept = [module._ACCENTS.sub("", w) for w in words]
        assert kept == ["שלום", "עולם"] or kept == ["مرحبا", "بالعالم"]
    assert analyze(text) == kept  # accents stripped: the Indic vowel signs stay
    assert engine.token_pattern_for([text]) == UNICODE_TOKEN_PATTERN


def test_thai_is_read_as_before():
    """Thai has no spaces between words, so neither reading suits it; it keeps TOKEN_PATTERN's (run 58)."""
    text = "ภาษาไทย เป็นภาษา"
    assert engine.token_pattern_for([text]) == TOKEN_PATTERN
    assert re.findall(UNICODE_TOKEN_PATTERN, text) == re.findall(TOKEN_PATTERN, text)


def test_examples_read_as_documented():
    analyze = Vectorizer(token_pattern=UNICODE_TOKEN_PATTERN, stop_words=None).analyzer()
    assert analyze("Linux系统的文件 ls命令") == ["linux", "系统", "统的", "的文", "文件", "ls", "命令"]
    # katakana words whole, hiragana between words, a lone kanji (入, 後) not a word, as one-letter words are not
    assert analyze(JAPANESE[0]) == ["コンピュータ", "スタンバイモード", "復帰"]


def test_accent_stripping_keeps_kana_voicing_and_merges_halfwidth_kana():
    analyze = Vectorizer(token_pattern=UNICODE_TOKEN_PATTERN, stop_words=None).analyzer()
    assert analyze("データ ﾃﾞｰﾀ Café") == ["データ", "データ", "cafe"]
    # scikit-learn's stripping would have made "テータ" of it, which is why the pattern has its own
    assert engine.Vectorizer().preprocess("データ") == "テータ"
    assert module.strip_accents_keeping_scripts("naïve データ परीक्षण Ελλάδα") == "naive データ परीक्षण Ελλαδα"


def test_the_pattern_is_chosen_when_any_text_holds_han_or_katakana():
    assert engine.token_pattern_for(ENGLISH) == TOKEN_PATTERN
    assert engine.token_pattern_for([*ENGLISH, None, "ひらがな"]) == TOKEN_PATTERN  # hiragana alone: words as before
    assert engine.token_pattern_for(["Le café, déjà vu"]) == TOKEN_PATTERN  # precomposed accents: no mark
    assert engine.token_pattern_for(["cafe\u0301"]) == UNICODE_TOKEN_PATTERN  # an accent written apart
    assert engine.token_pattern_for([*ENGLISH, CHINESE[0]]) == UNICODE_TOKEN_PATTERN
    assert engine.token_pattern_for(["カタカナ"]) == UNICODE_TOKEN_PATTERN
    assert Corpus.from_texts(ENGLISH).vectorizer.token_pattern == TOKEN_PATTERN
    corpus = Corpus.from_texts(CHINESE + ENGLISH)
    assert corpus.vectorizer.token_pattern == UNICODE_TOKEN_PATTERN
    assert {"文件", "管理", "内核", "kernel", "mount"} <= set(corpus.vocabulary)
    explicit = Corpus.from_texts(CHINESE, token_pattern=TOKEN_PATTERN)  # a pattern given is used
    assert explicit.vectorizer.token_pattern == TOKEN_PATTERN
    assert "文件系统的挂载点由管理员设置" in explicit.vocabulary  # a clause as one "word": what the pairs avoid


def test_a_model_counts_new_chinese_text_as_its_training_text_and_keeps_it_in_its_file(tmp_path):
    corpus = Corpus.from_texts(CHINESE + JAPANESE)
    model = engine.LDA(n_topics=2, seed=0, n_epochs=2).fit(corpus)
    counted = model.count_texts(corpus.texts)
    assert (counted.counts != corpus.counts).nnz == 0
    path = tmp_path / "model.npz"
    engine.save_model(path, model)
    loaded = engine.load_model(path).model  # the pattern is one this project writes: no trust needed
    assert loaded.vectorizer_.token_pattern == UNICODE_TOKEN_PATTERN
    assert (loaded.count_texts(corpus.texts).counts != corpus.counts).nnz == 0
    np.testing.assert_allclose(loaded.transform_texts(CHINESE), model.transform_texts(CHINESE), rtol=1e-12)


def test_a_disk_corpus_chooses_the_pattern_from_its_first_documents(tmp_path):
    folder = tmp_path / "texts"
    folder.mkdir()
    for i, text in enumerate(CHINESE + ENGLISH):
        (folder / f"{i}.txt").write_text(text, encoding="utf-8")
    disk = DiskCorpus.from_texts(folder, tmp_path / "disk", chunk_size=2)
    corpus = Corpus.from_texts([(folder / f"{i}.txt").read_text(encoding="utf-8") for i in range(6)])
    assert disk.vectorizer == corpus.vectorizer and disk.vectorizer.token_pattern == UNICODE_TOKEN_PATTERN
    assert disk.vocabulary == corpus.vocabulary
    assert DiskCorpus.open(tmp_path / "disk").vectorizer.token_pattern == UNICODE_TOKEN_PATTERN


def test_a_disk_corpus_whose_chinese_text_comes_later_reads_every_document_as_pairs(tmp_path, monkeypatch):
    from engine.data import language, ondisk

    monkeypatch.setattr(ondisk, "SAMPLE_DOCUMENTS", 2)  # the pattern is first chosen from 2 English documents
    folder = tmp_path / "texts"
    folder.mkdir()
    texts = ENGLISH + CHINESE
    for i, text in enumerate(texts):
        (folder / f"{i}.txt").write_text(text, encoding="utf-8")
    disk = DiskCorpus.from_texts(folder, tmp_path / "disk", chunk_size=2, stop_words="auto")
    corpus = Corpus.from_texts(texts)
    assert disk.vectorizer.token_pattern == UNICODE_TOKEN_PATTERN and disk.vocabulary == corpus.vocabulary
    assert disk.vectorizer == corpus.vectorizer and disk.manifest["source"]["options"]["token_pattern"] == (
        UNICODE_TOKEN_PATTERN)
    assert language.SAMPLE_DOCUMENTS == 500  # only the disk corpus' sample was made smaller
    english = DiskCorpus.from_texts(folder, tmp_path / "given", chunk_size=2, token_pattern=TOKEN_PATTERN)
    assert english.vectorizer.token_pattern == TOKEN_PATTERN  # a pattern given is kept


def test_segments_of_overlapping_pairs_rebuild_the_text_and_tag_each_character_once():
    vectorizer = Vectorizer(token_pattern=UNICODE_TOKEN_PATTERN, strip_accents=False)
    text = "Linux文件系统的管理 ファイルを"
    vocabulary = ["文件", "件系", "系统", "管理", "linux", "ファイル"]
    segments = text_segments(text, vocabulary, vectorizer)
    assert "".join(part for part, _ in segments) == text
    assert [(part, column) for part, column in segments if column is not None] == [
        ("Linux", 4), ("文件", 0), ("系统", 2), ("管理", 3), ("ファイル", 5)]  # 件系 starts inside 文件


@pytest.mark.parametrize("texts", [CHINESE * 10, JAPANESE * 10])
def test_the_language_guess_reads_the_pairs(texts):
    guess = engine.guess_language(texts)
    assert guess.token_pattern == UNICODE_TOKEN_PATTERN and guess.reads_pairs
    assert guess.n_tokens > 100  # the pairs are counted as words, not whole clauses
    assert not engine.guess_language(ENGLISH * 10).reads_pairs


@pytest.mark.parametrize(("stop_words", "stripped"), [("french", False), ("fr", False), ("english", True),
                                                      (None, True), (["le", "la"], True), ("auto", False)])
def test_accents_auto_are_kept_for_a_language_other_than_english(stop_words, stripped):
    texts = ["Le pêcheur et la pêche au bord de la mer, sans péché.", "Le péché du pêcheur est la pêche."] * 3
    corpus = Corpus.from_texts(texts, stop_words=stop_words, strip_accents="auto")
    assert corpus.vectorizer.strip_accents is stripped
    assert ("pêche" in corpus.vocabulary) is not stripped and ("peche" in corpus.vocabulary) is stripped
    with pytest.raises(TypeError, match="True, False or 'auto'"):
        Corpus.from_texts(texts, strip_accents="yes")


def test_hindi_text_is_recognised_and_read_as_whole_words():
    texts = ["हिंदी भाषा में लिखा गया पाठ। यह एक परीक्षण है।", "इस पाठ में कई शब्द हैं जो हिंदी के शब्द हैं।",
             "भाषा का उपयोग किया गया है और पाठ लिखा गया है।"] * 3
    guess = engine.guess_language(texts)
    assert guess.language == "hindi" and not guess.reads_pairs  # with words cut at their vowel signs: no guess
    corpus = Corpus.from_texts(texts, stop_words="auto", strip_accents="auto")
    assert corpus.vectorizer.token_pattern == UNICODE_TOKEN_PATTERN and corpus.vectorizer.stop_words == "hindi"
    assert {"भाषा", "पाठ", "शब्द", "परीक्षण"} <= set(corpus.vocabulary)
    assert not {"में", "है", "यह"} & set(corpus.vocabulary)  # Hindi stop words, now whole words, are removed
