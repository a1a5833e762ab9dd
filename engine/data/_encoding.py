"""Decode the bytes of a text file: an explicit encoding, a byte-order mark, UTF-8, or a detected encoding.

Detection asks ``charset_normalizer`` for its candidates, then decides among the
close calls itself, because on short texts the detector's first answer is often a
neighbour of the right code page (French Windows-1252 read as Windows-1257:
"crème" -> "crčme"; "año" read as Big5).  The rule:

1. Candidates are Windows-1252 (first; Latin-1 text decodes the same) and the
   detector's answers whose chaos (its mess score, 0 = clean) is within
   ``_CLOSE_CALL`` of the cleanest, in the detector's order.
2. Each candidate's text is scored by :func:`plausibility`: the share of its
   non-ASCII letters that look like real writing.  Latin, Greek and Cyrillic
   letters must be covered by one language's alphabet (French "àâæçéèêë...",
   Lithuanian "ąčęėįšųūž", Cyrillic...); letters of other scripts must not touch
   an ASCII letter; symbols wedged inside a word ("Za¿ó³æ", Polish read as
   Windows-1252), an accented capital after a small letter and C1 controls count
   against.  Text without such letters scores 1.
3. The best score wins; ties go to Windows-1252, then to the detector's order.

So Western text, by far the most common legacy case, decodes as Windows-1252
whenever that reading is as plausible as any other, and Baltic, Central European,
Cyrillic, Greek or East Asian text keeps its own encoding when its letters say so.
Texts of a few bytes can stay ambiguous: callers can pass the encoding.
"""

from __future__ import annotations

import codecs
import contextlib
import unicodedata
from collections import Counter

import charset_normalizer

from engine.errors import FileDecodingError

# detections messier than this (charset_normalizer's "chaos", 0 = clean text) are not trusted
_MAX_CHAOS = 0.2
# answers within this much chaos of the cleanest are a close call, decided by the alphabets below
_CLOSE_CALL = 0.1
_WESTERN = "cp1252"
_BOMS = (  # UTF-32 first: its little-endian BOM starts with UTF-16's
    (codecs.BOM_UTF8, "utf-8-sig"),
    (codecs.BOM_UTF32_LE, "utf-32"),
    (codecs.BOM_UTF32_BE, "utf-32"),
    (codecs.BOM_UTF16_LE, "utf-16"),
    (codecs.BOM_UTF16_BE, "utf-16"),
)
# the non-ASCII letters of languages written in the legacy 8-bit code pages (lowercase)
_ALPHABETS = (
    "àâæçéèêëîïôœùûüÿ",  # French
    "äöüß",  # German
    "áéíñóúü",  # Spanish
    "áâãàçéêíóôõú",  # Portuguese
    "àèéìíîòóùú",  # Italian
    "àçèéíïòóúü",  # Catalan
    "áéèëïóöüíú",  # Dutch
    "æøåéóò",  # Danish, Norwegian
    "åäöé",  # Swedish
    "äöåšž",  # Finnish
    "áðéíóúýþæö",  # Icelandic
    "ąćęłńóśźż",  # Polish
    "áčďéěíňóřšťúůýž",  # Czech
    "áäčďéíĺľňóôŕšťúýž",  # Slovak
    "áéíóöőúüű",  # Hungarian
    "ăâîșțşţ",  # Romanian
    "čćđšž",  # Croatian, Bosnian, Slovene
    "ąčęėįšųūž",  # Lithuanian
    "āčēģīķļņšūž",  # Latvian
    "äöõüšž",  # Estonian
    "çğıöşüâî",  # Turkish
    "çë",  # Albanian
    "".join(map(chr, range(0x430, 0x460))) + "ґ",  # Cyrillic (Russian, Ukrainian, Belarusian, Serbian...)
    "".join(map(chr, range(0x3AC, 0x3D0))),  # Greek
)
_ALPHABET_SETS = tuple(frozenset(a) for a in _ALPHABETS)
# non-ASCII punctuation that may sit inside a word: apostrophes, the Catalan middle dot, soft hyphen
_INSIDE_WORD = frozenset("’‘·\u00ad‐‑")


def encoding_name(encoding: str) -> str:
    """The name to show for a codec: ``windows-1252`` for ``cp1252``, ``iso-8859-2``, ``utf-8``...

    Raises ``ValueError`` if Python has no codec of that name.
    """
    try:
        name = codecs.lookup(encoding).name
    except (LookupError, TypeError):
        raise ValueError(f"encoding must be the name of a text encoding Python knows (such as 'utf-8', "
                         f"'windows-1252', 'iso-8859-1'), got {encoding!r}") from None
    if name.startswith("cp125") and len(name) == 6:
        return "windows-" + name[2:]
    if name.startswith("iso8859-"):
        return "iso-8859-" + name.removeprefix("iso8859-")
    return name


