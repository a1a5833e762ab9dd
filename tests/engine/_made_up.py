"""Short notes of made-up words, so a test knows every word's documents: no stop word, no word form, no accent."""

from __future__ import annotations

import numpy as np

# 75 made-up words, each drawn into many notes
COMMON = tuple(a + b + c for a in ("bra", "cle", "dro", "fen", "gal") for b in ("mi", "ro", "tu", "va", "ze")
               for c in ("nd", "rk", "st"))


def notes_with_own_words(n_notes: int, seed: int = 0) -> list[str]:
    """``n_notes`` notes of eight words drawn from :data:`COMMON` and one word found in that note only ("zzaaa",
    "zzaab", ...): 8 * n_notes words found in two or more notes, n_notes found in one (n_notes <= 1,000)."""
    rng = np.random.default_rng(seed)
    own = ["zz" + "".join(chr(97 + int(digit)) for digit in f"{i:03d}") for i in range(n_notes)]
    return [" ".join([*rng.choice(COMMON, 8), own[i]]) for i in range(n_notes)]
