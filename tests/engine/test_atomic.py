"""Atomic writes leave the old file or the new one, never a partial one."""

from __future__ import annotations

import os

import pytest

from engine import atomic_file


def test_replaces_the_file_and_keeps_its_permissions(tmp_path):
    target = tmp_path / "data.txt"
    target.write_text("old")
    os.chmod(target, 0o600)
    with atomic_file(target, "w", encoding="utf-8") as file:
        file.write("new")
    assert target.read_text() == "new"
    assert target.stat().st_mode & 0o777 == 0o600
    assert [p.name for p in tmp_path.iterdir()] == ["data.txt"]


def test_a_failure_leaves_the_old_file_and_no_temporary(tmp_path):
    target = tmp_path / "data.bin"
    target.write_bytes(b"old")

    def write_half():
        with atomic_file(target) as file:
            file.write(b"half of the ne")
            raise RuntimeError("disk full")

    with pytest.raises(RuntimeError, match="disk full"):
        write_half()
    assert target.read_bytes() == b"old"
    assert [p.name for p in tmp_path.iterdir()] == ["data.bin"]
