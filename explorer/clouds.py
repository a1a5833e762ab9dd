"""Word-cloud pictures of topics, drawn with the ``wordcloud`` package (no Streamlit here)."""

from __future__ import annotations

import io
from collections.abc import Mapping

from wordcloud import WordCloud

__all__ = ["word_cloud_png"]

WIDTH, HEIGHT = 320, 200


def _shade(color: str):
    """A colour function: every word in the topic's colour."""
    def color_func(*args, **kwargs) -> str:
        return color
    return color_func


def word_cloud_png(weights: Mapping[str, float], color: str = "#4e79a7", width: int = WIDTH,
                   height: int = HEIGHT) -> bytes:
    """A PNG picture of ``weights`` (word -> weight), larger words weigh more.

    The layout is seeded, so the same weights give the same picture.
    """
    positive = {word: float(w) for word, w in weights.items() if w > 0}
    if not positive:
        raise ValueError("a word cloud needs at least one word with a positive weight")
    cloud = WordCloud(width=width, height=height, background_color="white", prefer_horizontal=1.0,
                      max_words=len(positive), random_state=0, color_func=_shade(color), margin=3,
                      collocations=False, normalize_plurals=False, relative_scaling=0.5)
    cloud.generate_from_frequencies(positive)
    buffer = io.BytesIO()
    cloud.to_image().save(buffer, format="PNG", optimize=False)
    return buffer.getvalue()
