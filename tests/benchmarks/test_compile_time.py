"""benchmarks/compile_time.py: its checks of the checkouts and its table and ratios (no compile is timed here)."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))
compile_time = pytest.importorskip("compile_time")


def test_a_folder_that_is_not_a_checkout_is_refused(tmp_path, capsys):
    with pytest.raises(SystemExit):
        compile_time.main(["--checkout", str(tmp_path)])
    assert "not a checkout of this project" in capsys.readouterr().err


def test_the_table_holds_each_rounds_seconds_and_the_ratio_of_the_totals(tmp_path, monkeypatch, capsys):
    slow, fast = tmp_path / "slow", tmp_path / "fast"
    for path in (slow, fast):
        (path / "engine").mkdir(parents=True)
        (path / "engine" / "__init__.py").write_text("")
    seconds = {slow: {"A": 6.0, "B": 4.0}, fast: {"A": 2.0, "B": 3.0}}
    calls = []

    def fake(checkout, workloads):
        calls.append((checkout, tuple(workloads)))
        return dict(seconds[checkout])

    monkeypatch.setattr(compile_time, "compile_seconds", fake)
    assert compile_time.main(["--checkout", str(slow), "--checkout", str(fast), "--rounds", "2",
                              "--workloads", "A", "B"]) == 0
    out = capsys.readouterr().out
    assert calls == [(slow, ("A", "B")), (fast, ("A", "B"))] * 2  # in turn, each round
    assert "| A | 6.0, 6.0 | 2.0, 2.0 |" in out
    assert "| total | 10.0, 10.0 | 5.0, 5.0 |" in out
    assert "`fast` / `slow`, total compile seconds per round: 0.50x, 0.50x" in out


def test_the_default_workloads_are_those_a_full_test_run_compiles():
    """The script's list (in its own order, the default ones first) names the test warm-up's workloads, no more."""
    from tests._kernel_cache import ALL_WORKLOADS

    assert sorted(compile_time.WORKLOADS) == sorted(workload for group in ALL_WORKLOADS for workload in group)