def decode(data: bytes, name: str, encoding: str | None = None) -> tuple[str, str]:
    """``(text, encoding used)`` of a file's bytes; see :func:`engine.decode_text`."""
    if encoding is not None:
        encoding = encoding_name(encoding)
        return _decode_as(data, name, encoding), encoding
    for bom, bom_encoding in _BOMS:
        if data.startswith(bom):
            try:
                return data.decode(bom_encoding), bom_encoding
            except UnicodeDecodeError as exc:
                raise FileDecodingError(
                    f"{name!r} starts with a {bom_encoding} byte-order mark but is not valid "
                    f"{bom_encoding} ({exc.reason} at byte {exc.start}); re-save it as UTF-8"
                ) from None
    _refuse_binary(data, name)
    try:
        return data.decode("utf-8"), "utf-8"
    except UnicodeDecodeError:
        return _detect(data, name)


def _refuse_binary(data: bytes, name: str) -> None:
    if b"\x00" in data:
        raise FileDecodingError(
            f"{name!r} looks like a binary file (it contains NUL bytes); "
            "only plain-text files can be read: remove it or convert it to UTF-8 text"
        )


def _decode_as(data: bytes, name: str, encoding: str) -> str:
    """Decode with an encoding the caller chose; a byte it cannot decode is named in the error."""
    if not encoding.startswith(("utf-16", "utf-32")):
        _refuse_binary(data, name)
    try:  # a UTF-8 byte-order mark is not part of the text
        return data.decode("utf-8-sig" if encoding == "utf-8" else encoding)
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        raise FileDecodingError(
            f"{name!r} is not valid {encoding}: byte 0x{data[exc.start]:02x} at offset {exc.start} "
            f"(line {line}) cannot be decoded ({exc.reason}); give the file's real encoding, "
            "or leave the encoding unset to detect it"
        ) from None


def _detect(data: bytes, name: str) -> tuple[str, str]:
    unreliable = FileDecodingError(
        f"{name!r} is not UTF-8 and its encoding could not be detected reliably "
        "(it may be binary); re-save it as UTF-8 text, give its encoding, or remove it"
    )
    # without a BOM and without NUL bytes, UTF-16/32 guesses are noise
    matches = [m for m in charset_normalizer.from_bytes(data)
               if not m.encoding.startswith(("utf_16", "utf_32"))]
    if not matches:
        raise unreliable
    lowest = min(m.chaos for m in matches)
    if lowest > _MAX_CHAOS:
        raise unreliable
    close = [m for m in matches if m.chaos <= lowest + _CLOSE_CALL]
    candidates: list[tuple[str, str]] = []
    # a byte that Windows-1252 leaves undefined means the text is not in that code page
    with contextlib.suppress(UnicodeDecodeError):
        candidates.append((_WESTERN, data.decode(_WESTERN)))
    candidates += [(m.encoding, str(m)) for m in close]
    scores = [plausibility(text) for _, text in candidates]
    best = max(scores)
    encoding, text = candidates[scores.index(best)]  # the first of the best: Western, then the detector's order
    return text, encoding_name(encoding)


def plausibility(text: str) -> float:
    """The share of the text's non-ASCII letters that look like real writing (1 if it has none).

    Latin, Greek and Cyrillic letters count if the one language alphabet that covers
    most of them has them; letters of other scripts (CJK, kana, Hangul, Arabic...)
    count unless they touch an ASCII letter, as no word mixes the two.  Symbols
    wedged between two letters, an accented capital right after a small letter
    ("xÆW") and C1 control characters count as letters nothing covers: they are
    what a wrong code page makes of a real letter.
    """
    judged: Counter[str] = Counter()
    strays = other_script = other_script_ok = 0
    for i, char in enumerate(text):
        if char.isascii():
            continue
        lower = char.lower()
        before = text[i - 1] if i else " "
        after = text[i + 1] if i + 1 < len(text) else " "
        if _is_judged_letter(char) and len(lower) == 1 and not (char != lower and before.islower()):
            judged[lower] += 1
        elif char.isalpha() and not _is_judged_letter(char):
            other_script += 1
            other_script_ok += not (_is_ascii_letter(before) or _is_ascii_letter(after))
        elif ("\x80" <= char <= "\x9f" or _is_judged_letter(char)
              or (char not in _INSIDE_WORD and _is_letter(before) and _is_letter(after)
                  and not unicodedata.category(char).startswith(("L", "M")))):
            strays += 1
    total = sum(judged.values()) + other_script + strays
    if not total:
        return 1.0
    covered = max(sum(n for letter, n in judged.items() if letter in alphabet) for alphabet in _ALPHABET_SETS)
    return (covered + other_script_ok) / total


def _is_judged_letter(char: str) -> bool:
    """A non-ASCII Latin, Greek or Cyrillic letter: what a wrong 8-bit code page changes."""
    return char.isalpha() and ("\u00c0" <= char <= "\u024f" or "\u0370" <= char <= "\u04ff")


def _is_letter(char: str) -> bool:
    return char.isalpha() and (char.isascii() or _is_judged_letter(char))



def _is_ascii_letter(char: str) -> bool:
    return char.isascii() and char.isalpha()
