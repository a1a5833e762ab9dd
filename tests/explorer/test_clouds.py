"""explorer/clouds.py: the font a word cloud is drawn with, and a clear error when the server has none."""

from __future__ import annotations

import io

import pytest
from PIL import Image

from explorer import clouds

WORDS = {"文件": 3.0, "系统": 2.0, "ファイル": 2.0, "gnu": 1.0}


def test_latin_words_take_wordclouds_own_font():
    assert clouds.cloud_font(["gnu", "café", "naïve"]) == clouds._default_font()


def test_the_first_font_with_every_letter_is_taken(monkeypatch):
    """A fallback font with the Chinese letters only is passed over for one that also has the Latin ones."""
    letters = {"fallback.ttf": {ord(c) for c in "文件系统ファイル"},
               "wide.ttc": {ord(c) for c in "文件系统ファイルgnu"}, "latin.ttf": {ord(c) for c in "gnu"}}
    monkeypatch.setattr(clouds, "_system_fonts", lambda: ["latin.ttf", "fallback.ttf", "wide.ttc"])
    monkeypatch.setattr(clouds, "_letters_of", lambda path: frozenset(letters.get(path, set())))
    assert clouds.cloud_font(WORDS) == "wide.ttc"
    assert clouds.cloud_font(["文件", "系统"]) == "fallback.ttf"
    assert clouds.cloud_font(["文件 系统"]) == "fallback.ttf"  # spaces need no glyph
    monkeypatch.setattr(clouds, "_system_fonts", lambda: ["latin.ttf", "fallback.ttf"])
    assert clouds.cloud_font(WORDS) is None


def test_no_font_with_the_letters_is_a_clear_error(monkeypatch):
    monkeypatch.setattr(clouds, "_system_fonts", lambda: [])
    with pytest.raises(clouds.MissingGlyphsError, match=r"no font on this server has the letters .*fonts-noto-cjk"):
        clouds.word_cloud_png({"文件": 2.0, "ファイル": 1.0})
    with pytest.raises(clouds.MissingGlyphsError, match=r"letters .*भ.*\(Debian: fonts-noto-core\)"):
        clouds.word_cloud_png({"हिंदी": 2.0, "भाषा": 1.0})  # another script: another package
    assert clouds.word_cloud_png({"gnu": 1.0, "linux": 2.0}).startswith(b"\x89PNG")  # Latin words are drawn


def test_a_broken_font_file_is_no_candidate(tmp_path):
    broken = tmp_path / "broken.ttf"
    broken.write_bytes(b"not a font")
    assert clouds._letters_of(str(broken)) == frozenset()


def test_chinese_and_japanese_words_are_drawn_with_a_font_that_has_them():
    font = clouds.cloud_font(WORDS)
    if font is None:
        pytest.skip("no font with Chinese, Japanese and Latin letters on this machine (e.g. fonts-wqy-zenhei)")
    assert {ord(c) for word in WORDS for c in word} <= clouds._letters_of(font)
    picture = Image.open(io.BytesIO(clouds.word_cloud_png(WORDS)))
    assert picture.size == (clouds.WIDTH, clouds.HEIGHT)
    assert len(picture.convert("L").getcolors(maxcolors=256 * 256)) > 2  # something was drawn


def test_words_no_font_draws_with_the_others_are_left_out_and_named(monkeypatch):
    """As Hindi words beside English ones, where Noto's Devanagari font has no Latin letters: the font that draws
    the largest weight is used and the rest are named (here wordcloud's own font, made to lack "q")."""
    real = clouds._letters_of
    monkeypatch.setattr(clouds, "_letters_of", lambda path: real(path) - {ord("q")})
    monkeypatch.setattr(clouds, "_system_fonts", lambda: [])
    picture = clouds.word_cloud({"hello": 3.0, "quiet": 1.0, "world": 2.0, "文件": 1.0})
    assert picture.left_out == ("quiet", "文件") and picture.png.startswith(b"\x89PNG")
    assert clouds.word_cloud({"hello": 1.0}).left_out == ()
