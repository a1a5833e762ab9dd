"""Numbers and durations written for people: thousands separators, 3 significant digits."""

from __future__ import annotations

import math

__all__ = ["count", "duration", "file_size", "number", "percent", "plural", "whole_percent"]


def count(value: int | float | None) -> str:
    """A whole number with thousands separators: ``12345 -> "12,345"``."""
    if value is None:
        return "–"
    return f"{round(value):,}"


def number(value: float | None, digits: int = 3) -> str:
    """A number rounded to ``digits`` significant digits, with thousands separators.

    ``-7.2345 -> "-7.23"``, ``0.001234 -> "0.00123"``, ``123456.7 -> "123,000"``.
    """
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return "–"
    if math.isinf(value):
        return "∞" if value > 0 else "-∞"
    if value == 0:
        return "0"
    rounded = float(f"{value:.{digits}g}")  # 3 significant digits
    magnitude = math.floor(math.log10(abs(rounded)))
    if magnitude >= digits - 1:
        return f"{rounded:,.0f}"
    text = f"{rounded:,.{digits - 1 - magnitude}f}"
    return text.rstrip("0").rstrip(".") if "." in text else text


def percent(fraction: float | None, digits: int = 3) -> str:
    """A fraction as a percentage with ``digits`` significant digits: ``0.1234 -> "12.3%"``."""
    if fraction is None:
        return "–"
    return f"{number(100.0 * fraction, digits)}%"


def whole_percent(fraction: float) -> str:
    """A fraction as whole percent, rounded down: ``0.998 -> "99%"`` (a share short of all never reads as 100%)."""
    return f"{math.floor(100.0 * fraction + 1e-9)}%"


def duration(seconds: float | None) -> str:
    """A duration in words: ``"0.4 s"``, ``"42 s"``, ``"3 min 05 s"``, ``"2 h 07 min"``."""
    if seconds is None or math.isnan(seconds) or math.isinf(seconds):
        return "–"
    seconds = max(0.0, float(seconds))
    if seconds < 10:
        return f"{number(seconds, 2)} s"
    whole = round(seconds)
    if whole < 60:
        return f"{whole} s"
    minutes, secs = divmod(whole, 60)
    if minutes < 60:
        return f"{minutes} min {secs:02d} s"
    hours, minutes = divmod(minutes, 60)
    return f"{hours} h {minutes:02d} min"


def file_size(n_bytes: int) -> str:
    """Bytes in the largest fitting unit: ``2_500_000 -> "2.5 MB"``."""
    value = float(n_bytes)
    for unit in ("bytes", "kB", "MB", "GB"):
        if value < 1000 or unit == "GB":
            return f"{count(value)} bytes" if unit == "bytes" else f"{number(value)} {unit}"
        value /= 1000
    raise AssertionError("unreachable")


def plural(n: int, singular: str, plural_form: str | None = None) -> str:
    """``plural(1, "document") -> "1 document"``, ``plural(1200, "document") -> "1,200 documents"``."""
    word = singular if n == 1 else (plural_form or singular + "s")
    return f"{count(n)} {word}"


def join_and(items: list[str]) -> str:
    """``["a", "b", "c"] -> "a, b and c"``; one item as it is, none as ""."""
    return " and ".join([", ".join(items[:-1]), items[-1]] if len(items) > 1 else items)
