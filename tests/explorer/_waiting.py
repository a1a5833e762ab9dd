"""Waiting for a background run in the explorer tests."""

from __future__ import annotations

import time


def wait_until(predicate, timeout: float = 30.0) -> None:
    """Poll ``predicate`` every 50 ms until it is true; fail the test after ``timeout`` seconds."""
    end = time.monotonic() + timeout
    while not predicate():
        assert time.monotonic() < end, "timed out"
        time.sleep(0.05)
