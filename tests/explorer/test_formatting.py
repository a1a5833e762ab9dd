"""explorer/formatting.py: numbers and durations for people."""

from __future__ import annotations

import pytest

from explorer import formatting


@pytest.mark.parametrize(
    ("value", "text"),
    [(-7.2345, "-7.23"), (0.001234, "0.00123"), (123456.7, "123,000"), (12.345, "12.3"), (1234.5, "1,230"),
     (1.0, "1"), (-0.5, "-0.5"), (99.95, "100"), (0, "0"), (None, "–"), (float("nan"), "–")],
)
def test_number_has_three_significant_digits_and_separators(value, text):
    assert formatting.number(value) == text


def test_count_percent_duration_size_plural():
    assert formatting.count(1234567) == "1,234,567"
    assert formatting.percent(0.1234) == "12.3%"
    assert formatting.duration(3.21) == "3.2 s"
    assert formatting.duration(65) == "1 min 05 s"
    assert formatting.duration(7300) == "2 h 01 min"
    assert formatting.file_size(2_500_000) == "2.5 MB"
    assert formatting.file_size(512) == "512 bytes"
    assert formatting.plural(1, "document") == "1 document"
    assert formatting.plural(1200, "document") == "1,200 documents"


def test_whole_percent_rounds_down_so_that_a_share_short_of_all_never_reads_as_all():
    assert [formatting.whole_percent(x) for x in (0.998, 0.677, 0.8, 0.29, 1.0, 0.0)] == [
        "99%", "67%", "80%", "29%", "100%", "0%"]
