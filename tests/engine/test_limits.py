"""engine/limits.py: defaults, environment overrides and the message of an exceeded limit."""

from __future__ import annotations

import pytest

import engine
from engine.limits import Limits, current_limits, setting_name


def test_defaults_and_environment(monkeypatch):
    assert current_limits() == Limits()
    monkeypatch.setenv("SVI_TOPICS_MAX_DOCUMENTS", "1000")
    monkeypatch.setenv("SVI_TOPICS_MAX_EXPANDED_MB", "2.5")
    limits = current_limits()
    assert limits.max_documents == 1000 and isinstance(limits.max_documents, int)
    assert limits.max_expanded_bytes == 2_500_000


@pytest.mark.parametrize("raw", ["0", "-3", "lots", "inf", "nan"])
def test_a_bad_setting_names_the_variable(monkeypatch, raw):
    monkeypatch.setenv("SVI_TOPICS_MAX_VOCABULARY", raw)
    with pytest.raises(ValueError, match="SVI_TOPICS_MAX_VOCABULARY must be a positive number"):
        current_limits()


def test_an_exceeded_limit_names_the_limit_the_value_and_the_setting():
    limits = Limits(max_documents=10)
    limits.check("max_documents", 10, "the header's document count")  # at the limit: fine
    with pytest.raises(engine.LimitExceededError) as caught:
        limits.check("max_documents", 2_000_000, "the header's document count")
    message = str(caught.value)
    assert "2,000,000" in message and "max_documents = 10" in message and "SVI_TOPICS_MAX_DOCUMENTS" in message
    assert isinstance(caught.value, ValueError)
    assert setting_name("max_dense_cells") == "SVI_TOPICS_MAX_DENSE_CELLS"


def test_the_byte_limit_names_its_megabyte_setting():
    with pytest.raises(engine.LimitExceededError, match=r"max_expanded_mb = 1.*SVI_TOPICS_MAX_EXPANDED_MB"):
        Limits(max_expanded_mb=1).check("max_expanded_bytes", 5_000_000, "the archive")
