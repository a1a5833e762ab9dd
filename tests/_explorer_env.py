"""The environment every explorer test runs in: a private home folder, the small sample, no leftovers."""

from __future__ import annotations

import gc
from collections.abc import Iterator
from pathlib import Path

import pytest
import streamlit as st

from engine.inference.run import TrainingRun

APP = str(Path(__file__).resolve().parents[1] / "explorer" / "app.py")


def private_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, folder: str = "svi-home") -> Iterator[Path]:
    """A home folder of the test's own, the small synthetic sample, no automatic run; cleaned up after.

    After the test the Streamlit caches are cleared (which stops the runs of AppTest
    sessions, their session-scoped lease being released with no grace period) and every
    training thread the test left running is stopped.
    """
    home = tmp_path / folder
    for name, value in {"SVI_TOPICS_HOME": str(home), "SVI_TOPICS_ORPHAN_GRACE": "0",
                        "SVI_TOPICS_AUTOSTART": "0", "SVI_TOPICS_DEFAULT_SAMPLE": "synthetic",
                        "SVI_TOPICS_CHECKPOINT_SECONDS": "1"}.items():
        monkeypatch.setenv(name, value)
    for name in ("SVI_TOPICS_CHECKPOINTS", "SVI_TOPICS_WORKSPACE"):
        monkeypatch.delenv(name, raising=False)
    yield home
    st.cache_resource.clear()
    st.cache_data.clear()
    for obj in gc.get_objects():
        if isinstance(obj, TrainingRun) and obj.is_alive:
            obj.stop(timeout=5.0)
