"""benchmarks/cjk_tokens.py measures how much Chinese and Japanese text each reading counts."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import engine

_PATH = Path(__file__).resolve().parents[2] / "benchmarks" / "cjk_tokens.py"
_SPEC = importlib.util.spec_from_file_location("cjk_tokens_benchmark", _PATH)
cjk_tokens = importlib.util.module_from_spec(_SPEC)
_SPEC.loader.exec_module(cjk_tokens)

CHINESE = ["文件系统的挂载点由管理员设置。", "管理员设置文件系统的挂载点。", "用户读取文件系统的文件。"]


def test_characters_in_counted_tokens_are_counted_by_hand():
    texts = CHINESE * 2 + ["abc def"]
    pairs = engine.Corpus.from_texts(texts, token_pattern=engine.CJK_TOKEN_PATTERN, min_df=1)
    total = sum(len(cjk_tokens._SCRIPT.findall(text)) for text in texts)
    assert cjk_tokens.covered_characters(pairs, texts) == (total, total, 0)  # every character is in some pair
    # read as words, each clause is one token: 14 + 10 of "用户读取文件" are covered only where kept
    one = ["文件系统的挂载点由管理员设置"] * 2 + ["用户读取文件"]
    words = engine.Corpus.from_texts(one, token_pattern=engine.TOKEN_PATTERN, min_df=2)
    assert words.vocabulary == ("文件系统的挂载点由管理员设置",)
    assert cjk_tokens.covered_characters(words, one) == (34, 28, 1)


def test_a_reading_reports_finite_figures_and_examples():
    texts = [*CHINESE, "The kernel mounts the file system."] * 6
    result = cjk_tokens.reading(texts, engine.CJK_TOKEN_PATTERN, k=2, seeds=[0, 1], epochs=2)
    assert result["n_docs"] == 24 and 0 < result["written_V"] < 1
    assert 0.5 < result["covered"] < 1  # max_df 0.5 drops the commonest pairs
    assert result["share"].shape == (2,) and all(0 <= s <= 1 for s in result["share"])
    assert len(result["examples"]) == 2 and result["bare"] == 0.0
