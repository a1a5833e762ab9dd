"""benchmarks/unicode_tokens.py measures how much Chinese and Japanese text each reading counts."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import engine

_PATH = Path(__file__).resolve().parents[2] / "benchmarks" / "unicode_tokens.py"
_SPEC = importlib.util.spec_from_file_location("unicode_tokens_benchmark", _PATH)
unicode_tokens = importlib.util.module_from_spec(_SPEC)
_SPEC.loader.exec_module(unicode_tokens)

CHINESE = ["文件系统的挂载点由管理员设置。", "管理员设置文件系统的挂载点。", "用户读取文件系统的文件。"]


def test_characters_in_counted_tokens_are_counted_by_hand():
    texts = CHINESE * 2 + ["abc def"]
    pairs = engine.Corpus.from_texts(texts, token_pattern=engine.UNICODE_TOKEN_PATTERN, min_df=1)
    total = sum(len(unicode_tokens._SCRIPT.findall(text)) for text in texts)
    assert unicode_tokens.covered_characters(pairs, texts) == (total, total, 0)  # every character is in some pair
    # read as words, each clause is one token: 14 + 10 of "用户读取文件" are covered only where kept
    one = ["文件系统的挂载点由管理员设置"] * 2 + ["用户读取文件"]
    words = engine.Corpus.from_texts(one, token_pattern=engine.TOKEN_PATTERN, min_df=2)
    assert words.vocabulary == ("文件系统的挂载点由管理员设置",)
    assert unicode_tokens.covered_characters(words, one) == (34, 28, 1)


def test_a_reading_reports_finite_figures_and_examples():
    texts = [*CHINESE, "The kernel mounts the file system."] * 6
    result = unicode_tokens.reading(texts, engine.UNICODE_TOKEN_PATTERN, k=2, seeds=[0, 1], epochs=2)
    assert result["n_docs"] == 24 and 0 < result["written_V"] < 1
    assert 0.5 < result["covered"] < 1  # max_df 0.5 drops the commonest pairs
    assert result["share"].shape == (2,) and all(0 <= s <= 1 for s in result["share"])
    assert len(result["examples"]) == 2 and result["bare"] == 0.0


def _write_mo(path: Path, messages: dict[str, str]) -> None:
    """A GNU gettext catalogue (.mo) of ``messages``, UTF-8, with the header entry gettext reads the charset from."""
    import struct

    entries = sorted({"": "Content-Type: text/plain; charset=UTF-8\n", **messages}.items())
    keys = [k.encode("utf-8") for k, _ in entries]
    values = [v.encode("utf-8") for _, v in entries]
    n = len(entries)
    start = 7 * 4 + 16 * n  # header, then the two tables of (length, offset)
    key_offsets, value_offsets, blob = [], [], b""
    for strings, offsets in ((keys, key_offsets), (values, value_offsets)):
        for s in strings:
            offsets.append((len(s), start + len(blob)))
            blob += s + b"\0"
    header = struct.pack("<7I", 0x950412DE, 0, n, 28, 28 + 8 * n, 0, 0)
    tables = b"".join(struct.pack("<2I", *o) for o in key_offsets + value_offsets)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(header + tables + blob)


def test_messages_are_read_from_each_catalogue_in_documents_of_twenty(tmp_path):
    hindi = {f"message {i:02d}": f"संदेश {i}" for i in range(25)}
    _write_mo(tmp_path / "hi" / "LC_MESSAGES" / "a.mo", hindi)
    _write_mo(tmp_path / "hi" / "LC_MESSAGES" / "b.mo", {"open": "खोलें"})
    (tmp_path / "hi" / "LC_MESSAGES" / "broken.mo").write_bytes(b"not a catalogue")
    texts = unicode_tokens.message_texts("hi", tmp_path)
    assert len(texts) == 3  # 25 messages of a.mo in 20 + 5, b.mo's one; the broken file skipped
    assert texts[0].split(" संदेश ")[0] == "संदेश 0" and texts[0].count("संदेश") == 20
    assert texts[1].count("संदेश") == 5 and texts[2] == "खोलें"
    assert unicode_tokens.message_texts("xx", tmp_path) == []
