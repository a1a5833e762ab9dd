"""Word-cloud pictures of topics, drawn with the ``wordcloud`` package (no Streamlit here).

The picture is drawn on the server, so its letters need a font on the server: ``wordcloud``'s
own (Droid Sans Mono) has Latin, Greek and Cyrillic letters but no Chinese or Japanese ones, and
would draw those as empty boxes.  Words it cannot draw take the first font on this machine that
has every letter of them (Debian's ``fonts-wqy-zenhei`` or ``fonts-noto-cjk`` have Chinese,
Japanese and Latin ones, ``fonts-noto-core`` most other scripts', one font a script).  When no
font has them all, the font that draws the largest weight of the words is used and the others
are named (:class:`CloudPicture`); when no font draws any, :class:`MissingGlyphsError` says
which letters are missing and what to install.
"""

from __future__ import annotations

import io
import os
from collections.abc import Iterable, Mapping
from functools import cache
from typing import NamedTuple

from wordcloud import WordCloud

from explorer.engine_api import holds_pairs

__all__ = ["CloudPicture", "MissingGlyphsError", "cloud_font", "word_cloud", "word_cloud_png"]

WIDTH, HEIGHT = 320, 200
CJK_FONT_PACKAGES = "fonts-wqy-zenhei or fonts-noto-cjk"  # Debian's, with Chinese, Japanese and Latin letters
FONT_PACKAGES = "fonts-noto-core"  # Debian's, with most other scripts' letters (Devanagari, Bengali, Tamil...)
# fonts whose file names say they cover many scripts are tried first; any other font on the machine after them
_WIDE_FONT_NAMES = ("fallback", "cjk", "wqy", "ipa", "unifont", "noto")


class MissingGlyphsError(ValueError):
    """No font on the server can draw every letter of a word cloud."""


@cache
def _letters_of(path: str) -> frozenset[int]:
    """The code points a font file has glyphs for (the first font of a collection); empty if it cannot be read."""
    from fontTools.ttLib import TTFont

    try:
        with open(path, "rb") as file:  # opened here, so that a file fontTools refuses is closed too
            return frozenset(TTFont(file, fontNumber=0, lazy=True).getBestCmap() or ())
    except Exception:  # a broken or unsupported font file on the machine: not a candidate
        return frozenset()


def _default_font() -> str:
    from wordcloud import wordcloud as module

    return module.FONT_PATH


@cache
def _system_fonts() -> tuple[str, ...]:
    """The machine's font files (listed once a process: a font installed later is found after a restart)."""
    from matplotlib import font_manager

    fonts = sorted(set(font_manager.findSystemFonts()))
    wide = [f for f in fonts if any(name in os.path.basename(f).lower() for name in _WIDE_FONT_NAMES)]
    return tuple(wide + [f for f in fonts if f not in wide])


def cloud_font(words: Iterable[str]) -> str | None:
    """The font file to draw ``words`` with: ``wordcloud``'s own when it has every letter (spaces aside),
    else the first font on this machine that has them all; None when none has."""
    needed = {ord(c) for word in words for c in word if not c.isspace()}
    default = _default_font()
    if needed <= _letters_of(default):
        return default
    return next((path for path in _system_fonts() if needed <= _letters_of(path)), None)


def _shade(color: str):
    """A colour function: every word in the topic's colour."""
    def color_func(*args, **kwargs) -> str:
        return color
    return color_func


class CloudPicture(NamedTuple):
    """A word cloud: the PNG, and the words left out of it because no font has their letters and the others'."""

    png: bytes
    left_out: tuple[str, ...] = ()


def _drawable(words: Mapping[str, float], path: str) -> list[str]:
    letters = _letters_of(path)
    return [word for word in words if {ord(c) for c in word if not c.isspace()} <= letters]


def word_cloud(weights: Mapping[str, float], color: str = "#4e79a7", width: int = WIDTH,
               height: int = HEIGHT) -> CloudPicture:
    """A picture of ``weights`` (word -> weight), larger words weigh more.

    The layout is seeded, so the same weights give the same picture.  Drawn with :func:`cloud_font`'s font; when
    no font has every letter (Hindi words beside English ones, where Noto's Devanagari font has no Latin letters),
    with the font that draws the largest weight of them, and the rest are named in ``left_out``.  Raises
    :class:`MissingGlyphsError` when no font draws any of the words.
    """
    positive = {word: float(w) for word, w in weights.items() if w > 0}
    if not positive:
        raise ValueError("a word cloud needs at least one word with a positive weight")
    font, left_out = cloud_font(positive), ()
    if font is None:
        fonts = (_default_font(), *_system_fonts())
        weight = [sum(positive[word] for word in _drawable(positive, path)) for path in fonts]
        best = max(range(len(fonts)), key=lambda i: (weight[i], -i))
        if weight[best] == 0:
            missing = sorted({c for word in positive for c in word if ord(c) not in _letters_of(_default_font())})
            packages = CJK_FONT_PACKAGES if holds_pairs("".join(missing)) else FONT_PACKAGES
            raise MissingGlyphsError(
                f"no font on this server has the letters {''.join(missing[:8])}{'…' if len(missing) > 8 else ''}; "
                f"to draw such words, the server's administrator can install one (Debian: {packages})")
        font, drawn = fonts[best], set(_drawable(positive, fonts[best]))
        left_out = tuple(word for word in positive if word not in drawn)
        positive = {word: w for word, w in positive.items() if word in drawn}
    cloud = WordCloud(font_path=font, width=width, height=height, background_color="white", prefer_horizontal=1.0,
                      max_words=len(positive), random_state=0, color_func=_shade(color), margin=3,
                      collocations=False, normalize_plurals=False, relative_scaling=0.5)
    cloud.generate_from_frequencies(positive)
    buffer = io.BytesIO()
    cloud.to_image().save(buffer, format="PNG", optimize=False)
    return CloudPicture(buffer.getvalue(), left_out)


def word_cloud_png(weights: Mapping[str, float], color: str = "#4e79a7", width: int = WIDTH,
                   height: int = HEIGHT) -> bytes:
    """:func:`word_cloud`'s PNG (words it had to leave out are not said)."""
    return word_cloud(weights, color, width, height).png
